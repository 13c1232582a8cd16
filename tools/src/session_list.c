/* Directories of sessions: atf_session_list(). */
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

#include "internal.h"
#include "tools_internal.h"

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
    return tool_each_dir(dir, prefix, list_one, l);
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
    int has_index = tool_exists_in(path, "index.atf", 0), has_manifest = tool_exists_in(path, "manifest.json", 0);
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

