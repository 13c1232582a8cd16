/* Target rtc_format: every default-format decoder (rtc_value_parse,
 * SPEC-RTC 6) and the dump's value of a record (rtc_value_render).
 *
 * Input: byte 0 picks the format (every default format, unknown names that
 * are near misses, and annotate/ of any of them: byte 1 picks the inner
 * one), byte 2 bit 0 the native byte order; the rest is the record.
 * Properties, against the harness's own decoding from the spec's table:
 *  - ints and floats: exactly 1, 2, 4, 8 bytes else RTC-FMT-001; the value
 *    is the bytes in the format's order (native: the flag), two's
 *    complement for int, IEEE 754 for floats (same bits);
 *  - uleb128/leb128: the value of the harness's LEB128 decoder when it
 *    fills the record, else RTC-FMT-003;
 *  - timespec: 12 bytes (u64 s, u32 ns), platform: 4 bytes, little, big or
 *    neither; utf-8: RTC-FMT-004 exactly when the bytes are not UTF-8
 *    (harness's own validator: no overlong form, no surrogate, at most
 *    U+10FFFF); json: RTC-FMT-002 exactly when it is not one JSON text;
 *    raw, index and unknown names: not decoded, no clause;
 *  - annotate/F: at least 12 bytes (else RTC-FMT-001), the timespec, and
 *    the clause the inner record breaks as F says;
 *  - the dump's value of the record is one JSON value; an int without gain
 *    or offset prints its exact value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz_rtc.h"
#include "rtc_internal.h"

enum { K_RAW, K_INT, K_FLOAT, K_ULEB, K_SLEB, K_TS, K_UTF8, K_JSON, K_PLAT, K_ANN };

typedef struct fmt {
    const char *name;
    int kind;
    size_t bytes;
    int sign, order;   /* order 0 native, 1 le, 2 be */
} fmt;

static const fmt fmts[] = {
    { "uint8", K_INT, 1, 0, 0 }, { "uint8le", K_INT, 1, 0, 1 }, { "uint8be", K_INT, 1, 0, 2 },
    { "int8", K_INT, 1, 1, 0 }, { "int8le", K_INT, 1, 1, 1 }, { "int8be", K_INT, 1, 1, 2 },
    { "uint16", K_INT, 2, 0, 0 }, { "uint16le", K_INT, 2, 0, 1 }, { "uint16be", K_INT, 2, 0, 2 },
    { "int16", K_INT, 2, 1, 0 }, { "int16le", K_INT, 2, 1, 1 }, { "int16be", K_INT, 2, 1, 2 },
    { "uint32", K_INT, 4, 0, 0 }, { "uint32le", K_INT, 4, 0, 1 }, { "uint32be", K_INT, 4, 0, 2 },
    { "int32", K_INT, 4, 1, 0 }, { "int32le", K_INT, 4, 1, 1 }, { "int32be", K_INT, 4, 1, 2 },
    { "uint64", K_INT, 8, 0, 0 }, { "uint64le", K_INT, 8, 0, 1 }, { "uint64be", K_INT, 8, 0, 2 },
    { "int64", K_INT, 8, 1, 0 }, { "int64le", K_INT, 8, 1, 1 }, { "int64be", K_INT, 8, 1, 2 },
    { "float32", K_FLOAT, 4, 0, 0 }, { "float32le", K_FLOAT, 4, 0, 1 }, { "float32be", K_FLOAT, 4, 0, 2 },
    { "float64", K_FLOAT, 8, 0, 0 }, { "float64le", K_FLOAT, 8, 0, 1 }, { "float64be", K_FLOAT, 8, 0, 2 },
    { "uleb128", K_ULEB, 0, 0, 0 }, { "leb128", K_SLEB, 0, 0, 0 }, { "timespec", K_TS, 12, 0, 0 },
    { "utf-8", K_UTF8, 0, 0, 0 }, { "json", K_JSON, 0, 0, 0 }, { "platform", K_PLAT, 4, 0, 0 },
    { "raw", K_RAW, 0, 0, 0 }, { "index", K_RAW, 0, 0, 0 },
    /* near misses: not default formats, so raw */
    { "int", K_RAW, 0, 0, 0 }, { "int8x", K_RAW, 0, 0, 0 }, { "uint12", K_RAW, 0, 0, 0 },
    { "float16", K_RAW, 0, 0, 0 }, { "int8lebe", K_RAW, 0, 0, 0 }, { "INT8", K_RAW, 0, 0, 0 },
    { "utf8", K_RAW, 0, 0, 0 }, { "uint64bee", K_RAW, 0, 0, 0 }, { "float32l", K_RAW, 0, 0, 0 },
    { "", K_RAW, 0, 0, 0 }, { "uuint8", K_RAW, 0, 0, 0 }, { "leb", K_RAW, 0, 0, 0 },
};
#define NFMTS (sizeof fmts / sizeof fmts[0])

