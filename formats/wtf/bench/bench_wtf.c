/* atf-bench wtf: reading a WTF file against `cat`, in one run.
 *
 *   atf-bench wtf [--size BYTES] [--file PATH] [--repeat N] [--keep] [--json]
 *
 * Writes (or reuses) a WTF file of --size bytes (1 GiB) of scope events
 * with this project's writer: four zones of nested scopes, 60 % of them
 * wtf.scope#enter by name (200 names), the rest scope events of their own
 * with arguments (app#request(uint32 id, ascii route), app#frame(uint32 n,
 * float32 ms)), every 16th scope with wtf.scope#appendData JSON, and
 * their leaves: what `atf export --format wtf` and instrumented programs
 * write. Free disk is checked first; the file is scaled down, with a
 * message, when there is not room. It is read once untimed (page cache),
 * then --repeat times (median) each of:
 *   cat       what `cat FILE > /dev/null` does, in this process: read() of
 *             the file in 128 KiB blocks (no fork, and no dependence on
 *             /dev/null being the null device: in some containers it is a
 *             regular file, and cat then writes the whole file to memory);
 *   read      every chunk and event, every argument decoded
 *             (atf_wtf_event_arg): in parts side by side
 *             (atf_wtf_read_parts, as many as validate uses), and again on
 *             one reader in batches (atf_wtf_reader_next_events) and one
 *             atf_wtf_reader_next_event call per event;
 *   validate  atf_validate_path(): every clause of SPEC-WTF (what
 *             `atf validate FILE` does), its chunks in parts on every
 *             core (one part per CPU, at least 16 MiB each, or
 *             ATF_WTF_THREADS); and again on one thread (ATF_WTF_THREADS=1)
 *             for the speed per core;
 *   walk      the floor of any reader that looks at each event: the event
 *             buffers walked by event size alone (sizes known beforehand,
 *             nothing checked, nothing decoded);
 * and prints MB/s, events/s, the threads each used, each one's speed as a
 * ratio of cat's and, per core, as a ratio of the walk's (issue 23).
 * Target: read and validate each at least 0.8x the walk per core, using
 * every core (on 2 cores, about 0.3x cat). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/validator.h>
#include <atf/wtf.h>

#include "bench.h"
#include "common.h"   /* the codec's: atf_blob */
#include "bytes.h"    /* the codec's: atf_load_le32 */

#define WTF_TARGET 0.8   /* of the walk, per core */
#define ZONES 4
#define TITLE "atf-bench wtf workload 1"

