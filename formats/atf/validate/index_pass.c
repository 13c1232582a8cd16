/* The index file pass (SPEC.md sections 2, 6 and 7): header, footer
 * location, crash recovery, one pass over the events with the checksum,
 * footer checks; and the second pass for broken forward links (section 4).
 *
 * Events are checked chunk by chunk: a branch-light loop looks for any
 * anomaly in a chunk while the chunk is cache-resident after its CRC; only a
 * chunk with an anomaly is rescanned event by event to report findings. */
#include <inttypes.h>
#include <string.h>

#include <atf/crc32c.h>
#include <atf/reader.h>

#include "atf_pass.h"

enum { CHUNK_EVENTS = 2048 }; /* 64 KiB */

/* State carried from one event to the next. */
typedef struct iscan {
    uint64_t prev_ts;
    uint64_t last1;          /* previous linked detail_seq + 1; 0: none yet */
    uint64_t linked;
} iscan;

typedef struct ictx {
    atf_validation *v;
    size_t file;
    atf_layout layout;
    uint64_t eo;
    uint32_t thread_id;
    int no_detail;           /* thread without a detail file: LINK-006 */
} ictx;

static uint64_t detail_seq_of(const uint8_t *p, atf_layout layout)
{
    if (layout == ATF_LAYOUT_1) {
        uint32_t s = atf_load_le32(p + 28);
        return s == ATF_NO_DETAIL_L1 ? ATF_NO_DETAIL : s;
    }
    return atf_load_le64(p + 16);
}

/* @return 0 and advances the state if no event of the chunk breaks a rule. */
static int fast_chunk(const ictx *c, const uint8_t *p, uint64_t n, iscan *s)
{
    uint64_t anomaly = 0, prev = s->prev_ts, last1 = s->last1, lk = 0;
    const uint64_t nd = (uint64_t)(c->no_detail != 0);
    if (c->layout == ATF_LAYOUT_2) {
        for (uint64_t i = 0; i < n; i++, p += ATF_INDEX_EVENT_SIZE) {
            uint64_t ts = atf_load_le64(p), d1 = atf_load_le64(p + 16) + 1u, w = atf_load_le64(p + 24);
            uint64_t linked = d1 != 0;
            /* w = event_kind | reserved << 8: valid iff it is 1, 2 or 3. */
            anomaly |= (uint64_t)(w - 1u > 2u) | (uint64_t)(ts < prev) | (linked & ((uint64_t)(d1 <= last1) | nd));
            prev = ts;
            lk += linked;
            last1 = linked ? d1 : last1;
        }
    } else {
        const uint32_t tid = c->thread_id;
        for (uint64_t i = 0; i < n; i++, p += ATF_INDEX_EVENT_SIZE) {
            uint64_t ts = atf_load_le64(p);
            uint32_t kind = atf_load_le32(p + 20), t = atf_load_le32(p + 16);
            uint64_t d1 = (uint32_t)(atf_load_le32(p + 28) + 1u);
            uint64_t linked = d1 != 0;
            anomaly |= (uint64_t)(kind - 1u > 2u) | (uint64_t)(ts < prev) | (uint64_t)(t != tid) |
                       (linked & ((uint64_t)(d1 <= last1) | nd));
            prev = ts;
            lk += linked;
            last1 = linked ? d1 : last1;
        }
    }
    if (anomaly)
        return 1;
    s->prev_ts = prev;
    s->last1 = last1;
    s->linked += lk;
    return 0;
}

