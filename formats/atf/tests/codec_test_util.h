/* Helpers shared by the format, reader and writer tests: a fixed-seed random
 * generator, little-endian stores written independently of the codec's
 * bytes.h, bit-at-a-time CRCs, builders of expected file images from the
 * byte tables of ATF-NOTES.md, random events, and temporary files.
 * Header-only (static inline). */
#ifndef ATF_CODEC_TEST_UTIL_H
#define ATF_CODEC_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/format.h>

/* ---- Random ------------------------------------------------------------ */

typedef struct cf_rng {
    uint64_t s;
} cf_rng;

static inline cf_rng cf_rng_seed(uint64_t seed)
{
    cf_rng r = { seed ? seed : 0x9E3779B97F4A7C15ull };
    return r;
}

/* xorshift64*: good enough for test data, identical on every platform. */
static inline uint64_t cf_next(cf_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform-ish in [0, n), n > 0. */
static inline uint64_t cf_below(cf_rng *r, uint64_t n)
{
    return cf_next(r) % n;
}

static inline void cf_fill(cf_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(cf_next(r) >> 56);
}

/* A "random" 64-bit value biased towards the edges that break encoders. */
static inline uint64_t cf_edgy64(cf_rng *r)
{
    switch (cf_below(r, 8)) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return UINT32_MAX;
    case 3: return (uint64_t)UINT32_MAX + 1u;
    case 4: return cf_below(r, 256);
    default: return cf_next(r);
    }
}

/* ---- Little-endian stores (independent of bytes.h) --------------------- */

static inline void cf_put16(uint8_t *p, uint16_t v)
{
    for (int i = 0; i < 2; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void cf_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void cf_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t cf_get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint64_t cf_get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* ---- Reference CRCs (bit at a time) ------------------------------------ */

static inline uint32_t cf_crc(uint32_t poly, const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++)
            c = (c & 1u) ? (c >> 1) ^ poly : c >> 1;
    }
    return ~c;
}

static inline uint32_t cf_crc32c(const uint8_t *p, size_t n) { return cf_crc(0x82F63B78u, p, n); }
static inline uint32_t cf_crc32_ieee(const uint8_t *p, size_t n) { return cf_crc(0xEDB88320u, p, n); }

/* ---- Expected images, from the ATF-NOTES.md byte tables --------------- */

enum { CF_SUM_NONE = 0, CF_SUM_CRC32C = 1, CF_SUM_IEEE = 2 };

/* One index event, 32 bytes. */
static inline void cf_index_event_bytes(uint8_t out[32], const atf_index_event *e, atf_layout l)
{
    memset(out, 0, 32);
    cf_put64(out + 0, e->timestamp_ns);
    cf_put64(out + 8, e->function_id);
    if (l == ATF_LAYOUT_1) {
        cf_put32(out + 16, e->thread_id);
        cf_put32(out + 20, e->event_kind);
        cf_put32(out + 24, e->call_depth);
        cf_put32(out + 28, e->detail_seq == ATF_NO_DETAIL ? UINT32_MAX : (uint32_t)e->detail_seq);
    } else {
        cf_put64(out + 16, e->detail_seq);
        out[24] = (uint8_t)e->event_kind;
    }
}

typedef struct cf_index_spec {
    atf_layout layout;
    uint8_t arch, os, clock_type;
    uint32_t flags;         /* written only in a finalized header */
    uint32_t thread_id;
    int finalized;          /* header as rewritten at finalize (else the placeholder) */
    int footer;             /* append the footer */
    int checksum;           /* CF_SUM_* */
} cf_index_spec;

static inline size_t cf_index_image_size(size_t n, int footer)
{
    return 64 + 32 * n + (footer ? 64 : 0);
}

