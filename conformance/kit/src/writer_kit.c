/* The writer kit (`atf conform --writer CMD`): for each scenario, generate
 * the scenario file, run the adapter, validate its session clause by clause
 * and compare every decoded event with the scenario.
 *
 * Memory: one scenario event at a time (streamed from the file the adapter
 * read), the readers of the session (mapped files), and per scenario at most
 * max_mismatches listed mismatches per check plus the validator's capped
 * findings. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/conform.h>
#include <atf/reader.h>
#include <atf/session.h>

#include "internal.h"   /* the codec's: atf_make_dirs */
#include "kit_internal.h"

/* ---- The kit's own checks ------------------------------------------------ */

enum {
    K_RUN_001, K_SES_001, K_SES_002, K_HDR_001, K_HDR_002, K_IDX_001, K_IDX_002, K_IDX_003, K_DET_001, K_DET_002,
    K_DET_003, K_COUNT
};

static const struct {
    const char *id, *summary;
} KIT_CHECKS[K_COUNT] = {
    { "KIT-RUN-001", "the adapter exits with status 0 within the time limit" },
    { "KIT-SES-001", "manifest.json lists exactly the scenario's threads (has_detail as the scenario says), and "
                     "there is one thread_K/ directory per thread and no other" },
    { "KIT-SES-002", "the manifest holds exactly the scenario's symbols, and no dropped events" },
    { "KIT-HDR-001", "each index header has the scenario's layout, arch, os, clock_type, thread_id and "
                     "has_detail_file flag" },
    { "KIT-HDR-002", "a thread has detail.atf exactly when the scenario gives it a detail lane; its header has the "
                     "scenario's layout, arch, os and thread_id" },
    { "KIT-IDX-001", "each index file holds exactly the scenario's events of its thread" },
    { "KIT-IDX-002", "each index event has the scenario's timestamp_ns, function_id, event_kind and (layout 1) "
                     "thread_id and call_depth" },
    { "KIT-IDX-003", "each index event's detail_seq is the no-detail sentinel, or the position of its detail "
                     "event in the thread's detail file" },
    { "KIT-DET-001", "each detail file holds exactly the scenario's detail events of its thread" },
    { "KIT-DET-002", "each detail event has total_length 24 + payload size, the scenario's event_type, flags, "
                     "timestamp and (layout 1) thread_id, and index_seq = its index event's seq" },
    { "KIT-DET-003", "each detail payload holds the scenario's bytes" },
};

typedef struct mismatch {
    int check;
    char *file;
    uint64_t seq;            /* UINT64_MAX: none */
    char field[32];
    char *message;
} mismatch;

typedef struct scen_result {
    char name[ATF_SCENARIO_NAME_MAX + 1];
    char description[ATF_SCENARIO_TEXT_MAX + 1];
    const char *source;      /* "builtin" or the scenario file path */
    unsigned layout;
    uint64_t events;
    size_t threads;
    int ran_adapter;
    int skipped;
    char skip_reason[256];
    kit_proc_result proc;
    kit_vresult v;
    uint64_t check_failures[K_COUNT];
    int check_ran[K_COUNT];
    mismatch *mm;
    size_t mm_count, mm_cap;
    int pass;
    double seconds;
    char *kept;              /* directory kept, or NULL */
} scen_result;

typedef struct run_ctx {
    const atf_conform_writer_options *o;
    unsigned max_mm;
    scen_result *res;
    size_t count, cap;
} run_ctx;

