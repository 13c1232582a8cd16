/* rec_manifest.c: the thread summaries' index by thread id, and the
 * manifest as it stands while recording (state "recording", no time range,
 * threads not finalized) and at the end (state "complete", the range of the
 * events, every thread finalized, losses summed). */
#include "rec_test_util.h"
#include "rec_internal.h"
#include "rec_manifest.h"

static void test_summary_index(void **state)
{
    (void)state;
    atf_recorder *r = calloc(1, sizeof *r);
    assert_non_null(r);
    /* Ids arrive in any order and far apart; each gets one summary, found
     * again by id however the tables have grown since. */
    enum { N = 5000 };
    for (uint64_t k = 0; k < N; k++) {
        uint64_t id = (k * 7919u) % N;
        rec_summary *s = rec_summary_get(r, id);
        assert_non_null(s);
        assert_int_equal(s->id, id);
        s->event_count = id + 1;
    }
    assert_int_equal(r->nsum, N);
    for (uint64_t id = 0; id < N; id++) {
        rec_summary *s = rec_summary_get(r, id);
        assert_int_equal(s->id, id);
        assert_int_equal(s->event_count, id + 1);   /* the same summary, not a new one */
    }
    assert_int_equal(r->nsum, N);
    rec_summary *far = rec_summary_get(r, 1000000);
    assert_non_null(far);
    assert_int_equal(far->id, 1000000);
    assert_int_equal(far->event_count, 0);
    assert_int_equal(r->nsum, N + 1);
    free(r->sum);
    free(r->sum_of);
    free(r);
}

static const char *state_of(json_t *j)
{
    return json_string_value(json_object_get(json_object_get(j, "recorder"), "state"));
}

static void test_manifest_while_recording_and_at_the_end(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "manifest");
    atf_recorder_options o = rt_options(dir);
    atf_recorder *r = rt_start(&o);

    /* Written at start: no thread yet. */
    json_t *j = rt_manifest_json(dir);
    assert_string_equal(state_of(j), "recording");
    assert_int_equal(json_array_size(json_object_get(j, "threads")), 0);
    assert_int_equal(rt_json_u64(j, "time_start_ns", NULL), 0);
    assert_int_equal(rt_json_u64(j, "time_end_ns", NULL), 0);
    json_decref(j);

    uint64_t n = 1000;
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(atf_recorder_call(r, i), ATF_OK);
    assert_int_equal(atf_recorder_flush(r, 10000), ATF_OK);   /* a flush rewrites it */
    j = rt_manifest_json(dir);
    assert_string_equal(state_of(j), "recording");
    json_t *threads = json_object_get(j, "threads");
    assert_int_equal(json_array_size(threads), 1);
    json_t *t0 = json_array_get(threads, 0);
    assert_false(json_is_true(json_object_get(t0, "finalized")));
    /* The range stays unset while recording (SPEC errata E-19). */
    assert_int_equal(rt_json_u64(j, "time_start_ns", NULL), 0);
    assert_int_equal(rt_json_u64(j, "time_end_ns", NULL), 0);
    json_decref(j);

    rt_stop(r);
    atf_recorder_destroy(r);
    j = rt_manifest_json(dir);
    assert_string_equal(state_of(j), "complete");
    t0 = json_array_get(json_object_get(j, "threads"), 0);
    assert_true(json_is_true(json_object_get(t0, "finalized")));
    assert_int_equal(rt_json_u64(t0, "event_count", NULL), n);
    uint64_t a = rt_json_u64(j, "time_start_ns", NULL), b = rt_json_u64(j, "time_end_ns", NULL);
    assert_true(a > 0 && a <= b);
    /* Every kind of loss is there, and the total is their sum. */
    uint64_t parts = rt_json_u64(j, "recorder", "events_dropped_ring_full", NULL) +
                     rt_json_u64(j, "recorder", "events_lost_at_stop", NULL) +
                     rt_json_u64(j, "recorder", "events_lost_io", NULL) +
                     rt_json_u64(j, "recorder", "events_rejected", NULL);
    assert_int_equal(rt_json_u64(j, "events_dropped", NULL), parts);
    assert_int_equal(parts, 0);
    json_decref(j);
    rt_check(dir, 0);
    rt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_index),
        cmocka_unit_test(test_manifest_while_recording_and_at_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
