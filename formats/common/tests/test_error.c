/* Tests for error.c: status names and strings, atf_error_format, the
 * internal atf_fail/atf_error_* helpers and the version query. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <atf/error.h>
#include <atf/version.h>

#include "common.h"

/* Written out by hand (not generated from ATF_STATUS_LIST): the values are
 * frozen, so a renumbering or a renaming must make this test fail. */
static const struct {
    atf_status code;
    int value;
    const char *name;
    const char *text;
} expected[] = {
    { ATF_OK, 0, "ATF_OK", "success" },
    { ATF_E_IO, 1, "ATF_E_IO", "I/O error" },
    { ATF_E_NOMEM, 2, "ATF_E_NOMEM", "out of memory" },
    { ATF_E_ARG, 3, "ATF_E_ARG", "invalid argument" },
    { ATF_E_TRUNCATED, 4, "ATF_E_TRUNCATED", "input is shorter than the structure" },
    { ATF_E_MAGIC, 5, "ATF_E_MAGIC", "bad magic" },
    { ATF_E_ENDIAN, 6, "ATF_E_ENDIAN", "unsupported byte order" },
    { ATF_E_VERSION, 7, "ATF_E_VERSION", "unsupported format version (layout)" },
    { ATF_E_FIELD, 8, "ATF_E_FIELD", "field value out of range" },
    { ATF_E_OFFSET, 9, "ATF_E_OFFSET", "offset outside the file" },
    { ATF_E_LENGTH, 10, "ATF_E_LENGTH", "bad length" },
    { ATF_E_CHECKSUM, 11, "ATF_E_CHECKSUM", "checksum mismatch" },
    { ATF_E_COUNT, 12, "ATF_E_COUNT", "count disagrees with the file size" },
    { ATF_E_RANGE, 13, "ATF_E_RANGE", "sequence number out of range" },
    { ATF_E_NOT_FOUND, 14, "ATF_E_NOT_FOUND", "not found" },
    { ATF_E_MANIFEST, 15, "ATF_E_MANIFEST", "invalid manifest" },
    { ATF_E_LAYOUT, 16, "ATF_E_LAYOUT", "layouts of one thread disagree" },
    { ATF_E_STATE, 17, "ATF_E_STATE", "operation not allowed in this state" },
    { ATF_E_UNSUPPORTED, 18, "ATF_E_UNSUPPORTED", "unsupported" },
    { ATF_E_LINK, 19, "ATF_E_LINK", "cross-lane link is broken" },
    { ATF_E_LIMIT, 20, "ATF_E_LIMIT", "value exceeds an implementation limit" },
    { ATF_E_DAMAGED, 21, "ATF_E_DAMAGED", "part of the input is damaged or unreadable; the rest was read" },
};
#define N_EXPECTED (sizeof expected / sizeof expected[0])

static void test_every_status_has_name_and_text(void **state)
{
    (void)state;
    /* The table covers the whole enum, and nothing else. */
    assert_int_equal((int)ATF_STATUS_COUNT_, (int)N_EXPECTED);
    for (size_t i = 0; i < N_EXPECTED; i++) {
        assert_int_equal((int)expected[i].code, expected[i].value);
        assert_string_equal(atf_status_name(expected[i].code), expected[i].name);
        assert_string_equal(atf_strerror(expected[i].code), expected[i].text);
    }
}

static void test_texts_are_distinct(void **state)
{
    (void)state;
    for (int a = 0; a < (int)ATF_STATUS_COUNT_; a++) {
        const char *ta = atf_strerror((atf_status)a);
        assert_non_null(ta);
        assert_true(ta[0] != '\0');
        assert_string_not_equal(ta, "unknown status");
        assert_string_not_equal(atf_status_name((atf_status)a), "ATF_E_?");
        for (int b = a + 1; b < (int)ATF_STATUS_COUNT_; b++) {
            assert_string_not_equal(ta, atf_strerror((atf_status)b));
            assert_string_not_equal(atf_status_name((atf_status)a), atf_status_name((atf_status)b));
        }
    }
}

