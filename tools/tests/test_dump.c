/* Tests for dump.c: atf_path_detect, the canonical JSON dump (checked line
 * by line against lines built here from docs/dump-format.md), the text
 * dump, atf_tool_merge and atf_tool_info (including a crash-truncated file). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/session.h>
#include <atf/tools.h>
#include <atf/writer.h>

#include "session_test_util.h"

/* ---- A small JSON-line builder (the expectation side) ------------------- */

typedef struct jb {
    char s[8192];
    size_t n;
    int first;
} jb;

#if defined(__GNUC__)
#define JB_PRINTF __attribute__((format(printf, 2, 3)))
#else
#define JB_PRINTF
#endif
static void jb_raw(jb *b, const char *fmt, ...) JB_PRINTF;

static void jb_raw(jb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    assert_true(k >= 0 && (size_t)k < sizeof b->s - b->n);
    b->n += (size_t)k;
}

static void jb_open(jb *b)
{
    b->n = 0;
    b->s[0] = '\0';
    b->first = 1;
    jb_raw(b, "{");
}

static void jb_key(jb *b, const char *k)
{
    jb_raw(b, "%s\"%s\":", b->first ? "" : ",", k);
    b->first = 0;
}

static void jb_u64(jb *b, const char *k, uint64_t v)
{
    jb_key(b, k);
    jb_raw(b, "%" PRIu64, v);
}

static void jb_null(jb *b, const char *k)
{
    jb_key(b, k);
    jb_raw(b, "null");
}

/* v is already a JSON string literal, quotes and escapes included. */
static void jb_lit(jb *b, const char *k, const char *v)
{
    jb_key(b, k);
    jb_raw(b, "%s", v);
}

static void jb_hex(jb *b, const char *k, const uint8_t *p, size_t n)
{
    jb_key(b, k);
    jb_raw(b, "\"");
    for (size_t i = 0; i < n; i++)
        jb_raw(b, "%02x", p[i]);
    jb_raw(b, "\"");
}

static void jb_close(jb *b)
{
    jb_raw(b, "}");
}

/* ---- The session under test --------------------------------------------- */

/* Thread 0 (with a detail lane) and thread 5 (without). Detail kinds: */
enum { D_NONE, D_ARM64, D_ABC, D_EMPTY, D_ARM64_BADLEN, D_ARM64_TYPE6, D_DANGLING };

typedef struct spec_event {
    uint64_t ts, fn;
    uint32_t kind;
    int detail;
} spec_event;

static const spec_event thread0[] = {
    { 100, 1, 1, D_ARM64 },          { 110, 2, 2, D_NONE },          { 120, 3, 3, D_ABC },
    { 130, UINT64_MAX, 2, D_EMPTY }, { 140, 1, 1, D_ARM64_BADLEN },  { 150, 1, 2, D_ARM64_TYPE6 },
    { 160, 7, 1, D_DANGLING },
};
#define N0 (sizeof thread0 / sizeof thread0[0])
static const spec_event thread5[] = { { 105, 1, 1, D_NONE } };

/* The symbols of functions 2 and 7 need escaping (non-ASCII as json.dumps
 * prints it by default: \uXXXX, surrogate pairs above U+FFFF); function 3
 * has none. */
#define SYM1_JSON "\"main\""
#define SYM2_NAME "we\"ird\\na\nme\x01\x1f/"
#define SYM2_JSON "\"we\\\"ird\\\\na\\nme\\u0001\\u001f/\""
#define SYM7_NAME "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"
#define SYM7_JSON "\"caf\\u00e9 \\u20ac \\ud83d\\ude00\""
#define SYMMAX_JSON "\"top\""

typedef struct payload {
    uint16_t type, flags;
    uint8_t bytes[160];
    uint32_t size;
    int arm64;                 /* the dump shows an arm64 object */
    atf_arm64_payload a;
} payload;

static void make_arm64(payload *p, uint64_t fn)
{
    memset(&p->a, 0, sizeof p->a);
    p->a.function_id = fn;
    for (int i = 0; i < 8; i++)
        p->a.x[i] = 0x1111ull * (uint64_t)(i + 1) + (i == 7 ? 0xF000000000000000ull : 0);
    p->a.lr = 0x100000f00ull;
    p->a.fp = 0x16fdff000ull;
    p->a.sp = 0x16fdfef80ull;
    p->a.stack_size = 4;
    static const uint8_t stack[4] = { 0xde, 0xad, 0xbe, 0xef };
    p->a.stack = stack;
    p->size = (uint32_t)atf_arm64_payload_encode(p->bytes, sizeof p->bytes, &p->a);
    assert_int_equal(p->size, 104);
}

/* The detail payload of a thread-0 event, or 0 if it has none. */
static int payload_of(const spec_event *e, payload *p)
{
    memset(p, 0, sizeof *p);
    switch (e->detail) {
    case D_ARM64:
        make_arm64(p, e->fn);
        p->type = 3;
        p->arm64 = 1;
        return 1;
    case D_ABC:
        p->type = 5;
        p->flags = 0x8001;
        memcpy(p->bytes, "abc", 3);
        p->size = 3;
        return 1;
    case D_EMPTY:
        p->type = 4;
        return 1;
    case D_ARM64_BADLEN: /* stack_size 8, but only 4 stack bytes */
        make_arm64(p, e->fn);
        p->bytes[96] = 8;
        p->type = 3;
        return 1;
    case D_ARM64_TYPE6: /* the right shape, but not a function event */
        make_arm64(p, e->fn);
        p->type = 6;
        return 1;
    default:
        return 0;
    }
}

