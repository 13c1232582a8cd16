/* Target index_footer: the 64-byte index footer decoder and encoder.
 *
 * Input: 64 bytes (seeds are footers cut from real files).
 * Properties: decode fails exactly for short input or a bad magic, with an
 * error record; decode -> encode gives back the bytes with reserved bytes
 * zeroed (reserved_nonzero says whether they were not); encode -> decode is
 * the identity for any values. */
#include <string.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    atf_index_footer f;
    atf_error err;
    atf_status st = atf_index_footer_decode(&f, data, size, &err);
    atf_status want = size < 64 ? ATF_E_TRUNCATED : memcmp(data, "2ITA", 4) ? ATF_E_MAGIC : ATF_OK;
    FZ_CHECK(st == want, "decode returned %s, the rules say %s", atf_status_name(st), atf_status_name(want));
    if (st == ATF_OK) {
        uint8_t raw[64], want_raw[64];
        memcpy(want_raw, data, 64);
        int reserved_set = 0;
        for (int i = 40; i < 64; i++)
            reserved_set |= want_raw[i];
        memset(want_raw + 40, 0, 24);
        FZ_CHECK(f.reserved_nonzero == (reserved_set != 0), "reserved_nonzero");
        FZ_CHECK(f.checksum == fz_le32(data + 4) && f.event_count == fz_le64(data + 8) &&
                     f.time_start_ns == fz_le64(data + 16) && f.time_end_ns == fz_le64(data + 24) &&
                     f.bytes_written == fz_le64(data + 32),
                 "fields are not at their offsets");
        FZ_CHECK(atf_index_footer_encode(raw, sizeof raw, &f) == ATF_OK && memcmp(raw, want_raw, 64) == 0,
                 "decode -> encode changed the footer");
        FZ_CHECK(atf_index_footer_encode(raw, 63, &f) == ATF_E_ARG, "encode into 63 bytes");
    } else {
        fz_check_error(&err, st, "index footer");
        FZ_CHECK(err.field != NULL && err.offset == 0, "error field/offset");
    }
    atf_index_footer v = { fz_u32(&p), fz_u64(&p), fz_u64(&p), fz_u64(&p), fz_u64(&p), 0 }, back;
    uint8_t raw[64];
    FZ_CHECK(atf_index_footer_encode(raw, sizeof raw, &v) == ATF_OK &&
                 atf_index_footer_decode(&back, raw, sizeof raw, NULL) == ATF_OK,
             "encode -> decode");
    FZ_CHECK(back.checksum == v.checksum && back.event_count == v.event_count &&
                 back.time_start_ns == v.time_start_ns && back.time_end_ns == v.time_end_ns &&
                 back.bytes_written == v.bytes_written && !back.reserved_nonzero,
             "encode -> decode is not the identity");
    return 0;
}
