/* Numbers in manifest.json as RFC 8259 has them: any size.
 *
 * jansson holds integers as int64 and refuses larger ones as "too big
 * integer", although the text is valid JSON and SPEC section 5 has u64
 * fields. atf_manifest_json_load() hands jansson a copy of the text in which
 * every number token that is not an integer in int64's range (an integer
 * beyond it, or a number written with a fraction or an exponent) is turned
 * into a marker string that keeps the token's text; atf_manifest_json_number()
 * reads any value back as the number it was written as. Error positions are
 * given in the original text. Shared by the codec's manifest reader and the
 * validator's manifest checks. */
#ifndef ATF_MANIFEST_NUMBERS_H
#define ATF_MANIFEST_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Parses text (size bytes) with jansson and flags; on error *jerr holds the
 * position, line and column in the original text. */
json_t *atf_manifest_json_load(const char *text, size_t size, size_t flags, json_error_t *jerr);

typedef enum atf_json_num {
    ATF_JNUM_OK = 0,        /* a value in the range asked for */
    ATF_JNUM_NOT_NUMBER,    /* not a number, nor a numeric string (a type error) */
    ATF_JNUM_OUT_OF_RANGE,  /* an integer outside the range asked for */
    ATF_JNUM_NOT_INTEGER    /* a number with a fraction or an exponent */
} atf_json_num;

/* A u64 as SPEC section 5 has it: a JSON integer 0..2^64-1, or a string
 * holding a decimal or "0x" hexadecimal number (a string of digits too large
 * is ATF_JNUM_OUT_OF_RANGE). text (text_cap bytes, may be 0) receives the
 * value as written, for messages, whatever the result. */
atf_json_num atf_manifest_json_u64(const json_t *v, uint64_t *out, char *text, size_t text_cap);

/* 1 if v is a number the loader turned into a marker string (a string to
 * json_is_string(), a number in the document). */
int atf_manifest_json_is_marker(const json_t *v);

/* An integer from lo to hi (a JSON integer only: no strings). */
atf_json_num atf_manifest_json_int(const json_t *v, int64_t lo, int64_t hi, int64_t *out, char *text,
                                   size_t text_cap);

#endif /* ATF_MANIFEST_NUMBERS_H */
