/* ATF's directories: threads (both lanes and the cross-lane clauses of
 * SPEC.md section 4), sessions (section 5 and GEN-LAY-002), a directory
 * holding one session, and roots of sessions. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <atf/tools.h>

#include "atf_pass.h"
#include "common.h"      /* the codec's: atf_blob */
#include "internal.h"    /* the codec's: atf_thread_dir_misnamed */
#include "manifest_check.h"
#include "manifest_prefix.h"   /* the codec's: atf_manifest_json_cut */

#define MANIFEST_MAX_BYTES ((uint64_t)64 << 20)
#define MAX_THREADS ((size_t)1 << 20)

/* ---- One thread ------------------------------------------------------------ */

/* The index file of a thread and LINK-005 (its flag against the detail file). */
static void thread_index(atf_validation *v, const char *label_prefix, const uint8_t *idx, uint64_t isize,
                         uint64_t idata_end, int det_present, vthread_summary *out)
{
    char *label = v_cat3(label_prefix, "index.atf", "");
    if (!label) {
        v->oom = 1;
        return;
    }
    out->index_file = v_file(v, label);
    free(label);
    vindex *ix = &out->ix;
    v_index_pass(v, out->index_file, idx, isize, idata_end, 1, det_present, ix);
    if (ix->header_ok && ix->finalized) {
        v_check(v, C_LINK_005);
        int flag = (ix->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE) != 0;
        if (flag != (det_present != 0))
            v_report(v, out->index_file, C_LINK_005, 0, 8, "flags",
                     flag ? "has_detail_file is set but the thread has no detail.atf"
                          : "has_detail_file is clear but the thread has a detail.atf");
    }
}

atf_status v_thread(atf_validation *v, const char *label_prefix, const uint8_t *idx, uint64_t isize,
                    uint64_t idata_end, int det_present, const uint8_t *det, uint64_t dsize, uint64_t ddata_end,
                    vthread_summary *out)
{
    memset(out, 0, sizeof *out);
    out->index_file = (size_t)-1;
    vindex *ix = &out->ix;
    if (idx)
        thread_index(v, label_prefix, idx, isize, idata_end, det_present, out);
    if (!det_present || v->oom)
        return v->oom ? ATF_E_NOMEM : ATF_OK;
    char *label = v_cat3(label_prefix, "detail.atf", "");
    if (!label)
        return ATF_E_NOMEM;
    size_t df = v_file(v, label);
    free(label);
    const int links = idx && ix->usable;
    uint64_t *bits = NULL, confirmed = 0;
    if (links && ix->linked) {
        /* One bit per index event: bounded by the index file's size / 256. */
        bits = calloc((size_t)((ix->n + 63) / 64), sizeof *bits);
        if (!bits)
            return ATF_E_NOMEM;
    }
    vdetail dt;
    v_detail_pass(v, df, det, dsize, ddata_end, links ? ix : NULL, bits, &confirmed, &dt);
    if (links && dt.usable) {
        v_check(v, C_LINK_001);
        v_check(v, C_LINK_002);
        if (confirmed < ix->linked)
            v_index_forward_links(v, out->index_file, ix, &dt, bits);
    }
    free(bits);
    if (idx && ix->header_ok && dt.header_ok) {
        v_check(v, C_GEN_LAY_001);
        if (dt.layout != ix->layout)
            v_report(v, df, C_GEN_LAY_001, 0, 5, "version", "detail.atf is layout %d but index.atf is layout %d",
                     (int)dt.layout, (int)ix->layout);
        v_check(v, C_LINK_008);
        if (dt.thread_id != ix->thread_id)
            v_report(v, df, C_LINK_008, 0, 12, "thread_id",
                     "thread_id is %" PRIu32 " but index.atf's header says %" PRIu32, dt.thread_id, ix->thread_id);
    }
    return v->oom ? ATF_E_NOMEM : ATF_OK;
}

/* Maps and validates thread directory tdir; findings name its files with
 * label_prefix. has_detail_out: whether detail.atf exists. */
