/* What the WTF tests share (formats/wtf/tests, and the validator's WTF fast
 * path and parts tests): argument values, summaries compared, a temporary
 * file, a file read back.
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

/* 1 when two readers' summaries say the same (every count, the state and
 * where the first damage is). */
static inline int wtu_same_summary(const atf_wtf_summary *a, const atf_wtf_summary *b)
{
    return a->state == b->state && a->file_size == b->file_size && a->chunks == b->chunks &&
           a->event_chunks == b->event_chunks && a->events == b->events &&
           a->events_in_cut_chunk == b->events_in_cut_chunk && a->bytes_unread == b->bytes_unread &&
           a->chunks_skipped == b->chunks_skipped && a->parts_not_read == b->parts_not_read &&
           a->first_damage.code == b->first_damage.code && a->first_damage.offset == b->first_damage.offset;
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
