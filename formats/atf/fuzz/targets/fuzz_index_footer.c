/* Target index_footer: the 64-byte index footer decoder and encoder.
 *
 * Input: 64 bytes (seeds are footers cut from real files).
 * Properties: those of fz_check_footer() (fuzz_atf.h), for magic "2ITA"
 * and the fields checksum, event_count, time_start_ns, time_end_ns,
 * bytes_written. */
#include "fuzz_atf.h"

FZ_FOOTER_TARGET(atf_index_footer, "index footer", ATF_INDEX_FOOTER_MAGIC, event_count, time_start_ns, time_end_ns,
                 bytes_written)
