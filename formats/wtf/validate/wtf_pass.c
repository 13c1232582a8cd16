/* The WTF pass: every clause of conformance/SPEC-WTF.md over one file, with
 * byte offsets. Chunks are walked in file order with the codec's parsers
 * (formats/wtf/src); the pass keeps its own tables (definitions, zones,
 * scope depth) so that it can report what the reader reads past. Memory is
 * bounded by the input: one pointer table of 65536 wire ids, one of zones,
 * and per chunk an index of its string table. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <atf/wtf.h>

#include "common.h"
#include "vinternal.h"
#include "wtf_internal.h"
#include "wtf_pass.h"

#define W_WIRES 65536u
#define W_ZONES 65536u
#define W_MAX_DEPTH 1024u
/* The depths the fast path keeps to, lo..lo + span (unsigned, so that a
 * depth below lo wraps above span): the main pass's are 0..W_MAX_DEPTH; a
 * part run ahead counts from its unknown start depth, -2^30..2^30. */
#define W_MAIN_DLO 0u
#define W_MAIN_DSPAN W_MAX_DEPTH
#define W_SPEC_DLO (0u - (1u << 30))
#define W_SPEC_DSPAN (1u << 31)
#define W_RELEASE (8u << 20)   /* bytes of chunks checked between two v_release() calls */

typedef struct wzone {
    uint8_t made;
    uint8_t deleted;      /* a wtf.zone#delete since its last create: the id may name another zone next */
    uint32_t ident;       /* hash of name, type and location */
    uint32_t depth;
    uint8_t too_deep;
    uint32_t lo, hi;      /* a part run ahead (wpass.spec): the lowest and highest depth (int32_t) */
} wzone;

/* A part run ahead records its findings (replayed in order when it joins):
 * each clause's first max_per_clause listed, the others counted (as the
 * report counts them), at most max_findings listed in all (more: the part
 * is run again in its turn). */
typedef struct wfind {
    int32_t unless_made;  /* >= 0: WTF-ZON-001 of this zone, unless it was created before the part */
    uint16_t clause;
    uint64_t offset;
    char *field, *msg;
} wfind;

typedef struct wrec {
    wfind *f;
    size_t n, cap, max_total;
    unsigned max_per_clause;
    uint32_t listed[C_COUNT_];
    uint64_t more[C_COUNT_], more_offset[C_COUNT_];
    size_t unless;        /* entries with unless_made */
    int overflow;
} wrec;

/* What the parts run ahead start with, read-only and shared by them: the
 * state after the file's first two chunks (a reference writer's defines
 * and zone creates are all there), its definitions and which zones were
 * created (not their depths). The join checks it is still in force. */
typedef struct wseed {
    atf_wtf_def **defs;   /* [defs_hi], NULL entries: not defined */
    uint32_t defs_hi;
    wzone *zones;         /* [zones_hi], as wpass.zones (index 0: no zone set) */
    uint32_t zones_hi;
} wseed;

/* Depths of a part run ahead are relative to its start: int32_t in the
 * uint32_t fields, 0 at the start (so that calloc'd zones need no setting). */
#define W_UNKNOWN_ZONE (-2)   /* a part run ahead: the zone set before it is not known */

typedef struct wpass {
    atf_validation *v;
    size_t file;
    const uint8_t *d;
    uint64_t size;
    atf_wtf_def **defs;   /* [W_WIRES] */
    wtf_plan *plan;       /* [W_WIRES], kept with defs by set_def() */
    uint8_t *tables;      /* the mapping that holds defs, plan, fsize, zones and, ahead, wflags, zflags, zfirst */
    uint32_t *fsize;      /* [W_WIRES], plan[wire].size on its own: fast_run's step from event to event
                             is then one indexed load, as short as a walk by sizes */
    wzone *zones;         /* [W_ZONES + 1]: index 0 is "no zone set" */
    int32_t zone;
    uint32_t wires_hi;    /* defs[] entries below this may be set */
    uint32_t zones_hi;    /* zones[] entries below this may be used */
    uint64_t events;
    int cut;
    int damaged;          /* a chunk's events stopped at a bad one */
    /* name -> its first definition, open addressing */
    atf_wtf_def **firsts;
    uint32_t names_cap, names_used;
    /* The current chunk's strings' states, at ord_slot(): the empty
     * ordinal's, the null one's, then per ordinal S_FULL when not empty and
     * S_JSON / S_NOT_JSON once read as JSON (an `any` string is parsed once
     * per chunk, not once per event), then one for every ordinal past the
     * table. NULL: no memory (no fast path; JSON parsed each time). */
    uint8_t *ord_state;
    int general_only;     /* the fast path off (tests) */
    int oom;
    /* A part run ahead of its turn (chunk-parallel validation): it starts
     * with no definitions, no zones and depths relative to its start, and
     * notes what it assumed so that the join can tell whether the state
     * the earlier parts leave changes any of its findings. */
    wrec *rec;            /* findings recorded, not reported (NULL: reported) */
    int spec;
    int undef;            /* an event of a wire id it has no definition of */
    uint8_t *wflags;      /* [W_WIRES]: 1 defined here first, 2 then defined otherwise */
    uint8_t *zflags;      /* [W_ZONES]: 2 created here first */
    uint32_t *zfirst;     /* [W_ZONES]: the identity of that first create */
    const wseed *seed;    /* what it started with (NULL: nothing) */
} wpass;

/* Room for one more recorded finding (w->oom when there is none). */
static int rec_room(wpass *w)
{
    wrec *r = w->rec;
    if (r->n < r->cap)
        return 1;
    size_t cap = r->cap ? r->cap * 2 : 16;
    wfind *n = (wfind *)realloc(r->f, cap * sizeof *n);
    if (!n) {
        w->oom = 1;
        return 0;
    }
    r->f = n;
    r->cap = cap;
    return 1;
}

static void rec_push(wpass *w, vclause c, uint64_t off, const char *field, const char *fmt, va_list ap)
{
    wrec *r = w->rec;
    if (r->listed[c] >= r->max_per_clause) {
        if (r->more[c]++ == 0)
            r->more_offset[c] = off;
        return;
    }
    if (r->n + 1 >= r->max_total) {
        r->overflow = 1;
        return;
    }
    if (!rec_room(w))
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    wfind *x = &r->f[r->n];
    x->unless_made = -1;
    x->clause = (uint16_t)c;
    x->offset = off;
    x->msg = strdup(msg);
    x->field = field ? strdup(field) : NULL;
    if (!x->msg || (field && !x->field)) {
        free(x->msg);
        free(x->field);
        w->oom = 1;
        return;
    }
    r->n++;
    r->listed[c]++;
}

/* A wtf.zone#set of zone @z not created in the part: whether it was
 * before is known at the join (at most 4096 of them, else the part runs
 * again in its turn). */
static void rec_zone_unmade(wpass *w, uint32_t z, uint64_t off)
{
    wrec *r = w->rec;
    if (r->unless >= 4096 || r->n + 1 >= r->max_total) {
        r->overflow = 1;
        return;
    }
    if (!rec_room(w))
        return;
    wfind *x = &r->f[r->n++];
    memset(x, 0, sizeof *x);
    x->unless_made = (int32_t)z;
    x->clause = C_WTF_ZON_001;
    x->offset = off;
    r->unless++;
}

static void wrep(wpass *w, vclause c, uint64_t off, const char *field, const char *fmt, ...) V_PRINTF(5, 6);
static void wrep(wpass *w, vclause c, uint64_t off, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (w->rec)
        rec_push(w, c, off, field, fmt, ap);
    else
        v_reportv(w->v, w->file, c, 0, off, field, fmt, ap);
    va_end(ap);
}

/* The recorded findings into the report, as if reported in turn. */
static void rec_replay(wpass *m, wrec *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const wfind *x = &r->f[i];
        if (x->unless_made < 0)
            v_report(m->v, m->file, (vclause)x->clause, 0, x->offset, x->field, "%s", x->msg);
        else if (!m->zones[(uint32_t)x->unless_made + 1].made)
            v_report(m->v, m->file, C_WTF_ZON_001, 0, x->offset, "zoneId", "zone %u was never created",
                     (unsigned)x->unless_made);
    }
    for (unsigned c = 0; c < C_COUNT_; c++)
        for (uint64_t k = 0; k < r->more[c]; k++)
            v_report(m->v, m->file, (vclause)c, 0, r->more_offset[c], NULL, "%s", "");
}

static void rec_free(wrec *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->f[i].msg);
        free(r->f[i].field);
    }
    free(r->f);
    free(r);
}

enum { S_FULL = 1, S_JSON = 2, S_NOT_JSON = 4 };   /* (fast_run makes S_JSON of a plan's any0 by a shift) */

