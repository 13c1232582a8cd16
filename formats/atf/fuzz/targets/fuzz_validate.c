/* Target validate: the ATF validator behind `atf validate`
 * (atf_validate_path), on a session packed with the session container of
 * fuzz/README.md.
 *
 * Properties:
 *  - the validation runs (ATF_OK) unless nothing in the directory is a thread
 *    or a session (ATF_E_NOT_FOUND, and then the session reader opens none
 *    either); every finding is well formed (a clause of the table, a
 *    severity, a file, a one-line message) and the counts agree with the list;
 *  - the findings are deterministic (a second run gives the same list);
 *  - a session that cannot be opened gives at least one error;
 *  - a broken structural rule, recomputed here from what the session reader
 *    returns (footer vs events: trailing bytes, bytes_written, counts and
 *    time ranges against the header and the events; event kinds; timestamps
 *    going backwards in either lane; the has_detail_file flag; links both
 *    ways, where links into the lost tail of a crash-truncated file are not
 *    broken), gives at least one error; and when none is broken, no error
 *    is reported under the clauses of event kinds, timestamps and links
 *    (IDX-EVT-001, IDX-EVT-003, DET-EVT-004, LINK-002, LINK-004). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/validator.h>

#include "fuzz_atf.h"

static uint64_t mix(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h * 31 + 7;
}

/* Checks every finding of v; @return a hash of the list. */
static uint64_t check_findings(const atf_validation *v)
{
    uint64_t h = 0, errors = 0, warnings = 0, e = 0, w = 0;
    size_t n = atf_validation_finding_count(v);
    for (size_t i = 0; i < n; i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        FZ_CHECK(f && f->clause && atf_clause_find(f->clause), "finding %zu: clause not in the table", i);
        FZ_CHECK(f->severity == ATF_SEV_ERROR || f->severity == ATF_SEV_WARNING, "severity %d", (int)f->severity);
        FZ_CHECK(f->file != NULL && f->message != NULL && f->message[0] != '\0', "finding without file/message");
        FZ_CHECK(strchr(f->message, '\n') == NULL, "finding message spans lines");
        e += f->severity == ATF_SEV_ERROR;
        w += f->severity == ATF_SEV_WARNING;
        h = mix(mix(mix(mix(h ^ f->offset, f->clause), f->file), f->field), f->message) + (uint64_t)f->severity;
    }
    atf_validation_counts(v, &errors, &warnings);
    FZ_CHECK(errors >= e && warnings >= w && (errors > 0) == (e > 0),
             "counts %llu/%llu do not agree with the %zu listed findings", (unsigned long long)errors,
             (unsigned long long)warnings, n);
    return h;
}

/* 1 when v has an error under this clause. */
static int has_error(const atf_validation *v, const char *clause)
{
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        if (f->severity == ATF_SEV_ERROR && !strcmp(f->clause, clause))
            return 1;
    }
    return 0;
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
    const char *dir = fz_fresh_dir("validate");
    fz_container_unpack(data, size, dir);

    atf_validation *a = NULL, *b = NULL;
    atf_error err;
    atf_status st = atf_validate_path(&a, dir, NULL, &err);
    if (st == ATF_E_NOT_FOUND) {
        /* Nothing there is a thread or a session (an empty container): no
         * verdict, and the session reader finds none either. */
        atf_session *s = NULL;
        FZ_CHECK(a == NULL && atf_session_open(&s, dir, NULL, &err) != ATF_OK,
                 "the validator finds no session but the session reader opens one");
        return 0;
    }
    FZ_CHECK(st == ATF_OK, "validation did not run: %s %s", atf_status_name(st), err.message);
    st = atf_validate_path(&b, dir, NULL, &err);
    FZ_CHECK(st == ATF_OK, "validation did not run the second time: %s %s", atf_status_name(st), err.message);
    FZ_CHECK(check_findings(a) == check_findings(b) &&
                 atf_validation_finding_count(a) == atf_validation_finding_count(b),
             "validation is not deterministic");
    atf_validation_free(b);
    uint64_t errors = 0, warnings = 0;
    atf_validation_counts(a, &errors, &warnings);

    atf_session *s = NULL;
    st = atf_session_open(&s, dir, NULL, &err);
    if (st) {
        FZ_CHECK(errors > 0, "session does not open (%s) but the validator finds no error", err.message);
        atf_validation_free(a);
        return 0;
    }
    const char *why = atf_session_manifest_error(s) ? "manifest.json could not be used" : NULL;
    for (size_t i = 0; !why && i < atf_session_thread_count(s); i++)
        why = thread_violation(atf_session_thread_at(s, i));
    if (why) {
        FZ_CHECK(errors > 0, "rule broken (%s) but the validator finds no error", why);
    } else {
        static const char *const pointwise[] = { "IDX-EVT-001", "IDX-EVT-003", "DET-EVT-004", "LINK-002", "LINK-004" };
        for (size_t k = 0; k < sizeof pointwise / sizeof pointwise[0]; k++)
            FZ_CHECK(!has_error(a, pointwise[k]), "validator reports %s but that rule is not broken", pointwise[k]);
    }
    atf_session_close(s);
    atf_validation_free(a);
    return 0;
}
