/* Status strings and error formatting. */
#include <stdio.h>
#include <string.h>

#include <atf/error.h>
#include <atf/version.h>

#include "internal.h"

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
    int k = snprintf(dst, dst_cap, "%s%s%s%s%s%s", err->file, err->file[0] ? ": " : "", off,
                     err->field ? "field " : "", err->field ? err->field : "", err->field ? ": " : "");
    size_t n = k < 0 ? 0 : (size_t)k < dst_cap ? (size_t)k : dst_cap - 1;
    k = snprintf(dst + n, dst_cap - n, "%s", err->message[0] ? err->message : atf_strerror(err->code));
    n += k < 0 ? 0 : (size_t)k < dst_cap - n ? (size_t)k : dst_cap - n - 1;
    return n;
}

atf_status atf_fail(atf_error *err, atf_status code, uint64_t offset, const char *field,
                    const char *fmt, ...)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        err->field = field;
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->message, sizeof err->message, fmt, ap);
            va_end(ap);
            /* Messages may quote input (jansson's error text does): keep
             * them one line of printable text. */
            for (char *c = err->message; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?';
        } else {
            snprintf(err->message, sizeof err->message, "%s", atf_strerror(code));
        }
    }
    return code;
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