static uint32_t hash_bytes(uint32_t h, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static uint32_t zone_slot(int32_t zone)
{
    return zone == W_UNKNOWN_ZONE ? W_ZONES + 1 : zone < 0 ? 0 : (uint32_t)zone + 1;
}

static wzone *cur_zone(wpass *w)
{
    return &w->zones[zone_slot(w->zone)];
}

/* ---- Definitions ------------------------------------------------------------ */

/* An owned copy of @d, or NULL when there is no memory. */
static atf_wtf_def *def_copy(const atf_wtf_def *d)
{
    atf_error e;
    return wtf_def_new(d->wire_id, d->event_class, d->flags, d->name, strlen(d->name), d->signature,
                       strlen(d->signature), &e);
}

/* The first definition of @d's name (an owned copy, kept to the end), or
 * NULL when the name is new (then @d becomes its first). Open addressing over
 * firsts[]; grows by doubling, bounded by the define events in the file. */
static const atf_wtf_def *name_first(wpass *w, const atf_wtf_def *d)
{
    if (w->names_used * 2 >= w->names_cap) {
        uint32_t cap = w->names_cap ? w->names_cap * 2 : 1024;
        atf_wtf_def **t = (atf_wtf_def **)calloc(cap, sizeof *t);
        if (!t) {
            w->oom = 1;
            return NULL;
        }
        for (uint32_t i = 0; i < w->names_cap; i++) {
            if (!w->firsts[i])
                continue;
            uint32_t j = hash_bytes(2166136261u, w->firsts[i]->name, strlen(w->firsts[i]->name)) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = w->firsts[i];
        }
        free(w->firsts);
        w->firsts = t;
        w->names_cap = cap;
    }
    uint32_t k = hash_bytes(2166136261u, d->name, strlen(d->name)) & (w->names_cap - 1);
    while (w->firsts[k]) {
        if (strcmp(w->firsts[k]->name, d->name) == 0)
            return w->firsts[k];
        k = (k + 1) & (w->names_cap - 1);
    }
    atf_wtf_def *copy = def_copy(d);
    if (!copy) {
        w->oom = 1;
        return NULL;
    }
    w->firsts[k] = copy;
    w->names_used++;
    return NULL;
}

/* Same arguments (names, types, arrays), whatever the signature's spelling. */
static int same_args(const atf_wtf_def *a, const atf_wtf_def *b)
{
    if (a->arg_count != b->arg_count)
        return 0;
    for (size_t i = 0; i < a->arg_count; i++)
        if (a->args[i].type != b->args[i].type || a->args[i].array != b->args[i].array ||
            strcmp(a->args[i].name, b->args[i].name) != 0)
            return 0;
    return 1;
}

/* defs[wire] = d (may be NULL), and its plan. */
static void set_def(wpass *w, uint32_t wire, atf_wtf_def *d)
{
    w->defs[wire] = d;
    wtf_plan_of(&w->plan[wire], d);
    w->fsize[wire] = w->plan[wire].size;
    if (wire + 1 > w->wires_hi)
        w->wires_hi = wire + 1;
}

/* The offset of the define's field @p k bytes into its event, or the
 * event's own offset when the event ends before it (a wire id whose
 * definition is named wtf.event#define but has fewer arguments: the field is
 * missing, and nothing is reported beyond the event's bytes). */
static uint64_t fld(const atf_wtf_event *ev, uint64_t at, uint32_t k)
{
    return k < ev->size ? at + k : at;
}

static void on_define(wpass *w, const atf_wtf_event *ev, const atf_wtf_strings *st, uint64_t at)
{
    atf_wtf_value a[5];
    size_t avail = ev->size - 8;
    for (size_t i = 0; i < 5; i++)
        wtf_arg_value(ev->def, ev->args, avail, st, i, &a[i]);
    uint32_t wire = (uint32_t)a[0].u, cls = (uint32_t)a[1].u, flags = (uint32_t)a[2].u;
    int nlen = (int)(a[3].s_len > 80 ? 80 : a[3].s_len);
    const char *name = a[3].s ? a[3].s : "";
    atf_error e;
    atf_error_clear(&e);
    /* The order of the checks is the independent implementation's
     * (conformance/gen/wtfpy/reader.py), so that both report the same set. */
    atf_wtf_def *nd = wtf_def_new((uint16_t)wire, (uint16_t)cls, flags, name, a[3].s_len, a[4].s ? a[4].s : "",
                                  a[4].s_len, &e);
    if (!nd && e.code == ATF_E_NOMEM) {
        w->oom = 1;
        return;
    }
    if (!nd)
        wrep(w, C_WTF_DEF_001, fld(ev, at, 24), "define.args", "%.*s: %s", nlen, name, e.message);
    int ok = nd != NULL;
    if (wire == 0) {
        wrep(w, C_WTF_DEF_004, fld(ev, at, 8), "define.wireId", "wire id 0 for %.*s", nlen, name);
        ok = 0;
    } else if (wire == ATF_WTF_WIRE_DEFINE) {
        if (!nd || strcmp(nd->name, "wtf.event#define") != 0 || !same_args(nd, w->defs[ATF_WTF_WIRE_DEFINE]))
            wrep(w, C_WTF_DEF_004, fld(ev, at, 8), "define.wireId",
                     "wire id 1 defined as %.*s, not wtf.event#define with its signature", nlen, name);
        wtf_def_free(nd);
        return;
    }
    if (!a[3].s_len) {
        wrep(w, C_WTF_DEF_007, fld(ev, at, 20), "define.name", "define of wire id %u has a %s name",
                 (unsigned)wire, a[3].s ? "empty" : "null");
        ok = 0;
    }
    if (cls > 1)
        wrep(w, C_WTF_DEF_002, fld(ev, at, 12), "define.eventClass", "event class %u of %.*s",
                 (unsigned)cls, nlen, name);
    if (flags & ~0x7Eu)
        wrep(w, C_WTF_DEF_005, fld(ev, at, 16), "define.flags", "flags 0x%x of %.*s",
                 (unsigned)flags, nlen, name);
    if (!ok) {
        wtf_def_free(nd);
        return;
    }
    atf_wtf_def *old = w->defs[wire];
    int differs = old && !(old->event_class == nd->event_class && old->flags == nd->flags &&
                           strcmp(old->name, nd->name) == 0 && same_args(old, nd));
    if (w->spec)
        w->wflags[wire] |= !old ? 1 : differs ? 2 : 0;
    if (differs)
        wrep(w, C_WTF_DEF_003, fld(ev, at, 8), "define.wireId",
                 "wire id %u defined again as %s (%s), first %s (%s)", (unsigned)wire, nd->name, nd->signature,
                 old->name, old->signature);
    for (size_t i = 0; i < nd->arg_count; i++) {
        atf_wtf_type t = nd->args[i].type;
        if (nd->args[i].array && (t == ATF_WTF_BOOL || t == ATF_WTF_ASCII || t == ATF_WTF_UTF8 || t == ATF_WTF_ANY ||
                                  t == ATF_WTF_FLOWID || t == ATF_WTF_TIME32)) {
            wrep(w, C_WTF_DEF_008, fld(ev, at, 24), "define.args",
                     "%s: argument %s is a %s[], an array the reference library cannot read", nd->name,
                     nd->args[i].name, atf_wtf_type_name(t));
            break;
        }
    }
    /* The first definition of a name is the one the reference reader keeps. */
    const atf_wtf_def *first = name_first(w, nd);
    if (first && !same_args(first, nd))
        wrep(w, C_WTF_DEF_006, fld(ev, at, 24), "define.args",
                 "%s defined with arguments \"%s\", first with \"%s\"", nd->name, nd->signature, first->signature);
    wtf_def_free(old);
    set_def(w, wire, nd);
}

/* ---- Events ------------------------------------------------------------------ */

#define JSON_WS(c) ((c) == ' ' || (c) == '\t' || (c) == '\n' || (c) == '\r')

/* A JSON string from its opening quote with no \u escape and no byte past
 * ASCII: the byte after its closing quote, or NULL. */
static const unsigned char *plain_string(const unsigned char *p, const unsigned char *e)
{
    for (p++; p < e; p++) {
        unsigned c = *p;
        if (c == '"')
            return p + 1;
        if (c < 0x20 || c >= 0x80)
            return NULL;
        if (c == '\\' && (++p == e || !memchr("\"\\/bfnrt", *p, 8)))
            return NULL;   /* (memchr: a NUL byte is no escape either) */
    }
    return NULL;
}

/* A JSON number with no exponent and at most 300 digits before the point
 * (so no double overflows): the byte after it, or NULL. */
static const unsigned char *plain_number(const unsigned char *p, const unsigned char *e)
{
    p += p < e && *p == '-';
    const unsigned char *d = p;
    if (p < e && *p == '0')
        p++;
    else
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    if (p == d || p - d > 300)
        return NULL;
    if (p < e && *p == '.') {
        d = ++p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == d)
            return NULL;
    }
    return p < e && (*p == 'e' || *p == 'E') ? NULL : p;
}

/* Whether @s is JSON text that jansson surely reads under WTF_JSON_FLAGS,
 * checked by hand (no allocation, no strtod): a plain subset of the
 * grammar, at most 64 deep, strings of ASCII with no \u escape, numbers
 * as plain_number(). 0 says "not surely": json_ok() then asks jansson, so
 * that what is JSON stays jansson's word. */
int v_wtf_json_plain(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    char open[64];
    unsigned depth = 0;
value:
    while (p < e && JSON_WS(*p))
        p++;
    if (p == e)
        return 0;
    switch (*p) {
    case '{':
    case '[':
        if (depth == sizeof open)
            return 0;
        open[depth++] = (char)*p++;
        while (p < e && JSON_WS(*p))
            p++;
        if (p < e && *p == (open[depth - 1] == '{' ? '}' : ']')) {
            p++;
            depth--;
            goto after;
        }
        if (open[depth - 1] == '{')
            goto key;
        goto value;
    case '"': p = plain_string(p, e); break;
    case 't': p = e - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL; break;
    case 'f': p = e - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL; break;
    case 'n': p = e - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL; break;
    default: p = plain_number(p, e); break;
    }
    if (!p)
        return 0;
after:
    while (p < e && JSON_WS(*p))
        p++;
    if (!depth)
        return p == e;
    if (p == e)
        return 0;
    if (*p == ',') {
        p++;
        if (open[depth - 1] == '[')
            goto value;
        goto key;
    }
    if (*p != (open[depth - 1] == '{' ? '}' : ']'))
        return 0;
    p++;
    depth--;
    goto after;
key:
    while (p < e && JSON_WS(*p))
        p++;
    if (p == e || *p != '"' || !(p = plain_string(p, e)))
        return 0;
    while (p < e && JSON_WS(*p))
        p++;
    if (p == e || *p++ != ':')
        return 0;
    goto value;
}

