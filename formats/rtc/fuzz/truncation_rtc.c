/* The RTC part of the truncation checker (ctest truncation_check_rtc).
 *
 * From a complete RTC file (the golden corpus's y_ cases: read whole, no
 * error clause, checked first) it generates in memory a cut at every
 * position at both ends, and checks each against what SPEC-RTC 8.2 says a
 * reader recovers, derived from the uncut file's record and Unit tables
 * (fz_rtc_cut_check, fuzz_rtc.h), not from a read of the cut file:
 *
 *   end k     the first k bytes, k = 0 .. size-1: exactly the records whose
 *             frames all end by k, with their frames and bytes; complete
 *             only at 0 or at the end of a full Unit with no record
 *             continued across it, else crash-truncated (RTC-REC-001) with
 *             at most one skipped range, "cut", ending at k;
 *   start k   the bytes from k, k = 1 .. size-1: with m the first Unit at or
 *             after k, exactly the records with a frame at or after m, at
 *             their offsets minus k, a record begun before m as its tail;
 *             crash-truncated (RTC-REC-002) with the skipped range
 *             [0, m - k) "before-first-marker"; with no Unit left, damaged
 *             (RTC-MRK-001) and nothing recovered.
 *
 * Every variant also satisfies the reader's invariants (fz_rtc_check_reader:
 * Units verified by their Crc, skips and Units covering every byte, each
 * record's frames and bytes as in the file), and the validator agrees: an
 * error exactly when the reader says damaged, RTC-REC-001/-002 as a warning
 * and the reader's record count as recovered when it says crash-truncated. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/validator.h>

#include "fuzz_rtc.h"
#include "truncation.h"

static char context[1400];

static void on_abort(int sig)
{
    (void)!write(2, "\ntruncation_rtc: aborted on ", 28);
    (void)!write(2, context, strlen(context));
    (void)!write(2, "\n", 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void check_validator(const char *path, const char *cls, size_t k, const uint8_t *v, size_t size,
                            const fz_rtc_read *rd)
{
    atf_validation *val = NULL;
    atf_error err;
    findings_runs++;
    if (atf_validate_rtc_memory(&val, v, size, NULL, NULL, &err) != ATF_OK) {
        failf("%s %s %zu: the validator did not run: %s", path, cls, k, err.message);
        return;
    }
    uint64_t errors = 0, warnings = 0;
    atf_validation_counts(val, &errors, &warnings);
    int rec = 0;
    for (size_t i = 0; i < atf_validation_finding_count(val); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(val, i);
        if (!strncmp(f->clause, "RTC-REC-00", 10))
            rec |= f->severity == ATF_SEV_WARNING ? 1 : 2;
    }
    int damaged = rd->sum.state == ATF_RTC_DAMAGED, cut = rd->sum.state == ATF_RTC_CRASH_TRUNCATED;
    size_t nrec = atf_validation_recovered_count(val);
    if (!!errors != damaged)
        failf("%s %s %zu: the validator reports %llu error(s), the reader says state %d", path, cls, k,
              (unsigned long long)errors, rd->sum.state);
    else if (cut && (rec != 1 || nrec != 1 || atf_validation_recovered_at(val, 0)->events != rd->sum.records))
        failf("%s %s %zu: crash-truncated: RTC-REC %s, %zu recovered file(s) (the reader: %llu records)", path, cls, k,
              rec == 1 ? "a warning" : rec ? "an error" : "not reported", nrec, (unsigned long long)rd->sum.records);
    else if (!cut && !damaged && (rec || nrec))
        failf("%s %s %zu: complete, but the validator reports a recovery", path, cls, k);
    atf_validation_free(val);
}

static void check_cut(const char *path, const char *cls, const uint8_t *d, size_t size, const fz_rtc_read *whole,
                      size_t a, size_t b)
{
    size_t k = a ? a : b;
    snprintf(context, sizeof context, "%s %s %zu", path, cls, k);
    variants++;
    /* An exact-size copy, so that ASan sees any overread. */
    uint8_t *v = malloc(b - a ? b - a : 1);
    memcpy(v, d + a, b - a);
    fz_rtc_read rd;
    fz_rtc_check_reader(v, b - a, &rd);
    const char *why = fz_rtc_cut_check(d, whole, size, a, b, &rd);
    if (why)
        failf("%s %s %zu: %s", path, cls, k, why);
    check_validator(path, cls, k, v, b - a, &rd);
    fz_rtc_read_free(&rd);
    free(v);
}

static void rtc_truncation_file(const char *path, size_t max_bytes)
{
    size_t size;
    uint8_t *d = read_case(path, max_bytes, "--rtc-max-bytes", &size);
    if (!d)
        return;
    void (*old)(int) = signal(SIGABRT, on_abort);
    snprintf(context, sizeof context, "%s (whole)", path);
    fz_rtc_read whole;
    fz_rtc_check_reader(d, size, &whole);
    if (whole.sum.state != ATF_RTC_COMPLETE || whole.errors) {
        failf("%s: not a valid case (state %d, %d error clause(s))", path, whole.sum.state, whole.errors);
        fz_rtc_read_free(&whole);
        free(d);
        signal(SIGABRT, old);
        return;
    }
    unsigned long before = variants, fails = failures;
    for (size_t k = 0; k < size; k++)
        check_cut(path, "end", d, size, &whole, 0, k);
    for (size_t k = 1; k < size; k++)
        check_cut(path, "start", d, size, &whole, k, size);
    cases++;
    if (!quiet || failures > fails)
        printf("%s: %zu records in %llu Units, %lu variants%s\n", path, whole.nrec,
               (unsigned long long)whole.sum.units, variants - before, failures > fails ? ", FAILED" : "");
    fz_rtc_read_free(&whole);
    free(d);
    signal(SIGABRT, old);
}

/* A case: a file the codec's sniff claims (its magic, or its name). */
const fz_truncation_model fz_truncation_rtc = {
    .name = "rtc",
    .cases = "RTC files",
    .max_bytes = 16384,
    .bid_file = atf_rtc_sniff,
    .run = rtc_truncation_file,
};
