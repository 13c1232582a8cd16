/* The validator on demo sessions and on what a crash leaves (these cases
 * were once the tests of atf_tool_check, the structural check the validator
 * replaced): a valid demo session has no findings; each corruption gives an
 * ERROR finding naming its clause, the file and the byte offset; a
 * crash-truncated file gives a WARNING stating the recovered count. Patched
 * files get their footer CRC recomputed so that the finding under test is
 * not masked by a checksum mismatch. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/reader.h>
#include <atf/tools.h>
#include <atf/validator.h>

#include "session_test_util.h"

/* ---- Collecting findings ------------------------------------------------- */

typedef struct found {
    char clause[32];
    atf_severity sev;
    char file[512];       /* relative to the validated path */
    uint64_t offset;
    char field[64];
    char message[512];
} found;

typedef struct findings {
    size_t n;
    found f[64];
} findings;

static void print_findings(const findings *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        print_message("  %s %s %s @%llu [%s] %s\n", fs->f[i].clause, fs->f[i].sev == ATF_SEV_ERROR ? "ERROR" : "WARNING",
                      fs->f[i].file, (unsigned long long)fs->f[i].offset, fs->f[i].field, fs->f[i].message);
}

static void run_check_opts(findings *fs, const char *path, const atf_validate_options *o)
{
    memset(fs, 0, sizeof *fs);
    atf_error err;
    atf_validation *v = NULL;
    atf_status st = atf_validate_path(&v, path, o, &err);
    if (st != ATF_OK)
        fail_msg("validate %s: %s: %s", path, atf_status_name(st), err.message);
    for (size_t i = 0; i < atf_validation_finding_count(v) && fs->n < sizeof fs->f / sizeof fs->f[0]; i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        assert_non_null(f->message);
        found *d = &fs->f[fs->n++];
        snprintf(d->clause, sizeof d->clause, "%s", f->clause);
        d->sev = f->severity;
        snprintf(d->file, sizeof d->file, "%s", f->file ? f->file : "");
        d->offset = f->offset;
        snprintf(d->field, sizeof d->field, "%s", f->field ? f->field : "");
        snprintf(d->message, sizeof d->message, "%s", f->message);
    }
    atf_validation_free(v);
    if (getenv("VT_SHOW")) {
        print_message("%s:\n", path);
        print_findings(fs);
    }
}

static void run_check(findings *fs, const char *path)
{
    run_check_opts(fs, path, NULL);
}

static size_t count_sev(const findings *fs, atf_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += fs->f[i].sev == sev;
    return n;
}

/* The finding of this clause with this severity in this file; fails if there is none. */
static const found *expect(const findings *fs, const char *clause, atf_severity sev, const char *file)
{
    for (size_t i = 0; i < fs->n; i++)
        if (!strcmp(fs->f[i].clause, clause) && fs->f[i].sev == sev && !strcmp(fs->f[i].file, file))
            return &fs->f[i];
    print_findings(fs);
    fail_msg("no %s %s finding for %s", clause, sev == ATF_SEV_ERROR ? "ERROR" : "WARNING", file);
    return NULL;
}

static int has(const findings *fs, const char *clause)
{
    for (size_t i = 0; i < fs->n; i++)
        if (!strcmp(fs->f[i].clause, clause))
            return 1;
    return 0;
}

/* ---- Demo sessions ------------------------------------------------------- */

typedef struct demo {
    char dir[64];
    char index[160], detail[160];     /* thread_1's files */
    atf_layout layout;
} demo;

static void make_demo(demo *d, atf_layout layout, unsigned detail_every)
{
    cf_mkdtemp(d->dir, sizeof d->dir, "check");
    d->layout = layout;
    atf_demo_options o = ATF_DEMO_OPTIONS_INIT;
    o.layout = layout;
    o.threads = 2;
    o.events = 200;
    o.detail_every = detail_every;
    o.seed = 5;
    atf_error err;
    assert_int_equal(atf_tool_demo(d->dir, &o, &err), ATF_OK);
    tu_path(d->index, sizeof d->index, "%s/thread_1/index.atf", d->dir);
    tu_path(d->detail, sizeof d->detail, "%s/thread_1/detail.atf", d->dir);
}

