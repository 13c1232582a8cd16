/* `atf`: command-line front end. It parses arguments and calls the library
 * (atf/tools.h); all the work lives there.
 * Exit codes: 0 ok, 1 the input is invalid, 2 usage or I/O error, or PATH is
 * no ATF input at all (an empty directory, say). `--` ends the options. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <atf/crc32c.h>
#include <atf/export.h>
#include <atf/tools.h>
#include <atf/validator.h>
#ifdef ATF_HAVE_CONFORM
#include <atf/conform.h>
#endif
#include <atf/version.h>

#include "cli_support.h"
#include "record.h"

enum { EXIT_OK = ATF_EXIT_OK, EXIT_INVALID = ATF_EXIT_INVALID, EXIT_USAGE = ATF_EXIT_USAGE };

/* The usage text, built when first wanted (usage_text()) from these parts
 * and the registry of the tools' formats (cli_support.h): the single-file
 * formats info, dump and validate read, the documents of their dumps, their
 * specifications, the export formats and the commands a format contributes. */
static const char usage_head[] = "usage: atf <command> [options] PATH\n\n";
static const char usage_paths[] =
    "PATH is an index file, a detail file, a thread directory (thread_K/) or a "
    "session directory (with manifest.json and thread_K/ directories)";
static const char usage_info_dump[] =
    "\n"
    "commands:\n"
    "  info [--no-verify] PATH          headers, footers, recovery and checksum state\n"
    "  dump [--json] [--no-verify] [--jobs N] [FILTERS] PATH\n"
    "                                   every index event with its linked detail event;\n";
static const char usage_dump_tail[] =
    "formatting it (default: one per CPU, at most 4;\n"
    "                                   the output is the same for any number)\n"
    "  merge [--json] [FILTERS] SESSION all threads merged by (timestamp, thread, seq)\n"
    "  export --format ";
static const char usage_export_report_validate[] =
    " [--jobs N] [FILTERS] -o FILE PATH\n"
    "                                   the session as a timeline (one track per thread,\n"
    "                                   calls as nested slices) for ui.perfetto.dev,\n"
    "                                   chrome://tracing or speedscope; counts on stderr;\n"
    "                                   --jobs: threads encoding Perfetto (as dump's)\n"
    "  report [--json] [--threads] [--sort total|self|calls|name] [FILTERS] SESSION\n"
    "                                   per function: calls, total and self time\n"
    "                                   (like uftrace report; atf report --help)\n"
    "  validate [--strict] [--format text|json|junit] [--no-verify] [--progress|--quiet] PATH\n"
    "                                   check every clause of conformance/SPEC.md\n";
static const char usage_validate_conform[] =
    "                                   exit 0 conformant (warnings allowed), 1 not\n"
    "                                   (--strict: warnings fail too), 2 cannot check;\n"
    "                                   --format json: schema atf-validate/1,\n"
    "                                   --format junit: one testcase per clause checked\n"
    "  validate --list-clauses          the clause table: ID, severity, rule, how to fix\n"
    "                                   (tab-separated)\n"
    "  conform --writer CMD [--scenario NAME]... [--scenario-file FILE]... [--no-slow]\n"
    "          [--keep DIR] [--timeout S] [--strict] [--format text|json|junit]\n"
    "                                   writer test kit: run `CMD SCENARIO_FILE OUTPUT_DIR`\n"
    "                                   per scenario, validate and compare the session\n"
    "  conform --reader CMD [--reader CMD]... [--corpus DIR] [--case NAME]...\n"
    "          [--timeout S] [--jobs N] [--strict] [--format text|json] [--html OUT]\n"
    "                                   reader test kit: run `CMD PATH` on every corpus\n"
    "                                   case, grade accept/reject and the dump\n"
    "  conform --list [--format json] | --export DIR [--scenario NAME]...\n"
    "                                   list the writer scenarios / write their files\n";
static const char usage_tail[] =
    "  record [-o ROOT] [--detail] [--budget BYTES] [--drop|--lossless] [--] PROG [ARGS...]\n"
    "                                   run PROG (built with -finstrument-functions) and\n"
    "                                   record its function calls (atf record --help)\n"
    "  demo [--layout 1|2] [--threads N] [--events N] [--detail-every N] [--force] DIR\n"
    "                                   write a synthetic session into DIR (new or\n"
    "                                   empty; --force: write into it anyway);\n"
    "                                   --events counts per thread\n"
    "  version                          library version and CRC32-C code in use\n"
    "\n"
    "FILTERS: --from T --to T (time window, T in ns or with a unit: 1.5s, 20ms, 3us,\n"
    "         100ns), --thread K[,K...] (repeatable). Long work shows progress on\n"
    "         stderr when it is a terminal: --progress forces it, --quiet silences it.\n"
    "\n"
    "Options come before `--`; what follows it is PATH even if it starts with '-'.\n"
    "atf COMMAND --help (or -h): that command's usage, on stdout.\n"
    "exit codes: 0 ok, 1 the input is invalid, 2 usage or I/O error, or PATH is\n"
    "no ATF input (an empty directory, a directory without index.atf,\n"
    "manifest.json, thread_* or pid_* entries)\n";

