/* Crash safety: a child process records (function_id = tag << 32 |
 * per-thread counter) and is killed with SIGKILL at a random moment, many
 * times. Every session a kill leaves must
 *  - pass `atf validate` (the validator library, default options) with
 *    warnings only: conformant, 0 errors;
 *  - pass the codec's structural checks (warnings for missing footers only);
 *  - carry the manifest written while recording (state "recording") with the
 *    session time range unset (0; SPEC errata E-19): a range written then is
 *    contradicted by the events that follow (SES-MAN-007);
 *  - hold, for every recovered thread file, an exact prefix of what its
 *    thread produced: counters 0, 1, 2, ... with no gap, no duplicate and no
 *    foreign event; every recovered detail event must carry its index
 *    event's payload.
 *
 * test_sigkill_prefix: three threads, index-only, with a detail lane always
 * on, and with the detail windows toggling (pre-roll links being patched);
 * kills in the first 60 ms.
 * test_sigkill_two_threads_detail: what `atf-bench recorder --threads 2
 * --detail` does, killed 300 times: two threads, detail lane on; half the
 * children call atf_recorder_flush() every few milliseconds (each rewrites
 * the manifest mid-recording); kills in the first 90 ms, one in 30 later
 * (up to 1.09 s, past the recorder's periodic manifest rewrite).
 *
 * ATF_REC_CRASH_ITERS sets the number of kills of each test (defaults 40 and
 * 300; 12 and 40 in sanitizer builds). */
#include "rec_test_util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <atf/validator.h>

enum { MODE_INDEX = 0, MODE_DETAIL = 1, MODE_TOGGLE = 2, MODES = 3 };
enum { MAX_TAGS = 3 };

typedef struct crash_cfg {
    int mode;                /* MODE_* */
    unsigned threads;        /* producer threads, tags 1..threads (<= MAX_TAGS) */
    unsigned flush_every;    /* control loop calls atf_recorder_flush() every n rounds; 0: never */
    unsigned burst;          /* thread i records burst << (i + seed % 3) events between 100 us naps */
} crash_cfg;

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
            /* An ARM64 function payload (valid whatever the host: on arm64
             * the detail header says arm64 and payloads must be this): the
             * function id, and the counter in x0. */
            atf_arm64_payload ap;
            memset(&ap, 0, sizeof ap);
            ap.function_id = fid;
            ap.x[0] = i;
            atf_recorder_event_arm64(a->r, kind, &ap);
        } else {
            atf_recorder_event(a->r, kind, fid);
        }
        if (i % a->burst == 0)
            rt_sleep_us(100);
    }
    return NULL;
}

static void child(const char *dir, const crash_cfg *cfg, uint64_t seed, int ready_fd)
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
    if (cfg->mode != MODE_INDEX) {
        o.detail = 1;
        o.pre_roll_ns = 2000000u;
        o.post_roll_ns = 1000000u;
    }
    atf_recorder *r = NULL;
    if (atf_recorder_start(&r, &o, NULL) != ATF_OK)
        _exit(3);
    if (cfg->mode == MODE_DETAIL)
        atf_recorder_detail_enable(r, NULL);
    crash_thread a[MAX_TAGS];
    pthread_t th[MAX_TAGS];
    for (unsigned i = 0; i < cfg->threads; i++) {
        a[i] = (crash_thread){ r, (uint64_t)i + 1, cfg->mode != MODE_INDEX,
                                cfg->burst << (i + (unsigned)(seed % 3)) };
        pthread_create(&th[i], NULL, crash_loop, &a[i]);
    }
    char c = 'r';
    if (write(ready_fd, &c, 1) != 1)
        _exit(4);
    for (unsigned k = 1;; k++) {
        rt_sleep_us(1500);
        if (cfg->mode == MODE_TOGGLE) {
            if (k % 2)
                atf_recorder_detail_disable(r, NULL);
            else
                atf_recorder_detail_enable(r, NULL);
        }
        if (cfg->flush_every && k % cfg->flush_every == 0)
            atf_recorder_flush(r, 1000);
    }
}

/* What the kills left, over one test. */
typedef struct crash_totals {
    uint64_t events, detail, threads;
    unsigned sessions, no_thread, nonconformant, ranged, mid_manifests;
    unsigned no_thread_sessions;     /* SES-MAN-011 alone (see validate_session) */
    uint64_t warnings;
    struct {
        char clause[16];
        uint64_t n;
    } warn[24];
} crash_totals;

