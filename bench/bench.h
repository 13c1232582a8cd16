/* Subcommands of atf-bench, one source file each; the formats' own
 * benchmarks are in formats/<name>/bench/ and reached through
 * bench_format_registry. */
#ifndef ATF_BENCH_H
#define ATF_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Shared by the subcommands (atf_bench.c): CLOCK_MONOTONIC seconds, the
 * 1-minute load average (-1 if unknown), a qsort comparator of doubles. */
double bench_now(void);
double bench_load_average(void);
int bench_cmp_double(const void *a, const void *b);
/* Sorts v[0..n) and returns its median (v[n / 2]). */
double bench_median(double *v, size_t n);
/* "64M", "1G", "4096": bytes, 0 when not a size. */
uint64_t bench_parse_size(const char *s);
/* Free bytes on the filesystem holding path's directory (0 if unknown). */
uint64_t bench_free_bytes(const char *path);
/* The options of the benchmarks over one file (read, and those of the formats). */
typedef struct bench_file_opts {
    uint64_t size;      /* --size: bytes of the file (1 GiB) */
    const char *file;   /* --file: NULL for one in $TMPDIR */
    int repeat;         /* --repeat: timed passes (5) */
    int keep;           /* --keep: the file is not removed */
    int json;           /* --json: one JSON line */
} bench_file_opts;
/* Parses argv into @o (defaults first). @return 0, or 2 with the usage of
 * `atf-bench NAME` on stderr. */
int bench_file_opts_parse(bench_file_opts *o, int argc, char **argv, const char *name);
/* Room for @size bytes (and 64 MiB) near @file: when the disk is short,
 * *size is scaled down with a message. @return 0 go on, 1 not even the
 * smallest file fits (said on stderr: skip). */
int bench_fit_disk(const char *file, uint64_t *size);

/* The guest's free page reporting (virtio-balloon: the kernel hands freed
 * memory back to the host, and the next write into those pages pays the
 * host's faults): its page_reporting_order when it is on, -1 when it is off
 * or not there. A benchmark that compares page-cache writes prints it:
 * with it on, which write pays the host depends on timing, not on the
 * writer. */
int bench_page_reporting(void);

/* xorshift64: the next value of the fixed-seed generator in *s (not 0). */
uint64_t bench_rng(uint64_t *s);
/* rm -rf path. @return 0, or -1 (errno says why). */
int bench_rm_rf(const char *path);

/* Writes back the dirty pages of the file system that holds @path (not
 * timed), so that the next timed step does not share the machine with the
 * kernel's writeback of what was written before it: a file a benchmark has
 * just written is otherwise still being written back while it is timed
 * (on 2 CPUs a reader on both then gets one). */
void bench_settle(const char *path);

/* Makes @bytes of free memory host-backed just before a timed step that
 * writes about that much into new pages: maps them, writes every page and
 * unmaps them (not timed). On a VM whose guest hands freed pages back to
 * its host (bench_page_reporting()), a step otherwise pays the host's
 * first-touch fault on each page it writes, or not, depending on how long
 * ago the memory it gets was freed; pages freed a moment ago are not yet
 * handed back (the kernel reports them after about 2 s) and are the first
 * the next allocations take. @return 0, or -1 when that is more than half
 * the free memory (nothing done) or cannot be mapped. */
int bench_back_memory(uint64_t bytes);
/* 1 when bench_back_memory(@bytes) would not refuse for want of free memory. */
int bench_back_memory_fits(uint64_t bytes);

/* CPU seconds (user + system) of this process so far. */
double bench_cpu_seconds(void);
/* Seconds that `cat path > /dev/null` takes, done in this process: read()
 * of the file in 128 KiB blocks, the bytes dropped (no fork, and no
 * dependence on /dev/null being the null device: in some containers it is
 * a regular file, and cat then copies the whole file into memory); the
 * bytes read in *bytes. -1 on an error. */
double bench_cat_equivalent(const char *path, uint64_t *bytes);

/* atf-bench recorder ...: argv holds the arguments after "recorder". */
int bench_recorder(int argc, char **argv);

/* The recorder's sustained rate, end to end (recorded and on disk), on the
 * workload of `atf-bench recorder --threads T --events-per-thread N --out OUT`
 * (without detail): the baseline the read benchmarks compare against in the
 * same run. session (NULL or session_cap bytes) receives the session written.
 * @return 0, or 2 with the reason on stderr (lost events make it 2 too). */
int bench_recorder_rate(const char *out, unsigned threads, uint64_t per_thread, double *events_per_sec,
                        char *session, size_t session_cap);

/* atf-bench merge|dump|export ...: bench_read.c. */
int bench_read_side(const char *what, int argc, char **argv);

/* A format's benchmark, `atf-bench NAME [options]`: one descriptor per
 * format that has a folder formats/<name>/bench/ (formats/formats.cmake),
 * defined there as `const bench_format bench_format_<name>`. */
typedef struct bench_format {
    const char *name;      /* the subcommand: the format's short name */
    const char *summary;   /* what it measures, one line of the usage */
    /* argv holds the arguments after NAME; exit status of atf-bench */
    int (*run)(int argc, char **argv);
} bench_format;

/* The formats' benchmarks in registry order (NULL-terminated), generated
 * into the build tree from formats/formats.cmake (bench_formats.c). */
extern const bench_format *const bench_format_registry[];
extern const size_t bench_format_count;

#endif /* ATF_BENCH_H */
