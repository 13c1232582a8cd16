/* Crash safety: a child process records from three threads (function_id =
 * tag << 32 | per-thread counter) and is killed with SIGKILL at a random
 * moment, many times; index-only, with a detail lane always on, and with
 * the detail windows toggling (pre-roll links being patched). After every
 * kill the session must open with the codec, pass the structural checks of
 * `atf validate` (warnings for missing footers only), and every recovered
 * thread file must be an exact prefix of what its thread produced: counters
 * 0, 1, 2, ... with no gap, no duplicate and no foreign event; every
 * recovered detail event must carry its index event's payload.
 *
 * ATF_REC_CRASH_ITERS sets the number of kills (default 40; 12 in sanitizer
 * builds). */
#include "rec_test_util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/wait.h>

enum { MODE_INDEX = 0, MODE_DETAIL = 1, MODE_TOGGLE = 2, MODES = 3 };

typedef struct crash_thread {
    atf_recorder *r;
    uint64_t tag;
    int detail;
    unsigned burst;
} crash_thread;

static void *crash_loop(void *p)
{
    crash_thread *a = p;
    for (uint64_t i = 0;; i++) {
        uint32_t kind = (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        uint64_t fid = a->tag << 32 | i;
        if (a->detail) {
            uint8_t payload[16];
            memcpy(payload, &fid, 8);
            memcpy(payload + 8, &i, 8);
            atf_recorder_event_detail(a->r, kind, fid, (uint16_t)(3 + (i & 1)), payload, sizeof payload);
        } else {
            atf_recorder_event(a->r, kind, fid);
        }
        if (i % a->burst == 0)
            rt_sleep_us(100);
    }
    return NULL;
}

static void child(const char *dir, int mode, uint64_t seed, int ready_fd)
{
    /* Never outlive the test: die with the parent, and after 20 s anyway. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        _exit(5);
    alarm(20);
    atf_recorder_options o = rt_options(dir);
    o.io_chunk_bytes = 64u << 10;
    o.io_chunks = 4;
    o.flush_interval_ms = 3;
    o.ring_events = 4096;
    o.publish_batch = 1 + (unsigned)(seed % 32);
    if (mode != MODE_INDEX) {
        o.detail = 1;
        o.pre_roll_ns = 2000000u;
        o.post_roll_ns = 1000000u;
    }
    atf_recorder *r = NULL;
    if (atf_recorder_start(&r, &o, NULL) != ATF_OK)
        _exit(3);
    if (mode == MODE_DETAIL)
        atf_recorder_detail_enable(r, NULL);
    crash_thread a[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        a[i] = (crash_thread){ r, (uint64_t)i + 1, mode != MODE_INDEX, 16u << (i + (unsigned)(seed % 3)) };
        pthread_create(&th[i], NULL, crash_loop, &a[i]);
    }
    char c = 'r';
    if (write(ready_fd, &c, 1) != 1)
        _exit(4);
    for (unsigned k = 0;; k++) {
        rt_sleep_us(1500);
        if (mode == MODE_TOGGLE) {
            if (k % 2)
                atf_recorder_detail_disable(r, NULL);
            else
                atf_recorder_detail_enable(r, NULL);
        }
    }
}

typedef struct crash_totals {
    uint64_t events, detail, threads;
} crash_totals;

static void verify(const char *dir, int mode, crash_totals *tot)
{
    rt_check(dir, 1);
    atf_session *s = rt_open(dir);
    int seen[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < atf_session_thread_count(s); i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        uint64_t n = atf_index_reader_count(t->index), last_ts = 0, tag = 0;
        for (uint64_t k = 0; k < n; k++) {
            atf_index_event e;
            atf_index_reader_get(t->index, k, &e);
            if (k == 0) {
                tag = e.function_id >> 32;
                if (tag < 1 || tag > 3 || seen[tag]++)
                    fail_msg("%s: thread %zu: bad or repeated tag %llu", dir, i, (unsigned long long)tag);
            }
            if (e.function_id != (tag << 32 | k))
                fail_msg("%s: thread %zu event %llu: function_id %llx, expected %llx (not an exact prefix)", dir, i,
                         (unsigned long long)k, (unsigned long long)e.function_id,
                         (unsigned long long)(tag << 32 | k));
            if (e.event_kind != ((k & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL) || e.timestamp_ns < last_ts)
                fail_msg("%s: thread %zu event %llu: bad kind or timestamp", dir, i, (unsigned long long)k);
            last_ts = e.timestamp_ns;
        }
        tot->events += n;
        tot->threads++;
        if (!t->detail)
            continue;
        assert_true(mode != MODE_INDEX);
        uint64_t nd = atf_detail_reader_count(t->detail), prev = 0;
        for (uint64_t d = 0; d < nd; d++) {
            atf_detail_event de;
            atf_detail_reader_get(t->detail, d, &de);
            uint64_t fid, ctr;
            assert_int_equal(de.payload_size, 16);
            memcpy(&fid, de.payload, 8);
            memcpy(&ctr, de.payload + 8, 8);
            if (ctr != de.index_seq || (d && de.index_seq <= prev) || (tag && fid != (tag << 32 | ctr)))
                fail_msg("%s: thread %zu detail %llu: payload does not match index_seq %llu", dir, i,
                         (unsigned long long)d, (unsigned long long)de.index_seq);
            prev = de.index_seq;
        }
        tot->detail += nd;
    }
    atf_session_close(s);
}

static void test_sigkill_prefix(void **state)
{
    (void)state;
    const char *e = getenv("ATF_REC_CRASH_ITERS");
#if defined(ATF_REC_TEST_SMALL)
    unsigned iters = 12;
#else
    unsigned iters = 40;
#endif
    if (e && *e)
        iters = (unsigned)strtoul(e, NULL, 10);
    uint64_t seed = (uint64_t)rt_now_ns() | 1;
    print_message("seed %llu, %u kills\n", (unsigned long long)seed, iters);
    crash_totals tot[MODES];
    memset(tot, 0, sizeof tot);
    for (unsigned it = 0; it < iters; it++) {
        int mode = (int)(it % MODES);
        char dir[256];
        rt_mkdtemp(dir, sizeof dir, "crash");
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        uint64_t r = rt_rand(&seed);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child(dir, mode, r, fds[1]);
            _exit(0);
        }
        close(fds[1]);
        char c;
        ssize_t got;
        do
            got = read(fds[0], &c, 1);
        while (got < 0 && errno == EINTR);
        close(fds[0]);
        assert_int_equal(got, 1);
        /* Kill somewhere in the first 60 ms: sometimes before any chunk
         * was written, usually amid writes, flushes and patches. */
        rt_sleep_us((unsigned)(rt_rand(&seed) % 60000u));
        kill(pid, SIGKILL);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        verify(dir, mode, &tot[mode]);
        rt_rm_rf(dir);
    }
    print_message("recovered: index-only %llu events, detail %llu events + %llu detail, toggling %llu + %llu\n",
                  (unsigned long long)tot[0].events, (unsigned long long)tot[1].events,
                  (unsigned long long)tot[1].detail, (unsigned long long)tot[2].events,
                  (unsigned long long)tot[2].detail);
    /* The kills were not all before the first write. */
    assert_true(tot[MODE_INDEX].events > 0);
    assert_true(tot[MODE_DETAIL].detail > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigkill_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
