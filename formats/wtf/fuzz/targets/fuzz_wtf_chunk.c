/* Target wtf_chunk: atf_wtf_parse_chunk (a chunk header and its part table).
 *
 * Input: a chunk's bytes; parameters from the end: how many of them are
 * available (a cut) and the chunk's file offset. Properties:
 *  - the status is exactly the one of SPEC-WTF 2.1 computed here, in the
 *    order atf/wtf.h documents: a cut header (ATF_E_TRUNCATED), more than 64
 *    parts (ATF_E_LIMIT, CHK-006), a length below the header and table
 *    (ATF_E_LENGTH, CHK-001; one not a multiple of 4 parses: the chunk can
 *    be read, the next one not placed), a cut part table
 *    (ATF_E_TRUNCATED), a part misaligned, outside the chunk or overlapping
 *    another non-empty part (ATF_E_OFFSET, CHK-004/005/006);
 *  - the error record names a field at a file offset inside the bytes given;
 *  - a parsed chunk has the header fields and part entries of its bytes and
 *    the parts' file offsets; bytes past the part table do not matter. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_wtf.h"

static atf_status rules(const uint8_t *d, size_t avail)
{
    if (avail < 24)
        return ATF_E_TRUNCATED;
    uint32_t length = fz_le32(d + 8), n = fz_le32(d + 20);
    if (n > 64)
        return ATF_E_LIMIT;
    uint64_t table = 24 + 12 * (uint64_t)n;
    if (length < table)
        return ATF_E_LENGTH;
    if (avail < table)
        return ATF_E_TRUNCATED;
    uint64_t body = length - table;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = fz_le32(d + 28 + 12 * (size_t)i), len = fz_le32(d + 32 + 12 * (size_t)i);
        if (off % 4 || off + len > body)
            return ATF_E_OFFSET;
        for (uint32_t j = 0; j < i; j++) {
            uint64_t o2 = fz_le32(d + 28 + 12 * (size_t)j), l2 = fz_le32(d + 32 + 12 * (size_t)j);
            if (len && l2 && off < o2 + l2 && o2 < off + len)
                return ATF_E_OFFSET;
        }
    }
    return ATF_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    uint64_t file_offset = fz_bool(&p) ? 12 : fz_u32(&p);
    size_t avail = fz_bool(&p) ? size : (size_t)fz_range(&p, 0, size);
    /* Exactly avail bytes, so that ASan sees a read past them. */
    uint8_t *d = malloc(avail ? avail : 1);
    FZ_CHECK(d != NULL, "oom");
    memcpy(d, data, avail);
    atf_wtf_chunk c;
    atf_error err;
    atf_status st = atf_wtf_parse_chunk(d, avail, file_offset, &c, &err);
    atf_status want = rules(d, avail);
    FZ_CHECK(st == want, "parse returned %s, the rules say %s", atf_status_name(st), atf_status_name(want));
    FZ_CHECK(c.offset == file_offset, "chunk offset");
    if (st != ATF_OK) {
        fz_check_error(&err, st, "chunk");
        FZ_CHECK(err.field != NULL && err.offset >= file_offset && err.offset <= file_offset + avail,
                 "error at %llu, the chunk's bytes are %llu..%llu", (unsigned long long)err.offset,
                 (unsigned long long)file_offset, (unsigned long long)(file_offset + avail));
        free(d);
        return 0;
    }
    FZ_CHECK(c.id == fz_le32(d) && c.type == fz_le32(d + 4) && c.length == fz_le32(d + 8) &&
                 c.start_time == fz_le32(d + 12) && c.end_time == fz_le32(d + 16) && c.part_count == fz_le32(d + 20),
             "header fields");
    uint64_t table = 24 + 12 * (uint64_t)c.part_count;
    for (uint32_t i = 0; i < c.part_count; i++) {
        const uint8_t *e = d + 24 + 12 * (size_t)i;
        FZ_CHECK(c.parts[i].type == fz_le32(e) && c.parts[i].offset == fz_le32(e + 4) &&
                     c.parts[i].length == fz_le32(e + 8) &&
                     c.parts[i].file_offset == file_offset + table + c.parts[i].offset,
                 "part %u", i);
    }
    /* The same header and table with nothing after them parse the same. */
    atf_wtf_chunk c2;
    FZ_CHECK(atf_wtf_parse_chunk(d, (size_t)table, file_offset, &c2, NULL) == ATF_OK && c2.length == c.length &&
                 c2.part_count == c.part_count,
             "bytes after the part table changed the parse");
    for (uint32_t i = 0; i < c.part_count; i++)
        FZ_CHECK(c2.parts[i].type == c.parts[i].type && c2.parts[i].offset == c.parts[i].offset &&
                     c2.parts[i].length == c.parts[i].length && c2.parts[i].file_offset == c.parts[i].file_offset,
                 "bytes after the part table changed part %u", i);
    free(d);
    return 0;
}