/* Builds header + events (+ footer) into dst; returns the size. */
static inline size_t cf_index_image(uint8_t *dst, const cf_index_spec *s, const atf_index_event *ev,
                                    size_t n)
{
    uint8_t *h = dst;
    uint64_t t0 = n ? ev[0].timestamp_ns : 0, t1 = n ? ev[n - 1].timestamp_ns : 0;
    memset(h, 0, 64);
    memcpy(h, "ATI2", 4);
    h[4] = 1;
    h[5] = (uint8_t)s->layout;
    h[6] = s->arch;
    h[7] = s->os;
    cf_put32(h + 12, s->thread_id);
    h[16] = s->clock_type;
    if (s->layout == ATF_LAYOUT_1)
        cf_put32(h + 24, 32);
    else
        cf_put32(h + 20, 32);
    cf_put64(h + 32, 64);
    if (s->finalized) {
        cf_put32(h + 8, s->flags);
        if (s->layout == ATF_LAYOUT_1)
            cf_put32(h + 28, (uint32_t)n);
        else
            cf_put64(h + 24, n);
        cf_put64(h + 40, 64 + 32 * (uint64_t)n);
        cf_put64(h + 48, t0);
        cf_put64(h + 56, t1);
    }
    for (size_t i = 0; i < n; i++)
        cf_index_event_bytes(dst + 64 + 32 * i, &ev[i], s->layout);
    size_t size = 64 + 32 * n;
    if (s->footer) {
        uint8_t *f = dst + size;
        uint32_t sum = 0;
        if (s->checksum == CF_SUM_CRC32C)
            sum = cf_crc32c(dst + 64, 32 * n);
        else if (s->checksum == CF_SUM_IEEE)
            sum = cf_crc32_ieee(dst + 64, 32 * n);
        memset(f, 0, 64);
        memcpy(f, "2ITA", 4);
        cf_put32(f + 4, sum);
        cf_put64(f + 8, n);
        cf_put64(f + 16, t0);
        cf_put64(f + 24, t1);
        cf_put64(f + 32, 32 * (uint64_t)n);
        size += 64;
    }
    return size;
}

/* One detail event, header + payload. */
static inline size_t cf_detail_event_bytes(uint8_t *out, const atf_detail_event *e, atf_layout l)
{
    cf_put32(out + 0, 24 + e->payload_size);
    cf_put16(out + 4, e->event_type);
    cf_put16(out + 6, e->flags);
    if (l == ATF_LAYOUT_1) {
        cf_put32(out + 8, (uint32_t)e->index_seq);
        cf_put32(out + 12, e->thread_id);
    } else {
        cf_put64(out + 8, e->index_seq);
    }
    cf_put64(out + 16, e->timestamp);
    if (e->payload_size)
        memcpy(out + 24, e->payload, e->payload_size);
    return 24 + (size_t)e->payload_size;
}

typedef struct cf_detail_spec {
    atf_layout layout;
    uint8_t arch, os;
    uint32_t thread_id;
    int finalized;
    int footer;
    int checksum;
} cf_detail_spec;

static inline size_t cf_detail_image_size(const atf_detail_event *ev, size_t n, int footer)
{
    size_t size = 64 + (footer ? 64 : 0);
    for (size_t i = 0; i < n; i++)
        size += 24 + ev[i].payload_size;
    return size;
}

static inline size_t cf_detail_image(uint8_t *dst, const cf_detail_spec *s, const atf_detail_event *ev,
                                     size_t n)
{
    uint8_t *h = dst;
    size_t pos = 64;
    for (size_t i = 0; i < n; i++)
        pos += cf_detail_event_bytes(dst + pos, &ev[i], s->layout);
    uint64_t len = pos - 64;
    memset(h, 0, 64);
    memcpy(h, "ATD2", 4);
    h[4] = 1;
    h[5] = (uint8_t)s->layout;
    h[6] = s->arch;
    h[7] = s->os;
    cf_put32(h + 12, s->thread_id);
    cf_put64(h + 20, 64);
    if (s->finalized) {
        cf_put64(h + 28, n);
        cf_put64(h + 36, len);
        cf_put64(h + 44, n ? ev[0].index_seq : 0);
        cf_put64(h + 52, n ? ev[n - 1].index_seq : 0);
    }
    if (s->footer) {
        uint8_t *f = dst + pos;
        uint32_t sum = 0;
        if (s->checksum == CF_SUM_CRC32C)
            sum = cf_crc32c(dst + 64, (size_t)len);
        else if (s->checksum == CF_SUM_IEEE)
            sum = cf_crc32_ieee(dst + 64, (size_t)len);
        memset(f, 0, 64);
        memcpy(f, "2DTA", 4);
        cf_put32(f + 4, sum);
        cf_put64(f + 8, n);
        cf_put64(f + 16, len);
        cf_put64(f + 24, n ? ev[0].timestamp : 0);
        cf_put64(f + 32, n ? ev[n - 1].timestamp : 0);
        pos += 64;
    }
    return pos;
}