static int json_ok(const char *s, size_t n)
{
    if (v_wtf_json_plain(s, n))
        return 1;
    json_t *j = json_loadb(s, n, WTF_JSON_FLAGS, NULL);
    json_decref(j);
    return j != NULL;
}

/* Where @ord's state is in w->ord_state for a table of @count strings
 * (below UINT32_MAX - 2): the empty ordinal first, then the null one, the
 * table's, and one entry for every ordinal past the table. A move, an add
 * and a compare, without a branch: whether an event has a string argument
 * varies event by event, and a branch here would mispredict. */
static inline uint32_t ord_slot(uint32_t ord, uint32_t count)
{
    uint32_t s = ord + 2;   /* empty (0xFFFFFFFE) -> 0, null -> 1, ordinal i -> i + 2 */
    return s < count + 2 ? s : count + 2;
}

/* Whether table string @ord (< st->count) is JSON text (cached for the chunk). */
static int json_at(wpass *w, const atf_wtf_strings *st, uint32_t ord)
{
    uint8_t *state = w->ord_state ? w->ord_state + ord_slot(ord, st->count) : NULL;
    if (state && (*state & (S_JSON | S_NOT_JSON)))
        return (*state & S_JSON) != 0;
    const char *s;
    uint32_t len;
    atf_wtf_strings_get(st, ord, &s, &len);
    int ok = json_ok(s, len);
    if (state)
        *state |= ok ? S_JSON : S_NOT_JSON;
    return ok;
}

static void bad_string(wpass *w, const atf_wtf_event *ev, size_t i, uint32_t ord, int empty_stored)
{
    const atf_wtf_def *d = ev->def;
    if (empty_stored)
        wrep(w, C_WTF_STR_002, ev->offset, d->args[i].name,
                 "%s: ordinal %u is an empty string stored in the table", d->name, (unsigned)ord);
    else
        wrep(w, C_WTF_EVT_005, ev->offset, d->args[i].name,
                 "%s: argument %s (ordinal %u) is not JSON text", d->name, d->args[i].name, (unsigned)ord);
}

/* String arguments: `any` texts (WTF-EVT-005) and empty table entries (WTF-STR-002). */
static void check_strings(wpass *w, const atf_wtf_event *ev, const atf_wtf_strings *st)
{
    const atf_wtf_def *d = ev->def;
    if (d->fixed_size) {
        /* No arrays: string i is the ordinal in slot i (checked in range by the decoder). */
        for (uint64_t m = d->string_args; m; m &= m - 1) {
            size_t i = (size_t)__builtin_ctzll(m);
            uint32_t ord = atf_load_le32(ev->args + 4 * i);
            int any = (d->any_args >> i) & 1;
            if (ord >= st->count) {
                /* null, or empty: "" is not JSON */
                if (ord == ATF_WTF_STRING_EMPTY && any)
                    bad_string(w, ev, i, ord, 0);
                continue;
            }
            if (st->data[st->starts[ord]] == 0)
                bad_string(w, ev, i, ord, 1);
            if (any && !json_at(w, st, ord))
                bad_string(w, ev, i, ord, 0);
        }
        return;
    }
    for (size_t i = 0; i < d->arg_count; i++) {
        atf_wtf_type t = d->args[i].type;
        if (t != ATF_WTF_ASCII && t != ATF_WTF_UTF8 && t != ATF_WTF_ANY)
            continue;
        atf_wtf_value v;
        if (wtf_arg_value(d, ev->args, ev->size - 8, st, i, &v) != ATF_OK)
            continue;
        uint32_t n = v.array ? v.count : 1;
        for (uint32_t k = 0; k < n && !(v.array && v.is_null); k++) {
            atf_wtf_value e = v;
            if (v.array)
                atf_wtf_array_elem(&v, k, st, &e);
            if (e.u < st->count && e.s && e.s_len == 0)
                bad_string(w, ev, i, (uint32_t)e.u, 1);
            if (t == ATF_WTF_ANY && (uint32_t)e.u != ATF_WTF_STRING_NULL &&
                (!e.s || !(e.u < st->count ? json_at(w, st, (uint32_t)e.u) : json_ok(e.s, e.s_len))))
                bad_string(w, ev, i, (uint32_t)e.u, 0);
        }
    }
}

static void on_zone(wpass *w, const atf_wtf_event *ev, const atf_wtf_strings *st)
{
    const atf_wtf_def *d = ev->def;
    atf_wtf_value v;
    if (d->arg_count < 1 || wtf_arg_value(d, ev->args, ev->size - 8, st, 0, &v) != ATF_OK || v.array)
        return;
    uint32_t z = (uint32_t)(v.u & 0xFFFF);
    wzone *zr = &w->zones[z + 1];
    if (z + 2 > w->zones_hi)
        w->zones_hi = z + 2;
    if (d->builtin == ATF_WTF_BI_ZONE_CREATE) {
        uint32_t h = 2166136261u;
        for (size_t i = 1; i < d->arg_count && i < 4; i++) {
            atf_wtf_value s;
            wtf_arg_value(d, ev->args, ev->size - 8, st, i, &s);
            h = hash_bytes(h, s.s ? s.s : "\xff", s.s ? s.s_len + 1 : 1);
        }
        if (w->spec && !zr->made && !zr->deleted && !(w->zflags[z] & 2)) {
            w->zflags[z] |= 2;   /* the zone's state before the part decides WTF-ZON-002 */
            w->zfirst[z] = h;
        }
        if (zr->made && !zr->deleted && zr->ident != h)
            wrep(w, C_WTF_ZON_002, ev->offset, "zoneId",
                     "zone %u created again with another name, type or location", (unsigned)z);
        zr->made = 1;
        zr->deleted = 0;
        zr->ident = h;
    } else if (d->builtin == ATF_WTF_BI_ZONE_DELETE) {
        zr->deleted = 1;
    } else if (d->builtin == ATF_WTF_BI_ZONE_SET) {
        if (w->spec && !zr->made)
            rec_zone_unmade(w, z, ev->offset + 8);   /* WTF-ZON-001 unless created before the part */
        else if (!zr->made)
            wrep(w, C_WTF_ZON_001, ev->offset + 8, "zoneId", "zone %u was never created",
                     (unsigned)z);
        w->zone = (int32_t)z;
    }
}

static void on_scope(wpass *w, const atf_wtf_event *ev)
{
    wzone *z = cur_zone(w);
    if (w->spec) {
        /* Relative depths: the join reports nothing or runs the part again. */
        if (ev->def->builtin == ATF_WTF_BI_SCOPE_LEAVE) {
            z->depth--;
            z->lo = (int32_t)z->depth < (int32_t)z->lo ? z->depth : z->lo;
        } else if (ev->def->event_class == ATF_WTF_CLASS_SCOPE) {
            z->depth++;
            z->hi = (int32_t)z->depth > (int32_t)z->hi ? z->depth : z->hi;
        }
        return;
    }
    if (ev->def->builtin == ATF_WTF_BI_SCOPE_LEAVE) {
        if (z->depth == 0)
            wrep(w, C_WTF_SCO_001, ev->offset, "wire_id",
                     "wtf.scope#leave with no scope open in zone %d", (int)w->zone);
        else
            z->depth--;
        return;
    }
    if (ev->def->event_class != ATF_WTF_CLASS_SCOPE)
        return;
    z->depth++;
    if (z->depth > W_MAX_DEPTH && !z->too_deep) {
        z->too_deep = 1;
        wrep(w, C_WTF_SCO_003, ev->offset, "wire_id", "scopes %u deep in zone %d",
                 (unsigned)z->depth, (int)w->zone);
    }
}

/* The fast path: from @pos, the events of fixed-size types that are not
 * defines or zone events, whole, whose checks all pass (times, string
 * ordinals in the table and not empty, `any` strings known to be JSON,
 * scope depth), with the state in registers and few branches (random
 * mixes of scopes and leaves would mispredict). @return where it stopped:
 * the event there goes the general way, which reports what is wrong.
 * Inlined twice (fast_run): with @spec a constant 0, the main pass's depth
 * window is two constants, not two registers. */
