/* `atf report`: per function, calls, total (inclusive) and self time, for the
 * session or per thread, like `uftrace report`.
 *
 * Each thread's index lane is read once, in file order, through the slice
 * builder (slices.c), so that calls and returns pair exactly as `atf export`
 * pairs them: a return closes the innermost open frame of its function and
 * unwinds the frames above it, an exception does the same (its frames end at
 * the exception), a call that never returned ends at the thread's last event,
 * a return with no call is dropped. Memory: one table entry per function and
 * one stack entry per open frame; nothing else of the session is kept. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <atf/export.h>
#include <atf/tools.h>

#include "bytes.h"
#include "escape.h"
#include "internal.h"
#include "tools_internal.h"
#include "u64map.h"

typedef struct fn_stat {
    uint64_t function_id;
    uint64_t calls;
    uint64_t total_ns;   /* inclusive, outermost activation of each recursion only */
    uint64_t self_ns;
    uint32_t active;     /* open frames of this function on the current thread */
} fn_stat;

/* One entry per function: the map gives its index in stats. */
typedef struct fn_table {
    atf_u64map map;
    fn_stat *stats;      /* map.count used */
    size_t cap;
} fn_table;

typedef struct open_frame {
    uint32_t slot;       /* index in stats */
    uint64_t child_ns;   /* inclusive time of its direct children so far */
} open_frame;

typedef struct reporter {
    fn_table *tab;
    open_frame *stack;
    uint32_t cap;
    int oom;
    uint64_t exceptions;
} reporter;

/* The index of function_id's entry, added if new; -1 when out of memory. */
static int64_t table_slot(fn_table *t, uint64_t function_id)
{
    int64_t i = atf_u64map_find(&t->map, function_id);
    if (i >= 0)
        return i;
    if (t->map.count == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 128;
        fn_stat *ns = realloc(t->stats, ncap * sizeof *ns);
        if (!ns)
            return -1;
        t->stats = ns;
        t->cap = ncap;
    }
    if ((i = atf_u64map_put(&t->map, function_id, NULL)) < 0)
        return -1;
    t->stats[i] = (fn_stat){ function_id, 0, 0, 0, 0 };
    return i;
}

static int on_slice(void *user, const atf_slice *s)
{
    reporter *r = user;
    if (s->kind == ATF_SLICE_INSTANT) {
        r->exceptions++;
        return 0;
    }
    if (s->kind == ATF_SLICE_BEGIN) {
        if (s->depth >= r->cap) {
            uint32_t ncap = r->cap ? r->cap * 2 : 64;
            while (ncap <= s->depth)
                ncap *= 2;
            open_frame *ns = realloc(r->stack, (size_t)ncap * sizeof *ns);
            if (!ns)
                return r->oom = -1;
            r->stack = ns;
            r->cap = ncap;
        }
        int64_t slot = table_slot(r->tab, s->function_id);
        if (slot < 0)
            return r->oom = -1;
        r->tab->stats[slot].active++;
        r->stack[s->depth] = (open_frame){ (uint32_t)slot, 0 };
        return 0;
    }
    /* END: the frame at s->depth closes (the builder ends frames innermost
     * first). Indexes do not move when the table grows: the entry is the
     * call's unless the builder broke its word. */
    open_frame *f = &r->stack[s->depth];
    if (f->slot >= r->tab->map.count || r->tab->stats[f->slot].function_id != s->function_id) {
        int64_t slot = table_slot(r->tab, s->function_id);
        if (slot < 0)
            return r->oom = -1;
        f->slot = (uint32_t)slot;
    }
    fn_stat *st = &r->tab->stats[f->slot];
    uint64_t incl = s->timestamp_ns - s->begin_timestamp_ns;
    st->calls++;
    st->self_ns += incl > f->child_ns ? incl - f->child_ns : 0;
    if (--st->active == 0)
        st->total_ns += incl;
    if (s->depth > 0)
        r->stack[s->depth - 1].child_ns += incl;
    return 0;
}

