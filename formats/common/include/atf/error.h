/**
 * @file atf/error.h
 * @brief Status codes and the error-information record filled by decoders.
 *
 * Every fallible function of the library returns an ::atf_status. Functions
 * that decode untrusted bytes also fill an optional ::atf_error that says
 * which file, which byte offset and which field was wrong.
 *
 * Status values are frozen once released: new codes are only ever appended.
 */
#ifndef ATF_ERROR_H
#define ATF_ERROR_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include <atf/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One list for the enum and the string table (X-macro): name, value, text. */
#define ATF_STATUS_LIST(X)                                                    \
    X(ATF_OK,              0, "success")                                      \
    X(ATF_E_IO,            1, "I/O error")                                    \
    X(ATF_E_NOMEM,         2, "out of memory")                                \
    X(ATF_E_ARG,           3, "invalid argument")                             \
    X(ATF_E_TRUNCATED,     4, "input is shorter than the structure")          \
    X(ATF_E_MAGIC,         5, "bad magic")                                    \
    X(ATF_E_ENDIAN,        6, "unsupported byte order")                       \
    X(ATF_E_VERSION,       7, "unsupported format version (layout)")          \
    X(ATF_E_FIELD,         8, "field value out of range")                     \
    X(ATF_E_OFFSET,        9, "offset outside the file")                      \
    X(ATF_E_LENGTH,       10, "bad length")                                   \
    X(ATF_E_CHECKSUM,     11, "checksum mismatch")                            \
    X(ATF_E_COUNT,        12, "count disagrees with the file size")           \
    X(ATF_E_RANGE,        13, "sequence number out of range")                 \
    X(ATF_E_NOT_FOUND,    14, "not found")                                    \
    X(ATF_E_MANIFEST,     15, "invalid manifest")                             \
    X(ATF_E_LAYOUT,       16, "layouts of one thread disagree")               \
    X(ATF_E_STATE,        17, "operation not allowed in this state")          \
    X(ATF_E_UNSUPPORTED,  18, "unsupported")                                  \
    X(ATF_E_LINK,         19, "cross-lane link is broken")                    \
    X(ATF_E_LIMIT,        20, "value exceeds an implementation limit")         \
    X(ATF_E_DAMAGED,      21, "part of the input is damaged or unreadable; the rest was read")

/** Status codes. ::ATF_OK is zero; every error is positive. */
typedef enum atf_status {
#define ATF_X_ENUM_(name, value, text) name = value,
    ATF_STATUS_LIST(ATF_X_ENUM_)
#undef ATF_X_ENUM_
    ATF_STATUS_COUNT_
} atf_status;

/**
 * Where and why a decode or I/O operation failed.
 *
 * Filled only on failure (and for warnings where a function says so).
 * `field` points to a static string (never freed) or is NULL.
 */
typedef struct atf_error {
    atf_status code;        /**< same value the function returned */
    uint64_t offset;        /**< byte offset in the file of the bad field */
    const char *field;      /**< spec name of the field, e.g. "event_size" */
    char file[256];         /**< path (or name given for memory input); may be empty */
    char message[256];      /**< one human-readable line, no trailing newline */
} atf_error;

/**
 * @return a static, never-NULL English description of @p status.
 *         Unknown values give "unknown status".
 */
ATF_API const char *atf_strerror(atf_status status);

/**
 * @return the enumerator name of @p status ("ATF_E_MAGIC"), or "ATF_E_?".
 */
ATF_API const char *atf_status_name(atf_status status);

/**
 * Formats @p err as one line: "FILE: offset N: field F: message".
 * Parts that are unknown are left out. Control characters (a path holding a
 * newline or a terminal escape) are written as escapes: \n, \r, \t, \xHH.
 * Always NUL-terminates when cap > 0.
 *
 * @return the number of characters written (excluding NUL), truncated to cap-1.
 */
ATF_API size_t atf_error_format(char *dst, size_t dst_cap, const atf_error *err);

/**
 * Writes @p s (NULL: nothing) to @p f with control characters escaped as
 * atf_error_format() escapes them (\n, \r, \t, \xHH): a path holding a
 * newline or a terminal escape never breaks a message into lines.
 *
 * @return 0, or EOF on a write error.
 */
ATF_API int atf_fputs_escaped(const char *s, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* ATF_ERROR_H */
