/* Is manifest.json a crash-cut prefix of a JSON object: see manifest_prefix.h. */
#include <stdint.h>
#include <stdlib.h>

#include "bytes.h"
#include "manifest_prefix.h"

enum {
    S_TOP,        /* before the top-level value: whitespace, then '{' */
    S_VALUE,      /* a value is required (after ':' or an array's ',') */
    S_ARR_FIRST,  /* after '[': a value or ']' */
    S_OBJ_FIRST,  /* after '{': a key or '}' */
    S_KEY,        /* after an object's ',': a key */
    S_COLON,      /* after a key: ':' */
    S_AFTER,      /* after a value inside a container: ',' or the closing bracket */
    S_DONE,       /* after the top-level value: whitespace only */
    S_STRING,     /* inside a string (key or value) */
    S_ESC,        /* after a backslash */
    S_UHEX,       /* inside \uXXXX */
    S_LOW_BS,     /* after a high surrogate escape: '\' of the low one */
    S_LOW_U,      /* after that '\': 'u' */
    S_UTF8,       /* inside a multi-byte UTF-8 sequence in a string */
    S_LITERAL,    /* inside true / false / null */
    S_NUMBER      /* inside a number (sub-state in num) */
};

enum { N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

static int is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

atf_json_cut atf_manifest_json_cut(const char *data, size_t size, size_t *text_len, size_t *error_at)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t n = size;
    while (n > 0 && p[n - 1] == 0)
        n--;
    if (text_len)
        *text_len = n;
    if (error_at)
        *error_at = size;
    /* One bit a nesting level (1: object); a level takes at least one byte. */
    unsigned char *stack = calloc(n / 8 + 1, 1);
    if (!stack)
        return ATF_JCUT_NOMEM;
    size_t depth = 0;
    int st = S_TOP, key = 0, num = N_MINUS, need_low = 0;
    unsigned cp = 0, hexleft = 0, u8left = 0;
    unsigned char u8lo = 0x80, u8hi = 0xBF;   /* range of the next continuation byte */
    const char *lit = NULL;
    size_t i = 0;
    int bad = 0;
#define TOP_IS_OBJ() ((stack[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1)
    while (i < n && !bad) {
        unsigned char c = p[i];
        switch (st) {
        case S_TOP:
            if (is_ws(c))
                break;
            if (c != '{') {
                bad = 1;
                continue;
            }
            stack[0] |= 1;
            depth = 1;
            st = S_OBJ_FIRST;
            break;
        case S_VALUE:
        case S_ARR_FIRST:
            if (is_ws(c))
                break;
            if (c == ']' && st == S_ARR_FIRST) {
                depth--;
                st = depth ? S_AFTER : S_DONE;
                break;
            }
            if (c == '{' || c == '[') {
                if (c == '{')
                    stack[depth / 8] |= (unsigned char)(1u << (depth % 8));
                else
                    stack[depth / 8] &= (unsigned char)~(1u << (depth % 8));
                depth++;
                st = c == '{' ? S_OBJ_FIRST : S_ARR_FIRST;
            } else if (c == '"') {
                st = S_STRING;
                key = 0;
            } else if (c == 't' || c == 'f' || c == 'n') {
                lit = c == 't' ? "rue" : c == 'f' ? "alse" : "ull";
                st = S_LITERAL;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                num = c == '-' ? N_MINUS : c == '0' ? N_ZERO : N_INT;
                st = S_NUMBER;
            } else {
                bad = 1;
                continue;
            }
            break;
        case S_OBJ_FIRST:
        case S_KEY:
            if (is_ws(c))
                break;
            if (c == '}' && st == S_OBJ_FIRST) {
                depth--;
                st = depth ? S_AFTER : S_DONE;
            } else if (c == '"') {
                st = S_STRING;
                key = 1;
            } else {
                bad = 1;
                continue;
            }
            break;
        case S_COLON:
            if (is_ws(c))
                break;
            if (c != ':') {
                bad = 1;
                continue;
            }
            st = S_VALUE;
            break;
        case S_AFTER:
            if (is_ws(c))
                break;
            if (c == ',') {
                st = TOP_IS_OBJ() ? S_KEY : S_VALUE;
            } else if (c == (TOP_IS_OBJ() ? '}' : ']')) {
                depth--;
                st = depth ? S_AFTER : S_DONE;
            } else {
                bad = 1;
                continue;
            }
            break;
        case S_DONE:
            if (!is_ws(c)) {
                bad = 1;
                continue;
            }
            break;
        case S_STRING:
            if (c == '"') {
                st = key ? S_COLON : S_AFTER;
            } else if (c == '\\') {
                st = S_ESC;
            } else if (c < 0x20) {
                bad = 1;
                continue;
            } else if (c >= 0x80) {
                /* RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF. */
                u8lo = 0x80;
                u8hi = 0xBF;
                if (c >= 0xC2 && c <= 0xDF) {
                    u8left = 1;
                } else if (c >= 0xE0 && c <= 0xEF) {
                    u8left = 2;
                    if (c == 0xE0)
                        u8lo = 0xA0;
                    else if (c == 0xED)
                        u8hi = 0x9F;
                } else if (c >= 0xF0 && c <= 0xF4) {
                    u8left = 3;
                    if (c == 0xF0)
                        u8lo = 0x90;
                    else if (c == 0xF4)
                        u8hi = 0x8F;
                } else {
                    bad = 1;
                    continue;
                }
                st = S_UTF8;
            }
            break;
        case S_UTF8:
            if (c < u8lo || c > u8hi) {
                bad = 1;
                continue;
            }
            u8lo = 0x80;
            u8hi = 0xBF;
            if (--u8left == 0)
                st = S_STRING;
            break;
        case S_ESC:
            if (c == 'u') {
                st = S_UHEX;
                hexleft = 4;
                cp = 0;
            } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
                       c == 't') {
                if (need_low) {
                    bad = 1;
                    continue;
                }
                st = S_STRING;
            } else {
                bad = 1;
                continue;
            }
            break;
        case S_UHEX: {
            int h = atf_hex_digit(c);
            if (h < 0) {
                bad = 1;
                continue;
            }
            cp = cp << 4 | (unsigned)h;
            if (--hexleft)
                break;
            if (need_low) {
                /* The escape after a high surrogate must be a low one. */
                if (cp < 0xDC00 || cp > 0xDFFF) {
                    bad = 1;
                    i -= 5;   /* reported at the second escape's backslash */
                    continue;
                }
                need_low = 0;
                st = S_STRING;
            } else if (cp >= 0xD800 && cp <= 0xDBFF) {
                need_low = 1;
                st = S_LOW_BS;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                bad = 1;
                i -= 5;
                continue;
            } else {
                st = S_STRING;
            }
            break;
        }
        case S_LOW_BS:
            if (c != '\\') {
                bad = 1;
                continue;
            }
            st = S_LOW_U;
            break;
        case S_LOW_U:
            if (c != 'u') {
                bad = 1;
                continue;
            }
            st = S_UHEX;
            hexleft = 4;
            cp = 0;
            break;
        case S_LITERAL:
            if (c != (unsigned char)*lit) {
                bad = 1;
                continue;
            }
            if (!*++lit)
                st = S_AFTER;
            break;
        case S_NUMBER: {
            int digit = c >= '0' && c <= '9';
            switch (num) {
            case N_MINUS:
                if (!digit) {
                    bad = 1;
                    continue;
                }
                num = c == '0' ? N_ZERO : N_INT;
                break;
            case N_ZERO:
            case N_INT:
            case N_FRAC:
                if (digit && num != N_ZERO) {
                    break;
                } else if (c == '.' && num != N_FRAC) {
                    num = N_DOT;
                } else if (c == 'e' || c == 'E') {
                    num = N_E;
                } else if (digit) {   /* a digit after a leading 0 */
                    bad = 1;
                    continue;
                } else {
                    st = S_AFTER;     /* the number ends here: the byte is read again */
                    continue;
                }
                break;
            case N_DOT:
                if (!digit) {
                    bad = 1;
                    continue;
                }
                num = N_FRAC;
                break;
            case N_E:
                if (c == '+' || c == '-') {
                    num = N_ESIGN;
                    break;
                }
                /* fall through */
            case N_ESIGN:
                if (!digit) {
                    bad = 1;
                    continue;
                }
                num = N_EXP;
                break;
            default: /* N_EXP */
                if (!digit) {
                    st = S_AFTER;
                    continue;
                }
                break;
            }
            break;
        }
        default:
            bad = 1;
            continue;
        }
        i++;
    }
#undef TOP_IS_OBJ
    free(stack);
    if (bad) {
        if (error_at)
            *error_at = i;
        return ATF_JCUT_NO;
    }
    /* Ran out of input: a cut inside the top-level value, or before any
     * byte of text (all NUL); not a complete value, nor whitespace alone
     * (no writer writes whitespace before the value: no trace of a cut). */
    if (st == S_TOP && n > 0) {
        if (error_at)
            *error_at = n;
        return ATF_JCUT_NO;
    }
    return st == S_DONE ? ATF_JCUT_NO : ATF_JCUT_YES;
}