static void count_warning(crash_totals *tot, const char *clause)
{
    size_t i = 0;
    while (i < 24 && tot->warn[i].clause[0] && strcmp(tot->warn[i].clause, clause))
        i++;
    if (i == 24)
        return;
    if (!tot->warn[i].clause[0])
        snprintf(tot->warn[i].clause, sizeof tot->warn[i].clause, "%s", clause);
    tot->warn[i].n++;
}

/* `atf validate DIR` with default options: every error is a failure (the
 * errors of the first failing sessions are printed); the warnings are
 * tallied by clause. A session killed before any thread's first event
 * reached a writer lists no thread: SES-MAN-011, a warning (errata E-21).
 * @return 1 when the validator said SES-MAN-011 (no thread). */
static int validate_session(const char *dir, crash_totals *tot)
{
    atf_validation *v = NULL;
    atf_error err;
    memset(&err, 0, sizeof err);
    atf_status st = atf_validate_path(&v, dir, NULL, &err);
    if (st != ATF_OK)
        fail_msg("atf_validate_path(%s): %s: %s: %s", dir, atf_strerror(st), err.file, err.message);
    uint64_t errors = 0, warnings = 0;
    int no_thread = 0;
    atf_validation_counts(v, &errors, &warnings);
    size_t nf = atf_validation_finding_count(v);
    for (size_t i = 0; i < nf; i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        if (f->severity != ATF_SEV_ERROR)
            count_warning(tot, f->clause);
        no_thread |= !strcmp(f->clause, "SES-MAN-011");
    }
    tot->warnings += warnings;
    tot->no_thread_sessions += (unsigned)no_thread;
    if (!atf_validation_conformant(v) || errors) {
        if (tot->nonconformant++ < 3) {
            print_message("session %u: atf validate: %llu error(s), %llu warning(s)\n", tot->sessions,
                          (unsigned long long)errors, (unsigned long long)warnings);
            for (size_t i = 0; i < nf; i++) {
                const atf_validate_finding *f = atf_validation_finding_at(v, i);
                if (f->severity == ATF_SEV_ERROR)
                    print_message("  error %s %s: field %s: %s\n", f->clause, f->file, f->field ? f->field : "-",
                                  f->message);
            }
        }
    }
    atf_validation_free(v);
    return no_thread;
}

/* A kill leaves the manifest last written while recording: state
 * "recording", the time range unset. Counts the manifests that list a
 * thread with events (rewritten mid-recording: the case that carried a
 * stale range). */
static void check_manifest(const char *dir, crash_totals *tot)
{
    json_t *j = rt_manifest_json(dir);
    const char *state = json_string_value(json_object_get(json_object_get(j, "recorder"), "state"));
    if (!state || strcmp(state, "recording"))
        fail_msg("%s: manifest state %s, expected \"recording\"", dir, state ? state : "(none)");
    uint64_t t0 = rt_json_u64(j, "time_start_ns", NULL), t1 = rt_json_u64(j, "time_end_ns", NULL);
    if (t0 || t1) {
        if (tot->ranged++ < 3)
            print_message("session %u: manifest written while recording has time range [%llu, %llu]\n",
                          tot->sessions, (unsigned long long)t0, (unsigned long long)t1);
    }
    json_t *threads = json_object_get(j, "threads"), *th;
    size_t i;
    int with_events = 0;
    json_array_foreach(threads, i, th) {
        if (json_integer_value(json_object_get(th, "event_count")) > 0)
            with_events = 1;
    }
    tot->mid_manifests += (unsigned)with_events;
    json_decref(j);
}