static void add_mm(scen_result *r, unsigned max_mm, int check, const char *file, uint64_t seq, const char *field,
                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

static void add_mm(scen_result *r, unsigned max_mm, int check, const char *file, uint64_t seq, const char *field,
                   const char *fmt, ...)
{
    r->check_failures[check]++;
    if (r->check_failures[check] > max_mm)
        return;
    if (r->mm_count == r->mm_cap) {
        size_t cap = r->mm_cap ? r->mm_cap * 2 : 16;
        mismatch *n = realloc(r->mm, cap * sizeof *n);
        if (!n)
            return;
        r->mm = n;
        r->mm_cap = cap;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mismatch *m = &r->mm[r->mm_count++];
    memset(m, 0, sizeof *m);
    m->check = check;
    m->file = kit_strdup(file ? file : "");
    m->seq = seq;
    snprintf(m->field, sizeof m->field, "%s", field ? field : "");
    m->message = kit_strdup(msg);
}

/* ---- Comparison ---------------------------------------------------------- */

typedef struct cmp_thread {
    const atf_scenario_thread *t;
    char rel_index[64], rel_detail[64];
    atf_index_reader *ix;
    atf_detail_reader *dx;
    uint64_t ix_count, dx_count;
    uint64_t seq, dseq;
} cmp_thread;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int parse_thread_dir(const char *name, uint64_t *id)
{
    if (strncmp(name, "thread_", 7) != 0 || !name[7])
        return 0;
    const char *s = name + 7;
    if (s[0] == '0' && s[1])
        return 0;  /* no leading zeros: not a thread directory name */
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *id = v;
    return 1;
}

static const atf_scenario_thread *find_scen_thread(const atf_scenario_info *info, uint64_t id)
{
    size_t lo = 0, hi = info->thread_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (info->threads[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < info->thread_count && info->threads[lo].id == id ? &info->threads[lo] : NULL;
}

static void check_manifest(scen_result *r, unsigned max_mm, const char *session, const atf_scenario_info *info)
{
    r->check_ran[K_SES_001] = r->check_ran[K_SES_002] = 1;
    char *mpath = kit_path_join(session, "manifest.json");
    atf_manifest *m = NULL;
    atf_error err;
    memset(&err, 0, sizeof err);
    atf_status st = mpath ? atf_manifest_load(&m, mpath, &err) : ATF_E_NOMEM;
    free(mpath);
    if (st) {
        char line[400];
        atf_error_format(line, sizeof line, &err);
        add_mm(r, max_mm, K_SES_001, "manifest.json", UINT64_MAX, NULL, "cannot load: %s",
               line[0] ? line : atf_strerror(st));
    } else {
        /* Threads: compare the sorted id lists. */
        uint64_t *ids = malloc((m->thread_count ? m->thread_count : 1) * sizeof *ids);
        if (ids) {
            for (size_t i = 0; i < m->thread_count; i++)
                ids[i] = m->threads[i].id;
            qsort(ids, m->thread_count, sizeof *ids, cmp_u64);
            size_t i = 0, j = 0;
            while (i < m->thread_count || j < info->thread_count) {
                if (j == info->thread_count || (i < m->thread_count && ids[i] < info->threads[j].id)) {
                    add_mm(r, max_mm, K_SES_001, "manifest.json", UINT64_MAX, "threads",
                           "lists thread %" PRIu64 ", which the scenario does not have", ids[i]);
                    i++;
                } else if (i == m->thread_count || info->threads[j].id < ids[i]) {
                    add_mm(r, max_mm, K_SES_001, "manifest.json", UINT64_MAX, "threads",
                           "does not list thread %" PRIu64, info->threads[j].id);
                    j++;
                } else {
                    i++;
                    j++;
                }
            }
            free(ids);
        }
        for (size_t i = 0; i < m->thread_count; i++) {
            const atf_manifest_thread *mt = &m->threads[i];
            const atf_scenario_thread *sct = find_scen_thread(info, mt->id);
            if (sct && mt->has_detail >= 0 && mt->has_detail != sct->detail)
                add_mm(r, max_mm, K_SES_001, "manifest.json", UINT64_MAX, "has_detail",
                       "thread %" PRIu64 ": has_detail is %s, the scenario says %s", mt->id,
                       mt->has_detail ? "true" : "false", sct->detail ? "true" : "false");
        }
        /* Symbols: both lists are sorted by function_id. */
        size_t i = 0, j = 0;
        while (i < m->symbol_count || j < info->symbol_count) {
            const atf_manifest_symbol *ms = i < m->symbol_count ? &m->symbols[i] : NULL;
            const atf_scenario_symbol *ss = j < info->symbol_count ? &info->symbols[j] : NULL;
            if (ms && (!ss || ms->function_id < ss->function_id)) {
                add_mm(r, max_mm, K_SES_002, "manifest.json", UINT64_MAX, "symbols",
                       "symbol %" PRIu64 " (\"%.100s\") is not in the scenario", ms->function_id, ms->name);
                i++;
            } else if (!ms || ss->function_id < ms->function_id) {
                add_mm(r, max_mm, K_SES_002, "manifest.json", UINT64_MAX, "symbols",
                       "symbol %" PRIu64 " (\"%.100s\") is missing", ss->function_id, ss->name);
                j++;
            } else {
                if (strcmp(ms->name ? ms->name : "", ss->name) != 0)
                    add_mm(r, max_mm, K_SES_002, "manifest.json", UINT64_MAX, "symbols",
                           "symbol %" PRIu64 ": name \"%.100s\", expected \"%.100s\"", ss->function_id,
                           ms->name ? ms->name : "", ss->name);
                i++;
                j++;
            }
        }
        if (m->events_dropped)
            add_mm(r, max_mm, K_SES_002, "manifest.json", UINT64_MAX, "events_dropped",
                   "events_dropped is %" PRIu64 ": the writer lost events", m->events_dropped);
        atf_manifest_free(m);
    }
    /* Thread directories on disk. */
    DIR *d = opendir(session);
    if (!d) {
        add_mm(r, max_mm, K_SES_001, ".", UINT64_MAX, NULL, "cannot list the output directory: %s", strerror(errno));
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t id;
        if (parse_thread_dir(e->d_name, &id) && !find_scen_thread(info, id))
            add_mm(r, max_mm, K_SES_001, e->d_name, UINT64_MAX, NULL,
                   "directory for a thread the scenario does not have");
    }
    closedir(d);
}

static void open_thread(scen_result *r, unsigned max_mm, const char *session, const atf_scenario_info *info,
                        cmp_thread *ct)
{
    const atf_scenario_thread *t = ct->t;
    snprintf(ct->rel_index, sizeof ct->rel_index, "thread_%" PRIu64 "/index.atf", t->id);
    snprintf(ct->rel_detail, sizeof ct->rel_detail, "thread_%" PRIu64 "/detail.atf", t->id);
    char *ip = kit_path_join(session, ct->rel_index);
    char *dp = kit_path_join(session, ct->rel_detail);
    if (!ip || !dp) {
        free(ip);
        free(dp);
        return;
    }
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = 0;   /* checksums are the validator's business; compare what is there */
    atf_error err;
    struct stat st;
    if (stat(ip, &st) != 0) {
        add_mm(r, max_mm, K_SES_001, ct->rel_index, UINT64_MAX, NULL, "missing");
    } else if (atf_index_reader_open(&ct->ix, ip, &ro, &err) != ATF_OK) {
        char line[400];
        atf_error_format(line, sizeof line, &err);
        add_mm(r, max_mm, K_IDX_001, ct->rel_index, UINT64_MAX, NULL, "cannot be read: %s", line);
        ct->ix = NULL;
    } else {
        ct->ix_count = atf_index_reader_count(ct->ix);
        const atf_index_header *h = atf_index_reader_header(ct->ix);
        const char *f = ct->rel_index;
#define HDR(cond, field, fmt, exp, act) \
    if (!(cond)) add_mm(r, max_mm, K_HDR_001, f, UINT64_MAX, field, "header " field " is " fmt ", expected " fmt, act, exp)
        HDR(h->version == info->layout, "version", "%u", info->layout, (unsigned)h->version);
        HDR(h->arch == info->arch, "arch", "%u", info->arch, (unsigned)h->arch);
        HDR(h->os == info->os, "os", "%u", info->os, (unsigned)h->os);
        HDR(h->clock_type == info->clock_type, "clock_type", "%u", info->clock_type, (unsigned)h->clock_type);
        HDR(h->thread_id == t->os_thread_id, "thread_id", "%" PRIu32, t->os_thread_id, h->thread_id);
        HDR((unsigned)(h->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE) == (unsigned)(t->detail ? 1 : 0), "flags",
            "%u (has_detail_file)", (unsigned)(t->detail ? 1 : 0), (unsigned)(h->flags & 1u));
#undef HDR
    }
    int have_detail = stat(dp, &st) == 0;
    if (have_detail != (t->detail != 0)) {
        add_mm(r, max_mm, K_HDR_002, ct->rel_detail, UINT64_MAX, NULL,
               have_detail ? "exists, but the scenario gives thread %" PRIu64 " no detail lane"
                           : "missing: the scenario gives thread %" PRIu64 " a detail lane", t->id);
    } else if (have_detail) {
        if (atf_detail_reader_open(&ct->dx, dp, &ro, &err) != ATF_OK) {
            char line[400];
            atf_error_format(line, sizeof line, &err);
            add_mm(r, max_mm, K_DET_001, ct->rel_detail, UINT64_MAX, NULL, "cannot be read: %s", line);
            ct->dx = NULL;
        } else {
            ct->dx_count = atf_detail_reader_count(ct->dx);
            const atf_detail_header *h = atf_detail_reader_header(ct->dx);
            const char *f = ct->rel_detail;
#define HDR(cond, field, fmt, exp, act) \
    if (!(cond)) add_mm(r, max_mm, K_HDR_002, f, UINT64_MAX, field, "header " field " is " fmt ", expected " fmt, act, exp)
            HDR(h->version == info->layout, "version", "%u", info->layout, (unsigned)h->version);
            HDR(h->arch == info->arch, "arch", "%u", info->arch, (unsigned)h->arch);
            HDR(h->os == info->os, "os", "%u", info->os, (unsigned)h->os);
            HDR(h->thread_id == t->os_thread_id, "thread_id", "%" PRIu32, t->os_thread_id, h->thread_id);
#undef HDR
        }
    }
    free(ip);
    free(dp);
}

static void compare_event(scen_result *r, unsigned max_mm, unsigned layout, cmp_thread *ct,
                          const atf_scenario_event *ev)
{
    uint64_t seq = ct->seq++;
    uint64_t dseq = ev->has_detail ? ct->dseq++ : ATF_NO_DETAIL;
    if (ct->ix && seq < ct->ix_count) {
        atf_index_event ie;
        if (atf_index_reader_get(ct->ix, seq, &ie) == ATF_OK) {
            const char *f = ct->rel_index;
#define FLD(cond, field, fmt, exp, act) \
    if (!(cond)) add_mm(r, max_mm, K_IDX_002, f, seq, field, field " is " fmt ", expected " fmt, act, exp)
            FLD(ie.timestamp_ns == ev->timestamp_ns, "timestamp_ns", "%" PRIu64, ev->timestamp_ns, ie.timestamp_ns);
            FLD(ie.function_id == ev->function_id, "function_id", "%" PRIu64, ev->function_id, ie.function_id);
            FLD(ie.event_kind == ev->event_kind, "event_kind", "%" PRIu32, ev->event_kind, ie.event_kind);
            if (layout == 1) {
                FLD(ie.thread_id == ev->thread_id, "thread_id", "%" PRIu32, ev->thread_id, ie.thread_id);
                FLD(ie.call_depth == ev->call_depth, "call_depth", "%" PRIu32, ev->call_depth, ie.call_depth);
            }
#undef FLD
            if (ie.detail_seq != dseq) {
                char e1[32], a1[32];
                if (dseq == ATF_NO_DETAIL)
                    snprintf(e1, sizeof e1, "the sentinel (no detail)");
                else
                    snprintf(e1, sizeof e1, "%" PRIu64, dseq);
                if (ie.detail_seq == ATF_NO_DETAIL)
                    snprintf(a1, sizeof a1, "the sentinel (no detail)");
                else
                    snprintf(a1, sizeof a1, "%" PRIu64, ie.detail_seq);
                add_mm(r, max_mm, K_IDX_003, f, seq, "detail_seq", "detail_seq is %s, expected %s", a1, e1);
            }
        }
    }
    if (!ev->has_detail || !ct->dx || dseq >= ct->dx_count)
        return;
    atf_detail_event de;
    if (atf_detail_reader_get(ct->dx, dseq, &de) != ATF_OK)
        return;
    const char *f = ct->rel_detail;
#define FLD(cond, field, fmt, exp, act) \
    if (!(cond)) add_mm(r, max_mm, K_DET_002, f, dseq, field, field " is " fmt ", expected " fmt, act, exp)
    FLD(de.total_length == 24u + ev->payload_size, "total_length", "%" PRIu32, 24u + ev->payload_size,
        de.total_length);
    FLD(de.event_type == ev->event_type, "event_type", "%u", (unsigned)ev->event_type, (unsigned)de.event_type);
    FLD(de.flags == ev->flags, "flags", "%u", (unsigned)ev->flags, (unsigned)de.flags);
    FLD(de.index_seq == seq, "index_seq", "%" PRIu64, seq, de.index_seq);
    FLD(de.timestamp == ev->timestamp, "timestamp", "%" PRIu64, ev->timestamp, de.timestamp);
    if (layout == 1)
        FLD(de.thread_id == ev->thread_id, "thread_id", "%" PRIu32, ev->thread_id, de.thread_id);
#undef FLD
    uint32_t n = de.payload_size < ev->payload_size ? de.payload_size : ev->payload_size;
    uint32_t at = n;
    if (n && memcmp(de.payload, ev->payload, n) != 0)
        for (at = 0; at < n && de.payload[at] == ev->payload[at]; at++)
            ;
    if (at < n)
        add_mm(r, max_mm, K_DET_003, f, dseq, "payload", "payload byte %" PRIu32 " is 0x%02x, expected 0x%02x (%"
               PRIu32 " bytes, expected %" PRIu32 ")", at, de.payload[at], ev->payload[at], de.payload_size,
               ev->payload_size);
    else if (de.payload_size != ev->payload_size)
        add_mm(r, max_mm, K_DET_003, f, dseq, "payload", "payload holds %" PRIu32 " bytes, expected %" PRIu32,
               de.payload_size, ev->payload_size);
}

/* Compares the session in @session with the scenario file @scen_path. */
static void compare_session(scen_result *r, unsigned max_mm, const char *scen_path, const char *session)
{
    atf_scenario_reader *sr = NULL;
    atf_error err;
    if (atf_scenario_open(&sr, scen_path, &err) != ATF_OK) {
        /* Checked before the adapter ran; only an I/O problem gets here. */
        char line[400];
        atf_error_format(line, sizeof line, &err);
        add_mm(r, max_mm, K_IDX_001, scen_path, UINT64_MAX, NULL, "cannot re-read the scenario: %s", line);
        return;
    }
    const atf_scenario_info *info = atf_scenario_reader_info(sr);
    for (int k = K_SES_001; k < K_COUNT; k++)
        r->check_ran[k] = 1;
    check_manifest(r, max_mm, session, info);
    cmp_thread *ct = calloc(info->thread_count, sizeof *ct);
    if (!ct) {
        atf_scenario_close(sr);
        add_mm(r, max_mm, K_IDX_001, ".", UINT64_MAX, NULL, "out of memory");
        return;
    }
    for (size_t i = 0; i < info->thread_count; i++) {
        ct[i].t = &info->threads[i];
        open_thread(r, max_mm, session, info, &ct[i]);
    }
    atf_scenario_event ev;
    int rc;
    while ((rc = atf_scenario_next(sr, &ev, &err)) == 1)
        compare_event(r, max_mm, info->layout, &ct[ev.thread_index], &ev);
    if (rc < 0) {
        char line[400];
        atf_error_format(line, sizeof line, &err);
        add_mm(r, max_mm, K_IDX_001, scen_path, UINT64_MAX, NULL, "cannot re-read the scenario: %s", line);
    }
    for (size_t i = 0; i < info->thread_count; i++) {
        if (ct[i].ix && ct[i].ix_count != ct[i].seq)
            add_mm(r, max_mm, K_IDX_001, ct[i].rel_index, UINT64_MAX, "event_count",
                   "holds %" PRIu64 " events, the scenario has %" PRIu64, ct[i].ix_count, ct[i].seq);
        if (ct[i].dx && ct[i].dx_count != ct[i].dseq)
            add_mm(r, max_mm, K_DET_001, ct[i].rel_detail, UINT64_MAX, "event_count",
                   "holds %" PRIu64 " detail events, the scenario has %" PRIu64, ct[i].dx_count, ct[i].dseq);
        atf_index_reader_close(ct[i].ix);
        atf_detail_reader_close(ct[i].dx);
    }
    free(ct);
    atf_scenario_close(sr);
}

/* ---- Running one scenario ------------------------------------------------ */

static int finding_fails(const kit_vfinding *f, unsigned strict)
{
    return f->error || f->recoverable || strict;
}

static void judge(scen_result *r, unsigned strict)
{
    r->pass = 1;
    if (r->skipped)
        return;
    for (int k = 0; k < K_COUNT; k++)
        if (r->check_failures[k])
            r->pass = 0;
    if (!r->ran_adapter)
        return;
    if (!r->v.ran)
        r->pass = 0;
    for (size_t i = 0; i < r->v.finding_count; i++)
        if (finding_fails(&r->v.findings[i], strict))
            r->pass = 0;
}

/* Checks a scenario file completely (syntax and rules); fills name, layout, counts. */
static atf_status precheck(const char *path, scen_result *r, atf_error *err)
{
    atf_scenario_reader *sr = NULL;
    atf_status st = atf_scenario_open(&sr, path, err);
    if (st)
        return st;
    const atf_scenario_info *info = atf_scenario_reader_info(sr);
    snprintf(r->name, sizeof r->name, "%s", info->name);
    snprintf(r->description, sizeof r->description, "%s", info->description);
    r->layout = info->layout;
    r->events = info->event_count;
    r->threads = info->thread_count;
    atf_scenario_event ev;
    int rc;
    while ((rc = atf_scenario_next(sr, &ev, err)) == 1)
        ;
    atf_scenario_close(sr);
    return rc < 0 ? (err && err->code ? err->code : ATF_E_FIELD) : ATF_OK;
}

static void run_one(run_ctx *c, scen_result *r, const char *work, const char *scen_path_in,
                    const atf_builtin_scenario *b, FILE *log)
{
    const atf_conform_writer_options *o = c->o;
    double t0 = kit_now();
    char *dir = kit_path_join(work, r->name);
    char *scen_path = b ? (dir ? kit_path_join(dir, "scenario.txt") : NULL) : kit_strdup(scen_path_in);
    char *session = dir ? kit_path_join(dir, "session") : NULL;
    if (!dir || !scen_path || !session) {
        r->skipped = 1;
        snprintf(r->skip_reason, sizeof r->skip_reason, "out of memory");
        goto out;
    }
    kit_rmtree(dir);
    if (atf_make_dirs(session) != 0) {
        r->skipped = 1;
        snprintf(r->skip_reason, sizeof r->skip_reason, "cannot create %s: %s", session, strerror(errno));
        goto out;
    }
    if (b) {
        uint64_t need = kit_builtin_scenario_bytes(b), have = kit_free_bytes(dir);
        if (have != UINT64_MAX && have < need + (64u << 20)) {
            r->skipped = 1;
            snprintf(r->skip_reason, sizeof r->skip_reason,
                     "not enough free disk space in %s: %" PRIu64 " MiB free, about %" PRIu64 " MiB needed", work,
                     have >> 20, (need >> 20) + 64);
            goto out;
        }
        atf_error err;
        atf_status st = atf_builtin_scenario_write(b->name, scen_path, &err);
        if (!st)
            st = precheck(scen_path, r, &err);
        if (st) {
            char line[400];
            atf_error_format(line, sizeof line, &err);
            r->skipped = 1;
            snprintf(r->skip_reason, sizeof r->skip_reason, "internal error, cannot generate the scenario: %.200s",
                     line);
            goto out;
        }
    }
    double timeout = o->timeout_s > 0 ? o->timeout_s : (b && b->slow ? 600.0 : 60.0);
    const char *args[2] = { scen_path, session };
    kit_proc_run(o->adapter, args, 2, timeout, NULL, NULL, &r->proc);
    r->ran_adapter = 1;
    r->check_ran[K_RUN_001] = 1;
    if (r->proc.state != KIT_PROC_EXITED || r->proc.exit_code != 0) {
        char what[300];
        kit_proc_describe(&r->proc, what, sizeof what);
        add_mm(r, c->max_mm, K_RUN_001, NULL, UINT64_MAX, NULL, "the adapter %s: %s",
               r->proc.state == KIT_PROC_EXITED     ? "reported a failure"
               : r->proc.state == KIT_PROC_SIGNALED ? "crashed"
               : r->proc.state == KIT_PROC_TIMEOUT  ? "did not finish"
                                                    : "could not be started",
               what);
        r->ran_adapter = 0;   /* nothing to validate */
        goto out;
    }
    kit_validate_session(session, &r->v);
    if (!r->v.ran)
        add_mm(r, c->max_mm, K_SES_001, ".", UINT64_MAX, NULL, "%s", r->v.error);
    compare_session(r, c->max_mm, scen_path, session);
out:
    r->seconds = kit_now() - t0;
    judge(r, o->strict);
    if (o->keep_dir && dir)
        r->kept = kit_strdup(dir);
    else if (dir)
        kit_rmtree(dir);
    if (log) {
        fprintf(log, "atf conform: %-4s %s (%.2f s)\n", r->skipped ? "SKIP" : r->pass ? "PASS" : "FAIL", r->name,
                r->seconds);
        fflush(log);
    }
    free(dir);
    free(scen_path);
    free(session);
}

/* ---- Reports ------------------------------------------------------------- */

static void text_scenario(FILE *out, const scen_result *r, unsigned strict)
{
    char what[64];
    snprintf(what, sizeof what, "%" PRIu64 " event%s, %zu thread%s, layout %u", r->events, r->events == 1 ? "" : "s",
             r->threads, r->threads == 1 ? "" : "s", r->layout);
    fprintf(out, "%-4s  %-26s %-40s %7.2f s\n", r->skipped ? "SKIP" : r->pass ? "PASS" : "FAIL", r->name, what,
            r->seconds);
    if (r->skipped) {
        fprintf(out, "      %s\n", r->skip_reason);
        return;
    }
    for (size_t i = 0; i < r->mm_count; i++) {
        const mismatch *m = &r->mm[i];
        fprintf(out, "      %s", KIT_CHECKS[m->check].id);
        if (m->file[0])
            fprintf(out, " %s", m->file);
        if (m->seq != UINT64_MAX)
            fprintf(out, " seq %" PRIu64, m->seq);
        fprintf(out, ": %s\n", m->message);
    }
    for (int k = 0; k < K_COUNT; k++)
        if (r->check_failures[k] > 0) {
            uint64_t listed = 0;
            for (size_t i = 0; i < r->mm_count; i++)
                listed += r->mm[i].check == k;
            if (r->check_failures[k] > listed)
                fprintf(out, "      %s: %" PRIu64 " more mismatch(es) not listed\n", KIT_CHECKS[k].id,
                        r->check_failures[k] - listed);
        }
    if (r->proc.state == KIT_PROC_EXITED && r->proc.exit_code == 0 && r->v.ran) {
        for (size_t i = 0; i < r->v.finding_count; i++) {
            const kit_vfinding *f = &r->v.findings[i];
            fprintf(out, "      %s %s %s", f->error ? "error" : "warning", f->clause, f->file);
            if (f->offset != UINT64_MAX)
                fprintf(out, ": offset %" PRIu64, f->offset);
            if (f->field)
                fprintf(out, ": field %s", f->field);
            fprintf(out, ": %s%s\n", f->message,
                    !f->error && f->recoverable ? " [fails: the adapter reported success, files must be finished]"
                    : !f->error && strict       ? " [fails: --strict]"
                                                : "");
        }
    }
    if ((!r->pass || r->proc.state != KIT_PROC_EXITED) && r->proc.err_total) {
        fprintf(out, "      adapter stderr (%" PRIu64 " bytes):", r->proc.err_total);
        const char *s = r->proc.err_head;
        int lines = 0;
        while (*s && lines < 8) {
            const char *nl = strchr(s, '\n');
            size_t n = nl ? (size_t)(nl - s) : strlen(s);
            fprintf(out, "\n        | %.*s", (int)(n > 200 ? 200 : n), s);
            s += n + (nl ? 1 : 0);
            lines++;
        }
        fputc('\n', out);
    }
    if (r->kept)
        fprintf(out, "      kept: %s\n", r->kept);
}

/* Per-clause totals across scenarios. */
typedef struct clause_total {
    char id[24];
    unsigned checked, failed, warned;
} clause_total;

static clause_total *totals_get(clause_total **arr, size_t *n, size_t *cap, const char *id)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*arr)[i].id, id))
            return &(*arr)[i];
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        clause_total *na = realloc(*arr, nc * sizeof *na);
        if (!na)
            return NULL;
        *arr = na;
        *cap = nc;
    }
    clause_total *t = &(*arr)[(*n)++];
    memset(t, 0, sizeof *t);
    snprintf(t->id, sizeof t->id, "%s", id);
    return t;
}

