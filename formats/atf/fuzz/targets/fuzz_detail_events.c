/* Target detail_events: the variable-length detail event parser.
 *
 * Input: the bytes of a detail events section (seeds are sections cut from
 * real detail files). The last byte picks the layout and what to wrap the
 * section in.
 * Properties:
 *  - walking the section with atf_detail_event_decode() stops exactly where
 *    the length-prefixed walk of the rules stops, with the right error
 *    (fewer than 24 bytes left, total_length < 24, total_length past the end);
 *  - every decoded event encodes back to its exact bytes, and its payload
 *    view lies inside the input;
 *  - wrapped into a detail file (finalized or placeholder header, with or
 *    without a footer), the reader finds exactly the same events at the same
 *    offsets, and rejects a footer over a section that does not parse. */
#include <stdlib.h>
#include <string.h>

#include <atf/crc32c.h>

#include "fuzz_atf.h"

static void wrap_and_read(const uint8_t *sec, size_t sec_size, size_t parsed, uint64_t parsed_count,
                          atf_layout layout, fz_params *p)
{
    uint8_t mode = fz_u8(p);
    int finalized = mode & 1, with_footer = (mode >> 1) & 1, whole = (mode >> 2) & 1;
    int checksum = (mode >> 3) & 1;
    size_t body = whole ? sec_size : parsed;
    size_t size = 64 + body + (with_footer ? 64 : 0);
    uint8_t *file = malloc(size ? size : 1);
    FZ_CHECK(file != NULL, "oom");
    atf_detail_header h;
    memset(&h, 0, sizeof h);
    h.version = (uint8_t)layout;
    h.arch = ATF_ARCH_ARM64;
    h.os = ATF_OS_LINUX;
    h.events_offset = 64;
    if (finalized) {
        h.event_count = parsed_count;
        h.bytes_length = body;
    }
    FZ_CHECK(atf_detail_header_encode(file, 64, &h) == ATF_OK, "header encode");
    if (body)
        memcpy(file + 64, sec, body);
    if (with_footer) {
        atf_detail_footer f = { 0 };
        f.event_count = parsed_count;
        f.bytes_length = body;
        f.checksum = checksum ? atf_crc32c(0, sec, body) : 0;
        FZ_CHECK(atf_detail_footer_encode(file + 64 + body, 64, &f) == ATF_OK, "footer encode");
    }
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    atf_detail_reader *r;
    atf_error err;
    atf_status st = atf_detail_reader_open_memory(&r, file, size, "wrapped.detail.atf", &ro, &err);
    fz_model m = fz_detail_model(file, size, 1);
    FZ_CHECK(st == m.status, "open returned %s, the rules say %s", atf_status_name(st), atf_status_name(m.status));
    if (st == ATF_OK) {
        /* Same events as the decoder's walk, wherever the section stopped
         * parsing (unless the section itself ends in a footer look-alike). */
        int lookalike = !with_footer && m.has_footer;
        FZ_CHECK(lookalike || atf_detail_reader_count(r) == parsed_count, "reader found %llu events, the walk %llu",
                 (unsigned long long)atf_detail_reader_count(r), (unsigned long long)parsed_count);
        FZ_CHECK(lookalike || atf_detail_reader_info(r)->events_end == 64 + parsed, "events_end");
        fz_check_detail_reader(r, file, size, 1, p);
        atf_detail_reader_close(r);
    } else {
        fz_check_error(&err, st, "wrapped detail file");
        /* Only a footer can make a section that does not parse an error:
         * ours, or the section's own last 64 bytes when they spell one (the
         * model agreed on the status above). */
        FZ_CHECK((with_footer && whole && parsed != sec_size) || (!with_footer && m.has_footer),
                 "open failed with %s", atf_status_name(st));
    }
    free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    atf_layout layout = fz_bool(&p) ? ATF_LAYOUT_1 : ATF_LAYOUT_2;
    size_t pos = 0;
    uint64_t count = 0;
    uint8_t *raw = NULL;
    for (;;) {
        atf_detail_event ev;
        atf_error err;
        size_t left = size - pos;
        atf_status st = atf_detail_event_decode(&ev, data + pos, left, layout, &err);
        if (st) {
            uint32_t total = left >= 4 ? fz_le32(data + pos) : 0;
            atf_status want = left < 24 ? ATF_E_TRUNCATED : ATF_E_LENGTH;
            FZ_CHECK(left < 24 || total < 24 || total > left, "valid event rejected with %s", atf_status_name(st));
            FZ_CHECK(st == want, "decode returned %s, expected %s", atf_status_name(st), atf_status_name(want));
            fz_check_error(&err, st, "detail event");
            FZ_CHECK(err.offset == 0 && err.field && strcmp(err.field, "total_length") == 0, "error field");
            break;
        }
        FZ_CHECK(ev.total_length == fz_le32(data + pos) && ev.total_length >= 24 && ev.total_length <= left,
                 "total_length");
        FZ_CHECK(ev.payload_size == ev.total_length - 24 &&
                     (ev.payload_size ? ev.payload == data + pos + 24 : ev.payload == NULL),
                 "payload view");
        FZ_CHECK(ev.event_type == (data[pos + 4] | data[pos + 5] << 8) &&
                     ev.flags == (data[pos + 6] | data[pos + 7] << 8) && ev.timestamp == fz_le64(data + pos + 16),
                 "fields are not at their offsets");
        FZ_CHECK(layout == ATF_LAYOUT_1 ? ev.index_seq == fz_le32(data + pos + 8) &&
                                              ev.thread_id == fz_le32(data + pos + 12)
                                        : ev.index_seq == fz_le64(data + pos + 8) && ev.thread_id == 0,
                 "layout fields");
        raw = realloc(raw, ev.total_length);
        FZ_CHECK(raw != NULL, "oom");
        FZ_CHECK(atf_detail_event_encode(raw, ev.total_length, &ev, layout) == ATF_OK &&
                     memcmp(raw, data + pos, ev.total_length) == 0,
                 "event %llu: decode -> encode changed it", (unsigned long long)count);
        FZ_CHECK(atf_detail_event_encode(raw, ev.total_length - 1, &ev, layout) == ATF_E_ARG, "short buffer");
        pos += ev.total_length;
        count++;
    }
    free(raw);
    uint64_t stop;
    FZ_CHECK(fz_detail_walk(data, 0, size, &stop) == count && stop == pos, "decoder walk != rules walk");
    wrap_and_read(data, size, pos, count, layout, &p);
    return 0;
}
