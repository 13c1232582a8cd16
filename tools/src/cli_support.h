/* What the parts of the `atf` command share: cli/atf_main.c and the commands
 * a format contributes (atf_tool_format.commands, in formats/<name>/tools/):
 * exit codes, the error line, numbers, and the parts of `atf --help` that
 * come from the registry of the tools' formats (tool_format.h), so that the
 * CLI names no format. */
#ifndef ATF_CLI_SUPPORT_H
#define ATF_CLI_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <atf/error.h>

/* 0 ok, 1 the input is invalid, 2 usage or I/O error, or no input at all. */
enum { ATF_EXIT_OK = 0, ATF_EXIT_INVALID = 1, ATF_EXIT_USAGE = 2 };

/* What the CLI hands a contributed command. */
typedef struct atf_cli {
    /* "atf: MSG" (when msg is not NULL), then the usage text, on stderr;
     * @return ATF_EXIT_USAGE. */
    int (*usage)(const char *msg);
} atf_cli;

/* A command of `atf` that a format contributes. */
typedef struct atf_cli_command {
    const char *name;    /* `atf NAME ...` */
    /* Its entry in the "commands:" section of `atf --help`: a line "  NAME
     * ...", continuation lines indented further (`atf NAME --help` prints
     * it). */
    const char *usage;
    /* The command; argv holds what follows NAME. @return the exit code. */
    int (*run)(const atf_cli *cli, int argc, char **argv);
} atf_cli_command;

/* The exit code of a status: 0 ok, 2 I/O, memory and argument errors, 1 the rest. */
int atf_cli_exit_for(atf_status st);
/* "atf: error: ..." (err, else st's text) on stderr; @return atf_cli_exit_for(st). */
int atf_cli_fail(atf_status st, const atf_error *err);
/* A decimal unsigned 64-bit number, the whole of s. @return 1 parsed, 0 not. */
int atf_cli_parse_u64(const char *s, uint64_t *out);

/* The contributed command NAME, or NULL. */
const atf_cli_command *atf_cli_command_named(const char *name);

/* The parts of `atf --help` from the registry, each written to f.
 * @return the number of formats (or names) written; 0 writes nothing. */
/* "XYZ files (...), ... and ABC files (...)": the single files info, dump
 * and validate read beside the native format. */
size_t atf_cli_help_files(FILE *f);
/* "for XYZ: docs/xyz-dump-format.md, ...": the documents of `dump --json`. */
size_t atf_cli_help_dump_docs(FILE *f);
/* "XYZ: conformance/SPEC-XYZ.md, ...": what `atf validate` checks. */
size_t atf_cli_help_specs(FILE *f);
/* The names `export --format` takes, separated by sep. */
size_t atf_cli_help_exports(FILE *f, const char *sep);
/* Every contributed command's usage entry, in registry order. */
size_t atf_cli_help_commands(FILE *f);

#endif
