/* `atf export --format wtf`: a session as Web Tracing Framework files
 * (docs/export.md), through the WTF writer (atf/wtf.h) and the slice
 * builder export.c runs for every format.
 *
 * One zone per thread; a call is wtf.scope#enter(name) with the function's
 * symbol (made a name the reference reader accepts: see scope_name()), its
 * return wtf.scope#leave; the linked detail events and the builder's marks
 * are wtf.scope#appendData inside the scope; an exception is an instance
 * event atf#exception(function, detail); the timing anchors are
 * wtf.trace#mark in a zone of their own. Times are u32 microseconds from
 * the file's timebase, 1 us before the first time the export writes rounded
 * down to a millisecond: a file spans ATF_EXPORT_WTF_SPAN_MS, a longer
 * session goes on in part files, each with its own timebase.
 *
 * Memory: the open scopes of the current thread (at most
 * ATF_EXPORT_WTF_MAX_DEPTH function ids) and, per file, the writer's chunk
 * (1 MiB) and one bit per zone id. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <atf/wtf.h>

#include "export_internal.h"
#include "internal.h"
#include "tool_format.h"
#include "wtf_tools.h"

#define SPAN_US ((uint64_t)ATF_EXPORT_WTF_SPAN_MS * 1000u)
/* Times written: 1 + microseconds into the file's span, 1..SPAN_US; the
 * timebase is 1 us before the span's first millisecond. No time is 0: the
 * reference reader takes a scope that ends at time 0 for an instance event
 * (EventIterator.isScope is "end time is not 0"). */
#define FIRST_TIME 1u
#define LAST_TIME ((uint32_t)SPAN_US)
#define ZONE_IDS 65536u
/* Thread zones take ids 1..65534 (again from 1 after 65534 threads, each
 * reuse after a wtf.zone#delete); the anchors' zone is 65535. */
#define THREAD_ZONES 65534u
#define ANCHOR_ZONE 65535u
#define ANCHOR_OWNER UINT64_MAX
/* Longest scope name written (a symbol's first bytes; the whole of it, up
 * to this, in "symbol" when the name had to change). */
#define NAME_MAX_BYTES 4096u

typedef struct wtf_file {
    atf_wtf_writer *w;
    uint16_t exception_wire;  /* atf#exception, defined when the file is opened */
    uint64_t zone_owner;      /* 1 + the thread whose zone is current here (ANCHOR_OWNER: the anchors'), 0 none */
    uint8_t *zone_made;       /* ZONE_IDS bits: ids created (and not deleted) in this file */
    uint32_t last_instance;   /* time of the last atf#exception written */
    int has_instance;
    int opened;
} wtf_file;

typedef struct wtf_export wtf_export;

struct wtf_export {
    char out_path[4096];
    atf_wtf_write_options wo;
    char uri[4200], title[64], pname[64];
    FILE *diag;
    uint64_t base_ns, base_ms;
    wtf_file files[ATF_EXPORT_WTF_MAX_FILES];
    unsigned nfiles;          /* files[0..nfiles) may be open (w NULL: nothing to write there yet) */
    /* The current thread. */
    uint64_t owner;           /* 1 + its position among the threads exported */
    uint16_t zone;
    char zone_name[200];
    const char *location;
    int file;                 /* the file it writes to now, -1 before its first event */
    uint32_t nopen;           /* its scopes written and open */
    uint64_t open[ATF_EXPORT_WTF_MAX_DEPTH];
    char name[NAME_MAX_BYTES + 1];
    obuf json;                /* JSON values, built in memory (never flushed: f is NULL) */
};

/* A writer's error: the export stops with it. */
static int failed(exporter *x, atf_status st, const atf_error *e)
{
    x->failed = st;
    x->fail_err = *e;
    return EXPORT_FAILED;
}

/* Slices out of step with the scopes written: a bug, never the input's fault. */
static int out_of_step(exporter *x, const char *what)
{
    x->failed = atf_fail(&x->fail_err, ATF_E_STATE, ATF_NO_OFFSET, NULL, "export: WTF scopes out of step (%s)", what);
    return EXPORT_FAILED;
}

