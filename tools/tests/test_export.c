/* atf_export() (export.c) through the library: arguments, counts, the
 * bytes it reports, write failures, and the memory it does not keep. The
 * formats themselves are checked by their consumers (tools/tests/viewers/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/export.h>

#include "export_test_util.h"
#include "session_test_util.h"   /* tu_demo, tu_patch_le64 */

typedef export_fixture fixture;

/* Exports into memory; returns the bytes (caller frees). */
static char *export_mem(const char *path, atf_export_format fmt, const atf_tool_options *o, atf_export_stats *s,
                        atf_status *st, size_t *size)
{
    char *buf = NULL;
    FILE *mem = open_memstream(&buf, size);
    assert_non_null(mem);
    atf_error err;
    *st = atf_export(mem, fmt, path, o, s, &err);
    fclose(mem);
    return buf;
}

static void test_counts_and_bytes(void **state)
{
    fixture *f = *state;
    for (int k = 0; k < 2; k++) {
        atf_export_format fmt = k ? ATF_EXPORT_CHROME_JSON : ATF_EXPORT_PERFETTO;
        atf_export_stats s;
        atf_status st;
        size_t size;
        char *buf = export_mem(f->session, fmt, NULL, &s, &st, &size);
        assert_int_equal(st, ATF_OK);
        assert_int_equal(s.threads, 2);
        assert_int_equal(s.events, 1000);
        assert_int_equal(s.bytes, size);
        assert_int_equal(s.anchors, 1);
        assert_true(s.details > 0);
        /* Every begin has its end: the demo ends with calls still open. */
        assert_int_equal(s.slices.begins, s.slices.ends);
        assert_true(s.slices.unclosed > 0);
        assert_int_equal(s.slices.unmatched_returns, 0);
        if (fmt == ATF_EXPORT_CHROME_JSON) {
            assert_non_null(strstr(buf, "\"name\":\"pid_321\""));
            assert_non_null(strstr(buf, "\"unclosed\":true"));
            assert_memory_equal(buf + size - 4, "\n]}\n", 4);
        } else {
            assert_int_equal((unsigned char)buf[0], 0x0a);   /* Trace.packet, length-delimited */
        }
        free(buf);
    }
}

static void test_filters(void **state)
{
    fixture *f = *state;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    uint64_t only = 1;
    o.threads = &only;
    o.thread_count = 1;
    atf_export_stats s;
    atf_status st;
    size_t size;
    free(export_mem(f->session, ATF_EXPORT_PERFETTO, &o, &s, &st, &size));
    assert_int_equal(st, ATF_OK);
    assert_int_equal(s.threads, 1);
    assert_int_equal(s.events, 500);
    /* An empty window: events are read until one passes it, nothing is drawn. */
    o.threads = NULL;
    o.window = 1;
    o.from_ns = 1;
    o.to_ns = 2;
    free(export_mem(f->session, ATF_EXPORT_CHROME_JSON, &o, &s, &st, &size));
    assert_int_equal(st, ATF_OK);
    assert_int_equal(s.slices.begins + s.slices.instants, 0);
    assert_int_equal(s.anchors, 0);
    o.from_ns = 3;
    free(export_mem(f->session, ATF_EXPORT_CHROME_JSON, &o, &s, &st, &size));
    assert_int_equal(st, ATF_E_ARG);
}

static void test_errors(void **state)
{
    fixture *f = *state;
    atf_error err;
    atf_export_stats s;
    FILE *null = fopen("/dev/null", "w");
    assert_non_null(null);
    assert_int_equal(atf_export(null, (atf_export_format)9, f->session, NULL, &s, &err), ATF_E_ARG);
    assert_int_equal(atf_export(NULL, ATF_EXPORT_PERFETTO, f->session, NULL, &s, &err), ATF_E_ARG);
    assert_int_equal(atf_export(null, ATF_EXPORT_PERFETTO, NULL, NULL, NULL, &err), ATF_E_ARG);
    char missing[4300];
    snprintf(missing, sizeof missing, "%s/none", f->dir);
    assert_int_equal(atf_export(null, ATF_EXPORT_PERFETTO, missing, NULL, &s, &err), ATF_E_IO);
    fclose(null);
    /* A full disk is an I/O error, never a verdict about the session. */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        assert_int_equal(atf_export(full, ATF_EXPORT_CHROME_JSON, f->session, NULL, &s, &err), ATF_E_IO);
        assert_non_null(strstr(err.message, "cannot write"));
        fclose(full);
    }
    assert_int_equal(atf_export_format_parse("perfetto"), ATF_EXPORT_PERFETTO);
    assert_int_equal(atf_export_format_parse("chrome-json"), ATF_EXPORT_CHROME_JSON);
    assert_int_equal(atf_export_format_parse("speedscope"), 0);
    assert_int_equal(atf_export_format_parse(NULL), 0);
}

