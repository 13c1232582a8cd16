/* Index file reader: header, footer location, crash recovery, checksum and
 * event scan at open; O(1) event access afterwards. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/crc32c.h>
#include <atf/reader.h>

#include "bytes.h"
#include "internal.h"

struct atf_index_reader {
    atf_blob blob;
    char *path;
    atf_index_header header;
    atf_index_footer footer;
    atf_index_info info;
    const uint8_t *events;
};

const char *atf_file_state_name(atf_file_state s)
{
    switch (s) {
    case ATF_FILE_COMPLETE: return "complete";
    case ATF_FILE_CRASH_TRUNCATED: return "crash-truncated";
    case ATF_FILE_DAMAGED: return "damaged";
    }
    return "unknown";
}

size_t atf_index_info_describe(char *dst, size_t cap, const atf_index_info *in)
{
    return atf_file_state_describe(dst, cap, in->state, in->header_truncated, in->file_size, in->event_count,
                              in->trailing_bytes);
}

const char *atf_checksum_state_name(atf_checksum_state s)
{
    switch (s) {
    case ATF_CHECKSUM_NO_FOOTER: return "no-footer";
    case ATF_CHECKSUM_ZERO: return "unchecked";
    case ATF_CHECKSUM_NOT_VERIFIED: return "not-verified";
    case ATF_CHECKSUM_CRC32C: return "crc32c";
    case ATF_CHECKSUM_CRC32_IEEE: return "crc32-ieee";
    case ATF_CHECKSUM_MISMATCH: return "mismatch";
    }
    return "unknown";
}

/* Hot loop over a chunk of well-formed events: counts links and tracks the
 * largest link + 1 (so that ATF_NO_DETAIL, which wraps to 0, never counts).
 * Returns non-zero if any event breaks a rule (bad kind, non-zero reserved
 * bytes, timestamp going backwards); that rare chunk is then rescanned by
 * slow_chunk(), which counts exactly. */
static uint64_t fast_chunk(const uint8_t *p, uint64_t n, atf_layout layout, uint64_t prev,
                           uint64_t *linked, uint64_t *max_link1)
{
    uint64_t anomaly = 0, lk = 0, mx = *max_link1;
    if (layout == ATF_LAYOUT_2) {
        for (uint64_t i = 0; i < n; i++, p += ATF_INDEX_EVENT_SIZE) {
            uint64_t ts = atf_load_le64(p), d1 = atf_load_le64(p + 16) + 1u, w = atf_load_le64(p + 24);
            /* w = event_kind | reserved << 8: valid iff it is 1, 2 or 3. */
            anomaly |= (uint64_t)(w - 1u > 2u) | (uint64_t)(ts < prev);
            prev = ts;
            lk += d1 != 0;
            mx = d1 > mx ? d1 : mx;
        }
    } else {
        for (uint64_t i = 0; i < n; i++, p += ATF_INDEX_EVENT_SIZE) {
            uint64_t ts = atf_load_le64(p);
            uint32_t kind = atf_load_le32(p + 20), d1 = atf_load_le32(p + 28) + 1u;
            anomaly |= (uint64_t)(kind - 1u > 2u) | (uint64_t)(ts < prev);
            prev = ts;
            lk += d1 != 0;
            mx = d1 > mx ? d1 : mx;
        }
    }
    *linked = lk;
    *max_link1 = mx;
    return anomaly;
}

/* Exact scan of events [base, base + n): counts, first offenders, min/max. */
static void slow_chunk(const uint8_t *ev, uint64_t base, uint64_t n, atf_layout layout, atf_index_scan *s,
                       uint64_t *prev, uint64_t *max_link1)
{
    for (uint64_t seq = base; seq < base + n; seq++) {
        atf_index_event e;
        atf_index_event_decode(&e, ev + seq * ATF_INDEX_EVENT_SIZE, ATF_INDEX_EVENT_SIZE, layout);
        if ((e.event_kind < ATF_EVENT_CALL || e.event_kind > ATF_EVENT_EXCEPTION) && s->bad_kind_count++ == 0)
            s->first_bad_kind_seq = seq;
        if (e.reserved_nonzero && s->reserved_nonzero_count++ == 0)
            s->first_reserved_nonzero_seq = seq;
        if (e.timestamp_ns < *prev && s->backwards_count++ == 0)
            s->first_backwards_seq = seq;
        *prev = e.timestamp_ns;
        s->min_ts = e.timestamp_ns < s->min_ts ? e.timestamp_ns : s->min_ts;
        s->max_ts = e.timestamp_ns > s->max_ts ? e.timestamp_ns : s->max_ts;
        if (e.detail_seq != ATF_NO_DETAIL) {
            s->linked_count++;
            if (e.detail_seq + 1 > *max_link1)
                *max_link1 = e.detail_seq + 1;
        }
    }
}

