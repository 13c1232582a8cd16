/* The CPU count every default thread count starts from (parts.c): the
 * affinity mask, a cgroup v2 quota, never 0. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <unistd.h>

#include "common.h"

static void test_quota_text(void **state)
{
    (void)state;
    assert_int_equal(atf_cgroup_quota_cpus("max 100000\n"), 0);
    assert_int_equal(atf_cgroup_quota_cpus("max"), 0);
    assert_int_equal(atf_cgroup_quota_cpus("200000 100000\n"), 2);
    assert_int_equal(atf_cgroup_quota_cpus("150000 100000\n"), 2);   /* 1.5 CPUs: rounded up */
    assert_int_equal(atf_cgroup_quota_cpus("50000 100000"), 1);
    assert_int_equal(atf_cgroup_quota_cpus("100000 100000"), 1);
    assert_int_equal(atf_cgroup_quota_cpus("6400000 100000\n"), 64);
    /* Not a quota: no limit. */
    assert_int_equal(atf_cgroup_quota_cpus(""), 0);
    assert_int_equal(atf_cgroup_quota_cpus(NULL), 0);
    assert_int_equal(atf_cgroup_quota_cpus("100000"), 0);
    assert_int_equal(atf_cgroup_quota_cpus("100000 0"), 0);
    assert_int_equal(atf_cgroup_quota_cpus("0 100000"), 0);
    assert_int_equal(atf_cgroup_quota_cpus("x 100000"), 0);
    assert_int_equal(atf_cgroup_quota_cpus("100000 100000 7"), 0);
}

/* The count follows the affinity mask (what taskset and a cpuset set). */
static void test_follows_affinity(void **state)
{
    (void)state;
    cpu_set_t all;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    unsigned n = atf_cpu_count();
    assert_true(n >= 1);
    assert_true(n <= (unsigned)CPU_COUNT(&all));
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    assert_true(online < 1 || n <= (unsigned)online);

    /* One CPU of the mask: 1. */
    int first = -1, second = -1;
    for (int c = 0; c < CPU_SETSIZE && second < 0; c++)
        if (CPU_ISSET(c, &all)) {
            if (first < 0)
                first = c;
            else
                second = c;
        }
    assert_true(first >= 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    assert_int_equal(atf_cpu_count(), 1);
    assert_int_equal(atf_part_count(0, (uint64_t)1 << 40, 1000, 64), 1);

    /* Two: 2 (or the cgroup's quota of 1). */
    if (second >= 0) {
        cpu_set_t two = one;
        CPU_SET(second, &two);
        assert_int_equal(sched_setaffinity(0, sizeof two, &two), 0);
        unsigned got = atf_cpu_count();
        assert_true(got == 2 || (got == 1 && n == 1));
    }
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    assert_int_equal(atf_cpu_count(), n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quota_text),
        cmocka_unit_test(test_follows_affinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
