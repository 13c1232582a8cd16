/* The recorder's control side: options, session directory, start and stop,
 * the detail windows, metadata, flush, statistics, and the process-level
 * hooks (atexit, fork). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"        /* the codec's: atf_make_dirs */
#include "manifest_json.h"
#include "rec_internal.h"
#include "rec_manifest.h"
#include "rec_producer.h"
#include "rec_ring.h"
#include "rec_sink.h"
#include "rec_sync.h"
#include "rec_writer.h"

/* Process-wide state: which recorder is active (for the atexit and fork
 * hooks), and recorder ids (never reused, so a stale thread-local cache can
 * never match a new recorder). */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static atf_recorder *g_active;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t g_next_id = 1;

static void at_exit(void)
{
    pthread_mutex_lock(&g_mu);
    atf_recorder *r = g_active;
    pthread_mutex_unlock(&g_mu);
    if (r && r->pid == getpid())
        atf_recorder_stop(r, NULL);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&g_mu);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&g_mu);
}

/* The child has no writer threads and must never write the parent's files:
 * its copy of the recorder refuses events and stop()/destroy() leave it be. */
static void fork_child(void)
{
    atf_recorder *r = g_active;
    if (r) {
        r->forked = 1;
        atomic_store_explicit(&r->live_id, REC_DEAD_ID, RLX);
        atomic_store_explicit(&r->capturing, 0, RLX);
    }
    g_active = NULL;
    rec_producer_fork_child();
    pthread_mutex_unlock(&g_mu);
}

