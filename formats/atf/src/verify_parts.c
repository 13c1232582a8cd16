/* Verifying a file's events in parts side by side (internal.h): how many
 * parts. The index reader scans and checksums each of its parts in one
 * pass; the detail reader, whose variable-length events form one chain,
 * checksums each part and walks a guessed chain behind it, then joins the
 * chains (detail_reader.c). */
#include <unistd.h>

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
