/* `atf dump` and `atf info` of a WTF file: the canonical JSON Lines of
 * docs/wtf-dump-format.md, a text form of the same, and a summary. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/tool_options.h>
#include <atf/wtf.h>

#include "common.h"
#include "obuf.h"
#include "wtf_internal.h"
#include "wtf_tools.h"

/* ---- JSON values (file header, `any`) --------------------------------------- */

/* Parses JSON text as docs/wtf-dump-format.md says (numbers as doubles,
 * \u0000 allowed, one value); NULL when it does not parse. */
static json_t *parse_json(const char *s, size_t n)
{
    return json_loadb(s, n, WTF_JSON_FLAGS, NULL);
}

/* ---- Arguments ----------------------------------------------------------------- */

/* char and wchar values: a JSON string of UTF-16 code units, each written
 * as ob_json_string writes an ASCII character, or as \uxxxx. */
static void put_unit(obuf *o, uint32_t u)
{
    static const char hex[] = "0123456789abcdef";
    if (u >= 0x20 && u < 0x7f && u != '"' && u != '\\') {
        ob_char(o, (char)u);
        return;
    }
    switch (u) {
    case '"': ob_lit(o, "\\\""); return;
    case '\\': ob_lit(o, "\\\\"); return;
    case '\n': ob_lit(o, "\\n"); return;
    case '\r': ob_lit(o, "\\r"); return;
    case '\t': ob_lit(o, "\\t"); return;
    case '\b': ob_lit(o, "\\b"); return;
    case '\f': ob_lit(o, "\\f"); return;
    default: {
        char e[6] = { '\\', 'u', hex[(u >> 12) & 15], hex[(u >> 8) & 15], hex[(u >> 4) & 15], hex[u & 15] };
        ob_put(o, e, 6);
    }
    }
}

static void put_scalar(obuf *o, const atf_wtf_value *v)
{
    switch (v->type) {
    case ATF_WTF_CHAR:
    case ATF_WTF_WCHAR:
        ob_char(o, '"');
        put_unit(o, (uint32_t)v->u);
        ob_char(o, '"');
        return;
    case ATF_WTF_BOOL:
        if (v->u)
            ob_lit(o, "true");
        else
            ob_lit(o, "false");
        return;
    case ATF_WTF_INT8:
    case ATF_WTF_INT16:
    case ATF_WTF_INT32: ob_i64(o, v->i); return;
    case ATF_WTF_FLOAT32: ob_number(o, v->f); return;
    case ATF_WTF_ASCII:
    case ATF_WTF_UTF8:
        if (!v->s)
            ob_lit(o, "null");
        else
            ob_json_string_n(o, v->s, v->s_len);
        return;
    case ATF_WTF_ANY: {
        if (!v->s) {
            ob_lit(o, "null");
            return;
        }
        json_t *j = parse_json(v->s, v->s_len);
        if (j)
            ob_json_value(o, j);
        else
            ob_json_string_n(o, v->s, v->s_len);
        json_decref(j);
        return;
    }
    default: ob_u64(o, v->u); return;
    }
}

static void put_args(obuf *o, const atf_wtf_reader *r, const atf_wtf_event *ev)
{
    const atf_wtf_def *d = ev->def;
    const atf_wtf_strings *st = atf_wtf_reader_strings(r);
    ob_char(o, '{');
    for (size_t i = 0; i < d->arg_count; i++) {
        atf_wtf_value v;
        if (i)
            ob_char(o, ',');
        ob_json_string(o, d->args[i].name);
        ob_char(o, ':');
        if (atf_wtf_event_arg(r, ev, i, &v, NULL) != ATF_OK) {
            ob_lit(o, "null");
            continue;
        }
        if (!v.array) {
            put_scalar(o, &v);
            continue;
        }
        if (v.is_null) {
            ob_lit(o, "null");
            continue;
        }
        if (v.type == ATF_WTF_CHAR || v.type == ATF_WTF_WCHAR) {
            ob_char(o, '"');
            for (uint32_t k = 0; k < v.count; k++) {
                atf_wtf_value e;
                atf_wtf_array_elem(&v, k, st, &e);
                put_unit(o, (uint32_t)e.u);
            }
            ob_char(o, '"');
            continue;
        }
        ob_char(o, '[');
        for (uint32_t k = 0; k < v.count; k++) {
            atf_wtf_value e;
            if (k)
                ob_char(o, ',');
            atf_wtf_array_elem(&v, k, st, &e);
            put_scalar(o, &e);
        }
        ob_char(o, ']');
    }
    ob_char(o, '}');
}

/* ---- Lines -------------------------------------------------------------------- */