static void verify(const char *dir, const crash_cfg *cfg, crash_totals *tot)
{
    int no_thread = validate_session(dir, tot);   /* the validator says: no thread */
    check_manifest(dir, tot);
    tot->sessions++;
    rt_check(dir, 1);
    atf_session *s = rt_open(dir);
    int seen[MAX_TAGS + 1] = { 0 };
    if (atf_session_thread_count(s) == 0)
        tot->no_thread++;
    if (no_thread != (atf_session_thread_count(s) == 0))
        fail_msg("%s: SES-MAN-011 %d but the session holds %zu thread(s)", dir, no_thread,
                 atf_session_thread_count(s));
    for (size_t i = 0; i < atf_session_thread_count(s); i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        uint64_t n = atf_index_reader_count(t->index), last_ts = 0, tag = 0;
        for (uint64_t k = 0; k < n; k++) {
            atf_index_event e;
            atf_index_reader_get(t->index, k, &e);
            if (k == 0) {
                tag = e.function_id >> 32;
                if (tag < 1 || tag > cfg->threads || seen[tag]++)
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
        assert_true(cfg->mode != MODE_INDEX);
        uint64_t nd = atf_detail_reader_count(t->detail), prev = 0;
        for (uint64_t d = 0; d < nd; d++) {
            atf_detail_event de;
            atf_detail_reader_get(t->detail, d, &de);
            atf_arm64_payload ap;
            assert_int_equal(atf_arm64_payload_decode(&ap, de.payload, de.payload_size, NULL), ATF_OK);
            uint64_t fid = ap.function_id, ctr = ap.x[0];
            if (ctr != de.index_seq || (d && de.index_seq <= prev) || (tag && fid != (tag << 32 | ctr)))
                fail_msg("%s: thread %zu detail %llu: payload does not match index_seq %llu", dir, i,
                         (unsigned long long)d, (unsigned long long)de.index_seq);
            prev = de.index_seq;
        }
        tot->detail += nd;
    }
    atf_session_close(s);
}

/* Removing a killed session can take tens of milliseconds a file on a busy
 * disk (unlink waits on the journal): a helper process removes the sessions
 * while the next child records. Paths go through a pipe in fixed records
 * (atomic writes, below PIPE_BUF). */
enum { JANITOR_PATH = 256 };
static struct {
    pid_t pid;
    int fd;
} g_janitor = { -1, -1 };

static void janitor_start(void)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[1]);
        char path[JANITOR_PATH];
        for (;;) {
            size_t got = 0;
            while (got < sizeof path) {
                ssize_t n = read(fds[0], path + got, sizeof path - got);
                if (n <= 0 && !(n < 0 && errno == EINTR))
                    _exit(0);
                got += n > 0 ? (size_t)n : 0;
            }
            path[sizeof path - 1] = 0;
            rt_rm_rf(path);
        }
    }
    close(fds[0]);
    g_janitor.pid = pid;
    g_janitor.fd = fds[1];
}

static void janitor_remove(const char *dir)
{
    char rec[JANITOR_PATH];
    memset(rec, 0, sizeof rec);
    snprintf(rec, sizeof rec, "%s", dir);
    if (g_janitor.fd < 0 || write(g_janitor.fd, rec, sizeof rec) != (ssize_t)sizeof rec)
        rt_rm_rf(dir);
}

/* Waits until every session handed over is removed. */
static void janitor_stop(void)
{
    if (g_janitor.fd < 0)
        return;
    close(g_janitor.fd);
    int status = 0;
    assert_int_equal(waitpid(g_janitor.pid, &status, 0), g_janitor.pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    g_janitor.fd = -1;
    g_janitor.pid = -1;
}

static unsigned crash_iters(unsigned full, unsigned small)
{
    const char *e = getenv("ATF_REC_CRASH_ITERS");
    if (e && *e)
        return (unsigned)strtoul(e, NULL, 10);
#if defined(ATF_REC_TEST_SMALL)
    (void)full;
    return small;
#else
    (void)small;
    return full;
#endif
}

/* One kill: starts a child recording into a fresh directory, kills it after
 * delay_us (counted from its ready signal), checks what it left. */
static void kill_once(const crash_cfg *cfg, uint64_t child_seed, unsigned delay_us, crash_totals *tot)
{
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "crash");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(dir, cfg, child_seed, fds[1]);
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
    rt_sleep_us(delay_us);
    kill(pid, SIGKILL);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    verify(dir, cfg, tot);
    janitor_remove(dir);
}

static void print_totals(const char *name, const crash_totals *tot)
{
    print_message("%s: %u sessions (%u without a thread: SES-MAN-011), %llu threads, %llu events + %llu "
                  "detail recovered; %u manifests rewritten mid-recording with events; %u nonconformant, %u with "
                  "a time range while recording; %llu warnings:",
                  name, tot->sessions, tot->no_thread_sessions, (unsigned long long)tot->threads,
                  (unsigned long long)tot->events, (unsigned long long)tot->detail, tot->mid_manifests,
                  tot->nonconformant, tot->ranged, (unsigned long long)tot->warnings);
    for (size_t i = 0; i < 24 && tot->warn[i].clause[0]; i++)
        print_message(" %s %llu", tot->warn[i].clause, (unsigned long long)tot->warn[i].n);
    print_message("\n");
}

