/* JSON and XML escaping onto a stream (escape.h). */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "escape.h"

/* Next code point of the UTF-8 bytes [*pp, end); a malformed sequence gives
 * U+FFFD and consumes one byte. */
static uint32_t next_cp_n(const unsigned char **pp, const unsigned char *end)
{
    uint32_t cp;
    size_t k = atf_utf8_decode(*pp, (size_t)(end - *pp), &cp);
    *pp += k ? k : 1;
    return k ? cp : 0xFFFD;
}

void atf_json_fputs(const char *s, FILE *out)
{
    atf_json_fputs_n(s, strlen(s), out);
}

void atf_json_fputs_n(const char *s, size_t n, FILE *out)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    fputc('"', out);
    while (p < end) {
        uint32_t c = next_cp_n(&p, end);
        switch (c) {
        case '"': fputs("\\\"", out); continue;
        case '\\': fputs("\\\\", out); continue;
        case '\n': fputs("\\n", out); continue;
        case '\r': fputs("\\r", out); continue;
        case '\t': fputs("\\t", out); continue;
        default: break;
        }
        if (c >= 0x20 && c < 0x7F) {
            fputc((int)c, out);
        } else if (c >= 0x10000) {
            c -= 0x10000;
            fprintf(out, "\\u%04x\\u%04x", 0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF));
        } else {
            fprintf(out, "\\u%04x", c);
        }
    }
    fputc('"', out);
}

void atf_xml_fputs(const char *s, FILE *out)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        uint32_t c = next_cp_n(&p, end);
        switch (c) {
        case '&': fputs("&amp;", out); continue;
        case '<': fputs("&lt;", out); continue;
        case '>': fputs("&gt;", out); continue;
        case '"': fputs("&quot;", out); continue;
        case '\'': fputs("&apos;", out); continue;
        default: break;
        }
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF)
            c = 0xFFFD;
        if (c < 0x80)
            fputc((int)c, out);
        else
            fprintf(out, "&#x%X;", c);
    }
}
