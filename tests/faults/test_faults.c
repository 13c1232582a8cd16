/* Fault injection (ctest label "faults"): the codec's entry points under
 *  - allocation failures: the Nth malloc/calloc/realloc of the codec returns
 *    NULL, for every N until the operation no longer allocates that much
 *    (linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc); jansson
 *    allocates through json_set_alloc_funcs() instead, and its allocations
 *    fail only in the writer scenarios (building manifest.json): jansson
 *    2.14's parser can crash on an allocation failure inside its lexer, a
 *    bug of the library that static builds (where --wrap reaches jansson's
 *    own calls) would otherwise hit. A writer that reports success after a
 *    failure must have written what a run without failures writes;
 *  - I/O failures: a full device, a file-size limit reached in the middle of
 *    a recording, directories that cannot be created, a manifest that cannot
 *    be replaced, output streams that fail, paths that are not files.
 * Each operation must return an error status (never crash, leak under
 * ASan, or report a success it did not achieve); a writer that fails must
 * say so on every later call, and what it leaves on disk must still be a
 * valid crash-truncated file holding a prefix of what was appended. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <atf/tools.h>
#include <atf/validator.h>

#include "common.h"   /* atf_remove_tree */

/* ---- Allocation failures ------------------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

static long fail_at = -1;  /* index of the allocation that fails, -1: none */
static long allocations;   /* allocations seen since the scenario started */
static int injected;       /* the failure happened */

