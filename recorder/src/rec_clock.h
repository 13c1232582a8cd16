/* Timestamps (rec_clock.c): the system clock, the CPU counter and the
 * writers' piecewise-linear conversion of counter values to nanoseconds. */
#ifndef ATF_REC_CLOCK_H
#define ATF_REC_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define REC_CLOCK_SEGS 64u       /* conversion segments kept (ring) */
#define REC_CLOCK_LOOKBACK 32u   /* segments a conversion may look back */

/* ns = n0 + (c - c0) * mult / 2^32 */
typedef struct rec_seg {
    uint64_t c0, n0, mult;
} rec_seg;

typedef struct rec_clock {
    uint32_t source;             /* ATF_RECORDER_CLOCK_SYSTEM or _COUNTER */
    rec_seg seg[REC_CLOCK_SEGS];
    _Atomic uint64_t nseg;       /* segments published (release) */
    /* calibration state: only the calibrating thread (writer 0) touches it */
    uint64_t base_c, base_n;     /* first sample: the long baseline */
    uint64_t next_cal_ns;
    unsigned cal_step;
    _Atomic uint64_t max_step_ns;
} rec_clock;

uint64_t rec_clock_system_ns(void);
/* *at = now on clock clk plus ms milliseconds (for timed waits). Any thread. */
void rec_deadline_after(struct timespec *at, clockid_t clk, uint32_t ms);
int rec_counter_available(void);

/* The CPU counter (inline: it is on the hot path). */
static inline uint64_t rec_counter_read(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return rec_clock_system_ns();
#endif
}
/* Initial calibration (~2 ms busy wait) for the counter source. */
void rec_clock_init(rec_clock *c, uint32_t source);
/* Called by each writer every loop on its own copy: adds a segment when due. */
void rec_clock_tick(rec_clock *c, uint64_t now_ns);
/* Converts a counter value (thread-safe; lock-free). */
uint64_t rec_clock_convert(const rec_clock *c, uint64_t counter);
/* Index of the segment for counter value c, and the counter value where the
 * next one starts (UINT64_MAX if none); for converting runs of events. */
const rec_seg *rec_clock_find(const rec_clock *c, uint64_t counter, uint64_t *next_c0);

static inline uint64_t rec_seg_apply(const rec_seg *s, uint64_t c)
{
#if defined(__SIZEOF_INT128__)
    if (c >= s->c0)
        return s->n0 + (uint64_t)(((unsigned __int128)(c - s->c0) * s->mult) >> 32);
    uint64_t d = (uint64_t)(((unsigned __int128)(s->c0 - c) * s->mult) >> 32);
#else
    if (c >= s->c0)
        return s->n0 + (uint64_t)((double)(c - s->c0) * (double)s->mult / 4294967296.0);
    uint64_t d = (uint64_t)((double)(s->c0 - c) * (double)s->mult / 4294967296.0);
#endif
    return d < s->n0 ? s->n0 - d : 0;
}

#endif /* ATF_REC_CLOCK_H */
