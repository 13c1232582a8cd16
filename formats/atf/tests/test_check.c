/* Tests for check.c: a valid demo session has no findings; each corruption
 * gives an ERROR finding naming the file, the field and the byte offset; a
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

#include "session_test_util.h"

/* ---- Collecting findings ------------------------------------------------- */

typedef struct found {
    atf_severity sev;
    char file[512];
    uint64_t offset;
    char field[64];
    char message[512];
} found;

typedef struct findings {
    size_t n;
    found f[64];
} findings;

static void collect(void *user, const atf_finding *f)
{
    findings *fs = user;
    assert_non_null(f->message);
    if (fs->n == sizeof fs->f / sizeof fs->f[0])
        return;
    found *d = &fs->f[fs->n++];
    d->sev = f->severity;
    snprintf(d->file, sizeof d->file, "%s", f->file ? f->file : "");
    d->offset = f->offset;
    snprintf(d->field, sizeof d->field, "%s", f->field ? f->field : "");
    snprintf(d->message, sizeof d->message, "%s", f->message);
}

static void print_findings(const findings *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        print_message("  %s %s @%llu [%s] %s\n", fs->f[i].sev == ATF_SEV_ERROR ? "ERROR" : "WARNING", fs->f[i].file,
                      (unsigned long long)fs->f[i].offset, fs->f[i].field, fs->f[i].message);
}

static void run_check(findings *fs, const char *path)
{
    memset(fs, 0, sizeof *fs);
    atf_error err;
    atf_status st = atf_tool_check(path, NULL, collect, fs, &err);
    if (st != ATF_OK)
        fail_msg("check %s: %s: %s", path, atf_status_name(st), err.message);
}

static size_t count_sev(const findings *fs, atf_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += fs->f[i].sev == sev;
    return n;
}

/* The finding with this severity, file and field; fails if there is none. */
static const found *expect(const findings *fs, atf_severity sev, const char *file, const char *field)
{
    for (size_t i = 0; i < fs->n; i++)
        if (fs->f[i].sev == sev && !strcmp(fs->f[i].file, file) && !strcmp(fs->f[i].field, field))
            return &fs->f[i];
    print_findings(fs);
    fail_msg("no %s finding for %s field %s", sev == ATF_SEV_ERROR ? "ERROR" : "WARNING", file, field);
    return NULL;
}

