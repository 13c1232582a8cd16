/* Tests of the RTC codec (formats/rtc): LEB128, both Crcs, the Marker scan,
 * the reader on files built here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <atf/rtc.h>

static void test_uleb(void **state)
{
    (void)state;
    uint8_t b[16];
    uint64_t v;
    size_t used;
    int shortest;
    static const uint64_t vals[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, UINT64_MAX };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        size_t n = atf_rtc_uleb_encode(b, vals[i]);
        assert_int_equal(atf_rtc_uleb_decode(b, n, &v, &used, &shortest), ATF_OK);
        assert_true(v == vals[i]);
        assert_int_equal(used, n);
        assert_true(shortest);
        if (n > 1)
            assert_int_equal(atf_rtc_uleb_decode(b, n - 1, &v, &used, NULL), ATF_E_TRUNCATED);
    }
    assert_int_equal(atf_rtc_uleb_encode(b, UINT64_MAX), 10);
    /* 2^64: the tenth byte carries more than bit 63 */
    memset(b, 0x80, 9);
    b[9] = 0x02;
    assert_int_equal(atf_rtc_uleb_decode(b, 10, &v, &used, NULL), ATF_E_LIMIT);
    /* eleven bytes */
    memset(b, 0x80, 10);
    b[10] = 0;
    assert_int_equal(atf_rtc_uleb_decode(b, 11, &v, &used, NULL), ATF_E_LIMIT);
    /* a longer form than needed: accepted, not shortest */
    b[0] = 0x81;
    b[1] = 0x00;
    assert_int_equal(atf_rtc_uleb_decode(b, 2, &v, &used, &shortest), ATF_OK);
    assert_true(v == 1 && used == 2 && !shortest);
}

static void test_sleb(void **state)
{
    (void)state;
    uint8_t b[16];
    int64_t v;
    size_t used;
    static const int64_t vals[] = { 0, 1, -1, 63, 64, -64, -65, 1000000, -1000000, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        size_t n = atf_rtc_sleb_encode(b, vals[i]);
        assert_int_equal(atf_rtc_sleb_decode(b, n, &v, &used), ATF_OK);
        assert_true(v == vals[i]);
        assert_int_equal(used, n);
    }
    b[0] = 0x7f;   /* -1 in one byte */
    assert_int_equal(atf_rtc_sleb_decode(b, 1, &v, &used), ATF_OK);
    assert_true(v == -1);
}

static void test_crc(void **state)
{
    (void)state;
    assert_true(atf_rtc_crc32(0, "123456789", 9) == 0xCBF43926u);
    assert_true(atf_rtc_crc_ref(0, "123456789", 9) == 0x7EAD5C77u);
    /* continuing equals one pass */
    uint32_t c = atf_rtc_crc32(0, "1234", 4);
    assert_true(atf_rtc_crc32(c, "56789", 5) == 0xCBF43926u);
    c = atf_rtc_crc_ref(0, "12345", 5);
    assert_true(atf_rtc_crc_ref(c, "6789", 4) == 0x7EAD5C77u);
}

static void test_marker_scan(void **state)
{
    (void)state;
    size_t n = 5000;
    uint8_t *d = calloc(n, 1);
    assert_non_null(d);
    assert_int_equal(atf_rtc_find_marker(d, n, 0), n);
    d[100] = 4;
    memset(d + 101, 0xB9, 1024);
    assert_int_equal(atf_rtc_find_marker(d, n, 0), 100);
    assert_int_equal(atf_rtc_find_marker(d, n, 101), n);
    d[1125] = 0xB9;   /* 1025 x B9: not a Marker */
    assert_int_equal(atf_rtc_find_marker(d, n, 0), n);
    d[1125] = 0;
    d[101 + 500] = 0;  /* a broken run */
    assert_int_equal(atf_rtc_find_marker(d, n, 0), n);
    free(d);
}

/* The Marker definition read literally: 04, exactly 1024 x B9, then no B9. */
static size_t naive_marker(const uint8_t *d, size_t n, size_t from)
{
    for (size_t i = from; i + 1025 <= n; i++) {
        if (d[i] != 4)
            continue;
        size_t r = 0;
        while (i + 1 + r < n && d[i + 1 + r] == 0xB9)
            r++;
        if (r == 1024)
            return i;
    }
    return n;
}

/* Random files of 04 bytes and B9 runs of 1020..1030 bytes at every
 * alignment, scanned from many offsets: the scan finds what the definition
 * says. */
