/* Independent models of what a reader must make of a whole file, and the
 * invariant checks of open readers and of the merge, the session container;
 * see fuzz_atf.h.
 *
 * The models follow the rules of conformance/SPEC.md (header fields, footer
 * location, crash recovery REC-001..003, checksums CRC-001/002) and use none
 * of the codec's decoders, so that a disagreement points at one of the two. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <atf/crc32c.h>

#include "fuzz_atf.h"

/* ---- Models ------------------------------------------------------------- */

int fz_is_torn_footer(const uint8_t *rec, uint64_t events_before)
{
    return memcmp(rec, ATF_INDEX_FOOTER_MAGIC, 4) == 0 && fz_le64(rec + 8) == events_before;
}

uint64_t fz_detail_walk(const uint8_t *d, uint64_t start, uint64_t end, uint64_t *stop)
{
    uint64_t pos = start, n = 0;
    while (end - pos >= ATF_DETAIL_EVENT_HEADER_SIZE) {
        uint32_t total = fz_le32(d + pos);
        if (total < ATF_DETAIL_EVENT_HEADER_SIZE || total > end - pos)
            break;
        pos += total;
        n++;
    }
    *stop = pos;
    return n;
}

/* Section 2.1 / 3.1: the checks every header decoder makes, in order. */
atf_status fz_header_status(const uint8_t *d, size_t size, const char *magic)
{
    if (size < 8)
        return ATF_E_TRUNCATED;
    if (memcmp(d, magic, 4) != 0)
        return ATF_E_MAGIC;
    if (d[4] != ATF_ENDIAN_LITTLE)
        return ATF_E_ENDIAN;
    if (d[5] != ATF_LAYOUT_1 && d[5] != ATF_LAYOUT_2)
        return ATF_E_VERSION;
    if (size < 64)
        return ATF_E_TRUNCATED;
    return ATF_OK;
}

/* SPEC 7a.12: fewer bytes than a header that are the start of a valid one:
 * the magic, endian 1 and version 1 or 2, as far as they go. */
static int header_prefix(const uint8_t *d, size_t size, const char *magic)
{
    if (size >= 64)
        return 0;
    for (size_t i = 0; i < size && i < 4; i++)
        if (d[i] != (uint8_t)magic[i])
            return 0;
    return (size <= 4 || d[4] == 1) && (size <= 5 || d[5] == 1 || d[5] == 2);
}

/* CRC-001/002: a non-zero checksum must match the events section. */
static int checksum_ok(uint32_t stored, int layout, const uint8_t *section, uint64_t n)
{
    return stored == 0 || atf_crc32c_portable(0, section, (size_t)n) == stored ||
           (layout == ATF_LAYOUT_1 && atf_crc32_ieee(0, section, (size_t)n) == stored);
}

fz_model fz_index_model(const uint8_t *d, size_t size, int verify)
{
    fz_model m;
    memset(&m, 0, sizeof m);
    if (header_prefix(d, size, ATF_INDEX_MAGIC)) {
        m.header_truncated = 1;
        return m;
    }
    if ((m.status = fz_header_status(d, size, ATF_INDEX_MAGIC)) != ATF_OK)
        return m;
    int layout = d[5];
    uint32_t event_size = fz_le32(d + (layout == ATF_LAYOUT_1 ? 24 : 20));
    uint64_t eo = fz_le64(d + 32), fo = fz_le64(d + 40);
    uint64_t count = layout == ATF_LAYOUT_1 ? fz_le32(d + 28) : fz_le64(d + 24);
    /* SPEC 2.1: a placeholder has footer_offset 0, or describes an empty
     * file (footer_offset == events_offset, count and times 0, no flag). */
    m.finalized = !(fo == 0 || (fo == eo && count == 0 && fz_le64(d + 48) == 0 && fz_le64(d + 56) == 0 &&
                                (fz_le32(d + 8) & 1u) == 0));
    if (event_size != ATF_INDEX_EVENT_SIZE) {
        m.status = ATF_E_FIELD;
        return m;
    }
    if (eo < ATF_INDEX_HEADER_SIZE || eo > size) {
        m.status = ATF_E_OFFSET;
        return m;
    }
    /* Footer location (section 6): a finalized header says where; a
     * placeholder header leaves the last 64 bytes, when they line up with
     * the events and say so in bytes_written. */
    m.region_end = size;
    if (m.finalized) {
        if (fo >= eo && fo < size)
            m.region_end = fo;
        m.has_footer = fo >= eo && fo <= size && size - fo >= ATF_INDEX_FOOTER_SIZE &&
                       memcmp(d + fo, ATF_INDEX_FOOTER_MAGIC, 4) == 0;
        m.footer_offset = fo;
    }
    if (!m.has_footer && size - eo >= ATF_INDEX_FOOTER_SIZE) {
        /* also for a finalized header whose footer is not where it says */
        uint64_t at = size - ATF_INDEX_FOOTER_SIZE;
        if ((at - eo) % ATF_INDEX_EVENT_SIZE == 0 && memcmp(d + at, ATF_INDEX_FOOTER_MAGIC, 4) == 0 &&
            fz_le64(d + at + 32) == at - eo) {
            m.has_footer = 1;
            m.footer_offset = at;
            m.region_end = at;
        }
    }
    uint64_t room = (m.region_end - eo) / ATF_INDEX_EVENT_SIZE;
    if (m.has_footer) {
        m.event_count = fz_le64(d + m.footer_offset + 8);
        if (m.event_count > room) {
            m.status = ATF_E_COUNT;
            return m;
        }
        if (verify && !checksum_ok(fz_le32(d + m.footer_offset + 4), layout, d + eo,
                                   m.event_count * ATF_INDEX_EVENT_SIZE)) {
            m.status = ATF_E_CHECKSUM;
            return m;
        }
    } else {
        /* REC-001; SPEC 7a.6: trailing all-zero records are a filesystem's
         * zero fill, not events; REC-003: only a placeholder header can be
         * followed by a torn footer (a finalized one was rewritten after the
         * footer, and its footer_offset bounds the events). */
        m.event_count = room;
        while (m.event_count > 0 && fz_all_zero(d + eo + (m.event_count - 1) * ATF_INDEX_EVENT_SIZE, 32))
            m.event_count--;
        if (!m.finalized && m.event_count > 0 &&
            fz_is_torn_footer(d + eo + (m.event_count - 1) * ATF_INDEX_EVENT_SIZE, m.event_count - 1))
            m.event_count--;
    }
    m.events_end = eo + m.event_count * ATF_INDEX_EVENT_SIZE;
    return m;
}

