/* Tests for recorder.c and the single-thread paths: the files a session
 * holds (both layouts, read back with the codec), call depth, the session
 * directory name, options and state errors, the manifest (anchors, symbols,
 * counters), thread exit and detach finalizing files, process exit
 * finalizing everything, fork leaving the parent's session intact, and the
 * memory accounting. */
#include "rec_test_util.h"

#include <dirent.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <regex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* Records n events: call, call, return, return, ... with function_id = i.
 * @return how many were not recorded (threads must not use cmocka asserts). */
static uint64_t record_pattern_n(atf_recorder *r, uint64_t n)
{
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t kind = (i % 4 < 2) ? ATF_EVENT_CALL : ATF_EVENT_RETURN;
        if (i % 97 == 96)
            kind = ATF_EVENT_EXCEPTION;
        bad += atf_recorder_event(r, kind, i) != ATF_OK;
    }
    return bad;
}

static void record_pattern(atf_recorder *r, uint64_t n)
{
    assert_int_equal(record_pattern_n(r, n), 0);
}

/* Checks the file holds exactly what record_pattern() wrote, depths included. */
static void check_pattern(const atf_session_thread *t, uint64_t n, atf_layout layout, uint32_t tid)
{
    assert_int_equal(atf_index_reader_count(t->index), n);
    const atf_index_info *in = atf_index_reader_info(t->index);
    assert_true(in->has_footer);
    assert_int_equal(in->layout, layout);
    assert_int_equal(in->checksum, ATF_CHECKSUM_CRC32C);
    const atf_index_header *h = atf_index_reader_header(t->index);
    assert_int_equal(h->clock_type, ATF_CLOCK_BOOTTIME);
    assert_int_equal(h->thread_id, tid);
    uint32_t depth = 0;
    uint64_t last_ts = 0;
    for (uint64_t i = 0; i < n; i++) {
        atf_index_event e;
        assert_int_equal(atf_index_reader_get(t->index, i, &e), ATF_OK);
        uint32_t kind = (i % 4 < 2) ? ATF_EVENT_CALL : ATF_EVENT_RETURN;
        if (i % 97 == 96)
            kind = ATF_EVENT_EXCEPTION;
        assert_int_equal(e.function_id, i);
        assert_int_equal(e.event_kind, kind);
        assert_true(e.detail_seq == ATF_NO_DETAIL);
        assert_true(e.timestamp_ns >= last_ts);
        last_ts = e.timestamp_ns;
        uint32_t expect = depth;
        if (kind == ATF_EVENT_CALL)
            depth++;
        else if (kind == ATF_EVENT_RETURN) {
            if (depth)
                depth--;
            expect = depth;
        }
        if (layout == ATF_LAYOUT_1) {
            assert_int_equal(e.call_depth, expect);
            assert_int_equal(e.thread_id, tid);
        }
    }
    assert_true(h->time_start_ns <= h->time_end_ns);
}

static void one_thread_session(atf_layout layout)
{
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "basic");
    atf_recorder_options o = rt_options(dir);
    o.layout = layout;
    atf_recorder *r = rt_start(&o);
    uint64_t before = rt_now_ns();
    uint64_t n = 100003;
    record_pattern(r, n);
    uint64_t after = rt_now_ns();
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    assert_int_equal(st.events_recorded, n);
    assert_int_equal(st.events_written, n);
    assert_int_equal(st.events_dropped, 0);
    assert_int_equal(st.threads, 1);
    atf_recorder_destroy(r);

    rt_check(dir, 0);
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_thread_count(s), 1);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    assert_int_equal(t->id, 0);
    assert_null(t->detail);
    check_pattern(t, n, layout, (uint32_t)syscall(SYS_gettid));
    /* Timestamps are of the declared clock (CLOCK_BOOTTIME). */
    atf_index_event e0, e1;
    atf_index_reader_get(t->index, 0, &e0);
    atf_index_reader_get(t->index, n - 1, &e1);
    assert_true(e0.timestamp_ns + 1000000u >= before && e1.timestamp_ns <= after + 1000000u);
    const atf_manifest *m = atf_session_manifest(s);
    assert_non_null(m);
    assert_int_equal(m->thread_count, 1);
    assert_int_equal(m->threads[0].has_detail, 0);
    assert_int_equal(m->events_dropped, 0);
    assert_true(m->has_clock_type && m->clock_type == ATF_CLOCK_BOOTTIME);
    assert_int_equal(m->time_start_ns, e0.timestamp_ns);
    assert_int_equal(m->time_end_ns, e1.timestamp_ns);
    atf_session_close(s);

    json_t *j = rt_manifest_json(dir);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "recorder"), "state")), "complete");
    assert_int_equal(rt_json_u64(j, "backpressure_waits", NULL), st.backpressure_waits);
    assert_int_equal(rt_json_u64(j, "recorder", "events_lost_at_stop", NULL), 0);
    json_t *t0 = json_array_get(json_object_get(j, "threads"), 0);
    assert_int_equal(rt_json_u64(t0, "event_count", NULL), n);
    assert_true(json_is_true(json_object_get(t0, "finalized")));
    json_decref(j);
    rt_rm_rf(dir);
}

