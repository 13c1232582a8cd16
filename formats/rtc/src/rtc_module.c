/* RTC as a format module of the tools (formats/registry.c). */
#include <atf/rtc.h>

#include "format_module.h"
#include "rtc_internal.h"

const atf_format_module atf_format_rtc = {
    "RTC", atf_rtc_sniff, rtc_tool_info, rtc_tool_dump,
};
