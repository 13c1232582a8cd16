/* The WTF pass in parts (wtf_pass.c v_wtf_pass_parts): chunks validated
 * side by side, each part after the first run ahead from no state and
 * joined in order, must find exactly what one pass in order finds, for 1
 * to 8 threads: the same findings (clause, severity, offset, field,
 * message, in the report's order, the "N more" summaries of the limits
 * included), counts, verdict and recovered events. Over every WTF file of
 * the corpus (corpus/wtf, corpus/wtf-real), files of this project's writer
 * with scopes open across chunks, zones switched, SCO-001/-003 and
 * redefinitions, and each of them cut at many offsets and with bytes
 * flipped (fixed seeds). Under the default limits (10 per clause) and
 * under wide ones. The writer's files must also be joined as found, not
 * only run again in turn (the join is what is tested). So must files
 * shaped as the reference writer's (corpus/wtf-real: every define in the
 * first chunks, none in the event chunks), made longer by repeating their
 * event chunks, also with another file's defines chunk in the middle (its
 * wire ids defined otherwise: the parts after it must not be joined on the
 * definitions they started with). The reader in parts (atf_wtf_read_parts:
 * later parts scanned ahead, their start states joined in order) is checked
 * on every one of those files too: read in 3 and in 8 parts, everything the
 * parts' readers give (chunks, events, arguments, statuses, errors) taken
 * in part order, and the summary, must be one reader's; some parts must be
 * settled by their scan, in the writer's and in the reference-shaped files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/validator.h>
#include <atf/wtf.h>

#include "wtf_internal.h"   /* wtf_read_parts_memory */
#include "wtf_pass.h"
#include "wtf_test_util.h"

#define MAX_THREADS 8

/* Under ThreadSanitizer (ctest -L threads, about 20x slower) fewer damaged
 * copies of each corpus file: the threads are what it looks at. Under
 * qemu-user too (WTF_PARTS_EMULATED, cross builds): qemu-aarch64 7.2 keeps
 * about 280 KB of every thread a program starts and never gives it back,
 * and the full test starts some 70,000 (side by side 1 to 8 at a time):
 * 20 GB, and the kernel's OOM killer ended it; there check() also takes
 * fewer thread counts. */
#if defined(__SANITIZE_THREAD__) || defined(WTF_PARTS_EMULATED)
#  define DAMAGED 3
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define DAMAGED 3
#  endif
#endif
#ifndef DAMAGED
#  define DAMAGED 12
#endif

static void ok(atf_status s, const atf_error *e)
{
    if (s != ATF_OK)
        fail_msg("%s", e->message);
}

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

/* A file of this project's writer: @chunk-byte chunks, scopes open across
 * chunks in 3 zones, a leave with nothing open, 1030 deep, a wire id
 * defined twice otherwise (the writer's define of a taken name is refused,
 * so the mix of names and signatures is made by @variant). */
