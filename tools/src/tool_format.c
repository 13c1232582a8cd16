/* Lookups in the registry of the tools' formats (tool_format.h). */
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
