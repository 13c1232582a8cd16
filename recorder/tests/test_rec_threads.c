/* Tests for the rings under concurrency (rec_producer.c, rec_writer.c):
 * 8 threads x 1 M events, every event exactly once and in order per thread;
 * backpressure with tiny rings (no event lost, every wait counted); drop
 * mode (every drop counted, the rest an in-order subsequence); thread churn;
 * idle threads at stop (unpublished events counted, never silently lost);
 * several writer threads; many idle threads next to busy ones, a busy
 * ring drained while a new thread's files are held back, a flush that
 * creates only the files of threads with events published, churn of
 * thousands of threads (also against the smallest budget and with few
 * descriptors), the memory budget under pressure, rings and windows that
 * follow the rate, 64 busy threads sharing the budget. Worker threads never call cmocka asserts: they
 * count and the main thread checks. */
#include "rec_test_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <dirent.h>
#include <sys/resource.h>

#include "rec_internal.h"
#include "rec_writer.h"   /* rec_files_hook */

typedef struct producer {
    atf_recorder *r;
    uint64_t tag;           /* function_id = tag << 32 | counter */
    uint64_t n;
    uint64_t recorded;      /* events that returned ATF_OK */
    uint64_t refused;
    int yield_every;        /* sleep a little every so many events (0: never) */
    pthread_barrier_t *start;
    atomic_int *go;         /* non-NULL: after the first event, wait until it is set */
} producer;

static void *produce(void *p)
{
    producer *a = p;
    if (a->start)
        pthread_barrier_wait(a->start);
    for (uint64_t i = 0; i < a->n; i++) {
        uint32_t kind = (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        if (atf_recorder_event(a->r, kind, a->tag << 32 | i) == ATF_OK)
            a->recorded++;
        else
            a->refused++;
        if (a->yield_every && i % (uint64_t)a->yield_every == 0)
            rt_sleep_us(20);
        while (i == 0 && a->go && !atomic_load(a->go))   /* registered: its files get created */
            rt_sleep_us(500);
    }
    return NULL;
}

/* Every thread of the session holds one producer's events: all of them
 * (exact) or an increasing subsequence (subseq), in order. Returns the
 * total number of events found. */
static uint64_t check_threads(const char *dir, producer *ps, unsigned np, int subseq)
{
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_thread_count(s), np);
    unsigned *seen = calloc(np, sizeof *seen);
    uint64_t total = 0;
    for (size_t i = 0; i < atf_session_thread_count(s); i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        uint64_t n = atf_index_reader_count(t->index);
        assert_true(atf_index_reader_info(t->index)->has_footer);
        atf_index_event e;
        if (n == 0)
            continue;
        atf_index_reader_get(t->index, 0, &e);
        uint64_t tag = e.function_id >> 32;
        assert_true(tag >= 1 && tag <= np);
        assert_int_equal(seen[tag - 1]++, 0);
        producer *p = &ps[tag - 1];
        uint64_t prev = 0, last_ts = 0;
        for (uint64_t k = 0; k < n; k++) {
            atf_index_reader_get(t->index, k, &e);
            if (e.function_id >> 32 != tag)
                fail_msg("thread %zu event %llu: tag %llu, expected %llu", i, (unsigned long long)k,
                         (unsigned long long)(e.function_id >> 32), (unsigned long long)tag);
            uint64_t c = e.function_id & 0xFFFFFFFFu;
            if (subseq ? (k && c <= prev) : c != k)
                fail_msg("thread %zu event %llu: counter %llu after %llu", i, (unsigned long long)k,
                         (unsigned long long)c, (unsigned long long)prev);
            if (e.event_kind != ((c & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL))
                fail_msg("thread %zu event %llu: kind %u", i, (unsigned long long)k, e.event_kind);
            if (e.timestamp_ns < last_ts)
                fail_msg("thread %zu event %llu: timestamp goes backwards", i, (unsigned long long)k);
            prev = c;
            last_ts = e.timestamp_ns;
        }
        assert_int_equal(n, p->recorded);
        total += n;
    }
    for (unsigned i = 0; i < np; i++)
        assert_int_equal(seen[i], ps[i].recorded ? 1 : 0);
    free(seen);
    atf_session_close(s);
    return total;
}

static void run_producers(producer *ps, unsigned np)
{
    pthread_t th[64];
    pthread_barrier_t b;
    pthread_barrier_init(&b, NULL, np);
    for (unsigned i = 0; i < np; i++) {
        ps[i].start = &b;
        pthread_create(&th[i], NULL, produce, &ps[i]);
    }
    for (unsigned i = 0; i < np; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&b);
}

/* 8 threads x 1 M events (sanitizer builds: 100 k). */
static void test_eight_threads(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "stress");
    atf_recorder_options o = rt_options(dir);
    o.ring_events = 1u << 16;
    o.io_chunk_bytes = 1u << 20;
    atf_recorder *r = rt_start(&o);
    uint64_t n = rt_scaled(1000000);
    producer ps[8];
    for (unsigned i = 0; i < 8; i++)
        ps[i] = (producer){ r, i + 1, n, 0, 0, 0, NULL, NULL };
    run_producers(ps, 8);
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(ps[i].recorded, n);
    assert_int_equal(st.events_recorded, 8 * n);
    assert_int_equal(st.events_written, 8 * n);
    assert_int_equal(st.events_dropped, 0);
    assert_int_equal(check_threads(dir, ps, 8, 0), 8 * n);
    rt_check(dir, 0);
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "events_dropped", NULL), 0);
    assert_int_equal(rt_json_u64(j, "backpressure_waits", NULL), st.backpressure_waits);
    json_decref(j);
    rt_rm_rf(dir);
}

