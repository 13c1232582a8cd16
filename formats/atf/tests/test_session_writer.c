/* Tests for session_writer.c: thread directories, links filled by
 * atf_thread_writer_append, the atomically replaced manifest, finalize
 * idempotence, the symbol table, and argument/state errors. Files are read
 * back with the plain index/detail readers (the session reader has its own
 * tests). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/reader.h>
#include <atf/session.h>

#include "session_test_util.h"

/* No temp file (or anything but manifest.json and thread_*) is left in dir. */
static void assert_no_stray_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (strcmp(e->d_name, "manifest.json") != 0 && strncmp(e->d_name, "thread_", 7) != 0)
            fail_msg("stray file %s/%s", dir, e->d_name);
    }
    closedir(d);
    char tmp[512];
    assert_false(tu_exists(tu_path(tmp, sizeof tmp, "%s/.manifest.json.tmp", dir)));
}

static json_t *load_json(const char *path)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        fail_msg("%s: %s", path, je.text);
    return root;
}

static atf_manifest *load_manifest(const char *dir)
{
    char p[512];
    atf_manifest *m = NULL;
    atf_error err;
    if (atf_manifest_load(&m, tu_path(p, sizeof p, "%s/manifest.json", dir), &err) != ATF_OK)
        fail_msg("manifest: %s", err.message);
    return m;
}

/* The finalized manifest lists every thread, in creation order, with
 * has_detail and the session's time range. */
static void assert_manifest_matches(const char *dir, const tu_session *s)
{
    atf_manifest *m = load_manifest(dir);
    assert_int_equal(m->thread_count, s->nthreads);
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (size_t t = 0; t < s->nthreads; t++) {
        const tu_thread *th = &s->threads[t];
        assert_true(m->threads[t].id == th->id);
        assert_int_equal(m->threads[t].has_detail, th->with_detail);
        if (th->n) {
            if (th->events[0].ev.timestamp_ns < t0)
                t0 = th->events[0].ev.timestamp_ns;
            if (th->events[th->n - 1].ev.timestamp_ns > t1)
                t1 = th->events[th->n - 1].ev.timestamp_ns;
        }
    }
    if (t0 > t1)
        t0 = t1 = 0;
    assert_int_equal(m->time_start_ns, t0);
    assert_int_equal(m->time_end_ns, t1);
    assert_int_equal(m->has_clock_type, 1);
    assert_int_equal(m->clock_type, ATF_CLOCK_MACH_CONTINUOUS);
    assert_string_equal(m->format_version, "2.0");
    atf_manifest_free(m);

    /* The recorder-style extras, read as raw JSON. */
    char p[512];
    json_t *root = load_json(tu_path(p, sizeof p, "%s/manifest.json", dir));
    assert_int_equal(json_integer_value(json_object_get(root, "layout")), s->layout);
    json_t *threads = json_object_get(root, "threads");
    for (size_t t = 0; t < s->nthreads; t++) {
        json_t *o = json_array_get(threads, t);
        assert_int_equal(json_integer_value(json_object_get(o, "event_count")), s->threads[t].n);
        assert_int_equal(json_integer_value(json_object_get(o, "detail_event_count")), s->threads[t].ndetail);
        assert_int_equal(json_integer_value(json_object_get(o, "os_thread_id")), s->threads[t].os_tid);
    }
    json_decref(root);
}

