/* Structural checks behind `atf validate`: everything the readers learn at
 * open, plus cross-lane links, flags and the manifest. Clause-by-clause
 * validation with clause IDs builds on this in conformance/. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <atf/tools.h>

#include "internal.h"
#include "tools_internal.h"

typedef struct checker {
    atf_finding_fn fn;
    void *user;
} checker;

static void report(checker *c, atf_severity sev, const char *file, uint64_t offset, const char *field,
                   const char *fmt, ...) ATF_PRINTF(6, 7);
static void report(checker *c, atf_severity sev, const char *file, uint64_t offset, const char *field,
                   const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    atf_finding f = { sev, file, offset, field, msg };
    c->fn(c->user, &f);
}

static void check_index(checker *c, const atf_index_reader *r)
{
    const char *file = atf_index_reader_path(r);
    const atf_index_header *h = atf_index_reader_header(r);
    const atf_index_footer *f = atf_index_reader_footer(r);
    const atf_index_info *in = atf_index_reader_info(r);
    uint64_t eo = h->events_offset;

    if (!f) {
        char what[256];
        atf_index_info_describe(what, sizeof what, in);
        report(c, in->state == ATF_FILE_DAMAGED ? ATF_SEV_ERROR : ATF_SEV_WARNING, file,
               in->header_truncated ? 0 : in->events_end, in->header_truncated ? "header" : "footer", "%s", what);
        if (in->header_truncated)
            return;
    } else {
        if (in->trailing_bytes)
            report(c, ATF_SEV_ERROR, file, in->events_end, "footer.event_count",
                   "%" PRIu64 " bytes are neither events nor the footer (gap before it or data after it)",
                   in->trailing_bytes);
        if (f->bytes_written != in->event_count * ATF_INDEX_EVENT_SIZE)
            report(c, ATF_SEV_ERROR, file, in->footer_offset + 32, "footer.bytes_written",
                   "bytes_written %" PRIu64 " is not event_count * 32", f->bytes_written);
        if (!in->header_finalized) {
            /* An empty file's final header looks like the placeholder. */
            if (f->event_count != 0 || h->footer_offset != in->footer_offset)
                report(c, ATF_SEV_WARNING, file, 40, "footer_offset",
                       "the header is still the placeholder although the footer is there (finalize stopped "
                       "before the header was rewritten, or the writer never rewrites it)");
        } else if (h->event_count != f->event_count)
            report(c, ATF_SEV_ERROR, file, h->version == ATF_LAYOUT_1 ? 28 : 24, "event_count",
                   "header event_count %" PRIu64 " disagrees with the footer's %" PRIu64, h->event_count,
                   f->event_count);
        if (in->header_finalized && (h->time_start_ns != f->time_start_ns || h->time_end_ns != f->time_end_ns))
            report(c, ATF_SEV_ERROR, file, 48, "time_start_ns", "header time range disagrees with the footer");
        if (in->scanned && in->event_count &&
            (f->time_start_ns != in->scan.first_ts || f->time_end_ns != in->scan.last_ts))
            report(c, ATF_SEV_ERROR, file, in->footer_offset + 16, "footer.time_start_ns",
                   "footer time range %" PRIu64 "..%" PRIu64 " is not the first..last event timestamp %" PRIu64
                   "..%" PRIu64,
                   f->time_start_ns, f->time_end_ns, in->scan.first_ts, in->scan.last_ts);
        if (f->reserved_nonzero)
            report(c, ATF_SEV_WARNING, file, in->footer_offset + 40, "footer.reserved",
                   "reserved footer bytes are not zero");
    }
    if (h->reserved_nonzero)
        report(c, ATF_SEV_WARNING, file, 17, "reserved", "reserved header bytes are not zero");
    if (!in->scanned)
        return;
    const atf_index_scan *s = &in->scan;
    if (s->bad_kind_count)
        report(c, ATF_SEV_ERROR, file, eo + s->first_bad_kind_seq * 32 + (h->version == ATF_LAYOUT_1 ? 20 : 24),
               "event_kind", "%" PRIu64 " event(s) with event_kind not 1, 2 or 3 (first: seq %" PRIu64 ")",
               s->bad_kind_count, s->first_bad_kind_seq);
    if (s->backwards_count)
        report(c, ATF_SEV_ERROR, file, eo + s->first_backwards_seq * 32, "timestamp_ns",
               "timestamps go backwards %" PRIu64 " time(s) (first: seq %" PRIu64 ")", s->backwards_count,
               s->first_backwards_seq);
    if (s->reserved_nonzero_count)
        report(c, ATF_SEV_WARNING, file, eo + s->first_reserved_nonzero_seq * 32 + 25, "reserved",
               "%" PRIu64 " event(s) with non-zero reserved bytes", s->reserved_nonzero_count);
}

