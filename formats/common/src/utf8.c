/* Strict UTF-8 (RFC 3629): the one decoder behind every check of text in
 * the codecs, the validator and the kits. */
#include <string.h>

#include "common.h"

size_t atf_utf8_decode(const uint8_t *p, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    uint32_t c = p[0];
    if (c < 0x80) {
        if (cp)
            *cp = c;
        return 1;
    }
    size_t k;
    uint32_t min;
    if (c >= 0xC2 && c <= 0xDF)
        k = 1, c &= 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        k = 2, c &= 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        k = 3, c &= 0x07, min = 0x10000;
    else
        return 0;
    /* Byte by byte: a string's NUL (never a continuation byte) ends it. */
    for (size_t j = 1; j <= k; j++) {
        if (j >= n || (p[j] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (p[j] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    if (cp)
        *cp = c;
    return k + 1;
}

int atf_utf8_valid(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        /* ASCII eight bytes at a time (a WTF string table is mostly ASCII). */
        uint64_t w;
        if (n - i >= 8 && (memcpy(&w, p + i, 8), (w & 0x8080808080808080ull) == 0)) {
            i += 8;
            continue;
        }
        size_t k = p[i] < 0x80 ? 1 : atf_utf8_decode(p + i, n - i, NULL);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}