static int cmp_total(const void *a, const void *b)
{
    return strcmp(((const clause_total *)a)->id, ((const clause_total *)b)->id);
}

/* Status of clause @id in scenario @r: 0 not checked, 1 pass, 2 warning (not failing), 3 fail. */
static int clause_status(const scen_result *r, const char *id, unsigned strict)
{
    for (int k = 0; k < K_COUNT; k++)
        if (!strcmp(KIT_CHECKS[k].id, id))
            return !r->check_ran[k] ? 0 : r->check_failures[k] ? 3 : 1;
    int checked = 0, st = 1;
    for (size_t i = 0; i < r->v.checked_count; i++)
        if (!strcmp(r->v.checked[i], id))
            checked = 1;
    for (size_t i = 0; i < r->v.finding_count; i++)
        if (!strcmp(r->v.findings[i].clause, id)) {
            checked = 1;
            int s = finding_fails(&r->v.findings[i], strict) ? 3 : 2;
            if (s > st)
                st = s;
        }
    return checked ? st : 0;
}

static clause_total *build_totals(const run_ctx *c, size_t *count)
{
    clause_total *arr = NULL;
    size_t n = 0, cap = 0;
    for (int k = 0; k < K_COUNT; k++)
        totals_get(&arr, &n, &cap, KIT_CHECKS[k].id);
    for (size_t s = 0; s < c->count; s++) {
        const scen_result *r = &c->res[s];
        for (size_t i = 0; i < r->v.checked_count; i++)
            totals_get(&arr, &n, &cap, r->v.checked[i]);
        for (size_t i = 0; i < r->v.finding_count; i++)
            totals_get(&arr, &n, &cap, r->v.findings[i].clause);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < c->count; s++) {
            int st = clause_status(&c->res[s], arr[i].id, c->o->strict);
            arr[i].checked += st > 0;
            arr[i].warned += st == 2;
            arr[i].failed += st == 3;
        }
    if (n)
        qsort(arr, n, sizeof *arr, cmp_total);
    *count = n;
    return arr;
}

