/* RTC's part of the tools (libatf_tools): info, dump. */
#ifndef ATF_RTC_TOOLS_H
#define ATF_RTC_TOOLS_H

#include <stdio.h>

#include <atf/error.h>
#include <atf/tool_options.h>

/* `atf dump` (opts->json: docs/rtc-dump-format.md) and `atf info` of a RTC
 * file; statuses as atf_tool_dump(): ATF_OK (crash-truncated included),
 * ATF_E_DAMAGED, ATF_E_IO, or the open error. */
atf_status rtc_tool_dump(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
atf_status rtc_tool_info(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);

#endif
