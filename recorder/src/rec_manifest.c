/* manifest.json of a recording: the keys the codec's session writer writes
 * (format_version, layout, clock_type, arch, os, time range, threads[] with
 * id / has_detail / os_thread_id / event_count / detail_event_count,
 * events_dropped, modules, symbols, timing_anchors) plus what only a
 * recorder knows: per-thread and total backpressure waits, every kind of
 * loss, and a "recorder" object (state, clock, I/O method, configuration,
 * memory bound, detail windows). Written while recording (state
 * "recording"), the manifest leaves the session time range unset and its
 * per-thread counts are informational; the final one (state "complete")
 * carries the range and the final counts. The common keys and the atomic
 * replacement (temp file + rename, so a crash leaves the previous complete
 * manifest) are the codec's (formats/atf/src/manifest_json.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "manifest_json.h"
#include "rec_internal.h"
#include "rec_manifest.h"
#include "rec_writer.h"

rec_summary *rec_summary_get(atf_recorder *r, uint64_t id)
{
    /* Thread ids are dense (0, 1, 2, ... in the order threads first
     * record), so an index by id finds a summary in constant time: a scan
     * of every summary for each new thread made 100,000 short-lived threads
     * quadratic. */
    if (id < r->capsum_of && r->sum_of[id])
        return &r->sum[r->sum_of[id] - 1];
    if (id >= r->capsum_of) {
        size_t n = r->capsum_of ? r->capsum_of : 16;
        while (n <= id)
            n *= 2;
        size_t *o = realloc(r->sum_of, n * sizeof *o);
        if (!o)
            return NULL;
        memset(o + r->capsum_of, 0, (n - r->capsum_of) * sizeof *o);
        r->sum_of = o;
        r->capsum_of = n;
    }
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
    r->sum_of[id] = r->nsum;
    return s;
}

#define U64 atf_json_u64

static json_t *build(atf_recorder *r, atf_jb *b)
{
    json_t *root = atf_jb_object(b);
    json_t *threads = atf_jb_array(b);
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
        json_t *o = atf_manifest_json_thread(b, s->id, s->has_detail, s->os_tid, s->event_count, s->detail_count);
        atf_jb_set(b, o, "events_dropped", U64(s->dropped + s->lost_at_stop + s->lost_io + s->rejected));
        atf_jb_set(b, o, "backpressure_waits", U64(s->bp_waits));
        atf_jb_set(b, o, "backpressure_wait_ns", U64(s->bp_wait_ns));
        atf_jb_set(b, o, "detail_events_dropped", U64(s->detail_dropped));
        atf_jb_set(b, o, "detail_preroll_evicted", U64(s->preroll_evicted));
        atf_jb_set(b, o, "finalized", json_boolean(s->finalized));
        atf_jb_append(b, threads, o);
        if (s->event_count) {
            if (s->t_first < t0)
                t0 = s->t_first;
            if (s->t_last > t1)
                t1 = s->t_last;
        }
    }
    /* While recording, the time range stays unset (0, SPEC section 5): a
     * range written now would be contradicted by the events that follow it
     * if the process dies before the final manifest (SES-MAN-007, an error;
     * SPEC errata E-19). Only the final manifest ("complete") carries it. */
    if (t0 > t1 || !r->complete)
        t0 = t1 = 0;
    uint64_t rejected_threads = atomic_load_explicit(&r->events_rejected, RLX);
    uint64_t total = dropped + lost_stop + lost_io + rejected + rejected_threads;
    atf_manifest_json_head(b, root, (int)r->o.layout, ATF_HOST_CLOCK, ATF_HOST_ARCH, ATF_HOST_OS, t0, t1,
                           r->nsymbols);
    atf_jb_set(b, root, "threads", threads);
    atf_jb_set(b, root, "events_dropped", U64(total));
    atf_jb_set(b, root, "backpressure_waits", U64(waits));
    atf_jb_set(b, root, "backpressure_wait_ns", U64(wait_ns));

    json_t *rec = atf_jb_object(b);
    atf_jb_set(b, rec, "library_version", json_string(ATF_VERSION_STRING));
    atf_jb_set(b, rec, "pid", json_integer(r->pid));
    atf_jb_set(b, rec, "state", json_string(r->complete ? "complete" : "recording"));
    atf_jb_set(b, rec, "clock_source", json_string(atf_recorder_clock_name(r->clock.source)));
    atf_jb_set(b, rec, "io_method", json_string(atf_recorder_io_name(r->io_method)));
    atf_jb_set(b, rec, "overflow", json_string(r->o.overflow == ATF_RECORDER_DROP ? "drop" : "backpressure"));
    atf_jb_set(b, rec, "ring_events", U64(r->ring_events));
    if (r->o.publish_batch)
        atf_jb_set(b, rec, "publish_batch", json_integer(r->o.publish_batch));
    else
        atf_jb_set(b, rec, "publish_batch", json_string("auto"));
    atf_jb_set(b, rec, "io_chunk_bytes", json_integer(r->o.io_chunk_bytes));
    atf_jb_set(b, rec, "max_threads", json_integer(r->o.max_threads));
    atf_jb_set(b, rec, "memory_bound_bytes", U64(r->memory_bound));
    atf_jb_set(b, rec, "memory_peak_bytes", U64(atomic_load_explicit(&r->budget.peak, RLX)));
    atf_jb_set(b, rec, "events_dropped_ring_full", U64(dropped));
    atf_jb_set(b, rec, "events_lost_at_stop", U64(lost_stop));
    atf_jb_set(b, rec, "events_lost_io", U64(lost_io));
    atf_jb_set(b, rec, "events_rejected", U64(rejected + rejected_threads));
    atf_jb_set(b, rec, "detail_events_dropped", U64(detail_dropped));
    atf_jb_set(b, rec, "detail_preroll_evicted", U64(evicted));
    atf_jb_set(b, rec, "detail_links_patched", U64(patched));
    uint64_t corr = 0;
    for (unsigned i = 0; i < r->nwriters; i++) {
        uint64_t m = atomic_load_explicit(&r->writers[i].clock.max_step_ns, RLX);
        if (m > corr)
            corr = m;
    }
    atf_jb_set(b, rec, "clock_max_correction_ns", U64(corr));
    if (r->o.detail) {
        atf_jb_set(b, rec, "pre_roll_ns", U64(r->o.pre_roll_ns));
        atf_jb_set(b, rec, "post_roll_ns", U64(r->o.post_roll_ns));
        json_t *wins = atf_jb_array(b);
        pthread_mutex_lock(&r->win_mu);
        for (size_t i = 0; i < r->nwin; i++) {
            json_t *o = atf_jb_object(b);
            atf_jb_set(b, o, "start_ns", U64(r->win[i].a));
            atf_jb_set(b, o, "end_ns", r->win[i].b == UINT64_MAX ? json_null() : U64(r->win[i].b));
            atf_jb_append(b, wins, o);
        }
        pthread_mutex_unlock(&r->win_mu);
        atf_jb_set(b, rec, "detail_windows", wins);
    }
    atf_jb_set(b, root, "recorder", rec);
    atf_manifest_json_tables(b, root, r->modules, r->nmodules, r->symbols, r->nsymbols, r->anchors, r->nanchors);
    return root;
}

atf_status rec_manifest_write(atf_recorder *r, int sync, atf_error *err)
{
    atf_jb b = { 0 };
    json_t *root = build(r, &b);
    atf_status st = atf_manifest_json_write(r->dir, root, &b, sync, err);
    json_decref(root);
    return st;
}