static void text_summary(FILE *out, const run_ctx *c)
{
    size_t nt = 0;
    clause_total *t = build_totals(c, &nt);
    size_t passed = 0, failed = 0, skipped = 0, failing_clauses = 0;
    for (size_t i = 0; i < c->count; i++) {
        skipped += c->res[i].skipped;
        passed += !c->res[i].skipped && c->res[i].pass;
        failed += !c->res[i].skipped && !c->res[i].pass;
    }
    for (size_t i = 0; i < nt; i++)
        failing_clauses += t[i].failed > 0;
    fprintf(out, "\nclauses: %zu checked (SPEC.md clauses and KIT- checks), %zu failed%s\n", nt, failing_clauses,
            failing_clauses ? ":" : "");
    for (size_t i = 0; i < nt; i++) {
        if (!t[i].failed)
            continue;
        fprintf(out, "  %-12s failed in %u of %u scenario(s):", t[i].id, t[i].failed, t[i].checked);
        unsigned shown = 0;
        for (size_t s = 0; s < c->count && shown < 8; s++)
            if (clause_status(&c->res[s], t[i].id, c->o->strict) == 3) {
                fprintf(out, " %s", c->res[s].name);
                shown++;
            }
        fprintf(out, "%s\n", t[i].failed > shown ? " ..." : "");
    }
    fprintf(out, "writer kit: %zu passed, %zu failed, %zu skipped (%zu scenario%s)%s\n", passed, failed, skipped,
            c->count, c->count == 1 ? "" : "s", c->o->strict ? " [--strict]" : "");
    free(t);
}

