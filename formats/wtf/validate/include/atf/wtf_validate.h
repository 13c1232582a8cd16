/**
 * @file atf/wtf_validate.h
 * @brief WTF's entry point of the validator (conformance/SPEC-WTF.md);
 *        included by <atf/validator.h>, which declares the report.
 */
#ifndef ATF_WTF_VALIDATE_H
#define ATF_WTF_VALIDATE_H

#ifdef __cplusplus
extern "C" {
#endif

/** Validates a WTF file held in memory (conformance/SPEC-WTF.md); @p name NULL gives "trace.wtf-trace". */
ATF_API atf_status atf_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                           const atf_validate_options *opts, atf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ATF_WTF_VALIDATE_H */