static void test_layout2(void **state)
{
    (void)state;
    one_thread_session(ATF_LAYOUT_2);
}

static void test_layout1(void **state)
{
    (void)state;
    one_thread_session(ATF_LAYOUT_1);
}

/* Without session_dir: ROOT/session_YYYYMMDD_HHMMSS/pid_N; atf validate
 * accepts the session_* directory itself. */
static void test_session_dir_name(void **state)
{
    (void)state;
    char root[256], p[512];
    rt_mkdtemp(root, sizeof root, "root");
    atf_recorder_options o = rt_options(NULL);
    o.root = root;
    atf_recorder *r = rt_start(&o);
    const char *dir = atf_recorder_session_dir(r);
    regex_t re;
    char pat[400];
    snprintf(pat, sizeof pat, "^%s/session_[0-9]{8}_[0-9]{6}(_[0-9]+)?/pid_%d$", root, (int)getpid());
    assert_int_equal(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(regexec(&re, dir, 0, NULL, 0), 0);
    regfree(&re);
    assert_int_equal(atf_recorder_call(r, 7), ATF_OK);
    snprintf(p, sizeof p, "%s", dir);
    atf_recorder_destroy(r);
    *strrchr(p, '/') = '\0';   /* the session_* level */
    rt_check(p, 0);
    /* A second session in the same second gets another directory. */
    r = rt_start(&o);
    char first[600];
    snprintf(first, sizeof first, "%s/pid_%d", p, (int)getpid());
    assert_string_not_equal(atf_recorder_session_dir(r), first);
    atf_recorder_destroy(r);
    rt_rm_rf(root);
}

static void test_option_errors(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "opts");
    atf_recorder *r = NULL;
    atf_error err;
    atf_recorder_options o = rt_options(dir);
    o.layout = 3;
    assert_int_equal(atf_recorder_start(&r, &o, &err), ATF_E_ARG);
    assert_null(r);
    assert_string_equal(err.field, "layout");
    o = rt_options(dir);
    o.reserved[2] = 1;
    assert_int_equal(atf_recorder_start(&r, &o, &err), ATF_E_ARG);
    o = rt_options(dir);
    o.io_chunk_bytes = 5000;
    assert_int_equal(atf_recorder_start(&r, &o, &err), ATF_E_ARG);
    assert_string_equal(err.field, "io_chunk_bytes");
    o = rt_options(dir);
    o.publish_batch = o.ring_events;
    assert_int_equal(atf_recorder_start(&r, &o, &err), ATF_E_ARG);
    assert_int_equal(atf_recorder_start(NULL, &o, &err), ATF_E_ARG);
    /* A session directory that already holds files (a first session). */
    char used[256];
    rt_mkdtemp(used, sizeof used, "used");
    char marker[320];
    snprintf(marker, sizeof marker, "%s/thread_0", used);
    assert_int_equal(mkdir(marker, 0755), 0);
    o = rt_options(used);
    assert_int_equal(atf_recorder_start(&r, &o, &err), ATF_E_IO);
    assert_null(r);
    assert_non_null(strstr(err.message, "not empty"));
    assert_int_equal(rmdir(marker), 0);
    r = rt_start(&o);   /* empty: accepted */
    atf_recorder_destroy(r);
    rt_rm_rf(used);
    o = rt_options("/proc/self/cannot/create/this");
    assert_int_equal(atf_recorder_start(&r, &o, &err), ATF_E_IO);
    assert_non_null(strstr(err.file, "/proc/self"));

    /* One active recorder per process. */
    char dir2[256];
    rt_mkdtemp(dir2, sizeof dir2, "opts2");
    o = rt_options(dir);
    atf_recorder *a = rt_start(&o);
    atf_recorder_options o2 = rt_options(dir2);
    assert_int_equal(atf_recorder_start(&r, &o2, &err), ATF_E_STATE);
    /* Detail control without a detail lane. */
    assert_int_equal(atf_recorder_detail_enable(a, NULL), ATF_E_STATE);
    assert_int_equal(atf_recorder_event_detail(a, ATF_EVENT_CALL, 1, 3, "x", 1), ATF_E_STATE);
    assert_int_equal(atf_recorder_detail_capturing(a), 0);
    assert_int_equal(atf_recorder_event(a, 0, 1), ATF_E_ARG);
    assert_int_equal(atf_recorder_event(a, 4, 1), ATF_E_ARG);
    assert_int_equal(atf_recorder_event(NULL, 1, 1), ATF_E_STATE);
    assert_int_equal(atf_recorder_add_anchor(a, 0, 1, 0), ATF_E_ARG);
    atf_recorder_destroy(a);
    r = rt_start(&o2);   /* free again */
    atf_recorder_destroy(r);
    rt_rm_rf(dir);
    rt_rm_rf(dir2);
}

