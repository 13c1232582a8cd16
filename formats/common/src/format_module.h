/* A trace format as the tools see it: one descriptor per format folder
 * (formats/<name>/src/<name>_module.c), listed in one place,
 * formats/registry.c, as libarchive registers its formats. The tools
 * (detection, info, dump) walk the list and name no format.
 *
 * ATF itself is the toolkit's native format: its directories (threads,
 * sessions, roots of sessions) are detected by atf_path_detect() before the
 * modules of single-file formats are asked. */
#ifndef ATF_FORMAT_MODULE_H
#define ATF_FORMAT_MODULE_H

#include <stddef.h>
#include <stdio.h>

#include <atf/error.h>
#include <atf/tool_options.h>

typedef struct atf_format_module {
    const char *name;   /* as users write it: "WTF", "RTC" */
    /* 1 when a file whose first n bytes (n <= 4: fewer when the file is
     * shorter) are head, named path, is of this format. */
    int (*bid)(const void *head, size_t n, const char *path);
    /* `atf info` and `atf dump` of one file of this format. */
    atf_status (*info)(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
    atf_status (*dump)(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
} atf_format_module;

/* The first module that claims the file, or NULL; *path_kind (NULL: not
 * wanted) receives its atf_path_kind (atf/tools.h). */
const atf_format_module *atf_format_bid(const void *head, size_t n, const char *path, int *path_kind);
/* The module of an atf_path_kind, or NULL (ATF's own kinds among them). */
const atf_format_module *atf_format_of_kind(int path_kind);

#endif
