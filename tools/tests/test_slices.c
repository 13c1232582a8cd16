/* The slice builder (slices.c): clean nesting, and each kind of unclean
 * input docs/export.md describes, checked callback by callback; a random
 * property: whatever the events, callbacks nest and never go back in time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <atf/export.h>

#include "codec_test_util.h"

#define MAXREC 4096

typedef struct rec {
    atf_slice s[MAXREC];
    size_t n;
    int stop_at;      /* callback number that returns non-zero, or -1 */
} rec;

static int on_slice(void *user, const atf_slice *s)
{
    rec *r = user;
    assert_true(r->n < MAXREC);
    r->s[r->n] = *s;
    r->s[r->n].event = NULL;   /* only valid during the callback */
    r->n++;
    return (int)r->n - 1 == r->stop_at ? 7 : 0;
}

static atf_index_event ev(uint32_t kind, uint64_t fid, uint64_t ts, uint32_t depth)
{
    atf_index_event e;
    memset(&e, 0, sizeof e);
    e.event_kind = kind;
    e.function_id = fid;
    e.timestamp_ns = ts;
    e.call_depth = depth;
    e.detail_seq = ATF_NO_DETAIL;
    return e;
}

/* Pushes n events (kind, fid, ts triples) and finishes the thread. */
static atf_slice_builder *run(rec *r, uint64_t from, uint64_t to, size_t n, const uint64_t (*evs)[3])
{
    memset(r, 0, sizeof *r);
    r->stop_at = -1;
    atf_slice_builder *b;
    assert_int_equal(atf_slice_builder_create(&b, from, to, on_slice, r), ATF_OK);
    for (size_t i = 0; i < n; i++) {
        atf_index_event e = ev((uint32_t)evs[i][0], evs[i][1], evs[i][2], 0);
        int rc = atf_slice_builder_push(b, i, &e, 0);
        assert_true(rc == 0 || rc == 1);
    }
    assert_int_equal(atf_slice_builder_finish(b), 0);
    return b;
}

static void expect(const rec *r, size_t i, atf_slice_kind kind, uint64_t fid, uint64_t ts, uint32_t flags,
                   uint32_t depth)
{
    assert_true(i < r->n);
    assert_int_equal(r->s[i].kind, kind);
    assert_int_equal(r->s[i].function_id, fid);
    assert_int_equal(r->s[i].timestamp_ns, ts);
    assert_int_equal(r->s[i].flags, flags);
    assert_int_equal(r->s[i].depth, depth);
}

enum { C = ATF_EVENT_CALL, R = ATF_EVENT_RETURN, X = ATF_EVENT_EXCEPTION };

static void test_clean_nesting(void **state)
{
    (void)state;
    static const uint64_t e[][3] = { { C, 1, 10 }, { C, 2, 20 }, { R, 2, 30 }, { C, 3, 40 }, { R, 3, 50 }, { R, 1, 60 } };
    rec r;
    atf_slice_builder *b = run(&r, 0, UINT64_MAX, 6, e);
    assert_int_equal(r.n, 6);
    expect(&r, 0, ATF_SLICE_BEGIN, 1, 10, 0, 0);
    expect(&r, 1, ATF_SLICE_BEGIN, 2, 20, 0, 1);
    expect(&r, 2, ATF_SLICE_END, 2, 30, 0, 1);
    assert_int_equal(r.s[2].begin_timestamp_ns, 20);
    assert_int_equal(r.s[2].begin_seq, 1);
    assert_int_equal(r.s[2].seq, 2);
    expect(&r, 5, ATF_SLICE_END, 1, 60, 0, 0);
    assert_int_equal(r.s[5].begin_seq, 0);
    const atf_slice_counts *k = atf_slice_builder_counts(b);
    assert_int_equal(k->events, 6);
    assert_int_equal(k->begins, 3);
    assert_int_equal(k->ends, 3);
    assert_int_equal(k->unclosed + k->unmatched_returns + k->unwound, 0);
    assert_int_equal(k->max_depth, 2);
    atf_slice_builder_destroy(b);
}