static void global_init(void)
{
    atexit(at_exit);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void rec_fmt(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

const char *atf_recorder_clock_name(uint32_t clock_source)
{
    if (clock_source == ATF_RECORDER_CLOCK_COUNTER) {
#if defined(__aarch64__)
        return "cntvct";
#else
        return "tsc";
#endif
    }
    return "clock_gettime";
}

const char *atf_recorder_io_name(uint32_t io_method)
{
    return io_method == ATF_RECORDER_IO_DIRECT ? "direct" : "buffered";
}

/* ---- Options -------------------------------------------------------------------- */

static uint64_t pow2_at_least(uint64_t v)
{
    uint64_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static atf_status bad_option(atf_error *err, const char *field, const char *why)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = ATF_E_ARG;
        err->offset = UINT64_MAX;
        err->field = field;
        rec_fmt(err->message, sizeof err->message, "recorder option %s: %s", field, why);
    }
    return ATF_E_ARG;
}

/* One writer per CPU, up to 4. With many busy threads the rate is the
 * writing side's share of the CPU: the scheduler gives each runnable
 * thread its turn, so one writer among 64 producers gets a sliver of it
 * (measured on 2 cores: 64 busy threads recorded 25-27 M events/s with one
 * writer, 39-42 M/s with two, in the same conditions). */
static uint32_t default_writers(void)
{
    unsigned n = atf_cpu_count();
    return n > 4 ? 4u : (uint32_t)n;
}

static atf_status normalize(atf_recorder_options *o, atf_error *err)
{
    for (size_t i = 0; i < sizeof o->reserved / sizeof o->reserved[0]; i++)
        if (o->reserved[i])
            return bad_option(err, "reserved", "must be zero");
    if (o->layout == 0)
        o->layout = ATF_LAYOUT_2;
    if (o->layout != ATF_LAYOUT_1 && o->layout != ATF_LAYOUT_2)
        return bad_option(err, "layout", "must be 1 or 2");
    if (o->overflow != ATF_RECORDER_BACKPRESSURE && o->overflow != ATF_RECORDER_DROP)
        return bad_option(err, "overflow", "must be ATF_RECORDER_BACKPRESSURE or ATF_RECORDER_DROP");
    if (o->clock > ATF_RECORDER_CLOCK_COUNTER)
        return bad_option(err, "clock", "unknown clock");
    if (o->io > ATF_RECORDER_IO_BUFFERED)
        return bad_option(err, "io", "unknown I/O method");
    /* max_threads 0: no limit of our own (the budget bounds the memory). */
    if (o->memory_budget_bytes == 0)
        o->memory_budget_bytes = 256u << 20;
    if (o->memory_budget_bytes < (4u << 20))
        return bad_option(err, "memory_budget_bytes", "at least 4 MiB");
    if (o->ring_events == 0)
        o->ring_events = 1u << 17;
    if (o->ring_events < 256 || o->ring_events > (1u << 28))
        return bad_option(err, "ring_events", "must be between 256 and 2^28");
    o->ring_events = (uint32_t)pow2_at_least(o->ring_events);
    /* publish_batch 0: it follows the ring (rec_batch_for). */
    if (o->publish_batch > o->ring_events / 4)
        return bad_option(err, "publish_batch", "at most a quarter of ring_events");
    /* 16 MiB writes from 32 MiB windows: the block layer splits one write
     * into the disk's largest requests (4 MiB on this project's VM) and
     * sends them together, where a file's writes one at a time left the
     * disk idle between them. atf record on Lua: a median 1.92 s against
     * 2.04 s in 4 MiB writes from 16 MiB windows, alternated; atf-bench
     * recorder 75-76 M events/s against 69 (30 Nov 2026, recorder/README.md). */
    if (o->io_chunk_bytes == 0)
        o->io_chunk_bytes = ATF_RECORDER_IO_CHUNK_BYTES;
    if (o->io_chunk_bytes % REC_BLOCK || o->io_chunk_bytes < (64u << 10) || o->io_chunk_bytes > (256u << 20))
        return bad_option(err, "io_chunk_bytes", "must be a multiple of 4096 between 64 KiB and 256 MiB");
    if (o->io_chunks == 0)
        o->io_chunks = ATF_RECORDER_IO_CHUNKS;
    if (o->io_chunks < 2 || o->io_chunks > 1024)
        return bad_option(err, "io_chunks", "must be between 2 and 1024");
    if (o->flush_interval_ms == 0)
        o->flush_interval_ms = 100;
    if (o->writer_threads == 0)
        o->writer_threads = default_writers();
    if (o->writer_threads > 64)
        return bad_option(err, "writer_threads", "at most 64");
    if (o->stop_grace_ms == 0)
        o->stop_grace_ms = 20;
    if (o->durability > ATF_RECORDER_DURABLE_PERIODIC)
        return bad_option(err, "durability", "ATF_RECORDER_DURABLE_NONE or _PERIODIC");
    if (o->sync_interval_ms == 0)
        o->sync_interval_ms = 1000;
    if (o->checksum > 1 || o->sync > 1 || o->detail > 1)
        return bad_option(err, "checksum", "checksum, sync and detail are 0 or 1");
    if (o->detail) {
        if (o->detail_max_payload == 0)
            o->detail_max_payload = 4096;
        if (o->detail_max_payload > (16u << 20))
            return bad_option(err, "detail_max_payload", "at most 16 MiB");
        if (o->detail_ring_bytes == 0)
            o->detail_ring_bytes = 1u << 20;
        uint64_t min = 4 * ((uint64_t)o->detail_max_payload + REC_DREC_HEAD + 8);
        if (o->detail_ring_bytes < min)
            o->detail_ring_bytes = (uint32_t)min;
        o->detail_ring_bytes = (uint32_t)pow2_at_least(o->detail_ring_bytes);
        if (o->pre_roll_bytes == 0)
            o->pre_roll_bytes = 8u << 20;
        if (o->pre_roll_bytes < min)
            o->pre_roll_bytes = min;
    } else {
        o->detail_ring_bytes = 0;
        o->detail_max_payload = 0;
        o->pre_roll_bytes = 0;
        o->pre_roll_ns = o->post_roll_ns = 0;
    }
    return ATF_OK;
}

uint64_t atf_recorder_memory_bound(const atf_recorder_options *opts)
{
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    if (opts)
        o = *opts;
    if (normalize(&o, NULL) != ATF_OK)
        return 0;
    return o.memory_budget_bytes;
}

/* ---- Directories --------------------------------------------------------------- */

static atf_status io_fail(atf_error *err, const char *path, const char *what)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = ATF_E_IO;
        err->offset = UINT64_MAX;
        rec_fmt(err->file, sizeof err->file, "%s", path);
        rec_fmt(err->message, sizeof err->message, "%s: %s", what, strerror(errno));
    }
    return ATF_E_IO;
}

