/* Target wtf_roundtrip: structure-aware writer -> reader round trip of WTF
 * files (a model check, like index_roundtrip for ATF).
 *
 * Input bytes are a little program for atf_wtf_writer: define an event type
 * (a signature of up to 6 arguments of any type, arrays included, spelled
 * with varying spaces; scope or instance), write one of them with values
 * taken from the bytes (integers at their edges, float bit patterns, strings
 * from a pool with empty, null, non-ASCII and NUL-holding ones, arrays of up
 * to 8 elements or null), create and set zones, leave scopes, appendData,
 * timeStamp, flush, and calls the writer must refuse. Writer options (chunk
 * size, version, timebase, context) and the end (close, or a crash: the file
 * as it is after the last flush) come from the end of the input.
 * Properties:
 *  - every call succeeds or fails as the API says (an undefined wire id, a
 *    zone created twice or never created, a name defined again with another
 *    signature, a string holding a NUL: ATF_E_ARG, and nothing written);
 *  - the file read back (events other than defines, zone creates of a zone
 *    already created and zone sets to the current zone, which the writer
 *    repeats in every chunk) is exactly the sequence of events written: name,
 *    time, every argument and array element, the zone set before each event;
 *    the reader matches the model (fz_wtf_check_reader), one reader and 3
 *    parts side by side (fz_wtf_check_reader_parts), and the file is
 *    complete; the writer's event count is the file's;
 *  - the validator finds no error (warnings: scopes left open, non-UTF-8
 *    strings, arrays the reference library cannot read), and agrees with
 *    the reader;
 *  - every chunk stands alone (SPEC-WTF 5): the file header, the header
 *    chunk and that chunk make a complete file with the same events, in the
 *    same zones from the chunk's first wtf.zone#set on;
 *  - a crash leaves whole chunks only, holding at least the events flushed,
 *    a prefix of those written; a copy cut at any byte recovers exactly what
 *    SPEC-WTF 6 says (fz_wtf_cut_expect), and reader and validator agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/validator.h>

#include "fuzz_wtf.h"

#define MAX_TYPES 24
#define MAX_ARGS 6
#define MAX_ELEMS 8
#define MAX_EVENTS 1024

/* Strings the values are drawn from; the last one holds a NUL (refused). */
static const char *const ascii_pool[] = { NULL, "", "a", "hello world", "caf\xc3\xa9", "\xff\xfe not utf-8",
                                          "with \"quotes\" and \\", "tab\there", "x#y" };
static const char *const json_pool[] = { NULL, "1", "\"s\"", "{\"k\":[1,2,3]}", "[]", "true", "-0.5e3", "null" };
#define NUL_STRING "ab\0cd"
#define NUL_STRING_LEN 5u

typedef struct xval {
    uint8_t type, array, is_null;   /* type: index into fz_wtf_types */
    uint32_t count;
    uint32_t raw[MAX_ELEMS];        /* scalar bits as written (ints, floats, chars) */
    const char *s[MAX_ELEMS];
    uint32_t slen[MAX_ELEMS];
} xval;

typedef struct xevent {
    char name[32];
    uint32_t time;
    int32_t zone;
    uint32_t depth;
    size_t nargs;
    xval args[MAX_ARGS];
} xevent;

typedef struct utype {
    uint16_t wire;
    uint16_t cls;
    char name[32];
    char sig[256];
    uint32_t flags;
    size_t nargs;
    uint8_t type[MAX_ARGS], array[MAX_ARGS];
} utype;

typedef struct prog {
    fz_stream in;
    atf_wtf_writer *w;
    utype types[MAX_TYPES];
    size_t ntypes;
    xevent *ev;
    size_t nev;
    uint32_t time;
    int32_t zone;
    uint8_t zone_made[256];
    uint32_t depth[257];
} prog;

static const char *pick_string(prog *g, int json, uint32_t *len, int allow_nul)
{
    uint8_t b = fz_next_u8(&g->in);
    size_t n = json ? sizeof json_pool / sizeof json_pool[0] : sizeof ascii_pool / sizeof ascii_pool[0];
    if (allow_nul && b == 0xFF) {
        *len = NUL_STRING_LEN;
        return NUL_STRING;
    }
    const char *s = json ? json_pool[b % n] : ascii_pool[b % n];
    *len = s ? (uint32_t)strlen(s) : 0;
    return s;
}