fz_model fz_detail_model(const uint8_t *d, size_t size, int verify)
{
    fz_model m;
    memset(&m, 0, sizeof m);
    if (header_prefix(d, size, ATF_DETAIL_MAGIC)) {
        m.header_truncated = 1;
        return m;
    }
    if ((m.status = fz_header_status(d, size, ATF_DETAIL_MAGIC)) != ATF_OK)
        return m;
    int layout = d[5];
    uint64_t eo = fz_le64(d + 20), count = fz_le64(d + 28), blen = fz_le64(d + 36);
    if (eo < ATF_DETAIL_HEADER_SIZE || eo > size) {
        m.status = ATF_E_OFFSET;
        return m;
    }
    m.region_end = size;
    m.finalized = blen != 0 || count != 0;
    if (m.finalized) {
        /* Finalized: the footer follows bytes_length bytes of events. */
        if (blen <= size - eo) {
            uint64_t at = eo + blen;
            m.region_end = at;
            if (size - at >= ATF_DETAIL_FOOTER_SIZE && memcmp(d + at, ATF_DETAIL_FOOTER_MAGIC, 4) == 0) {
                m.has_footer = 1;
                m.footer_offset = at;
            }
        }
    }
    if (!m.has_footer && size - eo >= ATF_DETAIL_FOOTER_SIZE) {
        /* also for a finalized header whose footer is not where it says */
        uint64_t at = size - ATF_DETAIL_FOOTER_SIZE;
        if (memcmp(d + at, ATF_DETAIL_FOOTER_MAGIC, 4) == 0 && fz_le64(d + at + 16) == at - eo) {
            m.has_footer = 1;
            m.footer_offset = at;
            m.region_end = at;
        }
    }
    uint64_t stop;
    m.event_count = fz_detail_walk(d, eo, m.region_end, &stop);
    m.events_end = stop;
    if (!m.has_footer)
        return m; /* REC-001: every complete event */
    const uint8_t *f = d + m.footer_offset;
    if (fz_le64(f + 16) != m.region_end - eo) {
        m.status = ATF_E_LENGTH;
        return m;
    }
    if (stop != m.region_end) {
        /* With a footer every byte of the section must parse. */
        uint64_t left = m.region_end - stop;
        m.status = left < ATF_DETAIL_EVENT_HEADER_SIZE ? ATF_E_TRUNCATED : ATF_E_LENGTH;
        return m;
    }
    if (fz_le64(f + 8) != m.event_count) {
        m.status = ATF_E_COUNT;
        return m;
    }
    if (verify && !checksum_ok(fz_le32(f + 4), layout, d + eo, m.region_end - eo))
        m.status = ATF_E_CHECKSUM;
    return m;
}

static const char *state_name(atf_checksum_state s) { return atf_checksum_state_name(s); }

