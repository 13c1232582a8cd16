/* What the WTF tests share (formats/wtf/tests, and the validator's WTF fast
 * path test): argument values, a temporary file, a file read back.
 * Header-only (static inline); include after cmocka.h. */
#ifndef ATF_WTF_TEST_UTIL_H
#define ATF_WTF_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/wtf.h>

/* A string argument (ascii, utf8 or any); NULL: the null string. */
static inline atf_wtf_value wtu_str(atf_wtf_type type, const char *s)
{
    return (atf_wtf_value){ .type = type, .s = s, .s_len = s ? (uint32_t)strlen(s) : 0u, .is_null = s == NULL };
}

static inline atf_wtf_value wtu_u32(uint32_t x)
{
    return (atf_wtf_value){ .type = ATF_WTF_UINT32, .u = x };
}

/* A new empty file named from @tmpl ("/tmp/name-XXXXXX", rewritten). */
static inline void wtu_temp_file(char *tmpl)
{
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    close(fd);
}

/* The whole file (caller frees). */
static inline uint8_t *wtu_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    uint8_t *buf = malloc((size_t)n);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

#endif /* ATF_WTF_TEST_UTIL_H */