/* After stop: refused and counted, stop idempotent, no file changes. */
static void test_after_stop(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "after");
    atf_recorder_options o = rt_options(dir);
    atf_recorder *r = rt_start(&o);
    record_pattern(r, 1000);
    rt_stop(r);
    assert_int_equal(atf_recorder_call(r, 1), ATF_E_STATE);
    assert_int_equal(atf_recorder_return(r, 1), ATF_E_STATE);
    assert_int_equal(atf_recorder_stop(r, NULL), ATF_OK);
    assert_int_equal(atf_recorder_flush(r, 100), ATF_E_STATE);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    assert_int_equal(st.events_after_stop, 2);
    assert_int_equal(st.events_recorded, 1000);
    atf_recorder_destroy(r);
    rt_check(dir, 0);
    atf_session *s = rt_open(dir);
    check_pattern(atf_session_thread_at(s, 0), 1000, ATF_LAYOUT_2, (uint32_t)syscall(SYS_gettid));
    atf_session_close(s);
    rt_rm_rf(dir);
}

static void test_manifest_metadata(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "meta");
    atf_recorder_options o = rt_options(dir);
    atf_recorder *r = rt_start(&o);
    atf_manifest_module mod = { 1, 0x400000, 0x1000, "/usr/bin/demo", "abcd" };
    atf_manifest_symbol sym = { (1ull << 32) | 5, 1, 5, "main" };
    assert_int_equal(atf_recorder_add_module(r, &mod), ATF_OK);
    assert_int_equal(atf_recorder_add_symbol(r, &sym), ATF_OK);
    uint64_t t = atf_recorder_now_ns(r);
    assert_int_equal(atf_recorder_add_anchor(r, t, 48000, 48000), ATF_OK);
    assert_int_equal(atf_recorder_add_anchor(r, 0, -5, 1000), ATF_OK);
    assert_int_equal(atf_recorder_call(r, (1ull << 32) | 5), ATF_OK);
    rt_stop(r);
    atf_recorder_destroy(r);
    atf_session *s = rt_open(dir);
    const atf_manifest *m = atf_session_manifest(s);
    assert_string_equal(m->format_version, "2.1");
    assert_int_equal(m->module_count, 1);
    assert_string_equal(m->modules[0].path, "/usr/bin/demo");
    assert_string_equal(atf_manifest_symbol_name(m, (1ull << 32) | 5), "main");
    assert_int_equal(m->anchor_count, 2);
    assert_int_equal(m->anchors[0].host_time_ns, t);
    assert_int_equal(m->anchors[0].media_time_value, 48000);
    assert_int_equal(m->anchors[0].media_time_scale, 48000);
    assert_true(m->anchors[1].host_time_ns >= t);
    assert_int_equal(m->anchors[1].media_time_value, -5);
    atf_session_close(s);
    rt_check(dir, 0);
    rt_rm_rf(dir);
}

