/* Numbers in manifest.json of any size: see manifest_numbers.h. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bytes.h"
#include "manifest_numbers.h"

/* A marker is the string "\u0000" TAG TOKEN: U+0000, a tag of 16 hex digits
 * drawn once per process, then the token as written. A string of the
 * document cannot be taken for one unless it guesses the tag. */
#define TAG_LEN 16
static char tag[TAG_LEN + 1];
static pthread_once_t tag_once = PTHREAD_ONCE_INIT;

static void tag_init(void)
{
    uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&tag;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        uint64_t r;
        if (fread(&r, sizeof r, 1, f) == 1)
            x ^= r;
        fclose(f);
    }
    /* splitmix64 finalizer, so that the weak fallback still spreads. */
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    x ^= x >> 31;
    snprintf(tag, sizeof tag, "%016" PRIx64, x);
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the JSON number at p (end: one past the text), 0 if none;
 * *integer: no fraction, no exponent. */
static size_t number_len(const char *p, const char *end, int *integer)
{
    const char *s = p;
    if (s < end && *s == '-')
        s++;
    if (s >= end || !is_digit(*s))
        return 0;
    if (*s == '0')
        s++;
    else
        while (s < end && is_digit(*s))
            s++;
    *integer = 1;
    if (s < end && *s == '.') {
        if (s + 1 >= end || !is_digit(s[1]))
            return 0;
        s++;
        while (s < end && is_digit(*s))
            s++;
        *integer = 0;
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        const char *e = s + 1;
        if (e < end && (*e == '+' || *e == '-'))
            e++;
        if (e >= end || !is_digit(*e))
            return 0;
        while (e < end && is_digit(*e))
            e++;
        s = e;
        *integer = 0;
    }
    return (size_t)(s - p);
}

/* 1 if the integer token p (n bytes) lies in int64's range. */
static int fits_int64(const char *p, size_t n)
{
    int neg = *p == '-';
    const char *d = p + neg;
    size_t nd = n - (size_t)neg;
    const char *lim = neg ? "9223372036854775808" : "9223372036854775807";
    if (nd != 19)
        return nd < 19;
    return memcmp(d, lim, 19) <= 0;
}

typedef struct shift {
    size_t at;     /* offset in the rewritten text where a marker starts */
    size_t added;  /* bytes the marker added */
    int line;      /* 1-based line of the token */
} shift;

/* The rewritten text, or NULL when nothing needs rewriting (*out_n and
 * shifts untouched) or memory ran out (*oom set). */
static char *rewrite(const char *text, size_t size, size_t *out_n, shift **shifts, size_t *nshift, int *oom)
{
    const char *p = text, *end = text + size;
    char *out = NULL;
    size_t n = 0, cap = 0, ns = 0, scap = 0;
    const char *copied = text;
    int line = 1;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++) {
                if (*p == '\\' && p + 1 < end)
                    p++;
                else if (*p == '\n')
                    line++;
            }
            p += p < end;
            continue;
        }
        if (c == '\n')
            line++;
        int integer = 0;
        size_t len = (c == '-' || is_digit(c)) ? number_len(p, end, &integer) : 0;
        if (!len) {
            p++;
            continue;
        }
        if (integer && fits_int64(p, len)) {
            p += len;
            continue;
        }
        size_t add = 2 + 6 + TAG_LEN;
        size_t need = n + (size_t)(p - copied) + len + add + 1;
        if (need > cap) {
            size_t nc = cap ? cap : size + 64;
            while (nc < need)
                nc *= 2;
            char *t = realloc(out, nc);
            if (!t)
                goto nomem;
            out = t;
            cap = nc;
        }
        if (ns == scap) {
            size_t nc = scap ? scap * 2 : 16;
            shift *t = realloc(*shifts, nc * sizeof *t);
            if (!t)
                goto nomem;
            *shifts = t;
            scap = nc;
        }
        memcpy(out + n, copied, (size_t)(p - copied));
        n += (size_t)(p - copied);
        (*shifts)[ns++] = (shift){n, add, line};
        n += (size_t)sprintf(out + n, "\"\\u0000%s", tag);
        memcpy(out + n, p, len);
        n += len;
        out[n++] = '"';
        p += len;
        copied = p;
    }
    if (!out)
        return NULL;
    if (n + (size_t)(end - copied) > cap) {
        char *t = realloc(out, n + (size_t)(end - copied) + 1);
        if (!t)
            goto nomem;
        out = t;
    }
    memcpy(out + n, copied, (size_t)(end - copied));
    n += (size_t)(end - copied);
    *out_n = n;
    *nshift = ns;
    return out;
nomem:
    free(out);
    *oom = 1;
    return NULL;
}