static void index_event(const demo *d, uint64_t seq, atf_index_event *ev)
{
    atf_index_reader *r;
    assert_int_equal(atf_index_reader_open(&r, d->index, NULL, NULL), ATF_OK);
    assert_int_equal(atf_index_reader_get(r, seq, ev), ATF_OK);
    atf_index_reader_close(r);
}

static uint64_t ev_off(uint64_t seq)
{
    return 64 + seq * 32;
}

/* ---- Valid input ---------------------------------------------------------- */

static void assert_clean(const char *path)
{
    findings fs;
    run_check(&fs, path);
    if (fs.n) {
        print_findings(&fs);
        fail_msg("%s: %zu finding(s), want none", path, fs.n);
    }
}

static void test_demo_has_no_findings(void **state)
{
    (void)state;
    for (int layout = 1; layout <= 2; layout++) {
        for (unsigned every = 0; every <= 4; every += 2) {
            char dir[64], p[160];
            cf_mkdtemp(dir, sizeof dir, "check");
            atf_demo_options o = ATF_DEMO_OPTIONS_INIT;
            o.layout = (atf_layout)layout;
            o.events = 500;
            o.detail_every = every;
            atf_error err;
            assert_int_equal(atf_tool_demo(dir, &o, &err), ATF_OK);
            assert_clean(dir);
            assert_clean(tu_path(p, sizeof p, "%s/thread_2", dir));
            assert_clean(tu_path(p, sizeof p, "%s/thread_0/index.atf", dir));
            if (every)
                assert_clean(tu_path(p, sizeof p, "%s/thread_0/detail.atf", dir));
            cf_rm_rf(dir);
        }
    }
}

/* ---- Corruptions ------------------------------------------------------------ */

/* An unlinked index event made to point at detail event 0 (which points
 * back at index event 0): the forward link is broken, the backward ones
 * are not. */
static void forward_link(atf_layout layout)
{
    demo d;
    make_demo(&d, layout, 4);
    atf_index_event ev;
    index_event(&d, 1, &ev);
    assert_true(ev.detail_seq == ATF_NO_DETAIL);
    if (layout == ATF_LAYOUT_1)
        tu_patch_le32(d.index, ev_off(1) + 28, 0);
    else
        tu_patch_le64(d.index, ev_off(1) + 16, 0);
    tu_fix_index_crc(d.index);
    findings fs;
    run_check(&fs, d.dir);
    uint64_t at = ev_off(1) + (layout == ATF_LAYOUT_1 ? 28 : 16);   /* detail_seq */
    const found *f = expect(&fs, "LINK-002", ATF_SEV_ERROR, "thread_1/index.atf");
    assert_int_equal(f->offset, at);
    assert_non_null(strstr(f->message, "event 1:"));
    /* Two events now link to detail event 0: the links do not increase. */
    assert_int_equal(expect(&fs, "IDX-EVT-005", ATF_SEV_ERROR, "thread_1/index.atf")->offset, at);
    assert_false(has(&fs, "LINK-004"));
    assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 2);
    /* The thread directory alone gives the same finding. */
    char p[160];
    run_check(&fs, tu_path(p, sizeof p, "%s/thread_1", d.dir));
    expect(&fs, "LINK-002", ATF_SEV_ERROR, "index.atf");
    cf_rm_rf(d.dir);
}

static void test_broken_forward_link(void **state)
{
    (void)state;
    forward_link(ATF_LAYOUT_1);
    forward_link(ATF_LAYOUT_2);
}

/* A forward link past the end of a complete detail file is an error too. */
static void test_forward_link_past_detail_file(void **state)
{
    (void)state;
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    tu_patch_le64(d.index, ev_off(3) + 16, 100000);
    tu_fix_index_crc(d.index);
    findings fs;
    run_check(&fs, d.dir);
    const found *f = expect(&fs, "LINK-001", ATF_SEV_ERROR, "thread_1/index.atf");
    assert_int_equal(f->offset, ev_off(3) + 16);
    cf_rm_rf(d.dir);
}

