/* atf-bench: throughput benchmarks that print figures and ratios measured in
 * the same run. Never used as timed tests.
 *
 *   atf-bench read [--detail] [--size BYTES] [--file PATH] [--repeat N] [--keep] [--json]
 *       Index-file reading with full validation (CRC32-C + every event
 *       checked, on every CPU as the reader does by default) versus
 *       `cat FILE > /dev/null` on the same page-cached file (cat's read loop
 *       in this process: bench_cat_equivalent). --detail: a detail file
 *       instead (events walked in order, CRC32-C in parts side by side).
 *
 *   atf-bench recorder --threads N --events-per-thread M --out DIR [--detail] [--json] ...
 *       The recorder's throughput versus the raw write bandwidth of the same
 *       I/O method on the same disk (bench_recorder.c).
 *
 *   atf-bench merge|dump|export|report [--session DIR] [--repeat N] [--json] ...
 *       The merge, the canonical dump and the Perfetto export of an 8-thread
 *       session versus the recorder's sustained rate measured in the same run
 *       (bench_read.c).
 *
 *   atf-bench FORMAT [--size BYTES] [--file PATH] [--repeat N] [--keep] [--json]
 *       The benchmark of a format, for each format with a folder
 *       formats/<name>/bench/ (bench_format_registry, generated from
 *       formats/formats.cmake); its source there says what it measures.
 *
 *   atf-bench formats
 *       The formats' benchmarks: name, tab, what it measures (one a line).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <atf/crc32c.h>
#include <atf/reader.h>
#include <atf/writer.h>

#include "bench.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t bench_parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (v <= 0)
        return 0;
    switch (*end) {
    case 'k': case 'K': v *= 1024.0; break;
    case 'm': case 'M': v *= 1024.0 * 1024.0; break;
    case 'g': case 'G': v *= 1024.0 * 1024.0 * 1024.0; break;
    case '\0': break;
    default: return 0;
    }
    return (uint64_t)v;
}

uint64_t bench_free_bytes(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    else if (!slash)
        snprintf(dir, sizeof dir, ".");
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0)
        return 0;
    return (uint64_t)sv.f_bavail * sv.f_frsize;
}

static int write_index(const char *path, uint64_t events)
{
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    o.buffer_size = 4u << 20;
    atf_index_writer *w;
    atf_error err;
    if (atf_index_writer_open(&w, path, &o, &err) != ATF_OK) {
        fprintf(stderr, "atf-bench: %s: %s\n", path, err.message);
        return -1;
    }
    uint64_t ts = 1000;
    for (uint64_t i = 0; i < events; i++) {
        atf_index_event e = { 0 };
        ts += 1 + (i * 2654435761u >> 28);
        e.timestamp_ns = ts;
        e.function_id = (i * 0x9E3779B97F4A7C15ull) >> 40;
        e.event_kind = 1 + (uint32_t)(i % 2);
        e.detail_seq = ATF_NO_DETAIL;
        if (atf_index_writer_append(w, &e) != ATF_OK)
            return -1;
    }
    if (atf_index_writer_finalize(w, 0, &err) != ATF_OK) {
        fprintf(stderr, "atf-bench: %s: %s\n", path, err.message);
        atf_index_writer_close(w);
        return -1;
    }
    atf_index_writer_close(w);
    return 0;
}

/* A detail file of about `bytes` bytes: payloads of 8 to 232 bytes (the
 * ARM64 register payloads are 40 to 200), one event per two index events. */
static int write_detail(const char *path, uint64_t bytes, uint64_t *events)
{
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    o.buffer_size = 4u << 20;
    atf_detail_writer *w;
    atf_error err;
    if (atf_detail_writer_open(&w, path, &o, &err) != ATF_OK) {
        fprintf(stderr, "atf-bench: %s: %s\n", path, err.message);
        return -1;
    }
    uint8_t payload[256];
    for (unsigned k = 0; k < sizeof payload; k++)
        payload[k] = (uint8_t)(k * 37u + 11u);
    uint64_t ts = 1000, written = 128, n = 0;
    while (written < bytes) {
        atf_detail_event e = { 0 };
        ts += 1 + (n * 2654435761u >> 28);
        e.event_type = (uint16_t)(3 + n % 2);
        e.index_seq = 2 * n;
        e.timestamp = ts;
        e.payload = payload;
        e.payload_size = 8 + 8 * (uint32_t)((n * 0x9E3779B97F4A7C15ull) >> 59);
        if (atf_detail_writer_append(w, &e, NULL) != ATF_OK) {
            atf_detail_writer_close(w);
            return -1;
        }
        written += ATF_DETAIL_EVENT_HEADER_SIZE + e.payload_size;
        n++;
    }
    if (atf_detail_writer_finalize(w, 0, &err) != ATF_OK) {
        fprintf(stderr, "atf-bench: %s: %s\n", path, err.message);
        atf_detail_writer_close(w);
        return -1;
    }
    atf_detail_writer_close(w);
    *events = n;
    return 0;
}