/* symbols: 0 none, 1 all, 2 only the plain ASCII ones (main, top). */
static void write_session(const char *dir, atf_layout layout, uint8_t arch, int symbols)
{
    atf_writer_options o = tu_writer_options(layout);
    o.arch = arch;
    atf_session_writer *sw;
    atf_thread_writer *t0, *t5;
    atf_error err;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, &err), ATF_OK);
    if (symbols) {
        atf_manifest_symbol s1 = { 1, 0, 0, "main" }, s2 = { 2, 0, 1, SYM2_NAME }, s3 = { UINT64_MAX, 0, 2, "top" },
                            s7 = { 7, 0, 3, SYM7_NAME };
        assert_int_equal(atf_session_writer_add_symbol(sw, &s1), ATF_OK);
        assert_int_equal(atf_session_writer_add_symbol(sw, &s3), ATF_OK);
        if (symbols == 1) {
            assert_int_equal(atf_session_writer_add_symbol(sw, &s2), ATF_OK);
            assert_int_equal(atf_session_writer_add_symbol(sw, &s7), ATF_OK);
        }
    }
    assert_int_equal(atf_session_writer_add_thread(sw, 5, 1005, 0, &t5, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 0, 1000, 1, &t0, &err), ATF_OK);
    for (size_t i = 0; i < N0; i++) {
        const spec_event *e = &thread0[i];
        atf_index_event ev = { .timestamp_ns = e->ts, .function_id = e->fn, .event_kind = e->kind,
                               .thread_id = 1000, .call_depth = (uint32_t)i };
        payload p;
        if (e->detail == D_DANGLING) {
            ev.detail_seq = 99; /* past the detail file */
            assert_int_equal(atf_index_writer_append(atf_thread_writer_index(t0), &ev), ATF_OK);
        } else if (payload_of(e, &p)) {
            atf_detail_event d = { .event_type = p.type, .flags = p.flags, .thread_id = 2000 + (uint32_t)i,
                                   .timestamp = e->ts + 1, .payload = p.bytes, .payload_size = p.size };
            assert_int_equal(atf_thread_writer_append(t0, &ev, &d, NULL), ATF_OK);
        } else {
            assert_int_equal(atf_thread_writer_append(t0, &ev, NULL, NULL), ATF_OK);
        }
    }
    atf_index_event ev = { .timestamp_ns = thread5[0].ts, .function_id = thread5[0].fn,
                           .event_kind = thread5[0].kind, .thread_id = 1005, .call_depth = 9 };
    assert_int_equal(atf_thread_writer_append(t5, &ev, NULL, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
}

/* The keys of a detail object, per the table of docs/dump-format.md. */
static void expect_detail_fields(jb *b, atf_layout layout, uint8_t arch, uint64_t dseq, uint64_t offset,
                                 const payload *p, uint64_t index_seq, uint32_t thread_id, uint64_t ts)
{
    jb_u64(b, "detail_seq", dseq);
    jb_u64(b, "offset", offset);
    jb_u64(b, "total_length", 24 + p->size);
    jb_u64(b, "event_type", p->type);
    jb_u64(b, "flags", p->flags);
    jb_u64(b, "index_seq", index_seq);
    if (layout == ATF_LAYOUT_1)
        jb_u64(b, "thread_id", thread_id);
    jb_u64(b, "timestamp", ts);
    jb_hex(b, "payload", p->bytes, p->size);
    if (p->arm64 && arch == ATF_ARCH_ARM64) {
        jb_key(b, "arm64");
        jb_raw(b, "{\"function_id\":%" PRIu64 ",\"x\":[", p->a.function_id);
        for (int i = 0; i < 8; i++)
            jb_raw(b, "%s%" PRIu64, i ? "," : "", p->a.x[i]);
        jb_raw(b, "],\"lr\":%" PRIu64 ",\"fp\":%" PRIu64 ",\"sp\":%" PRIu64 ",\"stack_size\":%u,\"stack\":\"deadbeef\"}",
               p->a.lr, p->a.fp, p->a.sp, (unsigned)p->a.stack_size);
    }
}

/* Expected dump lines: thread 0's events then thread 5's (ascending id).
 * lines[] receives N0 + 1 malloc'd strings. */
static void expected_lines(char **lines, atf_layout layout, uint8_t arch, int symbols, int details)
{
    uint64_t dseq = 0, offset = 64;
    jb b;
    for (size_t i = 0; i <= N0; i++) {
        const spec_event *e = i < N0 ? &thread0[i] : &thread5[0];
        uint64_t tid = i < N0 ? 0 : 5, seq = i < N0 ? i : 0;
        payload p;
        int has = i < N0 && payload_of(e, &p);
        jb_open(&b);
        jb_u64(&b, "thread", tid);
        jb_u64(&b, "seq", seq);
        jb_u64(&b, "timestamp_ns", e->ts);
        jb_u64(&b, "function_id", e->fn);
        jb_u64(&b, "event_kind", e->kind);
        if (has)
            jb_u64(&b, "detail_seq", dseq);
        else if (i < N0 && e->detail == D_DANGLING)
            jb_u64(&b, "detail_seq", 99);
        else
            jb_null(&b, "detail_seq");
        if (layout == ATF_LAYOUT_1) {
            jb_u64(&b, "thread_id", i < N0 ? 1000 : 1005);
            jb_u64(&b, "call_depth", i < N0 ? i : 9);
        }
        if (symbols) {
            if (e->fn == 1)
                jb_lit(&b, "symbol", SYM1_JSON);
            else if (e->fn == 2)
                jb_lit(&b, "symbol", SYM2_JSON);
            else if (e->fn == 7)
                jb_lit(&b, "symbol", SYM7_JSON);
            else if (e->fn == UINT64_MAX)
                jb_lit(&b, "symbol", SYMMAX_JSON);
        }
        if (has && details) {
            jb_key(&b, "detail");
            jb_raw(&b, "{");
            b.first = 1;
            expect_detail_fields(&b, layout, arch, dseq, offset, &p, seq, 2000 + (uint32_t)i, e->ts + 1);
            jb_raw(&b, "}");
            b.first = 0;
        }
        jb_close(&b);
        lines[i] = strdup(b.s);
        assert_non_null(lines[i]);
        if (has) {
            dseq++;
            offset += 24 + p.size;
        }
    }
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
}

/* Runs a tool into a string. */
typedef atf_status (*tool_fn)(FILE *, const char *, const atf_tool_options *, atf_error *);

static char *run_tool(tool_fn fn, const char *path, unsigned json, atf_status want)
{
    tu_capture c;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.json = json;
    atf_error err;
    atf_status st = fn(tu_capture_begin(&c), path, &o, &err);
    tu_capture_end(&c);
    if (st != want)
        fail_msg("%s: got %s (%s), want %s", path, atf_status_name(st), st ? err.message : "", atf_status_name(want));
    return c.buf;
}

static void assert_lines(char *out, char **want, size_t nwant)
{
    char **got;
    size_t n = tu_split_lines(out, &got);
    for (size_t i = 0; i < n && i < nwant; i++)
        if (strcmp(got[i], want[i]) != 0)
            fail_msg("line %zu:\n got: %s\nwant: %s", i, got[i], want[i]);
    assert_int_equal(n, nwant);
    free(got);
}

static void json_dump_case(atf_layout layout, uint8_t arch)
{
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "dump");
    write_session(dir, layout, arch, 1);
    char *want[N0 + 1];
    expected_lines(want, layout, arch, 1, 1);
    char *out = run_tool(atf_tool_dump, dir, 1, ATF_OK);
    /* Byte-exact: every line ends in '\n', nothing else is printed. */
    size_t total = 0;
    for (size_t i = 0; i <= N0; i++)
        total += strlen(want[i]) + 1;
    assert_int_equal(strlen(out), total);
    assert_lines(out, want, N0 + 1);
    free(out);
    free_lines(want, N0 + 1);
    cf_rm_rf(dir);
}

