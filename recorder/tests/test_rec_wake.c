/* rec_wake.c: sleeping on a 32-bit word and waking its sleeper. No test
 * here depends on how long a sleep lasts, only on whether it ends: a wait
 * on a word that no longer holds the value returns at once, a wake ends a
 * wait long before its timeout, and an unwoken wait ends by its timeout. */
#include <pthread.h>

#include "rec_test_util.h"
#include "rec_wake.h"

/* Far longer than any scheduling delay; a wait that is really woken or
 * refused ends orders of magnitude sooner. */
#define LONG_NS (20ull * 1000000000ull)
#define SOON_NS (10ull * 1000000000ull)

static void test_wait_on_a_changed_word_returns(void **state)
{
    (void)state;
    _Atomic uint32_t word = 5;
    uint64_t t0 = rt_now_ns();
    rec_wait32(&word, 4, LONG_NS);   /* the word is not 4: no sleep */
    assert_true(rt_now_ns() - t0 < SOON_NS);
}

static void test_unwoken_wait_ends_by_its_timeout(void **state)
{
    (void)state;
    _Atomic uint32_t word = 1;
    uint64_t t0 = rt_now_ns();
    rec_wait32(&word, 1, 20000000u);   /* 20 ms, nobody wakes it */
    assert_true(rt_now_ns() - t0 < SOON_NS);
    assert_int_equal(atomic_load(&word), 1);
}

struct sleeper {
    _Atomic uint32_t word;
    _Atomic int asleep, woke;
    uint64_t slept_ns;
};

static void *sleep_main(void *arg)
{
    struct sleeper *s = arg;
    uint64_t t0 = rt_now_ns();
    atomic_store(&s->asleep, 1);
    /* The usual loop of a sleeper: sleep while the word holds what it saw. */
    while (atomic_load(&s->word) == 0)
        rec_wait32(&s->word, 0, LONG_NS);
    s->slept_ns = rt_now_ns() - t0;
    atomic_store(&s->woke, 1);
    return NULL;
}

static void test_wake_ends_a_sleep(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        struct sleeper s = { 0 };
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, sleep_main, &s), 0);
        while (!atomic_load(&s.asleep))
            rt_sleep_us(100);
        rt_sleep_us(round % 2 ? 2000 : 0);   /* asleep by now, or perhaps not yet */
        atomic_store(&s.word, 1);
        rec_wake32(&s.word);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_true(atomic_load(&s.woke));
        assert_true(s.slept_ns < SOON_NS);   /* not by the 20 s timeout */
    }
}

static void test_wake_without_a_sleeper(void **state)
{
    (void)state;
    _Atomic uint32_t word = 0;
    rec_wake32(&word);   /* nobody waits: nothing happens */
    assert_int_equal(atomic_load(&word), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_on_a_changed_word_returns),
        cmocka_unit_test(test_unwoken_wait_ends_by_its_timeout),
        cmocka_unit_test(test_wake_ends_a_sleep),
        cmocka_unit_test(test_wake_without_a_sleeper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
