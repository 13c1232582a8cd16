/* Sleeping and waking on a 32-bit word: FUTEX_WAIT/FUTEX_WAKE (private)
 * on Linux; elsewhere a short sleep and no wake (the sleepers' timeouts
 * bound the delay). */
#include <time.h>

#if defined(__linux__)
#  include <linux/futex.h>
#  include <sys/syscall.h>
#  include <unistd.h>
#endif

#include "rec_base.h"
#include "rec_wake.h"

void rec_wait32(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns)
{
#if defined(__linux__)
    struct timespec ts = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
#else
    if (atomic_load_explicit(addr, ACQ) != val)
        return;
    struct timespec ts = { 0, (long)(timeout_ns < 200000u ? timeout_ns : 200000u) };
    nanosleep(&ts, NULL);
#endif
}

void rec_wake32(_Atomic uint32_t *addr)
{
#if defined(__linux__)
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#else
    (void)addr;
#endif
}