static inline __attribute__((always_inline)) size_t fast_loop(wpass *w, const uint8_t *buf, size_t n, size_t pos,
                                                              const atf_wtf_chunk *c, int times_set,
                                                              const atf_wtf_strings *st, uint32_t *last_time,
                                                              const int spec)
{
    const uint8_t *state = w->ord_state;
    if (!state || w->general_only || (times_set && c->start_time > c->end_time))
        return pos;   /* no state; or every event outside the chunk's times: the general way reports each */
    /* Few live values, so that they stay in registers: a pointer and the
     * end, not a buffer and a place in it. */
    const wtf_plan *plan = w->plan;
    const uint32_t *fsize = w->fsize;
    uint32_t count = st->count;
    uint32_t t_lo = times_set ? c->start_time : 0, t_span = times_set ? c->end_time - c->start_time : UINT32_MAX;
    wzone *z = cur_zone(w);
    /* Depths: the loop checks a window, widened in a rare branch to the
     * depths a part run ahead has met (z->lo..z->hi, relative) as long as
     * they stay in W_SPEC_DLO..W_SPEC_DLO + W_SPEC_DSPAN; the main pass's
     * window is its whole range from the start. */
    uint32_t depth = z->depth, wlo = spec ? W_SPEC_DLO : W_MAIN_DLO, wspan = spec ? W_SPEC_DSPAN : W_MAIN_DSPAN;
    if (spec) {
        if ((uint32_t)z->lo - W_SPEC_DLO > W_SPEC_DSPAN || (uint32_t)z->hi - W_SPEC_DLO > W_SPEC_DSPAN)
            return pos;
        wlo = z->lo;
        wspan = z->hi - z->lo;
    }
    uint32_t last = *last_time;
    const uint8_t *p = buf + pos, *end = buf + n;
    uint64_t events = 0;
    while (end - p >= 8) {
        uint32_t wire = atf_load_le32(p), t = atf_load_le32(p + 4);
        if (wire >= W_WIRES)
            break;   /* (predicted: not a definition's wire id) */
        const wtf_plan *pl = &plan[wire];
        uint32_t size = fsize[wire];
        /* Masks, not branches (or ternaries a compiler makes branches of):
         * the kind of event varies event by event. A size of 0 (not for
         * the fast path) wraps to above any length. */
        uint32_t ordered = 0u - (uint32_t)pl->ordered;
        if ((size - 1u >= (size_t)(end - p)) | (t - t_lo > t_span) | (t < (last & ordered)))
            break;
        /* The first string argument's state entry: with none, the event's
         * first word read as the null ordinal. */
        uint32_t ord = atf_load_le32(p + pl->s0) | pl->no_s0;
        uint32_t at = ord_slot(ord, count);
        uint32_t d = depth + (uint32_t)(int32_t)pl->delta;
        unsigned need0 = S_FULL | (unsigned)pl->any0 << 1;   /* S_JSON for an `any` */
        if ((state[at] & need0) != need0)
            break;
        if (d - wlo > wspan) {   /* d wraps below 0 */
            if (!spec || d - W_SPEC_DLO > W_SPEC_DSPAN)
                break;
            wspan = (int32_t)d < (int32_t)wlo ? wlo + wspan - d : d - wlo;
            wlo = (int32_t)d < (int32_t)wlo ? d : wlo;
        }
        if (pl->more) {
            int ok = 1;
            for (uint64_t m = pl->more; m && ok; m &= m - 1) {
                unsigned i = (unsigned)__builtin_ctzll(m);
                uint32_t o = atf_load_le32(p + 8 + 4 * i);
                unsigned need = (pl->anys >> i) & 1 ? S_FULL | S_JSON : S_FULL;
                uint32_t a = ord_slot(o, count);
                ok = (state[a] & need) == need;
            }
            if (!ok)
                break;
        }
        depth = d;
        last ^= (last ^ t) & ordered;
        p += size;
        events++;
    }
    z->depth = depth;
    if (spec) {
        z->lo = wlo;
        z->hi = wlo + wspan;
    }
    *last_time = last;
    w->events += events;
    return (size_t)(p - buf);
}

__attribute__((noinline)) static size_t fast_run(wpass *w, const uint8_t *buf, size_t n, size_t pos,
                                                 const atf_wtf_chunk *c, int times_set, const atf_wtf_strings *st,
                                                 uint32_t *last_time)
{
    /* Two copies: in the main pass's the depth window is constants. */
    return w->spec ? fast_loop(w, buf, n, pos, c, times_set, st, last_time, 1)
                   : fast_loop(w, buf, n, pos, c, times_set, st, last_time, 0);
}

/* The events of one binary event buffer (@n of its bytes are in the file). */
static void walk_events(wpass *w, const atf_wtf_chunk *c, const atf_wtf_part *ep, uint64_t n,
                        const atf_wtf_strings *st)
{
    const uint8_t *buf = w->d + ep->file_offset;
    int times_set = c->start_time != ATF_WTF_NO_TIME || c->end_time != ATF_WTF_NO_TIME;
    /* The last ordered time (WTF-EVT-006); 0 while there is none, which
     * no time is below. */
    uint32_t last = 0;
    const atf_wtf_def *const *defs = (const atf_wtf_def *const *)w->defs;
    for (size_t pos = 0; pos < n;) {
        if ((pos = fast_run(w, buf, (size_t)n, pos, c, times_set, st, &last)) >= n)
            break;
        uint32_t size = wtf_fast_size(defs, W_WIRES, st, buf, (size_t)n, pos);
        if (!size) {
            atf_error e;
            atf_error_clear(&e);
            atf_status s = wtf_decode_event_at(defs, W_WIRES, st, buf, (size_t)n, pos, ep->file_offset, &size, &e);
            if (s == ATF_E_TRUNCATED && n < ep->length)
                return; /* the file ends inside this event: WTF-REC-001 (reported by the chunk) */
            if (s != ATF_OK) {
                vclause c2 = s == ATF_E_NOT_FOUND ? C_WTF_EVT_001
                             : s == ATF_E_RANGE   ? C_WTF_EVT_003
                             : s == ATF_E_LENGTH  ? C_WTF_EVT_004
                                                  : C_WTF_EVT_002;
                w->undef |= s == ATF_E_NOT_FOUND;
                wrep(w, c2, e.offset, e.field, "%s (the rest of the chunk is not checked)",
                         e.message);
                w->damaged = 1;
                return;
            }
        }
        atf_wtf_event ev;
        ev.offset = ep->file_offset + pos;
        ev.wire_id = atf_load_le32(buf + pos);
        ev.time = atf_load_le32(buf + pos + 4);
        ev.def = w->defs[ev.wire_id];
        ev.zone = w->zone;
        ev.depth = 0;
        ev.chunk = 0;
        ev.size = size;
        ev.args = buf + pos + 8;
        pos += size;
        w->events++;
        const atf_wtf_def *d = ev.def;
        if (times_set && (ev.time < c->start_time || ev.time > c->end_time))
            wrep(w, C_WTF_EVT_007, ev.offset + 4, "event.time",
                     "time %u outside the chunk's %u..%u", (unsigned)ev.time, (unsigned)c->start_time,
                     (unsigned)c->end_time);
        if (!(d->flags & (ATF_WTF_FLAG_BUILTIN | ATF_WTF_FLAG_INTERNAL)) && !d->builtin) {
            if (ev.time < last)
                wrep(w, C_WTF_EVT_006, ev.offset + 4, "event.time",
                         "%s at %u after an event at %u", d->name, (unsigned)ev.time, (unsigned)last);
            last = ev.time;
        }
        check_strings(w, &ev, st);
        switch (d->builtin) {
        case ATF_WTF_BI_DEFINE: on_define(w, &ev, st, ev.offset); break;
        case ATF_WTF_BI_ZONE_CREATE:
        case ATF_WTF_BI_ZONE_DELETE:
        case ATF_WTF_BI_ZONE_SET: on_zone(w, &ev, st); break;
        default: on_scope(w, &ev); break;
        }
    }
}

/* ---- Chunks -------------------------------------------------------------------- */

static int is_known_part(uint32_t t)
{
    return t == ATF_WTF_PART_FILE_HEADER || t == ATF_WTF_PART_JSON_EVENTS || t == ATF_WTF_PART_LEGACY_EVENTS ||
           t == ATF_WTF_PART_BINARY_EVENTS || t == ATF_WTF_PART_STRING_TABLE || t == ATF_WTF_PART_BINARY_RESOURCE ||
           t == ATF_WTF_PART_STRING_RESOURCE;
}

static void file_header_part(wpass *w, const atf_wtf_part *p)
{
    json_error_t je;
    json_t *j = json_loadb((const char *)w->d + p->file_offset, p->length, WTF_JSON_FLAGS, &je);
    if (!json_is_object(j)) {
        wrep(w, C_WTF_FH_003, p->file_offset + (j ? 0 : (uint64_t)je.position), "file_header",
                 "%s", j ? "the file header is JSON but not an object" : je.text);
        json_decref(j);
        return;
    }
    if (!json_is_number(json_object_get(j, "timebase")))
        wrep(w, C_WTF_FH_004, p->file_offset, "file_header.timebase",
                 json_object_get(j, "timebase") ? "timebase is not a number" : "no timebase");
    json_t *fl = json_object_get(j, "flags");
    if (fl && !json_is_array(fl))
        wrep(w, C_WTF_FH_005, p->file_offset, "file_header.flags", "flags is not an array");
    size_t i;
    json_t *f;
    if (json_is_array(fl))
        json_array_foreach(fl, i, f) {
            const char *s = json_string_value(f);
            if (!s)
                wrep(w, C_WTF_FH_005, p->file_offset, "file_header.flags",
                         "flags[%zu] is not a string", i);
            else if (strcmp(s, "has_high_resolution_times") != 0 && strcmp(s, "times_as_count") != 0)
                wrep(w, C_WTF_FH_006, p->file_offset, "file_header.flags",
                         "flags[%zu] \"%.60s\" is not a flag of the format", i, s);
        }
    json_t *ci = json_object_get(j, "contextInfo");
    if (!json_is_object(ci) || !json_is_string(json_object_get(ci, "contextType")) ||
        !json_is_string(json_object_get(ci, "uri")))
        wrep(w, C_WTF_FH_007, p->file_offset, "file_header.contextInfo", "%s",
                 !ci ? "no contextInfo"
                 : !json_is_object(ci) ? "contextInfo is not an object"
                 : "contextInfo lacks a string contextType or uri");
    json_decref(j);
}

