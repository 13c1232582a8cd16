/* Helpers of the validator tests: a small known-good thread written with the
 * codec's writers (then patched byte by byte), checksum repair, sessions on
 * disk, and assertions on findings. Header-only (static inline).
 *
 * The fixture thread (SMALL_*): 8 index events at 64 + 32k, footer at 320;
 * events 0, 2, 4, 6 link to detail events 0..3. Detail events carry ARM64
 * payloads with a 16-byte stack: 140 bytes each, at 64, 204, 344, 484; the
 * detail footer is at 624. Header thread_id 77, os Linux, clock boottime. */
#ifndef ATF_VTEST_UTIL_H
#define ATF_VTEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/crc32c.h>
#include <atf/validator.h>
#include <atf/writer.h>

enum {
    SMALL_EVENTS = 8,
    SMALL_DETAILS = 4,
    SMALL_TID = 77,
    IDX_EV0 = 64,
    IDX_FTR = 64 + 32 * SMALL_EVENTS,        /* 320 */
    DET_LEN = 24 + 100 + 16,                 /* 140 */
    DET_EV0 = 64,
    DET_FTR = 64 + DET_LEN * SMALL_DETAILS,  /* 624 */
};

static inline uint64_t idx_ev(int k) { return IDX_EV0 + 32u * (unsigned)k; }
static inline uint64_t det_ev(int j) { return DET_EV0 + (uint64_t)DET_LEN * (unsigned)j; }
static inline uint64_t small_ts(int k) { return 1000000u + 10u * (unsigned)k; }
static inline uint64_t small_fid(int k) { return 0x100000000ull + (unsigned)k; }

/* ---- Buffers ----------------------------------------------------------- */

typedef struct buf {
    uint8_t *p;
    size_t n;
} buf;

static inline void put8(buf *b, size_t off, uint8_t v)
{
    assert_true(off < b->n);
    b->p[off] = v;
}
static inline void put16(buf *b, size_t off, uint16_t v)
{
    assert_true(off + 2 <= b->n);
    for (int i = 0; i < 2; i++)
        b->p[off + i] = (uint8_t)(v >> (8 * i));
}
static inline void put32(buf *b, size_t off, uint32_t v)
{
    assert_true(off + 4 <= b->n);
    for (int i = 0; i < 4; i++)
        b->p[off + i] = (uint8_t)(v >> (8 * i));
}
static inline void put64(buf *b, size_t off, uint64_t v)
{
    assert_true(off + 8 <= b->n);
    for (int i = 0; i < 8; i++)
        b->p[off + i] = (uint8_t)(v >> (8 * i));
}
static inline uint64_t get64(const buf *b, size_t off)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | b->p[off + i];
    return v;
}

/* Resizes to n bytes; new bytes are `fill`. */
static inline void resize(buf *b, size_t n, uint8_t fill)
{
    uint8_t *p = realloc(b->p, n ? n : 1);
    assert_non_null(p);
    if (n > b->n)
        memset(p + b->n, fill, n - b->n);
    b->p = p;
    b->n = n;
}

/* Appends bytes. */
static inline void append(buf *b, const void *src, size_t n)
{
    size_t at = b->n;
    resize(b, b->n + n, 0);
    memcpy(b->p + at, src, n);
}

static inline void buf_free(buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = 0;
}

static inline buf read_file(const char *path)
{
    buf b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    b.p = malloc(n ? (size_t)n : 1);
    assert_non_null(b.p);
    b.n = (size_t)n;
    assert_int_equal(fread(b.p, 1, b.n, f), b.n);
    fclose(f);
    return b;
}

static inline void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* ---- Temporary directories ------------------------------------------------ */

static inline void tmp_dir(char *buf_, size_t cap, const char *tag)
{
    snprintf(buf_, cap, "/tmp/atf-vtest-%s-XXXXXX", tag);
    assert_non_null(mkdtemp(buf_));
}

