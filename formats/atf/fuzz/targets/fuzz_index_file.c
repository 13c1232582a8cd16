/* Target index_file: the whole index reader, crash recovery included.
 *
 * Input: an index file (seeds are real files: finalized, crash-truncated,
 * torn, with trailing bytes, both layouts). Parameters from its last bytes
 * choose verification, a truncation length, one byte to corrupt and probes.
 * Properties, for the file, its truncation and its one-byte corruption:
 *  - open returns exactly the status the rules give (fuzz_atf_models.c: header,
 *    footer location, REC-001..003, CRC-001/002), with a proper error record;
 *  - an open reader agrees with the rules on footer, count and events_end,
 *    and header + events + trailing bytes + footer add up to the file size;
 *  - every event decodes and encodes back to its bytes; the open-time scan
 *    (kinds, reserved bytes, backwards timestamps, links, time bounds) equals
 *    a recount; time_range() is exact on sorted files; checksum states are
 *    right (the CRC is recomputed with the portable code), also when the
 *    reader verifies the events in parts on several threads (one input in
 *    four). */
#include "fuzz_atf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_check_file_variants(fz_index_open_and_check, data, size);
    return 0;
}
