/* The detail file pass (SPEC.md sections 3, 6 and 7), with the backward
 * half of the cross-lane links (section 4): one walk over the events by
 * total_length; every detail event is paired with the index event its
 * index_seq names, in O(1) through the index file's fixed-size records. */
#include <inttypes.h>
#include <string.h>

#include <atf/crc32c.h>

#include <atf/reader.h>

#include "atf_pass.h"

/* CRC32-C is computed behind the walk in blocks that stay cache-resident. */
#define CRC_BLOCK ((uint64_t)256 * 1024)

static int header_identity(atf_validation *v, size_t file, const uint8_t *d, uint64_t size)
{
    return v_header_identity(v, file, d, size, ATF_DETAIL_MAGIC, ATF_DETAIL_HEADER_SIZE, "detail", C_DET_HDR_001, C_DET_HDR_002,
                             C_DET_HDR_003);
}

static void header_warnings(atf_validation *v, size_t file, const uint8_t *d)
{
    v_check(v, C_DET_HDR_004);
    if (d[6] != ATF_ARCH_X86_64 && d[6] != ATF_ARCH_ARM64)
        v_report(v, file, C_DET_HDR_004, 0, 6, "arch", "arch is %u, not 1 (x86_64) or 2 (arm64)", d[6]);
    if (d[7] < ATF_OS_IOS || d[7] > ATF_OS_WINDOWS)
        v_report(v, file, C_DET_HDR_004, 0, 7, "os", "os is %u, not one of 1..5", d[7]);
    v_check(v, C_DET_HDR_005);
    uint32_t flags = atf_load_le32(d + 8);
    if (flags)
        v_report(v, file, C_DET_HDR_005, 0, 8, "flags", "flags is 0x%08" PRIx32 ", reserved: should be 0", flags);
    size_t k = v_first_nonzero(d + 16, 4);
    if (k < 4)
        v_report(v, file, C_DET_HDR_005, 0, 16 + k, "reserved", "reserved header byte %zu is 0x%02x, not 0", 16 + k,
                 d[16 + k]);
    k = v_first_nonzero(d + 60, 4);
    if (k < 4)
        v_report(v, file, C_DET_HDR_005, 0, 60 + k, "reserved", "reserved header byte %zu is 0x%02x, not 0", 60 + k,
                 d[60 + k]);
}

/* ARM64 function payload of the event at pos (section 3.4). @return 1 and
 * sets *fid when the payload is long enough to hold a function_id. */
static int check_arm64(atf_validation *v, size_t file, const uint8_t *d, uint64_t pos, uint64_t dseq,
                       uint32_t psize, uint64_t *fid)
{
    const uint8_t *p = d + pos + ATF_DETAIL_EVENT_HEADER_SIZE;
    const uint64_t po = pos + ATF_DETAIL_EVENT_HEADER_SIZE;
    if (psize < ATF_ARM64_PAYLOAD_FIXED_SIZE) {
        v_report(v, file, C_ARM_PAY_001, 0, po, "payload",
                 "detail event %" PRIu64 ": ARM64 payload is %" PRIu32 " bytes, less than 100", dseq, psize);
        return 0;
    }
    uint16_t ss = atf_load_le16(p + 96), res = atf_load_le16(p + 98);
    if (ss > ATF_ARM64_STACK_MAX)
        v_report(v, file, C_ARM_PAY_002, 0, po + 96, "stack_size",
                 "detail event %" PRIu64 ": stack_size is %u, more than 256", dseq, ss);
    if (psize != ATF_ARM64_PAYLOAD_FIXED_SIZE + (uint32_t)ss)
        v_report(v, file, C_ARM_PAY_003, 0, po + 96, "stack_size",
                 "detail event %" PRIu64 ": payload is %" PRIu32 " bytes, not 100 + stack_size (%u)", dseq, psize,
                 ss);
    if (res)
        v_report(v, file, C_ARM_PAY_004, 0, po + 98, "reserved",
                 "detail event %" PRIu64 ": reserved is 0x%04x, not 0", dseq, res);
    *fid = atf_load_le64(p);
    return 1;
}

/* One detail file as the pass reads it: the header's fields, where the
 * footer is, and what the walk over the events found. */