int atf_export_wtf_part_path(char *buf, size_t cap, const char *out_path, uint64_t part)
{
    int n;
    if (part == 0) {
        n = snprintf(buf, cap, "%s", out_path);
    } else {
        static const char suffix[] = ".wtf-trace";
        size_t len = strlen(out_path), sl = sizeof suffix - 1;
        int has = len > sl && strcmp(out_path + len - sl, suffix) == 0;
        n = snprintf(buf, cap, "%.*s.part%" PRIu64 "%s", (int)(has ? len - sl : len), out_path, part + 1, suffix);
    }
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

/* File @k, opened (and atf#exception defined) when it is not yet. */
static int open_file(exporter *x, unsigned k)
{
    wtf_export *e = x->file_state;
    wtf_file *f = &e->files[k];
    if (f->w)
        return 0;
    char path[4200];
    atf_error err;
    if (atf_export_wtf_part_path(path, sizeof path, e->out_path, k) != 0)
        return failed(x, atf_fail(&err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "output path too long"), &err);
    f->zone_made = calloc(ZONE_IDS / 8, 1);
    if (!f->zone_made)
        return EXPORT_NOMEM;
    atf_wtf_write_options wo = e->wo;
    wo.timebase_ms = (double)(e->base_ms + (uint64_t)k * ATF_EXPORT_WTF_SPAN_MS) - 0.001;
    atf_status st = atf_wtf_writer_open(&f->w, path, &wo, &err);
    if (st == ATF_OK)
        st = atf_wtf_writer_define(f->w, "atf#exception", "ascii function, any detail", ATF_WTF_CLASS_INSTANCE, 0,
                                   &f->exception_wire, &err);
    f->opened = 1;
    if (st != ATF_OK)
        return failed(x, st, &err);
    if (k >= e->nfiles)
        e->nfiles = k + 1;
    return 0;
}

static atf_status wtf_export_open(exporter *x, const char *out_path, const tool_source *src, const atf_tool_options *o,
                           const char *pname, atf_error *err)
{
    wtf_export *e = calloc(1, sizeof *e);
    if (!e)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    x->file_state = e;
    e->file = -1;
    ob_init(&e->json, NULL);
    if (snprintf(e->out_path, sizeof e->out_path, "%s", out_path) >= (int)sizeof e->out_path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "output path too long");
    /* The timebase: the earliest time written. Every slice time is at
     * least its thread's first event's (the builder raises backwards times)
     * and at least the window's start. */
    uint64_t base = UINT64_MAX;
    for (size_t i = 0; i < src->thread_count; i++) {
        const tool_thread *t = &src->threads[i];
        atf_index_event ev;
        if (t->index && tool_thread_wanted(o, t->id) && atf_index_reader_count(t->index) > 0 &&
            atf_index_reader_get(t->index, 0, &ev) == ATF_OK && ev.timestamp_ns < base)
            base = ev.timestamp_ns;
    }
    const atf_manifest *m = src->manifest;
    for (size_t i = 0; m && i < m->anchor_count; i++) {
        uint64_t at = m->anchors[i].host_time_ns;
        if ((!o->window || (at >= o->from_ns && at <= o->to_ns)) && at < base)
            base = at;
    }
    if (base == UINT64_MAX)
        base = o->window ? o->from_ns : 0;
    if (o->window && base < o->from_ns)
        base = o->from_ns;
    e->base_ms = base / 1000000u;
    e->base_ns = e->base_ms * 1000000u;
    e->diag = o->diag;
    snprintf(e->uri, sizeof e->uri, "%s", src->path);
    snprintf(e->pname, sizeof e->pname, "%s", pname);
    snprintf(e->title, sizeof e->title, "%s", pname);
    atf_wtf_write_options wo = ATF_WTF_WRITE_OPTIONS_INIT;
    wo.timebase_given = 1;
    wo.high_res_times = 1;
    wo.context_uri = e->uri;
    wo.context_title = e->title;
    e->wo = wo;
    /* The first file always exists, even when nothing falls in it. */
    int r = open_file(x, 0);
    if (r == EXPORT_FAILED) {
        if (err)
            *err = x->fail_err;
        return x->failed;
    }
    return r ? atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL) : ATF_OK;
}

static void wtf_export_thread_begin(exporter *x, const char *name, const char *location)
{
    wtf_export *e = x->file_state;
    e->owner++;
    e->zone = (uint16_t)((e->owner - 1) % THREAD_ZONES + 1);
    snprintf(e->zone_name, sizeof e->zone_name, "%s %s", e->pname, name);
    e->location = location;
    e->file = -1;
    e->nopen = 0;
}