/* ROOT/session_YYYYMMDD_HHMMSS/pid_N, or the exact directory asked for. */
static atf_status make_session_dir(atf_recorder *r, const atf_recorder_options *o, atf_error *err)
{
    char buf[4096];
    if (o->session_dir) {
        /* New or empty: a second session written over a first would mix
         * their thread_K/ directories and lose the second's events. */
        DIR *existing = opendir(o->session_dir);
        if (existing) {
            struct dirent *e;
            int used = 0;
            while (!used && (e = readdir(existing)))
                used = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
            closedir(existing);
            if (used) {
                errno = EEXIST;
                return io_fail(err, o->session_dir, "the session directory is not empty (it must be new or empty)");
            }
        }
        if (atf_make_dirs(o->session_dir) != 0)
            return io_fail(err, o->session_dir, "cannot create the session directory");
        r->dir = strdup(o->session_dir);
        return r->dir ? ATF_OK : ATF_E_NOMEM;
    }
    const char *root = o->root ? o->root : "ada_traces";
    if (atf_make_dirs(root) != 0)
        return io_fail(err, root, "cannot create the root directory");
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
    for (int attempt = 0; attempt < 1000; attempt++) {
        int len = attempt == 0 ? snprintf(buf, sizeof buf, "%s/session_%s/pid_%d", root, stamp, (int)r->pid)
                               : snprintf(buf, sizeof buf, "%s/session_%s_%d/pid_%d", root, stamp, attempt,
                                          (int)r->pid);
        if (len < 0 || (size_t)len >= sizeof buf) {
            errno = ENAMETOOLONG;
            return io_fail(err, root, "cannot create the session directory");
        }
        char *slash = strrchr(buf, '/');
        *slash = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return io_fail(err, buf, "cannot create the session directory");
        *slash = '/';
        if (mkdir(buf, 0755) == 0) {
            r->dir = strdup(buf);
            return r->dir ? ATF_OK : ATF_E_NOMEM;
        }
        if (errno != EEXIST)
            return io_fail(err, buf, "cannot create the session directory");
    }
    errno = EEXIST;
    return io_fail(err, buf, "cannot find a free session directory name");
}

