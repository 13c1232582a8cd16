/* Lookups in the registry of the tools' formats (tool_format.h). */
#include <stdio.h>
#include <string.h>

#include "tool_format.h"

const atf_tool_format *tool_format_of(const atf_format_module *m)
{
    for (size_t i = 0; m && i < atf_tool_format_count; i++)
        if (!strcmp(atf_tool_format_registry[i]->name, m->name))
            return atf_tool_format_registry[i];
    return NULL;
}

const atf_tool_export *tool_export_named(const char *name)
{
    for (size_t i = 0; name && i < atf_tool_format_count; i++) {
        const atf_tool_export *e = atf_tool_format_registry[i]->export_to;
        if (e && !strcmp(e->name, name))
            return e;
    }
    return NULL;
}

const atf_tool_export *tool_export_of(atf_export_format f)
{
    for (size_t i = 0; i < atf_tool_format_count; i++) {
        const atf_tool_export *e = atf_tool_format_registry[i]->export_to;
        if (e && e->format == f)
            return e;
    }
    return NULL;
}

const char *tool_export_name(size_t i)
{
    static const char *const builtin[] = { "perfetto", "chrome-json" };
    size_t nb = sizeof builtin / sizeof builtin[0];
    if (i < nb)
        return builtin[i];
    i -= nb;
    for (size_t k = 0; k < atf_tool_format_count; k++)
        if (atf_tool_format_registry[k]->export_to && i-- == 0)
            return atf_tool_format_registry[k]->export_to->name;
    return NULL;
}

void atf_export_format_names(char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    size_t n = 0, at = 0;
    while (tool_export_name(n))
        n++;
    buf[0] = 0;
    for (size_t i = 0; i < n && at < cap; i++) {
        int k = snprintf(buf + at, cap - at, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", tool_export_name(i));
        if (k < 0)
            break;
        at += (size_t)k;
    }
}

const char *atf_export_stream_refusal(atf_export_format format)
{
    const atf_tool_export *e = tool_export_of(format);
    return e ? e->no_stdout : NULL;
}

void atf_export_file_notes(FILE *diag, atf_export_format format, const char *out_path)
{
    const atf_tool_export *e = tool_export_of(format);
    if (e && e->notes && diag && out_path)
        e->notes(diag, out_path);
}

void atf_export_file_summary(FILE *diag, atf_export_format format, const char *out_path,
                             const atf_export_stats *stats)
{
    const atf_tool_export *e = tool_export_of(format);
    if (e && e->summary && diag && out_path && stats)
        e->summary(diag, out_path, stats);
}
