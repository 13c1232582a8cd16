/* Target wtf_header_json: the file-header part (JSON) through the reader,
 * the validator and the dump.
 *
 * Input: the JSON text of a file-header part. It is put in a file (file
 * header, one file-header chunk holding it, padded with zeros). The text is
 * read as docs/wtf-dump-format.md says JSON is read (RFC 8259, numbers as
 * doubles, \u0000 allowed, nesting at most 2048 deep: jansson with
 * JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL). Properties:
 *  - the reader hands back exactly the part's bytes; its timebase is the
 *    object's `timebase` when that is a number (else 0) and its flags the
 *    known strings of `flags`;
 *  - the validator reports exactly the clauses the text breaks among
 *    WTF-FH-003 (not one JSON object), -004 (timebase not a number), -005
 *    (flags not an array of strings), -006 (an unknown flag), -007
 *    (contextInfo not an object with string contextType and uri), and no
 *    other finding;
 *  - `atf dump --json` prints as `header` the same JSON value (compared after
 *    reading the line back), or null when the text is not JSON; the reader,
 *    validator and dump checks of every file hold (fuzz_wtf_models.c). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/tools.h>
#include <atf/validator.h>

#include "fuzz_wtf.h"

#define JSON_RULES (JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL)

static void check_findings(const uint8_t *file, size_t n, const json_t *j)
{
    int want[5] = { 0, 0, 0, 0, 0 };   /* FH-003 .. FH-007 */
    if (!json_is_object(j)) {
        want[0] = 1;
    } else {
        want[1] = !json_is_number(json_object_get(j, "timebase"));
        json_t *fl = json_object_get(j, "flags");
        if (fl && !json_is_array(fl))
            want[2] = 1;
        size_t i;
        json_t *f;
        if (json_is_array(fl))
            json_array_foreach(fl, i, f) {
                const char *s = json_string_value(f);
                if (!s)
                    want[2] = 1;
                else if (strcmp(s, "has_high_resolution_times") != 0 && strcmp(s, "times_as_count") != 0)
                    want[3] = 1;
            }
        json_t *ci = json_object_get(j, "contextInfo");
        want[4] = !json_is_object(ci) || !json_is_string(json_object_get(ci, "contextType")) ||
                  !json_is_string(json_object_get(ci, "uri"));
    }
    atf_validation *v = NULL;
    FZ_CHECK(atf_validate_wtf_memory(&v, file, n, NULL, NULL, NULL) == ATF_OK, "validator");
    int got[5] = { 0, 0, 0, 0, 0 };
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        int k = -1;
        if (strncmp(f->clause, "WTF-FH-00", 9) == 0 && f->clause[9] >= '3' && f->clause[9] <= '7' && !f->clause[10])
            k = f->clause[9] - '3';
        FZ_CHECK(k >= 0, "finding %s (%s) on a file whose only content is the header", f->clause, f->message);
        got[k] = 1;
    }
    for (int k = 0; k < 5; k++)
        FZ_CHECK(got[k] == want[k], "WTF-FH-00%d %s, the text %s it", k + 3, got[k] ? "reported" : "not reported",
                 want[k] ? "breaks" : "keeps");
    atf_validation_free(v);
}

static void check_dump_header(const uint8_t *file, size_t n, const json_t *j)
{
    char path[700];
    snprintf(path, sizeof path, "%s/header.wtf-trace", fz_scratch_dir());
    fz_write_file(path, file, n);
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    FZ_CHECK(o != NULL, "open_memstream");
    atf_tool_options opts;
    memset(&opts, 0, sizeof opts);
    opts.json = 1;
    FZ_CHECK(atf_tool_dump(o, path, &opts, NULL) == ATF_OK, "atf dump");
    fclose(o);
    char *nl = memchr(out, '\n', len);
    FZ_CHECK(nl != NULL, "no file line");
    json_error_t je;
    json_t *line = json_loadb(out, (size_t)(nl - out), JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &je);
    FZ_CHECK(json_is_object(line), "file line is not JSON: %s", je.text);
    json_t *h = json_object_get(line, "header");
    FZ_CHECK(h != NULL, "no header key");
    if (!j)
        FZ_CHECK(json_is_null(h), "the header is not JSON, the dump prints it");
    else
        FZ_CHECK(json_equal(h, (json_t *)j), "the dump's header is not the header's value: %.200s", out);
    json_decref(line);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 20)
        return 0;
    fz_buf file = { 0 };
    fz_wtf_put_file_header(&file, ATF_WTF_VERSION_JS);
    uint32_t type = ATF_WTF_PART_FILE_HEADER, len = (uint32_t)size;
    const uint8_t *part = size ? data : (const uint8_t *)"";
    fz_wtf_put_chunk(&file, 1, ATF_WTF_CHUNK_FILE_HEADER, ATF_WTF_NO_TIME, ATF_WTF_NO_TIME, 1, &type, &part, &len);

    fz_wtf_model m = fz_wtf_model_of(file.p, file.n);
    FZ_CHECK(m.state == ATF_WTF_COMPLETE && m.chunks == 1 && m.header_json == file.p + 48 &&
                 m.header_json_len == size,
             "the synthesized file");
    fz_wtf_check_reader(file.p, file.n, &m);
    fz_wtf_check_dump(file.p, file.n, &m);
    fz_wtf_model_free(&m);

    json_t *j = json_loadb((const char *)part, size, JSON_RULES, NULL);
    atf_wtf_reader *r;
    FZ_CHECK(atf_wtf_reader_open_memory(&r, file.p, file.n, NULL, NULL) == ATF_OK, "open");
    double tb = json_is_object(j) && json_is_number(json_object_get(j, "timebase"))
                    ? json_number_value(json_object_get(j, "timebase"))
                    : 0.0;
    unsigned flags = 0;
    json_t *fl = json_is_object(j) ? json_object_get(j, "flags") : NULL, *f;
    size_t i;
    if (json_is_array(fl))
        json_array_foreach(fl, i, f) {
            const char *s = json_string_value(f);
            if (s && strcmp(s, "has_high_resolution_times") == 0)
                flags |= ATF_WTF_FILE_HIGH_RES_TIMES;
            if (s && strcmp(s, "times_as_count") == 0)
                flags |= ATF_WTF_FILE_TIMES_AS_COUNT;
        }
    FZ_CHECK(atf_wtf_reader_timebase(r) == tb && atf_wtf_reader_file_flags(r) == flags,
             "reader: timebase %.17g flags %u; the header says %.17g and %u", atf_wtf_reader_timebase(r),
             atf_wtf_reader_file_flags(r), tb, flags);
    atf_wtf_reader_close(r);
    check_findings(file.p, file.n, j);
    check_dump_header(file.p, file.n, j);
    json_decref(j);
    free(file.p);
    return 0;
}