/* Rings of 256 events: producers wait, nothing is lost, waits are counted. */
static void test_backpressure(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "bp");
    atf_recorder_options o = rt_options(dir);
    o.ring_events = 256;
    o.publish_batch = 16;
    o.io_chunk_bytes = 64u << 10;
    o.io_chunks = 2;
    atf_recorder *r = rt_start(&o);
    uint64_t n = rt_scaled(300000);
    producer ps[4];
    for (unsigned i = 0; i < 4; i++)
        ps[i] = (producer){ r, i + 1, n, 0, 0, 0, NULL, NULL };
    run_producers(ps, 4);
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    assert_int_equal(st.events_dropped, 0);
    assert_true(st.backpressure_waits > 0);
    assert_true(st.backpressure_wait_ns > 0);
    assert_int_equal(check_threads(dir, ps, 4, 0), 4 * n);
    rt_check(dir, 0);
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "backpressure_waits", NULL), st.backpressure_waits);
    uint64_t sum = 0;
    for (size_t i = 0; i < 4; i++)
        sum += rt_json_u64(json_array_get(json_object_get(j, "threads"), i), "backpressure_waits", NULL);
    assert_int_equal(sum, st.backpressure_waits);
    json_decref(j);
    rt_rm_rf(dir);
}

/* Drop mode with tiny rings: drops happen, each is counted (stats, manifest
 * per thread and in total), and what was kept is an in-order subsequence. */
static void test_drop_mode(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "drop");
    atf_recorder_options o = rt_options(dir);
    o.ring_events = 256;
    o.publish_batch = 8;
    o.overflow = ATF_RECORDER_DROP;
    o.io_chunk_bytes = 64u << 10;
    o.io_chunks = 2;
    atf_recorder *r = rt_start(&o);
    uint64_t n = rt_scaled(1000000);
    producer ps[3];
    for (unsigned i = 0; i < 3; i++)
        ps[i] = (producer){ r, i + 1, n, 0, 0, 0, NULL, NULL };
    run_producers(ps, 3);
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    uint64_t refused = ps[0].refused + ps[1].refused + ps[2].refused;
    assert_true(refused > 0);
    assert_int_equal(st.events_dropped_full, refused);
    assert_int_equal(st.events_dropped, refused);
    assert_int_equal(st.backpressure_waits, 0);
    assert_int_equal(check_threads(dir, ps, 3, 1), 3 * n - refused);
    assert_int_equal(rt_check_allowing(dir, "SES-MAN-010"), 1);   /* lossy: events_dropped */
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "events_dropped", NULL), refused);
    assert_int_equal(rt_json_u64(j, "recorder", "events_dropped_ring_full", NULL), refused);
    uint64_t sum = 0;
    for (size_t i = 0; i < 3; i++)
        sum += rt_json_u64(json_array_get(json_object_get(j, "threads"), i), "events_dropped", NULL);
    assert_int_equal(sum, refused);
    json_decref(j);
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_manifest(s)->events_dropped, refused);
    atf_session_close(s);
    rt_rm_rf(dir);
}

/* 48 short-lived threads, 6 at a time, with two writer threads: each gets
 * its own complete thread_K. */
