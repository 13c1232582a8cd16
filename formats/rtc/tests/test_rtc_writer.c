/* Tests of the RTC writer (formats/rtc/src/rtc_writer.c), read back by
 * the reader: records of every size, split writes, refused sizes, fixed
 * records that never fit, empty records. */
#include "rtc_test_util.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_write2),
        cmocka_unit_test(test_writer_read_back),
        cmocka_unit_test(test_writer_bad_sizes),
        cmocka_unit_test(test_writer_fixed_never_fits),
        cmocka_unit_test(test_writer_empty_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