static void test_marker_scan_random(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    enum { N = 9000 };
    uint8_t *d = malloc(N);
    assert_non_null(d);
    for (int round = 0; round < 300; round++) {
        for (size_t i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            d[i] = (x & 3) == 0 ? 4 : (uint8_t)(x >> 8);
        }
        for (int r = 0; r < 4; r++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t at = (size_t)(x % (N - 1040)), len = 1020 + (size_t)((x >> 20) % 11);
            d[at] = (x >> 40) % 4 ? 4 : 0xB9;
            memset(d + at + 1, 0xB9, len);
        }
        size_t n = N - (size_t)(x >> 50) % 2000;
        for (size_t from = 0; from < n; from += 1 + (size_t)((x >> (from % 40)) % 97))
            assert_int_equal(atf_rtc_find_marker(d, n, from), naive_marker(d, n, from));
    }
    free(d);
}

static void test_reader_empty_and_garbage(void **state)
{
    (void)state;
    atf_rtc_reader *r = NULL;
    atf_rtc_summary s;
    assert_int_equal(atf_rtc_reader_open_memory(&r, "", 0, NULL), ATF_OK);
    atf_rtc_reader_summary(r, &s);
    assert_int_equal(s.state, ATF_RTC_COMPLETE);
    assert_int_equal(s.records, 0);
    atf_rtc_reader_close(r);
    assert_int_equal(atf_rtc_reader_open_memory(&r, "hello world", 11, NULL), ATF_OK);
    atf_rtc_reader_summary(r, &s);
    assert_int_equal(s.state, ATF_RTC_DAMAGED);
    assert_int_equal(atf_rtc_reader_clause_count(r, "RTC-MRK-001"), 1);
    assert_int_equal(s.skipped_bytes, 11);
    atf_rtc_reader_close(r);
}

/* ---- Writer read back ---------------------------------------------------------- */

typedef struct mem {
    uint8_t *p;
    size_t n, cap;
} mem;

static int sink(void *user, const void *p, size_t n)
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
static atf_status write_rec(atf_rtc_writer *w, uint64_t id, const uint8_t *p, size_t n, int split, size_t i)
{
    if (!split)
        return atf_rtc_writer_write(w, id, p, n, NULL);
    size_t cut = (i * 131) % (n + 1);
    return atf_rtc_writer_write2(w, id, cut ? p : NULL, cut, n - cut ? p + cut : NULL, n - cut, NULL);
}

/* Writes NRECS records over three streams (text, a fixed u32, long blobs). */
static mem write_sample_as(uint64_t U, uint64_t u, int ref, int big, size_t *lens, size_t count, int split)
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

static mem write_sample(uint64_t U, uint64_t u, int ref, int big, size_t *lens, size_t count)
{
    return write_sample_as(U, u, ref, big, lens, count, 0);
}

static void check_whole(const mem *m, const size_t *lens)
{
    atf_rtc_reader *r = NULL;
    atf_rtc_summary s;
    assert_int_equal(atf_rtc_reader_open_memory(&r, m->p, m->n, NULL), ATF_OK);
    atf_rtc_reader_summary(r, &s);
    for (size_t i = 0; i < atf_rtc_reader_finding_count(r); i++) {
        atf_rtc_finding f;
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

static void test_writer_read_back(void **state)
{
    (void)state;
    size_t lens[NRECS];
    static const uint64_t sizes[][2] = { { 4096, 2048 }, { 2048, 2048 }, { 16384, 4096 }, { 0, 0 } };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int ref = 0; ref < 2; ref++) {
            mem m = write_sample(sizes[k][0], sizes[k][1], ref, ref, lens, NRECS);
            assert_true(m.n > 0);
            assert_int_equal(m.p[0], 4);
            check_whole(&m, lens);
            free(m.p);
        }
}

/* A record written in two parts is the same bytes as written joined, for
 * every cut (frames split across the parts, fixed-length records, empty parts). */
static void test_writer_write2(void **state)
{
    (void)state;
    size_t lens[NRECS], lens2[NRECS];
    static const uint64_t sizes[][2] = { { 4096, 2048 }, { 2048, 2048 }, { 16384, 4096 } };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        mem a = write_sample_as(sizes[k][0], sizes[k][1], 0, 0, lens, NRECS, 0);
        mem b = write_sample_as(sizes[k][0], sizes[k][1], 0, 0, lens2, NRECS, 1);
        assert_int_equal(a.n, b.n);
        assert_memory_equal(a.p, b.p, a.n);
        check_whole(&b, lens2);
        free(a.p);
        free(b.p);
    }
}