/* The zone of @owner made current in file @k (created there first; an id
 * another zone had in this file is deleted before it is created again). */
static int zone_in(exporter *x, unsigned k, uint64_t owner, uint16_t zone, const char *name, const char *location,
                   uint32_t t)
{
    wtf_file *f = &((wtf_export *)x->file_state)->files[k];
    if (f->zone_owner == owner)
        return 0;
    atf_error err;
    atf_status st = ATF_OK;
    uint8_t bit = (uint8_t)(1u << (zone % 8));
    if (f->zone_made[zone / 8] & bit)
        st = atf_wtf_writer_zone_delete(f->w, zone, t, &err);
    if (st == ATF_OK)
        st = atf_wtf_writer_zone_create(f->w, zone, name, "native_script", location, t, &err);
    if (st == ATF_OK)
        st = atf_wtf_writer_zone_set(f->w, zone, t, &err);
    if (st != ATF_OK)
        return failed(x, st, &err);
    f->zone_made[zone / 8] |= bit;
    f->zone_owner = owner;
    return 0;
}

static int append(exporter *x, wtf_file *f, const char *name, const char *json, uint32_t t)
{
    atf_error err;
    atf_status st = atf_wtf_writer_append_data(f->w, name, json, t, &err);
    return st == ATF_OK ? 0 : failed(x, st, &err);
}

/* The JSON value built in e->json, NUL-terminated. */
static const char *json_done(wtf_export *e)
{
    e->json.buf[e->json.n] = 0;
    return (const char *)e->json.buf;
}

/* The function's name (symbol, or hex id) as a scope name the reference
 * reader keeps: it parses a scope's name as an event signature, so that a
 * character outside [A-Za-z0-9_.:$[]"'-] makes it "invalid_N" and a "()"
 * fails the whole load. Those characters, and '#' (event types are "a#b":
 * no scope may take a type's name), become '_'; a name the export changed
 * gets its symbol as scope data "symbol". */
static const char *scope_name(exporter *x, uint64_t function_id, const char **changed_from)
{
    wtf_export *e = x->file_state;
    char tmpbuf[32];
    name_entry tmp, *ne = export_name_get(&x->names, x->manifest, function_id, &tmp, tmpbuf, &x->nomem);
    if (x->nomem)
        return NULL;
    const char *text = ne ? ne->text : tmp.text;
    size_t n = 0;
    int changed = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (n == NAME_MAX_BYTES) {
            changed = 1;
            break;
        }
        unsigned char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 c == '.' || c == ':' || c == '$' || c == '[' || c == ']' || c == '"' || c == '\'' || c == '-';
        e->name[n++] = ok ? (char)c : '_';
        changed |= !ok;
    }
    e->name[n] = 0;
    *changed_from = changed ? text : NULL;
    return e->name;
}

/* A scope of the function begins in file @f. */
static int enter(exporter *x, wtf_file *f, uint64_t function_id, uint32_t t)
{
    wtf_export *e = x->file_state;
    const char *symbol = NULL, *name = scope_name(x, function_id, &symbol);
    if (!name)
        return EXPORT_NOMEM;
    atf_error err;
    atf_status st = atf_wtf_writer_scope_enter(f->w, name, t, &err);
    if (st != ATF_OK)
        return failed(x, st, &err);
    if (!symbol)
        return 0;
    e->json.n = 0;
    size_t len = strlen(symbol);
    ob_json_string_n(&e->json, symbol, len < NAME_MAX_BYTES ? len : NAME_MAX_BYTES);
    return append(x, f, "symbol", json_done(e), t);
}

static int leave(exporter *x, wtf_file *f, uint32_t t)
{
    atf_error err;
    atf_status st = atf_wtf_writer_scope_leave(f->w, t, &err);
    return st == ATF_OK ? 0 : failed(x, st, &err);
}

/* The current thread moves on to file @k: what it has open ends at the last
 * microsecond of each file in between ("clipped_end") and begins again at 0
 * in the next ("clipped_begin"). */
