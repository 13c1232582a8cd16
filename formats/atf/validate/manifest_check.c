/* manifest.json against SPEC.md section 5: the schema (SES-MAN-002), and
 * the keys that need no thread (SES-MAN-009, SES-MAN-010). Every key that
 * breaks the schema is reported, not only the first; the values the
 * session-level checks need are handed back in a vmanifest. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "manifest_check.h"
#include "manifest_numbers.h"

typedef struct mctx {
    atf_validation *v;
    size_t file;
} mctx;

static void bad(const mctx *c, const char *field, const char *fmt, ...) V_PRINTF(3, 4);
static void bad(const mctx *c, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    v_reportv(c->v, c->file, C_SES_MAN_002, 0, V_NO_OFFSET, field, fmt, ap);
    va_end(ap);
}

#define U64_WHAT "must be a u64: a non-negative JSON integer, or a string holding a decimal or 0x-hex number"

/* A JSON string of the document (numbers of any size come as marker strings). */
static int is_text(const json_t *j)
{
    return json_is_string(j) && !atf_manifest_json_is_marker(j);
}

/* A number outside its field's range, or with a fraction or an exponent
 * where an integer is required (SES-MAN-013). */
static void out_of_range(const mctx *c, const char *path, atf_json_num r, const char *text, const char *range)
{
    v_report(c->v, c->file, C_SES_MAN_013, 0, V_NO_OFFSET, path, "%s: %s %s %s", path, text,
             r == ATF_JNUM_NOT_INTEGER ? "is not an integer; the key holds an integer in" : "is outside", range);
}

/* Optional u64 key of obj (null counts as absent). @return 1 if present and valid. */
static int opt_u64(const mctx *c, json_t *obj, const char *key, const char *path, uint64_t *out)
{
    json_t *j = json_object_get(obj, key);
    if (!j || json_is_null(j))
        return 0;
    char text[48];
    atf_json_num r = atf_manifest_json_u64(j, out, text, sizeof text);
    if (r == ATF_JNUM_OK)
        return 1;
    if (r == ATF_JNUM_NOT_NUMBER)
        bad(c, path, "%s %s", path, U64_WHAT);
    else
        out_of_range(c, path, r, text, "u64's range 0..18446744073709551615");
    return 0;
}

static int req_u64(const mctx *c, json_t *obj, const char *key, const char *path, uint64_t *out)
{
    json_t *j = json_object_get(obj, key);
    if (!j || json_is_null(j)) {
        bad(c, path, "%s is required", path);
        return 0;
    }
    return opt_u64(c, obj, key, path, out);
}

/* A string with U+0000 inside cannot be used as a C string: a reader would
 * cut it short. */
static int has_nul(json_t *j)
{
    return is_text(j) && strlen(json_string_value(j)) != json_string_length(j);
}

static void opt_string(const mctx *c, json_t *obj, const char *key, const char *path)
{
    json_t *j = json_object_get(obj, key);
    if (j && !json_is_null(j) && !is_text(j))
        bad(c, path, "%s must be a string", path);
    else if (has_nul(j))
        bad(c, path, "%s holds U+0000 (\\u0000), which readers cannot keep", path);
}

/* An optional array key; null counts as absent. @return the array or NULL. */
static json_t *opt_array(const mctx *c, json_t *root, const char *key)
{
    json_t *j = json_object_get(root, key);
    if (!j || json_is_null(j))
        return NULL;
    if (!json_is_array(j)) {
        bad(c, key, "%s must be an array", key);
        return NULL;
    }
    return j;
}

static int cmp_thread(const void *a, const void *b)
{
    const vman_thread *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static atf_status check_threads(const mctx *c, json_t *root, vmanifest *m)
{
    json_t *arr = json_object_get(root, "threads");
    if (!arr || json_is_null(arr)) {
        bad(c, "threads", "threads is required");
        return ATF_OK;
    }
    if (!json_is_array(arr)) {
        bad(c, "threads", "threads must be an array");
        return ATF_OK;
    }
    m->threads_ok = 1;
    size_t n = json_array_size(arr);
    m->threads = calloc(n ? n : 1, sizeof *m->threads);
    if (!m->threads)
        return ATF_E_NOMEM;
    char path[64];
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(arr, i);
        snprintf(path, sizeof path, "threads[%zu]", i);
        if (!json_is_object(t)) {
            bad(c, path, "%s must be an object", path);
            continue;
        }
        vman_thread mt = { 0, -1, i };
        snprintf(path, sizeof path, "threads[%zu].id", i);
        if (!req_u64(c, t, "id", path, &mt.id))
            continue;
        json_t *hd = json_object_get(t, "has_detail");
        if (json_is_null(hd))
            hd = NULL; /* null is the same as absent (SPEC 7a.8) */
        snprintf(path, sizeof path, "threads[%zu].has_detail", i);
        if (hd && !json_is_boolean(hd))
            bad(c, path, "%s must be true or false", path);
        else if (hd)
            mt.has_detail = json_is_true(hd);
        m->threads[m->thread_count++] = mt;
    }
    /* Unique ids: sorted, the later duplicates are reported and dropped. */
    qsort(m->threads, m->thread_count, sizeof *m->threads, cmp_thread);
    size_t w = 0;
    for (size_t i = 0; i < m->thread_count; i++) {
        if (w > 0 && m->threads[w - 1].id == m->threads[i].id) {
            snprintf(path, sizeof path, "threads[%zu].id", m->threads[i].index);
            bad(c, path, "%s: thread id %" PRIu64 " is already listed (threads[%zu])", path, m->threads[i].id,
                m->threads[w - 1].index);
            continue;
        }
        m->threads[w++] = m->threads[i];
    }
    m->thread_count = w;
    return ATF_OK;
}

