/* WTF's part of the tools (libatf_tools): info, dump, the export into WTF files. */
#ifndef ATF_WTF_TOOLS_H
#define ATF_WTF_TOOLS_H

#include <stdio.h>

#include <atf/error.h>
#include <atf/tool_options.h>

/* `atf dump` (opts->json: docs/wtf-dump-format.md) and `atf info` of a WTF
 * file; statuses as atf_tool_dump(): ATF_OK (crash-truncated included),
 * ATF_E_DAMAGED, ATF_E_IO, or the open error. */
atf_status wtf_tool_dump(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
atf_status wtf_tool_info(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);

struct atf_tool_export;
/* `atf export --format wtf` (export_wtf.c). */
extern const struct atf_tool_export wtf_tool_export;

#endif