static void test_thread_churn(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "churn");
    atf_recorder_options o = rt_options(dir);
    o.writer_threads = 2;
    o.ring_events = 1024;
    atf_recorder *r = rt_start(&o);
    producer ps[48];
    for (unsigned i = 0; i < 48; i++)
        ps[i] = (producer){ r, i + 1, rt_scaled(20000), 0, 0, 0, NULL, NULL };
    for (unsigned g = 0; g < 8; g++)
        run_producers(&ps[g * 6], 6);
    rt_stop(r);
    atf_recorder_destroy(r);
    assert_int_equal(check_threads(dir, ps, 48, 0), 48 * rt_scaled(20000));
    rt_check(dir, 0);
    rt_rm_rf(dir);
}

typedef struct idler {
    atf_recorder *r;
    _Atomic int phase;
    atf_status after;
} idler;

static void *idle_thread(void *p)
{
    idler *a = p;
    for (uint64_t i = 0; i < 5; i++)
        atf_recorder_call(a->r, i);
    atomic_store(&a->phase, 1);
    while (atomic_load(&a->phase) != 2)
        rt_sleep_us(200);
    a->after = atf_recorder_call(a->r, 99);
    return NULL;
}

/* A thread that wrote fewer than publish_batch events and then sleeps
 * through stop(): its events were never published, so they cannot be in the
 * file; stop() counts them as lost (stats and manifest) instead of losing
 * them silently, and the thread's next call is refused. */
static void test_idle_thread_at_stop(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "idle");
    atf_recorder_options o = rt_options(dir);
    o.publish_batch = 64;
    o.stop_grace_ms = 5;
    atf_recorder *r = rt_start(&o);
    idler a = { r, 0, ATF_OK };
    pthread_t th;
    pthread_create(&th, NULL, idle_thread, &a);
    while (atomic_load(&a.phase) != 1)
        rt_sleep_us(200);
    rt_stop(r);
    atomic_store(&a.phase, 2);
    pthread_join(th, NULL);
    assert_int_equal(a.after, ATF_E_STATE);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    assert_int_equal(st.events_recorded, 5);
    assert_int_equal(st.events_lost_at_stop, 5);
    assert_int_equal(st.events_dropped, 5);
    assert_int_equal(st.events_after_stop, 1);
    atf_recorder_destroy(r);
    assert_int_equal(rt_check_allowing(dir, "SES-MAN-010"), 1);   /* lossy: events_dropped */
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "events_dropped", NULL), 5);
    assert_int_equal(rt_json_u64(j, "recorder", "events_lost_at_stop", NULL), 5);
    json_decref(j);
    rt_rm_rf(dir);
}

/* atf_recorder_flush() makes what other threads published visible in the
 * files while they keep recording (crash-recoverable without a footer). */
typedef struct steady {
    atf_recorder *r;
    _Atomic int stop;
    _Atomic uint64_t n;
} steady;

static void *steady_thread(void *p)
{
    steady *a = p;
    uint64_t i = 0;
    while (!atomic_load(&a->stop) && i < 5000000) {   /* bounded: a hung test must not fill the disk */
        atf_recorder_call(a->r, i++);
        atomic_store(&a->n, i);
        if (i % 256 == 0)
            rt_sleep_us(100);
    }
    return NULL;
}

static void test_flush_visible(void **state)
{
    (void)state;
    char dir[256], p[512];
    rt_mkdtemp(dir, sizeof dir, "flush");
    atf_recorder_options o = rt_options(dir);
    o.flush_interval_ms = 60000;   /* only explicit flushes */
    o.publish_batch = 32;
    atf_recorder *r = rt_start(&o);
    steady a = { r, 0, 0 };
    pthread_t th;
    pthread_create(&th, NULL, steady_thread, &a);
    while (atomic_load(&a.n) < 5000)
        rt_sleep_us(500);
    uint64_t before = atomic_load(&a.n);
    assert_int_equal(atf_recorder_flush(r, 10000), ATF_OK);
    atf_index_reader *ir = NULL;
    assert_int_equal(atf_index_reader_open(&ir, rt_path(p, sizeof p, "%s/thread_0/index.atf", dir), NULL, NULL),
                     ATF_OK);
    assert_false(atf_index_reader_info(ir)->has_footer);
    /* At least everything published before the flush: all but the last
     * publish_batch - 1 events written before it. */
    if (atf_index_reader_count(ir) + o.publish_batch < before)
        fail_msg("after flush: %llu events in the file, %llu recorded before the flush",
                 (unsigned long long)atf_index_reader_count(ir), (unsigned long long)before);
    for (uint64_t k = 0; k < atf_index_reader_count(ir); k++) {
        atf_index_event e;
        atf_index_reader_get(ir, k, &e);
        assert_int_equal(e.function_id, k);
    }
    atf_index_reader_close(ir);
    rt_check(dir, 1);   /* valid, crash-truncated (warnings: no footer) */
    atomic_store(&a.stop, 1);
    pthread_join(th, NULL);
    rt_stop(r);
    atf_recorder_destroy(r);
    rt_check(dir, 0);
    rt_rm_rf(dir);
}