/* One chunk as it is read: its header and part table, and what the checks
 * of one step tell the next. */
typedef struct wchunk {
    atf_wtf_chunk c;
    uint64_t pos;            /* offset of the chunk in the file */
    uint32_t index;          /* its position among the chunks */
    const uint8_t *d;        /* w->d + pos */
    uint64_t avail;          /* bytes from pos to the end of the file */
    uint64_t table_end;      /* header and part table */
    uint64_t body;           /* bytes of parts the length allows */
    uint64_t parts_end;      /* end of the last part, padded, from the end of the table */
    uint64_t limit;          /* bytes of the chunk in the file */
    int bad_length, cut, last;
} wchunk;

/* The chunk header (WTF-CHK-001, -002, -006's part count, a cut part
 * table). @return 1 to go on, 0 when the chunk ends here: *next is the
 * next chunk's offset, or 0 to stop. */
static int chunk_header(wpass *w, wchunk *k, uint64_t *next)
{
    const uint8_t *d = k->d;
    uint64_t pos = k->pos, avail = k->avail;
    *next = 0;
    if (avail < ATF_WTF_CHUNK_HEADER_SIZE) {
        wrep(w, C_WTF_REC_001, pos, "chunk.header",
                 "crash-truncated: the file ends %llu bytes into a chunk header", (unsigned long long)avail);
        w->cut = 1;
        return 0;
    }
    atf_wtf_chunk *c = &k->c;
    memset(c, 0, sizeof *c);
    c->offset = pos;
    c->id = atf_load_le32(d);
    c->type = atf_load_le32(d + 4);
    c->length = atf_load_le32(d + 8);
    c->start_time = atf_load_le32(d + 12);
    c->end_time = atf_load_le32(d + 16);
    c->part_count = atf_load_le32(d + 20);
    uint64_t table_end = ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)c->part_count * ATF_WTF_PART_ENTRY_SIZE;
    k->table_end = table_end;
    if (c->part_count > ATF_WTF_MAX_PARTS) {
        /* The chunk is skipped when its length still places the next one (SPEC-WTF 6). */
        int skip = c->length >= table_end && c->length % 4 == 0 && c->length <= avail;
        wrep(w, C_WTF_CHK_006, pos + 20, "chunk.part_count", "%u parts (at most %u); %s",
                 (unsigned)c->part_count, ATF_WTF_MAX_PARTS,
                 skip ? "the chunk is not read" : "nothing from this chunk on is read");
        w->damaged = 1;
        *next = skip ? pos + c->length : 0;
        return 0;
    }
    if (c->length < table_end) {
        wrep(w, C_WTF_CHK_001, pos + 8, "chunk.length",
                 "%u: less than the header and part table (%llu); nothing after this chunk is read",
                 (unsigned)c->length, (unsigned long long)table_end);
        k->bad_length = 1;
    }
    if (c->length % 4) {
        wrep(w, C_WTF_CHK_002, pos + 8, "chunk.length",
                 "%u: not a multiple of 4; nothing after this chunk is read", (unsigned)c->length);
        k->bad_length = 1;
    }
    if (avail < table_end) {
        wrep(w, C_WTF_REC_001, pos + avail, "chunk.parts",
                 "crash-truncated: the file ends inside a part table (%llu of %llu bytes)",
                 (unsigned long long)avail, (unsigned long long)table_end);
        w->cut = 1;
        return 0;
    }
    if (k->bad_length && c->length < table_end)
        return 0;
    k->body = c->length >= table_end ? c->length - table_end : 0;
    return 1;
}

/* The part table (WTF-CHK-004, -005, -006, -008). @return 1 when a part is
 * misplaced (WTF-CHK-004..006): the chunk's content is not read. */
static int chunk_parts(wpass *w, wchunk *k)
{
    atf_wtf_chunk *c = &k->c;
    int bad_parts = 0;
    for (uint32_t i = 0; i < c->part_count; i++) {
        const uint8_t *e = k->d + ATF_WTF_CHUNK_HEADER_SIZE + (size_t)i * ATF_WTF_PART_ENTRY_SIZE;
        uint64_t at = k->pos + ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)i * ATF_WTF_PART_ENTRY_SIZE;
        atf_wtf_part *p = &c->parts[i];
        p->type = atf_load_le32(e);
        p->offset = atf_load_le32(e + 4);
        p->length = atf_load_le32(e + 8);
        p->file_offset = k->pos + k->table_end + p->offset;
        if (!is_known_part(p->type))
            wrep(w, C_WTF_CHK_008, at, "part.type", "part %u: type 0x%x", (unsigned)i, (unsigned)p->type);
        if (p->offset % 4) {
            wrep(w, C_WTF_CHK_004, at + 4, "part.offset", "part %u: offset %u", (unsigned)i,
                     (unsigned)p->offset);
            bad_parts = 1;
        }
        uint64_t end = (uint64_t)p->offset + p->length;
        if (end > k->body) {
            wrep(w, C_WTF_CHK_005, at + 4, "part.offset",
                     "part %u: bytes %u..%llu, the chunk has %llu bytes of parts", (unsigned)i, (unsigned)p->offset,
                     (unsigned long long)end, (unsigned long long)k->body);
            bad_parts = 1;
        }
        uint64_t padded = (end + 3) & ~(uint64_t)3;
        if (padded > k->parts_end)
            k->parts_end = padded;
        for (uint32_t j = 0; j < i; j++) {
            const atf_wtf_part *q = &c->parts[j];
            if (p->length && q->length && p->offset < (uint64_t)q->offset + q->length &&
                q->offset < (uint64_t)p->offset + p->length) {
                wrep(w, C_WTF_CHK_006, at + 4, "part.offset", "parts %u and %u overlap", (unsigned)j,
                         (unsigned)i);
                bad_parts = 1;
                break;
            }
        }
    }
    return bad_parts;
}

/* Where the chunk ends: cut by a crash, or a wrong length (WTF-CHK-003),
 * bytes in no part (WTF-CHK-011), padding (WTF-CHK-009), times
 * (WTF-CHK-010). Sets k->cut, k->last and k->limit. */
static void chunk_extent(wpass *w, wchunk *k)
{
    const atf_wtf_chunk *c = &k->c;
    uint64_t pos = k->pos, avail = k->avail, table_end = k->table_end, parts_end = k->parts_end;
    /* A chunk running past the end of the file: a crash cut it, unless its
     * parts end inside the file and bytes other than zeros follow them. */
    k->cut = c->length > avail;
    k->last = k->bad_length;    /* read this chunk, nothing after it */
    if (k->cut) {
        uint64_t pe = table_end + parts_end;
        if (pe <= avail && v_first_nonzero(k->d + pe, (size_t)(avail - pe)) < avail - pe) {
            wrep(w, C_WTF_CHK_003, pos + 8, "chunk.length",
                     "%u runs past the end of the file (%llu bytes left) while the parts end at %llu and other "
                     "bytes follow: a wrong length; nothing after this chunk is read",
                     (unsigned)c->length, (unsigned long long)avail, (unsigned long long)pe);
            k->cut = 0;
            k->last = 1;
        } else {
            wrep(w, C_WTF_REC_001, pos + avail, "chunk.length",
                     "crash-truncated: chunk %u at %llu is %u bytes, %llu are in the file", (unsigned)k->index,
                     (unsigned long long)pos, (unsigned)c->length, (unsigned long long)avail);
            w->cut = 1;
        }
    } else if (table_end + parts_end < c->length) {
        wrep(w, C_WTF_CHK_011, pos + table_end + parts_end, "chunk.length",
                 "%llu bytes of the chunk are in no part", (unsigned long long)(c->length - table_end - parts_end));
    }
    k->limit = k->cut || c->length > avail ? avail : c->length;
    for (uint32_t i = 0; i < c->part_count; i++) {
        const atf_wtf_part *p = &c->parts[i];
        uint64_t end = table_end + (uint64_t)p->offset + p->length, padded = (end + 3) & ~(uint64_t)3;
        if (padded <= k->limit && (uint64_t)p->offset + p->length <= k->body &&
            v_first_nonzero(k->d + end, (size_t)(padded - end)) < padded - end)
            wrep(w, C_WTF_CHK_009, pos + end, "part.padding", "part %u: padding bytes are not zero",
                     (unsigned)i);
    }
    if ((c->start_time == ATF_WTF_NO_TIME) != (c->end_time == ATF_WTF_NO_TIME) ||
        (c->start_time != ATF_WTF_NO_TIME && c->start_time > c->end_time))
        wrep(w, C_WTF_CHK_010, pos + 12, "chunk.start", "start %u, end %u", (unsigned)c->start_time,
                 (unsigned)c->end_time);
}

/* The chunk's kind and its parts by type (WTF-FH-001, -002, -008,
 * WTF-CHK-007, WTF-EVC-003, -004, -006); the file-header part is read. The
 * first string table and binary event buffer that lie inside the chunk go
 * to *strings and *events, the counts of event buffers and string tables to
 * n_ev and n_st. */