/* ARM64 function payload (100 bytes + stack), from the ATF-NOTES.md layout. */
static inline size_t cf_arm64_bytes(uint8_t *out, const atf_arm64_payload *a)
{
    cf_put64(out + 0, a->function_id);
    for (int i = 0; i < 8; i++)
        cf_put64(out + 8 + 8 * i, a->x[i]);
    cf_put64(out + 72, a->lr);
    cf_put64(out + 80, a->fp);
    cf_put64(out + 88, a->sp);
    cf_put16(out + 96, a->stack_size);
    cf_put16(out + 98, a->reserved);
    if (a->stack_size)
        memcpy(out + 100, a->stack, a->stack_size);
    return 100u + a->stack_size;
}

/* ---- Random events ----------------------------------------------------- */

/* Random index event valid in layout l; timestamps non-decreasing from *ts. */
static inline atf_index_event cf_random_index_event(cf_rng *r, atf_layout l, uint64_t *ts)
{
    atf_index_event e;
    memset(&e, 0, sizeof e);
    *ts += cf_below(r, 4) == 0 ? 0 : cf_below(r, 100000);
    e.timestamp_ns = *ts;
    e.function_id = cf_edgy64(r);
    if (l == ATF_LAYOUT_1) {
        e.thread_id = (uint32_t)cf_next(r);
        e.event_kind = cf_below(r, 4) ? (uint32_t)(1 + cf_below(r, 3)) : (uint32_t)cf_next(r);
        e.call_depth = (uint32_t)cf_next(r);
        uint64_t d = cf_edgy64(r);
        e.detail_seq = d == UINT64_MAX ? ATF_NO_DETAIL : (d % UINT32_MAX); /* < UINT32_MAX */
    } else {
        e.event_kind = cf_below(r, 4) ? (uint32_t)(1 + cf_below(r, 3)) : (uint32_t)cf_below(r, 256);
        e.detail_seq = cf_edgy64(r);
    }
    return e;
}

/* A set of detail events whose payloads live in one arena. */
typedef struct cf_detail_set {
    atf_detail_event *ev;
    size_t n;
    uint8_t *arena;
    int *is_arm64;          /* payload is an ARM64 function payload */
} cf_detail_set;

/* n random events: empty payloads, random bytes (up to max_raw), and ARM64
 * payloads with stack sizes 0..256 (0 and 256 always included if n >= 4). */
static inline cf_detail_set cf_random_detail_set(cf_rng *r, atf_layout l, size_t n, size_t max_raw)
{
    cf_detail_set s;
    s.n = n;
    s.ev = calloc(n ? n : 1, sizeof *s.ev);
    s.is_arm64 = calloc(n ? n : 1, sizeof *s.is_arm64);
    size_t per = (max_raw > 356 ? max_raw : 356) + 1;
    s.arena = malloc(n * per + 1);
    assert_non_null(s.ev);
    assert_non_null(s.is_arm64);
    assert_non_null(s.arena);
    uint64_t ts = cf_next(r) >> 8;
    uint64_t iseq = cf_below(r, 1000);
    for (size_t i = 0; i < n; i++) {
        atf_detail_event *e = &s.ev[i];
        uint8_t *p = s.arena + i * per;
        memset(e, 0, sizeof *e);
        ts += cf_below(r, 1000);
        iseq += 1 + cf_below(r, 3);
        e->timestamp = ts;
        e->index_seq = l == ATF_LAYOUT_1 ? (iseq & 0xFFFFFFFFu) : iseq | (cf_below(r, 2) ? 0 : (cf_next(r) << 33));
        e->thread_id = l == ATF_LAYOUT_1 ? (uint32_t)cf_next(r) : 0;
        e->flags = (uint16_t)cf_next(r);
        unsigned kind = (unsigned)cf_below(r, 3);
        if (i == 1 || i == 2)
            kind = 2;
        if (i == 0)
            kind = 0;
        if (kind == 0) {
            e->event_type = (uint16_t)cf_next(r);
        } else if (kind == 1) {
            e->event_type = (uint16_t)cf_next(r);
            e->payload_size = (uint32_t)(1 + cf_below(r, max_raw ? max_raw : 1));
            cf_fill(r, p, e->payload_size);
            e->payload = p;
        } else {
            atf_arm64_payload a;
            uint8_t stack[256];
            memset(&a, 0, sizeof a);
            a.function_id = cf_next(r);
            for (int k = 0; k < 8; k++)
                a.x[k] = cf_next(r);
            a.lr = cf_next(r);
            a.fp = cf_next(r);
            a.sp = cf_next(r);
            a.stack_size = (uint16_t)(i == 1 ? 0 : i == 2 ? 256 : cf_below(r, 257));
            cf_fill(r, stack, a.stack_size);
            a.stack = stack;
            e->event_type = (uint16_t)(cf_below(r, 2) ? ATF_DETAIL_FUNCTION_CALL : ATF_DETAIL_FUNCTION_RETURN);
            e->payload_size = (uint32_t)cf_arm64_bytes(p, &a);
            e->payload = p;
            s.is_arm64[i] = 1;
        }
    }
    return s;
}