/* The value of one argument: what the writer gets and what must come back. */
static int make_value(prog *g, uint8_t type, uint8_t array, atf_wtf_value *v, xval *x, uint8_t *elems,
                      const char **strs)
{
    const fz_wtf_type_info *ti = &fz_wtf_types[type];
    int nul = 0;
    memset(v, 0, sizeof *v);
    memset(x, 0, sizeof *x);
    v->type = ti->codec;
    v->array = array;
    x->type = type;
    x->array = array;
    int json = strcmp(ti->name, "any") == 0;
    if (array) {
        uint8_t c = fz_next_u8(&g->in);
        if (c == 0xFF) {
            v->is_null = x->is_null = 1;
            return 0;
        }
        v->count = x->count = c % (MAX_ELEMS + 1);
        for (uint32_t k = 0; k < x->count; k++) {
            if (ti->is_string) {
                strs[k] = x->s[k] = pick_string(g, json, &x->slen[k], 0);
                continue;
            }
            uint32_t raw = fz_next_u32(&g->in);
            if (ti->elem_size == 1) {
                elems[k] = (uint8_t)raw;
                x->raw[k] = (uint8_t)raw;
            } else if (ti->elem_size == 2) {
                uint16_t h = (uint16_t)raw;
                memcpy(elems + 2 * k, &h, 2);
                x->raw[k] = h;
            } else {
                memcpy(elems + 4 * k, &raw, 4);
                x->raw[k] = raw;
            }
        }
        v->elems = ti->is_string ? (const uint8_t *)(const void *)strs : elems;
        return 0;
    }
    if (ti->is_string) {
        uint32_t len;
        const char *s = pick_string(g, json, &len, 1);
        nul = s && memchr(s, 0, len) != NULL;
        v->s = x->s[0] = s;
        v->s_len = x->slen[0] = len;
        return nul;
    }
    uint32_t raw = fz_next_u32(&g->in);
    uint8_t sel = fz_next_u8(&g->in) % 4;
    if (sel == 0)
        raw = 0;
    else if (sel == 1)
        raw = 0xFFFFFFFFu;
    else if (sel == 2)
        raw = 0x80000000u >> (raw % 32);
    switch (type) {
    case 0: x->raw[0] = raw & 1; v->u = raw & 1; break;                           /* bool */
    case 1: x->raw[0] = (uint8_t)raw; v->i = (int8_t)raw; break;                  /* int8 */
    case 2: case 13: x->raw[0] = (uint8_t)raw; v->u = (uint8_t)raw; break;        /* uint8, char */
    case 3: x->raw[0] = (uint16_t)raw; v->i = (int16_t)raw; break;                /* int16 */
    case 4: case 14: x->raw[0] = (uint16_t)raw; v->u = (uint16_t)raw; break;      /* uint16, wchar */
    case 5: x->raw[0] = raw; v->i = (int32_t)raw; break;                          /* int32 */
    case 7: {                                                                      /* float32 */
        float f;
        memcpy(&f, &raw, 4);
        x->raw[0] = raw;
        v->f = f;
        break;
    }
    default: x->raw[0] = raw; v->u = raw; break;                                  /* uint32, flowId, time32 */
    }
    return 0;
}