static void put_chunk_line(obuf *o, const atf_wtf_chunk *c, uint32_t index)
{
    ob_lit(o, "{\"chunk\":");
    ob_u64(o, index);
    ob_lit(o, ",\"offset\":");
    ob_u64(o, c->offset);
    ob_lit(o, ",\"id\":");
    ob_u64(o, c->id);
    ob_lit(o, ",\"type\":");
    ob_u64(o, c->type);
    ob_lit(o, ",\"start\":");
    ob_u64(o, c->start_time);
    ob_lit(o, ",\"end\":");
    ob_u64(o, c->end_time);
    ob_lit(o, ",\"parts\":[");
    for (uint32_t i = 0; i < c->part_count; i++) {
        if (i)
            ob_char(o, ',');
        ob_lit(o, "{\"type\":");
        ob_u64(o, c->parts[i].type);
        ob_lit(o, ",\"offset\":");
        ob_u64(o, c->parts[i].offset);
        ob_lit(o, ",\"length\":");
        ob_u64(o, c->parts[i].length);
        ob_char(o, '}');
    }
    ob_lit(o, "]}\n");
}

static void put_event_line(obuf *o, const atf_wtf_reader *r, const atf_wtf_event *ev)
{
    ob_lit(o, "{\"chunk\":");
    ob_u64(o, ev->chunk);
    ob_lit(o, ",\"offset\":");
    ob_u64(o, ev->offset);
    ob_lit(o, ",\"wire_id\":");
    ob_u64(o, ev->wire_id);
    ob_lit(o, ",\"event\":");
    ob_json_string(o, ev->def->name);
    ob_lit(o, ",\"time\":");
    ob_u64(o, ev->time);
    ob_lit(o, ",\"zone\":");
    if (ev->zone < 0)
        ob_lit(o, "null");
    else
        ob_u64(o, (uint64_t)ev->zone);
    ob_lit(o, ",\"args\":");
    put_args(o, r, ev);
    ob_lit(o, "}\n");
}

/* The text form: one line per event, indented by scope depth. */
static void put_event_text(obuf *o, const atf_wtf_reader *r, const atf_wtf_event *ev)
{
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "%10u ", (unsigned)ev->time);
    ob_put(o, tmp, (size_t)n);
    if (ev->zone >= 0) {
        n = snprintf(tmp, sizeof tmp, "z%-3d ", (int)ev->zone);
        ob_put(o, tmp, (size_t)n);
    } else {
        ob_lit(o, "  -  ");
    }
    for (uint32_t i = 0; i < ev->depth && i < 64; i++)
        ob_lit(o, "  ");
    /* A name is file content: one with a newline, a control character or
     * a byte above 0x7E is written as a JSON string, so that every event
     * stays one line of plain text. */
    const char *name = ev->def->name;
    size_t name_len = strlen(name), k = 0;
    while (k < name_len && (unsigned char)name[k] >= 0x20 && (unsigned char)name[k] < 0x7F)
        k++;
    if (k == name_len)
        ob_put(o, name, name_len);
    else
        ob_json_string_n(o, name, name_len);
    if (ev->def->arg_count) {
        ob_char(o, ' ');
        put_args(o, r, ev);
    }
    ob_char(o, '\n');
}

/* ---- The tools ------------------------------------------------------------------ */

static void diag_error(FILE *diag, const atf_error *e, const char *what)
{
    if (!diag)
        return;
    char line[768];
    atf_error_format(line, sizeof line, e);
    fprintf(diag, "atf: %s: %s\n", what, line);
}

/* One line on diag for a file not read whole (SPEC-WTF 6). */
static void diag_summary(FILE *diag, const char *path, const atf_wtf_summary *s)
{
    if (!diag || s->state == ATF_WTF_COMPLETE)
        return;
    if (s->state == ATF_WTF_CRASH_TRUNCATED)
        fprintf(diag,
                "atf: %s: crash-truncated: %llu events read from %llu chunks (%llu of them from the chunk cut short); "
                "the last %llu bytes were not a complete chunk or event\n",
                path, (unsigned long long)s->events, (unsigned long long)s->chunks,
                (unsigned long long)s->events_in_cut_chunk, (unsigned long long)s->bytes_unread);
    else
        fprintf(diag,
                "atf: %s: damaged: %llu events read from %llu chunks; %llu chunk(s) stopped at a bad event, "
                "%llu bytes not read\n",
                path, (unsigned long long)s->events, (unsigned long long)s->chunks,
                (unsigned long long)s->chunks_skipped, (unsigned long long)s->bytes_unread);
    if (s->parts_not_read)
        fprintf(diag, "atf: %s: %llu event buffer part(s) in the JSON or legacy form were not read\n", path,
                (unsigned long long)s->parts_not_read);
}