static void chunk_kind(wpass *w, const wchunk *k, const atf_wtf_part **strings, const atf_wtf_part **events,
                       unsigned *n_ev, unsigned *n_st)
{
    const atf_wtf_chunk *c = &k->c;
    uint64_t pos = k->pos;
    if (k->index == 0 && c->type != ATF_WTF_CHUNK_FILE_HEADER)
        wrep(w, C_WTF_FH_001, pos + 4, "chunk.type", "the first chunk has type %u", (unsigned)c->type);
    if (k->index > 0 && c->type == ATF_WTF_CHUNK_FILE_HEADER)
        wrep(w, C_WTF_FH_008, pos + 4, "chunk.type", "chunk %u is a second file-header chunk",
                 (unsigned)k->index);
    if (c->type != ATF_WTF_CHUNK_FILE_HEADER && c->type != ATF_WTF_CHUNK_EVENT_DATA)
        wrep(w, C_WTF_CHK_007, pos + 4, "chunk.type", "chunk type %u", (unsigned)c->type);
    unsigned n_fh = 0;
    for (uint32_t i = 0; i < c->part_count; i++) {
        const atf_wtf_part *p = &c->parts[i];
        uint64_t at = pos + ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)i * ATF_WTF_PART_ENTRY_SIZE;
        int inside = p->offset % 4 == 0 && (uint64_t)p->offset + p->length <= k->body;
        if (p->type == ATF_WTF_PART_FILE_HEADER) {
            n_fh++;
            if (c->type == ATF_WTF_CHUNK_FILE_HEADER && n_fh == 1 && inside &&
                k->table_end + p->offset + p->length <= k->limit)
                file_header_part(w, p);
        } else if (p->type >= ATF_WTF_PART_JSON_EVENTS && p->type <= ATF_WTF_PART_BINARY_EVENTS) {
            (*n_ev)++;
            if (p->type != ATF_WTF_PART_BINARY_EVENTS)
                wrep(w, C_WTF_EVC_003, at, "part.type", "part %u: a %s event buffer, not read", (unsigned)i,
                         p->type == ATF_WTF_PART_JSON_EVENTS ? "JSON" : "legacy");
            else if (!*events && inside)
                *events = p;
            if (p->type == ATF_WTF_PART_BINARY_EVENTS && p->length % 4)
                wrep(w, C_WTF_EVC_004, at + 8, "part.length",
                         "event buffer of %u bytes: not a multiple of 4", (unsigned)p->length);
        } else if (p->type == ATF_WTF_PART_STRING_TABLE) {
            (*n_st)++;
            if (!*strings && inside)
                *strings = p;
        } else if ((p->type & 0xFFFF0000u) == 0x40000u && c->type != ATF_WTF_CHUNK_EVENT_DATA) {
            wrep(w, C_WTF_EVC_006, at, "part.type", "a resource part in a chunk of type %u",
                     (unsigned)c->type);
        }
    }
    if (c->type == ATF_WTF_CHUNK_FILE_HEADER && n_fh != 1)
        wrep(w, C_WTF_FH_002, pos + 20, "chunk.part_count", "%u file-header parts", n_fh);
}

/* The string table of an event chunk (WTF-STR-001, -003) into *st, and the
 * per-ordinal states of w->ord_state. @return 0 when the table is cut by
 * the end of the file (none of the chunk's events are read), -1 when out of
 * memory, 1 otherwise. */
static int chunk_strings(wpass *w, const wchunk *k, const atf_wtf_part *strings, atf_wtf_strings *st)
{
    int strings_ok = 1;
    free(w->ord_state);
    w->ord_state = NULL;
    if (strings) {
        if (k->table_end + strings->offset + strings->length > k->limit) {
            strings_ok = 0;   /* cut by the end of the file: none of its events */
        } else {
            atf_error e;
            if (atf_wtf_strings_init(st, w->d + strings->file_offset, strings->length, &e) != ATF_OK) {
                w->oom = 1;
                return -1;
            }
            if (st->unterminated)
                wrep(w, C_WTF_STR_001, strings->file_offset + strings->length - 1, "string_table",
                         "the table does not end with a NUL byte");
            if (st->count < UINT32_MAX - 2 && (w->ord_state = (uint8_t *)malloc((size_t)st->count + 3)) != NULL) {
                /* Strings that are plain JSON are known as such from the
                 * start (the rest is decided by json_at when an `any` uses
                 * them): the first event to use one as an `any` stays on
                 * the fast path. A check of a string that is not JSON
                 * stops at its first bytes. */
                for (uint32_t i = 0; i < st->count; i++) {
                    const char *sp;
                    uint32_t len;
                    wtf_string_at(st, i, &sp, &len);
                    w->ord_state[i + 2] = !len                         ? 0
                                          : v_wtf_json_plain(sp, len) ? S_FULL | S_JSON
                                                                      : S_FULL;
                }
            }
            if (!atf_utf8_valid(w->d + strings->file_offset, strings->length))
                wrep(w, C_WTF_STR_003, strings->file_offset, "string_table",
                         "the table holds bytes that are not UTF-8");
        }
    }
    if (!strings)
        w->ord_state = (uint8_t *)malloc(3);   /* NULL (no memory): the general way only */
    if (w->ord_state) {
        /* The empty ordinal is not JSON, the null one passes, others past the table fail. */
        uint32_t count = st->count;   /* 0 without a table */
        w->ord_state[ord_slot(ATF_WTF_STRING_EMPTY, count)] = S_FULL;
        w->ord_state[ord_slot(ATF_WTF_STRING_NULL, count)] = S_FULL | S_JSON;
        w->ord_state[ord_slot(count, count)] = 0;
    }
    return strings_ok;
}

/* An event-data chunk: its parts (WTF-EVC-001, -002, -005), its string
 * table, its events. @return 0 when out of memory. */
static int chunk_events(wpass *w, const wchunk *k, const atf_wtf_part *strings, const atf_wtf_part *events,
                        unsigned n_ev, unsigned n_st)
{
    uint64_t pos = k->pos;
    if (n_ev != 1)
        wrep(w, C_WTF_EVC_001, pos + 20, "chunk.part_count", "%u event buffer parts", n_ev);
    if (n_st > 1)
        wrep(w, C_WTF_EVC_002, pos + 20, "chunk.part_count", "%u string tables", n_st);
    if (strings && events && strings->offset > events->offset)
        /* At the string table's entry in the part table: the part itself
         * may lie past the end of a file cut short. */
        wrep(w, C_WTF_EVC_005, pos + ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)(strings - k->c.parts) * ATF_WTF_PART_ENTRY_SIZE + 4,
                 "part.offset", "the string table comes after the event buffer");
    atf_wtf_strings st;
    memset(&st, 0, sizeof st);
    int strings_ok = chunk_strings(w, k, strings, &st);
    if (strings_ok < 0)
        return 0;
    uint64_t table_end = k->table_end, limit = k->limit;
    if (events && strings_ok && table_end + events->offset < limit) {
        uint64_t n = events->length;
        if (table_end + events->offset + n > limit)
            n = limit - table_end - events->offset;
        walk_events(w, &k->c, events, n, &st);
    }
    atf_wtf_strings_free(&st);
    free(w->ord_state);
    w->ord_state = NULL;
    return 1;
}

/* One chunk at w->d + pos. Returns the next chunk's offset, or 0 to stop. */
static uint64_t chunk(wpass *w, uint64_t pos, uint32_t index)
{
    wchunk k;
    memset(&k, 0, sizeof k);
    k.pos = pos;
    k.index = index;
    k.d = w->d + pos;
    k.avail = w->size - pos;
    uint64_t next;
    if (!chunk_header(w, &k, &next))
        return next;
    if (chunk_parts(w, &k)) {
        /* SPEC-WTF 6: a broken part table costs its chunk, when the length
         * still places the next one. */
        w->damaged = 1;
        return !k.bad_length && k.c.length <= k.avail ? pos + k.c.length : 0;
    }
    chunk_extent(w, &k);
    const atf_wtf_part *strings = NULL, *events = NULL;
    unsigned n_ev = 0, n_st = 0;
    chunk_kind(w, &k, &strings, &events, &n_ev, &n_st);
    if (k.c.type == ATF_WTF_CHUNK_EVENT_DATA && !chunk_events(w, &k, strings, events, n_ev, n_st))
        return 0;
    return k.cut || k.last ? 0 : pos + k.c.length;
}

static void open_scope_at_end(wpass *w)
{
    for (uint32_t z = 0; z < w->zones_hi; z++)
        if (w->zones[z].depth)
            wrep(w, C_WTF_SCO_002, V_NO_OFFSET, NULL, "%u scope(s) left open in zone %d",
                     (unsigned)w->zones[z].depth, (int)z - 1);
}

static void wtf_file(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                     const char *name)
{
    (void)name;
    v_wtf_pass_mode(v, file, d, size, data_end, 0);
}

const atf_validator_format atf_vformat_wtf = {
    .name = "WTF",
    .clause_first = V_FIRST_WTF,
    .clause_count = V_COUNT_WTF,
    .file = wtf_file,
};

/* ---- Parts: chunks side by side ------------------------------------------------ */

static int pass_init(wpass *w, atf_validation *v, size_t file, const uint8_t *d, uint64_t size, int general_only,
                     int spec, const wseed *seed)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    w->file = file;
    w->d = d;
    w->size = size;
    w->general_only = general_only;
    w->zones_hi = 1;   /* zones[0]: events before any wtf.zone#set */
    w->wires_hi = ATF_WTF_WIRE_DEFINE + 1;
    w->zone = spec ? W_UNKNOWN_ZONE : -1;
    w->spec = spec;
    /* The tables indexed by wire id or zone, in one mapping: one mmap and
     * one munmap a pass, not seven (test_wtf_parts, thousands of passes,
     * spent a fifth of its time in them). */
    size_t at = 0, o_plan, o_fsize, o_zones, o_wflags = 0, o_zflags = 0, o_zfirst = 0;
