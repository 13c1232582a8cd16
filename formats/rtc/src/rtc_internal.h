/* Internals of the RTC codec (formats/rtc/src), shared with the tools and
 * the validator pass. Not installed. */
#ifndef ATF_RTC_INTERNAL_H
#define ATF_RTC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <atf/rtc.h>

#include "obuf.h"
#include "rtc_clauses.h"

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

/* The RTC clauses the reader finds: the one table, rtc_clauses.h. */
#define RTC_X_ENUM(e, group, num, sev, rec, rule, hint) RC_##e,
typedef enum rtc_clause { RTC_CLAUSE_TABLE(RTC_X_ENUM, ) RC_COUNT_, RC_NONE_ = -1 } rtc_clause;
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

#endif /* ATF_RTC_INTERNAL_H */