static atf_status thread_dir(atf_validation *v, const char *tdir, const char *label_prefix, vthread_summary *out,
                             int *has_index_out, int *has_detail_out, atf_error *err)
{
    char *ip = atf_path_join(tdir, "index.atf"), *dp = atf_path_join(tdir, "detail.atf");
    atf_status st = ATF_OK;
    atf_blob im, dm;
    memset(&im, 0, sizeof im);
    memset(&dm, 0, sizeof dm);
    if (!ip || !dp) {
        st = atf_fail_file(err, ATF_E_NOMEM, tdir, NULL);
        goto out;
    }
    int has_index = v_regular_or_absent(ip, err), has_detail = has_index < 0 ? -1 : v_regular_or_absent(dp, err);
    if (has_index < 0 || has_detail < 0) {
        st = err ? err->code : ATF_E_IO;
        goto out;
    }
    *has_index_out = has_index;
    *has_detail_out = has_detail;
    if (has_index && (st = atf_blob_open(&im, ip, 0, err))) {
        atf_error_set_file(err, ip);
        goto out;
    }
    if (has_detail && (st = atf_blob_open(&dm, dp, 0, err))) {
        atf_error_set_file(err, dp);
        goto out;
    }
    st = v_thread(v, label_prefix, has_index ? im.data : NULL, im.size, im.data_end, has_detail, dm.data, dm.size,
                  dm.data_end, out);
    if (st)
        atf_fail_file(err, st, tdir, NULL);
out:
    atf_blob_close(&im);
    atf_blob_close(&dm);
    free(ip);
    free(dp);
    return st;
}

/* ---- Sessions ---------------------------------------------------------------- */

typedef struct sthread {
    uint64_t id;
    int listed;              /* in the manifest */
    size_t man_index;        /* threads[] position */
    int has_detail;          /* manifest has_detail: 1, 0, -1 */
    int dir;                 /* thread_<id>/ exists */
} sthread;

static int cmp_sthread(const void *a, const void *b)
{
    const sthread *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return y->listed - x->listed; /* listed first */
}

static atf_status discover(const char *dir, sthread **list, size_t *count, size_t *cap, atf_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;   /* opendir() allocates: ENOMEM is not an I/O error */
        return atf_fail_file(err, e == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, dir, "cannot read directory: %s", strerror(e));
    }
    atf_status st = ATF_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t id;
        if (!atf_thread_dir_id(e->d_name, &id))
            continue;
        char *p = atf_path_join(dir, e->d_name);
        if (!p) {
            st = atf_fail_file(err, ATF_E_NOMEM, dir, NULL);
            break;
        }
        int isd = v_is_dir(p);
        free(p);
        if (!isd)
            continue;
        if (*count == *cap) {
            size_t ncap = *cap ? *cap * 2 : 16;
            if (ncap > MAX_THREADS) {
                st = atf_fail_file(err, ATF_E_LIMIT, dir, "more than %zu thread directories", MAX_THREADS);
                break;
            }
            sthread *n = realloc(*list, ncap * sizeof *n);
            if (!n) {
                st = atf_fail_file(err, ATF_E_NOMEM, dir, NULL);
                break;
            }
            *list = n;
            *cap = ncap;
        }
        (*list)[(*count)++] = (sthread){ id, 0, 0, -1, 1 };
    }
    closedir(d);
    return st;
}

/* One session's walk: the manifest, where its findings go, and what the
 * threads told the session-level checks. */
typedef struct swalk {
    atf_validation *v;
    const char *dir, *prefix;
    size_t mf;               /* file index of manifest.json */
    vmanifest man;
    int man_threads;         /* the manifest parsed and has a threads array */
    int have_events, have_layout;
    atf_layout first_layout;
    uint64_t min_first, max_last;
} swalk;