/* ---- Many threads, idle threads, churn, the budget -------------------------- */

/* Idle threads: two events, a wait at the gate, two more (tag << 32 | i,
 * call/return alternating, as produce() does). */
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
    _Atomic unsigned ready;
} gate;

typedef struct sleeper {
    producer *p;
    gate *g;
} sleeper;

static void *sleep_produce(void *arg)
{
    sleeper *s = arg;
    producer *a = s->p;
    for (uint64_t i = 0; i < 4; i++) {
        if (i == 2) {
            atomic_fetch_add(&s->g->ready, 1);
            pthread_mutex_lock(&s->g->mu);
            while (!s->g->open)
                pthread_cond_wait(&s->g->cv, &s->g->mu);
            pthread_mutex_unlock(&s->g->mu);
        }
        uint32_t kind = (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        if (atf_recorder_event(a->r, kind, a->tag << 32 | i) == ATF_OK)
            a->recorded++;
        else
            a->refused++;
    }
    return NULL;
}

typedef struct sleepers {
    gate g;
    sleeper *s;
    pthread_t *th;
    unsigned n;
} sleepers;

/* Starts n idle threads for ps[0..n) (n = 4 events each) and waits until
 * each has recorded its first two events. */
static void sleepers_start(sleepers *z, atf_recorder *r, producer *ps, unsigned n, uint64_t first_tag)
{
    memset(z, 0, sizeof *z);
    pthread_mutex_init(&z->g.mu, NULL);
    pthread_cond_init(&z->g.cv, NULL);
    z->n = n;
    z->s = calloc(n, sizeof *z->s);
    z->th = calloc(n, sizeof *z->th);
    assert_non_null(z->s);
    assert_non_null(z->th);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256u << 10);
    for (unsigned i = 0; i < n; i++) {
        ps[i] = (producer){ r, first_tag + i, 4, 0, 0, 0, NULL, NULL };
        z->s[i] = (sleeper){ &ps[i], &z->g };
        assert_int_equal(pthread_create(&z->th[i], &at, sleep_produce, &z->s[i]), 0);
    }
    pthread_attr_destroy(&at);
    while (atomic_load(&z->g.ready) < n)
        rt_sleep_us(1000);
}

static void sleepers_finish(sleepers *z)
{
    pthread_mutex_lock(&z->g.mu);
    z->g.open = 1;
    pthread_cond_broadcast(&z->g.cv);
    pthread_mutex_unlock(&z->g.mu);
    for (unsigned i = 0; i < z->n; i++)
        pthread_join(z->th[i], NULL);
    free(z->s);
    free(z->th);
    pthread_mutex_destroy(&z->g.mu);
    pthread_cond_destroy(&z->g.cv);
}

/* Stops r and checks that every producer's events were recorded and
 * written, nothing lost, the session exact and valid, the memory within the
 * budget and all given back. st: receives the final counters. */
static void stop_check_all(atf_recorder *r, const char *dir, producer *ps, unsigned np, atf_recorder_stats *st)
{
    rt_stop(r);
    atf_recorder_get_stats(r, st);
    atf_recorder_destroy(r);
    uint64_t total = 0;
    for (unsigned i = 0; i < np; i++) {
        assert_int_equal(ps[i].refused, 0);
        assert_int_equal(ps[i].recorded, ps[i].n);
        total += ps[i].n;
    }
    assert_int_equal(st->events_dropped, 0);
    assert_int_equal(st->events_recorded, total);
    assert_int_equal(st->events_written, total);
    assert_int_equal(st->threads, np);
    assert_true(st->memory_peak <= st->memory_bound);
    assert_int_equal(st->memory_allocated, 0);
    assert_int_equal(check_threads(dir, ps, np, 0), total);
    rt_check(dir, 0);
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "events_dropped", NULL), 0);
    assert_int_equal(json_array_size(json_object_get(j, "threads")), np);
    json_decref(j);
}