/* Does the file system take 4096-aligned O_DIRECT writes? */
static int direct_io_works(const char *dir)
{
#if defined(O_DIRECT)
    char path[4200];
    int len = snprintf(path, sizeof path, "%s/.odirect-probe", dir);
    if (len < 0 || (size_t)len >= sizeof path)
        return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
    if (fd < 0) {
        unlink(path);
        return 0;
    }
    void *b = mmap(NULL, REC_BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int ok = b != MAP_FAILED && pwrite(fd, b, REC_BLOCK, 0) == (ssize_t)REC_BLOCK;
    if (b != MAP_FAILED)
        munmap(b, REC_BLOCK);
    close(fd);
    unlink(path);
    return ok;
#else
    (void)dir;
    return 0;
#endif
}

/* ---- Start, stop, destroy -------------------------------------------------------- */

static void free_recorder(atf_recorder *r)
{
    if (r->writers) {
        for (unsigned i = 0; i < r->nwriters; i++) {
            free(r->writers[i].win);
            free(r->writers[i].list);
        }
        free(r->writers);
    }
    for (size_t i = 0; i < r->nmodules; i++) {
        free((char *)r->modules[i].path);
        free((char *)r->modules[i].uuid);
    }
    for (size_t i = 0; i < r->nsymbols; i++)
        free((char *)r->symbols[i].name);
    free(r->modules);
    free(r->symbols);
    free(r->anchors);
    free(r->sum);
    free(r->sum_of);
    free(r->win);
    free(r->root);
    free(r->dir);
    pthread_mutex_destroy(&r->reg_mu);
    pthread_mutex_destroy(&r->win_mu);
    pthread_mutex_destroy(&r->man_mu);
    pthread_mutex_destroy(&r->flush_mu);
    pthread_mutex_destroy(&r->stop_mu);
    pthread_cond_destroy(&r->flush_cv);
    rec_sync_destroy(r);
    free(r);
}

static void stop_writers(atf_recorder *r)
{
    atomic_store_explicit(&r->stopping, 1, SEQ);
    for (unsigned i = 0; i < r->nwriters; i++) {
        rec_writer *w = &r->writers[i];
        atomic_fetch_add_explicit(&w->wake_seq, 1, SEQ);
        rec_wake32(&w->wake_seq);
    }
    for (unsigned i = 0; i < r->nwriters; i++) {
        rec_writer *w = &r->writers[i];
        if (w->started)
            pthread_join(w->th, NULL);
        w->started = 0;
        rec_io_stop(&w->io);
    }
}

/* The clock source the options ask for and the machine has. */
static atf_status pick_clock(const atf_recorder_options *o, uint32_t *source, atf_error *err)
{
    *source = o->clock == ATF_RECORDER_CLOCK_SYSTEM ? ATF_RECORDER_CLOCK_SYSTEM
              : rec_counter_available()            ? ATF_RECORDER_CLOCK_COUNTER
                                                   : ATF_RECORDER_CLOCK_SYSTEM;
    if (o->clock == ATF_RECORDER_CLOCK_COUNTER && *source != ATF_RECORDER_CLOCK_COUNTER) {
        if (err) {
            err->code = ATF_E_UNSUPPORTED;
            snprintf(err->message, sizeof err->message,
                     "no reliable CPU counter (invariant TSC used by the kernel, or CNTVCT_EL0)");
        }
        return ATF_E_UNSUPPORTED;
    }
    return ATF_OK;
}

/* A stopped recorder for the normalized options: locks, sizes, the budget
 * and the writers' slots (no thread, no file yet). NULL: no memory. */
static atf_recorder *new_recorder(const atf_recorder_options *o)
{
    atf_recorder *r = NULL;
    if (posix_memalign((void **)&r, REC_LINE, sizeof *r) != 0)
        return NULL;
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->reg_mu, NULL);
    pthread_mutex_init(&r->win_mu, NULL);
    pthread_mutex_init(&r->man_mu, NULL);
    pthread_mutex_init(&r->flush_mu, NULL);
    pthread_mutex_init(&r->stop_mu, NULL);
    pthread_cond_init(&r->flush_cv, NULL);
    atomic_init(&r->live_id, REC_DEAD_ID);
    r->o = *o;
    r->o.root = NULL;
    r->o.session_dir = NULL;
    r->pid = getpid();
    r->ring_events = o->ring_events;
    /* A thread's first ring: one page, or 4 publish batches. */
    uint32_t first_batch = rec_batch_for(o->publish_batch, 0);
    r->ring_min = 4096u / ATF_INDEX_EVENT_SIZE;
    if (r->ring_min < 4u * first_batch)
        r->ring_min = pow2_at_least(4u * first_batch);
    if (r->ring_min > r->ring_events)
        r->ring_min = r->ring_events;
    r->memory_bound = o->memory_budget_bytes;
    r->nwriters = o->writer_threads;
    r->ncpu = atf_cpu_count();
    /* Each writer keeps one spare window out of the budget (rec_writer.c). */
    r->budget.limit = o->memory_budget_bytes - (uint64_t)r->nwriters * REC_SINK_MIN;
    /* Files keep their descriptors while they fit in half the process's
     * limit; beyond that idle ones are parked at once (and reopened). */
    struct rlimit nofile;
    r->budget.files_cap = 512;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0)
        r->budget.files_cap = nofile.rlim_cur == RLIM_INFINITY ? 1u << 20
                              : nofile.rlim_cur / 2 > 64     ? nofile.rlim_cur / 2
                                                             : 64;
    r->writers = calloc(r->nwriters, sizeof *r->writers);
    if (!r->writers) {
        free_recorder(r);
        return NULL;
    }
    return r;
}

/* O_DIRECT if asked for or if the session's file system takes it. */
static atf_status choose_io(atf_recorder *r, const atf_recorder_options *o, atf_error *err)
{
    if (o->io == ATF_RECORDER_IO_BUFFERED) {
        r->io_method = ATF_RECORDER_IO_BUFFERED;
    } else if (direct_io_works(r->dir)) {
        r->io_method = ATF_RECORDER_IO_DIRECT;
    } else if (o->io == ATF_RECORDER_IO_DIRECT) {
        if (err) {
            err->code = ATF_E_UNSUPPORTED;
            rec_fmt(err->file, sizeof err->file, "%s", r->dir);
            rec_fmt(err->message, sizeof err->message, "the file system does not support O_DIRECT writes");
        }
        return ATF_E_UNSUPPORTED;
    } else {
        r->io_method = ATF_RECORDER_IO_BUFFERED;
    }
    return ATF_OK;
}

static atf_status start_failed(atf_error *err, const char *what)
{
    if (err) {
        err->code = ATF_E_NOMEM;
        rec_fmt(err->message, sizeof err->message, "cannot start the %s", what);
    }
    return ATF_E_NOMEM;
}

/* The writers (each with its I/O threads) and the sync thread. They start
 * with every signal blocked (a thread inherits its creator's mask): a
 * process-directed signal (SIGALRM, SIGCHLD, SIGPROF, a SIGINT from the
 * terminal...) is then handled by one of the program's own threads, never
 * by a recorder thread, whose handler would run where the program does not
 * expect it and, traced, record into the recorder from inside it. */
