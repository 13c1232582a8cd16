/* Target index_header: the 64-byte index header decoder and encoder.
 *
 * Input: the first bytes of an index file (seeds are whole files).
 * Properties:
 *  - decode fails exactly when the header rules say so (magic, endian,
 *    version, size, event_size == 32, events_offset >= 64), with an error
 *    record naming a field inside the header;
 *  - decode -> encode gives back the 64 input bytes, except reserved bytes,
 *    which encode as zero and are reported by reserved_nonzero;
 *  - encode -> decode is the identity for every value the layout can hold,
 *    and encode refuses what it cannot hold (layout 1: event_count > 2^32-1). */
#include <string.h>

#include "fuzz_atf.h"

static void check_roundtrip_value(const atf_index_header *h0, fz_params *p)
{
    atf_index_header h = *h0, back;
    uint8_t raw[ATF_INDEX_HEADER_SIZE];
    h.version = fz_bool(p) ? ATF_LAYOUT_1 : ATF_LAYOUT_2;
    h.endian = ATF_ENDIAN_LITTLE;
    h.event_size = ATF_INDEX_EVENT_SIZE;
    h.arch = fz_u8(p);
    h.os = fz_u8(p);
    h.flags = fz_u32(p);
    h.thread_id = fz_u32(p);
    h.clock_type = fz_u8(p);
    h.event_count = fz_bool(p) ? fz_u32(p) : fz_u64(p);
    h.events_offset = ATF_INDEX_HEADER_SIZE + fz_u64(p) % 4096;
    h.footer_offset = fz_u64(p);
    h.time_start_ns = fz_u64(p);
    h.time_end_ns = fz_u64(p);
    h.reserved_nonzero = 0;
    atf_status st = atf_index_header_encode(raw, sizeof raw, &h);
    if (h.version == ATF_LAYOUT_1 && h.event_count > UINT32_MAX) {
        FZ_CHECK(st == ATF_E_FIELD, "layout 1 event_count %llu must not encode", (unsigned long long)h.event_count);
        return;
    }
    FZ_CHECK(st == ATF_OK, "encode: %s", atf_status_name(st));
    FZ_CHECK(atf_index_header_decode(&back, raw, sizeof raw, NULL) == ATF_OK, "encoded header does not decode");
    FZ_CHECK(back.version == h.version && back.arch == h.arch && back.os == h.os && back.flags == h.flags &&
                 back.thread_id == h.thread_id && back.clock_type == h.clock_type &&
                 back.event_count == h.event_count && back.events_offset == h.events_offset &&
                 back.footer_offset == h.footer_offset && back.time_start_ns == h.time_start_ns &&
                 back.time_end_ns == h.time_end_ns && back.event_size == 32 && !back.reserved_nonzero,
             "encode -> decode is not the identity");
    FZ_CHECK(atf_index_header_encode(raw, sizeof raw - 1, &h) == ATF_E_ARG, "encode into 63 bytes");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    atf_index_header h;
    atf_error err;
    atf_status st = atf_index_header_decode(&h, data, size, &err);

    /* What the rules say, independently of the decoder. */
    atf_status want = fz_header_status(data, size, "ATI2");
    if (want == ATF_OK && fz_le32(data + (data[5] == 1 ? 24 : 20)) != 32)
        want = ATF_E_FIELD;
    else if (want == ATF_OK && fz_le64(data + 32) < 64)
        want = ATF_E_OFFSET;
    FZ_CHECK(st == want, "decode returned %s, the rules say %s", atf_status_name(st), atf_status_name(want));

    atf_layout layout;
    atf_status lst = atf_header_layout(data, size, ATF_INDEX_MAGIC, &layout, NULL);
    if (st) {
        fz_check_error(&err, st, "index header");
        FZ_CHECK(err.field != NULL && err.offset < ATF_INDEX_HEADER_SIZE, "error field/offset");
        if (lst == ATF_OK)
            FZ_CHECK(st == ATF_E_TRUNCATED || st == ATF_E_FIELD || st == ATF_E_OFFSET, "layout ok but %s",
                     atf_status_name(st));
        else
            FZ_CHECK(lst == st, "header_layout says %s, decode %s", atf_status_name(lst), atf_status_name(st));
        check_roundtrip_value(&(atf_index_header){ .version = 2 }, &p);
        return 0;
    }
    FZ_CHECK(lst == ATF_OK && (unsigned)layout == h.version, "header_layout disagrees");

    /* decode -> encode: the same bytes, reserved bytes zeroed. */
    uint8_t raw[ATF_INDEX_HEADER_SIZE], want_raw[ATF_INDEX_HEADER_SIZE];
    memcpy(want_raw, data, sizeof want_raw);
    size_t res_len = h.version == ATF_LAYOUT_1 ? 7 : 3; /* 17..23 or 17..19 */
    int reserved_set = 0;
    for (size_t i = 17; i < 17 + res_len; i++)
        reserved_set |= want_raw[i];
    memset(want_raw + 17, 0, res_len);
    FZ_CHECK(h.reserved_nonzero == (reserved_set != 0), "reserved_nonzero is %d", h.reserved_nonzero);
    FZ_CHECK(atf_index_header_encode(raw, sizeof raw, &h) == ATF_OK, "a decoded header must encode");
    FZ_CHECK(memcmp(raw, want_raw, sizeof raw) == 0, "decode -> encode changed the header");

    /* decode -> encode -> decode is stable. */
    atf_index_header back;
    FZ_CHECK(atf_index_header_decode(&back, raw, sizeof raw, NULL) == ATF_OK, "re-decode");
    back.reserved_nonzero = h.reserved_nonzero;
    FZ_CHECK(memcmp(&back.endian, &h.endian, 4) == 0 && back.flags == h.flags && back.thread_id == h.thread_id &&
                 back.clock_type == h.clock_type && back.event_count == h.event_count &&
                 back.events_offset == h.events_offset && back.footer_offset == h.footer_offset &&
                 back.time_start_ns == h.time_start_ns && back.time_end_ns == h.time_end_ns,
             "decode -> encode -> decode is not stable");
    check_roundtrip_value(&h, &p);
    return 0;
}