/* The workload, until the file holds @size bytes. @return events written, 0 on failure. */
static uint64_t write_workload(const char *path, uint64_t size)
{
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.timebase_ms = 1700000000000.0;
    o.context_title = TITLE;
    o.high_res_times = 1;
    atf_wtf_writer *w;
    atf_error err;
    if (atf_wtf_writer_open(&w, path, &o, &err) != ATF_OK) {
        fprintf(stderr, "atf-bench: %s: %s\n", path, err.message);
        return 0;
    }
    uint16_t request, frame;
    atf_status st = atf_wtf_writer_define(w, "app#request", "uint32 id, ascii route", ATF_WTF_CLASS_SCOPE, 0,
                                          &request, &err);
    if (st == ATF_OK)
        st = atf_wtf_writer_define(w, "app#frame", "uint32 n, float32 ms", ATF_WTF_CLASS_SCOPE, 0, &frame, &err);
    char names[200][32];
    for (int i = 0; i < 200; i++)
        snprintf(names[i], sizeof names[i], "module%d::function_%d", i % 13, i);
    static const char *const routes[] = { "/", "/api/items", "/api/users", "/static/app.js", "/health" };
    for (uint16_t z = 1; z <= ZONES && st == ATF_OK; z++) {
        char zn[32];
        snprintf(zn, sizeof zn, "worker %u", (unsigned)z);
        st = atf_wtf_writer_zone_create(w, z, zn, "native_script", NULL, 0, &err);
    }
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    unsigned depth[ZONES + 1] = { 0 };
    uint32_t t = 1;
    uint16_t zone = 0;
    uint64_t n = 0;
    while (st == ATF_OK) {
        if (n % 4096 == 0) {
            if (atf_wtf_writer_bytes(w) >= size)
                break;
            zone = (uint16_t)(zone % ZONES + 1);
            st = atf_wtf_writer_zone_set(w, zone, t, &err);
        }
        uint64_t r = bench_rng(&seed);
        unsigned *d = &depth[zone];
        t += 1 + (uint32_t)(r >> 60);
        if (*d > 0 && (*d >= 12 || (r & 7) < 3)) {
            st = atf_wtf_writer_scope_leave(w, t, &err);
            (*d)--;
        } else if ((r >> 8) % 10 < 6) {
            st = atf_wtf_writer_scope_enter(w, names[(r >> 16) % 200], t, &err);
            (*d)++;
        } else if ((r >> 8) % 10 < 8) {
            atf_wtf_value v[2];
            memset(v, 0, sizeof v);
            v[0].type = ATF_WTF_UINT32;
            v[0].u = (uint32_t)(r >> 32);
            const char *route = routes[(r >> 24) % 5];
            v[1].type = ATF_WTF_ASCII;
            v[1].s = route;
            v[1].s_len = (uint32_t)strlen(route);
            st = atf_wtf_writer_event(w, request, t, v, 2, &err);
            (*d)++;
        } else {
            atf_wtf_value v[2];
            memset(v, 0, sizeof v);
            v[0].type = ATF_WTF_UINT32;
            v[0].u = (uint32_t)n;
            v[1].type = ATF_WTF_FLOAT32;
            v[1].f = (double)(r % 1000) / 64.0;
            st = atf_wtf_writer_event(w, frame, t, v, 2, &err);
            (*d)++;
        }
        if (st == ATF_OK && (n & 15) == 0 && *d > 0) {
            char json[48];
            snprintf(json, sizeof json, "{\"bytes\":%u}", (unsigned)(r % 997));
            st = atf_wtf_writer_append_data(w, "io", json, t, &err);
        }
        n++;
    }
    /* Every scope ends: the file is balanced. */
    for (uint16_t z = 1; z <= ZONES && st == ATF_OK; z++) {
        st = atf_wtf_writer_zone_set(w, z, t, &err);
        for (; depth[z] > 0 && st == ATF_OK; depth[z]--)
            st = atf_wtf_writer_scope_leave(w, t, &err);
    }
    uint64_t events = atf_wtf_writer_event_count(w);
    atf_status cs = atf_wtf_writer_close(w, st == ATF_OK ? &err : NULL);
    if (st != ATF_OK || cs != ATF_OK) {
        fprintf(stderr, "atf-bench: writing %s: %s\n", path, err.message);
        return 0;
    }
    return events;
}

/* The file is a workload this benchmark wrote for about @size bytes. */
static int reusable(const char *path, uint64_t size)
{
    struct stat st;
    if (stat(path, &st) != 0 || (uint64_t)st.st_size < size || (uint64_t)st.st_size > size + (4u << 20))
        return 0;
    atf_wtf_reader *r;
    if (atf_wtf_reader_open(&r, path, NULL, NULL) != ATF_OK)
        return 0;
    size_t len;
    const char *h = atf_wtf_reader_header_json(r, &len);
    int ok = h && len > sizeof TITLE && memmem(h, len, TITLE, sizeof TITLE - 1) != NULL;
    atf_wtf_reader_close(r);
    return ok;
}

/* Every event of @r's chunks and every argument decoded, @batches at a
 * time (0: one atf_wtf_reader_next_event call each): counts added to *n, a
 * sum of what was decoded to *acc. The counts are kept in locals while
 * reading, as a caller's own loop keeps them: a sum kept through a pointer
 * is stored and reloaded around every library call (a chain through memory,
 * and across threads a shared cache line), a cost of the caller's code,
 * not of reading. @return ATF_E_NOT_FOUND at the end. */
