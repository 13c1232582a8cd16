/* Target index_footer: the 64-byte index footer decoder and encoder.
 *
 * Input: 64 bytes (seeds are footers cut from real files).
 * Properties: those of fz_check_footer() (fuzz_atf.h), for magic "2ITA"
 * and the fields checksum, event_count, time_start_ns, time_end_ns,
 * bytes_written. */
#include "fuzz_atf.h"

static atf_status decode(fz_footer *dst, const void *src, size_t size, atf_error *err)
{
    atf_index_footer f = { 0 };
    atf_status st = atf_index_footer_decode(&f, src, size, err);
    *dst = (fz_footer){ f.checksum, { f.event_count, f.time_start_ns, f.time_end_ns, f.bytes_written },
                        f.reserved_nonzero };
    return st;
}

static atf_status encode(void *dst, size_t cap, const fz_footer *g)
{
    atf_index_footer f = { g->checksum, g->field[0], g->field[1], g->field[2], g->field[3], 0 };
    return atf_index_footer_encode(dst, cap, &f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fz_footer_codec codec = { "index footer", ATF_INDEX_FOOTER_MAGIC, decode, encode };
    fz_check_footer(&codec, data, size);
    return 0;
}
