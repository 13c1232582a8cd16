/* Clause by clause: for every clause ID of conformance/SPEC.md, an input
 * that breaks it (a file written by the codec's writers, then patched) gets
 * a finding with that clause, the right severity, file, field and byte
 * offset. Valid demo sessions of both layouts get no finding at all. The
 * last test checks that every clause of the table was asserted here. */
#include "vtest_util.h"

#include <atf/tools.h>

#include "vinternal.h"   /* the registry of validator passes */

#define E ATF_SEV_ERROR
#define W ATF_SEV_WARNING
#define NONE ATF_VALIDATE_NO_OFFSET
#define L1 ATF_LAYOUT_1
#define L2 ATF_LAYOUT_2

/* Clauses asserted by the tests so far (the coverage test reads it). */
static unsigned char g_asserted[256];

static const atf_validate_finding *want(const atf_validation *v, const char *clause, atf_severity sev,
                                        const char *file, const char *field, uint64_t offset)
{
    const atf_validate_finding *f = expect(v, clause, sev, file, field, offset);
    size_t i = atf_clause_index(clause);
    assert_true(i < sizeof g_asserted);
    g_asserted[i] = 1;
    return f;
}

/* Detail-seq / event-kind field offsets of index event k in layout l. */
static uint64_t dseq_at(atf_layout l, int k) { return idx_ev(k) + (l == L1 ? 28 : 16); }
static uint64_t kind_at(atf_layout l, int k) { return idx_ev(k) + (l == L1 ? 20 : 24); }

/* ---- Valid inputs --------------------------------------------------------- */

static void test_fixture_is_clean(void **state)
{
    (void)state;
    for (int l = 1; l <= 2; l++) {
        fx f;
        fx_make(&f, (atf_layout)l);
        atf_validation *v = run_thread(&f, 1);
        expect_clean(v);
        /* The cross-lane clauses and the payload clauses were evaluated. */
        assert_true(atf_validation_clause_checked(v, atf_clause_index("LINK-002")));
        assert_true(atf_validation_clause_checked(v, atf_clause_index("LINK-004")));
        assert_true(atf_validation_clause_checked(v, atf_clause_index("ARM-PAY-005")));
        assert_true(atf_validation_clause_checked(v, atf_clause_index(l == 1 ? "CRC-002" : "CRC-001")));
        assert_false(atf_validation_clause_checked(v, atf_clause_index("REC-001")));
        atf_validation_free(v);
        fx_free(&f);
    }
}

static void demo_clean(atf_layout layout, unsigned detail_every, unsigned threads)
{
    char dir[64];
    tmp_dir(dir, sizeof dir, "demo");
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    d.layout = layout;
    d.detail_every = detail_every;
    d.threads = threads;
    d.events = 3000;
    atf_error err;
    assert_int_equal(atf_tool_demo(dir, &d, &err), ATF_OK);
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.strict = 1;
    atf_validation *v = run_path(dir, &o);
    expect_clean(v);
    /* Session and manifest clauses were evaluated too. */
    assert_true(atf_validation_clause_checked(v, atf_clause_index("SES-MAN-002")));
    assert_true(atf_validation_clause_checked(v, atf_clause_index("SES-MAN-007")));
    assert_true(atf_validation_clause_checked(v, atf_clause_index("LINK-006")) == (detail_every == 0));
    assert_true(atf_validation_clause_checked(v, atf_clause_index("ARM-PAY-001")) == (detail_every != 0));
    assert_int_equal(atf_validation_recovered_count(v), 0);
    atf_validation_free(v);
    /* Each thread directory and each file alone are clean too. */
    char p[128], q[160];
    pjoin(p, sizeof p, dir, "thread_0");
    v = run_path(p, &o);
    expect_clean(v);
    atf_validation_free(v);
    pjoin(q, sizeof q, p, "index.atf");
    v = run_path(q, &o);
    expect_clean(v);
    atf_validation_free(v);
    if (detail_every) {
        pjoin(q, sizeof q, p, "detail.atf");
        v = run_path(q, &o);
        expect_clean(v);
        atf_validation_free(v);
    }
    rm_rf(dir);
}

static void test_demo_sessions_are_clean(void **state)
{
    (void)state;
    demo_clean(L1, 4, 3);
    demo_clean(L2, 4, 3);
    demo_clean(L1, 0, 2);
    demo_clean(L2, 0, 2);
    demo_clean(L2, 1, 1);
}

