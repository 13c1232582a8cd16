/* atf-bench recorder: the recorder's throughput on a synthetic workload,
 * against the raw write bandwidth of the same I/O method on the same disk,
 * measured in the same run.
 *
 *   atf-bench recorder --threads N --events-per-thread M --out DIR
 *                      [--detail] [--json] [--clock auto|system|counter]
 *                      [--io auto|direct|buffered] [--ring-events N]
 *                      [--chunk-mb N] [--chunks N] [--batch N] [--drop]
 *                      [--budget-mb N] [--no-sync] [--raw-mb N] [--no-validate]
 *                      [--check MIN_EVENTS_PER_SEC]
 *   atf-bench recorder --threads N [--idle I] [--baseline-threads B] [--rounds R] ...
 *       Scaling: B busy threads alone, then N busy threads next to I idle
 *       ones (each records a call and its return, waits, and records
 *       another pair at the end), in one run; the baseline records as many
 *       events in all (N x M / B each). Prints both rates (busy events
 *       recorded and on disk per second), the ratio, peak RSS and the
 *       per-thread figures. The idle threads are started first and the busy
 *       ones only once the idle ones' files exist and were seen idle.
 *       --rounds R alternates the two phases R times, in both orders: the
 *       median ratio.
 *       --burst: the I idle threads start 10 ms into the main phase, while
 *       the busy threads run (issue 26's burst: 1,000 threads registering
 *       next to 10 busy ones); the ratio is then the busy threads' rate
 *       during a registration burst against theirs alone.
 *       --bare (with --burst): the same burst of threads, which never call
 *       the recorder: what creating 1,000 threads costs the busy ones by
 *       itself on this machine. Beside a --burst run's ratio it says what
 *       the recorder adds (its own work for the new threads: registering
 *       them and creating their files).
 *   atf-bench recorder --churn T [--churn-parallel P] --events-per-thread M
 *       Thread churn: T short-lived threads (P at a time) each record M
 *       events and exit; threads/s created and finalized, peak RSS, memory
 *       after they are gone, the session's thread_K count.
 *
 * Each producer records M events (call/return alternating, function_id =
 * thread << 32 | counter; with --detail every event carries a 100-byte ARM64
 * function payload and the detail lane is recording). Before the main run,
 * short bursts that fit in the ring measure the producer's own cost per
 * event (no waiting). The session is then checked with the clause
 * validator of `atf validate`. --check turns the run into a gate: exit 1
 * unless the rate reaches the minimum, nothing was lost and the session is
 * conformant (exit 2: the run itself failed). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <atf/recorder.h>
#include <atf/validator.h>

#if defined(__x86_64__)
#  include <x86intrin.h>
#endif

#include "bench.h"
#include "internal.h"   /* the codec's: atf_make_dirs */
#include "rec_sink.h"   /* the recorder's: rec_map_window */

/* snprintf for messages: truncation is fine (and not a warning). */
static void fmt(char *dst, size_t cap, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *dst, size_t cap, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(dst, cap, f, ap);
    va_end(ap);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t free_bytes(const char *dir)
{
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0)
        return 0;
    return (uint64_t)sv.f_bavail * sv.f_frsize;
}

/* Bytes the kernel lets be dirty before writers are throttled (vm.dirty_ratio
 * of the available memory; an estimate, for the report only). */
static uint64_t dirty_limit_bytes(void)
{
    FILE *f = fopen("/proc/sys/vm/dirty_ratio", "r");
    unsigned ratio = 20;
    if (f) {
        if (fscanf(f, "%u", &ratio) != 1)
            ratio = 20;
        fclose(f);
    }
    uint64_t mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    return mem / 100 * ratio;
}

typedef struct bench_thread {
    atf_recorder *r;
    uint64_t tag, n, start;
    int detail;
    double seconds, cpu;
    uint64_t refused;
    pthread_barrier_t *barrier;
} bench_thread;

static inline atf_status one_event(atf_recorder *r, int detail, uint64_t tag, uint64_t i)
{
    uint32_t kind = (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
    uint64_t fid = tag << 32 | (i & 0xFFFFFFFFu);
    if (!detail)
        return atf_recorder_event(r, kind, fid);
    atf_arm64_payload p;
    memset(&p, 0, sizeof p);
    p.function_id = fid;
    p.x[0] = i;
    p.lr = 0x400000 + (i & 0xFFF);
    p.sp = 0x7ff000000000;
    return atf_recorder_event_arm64(r, kind, &p);
}

static void *producer(void *p)
{
    bench_thread *a = p;
    pthread_barrier_wait(a->barrier);
    double t0 = now_s();
    for (uint64_t i = a->start; i < a->start + a->n; i++)
        a->refused += one_event(a->r, a->detail, a->tag, i) != ATF_OK;
    a->seconds = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    a->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
             (double)ru.ru_stime.tv_usec * 1e-6;
    return NULL;
}

/* Producer cost without waiting: bursts of `burst` events (which fit in the
 * ring) with a pause for the writer in between; the fastest burst counts
 * (the others may have been preempted on a busy machine). */
static double clock_read_ns(uint32_t source);

static double burst_ns(atf_recorder *r, int detail, uint64_t burst, int rounds, uint64_t *next, uint32_t source,
                       double *clk)
{
    double best = 1e9;
    *clk = 1e9;
    for (int k = 0; k < rounds; k++) {
        double c = clock_read_ns(source);   /* the same conditions as the burst */
        if (c < *clk)
            *clk = c;
        double t0 = now_s();
        for (uint64_t i = 0; i < burst; i++)
            one_event(r, detail, 1, (*next)++);
        double ns = (now_s() - t0) * 1e9 / (double)burst;
        if (ns < best)
            best = ns;
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    return best;
}

/* ns per read of the clock source alone (the floor under the producer cost). */
static double clock_read_ns(uint32_t source)
{
    const int n = 200000;
    uint64_t sink = 0;
    double best = 1e9;
    for (int round = 0; round < 2; round++) {
        double t0 = now_s();
        for (int i = 0; i < n; i++) {
            if (source == ATF_RECORDER_CLOCK_COUNTER) {
#if defined(__x86_64__)
                sink += __rdtsc();
#elif defined(__aarch64__)
                uint64_t v;
                __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
                sink += v;
#endif
            } else {
                struct timespec ts;
                clock_gettime(CLOCK_BOOTTIME, &ts);
                sink += (uint64_t)ts.tv_nsec;
            }
        }
        double ns = (now_s() - t0) * 1e9 / n;
        if (ns < best)
            best = ns;
    }
    __asm__ __volatile__("" : : "r"(sink));
    return best;
}

/* The raw bandwidth of the same method: sequential appends of chunk bytes
 * from one buffer of the memory the recorder's windows use (huge pages: a
 * buffer of small pages writes far slower on a virtio disk) to a new file,
 * then fdatasync. */
static double raw_write_gbps(const char *dir, uint32_t io, uint64_t bytes, uint64_t chunk, char *why, size_t whycap)
{
    char path[4200];
    int len = snprintf(path, sizeof path, "%s/.atf-bench-raw-%d", dir, (int)getpid());
    if (len < 0 || (size_t)len >= sizeof path) {
        fmt(why, whycap, "path too long");
        return -1;
    }
    int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
#if defined(O_DIRECT)
    if (io == ATF_RECORDER_IO_DIRECT)
        flags |= O_DIRECT;
#endif
    int fd = open(path, flags, 0644);
    void *buf = rec_map_window(chunk);   /* the recorder's windows' memory (huge pages where it has them) */
    if (fd < 0 || buf == NULL) {
        fmt(why, whycap, "cannot create %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (buf != NULL)
            munmap(buf, chunk);
        return -1;
    }
    memset(buf, 0xA5, chunk);
    double t0 = now_s();
    uint64_t off = 0;
    int ok = 1;
    while (off < bytes) {
        ssize_t w = pwrite(fd, buf, chunk, (off_t)off);
        if (w != (ssize_t)chunk) {
            fmt(why, whycap, "write failed: %s", w < 0 ? strerror(errno) : "short write");
            ok = 0;
            break;
        }
        off += chunk;
    }
    if (ok && fdatasync(fd) != 0)
        ok = 0;
    double t = now_s() - t0;
    close(fd);
    unlink(path);
    munmap(buf, chunk);
    return ok ? (double)off / t / 1e9 : -1;
}

/* CPU seconds used so far by this process's threads named `name`. */
static double thread_cpu(const char *name)
{
    char path[128], comm[64], buf[1024];
    double total = 0;
    long tick = sysconf(_SC_CLK_TCK);
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return -1;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.32s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int ok = fgets(comm, sizeof comm, f) != NULL;
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        if (!ok || strcmp(comm, name) != 0)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.32s/stat", e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* after the ")" that ends comm: state ppid pgrp session tty tpgid
         * flags minflt cminflt majflt cmajflt utime stime */
        char *p = strrchr(buf, ')');
        unsigned long long ut = 0, st = 0;
        if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
            total += (double)(ut + st) / (double)tick;
    }
    closedir(dir);
    return total;
}

typedef struct findings {
    uint64_t errors, warnings;
    char first[512];
} findings;

/* The checks of `atf validate` (the clause validator) over the session. */
static int validate_session(const char *session, findings *f)
{
    atf_validation *v = NULL;
    atf_error err;
    memset(f, 0, sizeof *f);
    if (atf_validate_path(&v, session, NULL, &err) != ATF_OK) {
        f->errors = 1;
        fmt(f->first, sizeof f->first, "validation could not run: %s", err.message);
        return 0;
    }
    atf_validation_counts(v, &f->errors, &f->warnings);
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *x = atf_validation_finding_at(v, i);
        if (x->severity == ATF_SEV_ERROR) {
            fmt(f->first, sizeof f->first, "%s %s: %s", x->clause, x->file, x->message);
            break;
        }
    }
    int ok = atf_validation_conformant(v);
    atf_validation_free(v);
    return ok;
}

