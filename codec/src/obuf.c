/* The tools' write buffer (obuf.h). */
#include "obuf.h"

void ob_init(obuf *b, FILE *f)
{
    b->f = f;
    b->n = 0;
    b->total = 0;
    b->failed = 0;
}

int ob_flush(obuf *b)
{
    if (b->n && !b->failed && fwrite(b->buf, 1, b->n, b->f) != b->n)
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
    const unsigned char *p = (const unsigned char *)s;
    ob_char(b, '"');
    while (*p) {
        /* Runs of characters that need no escape go in one copy. */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            ob_put(b, run, (size_t)(p - run));
        if (!*p)
            break;
        uint32_t c = *p++;
        if (c >= 0x80) {
            int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
            c = extra == 3 ? c & 0x07 : extra == 2 ? c & 0x0F : c & 0x1F;
            for (int i = 0; i < extra; i++) {
                if ((*p & 0xC0) != 0x80) {
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

void ob_hex(obuf *b, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    while (n > 0) {
        size_t k = n < 4096 ? n : 4096;
        unsigned char *d = ob_room(b, 2 * k);
        for (size_t i = 0; i < k; i++) {
            d[2 * i] = (unsigned char)digits[p[i] >> 4];
            d[2 * i + 1] = (unsigned char)digits[p[i] & 15];
        }
        b->n += 2 * k;
        p += k;
        n -= k;
    }
}