/* manifest.json (SES-MAN-001, the schema): into s->man. */
static atf_status session_manifest(swalk *s, atf_error *err)
{
    atf_validation *v = s->v;
    char *mpath = atf_path_join(s->dir, "manifest.json");
    if (!mpath)
        return atf_fail_file(err, ATF_E_NOMEM, s->dir, NULL);
    v_check(v, C_SES_MAN_001);
    atf_status st = ATF_OK;
    int hm = v_regular_or_absent(mpath, err);
    if (hm < 0) {
        st = err ? err->code : ATF_E_IO;
    } else if (hm > 0) {
        atf_blob mm;
        atf_error e;
        atf_json_cut cut;
        size_t cut_len = 0;
        st = atf_blob_open_limit(&mm, mpath, 0, MANIFEST_MAX_BYTES, &e);
        atf_error_set_file(&e, mpath);
        if (st == ATF_E_LIMIT) {
            v_report(v, s->mf, C_SES_MAN_002, 0, V_NO_OFFSET, NULL, "manifest.json is larger than 64 MiB: not read");
            st = ATF_OK;
        } else if (!st && mm.size == 0) {
            /* SPEC 7a.14: a writer killed while writing it: as if absent. */
            atf_blob_close(&mm);
            v_report(v, s->mf, C_SES_MAN_001, 0, V_NO_OFFSET, NULL,
                     "manifest.json is empty (a crash while it was being written): thread directories are discovered");
        } else if (st) {
            if (err)
                *err = e;
        } else if ((cut = atf_manifest_json_cut((const char *)mm.data, (size_t)mm.size, &cut_len, NULL)) ==
                   ATF_JCUT_NOMEM) {
            atf_blob_close(&mm);
            st = atf_fail_file(err, ATF_E_NOMEM, mpath, NULL);
        } else if (cut == ATF_JCUT_YES) {
            /* SPEC 7a.14: a power cut while it was being replaced left the
             * first bytes of the new text (and zeros): as if absent. */
            uint64_t total = (uint64_t)mm.size;
            atf_blob_close(&mm);
            v_report(v, s->mf, C_SES_MAN_001, 0, V_NO_OFFSET, NULL,
                     "manifest.json is cut at byte %zu of %" PRIu64 " (a crash while it was being written: a "
                     "proper prefix of a JSON object%s): read as absent, thread directories are discovered",
                     cut_len, total, cut_len < total ? ", then zeros" : "");
            v_check(v, C_REC_001);
            v_report(v, s->mf, C_REC_001, 0, cut_len, NULL,
                     "crash-truncated manifest.json (%zu bytes of JSON text%s): nothing recovered from it", cut_len,
                     cut_len < total ? " and a tail of NUL bytes" : "");
        } else {
            st = v_manifest_check(v, s->mf, (const char *)mm.data, (size_t)mm.size, &s->man);
            atf_blob_close(&mm);
            if (st)
                atf_fail_file(err, st, mpath, NULL);
        }
    } else {
        v_report(v, s->mf, C_SES_MAN_001, 0, V_NO_OFFSET, NULL,
                 "the session has no manifest.json: thread directories are discovered");
    }
    free(mpath);
    return st;
}

/* The threads: listed in the manifest and found on disk, by id, a listed
 * entry merged with the directory found for the same id. */
static atf_status session_threads(swalk *s, sthread **out, size_t *out_count, atf_error *err)
{
    sthread *list = NULL;
    size_t count = 0, cap = 0;
    if (s->man.threads_ok) {
        cap = s->man.thread_count ? s->man.thread_count : 1;
        list = calloc(cap, sizeof *list);
        if (!list)
            return atf_fail_file(err, ATF_E_NOMEM, s->dir, NULL);
        for (size_t i = 0; i < s->man.thread_count; i++) {
            const vman_thread *m = &s->man.threads[i];
            list[count++] = (sthread){ m->id, 1, m->index, m->has_detail, 0 };
        }
    }
    atf_status st = discover(s->dir, &list, &count, &cap, err);
    if (st) {
        free(list);
        return st;
    }
    if (count > 1)
        qsort(list, count, sizeof *list, cmp_sthread);
    size_t w = 0;
    for (size_t i = 0; i < count; i++) {
        if (w > 0 && list[w - 1].id == list[i].id) {
            list[w - 1].dir |= list[i].dir;
            continue;
        }
        list[w++] = list[i];
    }
    *out = list;
    *out_count = w;
    return ATF_OK;
}

