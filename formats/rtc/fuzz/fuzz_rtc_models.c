/* The RTC fuzz harness's own code (fuzz_rtc.h): LEB128, Crc and Marker
 * written from conformance/SPEC-RTC.md, the reader's invariants, and a
 * builder of synthesized files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz_rtc.h"

/* ---- Bytes ------------------------------------------------------------------ */

/* The bytes of one LEB128 (SPEC-RTC 1): 1 and its size when a byte without
 * bit 7 ends it within 10 bytes, 0 when the data ends first, -1 when ten
 * bytes all continue. */
static int leb_size(const uint8_t *p, size_t avail, size_t *used)
{
    for (size_t i = 0; i < 10; i++) {
        if (i >= avail)
            return 0;
        if (!(p[i] & 0x80)) {
            *used = i + 1;
            return 1;
        }
    }
    return -1;
}

int fz_rtc_uleb(const uint8_t *p, size_t avail, uint64_t *v, size_t *used)
{
    int st = leb_size(p, avail, used);
    if (st != 1)
        return st;
    if (*used == 10 && (p[9] & 0x7F) > 1)
        return -1;   /* group 9 holds bit 63 only */
    uint64_t x = 0;
    for (size_t i = 0; i < *used; i++)
        x |= (uint64_t)(p[i] & 0x7F) << (7 * i);
    *v = x;
    return 1;
}

int fz_rtc_sleb(const uint8_t *p, size_t avail, int64_t *v, size_t *used)
{
    int st = leb_size(p, avail, used);
    if (st != 1)
        return st;
    /* It fits int64 when every bit from 63 up equals the sign (bit 6 of
     * the last group). */
    unsigned last = p[*used - 1] & 0x7F, neg = (last >> 6) & 1, top = 7 * (unsigned)*used;
    uint64_t x = 0;
    for (size_t i = 0; i < *used && 7 * i < 64; i++)
        x |= (uint64_t)(p[i] & 0x7F) << (7 * i);
    if (top < 64) {
        if (neg)
            x |= ~(uint64_t)0 << top;
    } else {
        for (unsigned k = 0; k < 7; k++)   /* group 9: bit 63 and bits 64..69 */
            if (((last >> k) & 1) != neg)
                return -1;
    }
    *v = (int64_t)x;
    return 1;
}

uint32_t fz_rtc_crc(int ref, const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = (c ^ p[i]) & 0xFF, t;
        if (ref) {
            /* the reference's table: MSB-first 0x04C11DB7 entries, LSB-first update */
            t = k << 24;
            for (int b = 0; b < 8; b++)
                t = (t & 0x80000000u) ? (t << 1) ^ 0x04C11DB7u : t << 1;
        } else {
            t = k;
            for (int b = 0; b < 8; b++)
                t = (t & 1) ? (t >> 1) ^ 0xEDB88320u : t >> 1;
        }
        c = (c >> 8) ^ t;
    }
    return c ^ 0xFFFFFFFFu;
}

int fz_rtc_marker_at(const uint8_t *d, size_t n, size_t at)
{
    if (at > n || n - at < ATF_RTC_MARKER_SIZE || d[at] != 0x04)
        return 0;
    for (size_t i = 1; i < ATF_RTC_MARKER_SIZE; i++)
        if (d[at + i] != 0xB9)
            return 0;
    return at + ATF_RTC_MARKER_SIZE == n || d[at + ATF_RTC_MARKER_SIZE] != 0xB9;
}

/* ---- Clauses ------------------------------------------------------------------ */

/* SPEC-RTC's clauses and their severity, copied from the spec's tables. */
static const struct {
    const char *id;
    int error;
} clauses[] = {
    { "RTC-FRM-001", 1 }, { "RTC-FRM-002", 1 }, { "RTC-FRM-003", 1 }, { "RTC-FRM-004", 1 }, { "RTC-FRM-005", 0 },
    { "RTC-FRM-006", 0 }, { "RTC-FRM-007", 0 }, { "RTC-PAD-001", 0 }, { "RTC-MRK-001", 1 }, { "RTC-MRK-002", 1 }, { "RTC-MRK-003", 1 },
    { "RTC-UNI-001", 1 }, { "RTC-UNI-002", 1 }, { "RTC-UNI-003", 1 }, { "RTC-IDX-001", 1 }, { "RTC-IDX-002", 1 },
    { "RTC-IDX-003", 1 }, { "RTC-IDX-004", 1 }, { "RTC-IDX-005", 0 }, { "RTC-MET-001", 1 }, { "RTC-MET-002", 1 },
    { "RTC-MET-003", 1 }, { "RTC-MET-004", 1 }, { "RTC-MET-005", 1 }, { "RTC-FMT-001", 1 }, { "RTC-FMT-002", 1 },
    { "RTC-FMT-003", 1 }, { "RTC-FMT-004", 0 }, { "RTC-PLT-001", 1 }, { "RTC-PLT-002", 0 }, { "RTC-CLK-001", 1 },
    { "RTC-CLK-002", 1 }, { "RTC-CLK-003", 1 }, { "RTC-CLK-004", 0 }, { "RTC-CRC-001", 1 }, { "RTC-CRC-002", 1 },
    { "RTC-CRC-003", 0 }, { "RTC-CRC-004", 1 }, { "RTC-REC-001", 0 }, { "RTC-REC-002", 0 },
};
#define NCLAUSES (sizeof clauses / sizeof clauses[0])