/* The column of the commands' descriptions, and the widths text is wrapped to. */
enum { HELP_INDENT = 35, HELP_WIDTH = 76, HELP_COLUMN_WIDTH = 50 };

static char *usage_built;   /* NULL until usage_text() built it */

/* text to f, its words greedily in lines of at most width characters, each
 * line after indent spaces. */
static void wrap(FILE *f, const char *text, int indent, int width)
{
    int col = -1;   /* -1: at the start of a line */
    for (const char *w = text; *w;) {
        while (*w == ' ')
            w++;
        size_t n = strcspn(w, " ");
        if (!n)
            break;
        if (col >= 0 && col + 1 + (int)n > width) {
            fputc('\n', f);
            col = -1;
        }
        if (col < 0)
            fprintf(f, "%*s%.*s", indent, "", (int)n, w), col = (int)n;
        else
            fprintf(f, " %.*s", (int)n, w), col += 1 + (int)n;
        w += n;
    }
    if (col >= 0)
        fputc('\n', f);
}

/* What fn writes (one of atf_cli_help_*), as a string; *count its count. */
static char *help_part(size_t (*fn)(FILE *), size_t *count)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    *count = fn(m);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static size_t help_exports_bar(FILE *f)
{
    return atf_cli_help_exports(f, "|");
}

/* wrap() of the formatted text. @return 0, or -1 out of memory. */
static int wrapf(FILE *f, int indent, int width, const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    wrap(f, text, indent, width);
    free(text);
    return 0;
}

/* The usage text from its parts and the registry into usage_built.
 * @return 0, or -1 out of memory. */
static int build_usage(void)
{
    size_t nfiles = 0, ndocs = 0, nspecs = 0, nexports = 0;
    char *files = help_part(atf_cli_help_files, &nfiles), *docs = help_part(atf_cli_help_dump_docs, &ndocs);
    char *specs = help_part(atf_cli_help_specs, &nspecs), *exports = help_part(help_exports_bar, &nexports);
    char *text = NULL;
    size_t len = 0;
    FILE *m = files && docs && specs && exports ? open_memstream(&text, &len) : NULL;
    int ok = m != NULL;
    if (m) {
        fputs(usage_head, m);
        ok &= wrapf(m, 0, HELP_WIDTH, "%s%s%s.", usage_paths, nfiles ? "; info, dump and validate also read " : "",
                    files) == 0;
        fputs(usage_info_dump, m);
        fprintf(m, "%*s--json prints the canonical dump (JSON Lines%s\n", HELP_INDENT, "", ndocs ? ";" : ");");
        ok &= wrapf(m, HELP_INDENT, HELP_COLUMN_WIDTH, "%s%s--jobs: threads", docs, ndocs ? "); " : "") == 0;
        fprintf(m, "%*s%s%s%s", HELP_INDENT, "", usage_dump_tail, exports, usage_export_report_validate);
        if (nspecs)
            ok &= wrapf(m, HELP_INDENT, HELP_COLUMN_WIDTH, "(%s);", specs) == 0;
        fputs(usage_validate_conform, m);
        atf_cli_help_commands(m);
        fputs(usage_tail, m);
        ok = fclose(m) == 0 && ok;
    }
    free(files);
    free(docs);
    free(specs);
    free(exports);
    if (!ok) {
        free(text);
        return -1;
    }
    usage_built = text;
    return 0;
}

/* The usage text, built on first use: only help and usage errors need it.
 * Out of memory: its first line and a note instead. */
static const char *usage_text(void)
{
    if (!usage_built && build_usage() != 0)
        return "usage: atf <command> [options] PATH\n(out of memory: the rest of the usage text could not be built)\n";
    return usage_built;
}

/* One message on stderr: "atf: " head, the argument escaped, tail. */
static void say(const char *head, const char *arg, const char *tail)
{
    fprintf(stderr, "atf: %s", head);
    atf_fputs_escaped(arg, stderr);
    fputs(tail, stderr);
}

/* `atf CMD --help`: CMD's entries of the usage text (an entry starts with
 * two spaces and the command's name, its continuation lines with more),
 * then the notes on filters and exit codes. A command added to the usage text
 * gets its --help with no more code.
 * @return 1 printed, 0 CMD has no entry. */
static int command_help(FILE *f, const char *cmd)
{
    const char *text = usage_text();
    const char *cmds = strstr(text, "\ncommands:\n"), *notes = strstr(text, "\nFILTERS:");
    size_t n = strlen(cmd);
    int found = 0, in = 0;
    if (!cmds || !notes)
        return 0;
    for (const char *l = cmds + 11; l < notes;) {
        const char *e = strchr(l, '\n');
        if (!e)
            break;
        if (l[0] == ' ' && l[1] == ' ' && l[2] != ' ')
            in = !strncmp(l + 2, cmd, n) && (l[2 + n] == ' ' || l[2 + n] == '\n');
        if (in) {
            if (!found)
                fprintf(f, "usage of atf %s:\n\n", cmd);
            found = 1;
            fwrite(l, 1, (size_t)(e - l) + 1, f);
        }
        l = e + 1;
    }
    if (found)
        fputs(notes, f);
    return found;
}

