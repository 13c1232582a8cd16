/* The map from 64-bit keys to dense indexes (formats/common/src/u64map.c),
 * which the tools' function tables (export, report) are built on. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "u64map.h"

static void test_empty_map_finds_nothing(void **state)
{
    (void)state;
    atf_u64map m = ATF_U64MAP_INIT;
    assert_int_equal(atf_u64map_find(&m, 0), -1);
    assert_int_equal(atf_u64map_find(&m, UINT64_MAX), -1);
    atf_u64map_clear(&m);   /* nothing allocated: still fine */
    atf_u64map_free(&m);
    assert_int_equal(m.count, 0);
}

/* Indexes in order of insertion; an old key gives its index back; keys 0 and
 * UINT64_MAX are keys like any other. */
static void test_dense_indexes_in_insertion_order(void **state)
{
    (void)state;
    atf_u64map m = ATF_U64MAP_INIT;
    int added = -1;
    assert_int_equal(atf_u64map_put(&m, 0, &added), 0);
    assert_int_equal(added, 1);
    assert_int_equal(atf_u64map_put(&m, UINT64_MAX, &added), 1);
    assert_int_equal(added, 1);
    assert_int_equal(atf_u64map_put(&m, 42, NULL), 2);
    assert_int_equal(atf_u64map_put(&m, 0, &added), 0);
    assert_int_equal(added, 0);
    assert_int_equal(atf_u64map_put(&m, UINT64_MAX, &added), 1);
    assert_int_equal(added, 0);
    assert_int_equal(m.count, 3);
    assert_int_equal(atf_u64map_find(&m, 42), 2);
    assert_int_equal(atf_u64map_find(&m, 43), -1);
    atf_u64map_free(&m);
}

/* Through many growths, with keys that share their low bits (ids that are
 * addresses: multiples of 4096), every key keeps its index and the map is
 * never more than half full. */
static void test_growth_keeps_indexes(void **state)
{
    (void)state;
    enum { N = 100000 };
    atf_u64map m = ATF_U64MAP_INIT;
    for (uint64_t i = 0; i < N; i++) {
        int added = 0;
        assert_int_equal(atf_u64map_put(&m, 0x400000u + i * 4096u, &added), (int64_t)i);
        assert_int_equal(added, 1);
        assert_true(m.count * 2 <= m.cap);
        assert_int_equal(m.cap & (m.cap - 1), 0);
    }
    for (uint64_t i = 0; i < N; i++)
        assert_int_equal(atf_u64map_find(&m, 0x400000u + i * 4096u), (int64_t)i);
    assert_int_equal(atf_u64map_find(&m, 0x400000u + 1), -1);
    assert_int_equal(atf_u64map_find(&m, 0x400000u + (uint64_t)N * 4096u), -1);
    atf_u64map_free(&m);
    assert_null(m.slots);
    assert_int_equal(m.cap, 0);
}

/* Clear empties the map and keeps its memory; indexes start at 0 again. */
static void test_clear_starts_again(void **state)
{
    (void)state;
    atf_u64map m = ATF_U64MAP_INIT;
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(atf_u64map_put(&m, i * 7, NULL), (int64_t)i);
    size_t cap = m.cap;
    atf_u64map_clear(&m);
    assert_int_equal(m.count, 0);
    assert_int_equal(m.cap, cap);
    assert_int_equal(atf_u64map_find(&m, 7), -1);
    assert_int_equal(atf_u64map_put(&m, 7 * 999, NULL), 0);
    assert_int_equal(atf_u64map_put(&m, 7, NULL), 1);
    assert_int_equal(atf_u64map_find(&m, 0), -1);
    atf_u64map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_map_finds_nothing),
        cmocka_unit_test(test_dense_indexes_in_insertion_order),
        cmocka_unit_test(test_growth_keeps_indexes),
        cmocka_unit_test(test_clear_starts_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