static void assert_clean(const crash_totals *tot)
{
    /* Each session without a thread was reported SES-MAN-011 (a warning),
     * and verify() failed on any that held one. */
    assert_int_equal(tot->no_thread_sessions, tot->no_thread);
    if (tot->nonconformant)
        fail_msg("%u of %u sessions left by SIGKILL are not conformant (errors from atf validate)",
                 tot->nonconformant, tot->sessions);
    if (tot->ranged)
        fail_msg("%u of %u manifests written while recording carry a time range", tot->ranged, tot->sessions);
}

/* A run of kills: prints the seed and the number of kills, starts the
 * janitor. @return the seed; *t0 the start time. */
static uint64_t kills_begin(unsigned iters, uint64_t *t0)
{
    uint64_t seed = (uint64_t)rt_now_ns() | 1;
    print_message("seed %llu, %u kills\n", (unsigned long long)seed, iters);
    janitor_start();
    *t0 = rt_now_ns();
    return seed;
}

/* Waits for every session to be removed and prints the run's time. */
static void kills_end(unsigned iters, uint64_t t0)
{
    janitor_stop();
    print_message("%u kills in %.1f s\n", iters, (double)(rt_now_ns() - t0) / 1e9);
}

static void test_sigkill_prefix(void **state)
{
    (void)state;
    unsigned iters = crash_iters(40, 12);
    uint64_t t0, seed = kills_begin(iters, &t0);
    crash_totals tot[MODES];
    memset(tot, 0, sizeof tot);
    for (unsigned it = 0; it < iters; it++) {
        crash_cfg cfg = { (int)(it % MODES), 3, 0, 16 };
        uint64_t r = rt_rand(&seed);
        /* Kill somewhere in the first 60 ms: sometimes before any chunk
         * was written, usually amid writes, flushes and patches. */
        kill_once(&cfg, r, (unsigned)(rt_rand(&seed) % 60000u), &tot[cfg.mode]);
    }
    /* On a loaded machine (or under a sanitizer) a recording may not reach
     * the disk within 60 ms: kill later, up to 3.2 s, until the modes that
     * must have written something have (the assertions below). */
    for (unsigned extra = 0; extra < 8 && (tot[MODE_INDEX].events == 0 || tot[MODE_DETAIL].detail == 0); extra++) {
        int m = tot[MODE_INDEX].events == 0 ? MODE_INDEX : MODE_DETAIL;
        crash_cfg cfg = { m, 3, 0, 16 };
        kill_once(&cfg, rt_rand(&seed), 100000u << (extra < 5 ? extra : 5), &tot[m]);
    }
    kills_end(iters, t0);
    print_totals("index-only", &tot[MODE_INDEX]);
    print_totals("detail", &tot[MODE_DETAIL]);
    print_totals("toggling", &tot[MODE_TOGGLE]);
    for (int m = 0; m < MODES; m++)
        assert_clean(&tot[m]);
    /* The kills were not all before the first write. */
    assert_true(tot[MODE_INDEX].events > 0);
    assert_true(tot[MODE_DETAIL].detail > 0);
}

static void test_sigkill_two_threads_detail(void **state)
{
    (void)state;
    unsigned iters = crash_iters(300, 40);
    uint64_t t0, seed = kills_begin(iters, &t0);
    crash_totals tot;
    memset(&tot, 0, sizeof tot);
    for (unsigned it = 0; it < iters; it++) {
        uint64_t r = rt_rand(&seed);
        crash_cfg cfg = { MODE_DETAIL, 2, (r >> 8) & 1 ? 2u + (unsigned)((r >> 9) % 4) : 0u, 4 };
        unsigned delay = (unsigned)(rt_rand(&seed) % 90000u);
        if (it % 30 == 29)
            delay = 90000u + (unsigned)(rt_rand(&seed) % 1000000u);
        kill_once(&cfg, r, delay, &tot);
    }
    kills_end(iters, t0);
    print_totals("two threads, detail", &tot);
    assert_clean(&tot);
    /* Not vacuous: recordings were killed with events on disk and after the
     * manifest had been rewritten with them. */
    assert_true(tot.detail > 0);
    assert_true(tot.mid_manifests > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigkill_prefix),
        cmocka_unit_test(test_sigkill_two_threads_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