/* Many idle threads next to a few busy ones: each idle thread holds a few
 * KiB (its first ring, its parked file), the busy ones record every event. */
static void test_idle_and_busy(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "idle-busy");
    atf_recorder_options o = rt_options(dir);
    o.ring_events = 1u << 16;
    atf_recorder *r = rt_start(&o);
    unsigned nidle = rt_scaled(400) < 64 ? 64 : (unsigned)rt_scaled(400), nbusy = 4;
    producer *ps = calloc(nbusy + nidle, sizeof *ps);
    assert_non_null(ps);
    sleepers z;
    sleepers_start(&z, r, ps + nbusy, nidle, nbusy + 1);
    /* Idle: their files exist and have been seen idle (flush interval 100 ms). */
    assert_int_equal(atf_recorder_flush(r, 0), ATF_OK);
    rt_sleep_us(350000);
    atf_recorder_stats mid;
    atf_recorder_get_stats(r, &mid);
    assert_int_equal(mid.threads_live, nidle);
    /* The old design held 12 MiB per thread; now a thread that recorded two
     * events holds its first ring and bookkeeping (and its 8 KiB window
     * until the writer parks it). */
    if (mid.memory_allocated > (uint64_t)nidle * (4096 + 2048 + 8192))
        fail_msg("%u idle threads hold %llu bytes", nidle, (unsigned long long)mid.memory_allocated);
    for (unsigned i = 0; i < nbusy; i++)
        ps[i] = (producer){ r, i + 1, rt_scaled(500000), 0, 0, 0, NULL, NULL };
    run_producers(ps, nbusy);
    sleepers_finish(&z);
    atf_recorder_stats st;
    stop_check_all(r, dir, ps, nbusy + nidle, &st);
    free(ps);
    rt_rm_rf(dir);
}

/* Issue 26's burst: hundreds of threads register while busy ones run (the
 * writer creates their directories and files, the manifest lists them):
 * every event of both kinds is recorded, in order, and the session is
 * complete and readable. */
static void test_burst_while_busy(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "burst");
    atf_recorder_options o = rt_options(dir);
    o.ring_events = 1u << 16;
    atf_recorder *r = rt_start(&o);
    unsigned nidle = rt_scaled(500) < 64 ? 64 : (unsigned)rt_scaled(500), nbusy = 4;
    producer *ps = calloc(nbusy + nidle, sizeof *ps);
    assert_non_null(ps);
    pthread_t th[4];
    for (unsigned i = 0; i < nbusy; i++) {
        ps[i] = (producer){ r, i + 1, rt_scaled(2000000), 0, 0, 0, NULL, NULL };
        assert_int_equal(pthread_create(&th[i], NULL, produce, &ps[i]), 0);
    }
    sleepers z;
    sleepers_start(&z, r, ps + nbusy, nidle, nbusy + 1);   /* while the busy threads run */
    atf_recorder_stats mid;
    atf_recorder_get_stats(r, &mid);
    assert_true(mid.threads >= nidle);
    for (unsigned i = 0; i < nbusy; i++)
        pthread_join(th[i], NULL);
    sleepers_finish(&z);
    for (unsigned i = 0; i < nbusy + nidle; i++)
        assert_int_equal(ps[i].refused, 0);
    atf_recorder_stats st;
    stop_check_all(r, dir, ps, nbusy + nidle, &st);
    free(ps);
    rt_rm_rf(dir);
}

/* Registration off the drain path: while the files helper is held before
 * creating a new thread's files (as a slow file system holds it), a busy
 * thread with a small ring records a million events and every one of them
 * reaches its file; the new thread's events wait for its files and are all
 * there once the helper goes on. With the files created on the writer's own
 * path (or no helper), the held creation would never be reached: the new
 * thread's events are written and the test fails; a writer blocked in the
 * creation leaves the busy ring undrained and the busy count short. */
static atomic_int files_gate, files_held;

static void hold_files(void)
{
    atomic_store(&files_held, 1);
    while (atomic_load(&files_gate))
        rt_sleep_us(1000);
}

static int wait_written(atf_recorder *r, uint64_t n, uint64_t ms)
{
    uint64_t deadline = rt_now_ns() + ms * 1000000u;
    atf_recorder_stats st;
    do {
        atf_recorder_get_stats(r, &st);
        if (st.events_written >= n)
            return 1;
        rt_sleep_us(1000);
    } while (rt_now_ns() < deadline);
    return 0;
}