static void test_json_layout2_arm64(void **state)
{
    (void)state;
    json_dump_case(ATF_LAYOUT_2, ATF_ARCH_ARM64);
}

static void test_json_layout1_arm64(void **state)
{
    (void)state;
    json_dump_case(ATF_LAYOUT_1, ATF_ARCH_ARM64);
}

/* x86_64 detail files never get an arm64 object. */
static void test_json_x86_64_has_no_arm64_object(void **state)
{
    (void)state;
    json_dump_case(ATF_LAYOUT_2, ATF_ARCH_X86_64);
    json_dump_case(ATF_LAYOUT_1, ATF_ARCH_X86_64);
}

/* A few lines written out literally, as a check of the builder itself. */
static void test_json_literal_lines(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "dump");
    write_session(dir, ATF_LAYOUT_1, ATF_ARCH_ARM64, 1);
    char *out = run_tool(atf_tool_dump, dir, 1, ATF_OK);
    char **got;
    size_t n = tu_split_lines(out, &got);
    assert_int_equal(n, N0 + 1);
    assert_string_equal(got[1], "{\"thread\":0,\"seq\":1,\"timestamp_ns\":110,\"function_id\":2,\"event_kind\":2,"
                                "\"detail_seq\":null,\"thread_id\":1000,\"call_depth\":1,"
                                "\"symbol\":\"we\\\"ird\\\\na\\nme\\u0001\\u001f/\"}");
    assert_string_equal(got[2], "{\"thread\":0,\"seq\":2,\"timestamp_ns\":120,\"function_id\":3,\"event_kind\":3,"
                                "\"detail_seq\":1,\"thread_id\":1000,\"call_depth\":2,"
                                "\"detail\":{\"detail_seq\":1,\"offset\":192,\"total_length\":27,\"event_type\":5,"
                                "\"flags\":32769,\"index_seq\":2,\"thread_id\":2002,\"timestamp\":121,"
                                "\"payload\":\"616263\"}}");
    assert_string_equal(got[3], "{\"thread\":0,\"seq\":3,\"timestamp_ns\":130,\"function_id\":18446744073709551615,"
                                "\"event_kind\":2,\"detail_seq\":2,\"thread_id\":1000,\"call_depth\":3,"
                                "\"symbol\":\"top\",\"detail\":{\"detail_seq\":2,\"offset\":219,\"total_length\":24,"
                                "\"event_type\":4,\"flags\":0,\"index_seq\":3,\"thread_id\":2003,\"timestamp\":131,"
                                "\"payload\":\"\"}}");
    assert_string_equal(got[6], "{\"thread\":0,\"seq\":6,\"timestamp_ns\":160,\"function_id\":7,\"event_kind\":1,"
                                "\"detail_seq\":99,\"thread_id\":1000,\"call_depth\":6,"
                                "\"symbol\":\"caf\\u00e9 \\u20ac \\ud83d\\ude00\"}");
    assert_string_equal(got[7], "{\"thread\":5,\"seq\":0,\"timestamp_ns\":105,\"function_id\":1,\"event_kind\":1,"
                                "\"detail_seq\":null,\"thread_id\":1005,\"call_depth\":9,\"symbol\":\"main\"}");
    free(got);
    free(out);
    cf_rm_rf(dir);
}