static void check_modules(const mctx *c, json_t *root)
{
    json_t *arr = opt_array(c, root, "modules");
    char path[64];
    uint64_t u;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        json_t *o = json_array_get(arr, i);
        if (!json_is_object(o)) {
            snprintf(path, sizeof path, "modules[%zu]", i);
            bad(c, path, "%s must be an object", path);
            continue;
        }
        snprintf(path, sizeof path, "modules[%zu].module_id", i);
        req_u64(c, o, "module_id", path, &u);
        snprintf(path, sizeof path, "modules[%zu].base_address", i);
        opt_u64(c, o, "base_address", path, &u);
        snprintf(path, sizeof path, "modules[%zu].size", i);
        opt_u64(c, o, "size", path, &u);
        snprintf(path, sizeof path, "modules[%zu].path", i);
        opt_string(c, o, "path", path);
        snprintf(path, sizeof path, "modules[%zu].uuid", i);
        opt_string(c, o, "uuid", path);
    }
}

typedef struct vsym {
    uint64_t function_id;
    size_t index;
} vsym;

static int cmp_vsym(const void *a, const void *b)
{
    const vsym *x = a, *y = b;
    if (x->function_id != y->function_id)
        return x->function_id < y->function_id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static atf_status check_symbols(const mctx *c, json_t *root)
{
    json_t *arr = opt_array(c, root, "symbols");
    char path[64];
    uint64_t u;
    /* function_ids seen, for SES-MAN-012 (bounded by the manifest's size). */
    size_t nsym = arr ? json_array_size(arr) : 0, nid = 0;
    vsym *ids = nsym ? malloc(nsym * sizeof *ids) : NULL;
    if (nsym && !ids)
        return ATF_E_NOMEM;
    if (arr)
        v_check(c->v, C_SES_MAN_012);
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        json_t *o = json_array_get(arr, i);
        if (!json_is_object(o)) {
            snprintf(path, sizeof path, "symbols[%zu]", i);
            bad(c, path, "%s must be an object", path);
            continue;
        }
        snprintf(path, sizeof path, "symbols[%zu].function_id", i);
        if (req_u64(c, o, "function_id", path, &u))
            ids[nid++] = (vsym){ u, i };
        snprintf(path, sizeof path, "symbols[%zu].module_id", i);
        opt_u64(c, o, "module_id", path, &u);
        snprintf(path, sizeof path, "symbols[%zu].symbol_index", i);
        opt_u64(c, o, "symbol_index", path, &u);
        snprintf(path, sizeof path, "symbols[%zu].name", i);
        if (!is_text(json_object_get(o, "name")))
            bad(c, path, "%s is required and must be a string", path);
        else
            opt_string(c, o, "name", path);
    }
    /* The same function_id twice: a tool resolving it can name only one. */
    if (nid > 1)
        qsort(ids, nid, sizeof *ids, cmp_vsym);
    for (size_t k = 1; k < nid; k++) {
        if (ids[k].function_id != ids[k - 1].function_id)
            continue;
        size_t first = k - 1;
        while (first > 0 && ids[first - 1].function_id == ids[k].function_id)
            first--;
        snprintf(path, sizeof path, "symbols[%zu].function_id", ids[k].index);
        v_report(c->v, c->file, C_SES_MAN_012, 0, V_NO_OFFSET, path,
                 "function_id %" PRIu64 " is listed again (first at symbols[%zu]): tools can resolve it to one "
                 "name only", ids[k].function_id, ids[first].index);
    }
    free(ids);
    return ATF_OK;
}

