/* Tests of the RTC wire primitives (formats/rtc/src/rtc_wire.c): LEB128,
 * both Crcs, the Marker scan. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uleb),
        cmocka_unit_test(test_sleb),
        cmocka_unit_test(test_crc),
        cmocka_unit_test(test_marker_scan),
        cmocka_unit_test(test_marker_scan_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