/* The checksum state a reader must report, given what it found. */
static void check_checksum_state(atf_checksum_state got, int has_footer, uint32_t stored, int verified,
                                 atf_layout layout, const uint8_t *section, uint64_t section_size)
{
    if (!has_footer) {
        FZ_CHECK(got == ATF_CHECKSUM_NO_FOOTER, "no footer but checksum state %s", state_name(got));
        return;
    }
    if (stored == 0) {
        FZ_CHECK(got == ATF_CHECKSUM_ZERO, "checksum 0 but state %s", state_name(got));
        return;
    }
    if (!verified) {
        FZ_CHECK(got == ATF_CHECKSUM_NOT_VERIFIED, "not verified but state %s", state_name(got));
        return;
    }
    /* The portable code: this also checks the hardware CRC path against it. */
    uint32_t c = atf_crc32c_portable(0, section, (size_t)section_size);
    if (c == stored) {
        FZ_CHECK(got == ATF_CHECKSUM_CRC32C, "CRC32-C matches but state %s", state_name(got));
        return;
    }
    FZ_CHECK(layout == ATF_LAYOUT_1 && got == ATF_CHECKSUM_CRC32_IEEE &&
                 atf_crc32_ieee(0, section, (size_t)section_size) == stored,
             "reader accepted checksum 0x%08x (state %s), CRC32-C is 0x%08x", stored, state_name(got), c);
}

static void check_index_header_equal(const atf_index_header *a, const atf_index_header *b)
{
    FZ_CHECK(a->endian == b->endian && a->version == b->version && a->arch == b->arch && a->os == b->os &&
                 a->flags == b->flags && a->thread_id == b->thread_id && a->clock_type == b->clock_type &&
                 a->event_size == b->event_size && a->event_count == b->event_count &&
                 a->events_offset == b->events_offset && a->footer_offset == b->footer_offset &&
                 a->time_start_ns == b->time_start_ns && a->time_end_ns == b->time_end_ns &&
                 a->reserved_nonzero == b->reserved_nonzero,
             "index headers differ");
}

/* Every event of an index file (its events at ev) decodes, and encodes back
 * to its bytes (reserved bytes aside); *s: the open-time scan recounted. */
static void index_recount(const atf_index_reader *r, const uint8_t *ev, uint64_t n, atf_layout layout,
                          atf_index_scan *s)
{
    memset(s, 0, sizeof *s);
    s->min_ts = UINT64_MAX;
    uint64_t prev = 0;
    for (uint64_t seq = 0; seq < n; seq++) {
        atf_index_event e;
        uint8_t raw[ATF_INDEX_EVENT_SIZE];
        const uint8_t *src = ev + seq * ATF_INDEX_EVENT_SIZE;
        FZ_CHECK(atf_index_reader_get(r, seq, &e) == ATF_OK, "get(%llu)", (unsigned long long)seq);
        FZ_CHECK(atf_index_event_encode(raw, sizeof raw, &e, layout) == ATF_OK, "re-encode %llu",
                 (unsigned long long)seq);
        if (layout == ATF_LAYOUT_2 && e.reserved_nonzero)
            FZ_CHECK(memcmp(raw, src, 25) == 0 && !memcmp(raw + 25, "\0\0\0\0\0\0\0", 7),
                     "event %llu re-encodes differently", (unsigned long long)seq);
        else
            FZ_CHECK(memcmp(raw, src, sizeof raw) == 0, "event %llu re-encodes differently",
                     (unsigned long long)seq);
        if ((e.event_kind < ATF_EVENT_CALL || e.event_kind > ATF_EVENT_EXCEPTION) && s->bad_kind_count++ == 0)
            s->first_bad_kind_seq = seq;
        if (e.reserved_nonzero && s->reserved_nonzero_count++ == 0)
            s->first_reserved_nonzero_seq = seq;
        if (seq > 0 && e.timestamp_ns < prev && s->backwards_count++ == 0)
            s->first_backwards_seq = seq;
        prev = e.timestamp_ns;
        if (seq == 0)
            s->first_ts = e.timestamp_ns;
        s->last_ts = e.timestamp_ns;
        s->min_ts = e.timestamp_ns < s->min_ts ? e.timestamp_ns : s->min_ts;
        s->max_ts = e.timestamp_ns > s->max_ts ? e.timestamp_ns : s->max_ts;
        if (e.detail_seq != ATF_NO_DETAIL) {
            s->max_detail_seq = s->linked_count++ == 0 || e.detail_seq > s->max_detail_seq ? e.detail_seq
                                                                                          : s->max_detail_seq;
        }
    }
    if (n == 0)
        s->min_ts = 0;
}

