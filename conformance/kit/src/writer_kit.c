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

#include "internal.h"   /* the codec's: atf_make_dirs, atf_thread_dir_id */
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

/* What a mismatch means (README, "Verdicts and checks"). The kit grades by
 * the spec's severities: a session the spec calls wrong is an error; a
 * session that conforms but is not what the scenario asked for is a fidelity
 * failure (beyond the spec, its own category); what the spec calls a warning
 * warns (fails with --strict); what the spec leaves to the writer is reported
 * as implementation-defined and never fails. */
enum { CAT_DEFAULT = -1, CAT_ERROR = 0, CAT_FIDELITY, CAT_WARNING, CAT_IMPL, CAT_COUNT };
static const char *const CAT_NAMES[CAT_COUNT] = { "error", "fidelity", "warning", "implementation-defined" };

/* The category of a check's mismatches unless the call site says otherwise:
 * files or events missing or unreadable are errors; values that differ from
 * the scenario are fidelity failures. */
static int default_category(int check)
{
    switch (check) {
    case K_SES_002:
    case K_HDR_001:
    case K_IDX_002:
    case K_IDX_003:
    case K_DET_002:
    case K_DET_003: return CAT_FIDELITY;
    default: return CAT_ERROR;
    }
}

static int category_fails(int cat, unsigned strict)
{
    return cat == CAT_ERROR || cat == CAT_FIDELITY || (cat == CAT_WARNING && strict);
}

typedef struct mismatch {
    int check;
    int category;
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
    uint64_t check_failures[K_COUNT];        /* mismatches of each check, every category */
    uint64_t check_cat[K_COUNT][CAT_COUNT];  /* ... by category */
    int check_ran[K_COUNT];
    int not_applicable;      /* outside the adapter's declared capabilities: not run */
    char na_reason[400];
    unsigned arch, os, clock_type;           /* the scenario's platform */
    unsigned expect_os, expect_clock;        /* what the headers must say (the adapter may write its own) */
    char adapted[160];       /* "" or what the kit expects instead of the scenario's values, and why */
    int any_detail, any_exception;
    size_t symbol_count;
    const char *scrub[3];    /* temporary paths replaced in messages: session, scenario file, work dir */
    mismatch *mm;
    size_t mm_count, mm_cap;
    int pass;
    double seconds;
    char *kept;              /* directory kept, or NULL */
} scen_result;

/* What the temporary paths of r->scrub are called in messages (the adapter contract's names). */
static const char *const SCRUB_NAMES[3] = { "OUTPUT_DIR", "SCENARIO_FILE", "<work dir>" };

/* What the adapter declares it can write (README, "Capabilities"): sets of
 * values as bit masks (bit V: value V). */
typedef struct kit_caps {
    int declared;            /* 0: no declaration: every scenario applies */
    uint32_t layouts, arch, os, clock;
    int detail, exceptions, symbols;
    uint64_t threads;        /* the most threads the adapter writes; 0: no limit */
    char text[240];          /* the declaration in one line, for the report */
} kit_caps;

typedef struct run_ctx {
    const atf_conform_writer_options *o;
    kit_caps caps;
    int temp_work;           /* the work directory is temporary: scrub its paths from messages */
    char error[400];         /* "" or why the run is an error although it ran (nothing was tested) */
    unsigned max_mm;
    scen_result *res;
    size_t count, cap;
} run_ctx;

static void add_mm(scen_result *r, unsigned max_mm, int check, int cat, const char *file, uint64_t seq,
                   const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 8, 9)))
#endif
    ;

static void add_mm(scen_result *r, unsigned max_mm, int check, int cat, const char *file, uint64_t seq,
                   const char *field, const char *fmt, ...)
{
    if (cat == CAT_DEFAULT)
        cat = default_category(check);
    r->check_failures[check]++;
    r->check_cat[check][cat]++;
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
    kit_scrub_paths(msg, sizeof msg, r->scrub, SCRUB_NAMES, 3);
    mismatch *m = &r->mm[r->mm_count++];
    memset(m, 0, sizeof *m);
    m->check = check;
    m->category = cat;
    char where[512];
    snprintf(where, sizeof where, "%s", file ? file : "");
    kit_scrub_paths(where, sizeof where, r->scrub, SCRUB_NAMES, 3);
    m->file = kit_strdup(where);
    m->seq = seq;
    snprintf(m->field, sizeof m->field, "%s", field ? field : "");
    m->message = kit_strdup(msg);
}

static const char *verdict_word(const scen_result *r);

/* ---- Comparison ---------------------------------------------------------- */

typedef struct cmp_thread {
    const atf_scenario_thread *t;
    char rel_index[64], rel_detail[64];
    atf_index_reader *ix;
    atf_detail_reader *dx;
    uint64_t ix_count, dx_count;
    uint64_t seq, dseq;
    int detail_missing;      /* the scenario gives a detail lane, and there is no detail.atf */
} cmp_thread;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const atf_scenario_thread *find_scen_thread(const atf_scenario_info *info, uint64_t id)
{
    size_t i;
    return kit_scenario_thread_find(info->threads, info->thread_count, id, &i) ? &info->threads[i] : NULL;
}

/* @empty_false[i] is set when the manifest says has_detail false for
 * scenario thread i, which has a detail lane: judged once the events are
 * known (a lane that recorded nothing and has no detail.atf may say false). */