static uint8_t *build(size_t *size, unsigned chunk, int variant)
{
    char path[] = "/tmp/atf-wtf-parts-XXXXXX";
    wtu_temp_file(path);
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.chunk_bytes = chunk;
    o.timebase_ms = 1.0;
    atf_wtf_writer *w;
    atf_error e;
    ok(atf_wtf_writer_open(&w, path, &o, &e), &e);
    uint16_t req, tick;
    ok(atf_wtf_writer_define(w, "app#req", "uint32 id, ascii route, any meta", ATF_WTF_CLASS_SCOPE, 0, &req, &e), &e);
    ok(atf_wtf_writer_define(w, "app#tick", "uint32 n", ATF_WTF_CLASS_INSTANCE, 0, &tick, &e), &e);
    for (uint16_t z = 1; z <= 3; z++)
        ok(atf_wtf_writer_zone_create(w, z, "zone", "script", NULL, 1, &e), &e);
    static const char *const metas[] = { "{\"a\":1}", "[1,2]", "{oops", "", "7", NULL };
    uint32_t t = 10;
    uint64_t seed = 12345 + (uint64_t)variant;
    for (int i = 0; i < 4000; i++) {
        uint32_t r = (uint32_t)rng(&seed);
        if (i % 300 == 0) {
            ok(atf_wtf_writer_zone_set(w, (uint16_t)(i / 300 % 3 + 1), t, &e), &e);
            if (variant && i == 2100)   /* a leave with nothing open, late in the file: SCO-001 */
                for (int k = 0; k < 40; k++)
                    ok(atf_wtf_writer_scope_leave(w, t, &e), &e);
        }
        t += r % 3;
        switch (r % 6) {
        case 0:
        case 1: ok(atf_wtf_writer_scope_enter(w, r & 8 ? "outer" : "inner", t, &e), &e); break;
        case 2: ok(atf_wtf_writer_scope_leave(w, t, &e), &e); break;
        case 3: {
            atf_wtf_value v[3] = { wtu_u32(r), wtu_str(ATF_WTF_ASCII, r & 16 ? "/x" : ""),
                                   wtu_str(ATF_WTF_ANY, metas[r / 7 % 6]) };
            ok(atf_wtf_writer_event(w, req, t, v, 3, &e), &e);
            break;
        }
        default: {
            atf_wtf_value v = wtu_u32(r);
            ok(atf_wtf_writer_event(w, tick, r % 13 == 0 ? t - 5 : t, &v, 1, &e), &e);
            break;
        }
        }
        if (variant && i == 2500)   /* 1030 deep, across chunks: SCO-003 */
            for (int k = 0; k < 1030; k++)
                ok(atf_wtf_writer_scope_enter(w, "deep", t, &e), &e);
        if (variant && i == 2600)
            for (int k = 0; k < 1030; k++)
                ok(atf_wtf_writer_scope_leave(w, t, &e), &e);
    }
    ok(atf_wtf_writer_close(w, &e), &e);
    uint8_t *buf = wtu_read_file(path, size);
    unlink(path);
    return buf;
}

static atf_validation *run(const uint8_t *d, size_t n, unsigned threads, unsigned wide, unsigned *joined)
{
    atf_validation *a;
    atf_error e;
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    if (wide) {
        o.max_per_clause = 1000;
        o.max_findings = 100000;
    }
    ok(v_validate_wtf_memory_parts(&a, d, n, "t.wtf-trace", &o, threads, joined, &e), &e);
    return a;
}

static void same(const atf_validation *a, const atf_validation *b, const char *what, unsigned threads)
{
    size_t k = atf_validation_finding_count(a);
    if (k != atf_validation_finding_count(b))
        fail_msg("%s, %u threads: %zu findings, %zu in one pass", what, threads, atf_validation_finding_count(b), k);
    for (size_t i = 0; i < k; i++) {
        const atf_validate_finding *x = atf_validation_finding_at(a, i), *y = atf_validation_finding_at(b, i);
        if (strcmp(x->clause, y->clause) || x->severity != y->severity || x->offset != y->offset ||
            strcmp(x->field ? x->field : "", y->field ? y->field : "") || strcmp(x->message, y->message))
            fail_msg("%s, %u threads: finding %zu is %s at %llu \"%s\", in one pass %s at %llu \"%s\"", what, threads,
                     i, y->clause, (unsigned long long)y->offset, y->message, x->clause,
                     (unsigned long long)x->offset, x->message);
    }
    uint64_t ea, wa, eb, wb;
    atf_validation_counts(a, &ea, &wa);
    atf_validation_counts(b, &eb, &wb);
    assert_int_equal(ea, eb);
    assert_int_equal(wa, wb);
    assert_int_equal(atf_validation_conformant(a), atf_validation_conformant(b));
    size_t r = atf_validation_recovered_count(a);
    assert_int_equal(r, atf_validation_recovered_count(b));
    for (size_t i = 0; i < r; i++)
        assert_int_equal(atf_validation_recovered_at(a, i)->events, atf_validation_recovered_at(b, i)->events);
}

/* ---- The reader in parts (atf_wtf_read_parts) ---------------------------- */

typedef struct rbuf {
    char *p;
    size_t n, cap;
} rbuf;

static void rput(rbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (b->p && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)k + 4096;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
}

/* Everything a reader gives, as text: chunks, events (batches of 7), every
 * argument, statuses and errors. */
