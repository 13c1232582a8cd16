/* The one strict UTF-8 decoder (common/src/utf8.c, RFC 3629 section 3):
 * every length, every way a sequence can be wrong, and the boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common.h"

#define BYTES(...) ((const uint8_t[]){ __VA_ARGS__ }), sizeof((const uint8_t[]){ __VA_ARGS__ })

static void expect_cp(const uint8_t *p, size_t n, size_t len, uint32_t cp)
{
    uint32_t got = 0xFFFFFFFFu;
    assert_int_equal(atf_utf8_decode(p, n, &got), len);
    assert_int_equal(got, cp);
    assert_int_equal(atf_utf8_decode(p, n, NULL), len);   /* the code point is optional */
}

static void expect_bad(const uint8_t *p, size_t n)
{
    uint32_t got = 0x1234;
    assert_int_equal(atf_utf8_decode(p, n, &got), 0);
    assert_int_equal(got, 0x1234);   /* untouched when refused */
    assert_false(atf_utf8_valid(p, n));
}

static void test_each_length_and_its_bounds(void **state)
{
    (void)state;
    expect_cp(BYTES(0x00), 1, 0x00);
    expect_cp(BYTES(0x7F), 1, 0x7F);
    expect_cp(BYTES(0xC2, 0x80), 2, 0x80);
    expect_cp(BYTES(0xDF, 0xBF), 2, 0x7FF);
    expect_cp(BYTES(0xE0, 0xA0, 0x80), 3, 0x800);
    expect_cp(BYTES(0xED, 0x9F, 0xBF), 3, 0xD7FF);
    expect_cp(BYTES(0xEE, 0x80, 0x80), 3, 0xE000);
    expect_cp(BYTES(0xEF, 0xBF, 0xBD), 3, 0xFFFD);
    expect_cp(BYTES(0xF0, 0x90, 0x80, 0x80), 4, 0x10000);
    expect_cp(BYTES(0xF4, 0x8F, 0xBF, 0xBF), 4, 0x10FFFF);
    /* Only the first sequence is decoded; what follows is not read. */
    expect_cp(BYTES(0xC3, 0xA9, 0xFF), 2, 0xE9);
}

static void test_overlong_forms(void **state)
{
    (void)state;
    expect_bad(BYTES(0xC0, 0x80));               /* U+0000 in two bytes */
    expect_bad(BYTES(0xC1, 0xBF));
    expect_bad(BYTES(0xE0, 0x9F, 0xBF));         /* U+07FF in three */
    expect_bad(BYTES(0xF0, 0x8F, 0xBF, 0xBF));   /* U+FFFF in four */
}

static void test_surrogates_and_above_the_last_code_point(void **state)
{
    (void)state;
    expect_bad(BYTES(0xED, 0xA0, 0x80));         /* U+D800 */
    expect_bad(BYTES(0xED, 0xBF, 0xBF));         /* U+DFFF */
    expect_bad(BYTES(0xF4, 0x90, 0x80, 0x80));   /* U+110000 */
    expect_bad(BYTES(0xF5, 0x80, 0x80, 0x80));
    expect_bad(BYTES(0xFE));
    expect_bad(BYTES(0xFF));
}

static void test_bad_or_missing_continuations(void **state)
{
    (void)state;
    expect_bad(BYTES(0x80));                     /* a continuation byte first */
    expect_bad(BYTES(0xBF));
    expect_bad(BYTES(0xC3));                     /* cut short */
    expect_bad(BYTES(0xE2, 0x82));
    expect_bad(BYTES(0xF0, 0x9F, 0x98));
    expect_bad(BYTES(0xC3, 0x41));               /* not a continuation */
    expect_bad(BYTES(0xE2, 0x00, 0xAC));         /* a NUL ends a string: never part of a sequence */
    /* n shorter than the buffer: the bytes past n are not looked at. */
    const uint8_t euro[] = { 0xE2, 0x82, 0xAC };
    assert_int_equal(atf_utf8_decode(euro, 2, NULL), 0);
    assert_int_equal(atf_utf8_decode(euro, 0, NULL), 0);
}

static void test_valid_strings(void **state)
{
    (void)state;
    const char *ok = "plain ASCII, caf\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80";
    assert_true(atf_utf8_valid((const uint8_t *)ok, strlen(ok)));
    assert_true(atf_utf8_valid((const uint8_t *)"", 0));
    /* A bad sequence anywhere makes the whole string invalid. */
    const char *bad = "caf\xC3\xA9 \xC0\x80 end";
    assert_false(atf_utf8_valid((const uint8_t *)bad, strlen(bad)));
    /* Cut inside its last sequence. */
    assert_false(atf_utf8_valid((const uint8_t *)ok, strlen(ok) - 1));
}

/* Long ASCII runs (read eight bytes at a time) with one sequence, good or
 * bad, at every place: before, across and after each eight-byte step. */
static void test_sequences_in_ascii_runs(void **state)
{
    (void)state;
    uint8_t buf[48];
    for (size_t len = 1; len <= 40; len++) {
        memset(buf, 'a', len);
        assert_true(atf_utf8_valid(buf, len));
        for (size_t at = 0; at < len; at++) {
            memset(buf, 'a', len);
            buf[at] = 0x80;   /* a lone continuation byte */
            assert_false(atf_utf8_valid(buf, len));
            buf[at] = 0xC3;   /* a lead byte: good with its continuation, bad when cut */
            if (at + 1 < len) {
                buf[at + 1] = 0xA9;
                assert_true(atf_utf8_valid(buf, len));
                buf[at + 1] = 'a';
            }
            assert_false(atf_utf8_valid(buf, len));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_length_and_its_bounds),
        cmocka_unit_test(test_overlong_forms),
        cmocka_unit_test(test_surrogates_and_above_the_last_code_point),
        cmocka_unit_test(test_bad_or_missing_continuations),
        cmocka_unit_test(test_valid_strings),
        cmocka_unit_test(test_sequences_in_ascii_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
