/* atf-bench merge|dump|export: the read side against the write side, on one
 * machine in one run.
 *
 *   atf-bench merge|dump|export|report [--session DIR] [--threads N] [--events N]
 *       [--detail-every N] [--dir DIR] [--repeat N] [--recorder-events N]
 *       [--keep] [--json]
 *
 * The session read is an 8-thread demo session (`atf demo --threads 8
 * --events 2000000`: 16 M index events, 4 M ARM64 detail events) written
 * into --dir unless --session names one. Its files are read once untimed,
 * so every timed pass reads from the page cache. Then:
 *   merge   the streaming k-way merge through the library (atf_session_open
 *           with checksum verification, atf_merge_next over every event, no
 *           text): target >= 1.0x the recorder's rate;
 *   dump    atf_tool_dump(--json) to /dev/null: target >= 10 M events/s and
 *           >= 0.25x the recorder's rate;
 *   export  atf_export(perfetto) to /dev/null: the same targets as dump.
 *   report  atf_tool_report(--json) to /dev/null: the same targets as dump.
 * /dev/null must be the null device: in some containers it is a regular
 * file (on a tmpfs), and every byte of the output is then written to
 * memory (a dump --json of the default session took 5.2 s instead of 1.1 s
 * that way). The benchmark then writes to a stream that discards what it is
 * given, and says so.
 * The recorder's sustained rate (one producer, end to end: recorded and on
 * disk; `atf-bench recorder --threads 1`) is measured in the same run, after
 * the read passes, by bench_recorder_rate(). Figures are medians of --repeat
 * passes; the load average is printed with them. */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <atf/export.h>
#include <atf/session.h>
#include <atf/tools.h>

#include "bench.h"
#include "internal.h"   /* the codec's: atf_make_dirs */

double bench_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The stream the outputs go to: /dev/null when it is the null device
 * (character device 1:3 on Linux), else one that discards every write. */
static ssize_t discard_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    (void)buf;
    return (ssize_t)n;
}

static int null_is_device(void)
{
    struct stat st;
    return stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode);
}

static FILE *open_null(void)
{
    if (null_is_device())
        return fopen("/dev/null", "w");
    cookie_io_functions_t io = { NULL, discard_write, NULL, NULL };
    return fopencookie(NULL, "w", io);
}

static uint64_t free_bytes(const char *dir)
{
    struct statvfs sv;
    return statvfs(dir, &sv) == 0 ? (uint64_t)sv.f_bavail * sv.f_frsize : 0;
}

/* One timed pass. @return events handled, or UINT64_MAX on failure. For
 * merge, *open_s receives the part spent opening the session (checksums
 * verified, detail offsets built) and *stream_s the merge itself. */