static void record(atf_wtf_reader *r, rbuf *b)
{
    const atf_wtf_chunk *c;
    atf_error e;
    atf_status s;
    while ((s = atf_wtf_reader_next_chunk(r, &c, &e)) != ATF_E_NOT_FOUND) {
        if (s != ATF_OK) {
            rput(b, "chunk error %d at %llu: %s\n", (int)s, (unsigned long long)e.offset, e.message);
            continue;
        }
        rput(b, "chunk %u type %u length %u times %u..%u parts %u cut %d strings %u\n", (unsigned)c->index,
             (unsigned)c->type, (unsigned)c->length, (unsigned)c->start_time, (unsigned)c->end_time,
             (unsigned)c->part_count, atf_wtf_reader_chunk_cut(r), (unsigned)atf_wtf_reader_strings(r)->count);
        atf_wtf_event evs[7];
        size_t n;
        while ((s = atf_wtf_reader_next_events(r, evs, 7, &n, &e)) == ATF_OK)
            for (size_t k = 0; k < n; k++) {
                const atf_wtf_event *ev = &evs[k];
                rput(b, "%llu wire %u time %u zone %d depth %u chunk %u size %u %s(%s)", (unsigned long long)ev->offset,
                     (unsigned)ev->wire_id, (unsigned)ev->time, (int)ev->zone, (unsigned)ev->depth,
                     (unsigned)ev->chunk, (unsigned)ev->size, ev->def->name, ev->def->signature);
                for (size_t i = 0; i < ev->def->arg_count; i++) {
                    atf_wtf_value v;
                    atf_status as = atf_wtf_event_arg(r, ev, i, &v, &e);
                    rput(b, " [%d %llu %lld %a %d %u %.*s]", (int)as, (unsigned long long)v.u, (long long)v.i, v.f,
                         (int)v.is_null, (unsigned)v.count, (int)v.s_len, v.s ? v.s : "");
                }
                rput(b, "\n");
            }
        if (s != ATF_E_NOT_FOUND)
            rput(b, "event error %d at %llu: %s\n", (int)s, (unsigned long long)e.offset, e.message);
    }
}

static atf_status record_part(void *user, const atf_wtf_read_part *part)
{
    record(part->reader, (rbuf *)user + part->index);
    return ATF_OK;
}

static void same_summary(const atf_wtf_summary *a, const atf_wtf_summary *b, const char *what, unsigned threads)
{
    if (!wtu_same_summary(a, b))
        fail_msg("%s, read in %u parts: summary (state %d, %llu chunks, %llu events, %llu unread, %llu skipped) "
                 "differs from one reader's (state %d, %llu chunks, %llu events, %llu unread, %llu skipped)",
                 what, threads, (int)b->state, (unsigned long long)b->chunks, (unsigned long long)b->events,
                 (unsigned long long)b->bytes_unread, (unsigned long long)b->chunks_skipped, (int)a->state,
                 (unsigned long long)a->chunks, (unsigned long long)a->events, (unsigned long long)a->bytes_unread,
                 (unsigned long long)a->chunks_skipped);
}

/* @d read in 3 and in 8 parts gives what one reader gives. @return parts
 * whose start the scan ahead settled (not read again). */
static unsigned check_read(const uint8_t *d, size_t n, const char *what)
{
    atf_wtf_reader *r;
    atf_error e;
    rbuf one = { 0 };
    atf_wtf_summary s1;
    atf_status os = atf_wtf_reader_open_memory(&r, d, n, "t.wtf-trace", &e);
    if (os == ATF_OK) {
        record(r, &one);
        atf_wtf_reader_summary(r, &s1);
        atf_wtf_reader_close(r);
    }
    unsigned settled_all = 0;
    static const unsigned threads[] = { 3, MAX_THREADS };   /* (few: the validator's checks take 1 to 8) */
    for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
        unsigned t = threads[ti];
        rbuf parts[MAX_THREADS];
        memset(parts, 0, sizeof parts);
        atf_wtf_summary s2;
        unsigned settled = 0;
        atf_status ps = wtf_read_parts_memory(d, n, "t.wtf-trace", t, record_part, parts, &s2, &settled, &e);
        assert_int_equal(ps, os);
        settled_all += settled;
        rbuf all = { 0 };
        rput(&all, "%s", "");
        for (unsigned i = 0; i < MAX_THREADS; i++) {
            if (parts[i].n)
                rput(&all, "%s", parts[i].p);
            free(parts[i].p);
        }
        if (os == ATF_OK) {
            same_summary(&s1, &s2, what, t);
            size_t k = 0;
            while (k < one.n && k < all.n && one.p[k] == all.p[k])
                k++;
            if (k < one.n || k < all.n) {
                size_t line = k;
                while (line > 0 && one.p[line - 1] != '\n')
                    line--;
                fail_msg("%s, read in %u parts: from byte %zu of the record, \"%.160s\"; one reader: \"%.160s\"", what,
                         t, line, all.p + (line < all.n ? line : all.n), one.p + (line < one.n ? line : one.n));
            }
        }
        free(all.p);
    }
    free(one.p);
    return settled_all;
}