/* --help or -h among the options (before `--`). */
static int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "atf: %s\n", msg);
    fputs(usage_text(), stderr);
    return EXIT_USAGE;
}

/* atf_cli_fail(), and exit 2 when there is no ATF input at PATH at all (an empty
 * directory, a directory of other files), as `atf validate`. */
static int fail_path(atf_status st, const atf_error *err, const char *path)
{
    int rc = atf_cli_fail(st, err);
    char resolved[4096];
    atf_error de;
    return rc == EXIT_INVALID && atf_path_detect(path, resolved, sizeof resolved, &de) == ATF_PATH_UNKNOWN &&
                   de.code == ATF_E_NOT_FOUND
               ? EXIT_USAGE
               : rc;
}

/* A time: integer nanoseconds, or a decimal with a unit (ns, us, ms, s). */
static int parse_time(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return 0;
    unsigned long long whole = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    const char *frac = NULL;
    if (*end == '.') {
        frac = end + 1;
        for (end = (char *)frac; *end >= '0' && *end <= '9'; end++)
            ;
    }
    uint64_t scale = !strcmp(end, "") || !strcmp(end, "ns") ? 1
                   : !strcmp(end, "us")                     ? 1000
                   : !strcmp(end, "ms")                     ? 1000000
                   : !strcmp(end, "s")                      ? 1000000000
                                                            : 0;
    if (scale == 0 || (frac && scale == 1) || whole > UINT64_MAX / scale)
        return 0;
    uint64_t v = (uint64_t)whole * scale, part = 0, div = 1;
    for (const char *p = frac; p && *p >= '0' && *p <= '9' && div < scale; p++) {
        part = part * 10 + (uint64_t)(*p - '0');
        div *= 10;
    }
    if (frac && div > 1) {
        uint64_t add = part * (scale / div);
        if (v > UINT64_MAX - add)
            return 0;
        v += add;
    }
    *out = v;
    return 1;
}

/* What dump, merge and export share: filters and progress. */
typedef struct common_args {
    atf_tool_options o;
    uint64_t threads[256];
    int progress;               /* -1 quiet, 0 auto (a terminal), 1 forced */
    const char *name;
} common_args;

/* Consumes argv[*i] (and its value) if it is a filter or progress option.
 * @return 1 consumed, 0 not one of them, -1 bad value (message printed). */
static int common_option(common_args *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint64_t t;
    if (!strcmp(a, "--progress")) {
        c->progress = 1;
        return 1;
    }
    if (!strcmp(a, "--quiet")) {
        c->progress = -1;
        return 1;
    }
    if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
        if (!parse_time(v, &t)) {
            fprintf(stderr, "atf: %s: %s needs a time (ns, or 1.5s, 20ms, 3us)\n", c->name, a);
            return -1;
        }
        c->o.window = 1;
        if (a[2] == 'f')
            c->o.from_ns = t;
        else
            c->o.to_ns = t;
        (*i)++;
        return 1;
    }
    if (!strcmp(a, "--jobs") && strcmp(c->name, "merge") != 0) {   /* dump and export */
        char *end = NULL;
        unsigned long j = v && *v >= '0' && *v <= '9' ? strtoul(v, &end, 10) : 0;
        if (!end || *end || j < 1 || j > 64) {
            fprintf(stderr, "atf: %s: --jobs takes a number of threads from 1 to 64\n", c->name);
            return -1;
        }
        c->o.jobs = (unsigned)j;
        (*i)++;
        return 1;
    }
    if (!strcmp(a, "--thread")) {
        char *p = v ? (char *)v : (char *)"";
        do {
            char *end;
            if (*p < '0' || *p > '9' || c->o.thread_count >= sizeof c->threads / sizeof c->threads[0]) {
                fprintf(stderr, "atf: %s: --thread takes thread ids (K of thread_K), comma-separated, at most 256\n",
                        c->name);
                return -1;
            }
            c->threads[c->o.thread_count++] = strtoull(p, &end, 10);
            p = *end == ',' ? end + 1 : end;
            if (*end && *end != ',') {
                fprintf(stderr, "atf: %s: --thread: bad id list '", c->name);
                atf_fputs_escaped(v, stderr);
                fputs("'\n", stderr);
                return -1;
            }
        } while (*p);
        c->o.threads = c->threads;
        (*i)++;
        return 1;
    }
    return 0;
}

/* Progress on stderr: one line rewritten in place. */
typedef struct progress_line {
    const char *name;
    int threads;   /* the units are threads (validate), else index events */
    int shown;
} progress_line;

