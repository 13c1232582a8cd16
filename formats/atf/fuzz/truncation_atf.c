/* The ATF part of the truncation checker (ctest label "truncation";
 * fuzz/truncation/truncation_check.c is the driver).
 *
 * A case is a thread directory (index.atf, or a lone detail.atf); the driver
 * finds them in sessions and golden corpora (corpus/atf). Every thread of
 * every case is used. From each thread's index.atf
 * and detail.atf (complete and accepted without error: checked first)
 * it generates, in memory, what crashes and filesystems leave behind, and
 * checks the codec against the outcome computed for each variant from the
 * original's structure:
 *
 *   trunc      a finalized file cut at every length 0..size-1 (torn footer:
 *              the cuts inside the footer)
 *   placeholder  the header as first written (never finalized) + events +
 *              footer, cut at every length 0..size (size: footer complete),
 *              in both forms found in the wild: footer_offset 0, and the ADA
 *              tracer's footer_offset = events_offset (ada-placeholder)
 *   zero-footer  finalized header + events + 64 zero bytes where the footer
 *              should be (the footer block never reached the disk)
 *   zero-tail  placeholder header + events + Z zero bytes (delayed
 *              allocation: the size grew, the data never arrived)
 *   garbage-tail placeholder header + events + G pseudo-random bytes
 *
 * Expected outcomes (conformance/SPEC.md, section 6):
 *   index  cut at L < 64: crash-truncated, 0 events (SPEC 7a.12); else no footer and
 *          floor((min(L, end) - 64) / 32) events, end = footer_offset for a
 *          finalized header, the file size for a placeholder one; a
 *          placeholder cut inside the footer's second half recovers n (the
 *          first half is a torn footer, REC-003); the complete placeholder
 *          file has its footer and n events. zero-footer: n events; a zero
 *          tail: n events (SPEC 7a.6: all-zero records are a zero fill); a
 *          garbage tail of T bytes: n + floor(T / 32) events.
 *   detail cut at L < 64: crash-truncated, 0 events; else the events that end at or
 *          before min(L, end); zero-footer and zero tail: n events; garbage:
 *          n + the complete length-prefixed events the garbage happens to hold.
 *   trailing bytes: everything after the recovered events.
 *   findings (the validator on the thread directory, on every length that
 *          is a record boundary or next to one, inside the header or footer,
 *          and every Nth other): no error for any cut at or past 64 bytes, a
 *          placeholder cut or a detail tail; a warning on the cut file
 *          ("footer"; "header" below 64 bytes; the complete placeholder file:
 *          "footer_offset" / "event_count"); an error (REC-004) for a
 *          finalized header without its footer; for garbage, an error exactly
 *          when the recovered records break a rule (checked independently). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <atf/validator.h>

#include "fuzz_atf.h"
#include "truncation.h"

/* ---- The original --------------------------------------------------------- */

typedef struct original {
    const char *dir;          /* the golden thread directory */
    uint8_t *index, *detail;  /* file bytes; detail NULL when absent */
    size_t index_size, detail_size;
    uint64_t n;               /* index events */
    uint64_t nd;              /* detail events */
    uint64_t *dend;           /* end offset of each detail event */
    uint64_t *dindex;         /* index_seq of each detail event */
    uint64_t detail_end;      /* events_offset + bytes_length of the detail file */
    uint64_t ieo, deo;        /* events_offset of each file */
    int index_final, detail_final; /* header finalized (else a placeholder with a footer) */
    int layout;
} original;

typedef struct findings {
    unsigned errors, warnings;
    int warned_field;         /* a warning with the wanted field on the wanted file */
    const char *want_field, *want_file;
} findings;

/* Counts the findings of one validation; notes a warning with the wanted
 * field on the wanted file. */
static void count_findings(findings *c, const atf_validation *v)
{
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        if (f->severity == ATF_SEV_ERROR) {
            c->errors++;
            continue;
        }
        c->warnings++;
        if (c->want_field && f->field && strcmp(f->field, c->want_field) == 0 && strstr(f->file, c->want_file))
            c->warned_field = 1;
    }
}

/* ---- Scratch thread directory ----------------------------------------------- */

static char scratch_thread[700], scratch_index[800], scratch_detail[800];
static const char *check_target;  /* the thread directory, or a lone detail file */