/* Without symbols in the manifest there is no symbol key. */
static void test_json_without_symbols(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "dump");
    write_session(dir, ATF_LAYOUT_2, ATF_ARCH_ARM64, 0);
    char *want[N0 + 1];
    expected_lines(want, ATF_LAYOUT_2, ATF_ARCH_ARM64, 0, 1);
    char *out = run_tool(atf_tool_dump, dir, 1, ATF_OK);
    assert_null(strstr(out, "\"symbol\""));
    assert_lines(out, want, N0 + 1);
    free(out);
    free_lines(want, N0 + 1);
    cf_rm_rf(dir);
}

/* A thread directory dumps that thread, with symbols from the manifest of
 * the session it is in; an index file names its thread by its directory; a
 * detail file alone gives one line per detail event. */
static void test_json_thread_and_files(void **state)
{
    (void)state;
    char dir[64], p[160], q[160];
    cf_mkdtemp(dir, sizeof dir, "dump");
    write_session(dir, ATF_LAYOUT_2, ATF_ARCH_ARM64, 1);
    char *want[N0 + 1];
    expected_lines(want, ATF_LAYOUT_2, ATF_ARCH_ARM64, 1, 1);

    char *out = run_tool(atf_tool_dump, tu_path(p, sizeof p, "%s/thread_0", dir), 1, ATF_OK);
    assert_lines(out, want, N0);
    free(out);
    /* A trailing slash changes nothing. */
    out = run_tool(atf_tool_dump, tu_path(p, sizeof p, "%s/thread_0/", dir), 1, ATF_OK);
    assert_lines(out, want, N0);
    free(out);

    /* The index file alone: same thread and seq, same index keys. */
    out = run_tool(atf_tool_dump, tu_path(p, sizeof p, "%s/thread_0/index.atf", dir), 1, ATF_OK);
    char **got;
    size_t n = tu_split_lines(out, &got);
    assert_int_equal(n, N0);
    for (size_t i = 0; i < n; i++) {
        const char *cut = strstr(want[i], ",\"detail\":");
        size_t len = cut ? (size_t)(cut - want[i]) : strlen(want[i]) - 1;
        assert_memory_equal(got[i], want[i], len);
    }
    free(got);
    free(out);

    /* An index file outside thread_K/: the header's thread_id. */
    tu_copy_file(tu_path(q, sizeof q, "%s/lone.atf", dir), tu_path(p, sizeof p, "%s/thread_5/index.atf", dir));
    out = run_tool(atf_tool_dump, q, 1, ATF_OK);
    assert_string_equal(out, "{\"thread\":1005,\"seq\":0,\"timestamp_ns\":105,\"function_id\":1,\"event_kind\":1,"
                             "\"detail_seq\":null}\n");
    free(out);

    /* The detail file alone. */
    out = run_tool(atf_tool_dump, tu_path(p, sizeof p, "%s/thread_0/detail.atf", dir), 1, ATF_OK);
    n = tu_split_lines(out, &got);
    uint64_t dseq = 0, offset = 64;
    for (size_t i = 0; i < N0; i++) {
        payload pl;
        if (!payload_of(&thread0[i], &pl))
            continue;
        jb b;
        jb_open(&b);
        jb_u64(&b, "thread", 0);
        expect_detail_fields(&b, ATF_LAYOUT_2, ATF_ARCH_ARM64, dseq, offset, &pl, i, 0, thread0[i].ts + 1);
        jb_close(&b);
        assert_true(dseq < n);
        assert_string_equal(got[dseq], b.s);
        dseq++;
        offset += 24 + pl.size;
    }
    assert_int_equal(n, dseq);
    free(got);
    free(out);
    free_lines(want, N0 + 1);
    cf_rm_rf(dir);
}

/* The text dump mentions every event once, in dump order, with symbols. */
static void test_text_mentions_every_event(void **state)
{
    (void)state;
    char dir[64];
    cf_mkdtemp(dir, sizeof dir, "dump");
    write_session(dir, ATF_LAYOUT_1, ATF_ARCH_ARM64, 2);
    char *out = run_tool(atf_tool_dump, dir, 0, ATF_OK);
    char **got;
    size_t n = tu_split_lines(out, &got);
    assert_int_equal(n, N0 + 1);
    for (size_t i = 0; i <= N0; i++) {
        char head[64];
        snprintf(head, sizeof head, "thread %d #%zu t=%" PRIu64 " ", i < N0 ? 0 : 5, i < N0 ? i : 0,
                 i < N0 ? thread0[i].ts : thread5[0].ts);
        if (strncmp(got[i], head, strlen(head)) != 0)
            fail_msg("line %zu: %s\nwant prefix: %s", i, got[i], head);
    }
    assert_non_null(strstr(got[0], " \"main\""));
    assert_non_null(strstr(got[0], "detail=0"));
    assert_null(strstr(got[1], "detail="));
    assert_non_null(strstr(got[6], "detail=99 [missing]"));
    assert_non_null(strstr(got[3], "fn=0xffffffffffffffff"));
    free(got);
    free(out);
    cf_rm_rf(dir);
}