static atf_status start_threads(atf_recorder *r, atf_error *err)
{
    for (unsigned i = 0; i < r->nwriters; i++) {
        r->writers[i].r = r;
        r->writers[i].index = i;
        r->writers[i].clock = r->clock;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    atf_status st = ATF_OK;
    for (unsigned i = 0; i < r->nwriters && st == ATF_OK; i++) {
        rec_writer *w = &r->writers[i];
        if (rec_io_start(&w->io) != 0 || pthread_create(&w->th, NULL, rec_writer_main, w) != 0)
            st = start_failed(err, "writer threads");
        else
            w->started = 1;
    }
    if (st == ATF_OK && rec_sync_start(r) != 0)
        st = start_failed(err, "sync thread");
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return st;
}

atf_status atf_recorder_start(atf_recorder **out, const atf_recorder_options *opts, atf_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!out)
        return bad_option(err, "out", "must not be NULL");
    *out = NULL;
    pthread_once(&g_once, global_init);
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    if (opts)
        o = *opts;
    atf_status st = normalize(&o, err);
    if (st)
        return st;
    uint32_t source;
    st = pick_clock(&o, &source, err);
    if (st)
        return st;
    atf_recorder *r = new_recorder(&o);
    if (!r)
        return ATF_E_NOMEM;

    pthread_mutex_lock(&g_mu);
    if (g_active) {
        pthread_mutex_unlock(&g_mu);
        free_recorder(r);
        if (err) {
            err->code = ATF_E_STATE;
            rec_fmt(err->message, sizeof err->message, "another recorder is active in this process");
        }
        return ATF_E_STATE;
    }
    st = make_session_dir(r, &o, err);
    if (!st)
        st = choose_io(r, &o, err);
    if (st)
        goto fail;
    rec_clock_init(&r->clock, source);
    pthread_mutex_lock(&r->man_mu);
    st = rec_manifest_write(r, 0, err);
    pthread_mutex_unlock(&r->man_mu);
    if (!st)
        st = start_threads(r, err);
    if (st)
        goto fail;
    r->id = atomic_fetch_add_explicit(&g_next_id, 1, RLX);
    atomic_store_explicit(&r->capturing, o.detail && o.pre_roll_ns > 0, RLX);
    atomic_store_explicit(&r->live_id, r->id, REL);
    g_active = r;
    pthread_mutex_unlock(&g_mu);
    *out = r;
    return ATF_OK;
fail:
    pthread_mutex_unlock(&g_mu);
    rec_sync_stop(r);
    stop_writers(r);
    free_recorder(r);
    return st;
}

/* Lets live threads publish their last events: they are asked to, and
 * their next recording call (refused) publishes too. */
static void grace(atf_recorder *r)
{
    uint64_t deadline = rec_clock_system_ns() + (uint64_t)r->o.stop_grace_ms * 1000000u;
    for (;;) {
        int pending = 0;
        pthread_mutex_lock(&r->reg_mu);
        for (rec_thread *t = r->live; t; t = t->gnext) {
            if (atomic_load_explicit(&t->exited, ACQ))
                continue;
            if (atomic_load_explicit(&t->head, RLX) != atomic_load_explicit(&t->pub_head, ACQ)) {
                atomic_store_explicit(&t->flush_req, 1, RLX);
                pending = 1;
            }
        }
        pthread_mutex_unlock(&r->reg_mu);
        if (!pending || rec_clock_system_ns() >= deadline)
            return;
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
    }
}

/* Clears err; ATF_E_ARG without a recorder, ATF_E_STATE in a forked child
 * (the recorder belongs to the parent): what stop() and sync() check first. */
atf_status rec_owner_check(atf_recorder *r, atf_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!r)
        return ATF_E_ARG;
    if (r->forked || r->pid != getpid()) {
        if (err) {
            err->code = ATF_E_STATE;
            rec_fmt(err->message, sizeof err->message, "the recorder belongs to the parent process");
        }
        return ATF_E_STATE;
    }
    return ATF_OK;
}

