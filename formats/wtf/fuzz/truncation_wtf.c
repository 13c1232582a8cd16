/* The WTF part of the truncation checker (ctest label "truncation").
 *
 * From a valid WTF file (our writer's scenarios, the reference library's
 * traces, the golden corpus's y_ cases: complete, no error finding, checked
 * first) it generates in memory what a writer that dies leaves behind, and
 * checks each variant against the outcome SPEC-WTF section 6 gives,
 * computed from the original's structure (fz_wtf_cut_expect: its chunk
 * boundaries, part tables, string tables and event ends):
 *
 *   trunc      the file cut at every length 0..size-1: the complete chunks
 *              and, of the chunk cut short, its complete events when its
 *              part table and string table are whole; crash-truncated
 *              (never damaged), complete only at a chunk boundary
 *   zero-tail  the whole file followed by Z zero bytes (space reserved and
 *              never written): every event, crash-truncated
 *
 * For every variant: the reader (atf_wtf_reader_open_memory) recovers
 * exactly those events, at the original's offsets with the original's
 * sizes, and says crash-truncated; the harness's model agrees; the reader
 * matches the model event by event and value by value; the validator
 * reports WTF-REC-001 as a warning and the same number of recovered events
 * exactly when the file is crash-truncated, and no error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/validator.h>

#include "fuzz_wtf.h"
#include "truncation.h"

static const char *const states[] = { "complete", "crash-truncated", "damaged" };

/* The validator on a variant: errors, REC-001 and the recovered count. */
static void check_validator(const char *path, const char *cls, size_t param, const uint8_t *v, size_t size,
                            atf_wtf_state state, uint64_t events)
{
    atf_validation *val = NULL;
    atf_error err;
    findings_runs++;
    if (atf_validate_wtf_memory(&val, v, size, NULL, NULL, &err) != ATF_OK) {
        failf("%s %s %zu: the validator did not run: %s", path, cls, param, err.message);
        return;
    }
    int rec = 0;
    const atf_validate_finding *first_error = NULL;
    for (size_t i = 0; i < atf_validation_finding_count(val); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(val, i);
        if (strcmp(f->clause, "WTF-REC-001") == 0)
            rec |= f->severity == ATF_SEV_WARNING ? 1 : 2;
        else if (f->severity == ATF_SEV_ERROR && !first_error)
            first_error = f;
    }
    int cut = state == ATF_WTF_CRASH_TRUNCATED;
    size_t nrec = atf_validation_recovered_count(val);
    if (first_error)
        failf("%s %s %zu: the validator reports %s: %s", path, cls, param, first_error->clause,
              first_error->message);
    else if (rec != (cut ? 1 : 0) || nrec != (size_t)cut)
        failf("%s %s %zu: WTF-REC-001 %s, %zu recovered file(s); expected %s", path, cls, param,
              rec == 1 ? "a warning" : rec ? "an error" : "not reported", nrec, states[state]);
    else if (cut && atf_validation_recovered_at(val, 0)->events != events)
        failf("%s %s %zu: the validator recovered %llu events, SPEC-WTF 6 says %llu", path, cls, param,
              (unsigned long long)atf_validation_recovered_at(val, 0)->events, (unsigned long long)events);
    atf_validation_free(val);
}

