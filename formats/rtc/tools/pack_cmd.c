/* `atf pack` and `atf unpack`, the commands RTC contributes to `atf`
 * (cli_support.h; listed in rtc_tool.c): options, then two paths (`--` ends
 * the options); the work is atf_pack() / atf_unpack() (atf/pack.h), which
 * report on stderr what they skipped or lost. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <atf/pack.h>

#include "cli_support.h"

static int cmd_pack(const atf_cli *cli, int unpack, int argc, char **argv)
{
    const char *cmd = unpack ? "unpack" : "pack";
    atf_pack_options po = ATF_PACK_OPTIONS_INIT;
    atf_unpack_options uo = ATF_UNPACK_OPTIONS_INIT;
    const char *path[2] = { NULL, NULL };
    int n = 0, opts_done = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        uint64_t v;
        if (opts_done || a[0] != '-' || !a[1]) {
            if (n == 2) {
                fprintf(stderr, "atf: %s: %s\n", cmd, unpack ? "one FILE.rtc and one DIR" : "one SESSION and one FILE.rtc");
                return cli->usage(NULL);
            }
            path[n++] = a;
        } else if (!strcmp(a, "--"))
            opts_done = 1;
        else if (!unpack && !strcmp(a, "--unit-size") && i + 1 < argc && atf_cli_parse_u64(argv[i + 1], &v))
            po.unit_size = v, i++;
        else if (!unpack && !strcmp(a, "--subunit-size") && i + 1 < argc && atf_cli_parse_u64(argv[i + 1], &v))
            po.subunit_size = v, i++;
        else if (!unpack && !strcmp(a, "--sync"))
            po.sync = 1;
        else if (unpack && !strcmp(a, "--force"))
            uo.force = 1;
        else if (unpack && !strcmp(a, "--sync"))
            uo.sync = 1;
        else {
            fprintf(stderr, "atf: %s: unknown option or bad value: ", cmd);
            atf_fputs_escaped(a, stderr);
            fputs("\n", stderr);
            return cli->usage(NULL);
        }
    }
    if (n < 2) {
        fprintf(stderr, "atf: %s: %s\n", cmd, unpack ? "FILE.rtc and DIR are needed" : "SESSION and FILE.rtc are needed");
        return cli->usage(NULL);
    }
    atf_error err;
    if (unpack) {
        atf_unpack_stats s;
        atf_status st = atf_unpack(path[0], path[1], &uo, &s, stderr, &err);
        if (st && s.not_rtc) {   /* no RTC input at all: exit 2, as every command for no ATF input */
            atf_cli_fail(st, &err);
            return ATF_EXIT_USAGE;
        }
        if (st)
            return atf_cli_fail(st, &err);
        return s.lost ? ATF_EXIT_INVALID : ATF_EXIT_OK;
    }
    atf_pack_stats s;
    atf_status st = atf_pack(path[0], path[1], &po, &s, stderr, &err);
    if (st == ATF_E_NOT_FOUND) {   /* no ATF session at SESSION: exit 2, as every command */
        atf_cli_fail(st, &err);
        return ATF_EXIT_USAGE;
    }
    if (st)
        return atf_cli_fail(st, &err);
    fputs("atf: pack: ", stderr);
    atf_fputs_escaped(path[0], stderr);
    fprintf(stderr,
            ": %" PRIu64 " thread(s), %" PRIu64 " file(s), %" PRIu64 " index and %" PRIu64 " detail events, %" PRIu64
            " bytes -> ",
            s.threads, s.files, s.index_events, s.detail_events, s.bytes_in);
    atf_fputs_escaped(path[1], stderr);
    fprintf(stderr, ": %" PRIu64 " bytes (Unit %" PRIu64 ", unit %" PRIu64 ", %" PRIu64 " manifest copies)\n",
            s.bytes_out, s.unit_size, s.subunit_size, s.manifest_copies);
    return ATF_EXIT_OK;
}

static int run_pack(const atf_cli *cli, int argc, char **argv)
{
    return cmd_pack(cli, 0, argc, argv);
}

static int run_unpack(const atf_cli *cli, int argc, char **argv)
{
    return cmd_pack(cli, 1, argc, argv);
}

const atf_cli_command rtc_cmd_pack = {
    "pack",
    "  pack [--unit-size N] [--subunit-size N] [--sync] SESSION FILE.rtc\n"
    "                                   the session (manifest.json, every thread's index\n"
    "                                   and detail lane) in one RTC file that survives\n"
    "                                   being cut at either end (docs/pack.md); --sync:\n"
    "                                   durable (survives a power cut) when pack exits 0\n",
    run_pack,
};

const atf_cli_command rtc_cmd_unpack = {
    "unpack",
    "  unpack [--force] [--sync] FILE.rtc DIR\n"
    "                                   the session back into DIR (new or empty): byte\n"
    "                                   for byte from a whole file; from a cut or damaged\n"
    "                                   one, every complete event of every intact Unit as\n"
    "                                   a crash-truncated session; what was lost on\n"
    "                                   stderr; exit 1 when anything was lost; --sync:\n"
    "                                   durable (survives a power cut) when unpack exits\n"
    "                                   0 or 1\n",
    run_unpack,
};
