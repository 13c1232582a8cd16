/* Small helpers of the kits: escaping for JSON/XML/HTML, paths, directories. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>

#include <atf/reader.h>

#include "kit_internal.h"

FILE *kit_fopen_regular(const char *path, char *why, size_t why_cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        snprintf(why, why_cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_cap, "%s, not a regular file", atf_file_type_name((unsigned)st.st_mode));
        close(fd);
        return NULL;
    }
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(why, why_cap, "cannot open: %s", strerror(errno));
        close(fd);
    }
    return f;
}

double kit_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *kit_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *kit_sprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = malloc((size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

uint64_t kit_free_bytes(const char *dir)
{
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0)
        return UINT64_MAX;
    return (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
}

void kit_scrub_paths(char *msg, size_t cap, const char *const *paths, const char *const *names, size_t n)
{
    if (!msg || !cap)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *p = paths[i];
        size_t plen = p ? strlen(p) : 0;
        if (!plen || !strstr(msg, p))
            continue;
        char *buf = malloc(cap);
        if (!buf)
            return;
        size_t o = 0;
        for (const char *s = msg; *s && o + 1 < cap;) {
            if (!strncmp(s, p, plen)) {
                for (const char *q = names[i]; *q && o + 1 < cap; q++)
                    buf[o++] = *q;
                s += plen;
            } else {
                buf[o++] = *s++;
            }
        }
        buf[o] = '\0';
        memcpy(msg, buf, o + 1);
        free(buf);
    }
}

void kit_error_report(FILE *out, atf_conform_format format, const char *schema, const char *suite,
                      const atf_error *err)
{
    char line[1024] = "";
    if (err)
        atf_error_format(line, sizeof line, err);
    if (!line[0])
        snprintf(line, sizeof line, "%s", err ? atf_strerror(err->code) : "error");
    if (format == ATF_CONFORM_JSON) {
        fprintf(out, "{\"schema\":\"%s\",\"verdict\":\"error\",\"error\":", schema);
        kit_json_string(out, line);
        fputs("}\n", out);
    } else if (format == ATF_CONFORM_JUNIT) {
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"%s\" tests=\"1\" failures=\"0\" "
                     "errors=\"1\">\n  <testsuite name=\"%s\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
                     "    <testcase classname=\"atf.conform\" name=\"run\"><error message=\"", suite, suite);
        kit_xml(out, line);
        fputs("\"/></testcase>\n  </testsuite>\n</testsuites>\n", out);
    }
    fflush(out);
}

void kit_text_n(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n' || c == '\r' || c == '\t')
            fprintf(out, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
}