/* Detail event 2 (linked from index event 8) made to point at index event 9. */
static void backward_link(atf_layout layout)
{
    demo d;
    make_demo(&d, layout, 4);
    atf_detail_reader *r;
    atf_detail_event de;
    assert_int_equal(atf_detail_reader_open(&r, d.detail, NULL, NULL), ATF_OK);
    assert_int_equal(atf_detail_reader_get(r, 2, &de), ATF_OK);
    uint64_t off = atf_detail_reader_offset(r, 2);
    atf_detail_reader_close(r);
    assert_int_equal(de.index_seq, 8);
    if (layout == ATF_LAYOUT_1)
        tu_patch_le32(d.detail, off + 8, 9);
    else
        tu_patch_le64(d.detail, off + 8, 9);
    tu_fix_detail_crc(d.detail);
    findings fs;
    run_check(&fs, d.dir);
    const found *f = expect(&fs, "LINK-004", ATF_SEV_ERROR, "thread_1/detail.atf");
    assert_int_equal(f->offset, off + 8);
    assert_non_null(strstr(f->message, "detail event 2:"));
    /* Index event 8 now points at a detail event that does not point back. */
    f = expect(&fs, "LINK-002", ATF_SEV_ERROR, "thread_1/index.atf");
    assert_int_equal(f->offset, ev_off(8) + (layout == ATF_LAYOUT_1 ? 28 : 16));
    cf_rm_rf(d.dir);
}

static void test_broken_backward_link(void **state)
{
    (void)state;
    backward_link(ATF_LAYOUT_1);
    backward_link(ATF_LAYOUT_2);
}

/* has_detail_file set, but the thread has no detail file. */
static void test_has_detail_flag_without_detail_file(void **state)
{
    (void)state;
    for (int layout = 1; layout <= 2; layout++) {
        demo d;
        make_demo(&d, (atf_layout)layout, 0);
        assert_false(tu_exists(d.detail));
        tu_patch_le32(d.index, 8, ATF_INDEX_FLAG_HAS_DETAIL_FILE);
        findings fs;
        run_check(&fs, d.dir);
        const found *f = expect(&fs, "LINK-005", ATF_SEV_ERROR, "thread_1/index.atf");
        assert_int_equal(f->offset, 8);
        assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
        cf_rm_rf(d.dir);
    }
    /* The detail file of a thread that had one, deleted. */
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    assert_int_equal(remove(d.detail), 0);
    findings fs;
    run_check(&fs, d.dir);
    expect(&fs, "LINK-005", ATF_SEV_ERROR, "thread_1/index.atf");
    /* The manifest said has_detail: a session warning. */
    expect(&fs, "SES-MAN-005", ATF_SEV_WARNING, "manifest.json");
    cf_rm_rf(d.dir);
}

/* The reverse: a detail file beside an index header without the flag. */
static void test_detail_file_without_flag(void **state)
{
    (void)state;
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    tu_patch_le32(d.index, 8, 0);
    findings fs;
    run_check(&fs, d.dir);
    const found *f = expect(&fs, "LINK-005", ATF_SEV_ERROR, "thread_1/index.atf");
    assert_int_equal(f->offset, 8);
    cf_rm_rf(d.dir);
}

static void test_timestamps_backwards(void **state)
{
    (void)state;
    for (int layout = 1; layout <= 2; layout++) {
        demo d;
        make_demo(&d, (atf_layout)layout, 4);
        atf_index_event ev;
        index_event(&d, 9, &ev);
        tu_patch_le64(d.index, ev_off(10), ev.timestamp_ns - 1);
        tu_fix_index_crc(d.index);
        findings fs;
        run_check(&fs, d.dir);
        const found *f = expect(&fs, "IDX-EVT-003", ATF_SEV_ERROR, "thread_1/index.atf");
        assert_int_equal(f->offset, ev_off(10));
        assert_non_null(strstr(f->message, "event 10:"));
        assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
        cf_rm_rf(d.dir);
    }
}

