/* WTF as a format module of the tools (formats/registry.c). */
#include <atf/wtf.h>

#include "format_module.h"
#include "wtf_internal.h"

const atf_format_module atf_format_wtf = {
    "WTF", atf_wtf_sniff, wtf_tool_info, wtf_tool_dump,
};
