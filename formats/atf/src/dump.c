/* The work behind `atf info`, `atf dump` and `atf merge`, and path detection. */
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

#include "format_module.h"   /* the other formats: formats/registry.c */
#include "internal.h"
#include "obuf.h"
#include "tools_internal.h"

/* ---- Path detection -------------------------------------------------- */

/* 1 if dir/name is a directory (want_dir) or a regular file, 0 if not,
 * -1 when that could not be found out for lack of memory (errno ENOMEM). */
static int exists_in(const char *dir, const char *name, int want_dir)
{
    char *p = atf_path_join(dir, name);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    struct stat st;
    int r = stat(p, &st);
    int e = errno;
    free(p);
    if (r != 0) {
        errno = e;
        return e == ENOMEM ? -1 : 0;
    }
    return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* 1 when dir/name does not exist at all (ENOENT; not when it cannot be
 * looked at: a directory without permission is no empty thread). */
static int absent_in(const char *dir, const char *name)
{
    char *p = atf_path_join(dir, name);
    if (!p)
        return 0;
    struct stat st;
    int r = lstat(p, &st), e = errno;
    free(p);
    return r != 0 && e == ENOENT;
}

/* Calls fn(user, dir, name) for every directory dir/<prefix>...; stops when
 * fn returns non-zero. @return 0; -1 when dir cannot be read (errno says
 * why); -2 when fn failed or memory ran out. */
static int each_dir(const char *dir, const char *prefix, int (*fn)(void *, const char *, const char *), void *user)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            rc = errno ? -1 : 0;   /* a read error, not the end */
            break;
        }
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        int x = exists_in(dir, e->d_name, 1);
        if (x < 0 || (x > 0 && fn(user, dir, e->d_name) != 0)) {
            rc = -2;
            break;
        }
    }
    int saved = errno;
    closedir(d);
    errno = saved;
    return rc;
}

typedef struct dir_count {
    int n;
    char *last;
    size_t last_cap;
} dir_count;

static int count_one(void *user, const char *dir, const char *name)
{
    dir_count *c = user;
    (void)dir;
    c->n++;
    snprintf(c->last, c->last_cap, "%s", name);
    return 0;
}

/* Counts entries of dir starting with prefix that are directories; keeps
 * the last name. -1 if the directory cannot be read (errno says why). */
static int count_dirs(const char *dir, const char *prefix, char *last, size_t last_cap)
{
    dir_count c = { 0, last, last_cap };
    return each_dir(dir, prefix, count_one, &c) ? -1 : c.n;
}

static uint64_t thread_number(const char *path, int is_file, uint64_t fallback);

atf_path_kind atf_path_detect(const char *path, char *resolved, size_t cap, atf_error *err)
{
    atf_error_clear(err);
    if (!path || !resolved || cap == 0) {
        atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
        return ATF_PATH_UNKNOWN;
    }
    snprintf(resolved, cap, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0) {
        atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "%s", strerror(errno));
        atf_error_set_file(err, path);
        return ATF_PATH_UNKNOWN;
    }
    if (S_ISREG(st.st_mode)) {
        char magic[4] = { 0 };
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot open: %s", strerror(errno));
            atf_error_set_file(err, path);
            return ATF_PATH_UNKNOWN;
        }
        ssize_t k = read(fd, magic, 4);
        int e = errno;
        close(fd);
        if (k < 0) {
            atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot read: %s", strerror(e));
            atf_error_set_file(err, path);
            return ATF_PATH_UNKNOWN;
        }
        /* index.atf / detail.atf too short for the magic but the start of
         * it (empty among them): a crash-left file (SPEC 7a.1, 7a.12). */
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        if (k < 4 && !strcmp(base, "index.atf") && atf_header_prefix_ok(magic, (size_t)k, ATF_INDEX_MAGIC))
            return ATF_PATH_INDEX;
        if (k < 4 && !strcmp(base, "detail.atf") && atf_header_prefix_ok(magic, (size_t)k, ATF_DETAIL_MAGIC))
            return ATF_PATH_DETAIL;
        int other_kind;
        if (atf_format_bid(magic, (size_t)k, path, &other_kind))
            return (atf_path_kind)other_kind;
        /* Any other file too short for the magic but the start of an index
         * file's (empty among them) is what `atf validate` calls it: an index
         * file crash-truncated inside its header, 0 events (SPEC 7a.12), so
         * every command gives a lone file the same state. */
        if (k < 4 && strcmp(base, "detail.atf") != 0 && atf_header_prefix_ok(magic, (size_t)k, ATF_INDEX_MAGIC))
            return ATF_PATH_INDEX;
        if (k == 4 && memcmp(magic, ATF_INDEX_MAGIC, 4) == 0)
            return ATF_PATH_INDEX;
        if (k == 4 && memcmp(magic, ATF_DETAIL_MAGIC, 4) == 0)
            return ATF_PATH_DETAIL;
        atf_fail(err, ATF_E_MAGIC, 0, "magic", "not an ATF file (magic is neither \"ATI2\" nor \"ATD2\")");
        atf_error_set_file(err, path);
        return ATF_PATH_UNKNOWN;
    }
    if (!S_ISDIR(st.st_mode)) {
        atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "%s, not a regular file or directory",
                 atf_file_type_name(st.st_mode));
        atf_error_set_file(err, path);
        return ATF_PATH_UNKNOWN;
    }
    int has_index = exists_in(path, "index.atf", 0);
    int has_manifest = has_index == 0 ? exists_in(path, "manifest.json", 0) : 0;
    if (has_index > 0)
        return ATF_PATH_THREAD;
    if (has_manifest > 0)
        return ATF_PATH_SESSION;
    /* A thread_K/ directory holding neither index.atf nor detail.atf: a
     * thread whose writer was killed before its first file, crash-truncated
     * with 0 events (SPEC 7a.12), alone as inside its session. */
    if (has_index == 0 && thread_number(path, 0, UINT64_MAX) != UINT64_MAX && absent_in(path, "index.atf") &&
        absent_in(path, "detail.atf"))
        return ATF_PATH_THREAD;
    char last[256];
    int threads = has_index < 0 || has_manifest < 0 ? -1 : count_dirs(path, "thread_", last, sizeof last);
    int pids = threads < 0 ? -1 : count_dirs(path, "pid_", last, sizeof last);
    if (threads < 0 || pids < 0) {
        int e = errno;
        atf_fail(err, e == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot read directory: %s",
                 strerror(e));
        atf_error_set_file(err, path);
        return ATF_PATH_UNKNOWN;
    }
    if (threads > 0)
        return ATF_PATH_SESSION;
    if (pids > 1)
        return ATF_PATH_ROOT;
    if (pids == 1) {
        char *p = atf_path_join(path, last);
        if (!p) {
            atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
            return ATF_PATH_UNKNOWN;
        }
        snprintf(resolved, cap, "%s", p);
        free(p);
        return ATF_PATH_SESSION;
    }
    /* An output root: session_X directories holding pid_N sessions. */
    char **list = NULL;
    size_t n = 0;
    atf_status ls = atf_session_list(path, &list, &n, err);
    if (ls == ATF_OK && n == 1)   /* one session under it: that session */
        snprintf(resolved, cap, "%s", list[0]);
    atf_session_list_free(list, n);
    if (ls == ATF_OK && n > 0)
        return n == 1 ? ATF_PATH_SESSION : ATF_PATH_ROOT;
    if (ls != ATF_E_NOT_FOUND)
        return ATF_PATH_UNKNOWN;
    atf_fail(err, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL,
             "directory holds no index.atf, manifest.json, thread_*, pid_* or session_*/pid_* entries");
    atf_error_set_file(err, path);
    return ATF_PATH_UNKNOWN;
}