/* The reader's open-time scan (g) equals the recount (s) of n events. */
static void check_index_scan(const atf_index_scan *g, const atf_index_scan *s, uint64_t n)
{
    FZ_CHECK(g->bad_kind_count == s->bad_kind_count &&
                 (!s->bad_kind_count || g->first_bad_kind_seq == s->first_bad_kind_seq),
             "bad kinds: reader %llu, recount %llu", (unsigned long long)g->bad_kind_count,
             (unsigned long long)s->bad_kind_count);
    FZ_CHECK(g->reserved_nonzero_count == s->reserved_nonzero_count &&
                 (!s->reserved_nonzero_count || g->first_reserved_nonzero_seq == s->first_reserved_nonzero_seq),
             "reserved-nonzero events");
    FZ_CHECK(g->backwards_count == s->backwards_count &&
                 (!s->backwards_count || g->first_backwards_seq == s->first_backwards_seq),
             "backwards: reader %llu, recount %llu", (unsigned long long)g->backwards_count,
             (unsigned long long)s->backwards_count);
    FZ_CHECK(g->linked_count == s->linked_count, "linked: reader %llu, recount %llu",
             (unsigned long long)g->linked_count, (unsigned long long)s->linked_count);
    FZ_CHECK(!s->linked_count || g->max_detail_seq == s->max_detail_seq, "max_detail_seq");
    FZ_CHECK(g->first_ts == (n ? s->first_ts : 0) && g->last_ts == (n ? s->last_ts : 0), "first/last ts");
    FZ_CHECK(g->min_ts == s->min_ts && g->max_ts == (n ? s->max_ts : 0), "min/max ts: %llu..%llu vs %llu..%llu",
             (unsigned long long)g->min_ts, (unsigned long long)g->max_ts, (unsigned long long)s->min_ts,
             (unsigned long long)s->max_ts);
}

/* Two time range queries (bounds from p) of an index whose timestamps never
 * go backwards: exact. */
static void check_time_ranges(const atf_index_reader *r, uint64_t n, fz_params *p)
{
    atf_index_event e;
    for (int q = 0; q < 2; q++) {
        uint64_t t0, t1, first, last;
        if (n && fz_bool(p)) {
            atf_index_event a, b;
            atf_index_reader_get(r, fz_range(p, 0, n - 1), &a);
            atf_index_reader_get(r, fz_range(p, 0, n - 1), &b);
            t0 = a.timestamp_ns - (fz_bool(p) && a.timestamp_ns);
            t1 = b.timestamp_ns + (fz_bool(p) && b.timestamp_ns != UINT64_MAX);
        } else {
            t0 = fz_u64(p);
            t1 = fz_u64(p);
        }
        FZ_CHECK(atf_index_reader_time_range(r, t0, t1, &first, &last) == ATF_OK, "time_range");
        uint64_t want_first = 0, want_last = 0;
        if (t0 <= t1) {
            for (uint64_t seq = 0; seq < n; seq++) {
                atf_index_reader_get(r, seq, &e);
                want_first += e.timestamp_ns < t0;
                want_last += e.timestamp_ns <= t1;
            }
        }
        FZ_CHECK(first == want_first && last == want_last, "time_range(%llu, %llu) = [%llu, %llu), want [%llu, %llu)",
                 (unsigned long long)t0, (unsigned long long)t1, (unsigned long long)first,
                 (unsigned long long)last, (unsigned long long)want_first, (unsigned long long)want_last);
    }
}