static void json_report(FILE *out, const run_ctx *c)
{
    size_t passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < c->count; i++) {
        skipped += c->res[i].skipped;
        passed += !c->res[i].skipped && c->res[i].pass;
        failed += !c->res[i].skipped && !c->res[i].pass;
    }
    fputs("{\"schema\":\"atf-conform-writer/1\",\"adapter\":", out);
    kit_json_string(out, c->o->adapter);
    fprintf(out, ",\"strict\":%s,\"verdict\":\"%s\",\"counts\":{\"scenarios\":%zu,\"passed\":%zu,\"failed\":%zu,"
                 "\"skipped\":%zu},\"checks\":[",
            c->o->strict ? "true" : "false", failed ? "fail" : "pass", c->count, passed, failed, skipped);
    for (int k = 0; k < K_COUNT; k++) {
        fprintf(out, "%s{\"id\":\"%s\",\"summary\":", k ? "," : "", KIT_CHECKS[k].id);
        kit_json_string(out, KIT_CHECKS[k].summary);
        fputc('}', out);
    }
    fputs("],\"scenarios\":[", out);
    for (size_t s = 0; s < c->count; s++) {
        const scen_result *r = &c->res[s];
        fputs(s ? ",{\"name\":" : "{\"name\":", out);
        kit_json_string(out, r->name);
        fputs(",\"description\":", out);
        kit_json_string(out, r->description);
        fputs(",\"source\":", out);
        kit_json_string(out, r->source);
        fprintf(out, ",\"layout\":%u,\"events\":%" PRIu64 ",\"threads\":%zu,\"verdict\":\"%s\",\"seconds\":%.3f",
                r->layout, r->events, r->threads, r->skipped ? "skipped" : r->pass ? "pass" : "fail", r->seconds);
        fputs(",\"skip_reason\":", out);
        kit_json_string(out, r->skipped ? r->skip_reason : NULL);
        fputs(",\"adapter\":", out);
        if (r->skipped || r->proc.state == KIT_PROC_SPAWN_FAILED) {
            if (r->skipped) {
                fputs("null", out);
            } else {
                fputs("{\"status\":\"spawn-failed\",\"error\":", out);
                kit_json_string(out, r->proc.spawn_error);
                fputc('}', out);
            }
        } else {
            static const char *names[] = { "exited", "signaled", "timeout", "spawn-failed" };
            fprintf(out, "{\"status\":\"%s\",\"exit_code\":", names[r->proc.state]);
            if (r->proc.state == KIT_PROC_EXITED)
                fprintf(out, "%d", r->proc.exit_code);
            else
                fputs("null", out);
            fputs(",\"signal\":", out);
            if (r->proc.state == KIT_PROC_SIGNALED)
                fprintf(out, "%d", r->proc.signal);
            else
                fputs("null", out);
            fprintf(out, ",\"seconds\":%.3f,\"stderr_bytes\":%" PRIu64 ",\"stderr\":", r->proc.seconds,
                    r->proc.err_total);
            kit_json_string(out, r->proc.err_head);
            fputc('}', out);
        }
        fputs(",\"validation\":", out);
        if (!r->v.ran) {
            fputs("null", out);
        } else {
            fprintf(out, "{\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64 ",\"clauses_checked\":[", r->v.errors,
                    r->v.warnings);
            for (size_t i = 0; i < r->v.checked_count; i++)
                fprintf(out, "%s\"%s\"", i ? "," : "", r->v.checked[i]);
            fputs("],\"findings\":[", out);
            for (size_t i = 0; i < r->v.finding_count; i++) {
                const kit_vfinding *f = &r->v.findings[i];
                fprintf(out, "%s{\"clause\":\"%s\",\"severity\":\"%s\",\"fails\":%s,\"file\":", i ? "," : "",
                        f->clause, f->error ? "error" : "warning",
                        finding_fails(f, c->o->strict) ? "true" : "false");
                kit_json_string(out, f->file);
                if (f->offset == UINT64_MAX)
                    fputs(",\"offset\":null", out);
                else
                    fprintf(out, ",\"offset\":%" PRIu64, f->offset);
                fputs(",\"field\":", out);
                kit_json_string(out, f->field);
                fputs(",\"message\":", out);
                kit_json_string(out, f->message);
                fputc('}', out);
            }
            fputs("]}", out);
        }
        fputs(",\"checks\":{", out);
        int first = 1;
        for (int k = 0; k < K_COUNT; k++) {
            if (!r->check_ran[k])
                continue;
            fprintf(out, "%s\"%s\":%" PRIu64, first ? "" : ",", KIT_CHECKS[k].id, r->check_failures[k]);
            first = 0;
        }
        fputs("},\"mismatches\":[", out);
        for (size_t i = 0; i < r->mm_count; i++) {
            const mismatch *m = &r->mm[i];
            fprintf(out, "%s{\"check\":\"%s\",\"file\":", i ? "," : "", KIT_CHECKS[m->check].id);
            kit_json_string(out, m->file);
            if (m->seq == UINT64_MAX)
                fputs(",\"seq\":null", out);
            else
                fprintf(out, ",\"seq\":%" PRIu64, m->seq);
            fputs(",\"field\":", out);
            kit_json_string(out, m->field[0] ? m->field : NULL);
            fputs(",\"message\":", out);
            kit_json_string(out, m->message);
            fputc('}', out);
        }
        fputs("],\"failed_clauses\":[", out);
        /* Every clause or check that failed in this scenario, sorted. */
        size_t nt = 0;
        clause_total *t = build_totals(c, &nt);
        int firstc = 1;
        for (size_t i = 0; i < nt; i++)
            if (clause_status(r, t[i].id, c->o->strict) == 3) {
                fprintf(out, "%s\"%s\"", firstc ? "" : ",", t[i].id);
                firstc = 0;
            }
        free(t);
        fputs("],\"kept\":", out);
        kit_json_string(out, r->kept);
        fputc('}', out);
    }
    fputs("],\"clauses\":[", out);
    size_t nt = 0;
    clause_total *t = build_totals(c, &nt);
    for (size_t i = 0; i < nt; i++) {
        fprintf(out, "%s{\"id\":\"%s\",\"checked\":%u,\"passed\":%u,\"warned\":%u,\"failed\":%u,\"failed_in\":[",
                i ? "," : "", t[i].id, t[i].checked, t[i].checked - t[i].failed - t[i].warned, t[i].warned,
                t[i].failed);
        int first = 1;
        for (size_t s = 0; s < c->count; s++)
            if (clause_status(&c->res[s], t[i].id, c->o->strict) == 3) {
                fputs(first ? "" : ",", out);
                kit_json_string(out, c->res[s].name);
                first = 0;
            }
        fputs("]}", out);
    }
    free(t);
    fputs("]}\n", out);
}