static atf_status read_all(atf_wtf_reader *r, int batches, uint64_t *n, uint64_t *acc, atf_error *err)
{
    const atf_wtf_chunk *c;
    atf_status st;
    atf_wtf_event evs[256];
    size_t got = 0;
    uint64_t count = 0, sum = 0;
    while ((st = atf_wtf_reader_next_chunk(r, &c, err)) == ATF_OK) {
        while ((st = batches ? atf_wtf_reader_next_events(r, evs, 256, &got, err)
                             : (got = 1, atf_wtf_reader_next_event(r, evs, err))) == ATF_OK) {
            count += got;
            for (size_t e = 0; e < got; e++) {
                const atf_wtf_event *ev = &evs[e];
                sum += ev->time + (uint64_t)ev->depth;
                for (size_t i = 0; i < ev->def->arg_count; i++) {
                    atf_wtf_value v;
                    if (atf_wtf_event_arg(r, ev, i, &v, err) != ATF_OK)
                        break;
                    sum += v.u + (uint64_t)v.i + v.s_len + (uint64_t)v.f;
                }
            }
        }
        if (st != ATF_E_NOT_FOUND)
            break;
    }
    *n += count;
    *acc += sum;
    return st;
}

/* Seconds to read every event and decode every argument, on one thread. */
static double time_read(const char *path, int batches, uint64_t *events, uint64_t *sum)
{
    double t0 = bench_now();
    atf_wtf_reader *r;
    atf_error err;
    if (atf_wtf_reader_open(&r, path, NULL, &err) != ATF_OK) {
        fprintf(stderr, "atf-bench: %s: %s\n", path, err.message);
        return -1;
    }
    uint64_t n = 0, acc = 0;
    atf_status st = read_all(r, batches, &n, &acc, &err);
    atf_wtf_summary s;
    atf_wtf_reader_summary(r, &s);
    atf_wtf_reader_close(r);
    if (st != ATF_E_NOT_FOUND || s.state != ATF_WTF_COMPLETE) {
        fprintf(stderr, "atf-bench: %s: not read whole: %s\n", path, err.message);
        return -1;
    }
    *events = n;
    *sum = acc;
    return bench_now() - t0;
}

/* One part's counts, a cache line each (parts run side by side). */
typedef struct read_counts {
    _Alignas(64) uint64_t n;
    uint64_t acc;
} read_counts;

static atf_status read_part(void *user, const atf_wtf_read_part *part)
{
    read_counts *c = (read_counts *)user + part->index;
    atf_error err;
    atf_status st = read_all(part->reader, 1, &c->n, &c->acc, &err);
    return st == ATF_E_NOT_FOUND ? ATF_OK : st;
}

/* The same in parts side by side (atf_wtf_read_parts, @threads of them). */
static double time_read_parts(const char *path, unsigned threads, uint64_t *events, uint64_t *sum)
{
    double t0 = bench_now();
    read_counts counts[64];
    memset(counts, 0, sizeof counts);
    atf_wtf_summary s;
    atf_error err;
    if (atf_wtf_read_parts(path, threads, read_part, counts, &s, &err) != ATF_OK || s.state != ATF_WTF_COMPLETE) {
        fprintf(stderr, "atf-bench: %s: not read whole in parts: %s\n", path, err.message);
        return -1;
    }
    uint64_t n = 0, acc = 0;
    for (unsigned i = 0; i < 64; i++) {
        n += counts[i].n;
        acc += counts[i].acc;
    }
    *events = n;
    *sum = acc;
    return bench_now() - t0;
}

/* Every wire id's event size (0: not fixed), from a reader pass. */
static int learn_sizes(const char *path, uint32_t *sizes, size_t n)
{
    atf_wtf_reader *r;
    if (atf_wtf_reader_open(&r, path, NULL, NULL) != ATF_OK)
        return -1;
    const atf_wtf_chunk *c;
    atf_wtf_event ev;
    while (atf_wtf_reader_next_chunk(r, &c, NULL) == ATF_OK)
        while (atf_wtf_reader_next_event(r, &ev, NULL) == ATF_OK)
            if (ev.wire_id < n)
                sizes[ev.wire_id] = ev.def->fixed_size;
    atf_wtf_reader_close(r);
    return 0;
}