/* Event by event, with findings; same state updates as fast_chunk(). */
static void slow_chunk(const ictx *c, const uint8_t *events, uint64_t base, uint64_t n, iscan *s)
{
    atf_validation *v = c->v;
    const int l1 = c->layout == ATF_LAYOUT_1;
    for (uint64_t seq = base; seq < base + n; seq++) {
        const uint8_t *p = events + seq * ATF_INDEX_EVENT_SIZE;
        const uint64_t off = c->eo + seq * ATF_INDEX_EVENT_SIZE;
        atf_index_event e;
        atf_index_event_decode(&e, p, ATF_INDEX_EVENT_SIZE, c->layout);
        if (e.event_kind < ATF_EVENT_CALL || e.event_kind > ATF_EVENT_EXCEPTION)
            v_report(v, c->file, C_IDX_EVT_001, 0, off + (l1 ? 20 : 24), "event_kind",
                     "event %" PRIu64 ": event_kind is %" PRIu32 ", not 1 (call), 2 (return) or 3 (exception)", seq,
                     e.event_kind);
        if (!l1 && e.reserved_nonzero) {
            size_t k = v_first_nonzero(p + 25, 7);
            v_report(v, c->file, C_IDX_EVT_002, 0, off + 25 + k, "reserved",
                     "event %" PRIu64 ": reserved byte %zu is 0x%02x, not 0", seq, 25 + k, p[25 + k]);
        }
        if (e.timestamp_ns < s->prev_ts)
            v_report(v, c->file, C_IDX_EVT_003, 0, off, "timestamp_ns",
                     "event %" PRIu64 ": timestamp_ns %" PRIu64 " is lower than the previous event's %" PRIu64, seq,
                     e.timestamp_ns, s->prev_ts);
        s->prev_ts = e.timestamp_ns;
        if (l1 && e.thread_id != c->thread_id)
            v_report(v, c->file, C_IDX_EVT_004, 0, off + 16, "thread_id",
                     "event %" PRIu64 ": thread_id %" PRIu32 " differs from the header's %" PRIu32, seq, e.thread_id,
                     c->thread_id);
        if (e.detail_seq == ATF_NO_DETAIL)
            continue;
        s->linked++;
        uint64_t d1 = e.detail_seq + 1u;
        if (d1 <= s->last1)
            v_report(v, c->file, C_IDX_EVT_005, 0, off + (l1 ? 28 : 16), "detail_seq",
                     "event %" PRIu64 ": detail_seq %" PRIu64 " does not increase (the previous link is %" PRIu64 ")",
                     seq, e.detail_seq, s->last1 - 1u);
        s->last1 = d1;
        if (c->no_detail)
            v_report(v, c->file, C_LINK_006, 0, off + (l1 ? 28 : 16), "detail_seq",
                     "event %" PRIu64 ": detail_seq is %" PRIu64 " but the thread has no detail file", seq,
                     e.detail_seq);
    }
}

/* Events [0, n) at events: the checks above, and the CRC32-C if wanted. */
static uint32_t scan_events(const ictx *c, const uint8_t *events, uint64_t n, int want_crc, iscan *s)
{
    uint32_t crc = 0;
    memset(s, 0, sizeof *s);
    s->prev_ts = n ? atf_load_le64(events) : 0;
    for (uint64_t base = 0; base < n; base += CHUNK_EVENTS) {
        uint64_t k = n - base < CHUNK_EVENTS ? n - base : CHUNK_EVENTS;
        const uint8_t *p = events + base * ATF_INDEX_EVENT_SIZE;
        if (want_crc)
            crc = atf_crc32c(crc, p, (size_t)k * ATF_INDEX_EVENT_SIZE);
        if (fast_chunk(c, p, k, s))
            slow_chunk(c, events, base, k, s);
    }
    return crc;
}

static void header_warnings(atf_validation *v, size_t file, const uint8_t *d, atf_layout layout)
{
    v_check(v, C_IDX_HDR_004);
    if (d[6] != ATF_ARCH_X86_64 && d[6] != ATF_ARCH_ARM64)
        v_report(v, file, C_IDX_HDR_004, 0, 6, "arch", "arch is %u, not 1 (x86_64) or 2 (arm64)", d[6]);
    v_check(v, C_IDX_HDR_005);
    if (d[7] < ATF_OS_IOS || d[7] > ATF_OS_WINDOWS)
        v_report(v, file, C_IDX_HDR_005, 0, 7, "os", "os is %u, not one of 1..5", d[7]);
    v_check(v, C_IDX_HDR_006);
    if (d[16] < ATF_CLOCK_MACH_CONTINUOUS || d[16] > ATF_CLOCK_BOOTTIME)
        v_report(v, file, C_IDX_HDR_006, 0, 16, "clock_type", "clock_type is %u, not one of 1..3", d[16]);
    v_check(v, C_IDX_HDR_007);
    uint32_t flags = atf_load_le32(d + 8);
    if (flags & ~(uint32_t)ATF_INDEX_FLAG_HAS_DETAIL_FILE)
        v_report(v, file, C_IDX_HDR_007, 0, 8, "flags", "flags is 0x%08" PRIx32 ": reserved bits are set", flags);
    v_check(v, C_IDX_HDR_008);
    size_t rn = layout == ATF_LAYOUT_1 ? 7 : 3;
    size_t k = v_first_nonzero(d + 17, rn);
    if (k < rn)
        v_report(v, file, C_IDX_HDR_008, 0, 17 + k, "reserved", "reserved header byte %zu is 0x%02x, not 0", 17 + k,
                 d[17 + k]);
}

