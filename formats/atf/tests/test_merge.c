/* Tests for merge.c: the k-way merge of a session's threads by
 * (timestamp_ns, thread id, seq). The merged stream must be a permutation of
 * all input events, in exactly that order, for sessions with ties, empty
 * threads, a single thread and timestamps that go backwards. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/session.h>

#include "session_test_util.h"

typedef struct key {
    uint64_t ts, tid, seq;
} key;

static int cmp_key(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static atf_session *open_ok(const char *dir)
{
    atf_session *s = NULL;
    atf_error err;
    if (atf_session_open(&s, dir, NULL, &err) != ATF_OK)
        fail_msg("open %s: %s", dir, err.message);
    return s;
}

/* Runs the merge and checks it against an independent sort of every event:
 * same length, same order (ties included, since the key is total), every
 * (thread, seq) exactly once, and each event equal to the one in its file. */
static size_t check_merge(const atf_session *s, const tu_session *model)
{
    size_t total = 0;
    for (size_t t = 0; t < model->nthreads; t++)
        total += model->threads[t].n;
    key *want = calloc(total ? total : 1, sizeof *want);
    assert_non_null(want);
    size_t k = 0;
    for (size_t t = 0; t < model->nthreads; t++)
        for (size_t i = 0; i < model->threads[t].n; i++)
            want[k++] = (key){ model->threads[t].events[i].ev.timestamp_ns, model->threads[t].id, i };
    qsort(want, total, sizeof *want, cmp_key);

    /* seen[t][i]: counts, to prove the output is a permutation. */
    unsigned *seen[TU_MAX_THREADS];
    for (size_t t = 0; t < model->nthreads; t++) {
        seen[t] = calloc(model->threads[t].n + 1, sizeof *seen[t]);
        assert_non_null(seen[t]);
    }

    atf_merge *m;
    assert_int_equal(atf_merge_create(&m, s), ATF_OK);
    atf_merged_event me;
    size_t n = 0;
    uint64_t last_seq[TU_MAX_THREADS];
    memset(last_seq, 0xff, sizeof last_seq);
    while (atf_merge_next(m, &me)) {
        assert_true(n < total);
        assert_int_equal(me.event.timestamp_ns, want[n].ts);
        assert_true(me.thread_id == want[n].tid);
        assert_int_equal(me.seq, want[n].seq);
        /* thread_index points at the right session thread. */
        const atf_session_thread *st = atf_session_thread_at(s, me.thread_index);
        assert_non_null(st);
        assert_true(st->id == me.thread_id);
        /* The event is the one at (thread, seq). */
        size_t t = 0;
        while (model->threads[t].id != me.thread_id)
            t++;
        assert_true(me.seq < model->threads[t].n);
        tu_assert_index_event(&me.event, &model->threads[t].events[me.seq].ev, model->layout);
        seen[t][me.seq]++;
        /* Within a thread, file order. */
        if (last_seq[t] != UINT64_MAX)
            assert_int_equal(me.seq, last_seq[t] + 1);
        else
            assert_int_equal(me.seq, 0);
        last_seq[t] = me.seq;
        n++;
    }
    assert_int_equal(n, total);
    /* Exhausted stays exhausted. */
    assert_int_equal(atf_merge_next(m, &me), 0);
    atf_merge_destroy(m);
    for (size_t t = 0; t < model->nthreads; t++) {
        for (size_t i = 0; i < model->threads[t].n; i++)
            assert_int_equal(seen[t][i], 1);
        free(seen[t]);
    }
    free(want);
    return n;
}

static void merge_case(atf_layout layout, size_t nthreads, const uint64_t *ids, const size_t *counts,
                       uint64_t ts_step, uint64_t seed)
{
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "merge");
    int detail[TU_MAX_THREADS] = { 0 };
    for (size_t i = 0; i < nthreads; i++)
        detail[i] = (int)(i % 2);
    tu_session model;
    tu_session_generate(&model, layout, nthreads, ids, counts, detail, 3, 1000, ts_step, seed);
    tu_session_write(&model, dir, 0);
    atf_session *s = open_ok(dir);
    check_merge(s, &model);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