/* The clauses of the session that the threads decide: evaluated here. */
static void session_marks(swalk *s, size_t count)
{
    atf_validation *v = s->v;
    v_check(v, C_SES_MAN_011);
    if (count == 0)
        v_report(v, s->mf, C_SES_MAN_011, 0, V_NO_OFFSET, s->man.threads_ok ? "threads" : NULL,
                 "the session has no thread: %s and there is no thread_<id>/ directory",
                 s->man.parsed ? "the manifest lists none" : "no manifest lists one");
    s->man_threads = s->man.parsed && s->man.threads_ok;
    v_check(v, C_SES_MAN_003);
    if (s->man_threads) {
        v_check(v, C_SES_MAN_004);
        v_check(v, C_SES_MAN_005);
    }
    if (s->man.has_clock_type)
        v_check(v, C_SES_MAN_008);
    if (count > 1)
        v_check(v, C_GEN_LAY_002);
}

/* A thread directory without index.atf (SES-MAN-003, or SPEC 7a.12). */
static void thread_without_index(swalk *s, const sthread *t, const char *name, const char *field,
                                 const char *tprefix, int has_detail)
{
    atf_validation *v = s->v;
    char *il = v_cat3(tprefix, "index.atf", "");
    size_t fi = il ? v_file(v, il) : (size_t)-1;
    free(il);
    char idfield[80];
    snprintf(idfield, sizeof idfield, "%s.id", field);
    char other[256];
    if (t->listed && atf_thread_dir_misnamed(s->dir, t->id, other, sizeof other)) {
        v_report(v, fi, C_SES_MAN_003, 0, V_NO_OFFSET, idfield,
                 "thread %" PRIu64 " is listed in manifest.json (%s) but %s/index.atf does not exist; "
                 "a directory %.100s/ is there: rename it %s/ (decimal, no leading zeros)", t->id, field,
                 name, other, name);
    } else if (t->listed) {
        v_report(v, fi, C_SES_MAN_003, 0, V_NO_OFFSET, idfield,
                 "thread %" PRIu64 " is listed in manifest.json (%s) but %s/index.atf does not exist", t->id,
                 field, name);
    } else if (!has_detail) {
        /* SPEC 7a.12: a writer killed between creating the thread
         * directory and its index.atf: crash-truncated, 0 events. */
        v_check(v, C_REC_001);
        v_report(v, fi, C_REC_001, 0, V_NO_OFFSET, NULL,
                 "crash-truncated (the thread directory %s/ holds no file yet): 0 events recovered", name);
        v_recovered(v, fi, 0);
    } else {
        v_report(v, fi, C_SES_MAN_003, 0, V_NO_OFFSET, NULL, "directory %s/ has no index.atf", name);
    }
}

/* A thread's index against the session: layout (GEN-LAY-002), clock
 * (SES-MAN-008), and the first and last event times. */
static void thread_in_session(swalk *s, const sthread *t, const char *name, const vthread_summary *sum)
{
    atf_validation *v = s->v;
    if (sum->ix.header_ok) {
        if (!s->have_layout) {
            s->have_layout = 1;
            s->first_layout = sum->ix.layout;
        } else if (sum->ix.layout != s->first_layout) {
            v_report(v, sum->index_file, C_GEN_LAY_002, 0, 5, "version",
                     "thread %" PRIu64 " uses layout %d, the session's first thread layout %d", t->id,
                     (int)sum->ix.layout, (int)s->first_layout);
        }
        if (s->man.has_clock_type && sum->ix.clock_type != s->man.clock_type)
            v_report(v, s->mf, C_SES_MAN_008, 0, V_NO_OFFSET, "clock_type",
                     "clock_type is %u but %s/index.atf says %u", s->man.clock_type, name, sum->ix.clock_type);
    }
    if (sum->ix.usable && sum->ix.n) {
        s->have_events = 1;
        if (sum->ix.first_ts < s->min_first)
            s->min_first = sum->ix.first_ts;
        if (sum->ix.last_ts > s->max_last)
            s->max_last = sum->ix.last_ts;
    }
}