int fz_rtc_is_error_clause(const char *clause)
{
    for (size_t i = 0; i < NCLAUSES; i++)
        if (!strcmp(clauses[i].id, clause))
            return clauses[i].error;
    return 0;
}

uint64_t fz_rtc_count(const fz_rtc_read *rd, const char *clause)
{
    return atf_rtc_reader_clause_count(rd->r, clause);
}

/* ---- The reader's invariants ------------------------------------------------------- */

typedef struct range {
    uint64_t a, b;
    int unit;
} range;

static int cmp_range(const void *x, const void *y)
{
    const range *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return p < q ? -1 : p > q;
}

/* The fixed length of stream @p id by its definition, -1 when variable. */
static int64_t stream_length(const atf_rtc_summary *s, atf_rtc_reader *r, uint64_t id)
{
    for (size_t i = 0; i < s->streams; i++) {
        uint64_t sid;
        const void *obj;
        atf_rtc_reader_stream(r, i, &sid, NULL, &obj);
        if (sid != id || !obj)
            continue;
        json_t *len = json_object_get((const json_t *)obj, "length");
        return json_is_integer(len) && json_integer_value(len) >= 0 ? (int64_t)json_integer_value(len) : -1;
    }
    return -1;
}

static const range *containing(const range *rs, size_t n, uint64_t at, int unit)
{
    for (size_t i = 0; i < n; i++)
        if (rs[i].unit == unit && rs[i].a <= at && at < rs[i].b)
            return &rs[i];
    return NULL;
}

/* How a record's frames split its payload: a frame's piece is its length
 * LEB128 and that many bytes (variable streams) or the definition's length
 * (fixed streams; SPEC-RTC R-E8: a fixed-length piece with more set may end
 * early at the next unit boundary or Crc position, and the next piece holds
 * the rest of that length). After a redefinition (RTC-MET-003) the definition in
 * force at a frame is not known here, so every reading is tried: variable,
 * the final definition's length, the rest spread evenly over the frames left
 * (a fixed record's pieces are all one length), the rest for the last frame;
 * a search over the frames (failed states remembered) finds one under which
 * every piece matches the payload, ends before the record's next frame and
 * the last ends the payload. */
typedef struct split {
    const uint8_t *d;
    size_t n;
    const atf_rtc_record *rec;
    int64_t fixed;
    int either;
    const atf_rtc_summary *geo;   /* Unit and unit sizes, origin: where a split piece may end */
    uint64_t *len, *lu;   /* per frame: the piece's length, its length's LEB128 size */
    uint64_t *failed;     /* hash set of (k, at) known not to split */
    size_t cap, used, steps;
} split;

static int split_failed(split *sp, uint64_t key, int add)
{
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull >> 7) & (sp->cap - 1);
    for (; sp->failed[i]; i = (i + 1) & (sp->cap - 1))
        if (sp->failed[i] == key)
            return 1;
    if (add && 2 * sp->used < sp->cap) {   /* half full: the step bound still ends the search */
        sp->failed[i] = key;
        sp->used++;
    }
    return 0;
}

static int split_from(split *sp, size_t k, uint64_t at)
{
    const atf_rtc_record *rec = sp->rec;
    if (k == rec->frame_count)
        return at == rec->size;
    uint64_t key = ((uint64_t)k << 40 | at) + 1;
    if (sp->either && split_failed(sp, key, 0))
        return 0;
    FZ_CHECK(++sp->steps < 4000000, "record at %llu: the split search does not end", (unsigned long long)rec->offset);
    uint64_t f = rec->frames[k], h;
    size_t hu = 0;
    fz_rtc_uleb(sp->d + f, sp->n - f, &h, &hu);   /* checked by the caller */
    uint64_t body = f + hu, rest = rec->size - at, left = rec->frame_count - k;
    uint64_t limit = k + 1 < rec->frame_count ? rec->frames[k + 1] : sp->n;
    int64_t cand[7];
    int nc = 0;
    if (sp->fixed < 0 || sp->either)
        cand[nc++] = -2;   /* variable */
    if (sp->fixed >= 0) {
        /* what is left of the current fixed-length frame (all of it, unless
         * the piece before was cut at a boundary) */
        uint64_t full = sp->fixed > 0 ? (uint64_t)sp->fixed - at % (uint64_t)sp->fixed : 0;
        cand[nc++] = (int64_t)full;
        if (k == 0 && rec->frame_count == 1 && rest < full)
            cand[nc++] = (int64_t)rest;   /* the tail of a frame cut at a Crc position not read (R-E8) */
        const atf_rtc_summary *g = sp->geo;
        if (k + 1 < rec->frame_count && full > 0 && g && g->has_geometry && g->unit_size && g->subunit_size &&
            (int64_t)f >= g->origin) {
            /* cut at the next stop: a unit boundary or the Unit's Crc position */
            uint64_t U = g->unit_size, u = g->subunit_size, rel = f - (uint64_t)g->origin;
            uint64_t q = (uint64_t)g->origin + rel / U * U, first = q + ATF_RTC_MARKER_SIZE;
            if (f >= first) {
                uint64_t stop = first + ((f - first) / u + 1) * u;
                if (stop > q + U - 5)
                    stop = q + U - 5;
                if (stop >= body && stop - body < full)
                    cand[nc++] = (int64_t)(stop - body);
            }
        }
    }
    if (sp->either) {
        if (rest % left == 0)
            cand[nc++] = (int64_t)(rest / left);
        if (left == 1)
            cand[nc++] = (int64_t)rest;
    }
    for (int c = 0; c < nc; c++) {
        uint64_t l;
        size_t lu = 0;
        if (cand[c] == -2) {
            if (fz_rtc_uleb(sp->d + body, sp->n - body, &l, &lu) != 1)
                continue;
        } else {
            l = (uint64_t)cand[c];
        }
        if (body + lu > limit || l > rest || l > limit - body - lu ||
            (l && memcmp(sp->d + body + lu, rec->payload + at, (size_t)l)))
            continue;
        sp->len[k] = l;
        sp->lu[k] = lu;
        if (split_from(sp, k + 1, at + l))
            return 1;
    }
    if (sp->either)
        split_failed(sp, key, 1);
    return 0;
}

