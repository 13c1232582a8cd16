/* atf-bench recorder: the recorder's throughput on a synthetic workload,
 * against the raw write bandwidth of the same I/O method on the same disk,
 * measured in the same run.
 *
 *   atf-bench recorder --threads N --events-per-thread M --out DIR
 *                      [--detail] [--json] [--clock auto|system|counter]
 *                      [--io auto|direct|buffered] [--ring-events N]
 *                      [--chunk-mb N] [--chunks N] [--batch N] [--drop]
 *                      [--raw-mb N] [--no-validate] [--check MIN_EVENTS_PER_SEC]
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
 * from one aligned buffer to a new file, then fdatasync. */
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
    void *buf = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (fd < 0 || buf == MAP_FAILED) {
        fmt(why, whycap, "cannot create %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (buf != MAP_FAILED)
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

/* One recorder run on the synthetic workload: start, producer-cost bursts
 * from the main thread, `threads` producers of `per_thread` events, stop.
 * Shared by `atf-bench recorder` and the read benchmarks, which measure the
 * recorder's sustained rate in the same run (bench_recorder_rate()). */
typedef struct rec_run {
    /* in */
    unsigned threads;
    uint64_t per_thread;
    int detail;
    atf_recorder_options o;
    /* out */
    char session[4096];
    atf_recorder_stats s;
    bench_thread *bt;
    double ns_burst, clk, t_prod, t_all, cpu_writer0, cpu_io0;
    uint64_t next;   /* burst events recorded from the main thread */
} rec_run;

/* @return 0, or 2 with the reason on stderr. */
static int rec_run_exec(rec_run *rr)
{
    unsigned threads = rr->threads;
    uint64_t per_thread = rr->per_thread;
    int detail = rr->detail;
    atf_recorder_options o = rr->o;
    atf_recorder *r = NULL;
    atf_error err;
    atf_status st = atf_recorder_start(&r, &o, &err);
    if (st) {
        fprintf(stderr, "atf-bench: cannot start the recorder: %s: %s\n", atf_strerror(st), err.message);
        return 2;
    }
    if (detail)
        atf_recorder_detail_enable(r, NULL);
    snprintf(rr->session, sizeof rr->session, "%s", atf_recorder_session_dir(r));

    /* Producer cost, from the main thread (thread_0): bursts of half a ring. */
    uint64_t ring = o.ring_events ? o.ring_events : 131072u;
    uint64_t burst = ring / 4;
    if (detail && burst > (1u << 20) / 2 / 144)
        burst = (1u << 20) / 2 / 144;   /* half the default detail ring of 144-byte records */
    rr->next = 0;
    atf_recorder_stats s0;
    atf_recorder_get_stats(r, &s0);
    rr->ns_burst = burst_ns(r, detail, burst, 15, &rr->next, s0.clock_source, &rr->clk);

    bench_thread *bt = rr->bt = calloc(threads, sizeof *bt);
    pthread_t *th = calloc(threads, sizeof *th);
    if (!bt || !th) {
        free(th);
        atf_recorder_stop(r, NULL);
        atf_recorder_destroy(r);
        fprintf(stderr, "atf-bench: out of memory\n");
        return 2;
    }
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, threads + 1);
    for (unsigned i = 0; i < threads; i++) {
        bt[i] = (bench_thread){ r, i + 2, per_thread, 0, detail, 0, 0, 0, &barrier };
        pthread_create(&th[i], NULL, producer, &bt[i]);
    }
    pthread_barrier_wait(&barrier);
    double t0 = now_s();
    for (unsigned i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    rr->t_prod = now_s() - t0;
    /* The writer and I/O threads' CPU, just before stop() ends them (the
     * final drain is not included; it is small next to the run). */
    rr->cpu_writer0 = thread_cpu("atf-rec-writer");
    rr->cpu_io0 = thread_cpu("atf-rec-io");
    st = atf_recorder_stop(r, &err);
    rr->t_all = now_s() - t0;
    atf_recorder_get_stats(r, &rr->s);
    atf_recorder_destroy(r);
    pthread_barrier_destroy(&barrier);
    free(th);
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
    o.max_threads = threads + 1;
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

static int usage(void)
{
    fprintf(stderr,
            "usage: atf-bench recorder --threads N --events-per-thread M --out DIR [--detail] [--json]\n"
            "                          [--clock auto|system|counter] [--io auto|direct|buffered]\n"
            "                          [--ring-events N] [--chunk-mb N] [--chunks N] [--batch N] [--drop]\n"
            "                          [--raw-mb N] [--no-validate] [--check MIN_EVENTS_PER_SEC]\n"
            "  --check: exit 1 unless events/s >= MIN, no event (index or detail) was lost and the session\n"
            "           passes atf validate (the CI benchmark gate); the verdict goes to stderr\n");
    return 2;
}

int bench_recorder(int argc, char **argv)
{
    unsigned threads = 1;
    uint64_t per_thread = 100000000u;
    const char *out = NULL;
    int detail = 0, json = 0, validate = 1;
    double check_min = -1;
    uint64_t raw_mb = 4096;
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--threads") && v)
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--events-per-thread") && v)
            per_thread = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--out") && v)
            out = argv[++i];
        else if (!strcmp(a, "--detail"))
            detail = 1;
        else if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--no-validate"))
            validate = 0;
        else if (!strcmp(a, "--drop"))
            o.overflow = ATF_RECORDER_DROP;
        else if (!strcmp(a, "--clock") && v) {
            i++;
            o.clock = !strcmp(v, "system") ? ATF_RECORDER_CLOCK_SYSTEM
                      : !strcmp(v, "counter") ? ATF_RECORDER_CLOCK_COUNTER
                      : !strcmp(v, "auto")    ? ATF_RECORDER_CLOCK_AUTO
                                              : (atf_recorder_clock)99;
        } else if (!strcmp(a, "--io") && v) {
            i++;
            o.io = !strcmp(v, "direct") ? ATF_RECORDER_IO_DIRECT
                   : !strcmp(v, "buffered") ? ATF_RECORDER_IO_BUFFERED
                   : !strcmp(v, "auto")     ? ATF_RECORDER_IO_AUTO
                                            : (atf_recorder_io)99;
        } else if (!strcmp(a, "--ring-events") && v)
            o.ring_events = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--chunk-mb") && v)
            o.io_chunk_bytes = (uint32_t)(strtoul(argv[++i], NULL, 10) << 20);
        else if (!strcmp(a, "--chunks") && v)
            o.io_chunks = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--batch") && v)
            o.publish_batch = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--raw-mb") && v)
            raw_mb = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--check") && v) {
            char *end = NULL;
            check_min = strtod(argv[++i], &end);
            if (!end || *end || !(check_min >= 0))
                return usage();
        }
        else
            return usage();
    }
    if (check_min >= 0 && !validate) {
        fprintf(stderr, "atf-bench: --check needs the validation (drop --no-validate)\n");
        return 2;
    }
    if (!out || threads == 0 || threads > 64 || per_thread == 0 || per_thread > (1ull << 32))
        return usage();
    if (atf_make_dirs(out) != 0) {
        fprintf(stderr, "atf-bench: cannot create %s: %s\n", out, strerror(errno));
        return 2;
    }
    o.root = out;
    o.max_threads = threads + 1;
    if (detail) {
        o.detail = 1;
        o.pre_roll_ns = 0;
    }

    /* Disk space: the session, the raw test file, and 256 MiB to spare. */
    uint64_t per_event = 32 + (detail ? 24 + 100 : 0);
    uint64_t avail = free_bytes(out);
    uint64_t spare = 256ull << 20;
    uint64_t raw_bytes = raw_mb << 20;
    uint64_t want = (uint64_t)threads * per_thread * per_event;
    if (raw_bytes > want)
        raw_bytes = want;
    if (want + raw_bytes + spare > avail) {
        uint64_t room = avail > spare ? avail - spare : 0;
        uint64_t fit = room / (2 * per_event * threads);
        if (fit < 1000000u) {
            fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free in %s: not enough for a meaningful run "
                            "(needs at least %" PRIu64 " MiB); nothing recorded\n",
                    avail >> 20, out, (2 * per_event * threads * 1000000u + spare) >> 20);
            return 2;
        }
        fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free in %s: scaling --events-per-thread down from %" PRIu64
                        " to %" PRIu64 " (session %" PRIu64 " MiB + raw-bandwidth file)\n",
                avail >> 20, out, per_thread, fit, (fit * per_event * threads) >> 20);
        per_thread = fit;
        want = (uint64_t)threads * per_thread * per_event;
        if (raw_bytes > want)
            raw_bytes = want;
    }

    rec_run rr;
    memset(&rr, 0, sizeof rr);
    rr.threads = threads;
    rr.per_thread = per_thread;
    rr.detail = detail;
    rr.o = o;
    int rc = rec_run_exec(&rr);
    if (rc) {
        free(rr.bt);
        return rc;
    }
    bench_thread *bt = rr.bt;
    atf_recorder_stats s = rr.s;
    double t_all = rr.t_all, t_prod = rr.t_prod, ns_burst = rr.ns_burst, clk = rr.clk;
    double cpu_writer0 = rr.cpu_writer0, cpu_io0 = rr.cpu_io0;
    uint64_t next = rr.next;
    const char *session = rr.session;

    uint64_t total = (uint64_t)threads * per_thread;
    uint64_t refused = 0;
    double ns_run = 0, cpu_prod = 0;
    for (unsigned i = 0; i < threads; i++) {
        refused += bt[i].refused;
        ns_run += bt[i].seconds * 1e9 / (double)per_thread;
        cpu_prod += bt[i].cpu;
    }
    ns_run /= threads;
    uint64_t main_events = next;
    uint64_t recorded = s.events_recorded;
    uint64_t lost = s.events_dropped;
    /* The detail window is open for the whole run: every detail event is kept. */
    uint64_t detail_issued = detail ? total + main_events : 0;   /* every event carries one */
    uint64_t detail_lost = detail_issued > s.detail_written ? detail_issued - s.detail_written : 0;
    double eps = (double)(total) / t_all;
    double eps_prod = (double)total / t_prod;
    double drain_mbps = (double)s.bytes_written / t_all / 1e6;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t rss = (uint64_t)ru.ru_maxrss * 1024u;

    char why[256] = "";
    double raw = raw_write_gbps(out, s.io_method, raw_bytes, o.io_chunk_bytes ? o.io_chunk_bytes : (2u << 20), why,
                                sizeof why);
    double ratio = raw > 0 ? drain_mbps / 1e3 / raw : 0;

    findings f;
    memset(&f, 0, sizeof f);
    int valid = validate ? validate_session(session, &f) : -1;
    uint64_t dirty = dirty_limit_bytes();
    double load = bench_load_average();

    if (json) {
        /* One object; one field per line of the text report and more. */
        printf("{\"benchmark\":\"recorder\",\"threads\":%u,\"events_per_thread\":%" PRIu64, threads, per_thread);
        printf(",\"detail\":%s,\"clock\":\"%s\",\"io_method\":\"%s\"", detail ? "true" : "false",
               atf_recorder_clock_name(s.clock_source), atf_recorder_io_name(s.io_method));
        printf(",\"events_recorded\":%" PRIu64 ",\"events_lost\":%" PRIu64 ",\"burst_events\":%" PRIu64, recorded,
               lost, main_events);
        printf(",\"events_per_sec\":%.0f,\"producer_events_per_sec\":%.0f,\"seconds\":%.3f", eps, eps_prod, t_all);
        printf(",\"producer_ns_per_event\":%.2f,\"producer_ns_per_event_run\":%.2f,\"clock_read_ns\":%.2f", ns_burst,
               ns_run, clk);
        printf(",\"bytes_written\":%" PRIu64 ",\"drain_mb_per_sec\":%.1f,\"raw_write_mb_per_sec\":%.1f"
               ",\"raw_write_bytes\":%" PRIu64 ",\"drain_to_raw_ratio\":%.3f",
               s.bytes_written, drain_mbps, raw > 0 ? raw * 1e3 : 0.0, raw_bytes, ratio);
        printf(",\"backpressure_waits\":%" PRIu64 ",\"backpressure_wait_ms\":%.1f", s.backpressure_waits,
               (double)s.backpressure_wait_ns / 1e6);
        printf(",\"detail_recorded\":%" PRIu64 ",\"detail_written\":%" PRIu64 ",\"detail_lost\":%" PRIu64,
               s.detail_recorded, s.detail_written, detail_lost);
        printf(",\"peak_rss_bytes\":%" PRIu64 ",\"recorder_memory_peak_bytes\":%" PRIu64
               ",\"recorder_memory_bound_bytes\":%" PRIu64,
               rss, s.memory_peak, s.memory_bound);
        printf(",\"producer_cpu_ns_per_event\":%.2f,\"writer_cpu_ns_per_event\":%.2f,\"io_cpu_ns_per_event\":%.2f",
               cpu_prod * 1e9 / (double)total, cpu_writer0 * 1e9 / (double)total, cpu_io0 * 1e9 / (double)total);
        printf(",\"load_average\":%.2f,\"dirty_limit_bytes\":%" PRIu64, load, dirty);
        printf(",\"valid\":%s,\"validate_errors\":%" PRIu64 ",\"validate_warnings\":%" PRIu64 ",\"session\":\"%s\"}\n",
               valid < 0 ? "null" : valid ? "true" : "false", f.errors, f.warnings, session);
    } else {
        printf("session:            %s\n", session);
        printf("workload:           %u producer thread(s) x %" PRIu64 " events%s, clock %s, I/O %s\n", threads,
               per_thread, detail ? " with 100-byte ARM64 detail payloads" : "",
               atf_recorder_clock_name(s.clock_source), atf_recorder_io_name(s.io_method));
        printf("events/s:           %.2f M/s end to end (%.3f s, recorded and on disk); %.2f M/s while producing\n",
               eps / 1e6, t_all, eps_prod / 1e6);
        printf("producer ns/event:  %.2f (bursts without waiting), %.2f (whole run, waits included); the %s\n"
               "                    read alone takes %.2f ns here (same conditions), the rest is %.2f ns\n",
               ns_burst, ns_run, atf_recorder_clock_name(s.clock_source), clk, ns_burst > clk ? ns_burst - clk : 0.0);
        printf("drain:              %.1f MB/s (%.2f GiB written; dirty-page limit ~%.1f GiB)\n", drain_mbps,
               (double)s.bytes_written / 1073741824.0, (double)dirty / 1073741824.0);
        if (raw > 0)
            printf("raw %s writes:  %.1f MB/s (%.2f GiB, same chunk size, same disk); ratio drain/raw %.2f\n",
                   atf_recorder_io_name(s.io_method), raw * 1e3, (double)raw_bytes / 1073741824.0, ratio);
        else
            printf("raw writes:         not measured: %s\n", why);
        printf("CPU per event:      producers %.2f ns, writer %.2f ns, I/O thread %.2f ns (load average %.2f on %ld CPUs)\n",
               cpu_prod * 1e9 / (double)total, cpu_writer0 * 1e9 / (double)total, cpu_io0 * 1e9 / (double)total, load,
               sysconf(_SC_NPROCESSORS_ONLN));
        printf("backpressure waits: %" PRIu64 " (%.1f ms in total)\n", s.backpressure_waits,
               (double)s.backpressure_wait_ns / 1e6);
        if (detail)
            printf("detail events:      %" PRIu64 " recorded, %" PRIu64 " written, %" PRIu64
                   " lost (dropped or evicted; the window is open for the whole run)\n",
                   s.detail_recorded, s.detail_written, detail_lost);
        printf("events lost:        %" PRIu64 " (recorded %" PRIu64 " of %" PRIu64 " + %" PRIu64
               " burst events)\n",
               lost, recorded, total, main_events);
        printf("memory:             peak RSS %.1f MiB; recorder buffers peak %.1f MiB (bound %.1f MiB)\n",
               (double)rss / 1048576.0, (double)s.memory_peak / 1048576.0, (double)s.memory_bound / 1048576.0);
        if (valid >= 0)
            printf("atf validate:       %s (%" PRIu64 " error(s), %" PRIu64 " warning(s))%s%s\n", valid ? "conformant" : "NOT VALID",
                   f.errors, f.warnings, f.errors ? ": " : "", f.errors ? f.first : "");
    }
    free(bt);
    if (refused && o.overflow != ATF_RECORDER_DROP)
        fprintf(stderr, "atf-bench: %" PRIu64 " events refused\n", refused);
    if (check_min >= 0) {
        int pass = eps >= check_min && lost == 0 && detail_lost == 0 && refused == 0 && valid == 1;
        fprintf(stderr, "atf-bench check: %s: %.2f M events/s (minimum %.2f M), %" PRIu64 " lost, %" PRIu64
                        " detail lost, %" PRIu64 " refused, session %s\n",
                pass ? "PASS" : "FAIL", eps / 1e6, check_min / 1e6, lost, detail_lost, refused,
                valid == 1 ? "conformant" : "NOT conformant");
        return pass ? 0 : 1;
    }
    return valid == 0 ? 1 : 0;
}