/* ---- Scaling: many threads, idle threads, churn ------------------------------ */

#define BENCH_MAX_THREADS 200000u

typedef struct scaling {
    unsigned idle, baseline;
    uint64_t churn;
    unsigned parallel, rounds;
    int burst, bare;
} scaling;

/* Resident set now and its peak since the last reset (VmRSS, VmHWM), bytes. */
static void rss_read(uint64_t *now, uint64_t *peak)
{
    char line[256];
    uint64_t kb;
    if (now)
        *now = 0;
    if (peak)
        *peak = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (now && sscanf(line, "VmRSS: %" SCNu64 " kB", &kb) == 1)
            *now = kb * 1024u;
        if (peak && sscanf(line, "VmHWM: %" SCNu64 " kB", &kb) == 1)
            *peak = kb * 1024u;
    }
    fclose(f);
}

/* Starts a new peak-RSS measurement (Linux: "5" to clear_refs resets VmHWM). */
static void rss_reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static double mib(uint64_t b)
{
    return (double)b / 1048576.0;
}

/* Idle threads: one call and its return, a wait, then another pair and exit
 * (a worker that wakes up rarely). */
typedef struct idle_group {
    atf_recorder *r;
    int bare;   /* --bare: the threads never call the recorder */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int release;
    _Atomic unsigned ready;
    _Atomic uint64_t refused;
} idle_group;

typedef struct idle_arg {
    idle_group *g;
    uint64_t tag;
} idle_arg;

static void *idle_thread(void *p)
{
    idle_arg *a = p;
    idle_group *g = a->g;
    uint64_t bad = 0;
    if (!g->bare) {
        bad += atf_recorder_call(g->r, a->tag << 32) != ATF_OK;
        bad += atf_recorder_return(g->r, a->tag << 32) != ATF_OK;
    }
    atomic_fetch_add(&g->ready, 1);
    pthread_mutex_lock(&g->mu);
    while (!g->release)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    if (!g->bare) {
        bad += atf_recorder_call(g->r, a->tag << 32 | 1) != ATF_OK;
        bad += atf_recorder_return(g->r, a->tag << 32 | 1) != ATF_OK;
    }
    atomic_fetch_add(&g->refused, bad);
    return NULL;
}

/* Small stacks for the many threads (what they touch is what counts in
 * RSS; the default 8 MiB of address space each is not the point here). */
static void small_stack(pthread_attr_t *at)
{
    pthread_attr_init(at);
    pthread_attr_setstacksize(at, 256u << 10);
}

/* One recorder run on the synthetic workload: start, producer-cost bursts
 * from the main thread, `threads` producers of `per_thread` events, stop.
 * Shared by `atf-bench recorder`, its scaling phases (`idle` idle threads
 * next to the producers) and the read benchmarks, which measure the
 * recorder's sustained rate in the same run (bench_recorder_rate()). */
typedef struct rec_run {
    /* in */
    unsigned threads;
    uint64_t per_thread;
    int detail;
    /* A scaling phase: no producer-cost bursts and no CPU sampling (it walks
     * every thread); `idle` idle threads are started first and seen idle by
     * the writer, the busy events are timed until flushed to disk (t_disk),
     * then the idle threads are released and the recorder stopped (t_stop). */
    int scaling;
    unsigned idle;
    /* --burst: the idle threads start while the busy ones run (a burst of
     * registrations next to busy rings), not before them. --bare: the idle
     * threads start, wait and end without recording (the same burst of
     * threads, the recorder's part taken out). */
    int burst, bare;
    atf_recorder_options o;
    /* out */
    char session[4096];
    atf_recorder_stats s;
    bench_thread *bt;
    double ns_burst, clk, t_prod, t_disk, t_stop, t_all, cpu_writer0, cpu_io0;
    uint64_t next;   /* burst events recorded from the main thread */
    uint64_t rss_before, rss_peak;   /* RSS when the recorder started, peak until destroyed */
    unsigned idle_started;
    uint64_t idle_refused;
} rec_run;

/* Starts the idle threads of g (small stacks), waits until each recorded
 * its first pair: @return how many could be started (a shortfall is said). */
static unsigned idle_start(idle_group *g, idle_arg *ia, pthread_t *ith, unsigned n, uint64_t first_tag)
{
    pthread_attr_t at;
    small_stack(&at);
    unsigned started = 0;
    for (unsigned i = 0; i < n; i++) {
        ia[i] = (idle_arg){ g, first_tag + i };
        if (pthread_create(&ith[i], &at, idle_thread, &ia[i]) != 0) {
            fprintf(stderr, "atf-bench: could create only %u idle threads: %s\n", i, strerror(errno));
            break;
        }
        started++;
    }
    pthread_attr_destroy(&at);
    while (atomic_load(&g->ready) < started) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    return started;
}

/* A new peak-RSS measurement (*rss_before: the RSS now), then a recorder
 * (its session directory copied to session). NULL: it could not start (said). */
static atf_recorder *start_measured(const atf_recorder_options *o, uint64_t *rss_before, char *session, size_t cap)
{
    rss_reset_peak();
    rss_read(rss_before, NULL);
    atf_recorder *r = NULL;
    atf_error err;
    atf_status st = atf_recorder_start(&r, o, &err);
    if (st) {
        fprintf(stderr, "atf-bench: cannot start the recorder: %s: %s\n", atf_strerror(st), err.message);
        return NULL;
    }
    snprintf(session, cap, "%s", atf_recorder_session_dir(r));
    return r;
}