/* Verification of events [first, first + count): CRC32-C from 0 (if
 * wanted) and the event scan, in one pass, chunk by chunk so that both work
 * on cache-resident data. */
typedef struct scan_part {
    const uint8_t *ev; /* the whole events section */
    uint64_t first, count;
    atf_layout layout;
    int want_crc, want_scan;
    uint32_t crc;
    atf_index_scan s;
    uint64_t max_link1; /* largest detail link + 1 */
} scan_part;

static void scan_part_run(void *arg)
{
    scan_part *sp = arg;
    enum { CHUNK_EVENTS = 8192 }; /* 256 KiB: the CRC brings it into L2, the scan reads it there */
    const uint8_t *ev = sp->ev;
    atf_index_scan *s = &sp->s;
    uint32_t crc = 0;
    /* The event before the part, so that a step back across the seam counts. */
    uint64_t prev = sp->count ? atf_load_le64(ev + (sp->first ? sp->first - 1 : 0) * ATF_INDEX_EVENT_SIZE) : 0;
    uint64_t max_link1 = 0, end = sp->first + sp->count;
    memset(s, 0, sizeof *s);
    s->min_ts = UINT64_MAX;
    for (uint64_t base = sp->first; base < end; base += CHUNK_EVENTS) {
        uint64_t n = end - base < CHUNK_EVENTS ? end - base : CHUNK_EVENTS;
        const uint8_t *p = ev + base * ATF_INDEX_EVENT_SIZE;
        if (sp->want_crc)
            crc = atf_crc32c(crc, p, (size_t)n * ATF_INDEX_EVENT_SIZE);
        if (!sp->want_scan)
            continue;
        uint64_t linked = 0, mx = max_link1;
        if (fast_chunk(p, n, sp->layout, prev, &linked, &mx) == 0) {
            /* Timestamps never fall inside this chunk: min/max are its ends. */
            uint64_t first = atf_load_le64(p), last = atf_load_le64(p + (n - 1) * ATF_INDEX_EVENT_SIZE);
            s->min_ts = first < s->min_ts ? first : s->min_ts;
            s->max_ts = last > s->max_ts ? last : s->max_ts;
            s->linked_count += linked;
            max_link1 = mx;
            prev = last;
        } else {
            slow_chunk(ev, base, n, sp->layout, s, &prev, &max_link1);
        }
    }
    sp->crc = crc;
    sp->max_link1 = max_link1;
}

/* A count of offenders and the first one's seq, followed by another's. */
static void join_count(uint64_t *count, uint64_t *first, uint64_t more, uint64_t more_first)
{
    if (more && !*count)
        *first = more_first;
    *count += more;
}

/* Adds part q (the events right after those of acc) to acc. */
static void scan_part_join(scan_part *acc, const scan_part *q)
{
    atf_index_scan *s = &acc->s;
    const atf_index_scan *t = &q->s;
    acc->crc = atf_crc32c_combine(acc->crc, q->crc, q->count * ATF_INDEX_EVENT_SIZE);
    join_count(&s->bad_kind_count, &s->first_bad_kind_seq, t->bad_kind_count, t->first_bad_kind_seq);
    join_count(&s->reserved_nonzero_count, &s->first_reserved_nonzero_seq, t->reserved_nonzero_count,
               t->first_reserved_nonzero_seq);
    join_count(&s->backwards_count, &s->first_backwards_seq, t->backwards_count, t->first_backwards_seq);
    s->linked_count += t->linked_count;
    s->min_ts = t->min_ts < s->min_ts ? t->min_ts : s->min_ts;
    s->max_ts = t->max_ts > s->max_ts ? t->max_ts : s->max_ts;
    acc->max_link1 = q->max_link1 > acc->max_link1 ? q->max_link1 : acc->max_link1;
}

