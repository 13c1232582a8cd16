/* Verifying a file's events in parts side by side (internal.h): how many
 * parts, and the CRC32-C of a byte range computed in parts and joined. The
 * index reader scans and checksums each of its parts in one pass; the detail
 * reader, whose variable-length events can only be walked in order, walks
 * them on the calling thread while the parts' CRCs are computed. The calling
 * thread takes the last part: the threads start on the first ones, ahead of
 * the walk, and their page faults map the file for it. */
#include <pthread.h>
#include <unistd.h>

#include <atf/crc32c.h>

#include "internal.h"

/* Bytes per part below which the default stays on one thread (16 MiB): a
 * thread's start costs tens of microseconds, 16 MiB about a millisecond. */
#define VERIFY_PART_MIN_BYTES ((uint64_t)16 << 20)

unsigned atf_verify_parts(unsigned wanted, uint64_t bytes, uint64_t units)
{
    uint64_t n = wanted;
    if (n == 0) {
        n = bytes / VERIFY_PART_MIN_BYTES;
        if (n < 2)
            return 1; /* (no sysconf, which reads /sys, for the many small files of a session) */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus < 1 ? 1 : (uint64_t)cpus < n ? (uint64_t)cpus : n;
    }
    n = n > ATF_VERIFY_PARTS_MAX ? ATF_VERIFY_PARTS_MAX : n;
    n = n > units ? units : n;
    return n ? (unsigned)n : 1;
}

static void *crc_part_main(void *arg)
{
    atf_crc_part *p = arg;
    p->crc = atf_crc32c(0, p->data, (size_t)p->size);
    return NULL;
}

void atf_crc_parts_start(atf_crc_parts *j, const uint8_t *data, uint64_t size, unsigned parts)
{
    j->n = parts ? (parts > ATF_VERIFY_PARTS_MAX ? ATF_VERIFY_PARTS_MAX : parts) : 1;
    for (unsigned i = 0; i < j->n; i++) {
        uint64_t a = size * i / j->n, b = size * (i + 1) / j->n;
        j->part[i] = (atf_crc_part){ .data = data + a, .size = b - a };
        if (i + 1 < j->n)
            j->part[i].started = pthread_create(&j->part[i].tid, NULL, crc_part_main, &j->part[i]) == 0;
    }
}

uint32_t atf_crc_parts_finish(atf_crc_parts *j, unsigned *ran)
{
    crc_part_main(&j->part[j->n - 1]);
    uint32_t crc = 0;
    unsigned r = 1;
    for (unsigned i = 0; i < j->n; i++) {
        if (i + 1 < j->n) {
            if (j->part[i].started) {
                pthread_join(j->part[i].tid, NULL);
                r++;
            } else {
                crc_part_main(&j->part[i]); /* its thread did not start: the caller does it */
            }
        }
        crc = i ? atf_crc32c_combine(crc, j->part[i].crc, j->part[i].size) : j->part[i].crc;
    }
    if (ran)
        *ran = r;
    return crc;
}