static void check_detail(checker *c, const atf_detail_reader *r)
{
    const char *file = atf_detail_reader_path(r);
    const atf_detail_header *h = atf_detail_reader_header(r);
    const atf_detail_footer *f = atf_detail_reader_footer(r);
    const atf_detail_info *in = atf_detail_reader_info(r);
    if (!f) {
        char what[256];
        atf_detail_info_describe(what, sizeof what, in);
        report(c, in->state == ATF_FILE_DAMAGED ? ATF_SEV_ERROR : ATF_SEV_WARNING, file,
               in->header_truncated ? 0 : in->events_end, in->header_truncated ? "header" : "footer", "%s", what);
        if (in->header_truncated)
            return;
    } else {
        if (!in->header_finalized && f->event_count != 0)
            report(c, ATF_SEV_WARNING, file, 28, "event_count",
                   "the header is still the placeholder although the footer is there (finalize stopped "
                   "before the header was rewritten, or the writer never rewrites it)");
        if (in->header_finalized && h->event_count != f->event_count)
            report(c, ATF_SEV_ERROR, file, 28, "event_count",
                   "header event_count %" PRIu64 " disagrees with the footer's %" PRIu64, h->event_count,
                   f->event_count);
        if (in->event_count && (f->time_start_ns != in->first_ts || f->time_end_ns != in->last_ts))
            report(c, ATF_SEV_ERROR, file, in->footer_offset + 24, "footer.time_start_ns",
                   "footer time range is not the first..last event timestamp");
        if (in->header_finalized && in->event_count &&
            (h->index_seq_start != in->min_index_seq || h->index_seq_end != in->max_index_seq))
            report(c, ATF_SEV_ERROR, file, 44, "index_seq_start",
                   "header index_seq range %" PRIu64 "..%" PRIu64 " is not the events' %" PRIu64 "..%" PRIu64,
                   h->index_seq_start, h->index_seq_end, in->min_index_seq, in->max_index_seq);
        if (f->reserved_nonzero)
            report(c, ATF_SEV_WARNING, file, in->footer_offset + 40, "footer.reserved",
                   "reserved footer bytes are not zero");
    }
    if (h->reserved_nonzero)
        report(c, ATF_SEV_WARNING, file, 16, "reserved", "reserved header bytes are not zero");
    if (in->backwards_count)
        report(c, ATF_SEV_ERROR, file, atf_detail_reader_offset(r, in->first_backwards_seq) + 16, "timestamp",
               "detail timestamps go backwards %" PRIu64 " time(s) (first: seq %" PRIu64 ")",
               in->backwards_count, in->first_backwards_seq);
}