static inline int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void rm_rf(const char *path)
{
    if (strncmp(path, "/tmp/atf-vtest-", 15) == 0)
        nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static inline const char *pjoin(char *dst, size_t cap, const char *a, const char *b)
{
    int n = snprintf(dst, cap, "%s/%s", a, b);
    assert_true(n > 0 && (size_t)n < cap);
    return dst;
}

/* ---- The fixture thread ------------------------------------------------------ */

typedef struct fx {
    atf_layout layout;
    buf idx, det;
} fx;

typedef struct fx_opts {
    atf_layout layout;
    uint8_t arch;
    int with_detail;
    int checksum;
    /* Optional payload override for detail event j (NULL: the ARM64 payload). */
    const uint8_t *payload[SMALL_DETAILS];
    uint32_t payload_size[SMALL_DETAILS];
} fx_opts;

static inline fx_opts fx_defaults(atf_layout layout)
{
    fx_opts o;
    memset(&o, 0, sizeof o);
    o.layout = layout;
    o.arch = ATF_ARCH_ARM64;
    o.with_detail = 1;
    o.checksum = 1;
    return o;
}

static inline size_t arm64_payload(uint8_t *out, uint64_t fid, uint16_t stack_size)
{
    atf_arm64_payload a;
    uint8_t stack[256];
    memset(&a, 0, sizeof a);
    a.function_id = fid;
    for (int i = 0; i < 8; i++)
        a.x[i] = 0x1111111111111111ull * (unsigned)(i + 1);
    a.lr = 0x100001000ull;
    a.fp = 0x7ff000001000ull;
    a.sp = 0x7ff000000f00ull;
    a.stack_size = stack_size;
    for (int i = 0; i < 256; i++)
        stack[i] = (uint8_t)(i * 7 + 1);
    a.stack = stack;
    size_t n = atf_arm64_payload_encode(out, 100 + 256, &a);
    assert_int_equal(n, 100u + stack_size);
    return n;
}

/* Writes the fixture thread with the codec's writers and reads it back. */
static inline void fx_build(fx *f, const fx_opts *o)
{
    char dir[64], ip[128], dp[128];
    tmp_dir(dir, sizeof dir, "fx");
    pjoin(ip, sizeof ip, dir, "index.atf");
    pjoin(dp, sizeof dp, dir, "detail.atf");
    atf_writer_options wo = ATF_WRITER_OPTIONS_INIT;
    wo.layout = o->layout;
    wo.arch = o->arch;
    wo.os = ATF_OS_LINUX;
    wo.clock_type = ATF_CLOCK_BOOTTIME;
    wo.checksum = (uint8_t)o->checksum;
    wo.thread_id = SMALL_TID;
    atf_index_writer *iw;
    atf_detail_writer *dw = NULL;
    assert_int_equal(atf_index_writer_open(&iw, ip, &wo, NULL), ATF_OK);
    if (o->with_detail) {
        assert_int_equal(atf_detail_writer_open(&dw, dp, &wo, NULL), ATF_OK);
        atf_index_writer_set_has_detail(iw, 1);
    }
    for (int k = 0; k < SMALL_EVENTS; k++) {
        atf_index_event e;
        memset(&e, 0, sizeof e);
        e.timestamp_ns = small_ts(k);
        e.function_id = small_fid(k);
        e.event_kind = k % 2 ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        e.thread_id = SMALL_TID;
        e.call_depth = (uint32_t)(k % 2);
        e.detail_seq = o->with_detail && k % 2 == 0 ? (uint64_t)(k / 2) : ATF_NO_DETAIL;
        assert_int_equal(atf_index_writer_append(iw, &e), ATF_OK);
        if (e.detail_seq == ATF_NO_DETAIL)
            continue;
        uint8_t payload[356];
        atf_detail_event d;
        memset(&d, 0, sizeof d);
        d.event_type = ATF_DETAIL_FUNCTION_CALL;
        d.index_seq = (uint64_t)k;
        d.thread_id = SMALL_TID;
        d.timestamp = e.timestamp_ns;
        int j = k / 2;
        if (o->payload[j] || o->payload_size[j]) {
            d.payload = o->payload[j];
            d.payload_size = o->payload_size[j];
        } else {
            d.payload_size = (uint32_t)arm64_payload(payload, e.function_id, 16);
            d.payload = payload;
        }
        uint64_t seq;
        assert_int_equal(atf_detail_writer_append(dw, &d, &seq), ATF_OK);
        assert_int_equal(seq, (uint64_t)j);
    }
    assert_int_equal(atf_index_writer_close(iw), ATF_OK);
    if (dw)
        assert_int_equal(atf_detail_writer_close(dw), ATF_OK);
    f->layout = o->layout;
    f->idx = read_file(ip);
    f->det = o->with_detail ? read_file(dp) : (buf){ NULL, 0 };
    rm_rf(dir);
}

static inline void fx_make(fx *f, atf_layout layout)
{
    fx_opts o = fx_defaults(layout);
    fx_build(f, &o);
}

static inline void fx_free(fx *f)
{
    buf_free(&f->idx);
    buf_free(&f->det);
}

/* Recomputes the footer checksum (CRC32-C) of the events before the footer at fo. */
static inline void fix_crc(buf *b, size_t fo)
{
    put32(b, fo + 4, atf_crc32c(0, b->p + 64, fo - 64));
}
static inline void fix_idx_crc(fx *f) { fix_crc(&f->idx, IDX_FTR); }
static inline void fix_det_crc(fx *f) { fix_crc(&f->det, DET_FTR); }

/* Turns a finalized index file into a crash-truncated one: placeholder
 * header (flags, event_count, footer_offset, times zeroed) and no footer. */
static inline void idx_crash(fx *f)
{
    put32(&f->idx, 8, 0);
    if (f->layout == ATF_LAYOUT_1)
        put32(&f->idx, 28, 0);
    else
        put64(&f->idx, 24, 0);
    put64(&f->idx, 40, 0);
    put64(&f->idx, 48, 0);
    put64(&f->idx, 56, 0);
    resize(&f->idx, IDX_FTR, 0);
}

static inline void det_crash(fx *f)
{
    memset(f->det.p + 28, 0, 32); /* event_count, bytes_length, index_seq range */
    resize(&f->det, DET_FTR, 0);
}

/* ---- Running and asserting ------------------------------------------------------ */

static inline void print_report(const atf_validation *v)
{
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        print_message("  %s %s %s @%s%" PRIu64 " [%s] %s\n", f->severity == ATF_SEV_ERROR ? "error" : "warning",
                      f->clause, f->file, f->offset == ATF_VALIDATE_NO_OFFSET ? "none/" : "", f->offset,
                      f->field ? f->field : "-", f->message);
    }
}

