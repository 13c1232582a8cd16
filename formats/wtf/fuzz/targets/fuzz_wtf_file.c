/* Target wtf_file: a whole WTF file through the reader and `atf dump`.
 *
 * Input: a WTF file (seeds: the reference library's traces, our writer's,
 * the golden corpus, their cuts). Parameters from its last bytes choose a
 * truncation length and one byte to corrupt (fz_check_file_variants).
 * Properties, for the file, its truncation and its corruption, against the
 * independent model (fuzz_wtf_models.c, SPEC-WTF 1-4 and 6):
 *  - open refuses exactly the file headers the rules refuse, with an error
 *    record; a file cut inside its header opens, crash-truncated;
 *  - every chunk the reader returns has the header and part table its bytes
 *    hold; every event has the model's offset, size, wire id, time,
 *    definition, zone and scope depth; every argument and array element
 *    decodes to the value of its bytes; no event more or less; read in
 *    3 parts side by side (atf_wtf_read_parts_memory), the same chunks,
 *    events, zones, depths, error returns and summary;
 *  - the summary's state (complete, crash-truncated, damaged) and counts are
 *    the model's; damage is reported through an error return;
 *  - `atf dump --json` exits by the state, writes one JSON object per line:
 *    the file line, a line per chunk and per event, in the model's order
 *    with its offsets, names and zones; the text dump has as many lines. */
#include "fuzz_wtf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_wtf_check_file(data, size, 0);
    return 0;
}
