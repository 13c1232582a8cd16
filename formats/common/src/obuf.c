/* The tools' write buffer (obuf.h). */
#include <stdlib.h>

#include "obuf.h"

const char ob_digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

const char ob_hex_pairs[513] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                               "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                               "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                               "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                               "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                               "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                               "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                               "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void ob_init(obuf *b, FILE *f)
{
    b->f = f;
    b->n = 0;
    b->total = 0;
    b->failed = 0;
    b->in_memory = 0;
    b->spill = NULL;
    b->spill_n = b->spill_cap = 0;
}

void ob_init_mem(obuf *b)
{
    ob_init(b, NULL);
    b->in_memory = 1;
}

void ob_reset(obuf *b)
{
    b->n = b->spill_n = 0;
    b->total = 0;
    b->failed = 0;
}

void ob_release(obuf *b)
{
    free(b->spill);
    b->spill = NULL;
    b->spill_n = b->spill_cap = 0;
}

int ob_write_mem(const obuf *b, FILE *f)
{
    if (b->spill_n && fwrite(b->spill, 1, b->spill_n, f) != b->spill_n)
        return -1;
    return b->n && fwrite(b->buf, 1, b->n, f) != b->n ? -1 : 0;
}

/* In memory: buf appended to spill, which grows by doubling. */
static int spill(obuf *b)
{
    if (b->spill_cap - b->spill_n < b->n) {
        size_t cap = b->spill_cap ? b->spill_cap : OBUF_SIZE;
        while (cap - b->spill_n < b->n)
            cap *= 2;
        unsigned char *p = realloc(b->spill, cap);
        if (!p)
            return -1;
        b->spill = p;
        b->spill_cap = cap;
    }
    memcpy(b->spill + b->spill_n, b->buf, b->n);
    b->spill_n += b->n;
    return 0;
}

int ob_flush(obuf *b)
{
    if (b->n && !b->failed && (b->in_memory ? spill(b) != 0 : fwrite(b->buf, 1, b->n, b->f) != b->n))
        b->failed = 1;
    b->total += b->n;
    b->n = 0;
    return b->failed ? -1 : 0;
}

void ob_put(obuf *b, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n > 0) {
        size_t room = OBUF_SIZE - b->n;
        if (room == 0) {
            ob_flush(b);
            room = OBUF_SIZE;
        }
        size_t k = n < room ? n : room;
        memcpy(b->buf + b->n, s, k);
        b->n += k;
        s += k;
        n -= k;
    }
}

static void put_u16_escape(obuf *b, uint32_t c)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char *p = ob_room(b, 6);
    p[0] = '\\';
    p[1] = 'u';
    p[2] = (unsigned char)digits[(c >> 12) & 15];
    p[3] = (unsigned char)digits[(c >> 8) & 15];
    p[4] = (unsigned char)digits[(c >> 4) & 15];
    p[5] = (unsigned char)digits[c & 15];
    b->n += 6;
}

void ob_json_string(obuf *b, const char *s)
{
    ob_json_string_n(b, s, strlen(s));
}

/* strict: bytes that are not UTF-8 by RFC 3629 (overlong forms, encoded
 * surrogates, values above U+10FFFF too) are U+FFFD, one for each invalid
 * byte or longest valid start of a sequence, as Python's "replace"
 * decoding gives them. Otherwise the decoding is lenient, for strings that
 * came from UTF-16 text and may hold lone surrogates: a lead byte and its
 * continuation bytes give their value whatever its form (an overlong form
 * its value, an encoded surrogate \udXXX), and only a byte that starts no
 * sequence, a sequence cut short or a value above U+10FFFF is U+FFFD. */
