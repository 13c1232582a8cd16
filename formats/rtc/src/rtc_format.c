/* RTC values (conformance/SPEC-RTC.md 6): every default format decoded, and
 * written as docs/rtc-dump-format.md says. */
#include <string.h>

#include <jansson.h>

#include "bytes.h"
#include "common.h"   /* atf_utf8_valid */
#include "rtc_internal.h"

static const char *const clause_ids[] = {
#define X(e, group, num, sev, rec, rule, hint) group "-" num,
    RTC_CLAUSE_TABLE(X, )
#undef X
};
#define RTC_SEV_E 1
#define RTC_SEV_W 0
static const unsigned char clause_err[] = {
#define X(e, group, num, sev, rec, rule, hint) RTC_SEV_##sev,
    RTC_CLAUSE_TABLE(X, )
#undef X
};

const char *rtc_clause_id(int c)
{
    return c >= 0 && c < RC_COUNT_ ? clause_ids[c] : NULL;
}

int rtc_clause_is_error(int c)
{
    return c >= 0 && c < RC_COUNT_ && clause_err[c];
}

static uint64_t load_be(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

/* "(u)int8|16|32|64" + "" | "le" | "be": bytes, signed, order (0 native, 1 le, 2 be). */
static int int_format(const char *f, size_t *bytes, int *sign, int *order)
{
    *sign = 1;
    if (*f == 'u') {
        *sign = 0;
        f++;
    }
    if (strncmp(f, "int", 3))
        return 0;
    f += 3;
    if (!strncmp(f, "8", 1) && (f[1] == 0 || f[1] == 'l' || f[1] == 'b'))
        *bytes = 1, f += 1;
    else if (!strncmp(f, "16", 2))
        *bytes = 2, f += 2;
    else if (!strncmp(f, "32", 2))
        *bytes = 4, f += 2;
    else if (!strncmp(f, "64", 2))
        *bytes = 8, f += 2;
    else
        return 0;
    *order = !*f ? 0 : !strcmp(f, "le") ? 1 : !strcmp(f, "be") ? 2 : -1;
    return *order >= 0;
}

static int float_format(const char *f, size_t *bytes, int *order)
{
    if (strncmp(f, "float", 5))
        return 0;
    f += 5;
    if (!strncmp(f, "32", 2))
        *bytes = 4;
    else if (!strncmp(f, "64", 2))
        *bytes = 8;
    else
        return 0;
    f += 2;
    *order = !*f ? 0 : !strcmp(f, "le") ? 1 : !strcmp(f, "be") ? 2 : -1;
    return *order >= 0;
}

int rtc_format_is_clock(const char *f)
{
    size_t b;
    int s, o;
    return int_format(f, &b, &s, &o) || float_format(f, &b, &o) || !strcmp(f, "uleb128") ||
           !strcmp(f, "leb128") || !strcmp(f, "timespec");
}

static json_t *load_json(const uint8_t *p, size_t n)
{
    return json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, NULL);
}

static void timespec_of(const uint8_t *p, int big, uint64_t *sec, uint32_t *nsec)
{
    *sec = big ? load_be(p, 8) : load_le(p, 8);
    *nsec = (uint32_t)(big ? load_be(p + 8, 4) : load_le(p + 8, 4));
}