static uint64_t pass(const char *what, const char *session, uint64_t *checksum, double *open_s, double *stream_s)
{
    atf_error err;
    if (!strcmp(what, "merge")) {
        atf_session *s;
        atf_read_options ro = ATF_READ_OPTIONS_INIT;
        double t0 = bench_now();
        if (atf_session_open(&s, session, &ro, &err) != ATF_OK) {
            fprintf(stderr, "atf-bench: %s: %s\n", session, err.message);
            return UINT64_MAX;
        }
        atf_merge *m;
        if (atf_merge_create(&m, s) != ATF_OK) {
            atf_session_close(s);
            return UINT64_MAX;
        }
        atf_merged_event me;
        uint64_t n = 0, sum = 0, last = 0;
        int ordered = 1;
        double t1 = bench_now();
        while (atf_merge_next(m, &me)) {
            ordered &= me.event.timestamp_ns >= last;
            last = me.event.timestamp_ns;
            sum += me.event.function_id ^ me.seq;
            n++;
        }
        *stream_s = bench_now() - t1;
        *open_s = t1 - t0;
        atf_merge_destroy(m);
        atf_session_close(s);
        if (!ordered) {
            fprintf(stderr, "atf-bench: the merged stream is out of order\n");
            return UINT64_MAX;
        }
        *checksum = sum;
        return n;
    }
    FILE *null = open_null();
    if (!null)
        return UINT64_MAX;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    atf_status st;
    uint64_t n = 0;
    if (!strcmp(what, "dump")) {
        o.json = 1;
        st = atf_tool_dump(null, session, &o, &err);
        /* The count: the dump prints one line per index event. */
        atf_session *s;
        atf_read_options ro = ATF_READ_OPTIONS_INIT;
        ro.verify = 0;
        if (!st && atf_session_open(&s, session, &ro, NULL) == ATF_OK) {
            for (size_t i = 0; i < atf_session_thread_count(s); i++)
                n += atf_index_reader_count(atf_session_thread_at(s, i)->index);
            atf_session_close(s);
        }
    } else if (!strcmp(what, "report")) {
        atf_report_options ro = ATF_REPORT_OPTIONS_INIT;
        ro.json = 1;
        atf_report_stats rs;
        st = atf_tool_report(null, session, &o, &ro, &rs, &err);
        n = rs.events;
        *checksum = rs.calls;
    } else {
        atf_export_stats es;
        st = atf_export(null, ATF_EXPORT_PERFETTO, session, &o, &es, &err);
        n = es.events;
        *checksum = es.bytes;
    }
    fclose(null);
    if (st) {
        fprintf(stderr, "atf-bench: %s: %s\n", what, err.message);
        return UINT64_MAX;
    }
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: atf-bench merge|dump|export|report [--session DIR] [--threads N] [--events N] [--detail-every N]\n"
                    "                                   [--dir DIR] [--repeat N] [--recorder-events N] [--keep] [--json]\n");
    return 2;
}

/* The command line of `atf-bench merge|dump|export|report`. */
typedef struct side_args {
    const char *session, *dir;
    atf_demo_options d;   /* the demo session written when there is no --session */
    int repeat, keep, json;
    uint64_t rec_events;
} side_args;

static int parse_side_args(side_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->d = (atf_demo_options)ATF_DEMO_OPTIONS_INIT;
    a->d.threads = 8;
    a->d.events = 2000000;
    a->d.detail_every = 4;
    a->repeat = 3;
    a->rec_events = 100000000;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--session") && v)
            a->session = argv[++i];
        else if (!strcmp(o, "--dir") && v)
            a->dir = argv[++i];
        else if (!strcmp(o, "--threads") && v)
            a->d.threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(o, "--events") && v)
            a->d.events = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(o, "--detail-every") && v)
            a->d.detail_every = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(o, "--repeat") && v)
            a->repeat = atoi(argv[++i]);
        else if (!strcmp(o, "--recorder-events") && v)
            a->rec_events = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(o, "--keep"))
            a->keep = 1;
        else if (!strcmp(o, "--json"))
            a->json = 1;
        else
            return usage();
    }
    if (a->repeat < 1 || a->repeat > 50 || a->d.threads < 1 || a->d.threads > 256 || a->d.events < 1 ||
        a->rec_events < 1000000)
        return usage();
    return 0;
}

/* Disk: the demo session (~75 bytes per index event with its detail lane)
 * and the recorder's (32 bytes per event), and 256 MiB to spare; when short,
 * both are scaled down with a message. @return 0, or 2 (not enough). */
static int side_fit_disk(side_args *a, const char *work)
{
    uint64_t avail = free_bytes(work), spare = 256ull << 20;
    uint64_t need_demo = a->session ? 0 : (uint64_t)a->d.threads * a->d.events * 80;
    if (need_demo + a->rec_events * 32 + spare <= avail)
        return 0;
    uint64_t room = avail > spare ? avail - spare : 0;
    double k = (double)room / (double)(need_demo + a->rec_events * 32);
    if (k < 0.05) {
        fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free in %s: not enough for a meaningful run\n",
                avail >> 20, work);
        return 2;
    }
    a->d.events = (uint64_t)((double)a->d.events * k);
    a->rec_events = (uint64_t)((double)a->rec_events * k);
    fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free in %s: scaling down to %" PRIu64
                    " events per thread and %" PRIu64 " recorder events\n",
            avail >> 20, work, a->d.events, a->rec_events);
    return 0;
}