/* Every thread's files, opened directly. */
static void assert_files_match(const char *dir, const tu_session *s)
{
    for (size_t t = 0; t < s->nthreads; t++) {
        const tu_thread *th = &s->threads[t];
        char ip[512], dp[512];
        tu_path(ip, sizeof ip, "%s/thread_%llu/index.atf", dir, (unsigned long long)th->id);
        tu_path(dp, sizeof dp, "%s/thread_%llu/detail.atf", dir, (unsigned long long)th->id);
        atf_index_reader *ix = NULL;
        atf_detail_reader *dt = NULL;
        atf_error err;
        if (atf_index_reader_open(&ix, ip, NULL, &err) != ATF_OK)
            fail_msg("%s: %s", ip, err.message);
        assert_int_equal(tu_exists(dp), th->with_detail);
        if (th->with_detail && atf_detail_reader_open(&dt, dp, NULL, &err) != ATF_OK)
            fail_msg("%s: %s", dp, err.message);

        const atf_index_header *h = atf_index_reader_header(ix);
        const atf_index_info *in = atf_index_reader_info(ix);
        assert_int_equal(h->version, s->layout);
        assert_int_equal(h->thread_id, th->os_tid);
        assert_int_equal(h->arch, ATF_ARCH_ARM64);
        assert_int_equal(h->os, ATF_OS_IOS);
        assert_int_equal(h->clock_type, ATF_CLOCK_MACH_CONTINUOUS);
        assert_int_equal(h->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE, th->with_detail ? 1 : 0);
        assert_int_equal(h->event_count, th->n);
        assert_true(in->has_footer);
        assert_int_equal(in->recovered, 0);
        if (th->n)
            assert_int_equal(in->checksum, ATF_CHECKSUM_CRC32C);
        if (th->n) {
            assert_int_equal(h->time_start_ns, th->events[0].ev.timestamp_ns);
            assert_int_equal(h->time_end_ns, th->events[th->n - 1].ev.timestamp_ns);
        }
        if (dt) {
            const atf_detail_header *dh = atf_detail_reader_header(dt);
            assert_int_equal(dh->version, s->layout);
            assert_int_equal(dh->thread_id, th->os_tid);
            assert_int_equal(dh->event_count, th->ndetail);
            assert_true(atf_detail_reader_info(dt)->has_footer);
        }
        tu_assert_thread(th, s->layout, ix, dt);
        atf_detail_reader_close(dt);
        atf_index_reader_close(ix);
    }
}

static void roundtrip(atf_layout layout)
{
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "sw");
    char sdir[128];
    /* Missing parents are created. */
    tu_path(sdir, sizeof sdir, "%s/ada_traces/session_1/pid_42", dir);
    static const uint64_t ids[] = { 0, 3, 10, 7, 2 };
    static const size_t counts[] = { 500, 0, 37, 1200, 1 };
    static const int detail[] = { 1, 1, 0, 1, 0 };
    tu_session s;
    tu_session_generate(&s, layout, 5, ids, counts, detail, 3, 1000000, 50, 7 + (uint64_t)layout);
    tu_session_write(&s, sdir, 0);
    assert_no_stray_files(sdir);
    assert_manifest_matches(sdir, &s);
    assert_files_match(sdir, &s);
    tu_session_free(&s);
    cf_rm_rf(dir);
}

static void test_roundtrip_layout1(void **state)
{
    (void)state;
    roundtrip(ATF_LAYOUT_1);
}

static void test_roundtrip_layout2(void **state)
{
    (void)state;
    roundtrip(ATF_LAYOUT_2);
}

/* Every detail event on every index event, and none at all. */
static void test_dense_and_no_detail(void **state)
{
    (void)state;
    for (int layout = 1; layout <= 2; layout++) {
        for (unsigned every = 0; every <= 1; every++) {
            char dir[64];
            cf_mkdtemp(dir, sizeof dir, "sw");
            static const uint64_t ids[] = { 1, 2 };
            static const size_t counts[] = { 300, 301 };
            static const int detail[] = { 1, 1 };
            tu_session s;
            tu_session_generate(&s, (atf_layout)layout, 2, ids, counts, detail, every, 5, 3, 11);
            tu_session_write(&s, dir, 0);
            assert_manifest_matches(dir, &s);
            assert_files_match(dir, &s);
            tu_session_free(&s);
            cf_rm_rf(dir);
        }
    }
}