/* Checks one record against the bytes; returns the end of its last frame. */
static uint64_t check_record(const uint8_t *d, size_t n, const atf_rtc_record *rec, int64_t fixed, int either,
                             const atf_rtc_summary *geo, const range *rs, size_t nr, uint64_t *owned, size_t *nowned)
{
    FZ_CHECK(rec->stream >= ATF_RTC_FIRST_USER_ID, "a record of built-in stream %llu",
             (unsigned long long)rec->stream);
    FZ_CHECK(rec->frame_count >= 1 && rec->frames[0] == rec->offset, "record at %llu: %zu frames, first at %llu",
             (unsigned long long)rec->offset, rec->frame_count, (unsigned long long)rec->frames[0]);
    for (size_t k = 0; k < rec->frame_count; k++) {
        uint64_t f = rec->frames[k], h;
        size_t hu;
        FZ_CHECK(f < n && (k == 0 || f > rec->frames[k - 1]), "record at %llu: frame %zu at %llu (file %zu)",
                 (unsigned long long)rec->offset, k, (unsigned long long)f, n);
        FZ_CHECK(fz_rtc_uleb(d + f, n - f, &h, &hu) == 1, "record at %llu: frame %zu at %llu has no header",
                 (unsigned long long)rec->offset, k, (unsigned long long)f);
        FZ_CHECK(h >> 1 == rec->stream && (h & 1) == (k + 1 < rec->frame_count),
                 "record at %llu of stream %llu: frame %zu at %llu has header %llu", (unsigned long long)rec->offset,
                 (unsigned long long)rec->stream, k, (unsigned long long)f, (unsigned long long)h);
    }
    split sp = { d, n, rec, fixed, either, geo, NULL, NULL, NULL, 64, 0, 0 };
    while (sp.cap < 4 * rec->frame_count)
        sp.cap *= 2;
    sp.len = calloc(rec->frame_count, sizeof *sp.len);
    sp.lu = calloc(rec->frame_count, sizeof *sp.lu);
    sp.failed = either ? calloc(sp.cap, sizeof *sp.failed) : NULL;
    FZ_CHECK(sp.len && sp.lu && (!either || sp.failed), "out of memory");
    FZ_CHECK(split_from(&sp, 0, 0), "record at %llu of stream %llu (%zu bytes, %zu frames): its frames are not its payload's pieces",
             (unsigned long long)rec->offset, (unsigned long long)rec->stream, rec->size, rec->frame_count);
    uint64_t end = 0;
    for (size_t k = 0; k < rec->frame_count; k++) {
        uint64_t f = rec->frames[k], h;
        size_t hu = 0;
        fz_rtc_uleb(d + f, n - f, &h, &hu);
        end = f + hu + sp.lu[k] + sp.len[k];
        const range *g = containing(rs, nr, f, 1), *sk = containing(rs, nr, f, 0);
        FZ_CHECK(g && end <= g->b && !sk, "record at %llu: frame %zu [%llu, %llu) is not inside a Unit read%s",
                 (unsigned long long)rec->offset, k, (unsigned long long)f, (unsigned long long)end,
                 sk ? " (it is skipped)" : "");
        owned[(*nowned)++] = f;
    }
    free(sp.len);
    free(sp.lu);
    free(sp.failed);
    return end;
}

static const char *const skip_reasons[] = { "before-first-marker", "bad-marker", "crc-mismatch", "no-crc",
                                            "damaged", "cut", "no-marker", "no-index" };