static atf_status finish(obuf *o, atf_wtf_reader *r, const char *path, const atf_tool_options *opts, atf_status st,
                         atf_error *err)
{
    atf_wtf_summary s;
    atf_wtf_reader_summary(r, &s);
    if (ob_flush(o) != 0 && st == ATF_OK)
        st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write the output");
    diag_summary(opts ? opts->diag : NULL, path, &s);
    if (st == ATF_OK && s.state == ATF_WTF_DAMAGED) {
        if (err) {
            *err = s.first_damage;
            atf_error_detach_field(err);   /* before the reader and its definitions go */
        }
        st = ATF_E_DAMAGED;
    }
    atf_wtf_reader_close(r);
    return st;
}

static atf_status open_reader(atf_wtf_reader **r, const char *path, atf_error *err)
{
    atf_status st = atf_wtf_reader_open(r, path, NULL, err);
    if (st == ATF_E_IO || st == ATF_E_NOMEM || st == ATF_OK)
        return st;
    return st;
}

atf_status wtf_tool_dump(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    if (opts && (opts->window || opts->threads)) {
        atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL,
                 "--from, --to and --thread select ATF events; a WTF file is dumped whole");
        atf_error_set_file(err, path);
        return ATF_E_ARG;
    }
    atf_wtf_reader *r = NULL;
    atf_status st = open_reader(&r, path, err);
    if (st != ATF_OK)
        return st;
    int json = opts && opts->json;
    FILE *diag = opts ? opts->diag : NULL;
    obuf *o = (obuf *)malloc(sizeof *o);
    if (!o) {
        atf_wtf_reader_close(r);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    ob_init(o, out);
    const atf_wtf_file_header *h = atf_wtf_reader_header(r);
    size_t hl = 0;
    const char *hj = atf_wtf_reader_header_json(r, &hl);
    json_t *hv = hj ? parse_json(hj, hl) : NULL;
    if (h->format_version != ATF_WTF_FORMAT_VERSION) {
        /* Cut inside its 12-byte header: no file line (docs/wtf-dump-format.md). */
    } else if (json) {
        ob_lit(o, "{\"wtf_version\":");
        ob_u64(o, h->wtf_version);
        ob_lit(o, ",\"format_version\":");
        ob_u64(o, h->format_version);
        ob_lit(o, ",\"header\":");
        if (hv)
            ob_json_value(o, hv);
        else
            ob_lit(o, "null");
        ob_lit(o, "}\n");
    } else {
        /* %.3f of the largest double is 313 characters: the line fits; a
         * shorter buffer was overrun by a header's huge timebase. */
        char line[512];
        int n = snprintf(line, sizeof line, "wtf file: version 0x%08x, format %u, timebase %.3f ms\n",
                         (unsigned)h->wtf_version, (unsigned)h->format_version, atf_wtf_reader_timebase(r));
        if (n > 0)
            ob_put(o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
    json_decref(hv);
    const atf_wtf_chunk *c;
    atf_error e;
    while (!o->failed) {
        st = atf_wtf_reader_next_chunk(r, &c, &e);
        if (st == ATF_E_NOT_FOUND) {
            st = ATF_OK;
            break;
        }
        if (st == ATF_E_NOMEM)
            break;
        if (st != ATF_OK) {
            diag_error(diag, &e, "chunk not read");
            st = ATF_OK;   /* counted as damage in the summary; the reader goes on when it can */
            continue;
        }
        uint32_t index = c->index;
        if (json) {
            put_chunk_line(o, c, index);
        } else {
            char line[160];
            int n = snprintf(line, sizeof line, "chunk %u at %llu: type %u, %u bytes, %u part(s)%s\n",
                             (unsigned)index, (unsigned long long)c->offset, (unsigned)c->type,
                             (unsigned)c->length, (unsigned)c->part_count,
                             atf_wtf_reader_chunk_cut(r) ? " (cut short)" : "");
            ob_put(o, line, (size_t)n);
        }
        atf_wtf_event ev;
        for (;;) {
            atf_status es = atf_wtf_reader_next_event(r, &ev, &e);
            if (es == ATF_E_NOT_FOUND)
                break;
            if (es == ATF_E_NOMEM) {
                st = es;
                break;
            }
            if (es != ATF_OK) {
                diag_error(diag, &e, "rest of the chunk not read");
                break;
            }
            if (json)
                put_event_line(o, r, &ev);
            else
                put_event_text(o, r, &ev);
        }
        if (st != ATF_OK)
            break;
    }
    st = finish(o, r, path, opts, st, err);
    free(o);
    return st;
}

/* What `atf info` counts in one part of a file (atf_wtf_read_parts). */
typedef struct info_part {
    uint64_t resources, strings;
    uint32_t t_min, t_max;
    /* the first part's: the file's header */
    atf_wtf_file_header header;
    double timebase;
    unsigned file_flags;
} info_part;

static atf_status info_read_part(void *user, const atf_wtf_read_part *part)
{
    info_part *ip = (info_part *)user + part->index;
    atf_wtf_reader *r = part->reader;
    const atf_wtf_chunk *c;
    atf_wtf_event evs[256];
    atf_error e;
    atf_status st;
    ip->header = *atf_wtf_reader_header(r);
    ip->timebase = atf_wtf_reader_timebase(r);
    ip->file_flags = atf_wtf_reader_file_flags(r);
    while ((st = atf_wtf_reader_next_chunk(r, &c, &e)) != ATF_E_NOT_FOUND) {
        if (st == ATF_E_NOMEM)
            return st;
        if (st != ATF_OK)
            continue;   /* a skipped chunk: counted in the summary */
        for (uint32_t i = 0; i < c->part_count; i++)
            if ((c->parts[i].type & 0xFFFF0000u) == 0x40000u)
                ip->resources++;
        ip->strings += atf_wtf_reader_strings(r)->count;
        size_t got;
        while ((st = atf_wtf_reader_next_events(r, evs, sizeof evs / sizeof evs[0], &got, &e)) == ATF_OK)
            for (size_t k = 0; k < got; k++) {
                const atf_wtf_event *ev = &evs[k];
                if (ev->def->flags & (ATF_WTF_FLAG_BUILTIN | ATF_WTF_FLAG_INTERNAL))
                    continue;
                if (ev->time < ip->t_min)
                    ip->t_min = ev->time;
                if (ev->time > ip->t_max)
                    ip->t_max = ev->time;
            }
        if (st == ATF_E_NOMEM)
            return st;
    }
    return ATF_OK;
}

atf_status wtf_tool_info(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    /* The events in parts on every core (a part per CPU with 16 MiB each,
     * or ATF_WTF_THREADS). */
    info_part parts[64];
    memset(parts, 0, sizeof parts);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        parts[i].t_min = UINT32_MAX;   /* (a part with no user event keeps t_min > t_max) */
    atf_wtf_summary s;
    atf_status st = atf_wtf_read_parts(path, 0, info_read_part, parts, &s, err);
    if (st != ATF_OK)
        return st;
    uint64_t resources = 0, strings = 0;
    uint32_t t_min = UINT32_MAX, t_max = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        resources += parts[i].resources;
        strings += parts[i].strings;
        if (parts[i].t_min < t_min)
            t_min = parts[i].t_min;
        if (parts[i].t_max > t_max)
            t_max = parts[i].t_max;
    }
    const atf_wtf_file_header *h = &parts[0].header;
    int json = opts && opts->json;
    static const char *const states[] = { "complete", "crash-truncated", "damaged" };
    if (json)
        fprintf(out,
                "{\"format\":\"wtf\",\"wtf_version\":%u,\"format_version\":%u,\"timebase_ms\":%.17g,\"file_flags\":%u,"
                "\"state\":\"%s\",\"size\":%llu,\"chunks\":%llu,\"event_chunks\":%llu,\"events\":%llu,"
                "\"strings\":%llu,\"resources\":%llu,\"bytes_unread\":%llu}\n",
                (unsigned)h->wtf_version, (unsigned)h->format_version, parts[0].timebase,
                parts[0].file_flags, states[s.state], (unsigned long long)s.file_size,
                (unsigned long long)s.chunks, (unsigned long long)s.event_chunks, (unsigned long long)s.events,
                (unsigned long long)strings, (unsigned long long)resources, (unsigned long long)s.bytes_unread);
    else {
        fprintf(out, "%s: WTF chunked file, version 0x%08x, format %u\n", path, (unsigned)h->wtf_version,
                (unsigned)h->format_version);
        fprintf(out, "  timebase    %.3f ms%s%s\n", parts[0].timebase,
                parts[0].file_flags & ATF_WTF_FILE_HIGH_RES_TIMES ? ", high-resolution times" : "",
                parts[0].file_flags & ATF_WTF_FILE_TIMES_AS_COUNT ? ", times as counts" : "");
        fprintf(out, "  state       %s\n", states[s.state]);
        fprintf(out, "  chunks      %llu (%llu of events), %llu bytes\n", (unsigned long long)s.chunks,
                (unsigned long long)s.event_chunks, (unsigned long long)s.file_size);
        fprintf(out, "  events      %llu, %llu strings, %llu resources\n", (unsigned long long)s.events,
                (unsigned long long)strings, (unsigned long long)resources);
        if (t_min <= t_max)
            fprintf(out, "  time        %u .. %u us from the timebase (user events)\n", (unsigned)t_min,
                    (unsigned)t_max);
    }
    diag_summary(opts ? opts->diag : NULL, path, &s);
    if (s.state == ATF_WTF_DAMAGED) {
        if (err)
            *err = s.first_damage;
        return ATF_E_DAMAGED;
    }
    return ATF_OK;
}
