/* `atf`: command-line front end. It parses arguments and calls the library
 * (atf/tools.h); all the work lives there.
 * Exit codes: 0 ok, 1 the input is invalid, 2 usage or I/O error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/crc32c.h>
#include <atf/tools.h>
#include <atf/version.h>

enum { EXIT_OK = 0, EXIT_INVALID = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
    "usage: atf <command> [options] PATH\n"
    "\n"
    "PATH is an index file, a detail file, a thread directory (thread_K/) or a\n"
    "session directory (with manifest.json and thread_K/ directories).\n"
    "\n"
    "commands:\n"
    "  info [--no-verify] PATH          headers, footers, recovery and checksum state\n"
    "  dump [--json] [--no-verify] PATH every index event with its linked detail event;\n"
    "                                   --json prints the canonical dump (JSON Lines)\n"
    "  merge [--json] SESSION           all threads merged by (timestamp, thread, seq)\n"
    "  validate [--strict] PATH         structural checks; exit 1 on errors\n"
    "                                   (--strict: warnings fail too)\n"
    "  demo [--layout 1|2] [--threads N] [--events N] [--detail-every N] DIR\n"
    "                                   write a synthetic session into DIR\n"
    "  version                          library version and CRC32-C code in use\n"
    "\n"
    "exit codes: 0 ok, 1 the input is invalid, 2 usage or I/O error\n";

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "atf: %s\n", msg);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}

static int exit_for(atf_status st)
{
    switch (st) {
    case ATF_OK: return EXIT_OK;
    case ATF_E_IO:
    case ATF_E_NOMEM:
    case ATF_E_ARG: return EXIT_USAGE;
    default: return EXIT_INVALID;
    }
}

static int fail(atf_status st, const atf_error *err)
{
    char line[1024];
    atf_error_format(line, sizeof line, err);
    fprintf(stderr, "atf: error: %s\n", line[0] ? line : atf_strerror(st));
    return exit_for(st);
}

static int parse_u64(const char *s, uint64_t *out)
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

typedef struct counts {
    unsigned long errors, warnings;
} counts;

static void print_finding(void *user, const atf_finding *f)
{
    counts *c = user;
    if (f->severity == ATF_SEV_ERROR)
        c->errors++;
    else
        c->warnings++;
    printf("%s: %s", f->severity == ATF_SEV_ERROR ? "error" : "warning", f->file ? f->file : "?");
    if (f->offset != UINT64_MAX)
        printf(": offset %" PRIu64, f->offset);
    if (f->field)
        printf(": field %s", f->field);
    printf(": %s\n", f->message);
}

static int cmd_validate(int argc, char **argv)
{
    int strict = 0;
    const char *path = NULL;
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--strict"))
            strict = 1;
        else if (!strcmp(argv[i], "--no-verify"))
            o.no_verify = 1;
        else if (argv[i][0] == '-')
            return usage("validate: unknown option");
        else if (path)
            return usage("validate: one PATH only");
        else
            path = argv[i];
    }
    if (!path)
        return usage("validate: PATH is missing");
    counts c = { 0, 0 };
    atf_error err;
    atf_status st = atf_tool_check(path, &o, print_finding, &c, &err);
    if (st)
        return fail(st, &err);
    int ok = c.errors == 0 && (!strict || c.warnings == 0);
    printf("%s: %s (%lu error(s), %lu warning(s))\n", path, ok ? "valid" : "INVALID", c.errors, c.warnings);
    return ok ? EXIT_OK : EXIT_INVALID;
}

typedef atf_status (*tool_fn)(FILE *, const char *, const atf_tool_options *, atf_error *);

static int cmd_simple(const char *name, tool_fn fn, int allow_json, int argc, char **argv)
{
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (allow_json && !strcmp(argv[i], "--json"))
            o.json = 1;
        else if (!strcmp(argv[i], "--no-verify"))
            o.no_verify = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "atf: %s: unknown option %s\n", name, argv[i]);
            return usage(NULL);
        } else if (path)
            return usage("one PATH only");
        else
            path = argv[i];
    }
    if (!path)
        return usage("PATH is missing");
    atf_error err;
    atf_status st = fn(stdout, path, &o, &err);
    return st ? fail(st, &err) : EXIT_OK;
}

static int cmd_demo(int argc, char **argv)
{
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        uint64_t v;
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--layout") && has_value && parse_u64(argv[++i], &v) && (v == 1 || v == 2))
            d.layout = (atf_layout)v;
        else if (!strcmp(a, "--threads") && has_value && parse_u64(argv[++i], &v) && v >= 1 && v <= 4096)
            d.threads = (unsigned)v;
        else if (!strcmp(a, "--events") && has_value && parse_u64(argv[++i], &v))
            d.events = v;
        else if (!strcmp(a, "--detail-every") && has_value && parse_u64(argv[++i], &v) && v <= UINT32_MAX)
            d.detail_every = (unsigned)v;
        else if (!strcmp(a, "--seed") && has_value && parse_u64(argv[++i], &v))
            d.seed = v;
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
        return fail(st, &err);
    printf("wrote %s: %u thread(s) x %" PRIu64 " events, layout %d\n", dir, d.threads, d.events, (int)d.layout);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(NULL);
    const char *cmd = argv[1];
    int n = argc - 2;
    char **rest = argv + 2;
    if (!strcmp(cmd, "info"))
        return cmd_simple("info", atf_tool_info, 0, n, rest);
    if (!strcmp(cmd, "dump"))
        return cmd_simple("dump", atf_tool_dump, 1, n, rest);
    if (!strcmp(cmd, "merge"))
        return cmd_simple("merge", atf_tool_merge, 1, n, rest);
    if (!strcmp(cmd, "validate"))
        return cmd_validate(n, rest);
    if (!strcmp(cmd, "demo"))
        return cmd_demo(n, rest);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("atf %s (CRC32-C: %s)\n", atf_version_string(), atf_crc32c_impl());
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    fprintf(stderr, "atf: unknown command '%s'\n", cmd);
    return usage(NULL);
}
