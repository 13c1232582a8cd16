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
/* v_wtf_pass_mode() in @threads parts of whole chunks side by side (0: the
 * default, ATF_WTF_THREADS or one per CPU with 16 MiB each; n: n parts
 * whatever the size, as the chunks allow). The findings are the same for
 * any number. @return how many parts after the first were joined as they
 * were found on their threads (the others were run again in their turn). */
unsigned v_wtf_pass_parts(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                          int general_only, unsigned threads);
/* atf_validate_wtf_memory() in @threads parts (v_wtf_pass_parts); *joined
 * (may be NULL): its return. */
atf_status v_validate_wtf_memory_parts(atf_validation **out, const void *data, size_t size, const char *name,
                                       const atf_validate_options *opts, unsigned threads, unsigned *joined,
                                       atf_error *err);
/* atf_validate_wtf_memory() with the fast path on or off. */
atf_status v_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                 const atf_validate_options *opts, int general_only, atf_error *err);

/* Whether @s is JSON text that jansson surely reads under WTF_JSON_FLAGS
 * (a plain subset, checked by hand); 0: not surely (jansson decides). */
int v_wtf_json_plain(const char *s, size_t n);

#endif
