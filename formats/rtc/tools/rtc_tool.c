/* RTC as a format of the tools (tools/src/tool_format.h). */
#include "cli_support.h"
#include "rtc_tools.h"
#include "tool_format.h"

/* `atf pack` and `atf unpack` (pack_cmd.c). */
extern const atf_cli_command rtc_cmd_pack, rtc_cmd_unpack;
static const atf_cli_command *const rtc_commands[] = { &rtc_cmd_pack, &rtc_cmd_unpack, NULL };

const atf_tool_format atf_tool_format_rtc = {
    .name = "RTC",
    .info = rtc_tool_info,
    .dump = rtc_tool_dump,
    .export_to = NULL,
    .help_files = "RTC files (Ruler Trace Containers: a Marker at the start, or a name ending in .rtc)",
    .dump_doc = "docs/rtc-dump-format.md",
    .spec = "conformance/SPEC-RTC.md",
    .commands = rtc_commands,
};