static int move_to(exporter *x, unsigned k, uint32_t t)
{
    wtf_export *e = x->file_state;
    int r;
    if (e->file < 0 || e->nopen == 0) {
        e->file = (int)k;
        if ((r = open_file(x, k)) != 0)
            return r;
        return zone_in(x, k, e->owner, e->zone, e->zone_name, e->location, t);
    }
    while ((unsigned)e->file < k) {
        wtf_file *f = &e->files[e->file];
        for (uint32_t i = e->nopen; i-- > 0;) {
            if ((r = append(x, f, "clipped_end", "true", LAST_TIME)) != 0 || (r = leave(x, f, LAST_TIME)) != 0)
                return r;
        }
        x->stats->file_cuts += e->nopen;
        unsigned next = (unsigned)e->file + 1;
        if ((r = open_file(x, next)) != 0 ||
            (r = zone_in(x, next, e->owner, e->zone, e->zone_name, e->location, FIRST_TIME)) != 0)
            return r;
        f = &e->files[next];
        for (uint32_t i = 0; i < e->nopen; i++)
            if ((r = enter(x, f, e->open[i], FIRST_TIME)) != 0 ||
                (r = append(x, f, "clipped_begin", "true", FIRST_TIME)) != 0)
                return r;
        e->file = (int)next;
    }
    return 0;
}

/* File and time of @ns (clamped into the last file the export may write). */
static unsigned when(exporter *x, uint64_t ns, uint32_t *t)
{
    wtf_export *e = x->file_state;
    uint64_t us = ns > e->base_ns ? (ns - e->base_ns) / 1000u : 0;
    uint64_t k = us / SPAN_US;
    if (k >= ATF_EXPORT_WTF_MAX_FILES) {
        x->stats->clamped++;
        *t = LAST_TIME;
        return ATF_EXPORT_WTF_MAX_FILES - 1;
    }
    *t = (uint32_t)(us - k * SPAN_US) + FIRST_TIME;
    return (unsigned)k;
}

/* The detail linked from @ev as a JSON object (the registers of an ARM64
 * payload, else its type, length and first bytes: the Perfetto export's
 * arguments), or NULL. */
static const char *detail_json(exporter *x, const atf_index_event *ev)
{
    detail_args da;
    if (!export_load_detail(x, ev, &da))
        return NULL;
    obuf *o = &((wtf_export *)x->file_state)->json;
    o->n = 0;
    if (da.arm) {
        for (int i = 0; i < 11; i++) {
            ob_char(o, i ? ',' : '{');
            ob_char(o, '"');
            ob_put(o, export_reg_names[0][i], strlen(export_reg_names[0][i]));
            ob_lit(o, "\":\"");
            ob_hex64(o, da.regs[i]);
            ob_char(o, '"');
        }
        ob_lit(o, ",\"stack_size\":");
        ob_u64(o, da.stack_size);
    } else {
        ob_lit(o, "{\"detail_type\":");
        ob_u64(o, da.d.event_type);
        ob_lit(o, ",\"detail_length\":");
        ob_u64(o, da.d.payload_size);
        ob_lit(o, ",\"detail_first_bytes\":\"");
        ob_hex(o, da.d.payload, da.d.payload_size < EXPORT_PREVIEW_BYTES ? da.d.payload_size : EXPORT_PREVIEW_BYTES);
        ob_char(o, '"');
    }
    ob_char(o, '}');
    return json_done(x->file_state);
}

/* The builder's marks of a begin or an end as scope data. A scope keeps
 * one value per name, so a cut at its begin and one at its end have names
 * of their own. */
static int marks(exporter *x, wtf_file *f, const atf_slice *s, uint32_t t)
{
    static const struct {
        uint32_t flag;
        const char *name;
    } m[] = { { ATF_SLICE_UNCLOSED, "unclosed" }, { ATF_SLICE_UNWOUND, "unwound" },
              { ATF_SLICE_CLIPPED, "clipped_end" }, { ATF_SLICE_EXCEPTION, "exception" } };
    if (s->kind == ATF_SLICE_BEGIN)
        return s->flags & ATF_SLICE_CLIPPED ? append(x, f, "clipped_begin", "true", t) : 0;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        int r = s->flags & m[i].flag ? append(x, f, m[i].name, "true", t) : 0;
        if (r)
            return r;
    }
    return 0;
}