/* Options left at zero take the documented defaults, and the manifest
 * says which write size the session used. */
static void test_io_defaults(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "iodef");
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    o.session_dir = dir;
    o.sync = 0;
    atf_recorder *r = rt_start(&o);
    assert_int_equal(atf_recorder_call(r, 1), ATF_OK);
    rt_stop(r);
    atf_recorder_destroy(r);
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "recorder", "io_chunk_bytes", NULL), ATF_RECORDER_IO_CHUNK_BYTES);
    json_decref(j);
    rt_check(dir, 0);
    rt_rm_rf(dir);
}

/* ---- Threads leaving ----------------------------------------------------------- */

typedef struct worker_arg {
    atf_recorder *r;
    uint64_t n;
    int detach;
    _Atomic uint64_t failures;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *a = p;
    uint64_t bad = record_pattern_n(a->r, a->n);
    if (a->detach) {
        bad += atf_recorder_thread_detach(a->r) != ATF_OK;
        bad += atf_recorder_thread_detach(a->r) != ATF_E_STATE;
    }
    atomic_fetch_add(&a->failures, bad);
    return NULL;
}

/* Waits (up to 10 s) until thread_K/index.atf has its footer. */
static int wait_finalized(const char *dir, unsigned k)
{
    char p[512];
    rt_path(p, sizeof p, "%s/thread_%u/index.atf", dir, k);
    for (int i = 0; i < 10000; i++) {
        atf_index_reader *ir = NULL;
        if (rt_exists(p) && atf_index_reader_open(&ir, p, NULL, NULL) == ATF_OK) {
            int done = atf_index_reader_info(ir)->has_footer;
            atf_index_reader_close(ir);
            if (done)
                return 1;
        }
        rt_sleep_us(1000);
    }
    return 0;
}

/* A thread that exits, or detaches, gets its files finalized while the
 * session goes on; a detached thread that records again is a new thread. */
static void test_thread_exit_and_detach(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "exit");
    atf_recorder_options o = rt_options(dir);
    atf_recorder *r = rt_start(&o);
    assert_int_equal(atf_recorder_call(r, 1), ATF_OK);   /* main thread: thread_0 */
    worker_arg a = { r, 5000, 0, 0 };
    pthread_t th;
    pthread_create(&th, NULL, worker, &a);
    pthread_join(th, NULL);
    assert_true(wait_finalized(dir, 1));
    a.detach = 1;
    pthread_create(&th, NULL, worker, &a);
    pthread_join(th, NULL);
    assert_int_equal(atomic_load(&a.failures), 0);
    assert_true(wait_finalized(dir, 2));
    /* main detaches, then records again as thread_3 */
    assert_int_equal(atf_recorder_thread_detach(r), ATF_OK);
    assert_true(wait_finalized(dir, 0));
    assert_int_equal(atf_recorder_call(r, 2), ATF_OK);
    /* The files are closed before the thread's slot is released. */
    atf_recorder_stats st;
    for (int i = 0; i < 5000; i++) {
        atf_recorder_get_stats(r, &st);
        if (st.threads_live == 1)
            break;
        rt_sleep_us(1000);
    }
    assert_int_equal(st.threads, 4);
    assert_int_equal(st.threads_live, 1);
    rt_stop(r);
    atf_recorder_destroy(r);
    rt_check(dir, 0);
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_thread_count(s), 4);
    assert_int_equal(atf_index_reader_count(atf_session_thread_at(s, 0)->index), 1);
    assert_int_equal(atf_index_reader_count(atf_session_thread_at(s, 3)->index), 1);
    check_pattern(atf_session_thread_at(s, 1), 5000, ATF_LAYOUT_2, atf_index_reader_header(atf_session_thread_at(s, 1)->index)->thread_id);
    check_pattern(atf_session_thread_at(s, 2), 5000, ATF_LAYOUT_2, atf_index_reader_header(atf_session_thread_at(s, 2)->index)->thread_id);
    atf_session_close(s);
    rt_rm_rf(dir);
}