/* One value read back against what was written. */
static void check_value(const atf_wtf_value *v, const xval *x, uint32_t k, const char *what)
{
    const fz_wtf_type_info *ti = &fz_wtf_types[x->type];
    if (ti->is_string) {
        if (!x->s[k])
            FZ_CHECK(v->s == NULL && v->is_null, "%s: a null string came back as \"%.20s\"", what, v->s ? v->s : "");
        else
            FZ_CHECK(v->s && v->s_len == x->slen[k] && memcmp(v->s, x->s[k], x->slen[k]) == 0,
                     "%s: \"%s\" came back as \"%.40s\"", what, x->s[k], v->s ? v->s : "(null)");
        return;
    }
    uint32_t raw = x->raw[k];
    switch (x->type) {
    case 0: FZ_CHECK(v->u == (raw != 0), "%s: bool", what); break;
    case 1: FZ_CHECK(v->i == (int8_t)raw, "%s: int8 %lld, wrote %d", what, (long long)v->i, (int8_t)raw); break;
    case 3: FZ_CHECK(v->i == (int16_t)raw, "%s: int16", what); break;
    case 5: FZ_CHECK(v->i == (int32_t)raw, "%s: int32", what); break;
    case 7: {
        float f;
        memcpy(&f, &raw, 4);
        FZ_CHECK((isnan(f) && isnan(v->f)) || (v->f == (double)f && !signbit(v->f) == !signbit(f)),
                 "%s: float32 %.9g, wrote %.9g", what, v->f, (double)f);
        break;
    }
    default: FZ_CHECK(v->u == raw, "%s: %llu, wrote %u", what, (unsigned long long)v->u, raw); break;
    }
}