static void test_writer_bad_sizes(void **state)
{
    (void)state;
    mem m = { NULL, 0, 0 };
    atf_rtc_writer *w = NULL;
    atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
    o.unit_size = 4096;
    o.subunit_size = 1024;
    assert_int_equal(atf_rtc_writer_create(&w, &o, sink, &m, NULL), ATF_E_ARG);
    o.subunit_size = 8192;
    assert_int_equal(atf_rtc_writer_create(&w, &o, sink, &m, NULL), ATF_E_ARG);
    o.subunit_size = 3000;
    assert_int_equal(atf_rtc_writer_create(&w, &o, sink, &m, NULL), ATF_E_ARG);
    /* nothing written: an empty file (R-E18) */
    assert_int_equal(atf_rtc_writer_create(&w, NULL, sink, &m, NULL), ATF_OK);
    assert_int_equal(atf_rtc_writer_finish(w, NULL), ATF_OK);
    assert_int_equal(m.n, 0);
}

/* A fixed-length record that fits in no unit (U = u = 2048: the one unit
 * holds the Unit's head and ends 1030 bytes early) is refused with
 * ATF_E_LENGTH after at most one Unit of padding (it wrote without end
 * before), and the file stays readable: the other records are all there. */
static void test_writer_fixed_never_fits(void **state)
{
    (void)state;
    mem m = { NULL, 0, 0 };
    atf_rtc_writer *w = NULL;
    atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
    o.unit_size = o.subunit_size = 2048;
    assert_int_equal(atf_rtc_writer_create(&w, &o, sink, &m, NULL), ATF_OK);
    uint64_t big, log;
    assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"k\",\"length\":1024}", &big, NULL), ATF_OK);
    assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"log\"}", &log, NULL), ATF_OK);
    uint8_t buf[1024];
    memset(buf, 7, sizeof buf);
    assert_int_equal(atf_rtc_writer_write(w, log, "a", 1, NULL), ATF_OK);
    atf_error err;
    assert_int_equal(atf_rtc_writer_write(w, big, buf, sizeof buf, &err), ATF_E_LENGTH);
    assert_true(m.n <= 3 * 2048);
    assert_int_equal(atf_rtc_writer_write(w, log, "b", 1, NULL), ATF_OK);
    assert_int_equal(atf_rtc_writer_finish(w, NULL), ATF_OK);
    atf_rtc_reader *r = NULL;
    atf_rtc_summary s;
    assert_int_equal(atf_rtc_reader_open_memory(&r, m.p, m.n, NULL), ATF_OK);
    atf_rtc_reader_summary(r, &s);
    assert_int_equal(s.state, ATF_RTC_COMPLETE);
    assert_int_equal(s.records, 2);
    atf_rtc_reader_close(r);
    free(m.p);
    /* U = 4096, u = 2048: it fits in unit 0, after the head of the next Unit */
    memset(&m, 0, sizeof m);
    o.unit_size = 4096;
    assert_int_equal(atf_rtc_writer_create(&w, &o, sink, &m, NULL), ATF_OK);
    assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"k\",\"length\":1024}", &big, NULL), ATF_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(atf_rtc_writer_write(w, big, buf, sizeof buf, NULL), ATF_OK);
    assert_int_equal(atf_rtc_writer_finish(w, NULL), ATF_OK);
    assert_int_equal(atf_rtc_reader_open_memory(&r, m.p, m.n, NULL), ATF_OK);
    atf_rtc_reader_summary(r, &s);
    assert_int_equal(s.state, ATF_RTC_COMPLETE);
    assert_int_equal(s.records, 6);
    atf_rtc_reader_close(r);
    free(m.p);
}

/* Empty records (variable-length, and of a fixed length 0) written where
 * the writer stands at a boundary: each one a frame (the writer dropped an
 * empty record that began at an index frame or a Unit's Crc; found by
 * property_rtc_1). */