static inline void cf_detail_set_free(cf_detail_set *s)
{
    free(s->ev);
    free(s->arena);
    free(s->is_arm64);
    memset(s, 0, sizeof *s);
}

/* ---- Comparisons ------------------------------------------------------- */

static inline void cf_assert_index_event(const atf_index_event *got, const atf_index_event *want)
{
    assert_int_equal(got->timestamp_ns, want->timestamp_ns);
    assert_int_equal(got->function_id, want->function_id);
    assert_int_equal(got->detail_seq, want->detail_seq);
    assert_int_equal(got->event_kind, want->event_kind);
    assert_int_equal(got->thread_id, want->thread_id);
    assert_int_equal(got->call_depth, want->call_depth);
    assert_int_equal(got->reserved_nonzero, 0);
}

static inline void cf_assert_detail_event(const atf_detail_event *got, const atf_detail_event *want)
{
    assert_int_equal(got->total_length, 24u + want->payload_size);
    assert_int_equal(got->event_type, want->event_type);
    assert_int_equal(got->flags, want->flags);
    assert_int_equal(got->index_seq, want->index_seq);
    assert_int_equal(got->thread_id, want->thread_id);
    assert_int_equal(got->timestamp, want->timestamp);
    assert_int_equal(got->payload_size, want->payload_size);
    if (want->payload_size) {
        assert_non_null(got->payload);
        assert_memory_equal(got->payload, want->payload, want->payload_size);
    } else {
        assert_null(got->payload);
    }
}

static inline void cf_assert_error(const atf_error *err, atf_status code, uint64_t offset,
                                   const char *field)
{
    assert_int_equal(err->code, code);
    assert_int_equal(err->offset, offset);
    if (field) {
        assert_non_null(err->field);
        assert_string_equal(err->field, field);
    }
}

/* ---- Temporary files --------------------------------------------------- */

/* Creates <TMPDIR or /tmp>/atf-<tag>-XXXXXX into buf. */
static inline void cf_mkdtemp(char *buf, size_t cap, const char *tag)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    int n = snprintf(buf, cap, "%s/atf-%s-XXXXXX", base, tag);
    assert_true(n > 0 && (size_t)n < cap);
    assert_non_null(mkdtemp(buf));
}

static inline int cf_rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes a directory made by cf_mkdtemp() and everything in it. */
static inline void cf_rm_rf(const char *path)
{
    if (!strstr(path, "/atf-"))
        return;
    nftw(path, cf_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static inline const char *cf_path(char *buf, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(buf, cap, "%s/%s", dir, name);
    assert_true(n > 0 && (size_t)n < cap);
    return buf;
}

/* Whole file into a malloc'd buffer of exactly its size (at least 1 byte allocated). */
static inline uint8_t *cf_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* The two files hold the same bytes. */
static inline void cf_assert_same_file(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *x = cf_read_file(a, &na), *y = cf_read_file(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(x, y, na);
    free(x);
    free(y);
}

static inline void cf_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (size)
        assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* Exact-size heap copy so that ASan catches any read past the end. */
static inline uint8_t *cf_dup(const uint8_t *src, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    if (n)
        memcpy(p, src, n);
    return p;
}

#endif /* ATF_CODEC_TEST_UTIL_H */
