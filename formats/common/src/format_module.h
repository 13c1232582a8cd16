/* A trace format as the codec sees it: its name and its bid. One descriptor
 * per format that reads single files (formats/<name>/src/<name>_module.c),
 * listed by a registry generated from formats/formats.cmake, as libarchive
 * registers its formats. Adding a format is its folder and its line there.
 *
 * ATF itself is the toolkit's native format: its directories (threads,
 * sessions, roots of sessions) are detected by the tools (atf_path_detect())
 * before the single-file formats are asked. What the tools do with a format
 * (info, dump, exports into it) is its tools descriptor (tools/src/tool_format.h). */
#ifndef ATF_FORMAT_MODULE_H
#define ATF_FORMAT_MODULE_H

#include <stddef.h>

typedef struct atf_format_module {
    const char *name;   /* as users write it, upper case */
    /* 1 when a file whose first n bytes (n <= 4: fewer when the file is
     * shorter) are head, named path, is of this format. */
    int (*bid)(const void *head, size_t n, const char *path);
} atf_format_module;

/* The registry (generated: format_registry.c in the build tree). */
extern const atf_format_module *const atf_format_registry[];
extern const size_t atf_format_count;

/* The first module that claims the file, or NULL; *index (NULL: not
 * wanted) receives its place in atf_format_registry. */
const atf_format_module *atf_format_bid(const void *head, size_t n, const char *path, int *index);

#endif