static void json_string(obuf *b, const char *s, size_t n, int strict)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    ob_char(b, '"');
    while (p < end) {
        /* Runs of characters that need no escape go in one copy. */
        const unsigned char *run = p;
        while (p < end && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            ob_put(b, run, (size_t)(p - run));
        if (p == end)
            break;
        uint32_t c = *p++;
        if (c >= 0x80) {
            int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
            unsigned lo = 0x80, hi = 0xBF;
            if (strict) {
                extra = (c >= 0xC0 && c < 0xC2) || c > 0xF4 ? -1 : extra;
                lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
                hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
            }
            c = extra == 3 ? c & 0x07 : extra == 2 ? c & 0x0F : c & 0x1F;
            for (int i = 0; i < extra; i++) {
                if (p == end || *p < (i ? 0x80 : lo) || *p > (i ? 0xBF : hi)) {
                    extra = -1;
                    break;
                }
                c = (c << 6) | (*p++ & 0x3F);
            }
            if (extra < 0 || c > 0x10FFFF)
                c = 0xFFFD;
            if (c >= 0x10000) {
                c -= 0x10000;
                put_u16_escape(b, 0xD800 + (c >> 10));
                put_u16_escape(b, 0xDC00 + (c & 0x3FF));
            } else {
                put_u16_escape(b, c);
            }
            continue;
        }
        switch (c) {
        case '"': ob_lit(b, "\\\""); break;
        case '\\': ob_lit(b, "\\\\"); break;
        case '\n': ob_lit(b, "\\n"); break;
        case '\r': ob_lit(b, "\\r"); break;
        case '\t': ob_lit(b, "\\t"); break;
        case '\b': ob_lit(b, "\\b"); break;
        case '\f': ob_lit(b, "\\f"); break;
        default: put_u16_escape(b, c); /* other controls and DEL, as json.dumps does */
        }
    }
    ob_char(b, '"');
}

void ob_json_string_n(obuf *b, const char *s, size_t n)
{
    json_string(b, s, n, 0);
}

void ob_json_string_utf8(obuf *b, const char *s, size_t n)
{
    json_string(b, s, n, 1);
}

#if defined(__SSE2__)
#  include <emmintrin.h>
/* 16 bytes to 32 lowercase hex digits with SSE2 (in every x86-64 CPU). */
static size_t hex_sse2(unsigned char *d, const uint8_t *p, size_t n)
{
    const __m128i mask = _mm_set1_epi8(0x0f), nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0'),
                  letters = _mm_set1_epi8('a' - '0' - 10);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), mask), lo = _mm_and_si128(x, mask);
        __m128i a = _mm_unpacklo_epi8(hi, lo), b = _mm_unpackhi_epi8(hi, lo);
        a = _mm_add_epi8(_mm_add_epi8(a, zero), _mm_and_si128(_mm_cmpgt_epi8(a, nine), letters));
        b = _mm_add_epi8(_mm_add_epi8(b, zero), _mm_and_si128(_mm_cmpgt_epi8(b, nine), letters));
        _mm_storeu_si128((__m128i *)(void *)(d + 2 * i), a);
        _mm_storeu_si128((__m128i *)(void *)(d + 2 * i + 16), b);
    }
    return i;
}
#endif

void ob_hex(obuf *b, const uint8_t *p, size_t n)
{
    while (n > 0) {
        size_t k = n < 4096 ? n : 4096, i = 0;
        unsigned char *d = ob_room(b, 2 * k);
#if defined(__SSE2__)
        i = hex_sse2(d, p, k);
#endif
        for (; i < k; i++)
            memcpy(d + 2 * i, ob_hex_pairs + 2 * p[i], 2);
        b->n += 2 * k;
        p += k;
        n -= k;
    }
}

void ob_i64(obuf *b, int64_t v)
{
    if (v < 0) {
        ob_char(b, '-');
        ob_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        ob_u64(b, (uint64_t)v);
    }
}

void ob_number(obuf *b, double v)
{
    char tmp[40];
    if (v != v) {
        ob_lit(b, "\"NaN\"");
        return;
    }
    if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308) {
        if (v > 0)
            ob_lit(b, "\"Infinity\"");
        else
            ob_lit(b, "\"-Infinity\"");
        return;
    }
    if (v < 9007199254740992.0 && v > -9007199254740992.0 && v == (double)(int64_t)v) {
        ob_i64(b, (int64_t)v);   /* -0 prints as 0 */
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (prec == 17 || strtod(tmp, NULL) == v)
            break;
    }
    ob_put(b, tmp, strlen(tmp));
}
