/* JSON and XML escaping onto a stream (formats/common/src/escape.c): one
 * behaviour for control characters and malformed UTF-8 everywhere. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/* What fn writes for s, in buf. */
static void run(void (*fn)(const char *, FILE *), const char *s, char *buf, size_t cap)
{
    FILE *f = fmemopen(buf, cap, "w");
    assert_non_null(f);
    fn(s, f);
    assert_int_equal(fclose(f), 0);
}

static void test_json_ascii_and_short_escapes(void **state)
{
    (void)state;
    char b[256];
    run(atf_json_fputs, "a\"b\\c\n\r\t", b, sizeof b);
    assert_string_equal(b, "\"a\\\"b\\\\c\\n\\r\\t\"");
    run(atf_json_fputs, "", b, sizeof b);
    assert_string_equal(b, "\"\"");
}

static void test_json_controls_and_non_ascii(void **state)
{
    (void)state;
    char b[256];
    run(atf_json_fputs, "\x01\x1f\x7f", b, sizeof b);
    assert_string_equal(b, "\"\\u0001\\u001f\\u007f\"");
    run(atf_json_fputs, "\xc3\xa9", b, sizeof b);   /* U+00E9 */
    assert_string_equal(b, "\"\\u00e9\"");
    run(atf_json_fputs, "\xf0\x9f\x98\x80", b, sizeof b);   /* U+1F600: a surrogate pair */
    assert_string_equal(b, "\"\\ud83d\\ude00\"");
}

static void test_json_malformed_is_fffd_per_byte(void **state)
{
    (void)state;
    char b[256];
    run(atf_json_fputs, "\xff" "a\xc3", b, sizeof b);
    assert_string_equal(b, "\"\\ufffda\\ufffd\"");
}

/* atf_json_fputs_n(): n bytes, NUL among them; a sequence cut by n is
 * malformed; the same text as atf_json_fputs() where both apply. */
static void test_json_n_bounded(void **state)
{
    (void)state;
    char b[256], c[256];
    FILE *f = fmemopen(b, sizeof b, "w");
    assert_non_null(f);
    atf_json_fputs_n("a\0b\xc3\xa9", 5, f);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(b, "\"a\\u0000b\\u00e9\"");

    f = fmemopen(b, sizeof b, "w");
    assert_non_null(f);
    atf_json_fputs_n("x\xc3\xa9yz", 2, f);   /* U+00E9 cut after its first byte */
    assert_int_equal(fclose(f), 0);
    assert_string_equal(b, "\"x\\ufffd\"");

    f = fmemopen(b, sizeof b, "w");
    assert_non_null(f);
    atf_json_fputs_n("tab\there, more", 8, f);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(b, "\"tab\\there\"");

    /* 0xf8 is no UTF-8 lead byte, with or without continuation bytes after it. */
    const char *s = "\xf8\x80\x80q\xf0\x9f\x98\x80";
    f = fmemopen(b, sizeof b, "w");
    assert_non_null(f);
    atf_json_fputs_n(s, strlen(s), f);
    assert_int_equal(fclose(f), 0);
    run(atf_json_fputs, s, c, sizeof c);
    assert_string_equal(b, c);
    assert_string_equal(b, "\"\\ufffd\\ufffd\\ufffdq\\ud83d\\ude00\"");
}

static void test_xml_markup_and_controls(void **state)
{
    (void)state;
    char b[256];
    run(atf_xml_fputs, "<a href='x'>&\"</a>", b, sizeof b);
    assert_string_equal(b, "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;");
    run(atf_xml_fputs, "t\tn\nr\r", b, sizeof b);   /* what XML holds stays */
    assert_string_equal(b, "t\tn\nr\r");
    run(atf_xml_fputs, "\x01\x1b", b, sizeof b);   /* what it cannot hold: U+FFFD, never '?' */
    assert_string_equal(b, "&#xFFFD;&#xFFFD;");
    run(atf_xml_fputs, "\xef\xbf\xbe\xc3\xa9\xfe", b, sizeof b);   /* U+FFFE, U+00E9, a stray byte */
    assert_string_equal(b, "&#xFFFD;&#xE9;&#xFFFD;");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_ascii_and_short_escapes),
        cmocka_unit_test(test_json_controls_and_non_ascii),
        cmocka_unit_test(test_json_malformed_is_fffd_per_byte),
        cmocka_unit_test(test_json_n_bounded),
        cmocka_unit_test(test_xml_markup_and_controls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
