/* `atf report` (report.c): inclusive and self times computed by hand on a
 * session with nesting, recursion, an exception, a return without a call and
 * a call that never returned; the per-thread tables, the sort keys, the
 * text table; a demo session's counts against its index files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "session_test_util.h"

enum { A = 1, B, C, D, E, F, G, H, X = 9 };

typedef struct step {
    uint32_t kind;
    uint64_t fid, ts;
} step;

static const step thread1[] = {
    { ATF_EVENT_CALL, A, 0 },        { ATF_EVENT_CALL, B, 10 },      { ATF_EVENT_RETURN, B, 30 },
    { ATF_EVENT_CALL, B, 40 },       { ATF_EVENT_CALL, C, 45 },      { ATF_EVENT_RETURN, C, 50 },
    { ATF_EVENT_RETURN, B, 60 },     { ATF_EVENT_RETURN, A, 100 },
    /* recursion: D in D */
    { ATF_EVENT_CALL, D, 110 },      { ATF_EVENT_CALL, D, 120 },     { ATF_EVENT_RETURN, D, 130 },
    { ATF_EVENT_RETURN, D, 150 },
    /* E calls F calls G; an exception in F ends G (unwound) and F; E returns */
    { ATF_EVENT_CALL, E, 200 },      { ATF_EVENT_CALL, F, 210 },     { ATF_EVENT_CALL, G, 220 },
    { ATF_EVENT_EXCEPTION, F, 230 }, { ATF_EVENT_RETURN, E, 240 },
    { ATF_EVENT_RETURN, X, 250 },    /* no call: dropped */
    /* H never returns: it ends at the thread's last event (280) */
    { ATF_EVENT_CALL, H, 260 },      { ATF_EVENT_CALL, C, 270 },     { ATF_EVENT_RETURN, C, 280 },
};
static const step thread2[] = { { ATF_EVENT_CALL, A, 1000 }, { ATF_EVENT_RETURN, A, 1007 } };

static void write_thread(atf_session_writer *sw, uint64_t id, const step *s, size_t n)
{
    atf_thread_writer *tw;
    atf_error err;
    assert_int_equal(atf_session_writer_add_thread(sw, id, (uint32_t)id, 0, &tw, &err), ATF_OK);
    for (size_t i = 0; i < n; i++) {
        atf_index_event ev;
        memset(&ev, 0, sizeof ev);
        ev.event_kind = s[i].kind;
        ev.function_id = s[i].fid;
        ev.timestamp_ns = s[i].ts;
        assert_int_equal(atf_thread_writer_append(tw, &ev, NULL, NULL), ATF_OK);
    }
}

static void write_session(const char *dir)
{
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    write_thread(sw, 1, thread1, sizeof thread1 / sizeof thread1[0]);
    write_thread(sw, 2, thread2, sizeof thread2 / sizeof thread2[0]);
    static const char *names[] = { "A", "B", "C", "D", "E", "F", "G" };   /* H (8) has no symbol */
    for (uint64_t f = A; f <= G; f++) {
        atf_manifest_symbol sym = { f, 0, f, names[f - 1] };
        assert_int_equal(atf_session_writer_add_symbol(sw, &sym), ATF_OK);
    }
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
}

typedef struct want {
    const char *name;
    uint64_t calls, total, self;
} want;

/* Runs the report; @return its JSON, parsed. */
static json_t *report_json(const char *dir, unsigned per_thread, atf_report_sort sort, atf_report_stats *stats,
                           const char **diag_text, tu_capture *dc)
{
    tu_capture c;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.diag = tu_capture_begin(dc);
    atf_report_options ro = ATF_REPORT_OPTIONS_INIT;
    ro.json = 1;
    ro.per_thread = per_thread;
    ro.sort = sort;
    atf_error err;
    assert_int_equal(atf_tool_report(tu_capture_begin(&c), dir, &o, &ro, stats, &err), ATF_OK);
    const char *text = tu_capture_end(&c);
    *diag_text = tu_capture_end(dc);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    if (!j)
        fail_msg("report JSON does not parse: %s\n%s", je.text, text);
    tu_capture_free(&c);
    return j;
}

static void check_functions(json_t *fns, const want *w, size_t n)
{
    assert_true(json_is_array(fns));
    assert_int_equal(json_array_size(fns), n);
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_array_get(fns, i);
        assert_string_equal(json_string_value(json_object_get(f, "name")), w[i].name);
        assert_int_equal(json_integer_value(json_object_get(f, "calls")), w[i].calls);
        assert_int_equal(json_integer_value(json_object_get(f, "total_ns")), w[i].total);
        assert_int_equal(json_integer_value(json_object_get(f, "self_ns")), w[i].self);
    }
}

