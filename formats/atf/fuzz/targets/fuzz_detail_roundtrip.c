/* Target detail_roundtrip: structure-aware writer -> reader round trip of
 * detail files, both layouts, with ARM64 function payloads and opaque ones.
 *
 * Input bytes are a little program for atf_detail_writer: append an event
 * whose header fields come from the bytes and whose payload is either an
 * ARM64 function payload (registers, stack_size <= 256, stack) or raw
 * bytes; flush. Writer options and the ending (finalize or crash) come from
 * the end of the input.
 * Properties:
 *  - the writer accepts exactly what the layout can hold (layout 1:
 *    index_seq <= 2^32-1) and numbers events 0, 1, 2, ...;
 *  - the reader gives back every event (header fields, payload bytes,
 *    offsets chained by total_length), ARM64 payloads decode to the values
 *    that were encoded, header and footer carry the counts, length,
 *    index_seq range, time range and a verified CRC32-C;
 *  - a copy cut at any byte recovers exactly the events that end before the
 *    cut; a crash without finalize leaves a header and a prefix of the
 *    events (at least those flushed), and every complete one is recovered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/crc32c.h>
#include <atf/writer.h>

#include "fuzz_atf.h"

#define MAX_EVENTS 512

typedef struct want_event {
    atf_detail_event ev;      /* payload points into payloads */
    size_t payload_off;
    uint64_t offset;          /* in the file */
    int arm64;
    atf_arm64_payload a;      /* stack points into payloads */
} want_event;

static uint64_t edgy64(fz_stream *s)
{
    uint8_t sel = fz_next_u8(s);
    switch (sel % 6) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return UINT32_MAX;
    case 3: return (uint64_t)UINT32_MAX + 1;
    case 4: return sel >> 3;
    default: return fz_next_u64(s);
    }
}

/* What the program wrote: the writer, its options, every event accepted. */
typedef struct program {
    atf_writer_options wo;
    atf_detail_writer *w;
    want_event *want;
    uint8_t *payloads;        /* every accepted payload, one after the other */
    size_t pcap, plen;
    uint64_t n, flushed, pos; /* events, events flushed, file size so far */
} program;

/* The payload of one event into buf: an ARM64 function payload (op bit 0)
 * noted in we, or raw bytes. Returns its length. */
static size_t next_payload(fz_stream *in, uint8_t op, uint8_t *buf, size_t cap, want_event *we)
{
    if (!(op & 1)) {
        size_t len = fz_next_u16(in) % 1025;
        return fz_next_bytes(in, buf, len);
    }
    atf_arm64_payload a;
    memset(&a, 0, sizeof a);
    a.function_id = edgy64(in);
    for (int i = 0; i < 8; i++)
        a.x[i] = edgy64(in);
    a.lr = edgy64(in);
    a.fp = edgy64(in);
    a.sp = edgy64(in);
    a.stack_size = (uint16_t)(fz_next_u16(in) % 257);
    a.reserved = op & 32 ? fz_next_u16(in) : 0;
    uint8_t stack[256];
    fz_next_bytes(in, stack, a.stack_size);
    a.stack = stack;
    size_t len = atf_arm64_payload_encode(buf, cap, &a);
    FZ_CHECK(len == 100u + a.stack_size, "arm64 encode");
    we->arm64 = 1;
    we->a = a;
    return len;
}

/* Keeps an accepted event (its payload copied) as the program's next. */
static void keep_event(program *g, want_event *we, atf_detail_event ev, const uint8_t *buf, size_t len)
{
    if (g->plen + len > g->pcap) {
        g->pcap = (g->plen + len) * 2;
        g->payloads = realloc(g->payloads, g->pcap);
        FZ_CHECK(g->payloads != NULL, "oom");
    }
    memcpy(g->payloads + g->plen, buf, len);
    we->payload_off = g->plen;
    g->plen += len;
    if (g->wo.layout == ATF_LAYOUT_2)
        ev.thread_id = 0;
    ev.total_length = (uint32_t)(24 + len);
    we->ev = ev;
    we->offset = g->pos;
    g->pos += 24 + len;
    g->n++;
}