static void test_unknown_status(void **state)
{
    (void)state;
    const int unknown[] = { -1, (int)ATF_STATUS_COUNT_, 22, 1000, -2147483647 - 1 };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_string_equal(atf_strerror((atf_status)unknown[i]), "unknown status");
        assert_string_equal(atf_status_name((atf_status)unknown[i]), "ATF_E_?");
    }
}

static atf_error make_error(atf_status code, const char *file, uint64_t offset, const char *field,
                            const char *message)
{
    atf_error e;
    memset(&e, 0, sizeof e);
    e.code = code;
    e.offset = offset;
    e.field = field;
    snprintf(e.file, sizeof e.file, "%s", file);
    snprintf(e.message, sizeof e.message, "%s", message);
    return e;
}

static void test_format_all_parts(void **state)
{
    (void)state;
    char buf[512];
    atf_error e = make_error(ATF_E_MAGIC, "t/index.atf", 12, "magic", "magic is \"XXXX\"");
    size_t n = atf_error_format(buf, sizeof buf, &e);
    assert_string_equal(buf, "t/index.atf: offset 12: field magic: magic is \"XXXX\"");
    assert_int_equal(n, strlen(buf));
}

static void test_format_parts_left_out(void **state)
{
    (void)state;
    char buf[512];
    atf_error e;

    e = make_error(ATF_E_MAGIC, "", 12, "magic", "bad");
    atf_error_format(buf, sizeof buf, &e);
    assert_string_equal(buf, "offset 12: field magic: bad");

    e = make_error(ATF_E_MAGIC, "f", ATF_NO_OFFSET, "magic", "bad");
    atf_error_format(buf, sizeof buf, &e);
    assert_string_equal(buf, "f: field magic: bad");

    e = make_error(ATF_E_MAGIC, "f", 0, NULL, "bad");
    atf_error_format(buf, sizeof buf, &e);
    assert_string_equal(buf, "f: offset 0: bad");

    e = make_error(ATF_E_MAGIC, "", ATF_NO_OFFSET, NULL, "bad");
    atf_error_format(buf, sizeof buf, &e);
    assert_string_equal(buf, "bad");

    /* An empty message falls back to the status text. */
    e = make_error(ATF_E_CHECKSUM, "f", ATF_NO_OFFSET, NULL, "");
    size_t n = atf_error_format(buf, sizeof buf, &e);
    assert_string_equal(buf, "f: checksum mismatch");
    assert_int_equal(n, strlen("f: checksum mismatch"));

    /* u64 offsets are printed exactly. */
    e = make_error(ATF_E_OFFSET, "", UINT64_MAX - 1, NULL, "x");
    atf_error_format(buf, sizeof buf, &e);
    assert_string_equal(buf, "offset 18446744073709551614: x");
}

/* Every capacity gives the longest prefix that fits, NUL-terminated, and
 * returns its length; nothing is written past dst_cap. */
static void test_format_truncation(void **state)
{
    (void)state;
    char full[512], buf[600];
    atf_error e = make_error(ATF_E_FIELD, "dir/thread_3/detail.atf", 123456, "stack_size",
                             "stack_size is 300, at most 256");
    size_t full_len = atf_error_format(full, sizeof full, &e);
    assert_int_equal(full_len, strlen(full));
    assert_true(full_len > 40);
    for (size_t cap = 1; cap <= full_len + 4; cap++) {
        memset(buf, '#', sizeof buf);
        size_t n = atf_error_format(buf, cap, &e);
        size_t want = full_len < cap - 1 ? full_len : cap - 1;
        assert_int_equal(n, want);
        assert_int_equal(strlen(buf), want);
        assert_memory_equal(buf, full, want);
        for (size_t k = cap; k < sizeof buf; k++)
            assert_int_equal(buf[k], '#');
    }
}

static void test_format_degenerate_arguments(void **state)
{
    (void)state;
    char buf[8];
    atf_error e = make_error(ATF_E_IO, "f", 1, NULL, "m");
    memset(buf, '#', sizeof buf);
    assert_int_equal(atf_error_format(buf, 0, &e), 0);
    assert_int_equal(buf[0], '#');
    assert_int_equal(atf_error_format(NULL, 8, &e), 0);
    memset(buf, '#', sizeof buf);
    assert_int_equal(atf_error_format(buf, sizeof buf, NULL), 0);
    assert_int_equal(buf[0], '\0');
}