static void junit_report(FILE *out, const run_ctx *c)
{
    size_t nt = 0;
    clause_total *t = build_totals(c, &nt);
    unsigned tests = 0, failures = 0, skipped = 0;
    for (size_t s = 0; s < c->count; s++)
        for (size_t i = 0; i < nt; i++) {
            int st = clause_status(&c->res[s], t[i].id, c->o->strict);
            tests += st > 0;
            failures += st == 3;
        }
    for (size_t s = 0; s < c->count; s++)
        if (c->res[s].skipped) {
            tests++;
            skipped++;
        }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"atf-conform-writer\" tests=\"%u\" "
                 "failures=\"%u\" skipped=\"%u\">\n", tests, failures, skipped);
    for (size_t s = 0; s < c->count; s++) {
        const scen_result *r = &c->res[s];
        unsigned st_tests = 0, st_fail = 0;
        for (size_t i = 0; i < nt; i++) {
            int st = clause_status(r, t[i].id, c->o->strict);
            st_tests += st > 0;
            st_fail += st == 3;
        }
        fputs("  <testsuite name=\"", out);
        kit_xml_text(out, r->name);
        fprintf(out, "\" tests=\"%u\" failures=\"%u\" skipped=\"%u\" time=\"%.3f\">\n", st_tests + (r->skipped ? 1 : 0),
                st_fail, r->skipped ? 1u : 0u, r->seconds);
        if (r->skipped) {
            fputs("    <testcase classname=\"atf.conform.writer.", out);
            kit_xml_text(out, r->name);
            fputs("\" name=\"scenario\"><skipped message=\"", out);
            kit_xml_text(out, r->skip_reason);
            fputs("\"/></testcase>\n", out);
        }
        for (size_t i = 0; i < nt; i++) {
            int st = clause_status(r, t[i].id, c->o->strict);
            if (!st)
                continue;
            char group[24];
            kit_clause_group(t[i].id, group, sizeof group);
            fputs("    <testcase classname=\"atf.conform.writer.", out);
            kit_xml_text(out, r->name);
            fprintf(out, ".%s\" name=\"%s\">", group, t[i].id);
            /* The messages of this clause in this scenario. */
            int kit = -1;
            for (int k = 0; k < K_COUNT; k++)
                if (!strcmp(KIT_CHECKS[k].id, t[i].id))
                    kit = k;
            const char *first_msg = NULL;
            if (kit >= 0) {
                for (size_t m = 0; m < r->mm_count && !first_msg; m++)
                    if (r->mm[m].check == kit)
                        first_msg = r->mm[m].message;
            } else {
                for (size_t f = 0; f < r->v.finding_count && !first_msg; f++)
                    if (!strcmp(r->v.findings[f].clause, t[i].id))
                        first_msg = r->v.findings[f].message;
            }
            if (st == 3) {
                fputs("<failure message=\"", out);
                kit_xml_text(out, first_msg ? first_msg : t[i].id);
                fputs("\">", out);
            } else if (st == 2) {
                fputs("<system-out>", out);
            }
            if (st >= 2) {
                if (kit >= 0) {
                    for (size_t m = 0; m < r->mm_count; m++)
                        if (r->mm[m].check == kit) {
                            kit_xml_text(out, r->mm[m].file);
                            fputs(": ", out);
                            kit_xml_text(out, r->mm[m].message);
                            fputc('\n', out);
                        }
                } else {
                    for (size_t f = 0; f < r->v.finding_count; f++)
                        if (!strcmp(r->v.findings[f].clause, t[i].id)) {
                            fputs(r->v.findings[f].error ? "error " : "warning ", out);
                            kit_xml_text(out, r->v.findings[f].file);
                            fputs(": ", out);
                            kit_xml_text(out, r->v.findings[f].message);
                            fputc('\n', out);
                        }
                }
                fputs(st == 3 ? "</failure>" : "</system-out>", out);
            }
            fputs("</testcase>\n", out);
        }
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
    free(t);
}

