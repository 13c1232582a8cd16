/* atf-bench rtc: `atf pack` and `atf unpack` against `cat`, and RTC
 * resynchronisation from random offsets, in one run.
 *
 *   atf-bench rtc [--size BYTES] [--file PATH] [--repeat N] [--keep] [--json]
 *
 * Writes (or reuses) a demo session of about --size bytes (1 GiB; 4
 * threads, ARM64 detail on every 4th event: atf_tool_demo) in PATH.session/
 * and packs it into PATH (default $TMPDIR/atf-bench-rtc-SIZE.rtc). Free
 * disk is checked first: the run needs the session, the packed file, the
 * unpacked copy and a cat copy (about 4.2 x --size), and the session is
 * scaled down, with a message, when there is not room. Then --repeat times
 * (median; default 3) each of:
 *   cat (pack)    what `cat manifest.json thread_K/index.atf ... > OUT` does: read() of
 *                 the session's files in 128 KiB blocks, write() into one file;
 *   pack          atf_pack() of the session into PATH;
 *   cat (unpack)  the same copy of the packed file;
 *   unpack        atf_unpack() of PATH into a new directory (checked whole);
 * every output on the same filesystem, removed between passes (not timed).
 * MB/s count the session's bytes; each ratio is cat's time over the tool's
 * for the same bytes. Target: pack and unpack at least 0.5x cat.
 * Resynchronisation: 1,000 random offsets (fixed seed) into the packed file,
 * mapped and page-cached; for each, the time to find the next Marker
 * (atf_rtc_find_marker) and the time to read the RTC from there to the end
 * of the first whole Unit after it (atf_rtc_reader_open_memory on that
 * window: Marker scan, Crc check, Index, Meta, records), which is what a
 * reader handed a file cut at that offset spends before its first record.
 * Unit size: small demo sessions (2 threads, 0.77, 1.9 and 16 MB) packed
 * with Units of 16 KiB to 1 MiB and with the default (atf_pack_default_unit);
 * for each, the packed file's overhead over the session and the share of
 * index events unpack gives back after 100 bytes are zeroed in the middle
 * of the packed file: the trade-off of docs/pack.md "Unit size". */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/pack.h>
#include <atf/rtc.h>
#include <atf/tools.h>

#include "bench.h"

#define RTC_TARGET 0.5
#define RESYNC_OFFSETS 1000
#define THREADS 4u
#define BYTES_PER_EVENT 79u   /* the demo's, with detail on every 4th event */

/* The session's files, in the order cat would take them. */
typedef struct file_list {
    char paths[1 + 2 * THREADS][4400];
    size_t n;
    uint64_t bytes;
} file_list;

static int list_add(file_list *l, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || l->n >= sizeof l->paths / sizeof l->paths[0])
        return 0;
    snprintf(l->paths[l->n++], sizeof l->paths[0], "%s", path);
    l->bytes += (uint64_t)st.st_size;
    return 1;
}

static void list_session(file_list *l, const char *dir)
{
    char p[4400];
    l->n = 0;
    l->bytes = 0;
    snprintf(p, sizeof p, "%s/manifest.json", dir);
    list_add(l, p);
    for (unsigned t = 0; t < THREADS; t++) {
        snprintf(p, sizeof p, "%s/thread_%u/index.atf", dir, t);
        list_add(l, p);
        snprintf(p, sizeof p, "%s/thread_%u/detail.atf", dir, t);
        list_add(l, p);
    }
}

/* Seconds to copy the files into out as cat does (128 KiB read()s and write()s). */
static double time_cat_copy(char (*paths)[4400], size_t n, const char *out)
{
    enum { BLOCK = 128 * 1024 };
    static unsigned char buf[BLOCK];
    double t0 = bench_now();
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fo < 0)
        return -1;
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            ok = 0;
            break;
        }
        ssize_t k;
        while ((k = read(fd, buf, BLOCK)) > 0 || (k < 0 && errno == EINTR)) {
            for (ssize_t w = 0; k > 0 && w < k;) {
                ssize_t r = write(fo, buf + w, (size_t)(k - w));
                if (r < 0 && errno == EINTR)
                    continue;
                if (r <= 0) {
                    ok = 0;
                    break;
                }
                w += r;
            }
            if (!ok)
                break;
        }
        if (k < 0)
            ok = 0;
        close(fd);
    }
    if (close(fo) != 0)
        ok = 0;
    return ok ? bench_now() - t0 : -1;
}