static void show_progress(void *user, uint64_t done, uint64_t total)
{
    progress_line *p = user;
    double pct = total ? 100.0 * (double)done / (double)total : 100.0;
    if (p->threads)
        fprintf(stderr, "\ratf: %s: %5.1f%% (%" PRIu64 " of %" PRIu64 " threads)", p->name, pct, done, total);
    else
        fprintf(stderr, "\ratf: %s: %5.1f%% (%.1f M of %.1f M events)", p->name, pct, (double)done / 1e6,
                (double)total / 1e6);
    p->shown = 1;
    fflush(stderr);
}

static void common_finish(progress_line *pl)
{
    if (pl->shown)
        fputc('\n', stderr);
}

static void common_init(common_args *c, const char *name, progress_line *pl)
{
    atf_tool_options init = ATF_TOOL_OPTIONS_INIT;
    memset(c, 0, sizeof *c);
    c->o = init;
    c->o.diag = stderr;   /* one line per file not read whole: nothing is lost silently */
    c->name = name;
    pl->name = name;
    pl->threads = 0;
    pl->shown = 0;
}

static void common_arm(common_args *c, progress_line *pl)
{
    if (c->progress > 0 || (c->progress == 0 && isatty(2))) {
        c->o.progress = show_progress;
        c->o.progress_user = pl;
    }
}

/* `atf validate`: clause-by-clause validation (atf/validator.h). */
static int cmd_validate(int argc, char **argv)
{
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    const char *path = NULL, *format = "text";
    int progress = 0;
    progress_line pl = { "validate", 1, 0 };
    if (argc == 1 && !strcmp(argv[0], "--list-clauses"))
        return atf_clause_table_write(stdout) == ATF_OK && fflush(stdout) == 0 ? EXIT_OK : EXIT_USAGE;
    int opts_done = 0;
    for (int i = 0; i < argc; i++) {
        if (opts_done && path)
            return usage("validate: one PATH only");
        else if (opts_done)
            path = argv[i];
        else if (!strcmp(argv[i], "--"))
            opts_done = 1;
        else if (!strcmp(argv[i], "--progress"))
            progress = 1;
        else if (!strcmp(argv[i], "--quiet"))
            progress = -1;
        else if (!strcmp(argv[i], "--strict"))
            o.strict = 1;
        else if (!strcmp(argv[i], "--no-verify"))
            o.no_verify = 1;
        else if (!strcmp(argv[i], "--format") && i + 1 < argc)
            format = argv[++i];
        else if (!strncmp(argv[i], "--format=", 9))
            format = argv[i] + 9;
        else if (argv[i][0] == '-' && argv[i][1])
            return usage("validate: unknown option or missing value");
        else if (path)
            return usage("validate: one PATH only");
        else
            path = argv[i];
    }
    if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "junit"))
        return usage("validate: --format must be text, json or junit");
    if (!path)
        return usage("validate: PATH is missing");
    if (progress > 0 || (progress == 0 && isatty(2))) {
        o.progress = show_progress;
        o.progress_user = &pl;
    }
    atf_validation *v;
    atf_error err;
    atf_status st = atf_validate_path(&v, path, &o, &err);
    common_finish(&pl);
    if (st) {
        char line[1024];
        atf_error_format(line, sizeof line, &err);
        fprintf(stderr, "atf: error: %s\n", line[0] ? line : atf_strerror(st));
        return EXIT_USAGE; /* the checks could not run */
    }
    if (!strcmp(format, "json"))
        st = atf_validation_write_json(stdout, v);
    else if (!strcmp(format, "junit"))
        st = atf_validation_write_junit(stdout, v);
    else
        st = atf_validation_write_text(stdout, v);
    int ok = atf_validation_conformant(v);
    atf_validation_free(v);
    if (st || fflush(stdout) != 0) {
        fprintf(stderr, "atf: error: cannot write the report\n");
        return EXIT_USAGE;
    }
    return ok ? EXIT_OK : EXIT_INVALID;
}

typedef atf_status (*tool_fn)(FILE *, const char *, const atf_tool_options *, atf_error *);

static int cmd_simple(const char *name, tool_fn fn, int allow_json, int argc, char **argv)
{
    common_args c;
    progress_line pl;
    common_init(&c, name, &pl);
    const char *path = NULL;
    int opts_done = 0;
    for (int i = 0; i < argc; i++) {
        if (!opts_done && !strcmp(argv[i], "--")) {
            opts_done = 1;
            continue;
        }
        if (opts_done) {
            if (path)
                return usage("one PATH only");
            path = argv[i];
            continue;
        }
        int k = allow_json ? common_option(&c, argc, argv, &i) : 0;
        if (k < 0)
            return usage(NULL);
        if (k > 0)
            continue;
        if (allow_json && !strcmp(argv[i], "--json"))
            c.o.json = 1;
        else if (!strcmp(argv[i], "--no-verify"))
            c.o.no_verify = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "atf: %s: unknown option ", name);
            atf_fputs_escaped(argv[i], stderr);
            fputs("\n", stderr);
            return usage(NULL);
        } else if (path)
            return usage("one PATH only");
        else
            path = argv[i];
    }
    if (!path)
        return usage("PATH is missing");
    if (c.o.window && c.o.from_ns > c.o.to_ns)
        return usage("--from is after --to");
    common_arm(&c, &pl);
    atf_error err;
    atf_status st = fn(stdout, path, &c.o, &err);
    common_finish(&pl);
    if (st == ATF_OK)
        return EXIT_OK;
    return fail_path(st, &err, path);
}

