/* What the format modules of the truncation checker share with its driver
 * (truncation_check.c): the counters of the run and failure reporting. */
#ifndef ATF_TRUNCATION_H
#define ATF_TRUNCATION_H

#include "fuzz_support.h"

extern unsigned long variants, findings_runs, failures, cases;
extern int quiet;

/* One failure line on stderr ("FAIL: ..."; the first 50), counted. */
void failf(const char *fmt, ...) FZ_PRINTF(1, 2);

/* A case file read whole (malloc'd, *@p size bytes); NULL when it cannot be
 * read (a failure) or holds more than @p max_bytes (named, with the option
 * @p option that sets the limit, and not cut). */
uint8_t *read_case(const char *path, size_t max_bytes, const char *option, size_t *size);

/* WTF (truncation_wtf.c): a valid .wtf-trace file cut at every byte and
 * followed by zero tails; files above @max_bytes are named and skipped. */
void wtf_truncation_file(const char *path, size_t max_bytes);

/* RTC (truncation_rtc.c): a complete .rtc file cut at every position at
 * both ends; files above @max_bytes are named and skipped. */
void rtc_truncation_file(const char *path, size_t max_bytes);

#endif /* ATF_TRUNCATION_H */