/* @return 0, or 2 with the reason on stderr. */
static int rec_run_exec(rec_run *rr)
{
    unsigned threads = rr->threads;
    uint64_t per_thread = rr->per_thread;
    int detail = rr->detail;
    atf_recorder_options o = rr->o;
    atf_recorder *r = start_measured(&o, &rr->rss_before, rr->session, sizeof rr->session);
    if (!r)
        return 2;
    atf_error err;
    atf_status st;
    if (detail)
        atf_recorder_detail_enable(r, NULL);

    rr->next = 0;
    if (!rr->scaling) {
        /* Producer cost, from the main thread (thread_0): bursts of half a ring. */
        uint64_t ring = o.ring_events ? o.ring_events : 131072u;
        uint64_t burst = ring / 4;
        if (detail && burst > (1u << 20) / 2 / 144)
            burst = (1u << 20) / 2 / 144;   /* half the default detail ring of 144-byte records */
        atf_recorder_stats s0;
        atf_recorder_get_stats(r, &s0);
        rr->ns_burst = burst_ns(r, detail, burst, 15, &rr->next, s0.clock_source, &rr->clk);
    }

    idle_group g;
    memset(&g, 0, sizeof g);
    g.r = r;
    g.bare = rr->bare;
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    idle_arg *ia = calloc(rr->idle ? rr->idle : 1, sizeof *ia);
    pthread_t *ith = calloc(rr->idle ? rr->idle : 1, sizeof *ith);
    bench_thread *bt = rr->bt = calloc(threads, sizeof *bt);
    pthread_t *th = calloc(threads, sizeof *th);
    if (!bt || !th || !ia || !ith) {
        free(th);
        free(ia);
        free(ith);
        atf_recorder_stop(r, NULL);
        atf_recorder_destroy(r);
        fprintf(stderr, "atf-bench: out of memory\n");
        return 2;
    }
    unsigned started = rr->idle_started = rr->burst ? 0 : idle_start(&g, ia, ith, rr->idle, (uint64_t)threads + 2);
    if (started) {
        /* The idle threads are idle: their files exist, and the writer
         * has seen them idle (parked) before the busy threads start. */
        atf_recorder_flush(r, 0);
        struct timespec ts = { 0, 300000000 };
        nanosleep(&ts, NULL);
    }
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, threads + 1);
    for (unsigned i = 0; i < threads; i++) {
        bt[i] = (bench_thread){ r, i + 2, per_thread, 0, detail, 0, 0, 0, &barrier };
        pthread_create(&th[i], NULL, producer, &bt[i]);
    }
    pthread_barrier_wait(&barrier);
    double t0 = now_s();
    if (rr->burst && rr->idle) {
        /* 10 ms into the run, the burst: every idle thread starts and
         * records its first pair while the busy threads produce. */
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
        started = rr->idle_started = idle_start(&g, ia, ith, rr->idle, (uint64_t)threads + 2);
    }
    for (unsigned i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    rr->t_prod = now_s() - t0;
    if (rr->scaling) {
        /* Everything the busy threads published is in the files. */
        atf_recorder_flush(r, 0);
        rr->t_disk = now_s() - t0;
    } else {
        /* The writer and I/O threads' CPU, just before stop() ends them (the
         * final drain is not included; it is small next to the run). */
        rr->cpu_writer0 = thread_cpu("atf-rec-writer");
        rr->cpu_io0 = thread_cpu("atf-rec-io");
    }
    double t1 = now_s();
    pthread_mutex_lock(&g.mu);
    g.release = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(ith[i], NULL);
    st = atf_recorder_stop(r, &err);
    rr->t_stop = now_s() - t1;
    rr->t_all = now_s() - t0;
    atf_recorder_get_stats(r, &rr->s);
    atf_recorder_destroy(r);
    rss_read(NULL, &rr->rss_peak);
    rr->idle_refused = atomic_load(&g.refused);
    pthread_barrier_destroy(&barrier);
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cv);
    free(th);
    free(ia);
    free(ith);
    if (st) {
        fprintf(stderr, "atf-bench: stop: %s: %s %s\n", atf_strerror(st), err.file, err.message);
        return 2;
    }
    return 0;
}

int bench_recorder_rate(const char *out, unsigned threads, uint64_t per_thread, double *events_per_sec,
                        char *session, size_t session_cap)
{
    if (atf_make_dirs(out) != 0) {
        fprintf(stderr, "atf-bench: cannot create %s: %s\n", out, strerror(errno));
        return 2;
    }
    rec_run rr;
    memset(&rr, 0, sizeof rr);
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    o.root = out;
    rr.threads = threads;
    rr.per_thread = per_thread;
    rr.o = o;
    int rc = rec_run_exec(&rr);
    free(rr.bt);
    if (rc)
        return rc;
    if (rr.s.events_dropped) {
        fprintf(stderr, "atf-bench: the recorder lost %" PRIu64 " events: its rate is not comparable\n",
                rr.s.events_dropped);
        return 2;
    }
    *events_per_sec = (double)threads * (double)per_thread / rr.t_all;
    if (session)
        snprintf(session, session_cap, "%s", rr.session);
    return 0;
}

typedef struct phase {
    unsigned busy, idle;
    uint64_t per_thread;
    double eps;               /* busy events / time until they are on disk */
    double eps_prod;          /* busy events / time until the busy threads returned */
    double stop_s;            /* releasing the idle threads, stop() and finalizing */
    uint64_t rss_before, rss_peak;
    uint64_t refused, expected;
    atf_recorder_stats st;
    int valid;
    findings f;
    char session[4096];
} phase;

static int run_phase(const atf_recorder_options *o, phase *ph, int validate, int burst, int bare)
{
    rec_run rr;
    memset(&rr, 0, sizeof rr);
    rr.threads = ph->busy;
    rr.per_thread = ph->per_thread;
    rr.scaling = 1;
    rr.idle = ph->idle;
    rr.burst = burst;
    rr.bare = bare;
    rr.o = *o;
    int rc = rec_run_exec(&rr);
    if (rc) {
        free(rr.bt);
        return rc;
    }
    snprintf(ph->session, sizeof ph->session, "%s", rr.session);
    ph->st = rr.s;
    ph->stop_s = rr.t_stop;
    ph->rss_before = rr.rss_before;
    ph->rss_peak = rr.rss_peak;
    uint64_t busy_events = (uint64_t)ph->busy * ph->per_thread;
    ph->eps = (double)busy_events / rr.t_disk;
    ph->eps_prod = (double)busy_events / rr.t_prod;
    ph->refused = rr.idle_refused;
    for (unsigned i = 0; i < ph->busy; i++)
        ph->refused += rr.bt[i].refused;
    free(rr.bt);
    ph->expected = busy_events + (bare ? 0 : 4u * (uint64_t)rr.idle_started);
    if (rr.idle_started != ph->idle)
        ph->refused += 4u * (uint64_t)(ph->idle - rr.idle_started);
    memset(&ph->f, 0, sizeof ph->f);
    ph->valid = validate ? validate_session(ph->session, &ph->f) : -1;
    return 0;
}

/* Nothing lost: every event accepted, on disk, and no loss counted. */
static int phase_clean(const phase *ph)
{
    return ph->refused == 0 && ph->st.events_dropped == 0 && ph->st.events_written == ph->expected &&
           ph->st.events_recorded == ph->expected;
}

static void print_phase(const char *name, const phase *ph, int json)
{
    unsigned n = ph->busy + ph->idle;
    uint64_t growth = ph->rss_peak > ph->rss_before ? ph->rss_peak - ph->rss_before : 0;
    if (json) {
        printf("\"%s\":{\"busy_threads\":%u,\"idle_threads\":%u,\"events_per_thread\":%" PRIu64
               ",\"busy_events_per_sec\":%.0f,\"busy_events_per_sec_producing\":%.0f,\"stop_seconds\":%.3f"
               ",\"events_recorded\":%" PRIu64 ",\"events_written\":%" PRIu64 ",\"events_lost\":%" PRIu64
               ",\"refused\":%" PRIu64 ",\"backpressure_waits\":%" PRIu64 ",\"rss_before_bytes\":%" PRIu64
               ",\"peak_rss_bytes\":%" PRIu64 ",\"rss_growth_per_thread_bytes\":%.0f"
               ",\"recorder_memory_peak_bytes\":%" PRIu64 ",\"recorder_memory_budget_bytes\":%" PRIu64
               ",\"threads\":%" PRIu64 ",\"thread_files_us\":%u,\"valid\":%s,\"session\":\"%s\"}",
               name, ph->busy, ph->idle, ph->per_thread, ph->eps, ph->eps_prod, ph->stop_s, ph->st.events_recorded,
               ph->st.events_written, ph->st.events_dropped, ph->refused, ph->st.backpressure_waits, ph->rss_before,
               ph->rss_peak, (double)growth / n, ph->st.memory_peak, ph->st.memory_bound, ph->st.threads,
               ph->st.thread_files_us, ph->valid < 0 ? "null" : ph->valid ? "true" : "false", ph->session);
        return;
    }
    printf("%s %u busy thread(s) x %" PRIu64 " events + %u idle thread(s)\n", name, ph->busy, ph->per_thread,
           ph->idle);
    printf("  busy events/s:    %.2f M/s recorded and on disk (%.2f M/s while producing); stop %.2f s\n",
           ph->eps / 1e6, ph->eps_prod / 1e6, ph->stop_s);
    printf("  memory:           peak RSS %.1f MiB (%.1f before the recorder started: %.1f KiB per thread over it);"
           " recorder peak %.1f MiB of a %.0f MiB budget (%.1f KiB per thread)\n",
           mib(ph->rss_peak), mib(ph->rss_before), (double)growth / 1024.0 / n, mib(ph->st.memory_peak),
           mib(ph->st.memory_bound), (double)ph->st.memory_peak / 1024.0 / n);
    printf("  thread files:     %" PRIu64 " thread(s), %.0f us of CPU each to create (directory, index.atf, rename)\n",
           ph->st.threads, ph->st.threads ? (double)ph->st.thread_files_us / (double)ph->st.threads : 0.0);
    printf("  events:           %" PRIu64 " recorded, %" PRIu64 " written of %" PRIu64 " expected; lost %" PRIu64
           ", refused %" PRIu64 ", backpressure waits %" PRIu64 "\n",
           ph->st.events_recorded, ph->st.events_written, ph->expected, ph->st.events_dropped, ph->refused,
           ph->st.backpressure_waits);
    if (ph->valid >= 0)
        printf("  atf validate:     %s (%" PRIu64 " error(s), %" PRIu64 " warning(s))%s%s; %s\n",
               ph->valid ? "conformant" : "NOT VALID", ph->f.errors, ph->f.warnings, ph->f.errors ? ": " : "",
               ph->f.errors ? ph->f.first : "", ph->session);
}