static void test_writer_empty_records(void **state)
{
    (void)state;
    static const uint64_t sizes[][2] = { { 2048, 2048 }, { 4096, 2048 } };
    for (size_t k = 0; k < 2; k++) {
        mem m = { NULL, 0, 0 };
        atf_rtc_writer *w = NULL;
        atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
        o.unit_size = sizes[k][0];
        o.subunit_size = sizes[k][1];
        assert_int_equal(atf_rtc_writer_create(&w, &o, sink, &m, NULL), ATF_OK);
        uint64_t v, z;
        assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"v\"}", &v, NULL), ATF_OK);
        assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"z\",\"length\":0}", &z, NULL), ATF_OK);
        for (int i = 0; i < 9000; i++)
            assert_int_equal(atf_rtc_writer_write(w, i % 3 ? v : z, "", 0, NULL), ATF_OK);
        assert_int_equal(atf_rtc_writer_finish(w, NULL), ATF_OK);
        atf_rtc_reader *r = NULL;
        atf_rtc_summary s;
        assert_int_equal(atf_rtc_reader_open_memory(&r, m.p, m.n, NULL), ATF_OK);
        atf_rtc_reader_summary(r, &s);
        assert_int_equal(s.state, ATF_RTC_COMPLETE);
        assert_true(s.units > 2);
        assert_int_equal(s.records, 9000);
        atf_rtc_reader_close(r);
        free(m.p);
    }
}

/* Every cut at the end and at the start of a written file: never damaged,
 * never more records than written, every record read is one written (same
 * size at its offset), and the cut is reported. */
static void test_every_cut(void **state)
{
    (void)state;
    size_t lens[NRECS];
    /* a small file of a few Units: every cut reads it whole once */
    mem m = write_sample(4096, 2048, 0, 0, lens, CUTRECS);
    /* the records of the whole file, by offset */
    atf_rtc_reader *r = NULL;
    assert_int_equal(atf_rtc_reader_open_memory(&r, m.p, m.n, NULL), ATF_OK);
    uint64_t offs[CUTRECS];
    size_t sz[CUTRECS];
    for (size_t i = 0; i < CUTRECS; i++) {
        atf_rtc_record rec;
        atf_rtc_reader_record(r, i, &rec);
        offs[i] = rec.offset;
        sz[i] = rec.size;
    }
    atf_rtc_reader_close(r);
    for (int end = 0; end < 2; end++)
        for (size_t c = 1; c < m.n; c++) {
            const uint8_t *d = end ? m.p : m.p + c;
            size_t n = end ? c : m.n - c;
            assert_int_equal(atf_rtc_reader_open_memory(&r, d, n, NULL), ATF_OK);
            atf_rtc_summary s;
            atf_rtc_reader_summary(r, &s);
            if (!end && atf_rtc_find_marker(d, n, 0) == n) {
                /* no Marker left: not an RTC file any more (RTC-MRK-001), nothing read */
                assert_int_equal(atf_rtc_reader_clause_count(r, "RTC-MRK-001"), 1);
                assert_int_equal(s.records, 0);
                atf_rtc_reader_close(r);
                continue;
            }
            if (s.state == ATF_RTC_DAMAGED)
                fail_msg("cut %s at %zu: damaged (%s)", end ? "end" : "start", c, s.first_damage.message);
            /* a file ending exactly at a Unit end, with no record continued, is complete (SPEC-RTC 8.2) */
            if (s.state == ATF_RTC_COMPLETE)
                assert_true(end && c % 4096 == 0);
            else
                assert_int_equal(s.state, ATF_RTC_CRASH_TRUNCATED);
            assert_true(s.records <= CUTRECS);
            size_t j = 0;
            for (size_t i = 0; i < s.records; i++) {
                atf_rtc_record rec;
                atf_rtc_reader_record(r, i, &rec);
                uint64_t at = rec.offset + (end ? 0 : c);
                while (j < CUTRECS && offs[j] < at)
                    j++;
                if (j == CUTRECS || offs[j] != at) {
                    /* a start cut may show the tail of a record as one (R-E12) */
                    assert_false(end);
                    continue;
                }
                assert_int_equal(rec.size, sz[j]);
            }
            atf_rtc_reader_close(r);
        }
    free(m.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uleb),
        cmocka_unit_test(test_sleb),
        cmocka_unit_test(test_crc),
        cmocka_unit_test(test_writer_write2),
        cmocka_unit_test(test_marker_scan),
        cmocka_unit_test(test_marker_scan_random),
        cmocka_unit_test(test_reader_empty_and_garbage),
        cmocka_unit_test(test_writer_read_back),
        cmocka_unit_test(test_writer_bad_sizes),
        cmocka_unit_test(test_writer_fixed_never_fits),
        cmocka_unit_test(test_writer_empty_records),
        cmocka_unit_test(test_every_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