/* ---- Entry points -------------------------------------------------------- */

atf_status atf_conform_list_scenarios(FILE *out, atf_conform_format format)
{
    if (!out)
        return ATF_E_ARG;
    size_t n = atf_builtin_scenario_count();
    if (format == ATF_CONFORM_JSON) {
        fputs("{\"schema\":\"atf-conform-scenarios/1\",\"scenarios\":[", out);
        for (size_t i = 0; i < n; i++) {
            const atf_builtin_scenario *s = atf_builtin_scenario_at(i);
            fputs(i ? ",{\"name\":" : "{\"name\":", out);
            kit_json_string(out, s->name);
            fprintf(out, ",\"layout\":%u,\"events\":%" PRIu64 ",\"slow\":%s,\"description\":", s->layout, s->events,
                    s->slow ? "true" : "false");
            kit_json_string(out, s->description);
            fputc('}', out);
        }
        fputs("]}\n", out);
    } else {
        for (size_t i = 0; i < n; i++) {
            const atf_builtin_scenario *s = atf_builtin_scenario_at(i);
            fprintf(out, "%-24s layout %u %9" PRIu64 " event%s%s  %s\n", s->name, s->layout, s->events,
                    s->events == 1 ? " " : "s", s->slow ? " (slow)" : "       ", s->description);
        }
    }
    return ferror(out) ? ATF_E_IO : ATF_OK;
}

static scen_result *new_result(run_ctx *c)
{
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        scen_result *n = realloc(c->res, cap * sizeof *n);
        if (!n)
            return NULL;
        c->res = n;
        c->cap = cap;
    }
    scen_result *r = &c->res[c->count++];
    memset(r, 0, sizeof *r);
    return r;
}