/* merge prints the dump's lines in (timestamp, thread, seq) order. */
static void test_merge_tool(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "dump");
    write_session(dir, ATF_LAYOUT_2, ATF_ARCH_ARM64, 1);
    char *want[N0 + 1];
    expected_lines(want, ATF_LAYOUT_2, ATF_ARCH_ARM64, 1, 1);
    /* thread 5's only event (t=105) falls between thread 0's first two. */
    char *ordered[N0 + 1] = { want[0], want[N0] };
    for (size_t i = 1; i < N0; i++)
        ordered[i + 1] = want[i];
    char *out = run_tool(atf_tool_merge, dir, 1, ATF_OK);
    assert_lines(out, ordered, N0 + 1);
    free(out);

    out = run_tool(atf_tool_merge, dir, 0, ATF_OK);
    char **got;
    size_t n = tu_split_lines(out, &got), events = 0;
    for (size_t i = 0; i < n; i++)
        events += strncmp(got[i], "thread ", 7) == 0;
    assert_int_equal(events, N0 + 1);
    assert_true(strncmp(got[0], "thread 0 #0 t=100 ", 18) == 0);
    assert_true(strncmp(got[1], "thread 5 #0 t=105 ", 18) == 0);
    assert_true(strncmp(got[2], "thread 0 #1 t=110 ", 18) == 0);
    free(got);
    free(out);

    /* merge needs a session. */
    out = run_tool(atf_tool_merge, tu_path(p, sizeof p, "%s/thread_0", dir), 1, ATF_E_ARG);
    assert_string_equal(out, "");
    free(out);
    free_lines(want, N0 + 1);
    cf_rm_rf(dir);
}

/* ---- info ---------------------------------------------------------------- */

static void test_info_crash_truncated(void **state)
{
    (void)state;
    char dir[64], live[160], crashed[160], dcrashed[160], dlive[160];
    cf_mkdtemp(dir, sizeof dir, "dump");
    tu_path(live, sizeof live, "%s/live.atf", dir);
    tu_path(crashed, sizeof crashed, "%s/crashed.atf", dir);
    tu_path(dlive, sizeof dlive, "%s/live_detail.atf", dir);
    tu_path(dcrashed, sizeof dcrashed, "%s/crashed_detail.atf", dir);
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    o.thread_id = 77;
    atf_index_writer *w;
    atf_detail_writer *dw;
    atf_error err;
    assert_int_equal(atf_index_writer_open(&w, live, &o, &err), ATF_OK);
    assert_int_equal(atf_detail_writer_open(&dw, dlive, &o, &err), ATF_OK);
    for (uint64_t i = 0; i < 10; i++) {
        atf_index_event ev = { .timestamp_ns = 1000 + i, .function_id = i, .event_kind = 1 };
        assert_int_equal(atf_index_writer_append(w, &ev), ATF_OK);
        uint8_t pl[5] = { 0 };
        atf_detail_event d = { .event_type = 3, .index_seq = i, .timestamp = 1000 + i, .payload = pl,
                               .payload_size = 5 };
        assert_int_equal(atf_detail_writer_append(dw, &d, NULL), ATF_OK);
    }
    assert_int_equal(atf_index_writer_flush(w), ATF_OK);
    assert_int_equal(atf_detail_writer_flush(dw), ATF_OK);
    /* The crash: what is on disk now, plus 7 bytes of a half-written event. */
    size_t n;
    uint8_t *b = tu_read_file(live, &n);
    assert_int_equal(n, 64 + 10 * 32);
    uint8_t *b2 = realloc(b, n + 7);
    assert_non_null(b2);
    memset(b2 + n, 0xab, 7);
    cf_write_file(crashed, b2, n + 7);
    free(b2);
    b = tu_read_file(dlive, &n);
    assert_int_equal(n, 64 + 10 * 29);
    b2 = realloc(b, n + 11);
    assert_non_null(b2);
    memset(b2 + n, 0, 11);
    cf_write_file(dcrashed, b2, n + 11);
    free(b2);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);
    assert_int_equal(atf_detail_writer_close(dw), ATF_OK);

    char *out = run_tool(atf_tool_info, crashed, 0, ATF_OK);
    assert_non_null(strstr(out, "index "));
    assert_non_null(strstr(out, crashed));
    assert_non_null(strstr(out, "crash-truncated (no footer): 10 complete events recovered, 7 trailing bytes ignored"));
    assert_non_null(strstr(out, "events: 10\n"));
    assert_non_null(strstr(out, "thread_id 77"));
    assert_non_null(strstr(out, "footer_offset 0"));
    free(out);

    out = run_tool(atf_tool_info, dcrashed, 0, ATF_OK);
    assert_non_null(strstr(out, "detail "));
    assert_non_null(strstr(out, "crash-truncated (no footer): 10 complete events recovered, 11 trailing bytes ignored"));
    assert_non_null(strstr(out, "events: 10\n"));
    free(out);

    /* The finalized file has its footer and no recovery line. */
    out = run_tool(atf_tool_info, live, 0, ATF_OK);
    assert_null(strstr(out, "crash-truncated"));
    assert_non_null(strstr(out, "footer @384: event_count 10"));
    assert_non_null(strstr(out, "(crc32c)"));
    assert_non_null(strstr(out, "events: 10\n"));
    free(out);
    cf_rm_rf(dir);
}

