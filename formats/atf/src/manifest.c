/* manifest.json: parsed with jansson (numbers of any size through
 * manifest_numbers.c). Unknown keys are ignored; u64 fields accept a JSON
 * integer 0..2^64-1 or a string holding a decimal or "0x" hexadecimal number. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/session.h>

#include "internal.h"
#include "manifest_numbers.h"
#include "manifest_prefix.h"

#define MANIFEST_MAX_BYTES (64u << 20)

/* A JSON string of the document (numbers of any size come as marker strings). */
static int is_text(const json_t *v)
{
    return json_is_string(v) && !atf_manifest_json_is_marker(v);
}

static atf_status bad(atf_error *err, const char *field, const char *why)
{
    return atf_fail(err, ATF_E_MANIFEST, ATF_NO_OFFSET, field, "manifest: %s: %s", field, why);
}

/* Reads an optional u64: *present is 0 when the key is missing or null. */
static atf_status get_u64(json_t *obj, const char *key, const char *field, uint64_t *out,
                          int *present, atf_error *err)
{
    json_t *v = json_object_get(obj, key);
    char text[48];
    *present = 0;
    if (!v || json_is_null(v))
        return ATF_OK;
    switch (atf_manifest_json_u64(v, out, text, sizeof text)) {
    case ATF_JNUM_OK:
        break;
    case ATF_JNUM_OUT_OF_RANGE:
        return atf_fail(err, ATF_E_MANIFEST, ATF_NO_OFFSET, field,
                        "manifest: %s: %s is outside the u64 range 0..18446744073709551615", field, text);
    case ATF_JNUM_NOT_INTEGER:
        return atf_fail(err, ATF_E_MANIFEST, ATF_NO_OFFSET, field,
                        "manifest: %s: %s is not an integer (a u64 has no fraction or exponent)", field, text);
    default:
        return bad(err, field, json_is_string(v) ? "string is not a u64 number (decimal or 0x hex)"
                                                 : "must be an integer or a numeric string");
    }
    *present = 1;
    return ATF_OK;
}

static atf_status req_u64(json_t *obj, const char *key, const char *field, uint64_t *out, atf_error *err)
{
    int present;
    atf_status st = get_u64(obj, key, field, out, &present, err);
    if (!st && !present)
        return bad(err, field, "is required");
    return st;
}

/* An optional string key ("" when absent or not a string); U+0000 inside is
 * refused: the string would be cut short. */
static atf_status get_str(json_t *obj, const char *key, const char *field, const char **out, atf_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (json_is_string(v) && !is_text(v))
        return bad(err, field, "must be a string");
    *out = json_is_string(v) ? json_string_value(v) : "";
    if (json_is_string(v) && strlen(*out) != json_string_length(v))
        return bad(err, field, "holds U+0000");
    return ATF_OK;
}

static json_t *get_array(json_t *root, const char *key, const char *field, int required,
                         atf_status *st, atf_error *err)
{
    json_t *v = json_object_get(root, key);
    *st = ATF_OK;
    if (!v || json_is_null(v)) {
        if (required)
            *st = bad(err, field, "is required");
        return NULL;
    }
    if (!json_is_array(v)) {
        *st = bad(err, field, "must be an array");
        return NULL;
    }
    return v;
}

/* A symbol and its place in the file: equal function_ids (SES-MAN-012) keep
 * their order, so a lookup finds the first one listed. */
typedef struct sym_pos {
    atf_manifest_symbol s;
    size_t pos;
} sym_pos;