/* The figures of a read-side run. */
typedef struct side_figures {
    uint64_t n;                 /* index events of the session */
    double t, c, open_t;        /* medians: wall and CPU of a whole pass, merge's open */
    double t_target, eps, rec_eps, ratio, min_ratio, min_eps, load;
    long threads;               /* the formatting threads (dump, export) */
    int is_merge, real_null, met;
} side_figures;

/* The timed passes of `what` over the session, then the recorder's rate in
 * the same run. @return 0, or 2. */
static int side_measure(const char *what, const side_args *a, const char *recdir, char *rec_session,
                        size_t rec_cap, side_figures *g)
{
    int repeat = a->repeat;
    /* Untimed pass: the files into the page cache. */
    double open_t[50] = { 0 }, stream_t[50] = { 0 };
    uint64_t sum = 0, n = pass(what, a->session, &sum, &open_t[0], &stream_t[0]);
    if (n == UINT64_MAX)
        return 2;
    double wall[50], cpu[50];
    for (int i = 0; i < repeat; i++) {
        double t0 = bench_now(), c0 = bench_cpu_seconds();
        if (pass(what, a->session, &sum, &open_t[i], &stream_t[i]) != n)
            return 2;
        wall[i] = bench_now() - t0;
        cpu[i] = bench_cpu_seconds() - c0;
    }
    (void)sum;
    g->load = bench_load_average();
    /* The write side, same machine, same run. */
    if (bench_recorder_rate(recdir, 1, a->rec_events, &g->rec_eps, rec_session, rec_cap) != 0)
        return 2;
    qsort(wall, (size_t)repeat, sizeof(double), bench_cmp_double);
    qsort(cpu, (size_t)repeat, sizeof(double), bench_cmp_double);
    qsort(open_t, (size_t)repeat, sizeof(double), bench_cmp_double);
    qsort(stream_t, (size_t)repeat, sizeof(double), bench_cmp_double);
    g->n = n;
    g->t = wall[repeat / 2], g->c = cpu[repeat / 2], g->open_t = open_t[repeat / 2];
    g->threads = (long)atf_cpu_count();
    g->threads = g->threads > 4 ? 4 : g->threads;
    /* merge: the target is the streaming merge; open + merge is printed too. */
    g->t_target = g->is_merge ? stream_t[repeat / 2] : g->t;
    g->eps = (double)n / g->t_target, g->ratio = g->eps / g->rec_eps;
    g->min_ratio = g->is_merge ? 1.0 : 0.25, g->min_eps = g->is_merge ? 0 : 10e6;
    g->met = g->ratio >= g->min_ratio && g->eps >= g->min_eps;
    return 0;
}

static void print_side_json(const char *what, const side_args *a, const side_figures *g)
{
    printf("{\"benchmark\":\"%s\",\"session\":\"%s\",\"events\":%" PRIu64 ",\"seconds\":%.4f,\"cpu_seconds\":%.4f,"
           "\"events_per_sec\":%.0f,\"recorder_events_per_sec\":%.0f,\"ratio\":%.3f,\"target_ratio\":%.2f,"
           "\"target_events_per_sec\":%.0f,\"met\":%s,\"load_average\":%.2f,\"repeat\":%d",
           what, a->session, g->n, g->t_target, g->c, g->eps, g->rec_eps, g->ratio, g->min_ratio, g->min_eps,
           g->met ? "true" : "false", g->load, a->repeat);
    if (!g->is_merge)
        printf(",\"output\":\"%s\",\"threads\":%ld", g->real_null ? "/dev/null" : "discarded", g->threads);
    if (g->is_merge)
        printf(",\"open_seconds\":%.4f,\"open_and_merge_seconds\":%.4f,\"open_and_merge_events_per_sec\":%.0f",
               g->open_t, g->t, (double)g->n / g->t);
    printf("}\n");
}