json_t *atf_manifest_json_load(const char *text, size_t size, size_t flags, json_error_t *jerr)
{
    pthread_once(&tag_once, tag_init);
    shift *shifts = NULL;
    size_t ns = 0, n = 0;
    int oom = 0;
    char *copy = rewrite(text, size, &n, &shifts, &ns, &oom);
    if (oom) {
        free(shifts);
        /* An empty error text: what jansson leaves when memory runs out. */
        if (jerr) {
            memset(jerr, 0, sizeof *jerr);
            jerr->line = jerr->column = jerr->position = -1;
        }
        return NULL;
    }
    json_t *root = json_loadb(copy ? copy : text, copy ? n : size, flags | JSON_ALLOW_NUL, jerr);
    if (!root && copy && jerr && jerr->position >= 0) {
        /* Positions back in the original text: subtract what the markers
         * before the error added (those on its line from the column too). */
        size_t pos = (size_t)jerr->position, back = 0, back_line = 0;
        for (size_t i = 0; i < ns && shifts[i].at < pos; i++) {
            size_t a = pos - shifts[i].at < shifts[i].added ? pos - shifts[i].at : shifts[i].added;
            back += a;
            if (shifts[i].line == jerr->line)
                back_line += a;
        }
        jerr->position = (int)(pos - back);
        if (jerr->column > 0 && (size_t)jerr->column > back_line)
            jerr->column -= (int)back_line;
    }
    free(copy);
    free(shifts);
    return root;
}

/* The token of a marker string, or NULL if v is not one. */
static const char *marker(const json_t *v)
{
    if (!json_is_string(v))
        return NULL;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    pthread_once(&tag_once, tag_init);
    if (n <= 1 + TAG_LEN || s[0] != '\0' || memcmp(s + 1, tag, TAG_LEN) != 0)
        return NULL;
    return s + 1 + TAG_LEN;
}

int atf_manifest_json_is_marker(const json_t *v)
{
    return marker(v) != NULL;
}

/* Copies s into text, cut with "..." past text_cap. */
static void as_written(char *text, size_t cap, const char *s, size_t n)
{
    if (!cap)
        return;
    if (n < cap) {
        memcpy(text, s, n);
        text[n] = '\0';
    } else if (cap > 4) {
        memcpy(text, s, cap - 4);
        memcpy(text + cap - 4, "...", 4);
    } else {
        text[0] = '\0';
    }
}

/* Digits (decimal, or hex after 0x) into a u64; 0 on overflow. */
static int digits_u64(const char *s, size_t n, int base, uint64_t *out)
{
    uint64_t val = 0;
    for (size_t i = 0; i < n; i++) {
        int v = atf_hex_digit((unsigned char)s[i]);
        if (v < 0 || v >= base)
            return -1;
        unsigned d = (unsigned)v;
        if (val > (UINT64_MAX - d) / (unsigned)base)
            return 0;
        val = val * (unsigned)base + d;
    }
    *out = val;
    return 1;
}

/* The token of a marker (text: as written; *integer: no fraction or
 * exponent), or NULL with text "" when v is not a marker. */
static const char *marker_number(const json_t *v, char *text, size_t text_cap, int *integer)
{
    const char *mk = marker(v);
    size_t n = mk ? strlen(mk) : 0;
    as_written(text, text_cap, mk ? mk : "", n);
    *integer = 0;
    if (mk)
        number_len(mk, mk + n, integer);
    return mk;
}

atf_json_num atf_manifest_json_u64(const json_t *v, uint64_t *out, char *text, size_t text_cap)
{
    int integer;
    const char *mk = marker_number(v, text, text_cap, &integer);
    if (mk) {
        if (!integer)
            return ATF_JNUM_NOT_INTEGER;
        if (mk[0] == '-')
            return ATF_JNUM_OUT_OF_RANGE;
        return digits_u64(mk, strlen(mk), 10, out) == 1 ? ATF_JNUM_OK : ATF_JNUM_OUT_OF_RANGE;
    }
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (text_cap)
            snprintf(text, text_cap, "%" JSON_INTEGER_FORMAT, i);
        if (i < 0)
            return ATF_JNUM_OUT_OF_RANGE;
        *out = (uint64_t)i;
        return ATF_JNUM_OK;
    }
    if (!json_is_string(v))
        return ATF_JNUM_NOT_NUMBER;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    as_written(text, text_cap, s, strlen(s) < n ? strlen(s) : n);
    int hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (n == 0 || (n == 2 && hex))
        return ATF_JNUM_NOT_NUMBER;
    int r = hex ? digits_u64(s + 2, n - 2, 16, out) : digits_u64(s, n, 10, out);
    return r == 1 ? ATF_JNUM_OK : r == 0 ? ATF_JNUM_OUT_OF_RANGE : ATF_JNUM_NOT_NUMBER;
}

atf_json_num atf_manifest_json_int(const json_t *v, int64_t lo, int64_t hi, int64_t *out, char *text,
                                   size_t text_cap)
{
    int integer;
    if (marker_number(v, text, text_cap, &integer))
        return integer ? ATF_JNUM_OUT_OF_RANGE : ATF_JNUM_NOT_INTEGER;
    if (!json_is_integer(v))
        return ATF_JNUM_NOT_NUMBER;
    json_int_t i = json_integer_value(v);
    if (text_cap)
        snprintf(text, text_cap, "%" JSON_INTEGER_FORMAT, i);
    if (i < lo || i > hi)
        return ATF_JNUM_OUT_OF_RANGE;
    *out = (int64_t)i;
    return ATF_JNUM_OK;
}
