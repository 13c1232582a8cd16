/* What the RTC writer and reader tests share: a file written into memory
 * (NRECS records over three streams) and its check read back. Header-only. */
#ifndef ATF_RTC_TEST_UTIL_H
#define ATF_RTC_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <atf/rtc.h>


typedef struct mem {
    uint8_t *p;
    size_t n, cap;
} mem;

static inline int sink(void *user, const void *p, size_t n)
{
    mem *m = user;
    if (m->n + n > m->cap) {
        size_t nc = (m->n + n) * 2;
        uint8_t *np = realloc(m->p, nc);
        if (!np)
            return -1;
        m->p = np;
        m->cap = nc;
    }
    memcpy(m->p + m->n, p, n);
    m->n += n;
    return 0;
}

#define NRECS 400
#define CUTRECS 40

/* Writes a record with atf_rtc_writer_write, or (split) with
 * atf_rtc_writer_write2 in two parts cut at a place that depends on i. */
static inline atf_status write_rec(atf_rtc_writer *w, uint64_t id, const uint8_t *p, size_t n, int split, size_t i)
{
    if (!split)
        return atf_rtc_writer_write(w, id, p, n, NULL);
    size_t cut = (i * 131) % (n + 1);
    return atf_rtc_writer_write2(w, id, cut ? p : NULL, cut, n - cut ? p + cut : NULL, n - cut, NULL);
}

/* Writes NRECS records over three streams (text, a fixed u32, long blobs). */
static inline mem write_sample_as(uint64_t U, uint64_t u, int ref, int big, size_t *lens, size_t count, int split)
{
    mem m = { NULL, 0, 0 };
    atf_rtc_writer *w = NULL;
    atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
    o.unit_size = U;
    o.subunit_size = u;
    o.crc = ref ? ATF_RTC_CRC_REF : ATF_RTC_CRC_32;
    o.big_endian = big;
    assert_int_equal(atf_rtc_writer_create(&w, &o, sink, &m, NULL), ATF_OK);
    uint64_t log, num, blob;
    assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"log\",\"format\":\"utf-8\"}", &log, NULL), ATF_OK);
    assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"n\",\"format\":\"uint32\",\"length\":4}", &num, NULL),
                     ATF_OK);
    assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"blob\"}", &blob, NULL), ATF_OK);
    uint8_t buf[3000];
    for (size_t i = 0; i < count; i++) {
        if (i % 3 == 0) {
            int k = snprintf((char *)buf, sizeof buf, "message %zu", i);
            lens[i] = (size_t)k;
            assert_int_equal(write_rec(w, log, buf, (size_t)k, split, i), ATF_OK);
        } else if (i % 3 == 1) {
            memset(buf, (int)i, 4);
            lens[i] = 4;
            assert_int_equal(write_rec(w, num, buf, 4, split, i), ATF_OK);
        } else {
            size_t k = (i * 37) % 2900;
            for (size_t j = 0; j < k; j++)
                buf[j] = (uint8_t)(i + j);
            lens[i] = k;
            assert_int_equal(write_rec(w, blob, buf, k, split, i), ATF_OK);
        }
        if (i == 200) {   /* a stream created mid-file: a meta record */
            uint64_t late;
            assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"late\"}", &late, NULL), ATF_OK);
            assert_true(late == blob + 1);
        }
    }
    assert_int_equal(write_rec(w, num, buf, 3, split, 1), ATF_E_LENGTH);
    assert_int_equal(atf_rtc_writer_write2(w, num, NULL, 2, buf, 2, NULL), ATF_E_ARG);
    assert_int_equal(atf_rtc_writer_write2(w, num, buf, 2, NULL, 2, NULL), ATF_E_ARG);
    assert_int_equal(atf_rtc_writer_finish(w, NULL), ATF_OK);
    return m;
}

static inline mem write_sample(uint64_t U, uint64_t u, int ref, int big, size_t *lens, size_t count)
{
    return write_sample_as(U, u, ref, big, lens, count, 0);
}

static inline void check_whole(const mem *m, const size_t *lens)
{
    atf_rtc_reader *r = NULL;
    atf_rtc_summary s;
    assert_int_equal(atf_rtc_reader_open_memory(&r, m->p, m->n, NULL), ATF_OK);
    atf_rtc_reader_summary(r, &s);
    for (size_t i = 0; i < atf_rtc_reader_finding_count(r); i++) {
        atf_finding f;
        atf_rtc_reader_finding(r, i, &f);
        print_error("finding %s at %llu: %s\n", f.clause ? f.clause : "-", (unsigned long long)f.offset, f.message);
    }
    assert_int_equal(s.state, ATF_RTC_COMPLETE);
    assert_int_equal(atf_rtc_reader_finding_count(r), 0);
    assert_int_equal(s.records, NRECS);
    assert_int_equal(s.skipped_ranges, 0);
    atf_rtc_record rec;
    for (size_t i = 0; i < NRECS; i++) {
        assert_int_equal(atf_rtc_reader_next_record(r, &rec), ATF_OK);
        assert_int_equal(rec.size, lens[i]);
        if (i % 3 == 2)
            for (size_t j = 0; j < rec.size; j++)
                assert_int_equal(rec.payload[j], (uint8_t)(i + j));
    }
    assert_int_equal(atf_rtc_reader_next_record(r, &rec), ATF_E_NOT_FOUND);
    atf_rtc_reader_close(r);
}

#endif /* ATF_RTC_TEST_UTIL_H */