static void scratch_setup(const original *o)
{
    /* Named thread_<K> like the original, so that findings name the same files. */
    const char *base = strrchr(o->dir, '/');
    base = base ? base + 1 : o->dir;
    char name[300];
    snprintf(name, sizeof name, "%s", strncmp(base, "thread_", 7) == 0 ? base : "thread_0");
    snprintf(scratch_thread, sizeof scratch_thread, "%s", fz_fresh_dir(name));
    snprintf(scratch_index, sizeof scratch_index, "%s/index.atf", scratch_thread);
    snprintf(scratch_detail, sizeof scratch_detail, "%s/detail.atf", scratch_thread);
    if (o->index)
        fz_write_file(scratch_index, o->index, o->index_size);
    if (o->detail)
        fz_write_file(scratch_detail, o->detail, o->detail_size);
    check_target = o->index ? scratch_thread : scratch_detail;
}

static findings run_check(const char *want_field, const char *want_file)
{
    findings f = { 0, 0, 0, want_field, want_file };
    atf_error err;
    atf_validation *v = NULL;
    atf_status st = atf_validate_path(&v, check_target, NULL, &err);
    if (st)
        failf("%s: the validator did not run: %s", check_target, err.message);
    else
        count_findings(&f, v);
    atf_validation_free(v);
    findings_runs++;
    return f;
}

/* ---- Expectations ----------------------------------------------------------- */

typedef struct expect {
    atf_status status;        /* ATF_OK or the open error */
    int has_footer;
    uint64_t count, trailing;
    int errors;               /* 0: none, 1: at least one, -1: rules decide */
    const char *warn_field;   /* a warning with this field, or NULL */
} expect;

/* Independent of the validator: do the recovered index records break a rule
 * that the validator reports as an error? Event kinds 1..3, timestamps that
 * never go backwards, forward links that reach a detail event pointing back
 * (the detail file is intact here). */
static int index_breaks_rules(const original *o, const uint8_t *d, uint64_t n)
{
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = d + o->ieo + 32 * i;
        uint32_t kind = o->layout == ATF_LAYOUT_1 ? fz_le32(e + 20) : e[24];
        uint64_t ts = fz_le64(e);
        uint64_t link = o->layout == ATF_LAYOUT_1 ? (fz_le32(e + 28) == UINT32_MAX ? UINT64_MAX : fz_le32(e + 28))
                                                  : fz_le64(e + 16);
        if (kind < 1 || kind > 3 || (i && ts < prev))
            return 1;
        if (link != UINT64_MAX && (link >= o->nd || o->dindex[link] != i))
            return 1;
        prev = ts;
    }
    return 0;
}

/* The checker's findings on variant v of one file (written over the
 * scratch copy of the thread, which is then restored to the original). */
static void check_findings(const original *o, const char *file, const char *scratch, const uint8_t *orig,
                           size_t orig_size, const char *cls, uint64_t param, const uint8_t *v, size_t size,
                           const expect *x, int want_errors)
{
    fz_write_file(scratch, v, size);
    findings f = run_check(x->warn_field, file);
    if ((f.errors > 0) != (want_errors > 0))
        failf("%s/%s %s %llu: %u error finding(s), expected %s", o->dir, file, cls, (unsigned long long)param,
              f.errors, want_errors ? "some" : "none");
    if (x->warn_field && !f.warned_field)
        failf("%s/%s %s %llu: no warning on field %s", o->dir, file, cls, (unsigned long long)param, x->warn_field);
    fz_write_file(scratch, orig, orig_size);
}

/* What a reader made of a variant. */
typedef struct opened {
    uint64_t count, trailing;
    int has_footer;
} opened;

/* The open of variant v of one file (status st; g: what the reader found
 * when it opened) and the model's (m) against x: -1 when the status is not
 * the one expected (a failure), 0 when the counts are not, 1 when all is. */
static int check_opened(const original *o, const char *file, const char *cls, uint64_t param, atf_status st,
                        const fz_model *m, const opened *g, const expect *x)
{
    if (st != x->status || m->status != x->status) {
        failf("%s/%s %s %llu: open %s, model %s, expected %s", o->dir, file, cls, (unsigned long long)param,
              atf_status_name(st), atf_status_name(m->status), atf_status_name(x->status));
        return -1;
    }
    if (st != ATF_OK)
        return 1;
    if (g->count != x->count || m->event_count != x->count || g->has_footer != x->has_footer ||
        g->trailing != x->trailing) {
        failf("%s/%s %s %llu: %llu events (model %llu), footer %d, %llu trailing bytes; expected %llu, %d, %llu",
              o->dir, file, cls, (unsigned long long)param, (unsigned long long)g->count,
              (unsigned long long)m->event_count, g->has_footer, (unsigned long long)g->trailing,
              (unsigned long long)x->count, x->has_footer, (unsigned long long)x->trailing);
        return 0;
    }
    return 1;
}

