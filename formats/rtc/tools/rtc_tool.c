/* RTC as a format of the tools (tools/src/tool_format.h). */
#include "rtc_tools.h"
#include "tool_format.h"

const atf_tool_format atf_tool_format_rtc = { "RTC", rtc_tool_info, rtc_tool_dump, NULL };