static void check_units(const uint8_t *d, size_t n, fz_rtc_read *rd, range *rs, size_t *nr)
{
    const atf_rtc_summary *s = &rd->sum;
    for (size_t i = 0; i < s->units; i++) {
        atf_rtc_unit_info u;
        atf_rtc_reader_unit(rd->r, i, &u);
        FZ_CHECK(u.offset <= n && u.bytes <= n - u.offset && u.bytes >= ATF_RTC_MARKER_SIZE,
                 "Unit %zu: [%llu, +%llu) in a file of %zu", i, (unsigned long long)u.offset,
                 (unsigned long long)u.bytes, n);
        FZ_CHECK(fz_rtc_marker_at(d, n, (size_t)u.offset), "Unit %zu at %llu has no intact Marker", i,
                 (unsigned long long)u.offset);
        FZ_CHECK(s->has_geometry && u.bytes <= s->unit_size &&
                     (uint64_t)((int64_t)u.offset - s->origin) % s->unit_size == 0 &&
                     (uint64_t)((int64_t)u.offset - s->origin) / s->unit_size == u.number,
                 "Unit %zu (number %llu) at %llu, %llu bytes: U %llu, origin %lld", i, (unsigned long long)u.number,
                 (unsigned long long)u.offset, (unsigned long long)u.bytes, (unsigned long long)s->unit_size,
                 (long long)s->origin);
        if (u.crc) {
            int ref = !strncmp(u.crc, "rtc-ref", 7), stop = strstr(u.crc, "-stop") != NULL;
            FZ_CHECK(!strcmp(u.crc, "crc-32") || !strcmp(u.crc, "rtc-ref") || stop, "Unit %zu: Crc kind %s", i, u.crc);
            size_t c = (size_t)(u.offset + u.bytes - 5);
            FZ_CHECK(d[c] == 0x10, "Unit %zu: verified by %s, no Crc frame in its last 5 bytes", i, u.crc);
            if (!stop) {
                uint32_t want = fz_rtc_crc(ref, d + u.offset + ATF_RTC_MARKER_SIZE,
                                           c - (size_t)u.offset - ATF_RTC_MARKER_SIZE);
                uint32_t le = fz_le32(d + c + 1);
                uint32_t be = (uint32_t)d[c + 1] << 24 | (uint32_t)d[c + 2] << 16 | (uint32_t)d[c + 3] << 8 | d[c + 4];
                FZ_CHECK(le == want || be == want, "Unit %zu: verified by %s, the Crc %08x is not %08x", i, u.crc, le,
                         want);
            }
        }
        rs[*nr] = (range){ u.offset, u.offset + u.bytes, 1 };
        (*nr)++;
    }
    for (size_t i = 0; i < s->skipped_ranges; i++) {
        atf_rtc_skip k;
        atf_rtc_reader_skip(rd->r, i, &k);
        FZ_CHECK(k.bytes > 0 && k.offset <= n && k.bytes <= n - k.offset, "skip %zu: [%llu, +%llu) in a file of %zu",
                 i, (unsigned long long)k.offset, (unsigned long long)k.bytes, n);
        int known = 0;
        for (size_t j = 0; j < sizeof skip_reasons / sizeof skip_reasons[0]; j++)
            known |= k.reason && !strcmp(k.reason, skip_reasons[j]);
        FZ_CHECK(known, "skip %zu: reason %s", i, k.reason ? k.reason : "(null)");
        rs[*nr] = (range){ k.offset, k.offset + k.bytes, 0 };
        (*nr)++;
    }
    qsort(rs, *nr, sizeof *rs, cmp_range);
    /* Units do not overlap, skipped ranges do not overlap (a skip may lie
     * inside a Unit: the rest of a damaged one), and together they cover
     * every byte. */
    uint64_t at = 0, unit_end = 0, skip_end = 0;
    for (size_t i = 0; i < *nr; i++) {
        uint64_t *prev = rs[i].unit ? &unit_end : &skip_end;
        FZ_CHECK(rs[i].a >= *prev, "%s [%llu, %llu) overlaps the previous one (to %llu)", rs[i].unit ? "Unit" : "skip",
                 (unsigned long long)rs[i].a, (unsigned long long)rs[i].b, (unsigned long long)*prev);
        *prev = rs[i].b;
        FZ_CHECK(rs[i].a <= at, "%s [%llu, %llu): the bytes before it from %llu are neither read nor skipped",
                 rs[i].unit ? "Unit" : "skip", (unsigned long long)rs[i].a, (unsigned long long)rs[i].b,
                 (unsigned long long)at);
        if (rs[i].b > at)
            at = rs[i].b;
    }
    FZ_CHECK(at == n, "the bytes from %llu to the end (%zu) are neither read nor skipped", (unsigned long long)at, n);
}

static void check_findings(size_t n, fz_rtc_read *rd)
{
    size_t nf = atf_rtc_reader_finding_count(rd->r);
    for (size_t i = 0; i < nf; i++) {
        atf_finding f;
        atf_rtc_reader_finding(rd->r, i, &f);
        FZ_CHECK(f.offset <= n && f.message && !strchr(f.message, '\n') && f.message[0],
                 "finding %zu (%s) at %llu of %zu: '%s'", i, f.clause ? f.clause : "remark",
                 (unsigned long long)f.offset, n, f.message ? f.message : "(null)");
        if (f.clause) {
            int known = 0;
            for (size_t c = 0; c < NCLAUSES; c++)
                known |= !strcmp(clauses[c].id, f.clause);
            FZ_CHECK(known && atf_rtc_reader_clause_count(rd->r, f.clause) > 0, "finding %zu: clause %s", i,
                     f.clause);
        }
    }
    int errors = 0, rec = 0;
    for (size_t c = 0; c < NCLAUSES; c++) {
        uint64_t k = atf_rtc_reader_clause_count(rd->r, clauses[c].id);
        if (k && clauses[c].error)
            errors++;
        if (k && !strncmp(clauses[c].id, "RTC-REC", 7))
            rec = 1;
    }
    rd->errors = errors;
    atf_rtc_state want = errors ? ATF_RTC_DAMAGED : rec ? ATF_RTC_CRASH_TRUNCATED : ATF_RTC_COMPLETE;
    FZ_CHECK(rd->sum.state == want, "state %d with %d error clause(s) and REC %d", rd->sum.state, errors, rec);
    FZ_CHECK(rd->sum.state != ATF_RTC_COMPLETE || rd->sum.skipped_ranges == 0, "complete with %llu skips",
             (unsigned long long)rd->sum.skipped_ranges);
}