void rtc_value_parse(const char *fmt, const uint8_t *p, size_t n, int big, rtc_val *v)
{
    memset(v, 0, sizeof *v);
    v->kind = RV_HEX;
    v->bad = RC_NONE_;
    v->inner_bad = RC_NONE_;
    if (fmt[0] == 'r' && !strcmp(fmt, "raw"))
        return;   /* the default format, the most common: no format below is "raw" */
    size_t bytes;
    int sign, order;
    if (int_format(fmt, &bytes, &sign, &order)) {
        if (n != bytes) {
            v->bad = RC_FMT_001;
            return;
        }
        int be = order == 2 || (order == 0 && big);
        uint64_t u = be ? load_be(p, n) : load_le(p, n);
        if (sign) {
            if (bytes < 8 && (u >> (8 * bytes - 1)) & 1)
                u |= ~(uint64_t)0 << (8 * bytes);
            memcpy(&v->i, &u, sizeof u);
            v->kind = RV_INT;
        } else {
            v->u = u;
            v->kind = RV_UINT;
        }
        return;
    }
    if (float_format(fmt, &bytes, &order)) {
        if (n != bytes) {
            v->bad = RC_FMT_001;
            return;
        }
        int be = order == 2 || (order == 0 && big);
        uint64_t u = be ? load_be(p, n) : load_le(p, n);
        if (bytes == 4) {
            uint32_t w = (uint32_t)u;
            float f;
            memcpy(&f, &w, 4);
            v->f = f;
        } else {
            memcpy(&v->f, &u, 8);
        }
        v->kind = RV_FLOAT;
        return;
    }
    if (!strcmp(fmt, "uleb128") || !strcmp(fmt, "leb128")) {
        size_t used = 0;
        atf_status st;
        if (fmt[0] == 'u') {
            st = atf_rtc_uleb_decode(p, n, &v->u, &used, NULL);
            v->kind = RV_UINT;
        } else {
            st = atf_rtc_sleb_decode(p, n, &v->i, &used);
            v->kind = RV_INT;
        }
        if (st != ATF_OK || used != n) {
            v->kind = RV_HEX;
            v->bad = RC_FMT_003;
        }
        return;
    }
    if (!strcmp(fmt, "timespec")) {
        if (n != 12) {
            v->bad = RC_FMT_001;
            return;
        }
        timespec_of(p, big, &v->sec, &v->nsec);
        v->kind = RV_TIMESPEC;
        return;
    }
    if (!strcmp(fmt, "utf-8")) {
        v->kind = RV_UTF8;
        if (!atf_utf8_valid(p, n))
            v->bad = RC_FMT_004;
        return;
    }
    if (!strcmp(fmt, "json")) {
        json_t *j = load_json(p, n);
        if (j) {
            v->kind = RV_JSON;
            json_decref(j);
        } else {
            v->kind = RV_UTF8;   /* the text as a string */
            v->bad = RC_FMT_002;
        }
        return;
    }
    if (!strcmp(fmt, "platform")) {
        if (n != 4) {
            v->bad = RC_FMT_001;
            return;
        }
        v->kind = RV_PLATFORM;
        static const uint8_t le[4] = { 4, 3, 2, 1 }, be[4] = { 1, 2, 3, 4 };
        v->platform = !memcmp(p, le, 4) ? "little" : !memcmp(p, be, 4) ? "big" : NULL;
        return;
    }
    if (!strncmp(fmt, "annotate/", 9)) {
        if (n < 12) {
            v->bad = RC_FMT_001;
            return;
        }
        timespec_of(p, big, &v->sec, &v->nsec);
        rtc_val in;
        rtc_value_parse(fmt + 9, p + 12, n - 12, big, &in);
        v->inner_bad = in.bad;
        v->kind = RV_ANNOTATE;
        return;
    }
}

int rtc_value_number(const rtc_val *v, const atf_rtc_record *r, double *out)
{
    double x;
    switch (v->kind) {
    case RV_INT: x = (double)v->i; break;
    case RV_UINT: x = (double)v->u; break;
    case RV_FLOAT: x = v->f; break;
    case RV_TIMESPEC: *out = (double)v->sec + (double)v->nsec / 1e9; return 1;
    default: return 0;
    }
    if (r && r->has_gain)
        x = x * r->gain;
    if (r && r->has_offset)
        x = x + r->value_offset;
    *out = x;
    return 1;
}

/* ---- JSON ------------------------------------------------------------------- */

int rtc_json_render(obuf *o, const uint8_t *p, size_t n)
{
    json_t *j = load_json(p, n);
    if (!j)
        return 0;
    ob_json_value(o, j);
    json_decref(j);
    return 1;
}

/* ---- The dump's value ---------------------------------------------------------- */

static void put_hex(obuf *o, const uint8_t *p, size_t n)
{
    ob_char(o, '"');
    ob_hex(o, p, n);
    ob_char(o, '"');
}

static void put_timespec(obuf *o, uint64_t sec, uint32_t nsec)
{
    ob_lit(o, "{\"sec\":");
    ob_u64(o, sec);
    ob_lit(o, ",\"nsec\":");
    ob_u64(o, nsec);
    ob_char(o, '}');
}

static void render(obuf *o, const char *fmt, const uint8_t *p, size_t n, int big, const atf_rtc_record *r)
{
    rtc_val v;
    rtc_value_parse(fmt, p, n, big, &v);
    double x;
    int scaled = r && (r->has_gain || r->has_offset);
    switch (v.kind) {
    case RV_INT:
    case RV_UINT:
    case RV_FLOAT:
        if (scaled || v.kind == RV_FLOAT) {
            rtc_value_number(&v, r, &x);
            ob_number(o, x);
        } else if (v.kind == RV_INT) {
            ob_i64(o, v.i);
        } else {
            ob_u64(o, v.u);
        }
        return;
    case RV_TIMESPEC: put_timespec(o, v.sec, v.nsec); return;
    case RV_UTF8: ob_json_string_utf8(o, (const char *)p, n); return;
    case RV_JSON: rtc_json_render(o, p, n); return;
    case RV_PLATFORM:
        if (v.platform) {
            ob_char(o, '"');
            ob_put(o, v.platform, strlen(v.platform));
            ob_char(o, '"');
        } else {
            put_hex(o, p, n);
        }
        return;
    case RV_ANNOTATE:
        ob_lit(o, "{\"at\":");
        put_timespec(o, v.sec, v.nsec);
        ob_lit(o, ",\"value\":");
        render(o, fmt + 9, p + 12, n - 12, big, NULL);
        ob_char(o, '}');
        return;
    default: put_hex(o, p, n); return;
    }
}

void rtc_value_render(obuf *o, const atf_rtc_record *r)
{
    render(o, r->format, r->payload, r->size, r->big_endian, r);
}
