/* The formats the tools read besides ATF's own files and directories: one
 * line per format (formats/<name>/src/<name>_module.c defines it). Adding a
 * format is its folder and one line here. */
#include "format_module.h"

extern const atf_format_module atf_format_wtf;
extern const atf_format_module atf_format_rtc;

const atf_format_module *const atf_format_modules[] = {
    &atf_format_wtf,
    &atf_format_rtc,
    NULL,
};

const atf_format_module *atf_format_bid(const void *head, size_t n, const char *path)
{
    for (const atf_format_module *const *m = atf_format_modules; *m; m++)
        if ((*m)->bid(head, n, path))
            return *m;
    return NULL;
}

const atf_format_module *atf_format_of_kind(int path_kind)
{
    for (const atf_format_module *const *m = atf_format_modules; *m; m++)
        if ((*m)->path_kind == path_kind)
            return *m;
    return NULL;
}