/* B busy threads alone, then N busy threads next to I idle ones, `rounds`
 * times in turn, in alternating order (the machine's load and its disk
 * change between phases: the median of the rounds' ratios is the figure). --check MIN: exit 1 unless the median
 * ratio reaches MIN, nothing was lost and every session is conformant. */
static int bench_scaling(const atf_recorder_options *o, const char *out, unsigned busy, unsigned idle,
                         unsigned baseline, uint64_t per_thread, unsigned rounds, int json, int validate,
                         double check_min, int burst, int bare)
{
    (void)out;
    if (baseline == 0)
        baseline = busy;
    /* The baseline does the same work: as many events in all. */
    uint64_t base_per_thread = (uint64_t)busy * per_thread / baseline;
    if (base_per_thread > (1ull << 32))
        base_per_thread = 1ull << 32;
    double ratios[64], ratios_prod[64], loads[64];
    int clean = 1, valid = 1, all_valid = 1;
    uint64_t peak_main = 0, files_us = 0, files_n = 0;
    /* phases[2k]: round k's baseline, phases[2k + 1]: its main phase. */
    phase *phases = calloc(2 * (size_t)rounds, sizeof *phases);
    if (!phases) {
        fprintf(stderr, "atf-bench: out of memory\n");
        return 2;
    }
    for (unsigned k = 0; k < rounds; k++) {
        phase *base = &phases[2 * k], *main = &phases[2 * k + 1];
        *base = (phase){ baseline, 0, base_per_thread, 0, 0, 0, 0, 0, 0, 0, { 0 }, 0, { 0, 0, "" }, "" };
        *main = (phase){ busy, idle, per_thread, 0, 0, 0, 0, 0, 0, 0, { 0 }, 0, { 0, 0, "" }, "" };
        /* Rounds take the two phases in turn in both orders (baseline first
         * in even rounds, main first in odd ones): a disk or a load that
         * drifts during the run (this VM's disk wrote 1.6 to 2.6 GB/s within
         * minutes) then favours neither side of the ratio. The sessions are
         * validated once every phase is timed: reading one 2 GiB session
         * back from the disk slowed the phase right after it (64 threads
         * 41-49 M events/s after a validation, 49-62 without). */
        phase *first = k % 2 ? main : base, *second = k % 2 ? base : main;
        int rc = run_phase(o, first, 0, burst, bare && first == main);
        if (!rc)
            rc = run_phase(o, second, 0, burst, bare && second == main);
        if (rc) {
            free(phases);
            return rc;
        }
        ratios[k] = base->eps > 0 ? main->eps / base->eps : 0;
        ratios_prod[k] = base->eps_prod > 0 ? main->eps_prod / base->eps_prod : 0;
        loads[k] = bench_load_average();
        if (main->rss_peak > peak_main)
            peak_main = main->rss_peak;
        files_us += main->st.thread_files_us;
        files_n += main->st.threads;
        clean = clean && phase_clean(base) && phase_clean(main);
        if (!json) {
            if (rounds > 1)
                printf("round %u of %u (%s first)\n", k + 1, rounds, k % 2 ? "main" : "baseline");
            if (burst && k == 0)
                printf("burst:              the %u idle threads start 10 ms into the main phase, while its busy "
                       "threads run%s\n",
                       idle, bare ? "; --bare: they never record (the burst of threads alone, no recorder work)" : "");
            print_phase(k % 2 ? "main:" : "baseline:", first, 0);
            print_phase(k % 2 ? "baseline:" : "main:", second, 0);
            printf("ratio:              %.2f busy events/s main/baseline (%.2f while producing); load average %.2f on "
                   "%ld CPUs\n",
                   ratios[k], ratios_prod[k], loads[k], sysconf(_SC_NPROCESSORS_ONLN));
            if (idle && busy == baseline) {
                /* What the idle threads add: the two phases differ by them only. */
                double rss = ((double)main->rss_peak - (double)base->rss_peak) / idle;
                double rec = ((double)main->st.memory_peak - (double)base->st.memory_peak) / idle;
                printf("per idle thread:    %.1f KiB of peak RSS (its stack and the recorder), %.1f KiB of recorder "
                       "memory\n",
                       rss / 1024.0, rec / 1024.0);
            }
            fflush(stdout);
        }
    }
    for (unsigned i = 0; i < 2 * rounds; i++) {
        phase *ph = &phases[i];
        ph->valid = validate ? validate_session(ph->session, &ph->f) : -1;
        valid = valid && ph->valid != 0;
        all_valid = all_valid && ph->valid == 1;
        if (!json && ph->valid >= 0)
            printf("atf validate:       round %u %-9s %s (%" PRIu64 " error(s), %" PRIu64 " warning(s))%s%s; %s\n",
                   i / 2 + 1, i % 2 ? "main" : "baseline", ph->valid ? "conformant" : "NOT VALID", ph->f.errors,
                   ph->f.warnings, ph->f.errors ? ": " : "", ph->f.errors ? ph->f.first : "", ph->session);
    }
    if (json) {
        printf("{\"benchmark\":\"recorder-scaling\",\"burst\":%s,\"bare\":%s,\"rounds\":[", burst ? "true" : "false",
               bare ? "true" : "false");
        for (unsigned k = 0; k < rounds; k++) {
            printf("%s{\"first\":\"%s\",", k ? "," : "", k % 2 ? "main" : "baseline");
            print_phase("baseline", &phases[2 * k], 1);
            printf(",");
            print_phase("main", &phases[2 * k + 1], 1);
            printf(",\"ratio\":%.3f,\"ratio_producing\":%.3f,\"load_average\":%.2f}", ratios[k], ratios_prod[k],
                   loads[k]);
        }
    }
    free(phases);
    qsort(ratios, rounds, sizeof *ratios, bench_cmp_double);
    qsort(ratios_prod, rounds, sizeof *ratios_prod, bench_cmp_double);
    double ratio = rounds % 2 ? ratios[rounds / 2] : (ratios[rounds / 2 - 1] + ratios[rounds / 2]) / 2;
    double ratio_prod =
        rounds % 2 ? ratios_prod[rounds / 2] : (ratios_prod[rounds / 2 - 1] + ratios_prod[rounds / 2]) / 2;
    if (json)
        printf("],\"median_ratio\":%.3f,\"median_ratio_producing\":%.3f,\"min_ratio\":%.3f,\"max_ratio\":%.3f"
               ",\"peak_rss_bytes\":%" PRIu64 ",\"nothing_lost\":%s}\n",
               ratio, ratio_prod, ratios[0], ratios[rounds - 1], peak_main, clean ? "true" : "false");
    else if (rounds > 1)
        printf("median ratio:       %.2f over %u rounds (%.2f to %.2f; %.2f while producing); main peak RSS %.1f MiB\n",
               ratio, rounds, ratios[0], ratios[rounds - 1], ratio_prod, mib(peak_main));
    if (!json && burst && files_n)
        /* What the burst's files cost, at the file system's price (15 us
         * a thread on tmpfs, 500 us and more on an ext4 without a journal
         * that freed many inodes in the last minutes: each allocation walks
         * past them). The recorder's helper thread creates them off the
         * drain path; the flush that ends a phase waits only for threads
         * with events published, not for idle ones. */
        printf("thread files:       %.0f us of CPU each in the main phases (%.2f s of CPU a phase, spent beside the "
               "busy threads)\n",
               (double)files_us / (double)files_n, (double)files_us / 1e6 / rounds);
    if (check_min >= 0) {
        int pass = ratio >= check_min && clean && all_valid;
        fprintf(stderr, "atf-bench check: %s: ratio %.2f (minimum %.2f), %s, sessions %s\n", pass ? "PASS" : "FAIL",
                ratio, check_min, clean ? "nothing lost" : "EVENTS LOST", all_valid ? "conformant" : "NOT conformant");
        return pass ? 0 : 1;
    }
    return valid && clean ? 0 : 1;
}