/* bench.h */
double bench_cat_equivalent(const char *path, uint64_t *bytes)
{
    enum { BLOCK = 128 * 1024 };
    static unsigned char buf[BLOCK];
    double t0 = bench_now();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    uint64_t total = 0;
    ssize_t k;
    while ((k = read(fd, buf, BLOCK)) > 0 || (k < 0 && errno == EINTR))
        total += k > 0 ? (uint64_t)k : 0;
    close(fd);
    if (k < 0)
        return -1;
    *bytes = total;
    return bench_now() - t0;
}

/* Seconds to open with full validation: the CRC32-C of every event and the
 * scan of every event (kinds, timestamps in order, links), with the
 * reader's default number of threads; @detail: a detail file (every event
 * walked, timestamps in order). */
static double time_read(const char *path, int detail, uint64_t *events_out, uint64_t *sum_out, unsigned *threads)
{
    double t0 = bench_now();
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    atf_index_reader *r = NULL;
    atf_detail_reader *dr = NULL;
    atf_error err;
    if ((detail ? atf_detail_reader_open(&dr, path, &ro, &err) : atf_index_reader_open(&r, path, &ro, &err)) != ATF_OK) {
        fprintf(stderr, "atf-bench: %s: %s\n", path, err.message);
        return -1;
    }
    const atf_index_info *in = r ? atf_index_reader_info(r) : NULL;
    const atf_detail_info *din = dr ? atf_detail_reader_info(dr) : NULL;
    int ok = in ? in->checksum == ATF_CHECKSUM_CRC32C && !in->scan.bad_kind_count && !in->scan.backwards_count
                : din->checksum == ATF_CHECKSUM_CRC32C && !din->backwards_count;
    if (ok) {
        *events_out = in ? atf_index_reader_count(r) : din->event_count;
        *sum_out = in ? in->scan.last_ts : din->last_ts;
        *threads = in ? in->verify_threads : din->verify_threads;
    } else {
        fprintf(stderr, "atf-bench: %s: validation failed\n", path);
    }
    atf_index_reader_close(r);
    atf_detail_reader_close(dr);
    return ok ? bench_now() - t0 : -1;
}

/* Read and verify as fast as cat reads: the target of the read-side issue. */
#define READ_TARGET 0.9

/* The first number in the file at @path (a /proc or /sys value): 0 and
 * *v, or -1. */
static int first_number(const char *path, double *v)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%lf", v) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

double bench_load_average(void)
{
    double load;
    return first_number("/proc/loadavg", &load) == 0 ? load : -1;
}

int bench_page_reporting(void)
{
    double v;
    int order = first_number("/sys/module/page_reporting/parameters/page_reporting_order", &v) == 0 ? (int)v : -1;
    /* Above the buddy allocator's largest order (10 on x86-64 and arm64
     * with 4 KiB pages) no free block is ever big enough: reporting is off. */
    return order >= 0 && order <= 10 ? order : -1;
}

uint64_t bench_rng(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int bench_rm_rf(const char *path)
{
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

int bench_file_opts_parse(bench_file_opts *o, int argc, char **argv, const char *name)
{
    o->size = 1ull << 30;
    o->file = NULL;
    o->repeat = 5;
    o->keep = o->json = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            o->size = bench_parse_size(argv[++i]);
        else if (!strcmp(argv[i], "--file") && i + 1 < argc)
            o->file = argv[++i];
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            o->repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--keep"))
            o->keep = 1;
        else if (!strcmp(argv[i], "--json"))
            o->json = 1;
        else {
            fprintf(stderr, "usage: atf-bench %s [--size BYTES[K|M|G]] [--file PATH] [--repeat N] [--keep] [--json]\n",
                    name);
            return 2;
        }
    }
    if (o->size < 4096 || o->repeat < 1 || o->repeat > 100) {
        fprintf(stderr, "atf-bench: bad --size or --repeat\n");
        return 2;
    }
    return 0;
}

void bench_settle(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (syncfs(fd) != 0)
            sync();
        close(fd);
    } else {
        sync();
    }
}

