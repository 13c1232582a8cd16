/* Session reader: manifest.json + thread_<id>/{index,detail}.atf. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <atf/session.h>

#include "internal.h"

#define MAX_WARNINGS 64
#define MAX_THREADS  (1u << 20)

struct atf_session {
    char *dir;
    atf_manifest *manifest;
    atf_status manifest_status;   /* why manifest.json could not be used, or ATF_OK */
    atf_error manifest_error;
    const char *manifest_note;    /* a crash-left manifest read as absent: one of warnings[] */
    size_t unreadable;            /* threads with status != ATF_OK */
    atf_session_thread *threads;
    size_t thread_count, thread_cap;
    char *warnings[MAX_WARNINGS];
    size_t warning_count;
};

static void warn(atf_session *s, const char *fmt, ...) ATF_PRINTF(2, 3);
static void warn(atf_session *s, const char *fmt, ...)
{
    if (s->warning_count >= MAX_WARNINGS)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->warnings[s->warning_count] = atf_strdup(buf);
    if (s->warnings[s->warning_count])
        s->warning_count++;
}

/* 1: a regular file; 0: nothing there; -1: something else is there, or it
 * cannot be found out (err says which: not a regular file, permission, ...). */
static int regular_file(const char *path, atf_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        int e = errno;
        atf_fail(err, e == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot access: %s", strerror(e));
        atf_error_set_file(err, path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "%s, not a regular file", atf_file_type_name(st.st_mode));
        atf_error_set_file(err, path);
        return -1;
    }
    return 1;
}

static int empty_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size == 0;
}

static atf_session_thread *find_thread(atf_session *s, uint64_t id)
{
    for (size_t i = 0; i < s->thread_count; i++)
        if (s->threads[i].id == id)
            return &s->threads[i];
    return NULL;
}

static atf_status add_thread(atf_session *s, uint64_t id, int manifest_has_detail, int listed, atf_error *err)
{
    if (s->thread_count == s->thread_cap) {
        size_t ncap = s->thread_cap ? s->thread_cap * 2 : 8;
        if (ncap > MAX_THREADS)
            return atf_fail(err, ATF_E_LIMIT, ATF_NO_OFFSET, NULL, "more than %u threads", MAX_THREADS);
        atf_session_thread *n = realloc(s->threads, ncap * sizeof *n);
        if (!n)
            return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        s->threads = n;
        s->thread_cap = ncap;
    }
    char name[40];
    snprintf(name, sizeof name, "thread_%llu", (unsigned long long)id);
    atf_session_thread *t = &s->threads[s->thread_count];
    memset(t, 0, sizeof *t);
    t->id = id;
    t->manifest_has_detail = manifest_has_detail;
    t->listed = listed;
    t->dir = atf_path_join(s->dir, name);
    if (!t->dir)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    s->thread_count++;
    return ATF_OK;
}

/* Adds thread directories that the manifest does not list (or all of them
 * when there is no manifest). */
static atf_status discover(atf_session *s, atf_error *err)
{
    DIR *d = opendir(s->dir);
    if (!d) {
        int e = errno;   /* opendir() allocates: ENOMEM is not an I/O error */
        return atf_fail(err, e == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot read directory: %s",
                        strerror(e));
    }
    atf_status st = ATF_OK;
    struct dirent *e;
    while (!st && (e = readdir(d)) != NULL) {
        uint64_t id;
        if (!atf_thread_dir_id(e->d_name, &id) || find_thread(s, id))
            continue;
        char *p = atf_path_join(s->dir, e->d_name);
        struct stat sb;
        int is_dir = p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
        free(p);
        if (!is_dir)
            continue;
        if (s->manifest)
            warn(s, "%s: directory %s is not listed in manifest.json", s->dir, e->d_name);
        st = add_thread(s, id, -1, 0, err);
    }
    closedir(d);
    return st;
}