static void test_finalize_idempotent(void **state)
{
    (void)state;
    char dir[64], mp[128], ip[128];
    cf_mkdtemp(dir, sizeof dir, "sw");
    static const uint64_t ids[] = { 4, 5 };
    static const size_t counts[] = { 50, 60 };
    static const int detail[] = { 1, 0 };
    tu_session s;
    tu_session_generate(&s, ATF_LAYOUT_2, 2, ids, counts, detail, 2, 100, 10, 3);
    atf_session_writer *sw = tu_session_write(&s, dir, 1);
    atf_error err;
    assert_int_equal(atf_session_writer_finalize(sw, 0, &err), ATF_OK);
    size_t mn1, in1, mn2, in2;
    uint8_t *m1 = tu_read_file(tu_path(mp, sizeof mp, "%s/manifest.json", dir), &mn1);
    uint8_t *i1 = tu_read_file(tu_path(ip, sizeof ip, "%s/thread_4/index.atf", dir), &in1);

    assert_int_equal(atf_session_writer_finalize(sw, 1, &err), ATF_OK);
    assert_int_equal(atf_session_writer_finalize(sw, 0, NULL), ATF_OK);
    uint8_t *m2 = tu_read_file(mp, &mn2);
    uint8_t *i2 = tu_read_file(ip, &in2);
    assert_int_equal(mn1, mn2);
    assert_memory_equal(m1, m2, mn1);
    assert_int_equal(in1, in2);
    assert_memory_equal(i1, i2, in1);

    /* Nothing can be added to a finalized session. */
    atf_thread_writer *tw = (atf_thread_writer *)&tw;
    assert_int_equal(atf_session_writer_add_thread(sw, 99, 1, 0, &tw, &err), ATF_E_STATE);
    assert_null(tw);
    char p99[128];
    assert_false(tu_exists(tu_path(p99, sizeof p99, "%s/thread_99", dir)));

    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    uint8_t *i3 = tu_read_file(ip, &in2);
    assert_int_equal(in1, in2);
    assert_memory_equal(i1, i3, in1);
    assert_no_stray_files(dir);
    assert_manifest_matches(dir, &s);
    free(m1);
    free(m2);
    free(i1);
    free(i2);
    free(i3);
    tu_session_free(&s);
    cf_rm_rf(dir);
}

/* Appending to a thread after the session was finalized fails. */
static void test_append_after_finalize(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "sw");
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 1, 10, 1, &tw, &err), ATF_OK);
    atf_index_event ev = { .timestamp_ns = 5, .function_id = 1, .event_kind = ATF_EVENT_CALL };
    atf_detail_event d = { .event_type = 3, .timestamp = 5 };
    assert_int_equal(atf_thread_writer_append(tw, &ev, &d, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_finalize(sw, 0, &err), ATF_OK);
    assert_int_equal(atf_thread_writer_append(tw, &ev, NULL, NULL), ATF_E_STATE);
    assert_int_equal(atf_index_writer_count(atf_thread_writer_index(tw)), 1);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    cf_rm_rf(dir);
}

/* The manifest on disk is complete and current at every step, not only
 * after finalize: a crash leaves a readable manifest. */
static void test_manifest_during_recording(void **state)
{
    (void)state;
    char dir[64], mp[128];
    cf_mkdtemp(dir, sizeof dir, "sw");
    tu_path(mp, sizeof mp, "%s/manifest.json", dir);
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_1);
    atf_session_writer *sw;
    atf_thread_writer *a, *b;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    atf_manifest *m = load_manifest(dir);
    assert_int_equal(m->thread_count, 0);
    assert_int_equal(m->time_start_ns, 0);
    assert_int_equal(m->time_end_ns, 0);
    atf_manifest_free(m);
    assert_no_stray_files(dir);

    assert_int_equal(atf_session_writer_add_thread(sw, 8, 800, 1, &a, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 6, 600, 0, &b, &err), ATF_OK);
    m = load_manifest(dir);
    assert_int_equal(m->thread_count, 2);
    assert_int_equal(m->threads[0].id, 8);
    assert_int_equal(m->threads[0].has_detail, 1);
    assert_int_equal(m->threads[1].id, 6);
    assert_int_equal(m->threads[1].has_detail, 0);
    atf_manifest_free(m);

    atf_index_event ev = { .timestamp_ns = 300, .function_id = 1, .event_kind = 1, .thread_id = 800 };
    assert_int_equal(atf_thread_writer_append(a, &ev, NULL, NULL), ATF_OK);
    ev.timestamp_ns = 200;
    assert_int_equal(atf_thread_writer_append(b, &ev, NULL, NULL), ATF_OK);
    ev.timestamp_ns = 900;
    assert_int_equal(atf_thread_writer_append(a, &ev, NULL, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_write_manifest(sw, &err), ATF_OK);
    assert_no_stray_files(dir);
    m = load_manifest(dir);
    assert_int_equal(m->time_start_ns, 200);
    assert_int_equal(m->time_end_ns, 900);
    atf_manifest_free(m);
    json_t *root = load_json(mp);
    json_t *t0 = json_array_get(json_object_get(root, "threads"), 0);
    assert_int_equal(json_integer_value(json_object_get(t0, "event_count")), 2);
    json_decref(root);

    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    assert_no_stray_files(dir);
    cf_rm_rf(dir);
}

