/* manifest.json building and atomic writing (see manifest_json.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "manifest_json.h"

json_t *atf_jb_object(atf_jb *b)
{
    json_t *o = json_object();
    if (!o)
        b->failed = 1;
    return o;
}

json_t *atf_jb_array(atf_jb *b)
{
    json_t *a = json_array();
    if (!a)
        b->failed = 1;
    return a;
}

void atf_jb_set(atf_jb *b, json_t *obj, const char *key, json_t *value)
{
    /* json_object_set_new() releases value on every failure, NULL obj included. */
    if (!obj || !value || json_object_set_new(obj, key, value) != 0) {
        if (!obj)
            json_decref(value);
        b->failed = 1;
    }
}

void atf_jb_append(atf_jb *b, json_t *arr, json_t *value)
{
    if (!arr || !value || json_array_append_new(arr, value) != 0) {
        if (!arr)
            json_decref(value);
        b->failed = 1;
    }
}

json_t *atf_json_u64(uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    char buf[24];
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return json_string(buf);
}

json_t *atf_json_text(const char *s)
{
    return json_string(s ? s : "");
}

/* Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF), the strings jansson accepts. */
int atf_manifest_text_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p++;
        if (c < 0x80)
            continue;
        unsigned n, min;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0) {
            n = 1, min = 0x80, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2, min = 0x800, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3, min = 0x10000, cp = c & 0x07;
        } else {
            return 0;
        }
        for (unsigned i = 0; i < n; i++, p++) {
            if ((*p & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (*p & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
    }
    return 1;
}

void atf_manifest_json_head(atf_jb *b, json_t *root, int layout, int clock_type, int arch, int os,
                            uint64_t time_start_ns, uint64_t time_end_ns, size_t symbol_count)
{
    atf_jb_set(b, root, "format_version", json_string(symbol_count ? "2.1" : "2.0"));
    atf_jb_set(b, root, "layout", json_integer(layout));
    atf_jb_set(b, root, "clock_type", json_integer(clock_type));
    atf_jb_set(b, root, "arch", json_integer(arch));
    atf_jb_set(b, root, "os", json_integer(os));
    atf_jb_set(b, root, "time_start_ns", atf_json_u64(time_start_ns));
    atf_jb_set(b, root, "time_end_ns", atf_json_u64(time_end_ns));
}

json_t *atf_manifest_json_thread(atf_jb *b, uint64_t id, int has_detail, uint32_t os_thread_id,
                                 uint64_t event_count, uint64_t detail_event_count)
{
    json_t *o = atf_jb_object(b);
    atf_jb_set(b, o, "id", atf_json_u64(id));
    atf_jb_set(b, o, "has_detail", json_boolean(has_detail));
    atf_jb_set(b, o, "os_thread_id", json_integer(os_thread_id));
    atf_jb_set(b, o, "event_count", atf_json_u64(event_count));
    atf_jb_set(b, o, "detail_event_count", atf_json_u64(detail_event_count));
    return o;
}

/* One row of a manifest table: the object for rows[i]. */
typedef json_t *(*table_row)(atf_jb *b, const void *rows, size_t i);

static json_t *module_row(atf_jb *b, const void *rows, size_t i)
{
    const atf_manifest_module *m = (const atf_manifest_module *)rows + i;
    json_t *o = atf_jb_object(b);
    atf_jb_set(b, o, "module_id", atf_json_u64(m->module_id));
    atf_jb_set(b, o, "path", atf_json_text(m->path));
    atf_jb_set(b, o, "base_address", atf_json_u64(m->base_address));
    atf_jb_set(b, o, "size", atf_json_u64(m->size));
    atf_jb_set(b, o, "uuid", atf_json_text(m->uuid));
    return o;
}

static json_t *symbol_row(atf_jb *b, const void *rows, size_t i)
{
    const atf_manifest_symbol *s = (const atf_manifest_symbol *)rows + i;
    json_t *o = atf_jb_object(b);
    atf_jb_set(b, o, "function_id", atf_json_u64(s->function_id));
    atf_jb_set(b, o, "module_id", atf_json_u64(s->module_id));
    atf_jb_set(b, o, "symbol_index", atf_json_u64(s->symbol_index));
    atf_jb_set(b, o, "name", atf_json_text(s->name));
    return o;
}

static json_t *anchor_row(atf_jb *b, const void *rows, size_t i)
{
    const atf_timing_anchor *a = (const atf_timing_anchor *)rows + i;
    json_t *o = atf_jb_object(b);
    atf_jb_set(b, o, "host_time_ns", atf_json_u64(a->host_time_ns));
    atf_jb_set(b, o, "media_time_value", json_integer(a->media_time_value));
    atf_jb_set(b, o, "media_time_scale", json_integer(a->media_time_scale));
    return o;
}

/* root[key] = [row(0), ..., row(n-1)], left out when n is 0. */
static void table(atf_jb *b, json_t *root, const char *key, const void *rows, size_t n, table_row row)
{
    if (!n)
        return;
    json_t *arr = atf_jb_array(b);
    for (size_t i = 0; i < n; i++)
        atf_jb_append(b, arr, row(b, rows, i));
    atf_jb_set(b, root, key, arr);
}

void atf_manifest_json_tables(atf_jb *b, json_t *root, const atf_manifest_module *modules, size_t module_count,
                              const atf_manifest_symbol *symbols, size_t symbol_count,
                              const atf_timing_anchor *anchors, size_t anchor_count)
{
    table(b, root, "modules", modules, module_count, module_row);
    table(b, root, "symbols", symbols, symbol_count, symbol_row);
    table(b, root, "timing_anchors", anchors, anchor_count, anchor_row);
}

/* The serialized text, grown by json_dump_callback(). The failure flag is
 * sticky: jansson 2.14 ignores the callback's error when it writes an
 * object key, and would go on to produce a document without that key. */
typedef struct json_text {
    char *p;
    size_t len, cap;
    int failed;
} json_text;

static int json_text_put(const char *s, size_t n, void *user)
{
    json_text *t = user;
    if (t->failed)
        return -1;
    if (n > t->cap - t->len) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->len < n) {
            if (cap > SIZE_MAX / 2) {
                t->failed = 1;
                return -1;
            }
            cap *= 2;
        }
        char *q = realloc(t->p, cap);
        if (!q) {
            t->failed = 1;
            return -1;
        }
        t->p = q;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    return 0;
}

atf_status atf_manifest_json_write(const char *dir, json_t *root, const atf_jb *b, int sync, atf_error *err)
{
    json_text text = { NULL, 0, 0, 0 };
    if (!root || b->failed || json_dump_callback(root, json_text_put, &text, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
        json_text_put("\n", 1, &text) != 0)
        text.failed = 1;
    char *final_path = atf_path_join(dir, "manifest.json");
    char *tmp_path = atf_path_join(dir, ".manifest.json.tmp");
    atf_status st = ATF_OK;
    int fd = -1;
    if (text.failed || !final_path || !tmp_path) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, "out of memory building manifest.json");
        atf_error_set_file(err, final_path ? final_path : dir);
        goto out;
    }
    const char *what = NULL, *where = tmp_path;
    int e = 0;
    fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        what = "cannot create", e = errno;
    } else {
        errno = 0;
        if (atf_write_all(fd, text.p, text.len, 0, 0) != ATF_OK)
            what = "cannot write", e = errno ? errno : EIO;
        else if (sync && fdatasync(fd) != 0)
            what = "cannot fdatasync", e = errno;
        if (close(fd) != 0 && !what)
            what = "cannot close", e = errno;
        fd = -1;
    }
    if (!what && rename(tmp_path, final_path) != 0)
        what = "cannot rename into place", e = errno, where = final_path;
    if (!what && sync) {
        /* The rename is durable once the directory is. */
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) != 0)
            what = "cannot fsync the directory", e = errno, where = dir;
        if (dfd >= 0)
            close(dfd);
    }
    if (what) {
        st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "manifest: %s: %s", what, strerror(e));
        atf_error_set_file(err, where);
        unlink(tmp_path);
    }
out:
    if (fd >= 0)
        close(fd);
    free(text.p);
    free(final_path);
    free(tmp_path);
    return st;
}
