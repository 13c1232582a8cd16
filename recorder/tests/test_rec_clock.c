/* Tests for rec_clock.c: the counter fast path against the real clock
 * (direct conversion and through a recording), monotonicity across
 * recalibrations, and the system clock path. */
#include "rec_test_util.h"

#include <pthread.h>

#include "rec_internal.h"

/* Largest tolerated distance between a converted counter value and the
 * clock read around it: the counter path must track CLOCK_BOOTTIME to a few
 * microseconds; 200 us leaves room for a loaded machine, and catches any
 * drift or miscalibration (milliseconds within a second). */
#define TOL_NS 200000u

/* Converts bracketed samples for ~0.6 s while ticking the calibration like a
 * writer does: every conversion lies within [before - TOL, after + TOL] and
 * conversions never decrease. */
static void test_counter_tracks_clock(void **state)
{
    (void)state;
    if (!rec_counter_available()) {
        /* No reliable counter: the recorder must refuse to use one. */
        char dir[256];
        rt_mkdtemp(dir, sizeof dir, "noctr");
        atf_recorder_options o = rt_options(dir);
        o.clock = ATF_RECORDER_CLOCK_COUNTER;
        atf_recorder *r = NULL;
        assert_int_equal(atf_recorder_start(&r, &o, NULL), ATF_E_UNSUPPORTED);
        rt_rm_rf(dir);
        return;
    }
    rec_clock *c = calloc(1, sizeof *c);
    rec_clock_init(c, ATF_RECORDER_CLOCK_COUNTER);
    uint64_t start = rec_clock_system_ns(), last = 0, worst = 0, n = 0;
    while (rec_clock_system_ns() - start < 600000000u) {
        uint64_t before = rec_clock_system_ns();
        uint64_t ctr = rec_counter_read();
        uint64_t after = rec_clock_system_ns();
        uint64_t ns = rec_clock_convert(c, ctr);
        if (ns + TOL_NS < before || ns > after + TOL_NS)
            fail_msg("sample %llu: converted %llu outside [%llu, %llu] +- %u ns", (unsigned long long)n,
                     (unsigned long long)ns, (unsigned long long)before, (unsigned long long)after, TOL_NS);
        uint64_t d = ns < before ? before - ns : ns > after ? ns - after : 0;
        if (d > worst)
            worst = d;
        assert_true(ns >= last);
        last = ns;
        n++;
        if (n % 64 == 0) {
            rec_clock_tick(c, rec_clock_system_ns());
            rt_sleep_us(200);
        }
    }
    print_message("%llu samples, worst distance %llu ns, %llu segments, largest correction %llu ns\n",
                  (unsigned long long)n, (unsigned long long)worst,
                  (unsigned long long)atomic_load(&c->nseg), (unsigned long long)atomic_load(&c->max_step_ns));
    assert_true(atomic_load(&c->nseg) >= 4);   /* recalibrated at 10, 50, 200 ms ... */
    free(c);
}

/* A conversion is a fixed function of the counter value: values converted
 * before a recalibration convert the same after it. */
static void test_conversion_stable(void **state)
{
    (void)state;
    if (!rec_counter_available())
        skip();
    rec_clock *c = calloc(1, sizeof *c);
    rec_clock_init(c, ATF_RECORDER_CLOCK_COUNTER);
    uint64_t ctr[256], ns[256];
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < 256; i++) {
            ctr[i] = rec_counter_read();
            ns[i] = rec_clock_convert(c, ctr[i]);
        }
        rt_sleep_us(30000);
        uint64_t before = atomic_load(&c->nseg);
        rec_clock_tick(c, rec_clock_system_ns());
        rec_clock_tick(c, rec_clock_system_ns() + 2000000000u);   /* force one more */
        assert_true(atomic_load(&c->nseg) > before);
        for (int i = 0; i < 256; i++)
            assert_int_equal(rec_clock_convert(c, ctr[i]), ns[i]);
    }
    free(c);
}

typedef struct bracket {
    uint64_t before, after;
} bracket;

/* Through a recording with the counter clock: each event's timestamp lies
 * within the clock reads around its recording call. */
static void test_recorded_timestamps(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "clock");
    for (int src = ATF_RECORDER_CLOCK_SYSTEM; src <= ATF_RECORDER_CLOCK_COUNTER; src++) {
        if (src == ATF_RECORDER_CLOCK_COUNTER && !rec_counter_available())
            break;
        char sdir[300];
        snprintf(sdir, sizeof sdir, "%s/s%d", dir, src);
        atf_recorder_options o = rt_options(sdir);
        o.clock = (atf_recorder_clock)src;
        atf_recorder *r = rt_start(&o);
        uint64_t n = 3000;
        bracket *b = calloc(n, sizeof *b);
        for (uint64_t i = 0; i < n; i++) {
            b[i].before = rt_now_ns();
            assert_int_equal(atf_recorder_call(r, i), ATF_OK);
            b[i].after = rt_now_ns();
            if (i % 10 == 0)
                rt_sleep_us(200);   /* ~0.7 s: several recalibrations */
        }
        rt_stop(r);
        atf_recorder_stats st;
        atf_recorder_get_stats(r, &st);
        assert_int_equal(st.clock_source, (uint32_t)src);
        atf_recorder_destroy(r);
        atf_session *s = rt_open(sdir);
        const atf_session_thread *t = atf_session_thread_at(s, 0);
        assert_int_equal(atf_index_reader_count(t->index), n);
        uint64_t worst = 0;
        for (uint64_t i = 0; i < n; i++) {
            atf_index_event e;
            atf_index_reader_get(t->index, i, &e);
            uint64_t ts = e.timestamp_ns;
            if (ts + TOL_NS < b[i].before || ts > b[i].after + TOL_NS)
                fail_msg("%s: event %llu at %llu, recorded between %llu and %llu",
                         atf_recorder_clock_name((uint32_t)src), (unsigned long long)i, (unsigned long long)ts,
                         (unsigned long long)b[i].before, (unsigned long long)b[i].after);
            uint64_t d = ts < b[i].before ? b[i].before - ts : ts > b[i].after ? ts - b[i].after : 0;
            if (d > worst)
                worst = d;
        }
        print_message("%s: worst distance from the clock %llu ns\n", atf_recorder_clock_name((uint32_t)src),
                      (unsigned long long)worst);
        if (src == ATF_RECORDER_CLOCK_SYSTEM)
            assert_int_equal(worst, 0);
        atf_session_close(s);
        free(b);
    }
    rt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_tracks_clock),
        cmocka_unit_test(test_conversion_stable),
        cmocka_unit_test(test_recorded_timestamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