/* Equal timestamps are not "going backwards". */
static void test_equal_timestamps_are_fine(void **state)
{
    (void)state;
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    atf_index_event ev;
    index_event(&d, 9, &ev);
    tu_patch_le64(d.index, ev_off(10), ev.timestamp_ns);
    tu_fix_index_crc(d.index);
    /* The detail lane's timestamps are independent; leave them. */
    findings fs;
    run_check(&fs, d.dir);
    assert_false(has(&fs, "IDX-EVT-003"));
    cf_rm_rf(d.dir);
}

static void test_bad_event_kind(void **state)
{
    (void)state;
    for (int layout = 1; layout <= 2; layout++) {
        demo d;
        make_demo(&d, (atf_layout)layout, 4);
        uint64_t at = layout == ATF_LAYOUT_1 ? ev_off(5) + 20 : ev_off(5) + 24;
        if (layout == ATF_LAYOUT_1)
            tu_patch_le32(d.index, at, 9);
        else
            tu_patch(d.index, at, "\x09", 1);
        tu_fix_index_crc(d.index);
        findings fs;
        run_check(&fs, d.dir);
        const found *f = expect(&fs, "IDX-EVT-001", ATF_SEV_ERROR, "thread_1/index.atf");
        assert_int_equal(f->offset, at);
        assert_non_null(strstr(f->message, "event 5:"));
        assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
        cf_rm_rf(d.dir);
    }
    /* Kind 0 is not valid either. */
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    tu_patch(d.index, ev_off(0) + 24, "\x00", 1);
    tu_fix_index_crc(d.index);
    findings fs;
    run_check(&fs, d.dir);
    assert_int_equal(expect(&fs, "IDX-EVT-001", ATF_SEV_ERROR, "thread_1/index.atf")->offset, ev_off(0) + 24);
    cf_rm_rf(d.dir);
}

static void test_header_footer_count_disagree(void **state)
{
    (void)state;
    for (int layout = 1; layout <= 2; layout++) {
        demo d;
        make_demo(&d, (atf_layout)layout, 4);
        uint64_t at = layout == ATF_LAYOUT_1 ? 28 : 24;
        if (layout == ATF_LAYOUT_1)
            tu_patch_le32(d.index, at, 199);
        else
            tu_patch_le64(d.index, at, 201);
        findings fs;
        run_check(&fs, d.dir);
        const found *f = expect(&fs, "IDX-HDR-012", ATF_SEV_ERROR, "thread_1/index.atf");
        assert_int_equal(f->offset, at);
        assert_non_null(strstr(f->message, layout == 1 ? "199" : "201"));
        assert_non_null(strstr(f->message, "200"));
        /* The footer is no longer where the header's count puts it. */
        expect(&fs, "IDX-HDR-013", ATF_SEV_ERROR, "thread_1/index.atf");
        assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 2);
        cf_rm_rf(d.dir);
    }
    /* Same in a detail file (event_count u64 @28). */
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    tu_patch_le64(d.detail, 28, 3);
    findings fs;
    run_check(&fs, d.dir);
    const found *f = expect(&fs, "DET-HDR-007", ATF_SEV_ERROR, "thread_1/detail.atf");
    assert_int_equal(f->offset, 28);
    cf_rm_rf(d.dir);
}

/* A patch whose CRC is not repaired: the reader refuses the file, and check
 * reports that as an ERROR finding (not as a failure to check). */
static void test_checksum_mismatch_is_a_finding(void **state)
{
    (void)state;
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    tu_patch(d.index, ev_off(7) + 8, "\x55", 1);
    findings fs;
    run_check(&fs, d.dir);
    expect(&fs, "CRC-001", ATF_SEV_ERROR, "thread_1/index.atf");
    /* no_verify skips the checksum. */
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.no_verify = 1;
    run_check_opts(&fs, d.dir, &o);
    assert_false(has(&fs, "CRC-001"));
    cf_rm_rf(d.dir);
}

/* ---- Crash-truncated files ------------------------------------------------- */

