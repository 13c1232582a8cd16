/* Detail file reader: header, footer location, a validating sequential scan
 * by total_length that builds the offset table once, then O(1) access. */
#include <stdlib.h>
#include <string.h>

#include <atf/crc32c.h>
#include <atf/reader.h>

#include "bytes.h"
#include "internal.h"

struct atf_detail_reader {
    atf_blob blob;
    char *path;
    atf_detail_header header;
    atf_detail_footer footer;
    atf_detail_info info;
    uint64_t *offsets;      /* file offset of each event */
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

static atf_status push_offset(atf_detail_reader *r, uint64_t *cap, uint64_t limit, uint64_t off)
{
    atf_detail_info *info = &r->info;
    if (info->event_count == *cap) {
        uint64_t ncap = *cap ? *cap * 2 : 64;
        if (ncap > limit)
            ncap = limit;
        if (ncap <= *cap || ncap > SIZE_MAX / sizeof(uint64_t))
            return ATF_E_LIMIT;
        uint64_t *n = realloc(r->offsets, (size_t)ncap * sizeof(uint64_t));
        if (!n)
            return ATF_E_NOMEM;
        r->offsets = n;
        *cap = ncap;
    }
    r->offsets[info->event_count++] = off;
    return ATF_OK;
}

/* Walks the events section by total_length. With a footer every byte must
 * parse; without one (crash recovery) the walk stops at the first event that
 * is incomplete or malformed and the rest is reported as trailing bytes. */
static atf_status scan(atf_detail_reader *r, uint64_t region_end, atf_error *err)
{
    atf_detail_info *info = &r->info;
    const uint8_t *d = r->blob.data;
    const int strict = info->has_footer;
    /* Every event takes at least 24 bytes: the table never outgrows the file. */
    const uint64_t limit = (region_end - r->header.events_offset) / ATF_DETAIL_EVENT_HEADER_SIZE + 1;
    uint64_t cap = 0, pos = r->header.events_offset, prev_ts = 0;
    atf_layout layout = info->layout;

    uint64_t ahead = pos;   /* prefetched up to here */
    while (pos < region_end) {
        /* Each event's place depends on the last one's length: a chain of
         * loads that the hardware prefetcher does not follow across pages. */
        if (ahead < pos + 2048 && ahead < region_end) {
            for (uint64_t a = ahead > pos ? ahead : pos; a < pos + 4096 && a < region_end; a += 64)
                __builtin_prefetch(d + a, 0, 0);
            ahead = pos + 4096;
        }
        atf_detail_event ev;
        atf_error e;   /* atf_fail() fills every field read below; no clearing per event */
        atf_status st = atf_detail_event_decode(&ev, d + pos, (size_t)(region_end - pos), layout, &e);
        if (st) {
            if (!strict)
                break;
            return atf_fail(err, st, pos + e.offset, e.field, "detail event %llu at offset %llu: %s",
                            (unsigned long long)info->event_count, (unsigned long long)pos, e.message);
        }
        st = push_offset(r, &cap, limit, pos);
        if (st)
            return atf_fail(err, st, pos, NULL, NULL);
        uint64_t seq = info->event_count - 1;
        if (seq == 0) {
            info->first_ts = ev.timestamp;
            info->min_index_seq = info->max_index_seq = ev.index_seq;
        } else if (ev.timestamp < prev_ts && info->backwards_count++ == 0) {
            info->first_backwards_seq = seq;
        }
        if (ev.index_seq < info->min_index_seq)
            info->min_index_seq = ev.index_seq;
        if (ev.index_seq > info->max_index_seq)
            info->max_index_seq = ev.index_seq;
        prev_ts = info->last_ts = ev.timestamp;
        pos += ev.total_length;
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
    /* The checksum in parts on other threads while this one walks the
     * events (which only go in order). */
    atf_crc_parts crc_job;
    int crc_running = info->has_footer && r->footer.checksum != 0 && opts->verify;
    if (crc_running) {
        uint64_t n = r->footer.bytes_length;
        atf_crc_parts_start(&crc_job, r->blob.data + h->events_offset, n,
                            atf_verify_parts(opts->threads, n, n ? n : 1));
    }
    st = scan(r, region_end, err);
    uint32_t crc = 0;
    info->verify_threads = 1;
    if (crc_running)
        crc = atf_crc_parts_finish(&crc_job, &info->verify_threads);
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
    free(r->offsets);
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

uint64_t atf_detail_reader_offset(const atf_detail_reader *r, uint64_t seq)
{
    return r && seq < r->info.event_count ? r->offsets[seq] : UINT64_MAX;
}

atf_status atf_detail_reader_get(const atf_detail_reader *r, uint64_t seq, atf_detail_event *ev)
{
    if (!r || !ev)
        return ATF_E_ARG;
    if (seq >= r->info.event_count)
        return ATF_E_RANGE;
    uint64_t off = r->offsets[seq];
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
