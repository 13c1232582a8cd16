/* Detail file reader: header, footer location, a validating sequential scan
 * by total_length that builds the offset table once, then O(1) access. */
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include <atf/crc32c.h>
#include <atf/reader.h>

#include "bytes.h"
#include "internal.h"

/* Events [first, first + n) of the file, at off[0..n). */
typedef struct detail_seg {
    const uint64_t *off;
    uint64_t first, n;
} detail_seg;

/* Per part: a stretch walked alone, its own chain, a stretch alone again. */
#define DETAIL_SEGS_MAX (3 * ATF_VERIFY_PARTS_MAX)

struct atf_detail_reader {
    atf_blob blob;
    char *path;
    atf_detail_header header;
    atf_detail_footer footer;
    atf_detail_info info;
    /* The file offset of each event: the tables the parts walked, taken
     * as they are (no copy), in segments of consecutive events. */
    detail_seg seg[DETAIL_SEGS_MAX];
    unsigned nseg;
    uint64_t *tab[ATF_VERIFY_PARTS_MAX + 1];
    uint64_t tab_cap[ATF_VERIFY_PARTS_MAX + 1];
    unsigned ntab;
};

static int find_end_footer(atf_detail_reader *r, uint64_t *region_end);

static int find_footer(atf_detail_reader *r, uint64_t *region_end)
{
    const atf_detail_header *h = &r->header;
    const uint8_t *d = r->blob.data;
    uint64_t size = r->blob.size;
    atf_detail_footer f;

    *region_end = size;
    if (r->info.header_finalized) {
        if (atf_fits(h->events_offset, h->bytes_length, size)) {
            uint64_t at = h->events_offset + h->bytes_length;
            *region_end = at;
            if (atf_fits(at, ATF_DETAIL_FOOTER_SIZE, size) &&
                atf_detail_footer_decode(&f, d + at, ATF_DETAIL_FOOTER_SIZE, NULL) == ATF_OK) {
                r->footer = f;
                r->info.footer_offset = at;
                return 1;
            }
        }
        /* Not where the header says: a footer lined up at the end is still the footer (SPEC 6). */
        uint64_t keep = *region_end;
        *region_end = size;
        if (find_end_footer(r, region_end)) {
            r->info.footer_misplaced = 1;
            return 1;
        }
        *region_end = keep;
        return 0;
    }
    return find_end_footer(r, region_end);
}

/* The footer of a placeholder header: the last 64 bytes, when their magic and
 * bytes_length agree with the events section before them. */
static int find_end_footer(atf_detail_reader *r, uint64_t *region_end)
{
    const atf_detail_header *h = &r->header;
    const uint8_t *d = r->blob.data;
    uint64_t size = r->blob.size;
    atf_detail_footer f;
    if (size < h->events_offset + ATF_DETAIL_FOOTER_SIZE)
        return 0;
    uint64_t at = size - ATF_DETAIL_FOOTER_SIZE;
    if (atf_detail_footer_decode(&f, d + at, ATF_DETAIL_FOOTER_SIZE, NULL) != ATF_OK)
        return 0;
    if (f.bytes_length != at - h->events_offset)
        return 0;
    r->footer = f;
    r->info.footer_offset = at;
    *region_end = at;
    return 1;
}

/* ---- The events walk, in parts side by side ------------------------------
 *
 * Each event's place follows from the last one's total_length: a chain that
 * only one thread can follow from the first event. So that every core still
 * takes a share, the events section is cut into parts (atf_part_count);
 * each part's thread computes the part's CRC32-C and, behind it, walks a
 * chain of events from a guessed first event of its own, in blocks that the
 * checksum (or a touch of each line) has just brought into the cache. The
 * joins then follow the true chain from the first event: where it lands on
 * an event of a part's chain, the rest of that chain is the true one (a
 * chain is a function of where it starts), and the part's table and figures
 * are taken as they are; elsewhere (a guess that did not meet the chain, an
 * event the part could not decode) the join walks on by itself, the way one
 * thread would. The guess only decides how much is walked twice: the events,
 * the figures and the first error are those of a walk on one thread. */

#define WALK_BLOCK ((uint64_t)256 << 10)
#define WALK_GUESS_SPAN ((uint64_t)1 << 20)  /* bytes searched for a part's first event */
#define WALK_GUESS_CHAIN 8                   /* events that must follow a guess */