static int has(const findings *fs, atf_severity sev, const char *field)
{
    for (size_t i = 0; i < fs->n; i++)
        if (fs->f[i].sev == sev && !strcmp(fs->f[i].field, field))
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
    const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "detail_seq");
    assert_int_equal(f->offset, ev_off(1));
    assert_non_null(strstr(f->message, "seq 1"));
    assert_false(has(&fs, ATF_SEV_ERROR, "index_seq"));
    assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
    /* The thread directory alone gives the same finding. */
    char p[160];
    run_check(&fs, tu_path(p, sizeof p, "%s/thread_1", d.dir));
    expect(&fs, ATF_SEV_ERROR, d.index, "detail_seq");
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
    const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "detail_seq");
    assert_int_equal(f->offset, ev_off(3));
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
    const found *f = expect(&fs, ATF_SEV_ERROR, d.detail, "index_seq");
    assert_int_equal(f->offset, off + 8);
    assert_non_null(strstr(f->message, "detail seq 2"));
    /* Index event 8 now points at a detail event that does not point back. */
    f = expect(&fs, ATF_SEV_ERROR, d.index, "detail_seq");
    assert_int_equal(f->offset, ev_off(8));
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
        const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "flags");
        assert_int_equal(f->offset, 8);
        assert_non_null(strstr(f->message, "does not exist"));
        assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
        cf_rm_rf(d.dir);
    }
    /* The detail file of a thread that had one, deleted. */
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    assert_int_equal(remove(d.detail), 0);
    findings fs;
    run_check(&fs, d.dir);
    expect(&fs, ATF_SEV_ERROR, d.index, "flags");
    /* The manifest said has_detail: a session warning. */
    expect(&fs, ATF_SEV_WARNING, d.dir, "manifest");
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
    const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "flags");
    assert_non_null(strstr(f->message, "exists"));
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
        const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "timestamp_ns");
        assert_int_equal(f->offset, ev_off(10));
        assert_non_null(strstr(f->message, "seq 10"));
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
    assert_false(has(&fs, ATF_SEV_ERROR, "timestamp_ns"));
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
        const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "event_kind");
        assert_int_equal(f->offset, at);
        assert_non_null(strstr(f->message, "seq 5"));
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
    assert_int_equal(expect(&fs, ATF_SEV_ERROR, d.index, "event_kind")->offset, ev_off(0) + 24);
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
        const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "event_count");
        assert_int_equal(f->offset, at);
        assert_non_null(strstr(f->message, layout == 1 ? "199" : "201"));
        assert_non_null(strstr(f->message, "200"));
        assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
        cf_rm_rf(d.dir);
    }
    /* Same in a detail file (event_count u64 @28). */
    demo d;
    make_demo(&d, ATF_LAYOUT_2, 4);
    tu_patch_le64(d.detail, 28, 3);
    findings fs;
    run_check(&fs, d.dir);
    const found *f = expect(&fs, ATF_SEV_ERROR, d.detail, "event_count");
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
    expect(&fs, ATF_SEV_ERROR, d.index, "footer.checksum");
    /* no_verify skips the checksum and the event scan. */
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.no_verify = 1;
    memset(&fs, 0, sizeof fs);
    assert_int_equal(atf_tool_check(d.dir, &o, collect, &fs, NULL), ATF_OK);
    assert_false(has(&fs, ATF_SEV_ERROR, "footer.checksum"));
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
        uint8_t pl[8] = { (uint8_t)i };
        atf_detail_event de = { .event_type = 3, .timestamp = 100 + i, .payload = pl, .payload_size = 8 };
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
    const found *f = expect(&fs, ATF_SEV_WARNING, ip, "footer");
    assert_non_null(strstr(f->message, "123 complete events recovered"));
    assert_non_null(strstr(f->message, "5 trailing bytes"));
    f = expect(&fs, ATF_SEV_WARNING, dp, "footer");
    assert_non_null(strstr(f->message, "41 complete events recovered"));
    /* A crash is not corruption: no errors. */
    if (count_sev(&fs, ATF_SEV_ERROR)) {
        print_findings(&fs);
        fail_msg("errors in a crash-truncated session");
    }
    /* The file alone gives the same warning. */
    run_check(&fs, ip);
    f = expect(&fs, ATF_SEV_WARNING, ip, "footer");
    assert_non_null(strstr(f->message, "123 complete events recovered"));
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
    const found *f = expect(&fs, ATF_SEV_ERROR, d.index, "footer");
    assert_non_null(strstr(f->message, "damaged"));
    assert_non_null(strstr(f->message, "50 complete events recovered"));
    assert_non_null(strstr(f->message, "13 trailing bytes"));
    assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
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
    const found *f = expect(&fs, ATF_SEV_ERROR, d.detail, "footer");
    assert_non_null(strstr(f->message, "damaged"));
    assert_non_null(strstr(f->message, "10 complete events recovered"));
    f = expect(&fs, ATF_SEV_WARNING, d.index, "detail_seq");
    assert_non_null(strstr(f->message, "40 forward link(s)"));
    assert_int_equal(count_sev(&fs, ATF_SEV_ERROR), 1);
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

    /* A path that does not exist: the check cannot run. */
    memset(&fs, 0, sizeof fs);
    assert_int_equal(atf_tool_check(tu_path(p, sizeof p, "%s/nope", d.dir), NULL, collect, &fs, &err), ATF_E_IO);
    assert_int_equal(fs.n, 0);
    assert_int_equal(atf_tool_check(d.dir, NULL, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_tool_check(NULL, NULL, collect, &fs, &err), ATF_E_ARG);

    /* A file that is not an index file where one should be: a finding. */
    tu_write_text(d.index, "this is not an ATF index file, but it is long enough to have a header. "
                           "this is not an ATF index file, but it is long enough to have a header.");
    run_check(&fs, d.dir);
    expect(&fs, ATF_SEV_ERROR, d.index, "magic");

    /* No manifest: a warning. */
    cf_rm_rf(d.dir);
    make_demo(&d, ATF_LAYOUT_2, 4);
    assert_int_equal(remove(tu_path(p, sizeof p, "%s/manifest.json", d.dir)), 0);
    run_check(&fs, d.dir);
    const found *f = expect(&fs, ATF_SEV_WARNING, d.dir, "manifest");
    assert_non_null(strstr(f->message, "no manifest.json"));
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