/* FZ_RTC_DEBUG=1: what the reader made of the bytes, on stderr (a file of
 * the bytes too, FZ_RTC_DEBUG=path). */
static void debug_print(const uint8_t *d, size_t n, const fz_rtc_read *rd)
{
    const atf_rtc_summary *s = &rd->sum;
    const char *path = getenv("FZ_RTC_DEBUG");
    if (path[0] == '/') {
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(d, 1, n, f);
            fclose(f);
        }
    }
    fprintf(stderr, "rtc read of %zu bytes: state %d, %llu records, %llu units, %llu skips, U %llu u %llu origin %lld\n", n,
            s->state, (unsigned long long)s->records, (unsigned long long)s->units,
            (unsigned long long)s->skipped_ranges, (unsigned long long)s->unit_size,
            (unsigned long long)s->subunit_size, (long long)s->origin);
    for (size_t i = 0; i < atf_rtc_reader_finding_count(rd->r); i++) {
        atf_finding f;
        atf_rtc_reader_finding(rd->r, i, &f);
        fprintf(stderr, "  %s at %llu: %s\n", f.clause ? f.clause : "remark", (unsigned long long)f.offset, f.message);
    }
    for (size_t i = 0; i < s->skipped_ranges; i++) {
        atf_rtc_skip k;
        atf_rtc_reader_skip(rd->r, i, &k);
        fprintf(stderr, "  skip [%llu, +%llu) %s\n", (unsigned long long)k.offset, (unsigned long long)k.bytes, k.reason);
    }
    for (size_t i = 0; i < s->records; i++) {
        atf_rtc_record r;
        atf_rtc_reader_record(rd->r, i, &r);
        fprintf(stderr, "  record %zu: stream %llu at %llu, %zu frames, %zu bytes, time %d %.17g\n", i,
                (unsigned long long)r.stream, (unsigned long long)r.offset, r.frame_count, r.size, r.has_time, r.time);
    }
}

typedef struct fz_handed_rec {
    uint64_t stream, offset, hash;
    size_t size, nframes;
} fz_handed_rec;

typedef struct fz_handed {
    fz_handed_rec *recs;          /* the records handed on since the start or the last restart */
    size_t n, cap;
    size_t calls, keep_at;        /* ATF_RTC_KEEP_RECORDS at call keep_at (1, 2, ...; 0: never) */
    size_t kept_from;             /* the first record (of recs) the reader keeps */
    int keeping;
} fz_handed;

static uint64_t payload_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* atf_rtc_reader_open_with's callback: what is handed on, kept to compare
 * at the end (records handed on before a restart no longer stand). */
static int handed(void *user, const atf_rtc_reader *r, size_t first, size_t end, int restart)
{
    fz_handed *h = user;
    if (restart) {   /* (a reader that keeps records keeps them after the restart too) */
        FZ_CHECK(first == 0 && end == 0, "a restart with records [%zu, %zu)", first, end);
        h->n = h->kept_from = 0;
        return 0;
    }
    FZ_CHECK(first < end, "handed on no record: [%zu, %zu)", first, end);
    int keep = !h->keeping && ++h->calls == h->keep_at;
    if (keep) {
        h->keeping = 1;
        h->kept_from = h->n;
    }
    for (size_t i = first; i < end; i++) {
        atf_rtc_record a;
        atf_rtc_reader_record(r, i, &a);
        if (h->n == h->cap) {
            h->cap = h->cap ? 2 * h->cap : 64;
            h->recs = realloc(h->recs, h->cap * sizeof *h->recs);
            FZ_CHECK(h->recs != NULL, "out of memory");
        }
        h->recs[h->n++] = (fz_handed_rec){ a.stream, a.offset, payload_hash(a.payload, a.size), a.size,
                                           a.frame_count };
    }
    return keep ? ATF_RTC_KEEP_RECORDS : 0;
}