/* `atf report`: the work is atf_tool_report() (atf/tools.h). */
static const char report_usage[] =
    "usage: atf report [--json] [--threads] [--sort total|self|calls|name] [--no-verify]\n"
    "                  [FILTERS] [--] SESSION\n"
    "\n"
    "Per function: total (inclusive) time, self time and calls, for the whole\n"
    "session, or with --threads one table per thread (like `uftrace report`).\n"
    "Calls and returns pair as in `atf export`: a call that never returned ends\n"
    "at its thread's last event, an exception or an outer return ends the frames\n"
    "above it, a return without a call is dropped; how many of each goes to\n"
    "stderr when there were any. A recursive function's total time counts its\n"
    "outermost calls only. SESSION is a session directory (or one thread's\n"
    "directory or index file); a directory of several sessions is refused: name one.\n"
    "  --json       one JSON object: functions[] (or threads[] of {thread,\n"
    "               functions[]}) of {function_id, name, calls, total_ns, self_ns},\n"
    "               and events, calls, unclosed, unwound, unmatched_returns,\n"
    "               exceptions, thread_count\n"
    "  --sort KEY   total (default), self, calls (largest first) or name\n"
    "FILTERS: --from T --to T, --thread K[,K...], --progress, --quiet (as in dump).\n"
    "exit codes: 0 ok, 1 the input is damaged (what could be read is reported),\n"
    "2 usage, I/O error or no ATF input at SESSION\n";

static int cmd_report(int argc, char **argv)
{
    common_args c;
    progress_line pl;
    common_init(&c, "report", &pl);
    atf_report_options ro = ATF_REPORT_OPTIONS_INIT;
    const char *path = NULL;
    int opts_done = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-') {
            if (path) {
                fputs("atf: report: one SESSION only\n", stderr);
                fputs(report_usage, stderr);
                return EXIT_USAGE;
            }
            path = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            opts_done = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(report_usage, stdout);
            return EXIT_OK;
        }
        if (!strcmp(a, "--json")) {
            ro.json = 1;
            continue;
        }
        if (!strcmp(a, "--threads")) {
            ro.per_thread = 1;
            continue;
        }
        if (!strcmp(a, "--no-verify")) {
            c.o.no_verify = 1;
            continue;
        }
        if (!strcmp(a, "--sort")) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (!strcmp(v, "total"))
                ro.sort = ATF_REPORT_SORT_TOTAL;
            else if (!strcmp(v, "self"))
                ro.sort = ATF_REPORT_SORT_SELF;
            else if (!strcmp(v, "calls"))
                ro.sort = ATF_REPORT_SORT_CALLS;
            else if (!strcmp(v, "name"))
                ro.sort = ATF_REPORT_SORT_NAME;
            else {
                fprintf(stderr, "atf: report: --sort takes total, self, calls or name\n");
                return EXIT_USAGE;
            }
            continue;
        }
        int k = strcmp(a, "--jobs") ? common_option(&c, argc, argv, &i) : 0;
        if (k < 0)
            return EXIT_USAGE;
        if (k == 0) {
            fprintf(stderr, "atf: report: unknown option %s\n", a);
            fputs(report_usage, stderr);
            return EXIT_USAGE;
        }
    }
    if (!path) {
        fputs("atf: report: SESSION is missing\n", stderr);
        fputs(report_usage, stderr);
        return EXIT_USAGE;
    }
    if (c.o.window && c.o.from_ns > c.o.to_ns)
        return usage("--from is after --to");
    common_arm(&c, &pl);
    atf_error err;
    atf_status st = atf_tool_report(stdout, path, &c.o, &ro, NULL, &err);
    common_finish(&pl);
    if (fflush(stdout) != 0 && st == ATF_OK) {
        fprintf(stderr, "atf: report: cannot write the output: %s\n", strerror(errno));
        return EXIT_USAGE;
    }
    if (st == ATF_OK)
        return EXIT_OK;
    int rc = atf_cli_fail(st, &err);
    char resolved[4096];
    atf_error de;
    return rc == EXIT_INVALID && atf_path_detect(path, resolved, sizeof resolved, &de) == ATF_PATH_UNKNOWN &&
                   de.code == ATF_E_NOT_FOUND
               ? EXIT_USAGE
               : rc;
}