/* One operation of the program: a flush, or an event appended. */
static void run_op(program *g, fz_stream *in)
{
    uint8_t op = fz_next_u8(in);
    if (op % 16 == 0) {
        FZ_CHECK(atf_detail_writer_flush(g->w) == ATF_OK, "flush");
        g->flushed = g->n;
        return;
    }
    want_event *we = &g->want[g->n];
    uint8_t buf[100 + 1024];
    size_t len = next_payload(in, op, buf, sizeof buf, we);
    atf_detail_event ev;
    memset(&ev, 0, sizeof ev);
    ev.event_type = op & 2 ? (op & 4 ? ATF_DETAIL_FUNCTION_CALL : ATF_DETAIL_FUNCTION_RETURN) : fz_next_u16(in);
    ev.flags = fz_next_u16(in);
    ev.index_seq = op & 8 ? g->n : edgy64(in);
    ev.thread_id = (uint32_t)edgy64(in);
    ev.timestamp = edgy64(in);
    ev.payload = buf;
    ev.payload_size = (uint32_t)len;
    int fits = g->wo.layout == ATF_LAYOUT_2 || ev.index_seq <= UINT32_MAX;
    uint64_t seq = UINT64_MAX;
    atf_status st = atf_detail_writer_append(g->w, &ev, &seq);
    FZ_CHECK(st == (fits ? ATF_OK : ATF_E_FIELD), "append returned %s for an event that %s",
             atf_status_name(st), fits ? "fits" : "does not fit");
    if (!fits) {
        we->arm64 = 0;
        return;
    }
    FZ_CHECK(seq == g->n, "append numbered event %llu as %llu", (unsigned long long)g->n, (unsigned long long)seq);
    keep_event(g, we, ev, buf, len);
    FZ_CHECK(atf_detail_writer_count(g->w) == g->n, "writer count");
}

/* The writer stopped without finalize: a header and a prefix of the events,
 * at least the flushed ones (the buffer may also have been pushed out on
 * its own, even between an event's header and its payload). Opens what is
 * on disk into *r and sets *expect; 0 when it does not open (only a last
 * payload that forges a footer may do that). */
static int open_crashed(program *g, const char *path, const atf_read_options *ro, uint8_t **file, size_t *fsize,
                        atf_detail_reader **r, uint64_t *expect)
{
    const want_event *want = g->want;
    atf_error err;
    *file = fz_read_file(path, fsize);
    FZ_CHECK(*file != NULL, "read back");
    uint64_t on_disk = 0;
    while (on_disk < g->n && want[on_disk].offset + want[on_disk].ev.total_length <= *fsize)
        on_disk++;
    uint64_t flushed_end = g->flushed ? want[g->flushed - 1].offset + want[g->flushed - 1].ev.total_length : 64;
    FZ_CHECK(*fsize >= flushed_end && *fsize <= g->pos,
             "unfinalized file of %zu bytes: %llu events flushed end at %llu", *fsize,
             (unsigned long long)g->flushed, (unsigned long long)flushed_end);
    *expect = on_disk;
    atf_status st = atf_detail_reader_open_memory(r, *file, *fsize, "crash.detail.atf", ro, &err);
    atf_detail_writer_close(g->w);
    if (st != ATF_OK) {
        /* Only a last payload that forges a footer (magic and the exact
         * bytes_length) can make the reader take the file for finalized. */
        FZ_CHECK(*fsize >= 128 && memcmp(*file + *fsize - 64, ATF_DETAIL_FOOTER_MAGIC, 4) == 0 &&
                     fz_le64(*file + *fsize - 48) == *fsize - 128,
                 "crash-truncated file does not open: %s", err.message);
        return 0;
    }
    /* Unless the last payload forged a footer, every written event is back. */
    uint64_t got = atf_detail_reader_count(*r);
    if (!atf_detail_reader_info(*r)->has_footer)
        FZ_CHECK(got == *expect && atf_detail_reader_info(*r)->recovered, "recovered %llu events, %llu on disk",
                 (unsigned long long)got, (unsigned long long)*expect);
    else if (got < *expect)
        *expect = got;
    return 1;
}