static int cmp_symbol(const void *a, const void *b)
{
    const sym_pos *x = a, *y = b;
    if (x->s.function_id != y->s.function_id)
        return x->s.function_id < y->s.function_id ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static atf_status parse_threads(atf_manifest *m, json_t *root, atf_error *err)
{
    atf_status st;
    json_t *arr = get_array(root, "threads", "threads", 1, &st, err);
    if (!arr)
        return st;
    size_t n = json_array_size(arr);
    m->threads = calloc(n ? n : 1, sizeof *m->threads);
    if (!m->threads)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(arr, i);
        if (!json_is_object(t))
            return bad(err, "threads[]", "each entry must be an object");
        atf_manifest_thread *mt = &m->threads[i];
        if ((st = req_u64(t, "id", "threads[].id", &mt->id, err)))
            return st;
        json_t *hd = json_object_get(t, "has_detail");
        if (hd && !json_is_boolean(hd))
            return bad(err, "threads[].has_detail", "must be true or false");
        mt->has_detail = hd ? json_is_true(hd) : -1;
        for (size_t j = 0; j < i; j++)
            if (m->threads[j].id == mt->id)
                return bad(err, "threads[].id", "thread ids must be unique");
        m->thread_count = i + 1;
    }
    return ATF_OK;
}

static atf_status parse_modules(atf_manifest *m, json_t *root, atf_error *err)
{
    atf_status st;
    json_t *arr = get_array(root, "modules", "modules", 0, &st, err);
    if (!arr)
        return st;
    size_t n = json_array_size(arr);
    m->modules = calloc(n ? n : 1, sizeof *m->modules);
    if (!m->modules)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        atf_manifest_module *mm = &m->modules[i];
        int present;
        if (!json_is_object(o))
            return bad(err, "modules[]", "each entry must be an object");
        if ((st = req_u64(o, "module_id", "modules[].module_id", &mm->module_id, err)) ||
            (st = get_u64(o, "base_address", "modules[].base_address", &mm->base_address, &present, err)) ||
            (st = get_u64(o, "size", "modules[].size", &mm->size, &present, err)))
            return st;
        m->module_count = i + 1;
        if ((st = get_str(o, "path", "modules[].path", &mm->path, err)) ||
            (st = get_str(o, "uuid", "modules[].uuid", &mm->uuid, err)))
            return st;
    }
    return ATF_OK;
}

static atf_status parse_symbols(atf_manifest *m, json_t *root, atf_error *err)
{
    atf_status st;
    json_t *arr = get_array(root, "symbols", "symbols", 0, &st, err);
    if (!arr)
        return st;
    size_t n = json_array_size(arr);
    m->symbols = calloc(n ? n : 1, sizeof *m->symbols);
    if (!m->symbols)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        atf_manifest_symbol *ms = &m->symbols[i];
        int present;
        if (!json_is_object(o))
            return bad(err, "symbols[]", "each entry must be an object");
        if ((st = req_u64(o, "function_id", "symbols[].function_id", &ms->function_id, err)) ||
            (st = get_u64(o, "module_id", "symbols[].module_id", &ms->module_id, &present, err)) ||
            (st = get_u64(o, "symbol_index", "symbols[].symbol_index", &ms->symbol_index, &present, err)))
            return st;
        if (!is_text(json_object_get(o, "name")))
            return bad(err, "symbols[].name", "must be a string");
        m->symbol_count = i + 1;
        if ((st = get_str(o, "name", "symbols[].name", &ms->name, err)))
            return st;
    }
    sym_pos *sp = malloc((m->symbol_count ? m->symbol_count : 1) * sizeof *sp);
    if (!sp)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    for (size_t i = 0; i < m->symbol_count; i++)
        sp[i] = (sym_pos){ m->symbols[i], i };
    qsort(sp, m->symbol_count, sizeof *sp, cmp_symbol);
    for (size_t i = 0; i < m->symbol_count; i++)
        m->symbols[i] = sp[i].s;
    free(sp);
    return ATF_OK;
}