atf_status atf_recorder_stop(atf_recorder *r, atf_error *err)
{
    atf_status own = rec_owner_check(r, err);
    if (own != ATF_OK)
        return own;
    pthread_mutex_lock(&r->stop_mu);
    if (r->stopped) {
        if (err)
            *err = r->stop_err;
        pthread_mutex_unlock(&r->stop_mu);
        return r->stop_status;
    }
    rec_producer_publish_self(r);
    atomic_store_explicit(&r->live_id, REC_DEAD_ID, SEQ);
    /* A registration in progress finishes; later ones see the dead id. */
    pthread_mutex_lock(&r->reg_mu);
    pthread_mutex_unlock(&r->reg_mu);
    grace(r);
    /* Open detail windows (and post-rolls) end now. */
    pthread_mutex_lock(&r->win_mu);
    uint64_t now = rec_clock_system_ns();
    for (size_t i = 0; i < r->nwin; i++)
        if (r->win[i].b > now)
            r->win[i].b = now;
    atomic_fetch_add_explicit(&r->win_gen, 1, RLX);
    pthread_mutex_unlock(&r->win_mu);
    atomic_store_explicit(&r->capturing, 0, RLX);

    rec_sync_stop(r);
    stop_writers(r);

    pthread_mutex_lock(&r->man_mu);
    r->complete = 1;
    atf_error e;
    memset(&e, 0, sizeof e);
    atf_status st = rec_manifest_write(r, r->o.sync, &e);
    if (r->io_err.code != ATF_OK) {
        st = ATF_E_IO;
        e = r->io_err;
    }
    pthread_mutex_unlock(&r->man_mu);
    /* The files were fdatasynced at finalize, the manifest and its
     * directory too; the threads' directories and files were created by
     * mkdir + rename, which only a sync of their directories makes durable. */
    if (st == ATF_OK && r->o.sync)
        st = rec_sync_final(r, &e);

    pthread_mutex_lock(&g_mu);
    if (g_active == r)
        g_active = NULL;
    pthread_mutex_unlock(&g_mu);
    pthread_mutex_lock(&r->flush_mu);
    pthread_cond_broadcast(&r->flush_cv);
    pthread_mutex_unlock(&r->flush_mu);
    r->stopped = 1;
    r->stop_status = st;
    r->stop_err = e;
    if (err)
        *err = e;
    pthread_mutex_unlock(&r->stop_mu);
    return st;
}

void atf_recorder_destroy(atf_recorder *r)
{
    if (!r)
        return;
    if (r->forked || r->pid != getpid())
        return;   /* a forked child's copy: the parent owns the session */
    atf_recorder_stop(r, NULL);
    free_recorder(r);
}

const char *atf_recorder_session_dir(const atf_recorder *r)
{
    return r ? r->dir : NULL;
}

/* ---- Detail windows ---------------------------------------------------------------- */

static int running(const atf_recorder *r)
{
    return atomic_load_explicit(&r->live_id, ACQ) == r->id;
}

static void wake_writers(atf_recorder *r)
{
    for (unsigned i = 0; i < r->nwriters; i++)
        rec_writer_wake(&r->writers[i]);
}

atf_status atf_recorder_detail_enable(atf_recorder *r, uint64_t *at_ns)
{
    if (!r)
        return ATF_E_ARG;
    if (!r->o.detail || !running(r))
        return ATF_E_STATE;
    pthread_mutex_lock(&r->win_mu);
    uint64_t now = rec_clock_system_ns();
    uint64_t a = now > r->o.pre_roll_ns ? now - r->o.pre_roll_ns : 0;
    atf_status st = ATF_OK;
    if (r->nwin && r->win[r->nwin - 1].b == UINT64_MAX) {
        /* already open */
    } else if (r->nwin && r->win[r->nwin - 1].b >= a) {
        r->win[r->nwin - 1].b = UINT64_MAX;   /* still in its post-roll: extend it */
    } else {
        if (r->nwin == r->capwin) {
            size_t n = r->capwin ? r->capwin * 2 : 8;
            rec_window *w = realloc(r->win, n * sizeof *w);
            if (!w)
                st = ATF_E_NOMEM;
            else {
                r->win = w;
                r->capwin = n;
            }
        }
        if (!st)
            r->win[r->nwin++] = (rec_window){ a, UINT64_MAX };
    }
    if (!st) {
        atomic_fetch_add_explicit(&r->win_gen, 1, RLX);
        atomic_store_explicit(&r->capturing, 1, RLX);
    }
    pthread_mutex_unlock(&r->win_mu);
    if (at_ns)
        *at_ns = now;
    pthread_mutex_lock(&r->man_mu);
    r->manifest_dirty = r->manifest_dirty ? r->manifest_dirty : 1;
    pthread_mutex_unlock(&r->man_mu);
    wake_writers(r);
    return st;
}

