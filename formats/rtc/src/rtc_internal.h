/* Internals of the RTC codec (formats/rtc/src), shared with the tools and
 * the validator pass. Not installed. */
#ifndef ATF_RTC_INTERNAL_H
#define ATF_RTC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <atf/rtc.h>

#include "obuf.h"

/* The rtc-ref Crc's tables: MSB-first 0x04C11DB7 used with the LSB-first
 * update; [k]: the byte k places further (slicing by 8). The crc-32 Crc is
 * the shared atf_crc32_ieee() (formats/common). */
typedef struct rtc_crc_tab {
    uint32_t ref[8][256];
} rtc_crc_tab;

void rtc_crc_tables(rtc_crc_tab *t);
uint32_t rtc_crc_ref_t(const rtc_crc_tab *t, uint32_t crc, const uint8_t *p, size_t n);
/* 1 when the @p n bytes at @p d are the start of a Marker (n <= 1025). */
int rtc_is_marker_prefix(const uint8_t *d, size_t n);

/* The RTC clauses the reader finds (SPEC-RTC.md order) and their severity. */
#define RTC_CLAUSES(X)                                                                                   \
    X(FRM_001, "RTC-FRM-001", 1) X(FRM_002, "RTC-FRM-002", 1) X(FRM_003, "RTC-FRM-003", 1)               \
    X(FRM_004, "RTC-FRM-004", 1) X(FRM_005, "RTC-FRM-005", 0) X(FRM_006, "RTC-FRM-006", 0)               \
    X(FRM_007, "RTC-FRM-007", 0)                                                                       \
    X(PAD_001, "RTC-PAD-001", 0) X(MRK_001, "RTC-MRK-001", 1) X(MRK_002, "RTC-MRK-002", 1)               \
    X(MRK_003, "RTC-MRK-003", 1) X(UNI_001, "RTC-UNI-001", 1) X(UNI_002, "RTC-UNI-002", 1)               \
    X(UNI_003, "RTC-UNI-003", 1) X(IDX_001, "RTC-IDX-001", 1) X(IDX_002, "RTC-IDX-002", 1)               \
    X(IDX_003, "RTC-IDX-003", 1) X(IDX_004, "RTC-IDX-004", 1) X(IDX_005, "RTC-IDX-005", 0)               \
    X(MET_001, "RTC-MET-001", 1) X(MET_002, "RTC-MET-002", 1) X(MET_003, "RTC-MET-003", 1)               \
    X(MET_004, "RTC-MET-004", 1) X(MET_005, "RTC-MET-005", 1) X(FMT_001, "RTC-FMT-001", 1)               \
    X(FMT_002, "RTC-FMT-002", 1) X(FMT_003, "RTC-FMT-003", 1) X(FMT_004, "RTC-FMT-004", 0)               \
    X(PLT_001, "RTC-PLT-001", 1) X(PLT_002, "RTC-PLT-002", 0) X(CLK_001, "RTC-CLK-001", 1)               \
    X(CLK_002, "RTC-CLK-002", 1) X(CLK_003, "RTC-CLK-003", 1) X(CLK_004, "RTC-CLK-004", 0)               \
    X(CRC_001, "RTC-CRC-001", 1) X(CRC_002, "RTC-CRC-002", 1) X(CRC_003, "RTC-CRC-003", 0)               \
    X(CRC_004, "RTC-CRC-004", 1) X(REC_001, "RTC-REC-001", 0) X(REC_002, "RTC-REC-002", 0)

#define RTC_X_ENUM(e, id, err) RC_##e,
typedef enum rtc_clause { RTC_CLAUSES(RTC_X_ENUM) RC_COUNT_, RC_NONE_ = -1 } rtc_clause;
#undef RTC_X_ENUM

const char *rtc_clause_id(int c);
int rtc_clause_is_error(int c);

/* ---- Values (SPEC-RTC 6) ---------------------------------------------------- */

enum { RV_HEX, RV_INT, RV_UINT, RV_FLOAT, RV_TIMESPEC, RV_UTF8, RV_JSON, RV_PLATFORM, RV_ANNOTATE };

typedef struct rtc_val {
    int kind;
    int64_t i;
    uint64_t u;
    double f;
    uint64_t sec;
    uint32_t nsec;
    const char *platform;      /* "little", "big", or NULL (hex) */
    int bad;                   /* the clause broken (RC_FMT_00x), or RC_NONE_ */
    int inner_bad;             /* annotate: the clause the annotated value breaks */
} rtc_val;

/* Decodes @p n bytes of format @p fmt (native order big when @p big). */
void rtc_value_parse(const char *fmt, const uint8_t *p, size_t n, int big, rtc_val *v);
/* The numeric value of a parsed value, gain/offset applied, for clocks. @return 1 when numeric. */
int rtc_value_number(const rtc_val *v, const atf_rtc_record *r, double *out);
/* Writes the dump's value of a record (docs/rtc-dump-format.md). */
void rtc_value_render(obuf *o, const atf_rtc_record *r);
/* Rewrites JSON text canonically; @return 0 when it is not JSON. */
int rtc_json_render(obuf *o, const uint8_t *p, size_t n);
/* Writes a parsed jansson value canonically. */
/* 1 when format @p f can be a clock's (ints, floats, LEB128, timespec). */
int rtc_format_is_clock(const char *f);
/* 1 when the bytes are valid UTF-8 (no surrogates, no overlong forms). */
int rtc_utf8_valid(const uint8_t *p, size_t n);

/* ---- Tools ------------------------------------------------------------------ */
struct atf_tool_options;
atf_status rtc_tool_dump(FILE *out, const char *path, const struct atf_tool_options *opts, atf_error *err);
atf_status rtc_tool_info(FILE *out, const char *path, const struct atf_tool_options *opts, atf_error *err);

#endif /* ATF_RTC_INTERNAL_H */