/* Waits until the session holds n thread_K directories. */
static int wait_thread_dirs(atf_recorder *r, unsigned n, uint64_t ms)
{
    uint64_t deadline = rt_now_ns() + ms * 1000000u;
    do {
        unsigned found = 0;
        DIR *d = opendir(atf_recorder_session_dir(r));
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            found += strncmp(e->d_name, "thread_", 7) == 0;
        if (d)
            closedir(d);
        if (found >= n)
            return 1;
        rt_sleep_us(1000);
    } while (rt_now_ns() < deadline);
    return 0;
}

static void test_files_off_drain_path(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "files");
    atf_recorder_options o = rt_options(dir);
    o.writer_threads = 1;
    o.ring_events = 4096;   /* drained about 250 times for a million events */
    atf_recorder *r = rt_start(&o);
    uint64_t n = rt_scaled(1000000) < 10000 ? 10000 : rt_scaled(1000000);
    producer ps[2];
    atomic_int go = 0;
    ps[0] = (producer){ r, 1, n, 0, 0, 0, NULL, &go };
    pthread_t tb, tn;
    assert_int_equal(pthread_create(&tb, NULL, produce, &ps[0]), 0);
    int busy_ready = wait_thread_dirs(r, 1, 30000);   /* its files exist */
    atomic_store(&files_gate, 1);
    atomic_store(&files_held, 0);
    atomic_store(&rec_files_hook, hold_files);
    ps[1] = (producer){ r, 2, 2, 0, 0, 0, NULL, NULL };
    assert_int_equal(pthread_create(&tn, NULL, produce, &ps[1]), 0);
    uint64_t deadline = rt_now_ns() + 30000000000ull;
    while (!atomic_load(&files_held) && rt_now_ns() < deadline)
        rt_sleep_us(1000);
    int held = atomic_load(&files_held);
    atomic_store(&go, 1);
    int busy_written = wait_written(r, n, 60000);
    atf_recorder_stats mid;
    atf_recorder_get_stats(r, &mid);
    /* Going on whatever was seen, so that a failure does not hang. */
    atomic_store(&files_gate, 0);
    pthread_join(tb, NULL);
    pthread_join(tn, NULL);
    atomic_store(&rec_files_hook, NULL);
    assert_true(busy_ready);
    assert_true(held);                       /* the helper, not the writer, creates files */
    assert_true(busy_written);               /* the busy ring was drained meanwhile */
    assert_int_equal(mid.events_written, n); /* and the held thread's events waited */
    assert_int_equal(ps[0].refused + ps[1].refused, 0);
    atf_recorder_stats st;
    stop_check_all(r, dir, ps, 2, &st);
    rt_rm_rf(dir);
}

/* A flush writes every published event: the files of a queued thread with
 * events published are created by the flush itself, while a thread that
 * recorded a few events (none published) and blocked is left to the files
 * helper, here held on it. The flush returns at once with the first
 * thread's events in its file; fails when a flush waits for every queued
 * thread (it would wait for the held one: timeout) or creates none (the
 * events are not written). */
static void test_flush_skips_unpublished(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "flushq");
    atf_recorder_options o = rt_options(dir);
    o.writer_threads = 1;
    o.publish_batch = 32;   /* 1 event recorded: nothing published */
    atf_recorder *r = rt_start(&o);
    atomic_store(&files_gate, 1);
    atomic_store(&files_held, 0);
    atomic_store(&rec_files_hook, hold_files);
    producer ps[2];
    atomic_int go = 0;
    ps[0] = (producer){ r, 1, 3, 0, 0, 0, NULL, &go };   /* 1 event, waits, 2 more */
    ps[1] = (producer){ r, 2, 100, 0, 0, 0, NULL, NULL }; /* 100 events, exits: all published */
    pthread_t tb, tc;
    assert_int_equal(pthread_create(&tb, NULL, produce, &ps[0]), 0);
    uint64_t deadline = rt_now_ns() + 30000000000ull;
    while (!atomic_load(&files_held) && rt_now_ns() < deadline)
        rt_sleep_us(1000);
    int held = atomic_load(&files_held);
    assert_int_equal(pthread_create(&tc, NULL, produce, &ps[1]), 0);
    pthread_join(tc, NULL);
    uint64_t t0 = rt_now_ns();
    atf_status fl = atf_recorder_flush(r, 10000);
    uint64_t flush_ms = (rt_now_ns() - t0) / 1000000u;
    atf_recorder_stats mid;
    atf_recorder_get_stats(r, &mid);
    int dirs_mid = wait_thread_dirs(r, 1, 0);
    atomic_store(&files_gate, 0);
    atomic_store(&go, 1);
    pthread_join(tb, NULL);
    atomic_store(&rec_files_hook, NULL);
    assert_true(held);
    assert_int_equal(fl, ATF_OK);
    if (flush_ms > 5000)
        fail_msg("the flush took %llu ms: it waited for the held thread", (unsigned long long)flush_ms);
    assert_int_equal(mid.events_written, 100);   /* the exited thread's, none of the held one's */
    assert_true(dirs_mid);
    atf_recorder_stats st;
    stop_check_all(r, dir, ps, 2, &st);
    rt_rm_rf(dir);
}