/* ---- Process exit and fork --------------------------------------------------------- */

/* A child that records and returns from "main" (exit) without stop(): the
 * atexit hook finalizes everything. */
static void test_process_exit_finalizes(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "atexit");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        atf_recorder_options o = rt_options(dir);
        atf_recorder *r = NULL;
        if (atf_recorder_start(&r, &o, NULL) != ATF_OK)
            _exit(3);
        worker_arg a = { r, 20000, 0, 0 };
        pthread_t th;
        pthread_create(&th, NULL, worker, &a);
        pthread_join(th, NULL);
        record_pattern(r, 777);
        exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rt_check(dir, 0);   /* no warnings: every file has its footer */
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_thread_count(s), 2);
    uint64_t total = atf_index_reader_count(atf_session_thread_at(s, 0)->index) +
                     atf_index_reader_count(atf_session_thread_at(s, 1)->index);
    assert_int_equal(total, 20777);
    atf_session_close(s);
    json_t *j = rt_manifest_json(dir);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "recorder"), "state")), "complete");
    json_decref(j);
    rt_rm_rf(dir);
}

/* LeakSanitizer, in a child forked from a multithreaded parent, reports
 * whatever the parent's other threads were holding at the fork as leaked;
 * this documented LSan hook turns the exit-time check off there. */
static int in_fork_child;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return in_fork_child;
}

typedef struct spinner {
    atf_recorder *r;
    _Atomic int stop;
    _Atomic int started;   /* set once the first event is recorded */
    uint64_t n;
} spinner;

/* Records until told to stop, at most ~1 M events/s and 2 M events in all:
 * a test that hangs must not fill the disk. */
static void *spin(void *p)
{
    spinner *s = p;
    while (!atomic_load(&s->stop) && s->n < 2000000) {
        atf_recorder_call(s->r, s->n++);
        if (s->n == 1)
            atomic_store(&s->started, 1);
        if (s->n % 256 == 0)
            rt_sleep_us(200);
    }
    return NULL;
}

/* fork() while other threads record: the child refuses events, cannot stop
 * or flush the parent's recorder, and exits through atexit without touching
 * the parent's files; the parent's session stays complete and consistent. */
static void test_fork_leaves_parent_session(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "fork");
    atf_recorder_options o = rt_options(dir);
    atf_recorder *r = rt_start(&o);
    spinner sp = { r, 0, 0, 0 };
    pthread_t th;
    pthread_create(&th, NULL, spin, &sp);
    /* The forks must happen while the other thread records: on a loaded
     * machine it may not have run at all yet (CI once saw one thread). */
    while (!atomic_load(&sp.started))
        rt_sleep_us(100);
    record_pattern(r, 1000);
    for (int k = 0; k < 5; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            in_fork_child = 1;
            int bad = 0;
            bad |= atf_recorder_call(r, 99) != ATF_E_STATE;
            bad |= atf_recorder_stop(r, NULL) != ATF_E_STATE;
            bad |= atf_recorder_flush(r, 10) != ATF_E_STATE;
            atf_recorder_destroy(r);   /* must leave the parent's session alone */
            /* Leave through exit(): the atexit hook must not touch the
             * parent's session. (No new session here: after fork() in a
             * multithreaded process only async-signal-safe calls are
             * allowed, and the sanitizers' thread registries can deadlock.
             * test_process_exit_finalizes starts one in a child.) */
#if defined(ATF_REC_TSAN)
            _exit(bad ? 4 : 0);   /* TSan would report the parent's threads as leaked */
#else
            exit(bad ? 4 : 0);
#endif
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        record_pattern(r, 1000);
    }
    atomic_store(&sp.stop, 1);
    pthread_join(th, NULL);
    rt_stop(r);
    atf_recorder_destroy(r);
    rt_check(dir, 0);
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_thread_count(s), 2);
    /* main thread: 6 x 1000 events of the pattern, in order */
    const atf_session_thread *t0 = atf_session_thread_at(s, 0);
    const atf_session_thread *t1 = atf_session_thread_at(s, 1);
    const atf_session_thread *mt = atf_index_reader_count(t0->index) == 6000 ? t0 : t1;
    const atf_session_thread *st = mt == t0 ? t1 : t0;
    assert_int_equal(atf_index_reader_count(mt->index), 6000);
    assert_int_equal(atf_index_reader_count(st->index), sp.n);
    for (uint64_t i = 0; i < sp.n; i++) {
        atf_index_event e;
        atf_index_reader_get(st->index, i, &e);
        assert_int_equal(e.function_id, i);
    }
    atf_session_close(s);
    rt_rm_rf(dir);
}

