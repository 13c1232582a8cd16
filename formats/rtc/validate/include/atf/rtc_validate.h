/**
 * @file atf/rtc_validate.h
 * @brief RTC's entry point of the validator (conformance/SPEC-RTC.md);
 *        included by <atf/validator.h>, which declares the report.
 */
#ifndef ATF_RTC_VALIDATE_H
#define ATF_RTC_VALIDATE_H

#ifdef __cplusplus
extern "C" {
#endif

/** Validates an RTC file held in memory (conformance/SPEC-RTC.md); @p name NULL gives "trace.rtc". */
ATF_API atf_status atf_validate_rtc_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                           const atf_validate_options *opts, atf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ATF_RTC_VALIDATE_H */