static atf_status parse_anchors(atf_manifest *m, json_t *root, atf_error *err)
{
    atf_status st;
    json_t *arr = get_array(root, "timing_anchors", "timing_anchors", 0, &st, err);
    if (!arr)
        return st;
    size_t n = json_array_size(arr);
    m->anchors = calloc(n ? n : 1, sizeof *m->anchors);
    if (!m->anchors)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        atf_timing_anchor *a = &m->anchors[i];
        if (!json_is_object(o))
            return bad(err, "timing_anchors[]", "each entry must be an object");
        if ((st = req_u64(o, "host_time_ns", "timing_anchors[].host_time_ns", &a->host_time_ns, err)))
            return st;
        int64_t value, scale;
        char text[48];
        if (atf_manifest_json_int(json_object_get(o, "media_time_value"), INT64_MIN, INT64_MAX, &value, text,
                                  sizeof text) != ATF_JNUM_OK)
            return atf_fail(err, ATF_E_MANIFEST, ATF_NO_OFFSET, "timing_anchors[].media_time_value",
                            "manifest: timing_anchors[].media_time_value: %s%s", text,
                            text[0] ? " is not an i64 integer" : "an i64 integer is required");
        if (atf_manifest_json_int(json_object_get(o, "media_time_scale"), 1, INT32_MAX, &scale, text,
                                  sizeof text) != ATF_JNUM_OK)
            return atf_fail(err, ATF_E_MANIFEST, ATF_NO_OFFSET, "timing_anchors[].media_time_scale",
                            "manifest: timing_anchors[].media_time_scale: %s%s", text,
                            text[0] ? " is not an i32 integer above 0" : "an i32 integer above 0 is required");
        a->media_time_value = value;
        a->media_time_scale = (int32_t)scale;
        m->anchor_count = i + 1;
    }
    return ATF_OK;
}