typedef struct dpass {
    atf_validation *v;
    size_t file;
    const uint8_t *d;
    uint64_t size, data_end;
    const vindex *ix;        /* the thread's index, or NULL */
    uint64_t *confirmed_bits;
    int l1, arm64, links, finalized;
    uint32_t h_tid;
    uint64_t eo, h_count, h_len, h_iss, h_ise;
    int has_footer, want_crc;
    uint64_t fo, end;        /* footer offset; end of the events section */
    atf_detail_footer f;
    /* The walk. */
    int complete;
    uint64_t pos, j, last_ts, first_ts, first_iseq, last_iseq, nconf, crc_done;
    uint32_t crc;
} dpass;

/* Where the footer is (section 6): p->has_footer, p->fo, p->end. */
static void detail_locate_footer(dpass *p)
{
    const uint8_t *d = p->d;
    const uint64_t size = p->size, eo = p->eo;
    p->end = size;
    if (p->finalized && p->h_len <= size - eo) {
        uint64_t at = eo + p->h_len;
        p->end = at;
        if (size - at >= ATF_DETAIL_FOOTER_SIZE && memcmp(d + at, ATF_DETAIL_FOOTER_MAGIC, 4) == 0) {
            p->has_footer = 1;
            p->fo = at;
        }
    }
    if (!p->has_footer && size - eo >= ATF_DETAIL_FOOTER_SIZE) {
        /* A placeholder's footer; and a finalized header's when it is not
         * where the header says (SPEC 6): the last 64 bytes, lined up. */
        uint64_t at = size - ATF_DETAIL_FOOTER_SIZE;
        if (memcmp(d + at, ATF_DETAIL_FOOTER_MAGIC, 4) == 0 && atf_load_le64(d + at + 16) == at - eo) {
            p->has_footer = 1;
            p->fo = at;
            p->end = at;
            if (p->finalized) {
                v_check(p->v, C_DET_HDR_007);
                v_report(p->v, p->file, C_DET_HDR_007, 0, 36, "bytes_length",
                         "the footer is at %" PRIu64 " (the end of the file), not at events_offset + bytes_length "
                         "(%" PRIu64 " + %" PRIu64 ")",
                         at, eo, p->h_len);
            }
        }
    }
}

/* The clauses the walk over the events evaluates. */
static void detail_marks(const dpass *p)
{
    atf_validation *v = p->v;
    v_check(v, C_DET_EVT_003);
    v_check(v, C_DET_EVT_004);
    v_check(v, C_DET_EVT_005);
    if (p->l1)
        v_check(v, C_DET_EVT_006);
    if (p->has_footer) {
        v_check(v, C_DET_EVT_001);
        v_check(v, C_DET_EVT_002);
    }
    if (p->arm64) {
        v_check(v, C_ARM_PAY_001);
        v_check(v, C_ARM_PAY_002);
        v_check(v, C_ARM_PAY_003);
        v_check(v, C_ARM_PAY_004);
        if (p->links)
            v_check(v, C_ARM_PAY_005);
    }
    if (p->links) {
        v_check(v, C_LINK_003);
        v_check(v, C_LINK_004);
        v_check(v, C_LINK_007);
    }
}

/* An event whose total_length does not fit (DET-EVT-001, -002: only before
 * a footer; without one the rest is the crash's). */
static void detail_bad_length(dpass *p, uint64_t pos, uint64_t rem, uint32_t tl)
{
    if (!p->has_footer)
        return;
    p->complete = 0;
    if (rem < ATF_DETAIL_EVENT_HEADER_SIZE)
        v_report(p->v, p->file, C_DET_EVT_002, 0, pos, "total_length",
                 "detail event %" PRIu64 ": %" PRIu64 " bytes are left before the footer, less than a 24-byte event header",
                 p->j, rem);
    else if (tl < ATF_DETAIL_EVENT_HEADER_SIZE)
        v_report(p->v, p->file, C_DET_EVT_001, 0, pos, "total_length",
                 "detail event %" PRIu64 ": total_length is %" PRIu32 ", less than 24", p->j, tl);
    else
        v_report(p->v, p->file, C_DET_EVT_002, 0, pos, "total_length",
                 "detail event %" PRIu64 ": total_length %" PRIu32 " runs %" PRIu64 " bytes past the events section",
                 p->j, tl, tl - rem);
}