int bench_back_memory_fits(uint64_t bytes)
{
    /* Never at the cost of the page cache the benchmark reads from. */
    long avail = sysconf(_SC_AVPHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    return avail > 0 && page_size > 0 && bytes <= (uint64_t)avail * (uint64_t)page_size / 2;
}

int bench_back_memory(uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    if (!bench_back_memory_fits(bytes))
        return -1;
    long page_size = sysconf(_SC_PAGESIZE);
    uint8_t *m = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    /* In small pages: freed, they go where the page cache's next
     * allocations look first (huge pages freed whole join the blocks the
     * host was handed, and the copy then got others). */
    madvise(m, (size_t)bytes, MADV_NOHUGEPAGE);
    for (uint64_t o = 0; o < bytes; o += (uint64_t)page_size)
        m[o] = 1;
    munmap(m, (size_t)bytes);
    return 0;
}

int bench_fit_disk(const char *file, uint64_t *size)
{
    uint64_t avail = bench_free_bytes(file);
    if (avail >= *size + (64u << 20))
        return 0;
    uint64_t scaled = avail > (128u << 20) ? (avail - (64u << 20)) / 2 : 0;
    if (scaled < (16u << 20)) {
        fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free near %s; need at least 48 MiB, skipping\n",
                avail >> 20, file);
        return 1;
    }
    fprintf(stderr, "atf-bench: only %" PRIu64 " MiB free near %s; scaling the file down from %" PRIu64
                    " MiB to %" PRIu64 " MiB\n",
            avail >> 20, file, *size >> 20, scaled >> 20);
    *size = scaled;
    return 0;
}