/* Memory: allocated within the bound, the bound the budget (256 MiB by
 * default, at least 4 MiB); a max_threads limit still rejects (counted). */
static void test_memory_accounting(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "mem");
    atf_recorder_options o = rt_options(dir);
    o.max_threads = 4;
    assert_int_equal(atf_recorder_memory_bound(&o), 256u << 20);
    assert_int_equal(atf_recorder_memory_bound(NULL), 256u << 20);
    o.memory_budget_bytes = 1u << 20;
    assert_int_equal(atf_recorder_memory_bound(&o), 0);   /* below the minimum: invalid */
    o.memory_budget_bytes = 8u << 20;
    assert_int_equal(atf_recorder_memory_bound(&o), 8u << 20);
    atf_recorder *r = rt_start(&o);
    worker_arg a = { r, 50000, 0, 0 };
    pthread_t th[6];
    for (int i = 0; i < 6; i++)
        pthread_create(&th[i], NULL, worker, &a);
    for (int i = 0; i < 6; i++)
        pthread_join(th[i], NULL);
    uint64_t refused = atomic_load(&a.failures);
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    assert_true(st.memory_peak > 0);
    assert_true(st.memory_peak <= st.memory_bound);
    assert_int_equal(st.memory_allocated, 0);
    /* 6 threads, at most 4 at once: all recorded or counted as rejected. */
    assert_int_equal(st.events_written + st.events_rejected, 6 * 50000);
    assert_int_equal(st.events_rejected, refused);
    atf_recorder_destroy(r);
    assert_int_equal(rt_check_allowing(dir, "SES-MAN-010"), st.events_rejected > 0);   /* lossy: events_dropped */
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "events_dropped", NULL), st.events_rejected);
    assert_int_equal(rt_json_u64(j, "recorder", "memory_bound_bytes", NULL), st.memory_bound);
    json_decref(j);
    rt_rm_rf(dir);
}

/* Write errors (the file size limit standing in for a full disk): stop()
 * reports ATF_E_IO, the file keeps the prefix that was written (valid,
 * crash-truncated), and every event that did not make it is counted in
 * events_lost_io and in the manifest. */
static void test_write_errors_counted(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "efbig");
    const uint64_t n = 200000;   /* 6.4 MB of events, limit 1 MiB */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { 1u << 20, 1u << 20 };
        setrlimit(RLIMIT_FSIZE, &rl);
        atf_recorder_options o = rt_options(dir);
        atf_recorder *r = NULL;
        if (atf_recorder_start(&r, &o, NULL) != ATF_OK)
            _exit(10);
        if (record_pattern_n(r, n) != 0)
            _exit(11);
        atf_error err;
        atf_status st = atf_recorder_stop(r, &err);
        atf_recorder_stats s;
        atf_recorder_get_stats(r, &s);
        atf_recorder_destroy(r);
        if (st != ATF_E_IO || !strstr(err.file, "index.atf"))
            _exit(12);
        if (s.events_lost_io == 0 || s.events_lost_io >= n || s.events_dropped != s.events_lost_io)
            _exit(13);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    rt_check(dir, 1);
    atf_session *s = rt_open(dir);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    uint64_t kept = atf_index_reader_count(t->index);
    assert_false(atf_index_reader_info(t->index)->has_footer);
    assert_true(kept > 1000 && kept < n);
    for (uint64_t i = 0; i < kept; i++) {
        atf_index_event e;
        atf_index_reader_get(t->index, i, &e);
        assert_int_equal(e.function_id, i);
    }
    assert_int_equal(atf_session_manifest(s)->events_dropped, n - kept);
    atf_session_close(s);
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "recorder", "events_lost_io", NULL), n - kept);
    json_decref(j);
    rt_rm_rf(dir);
}