static void test_hand_computed(void **state)
{
    (void)state;
    char dir[256];
    cf_mkdtemp(dir, sizeof dir, "report");
    write_session(dir);
    atf_report_stats st;
    const char *diag;
    tu_capture dc;
    /* Session, by calls (ties by name). A: 100 + 7; B: 20 + 20, self 20 + 15;
     * C: 5 + 10; D: outer 40 only in total, self 30 + 10; E: 40, self 40 - 20;
     * F: 20 (to the exception), self 20 - 10; G: 10 (unwound at 230);
     * H (unnamed): 260..280, self 20 - 10. */
    json_t *j = report_json(dir, 0, ATF_REPORT_SORT_CALLS, &st, &diag, &dc);
    const want by_calls[] = { { "A", 2, 107, 67 }, { "B", 2, 40, 35 }, { "C", 2, 15, 15 }, { "D", 2, 40, 40 },
                              { "0x8", 1, 20, 10 }, { "E", 1, 40, 20 }, { "F", 1, 20, 10 }, { "G", 1, 10, 10 } };
    check_functions(json_object_get(j, "functions"), by_calls, 8);
    assert_int_equal(json_integer_value(json_object_get(j, "events")), 23);
    assert_int_equal(json_integer_value(json_object_get(j, "calls")), 12);
    assert_int_equal(json_integer_value(json_object_get(j, "unclosed")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "unwound")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "unmatched_returns")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "exceptions")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "thread_count")), 2);
    assert_int_equal(st.calls, 12);
    assert_int_equal(st.max_depth, 3);
    /* Unclean: said on the diag stream, once. */
    assert_non_null(strstr(diag, "1 calls never returned"));
    assert_non_null(strstr(diag, "1 frames unwound"));
    assert_non_null(strstr(diag, "1 returns without a call"));
    assert_non_null(strstr(diag, "; 1 exceptions"));
    tu_capture_free(&dc);
    json_decref(j);

    /* By total, self and name. */
    j = report_json(dir, 0, ATF_REPORT_SORT_TOTAL, &st, &diag, &dc);
    const want by_total[] = { { "A", 2, 107, 67 }, { "B", 2, 40, 35 }, { "D", 2, 40, 40 }, { "E", 1, 40, 20 },
                              { "0x8", 1, 20, 10 }, { "F", 1, 20, 10 }, { "C", 2, 15, 15 }, { "G", 1, 10, 10 } };
    check_functions(json_object_get(j, "functions"), by_total, 8);
    json_decref(j);
    tu_capture_free(&dc);
    j = report_json(dir, 0, ATF_REPORT_SORT_SELF, &st, &diag, &dc);
    const want by_self[] = { { "A", 2, 107, 67 }, { "D", 2, 40, 40 }, { "B", 2, 40, 35 }, { "E", 1, 40, 20 },
                             { "C", 2, 15, 15 }, { "0x8", 1, 20, 10 }, { "F", 1, 20, 10 }, { "G", 1, 10, 10 } };
    check_functions(json_object_get(j, "functions"), by_self, 8);
    json_decref(j);
    tu_capture_free(&dc);
    j = report_json(dir, 0, ATF_REPORT_SORT_NAME, &st, &diag, &dc);
    const want by_name[] = { { "0x8", 1, 20, 10 }, { "A", 2, 107, 67 }, { "B", 2, 40, 35 }, { "C", 2, 15, 15 },
                             { "D", 2, 40, 40 },   { "E", 1, 40, 20 },  { "F", 1, 20, 10 }, { "G", 1, 10, 10 } };
    check_functions(json_object_get(j, "functions"), by_name, 8);
    json_decref(j);
    tu_capture_free(&dc);

    /* Per thread. */
    j = report_json(dir, 1, ATF_REPORT_SORT_NAME, &st, &diag, &dc);
    json_t *th = json_object_get(j, "threads");
    assert_int_equal(json_array_size(th), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(th, 0), "thread")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(th, 1), "thread")), 2);
    const want t1[] = { { "0x8", 1, 20, 10 }, { "A", 1, 100, 60 }, { "B", 2, 40, 35 }, { "C", 2, 15, 15 },
                        { "D", 2, 40, 40 },   { "E", 1, 40, 20 },  { "F", 1, 20, 10 }, { "G", 1, 10, 10 } };
    check_functions(json_object_get(json_array_get(th, 0), "functions"), t1, 8);
    const want t2[] = { { "A", 1, 7, 7 } };
    check_functions(json_object_get(json_array_get(th, 1), "functions"), t2, 1);
    json_decref(j);
    tu_capture_free(&dc);

    /* Thread 2 alone is clean: nothing on the diag stream. */
    tu_capture c;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    uint64_t only2 = 2;
    o.threads = &only2;
    o.thread_count = 1;
    o.diag = tu_capture_begin(&dc);
    atf_report_options ro = ATF_REPORT_OPTIONS_INIT;
    atf_error err;
    assert_int_equal(atf_tool_report(tu_capture_begin(&c), dir, &o, &ro, &st, &err), ATF_OK);
    const char *text = tu_capture_end(&c);
    assert_string_equal(tu_capture_end(&dc), "");
    /* The text table: header and one row (7 ns total, 7 ns self, 1 call, A). */
    assert_non_null(strstr(text, "Total time"));
    assert_non_null(strstr(text, "         7 ns           7 ns             1  A\n"));
    tu_capture_free(&c);
    tu_capture_free(&dc);

    /* A thread the session does not hold, a bad sort key: ATF_E_ARG. */
    only2 = 77;
    assert_int_equal(atf_tool_report(stdout, dir, &o, &ro, NULL, &err), ATF_E_ARG);
    o.thread_count = 0;
    o.threads = NULL;
    ro.sort = (atf_report_sort)99;
    assert_int_equal(atf_tool_report(stdout, dir, &o, &ro, NULL, &err), ATF_E_ARG);
    cf_rm_rf(dir);
}