/* The walk of the chunks in [from, to) of the file @b: events counts the
 * events, sum a byte of each; ok is 0 at an event of no fixed size (not
 * the workload). */
typedef struct walk_part {
    const atf_blob *b;
    uint64_t from, to;
    const uint32_t *sizes;
    size_t nsizes;
    uint64_t events, sum;
    int ok, started;
    pthread_t tid;
} walk_part;

static void *walk_range(void *arg)
{
    walk_part *w = arg;
    const uint8_t *d = w->b->data;
    uint64_t size = w->b->size;
    uint64_t n = 0, acc = 0;
    int ok = 1;
    uint64_t done = w->from;
    for (uint64_t pos = w->from; pos < w->to && ok;) {
        atf_wtf_chunk c;
        if (atf_wtf_parse_chunk(d + pos, size - pos, pos, &c, NULL) != ATF_OK || c.length > size - pos)
            break;
        for (uint32_t i = 0; i < c.part_count; i++) {
            if (c.parts[i].type != ATF_WTF_PART_BINARY_EVENTS)
                continue;
            const uint8_t *b = d + c.parts[i].file_offset;
            uint32_t len = c.parts[i].length;
            for (uint32_t at = 0; at + 8 <= len;) {
                uint32_t wire = atf_load_le32(b + at);
                uint32_t k = wire < w->nsizes ? w->sizes[wire] : 0;
                if (!k) {
                    ok = 0;   /* not the workload: an event of no fixed size */
                    break;
                }
                acc += b[at + 4];
                at += k;
                n++;
            }
        }
        pos += c.length;
        if (pos - done >= (8u << 20)) {   /* as the validator drops what it has read (v_release) */
            atf_blob_release(w->b, done, pos - done);
            done = pos;
        }
    }
    w->events = n;
    w->sum = acc;
    w->ok = ok;
    return NULL;
}

/* Seconds to walk every event buffer by the sizes alone (the file mapped
 * as the validator maps it, chunk headers parsed), on @threads threads
 * (each its share of whole chunks, split as the validator splits them: by
 * bytes); *events counts what was walked. */
static double time_walk(const char *path, const uint32_t *sizes, size_t nsizes, unsigned threads, uint64_t *events,
                        uint64_t *sum)
{
    double t0 = bench_now();
    atf_blob blob;
    if (atf_blob_open(&blob, path, 0, NULL) != ATF_OK)
        return -1;
    const uint8_t *d = blob.data;
    uint64_t size = blob.size;
    walk_part parts[16];
    threads = threads < 1 ? 1 : threads > 16 ? 16 : threads;
    unsigned k = 0;
    parts[0].from = ATF_WTF_FILE_HEADER_SIZE;
    for (uint64_t pos = ATF_WTF_FILE_HEADER_SIZE; pos + 12 <= size && k + 1 < threads;) {
        uint32_t len = atf_load_le32(d + pos + 8);
        if (len < 12 || len > size - pos)
            break;
        pos += len;
        if (pos < size && pos >= size / threads * (k + 1)) {
            parts[k].to = pos;
            parts[++k].from = pos;
        }
    }
    parts[k].to = size;
    unsigned n = k + 1;
    for (unsigned i = 0; i < n; i++) {
        parts[i].b = &blob;
        parts[i].sizes = sizes;
        parts[i].nsizes = nsizes;
        parts[i].started = i && pthread_create(&parts[i].tid, NULL, walk_range, &parts[i]) == 0;
    }
    uint64_t all = 0, acc = 0;
    int ok = 1;
    for (unsigned i = 0; i < n; i++) {
        if (parts[i].started)
            pthread_join(parts[i].tid, NULL);
        else
            walk_range(&parts[i]);   /* the first part, or one no thread took: walked here */
        all += parts[i].events;
        acc += parts[i].sum;
        ok = ok && parts[i].ok;
    }
    atf_blob_close(&blob);
    if (!ok)
        return -1;
    *events = all;
    *sum = acc;
    return bench_now() - t0;
}

