/* What the parts of the `atf` command share (cli_support.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"
#include "tool_format.h"

int atf_cli_exit_for(atf_status st)
{
    switch (st) {
    case ATF_OK: return ATF_EXIT_OK;
    case ATF_E_IO:
    case ATF_E_NOMEM:
    case ATF_E_ARG: return ATF_EXIT_USAGE;
    default: return ATF_EXIT_INVALID;
    }
}

int atf_cli_fail(atf_status st, const atf_error *err)
{
    char line[1024];
    atf_error_format(line, sizeof line, err);
    fprintf(stderr, "atf: error: %s\n", line[0] ? line : atf_strerror(st));
    return atf_cli_exit_for(st);
}

int atf_cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end)
        return 0;
    *out = v;
    return 1;
}

const atf_cli_command *atf_cli_command_named(const char *name)
{
    for (size_t i = 0; name && i < atf_tool_format_count; i++)
        for (const atf_cli_command *const *c = atf_tool_format_registry[i]->commands; c && *c; c++)
            if (!strcmp((*c)->name, name))
                return *c;
    return NULL;
}

size_t atf_cli_help_files(FILE *f)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < atf_tool_format_count; i++)
        n += atf_tool_format_registry[i]->help_files != NULL;
    for (size_t i = 0; i < atf_tool_format_count; i++) {
        const char *v = atf_tool_format_registry[i]->help_files;
        if (v)
            fprintf(f, "%s%s", k == 0 ? "" : k + 1 == n ? " and " : ", ", v), k++;
    }
    return n;
}

size_t atf_cli_help_dump_docs(FILE *f)
{
    size_t n = 0;
    for (size_t i = 0; i < atf_tool_format_count; i++) {
        const atf_tool_format *t = atf_tool_format_registry[i];
        if (t->dump_doc)
            fprintf(f, "%sfor %s: %s", n++ ? ", " : "", t->name, t->dump_doc);
    }
    return n;
}

size_t atf_cli_help_specs(FILE *f)
{
    size_t n = 0;
    for (size_t i = 0; i < atf_tool_format_count; i++) {
        const atf_tool_format *t = atf_tool_format_registry[i];
        if (t->spec)
            fprintf(f, "%s%s: %s", n++ ? ", " : "", t->name, t->spec);
    }
    return n;
}

size_t atf_cli_help_exports(FILE *f, const char *sep)
{
    size_t n = 0;
    for (const char *name; (name = tool_export_name(n)) != NULL; n++)
        fprintf(f, "%s%s", n ? sep : "", name);
    return n;
}

size_t atf_cli_help_commands(FILE *f)
{
    size_t n = 0;
    for (size_t i = 0; i < atf_tool_format_count; i++)
        for (const atf_cli_command *const *c = atf_tool_format_registry[i]->commands; c && *c; c++, n++)
            fputs((*c)->usage, f);
    return n;
}