/* The backward link of detail event j at pos to index event iseq (LINK-003,
 * -004), and for a pair linked both ways LINK-007 and ARM-PAY-005. */
static void detail_link(dpass *p, uint64_t pos, uint64_t j, uint64_t iseq, uint64_t ts, int has_fid, uint64_t fid)
{
    atf_validation *v = p->v;
    const vindex *ix = p->ix;
    if (iseq >= ix->n) {
        /* SPEC 7a.4: a link into or out of a file without a footer is a warning. */
        int lost = !ix->has_footer || !p->has_footer;
        v_report(v, p->file, C_LINK_003, lost ? ATF_SEV_WARNING : 0, pos + 8, "index_seq",
                 "detail event %" PRIu64 ": index_seq %" PRIu64 " is past the %" PRIu64 " events of the index file%s",
                 j, iseq, ix->n, lost ? " (a file without a footer: recoverable)" : "");
        return;
    }
    const uint8_t *ie = ix->data + ix->eo + iseq * ATF_INDEX_EVENT_SIZE;
    uint64_t back;
    if (ix->layout == ATF_LAYOUT_1) {
        uint32_t s = atf_load_le32(ie + 28);
        back = s == ATF_NO_DETAIL_L1 ? ATF_NO_DETAIL : s;
    } else {
        back = atf_load_le64(ie + 16);
    }
    if (back != j) {
        if (back == ATF_NO_DETAIL)
            v_report(v, p->file, C_LINK_004, 0, pos + 8, "index_seq",
                     "detail event %" PRIu64 ": index event %" PRIu64 " has no detail link", j, iseq);
        else
            v_report(v, p->file, C_LINK_004, 0, pos + 8, "index_seq",
                     "detail event %" PRIu64 ": index event %" PRIu64 " links to detail event %" PRIu64, j, iseq,
                     back);
        return;
    }
    p->nconf++;
    if (p->confirmed_bits)
        p->confirmed_bits[iseq >> 6] |= (uint64_t)1 << (iseq & 63);
    uint64_t its = atf_load_le64(ie);
    if (ts != its)
        v_report(v, p->file, C_LINK_007, 0, pos + 16, "timestamp",
                 "detail event %" PRIu64 ": timestamp %" PRIu64 " differs from index event %" PRIu64
                 "'s timestamp_ns %" PRIu64,
                 j, ts, iseq, its);
    uint64_t ifid = atf_load_le64(ie + 8);
    if (has_fid && fid != ifid)
        v_report(v, p->file, C_ARM_PAY_005, 0, pos + ATF_DETAIL_EVENT_HEADER_SIZE, "function_id",
                 "detail event %" PRIu64 ": payload function_id 0x%" PRIx64 " differs from index event %" PRIu64
                 "'s 0x%" PRIx64,
                 j, fid, iseq, ifid);
}

/* The events, by total_length, up to p->end (DET-EVT-*, ARM-PAY-*, the
 * backward links), with the checksum computed behind the walk. */