atf_status atf_recorder_detail_disable(atf_recorder *r, uint64_t *at_ns)
{
    if (!r)
        return ATF_E_ARG;
    if (!r->o.detail || !running(r))
        return ATF_E_STATE;
    pthread_mutex_lock(&r->win_mu);
    uint64_t now = rec_clock_system_ns();
    if (r->nwin && r->win[r->nwin - 1].b == UINT64_MAX) {
        r->win[r->nwin - 1].b = now + r->o.post_roll_ns;
        atomic_fetch_add_explicit(&r->win_gen, 1, RLX);
    }
    pthread_mutex_unlock(&r->win_mu);
    if (at_ns)
        *at_ns = now;
    wake_writers(r);
    return ATF_OK;
}

/* ---- Metadata ------------------------------------------------------------------------ */

uint64_t atf_recorder_now_ns(const atf_recorder *r)
{
    (void)r;
    return rec_clock_system_ns();
}

/* Appends the elem-byte *item to a manifest table (table: the address of
 * its pointer; *count items) under man_mu and marks the manifest for
 * rewriting. -1: out of memory (the table unchanged). The table's pointer
 * is read and written with memcpy: it is a pointer to some other type. */
static int man_append(atf_recorder *r, void *table, size_t *count, const void *item, size_t elem)
{
    pthread_mutex_lock(&r->man_mu);
    void *arr;
    memcpy(&arr, table, sizeof arr);
    unsigned char *n = realloc(arr, (*count + 1) * elem);
    if (n) {
        memcpy(n + *count * elem, item, elem);
        memcpy(table, &n, sizeof n);
        ++*count;
        if (!r->manifest_dirty)
            r->manifest_dirty = 1;
    }
    pthread_mutex_unlock(&r->man_mu);
    return n ? 0 : -1;
}

atf_status atf_recorder_add_anchor(atf_recorder *r, uint64_t host_time_ns, int64_t media_time_value,
                                   int32_t media_time_scale)
{
    if (!r || media_time_scale <= 0)
        return ATF_E_ARG;
    if (r->stopped)
        return ATF_E_STATE;
    atf_timing_anchor a = { host_time_ns ? host_time_ns : rec_clock_system_ns(), media_time_value, media_time_scale };
    return man_append(r, &r->anchors, &r->nanchors, &a, sizeof a) ? ATF_E_NOMEM : ATF_OK;
}

atf_status atf_recorder_add_module(atf_recorder *r, const atf_manifest_module *m)
{
    if (!r || !m || !atf_manifest_text_ok(m->path) || !atf_manifest_text_ok(m->uuid))
        return ATF_E_ARG;   /* manifest.json holds UTF-8 only */
    if (r->stopped)
        return ATF_E_STATE;
    atf_manifest_module c = *m;
    c.path = strdup(m->path ? m->path : "");
    c.uuid = strdup(m->uuid ? m->uuid : "");
    if (!c.path || !c.uuid || man_append(r, &r->modules, &r->nmodules, &c, sizeof c)) {
        free((char *)c.path);
        free((char *)c.uuid);
        return ATF_E_NOMEM;
    }
    return ATF_OK;
}

atf_status atf_recorder_add_symbol(atf_recorder *r, const atf_manifest_symbol *s)
{
    if (!r || !s || !atf_manifest_text_ok(s->name))
        return ATF_E_ARG;   /* manifest.json holds UTF-8 only */
    if (r->stopped)
        return ATF_E_STATE;
    atf_manifest_symbol c = *s;
    c.name = strdup(s->name ? s->name : "");
    if (!c.name || man_append(r, &r->symbols, &r->nsymbols, &c, sizeof c)) {
        free((char *)c.name);
        return ATF_E_NOMEM;
    }
    return ATF_OK;
}

/* ---- Flush and statistics ------------------------------------------------------------ */