/* Records, flushes and stops without finalizing: the files on disk are what a
 * crash leaves. The writer stays open (as in a crashed process) until the
 * caller has looked at the files; no fork, so it also runs under qemu-user,
 * whose fork() hangs in this project's emulated CI. */
static atf_session_writer *crash_while_recording(const char *dir, uint64_t n)
{
    atf_writer_options o = tu_writer_options(ATF_LAYOUT_2);
    atf_session_writer *sw;
    atf_thread_writer *tw;
    assert_int_equal(atf_session_writer_create(&sw, dir, &o, NULL), ATF_OK);
    assert_int_equal(atf_session_writer_add_thread(sw, 1, 1, 1, &tw, NULL), ATF_OK);
    for (uint64_t i = 0; i < n; i++) {
        atf_index_event ev = { .timestamp_ns = 100 + i, .function_id = i % 8, .event_kind = 1 + i % 2 };
        uint8_t pl[100] = { (uint8_t)(i % 8) };   /* ARM64 payload: function_id, registers, no stack */
        atf_detail_event de = { .event_type = 3, .timestamp = 100 + i, .payload = pl, .payload_size = sizeof pl };
        assert_int_equal(atf_thread_writer_append(tw, &ev, i % 3 == 0 ? &de : NULL, NULL), ATF_OK);
    }
    assert_int_equal(atf_index_writer_flush(atf_thread_writer_index(tw)), ATF_OK);
    assert_int_equal(atf_detail_writer_flush(atf_thread_writer_detail(tw)), ATF_OK);
    return sw;
}

static void test_crash_truncated_warning(void **state)
{
    (void)state;
    char dir[64], ip[160], dp[160];
    cf_mkdtemp(dir, sizeof dir, "check");
    atf_session_writer *recording = crash_while_recording(dir, 123);
    tu_path(ip, sizeof ip, "%s/thread_1/index.atf", dir);
    tu_path(dp, sizeof dp, "%s/thread_1/detail.atf", dir);
    /* Half of the next event made it to disk. */
    size_t n;
    uint8_t *b = tu_read_file(ip, &n);
    assert_int_equal(n, 64 + 123 * 32);
    uint8_t *b2 = realloc(b, n + 5);
    assert_non_null(b2);
    memcpy(b2 + n, "\x01\x02\x03\x04\x05", 5);
    cf_write_file(ip, b2, n + 5);
    free(b2);

    findings fs;
    run_check(&fs, dir);
    const found *f = expect(&fs, "REC-001", ATF_SEV_WARNING, "thread_1/index.atf");
    assert_non_null(strstr(f->message, "123"));
    f = expect(&fs, "REC-002", ATF_SEV_WARNING, "thread_1/index.atf");
    assert_non_null(strstr(f->message, "5"));
    f = expect(&fs, "REC-001", ATF_SEV_WARNING, "thread_1/detail.atf");
    assert_non_null(strstr(f->message, "41"));
    /* A crash is not corruption: no errors. */
    if (count_sev(&fs, ATF_SEV_ERROR)) {
        print_findings(&fs);
        fail_msg("errors in a crash-truncated session");
    }
    /* The file alone gives the same warning. */
    run_check(&fs, ip);
    f = expect(&fs, "REC-001", ATF_SEV_WARNING, "index.atf");
    assert_non_null(strstr(f->message, "123"));
    atf_session_writer_close(recording);
    cf_rm_rf(dir);
}

/* A finalized file cut short (footer and part of the events lost). */
static void test_truncated_finalized_file(void **state)
{
    (void)state;
    demo d;
    make_demo(&d, ATF_LAYOUT_1, 4);
    assert_int_equal(truncate(d.index, (off_t)(ev_off(50) + 13)), 0);
    findings fs;
    run_check(&fs, d.dir);
    /* Its header is finalized: damage (REC-004), an error; the events are recovered all the same. */
    const found *f = expect(&fs, "REC-004", ATF_SEV_ERROR, "thread_1/index.atf");
    assert_non_null(strstr(f->message, "damaged"));
    assert_non_null(strstr(f->message, "50 complete events recovered"));
    assert_non_null(strstr(f->message, "13 trailing bytes"));
    expect(&fs, "IDX-HDR-013", ATF_SEV_ERROR, "thread_1/index.atf");
    /* The detail events linked to the lost events: recoverable, warnings. */
    expect(&fs, "LINK-003", ATF_SEV_WARNING, "thread_1/detail.atf");
    assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 2);
    cf_rm_rf(d.dir);
}