/* `atf export`: the work is atf_export() (atf/export.h). */
static int cmd_export(int argc, char **argv)
{
    common_args c;
    progress_line pl;
    common_init(&c, "export", &pl);
    const char *path = NULL, *outp = NULL, *format = NULL;
    int opts_done = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!opts_done && !strcmp(a, "--")) {
            opts_done = 1;
            continue;
        }
        if (opts_done) {
            if (path)
                return usage("export: one PATH only");
            path = a;
            continue;
        }
        int k = common_option(&c, argc, argv, &i);
        if (k < 0)
            return usage(NULL);
        if (k > 0)
            continue;
        if ((!strcmp(a, "--format") || !strcmp(a, "-f")) && v)
            format = argv[++i];
        else if (!strncmp(a, "--format=", 9))
            format = a + 9;
        else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v)
            outp = argv[++i];
        else if (!strcmp(a, "--no-verify"))
            c.o.no_verify = 1;
        else if (a[0] == '-' && a[1]) {
            say("export: unknown option or missing value: ", a, "\n");
            return usage(NULL);
        } else if (path)
            return usage("export: one PATH only");
        else
            path = a;
    }
    atf_export_format f = atf_export_format_parse(format);
    if (!f) {
        char names[256], msg[300];
        atf_export_format_names(names, sizeof names);
        snprintf(msg, sizeof msg, "export: --format must be %s", names);
        return usage(msg);
    }
    if (!path || !outp)
        return usage("export: PATH and -o FILE are needed");
    const char *to_files = atf_export_stream_refusal(f);   /* an export into files (the formats' tools) */
    if (to_files && !strcmp(outp, "-"))
        return usage(to_files);
    if (c.o.window && c.o.from_ns > c.o.to_ns)
        return usage("export: --from is after --to");
    common_arm(&c, &pl);
    atf_error err;
    atf_export_stats s;
    atf_status st;
    if (to_files) {
        atf_export_file_notes(stderr, f, outp);
        st = atf_export_file(outp, f, path, &c.o, &s, &err);
        common_finish(&pl);
    } else {
        FILE *out = !strcmp(outp, "-") ? stdout : fopen(outp, "wb");
        if (!out) {
            fputs("atf: error: ", stderr);
            atf_fputs_escaped(outp, stderr);
            fprintf(stderr, ": cannot create: %s\n", strerror(errno));
            return EXIT_USAGE;
        }
        st = atf_export(out, f, path, &c.o, &s, &err);
        common_finish(&pl);
        if (out != stdout && fclose(out) != 0 && !st) {
            fputs("atf: error: ", stderr);
            atf_fputs_escaped(outp, stderr);
            fprintf(stderr, ": cannot write: %s\n", strerror(errno));
            return EXIT_USAGE;
        }
    }
    if (st)
        return fail_path(st, &err, path);
    const atf_slice_counts *k = &s.slices;
    if (s.recovered_files || s.trailing_bytes)
        fprintf(stderr, "atf: export: %" PRIu64 " file(s) without a footer (crash-truncated): their complete events "
                        "were read; %" PRIu64 " trailing byte(s) that are no complete event were skipped\n",
                s.recovered_files, s.trailing_bytes);
    fprintf(stderr,
            "atf: export: %" PRIu64 " thread(s), %" PRIu64 " events read, %" PRIu64 " slices, %" PRIu64
            " exception instants, %" PRIu64 " detail events as arguments, %" PRIu64 " anchors; %" PRIu64
            " bytes to ",
            s.threads, s.events, k->begins, k->instants, s.details, s.anchors, s.bytes);
    atf_fputs_escaped(outp, stderr);
    fputc('\n', stderr);
    /* The unclean-input line only when something was unclean (a clean
     * session's export says nothing of it). */
    if (k->unclosed || k->unmatched_returns || k->unwound || k->depth_skips || k->backwards || k->unknown_kinds ||
        k->too_deep || k->clipped)
        fprintf(stderr,
            "atf: export: unclean input: %" PRIu64 " calls never returned (closed at their thread's last "
            "timestamp, marked \"unclosed\"), %" PRIu64 " returns without a call (dropped), %" PRIu64
            " frames closed by an outer return (marked \"unwound\"), %" PRIu64 " depth skips, %" PRIu64
            " backwards timestamps (raised), %" PRIu64 " events of unknown kind (dropped), %" PRIu64
            " calls deeper than %u (dropped), %" PRIu64 " slices clipped by the window\n",
            k->unclosed, k->unmatched_returns, k->unwound, k->depth_skips, k->backwards, k->unknown_kinds,
            k->too_deep, ATF_SLICE_MAX_DEPTH, k->clipped);
    if (to_files)
        atf_export_file_summary(stderr, f, outp, &s);
    return EXIT_OK;
}