typedef struct churn_ctl {
    atf_recorder *r;
    _Atomic uint64_t next;
    uint64_t total, per_thread;
    _Atomic uint64_t refused, failed_create;
} churn_ctl;

static void *churn_thread(void *p)
{
    bench_thread *a = p;
    for (uint64_t i = 0; i < a->n; i++)
        a->refused += one_event(a->r, 0, a->tag, i) != ATF_OK;
    return NULL;
}

/* One of P launchers: creates a thread, joins it, again, until all T ran. */
static void *churn_launcher(void *p)
{
    churn_ctl *c = p;
    pthread_attr_t at;
    small_stack(&at);
    for (;;) {
        uint64_t k = atomic_fetch_add(&c->next, 1);
        if (k >= c->total)
            break;
        bench_thread a = { c->r, k + 1, c->per_thread, 0, 0, 0, 0, 0, NULL };
        pthread_t th;
        if (pthread_create(&th, &at, churn_thread, &a) != 0) {
            atomic_fetch_add(&c->failed_create, 1);
            continue;
        }
        pthread_join(th, NULL);
        atomic_fetch_add(&c->refused, a.refused);
    }
    pthread_attr_destroy(&at);
    return NULL;
}

static uint64_t count_thread_dirs(const char *session, uint64_t *temporaries)
{
    uint64_t n = 0;
    *temporaries = 0;
    DIR *d = opendir(session);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strncmp(e->d_name, "thread_", 7))
            n++;
        else if (!strncmp(e->d_name, ".thread_", 8))
            ++*temporaries;
    }
    closedir(d);
    return n;
}

static int bench_churn(const atf_recorder_options *o, const char *out, uint64_t total, unsigned parallel,
                       uint64_t per_thread, int json, int validate, double check_min)
{
    (void)out;
    uint64_t rss0;
    char session[4096];
    atf_recorder *r = start_measured(o, &rss0, session, sizeof session);
    if (!r)
        return 2;
    atf_error err;
    atf_status st;
    churn_ctl c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.total = total;
    c.per_thread = per_thread;
    pthread_t *lt = calloc(parallel, sizeof *lt);
    double t0 = now_s();
    for (unsigned i = 0; i < parallel; i++)
        pthread_create(&lt[i], NULL, churn_launcher, &c);
    for (unsigned i = 0; i < parallel; i++)
        pthread_join(lt[i], NULL);
    free(lt);
    double t_created = now_s() - t0;
    /* Every thread's files finalized while the session goes on. */
    atf_recorder_stats s;
    for (;;) {
        atf_recorder_get_stats(r, &s);
        if (s.threads_live == 0 && s.threads >= total - atomic_load(&c.failed_create))
            break;
        /* Not too often: the stats walk every thread's summary. */
        struct timespec ts = { 0, 50000000 };
        nanosleep(&ts, NULL);
    }
    double t_final = now_s() - t0;
    uint64_t rss_after, peak;
    rss_read(&rss_after, &peak);
    uint64_t mem_after = s.memory_allocated;
    st = atf_recorder_stop(r, &err);
    double t_stop = now_s() - t0 - t_final;
    atf_recorder_get_stats(r, &s);
    atf_recorder_destroy(r);
    if (st) {
        fprintf(stderr, "atf-bench: stop: %s: %s %s\n", atf_strerror(st), err.file, err.message);
        return 2;
    }
    uint64_t temps;
    uint64_t dirs = count_thread_dirs(session, &temps);
    uint64_t ran = total - atomic_load(&c.failed_create);
    uint64_t expected = ran * per_thread;
    uint64_t refused = atomic_load(&c.refused);
    int clean = refused == 0 && s.events_dropped == 0 && s.events_written == expected && s.events_recorded == expected &&
                dirs == ran && temps == 0 && ran == total;
    findings f;
    memset(&f, 0, sizeof f);
    double tv = now_s();
    int valid = validate ? validate_session(session, &f) : -1;
    tv = now_s() - tv;
    double load = bench_load_average();
    if (json) {
        printf("{\"benchmark\":\"recorder-churn\",\"threads\":%" PRIu64 ",\"threads_created\":%" PRIu64
               ",\"parallel\":%u,\"events_per_thread\":%" PRIu64 ",\"threads_per_sec_created\":%.0f"
               ",\"threads_per_sec_finalized\":%.0f,\"stop_seconds\":%.3f,\"events_recorded\":%" PRIu64
               ",\"events_written\":%" PRIu64 ",\"events_lost\":%" PRIu64 ",\"refused\":%" PRIu64
               ",\"thread_dirs\":%" PRIu64 ",\"temporary_dirs\":%" PRIu64 ",\"rss_before_bytes\":%" PRIu64
               ",\"rss_after_bytes\":%" PRIu64 ",\"peak_rss_bytes\":%" PRIu64
               ",\"recorder_memory_after_bytes\":%" PRIu64 ",\"recorder_memory_peak_bytes\":%" PRIu64
               ",\"recorder_memory_budget_bytes\":%" PRIu64 ",\"load_average\":%.2f,\"valid\":%s"
               ",\"validate_seconds\":%.1f,\"session\":\"%s\"}\n",
               total, ran, parallel, per_thread, (double)ran / t_created, (double)ran / t_final, t_stop,
               s.events_recorded, s.events_written, s.events_dropped, refused, dirs, temps, rss0, rss_after, peak,
               mem_after, s.memory_peak, s.memory_bound, load, valid < 0 ? "null" : valid ? "true" : "false", tv,
               session);
    } else {
        printf("session:            %s\n", session);
        printf("churn:              %" PRIu64 " threads (%u at a time) x %" PRIu64 " events, each exits at once\n",
               ran, parallel, per_thread);
        printf("threads/s:          %.0f created and joined, %.0f finalized (files complete, %.2f s); stop %.2f s\n",
               (double)ran / t_created, (double)ran / t_final, t_final, t_stop);
        printf("memory:             peak RSS %.1f MiB; RSS %.1f MiB before, %.1f MiB after the threads were "
               "finalized; recorder %.1f KiB after (peak %.1f MiB of a %.0f MiB budget)\n",
               mib(peak), mib(rss0), mib(rss_after), (double)mem_after / 1024.0, mib(s.memory_peak),
               mib(s.memory_bound));
        printf("events:             %" PRIu64 " recorded, %" PRIu64 " written of %" PRIu64 "; lost %" PRIu64
               ", refused %" PRIu64 "\n",
               s.events_recorded, s.events_written, expected, s.events_dropped, refused);
        printf("files:              %" PRIu64 " thread_K/ directories for %" PRIu64 " threads, %" PRIu64
               " temporaries left\n",
               dirs, ran, temps);
        if (valid >= 0)
            printf("atf validate:       %s (%" PRIu64 " error(s), %" PRIu64 " warning(s), %.1f s)%s%s\n",
                   valid ? "conformant" : "NOT VALID", f.errors, f.warnings, tv, f.errors ? ": " : "",
                   f.errors ? f.first : "");
        printf("load average:       %.2f on %ld CPUs\n", load, sysconf(_SC_NPROCESSORS_ONLN));
    }
    if (check_min >= 0) {
        int pass = (double)ran / t_final >= check_min && clean && valid == 1;
        fprintf(stderr, "atf-bench check: %s: %.0f threads/s finalized (minimum %.0f), %s, session %s\n",
                pass ? "PASS" : "FAIL", (double)ran / t_final, check_min, clean ? "nothing lost" : "EVENTS OR FILES LOST",
                valid == 1 ? "conformant" : "NOT conformant");
        return pass ? 0 : 1;
    }
    return clean && valid != 0 ? 0 : 1;
}