/* Thread churn: n short-lived threads, `wave` at a time; every thread's
 * files are finalized while the session goes on, the memory goes back to
 * the baseline, one thread_K per thread, nothing lost. */
static void churn(const char *tag, unsigned n, unsigned wave, uint64_t budget, rlim_t nofile)
{
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, tag);
    atf_recorder_options o = rt_options(dir);
    o.memory_budget_bytes = budget;
    struct rlimit saved;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    if (nofile) {
        struct rlimit low = { nofile, saved.rlim_max };
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    }
    atf_recorder *r = rt_start(&o);
    n -= n % wave;
    producer *ps = calloc(n, sizeof *ps);
    assert_non_null(ps);
    for (unsigned i = 0; i < n; i++)
        ps[i] = (producer){ r, i + 1, 37, 0, 0, 0, NULL, NULL };
    for (unsigned g = 0; g < n / wave; g++)
        run_producers(&ps[g * wave], wave);
    atf_recorder_stats st;
    uint64_t deadline = rt_now_ns() + 120000000000ull;
    for (;;) {
        /* A thread leaves the live list before the drain has freed its
         * buffers: wait for both (under qemu-user the gap was seen). */
        atf_recorder_get_stats(r, &st);
        if ((st.threads_live == 0 && st.memory_allocated == 0) || rt_now_ns() > deadline)
            break;
        rt_sleep_us(2000);
    }
    assert_int_equal(st.threads_live, 0);
    assert_int_equal(st.threads, n);
    assert_int_equal(st.memory_allocated, 0);   /* back to the baseline, still recording */
    assert_int_equal(st.events_written, (uint64_t)n * 37);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);   /* the checks open every file */
    stop_check_all(r, dir, ps, n, &st);
    free(ps);
    rt_rm_rf(dir);
}

static void test_churn_many(void **state)
{
    (void)state;
    churn("churn-many", (unsigned)rt_scaled(2000), 8, 0, 0);
}

/* Churn faster than files are finalized, against the smallest budget: the
 * threads that exited fill it (their first rings, their files), new threads
 * wait to register, and the writer still drains and finalizes the exited
 * ones (with its spare window when no window can be had) instead of waiting
 * for memory that only it can free. */
static void test_churn_tight_budget(void **state)
{
    (void)state;
    churn("churn-tight", (unsigned)rt_scaled(1536), 64, 4u << 20, 0);
}

/* Churn with few descriptors (RLIMIT_NOFILE 160, 64 threads at a time,
 * two descriptors per open file): files beyond half the limit are parked
 * at once and reopened when written, instead of failing with EMFILE. */
static void test_churn_few_descriptors(void **state)
{
    (void)state;
    churn("churn-fds", (unsigned)rt_scaled(1536), 64, 0, 160);
}

/* nbusy threads of `events` events each next to nidle idle ones, against a
 * budget of `budget` bytes (ring_events, chunk: options, 0 for the
 * defaults): every event recorded once and in order, the memory within the
 * budget, the producers' waits counted, nothing dropped, the session valid. */