static void detail_walk(dpass *p)
{
    atf_validation *v = p->v;
    const size_t file = p->file;
    const uint8_t *d = p->d;
    const int l1 = p->l1;
    uint64_t pos = p->eo, j = 0, prev_ts = 0, prev_iseq = 0;
    p->crc_done = p->eo;
    p->complete = 1;
    while (pos < p->end) {
        const uint64_t rem = p->end - pos;
        uint32_t tl = rem >= 4 ? atf_load_le32(d + pos) : 0;
        if (rem < ATF_DETAIL_EVENT_HEADER_SIZE || tl < ATF_DETAIL_EVENT_HEADER_SIZE || tl > rem) {
            p->j = j;
            detail_bad_length(p, pos, rem, tl);
            break;
        }
        const uint8_t *e = d + pos;
        const uint16_t type = atf_load_le16(e + 4);
        const uint64_t iseq = l1 ? atf_load_le32(e + 8) : atf_load_le64(e + 8);
        const uint64_t ts = atf_load_le64(e + 16);
        if (type != ATF_DETAIL_FUNCTION_CALL && type != ATF_DETAIL_FUNCTION_RETURN)
            v_report(v, file, C_DET_EVT_003, 0, pos + 4, "event_type",
                     "detail event %" PRIu64 ": event_type is %u, not 3 (call) or 4 (return)", j, type);
        if (j == 0) {
            p->first_ts = ts;
            p->first_iseq = iseq;
        } else {
            if (ts < prev_ts)
                v_report(v, file, C_DET_EVT_004, 0, pos + 16, "timestamp",
                         "detail event %" PRIu64 ": timestamp %" PRIu64 " is lower than the previous event's %" PRIu64,
                         j, ts, prev_ts);
            if (iseq <= prev_iseq)
                v_report(v, file, C_DET_EVT_005, 0, pos + 8, "index_seq",
                         "detail event %" PRIu64 ": index_seq %" PRIu64 " does not increase (previous %" PRIu64 ")", j,
                         iseq, prev_iseq);
        }
        if (l1 && atf_load_le32(e + 12) != p->h_tid)
            v_report(v, file, C_DET_EVT_006, 0, pos + 12, "thread_id",
                     "detail event %" PRIu64 ": thread_id %" PRIu32 " differs from the header's %" PRIu32, j,
                     atf_load_le32(e + 12), p->h_tid);
        uint64_t fid = 0;
        int has_fid = 0;
        if (p->arm64 && (type == ATF_DETAIL_FUNCTION_CALL || type == ATF_DETAIL_FUNCTION_RETURN))
            has_fid = check_arm64(v, file, d, pos, j, tl - ATF_DETAIL_EVENT_HEADER_SIZE, &fid);
        if (p->links)
            detail_link(p, pos, j, iseq, ts, has_fid, fid);
        prev_ts = ts;
        prev_iseq = iseq;
        pos += tl;
        j++;
        if (p->want_crc && pos - p->crc_done >= CRC_BLOCK) {
            p->crc = atf_crc32c(p->crc, d + p->crc_done, (size_t)(pos - p->crc_done));
            p->crc_done = pos;
        }
    }
    p->pos = pos;
    p->j = j;
    p->last_ts = prev_ts;
    p->last_iseq = prev_iseq;
}

/* A placeholder header and no footer: crash-truncated (REC-001, -002, -003, -005). */
static void detail_crash_truncated(const dpass *p)
{
    atf_validation *v = p->v;
    const uint64_t size = p->size, pos = p->pos, j = p->j, data_end = p->data_end;
    v_check(v, C_REC_001);
    v_check(v, C_REC_002);
    v_check(v, C_REC_003);
    v_check(v, C_REC_005);
    const uint64_t trailing = size - pos;
    const uint8_t *t = p->d + pos;
    char what[256];
    atf_file_state_describe(what, sizeof what, ATF_FILE_CRASH_TRUNCATED, 0, size, j, trailing);
    v_report(v, p->file, C_REC_001, 0, pos, "footer", "%s", what);
    if (trailing == 0) {
        /* nothing after the last complete event */
    } else if (trailing >= 16 && memcmp(t, ATF_DETAIL_FOOTER_MAGIC, 4) == 0 && atf_load_le64(t + 8) == j) {
        /* SPEC 7a.5: "2DTA" and, at byte 8, the number of events before it. */
        v_report(v, p->file, C_REC_003, 0, pos, "footer",
                 "torn footer (crash during finalize): %" PRIu64 " bytes starting with \"2DTA\" are not an event",
                 trailing);
    } else if (pos >= data_end || v_first_nonzero(t, (size_t)((data_end < size ? data_end : size) - pos)) ==
                                      (data_end < size ? data_end : size) - pos) {
        /* A zero-filled tail: the scan stops at total_length 0; not REC-002 or REC-005 (SPEC 7a.6). */
    } else if (trailing >= ATF_DETAIL_EVENT_HEADER_SIZE && atf_load_le32(t) < ATF_DETAIL_EVENT_HEADER_SIZE) {
        v_report(v, p->file, C_REC_005, 0, pos, "total_length",
                 "after the %" PRIu64 " recovered events: a complete record with total_length %" PRIu32
                 " (less than 24), not a partial event or a torn footer",
                 j, atf_load_le32(t));
    } else {
        v_report(v, p->file, C_REC_002, 0, pos, "event",
                 "partial event of %" PRIu64 " bytes after the last complete event ignored", trailing);
    }
}

/* No footer: REC-004 (and DET-HDR-007) for a finalized header, else a
 * crash-truncated file; the events recovered. */