/* The cost of the periodic durability policy (issue 22): the same run
 * without it and with ATF_RECORDER_DURABLE_PERIODIC at the default
 * interval, alternating R times in one process; events/s end to end
 * (recorded, on disk, stopped: both stop with the same final sync) and the
 * ratio periodic/none per round, then the median. */
static int bench_durability(const atf_recorder_options *o, unsigned threads, uint64_t per_thread, unsigned rounds,
                            int json, double check_min)
{
    double ratios[64], eps[2] = { 0, 0 };
    uint32_t syncs = 0;
    for (unsigned k = 0; k < rounds; k++) {
        double e[2];
        for (int m = 0; m < 2; m++) {
            int periodic = (int)((k + (unsigned)m) % 2);   /* alternate which goes first */
            rec_run rr;
            memset(&rr, 0, sizeof rr);
            rr.threads = threads;
            rr.per_thread = per_thread;
            rr.scaling = 1;
            rr.o = *o;
            rr.o.durability = periodic ? ATF_RECORDER_DURABLE_PERIODIC : ATF_RECORDER_DURABLE_NONE;
            int rc = rec_run_exec(&rr);
            free(rr.bt);
            if (rc)
                return rc;
            if (rr.s.events_dropped) {
                fprintf(stderr, "atf-bench: %" PRIu64 " events lost\n", rr.s.events_dropped);
                return 1;
            }
            e[periodic] = (double)threads * (double)per_thread / rr.t_all;
            if (periodic)
                syncs = rr.s.syncs;
            if (!json)
                printf("round %u %-9s %.2f M events/s end to end (%.2f s, %u sync(s))\n", k + 1,
                       periodic ? "periodic" : "none", e[periodic] / 1e6, rr.t_all, rr.s.syncs);
        }
        ratios[k] = e[1] / e[0];
        eps[0] += e[0] / rounds;
        eps[1] += e[1] / rounds;
    }
    double sorted[64];
    memcpy(sorted, ratios, rounds * sizeof *ratios);
    for (unsigned i = 1; i < rounds; i++)
        for (unsigned j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    double median = rounds % 2 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
    double load = bench_load_average();
    uint32_t interval = o->sync_interval_ms ? o->sync_interval_ms : 1000;
    if (json)
        printf("{\"benchmark\":\"recorder-durability\",\"threads\":%u,\"events_per_thread\":%" PRIu64
               ",\"sync_interval_ms\":%u,\"rounds\":%u,\"events_per_sec_none\":%.0f,\"events_per_sec_periodic\":%.0f"
               ",\"median_ratio\":%.3f,\"min_ratio\":%.3f,\"syncs_last_round\":%u,\"load_average\":%.2f}\n",
               threads, per_thread, interval, rounds, eps[0], eps[1], median, sorted[0], syncs, load);
    else
        printf("durability:         periodic sync every %u ms vs none, %u producer(s) x %" PRIu64
               " events: %.2f vs %.2f M events/s (means); ratio periodic/none median %.3f (%.3f to %.3f over %u "
               "rounds); load average %.2f on %ld CPUs\n",
               interval, threads, per_thread, eps[1] / 1e6, eps[0] / 1e6, median, sorted[0], sorted[rounds - 1],
               rounds, load, sysconf(_SC_NPROCESSORS_ONLN));
    if (check_min >= 0) {
        int pass = median >= check_min;
        fprintf(stderr, "atf-bench check: %s: durability ratio %.3f (minimum %.3f)\n", pass ? "PASS" : "FAIL", median,
                check_min);
        return pass ? 0 : 1;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: atf-bench recorder --threads N --events-per-thread M --out DIR [--detail] [--json]\n"
            "                          [--clock auto|system|counter] [--io auto|direct|buffered]\n"
            "                          [--ring-events N] [--chunk-mb N] [--chunks N] [--batch N] [--drop]\n"
            "                          [--budget-mb N] [--no-sync] [--raw-mb N] [--no-validate] [--check MIN_EVENTS_PER_SEC]\n"
            "       atf-bench recorder --threads N [--idle I [--burst [--bare]]] [--baseline-threads B] [--rounds R]\n"
            "                          --events-per-thread M --out DIR\n"
            "       atf-bench recorder --churn T [--churn-parallel P] --events-per-thread M --out DIR\n"
            "       atf-bench recorder --durability [--sync-interval-ms N] [--rounds R] --threads N\n"
            "                          --events-per-thread M --out DIR\n"
            "  --durability: the same run without and with the periodic sync policy (default interval), R\n"
            "           alternating rounds, the median ratio of events/s (--check: minimum median ratio)\n"
            "  --idle/--baseline-threads: B busy threads alone, then N busy + I idle threads, one run, ratio printed;\n"
            "           --rounds R alternates the two R times and prints the median ratio (--check: its minimum);\n"
            "           --burst: the I idle threads start while the busy ones run (registration burst);\n"
            "           --bare: they start and end without recording: the same burst's cost to the busy threads\n"
            "           with no recorder work for it (run beside a --burst run: what the recorder adds)\n"
            "  --churn: T short-lived threads (P at a time, default 8) recording M events each\n"
            "  --check: exit 1 unless events/s >= MIN, no event (index or detail) was lost and the session\n"
            "           passes atf validate (the CI benchmark gate); the verdict goes to stderr\n");
    return 2;
}

/* The command line of `atf-bench recorder`. */
typedef struct rec_args {
    unsigned threads;
    uint64_t per_thread;
    const char *out;
    int detail, json, validate;
    double check_min;   /* --check: minimum events/s, -1 without */
    uint64_t raw_mb;
    atf_recorder_options o;
    scaling sc;
    int per_thread_set, durability;
} rec_args;

/* The recorder options among argv[*i] (and its value): 1 taken, 0 not one. */
static int parse_recorder_option(atf_recorder_options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--drop")) {
        o->overflow = ATF_RECORDER_DROP;
        return 1;
    }
    if (!strcmp(a, "--no-sync")) {
        o->sync = 0;
        return 1;
    }
    if (!v)
        return 0;
    if (!strcmp(a, "--clock"))
        o->clock = !strcmp(v, "system") ? ATF_RECORDER_CLOCK_SYSTEM
                   : !strcmp(v, "counter") ? ATF_RECORDER_CLOCK_COUNTER
                   : !strcmp(v, "auto")    ? ATF_RECORDER_CLOCK_AUTO
                                           : (atf_recorder_clock)99;
    else if (!strcmp(a, "--io"))
        o->io = !strcmp(v, "direct") ? ATF_RECORDER_IO_DIRECT
                : !strcmp(v, "buffered") ? ATF_RECORDER_IO_BUFFERED
                : !strcmp(v, "auto")     ? ATF_RECORDER_IO_AUTO
                                         : (atf_recorder_io)99;
    else if (!strcmp(a, "--ring-events"))
        o->ring_events = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--chunk-mb"))
        o->io_chunk_bytes = (uint32_t)(strtoul(v, NULL, 10) << 20);
    else if (!strcmp(a, "--chunks"))
        o->io_chunks = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--batch"))
        o->publish_batch = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--budget-mb"))
        o->memory_budget_bytes = strtoull(v, NULL, 10) << 20;
    else if (!strcmp(a, "--sync-interval-ms"))
        o->sync_interval_ms = (uint32_t)strtoul(v, NULL, 10);
    else
        return 0;
    (*i)++;
    return 1;
}

/* The options of the thread-scaling and churn runs among argv[*i]: 1 taken,
 * 0 not one. */