/* Thread t of a session (thread i of count). */
static atf_status session_thread(swalk *s, const sthread *t, size_t i, size_t count, atf_error *err)
{
    atf_validation *v = s->v;
    char name[40], field[64];
    snprintf(name, sizeof name, "thread_%" PRIu64, t->id);
    snprintf(field, sizeof field, "threads[%zu]", t->man_index);
    char *tdir = atf_path_join(s->dir, name);
    char *tprefix = v_cat3(s->prefix, name, "/");
    if (!tdir || !tprefix) {
        free(tdir);
        free(tprefix);
        return atf_fail_file(err, ATF_E_NOMEM, s->dir, NULL);
    }
    if (s->man_threads && !t->listed)
        v_report(v, s->mf, C_SES_MAN_004, 0, V_NO_OFFSET, "threads", "directory %s/ is not listed in manifest.json",
                 name);
    vthread_summary sum;
    int has_index = 0, has_detail = 0;
    atf_status st = thread_dir(v, tdir, tprefix, &sum, &has_index, &has_detail, err);
    if (v->opts.progress)
        v->opts.progress(v->opts.progress_user, i + 1, count);
    if (!st && !has_index)
        thread_without_index(s, t, name, field, tprefix, has_detail);
    if (!st && s->man_threads && t->listed && t->has_detail >= 0 && t->has_detail != has_detail) {
        char hdfield[80];
        snprintf(hdfield, sizeof hdfield, "%s.has_detail", field);
        v_report(v, s->mf, C_SES_MAN_005, 0, V_NO_OFFSET, hdfield,
                 t->has_detail ? "thread %" PRIu64 ": has_detail is true but %s/detail.atf does not exist"
                               : "thread %" PRIu64 ": has_detail is false but %s/detail.atf exists",
                 t->id, name);
    }
    if (!st)
        thread_in_session(s, t, name, &sum);
    free(tdir);
    free(tprefix);
    return st;
}

/* SES-MAN-006/007: the manifest's times against the threads' events. */
static void session_times(swalk *s)
{
    atf_validation *v = s->v;
    const vmanifest *man = &s->man;
    uint64_t t0 = man->has_time_start ? man->time_start_ns : 0, t1 = man->has_time_end ? man->time_end_ns : 0;
    /* 0 means "unset" unless it is the true time, the first (last) event
     * being at 0 (SPEC 7a.8); a value of the wrong type is a SES-MAN-002
     * error, not reported again. */
    v_check(v, C_SES_MAN_006);
    if (s->have_events && t0 == 0 && s->min_first != 0 && (man->has_time_start || !man->time_start_present))
        v_report(v, s->mf, C_SES_MAN_006, 0, V_NO_OFFSET, "time_start_ns",
                 "time_start_ns is not set (0 or absent) but the session has events");
    if (s->have_events && t1 == 0 && s->max_last != 0 && (man->has_time_end || !man->time_end_present))
        v_report(v, s->mf, C_SES_MAN_006, 0, V_NO_OFFSET, "time_end_ns",
                 "time_end_ns is not set (0 or absent) but the session has events");
    v_check(v, C_SES_MAN_007);
    if (s->have_events && t0 != 0 && t0 > s->min_first)
        v_report(v, s->mf, C_SES_MAN_007, 0, V_NO_OFFSET, "time_start_ns",
                 "time_start_ns %" PRIu64 " is after the first event of a thread (%" PRIu64 ")", t0, s->min_first);
    if (s->have_events && t1 != 0 && t1 < s->max_last)
        v_report(v, s->mf, C_SES_MAN_007, 0, V_NO_OFFSET, "time_end_ns",
                 "time_end_ns %" PRIu64 " is before the last event of a thread (%" PRIu64 ")", t1, s->max_last);
}

