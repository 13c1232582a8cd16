/* Tests for atf/crc32c.h: known answers, dispatched vs portable, incremental. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <unistd.h>
#endif

#include <atf/crc32c.h>

/* Fixed-seed xorshift64 so failures reproduce. */
static uint64_t g_rng;

static void rng_seed(uint64_t seed)
{
    g_rng = seed ? seed : 0x9E3779B97F4A7C15ull;
}

static uint64_t rng_next(void)
{
    uint64_t x = g_rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    g_rng = x;
    return x;
}

static void rng_fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rng_next() >> 56);
}

/* A new buffer of n bytes from the generator seeded with seed (free it). */
static uint8_t *random_buf(size_t n, uint64_t seed)
{
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    rng_seed(seed);
    rng_fill(buf, n);
    return buf;
}

/* Bit-at-a-time reference, independent of the library's tables. */
static uint32_t ref_crc(uint32_t poly, uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc & 1u) ? (crc >> 1) ^ poly : crc >> 1;
    }
    return ~crc;
}

static const char check_input[] = "123456789";

static void test_check_values(void **state)
{
    (void)state;
    assert_int_equal(atf_crc32c(0, check_input, 9), 0xE3069283u);
    assert_int_equal(atf_crc32c_portable(0, check_input, 9), 0xE3069283u);
    assert_int_equal(atf_crc32_ieee(0, check_input, 9), 0xCBF43926u);
    /* The IEEE function must not be the Castagnoli one and vice versa. */
    assert_int_not_equal(atf_crc32_ieee(0, "a", 1), atf_crc32c(0, "a", 1));
    assert_int_equal(atf_crc32_ieee(0, "a", 1), 0xE8B7BE43u);
}

static void check_rfc3720(const uint8_t *buf, uint32_t expect)
{
    assert_int_equal(atf_crc32c(0, buf, 32), expect);
    assert_int_equal(atf_crc32c_portable(0, buf, 32), expect);
    assert_int_equal(ref_crc(0x82F63B78u, 0, buf, 32), expect);
}

