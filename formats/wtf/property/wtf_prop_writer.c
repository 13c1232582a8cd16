/* wtf-prop-writer: writes a WTF file through the public API of atf/wtf.h
 * from a JSON description on stdin, for the property tests
 * (test_wtf_properties.py), which generate the description, read the file
 * back with the independent Python implementation (wtfpy) and compare.
 *
 *   {"path": "out.wtf-trace",
 *    "options": {"chunk_bytes": N, "wtf_version": N, "timebase_ms": X,
 *                "context_uri": S, "context_title": S, "high_res_times": 0|1},
 *    "ops": [
 *      {"op": "define", "name": S, "signature": S, "class": N, "flags": N},
 *      {"op": "event", "define": K, "time": T, "args": [V, ...]},
 *      {"op": "zone_create", "zone": N, "name": S, "type": S, "location": S, "time": T},
 *      {"op": "zone_set", "zone": N, "time": T},
 *      {"op": "leave", "time": T},
 *      {"op": "append_data", "name": S, "value": JSON_TEXT, "time": T},
 *      {"op": "time_stamp", "name": S, "value": JSON_TEXT|null, "time": T},
 *      {"op": "flush"}]}
 *
 * K is the index of a define op among the define ops. Argument values V
 * follow the define's signature: integers, true/false, numbers (float32),
 * strings or null (ascii, utf8, any: its JSON text), arrays as JSON arrays
 * or null; char and wchar as integer codes. Prints {"wire_ids": [...],
 * "events": N} (the wire id of each define op, the writer's event count) and
 * exits 0 when the file was written and closed; 1 with a message on the
 * first error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/wtf.h>

#define MAX_DEFINES 4096

static int fail(const char *what, const atf_error *err)
{
    if (err)
        fprintf(stderr, "wtf-prop-writer: %s: %s (offset %llu, field %s)\n", what, err->message,
                (unsigned long long)err->offset, err->field ? err->field : "-");
    else
        fprintf(stderr, "wtf-prop-writer: %s\n", what);
    return 1;
}

static const char *str_or_null(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int is_signed(atf_wtf_type t)
{
    return t == ATF_WTF_INT8 || t == ATF_WTF_INT16 || t == ATF_WTF_INT32;
}

static int is_string(atf_wtf_type t)
{
    return t == ATF_WTF_ASCII || t == ATF_WTF_UTF8 || t == ATF_WTF_ANY;
}

/* One scalar into @p out; array elements are written packed at @p elem
 * (elem size bytes) instead when @p elem is not NULL. */
static int scalar(atf_wtf_type t, const json_t *v, atf_wtf_value *out, unsigned char *elem,
                  const char **str_elem)
{
    if (is_string(t)) {
        const char *s = str_or_null(v);
        if (str_elem) {
            *str_elem = s;
            return 0;
        }
        out->is_null = s == NULL;
        out->s = s;
        out->s_len = s ? (uint32_t)json_string_length(v) : 0;
        return 0;
    }
    if (t == ATF_WTF_FLOAT32) {
        if (!json_is_number(v))
            return -1;
        float f = (float)json_number_value(v);
        if (elem)
            memcpy(elem, &f, 4);
        else
            out->f = f;
        return 0;
    }
    long long x;
    if (json_is_boolean(v))
        x = json_is_true(v);
    else if (json_is_integer(v))
        x = json_integer_value(v);
    else
        return -1;
    if (elem) {
        /* The writer takes array elements in host order (atf/wtf.h), as a C
         * program's int16_t[] or uint32_t[] holds them: not little-endian. */
        unsigned size = atf_wtf_elem_size(t);
        if (size == 1) {
            *elem = (unsigned char)x;
        } else if (size == 2) {
            uint16_t h = (uint16_t)x;
            memcpy(elem, &h, 2);
        } else {
            uint32_t h = (uint32_t)x;
            memcpy(elem, &h, 4);
        }
        return 0;
    }
    if (is_signed(t))
        out->i = x;
    out->u = (uint64_t)x;
    return 0;
}

static int make_arg(const atf_wtf_arg *a, const json_t *v, atf_wtf_value *out, void **owned)
{
    memset(out, 0, sizeof *out);
    out->type = a->type;
    out->array = a->array;
    *owned = NULL;
    if (!a->array)
        return scalar(a->type, v, out, NULL, NULL);
    if (json_is_null(v)) {
        out->is_null = 1;
        return 0;
    }
    if (!json_is_array(v))
        return -1;
    size_t n = json_array_size(v);
    size_t esz = is_string(a->type) ? sizeof(const char *) : atf_wtf_elem_size(a->type);
    unsigned char *buf = calloc(n ? n : 1, esz);
    if (!buf)
        return -1;
    *owned = buf;
    for (size_t k = 0; k < n; k++) {
        const char **sp = is_string(a->type) ? (const char **)(void *)(buf + k * esz) : NULL;
        if (scalar(a->type, json_array_get(v, k), out, sp ? NULL : buf + k * esz, sp) != 0)
            return -1;
    }
    out->count = (uint32_t)n;
    out->elems = buf;
    return 0;
}

static uint32_t time_of(const json_t *op)
{
    return (uint32_t)json_integer_value(json_object_get(op, "time"));
}

