/* A trace format as the tools see it: one descriptor per format that has a
 * tools part (formats/<name>/tools/<name>_tool.c), listed by a registry
 * generated from formats/formats.cmake (tools/CMakeLists.txt:
 * atf_formats_with(... tools) + atf_format_registry). The tools (detection,
 * info, dump, export) walk the list and name no format. */
#ifndef ATF_TOOL_FORMAT_H
#define ATF_TOOL_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include <atf/error.h>
#include <atf/export.h>
#include <atf/tool_options.h>

#include "format_module.h"

struct exporter;
struct tool_source;
struct atf_slice;

/* An export into a format of files (`atf export --format NAME`), driven by
 * tools/src/export.c's thread loop. Every callback but close returns 0 or
 * one of EXPORT_* (export_internal.h). */
typedef struct atf_tool_export {
    const char *name;             /* --format NAME */
    atf_export_format format;     /* its value in atf/export.h */
    /* Output to standard output ("-") refused, with this usage message
     * (the CLI), and atf_export() (a stream) with this error. */
    const char *no_stdout;
    const char *no_stream;
    /* Opens the first file at out_path (x->file_state). pname names the process ("pid_N"). */
    atf_status (*open)(struct exporter *x, const char *out_path, const struct tool_source *src,
                       const atf_tool_options *o, const char *pname, atf_error *err);
    /* A thread begins (name: "thread_K (os tid T)"). */
    void (*thread_begin)(struct exporter *x, const char *name, const char *location);
    int (*slice)(struct exporter *x, const struct atf_slice *s);
    int (*thread_end)(struct exporter *x);
    /* Timing anchors inside the window. */
    int (*anchors)(struct exporter *x, const atf_tool_options *o);
    /* Flushes and closes every file (also after a failure: then only frees). */
    atf_status (*close)(struct exporter *x, int failed, atf_error *err);
    /* atf_export_file_notes() and atf_export_file_summary() (atf/export.h). */
    void (*notes)(FILE *diag, const char *out_path);
    void (*summary)(FILE *diag, const char *out_path, const atf_export_stats *s);
} atf_tool_export;

struct atf_cli_command;

typedef struct atf_tool_format {
    const char *name;   /* the codec module's (format_module.h) */
    /* `atf info` and `atf dump` of one file of this format; statuses as
     * atf_tool_dump(). */
    atf_status (*info)(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
    atf_status (*dump)(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
    const atf_tool_export *export_to;   /* NULL: no export into it */
    /* `atf --help` (cli_support.h): what a file of it is and how it is
     * detected, completing "info, dump and validate also read ..." (e.g.
     * "XYZ files (the ...: magic 01 02, or a name ending in .xyz)"); the
     * document of its canonical dump (`dump --json`), or NULL; the
     * specification `atf validate` checks its files against. */
    const char *help_files;
    const char *dump_doc;
    const char *spec;
    /* The commands of `atf` it contributes (a container's pack/unpack),
     * NULL-terminated; NULL: none. */
    const struct atf_cli_command *const *commands;
} atf_tool_format;

/* The registry (generated: tool_format_registry.c in the build tree). */
extern const atf_tool_format *const atf_tool_format_registry[];
extern const size_t atf_tool_format_count;

/* The tools descriptor of a codec module, or NULL. */
const atf_tool_format *tool_format_of(const atf_format_module *m);
/* The export of --format name, or NULL. */
const atf_tool_export *tool_export_named(const char *name);
/* The export of format f (atf/export.h), or NULL. */
const atf_tool_export *tool_export_of(atf_export_format f);
/* The i-th name `atf export --format` takes (the built-in exports, then the
 * registry's), or NULL past the last. */
const char *tool_export_name(size_t i);

#endif
