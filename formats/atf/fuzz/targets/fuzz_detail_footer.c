/* Target detail_footer: the 64-byte detail footer decoder and encoder.
 *
 * Input: 64 bytes (seeds are footers cut from real files).
 * Properties: those of fz_check_footer() (fuzz_atf.h), for magic "2DTA"
 * and the fields checksum, event_count, bytes_length, time_start_ns,
 * time_end_ns. */
#include "fuzz_atf.h"

FZ_FOOTER_TARGET(atf_detail_footer, "detail footer", ATF_DETAIL_FOOTER_MAGIC, event_count, bytes_length, time_start_ns,
                 time_end_ns)