/* The reader of a file kind on variant v: its status, and what it found. */
static atf_status open_index(const uint8_t *v, size_t size, opened *g)
{
    atf_index_reader *r = NULL;
    atf_status st = atf_index_reader_open_memory(&r, v, size, "index.atf", NULL, NULL);
    const atf_index_info *in = st == ATF_OK ? atf_index_reader_info(r) : NULL;
    *g = in ? (opened){ in->event_count, in->trailing_bytes, in->has_footer } : (opened){ 0, 0, 0 };
    atf_index_reader_close(r);
    return st;
}

static atf_status open_detail(const uint8_t *v, size_t size, opened *g)
{
    atf_detail_reader *r = NULL;
    atf_status st = atf_detail_reader_open_memory(&r, v, size, "detail.atf", NULL, NULL);
    const atf_detail_info *in = st == ATF_OK ? atf_detail_reader_info(r) : NULL;
    *g = in ? (opened){ in->event_count, in->trailing_bytes, in->has_footer } : (opened){ 0, 0, 0 };
    atf_detail_reader_close(r);
    return st;
}

/* One kind of file of a thread: its name, reader and independent model. */
typedef struct file_kind {
    const char *name;
    atf_status (*open)(const uint8_t *v, size_t size, opened *g);
    fz_model (*model)(const uint8_t *data, size_t size, int verify);
} file_kind;

static const file_kind index_kind = { "index.atf", open_index, fz_index_model };
static const file_kind detail_kind = { "detail.atf", open_detail, fz_detail_model };

/* Variant v of a file, opened by its reader and its model, against x (see
 * check_opened). */
static int check_variant_open(const original *o, const file_kind *k, const char *cls, uint64_t param,
                              const uint8_t *v, size_t size, const expect *x, atf_status *st)
{
    opened g;
    variants++;
    *st = k->open(v, size, &g);
    fz_model m = k->model(v, size, 1);
    return check_opened(o, k->name, cls, param, *st, &m, &g, x);
}

static void check_index_variant(const original *o, const char *cls, uint64_t param, const uint8_t *v, size_t size,
                                const expect *x, int want_findings)
{
    atf_status st;
    int ok = check_variant_open(o, &index_kind, cls, param, v, size, x, &st);
    if (ok < 0)
        return;
    if (ok && st == ATF_OK && x->count &&
        memcmp(v + o->ieo, o->index + o->ieo, (size_t)(x->count < o->n ? x->count : o->n) * 32) != 0)
        failf("%s/index.atf %s %llu: recovered events differ from the original", o->dir, cls,
              (unsigned long long)param);
    if (!want_findings)
        return;
    int want_errors = x->errors < 0 ? index_breaks_rules(o, v, x->count) : x->errors;
    check_findings(o, "index.atf", scratch_index, o->index, o->index_size, cls, param, v, size, x, want_errors);
}

static void check_detail_variant(const original *o, const char *cls, uint64_t param, const uint8_t *v, size_t size,
                                 const expect *x, int want_findings)
{
    atf_status st;
    if (check_variant_open(o, &detail_kind, cls, param, v, size, x, &st) < 0 || !want_findings)
        return;
    check_findings(o, "detail.atf", scratch_detail, o->detail, o->detail_size, cls, param, v, size, x, x->errors);
}

/* Findings are checked on record boundaries and next to them, inside the
 * header and the footer, and on every Nth other length. */
static int index_findings_wanted(const original *o, uint64_t len)
{
    uint64_t fo = o->ieo + 32 * o->n;
    return len <= o->ieo || len >= fo || (len - o->ieo) % 32 <= 1 || (len - o->ieo) % 32 == 31 ||
           len % findings_every == 0;
}

static int detail_findings_wanted(const original *o, uint64_t len)
{
    if (len <= o->deo || len >= o->detail_end || len % findings_every == 0)
        return 1;
    for (uint64_t i = 0; i < o->nd; i++)
        if (len + 1 >= o->dend[i] && len <= o->dend[i] + 1)
            return 1;
    return 0;
}

