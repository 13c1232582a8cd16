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
#define OBUF_SLACK 256u   /* every ob_* call below but ob_put writes at most this much */

typedef struct obuf {
    FILE *f;
    size_t n;             /* bytes in buf */
    uint64_t total;       /* bytes handed to f */
    int failed;           /* a write to f failed */
    unsigned char buf[OBUF_SIZE];
} obuf;

void ob_init(obuf *b, FILE *f);
/* Writes out what is buffered. @return 0, or -1 once a write failed. */
int ob_flush(obuf *b);
void ob_put(obuf *b, const void *p, size_t n);
/* JSON string (quotes included) with every non-ASCII character escaped as
 * \uXXXX, as Python's json.dumps() prints it (docs/dump-format.md). */
void ob_json_string(obuf *b, const char *s);
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

/* Decimal digits of v at p (no terminator). @return the count. */
static inline size_t ob_fmt_u64(unsigned char *p, uint64_t v)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                   "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                   "8081828384858687888990919293949596979899";
    unsigned char tmp[20];
    size_t k = 20;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        tmp[--k] = (unsigned char)pairs[2 * r + 1];
        tmp[--k] = (unsigned char)pairs[2 * r];
    }
    if (v >= 10) {
        tmp[--k] = (unsigned char)pairs[2 * v + 1];
        tmp[--k] = (unsigned char)pairs[2 * v];
    } else {
        tmp[--k] = (unsigned char)('0' + v);
    }
    memcpy(p, tmp + k, 20 - k);
    return 20 - k;
}

static inline void ob_u64(obuf *b, uint64_t v)
{
    b->n += ob_fmt_u64(ob_room(b, 20), v);
}

/* v as 0x%016llx. */
static inline void ob_hex64(obuf *b, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char *p = ob_room(b, 18);
    p[0] = '0';
    p[1] = 'x';
    for (int i = 0; i < 16; i++)
        p[2 + i] = (unsigned char)digits[(v >> (60 - 4 * i)) & 15];
    b->n += 18;
}

#endif /* ATF_OBUF_H */
