/* How many parts to check a file in, side by side (common.h): the rule
 * every format's parallel reader and validator shares. The ATF index reader
 * scans and checksums each of its parts in one pass; the ATF detail reader,
 * whose variable-length events form one chain, checksums each part and walks
 * a guessed chain behind it, then joins the chains; the WTF validator runs
 * its later parts ahead from no state and joins them in order. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

unsigned atf_cgroup_quota_cpus(const char *cpu_max)
{
    char *end;
    if (!cpu_max || !strncmp(cpu_max, "max", 3))
        return 0;
    unsigned long long quota = strtoull(cpu_max, &end, 10);
    if (end == cpu_max || *end != ' ')
        return 0;
    const char *q = end + 1;
    unsigned long long period = strtoull(q, &end, 10);
    if (end == q || period == 0 || quota == 0 || (*end && *end != '\n'))
        return 0;
    unsigned long long n = (quota + period - 1) / period;
    return n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

/* The tightest cpu.max quota of the process's cgroup and its parents (cgroup
 * v2: /proc/self/cgroup's "0::PATH" under /sys/fs/cgroup), 0 for none. Read
 * once: a quota is set when a container starts. */
static unsigned cgroup_cpus;
static pthread_once_t cgroup_once = PTHREAD_ONCE_INIT;

static void read_cgroup_cpus(void)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return;
    char line[4096], path[4096 + 64];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = !strncmp(line, "0::", 3);
    fclose(f);
    if (!found)
        return;   /* cgroup v1 only: no cpu.max */
    line[strcspn(line, "\n")] = 0;
    char *dir = line + 3;
    for (;;) {
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", strcmp(dir, "/") ? dir : "");
        FILE *m = fopen(path, "re");
        if (m) {
            char text[64];
            if (fgets(text, sizeof text, m)) {
                unsigned n = atf_cgroup_quota_cpus(text);
                if (n && (!cgroup_cpus || n < cgroup_cpus))
                    cgroup_cpus = n;
            }
            fclose(m);
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            break;
        *slash = 0;
    }
}

unsigned atf_cpu_count(void)
{
    unsigned n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = (unsigned)CPU_COUNT(&set);
    if (n == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        n = online < 1 ? 1u : (unsigned)online;
    }
    pthread_once(&cgroup_once, read_cgroup_cpus);
    if (cgroup_cpus && cgroup_cpus < n)
        n = cgroup_cpus;
    return n;
}

/* Bytes per part below which the default stays on one thread (16 MiB): a
 * thread's start costs tens of microseconds, 16 MiB about a millisecond. */
#define PART_MIN_BYTES ((uint64_t)16 << 20)

unsigned atf_part_count(unsigned wanted, uint64_t bytes, uint64_t units, unsigned max)
{
    uint64_t n = wanted;
    if (n == 0) {
        n = bytes / PART_MIN_BYTES;
        if (n < 2)
            return 1; /* (no CPU count, a system call, for the many small files of a session) */
        unsigned cpus = atf_cpu_count();
        n = cpus < n ? cpus : n;
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