static void test_x86_payloads_are_opaque(void **state)
{
    (void)state;
    static const uint8_t junk[50] = { 1, 2, 3 };
    fx_opts o = fx_defaults(L2);
    o.arch = ATF_ARCH_X86_64;
    o.payload[0] = junk; /* payloads no ARM64 decoder would accept */
    o.payload_size[0] = sizeof junk;
    o.payload[1] = junk; /* empty */
    o.payload_size[1] = 0;
    o.payload[2] = junk;
    o.payload_size[2] = 1;
    fx f;
    fx_build(&f, &o);
    atf_validation *v = run_thread(&f, 1);
    expect_clean(v);
    assert_false(atf_validation_clause_checked(v, atf_clause_index("ARM-PAY-001")));
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- GEN-LAY ------------------------------------------------------------------ */

static void test_gen_lay_001(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put8(&f.det, 5, 1);
    atf_validation *v = run_thread(&f, 1);
    want(v, "GEN-LAY-001", E, "detail.atf", "version", 5);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Sessions on disk ------------------------------------------------------------ */

typedef struct sthr {
    uint64_t id;
    fx *f;
    int with_detail;
} sthr;

static void mk_session(const char *dir, const char *manifest, const sthr *t, size_t n)
{
    char p[256], q[300];
    if (manifest)
        write_file(pjoin(p, sizeof p, dir, "manifest.json"), manifest, strlen(manifest));
    for (size_t i = 0; i < n; i++) {
        char name[40];
        snprintf(name, sizeof name, "thread_%" PRIu64, t[i].id);
        pjoin(p, sizeof p, dir, name);
        assert_int_equal(mkdir(p, 0755), 0);
        if (t[i].f) {
            write_file(pjoin(q, sizeof q, p, "index.atf"), t[i].f->idx.p, t[i].f->idx.n);
            if (t[i].with_detail)
                write_file(pjoin(q, sizeof q, p, "detail.atf"), t[i].f->det.p, t[i].f->det.n);
        }
    }
}

#define GOOD_MANIFEST(extra)                                                                                  \
    "{\"format_version\":\"2.0\",\"clock_type\":3,\"time_start_ns\":1000000,\"time_end_ns\":1000070," extra \
    "\"threads\":[{\"id\":0,\"has_detail\":true},{\"id\":1,\"has_detail\":true}]}"

/* A two-thread session with this manifest (NULL: none); returns the report. */
static atf_validation *session_with(const char *manifest, atf_layout second_layout)
{
    char dir[64];
    tmp_dir(dir, sizeof dir, "ses");
    fx a, b;
    fx_make(&a, L2);
    fx_make(&b, second_layout);
    sthr t[2] = { { 0, &a, 1 }, { 1, &b, 1 } };
    mk_session(dir, manifest, t, 2);
    atf_validation *v = run_path(dir, NULL);
    rm_rf(dir);
    fx_free(&a);
    fx_free(&b);
    return v;
}

static void test_session_clean(void **state)
{
    (void)state;
    atf_validation *v = session_with(GOOD_MANIFEST(""), L2);
    expect_clean(v);
    assert_true(atf_validation_clause_checked(v, atf_clause_index("SES-MAN-009")));
    assert_true(atf_validation_clause_checked(v, atf_clause_index("GEN-LAY-002")));
    atf_validation_free(v);
}

static void test_gen_lay_002(void **state)
{
    (void)state;
    atf_validation *v = session_with(GOOD_MANIFEST(""), L1);
    want(v, "GEN-LAY-002", W, "thread_1/index.atf", "version", 5);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
}

/* ---- Index header ------------------------------------------------------------------- */

static atf_validation *patched_index8(atf_layout l, size_t off, uint8_t val)
{
    fx f;
    fx_make(&f, l);
    put8(&f.idx, off, val);
    atf_validation *v = run_thread(&f, 1);
    fx_free(&f);
    return v;
}

/* SPEC 2.1 / E-16 / E-18: headers left as the placeholder before a footer
 * (finalize stopped before the header was rewritten), in both placeholder
 * forms: a warning each, the thread still conformant, no LINK-005 (the
 * flag is only set when the header is rewritten). Without the footer, the
 * ADA form is a crash (REC-001), never damage. */
static void test_placeholder_forms(void **state)
{
    (void)state;
    for (int ada = 0; ada < 2; ada++) {
        for (int li = 0; li < 2; li++) {
            atf_layout L = li ? L2 : L1;
            fx f;
            fx_make(&f, L);
            for (size_t o = 8; o < 12; o++)
                put8(&f.idx, o, 0);   /* flags: has_detail_file clear */
            if (L == L1)
                put64(&f.idx, 24, 32);   /* event_size 32, event_count 0 */
            else
                put64(&f.idx, 24, 0);
            put64(&f.idx, 40, ada ? 64 : 0);
            put64(&f.idx, 48, 0);
            put64(&f.idx, 56, 0);
            for (size_t o = 28; o < 60; o += 8)
                put64(&f.det, o, 0);
            atf_validation *v = run_thread(&f, 1);
            want(v, "IDX-HDR-015", W, "index.atf", "footer_offset", 40);
            want(v, "DET-HDR-009", W, "detail.atf", "event_count", 28);
            assert_int_equal(count_clause(v, "LINK-005"), 0);
            assert_int_equal(count_clause(v, "IDX-HDR-013"), 0);
            assert_true(atf_validation_conformant(v));
            atf_validation_free(v);
            /* The footer never reached the disk: crash-truncated, every event recovered. */
            f.idx.n -= 64;   /* the footer never reached the disk */
            v = run_thread(&f, 1);
            want(v, "REC-001", W, "index.atf", "footer", f.idx.n);
            assert_int_equal(count_clause(v, "REC-004"), 0);
            assert_true(atf_validation_conformant(v));
            atf_validation_free(v);
            fx_free(&f);
        }
    }
}

static void test_idx_hdr_001(void **state)
{
    (void)state;
    atf_validation *v = patched_index8(L2, 0, 'X');
    want(v, "IDX-HDR-001", E, "index.atf", "magic", 0);
    /* Nothing else can be said about the index; the detail file is still checked alone. */
    assert_int_equal(count_clause(v, "IDX-HDR-002"), 0);
    assert_false(atf_validation_clause_checked(v, atf_clause_index("LINK-002")));
    atf_validation_free(v);
    /* Cut inside the header but the start of a valid one: a crash (SPEC
     * 7a.12), REC-001 with 0 events; the detail file's links into it are
     * the recoverable kind. */
    fx f;
    fx_make(&f, L1);
    resize(&f.idx, 40, 0);
    v = run_thread(&f, 1);
    want(v, "REC-001", W, "index.atf", "header", 0);
    assert_int_equal(count_clause(v, "IDX-HDR-001"), 0);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    /* Too short for the header and not the start of one: an error. */
    put8(&f.idx, 5, 9);
    v = run_thread(&f, 1);
    want(v, "IDX-HDR-001", E, "index.atf", "header", 0);
    atf_validation_free(v);
    fx_free(&f);
    /* Lone file with a foreign magic, by path: a finding, not an I/O error. */
    char dir[64], p[128];
    tmp_dir(dir, sizeof dir, "magic");
    write_file(pjoin(p, sizeof p, dir, "x.bin"), "hello", 5);
    v = run_path(p, NULL);
    want(v, "IDX-HDR-001", E, "x.bin", "magic", 0);
    assert_false(atf_validation_conformant(v));
    atf_validation_free(v);
    rm_rf(dir);
}

static void test_idx_hdr_002_003(void **state)
{
    (void)state;
    atf_validation *v = patched_index8(L2, 4, 2);
    want(v, "IDX-HDR-002", E, "index.atf", "endian", 4);
    atf_validation_free(v);
    v = patched_index8(L1, 5, 3);
    want(v, "IDX-HDR-003", E, "index.atf", "version", 5);
    atf_validation_free(v);
}

static void test_idx_hdr_004_to_008(void **state)
{
    (void)state;
    atf_validation *v = patched_index8(L2, 6, 9);
    want(v, "IDX-HDR-004", W, "index.atf", "arch", 6);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    v = patched_index8(L2, 7, 0);
    want(v, "IDX-HDR-005", W, "index.atf", "os", 7);
    atf_validation_free(v);
    v = patched_index8(L1, 16, 7);
    want(v, "IDX-HDR-006", W, "index.atf", "clock_type", 16);
    atf_validation_free(v);
    v = patched_index8(L2, 8, 0x11);
    want(v, "IDX-HDR-007", W, "index.atf", "flags", 8);
    atf_validation_free(v);
    v = patched_index8(L2, 18, 1);
    want(v, "IDX-HDR-008", W, "index.atf", "reserved", 18);
    atf_validation_free(v);
    /* Layout 1 has 7 reserved bytes, 17..23. */
    v = patched_index8(L1, 22, 1);
    want(v, "IDX-HDR-008", W, "index.atf", "reserved", 22);
    atf_validation_free(v);
    /* ... which are event_size in layout 2. */
    v = patched_index8(L2, 22, 1);
    assert_int_equal(count_clause(v, "IDX-HDR-008"), 0);
    want(v, "IDX-HDR-009", E, "index.atf", "event_size", 20);
    atf_validation_free(v);
}

static void test_idx_hdr_009(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    put32(&f.idx, 24, 64);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-HDR-009", E, "index.atf", "event_size", 24);
    static const char *const only[] = { "IDX-HDR-009", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_hdr_010(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.idx, 32, 10);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-HDR-010", E, "index.atf", "events_offset", 32);
    atf_validation_free(v);
    put64(&f.idx, 32, (uint64_t)f.idx.n + 1);
    v = run_thread(&f, 1);
    want(v, "IDX-HDR-010", E, "index.atf", "events_offset", 32);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_hdr_011(void **state)
{
    (void)state;
    /* 32 padding bytes between header and events: conformant, with a warning. */
    fx f;
    fx_make(&f, L2);
    buf b = { NULL, 0 };
    append(&b, f.idx.p, 64);
    static const uint8_t pad[32];
    append(&b, pad, 32);
    append(&b, f.idx.p + 64, f.idx.n - 64);
    put64(&b, 32, 96);
    put64(&b, 40, IDX_FTR + 32);
    buf_free(&f.idx);
    f.idx = b;
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-HDR-011", W, "index.atf", "events_offset", 32);
    static const char *const none[] = { NULL };
    expect_error_set(v, none);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_hdr_012_013_014(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.idx, 24, 7);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-HDR-012", E, "index.atf", "event_count", 24);
    /* footer_offset no longer matches events_offset + event_count * 32 either. */
    want(v, "IDX-HDR-013", E, "index.atf", "footer_offset", 40);
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L1);
    put32(&f.idx, 28, 9);
    v = run_thread(&f, 1);
    want(v, "IDX-HDR-012", E, "index.atf", "event_count", 28);
    atf_validation_free(v);
    fx_free(&f);

    /* footer_offset pointing past the footer: no footer there, but the one at
     * the end of the file lines up with the events and is the footer (SPEC
     * 6): the header is wrong (IDX-HDR-013), nothing is lost (no REC-004). */
    fx_make(&f, L2);
    put64(&f.idx, 40, IDX_FTR + 32);
    v = run_thread(&f, 1);
    want(v, "IDX-HDR-013", E, "index.atf", "footer_offset", 40);
    assert_int_equal(count_clause(v, "REC-004"), 0);
    atf_validation_free(v);
    /* The footer gone as well: damage, REC-004, the events before footer_offset recovered. */
    f.idx.n -= 64;
    v = run_thread(&f, 1);
    want(v, "REC-004", E, "index.atf", "footer_offset", 40);
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L2);
    put64(&f.idx, 48, 5);
    put64(&f.idx, 56, 6);
    v = run_thread(&f, 1);
    want(v, "IDX-HDR-014", E, "index.atf", "time_start_ns", 48);
    want(v, "IDX-HDR-014", E, "index.atf", "time_end_ns", 56);
    static const char *const only[] = { "IDX-HDR-014", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Index events ------------------------------------------------------------------- */

static void test_idx_evt_001(void **state)
{
    (void)state;
    for (int l = 1; l <= 2; l++) {
        fx f;
        fx_make(&f, (atf_layout)l);
        put8(&f.idx, kind_at((atf_layout)l, 3), 9);
        fix_idx_crc(&f);
        atf_validation *v = run_thread(&f, 1);
        want(v, "IDX-EVT-001", E, "index.atf", "event_kind", kind_at((atf_layout)l, 3));
        static const char *const only[] = { "IDX-EVT-001", NULL };
        expect_error_set(v, only);
        atf_validation_free(v);
        fx_free(&f);
    }
}

static void test_idx_evt_002(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put8(&f.idx, idx_ev(2) + 26, 1);
    fix_idx_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-EVT-002", W, "index.atf", "reserved", idx_ev(2) + 26);
    /* Not an unknown event kind: the kind byte is still 1. */
    assert_int_equal(count_clause(v, "IDX-EVT-001"), 0);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_evt_003(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.idx, idx_ev(5), 5);
    fix_idx_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-EVT-003", E, "index.atf", "timestamp_ns", idx_ev(5));
    static const char *const only[] = { "IDX-EVT-003", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_evt_004(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    put32(&f.idx, idx_ev(3) + 16, 5);
    fix_idx_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-EVT-004", W, "index.atf", "thread_id", idx_ev(3) + 16);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_evt_005(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.idx, dseq_at(L2, 4), 1); /* event 2 already links to detail event 1 */
    fix_idx_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-EVT-005", E, "index.atf", "detail_seq", dseq_at(L2, 4));
    /* Detail event 1 links back to event 2, not 4: */
    want(v, "LINK-002", E, "index.atf", "detail_seq", dseq_at(L2, 4));
    /* ... and detail event 2 names event 4, which links elsewhere. */
    want(v, "LINK-004", E, "detail.atf", "index_seq", det_ev(2) + 8);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Index footer ------------------------------------------------------------------- */

static void test_idx_ftr_001(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.idx, IDX_FTR + 8, 1000);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-FTR-001", E, "index.atf", "footer.event_count", IDX_FTR + 8);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_ftr_002(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    put64(&f.idx, IDX_FTR + 32, 100);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-FTR-002", E, "index.atf", "footer.bytes_written", IDX_FTR + 32);
    static const char *const only[] = { "IDX-FTR-002", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_ftr_003(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.idx, IDX_FTR + 24, 1);
    put64(&f.idx, 56, 1); /* the header agrees with the footer */
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-FTR-003", E, "index.atf", "footer.time_end_ns", IDX_FTR + 24);
    static const char *const only[] = { "IDX-FTR-003", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_ftr_004(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put8(&f.idx, IDX_FTR + 50, 1);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-FTR-004", W, "index.atf", "footer.reserved", IDX_FTR + 50);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_idx_ftr_005(void **state)
{
    (void)state;
    /* Errata E-7: a 68-byte footer leaves 4 bytes after the footer. */
    fx f;
    fx_make(&f, L1);
    resize(&f.idx, f.idx.n + 4, 0);
    atf_validation *v = run_thread(&f, 1);
    want(v, "IDX-FTR-005", E, "index.atf", "footer", IDX_FTR + 64);
    atf_validation_free(v);
    fx_free(&f);
    /* A gap between the last event and the footer: header and footer say 7 events. */
    fx_make(&f, L2);
    put64(&f.idx, IDX_FTR + 8, 7);
    put64(&f.idx, IDX_FTR + 32, 7 * 32);
    put64(&f.idx, 24, 7);
    put64(&f.idx, 40, IDX_FTR);
    put32(&f.idx, IDX_FTR + 4, atf_crc32c(0, f.idx.p + 64, 7 * 32));
    put64(&f.idx, IDX_FTR + 24, small_ts(6));
    put64(&f.idx, 56, small_ts(6));
    v = run_thread(&f, 1);
    want(v, "IDX-FTR-005", E, "index.atf", "footer", idx_ev(7));
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Detail header ------------------------------------------------------------------ */

static atf_validation *patched_detail8(atf_layout l, size_t off, uint8_t val)
{
    fx f;
    fx_make(&f, l);
    put8(&f.det, off, val);
    atf_validation *v = run_thread(&f, 1);
    fx_free(&f);
    return v;
}

static void test_det_hdr_001_to_003(void **state)
{
    (void)state;
    atf_validation *v = patched_detail8(L2, 1, 'X');
    want(v, "DET-HDR-001", E, "detail.atf", "magic", 0);
    atf_validation_free(v);
    v = patched_detail8(L1, 4, 0);
    want(v, "DET-HDR-002", E, "detail.atf", "endian", 4);
    atf_validation_free(v);
    v = patched_detail8(L2, 5, 0);
    want(v, "DET-HDR-003", E, "detail.atf", "version", 5);
    atf_validation_free(v);
    /* A detail file too short for its header, validated alone. */
    fx f;
    fx_make(&f, L2);
    atf_validation *w = NULL;
    assert_int_equal(atf_validate_detail_memory(&w, f.det.p, 63, NULL, NULL, NULL), ATF_OK);
    want(w, "REC-001", W, "detail.atf", "header", 0);
    assert_true(atf_validation_conformant(w));
    atf_validation_free(w);
    put8(&f.det, 4, 7);
    assert_int_equal(atf_validate_detail_memory(&w, f.det.p, 63, NULL, NULL, NULL), ATF_OK);
    want(w, "DET-HDR-001", E, "detail.atf", "header", 0);
    atf_validation_free(w);
    fx_free(&f);
}

static void test_det_hdr_004_005(void **state)
{
    (void)state;
    atf_validation *v = patched_detail8(L2, 6, 3);
    want(v, "DET-HDR-004", W, "detail.atf", "arch", 6);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    v = patched_detail8(L2, 7, 6);
    want(v, "DET-HDR-004", W, "detail.atf", "os", 7);
    atf_validation_free(v);
    v = patched_detail8(L1, 8, 1);
    want(v, "DET-HDR-005", W, "detail.atf", "flags", 8);
    atf_validation_free(v);
    v = patched_detail8(L2, 17, 1);
    want(v, "DET-HDR-005", W, "detail.atf", "reserved", 17);
    atf_validation_free(v);
    v = patched_detail8(L2, 62, 1);
    want(v, "DET-HDR-005", W, "detail.atf", "reserved", 62);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
}

static void test_det_hdr_006(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.det, 20, 63);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-HDR-006", E, "detail.atf", "events_offset", 20);
    atf_validation_free(v);
    put64(&f.det, 20, UINT64_MAX);
    v = run_thread(&f, 1);
    want(v, "DET-HDR-006", E, "detail.atf", "events_offset", 20);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_hdr_007(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.det, 28, 5);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-HDR-007", E, "detail.atf", "event_count", 28);
    static const char *const only[] = { "DET-HDR-007", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
    /* The footer's bytes_length disagrees with the header's (and the section). */
    fx_make(&f, L1);
    put64(&f.det, DET_FTR + 16, 1);
    v = run_thread(&f, 1);
    want(v, "DET-HDR-007", E, "detail.atf", "bytes_length", 36);
    want(v, "DET-FTR-002", E, "detail.atf", "footer.bytes_length", DET_FTR + 16);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_hdr_008(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.det, 44, 1);
    put64(&f.det, 52, 99);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-HDR-008", E, "detail.atf", "index_seq_start", 44);
    want(v, "DET-HDR-008", E, "detail.atf", "index_seq_end", 52);
    static const char *const only[] = { "DET-HDR-008", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Detail events ------------------------------------------------------------------ */

static void test_det_evt_001(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put32(&f.det, det_ev(1), 10);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-EVT-001", E, "detail.atf", "total_length", det_ev(1));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_evt_002(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    put32(&f.det, det_ev(3), DET_LEN + 60);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-EVT-002", E, "detail.atf", "total_length", det_ev(3));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_evt_003(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put16(&f.det, det_ev(2) + 4, 9);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-EVT-003", W, "detail.atf", "event_type", det_ev(2) + 4);
    /* Type 9 is not a function event: its payload is not checked as ARM64. */
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_evt_004(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.det, det_ev(2) + 16, 7);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-EVT-004", E, "detail.atf", "timestamp", det_ev(2) + 16);
    want(v, "LINK-007", W, "detail.atf", "timestamp", det_ev(2) + 16);
    static const char *const only[] = { "DET-EVT-004", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_evt_005(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    put32(&f.det, det_ev(2) + 8, 2);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-EVT-005", E, "detail.atf", "index_seq", det_ev(2) + 8);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_evt_006(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    put32(&f.det, det_ev(1) + 12, 5);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-EVT-006", W, "detail.atf", "thread_id", det_ev(1) + 12);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Detail footer ------------------------------------------------------------------- */

static void test_det_ftr(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.det, DET_FTR + 8, 3);
    put64(&f.det, 28, 3); /* the header agrees with the footer */
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-FTR-001", E, "detail.atf", "footer.event_count", DET_FTR + 8);
    static const char *const only1[] = { "DET-FTR-001", NULL };
    expect_error_set(v, only1);
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L2);
    put64(&f.det, DET_FTR + 16, 100);
    put64(&f.det, 36, 100);
    v = run_thread(&f, 1);
    /* The header now places the footer elsewhere: no footer there. */
    want(v, "REC-004", E, "detail.atf", "footer.magic", 64 + 100);
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L1);
    put64(&f.det, DET_FTR + 24, 1);
    v = run_thread(&f, 1);
    want(v, "DET-FTR-003", E, "detail.atf", "footer.time_start_ns", DET_FTR + 24);
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L2);
    put8(&f.det, DET_FTR + 41, 1);
    v = run_thread(&f, 1);
    want(v, "DET-FTR-004", W, "detail.atf", "footer.reserved", DET_FTR + 41);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L2);
    resize(&f.det, f.det.n + 1, 0xAA);
    v = run_thread(&f, 1);
    want(v, "DET-FTR-005", E, "detail.atf", "footer", DET_FTR + 64);
    static const char *const only5[] = { "DET-FTR-005", NULL };
    expect_error_set(v, only5);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_det_ftr_002(void **state)
{
    (void)state;
    /* Placeholder header: the footer is found at the end only when its
     * bytes_length matches; a finalized header places it at
     * events_offset + bytes_length, where a disagreeing footer is found. */
    fx f;
    fx_make(&f, L2);
    put64(&f.det, DET_FTR + 16, 140);
    atf_validation *v = run_thread(&f, 1);
    want(v, "DET-FTR-002", E, "detail.atf", "footer.bytes_length", DET_FTR + 16);
    want(v, "DET-HDR-007", E, "detail.atf", "bytes_length", 36);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- ARM64 payloads ------------------------------------------------------------------- */

static atf_validation *with_payload0(const uint8_t *p, uint32_t n)
{
    fx_opts o = fx_defaults(L2);
    o.payload[0] = p;
    o.payload_size[0] = n;
    fx f;
    fx_build(&f, &o);
    atf_validation *v = run_thread(&f, 1);
    fx_free(&f);
    return v;
}

static void test_arm_pay_001_to_003(void **state)
{
    (void)state;
    uint8_t p[500];
    memset(p, 0, sizeof p);
    size_t n = arm64_payload(p, small_fid(0), 16);
    atf_validation *v = with_payload0(p, 50);
    want(v, "ARM-PAY-001", E, "detail.atf", "payload", det_ev(0) + 24);
    atf_validation_free(v);

    /* stack_size 300 with a payload of 100 + 300 bytes: only the bound is broken. */
    p[96] = 300 & 0xFF;
    p[97] = 300 >> 8;
    v = with_payload0(p, 400);
    want(v, "ARM-PAY-002", E, "detail.atf", "stack_size", det_ev(0) + 24 + 96);
    assert_int_equal(count_clause(v, "ARM-PAY-003"), 0);
    atf_validation_free(v);

    /* stack_size 16, 4 extra bytes. */
    n = arm64_payload(p, small_fid(0), 16);
    v = with_payload0(p, (uint32_t)n + 4);
    want(v, "ARM-PAY-003", E, "detail.atf", "stack_size", det_ev(0) + 24 + 96);
    static const char *const only[] = { "ARM-PAY-003", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
}

static void test_arm_pay_004_005(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put16(&f.det, det_ev(0) + 24 + 98, 0xBEEF);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "ARM-PAY-004", W, "detail.atf", "reserved", det_ev(0) + 24 + 98);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L1);
    put64(&f.det, det_ev(1) + 24, 0xDEAD);
    fix_det_crc(&f);
    v = run_thread(&f, 1);
    want(v, "ARM-PAY-005", E, "detail.atf", "function_id", det_ev(1) + 24);
    static const char *const only[] = { "ARM-PAY-005", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Cross-lane links ---------------------------------------------------------------- */

static void test_link_001(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.idx, dseq_at(L2, 6), 9);
    fix_idx_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "LINK-001", E, "index.atf", "detail_seq", dseq_at(L2, 6));
    want(v, "LINK-004", E, "detail.atf", "index_seq", det_ev(3) + 8);
    atf_validation_free(v);
    fx_free(&f);

    /* Recoverable: the detail file lost its last two events in a crash. */
    fx_make(&f, L1);
    det_crash(&f);
    resize(&f.det, det_ev(2) + 30, 0x55);
    v = run_thread(&f, 1);
    want(v, "LINK-001", W, "index.atf", "detail_seq", dseq_at(L1, 4));
    want(v, "LINK-001", W, "index.atf", "detail_seq", dseq_at(L1, 6));
    want(v, "REC-001", W, "detail.atf", "footer", det_ev(2));
    want(v, "REC-002", W, "detail.atf", "event", det_ev(2));
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);

    /* SPEC 7a.4: the same when the detail file is damaged (finalized header,
     * footer gone): REC-004 is the error, the lost links are warnings. */
    fx_make(&f, L2);
    resize(&f.det, det_ev(3), 0);
    v = run_thread(&f, 1);
    want(v, "LINK-001", W, "index.atf", "detail_seq", dseq_at(L2, 6));
    want(v, "REC-004", E, "detail.atf", "bytes_length", 36); /* the footer's place is past the end */
    static const char *const only[] = { "REC-004", "DET-HDR-007", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_link_002_004(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.det, det_ev(3) + 8, 7);
    put64(&f.det, 52, 7);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "LINK-002", E, "index.atf", "detail_seq", dseq_at(L2, 6));
    want(v, "LINK-004", E, "detail.atf", "index_seq", det_ev(3) + 8);
    static const char *const only[] = { "LINK-002", "LINK-004", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_link_003(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    put32(&f.det, det_ev(3) + 8, 100);
    put64(&f.det, 52, 100);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "LINK-003", E, "detail.atf", "index_seq", det_ev(3) + 8);
    atf_validation_free(v);
    fx_free(&f);

    /* Recoverable: the index file was cut after 5 events. */
    fx_make(&f, L2);
    idx_crash(&f);
    resize(&f.idx, idx_ev(5), 0);
    v = run_thread(&f, 1);
    want(v, "LINK-003", W, "detail.atf", "index_seq", det_ev(3) + 8);
    want(v, "REC-001", W, "index.atf", "footer", idx_ev(5));
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);

    /* ... and when the index file is damaged (finalized, footer gone). */
    fx_make(&f, L1);
    resize(&f.idx, idx_ev(5), 0);
    v = run_thread(&f, 1);
    want(v, "LINK-003", W, "detail.atf", "index_seq", det_ev(3) + 8);
    want(v, "REC-004", E, "index.atf", "footer_offset", 40);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_link_005(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put32(&f.idx, 8, 0);
    atf_validation *v = run_thread(&f, 1);
    want(v, "LINK-005", E, "index.atf", "flags", 8);
    atf_validation_free(v);
    fx_free(&f);
    /* Flag set, no detail file (and no links). */
    fx_opts o = fx_defaults(L1);
    o.with_detail = 0;
    fx_build(&f, &o);
    put32(&f.idx, 8, 1);
    v = run_thread(&f, 0);
    want(v, "LINK-005", E, "index.atf", "flags", 8);
    static const char *const only[] = { "LINK-005", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_link_006(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put32(&f.idx, 8, 0);
    atf_validation *v = run_thread(&f, 0);
    want(v, "LINK-006", E, "index.atf", "detail_seq", dseq_at(L2, 0));
    want(v, "LINK-006", E, "index.atf", "detail_seq", dseq_at(L2, 6));
    assert_int_equal(count_clause(v, "LINK-006"), 4);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_link_007_008(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put64(&f.det, det_ev(1) + 16, small_ts(2) + 1);
    fix_det_crc(&f);
    atf_validation *v = run_thread(&f, 1);
    want(v, "LINK-007", W, "detail.atf", "timestamp", det_ev(1) + 16);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L1);
    put32(&f.det, 12, 78);
    v = run_thread(&f, 1);
    want(v, "LINK-008", E, "detail.atf", "thread_id", 12);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Manifest and session ----------------------------------------------------------- */

static void test_ses_man_001(void **state)
{
    (void)state;
    atf_validation *v = session_with(NULL, L2);
    want(v, "SES-MAN-001", W, "manifest.json", NULL, NONE);
    assert_int_equal(atf_validation_finding_count(v), 1);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
}

/* SPEC 7a.14: a manifest.json cut by a power cut while it was being replaced
 * (a proper prefix of a JSON object, then zeros) is crash-truncated: read as
 * absent, SES-MAN-001 and REC-001 (warnings), and the session reader opens
 * the thread directories; a syntax error before the end stays SES-MAN-002. */
static atf_validation *session_with_bytes(const char *bytes, size_t n, size_t threads, atf_session **s)
{
    char dir[64], p[256];
    tmp_dir(dir, sizeof dir, "cut");
    fx a, b;
    fx_make(&a, L2);
    fx_make(&b, L2);
    sthr t[2] = { { 0, &a, 1 }, { 1, &b, 1 } };
    mk_session(dir, NULL, t, threads);
    write_file(pjoin(p, sizeof p, dir, "manifest.json"), bytes, n);
    atf_validation *v = run_path(dir, NULL);
    atf_error err;
    *s = NULL;
    atf_status st = atf_session_open(s, dir, NULL, &err);
    if (st != ATF_OK)
        *s = NULL;
    rm_rf(dir);
    fx_free(&a);
    fx_free(&b);
    return v;
}

static void test_ses_man_cut(void **state)
{
    (void)state;
    const char *good = GOOD_MANIFEST("\"symbols\":[{\"function_id\":4096,\"name\":\"caf\xc3\xa9\\u00e9\"}],");
    const size_t n = strlen(good);
    char cutbuf[512];
    assert_true(n < sizeof cutbuf);
    for (size_t k = 0; k < n; k++) {
        for (int zeros = 0; zeros < 2; zeros++) {
            memcpy(cutbuf, good, k);
            size_t size = zeros ? 512 : k;
            memset(cutbuf + k, 0, size - k);
            atf_session *s;
            atf_validation *v = session_with_bytes(cutbuf, size, 2, &s);
            if (!atf_validation_conformant(v) || count_clause(v, "SES-MAN-002")) {
                print_report(v);
                fail_msg("manifest cut at %zu%s: not read as crash-truncated", k, zeros ? " (NUL tail)" : "");
            }
            if (size > 0) {   /* an empty manifest is absent, not cut (errata E-28) */
                want(v, "SES-MAN-001", W, "manifest.json", NULL, NONE);
                want(v, "REC-001", W, "manifest.json", NULL, k);
            }
            assert_non_null(s);
            assert_null(atf_session_manifest(s));
            assert_null(atf_session_manifest_error(s));
            assert_int_equal(atf_session_thread_count(s), 2);
            assert_true(size == 0 || strstr(atf_session_manifest_note(s), "crash-truncated") != NULL);
            atf_session_close(s);
            atf_validation_free(v);
        }
    }
    /* A cut manifest and no thread directory yet: a session of 0 threads. */
    atf_session *s;
    atf_validation *v = session_with_bytes(good, 100, 0, &s);
    want(v, "SES-MAN-011", W, "manifest.json", NULL, NONE);
    assert_true(atf_validation_conformant(v));
    assert_non_null(s);
    assert_int_equal(atf_session_thread_count(s), 0);
    atf_session_close(s);
    atf_validation_free(v);
    /* A wrong byte before the end, a complete text followed by zeros or by
     * garbage, an array, a bare word: SES-MAN-002 (an error), no REC-001,
     * and the reader reports the manifest. */
    char flipped[200], zeros[512], garbage[512];
    memcpy(flipped, good, sizeof flipped);
    flipped[20] = '\x01';   /* inside a string: a raw control character */
    memset(zeros, 0, sizeof zeros);
    memcpy(zeros, good, n);
    memcpy(garbage, good, n);
    garbage[n] = 'x';
    const struct {
        const char *p;
        size_t n;
    } bad[] = { { flipped, sizeof flipped }, { zeros, sizeof zeros }, { garbage, n + 1 }, { "[1,", 3 }, { "  x", 3 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = session_with_bytes(bad[i].p, bad[i].n, 2, &s);
        if (count_clause(v, "SES-MAN-002") != 1 || count_clause(v, "REC-001") != 0 ||
            atf_validation_conformant(v)) {
            print_report(v);
            fail_msg("bad manifest %zu: not SES-MAN-002 alone", i);
        }
        g_asserted[atf_clause_index("SES-MAN-002")] = 1;
        assert_non_null(s);
        assert_non_null(atf_session_manifest_error(s));
        assert_null(atf_session_manifest_note(s));
        atf_session_close(s);
        atf_validation_free(v);
    }
}

static void ses_man_002(const char *manifest, const char *field)
{
    atf_validation *v = session_with(manifest, L2);
    want(v, "SES-MAN-002", E, "manifest.json", field, NONE);
    atf_validation_free(v);
}

static void ses_man_013(const char *manifest, const char *field)
{
    atf_validation *v = session_with(manifest, L2);
    want(v, "SES-MAN-013", E, "manifest.json", field, NONE);
    for (size_t i = 0; i < atf_validation_finding_count(v); i++)
        assert_string_not_equal(atf_validation_finding_at(v, i)->clause, "SES-MAN-002");
    atf_validation_free(v);
}

/* Valid JSON outside a key's range (SPEC 5, errata E-27): SES-MAN-013, never
 * SES-MAN-002; JSON integers up to 2^64-1 are u64 values. */
static void test_ses_man_013(void **state)
{
    (void)state;
    ses_man_013("{\"threads\":[{\"id\":0},{\"id\":-1}]}", "threads[1].id");
    ses_man_013("{\"clock_type\":300,\"threads\":[{\"id\":0},{\"id\":1}]}", "clock_type");
    ses_man_013("{\"threads\":[{\"id\":0},{\"id\":1.0}]}", "threads[1].id");
    ses_man_013("{\"threads\":[{\"id\":0},{\"id\":\"18446744073709551616\"}]}", "threads[1].id");
    ses_man_013("{\"time_end_ns\":18446744073709551616,\"threads\":[{\"id\":0},{\"id\":1}]}", "time_end_ns");
    ses_man_013("{\"events_dropped\":1e3,\"threads\":[{\"id\":0},{\"id\":1}]}", "events_dropped");
    ses_man_013("{\"modules\":[{\"module_id\":1,\"size\":-5}],\"threads\":[{\"id\":0},{\"id\":1}]}",
                "modules[0].size");
    ses_man_013("{\"timing_anchors\":[{\"host_time_ns\":1,\"media_time_value\":0,\"media_time_scale\":0}],"
                "\"threads\":[{\"id\":0},{\"id\":1}]}",
                "timing_anchors[0].media_time_scale");
    ses_man_013("{\"timing_anchors\":[{\"host_time_ns\":1,\"media_time_value\":9223372036854775808,"
                "\"media_time_scale\":1}],\"threads\":[{\"id\":0},{\"id\":1}]}",
                "timing_anchors[0].media_time_value");
    /* 2^64-1 as a plain JSON integer is a u64 (no SES-MAN-002, no SES-MAN-013). */
    atf_validation *v = session_with("{\"events_dropped\":0,\"time_end_ns\":18446744073709551615,"
                                     "\"threads\":[{\"id\":0},{\"id\":1}]}", L2);
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const char *c = atf_validation_finding_at(v, i)->clause;
        assert_true(strcmp(c, "SES-MAN-002") != 0 && strcmp(c, "SES-MAN-013") != 0);
    }
    atf_validation_free(v);
}

static void test_ses_man_002(void **state)
{
    (void)state;
    ses_man_002("[1, 2]", NULL);
    ses_man_002("{\"threads\":{}}", "threads");
    ses_man_002("{\"time_start_ns\":1}", "threads");
    ses_man_002("{\"threads\":[7]}", "threads[0]");
    ses_man_002("{\"threads\":[{\"id\":0},{\"id\":\"0x\"}]}", "threads[1].id");
    ses_man_002("{\"threads\":[{\"id\":0},{\"id\":\" 1\"}]}", "threads[1].id");
    ses_man_002("{\"threads\":[{\"id\":0,\"has_detail\":\"yes\"},{\"id\":1}]}", "threads[0].has_detail");
    ses_man_002("{\"threads\":[{\"id\":0},{\"id\":\"0x0\"}]}", "threads[1].id"); /* duplicate id */
    ses_man_002("{\"format_version\":2,\"threads\":[{\"id\":0},{\"id\":1}]}", "format_version");
    ses_man_002("{\"time_end_ns\":true,\"threads\":[{\"id\":0},{\"id\":1}]}", "time_end_ns");
    ses_man_002("{\"modules\":[{\"path\":\"/x\"}],\"threads\":[{\"id\":0},{\"id\":1}]}", "modules[0].module_id");
    ses_man_002("{\"modules\":[{\"module_id\":1,\"uuid\":5}],\"threads\":[{\"id\":0},{\"id\":1}]}", "modules[0].uuid");
    ses_man_002("{\"symbols\":[{\"function_id\":\"0x10\"}],\"threads\":[{\"id\":0},{\"id\":1}]}", "symbols[0].name");
    /* Syntax errors (and duplicate keys, which the codec refuses) carry the
     * byte offset where the parser stopped; the thread directories are still
     * validated (discovered). */
    static const char *const syntax[] = { "{\"threads\": [}", GOOD_MANIFEST("\"clock_type\":3,"), " ", "\xff" };
    for (size_t k = 0; k < sizeof syntax / sizeof syntax[0]; k++) {
        atf_validation *v = session_with(syntax[k], L2);
        int found = 0;
        for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
            const atf_validate_finding *f = atf_validation_finding_at(v, i);
            if (!strcmp(f->clause, "SES-MAN-002")) {
                assert_true(f->offset != NONE && f->offset <= strlen(syntax[k]));
                assert_null(f->field);
                found = 1;
            }
        }
        if (!found) {
            print_report(v);
            fail_msg("no SES-MAN-002 for manifest %zu", k);
        }
        assert_true(atf_validation_clause_checked(v, atf_clause_index("LINK-002")));
        assert_false(atf_validation_clause_checked(v, atf_clause_index("SES-MAN-004")));
        atf_validation_free(v);
    }
    atf_validation *v;
    /* Every u64 spelling the spec allows is accepted. */
    v = session_with("{\"time_start_ns\":\"1000000\",\"time_end_ns\":\"0xF4286\",\"clock_type\":\"3\","
                     "\"events_dropped\":0,\"threads\":[{\"id\":\"0x0\"},{\"id\":\"1\",\"has_detail\":true}]}",
                     L2);
    expect_clean(v);
    atf_validation_free(v);
}

static void test_ses_man_003_004_005(void **state)
{
    (void)state;
    char dir[64], p[128];
    tmp_dir(dir, sizeof dir, "ses3");
    fx a, b;
    fx_make(&a, L2);
    fx_make(&b, L2);
    /* thread_9 not listed; thread 5 listed without a directory; thread 0's
     * detail.atf exists although has_detail is false; thread_3 has no index.atf. */
    sthr t[3] = { { 0, &a, 1 }, { 9, &b, 1 }, { 3, NULL, 0 } };
    mk_session(dir,
               "{\"time_start_ns\":1000000,\"time_end_ns\":1000070,"
               "\"threads\":[{\"id\":0,\"has_detail\":false},{\"id\":5},{\"id\":3}]}",
               t, 3);
    atf_validation *v = run_path(dir, NULL);
    want(v, "SES-MAN-003", E, "thread_5/index.atf", "threads[1].id", NONE);
    want(v, "SES-MAN-003", E, "thread_3/index.atf", "threads[2].id", NONE);
    want(v, "SES-MAN-004", W, "manifest.json", "threads", NONE);
    want(v, "SES-MAN-005", W, "manifest.json", "threads[0].has_detail", NONE);
    /* File order: manifest, then threads by id. */
    assert_string_equal(atf_validation_finding_at(v, 0)->file, "manifest.json");
    const char *last = atf_validation_finding_at(v, atf_validation_finding_count(v) - 1)->file;
    assert_string_equal(last, "thread_5/index.atf");
    atf_validation_free(v);
    rm_rf(dir);
    /* has_detail true, no detail.atf (the ADA tracer's habit): a warning. */
    tmp_dir(dir, sizeof dir, "ses5");
    put32(&a.idx, 8, 0);
    put64(&a.idx, dseq_at(L2, 0), UINT64_MAX);
    put64(&a.idx, dseq_at(L2, 2), UINT64_MAX);
    put64(&a.idx, dseq_at(L2, 4), UINT64_MAX);
    put64(&a.idx, dseq_at(L2, 6), UINT64_MAX);
    fix_idx_crc(&a);
    sthr u[1] = { { 4, &a, 0 } };
    mk_session(dir, "{\"time_start_ns\":1,\"time_end_ns\":2000000,\"threads\":[{\"id\":4,\"has_detail\":true}]}", u,
               1);
    v = run_path(dir, NULL);
    want(v, "SES-MAN-005", W, "manifest.json", "threads[0].has_detail", NONE);
    assert_int_equal(atf_validation_finding_count(v), 1);
    atf_validation_free(v);
    rm_rf(dir);
    (void)p;
    fx_free(&a);
    fx_free(&b);
}

static void test_ses_man_006_to_010(void **state)
{
    (void)state;
    atf_validation *v = session_with("{\"threads\":[{\"id\":0},{\"id\":1}]}", L2);
    want(v, "SES-MAN-006", W, "manifest.json", "time_start_ns", NONE);
    want(v, "SES-MAN-006", W, "manifest.json", "time_end_ns", NONE);
    assert_int_equal(atf_validation_finding_count(v), 2);
    atf_validation_free(v);

    v = session_with("{\"time_start_ns\":1000001,\"time_end_ns\":1000069,\"threads\":[{\"id\":0},{\"id\":1}]}", L2);
    want(v, "SES-MAN-007", E, "manifest.json", "time_start_ns", NONE);
    want(v, "SES-MAN-007", E, "manifest.json", "time_end_ns", NONE);
    atf_validation_free(v);

    v = session_with("{\"clock_type\":1,\"time_start_ns\":1,\"time_end_ns\":2000000,\"threads\":[{\"id\":0},{\"id\":1}]}",
                     L2);
    want(v, "SES-MAN-008", W, "manifest.json", "clock_type", NONE);
    atf_validation_free(v);

    v = session_with("{\"format_version\":\"3.0\",\"events_dropped\":\"5\",\"time_start_ns\":1,\"time_end_ns\":2000000,"
                     "\"threads\":[{\"id\":0},{\"id\":1}]}",
                     L2);
    want(v, "SES-MAN-009", W, "manifest.json", "format_version", NONE);
    want(v, "SES-MAN-010", W, "manifest.json", "events_dropped", NONE);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
}

/* The summary of findings left out names an offset only when they have one. */
static void test_summary_without_offset(void **state)
{
    (void)state;
    char dir[64];
    tmp_dir(dir, sizeof dir, "sum");
    fx a, b;
    fx_make(&a, L2);
    fx_make(&b, L2);
    sthr t[2] = { { 0, &a, 1 }, { 1, &b, 1 } };
    mk_session(dir, "{\"threads\":[{\"id\":0},{\"id\":1}]}", t, 2);   /* SES-MAN-006 twice, no offset */
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.max_per_clause = 1;
    atf_validation *v = run_path(dir, &o);
    assert_int_equal(atf_validation_finding_count(v), 2);
    const atf_validate_finding *f = atf_validation_finding_at(v, 1);
    assert_string_equal(f->clause, "SES-MAN-006");
    assert_string_equal(f->message, "1 more finding(s) of this clause in this file not listed");
    atf_validation_free(v);
    rm_rf(dir);
    fx_free(&a);
    fx_free(&b);
}

static void test_ses_man_011(void **state)
{
    (void)state;
    char dir[64], p[128];
    tmp_dir(dir, sizeof dir, "ses11");
    write_file(pjoin(p, sizeof p, dir, "manifest.json"), "{\"threads\":[]}", 14);
    atf_validation *v = run_path(dir, NULL);
    want(v, "SES-MAN-011", W, "manifest.json", "threads", NONE);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    rm_rf(dir);
}

static void test_ses_man_012_and_nul(void **state)
{
    (void)state;
    /* The same function_id twice (a number and a hex string): a warning per
     * repeat, naming the first entry; a symbols array is checked even when clean. */
    atf_validation *v = session_with("{\"time_start_ns\":1,\"time_end_ns\":2000000,\"threads\":[{\"id\":0},{\"id\":1}],"
                                     "\"symbols\":[{\"function_id\":7,\"name\":\"a\"},{\"function_id\":8,\"name\":\"b\"},"
                                     "{\"function_id\":\"0x7\",\"name\":\"c\"},{\"function_id\":7,\"name\":\"d\"}]}",
                                     L2);
    want(v, "SES-MAN-012", W, "manifest.json", "symbols[2].function_id", NONE);
    want(v, "SES-MAN-012", W, "manifest.json", "symbols[3].function_id", NONE);
    assert_int_equal(atf_validation_finding_count(v), 2);
    assert_non_null(strstr(atf_validation_finding_at(v, 0)->message, "first at symbols[0]"));
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    v = session_with("{\"time_start_ns\":1,\"time_end_ns\":2000000,\"threads\":[{\"id\":0},{\"id\":1}],"
                     "\"symbols\":[{\"function_id\":7,\"name\":\"a\"},{\"function_id\":8,\"name\":\"b\"}]}",
                     L2);
    assert_true(atf_validation_clause_checked(v, atf_clause_index("SES-MAN-012")));
    assert_int_equal(atf_validation_finding_count(v), 0);
    atf_validation_free(v);
    /* U+0000 in an unknown key is ignored (SPEC 5); in a symbol name it is SES-MAN-002. */
    v = session_with("{\"time_start_ns\":1,\"time_end_ns\":2000000,\"threads\":[{\"id\":0},{\"id\":1}],"
                     "\"x-vendor\":\"a\\u0000b\"}",
                     L2);
    assert_int_equal(atf_validation_finding_count(v), 0);
    atf_validation_free(v);
    v = session_with("{\"time_start_ns\":1,\"time_end_ns\":2000000,\"threads\":[{\"id\":0},{\"id\":1}],"
                     "\"symbols\":[{\"function_id\":7,\"name\":\"a\\u0000b\"}]}",
                     L2);
    want(v, "SES-MAN-002", E, "manifest.json", "symbols[0].name", NONE);
    assert_null(strstr(atf_validation_finding_at(v, 0)->message, "JSON_"));
    atf_validation_free(v);
}

static void test_session_x_resolves_pid(void **state)
{
    (void)state;
    char dir[64], p[128];
    tmp_dir(dir, sizeof dir, "sesx");
    pjoin(p, sizeof p, dir, "pid_4242");
    assert_int_equal(mkdir(p, 0755), 0);
    fx a;
    fx_make(&a, L1);
    sthr t[1] = { { 0, &a, 1 } };
    mk_session(p, "{\"format_version\":\"9\",\"time_start_ns\":1,\"time_end_ns\":2000000,\"threads\":[{\"id\":0}]}", t,
               1);
    atf_validation *v = run_path(dir, NULL);
    want(v, "SES-MAN-009", W, "pid_4242/manifest.json", "format_version", NONE);
    assert_string_equal(atf_validation_path(v), dir);
    atf_validation_free(v);
    fx_free(&a);
    rm_rf(dir);
}

/* ---- Crash recovery ------------------------------------------------------------------- */

static void test_rec_001_002(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    idx_crash(&f);
    det_crash(&f);
    atf_validation *v = run_thread(&f, 1);
    const atf_validate_finding *r = want(v, "REC-001", W, "index.atf", "footer", IDX_FTR);
    assert_non_null(strstr(r->message, "8 complete events recovered"));
    r = want(v, "REC-001", W, "detail.atf", "footer", DET_FTR);
    assert_non_null(strstr(r->message, "4 complete events recovered"));
    assert_int_equal(atf_validation_recovered_count(v), 2);
    assert_string_equal(atf_validation_recovered_at(v, 0)->file, "index.atf");
    assert_int_equal(atf_validation_recovered_at(v, 0)->events, 8);
    assert_int_equal(atf_validation_recovered_at(v, 1)->events, 4);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    /* Strict mode fails it. */
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.strict = 1;
    assert_int_equal(atf_validate_thread_memory(&v, f.idx.p, f.idx.n, f.det.p, f.det.n, &o, NULL), ATF_OK);
    assert_false(atf_validation_conformant(v));
    atf_validation_free(v);

    /* A partial record: index cut 5 bytes into event 8's place, detail cut inside event 2. */
    resize(&f.idx, IDX_FTR + 5, 0x33);
    resize(&f.det, det_ev(2) + 10, 0x33);
    v = run_thread(&f, 1);
    want(v, "REC-002", W, "index.atf", "event", IDX_FTR);
    want(v, "REC-002", W, "detail.atf", "event", det_ev(2));
    r = want(v, "REC-001", W, "detail.atf", "footer", det_ev(2));
    assert_non_null(strstr(r->message, "2 complete events recovered, 10 trailing bytes ignored"));
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    /* Zero bytes (a preallocated file) after the recovered events are not a
     * partial record (REC-005 lists them apart): only REC-001 counts them. */
    resize(&f.det, det_ev(2), 0);
    resize(&f.det, det_ev(2) + 300, 0);
    resize(&f.idx, IDX_FTR, 0);
    resize(&f.idx, IDX_FTR + 20, 0);
    v = run_thread(&f, 1);
    r = want(v, "REC-001", W, "detail.atf", "footer", det_ev(2));
    assert_non_null(strstr(r->message, "2 complete events recovered, 300 trailing bytes ignored"));
    r = want(v, "REC-001", W, "index.atf", "footer", IDX_FTR);
    assert_non_null(strstr(r->message, "20 trailing bytes ignored"));
    assert_int_equal(count_clause(v, "REC-002"), 0);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_rec_003(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L1);
    buf ftr = { NULL, 0 }, dftr = { NULL, 0 };
    append(&ftr, f.idx.p + IDX_FTR, 40);
    append(&dftr, f.det.p + DET_FTR, 20);
    idx_crash(&f);
    det_crash(&f);
    append(&f.idx, ftr.p, ftr.n);
    append(&f.det, dftr.p, dftr.n);
    atf_validation *v = run_thread(&f, 1);
    want(v, "REC-003", W, "index.atf", "footer", IDX_FTR);
    want(v, "REC-003", W, "detail.atf", "footer", DET_FTR);
    assert_int_equal(atf_validation_recovered_at(v, 0)->events, 8);
    assert_int_equal(atf_validation_recovered_at(v, 1)->events, 4);
    assert_int_equal(count_clause(v, "IDX-EVT-001"), 0);
    assert_true(atf_validation_conformant(v));
    atf_validation_free(v);
    /* Too short to hold the count (SPEC 7a.5): a partial record. */
    resize(&f.det, DET_FTR + 10, 0);
    resize(&f.idx, IDX_FTR + 20, 0);
    memcpy(f.idx.p + IDX_FTR, ftr.p, 20);
    v = run_thread(&f, 1);
    want(v, "REC-002", W, "detail.atf", "event", DET_FTR);
    want(v, "REC-002", W, "index.atf", "event", IDX_FTR);
    assert_int_equal(count_clause(v, "REC-003"), 0);
    atf_validation_free(v);
    buf_free(&ftr);
    buf_free(&dftr);
    fx_free(&f);
}

static void test_zero_filled_tails(void **state)
{
    (void)state;
    /* SPEC 7a.6: whole zero records after a crash are not events, and a zero
     * tail is counted in REC-001's trailing bytes only. */
    fx f;
    fx_make(&f, L2);
    idx_crash(&f);
    det_crash(&f);
    resize(&f.idx, IDX_FTR + 4096 + 7, 0);
    resize(&f.det, DET_FTR + 4096, 0);
    atf_validation *v = run_thread(&f, 1);
    const atf_validate_finding *r = want(v, "REC-001", W, "index.atf", "footer", IDX_FTR);
    assert_non_null(strstr(r->message, "8 complete events recovered, 4103 trailing bytes ignored"));
    r = want(v, "REC-001", W, "detail.atf", "footer", DET_FTR);
    assert_non_null(strstr(r->message, "4 complete events recovered, 4096 trailing bytes ignored"));
    assert_int_equal(atf_validation_finding_count(v), 2);
    assert_int_equal(atf_validation_recovered_at(v, 0)->events, 8);
    atf_validation_free(v);
    /* A zero record followed by data is not a zero tail: the zero record is an event. */
    resize(&f.idx, IDX_FTR + 64, 0);
    memset(f.idx.p + IDX_FTR + 32, 0x7, 32);
    v = run_thread(&f, 1);
    want(v, "IDX-EVT-001", E, "index.atf", "event_kind", kind_at(L2, 8));
    assert_int_equal(atf_validation_recovered_at(v, 0)->events, 10);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_rec_004(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    resize(&f.idx, IDX_FTR, 0); /* finalized header, footer gone */
    atf_validation *v = run_thread(&f, 1);
    const atf_validate_finding *r = want(v, "REC-004", E, "index.atf", "footer_offset", 40);
    assert_non_null(strstr(r->message, "8 complete events recovered"));
    /* IDX-HDR-013 says a footer MUST be at footer_offset, too. */
    want(v, "IDX-HDR-013", E, "index.atf", "footer_offset", 40);
    assert_int_equal(count_clause(v, "IDX-HDR-013"), 1);
    assert_int_equal(count_clause(v, "REC-001"), 0);
    assert_int_equal(atf_validation_recovered_at(v, 0)->events, 8);
    atf_validation_free(v);
    resize(&f.idx, IDX_FTR + 10, 0); /* a footer torn after the header was rewritten */
    v = run_thread(&f, 1);
    want(v, "REC-004", E, "index.atf", "footer.magic", IDX_FTR);
    atf_validation_free(v);
    resize(&f.det, DET_FTR, 0);
    v = run_thread(&f, 1);
    want(v, "REC-004", E, "detail.atf", "footer.magic", DET_FTR);
    want(v, "DET-HDR-007", E, "detail.atf", "bytes_length", 36);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_rec_005(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    det_crash(&f);
    uint8_t junk[24] = { 5, 0, 0, 0, 3 };
    append(&f.det, junk, sizeof junk);
    atf_validation *v = run_thread(&f, 1);
    want(v, "REC-005", E, "detail.atf", "total_length", DET_FTR);
    want(v, "REC-001", W, "detail.atf", "footer", DET_FTR);
    static const char *const only[] = { "REC-005", NULL };
    expect_error_set(v, only);
    atf_validation_free(v);
    fx_free(&f);
}

/* ---- Checksums ---------------------------------------------------------------------------- */

static void test_crc(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    put32(&f.idx, IDX_FTR + 4, 0x12345678);
    put32(&f.det, DET_FTR + 4, 0x12345678);
    atf_validation *v = run_thread(&f, 1);
    want(v, "CRC-001", E, "index.atf", "footer.checksum", IDX_FTR + 4);
    want(v, "CRC-001", E, "detail.atf", "footer.checksum", DET_FTR + 4);
    atf_validation_free(v);
    /* --no-verify: not evaluated. */
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.no_verify = 1;
    assert_int_equal(atf_validate_thread_memory(&v, f.idx.p, f.idx.n, f.det.p, f.det.n, &o, NULL), ATF_OK);
    expect_clean(v);
    assert_false(atf_validation_clause_checked(v, atf_clause_index("CRC-001")));
    atf_validation_free(v);
    /* Zero: unchecked, discouraged in layout 2. */
    put32(&f.idx, IDX_FTR + 4, 0);
    v = run_thread(&f, 1);
    want(v, "CRC-003", W, "index.atf", "footer.checksum", IDX_FTR + 4);
    atf_validation_free(v);
    fx_free(&f);

    fx_make(&f, L1);
    put32(&f.idx, IDX_FTR + 4, 0x12345678);
    v = run_thread(&f, 1);
    want(v, "CRC-002", E, "index.atf", "footer.checksum", IDX_FTR + 4);
    atf_validation_free(v);
    /* Layout 1 accepts CRC32/IEEE, and 0 without a finding. */
    put32(&f.idx, IDX_FTR + 4, atf_crc32_ieee(0, f.idx.p + 64, IDX_FTR - 64));
    put32(&f.det, DET_FTR + 4, 0);
    v = run_thread(&f, 1);
    expect_clean(v);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_empty_sections(void **state)
{
    (void)state;
    /* The CRC32-C of an empty events section is 0: not "unchecked" (CRC-003). */
    char dir[64], ip[128], dp[128];
    tmp_dir(dir, sizeof dir, "empty");
    atf_writer_options wo = ATF_WRITER_OPTIONS_INIT;
    wo.layout = L2;
    wo.arch = ATF_ARCH_ARM64;
    atf_index_writer *iw;
    atf_detail_writer *dw;
    assert_int_equal(atf_index_writer_open(&iw, pjoin(ip, sizeof ip, dir, "index.atf"), &wo, NULL), ATF_OK);
    assert_int_equal(atf_detail_writer_open(&dw, pjoin(dp, sizeof dp, dir, "detail.atf"), &wo, NULL), ATF_OK);
    atf_index_writer_set_has_detail(iw, 1);
    assert_int_equal(atf_index_writer_close(iw), ATF_OK);
    assert_int_equal(atf_detail_writer_close(dw), ATF_OK);
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.strict = 1;
    atf_validation *v = run_path(dir, &o);
    expect_clean(v);
    assert_true(atf_validation_clause_checked(v, atf_clause_index("CRC-003")));
    atf_validation_free(v);
    rm_rf(dir);
}

static void test_ses_man_006_edges(void **state)
{
    (void)state;
    /* A first event at timestamp 0, and time_start_ns 0. */
    char dir[64];
    tmp_dir(dir, sizeof dir, "ses6");
    fx a;
    fx_make(&a, L2);
    put64(&a.idx, idx_ev(0), 0);
    put64(&a.idx, 48, 0);
    put64(&a.idx, IDX_FTR + 16, 0);
    fix_idx_crc(&a);
    put64(&a.det, det_ev(0) + 16, 0);
    put64(&a.det, DET_FTR + 24, 0);
    fix_det_crc(&a);
    sthr t[1] = { { 0, &a, 1 } };
    mk_session(dir, "{\"time_start_ns\":0,\"time_end_ns\":1000070,\"threads\":[{\"id\":0,\"has_detail\":null}]}",
               t, 1);
    /* SPEC 7a.8: a time_start_ns of 0 is the true start here (the first event
     * is at 0), so it is not "unset"; null has_detail is an absent key (no
     * SES-MAN-002, no SES-MAN-005): no finding at all. */
    atf_validation *v = run_path(dir, NULL);
    assert_int_equal(atf_validation_finding_count(v), 0);
    atf_validation_free(v);
    /* The same session with time_end_ns 0 too: the last event is not at 0. */
    {
        static const char m0[] = "{\"time_start_ns\":0,\"time_end_ns\":0,\"threads\":[{\"id\":0,\"has_detail\":null}]}";
        char mp[256];
        write_file(pjoin(mp, sizeof mp, dir, "manifest.json"), m0, strlen(m0));
    }
    v = run_path(dir, NULL);
    want(v, "SES-MAN-006", W, "manifest.json", "time_end_ns", NONE);
    assert_int_equal(atf_validation_finding_count(v), 1);
    atf_validation_free(v);
    rm_rf(dir);
    fx_free(&a);
    /* A time of the wrong type is a SES-MAN-002 error, not also "unset". */
    v = session_with("{\"time_start_ns\":\"soon\",\"time_end_ns\":1000070,\"threads\":[{\"id\":0},{\"id\":1}]}", L2);
    want(v, "SES-MAN-002", E, "manifest.json", "time_start_ns", NONE);
    assert_int_equal(count_clause(v, "SES-MAN-006"), 0);
    atf_validation_free(v);
}

/* ---- Limits, options, paths ------------------------------------------------------------------ */

static void test_limits(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, L2);
    for (int k = 0; k < SMALL_EVENTS; k++)
        put8(&f.idx, kind_at(L2, k), 0x40);
    fix_idx_crc(&f);
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.max_per_clause = 3;
    atf_validation *v;
    assert_int_equal(atf_validate_index_memory(&v, f.idx.p, f.idx.n, "i.atf", &o, NULL), ATF_OK);
    /* 3 listed, then one summary of the 5 left out, last in the file. */
    assert_int_equal(count_clause(v, "IDX-EVT-001"), 4);
    const atf_validate_finding *last = atf_validation_finding_at(v, atf_validation_finding_count(v) - 1);
    assert_string_equal(last->clause, "IDX-EVT-001");
    assert_int_equal(last->offset, NONE);
    assert_non_null(strstr(last->message, "5 more finding(s)"));
    uint64_t e, w;
    atf_validation_counts(v, &e, &w);   /* every violation, listed or not */
    assert_int_equal(e, SMALL_EVENTS);
    assert_int_equal(atf_validation_listed(v), 3);
    atf_validation_free(v);
    o.max_per_clause = 0;
    o.max_findings = 4;
    assert_int_equal(atf_validate_index_memory(&v, f.idx.p, f.idx.n, "i.atf", &o, NULL), ATF_OK);
    assert_int_equal(atf_validation_finding_count(v), 4);
    atf_validation_counts(v, &e, &w);
    assert_int_equal(e, SMALL_EVENTS);   /* 3 listed, the rest counted in the summary */
    assert_int_equal(atf_validation_listed(v), 3);
    assert_false(atf_validation_conformant(v));
    atf_validation_free(v);
    fx_free(&f);
}

static void test_path_errors(void **state)
{
    (void)state;
    atf_validation *v = (atf_validation *)1;
    atf_error err;
    assert_int_equal(atf_validate_path(&v, "/nonexistent/atf/path", NULL, &err), ATF_E_IO);
    assert_null(v);
    char dir[64];
    tmp_dir(dir, sizeof dir, "empty");
    assert_int_equal(atf_validate_path(&v, dir, NULL, &err), ATF_E_NOT_FOUND);
    assert_null(v);
    assert_int_equal(atf_validate_path(&v, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_validate_index_memory(&v, NULL, 5, NULL, NULL, &err), ATF_E_ARG);
    rm_rf(dir);
    /* Empty inputs are findings, not failures: a writer killed before its
     * first flush (SPEC 7a.12). */
    assert_int_equal(atf_validate_index_memory(&v, NULL, 0, NULL, NULL, &err), ATF_OK);
    want(v, "REC-001", W, "index.atf", "header", 0);
    atf_validation_free(v);
    atf_validation_free(NULL);
}

static void test_thread_dir_and_lone_detail(void **state)
{
    (void)state;
    char dir[64], p[128], q[160];
    tmp_dir(dir, sizeof dir, "thr");
    pjoin(p, sizeof p, dir, "thread_3");
    assert_int_equal(mkdir(p, 0755), 0);
    fx f;
    fx_make(&f, L2);
    put8(&f.det, det_ev(1) + 4, 0);
    fix_det_crc(&f);
    write_file(pjoin(q, sizeof q, p, "index.atf"), f.idx.p, f.idx.n);
    write_file(pjoin(q, sizeof q, p, "detail.atf"), f.det.p, f.det.n);
    atf_validation *v = run_path(p, NULL);
    want(v, "DET-EVT-003", W, "detail.atf", "event_type", det_ev(1) + 4);
    atf_validation_free(v);
    /* The detail file alone: its own clauses, no link clause. */
    v = run_path(q, NULL);
    want(v, "DET-EVT-003", W, "detail.atf", "event_type", det_ev(1) + 4);
    assert_false(atf_validation_clause_checked(v, atf_clause_index("LINK-004")));
    assert_false(atf_validation_clause_checked(v, atf_clause_index("ARM-PAY-005")));
    atf_validation_free(v);
    /* SPEC 7a.1: a file named detail.atf is a detail file whatever its
     * magic; index.atf an index file; any other name goes by the magic. */
    write_file(q, "garbage!", 8);
    v = run_path(q, NULL);
    want(v, "DET-HDR-001", E, "detail.atf", "magic", 0);
    atf_validation_free(v);
    write_file(pjoin(q, sizeof q, p, "index.atf"), f.det.p, f.det.n);
    v = run_path(q, NULL);
    want(v, "IDX-HDR-001", E, "index.atf", "magic", 0);
    atf_validation_free(v);
    write_file(pjoin(q, sizeof q, p, "lane.bin"), f.det.p, f.det.n);
    v = run_path(q, NULL);
    want(v, "DET-EVT-003", W, "lane.bin", "event_type", det_ev(1) + 4);
    atf_validation_free(v);
    fx_free(&f);
    rm_rf(dir);
}

/* ---- Coverage ------------------------------------------------------------------------------- */

static void test_every_clause_asserted(void **state)
{
    (void)state;
    size_t missing = 0;
    /* The native format's clauses (this file tests its passes); every other
     * format's are asserted case by case by its corpus (one case or more per
     * clause, tied to its spec by its clause-coverage test). */
    const atf_validator_format *native = NULL;
    for (size_t k = 0; k < atf_vformat_count; k++)
        if (atf_vformat_registry[k]->native)
            native = atf_vformat_registry[k];
    assert_non_null(native);
    assert_true(native->clause_count > 0);
    for (size_t i = native->clause_first; i < native->clause_first + native->clause_count; i++) {
        if (!g_asserted[i]) {
            print_message("clause %s has no test case\n", atf_clause_at(i)->id);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_is_clean),
        cmocka_unit_test(test_demo_sessions_are_clean),
        cmocka_unit_test(test_x86_payloads_are_opaque),
        cmocka_unit_test(test_session_clean),
        cmocka_unit_test(test_gen_lay_001),
        cmocka_unit_test(test_gen_lay_002),
        cmocka_unit_test(test_idx_hdr_001),
        cmocka_unit_test(test_placeholder_forms),
        cmocka_unit_test(test_idx_hdr_002_003),
        cmocka_unit_test(test_idx_hdr_004_to_008),
        cmocka_unit_test(test_idx_hdr_009),
        cmocka_unit_test(test_idx_hdr_010),
        cmocka_unit_test(test_idx_hdr_011),
        cmocka_unit_test(test_idx_hdr_012_013_014),
        cmocka_unit_test(test_idx_evt_001),
        cmocka_unit_test(test_idx_evt_002),
        cmocka_unit_test(test_idx_evt_003),
        cmocka_unit_test(test_idx_evt_004),
        cmocka_unit_test(test_idx_evt_005),
        cmocka_unit_test(test_idx_ftr_001),
        cmocka_unit_test(test_idx_ftr_002),
        cmocka_unit_test(test_idx_ftr_003),
        cmocka_unit_test(test_idx_ftr_004),
        cmocka_unit_test(test_idx_ftr_005),
        cmocka_unit_test(test_det_hdr_001_to_003),
        cmocka_unit_test(test_det_hdr_004_005),
        cmocka_unit_test(test_det_hdr_006),
        cmocka_unit_test(test_det_hdr_007),
        cmocka_unit_test(test_det_hdr_008),
        cmocka_unit_test(test_det_evt_001),
        cmocka_unit_test(test_det_evt_002),
        cmocka_unit_test(test_det_evt_003),
        cmocka_unit_test(test_det_evt_004),
        cmocka_unit_test(test_det_evt_005),
        cmocka_unit_test(test_det_evt_006),
        cmocka_unit_test(test_det_ftr),
        cmocka_unit_test(test_det_ftr_002),
        cmocka_unit_test(test_arm_pay_001_to_003),
        cmocka_unit_test(test_arm_pay_004_005),
        cmocka_unit_test(test_link_001),
        cmocka_unit_test(test_link_002_004),
        cmocka_unit_test(test_link_003),
        cmocka_unit_test(test_link_005),
        cmocka_unit_test(test_link_006),
        cmocka_unit_test(test_link_007_008),
        cmocka_unit_test(test_ses_man_001),
        cmocka_unit_test(test_ses_man_cut),
        cmocka_unit_test(test_ses_man_002),
        cmocka_unit_test(test_ses_man_013),
        cmocka_unit_test(test_ses_man_003_004_005),
        cmocka_unit_test(test_ses_man_006_to_010),
        cmocka_unit_test(test_ses_man_011),
        cmocka_unit_test(test_summary_without_offset),
        cmocka_unit_test(test_ses_man_012_and_nul),
        cmocka_unit_test(test_session_x_resolves_pid),
        cmocka_unit_test(test_rec_001_002),
        cmocka_unit_test(test_rec_003),
        cmocka_unit_test(test_zero_filled_tails),
        cmocka_unit_test(test_rec_004),
        cmocka_unit_test(test_rec_005),
        cmocka_unit_test(test_crc),
        cmocka_unit_test(test_empty_sections),
        cmocka_unit_test(test_ses_man_006_edges),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_path_errors),
        cmocka_unit_test(test_thread_dir_and_lone_detail),
        cmocka_unit_test(test_every_clause_asserted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
