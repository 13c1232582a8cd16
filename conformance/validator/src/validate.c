/* Entry points: what a path is, threads (both lanes and the cross-lane
 * clauses of SPEC.md section 4), sessions (section 5 and GEN-LAY-002). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/wtf.h>
#include <atf/rtc.h>

#include "format_module.h"   /* the codec's: formats/registry.c */
#include "internal.h"   /* the codec's: atf_thread_dir_misnamed, atf_blob */
#include "manifest_check.h"

#define MANIFEST_MAX_BYTES ((uint64_t)64 << 20)
#define MAX_THREADS ((size_t)1 << 20)

/* ---- Errors and strings -------------------------------------------------- */

static atf_status fail(atf_error *err, atf_status code, const char *file, const char *fmt, ...) V_PRINTF(4, 5);
static atf_status fail(atf_error *err, atf_status code, const char *file, const char *fmt, ...)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = code;
        err->offset = ATF_VALIDATE_NO_OFFSET;
        if (file)
            snprintf(err->file, sizeof err->file, "%s", file);
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->message, sizeof err->message, fmt, ap);
            va_end(ap);
        } else {
            snprintf(err->message, sizeof err->message, "%s", atf_strerror(code));
        }
    }
    return code;
}

/* a + b + c in a new string. */
static char *cat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb);
    memcpy(s + la + lb, c, lc + 1);
    return s;
}

