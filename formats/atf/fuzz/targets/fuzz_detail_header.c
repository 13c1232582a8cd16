/* Target detail_header: the 64-byte detail header decoder and encoder.
 *
 * Properties: decode fails exactly when the header rules say so (magic,
 * endian, version, size, events_offset >= 64) with an error record naming a
 * field in the header; decode -> encode gives back the bytes with the
 * reserved bytes 16..19 and 60..63 zeroed (reserved_nonzero says whether
 * they were not); encode -> decode is the identity for any values. */
#include <string.h>

#include "fuzz_atf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    atf_detail_header h;
    atf_error err;
    atf_status st = atf_detail_header_decode(&h, data, size, &err);
    atf_status want = fz_header_status(data, size, "ATD2");
    if (want == ATF_OK && fz_le64(data + 20) < 64)
        want = ATF_E_OFFSET;
    FZ_CHECK(st == want, "decode returned %s, the rules say %s", atf_status_name(st), atf_status_name(want));
    if (st) {
        fz_check_error(&err, st, "detail header");
        FZ_CHECK(err.field != NULL && err.offset < ATF_DETAIL_HEADER_SIZE, "error field/offset");
    } else {
        uint8_t raw[64], want_raw[64];
        memcpy(want_raw, data, 64);
        int reserved_set = want_raw[16] | want_raw[17] | want_raw[18] | want_raw[19] | want_raw[60] |
                           want_raw[61] | want_raw[62] | want_raw[63];
        memset(want_raw + 16, 0, 4);
        memset(want_raw + 60, 0, 4);
        FZ_CHECK(h.reserved_nonzero == (reserved_set != 0), "reserved_nonzero");
        FZ_CHECK(h.flags == fz_le32(data + 8) && h.thread_id == fz_le32(data + 12) &&
                     h.events_offset == fz_le64(data + 20) && h.event_count == fz_le64(data + 28) &&
                     h.bytes_length == fz_le64(data + 36) && h.index_seq_start == fz_le64(data + 44) &&
                     h.index_seq_end == fz_le64(data + 52),
                 "fields are not at their offsets");
        FZ_CHECK(atf_detail_header_encode(raw, sizeof raw, &h) == ATF_OK && memcmp(raw, want_raw, 64) == 0,
                 "decode -> encode changed the header");
        FZ_CHECK(atf_detail_header_encode(raw, 63, &h) == ATF_E_ARG, "encode into 63 bytes");
    }
    atf_detail_header v, back;
    memset(&v, 0, sizeof v);
    v.version = fz_bool(&p) ? ATF_LAYOUT_1 : ATF_LAYOUT_2;
    v.arch = fz_u8(&p);
    v.os = fz_u8(&p);
    v.flags = fz_u32(&p);
    v.thread_id = fz_u32(&p);
    v.events_offset = 64 + fz_u64(&p) % 4096;
    v.event_count = fz_u64(&p);
    v.bytes_length = fz_u64(&p);
    v.index_seq_start = fz_u64(&p);
    v.index_seq_end = fz_u64(&p);
    uint8_t raw[64];
    FZ_CHECK(atf_detail_header_encode(raw, sizeof raw, &v) == ATF_OK &&
                 atf_detail_header_decode(&back, raw, sizeof raw, NULL) == ATF_OK,
             "encode -> decode");
    FZ_CHECK(back.endian == 1 && back.version == v.version && back.arch == v.arch && back.os == v.os &&
                 back.flags == v.flags && back.thread_id == v.thread_id && back.events_offset == v.events_offset &&
                 back.event_count == v.event_count && back.bytes_length == v.bytes_length &&
                 back.index_seq_start == v.index_seq_start && back.index_seq_end == v.index_seq_end &&
                 !back.reserved_nonzero,
             "encode -> decode is not the identity");
    return 0;
}