/* Many ties: timestamps advance by 0..1, so threads collide constantly,
 * and thread ids are not in creation order. */
static void test_ties_broken_by_thread_then_seq(void **state)
{
    (void)state;
    static const uint64_t ids[] = { 9, 2, 5, 100 };
    static const size_t counts[] = { 300, 250, 280, 10 };
    merge_case(ATF_LAYOUT_2, 4, ids, counts, 2, 1);
    merge_case(ATF_LAYOUT_1, 4, ids, counts, 2, 2);
}

/* Exact expectation for a hand-made session where every event ties. */
static void test_all_equal_timestamps(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "merge");
    static const uint64_t ids[] = { 7, 3 };
    static const size_t counts[] = { 3, 2 };
    static const int detail[] = { 0, 0 };
    tu_session model;
    tu_session_generate(&model, ATF_LAYOUT_2, 2, ids, counts, detail, 0, 500, 0, 1);
    /* generate() offsets each thread's base by its index; make them equal. */
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < model.threads[t].n; i++)
            model.threads[t].events[i].ev.timestamp_ns = 500;
    tu_session_write(&model, dir, 0);
    atf_session *s = open_ok(dir);
    static const struct {
        uint64_t tid, seq;
    } order[] = { { 3, 0 }, { 3, 1 }, { 7, 0 }, { 7, 1 }, { 7, 2 } };
    atf_merge *m;
    assert_int_equal(atf_merge_create(&m, s), ATF_OK);
    atf_merged_event me;
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(atf_merge_next(m, &me), 1);
        assert_int_equal(me.thread_id, order[i].tid);
        assert_int_equal(me.seq, order[i].seq);
        assert_int_equal(me.event.timestamp_ns, 500);
    }
    assert_int_equal(atf_merge_next(m, &me), 0);
    atf_merge_destroy(m);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

static void test_empty_threads(void **state)
{
    (void)state;
    static const uint64_t ids[] = { 1, 2, 3, 4, 5 };
    static const size_t counts[] = { 0, 40, 0, 0, 33 };
    merge_case(ATF_LAYOUT_2, 5, ids, counts, 10, 3);
    static const size_t none[] = { 0, 0, 0 };
    merge_case(ATF_LAYOUT_1, 3, ids, none, 10, 4);
    static const size_t first_only[] = { 17, 0 };
    merge_case(ATF_LAYOUT_2, 2, ids, first_only, 10, 5);
}

static void test_one_thread(void **state)
{
    (void)state;
    static const uint64_t ids[] = { 42 };
    static const size_t counts[] = { 1000 };
    merge_case(ATF_LAYOUT_2, 1, ids, counts, 3, 6);
    static const size_t one[] = { 1 };
    merge_case(ATF_LAYOUT_1, 1, ids, one, 3, 7);
}

/* Random shapes: 1..8 threads of 0..400 events, timestamps from a narrow
 * or a wide range. */
static void test_random_sessions(void **state)
{
    (void)state;
    uint64_t rng = 2024;
    for (int iter = 0; iter < 12; iter++) {
        size_t nthreads = 1 + (size_t)(tu_rand(&rng) % TU_MAX_THREADS);
        uint64_t ids[TU_MAX_THREADS];
        size_t counts[TU_MAX_THREADS];
        for (size_t t = 0; t < nthreads; t++) {
            /* Distinct ids in random order. */
            ids[t] = (tu_rand(&rng) % 1000) * TU_MAX_THREADS + t;
            counts[t] = (size_t)(tu_rand(&rng) % 401);
        }
        merge_case(iter % 2 ? ATF_LAYOUT_1 : ATF_LAYOUT_2, nthreads, ids, counts,
                   iter % 3 == 0 ? 1000000 : 3, (uint64_t)iter + 100);
    }
}