/* A detail file cut short: the index events linked to the lost tail are a
 * warning (the tail may legitimately be gone), not broken links. */
static void test_truncated_detail_file(void **state)
{
    (void)state;
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    atf_detail_reader *r;
    assert_int_equal(atf_detail_reader_open(&r, d.detail, NULL, NULL), ATF_OK);
    uint64_t total = atf_detail_reader_count(r), cut = atf_detail_reader_offset(r, 10) + 7;
    atf_detail_reader_close(r);
    assert_int_equal(total, 50);
    assert_int_equal(truncate(d.detail, (off_t)cut), 0);
    findings fs;
    run_check(&fs, d.dir);
    const found *f = expect(&fs, "REC-004", ATF_SEV_ERROR, "thread_1/detail.atf");
    assert_non_null(strstr(f->message, "10 complete events recovered"));
    expect(&fs, "DET-HDR-007", ATF_SEV_ERROR, "thread_1/detail.atf");
    f = expect(&fs, "LINK-001", ATF_SEV_WARNING, "thread_1/index.atf");
    assert_int_equal(f->offset, ev_off(40) + 16);
    assert_non_null(strstr(f->message, "recoverable"));
    assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 2);
    cf_rm_rf(d.dir);
}

/* ---- Other outcomes ---------------------------------------------------------- */

static void test_unreadable_inputs(void **state)
{
    (void)state;
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    findings fs;
    atf_error err;
    char p[160];

    /* A path that does not exist: the validation cannot run. */
    atf_validation *v = (atf_validation *)&fs;
    assert_int_not_equal(atf_validate_path(&v, tu_path(p, sizeof p, "%s/nope", d.dir), NULL, &err), ATF_OK);
    assert_null(v);
    assert_int_equal(atf_validate_path(NULL, d.dir, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_validate_path(&v, NULL, NULL, &err), ATF_E_ARG);

    /* A file that is not an index file where one should be: a finding. */
    tu_write_text(d.index, "this is not an ATF index file, but it is long enough to have a header. "
                           "this is not an ATF index file, but it is long enough to have a header.");
    run_check(&fs, d.dir);
    expect(&fs, "IDX-HDR-001", ATF_SEV_ERROR, "thread_1/index.atf");

    /* No manifest: a warning. */
    cf_rm_rf(d.dir);
    make_demo(&d, ATF_LAYOUT_2, 4);
    assert_int_equal(remove(tu_path(p, sizeof p, "%s/manifest.json", d.dir)), 0);
    run_check(&fs, d.dir);
    expect(&fs, "SES-MAN-001", ATF_SEV_WARNING, "manifest.json");
    assert_int_equal(fs.n, 1);
    cf_rm_rf(d.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo_has_no_findings),
        cmocka_unit_test(test_broken_forward_link),
        cmocka_unit_test(test_forward_link_past_detail_file),
        cmocka_unit_test(test_broken_backward_link),
        cmocka_unit_test(test_has_detail_flag_without_detail_file),
        cmocka_unit_test(test_detail_file_without_flag),
        cmocka_unit_test(test_timestamps_backwards),
        cmocka_unit_test(test_equal_timestamps_are_fine),
        cmocka_unit_test(test_bad_event_kind),
        cmocka_unit_test(test_header_footer_count_disagree),
        cmocka_unit_test(test_checksum_mismatch_is_a_finding),
        cmocka_unit_test(test_crash_truncated_warning),
        cmocka_unit_test(test_truncated_finalized_file),
        cmocka_unit_test(test_truncated_detail_file),
        cmocka_unit_test(test_unreadable_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