/* Does this file system take O_DIRECT writes? */
static int fs_has_direct_io(const char *dir)
{
    char p[512];
    rt_path(p, sizeof p, "%s/probe", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_DIRECT, 0600);
    void *b = NULL;
    int ok = fd >= 0 && posix_memalign(&b, 4096, 4096) == 0 && pwrite(fd, memset(b, 0, 4096), 4096, 0) == 4096;
    free(b);
    if (fd >= 0)
        close(fd);
    unlink(p);
    return ok;
}

/* I/O methods: buffered on request; direct when the file system has it,
 * else (auto) buffered, or (direct demanded) refused. /dev/shm (tmpfs)
 * usually lacks O_DIRECT. */
static void test_io_methods(void **state)
{
    (void)state;
    const char *bases[2] = { getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", "/dev/shm" };
    for (int b = 0; b < 2; b++) {
        if (access(bases[b], W_OK) != 0)
            continue;
        char dir[256];
        snprintf(dir, sizeof dir, "%s/atf-rec-io-XXXXXX", bases[b]);
        assert_non_null(mkdtemp(dir));
        int direct = fs_has_direct_io(dir);
        for (int io = ATF_RECORDER_IO_AUTO; io <= ATF_RECORDER_IO_BUFFERED; io++) {
            char sdir[300];
            snprintf(sdir, sizeof sdir, "%s/s%d", dir, io);
            atf_recorder_options o = rt_options(sdir);
            o.io = (atf_recorder_io)io;
            atf_recorder *r = NULL;
            atf_status st = atf_recorder_start(&r, &o, NULL);
            if (io == ATF_RECORDER_IO_DIRECT && !direct) {
                assert_int_equal(st, ATF_E_UNSUPPORTED);
                continue;
            }
            assert_int_equal(st, ATF_OK);
            record_pattern(r, 50000);
            rt_stop(r);
            atf_recorder_stats s;
            atf_recorder_get_stats(r, &s);
            uint32_t want = io == ATF_RECORDER_IO_BUFFERED || !direct ? ATF_RECORDER_IO_BUFFERED : ATF_RECORDER_IO_DIRECT;
            assert_int_equal(s.io_method, want);
            atf_recorder_destroy(r);
            rt_check(sdir, 0);
            atf_session *ss = rt_open(sdir);
            check_pattern(atf_session_thread_at(ss, 0), 50000, ATF_LAYOUT_2, (uint32_t)syscall(SYS_gettid));
            atf_session_close(ss);
        }
        rt_rm_rf(dir);
    }
}

/* Durability (issue 22): atf_recorder_sync() flushes and syncs (the events
 * are in the files when it returns), the periodic policy syncs on its own,
 * stop() with opts.sync ends with a sync, and bad policies are refused.
 * What survives a power cut is checked by the harness (ctest -L powerloss). */
static void test_durability(void **state)
{
    (void)state;
    char dir[256], sdir[300];
    rt_mkdtemp(dir, sizeof dir, "durable");
    snprintf(sdir, sizeof sdir, "%s/s", dir);
    atf_recorder_options o = rt_options(sdir);
    o.durability = 2;
    atf_recorder *r = NULL;
    assert_int_equal(atf_recorder_start(&r, &o, NULL), ATF_E_ARG);
    o.durability = ATF_RECORDER_DURABLE_NONE;
    o.sync = 1;
    r = rt_start(&o);
    atf_recorder_stats s;
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(atf_recorder_call(r, i), ATF_OK);
    atf_error err;
    assert_int_equal(atf_recorder_sync(r, &err), ATF_OK);
    atf_recorder_get_stats(r, &s);
    assert_int_equal(s.syncs, 1);
    assert_int_equal(s.events_written, 1000);
    rt_stop(r);
    atf_recorder_get_stats(r, &s);
    assert_int_equal(s.syncs, 2);   /* stop's own */
    assert_int_equal(atf_recorder_sync(r, &err), ATF_OK);   /* after stop: a sync only */
    atf_recorder_destroy(r);
    rt_check(sdir, 0);
    rt_rm_rf(sdir);

    o.durability = ATF_RECORDER_DURABLE_PERIODIC;
    o.sync_interval_ms = 10;
    o.sync = 0;
    r = rt_start(&o);
    uint64_t t0 = rt_now_ns();
    do {
        assert_int_equal(atf_recorder_call(r, 1), ATF_OK);
        rt_sleep_us(1000);
        atf_recorder_get_stats(r, &s);
    } while (s.syncs < 3 && rt_now_ns() - t0 < 20000000000ull);
    assert_true(s.syncs >= 3);
    rt_stop(r);
    atf_recorder_get_stats(r, &s);
    uint32_t at_stop = s.syncs;
    rt_sleep_us(30000);
    atf_recorder_get_stats(r, &s);
    assert_int_equal(s.syncs, at_stop);   /* the sync thread ended with stop() */
    atf_recorder_destroy(r);
    rt_check(sdir, 0);
    rt_rm_rf(dir);
}

/* The SigBlk mask of thread @tid of this process, from /proc. */
static uint64_t thread_sigblk(long tid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    uint64_t mask = 0;
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "SigBlk: %" SCNx64, &mask) == 1)
            found = 1;
    fclose(f);
    assert_true(found);
    return mask;
}