/* Magic, endian, version. @return 0 if the file cannot be interpreted. */
static int header_identity(atf_validation *v, size_t file, const uint8_t *d, uint64_t size)
{
    return v_header_identity(v, file, d, size, ATF_INDEX_MAGIC, ATF_INDEX_HEADER_SIZE, "index", C_IDX_HDR_001, C_IDX_HDR_002,
                             C_IDX_HDR_003);
}

/* One index file as the pass reads it: the header's fields, where the
 * footer is, and the events the footer (or the file) holds. */
typedef struct ipass {
    atf_validation *v;
    size_t file;
    const uint8_t *d;
    uint64_t size, data_end;
    vindex *out;
    atf_layout layout;
    int l1;
    uint64_t h_count, eo, footer_offset, h_t0, h_t1;
    size_t count_at;         /* offset of the header's event_count */
    int bad_footer_offset;   /* IDX-HDR-013 reported for footer_offset */
    int has_footer, count_fits;
    uint64_t fo, n;          /* footer offset; events */
    atf_index_footer f;
} ipass;

/* The header's fields after its identity (IDX-HDR-009 to -011, -013).
 * @return 0 when events_offset is out of range: the events are not read. */
static int index_header(ipass *p)
{
    atf_validation *v = p->v;
    const uint8_t *d = p->d;
    const int l1 = p->l1;
    const uint32_t event_size = atf_load_le32(d + (l1 ? 24 : 20));
    p->h_count = l1 ? atf_load_le32(d + 28) : atf_load_le64(d + 24);
    p->eo = atf_load_le64(d + 32);
    p->footer_offset = atf_load_le64(d + 40);
    p->h_t0 = atf_load_le64(d + 48);
    p->h_t1 = atf_load_le64(d + 56);
    p->count_at = l1 ? 28 : 24;
    vindex *out = p->out;
    out->header_ok = 1;
    out->layout = p->layout;
    out->flags = atf_load_le32(d + 8);
    out->thread_id = atf_load_le32(d + 12);
    out->clock_type = d[16];
    atf_index_header hh;
    memset(&hh, 0, sizeof hh);
    hh.flags = out->flags;
    hh.event_count = p->h_count;
    hh.events_offset = p->eo;
    hh.footer_offset = p->footer_offset;
    hh.time_start_ns = p->h_t0;
    hh.time_end_ns = p->h_t1;
    out->finalized = !atf_index_header_is_placeholder(&hh);

    v_check(v, C_IDX_HDR_009);
    if (event_size != ATF_INDEX_EVENT_SIZE)
        v_report(v, p->file, C_IDX_HDR_009, 0, l1 ? 24 : 20, "event_size", "event_size is %" PRIu32 ", must be 32",
                 event_size);
    const uint64_t eo = p->eo, footer_offset = p->footer_offset;
    v_check(v, C_IDX_HDR_010);
    if (eo < ATF_INDEX_HEADER_SIZE || eo > p->size) {
        v_report(v, p->file, C_IDX_HDR_010, 0, 32, "events_offset",
                 eo < ATF_INDEX_HEADER_SIZE ? "events_offset is %" PRIu64 ", less than the 64-byte header"
                                            : "events_offset is %" PRIu64 ", beyond the end of the file",
                 eo);
        return 0;
    }
    v_check(v, C_IDX_HDR_011);
    if (eo != ATF_INDEX_HEADER_SIZE)
        v_report(v, p->file, C_IDX_HDR_011, 0, 32, "events_offset", "events_offset is %" PRIu64 ", not 64", eo);
    if (out->finalized) {
        /* footer_offset == events_offset + event_count * 32, without overflow. */
        v_check(v, C_IDX_HDR_013);
        p->bad_footer_offset = footer_offset < eo || (footer_offset - eo) % ATF_INDEX_EVENT_SIZE != 0 ||
                               (footer_offset - eo) / ATF_INDEX_EVENT_SIZE != p->h_count;
        if (p->bad_footer_offset)
            v_report(v, p->file, C_IDX_HDR_013, 0, 40, "footer_offset",
                     "footer_offset is %" PRIu64 ", not events_offset + event_count * 32 (event_count %" PRIu64 ")",
                     footer_offset, p->h_count);
    }
    return 1;
}