static void detail_no_footer(const dpass *p)
{
    if (p->finalized) {
        int inside = p->h_len <= p->size - p->eo;
        /* DET-HDR-007 also says where the footer MUST be. */
        v_check(p->v, C_DET_HDR_007);
        v_report(p->v, p->file, C_DET_HDR_007, 0, 36, "bytes_length",
                 "no footer at events_offset + bytes_length (%" PRIu64 " + %" PRIu64 ")", p->eo, p->h_len);
        char what[256];
        atf_file_state_describe(what, sizeof what, ATF_FILE_DAMAGED, 0, p->size, p->j, p->size - p->pos);
        v_report(p->v, p->file, C_REC_004, 0, inside ? p->eo + p->h_len : 36, inside ? "footer.magic" : "bytes_length",
                 "%s; the header says event_count %" PRIu64 ", bytes_length %" PRIu64 " and the footer would be %s",
                 what, p->h_count, p->h_len, inside ? "at events_offset + bytes_length" : "past the end of the file");
    } else {
        detail_crash_truncated(p);
    }
    v_recovered(p->v, p->file, p->j);
}

/* The header against the footer and the events (DET-HDR-007 to -009). */
static void detail_header_vs_footer(const dpass *p)
{
    atf_validation *v = p->v;
    const atf_detail_footer *f = &p->f;
    v_check(v, C_DET_HDR_009);
    if (!p->finalized && f->event_count != 0)
        v_report(v, p->file, C_DET_HDR_009, 0, 28, "event_count",
                 "the header is still the placeholder (event_count 0, bytes_length 0) although the footer is at %" PRIu64
                 " with %" PRIu64 " events: finalize stopped before the header was rewritten, or the writer never "
                 "rewrites it",
                 p->fo, f->event_count);
    if (!p->finalized)
        return;
    v_check(v, C_DET_HDR_007);
    if (p->h_count != f->event_count)
        v_report(v, p->file, C_DET_HDR_007, 0, 28, "event_count",
                 "header event_count %" PRIu64 " differs from the footer's %" PRIu64, p->h_count, f->event_count);
    if (p->h_len != f->bytes_length)
        v_report(v, p->file, C_DET_HDR_007, 0, 36, "bytes_length",
                 "header bytes_length %" PRIu64 " differs from the footer's %" PRIu64, p->h_len, f->bytes_length);
    if (p->complete && p->j) {
        v_check(v, C_DET_HDR_008);
        if (p->h_iss != p->first_iseq)
            v_report(v, p->file, C_DET_HDR_008, 0, 44, "index_seq_start",
                     "index_seq_start is %" PRIu64 ", the first event's index_seq is %" PRIu64, p->h_iss,
                     p->first_iseq);
        if (p->h_ise != p->last_iseq)
            v_report(v, p->file, C_DET_HDR_008, 0, 52, "index_seq_end",
                     "index_seq_end is %" PRIu64 ", the last event's index_seq is %" PRIu64, p->h_ise, p->last_iseq);
    }
}