static int cmd_demo(int argc, char **argv)
{
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    const char *dir = NULL;
    int opts_done = 0;
    for (int i = 0; i < argc; i++) {
        uint64_t v;
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (opts_done || !strcmp(a, "--")) {
            if (opts_done && dir)
                return usage("demo: one DIR only");
            if (opts_done)
                dir = a;
            opts_done = 1;
        } else if (!strcmp(a, "--layout") && has_value && atf_cli_parse_u64(argv[++i], &v) && (v == 1 || v == 2))
            d.layout = (atf_layout)v;
        else if (!strcmp(a, "--threads") && has_value && atf_cli_parse_u64(argv[++i], &v) && v >= 1 && v <= 4096)
            d.threads = (unsigned)v;
        else if (!strcmp(a, "--events") && has_value && atf_cli_parse_u64(argv[++i], &v))
            d.events = v;
        else if (!strcmp(a, "--detail-every") && has_value && atf_cli_parse_u64(argv[++i], &v) && v <= UINT32_MAX)
            d.detail_every = (unsigned)v;
        else if (!strcmp(a, "--seed") && has_value && atf_cli_parse_u64(argv[++i], &v))
            d.seed = v;
        else if (!strcmp(a, "--force"))
            d.force = 1;
        else if (a[0] == '-')
            return usage("demo: unknown option or bad value");
        else if (dir)
            return usage("demo: one DIR only");
        else
            dir = a;
    }
    if (!dir)
        return usage("demo: DIR is missing");
    atf_error err;
    atf_status st = atf_tool_demo(dir, &d, &err);
    if (st)
        return atf_cli_fail(st, &err);
    printf("wrote %s: %u thread(s) x %" PRIu64 " events, layout %d\n", dir, d.threads, d.events, (int)d.layout);
    return EXIT_OK;
}

#ifdef ATF_HAVE_CONFORM
/* Interrupted: take the adapter or reader commands down too, then die of the signal. */
static void conform_signal(int sig)
{
    atf_conform_abort_children();
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

#ifdef ATF_HAVE_CONFORM
/* The command line of `atf conform`. */
typedef struct conform_args {
    const char **scen, **files, **readers, **cases;
    size_t ns, nf, nr, nc;
    const char *writer, *keep, *corpus, *html, *format, *export_dir;
    double timeout;
    unsigned long jobs;
    int list, strict, no_slow;
} conform_args;

/* The value of a numeric option; 0, or -1 after saying what it takes. */
static int conform_number(conform_args *c, const char *a, const char *v)
{
    char *end = NULL;
    if (!strcmp(a, "--jobs")) {
        c->jobs = strtoul(v, &end, 10);
        if (!*v || *end || c->jobs < 1 || c->jobs > 64) {
            fprintf(stderr, "atf: conform: --jobs takes 1..64\n");
            return -1;
        }
        return 0;
    }
    c->timeout = strtod(v, &end);
    if (!*v || *end || !(c->timeout > 0) || c->timeout > 86400) {
        fprintf(stderr, "atf: conform: --timeout takes seconds (0 < S <= 86400)\n");
        return -1;
    }
    return 0;
}

/* Options into c (lists sized for argc entries each). @return 0, or -1 after saying why not. */
static int conform_parse(conform_args *c, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {   /* ends the options; conform takes no PATH */
            if (i + 1 < argc) {
                fprintf(stderr, "atf: conform: takes no PATH (the corpus is --corpus DIR)\n");
                return -1;
            }
            break;
        } else if (!strcmp(a, "--list"))
            c->list = 1;
        else if (!strcmp(a, "--strict"))
            c->strict = 1;
        else if (!strcmp(a, "--no-slow"))
            c->no_slow = 1;
        else if (!v && a[0] == '-' && a[1] == '-') {
            say("conform: ", a, " needs a value or is unknown\n");
            return -1;
        } else if (!strcmp(a, "--writer"))
            c->writer = argv[++i];
        else if (!strcmp(a, "--reader"))
            c->readers[c->nr++] = argv[++i];
        else if (!strcmp(a, "--scenario"))
            c->scen[c->ns++] = argv[++i];
        else if (!strcmp(a, "--scenario-file"))
            c->files[c->nf++] = argv[++i];
        else if (!strcmp(a, "--case"))
            c->cases[c->nc++] = argv[++i];
        else if (!strcmp(a, "--keep"))
            c->keep = argv[++i];
        else if (!strcmp(a, "--corpus"))
            c->corpus = argv[++i];
        else if (!strcmp(a, "--html"))
            c->html = argv[++i];
        else if (!strcmp(a, "--format"))
            c->format = argv[++i];
        else if (!strcmp(a, "--export"))
            c->export_dir = argv[++i];
        else if (!strcmp(a, "--jobs") || !strcmp(a, "--timeout")) {
            if (conform_number(c, a, argv[++i]) != 0)
                return -1;
        } else {
            say("conform: unknown argument ", a, "\n");
            return -1;
        }
    }
    return 0;
}