/* ---- Directories of sessions ----------------------------------------- */

#define MAX_SESSIONS 65536u

typedef struct name_list {
    char **v;
    size_t n, cap;
} name_list;

static int push_name(name_list *l, char *p)
{
    if (!p)
        return -1;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        char **nv = ncap <= MAX_SESSIONS ? realloc(l->v, ncap * sizeof *nv) : NULL;
        if (!nv) {
            free(p);
            return -1;
        }
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = p;
    return 0;
}

static int list_one(void *user, const char *dir, const char *name)
{
    return push_name(user, atf_path_join(dir, name));
}

/* Appends the directories dir/<prefix>... to l. -1 on a read error (errno), -2 out of memory or too many. */
static int list_dirs(const char *dir, const char *prefix, name_list *l)
{
    return each_dir(dir, prefix, list_one, l);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void atf_session_list_free(char **list, size_t count)
{
    for (size_t i = 0; list && i < count; i++)
        free(list[i]);
    free(list);
}

atf_status atf_session_list(const char *path, char ***out, size_t *count, atf_error *err)
{
    atf_error_clear(err);
    if (!path || !out || !count)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    *count = 0;
    name_list pids = { 0 }, sessions = { 0 };
    int has_index = exists_in(path, "index.atf", 0), has_manifest = exists_in(path, "manifest.json", 0);
    int rc = has_index < 0 || has_manifest < 0 ? -2 : 0;
    if (!rc && (has_index > 0 || has_manifest > 0 || (rc = list_dirs(path, "thread_", &pids)) != 0 || pids.n)) {
        /* a session (or a thread directory, which atf_path_detect names) */
        atf_session_list_free(pids.v, pids.n);
        pids = (name_list){ 0 };
        if (!rc && push_name(&pids, atf_strdup(path)) != 0)
            rc = -2;
    } else if (!rc && (rc = list_dirs(path, "pid_", &pids)) == 0 && pids.n == 0 &&
               (rc = list_dirs(path, "session_", &sessions)) == 0) {
        for (size_t i = 0; !rc && i < sessions.n; i++)
            rc = list_dirs(sessions.v[i], "pid_", &pids);
    }
    int e = errno;
    atf_session_list_free(sessions.v, sessions.n);
    if (rc) {
        atf_session_list_free(pids.v, pids.n);
        atf_status code = rc == -1 || (e != 0 && e != ENOMEM) ? ATF_E_IO : ATF_E_NOMEM;
        if (code == ATF_E_IO)
            atf_fail(err, code, ATF_NO_OFFSET, NULL, "cannot read directory: %s", strerror(e));
        else
            atf_fail(err, code, ATF_NO_OFFSET, NULL, "out of memory, or more than %u sessions", MAX_SESSIONS);
        atf_error_set_file(err, path);
        return code;
    }
    if (pids.n == 0) {
        free(pids.v);
        atf_fail(err, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL, "no session in this directory");
        atf_error_set_file(err, path);
        return ATF_E_NOT_FOUND;
    }
    qsort(pids.v, pids.n, sizeof *pids.v, cmp_str);
    *out = pids.v;
    *count = pids.n;
    return ATF_OK;
}

/* ---- Opening a path as threads --------------------------------------- */

/* K of ".../thread_K/file" or ".../thread_K", else fallback. */
static uint64_t thread_number(const char *path, int is_file, uint64_t fallback)
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
    int has = mp ? exists_in(parent, "manifest.json", 0) : -1;
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
    src->kind = atf_path_detect(path, src->path, sizeof src->path, err);
    atf_status st = ATF_OK;
    const atf_format_module *fm = atf_format_of_kind(src->kind);
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
        src->single.id = thread_number(src->path, 1, atf_index_reader_header(src->own_index)->thread_id);
        src->single.index = src->own_index;
        break;
    case ATF_PATH_DETAIL:
        if ((st = atf_detail_reader_open(&src->own_detail, src->path, &ro, err)))
            return st;
        src->single.id = thread_number(src->path, 1, atf_detail_reader_header(src->own_detail)->thread_id);
        src->single.detail = src->own_detail;
        break;
    case ATF_PATH_THREAD: {
        /* As in a session: a lane that cannot be read costs only itself. */
        char *ip = atf_path_join(src->path, "index.atf");
        char *dp = atf_path_join(src->path, "detail.atf");
        atf_error de;
        atf_error_clear(&de);
        atf_status is = ATF_OK, ds = ATF_OK;
        if (!ip || !dp) {
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        } else {
            int no_files = absent_in(src->path, "index.atf") && absent_in(src->path, "detail.atf");
            is = no_files ? ATF_OK : atf_index_reader_open(&src->own_index, ip, &ro, &src->own_error);
            int has_detail = no_files ? 0 : exists_in(src->path, "detail.atf", 0);
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
        src->single.id = thread_number(src->path, 0, tid);
        src->single.dir = src->path;
        src->single.index = src->own_index;
        src->single.detail = src->own_detail;
        if (thread_number(src->path, 0, UINT64_MAX) != UINT64_MAX &&
            (st = load_session_manifest(src, src->path, err)) != ATF_OK) {
            tool_source_close(src);
            return st;
        }
        break;
    }
    case ATF_PATH_SESSION: {
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
    }
    if (src->kind == ATF_PATH_INDEX || src->kind == ATF_PATH_DETAIL) {
        char dir[4096];
        dir_of(src->path, dir, sizeof dir);
        if (thread_number(src->path, 1, UINT64_MAX) != UINT64_MAX &&
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

static atf_status worse(atf_status a, atf_status b)
{
    int ra = a == ATF_E_IO ? 2 : a != ATF_OK, rb = b == ATF_E_IO ? 2 : b != ATF_OK;
    return rb > ra ? b : a;
}

static void diag_error(FILE *diag, const atf_error *e, const char *what)
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
        diag_error(diag, me, "manifest.json not used: the thread directories were read");
        worst = worse(worst, me->code == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED);
    }
    for (size_t i = 0; i < src->thread_count; i++) {
        const tool_thread *t = &src->threads[i];
        if (t->status) {
            snprintf(what, sizeof what, "thread %llu: %s", (unsigned long long)t->id,
                     t->index ? "its detail lane is not read, its index events are"
                     : t->detail ? "its index lane is not read, its detail events are"
                                 : "none of its events are read");
            diag_error(diag, t->error, what);
            worst = worse(worst, t->status == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED);
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
                worst = worse(worst, ATF_E_DAMAGED);
        }
        if (di && di->state != ATF_FILE_COMPLETE) {
            atf_detail_info_describe(what, sizeof what, di);
            if (diag)
                fprintf(diag, "atf: %s: %s\n", atf_detail_reader_path(t->detail), what);
            if (di->state == ATF_FILE_DAMAGED)
                worst = worse(worst, ATF_E_DAMAGED);
        }
    }
    return worst;
}

/* ---- Event lines ----------------------------------------------------- */

/* The keys of a detail object after "{" (shared by nested and lone dumps). */
static void put_detail_fields(obuf *o, const atf_detail_reader *dr, uint64_t dseq, const atf_detail_event *d)
{
    const atf_detail_header *h = atf_detail_reader_header(dr);
    unsigned char *p = ob_room(o, OBUF_SLACK), *p0 = p;
    p = put_lit(p, "\"detail_seq\":");
    p = put_u64(p, dseq);
    p = put_lit(p, ",\"offset\":");
    p = put_u64(p, atf_detail_reader_offset(dr, dseq));
    p = put_lit(p, ",\"total_length\":");
    p = put_u64(p, d->total_length);
    p = put_lit(p, ",\"event_type\":");
    p = put_u64(p, d->event_type);
    p = put_lit(p, ",\"flags\":");
    p = put_u64(p, d->flags);
    p = put_lit(p, ",\"index_seq\":");
    p = put_u64(p, d->index_seq);
    if (h->version == ATF_LAYOUT_1) {
        p = put_lit(p, ",\"thread_id\":");
        p = put_u64(p, d->thread_id);
    }
    p = put_lit(p, ",\"timestamp\":");
    p = put_u64(p, d->timestamp);
    p = put_lit(p, ",\"payload\":\"");
    o->n += (size_t)(p - p0);
    ob_hex(o, d->payload, d->payload_size);
    atf_arm64_payload a;
    if (h->arch == ATF_ARCH_ARM64 &&
        (d->event_type == ATF_DETAIL_FUNCTION_CALL || d->event_type == ATF_DETAIL_FUNCTION_RETURN) &&
        atf_arm64_payload_decode(&a, d->payload, d->payload_size, NULL) == ATF_OK) {
        p = p0 = ob_room(o, OBUF_SLACK + 128);   /* 12 numbers of at most 20 digits and the keys */
        p = put_lit(p, "\",\"arm64\":{\"function_id\":");
        p = put_u64(p, a.function_id);
        p = put_lit(p, ",\"x\":[");
        for (int i = 0; i < 8; i++) {
            p = put_u64(p, a.x[i]);
            *p++ = i < 7 ? ',' : ']';
        }
        p = put_lit(p, ",\"lr\":");
        p = put_u64(p, a.lr);
        p = put_lit(p, ",\"fp\":");
        p = put_u64(p, a.fp);
        p = put_lit(p, ",\"sp\":");
        p = put_u64(p, a.sp);
        p = put_lit(p, ",\"stack_size\":");
        p = put_u64(p, a.stack_size);
        p = put_lit(p, ",\"stack\":\"");
        o->n += (size_t)(p - p0);
        ob_hex(o, a.stack, a.stack_size);
        ob_lit(o, "\"}");
    } else {
        ob_char(o, '"');
    }
}

/* Symbol names by function_id, looked up once per distinct id that lands in
 * a slot (direct-mapped: memory is fixed), with their JSON form when short. */
#define SYMBOL_SLOTS 256
#define SYMBOL_JSON_MAX 120

typedef struct symbol_slot {
    uint64_t function_id;
    const char *name;        /* NULL: no symbol */
    int valid;
    unsigned char json_len;  /* 0: too long, escaped at each use */
    unsigned char json[SYMBOL_JSON_MAX];
} symbol_slot;

typedef struct symbol_cache {
    const atf_manifest *m;
    symbol_slot slot[SYMBOL_SLOTS];
} symbol_cache;

static void symbol_cache_init(symbol_cache *c, const atf_manifest *m)
{
    memset(c, 0, sizeof *c);
    c->m = m;
}

static const symbol_slot *symbol_of(symbol_cache *c, uint64_t function_id)
{
    symbol_slot *s = &c->slot[(function_id ^ function_id >> 8 ^ function_id >> 16) % SYMBOL_SLOTS];
    if (s->valid && s->function_id == function_id)
        return s;
    s->valid = 1;
    s->function_id = function_id;
    s->name = atf_manifest_symbol_name(c->m, function_id);
    s->json_len = 0;
    /* Plain ASCII names without quotes or backslashes are their own JSON. */
    size_t n = 0;
    if (s->name) {
        for (; s->name[n] && n + 2 < SYMBOL_JSON_MAX; n++) {
            unsigned char ch = (unsigned char)s->name[n];
            if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
                break;
        }
        if (!s->name[n] && n + 2 <= SYMBOL_JSON_MAX) {
            s->json[0] = '"';
            memcpy(s->json + 1, s->name, n);
            s->json[n + 1] = '"';
            s->json_len = (unsigned char)(n + 2);
        }
    }
    return s;
}

static void put_symbol_json(obuf *o, const symbol_slot *s)
{
    if (s->json_len)
        ob_put(o, s->json, s->json_len);
    else
        ob_json_string(o, s->name);
}

static void put_index_json(obuf *o, const tool_thread *t, symbol_cache *sc, uint64_t seq, const atf_index_event *e)
{
    atf_layout layout = (atf_layout)atf_index_reader_header(t->index)->version;
    unsigned char *p = ob_room(o, OBUF_SLACK), *p0 = p;
    p = put_lit(p, "{\"thread\":");
    p = put_u64(p, t->id);
    p = put_lit(p, ",\"seq\":");
    p = put_u64(p, seq);
    p = put_lit(p, ",\"timestamp_ns\":");
    p = put_u64(p, e->timestamp_ns);
    p = put_lit(p, ",\"function_id\":");
    p = put_u64(p, e->function_id);
    p = put_lit(p, ",\"event_kind\":");
    p = put_u64(p, e->event_kind);
    p = put_lit(p, ",\"detail_seq\":");
    if (e->detail_seq == ATF_NO_DETAIL)
        p = put_lit(p, "null");
    else
        p = put_u64(p, e->detail_seq);
    if (layout == ATF_LAYOUT_1) {
        p = put_lit(p, ",\"thread_id\":");
        p = put_u64(p, e->thread_id);
        p = put_lit(p, ",\"call_depth\":");
        p = put_u64(p, e->call_depth);
    }
    o->n += (size_t)(p - p0);
    const symbol_slot *sym = symbol_of(sc, e->function_id);
    if (sym->name) {
        ob_lit(o, ",\"symbol\":");
        put_symbol_json(o, sym);
    }
    atf_detail_event d;
    if (t->detail && e->detail_seq != ATF_NO_DETAIL && atf_detail_reader_follow(t->detail, e, &d) == ATF_OK) {
        ob_lit(o, ",\"detail\":{");
        put_detail_fields(o, t->detail, e->detail_seq, &d);
        ob_char(o, '}');
    }
    ob_lit(o, "}\n");
}

static void put_index_text(obuf *o, const tool_thread *t, symbol_cache *sc, uint64_t seq, const atf_index_event *e)
{
    atf_layout layout = (atf_layout)atf_index_reader_header(t->index)->version;
    ob_lit(o, "thread ");
    ob_u64(o, t->id);
    ob_lit(o, " #");
    ob_u64(o, seq);
    ob_lit(o, " t=");
    ob_u64(o, e->timestamp_ns);
    ob_char(o, ' ');
    const char *kind = atf_event_kind_name(e->event_kind);
    size_t kl = strlen(kind);
    ob_put(o, kind, kl);
    for (; kl < 9; kl++)   /* %-9s */
        ob_char(o, ' ');
    ob_lit(o, " fn=");
    ob_hex64(o, e->function_id);
    const symbol_slot *sym = symbol_of(sc, e->function_id);
    if (sym->name) {
        /* Quoted and escaped: a symbol can never break the one-line-per-event form. */
        ob_char(o, ' ');
        put_symbol_json(o, sym);
    }
    if (layout == ATF_LAYOUT_1) {
        ob_lit(o, " tid=");
        ob_u64(o, e->thread_id);
        ob_lit(o, " depth=");
        ob_u64(o, e->call_depth);
    }
    if (e->detail_seq != ATF_NO_DETAIL) {
        atf_detail_event d;
        ob_lit(o, " detail=");
        ob_u64(o, e->detail_seq);
        if (t->detail && atf_detail_reader_follow(t->detail, e, &d) == ATF_OK) {
            ob_lit(o, " [type=");
            ob_u64(o, d.event_type);
            ob_lit(o, " len=");
            ob_u64(o, d.total_length);
            ob_lit(o, " index_seq=");
            ob_u64(o, d.index_seq);
            ob_char(o, ']');
        } else {
            ob_lit(o, " [missing]");
        }
    }
    ob_char(o, '\n');
}

static void dump_lone_detail(obuf *o, const tool_thread *t, int json, const atf_tool_options *opts)
{
    uint64_t n = atf_detail_reader_count(t->detail);
    for (uint64_t i = 0; i < n; i++) {
        atf_detail_event d;
        if (atf_detail_reader_get(t->detail, i, &d) != ATF_OK)
            break;
        if (opts && opts->window && (d.timestamp < opts->from_ns || d.timestamp > opts->to_ns))
            continue;
        if (json) {
            ob_lit(o, "{\"thread\":");
            ob_u64(o, t->id);
            ob_char(o, ',');
            put_detail_fields(o, t->detail, i, &d);
            ob_lit(o, "}\n");
        } else {
            char line[256];
            int k = snprintf(line, sizeof line,
                             "thread %" PRIu64 " detail #%" PRIu64 " t=%" PRIu64 " type=%u flags=0x%x len=%" PRIu32
                             " index_seq=%" PRIu64 "\n",
                             t->id, i, d.timestamp, (unsigned)d.event_type, (unsigned)d.flags, d.total_length,
                             d.index_seq);
            ob_put(o, line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
        }
    }
}

static atf_status finish_output(FILE *out, atf_error *err)
{
    if (fflush(out) != 0 || ferror(out))
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write output: %s", strerror(errno));
    return ATF_OK;
}

/* Progress every 4 Mi events. */
#define PROGRESS_STEP (1u << 22)

/* What dump and merge write events through. */
typedef struct dump_out {
    obuf o;
    symbol_cache sc;
    int json;
    const atf_tool_options *opts;   /* NULL: defaults */
    uint64_t done, total, next_report;
} dump_out;

static dump_out *dump_out_create(FILE *out, const tool_source *src, const atf_tool_options *opts)
{
    dump_out *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    ob_init(&d->o, out);
    symbol_cache_init(&d->sc, src->manifest);
    d->json = opts && opts->json;
    d->opts = opts;
    d->done = d->total = 0;
    d->next_report = PROGRESS_STEP;
    for (size_t i = 0; i < src->thread_count; i++)
        if (src->threads[i].index && tool_thread_wanted(opts, src->threads[i].id))
            d->total += atf_index_reader_count(src->threads[i].index);
    return d;
}

static void dump_event(dump_out *d, const tool_thread *t, uint64_t seq, const atf_index_event *e)
{
    if (d->json)
        put_index_json(&d->o, t, &d->sc, seq, e);
    else
        put_index_text(&d->o, t, &d->sc, seq, e);
    if (++d->done >= d->next_report && d->opts && d->opts->progress) {
        d->opts->progress(d->opts->progress_user, d->done, d->total);
        d->next_report = d->done + PROGRESS_STEP;
    }
}

/* Reports the last progress, flushes, frees, then as finish_output(). */
static atf_status dump_out_finish(dump_out *d, FILE *out, atf_error *err)
{
    if (d->opts && d->opts->progress)
        d->opts->progress(d->opts->progress_user, d->done, d->total);
    int failed = ob_flush(&d->o) != 0;
    free(d);
    if (failed)
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write output: %s", strerror(errno));
    return finish_output(out, err);
}

/* [*first, *last) of t's events inside the window; whole file without one.
 * A file whose timestamps go backwards is filtered event by event (*exact 0). */
static void window_range(const tool_thread *t, const atf_tool_options *opts, uint64_t *first, uint64_t *last,
                         int *exact)
{
    const atf_index_info *in = atf_index_reader_info(t->index);
    *first = 0;
    *last = atf_index_reader_count(t->index);
    *exact = 1;
    if (!opts || !opts->window)
        return;
    if (in->scanned && in->scan.backwards_count == 0)
        atf_index_reader_time_range(t->index, opts->from_ns, opts->to_ns, first, last);
    else
        *exact = 0;
}

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

/* The work of one tool on one opened source (a file, a thread, a session). */
typedef atf_status (*source_fn)(FILE *out, const tool_source *src, const atf_tool_options *opts, atf_error *err);

/* Runs fn on path, or on every session of a directory of sessions (each
 * introduced by a line naming it), after reporting what was not read whole. */
/* A file of another format goes to its module's tools (formats/registry.c):
 * the module, or NULL. */
static const atf_format_module *other_format(const char *path)
{
    char resolved[16];
    atf_error e;
    return path ? atf_format_of_kind(atf_path_detect(path, resolved, sizeof resolved, &e)) : NULL;
}

static atf_status run_tool(FILE *out, const char *path, const atf_tool_options *opts, source_fn fn,
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
            diag_error(opts->diag, &e, "session not read");   /* one bad session never costs the others */
            worst = worse(worst, st == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED);
            continue;
        }
        atf_status r = tool_source_report(&src, opts->diag);
        worst = worse(worst, r);
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

/* ---- The dump on several cores ----------------------------------------
 *
 * The dump writes threads one after the other, each in file order, so its
 * text is a sequence of chunks (a run of one thread's events) that can be
 * formatted independently: jobs - 1 worker threads and this one take
 * chunks in order and format each into a slot's in-memory buffer; this
 * thread writes the slots out in chunk order (formatting the next chunk
 * while the one to write is not ready). The bytes are those of the dump in one thread. Memory is
 * fixed: 2 x jobs + 2 slots, each a buffer for DUMP_CHUNK_EVENTS lines
 * (larger only while a chunk's lines are, by their detail payloads). A
 * thread holding only a detail lane is written by this thread, in turn. */

#define DUMP_CHUNK_EVENTS 512       /* JSON lines average ~350 bytes: a chunk stays in its 256 KiB buffer */

enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };

typedef struct par_slot {
    uint64_t chunk;
    uint64_t lines;   /* events written */
    int state;
    obuf o;           /* in memory */
} par_slot;

typedef struct par_thread {
    uint64_t first, last;   /* events [first, last) (window_range) */
    uint64_t chunk0;        /* its first chunk */
    int exact;
    int lone;               /* a lone detail lane: one chunk, written by the writer */
} par_thread;

typedef struct par_dump {
    const tool_source *src;
    const atf_tool_options *opts;
    int json;
    par_thread *threads;    /* src->thread_count of them */
    uint64_t nchunks, next;
    par_slot **slots;
    size_t nslots;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} par_dump;

typedef struct par_worker {
    par_dump *p;
    pthread_t tid;
    symbol_cache sc;
} par_worker;

/* The thread of chunk c: the last whose first chunk is at most c. */
static size_t par_thread_of(const par_dump *p, uint64_t c)
{
    size_t lo = 0, hi = p->src->thread_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->threads[mid].chunk0 <= c)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void par_format(par_dump *p, par_worker *w, par_slot *s)
{
    size_t i = par_thread_of(p, s->chunk);
    const par_thread *pt = &p->threads[i];
    const tool_thread *t = &p->src->threads[i];
    ob_reset(&s->o);
    s->lines = 0;
    if (pt->lone)
        return;
    uint64_t a = pt->first + (s->chunk - pt->chunk0) * DUMP_CHUNK_EVENTS;
    uint64_t b = pt->last - a > DUMP_CHUNK_EVENTS ? a + DUMP_CHUNK_EVENTS : pt->last;
    for (uint64_t seq = a; seq < b; seq++) {
        atf_index_event e;
        atf_index_reader_get(t->index, seq, &e);
        if (!pt->exact && (e.timestamp_ns < p->opts->from_ns || e.timestamp_ns > p->opts->to_ns))
            continue;
        if (p->json)
            put_index_json(&s->o, t, &w->sc, seq, &e);
        else
            put_index_text(&s->o, t, &w->sc, seq, &e);
        s->lines++;
    }
}

/* Takes the next chunk and formats it, if its slot is free; called and
 * returns with p->mu held. @return 1 if it did, 0 if there was none. */
static int par_take(par_dump *p, par_worker *w)
{
    if (p->stop || p->next >= p->nchunks)
        return 0;
    par_slot *s = p->slots[p->next % p->nslots];
    if (s->state != SLOT_FREE)   /* the writer has not taken it yet */
        return 0;
    s->chunk = p->next++;
    s->state = SLOT_BUSY;
    pthread_mutex_unlock(&p->mu);
    par_format(p, w, s);
    pthread_mutex_lock(&p->mu);
    s->state = SLOT_READY;
    pthread_cond_broadcast(&p->cv);
    return 1;
}

static void *par_work(void *arg)
{
    par_worker *w = arg;
    par_dump *p = w->p;
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->next < p->nchunks)
        if (!par_take(p, w))
            pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void par_free(par_dump *p, size_t nslots)
{
    for (size_t i = 0; i < nslots; i++) {
        ob_release(&p->slots[i]->o);
        free(p->slots[i]);
    }
    free(p->slots);
    free(p->threads);
}

/* The events of d's source through @jobs workers. @return 0; -1 when there
 * was not memory or a thread to start them (nothing was written: the
 * caller dumps in this thread); -2 when a chunk ran out of memory. */
static int par_dump_run(dump_out *d, const tool_source *src, const atf_tool_options *opts, unsigned jobs)
{
    par_dump p = { src, opts, d->json, NULL, 0, 0, NULL, 2 * (size_t)jobs + 2, 0,
                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
    par_worker *w = calloc(jobs, sizeof *w);
    p.threads = calloc(src->thread_count ? src->thread_count : 1, sizeof *p.threads);
    p.slots = calloc(p.nslots, sizeof *p.slots);
    size_t made = 0;
    while (w && p.threads && p.slots && made < p.nslots && (p.slots[made] = malloc(sizeof *p.slots[made])) != NULL) {
        ob_init_mem(&p.slots[made]->o);
        p.slots[made++]->state = SLOT_FREE;
    }
    if (made < p.nslots) {
        par_free(&p, made);
        free(w);
        return -1;
    }
    for (size_t i = 0; i < src->thread_count; i++) {
        const tool_thread *t = &src->threads[i];
        par_thread *pt = &p.threads[i];
        pt->chunk0 = p.nchunks;
        if (!tool_thread_wanted(opts, t->id))
            continue;
        if (!t->index) {
            pt->lone = t->detail != NULL;
            p.nchunks += pt->lone;
            continue;
        }
        window_range(t, opts, &pt->first, &pt->last, &pt->exact);
        p.nchunks += (pt->last - pt->first + DUMP_CHUNK_EVENTS - 1) / DUMP_CHUNK_EVENTS;
    }
    /* w[0] is this thread's. */
    for (unsigned i = 0; i < jobs; i++) {
        w[i].p = &p;
        symbol_cache_init(&w[i].sc, src->manifest);
    }
    unsigned started = 1;
    for (; started < jobs; started++)
        if (pthread_create(&w[started].tid, NULL, par_work, &w[started]) != 0)
            break;
    int rc = 0;
    if (started == 1) {
        rc = -1;
        p.nchunks = 0;
    }
    for (uint64_t c = 0; c < p.nchunks; c++) {
        par_slot *s = p.slots[c % p.nslots];
        pthread_mutex_lock(&p.mu);
        while (s->state != SLOT_READY || s->chunk != c)
            if (!par_take(&p, &w[0]))
                pthread_cond_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
        size_t ti = par_thread_of(&p, c);
        if (p.threads[ti].lone) {
            dump_lone_detail(&d->o, &src->threads[ti], d->json, opts);
        } else if (s->o.failed) {
            rc = -2;
        } else if (ob_flush(&d->o) == 0 && ob_write_mem(&s->o, d->o.f) != 0) {
            d->o.failed = 1;
        }
        d->done += s->lines;
        if (d->done >= d->next_report && opts && opts->progress) {
            opts->progress(opts->progress_user, d->done, d->total);
            d->next_report = d->done + PROGRESS_STEP;
        }
        pthread_mutex_lock(&p.mu);
        s->state = SLOT_FREE;
        if (rc || d->o.failed)
            p.stop = 1;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        if (p.stop)
            break;
    }
    for (unsigned i = 1; i < started; i++)
        pthread_join(w[i].tid, NULL);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    par_free(&p, p.nslots);
    free(w);
    return rc;
}

static atf_status dump_source(FILE *out, const tool_source *sp, const atf_tool_options *opts, atf_error *err)
{
    const tool_source src = *sp;
    atf_status st;
    if ((st = tool_check_threads(&src, opts, err)) != ATF_OK)
        return st;
    dump_out *d = dump_out_create(out, &src, opts);
    if (!d)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    unsigned jobs = tool_jobs(opts, d->total);
    int rc = jobs > 1 ? par_dump_run(d, &src, opts, jobs) : -1;
    if (rc == -2) {
        free(d);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    for (size_t i = 0; rc == -1 && i < src.thread_count && !d->o.failed; i++) {
        const tool_thread *t = &src.threads[i];
        if (!tool_thread_wanted(opts, t->id))
            continue;
        if (!t->index) {
            if (t->detail)   /* the detail lane alone (index.atf missing or unreadable) */
                dump_lone_detail(&d->o, t, d->json, opts);
            continue;
        }
        uint64_t first, last;
        int exact;
        window_range(t, opts, &first, &last, &exact);
        for (uint64_t seq = first; seq < last; seq++) {
            atf_index_event e;
            atf_index_reader_get(t->index, seq, &e);
            if (!exact && (e.timestamp_ns < opts->from_ns || e.timestamp_ns > opts->to_ns))
                continue;
            dump_event(d, t, seq, &e);
        }
    }
    return dump_out_finish(d, out, err);
}

atf_status atf_tool_dump(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    const atf_format_module *fm = other_format(path);
    if (fm)
        return fm->dump(out, path, opts, err);
    return run_tool(out, path, opts, dump_source, err);
}

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
    return run_tool(out, path, opts, merge_source, err);
}

/* ---- info ------------------------------------------------------------ */

static void info_index(FILE *out, const atf_index_reader *r, const char *indent)
{
    char what[256];
    const atf_index_header *h = atf_index_reader_header(r);
    const atf_index_footer *f = atf_index_reader_footer(r);
    const atf_index_info *in = atf_index_reader_info(r);
    fprintf(out, "%sindex %s\n", indent, atf_index_reader_path(r));
    fprintf(out, "%s  layout %u, arch %s, os %s, clock %s, thread_id %" PRIu32 ", flags 0x%" PRIx32 "%s\n",
            indent, (unsigned)h->version, atf_arch_name(h->arch), atf_os_name(h->os),
            atf_clock_name(h->clock_type), h->thread_id, h->flags,
            h->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE ? " (has_detail_file)" : "");
    fprintf(out, "%s  header: event_count %" PRIu64 ", events_offset %" PRIu64 ", footer_offset %" PRIu64
                 ", time %" PRIu64 "..%" PRIu64 "\n",
            indent, h->event_count, h->events_offset, h->footer_offset, h->time_start_ns, h->time_end_ns);
    if (f)
        fprintf(out, "%s  footer @%" PRIu64 ": event_count %" PRIu64 ", bytes_written %" PRIu64
                     ", time %" PRIu64 "..%" PRIu64 ", checksum 0x%08" PRIx32 " (%s)\n",
                indent, in->footer_offset, f->event_count, f->bytes_written, f->time_start_ns,
                f->time_end_ns, f->checksum, atf_checksum_state_name(in->checksum));
    else
        fprintf(out, "%s  %s\n", indent, (atf_index_info_describe(what, sizeof what, in), what));
    fprintf(out, "%s  events: %" PRIu64 "\n", indent, in->event_count);
}

static void info_detail(FILE *out, const atf_detail_reader *r, const char *indent)
{
    char what[256];
    const atf_detail_header *h = atf_detail_reader_header(r);
    const atf_detail_footer *f = atf_detail_reader_footer(r);
    const atf_detail_info *in = atf_detail_reader_info(r);
    fprintf(out, "%sdetail %s\n", indent, atf_detail_reader_path(r));
    fprintf(out, "%s  layout %u, arch %s, os %s, thread_id %" PRIu32 "\n", indent, (unsigned)h->version,
            atf_arch_name(h->arch), atf_os_name(h->os), h->thread_id);
    fprintf(out, "%s  header: event_count %" PRIu64 ", bytes_length %" PRIu64 ", index_seq %" PRIu64 "..%" PRIu64
                 "\n",
            indent, h->event_count, h->bytes_length, h->index_seq_start, h->index_seq_end);
    if (f)
        fprintf(out, "%s  footer @%" PRIu64 ": event_count %" PRIu64 ", bytes_length %" PRIu64
                     ", time %" PRIu64 "..%" PRIu64 ", checksum 0x%08" PRIx32 " (%s)\n",
                indent, in->footer_offset, f->event_count, f->bytes_length, f->time_start_ns, f->time_end_ns,
                f->checksum, atf_checksum_state_name(in->checksum));
    else
        fprintf(out, "%s  %s\n", indent, (atf_detail_info_describe(what, sizeof what, in), what));
    fprintf(out, "%s  events: %" PRIu64 "\n", indent, in->event_count);
}

static atf_status info_source(FILE *out, const tool_source *src_, const atf_tool_options *opts, atf_error *err)
{
    const tool_source src = *src_;
    (void)opts;
    (void)err;
    if (src.kind == ATF_PATH_SESSION) {
        const atf_manifest *m = src.manifest;
        fprintf(out, "session %s: %zu thread(s)\n", src.path, src.thread_count);
        if (m)
            fprintf(out, "manifest: format_version \"%s\", time %" PRIu64 "..%" PRIu64
                         ", %zu module(s), %zu symbol(s), %zu timing anchor(s), events_dropped %" PRIu64 "\n",
                    m->format_version, m->time_start_ns, m->time_end_ns, m->module_count, m->symbol_count,
                    m->anchor_count, m->events_dropped);
        for (size_t i = 0; i < atf_session_warning_count(src.session); i++)
            fprintf(out, "warning: %s\n", atf_session_warning(src.session, i));
    }
    for (size_t i = 0; i < src.thread_count; i++) {
        const tool_thread *t = &src.threads[i];
        const char *indent = src.thread_count > 1 || src.kind == ATF_PATH_SESSION ? "  " : "";
        if (src.kind == ATF_PATH_SESSION || src.kind == ATF_PATH_THREAD)
            fprintf(out, "%sthread %" PRIu64 "\n", indent, t->id);
        if (t->status) {
            char line[1024];
            atf_error_format(line, sizeof line, t->error);
            fprintf(out, "%s  not read: %s\n", indent, line);
        }
        if (t->index)
            info_index(out, t->index, indent);
        if (t->detail)
            info_detail(out, t->detail, indent);
    }
    return ATF_OK;
}

atf_status atf_tool_info(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    const atf_format_module *fm = other_format(path);
    if (fm)
        return fm->info(out, path, opts, err);
    return run_tool(out, path, opts, info_source, err);
}