/* The footer (DET-FTR-*), the header against it, the checksum (section 7). */
static void detail_footer(dpass *p)
{
    atf_validation *v = p->v;
    const atf_detail_footer *f = &p->f;
    const uint64_t fo = p->fo, eo = p->eo, j = p->j;
    v_check(v, C_DET_FTR_001);
    if (p->complete && f->event_count != j)
        v_report(v, p->file, C_DET_FTR_001, 0, fo + 8, "footer.event_count",
                 "footer event_count is %" PRIu64 ", the events section holds %" PRIu64, f->event_count, j);
    v_check(v, C_DET_FTR_002);
    if (f->bytes_length != fo - eo)
        v_report(v, p->file, C_DET_FTR_002, 0, fo + 16, "footer.bytes_length",
                 "footer bytes_length is %" PRIu64 ", the events section is %" PRIu64 " bytes", f->bytes_length,
                 fo - eo);
    if (p->complete) {
        v_check(v, C_DET_FTR_003);
        uint64_t t0 = j ? p->first_ts : 0, t1 = j ? p->last_ts : 0;
        if (f->time_start_ns != t0)
            v_report(v, p->file, C_DET_FTR_003, 0, fo + 24, "footer.time_start_ns",
                     "footer time_start_ns %" PRIu64 " is not the first event's timestamp %" PRIu64, f->time_start_ns,
                     t0);
        if (f->time_end_ns != t1)
            v_report(v, p->file, C_DET_FTR_003, 0, fo + 32, "footer.time_end_ns",
                     "footer time_end_ns %" PRIu64 " is not the last event's timestamp %" PRIu64, f->time_end_ns, t1);
    }
    v_check(v, C_DET_FTR_004);
    size_t k = v_first_nonzero(p->d + fo + 40, 24);
    if (k < 24)
        v_report(v, p->file, C_DET_FTR_004, 0, fo + 40 + k, "footer.reserved",
                 "reserved footer byte %zu is 0x%02x, not 0", 40 + k, p->d[fo + 40 + k]);
    v_check(v, C_DET_FTR_005);
    if (p->size - fo > ATF_DETAIL_FOOTER_SIZE)
        v_report(v, p->file, C_DET_FTR_005, 0, fo + ATF_DETAIL_FOOTER_SIZE, "footer",
                 "%" PRIu64 " bytes follow the footer", p->size - fo - ATF_DETAIL_FOOTER_SIZE);
    detail_header_vs_footer(p);
    v_checksum_zero(v, p->file, p->l1, f->checksum, fo, fo > eo);
    if (!p->want_crc)
        return;
    uint32_t crc = atf_crc32c(p->crc, p->d + p->crc_done, (size_t)(fo - p->crc_done));
    v_checksum_verdict(v, p->file, p->l1, f->checksum, fo, p->d + eo, fo - eo, crc);
}

void v_detail_pass(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                   const vindex *ix, uint64_t *confirmed_bits, uint64_t *confirmed, vdetail *out)
{
    memset(out, 0, sizeof *out);
    if (confirmed)
        *confirmed = 0;
    int id = header_identity(v, file, d, size);
    if (id == V_HEADER_TRUNCATED) {
        /* 0 events, no footer: links into it are the recoverable kind. */
        out->usable = 1;
        out->complete = 1;
        out->layout = (atf_layout)(size > 5 ? d[5] : 0);
        return;
    }
    if (id != V_HEADER_OK)
        return;
    const atf_layout layout = (atf_layout)d[5];
    header_warnings(v, file, d);
    dpass p;
    memset(&p, 0, sizeof p);
    p.v = v;
    p.file = file;
    p.d = d;
    p.size = size;
    p.data_end = data_end;
    p.ix = ix;
    p.confirmed_bits = confirmed_bits;
    p.l1 = layout == ATF_LAYOUT_1;
    p.h_tid = atf_load_le32(d + 12);
    p.eo = atf_load_le64(d + 20);
    p.h_count = atf_load_le64(d + 28);
    p.h_len = atf_load_le64(d + 36);
    p.h_iss = atf_load_le64(d + 44);
    p.h_ise = atf_load_le64(d + 52);
    p.arm64 = d[6] == ATF_ARCH_ARM64;
    out->header_ok = 1;
    out->layout = layout;
    out->thread_id = p.h_tid;

    v_check(v, C_DET_HDR_006);
    if (p.eo < ATF_DETAIL_HEADER_SIZE || p.eo > size) {
        v_report(v, file, C_DET_HDR_006, 0, 20, "events_offset",
                 p.eo < ATF_DETAIL_HEADER_SIZE ? "events_offset is %" PRIu64 ", less than the 64-byte header"
                                               : "events_offset is %" PRIu64 ", beyond the end of the file",
                 p.eo);
        return;
    }
    p.finalized = p.h_count != 0 || p.h_len != 0;
    v_check(v, C_REC_004);
    detail_locate_footer(&p);
    if (p.has_footer)
        atf_detail_footer_decode(&p.f, d + p.fo, ATF_DETAIL_FOOTER_SIZE, NULL);
    p.want_crc = p.has_footer && p.f.checksum != 0 && !v->opts.no_verify;
    p.links = ix && ix->usable;
    detail_marks(&p);
    detail_walk(&p);
    out->usable = 1;
    out->has_footer = p.has_footer;
    out->n = p.j;
    out->complete = p.complete;
    if (confirmed)
        *confirmed = p.nconf;
    if (p.has_footer)
        detail_footer(&p);
    else
        detail_no_footer(&p);
}
