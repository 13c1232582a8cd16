/* Target wtf_validate: a whole WTF file through the validator
 * (atf_validate_wtf_memory) and the reader.
 *
 * Input: a WTF file, as for wtf_file (same seeds); the same variants (the
 * file, a truncation, one corrupted byte). Properties:
 *  - the reader matches the independent model (as in wtf_file);
 *  - the validator refuses the file header (WTF-HDR-001/002) exactly when
 *    the reader does;
 *  - it reports a clause of damage (WTF-CHK-001..006, WTF-EVT-001..004,
 *    errors) exactly when the reader calls the file damaged;
 *  - otherwise it reports WTF-REC-001 (a warning) and one recovered file
 *    with the reader's number of events exactly when the reader calls the
 *    file crash-truncated;
 *  - findings are well formed (a WTF clause of the table, an offset inside
 *    the file, one line) and the same on a second run; counts and verdict
 *    agree. */
#include "fuzz_wtf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_wtf_check_file(data, size, 1);
    return 0;
}
