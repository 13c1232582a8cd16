/* Target index_roundtrip: structure-aware writer -> reader round trip of
 * index files, both layouts.
 *
 * Input bytes are a little program for atf_index_writer: append an event
 * built from the bytes (values at the edges of each field's range), append
 * raw 32-byte records with append_encoded, flush. Writer options (layout,
 * checksum, buffer size, header identity) and what happens at the end
 * (finalize, or a crash: the file as it is after the last flush) come from
 * the end of the input.
 * Properties:
 *  - the writer accepts exactly the values its layout can hold (layout 1:
 *    detail_seq < 2^32-1 or none; layout 2: event_kind <= 255);
 *  - the reader gives back every accepted event, the header identity, the
 *    counts, time range and bytes_written, and a verified CRC32-C;
 *  - a crash-truncated copy cut at any byte recovers exactly the complete
 *    events before the cut (less trailing all-zero records: SPEC 7a.6); a crash without finalize leaves a header and
 *    whole events (at least those flushed), and they are all recovered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/crc32c.h>
#include <atf/writer.h>

#include "fuzz_atf.h"

#define MAX_EVENTS 2048

static uint64_t edgy64(fz_stream *s)
{
    uint8_t sel = fz_next_u8(s);
    switch (sel % 8) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return UINT32_MAX;
    case 3: return (uint64_t)UINT32_MAX - 1;
    case 4: return sel >> 3;
    default: return fz_next_u64(s);
    }
}

static void check_event(const atf_index_event *got, const atf_index_event *want, atf_layout layout, uint64_t seq)
{
    FZ_CHECK(got->timestamp_ns == want->timestamp_ns && got->function_id == want->function_id &&
                 got->detail_seq == want->detail_seq && got->event_kind == want->event_kind,
             "event %llu differs after the round trip", (unsigned long long)seq);
    if (layout == ATF_LAYOUT_1)
        FZ_CHECK(got->thread_id == want->thread_id && got->call_depth == want->call_depth,
                 "event %llu: layout-1 fields differ", (unsigned long long)seq);
    else
        FZ_CHECK(got->thread_id == 0 && got->call_depth == 0, "layout-2 event with layout-1 fields");
}

/* The event a raw record decodes to, by the byte tables (not the codec). */
static atf_index_event decode_raw(const uint8_t *r, atf_layout layout)
{
    atf_index_event e = { 0 };
    e.timestamp_ns = fz_le64(r);
    e.function_id = fz_le64(r + 8);
    if (layout == ATF_LAYOUT_1) {
        e.thread_id = fz_le32(r + 16);
        e.event_kind = fz_le32(r + 20);
        e.call_depth = fz_le32(r + 24);
        e.detail_seq = fz_le32(r + 28) == UINT32_MAX ? ATF_NO_DETAIL : fz_le32(r + 28);
    } else {
        e.detail_seq = fz_le64(r + 16);
        e.event_kind = r[24];
    }
    return e;
}

static atf_index_reader *open_bytes(const uint8_t *b, size_t n, atf_status *st)
{
    atf_index_reader *r = NULL;
    atf_error err;
    *st = atf_index_reader_open_memory(&r, b, n, "roundtrip.index.atf", NULL, &err);
    return r;
}

/* What the program wrote: the writer, its options, every event accepted. */
typedef struct program {
    atf_writer_options wo;
    atf_index_writer *w;
    atf_index_event *want;
    uint64_t n, flushed;
} program;

/* One appended event built from the stream (op picks what is left at the
 * edges); kept when its layout holds it. */