static xevent *push(prog *g, const char *name, size_t nargs)
{
    xevent *e = &g->ev[g->nev++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->time = g->time;
    e->zone = g->zone;
    e->depth = g->depth[g->zone + 1];
    e->nargs = nargs;
    return e;
}

static xval string_val(const char *s)
{
    xval x;
    memset(&x, 0, sizeof x);
    x.type = 10; /* ascii */
    x.s[0] = s;
    x.slen[0] = s ? (uint32_t)strlen(s) : 0;
    return x;
}

static void op_define(prog *g, int again)
{
    if (again && g->ntypes) {
        /* The same name again: the same wire id with its signature, refused
         * with another one. */
        utype *t = &g->types[fz_next_u8(&g->in) % g->ntypes];
        char sig[300];
        uint16_t wire = 0;
        int other = fz_next_u8(&g->in) & 1;
        snprintf(sig, sizeof sig, "%s%s", t->sig, other ? (t->nargs ? ", int8 extra" : "int8 extra") : "");
        atf_error err;
        atf_status st = atf_wtf_writer_define(g->w, t->name, sig, t->cls, t->flags, &wire, &err);
        FZ_CHECK(st == (other ? ATF_E_ARG : ATF_OK) && (other || wire == t->wire),
                 "define %s again (%s): %s, wire %u", t->name, other ? "other signature" : "same signature",
                 atf_status_name(st), wire);
        return;
    }
    if (g->ntypes == MAX_TYPES)
        return;
    utype *t = &g->types[g->ntypes];
    uint8_t b = fz_next_u8(&g->in);
    t->nargs = b % (MAX_ARGS + 1);
    t->cls = (b >> 3) & 1;
    snprintf(t->name, sizeof t->name, "fz#type%zu", g->ntypes);
    char *sig = t->sig;
    size_t n = 0;
    for (size_t i = 0; i < t->nargs; i++) {
        uint8_t a = fz_next_u8(&g->in);
        t->type[i] = a % 15;
        t->array[i] = (a >> 4) & 1;
        /* Spellings the grammar allows: spaces around commas and after the type. */
        const char *sep = i == 0 ? "" : (a & 0x20) ? " ,  " : ", ";
        n += (size_t)snprintf(sig + n, sizeof t->sig - n, "%s%s%s%s$a_%zu", sep, fz_wtf_types[t->type[i]].name,
                              t->array[i] ? "[]" : "", (a & 0x40) ? "\t " : " ", i);
    }
    if (t->nargs == 0)
        sig[0] = 0;
    t->flags = (uint32_t)(fz_next_u8(&g->in) & 0x56);   /* known bits, no BUILTIN or INTERNAL */
    atf_error err;
    atf_status st = atf_wtf_writer_define(g->w, t->name, sig, t->cls, t->flags, &t->wire, &err);
    FZ_CHECK(st == ATF_OK, "define %s (%s): %s", t->name, sig, err.message);
    g->ntypes++;
}

static void op_event(prog *g)
{
    if (!g->ntypes) {
        atf_error err;
        FZ_CHECK(atf_wtf_writer_event(g->w, 200, g->time, NULL, 0, &err) == ATF_E_ARG, "an undefined wire id");
        return;
    }
    utype *t = &g->types[fz_next_u8(&g->in) % g->ntypes];
    atf_wtf_value v[MAX_ARGS];
    uint8_t elems[MAX_ARGS][4 * MAX_ELEMS];
    const char *strs[MAX_ARGS][MAX_ELEMS];
    xevent x;
    memset(&x, 0, sizeof x);
    int nul = 0;
    for (size_t i = 0; i < t->nargs; i++)
        nul |= make_value(g, t->type[i], t->array[i], &v[i], &x.args[i], elems[i], strs[i]);
    atf_error err;
    atf_status st = atf_wtf_writer_event(g->w, t->wire, g->time, v, t->nargs, &err);
    FZ_CHECK(st == (nul ? ATF_E_ARG : ATF_OK), "event %s%s: %s", t->name, nul ? " with a NUL in a string" : "",
             atf_status_name(st));
    if (nul)
        return;
    xevent *e = push(g, t->name, t->nargs);
    memcpy(e->args, x.args, sizeof x.args);
    if (t->cls == ATF_WTF_CLASS_SCOPE)
        g->depth[g->zone + 1]++;
}

static void op_zone(prog *g, int set)
{
    uint8_t id = fz_next_u8(&g->in) % 8;
    atf_error err;
    if (set) {
        atf_status st = atf_wtf_writer_zone_set(g->w, id, g->time, &err);
        FZ_CHECK(st == (g->zone_made[id] ? ATF_OK : ATF_E_ARG), "zone_set %u: %s", id, atf_status_name(st));
        if (st != ATF_OK)
            return;
        xevent *e = push(g, "wtf.zone#set", 1);
        e->args[0].type = 4;
        e->args[0].raw[0] = id;
        g->zone = id;
        return;
    }
    uint32_t l;
    const char *name = pick_string(g, 0, &l, 0), *type = pick_string(g, 0, &l, 0), *loc = pick_string(g, 0, &l, 0);
    atf_status st = atf_wtf_writer_zone_create(g->w, id, name, type, loc, g->time, &err);
    FZ_CHECK(st == (g->zone_made[id] ? ATF_E_ARG : ATF_OK), "zone_create %u: %s", id, atf_status_name(st));
    if (st != ATF_OK)
        return;
    g->zone_made[id] = 1;
    xevent *e = push(g, "wtf.zone#create", 4);
    e->args[0].type = 4;
    e->args[0].raw[0] = id;
    e->args[1] = string_val(name);
    e->args[2] = string_val(type);
    e->args[3] = string_val(loc);
}

static void op_name_value(prog *g, int stamp)
{
    uint32_t l1, l2;
    const char *name = pick_string(g, 0, &l1, 0), *json = pick_string(g, 1, &l2, 0);
    atf_error err;
    atf_status st = stamp ? atf_wtf_writer_time_stamp(g->w, name, json, g->time, &err)
                          : atf_wtf_writer_append_data(g->w, name, json, g->time, &err);
    FZ_CHECK(st == ATF_OK, "%s: %s", stamp ? "time_stamp" : "append_data", atf_status_name(st));
    xevent *e = push(g, stamp ? "wtf.trace#timeStamp" : "wtf.scope#appendData", 2);
    e->args[0] = string_val(name);
    e->args[1] = string_val(json);
    e->args[1].type = 12; /* any */
}

/* Drops what the writer repeats per chunk: defines, zone creates of a zone
 * already created, zone sets to the current zone. */
static int repeated(const char *name, uint32_t zone_arg, uint8_t *made, int32_t *zone)
{
    if (strcmp(name, "wtf.event#define") == 0)
        return 1;
    if (strcmp(name, "wtf.zone#create") == 0) {
        if (made[zone_arg & 0xFF])
            return 1;
        made[zone_arg & 0xFF] = 1;
        return 0;
    }
    if (strcmp(name, "wtf.zone#set") == 0) {
        if ((int32_t)zone_arg == *zone)
            return 1;
        *zone = (int32_t)zone_arg;
    }
    return 0;
}

/* The file read back: events (normalized) against what was written; returns
 * how many written events it holds, repetitions included (the file may hold
 * a prefix: a crash). */
static size_t compare_events(const prog *g, const uint8_t *file, size_t size, uint64_t *total_events)
{
    atf_wtf_reader *r;
    atf_error err;
    FZ_CHECK(atf_wtf_reader_open_memory(&r, file, size, "roundtrip.wtf-trace", &err) == ATF_OK, "open: %s",
             err.message);
    uint8_t made[256] = { 0 }, made_x[256] = { 0 };
    int32_t zone = -1, zone_x = -1;
    size_t k = 0;
    *total_events = 0;
    const atf_wtf_chunk *c;
    while (atf_wtf_reader_next_chunk(r, &c, &err) == ATF_OK) {
        atf_wtf_event ev;
        while (atf_wtf_reader_next_event(r, &ev, &err) == ATF_OK) {
            (*total_events)++;
            atf_wtf_value v0;
            uint32_t zarg = ev.def->arg_count && atf_wtf_event_arg(r, &ev, 0, &v0, NULL) == ATF_OK ? (uint32_t)v0.u : 0;
            if (repeated(ev.def->name, zarg, made, &zone))
                continue;
            /* The next written event that is not a repetition either. */
            while (k < g->nev && repeated(g->ev[k].name, g->ev[k].args[0].raw[0], made_x, &zone_x))
                k++;
            FZ_CHECK(k < g->nev, "event %s at %llu was never written", ev.def->name, (unsigned long long)ev.offset);
            const xevent *x = &g->ev[k++];
            FZ_CHECK(strcmp(ev.def->name, x->name) == 0 && ev.time == x->time && ev.def->arg_count == x->nargs,
                     "event at %llu: %s at %u with %zu arguments; written: %s at %u with %zu",
                     (unsigned long long)ev.offset, ev.def->name, ev.time, ev.def->arg_count, x->name, x->time,
                     x->nargs);
            FZ_CHECK(ev.zone == x->zone && ev.depth == x->depth, "event %s at %llu: zone %d depth %u, written in zone "
                     "%d at depth %u", x->name, (unsigned long long)ev.offset, (int)ev.zone, ev.depth, (int)x->zone,
                     x->depth);
            for (size_t i = 0; i < x->nargs; i++) {
                char what[80];
                snprintf(what, sizeof what, "%s at %llu, argument %zu", x->name, (unsigned long long)ev.offset, i);
                atf_wtf_value v;
                FZ_CHECK(atf_wtf_event_arg(r, &ev, i, &v, NULL) == ATF_OK, "%s: not decoded", what);
                const xval *xv = &x->args[i];
                if (!xv->array) {
                    check_value(&v, xv, 0, what);
                    continue;
                }
                FZ_CHECK(v.array && v.is_null == xv->is_null && v.count == xv->count, "%s: array of %u (null %u), "
                         "wrote %u (null %u)", what, v.count, v.is_null, xv->count, xv->is_null);
                for (uint32_t e = 0; e < v.count; e++) {
                    atf_wtf_value ve;
                    FZ_CHECK(atf_wtf_array_elem(&v, e, atf_wtf_reader_strings(r), &ve) == ATF_OK, "%s: element", what);
                    check_value(&ve, xv, e, what);
                }
            }
        }
    }
    /* Written events left that the writer would not repeat are not there. */
    while (k < g->nev && repeated(g->ev[k].name, g->ev[k].args[0].raw[0], made_x, &zone_x))
        k++;
    atf_wtf_summary sum;
    atf_wtf_reader_summary(r, &sum);
    FZ_CHECK(sum.state == ATF_WTF_COMPLETE, "the written file is not complete (state %d)", (int)sum.state);
    atf_wtf_reader_close(r);
    return k;
}

static void check_cut(const uint8_t *file, size_t size, const fz_wtf_model *full, size_t cut)
{
    uint8_t *prefix = malloc(cut ? cut : 1);
    FZ_CHECK(prefix != NULL, "oom");
    memcpy(prefix, file, cut);
    uint64_t want;
    atf_wtf_state state;
    fz_wtf_cut_expect(file, size, full, cut, &want, &state);
    fz_wtf_model m = fz_wtf_model_of(prefix, cut);
    FZ_CHECK(m.state == state && m.events == want, "cut at %zu of %zu: %llu events, state %d; SPEC-WTF 6: %llu, %d",
             cut, size, (unsigned long long)m.events, (int)m.state, (unsigned long long)want, (int)state);
    for (uint64_t i = 0; i < want; i++)
        FZ_CHECK(m.ev[i].offset == full->ev[i].offset && m.ev[i].size == full->ev[i].size,
                 "cut at %zu: event %llu is not the original's", cut, (unsigned long long)i);
    fz_wtf_check_reader(prefix, cut, &m);
    fz_wtf_check_validator(prefix, cut, &m);
    fz_wtf_model_free(&m);
    free(prefix);
}

/* SPEC-WTF 5: every chunk our writer writes stands alone. The file header,
 * the header chunk and any one event chunk make a complete file whose
 * events are exactly that chunk's, in the same zones. */
static void check_chunks_alone(const uint8_t *file, const fz_wtf_model *full)
{
    uint64_t head = ATF_WTF_FILE_HEADER_SIZE + fz_le32(file + ATF_WTF_FILE_HEADER_SIZE + 8);
    uint64_t first = 0;
    for (uint32_t chunk = 1; first < full->events; chunk++) {
        uint64_t last = first;
        while (last < full->events && full->ev[last].chunk == chunk)
            last++;
        if (last == first)
            continue;
        uint64_t at = full->ev[first].offset, start = at;
        /* The chunk's header: walk the chunks to the one holding the event. */
        for (uint64_t pos = head; pos < at; pos += fz_le32(file + pos + 8))
            start = pos;
        uint64_t len = fz_le32(file + start + 8);
        uint8_t *alone = malloc(head + len);
        FZ_CHECK(alone != NULL, "oom");
        memcpy(alone, file, head);
        memcpy(alone + head, file + start, len);
        fz_wtf_model m = fz_wtf_model_of(alone, head + len);
        FZ_CHECK(m.state == ATF_WTF_COMPLETE && m.events == last - first && !m.undetermined,
                 "chunk %u alone: state %d, %llu events of %llu", chunk, (int)m.state, (unsigned long long)m.events,
                 (unsigned long long)(last - first));
        /* Zones from the chunk's first wtf.zone#set on (the definitions and
         * the zone's create before it are in no zone yet). */
        int set_seen = 0;
        for (uint64_t i = 0; i < m.events; i++) {
            const fz_wtf_event *a = &m.ev[i], *b = &full->ev[first + i];
            FZ_CHECK(a->offset - head == b->offset - start && a->wire == b->wire &&
                         (!set_seen || a->zone == b->zone) && strcmp(a->def->name, b->def->name) == 0,
                     "chunk %u alone: event %llu differs (%s in zone %d, in the file %s in zone %d)", chunk,
                     (unsigned long long)i, a->def->name, (int)a->zone, b->def->name, (int)b->zone);
            set_seen |= strcmp(a->def->name, "wtf.zone#set") == 0;
        }
        fz_wtf_model_free(&m);
        free(alone);
        first = last;
    }
}

static void check_conformant(const uint8_t *file, size_t size)
{
    atf_validation *v = NULL;
    FZ_CHECK(atf_validate_wtf_memory(&v, file, size, NULL, NULL, NULL) == ATF_OK, "validator");
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        FZ_CHECK(strcmp(f->clause, "WTF-SCO-002") == 0 || strcmp(f->clause, "WTF-STR-003") == 0 ||
                     strcmp(f->clause, "WTF-DEF-008") == 0,
                 "our writer's file breaks %s at %llu: %s", f->clause, (unsigned long long)f->offset, f->message);
    }
    atf_validation_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    atf_wtf_write_options wo = ATF_WTF_WRITE_OPTIONS_INIT;
    wo.chunk_bytes = fz_bool(&p) ? 0 : (uint32_t)fz_range(&p, 1, 4096);
    wo.wtf_version = fz_u32(&p);
    wo.timebase_ms = fz_bool(&p) ? 1436947200000.25 : (double)fz_u32(&p) / 8.0;
    wo.high_res_times = fz_bool(&p);
    wo.context_uri = fz_bool(&p) ? "file:///fuzz \"dir\"/x.js" : NULL;
    wo.context_title = fz_bool(&p) ? "t\x01tle" : NULL;
    int crash = fz_u8(&p) % 4 == 0;
    size_t cut_param = (size_t)fz_u32(&p);

    prog g;
    memset(&g, 0, sizeof g);
    g.in = (fz_stream){ data, p.left, 0 };
    g.zone = -1;
    g.ev = calloc(MAX_EVENTS, sizeof *g.ev);
    FZ_CHECK(g.ev != NULL, "oom");
    char path[700];
    snprintf(path, sizeof path, "%s/roundtrip.wtf-trace", fz_scratch_dir());
    atf_error err;
    FZ_CHECK(atf_wtf_writer_open(&g.w, path, &wo, &err) == ATF_OK, "writer open: %s", err.message);
    size_t flushed = 0;
    while (fz_stream_left(&g.in) > 0 && g.nev < MAX_EVENTS - 1) {
        uint8_t op = fz_next_u8(&g.in);
        g.time += op >> 5;
        switch (op % 11) {
        case 0: op_define(&g, 0); break;
        case 1: op_define(&g, 1); break;
        case 2: case 3: case 4: op_event(&g); break;
        case 5: op_zone(&g, 0); break;
        case 6: op_zone(&g, 1); break;
        case 7:
            /* Only a scope that is open: the file stays conformant. */
            if (g.depth[g.zone + 1]) {
                FZ_CHECK(atf_wtf_writer_scope_leave(g.w, g.time, &err) == ATF_OK, "scope_leave");
                g.depth[g.zone + 1]--;
                push(&g, "wtf.scope#leave", 0);
            }
            break;
        case 8: op_name_value(&g, 0); break;
        case 9: op_name_value(&g, 1); break;
        default:
            FZ_CHECK(atf_wtf_writer_flush(g.w, &err) == ATF_OK, "flush");
            flushed = g.nev;
            break;
        }
    }
    uint64_t count = atf_wtf_writer_event_count(g.w);
    size_t fsize;
    uint8_t *file;
    if (crash) {
        /* What a crash leaves: the chunks written so far, whole. */
        file = fz_read_file(path, &fsize);
        FZ_CHECK(file != NULL, "read back");
        fz_wtf_model m = fz_wtf_model_of(file, fsize);
        FZ_CHECK(m.state == ATF_WTF_COMPLETE, "a crashed writer left a file in state %d", (int)m.state);
        fz_wtf_check_reader(file, fsize, &m);
        uint64_t total;
        size_t got = compare_events(&g, file, fsize, &total);
        FZ_CHECK(got >= flushed && got <= g.nev, "a crash after %zu flushed events left %zu", flushed, got);
        FZ_CHECK(total <= count, "the file holds %llu events, %llu were written", (unsigned long long)total,
                 (unsigned long long)count);
        fz_wtf_model_free(&m);
        FZ_CHECK(atf_wtf_writer_close(g.w, &err) == ATF_OK, "close");
        free(file);
        free(g.ev);
        return 0;
    }
    FZ_CHECK(atf_wtf_writer_close(g.w, &err) == ATF_OK, "close: %s", err.message);
    file = fz_read_file(path, &fsize);
    FZ_CHECK(file != NULL, "read back");
    fz_wtf_model m = fz_wtf_model_of(file, fsize);
    FZ_CHECK(m.open_status == ATF_OK && m.state == ATF_WTF_COMPLETE && !m.undetermined, "written file: state %d",
             (int)m.state);
    fz_wtf_check_reader(file, fsize, &m);
    fz_wtf_check_reader_parts(file, fsize, &m);
    uint64_t total;
    size_t got = compare_events(&g, file, fsize, &total);
    FZ_CHECK(got == g.nev, "%zu of %zu written events read back", got, g.nev);
    FZ_CHECK(total == count && m.events == count, "the file holds %llu events, the writer counted %llu",
             (unsigned long long)total, (unsigned long long)count);
    check_conformant(file, fsize);
    check_chunks_alone(file, &m);
    fz_wtf_check_validator(file, fsize, &m);
    check_cut(file, fsize, &m, cut_param % (fsize + 1));
    fz_wtf_model_free(&m);
    free(file);
    free(g.ev);
    return 0;
}