static void test_info_session(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "dump");
    write_session(dir, ATF_LAYOUT_2, ATF_ARCH_ARM64, 1);
    char *out = run_tool(atf_tool_info, dir, 0, ATF_OK);
    assert_non_null(strstr(out, "2 thread(s)"));
    assert_non_null(strstr(out, "format_version \"2.1\""));
    assert_non_null(strstr(out, "4 symbol(s)"));
    assert_non_null(strstr(out, "thread 0\n"));
    assert_non_null(strstr(out, "thread 5\n"));
    assert_non_null(strstr(out, "(has_detail_file)"));
    assert_non_null(strstr(out, "events: 7\n"));
    assert_non_null(strstr(out, "events: 1\n"));
    assert_null(strstr(out, "warning"));
    free(out);
    /* Session warnings are shown. */
    assert_int_equal(remove(tu_path(p, sizeof p, "%s/manifest.json", dir)), 0);
    out = run_tool(atf_tool_info, dir, 0, ATF_OK);
    assert_non_null(strstr(out, "warning: "));
    assert_non_null(strstr(out, "no manifest.json"));
    free(out);
    cf_rm_rf(dir);
}

static void test_tool_errors(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "dump");
    atf_error err;
    tu_capture c;
    tu_path(p, sizeof p, "%s/missing", dir);
    assert_int_equal(atf_tool_dump(tu_capture_begin(&c), p, NULL, &err), ATF_E_IO);
    assert_string_equal(tu_capture_end(&c), "");
    tu_capture_free(&c);
    assert_string_equal(err.file, p);

    write_session(dir, ATF_LAYOUT_2, ATF_ARCH_ARM64, 0);
    tu_patch(tu_path(p, sizeof p, "%s/thread_5/index.atf", dir), 5, "\x09", 1); /* version 9 */
    /* The other threads are dumped; the bad file is named on the diagnostic
     * stream and the result says the input was damaged. */
    tu_capture dg;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.diag = tu_capture_begin(&dg);
    assert_int_equal(atf_tool_dump(tu_capture_begin(&c), dir, &o, &err), ATF_E_DAMAGED);
    const char *dumped = tu_capture_end(&c);
    const char *said = tu_capture_end(&dg);
    assert_non_null(strstr(dumped, "thread 0 #0 "));
    assert_null(strstr(dumped, "thread 5 #"));
    assert_non_null(strstr(said, p));
    assert_non_null(strstr(said, "thread 5: none of its events are read"));
    tu_capture_free(&c);
    tu_capture_free(&dg);
    assert_string_equal(err.file, dir);
    assert_int_equal(atf_tool_info(tu_capture_begin(&c), p, NULL, &err), ATF_E_VERSION);
    tu_capture_end(&c);
    tu_capture_free(&c);
    cf_rm_rf(dir);
}

/* A recorder's output root (issue: "atf dump ada_traces/"): every session is
 * read and named; a crash-left thread (the ADA writer's placeholder, no
 * footer) is recovered and reported on the diagnostic stream, exit OK. */
static void test_output_root(void **state)
{
    (void)state;
    char dir[64], a[160], b[160], p[200];
    cf_mkdtemp(dir, sizeof dir, "root");
    tu_path(a, sizeof a, "%s/session_20250101_000000/pid_1", dir);
    tu_path(b, sizeof b, "%s/session_20250101_000001/pid_2", dir);
    write_session(a, ATF_LAYOUT_1, ATF_ARCH_ARM64, 1);
    write_session(b, ATF_LAYOUT_2, ATF_ARCH_X86_64, 0);
    /* b/thread_5: the footer never written, the header the ADA placeholder. */
    tu_path(p, sizeof p, "%s/thread_5/index.atf", b);
    size_t size;
    uint8_t *img = cf_read_file(p, &size);
    memset(img + 24, 0, 40);
    cf_put64(img + 32, 64);
    cf_put64(img + 40, 64);
    cf_write_file(p, img, size - 64);
    free(img);

    tu_capture c, dg;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    atf_error err;
    o.diag = tu_capture_begin(&dg);
    assert_int_equal(atf_tool_dump(tu_capture_begin(&c), dir, &o, &err), ATF_OK);
    const char *out = tu_capture_end(&c), *said = tu_capture_end(&dg);
    char *sa = strstr(out, a), *sb = strstr(out, b);
    assert_non_null(sa);
    assert_non_null(sb);
    assert_true(sa < sb);
    assert_non_null(strstr(out, "== session "));
    assert_non_null(strstr(said, p));
    assert_non_null(strstr(said, "crash-truncated (no footer): "));
    tu_capture_free(&c);
    tu_capture_free(&dg);

    o.json = 1;
    o.diag = NULL;
    char *js = run_tool(atf_tool_merge, dir, 1, ATF_OK);
    assert_non_null(strstr(js, "{\"session\":"));
    free(js);
    char *info = run_tool(atf_tool_info, dir, 0, ATF_OK);
    assert_non_null(strstr(info, "crash-truncated (no footer)"));
    assert_non_null(strstr(info, a));
    assert_non_null(strstr(info, b));
    free(info);
    cf_rm_rf(dir);
}

/* ---- Path detection ------------------------------------------------------ */