/* The events section verified in up to @threads parts side by side (the
 * calling thread takes the first); a thread that cannot start leaves its
 * part to the calling thread. The result is the same for any split. */
static uint32_t scan_events(const uint8_t *ev, uint64_t count, atf_layout layout, int want_crc,
                            int want_scan, unsigned *threads, atf_index_scan *s)
{
    scan_part parts[ATF_VERIFY_PARTS_MAX];
    unsigned np = atf_part_count(*threads, count * ATF_INDEX_EVENT_SIZE, count, ATF_VERIFY_PARTS_MAX);
    for (unsigned i = 0; i < np; i++) {
        uint64_t a = count * i / np, b = count * (i + 1) / np;
        parts[i] = (scan_part){.ev = ev, .first = a, .count = b - a, .layout = layout, .want_crc = want_crc,
                               .want_scan = want_scan};
    }
    *threads = atf_parts_run(parts, sizeof parts[0], np, scan_part_run);
    for (unsigned i = 1; i < np; i++)
        scan_part_join(&parts[0], &parts[i]);
    *s = parts[0].s;
    if (want_scan) {
        s->max_detail_seq = parts[0].max_link1 ? parts[0].max_link1 - 1 : 0;
        if (count) {
            s->first_ts = atf_load_le64(ev);
            s->last_ts = atf_load_le64(ev + (count - 1) * ATF_INDEX_EVENT_SIZE);
        } else {
            s->min_ts = 0;
        }
    } else {
        memset(s, 0, sizeof *s);
    }
    return parts[0].crc;
}

static int find_end_footer(atf_index_reader *r, uint64_t *region_end);

/* Looks for a footer: at header.footer_offset when the header was finalized,
 * else at the end of the file when it lines up with the events. */
