/* Tests of the RTC reader (formats/rtc/src/rtc_reader.c): empty and
 * garbage files, and written files cut at every place at both ends. */
#include "rtc_test_util.h"

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
        cmocka_unit_test(test_reader_empty_and_garbage),
        cmocka_unit_test(test_every_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
