/* A path opened as a list of threads (tool_source, tools_internal.h), and
 * what of it was not read whole. */
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

#include "format_module.h"
#include "internal.h"
#include "tools_internal.h"


/* K of ".../thread_K/file" or ".../thread_K", else fallback. */
uint64_t tool_thread_number(const char *path, int is_file, uint64_t fallback)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    if (is_file) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            return fallback;
        *slash = '\0';
    }
    const char *base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    if (strncmp(base, "thread_", 7) != 0 || !base[7])
        return fallback;
    uint64_t v = 0;
    for (const char *p = base + 7; *p; p++) {
        if (*p < '0' || *p > '9')
            return fallback;
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return fallback;
        v = v * 10 + d;
    }
    return v;
}

/* For a thread directory (or a file in one) inside a session, the session's
 * manifest gives symbol names. A missing or unreadable manifest is ignored:
 * the thread's own files are what is being read; running out of memory is
 * not (the output would lose its symbols): ATF_E_NOMEM. */
static atf_status load_session_manifest(tool_source *src, const char *thread_dir, atf_error *err)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", thread_dir);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    char *slash = strrchr(buf, '/');
    const char *parent = ".";
    if (slash) {
        *slash = '\0';
        parent = slash == buf ? "/" : buf;
    }
    char *mp = atf_path_join(parent, "manifest.json");
    int has = mp ? tool_exists_in(parent, "manifest.json", 0) : -1;
    atf_status st = has < 0 ? ATF_E_NOMEM : ATF_OK;
    if (has > 0) {
        st = atf_manifest_load(&src->own_manifest, mp, NULL);
        if (st == ATF_OK)
            src->manifest = src->own_manifest;
        else if (st != ATF_E_NOMEM)
            st = ATF_OK;
    }
    free(mp);
    return st == ATF_OK ? ATF_OK : atf_fail(err, st, ATF_NO_OFFSET, NULL, "out of memory reading the session manifest");
}

/* Directory part of a file path ("." for a bare name). */
static void dir_of(const char *path, char *dst, size_t cap)
{
    snprintf(dst, cap, "%s", path);
    char *slash = strrchr(dst, '/');
    if (!slash)
        snprintf(dst, cap, ".");
    else if (slash == dst)
        dst[1] = '\0';
    else
        *slash = '\0';
}

/* A thread directory, read as in a session: a lane that cannot be read
 * costs only itself. */
static atf_status source_open_thread(tool_source *src, const atf_read_options *ro_, atf_error *err)
{
    atf_read_options ro = *ro_;
    atf_status st = ATF_OK;
    char *ip = atf_path_join(src->path, "index.atf");
    char *dp = atf_path_join(src->path, "detail.atf");
    atf_error de;
    atf_error_clear(&de);
    atf_status is = ATF_OK, ds = ATF_OK;
    if (!ip || !dp) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    } else {
        int no_files = tool_absent_in(src->path, "index.atf") && tool_absent_in(src->path, "detail.atf");
        is = no_files ? ATF_OK : atf_index_reader_open(&src->own_index, ip, &ro, &src->own_error);
        int has_detail = no_files ? 0 : tool_exists_in(src->path, "detail.atf", 0);
        if (has_detail < 0)
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        else if (has_detail > 0 || (has_detail == 0 && access(dp, F_OK) == 0))
            ds = atf_detail_reader_open(&src->own_detail, dp, &ro, &de);
        if (!ds && src->own_detail && src->own_index && atf_detail_reader_info(src->own_detail)->layout &&
            atf_index_reader_info(src->own_index)->layout &&
            atf_detail_reader_info(src->own_detail)->layout != atf_index_reader_info(src->own_index)->layout) {
            ds = atf_fail(&de, ATF_E_LAYOUT, 5, "version", "detail.atf and index.atf have different layouts");
            atf_error_set_file(&de, dp);
            atf_detail_reader_close(src->own_detail);
            src->own_detail = NULL;
        }
        if (is == ATF_E_NOMEM || ds == ATF_E_NOMEM)
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        else if (!src->own_index && !src->own_detail && !no_files) {
            st = is;   /* nothing readable: the index's error is the answer */
            if (err)
                *err = src->own_error;
        }
        if (!is && ds)
            src->own_error = de;
    }
    free(ip);
    free(dp);
    if (st) {
        tool_source_close(src);
        return st;
    }
    src->single.status = is ? is : ds;
    src->single.error = src->single.status ? &src->own_error : NULL;
    uint32_t tid = src->own_index    ? atf_index_reader_header(src->own_index)->thread_id
                   : src->own_detail ? atf_detail_reader_header(src->own_detail)->thread_id
                                     : 0;   /* no file yet: the directory's name gives the id */
    src->single.id = tool_thread_number(src->path, 0, tid);
    src->single.dir = src->path;
    src->single.index = src->own_index;
    src->single.detail = src->own_detail;
    if (tool_thread_number(src->path, 0, UINT64_MAX) != UINT64_MAX &&
        (st = load_session_manifest(src, src->path, err)) != ATF_OK) {
        tool_source_close(src);
        return st;
    }
    return ATF_OK;
}

/* A session directory: its threads as the session reader found them. */
static atf_status source_open_session(tool_source *src, const atf_read_options *ro_, atf_error *err)
{
    atf_read_options ro = *ro_;
    atf_status st;
    if ((st = atf_session_open(&src->session, src->path, &ro, err)))
        return st;
    size_t n = atf_session_thread_count(src->session);
    src->session_threads = calloc(n ? n : 1, sizeof *src->session_threads);
    if (!src->session_threads) {
        tool_source_close(src);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        const atf_session_thread *t = atf_session_thread_at(src->session, i);
        src->session_threads[i] =
            (tool_thread){ t->id, t->dir, t->index, t->detail, t->status, t->status ? &t->error : NULL };
    }
    src->threads = src->session_threads;
    src->thread_count = n;
    src->manifest = atf_session_manifest(src->session);
    return ATF_OK;
}