static void test_symbols_modules_anchors(void **state)
{
    (void)state;
    char dir[64], mp[128];
    cf_mkdtemp(dir, sizeof dir, "sw");
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 0, 1, 0, &tw, &err), ATF_OK);

    char name[32];
    snprintf(name, sizeof name, "%s", "temporary \"name\"\n");
    atf_manifest_symbol s1 = { 0xFFFFFFFF00000010ull, 1, 0, name };
    atf_manifest_symbol s2 = { 16, 1, 1, "small" };
    assert_int_equal(atf_session_writer_add_symbol(sw, &s1), ATF_OK);
    assert_int_equal(atf_session_writer_add_symbol(sw, &s2), ATF_OK);
    memset(name, 'X', sizeof name - 1); /* the writer copied the name */
    char path[32] = "/usr/lib/dyld";
    atf_manifest_module mod = { 1, 0x8000000000001000ull, 0x2000, path, NULL };
    assert_int_equal(atf_session_writer_add_module(sw, &mod), ATF_OK);
    memset(path, 'Y', sizeof path - 1);
    atf_timing_anchor an = { 123456789, -48000, 48000 };
    assert_int_equal(atf_session_writer_add_anchor(sw, &an), ATF_OK);
    atf_timing_anchor bad_anchor = { 1, 1, 0 };
    assert_int_equal(atf_session_writer_add_anchor(sw, &bad_anchor), ATF_E_ARG);
    atf_session_writer_set_dropped(sw, 0xFFFFFFFFFFFFFFF0ull);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);

    atf_manifest *m = load_manifest(dir);
    assert_string_equal(m->format_version, "2.1");
    assert_int_equal(m->symbol_count, 2);
    assert_string_equal(atf_manifest_symbol_name(m, 0xFFFFFFFF00000010ull), "temporary \"name\"\n");
    assert_string_equal(atf_manifest_symbol_name(m, 16), "small");
    assert_int_equal(m->module_count, 1);
    assert_int_equal(m->modules[0].module_id, 1);
    assert_true(m->modules[0].base_address == 0x8000000000001000ull);
    assert_int_equal(m->modules[0].size, 0x2000);
    assert_string_equal(m->modules[0].path, "/usr/lib/dyld");
    assert_string_equal(m->modules[0].uuid, "");
    assert_int_equal(m->anchor_count, 1);
    assert_int_equal(m->anchors[0].host_time_ns, 123456789);
    assert_int_equal(m->anchors[0].media_time_value, -48000);
    assert_int_equal(m->anchors[0].media_time_scale, 48000);
    assert_true(m->events_dropped == 0xFFFFFFFFFFFFFFF0ull);
    atf_manifest_free(m);

    /* Values above INT64_MAX are hex strings, the rest JSON numbers. */
    json_t *root = load_json(tu_path(mp, sizeof mp, "%s/manifest.json", dir));
    json_t *syms = json_object_get(root, "symbols");
    assert_string_equal(json_string_value(json_object_get(json_array_get(syms, 0), "function_id")),
                        "0xffffffff00000010");
    assert_true(json_is_integer(json_object_get(json_array_get(syms, 1), "function_id")));
    json_t *mods = json_object_get(root, "modules");
    assert_string_equal(json_string_value(json_object_get(json_array_get(mods, 0), "base_address")),
                        "0x8000000000001000");
    json_decref(root);
    cf_rm_rf(dir);
}

/* Thread ids use the full u64 range: the directory name and the manifest
 * entry agree, and a reader finds the thread. */
static void test_large_thread_id(void **state)
{
    (void)state;
    char dir[64], ip[160];
    cf_mkdtemp(dir, sizeof dir, "sw");
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, UINT64_MAX, 1, 0, &tw, &err), ATF_OK);
    atf_index_event ev = { .timestamp_ns = 1, .function_id = 2, .event_kind = 1 };
    assert_int_equal(atf_thread_writer_append(tw, &ev, NULL, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    assert_true(tu_exists(tu_path(ip, sizeof ip, "%s/thread_18446744073709551615/index.atf", dir)));
    atf_manifest *m = load_manifest(dir);
    assert_int_equal(m->thread_count, 1);
    assert_true(m->threads[0].id == UINT64_MAX);
    atf_manifest_free(m);
    atf_session *s;
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_OK);
    assert_int_equal(atf_session_thread_count(s), 1);
    assert_int_equal(atf_index_reader_count(atf_session_thread_at(s, 0)->index), 1);
    assert_int_equal(atf_session_warning_count(s), 0);
    atf_session_close(s);
    cf_rm_rf(dir);
}