/* The header as the writer first wrote it: no counts, no footer offset, no
 * times, no flags. ada: the ADA tracer's C writer's form, whose footer_offset
 * is events_offset (errata E-16). */
static void index_placeholder_form(uint8_t *h, int layout, int ada)
{
    memset(h + 8, 0, 4);
    if (layout == ATF_LAYOUT_1)
        memset(h + 28, 0, 4);
    else
        memset(h + 24, 0, 8);
    memset(h + 40, 0, 24);
    if (ada)
        memcpy(h + 40, h + 32, 8);
}

static void index_placeholder(uint8_t *h, int layout) { index_placeholder_form(h, layout, 0); }

static void detail_placeholder(uint8_t *h) { memset(h + 28, 0, 36); }

static uint64_t prng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const size_t tails[] = { 1, 8, 31, 32, 33, 64, 100, 4096 };

/* *x: the outcome of a file cut to len bytes as far as its header decides
 * it, with a warning on its footer; 1 when the cut is before the events
 * (events_offset eo) and that is all. */
static int cut_before_events(uint64_t len, uint64_t eo, expect *x)
{
    *x = (expect){ ATF_OK, 0, 0, 0, 0, "footer" };
    if (len < 64) {
        /* SPEC 7a.12: cut inside the header: crash-truncated, 0 events. */
        x->trailing = len;
        x->warn_field = "header";
        return 1;
    }
    if (len < eo) {
        x->status = ATF_E_OFFSET;
        x->errors = 1;
        x->warn_field = NULL;
        return 1;
    }
    return 0;
}

/* Outcome of an index file of the original's events cut to len bytes, whose
 * events region ends at `end` (finalized: footer_offset; placeholder: the
 * file size). */
static expect index_cut_expect(const original *o, uint64_t len, uint64_t end, int placeholder)
{
    expect x;
    if (cut_before_events(len, o->ieo, &x))
        return x;
    x.count = ((len < end ? len : end) - o->ieo) / 32;
    if (placeholder && x.count > o->n) /* the footer's first half: REC-003 */
        x.count = o->n;
    x.trailing = len - (o->ieo + 32 * x.count);
    if (!placeholder) {
        /* A finalized header without its footer: damage (REC-004), an
         * error, though every complete event is still recovered. */
        x.errors = 1;
        x.warn_field = NULL;
    }
    return x;
}

static void index_variants(const original *o)
{
    const size_t size = o->index_size;
    const uint64_t n = o->n, fo = o->ieo + 32 * n;
    uint8_t *v = malloc(size + 4096 + 64);
    if (!v)
        exit(2);

    if (o->index_final) {
        for (size_t len = 0; len < size; len++) {
            expect x = index_cut_expect(o, len, fo, 0);
            /* An exact-size copy, so that ASan sees any overread. */
            uint8_t *exact = malloc(len ? len : 1);
            memcpy(exact, o->index, len);
            check_index_variant(o, len >= fo ? "trunc(torn footer)" : "trunc", len, exact, len, &x,
                                index_findings_wanted(o, len));
            free(exact);
        }
    }

    /* Both placeholder forms found in the wild, cut at every byte. */
    for (int ada = 0; ada < 2; ada++) {
        memcpy(v, o->index, size);
        index_placeholder_form(v, o->layout, ada);
        for (size_t len = 0; len <= size; len++) {
            expect x = index_cut_expect(o, len, len, 1);
            if (len == size) {
                /* finalize stopped before the header was rewritten: complete,
                 * with a warning, unless the placeholder equals the final
                 * header (an empty file in the ADA form) */
                x.has_footer = 1;
                x.count = n;
                x.trailing = 0;
                x.warn_field = ada && n == 0 ? NULL : "footer_offset";
            }
            uint8_t *exact = malloc(len ? len : 1);
            memcpy(exact, v, len);
            check_index_variant(o, ada ? "ada-placeholder" : "placeholder", len, exact, len, &x,
                                index_findings_wanted(o, len));
            free(exact);
        }
    }

    if (o->index_final) {
        memcpy(v, o->index, size);
        memset(v + fo, 0, 64);
        expect zf = { ATF_OK, 0, n, 64, 1, NULL };   /* finalized, no footer: damage (REC-004) */
        check_index_variant(o, "zero-footer", 64, v, size, &zf, 1);
    }

    uint64_t seed = 0x9E3779B97F4A7C15ull ^ size;
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        size_t z = tails[t];
        memcpy(v, o->index, fo);
        index_placeholder(v, o->layout);
        memset(v + fo, 0, z);
        expect x = { ATF_OK, 0, n, z, 0, "footer" };   /* SPEC 7a.6: a zero fill */
        check_index_variant(o, "zero-tail", z, v, fo + z, &x, 1);
        x.count = n + z / 32;
        x.trailing = z % 32;
        for (size_t i = 0; i < z; i++)
            v[fo + i] = (uint8_t)prng(&seed);
        x.errors = -1;
        x.warn_field = "footer";
        check_index_variant(o, "garbage-tail", z, v, fo + z, &x, 1);
    }
    free(v);
}

