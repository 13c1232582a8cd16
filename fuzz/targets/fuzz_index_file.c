/* Target index_file: the whole index reader, crash recovery included.
 *
 * Input: an index file (seeds are real files: finalized, crash-truncated,
 * torn, with trailing bytes, both layouts). Parameters from its last bytes
 * choose verification, a truncation length, one byte to corrupt and probes.
 * Properties, for the file, its truncation and its one-byte corruption:
 *  - open returns exactly the status the rules give (fuzz_models.c: header,
 *    footer location, REC-001..003, CRC-001/002), with a proper error record;
 *  - an open reader agrees with the rules on footer, count and events_end,
 *    and header + events + trailing bytes + footer add up to the file size;
 *  - every event decodes and encodes back to its bytes; the open-time scan
 *    (kinds, reserved bytes, backwards timestamps, links, time bounds) equals
 *    a recount; time_range() is exact on sorted files; checksum states are
 *    right (the CRC is recomputed with the portable code). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    int verify = fz_u8(&p) % 4 != 0;
    fz_index_open_and_check(data, size, verify, &p);

    /* A crash at any byte: the same rules hold for every prefix (copied
     * into a buffer of exactly that size, so that ASan sees any overread). */
    size_t cut = (size_t)fz_range(&p, 0, size);
    uint8_t *prefix = malloc(cut ? cut : 1);
    FZ_CHECK(prefix != NULL, "oom");
    if (cut)
        memcpy(prefix, data, cut);
    fz_index_open_and_check(prefix, cut, verify, &p);
    free(prefix);

    uint8_t *copy = malloc(size ? size : 1);
    FZ_CHECK(copy != NULL, "oom");
    if (size)
        memcpy(copy, data, size);
    /* One corrupted byte, preferably in the header or the footer. */
    if (size) {
        size_t at = (size_t)fz_range(&p, 0, size - 1);
        if (fz_bool(&p) && size > 64)
            at = fz_bool(&p) ? at % 64 : size - 1 - at % 64;
        copy[at] ^= (uint8_t)(fz_u8(&p) | 1);
        fz_index_open_and_check(copy, size, verify, &p);
    }
    free(copy);
    return 0;
}