static void test_errors(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sw");
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw = (atf_session_writer *)&sw;
    atf_thread_writer *tw, *tw2;
    atf_error err;

    o.layout = (atf_layout)3;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_E_ARG);
    assert_null(sw);
    o.layout = ATF_LAYOUT_2;

    /* A path below a regular file cannot be created. */
    tu_write_text(tu_path(p, sizeof p, "%s/file", dir), "x");
    assert_int_equal(atf_session_writer_create(&sw, tu_path(p, sizeof p, "%s/file/session", dir), &o, &err),
                     ATF_E_IO);
    assert_null(sw);
    assert_true(err.file[0] != '\0');

    assert_int_equal(atf_session_writer_create(NULL, dir, &o, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_create(&sw, NULL, &o, &err), ATF_E_ARG);

    /* NULL options: the defaults (layout 2). */
    assert_int_equal(atf_session_writer_create(&sw, dir, NULL, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 1, 11, 0, &tw, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 1, 12, 1, &tw2, &err), ATF_E_ARG);
    assert_non_null(strstr(err.message, "twice"));
    assert_int_equal(atf_session_writer_add_thread(sw, 2, 12, 0, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_thread(NULL, 2, 12, 0, &tw2, &err), ATF_E_ARG);
    assert_non_null(atf_thread_writer_index(tw));
    assert_null(atf_thread_writer_detail(tw));
    assert_null(atf_thread_writer_index(NULL));

    /* A detail event on a thread without a detail lane: refused, nothing written. */
    atf_index_event ev = { .timestamp_ns = 10, .function_id = 1, .event_kind = 1 };
    atf_detail_event d = { .event_type = 3, .timestamp = 10 };
    assert_int_equal(atf_thread_writer_append(tw, &ev, &d, NULL), ATF_E_STATE);
    assert_int_equal(atf_index_writer_count(atf_thread_writer_index(tw)), 0);
    assert_int_equal(atf_thread_writer_append(tw, NULL, NULL, NULL), ATF_E_ARG);
    assert_int_equal(atf_thread_writer_append(NULL, &ev, NULL, NULL), ATF_E_ARG);
    assert_int_equal(atf_thread_writer_append(tw, &ev, NULL, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_add_symbol(sw, NULL), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_module(NULL, NULL), ATF_E_ARG);
    assert_int_equal(atf_session_writer_finalize(NULL, 0, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_write_manifest(NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    assert_int_equal(atf_session_writer_close(NULL), ATF_OK);

    atf_index_reader *ix;
    assert_int_equal(atf_index_reader_open(&ix, tu_path(p, sizeof p, "%s/thread_1/index.atf", dir), NULL, &err),
                     ATF_OK);
    assert_int_equal(atf_index_reader_info(ix)->layout, ATF_LAYOUT_2);
    assert_int_equal(atf_index_reader_count(ix), 1);
    assert_int_equal(atf_index_reader_header(ix)->thread_id, 11);
    atf_index_reader_close(ix);
    cf_rm_rf(dir);
}

/* Before finalize the files are valid crash-truncated files holding every
 * flushed event, with the links already in place. */
static void test_readable_while_recording(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sw");
    static const uint64_t ids[] = { 1 };
    static const size_t counts[] = { 200 };
    static const int detail[] = { 1 };
    tu_session s;
    tu_session_generate(&s, ATF_LAYOUT_1, 1, ids, counts, detail, 2, 1, 5, 17);
    atf_session_writer *sw = tu_session_write(&s, dir, 1);
    /* A second thread, written and flushed by hand, read before finalize. */
    atf_thread_writer *tw;
    atf_error err;
    assert_int_equal(atf_session_writer_add_thread(sw, 2, 5, 1, &tw, &err), ATF_OK);
    for (uint64_t i = 0; i < 40; i++) {
        atf_index_event ev = { .timestamp_ns = 100 + i, .function_id = i, .event_kind = 1 };
        uint8_t pl[3] = { 1, 2, (uint8_t)i };
        atf_detail_event d = { .event_type = 3, .timestamp = 100 + i, .payload = pl, .payload_size = 3 };
        assert_int_equal(atf_thread_writer_append(tw, &ev, i % 4 == 0 ? &d : NULL, NULL), ATF_OK);
    }
    assert_int_equal(atf_index_writer_flush(atf_thread_writer_index(tw)), ATF_OK);
    assert_int_equal(atf_detail_writer_flush(atf_thread_writer_detail(tw)), ATF_OK);

    atf_index_reader *ix;
    atf_detail_reader *dt;
    assert_int_equal(atf_index_reader_open(&ix, tu_path(p, sizeof p, "%s/thread_2/index.atf", dir), NULL, &err),
                     ATF_OK);
    assert_int_equal(atf_detail_reader_open(&dt, tu_path(p, sizeof p, "%s/thread_2/detail.atf", dir), NULL, &err),
                     ATF_OK);
    assert_int_equal(atf_index_reader_info(ix)->recovered, 1);
    assert_int_equal(atf_index_reader_count(ix), 40);
    assert_int_equal(atf_detail_reader_info(dt)->recovered, 1);
    assert_int_equal(atf_detail_reader_count(dt), 10);
    for (uint64_t k = 0; k < 10; k++) {
        atf_detail_event d;
        atf_index_event e;
        assert_int_equal(atf_detail_reader_get(dt, k, &d), ATF_OK);
        assert_int_equal(d.index_seq, 4 * k);
        assert_int_equal(atf_index_reader_get(ix, 4 * k, &e), ATF_OK);
        assert_int_equal(e.detail_seq, k);
    }
    atf_detail_reader_close(dt);
    atf_index_reader_close(ix);

    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    assert_files_match(dir, &s);
    tu_session_free(&s);
    cf_rm_rf(dir);
}

/* An index event the index writer refuses must not leave its detail event
 * behind: the lanes would disagree from then on. */
static void test_refused_event_leaves_no_orphan_detail(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "sw");
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 1, 10, 1, &tw, &err), ATF_OK);
    atf_index_event ev = { .timestamp_ns = 5, .function_id = 1, .event_kind = 300 }; /* > u8 in layout 2 */
    atf_detail_event d = { .event_type = 3, .timestamp = 5 };
    assert_int_equal(atf_thread_writer_append(tw, &ev, &d, NULL), ATF_E_FIELD);
    assert_int_equal(atf_index_writer_count(atf_thread_writer_index(tw)), 0);
    assert_int_equal(atf_detail_writer_count(atf_thread_writer_detail(tw)), 0);
    ev.event_kind = ATF_EVENT_CALL;
    ev.timestamp_ns = d.timestamp = 6;
    uint64_t seq;
    assert_int_equal(atf_thread_writer_append(tw, &ev, &d, &seq), ATF_OK);
    assert_int_equal(seq, 0);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);

    atf_index_reader *ix;
    atf_detail_reader *dt;
    assert_int_equal(atf_index_reader_open(&ix, tu_path(p, sizeof p, "%s/thread_1/index.atf", dir), NULL, &err),
                     ATF_OK);
    assert_int_equal(atf_detail_reader_open(&dt, tu_path(p, sizeof p, "%s/thread_1/detail.atf", dir), NULL, &err),
                     ATF_OK);
    assert_int_equal(atf_index_reader_count(ix), 1);
    assert_int_equal(atf_detail_reader_count(dt), 1);
    atf_index_event e;
    atf_detail_event de;
    assert_int_equal(atf_index_reader_get(ix, 0, &e), ATF_OK);
    assert_int_equal(e.detail_seq, 0);
    assert_int_equal(atf_detail_reader_get(dt, 0, &de), ATF_OK);
    assert_int_equal(de.index_seq, 0);
    assert_int_equal(de.timestamp, 6);
    atf_detail_reader_close(dt);
    atf_index_reader_close(ix);
    cf_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_layout1),
        cmocka_unit_test(test_roundtrip_layout2),
        cmocka_unit_test(test_dense_and_no_detail),
        cmocka_unit_test(test_finalize_idempotent),
        cmocka_unit_test(test_append_after_finalize),
        cmocka_unit_test(test_refused_event_leaves_no_orphan_detail),
        cmocka_unit_test(test_manifest_during_recording),
        cmocka_unit_test(test_symbols_modules_anchors),
        cmocka_unit_test(test_large_thread_id),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_readable_while_recording),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