static int parse_scaling_option(scaling *sc, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--burst")) {
        sc->burst = 1;
        return 1;
    }
    if (!strcmp(a, "--bare")) {
        sc->bare = 1;
        return 1;
    }
    if (!v)
        return 0;
    if (!strcmp(a, "--idle"))
        sc->idle = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--baseline-threads"))
        sc->baseline = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--rounds"))
        sc->rounds = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--churn"))
        sc->churn = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--churn-parallel"))
        sc->parallel = (unsigned)strtoul(v, NULL, 10);
    else
        return 0;
    (*i)++;
    return 1;
}

/* Parses argv into @a (defaults first). @return 0, or 2 with the usage or
 * the reason on stderr. */
static int parse_recorder_args(rec_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->threads = 1;
    a->per_thread = 100000000u;
    a->validate = 1;
    a->check_min = -1;
    a->raw_mb = 4096;
    a->o = (atf_recorder_options)ATF_RECORDER_OPTIONS_INIT;
    a->sc = (scaling){ 0, 0, 0, 8, 1, 0, 0 };
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (parse_recorder_option(&a->o, argc, argv, &i) || parse_scaling_option(&a->sc, argc, argv, &i))
            continue;
        if (!strcmp(o, "--threads") && v)
            a->threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(o, "--events-per-thread") && v) {
            a->per_thread = strtoull(argv[++i], NULL, 10);
            a->per_thread_set = 1;
        } else if (!strcmp(o, "--out") && v)
            a->out = argv[++i];
        else if (!strcmp(o, "--detail"))
            a->detail = 1;
        else if (!strcmp(o, "--json"))
            a->json = 1;
        else if (!strcmp(o, "--no-validate"))
            a->validate = 0;
        else if (!strcmp(o, "--durability"))
            a->durability = 1;
        else if (!strcmp(o, "--raw-mb") && v)
            a->raw_mb = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(o, "--check") && v) {
            char *end = NULL;
            a->check_min = strtod(argv[++i], &end);
            if (!end || *end || !(a->check_min >= 0))
                return usage();
        } else
            return usage();
    }
    if (a->check_min >= 0 && !a->validate) {
        fprintf(stderr, "atf-bench: --check needs the validation (drop --no-validate)\n");
        return 2;
    }
    const scaling *sc = &a->sc;
    if (sc->bare && !sc->burst) {
        fprintf(stderr, "atf-bench: --bare goes with --burst (it changes what the burst's threads do)\n");
        return 2;
    }
    if (sc->burst && !sc->idle) {
        fprintf(stderr, "atf-bench: --burst needs --idle I (the threads of the burst)\n");
        return 2;
    }
    if (sc->burst && (a->durability || sc->churn)) {
        fprintf(stderr, "atf-bench: --burst is a thread-scaling run: not with --durability or --churn\n");
        return 2;
    }
    if (!a->out || a->threads == 0 || a->threads > BENCH_MAX_THREADS || a->per_thread == 0 ||
        a->per_thread > (1ull << 32) || sc->idle > BENCH_MAX_THREADS || sc->baseline > BENCH_MAX_THREADS ||
        sc->parallel == 0 || sc->parallel > BENCH_MAX_THREADS || sc->rounds == 0 || sc->rounds > 64)
        return usage();
    return 0;
}

/* Disk space for the session, the raw test file and 256 MiB to spare: when
 * short, a->per_thread is scaled down with a message. *raw_bytes: the raw
 * test file's size. @return 0, or 2 when not even a meaningful run fits. */
static int fit_recorder_disk(rec_args *a, uint64_t *raw_bytes)
{
    uint64_t per_event = 32 + (a->detail ? 24 + 100 : 0);
    uint64_t avail = free_bytes(a->out);
    uint64_t spare = 256ull << 20;
    uint64_t want = (uint64_t)a->threads * a->per_thread * per_event;
    *raw_bytes = a->raw_mb << 20;
    if (*raw_bytes > want)
        *raw_bytes = want;
    if (want + *raw_bytes + spare <= avail)
        return 0;
    uint64_t room = avail > spare ? avail - spare : 0;
    uint64_t fit = room / (2 * per_event * a->threads);
    if (fit < 1000000u) {
        fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free in %s: not enough for a meaningful run "
                        "(needs at least %" PRIu64 " MiB); nothing recorded\n",
                avail >> 20, a->out, (2 * per_event * a->threads * 1000000u + spare) >> 20);
        return 2;
    }
    fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free in %s: scaling --events-per-thread down from %" PRIu64
                    " to %" PRIu64 " (session %" PRIu64 " MiB + raw-bandwidth file)\n",
            avail >> 20, a->out, a->per_thread, fit, (fit * per_event * a->threads) >> 20);
    a->per_thread = fit;
    want = (uint64_t)a->threads * a->per_thread * per_event;
    if (*raw_bytes > want)
        *raw_bytes = want;
    return 0;
}

/* The figures of one recorder run (`atf-bench recorder`), from its rec_run. */
typedef struct rec_figures {
    uint64_t total, refused, main_events, recorded, lost, detail_lost, rss, raw_bytes, dirty;
    double ns_run, cpu_prod, eps, eps_prod, drain_mbps, raw, ratio, load;
    char why[256];   /* why raw is not measured (raw <= 0) */
    findings f;
    int valid;       /* 1 conformant, 0 not, -1 not validated */
} rec_figures;

static void recorder_figures(const rec_args *a, const rec_run *rr, uint64_t raw_bytes, rec_figures *g)
{
    const atf_recorder_stats *s = &rr->s;
    memset(g, 0, sizeof *g);
    g->total = (uint64_t)a->threads * a->per_thread;
    for (unsigned i = 0; i < a->threads; i++) {
        g->refused += rr->bt[i].refused;
        g->ns_run += rr->bt[i].seconds * 1e9 / (double)a->per_thread;
        g->cpu_prod += rr->bt[i].cpu;
    }
    g->ns_run /= a->threads;
    g->main_events = rr->next;
    g->recorded = s->events_recorded;
    g->lost = s->events_dropped;
    /* The detail window is open for the whole run: every detail event is kept. */
    uint64_t detail_issued = a->detail ? g->total + g->main_events : 0;   /* every event carries one */
    g->detail_lost = detail_issued > s->detail_written ? detail_issued - s->detail_written : 0;
    g->eps = (double)g->total / rr->t_all;
    g->eps_prod = (double)g->total / rr->t_prod;
    g->drain_mbps = (double)s->bytes_written / rr->t_all / 1e6;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    g->rss = (uint64_t)ru.ru_maxrss * 1024u;
    g->raw_bytes = raw_bytes;
    uint32_t chunk = a->o.io_chunk_bytes ? a->o.io_chunk_bytes : ATF_RECORDER_IO_CHUNK_BYTES;
    g->raw = raw_write_gbps(a->out, s->io_method, raw_bytes, chunk, g->why, sizeof g->why);
    g->ratio = g->raw > 0 ? g->drain_mbps / 1e3 / g->raw : 0;
    g->valid = a->validate ? validate_session(rr->session, &g->f) : -1;
    g->dirty = dirty_limit_bytes();
    g->load = bench_load_average();
}

