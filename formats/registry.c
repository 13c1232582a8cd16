/* The formats the tools read besides ATF's own files and directories: one
 * line per format (formats/<name>/src/<name>_module.c defines its module;
 * atf/tools.h names its path kind). Adding a format is its folder and one
 * line here. */
#include <stddef.h>

#include <atf/tools.h>

#include "format_module.h"

extern const atf_format_module atf_format_wtf;
extern const atf_format_module atf_format_rtc;

static const struct {
    const atf_format_module *module;
    atf_path_kind kind;
} g_formats[] = {
    { &atf_format_wtf, ATF_PATH_WTF },
    { &atf_format_rtc, ATF_PATH_RTC },
};

#define N_FORMATS (sizeof g_formats / sizeof g_formats[0])

const atf_format_module *atf_format_bid(const void *head, size_t n, const char *path, int *path_kind)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (g_formats[i].module->bid(head, n, path)) {
            if (path_kind)
                *path_kind = (int)g_formats[i].kind;
            return g_formats[i].module;
        }
    return NULL;
}

const atf_format_module *atf_format_of_kind(int path_kind)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if ((int)g_formats[i].kind == path_kind)
            return g_formats[i].module;
    return NULL;
}