/* dir + "/" + name (no doubled slash). */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return cat3(dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

/* 1: a regular file; 0: nothing there; -1: something else is there, or it
 * cannot be looked at (permission): err says which. That is an I/O problem
 * for the caller to return (exit 2), never a verdict about the format. */
static int regular_or_absent(const char *path, atf_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        fail(err, errno == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, path, "cannot access: %s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        fail(err, ATF_E_IO, path, "%s, not a regular file", atf_file_type_name((unsigned)st.st_mode));
        return -1;
    }
    return 1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Last path component, ignoring trailing slashes, into dst. */
static void base_name(const char *path, char *dst, size_t cap)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    size_t len = n - b < cap - 1 ? n - b : cap - 1;
    memcpy(dst, path + b, len);
    dst[len] = '\0';
}

/* ---- Files in memory -------------------------------------------------------- */

/* atf_blob_open_limit() (mapped, or read where mapping fails), the error
 * naming the path. */
static atf_status vmap_open(atf_blob *m, const char *path, uint64_t limit, atf_error *err)
{
    atf_status st = atf_blob_open_limit(m, path, 0, limit, err);
    if (st) {
        memset(m, 0, sizeof *m);
        m->data = (const uint8_t *)"";
        atf_error_set_file(err, path);
    }
    return st;
}

/* ---- One thread ------------------------------------------------------------ */

atf_status v_thread(atf_validation *v, const char *label_prefix, const uint8_t *idx, uint64_t isize,
                    uint64_t idata_end, int det_present, const uint8_t *det, uint64_t dsize, uint64_t ddata_end,
                    vthread_summary *out)
{
    memset(out, 0, sizeof *out);
    out->index_file = (size_t)-1;
    vindex *ix = &out->ix;
    if (idx) {
        char *label = cat3(label_prefix, "index.atf", "");
        if (!label)
            return ATF_E_NOMEM;
        out->index_file = v_file(v, label);
        free(label);
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
    if (!det_present)
        return v->oom ? ATF_E_NOMEM : ATF_OK;
    char *label = cat3(label_prefix, "detail.atf", "");
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
    char *ip = join(tdir, "index.atf"), *dp = join(tdir, "detail.atf");
    atf_status st = ATF_OK;
    atf_blob im, dm;
    memset(&im, 0, sizeof im);
    memset(&dm, 0, sizeof dm);
    if (!ip || !dp) {
        st = fail(err, ATF_E_NOMEM, tdir, NULL);
        goto out;
    }
    int has_index = regular_or_absent(ip, err), has_detail = has_index < 0 ? -1 : regular_or_absent(dp, err);
    if (has_index < 0 || has_detail < 0) {
        st = err ? err->code : ATF_E_IO;
        goto out;
    }
    *has_index_out = has_index;
    *has_detail_out = has_detail;
    if (has_index && (st = vmap_open(&im, ip, 0, err)))
        goto out;
    if (has_detail && (st = vmap_open(&dm, dp, 0, err)))
        goto out;
    st = v_thread(v, label_prefix, has_index ? im.data : NULL, im.size, im.data_end, has_detail, dm.data, dm.size,
                  dm.data_end, out);
    if (st)
        fail(err, st, tdir, NULL);
out:
    atf_blob_close(&im);
    atf_blob_close(&dm);
    free(ip);
    free(dp);
    return st;
}

/* ---- Sessions ---------------------------------------------------------------- */

/* "thread_<id>", the id in decimal without leading zeros. */
static int parse_thread_dir(const char *name, uint64_t *id)
{
    if (strncmp(name, "thread_", 7) != 0 || !name[7] || (name[7] == '0' && name[8]))
        return 0;
    uint64_t val = 0;
    for (const char *p = name + 7; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        uint64_t dgt = (uint64_t)(*p - '0');
        if (val > (UINT64_MAX - dgt) / 10)
            return 0;
        val = val * 10 + dgt;
    }
    *id = val;
    return 1;
}

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
        return fail(err, e == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, dir, "cannot read directory: %s", strerror(e));
    }
    atf_status st = ATF_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t id;
        if (!parse_thread_dir(e->d_name, &id))
            continue;
        char *p = join(dir, e->d_name);
        if (!p) {
            st = fail(err, ATF_E_NOMEM, dir, NULL);
            break;
        }
        int isd = is_dir(p);
        free(p);
        if (!isd)
            continue;
        if (*count == *cap) {
            size_t ncap = *cap ? *cap * 2 : 16;
            if (ncap > MAX_THREADS) {
                st = fail(err, ATF_E_LIMIT, dir, "more than %zu thread directories", MAX_THREADS);
                break;
            }
            sthread *n = realloc(*list, ncap * sizeof *n);
            if (!n) {
                st = fail(err, ATF_E_NOMEM, dir, NULL);
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

static atf_status session(atf_validation *v, const char *dir, const char *prefix, atf_error *err)
{
    atf_status st = ATF_OK;
    char *label = cat3(prefix, "manifest.json", "");
    char *mpath = join(dir, "manifest.json");
    if (!label || !mpath) {
        free(label);
        free(mpath);
        return fail(err, ATF_E_NOMEM, dir, NULL);
    }
    const size_t mf = v_file(v, label);
    free(label);
    vmanifest man;
    memset(&man, 0, sizeof man);
    v_check(v, C_SES_MAN_001);
    int hm = regular_or_absent(mpath, err);
    if (hm < 0) {
        free(mpath);
        v_manifest_free(&man);
        return err ? err->code : ATF_E_IO;
    }
    if (hm > 0) {
        atf_blob mm;
        atf_error e;
        st = vmap_open(&mm, mpath, MANIFEST_MAX_BYTES, &e);
        if (st == ATF_E_LIMIT) {
            v_report(v, mf, C_SES_MAN_002, 0, V_NO_OFFSET, NULL,
                     "manifest.json is larger than 64 MiB: not read");
            st = ATF_OK;
        } else if (!st && mm.size == 0) {
            /* SPEC 7a.14: a writer killed while writing it: as if absent. */
            atf_blob_close(&mm);
            v_report(v, mf, C_SES_MAN_001, 0, V_NO_OFFSET, NULL,
                     "manifest.json is empty (a crash while it was being written): thread directories are discovered");
        } else if (st) {
            if (err)
                *err = e;
        } else {
            st = v_manifest_check(v, mf, (const char *)mm.data, (size_t)mm.size, &man);
            atf_blob_close(&mm);
            if (st)
                fail(err, st, mpath, NULL);
        }
    } else {
        v_report(v, mf, C_SES_MAN_001, 0, V_NO_OFFSET, NULL, "the session has no manifest.json: thread directories are discovered");
    }
    free(mpath);
    if (st) {
        v_manifest_free(&man);
        return st;
    }

    /* The threads: listed in the manifest and found on disk, by id. */
    sthread *list = NULL;
    size_t count = 0, cap = 0;
    if (man.threads_ok) {
        cap = man.thread_count ? man.thread_count : 1;
        list = calloc(cap, sizeof *list);
        if (!list) {
            v_manifest_free(&man);
            return fail(err, ATF_E_NOMEM, dir, NULL);
        }
        for (size_t i = 0; i < man.thread_count; i++)
            list[count++] = (sthread){ man.threads[i].id, 1, man.threads[i].index, man.threads[i].has_detail, 0 };
    }
    if ((st = discover(dir, &list, &count, &cap, err))) {
        free(list);
        v_manifest_free(&man);
        return st;
    }
    if (count > 1)
        qsort(list, count, sizeof *list, cmp_sthread);
    /* Merge a listed entry with the directory found for the same id. */
    size_t w = 0;
    for (size_t i = 0; i < count; i++) {
        if (w > 0 && list[w - 1].id == list[i].id) {
            list[w - 1].dir |= list[i].dir;
            continue;
        }
        list[w++] = list[i];
    }
    count = w;

    v_check(v, C_SES_MAN_011);
    if (count == 0)
        v_report(v, mf, C_SES_MAN_011, 0, V_NO_OFFSET, man.threads_ok ? "threads" : NULL,
                 "the session has no thread: the manifest lists none and there is no thread_<id>/ directory");
    const int man_threads = man.parsed && man.threads_ok;
    v_check(v, C_SES_MAN_003);
    if (man_threads) {
        v_check(v, C_SES_MAN_004);
        v_check(v, C_SES_MAN_005);
    }
    if (man.has_clock_type)
        v_check(v, C_SES_MAN_008);
    if (count > 1)
        v_check(v, C_GEN_LAY_002);

    int have_events = 0, have_layout = 0;
    atf_layout first_layout = ATF_LAYOUT_2;
    uint64_t min_first = UINT64_MAX, max_last = 0;
    for (size_t i = 0; i < count && !st; i++) {
        const sthread *t = &list[i];
        char name[40], field[64];
        snprintf(name, sizeof name, "thread_%" PRIu64, t->id);
        snprintf(field, sizeof field, "threads[%zu]", t->man_index);
        char *tdir = join(dir, name);
        char *tprefix = cat3(prefix, name, "/");
        if (!tdir || !tprefix) {
            free(tdir);
            free(tprefix);
            st = fail(err, ATF_E_NOMEM, dir, NULL);
            break;
        }
        if (man_threads && !t->listed)
            v_report(v, mf, C_SES_MAN_004, 0, V_NO_OFFSET, "threads",
                     "directory %s/ is not listed in manifest.json", name);
        vthread_summary sum;
        int has_index = 0, has_detail = 0;
        st = thread_dir(v, tdir, tprefix, &sum, &has_index, &has_detail, err);
        if (v->opts.progress)
            v->opts.progress(v->opts.progress_user, i + 1, count);
        if (!st && !has_index) {
            char *il = cat3(tprefix, "index.atf", "");
            size_t fi = il ? v_file(v, il) : (size_t)-1;
            free(il);
            char idfield[80];
            snprintf(idfield, sizeof idfield, "%s.id", field);
            char other[256];
            if (t->listed && atf_thread_dir_misnamed(dir, t->id, other, sizeof other)) {
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
        if (!st && man_threads && t->listed && t->has_detail >= 0 && t->has_detail != has_detail) {
            char hdfield[80];
            snprintf(hdfield, sizeof hdfield, "%s.has_detail", field);
            v_report(v, mf, C_SES_MAN_005, 0, V_NO_OFFSET, hdfield,
                     t->has_detail ? "thread %" PRIu64 ": has_detail is true but %s/detail.atf does not exist"
                                   : "thread %" PRIu64 ": has_detail is false but %s/detail.atf exists",
                     t->id, name);
        }
        if (!st && sum.ix.header_ok) {
            if (!have_layout) {
                have_layout = 1;
                first_layout = sum.ix.layout;
            } else if (sum.ix.layout != first_layout) {
                v_report(v, sum.index_file, C_GEN_LAY_002, 0, 5, "version",
                         "thread %" PRIu64 " uses layout %d, the session's first thread layout %d", t->id,
                         (int)sum.ix.layout, (int)first_layout);
            }
            if (man.has_clock_type && sum.ix.clock_type != man.clock_type)
                v_report(v, mf, C_SES_MAN_008, 0, V_NO_OFFSET, "clock_type",
                         "clock_type is %u but %s/index.atf says %u", man.clock_type, name, sum.ix.clock_type);
        }
        if (!st && sum.ix.usable && sum.ix.n) {
            have_events = 1;
            if (sum.ix.first_ts < min_first)
                min_first = sum.ix.first_ts;
            if (sum.ix.last_ts > max_last)
                max_last = sum.ix.last_ts;
        }
        free(tdir);
        free(tprefix);
    }
    if (!st && man.parsed) {
        uint64_t t0 = man.has_time_start ? man.time_start_ns : 0, t1 = man.has_time_end ? man.time_end_ns : 0;
        /* 0 means "unset" unless it is the true time, the first (last) event
         * being at 0 (SPEC 7a.8); a value of the wrong type is a SES-MAN-002
         * error, not reported again. */
        v_check(v, C_SES_MAN_006);
        if (have_events && t0 == 0 && min_first != 0 && (man.has_time_start || !man.time_start_present))
            v_report(v, mf, C_SES_MAN_006, 0, V_NO_OFFSET, "time_start_ns",
                     "time_start_ns is not set (0 or absent) but the session has events");
        if (have_events && t1 == 0 && max_last != 0 && (man.has_time_end || !man.time_end_present))
            v_report(v, mf, C_SES_MAN_006, 0, V_NO_OFFSET, "time_end_ns",
                     "time_end_ns is not set (0 or absent) but the session has events");
        v_check(v, C_SES_MAN_007);
        if (have_events && t0 != 0 && t0 > min_first)
            v_report(v, mf, C_SES_MAN_007, 0, V_NO_OFFSET, "time_start_ns",
                     "time_start_ns %" PRIu64 " is after the first event of a thread (%" PRIu64 ")", t0, min_first);
        if (have_events && t1 != 0 && t1 < max_last)
            v_report(v, mf, C_SES_MAN_007, 0, V_NO_OFFSET, "time_end_ns",
                     "time_end_ns %" PRIu64 " is before the last event of a thread (%" PRIu64 ")", t1, max_last);
    }
    free(list);
    v_manifest_free(&man);
    if (!st && v->oom)
        st = fail(err, ATF_E_NOMEM, dir, NULL);
    return st;
}

/* ---- Entry points ---------------------------------------------------------- */

static atf_status finish(atf_validation *v, atf_status st, atf_validation **out, atf_error *err)
{
    if (!st && v->oom)
        st = fail(err, ATF_E_NOMEM, v->path, NULL);
    if (!st && (st = v_finish(v)))
        fail(err, st, v->path, NULL);
    if (st) {
        atf_validation_free(v);
        return st;
    }
    *out = v;
    return ATF_OK;
}

/* The validation pass of each format module (by its name). */
static const struct {
    const char *format;
    v_format_pass pass;
} g_passes[] = {
    { "WTF", v_wtf_pass },
    { "RTC", v_rtc_pass },
};

static v_format_pass v_pass_of(const atf_format_module *fm)
{
    for (size_t i = 0; i < sizeof g_passes / sizeof g_passes[0]; i++)
        if (!strcmp(g_passes[i].format, fm->name))
            return g_passes[i].pass;
    return NULL;
}

/* A lone file: an index file unless its magic or its name says detail. */
static atf_status lone_file(atf_validation *v, const char *path, atf_error *err)
{
    atf_blob m;
    atf_status st = vmap_open(&m, path, 0, err);
    if (st)
        return st;
    char name[256];
    base_name(path, name, sizeof name);
    /* Another format's file (formats/registry.c bids: WTF's magic or a
     * .wtf-trace name, SPEC-WTF.md 7; an RTC Marker or a .rtc name): its pass. */
    const atf_format_module *fm = atf_format_bid(m.data, m.size < 4 ? (size_t)m.size : 4, path, NULL);
    v_format_pass pass = fm ? v_pass_of(fm) : NULL;
    if (pass) {
        pass(v, v_file(v, name), m.data, m.size, m.data_end);
        atf_blob_close(&m);
        return ATF_OK;
    }
    /* SPEC 7a.1: index.atf / detail.atf by name, any other file by its magic. */
    int detail;
    if (!strcmp(name, "index.atf"))
        detail = 0;
    else if (!strcmp(name, "detail.atf"))
        detail = 1;
    else
        detail = m.size >= 4 && memcmp(m.data, ATF_DETAIL_MAGIC, 4) == 0;
    size_t f = v_file(v, name);
    if (detail) {
        vdetail dt;
        v_detail_pass(v, f, m.data, m.size, m.data_end, NULL, NULL, NULL, &dt);
    } else {
        vindex ix;
        v_index_pass(v, f, m.data, m.size, m.data_end, 0, 0, &ix);
    }
    atf_blob_close(&m);
    return ATF_OK;
}

atf_status atf_validate_path(atf_validation **out, const char *path, const atf_validate_options *opts,
                             atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || !path)
        return fail(err, ATF_E_ARG, NULL, NULL);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return fail(err, ATF_E_IO, path, "%s", strerror(errno));
    atf_validation *v = v_create(path, opts);
    if (!v)
        return fail(err, ATF_E_NOMEM, path, NULL);
    atf_status st;
    if (S_ISREG(sb.st_mode)) {
        st = lone_file(v, path, err);
    } else if (S_ISDIR(sb.st_mode)) {
        char resolved[4096];
        atf_error e;
        memset(&e, 0, sizeof e);
        atf_path_kind kind = atf_path_detect(path, resolved, sizeof resolved, &e);
        char *lone_ip = kind == ATF_PATH_THREAD ? join(path, "index.atf") : NULL;
        char *lone_dp = kind == ATF_PATH_THREAD ? join(path, "detail.atf") : NULL;
        struct stat lsb;
        int no_files = lone_ip && lone_dp && lstat(lone_ip, &lsb) != 0 && errno == ENOENT &&
                       lstat(lone_dp, &lsb) != 0 && errno == ENOENT;
        free(lone_ip);
        free(lone_dp);
        if (kind == ATF_PATH_THREAD && no_files) {
            /* SPEC 7a.12: a thread_K/ directory that holds no file yet, alone
             * as inside its session: crash-truncated, 0 events. */
            size_t fi = v_file(v, "index.atf");
            v_check(v, C_REC_001);
            v_report(v, fi, C_REC_001, 0, V_NO_OFFSET, NULL,
                     "crash-truncated (the thread directory holds no file yet): 0 events recovered");
            v_recovered(v, fi, 0);
            st = ATF_OK;
        } else if (kind == ATF_PATH_THREAD) {
            vthread_summary sum;
            int hi, hd;
            st = thread_dir(v, path, "", &sum, &hi, &hd, err);
        } else if (kind == ATF_PATH_SESSION) {
            /* A session_X/ directory resolves to its one pid_N/: findings name pid_N/... */
            char prefix[300] = "";
            if (strcmp(resolved, path) != 0) {
                base_name(resolved, prefix, sizeof prefix - 1);
                strcat(prefix, "/");
            }
            st = session(v, resolved, prefix, err);
        } else if (kind == ATF_PATH_ROOT) {
            /* An output root (session_X/pid_N/...): every session, each
             * named by its path below the root in its findings. */
            char **list = NULL;
            size_t n = 0;
            st = atf_session_list(path, &list, &n, err);
            size_t skip = strlen(path);
            while (skip > 1 && path[skip - 1] == '/')
                skip--;
            for (size_t i = 0; !st && i < n; i++) {
                char *prefix = cat3(list[i] + skip + (list[i][skip] == '/'), "/", "");
                st = prefix ? session(v, list[i], prefix, err) : fail(err, ATF_E_NOMEM, path, NULL);
                free(prefix);
            }
            atf_session_list_free(list, n);
        } else if (e.code == ATF_E_NOMEM || e.code == ATF_E_IO) {
            st = fail(err, e.code, path, "%s", e.message);   /* detection could not run: no verdict */
        } else {
            st = fail(err, ATF_E_NOT_FOUND, path, "%s", e.message[0] ? e.message : "not an ATF file, thread or session");
        }
    } else {
        st = fail(err, ATF_E_IO, path, "%s, not a regular file or directory", atf_file_type_name((unsigned)sb.st_mode));
    }
    return finish(v, st, out, err);
}

atf_status atf_validate_index_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                     const atf_validate_options *opts, atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!data && size))
        return fail(err, ATF_E_ARG, NULL, NULL);
    atf_validation *v = v_create(name ? name : "index.atf", opts);
    if (!v)
        return fail(err, ATF_E_NOMEM, name, NULL);
    vindex ix;
    size_t f = v_file(v, name ? name : "index.atf");
    v_index_pass(v, f, data ? data : (const void *)"", size, size, 0, 0, &ix);
    return finish(v, ATF_OK, out, err);
}

atf_status v_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                 const atf_validate_options *opts, int general_only, atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!data && size))
        return fail(err, ATF_E_ARG, NULL, NULL);
    atf_validation *v = v_create(name ? name : "trace.wtf-trace", opts);
    if (!v)
        return fail(err, ATF_E_NOMEM, name, NULL);
    size_t f = v_file(v, name ? name : "trace.wtf-trace");
    v_wtf_pass_mode(v, f, data ? data : (const void *)"", size, size, general_only);
    return finish(v, ATF_OK, out, err);
}