/* One row of the Unit-size table. */
typedef struct unit_row {
    uint64_t session_bytes, events, unit, packed;
    int is_default;
    double back;   /* share of index events back after the damage, 0..1 */
} unit_row;

#define UNIT_ROWS 18

/* Packs, damages (100 zeroed bytes in the middle) and unpacks small demo
 * sessions under base: @return rows filled, or -1. */
static int unit_table(const char *base, unit_row *rows)
{
    static const uint64_t events[] = { 4800, 12000, 100000 };
    static const uint64_t units[] = { 16384, 65536, 131072, 1048576, 0 };
    char sess[4400], rtc[4420], out[4420];
    int n = 0;
    for (size_t e = 0; e < sizeof events / sizeof events[0]; e++) {
        snprintf(sess, sizeof sess, "%s.units-%" PRIu64, base, events[e]);
        snprintf(rtc, sizeof rtc, "%s.rtc", sess);
        snprintf(out, sizeof out, "%s.out", sess);
        bench_rm_rf(sess);
        atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
        d.threads = 2;
        d.events = events[e];
        atf_error err;
        if (atf_tool_demo(sess, &d, &err) != ATF_OK)
            return -1;
        for (size_t u = 0; u < sizeof units / sizeof units[0] && n < UNIT_ROWS; u++) {
            atf_pack_options po = ATF_PACK_OPTIONS_INIT;
            po.unit_size = units[u];
            atf_pack_stats ps;
            if (atf_pack(sess, rtc, &po, &ps, NULL, &err) != ATF_OK)
                return -1;
            if (units[u] == 0) {   /* the default: show it only where it differs from the rows above */
                int seen = 0;
                for (int k = n - (int)u; k < n; k++)
                    if (rows[k].unit == ps.unit_size)
                        rows[k].is_default = seen = 1;
                if (seen)
                    continue;
            }
            int fd = open(rtc, O_RDWR | O_CLOEXEC);
            struct stat sb;
            if (fd < 0 || fstat(fd, &sb) != 0)
                return -1;
            static const uint8_t zero[100];
            off_t mid = sb.st_size / 2 - 50;
            ssize_t w = pwrite(fd, zero, sizeof zero, mid);
            close(fd);
            if (w != (ssize_t)sizeof zero)
                return -1;
            atf_unpack_stats us;
            bench_rm_rf(out);
            atf_status st = atf_unpack(rtc, out, NULL, &us, NULL, &err);
            unit_row *r = &rows[n++];
            r->session_bytes = ps.bytes_in;
            r->events = ps.index_events;
            r->unit = ps.unit_size;
            r->packed = ps.bytes_out;
            r->is_default = units[u] == 0;
            r->back = st == ATF_OK && ps.index_events ? (double)us.index_events / (double)ps.index_events : 0.0;
            bench_rm_rf(out);
        }
        unlink(rtc);
        bench_rm_rf(sess);
    }
    return n;
}

static double pct(double *v, size_t n, double p)
{
    size_t i = (size_t)(p * (double)(n - 1));
    return v[i];
}