/* Where the footer is (section 6): p->has_footer, p->fo. */
static void locate_footer(ipass *p)
{
    const uint8_t *d = p->d;
    const uint64_t size = p->size, eo = p->eo, footer_offset = p->footer_offset;
    if (p->out->finalized && footer_offset >= eo && footer_offset <= size &&
        size - footer_offset >= ATF_INDEX_FOOTER_SIZE && memcmp(d + footer_offset, ATF_INDEX_FOOTER_MAGIC, 4) == 0) {
        p->has_footer = 1;
        p->fo = footer_offset;
    } else if (size - eo >= ATF_INDEX_FOOTER_SIZE) {
        /* A placeholder's footer; and a finalized header's when it is not
         * where the header says (SPEC 6): the last 64 bytes, lined up. */
        uint64_t at = size - ATF_INDEX_FOOTER_SIZE;
        if ((at - eo) % ATF_INDEX_EVENT_SIZE == 0 && memcmp(d + at, ATF_INDEX_FOOTER_MAGIC, 4) == 0 &&
            atf_load_le64(d + at + 32) == at - eo) {
            p->has_footer = 1;
            p->fo = at;
            if (p->out->finalized && !p->bad_footer_offset) {
                v_check(p->v, C_IDX_HDR_013);
                v_report(p->v, p->file, C_IDX_HDR_013, 0, 40, "footer_offset",
                         "footer_offset is %" PRIu64 " but the footer is at %" PRIu64 " (the end of the file)",
                         footer_offset, at);
            }
        }
    }
    p->out->has_footer = p->has_footer;
}

/* A finalized header against its footer (IDX-HDR-012, -014, -015). */
static void header_against_footer(ipass *p)
{
    atf_validation *v = p->v;
    const atf_index_footer *f = &p->f;
    v_check(v, C_IDX_HDR_015);
    if (!p->out->finalized && (f->event_count != 0 || p->footer_offset != p->fo))
        v_report(v, p->file, C_IDX_HDR_015, 0, 40, "footer_offset",
                 "the header is still the placeholder (footer_offset %" PRIu64 ", event_count %" PRIu64
                 ") although the footer is at %" PRIu64 " with %" PRIu64
                 " events: finalize stopped before the header was rewritten, or the writer never rewrites it",
                 p->footer_offset, p->h_count, p->fo, f->event_count);
    if (!p->out->finalized)
        return;
    v_check(v, C_IDX_HDR_012);
    if (p->h_count != f->event_count)
        v_report(v, p->file, C_IDX_HDR_012, 0, p->count_at, "event_count",
                 "header event_count %" PRIu64 " differs from the footer's %" PRIu64, p->h_count, f->event_count);
    v_check(v, C_IDX_HDR_014);
    if (p->h_t0 != f->time_start_ns)
        v_report(v, p->file, C_IDX_HDR_014, 0, 48, "time_start_ns",
                 "header time_start_ns %" PRIu64 " differs from the footer's %" PRIu64, p->h_t0, f->time_start_ns);
    if (p->h_t1 != f->time_end_ns)
        v_report(v, p->file, C_IDX_HDR_014, 0, 56, "time_end_ns",
                 "header time_end_ns %" PRIu64 " differs from the footer's %" PRIu64, p->h_t1, f->time_end_ns);
}

