/* Status strings and error formatting. */
#include <stdio.h>
#include <string.h>

#include <atf/error.h>
#include <atf/version.h>

#include "common.h"

const char *atf_strerror(atf_status status)
{
    switch (status) {
#define ATF_X_TEXT_(name, value, text) case name: return text;
        ATF_STATUS_LIST(ATF_X_TEXT_)
#undef ATF_X_TEXT_
    default:
        return "unknown status";
    }
}

const char *atf_status_name(atf_status status)
{
    switch (status) {
#define ATF_X_NAME_(name, value, text) case name: return #name;
        ATF_STATUS_LIST(ATF_X_NAME_)
#undef ATF_X_NAME_
    default:
        return "ATF_E_?";
    }
}

/* The escape of c (\n, \r, \t, \xHH for other control characters) or c
 * itself, NUL-terminated in e (8 bytes). @return its length. */
static size_t escape_char(unsigned char c, char e[8])
{
    if (c == '\n' || c == '\r' || c == '\t')
        return (size_t)snprintf(e, 8, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(e, 8, "\\x%02x", c);
    e[0] = (char)c, e[1] = '\0';
    return 1;
}

/* Appends @s to dst[n..] (dst_cap bytes, NUL-terminated), control
 * characters written as escapes (\n, \r, \t, \xHH), so that a path holding
 * a newline or a terminal escape sequence prints as one inert line. An
 * escape is never cut in half. @return the new length. */
static size_t append_escaped(char *dst, size_t dst_cap, size_t n, const char *s)
{
    for (; s && *s; s++) {
        char e[8];
        size_t len = escape_char((unsigned char)*s, e);
        if (n + len >= dst_cap)
            break;
        memcpy(dst + n, e, len + 1);
        n += len;
    }
    return n;
}

int atf_fputs_escaped(const char *s, FILE *f)
{
    for (; s && *s; s++) {
        char e[8];
        size_t len = escape_char((unsigned char)*s, e);
        if (fwrite(e, 1, len, f) != len)
            return EOF;
    }
    return 0;
}

size_t atf_error_format(char *dst, size_t dst_cap, const atf_error *err)
{
    if (!dst || dst_cap == 0)
        return 0;
    dst[0] = '\0';
    if (!err)
        return 0;
    char off[40] = "";
    if (err->offset != ATF_NO_OFFSET)
        snprintf(off, sizeof off, "offset %llu: ", (unsigned long long)err->offset);
    size_t n = append_escaped(dst, dst_cap, 0, err->file);
    n = append_escaped(dst, dst_cap, n, err->file[0] ? ": " : "");
    n = append_escaped(dst, dst_cap, n, off);
    if (err->field) {
        n = append_escaped(dst, dst_cap, n, "field ");
        n = append_escaped(dst, dst_cap, n, err->field);
        n = append_escaped(dst, dst_cap, n, ": ");
    }
    return append_escaped(dst, dst_cap, n, err->message[0] ? err->message : atf_strerror(err->code));
}

atf_status atf_failv(atf_error *err, atf_status code, uint64_t offset, const char *field, const char *fmt,
                     va_list ap)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        err->field = field;
        if (fmt) {
            char raw[sizeof err->message];
            vsnprintf(raw, sizeof raw, fmt, ap);
            /* Messages may quote input (jansson's error text does, and
             * paths): keep them one line, control characters escaped. */
            err->message[0] = '\0';
            append_escaped(err->message, sizeof err->message, 0, raw);
        } else {
            snprintf(err->message, sizeof err->message, "%s", atf_strerror(code));
        }
    }
    return code;
}

atf_status atf_fail(atf_error *err, atf_status code, uint64_t offset, const char *field,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    atf_status st = atf_failv(err, code, offset, field, fmt, ap);
    va_end(ap);
    return st;
}

atf_status atf_fail_file(atf_error *err, atf_status code, const char *file, const char *fmt, ...)
{
    atf_error_clear(err);
    atf_error_set_file(err, file);
    va_list ap;
    va_start(ap, fmt);
    atf_status st = atf_failv(err, code, ATF_NO_OFFSET, NULL, fmt, ap);
    va_end(ap);
    return st;
}

void atf_error_set_file(atf_error *err, const char *file)
{
    if (err && file)
        snprintf(err->file, sizeof err->file, "%s", file);
}

void atf_error_clear(atf_error *err)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->offset = ATF_NO_OFFSET;
    }
}

unsigned atf_version_number(void) { return ATF_VERSION_NUMBER; }
const char *atf_version_string(void) { return ATF_VERSION_STRING; }

void atf_error_detach_field(atf_error *err)
{
    static _Thread_local char keep[8][64];
    static _Thread_local unsigned next;
    if (!err || !err->field)
        return;
    char *slot = keep[next++ % 8];
    snprintf(slot, sizeof keep[0], "%s", err->field);
    err->field = slot;
}
