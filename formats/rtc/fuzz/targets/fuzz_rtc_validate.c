/* Target rtc_validate: an RTC file through the validator
 * (atf_validate_rtc_memory, the RTC pass of `atf validate`) and the reader.
 *
 * Input: an RTC file (the seeds of rtc_file). Parameters from the end choose
 * a slice, validated as well. Properties:
 *  - the reader's invariants (fuzz_rtc.h);
 *  - the validator reports exactly the RTC clauses the reader found, with
 *    their severity (error clauses as errors), and nothing else; it finds
 *    the file nonconformant exactly when the reader calls it damaged;
 *  - it reports one recovered file with the reader's record count exactly
 *    when the reader found RTC-REC-001 or RTC-REC-002;
 *  - findings name the file, an offset inside it (or none) and one line,
 *    and a second run reports the same. */
#include <stdlib.h>
#include <string.h>

#include <atf/validator.h>

#include "fuzz_rtc.h"

static void validate(const uint8_t *d, size_t n)
{
    fz_rtc_read rd;
    fz_rtc_check_reader(d, n, &rd);
    atf_validation *v = NULL, *v2 = NULL;
    atf_error err;
    FZ_CHECK(atf_validate_rtc_memory(&v, d, n, NULL, NULL, &err) == ATF_OK, "validate: %s", err.message);
    FZ_CHECK(atf_validate_rtc_memory(&v2, d, n, NULL, NULL, &err) == ATF_OK, "validate twice");
    size_t nf = atf_validation_finding_count(v);
    FZ_CHECK(nf == atf_validation_finding_count(v2), "a second run: %zu findings, then %zu", nf,
             atf_validation_finding_count(v2));
    uint64_t errors = 0;
    for (size_t i = 0; i < nf; i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i), *g = atf_validation_finding_at(v2, i);
        FZ_CHECK(!strncmp(f->clause, "RTC-", 4) && fz_rtc_count(&rd, f->clause) > 0,
                 "the validator reports %s, which the reader did not find", f->clause);
        FZ_CHECK((f->severity == ATF_SEV_ERROR) == fz_rtc_is_error_clause(f->clause), "%s with severity %d",
                 f->clause, f->severity);
        FZ_CHECK(f->file && !strcmp(f->file, "trace.rtc") && (f->offset == ATF_VALIDATE_NO_OFFSET || f->offset <= n) &&
                     f->message && !strchr(f->message, '\n'),
                 "finding %zu (%s) is not well formed", i, f->clause);
        FZ_CHECK(!strcmp(f->clause, g->clause) && f->offset == g->offset && !strcmp(f->message, g->message),
                 "a second run: finding %zu differs", i);
        errors += f->severity == ATF_SEV_ERROR;
    }
    /* every clause the reader found is reported */
    size_t rf = atf_rtc_reader_finding_count(rd.r);
    for (size_t i = 0; i < rf; i++) {
        atf_finding f;
        atf_rtc_reader_finding(rd.r, i, &f);
        if (!f.clause)
            continue;
        int seen = 0;
        for (size_t j = 0; j < nf && !seen; j++)
            seen = !strcmp(atf_validation_finding_at(v, j)->clause, f.clause);
        FZ_CHECK(seen, "the reader found %s, the validator does not report it", f.clause);
    }
    FZ_CHECK((errors > 0) == (rd.sum.state == ATF_RTC_DAMAGED) && atf_validation_conformant(v) == !errors,
             "%llu errors reported; the reader says state %d", (unsigned long long)errors, rd.sum.state);
    int rec = fz_rtc_count(&rd, "RTC-REC-001") || fz_rtc_count(&rd, "RTC-REC-002");
    size_t nrec = atf_validation_recovered_count(v);
    FZ_CHECK(nrec == (size_t)rec, "%zu recovered files, REC %d", nrec, rec);
    if (rec)
        FZ_CHECK(atf_validation_recovered_at(v, 0)->events == rd.sum.records, "recovered %llu, the reader %llu",
                 (unsigned long long)atf_validation_recovered_at(v, 0)->events, (unsigned long long)rd.sum.records);
    atf_validation_free(v);
    atf_validation_free(v2);
    fz_rtc_read_free(&rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params pr = fz_params_overlay(data, size);
    size_t a = (size_t)fz_range(&pr, 0, size), b = (size_t)fz_range(&pr, a, size);
    validate(data, size);
    uint8_t *s = malloc(b - a ? b - a : 1);
    memcpy(s, data + a, b - a);
    validate(s, b - a);
    free(s);
    return 0;
}