static uint64_t load_order(const uint8_t *p, size_t n, int be)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[be ? i : n - 1 - i];
    return v;
}

/* UTF-8 as RFC 3629 says. */
static int utf8_ok(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t c = p[i];
        size_t k = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 9;
        if (k == 9 || n - i - 1 < k)
            return 0;
        uint32_t v = k == 0 ? c : c & (0x3Fu >> k);
        for (size_t j = 1; j <= k; j++) {
            if ((p[i + j] & 0xC0) != 0x80)
                return 0;
            v = v << 6 | (p[i + j] & 0x3F);
        }
        static const uint32_t least[4] = { 0, 0x80, 0x800, 0x10000 };
        if (v < least[k] || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* The clause a record of @p f breaks (RC_*), or RC_NONE_; checks the value. */
static int expect(const fmt *f, const uint8_t *p, size_t n, int big, const rtc_val *v, int check_value)
{
    int be = f->order == 2 || (f->order == 0 && big);
    switch (f->kind) {
    case K_INT:
        if (n != f->bytes)
            return RC_FMT_001;
        if (check_value) {
            uint64_t u = load_order(p, n, be);
            if (f->sign) {
                int64_t s = n == 8 ? (int64_t)u : (int64_t)(u ^ (1ull << (8 * n - 1))) - (int64_t)(1ull << (8 * n - 1));
                FZ_CHECK(v->kind == RV_INT && v->i == s, "%s: %lld, expected %lld", f->name, (long long)v->i,
                         (long long)s);
            } else {
                FZ_CHECK(v->kind == RV_UINT && v->u == u, "%s: %llu, expected %llu", f->name,
                         (unsigned long long)v->u, (unsigned long long)u);
            }
        }
        return RC_NONE_;
    case K_FLOAT:
        if (n != f->bytes)
            return RC_FMT_001;
        if (check_value) {
            uint64_t u = load_order(p, n, be);
            double want;
            if (n == 4) {
                uint32_t w = (uint32_t)u;
                float x;
                memcpy(&x, &w, 4);
                want = x;
            } else {
                memcpy(&want, &u, 8);
            }
            FZ_CHECK(v->kind == RV_FLOAT && (v->f == want || (isnan(want) && isnan(v->f))), "%s: %g, expected %g",
                     f->name, v->f, want);
        }
        return RC_NONE_;
    case K_ULEB:
    case K_SLEB: {
        uint64_t u;
        int64_t s;
        size_t used = 0;
        int ok = f->kind == K_ULEB ? fz_rtc_uleb(p, n, &u, &used) : fz_rtc_sleb(p, n, &s, &used);
        if (ok != 1 || used != n)
            return RC_FMT_003;
        if (check_value)
            FZ_CHECK(f->kind == K_ULEB ? v->kind == RV_UINT && v->u == u : v->kind == RV_INT && v->i == s,
                     "%s: value differs", f->name);
        return RC_NONE_;
    }
    case K_TS:
        if (n != 12)
            return RC_FMT_001;
        if (check_value)
            FZ_CHECK(v->kind == RV_TIMESPEC && v->sec == load_order(p, 8, big) &&
                         v->nsec == (uint32_t)load_order(p + 8, 4, big),
                     "timespec differs");
        return RC_NONE_;
    case K_UTF8:
        return utf8_ok(p, n) ? RC_NONE_ : RC_FMT_004;
    case K_JSON: {
        /* JSON text: integers of any size are numbers (RFC 8259) */
        json_t *j = json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, NULL);
        json_decref(j);
        return j ? RC_NONE_ : RC_FMT_002;
    }
    case K_PLAT:
        if (n != 4)
            return RC_FMT_001;
        if (check_value) {
            const char *w = !memcmp(p, "\4\3\2\1", 4) ? "little" : !memcmp(p, "\1\2\3\4", 4) ? "big" : NULL;
            FZ_CHECK(v->kind == RV_PLATFORM && (w ? v->platform && !strcmp(v->platform, w) : !v->platform),
                     "platform differs");
        }
        return RC_NONE_;
    default:
        if (check_value)
            FZ_CHECK(v->kind == RV_HEX, "%s decoded (kind %d)", f->name, v->kind);
        return RC_NONE_;
    }
}

static obuf ob;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    const fmt *outer = &fmts[data[0] % (NFMTS + 4)  < NFMTS ? data[0] % (NFMTS + 4) : 0];
    int ann = data[0] % (NFMTS + 4) >= NFMTS;
    const fmt *inner = &fmts[data[1] % NFMTS];
    int big = data[2] & 1;
    const uint8_t *p = data + 3;
    size_t n = size - 3;
    char name[64];
    snprintf(name, sizeof name, "%s%s", ann ? "annotate/" : "", ann ? inner->name : outer->name);
    rtc_val v;
    rtc_value_parse(name, p, n, big, &v);
    if (ann) {
        if (n < 12) {
            FZ_CHECK(v.bad == RC_FMT_001, "%s of %zu bytes: clause %d", name, n, v.bad);
        } else {
            FZ_CHECK(v.bad == RC_NONE_ && v.kind == RV_ANNOTATE && v.sec == load_order(p, 8, big) &&
                         v.nsec == (uint32_t)load_order(p + 8, 4, big),
                     "%s: the annotation's time", name);
            rtc_val in;
            rtc_value_parse(inner->name, p + 12, n - 12, big, &in);
            int want = expect(inner, p + 12, n - 12, big, &in, 1);
            FZ_CHECK(v.inner_bad == want, "%s of %zu bytes: inner clause %d, expected %d", name, n, v.inner_bad, want);
        }
    } else {
        int want = expect(outer, p, n, big, &v, 0);
        FZ_CHECK(v.bad == want, "%s of %zu bytes: clause %d, expected %d", name, n, v.bad, want);
        if (want == RC_NONE_ || want == RC_FMT_004 || want == RC_FMT_002)
            expect(outer, p, n, big, &v, want == RC_NONE_);
    }
    /* The dump's value: one JSON value. */
    char *text = NULL;
    size_t tn = 0;
    FILE *mf = open_memstream(&text, &tn);
    FZ_CHECK(mf != NULL, "open_memstream");
    ob_init(&ob, mf);
    atf_rtc_record rec;
    memset(&rec, 0, sizeof rec);
    rec.payload = p;
    rec.size = n;
    rec.format = name;
    rec.big_endian = big;
    rtc_value_render(&ob, &rec);
    FZ_CHECK(ob_flush(&ob) == 0, "flush");
    fclose(mf);
    json_error_t je;
    json_t *j = json_loadb(text, tn, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
    FZ_CHECK(j != NULL, "%s: the dump's value is not JSON: %.200s (%s)", name, text, je.text);
    json_decref(j);
    j = json_loadb(text, tn, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);   /* integers exact, when they fit */
    if (!ann && outer->kind == K_INT && v.bad == RC_NONE_ && json_is_integer(j)) {
        json_int_t x = json_integer_value(j);
        FZ_CHECK(outer->sign ? x == v.i : (uint64_t)x == v.u, "%s: the dump prints %lld", name, (long long)x);
    }
    json_decref(j);
    free(text);
    return 0;
}