static int wtf_export_slice(exporter *x, const atf_slice *s)
{
    wtf_export *e = x->file_state;
    if (s->kind != ATF_SLICE_INSTANT && s->depth >= ATF_EXPORT_WTF_MAX_DEPTH) {
        /* The reference reader gives up past 1023 open scopes. */
        x->stats->too_deep_for_format += s->kind == ATF_SLICE_BEGIN;
        return 0;
    }
    uint32_t t;
    unsigned k = when(x, s->timestamp_ns, &t);
    int r = move_to(x, k, t);
    if (r)
        return r;
    wtf_file *f = &e->files[k];
    if (s->kind == ATF_SLICE_BEGIN) {
        if (e->nopen != s->depth)
            return out_of_step(x, "begin");
        if ((r = enter(x, f, s->function_id, t)) != 0)
            return r;
        e->open[e->nopen++] = s->function_id;
        if ((r = marks(x, f, s, t)) != 0)
            return r;
        const char *d = detail_json(x, s->event);
        return d ? append(x, f, "detail", d, t) : 0;
    }
    if (s->kind == ATF_SLICE_END) {
        if (e->nopen == 0)
            return out_of_step(x, "end");
        if ((r = marks(x, f, s, t)) != 0)
            return r;
        const char *d = detail_json(x, s->event);
        if (d && (r = append(x, f, "ret_detail", d, t)) != 0)
            return r;
        e->nopen--;
        return leave(x, f, t);
    }
    /* An exception: an instance event. Non-built-in events' times must not
     * decrease within a chunk (WTF-EVT-006): a thread's exception earlier
     * than the previous thread's last one starts a new chunk. */
    if (f->has_instance && t < f->last_instance) {
        atf_error err;
        atf_status st = atf_wtf_writer_flush(f->w, &err);
        if (st != ATF_OK)
            return failed(x, st, &err);
        /* The new chunk starts with the current zone again (the writer's rule). */
    }
    f->has_instance = 1;
    f->last_instance = t;
    char tmpbuf[32];
    name_entry tmp, *ne = export_name_get(&x->names, x->manifest, s->function_id, &tmp, tmpbuf, &x->nomem);
    if (x->nomem)
        return EXPORT_NOMEM;
    const char *fn = ne ? ne->text : tmp.text;   /* an argument: the symbol as it is */
    const char *d = detail_json(x, s->event);
    atf_wtf_value v[2];
    memset(v, 0, sizeof v);
    v[0].type = ATF_WTF_ASCII;
    v[0].s = fn;
    v[0].s_len = (uint32_t)strlen(fn);
    v[1].type = ATF_WTF_ANY;
    v[1].s = d;
    v[1].s_len = d ? (uint32_t)strlen(d) : 0;
    v[1].is_null = d == NULL;
    atf_error err;
    atf_status st = atf_wtf_writer_event(f->w, f->exception_wire, t, v, 2, &err);
    return st == ATF_OK ? 0 : failed(x, st, &err);
}

static int wtf_export_thread_end(exporter *x)
{
    wtf_export *e = x->file_state;
    if (e->nopen != 0)
        return out_of_step(x, "thread end");
    /* A thread with nothing in the window still gets its zone, in the first file. */
    if (e->file < 0)
        return zone_in(x, 0, e->owner, e->zone, e->zone_name, e->location, FIRST_TIME);
    return 0;
}

static int wtf_export_anchors(exporter *x, const atf_tool_options *o)
{
    wtf_export *e = x->file_state;
    const atf_manifest *m = x->manifest;
    char zname[128];
    snprintf(zname, sizeof zname, "%s timing anchors", e->pname);
    for (size_t i = 0; m && i < m->anchor_count; i++) {
        const atf_timing_anchor *a = &m->anchors[i];
        if (o->window && (a->host_time_ns < o->from_ns || a->host_time_ns > o->to_ns))
            continue;
        uint32_t t;
        unsigned k = when(x, a->host_time_ns, &t);
        int r = open_file(x, k);
        if (r == 0)
            r = zone_in(x, k, ANCHOR_OWNER, ANCHOR_ZONE, zname, e->uri, t);
        if (r)
            return r;
        char name[96], value[96];
        snprintf(name, sizeof name, "anchor media %lld/%ld s", (long long)a->media_time_value,
                 (long)a->media_time_scale);
        snprintf(value, sizeof value, "{\"media_time_value\":%lld,\"media_time_scale\":%ld}",
                 (long long)a->media_time_value, (long)a->media_time_scale);
        atf_error err;
        atf_status st = atf_wtf_writer_mark(e->files[k].w, name, value, t, &err);
        if (st != ATF_OK)
            return failed(x, st, &err);
        x->stats->anchors++;
    }
    return 0;
}

