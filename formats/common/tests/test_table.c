/* The zeroed tables readers index sparsely (formats/common/src/table.c):
 * small ones from the heap, large ones mapped; either way zeroed, writable
 * end to end, aligned, and zeroed again when a freed one is replaced. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common.h"

static void check_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            fail_msg("byte %zu of %zu is %u", i, n, p[i]);
}

static void check_table(size_t n, size_t size)
{
    /* Twice: the second table may reuse what the first, written all over
     * and freed, left. */
    for (int round = 0; round < 2; round++) {
        uint8_t *t = (uint8_t *)atf_table_new(n, size);
        assert_non_null(t);
        assert_int_equal((uintptr_t)t % 16, 0);
        check_zero(t, n * size);
        memset(t, 0xA5, n * size);
        assert_int_equal(t[0], 0xA5);
        assert_int_equal(t[n * size - 1], 0xA5);
        atf_table_free(t);
    }
}

static void test_small_tables(void **state)
{
    (void)state;
    check_table(1, 1);
    check_table(100, 4);
    check_table(8192, 1);   /* a WTF reader's zone bits */
}

static void test_large_tables(void **state)
{
    (void)state;
    check_table(65536, 8);    /* a WTF reader's definitions */
    check_table(65536, 32);   /* its plans */
    check_table(65537, 4);    /* its depths: not a multiple of a page */
}

static void test_overflow_and_null(void **state)
{
    (void)state;
    assert_null(atf_table_new(SIZE_MAX / 2, 4));
    assert_null(atf_table_new(SIZE_MAX, 1));
    atf_table_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_tables),
        cmocka_unit_test(test_large_tables),
        cmocka_unit_test(test_overflow_and_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