/* The threads atf_validate_path() gives a WTF file of @bytes (wtf_pass.c's rule). */
static unsigned validate_threads(double bytes)
{
    const char *env = getenv("ATF_WTF_THREADS");
    unsigned wanted = env && *env ? (unsigned)strtoul(env, NULL, 10) : 0;
    uint64_t size = (uint64_t)bytes;
    return atf_part_count(wanted, size, size ? size : 1, 64);   /* wtf_pass.c: W_PARTS_MAX */
}

static double time_validate(const char *path)
{
    double t0 = bench_now();
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    atf_validation *v;
    atf_error err;
    if (atf_validate_path(&v, path, &o, &err) != ATF_OK) {
        fprintf(stderr, "atf-bench: validate %s: %s\n", path, err.message);
        return -1;
    }
    uint64_t errors = 0, warnings = 0;
    atf_validation_counts(v, &errors, &warnings);
    int ok = atf_validation_conformant(v) && errors == 0 && warnings == 0;
    atf_validation_free(v);
    if (!ok) {
        fprintf(stderr, "atf-bench: %s is not conformant (%" PRIu64 " errors, %" PRIu64 " warnings)\n", path,
                errors, warnings);
        return -1;
    }
    return bench_now() - t0;
}

static int bench_wtf(int argc, char **argv)
{
    bench_file_opts o;
    if (bench_file_opts_parse(&o, argc, argv, "wtf") != 0)
        return 2;
    if (o.size < (1u << 20)) {
        fprintf(stderr, "atf-bench: --size: at least 1M for wtf\n");
        return 2;
    }
    char tmp[4096];
    if (!o.file) {
        const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(tmp, sizeof tmp, "%s/atf-bench-wtf-%" PRIu64 ".wtf-trace", dir, o.size);
        o.file = tmp;
    }
    int reuse = reusable(o.file, o.size);
    if (!reuse) {
        if (bench_fit_disk(o.file, &o.size) != 0)
            return 0;
        fprintf(stderr, "atf-bench: writing %.1f MiB of WTF scope events to %s\n", (double)o.size / 1048576.0,
                o.file);
        double t0 = bench_now();
        uint64_t written = write_workload(o.file, o.size);
        if (!written)
            return 2;
        fprintf(stderr, "atf-bench: %" PRIu64 " events written in %.1f s\n", written, bench_now() - t0);
    } else {
        fprintf(stderr, "atf-bench: reusing %s\n", o.file);
    }
    /* Written back (no writeback beside the timed passes), then into the
     * page cache, so that every pass reads from memory. */
    bench_settle(o.file);
    uint64_t cat_bytes = 0;
    if (bench_cat_equivalent(o.file, &cat_bytes) < 0) {
        fprintf(stderr, "atf-bench: cannot read %s: %s\n", o.file, strerror(errno));
        return 2;
    }
    static uint32_t sizes[64];
    if (learn_sizes(o.file, sizes, 64) != 0) {
        fprintf(stderr, "atf-bench: cannot read %s\n", o.file);
        return 2;
    }
    double cat_t[100], read_t[100], read1_t[100], readb_t[100], val_t[100], read_cpu[100], val_cpu[100], walk_t[100], val1_t[100], walkn_t[100];
    unsigned v_threads = validate_threads((double)cat_bytes);
    const char *env_threads = getenv("ATF_WTF_THREADS");
    char *saved_threads = env_threads ? strdup(env_threads) : NULL;
    uint64_t events = 0, sum = 0, walked = 0, wsum = 0, walkedn = 0, wsumn = 0;
    for (int i = 0; i < o.repeat; i++) {
        cat_t[i] = bench_cat_equivalent(o.file, &cat_bytes);
        double c0 = bench_cpu_seconds();
        read_t[i] = time_read_parts(o.file, v_threads, &events, &sum);
        double c1 = bench_cpu_seconds();
        uint64_t events1 = 0, sum1 = 0, eventsb = 0, sumb = 0;
        readb_t[i] = time_read(o.file, 1, &eventsb, &sumb);
        read1_t[i] = time_read(o.file, 0, &events1, &sum1);
        double c2 = bench_cpu_seconds();
        val_t[i] = time_validate(o.file);
        read_cpu[i] = c1 - c0;
        val_cpu[i] = bench_cpu_seconds() - c2;
        walk_t[i] = time_walk(o.file, sizes, 64, 1, &walked, &wsum);
        walkn_t[i] = time_walk(o.file, sizes, 64, v_threads, &walkedn, &wsumn);
        setenv("ATF_WTF_THREADS", "1", 1);
        val1_t[i] = time_validate(o.file);
        if (saved_threads)
            setenv("ATF_WTF_THREADS", saved_threads, 1);
        else
            unsetenv("ATF_WTF_THREADS");
        if (cat_t[i] < 0 || read_t[i] < 0 || read1_t[i] < 0 || events1 != events || sum1 != sum || readb_t[i] < 0 || eventsb != events || sumb != sum || val_t[i] < 0 || walk_t[i] < 0 || val1_t[i] < 0 || walkn_t[i] < 0 ||
            walked != events || walkedn != events) {
            fprintf(stderr, "atf-bench: a pass failed (events read %" PRIu64 ", walked %" PRIu64 ")\n", events,
                    walked);
            return 2;
        }
    }
    struct stat stt;
    if (stat(o.file, &stt) != 0)
        return 2;
    double bytes = (double)stt.st_size;
    size_t reps = (size_t)o.repeat;
    double wk = bench_median(walk_t, reps), wkn = bench_median(walkn_t, reps);
    double rc = bench_median(read_cpu, reps), vc = bench_median(val_cpu, reps);
    double c = bench_median(cat_t, reps), rd = bench_median(read_t, reps), va = bench_median(val_t, reps);
    free(saved_threads);
    double v1 = bench_median(val1_t, reps), rd1 = bench_median(read1_t, reps), rdb = bench_median(readb_t, reps);
    double r_ratio = c / rd, v_ratio = c / va;
    /* Per core: the speed over the threads used, against the walk's (one thread). */
    long cpus = (long)atf_cpu_count();
    unsigned r_threads = v_threads;
    double r_core = wk / rd / r_threads, v_core = wk / va / v_threads, v1_core = wk / v1;
    double wn_core = wk / wkn / v_threads;   /* the walk's own: what this machine gives each of N threads */
    int every_core = (long)v_threads >= cpus && (long)r_threads >= cpus;
    int met = r_core >= WTF_TARGET && v_core >= WTF_TARGET && every_core;
    double load = bench_load_average();
    if (o.json) {
        printf("{\"benchmark\":\"wtf\",\"bytes\":%.0f,\"events\":%" PRIu64 ",\"bytes_per_event\":%.2f,"
               "\"cat_seconds\":%.6f,\"read_seconds\":%.6f,\"validate_seconds\":%.6f,"
               "\"cat_mb_per_s\":%.1f,\"read_mb_per_s\":%.1f,\"validate_mb_per_s\":%.1f,"
               "\"read_events_per_s\":%.0f,\"validate_events_per_s\":%.0f,"
               "\"read_ratio\":%.3f,\"validate_ratio\":%.3f,\"read_cpu_seconds\":%.6f,\"validate_cpu_seconds\":%.6f,"
               "\"walk_seconds\":%.6f,\"walk_ratio\":%.3f,\"read_threads\":%u,\"validate_threads\":%u,"
               "\"read_per_core_walk_ratio\":%.3f,\"validate_per_core_walk_ratio\":%.3f,"
               "\"read_1thread_seconds\":%.6f,\"read_1thread_walk_ratio\":%.3f,\"read_per_event_seconds\":%.6f,\"read_per_event_per_core_walk_ratio\":%.3f,"
               "\"validate_1thread_seconds\":%.6f,\"validate_1thread_walk_ratio\":%.3f,\"cpus\":%ld,"
               "\"walk_threads_seconds\":%.6f,\"walk_threads_per_core_walk_ratio\":%.3f,"
               "\"target_per_core_walk_ratio\":%.2f,\"met\":%s,\"load_average\":%.2f,\"repeat\":%d,"
               "\"checksum\":%" PRIu64 "}\n",
               bytes, events, bytes / (double)events, c, rd, va, bytes / c / 1e6, bytes / rd / 1e6, bytes / va / 1e6,
               (double)events / rd, (double)events / va, r_ratio, v_ratio, rc, vc, wk, c / wk, r_threads, v_threads,
               r_core, v_core, rdb, wk / rdb, rd1, wk / rd1, v1, v1_core, cpus, wkn, wn_core, WTF_TARGET, met ? "true" : "false", load, o.repeat, sum + wsum);
    } else {
        printf("file:            %s (%.1f MiB, %" PRIu64 " events, %.1f bytes/event, page-cached)\n", o.file,
               bytes / 1048576.0, events, bytes / (double)events);
        printf("cat-equivalent:  %.3f s  %8.1f MB/s                       (read() in 128 KiB blocks, median of %d)\n",
               c, bytes / c / 1e6, o.repeat);
        printf("atf read:        %.3f s  %8.1f MB/s  %7.1f M events/s  ratio to cat %.3f  %u thread(s), per core %.3fx "
               "walk  (CPU %.3f s; every event and argument decoded; atf_wtf_read_parts)\n",
               rd, bytes / rd / 1e6, (double)events / rd / 1e6, r_ratio, r_threads, r_core, rc);
        printf("read, 1 thr:     %.3f s  %8.1f MB/s  %7.1f M events/s  ratio to cat %.3f  1 thread,    per core %.3fx "
               "walk  (atf_wtf_reader_next_events on one reader)\n",
               rdb, bytes / rdb / 1e6, (double)events / rdb / 1e6, c / rdb, wk / rdb);
        printf("read, per event: %.3f s  %8.1f MB/s  %7.1f M events/s  ratio to cat %.3f  1 thread,    per core %.3fx "
               "walk  (one atf_wtf_reader_next_event call per event)\n",
               rd1, bytes / rd1 / 1e6, (double)events / rd1 / 1e6, c / rd1, wk / rd1);
        printf("atf validate:    %.3f s  %8.1f MB/s  %7.1f M events/s  ratio to cat %.3f  %u thread(s), per core %.3fx "
               "walk  (CPU %.3f s; every SPEC-WTF clause)\n",
               va, bytes / va / 1e6, (double)events / va / 1e6, v_ratio, v_threads, v_core, vc);
        printf("validate, 1 thr: %.3f s  %8.1f MB/s  %7.1f M events/s  ratio to cat %.3f  1 thread,    per core %.3fx "
               "walk  (ATF_WTF_THREADS=1)\n",
               v1, bytes / v1 / 1e6, (double)events / v1 / 1e6, c / v1, v1_core);
        printf("walk (floor):    %.3f s  %8.1f MB/s  %7.1f M events/s  ratio to cat %.3f  (event sizes alone: no "
               "check, no decoding)\n",
               wk, bytes / wk / 1e6, (double)events / wk / 1e6, c / wk);
        printf("walk, %u thr:     %.3f s  %8.1f MB/s  %7.1f M events/s  ratio to cat %.3f  per core %.3fx walk  (the "
               "walk in the validator's parts: what this machine gives each thread)\n",
               v_threads, wkn, bytes / wkn / 1e6, (double)events / wkn / 1e6, c / wkn, wn_core);
        printf("target: read and validate each >= %.2fx the walk per core, on every core (%ld): %s (read %.3f on %u, "
               "validate %.3f on %u)\n",
               WTF_TARGET, cpus, met ? "MET" : "NOT met", r_core, r_threads, v_core, v_threads);
        printf("load average:    %.2f on %ld CPUs\n", load, sysconf(_SC_NPROCESSORS_ONLN));
    }
    if (!o.keep && o.file == tmp && !reuse)
        unlink(o.file);
    else
        fprintf(stderr, "atf-bench: kept %s\n", o.file);
    return 0;
}

const bench_format bench_format_wtf = { "wtf", "WTF reading and validation vs cat", bench_wtf };