/* The footer (IDX-FTR-001, -002, -004, -005), and the events it counts. */
static void footer_checks(ipass *p)
{
    atf_validation *v = p->v;
    const uint8_t *d = p->d;
    const uint64_t fo = p->fo, eo = p->eo, size = p->size;
    atf_index_footer *f = &p->f;
    atf_index_footer_decode(f, d + fo, ATF_INDEX_FOOTER_SIZE, NULL);
    const uint64_t room = (fo - eo) / ATF_INDEX_EVENT_SIZE;
    v_check(v, C_IDX_FTR_001);
    if (f->event_count > room) {
        v_report(v, p->file, C_IDX_FTR_001, 0, fo + 8, "footer.event_count",
                 "footer event_count is %" PRIu64 ", but only %" PRIu64 " events fit before the footer",
                 f->event_count, room);
        p->count_fits = 0;
        p->n = room;
    } else {
        p->n = f->event_count;
    }
    const uint64_t n = p->n;
    v_check(v, C_IDX_FTR_002);
    if (f->bytes_written % ATF_INDEX_EVENT_SIZE != 0 || f->bytes_written / ATF_INDEX_EVENT_SIZE != f->event_count)
        v_report(v, p->file, C_IDX_FTR_002, 0, fo + 32, "footer.bytes_written",
                 "bytes_written is %" PRIu64 ", not event_count (%" PRIu64 ") * 32", f->bytes_written,
                 f->event_count);
    v_check(v, C_IDX_FTR_004);
    size_t k = v_first_nonzero(d + fo + 40, 24);
    if (k < 24)
        v_report(v, p->file, C_IDX_FTR_004, 0, fo + 40 + k, "footer.reserved",
                 "reserved footer byte %zu is 0x%02x, not 0", 40 + k, d[fo + 40 + k]);
    v_check(v, C_IDX_FTR_005);
    if (p->count_fits && fo != eo + n * ATF_INDEX_EVENT_SIZE)
        v_report(v, p->file, C_IDX_FTR_005, 0, eo + n * ATF_INDEX_EVENT_SIZE, "footer",
                 "%" PRIu64 " bytes between the last of the footer's %" PRIu64 " events and the footer",
                 fo - (eo + n * ATF_INDEX_EVENT_SIZE), n);
    if (size - fo > ATF_INDEX_FOOTER_SIZE)
        v_report(v, p->file, C_IDX_FTR_005, 0, fo + ATF_INDEX_FOOTER_SIZE, "footer",
                 "%" PRIu64 " bytes follow the footer", size - fo - ATF_INDEX_FOOTER_SIZE);
    header_against_footer(p);
}

/* A placeholder header and no footer: crash-truncated (REC-001, -002, -003). */
static void crash_truncated(ipass *p)
{
    atf_validation *v = p->v;
    const uint8_t *d = p->d;
    const uint64_t size = p->size, data_end = p->data_end;
    v_check(v, C_REC_001);
    v_check(v, C_REC_002);
    v_check(v, C_REC_003);
    v_check(v, C_REC_005);
    int torn = 0;
    if (p->n > 0) {
        const uint8_t *last = d + p->eo + (p->n - 1) * ATF_INDEX_EVENT_SIZE;
        if (memcmp(last, ATF_INDEX_FOOTER_MAGIC, 4) == 0 && atf_load_le64(last + 8) == p->n - 1) {
            torn = 1;
            p->n--;
        }
    }
    const uint64_t ev_end = p->eo + p->n * ATF_INDEX_EVENT_SIZE, trailing = size - ev_end;
    char what[256];
    atf_file_state_describe(what, sizeof what, ATF_FILE_CRASH_TRUNCATED, 0, size, p->n, trailing);
    v_report(v, p->file, C_REC_001, 0, ev_end, "footer", "%s", what);
    if (torn)
        v_report(v, p->file, C_REC_003, 0, ev_end, "footer",
                 "torn footer (crash during finalize): %" PRIu64
                 " bytes starting with \"2ITA\" and the count of the events before them are not an event",
                 trailing);
    else if (trailing && ev_end < data_end &&
             v_first_nonzero(d + ev_end, (size_t)((data_end < size ? data_end : size) - ev_end)) <
                 (data_end < size ? data_end : size) - ev_end)
        /* A zero-filled tail is not a partial record (SPEC 7a.6). */
        v_report(v, p->file, C_REC_002, 0, ev_end, "event",
                 "partial record of %" PRIu64 " bytes after the last complete event ignored", trailing);
}