atf_status tool_source_open(tool_source *src, const char *path, const atf_tool_options *opts,
                            atf_error *err)
{
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    atf_error local;
    if (!err)
        err = &local;   /* the kind of failure is needed below */
    memset(src, 0, sizeof *src);
    if (opts && opts->no_verify)
        ro.verify = 0;
    const atf_format_module *fm = NULL;
    src->kind = tool_path_detect(path, src->path, sizeof src->path, &fm, err);
    atf_status st = ATF_OK;
    if (fm) {
        atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "a %s file: merge and export read ATF sessions", fm->name);
        atf_error_set_file(err, path);
        return ATF_E_ARG;
    }
    switch (src->kind) {
    case ATF_PATH_UNKNOWN:
        return err->code;
    case ATF_PATH_ROOT:
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "a directory of sessions: read one session at a time");
    default:   /* the kind of another format's module: refused above */
        return ATF_E_ARG;
    case ATF_PATH_INDEX:
        if ((st = atf_index_reader_open(&src->own_index, src->path, &ro, err)))
            return st;
        src->single.id = tool_thread_number(src->path, 1, atf_index_reader_header(src->own_index)->thread_id);
        src->single.index = src->own_index;
        break;
    case ATF_PATH_DETAIL:
        if ((st = atf_detail_reader_open(&src->own_detail, src->path, &ro, err)))
            return st;
        src->single.id = tool_thread_number(src->path, 1, atf_detail_reader_header(src->own_detail)->thread_id);
        src->single.detail = src->own_detail;
        break;
    case ATF_PATH_THREAD:
        if ((st = source_open_thread(src, &ro, err)))
            return st;
        break;
    case ATF_PATH_SESSION:
        return source_open_session(src, &ro, err);
    }
    if (src->kind == ATF_PATH_INDEX || src->kind == ATF_PATH_DETAIL) {
        char dir[4096];
        dir_of(src->path, dir, sizeof dir);
        if (tool_thread_number(src->path, 1, UINT64_MAX) != UINT64_MAX &&
            (st = load_session_manifest(src, dir, err)) != ATF_OK) {
            tool_source_close(src);
            return st;
        }
    }
    src->threads = &src->single;
    src->thread_count = 1;
    return ATF_OK;
}

void tool_source_close(tool_source *src)
{
    atf_session_close(src->session);
    atf_index_reader_close(src->own_index);
    atf_detail_reader_close(src->own_detail);
    atf_manifest_free(src->own_manifest);
    free(src->session_threads);
    memset(src, 0, sizeof *src);
}

/* ---- What was not read whole ------------------------------------------ */

atf_status tool_worse(atf_status a, atf_status b)
{
    int ra = a == ATF_E_IO ? 2 : a != ATF_OK, rb = b == ATF_E_IO ? 2 : b != ATF_OK;
    return rb > ra ? b : a;
}

void tool_diag_error(FILE *diag, const atf_error *e, const char *what)
{
    char line[1024];
    atf_error_format(line, sizeof line, e);
    if (diag)
        fprintf(diag, "atf: error: %s (%s)\n", line, what);
}

atf_status tool_source_report(const tool_source *src, FILE *diag)
{
    atf_status worst = ATF_OK;
    char what[256];
    const atf_error *me = src->session ? atf_session_manifest_error(src->session) : NULL;
    if (me) {
        tool_diag_error(diag, me, "manifest.json not used: the thread directories were read");
        worst = tool_worse(worst, me->code == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED);
    }
    const char *mnote = src->session ? atf_session_manifest_note(src->session) : NULL;
    if (mnote && diag)   /* SPEC 7a.14: crash-left, read as absent (a warning, not damage) */
        fprintf(diag, "atf: %s\n", mnote);
    for (size_t i = 0; i < src->thread_count; i++) {
        const tool_thread *t = &src->threads[i];
        if (t->status) {
            snprintf(what, sizeof what, "thread %llu: %s", (unsigned long long)t->id,
                     t->index ? "its detail lane is not read, its index events are"
                     : t->detail ? "its index lane is not read, its detail events are"
                                 : "none of its events are read");
            tool_diag_error(diag, t->error, what);
            worst = tool_worse(worst, t->status == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED);
        }
        if (!t->status && !t->index && !t->detail && t->dir && diag)
            fprintf(diag, "atf: %s: crash-truncated (the thread directory holds no file yet): 0 events\n", t->dir);
        const atf_index_info *ii = t->index ? atf_index_reader_info(t->index) : NULL;
        const atf_detail_info *di = t->detail ? atf_detail_reader_info(t->detail) : NULL;
        if (ii && ii->state != ATF_FILE_COMPLETE) {
            atf_index_info_describe(what, sizeof what, ii);
            if (diag)
                fprintf(diag, "atf: %s: %s\n", atf_index_reader_path(t->index), what);
            if (ii->state == ATF_FILE_DAMAGED)
                worst = tool_worse(worst, ATF_E_DAMAGED);
        }
        if (di && di->state != ATF_FILE_COMPLETE) {
            atf_detail_info_describe(what, sizeof what, di);
            if (diag)
                fprintf(diag, "atf: %s: %s\n", atf_detail_reader_path(t->detail), what);
            if (di->state == ATF_FILE_DAMAGED)
                worst = tool_worse(worst, ATF_E_DAMAGED);
        }
    }
    return worst;
}

