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
    uint32_t flags = v_le32(d + 8);
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
    uint16_t ss = v_le16(p + 96), res = v_le16(p + 98);
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
    *fid = v_le64(p);
    return 1;
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
    const int l1 = layout == ATF_LAYOUT_1;
    header_warnings(v, file, d);
    const uint32_t h_tid = v_le32(d + 12);
    const uint64_t eo = v_le64(d + 20), h_count = v_le64(d + 28), h_len = v_le64(d + 36);
    const uint64_t h_iss = v_le64(d + 44), h_ise = v_le64(d + 52);
    const int arm64 = d[6] == ATF_ARCH_ARM64;
    out->header_ok = 1;
    out->layout = layout;
    out->thread_id = h_tid;

    v_check(v, C_DET_HDR_006);
    if (eo < ATF_DETAIL_HEADER_SIZE || eo > size) {
        v_report(v, file, C_DET_HDR_006, 0, 20, "events_offset",
                 eo < ATF_DETAIL_HEADER_SIZE ? "events_offset is %" PRIu64 ", less than the 64-byte header"
                                             : "events_offset is %" PRIu64 ", beyond the end of the file",
                 eo);
        return;
    }
    const int finalized = h_count != 0 || h_len != 0;
    v_check(v, C_REC_004);

    /* ---- Where the footer is (section 6) ---- */
    int has_footer = 0;
    uint64_t fo = 0, end = size;
    if (finalized) {
        if (h_len <= size - eo) {
            uint64_t at = eo + h_len;
            end = at;
            if (size - at >= ATF_DETAIL_FOOTER_SIZE && memcmp(d + at, ATF_DETAIL_FOOTER_MAGIC, 4) == 0) {
                has_footer = 1;
                fo = at;
            }
        }
    }
    if (!has_footer && size - eo >= ATF_DETAIL_FOOTER_SIZE) {
        /* A placeholder's footer; and a finalized header's when it is not
         * where the header says (SPEC 6): the last 64 bytes, lined up. */
        uint64_t at = size - ATF_DETAIL_FOOTER_SIZE;
        if (memcmp(d + at, ATF_DETAIL_FOOTER_MAGIC, 4) == 0 && v_le64(d + at + 16) == at - eo) {
            has_footer = 1;
            fo = at;
            end = at;
            if (finalized) {
                v_check(v, C_DET_HDR_007);
                v_report(v, file, C_DET_HDR_007, 0, 36, "bytes_length",
                         "the footer is at %" PRIu64 " (the end of the file), not at events_offset + bytes_length "
                         "(%" PRIu64 " + %" PRIu64 ")",
                         at, eo, h_len);
            }
        }
    }
    atf_detail_footer f;
    memset(&f, 0, sizeof f);
    if (has_footer)
        atf_detail_footer_decode(&f, d + fo, ATF_DETAIL_FOOTER_SIZE, NULL);
    const int want_crc = has_footer && f.checksum != 0 && !v->opts.no_verify;

    /* ---- Events ---- */
    const int links = ix && ix->usable;
    v_check(v, C_DET_EVT_003);
    v_check(v, C_DET_EVT_004);
    v_check(v, C_DET_EVT_005);
    if (l1)
        v_check(v, C_DET_EVT_006);
    if (has_footer) {
        v_check(v, C_DET_EVT_001);
        v_check(v, C_DET_EVT_002);
    }
    if (arm64) {
        v_check(v, C_ARM_PAY_001);
        v_check(v, C_ARM_PAY_002);
        v_check(v, C_ARM_PAY_003);
        v_check(v, C_ARM_PAY_004);
        if (links)
            v_check(v, C_ARM_PAY_005);
    }
    if (links) {
        v_check(v, C_LINK_003);
        v_check(v, C_LINK_004);
        v_check(v, C_LINK_007);
    }
    uint64_t pos = eo, j = 0, prev_ts = 0, prev_iseq = 0, first_ts = 0, first_iseq = 0, last_iseq = 0, nconf = 0;
    uint64_t crc_done = eo;
    uint32_t crc = 0;
    int complete = 1;
    while (pos < end) {
        const uint64_t rem = end - pos;
        uint32_t tl = rem >= 4 ? v_le32(d + pos) : 0;
        if (rem < ATF_DETAIL_EVENT_HEADER_SIZE || tl < ATF_DETAIL_EVENT_HEADER_SIZE || tl > rem) {
            if (has_footer) {
                complete = 0;
                if (rem < ATF_DETAIL_EVENT_HEADER_SIZE)
                    v_report(v, file, C_DET_EVT_002, 0, pos, "total_length",
                             "detail event %" PRIu64 ": %" PRIu64
                             " bytes are left before the footer, less than a 24-byte event header",
                             j, rem);
                else if (tl < ATF_DETAIL_EVENT_HEADER_SIZE)
                    v_report(v, file, C_DET_EVT_001, 0, pos, "total_length",
                             "detail event %" PRIu64 ": total_length is %" PRIu32 ", less than 24", j, tl);
                else
                    v_report(v, file, C_DET_EVT_002, 0, pos, "total_length",
                             "detail event %" PRIu64 ": total_length %" PRIu32 " runs %" PRIu64
                             " bytes past the events section",
                             j, tl, tl - rem);
            }
            break;
        }
        const uint8_t *p = d + pos;
        const uint16_t type = v_le16(p + 4);
        const uint64_t iseq = l1 ? v_le32(p + 8) : v_le64(p + 8);
        const uint64_t ts = v_le64(p + 16);
        if (type != ATF_DETAIL_FUNCTION_CALL && type != ATF_DETAIL_FUNCTION_RETURN)
            v_report(v, file, C_DET_EVT_003, 0, pos + 4, "event_type",
                     "detail event %" PRIu64 ": event_type is %u, not 3 (call) or 4 (return)", j, type);
        if (j == 0) {
            first_ts = ts;
            first_iseq = iseq;
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
        if (l1 && v_le32(p + 12) != h_tid)
            v_report(v, file, C_DET_EVT_006, 0, pos + 12, "thread_id",
                     "detail event %" PRIu64 ": thread_id %" PRIu32 " differs from the header's %" PRIu32, j,
                     v_le32(p + 12), h_tid);
        uint64_t fid = 0;
        int has_fid = 0;
        if (arm64 && (type == ATF_DETAIL_FUNCTION_CALL || type == ATF_DETAIL_FUNCTION_RETURN))
            has_fid = check_arm64(v, file, d, pos, j, tl - ATF_DETAIL_EVENT_HEADER_SIZE, &fid);
        if (links) {
            if (iseq >= ix->n) {
                /* SPEC 7a.4: a link into or out of a file without a footer is a warning. */
                int lost = !ix->has_footer || !has_footer;
                v_report(v, file, C_LINK_003, lost ? ATF_SEV_WARNING : 0, pos + 8, "index_seq",
                         "detail event %" PRIu64 ": index_seq %" PRIu64 " is past the %" PRIu64
                         " events of the index file%s",
                         j, iseq, ix->n, lost ? " (a file without a footer: recoverable)" : "");
            } else {
                const uint8_t *ie = ix->data + ix->eo + iseq * ATF_INDEX_EVENT_SIZE;
                uint64_t back;
                if (ix->layout == ATF_LAYOUT_1) {
                    uint32_t s = v_le32(ie + 28);
                    back = s == ATF_NO_DETAIL_L1 ? ATF_NO_DETAIL : s;
                } else {
                    back = v_le64(ie + 16);
                }
                if (back != j) {
                    if (back == ATF_NO_DETAIL)
                        v_report(v, file, C_LINK_004, 0, pos + 8, "index_seq",
                                 "detail event %" PRIu64 ": index event %" PRIu64 " has no detail link", j, iseq);
                    else
                        v_report(v, file, C_LINK_004, 0, pos + 8, "index_seq",
                                 "detail event %" PRIu64 ": index event %" PRIu64 " links to detail event %" PRIu64,
                                 j, iseq, back);
                } else {
                    nconf++;
                    if (confirmed_bits)
                        confirmed_bits[iseq >> 6] |= (uint64_t)1 << (iseq & 63);
                    uint64_t its = v_le64(ie);
                    if (ts != its)
                        v_report(v, file, C_LINK_007, 0, pos + 16, "timestamp",
                                 "detail event %" PRIu64 ": timestamp %" PRIu64 " differs from index event %" PRIu64
                                 "'s timestamp_ns %" PRIu64,
                                 j, ts, iseq, its);
                    uint64_t ifid = v_le64(ie + 8);
                    if (has_fid && fid != ifid)
                        v_report(v, file, C_ARM_PAY_005, 0, pos + ATF_DETAIL_EVENT_HEADER_SIZE, "function_id",
                                 "detail event %" PRIu64 ": payload function_id 0x%" PRIx64
                                 " differs from index event %" PRIu64 "'s 0x%" PRIx64,
                                 j, fid, iseq, ifid);
                }
            }
        }
        prev_ts = ts;
        prev_iseq = last_iseq = iseq;
        pos += tl;
        j++;
        if (want_crc && pos - crc_done >= CRC_BLOCK) {
            crc = atf_crc32c(crc, d + crc_done, (size_t)(pos - crc_done));
            crc_done = pos;
        }
    }
    out->usable = 1;
    out->has_footer = has_footer;
    out->n = j;
    out->complete = complete;
    if (confirmed)
        *confirmed = nconf;

    if (!has_footer) {
        if (finalized) {
            int inside = h_len <= size - eo;
            /* DET-HDR-007 also says where the footer MUST be. */
            v_check(v, C_DET_HDR_007);
            v_report(v, file, C_DET_HDR_007, 0, 36, "bytes_length",
                     "no footer at events_offset + bytes_length (%" PRIu64 " + %" PRIu64 ")", eo, h_len);
            char what[256];
            atf_file_state_describe(what, sizeof what, ATF_FILE_DAMAGED, 0, size, j, size - pos);
            v_report(v, file, C_REC_004, 0, inside ? eo + h_len : 36, inside ? "footer.magic" : "bytes_length",
                     "%s; the header says event_count %" PRIu64 ", bytes_length %" PRIu64 " and the footer would be "
                     "%s",
                     what, h_count, h_len, inside ? "at events_offset + bytes_length" : "past the end of the file");
        } else {
            v_check(v, C_REC_001);
            v_check(v, C_REC_002);
            v_check(v, C_REC_003);
            v_check(v, C_REC_005);
            const uint64_t trailing = size - pos;
            const uint8_t *t = d + pos;
            char what[256];
            atf_file_state_describe(what, sizeof what, ATF_FILE_CRASH_TRUNCATED, 0, size, j, trailing);
            v_report(v, file, C_REC_001, 0, pos, "footer", "%s", what);
            if (trailing == 0) {
                /* nothing after the last complete event */
            } else if (trailing >= 16 && memcmp(t, ATF_DETAIL_FOOTER_MAGIC, 4) == 0 && v_le64(t + 8) == j) {
                /* SPEC 7a.5: "2DTA" and, at byte 8, the number of events before it. */
                v_report(v, file, C_REC_003, 0, pos, "footer",
                         "torn footer (crash during finalize): %" PRIu64
                         " bytes starting with \"2DTA\" are not an event",
                         trailing);
            } else if (pos >= data_end ||
                       v_first_nonzero(t, (size_t)((data_end < size ? data_end : size) - pos)) ==
                           (data_end < size ? data_end : size) - pos) {
                /* A zero-filled tail: the scan stops at total_length 0; not REC-002 or REC-005 (SPEC 7a.6). */
            } else if (trailing >= ATF_DETAIL_EVENT_HEADER_SIZE && v_le32(t) < ATF_DETAIL_EVENT_HEADER_SIZE) {
                v_report(v, file, C_REC_005, 0, pos, "total_length",
                         "after the %" PRIu64 " recovered events: a complete record with total_length %" PRIu32
                         " (less than 24), not a partial event or a torn footer",
                         j, v_le32(t));
            } else {
                v_report(v, file, C_REC_002, 0, pos, "event",
                         "partial event of %" PRIu64 " bytes after the last complete event ignored", trailing);
            }
        }
        v_recovered(v, file, j);
        return;
    }

    /* ---- Footer ---- */
    v_check(v, C_DET_FTR_001);
    if (complete && f.event_count != j)
        v_report(v, file, C_DET_FTR_001, 0, fo + 8, "footer.event_count",
                 "footer event_count is %" PRIu64 ", the events section holds %" PRIu64, f.event_count, j);
    v_check(v, C_DET_FTR_002);
    if (f.bytes_length != fo - eo)
        v_report(v, file, C_DET_FTR_002, 0, fo + 16, "footer.bytes_length",
                 "footer bytes_length is %" PRIu64 ", the events section is %" PRIu64 " bytes", f.bytes_length,
                 fo - eo);
    if (complete) {
        v_check(v, C_DET_FTR_003);
        uint64_t t1 = j ? prev_ts : 0;
        if (!j)
            first_ts = 0;
        if (f.time_start_ns != first_ts)
            v_report(v, file, C_DET_FTR_003, 0, fo + 24, "footer.time_start_ns",
                     "footer time_start_ns %" PRIu64 " is not the first event's timestamp %" PRIu64, f.time_start_ns,
                     first_ts);
        if (f.time_end_ns != t1)
            v_report(v, file, C_DET_FTR_003, 0, fo + 32, "footer.time_end_ns",
                     "footer time_end_ns %" PRIu64 " is not the last event's timestamp %" PRIu64, f.time_end_ns, t1);
    }
    v_check(v, C_DET_FTR_004);
    size_t k = v_first_nonzero(d + fo + 40, 24);
    if (k < 24)
        v_report(v, file, C_DET_FTR_004, 0, fo + 40 + k, "footer.reserved",
                 "reserved footer byte %zu is 0x%02x, not 0", 40 + k, d[fo + 40 + k]);
    v_check(v, C_DET_FTR_005);
    if (size - fo > ATF_DETAIL_FOOTER_SIZE)
        v_report(v, file, C_DET_FTR_005, 0, fo + ATF_DETAIL_FOOTER_SIZE, "footer",
                 "%" PRIu64 " bytes follow the footer", size - fo - ATF_DETAIL_FOOTER_SIZE);
    v_check(v, C_DET_HDR_009);
    if (!finalized && f.event_count != 0)
        v_report(v, file, C_DET_HDR_009, 0, 28, "event_count",
                 "the header is still the placeholder (event_count 0, bytes_length 0) although the footer is at %" PRIu64
                 " with %" PRIu64 " events: finalize stopped before the header was rewritten, or the writer never "
                 "rewrites it",
                 fo, f.event_count);
    if (finalized) {
        v_check(v, C_DET_HDR_007);
        if (h_count != f.event_count)
            v_report(v, file, C_DET_HDR_007, 0, 28, "event_count",
                     "header event_count %" PRIu64 " differs from the footer's %" PRIu64, h_count, f.event_count);
        if (h_len != f.bytes_length)
            v_report(v, file, C_DET_HDR_007, 0, 36, "bytes_length",
                     "header bytes_length %" PRIu64 " differs from the footer's %" PRIu64, h_len, f.bytes_length);
        if (complete && j) {
            v_check(v, C_DET_HDR_008);
            if (h_iss != first_iseq)
                v_report(v, file, C_DET_HDR_008, 0, 44, "index_seq_start",
                         "index_seq_start is %" PRIu64 ", the first event's index_seq is %" PRIu64, h_iss,
                         first_iseq);
            if (h_ise != last_iseq)
                v_report(v, file, C_DET_HDR_008, 0, 52, "index_seq_end",
                         "index_seq_end is %" PRIu64 ", the last event's index_seq is %" PRIu64, h_ise, last_iseq);
        }
    }
    v_checksum_zero(v, file, l1, f.checksum, fo, fo > eo);
    if (!want_crc)
        return;
    crc = atf_crc32c(crc, d + crc_done, (size_t)(fo - crc_done));
    v_checksum_verdict(v, file, l1, f.checksum, fo, d + eo, fo - eo, crc);
}
