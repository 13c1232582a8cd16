/**
 * @file atf/finding.h
 * @brief The one finding type: a clause of a format's spec that an input
 * breaks, and where. The validator reports in it (atf/validator.h:
 * atf_validate_finding), and so does a codec that reports what it met while
 * reading (atf/rtc.h: atf_rtc_reader_finding()).
 */
#ifndef ATF_FINDING_H
#define ATF_FINDING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Severity of a finding: a SHOULD broken (warning) or a MUST (error). */
typedef enum atf_severity { ATF_SEV_WARNING = 1, ATF_SEV_ERROR = 2 } atf_severity;

/** Offset of a finding to which no byte offset applies. */
#define ATF_FINDING_NO_OFFSET UINT64_MAX

/** One finding. */
typedef struct atf_finding {
    const char *clause;      /**< clause ID ("RTC-FRM-001"); never NULL in a validation report; NULL for a
                                  codec's remark that no clause covers */
    atf_severity severity;   /**< the clause's severity, or lower (the validator: recoverable clauses) */
    const char *file;        /**< the validator: relative to the validated path, "/" separated, the base
                                  name for a lone file; a codec: NULL, the input it was opened on */
    uint64_t offset;         /**< byte offset in @c file, or ::ATF_FINDING_NO_OFFSET */
    const char *field;       /**< field name ("footer.event_count", "threads[2].id"), or NULL */
    const char *message;     /**< one line, no newline */
} atf_finding;

#ifdef __cplusplus
}
#endif

#endif /* ATF_FINDING_H */