/* The reader and the model on a variant. */
static void check_variant(const char *path, const char *cls, size_t param, const uint8_t *v, size_t size,
                          const fz_wtf_model *full, atf_wtf_state state, uint64_t events)
{
    variants++;
    fz_wtf_model m = fz_wtf_model_of(v, size);
    if (m.state != state || m.events != events)
        failf("%s %s %zu: the model: %s, %llu events; SPEC-WTF 6: %s, %llu", path, cls, param, states[m.state],
              (unsigned long long)m.events, states[state], (unsigned long long)events);
    atf_wtf_reader *r = NULL;
    atf_error err;
    if (atf_wtf_reader_open_memory(&r, v, size, "trunc.wtf-trace", &err) != ATF_OK) {
        failf("%s %s %zu: does not open: %s", path, cls, param, err.message);
        fz_wtf_model_free(&m);
        return;
    }
    const atf_wtf_chunk *c;
    atf_wtf_event ev;
    uint64_t n = 0;
    atf_status st;
    while ((st = atf_wtf_reader_next_chunk(r, &c, &err)) == ATF_OK) {
        while ((st = atf_wtf_reader_next_event(r, &ev, &err)) == ATF_OK) {
            if (n >= full->events || ev.offset != full->ev[n].offset || ev.size != full->ev[n].size) {
                failf("%s %s %zu: event %llu at %llu (%u bytes) is not the original's", path, cls, param,
                      (unsigned long long)n, (unsigned long long)ev.offset, ev.size);
                goto done;
            }
            n++;
        }
        if (st != ATF_E_NOT_FOUND) {
            failf("%s %s %zu: an event refused: %s", path, cls, param, err.message);
            goto done;
        }
    }
    if (st != ATF_E_NOT_FOUND)
        failf("%s %s %zu: a chunk refused: %s", path, cls, param, err.message);
done:;
    atf_wtf_summary sum;
    atf_wtf_reader_summary(r, &sum);
    if (sum.state != state || n != events || sum.events != events)
        failf("%s %s %zu: the reader: %s, %llu events; SPEC-WTF 6: %s, %llu", path, cls, param, states[sum.state],
              (unsigned long long)n, states[state], (unsigned long long)events);
    atf_wtf_reader_close(r);
    if (m.state == state && m.events == events && sum.state == state && n == events)
        fz_wtf_check_reader(v, size, &m);   /* values, zones, depth: aborts on a difference */
    fz_wtf_model_free(&m);
    check_validator(path, cls, param, v, size, state, events);
}

static const size_t zero_tails[] = { 1, 4, 23, 24, 100, 4096 };

static void wtf_truncation_file(const char *path, size_t max_bytes)
{
    size_t size;
    uint8_t *d = read_case(path, max_bytes, "--wtf-max-bytes", &size);
    if (!d)
        return;
    /* A valid starting point: complete, every event modelled, no error. */
    fz_wtf_model full = fz_wtf_model_of(d, size);
    atf_validation *val = NULL;
    uint64_t errors = 1;
    if (atf_validate_wtf_memory(&val, d, size, NULL, NULL, NULL) == ATF_OK)
        atf_validation_counts(val, &errors, NULL);
    atf_validation_free(val);
    if (full.open_status != ATF_OK || full.state != ATF_WTF_COMPLETE || full.undetermined || errors) {
        failf("%s: not a valid case (%s, %llu validator error(s))", path, states[full.state],
              (unsigned long long)errors);
        fz_wtf_model_free(&full);
        free(d);
        return;
    }
    unsigned long before = variants, fails = failures;
    for (size_t len = 0; len < size; len++) {
        uint64_t events;
        atf_wtf_state state;
        fz_wtf_cut_expect(d, size, &full, len, &events, &state);
        /* An exact-size copy, so that ASan sees any overread. */
        uint8_t *cut = malloc(len ? len : 1);
        memcpy(cut, d, len);
        check_variant(path, "trunc", len, cut, len, &full, state, events);
        free(cut);
    }
    for (size_t t = 0; t < sizeof zero_tails / sizeof zero_tails[0]; t++) {
        size_t z = zero_tails[t];
        uint8_t *v = calloc(size + z, 1);
        memcpy(v, d, size);
        check_variant(path, "zero-tail", z, v, size + z, &full, ATF_WTF_CRASH_TRUNCATED, full.events);
        free(v);
    }
    cases++;
    if (!quiet || failures > fails)
        printf("%s: %llu events in %llu chunks, %lu variants%s\n", path, (unsigned long long)full.events,
               (unsigned long long)full.chunks, variants - before, failures > fails ? ", FAILED" : "");
    fz_wtf_model_free(&full);
    free(d);
}

/* A case: a file the codec's sniff claims (its magic, or its name). */
const fz_truncation_model fz_truncation_wtf = {
    .name = "wtf",
    .cases = "WTF files",
    .max_bytes = 8192,
    .bid_file = atf_wtf_sniff,
    .run = wtf_truncation_file,
};