void fz_check_index_reader(const atf_index_reader *r, const uint8_t *data, size_t size, fz_params *p)
{
    const atf_index_header *h = atf_index_reader_header(r);
    const atf_index_info *in = atf_index_reader_info(r);
    const atf_index_footer *f = atf_index_reader_footer(r);
    const uint64_t eo = h->events_offset, n = in->event_count;
    size_t bsize = 0;
    fz_model hm = fz_index_model(data, size, 0);
    FZ_CHECK(in->header_truncated == hm.header_truncated, "header_truncated: reader %d, rules %d",
             in->header_truncated, hm.header_truncated);
    if (in->header_truncated) {
        FZ_CHECK(n == 0 && !f && in->state == ATF_FILE_CRASH_TRUNCATED && in->trailing_bytes == size,
                 "a file cut inside its header has 0 events, no footer");
        return;
    }
    FZ_CHECK(in->state == (in->has_footer ? ATF_FILE_COMPLETE
                           : in->header_finalized ? ATF_FILE_DAMAGED : ATF_FILE_CRASH_TRUNCATED), "state");

    FZ_CHECK(atf_index_reader_bytes(r, &bsize) == data && bsize == size, "bytes() is not the input");
    FZ_CHECK(in->file_size == size, "file_size %llu != %zu", (unsigned long long)in->file_size, size);
    FZ_CHECK(in->layout == (atf_layout)h->version, "layout");
    FZ_CHECK(atf_index_reader_count(r) == n, "count() != info.event_count");
    FZ_CHECK(eo >= ATF_INDEX_HEADER_SIZE && eo <= size, "events_offset %llu outside the file",
             (unsigned long long)eo);
    FZ_CHECK(n <= (size - eo) / ATF_INDEX_EVENT_SIZE, "%llu events do not fit the file", (unsigned long long)n);
    FZ_CHECK(in->events_end == eo + n * ATF_INDEX_EVENT_SIZE, "events_end");
    FZ_CHECK(in->header_finalized == hm.finalized, "header_finalized: reader %d, rules %d", in->header_finalized,
             hm.finalized);
    FZ_CHECK((f != NULL) == (in->has_footer != 0), "footer() vs has_footer");
    FZ_CHECK(in->recovered == !in->has_footer, "recovered vs has_footer");

    atf_index_header again;
    FZ_CHECK(atf_index_header_decode(&again, data, size, NULL) == ATF_OK, "header no longer decodes");
    check_index_header_equal(&again, h);

    fz_model m = fz_index_model(data, size, in->scanned);
    FZ_CHECK(m.status == ATF_OK, "reader opened a file the rules reject with %s", atf_status_name(m.status));
    FZ_CHECK(in->has_footer == m.has_footer && (!m.has_footer || in->footer_offset == m.footer_offset),
             "footer: reader %d at %llu, rules %d at %llu", in->has_footer, (unsigned long long)in->footer_offset,
             m.has_footer, (unsigned long long)m.footer_offset);
    FZ_CHECK(n == m.event_count, "reader has %llu events, the rules give %llu", (unsigned long long)n,
             (unsigned long long)m.event_count);
    if (f) {
        uint64_t fo = in->footer_offset;
        FZ_CHECK(f->event_count == n, "footer count %llu, reader count %llu", (unsigned long long)f->event_count,
                 (unsigned long long)n);
        FZ_CHECK(in->events_end + in->trailing_bytes + ATF_INDEX_FOOTER_SIZE == size,
                 "events + trailing + footer != file size");
        atf_index_footer fd;
        FZ_CHECK(atf_index_footer_decode(&fd, data + fo, ATF_INDEX_FOOTER_SIZE, NULL) == ATF_OK &&
                     fd.checksum == f->checksum && fd.event_count == f->event_count &&
                     fd.bytes_written == f->bytes_written && fd.time_start_ns == f->time_start_ns &&
                     fd.time_end_ns == f->time_end_ns,
                 "footer decodes differently");
    } else {
        FZ_CHECK(in->events_end + in->trailing_bytes == size, "events + trailing != file size");
    }
    check_checksum_state(in->checksum, in->has_footer, f ? f->checksum : 0, in->scanned, in->layout,
                         data + eo, n * ATF_INDEX_EVENT_SIZE);

    /* Every event decodes, and encodes back to its bytes (reserved bytes aside). */
    atf_index_scan s;
    index_recount(r, data + eo, n, in->layout, &s);
    atf_index_event e;
    FZ_CHECK(atf_index_reader_get(r, n, &e) == ATF_E_RANGE, "get(count) must be out of range");
    if (in->scanned)
        check_index_scan(&in->scan, &s, n);
    /* Time range queries: exact when timestamps never go backwards. */
    if (s.backwards_count == 0)
        check_time_ranges(r, n, p);
}