static unsigned read_settled;   /* parts the reader's scan settled, over every check */

/* @d in 1 to 8 threads (under qemu-user 1, 2, 3, 5 and 8: see DAMAGED),
 * under both limits. @return parts joined as found. */
static unsigned check(const uint8_t *d, size_t n, const char *what)
{
#if defined(WTF_PARTS_EMULATED)
    static const unsigned counts[] = { 2, 3, 5, MAX_THREADS };
#else
    static const unsigned counts[] = { 2, 3, 4, 5, 6, 7, MAX_THREADS };
#endif
    unsigned joined_all = 0;
    for (unsigned wide = 0; wide < 2; wide++) {
        atf_validation *one = run(d, n, 1, wide, NULL);
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            unsigned t = counts[ci], joined = 0;
            atf_validation *b = run(d, n, t, wide, &joined);
            same(one, b, what, t);
            joined_all += joined;
            atf_validation_free(b);
        }
        atf_validation_free(one);
    }
    read_settled += check_read(d, n, what);
    return joined_all;
}

/* @d whole, cut at @cuts offsets and with bytes flipped @flips times. */
static unsigned check_damaged(const uint8_t *d, size_t n, const char *what, unsigned cuts, unsigned flips,
                              uint64_t seed)
{
    unsigned joined = check(d, n, what);
    uint8_t *m = malloc(n + 1);
    assert_non_null(m);
    char label[512];
    for (unsigned i = 0; i < cuts && n > 1; i++) {
        size_t at = i == 0 ? n - 1 : (size_t)(rng(&seed) % n);
        snprintf(label, sizeof label, "%s cut at %zu", what, at);
        memcpy(m, d, at);
        check(m, at, label);
    }
    for (unsigned i = 0; i < flips && n > 12; i++) {
        memcpy(m, d, n);
        unsigned k = 1 + (unsigned)(rng(&seed) % 3);
        size_t first = 0;
        for (unsigned j = 0; j < k; j++) {
            size_t at = 12 + (size_t)(rng(&seed) % (n - 12));
            first = j ? first : at;
            m[at] ^= (uint8_t)(1u << (rng(&seed) % 8));
        }
        snprintf(label, sizeof label, "%s with %u bytes flipped from %zu", what, k, first);
        check(m, n, label);
    }
    free(m);
    return joined;
}

static unsigned corpus_files, corpus_joined;

static int corpus_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    size_t len = strlen(path);
    if (type != FTW_F || len < 10 || strcmp(path + len - 10, ".wtf-trace") != 0 || st->st_size > (8 << 20))
        return 0;
    size_t n = (size_t)st->st_size;
    uint8_t *d = malloc(n + 1);
    FILE *f = fopen(path, "rb");
    assert_non_null(d);
    assert_non_null(f);
    assert_int_equal(fread(d, 1, n, f), n);
    fclose(f);
    corpus_joined += check_damaged(d, n, path, DAMAGED, DAMAGED, 7 + corpus_files);
    corpus_files++;
    free(d);
    return 0;
}

static void test_corpus(void **state)
{
    (void)state;
    assert_int_equal(nftw(ATF_TEST_CORPUS "/wtf", corpus_one, 16, FTW_PHYS), 0);
    assert_int_equal(nftw(ATF_TEST_CORPUS "/wtf-real", corpus_one, 16, FTW_PHYS), 0);
    print_message("%u corpus files, each whole, cut %d times and flipped %d times, in 1..%u threads: %u parts "
                  "joined as found\n",
                  corpus_files, DAMAGED, DAMAGED, MAX_THREADS, corpus_joined);
    assert_true(corpus_files >= 100);
}