static void busy_in_budget(const char *tag, uint64_t budget, uint64_t ring_events, uint64_t chunk, unsigned nbusy,
                           unsigned nidle, uint64_t events)
{
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, tag);
    atf_recorder_options o = rt_options(dir);
    o.memory_budget_bytes = budget;
    if (ring_events)
        o.ring_events = ring_events;
    if (chunk)
        o.io_chunk_bytes = chunk;
    atf_recorder *r = rt_start(&o);
    producer *ps = calloc(nbusy + nidle, sizeof *ps);
    assert_non_null(ps);
    sleepers z;
    sleepers_start(&z, r, ps + nbusy, nidle, nbusy + 1);
    for (unsigned i = 0; i < nbusy; i++)
        ps[i] = (producer){ r, i + 1, rt_scaled(events), 0, 0, 0, NULL, NULL };
    run_producers(ps, nbusy);
    sleepers_finish(&z);
    atf_recorder_stats st;
    stop_check_all(r, dir, ps, nbusy + nidle, &st);
    assert_int_equal(st.memory_bound, budget);
    if (st.memory_peak > st.memory_bound)
        fail_msg("memory peak %llu over the budget %llu", (unsigned long long)st.memory_peak,
                 (unsigned long long)st.memory_bound);
    assert_true(st.backpressure_waits > 0);
    free(ps);
    rt_rm_rf(dir);
}

/* A 4 MiB budget against 12 busy threads whose rings (up to 2 MiB) and
 * windows (up to 1 MiB) would take 36 MiB, and 64 idle ones. */
static void test_budget_pressure(void **state)
{
    (void)state;
    busy_in_budget("budget", 4u << 20, 1u << 16, 256u << 10, 12, 64, 400000);
}

/* 64 busy threads (and 16 idle ones) on a 32 MiB budget: the rings grow
 * only to their share (half the growth budget over the threads whose rings
 * grew: 256 KiB), the writer leaves a file whose window waits for the disk
 * and fills the others', producers sleep until half their ring is free. */
static void test_many_busy(void **state)
{
    (void)state;
    busy_in_budget("many-busy", 32u << 20, 0, 0, 64, 16, 200000);
}

/* A burst grows the thread's ring and window; a trickle afterwards (still
 * recording, never idle for a flush interval) shrinks them again. */
static void test_memory_follows_rate(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "rate");
    atf_recorder_options o = rt_options(dir);
    o.ring_events = 1u << 16;
    atf_recorder *r = rt_start(&o);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    uint64_t n = 0;
    for (; n < 400000; n++)
        assert_int_equal(atf_recorder_event(r, (n & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL, n), ATF_OK);
    assert_int_equal(atf_recorder_flush(r, 0), ATF_OK);
    atf_recorder_stats burst;
    atf_recorder_get_stats(r, &burst);
    /* Grown past its first ring (4 KiB) and window (8 KiB). */
    assert_true(burst.memory_allocated > 64u << 10);
    uint64_t end = rt_now_ns() + 2600000000ull;
    while (rt_now_ns() < end) {
        assert_int_equal(atf_recorder_event(r, (n & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL, n), ATF_OK);
        n++;
        rt_sleep_us(5000);
    }
    assert_int_equal(atf_recorder_flush(r, 0), ATF_OK);
    atf_recorder_get_stats(r, &st);
    if (st.memory_allocated * 2 > burst.memory_allocated)
        fail_msg("after the burst %llu bytes, after the trickle %llu", (unsigned long long)burst.memory_allocated,
                 (unsigned long long)st.memory_allocated);
    rt_stop(r);
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    assert_int_equal(st.events_dropped, 0);
    assert_int_equal(st.events_written, n);
    atf_session *s = rt_open(dir);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    assert_int_equal(atf_index_reader_count(t->index), n);
    for (uint64_t k = 0; k < n; k++) {
        atf_index_event e;
        atf_index_reader_get(t->index, k, &e);
        if (e.function_id != k)
            fail_msg("event %llu: function %llu", (unsigned long long)k, (unsigned long long)e.function_id);
    }
    atf_session_close(s);
    rt_check(dir, 0);
    rt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eight_threads),
        cmocka_unit_test(test_backpressure),
        cmocka_unit_test(test_drop_mode),
        cmocka_unit_test(test_thread_churn),
        cmocka_unit_test(test_idle_thread_at_stop),
        cmocka_unit_test(test_flush_visible),
        cmocka_unit_test(test_idle_and_busy),
        cmocka_unit_test(test_burst_while_busy),
        cmocka_unit_test(test_files_off_drain_path),
        cmocka_unit_test(test_flush_skips_unpublished),
        cmocka_unit_test(test_churn_many),
        cmocka_unit_test(test_churn_tight_budget),
        cmocka_unit_test(test_churn_few_descriptors),
        cmocka_unit_test(test_budget_pressure),
        cmocka_unit_test(test_memory_follows_rate),
        cmocka_unit_test(test_many_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
