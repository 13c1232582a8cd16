/* Path detection (atf_path_detect()): what a path is, an ATF file or
 * directory or a file of another format of the registry. */
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
#include "tool_format.h"
#include "tools_internal.h"


/* 1 if dir/name is a directory (want_dir) or a regular file, 0 if not,
 * -1 when that could not be found out for lack of memory (errno ENOMEM). */
int tool_exists_in(const char *dir, const char *name, int want_dir)
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
int tool_absent_in(const char *dir, const char *name)
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
int tool_each_dir(const char *dir, const char *prefix, int (*fn)(void *, const char *, const char *), void *user)
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
        int x = tool_exists_in(dir, e->d_name, 1);
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
    return tool_each_dir(dir, prefix, count_one, &c) ? -1 : c.n;
}


atf_path_kind tool_path_detect(const char *path, char *resolved, size_t cap, const atf_format_module **fm,
                               atf_error *err)
{
    atf_error_clear(err);
    if (fm)
        *fm = NULL;
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
        const atf_format_module *other = atf_format_bid(magic, (size_t)k, path, NULL);
        if (other) {
            if (fm)
                *fm = other;
            return ATF_PATH_FORMAT;
        }
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
    int has_index = tool_exists_in(path, "index.atf", 0);
    int has_manifest = has_index == 0 ? tool_exists_in(path, "manifest.json", 0) : 0;
    if (has_index > 0)
        return ATF_PATH_THREAD;
    if (has_manifest > 0)
        return ATF_PATH_SESSION;
    /* A thread_K/ directory holding neither index.atf nor detail.atf: a
     * thread whose writer was killed before its first file, crash-truncated
     * with 0 events (SPEC 7a.12), alone as inside its session. */
    if (has_index == 0 && tool_thread_number(path, 0, UINT64_MAX) != UINT64_MAX && tool_absent_in(path, "index.atf") &&
        tool_absent_in(path, "detail.atf"))
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


atf_path_kind atf_path_detect(const char *path, char *resolved, size_t cap, atf_error *err)
{
    return tool_path_detect(path, resolved, cap, NULL, err);
}

const char *atf_path_format(const char *path)
{
    char resolved[16];
    atf_error e;
    const atf_format_module *fm = NULL;
    if (!path || tool_path_detect(path, resolved, sizeof resolved, &fm, &e) != ATF_PATH_FORMAT)
        return NULL;
    return fm->name;
}