static void test_rfc3720_vectors(void **state)
{
    (void)state;
    uint8_t buf[32];

    memset(buf, 0, sizeof buf);
    check_rfc3720(buf, 0x8A9136AAu);
    memset(buf, 0xFF, sizeof buf);
    check_rfc3720(buf, 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    check_rfc3720(buf, 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)(31 - i);
    check_rfc3720(buf, 0x113FDB5Cu);
}

static void test_empty_input(void **state)
{
    (void)state;
    static const uint32_t crcs[] = {0u, 1u, 0xE3069283u, 0xFFFFFFFFu, 0x12345678u};
    for (size_t i = 0; i < sizeof crcs / sizeof crcs[0]; i++) {
        assert_int_equal(atf_crc32c(crcs[i], check_input, 0), crcs[i]);
        assert_int_equal(atf_crc32c(crcs[i], NULL, 0), crcs[i]);
        assert_int_equal(atf_crc32c_portable(crcs[i], NULL, 0), crcs[i]);
        assert_int_equal(atf_crc32_ieee(crcs[i], NULL, 0), crcs[i]);
    }
}

static void test_impl_name(void **state)
{
    (void)state;
    const char *name = atf_crc32c_impl();
    assert_non_null(name);
    assert_true(strcmp(name, "avx512-vpclmul") == 0 || strcmp(name, "avx2-vpclmul") == 0 || strcmp(name, "sse4.2") == 0 ||
                strcmp(name, "armv8-crc") == 0 || strcmp(name, "portable") == 0);
    const char *env = getenv("ATF_CRC32C_IMPL");
    if (env != NULL && strcmp(env, "portable") == 0)
        assert_string_equal(name, "portable");
#if defined(__x86_64__) && defined(__GNUC__)
    int clmul = __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("pclmul");
    int wide = clmul && __builtin_cpu_supports("avx512f");
    int ymm = clmul && __builtin_cpu_supports("avx2");
    if (env == NULL && __builtin_cpu_supports("sse4.2"))
        assert_string_equal(name, wide ? "avx512-vpclmul" : ymm ? "avx2-vpclmul" : "sse4.2");
    /* test_crc32c_sse42 and test_crc32c_avx2 (ctest) run this binary again
     * with the folding off, and with the 256-bit folding in place of the
     * 512-bit one. */
    if (env != NULL && strcmp(env, "sse4.2") == 0 && __builtin_cpu_supports("sse4.2"))
        assert_string_equal(name, "sse4.2");
    if (env != NULL && strcmp(env, "avx2-vpclmul") == 0 && __builtin_cpu_supports("sse4.2"))
        assert_string_equal(name, ymm ? "avx2-vpclmul" : "sse4.2");
#endif
    /* ci/arm64 sets this so that the emulated run proves the ARMv8 path is used. */
    const char *expect = getenv("ATF_EXPECT_CRC32C_IMPL");
    if (env == NULL && expect != NULL && expect[0])
        assert_string_equal(name, expect);
    /* CRC32/IEEE: its own dispatch, the same switch, the same ARMv8 extension. */
    const char *ieee = atf_crc32_ieee_impl();
    assert_non_null(ieee);
    assert_true(strcmp(ieee, "pclmul") == 0 || strcmp(ieee, "avx2-vpclmul") == 0 || strcmp(ieee, "armv8-crc") == 0 ||
                strcmp(ieee, "portable") == 0);
    if (env != NULL && strcmp(env, "portable") == 0)
        assert_string_equal(ieee, "portable");
#if defined(__x86_64__) && defined(__GNUC__)
    if ((env == NULL || strcmp(env, "avx2-vpclmul") == 0) && __builtin_cpu_supports("pclmul"))
        assert_string_equal(ieee, ymm ? "avx2-vpclmul" : "pclmul");
    if (env != NULL && strcmp(env, "sse4.2") == 0 && __builtin_cpu_supports("pclmul"))
        assert_string_equal(ieee, "pclmul");
#endif
    if (env == NULL && expect != NULL && !strcmp(expect, "armv8-crc"))
        assert_string_equal(ieee, "armv8-crc");
}

/* Every length 0..1024 at every alignment 0..15, against the portable code
 * and (sparsely) against the bitwise reference. */
static void test_dispatch_matches_portable_small(void **state)
{
    (void)state;
    enum { MAXLEN = 1024, MAXALIGN = 16 };
    uint8_t *buf = malloc(MAXLEN + MAXALIGN + 8);
    assert_non_null(buf);
    rng_seed(0x1234567887654321ull);
    for (size_t align = 0; align < MAXALIGN; align++) {
        for (size_t len = 0; len <= MAXLEN; len++) {
            uint8_t *p = buf + align;
            rng_fill(p, len);
            uint32_t seed = (uint32_t)rng_next();
            uint32_t hw = atf_crc32c(seed, p, len);
            uint32_t sw = atf_crc32c_portable(seed, p, len);
            if (hw != sw)
                fail_msg("align %zu len %zu: dispatched %08x portable %08x", align, len,
                         (unsigned)hw, (unsigned)sw);
            if (len % 61 == 0 || len < 20)
                assert_int_equal(sw, ref_crc(0x82F63B78u, seed, p, len));
            /* CRC32/IEEE at every length and alignment: its dispatched code
             * (folding from 64 bytes on) against the bitwise reference. */
            uint32_t ie = atf_crc32_ieee(seed, p, len), ir = ref_crc(0xEDB88320u, seed, p, len);
            if (ie != ir)
                fail_msg("align %zu len %zu: CRC32/IEEE %s %08x, bitwise %08x", align, len, atf_crc32_ieee_impl(),
                         (unsigned)ie, (unsigned)ir);
        }
    }
    free(buf);
}

/* Sizes that cross the interleaving block boundaries of the hardware code. */
static void test_dispatch_matches_portable_large(void **state)
{
    (void)state;
    static const size_t sizes[] = {
        3 * 128 - 1,   3 * 128,        3 * 1024 - 1,     3 * 1024,       3 * 1024 + 1,
        3 * 1024 + 3 * 128 + 7,        3 * 8192 - 1,     3 * 8192,       3 * 8192 + 1,
        3 * 8192 + 3 * 1024 + 3 * 128 + 5,                100000,         (1u << 20) + 1,
        (1u << 20) + 13, (1u << 20) + 777, 3u << 20,
    };
    size_t maxsize = 3u << 20;
    uint8_t *buf = random_buf(maxsize + 16, 42);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t align = 0; align < 16; align += 5) {
            uint32_t seed = (uint32_t)rng_next();
            uint32_t hw = atf_crc32c(seed, buf + align, sizes[i]);
            uint32_t sw = atf_crc32c_portable(seed, buf + align, sizes[i]);
            if (hw != sw)
                fail_msg("size %zu align %zu: dispatched %08x portable %08x", sizes[i], align,
                         (unsigned)hw, (unsigned)sw);
        }
    }
    /* CRC32/IEEE across its folding's lanes (64-byte steps, 16-byte tail blocks). */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t len = sizes[i] < 100000 ? sizes[i] : 100000 + i;
        uint32_t seed = (uint32_t)rng_next();
        assert_int_equal(atf_crc32_ieee(seed, buf + i, len), ref_crc(0xEDB88320u, seed, buf + i, len));
    }
    /* One long buffer also against the bitwise reference. */
    assert_int_equal(atf_crc32c_portable(7, buf + 3, (1u << 20) + 1),
                     ref_crc(0x82F63B78u, 7, buf + 3, (1u << 20) + 1));
    assert_int_equal(atf_crc32_ieee(7, buf + 3, (1u << 20) + 1),
                     ref_crc(0xEDB88320u, 7, buf + 3, (1u << 20) + 1));
    free(buf);
}