static void append_event(program *g, fz_stream *in, uint8_t op)
{
    atf_index_event ev = { 0 };
    ev.timestamp_ns = (op & 2) && g->n ? g->want[g->n - 1].timestamp_ns + (op >> 4) : edgy64(in);
    ev.function_id = edgy64(in);
    ev.detail_seq = op & 4 ? ATF_NO_DETAIL : edgy64(in);
    ev.event_kind = op & 8 ? 1u + fz_next_u8(in) % 3u : (uint32_t)edgy64(in);
    ev.thread_id = (uint32_t)edgy64(in);
    ev.call_depth = fz_next_u8(in);
    int fits = g->wo.layout == ATF_LAYOUT_1 ? ev.detail_seq == ATF_NO_DETAIL || ev.detail_seq < UINT32_MAX
                                            : ev.event_kind <= UINT8_MAX;
    atf_status st = atf_index_writer_append(g->w, &ev);
    FZ_CHECK(st == (fits ? ATF_OK : ATF_E_FIELD), "append returned %s for an event that %s", atf_status_name(st),
             fits ? "fits" : "does not fit");
    if (!fits)
        return;
    if (g->wo.layout == ATF_LAYOUT_2)
        ev.thread_id = ev.call_depth = 0;
    g->want[g->n++] = ev;
}

/* One operation of the program: a flush, raw records, or an event. */
static void run_op(program *g, fz_stream *in)
{
    uint8_t op = fz_next_u8(in);
    if (op % 16 == 0) {
        FZ_CHECK(atf_index_writer_flush(g->w) == ATF_OK, "flush");
        g->flushed = g->n;
    } else if (op % 16 == 1) {
        uint8_t raw[4 * ATF_INDEX_EVENT_SIZE] = { 0 };
        size_t k = 1 + (op >> 4) % 4;
        if (k > MAX_EVENTS - g->n)
            k = MAX_EVENTS - g->n;
        fz_next_bytes(in, raw, k * ATF_INDEX_EVENT_SIZE);
        FZ_CHECK(atf_index_writer_append_encoded(g->w, raw, k) == ATF_OK, "append_encoded");
        for (size_t i = 0; i < k; i++)
            g->want[g->n++] = decode_raw(raw + i * ATF_INDEX_EVENT_SIZE, g->wo.layout);
    } else {
        append_event(g, in, op);
    }
    FZ_CHECK(atf_index_writer_count(g->w) == g->n, "writer count");
}

/* What a crash leaves: the placeholder header and the flushed events; the
 * reader recovers them all. */
static void check_crashed(program *g, const char *path)
{
    size_t size_on_disk;
    atf_status st;
    uint8_t *file = fz_read_file(path, &size_on_disk);
    /* At least what was flushed, at most what was appended, whole events
     * only (the buffer may have been pushed out on its own). */
    FZ_CHECK(file && size_on_disk >= 64 + g->flushed * 32 && size_on_disk <= 64 + g->n * 32 &&
                 (size_on_disk - 64) % 32 == 0,
             "unfinalized file is %zu bytes, %llu events flushed, %llu appended", size_on_disk,
             (unsigned long long)g->flushed, (unsigned long long)g->n);
    uint64_t flushed = (size_on_disk - 64) / 32;
    atf_index_reader *r = open_bytes(file, size_on_disk, &st);
    /* The last two events can spell a footer (magic, and the byte count
     * of the events before them: SPEC section 6 for placeholder headers).
     * Event data cannot be told from a footer then; the reader must do
     * what the rules say, as the independent model computes it. */
    fz_model m = fz_index_model(file, size_on_disk, 1);
    if (m.has_footer) {
        FZ_CHECK(st == m.status && (st != ATF_OK || atf_index_reader_info(r)->event_count == m.event_count),
                 "events that look like a footer: open returned %s, the rules say %s", atf_status_name(st),
                 atf_status_name(m.status));
    } else {
        FZ_CHECK(st == ATF_OK, "crash-truncated file does not open: %s", atf_status_name(st));
        const atf_index_info *info = atf_index_reader_info(r);
        uint64_t expect = flushed;
        /* SPEC 7a.6: all-zero records at the end read as a zero fill; REC-003:
         * a last event that looks like half a footer cannot be told apart. */
        while (expect && fz_all_zero(file + 64 + (expect - 1) * 32, 32))
            expect--;
        if (expect && fz_is_torn_footer(file + 64 + (expect - 1) * 32, expect - 1))
            expect--;
        FZ_CHECK(info->recovered && !info->header_finalized && info->event_count == expect,
                 "recovered %llu events, %llu were flushed", (unsigned long long)info->event_count,
                 (unsigned long long)flushed);
        for (uint64_t i = 0; i < expect; i++) {
            atf_index_event e;
            atf_index_reader_get(r, i, &e);
            check_event(&e, &g->want[i], g->wo.layout, i);
        }
    }
    atf_index_reader_close(r);
    free(file);
    atf_index_writer_close(g->w);
}