void fz_rtc_check_reader(const uint8_t *d, size_t n, fz_rtc_read *out)
{
    memset(out, 0, sizeof *out);
    atf_error err;
    FZ_CHECK(atf_rtc_reader_open_memory(&out->r, d, n, &err) == ATF_OK, "open_memory: %s", err.message);
    atf_rtc_summary *s = &out->sum;
    atf_rtc_reader_summary(out->r, s);
    if (getenv("FZ_RTC_DEBUG"))
        debug_print(d, n, out);
    FZ_CHECK(s->file_size == n, "file_size %llu of %zu", (unsigned long long)s->file_size, n);
    uint64_t skipped = 0;
    for (size_t i = 0; i < s->skipped_ranges; i++) {
        atf_rtc_skip k;
        atf_rtc_reader_skip(out->r, i, &k);
        skipped += k.bytes;
    }
    FZ_CHECK(skipped == s->skipped_bytes, "skipped_bytes %llu, the ranges hold %llu",
             (unsigned long long)s->skipped_bytes, (unsigned long long)skipped);
    range *rs = malloc((s->units + s->skipped_ranges + 1) * sizeof *rs);
    FZ_CHECK(rs != NULL, "out of memory");
    size_t nr = 0;
    check_units(d, n, out, rs, &nr);
    check_findings(n, out);

    out->nrec = (size_t)s->records;
    out->recs = calloc(out->nrec + 1, sizeof *out->recs);
    size_t total_frames = 0;
    for (size_t i = 0; i < out->nrec; i++) {
        atf_rtc_record rec;
        atf_rtc_reader_record(out->r, i, &rec);
        total_frames += rec.frame_count;
    }
    uint64_t *owned = malloc((total_frames + 1) * sizeof *owned);
    FZ_CHECK(out->recs && owned, "out of memory");
    size_t nowned = 0;
    int either = atf_rtc_reader_clause_count(out->r, "RTC-MET-003") > 0;
    for (size_t i = 0; i < out->nrec; i++) {
        atf_rtc_record rec, nx;
        atf_rtc_reader_record(out->r, i, &rec);
        FZ_CHECK(atf_rtc_reader_next_record(out->r, &nx) == ATF_OK && nx.offset == rec.offset &&
                     nx.payload == rec.payload && nx.size == rec.size,
                 "next_record %zu is not record %zu", i, i);
        int64_t fixed = stream_length(s, out->r, rec.stream);
        uint64_t end = check_record(d, n, &rec, fixed, either, s, rs, nr, owned, &nowned);
        out->recs[i] = (fz_rtc_rec){ rec.stream, rec.offset, end, rec.size, rec.frame_count, rec.frames, rec.payload };
    }
    atf_rtc_record extra;
    FZ_CHECK(atf_rtc_reader_next_record(out->r, &extra) == ATF_E_NOT_FOUND, "next_record past %zu records",
             out->nrec);
    qsort(owned, nowned, sizeof *owned, cmp_u64);
    for (size_t i = 1; i < nowned; i++)
        FZ_CHECK(owned[i] != owned[i - 1], "the frame at %llu belongs to two records", (unsigned long long)owned[i]);
    free(owned);
    free(rs);

    /* Deterministic: a second reader returns the same, and hands on each
     * record as it reads when it keeps none (ATF_RTC_PROGRESS_ONLY). */
    atf_rtc_reader *r2 = NULL;
    fz_handed h = { NULL, 0, 0, 0, n % 3, 0, 0 };   /* keep records from the first call, the second, or never */
    FZ_CHECK(atf_rtc_reader_open_memory_with(&r2, d, n, handed, &h, ATF_RTC_PROGRESS_ONLY, &err) == ATF_OK,
             "second open");
    atf_rtc_summary s2;
    atf_rtc_reader_summary(r2, &s2);
    FZ_CHECK(s2.records == s->records && s2.units == s->units && s2.skipped_bytes == s->skipped_bytes &&
                 s2.state == s->state && atf_rtc_reader_finding_count(r2) == atf_rtc_reader_finding_count(out->r),
             "a second read differs");
    FZ_CHECK(h.n == out->nrec, "a second read handed on %zu records, not %zu", h.n, out->nrec);
    for (size_t i = 0; i < h.n; i++) {
        const fz_rtc_rec *w = &out->recs[i];
        const fz_handed_rec *g = &h.recs[i];
        FZ_CHECK(g->stream == w->stream && g->offset == w->offset && g->size == w->size &&
                     g->nframes == w->nframes && g->hash == payload_hash(w->payload, w->size),
                 "record %zu handed on differs from the one kept", i);
    }
    /* it keeps what it was told to keep: the records from the call that said so */
    size_t kept = 0;
    atf_rtc_record a;
    while (atf_rtc_reader_next_record(r2, &a) == ATF_OK) {
        size_t i = (h.keeping ? h.kept_from : h.n) + kept++;
        FZ_CHECK(i < h.n, "the reader keeps more records than it was told to");
        FZ_CHECK(a.offset == h.recs[i].offset && a.size == h.recs[i].size &&
                     payload_hash(a.payload, a.size) == h.recs[i].hash,
                 "kept record %zu is not the one handed on", kept - 1);
    }
    FZ_CHECK(kept == (h.keeping ? h.n - h.kept_from : 0), "the reader kept %zu records, not %zu", kept,
             h.keeping ? h.n - h.kept_from : 0);
    free(h.recs);
    atf_rtc_reader_close(r2);
}

void fz_rtc_read_free(fz_rtc_read *rd)
{
    atf_rtc_reader_close(rd->r);
    free(rd->recs);
    memset(rd, 0, sizeof *rd);
}

/* ---- Synthesized files ------------------------------------------------------------ */

void fz_rtc_put_u8(fz_buf *b, uint8_t v)
{
    fz_buf_put(b, &v, 1);
}

void fz_rtc_put_uleb(fz_buf *b, uint64_t v)
{
    do {
        uint8_t c = (uint8_t)(v & 0x7F);
        v >>= 7;
        fz_rtc_put_u8(b, (uint8_t)(c | (v ? 0x80 : 0)));
    } while (v);
}

void fz_rtc_put_frame(fz_buf *b, uint64_t sid, int more, int variable, const void *p, size_t n)
{
    fz_rtc_put_uleb(b, sid << 1 | (more ? 1u : 0u));
    if (variable)
        fz_rtc_put_uleb(b, n);
    fz_buf_put(b, p, n);
}

static size_t uleb_size(uint64_t v)
{
    size_t k = 1;
    while (v >>= 7)
        k++;
    return k;
}