static void test_fail_fills_error(void **state)
{
    (void)state;
    atf_error e;
    atf_error_clear(&e);
    assert_int_equal(e.code, ATF_OK);
    assert_true(e.offset == ATF_NO_OFFSET);
    assert_null(e.field);
    assert_string_equal(e.file, "");
    assert_string_equal(e.message, "");

    assert_int_equal(atf_fail(&e, ATF_E_COUNT, 40, "footer.event_count", "claims %d events", 7), ATF_E_COUNT);
    assert_int_equal(e.code, ATF_E_COUNT);
    assert_int_equal(e.offset, 40);
    assert_string_equal(e.field, "footer.event_count");
    assert_string_equal(e.message, "claims 7 events");

    /* No format: the message is the status text. */
    assert_int_equal(atf_fail(&e, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL), ATF_E_NOMEM);
    assert_string_equal(e.message, "out of memory");
    assert_null(e.field);

    /* NULL err is allowed and still returns the code. */
    assert_int_equal(atf_fail(NULL, ATF_E_RANGE, 0, NULL, "x"), ATF_E_RANGE);

    atf_error_set_file(&e, "a/b.atf");
    assert_string_equal(e.file, "a/b.atf");
    atf_error_set_file(&e, NULL); /* leaves it */
    assert_string_equal(e.file, "a/b.atf");
    atf_error_set_file(NULL, "x");

    /* Over-long file names and messages are truncated, NUL-terminated. */
    char longname[1000];
    memset(longname, 'p', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    atf_error_set_file(&e, longname);
    assert_int_equal(strlen(e.file), sizeof e.file - 1);
    atf_fail(&e, ATF_E_IO, 0, NULL, "%s", longname);
    assert_int_equal(strlen(e.message), sizeof e.message - 1);

    atf_error_clear(&e);
    assert_string_equal(e.file, "");
    assert_true(e.offset == ATF_NO_OFFSET);
    atf_error_clear(NULL);
}

/* atf_fail_file(): an error about a whole file replaces what err held. */
static void test_fail_file_clears_then_names_the_file(void **state)
{
    (void)state;
    atf_error e;
    atf_fail(&e, ATF_E_COUNT, 40, "footer.event_count", "claims %d events", 7);
    atf_error_set_file(&e, "old.atf");
    assert_int_equal(atf_fail_file(&e, ATF_E_IO, "dir/x", "cannot read directory: %s", "Permission denied"),
                     ATF_E_IO);
    assert_int_equal(e.code, ATF_E_IO);
    assert_true(e.offset == ATF_NO_OFFSET);
    assert_null(e.field);
    assert_string_equal(e.file, "dir/x");
    assert_string_equal(e.message, "cannot read directory: Permission denied");

    /* No file: none (not the old one); no format: the status text; control
     * characters of the message escaped, as atf_fail() does. */
    assert_int_equal(atf_fail_file(&e, ATF_E_NOMEM, NULL, NULL), ATF_E_NOMEM);
    assert_string_equal(e.file, "");
    assert_string_equal(e.message, "out of memory");
    atf_fail_file(&e, ATF_E_NOT_FOUND, "a", "%s", "line\nbreak\x1b");
    assert_string_equal(e.message, "line\\nbreak\\x1b");
    assert_int_equal(atf_fail_file(NULL, ATF_E_ARG, "a", NULL), ATF_E_ARG);
}

static void test_version(void **state)
{
    (void)state;
    assert_int_equal(atf_version_number(), ATF_VERSION_NUMBER);
    assert_string_equal(atf_version_string(), ATF_VERSION_STRING);
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", ATF_VERSION_MAJOR, ATF_VERSION_MINOR, ATF_VERSION_PATCH);
    assert_string_equal(atf_version_string(), v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_status_has_name_and_text),
        cmocka_unit_test(test_texts_are_distinct),
        cmocka_unit_test(test_unknown_status),
        cmocka_unit_test(test_format_all_parts),
        cmocka_unit_test(test_format_parts_left_out),
        cmocka_unit_test(test_format_truncation),
        cmocka_unit_test(test_format_degenerate_arguments),
        cmocka_unit_test(test_fail_fills_error),
        cmocka_unit_test(test_fail_file_clears_then_names_the_file),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