/* What a walk found: the events' table and the figures of atf_detail_info. */
typedef struct walk_acc {
    uint64_t *off;
    uint64_t n, cap;
    uint64_t first_ts, last_ts, min_seq, max_seq;
    uint64_t back_count, first_back;   /* first_back: index in off[] */
} walk_acc;

typedef struct walk_part {
    const uint8_t *d;
    uint64_t a, b;            /* the part: events that start in [a, b) */
    uint64_t region_end;
    atf_layout layout;
    int want_crc, first;      /* first: the part starts at the first event */
    uint32_t crc;
    walk_acc w;               /* the part's chain */
    uint64_t stop;            /* where its chain ended: >= b, or an event it could not decode */
    int nomem;
} walk_part;

/* 1 if an event that decodes (atf_detail_event_decode) starts at @pos. */
static inline uint32_t walk_len(const uint8_t *d, uint64_t pos, uint64_t end)
{
    if (end - pos < ATF_DETAIL_EVENT_HEADER_SIZE)
        return 0;
    uint32_t len = atf_load_le32(d + pos);
    return len >= ATF_DETAIL_EVENT_HEADER_SIZE && len <= end - pos ? len : 0;
}

static inline uint64_t walk_seq(const uint8_t *p, atf_layout layout)
{
    return layout == ATF_LAYOUT_1 ? atf_load_le32(p + 8) : atf_load_le64(p + 8);
}

/* The events' tables grow by doubling without copying what they hold:
 * on Linux, mapped memory that mremap moves, in huge pages where the system
 * gives them (a fault per 2 MiB instead of 4 KiB); realloc elsewhere. */
static size_t table_bytes(uint64_t cap)
{
    return (size_t)((cap * sizeof(uint64_t) + 4095) & ~(uint64_t)4095);
}