static atf_status parse_root(atf_manifest *m, json_t *root, atf_error *err)
{
    atf_status st;
    int present;
    if (!json_is_object(root))
        return bad(err, "(root)", "must be a JSON object");
    if ((st = parse_threads(m, root, err)) ||
        (st = get_u64(root, "time_start_ns", "time_start_ns", &m->time_start_ns, &present, err)) ||
        (st = get_u64(root, "time_end_ns", "time_end_ns", &m->time_end_ns, &present, err)) ||
        (st = get_u64(root, "events_dropped", "events_dropped", &m->events_dropped, &present, err)))
        return st;
    uint64_t clock = 0;
    if ((st = get_u64(root, "clock_type", "clock_type", &clock, &present, err)))
        return st;
    if (present && clock > UINT32_MAX)
        return atf_fail(err, ATF_E_MANIFEST, ATF_NO_OFFSET, "clock_type",
                        "manifest: clock_type: %" PRIu64 " is outside the range of a clock type", clock);
    m->has_clock_type = present;
    m->clock_type = (uint32_t)clock;
    json_t *fv = json_object_get(root, "format_version");
    if (fv && !is_text(fv))
        return bad(err, "format_version", "must be a string");
    if (fv && strlen(json_string_value(fv)) != json_string_length(fv))
        return bad(err, "format_version", "holds U+0000");
    snprintf(m->format_version, sizeof m->format_version, "%s", fv ? json_string_value(fv) : "");
    /* A longer value is cut, but never inside a UTF-8 sequence (the rest of
     * the string is valid UTF-8: jansson checked it). */
    size_t n = strlen(m->format_version), i = n;
    while (i > 0 && ((unsigned char)m->format_version[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0 && (unsigned char)m->format_version[i - 1] >= 0xC0) {
        unsigned char lead = (unsigned char)m->format_version[i - 1];
        size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        if (n - (i - 1) < need)
            m->format_version[i - 1] = '\0';
    }
    if ((st = parse_modules(m, root, err)) || (st = parse_symbols(m, root, err)) ||
        (st = parse_anchors(m, root, err)))
        return st;
    return ATF_OK;
}

/* jansson's parser fails the same way for bad input and for a failed
 * allocation; its error code tells them apart (jansson >= 2.11), and an
 * allocation failure before parsing starts leaves the error text empty
 * (every parse error has a text). */
static int jansson_out_of_memory(const json_error_t *e)
{
    if (e->text[0] == '\0')
        return 1;
#if JANSSON_VERSION_HEX >= 0x020b00
    return json_error_code(e) == json_error_out_of_memory;
#else
    return 0;
#endif
}

atf_status atf_manifest_parse(atf_manifest **out, const char *json, size_t size, const char *name,
                              atf_error *err)
{
    atf_error_clear(err);
    if (!out || (!json && size))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    if (size > MANIFEST_MAX_BYTES) {
        atf_error_set_file(err, name);
        return atf_fail(err, ATF_E_LIMIT, ATF_NO_OFFSET, NULL, "manifest is larger than 64 MiB");
    }
    atf_manifest *m = calloc(1, sizeof *m);
    if (!m)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    json_error_t jerr;
    /* U+0000 is allowed in the parse: unknown keys are ignored whatever they
     * hold (SPEC 5); the strings used are checked where they are read. */
    json_t *root = atf_manifest_json_load(json ? json : "", size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    atf_status st;
    if (!root && jansson_out_of_memory(&jerr)) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, "manifest: out of memory parsing the JSON");
    } else if (!root) {
        st = atf_fail(err, ATF_E_MANIFEST, jerr.position >= 0 ? (uint64_t)jerr.position : ATF_NO_OFFSET,
                      NULL, "manifest: invalid JSON at line %d column %d: %s", jerr.line, jerr.column,
                      jerr.text);
    } else {
        m->priv_ = root;
        st = parse_root(m, root, err);
    }
    if (st) {
        atf_error_set_file(err, name);
        atf_manifest_free(m);
        return st;
    }
    *out = m;
    return ATF_OK;
}

atf_status atf_manifest_load(atf_manifest **out, const char *path, atf_error *err)
{
    atf_blob b;
    atf_error_clear(err);
    if (!out || !path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_status st = atf_blob_open(&b, path, 0, err);
    if (st) {
        atf_error_set_file(err, path);
        return st;
    }
    st = atf_manifest_parse(out, (const char *)b.data, b.size, path, err);
    atf_blob_close(&b);
    return st;
}

atf_status atf_manifest_load_session(atf_manifest **out, const char *path, atf_manifest_cut *cut, atf_error *err)
{
    atf_blob b;
    atf_error_clear(err);
    memset(cut, 0, sizeof *cut);
    *out = NULL;
    atf_status st = atf_blob_open(&b, path, 0, err);
    if (st) {
        atf_error_set_file(err, path);
        return st;
    }
    if (b.size <= MANIFEST_MAX_BYTES) {
        atf_json_cut c = atf_manifest_json_cut((const char *)b.data, (size_t)b.size, &cut->text_len, NULL);
        if (c == ATF_JCUT_NOMEM) {
            atf_blob_close(&b);
            atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
            atf_error_set_file(err, path);
            return ATF_E_NOMEM;
        }
        if (c == ATF_JCUT_YES) {
            cut->cut = 1;
            cut->size = (uint64_t)b.size;
            atf_blob_close(&b);
            return ATF_OK;
        }
    }
    st = atf_manifest_parse(out, (const char *)b.data, b.size, path, err);
    atf_blob_close(&b);
    return st;
}

void atf_manifest_free(atf_manifest *m)
{
    if (!m)
        return;
    json_decref((json_t *)m->priv_);
    free(m->threads);
    free(m->modules);
    free(m->symbols);
    free(m->anchors);
    free(m);
}

const char *atf_manifest_symbol_name(const atf_manifest *m, uint64_t function_id)
{
    if (!m || !m->symbol_count)
        return NULL;
    size_t lo = 0, hi = m->symbol_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->symbols[mid].function_id < function_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->symbol_count && m->symbols[lo].function_id == function_id ? m->symbols[lo].name : NULL;
}
