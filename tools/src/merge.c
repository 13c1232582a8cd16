/* `atf merge`: all threads of a session in (timestamp, thread, seq) order. */
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

static atf_status merge_source(FILE *out, const tool_source *sp, const atf_tool_options *opts, atf_error *err)
{
    const tool_source src = *sp;
    atf_status st;
    if (src.kind != ATF_PATH_SESSION) {
        atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "merge needs a session directory");
        atf_error_set_file(err, src.path);
        return ATF_E_ARG;
    }
    if ((st = tool_check_threads(&src, opts, err)) != ATF_OK)
        return st;
    atf_merge *m = NULL;
    dump_out *d = dump_out_create(out, &src, opts);
    if (!d || (st = atf_merge_create(&m, src.session)) != ATF_OK) {
        free(d);
        return atf_fail(err, d ? st : ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    int window = opts && opts->window;
    atf_merged_event me;
    while (!d->o.failed && atf_merge_next(m, &me)) {
        const tool_thread *t = &src.threads[me.thread_index];
        if (!tool_thread_wanted(opts, t->id))
            continue;
        if (window && me.event.timestamp_ns < opts->from_ns)
            continue;
        if (window && me.event.timestamp_ns > opts->to_ns)
            break;   /* the merged stream is in timestamp order */
        dump_event(d, t, me.seq, &me.event);
    }
    atf_merge_destroy(m);
    return dump_out_finish(d, out, err);
}

atf_status atf_tool_merge(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    return tool_run(out, path, opts, merge_source, err);
}