atf_status atf_recorder_flush(atf_recorder *r, uint32_t timeout_ms)
{
    if (!r)
        return ATF_E_ARG;
    if (!running(r))
        return ATF_E_STATE;
    rec_producer_publish_self(r);
    pthread_mutex_lock(&r->reg_mu);
    for (rec_thread *t = r->live; t; t = t->gnext)
        atomic_store_explicit(&t->flush_req, 1, RLX);
    pthread_mutex_unlock(&r->reg_mu);
    uint64_t g = atomic_fetch_add_explicit(&r->flush_req, 1, SEQ) + 1;
    uint64_t errors = atomic_load_explicit(&r->io_errors, RLX);
    wake_writers(r);
    struct timespec deadline;
    rec_deadline_after(&deadline, CLOCK_REALTIME, timeout_ms);
    atf_status st = ATF_OK;
    pthread_mutex_lock(&r->flush_mu);
    for (;;) {
        int done = 1;
        for (unsigned i = 0; i < r->nwriters; i++)
            if (atomic_load_explicit(&r->writers[i].flush_done, ACQ) < g)
                done = 0;
        if (done)
            break;
        if (atomic_load_explicit(&r->stopping, ACQ)) {
            st = ATF_E_STATE;
            break;
        }
        if (timeout_ms == 0) {
            pthread_cond_wait(&r->flush_cv, &r->flush_mu);
        } else if (pthread_cond_timedwait(&r->flush_cv, &r->flush_mu, &deadline) == ETIMEDOUT) {
            st = ATF_E_LIMIT;
            break;
        }
    }
    pthread_mutex_unlock(&r->flush_mu);
    if (!st && atomic_load_explicit(&r->io_errors, RLX) != errors)
        st = ATF_E_IO;
    return st;
}

void atf_recorder_get_stats(const atf_recorder *cr, atf_recorder_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!cr)
        return;
    atf_recorder *r = (atf_recorder *)cr;
    pthread_mutex_lock(&r->reg_mu);
    out->threads = r->next_k;
    /* Producer-side counters of live threads come from the rings... */
    for (rec_thread *t = r->live; t; t = t->gnext) {
        out->threads_live++;
        out->events_recorded += atomic_load_explicit(&t->head, RLX);
        out->events_dropped_full += atomic_load_explicit(&t->dropped, RLX);
        out->backpressure_waits += atomic_load_explicit(&t->bp_waits, RLX);
        out->backpressure_wait_ns += atomic_load_explicit(&t->bp_wait_ns, RLX);
        out->detail_recorded += atomic_load_explicit(&t->detail_recorded, RLX);
        out->detail_dropped += atomic_load_explicit(&t->detail_dropped, RLX);
    }
    pthread_mutex_unlock(&r->reg_mu);
    /* ... those of finished threads, and the writer-side ones, from the summaries. */
    pthread_mutex_lock(&r->man_mu);
    for (size_t i = 0; i < r->nsum; i++) {
        const rec_summary *s = &r->sum[i];
        if (s->finalized) {
            out->events_recorded += s->recorded;
            out->events_dropped_full += s->dropped;
            out->backpressure_waits += s->bp_waits;
            out->backpressure_wait_ns += s->bp_wait_ns;
            out->detail_recorded += s->detail_recorded;
            out->detail_dropped += s->detail_dropped;
        } else {
            out->detail_dropped += s->detail_dropped - s->producer_detail_dropped;
        }
        out->events_lost_at_stop += s->lost_at_stop;
        out->events_lost_io += s->lost_io;
        out->events_rejected += s->rejected;
        out->detail_preroll_evicted += s->preroll_evicted;
        out->detail_links_patched += s->links_patched;
    }
    pthread_mutex_unlock(&r->man_mu);
    out->events_rejected += atomic_load_explicit(&r->events_rejected, RLX);
    out->events_dropped =
        out->events_dropped_full + out->events_lost_at_stop + out->events_rejected + out->events_lost_io;
    out->events_after_stop = atomic_load_explicit(&r->events_after_stop, RLX);
    out->events_written = atomic_load_explicit(&r->events_written, RLX);
    out->detail_written = atomic_load_explicit(&r->detail_written, RLX);
    out->bytes_written = atomic_load_explicit(&r->bytes_written, RLX);
    out->memory_bound = r->memory_bound;
    out->memory_allocated = atomic_load_explicit(&r->budget.used, RLX);
    out->memory_peak = atomic_load_explicit(&r->budget.peak, RLX);
    for (unsigned i = 0; i < r->nwriters; i++) {
        uint64_t m = atomic_load_explicit(&r->writers[i].clock.max_step_ns, RLX);
        if (m > out->clock_max_step_ns)
            out->clock_max_step_ns = m;
    }
    out->clock_source = r->clock.source;
    out->io_method = r->io_method;
    out->syncs = (uint32_t)atomic_load_explicit(&r->syncs, RLX);
    uint64_t files_us = atomic_load_explicit(&r->thread_files_ns, RLX) / 1000u;
    out->thread_files_us = files_us > UINT32_MAX ? UINT32_MAX : (uint32_t)files_us;
}