static int find_footer(atf_index_reader *r, uint64_t *region_end)
{
    const atf_index_header *h = &r->header;
    const uint8_t *d = r->blob.data;
    uint64_t size = r->blob.size;
    atf_index_footer f;

    *region_end = size;
    if (r->info.header_finalized) {
        if (h->footer_offset >= h->events_offset && h->footer_offset < size)
            *region_end = h->footer_offset;
        if (h->footer_offset >= h->events_offset && atf_fits(h->footer_offset, ATF_INDEX_FOOTER_SIZE, size) &&
            atf_index_footer_decode(&f, d + h->footer_offset, ATF_INDEX_FOOTER_SIZE, NULL) == ATF_OK) {
            r->footer = f;
            r->info.footer_offset = h->footer_offset;
            return 1;
        }
        /* Not where the header says (a wrong footer_offset, or a header
         * rewrite cut short): a footer that lines up with the events at the
         * end of the file is still the footer (SPEC 6). */
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

/* The footer of a placeholder header: the last 64 bytes, when their magic
 * and bytes_written agree with the events before them. */
static int find_end_footer(atf_index_reader *r, uint64_t *region_end)
{
    const atf_index_header *h = &r->header;
    const uint8_t *d = r->blob.data;
    uint64_t size = r->blob.size;
    atf_index_footer f;
    if (size < h->events_offset + ATF_INDEX_FOOTER_SIZE)
        return 0;
    uint64_t at = size - ATF_INDEX_FOOTER_SIZE;
    if ((at - h->events_offset) % ATF_INDEX_EVENT_SIZE != 0)
        return 0;
    if (atf_index_footer_decode(&f, d + at, ATF_INDEX_FOOTER_SIZE, NULL) != ATF_OK)
        return 0;
    if (f.bytes_written != at - h->events_offset)
        return 0; /* magic-like bytes in event data, not a footer */
    r->footer = f;
    r->info.footer_offset = at;
    *region_end = at;
    return 1;
}

static atf_status open_common(atf_index_reader *r, const atf_read_options *opts, atf_error *err)
{
    atf_read_options defaults = ATF_READ_OPTIONS_INIT;
    if (!opts)
        opts = &defaults;
    const uint64_t size = r->blob.size;
    atf_index_header *h = &r->header;
    atf_index_info *info = &r->info;

    info->file_size = size;
    if (atf_header_prefix_ok(r->blob.data, r->blob.size, ATF_INDEX_MAGIC)) {
        /* Killed before the first flush, or inside the header write. */
        ATF_OPEN_CUT_HEADER(h, info, r->blob.data, size, ATF_INDEX_HEADER_SIZE);
        r->events = r->blob.data;
        return ATF_OK;
    }
    atf_status st = atf_index_header_decode(h, r->blob.data, r->blob.size, err);
    if (st)
        return st;
    if (h->events_offset > size)
        return atf_fail(err, ATF_E_OFFSET, 32, "events_offset",
                        "events_offset is %llu, beyond the end of the %llu-byte file",
                        (unsigned long long)h->events_offset, (unsigned long long)size);
    info->layout = (atf_layout)h->version;
    info->header_finalized = !atf_index_header_is_placeholder(h);
    r->events = r->blob.data + h->events_offset;

    uint64_t region_end;
    info->has_footer = find_footer(r, &region_end);
    info->state = info->has_footer ? ATF_FILE_COMPLETE
                  : info->header_finalized ? ATF_FILE_DAMAGED : ATF_FILE_CRASH_TRUNCATED;
    uint64_t room = region_end - h->events_offset;
    if (info->has_footer) {
        if (r->footer.event_count > room / ATF_INDEX_EVENT_SIZE)
            return atf_fail(err, ATF_E_COUNT, info->footer_offset + 8, "footer.event_count",
                            "footer claims %llu events, the file holds at most %llu",
                            (unsigned long long)r->footer.event_count,
                            (unsigned long long)(room / ATF_INDEX_EVENT_SIZE));
        info->event_count = r->footer.event_count;
    } else {
        info->recovered = 1;
        info->event_count = room / ATF_INDEX_EVENT_SIZE;
        /* SPEC 7a.6: trailing all-zero records are a filesystem's zero fill
         * after a crash, not events (no valid event is all zeros). Records
         * that start in a hole past the file's data are zeros without being
         * read: the work does not grow with a sparse tail. */
        uint64_t data_end = r->blob.data_end < size ? r->blob.data_end : size;
        if (data_end < h->events_offset + info->event_count * ATF_INDEX_EVENT_SIZE)
            info->event_count = data_end <= h->events_offset
                                    ? 0 : (data_end - h->events_offset + ATF_INDEX_EVENT_SIZE - 1) / ATF_INDEX_EVENT_SIZE;
        while (info->event_count > 0 &&
               atf_all_zero(r->events + (info->event_count - 1) * ATF_INDEX_EVENT_SIZE, ATF_INDEX_EVENT_SIZE))
            info->event_count--;
        /* A finalize torn inside the footer (placeholder header, 32..63 footer
         * bytes) leaves the footer's first half where one more event would be:
         * it starts with the footer magic and the count of events before it.
         * A finalized header bounds the events by footer_offset, so there the
         * last record is an event whatever it holds. */
        if (info->event_count > 0 && !info->header_finalized) {
            const uint8_t *last = r->events + (info->event_count - 1) * ATF_INDEX_EVENT_SIZE;
            if (memcmp(last, ATF_INDEX_FOOTER_MAGIC, 4) == 0 &&
                atf_load_le64(last + 8) == info->event_count - 1)
                info->event_count--;
        }
    }
    info->events_end = h->events_offset + info->event_count * ATF_INDEX_EVENT_SIZE;
    /* Every byte that is neither header, event nor footer is reported. */
    info->trailing_bytes = info->has_footer
        ? (info->footer_offset - info->events_end) + (size - info->footer_offset - ATF_INDEX_FOOTER_SIZE)
        : size - info->events_end;

    int want_crc = info->has_footer && r->footer.checksum != 0 && opts->verify;
    if (!info->has_footer)
        info->checksum = ATF_CHECKSUM_NO_FOOTER;
    else if (r->footer.checksum == 0)
        info->checksum = ATF_CHECKSUM_ZERO;
    else
        info->checksum = ATF_CHECKSUM_NOT_VERIFIED;
    if (want_crc || opts->verify) {
        info->verify_threads = opts->threads;
        uint32_t crc = scan_events(r->events, info->event_count, info->layout, want_crc,
                                   opts->verify != 0, &info->verify_threads, &info->scan);
        info->scanned = opts->verify != 0;
        if (want_crc) {
            if (crc == r->footer.checksum) {
                info->checksum = ATF_CHECKSUM_CRC32C;
            } else if (info->layout == ATF_LAYOUT_1 &&
                       atf_crc32_ieee(0, r->events, (size_t)(info->event_count * ATF_INDEX_EVENT_SIZE)) ==
                           r->footer.checksum) {
                info->checksum = ATF_CHECKSUM_CRC32_IEEE;
            } else {
                info->checksum = ATF_CHECKSUM_MISMATCH;
                return atf_fail(err, ATF_E_CHECKSUM, info->footer_offset + 4, "footer.checksum",
                                "footer checksum 0x%08x does not match the events (CRC32-C 0x%08x%s)",
                                r->footer.checksum, crc,
                                info->layout == ATF_LAYOUT_1 ? ", nor CRC32/IEEE" : "");
            }
        }
    }
    return ATF_OK;
}

/* A reader of the file at path, or (path NULL) of the caller's memory. */
static atf_status open_source(atf_index_reader **out, const char *path, const void *data, size_t size,
                              const char *name, const atf_read_options *opts, atf_error *err)
{
    *out = NULL;
    atf_index_reader *r = calloc(1, sizeof *r);
    if (!r)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    atf_status st = atf_blob_open_named(&r->blob, &r->path, path, data, size, name, opts && opts->no_mmap, err);
    if (!st) {
        st = open_common(r, opts, err);
        if (st)
            atf_error_set_file(err, r->path);
    }
    if (st) {
        atf_index_reader_close(r);
        return st;
    }
    *out = r;
    return ATF_OK;
}

atf_status atf_index_reader_open(atf_index_reader **out, const char *path,
                                 const atf_read_options *opts, atf_error *err)
{
    atf_error_clear(err);
    if (!out || !path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    return open_source(out, path, NULL, 0, NULL, opts, err);
}

atf_status atf_index_reader_open_memory(atf_index_reader **out, const void *data, size_t size,
                                        const char *name, const atf_read_options *opts, atf_error *err)
{
    atf_error_clear(err);
    if (!out || (!data && size))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    return open_source(out, NULL, data, size, name, opts, err);
}

void atf_index_reader_close(atf_index_reader *r)
{
    if (!r)
        return;
    atf_blob_close(&r->blob);
    free(r->path);
    free(r);
}

const atf_index_header *atf_index_reader_header(const atf_index_reader *r) { return &r->header; }
const atf_index_footer *atf_index_reader_footer(const atf_index_reader *r)
{
    return r->info.has_footer ? &r->footer : NULL;
}
const atf_index_info *atf_index_reader_info(const atf_index_reader *r) { return &r->info; }
uint64_t atf_index_reader_count(const atf_index_reader *r) { return r->info.event_count; }
const char *atf_index_reader_path(const atf_index_reader *r) { return r->path; }
const uint8_t *atf_index_reader_bytes(const atf_index_reader *r, size_t *size)
{
    if (size)
        *size = r->blob.size;
    return r->blob.data;
}

atf_status atf_index_reader_get(const atf_index_reader *r, uint64_t seq, atf_index_event *ev)
{
    if (!r || !ev)
        return ATF_E_ARG;
    if (seq >= r->info.event_count)
        return ATF_E_RANGE;
    return atf_index_event_decode(ev, r->events + seq * ATF_INDEX_EVENT_SIZE, ATF_INDEX_EVENT_SIZE,
                                  r->info.layout);
}

static uint64_t lower_bound_ts(const atf_index_reader *r, uint64_t t, int strictly_greater)
{
    uint64_t lo = 0, hi = r->info.event_count;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        uint64_t ts = atf_load_le64(r->events + mid * ATF_INDEX_EVENT_SIZE);
        if (strictly_greater ? ts <= t : ts < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

atf_status atf_index_reader_time_range(const atf_index_reader *r, uint64_t t0, uint64_t t1,
                                       uint64_t *first, uint64_t *last_excl)
{
    if (!r || !first || !last_excl)
        return ATF_E_ARG;
    if (t1 < t0) {
        *first = *last_excl = 0;
        return ATF_OK;
    }
    *first = lower_bound_ts(r, t0, 0);
    *last_excl = lower_bound_ts(r, t1, 1);
    if (*last_excl < *first)
        *last_excl = *first;
    return ATF_OK;
}

atf_status atf_index_reader_follow(const atf_index_reader *r, const atf_detail_event *dev,
                                   atf_index_event *out)
{
    if (!r || !dev || !out)
        return ATF_E_ARG;
    return atf_index_reader_get(r, dev->index_seq, out);
}
