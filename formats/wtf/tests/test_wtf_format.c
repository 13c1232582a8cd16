/* The WTF codec's parsers (wtf_format.c) against hand-made bytes: the
 * file header, chunks, event signatures, string tables. */
#include "wtf_bytes.h"

static void test_file_header(void **state)
{
    (void)state;
    tb b = { { 0 }, 0 };
    file_header(&b);
    atf_wtf_file_header h;
    atf_error e;
    assert_int_equal(atf_wtf_parse_file_header(b.p, 12, &h, &e), ATF_OK);
    assert_int_equal(h.wtf_version, 0x90BA3800u);
    assert_int_equal(h.format_version, 10);
    assert_int_equal(atf_wtf_parse_file_header(b.p, 11, &h, &e), ATF_E_TRUNCATED);
    b.p[8] = 3;
    assert_int_equal(atf_wtf_parse_file_header(b.p, 12, &h, &e), ATF_E_VERSION);
    assert_int_equal(e.offset, 8);
    uint8_t legacy[12] = { 0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 1, 0, 0, 0, 3 };
    assert_int_equal(atf_wtf_parse_file_header(legacy, 12, &h, &e), ATF_E_UNSUPPORTED);
    assert_non_null(strstr(e.message, "legacy"));
    assert_int_equal(atf_wtf_parse_file_header("  {\"wtf_version\":1}", 19, &h, &e), ATF_E_UNSUPPORTED);
    assert_non_null(strstr(e.message, "JSON"));
    assert_int_equal(atf_wtf_parse_file_header("ATI2xxxxyyyy", 12, &h, &e), ATF_E_MAGIC);
}

static void test_chunk_parse(void **state)
{
    (void)state;
    tb b = { { 0 }, 0 };
    event_chunk(&b, 1);
    atf_wtf_chunk c;
    atf_error e;
    assert_int_equal(atf_wtf_parse_chunk(b.p, b.n, 100, &c, &e), ATF_OK);
    assert_int_equal(c.type, 2);
    assert_int_equal(c.length, b.n);
    assert_int_equal(c.part_count, 2);
    assert_int_equal(c.parts[0].type, 0x30000);
    assert_int_equal(c.parts[1].file_offset, 100 + 24 + 24 + c.parts[1].offset);
    /* Cut in the header and in the table: truncated. */
    assert_int_equal(atf_wtf_parse_chunk(b.p, 20, 0, &c, &e), ATF_E_TRUNCATED);
    assert_int_equal(atf_wtf_parse_chunk(b.p, 30, 0, &c, &e), ATF_E_TRUNCATED);
    /* A length not a multiple of 4 parses (the reader reads that chunk and
     * stops after it: the reader test below); one shorter than its table does not. */
    tb x = b;
    x.p[8] = (uint8_t)(x.p[8] + 2);
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_OK);
    assert_int_equal(c.length % 4, 2);
    x = b;
    memset(x.p + 8, 0, 4);
    x.p[8] = 40;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_LENGTH);
    assert_string_equal(e.field, "chunk.length");
    /* A misaligned part, a part outside the chunk, overlapping parts, too many parts. */
    x = b;
    x.p[24 + 4] = 2;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_OFFSET);
    x = b;
    x.p[24 + 12 + 8] = 0xF0;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_OFFSET);
    x = b;
    memcpy(x.p + 24 + 12 + 4, x.p + 24 + 4, 4);
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_OFFSET);
    assert_non_null(strstr(e.message, "overlap"));
    x = b;
    x.p[20] = 65;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_LIMIT);
}

static void test_signature(void **state)
{
    (void)state;
    atf_wtf_def d;
    char names[128];
    atf_error e;
    const char *s = "uint32 n,ascii  s , float32[] v, wchar w";
    assert_int_equal(atf_wtf_parse_signature(s, strlen(s), &d, names, sizeof names, &e), ATF_OK);
    assert_int_equal(d.arg_count, 4);
    assert_string_equal(d.args[1].name, "s");
    assert_int_equal(d.args[2].type, ATF_WTF_FLOAT32);
    assert_int_equal(d.args[2].array, 1);
    assert_int_equal(d.args[3].type, ATF_WTF_WCHAR);
    assert_int_equal(atf_wtf_parse_signature("", 0, &d, names, sizeof names, &e), ATF_OK);
    assert_int_equal(d.arg_count, 0);
    const char *bad[] = { "uint64 x", "uint32", "uint32 n n2", "uint32 n, uint8 n", "uint32 n,", "int8[ x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(atf_wtf_parse_signature(bad[i], strlen(bad[i]), &d, names, sizeof names, &e), ATF_E_FIELD);
    char many[2048] = "";
    for (int i = 0; i < 65; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%suint8 a%d", i ? ", " : "", i);
    char big[2048];
    assert_int_equal(atf_wtf_parse_signature(many, strlen(many), &d, big, sizeof big, &e), ATF_E_LIMIT);
}

static void test_strings(void **state)
{
    (void)state;
    atf_wtf_strings st;
    atf_error e;
    const char t[] = "a\0\0bc\0d";
    assert_int_equal(atf_wtf_strings_init(&st, t, sizeof t - 1, &e), ATF_OK);
    assert_int_equal(st.count, 3);
    assert_int_equal(st.unterminated, 1);
    const char *s;
    uint32_t n;
    assert_int_equal(atf_wtf_strings_get(&st, 2, &s, &n), ATF_OK);
    assert_string_equal(s, "bc");
    assert_int_equal(n, 2);
    assert_int_equal(atf_wtf_strings_get(&st, 1, &s, &n), ATF_OK);
    assert_int_equal(n, 0);
    assert_int_equal(atf_wtf_strings_get(&st, 3, &s, &n), ATF_E_RANGE);
    assert_int_equal(atf_wtf_strings_get(&st, ATF_WTF_STRING_NULL, &s, &n), ATF_OK);
    assert_null(s);
    assert_int_equal(atf_wtf_strings_get(&st, ATF_WTF_STRING_EMPTY, &s, &n), ATF_OK);
    assert_string_equal(s, "");
    atf_wtf_strings_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_header),
        cmocka_unit_test(test_chunk_parse),
        cmocka_unit_test(test_signature),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
