/* rtc-prop-writer: writes an RTC file through the public API of atf/rtc.h
 * from a JSON description on stdin, for the property tests
 * (test_rtc_properties.py), which generate the description, read the file
 * back with the independent Python implementation (rtcpy) and compare.
 *
 *   {"path": "out.rtc",
 *    "options": {"unit_size": N, "subunit_size": N, "crc": "crc-32"|"rtc-ref",
 *                "big_endian": 0|1},
 *    "ops": [
 *      {"op": "stream", "definition": {JSON object without "id"}},
 *      {"op": "write", "stream": K, "hex": "0a0b..."}]}
 *
 * K is the index of a stream op among the stream ops; "hex" is the record's
 * payload. Absent options take the writer's defaults. Prints {"ids": [...],
 * "records": N} (the id the writer gave each stream op, the records written)
 * and exits 0 when the file was written and finished; 1 with a message on
 * the first error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/rtc.h>

#define MAX_STREAMS 4096

static int fail(const char *what, const atf_error *err)
{
    if (err)
        fprintf(stderr, "rtc-prop-writer: %s: %s (field %s)\n", what, err->message, err->field ? err->field : "-");
    else
        fprintf(stderr, "rtc-prop-writer: %s\n", what);
    return 1;
}

static int sink(void *user, const void *p, size_t n)
{
    return fwrite(p, 1, n, (FILE *)user) == n ? 0 : -1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes @p hex into a new buffer of *@p n bytes. @return NULL when it is not hex (or no memory). */
static unsigned char *unhex(const char *hex, size_t *n)
{
    size_t len = strlen(hex);
    if (len % 2)
        return NULL;
    unsigned char *b = malloc(len / 2 + 1);
    if (!b)
        return NULL;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return NULL;
        }
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    *n = len / 2;
    return b;
}

static int options(const json_t *o, atf_rtc_writer_options *opt)
{
    json_t *v;
    if ((v = json_object_get(o, "unit_size")) && json_is_integer(v))
        opt->unit_size = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(o, "subunit_size")) && json_is_integer(v))
        opt->subunit_size = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(o, "crc")) && json_is_string(v)) {
        if (!strcmp(json_string_value(v), "rtc-ref"))
            opt->crc = ATF_RTC_CRC_REF;
        else if (strcmp(json_string_value(v), "crc-32"))
            return -1;
    }
    if ((v = json_object_get(o, "big_endian")))
        opt->big_endian = json_is_true(v) || (json_is_integer(v) && json_integer_value(v));
    return 0;
}

static int run(const json_t *desc, json_t *ids, size_t *records)
{
    const char *path = json_string_value(json_object_get(desc, "path"));
    const json_t *ops = json_object_get(desc, "ops");
    if (!path || !json_is_array(ops))
        return fail("the description needs \"path\" and \"ops\"", NULL);
    atf_rtc_writer_options opt = ATF_RTC_WRITER_OPTIONS_INIT;
    if (options(json_object_get(desc, "options"), &opt))
        return fail("\"crc\" is \"crc-32\" or \"rtc-ref\"", NULL);
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail("cannot create the output file", NULL);
    atf_error err;
    atf_rtc_writer *w = NULL;
    if (atf_rtc_writer_create(&w, &opt, sink, f, &err) != ATF_OK) {
        fclose(f);
        return fail("create", &err);
    }
    static uint64_t sid[MAX_STREAMS];
    size_t ns = 0, i;
    json_t *op;
    int bad = 0;
    json_array_foreach(ops, i, op) {
        const char *kind = json_string_value(json_object_get(op, "op"));
        if (kind && !strcmp(kind, "stream") && ns < MAX_STREAMS) {
            char *def = json_dumps(json_object_get(op, "definition"), JSON_COMPACT | JSON_ENCODE_ANY);
            bad = !def || atf_rtc_writer_stream(w, def, &sid[ns], &err) != ATF_OK;
            free(def);
            if (bad) {
                fail("stream", &err);
                break;
            }
            json_array_append_new(ids, json_integer((json_int_t)sid[ns]));
            ns++;
        } else if (kind && !strcmp(kind, "write")) {
            json_t *k = json_object_get(op, "stream");
            const char *hex = json_string_value(json_object_get(op, "hex"));
            size_t n = 0;
            unsigned char *b = hex ? unhex(hex, &n) : NULL;
            if (!json_is_integer(k) || json_integer_value(k) < 0 || (size_t)json_integer_value(k) >= ns || !b) {
                free(b);
                bad = fail("a write needs a defined \"stream\" and a \"hex\" payload", NULL);
                break;
            }
            bad = atf_rtc_writer_write(w, sid[json_integer_value(k)], b, n, &err) != ATF_OK;
            free(b);
            if (bad) {
                fail("write", &err);
                break;
            }
            (*records)++;
        } else {
            bad = fail("an op is \"stream\" or \"write\"", NULL);
            break;
        }
    }
    if (atf_rtc_writer_finish(w, &err) != ATF_OK && !bad)
        bad = fail("finish", &err);
    if (fclose(f) != 0 && !bad)
        bad = fail("closing the output file", NULL);
    return bad;
}

int main(void)
{
    json_error_t je;
    json_t *desc = json_loadf(stdin, 0, &je);
    if (!desc) {
        fprintf(stderr, "rtc-prop-writer: the description is not JSON: %s (line %d)\n", je.text, je.line);
        return 1;
    }
    json_t *ids = json_array();
    size_t records = 0;
    int bad = run(desc, ids, &records);
    if (!bad) {
        json_t *res = json_pack("{s:O,s:I}", "ids", ids, "records", (json_int_t)records);
        char *s = json_dumps(res, JSON_COMPACT);
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(res);
    }
    json_decref(ids);
    json_decref(desc);
    return bad;
}