static int cmp_thread(const void *a, const void *b)
{
    const atf_session_thread *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Opens one thread's files. A file that cannot be read is recorded in the
 * thread (status, error) and the rest goes on: one bad file never costs the
 * others (BH-002). Only running out of memory stops the session. A detail
 * file is still read when the index file is not. */
static atf_status open_thread(atf_session *s, atf_session_thread *t, const atf_read_options *opts,
                              atf_error *err)
{
    char *ip = atf_path_join(t->dir, "index.atf");
    char *dp = atf_path_join(t->dir, "detail.atf");
    atf_status st = ATF_OK;
    atf_error *te = &t->error;
    if (!ip || !dp) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        goto out;
    }
    int hi = regular_file(ip, te);
    if (hi == 0 && !t->listed && regular_file(dp, NULL) == 0) {
        /* SPEC 7a.12: killed between creating the directory and its index.atf. */
        warn(s, "%s: crash-truncated (the thread directory holds no file yet): 0 events", t->dir);
        goto out;
    }
    if (hi == 0) {
        char other[200], hint[300] = "";
        if (atf_thread_dir_misnamed(s->dir, t->id, other, sizeof other))
            snprintf(hint, sizeof hint, " (a directory %s/ is there: rename it thread_%llu/)", other,
                     (unsigned long long)t->id);
        t->status = atf_fail(te, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL, "thread %llu has no index.atf%s",
                             (unsigned long long)t->id, hint);
        atf_error_set_file(te, ip);
    } else if (hi < 0) {
        t->status = te->code;
    } else {
        t->status = atf_index_reader_open(&t->index, ip, opts, te);
    }
    atf_error de;
    atf_error_clear(&de);
    int hd = regular_file(dp, &de);
    atf_status ds = hd < 0 ? de.code : hd > 0 ? atf_detail_reader_open(&t->detail, dp, opts, &de) : ATF_OK;
    if (!ds && t->detail && t->index) {
        const atf_detail_info *di = atf_detail_reader_info(t->detail);
        const atf_index_info *ii = atf_index_reader_info(t->index);
        if (di->layout && ii->layout && di->layout != ii->layout) {
            ds = atf_fail(&de, ATF_E_LAYOUT, 5, "version", "detail.atf is layout %d but index.atf is layout %d",
                          (int)di->layout, (int)ii->layout);
            atf_error_set_file(&de, dp);
            atf_detail_reader_close(t->detail);
            t->detail = NULL;
        }
    }
    if (ds && !t->status) {
        t->status = ds;
        *te = de;
    }
    if (t->status == ATF_E_NOMEM || ds == ATF_E_NOMEM) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        goto out;
    }
    if (t->status)
        s->unreadable++;
    if (t->manifest_has_detail == 1 && hd == 0)
        warn(s, "%s: manifest says has_detail but there is no detail.atf", t->dir);
    if (t->manifest_has_detail == 0 && hd > 0)
        warn(s, "%s: manifest says no detail but detail.atf exists", t->dir);
out:
    free(ip);
    free(dp);
    return st;
}