/* Finalizes and opens the file into *r: header, footer, CRC and info
 * carry what was written. */
static void open_finalized(program *g, const char *path, const atf_read_options *ro, uint8_t **file, size_t *fsize,
                           atf_detail_reader **r)
{
    const want_event *want = g->want;
    const uint64_t n = g->n, pos = g->pos;
    atf_error err;
    FZ_CHECK(atf_detail_writer_finalize(g->w, 0, &err) == ATF_OK, "finalize: %s", err.message);
    FZ_CHECK(atf_detail_writer_close(g->w) == ATF_OK, "close");
    *file = fz_read_file(path, fsize);
    FZ_CHECK(*file && *fsize == pos + 64, "finalized file is %zu bytes, expected %llu", *fsize,
             (unsigned long long)(pos + 64));
    FZ_CHECK(atf_detail_reader_open(r, path, ro, &err) == ATF_OK, "written file does not open: %s", err.message);
    const atf_detail_header *h = atf_detail_reader_header(*r);
    const atf_detail_footer *f = atf_detail_reader_footer(*r);
    const atf_detail_info *info = atf_detail_reader_info(*r);
    const atf_writer_options *wo = &g->wo;
    FZ_CHECK(h->version == wo->layout && h->arch == wo->arch && h->os == wo->os && h->thread_id == wo->thread_id &&
                 h->flags == 0 && h->events_offset == 64 && !h->reserved_nonzero,
             "header identity");
    FZ_CHECK(h->event_count == n && h->bytes_length == pos - 64 &&
                 h->index_seq_start == (n ? want[0].ev.index_seq : 0) &&
                 h->index_seq_end == (n ? want[n - 1].ev.index_seq : 0),
             "header counts");
    FZ_CHECK(f && f->event_count == n && f->bytes_length == pos - 64 &&
                 f->time_start_ns == (n ? want[0].ev.timestamp : 0) &&
                 f->time_end_ns == (n ? want[n - 1].ev.timestamp : 0),
             "footer");
    uint32_t crc = atf_crc32c_portable(0, *file + 64, (size_t)(pos - 64));
    FZ_CHECK(f->checksum == (wo->checksum ? crc : 0), "footer checksum");
    FZ_CHECK(info->has_footer && info->trailing_bytes == 0 &&
                 info->checksum == (f->checksum ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO),
             "info");
    FZ_CHECK(atf_detail_reader_count(*r) == n, "count");
}

/* The first `expect` events read back equal those written. */
static void check_events(const program *g, atf_detail_reader *r, uint64_t expect)
{
    const want_event *want = g->want;
    for (uint64_t i = 0; i < expect; i++) {
        atf_detail_event got;
        const atf_detail_event *w_ev = &want[i].ev;
        FZ_CHECK(atf_detail_reader_get(r, i, &got) == ATF_OK, "get");
        FZ_CHECK(atf_detail_reader_offset(r, i) == want[i].offset, "offset of event %llu", (unsigned long long)i);
        FZ_CHECK(got.total_length == w_ev->total_length && got.event_type == w_ev->event_type &&
                     got.flags == w_ev->flags && got.index_seq == w_ev->index_seq &&
                     got.thread_id == w_ev->thread_id && got.timestamp == w_ev->timestamp &&
                     got.payload_size == w_ev->payload_size &&
                     (!got.payload_size || memcmp(got.payload, g->payloads + want[i].payload_off, got.payload_size) == 0),
                 "event %llu differs after the round trip", (unsigned long long)i);
        if (want[i].arm64) {
            atf_arm64_payload a;
            const atf_arm64_payload *wa = &want[i].a;
            FZ_CHECK(atf_arm64_payload_decode(&a, got.payload, got.payload_size, NULL) == ATF_OK &&
                         a.function_id == wa->function_id && memcmp(a.x, wa->x, sizeof a.x) == 0 && a.lr == wa->lr &&
                         a.fp == wa->fp && a.sp == wa->sp && a.stack_size == wa->stack_size &&
                         a.reserved == wa->reserved,
                     "ARM64 payload of event %llu differs", (unsigned long long)i);
        }
    }
}