static atf_status wtf_export_close(exporter *x, int failed_already, atf_error *err)
{
    wtf_export *e = x->file_state;
    if (!e)
        return ATF_OK;
    atf_status st = ATF_OK;
    for (unsigned k = 0; k < e->nfiles; k++) {
        wtf_file *f = &e->files[k];
        atf_error ferr;
        if (f->w && !failed_already && st == ATF_OK) {
            st = atf_wtf_writer_flush(f->w, &ferr);
            x->stats->bytes += atf_wtf_writer_bytes(f->w);
            x->stats->files++;
            x->stats->wtf_parts |= 1ull << k;
            if (st != ATF_OK && err)
                *err = ferr;
        }
        atf_status cs = atf_wtf_writer_close(f->w, &ferr);
        f->w = NULL;
        if (cs != ATF_OK && st == ATF_OK && !failed_already) {
            st = cs;
            if (err)
                *err = ferr;
        }
    }
    for (unsigned k = 0; k < ATF_EXPORT_WTF_MAX_FILES; k++)
        free(e->files[k].zone_made);   /* also of a file that failed to open */
    /* Parts of an earlier, longer export would look like parts of this one. */
    for (unsigned k = 1; k < ATF_EXPORT_WTF_MAX_FILES && e->diag && !failed_already; k++) {
        char path[4200];
        struct stat sb;
        if ((k >= e->nfiles || !e->files[k].opened) && atf_export_wtf_part_path(path, sizeof path, e->out_path, k) == 0 &&
            stat(path, &sb) == 0)
            fprintf(e->diag, "atf: export: %s is not from this export (an earlier one left it)\n", path);
    }
    free(e);
    x->file_state = NULL;
    return st;
}

/* A name other than *.wtf-trace: the reference library reads it as JSON. */
static void wtf_export_notes(FILE *diag, const char *out_path)
{
    size_t n = strlen(out_path);
    if (n < 10 || strcmp(out_path + n - 10, ".wtf-trace") != 0) {
        fputs("atf: export: note: ", diag);
        atf_fputs_escaped(out_path, diag);
        fputs(" does not end in .wtf-trace, the name the WTF tools look for (the reference library reads other "
              "names as JSON)\n", diag);
    }
}

static void wtf_export_summary(FILE *diag, const char *out_path, const atf_export_stats *s)
{
    fprintf(diag, "atf: export: wtf: %" PRIu64 " file(s) (one per %.1f minutes of the session)", s->files,
            ATF_EXPORT_WTF_SPAN_MS / 60000.0);
    const char *sep = ":";
    for (unsigned i = 0; i < ATF_EXPORT_WTF_MAX_FILES; i++) {
        char part[4200];
        if ((s->wtf_parts >> i & 1) && atf_export_wtf_part_path(part, sizeof part, out_path, i) == 0) {
            fprintf(diag, "%s ", sep);
            atf_fputs_escaped(part, diag);
            sep = ",";
        }
    }
    fprintf(diag,
            "; %" PRIu64 " scope(s) cut at a file boundary (marked \"clipped_end\", \"clipped_begin\"), %" PRIu64
            " call(s) nested deeper than %u not written (the WTF reader's limit), %" PRIu64
            " event(s) past %u files written at the last one's end\n",
            s->file_cuts, s->too_deep_for_format, ATF_EXPORT_WTF_MAX_DEPTH, s->clamped, ATF_EXPORT_WTF_MAX_FILES);
}

const atf_tool_export wtf_tool_export = {
    "wtf", ATF_EXPORT_WTF,
    "export: --format wtf writes files (-o FILE.wtf-trace; a session longer than 71.6 minutes "
    "takes more than one), not standard output",
    "export: WTF is written to files (atf_export_file): a session longer than 71.6 minutes takes more than one",
    wtf_export_open, wtf_export_thread_begin, wtf_export_slice, wtf_export_thread_end, wtf_export_anchors,
    wtf_export_close, wtf_export_notes, wtf_export_summary,
};