static void check_manifest(scen_result *r, unsigned max_mm, const char *session, const atf_scenario_info *info,
                           unsigned char *empty_false)
{
    r->check_ran[K_SES_001] = r->check_ran[K_SES_002] = 1;
    char *mpath = atf_path_join(session, "manifest.json");
    atf_manifest *m = NULL;
    atf_error err;
    memset(&err, 0, sizeof err);
    atf_status st = mpath ? atf_manifest_load(&m, mpath, &err) : ATF_E_NOMEM;
    free(mpath);
    if (st) {
        char line[400];
        atf_error_format(line, sizeof line, &err);
        add_mm(r, max_mm, K_SES_001, CAT_DEFAULT, "manifest.json", UINT64_MAX, NULL, "cannot load: %s",
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
                    add_mm(r, max_mm, K_SES_001, CAT_DEFAULT, "manifest.json", UINT64_MAX, "threads",
                           "lists thread %" PRIu64 ", which the scenario does not have", ids[i]);
                    i++;
                } else if (i == m->thread_count || info->threads[j].id < ids[i]) {
                    add_mm(r, max_mm, K_SES_001, CAT_DEFAULT, "manifest.json", UINT64_MAX, "threads",
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
            /* A has_detail that disagrees is SES-MAN-005, a warning of the spec. */
            if (sct && sct->detail && mt->has_detail == 0 && empty_false)
                empty_false[sct - info->threads] = 1;
            else if (sct && mt->has_detail >= 0 && mt->has_detail != sct->detail)
                add_mm(r, max_mm, K_SES_001, CAT_WARNING, "manifest.json", UINT64_MAX, "has_detail",
                       "thread %" PRIu64 ": has_detail is %s, the scenario says %s", mt->id,
                       mt->has_detail ? "true" : "false", sct->detail ? "true" : "false");
        }
        /* Symbols: both lists are sorted by function_id. */
        size_t i = 0, j = 0;
        while (i < m->symbol_count || j < info->symbol_count) {
            const atf_manifest_symbol *ms = i < m->symbol_count ? &m->symbols[i] : NULL;
            const atf_scenario_symbol *ss = j < info->symbol_count ? &info->symbols[j] : NULL;
            if (ms && (!ss || ms->function_id < ss->function_id)) {
                add_mm(r, max_mm, K_SES_002, CAT_DEFAULT, "manifest.json", UINT64_MAX, "symbols",
                       "symbol %" PRIu64 " (\"%.100s\") is not in the scenario", ms->function_id, ms->name);
                i++;
            } else if (!ms || ss->function_id < ms->function_id) {
                add_mm(r, max_mm, K_SES_002, CAT_DEFAULT, "manifest.json", UINT64_MAX, "symbols",
                       "symbol %" PRIu64 " (\"%.100s\") is missing", ss->function_id, ss->name);
                j++;
            } else {
                if (strcmp(ms->name ? ms->name : "", ss->name) != 0)
                    add_mm(r, max_mm, K_SES_002, CAT_DEFAULT, "manifest.json", UINT64_MAX, "symbols",
                           "symbol %" PRIu64 ": name \"%.100s\", expected \"%.100s\"", ss->function_id,
                           ms->name ? ms->name : "", ss->name);
                i++;
                j++;
            }
        }
        if (m->events_dropped)
            add_mm(r, max_mm, K_SES_002, CAT_DEFAULT, "manifest.json", UINT64_MAX, "events_dropped",
                   "events_dropped is %" PRIu64 ": the writer lost events", m->events_dropped);
        atf_manifest_free(m);
    }
    /* Thread directories on disk. */
    DIR *d = opendir(session);
    if (!d) {
        add_mm(r, max_mm, K_SES_001, CAT_DEFAULT, ".", UINT64_MAX, NULL, "cannot list the output directory: %s", strerror(errno));
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t id;
        if (atf_thread_dir_id(e->d_name, &id) && !find_scen_thread(info, id))
            add_mm(r, max_mm, K_SES_001, CAT_DEFAULT, e->d_name, UINT64_MAX, NULL,
                   "directory for a thread the scenario does not have");
    }
    closedir(d);
}

/* The header fields an index and a detail file share: version (the layout),
 * arch, os; mismatches under `check` (K_HDR_001 index, K_HDR_002 detail). */
static void check_platform(scen_result *r, unsigned max_mm, int check, const char *f, const atf_scenario_info *info,
                           unsigned version, unsigned arch, unsigned os)
{
#define HDR(cond, field, exp, act) \
    if (!(cond)) add_mm(r, max_mm, check, CAT_DEFAULT, f, UINT64_MAX, field, "header " field " is %u, expected %u", act, exp)
    HDR(version == info->layout, "version", info->layout, version);
    HDR(arch == info->arch, "arch", info->arch, arch);
    HDR(os == r->expect_os, "os", r->expect_os, os);
#undef HDR
}

static void open_thread(scen_result *r, unsigned max_mm, const char *session, const atf_scenario_info *info,
                        cmp_thread *ct)
{
    const atf_scenario_thread *t = ct->t;
    snprintf(ct->rel_index, sizeof ct->rel_index, "thread_%" PRIu64 "/index.atf", t->id);
    snprintf(ct->rel_detail, sizeof ct->rel_detail, "thread_%" PRIu64 "/detail.atf", t->id);
    char *ip = atf_path_join(session, ct->rel_index);
    char *dp = atf_path_join(session, ct->rel_detail);
    if (!ip || !dp) {
        free(ip);
        free(dp);
        return;
    }
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = 0;   /* checksums are the validator's business; compare what is there */
    atf_error err;
    struct stat st;
    int have_detail = stat(dp, &st) == 0;
    if (stat(ip, &st) != 0) {
        add_mm(r, max_mm, K_SES_001, CAT_DEFAULT, ct->rel_index, UINT64_MAX, NULL, "missing");
    } else if (atf_index_reader_open(&ct->ix, ip, &ro, &err) != ATF_OK) {
        char line[400];
        atf_error_format(line, sizeof line, &err);
        add_mm(r, max_mm, K_IDX_001, CAT_DEFAULT, ct->rel_index, UINT64_MAX, NULL, "cannot be read: %s", line);
        ct->ix = NULL;
    } else {
        ct->ix_count = atf_index_reader_count(ct->ix);
        const atf_index_header *h = atf_index_reader_header(ct->ix);
        const char *f = ct->rel_index;
        check_platform(r, max_mm, K_HDR_001, f, info, h->version, h->arch, h->os);
#define HDR(cond, field, fmt, exp, act) \
    if (!(cond)) add_mm(r, max_mm, K_HDR_001, CAT_DEFAULT, f, UINT64_MAX, field, "header " field " is " fmt ", expected " fmt, act, exp)
        HDR(h->clock_type == r->expect_clock, "clock_type", "%u", r->expect_clock, (unsigned)h->clock_type);
        HDR(h->thread_id == t->os_thread_id, "thread_id", "%" PRIu32, t->os_thread_id, h->thread_id);
        /* has_detail_file follows the file (LINK-005): a lane that recorded
         * nothing may have no detail.atf (checked after the events). */
        HDR((unsigned)(h->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE) == (unsigned)(have_detail ? 1 : 0), "flags",
            "%u (has_detail_file)", (unsigned)(have_detail ? 1 : 0), (unsigned)(h->flags & 1u));
#undef HDR
    }
    if (!have_detail && t->detail) {
        ct->detail_missing = 1;   /* judged once the events are known */
    } else if (have_detail && !t->detail) {
        add_mm(r, max_mm, K_HDR_002, CAT_FIDELITY, ct->rel_detail, UINT64_MAX, NULL,
               "exists, but the scenario gives thread %" PRIu64 " no detail lane", t->id);
    } else if (have_detail) {
        if (atf_detail_reader_open(&ct->dx, dp, &ro, &err) != ATF_OK) {
            char line[400];
            atf_error_format(line, sizeof line, &err);
            add_mm(r, max_mm, K_DET_001, CAT_DEFAULT, ct->rel_detail, UINT64_MAX, NULL, "cannot be read: %s", line);
            ct->dx = NULL;
        } else {
            ct->dx_count = atf_detail_reader_count(ct->dx);
            const atf_detail_header *h = atf_detail_reader_header(ct->dx);
            const char *f = ct->rel_detail;
            check_platform(r, max_mm, K_HDR_002, f, info, h->version, h->arch, h->os);
            if (h->thread_id != t->os_thread_id)
                add_mm(r, max_mm, K_HDR_002, CAT_DEFAULT, f, UINT64_MAX, "thread_id",
                       "header thread_id is %" PRIu32 ", expected %" PRIu32, h->thread_id, t->os_thread_id);
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
    if (!(cond)) add_mm(r, max_mm, K_IDX_002, CAT_DEFAULT, f, seq, field, field " is " fmt ", expected " fmt, act, exp)
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
                add_mm(r, max_mm, K_IDX_003, CAT_DEFAULT, f, seq, "detail_seq", "detail_seq is %s, expected %s", a1, e1);
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
    if (!(cond)) add_mm(r, max_mm, K_DET_002, CAT_DEFAULT, f, dseq, field, field " is " fmt ", expected " fmt, act, exp)
    FLD(de.total_length == 24u + ev->payload_size, "total_length", "%" PRIu32, 24u + ev->payload_size,
        de.total_length);
    /* The spec does not say which event_type an exception's detail event carries. */
    if (de.event_type != ev->event_type)
        add_mm(r, max_mm, K_DET_002, ev->event_kind == ATF_EVENT_EXCEPTION ? CAT_IMPL : CAT_DEFAULT, f, dseq,
               "event_type", "event_type is %u, expected %u%s", (unsigned)de.event_type, (unsigned)ev->event_type,
               ev->event_kind == ATF_EVENT_EXCEPTION ? " (an exception's: the spec leaves it to the writer)" : "");
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
        add_mm(r, max_mm, K_DET_003, CAT_DEFAULT, f, dseq, "payload", "payload byte %" PRIu32 " is 0x%02x, expected 0x%02x (%"
               PRIu32 " bytes, expected %" PRIu32 ")", at, de.payload[at], ev->payload[at], de.payload_size,
               ev->payload_size);
    else if (de.payload_size != ev->payload_size)
        add_mm(r, max_mm, K_DET_003, CAT_DEFAULT, f, dseq, "payload", "payload holds %" PRIu32 " bytes, expected %" PRIu32,
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
        add_mm(r, max_mm, K_IDX_001, CAT_DEFAULT, scen_path, UINT64_MAX, NULL, "cannot re-read the scenario: %s", line);
        return;
    }
    const atf_scenario_info *info = atf_scenario_reader_info(sr);
    for (int k = K_SES_001; k < K_COUNT; k++)
        r->check_ran[k] = 1;
    cmp_thread *ct = calloc(info->thread_count, sizeof *ct);
    unsigned char *empty_false = calloc(info->thread_count ? info->thread_count : 1, 1);
    check_manifest(r, max_mm, session, info, empty_false);
    if (!ct || !empty_false) {
        free(ct);
        free(empty_false);
        atf_scenario_close(sr);
        add_mm(r, max_mm, K_IDX_001, CAT_DEFAULT, ".", UINT64_MAX, NULL, "out of memory");
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
        add_mm(r, max_mm, K_IDX_001, CAT_DEFAULT, scen_path, UINT64_MAX, NULL, "cannot re-read the scenario: %s", line);
    }
    for (size_t i = 0; i < info->thread_count; i++) {
        /* has_detail false for a lane: agrees with the files (SES-MAN-005) when
         * the lane recorded nothing and has no detail.atf, which the spec
         * allows (LINK-005); else it disagrees with the scenario's lane. */
        if (empty_false[i] && ct[i].detail_missing && ct[i].dseq == 0)
            add_mm(r, max_mm, K_SES_001, CAT_IMPL, "manifest.json", UINT64_MAX, "has_detail",
                   "thread %" PRIu64 ": has_detail is false for a detail lane that recorded nothing and has no "
                   "detail.atf (the spec leaves it to the writer)", ct[i].t->id);
        else if (empty_false[i])
            add_mm(r, max_mm, K_SES_001, CAT_WARNING, "manifest.json", UINT64_MAX, "has_detail",
                   "thread %" PRIu64 ": has_detail is false, the scenario says true", ct[i].t->id);
        if (ct[i].detail_missing && ct[i].dseq == 0)
            add_mm(r, max_mm, K_HDR_002, CAT_IMPL, ct[i].rel_detail, UINT64_MAX, NULL,
                   "no detail.atf for thread %" PRIu64 "'s detail lane, which recorded nothing (the spec leaves it "
                   "to the writer)", ct[i].t->id);
        else if (ct[i].detail_missing)
            add_mm(r, max_mm, K_HDR_002, CAT_ERROR, ct[i].rel_detail, UINT64_MAX, NULL,
                   "missing: the scenario gives thread %" PRIu64 " a detail lane with %" PRIu64 " detail event(s)",
                   ct[i].t->id, ct[i].dseq);
        if (ct[i].ix && ct[i].ix_count != ct[i].seq)
            add_mm(r, max_mm, K_IDX_001, CAT_DEFAULT, ct[i].rel_index, UINT64_MAX, "event_count",
                   "holds %" PRIu64 " events, the scenario has %" PRIu64, ct[i].ix_count, ct[i].seq);
        if (ct[i].dx && ct[i].dx_count != ct[i].dseq)
            add_mm(r, max_mm, K_DET_001, CAT_DEFAULT, ct[i].rel_detail, UINT64_MAX, "event_count",
                   "holds %" PRIu64 " detail events, the scenario has %" PRIu64, ct[i].dx_count, ct[i].dseq);
        atf_index_reader_close(ct[i].ix);
        atf_detail_reader_close(ct[i].dx);
    }
    free(ct);
    free(empty_false);
    atf_scenario_close(sr);
}

/* ---- Capabilities ---------------------------------------------------------- */

#define CAPS_ALL 0xffffffffu

static int popcount32(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Parses a declaration (the adapter's stdout for `CMD --capabilities`).
 * Returns 0, or -1 with @why set. */
static int parse_caps(const char *text, kit_caps *k, char *why, size_t why_cap)
{
    k->declared = 1;
    k->layouts = k->arch = k->os = k->clock = CAPS_ALL;
    k->detail = k->exceptions = k->symbols = 1;
    k->threads = 0;
    unsigned line_no = 0;
    const char *p = text;
    int first = 1;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[256];
        line_no++;
        if (n >= sizeof line) {
            snprintf(why, why_cap, "line %u: too long", line_no);
            return -1;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        p += n + (nl ? 1 : 0);
        char *save = NULL, *key = strtok_r(line, " \t", &save);
        if (!key || key[0] == '#')
            continue;
        if (first) {
            char *ver = strtok_r(NULL, " \t", &save);
            if (strcmp(key, "atf-capabilities") || !ver || strcmp(ver, "1")) {
                snprintf(why, why_cap, "line %u: the first record must be `atf-capabilities 1`", line_no);
                return -1;
            }
            first = 0;
            continue;
        }
        uint32_t *set = !strcmp(key, "layouts") ? &k->layouts : !strcmp(key, "arch") ? &k->arch
                      : !strcmp(key, "os") ? &k->os : !strcmp(key, "clock_type") ? &k->clock : NULL;
        int *flag = !strcmp(key, "detail") ? &k->detail : !strcmp(key, "exceptions") ? &k->exceptions
                  : !strcmp(key, "symbols") ? &k->symbols : NULL;
        unsigned max = !strcmp(key, "layouts") ? 2 : !strcmp(key, "arch") ? 2 : !strcmp(key, "os") ? 5 : 3;
        char *v = strtok_r(NULL, " \t", &save);
        if (!strcmp(key, "threads")) {
            char *end = NULL;
            errno = 0;
            unsigned long long x = v && v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
            if (!v || !end || *end || errno || x < 1 || strtok_r(NULL, " \t", &save)) {
                snprintf(why, why_cap, "line %u: threads takes one number >= 1 (the most threads the adapter "
                         "writes)", line_no);
                return -1;
            }
            k->threads = (uint64_t)x;
        } else if (set) {
            *set = 0;
            for (; v; v = strtok_r(NULL, " \t", &save)) {
                char *end;
                unsigned long x = strtoul(v, &end, 10);
                if (*end || x < 1 || x > max) {
                    snprintf(why, why_cap, "line %u: %s takes values 1..%u, not '%.20s'", line_no, key, max, v);
                    return -1;
                }
                *set |= 1u << x;
            }
            if (!*set) {
                snprintf(why, why_cap, "line %u: %s lists no value", line_no, key);
                return -1;
            }
        } else if (flag) {
            if (!v || (strcmp(v, "yes") && strcmp(v, "no")) || strtok_r(NULL, " \t", &save)) {
                snprintf(why, why_cap, "line %u: %s takes yes or no", line_no, key);
                return -1;
            }
            *flag = !strcmp(v, "yes");
        } else {
            snprintf(why, why_cap, "line %u: unknown record '%.40s'", line_no, key);
            return -1;
        }
    }
    if (first) {
        snprintf(why, why_cap, "empty declaration");
        return -1;
    }
    size_t o = 0;
    const struct { const char *name; uint32_t set; } sets[] = {
        { "layouts", k->layouts }, { "arch", k->arch }, { "os", k->os }, { "clock_type", k->clock } };
    for (size_t i = 0; i < 4; i++) {
        if (sets[i].set == CAPS_ALL)
            continue;
        o += (size_t)snprintf(k->text + o, sizeof k->text - o, "%s%s", o ? ", " : "", sets[i].name);
        for (unsigned x = 1; x < 32 && o < sizeof k->text; x++)
            if (sets[i].set & (1u << x))
                o += (size_t)snprintf(k->text + o, sizeof k->text - o, " %u", x);
    }
    const struct { const char *name; int on; } flags[] = {
        { "no detail lane", !k->detail }, { "no exceptions", !k->exceptions }, { "no symbols", !k->symbols } };
    for (size_t i = 0; i < 3 && o < sizeof k->text; i++)
        if (flags[i].on)
            o += (size_t)snprintf(k->text + o, sizeof k->text - o, "%s%s", o ? ", " : "", flags[i].name);
    if (k->threads && o < sizeof k->text)
        o += (size_t)snprintf(k->text + o, sizeof k->text - o, "%sat most %" PRIu64 " thread%s", o ? ", " : "",
                              k->threads, k->threads == 1 ? "" : "s");
    if (!o)
        snprintf(k->text, sizeof k->text, "everything");
    return 0;
}

/* Asks the adapter (`CMD --capabilities`). An adapter that does not answer
 * with a declaration (exits non-zero, prints something else) declares
 * nothing. Returns 0, or -1 (err) for a malformed declaration. */
static int query_caps(const char *adapter, kit_caps *k, atf_error *err)
{
    memset(k, 0, sizeof *k);
    kit_proc_result pr;
    const char *args[1] = { "--capabilities" };
    if (kit_proc_run(adapter, args, 1, 10.0, NULL, NULL, &pr) != 0 || pr.state != KIT_PROC_EXITED ||
        pr.exit_code != 0 || strncmp(pr.out_head, "atf-capabilities", 16) != 0)
        return 0;
    char why[200];
    if (pr.out_total > KIT_PROC_HEAD) {
        atf_fail_file(err, ATF_E_LIMIT, NULL, "the adapter's capability declaration is longer than %u bytes",
                        (unsigned)KIT_PROC_HEAD);
        return -1;
    }
    if (parse_caps(pr.out_head, k, why, sizeof why) != 0) {
        atf_fail_file(err, ATF_E_FIELD, NULL, "the adapter's capability declaration (CMD --capabilities): %s",
                        why);
        return -1;
    }
    return 0;
}

/* One platform value: the scenario's when the adapter writes it; else the
 * only one the adapter writes (it records its own platform); else none. */
static int pick_value(uint32_t set, unsigned want, unsigned *out)
{
    if (want < 32 && (set & (1u << want))) {
        *out = want;
        return 1;
    }
    if (popcount32(set) == 1) {
        for (unsigned x = 0; x < 32; x++)
            if (set & (1u << x))
                *out = x;
        return 1;
    }
    return 0;
}

/* Decides whether scenario @r is inside the declared capabilities; fills
 * the expected platform bytes, or na_reason. Returns 1 if applicable. */
static int applicable(const kit_caps *k, scen_result *r)
{
    r->expect_os = r->os;
    r->expect_clock = r->clock_type;
    if (!k->declared)
        return 1;
    const char *why = NULL;
    char threads_why[64];
    if (k->threads && r->threads > k->threads) {
        snprintf(threads_why, sizeof threads_why, "%zu threads", r->threads);
        why = threads_why;
    } else if (r->layout >= 32 || !(k->layouts & (1u << r->layout)))
        why = "its layout";
    else if (r->arch >= 32 || !(k->arch & (1u << r->arch)))
        why = "its arch (the payloads depend on it)";
    else if (!pick_value(k->os, r->os, &r->expect_os))
        why = "its os";
    else if (!pick_value(k->clock, r->clock_type, &r->expect_clock))
        why = "its clock_type";
    else if (r->any_detail && !k->detail)
        why = "a detail lane";
    else if (r->any_exception && !k->exceptions)
        why = "exception events";
    else if (r->symbol_count && !k->symbols)
        why = "manifest symbols";
    if (why) {
        snprintf(r->na_reason, sizeof r->na_reason, "needs %s; the adapter declares: %s", why, k->text);
        return 0;
    }
    if (r->expect_os != r->os || r->expect_clock != r->clock_type)
        snprintf(r->adapted, sizeof r->adapted, "the adapter writes its own platform: os %u, clock_type %u "
                 "expected (the scenario says os %u, clock_type %u)", r->expect_os, r->expect_clock, r->os,
                 r->clock_type);
    return 1;
}

/* ---- Running one scenario ------------------------------------------------ */

static int finding_fails(const kit_vfinding *f, unsigned strict)
{
    return f->error || f->recoverable || strict;
}

/* 1 if check @k has a mismatch that fails the scenario. */
static int check_fails(const scen_result *r, int k, unsigned strict)
{
    for (int cat = 0; cat < CAT_COUNT; cat++)
        if (r->check_cat[k][cat] && category_fails(cat, strict))
            return 1;
    return 0;
}

static void judge(scen_result *r, unsigned strict)
{
    r->pass = 1;
    if (r->skipped || r->not_applicable)
        return;
    for (int k = 0; k < K_COUNT; k++)
        if (check_fails(r, k, strict))
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
    r->arch = info->arch;
    r->os = info->os;
    r->clock_type = info->clock_type;
    r->symbol_count = info->symbol_count;
    /* A detail lane that records nothing may have no detail.atf (LINK-005):
     * only detail events need a writer that writes detail lanes. */
    r->any_detail = 0;
    r->any_exception = 0;
    atf_scenario_event ev;
    int rc;
    while ((rc = atf_scenario_next(sr, &ev, err)) == 1) {
        r->any_exception |= ev.event_kind == ATF_EVENT_EXCEPTION;
        r->any_detail |= ev.has_detail != 0;
    }
    atf_scenario_close(sr);
    return rc < 0 ? (err && err->code ? err->code : ATF_E_FIELD) : ATF_OK;
}

static void run_one(run_ctx *c, scen_result *r, const char *work, const char *scen_path_in,
                    const atf_builtin_scenario *b, FILE *log)
{
    const atf_conform_writer_options *o = c->o;
    double t0 = kit_now();
    char *dir = atf_path_join(work, r->name);
    char *scen_path = b ? (dir ? atf_path_join(dir, "scenario.txt") : NULL) : kit_strdup(scen_path_in);
    char *session = dir ? atf_path_join(dir, "session") : NULL;
    if (!dir || !scen_path || !session) {
        r->skipped = 1;
        snprintf(r->skip_reason, sizeof r->skip_reason, "out of memory");
        goto out;
    }
    if (c->temp_work) {
        r->scrub[0] = session;
        r->scrub[1] = b ? scen_path : NULL;   /* a scenario file of one's own keeps its path */
        r->scrub[2] = work;
    }
    atf_remove_tree(dir);
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
    if (!applicable(&c->caps, r)) {
        r->not_applicable = 1;
        goto out;
    }
    double timeout = o->timeout_s > 0 ? o->timeout_s : (b && b->slow ? 600.0 : 60.0);
    const char *args[2] = { scen_path, session };
    kit_proc_run(o->adapter, args, 2, timeout, NULL, NULL, &r->proc);
    r->ran_adapter = 1;
    r->check_ran[K_RUN_001] = 1;
    if (r->proc.state != KIT_PROC_EXITED || r->proc.exit_code != 0) {
        char what[300];
        kit_proc_describe(&r->proc, what, sizeof what);
        add_mm(r, c->max_mm, K_RUN_001, CAT_DEFAULT, NULL, UINT64_MAX, NULL, "the adapter %s: %s",
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
        add_mm(r, c->max_mm, K_SES_001, CAT_DEFAULT, ".", UINT64_MAX, NULL, "%s", r->v.error);
    compare_session(r, c->max_mm, scen_path, session);
out:
    kit_scrub_paths(r->skip_reason, sizeof r->skip_reason, r->scrub, SCRUB_NAMES, 3);
    memset(r->scrub, 0, sizeof r->scrub);   /* the paths are freed below */
    r->seconds = kit_now() - t0;
    judge(r, o->strict);
    if (o->keep_dir && dir)
        r->kept = kit_strdup(dir);
    else if (dir)
        atf_remove_tree(dir);
    if (log) {
        fprintf(log, "atf conform: %-4s %s (%.2f s)\n", verdict_word(r), r->name, r->seconds);
        fflush(log);
    }
    free(dir);
    free(scen_path);
    free(session);
}

/* ---- Reports ------------------------------------------------------------- */

static const char *verdict_word(const scen_result *r)
{
    return r->skipped ? "SKIP" : r->not_applicable ? "N/A" : r->pass ? "PASS" : "FAIL";
}

static const char *verdict_key(const scen_result *r)
{
    return r->skipped ? "skipped" : r->not_applicable ? "not-applicable" : r->pass ? "pass" : "fail";
}

/* A mismatch's category as the reports tag it. */
static const char *category_tag(int cat, unsigned strict)
{
    switch (cat) {
    case CAT_FIDELITY: return " [fidelity: differs from the scenario]";
    case CAT_WARNING: return strict ? " [warning, fails: --strict]" : " [warning]";
    case CAT_IMPL: return " [implementation-defined, not a failure]";
    default: return "";
    }
}

typedef struct run_counts {
    size_t passed, failed, skipped, not_applicable;
} run_counts;

static run_counts count_results(const run_ctx *c)
{
    run_counts n = { 0, 0, 0, 0 };
    for (size_t i = 0; i < c->count; i++) {
        const scen_result *r = &c->res[i];
        if (r->skipped)
            n.skipped++;
        else if (r->not_applicable)
            n.not_applicable++;
        else if (r->pass)
            n.passed++;
        else
            n.failed++;
    }
    return n;
}

static void text_scenario(FILE *out, const scen_result *r, unsigned strict)
{
    char what[64];
    snprintf(what, sizeof what, "%" PRIu64 " event%s, %zu thread%s, layout %u", r->events, r->events == 1 ? "" : "s",
             r->threads, r->threads == 1 ? "" : "s", r->layout);
    fprintf(out, "%-4s  %-26s %-40s %7.2f s\n", verdict_word(r), r->name, what, r->seconds);
    if (r->skipped || r->not_applicable) {
        fprintf(out, "      %s\n", r->skipped ? r->skip_reason : r->na_reason);
        return;
    }
    if (r->adapted[0])
        fprintf(out, "      note: %s\n", r->adapted);
    for (size_t i = 0; i < r->mm_count; i++) {
        const mismatch *m = &r->mm[i];
        fprintf(out, "      %s", KIT_CHECKS[m->check].id);
        if (m->file[0])
            fprintf(out, " %s", m->file);
        if (m->seq != UINT64_MAX)
            fprintf(out, " seq %" PRIu64, m->seq);
        fprintf(out, ": %s%s\n", m->message, category_tag(m->category, strict));
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
            fputs("\n        | ", out);   /* the adapter's bytes: terminal escapes shown, not run */
            kit_text_n(out, s, n > 200 ? 200 : n);
            s += n + (nl ? 1 : 0);
            lines++;
        }
        fputc('\n', out);
    }
    if (r->kept) {
        fputs("      kept: ", out);
        kit_text_n(out, r->kept, strlen(r->kept));
        fputc('\n', out);
    }
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
            return !r->check_ran[k] ? 0 : check_fails(r, k, strict) ? 3 : r->check_failures[k] ? 2 : 1;
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
    run_counts n = count_results(c);
    size_t failing_clauses = 0;
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
    if (c->caps.declared)
        fprintf(out, "adapter capabilities: %s\n", c->caps.text);
    fprintf(out, "writer kit: %zu passed, %zu failed, %zu skipped, %zu not applicable (%zu scenario%s)%s\n",
            n.passed, n.failed, n.skipped, n.not_applicable, c->count, c->count == 1 ? "" : "s",
            c->o->strict ? " [--strict]" : "");
    if (c->error[0])
        fprintf(out, "writer kit: ERROR: %s\n", c->error);
    free(t);
}

/* The adapter's run of one scenario in the JSON report: null when it did not
 * run, else its status, exit code or signal, time and stderr. */
static void json_adapter(FILE *out, const scen_result *r)
{
    if (r->skipped || r->not_applicable) {
        fputs("null", out);
        return;
    }
    if (r->proc.state == KIT_PROC_SPAWN_FAILED) {
        fputs("{\"status\":\"spawn-failed\",\"error\":", out);
        kit_json_string(out, r->proc.spawn_error);
        fputc('}', out);
        return;
    }
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

/* The validator's verdict on one scenario's session in the JSON report. */
static void json_validation(FILE *out, const scen_result *r, int strict)
{
    if (!r->v.ran) {
        fputs("null", out);
        return;
    }
    fprintf(out, "{\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64 ",\"clauses_checked\":[", r->v.errors,
            r->v.warnings);
    for (size_t i = 0; i < r->v.checked_count; i++)
        fprintf(out, "%s\"%s\"", i ? "," : "", r->v.checked[i]);
    fputs("],\"findings\":[", out);
    for (size_t i = 0; i < r->v.finding_count; i++) {
        const kit_vfinding *f = &r->v.findings[i];
        fprintf(out, "%s{\"clause\":\"%s\",\"severity\":\"%s\",\"fails\":%s,\"file\":", i ? "," : "",
                f->clause, f->error ? "error" : "warning", finding_fails(f, strict) ? "true" : "false");
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

/* The kit's own checks of one scenario: failures per check that ran, then
 * each mismatch. */
static void json_checks(FILE *out, const scen_result *r, int strict)
{
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
        fprintf(out, "%s{\"check\":\"%s\",\"category\":\"%s\",\"fails\":%s,\"file\":", i ? "," : "",
                KIT_CHECKS[m->check].id, CAT_NAMES[m->category],
                category_fails(m->category, strict) ? "true" : "false");
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
    fputc(']', out);
}

/* One scenario's object in the JSON report. */
static void json_scenario(FILE *out, const run_ctx *c, const scen_result *r)
{
    kit_json_string(out, r->name);
    fputs(",\"description\":", out);
    kit_json_string(out, r->description);
    fputs(",\"source\":", out);
    kit_json_string(out, r->source);
    fprintf(out, ",\"layout\":%u,\"events\":%" PRIu64 ",\"threads\":%zu,\"verdict\":\"%s\",\"seconds\":%.3f",
            r->layout, r->events, r->threads, verdict_key(r), r->seconds);
    fputs(",\"skip_reason\":", out);
    kit_json_string(out, r->skipped ? r->skip_reason : r->not_applicable ? r->na_reason : NULL);
    fputs(",\"adapted\":", out);
    kit_json_string(out, r->adapted[0] ? r->adapted : NULL);
    fputs(",\"adapter\":", out);
    json_adapter(out, r);
    fputs(",\"validation\":", out);
    json_validation(out, r, c->o->strict);
    json_checks(out, r, c->o->strict);
    fputs(",\"failed_clauses\":[", out);
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

static void json_report(FILE *out, const run_ctx *c)
{
    run_counts n = count_results(c);
    fputs("{\"schema\":\"atf-conform-writer/1\",\"adapter\":", out);
    kit_json_string(out, c->o->adapter);
    fprintf(out, ",\"strict\":%s,\"verdict\":\"%s\",\"error\":", c->o->strict ? "true" : "false",
            c->error[0] ? "error" : n.failed ? "fail" : "pass");
    kit_json_string(out, c->error[0] ? c->error : NULL);
    fputs(",\"capabilities\":", out);
    kit_json_string(out, c->caps.declared ? c->caps.text : NULL);
    fprintf(out, ",\"counts\":{\"scenarios\":%zu,\"passed\":%zu,\"failed\":%zu,\"skipped\":%zu,"
                 "\"not_applicable\":%zu},\"checks\":[",
            c->count, n.passed, n.failed, n.skipped, n.not_applicable);
    for (int k = 0; k < K_COUNT; k++) {
        fprintf(out, "%s{\"id\":\"%s\",\"summary\":", k ? "," : "", KIT_CHECKS[k].id);
        kit_json_string(out, KIT_CHECKS[k].summary);
        fputc('}', out);
    }
    fputs("],\"scenarios\":[", out);
    for (size_t s = 0; s < c->count; s++) {
        fputs(s ? ",{\"name\":" : "{\"name\":", out);
        json_scenario(out, c, &c->res[s]);
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

/* One finding or mismatch in a JUnit failure or system-out, as `atf validate
 * --format junit` writes them: `<severity> <file>: offset N: field F: message`. */
static void junit_line(FILE *out, const char *severity, const char *file, const char *pos_name, uint64_t pos,
                       const char *field, const char *message)
{
    fputs(severity, out);
    fputc(' ', out);
    kit_xml(out, file);
    if (pos != UINT64_MAX)
        fprintf(out, ": %s %" PRIu64, pos_name, pos);
    if (field) {
        fputs(": field ", out);
        kit_xml(out, field);
    }
    fputs(": ", out);
    kit_xml(out, message);
    fputc('\n', out);
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
        if (c->res[s].skipped || c->res[s].not_applicable) {
            tests++;
            skipped++;
        }
    unsigned errors = c->error[0] ? 1u : 0u;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"atf-conform-writer\" tests=\"%u\" "
                 "failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n", tests + errors, failures, errors, skipped);
    if (errors) {   /* the run as a whole is an error (nothing was tested) */
        fputs("  <testsuite name=\"atf-conform-writer\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
              "    <testcase classname=\"atf.conform.writer\" name=\"run\"><error message=\"", out);
        kit_xml(out, c->error);
        fputs("\"/></testcase>\n  </testsuite>\n", out);
    }
    for (size_t s = 0; s < c->count; s++) {
        const scen_result *r = &c->res[s];
        unsigned st_tests = 0, st_fail = 0;
        for (size_t i = 0; i < nt; i++) {
            int st = clause_status(r, t[i].id, c->o->strict);
            st_tests += st > 0;
            st_fail += st == 3;
        }
        fputs("  <testsuite name=\"", out);
        kit_xml(out, r->name);
        int skip = r->skipped || r->not_applicable;
        fprintf(out, "\" tests=\"%u\" failures=\"%u\" skipped=\"%u\" time=\"%.3f\">\n", st_tests + (skip ? 1 : 0),
                st_fail, skip ? 1u : 0u, r->seconds);
        if (skip) {
            fputs("    <testcase classname=\"atf.conform.writer.", out);
            kit_xml(out, r->name);
            fputs("\" name=\"scenario\"><skipped message=\"", out);
            if (r->not_applicable)
                fputs("not applicable: ", out);
            kit_xml(out, r->skipped ? r->skip_reason : r->na_reason);
            fputs("\"/></testcase>\n", out);
        }
        for (size_t i = 0; i < nt; i++) {
            int st = clause_status(r, t[i].id, c->o->strict);
            if (!st)
                continue;
            char group[24];
            kit_clause_group(t[i].id, group, sizeof group);
            fputs("    <testcase classname=\"atf.conform.writer.", out);
            kit_xml(out, r->name);
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
                kit_xml(out, first_msg ? first_msg : t[i].id);
                fputs("\">", out);
            } else if (st == 2) {
                fputs("<system-out>", out);
            }
            if (st >= 2) {
                if (kit >= 0) {
                    for (size_t m = 0; m < r->mm_count; m++)
                        if (r->mm[m].check == kit)
                            junit_line(out, CAT_NAMES[r->mm[m].category], r->mm[m].file, "seq", r->mm[m].seq,
                                       r->mm[m].field[0] ? r->mm[m].field : NULL, r->mm[m].message);
                } else {
                    for (size_t f = 0; f < r->v.finding_count; f++)
                        if (!strcmp(r->v.findings[f].clause, t[i].id)) {
                            const kit_vfinding *vf = &r->v.findings[f];
                            junit_line(out, vf->error ? "error" : "warning", vf->file, "offset", vf->offset,
                                       vf->field, vf->message);
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
            fprintf(out, ",\"subject\":");
            kit_json_string(out, s->subject);
            fprintf(out, ",\"layout\":%u,\"arch\":%u,\"threads\":%u,\"events\":%" PRIu64 ",\"slow\":%s,"
                    "\"description\":", s->layout, s->arch, s->threads, s->events, s->slow ? "true" : "false");
            kit_json_string(out, s->description);
            fputc('}', out);
        }
        fputs("]}\n", out);
    } else {
        for (size_t i = 0; i < n; i++) {
            const atf_builtin_scenario *s = atf_builtin_scenario_at(i);
            fprintf(out, "%-26s layout %u %-6s %3u thread%s %9" PRIu64 " event%s%s  %s\n", s->name, s->layout,
                    s->arch == 1 ? "x86_64" : "arm64", s->threads, s->threads == 1 ? " " : "s", s->events,
                    s->events == 1 ? " " : "s", s->slow ? " (slow)" : "       ", s->description);
        }
    }
    return fflush(out) != 0 || ferror(out) ? ATF_E_IO : ATF_OK;
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

/* The built-in scenarios the options select into sel (room for all of them):
 * every one but the slow ones without names, else each name or prefix
 * (`--scenario platform_`, `--scenario x86`) selects every scenario it
 * starts, slow ones only when named in full. @return 0, or -1 on an unknown
 * name (err filled). */
static int select_builtins(const atf_conform_writer_options *o, const atf_builtin_scenario **sel, size_t *nsel,
                           atf_error *err)
{
    size_t nb = atf_builtin_scenario_count();
    if (!o->scenario_count) {
        if (!o->scenario_file_count)
            for (size_t i = 0; i < nb; i++) {
                const atf_builtin_scenario *s = atf_builtin_scenario_at(i);
                if (!(o->no_slow && s->slow))
                    sel[(*nsel)++] = s;
            }
        return 0;
    }
    for (size_t i = 0; i < o->scenario_count; i++) {
        const atf_builtin_scenario *s = atf_builtin_scenario_find(o->scenarios[i]);
        size_t matched = 0;
        for (size_t j = 0; j < nb; j++) {
            const atf_builtin_scenario *b = atf_builtin_scenario_at(j);
            if (s ? b != s : strncmp(b->name, o->scenarios[i], strlen(o->scenarios[i])) != 0)
                continue;
            matched++;
            if (!s && o->no_slow && b->slow)
                continue;
            size_t k = 0;
            while (k < *nsel && sel[k] != b)
                k++;
            if (k == *nsel)
                sel[(*nsel)++] = b;   /* each scenario once, whatever names and prefixes select it */
        }
        if (!matched || !*o->scenarios[i]) {
            atf_fail_file(err, ATF_E_NOT_FOUND, NULL, "no built-in scenario is named or starts with '%s' "
                            "(see --list)", o->scenarios[i]);
            return -1;
        }
    }
    return 0;
}

/* Scenario files are read completely (into probes) before anything runs.
 * Names must be unique: each one names a work directory. @return 0, or -1
 * with err filled. */
static int read_scenario_files(const atf_conform_writer_options *o, const atf_builtin_scenario **sel, size_t nsel,
                               scen_result *probes, atf_error *err)
{
    for (size_t i = 0; i < o->scenario_file_count; i++) {
        if (precheck(o->scenario_files[i], &probes[i], err) != ATF_OK)
            return -1;
        for (size_t j = 0; j < nsel + i; j++) {
            const char *other = j < nsel ? sel[j]->name : probes[j - nsel].name;
            if (!strcmp(other, probes[i].name)) {
                atf_fail_file(err, ATF_E_ARG, o->scenario_files[i], "a scenario named '%s' is already selected",
                                other);
                return -1;
            }
        }
    }
    return 0;
}

/* The work directory: --keep's (created if need be), else a new temporary
 * one (*temp set). NULL with err filled when neither can be had. */
static char *open_work_dir(const atf_conform_writer_options *o, int *temp, atf_error *err)
{
    char *work = NULL;
    *temp = 0;
    if (o->keep_dir) {
        struct stat kst;
        if (atf_make_dirs(o->keep_dir) != 0 || stat(o->keep_dir, &kst) != 0 || !S_ISDIR(kst.st_mode) ||
            access(o->keep_dir, W_OK | X_OK) != 0) {
            int e = errno;
            atf_fail_file(err, ATF_E_IO, o->keep_dir, "--keep: %s",
                            stat(o->keep_dir, &kst) == 0 && !S_ISDIR(kst.st_mode) ? "not a directory"
                                                                                  : strerror(e));
            return NULL;
        }
        work = kit_strdup(o->keep_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        work = kit_sprintf("%s/atf-conform-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (work && !mkdtemp(work)) {
            atf_fail_file(err, ATF_E_IO, work, "cannot create a temporary directory: %s", strerror(errno));
            free(work);
            return NULL;
        }
        *temp = 1;
    }
    if (!work)
        atf_fail_file(err, ATF_E_NOMEM, NULL, "out of memory");
    return work;
}

/* Runs the selected built-ins, then the scenario files, in the work
 * directory; the text report follows as each one ends. */
static int run_scenarios(FILE *out, FILE *log, run_ctx *c, const atf_builtin_scenario **sel, size_t nsel,
                         const scen_result *probes, const char *work, atf_error *err)
{
    const atf_conform_writer_options *o = c->o;
    FILE *plog = o->format == ATF_CONFORM_TEXT ? NULL : log;
    for (size_t i = 0; i < nsel + o->scenario_file_count; i++) {
        scen_result *r = new_result(c);
        if (!r) {
            atf_fail_file(err, ATF_E_NOMEM, NULL, "out of memory");
            return ATF_CONFORM_ERROR;
        }
        if (i < nsel) {
            const atf_builtin_scenario *b = sel[i];
            snprintf(r->name, sizeof r->name, "%s", b->name);
            snprintf(r->description, sizeof r->description, "%s", b->description);
            r->source = "builtin";
            r->layout = b->layout;
            r->events = b->events;
            run_one(c, r, work, NULL, b, plog);
        } else {
            const char *path = o->scenario_files[i - nsel];
            *r = probes[i - nsel];   /* what precheck() read (name, layout, platform...); nothing run yet */
            r->source = path;
            run_one(c, r, work, path, NULL, plog);
        }
        if (o->format == ATF_CONFORM_TEXT) {
            text_scenario(out, r, o->strict);
            fflush(out);
        }
    }
    return ATF_CONFORM_PASS;
}

/* The verdict of a finished run, and its report in the chosen format. A
 * run that tested nothing is no pass. */
static int report_run(FILE *out, run_ctx *c, atf_error *err)
{
    int rc = ATF_CONFORM_PASS;
    for (size_t i = 0; i < c->count; i++)
        if (!c->res[i].skipped && !c->res[i].not_applicable && !c->res[i].pass)
            rc = ATF_CONFORM_FAIL;
    run_counts n = count_results(c);
    if (n.passed + n.failed == 0) {
        const scen_result *why = NULL;
        for (size_t i = 0; i < c->count && !why; i++)
            if (c->res[i].skipped)
                why = &c->res[i];
        snprintf(c->error, sizeof c->error, "no scenario was tested: %zu skipped, %zu not applicable%s%.250s",
                 n.skipped, n.not_applicable, why ? "; first skip: " : "", why ? why->skip_reason : "");
        atf_fail_file(err, ATF_E_NOT_FOUND, NULL, "%s", c->error);
        rc = ATF_CONFORM_ERROR;
    }
    if (c->o->format == ATF_CONFORM_TEXT)
        text_summary(out, c);
    else if (c->o->format == ATF_CONFORM_JSON)
        json_report(out, c);
    else
        junit_report(out, c);
    if (fflush(out) != 0 || ferror(out)) {
        atf_fail_file(err, ATF_E_IO, NULL, "cannot write the report");
        rc = ATF_CONFORM_ERROR;
    }
    return rc;
}

static void free_results(run_ctx *c)
{
    for (size_t i = 0; i < c->count; i++) {
        scen_result *r = &c->res[i];
        kit_vresult_free(&r->v);
        for (size_t k = 0; k < r->mm_count; k++) {
            free(r->mm[k].file);
            free(r->mm[k].message);
        }
        free(r->mm);
        free(r->kept);
    }
    free(c->res);
}

static int writer_run(FILE *out, FILE *log, const atf_conform_writer_options *o, atf_error *err, int *reported)
{
    if (!out || !o || !o->adapter || !*o->adapter) {
        atf_fail_file(err, ATF_E_ARG, NULL, "no adapter command");
        return ATF_CONFORM_ERROR;
    }
    if (o->format != ATF_CONFORM_TEXT && o->format != ATF_CONFORM_JSON && o->format != ATF_CONFORM_JUNIT) {
        atf_fail_file(err, ATF_E_ARG, NULL, "unknown report format");
        return ATF_CONFORM_ERROR;
    }
    /* Resolve what to run, and refuse unknown names and bad files before running anything. */
    size_t nsel = 0;
    const atf_builtin_scenario **sel = calloc(atf_builtin_scenario_count() + o->scenario_count + 1, sizeof *sel);
    scen_result *probes = calloc(o->scenario_file_count + 1, sizeof *probes);
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.max_mm = o->max_mismatches ? o->max_mismatches : 10;
    char *work = NULL;
    int rc = ATF_CONFORM_ERROR;
    if (!sel || !probes)
        atf_fail_file(err, ATF_E_NOMEM, NULL, "out of memory");
    else if (select_builtins(o, sel, &nsel, err) == 0 && read_scenario_files(o, sel, nsel, probes, err) == 0 &&
             query_caps(o->adapter, &c.caps, err) == 0)
        work = open_work_dir(o, &c.temp_work, err);
    if (work) {
        if (o->format == ATF_CONFORM_TEXT) {
            fputs("atf conform --writer ", out);
            fputs(o->adapter, out);
            fprintf(out, "\n(%zu scenario%s; %s)\n\n", nsel + o->scenario_file_count,
                    nsel + o->scenario_file_count == 1 ? "" : "s",
                    o->strict ? "--strict: validator warnings fail" : "validator errors fail; warnings are listed");
            fflush(out);
        }
        rc = run_scenarios(out, log, &c, sel, nsel, probes, work, err);
        if (rc != ATF_CONFORM_ERROR) {
            *reported = 1;
            rc = report_run(out, &c, err);
        }
        free_results(&c);
        if (c.temp_work)
            atf_remove_tree(work);
        free(work);
    }
    free(probes);
    free(sel);
    return rc;
}

int atf_conform_writer_run(FILE *out, FILE *log, const atf_conform_writer_options *o, atf_error *err)
{
    atf_error local;
    if (!err)
        err = &local;
    memset(err, 0, sizeof *err);
    int reported = 0;
    int rc = writer_run(out, log, o, err, &reported);
    /* JSON and JUnit readers get a result object even when the run could not start. */
    if (rc == ATF_CONFORM_ERROR && !reported && out && o && o->format != ATF_CONFORM_TEXT)
        kit_error_report(out, o->format, "atf-conform-writer/1", "atf-conform-writer", err);
    return rc;
}
