/* How many parts to check a file in, side by side (common.h): the rule
 * every format's parallel reader and validator shares. The ATF index reader
 * scans and checksums each of its parts in one pass; the ATF detail reader,
 * whose variable-length events form one chain, checksums each part and walks
 * a guessed chain behind it, then joins the chains; the WTF validator runs
 * its later parts ahead from no state and joins them in order. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

/* Bytes per part below which the default stays on one thread (16 MiB): a
 * thread's start costs tens of microseconds, 16 MiB about a millisecond. */
#define PART_MIN_BYTES ((uint64_t)16 << 20)

unsigned atf_part_count(unsigned wanted, uint64_t bytes, uint64_t units, unsigned max)
{
    uint64_t n = wanted;
    if (n == 0) {
        n = bytes / PART_MIN_BYTES;
        if (n < 2)
            return 1; /* (no sysconf, which reads /sys, for the many small files of a session) */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus < 1 ? 1 : (uint64_t)cpus < n ? (uint64_t)cpus : n;
    }
    n = n > max ? max : n;
    n = n > units ? units : n;
    return n ? (unsigned)n : 1;
}

typedef struct part_thread {
    void (*run)(void *part);
    void *part;
    pthread_t tid;
    int started;
} part_thread;

static void *part_thread_main(void *arg)
{
    part_thread *t = arg;
    t->run(t->part);
    return NULL;
}

unsigned atf_parts_run(void *parts, size_t stride, unsigned n, void (*run)(void *part))
{
    uint8_t *base = parts;
    part_thread stack[16], *th = n <= 16 ? stack : malloc(n * sizeof *th);
    unsigned ran = 1;
    for (unsigned i = 1; i < n; i++) {
        if (!th)
            break;   /* no memory for the threads' bookkeeping: all on the caller */
        th[i] = (part_thread){ .run = run, .part = base + i * stride };
        th[i].started = pthread_create(&th[i].tid, NULL, part_thread_main, &th[i]) == 0;
    }
    if (n)
        run(base);
    for (unsigned i = 1; i < n; i++) {
        if (th && th[i].started) {
            pthread_join(th[i].tid, NULL);
            ran++;
        } else {
            run(base + i * stride);   /* its thread did not start: the caller does it */
        }
    }
    if (th != stack)
        free(th);
    return ran;
}