void fz_check_detail_reader(const atf_detail_reader *r, const uint8_t *data, size_t size, int verified,
                            fz_params *p)
{
    const atf_detail_header *h = atf_detail_reader_header(r);
    const atf_detail_info *in = atf_detail_reader_info(r);
    const atf_detail_footer *f = atf_detail_reader_footer(r);
    const uint64_t eo = h->events_offset, n = in->event_count;
    size_t bsize = 0;
    if (in->header_truncated || header_prefix(data, size, ATF_DETAIL_MAGIC)) {
        FZ_CHECK(in->header_truncated && header_prefix(data, size, ATF_DETAIL_MAGIC), "header_truncated");
        FZ_CHECK(n == 0 && !f && in->state == ATF_FILE_CRASH_TRUNCATED && in->trailing_bytes == size,
                 "a file cut inside its header has 0 events, no footer");
        return;
    }

    FZ_CHECK(atf_detail_reader_bytes(r, &bsize) == data && bsize == size, "bytes() is not the input");
    FZ_CHECK(in->file_size == size && in->layout == (atf_layout)h->version, "file_size/layout");
    FZ_CHECK(atf_detail_reader_count(r) == n, "count()");
    FZ_CHECK(eo >= ATF_DETAIL_HEADER_SIZE && eo <= size && in->events_end >= eo && in->events_end <= size,
             "events section outside the file");
    FZ_CHECK(n <= (in->events_end - eo) / ATF_DETAIL_EVENT_HEADER_SIZE, "more events than bytes allow");
    FZ_CHECK(in->header_finalized == (h->bytes_length != 0 || h->event_count != 0), "header_finalized");
    FZ_CHECK((f != NULL) == (in->has_footer != 0) && in->recovered == !in->has_footer, "footer flags");

    fz_model m = fz_detail_model(data, size, verified);
    FZ_CHECK(m.status == ATF_OK, "reader opened a file the rules reject with %s", atf_status_name(m.status));
    FZ_CHECK(in->has_footer == m.has_footer && (!m.has_footer || in->footer_offset == m.footer_offset),
             "footer: reader %d at %llu, rules %d at %llu", in->has_footer, (unsigned long long)in->footer_offset,
             m.has_footer, (unsigned long long)m.footer_offset);
    FZ_CHECK(n == m.event_count && in->events_end == m.events_end,
             "reader has %llu events ending at %llu, the rules give %llu at %llu", (unsigned long long)n,
             (unsigned long long)in->events_end, (unsigned long long)m.event_count,
             (unsigned long long)m.events_end);
    if (f) {
        FZ_CHECK(f->event_count == n && in->events_end == in->footer_offset, "footer count / section end");
        FZ_CHECK(in->events_end + in->trailing_bytes + ATF_DETAIL_FOOTER_SIZE == size, "sizes");
    } else {
        FZ_CHECK(in->events_end + in->trailing_bytes == size, "events + trailing != file size");
    }
    check_checksum_state(in->checksum, in->has_footer, f ? f->checksum : 0, verified, in->layout, data + eo,
                         f ? f->bytes_length : 0);

    uint64_t pos = eo, backwards = 0, first_back = 0, prev = 0, lo = 0, hi = 0;
    for (uint64_t seq = 0; seq < n; seq++) {
        atf_detail_event ev;
        FZ_CHECK(atf_detail_reader_offset(r, seq) == pos, "offset(%llu)", (unsigned long long)seq);
        FZ_CHECK(atf_detail_reader_get(r, seq, &ev) == ATF_OK, "get(%llu)", (unsigned long long)seq);
        FZ_CHECK(ev.total_length >= ATF_DETAIL_EVENT_HEADER_SIZE && ev.payload_size == ev.total_length - 24 &&
                     (ev.payload_size == 0 || ev.payload == data + pos + 24),
                 "event %llu view", (unsigned long long)seq);
        uint8_t *raw = malloc(ev.total_length);
        FZ_CHECK(raw != NULL, "oom");
        atf_status est = atf_detail_event_encode(raw, ev.total_length, &ev, in->layout);
        FZ_CHECK(est == ATF_OK && memcmp(raw, data + pos, ev.total_length) == 0,
                 "detail event %llu re-encodes differently", (unsigned long long)seq);
        free(raw);
        if (seq > 0 && ev.timestamp < prev && backwards++ == 0)
            first_back = seq;
        prev = ev.timestamp;
        lo = seq == 0 || ev.index_seq < lo ? ev.index_seq : lo;
        hi = seq == 0 || ev.index_seq > hi ? ev.index_seq : hi;
        if (seq == 0)
            FZ_CHECK(in->first_ts == ev.timestamp, "first_ts");
        if (seq == n - 1)
            FZ_CHECK(in->last_ts == ev.timestamp, "last_ts");
        pos += ev.total_length;
    }
    FZ_CHECK(pos == in->events_end, "offsets do not add up to events_end");
    FZ_CHECK(atf_detail_reader_offset(r, n) == UINT64_MAX, "offset(count)");
    atf_detail_event ev;
    FZ_CHECK(atf_detail_reader_get(r, n, &ev) == ATF_E_RANGE, "get(count)");
    FZ_CHECK(in->backwards_count == backwards && (!backwards || in->first_backwards_seq == first_back),
             "backwards: reader %llu, recount %llu", (unsigned long long)in->backwards_count,
             (unsigned long long)backwards);
    FZ_CHECK(!n || (in->min_index_seq == lo && in->max_index_seq == hi), "index_seq range");

    /* Forward navigation from an index event with a chosen link. */
    atf_index_event ie = { 0 };
    ie.detail_seq = fz_bool(p) ? ATF_NO_DETAIL : fz_range(p, 0, n + 1);
    atf_status st = atf_detail_reader_follow(r, &ie, &ev);
    if (ie.detail_seq == ATF_NO_DETAIL)
        FZ_CHECK(st == ATF_E_NOT_FOUND, "follow(no detail)");
    else if (ie.detail_seq >= n)
        FZ_CHECK(st == ATF_E_RANGE, "follow past the end");
    else
        FZ_CHECK(st == ATF_OK && atf_detail_reader_offset(r, ie.detail_seq) + 24 + ev.payload_size <= size,
                 "follow");
}