/* A demo session: every call is counted once, whatever ended it, and self
 * time never exceeds total time. */
static void test_demo(void **state)
{
    (void)state;
    char dir[256];
    cf_mkdtemp(dir, sizeof dir, "report-demo");
    tu_demo(dir, ATF_LAYOUT_2, 3, 20000, 0);
    atf_report_stats st;
    const char *diag;
    tu_capture dc;
    json_t *j = report_json(dir, 0, ATF_REPORT_SORT_TOTAL, &st, &diag, &dc);
    tu_capture_free(&dc);
    uint64_t calls_in_files = 0;
    atf_session *s;
    atf_error err;
    assert_int_equal(atf_session_open(&s, dir, NULL, &err), ATF_OK);
    for (size_t i = 0; i < atf_session_thread_count(s); i++) {
        const atf_index_reader *ix = atf_session_thread_at(s, i)->index;
        for (uint64_t q = 0; q < atf_index_reader_count(ix); q++) {
            atf_index_event ev;
            assert_int_equal(atf_index_reader_get(ix, q, &ev), ATF_OK);
            calls_in_files += ev.event_kind == ATF_EVENT_CALL;
        }
    }
    atf_session_close(s);
    assert_int_equal(st.events, 60000);
    assert_int_equal(st.too_deep, 0);
    assert_int_equal(st.calls, calls_in_files);
    json_t *fns = json_object_get(j, "functions");
    uint64_t sum = 0;
    for (size_t i = 0; i < json_array_size(fns); i++) {
        json_t *f = json_array_get(fns, i);
        sum += (uint64_t)json_integer_value(json_object_get(f, "calls"));
        assert_true(json_integer_value(json_object_get(f, "self_ns")) <= json_integer_value(json_object_get(f, "total_ns")));
        if (i > 0)
            assert_true(json_integer_value(json_object_get(f, "total_ns")) <=
                        json_integer_value(json_object_get(json_array_get(fns, i - 1), "total_ns")));
    }
    assert_int_equal(sum, calls_in_files);
    json_decref(j);
    cf_rm_rf(dir);
}

/* Frames open while the function table grows (entries move): main's call
 * stays counted and timed. */
static void test_table_growth(void **state)
{
    (void)state;
    char dir[256];
    cf_mkdtemp(dir, sizeof dir, "report-grow");
    static step s[2 + 2 * 2000];
    size_t n = 0;
    s[n++] = (step){ ATF_EVENT_CALL, 100000, 0 };
    for (uint64_t f = 0; f < 2000; f++) {
        s[n++] = (step){ ATF_EVENT_CALL, 200000 + f, 1 + 2 * f };
        s[n++] = (step){ ATF_EVENT_RETURN, 200000 + f, 2 + 2 * f };
    }
    s[n++] = (step){ ATF_EVENT_RETURN, 100000, 5000 };
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    write_thread(sw, 1, s, n);
    atf_manifest_symbol sym = { 100000, 0, 1, "main" };
    assert_int_equal(atf_session_writer_add_symbol(sw, &sym), ATF_OK);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    atf_report_stats st;
    const char *diag;
    tu_capture dc;
    json_t *j = report_json(dir, 0, ATF_REPORT_SORT_TOTAL, &st, &diag, &dc);
    assert_string_equal(diag, "");
    tu_capture_free(&dc);
    json_t *fns = json_object_get(j, "functions");
    assert_int_equal(json_array_size(fns), 2001);
    const want top[] = { { "main", 1, 5000, 5000 - 2000 } };
    json_t *first = json_array();
    json_array_append(first, json_array_get(fns, 0));
    check_functions(first, top, 1);
    for (size_t i = 1; i < 2001; i++) {
        assert_int_equal(json_integer_value(json_object_get(json_array_get(fns, i), "calls")), 1);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(fns, i), "self_ns")), 1);
    }
    json_decref(first);
    json_decref(j);
    cf_rm_rf(dir);
}

/* No ATF input: ATF_E_NOT_FOUND (the command's exit 2). */
static void test_no_input(void **state)
{
    (void)state;
    char dir[256];
    cf_mkdtemp(dir, sizeof dir, "report-empty");
    atf_error err;
    atf_status st = atf_tool_report(stdout, dir, NULL, NULL, NULL, &err);
    assert_int_not_equal(st, ATF_OK);
    cf_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed),
        cmocka_unit_test(test_demo),
        cmocka_unit_test(test_table_growth),
        cmocka_unit_test(test_no_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
