/* One tool over a path: on the path, or session by session over a
 * directory of sessions; a file of another format goes to that format's
 * tools (tool_format.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/tools.h>

#include "dump_internal.h"
#include "internal.h"
#include "tool_format.h"
#include "tools_internal.h"

/* The line that introduces a session of a directory of sessions. */
static void put_session_marker(FILE *out, const char *path, int json)
{
    if (!json) {
        fprintf(out, "== session %s ==\n", path);
        return;
    }
    obuf *o = malloc(sizeof *o);
    if (!o) {
        fputs("{\"session\":null}\n", out);
        return;
    }
    ob_init(o, out);
    ob_put(o, "{\"session\":", 11);
    ob_json_string(o, path);
    ob_put(o, "}\n", 2);
    ob_flush(o);
    free(o);
}

/* Runs fn on path, or on every session of a directory of sessions (each
 * introduced by a line naming it), after reporting what was not read whole. */
const atf_tool_format *tool_other_format(const char *path)
{
    char resolved[16];
    atf_error e;
    const atf_format_module *fm = NULL;
    if (!path || tool_path_detect(path, resolved, sizeof resolved, &fm, &e) != ATF_PATH_FORMAT)
        return NULL;
    return tool_format_of(fm);
}

atf_status tool_run(FILE *out, const char *path, const atf_tool_options *opts, tool_source_fn fn,
                           atf_error *err)
{
    atf_tool_options defaults = ATF_TOOL_OPTIONS_INIT;
    if (!opts)
        opts = &defaults;
    char resolved[4096];
    char **list = NULL;
    size_t n = 1;
    atf_error e;
    atf_status st;
    if (atf_path_detect(path, resolved, sizeof resolved, &e) == ATF_PATH_ROOT &&
        (st = atf_session_list(path, &list, &n, err)) != ATF_OK)
        return st;
    atf_status worst = ATF_OK;
    for (size_t i = 0; i < n; i++) {
        const char *p = list ? list[i] : path;
        tool_source src;
        if (list)
            put_session_marker(out, p, opts->json);
        if ((st = tool_source_open(&src, p, opts, list ? &e : err)) != ATF_OK) {
            if (!list || st == ATF_E_NOMEM) {
                if (list && err)
                    *err = e;
                atf_session_list_free(list, n);
                return st;
            }
            tool_diag_error(opts->diag, &e, "session not read");   /* one bad session never costs the others */
            worst = tool_worse(worst, st == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED);
            continue;
        }
        atf_status r = tool_source_report(&src, opts->diag);
        worst = tool_worse(worst, r);
        st = fn(out, &src, opts, err);
        tool_source_close(&src);
        if (st) {
            atf_session_list_free(list, n);
            return st;
        }
    }
    atf_session_list_free(list, n);
    if ((st = finish_output(out, err)) != ATF_OK)
        return st;
    if (worst) {
        atf_fail(err, worst, ATF_NO_OFFSET, NULL,
                 worst == ATF_E_IO ? "some files could not be read (see above); everything else was read"
                                   : "some files are damaged (see above); everything readable was read");
        atf_error_set_file(err, path);
    }
    return worst;
}

