/* Building and writing manifest.json with jansson, every allocation checked.
 * Shared by the codec's session writer and the recorder (not installed; the
 * recorder compiles against it privately). A failed allocation anywhere
 * marks the builder, and atf_manifest_json_write() then reports
 * ATF_E_NOMEM instead of writing a manifest with keys missing. */
#ifndef ATF_MANIFEST_JSON_H
#define ATF_MANIFEST_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <atf/session.h>

typedef struct atf_jb {
    int failed;              /* an allocation (or insertion) failed */
} atf_jb;

/* New containers (NULL and marked failed when out of memory). */
json_t *atf_jb_object(atf_jb *b);
json_t *atf_jb_array(atf_jb *b);
/* obj[key] = value, stealing value; NULL obj or value marks the builder. */
void atf_jb_set(atf_jb *b, json_t *obj, const char *key, json_t *value);
/* Appends value to arr, stealing it. */
void atf_jb_append(atf_jb *b, json_t *arr, json_t *value);
/* A u64 as a JSON integer when jansson can hold it, else as a "0x" string. */
json_t *atf_json_u64(uint64_t v);
/* A string, NULL taken as "". */
json_t *atf_json_text(const char *s);
/* 1 if s (NULL: "") can be stored in manifest.json (valid UTF-8). */
int atf_manifest_text_ok(const char *s);

/* The leading keys: format_version ("2.1" with symbols, else "2.0"),
 * layout, clock_type, arch, os, time_start_ns, time_end_ns. */
void atf_manifest_json_head(atf_jb *b, json_t *root, int layout, int clock_type, int arch, int os,
                            uint64_t time_start_ns, uint64_t time_end_ns, size_t symbol_count);
/* One threads[] entry with the keys every manifest has: id, has_detail,
 * os_thread_id, event_count, detail_event_count. */
json_t *atf_manifest_json_thread(atf_jb *b, uint64_t id, int has_detail, uint32_t os_thread_id,
                                 uint64_t event_count, uint64_t detail_event_count);
/* modules[], symbols[] and timing_anchors[], each only when not empty. */
void atf_manifest_json_tables(atf_jb *b, json_t *root, const atf_manifest_module *modules, size_t module_count,
                              const atf_manifest_symbol *symbols, size_t symbol_count,
                              const atf_timing_anchor *anchors, size_t anchor_count);

/* Serializes root (NULL or a failed builder: ATF_E_NOMEM) into
 * DIR/manifest.json, atomically: a temporary file renamed into place, so a
 * crash leaves the previous complete manifest. sync: fdatasync the file
 * before the rename. Does not take root. */
atf_status atf_manifest_json_write(const char *dir, json_t *root, const atf_jb *b, int sync, atf_error *err);

#endif /* ATF_MANIFEST_JSON_H */