static atf_status session(atf_validation *v, const char *dir, const char *prefix, atf_error *err)
{
    swalk s;
    memset(&s, 0, sizeof s);
    s.v = v;
    s.dir = dir;
    s.prefix = prefix;
    s.first_layout = ATF_LAYOUT_2;
    s.min_first = UINT64_MAX;
    char *label = v_cat3(prefix, "manifest.json", "");
    if (!label)
        return atf_fail_file(err, ATF_E_NOMEM, dir, NULL);
    s.mf = v_file(v, label);
    free(label);
    sthread *list = NULL;
    size_t count = 0;
    atf_status st = session_manifest(&s, err);
    if (!st)
        st = session_threads(&s, &list, &count, err);
    if (!st)
        session_marks(&s, count);
    for (size_t i = 0; i < count && !st; i++)
        st = session_thread(&s, &list[i], i, count, err);
    if (!st && s.man.parsed)
        session_times(&s);
    free(list);
    v_manifest_free(&s.man);
    if (!st && v->oom)
        st = atf_fail_file(err, ATF_E_NOMEM, dir, NULL);
    return st;
}

/* ---- Directories ------------------------------------------------------------ */

/* A thread_K/ directory holding neither index.atf nor detail.atf. */
static int thread_without_files(const char *path)
{
    char *ip = atf_path_join(path, "index.atf"), *dp = atf_path_join(path, "detail.atf");
    struct stat lsb;
    int none = ip && dp && lstat(ip, &lsb) != 0 && errno == ENOENT && lstat(dp, &lsb) != 0 && errno == ENOENT;
    free(ip);
    free(dp);
    return none;
}

/* An output root (session_X/pid_N/...): every session, each named by its
 * path below the root in its findings. */
static atf_status root_of_sessions(atf_validation *v, const char *path, atf_error *err)
{
    char **list = NULL;
    size_t n = 0;
    atf_status st = atf_session_list(path, &list, &n, err);
    size_t skip = strlen(path);
    while (skip > 1 && path[skip - 1] == '/')
        skip--;
    for (size_t i = 0; !st && i < n; i++) {
        char *prefix = v_cat3(list[i] + skip + (list[i][skip] == '/'), "/", "");
        st = prefix ? session(v, list[i], prefix, err) : atf_fail_file(err, ATF_E_NOMEM, path, NULL);
        free(prefix);
    }
    atf_session_list_free(list, n);
    return st;
}

atf_status v_atf_directory(atf_validation *v, const char *path, atf_error *err)
{
    char resolved[4096];
    atf_error e;
    memset(&e, 0, sizeof e);
    atf_path_kind kind = atf_path_detect(path, resolved, sizeof resolved, &e);
    if (kind == ATF_PATH_THREAD && thread_without_files(path)) {
        /* SPEC 7a.12: a thread_K/ directory that holds no file yet, alone
         * as inside its session: crash-truncated, 0 events. */
        size_t fi = v_file(v, "index.atf");
        v_check(v, C_REC_001);
        v_report(v, fi, C_REC_001, 0, V_NO_OFFSET, NULL,
                 "crash-truncated (the thread directory holds no file yet): 0 events recovered");
        v_recovered(v, fi, 0);
        return ATF_OK;
    }
    if (kind == ATF_PATH_THREAD) {
        vthread_summary sum;
        int hi, hd;
        return thread_dir(v, path, "", &sum, &hi, &hd, err);
    }
    if (kind == ATF_PATH_SESSION) {
        /* A session_X/ directory resolves to its one pid_N/: findings name pid_N/... */
        char prefix[300] = "";
        if (strcmp(resolved, path) != 0) {
            v_base_name(resolved, prefix, sizeof prefix - 1);
            strcat(prefix, "/");
        }
        return session(v, resolved, prefix, err);
    }
    if (kind == ATF_PATH_ROOT)
        return root_of_sessions(v, path, err);
    if (e.code == ATF_E_NOMEM || e.code == ATF_E_IO)
        return atf_fail_file(err, e.code, path, "%s", e.message);   /* detection could not run: no verdict */
    return atf_fail_file(err, ATF_E_NOT_FOUND, path, "%s", e.message[0] ? e.message : "not an ATF file, thread or session");
}