/* The finalized file: header, footer, info, CRC and every event carry what
 * was written (t0, t1: the writer's time range). */
static void check_finalized(const program *g, atf_index_reader *r, int has_detail, uint64_t t0, uint64_t t1)
{
    const uint64_t n = g->n;
    const atf_writer_options *wo = &g->wo;
    const atf_index_header *h = atf_index_reader_header(r);
    const atf_index_footer *f = atf_index_reader_footer(r);
    const atf_index_info *info = atf_index_reader_info(r);
    FZ_CHECK(h->version == wo->layout && h->arch == wo->arch && h->os == wo->os && h->clock_type == wo->clock_type &&
                 h->thread_id == wo->thread_id && h->flags == (has_detail ? 1u : 0u),
             "header identity");
    FZ_CHECK(h->event_count == n && h->events_offset == 64 && h->footer_offset == 64 + n * 32 &&
                 h->time_start_ns == t0 && h->time_end_ns == t1 && !h->reserved_nonzero,
             "header counts");
    FZ_CHECK(f && f->event_count == n && f->bytes_written == n * 32 && f->time_start_ns == t0 &&
                 f->time_end_ns == t1 && !f->reserved_nonzero,
             "footer");
    FZ_CHECK(info->has_footer && !info->recovered && info->trailing_bytes == 0 && info->event_count == n &&
                 info->file_size == 128 + n * 32,
             "info");
    size_t fsize;
    const uint8_t *bytes = atf_index_reader_bytes(r, &fsize);
    uint32_t crc = atf_crc32c_portable(0, bytes + 64, (size_t)n * 32);
    FZ_CHECK(f->checksum == (wo->checksum ? crc : 0), "footer checksum 0x%08x, CRC32-C 0x%08x", f->checksum, crc);
    FZ_CHECK(info->checksum == (f->checksum ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO), "checksum state %s",
             atf_checksum_state_name(info->checksum));
    for (uint64_t i = 0; i < n; i++) {
        atf_index_event e;
        FZ_CHECK(atf_index_reader_get(r, i, &e) == ATF_OK, "get");
        check_event(&e, &g->want[i], wo->layout, i);
    }
}