/* Forward links resolve and point back; backward links resolve and point forward. */
static void check_links(checker *c, const tool_thread *t)
{
    const atf_index_reader *ix = t->index;
    const atf_detail_reader *dt = t->detail;
    const char *ifile = atf_index_reader_path(ix);
    const atf_index_header *h = atf_index_reader_header(ix);
    const atf_index_info *in = atf_index_reader_info(ix);
    int has_flag = (h->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE) != 0;
    if (in->header_finalized && has_flag != (dt != NULL))
        report(c, ATF_SEV_ERROR, ifile, 8, "flags", "has_detail_file is %d but detail.atf %s", has_flag,
               dt ? "exists" : "does not exist");
    if (dt && !in->header_truncated && !atf_detail_reader_info(dt)->header_truncated) {
        /* Both headers describe the same thread. The arch decides how
         * payloads decode, so a disagreement there is an error. */
        const atf_detail_header *dh = atf_detail_reader_header(dt);
        const char *dfile = atf_detail_reader_path(dt);
        if (dh->arch != h->arch)
            report(c, ATF_SEV_ERROR, dfile, 6, "arch", "detail header arch %u (%s) disagrees with index.atf's %u (%s)",
                   dh->arch, atf_arch_name(dh->arch), h->arch, atf_arch_name(h->arch));
        if (dh->os != h->os)
            report(c, ATF_SEV_WARNING, dfile, 7, "os", "detail header os %u disagrees with index.atf's %u", dh->os,
                   h->os);
        if (dh->thread_id != h->thread_id)
            report(c, ATF_SEV_WARNING, dfile, 12, "thread_id",
                   "detail header thread_id %u disagrees with index.atf's %u", dh->thread_id, h->thread_id);
    }
    uint64_t n = atf_index_reader_count(ix), nd = dt ? atf_detail_reader_count(dt) : 0;
    uint64_t bad_fwd = 0, first_fwd = 0, bad_back = 0, first_back = 0, lost = 0;
    for (uint64_t seq = 0; seq < n; seq++) {
        atf_index_event e;
        atf_detail_event d;
        atf_index_reader_get(ix, seq, &e);
        if (e.detail_seq == ATF_NO_DETAIL)
            continue;
        if (e.detail_seq >= nd) {
            /* In a crash-truncated detail file the tail may legitimately be gone. */
            if (dt && atf_detail_reader_info(dt)->recovered) {
                lost++;
                continue;
            }
            if (bad_fwd++ == 0)
                first_fwd = seq;
            continue;
        }
        atf_detail_reader_get(dt, e.detail_seq, &d);
        if (d.index_seq != seq && bad_fwd++ == 0)
            first_fwd = seq;
    }
    if (bad_fwd)
        report(c, ATF_SEV_ERROR, ifile, h->events_offset + first_fwd * 32, "detail_seq",
               "%" PRIu64 " forward link(s) do not resolve to a detail event pointing back (first: seq %" PRIu64 ")",
               bad_fwd, first_fwd);
    if (lost)
        report(c, ATF_SEV_WARNING, ifile, ATF_NO_OFFSET, "detail_seq",
               "%" PRIu64 " forward link(s) point past the crash-truncated detail file", lost);
    for (uint64_t ds = 0; ds < nd; ds++) {
        atf_detail_event d;
        atf_index_event e;
        atf_detail_reader_get(dt, ds, &d);
        if (d.index_seq >= n) {
            if (in->recovered)
                continue;
            if (bad_back++ == 0)
                first_back = ds;
            continue;
        }
        atf_index_reader_get(ix, d.index_seq, &e);
        if (e.detail_seq != ds && bad_back++ == 0)
            first_back = ds;
    }
    if (bad_back)
        report(c, ATF_SEV_ERROR, atf_detail_reader_path(dt), atf_detail_reader_offset(dt, first_back) + 8,
               "index_seq",
               "%" PRIu64 " backward link(s) do not resolve to an index event pointing forward (first: detail seq %"
               PRIu64 ")",
               bad_back, first_back);
}

atf_status atf_tool_check(const char *path, const atf_tool_options *opts, atf_finding_fn fn, void *user,
                          atf_error *err)
{
    if (!path || !fn)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    checker c = { fn, user };
    tool_source src;
    atf_error e;
    atf_status st = tool_source_open(&src, path, opts, &e);
    if (st) {
        if (st == ATF_E_IO || st == ATF_E_NOMEM || st == ATF_E_ARG) {
            if (err)
                *err = e;
            return st;
        }
        /* The input is invalid: that is a finding, not a failure to check. */
        report(&c, ATF_SEV_ERROR, e.file, e.offset, e.field, "%s", e.message);
        return ATF_OK;
    }
    if (src.session)
        for (size_t i = 0; i < atf_session_warning_count(src.session); i++)
            report(&c, ATF_SEV_WARNING, src.path, ATF_NO_OFFSET, "manifest", "%s", atf_session_warning(src.session, i));
    const atf_error *me = src.session ? atf_session_manifest_error(src.session) : NULL;
    if (me)
        report(&c, ATF_SEV_ERROR, me->file, me->offset, me->field, "%s", me->message);
    for (size_t i = 0; i < src.thread_count; i++) {
        const tool_thread *t = &src.threads[i];
        if (t->status)   /* a file of this thread could not be read: a finding, the rest is checked */
            report(&c, ATF_SEV_ERROR, t->error->file, t->error->offset, t->error->field, "%s", t->error->message);
        if (t->index)
            check_index(&c, t->index);
        if (t->detail)
            check_detail(&c, t->detail);
        if (t->index && (t->detail || (src.kind != ATF_PATH_INDEX && !t->status)))
            check_links(&c, t);
    }
    tool_source_close(&src);
    return ATF_OK;
}
