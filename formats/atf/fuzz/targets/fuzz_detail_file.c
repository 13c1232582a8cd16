/* Target detail_file: the whole detail reader, crash recovery included.
 *
 * Input: a detail file (seeds are real files: finalized, crash-truncated,
 * torn, with trailing bytes, both layouts). Parameters from its last bytes
 * choose verification, a truncation length, one byte to corrupt and probes.
 * Properties, for the file, its truncation and its one-byte corruption:
 *  - open returns exactly the status the rules give (fuzz_atf_models.c: header,
 *    footer location, strict parse under a footer, REC-001, CRC-001/002),
 *    with a proper error record;
 *  - an open reader agrees with the rules on footer, count and events_end;
 *    offsets chain by total_length; header + events + trailing bytes +
 *    footer add up to the file size;
 *  - every event encodes back to its bytes; backwards timestamps, index_seq
 *    range and first/last timestamps equal a recount; forward navigation
 *    resolves exactly the links inside the file; checksum states are right.
 */
#include "fuzz_atf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_check_file_variants(fz_detail_open_and_check, data, size);
    return 0;
}