static void test_return_without_call_is_dropped(void **state)
{
    (void)state;
    /* A session that started mid-stack: two returns of frames it never saw. */
    static const uint64_t e[][3] = { { R, 9, 5 }, { C, 1, 10 }, { R, 1, 20 }, { R, 8, 30 } };
    rec r;
    atf_slice_builder *b = run(&r, 0, UINT64_MAX, 4, e);
    assert_int_equal(r.n, 2);
    expect(&r, 0, ATF_SLICE_BEGIN, 1, 10, 0, 0);
    expect(&r, 1, ATF_SLICE_END, 1, 20, 0, 0);
    assert_int_equal(atf_slice_builder_counts(b)->unmatched_returns, 2);
    atf_slice_builder_destroy(b);
}

static void test_unclosed_calls_end_at_last_timestamp(void **state)
{
    (void)state;
    /* A crash-truncated thread: two calls never return. */
    static const uint64_t e[][3] = { { C, 1, 10 }, { C, 2, 20 }, { C, 3, 25 }, { R, 3, 30 } };
    rec r;
    atf_slice_builder *b = run(&r, 0, UINT64_MAX, 4, e);
    assert_int_equal(r.n, 6);
    expect(&r, 4, ATF_SLICE_END, 2, 30, ATF_SLICE_UNCLOSED, 1);
    expect(&r, 5, ATF_SLICE_END, 1, 30, ATF_SLICE_UNCLOSED, 0);
    assert_int_equal(r.s[5].seq, ATF_SLICE_NO_SEQ);
    assert_int_equal(atf_slice_builder_counts(b)->unclosed, 2);
    atf_slice_builder_destroy(b);
}

static void test_return_skipping_frames_unwinds(void **state)
{
    (void)state;
    /* The returns of 3 and 2 are missing: the return of 1 closes them first. */
    static const uint64_t e[][3] = { { C, 1, 10 }, { C, 2, 20 }, { C, 3, 30 }, { R, 1, 40 } };
    rec r;
    atf_slice_builder *b = run(&r, 0, UINT64_MAX, 4, e);
    assert_int_equal(r.n, 6);
    expect(&r, 3, ATF_SLICE_END, 3, 40, ATF_SLICE_UNWOUND, 2);
    expect(&r, 4, ATF_SLICE_END, 2, 40, ATF_SLICE_UNWOUND, 1);
    expect(&r, 5, ATF_SLICE_END, 1, 40, 0, 0);
    assert_int_equal(atf_slice_builder_counts(b)->unwound, 2);
    atf_slice_builder_destroy(b);
}

static void test_exception_is_an_instant_and_leaves_the_frame(void **state)
{
    (void)state;
    static const uint64_t e[][3] = { { C, 1, 10 }, { C, 2, 20 }, { X, 2, 30 }, { X, 7, 35 }, { R, 1, 40 } };
    rec r;
    atf_slice_builder *b = run(&r, 0, UINT64_MAX, 5, e);
    assert_int_equal(r.n, 6);
    expect(&r, 2, ATF_SLICE_INSTANT, 2, 30, ATF_SLICE_EXCEPTION, 2);
    expect(&r, 3, ATF_SLICE_END, 2, 30, ATF_SLICE_EXCEPTION, 1);
    /* An exception of a function not on the stack: the instant only. */
    expect(&r, 4, ATF_SLICE_INSTANT, 7, 35, ATF_SLICE_EXCEPTION, 1);
    expect(&r, 5, ATF_SLICE_END, 1, 40, 0, 0);
    assert_int_equal(atf_slice_builder_counts(b)->instants, 2);
    assert_int_equal(atf_slice_builder_counts(b)->unmatched_returns, 0);
    atf_slice_builder_destroy(b);
}

