/* Session writer: thread directories, linked index/detail writers, and an
 * atomically replaced manifest.json. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <atf/session.h>

#include "internal.h"
#include "manifest_json.h"

struct atf_thread_writer {
    uint64_t id;
    uint32_t os_thread_id;
    atf_layout layout;
    atf_index_writer *index;
    atf_detail_writer *detail;
};

struct atf_session_writer {
    char *dir;
    atf_writer_options o;
    atf_thread_writer **threads;
    size_t thread_count, thread_cap;
    atf_manifest_module *modules;
    size_t module_count;
    atf_manifest_symbol *symbols;
    size_t symbol_count;
    atf_timing_anchor *anchors;
    size_t anchor_count;
    uint64_t dropped;
    int finalized;
    atf_status final_status;
};

/* Grows *arr (of elem bytes) so that one more fits. */
static int grow(void **arr, size_t *cap, size_t count, size_t elem)
{
    if (count < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *n = realloc(*arr, ncap * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = ncap;
    return 0;
}

atf_status atf_session_writer_create(atf_session_writer **out, const char *dir,
                                     const atf_writer_options *opts, atf_error *err)
{
    atf_writer_options defaults = ATF_WRITER_OPTIONS_INIT;
    atf_error_clear(err);
    if (!out || !dir)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_session_writer *sw = calloc(1, sizeof *sw);
    if (!sw || !(sw->dir = atf_strdup(dir))) {
        free(sw);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    sw->o = opts ? *opts : defaults;
    atf_status st = ATF_OK;
    int rc;
    if (sw->o.layout != ATF_LAYOUT_1 && sw->o.layout != ATF_LAYOUT_2)
        st = atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "layout", "layout must be 1 or 2");
    else if ((rc = atf_make_dirs(dir)) != 0)
        st = rc == -2 ? atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL)
                      : atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create directory: %s", strerror(errno));
    else
        st = atf_session_writer_write_manifest(sw, err);
    if (st) {
        atf_error_set_file(err, dir);
        sw->finalized = 1;
        atf_session_writer_close(sw);
        return st;
    }
    *out = sw;
    return ATF_OK;
}

atf_status atf_session_writer_add_thread(atf_session_writer *sw, uint64_t id, uint32_t os_thread_id,
                                         int with_detail, atf_thread_writer **tw, atf_error *err)
{
    atf_error_clear(err);
    if (!sw || !tw)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *tw = NULL;
    if (sw->finalized)
        return atf_fail(err, ATF_E_STATE, ATF_NO_OFFSET, NULL, "session already finalized");
    for (size_t i = 0; i < sw->thread_count; i++)
        if (sw->threads[i]->id == id)
            return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "thread %llu added twice",
                            (unsigned long long)id);
    if (grow((void **)&sw->threads, &sw->thread_cap, sw->thread_count, sizeof *sw->threads))
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    char name[40];
    snprintf(name, sizeof name, "thread_%llu", (unsigned long long)id);
    char *tdir = atf_path_join(sw->dir, name);
    char *ip = tdir ? atf_path_join(tdir, "index.atf") : NULL;
    char *dp = tdir ? atf_path_join(tdir, "detail.atf") : NULL;
    atf_thread_writer *t = calloc(1, sizeof *t);
    atf_status st = ATF_OK;
    if (!tdir || !ip || !dp || !t) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        goto out;
    }
    int rc = atf_make_dirs(tdir);
    if (rc != 0) {
        st = rc == -2 ? atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL)
                      : atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create directory: %s", strerror(errno));
        atf_error_set_file(err, tdir);
        goto out;
    }
    atf_writer_options o = sw->o;
    o.thread_id = os_thread_id;
    t->id = id;
    t->os_thread_id = os_thread_id;
    t->layout = o.layout;
    if ((st = atf_index_writer_open(&t->index, ip, &o, err)))
        goto out;
    if (with_detail) {
        if ((st = atf_detail_writer_open(&t->detail, dp, &o, err)))
            goto out;
        atf_index_writer_set_has_detail(t->index, 1);
    }
    sw->threads[sw->thread_count++] = t;
    *tw = t;
    t = NULL;
    st = atf_session_writer_write_manifest(sw, err);
out:
    if (t) {
        atf_index_writer_close(t->index);
        atf_detail_writer_close(t->detail);
        free(t);
    }
    free(tdir);
    free(ip);
    free(dp);
    return st;
}

atf_status atf_thread_writer_append(atf_thread_writer *tw, const atf_index_event *ev,
                                    const atf_detail_event *detail, uint64_t *seq)
{
    if (!tw || !ev)
        return ATF_E_ARG;
    atf_index_event e = *ev;
    uint64_t iseq = atf_index_writer_count(tw->index);
    e.detail_seq = ATF_NO_DETAIL;
    if (detail) {
        if (!tw->detail)
            return ATF_E_STATE;
        /* Check the index event first: a detail event whose index event is
         * then refused would break the links of every later event. */
        uint8_t raw[ATF_INDEX_EVENT_SIZE];
        e.detail_seq = atf_detail_writer_count(tw->detail);
        atf_status st = atf_index_event_encode(raw, sizeof raw, &e, tw->layout);
        if (st)
            return st;
        atf_detail_event d = *detail;
        d.index_seq = iseq;
        st = atf_detail_writer_append(tw->detail, &d, &e.detail_seq);
        if (st)
            return st;
    }
    atf_status st = atf_index_writer_append(tw->index, &e);
    if (st == ATF_OK && seq)
        *seq = iseq;
    return st;
}

atf_index_writer *atf_thread_writer_index(atf_thread_writer *tw) { return tw ? tw->index : NULL; }
atf_detail_writer *atf_thread_writer_detail(atf_thread_writer *tw) { return tw ? tw->detail : NULL; }