static uint64_t complete_events(const original *o, uint64_t end)
{
    uint64_t k = 0;
    while (k < o->nd && o->dend[k] <= end)
        k++;
    return k;
}

static expect detail_cut_expect(const original *o, uint64_t len, uint64_t end, int placeholder)
{
    expect x;
    if (cut_before_events(len, o->deo, &x))
        return x;
    x.count = complete_events(o, len < end ? len : end);
    x.trailing = len - (x.count ? o->dend[x.count - 1] : o->deo);
    if (!placeholder && o->nd) {
        /* a finalized header without its footer: damage (REC-004) */
        x.errors = 1;
        x.warn_field = NULL;
    }
    return x;
}

static void detail_variants(const original *o)
{
    const size_t size = o->detail_size;
    const uint64_t end = o->detail_end, nd = o->nd;
    uint8_t *v = malloc(size + 4096 + 64);
    if (!v)
        exit(2);

    if (o->detail_final) {
        for (size_t len = 0; len < size; len++) {
            expect x = detail_cut_expect(o, len, end, 0);
            uint8_t *exact = malloc(len ? len : 1);
            memcpy(exact, o->detail, len);
            check_detail_variant(o, len >= end ? "trunc(torn footer)" : "trunc", len, exact, len, &x,
                                 detail_findings_wanted(o, len));
            free(exact);
        }
    }

    memcpy(v, o->detail, size);
    detail_placeholder(v);
    for (size_t len = 0; len <= size; len++) {
        expect x = detail_cut_expect(o, len, len, 1);
        if (len == size) {
            x.has_footer = 1;
            x.count = nd;
            x.trailing = 0;
            /* finalize stopped before the header was rewritten: a warning (DET-HDR-009) */
            x.warn_field = nd ? "event_count" : NULL;
        }
        uint8_t *exact = malloc(len ? len : 1);
        memcpy(exact, v, len);
        check_detail_variant(o, "placeholder", len, exact, len, &x, detail_findings_wanted(o, len));
        free(exact);
    }

    if (o->detail_final) {
        memcpy(v, o->detail, size);
        memset(v + end, 0, 64);
        expect zf = { ATF_OK, 0, nd, 64, nd != 0, nd ? NULL : "footer" };   /* finalized, no footer: damage */
        check_detail_variant(o, "zero-footer", 64, v, size, &zf, 1);
    }

    uint64_t seed = 0xD1B54A32D192ED03ull ^ size;
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        size_t z = tails[t];
        memcpy(v, o->detail, end);
        detail_placeholder(v);
        memset(v + end, 0, z);
        expect x = { ATF_OK, 0, nd, z, 0, "footer" };
        check_detail_variant(o, "zero-tail", z, v, end + z, &x, 1);
        for (size_t i = 0; i < z; i++)
            v[end + i] = (uint8_t)prng(&seed);
        /* Garbage may hold complete length-prefixed "events" (REC-001 reads them). */
        uint64_t stop, extra = fz_detail_walk(v, end, end + z, &stop);
        expect g = { ATF_OK, 0, nd + extra, end + z - stop, 0, "footer" };
        /* Extra events may break link rules: findings only checked without them. */
        check_detail_variant(o, "garbage-tail", z, v, end + z, &g, extra == 0);
    }
    free(v);
}

/* ---- Cases -------------------------------------------------------------------- */

/* Loads a golden thread (index.atf and/or detail.atf) and checks that it is a
 * valid starting point: complete files (a footer; no trailing bytes) that the
 * structural checks accept without error. */