atf_status atf_session_open(atf_session **out, const char *dir, const atf_read_options *opts,
                            atf_error *err)
{
    atf_error_clear(err);
    if (!out || !dir)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_session *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = atf_strdup(dir))) {
        free(s);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    atf_status st = ATF_OK;
    char *mp = atf_path_join(dir, "manifest.json");
    int hm = mp ? regular_file(mp, &s->manifest_error) : -1;
    int crash_left = 0;   /* an empty or cut manifest.json: a session, even with no thread yet */
    if (!mp) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    } else if (hm > 0 && empty_file(mp)) {
        /* SPEC 7a.14: a writer killed while it wrote manifest.json. */
        crash_left = 1;
        warn(s, "%s: manifest.json is empty (a crash while it was being written); thread directories were "
                "discovered", dir);
        s->manifest_note = s->warning_count ? s->warnings[s->warning_count - 1] : NULL;
    } else if (hm > 0) {
        /* A manifest that cannot be read or parsed is reported, and the
         * thread directories are read all the same. */
        atf_manifest_cut cut;
        s->manifest_status = atf_manifest_load_session(&s->manifest, mp, &cut, &s->manifest_error);
        if (s->manifest_status == ATF_E_NOMEM)
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        if (!s->manifest_status && cut.cut) {
            /* SPEC 7a.14: a power cut while it was being replaced (a
             * proper prefix of a JSON object, then zeros): as if absent. */
            crash_left = 1;
            warn(s, "%s: manifest.json is crash-truncated (cut at byte %zu of %llu: the start of a JSON object%s); "
                    "read as absent, thread directories were discovered",
                 dir, cut.text_len, (unsigned long long)cut.size, cut.text_len < cut.size ? ", then zeros" : "");
            s->manifest_note = s->warning_count ? s->warnings[s->warning_count - 1] : NULL;
        }
        for (size_t i = 0; !st && s->manifest && i < s->manifest->thread_count; i++)
            st = add_thread(s, s->manifest->threads[i].id, s->manifest->threads[i].has_detail, 1, err);
    } else if (hm < 0) {
        s->manifest_status = s->manifest_error.code;
        if (s->manifest_status == ATF_E_NOMEM)
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    } else {
        warn(s, "%s: no manifest.json; thread directories were discovered", dir);
    }
    free(mp);
    if (!st)
        st = discover(s, err);
    /* No thread and no manifest is no session, unless the manifest is there
     * but empty or cut: killed before any thread started (SPEC 7a.12, 7a.14; the
     * validator reads it so too: SES-MAN-001, SES-MAN-011). */
    if (!st && s->thread_count == 0 && !s->manifest && !crash_left) {
        if (s->manifest_status) {
            if (err)   /* nothing else to read: the manifest's problem is the answer */
                *err = s->manifest_error;
            st = s->manifest_status;
        } else {
            st = atf_fail(err, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL,
                          "neither manifest.json nor thread_* directories found");
        }
    }
    if (!st && s->thread_count)
        qsort(s->threads, s->thread_count, sizeof *s->threads, cmp_thread);
    for (size_t i = 0; !st && i < s->thread_count; i++)
        st = open_thread(s, &s->threads[i], opts, err);
    if (st) {
        if (err && !err->file[0])
            atf_error_set_file(err, dir);
        atf_session_close(s);
        return st;
    }
    *out = s;
    return ATF_OK;
}

void atf_session_close(atf_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->thread_count; i++) {
        atf_index_reader_close(s->threads[i].index);
        atf_detail_reader_close(s->threads[i].detail);
        free(s->threads[i].dir);
    }
    for (size_t i = 0; i < s->warning_count; i++)
        free(s->warnings[i]);
    free(s->threads);
    atf_manifest_free(s->manifest);
    free(s->dir);
    free(s);
}

const char *atf_session_manifest_note(const atf_session *s) { return s ? s->manifest_note : NULL; }
size_t atf_session_thread_count(const atf_session *s) { return s ? s->thread_count : 0; }
size_t atf_session_unreadable_count(const atf_session *s) { return s ? s->unreadable : 0; }
const atf_error *atf_session_manifest_error(const atf_session *s)
{
    return s && s->manifest_status ? &s->manifest_error : NULL;
}
const atf_session_thread *atf_session_thread_at(const atf_session *s, size_t i)
{
    return s && i < s->thread_count ? &s->threads[i] : NULL;
}
const atf_manifest *atf_session_manifest(const atf_session *s) { return s ? s->manifest : NULL; }
size_t atf_session_warning_count(const atf_session *s) { return s ? s->warning_count : 0; }
const char *atf_session_warning(const atf_session *s, size_t i)
{
    return s && i < s->warning_count ? s->warnings[i] : NULL;
}
