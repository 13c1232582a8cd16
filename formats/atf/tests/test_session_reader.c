/* Tests for session_reader.c: sessions written by the session writer read
 * back event by event in both layouts, discovery without a manifest,
 * warnings for disagreements between manifest and directories, and the
 * errors that name the file at fault. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/session.h>
#include <atf/tools.h>

#include "session_test_util.h"

static atf_session *open_ok(const char *dir, const atf_read_options *ro)
{
    atf_session *s = NULL;
    atf_error err;
    atf_status st = atf_session_open(&s, dir, ro, &err);
    if (st)
        fail_msg("open %s: %s: %s", dir, atf_status_name(st), err.message);
    assert_non_null(s);
    return s;
}

/* The session, thread by thread (sorted by id), equals the model. */
static void assert_session_matches(const atf_session *s, const tu_session *model)
{
    assert_int_equal(atf_session_thread_count(s), model->nthreads);
    uint64_t prev = 0;
    for (size_t i = 0; i < model->nthreads; i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        assert_non_null(t);
        if (i)
            assert_true(t->id > prev);
        prev = t->id;
        const tu_thread *th = NULL;
        for (size_t k = 0; k < model->nthreads; k++)
            if (model->threads[k].id == t->id)
                th = &model->threads[k];
        assert_non_null(th);
        char want_dir[64];
        snprintf(want_dir, sizeof want_dir, "/thread_%llu", (unsigned long long)t->id);
        assert_non_null(strstr(t->dir, want_dir));
        tu_assert_thread(th, model->layout, t->index, t->detail);
    }
    assert_null(atf_session_thread_at(s, model->nthreads));
}

static void roundtrip(atf_layout layout, int no_mmap)
{
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "sr");
    static const uint64_t ids[] = { 12, 0, 5, 3 };
    static const size_t counts[] = { 700, 3, 0, 2100 };
    static const int detail[] = { 1, 1, 0, 1 };
    tu_session model;
    tu_session_generate(&model, layout, 4, ids, counts, detail, 5, 77, 1000, 19);
    tu_session_write(&model, dir, 0);

    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.no_mmap = (unsigned)no_mmap;
    atf_session *s = open_ok(dir, &ro);
    assert_int_equal(atf_session_warning_count(s), 0);
    assert_null(atf_session_warning(s, 0));
    const atf_manifest *m = atf_session_manifest(s);
    assert_non_null(m);
    assert_int_equal(m->thread_count, 4);
    assert_session_matches(s, &model);
    for (size_t i = 0; i < 4; i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        int want = t->id == 5 ? 0 : 1;
        assert_int_equal(t->manifest_has_detail, want);
    }
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

static void test_roundtrip_layout1(void **state)
{
    (void)state;
    roundtrip(ATF_LAYOUT_1, 0);
}

static void test_roundtrip_layout2(void **state)
{
    (void)state;
    roundtrip(ATF_LAYOUT_2, 0);
}

static void test_roundtrip_no_mmap(void **state)
{
    (void)state;
    roundtrip(ATF_LAYOUT_1, 1);
    roundtrip(ATF_LAYOUT_2, 1);
}

/* A small session with threads ids[], all with a detail lane. */
static void write_small(tu_session *model, const char *dir, atf_layout layout, size_t n, const uint64_t *ids)
{
    size_t counts[TU_MAX_THREADS];
    int detail[TU_MAX_THREADS];
    for (size_t i = 0; i < n; i++) {
        counts[i] = 20 + 7 * i;
        detail[i] = 1;
    }
    tu_session_generate(model, layout, n, ids, counts, detail, 2, 10, 10, 5);
    tu_session_write(model, dir, 0);
}

static int has_warning(const atf_session *s, const char *a, const char *b)
{
    for (size_t i = 0; i < atf_session_warning_count(s); i++) {
        const char *w = atf_session_warning(s, i);
        if (strstr(w, a) && (!b || strstr(w, b)))
            return 1;
    }
    return 0;
}