static void check_anchors(const mctx *c, json_t *root)
{
    json_t *arr = opt_array(c, root, "timing_anchors");
    char path[64];
    uint64_t u;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        json_t *o = json_array_get(arr, i);
        if (!json_is_object(o)) {
            snprintf(path, sizeof path, "timing_anchors[%zu]", i);
            bad(c, path, "%s must be an object", path);
            continue;
        }
        /* As the codec reads them: all three keys are needed to use an anchor. */
        snprintf(path, sizeof path, "timing_anchors[%zu].host_time_ns", i);
        req_u64(c, o, "host_time_ns", path, &u);
        snprintf(path, sizeof path, "timing_anchors[%zu].media_time_value", i);
        int64_t iv;
        char text[48];
        atf_json_num r = atf_manifest_json_int(json_object_get(o, "media_time_value"), INT64_MIN, INT64_MAX, &iv,
                                               text, sizeof text);
        if (r == ATF_JNUM_NOT_NUMBER)
            bad(c, path, "%s is required and must be an integer (i64)", path);
        else if (r != ATF_JNUM_OK)
            out_of_range(c, path, r, text, "i64's range");
        snprintf(path, sizeof path, "timing_anchors[%zu].media_time_scale", i);
        r = atf_manifest_json_int(json_object_get(o, "media_time_scale"), 1, INT32_MAX, &iv, text, sizeof text);
        if (r == ATF_JNUM_NOT_NUMBER)
            bad(c, path, "%s is required and must be an integer in 1..2147483647 (i32 > 0)", path);
        else if (r != ATF_JNUM_OK)
            out_of_range(c, path, r, text, "1..2147483647 (i32 > 0)");
    }
}

atf_status v_manifest_check(atf_validation *v, size_t file, const char *json, size_t size, vmanifest *m)
{
    memset(m, 0, sizeof *m);
    mctx c = { v, file };
    v_check(v, C_SES_MAN_002);
    v_check(v, C_SES_MAN_013);
    json_error_t je;
    /* Duplicate keys are refused, as the codec's reader refuses them; U+0000
     * is allowed in the parse (readers ignore unknown keys, whatever they
     * hold) and refused in the strings that are used. */
    json_t *root = atf_manifest_json_load(size ? json : "", size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!root) {
        v_report(v, file, C_SES_MAN_002, 0, je.position >= 0 ? (uint64_t)je.position : V_NO_OFFSET, NULL,
                 "not valid JSON (line %d, column %d): %s", je.line, je.column, je.text);
        return ATF_OK;
    }
    if (!json_is_object(root)) {
        v_report(v, file, C_SES_MAN_002, 0, V_NO_OFFSET, NULL, "the manifest must be a JSON object");
        json_decref(root);
        return ATF_OK;
    }
    m->parsed = 1;
    atf_status st = check_threads(&c, root, m);
    m->has_time_start = opt_u64(&c, root, "time_start_ns", "time_start_ns", &m->time_start_ns);
    m->has_time_end = opt_u64(&c, root, "time_end_ns", "time_end_ns", &m->time_end_ns);
    json_t *ts = json_object_get(root, "time_start_ns"), *te = json_object_get(root, "time_end_ns");
    m->time_start_present = ts && !json_is_null(ts);
    m->time_end_present = te && !json_is_null(te);
    uint64_t clock = 0;
    if (opt_u64(&c, root, "clock_type", "clock_type", &clock)) {
        if (clock > 255) {
            char text[24];
            snprintf(text, sizeof text, "%" PRIu64, clock);
            out_of_range(&c, "clock_type", ATF_JNUM_OUT_OF_RANGE, text, "u8's range 0..255");
        } else {
            m->has_clock_type = 1;
            m->clock_type = (uint8_t)clock;
        }
    }
    json_t *fv = json_object_get(root, "format_version");
    if (fv && !json_is_null(fv) && !is_text(fv)) {
        bad(&c, "format_version", "format_version must be a string");
    } else if (fv && is_text(fv)) {
        v_check(v, C_SES_MAN_009);
        const char *s = json_string_value(fv);
        if (has_nul(fv) || (strcmp(s, "2.0") != 0 && strcmp(s, "2.1") != 0))
            v_report(v, file, C_SES_MAN_009, 0, V_NO_OFFSET, "format_version",
                     "format_version is \"%.64s\", not \"2.0\" or \"2.1\"", s);
    }
    uint64_t dropped = 0;
    v_check(v, C_SES_MAN_010);
    if (opt_u64(&c, root, "events_dropped", "events_dropped", &dropped) && dropped)
        v_report(v, file, C_SES_MAN_010, 0, V_NO_OFFSET, "events_dropped",
                 "events_dropped is %" PRIu64 ": the recording is lossy", dropped);
    check_modules(&c, root);
    if (!st)
        st = check_symbols(&c, root);
    check_anchors(&c, root);
    json_decref(root);
    return st;
}

void v_manifest_free(vmanifest *m)
{
    free(m->threads);
    memset(m, 0, sizeof *m);
}
