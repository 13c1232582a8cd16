/* Timestamps: the system clock (CLOCK_BOOTTIME, clock_type 3) and the CPU
 * counter fast path (TSC on x86_64, CNTVCT_EL0 on arm64).
 *
 * With the counter, producers store raw counter values and the writer
 * converts them with a piecewise-linear function of the counter that is
 * continuous and strictly increasing (so per-thread order survives). Each
 * writer keeps its own copy (the events of one thread are converted by one
 * writer) and recalibrates it against the system clock at 10 ms, 50 ms,
 * 200 ms, 700 ms and then every second: the new segment starts where the
 * previous one predicts (no jump) and its slope,
 * taken from the longest baseline available, is bent so that the remaining
 * error is absorbed over the next interval. A prediction more than 1 ms behind
 * the clock (e.g. after a suspend) is corrected by a forward step; nothing
 * ever steps backwards. The largest correction is reported. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#  include <cpuid.h>
#endif

#include <atf/recorder.h>

#include "rec_base.h"
#include "rec_clock.h"

#define STEP_LIMIT_NS 1000000u   /* larger positive errors are stepped */

uint64_t rec_clock_system_ns(void)
{
    struct timespec ts;
#if defined(CLOCK_BOOTTIME)
    clock_gettime(CLOCK_BOOTTIME, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int rec_counter_available(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    /* Invariant TSC: CPUID.80000007H:EDX[8]. */
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    if (!(d & (1u << 8)))
        return 0;
#  if defined(__linux__)
    /* If the kernel does not trust the TSC as its clock source, neither do we. */
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        char name[32] = "";
        int ok = fgets(name, sizeof name, f) != NULL && strncmp(name, "tsc", 3) == 0;
        fclose(f);
        return ok;
    }
#  endif
    return 1;
#elif defined(__aarch64__) && defined(__linux__)
    return 1;
#else
    return 0;
#endif
}

/* One (counter, clock) pair: the clock read between two counter reads, the
 * narrowest of a few tries. */
static void sample(uint64_t *c, uint64_t *n)
{
    uint64_t best = UINT64_MAX;
    *c = rec_counter_read();
    *n = rec_clock_system_ns();
    for (int i = 0; i < 16; i++) {
        uint64_t c1 = rec_counter_read();
        uint64_t n1 = rec_clock_system_ns();
        uint64_t c2 = rec_counter_read();
        if (c2 >= c1 && c2 - c1 < best) {
            best = c2 - c1;
            *c = c1 + (c2 - c1) / 2;
            *n = n1;
        }
    }
}

/* ns per count, as a 32.32 fixed-point multiplier. */
static uint64_t mult_of(uint64_t dc, uint64_t dn)
{
    if (dc == 0)
        return 1ull << 32;
    return (uint64_t)(((unsigned __int128)dn << 32) / dc);
}

static void publish(rec_clock *c, const rec_seg *s)
{
    uint64_t n = atomic_load_explicit(&c->nseg, RLX);
    c->seg[n % REC_CLOCK_SEGS] = *s;
    atomic_store_explicit(&c->nseg, n + 1, REL);
}

void rec_clock_init(rec_clock *c, uint32_t source)
{
    memset(c, 0, sizeof *c);
    c->source = source;
    if (source != ATF_RECORDER_CLOCK_COUNTER)
        return;
    uint64_t ca, na, cb, nb;
    sample(&ca, &na);
    /* A 2 ms baseline gives ~10 ppm; the writer refines it within 10 ms. */
    while (rec_clock_system_ns() - na < 2000000u)
        ;
    sample(&cb, &nb);
    c->base_c = ca;
    c->base_n = na;
    rec_seg s = { cb, nb, mult_of(cb - ca, nb - na) };
    publish(c, &s);
    c->next_cal_ns = nb + 10000000u;
    c->cal_step = 0;
}

const rec_seg *rec_clock_find(const rec_clock *c, uint64_t counter, uint64_t *next_c0)
{
    uint64_t n = atomic_load_explicit(&c->nseg, ACQ);
    uint64_t lo = n > REC_CLOCK_LOOKBACK ? n - REC_CLOCK_LOOKBACK : 0;
    *next_c0 = UINT64_MAX;
    for (uint64_t i = n; i-- > lo;) {
        const rec_seg *s = &c->seg[i % REC_CLOCK_SEGS];
        if (s->c0 <= counter || i == lo)
            return s;
        *next_c0 = s->c0;
    }
    return &c->seg[0];
}

uint64_t rec_clock_convert(const rec_clock *c, uint64_t counter)
{
    uint64_t next;
    return rec_seg_apply(rec_clock_find(c, counter, &next), counter);
}

/* Adds a segment when one is due. The new segment starts a little in the
 * future (c0 = sample + 200 us): every counter value this writer has
 * converted so far was read from a ring before the sample was taken, so it
 * is below c0 (with room for cross-core counter skew) and converts exactly as
 * before. Conversion is therefore a fixed function of the counter value for
 * this writer: the index event and the detail record of one event get the
 * same nanoseconds, and timestamps never step back. */
void rec_clock_tick(rec_clock *c, uint64_t now_ns)
{
    static const uint64_t schedule[] = { 40000000u, 150000000u, 500000000u };
    if (c->source != ATF_RECORDER_CLOCK_COUNTER || now_ns < c->next_cal_ns)
        return;
    uint64_t cs, ns;
    sample(&cs, &ns);
    uint64_t interval = c->cal_step < sizeof schedule / sizeof schedule[0] ? schedule[c->cal_step]
                                                                           : 1000000000u;
    c->cal_step++;
    c->next_cal_ns = ns + interval;
    uint64_t base = mult_of(cs - c->base_c, ns - c->base_n);
    if (base == 0)
        return;
    uint64_t margin = (uint64_t)(((unsigned __int128)200000u << 32) / base);
    uint64_t c0 = cs + margin;
    int64_t e = (int64_t)(ns - rec_clock_convert(c, cs));
    uint64_t mag = e < 0 ? (uint64_t)-e : (uint64_t)e;
    rec_seg s = { c0, rec_clock_convert(c, c0), base };
    if (e > (int64_t)STEP_LIMIT_NS) {
        s.n0 += (uint64_t)e;   /* forward step: later timestamps only get larger */
    } else {
        /* Absorb e over the next interval: slope * (1 + e / interval),
         * never less than half the measured slope. */
        double f = 1.0 + (double)e / (double)interval;
        if (f < 0.5)
            f = 0.5;
        if (f > 1.5)
            f = 1.5;
        s.mult = (uint64_t)((double)base * f);
    }
    if (mag > atomic_load_explicit(&c->max_step_ns, RLX))
        atomic_store_explicit(&c->max_step_ns, mag, RLX);
    publish(c, &s);
}

void rec_deadline_after(struct timespec *at, clockid_t clk, uint32_t ms)
{
    clock_gettime(clk, at);
    at->tv_sec += ms / 1000;
    at->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (at->tv_nsec >= 1000000000L) {
        at->tv_sec++;
        at->tv_nsec -= 1000000000L;
    }
}