typedef struct row {
    const fn_stat *st;
    const char *name;
} row;

static atf_report_sort g_sort;   /* qsort has no context argument in C11 */

static int row_cmp(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    uint64_t x = 0, y = 0;
    switch (g_sort) {
    case ATF_REPORT_SORT_CALLS: x = a->st->calls, y = b->st->calls; break;
    case ATF_REPORT_SORT_SELF: x = a->st->self_ns, y = b->st->self_ns; break;
    case ATF_REPORT_SORT_NAME: break;
    default: x = a->st->total_ns, y = b->st->total_ns; break;
    }
    if (x != y)
        return x > y ? -1 : 1;   /* largest first */
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->st->function_id < b->st->function_id ? -1 : a->st->function_id > b->st->function_id;
}

static void put_time(FILE *out, uint64_t ns)
{
    if (ns < 1000)
        fprintf(out, "%10" PRIu64 " ns", ns);
    else if (ns < 1000000)
        fprintf(out, "%10.3f us", (double)ns / 1e3);
    else if (ns < 1000000000)
        fprintf(out, "%10.3f ms", (double)ns / 1e6);
    else
        fprintf(out, "%10.3f  s", (double)ns / 1e9);
}

/* Prints one table (the session's or a thread's); @return -1 out of memory. */
static int put_table(FILE *out, const fn_table *t, const atf_manifest *m, const atf_report_options *ro,
                     int has_thread, uint64_t thread_id, int *first)
{
    size_t count = t->map.count;
    row *rows = malloc((count ? count : 1) * sizeof *rows);
    char (*names)[24] = malloc((count ? count : 1) * sizeof *names);
    if (!rows || !names) {
        free(rows);
        free(names);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (t->stats[i].calls == 0)
            continue;
        const char *name = m ? atf_manifest_symbol_name(m, t->stats[i].function_id) : NULL;
        if (!name) {
            snprintf(names[n], sizeof names[n], "0x%" PRIx64, t->stats[i].function_id);
            name = names[n];
        }
        rows[n++] = (row){ &t->stats[i], name };
    }
    g_sort = ro->sort;
    qsort(rows, n, sizeof *rows, row_cmp);
    if (ro->json) {
        fputs(*first ? "" : ",\n", out);
        *first = 0;
        fputs("{", out);
        if (has_thread)
            fprintf(out, "\"thread\":%" PRIu64 ",", thread_id);
        fputs("\"functions\":[", out);
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "%s\n{\"function_id\":%" PRIu64 ",\"name\":", i ? "," : "", rows[i].st->function_id);
            atf_json_fputs(rows[i].name, out);
            fprintf(out, ",\"calls\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"self_ns\":%" PRIu64 "}",
                    rows[i].st->calls, rows[i].st->total_ns, rows[i].st->self_ns);
        }
        fputs(has_thread ? "]}" : "]", out);
    } else {
        if (has_thread)
            fprintf(out, "%sthread_%" PRIu64 ":\n", *first ? "" : "\n", thread_id);
        *first = 0;
        fprintf(out, "  %13s  %13s  %12s  %s\n", "Total time", "Self time", "Calls", "Function");
        fprintf(out, "  %13s  %13s  %12s  %s\n", "==========", "=========", "=====", "========");
        for (size_t i = 0; i < n; i++) {
            fputs("  ", out);
            put_time(out, rows[i].st->total_ns);
            fputs("  ", out);
            put_time(out, rows[i].st->self_ns);
            fprintf(out, "  %12" PRIu64 "  %s\n", rows[i].st->calls, rows[i].name);
        }
    }
    free(rows);
    free(names);
    return 0;
}