int main(void)
{
    json_error_t jerr;
    json_t *doc = json_loadf(stdin, 0, &jerr);
    if (!doc) {
        fprintf(stderr, "wtf-prop-writer: stdin: line %d: %s\n", jerr.line, jerr.text);
        return 1;
    }
    const json_t *opts = json_object_get(doc, "options");
    atf_wtf_write_options wo = ATF_WTF_WRITE_OPTIONS_INIT;
    wo.chunk_bytes = (uint32_t)json_integer_value(json_object_get(opts, "chunk_bytes"));
    wo.wtf_version = (uint32_t)json_integer_value(json_object_get(opts, "wtf_version"));
    wo.timebase_ms = json_number_value(json_object_get(opts, "timebase_ms"));
    wo.context_uri = str_or_null(json_object_get(opts, "context_uri"));
    wo.context_title = str_or_null(json_object_get(opts, "context_title"));
    wo.high_res_times = json_is_true(json_object_get(opts, "high_res_times"));
    atf_error err;
    atf_wtf_writer *w = NULL;
    const char *path = str_or_null(json_object_get(doc, "path"));
    if (!path)
        return fail("no path", NULL);
    if (atf_wtf_writer_open(&w, path, &wo, &err) != ATF_OK)
        return fail("open", &err);
    static uint16_t wire[MAX_DEFINES];
    static atf_wtf_def defs[MAX_DEFINES];
    static char names[MAX_DEFINES][1024];
    size_t ndefs = 0;
    int rc = 0;
    const json_t *ops = json_object_get(doc, "ops");
    json_t *ids = json_array();
    for (size_t i = 0; i < json_array_size(ops) && rc == 0; i++) {
        const json_t *op = json_array_get(ops, i);
        const char *kind = str_or_null(json_object_get(op, "op"));
        atf_status st = ATF_OK;
        if (!kind) {
            rc = fail("an op without \"op\"", NULL);
        } else if (strcmp(kind, "define") == 0) {
            const char *sig = str_or_null(json_object_get(op, "signature"));
            if (ndefs == MAX_DEFINES)
                return fail("too many defines", NULL);
            st = atf_wtf_writer_define(w, str_or_null(json_object_get(op, "name")), sig,
                                       (uint16_t)json_integer_value(json_object_get(op, "class")),
                                       (uint32_t)json_integer_value(json_object_get(op, "flags")),
                                       &wire[ndefs], &err);
            if (st == ATF_OK)
                st = atf_wtf_parse_signature(sig, strlen(sig), &defs[ndefs], names[ndefs],
                                             sizeof names[ndefs], &err);
            if (st == ATF_OK)
                json_array_append_new(ids, json_integer(wire[ndefs++]));
        } else if (strcmp(kind, "event") == 0) {
            size_t k = (size_t)json_integer_value(json_object_get(op, "define"));
            const json_t *args = json_object_get(op, "args");
            if (k >= ndefs || json_array_size(args) != defs[k].arg_count)
                return fail("event: bad define index or argument count", NULL);
            atf_wtf_value vals[ATF_WTF_MAX_ARGS];
            void *owned[ATF_WTF_MAX_ARGS] = {0};
            for (size_t a = 0; a < defs[k].arg_count && rc == 0; a++)
                if (make_arg(&defs[k].args[a], json_array_get(args, a), &vals[a], &owned[a]) != 0)
                    rc = fail("event: an argument does not fit its type", NULL);
            if (rc == 0)
                st = atf_wtf_writer_event(w, wire[k], time_of(op), vals, defs[k].arg_count, &err);
            for (size_t a = 0; a < defs[k].arg_count; a++)
                free(owned[a]);
        } else if (strcmp(kind, "zone_create") == 0) {
            st = atf_wtf_writer_zone_create(w, (uint16_t)json_integer_value(json_object_get(op, "zone")),
                                            str_or_null(json_object_get(op, "name")),
                                            str_or_null(json_object_get(op, "type")),
                                            str_or_null(json_object_get(op, "location")), time_of(op), &err);
        } else if (strcmp(kind, "zone_set") == 0) {
            st = atf_wtf_writer_zone_set(w, (uint16_t)json_integer_value(json_object_get(op, "zone")),
                                         time_of(op), &err);
        } else if (strcmp(kind, "leave") == 0) {
            st = atf_wtf_writer_scope_leave(w, time_of(op), &err);
        } else if (strcmp(kind, "append_data") == 0) {
            st = atf_wtf_writer_append_data(w, str_or_null(json_object_get(op, "name")),
                                            str_or_null(json_object_get(op, "value")), time_of(op), &err);
        } else if (strcmp(kind, "time_stamp") == 0) {
            st = atf_wtf_writer_time_stamp(w, str_or_null(json_object_get(op, "name")),
                                           str_or_null(json_object_get(op, "value")), time_of(op), &err);
        } else if (strcmp(kind, "flush") == 0) {
            st = atf_wtf_writer_flush(w, &err);
        } else {
            rc = fail("unknown op", NULL);
        }
        if (rc == 0 && st != ATF_OK)
            rc = fail(kind, &err);
    }
    uint64_t events = atf_wtf_writer_event_count(w);
    if (atf_wtf_writer_close(w, &err) != ATF_OK && rc == 0)
        rc = fail("close", &err);
    if (rc == 0) {
        json_t *out = json_pack("{s:o, s:I}", "wire_ids", ids, "events", (json_int_t)events);
        ids = NULL;
        char *text = json_dumps(out, JSON_COMPACT);
        printf("%s\n", text);
        free(text);
        json_decref(out);
    }
    json_decref(ids);
    json_decref(doc);
    return rc;
}