#define W_TAKE(o, n, size) ((o) = at, at = (at + (size_t)(n) * (size) + 63) & ~(size_t)63)
    W_TAKE(o_plan, W_WIRES, sizeof *w->plan);   /* first: 64-byte aligned, as the table is */
    W_TAKE(o_fsize, W_WIRES, sizeof *w->fsize);
    W_TAKE(o_zones, W_ZONES + 2, sizeof *w->zones);
    if (spec) {
        W_TAKE(o_wflags, W_WIRES, 1);
        W_TAKE(o_zflags, W_ZONES, 1);
        W_TAKE(o_zfirst, W_ZONES, sizeof *w->zfirst);
    }
    size_t o_defs;
    W_TAKE(o_defs, W_WIRES, sizeof *w->defs);
#undef W_TAKE
    uint8_t *t = (uint8_t *)atf_table_new(at, 1);
    if (!t)
        return 0;
    w->tables = t;
    w->plan = (wtf_plan *)(void *)(t + o_plan);
    w->fsize = (uint32_t *)(void *)(t + o_fsize);
    w->zones = (wzone *)(void *)(t + o_zones);
    w->defs = (atf_wtf_def **)(void *)(t + o_defs);
    if (spec) {
        w->rec = (wrec *)calloc(1, sizeof *w->rec);
        w->wflags = t + o_wflags;
        w->zflags = t + o_zflags;
        w->zfirst = (uint32_t *)(void *)(t + o_zfirst);
        if (!w->rec)
            return 0;
        w->rec->max_per_clause = v->opts.max_per_clause;
        w->rec->max_total = v->opts.max_findings;
    }
    set_def(w, ATF_WTF_WIRE_DEFINE,
            wtf_def_new(ATF_WTF_WIRE_DEFINE, 0, ATF_WTF_FLAG_BUILTIN | ATF_WTF_FLAG_INTERNAL, "wtf.event#define",
                        strlen("wtf.event#define"), WTF_DEFINE_SIGNATURE, strlen(WTF_DEFINE_SIGNATURE), NULL));
    if (!w->defs[ATF_WTF_WIRE_DEFINE])
        return 0;
    w->seed = seed;
    for (uint32_t i = ATF_WTF_WIRE_DEFINE + 1; seed && i < seed->defs_hi; i++)
        if (seed->defs[i]) {
            set_def(w, i, def_copy(seed->defs[i]));
            if (!w->defs[i])
                return 0;
        }
    for (uint32_t z = 1; seed && z < seed->zones_hi; z++)
        if (seed->zones[z].made) {
            w->zones[z].made = 1;
            w->zones[z].deleted = seed->zones[z].deleted;
            w->zones[z].ident = seed->zones[z].ident;
            w->zones_hi = z + 1 > w->zones_hi ? z + 1 : w->zones_hi;
        }
    return 1;
}

static void pass_free(wpass *w)
{
    if (w->defs)
        for (uint32_t i = 0; i < w->wires_hi; i++)
            wtf_def_free(w->defs[i]);
    atf_table_free(w->tables);   /* defs, plan, fsize, zones, wflags, zflags, zfirst */
    for (uint32_t i = 0; i < w->names_cap; i++)
        wtf_def_free(w->firsts[i]);
    free(w->firsts);
    free(w->ord_state);
    rec_free(w->rec);
    memset(w, 0, sizeof *w);
}

static void seed_free(wseed *s)
{
    for (uint32_t i = 0; s->defs && i < s->defs_hi; i++)
        wtf_def_free(s->defs[i]);
    free(s->defs);
    free(s->zones);
    memset(s, 0, sizeof *s);
}

/* @s: copies of @w's definitions and zones. @return 0 when there is no
 * memory (then the parts start from nothing, as they can). */
static int seed_init(wseed *s, const wpass *w)
{
    memset(s, 0, sizeof *s);
    s->defs_hi = w->wires_hi;
    s->zones_hi = w->zones_hi;
    s->defs = (atf_wtf_def **)calloc(s->defs_hi, sizeof *s->defs);
    s->zones = (wzone *)malloc(s->zones_hi * sizeof *s->zones);
    if (!s->defs || !s->zones) {
        seed_free(s);
        return 0;
    }
    memcpy(s->zones, w->zones, s->zones_hi * sizeof *s->zones);
    for (uint32_t i = ATF_WTF_WIRE_DEFINE + 1; i < s->defs_hi; i++)
        if (w->defs[i] && !(s->defs[i] = def_copy(w->defs[i]))) {
            seed_free(s);
            return 0;
        }
    return 1;
}

/* The chunks from @pos until one starts at or past @stop (the next part's
 * start). @return where the next chunk starts, 0 when nothing more is read. */
static uint64_t run_chunks(wpass *w, uint64_t pos, uint64_t stop, uint32_t *index, uint64_t end)
{
    uint64_t done = pos;   /* the chunks before it are checked: every W_RELEASE bytes, v_release() */
    while (pos && pos < w->size && pos < stop && !w->oom && (w->rec || !w->v->oom)) {
        if (pos - done >= W_RELEASE) {
            v_release(w->v, w->d + done, pos - done);
            done = pos;
        }
        if (pos >= end || v_first_nonzero(w->d + pos, (size_t)(end - pos)) == end - pos) {
            wrep(w, C_WTF_REC_001, pos, "chunk.header", "crash-truncated: %llu zero bytes where chunk %u would start",
                 (unsigned long long)(w->size - pos), (unsigned)*index);
            w->cut = 1;
            return 0;
        }
        pos = chunk(w, pos, (*index)++);
    }
    return pos;
}

/* The first definition of name @name in @w's table, or NULL. */
static atf_wtf_def *firsts_find(const wpass *w, const char *name)
{
    if (!w->names_cap)
        return NULL;
    uint32_t k = hash_bytes(2166136261u, name, strlen(name)) & (w->names_cap - 1);
    for (; w->firsts[k]; k = (k + 1) & (w->names_cap - 1))
        if (strcmp(w->firsts[k]->name, name) == 0)
            return w->firsts[k];
    return NULL;
}

static int def_equal(const atf_wtf_def *a, const atf_wtf_def *b)
{
    return a->event_class == b->event_class && a->flags == b->flags && strcmp(a->name, b->name) == 0 &&
           same_args(a, b);
}

/* Depth @D with zone @in's fate (too deep already) through @p's relative
 * depths: 0 when a scope finding would come of it (a leave with no scope
 * open, or too deep), else 1 and *D after them. */
static int depth_through(int64_t *D, const wzone *in, const wzone *p)
{
    int64_t lo = (int32_t)p->lo, hi = (int32_t)p->hi, r = (int32_t)p->depth;
    if (*D + lo < 0 || (!in->too_deep && *D + hi > (int64_t)W_MAX_DEPTH))
        return 0;
    *D += r;
    return 1;
}

/* Whether part @p, run ahead from no state, found exactly what it would
 * have found after @m (the file up to @p's first chunk). */
static int part_fits(const wpass *m, const wpass *p)
{
    if (p->undef || p->oom || p->rec->overflow)
        return 0;
    const wseed *sd = p->seed;
    for (uint32_t i = ATF_WTF_WIRE_DEFINE + 1; sd && i < sd->defs_hi; i++)
        if (sd->defs[i] && (!m->defs[i] || !def_equal(m->defs[i], sd->defs[i])))
            return 0;   /* it started with a definition not in force there */
    for (uint32_t z = 1; sd && z < sd->zones_hi; z++) {
        const wzone *a = &m->zones[z], *b = &sd->zones[z];
        if (b->made && (!a->made || a->deleted != b->deleted || a->ident != b->ident))
            return 0;   /* it started with a zone not as it is there (WTF-ZON-001, -002) */
    }
    for (uint32_t i = ATF_WTF_WIRE_DEFINE + 1; i < p->wires_hi; i++)
        if ((p->wflags[i] & 1) && m->defs[i] && ((p->wflags[i] & 2) || !def_equal(m->defs[i], p->defs[i])))
            return 0;   /* WTF-DEF-003 for its first define here */
    for (uint32_t i = 0; i < p->names_cap; i++) {
        const atf_wtf_def *f = p->firsts[i], *g = f ? firsts_find(m, f->name) : NULL;
        if (g && !same_args(g, f))
            return 0;   /* WTF-DEF-006 */
    }
    uint32_t in = zone_slot(m->zone);
    for (uint32_t s = 1; s < p->zones_hi; s++) {
        const wzone *a = &m->zones[s];
        if ((p->zflags[s - 1] & 2) && a->made && !a->deleted && a->ident != p->zfirst[s - 1])
            return 0;   /* WTF-ZON-002 */
    }
    for (uint32_t s = 0; s < p->zones_hi || s == 0; s++) {
        int64_t D = m->zones[s].depth;
        if (s == in && !depth_through(&D, &m->zones[s], &p->zones[W_ZONES + 1]))
            return 0;
        if (!depth_through(&D, &m->zones[s], &p->zones[s]))
            return 0;
    }
    if (in >= p->zones_hi) {
        int64_t D = m->zones[in].depth;
        if (!depth_through(&D, &m->zones[in], &p->zones[W_ZONES + 1]))
            return 0;
    }
    return 1;
}