/* Cut anywhere: exactly the complete events before the cut. */
static void check_cut(uint64_t n, const uint8_t *bytes, size_t fsize, size_t cut_param)
{
    atf_status st;
    size_t cut = cut_param % (fsize + 1);
    uint8_t *prefix = malloc(cut ? cut : 1);
    FZ_CHECK(prefix != NULL, "oom");
    memcpy(prefix, bytes, cut);
    atf_index_reader *rc = open_bytes(prefix, cut, &st);
    if (cut < 64) {
        /* SPEC 7a.12: cut inside its header, a file is crash-truncated with
         * 0 events (the bytes there are a header's start). */
        FZ_CHECK(st == ATF_OK, "a %zu-byte prefix does not open: %s", cut, atf_status_name(st));
        const atf_index_info *ci = atf_index_reader_info(rc);
        FZ_CHECK(ci->header_truncated && ci->state == ATF_FILE_CRASH_TRUNCATED && atf_index_reader_count(rc) == 0 &&
                     ci->trailing_bytes == cut,
                 "a %zu-byte prefix: header_truncated %d, state %s, %llu events, %llu trailing bytes", cut,
                 ci->header_truncated, atf_file_state_name(ci->state),
                 (unsigned long long)atf_index_reader_count(rc), (unsigned long long)ci->trailing_bytes);
    } else if (cut == fsize) {
        FZ_CHECK(st == ATF_OK && atf_index_reader_count(rc) == n, "whole file");
    } else if (fz_index_model(prefix, cut, 1).has_footer) {
        /* The cut left, as its last 64 bytes, events that read as a footer
         * (its magic and a byte count that lines up: SPEC 6), which raw
         * events (append_encoded) can hold: the reader takes it for the
         * footer, as the rules do. */
        fz_model m = fz_index_model(prefix, cut, 1);
        FZ_CHECK(st == m.status, "prefix of %zu bytes ending in a footer look-alike: %s, the rules say %s", cut,
                 atf_status_name(st), atf_status_name(m.status));
    } else {
        uint64_t end = cut < 64 + n * 32 ? cut : 64 + n * 32;
        uint64_t expect = (end - 64) / 32;
        while (expect && fz_all_zero(bytes + 64 + (expect - 1) * 32, 32))
            expect--; /* SPEC 7a.6: a zero fill, not events */
        FZ_CHECK(st == ATF_OK, "prefix of %zu bytes does not open: %s", cut, atf_status_name(st));
        FZ_CHECK(atf_index_reader_count(rc) == expect, "prefix of %zu bytes: %llu events recovered, %llu complete",
                 cut, (unsigned long long)atf_index_reader_count(rc), (unsigned long long)expect);
        FZ_CHECK(atf_index_reader_info(rc)->trailing_bytes == cut - (64 + expect * 32), "trailing bytes");
    }
    atf_index_reader_close(rc);
    free(prefix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    program g = { .wo = ATF_WRITER_OPTIONS_INIT };
    g.wo.layout = fz_bool(&p) ? ATF_LAYOUT_1 : ATF_LAYOUT_2;
    g.wo.checksum = fz_u8(&p) % 4 != 0;
    g.wo.arch = fz_u8(&p);
    g.wo.os = fz_u8(&p);
    g.wo.clock_type = fz_u8(&p);
    g.wo.thread_id = fz_u32(&p);
    g.wo.buffer_size = fz_bool(&p) ? 0 : (size_t)fz_range(&p, 1, 9000);
    int has_detail = fz_bool(&p), crash = fz_u8(&p) % 4 == 0, no_mmap = fz_bool(&p);
    size_t cut_param = (size_t)fz_u32(&p);
    /* The program is the part of the input before the parameters used. */
    fz_stream in = { data, p.left, 0 };

    const char *dir = fz_fresh_dir("index_rt");
    char path[700];
    snprintf(path, sizeof path, "%s/index.atf", dir);
    atf_error err;
    FZ_CHECK(atf_index_writer_open(&g.w, path, &g.wo, &err) == ATF_OK, "open writer: %s", err.message);
    atf_index_writer_set_has_detail(g.w, has_detail);

    g.want = malloc(MAX_EVENTS * sizeof *g.want);
    FZ_CHECK(g.want != NULL, "oom");
    while (fz_stream_left(&in) > 0 && g.n < MAX_EVENTS)
        run_op(&g, &in);
    uint64_t t0 = 0, t1 = 0, n = g.n;
    FZ_CHECK(atf_index_writer_time_range(g.w, &t0, &t1) == (n > 0) &&
                 (!n || (t0 == g.want[0].timestamp_ns && t1 == g.want[n - 1].timestamp_ns)),
             "writer time range");
    if (crash) {
        check_crashed(&g, path);
        free(g.want);
        return 0;
    }
    FZ_CHECK(atf_index_writer_finalize(g.w, 0, &err) == ATF_OK, "finalize: %s", err.message);
    FZ_CHECK(atf_index_writer_finalize(g.w, 0, &err) == ATF_OK, "second finalize");
    atf_index_event late = { 0 };
    FZ_CHECK(atf_index_writer_append(g.w, &late) == ATF_E_STATE, "append after finalize");
    FZ_CHECK(atf_index_writer_close(g.w) == ATF_OK, "close");

    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.no_mmap = no_mmap;
    atf_index_reader *r;
    FZ_CHECK(atf_index_reader_open(&r, path, &ro, &err) == ATF_OK, "written file does not open: %s", err.message);
    check_finalized(&g, r, has_detail, t0, t1);
    size_t fsize;
    const uint8_t *bytes = atf_index_reader_bytes(r, &fsize);
    fz_check_index_reader(r, bytes, fsize, &p);
    check_cut(n, bytes, fsize, cut_param);
    atf_index_reader_close(r);
    free(g.want);
    return 0;
}