static int should_fail(void)
{
    if (fail_at < 0)
        return 0;
    if (allocations++ == fail_at) {
        injected = 1;
        errno = ENOMEM;   /* as malloc() does */
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n) { return should_fail() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { return should_fail() ? NULL : __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { return should_fail() ? NULL : __real_realloc(p, n); }

static int jansson_faults;     /* jansson's allocations may fail too */
static int jansson_fail_next;  /* jansson's next allocation fails */
static void *jansson_malloc(size_t n)
{
    if (jansson_fail_next || (jansson_faults && should_fail())) {
        jansson_fail_next = 0;
        errno = ENOMEM;
        return NULL;
    }
    return __real_malloc(n);
}
static void jansson_free(void *p) { free(p); }

/* ---- Fixture -------------------------------------------------------------- */

static char root[256];
static char session[300], thread_path[400], index_path[400], detail_path[400], manifest_path[400];
static char *manifest_text;
static size_t manifest_size;

static void rm_tree(const char *p) { atf_remove_tree(p); }

static char *path_in(const char *name)
{
    static char buf[4][400];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", root, name);
    return buf[k];
}

static FILE *tools_out;
static char tools_out_buf[1 << 16];
static char tools_out_path[300];

static int setup(void **state)
{
    (void)state;
    json_set_alloc_funcs(jansson_malloc, jansson_free);
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(root, sizeof root, "%s/atf-faults-XXXXXX", base);
    if (!mkdtemp(root))
        return -1;
    snprintf(session, sizeof session, "%s/session", root);
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    d.threads = 2;
    d.events = 300;
    d.detail_every = 3;
    if (atf_tool_demo(session, &d, NULL) != ATF_OK)
        return -1;
    snprintf(thread_path, sizeof thread_path, "%s/thread_0", session);
    snprintf(index_path, sizeof index_path, "%s/thread_0/index.atf", session);
    snprintf(detail_path, sizeof detail_path, "%s/thread_0/detail.atf", session);
    snprintf(manifest_path, sizeof manifest_path, "%s/manifest.json", session);
    FILE *f = fopen(manifest_path, "rb");
    if (!f)
        return -1;
    manifest_text = __real_malloc(1 << 20);
    manifest_size = fread(manifest_text, 1, 1 << 20, f);
    fclose(f);
    /* The tools' output stream, opened and buffered before any allocation
     * fails: in a static build libc's own malloc calls are wrapped too. */
    snprintf(tools_out_path, sizeof tools_out_path, "%s/tools.out", root);
    tools_out = fopen(tools_out_path, "w+");
    if (!tools_out || setvbuf(tools_out, tools_out_buf, _IOFBF, sizeof tools_out_buf) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(manifest_text);
    if (tools_out)
        fclose(tools_out);
    rm_tree(root);
    return 0;
}

/* ---- Scenarios (each cleans up after itself, whatever fails) -------------- */

static atf_status sc_index_reader(int no_mmap)
{
    atf_read_options o = ATF_READ_OPTIONS_INIT;
    o.no_mmap = (unsigned)no_mmap;
    atf_index_reader *r;
    atf_error err;
    atf_status st = atf_index_reader_open(&r, index_path, &o, &err);
    if (st)
        return st;
    assert_int_equal(atf_index_reader_count(r), 300);
    atf_index_reader_close(r);
    return ATF_OK;
}

static atf_status sc_index_mmap(void) { return sc_index_reader(0); }
static atf_status sc_index_read(void) { return sc_index_reader(1); }

static atf_status sc_detail_reader(void)
{
    atf_read_options o = ATF_READ_OPTIONS_INIT;
    o.no_mmap = 1;
    atf_detail_reader *r;
    atf_status st = atf_detail_reader_open(&r, detail_path, &o, NULL);
    if (st)
        return st;
    assert_int_equal(atf_detail_reader_count(r), 100);
    atf_detail_reader_close(r);
    return ATF_OK;
}

static atf_status sc_manifest(void)
{
    atf_manifest *m;
    atf_status st = atf_manifest_parse(&m, manifest_text, manifest_size, "manifest.json", NULL);
    if (st)
        return st;
    assert_int_equal(m->thread_count, 2);
    atf_manifest_free(m);
    return ATF_OK;
}

static atf_status sc_session_merge(void)
{
    atf_session *s;
    atf_status st = atf_session_open(&s, session, NULL, NULL);
    if (st)
        return st;
    atf_merge *m;
    st = atf_merge_create(&m, s);
    if (st == ATF_OK) {
        atf_merged_event e;
        unsigned n = 0;
        while (atf_merge_next(m, &e))
            n++;
        assert_int_equal(n, 600);
        atf_merge_destroy(m);
    }
    atf_session_close(s);
    return st;
}

static atf_status sc_tools(void)
{
    FILE *out = tools_out;
    rewind(out);
    if (ftruncate(fileno(out), 0) != 0)
        return ATF_E_IO;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.json = 1;
    atf_error err;
    atf_status st = atf_tool_dump(out, session, &o, &err);
    if (!st)
        st = atf_tool_merge(out, session, &o, &err);
    if (!st)
        st = atf_tool_info(out, session, &o, &err);
    if (!st)
        st = atf_tool_dump(out, thread_path, &o, &err);
    if (!st)
        st = atf_tool_dump(out, index_path, &o, &err);
    if (!st)
        st = atf_tool_dump(out, detail_path, &o, &err);
    fflush(out);
    clearerr(out);
    return st;
}

static atf_status sc_validate(void)
{
    atf_validation *v = NULL;
    atf_error err;
    atf_status st = atf_validate_path(&v, session, NULL, &err);
    /* An allocation failure is reported as such, never as a finding. */
    if (st == ATF_OK) {
        uint64_t errors = 0, warnings = 0;
        atf_validation_counts(v, &errors, &warnings);
        if (errors)
            atf_validation_write_text(stderr, v);
        assert_int_equal(errors, 0);
    } else {
        assert_null(v);
    }
    atf_validation_free(v);
    return st;
}

static atf_status sc_session_writer(void)
{
    char *dir = path_in("written");
    rm_tree(dir);
    atf_writer_options wo = ATF_WRITER_OPTIONS_INIT;
    wo.buffer_size = 4096;
    atf_session_writer *sw;
    atf_status st = atf_session_writer_create(&sw, dir, &wo, NULL);
    if (st)
        return st;
    atf_manifest_module mod = { 1, 0x1000, 0x100, "/bin/x", "uuid" };
    atf_manifest_symbol sym = { 7, 1, 0, "main" };
    atf_timing_anchor anchor = { 5, 0, 48000 };
    if (!st)
        st = atf_session_writer_add_module(sw, &mod);
    if (!st)
        st = atf_session_writer_add_symbol(sw, &sym);
    if (!st)
        st = atf_session_writer_add_anchor(sw, &anchor);
    atf_thread_writer *tw[2] = { NULL, NULL };
    for (int t = 0; t < 2 && !st; t++)
        st = atf_session_writer_add_thread(sw, (uint64_t)t, 100u + (unsigned)t, t == 0, &tw[t], NULL);
    uint8_t payload[160] = { 0 };
    for (uint64_t i = 0; i < 200 && !st; i++) {
        atf_index_event e = { 0 };
        e.timestamp_ns = 10 + i;
        e.function_id = 7;
        e.event_kind = 1 + i % 2;
        atf_detail_event d = { 0 };
        d.event_type = 3;
        d.payload = payload;
        d.payload_size = sizeof payload;
        st = atf_thread_writer_append(tw[i % 2], &e, i % 2 == 0 ? &d : NULL, NULL);
    }
    atf_status fs = atf_session_writer_finalize(sw, 0, NULL);
    atf_status cs = atf_session_writer_close(sw);
    assert_int_equal(cs, fs); /* close reports what finalize reported */
    return st ? st : fs;
}

static atf_status sc_demo(void)
{
    char *dir = path_in("demo");
    rm_tree(dir);
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    d.threads = 2;
    d.events = 50;
    d.force = 1;   /* rm_tree's own allocations may be the failing one: a run may find the last one's files */
    return atf_tool_demo(dir, &d, NULL);
}

typedef atf_status (*scenario)(void);

/* Runs @p fn with the Nth allocation failing, N = 0, 1, 2, ... until a run
 * completes without reaching the failure, which must then succeed. */
/* Reads a whole file with the real allocator (NULL if missing). */
static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = __real_malloc(1 << 20);
    *size = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

/* What a scenario that reports success after a failure must have written
 * to ok_path: what a run without any failure wrote there, byte for byte (the
 * manifest of a writer, the output of a tool). NULL: not checked. */
static const char *ok_path;
static char *ok_data;
static size_t ok_size;

static void check_success(const char *name, long k)
{
    if (!ok_path)
        return;
    size_t n = 0;
    char *got = slurp(ok_path, &n);
    int same = got && n == ok_size && memcmp(got, ok_data, n) == 0;
    free(got);
    if (!same)
        fail_msg("%s: allocation %ld failed, it reported success but %s differs from a run without "
                 "failures", name, k, ok_path);
}

static void under_oom(scenario fn, const char *name)
{
    long k;
    for (k = 0;; k++) {
        allocations = 0;
        injected = 0;
        fail_at = k;
        atf_status st = fn();
        fail_at = -1;
        if (!injected) {
            if (st != ATF_OK)
                fail_msg("%s: without an allocation failure it returned %s", name, atf_status_name(st));
            break;
        }
        /* ATF_OK: a failed optional allocation (a warning text, say) was
         * absorbed; anything else must be the out-of-memory error. */
        if (st != ATF_OK && st != ATF_E_NOMEM)
            fail_msg("%s: allocation %ld failed, returned %s instead of ATF_E_NOMEM", name, k,
                     atf_status_name(st));
        if (st == ATF_OK)
            check_success(name, k);
    }
    assert_true(k > 0); /* the scenario allocates: the loop was not vacuous */
}

static void test_oom_readers(void **state)
{
    (void)state;
    under_oom(sc_index_mmap, "index reader (mmap)");
    under_oom(sc_index_read, "index reader (read)");
    under_oom(sc_detail_reader, "detail reader");
    under_oom(sc_manifest, "manifest");
    under_oom(sc_session_merge, "session + merge");
}

/* jansson failing to allocate while parsing is not a bad manifest. (Only
 * its first allocation: later ones can crash jansson 2.14's lexer.) */
static void test_oom_manifest_parser(void **state)
{
    (void)state;
    atf_manifest *m = NULL;
    atf_error err;
    jansson_fail_next = 1;
    assert_int_equal(atf_manifest_parse(&m, manifest_text, manifest_size, "manifest.json", &err), ATF_E_NOMEM);
    assert_int_equal(jansson_fail_next, 0);   /* the failure was reached */
    assert_null(m);
    assert_int_equal(atf_manifest_parse(&m, manifest_text, manifest_size, "manifest.json", &err), ATF_OK);
    atf_manifest_free(m);
}

static void test_oom_tools(void **state)
{
    (void)state;
    /* The reference output, from a run without failures: a tool that
     * reports success must have printed all of it (every detail event,
     * every symbol name). */
    assert_int_equal(sc_tools(), ATF_OK);
    ok_data = slurp(tools_out_path, &ok_size);
    assert_non_null(ok_data);
    assert_true(ok_size > 1000 && ok_size < (1u << 20));
    ok_path = tools_out_path;
    under_oom(sc_tools, "dump/merge/info");
    ok_path = NULL;
    free(ok_data);
    ok_data = NULL;
    under_oom(sc_validate, "validate");
}

static void test_oom_writers(void **state)
{
    (void)state;
    /* The reference manifest, from a run without failures. */
    assert_int_equal(sc_session_writer(), ATF_OK);
    static char path[400];
    snprintf(path, sizeof path, "%s", path_in("written/manifest.json"));
    ok_data = slurp(path, &ok_size);
    assert_non_null(ok_data);
    ok_path = path;
    jansson_faults = 1;   /* manifest.json is built with jansson */
    under_oom(sc_session_writer, "session writer");
    ok_path = NULL;
    free(ok_data);
    ok_data = NULL;
    under_oom(sc_demo, "demo");
    jansson_faults = 0;
}

/* ---- I/O failures ------------------------------------------------------------ */

static void test_full_device(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    atf_index_writer *iw = NULL;
    atf_detail_writer *dw = NULL;
    atf_error err;
    assert_int_equal(atf_index_writer_open(&iw, "/dev/full", NULL, &err), ATF_E_IO);
    assert_null(iw);
    assert_string_equal(err.file, "/dev/full");
    assert_non_null(strstr(err.message, "header"));
    assert_int_equal(atf_detail_writer_open(&dw, "/dev/full", NULL, &err), ATF_E_IO);
    assert_null(dw);

    /* A tool whose output cannot be written says so. */
    FILE *out = fopen("/dev/full", "w");
    assert_non_null(out);
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.json = 1;
    assert_int_equal(atf_tool_dump(out, session, &o, &err), ATF_E_IO);
    assert_int_equal(atf_tool_merge(out, session, &o, &err), ATF_E_IO);
    assert_int_equal(atf_tool_info(out, session, &o, &err), ATF_E_IO);
    fclose(out);
}

/* The file-size limit is reached in the middle of a recording: the writer
 * fails on that append and every later call, finalize reports it, and the
 * file holds the header and whole events, a prefix of what was appended. */
static void test_file_size_limit(void **state)
{
    (void)state;
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 64 + 32 * 300 + 7; /* room for 300 events and a partial one */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);

    char *ipath = path_in("limited.index.atf");
    atf_writer_options wo = ATF_WRITER_OPTIONS_INIT;
    wo.buffer_size = 4096;
    atf_index_writer *w;
    assert_int_equal(atf_index_writer_open(&w, ipath, &wo, NULL), ATF_OK);
    atf_status st = ATF_OK;
    uint64_t appended = 0;
    for (uint64_t i = 0; i < 5000 && !st; i++) {
        atf_index_event e = { 0 };
        e.timestamp_ns = i;
        e.function_id = i * 3;
        e.event_kind = 1;
        e.detail_seq = ATF_NO_DETAIL;
        st = atf_index_writer_append(w, &e);
        appended += st == ATF_OK;
    }
    assert_int_equal(st, ATF_E_IO);
    atf_index_event e = { 0 };
    e.event_kind = 1;
    assert_int_equal(atf_index_writer_append(w, &e), ATF_E_IO);
    assert_int_equal(atf_index_writer_flush(w), ATF_E_IO);
    atf_error err;
    assert_int_equal(atf_index_writer_finalize(w, 1, &err), ATF_E_IO);
    assert_string_equal(err.file, ipath);
    assert_int_equal(atf_index_writer_close(w), ATF_E_IO);

    /* The same for a detail writer and a session writer. */
    char *dpath = path_in("limited.detail.atf");
    atf_detail_writer *dw;
    assert_int_equal(atf_detail_writer_open(&dw, dpath, &wo, NULL), ATF_OK);
    uint8_t payload[500] = { 0 };
    st = ATF_OK;
    for (int i = 0; i < 500 && !st; i++) {
        atf_detail_event d = { 0 };
        d.event_type = 3;
        d.payload = payload;
        d.payload_size = sizeof payload;
        st = atf_detail_writer_append(dw, &d, NULL);
    }
    assert_int_equal(st, ATF_E_IO);
    assert_int_equal(atf_detail_writer_finalize(dw, 0, &err), ATF_E_IO);
    assert_int_equal(atf_detail_writer_close(dw), ATF_E_IO);

    char *sdir = path_in("limited-session");
    rm_tree(sdir);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    assert_int_equal(atf_session_writer_create(&sw, sdir, &wo, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 0, 1, 1, &tw, NULL), ATF_OK);
    st = ATF_OK;
    for (int i = 0; i < 200 && !st; i++) {
        atf_index_event ie = { 0 };
        ie.event_kind = 1;
        atf_detail_event d = { 0 };
        d.payload = payload;
        d.payload_size = sizeof payload;
        st = atf_thread_writer_append(tw, &ie, &d, NULL);
    }
    assert_int_equal(st, ATF_E_IO);
    assert_int_equal(atf_session_writer_finalize(sw, 0, &err), ATF_E_IO);
    assert_int_equal(atf_session_writer_close(sw), ATF_E_IO);

    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);

    /* What is on disk: a crash-truncated file, whole events, a prefix. */
    atf_index_reader *r;
    assert_int_equal(atf_index_reader_open(&r, ipath, NULL, NULL), ATF_OK);
    const atf_index_info *in = atf_index_reader_info(r);
    assert_false(in->has_footer);
    assert_true(in->recovered);
    assert_true(in->event_count > 0 && in->event_count <= appended && in->event_count <= 300);
    for (uint64_t i = 0; i < in->event_count; i++) {
        atf_index_event got;
        assert_int_equal(atf_index_reader_get(r, i, &got), ATF_OK);
        assert_int_equal(got.timestamp_ns, i);
        assert_int_equal(got.function_id, i * 3);
    }
    atf_index_reader_close(r);
    atf_detail_reader *dr;
    assert_int_equal(atf_detail_reader_open(&dr, dpath, NULL, NULL), ATF_OK);
    assert_true(atf_detail_reader_info(dr)->recovered);
    assert_true(atf_detail_reader_count(dr) > 0);
    atf_detail_reader_close(dr);
}

/* The disk fills up exactly when the footer is due: every event is on disk,
 * finalize says the footer could not be written, and the file reads back as
 * crash-truncated with all of its events. */
static void test_footer_does_not_fit(void **state)
{
    (void)state;
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 64 + 32 * 100;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    char *ipath = path_in("nofooter.index.atf");
    atf_index_writer *w;
    assert_int_equal(atf_index_writer_open(&w, ipath, NULL, NULL), ATF_OK);
    for (uint64_t i = 0; i < 100; i++) {
        atf_index_event e = { 0 };
        e.timestamp_ns = i;
        e.event_kind = 2;
        assert_int_equal(atf_index_writer_append(w, &e), ATF_OK);
    }
    atf_error err;
    assert_int_equal(atf_index_writer_finalize(w, 0, &err), ATF_E_IO);
    assert_non_null(strstr(err.message, "footer"));
    assert_int_equal(atf_index_writer_close(w), ATF_E_IO);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    atf_index_reader *r;
    assert_int_equal(atf_index_reader_open(&r, ipath, NULL, NULL), ATF_OK);
    assert_true(atf_index_reader_info(r)->recovered);
    assert_int_equal(atf_index_reader_count(r), 100);
    atf_index_reader_close(r);
}

/* Every entry point given NULL (or an impossible argument) returns its
 * documented error and touches nothing. */
static void test_null_arguments(void **state)
{
    (void)state;
    uint8_t buf[512] = { 0 };
    atf_error err;
    atf_index_header ih = { 0 };
    atf_index_event ie = { 0 };
    atf_index_footer ifo = { 0 };
    atf_detail_header dh = { 0 };
    atf_detail_event de = { 0 };
    atf_detail_footer dfo = { 0 };
    atf_arm64_payload ap = { 0 };
    atf_layout layout;

    assert_int_equal(atf_header_layout(NULL, 64, ATF_INDEX_MAGIC, &layout, &err), ATF_E_ARG);
    assert_int_equal(atf_index_header_decode(NULL, buf, 64, &err), ATF_E_ARG);
    assert_int_equal(atf_index_header_encode(NULL, 64, &ih), ATF_E_ARG);
    assert_int_equal(atf_index_header_encode(buf, 64, &ih), ATF_E_ARG); /* version 0 */
    assert_int_equal(atf_index_event_decode(NULL, buf, 32, ATF_LAYOUT_2), ATF_E_ARG);
    assert_int_equal(atf_index_event_decode(&ie, buf, 31, ATF_LAYOUT_2), ATF_E_TRUNCATED);
    assert_int_equal(atf_index_event_encode(buf, 32, &ie, (atf_layout)3), ATF_E_ARG);
    assert_int_equal(atf_index_footer_decode(NULL, buf, 64, &err), ATF_E_ARG);
    assert_int_equal(atf_index_footer_encode(NULL, 64, &ifo), ATF_E_ARG);
    assert_int_equal(atf_detail_header_decode(NULL, buf, 64, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_header_encode(buf, 64, &dh), ATF_E_ARG); /* version 0 */
    assert_int_equal(atf_detail_event_decode(NULL, buf, 24, ATF_LAYOUT_2, &err), ATF_E_ARG);
    de.payload_size = 4; /* payload NULL */
    assert_int_equal(atf_detail_event_encode(buf, sizeof buf, &de, ATF_LAYOUT_2), ATF_E_ARG);
    de.payload = buf;
    de.index_seq = (uint64_t)UINT32_MAX + 1;
    assert_int_equal(atf_detail_event_encode(buf + 100, 200, &de, ATF_LAYOUT_1), ATF_E_FIELD);
    assert_int_equal(atf_detail_footer_decode(NULL, buf, 64, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_footer_encode(NULL, 64, &dfo), ATF_E_ARG);
    assert_int_equal(atf_arm64_payload_decode(NULL, buf, 100, &err), ATF_E_ARG);
    assert_int_equal(atf_arm64_payload_encode(NULL, 512, &ap), 0);

    atf_index_reader *ir = NULL;
    atf_detail_reader *dr = NULL;
    assert_int_equal(atf_index_reader_open(NULL, index_path, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_index_reader_open(&ir, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_index_reader_open_memory(&ir, NULL, 10, "x", NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_reader_open(&dr, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_reader_open_memory(&dr, NULL, 10, "x", NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_index_reader_get(NULL, 0, &ie), ATF_E_ARG);
    assert_int_equal(atf_detail_reader_get(NULL, 0, &de), ATF_E_ARG);
    assert_int_equal(atf_detail_reader_offset(NULL, 0), UINT64_MAX);
    assert_int_equal(atf_detail_reader_follow(NULL, &ie, &de), ATF_E_ARG);
    assert_int_equal(atf_index_reader_follow(NULL, &de, &ie), ATF_E_ARG);
    uint64_t a, b;
    assert_int_equal(atf_index_reader_time_range(NULL, 0, 1, &a, &b), ATF_E_ARG);
    atf_index_reader_close(NULL);
    atf_detail_reader_close(NULL);

    atf_manifest *m = NULL;
    assert_int_equal(atf_manifest_parse(NULL, "{}", 2, "m", &err), ATF_E_ARG);
    assert_int_equal(atf_manifest_parse(&m, NULL, 2, "m", &err), ATF_E_ARG);
    assert_int_equal(atf_manifest_load(&m, NULL, &err), ATF_E_ARG);
    assert_null(atf_manifest_symbol_name(NULL, 1));
    atf_manifest_free(NULL);

    atf_session *s = NULL;
    assert_int_equal(atf_session_open(NULL, session, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_session_open(&s, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_session_thread_count(NULL), 0);
    assert_null(atf_session_thread_at(NULL, 0));
    assert_null(atf_session_manifest(NULL));
    assert_int_equal(atf_session_warning_count(NULL), 0);
    assert_null(atf_session_warning(NULL, 0));
    atf_session_close(NULL);
    atf_merge *mg = NULL;
    atf_merged_event me;
    assert_int_equal(atf_merge_create(NULL, NULL), ATF_E_ARG);
    assert_int_equal(atf_merge_next(NULL, &me), 0);
    atf_merge_destroy(mg);

    atf_index_writer *iw = NULL;
    atf_detail_writer *dw = NULL;
    atf_writer_options bad = ATF_WRITER_OPTIONS_INIT;
    bad.layout = (atf_layout)7;
    assert_int_equal(atf_index_writer_open(NULL, "x", NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_index_writer_open(&iw, path_in("bad.atf"), &bad, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_open(&dw, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_open(&dw, path_in("bad.atf"), &bad, &err), ATF_E_ARG);
    assert_int_equal(atf_index_writer_append(NULL, &ie), ATF_E_ARG);
    assert_int_equal(atf_index_writer_append_encoded(NULL, buf, 1), ATF_E_ARG);
    assert_int_equal(atf_index_writer_flush(NULL), ATF_E_ARG);
    assert_int_equal(atf_index_writer_finalize(NULL, 0, &err), ATF_E_ARG);
    assert_int_equal(atf_index_writer_count(NULL), 0);
    assert_int_equal(atf_index_writer_time_range(NULL, &a, &b), 0);
    atf_index_writer_set_has_detail(NULL, 1);
    assert_int_equal(atf_index_writer_close(NULL), ATF_OK);
    assert_int_equal(atf_detail_writer_append(NULL, &de, NULL), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_flush(NULL), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_finalize(NULL, 0, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_count(NULL), 0);
    assert_int_equal(atf_detail_writer_close(NULL), ATF_OK);

    /* A writer refuses what its layout cannot hold and calls after finalize. */
    atf_writer_options l1 = ATF_WRITER_OPTIONS_INIT;
    l1.layout = ATF_LAYOUT_1;
    assert_int_equal(atf_detail_writer_open(&dw, path_in("l1.detail.atf"), &l1, &err), ATF_OK);
    de.payload_size = 0;
    de.index_seq = (uint64_t)UINT32_MAX + 1;
    assert_int_equal(atf_detail_writer_append(dw, &de, NULL), ATF_E_FIELD);
    de.index_seq = 1;
    assert_int_equal(atf_detail_writer_append(dw, &de, NULL), ATF_OK);
    assert_int_equal(atf_detail_writer_finalize(dw, 1, &err), ATF_OK);
    assert_int_equal(atf_detail_writer_append(dw, &de, NULL), ATF_E_STATE);
    assert_int_equal(atf_detail_writer_close(dw), ATF_OK);
    assert_int_equal(atf_index_writer_open(&iw, path_in("l1.index.atf"), &l1, &err), ATF_OK);
    assert_int_equal(atf_index_writer_append_encoded(iw, buf, 0), ATF_OK);
    assert_int_equal(atf_index_writer_append_encoded(iw, NULL, 1), ATF_E_ARG);
    assert_int_equal(atf_index_writer_append_encoded(iw, buf, (size_t)UINT32_MAX), ATF_E_LIMIT);
    assert_int_equal(atf_index_writer_finalize(iw, 1, &err), ATF_OK);
    assert_int_equal(atf_index_writer_append_encoded(iw, buf, 1), ATF_E_STATE);
    assert_int_equal(atf_index_writer_close(iw), ATF_OK);

    atf_session_writer *sw = NULL;
    atf_thread_writer *tw = NULL;
    atf_manifest_symbol sym = { 1, 0, 0, "x" };
    atf_timing_anchor anchor = { 1, 0, 0 }; /* scale 0 */
    assert_int_equal(atf_session_writer_create(NULL, "x", NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_create(&sw, path_in("bad-session"), &bad, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_thread(NULL, 0, 0, 0, &tw, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_symbol(NULL, &sym), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_module(NULL, NULL), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_anchor(NULL, &anchor), ATF_E_ARG);
    assert_int_equal(atf_session_writer_write_manifest(NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_session_writer_finalize(NULL, 0, &err), ATF_E_ARG);
    assert_int_equal(atf_thread_writer_append(NULL, &ie, NULL, NULL), ATF_E_ARG);
    assert_null(atf_thread_writer_index(NULL));
    assert_null(atf_thread_writer_detail(NULL));
    atf_session_writer_set_dropped(NULL, 1);
    assert_int_equal(atf_session_writer_close(NULL), ATF_OK);
    assert_int_equal(atf_session_writer_create(&sw, path_in("anchor-session"), NULL, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_anchor(sw, &anchor), ATF_E_ARG);
    assert_int_equal(atf_session_writer_finalize(sw, 1, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 1, 1, 0, &tw, &err), ATF_E_STATE);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);

    char resolved[64];
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    assert_int_equal(atf_path_detect(NULL, resolved, sizeof resolved, &err), ATF_PATH_UNKNOWN);
    assert_int_equal(atf_validate_path(NULL, session, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_tool_demo(NULL, NULL, &err), ATF_E_ARG);
    FILE *out = fopen("/dev/null", "w");
    assert_int_equal(atf_tool_merge(out, index_path, &o, &err), ATF_E_ARG); /* not a session */
    fclose(out);
}

static void test_paths(void **state)
{
    (void)state;
    atf_error err;
    /* A regular file where a directory must be created. */
    char *blocker = path_in("blocker");
    FILE *f = fopen(blocker, "w");
    assert_non_null(f);
    fclose(f);
    char under[500];
    snprintf(under, sizeof under, "%s/session", blocker);
    atf_session_writer *sw = NULL;
    assert_int_equal(atf_session_writer_create(&sw, under, NULL, &err), ATF_E_IO);
    assert_null(sw);
    char *idx = path_in("blocker/index.atf");
    atf_index_writer *iw = NULL;
    assert_int_equal(atf_index_writer_open(&iw, idx, NULL, &err), ATF_E_IO);
    assert_string_equal(err.file, idx);

    /* A thread directory taken by a file; a manifest that cannot be replaced. */
    char *sdir = path_in("paths-session");
    rm_tree(sdir);
    assert_int_equal(atf_session_writer_create(&sw, sdir, NULL, &err), ATF_OK);
    char tfile[500];
    snprintf(tfile, sizeof tfile, "%s/thread_3", sdir);
    f = fopen(tfile, "w");
    assert_non_null(f);
    fclose(f);
    atf_thread_writer *tw = NULL;
    assert_int_equal(atf_session_writer_add_thread(sw, 3, 1, 0, &tw, &err), ATF_E_IO);
    assert_null(tw);
    assert_int_equal(atf_session_writer_add_thread(sw, 4, 1, 1, &tw, &err), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 4, 1, 1, &tw, &err), ATF_E_ARG); /* twice */
    char moved[500];
    snprintf(moved, sizeof moved, "%s.moved", sdir);
    rm_tree(moved);
    assert_int_equal(rename(sdir, moved), 0);
    f = fopen(sdir, "w"); /* the session directory is now a file */
    assert_non_null(f);
    fclose(f);
    assert_int_equal(atf_session_writer_write_manifest(sw, &err), ATF_E_IO);
    assert_int_equal(atf_session_writer_finalize(sw, 0, &err), ATF_E_IO);
    assert_int_equal(atf_session_writer_finalize(sw, 0, &err), ATF_E_IO); /* idempotent */
    assert_int_equal(atf_session_writer_close(sw), ATF_E_IO);
    unlink(sdir);

    /* Readers: a directory, a missing file, an empty file. */
    atf_index_reader *r = NULL;
    atf_detail_reader *dr = NULL;
    atf_manifest *m = NULL;
    assert_int_equal(atf_index_reader_open(&r, root, NULL, &err), ATF_E_IO);
    assert_non_null(strstr(err.message, "not a regular file"));
    assert_int_equal(atf_detail_reader_open(&dr, path_in("missing.atf"), NULL, &err), ATF_E_IO);
    assert_int_equal(atf_manifest_load(&m, path_in("missing.json"), &err), ATF_E_IO);
    char *empty = path_in("empty.atf");
    f = fopen(empty, "w");
    fclose(f);
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.no_mmap = 1;
    /* An empty file is what a writer killed before its first flush leaves:
     * crash-truncated with 0 events (SPEC 7a.12), by the read() path too. */
    assert_int_equal(atf_index_reader_open(&r, empty, &ro, &err), ATF_OK);
    assert_int_equal(atf_index_reader_info(r)->header_truncated, 1);
    assert_int_equal(atf_index_reader_count(r), 0);
    atf_index_reader_close(r);
    r = NULL;
    atf_session *s = NULL;
    assert_int_equal(atf_session_open(&s, path_in("missing-dir"), NULL, &err), ATF_E_IO);
    assert_null(s);
}

/* Strings that JSON cannot hold are refused when they are added, instead of
 * silently leaving the manifest without them (and the session unreadable). */
static void test_manifest_strings(void **state)
{
    (void)state;
    char *sdir = path_in("utf8-session");
    rm_tree(sdir);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    assert_int_equal(atf_session_writer_create(&sw, sdir, NULL, NULL), ATF_OK);
    atf_manifest_symbol bad = { 1, 0, 0, "caf\xe9" }, good = { 2, 0, 0, "caf\xc3\xa9" };
    atf_manifest_module badmod = { 0, 0, 0, "/bin/\xff", "" };
    assert_int_equal(atf_session_writer_add_symbol(sw, &bad), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_module(sw, &badmod), ATF_E_ARG);
    assert_int_equal(atf_session_writer_add_symbol(sw, &good), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 0, 1, 0, &tw, NULL), ATF_OK);
    atf_index_event e = { 0 };
    e.function_id = 2;
    e.event_kind = 1;
    assert_int_equal(atf_thread_writer_append(tw, &e, NULL, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    atf_session *s;
    atf_error err;
    assert_int_equal(atf_session_open(&s, sdir, NULL, &err), ATF_OK);
    assert_string_equal(atf_manifest_symbol_name(atf_session_manifest(s), 2), "caf\xc3\xa9");
    atf_session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oom_readers),
        cmocka_unit_test(test_oom_manifest_parser),
        cmocka_unit_test(test_oom_tools),
        cmocka_unit_test(test_oom_writers),
        cmocka_unit_test(test_full_device),
        cmocka_unit_test(test_file_size_limit),
        cmocka_unit_test(test_footer_does_not_fit),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_manifest_strings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
