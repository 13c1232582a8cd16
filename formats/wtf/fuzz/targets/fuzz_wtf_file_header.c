/* Target wtf_file_header: atf_wtf_parse_file_header and atf_wtf_sniff.
 *
 * Input: the first bytes of a file. Properties:
 *  - the status is exactly the one of SPEC-WTF 1 (fz_wtf_header_status): a
 *    JSON form (first non-blank byte '{') and the legacy magic are
 *    ATF_E_UNSUPPORTED, fewer than 12 bytes ATF_E_TRUNCATED (also the start
 *    of a valid header: only a file reader calls that crash-truncated), a
 *    magic other than EF BE AD DE ATF_E_MAGIC, a format version other than 10
 *    ATF_E_VERSION; an error record names a field at an offset inside the
 *    header;
 *  - the fields are the three little-endian u32, whatever follows them;
 *  - the sniffer claims exactly the inputs with either WTF magic, and any
 *    path ending in ".wtf-trace". */
#include <string.h>

#include "fuzz_wtf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    atf_wtf_file_header h;
    atf_error err;
    atf_status st = atf_wtf_parse_file_header(data, size, &h, &err);
    int prefix;
    atf_status want = fz_wtf_header_status(data, size, &prefix);
    if (prefix)
        want = ATF_E_TRUNCATED;
    FZ_CHECK(st == want, "parse returned %s, the rules say %s", atf_status_name(st), atf_status_name(want));
    if (st == ATF_OK) {
        FZ_CHECK(h.magic == ATF_WTF_MAGIC && h.wtf_version == fz_le32(data + 4) &&
                     h.format_version == ATF_WTF_FORMAT_VERSION,
                 "fields");
        /* Nothing after the 12 bytes matters. */
        atf_wtf_file_header h12;
        FZ_CHECK(atf_wtf_parse_file_header(data, 12, &h12, NULL) == ATF_OK && memcmp(&h, &h12, sizeof h) == 0,
                 "the first 12 bytes alone parse differently");
    } else {
        fz_check_error(&err, st, "file header");
        FZ_CHECK(err.field != NULL && err.offset <= (size < 64 ? size : 64), "error field %s at offset %llu",
                 err.field ? err.field : "(none)", (unsigned long long)err.offset);
        if (size >= 4 && st != ATF_E_UNSUPPORTED)
            FZ_CHECK(h.magic == fz_le32(data), "magic field on error");
    }
    int magic = size >= 4 && (fz_le32(data) == ATF_WTF_MAGIC || fz_le32(data) == ATF_WTF_MAGIC_LEGACY);
    FZ_CHECK(atf_wtf_sniff(data, size, NULL) == magic, "sniff without a path");
    FZ_CHECK(atf_wtf_sniff(data, size, "dir/x.wtf-trace") == 1, "sniff of a .wtf-trace name");
    FZ_CHECK(atf_wtf_sniff(data, size, "dir/index.atf") == magic, "sniff of another name");
    return 0;
}