static int load_original(original *o, const char *dir)
{
    char path[1200];
    atf_error err;
    memset(o, 0, sizeof *o);
    o->dir = dir;
    snprintf(path, sizeof path, "%s/index.atf", dir);
    o->index = fz_read_file(path, &o->index_size);
    snprintf(path, sizeof path, "%s/detail.atf", dir);
    o->detail = fz_read_file(path, &o->detail_size);
    if (o->index) {
        atf_index_reader *r = NULL;
        if (atf_index_reader_open_memory(&r, o->index, o->index_size, "index.atf", NULL, &err) != ATF_OK) {
            failf("%s: index.atf does not open (%s): not a valid case", dir, err.message);
            return 0;
        }
        const atf_index_info *in = atf_index_reader_info(r);
        int ok = in->has_footer && in->trailing_bytes == 0 && in->footer_offset + 64 == o->index_size;
        o->n = in->event_count;
        o->ieo = atf_index_reader_header(r)->events_offset;
        o->index_final = in->header_finalized;
        o->layout = in->layout;
        atf_index_reader_close(r);
        if (!ok) {
            failf("%s: index.atf has no footer or has trailing bytes: not a valid case", dir);
            return 0;
        }
    }
    if (o->detail) {
        atf_detail_reader *r = NULL;
        if (atf_detail_reader_open_memory(&r, o->detail, o->detail_size, "detail.atf", NULL, &err) != ATF_OK) {
            failf("%s: detail.atf does not open (%s): not a valid case", dir, err.message);
            return 0;
        }
        const atf_detail_info *in = atf_detail_reader_info(r);
        int ok = in->has_footer && in->trailing_bytes == 0;
        o->nd = in->event_count;
        o->deo = atf_detail_reader_header(r)->events_offset;
        o->detail_end = in->events_end;
        o->detail_final = in->header_finalized;
        if (!o->index)
            o->layout = in->layout;
        o->dend = malloc((o->nd ? o->nd : 1) * sizeof *o->dend);
        o->dindex = malloc((o->nd ? o->nd : 1) * sizeof *o->dindex);
        for (uint64_t i = 0; i < o->nd; i++) {
            atf_detail_event e;
            atf_detail_reader_get(r, i, &e);
            o->dend[i] = atf_detail_reader_offset(r, i) + e.total_length;
            o->dindex[i] = e.index_seq;
        }
        atf_detail_reader_close(r);
        if (!ok) {
            failf("%s: detail.atf has no footer or has trailing bytes: not a valid case", dir);
            return 0;
        }
    }
    uint64_t errors = 0, warnings = 0;
    atf_validation *v = NULL;
    snprintf(path, sizeof path, "%s%s", dir, o->index ? "" : "/detail.atf");
    if (atf_validate_path(&v, path, NULL, &err) != ATF_OK) {
        failf("%s: the validator did not run: %s", dir, err.message);
        return 0;
    }
    atf_validation_counts(v, &errors, &warnings);
    if (errors) {
        atf_validation_write_text(stderr, v);
        failf("%s: the original has %llu error finding(s): not a valid case", dir, (unsigned long long)errors);
    }
    atf_validation_free(v);
    return errors == 0;
}

static void run_thread(const char *dir)
{
    original o;
    if (load_original(&o, dir)) {
        unsigned long before = variants, fails = failures;
        scratch_setup(&o);
        if (o.index)
            index_variants(&o);
        if (o.detail)
            detail_variants(&o);
        cases++;
        if (!quiet || failures > fails)
            printf("%s: %llu index + %llu detail events, %lu variants%s\n", dir, (unsigned long long)o.n,
                   (unsigned long long)o.nd, variants - before, failures > fails ? ", FAILED" : "");
    }
    free(o.index);
    free(o.detail);
    free(o.dend);
    free(o.dindex);
}

/* A case: a directory holding index.atf, or a lone detail.atf. */
static int atf_bid_dir(const char *dir)
{
    char buf[1200];
    struct stat st;
    snprintf(buf, sizeof buf, "%s/index.atf", dir);
    if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
        return 1;
    snprintf(buf, sizeof buf, "%s/detail.atf", dir);
    return stat(buf, &st) == 0 && S_ISREG(st.st_mode);
}

static void atf_run(const char *dir, size_t max_bytes)
{
    (void)max_bytes;
    run_thread(dir);
}

const fz_truncation_model fz_truncation_atf = {
    .name = "atf",
    .cases = "ATF threads",
    .bid_dir = atf_bid_dir,
    .run = atf_run,
};