/* Every length from the folding's start (1024 bytes) through a few of its
 * 256-, 64-, 32- and 16-byte steps, at every alignment, against the
 * portable code and (sparsely) the bitwise reference. */
static void test_dispatch_matches_portable_wide(void **state)
{
    (void)state;
    enum { FROM = 1000, TO = 1800, MAXALIGN = 64 };
    uint8_t *buf = random_buf(TO + MAXALIGN, 0x0123456789ABCDEFull);
    for (size_t align = 0; align < MAXALIGN; align += (align < 16 ? 1 : 7)) {
        for (size_t len = FROM; len <= TO; len++) {
            uint32_t seed = (uint32_t)rng_next();
            uint32_t hw = atf_crc32c(seed, buf + align, len), sw = atf_crc32c_portable(seed, buf + align, len);
            if (hw != sw)
                fail_msg("%s, align %zu len %zu: dispatched %08x portable %08x", atf_crc32c_impl(), align, len,
                         (unsigned)hw, (unsigned)sw);
            if (len % 97 == 0)
                assert_int_equal(sw, ref_crc(0x82F63B78u, seed, buf + align, len));
            /* CRC32/IEEE's folding (from 1024 bytes on AVX2) against the
             * bitwise reference, at fewer alignments (the reference is slow). */
            if (align % 4 == 0) {
                uint32_t ie = atf_crc32_ieee(seed, buf + align, len), ir = ref_crc(0xEDB88320u, seed, buf + align, len);
                if (ie != ir)
                    fail_msg("%s, align %zu len %zu: CRC32/IEEE %08x, bitwise %08x", atf_crc32_ieee_impl(), align,
                             len, (unsigned)ie, (unsigned)ir);
            }
        }
    }
    free(buf);
}

