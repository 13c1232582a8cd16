/* Target manifest: manifest.json parsing (jansson underneath).
 *
 * Input: a manifest (seeds are real manifests: ADA reader schema, tracer
 * extras, symbol tables with hex strings, timing anchors).
 * Properties:
 *  - parse either succeeds or fails with ATF_E_MANIFEST / ATF_E_LIMIT and an
 *    error record naming the key;
 *  - parse -> serialize -> parse is stable: the manifest is written back as
 *    JSON (numbers as integers, decimal strings or "0x" strings, chosen by
 *    the parameters) and parsed again into the same threads, times, clock,
 *    format_version, modules, symbols (as a multiset), anchors and
 *    events_dropped;
 *  - thread ids are unique; symbols are sorted by function_id and every
 *    symbol's function_id resolves to a symbol of that id. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz_atf.h"

/* A u64 in one of the three spellings the manifest accepts. */
static json_t *u64_json(uint64_t v, fz_params *p)
{
    char buf[32];
    uint8_t how = fz_u8(p) % 3;
    if (how == 0 && v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    if (how == 1)
        snprintf(buf, sizeof buf, "%" PRIu64, v);
    else
        snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return json_string(buf);
}

static void set_new(json_t *obj, const char *key, json_t *v)
{
    FZ_CHECK(v != NULL && json_object_set_new(obj, key, v) == 0, "building %s", key);
}

static char *serialize(const atf_manifest *m, fz_params *p, size_t *len)
{
    json_t *root = json_object(), *threads = json_array(), *mods = json_array(), *syms = json_array(),
           *anchors = json_array();
    FZ_CHECK(root && threads && mods && syms && anchors, "oom");
    for (size_t i = 0; i < m->thread_count; i++) {
        json_t *t = json_object();
        set_new(t, "id", u64_json(m->threads[i].id, p));
        if (m->threads[i].has_detail >= 0)
            set_new(t, "has_detail", json_boolean(m->threads[i].has_detail));
        FZ_CHECK(json_array_append_new(threads, t) == 0, "append");
    }
    set_new(root, "threads", threads);
    set_new(root, "time_start_ns", u64_json(m->time_start_ns, p));
    set_new(root, "time_end_ns", u64_json(m->time_end_ns, p));
    if (m->events_dropped || fz_bool(p))
        set_new(root, "events_dropped", u64_json(m->events_dropped, p));
    if (m->has_clock_type)
        set_new(root, "clock_type", u64_json(m->clock_type, p));
    if (m->format_version[0] || fz_bool(p))
        set_new(root, "format_version", json_string(m->format_version));
    for (size_t i = 0; i < m->module_count; i++) {
        const atf_manifest_module *md = &m->modules[i];
        json_t *o = json_object();
        set_new(o, "module_id", u64_json(md->module_id, p));
        set_new(o, "base_address", u64_json(md->base_address, p));
        set_new(o, "size", u64_json(md->size, p));
        set_new(o, "path", json_string(md->path));
        set_new(o, "uuid", json_string(md->uuid));
        FZ_CHECK(json_array_append_new(mods, o) == 0, "append");
    }
    for (size_t i = 0; i < m->symbol_count; i++) {
        const atf_manifest_symbol *s = &m->symbols[i];
        json_t *o = json_object();
        set_new(o, "function_id", u64_json(s->function_id, p));
        set_new(o, "module_id", u64_json(s->module_id, p));
        set_new(o, "symbol_index", u64_json(s->symbol_index, p));
        set_new(o, "name", json_string(s->name));
        FZ_CHECK(json_array_append_new(syms, o) == 0, "append");
    }
    for (size_t i = 0; i < m->anchor_count; i++) {
        const atf_timing_anchor *a = &m->anchors[i];
        json_t *o = json_object();
        set_new(o, "host_time_ns", u64_json(a->host_time_ns, p));
        set_new(o, "media_time_value", json_integer(a->media_time_value));
        set_new(o, "media_time_scale", json_integer(a->media_time_scale));
        FZ_CHECK(json_array_append_new(anchors, o) == 0, "append");
    }
    set_new(root, "modules", mods);
    set_new(root, "symbols", syms);
    set_new(root, "timing_anchors", anchors);
    if (fz_bool(p))
        set_new(root, "unknown_key_is_ignored", json_pack("{s:[i,s,n]}", "x", 1, "y"));
    char *text = json_dumps(root, JSON_COMPACT | (fz_bool(p) ? JSON_SORT_KEYS : 0));
    FZ_CHECK(text != NULL, "json_dumps");
    json_decref(root);
    *len = strlen(text);
    return text;
}

static int cmp_sym(const void *a, const void *b)
{
    const atf_manifest_symbol *x = a, *y = b;
    if (x->function_id != y->function_id)
        return x->function_id < y->function_id ? -1 : 1;
    if (x->module_id != y->module_id)
        return x->module_id < y->module_id ? -1 : 1;
    if (x->symbol_index != y->symbol_index)
        return x->symbol_index < y->symbol_index ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void check_equal(const atf_manifest *a, const atf_manifest *b)
{
    FZ_CHECK(a->thread_count == b->thread_count, "thread count %zu vs %zu", a->thread_count, b->thread_count);
    for (size_t i = 0; i < a->thread_count; i++)
        FZ_CHECK(a->threads[i].id == b->threads[i].id && a->threads[i].has_detail == b->threads[i].has_detail,
                 "thread %zu differs", i);
    FZ_CHECK(a->time_start_ns == b->time_start_ns && a->time_end_ns == b->time_end_ns, "times differ");
    FZ_CHECK(a->has_clock_type == b->has_clock_type && a->clock_type == b->clock_type, "clock differs");
    FZ_CHECK(strcmp(a->format_version, b->format_version) == 0, "format_version differs");
    FZ_CHECK(a->events_dropped == b->events_dropped, "events_dropped differs");
    FZ_CHECK(a->module_count == b->module_count, "module count");
    for (size_t i = 0; i < a->module_count; i++) {
        const atf_manifest_module *x = &a->modules[i], *y = &b->modules[i];
        FZ_CHECK(x->module_id == y->module_id && x->base_address == y->base_address && x->size == y->size &&
                     strcmp(x->path, y->path) == 0 && strcmp(x->uuid, y->uuid) == 0,
                 "module %zu differs", i);
    }
    FZ_CHECK(a->symbol_count == b->symbol_count, "symbol count");
    if (a->symbol_count) {
        atf_manifest_symbol *x = malloc(a->symbol_count * sizeof *x), *y = malloc(a->symbol_count * sizeof *y);
        FZ_CHECK(x && y, "oom");
        memcpy(x, a->symbols, a->symbol_count * sizeof *x);
        memcpy(y, b->symbols, a->symbol_count * sizeof *y);
        qsort(x, a->symbol_count, sizeof *x, cmp_sym);
        qsort(y, a->symbol_count, sizeof *y, cmp_sym);
        for (size_t i = 0; i < a->symbol_count; i++)
            FZ_CHECK(cmp_sym(&x[i], &y[i]) == 0, "symbol %zu differs", i);
        free(x);
        free(y);
    }
    FZ_CHECK(a->anchor_count == b->anchor_count, "anchor count");
    for (size_t i = 0; i < a->anchor_count; i++)
        FZ_CHECK(a->anchors[i].host_time_ns == b->anchors[i].host_time_ns &&
                     a->anchors[i].media_time_value == b->anchors[i].media_time_value &&
                     a->anchors[i].media_time_scale == b->anchors[i].media_time_scale,
                 "anchor %zu differs", i);
}

static void check_invariants(const atf_manifest *m, fz_params *p)
{
    for (size_t i = 0; i < m->thread_count; i++) {
        FZ_CHECK(m->threads[i].has_detail >= -1 && m->threads[i].has_detail <= 1, "has_detail");
        for (size_t j = 0; j < i; j++)
            FZ_CHECK(m->threads[i].id != m->threads[j].id, "duplicate thread id accepted");
    }
    for (size_t i = 0; i < m->symbol_count; i++) {
        FZ_CHECK(m->symbols[i].name != NULL, "symbol without a name");
        FZ_CHECK(i == 0 || m->symbols[i - 1].function_id <= m->symbols[i].function_id, "symbols not sorted");
        const char *name = atf_manifest_symbol_name(m, m->symbols[i].function_id);
        int found = 0;
        for (size_t j = 0; name && j < m->symbol_count; j++)
            found |= m->symbols[j].function_id == m->symbols[i].function_id && m->symbols[j].name == name;
        FZ_CHECK(found, "symbol_name(%" PRIu64 ") does not resolve to a symbol of that id",
                 m->symbols[i].function_id);
    }
    for (size_t i = 0; i < m->anchor_count; i++)
        FZ_CHECK(m->anchors[i].media_time_scale > 0, "anchor scale");
    for (size_t i = 0; i < m->module_count; i++)
        FZ_CHECK(m->modules[i].path && m->modules[i].uuid, "module strings");
    /* An id that no symbol has resolves to nothing. */
    uint64_t probe = fz_u64(p);
    int present = 0;
    for (size_t i = 0; i < m->symbol_count; i++)
        present |= m->symbols[i].function_id == probe;
    FZ_CHECK(present == (atf_manifest_symbol_name(m, probe) != NULL), "symbol_name(%" PRIu64 ")", probe);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    atf_manifest *m = NULL;
    atf_error err;
    atf_status st = atf_manifest_parse(&m, (const char *)data, size, "manifest.json", &err);
    if (st) {
        FZ_CHECK(m == NULL, "failed parse left a manifest");
        FZ_CHECK(st == ATF_E_MANIFEST || st == ATF_E_LIMIT || st == ATF_E_NOMEM, "parse returned %s",
                 atf_status_name(st));
        fz_check_error(&err, st, "manifest");
        FZ_CHECK(strcmp(err.file, "manifest.json") == 0, "error names the file");
        return 0;
    }
    check_invariants(m, &p);
    size_t len;
    char *text = serialize(m, &p, &len);
    atf_manifest *again = NULL;
    st = atf_manifest_parse(&again, text, len, "again.json", &err);
    FZ_CHECK(st == ATF_OK, "serialized manifest does not parse: %s\n%s", err.message, text);
    check_equal(m, again);
    atf_manifest_free(again);
    free(text);
    atf_manifest_free(m);
    return 0;
}