/* Adds a thread's table into the session's. */
static int table_add(fn_table *into, const fn_table *from)
{
    for (size_t i = 0; i < from->map.count; i++) {
        const fn_stat *s = &from->stats[i];
        int64_t j = table_slot(into, s->function_id);
        if (j < 0)
            return -1;
        into->stats[j].calls += s->calls;
        into->stats[j].total_ns += s->total_ns;
        into->stats[j].self_ns += s->self_ns;
    }
    return 0;
}

static void table_clear(fn_table *t)
{
    atf_u64map_clear(&t->map);
}

static void table_free(fn_table *t)
{
    atf_u64map_free(&t->map);
    free(t->stats);
}

/* One thread's index events through the slice builder, finished: 0, or
 * nonzero when out of memory. */
static int thread_slices(atf_slice_builder *sb, const atf_index_reader *index)
{
    const atf_index_info *ii = atf_index_reader_info(index);
    int has_depth = ii->layout == ATF_LAYOUT_1;
    uint64_t n = atf_index_reader_count(index);
    int r = 0;
    if (ii->layout == ATF_LAYOUT_2) {
        /* The hot loop: events decoded in place (atf_index_event_decode(), inline). */
        size_t size;
        const uint8_t *p = atf_index_reader_bytes(index, &size) + atf_index_reader_header(index)->events_offset;
        for (uint64_t seq = 0; seq < n && r == 0; seq++, p += ATF_INDEX_EVENT_SIZE) {
            atf_index_event ev;
            ev.timestamp_ns = atf_load_le64(p);
            ev.function_id = atf_load_le64(p + 8);
            ev.detail_seq = atf_load_le64(p + 16);
            ev.event_kind = p[24];
            ev.thread_id = 0;
            ev.call_depth = 0;
            ev.reserved_nonzero = (atf_load_le64(p + 24) >> 8) != 0;
            r = atf_slice_builder_push(sb, seq, &ev, 0);
        }
    } else {
        for (uint64_t seq = 0; seq < n && r == 0; seq++) {
            atf_index_event ev;
            atf_index_reader_get(index, seq, &ev);
            r = atf_slice_builder_push(sb, seq, &ev, has_depth);
        }
    }
    if (r == 0 || r == 1)
        r = atf_slice_builder_finish(sb);
    return r;
}

static void report_counts(atf_report_stats *stats, const atf_slice_counts *c, uint64_t exceptions)
{
    stats->events = c->events;
    stats->calls = c->ends;
    stats->unclosed = c->unclosed;
    stats->unwound = c->unwound;
    stats->unmatched_returns = c->unmatched_returns;
    stats->exceptions = exceptions;
    stats->too_deep = c->too_deep;
    stats->unknown_kinds = c->unknown_kinds;
    stats->backwards = c->backwards;
    stats->clipped = c->clipped;
    stats->max_depth = c->max_depth;
}

/* Closes the object the table opened: the session's (one table) or the wrapper. */
static void report_json_tail(FILE *out, const atf_report_options *ro, const atf_report_stats *stats)
{
    if (ro->per_thread)
        fputs("\n],", out);
    else
        fputs(",", out);
    fprintf(out,
            "\"events\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"unclosed\":%" PRIu64 ",\"unwound\":%" PRIu64
            ",\"unmatched_returns\":%" PRIu64 ",\"exceptions\":%" PRIu64 ",\"thread_count\":%" PRIu64 "}\n",
            stats->events, stats->calls, stats->unclosed, stats->unwound, stats->unmatched_returns,
            stats->exceptions, stats->threads);
}