static void print_side_text(const char *what, const side_args *a, const side_figures *g)
{
    const char *desc = !strcmp(what, "merge") ? "streaming k-way merge through the library (every event in order, no text)"
                       : !strcmp(what, "dump")   ? "atf dump --json to /dev/null"
                       : !strcmp(what, "report") ? "atf report --json to /dev/null (per function calls, total, self)"
                                               : "atf export --format perfetto to /dev/null";
    printf("session:        %s (%" PRIu64 " index events, page-cached)\n", a->session, g->n);
    printf("%-15s %s%s\n", what, desc, g->is_merge || g->real_null ? "" : " (not the null device here: discarded)");
    if (!g->is_merge && strcmp(what, "report") != 0)
        printf("                formatted by %ld thread(s) (one per CPU, at most 4: atf_tool_options.jobs 0)\n",
               g->threads);
    printf("                %.3f s (median of %d): %.2f M events/s\n", g->t_target, a->repeat, g->eps / 1e6);
    if (g->is_merge)
        printf("open + merge:   %.3f s (open with checksum verification %.3f s; CPU %.3f s): %.2f M events/s\n",
               g->t, g->open_t, g->c, (double)g->n / g->t / 1e6);
    else
        printf("                CPU %.3f s: %.2f M events/s of CPU time\n", g->c, (double)g->n / g->c / 1e6);
    printf("recorder:       %.2f M events/s sustained (1 producer, %" PRIu64 " events, end to end), same run\n",
           g->rec_eps / 1e6, a->rec_events);
    printf("ratio %s/recorder: %.2f (target >= %.2f%s): %s\n", what, g->ratio, g->min_ratio,
           g->min_eps > 0 ? ", and >= 10 M events/s" : "", g->met ? "met" : "NOT met");
    printf("load average:   %.2f on %ld CPUs\n", g->load, sysconf(_SC_NPROCESSORS_ONLN));
}

int bench_read_side(const char *what, int argc, char **argv)
{
    side_args a;
    int rc = parse_side_args(&a, argc, argv);
    if (rc)
        return rc;
    char work[4096], demo[4200], recdir[4200], rec_session[4096] = "";
    snprintf(work, sizeof work, "%s/atf-bench-%s-%d", a.dir ? a.dir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             what, (int)getpid());
    if (atf_make_dirs(work) != 0) {
        fprintf(stderr, "atf-bench: cannot create %s: %s\n", work, strerror(errno));
        return 2;
    }
    snprintf(recdir, sizeof recdir, "%s/recorder", work);
    if (side_fit_disk(&a, work) != 0)
        return 2;
    if (!a.session) {
        snprintf(demo, sizeof demo, "%s/pid_1", work);
        atf_error err;
        fprintf(stderr, "atf-bench: writing the demo session (%u threads x %" PRIu64 " events, detail every %u) to %s\n",
                a.d.threads, a.d.events, a.d.detail_every, demo);
        if (atf_tool_demo(demo, &a.d, &err) != ATF_OK) {
            fprintf(stderr, "atf-bench: demo: %s\n", err.message);
            return 2;
        }
        a.session = demo;
    }
    bench_settle(a.session);   /* no writeback beside what is timed */
    side_figures g;
    memset(&g, 0, sizeof g);
    g.is_merge = !strcmp(what, "merge"), g.real_null = null_is_device();
    if (!g.is_merge && !g.real_null)
        fprintf(stderr, "atf-bench: /dev/null is not the null device here (a regular file?): the output goes to a "
                        "stream that discards it instead\n");
    if (side_measure(what, &a, recdir, rec_session, sizeof rec_session, &g) != 0)
        return 2;
    if (a.json)
        print_side_json(what, &a, &g);
    else
        print_side_text(what, &a, &g);
    if (!a.keep) {
        if (bench_rm_rf(work) != 0)
            fprintf(stderr, "atf-bench: could not remove %s: %s\n", work, strerror(errno));
    } else {
        fprintf(stderr, "atf-bench: kept %s (recorder session %s)\n", work, rec_session);
    }
    return 0;
}
