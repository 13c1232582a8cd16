/* A write buffer over a stdio stream for the text and binary outputs of the
 * tools (dump, merge, export): numbers and strings formatted straight into
 * it, one fwrite per 256 KiB. printf-family calls cost more than the rest of
 * a dump line together. */
#ifndef ATF_OBUF_H
#define ATF_OBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OBUF_SIZE (256u * 1024u)
#define OBUF_SLACK 512u   /* room a cursor writer asks for: every fixed-size part of a line fits (at most ~330 bytes) */

typedef struct obuf {
    FILE *f;
    size_t n;             /* bytes in buf */
    uint64_t total;       /* bytes handed to f */
    int failed;           /* a write to f failed (in memory: no memory) */
    int in_memory;        /* ob_init_mem(): flushed bytes go to spill, not to f */
    unsigned char *spill; /* in memory: what was flushed, in order (malloc'ed) */
    size_t spill_n, spill_cap;
    unsigned char buf[OBUF_SIZE];
} obuf;

void ob_init(obuf *b, FILE *f);
/* A buffer whose text stays in memory: what does not fit in buf goes to
 * b->spill, and the whole text is spill[0..spill_n) then buf[0..n).
 * ob_reset() empties it for reuse, ob_release() frees the spill. */
void ob_init_mem(obuf *b);
void ob_reset(obuf *b);
void ob_release(obuf *b);
/* Writes the text of in-memory @b (spill, then buf) to f. @return 0, or -1
 * when a write failed. */
int ob_write_mem(const obuf *b, FILE *f);
/* Writes out what is buffered. @return 0, or -1 once a write failed. */
int ob_flush(obuf *b);
void ob_put(obuf *b, const void *p, size_t n);
/* JSON string (quotes included) with every non-ASCII character escaped as
 * \uXXXX (a character past U+FFFF as its UTF-16 surrogate pair), as
 * Python's json.dumps() prints it: \" \\ \n \r \t \b \f, other control
 * characters and DEL as \u00XX. The bytes are decoded leniently (an
 * encoded surrogate passes as \udXXX; see json_string in obuf.c). */
void ob_json_string(obuf *b, const char *s);
/* The same for @n bytes (a NUL byte among them is written \u0000). */
void ob_json_string_n(obuf *b, const char *s, size_t n);
/* The same, reading the bytes as strict UTF-8 (RFC 3629): what is not, an
 * encoded surrogate too, is written U+FFFD, one for each invalid byte or
 * longest valid start of a sequence (as Python's "replace" decoding). */
void ob_json_string_utf8(obuf *b, const char *s, size_t n);
/* A signed decimal. */
void ob_i64(obuf *b, int64_t v);
/* A JSON number, one text per double: integral values of magnitude below
 * 2^53 as integers (-0 as 0), others as the first of %.15g/%.16g/%.17g
 * that reads back the same; NaN and the infinities as the strings "NaN",
 * "Infinity" and "-Infinity" (JSON has no literal for them). */
void ob_number(obuf *b, double v);
/* A JSON value (a jansson json_t *), compact, keys in their order, strings
 * and numbers by the rules above (obuf_json.c). */
void ob_json_value(obuf *b, const void *json);
void ob_hex(obuf *b, const uint8_t *p, size_t n);

static inline unsigned char *ob_room(obuf *b, size_t n)
{
    if (OBUF_SIZE - b->n < n)
        ob_flush(b);
    return b->buf + b->n;
}

static inline void ob_lit_(obuf *b, const char *s, size_t n)
{
    memcpy(ob_room(b, n), s, n);
    b->n += n;
}
/* A string literal. */
#define ob_lit(b, s) ob_lit_((b), (s), sizeof(s) - 1)

static inline void ob_char(obuf *b, char c)
{
    *ob_room(b, 1) = (unsigned char)c;
    b->n++;
}

extern const char ob_digit_pairs[201];   /* "00" "01" ... "99" */
extern const char ob_hex_pairs[513];     /* "00" "01" ... "ff" */

/* Exactly 8 digits of v < 10^8 at p: four independent pair lookups. */
static inline void ob_fmt8(unsigned char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, ob_digit_pairs + 2 * (hi / 100), 2);
    memcpy(p + 2, ob_digit_pairs + 2 * (hi % 100), 2);
    memcpy(p + 4, ob_digit_pairs + 2 * (lo / 100), 2);
    memcpy(p + 6, ob_digit_pairs + 2 * (lo % 100), 2);
}

/* Digits of v < 10^8, no leading zeros. @return the count. */
static inline size_t ob_fmt_small(unsigned char *p, uint32_t v)
{
    size_t n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5
             : v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
    unsigned char *q = p + n;
    while (v >= 100) {
        q -= 2;
        memcpy(q, ob_digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10)
        memcpy(q - 2, ob_digit_pairs + 2 * v, 2);
    else
        q[-1] = (unsigned char)('0' + v);
    return n;
}

/* Decimal digits of v at p (no terminator, at most 20). @return the count.
 * Long values are cut into 8-digit pieces whose digits do not wait on each
 * other (a plain divide-by-100 loop is one long dependency chain). */
static inline size_t ob_fmt_u64(unsigned char *p, uint64_t v)
{
    if (v < 100000000u)
        return ob_fmt_small(p, (uint32_t)v);
    if (v < 10000000000000000ull) {
        size_t n = ob_fmt_small(p, (uint32_t)(v / 100000000u));
        ob_fmt8(p + n, (uint32_t)(v % 100000000u));
        return n + 8;
    }
    uint64_t rest = v % 10000000000000000ull;
    size_t n = ob_fmt_small(p, (uint32_t)(v / 10000000000000000ull));
    ob_fmt8(p + n, (uint32_t)(rest / 100000000u));
    ob_fmt8(p + n + 8, (uint32_t)(rest % 100000000u));
    return n + 16;
}

/* Cursor writers: the caller got the room from ob_room() and adds what the
 * cursor moved to b->n. */
static inline unsigned char *put_lit_(unsigned char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}
#define put_lit(p, s) put_lit_((p), (s), sizeof(s) - 1)

static inline unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    return p + ob_fmt_u64(p, v);
}

static inline void ob_u64(obuf *b, uint64_t v)
{
    b->n += ob_fmt_u64(ob_room(b, 20), v);
}

/* v as 0x%016llx. */
static inline void ob_hex64(obuf *b, uint64_t v)
{
    unsigned char *p = ob_room(b, 18);
    p[0] = '0';
    p[1] = 'x';
    for (int i = 0; i < 8; i++)
        memcpy(p + 2 + 2 * i, ob_hex_pairs + 2 * ((v >> (56 - 8 * i)) & 0xff), 2);
    b->n += 18;
}

#endif /* ATF_OBUF_H */