/* What the report could not take as it was, on the diagnostics stream. */
static void report_diag(FILE *diag, const char *path, const atf_report_stats *stats)
{
    if (!(stats->unclosed || stats->unwound || stats->unmatched_returns || stats->too_deep ||
          stats->unknown_kinds || stats->backwards))
        return;
    fprintf(diag,
            "atf report: %s: %" PRIu64 " calls never returned (ended at their thread's last event), %" PRIu64
            " frames unwound by an outer return or an exception, %" PRIu64 " returns without a call (dropped)",
            path, stats->unclosed, stats->unwound, stats->unmatched_returns);
    if (stats->too_deep)
        fprintf(diag, ", %" PRIu64 " calls deeper than %u frames (dropped)", stats->too_deep,
                (unsigned)ATF_SLICE_MAX_DEPTH);
    if (stats->unknown_kinds)
        fprintf(diag, ", %" PRIu64 " events of unknown kind (dropped)", stats->unknown_kinds);
    if (stats->backwards)
        fprintf(diag, ", %" PRIu64 " timestamps going back (raised to the previous)", stats->backwards);
    fprintf(diag, "; %" PRIu64 " exceptions\n", stats->exceptions);
}

atf_status atf_tool_report(FILE *out, const char *path, const atf_tool_options *opts, const atf_report_options *ropts,
                           atf_report_stats *stats, atf_error *err)
{
    atf_error_clear(err);
    atf_report_stats local_stats;
    if (!stats)
        stats = &local_stats;
    memset(stats, 0, sizeof *stats);
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    if (opts)
        o = *opts;
    atf_report_options ro = ATF_REPORT_OPTIONS_INIT;
    if (ropts)
        ro = *ropts;
    if (!out || !path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "report: no output or path");
    if (ro.sort > ATF_REPORT_SORT_NAME)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "report: unknown sort key");
    tool_source src;
    atf_status worst = ATF_OK, st = tool_source_start(&src, path, &o, "report", &worst, err);
    if (st)
        return st;
    fn_table session = { 0 }, thread = { 0 };
    reporter rep = { 0 };
    atf_slice_builder *sb = NULL;
    int first = 1;
    if (atf_slice_builder_create(&sb, o.window ? o.from_ns : 0, o.window ? o.to_ns : UINT64_MAX, on_slice, &rep) !=
        ATF_OK) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        goto done;
    }
    uint64_t total = 0, done_events = 0, next_report = 1u << 22;
    for (size_t i = 0; i < src.thread_count; i++)
        if (src.threads[i].index && tool_thread_wanted(&o, src.threads[i].id))
            total += atf_index_reader_count(src.threads[i].index);
    if (ro.json)
        fputs(ro.per_thread ? "{\"threads\":[\n" : "", out);
    for (size_t i = 0; i < src.thread_count; i++) {
        const tool_thread *t = &src.threads[i];
        if (!t->index || !tool_thread_wanted(&o, t->id))
            continue;
        stats->threads++;
        rep.tab = &thread;
        table_clear(&thread);
        atf_slice_builder_reset(sb);
        uint64_t n = atf_index_reader_count(t->index);
        if (thread_slices(sb, t->index) != 0) {
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, "report: out of memory");
            goto done;
        }
        done_events += n;
        if (o.progress && done_events >= next_report) {
            o.progress(o.progress_user, done_events, total);
            next_report = done_events + (1u << 22);
        }
        if (thread.map.count > stats->functions_max)
            stats->functions_max = thread.map.count;
        if (ro.per_thread) {
            if (put_table(out, &thread, src.manifest, &ro, 1, t->id, &first) != 0) {
                st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
                goto done;
            }
        } else if (table_add(&session, &thread) != 0) {
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
            goto done;
        }
    }
    if (o.progress)
        o.progress(o.progress_user, done_events, total);
    if (!ro.per_thread && put_table(out, &session, src.manifest, &ro, 0, 0, &first) != 0) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        goto done;
    }
    report_counts(stats, atf_slice_builder_counts(sb), rep.exceptions);
    if (ro.json)
        report_json_tail(out, &ro, stats);
    if (o.diag)
        report_diag(o.diag, src.path, stats);
    if (ferror(out))
        st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "report: cannot write the output");
    else
        st = worst;
done:
    atf_slice_builder_destroy(sb);
    free(rep.stack);
    table_free(&session);
    table_free(&thread);
    tool_source_close(&src);
    return st;
}
