/* `atf export --format wtf` (export_wtf.c) through the library: every file
 * written is read back with the WTF reader and compared with the session:
 * per thread a zone whose scopes are the thread's calls in order, named by
 * their symbols, nested and balanced; the builder's marks and the detail
 * events as scope data; exceptions as atf#exception; anchors as marks;
 * times from the first event's millisecond; part files past 71.6 minutes;
 * the reference reader's depth limit; scope names it accepts. The real
 * library's reader loads exports in formats/wtf/tests/interop/. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <atf/export.h>
#include <atf/session.h>
#include <atf/wtf.h>

#define EXPORT_FIXTURE_EVENTS 700
#include "export_test_util.h"

#define SPAN_US ((uint64_t)ATF_EXPORT_WTF_SPAN_MS * 1000u)
#define MIN_NS (60ull * 1000000000ull)

/* ---- Sessions written for a test --------------------------------------- */

typedef struct spec_event {
    uint64_t ts;
    uint64_t fid;
    uint32_t kind;
} spec_event;

typedef struct spec_thread {
    uint64_t id;
    const spec_event *ev;
    size_t n;
} spec_thread;

static void write_session(const char *dir, const spec_thread *t, size_t nt, const atf_manifest_symbol *sym,
                          size_t nsym, const atf_timing_anchor *anchors, size_t nanchors)
{
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    o.layout = ATF_LAYOUT_2;
    o.arch = ATF_ARCH_ARM64;
    o.os = ATF_OS_LINUX;
    atf_session_writer *sw;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    for (size_t i = 0; i < nsym; i++)
        assert_int_equal(atf_session_writer_add_symbol(sw, &sym[i]), ATF_OK);
    for (size_t i = 0; i < nanchors; i++)
        assert_int_equal(atf_session_writer_add_anchor(sw, &anchors[i]), ATF_OK);
    for (size_t k = 0; k < nt; k++) {
        atf_thread_writer *tw;
        assert_int_equal(atf_session_writer_add_thread(sw, t[k].id, 7000 + (uint32_t)t[k].id, 0, &tw, &err), ATF_OK);
        for (size_t i = 0; i < t[k].n; i++) {
            atf_index_event ev = { 0 };
            ev.timestamp_ns = t[k].ev[i].ts;
            ev.function_id = t[k].ev[i].fid;
            ev.event_kind = t[k].ev[i].kind;
            ev.detail_seq = ATF_NO_DETAIL;
            assert_int_equal(atf_thread_writer_append(tw, &ev, NULL, NULL), ATF_OK);
        }
    }
    assert_int_equal(atf_session_writer_finalize(sw, 0, &err), ATF_OK);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
}

/* ---- A WTF file read back ---------------------------------------------- */

#define MAX_ZONES 8
#define MAX_ITEMS 4096

/* What one zone of a file holds, in file order. */
typedef struct zone_view {
    int id;
    char name[128];
    size_t enters, leaves, max_depth, depth;
    char *enter_names[MAX_ITEMS];     /* scope names, in order */
    uint32_t enter_times[MAX_ITEMS];
    size_t appends[9];                /* by append_kinds */
    char *symbols[MAX_ITEMS];         /* "symbol" values, in order */
    size_t nsymbols;
    size_t exceptions, exception_details, marks;
    char *exception_fns[MAX_ITEMS];
    uint32_t last_time;
} zone_view;

enum { A_DETAIL, A_RET_DETAIL, A_UNCLOSED, A_UNWOUND, A_CLIPPED_BEGIN, A_CLIPPED_END, A_EXCEPTION, A_SYMBOL };
static const char *const append_kinds[9] = { "detail", "ret_detail", "unclosed", "unwound", "clipped_begin",
                                             "clipped_end", "exception", "symbol", NULL };

typedef struct file_view {
    double timebase;
    size_t nzones;
    zone_view zones[MAX_ZONES];
    int unbalanced;                   /* a leave with no scope open */
    uint64_t events;
} file_view;