static void test_writer_files(void **state)
{
    (void)state;
    unsigned joined = 0;
    static const unsigned chunks[] = { 1024, 4096 };
    for (int variant = 0; variant < 2; variant++)
        for (size_t c = 0; c < 2; c++) {
            size_t n;
            uint8_t *d = build(&n, chunks[c], variant);
            char what[64];
            snprintf(what, sizeof what, "writer file %d/%u", variant, chunks[c]);
            unsigned j = check(d, n, what);
            if (!j)
                fail_msg("%s: no part was joined as found", what);
            joined += j + check_damaged(d, n, what, DAMAGED + 8, 2 * DAMAGED + 6,
                                        1000 + (uint64_t)c + 10 * (uint64_t)variant);
            free(d);
        }
    print_message("writer files: %u parts joined as found; the reader's: %u\n", joined, read_settled);
    assert_true(read_settled > 0);
}

static uint8_t *load(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    *n = (size_t)ftell(f);
    rewind(f);
    uint8_t *d = malloc(*n + 1);
    assert_non_null(d);
    assert_int_equal(fread(d, 1, *n, f), *n);
    fclose(f);
    return d;
}

/* The offsets of @d's chunks (at most @max), and the end: *count chunks. */
static void chunks_of(const uint8_t *d, size_t n, size_t *at, size_t max, size_t *count)
{
    size_t k = 0, pos = 12;
    while (pos + 12 <= n && k < max) {
        uint32_t len = (uint32_t)d[pos + 8] | (uint32_t)d[pos + 9] << 8 | (uint32_t)d[pos + 10] << 16 |
                       (uint32_t)d[pos + 11] << 24;
        assert_true(len >= 24 && pos + len <= n);
        at[k++] = pos;
        pos += len;
    }
    at[k] = pos;
    *count = k;
}

/* @name's header and defines chunks, its event chunks @times over, and
 * (@other not NULL) @other's defines chunk after the first round, or
 * (@other "") its own with its zone "Script" renamed "Scripu", and in both
 * cases its own again after the third (zones created again otherwise). */
static uint8_t *reference_shaped(const char *name, unsigned times, const char *other, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/wtf-real/%s", ATF_TEST_CORPUS, name);
    size_t n, at[256], k;
    uint8_t *d = load(path, &n);
    chunks_of(d, n, at, 255, &k);
    assert_true(k >= 3);
    size_t on = 0, oat[256], ok_ = 0;
    uint8_t *o = NULL;
    if (other && !*other) {
        o = malloc(n);
        assert_non_null(o);
        memcpy(o, d, n);
        chunks_of(o, n, oat, 255, &ok_);
        uint8_t *z = memmem(o + oat[1], oat[2] - oat[1], "Script", 7);
        assert_non_null(z);
        z[5] = 'u';
    } else if (other) {
        snprintf(path, sizeof path, "%s/wtf-real/%s", ATF_TEST_CORPUS, other);
        o = load(path, &on);
        chunks_of(o, on, oat, 255, &ok_);
        assert_true(ok_ >= 2);
    }
    size_t events = at[k] - at[2], extra = o ? oat[2] - oat[1] : 0, own = o ? at[2] - at[1] : 0;
    uint8_t *out = malloc(at[2] + events * times + extra + own);
    assert_non_null(out);
    memcpy(out, d, at[2]);
    size_t m = at[2];
    for (unsigned i = 0; i < times; i++) {
        memcpy(out + m, d + at[2], events);
        m += events;
        if (i == 0 && o) {
            memcpy(out + m, o + oat[1], extra);
            m += extra;
        }
        if (i == 2 && o) {
            memcpy(out + m, d + at[1], own);
            m += own;
        }
    }
    free(d);
    free(o);
    *size = m;
    return out;
}