int bench_rtc(int argc, char **argv)
{
    bench_file_opts o;
    int repeat_given = 0;
    for (int i = 0; i < argc; i++)
        repeat_given |= !strcmp(argv[i], "--repeat");
    if (bench_file_opts_parse(&o, argc, argv, "rtc") != 0)
        return 2;
    if (!repeat_given)
        o.repeat = 3;
    if (o.size < (8u << 20)) {
        fprintf(stderr, "atf-bench: --size: at least 8M for rtc\n");
        return 2;
    }
    char file[4096], session[4200], out[4200], catout[4200];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (o.file)
        snprintf(file, sizeof file, "%s", o.file);
    else
        snprintf(file, sizeof file, "%s/atf-bench-rtc-%" PRIu64 ".rtc", dir, o.size);
    snprintf(session, sizeof session, "%s.session", file);
    snprintf(out, sizeof out, "%s.unpacked", file);
    snprintf(catout, sizeof catout, "%s.cat", file);
    bench_rm_rf(out);
    file_list *fl = malloc(sizeof *fl);
    if (!fl)
        return 2;
    list_session(fl, session);
    int reuse = fl->n == 1 + 2 * THREADS && fl->bytes >= o.size * 9 / 10 && fl->bytes <= o.size * 11 / 10;
    if (!reuse) {
        bench_rm_rf(session);
        /* session + packed (~1.03x) + unpacked + cat copy */
        uint64_t need = o.size / 10 * 42;
        if (bench_fit_disk(file, &need) != 0) {
            free(fl);
            return 0;
        }
        if (need < o.size / 10 * 42) {
            o.size = need / 42 * 10;
            fprintf(stderr, "atf-bench: the session is scaled down to %.1f MiB\n", (double)o.size / 1048576.0);
        }
        atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
        d.threads = THREADS;
        d.events = o.size / BYTES_PER_EVENT / THREADS;
        d.detail_every = 4;
        fprintf(stderr, "atf-bench: writing a demo session of about %.1f MiB (%u threads x %" PRIu64 " events) to %s\n",
                (double)o.size / 1048576.0, THREADS, d.events, session);
        atf_error err;
        double t0 = bench_now();
        if (atf_tool_demo(session, &d, &err) != ATF_OK) {
            fprintf(stderr, "atf-bench: %s: %s\n", session, err.message);
            free(fl);
            return 2;
        }
        fprintf(stderr, "atf-bench: written in %.1f s\n", bench_now() - t0);
        list_session(fl, session);
    } else {
        fprintf(stderr, "atf-bench: reusing %s\n", session);
    }
    /* Into the page cache. */
    if (time_cat_copy(fl->paths, fl->n, catout) < 0) {
        fprintf(stderr, "atf-bench: cannot copy %s: %s\n", session, strerror(errno));
        free(fl);
        return 2;
    }
    unlink(catout);
    double cp_t[100], pk_t[100], cu_t[100], up_t[100], pk_cpu[100], up_cpu[100], cp_cpu[100], cu_cpu[100];
    atf_pack_stats ps;
    atf_unpack_stats us;
    atf_error err;
    char one[1][4400];
    snprintf(one[0], sizeof one[0], "%s", file);
    for (int i = 0; i < o.repeat; i++) {
        double c0 = bench_cpu_seconds();
        cp_t[i] = time_cat_copy(fl->paths, fl->n, catout);
        cp_cpu[i] = bench_cpu_seconds() - c0;
        unlink(catout);
        c0 = bench_cpu_seconds();
        double t0 = bench_now();
        atf_status st = atf_pack(session, file, NULL, &ps, NULL, &err);
        pk_t[i] = bench_now() - t0;
        pk_cpu[i] = bench_cpu_seconds() - c0;
        if (st != ATF_OK) {
            fprintf(stderr, "atf-bench: pack: %s\n", err.message);
            free(fl);
            return 2;
        }
        c0 = bench_cpu_seconds();
        cu_t[i] = time_cat_copy(one, 1, catout);
        cu_cpu[i] = bench_cpu_seconds() - c0;
        unlink(catout);
        c0 = bench_cpu_seconds();
        t0 = bench_now();
        st = atf_unpack(file, out, NULL, &us, NULL, &err);
        up_t[i] = bench_now() - t0;
        up_cpu[i] = bench_cpu_seconds() - c0;
        if (st != ATF_OK || us.lost || us.threads_whole != THREADS || us.index_events != ps.index_events) {
            fprintf(stderr, "atf-bench: unpack did not give the session back whole: %s\n",
                    st ? err.message : "data lost");
            free(fl);
            return 2;
        }
        bench_rm_rf(out);
        if (cp_t[i] < 0 || cu_t[i] < 0) {
            fprintf(stderr, "atf-bench: cat copy failed: %s\n", strerror(errno));
            free(fl);
            return 2;
        }
    }
    /* Resynchronisation from random offsets into the mapped, page-cached packed file. */
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        free(fl);
        return 2;
    }
    size_t n = (size_t)sb.st_size;
    const uint8_t *d = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (d == MAP_FAILED) {
        free(fl);
        return 2;
    }
    uint64_t U = ps.unit_size, sink = 0;
    for (size_t i = 0; i < n; i += 4096)
        sink += d[i];
    static double find_us[RESYNC_OFFSETS], read_us[RESYNC_OFFSETS];
    uint64_t seed = 0x5EEDu, records = 0;
    int resync_ok = n > 3 * U;
    for (int i = 0; i < RESYNC_OFFSETS && resync_ok; i++) {
        size_t off = (size_t)(bench_rng(&seed) % (n - 2 * U));
        double t0 = bench_now();
        size_t m = atf_rtc_find_marker(d, n, off);
        find_us[i] = (bench_now() - t0) * 1e6;
        size_t win = m + U <= n ? m + U - off : n - off;
        t0 = bench_now();
        atf_rtc_reader *r;
        if (atf_rtc_reader_open_memory(&r, d + off, win, &err) != ATF_OK) {
            resync_ok = 0;
            break;
        }
        atf_rtc_summary s;
        atf_rtc_reader_summary(r, &s);
        read_us[i] = (bench_now() - t0) * 1e6;
        records += s.records;
        if (m >= n || (m - off) > U || s.units < 1 || s.records == 0)
            resync_ok = 0;
        atf_rtc_reader_close(r);
    }
    munmap((void *)d, n);
    if (!resync_ok) {
        fprintf(stderr, "atf-bench: resynchronisation failed (file of %zu bytes, Unit %" PRIu64 ")\n", n, U);
        free(fl);
        return 2;
    }
    qsort(find_us, RESYNC_OFFSETS, sizeof(double), bench_cmp_double);
    qsort(read_us, RESYNC_OFFSETS, sizeof(double), bench_cmp_double);
    size_t reps = (size_t)o.repeat;
    double cp = bench_median(cp_t, reps), pk = bench_median(pk_t, reps), cu = bench_median(cu_t, reps),
           up = bench_median(up_t, reps), pkc = bench_median(pk_cpu, reps), upc = bench_median(up_cpu, reps),
           cpc = bench_median(cp_cpu, reps), cuc = bench_median(cu_cpu, reps);
    double bytes = (double)fl->bytes, packed = (double)n;
    double pr = cp / pk, ur = cu / up;
    int met = pr >= RTC_TARGET && ur >= RTC_TARGET;
    unit_row rows[UNIT_ROWS];
    int nrows = unit_table(file, rows);
    if (nrows < 0) {
        fprintf(stderr, "atf-bench: the Unit-size table failed\n");
        free(fl);
        return 2;
    }
    double load = bench_load_average();
    if (o.json) {
        printf("{\"benchmark\":\"rtc\",\"session_bytes\":%.0f,\"packed_bytes\":%.0f,\"index_events\":%" PRIu64
               ",\"detail_events\":%" PRIu64 ",\"unit_size\":%" PRIu64 ","
               "\"cat_pack_seconds\":%.6f,\"pack_seconds\":%.6f,\"pack_cpu_seconds\":%.6f,\"pack_mb_per_s\":%.1f,"
               "\"pack_ratio\":%.3f,\"cat_pack_cpu_seconds\":%.6f,\"cat_unpack_cpu_seconds\":%.6f,\"cat_unpack_seconds\":%.6f,\"unpack_seconds\":%.6f,\"unpack_cpu_seconds\":%.6f,"
               "\"unpack_mb_per_s\":%.1f,\"unpack_ratio\":%.3f,\"resync_offsets\":%d,"
               "\"resync_find_us_median\":%.1f,\"resync_find_us_p99\":%.1f,\"resync_find_us_max\":%.1f,"
               "\"resync_read_us_median\":%.1f,\"resync_read_us_p99\":%.1f,\"resync_read_us_max\":%.1f,"
               "\"target\":%.2f,\"met\":%s,\"load_average\":%.2f,\"repeat\":%d,\"checksum\":%" PRIu64 ",",
               bytes, packed, ps.index_events, ps.detail_events, U, cp, pk, pkc, bytes / pk / 1e6,
               pr, cpc, cuc, cu, up, upc, bytes / up / 1e6, ur, RESYNC_OFFSETS, pct(find_us, RESYNC_OFFSETS, 0.5),
               pct(find_us, RESYNC_OFFSETS, 0.99), find_us[RESYNC_OFFSETS - 1], pct(read_us, RESYNC_OFFSETS, 0.5),
               pct(read_us, RESYNC_OFFSETS, 0.99), read_us[RESYNC_OFFSETS - 1], RTC_TARGET, met ? "true" : "false",
               load, o.repeat, sink + records);
        printf("\"unit_sizes\":[");
        for (int i = 0; i < nrows; i++)
            printf("%s{\"session_bytes\":%" PRIu64 ",\"index_events\":%" PRIu64 ",\"unit_size\":%" PRIu64
                   ",\"default\":%s,\"packed_bytes\":%" PRIu64 ",\"overhead\":%.4f,\"back_after_100_zeroed\":%.4f}",
                   i ? "," : "", rows[i].session_bytes, rows[i].events, rows[i].unit,
                   rows[i].is_default ? "true" : "false", rows[i].packed,
                   (double)rows[i].packed / (double)rows[i].session_bytes - 1.0, rows[i].back);
        printf("]}\n");
    } else {
        printf("session:         %s (%.1f MiB, %u threads, %" PRIu64 " index + %" PRIu64 " detail events)\n", session,
               bytes / 1048576.0, THREADS, ps.index_events, ps.detail_events);
        printf("packed:          %s (%.1f MiB, +%.2f %%, Unit %" PRIu64 " KiB, %" PRIu64 " manifest copies)\n", file,
               packed / 1048576.0, 100.0 * (packed - bytes) / bytes, U >> 10, ps.manifest_copies);
        printf("cat (pack):      %.3f s  %8.1f MB/s                   (CPU %.3f s; the session's files read and "
               "written into one file, 128 KiB blocks; medians of %d)\n",
               cp, bytes / cp / 1e6, cpc, o.repeat);
        printf("atf pack:        %.3f s  %8.1f MB/s  ratio to cat %.3f  (CPU %.3f s, CPU ratio %.3f)\n", pk,
               bytes / pk / 1e6, pr, pkc, cpc / pkc);
        printf("cat (unpack):    %.3f s  %8.1f MB/s                   (CPU %.3f s; the packed file read and written)\n",
               cu, packed / cu / 1e6, cuc);
        printf("atf unpack:      %.3f s  %8.1f MB/s  ratio to cat %.3f  (CPU %.3f s, CPU ratio %.3f; every file back "
               "byte for byte)\n",
               up, bytes / up / 1e6, ur, upc, cuc / upc);
        printf("resync:          %d random offsets: next Marker found in %.1f us median, %.1f us p99, %.1f us max;\n"
               "                 read to the end of the first whole Unit (Crc checked, records decoded) in %.1f us "
               "median, %.1f us p99, %.1f us max\n",
               RESYNC_OFFSETS, pct(find_us, RESYNC_OFFSETS, 0.5), pct(find_us, RESYNC_OFFSETS, 0.99),
               find_us[RESYNC_OFFSETS - 1], pct(read_us, RESYNC_OFFSETS, 0.5), pct(read_us, RESYNC_OFFSETS, 0.99),
               read_us[RESYNC_OFFSETS - 1]);
        printf("target: pack and unpack >= %.2fx cat: %s\n", RTC_TARGET, met ? "met" : "NOT met");
        printf("Unit size (2-thread demo sessions; 100 bytes zeroed in the middle of the packed file):\n");
        for (int i = 0; i < nrows; i++)
            printf("  session %6.2f MB  Unit %5" PRIu64 " KiB%s  overhead %+6.1f %%  index events back %5.1f %%\n",
                   (double)rows[i].session_bytes / 1e6, rows[i].unit >> 10, rows[i].is_default ? " (default)" : "          ",
                   100.0 * ((double)rows[i].packed / (double)rows[i].session_bytes - 1.0), 100.0 * rows[i].back);
        printf("load average:    %.2f on %ld CPUs\n", load, sysconf(_SC_NPROCESSORS_ONLN));
    }
    unlink(catout);
    if (!o.keep) {
        unlink(file);
        bench_rm_rf(session);
    } else {
        fprintf(stderr, "atf-bench: kept %s and %s\n", file, session);
    }
    free(fl);
    return 0;
}