static inline atf_validation *run_thread(const fx *f, int with_detail)
{
    atf_validation *v = NULL;
    atf_error err;
    atf_status st = atf_validate_thread_memory(&v, f->idx.p, f->idx.n, with_detail ? (f->det.p ? f->det.p : (const uint8_t *)"") : NULL,
                                               f->det.n, NULL, &err);
    if (st != ATF_OK)
        fail_msg("validate thread: %s", err.message);
    assert_non_null(v);
    return v;
}

static inline atf_validation *run_path(const char *path, const atf_validate_options *o)
{
    atf_validation *v = NULL;
    atf_error err;
    atf_status st = atf_validate_path(&v, path, o, &err);
    if (st != ATF_OK)
        fail_msg("validate %s: %s: %s", path, atf_status_name(st), err.message);
    assert_non_null(v);
    return v;
}

/* The finding of this clause, file, field and offset; fails (printing the
 * report) if there is none, or if its severity is not sev. */
static inline const atf_validate_finding *expect(const atf_validation *v, const char *clause, atf_severity sev,
                                                 const char *file, const char *field, uint64_t offset)
{
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        if (strcmp(f->clause, clause) || strcmp(f->file, file) || f->offset != offset)
            continue;
        if (field ? !f->field || strcmp(f->field, field) : f->field != NULL)
            continue;
        if (f->severity != sev) {
            print_report(v);
            fail_msg("%s at %s:%" PRIu64 " has severity %d, expected %d", clause, file, offset, f->severity, sev);
        }
        size_t ci = atf_clause_index(clause);
        assert_true(ci != (size_t)-1);
        assert_true(atf_validation_clause_checked(v, ci));
        return f;
    }
    print_report(v);
    fail_msg("no %s finding for %s, field %s, offset %" PRIu64, clause, file, field ? field : "(none)", offset);
    return NULL;
}

/* Number of findings of a clause. */
static inline size_t count_clause(const atf_validation *v, const char *clause)
{
    size_t n = 0;
    for (size_t i = 0; i < atf_validation_finding_count(v); i++)
        n += !strcmp(atf_validation_finding_at(v, i)->clause, clause);
    return n;
}

static inline void expect_clean(const atf_validation *v)
{
    if (atf_validation_finding_count(v)) {
        print_report(v);
        fail_msg("%zu unexpected finding(s)", atf_validation_finding_count(v));
    }
    assert_true(atf_validation_conformant(v));
}

/* The set of error clauses equals the list (NULL-terminated). */
static inline void expect_error_set(const atf_validation *v, const char *const *ids)
{
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        if (f->severity != ATF_SEV_ERROR)
            continue;
        int listed = 0;
        for (const char *const *p = ids; *p; p++)
            listed |= !strcmp(*p, f->clause);
        if (!listed) {
            print_report(v);
            fail_msg("unexpected error clause %s", f->clause);
        }
    }
    for (const char *const *p = ids; *p; p++) {
        int found = 0;
        for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
            const atf_validate_finding *f = atf_validation_finding_at(v, i);
            found |= f->severity == ATF_SEV_ERROR && !strcmp(f->clause, *p);
        }
        if (!found) {
            print_report(v);
            fail_msg("expected error clause %s missing", *p);
        }
    }
}

#endif /* ATF_VTEST_UTIL_H */