static void test_reference_files(void **state)
{
    (void)state;
    static const char *const names[] = { "chunks.wtf-trace", "ring.wtf-trace", "append.wtf-trace" };
    unsigned joined = 0, settled0 = read_settled;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t n;
        uint8_t *d = reference_shaped(names[i], 6, NULL, &n);
        char what[96];
        snprintf(what, sizeof what, "%s, event chunks 6 times", names[i]);
        unsigned j = check(d, n, what);
        if (!j)
            fail_msg("%s: no part was joined as found", what);
        joined += j + check_damaged(d, n, what, DAMAGED, DAMAGED, 500 + (uint64_t)i);
        free(d);
        d = reference_shaped(names[i], 6, "types.wtf-trace", &n);
        snprintf(what, sizeof what, "%s, event chunks 6 times, types' defines after the first, its own after the third",
                 names[i]);
        joined += check(d, n, what);
        free(d);
        d = reference_shaped(names[i], 6, "", &n);
        snprintf(what, sizeof what, "%s, event chunks 6 times, its zone renamed after the first, back after the third",
                 names[i]);
        joined += check(d, n, what);
        free(d);
    }
    print_message("reference-shaped files: %u parts joined as found; the reader's: %u\n", joined,
                  read_settled - settled0);
    assert_true(read_settled > settled0);   /* the reader's scans start with the first chunks' definitions */
}

/* A file validated from disk (atf_validate_path: mapped, the pages each
 * part has checked dropped as it goes, v_release) finds what one pass over
 * the same bytes in memory finds, in 1 to 3 threads: whole, and with bytes
 * flipped past the first drops (a part that does not fit is run again over
 * pages already dropped). 20 MiB, so that every part drops some. */
static void test_mapped_file(void **state)
{
    (void)state;
    char path[] = "/tmp/atf-wtf-mapped-XXXXXX";
    wtu_temp_file(path);
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.timebase_ms = 1.0;
    atf_wtf_writer *w;
    atf_error e;
    ok(atf_wtf_writer_open(&w, path, &o, &e), &e);
    uint16_t req;
    ok(atf_wtf_writer_define(w, "app#req", "uint32 id, ascii route", ATF_WTF_CLASS_SCOPE, 0, &req, &e), &e);
    ok(atf_wtf_writer_zone_create(w, 1, "zone", "script", NULL, 1, &e), &e);
    ok(atf_wtf_writer_zone_set(w, 1, 1, &e), &e);
    uint64_t seed = 77;
    unsigned depth = 0;
    for (uint32_t t = 1; atf_wtf_writer_bytes(w) < (20u << 20); t++) {
        uint32_t r = (uint32_t)rng(&seed);
        if (depth && (depth > 8 || r % 3 == 0)) {
            ok(atf_wtf_writer_scope_leave(w, t, &e), &e);
            depth--;
        } else if (r % 3 == 1) {
            ok(atf_wtf_writer_scope_enter(w, r & 8 ? "outer" : "inner", t, &e), &e);
            depth++;
        } else {
            atf_wtf_value v[2] = { wtu_u32(r), wtu_str(ATF_WTF_ASCII, r & 16 ? "/x" : "/y") };
            ok(atf_wtf_writer_event(w, req, t, v, 2, &e), &e);
            depth++;
        }
    }
    ok(atf_wtf_writer_close(w, &e), &e);
    size_t n;
    uint8_t *d = wtu_read_file(path, &n);
    for (int damaged = 0; damaged < 2; damaged++) {
        if (damaged) {
            uint64_t s2 = 5;
            for (int k = 0; k < 6; k++)
                d[n / 2 + (size_t)(rng(&s2) % (n / 2))] ^= (uint8_t)(1u << k);
            FILE *f = fopen(path, "wb");
            assert_non_null(f);
            assert_int_equal(fwrite(d, 1, n, f), n);
            assert_int_equal(fclose(f), 0);
        }
        atf_validation *one = run(d, n, 1, 1, NULL);
        if (!damaged)
            assert_true(atf_validation_conformant(one));
        for (unsigned t = 1; t <= 3; t++) {
            char env[8];
            snprintf(env, sizeof env, "%u", t);
            setenv("ATF_WTF_THREADS", env, 1);
            atf_validation *b;
            atf_validate_options vo = ATF_VALIDATE_OPTIONS_INIT;
            vo.max_per_clause = 1000;
            vo.max_findings = 100000;
            ok(atf_validate_path(&b, path, &vo, &e), &e);
            same(one, b, damaged ? "a damaged file from disk" : "a file from disk", t);
            atf_validation_free(b);
        }
        unsetenv("ATF_WTF_THREADS");
        if (damaged)
            assert_true(atf_validation_finding_count(one) > 0);
        atf_validation_free(one);
    }
    free(d);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_files),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_reference_files),
        cmocka_unit_test(test_mapped_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