static zone_view *zone_of(file_view *f, int id)
{
    for (size_t i = 0; i < f->nzones; i++)
        if (f->zones[i].id == id)
            return &f->zones[i];
    assert_true(f->nzones < MAX_ZONES);
    zone_view *z = &f->zones[f->nzones++];
    z->id = id;
    return z;
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    assert_non_null(p);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static file_view *read_wtf(const char *path)
{
    file_view *f = calloc(1, sizeof *f);
    assert_non_null(f);
    atf_wtf_reader *r;
    atf_error err;
    assert_int_equal(atf_wtf_reader_open(&r, path, NULL, &err), ATF_OK);
    f->timebase = atf_wtf_reader_timebase(r);
    const atf_wtf_chunk *c;
    while (atf_wtf_reader_next_chunk(r, &c, &err) == ATF_OK) {
        atf_wtf_event ev;
        while (atf_wtf_reader_next_event(r, &ev, &err) == ATF_OK) {
            f->events++;
            const char *name = ev.def->name;
            atf_wtf_value a, b;
            if (!strcmp(name, "wtf.zone#create")) {
                assert_int_equal(atf_wtf_event_arg(r, &ev, 0, &a, &err), ATF_OK);
                assert_int_equal(atf_wtf_event_arg(r, &ev, 1, &b, &err), ATF_OK);
                zone_view *z = zone_of(f, (int)a.u);
                snprintf(z->name, sizeof z->name, "%.*s", (int)b.s_len, b.s);
                continue;
            }
            if (ev.zone < 0)
                continue;
            zone_view *z = zone_of(f, ev.zone);
            if (strcmp(name, "wtf.zone#set") && strcmp(name, "wtf.event#define")) {
                assert_true(ev.time >= z->last_time);   /* a zone's times never go back */
                z->last_time = ev.time;
            }
            if (!strcmp(name, "wtf.scope#enter")) {
                assert_int_equal(atf_wtf_event_arg(r, &ev, 0, &a, &err), ATF_OK);
                assert_true(z->enters < MAX_ITEMS);
                z->enter_times[z->enters] = ev.time;
                z->enter_names[z->enters++] = dup_n(a.s, a.s_len);
                if (++z->depth > z->max_depth)
                    z->max_depth = z->depth;
            } else if (!strcmp(name, "wtf.scope#leave")) {
                z->leaves++;
                if (z->depth == 0)
                    f->unbalanced = 1;
                else
                    z->depth--;
            } else if (!strcmp(name, "wtf.scope#appendData")) {
                assert_true(z->depth > 0);   /* scope data always lands in a scope */
                assert_int_equal(atf_wtf_event_arg(r, &ev, 0, &a, &err), ATF_OK);
                assert_int_equal(atf_wtf_event_arg(r, &ev, 1, &b, &err), ATF_OK);
                size_t k = 0;
                while (append_kinds[k] && strcmp(append_kinds[k], a.s))
                    k++;
                assert_non_null(append_kinds[k]);
                z->appends[k]++;
                if (k == A_SYMBOL && z->nsymbols < MAX_ITEMS)
                    z->symbols[z->nsymbols++] = dup_n(b.s, b.s_len);
                if (k >= A_UNCLOSED && k <= A_EXCEPTION)
                    assert_string_equal(b.s, "true");
            } else if (!strcmp(name, "atf#exception")) {
                assert_int_equal(atf_wtf_event_arg(r, &ev, 0, &a, &err), ATF_OK);
                assert_int_equal(atf_wtf_event_arg(r, &ev, 1, &b, &err), ATF_OK);
                if (z->exceptions < MAX_ITEMS)
                    z->exception_fns[z->exceptions] = dup_n(a.s, a.s_len);
                z->exceptions++;
                z->exception_details += !b.is_null;
            } else if (!strcmp(name, "wtf.trace#mark")) {
                z->marks++;
            }
        }
    }
    atf_wtf_summary sum;
    atf_wtf_reader_summary(r, &sum);
    assert_int_equal(sum.state, ATF_WTF_COMPLETE);
    atf_wtf_reader_close(r);
    return f;
}

static void free_view(file_view *f)
{
    for (size_t i = 0; i < f->nzones; i++) {
        zone_view *z = &f->zones[i];
        for (size_t k = 0; k < z->enters && k < MAX_ITEMS; k++)
            free(z->enter_names[k]);
        for (size_t k = 0; k < z->nsymbols; k++)
            free(z->symbols[k]);
        for (size_t k = 0; k < z->exceptions && k < MAX_ITEMS; k++)
            free(z->exception_fns[k]);
    }
    free(f);
}

static zone_view *zone_named(file_view *f, const char *name)
{
    for (size_t i = 0; i < f->nzones; i++)
        if (!strcmp(f->zones[i].name, name))
            return &f->zones[i];
    fail_msg("no zone named %s", name);
    return NULL;
}

/* Every zone's scopes balance. */
static void assert_balanced(const file_view *f)
{
    assert_false(f->unbalanced);
    for (size_t i = 0; i < f->nzones; i++) {
        assert_int_equal(f->zones[i].depth, 0);
        assert_int_equal(f->zones[i].enters, f->zones[i].leaves);
    }
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- Fixture: a demo session (export_test_util.h) -------------------------- */

typedef export_fixture fixture;

/* The fixture's export file, dir/out.wtf-trace, into buf. */
static const char *out_path(const fixture *f, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/out.wtf-trace", f->dir);
    return buf;
}

/* The demo session: zones, scopes by name and order, marks, details. */
static void test_demo_session(void **state)
{
    fixture *f = *state;
    char out[4300];
    out_path(f, out, sizeof out);
    atf_export_stats s;
    atf_error err;
    assert_int_equal(atf_export_file(out, ATF_EXPORT_WTF, f->session, NULL, &s, &err), ATF_OK);
    assert_int_equal(s.threads, 2);
    assert_int_equal(s.events, 1400);
    assert_int_equal(s.files, 1);
    assert_int_equal(s.wtf_parts, 1);
    assert_int_equal(s.anchors, 1);
    assert_int_equal(s.file_cuts + s.too_deep_for_format + s.clamped, 0);
    struct stat st;
    assert_int_equal(stat(out, &st), 0);
    assert_int_equal((uint64_t)st.st_size, s.bytes);

    file_view *v = read_wtf(out);
    assert_balanced(v);
    assert_int_equal(v->nzones, 3);
    atf_session *ses;
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    assert_int_equal(atf_session_open(&ses, f->session, &ro, &err), ATF_OK);
    const atf_manifest *m = atf_session_manifest(ses);
    uint64_t first = UINT64_MAX, exceptions = 0, unclosed = 0, details = 0;
    for (size_t i = 0; i < atf_session_thread_count(ses); i++) {
        const atf_session_thread *t = atf_session_thread_at(ses, i);
        char zname[128];
        snprintf(zname, sizeof zname, "pid_321 thread_%llu (os tid %lu)", (unsigned long long)t->id,
                 (unsigned long)atf_index_reader_header(t->index)->thread_id);
        zone_view *z = zone_named(v, zname);
        /* Every call is a scope, in order, named by its symbol. */
        size_t calls = 0, exc = 0;
        for (uint64_t seq = 0; seq < atf_index_reader_count(t->index); seq++) {
            atf_index_event ev;
            assert_int_equal(atf_index_reader_get(t->index, seq, &ev), ATF_OK);
            if (seq == 0 && ev.timestamp_ns < first)
                first = ev.timestamp_ns;
            if (ev.event_kind == ATF_EVENT_EXCEPTION)
                exc++;
            if (ev.event_kind != ATF_EVENT_CALL)
                continue;
            const char *sym = atf_manifest_symbol_name(m, ev.function_id);
            assert_non_null(sym);
            assert_true(calls < z->enters);
            assert_string_equal(z->enter_names[calls], sym);
            calls++;
        }
        assert_int_equal(z->enters, calls);
        assert_int_equal(z->exceptions, exc);
        assert_int_equal(z->appends[A_SYMBOL], 0);   /* the demo's symbols are names WTF keeps */
        exceptions += exc;
        unclosed += z->appends[A_UNCLOSED];
        details += z->appends[A_DETAIL] + z->appends[A_RET_DETAIL] + z->exception_details;
    }
    atf_session_close(ses);
    assert_int_equal(exceptions, s.slices.instants);
    assert_int_equal(unclosed, s.slices.unclosed);
    assert_true(unclosed > 0);   /* the demo ends inside calls */
    assert_int_equal(details, s.details);
    assert_true(details > 0);
    /* The timebase: 1 us before the first event's millisecond (no time is 0). */
    assert_true(v->timebase == (double)(first / 1000000u) - 0.001);
    zone_view *anchors = zone_named(v, "pid_321 timing anchors");
    assert_int_equal(anchors->marks, 1);
    free_view(v);
}

/* A session of 3 h 20 min: three files, scopes cut at each boundary. */
static void test_long_session_is_split(void **state)
{
    fixture *f = *state;
    const uint64_t t0 = 5000123456ull;   /* 5.000123456 s */
    const spec_event a[] = {
        { t0, 1, ATF_EVENT_CALL },                        /* A */
        { t0 + 1000000, 2, ATF_EVENT_CALL },              /* B, 1 ms later */
        { t0 + 100 * MIN_NS, 2, ATF_EVENT_RETURN },       /* B returns in the second file */
        { t0 + 150 * MIN_NS, 3, ATF_EVENT_EXCEPTION },    /* not on the stack: an instance only */
        { t0 + 200 * MIN_NS, 1, ATF_EVENT_RETURN },       /* A returns in the third */
    };
    const spec_event b[] = {
        { t0 + 80 * MIN_NS, 4, ATF_EVENT_CALL },
        { t0 + 81 * MIN_NS, 4, ATF_EVENT_RETURN },
    };
    const spec_thread th[] = { { 5, a, 5 }, { 6, b, 2 } };
    const atf_manifest_symbol sym[] = { { 1, 0, 0, "alpha" }, { 2, 0, 1, "beta" }, { 3, 0, 2, "gamma" },
                                        { 4, 0, 3, "delta" } };
    const atf_timing_anchor anc = { t0 + 30 * MIN_NS, 90, 1 };
    char dir[4300], out[4300], part[4400];
    snprintf(dir, sizeof dir, "%s/pid_9", f->dir);
    snprintf(out, sizeof out, "%s/long.wtf-trace", f->dir);
    write_session(dir, th, 2, sym, 4, &anc, 1);
    atf_export_stats s;
    atf_error err;
    assert_int_equal(atf_export_file(out, ATF_EXPORT_WTF, dir, NULL, &s, &err), ATF_OK);
    assert_int_equal(s.files, 3);
    assert_int_equal(s.wtf_parts, 7);
    assert_int_equal(s.file_cuts, 3);   /* A and B at the first boundary, A at the second */
    assert_int_equal(s.clamped, 0);
    assert_int_equal(s.slices.unclosed, 0);

    const uint64_t base_ms = t0 / 1000000u;
    file_view *p[3];
    for (unsigned k = 0; k < 3; k++) {
        assert_int_equal(atf_export_wtf_part_path(part, sizeof part, out, k), 0);
        if (k)
            assert_non_null(strstr(part, k == 1 ? "/long.part2.wtf-trace" : "/long.part3.wtf-trace"));
        p[k] = read_wtf(part);
        assert_balanced(p[k]);
        assert_true(p[k]->timebase == (double)(base_ms + k * (uint64_t)ATF_EXPORT_WTF_SPAN_MS) - 0.001);
    }
    assert_int_equal(atf_export_wtf_part_path(part, sizeof part, out, 3), 0);
    assert_false(exists(part));

    zone_view *z0 = zone_named(p[0], "pid_9 thread_5 (os tid 7005)");
    assert_int_equal(z0->enters, 2);
    assert_string_equal(z0->enter_names[0], "alpha");
    assert_string_equal(z0->enter_names[1], "beta");
    assert_int_equal(z0->enter_times[0], 124);      /* us after the timebase, 4999.999 ms */
    assert_int_equal(z0->enter_times[1], 1124);
    assert_int_equal(z0->appends[A_CLIPPED_END], 2);   /* both cut at the end */
    assert_int_equal(z0->appends[A_CLIPPED_BEGIN], 0);
    assert_int_equal(z0->last_time, SPAN_US);
    assert_int_equal(zone_named(p[0], "pid_9 timing anchors")->marks, 1);
    assert_int_equal(p[0]->nzones, 2);              /* thread 6 has nothing before 80 min */

    zone_view *z1 = zone_named(p[1], "pid_9 thread_5 (os tid 7005)");
    assert_int_equal(z1->enters, 2);                /* begun again at the start */
    assert_int_equal(z1->enter_times[0], 1);
    assert_int_equal(z1->enter_times[1], 1);
    assert_int_equal(z1->appends[A_CLIPPED_BEGIN], 2);   /* A, B begun again */
    assert_int_equal(z1->appends[A_CLIPPED_END], 1);     /* A cut at the end */
    zone_view *z6 = zone_named(p[1], "pid_9 thread_6 (os tid 7006)");
    assert_int_equal(z6->enters, 1);
    assert_string_equal(z6->enter_names[0], "delta");
    assert_int_equal(z6->enter_times[0], (uint32_t)((124 + 80 * 60000000ull) - SPAN_US));

    zone_view *z2 = zone_named(p[2], "pid_9 thread_5 (os tid 7005)");
    assert_int_equal(z2->enters, 1);
    assert_string_equal(z2->enter_names[0], "alpha");
    assert_int_equal(z2->exceptions, 1);
    assert_string_equal(z2->exception_fns[0], "gamma");
    assert_int_equal(z2->last_time, (uint32_t)(124 + 200 * 60000000ull - 2 * SPAN_US));
    for (unsigned k = 0; k < 3; k++)
        free_view(p[k]);

    /* A window inside the second file's span: one file, its timebase the window's start. */
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.window = 1;
    o.from_ns = t0 + 90 * MIN_NS;
    o.to_ns = t0 + 120 * MIN_NS;
    char w[4400];
    snprintf(w, sizeof w, "%s/window.wtf-trace", f->dir);
    assert_int_equal(atf_export_file(w, ATF_EXPORT_WTF, dir, &o, &s, &err), ATF_OK);
    assert_int_equal(s.files, 1);
    file_view *wv = read_wtf(w);
    assert_balanced(wv);
    assert_true(wv->timebase == (double)(o.from_ns / 1000000u) - 0.001);
    zone_view *zw = zone_named(wv, "pid_9 thread_5 (os tid 7005)");
    assert_int_equal(zw->enters, 2);                /* A and B, open at the window's start */
    assert_int_equal(zw->enter_times[0], 124);     /* at the window's start, 123 us into its ms */
    assert_int_equal(zw->appends[A_CLIPPED_BEGIN], 2);   /* both begun at the window's start */
    assert_int_equal(zw->appends[A_CLIPPED_END], 1);     /* A cut at its end */
    assert_int_equal(zone_named(wv, "pid_9 thread_6 (os tid 7006)")->enters, 0);
    free_view(wv);
}

/* Deeper than the reference reader's 1023 open scopes; a time far past
 * 64 files (a damaged timestamp) is clamped, not thousands of files. */
static void test_depth_limit_and_clamp(void **state)
{
    fixture *f = *state;
    enum { DEEP = 1100 };
    spec_event *ev = calloc(2 * DEEP, sizeof *ev);
    assert_non_null(ev);
    for (uint64_t i = 0; i < DEEP; i++) {
        ev[i] = (spec_event){ 1000000000ull + i * 1000, 100 + i, ATF_EVENT_CALL };
        ev[2 * DEEP - 1 - i] = (spec_event){ 1000000000ull + (2 * DEEP - 1 - i) * 1000, 100 + i, ATF_EVENT_RETURN };
    }
    const spec_event far[] = { { 1000000000ull, 7, ATF_EVENT_CALL }, { 1ull << 62, 7, ATF_EVENT_RETURN } };
    char dir[4300], out[4300];
    snprintf(dir, sizeof dir, "%s/pid_10", f->dir);
    snprintf(out, sizeof out, "%s/deep.wtf-trace", f->dir);
    const spec_thread th[] = { { 0, ev, 2 * DEEP } };
    write_session(dir, th, 1, NULL, 0, NULL, 0);
    atf_export_stats s;
    atf_error err;
    assert_int_equal(atf_export_file(out, ATF_EXPORT_WTF, dir, NULL, &s, &err), ATF_OK);
    assert_int_equal(s.too_deep_for_format, DEEP - ATF_EXPORT_WTF_MAX_DEPTH);
    assert_int_equal(s.slices.max_depth, DEEP);
    file_view *v = read_wtf(out);
    assert_balanced(v);
    assert_int_equal(v->zones[0].max_depth, ATF_EXPORT_WTF_MAX_DEPTH);
    assert_string_equal(v->zones[0].enter_names[0], "0x0000000000000064");   /* no symbol: the hex id */
    free_view(v);
    free(ev);

    snprintf(dir, sizeof dir, "%s/pid_11", f->dir);
    snprintf(out, sizeof out, "%s/far.wtf-trace", f->dir);
    const spec_thread th2[] = { { 0, far, 2 } };
    write_session(dir, th2, 1, NULL, 0, NULL, 0);
    assert_int_equal(atf_export_file(out, ATF_EXPORT_WTF, dir, NULL, &s, &err), ATF_OK);
    assert_int_equal(s.files, ATF_EXPORT_WTF_MAX_FILES);
    assert_int_equal(s.clamped, 1);
    assert_int_equal(s.file_cuts, ATF_EXPORT_WTF_MAX_FILES - 1);
    char part[4400];
    assert_int_equal(atf_export_wtf_part_path(part, sizeof part, out, ATF_EXPORT_WTF_MAX_FILES - 1), 0);
    v = read_wtf(part);
    assert_balanced(v);
    assert_int_equal(v->zones[0].last_time, SPAN_US);
    free_view(v);
}

/* Symbols the reference reader would mangle (or refuse the file for) are
 * made names it keeps; the symbol itself is scope data and the exception's
 * argument. */
static void test_scope_names(void **state)
{
    fixture *f = *state;
    const spec_event e[] = {
        { 2000000, 1, ATF_EVENT_CALL },  { 2000100, 1, ATF_EVENT_RETURN },  { 2000200, 2, ATF_EVENT_CALL },
        { 2000300, 2, ATF_EVENT_EXCEPTION }, { 2000400, 3, ATF_EVENT_CALL }, { 2000500, 3, ATF_EVENT_RETURN },
    };
    const atf_manifest_symbol sym[] = { { 1, 0, 0, "ns::Foo<int>::bar(int, char*)" }, { 2, 0, 1, "main()" },
                                        { 3, 0, 2, "wtf.scope#leave" } };
    char dir[4300], out[4300];
    snprintf(dir, sizeof dir, "%s/pid_12", f->dir);
    snprintf(out, sizeof out, "%s/names.wtf-trace", f->dir);
    const spec_thread th[] = { { 0, e, 6 } };
    write_session(dir, th, 1, sym, 3, NULL, 0);
    atf_export_stats s;
    atf_error err;
    assert_int_equal(atf_export_file(out, ATF_EXPORT_WTF, dir, NULL, &s, &err), ATF_OK);
    file_view *v = read_wtf(out);
    assert_balanced(v);
    zone_view *z = &v->zones[0];
    assert_int_equal(z->enters, 3);
    assert_string_equal(z->enter_names[0], "ns::Foo_int_::bar_int__char__");
    assert_string_equal(z->enter_names[1], "main__");
    assert_string_equal(z->enter_names[2], "wtf.scope_leave");
    assert_int_equal(z->nsymbols, 3);
    assert_string_equal(z->symbols[0], "\"ns::Foo<int>::bar(int, char*)\"");
    assert_string_equal(z->symbols[1], "\"main()\"");
    assert_int_equal(z->exceptions, 1);
    assert_string_equal(z->exception_fns[0], "main()");
    assert_int_equal(z->appends[A_EXCEPTION], 1);   /* main() left by its exception */
    free_view(v);
}

static void test_files_and_errors(void **state)
{
    fixture *f = *state;
    char buf[64];
    assert_int_equal(atf_export_wtf_part_path(buf, sizeof buf, "a/t.wtf-trace", 0), 0);
    assert_string_equal(buf, "a/t.wtf-trace");
    assert_int_equal(atf_export_wtf_part_path(buf, sizeof buf, "a/t.wtf-trace", 1), 0);
    assert_string_equal(buf, "a/t.part2.wtf-trace");
    assert_int_equal(atf_export_wtf_part_path(buf, sizeof buf, "t.bin", 9), 0);
    assert_string_equal(buf, "t.bin.part10.wtf-trace");
    assert_int_equal(atf_export_wtf_part_path(buf, 8, "a/t.wtf-trace", 1), -1);

    atf_export_stats s;
    atf_error err;
    char bad[4400];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.wtf-trace", f->dir);
    assert_int_equal(atf_export_file(bad, ATF_EXPORT_WTF, f->session, NULL, &s, &err), ATF_E_IO);
    assert_non_null(strstr(err.message, "cannot create"));
    assert_int_equal(atf_export_file(NULL, ATF_EXPORT_WTF, f->session, NULL, &s, &err), ATF_E_ARG);
    /* WTF goes to files (a long session takes several): atf_export() to a
     * stream is an argument error that names atf_export_file(). */
    FILE *null = fopen("/dev/null", "w");
    assert_non_null(null);
    assert_int_equal(atf_export(null, ATF_EXPORT_WTF, f->session, NULL, &s, &err), ATF_E_ARG);
    assert_non_null(strstr(err.message, "atf_export_file"));
    fclose(null);
    assert_int_equal(atf_export_format_parse("wtf"), ATF_EXPORT_WTF);
    /* The other formats through atf_export_file too. */
    char pf[4400];
    snprintf(pf, sizeof pf, "%s/x.pftrace", f->dir);
    assert_int_equal(atf_export_file(pf, ATF_EXPORT_PERFETTO, f->session, NULL, &s, &err), ATF_OK);
    assert_int_equal(s.files, 1);
    struct stat st;
    assert_int_equal(stat(pf, &st), 0);
    assert_int_equal((uint64_t)st.st_size, s.bytes);

    /* A part left by an earlier, longer export is named on diag. */
    char stale[4400], out[4400];
    snprintf(out, sizeof out, "%s/again.wtf-trace", f->dir);
    assert_int_equal(atf_export_wtf_part_path(stale, sizeof stale, out, 1), 0);
    FILE *sf = fopen(stale, "w");
    assert_non_null(sf);
    fclose(sf);
    char *text = NULL;
    size_t len = 0;
    FILE *diag = open_memstream(&text, &len);
    assert_non_null(diag);
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.diag = diag;
    assert_int_equal(atf_export_file(out, ATF_EXPORT_WTF, f->session, &o, &s, &err), ATF_OK);
    fclose(diag);
    assert_non_null(strstr(text, "again.part2.wtf-trace is not from this export"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo_session),
        cmocka_unit_test(test_long_session_is_split),
        cmocka_unit_test(test_depth_limit_and_clamp),
        cmocka_unit_test(test_scope_names),
        cmocka_unit_test(test_files_and_errors),
    };
    return cmocka_run_group_tests(tests, export_setup, export_teardown);
}