int atf_conform_writer_run(FILE *out, FILE *log, const atf_conform_writer_options *o, atf_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!out || !o || !o->adapter || !*o->adapter) {
        kit_status_fail(err, ATF_E_ARG, NULL, "no adapter command");
        return ATF_CONFORM_ERROR;
    }
    if (o->format != ATF_CONFORM_TEXT && o->format != ATF_CONFORM_JSON && o->format != ATF_CONFORM_JUNIT) {
        kit_status_fail(err, ATF_E_ARG, NULL, "unknown report format");
        return ATF_CONFORM_ERROR;
    }
    /* Resolve what to run, and refuse unknown names and bad files before running anything. */
    size_t nb = atf_builtin_scenario_count();
    const atf_builtin_scenario **sel = calloc(nb + o->scenario_count + 1, sizeof *sel);
    if (!sel) {
        kit_status_fail(err, ATF_E_NOMEM, NULL, "out of memory");
        return ATF_CONFORM_ERROR;
    }
    size_t nsel = 0;
    if (o->scenario_count) {
        for (size_t i = 0; i < o->scenario_count; i++) {
            const atf_builtin_scenario *s = atf_builtin_scenario_find(o->scenarios[i]);
            if (!s) {
                kit_status_fail(err, ATF_E_NOT_FOUND, NULL, "no built-in scenario named '%s' (see --list)",
                                o->scenarios[i]);
                free(sel);
                return ATF_CONFORM_ERROR;
            }
            sel[nsel++] = s;
        }
    } else if (!o->scenario_file_count) {
        for (size_t i = 0; i < nb; i++) {
            const atf_builtin_scenario *s = atf_builtin_scenario_at(i);
            if (!(o->no_slow && s->slow))
                sel[nsel++] = s;
        }
    }
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.max_mm = o->max_mismatches ? o->max_mismatches : 10;
    /* Scenario files are read completely before anything runs. Names must
     * be unique: each one names a work directory. */
    scen_result *probes = calloc(o->scenario_file_count + 1, sizeof *probes);
    if (!probes) {
        kit_status_fail(err, ATF_E_NOMEM, NULL, "out of memory");
        free(sel);
        return ATF_CONFORM_ERROR;
    }
    for (size_t i = 0; i < o->scenario_file_count; i++) {
        if (precheck(o->scenario_files[i], &probes[i], err) != ATF_OK) {
            free(probes);
            free(sel);
            return ATF_CONFORM_ERROR;
        }
        for (size_t j = 0; j < nsel + i; j++) {
            const char *other = j < nsel ? sel[j]->name : probes[j - nsel].name;
            if (!strcmp(other, probes[i].name)) {
                kit_status_fail(err, ATF_E_ARG, o->scenario_files[i], "a scenario named '%s' is already selected",
                                other);
                free(probes);
                free(sel);
                return ATF_CONFORM_ERROR;
            }
        }
    }
    for (size_t i = 1; i < nsel; i++)
        for (size_t j = 0; j < i; j++)
            if (sel[i] == sel[j]) {
                kit_status_fail(err, ATF_E_ARG, NULL, "scenario '%s' is named twice", sel[i]->name);
                free(probes);
                free(sel);
                return ATF_CONFORM_ERROR;
            }
    /* Work directory. */
    char *work = NULL;
    int temp_work = 0;
    if (o->keep_dir) {
        if (atf_make_dirs(o->keep_dir) != 0) {
            kit_status_fail(err, ATF_E_IO, o->keep_dir, "cannot create: %s", strerror(errno));
            free(probes);
            free(sel);
            return ATF_CONFORM_ERROR;
        }
        work = kit_strdup(o->keep_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        work = kit_sprintf("%s/atf-conform-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (work && !mkdtemp(work)) {
            kit_status_fail(err, ATF_E_IO, work, "cannot create a temporary directory: %s", strerror(errno));
            free(work);
            free(probes);
            free(sel);
            return ATF_CONFORM_ERROR;
        }
        temp_work = 1;
    }
    if (!work) {
        kit_status_fail(err, ATF_E_NOMEM, NULL, "out of memory");
        free(probes);
        free(sel);
        return ATF_CONFORM_ERROR;
    }
    if (o->format == ATF_CONFORM_TEXT) {
        fputs("atf conform --writer ", out);
        fputs(o->adapter, out);
        fprintf(out, "\n(%zu scenario%s; %s)\n\n", nsel + o->scenario_file_count,
                nsel + o->scenario_file_count == 1 ? "" : "s",
                o->strict ? "--strict: validator warnings fail" : "validator errors fail; warnings are listed");
        fflush(out);
    }
    int rc = ATF_CONFORM_PASS;
    for (size_t i = 0; i < nsel + o->scenario_file_count; i++) {
        scen_result *r = new_result(&c);
        if (!r) {
            kit_status_fail(err, ATF_E_NOMEM, NULL, "out of memory");
            rc = ATF_CONFORM_ERROR;
            break;
        }
        if (i < nsel) {
            const atf_builtin_scenario *b = sel[i];
            snprintf(r->name, sizeof r->name, "%s", b->name);
            snprintf(r->description, sizeof r->description, "%s", b->description);
            r->source = "builtin";
            r->layout = b->layout;
            r->events = b->events;
            run_one(&c, r, work, NULL, b, o->format == ATF_CONFORM_TEXT ? NULL : log);
        } else {
            const char *path = o->scenario_files[i - nsel];
            const scen_result *p = &probes[i - nsel];
            memcpy(r->name, p->name, sizeof r->name);
            memcpy(r->description, p->description, sizeof r->description);
            r->layout = p->layout;
            r->events = p->events;
            r->threads = p->threads;
            r->source = path;
            run_one(&c, r, work, path, NULL, o->format == ATF_CONFORM_TEXT ? NULL : log);
        }
        if (o->format == ATF_CONFORM_TEXT) {
            text_scenario(out, r, o->strict);
            fflush(out);
        }
    }
    if (rc != ATF_CONFORM_ERROR) {
        for (size_t i = 0; i < c.count; i++)
            if (!c.res[i].skipped && !c.res[i].pass)
                rc = ATF_CONFORM_FAIL;
        if (o->format == ATF_CONFORM_TEXT)
            text_summary(out, &c);
        else if (o->format == ATF_CONFORM_JSON)
            json_report(out, &c);
        else
            junit_report(out, &c);
        if (fflush(out) != 0 || ferror(out)) {
            kit_status_fail(err, ATF_E_IO, NULL, "cannot write the report");
            rc = ATF_CONFORM_ERROR;
        }
    }
    for (size_t i = 0; i < c.count; i++) {
        scen_result *r = &c.res[i];
        kit_vresult_free(&r->v);
        for (size_t k = 0; k < r->mm_count; k++) {
            free(r->mm[k].file);
            free(r->mm[k].message);
        }
        free(r->mm);
        free(r->kept);
    }
    free(c.res);
    if (temp_work)
        kit_rmtree(work);
    free(work);
    free(probes);
    free(sel);
    return rc;
}
