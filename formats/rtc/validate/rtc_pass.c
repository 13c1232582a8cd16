/* The RTC pass: every RTC-* clause of conformance/SPEC-RTC.md over one file.
 * The codec's reader (formats/rtc) finds each clause as it reads (SPEC-RTC
 * 8.2: it needs no beginning and no end); this pass hands each of its
 * findings (atf_finding, atf/finding.h: clause ID, offset, field, message) to the one
 * report, by the clause of RTC's table that has the finding's ID. */
#include <string.h>

#include <atf/rtc.h>

#include "vinternal.h"

extern const atf_validator_format atf_vformat_rtc;

/* Findings past the reader's cap: each clause found is still reported. */
static void clauses_past_cap(atf_validation *v, size_t file, const atf_rtc_reader *r, const uint8_t *reported)
{
    const atf_validator_format *f = &atf_vformat_rtc;
    for (unsigned c = f->clause_first; c < f->clause_first + f->clause_count; c++) {
        uint64_t k = atf_rtc_reader_clause_count(r, v_clause_id((vclause)c));
        if (k && !reported[c])
            v_report(v, file, (vclause)c, 0, V_NO_OFFSET, NULL, "found %llu times (past the first findings kept)",
                     (unsigned long long)k);
    }
}

static void rtc_file(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                     const char *name)
{
    (void)data_end;   /* the RTC reader reads holes as bytes */
    (void)name;
    atf_rtc_reader *r = NULL;
    atf_error e;
    if (atf_rtc_reader_open_memory(&r, d, (size_t)size, &e) != ATF_OK) {
        v->oom = 1;
        return;
    }
    atf_rtc_summary s;
    atf_rtc_reader_summary(r, &s);
    /* Clauses evaluated: all of them once a Unit was read, else only what a
     * file without one can break. */
    if (s.units) {
        v_check_format(v, &atf_vformat_rtc);
    } else {
        v_check(v, C_RTC_MRK_001);
        v_check(v, C_RTC_REC_001);
    }
    uint8_t reported[C_COUNT_];
    memset(reported, 0, sizeof reported);
    size_t nf = atf_rtc_reader_finding_count(r);
    for (size_t i = 0; i < nf; i++) {
        atf_finding f;
        vclause c;
        atf_rtc_reader_finding(r, i, &f);
        if (!f.clause || !v_clause_of(&atf_vformat_rtc, f.clause, &c))
            continue;
        v_report(v, file, c, 0, f.offset, f.field, "%s", f.message);
        reported[c] = 1;
    }
    clauses_past_cap(v, file, r, reported);
    if (atf_rtc_reader_clause_count(r, "RTC-REC-001") || atf_rtc_reader_clause_count(r, "RTC-REC-002"))
        v_recovered(v, file, s.records);
    atf_rtc_reader_close(r);
}

const atf_validator_format atf_vformat_rtc = {
    .name = "RTC",
    .clause_first = V_FIRST_RTC,
    .clause_count = V_COUNT_RTC,
    .file = rtc_file,
};

atf_status atf_validate_rtc_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                   const atf_validate_options *opts, atf_error *err)
{
    atf_validation *v;
    size_t f;
    atf_status st = v_memory_begin(out, &v, &f, data, size, name, "trace.rtc", opts, err);
    if (st)
        return st;
    rtc_file(v, f, data ? data : (const void *)"", size, size, NULL);
    return v_end(v, ATF_OK, out, err);
}