static void test_path_detect(void **state)
{
    (void)state;
    char dir[64], p[200], r[256];
    atf_error err;
    cf_mkdtemp(dir, sizeof dir, "dump");
    char sess[128];
    tu_path(sess, sizeof sess, "%s/session_20250101_000000", dir);
    tu_path(p, sizeof p, "%s/pid_77", sess);
    write_session(p, ATF_LAYOUT_2, ATF_ARCH_ARM64, 0);

    assert_int_equal(atf_path_detect(tu_path(p, sizeof p, "%s/pid_77/thread_0/index.atf", sess), r, sizeof r, &err),
                     ATF_PATH_INDEX);
    assert_string_equal(r, p);
    assert_int_equal(atf_path_detect(tu_path(p, sizeof p, "%s/pid_77/thread_0/detail.atf", sess), r, sizeof r, &err),
                     ATF_PATH_DETAIL);
    assert_int_equal(atf_path_detect(tu_path(p, sizeof p, "%s/pid_77/thread_0", sess), r, sizeof r, &err),
                     ATF_PATH_THREAD);
    assert_int_equal(atf_path_detect(tu_path(p, sizeof p, "%s/pid_77", sess), r, sizeof r, &err), ATF_PATH_SESSION);
    assert_string_equal(r, p);
    /* session_X with one pid_N resolves to it; a stray file named pid_* does not count. */
    tu_write_text(tu_path(p, sizeof p, "%s/pid_99", sess), "not a directory");
    assert_int_equal(atf_path_detect(sess, r, sizeof r, &err), ATF_PATH_SESSION);
    assert_string_equal(r, tu_path(p, sizeof p, "%s/pid_77", sess));
    /* ... and the tools accept it. */
    char *out = run_tool(atf_tool_dump, sess, 1, ATF_OK);
    char *want[N0 + 1];
    expected_lines(want, ATF_LAYOUT_2, ATF_ARCH_ARM64, 0, 1);
    assert_lines(out, want, N0 + 1);
    free(out);
    free_lines(want, N0 + 1);

    /* Without a manifest, thread_* directories make a session. */
    assert_int_equal(remove(tu_path(p, sizeof p, "%s/pid_77/manifest.json", sess)), 0);
    assert_int_equal(atf_path_detect(tu_path(p, sizeof p, "%s/pid_77", sess), r, sizeof r, &err), ATF_PATH_SESSION);

    /* Two pid_* directories: a directory of sessions, and so is the root above. */
    tu_mkdir(tu_path(p, sizeof p, "%s/pid_78", sess));
    assert_int_equal(atf_path_detect(sess, r, sizeof r, &err), ATF_PATH_ROOT);
    assert_int_equal(atf_path_detect(dir, r, sizeof r, &err), ATF_PATH_ROOT);
    char **list;
    size_t n;
    assert_int_equal(atf_session_list(dir, &list, &n, &err), ATF_OK);
    assert_int_equal(n, 2);
    assert_string_equal(list[0], tu_path(p, sizeof p, "%s/pid_77", sess));
    assert_string_equal(list[1], tu_path(p, sizeof p, "%s/pid_78", sess));
    atf_session_list_free(list, n);

    /* Nothing recognisable. */
    tu_mkdir(tu_path(p, sizeof p, "%s/empty", dir));
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_UNKNOWN);
    assert_int_equal(err.code, ATF_E_NOT_FOUND);
    tu_write_text(tu_path(p, sizeof p, "%s/text.txt", dir), "hello world");
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_UNKNOWN);
    assert_int_equal(err.code, ATF_E_MAGIC);
    assert_string_equal(err.file, p);
    /* Too short for the magic but the start of an index file's, whatever its
     * name: an index file crash-truncated inside its header, as atf validate
     * reads it (SPEC 7a.12); other short bytes are no ATF file. */
    tu_write_text(tu_path(p, sizeof p, "%s/short", dir), "AT");
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_INDEX);
    tu_write_text(tu_path(p, sizeof p, "%s/empty.atf", dir), "");
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_INDEX);
    tu_write_text(tu_path(p, sizeof p, "%s/short2", dir), "AX");
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_UNKNOWN);
    assert_int_equal(err.code, ATF_E_MAGIC);
    /* A thread_K/ directory holding no file yet is a thread (0 events); any
     * other empty directory is no ATF input. */
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_3", dir));
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_THREAD);
    tu_mkdir(tu_path(p, sizeof p, "%s/thread_x", dir));
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_UNKNOWN);
    assert_int_equal(err.code, ATF_E_NOT_FOUND);
    tu_write_text(tu_path(p, sizeof p, "%s/index.atf", dir), "ATI2"); /* magic only: still an index file */
    assert_int_equal(atf_path_detect(p, r, sizeof r, &err), ATF_PATH_INDEX);
    assert_int_equal(atf_path_detect(tu_path(p, sizeof p, "%s/nope", dir), r, sizeof r, &err), ATF_PATH_UNKNOWN);
    assert_int_equal(err.code, ATF_E_IO);
    assert_int_equal(atf_path_detect(NULL, r, sizeof r, &err), ATF_PATH_UNKNOWN);
    assert_int_equal(err.code, ATF_E_ARG);
    assert_int_equal(atf_path_detect(dir, NULL, 0, &err), ATF_PATH_UNKNOWN);
    cf_rm_rf(dir);
}

/* ---- The dump on several cores ------------------------------------------- */

