/* Tests for proc.c: exit codes, arguments passed verbatim, crashes (direct
 * and reported by the shell as 128+N), time limits that kill the whole
 * process group, bounded capture of stdout/stderr, large output through a
 * sink, stdin from /dev/null, and the one-line descriptions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_internal.h"

static void test_exit_codes(void **state)
{
    (void)state;
    kit_proc_result r;
    assert_int_equal(kit_proc_run("exit 0", NULL, 0, 10, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(kit_proc_run("exit 3", NULL, 0, 10, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);
    assert_int_equal(r.exit_code, 3);
    char d[128];
    kit_proc_describe(&r, d, sizeof d);
    assert_string_equal(d, "exit 3");
    /* A command that does not exist: the shell says 127. */
    assert_int_equal(kit_proc_run("/nonexistent/command-xyz", NULL, 0, 10, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);
    assert_int_equal(r.exit_code, 127);
    assert_true(r.err_total > 0);
}

static void test_arguments(void **state)
{
    (void)state;
    const char *args[3] = { "a b", "it's \"quoted\" $HOME", "" };
    kit_proc_result r;
    assert_int_equal(kit_proc_run("printf '[%s]'", args, 3, 10, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);
    assert_string_equal(r.out_head, "[a b][it's \"quoted\" $HOME][]");
    assert_int_equal(r.out_total, strlen(r.out_head));
}

static void test_signals(void **state)
{
    (void)state;
    kit_proc_result r;
    /* The shell itself is killed. */
    assert_int_equal(kit_proc_run("kill -SEGV $$", NULL, 0, 10, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_SIGNALED);
    assert_int_equal(r.signal, SIGSEGV);
    assert_int_equal(r.signal_via_shell, 0);
    char d[128];
    kit_proc_describe(&r, d, sizeof d);
    assert_string_equal(d, "signal 11 (SIGSEGV)");
    /* A child of the shell is killed: sh reports 128+N. */
    assert_int_equal(kit_proc_run("sh -c 'kill -ABRT $$'; exit $?", NULL, 0, 10, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_SIGNALED);
    assert_int_equal(r.signal, SIGABRT);
    assert_int_equal(r.signal_via_shell, 1);
}

static void test_timeout(void **state)
{
    (void)state;
    kit_proc_result r;
    /* The background sleep holds the pipes open: the whole group must die. */
    assert_int_equal(kit_proc_run("sleep 30 & sleep 30", NULL, 0, 0.3, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_TIMEOUT);
    assert_true(r.seconds >= 0.25 && r.seconds < 10);
    char d[128];
    kit_proc_describe(&r, d, sizeof d);
    assert_non_null(strstr(d, "timed out after"));
    /* A command that ends but leaves a process holding its output: not a
     * time-out; the straggler is killed after a short grace period. */
    double t0 = kit_now();
    assert_int_equal(kit_proc_run("sleep 30 & echo done", NULL, 0, 20, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out_head, "done\n");
    assert_true(kit_now() - t0 < 10);
    /* A child that closes its output but keeps running is still timed out. */
    assert_int_equal(kit_proc_run("exec >/dev/null 2>&1; sleep 30", NULL, 0, 0.3, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_TIMEOUT);
}

typedef struct sink_state {
    uint64_t bytes;
    int nonzero;
} sink_state;

static int count_sink(void *user, const void *data, size_t n)
{
    sink_state *s = user;
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        s->nonzero |= p[i] != 0;
    s->bytes += n;
    return 0;
}

static int stop_sink(void *user, const void *data, size_t n)
{
    (void)data;
    *(uint64_t *)user += n;
    return 1;   /* stop feeding after the first chunk; the kit keeps draining */
}

static void test_output(void **state)
{
    (void)state;
    kit_proc_result r;
    sink_state s = { 0, 0 };
    assert_int_equal(kit_proc_run("head -c 10000000 /dev/zero", NULL, 0, 60, count_sink, &s, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);
    assert_int_equal(s.bytes, 10000000);
    assert_int_equal(s.nonzero, 0);
    assert_int_equal(r.out_total, 10000000);
    uint64_t fed = 0;
    assert_int_equal(kit_proc_run("head -c 3000000 /dev/zero", NULL, 0, 60, stop_sink, &fed, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);   /* not blocked on a full pipe */
    assert_true(fed > 0 && fed < 3000000);
    assert_int_equal(r.out_total, 3000000);
    /* stderr: only the first KIT_PROC_HEAD bytes are kept, all are counted. */
    assert_int_equal(kit_proc_run("head -c 100000 /dev/zero | tr '\\0' x >&2", NULL, 0, 60, NULL, NULL, &r), 0);
    assert_int_equal(r.err_total, 100000);
    assert_int_equal(strlen(r.err_head), KIT_PROC_HEAD);
    /* stdin is /dev/null. */
    assert_int_equal(kit_proc_run("cat", NULL, 0, 10, NULL, NULL, &r), 0);
    assert_int_equal(r.state, KIT_PROC_EXITED);
    assert_int_equal(r.out_total, 0);
}

/* Several commands at once from one thread: each gets its own result. */
static void test_concurrent(void **state)
{
    (void)state;
    static const char *cmds[5] = { "echo zero; exit 0", "sleep 0.3; echo one; exit 1", "kill -TERM $$",
                                   "sleep 30", "head -c 200000 /dev/zero | tr '\\0' y" };
    kit_proc p[5];
    kit_proc_result r[5];
    kit_proc *watch[6];
    for (int i = 0; i < 5; i++) {
        assert_int_equal(kit_proc_start(&p[i], cmds[i], NULL, 0, i == 3 ? 0.5 : 20, NULL, NULL, &r[i]), 0);
        watch[i] = &p[i];
    }
    watch[5] = NULL;   /* NULL entries are skipped */
    size_t ended = 0;
    double t0 = kit_now();
    while (ended < 5)
        ended += kit_proc_wait_any(watch, 6);
    assert_true(kit_now() - t0 < 10);
    assert_int_equal(kit_proc_wait_any(watch, 6), 0);   /* nothing left running */
    assert_int_equal(r[0].state, KIT_PROC_EXITED);
    assert_string_equal(r[0].out_head, "zero\n");
    assert_int_equal(r[1].state, KIT_PROC_EXITED);
    assert_int_equal(r[1].exit_code, 1);
    assert_string_equal(r[1].out_head, "one\n");
    assert_int_equal(r[2].state, KIT_PROC_SIGNALED);
    assert_int_equal(r[2].signal, SIGTERM);
    assert_int_equal(r[3].state, KIT_PROC_TIMEOUT);
    assert_int_equal(r[4].state, KIT_PROC_EXITED);
    assert_int_equal(r[4].out_total, 200000);
    /* A start that fails is done at once and needs no waiting. */
    kit_proc bad;
    kit_proc_result br;
    assert_int_equal(kit_proc_start(&bad, "", NULL, 0, 1, NULL, NULL, &br), -1);
    assert_int_equal(bad.done, 1);
    assert_int_equal(br.state, KIT_PROC_SPAWN_FAILED);
}

static void test_bad_command(void **state)
{
    (void)state;
    kit_proc_result r;
    assert_int_equal(kit_proc_run("", NULL, 0, 10, NULL, NULL, &r), -1);
    assert_int_equal(r.state, KIT_PROC_SPAWN_FAILED);
    char d[300];
    kit_proc_describe(&r, d, sizeof d);
    assert_non_null(strstr(d, "could not run"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_output),
        cmocka_unit_test(test_concurrent),
        cmocka_unit_test(test_bad_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