static int bench_read(int argc, char **argv)
{
    /* --detail: the same for a detail file (variable-length events). */
    int detail = 0;
    char *args[64];
    int nargs = 0;
    for (int i = 0; i < argc && nargs < 64; i++) {
        if (!strcmp(argv[i], "--detail"))
            detail = 1;
        else
            args[nargs++] = argv[i];
    }
    bench_file_opts o;
    if (bench_file_opts_parse(&o, nargs, args, detail ? "read --detail" : "read") != 0)
        return 2;
    uint64_t size = o.size;
    const char *file = o.file;
    int repeat = o.repeat, keep = o.keep, json = o.json;
    char tmp[4096];
    if (!file) {
        const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(tmp, sizeof tmp, "%s/atf-bench-read-%d.%s", dir, (int)getpid(), detail ? "detail.atf" : "atf");
        file = tmp;
    }
    if (bench_fit_disk(file, &size) != 0)
        return 0;
    uint64_t events = (size - 128) / ATF_INDEX_EVENT_SIZE;
    struct stat st;
    int reuse = stat(file, &st) == 0 && (uint64_t)st.st_size == 128 + events * ATF_INDEX_EVENT_SIZE;
    if (detail) {
        fprintf(stderr, "atf-bench: writing a detail file of %.1f MiB to %s\n", (double)size / 1048576.0, file);
        if (write_detail(file, size, &events) != 0)
            return 2;
    } else if (!reuse) {
        fprintf(stderr, "atf-bench: writing %" PRIu64 " events (%.1f MiB) to %s\n", events,
                (double)(128 + events * 32) / 1048576.0, file);
        if (write_index(file, events) != 0)
            return 2;
    }
    /* Written back, then warm in the page cache: both sides read from memory
     * with no writeback running beside them. */
    bench_settle(file);
    uint64_t cat_bytes = 0;
    if (bench_cat_equivalent(file, &cat_bytes) < 0) {
        fprintf(stderr, "atf-bench: cannot run cat\n");
        return 2;
    }
    double cat_t[100], read_t[100];
    uint64_t n = 0, sum = 0;
    unsigned threads = 0;
    for (int i = 0; i < repeat; i++) {
        cat_t[i] = bench_cat_equivalent(file, &cat_bytes);
        read_t[i] = time_read(file, detail, &n, &sum, &threads);
        if (cat_t[i] < 0 || read_t[i] < 0)
            return 2;
    }
    qsort(cat_t, (size_t)repeat, sizeof(double), bench_cmp_double);
    qsort(read_t, (size_t)repeat, sizeof(double), bench_cmp_double);
    double cat_med = cat_t[repeat / 2], read_med = read_t[repeat / 2];
    double bytes = detail ? (double)cat_bytes : (double)(128 + n * 32);
    double ratio = cat_med / read_med;
    if (json)
        printf("{\"benchmark\":\"%s\",\"bytes\":%.0f,\"events\":%" PRIu64 ",\"crc32c\":\"%s\",\"verify_threads\":%u,"
               "\"cat_seconds\":%.6f,\"read_seconds\":%.6f,\"cat_gb_per_s\":%.3f,\"read_gb_per_s\":%.3f,"
               "\"ratio\":%.3f,\"target\":%.2f,\"met\":%s,\"load_average\":%.2f}\n",
               detail ? "read_detail" : "read", bytes, n, atf_crc32c_impl(), threads, cat_med, read_med, bytes / cat_med / 1e9, bytes / read_med / 1e9,
               ratio, READ_TARGET, ratio >= READ_TARGET ? "true" : "false", bench_load_average());
    else {
        printf("file:            %s (%s, %.1f MiB, %" PRIu64 " events, page-cached)\n", file,
               detail ? "detail lane" : "index lane", bytes / 1048576.0, n);
        printf("crc32c:          %s\n", atf_crc32c_impl());
        printf("verify threads:  %u (the reader's default: one per CPU, 16 MiB of events each at least)\n", threads);
        printf("cat > /dev/null: %.3f s  (%.2f GB/s, median of %d; cat's 128 KiB read()s in this process)\n", cat_med,
               bytes / cat_med / 1e9, repeat);
        printf("atf read+verify: %.3f s  (%.2f GB/s, %.1f M events/s, median of %d)\n", read_med,
               bytes / read_med / 1e9, (double)n / read_med / 1e6, repeat);
        printf("ratio (atf speed / cat speed): %.2f  (target >= %.2f: %s)\n", ratio, READ_TARGET,
               ratio >= READ_TARGET ? "met" : "NOT met");
        printf("load average:    %.2f on %ld CPUs\n", bench_load_average(), sysconf(_SC_NPROCESSORS_ONLN));
    }
    if (!keep && file == tmp)
        unlink(file);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "read"))
        return bench_read(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "recorder"))
        return bench_recorder(argc - 2, argv + 2);
    if (argc >= 2 && (!strcmp(argv[1], "merge") || !strcmp(argv[1], "dump") || !strcmp(argv[1], "export") ||
                       !strcmp(argv[1], "report")))
        return bench_read_side(argv[1], argc - 2, argv + 2);
    for (size_t i = 0; argc >= 2 && i < bench_format_count; i++)
        if (!strcmp(argv[1], bench_format_registry[i]->name))
            return bench_format_registry[i]->run(argc - 2, argv + 2);
    if (argc == 2 && !strcmp(argv[1], "formats")) {
        for (size_t i = 0; i < bench_format_count; i++)
            printf("%s\t%s\n", bench_format_registry[i]->name, bench_format_registry[i]->summary);
        return 0;
    }
    fprintf(stderr, "usage: atf-bench read [--detail] [options]  (index or detail reading vs cat)\n"
                    "       atf-bench recorder [options]   (recorder throughput vs raw writes)\n"
                    "       atf-bench merge|dump|export|report [options]\n"
                    "                                      (the read side vs the recorder's rate, same run)\n");
    for (size_t i = 0; i < bench_format_count; i++) {
        const bench_format *f = bench_format_registry[i];
        int pad = 11 - (int)strlen(f->name);   /* the column of the lines above */
        fprintf(stderr, "       atf-bench %s [options]%*s(%s)\n", f->name, pad > 1 ? pad : 1, "", f->summary);
    }
    fprintf(stderr, "       atf-bench formats              (the formats' benchmarks, one a line)\n");
    return 2;
}
