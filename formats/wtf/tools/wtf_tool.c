/* WTF as a format of the tools (tools/src/tool_format.h). */
#include "tool_format.h"
#include "wtf_tools.h"

const atf_tool_format atf_tool_format_wtf = { "WTF", wtf_tool_info, wtf_tool_dump, &wtf_tool_export };
