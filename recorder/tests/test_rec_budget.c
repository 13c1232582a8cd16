/* Tests for rec_budget.c: what each kind of take may use (growth stops at
 * REC_GROW_SHARE eighths, a floor may use the whole limit, a forced take
 * goes beyond it), the peak, a busy thread's share, and the count staying
 * exact under threads taking and giving back at once. */
#include "rec_test_util.h"

#include <pthread.h>

#include "rec_budget.h"

static void test_take_kinds(void **state)
{
    (void)state;
    rec_budget b;
    memset(&b, 0, sizeof b);
    b.limit = 8000;
    /* Growth: up to 7/8 of the limit (7000). */
    assert_int_equal(rec_budget_take(&b, 6000, REC_TAKE_GROW), 1);
    assert_int_equal(rec_budget_take(&b, 1001, REC_TAKE_GROW), 0);
    assert_int_equal(atomic_load(&b.used), 6000);
    assert_int_equal(rec_budget_take(&b, 1000, REC_TAKE_GROW), 1);
    assert_int_equal(rec_budget_take(&b, 1, REC_TAKE_GROW), 0);
    /* A floor may use the rest of the limit, not more. */
    assert_int_equal(rec_budget_take(&b, 1001, REC_TAKE_FLOOR), 0);
    assert_int_equal(rec_budget_take(&b, 1000, REC_TAKE_FLOOR), 1);
    assert_int_equal(rec_budget_take(&b, 1, REC_TAKE_FLOOR), 0);
    /* Forced: beyond the limit; then nothing else fits until given back. */
    assert_int_equal(rec_budget_take(&b, 500, REC_TAKE_FORCE), 1);
    assert_int_equal(atomic_load(&b.used), 8500);
    assert_int_equal(rec_budget_take(&b, 1, REC_TAKE_FLOOR), 0);
    assert_int_equal(atomic_load(&b.peak), 8500);
    rec_budget_give(&b, 8500);
    assert_int_equal(atomic_load(&b.used), 0);
    assert_int_equal(atomic_load(&b.peak), 8500);   /* the peak stays */
    /* A take larger than the cap itself never wraps around. */
    assert_int_equal(rec_budget_take(&b, UINT64_MAX, REC_TAKE_FLOOR), 0);
    assert_int_equal(atomic_load(&b.used), 0);
}

static void test_share(void **state)
{
    (void)state;
    rec_budget b;
    memset(&b, 0, sizeof b);
    b.limit = 64u << 20;
    uint64_t grow = b.limit / 8 * REC_GROW_SHARE;
    /* Nobody grew: half the growth budget (for the one joining, or alone). */
    assert_int_equal(rec_budget_share(&b, 0), grow / 2);
    assert_int_equal(rec_budget_share(&b, 1), grow / 2);
    atomic_store(&b.grown, 3);
    assert_int_equal(rec_budget_share(&b, 0), grow / 2 / 3);
    assert_int_equal(rec_budget_share(&b, 1), grow / 2 / 4);
    /* Never under the minimum, however many threads share it. */
    atomic_store(&b.grown, 100000);
    assert_int_equal(rec_budget_share(&b, 0), REC_SHARE_MIN);
}

#define BT_THREADS 4
#define BT_ROUNDS 20000
typedef struct bt_arg {
    rec_budget *b;
    uint64_t seed;
    uint64_t taken, refused;
} bt_arg;

static void *bt_main(void *p)
{
    bt_arg *a = p;
    uint64_t held[8] = { 0 };
    for (unsigned i = 0; i < BT_ROUNDS; i++) {
        unsigned slot = (unsigned)(rt_rand(&a->seed) % 8);
        if (held[slot]) {
            rec_budget_give(a->b, held[slot]);
            held[slot] = 0;
            continue;
        }
        uint64_t n = 1 + rt_rand(&a->seed) % 300;
        if (rec_budget_take(a->b, n, (int)(rt_rand(&a->seed) % 2))) {
            held[slot] = n;
            a->taken++;
        } else {
            a->refused++;
        }
    }
    for (unsigned s = 0; s < 8; s++)
        rec_budget_give(a->b, held[s]);
    return NULL;
}

/* Threads take (growth or floor) and give back at random against a small
 * limit: the count returns to exactly zero and the peak never passed the
 * limit (no forced takes here). */
static void test_threads_exact(void **state)
{
    (void)state;
    rec_budget b;
    memset(&b, 0, sizeof b);
    b.limit = 4000;
    pthread_t th[BT_THREADS];
    bt_arg a[BT_THREADS];
    for (int i = 0; i < BT_THREADS; i++) {
        a[i] = (bt_arg){ &b, 1000u + (uint64_t)i, 0, 0 };
        assert_int_equal(pthread_create(&th[i], NULL, bt_main, &a[i]), 0);
    }
    uint64_t taken = 0, refused = 0;
    for (int i = 0; i < BT_THREADS; i++) {
        pthread_join(th[i], NULL);
        taken += a[i].taken;
        refused += a[i].refused;
    }
    assert_int_equal(atomic_load(&b.used), 0);
    assert_true(atomic_load(&b.peak) <= b.limit);
    assert_true(atomic_load(&b.peak) > 0);
    assert_true(taken > 0);
    (void)refused;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_kinds),
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_threads_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