/* @p's findings and state after @m's (part_fits(m, p) said they stand). */
static void part_merge(wpass *m, wpass *p)
{
    rec_replay(m, p->rec);
    m->events += p->events;
    m->damaged |= p->damaged;
    m->cut |= p->cut;
    m->oom |= p->oom;
    for (uint32_t i = ATF_WTF_WIRE_DEFINE + 1; i < p->wires_hi; i++)
        if (p->defs[i]) {
            wtf_def_free(m->defs[i]);
            set_def(m, i, p->defs[i]);
            p->defs[i] = NULL;
        }
    for (uint32_t i = 0; i < p->names_cap; i++) {
        atf_wtf_def *f = p->firsts[i];
        if (!f || firsts_find(m, f->name))
            continue;
        if (name_first(m, f) == NULL) {   /* a copy went in */
            wtf_def_free(f);
            p->firsts[i] = NULL;
        }
    }
    uint32_t in = zone_slot(m->zone);
    int64_t D = m->zones[in].depth;
    depth_through(&D, &m->zones[in], &p->zones[W_ZONES + 1]);
    m->zones[in].depth = (uint32_t)D;
    for (uint32_t s = 0; s < p->zones_hi; s++) {
        wzone *a = &m->zones[s];
        const wzone *b = &p->zones[s];
        D = a->depth;
        depth_through(&D, a, b);
        a->depth = (uint32_t)D;
        if (b->made) {
            a->made = 1;
            a->deleted = b->deleted;
            a->ident = b->ident;
        } else if (b->deleted) {
            a->deleted = 1;
        }
    }
    if (p->zones_hi > m->zones_hi)
        m->zones_hi = p->zones_hi;
    if (p->zone != W_UNKNOWN_ZONE)
        m->zone = p->zone;
}

#define W_PARTS_MAX 64u

typedef struct wpart {
    wpass w;
    uint64_t start, stop, end, next;
    uint32_t index0, index;
    int ready, started;
    pthread_t tid;
} wpart;

static void *part_main(void *arg)
{
    wpart *p = (wpart *)arg;
    p->index = p->index0;
    p->next = run_chunks(&p->w, p->start, p->stop, &p->index, p->end);
    return NULL;
}

/* Up to @n parts of whole chunks, about equal in bytes, by the chunks'
 * lengths alone: starts[i] and the index of its first chunk. @return the
 * number of parts. */
static unsigned plan_parts(const uint8_t *d, uint64_t size, unsigned n, uint64_t *starts, uint32_t *idx)
{
    unsigned k = 1;
    starts[0] = ATF_WTF_FILE_HEADER_SIZE;
    idx[0] = 0;
    uint64_t pos = ATF_WTF_FILE_HEADER_SIZE;
    uint32_t count = 0;
    while (k < n && size - pos >= ATF_WTF_CHUNK_HEADER_SIZE && pos < size) {
        uint32_t len = atf_load_le32(d + pos + 8);
        if (len < ATF_WTF_CHUNK_HEADER_SIZE || len % 4 || len > size - pos)
            break;
        pos += len;
        count++;
        if (pos < size && pos >= size / n * k) {
            starts[k] = pos;
            idx[k++] = count;
        }
    }
    return k;
}

unsigned v_wtf_pass_parts(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                          int general_only, unsigned threads)
{
    unsigned joined = 0;
    v_check_format(v, &atf_vformat_wtf);
    atf_wtf_file_header h;
    atf_error e;
    atf_error_clear(&e);
    atf_status s = atf_wtf_parse_file_header(d, (size_t)size, &h, &e);
    if (s == ATF_E_TRUNCATED) {
        static const uint8_t want[12] = { 0xEF, 0xBE, 0xAD, 0xDE, 0, 0, 0, 0, 10, 0, 0, 0 };
        int prefix = 1;
        for (uint64_t i = 0; i < size; i++)
            if (i < 4 || i >= 8)
                prefix = prefix && d[i] == want[i];
        if (prefix) {
            v_report(v, file, C_WTF_REC_001, 0, size, "magic", "crash-truncated: %llu bytes, inside the file header",
                     (unsigned long long)size);
            v_recovered(v, file, 0);
            return 0;
        }
    }
    if (s == ATF_E_VERSION) {
        v_report(v, file, C_WTF_HDR_002, 0, 8, "format_version", "%s", e.message);
        return 0;
    }
    if (s != ATF_OK) {
        v_report(v, file, C_WTF_HDR_001, 0, e.offset == ATF_VALIDATE_NO_OFFSET ? 0 : e.offset, "magic", "%s",
                 e.message);
        return 0;
    }
    /* The parts: @threads, or ATF_WTF_THREADS, or one per CPU with at least 16 MiB each. */
    unsigned n = threads;
    const char *env = getenv("ATF_WTF_THREADS");
    if (!n && env && *env)
        n = (unsigned)strtoul(env, NULL, 10);
    n = atf_part_count(n, size, size ? size : 1, W_PARTS_MAX);
    uint64_t starts[W_PARTS_MAX + 1];
    uint32_t idx[W_PARTS_MAX + 1];
    n = plan_parts(d, size, n, starts, idx);
    starts[n] = UINT64_MAX;
    wpass w;
    if (!pass_init(&w, v, file, d, size, general_only, 0, NULL)) {
        pass_free(&w);
        v->oom = 1;
        return 0;
    }
    uint64_t end = data_end < size ? data_end : size;
    wpart *parts = n > 1 ? (wpart *)calloc(n, sizeof *parts) : NULL;
    if (!parts)
        n = 1;
    /* The first two chunks before the parts start: a reference writer's
     * file has all its defines and zone creates there (a file-header
     * chunk, then the library's "event header" chunk), and each part
     * starts with the definitions in force and the zones created after
     * them (seed), where it would otherwise meet wire ids it has no
     * definition of, or list every wtf.zone#set as a WTF-ZON-001 to
     * decide at the join, and be run again in its turn. */
    uint32_t index = 0;
    uint64_t pos = ATF_WTF_FILE_HEADER_SIZE;
    for (int k = 0; k < 2 && n > 1 && pos && pos < starts[1]; k++)
        pos = run_chunks(&w, pos, pos + 1, &index, end);
    wseed seed_store, *seed = NULL;
    if (n > 1 && seed_init(&seed_store, &w))
        seed = &seed_store;
    for (unsigned i = 1; i < n; i++) {
        wpart *p = &parts[i];
        p->start = starts[i];
        p->stop = starts[i + 1];
        p->end = end;
        p->index0 = idx[i];
        p->ready = pass_init(&p->w, v, file, d, size, general_only, 1, seed);
        if (p->ready)
            p->started = pthread_create(&p->tid, NULL, part_main, p) == 0;
    }
    pos = run_chunks(&w, pos, starts[1], &index, end);
    int broken = 0;   /* the chunks did not end where the next part starts: the rest in order */
    for (unsigned i = 1; i < n; i++) {
        wpart *p = &parts[i];
        if (p->started)
            pthread_join(p->tid, NULL);
        if (!broken && (pos != starts[i] || index != idx[i])) {
            broken = 1;
            pos = run_chunks(&w, pos, UINT64_MAX, &index, end);
        }
        if (!broken) {
            if (p->started && part_fits(&w, &p->w)) {
                part_merge(&w, &p->w);
                joined++;
                pos = p->next;
                index = p->index;
            } else {
                pos = run_chunks(&w, pos, starts[i + 1], &index, end);   /* again, in its turn */
            }
        }
        pass_free(&p->w);
    }
    free(parts);
    if (seed)
        seed_free(seed);
    if (w.oom)
        v->oom = 1;
    if (index == 0 && !w.cut) {
        /* Only the 12-byte header: a writer stopped before its first chunk. */
        v_report(v, file, C_WTF_REC_001, 0, ATF_WTF_FILE_HEADER_SIZE, "chunk",
                 "crash-truncated: no chunk after the file header");
        w.cut = 1;
    }
    if (w.cut)
        v_recovered(v, file, w.events);
    else if (!w.damaged)
        open_scope_at_end(&w);
    pass_free(&w);
    return joined;
}

void v_wtf_pass_mode(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                     int general_only)
{
    (void)v_wtf_pass_parts(v, file, d, size, data_end, general_only, 0);
}

atf_status v_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                 const atf_validate_options *opts, int general_only, atf_error *err)
{
    atf_validation *v;
    size_t f;
    atf_status st = v_memory_begin(out, &v, &f, data, size, name, "trace.wtf-trace", opts, err);
    if (st)
        return st;
    v_wtf_pass_mode(v, f, data ? data : (const void *)"", size, size, general_only);
    return v_end(v, ATF_OK, out, err);
}

atf_status v_validate_wtf_memory_parts(atf_validation **out, const void *data, size_t size, const char *name,
                                       const atf_validate_options *opts, unsigned threads, unsigned *joined,
                                       atf_error *err)
{
    atf_validation *v;
    size_t f;
    atf_status st = v_memory_begin(out, &v, &f, data, size, name, "trace.wtf-trace", opts, err);
    if (st)
        return st;
    unsigned j = v_wtf_pass_parts(v, f, data ? data : (const void *)"", size, size, 0, threads);
    if (joined)
        *joined = j;
    return v_end(v, ATF_OK, out, err);
}

atf_status atf_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                   const atf_validate_options *opts, atf_error *err)
{
    return v_validate_wtf_memory(out, data, size, name, opts, 0, err);
}
