/* manifest.json of a recording: the keys the codec's session writer writes
 * (format_version, layout, clock_type, arch, os, time range, threads[] with
 * id / has_detail / os_thread_id / event_count / detail_event_count,
 * events_dropped, modules, symbols, timing_anchors) plus what only a
 * recorder knows: per-thread and total backpressure waits, every kind of
 * loss, and a "recorder" object (state, clock, I/O method, configuration,
 * memory bound, detail windows). Replaced atomically (temp file + rename)
 * so a crash leaves the previous complete manifest. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "rec_internal.h"

rec_summary *rec_summary_get(atf_recorder *r, uint64_t id)
{
    for (size_t i = r->nsum; i-- > 0;)
        if (r->sum[i].id == id)
            return &r->sum[i];
    if (r->nsum == r->capsum) {
        size_t n = r->capsum ? r->capsum * 2 : 16;
        rec_summary *s = realloc(r->sum, n * sizeof *s);
        if (!s)
            return NULL;
        r->sum = s;
        r->capsum = n;
    }
    rec_summary *s = &r->sum[r->nsum++];
    memset(s, 0, sizeof *s);
    s->id = id;
    return s;
}

static json_t *u64(uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    char buf[24];
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return json_string(buf);
}

static json_t *build(atf_recorder *r)
{
    json_t *root = json_object();
    json_t *threads = json_array();
    uint64_t t0 = UINT64_MAX, t1 = 0;
    uint64_t dropped = 0, lost_stop = 0, lost_io = 0, rejected = 0, waits = 0, wait_ns = 0;
    uint64_t detail_dropped = 0, evicted = 0, patched = 0;
    for (size_t i = 0; i < r->nsum; i++) {
        const rec_summary *s = &r->sum[i];
        dropped += s->dropped;
        lost_stop += s->lost_at_stop;
        lost_io += s->lost_io;
        rejected += s->rejected;
        waits += s->bp_waits;
        wait_ns += s->bp_wait_ns;
        detail_dropped += s->detail_dropped;
        evicted += s->preroll_evicted;
        patched += s->links_patched;
        if (!s->listed)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "id", u64(s->id));
        json_object_set_new(o, "has_detail", json_boolean(s->has_detail));
        json_object_set_new(o, "os_thread_id", json_integer(s->os_tid));
        json_object_set_new(o, "event_count", u64(s->event_count));
        json_object_set_new(o, "detail_event_count", u64(s->detail_count));
        json_object_set_new(o, "events_dropped", u64(s->dropped + s->lost_at_stop + s->lost_io + s->rejected));
        json_object_set_new(o, "backpressure_waits", u64(s->bp_waits));
        json_object_set_new(o, "backpressure_wait_ns", u64(s->bp_wait_ns));
        json_object_set_new(o, "detail_events_dropped", u64(s->detail_dropped));
        json_object_set_new(o, "detail_preroll_evicted", u64(s->preroll_evicted));
        json_object_set_new(o, "finalized", json_boolean(s->finalized));
        json_array_append_new(threads, o);
        if (s->event_count) {
            if (s->t_first < t0)
                t0 = s->t_first;
            if (s->t_last > t1)
                t1 = s->t_last;
        }
    }
    if (t0 > t1)
        t0 = t1 = 0;
    uint64_t rejected_threads = atomic_load_explicit(&r->events_rejected, RLX);
    uint64_t total = dropped + lost_stop + lost_io + rejected + rejected_threads;
    json_object_set_new(root, "format_version", json_string(r->nsymbols ? "2.1" : "2.0"));
    json_object_set_new(root, "layout", json_integer(r->o.layout));
    json_object_set_new(root, "clock_type", json_integer(ATF_HOST_CLOCK));
    json_object_set_new(root, "arch", json_integer(ATF_HOST_ARCH));
    json_object_set_new(root, "os", json_integer(ATF_HOST_OS));
    json_object_set_new(root, "time_start_ns", u64(t0));
    json_object_set_new(root, "time_end_ns", u64(t1));
    json_object_set_new(root, "threads", threads);
    json_object_set_new(root, "events_dropped", u64(total));
    json_object_set_new(root, "backpressure_waits", u64(waits));
    json_object_set_new(root, "backpressure_wait_ns", u64(wait_ns));

    json_t *rec = json_object();
    json_object_set_new(rec, "library_version", json_string(ATF_VERSION_STRING));
    json_object_set_new(rec, "pid", json_integer(r->pid));
    json_object_set_new(rec, "state", json_string(r->complete ? "complete" : "recording"));
    json_object_set_new(rec, "clock_source", json_string(atf_recorder_clock_name(r->clock.source)));
    json_object_set_new(rec, "io_method", json_string(atf_recorder_io_name(r->io_method)));
    json_object_set_new(rec, "overflow", json_string(r->o.overflow == ATF_RECORDER_DROP ? "drop" : "backpressure"));
    json_object_set_new(rec, "ring_events", u64(r->ring_events));
    json_object_set_new(rec, "publish_batch", json_integer(r->o.publish_batch));
    json_object_set_new(rec, "io_chunk_bytes", json_integer(r->o.io_chunk_bytes));
    json_object_set_new(rec, "max_threads", json_integer(r->o.max_threads));
    json_object_set_new(rec, "memory_bound_bytes", u64(r->memory_bound));
    json_object_set_new(rec, "memory_peak_bytes", u64(atomic_load_explicit(&r->mem_peak, RLX)));
    json_object_set_new(rec, "events_dropped_ring_full", u64(dropped));
    json_object_set_new(rec, "events_lost_at_stop", u64(lost_stop));
    json_object_set_new(rec, "events_lost_io", u64(lost_io));
    json_object_set_new(rec, "events_rejected", u64(rejected + rejected_threads));
    json_object_set_new(rec, "detail_events_dropped", u64(detail_dropped));
    json_object_set_new(rec, "detail_preroll_evicted", u64(evicted));
    json_object_set_new(rec, "detail_links_patched", u64(patched));
    uint64_t corr = 0;
    for (unsigned i = 0; i < r->nwriters; i++) {
        uint64_t m = atomic_load_explicit(&r->writers[i].clock.max_step_ns, RLX);
        if (m > corr)
            corr = m;
    }
    json_object_set_new(rec, "clock_max_correction_ns", u64(corr));
    if (r->o.detail) {
        json_object_set_new(rec, "pre_roll_ns", u64(r->o.pre_roll_ns));
        json_object_set_new(rec, "post_roll_ns", u64(r->o.post_roll_ns));
        json_t *wins = json_array();
        pthread_mutex_lock(&r->win_mu);
        for (size_t i = 0; i < r->nwin; i++) {
            json_t *o = json_object();
            json_object_set_new(o, "start_ns", u64(r->win[i].a));
            json_object_set_new(o, "end_ns", r->win[i].b == UINT64_MAX ? json_null() : u64(r->win[i].b));
            json_array_append_new(wins, o);
        }
        pthread_mutex_unlock(&r->win_mu);
        json_object_set_new(rec, "detail_windows", wins);
    }
    json_object_set_new(root, "recorder", rec);

    if (r->nmodules) {
        json_t *arr = json_array();
        for (size_t i = 0; i < r->nmodules; i++) {
            const atf_manifest_module *m = &r->modules[i];
            json_t *o = json_object();
            json_object_set_new(o, "module_id", u64(m->module_id));
            json_object_set_new(o, "path", json_string(m->path));
            json_object_set_new(o, "base_address", u64(m->base_address));
            json_object_set_new(o, "size", u64(m->size));
            json_object_set_new(o, "uuid", json_string(m->uuid));
            json_array_append_new(arr, o);
        }
        json_object_set_new(root, "modules", arr);
    }
    if (r->nsymbols) {
        json_t *arr = json_array();
        for (size_t i = 0; i < r->nsymbols; i++) {
            const atf_manifest_symbol *s = &r->symbols[i];
            json_t *o = json_object();
            json_object_set_new(o, "function_id", u64(s->function_id));
            json_object_set_new(o, "module_id", u64(s->module_id));
            json_object_set_new(o, "symbol_index", u64(s->symbol_index));
            json_object_set_new(o, "name", json_string(s->name));
            json_array_append_new(arr, o);
        }
        json_object_set_new(root, "symbols", arr);
    }
    if (r->nanchors) {
        json_t *arr = json_array();
        for (size_t i = 0; i < r->nanchors; i++) {
            const atf_timing_anchor *a = &r->anchors[i];
            json_t *o = json_object();
            json_object_set_new(o, "host_time_ns", u64(a->host_time_ns));
            json_object_set_new(o, "media_time_value", json_integer(a->media_time_value));
            json_object_set_new(o, "media_time_scale", json_integer(a->media_time_scale));
            json_array_append_new(arr, o);
        }
        json_object_set_new(root, "timing_anchors", arr);
    }
    return root;
}

atf_status rec_manifest_write(atf_recorder *r, int sync, atf_error *err)
{
    json_t *root = build(r);
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    size_t n = strlen(r->dir) + 32;
    char *final_path = malloc(n), *tmp_path = malloc(n);
    atf_status st = ATF_OK;
    int fd = -1;
    if (!text || !final_path || !tmp_path) {
        st = ATF_E_NOMEM;
        if (err) {
            err->code = st;
            rec_fmt(err->message, sizeof err->message, "out of memory writing the manifest");
        }
        goto out;
    }
    snprintf(final_path, n, "%s/manifest.json", r->dir);
    snprintf(tmp_path, n, "%s/.manifest.json.tmp", r->dir);
    fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    size_t len = strlen(text);
    const char *what = NULL;
    if (fd < 0)
        what = "cannot create";
    for (size_t done = 0; !what && done < len;) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            what = "cannot write";
        else
            done += (size_t)w;
    }
    if (!what && write(fd, "\n", 1) != 1)
        what = "cannot write";
    if (!what && sync && fdatasync(fd) != 0)
        what = "cannot fdatasync";
    if (!what && close(fd) != 0)
        what = "cannot close";
    fd = -1;
    if (!what && rename(tmp_path, final_path) != 0)
        what = "cannot rename into place";
    if (what) {
        st = ATF_E_IO;
        if (err) {
            err->code = st;
            err->offset = UINT64_MAX;
            err->field = NULL;
            rec_fmt(err->file, sizeof err->file, "%s", final_path);
            rec_fmt(err->message, sizeof err->message, "manifest: %s: %s", what, strerror(errno));
        }
        unlink(tmp_path);
    }
out:
    if (fd >= 0)
        close(fd);
    free(text);
    free(final_path);
    free(tmp_path);
    return st;
}