static void test_window_clips_at_both_edges(void **state)
{
    (void)state;
    static const uint64_t e[][3] = { { C, 1, 10 }, { C, 2, 20 }, { R, 2, 30 }, { C, 3, 40 },
                                     { C, 4, 50 }, { R, 4, 60 }, { R, 3, 70 }, { R, 1, 80 } };
    rec r;
    atf_slice_builder *b = run(&r, 35, 55, 8, e);
    /* 1 begins clipped at 35; 3 and 4 begin inside; the event at 60 ends the
     * window: 4, 3 and 1 end clipped at 55. */
    assert_int_equal(r.n, 6);
    expect(&r, 0, ATF_SLICE_BEGIN, 1, 35, ATF_SLICE_CLIPPED, 0);
    assert_int_equal(r.s[0].seq, ATF_SLICE_NO_SEQ);
    expect(&r, 1, ATF_SLICE_BEGIN, 3, 40, 0, 1);
    expect(&r, 2, ATF_SLICE_BEGIN, 4, 50, 0, 2);
    expect(&r, 3, ATF_SLICE_END, 4, 55, ATF_SLICE_CLIPPED, 2);
    expect(&r, 5, ATF_SLICE_END, 1, 55, ATF_SLICE_CLIPPED, 0);
    assert_int_equal(r.s[5].begin_seq, ATF_SLICE_NO_SEQ);
    assert_int_equal(r.s[5].begin_timestamp_ns, 35);
    assert_int_equal(atf_slice_builder_counts(b)->clipped, 4);
    atf_slice_builder_destroy(b);
}

static void test_window_after_the_thread_emits_nothing(void **state)
{
    (void)state;
    static const uint64_t e[][3] = { { C, 1, 10 }, { C, 2, 20 } };
    rec r;
    atf_slice_builder *b = run(&r, 100, 200, 2, e);
    assert_int_equal(r.n, 0);
    atf_slice_builder_destroy(b);
}

static void test_push_after_window_says_done(void **state)
{
    (void)state;
    rec r;
    memset(&r, 0, sizeof r);
    r.stop_at = -1;
    atf_slice_builder *b;
    assert_int_equal(atf_slice_builder_create(&b, 0, 15, on_slice, &r), ATF_OK);
    atf_index_event a = ev(C, 1, 10, 1), z = ev(R, 1, 20, 0);
    assert_int_equal(atf_slice_builder_push(b, 0, &a, 0), 0);
    assert_int_equal(atf_slice_builder_push(b, 1, &z, 0), 1);
    assert_int_equal(atf_slice_builder_push(b, 2, &z, 0), 1);
    assert_int_equal(atf_slice_builder_finish(b), 0);
    assert_int_equal(r.n, 2);
    expect(&r, 1, ATF_SLICE_END, 1, 15, ATF_SLICE_CLIPPED, 0);
    /* A new thread starts afresh; the counts go on. */
    atf_slice_builder_reset(b);
    assert_int_equal(atf_slice_builder_push(b, 0, &a, 0), 0);
    assert_int_equal(atf_slice_builder_finish(b), 0);
    assert_int_equal(r.n, 4);
    expect(&r, 3, ATF_SLICE_END, 1, 10, ATF_SLICE_UNCLOSED, 0);
    assert_int_equal(atf_slice_builder_counts(b)->begins, 2);
    atf_slice_builder_destroy(b);
}

static void test_callback_stop_is_returned(void **state)
{
    (void)state;
    rec r;
    memset(&r, 0, sizeof r);
    r.stop_at = 1;
    atf_slice_builder *b;
    assert_int_equal(atf_slice_builder_create(&b, 0, UINT64_MAX, on_slice, &r), ATF_OK);
    atf_index_event a = ev(C, 1, 10, 1), c = ev(C, 2, 20, 2);
    assert_int_equal(atf_slice_builder_push(b, 0, &a, 0), 0);
    assert_int_equal(atf_slice_builder_push(b, 1, &c, 0), 7);
    atf_slice_builder_destroy(b);
}