static void test_missing_manifest_discovers_threads(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sr");
    static const uint64_t ids[] = { 30, 4, 200 };
    tu_session model;
    write_small(&model, dir, ATF_LAYOUT_2, 3, ids);
    assert_int_equal(remove(tu_path(p, sizeof p, "%s/manifest.json", dir)), 0);
    /* Things that are not thread directories are ignored. */
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_", dir));
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_x1", dir));
    tu_mkdir(tu_path(p, sizeof p, "%s/threads", dir));
    tu_write_text(tu_path(p, sizeof p, "%s/thread_77", dir), "a file, not a directory");
    /* Not the canonical name of thread 4: the thread is opened as thread_4. */
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_04", dir));
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_00", dir));

    atf_session *s = open_ok(dir, NULL);
    assert_null(atf_session_manifest(s));
    assert_int_equal(atf_session_warning_count(s), 1);
    assert_true(has_warning(s, "no manifest.json", NULL));
    assert_session_matches(s, &model);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(atf_session_thread_at(s, i)->manifest_has_detail, -1);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

/* Discovery handles the whole u64 range of thread ids. */
static void test_discovery_of_large_ids(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sr");
    static const uint64_t ids[] = { UINT64_MAX, UINT64_MAX - 5, 1844674407370955161ull, 0 };
    tu_session model;
    write_small(&model, dir, ATF_LAYOUT_2, 4, ids);
    assert_int_equal(remove(tu_path(p, sizeof p, "%s/manifest.json", dir)), 0);
    /* One more than UINT64_MAX is not a thread id. */
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_18446744073709551616", dir));
    atf_session *s = open_ok(dir, NULL);
    assert_session_matches(s, &model);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

static void test_unlisted_thread_dir_warns(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sr");
    static const uint64_t ids[] = { 1, 2, 3 };
    tu_session model;
    write_small(&model, dir, ATF_LAYOUT_1, 3, ids);
    tu_write_text(tu_path(p, sizeof p, "%s/manifest.json", dir),
                  "{\"threads\":[{\"id\":3,\"has_detail\":true},{\"id\":1,\"has_detail\":true}],"
                  "\"time_start_ns\":0,\"time_end_ns\":0}");
    atf_session *s = open_ok(dir, NULL);
    assert_non_null(atf_session_manifest(s));
    assert_int_equal(atf_session_warning_count(s), 1);
    assert_true(has_warning(s, "thread_2", "not listed"));
    /* The unlisted thread is still read. */
    assert_session_matches(s, &model);
    assert_int_equal(atf_session_thread_at(s, 0)->manifest_has_detail, 1);
    assert_int_equal(atf_session_thread_at(s, 1)->manifest_has_detail, -1);
    assert_int_equal(atf_session_thread_at(s, 2)->manifest_has_detail, 1);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

static void test_has_detail_disagreements_warn(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sr");
    static const uint64_t ids[] = { 1, 2 };
    static const size_t counts[] = { 10, 10 };
    static const int detail[] = { 1, 0 };
    tu_session model;
    tu_session_generate(&model, ATF_LAYOUT_2, 2, ids, counts, detail, 1, 1, 1, 1);
    tu_session_write(&model, dir, 0);
    /* Swapped: thread 1 has a detail file but the manifest says no; thread 2 the reverse. */
    tu_write_text(tu_path(p, sizeof p, "%s/manifest.json", dir),
                  "{\"threads\":[{\"id\":1,\"has_detail\":false},{\"id\":2,\"has_detail\":true}]}");
    atf_session *s = open_ok(dir, NULL);
    assert_int_equal(atf_session_warning_count(s), 2);
    assert_true(has_warning(s, "thread_1", "detail.atf exists"));
    assert_true(has_warning(s, "thread_2", "no detail.atf"));
    assert_session_matches(s, &model);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

/* The thread of session s with id, or fails. */
static const atf_session_thread *thread_by_id(const atf_session *s, uint64_t id)
{
    for (size_t i = 0; i < atf_session_thread_count(s); i++)
        if (atf_session_thread_at(s, i)->id == id)
            return atf_session_thread_at(s, i);
    fail_msg("no thread %llu", (unsigned long long)id);
    return NULL;
}

static void test_manifest_thread_without_index(void **state)
{
    (void)state;
    char dir[64], p[160], q[160];
    cf_mkdtemp(dir, sizeof dir, "sr");
    static const uint64_t ids[] = { 1 };
    tu_session model;
    write_small(&model, dir, ATF_LAYOUT_2, 1, ids);

    /* Listed, but no directory at all. */
    tu_write_text(tu_path(p, sizeof p, "%s/manifest.json", dir),
                  "{\"threads\":[{\"id\":1,\"has_detail\":true},{\"id\":9,\"has_detail\":false}]}");
    /* One bad thread never costs the others (BH-002): thread 9 is reported,
     * thread 1 is read. */
    atf_session *s = (atf_session *)&s;
    atf_error err;
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_OK);
    assert_int_equal(atf_session_unreadable_count(s), 1);
    const atf_session_thread *t9 = thread_by_id(s, 9), *t1 = thread_by_id(s, 1);
    assert_int_equal(t9->status, ATF_E_NOT_FOUND);
    assert_null(t9->index);
    assert_string_equal(t9->error.file, tu_path(p, sizeof p, "%s/thread_9/index.atf", dir));
    assert_non_null(strstr(t9->error.message, "index.atf"));
    assert_int_equal(t1->status, ATF_OK);
    assert_non_null(t1->index);
    assert_true(atf_index_reader_count(t1->index) > 0);
    atf_session_close(s);

    /* A directory with only a detail file. */
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_9", dir));
    tu_copy_file(tu_path(p, sizeof p, "%s/thread_9/detail.atf", dir),
                 tu_path(q, sizeof q, "%s/thread_1/detail.atf", dir));
    /* Its detail events are still read. */
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_OK);
    t9 = thread_by_id(s, 9);
    assert_int_equal(t9->status, ATF_E_NOT_FOUND);
    assert_string_equal(t9->error.file, tu_path(p, sizeof p, "%s/thread_9/index.atf", dir));
    assert_non_null(t9->detail);
    atf_session_close(s);

    /* Without a manifest the same directory is found and reported the same way. */
    assert_int_equal(remove(tu_path(p, sizeof p, "%s/manifest.json", dir)), 0);
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_OK);
    assert_int_equal(thread_by_id(s, 9)->status, ATF_E_NOT_FOUND);
    assert_int_equal(thread_by_id(s, 1)->status, ATF_OK);
    atf_session_close(s);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

static void test_layout_mismatch(void **state)
{
    (void)state;
    char d1[64], d2[64], p[160], q[160];
    cf_mkdtemp(d1, sizeof d1, "sr");
    cf_mkdtemp(d2, sizeof d2, "sr");
    static const uint64_t ids[] = { 4 };
    tu_session m1, m2;
    write_small(&m1, d1, ATF_LAYOUT_1, 1, ids);
    write_small(&m2, d2, ATF_LAYOUT_2, 1, ids);
    atf_session *s = (atf_session *)&s;
    atf_error err;

    /* d1: layout-1 index beside a layout-2 detail file. */
    tu_copy_file(tu_path(p, sizeof p, "%s/thread_4/detail.atf", d1), tu_path(q, sizeof q, "%s/thread_4/detail.atf", d2));
    assert_int_equal(atf_session_open(&s, d1, NULL, &err), ATF_OK);
    const atf_session_thread *t = thread_by_id(s, 4);
    assert_int_equal(t->status, ATF_E_LAYOUT);
    assert_non_null(t->index);   /* the index lane is still read */
    assert_null(t->detail);
    assert_string_equal(t->error.file, p);
    assert_string_equal(t->error.field, "version");
    assert_int_equal(t->error.offset, 5);
    atf_session_close(s);

    /* d2: layout-1 index (from d1) beside its layout-2 detail file. */
    tu_copy_file(tu_path(p, sizeof p, "%s/thread_4/index.atf", d2), tu_path(q, sizeof q, "%s/thread_4/index.atf", d1));
    assert_int_equal(atf_session_open(&s, d2, NULL, &err), ATF_OK);
    t = thread_by_id(s, 4);
    assert_int_equal(t->status, ATF_E_LAYOUT);
    assert_string_equal(t->error.file, tu_path(p, sizeof p, "%s/thread_4/detail.atf", d2));
    atf_session_close(s);
    tu_session_free(&m1);
    tu_session_free(&m2);
    cf_rm_rf(d1);
    cf_rm_rf(d2);
}

static void test_open_errors(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sr");
    atf_session *s = (atf_session *)&s;
    atf_error err;

    /* Neither manifest nor threads. */
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_E_NOT_FOUND);
    assert_null(s);
    assert_string_equal(err.file, dir);

    /* A manifest with no threads is an empty session. */
    tu_write_text(tu_path(p, sizeof p, "%s/manifest.json", dir), "{\"threads\":[]}");
    s = open_ok(dir, NULL);
    assert_int_equal(atf_session_thread_count(s), 0);
    atf_merge *mg;
    assert_int_equal(atf_merge_create(&mg, s), ATF_OK);
    atf_merged_event me;
    assert_int_equal(atf_merge_next(mg, &me), 0);
    atf_merge_destroy(mg);
    atf_session_close(s);

    /* An invalid manifest names the manifest. */
    tu_write_text(p, "{\"threads\":[{\"id\":\"x\"}]}");
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_E_MANIFEST);
    assert_string_equal(err.file, p);
    assert_non_null(strstr(err.message, "threads[].id"));
    assert_int_equal(remove(p), 0);

    /* A broken index file names that file. */
    static const uint64_t ids[] = { 6, 7 };
    tu_session model;
    write_small(&model, dir, ATF_LAYOUT_2, 2, ids);
    tu_patch(tu_path(p, sizeof p, "%s/thread_7/index.atf", dir), 0, "XXXX", 4);
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_OK);
    assert_int_equal(thread_by_id(s, 7)->status, ATF_E_MAGIC);
    assert_string_equal(thread_by_id(s, 7)->error.file, p);
    assert_int_equal(thread_by_id(s, 6)->status, ATF_OK);
    assert_int_equal(atf_session_unreadable_count(s), 1);
    atf_session_close(s);

    char missing[160];
    assert_int_equal(atf_session_open(&s, tu_path(missing, sizeof missing, "%s/nope", dir), NULL, &err), ATF_E_IO);
    assert_int_equal(atf_session_open(NULL, dir, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_session_open(&s, NULL, NULL, &err), ATF_E_ARG);

    /* Accessors accept NULL. */
    assert_int_equal(atf_session_thread_count(NULL), 0);
    assert_null(atf_session_thread_at(NULL, 0));
    assert_null(atf_session_manifest(NULL));
    assert_int_equal(atf_session_warning_count(NULL), 0);
    assert_null(atf_session_warning(NULL, 0));
    atf_session_close(NULL);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

/* The tracer writes ada_traces/session_YYYYMMDD_HHMMSS/pid_N/; the session
 * directory given is resolved to the single pid_N inside it. */
static void test_pid_directory_resolution(void **state)
{
    (void)state;
    char dir[64], sess[128], pid[160], resolved[256];
    cf_mkdtemp(dir, sizeof dir, "sr");
    tu_path(sess, sizeof sess, "%s/session_20240131_235959", dir);
    tu_path(pid, sizeof pid, "%s/pid_4242", sess);
    static const uint64_t ids[] = { 0, 1 };
    tu_session model;
    write_small(&model, pid, ATF_LAYOUT_1, 2, ids);

    atf_error err;
    assert_int_equal(atf_path_detect(sess, resolved, sizeof resolved, &err), ATF_PATH_SESSION);
    assert_string_equal(resolved, pid);
    atf_session *s = open_ok(resolved, NULL);
    assert_session_matches(s, &model);
    atf_session_close(s);
    /* The pid directory itself is a session too. */
    assert_int_equal(atf_path_detect(pid, resolved, sizeof resolved, &err), ATF_PATH_SESSION);
    assert_string_equal(resolved, pid);
    tu_session_free(&model);
    cf_rm_rf(dir);
}

/* A session whose writer is still running (or crashed) reads as the flushed
 * prefix of every thread. */
static void test_crash_truncated_session(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "sr");
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 3, 30, 1, &tw, &err), ATF_OK);
    for (uint64_t i = 0; i < 100; i++) {
        atf_index_event ev = { .timestamp_ns = 10 * i, .function_id = i, .event_kind = 1 + i % 3 };
        atf_detail_event d = { .event_type = 3, .timestamp = 10 * i };
        assert_int_equal(atf_thread_writer_append(tw, &ev, i % 10 == 0 ? &d : NULL, NULL), ATF_OK);
    }
    assert_int_equal(atf_index_writer_flush(atf_thread_writer_index(tw)), ATF_OK);
    assert_int_equal(atf_detail_writer_flush(atf_thread_writer_detail(tw)), ATF_OK);

    atf_session *s = open_ok(dir, NULL);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    assert_int_equal(atf_index_reader_info(t->index)->recovered, 1);
    assert_int_equal(atf_index_reader_count(t->index), 100);
    assert_int_equal(atf_detail_reader_count(t->detail), 10);
    atf_session_close(s);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    s = open_ok(dir, NULL);
    t = atf_session_thread_at(s, 0);
    assert_int_equal(atf_index_reader_info(t->index)->recovered, 0);
    assert_int_equal(atf_index_reader_count(t->index), 100);
    atf_session_close(s);
    cf_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_layout1),
        cmocka_unit_test(test_roundtrip_layout2),
        cmocka_unit_test(test_roundtrip_no_mmap),
        cmocka_unit_test(test_missing_manifest_discovers_threads),
        cmocka_unit_test(test_discovery_of_large_ids),
        cmocka_unit_test(test_unlisted_thread_dir_warns),
        cmocka_unit_test(test_has_detail_disagreements_warn),
        cmocka_unit_test(test_manifest_thread_without_index),
        cmocka_unit_test(test_layout_mismatch),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_pid_directory_resolution),
        cmocka_unit_test(test_crash_truncated_session),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