/* Runs the kit c asks for; @return the exit code. */
static int conform_run(const conform_args *c, atf_conform_format fmt)
{
    atf_error err;
    memset(&err, 0, sizeof err);
    int rc;
    if (c->list || c->export_dir) {
        atf_status st = c->list ? atf_conform_list_scenarios(stdout, fmt)
                                : atf_builtin_scenarios_export(c->export_dir, c->scen, c->ns, stdout, &err);
        if (st == ATF_OK && fflush(stdout) != 0)
            st = ATF_E_IO;
        if (st == ATF_E_IO && !err.message[0])
            snprintf(err.message, sizeof err.message, "cannot write to the standard output");
        rc = st == ATF_OK ? EXIT_OK : EXIT_USAGE;
    } else if (c->writer) {
        atf_conform_writer_options o = ATF_CONFORM_WRITER_OPTIONS_INIT;
        o.adapter = c->writer;
        o.scenarios = c->scen;
        o.scenario_count = c->ns;
        o.scenario_files = c->files;
        o.scenario_file_count = c->nf;
        o.keep_dir = c->keep;
        o.timeout_s = c->timeout;
        o.strict = (unsigned)c->strict;
        o.no_slow = (unsigned)c->no_slow;
        o.format = fmt;
        rc = atf_conform_writer_run(stdout, stderr, &o, &err);
    } else {
        if (fmt == ATF_CONFORM_JUNIT) {
            fprintf(stderr, "atf: conform: the reader kit reports as text or json (and --html)\n");
            return EXIT_USAGE;
        }
        atf_conform_reader_options o = ATF_CONFORM_READER_OPTIONS_INIT;
        o.readers = c->readers;
        o.reader_count = c->nr;
        o.corpus_dir = c->corpus;
        o.cases = c->cases;
        o.case_count = c->nc;
        o.timeout_s = c->timeout;
        o.strict = (unsigned)c->strict;
        o.format = fmt;
        o.html_path = c->html;
        o.jobs = (unsigned)c->jobs;
        rc = atf_conform_reader_run(stdout, stderr, &o, &err);
    }
    if (rc == ATF_CONFORM_ERROR) {
        char line[1024];
        atf_error_format(line, sizeof line, &err);
        fprintf(stderr, "atf: conform: %s\n", line);
    }
    return rc;
}
#endif

/* `atf conform`: the writer and reader test kits (conformance/kit, atf/conform.h). */
static int cmd_conform(int argc, char **argv)
{
#ifdef ATF_HAVE_CONFORM
    signal(SIGINT, conform_signal);
    signal(SIGTERM, conform_signal);
    signal(SIGHUP, conform_signal);
    const char **lists = calloc((size_t)argc * 5 + 5, sizeof *lists);
    if (!lists)
        return EXIT_USAGE;
    conform_args c;
    memset(&c, 0, sizeof c);
    c.scen = lists;
    c.files = lists + argc + 1;
    c.readers = lists + 2 * (argc + 1);
    c.cases = lists + 3 * (argc + 1);
    c.corpus = "corpus/atf";
    c.format = "text";
    int rc = EXIT_USAGE;
    if (conform_parse(&c, argc, argv) != 0)
        goto out;
    atf_conform_format fmt = !strcmp(c.format, "json") ? ATF_CONFORM_JSON
                           : !strcmp(c.format, "junit") ? ATF_CONFORM_JUNIT : ATF_CONFORM_TEXT;
    if (strcmp(c.format, "text") && strcmp(c.format, "json") && strcmp(c.format, "junit")) {
        fprintf(stderr, "atf: conform: --format must be text, json or junit\n");
        goto out;
    }
    if ((c.writer != NULL) + (c.nr > 0) + c.list + (c.export_dir != NULL) != 1) {
        fprintf(stderr, "atf: conform: give exactly one of --writer CMD, --reader CMD, --list, --export DIR\n");
        goto out;
    }
    rc = conform_run(&c, fmt);
out:
    free(lists);
    return rc;
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "atf: conform: not built (configure with -DATF_BUILD_TESTS=ON: the kit lives in conformance/)\n");
    return EXIT_USAGE;
#endif
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(NULL);
    const char *cmd = argv[1];
    int n = argc - 2;
    char **rest = argv + 2;
    /* record reads its own options up to PROG: a --help after PROG is PROG's. */
    if (strcmp(cmd, "record") != 0 && wants_help(n, rest) && command_help(stdout, cmd))
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_USAGE;
    if (!strcmp(cmd, "info"))
        return cmd_simple("info", atf_tool_info, 0, n, rest);
    if (!strcmp(cmd, "dump"))
        return cmd_simple("dump", atf_tool_dump, 1, n, rest);
    if (!strcmp(cmd, "merge"))
        return cmd_simple("merge", atf_tool_merge, 1, n, rest);
    if (!strcmp(cmd, "export"))
        return cmd_export(n, rest);
    if (!strcmp(cmd, "report"))
        return cmd_report(n, rest);
    if (!strcmp(cmd, "validate"))
        return cmd_validate(n, rest);
    if (!strcmp(cmd, "conform"))
        return cmd_conform(n, rest);
    if (!strcmp(cmd, "demo"))
        return cmd_demo(n, rest);
    if (!strcmp(cmd, "record"))
        return atf_cmd_record(n, rest);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("atf %s (CRC32-C: %s)\n", atf_version_string(), atf_crc32c_impl());
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage_text(), stdout);
        return EXIT_OK;
    }
    const atf_cli_command *contributed = atf_cli_command_named(cmd);   /* a format's (pack, unpack) */
    if (contributed) {
        const atf_cli cli = { usage };
        return contributed->run(&cli, n, rest);
    }
    say("unknown command '", cmd, "'\n");
    return usage(NULL);
}