/* No footer: the complete events recovered (REC-004 for a finalized header,
 * else a crash-truncated file). */
static void no_footer(ipass *p)
{
    const uint8_t *d = p->d;
    const uint64_t size = p->size, eo = p->eo, footer_offset = p->footer_offset;
    uint64_t end = size;
    if (p->out->finalized && footer_offset >= eo && footer_offset < size)
        end = footer_offset;
    uint64_t n = (end - eo) / ATF_INDEX_EVENT_SIZE;
    /* SPEC 7a.6: trailing all-zero records are a filesystem's zero fill,
     * not events (no valid event is all zeros). Records starting in the
     * hole past the file's data are zeros unread (a sparse tail costs
     * nothing). */
    if (p->data_end < size && p->data_end < eo + n * ATF_INDEX_EVENT_SIZE)
        n = p->data_end <= eo ? 0 : (p->data_end - eo + ATF_INDEX_EVENT_SIZE - 1) / ATF_INDEX_EVENT_SIZE;
    while (n > 0 && v_first_nonzero(d + eo + (n - 1) * ATF_INDEX_EVENT_SIZE, ATF_INDEX_EVENT_SIZE) ==
                        ATF_INDEX_EVENT_SIZE)
        n--;
    p->n = n;
    if (p->out->finalized) {
        int inside = footer_offset >= eo && footer_offset < size;
        /* SPEC 7a.4: REC-004, not REC-001. IDX-HDR-013 also says the
         * footer MUST be there (7a.2: every broken clause). */
        if (!p->bad_footer_offset)
            v_report(p->v, p->file, C_IDX_HDR_013, 0, 40, "footer_offset",
                     "footer_offset is %" PRIu64 " but no footer is there", footer_offset);
        char what[256];
        atf_file_state_describe(what, sizeof what, ATF_FILE_DAMAGED, 0, size, n,
                                size - (eo + n * ATF_INDEX_EVENT_SIZE));
        v_report(p->v, p->file, C_REC_004, 0, inside ? footer_offset : 40, inside ? "footer.magic" : "footer_offset",
                 "%s; the header says footer_offset %" PRIu64 "%s", what, footer_offset,
                 inside ? "" : ", past the end of the file");
    } else {
        crash_truncated(p);
    }
    v_recovered(p->v, p->file, p->n);
}

/* The footer's times against the events (IDX-FTR-003), the checksum (section 7). */
static void footer_verdicts(ipass *p, const uint8_t *events, int want_crc, uint32_t crc)
{
    atf_validation *v = p->v;
    const atf_index_footer *f = &p->f;
    const vindex *out = p->out;
    if (p->count_fits) {
        v_check(v, C_IDX_FTR_003);
        if (f->time_start_ns != out->first_ts)
            v_report(v, p->file, C_IDX_FTR_003, 0, p->fo + 16, "footer.time_start_ns",
                     "footer time_start_ns %" PRIu64 " is not the first event's timestamp_ns %" PRIu64,
                     f->time_start_ns, out->first_ts);
        if (f->time_end_ns != out->last_ts)
            v_report(v, p->file, C_IDX_FTR_003, 0, p->fo + 24, "footer.time_end_ns",
                     "footer time_end_ns %" PRIu64 " is not the last event's timestamp_ns %" PRIu64, f->time_end_ns,
                     out->last_ts);
    }
    v_checksum_zero(v, p->file, p->l1, f->checksum, p->fo, p->n > 0);
    if (want_crc)
        v_checksum_verdict(v, p->file, p->l1, f->checksum, p->fo, events, p->n * ATF_INDEX_EVENT_SIZE, crc);
}

