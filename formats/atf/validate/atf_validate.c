/* ATF's part of the validator: its descriptor, a lone index or detail
 * file, the memory entry points of <atf/validator.h>, and the header and
 * checksum checks the index and detail passes share. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <atf/crc32c.h>
#include <atf/reader.h>

#include "atf_pass.h"
#include "common.h"   /* the codec's: atf_fail_file */

/* A lone file: SPEC 7a.1, index.atf / detail.atf by name, any other file by
 * its magic (an index file when it is neither). */
static void atf_file(atf_validation *v, size_t f, const uint8_t *d, uint64_t size, uint64_t data_end,
                     const char *name)
{
    int detail;
    if (!strcmp(name, "index.atf"))
        detail = 0;
    else if (!strcmp(name, "detail.atf"))
        detail = 1;
    else
        detail = size >= 4 && memcmp(d, ATF_DETAIL_MAGIC, 4) == 0;
    if (detail) {
        vdetail dt;
        v_detail_pass(v, f, d, size, data_end, NULL, NULL, NULL, &dt);
    } else {
        vindex ix;
        v_index_pass(v, f, d, size, data_end, 0, 0, &ix);
    }
}

const atf_validator_format atf_vformat_atf = {
    .name = "ATF",
    .native = 1,
    .clause_first = V_FIRST_ATF,
    .clause_count = V_COUNT_ATF,
    .file = atf_file,
    .dir = v_atf_directory,
};

/* ---- Inputs in memory ---------------------------------------------------- */

atf_status atf_validate_index_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                     const atf_validate_options *opts, atf_error *err)
{
    atf_validation *v;
    size_t f;
    atf_status st = v_memory_begin(out, &v, &f, data, size, name, "index.atf", opts, err);
    if (st)
        return st;
    vindex ix;
    v_index_pass(v, f, data ? data : (const void *)"", size, size, 0, 0, &ix);
    return v_end(v, ATF_OK, out, err);
}

atf_status atf_validate_detail_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                      const atf_validate_options *opts, atf_error *err)
{
    atf_validation *v;
    size_t f;
    atf_status st = v_memory_begin(out, &v, &f, data, size, name, "detail.atf", opts, err);
    if (st)
        return st;
    vdetail dt;
    v_detail_pass(v, f, data ? data : (const void *)"", size, size, NULL, NULL, NULL, &dt);
    return v_end(v, ATF_OK, out, err);
}

atf_status atf_validate_thread_memory(atf_validation **out, const void *index, size_t index_size,
                                      const void *detail, size_t detail_size, const atf_validate_options *opts,
                                      atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!index && index_size))
        return atf_fail_file(err, ATF_E_ARG, NULL, NULL);
    atf_validation *v = v_create("<thread>", opts);
    if (!v)
        return atf_fail_file(err, ATF_E_NOMEM, NULL, NULL);
    vthread_summary sum;
    atf_status st = v_thread(v, "", index ? index : (const void *)"", index_size, index_size, detail != NULL,
                             detail ? detail : (const void *)"", detail_size, detail_size, &sum);
    if (st)
        atf_fail_file(err, st, NULL, NULL);
    return v_end(v, st, out, err);
}

/* ---- What the index and detail passes share ------------------------------ */

int v_header_identity(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, const char *magic,
                      uint64_t header_size, const char *kind, vclause c_magic, vclause c_endian,
                      vclause c_version)
{
    v_check(v, c_magic);
    if (atf_header_prefix_ok(d, (size_t)size, magic)) {
        /* SPEC 7a.12: killed before the first flush or inside the header
         * write. Crash-truncated with 0 events, not a bad header. */
        char what[256];
        v_check(v, C_REC_001);
        atf_file_state_describe(what, sizeof what, ATF_FILE_CRASH_TRUNCATED, 1, size, 0, size);
        v_report(v, file, C_REC_001, 0, 0, "header", "%s", what);
        v_recovered(v, file, 0);
        return V_HEADER_TRUNCATED;
    }
    if (size < 4 || memcmp(d, magic, 4) != 0) {
        if (size < 4)
            v_report(v, file, c_magic, 0, 0, "magic", "file is %" PRIu64 " bytes, too short for the magic", size);
        else
            v_report(v, file, c_magic, 0, 0, "magic", "magic is %02x %02x %02x %02x, not \"%.4s\"", d[0], d[1],
                     d[2], d[3], magic);
        return 0;
    }
    if (size < header_size) {
        v_report(v, file, c_magic, 0, 0, "header", "file is %" PRIu64 " bytes, shorter than the %" PRIu64
                 "-byte %s header", size, header_size, kind);
        return 0;
    }
    v_check(v, c_endian);
    v_check(v, c_version);
    int ok = 1;
    if (d[4] != ATF_ENDIAN_LITTLE) {
        v_report(v, file, c_endian, 0, 4, "endian", "endian is %u, only 1 (little-endian) is defined", d[4]);
        ok = 0;
    }
    if (d[5] != ATF_LAYOUT_1 && d[5] != ATF_LAYOUT_2) {
        v_report(v, file, c_version, 0, 5, "version", "version is %u, not 1 (layout 1) or 2 (layout 2)", d[5]);
        ok = 0;
    }
    return ok ? V_HEADER_OK : V_HEADER_BAD;
}

void v_checksum_zero(atf_validation *v, size_t file, int l1, uint32_t stored, uint64_t fo, int nonempty)
{
    if (l1)
        return;
    /* The CRC32-C of an empty events section is 0: nothing to warn about. */
    v_check(v, C_CRC_003);
    if (stored == 0 && nonempty)
        v_report(v, file, C_CRC_003, 0, fo + 4, "footer.checksum",
                 "footer checksum is 0 (unchecked): layout 2 writers should write the CRC32-C");
}

void v_checksum_verdict(atf_validation *v, size_t file, int l1, uint32_t stored, uint64_t fo, const uint8_t *events,
                        uint64_t len, uint32_t crc)
{
    if (l1) {
        v_check(v, C_CRC_002);
        if (crc != stored && atf_crc32_ieee(0, events, (size_t)len) != stored)
            v_report(v, file, C_CRC_002, 0, fo + 4, "footer.checksum",
                     "footer checksum 0x%08" PRIx32 " is neither the CRC32-C (0x%08" PRIx32
                     ") nor the CRC32/IEEE of the events section",
                     stored, crc);
    } else {
        v_check(v, C_CRC_001);
        if (crc != stored)
            v_report(v, file, C_CRC_001, 0, fo + 4, "footer.checksum",
                     "footer checksum 0x%08" PRIx32 " is not the CRC32-C of the events section (0x%08" PRIx32 ")",
                     stored, crc);
    }
}
