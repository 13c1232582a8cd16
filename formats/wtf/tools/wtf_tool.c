/* WTF as a format of the tools (tools/src/tool_format.h). */
#include "tool_format.h"
#include "wtf_tools.h"

const atf_tool_format atf_tool_format_wtf = {
    .name = "WTF",
    .info = wtf_tool_info,
    .dump = wtf_tool_dump,
    .export_to = &wtf_tool_export,
    .help_files = "WTF files (the Web Tracing Framework's chunked format: magic EF BE AD DE, or a name "
                  "ending in .wtf-trace)",
    .dump_doc = "docs/wtf-dump-format.md",
    .spec = "conformance/SPEC-WTF.md",
    .commands = NULL,
};
