/* WTF's part of the validator (conformance/SPEC-WTF.md): its pass with the
 * fast path for common events on or off (test_wtf_fast_path compares the
 * two: the findings must not differ). */
#ifndef ATF_VALIDATOR_WTF_PASS_H
#define ATF_VALIDATOR_WTF_PASS_H

#include "vinternal.h"

/* Every WTF-* clause over one file of @p size bytes (data_end: where a
 * sparse tail starts); general_only 1: the fast path off. */
void v_wtf_pass_mode(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                     int general_only);
/* atf_validate_wtf_memory() with the fast path on or off. */
atf_status v_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                 const atf_validate_options *opts, int general_only, atf_error *err);

#endif
