/* `atf dump`: the event lines (text, or the canonical JSON dump of
 * docs/dump-format.md), written by this thread or on several cores
 * (dump_parallel.c); merge.c writes its lines through the same output. */
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

#include "dump_internal.h"
#include "internal.h"
#include "tool_format.h"


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

void symbol_cache_init(symbol_cache *c, const atf_manifest *m)
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

void put_index_json(obuf *o, const tool_thread *t, symbol_cache *sc, uint64_t seq, const atf_index_event *e)
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

void put_index_text(obuf *o, const tool_thread *t, symbol_cache *sc, uint64_t seq, const atf_index_event *e)
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

void dump_lone_detail(obuf *o, const tool_thread *t, int json, const atf_tool_options *opts)
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

atf_status finish_output(FILE *out, atf_error *err)
{
    if (fflush(out) != 0 || ferror(out))
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write output: %s", strerror(errno));
    return ATF_OK;
}

/* Progress every 4 Mi events. */


dump_out *dump_out_create(FILE *out, const tool_source *src, const atf_tool_options *opts)
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

void dump_event(dump_out *d, const tool_thread *t, uint64_t seq, const atf_index_event *e)
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
atf_status dump_out_finish(dump_out *d, FILE *out, atf_error *err)
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
void window_range(const tool_thread *t, const atf_tool_options *opts, uint64_t *first, uint64_t *last,
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
    const atf_tool_format *tf = tool_other_format(path);
    if (tf)
        return tf->dump(out, path, opts, err);
    return tool_run(out, path, opts, dump_source, err);
}