/* atf_crc32c_combine against the CRC of the whole, at splits of every kind. */
static void test_combine(void **state)
{
    (void)state;
    size_t n = 300000;
    uint8_t *buf = random_buf(n, 0xC0FFEE1234ull);
    uint32_t whole = atf_crc32c(0, buf, n);
    static const size_t fixed[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 255, 256, 1023, 1024, 4096, 65536};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] + 200; i++) {
        size_t cut = i < sizeof fixed / sizeof fixed[0] ? fixed[i] : (size_t)(rng_next() % (n + 1));
        uint32_t a = atf_crc32c(0, buf, cut), b = atf_crc32c(0, buf + cut, n - cut);
        if (atf_crc32c_combine(a, b, n - cut) != whole)
            fail_msg("cut %zu: combined %08x, whole %08x", cut, (unsigned)atf_crc32c_combine(a, b, n - cut),
                     (unsigned)whole);
        /* From the other end too: the last `cut` bytes as b. */
        size_t m = cut < n ? n - cut : 0;
        assert_int_equal(atf_crc32c_combine(atf_crc32c(0, buf, m), atf_crc32c(0, buf + m, n - m), n - m), whole);
    }
    /* Three pieces, joined left to right. */
    uint32_t c = atf_crc32c_combine(atf_crc32c_combine(atf_crc32c(0, buf, 1000), atf_crc32c(0, buf + 1000, 50000),
                                                       50000),
                                    atf_crc32c(0, buf + 51000, n - 51000), n - 51000);
    assert_int_equal(c, whole);
    /* The check value; an empty b; and lengths past any buffer (the power is
     * built by squaring), where with crc_b = 0 combine is the shift by
     * len_b zero bytes, so two shifts must make the shift by their sum. */
    assert_int_equal(atf_crc32c_combine(atf_crc32c(0, "1234", 4), atf_crc32c(0, "56789", 5), 5), 0xE3069283u);
    assert_int_equal(atf_crc32c_combine(0xE3069283u, 0, 0), 0xE3069283u);
    static const uint64_t big[][2] = {{1, 1},
                                      {(uint64_t)1 << 31, (uint64_t)1 << 31}, /* a sum past 32 bits */
                                      {(uint64_t)0xFFFFFFFFu, 7},
                                      {(uint64_t)1 << 40, 12345},
                                      {(uint64_t)3 << 50, (uint64_t)1 << 62}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        assert_int_equal(atf_crc32c_combine(atf_crc32c_combine(0xE3069283u, 0, big[i][0]), 0, big[i][1]),
                         atf_crc32c_combine(0xE3069283u, 0, big[i][0] + big[i][1]));
    /* 1024 bytes of zeros as b: the shift agrees with the CRC itself. */
    uint8_t zeros[1024] = {0};
    assert_int_equal(atf_crc32c_combine(0xE3069283u, 0, sizeof zeros) ^ atf_crc32c(0, zeros, sizeof zeros),
                     atf_crc32c(0xE3069283u, zeros, sizeof zeros));
    free(buf);
}

/* Many zero bytes, where a wrong shift constant tends to stay hidden least. */
static void test_long_constant_runs(void **state)
{
    (void)state;
    size_t n = 200000;
    uint8_t *buf = calloc(n, 1);
    assert_non_null(buf);
    assert_int_equal(atf_crc32c(0, buf, n), atf_crc32c_portable(0, buf, n));
    memset(buf, 0xFF, n);
    assert_int_equal(atf_crc32c(0x55555555u, buf, n), atf_crc32c_portable(0x55555555u, buf, n));
    free(buf);
}

static void test_incremental(void **state)
{
    (void)state;
    size_t n = 100000;
    uint8_t *buf = random_buf(n, 0xDEADBEEFCAFEF00Dull);
    uint32_t whole_c = atf_crc32c(0, buf, n);
    uint32_t whole_p = atf_crc32c_portable(0, buf, n);
    uint32_t whole_i = atf_crc32_ieee(0, buf, n);
    assert_int_equal(whole_c, whole_p);
    for (int round = 0; round < 200; round++) {
        uint32_t c = 0, p = 0, ie = 0;
        size_t pos = 0;
        while (pos < n) {
            size_t left = n - pos;
            /* Mostly short pieces, sometimes long ones, sometimes empty. */
            size_t piece = (rng_next() & 1) ? rng_next() % 64 : rng_next() % 40000;
            if (piece > left)
                piece = left;
            c = atf_crc32c(c, buf + pos, piece);
            p = atf_crc32c_portable(p, buf + pos, piece);
            ie = atf_crc32_ieee(ie, buf + pos, piece);
            pos += piece;
        }
        assert_int_equal(c, whole_c);
        assert_int_equal(p, whole_p);
        assert_int_equal(ie, whole_i);
    }
    /* The "123456789" check value, split at every point. */
    for (size_t k = 0; k <= 9; k++) {
        assert_int_equal(atf_crc32c(atf_crc32c(0, check_input, k), check_input + k, 9 - k),
                         0xE3069283u);
        assert_int_equal(atf_crc32_ieee(atf_crc32_ieee(0, check_input, k), check_input + k, 9 - k),
                         0xCBF43926u);
    }
    free(buf);
}

/* ATF_CRC32C_IMPL=portable is read once, at the first call: ctest runs this
 * binary a second time with it set (test_crc32c_portable), where
 * test_impl_name checks that the portable code is the one in use. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_values),
        cmocka_unit_test(test_rfc3720_vectors),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_impl_name),
        cmocka_unit_test(test_dispatch_matches_portable_small),
        cmocka_unit_test(test_dispatch_matches_portable_large),
        cmocka_unit_test(test_dispatch_matches_portable_wide),
        cmocka_unit_test(test_combine),
        cmocka_unit_test(test_long_constant_runs),
        cmocka_unit_test(test_incremental),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