/* The recorder's threads (writers, I/O, the periodic sync) block every
 * signal, whatever the mask of the thread that starts it, which keeps its
 * own: a process-directed signal goes to one of the program's threads. */
static void test_threads_block_signals(void **state)
{
    (void)state;
    char dir[256], sdir[300];
    rt_mkdtemp(dir, sizeof dir, "sigmask");
    snprintf(sdir, sizeof sdir, "%s/s", dir);
    atf_recorder_options o = rt_options(sdir);
    o.durability = ATF_RECORDER_DURABLE_PERIODIC;   /* the sync thread too */
    o.sync_interval_ms = 50;
    sigset_t none, before, after;
    sigemptyset(&none);
    assert_int_equal(pthread_sigmask(SIG_SETMASK, &none, &before), 0);
    const long self = (long)syscall(SYS_gettid);
    atf_recorder *r = rt_start(&o);
    assert_int_equal(pthread_sigmask(SIG_SETMASK, NULL, &after), 0);
    assert_int_equal(sigismember(&after, SIGINT), 0);   /* the caller's mask is its own */
    assert_int_equal(sigismember(&after, SIGALRM), 0);
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    unsigned others = 0;
    const uint64_t want = (1ull << (SIGINT - 1)) | (1ull << (SIGTERM - 1)) | (1ull << (SIGALRM - 1)) |
                          (1ull << (SIGCHLD - 1)) | (1ull << (SIGPROF - 1)) | (1ull << (SIGUSR1 - 1)) |
                          (1ull << (SIGHUP - 1)) | (1ull << (SIGPIPE - 1));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        long tid = strtol(e->d_name, NULL, 10);
        if (tid == self)
            continue;
        others++;
        assert_int_equal(thread_sigblk(tid) & want, want);
    }
    closedir(d);
    assert_true(others >= 3);   /* a writer, its I/O thread(s), the sync thread */
    assert_int_equal(thread_sigblk(self) & want, 0);
    assert_int_equal(atf_recorder_call(r, 1), ATF_OK);
    rt_stop(r);
    atf_recorder_destroy(r);
    rt_check(sdir, 0);
    rt_rm_rf(dir);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout2),
        cmocka_unit_test(test_durability),
        cmocka_unit_test(test_threads_block_signals),
        cmocka_unit_test(test_layout1),
        cmocka_unit_test(test_session_dir_name),
        cmocka_unit_test(test_option_errors),
        cmocka_unit_test(test_after_stop),
        cmocka_unit_test(test_manifest_metadata),
        cmocka_unit_test(test_io_defaults),
        cmocka_unit_test(test_thread_exit_and_detach),
        cmocka_unit_test(test_process_exit_finalizes),
        cmocka_unit_test(test_fork_leaves_parent_session),
        cmocka_unit_test(test_memory_accounting),
        cmocka_unit_test(test_write_errors_counted),
        cmocka_unit_test(test_io_methods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