/* Cut anywhere: exactly the events that end before the cut. */
static void check_cut(const program *g, const uint8_t *file, size_t fsize, size_t cut_param)
{
    atf_detail_reader *r;
    atf_error err;
    size_t cut = cut_param % (fsize + 1);
    uint8_t *prefix = malloc(cut ? cut : 1);
    FZ_CHECK(prefix != NULL, "oom");
    memcpy(prefix, file, cut);
    atf_status st = atf_detail_reader_open_memory(&r, prefix, cut, "cut.detail.atf", NULL, &err);
    if (cut < 64) {
        /* SPEC 7a.12: cut inside the header: crash-truncated, 0 events. */
        FZ_CHECK(st == ATF_OK && atf_detail_reader_count(r) == 0 && atf_detail_reader_info(r)->header_truncated,
                 "a %zu-byte prefix: %s", cut, atf_status_name(st));
        atf_detail_reader_close(r);
    } else {
        uint64_t complete = 0;
        while (complete < g->n && g->want[complete].offset + g->want[complete].ev.total_length <= cut)
            complete++;
        FZ_CHECK(st == ATF_OK, "prefix of %zu bytes does not open: %s", cut, err.message);
        FZ_CHECK(atf_detail_reader_count(r) == complete, "prefix of %zu bytes: %llu events recovered, %llu complete",
                 cut, (unsigned long long)atf_detail_reader_count(r), (unsigned long long)complete);
        atf_detail_reader_close(r);
    }
    free(prefix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    program g = { .wo = ATF_WRITER_OPTIONS_INIT, .pcap = 1 << 16, .pos = 64 };
    g.wo.layout = fz_bool(&p) ? ATF_LAYOUT_1 : ATF_LAYOUT_2;
    g.wo.checksum = fz_u8(&p) % 4 != 0;
    g.wo.arch = fz_bool(&p) ? ATF_ARCH_ARM64 : fz_u8(&p);
    g.wo.os = fz_u8(&p);
    g.wo.thread_id = fz_u32(&p);
    g.wo.buffer_size = fz_bool(&p) ? 0 : (size_t)fz_range(&p, 1, 9000);
    int crash = fz_u8(&p) % 4 == 0, no_mmap = fz_bool(&p);
    size_t cut_param = (size_t)fz_u32(&p);
    fz_stream in = { data, p.left, 0 };

    const char *dir = fz_fresh_dir("detail_rt");
    char path[700];
    snprintf(path, sizeof path, "%s/detail.atf", dir);
    atf_error err;
    FZ_CHECK(atf_detail_writer_open(&g.w, path, &g.wo, &err) == ATF_OK, "open writer: %s", err.message);

    g.want = calloc(MAX_EVENTS, sizeof *g.want);
    g.payloads = malloc(g.pcap);
    FZ_CHECK(g.want && g.payloads, "oom");
    while (fz_stream_left(&in) > 0 && g.n < MAX_EVENTS)
        run_op(&g, &in);

    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.no_mmap = no_mmap;
    size_t fsize;
    uint8_t *file;
    atf_detail_reader *r;
    uint64_t expect = g.n;
    if (crash) {
        if (!open_crashed(&g, path, &ro, &file, &fsize, &r, &expect)) {
            free(file);
            free(g.payloads);
            free(g.want);
            return 0;
        }
    } else {
        open_finalized(&g, path, &ro, &file, &fsize, &r);
    }
    check_events(&g, r, expect);
    size_t bsize;
    const uint8_t *bytes = atf_detail_reader_bytes(r, &bsize);
    fz_check_detail_reader(r, bytes, bsize, 1, &p);
    atf_detail_reader_close(r);

    if (!crash)
        check_cut(&g, file, fsize, cut_param);
    free(file);
    free(g.payloads);
    free(g.want);
    return 0;
}