void fz_rtc_pad_to(fz_buf *b, size_t to)
{
    FZ_CHECK(to >= b->n, "padding backwards");
    static const uint8_t z[1024];
    while (to - b->n > 1027)   /* padding frames are frames: at most 1024 bytes of payload */
        fz_rtc_put_frame(b, ATF_RTC_PADDING, 0, 1, z, 1024);
    size_t gap = to - b->n;
    if (gap == 1) {
        fz_rtc_put_u8(b, 0);
        return;
    }
    if (gap == 0)
        return;
    /* 02, ULEB(k), k zeros: 1 + size(k) + k = gap; a nop first when no k fits */
    for (size_t k = gap - 2; k + 1 + uleb_size(k) >= gap && k > 0; k--)
        if (1 + uleb_size(k) + k == gap) {
            fz_rtc_put_u8(b, 2);
            fz_rtc_put_uleb(b, k);
            fz_buf_put(b, z, k);
            return;
        }
    fz_rtc_put_u8(b, 0);
    fz_rtc_pad_to(b, to);
}

void fz_rtc_head(fz_buf *b, uint64_t U, uint64_t u, const char *meta, size_t meta_len, const uint64_t *ids,
                 size_t nids)
{
    uint8_t mk[ATF_RTC_MARKER_SIZE];
    mk[0] = 0x04;
    memset(mk + 1, 0xB9, ATF_RTC_MARKER_SIZE - 1);
    fz_buf_put(b, mk, sizeof mk);
    fz_buf ix = { 0 };
    fz_rtc_put_uleb(&ix, 0);
    const uint64_t builtin[][2] = { { 3, U }, { 4, u }, { 5, 0 }, { 7, 0 }, { 8, 0 } };
    for (size_t i = 0; i < 5; i++) {
        fz_rtc_put_uleb(&ix, builtin[i][0] << 1 | 1);
        fz_rtc_put_uleb(&ix, builtin[i][1] << 1);
    }
    for (size_t i = 0; i < nids; i++) {
        fz_rtc_put_uleb(&ix, ids[i] << 1 | 1);
        fz_rtc_put_uleb(&ix, 0);
    }
    fz_rtc_put_frame(b, ATF_RTC_INDEX, 0, 1, ix.p, ix.n);
    free(ix.p);
    fz_rtc_put_frame(b, ATF_RTC_META, 0, 1, meta, meta_len);
    static const uint8_t le[4] = { 4, 3, 2, 1 };
    fz_rtc_put_frame(b, ATF_RTC_PLATFORM, 0, 0, le, 4);
}

void fz_rtc_put_crc(fz_buf *b, size_t unit_off, int ref)
{
    uint32_t c = fz_rtc_crc(ref, b->p + unit_off + ATF_RTC_MARKER_SIZE, b->n - unit_off - ATF_RTC_MARKER_SIZE);
    uint8_t v[4] = { (uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16), (uint8_t)(c >> 24) };
    fz_rtc_put_frame(b, ATF_RTC_CRC, 0, 0, v, 4);
}

/* ---- Cuts of a complete file (SPEC-RTC 8.2) ------------------------------------------ */

#include <stdarg.h>
#include <stdio.h>

static char cut_msg[512];

static const char *cut_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cut_msg, sizeof cut_msg, fmt, ap);
    va_end(ap);
    return cut_msg;
}

/* fz_rtc_cut_check of a cut at the start (a > 0): the first Unit at or
 * after a starts the read. */