/* One JSON object; one field per line of the text report and more. */
static void print_recorder_json(const rec_args *a, const rec_run *rr, const rec_figures *g)
{
    const atf_recorder_stats *s = &rr->s;
    double total = (double)g->total;
    printf("{\"benchmark\":\"recorder\",\"threads\":%u,\"events_per_thread\":%" PRIu64, a->threads, a->per_thread);
    printf(",\"detail\":%s,\"clock\":\"%s\",\"io_method\":\"%s\"", a->detail ? "true" : "false",
           atf_recorder_clock_name(s->clock_source), atf_recorder_io_name(s->io_method));
    printf(",\"events_recorded\":%" PRIu64 ",\"events_lost\":%" PRIu64 ",\"burst_events\":%" PRIu64, g->recorded,
           g->lost, g->main_events);
    printf(",\"events_per_sec\":%.0f,\"producer_events_per_sec\":%.0f,\"seconds\":%.3f", g->eps, g->eps_prod,
           rr->t_all);
    printf(",\"producer_ns_per_event\":%.2f,\"producer_ns_per_event_run\":%.2f,\"clock_read_ns\":%.2f", rr->ns_burst,
           g->ns_run, rr->clk);
    printf(",\"bytes_written\":%" PRIu64 ",\"drain_mb_per_sec\":%.1f,\"raw_write_mb_per_sec\":%.1f"
           ",\"raw_write_bytes\":%" PRIu64 ",\"drain_to_raw_ratio\":%.3f",
           s->bytes_written, g->drain_mbps, g->raw > 0 ? g->raw * 1e3 : 0.0, g->raw_bytes, g->ratio);
    printf(",\"backpressure_waits\":%" PRIu64 ",\"backpressure_wait_ms\":%.1f", s->backpressure_waits,
           (double)s->backpressure_wait_ns / 1e6);
    printf(",\"detail_recorded\":%" PRIu64 ",\"detail_written\":%" PRIu64 ",\"detail_lost\":%" PRIu64,
           s->detail_recorded, s->detail_written, g->detail_lost);
    printf(",\"peak_rss_bytes\":%" PRIu64 ",\"recorder_memory_peak_bytes\":%" PRIu64
           ",\"recorder_memory_bound_bytes\":%" PRIu64,
           g->rss, s->memory_peak, s->memory_bound);
    printf(",\"producer_cpu_ns_per_event\":%.2f,\"writer_cpu_ns_per_event\":%.2f,\"io_cpu_ns_per_event\":%.2f",
           g->cpu_prod * 1e9 / total, rr->cpu_writer0 * 1e9 / total, rr->cpu_io0 * 1e9 / total);
    printf(",\"load_average\":%.2f,\"dirty_limit_bytes\":%" PRIu64, g->load, g->dirty);
    printf(",\"valid\":%s,\"validate_errors\":%" PRIu64 ",\"validate_warnings\":%" PRIu64 ",\"session\":\"%s\"}\n",
           g->valid < 0 ? "null" : g->valid ? "true" : "false", g->f.errors, g->f.warnings, rr->session);
}

static void print_recorder_text(const rec_args *a, const rec_run *rr, const rec_figures *g)
{
    const atf_recorder_stats *s = &rr->s;
    double total = (double)g->total;
    printf("session:            %s\n", rr->session);
    printf("workload:           %u producer thread(s) x %" PRIu64 " events%s, clock %s, I/O %s\n", a->threads,
           a->per_thread, a->detail ? " with 100-byte ARM64 detail payloads" : "",
           atf_recorder_clock_name(s->clock_source), atf_recorder_io_name(s->io_method));
    printf("events/s:           %.2f M/s end to end (%.3f s, recorded and on disk); %.2f M/s while producing\n",
           g->eps / 1e6, rr->t_all, g->eps_prod / 1e6);
    printf("producer ns/event:  %.2f (bursts without waiting), %.2f (whole run, waits included); the %s\n"
           "                    read alone takes %.2f ns here (same conditions), the rest is %.2f ns\n",
           rr->ns_burst, g->ns_run, atf_recorder_clock_name(s->clock_source), rr->clk,
           rr->ns_burst > rr->clk ? rr->ns_burst - rr->clk : 0.0);
    printf("drain:              %.1f MB/s (%.2f GiB written; dirty-page limit ~%.1f GiB)\n", g->drain_mbps,
           (double)s->bytes_written / 1073741824.0, (double)g->dirty / 1073741824.0);
    if (g->raw > 0)
        printf("raw %s writes:  %.1f MB/s (%.2f GiB, same chunk size, same disk); ratio drain/raw %.2f\n",
               atf_recorder_io_name(s->io_method), g->raw * 1e3, (double)g->raw_bytes / 1073741824.0, g->ratio);
    else
        printf("raw writes:         not measured: %s\n", g->why);
    printf("CPU per event:      producers %.2f ns, writer %.2f ns, I/O thread %.2f ns (load average %.2f on %ld CPUs)\n",
           g->cpu_prod * 1e9 / total, rr->cpu_writer0 * 1e9 / total, rr->cpu_io0 * 1e9 / total, g->load,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("backpressure waits: %" PRIu64 " (%.1f ms in total)\n", s->backpressure_waits,
           (double)s->backpressure_wait_ns / 1e6);
    if (a->detail)
        printf("detail events:      %" PRIu64 " recorded, %" PRIu64 " written, %" PRIu64
               " lost (dropped or evicted; the window is open for the whole run)\n",
               s->detail_recorded, s->detail_written, g->detail_lost);
    printf("events lost:        %" PRIu64 " (recorded %" PRIu64 " of %" PRIu64 " + %" PRIu64 " burst events)\n",
           g->lost, g->recorded, g->total, g->main_events);
    printf("memory:             peak RSS %.1f MiB; recorder buffers peak %.1f MiB (bound %.1f MiB)\n",
           (double)g->rss / 1048576.0, (double)s->memory_peak / 1048576.0, (double)s->memory_bound / 1048576.0);
    if (g->valid >= 0)
        printf("atf validate:       %s (%" PRIu64 " error(s), %" PRIu64 " warning(s))%s%s\n",
               g->valid ? "conformant" : "NOT VALID", g->f.errors, g->f.warnings, g->f.errors ? ": " : "",
               g->f.errors ? g->f.first : "");
}

/* The exit status of a throughput run: with --check, 0 only when the rate
 * is met with nothing lost or refused and the session conformant. */
static int recorder_verdict(const rec_args *a, const rec_figures *g)
{
    if (g->refused && a->o.overflow != ATF_RECORDER_DROP)
        fprintf(stderr, "atf-bench: %" PRIu64 " events refused\n", g->refused);
    if (a->check_min >= 0) {
        int pass = g->eps >= a->check_min && g->lost == 0 && g->detail_lost == 0 && g->refused == 0 && g->valid == 1;
        fprintf(stderr, "atf-bench check: %s: %.2f M events/s (minimum %.2f M), %" PRIu64 " lost, %" PRIu64
                        " detail lost, %" PRIu64 " refused, session %s\n",
                pass ? "PASS" : "FAIL", g->eps / 1e6, a->check_min / 1e6, g->lost, g->detail_lost, g->refused,
                g->valid == 1 ? "conformant" : "NOT conformant");
        return pass ? 0 : 1;
    }
    return g->valid == 0 ? 1 : 0;
}

int bench_recorder(int argc, char **argv)
{
    rec_args a;
    int rc = parse_recorder_args(&a, argc, argv);
    if (rc)
        return rc;
    if (atf_make_dirs(a.out) != 0) {
        fprintf(stderr, "atf-bench: cannot create %s: %s\n", a.out, strerror(errno));
        return 2;
    }
    a.o.root = a.out;
    if (a.durability)
        return bench_durability(&a.o, a.threads, a.per_thread, a.sc.rounds, a.json, a.check_min);
    if (a.sc.churn)
        return bench_churn(&a.o, a.out, a.sc.churn, a.sc.parallel, a.per_thread_set ? a.per_thread : 10, a.json,
                           a.validate, a.check_min);
    if (a.sc.idle || a.sc.baseline)
        return bench_scaling(&a.o, a.out, a.threads, a.sc.idle, a.sc.baseline, a.per_thread, a.sc.rounds, a.json,
                             a.validate, a.check_min, a.sc.burst, a.sc.bare);
    if (a.detail) {
        a.o.detail = 1;
        a.o.pre_roll_ns = 0;
    }
    uint64_t raw_bytes;
    if (fit_recorder_disk(&a, &raw_bytes) != 0)
        return 2;

    rec_run rr;
    memset(&rr, 0, sizeof rr);
    rr.threads = a.threads;
    rr.per_thread = a.per_thread;
    rr.detail = a.detail;
    rr.o = a.o;
    rc = rec_run_exec(&rr);
    if (rc) {
        free(rr.bt);
        return rc;
    }
    rec_figures *g = malloc(sizeof *g);
    if (!g) {
        free(rr.bt);
        return 2;
    }
    recorder_figures(&a, &rr, raw_bytes, g);
    if (a.json)
        print_recorder_json(&a, &rr, g);
    else
        print_recorder_text(&a, &rr, g);
    free(rr.bt);
    rc = recorder_verdict(&a, g);
    free(g);
    return rc;
}