static int table_reserve(walk_acc *w, uint64_t want, uint64_t limit)
{
    if (want <= w->cap)
        return 0;
    uint64_t ncap = w->cap ? w->cap : 4096;
    while (ncap < want)
        ncap *= 2;
    if (ncap > limit)
        ncap = limit;
    if (ncap < want || ncap > SIZE_MAX / 2 / sizeof(uint64_t))
        return -1;
#ifdef __linux__
    void *p = w->off ? mremap(w->off, table_bytes(w->cap), table_bytes(ncap), MREMAP_MAYMOVE)
                     : mmap(NULL, table_bytes(ncap), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
#  ifdef MADV_HUGEPAGE
    if (table_bytes(ncap) >= ((size_t)4 << 20))
        (void)madvise(p, table_bytes(ncap), MADV_HUGEPAGE);
#  endif
#else
    void *p = realloc(w->off, (size_t)ncap * sizeof(uint64_t));
    if (!p)
        return -1;
#endif
    w->off = p;
    w->cap = ncap;
    return 0;
}

static void table_free(uint64_t *off, uint64_t cap)
{
#ifdef __linux__
    if (off)
        munmap(off, table_bytes(cap));
#else
    (void)cap;
    free(off);
#endif
}

static inline int walk_push(walk_acc *w, uint64_t limit, uint64_t pos)
{
    if (w->n == w->cap && table_reserve(w, w->n + 1, limit) != 0)
        return -1;
    w->off[w->n++] = pos;
    return 0;
}

/* Adds the event at @pos (already decoded) to @w's figures, as its event
 * w->n (the caller counts it). */
static inline void walk_note(walk_acc *w, const uint8_t *d, uint64_t pos, atf_layout layout)
{
    const uint8_t *p = d + pos;
    uint64_t ts = atf_load_le64(p + 16), seq = walk_seq(p, layout);
    if (w->n == 0) {
        w->first_ts = ts;
        w->min_seq = w->max_seq = seq;
    } else {
        if (ts < w->last_ts && w->back_count++ == 0)
            w->first_back = w->n;
        w->min_seq = seq < w->min_seq ? seq : w->min_seq;
        w->max_seq = seq > w->max_seq ? seq : w->max_seq;
    }
    w->last_ts = ts;
}

/* ...and to its table. */
static inline int walk_take(walk_acc *w, const uint8_t *d, uint64_t pos, atf_layout layout, uint64_t limit)
{
    walk_note(w, d, pos, layout);
    return walk_push(w, limit, pos);
}

/* A likely first event of a part: the first place from @a on where
 * WALK_GUESS_CHAIN events decode one after the other with their timestamps
 * in order. A wrong guess costs time, never a result. */
static uint64_t walk_guess(const walk_part *p)
{
    uint64_t span_end = p->b - p->a > WALK_GUESS_SPAN ? p->a + WALK_GUESS_SPAN : p->b;
    for (uint64_t c = p->a; c < span_end; c++) {
        uint64_t pos = c, ts = 0;
        int k = 0;
        for (; k < WALK_GUESS_CHAIN && pos < p->region_end; k++) {
            uint32_t len = walk_len(p->d, pos, p->region_end);
            uint64_t t = len ? atf_load_le64(p->d + pos + 16) : 0;
            if (!len || (k && t < ts))
                break;
            ts = t;
            pos += len;
        }
        if (k == WALK_GUESS_CHAIN || (k && pos == p->region_end))
            return c;
    }
    return p->b;
}

static void walk_part_run(void *arg)
{
    walk_part *p = arg;
    const uint8_t *d = p->d;
    const uint64_t limit = (p->region_end - p->a) / ATF_DETAIL_EVENT_HEADER_SIZE + 1;
    uint64_t pos = p->first ? p->a : walk_guess(p);
    int walking = pos < p->b;
    uint32_t crc = 0;
    for (uint64_t blk = p->a; blk < p->b;) {
        uint64_t be = p->b - blk > WALK_BLOCK ? blk + WALK_BLOCK : p->b;
        if (p->want_crc) {
            crc = atf_crc32c(crc, d + blk, (size_t)(be - blk));
        } else {
            uint8_t t = 0;   /* the lines into the cache, for the walk below */
            for (uint64_t x = blk; x < be; x += 64)
                t ^= *(const volatile uint8_t *)(d + x);
            (void)t;
        }
        /* The events whose header lies in what is cached (the last block:
         * every one that starts in the part). */
        uint64_t lim = be == p->b ? p->b : be - (ATF_DETAIL_EVENT_HEADER_SIZE - 1);
        while (walking && pos < lim) {
            uint32_t len = walk_len(d, pos, p->region_end);
            if (!len) {
                walking = 0;
                break;
            }
            if (walk_take(&p->w, d, pos, p->layout, limit) != 0) {
                p->nomem = 1;
                walking = 0;
                break;
            }
            pos += len;
        }
        blk = be;
    }
    p->stop = pos;
    p->crc = crc;
}

/* The figures of the events at @off[0..n), read again (a part whose chain
 * the true one joined after its first event). */
static void walk_refigure(walk_acc *dst, const uint8_t *d, const uint64_t *off, uint64_t n, atf_layout layout)
{
    walk_acc t = { 0 };
    for (; t.n < n; t.n++)
        walk_note(&t, d, off[t.n], layout);
    *dst = t;
}

/* Counts @q's events (figures in @q) after @w's. */
static void walk_append(walk_acc *w, const walk_acc *q)
{
    if (!q->n)
        return;
    if (w->n == 0) {
        w->first_ts = q->first_ts;
        w->min_seq = q->min_seq;
        w->max_seq = q->max_seq;
    } else {
        if (q->first_ts < w->last_ts && w->back_count++ == 0)
            w->first_back = w->n;
        w->min_seq = q->min_seq < w->min_seq ? q->min_seq : w->min_seq;
        w->max_seq = q->max_seq > w->max_seq ? q->max_seq : w->max_seq;
    }
    if (q->back_count && !w->back_count)
        w->first_back = w->n + q->first_back;
    w->back_count += q->back_count;
    w->last_ts = q->last_ts;
    w->n += q->n;
}

/* A segment of the events' table being joined: @n events from @from of
 * part @src's table (np: the join's own), the first of them event @first. */
typedef struct join_seg {
    unsigned src;
    uint64_t from, n, first;
} join_seg;

/* Takes @q's chain from its event @j on (the true chain is there) after
 * @acc's events. */
static void walk_adopt(walk_acc *acc, const walk_part *q, uint64_t j)
{
    walk_acc tail = q->w;
    if (j > 0)
        walk_refigure(&tail, q->d, q->w.off + j, q->w.n - j, q->layout);
    walk_append(acc, &tail);
}

/* Walks the events section by total_length. With a footer every byte must
 * parse; without one (crash recovery) the walk stops at the first event that
 * is incomplete or malformed and the rest is reported as trailing bytes.
 * *crc receives the section's CRC32-C when @want_crc. */
static atf_status scan(atf_detail_reader *r, uint64_t region_end, int want_crc, unsigned threads,
                       uint32_t *crc, atf_error *err)
{
    atf_detail_info *info = &r->info;
    const uint8_t *d = r->blob.data;
    const int strict = info->has_footer;
    const uint64_t start = r->header.events_offset, bytes = region_end - start;
    /* Every event takes at least 24 bytes: the table never outgrows the file. */
    const uint64_t limit = bytes / ATF_DETAIL_EVENT_HEADER_SIZE + 1;
    const atf_layout layout = info->layout;

    walk_part parts[ATF_VERIFY_PARTS_MAX];
    unsigned np = atf_part_count(threads, bytes, bytes ? bytes : 1, ATF_VERIFY_PARTS_MAX);
    for (unsigned i = 0; i < np; i++) {
        parts[i] = (walk_part){ .d = d, .a = start + bytes * i / np, .b = start + bytes * (i + 1) / np,
                                .region_end = region_end, .layout = layout, .want_crc = want_crc,
                                .first = i == 0 };
    }
    unsigned ran = atf_parts_run(parts, sizeof parts[0], np, walk_part_run);

    /* The true chain, part by part: q's own chain where it meets it, a walk
     * of its own elsewhere (its offsets in the table `alone`). */
    walk_acc acc = { 0 }, alone = { 0 };
    join_seg seg[DETAIL_SEGS_MAX];
    unsigned nseg = 0;
    uint64_t pos = start;
    uint32_t sum = 0;
    atf_status st = ATF_OK;
    int end = 0;
    for (unsigned i = 0; i < np && !end; i++) {
        walk_part *q = &parts[i];
        sum = i ? atf_crc32c_combine(sum, q->crc, q->b - q->a) : q->crc;
        uint64_t j = 0;
        int taken = 0;
        while (pos < q->b) {
            if (!taken) {
                while (j < q->w.n && q->w.off[j] < pos)
                    j++;
                if (j < q->w.n && q->w.off[j] == pos) {
                    walk_adopt(&acc, q, j);
                    seg[nseg++] = (join_seg){ .src = i, .from = j, .n = q->w.n - j, .first = acc.n - (q->w.n - j) };
                    taken = 1;
                    pos = q->stop;   /* (before it, where q's chain broke: on alone) */
                    continue;
                }
            }
            atf_detail_event ev;
            atf_error e;   /* atf_fail() fills every field read below */
            st = atf_detail_event_decode(&ev, d + pos, (size_t)(region_end - pos), layout, &e);
            if (st) {
                st = strict ? atf_fail(err, st, pos + e.offset, e.field, "detail event %llu at offset %llu: %s",
                                       (unsigned long long)acc.n, (unsigned long long)pos, e.message)
                            : ATF_OK;
                end = 1;
                break;
            }
            if (walk_push(&alone, limit, pos) != 0) {
                st = atf_fail(err, ATF_E_NOMEM, pos, NULL, NULL);
                end = 1;
                break;
            }
            walk_note(&acc, d, pos, layout);
            acc.n++;
            if (nseg && seg[nseg - 1].src == np)
                seg[nseg - 1].n++;
            else
                seg[nseg++] = (join_seg){ .src = np, .from = alone.n - 1, .n = 1, .first = acc.n - 1 };
            pos += ev.total_length;
        }
    }
    /* The reader keeps the tables the segments are in (seg[] is in the
     * order of the events; `alone` may have moved while it grew, so the
     * addresses are taken now). */
    r->nseg = 0;
    r->ntab = 0;
    int used[ATF_VERIFY_PARTS_MAX + 1] = { 0 };
    for (unsigned k = 0; k < nseg; k++)
        if (seg[k].n) {
            const walk_acc *t = seg[k].src < np ? &parts[seg[k].src].w : &alone;
            r->seg[r->nseg++] = (detail_seg){ .off = t->off + seg[k].from, .first = seg[k].first, .n = seg[k].n };
            used[seg[k].src] = 1;
        }
    for (unsigned i = 0; i <= np; i++) {
        walk_acc *t = i < np ? &parts[i].w : &alone;
        if (used[i] && st == ATF_OK) {
            r->tab[r->ntab] = t->off;
            r->tab_cap[r->ntab++] = t->cap;
        } else {
            table_free(t->off, t->cap);
        }
    }
    info->verify_threads = ran;
    *crc = sum;
    if (st) {
        r->nseg = 0;
        return st;
    }
    info->event_count = acc.n;
    if (acc.n) {
        info->first_ts = acc.first_ts;
        info->last_ts = acc.last_ts;
        info->min_index_seq = acc.min_seq;
        info->max_index_seq = acc.max_seq;
        info->backwards_count = acc.back_count;
        info->first_backwards_seq = acc.back_count ? acc.first_back : 0;
    }
    info->events_end = pos;
    /* Every byte that is neither header, event nor footer is reported. */
    info->trailing_bytes = info->has_footer
        ? (region_end - pos) + (r->blob.size - info->footer_offset - ATF_DETAIL_FOOTER_SIZE)
        : r->blob.size - pos;
    return ATF_OK;
}

static atf_status open_common(atf_detail_reader *r, const atf_read_options *opts, atf_error *err)
{
    atf_read_options defaults = ATF_READ_OPTIONS_INIT;
    if (!opts)
        opts = &defaults;
    const uint64_t size = r->blob.size;
    atf_detail_header *h = &r->header;
    atf_detail_info *info = &r->info;

    info->file_size = size;
    if (atf_header_prefix_ok(r->blob.data, r->blob.size, ATF_DETAIL_MAGIC)) {
        /* Killed before the first flush, or inside the header write. */
        ATF_OPEN_CUT_HEADER(h, info, r->blob.data, size, ATF_DETAIL_HEADER_SIZE);
        return ATF_OK;
    }
    atf_status st = atf_detail_header_decode(h, r->blob.data, r->blob.size, err);
    if (st)
        return st;
    if (h->events_offset > size)
        return atf_fail(err, ATF_E_OFFSET, 20, "events_offset",
                        "events_offset is %llu, beyond the end of the %llu-byte file",
                        (unsigned long long)h->events_offset, (unsigned long long)size);
    info->layout = (atf_layout)h->version;
    info->header_finalized = !atf_detail_header_is_placeholder(h);

    uint64_t region_end;
    info->has_footer = find_footer(r, &region_end);
    info->recovered = !info->has_footer;
    info->state = info->has_footer ? ATF_FILE_COMPLETE
                  : info->header_finalized ? ATF_FILE_DAMAGED : ATF_FILE_CRASH_TRUNCATED;
    if (info->has_footer && r->footer.bytes_length != region_end - h->events_offset)
        return atf_fail(err, ATF_E_LENGTH, info->footer_offset + 16, "footer.bytes_length",
                        "footer bytes_length %llu, but the events section is %llu bytes",
                        (unsigned long long)r->footer.bytes_length,
                        (unsigned long long)(region_end - h->events_offset));
    /* The checksum in parts side by side, each part's events walked behind it. */
    int want_crc = info->has_footer && r->footer.checksum != 0 && opts->verify;
    uint32_t crc = 0;
    st = scan(r, region_end, want_crc, opts->threads, &crc, err);
    if (st)
        return st;
    if (info->has_footer && r->footer.event_count != info->event_count)
        return atf_fail(err, ATF_E_COUNT, info->footer_offset + 8, "footer.event_count",
                        "footer claims %llu events, the events section holds %llu",
                        (unsigned long long)r->footer.event_count, (unsigned long long)info->event_count);

    if (!info->has_footer) {
        info->checksum = ATF_CHECKSUM_NO_FOOTER;
    } else if (r->footer.checksum == 0) {
        info->checksum = ATF_CHECKSUM_ZERO;
    } else if (!opts->verify) {
        info->checksum = ATF_CHECKSUM_NOT_VERIFIED;
    } else {
        const uint8_t *ev = r->blob.data + h->events_offset;
        size_t n = (size_t)r->footer.bytes_length;
        if (crc == r->footer.checksum) {
            info->checksum = ATF_CHECKSUM_CRC32C;
        } else if (info->layout == ATF_LAYOUT_1 && atf_crc32_ieee(0, ev, n) == r->footer.checksum) {
            info->checksum = ATF_CHECKSUM_CRC32_IEEE;
        } else {
            info->checksum = ATF_CHECKSUM_MISMATCH;
            return atf_fail(err, ATF_E_CHECKSUM, info->footer_offset + 4, "footer.checksum",
                            "footer checksum 0x%08x does not match the events (CRC32-C 0x%08x%s)",
                            r->footer.checksum, crc,
                            info->layout == ATF_LAYOUT_1 ? ", nor CRC32/IEEE" : "");
        }
    }
    return ATF_OK;
}

/* A reader of the file at path, or (path NULL) of the caller's memory. */
static atf_status open_source(atf_detail_reader **out, const char *path, const void *data, size_t size,
                              const char *name, const atf_read_options *opts, atf_error *err)
{
    *out = NULL;
    atf_detail_reader *r = calloc(1, sizeof *r);
    if (!r)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    atf_status st = atf_blob_open_named(&r->blob, &r->path, path, data, size, name, opts && opts->no_mmap, err);
    if (!st) {
        st = open_common(r, opts, err);
        if (st)
            atf_error_set_file(err, r->path);
    }
    if (st) {
        atf_detail_reader_close(r);
        return st;
    }
    *out = r;
    return ATF_OK;
}

atf_status atf_detail_reader_open(atf_detail_reader **out, const char *path,
                                 const atf_read_options *opts, atf_error *err)
{
    atf_error_clear(err);
    if (!out || !path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    return open_source(out, path, NULL, 0, NULL, opts, err);
}

atf_status atf_detail_reader_open_memory(atf_detail_reader **out, const void *data, size_t size,
                                        const char *name, const atf_read_options *opts, atf_error *err)
{
    atf_error_clear(err);
    if (!out || (!data && size))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    return open_source(out, NULL, data, size, name, opts, err);
}

void atf_detail_reader_close(atf_detail_reader *r)
{
    if (!r)
        return;
    atf_blob_close(&r->blob);
    for (unsigned i = 0; i < r->ntab; i++)
        table_free(r->tab[i], r->tab_cap[i]);
    free(r->path);
    free(r);
}

const atf_detail_header *atf_detail_reader_header(const atf_detail_reader *r) { return &r->header; }
const atf_detail_footer *atf_detail_reader_footer(const atf_detail_reader *r)
{
    return r->info.has_footer ? &r->footer : NULL;
}
const atf_detail_info *atf_detail_reader_info(const atf_detail_reader *r) { return &r->info; }
uint64_t atf_detail_reader_count(const atf_detail_reader *r) { return r->info.event_count; }
const char *atf_detail_reader_path(const atf_detail_reader *r) { return r->path; }
const uint8_t *atf_detail_reader_bytes(const atf_detail_reader *r, size_t *size)
{
    if (size)
        *size = r->blob.size;
    return r->blob.data;
}

size_t atf_detail_info_describe(char *dst, size_t cap, const atf_detail_info *in)
{
    return atf_file_state_describe(dst, cap, in->state, in->header_truncated, in->file_size, in->event_count,
                              in->trailing_bytes);
}

/* The offset of event @seq (< event_count): in the segment that holds it. */
static inline uint64_t detail_offset(const atf_detail_reader *r, uint64_t seq)
{
    const detail_seg *g = r->seg;
    while (seq - g->first >= g->n)
        g++;
    return g->off[seq - g->first];
}

uint64_t atf_detail_reader_offset(const atf_detail_reader *r, uint64_t seq)
{
    return r && seq < r->info.event_count ? detail_offset(r, seq) : UINT64_MAX;
}

atf_status atf_detail_reader_get(const atf_detail_reader *r, uint64_t seq, atf_detail_event *ev)
{
    if (!r || !ev)
        return ATF_E_ARG;
    if (seq >= r->info.event_count)
        return ATF_E_RANGE;
    uint64_t off = detail_offset(r, seq);
    /* Already validated by the scan at open. */
    return atf_detail_event_decode(ev, r->blob.data + off, (size_t)(r->info.events_end - off),
                                   r->info.layout, NULL);
}

atf_status atf_detail_reader_follow(const atf_detail_reader *r, const atf_index_event *ev,
                                    atf_detail_event *out)
{
    if (!r || !ev || !out)
        return ATF_E_ARG;
    if (ev->detail_seq == ATF_NO_DETAIL)
        return ATF_E_NOT_FOUND;
    return atf_detail_reader_get(r, ev->detail_seq, out);
}