atf_status atf_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                   const atf_validate_options *opts, atf_error *err)
{
    return v_validate_wtf_memory(out, data, size, name, opts, 0, err);
}

atf_status atf_validate_rtc_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                   const atf_validate_options *opts, atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!data && size))
        return fail(err, ATF_E_ARG, NULL, NULL);
    atf_validation *v = v_create(name ? name : "trace.rtc", opts);
    if (!v)
        return fail(err, ATF_E_NOMEM, name, NULL);
    v_rtc_pass(v, v_file(v, name ? name : "trace.rtc"), data ? data : (const void *)"", size, size);
    return finish(v, ATF_OK, out, err);
}

atf_status atf_validate_detail_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                      const atf_validate_options *opts, atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!data && size))
        return fail(err, ATF_E_ARG, NULL, NULL);
    atf_validation *v = v_create(name ? name : "detail.atf", opts);
    if (!v)
        return fail(err, ATF_E_NOMEM, name, NULL);
    vdetail dt;
    size_t f = v_file(v, name ? name : "detail.atf");
    v_detail_pass(v, f, data ? data : (const void *)"", size, size, NULL, NULL, NULL, &dt);
    return finish(v, ATF_OK, out, err);
}

atf_status atf_validate_thread_memory(atf_validation **out, const void *index, size_t index_size,
                                      const void *detail, size_t detail_size, const atf_validate_options *opts,
                                      atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!index && index_size))
        return fail(err, ATF_E_ARG, NULL, NULL);
    atf_validation *v = v_create("<thread>", opts);
    if (!v)
        return fail(err, ATF_E_NOMEM, NULL, NULL);
    vthread_summary sum;
    atf_status st = v_thread(v, "", index ? index : (const void *)"", index_size, index_size, detail != NULL,
                             detail ? detail : (const void *)"", detail_size, detail_size, &sum);
    if (st)
        fail(err, st, NULL, NULL);
    return finish(v, st, out, err);
}