static const char *cut_start_check(const uint8_t *d, const fz_rtc_read *whole, size_t n, size_t a,
                                   const fz_rtc_read *cut)
{
    size_t units = (size_t)whole->sum.units;
    atf_rtc_unit_info u;
    uint64_t m = UINT64_MAX;
    for (size_t i = 0; i < units && m == UINT64_MAX; i++) {
        atf_rtc_reader_unit(whole->r, i, &u);
        if (u.offset >= a)
            m = u.offset;
    }
    if (m == UINT64_MAX) {
        /* Only the start of a Marker left is a cut file (RTC-MRK-001's exception); anything else holds no Marker. */
        int prefix = n - a < ATF_RTC_MARKER_SIZE && d[a] == 0x04;
        for (size_t i = a + 1; prefix && i < n; i++)
            prefix = d[i] == 0xB9;
        const char *want = prefix ? "RTC-REC-001" : "RTC-MRK-001";
        if (cut->sum.state != (prefix ? ATF_RTC_CRASH_TRUNCATED : ATF_RTC_DAMAGED) || cut->nrec ||
            !fz_rtc_count(cut, want))
            return cut_fail("no Marker left: state %d, %zu records, %s %llu; expected %s, none", cut->sum.state,
                            cut->nrec, want, (unsigned long long)fz_rtc_count(cut, want),
                            prefix ? "crash-truncated (a Marker's start)" : "damaged");
        return NULL;
    }
    size_t want = 0, tails = 0;
    for (size_t i = 0; i < whole->nrec; i++) {
        const fz_rtc_rec *w = &whole->recs[i];
        size_t first = 0;
        while (first < w->nframes && w->frames[first] < m)
            first++;
        if (first == w->nframes)
            continue;
        want++;
        tails += first > 0;
        const fz_rtc_rec *c = NULL;
        for (size_t j = 0; j < cut->nrec && !c; j++)
            if (cut->recs[j].offset + a == w->frames[first])
                c = &cut->recs[j];
        if (!c)
            return cut_fail("the record of stream %llu at %llu%s is not recovered", (unsigned long long)w->stream,
                            (unsigned long long)w->frames[first], first ? " (a tail)" : "");
        int same = c->stream == w->stream && c->nframes == w->nframes - first;
        for (size_t k = 0; same && k < c->nframes; k++)
            same = c->frames[k] + a == w->frames[first + k];
        if (first == 0)
            same = same && c->size == w->size && (w->size == 0 || !memcmp(c->payload, w->payload, w->size));
        else
            same = same && c->size < w->size && !memcmp(c->payload, w->payload + w->size - c->size, c->size);
        if (!same)
            return cut_fail("the record of stream %llu at %llu: frames or payload differ",
                            (unsigned long long)w->stream, (unsigned long long)w->frames[first]);
    }
    if (cut->nrec != want)
        return cut_fail("%zu records recovered, the uncut file's table says %zu", cut->nrec, want);
    int other_errors = 0;
    for (size_t c = 0; c < NCLAUSES; c++)
        if (clauses[c].error && strncmp(clauses[c].id, "RTC-FMT", 7) && fz_rtc_count(cut, clauses[c].id))
            other_errors = 1;
    if (cut->sum.state != ATF_RTC_CRASH_TRUNCATED && !(tails && cut->sum.state == ATF_RTC_DAMAGED && !other_errors))
        return cut_fail("state %d, expected crash-truncated%s", cut->sum.state,
                        tails ? " (or a format clause of a record's tail)" : "");
    if (!fz_rtc_count(cut, "RTC-REC-002"))
        return cut_fail("no RTC-REC-002");
    atf_rtc_skip k;
    if (m > a) {
        if (cut->sum.skipped_ranges != 1)
            return cut_fail("%llu skipped ranges, expected one", (unsigned long long)cut->sum.skipped_ranges);
        atf_rtc_reader_skip(cut->r, 0, &k);
        if (k.offset != 0 || k.bytes != m - a || strcmp(k.reason, "before-first-marker"))
            return cut_fail("skipped [%llu, +%llu) %s; expected [0, +%llu) before-first-marker",
                            (unsigned long long)k.offset, (unsigned long long)k.bytes, k.reason,
                            (unsigned long long)(m - a));
    } else if (cut->sum.skipped_ranges) {
        return cut_fail("%llu skipped ranges, expected none", (unsigned long long)cut->sum.skipped_ranges);
    }
    return NULL;
}

/* fz_rtc_cut_check of a cut at the end (b). */
static const char *cut_end_check(const fz_rtc_read *whole, size_t n, size_t b, const fz_rtc_read *cut)
{
    size_t units = (size_t)whole->sum.units;
    atf_rtc_unit_info u;
    /* Cut at the end: every record whose frames all end by b. */
    size_t want = 0;
    int open = 0, unit_end = 0;
    for (size_t i = 0; i < units; i++) {
        atf_rtc_reader_unit(whole->r, i, &u);
        unit_end |= u.offset + whole->sum.unit_size == b;
    }
    for (size_t i = 0; i < whole->nrec; i++) {
        const fz_rtc_rec *w = &whole->recs[i];
        if (w->end > b) {
            open |= w->offset < b;
            continue;
        }
        want++;
        const fz_rtc_rec *c = NULL;
        for (size_t j = 0; j < cut->nrec && !c; j++)
            if (cut->recs[j].offset == w->offset)
                c = &cut->recs[j];
        if (!c || c->stream != w->stream || c->nframes != w->nframes || c->size != w->size ||
            memcmp(c->frames, w->frames, c->nframes * sizeof(uint64_t)) ||
            (w->size && memcmp(c->payload, w->payload, w->size)))
            return cut_fail("the record of stream %llu at %llu (ends at %llu) is %s", (unsigned long long)w->stream,
                            (unsigned long long)w->offset, (unsigned long long)w->end,
                            c ? "not the same" : "not recovered");
    }
    if (cut->nrec != want)
        return cut_fail("%zu records recovered, the uncut file's table says %zu", cut->nrec, want);
    atf_rtc_state st = b == 0 || b == n || (unit_end && !open) ? ATF_RTC_COMPLETE : ATF_RTC_CRASH_TRUNCATED;
    if (cut->sum.state != st)
        return cut_fail("state %d, expected %d", cut->sum.state, st);
    if (st == ATF_RTC_CRASH_TRUNCATED && !fz_rtc_count(cut, "RTC-REC-001"))
        return cut_fail("no RTC-REC-001");
    for (size_t i = 0; i < cut->sum.skipped_ranges; i++) {
        atf_rtc_skip k;
        atf_rtc_reader_skip(cut->r, i, &k);
        if (strcmp(k.reason, "cut") || k.offset + k.bytes != b || cut->sum.skipped_ranges != 1)
            return cut_fail("skipped [%llu, +%llu) %s (%llu ranges); expected at most one cut range ending at %zu",
                            (unsigned long long)k.offset, (unsigned long long)k.bytes, k.reason,
                            (unsigned long long)cut->sum.skipped_ranges, b);
    }
    return NULL;
}

const char *fz_rtc_cut_check(const uint8_t *d, const fz_rtc_read *whole, size_t n, size_t a, size_t b,
                             const fz_rtc_read *cut)
{
    return a > 0 ? cut_start_check(d, whole, n, a, cut) : cut_end_check(whole, n, b, cut);
}