static void on_progress(void *user, uint64_t done, uint64_t total)
{
    uint64_t *last = user;
    assert_true(done <= total);
    last[0] = done;
    last[1] = total;
}

static void test_progress_reaches_the_total(void **state)
{
    fixture *f = *state;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    uint64_t last[2] = { 0, 0 };
    o.progress = on_progress;
    o.progress_user = last;
    atf_export_stats s;
    atf_status st;
    size_t size;
    free(export_mem(f->session, ATF_EXPORT_PERFETTO, &o, &s, &st, &size));
    assert_int_equal(st, ATF_OK);
    assert_int_equal(last[0], 1000);
    assert_int_equal(last[1], 1000);
}

/* Perfetto encoded on several threads: the bytes and the counts of the
 * export in one thread, for any number of jobs. */
static void assert_perfetto_jobs_same(const char *path, const atf_tool_options *base)
{
    atf_tool_options o = *base;
    o.jobs = 1;
    atf_export_stats want_s, s;
    atf_status want_st, st;
    size_t want_size, size;
    char *want = export_mem(path, ATF_EXPORT_PERFETTO, &o, &want_s, &want_st, &want_size);
    assert_true(want_s.events > 2 * 1024);   /* more slices than one chunk of records */
    assert_int_equal(want_s.bytes, want_size);
    for (unsigned jobs = 0; jobs <= 5; jobs++) {
        o.jobs = jobs;
        char *got = export_mem(path, ATF_EXPORT_PERFETTO, &o, &s, &st, &size);
        assert_int_equal(st, want_st);
        if (size != want_size || memcmp(got, want, size) != 0)
            fail_msg("%s: the export with %u jobs differs from the export in one thread", path, jobs);
        assert_memory_equal(&s, &want_s, sizeof s);
        free(got);
    }
    free(want);
}

/* Both layouts, whole and filtered, a thread cut by a crash, a thread without
 * its index file; and a failing write is ATF_E_IO with any number of jobs. */
static void test_perfetto_jobs(void **state)
{
    (void)state;
    for (int layout = ATF_LAYOUT_1; layout <= ATF_LAYOUT_2; layout++) {
        char dir[64], p[160];
        cf_mkdtemp(dir, sizeof dir, "export");
        tu_demo(dir, (atf_layout)layout, 4, 3000, 3);
        atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
        assert_perfetto_jobs_same(dir, &o);
        uint64_t ids[3] = { 0, 2, 3 };
        o.threads = ids;
        o.thread_count = 3;
        o.window = 1;
        o.from_ns = 1000000000ull + 20000;
        o.to_ns = 1000000000ull + 150000;
        assert_perfetto_jobs_same(dir, &o);

        tu_cut_index(tu_path(p, sizeof p, "%s/thread_0/index.atf", dir), 2500, 9);
        assert_int_equal(remove(tu_path(p, sizeof p, "%s/thread_1/index.atf", dir)), 0);
        atf_tool_options all = ATF_TOOL_OPTIONS_INIT;
        assert_perfetto_jobs_same(dir, &all);

        tu_write_text(tu_path(p, sizeof p, "%s/out.pb", dir), "");
        for (unsigned jobs = 1; jobs <= 3; jobs++) {
            FILE *ro = fopen(p, "r");   /* every write fails */
            assert_non_null(ro);
            all.jobs = jobs;
            atf_error err;
            assert_int_equal(atf_export(ro, ATF_EXPORT_PERFETTO, dir, &all, NULL, &err), ATF_E_IO);
            assert_non_null(strstr(err.message, "cannot write output"));
            fclose(ro);
        }
        cf_rm_rf(dir);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_and_bytes),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_progress_reaches_the_total),
        cmocka_unit_test(test_perfetto_jobs),
    };
    return cmocka_run_group_tests(tests, export_setup, export_teardown);
}