/* ---- Merge -------------------------------------------------------------- */

uint64_t fz_check_merge(const atf_session *s)
{
    size_t k = atf_session_thread_count(s);
    uint64_t *next = calloc(k ? k : 1, sizeof *next);
    int all_sorted = 1;
    uint64_t total = 0;
    FZ_CHECK(next != NULL, "oom");
    for (size_t i = 0; i < k; i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        FZ_CHECK(i == 0 || atf_session_thread_at(s, i - 1)->id < t->id, "threads not sorted by id");
        if (!t->index)   /* its index file could not be read: not in the merge */
            continue;
        const atf_index_info *in = atf_index_reader_info(t->index);
        total += in->event_count;
        if (in->scanned ? in->scan.backwards_count != 0 : 1) {
            /* Recount: scan results are only there when verification was on. */
            atf_index_event a, b;
            for (uint64_t q = 1; q < in->event_count; q++) {
                atf_index_reader_get(t->index, q - 1, &a);
                atf_index_reader_get(t->index, q, &b);
                if (b.timestamp_ns < a.timestamp_ns) {
                    all_sorted = 0;
                    break;
                }
            }
        }
    }
    atf_merge *m = NULL;
    FZ_CHECK(atf_merge_create(&m, s) == ATF_OK, "merge_create");
    atf_merged_event me;
    uint64_t produced = 0, prev_ts = 0, prev_tid = 0, prev_seq = 0;
    while (atf_merge_next(m, &me)) {
        /* Reference: the smallest head by (timestamp, thread id, seq). */
        size_t best = SIZE_MAX;
        atf_index_event best_ev = { 0 };
        for (size_t i = 0; i < k; i++) {
            const atf_session_thread *t = atf_session_thread_at(s, i);
            atf_index_event e;
            if (atf_index_reader_get(t->index, next[i], &e) != ATF_OK)
                continue;
            if (best == SIZE_MAX || e.timestamp_ns < best_ev.timestamp_ns ||
                (e.timestamp_ns == best_ev.timestamp_ns && t->id < atf_session_thread_at(s, best)->id)) {
                best = i;
                best_ev = e;
            }
        }
        FZ_CHECK(best != SIZE_MAX, "merge produced more than %llu events", (unsigned long long)total);
        const atf_session_thread *bt = atf_session_thread_at(s, best);
        FZ_CHECK(me.thread_index == best && me.thread_id == bt->id && me.seq == next[best],
                 "merge step %llu: got thread %llu seq %llu, reference thread %llu seq %llu",
                 (unsigned long long)produced, (unsigned long long)me.thread_id, (unsigned long long)me.seq,
                 (unsigned long long)bt->id, (unsigned long long)next[best]);
        FZ_CHECK(me.event.timestamp_ns == best_ev.timestamp_ns && me.event.function_id == best_ev.function_id &&
                     me.event.detail_seq == best_ev.detail_seq && me.event.event_kind == best_ev.event_kind,
                 "merged event differs from the thread's event");
        if (all_sorted && produced > 0)
            FZ_CHECK(me.event.timestamp_ns > prev_ts ||
                         (me.event.timestamp_ns == prev_ts &&
                          (me.thread_id > prev_tid || (me.thread_id == prev_tid && me.seq > prev_seq))),
                     "merge output not sorted by (timestamp, thread, seq)");
        prev_ts = me.event.timestamp_ns;
        prev_tid = me.thread_id;
        prev_seq = me.seq;
        next[best]++;
        produced++;
    }
    FZ_CHECK(produced == total, "merge produced %llu of %llu events", (unsigned long long)produced,
             (unsigned long long)total);
    FZ_CHECK(atf_merge_next(m, &me) == 0, "merge continues after the end");
    atf_merge_destroy(m);
    free(next);
    return produced;
}

/* ---- Open + check ------------------------------------------------------- */

void fz_index_open_and_check(const uint8_t *data, size_t size, int verify, fz_params *p)
{
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = verify != 0;
    /* One input in four is verified in 2-4 parts on threads (the default
     * keeps inputs this small on one): the checks below recount the scan
     * and the CRC, so the parts' join is checked against one pass. */
    if (size % 4 == 0)
        ro.threads = 2 + (unsigned)(size / 4 % 3);
    atf_index_reader *r = NULL;
    atf_error err;
    atf_status st = atf_index_reader_open_memory(&r, data, size, "fuzz.index.atf", &ro, &err);
    fz_model m = fz_index_model(data, size, verify);
    FZ_CHECK(st == m.status, "index open returned %s, the rules say %s (%s)", atf_status_name(st),
             atf_status_name(m.status), st ? err.message : "");
    if (st) {
        fz_check_error(&err, st, "index open");
        FZ_CHECK(r == NULL && strcmp(err.file, "fuzz.index.atf") == 0, "failed open: reader or file name");
        return;
    }
    fz_check_index_reader(r, data, size, p);
    atf_index_reader_close(r);
}

