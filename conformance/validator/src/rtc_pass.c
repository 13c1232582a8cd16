/* The RTC pass: every RTC-* clause of conformance/SPEC-RTC.md over one file.
 * The codec's reader (formats/rtc) finds each clause as it reads (SPEC-RTC
 * 8.2: it needs no beginning and no end); this pass hands its findings to
 * the one report, as the WTF pass does. */
#include <string.h>

#include <atf/rtc.h>

#include "vinternal.h"

static int clause_of(const char *id, vclause *out)
{
    for (int c = C_RTC_FRM_001; c <= C_RTC_REC_002; c++)
        if (!strcmp(v_clause_id((vclause)c), id)) {
            *out = (vclause)c;
            return 1;
        }
    return 0;
}

void v_rtc_pass(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end)
{
    (void)data_end;   /* the RTC reader reads holes as bytes */
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
        for (int c = C_RTC_FRM_001; c <= C_RTC_REC_002; c++)
            v_check(v, (vclause)c);
    } else {
        v_check(v, C_RTC_MRK_001);
        v_check(v, C_RTC_REC_001);
    }
    uint8_t reported[C_COUNT_];
    memset(reported, 0, sizeof reported);
    size_t nf = atf_rtc_reader_finding_count(r);
    for (size_t i = 0; i < nf; i++) {
        atf_rtc_finding f;
        vclause c;
        atf_rtc_reader_finding(r, i, &f);
        if (!f.clause || !clause_of(f.clause, &c))
            continue;
        v_report(v, file, c, 0, f.offset, f.field, "%s", f.message);
        reported[c] = 1;
    }
    /* Findings past the reader's cap: each clause found is still reported. */
    for (int c = C_RTC_FRM_001; c <= C_RTC_REC_002; c++) {
        uint64_t k = atf_rtc_reader_clause_count(r, v_clause_id((vclause)c));
        if (k && !reported[c])
            v_report(v, file, (vclause)c, 0, V_NO_OFFSET, NULL, "found %llu times (past the first findings kept)",
                     (unsigned long long)k);
    }
    if (atf_rtc_reader_clause_count(r, "RTC-REC-001") || atf_rtc_reader_clause_count(r, "RTC-REC-002"))
        v_recovered(v, file, s.records);
    atf_rtc_reader_close(r);
}