static char *copy_or_empty(const char *s)
{
    return atf_strdup(s ? s : "");
}

atf_status atf_session_writer_add_module(atf_session_writer *sw, const atf_manifest_module *m)
{
    if (!sw || !m || !atf_manifest_text_ok(m->path) || !atf_manifest_text_ok(m->uuid))
        return ATF_E_ARG;
    atf_manifest_module *n = realloc(sw->modules, (sw->module_count + 1) * sizeof *n);
    if (!n)
        return ATF_E_NOMEM;
    sw->modules = n;
    atf_manifest_module c = *m;
    c.path = copy_or_empty(m->path);
    c.uuid = copy_or_empty(m->uuid);
    if (!c.path || !c.uuid) {
        free((char *)c.path);
        free((char *)c.uuid);
        return ATF_E_NOMEM;
    }
    sw->modules[sw->module_count++] = c;
    return ATF_OK;
}

atf_status atf_session_writer_add_symbol(atf_session_writer *sw, const atf_manifest_symbol *s)
{
    if (!sw || !s || !atf_manifest_text_ok(s->name))
        return ATF_E_ARG;
    atf_manifest_symbol *n = realloc(sw->symbols, (sw->symbol_count + 1) * sizeof *n);
    if (!n)
        return ATF_E_NOMEM;
    sw->symbols = n;
    atf_manifest_symbol c = *s;
    if (!(c.name = copy_or_empty(s->name)))
        return ATF_E_NOMEM;
    sw->symbols[sw->symbol_count++] = c;
    return ATF_OK;
}

atf_status atf_session_writer_add_anchor(atf_session_writer *sw, const atf_timing_anchor *a)
{
    if (!sw || !a || a->media_time_scale <= 0)
        return ATF_E_ARG;
    atf_timing_anchor *n = realloc(sw->anchors, (sw->anchor_count + 1) * sizeof *n);
    if (!n)
        return ATF_E_NOMEM;
    sw->anchors = n;
    sw->anchors[sw->anchor_count++] = *a;
    return ATF_OK;
}

void atf_session_writer_set_dropped(atf_session_writer *sw, uint64_t dropped)
{
    if (sw)
        sw->dropped = dropped;
}

static json_t *build_manifest(const atf_session_writer *sw, atf_jb *b)
{
    json_t *root = atf_jb_object(b);
    json_t *threads = atf_jb_array(b);
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (size_t i = 0; i < sw->thread_count; i++) {
        const atf_thread_writer *t = sw->threads[i];
        atf_jb_append(b, threads,
                      atf_manifest_json_thread(b, t->id, t->detail != NULL, t->os_thread_id,
                                               atf_index_writer_count(t->index), atf_detail_writer_count(t->detail)));
        uint64_t first, last;
        if (atf_index_writer_time_range(t->index, &first, &last)) {
            if (first < t0)
                t0 = first;
            if (last > t1)
                t1 = last;
        }
    }
    if (t0 > t1)
        t0 = t1 = 0;
    atf_manifest_json_head(b, root, (int)sw->o.layout, (int)sw->o.clock_type, (int)sw->o.arch, (int)sw->o.os, t0, t1,
                           sw->symbol_count);
    atf_jb_set(b, root, "threads", threads);
    atf_jb_set(b, root, "events_dropped", atf_json_u64(sw->dropped));
    atf_manifest_json_tables(b, root, sw->modules, sw->module_count, sw->symbols, sw->symbol_count, sw->anchors,
                             sw->anchor_count);
    return root;
}

atf_status atf_session_writer_write_manifest(atf_session_writer *sw, atf_error *err)
{
    if (!sw)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    atf_jb b = { 0 };
    json_t *root = build_manifest(sw, &b);
    atf_status st = atf_manifest_json_write(sw->dir, root, &b, 1, err);
    json_decref(root);
    return st;
}

atf_status atf_session_writer_finalize(atf_session_writer *sw, int sync, atf_error *err)
{
    atf_error_clear(err);
    if (!sw)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    if (sw->finalized)
        return sw->final_status;
    atf_status st = ATF_OK;
    for (size_t i = 0; i < sw->thread_count; i++) {
        atf_error e;
        atf_status s1 = atf_detail_writer_finalize(sw->threads[i]->detail, sync, &e);
        if (sw->threads[i]->detail == NULL)
            s1 = ATF_OK;
        atf_status s2 = s1 ? s1 : atf_index_writer_finalize(sw->threads[i]->index, sync, &e);
        if ((s1 || s2) && !st) {
            st = s1 ? s1 : s2;
            if (err)
                *err = e;
        }
    }
    atf_status ms = atf_session_writer_write_manifest(sw, st ? NULL : err);
    if (!st)
        st = ms;
    sw->finalized = 1;
    sw->final_status = st;
    return st;
}

atf_status atf_session_writer_close(atf_session_writer *sw)
{
    if (!sw)
        return ATF_OK;
    atf_status st = sw->finalized ? sw->final_status : atf_session_writer_finalize(sw, 0, NULL);
    for (size_t i = 0; i < sw->thread_count; i++) {
        atf_status a = atf_detail_writer_close(sw->threads[i]->detail);
        atf_status b = atf_index_writer_close(sw->threads[i]->index);
        if (!st)
            st = a ? a : b;
        free(sw->threads[i]);
    }
    for (size_t i = 0; i < sw->module_count; i++) {
        free((char *)sw->modules[i].path);
        free((char *)sw->modules[i].uuid);
    }
    for (size_t i = 0; i < sw->symbol_count; i++)
        free((char *)sw->symbols[i].name);
    free(sw->modules);
    free(sw->symbols);
    free(sw->anchors);
    free(sw->threads);
    free(sw->dir);
    free(sw);
    return st;
}