void fz_detail_open_and_check(const uint8_t *data, size_t size, int verify, fz_params *p)
{
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = verify != 0;
    atf_detail_reader *r = NULL;
    atf_error err;
    atf_status st = atf_detail_reader_open_memory(&r, data, size, "fuzz.detail.atf", &ro, &err);
    fz_model m = fz_detail_model(data, size, verify);
    FZ_CHECK(st == m.status, "detail open returned %s, the rules say %s (%s)", atf_status_name(st),
             atf_status_name(m.status), st ? err.message : "");
    if (st) {
        fz_check_error(&err, st, "detail open");
        FZ_CHECK(r == NULL && strcmp(err.file, "fuzz.detail.atf") == 0, "failed open: reader or file name");
        return;
    }
    fz_check_detail_reader(r, data, size, verify, p);
    atf_detail_reader_close(r);
}

/* ---- Footers (both kinds) ---------------------------------------------- */

void fz_check_footer(const fz_footer_codec *c, const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    fz_footer f;
    atf_error err;
    atf_status st = c->decode(&f, data, size, &err);
    atf_status want = size < 64 ? ATF_E_TRUNCATED : memcmp(data, c->magic, 4) ? ATF_E_MAGIC : ATF_OK;
    FZ_CHECK(st == want, "%s: decode returned %s, the rules say %s", c->what, atf_status_name(st),
             atf_status_name(want));
    uint8_t raw[64];
    if (st == ATF_OK) {
        uint8_t want_raw[64];
        memcpy(want_raw, data, 64);
        int reserved_set = 0;
        for (int i = 40; i < 64; i++)
            reserved_set |= want_raw[i];
        memset(want_raw + 40, 0, 24);
        FZ_CHECK(f.reserved_nonzero == (reserved_set != 0), "%s: reserved_nonzero", c->what);
        FZ_CHECK(f.checksum == fz_le32(data + 4) && f.field[0] == fz_le64(data + 8) && f.field[1] == fz_le64(data + 16) &&
                     f.field[2] == fz_le64(data + 24) && f.field[3] == fz_le64(data + 32),
                 "%s: fields are not at their offsets", c->what);
        FZ_CHECK(c->encode(raw, sizeof raw, &f) == ATF_OK && memcmp(raw, want_raw, 64) == 0,
                 "%s: decode -> encode changed the footer", c->what);
        FZ_CHECK(c->encode(raw, 63, &f) == ATF_E_ARG, "%s: encode into 63 bytes", c->what);
    } else {
        fz_check_error(&err, st, c->what);
        FZ_CHECK(err.field != NULL && err.offset == 0, "%s: error field/offset", c->what);
    }
    fz_footer v = { fz_u32(&p), { fz_u64(&p), fz_u64(&p), fz_u64(&p), fz_u64(&p) }, 0 }, back;
    FZ_CHECK(c->encode(raw, sizeof raw, &v) == ATF_OK && c->decode(&back, raw, sizeof raw, NULL) == ATF_OK,
             "%s: encode -> decode", c->what);
    FZ_CHECK(back.checksum == v.checksum && memcmp(back.field, v.field, sizeof v.field) == 0 && !back.reserved_nonzero,
             "%s: encode -> decode is not the identity", c->what);
}

/* ---- Session container -------------------------------------------------- */

size_t fz_container_unpack(const uint8_t *data, size_t size, const char *dir)
{
    size_t pos = 0;
    char path[700];
    while (size - pos >= 10 && memcmp(data + pos, FZ_CONTAINER_MAGIC, 4) == 0) {
        uint8_t kind = data[pos + 4], thread = data[pos + 5];
        size_t len = fz_le32(data + pos + 6);
        if (kind != FZ_REC_MANIFEST && kind != FZ_REC_INDEX && kind != FZ_REC_DETAIL && kind != FZ_REC_DIR)
            break;
        pos += 10;
        if (len > size - pos)
            len = size - pos; /* a length past the end takes the rest */
        const uint8_t *body = data + pos;
        pos += len;
        if (kind == FZ_REC_MANIFEST) {
            snprintf(path, sizeof path, "%s/manifest.json", dir);
            fz_write_file(path, body, len);
            continue;
        }
        snprintf(path, sizeof path, "%s/thread_%u", dir, (unsigned)thread);
        FZ_CHECK(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
        if (kind == FZ_REC_DIR)
            continue;
        snprintf(path, sizeof path, "%s/thread_%u/%s", dir, (unsigned)thread,
                 kind == FZ_REC_INDEX ? "index.atf" : "detail.atf");
        fz_write_file(path, body, len);
    }
    return pos;
}