static void test_depth_skips_backwards_and_unknown_kinds(void **state)
{
    (void)state;
    rec r;
    memset(&r, 0, sizeof r);
    r.stop_at = -1;
    atf_slice_builder *b;
    assert_int_equal(atf_slice_builder_create(&b, 0, UINT64_MAX, on_slice, &r), ATF_OK);
    atf_index_event e1 = ev(C, 1, 100, 1), e2 = ev(C, 2, 90, 4), e3 = ev(9, 2, 120, 4), e4 = ev(R, 2, 130, 1);
    assert_int_equal(atf_slice_builder_push(b, 0, &e1, 1), 0);
    assert_int_equal(atf_slice_builder_push(b, 1, &e2, 1), 0);   /* depth 1 -> 4, and back in time */
    assert_int_equal(atf_slice_builder_push(b, 2, &e3, 1), 0);
    assert_int_equal(atf_slice_builder_push(b, 3, &e4, 1), 0);   /* 4 -> 1 */
    assert_int_equal(atf_slice_builder_finish(b), 0);
    const atf_slice_counts *k = atf_slice_builder_counts(b);
    assert_int_equal(k->depth_skips, 2);
    assert_int_equal(k->backwards, 1);
    assert_int_equal(k->unknown_kinds, 1);
    expect(&r, 1, ATF_SLICE_BEGIN, 2, 100, 0, 1);   /* raised to the previous timestamp */
    atf_slice_builder_destroy(b);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    atf_slice_builder *b = (atf_slice_builder *)1;
    assert_int_equal(atf_slice_builder_create(&b, 0, 1, NULL, NULL), ATF_E_ARG);
    assert_null(b);
    assert_int_equal(atf_slice_builder_create(&b, 5, 4, on_slice, NULL), ATF_E_ARG);
    assert_int_equal(atf_slice_builder_create(NULL, 0, 1, on_slice, NULL), ATF_E_ARG);
    atf_slice_builder_destroy(NULL);
    assert_null(atf_slice_builder_counts(NULL));
}

/* Property: random events (any kind, any function, jittery time) always give
 * callbacks that nest, balance and never go back in time; begins and ends
 * match in number. */
static void test_random_events_always_nest(void **state)
{
    (void)state;
    cf_rng g = cf_rng_seed(12);
    static rec r;
    for (int round = 0; round < 200; round++) {
        memset(&r, 0, sizeof r);
        r.stop_at = -1;
        uint64_t from = cf_below(&g, 3) ? 0 : cf_below(&g, 500), to = cf_below(&g, 3) ? UINT64_MAX : from + cf_below(&g, 800);
        atf_slice_builder *b;
        assert_int_equal(atf_slice_builder_create(&b, from, to, on_slice, &r), ATF_OK);
        uint64_t ts = 0;
        size_t n = (size_t)cf_below(&g, 300);
        for (size_t i = 0; i < n && r.n < MAXREC - 600; i++) {
            ts += cf_below(&g, 10);
            uint64_t t = cf_below(&g, 8) == 0 ? ts - cf_below(&g, ts + 1) : ts;
            atf_index_event e = ev((uint32_t)cf_below(&g, 5), cf_below(&g, 4), t, (uint32_t)cf_below(&g, 3));
            int rc = atf_slice_builder_push(b, i, &e, 1);
            assert_true(rc == 0 || rc == 1);
        }
        assert_int_equal(atf_slice_builder_finish(b), 0);
        int64_t depth = 0;
        uint64_t last = 0;
        for (size_t i = 0; i < r.n; i++) {
            assert_true(r.s[i].timestamp_ns >= last);
            assert_true(r.s[i].timestamp_ns >= from && r.s[i].timestamp_ns <= to);
            last = r.s[i].timestamp_ns;
            if (r.s[i].kind == ATF_SLICE_BEGIN)
                assert_int_equal(r.s[i].depth, depth++);
            else if (r.s[i].kind == ATF_SLICE_END)
                assert_int_equal(r.s[i].depth, --depth);
            assert_true(depth >= 0);
        }
        assert_int_equal(depth, 0);
        const atf_slice_counts *k = atf_slice_builder_counts(b);
        assert_int_equal(k->begins, k->ends);
        assert_true(k->begins >= k->clipped / 2);
        atf_slice_builder_destroy(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_nesting),
        cmocka_unit_test(test_return_without_call_is_dropped),
        cmocka_unit_test(test_unclosed_calls_end_at_last_timestamp),
        cmocka_unit_test(test_return_skipping_frames_unwinds),
        cmocka_unit_test(test_exception_is_an_instant_and_leaves_the_frame),
        cmocka_unit_test(test_window_clips_at_both_edges),
        cmocka_unit_test(test_window_after_the_thread_emits_nothing),
        cmocka_unit_test(test_push_after_window_says_done),
        cmocka_unit_test(test_callback_stop_is_returned),
        cmocka_unit_test(test_depth_skips_backwards_and_unknown_kinds),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_random_events_always_nest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