/* The dump of path with opts and `jobs` formatting threads: its text and status. */
static char *dump_jobs(const char *path, const atf_tool_options *base, unsigned jobs, atf_status *st)
{
    tu_capture c;
    atf_tool_options o = *base;
    o.jobs = jobs;
    atf_error err;
    *st = atf_tool_dump(tu_capture_begin(&c), path, &o, &err);
    tu_capture_end(&c);
    return c.buf;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Every number of jobs gives the text (and the status) of the dump in one
 * thread, which has @lines lines. */
static void assert_jobs_same(const char *path, const atf_tool_options *o, size_t lines)
{
    atf_status want_st, st;
    char *want = dump_jobs(path, o, 1, &want_st);
    size_t n = count_lines(want);
    if (n != lines)
        fail_msg("%s: %zu lines in one thread, want %zu", path, n, lines);
    for (unsigned jobs = 0; jobs <= 5; jobs++) {
        char *got = dump_jobs(path, o, jobs, &st);
        assert_int_equal(st, want_st);
        if (strcmp(got, want) != 0)
            fail_msg("%s: the dump with %u jobs differs from the dump in one thread", path, jobs);
        free(got);
    }
    free(want);
}

/* Sessions of more events than a chunk of the parallel dump (512), in both
 * layouts, JSON and text, whole and filtered (window, threads), with a
 * thread cut by a crash, a thread holding only its detail lane, and a
 * thread whose timestamps go backwards (a window filtered event by event):
 * the same bytes for any number of jobs. */
static void test_dump_jobs_same_text(void **state)
{
    (void)state;
    for (int layout = ATF_LAYOUT_1; layout <= ATF_LAYOUT_2; layout++) {
        char dir[64], p[160];
        cf_mkdtemp(dir, sizeof dir, "dump");
        tu_demo(dir, (atf_layout)layout, 4, 3000, 3);
        atf_error err;
        atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
        for (o.json = 0; o.json <= 1; o.json++)
            assert_jobs_same(dir, &o, 4 * 3000);
        o.json = 1;
        o.window = 1;
        o.from_ns = 1000000000ull + 20000;
        o.to_ns = 1000000000ull + 90000;
        uint64_t ids[2] = { 1, 3 };
        o.threads = ids;
        o.thread_count = 2;
        size_t in_window = 0;
        for (int t = 1; t <= 3; t += 2) {
            atf_index_reader *r;
            atf_read_options ro = ATF_READ_OPTIONS_INIT;
            assert_int_equal(atf_index_reader_open(&r, tu_path(p, sizeof p, "%s/thread_%d/index.atf", dir, t), &ro,
                                                   &err), ATF_OK);
            for (uint64_t i = 0; i < atf_index_reader_count(r); i++) {
                atf_index_event e;
                assert_int_equal(atf_index_reader_get(r, i, &e), ATF_OK);
                in_window += e.timestamp_ns >= o.from_ns && e.timestamp_ns <= o.to_ns;
            }
            atf_index_reader_close(r);
        }
        assert_true(in_window > 512 && in_window < 2 * 3000);
        assert_jobs_same(dir, &o, in_window);

        /* thread_0 cut by a crash in its 2001st event, thread_1 without its
         * index (its 1000 detail events alone), thread_2 with event 700's
         * timestamp before event 699's. */
        uint64_t events_offset = tu_cut_index(tu_path(p, sizeof p, "%s/thread_0/index.atf", dir), 2000, 17);
        assert_int_equal(remove(tu_path(p, sizeof p, "%s/thread_1/index.atf", dir)), 0);
        tu_patch_le64(tu_path(p, sizeof p, "%s/thread_2/index.atf", dir), events_offset + 700 * 32, 1000000000ull);
        tu_fix_index_crc(p);
        atf_tool_options all = ATF_TOOL_OPTIONS_INIT;
        all.json = 1;
        assert_jobs_same(dir, &all, 2000 + 1000 + 3000 + 3000);
        all.window = 1;
        all.from_ns = o.from_ns;
        all.to_ns = o.to_ns;
        atf_status st;
        char *one = dump_jobs(dir, &all, 1, &st);
        size_t lines = count_lines(one);
        free(one);
        assert_true(lines > 1000);
        assert_jobs_same(dir, &all, lines);
        cf_rm_rf(dir);
    }
}

/* A write that fails stops the parallel dump with ATF_E_IO, as in one thread. */
static void test_dump_jobs_write_error(void **state)
{
    (void)state;
    char dir[64], p[160];
    cf_mkdtemp(dir, sizeof dir, "dump");
    tu_demo(dir, ATF_LAYOUT_2, 2, 5000, 4);
    atf_error err;
    tu_write_text(tu_path(p, sizeof p, "%s/out.txt", dir), "");
    for (unsigned jobs = 1; jobs <= 3; jobs++) {
        FILE *ro = fopen(p, "r");   /* every write fails */
        assert_non_null(ro);
        atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
        o.json = 1;
        o.jobs = jobs;
        assert_int_equal(atf_tool_dump(ro, dir, &o, &err), ATF_E_IO);
        assert_non_null(strstr(err.message, "cannot write output"));
        fclose(ro);
    }
    cf_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_layout2_arm64),
        cmocka_unit_test(test_json_layout1_arm64),
        cmocka_unit_test(test_json_x86_64_has_no_arm64_object),
        cmocka_unit_test(test_json_literal_lines),
        cmocka_unit_test(test_json_without_symbols),
        cmocka_unit_test(test_json_thread_and_files),
        cmocka_unit_test(test_text_mentions_every_event),
        cmocka_unit_test(test_merge_tool),
        cmocka_unit_test(test_info_crash_truncated),
        cmocka_unit_test(test_info_session),
        cmocka_unit_test(test_tool_errors),
        cmocka_unit_test(test_path_detect),
        cmocka_unit_test(test_output_root),
        cmocka_unit_test(test_dump_jobs_same_text),
        cmocka_unit_test(test_dump_jobs_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