/* A thread whose timestamps go backwards keeps its file order; the other
 * thread's events fall between them by the key of each head. */
static void test_backwards_timestamps_keep_file_order(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "merge");
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_thread_writer *a, *b;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 1, 1, 0, &a, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 2, 2, 0, &b, &err), ATF_OK);
    static const uint64_t ta[] = { 10, 50, 20, 60 };
    static const uint64_t tb[] = { 15, 30, 55 };
    for (size_t i = 0; i < 4; i++) {
        atf_index_event ev = { .timestamp_ns = ta[i], .function_id = i, .event_kind = 1 };
        assert_int_equal(atf_thread_writer_append(a, &ev, NULL, NULL), ATF_OK);
    }
    for (size_t i = 0; i < 3; i++) {
        atf_index_event ev = { .timestamp_ns = tb[i], .function_id = i, .event_kind = 1 };
        assert_int_equal(atf_thread_writer_append(b, &ev, NULL, NULL), ATF_OK);
    }
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    atf_session *s = open_ok(dir);
    /* Heads: a10 b15 -> a10; a50 b15 -> b15; a50 b30 -> b30; a50 b55 -> a50;
     * a20 b55 -> a20; a60 b55 -> b55; a60. */
    static const struct {
        uint64_t tid, seq, ts;
    } order[] = { { 1, 0, 10 }, { 2, 0, 15 }, { 2, 1, 30 }, { 1, 1, 50 }, { 1, 2, 20 }, { 2, 2, 55 }, { 1, 3, 60 } };
    atf_merge *m;
    assert_int_equal(atf_merge_create(&m, s), ATF_OK);
    atf_merged_event me;
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(atf_merge_next(m, &me), 1);
        assert_int_equal(me.thread_id, order[i].tid);
        assert_int_equal(me.seq, order[i].seq);
        assert_int_equal(me.event.timestamp_ns, order[i].ts);
    }
    assert_int_equal(atf_merge_next(m, &me), 0);
    atf_merge_destroy(m);
    atf_session_close(s);
    cf_rm_rf(dir);
}

/* Two merges of one session are independent and give the same stream. */
static void test_independent_merges(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "merge");
    static const uint64_t ids[] = { 1, 2, 3 };
    static const size_t counts[] = { 20, 30, 25 };
    static const int detail[] = { 1, 0, 1 };
    tu_session model;
    tu_session_generate(&model, ATF_LAYOUT_2, 3, ids, counts, detail, 2, 0, 4, 8);
    tu_session_write(&model, dir, 0);
    atf_session *s = open_ok(dir);
    atf_merge *m1, *m2;
    assert_int_equal(atf_merge_create(&m1, s), ATF_OK);
    assert_int_equal(atf_merge_create(&m2, s), ATF_OK);
    atf_merged_event e1, e2;
    size_t n = 0;
    for (;;) {
        int r1 = atf_merge_next(m1, &e1);
        int r2 = atf_merge_next(m2, &e2);
        assert_int_equal(r1, r2);
        if (!r1)
            break;
        assert_int_equal(e1.thread_id, e2.thread_id);
        assert_int_equal(e1.seq, e2.seq);
        n++;
    }
    assert_int_equal(n, 75);
    atf_merge_destroy(m1);
    atf_merge_destroy(m2);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

static void test_arguments(void **state)
{
    (void)state;
    atf_merge *m = (atf_merge *)&m;
    atf_merged_event me;
    assert_int_equal(atf_merge_create(NULL, NULL), ATF_E_ARG);
    assert_int_equal(atf_merge_create(&m, NULL), ATF_E_ARG);
    assert_int_equal(atf_merge_next(NULL, &me), 0);
    atf_merge_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ties_broken_by_thread_then_seq),
        cmocka_unit_test(test_all_equal_timestamps),
        cmocka_unit_test(test_empty_threads),
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_random_sessions),
        cmocka_unit_test(test_backwards_timestamps_keep_file_order),
        cmocka_unit_test(test_independent_merges),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
