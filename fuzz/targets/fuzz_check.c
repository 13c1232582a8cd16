/* Target check: the structural validator behind `atf validate`
 * (atf_tool_check), on a session packed with the session container of
 * fuzz/README.md.
 *
 * Properties:
 *  - the checks always run on an existing directory (ATF_OK) and every
 *    finding is well formed (severity, file, message);
 *  - the findings are deterministic (a second run gives the same list);
 *  - a session that cannot be opened gives at least one error;
 *  - the validator reports an error exactly when one of the structural rules
 *    it documents is broken, recomputed here from the raw bytes: footer vs
 *    events (trailing bytes, bytes_written, counts and time ranges against
 *    the header and the events), event kinds, timestamps going backwards in
 *    either lane, the has_detail_file flag, the arch of both headers, and
 *    links both ways (links into the lost tail of a crash-truncated file
 *    are not errors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/tools.h>

#include "fuzz_atf.h"

typedef struct findings {
    unsigned errors, warnings;
    uint64_t hash;
} findings;

static uint64_t mix(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h * 31 + 7;
}

static void on_finding(void *user, const atf_finding *f)
{
    findings *c = user;
    FZ_CHECK(f->severity == ATF_SEV_ERROR || f->severity == ATF_SEV_WARNING, "severity %d", (int)f->severity);
    FZ_CHECK(f->file != NULL && f->message != NULL && f->message[0] != '\0', "finding without file/message");
    FZ_CHECK(strchr(f->message, '\n') == NULL, "finding message spans lines");
    if (f->severity == ATF_SEV_ERROR)
        c->errors++;
    else
        c->warnings++;
    c->hash = mix(mix(mix(c->hash ^ f->offset, f->file), f->field), f->message) + (uint64_t)f->severity;
}

/* The first broken rule of one thread, or NULL. */
static const char *thread_violation(const atf_session_thread *t)
{
    if (t->status)
        return "a file of the thread could not be read";
    if (!t->index)
        return NULL;   /* a crash-left thread directory without files: nothing to check */
    if (atf_index_reader_info(t->index)->state == ATF_FILE_DAMAGED ||
        (t->detail && atf_detail_reader_info(t->detail)->state == ATF_FILE_DAMAGED))
        return "a finalized header without its footer (REC-004)";
    const atf_index_reader *ix = t->index;
    const atf_index_header *h = atf_index_reader_header(ix);
    const atf_index_footer *f = atf_index_reader_footer(ix);
    const atf_index_info *in = atf_index_reader_info(ix);
    uint64_t n = in->event_count;
    atf_index_event first = { 0 }, last = { 0 }, e;
    if (n) {
        atf_index_reader_get(ix, 0, &first);
        atf_index_reader_get(ix, n - 1, &last);
    }
    if (f) {
        if (in->trailing_bytes)
            return "index: bytes besides header, events and footer";
        if (f->bytes_written != n * 32)
            return "index: bytes_written";
        if (in->header_finalized && (h->event_count != f->event_count || h->time_start_ns != f->time_start_ns ||
                                     h->time_end_ns != f->time_end_ns))
            return "index: header disagrees with footer";
        if (n && (f->time_start_ns != first.timestamp_ns || f->time_end_ns != last.timestamp_ns))
            return "index: footer times vs events";
    }
    for (uint64_t seq = 0; seq < n; seq++) {
        atf_index_reader_get(ix, seq, &e);
        if (e.event_kind < 1 || e.event_kind > 3)
            return "index: event_kind";
        if (seq) {
            atf_index_event prev;
            atf_index_reader_get(ix, seq - 1, &prev);
            if (e.timestamp_ns < prev.timestamp_ns)
                return "index: timestamps go backwards";
        }
    }
    const atf_detail_reader *dt = t->detail;
    uint64_t nd = dt ? atf_detail_reader_count(dt) : 0;
    if (dt) {
        const atf_detail_header *dh = atf_detail_reader_header(dt);
        const atf_detail_footer *df = atf_detail_reader_footer(dt);
        const atf_detail_info *di = atf_detail_reader_info(dt);
        atf_detail_event d0, d1, d;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint64_t ds = 0; ds < nd; ds++) {
            atf_detail_reader_get(dt, ds, &d);
            lo = d.index_seq < lo ? d.index_seq : lo;
            hi = d.index_seq > hi ? d.index_seq : hi;
            if (ds) {
                atf_detail_reader_get(dt, ds - 1, &d0);
                if (d.timestamp < d0.timestamp)
                    return "detail: timestamps go backwards";
            }
        }
        if (df) {
            if (di->header_finalized && dh->event_count != df->event_count)
                return "detail: header count vs footer";
            if (nd) {
                atf_detail_reader_get(dt, 0, &d0);
                atf_detail_reader_get(dt, nd - 1, &d1);
                if (df->time_start_ns != d0.timestamp || df->time_end_ns != d1.timestamp)
                    return "detail: footer times vs events";
                if (di->header_finalized && (dh->index_seq_start != lo || dh->index_seq_end != hi))
                    return "detail: header index_seq range";
            }
        }
    }
    if (in->header_finalized && ((h->flags & 1) != 0) != (dt != NULL))
        return "has_detail_file flag vs detail.atf";
    if (dt && !in->header_truncated && !atf_detail_reader_info(dt)->header_truncated &&
        atf_detail_reader_header(dt)->arch != h->arch)
        return "detail header arch vs index header arch";
    for (uint64_t seq = 0; seq < n; seq++) {
        atf_index_reader_get(ix, seq, &e);
        if (e.detail_seq == ATF_NO_DETAIL)
            continue;
        if (e.detail_seq >= nd) {
            if (!(dt && atf_detail_reader_info(dt)->recovered))
                return "forward link outside the detail file";
            continue;
        }
        atf_detail_event d;
        atf_detail_reader_get(dt, e.detail_seq, &d);
        if (d.index_seq != seq)
            return "forward link does not point back";
    }
    for (uint64_t ds = 0; ds < nd; ds++) {
        atf_detail_event d;
        atf_detail_reader_get(dt, ds, &d);
        if (d.index_seq >= n) {
            if (!in->recovered)
                return "backward link outside the index file";
            continue;
        }
        atf_index_reader_get(ix, d.index_seq, &e);
        if (e.detail_seq != ds)
            return "backward link does not point forward";
    }
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_fresh_dir("check");
    fz_container_unpack(data, size, dir);

    findings a = { 0, 0, 0 }, b = { 0, 0, 0 };
    atf_error err;
    atf_status st = atf_tool_check(dir, NULL, on_finding, &a, &err);
    FZ_CHECK(st == ATF_OK, "check did not run: %s %s", atf_status_name(st), err.message);
    st = atf_tool_check(dir, NULL, on_finding, &b, &err);
    FZ_CHECK(st == ATF_OK && a.errors == b.errors && a.warnings == b.warnings && a.hash == b.hash,
             "check is not deterministic");

    atf_session *s = NULL;
    st = atf_session_open(&s, dir, NULL, &err);
    if (st) {
        FZ_CHECK(a.errors > 0, "session does not open (%s) but the validator finds no error", err.message);
        return 0;
    }
    const char *why = atf_session_manifest_error(s) ? "manifest.json could not be used" : NULL;
    for (size_t i = 0; !why && i < atf_session_thread_count(s); i++)
        why = thread_violation(atf_session_thread_at(s, i));
    if (why)
        FZ_CHECK(a.errors > 0, "rule broken (%s) but the validator finds no error", why);
    else
        FZ_CHECK(a.errors == 0, "validator reports %u error(s) but no rule is broken", a.errors);
    atf_session_close(s);
    return 0;
}