void v_index_pass(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                  int thread_ctx, int has_detail_file, vindex *out)
{
    memset(out, 0, sizeof *out);
    out->data = d;
    out->size = size;
    int id = header_identity(v, file, d, size);
    if (id == V_HEADER_TRUNCATED) {
        /* 0 events, no footer: links into it are the recoverable kind. */
        out->usable = 1;
        out->layout = (atf_layout)(size > 5 ? d[5] : 0);
        out->eo = size;
        return;
    }
    if (id != V_HEADER_OK)
        return;
    ipass p;
    memset(&p, 0, sizeof p);
    p.v = v;
    p.file = file;
    p.d = d;
    p.size = size;
    p.data_end = data_end;
    p.out = out;
    p.layout = (atf_layout)d[5];
    p.l1 = p.layout == ATF_LAYOUT_1;
    p.count_fits = 1;
    header_warnings(v, file, d, p.layout);
    if (!index_header(&p))
        return;
    locate_footer(&p);
    v_check(v, C_REC_004);
    if (p.has_footer)
        footer_checks(&p);
    else
        no_footer(&p);

    /* ---- Events ---- */
    const int l1 = p.l1;
    const uint64_t n = p.n;
    ictx c = { v, file, p.layout, p.eo, out->thread_id, thread_ctx && !has_detail_file };
    const int want_crc = p.has_footer && p.count_fits && p.f.checksum != 0 && !v->opts.no_verify;
    iscan s;
    v_check(v, C_IDX_EVT_001);
    if (!l1)
        v_check(v, C_IDX_EVT_002);
    v_check(v, C_IDX_EVT_003);
    if (l1)
        v_check(v, C_IDX_EVT_004);
    v_check(v, C_IDX_EVT_005);
    if (c.no_detail)
        v_check(v, C_LINK_006);
    const uint8_t *events = d + p.eo;
    uint32_t crc = scan_events(&c, events, n, want_crc, &s);
    out->usable = 1;
    out->eo = p.eo;
    out->n = n;
    out->linked = s.linked;
    if (n) {
        out->first_ts = atf_load_le64(events);
        out->last_ts = atf_load_le64(events + (n - 1) * ATF_INDEX_EVENT_SIZE);
    }
    if (p.has_footer)
        footer_verdicts(&p, events, want_crc, crc);
}

void v_index_forward_links(atf_validation *v, size_t file, const vindex *ix, const vdetail *dt,
                           const uint64_t *confirmed_bits)
{
    const int l1 = ix->layout == ATF_LAYOUT_1;
    const uint8_t *events = ix->data + ix->eo;
    for (uint64_t seq = 0; seq < ix->n; seq++) {
        const uint8_t *p = events + seq * ATF_INDEX_EVENT_SIZE;
        uint64_t ds = detail_seq_of(p, ix->layout);
        if (ds == ATF_NO_DETAIL)
            continue;
        if (confirmed_bits && (confirmed_bits[seq >> 6] >> (seq & 63)) & 1u)
            continue;
        const uint64_t off = ix->eo + seq * ATF_INDEX_EVENT_SIZE + (l1 ? 28 : 16);
        if (ds >= dt->n) {
            if (!dt->complete)
                continue; /* the detail file's events could not all be walked: its own findings say why */
            /* SPEC 7a.4: a link into or out of a file without a footer is a warning. */
            int lost = !dt->has_footer || !ix->has_footer;
            v_report(v, file, C_LINK_001, lost ? ATF_SEV_WARNING : 0, off, "detail_seq",
                     "event %" PRIu64 ": detail_seq %" PRIu64 " is past the %" PRIu64 " events of the detail file%s",
                     seq, ds, dt->n, lost ? " (a file without a footer: recoverable)" : "");
        } else {
            v_report(v, file, C_LINK_002, 0, off, "detail_seq",
                     "event %" PRIu64 ": detail event %" PRIu64 " does not link back to it", seq, ds);
        }
    }
}
