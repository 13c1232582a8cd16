/* The streaming WTF writer. Events go into the current chunk's event buffer
 * and its strings into the chunk's own string table (one entry per distinct
 * string); when the chunk reaches its size it is written out whole and a new
 * one begins. Every chunk stands alone (SPEC-WTF 4.4): before the first use
 * of an event type in a chunk its define is written into that chunk, and
 * every chunk starts with the current zone's create and set, so a reader
 * given any chunk, or a file whose first chunks were lost, still decodes it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf/fileio.h>
#include <atf/wtf.h>

#include "bytes.h"
#include "common.h"
#include "wtf_internal.h"

typedef atf_bytebuf bytes_buf;
#define bb_reserve atf_bytebuf_reserve

typedef struct zone_rec {
    uint16_t id;
    char *name, *type, *location;
    uint64_t created_in;      /* 1 + the chunk its wtf.zone#create was last written in */
} zone_rec;

struct atf_wtf_writer {
    int fd;
    char path[256];
    atf_wtf_write_options opts;
    int failed;
    uint64_t file_offset;
    uint64_t events;

    atf_wtf_def **defs;       /* by wire id; index 0 unused */
    uint32_t ndefs, cap_defs;
    uint8_t *defined_here;    /* per wire id: defined in the current chunk */

    zone_rec *zones;
    size_t nzones, cap_zones;
    int32_t zone;             /* current zone, -1 none */
    int zone_written;         /* the current chunk has its zone create + set */

    /* The current chunk. */
    bytes_buf ev, str;
    uint32_t nstrings;
    uint32_t *hash;           /* open addressing: ordinal + 1, 0 empty */
    uint32_t hash_cap;
    uint32_t *str_start;      /* start of each string in str */
    uint32_t cap_start;
    uint32_t t_min, t_max;
    int has_events;
    uint32_t next_chunk_id;
    uint64_t chunks_begun;    /* event chunks begun so far, the current one included */
};

static atf_status wfail(atf_wtf_writer *w, atf_error *err, atf_status code, const char *fmt, const char *what)
{
    if (code == ATF_E_IO || code == ATF_E_NOMEM)
        w->failed = 1;
    atf_fail(err, code, ATF_NO_OFFSET, NULL, fmt, what);
    atf_error_set_file(err, w->path);
    return code;
}

/* ---- Strings of the current chunk ----------------------------------------- */

static uint32_t hash_str(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static int grow_hash(atf_wtf_writer *w)
{
    uint32_t cap = w->hash_cap ? w->hash_cap * 2 : 1024;
    uint32_t *h = (uint32_t *)calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t i = 0; i < w->nstrings; i++) {
        const char *s = (const char *)w->str.p + w->str_start[i];
        uint32_t k = hash_str(s, strlen(s)) & (cap - 1);
        while (h[k])
            k = (k + 1) & (cap - 1);
        h[k] = i + 1;
    }
    free(w->hash);
    w->hash = h;
    w->hash_cap = cap;
    return 0;
}

/* The ordinal of @s in the current chunk's table (added when new). */
static int intern(atf_wtf_writer *w, const char *s, size_t n, uint32_t *ord)
{
    if (!s) {
        *ord = ATF_WTF_STRING_NULL;
        return 0;
    }
    if (n == 0) {
        /* Not stored: the reference reader reads an empty table entry as null. */
        *ord = ATF_WTF_STRING_EMPTY;
        return 0;
    }
    if (memchr(s, 0, n))
        return -2;
    if ((w->nstrings + 1) * 2 > w->hash_cap && grow_hash(w) != 0)
        return -1;
    uint32_t k = hash_str(s, n) & (w->hash_cap - 1);
    while (w->hash[k]) {
        uint32_t o = w->hash[k] - 1;
        const char *t = (const char *)w->str.p + w->str_start[o];
        if (strncmp(t, s, n) == 0 && t[n] == 0) {
            *ord = o;
            return 0;
        }
        k = (k + 1) & (w->hash_cap - 1);
    }
    if (w->nstrings == w->cap_start) {
        uint32_t cap = w->cap_start ? w->cap_start * 2 : 1024;
        uint32_t *p = (uint32_t *)realloc(w->str_start, cap * sizeof *p);
        if (!p)
            return -1;
        w->str_start = p;
        w->cap_start = cap;
    }
    if (bb_reserve(&w->str, n + 1) != 0)
        return -1;
    w->str_start[w->nstrings] = (uint32_t)w->str.n;
    memcpy(w->str.p + w->str.n, s, n);
    w->str.p[w->str.n + n] = 0;
    w->str.n += n + 1;
    w->hash[k] = w->nstrings + 1;
    *ord = w->nstrings++;
    return 0;
}

/* Forgets the strings interned since there were @n of them in @bytes
 * (an event refused half way: nothing of it is written). Entries of the
 * hash for ordinals >= n were inserted after all others: clearing them
 * leaves the table as it was before (linear probing only fills empty
 * slots). */
static void unintern(atf_wtf_writer *w, uint32_t n, size_t bytes)
{
    for (uint32_t k = 0; k < w->hash_cap; k++)
        if (w->hash[k] > n)
            w->hash[k] = 0;
    w->nstrings = n;
    w->str.n = bytes;
}

/* ---- Chunks -------------------------------------------------------------- */

static atf_status write_chunk(atf_wtf_writer *w, uint32_t type, uint32_t start, uint32_t end, const uint32_t *ptypes,
                              const uint8_t *const *pdata, const size_t *plen, uint32_t nparts, atf_error *err)
{
    uint64_t length = ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)nparts * ATF_WTF_PART_ENTRY_SIZE;
    uint8_t head[ATF_WTF_CHUNK_HEADER_SIZE + 4 * ATF_WTF_PART_ENTRY_SIZE];
    uint64_t off = 0;
    for (uint32_t i = 0; i < nparts; i++) {
        uint8_t *e = head + ATF_WTF_CHUNK_HEADER_SIZE + i * ATF_WTF_PART_ENTRY_SIZE;
        atf_store_le32(e, ptypes[i]);
        atf_store_le32(e + 4, (uint32_t)off);
        atf_store_le32(e + 8, (uint32_t)plen[i]);
        off += (plen[i] + 3) & ~(size_t)3;
    }
    length += off;
    if (length > UINT32_MAX)
        return wfail(w, err, ATF_E_LIMIT, "%s: a chunk longer than 4 GiB", "chunk");
    atf_store_le32(head, w->next_chunk_id++);
    atf_store_le32(head + 4, type);
    atf_store_le32(head + 8, (uint32_t)length);
    atf_store_le32(head + 12, start);
    atf_store_le32(head + 16, end);
    atf_store_le32(head + 20, nparts);
    size_t hn = ATF_WTF_CHUNK_HEADER_SIZE + nparts * ATF_WTF_PART_ENTRY_SIZE;
    if (atf_write_all(w->fd, head, hn, w->file_offset, 1) != ATF_OK)
        return wfail(w, err, ATF_E_IO, "cannot write: %s", strerror(errno));
    w->file_offset += hn;
    static const uint8_t zeros[4] = { 0, 0, 0, 0 };
    for (uint32_t i = 0; i < nparts; i++) {
        if (plen[i] && atf_write_all(w->fd, pdata[i], plen[i], w->file_offset, 1) != ATF_OK)
            return wfail(w, err, ATF_E_IO, "cannot write: %s", strerror(errno));
        w->file_offset += plen[i];
        size_t pad = ((plen[i] + 3) & ~(size_t)3) - plen[i];
        if (pad && atf_write_all(w->fd, zeros, pad, w->file_offset, 1) != ATF_OK)
            return wfail(w, err, ATF_E_IO, "cannot write: %s", strerror(errno));
        w->file_offset += pad;
    }
    return ATF_OK;
}

static void reset_chunk(atf_wtf_writer *w)
{
    w->ev.n = 0;
    w->str.n = 0;
    w->nstrings = 0;
    if (w->hash)
        memset(w->hash, 0, w->hash_cap * sizeof *w->hash);
    if (w->defined_here)
        memset(w->defined_here, 0, w->cap_defs);
    w->has_events = 0;
    w->zone_written = 0;
    w->chunks_begun++;
}

atf_status atf_wtf_writer_flush(atf_wtf_writer *w, atf_error *err)
{
    if (!w)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no writer");
    if (w->failed)
        return wfail(w, err, ATF_E_STATE, "%s: an earlier write failed", "writer");
    if (!w->has_events)
        return ATF_OK;
    uint32_t types[2] = { ATF_WTF_PART_STRING_TABLE, ATF_WTF_PART_BINARY_EVENTS };
    const uint8_t *data[2] = { w->str.p, w->ev.p };
    size_t len[2] = { w->str.n, w->ev.n };
    atf_status s = write_chunk(w, ATF_WTF_CHUNK_EVENT_DATA, w->t_min, w->t_max, types, data, len, 2, err);
    reset_chunk(w);
    return s;
}

/* ---- Definitions ------------------------------------------------------------ */

static atf_status add_def(atf_wtf_writer *w, const char *name, const char *sig, uint16_t cls, uint32_t flags,
                          uint16_t *wire, atf_error *err)
{
    for (uint32_t i = 1; i < w->ndefs; i++) {
        const atf_wtf_def *d = w->defs[i];
        if (d && strcmp(d->name, name) == 0) {
            if (strcmp(d->signature, sig) != 0 || d->event_class != cls || d->flags != flags)
                return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "name",
                                "event %s is defined already with another signature, class or flags", name);
            *wire = (uint16_t)i;
            return ATF_OK;
        }
    }
    if (w->ndefs > 0xFFFF)
        return atf_fail(err, ATF_E_LIMIT, ATF_NO_OFFSET, "wireId", "more than 65535 event types");
    if (w->ndefs == w->cap_defs) {
        uint32_t cap = w->cap_defs ? w->cap_defs * 2 : 64;
        atf_wtf_def **d = (atf_wtf_def **)realloc(w->defs, cap * sizeof *d);
        if (!d)
            return wfail(w, err, ATF_E_NOMEM, "%s: out of memory", "define");
        w->defs = d;
        uint8_t *h = (uint8_t *)realloc(w->defined_here, cap);
        if (!h)
            return wfail(w, err, ATF_E_NOMEM, "%s: out of memory", "define");
        memset(h + w->cap_defs, 0, cap - w->cap_defs);
        w->defined_here = h;
        w->cap_defs = cap;
    }
    if (w->ndefs == 0)
        w->defs[w->ndefs++] = NULL;
    atf_wtf_def *d = wtf_def_new((uint16_t)w->ndefs, cls, flags, name, strlen(name), sig, strlen(sig), err);
    if (!d)
        return err ? err->code : ATF_E_ARG;
    w->defs[w->ndefs] = d;
    *wire = (uint16_t)w->ndefs++;
    return ATF_OK;
}

static atf_status put_event(atf_wtf_writer *w, uint16_t wire, uint32_t time_us, const atf_wtf_value *args,
                            size_t nargs, atf_error *err);

/* The define event of @wire, in the current chunk. */
static atf_status put_define(atf_wtf_writer *w, uint16_t wire, uint32_t time_us, atf_error *err)
{
    const atf_wtf_def *d = w->defs[wire];
    atf_wtf_value v[5];
    memset(v, 0, sizeof v);
    v[0].type = ATF_WTF_UINT16;
    v[0].u = d->wire_id;
    v[1].type = ATF_WTF_UINT16;
    v[1].u = d->event_class;
    v[2].type = ATF_WTF_UINT32;
    v[2].u = d->flags;
    v[3].type = ATF_WTF_ASCII;
    v[3].s = d->name;
    v[3].s_len = (uint32_t)strlen(d->name);
    v[4].type = ATF_WTF_ASCII;
    /* No arguments: null, as the reference writer does. */
    v[4].s = d->signature[0] ? d->signature : NULL;
    v[4].s_len = (uint32_t)strlen(d->signature);
    w->defined_here[wire] = 1;
    return put_event(w, ATF_WTF_WIRE_DEFINE, time_us, v, 5, err);
}

static atf_status ensure_defined(atf_wtf_writer *w, uint16_t wire, uint32_t time_us, atf_error *err)
{
    if (!w->defined_here[ATF_WTF_WIRE_DEFINE]) {
        atf_status s = put_define(w, ATF_WTF_WIRE_DEFINE, time_us, err);
        if (s != ATF_OK)
            return s;
    }
    if (!w->defined_here[wire])
        return put_define(w, wire, time_us, err);
    return ATF_OK;
}

static atf_status builtin(atf_wtf_writer *w, unsigned bi, uint16_t *wire, atf_error *err)
{
    static const struct {
        unsigned bi;
        uint16_t cls;
        uint32_t flags;
        const char *sig;
    } t[] = {
        { ATF_WTF_BI_ZONE_CREATE, 0, 40, "uint16 zoneId, ascii name, ascii type, ascii location" },
        { ATF_WTF_BI_ZONE_DELETE, 0, 40, "uint16 zoneId" },
        { ATF_WTF_BI_ZONE_SET, 0, 40, "uint16 zoneId" },
        { ATF_WTF_BI_SCOPE_ENTER, 1, 32, "ascii name" },
        { ATF_WTF_BI_SCOPE_LEAVE, 0, 40, "" },
        { ATF_WTF_BI_SCOPE_APPEND_DATA, 0, 56, "ascii name, any value" },
        { ATF_WTF_BI_TIME_STAMP, 0, 32, "ascii name, any value" },
        { ATF_WTF_BI_MARK, 0, 40, "ascii name, any value" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].bi == bi)
            return add_def(w, wtf_builtin_name(bi), t[i].sig, t[i].cls, t[i].flags, wire, err);
    return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "not a built-in the writer writes");
}

/* ---- Events ------------------------------------------------------------------ */

static atf_status put_event(atf_wtf_writer *w, uint16_t wire, uint32_t time_us, const atf_wtf_value *args,
                            size_t nargs, atf_error *err)
{
    const atf_wtf_def *d = w->defs[wire];
    if (nargs != d->arg_count)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, d->name, "%zu arguments given, the define has %zu", nargs,
                        d->arg_count);
    /* Size first, so that nothing is half written on an error. */
    size_t need = 8;
    for (size_t i = 0; i < nargs; i++) {
        const atf_wtf_arg *a = &d->args[i];
        if (args[i].type != a->type || (args[i].array != 0) != (a->array != 0))
            return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, a->name, "argument %s: value of another type", a->name);
        if (a->array && !args[i].is_null) {
            if (args[i].count > 0x7FFFFFFFu / 4)
                return atf_fail(err, ATF_E_LIMIT, ATF_NO_OFFSET, a->name, "array %s: too long", a->name);
            need += 4 + (((size_t)args[i].count * atf_wtf_elem_size(a->type) + 3) & ~(size_t)3);
        } else {
            need += 4;
        }
    }
    if (bb_reserve(&w->ev, need) != 0)
        return wfail(w, err, ATF_E_NOMEM, "%s: out of memory", "event buffer");
    uint8_t *p = w->ev.p + w->ev.n;
    atf_store_le32(p, wire);
    atf_store_le32(p + 4, time_us);
    size_t at = 8;
    size_t strings_before = w->str.n;
    uint32_t nstrings_before = w->nstrings;
    for (size_t i = 0; i < nargs; i++) {
        const atf_wtf_arg *a = &d->args[i];
        const atf_wtf_value *v = &args[i];
        if (!a->array) {
            uint32_t slot = 0;
            switch (a->type) {
            case ATF_WTF_BOOL: slot = v->u != 0; break;
            case ATF_WTF_INT8: slot = (uint8_t)(int8_t)v->i; break;
            case ATF_WTF_INT16: slot = (uint16_t)(int16_t)v->i; break;
            case ATF_WTF_INT32: slot = (uint32_t)(int32_t)v->i; break;
            case ATF_WTF_UINT8:
            case ATF_WTF_CHAR: slot = (uint8_t)v->u; break;
            case ATF_WTF_UINT16:
            case ATF_WTF_WCHAR: slot = (uint16_t)v->u; break;
            case ATF_WTF_FLOAT32: {
                float f = (float)v->f;
                memcpy(&slot, &f, 4);
                break;
            }
            case ATF_WTF_ASCII:
            case ATF_WTF_UTF8:
            case ATF_WTF_ANY: {
                int r = intern(w, v->is_null ? NULL : v->s, v->s ? v->s_len : 0, &slot);
                if (r != 0) {
                    unintern(w, nstrings_before, strings_before);
                    return r == -2 ? atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, a->name,
                                              "argument %s: a string with a NUL byte", a->name)
                                   : wfail(w, err, ATF_E_NOMEM, "%s: out of memory", "string table");
                }
                break;
            }
            default: slot = (uint32_t)v->u; break;
            }
            atf_store_le32(p + at, slot);
            at += 4;
            continue;
        }
        if (v->is_null) {
            atf_store_le32(p + at, 0xFFFFFFFFu);
            at += 4;
            continue;
        }
        atf_store_le32(p + at, v->count);
        at += 4;
        unsigned es = atf_wtf_elem_size(a->type);
        size_t bytes = (size_t)v->count * es;
        if (a->type == ATF_WTF_ASCII || a->type == ATF_WTF_UTF8 || a->type == ATF_WTF_ANY) {
            const char *const *strs = (const char *const *)(const void *)v->elems;
            for (uint32_t k = 0; k < v->count; k++) {
                uint32_t o;
                int r = intern(w, strs[k], strs[k] ? strlen(strs[k]) : 0, &o);
                if (r != 0) {
                    unintern(w, nstrings_before, strings_before);
                    return wfail(w, err, ATF_E_NOMEM, "%s: out of memory", "string table");
                }
                atf_store_le32(p + at + 4 * (size_t)k, o);
            }
        } else if (v->count) {
            /* Elements are given in host order: stored little-endian. */
            for (uint32_t k = 0; k < v->count; k++) {
                const uint8_t *src = v->elems + (size_t)k * es;
                if (es == 1)
                    p[at + k] = src[0];
                else if (es == 2) {
                    uint16_t x;
                    memcpy(&x, src, 2);
                    atf_store_le16(p + at + 2 * (size_t)k, x);
                } else {
                    uint32_t x;
                    memcpy(&x, src, 4);
                    atf_store_le32(p + at + 4 * (size_t)k, x);
                }
            }
        }
        size_t padded = (bytes + 3) & ~(size_t)3;
        memset(p + at + bytes, 0, padded - bytes);
        at += padded;
    }
    w->ev.n += at;
    if (!w->has_events) {
        w->t_min = w->t_max = time_us;
        w->has_events = 1;
    } else {
        if (time_us < w->t_min)
            w->t_min = time_us;
        if (time_us > w->t_max)
            w->t_max = time_us;
    }
    w->events++;
    return ATF_OK;
}

static zone_rec *find_zone(atf_wtf_writer *w, int32_t id)
{
    for (size_t i = 0; i < w->nzones; i++)
        if (w->zones[i].id == id)
            return &w->zones[i];
    return NULL;
}

/* The value of a string argument; NULL: the null string. */
static atf_wtf_value string_value(atf_wtf_type type, const char *s)
{
    return (atf_wtf_value){ .type = type, .s = s, .s_len = s ? (uint32_t)strlen(s) : 0u, .is_null = s == NULL };
}

static atf_status put_zone_create(atf_wtf_writer *w, zone_rec *z, uint32_t time_us, atf_error *err)
{
    z->created_in = w->chunks_begun + 1;
    uint16_t wire;
    atf_status s = builtin(w, ATF_WTF_BI_ZONE_CREATE, &wire, err);
    if (s == ATF_OK)
        s = ensure_defined(w, wire, time_us, err);
    if (s != ATF_OK)
        return s;
    atf_wtf_value v[4];
    memset(v, 0, sizeof v);
    v[0].type = ATF_WTF_UINT16;
    v[0].u = z->id;
    v[1] = string_value(ATF_WTF_ASCII, z->name);
    v[2] = string_value(ATF_WTF_ASCII, z->type);
    v[3] = string_value(ATF_WTF_ASCII, z->location);
    return put_event(w, wire, time_us, v, 4, err);
}

static atf_status put_zone_set(atf_wtf_writer *w, uint16_t id, uint32_t time_us, atf_error *err)
{
    uint16_t wire;
    atf_status s = builtin(w, ATF_WTF_BI_ZONE_SET, &wire, err);
    if (s == ATF_OK)
        s = ensure_defined(w, wire, time_us, err);
    if (s != ATF_OK)
        return s;
    atf_wtf_value v;
    memset(&v, 0, sizeof v);
    v.type = ATF_WTF_UINT16;
    v.u = id;
    return put_event(w, wire, time_us, &v, 1, err);
}

/* A new chunk starts with the current zone, created and set in it. */
static atf_status ensure_zone(atf_wtf_writer *w, uint32_t time_us, atf_error *err)
{
    if (w->zone_written || w->zone < 0)
        return ATF_OK;
    w->zone_written = 1;
    zone_rec *z = find_zone(w, w->zone);
    /* Created in this chunk already (atf_wtf_writer_zone_create just before): set only. */
    atf_status s = z->created_in == w->chunks_begun + 1 ? ATF_OK : put_zone_create(w, z, time_us, err);
    return s == ATF_OK ? put_zone_set(w, (uint16_t)w->zone, time_us, err) : s;
}

static atf_status maybe_rotate(atf_wtf_writer *w, atf_error *err)
{
    if (w->ev.n + w->str.n < w->opts.chunk_bytes)
        return ATF_OK;
    return atf_wtf_writer_flush(w, err);
}

atf_status atf_wtf_writer_event(atf_wtf_writer *w, uint16_t wire_id, uint32_t time_us, const atf_wtf_value *args,
                                size_t nargs, atf_error *err)
{
    if (!w)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no writer");
    if (w->failed)
        return wfail(w, err, ATF_E_STATE, "%s: an earlier write failed", "writer");
    if (wire_id == 0 || wire_id >= w->ndefs || !w->defs[wire_id])
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "wireId", "wire id %u is not defined", (unsigned)wire_id);
    atf_status s = maybe_rotate(w, err);
    if (s == ATF_OK)
        s = ensure_zone(w, time_us, err);
    if (s == ATF_OK)
        s = ensure_defined(w, wire_id, time_us, err);
    if (s == ATF_OK)
        s = put_event(w, wire_id, time_us, args, nargs, err);
    return s;
}

atf_status atf_wtf_writer_define(atf_wtf_writer *w, const char *name, const char *signature, uint16_t event_class,
                                 uint32_t flags, uint16_t *wire_id, atf_error *err)
{
    if (!w || !name || !wire_id)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no writer, name or wire id");
    if (event_class > ATF_WTF_CLASS_SCOPE)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "eventClass", "class %u: 0 instance or 1 scope",
                        (unsigned)event_class);
    return add_def(w, name, signature ? signature : "", event_class, flags, wire_id, err);
}

static atf_status write_builtin(atf_wtf_writer *w, unsigned bi, uint32_t time_us, const atf_wtf_value *v, size_t n,
                                atf_error *err)
{
    uint16_t wire;
    atf_status s = builtin(w, bi, &wire, err);
    return s == ATF_OK ? atf_wtf_writer_event(w, wire, time_us, v, n, err) : s;
}

static char *dup_or_null(const char *s)
{
    return s ? atf_strdup(s) : NULL;
}

atf_status atf_wtf_writer_zone_create(atf_wtf_writer *w, uint16_t zone_id, const char *name, const char *type,
                                      const char *location, uint32_t time_us, atf_error *err)
{
    if (!w)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no writer");
    if (find_zone(w, zone_id))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "zoneId", "zone %u exists already", (unsigned)zone_id);
    if (w->nzones == w->cap_zones) {
        size_t cap = w->cap_zones ? w->cap_zones * 2 : 16;
        zone_rec *z = (zone_rec *)realloc(w->zones, cap * sizeof *z);
        if (!z)
            return wfail(w, err, ATF_E_NOMEM, "%s: out of memory", "zones");
        w->zones = z;
        w->cap_zones = cap;
    }
    zone_rec *z = &w->zones[w->nzones];
    z->id = zone_id;
    z->name = dup_or_null(name);
    z->type = dup_or_null(type);
    z->location = dup_or_null(location);
    z->created_in = 0;
    if ((name && !z->name) || (type && !z->type) || (location && !z->location)) {
        free(z->name);
        free(z->type);
        free(z->location);
        return wfail(w, err, ATF_E_NOMEM, "%s: out of memory", "zones");
    }
    w->nzones++;
    atf_status s = maybe_rotate(w, err);
    if (s == ATF_OK)
        s = ensure_zone(w, time_us, err);
    return s == ATF_OK ? put_zone_create(w, z, time_us, err) : s;
}

atf_status atf_wtf_writer_zone_set(atf_wtf_writer *w, uint16_t zone_id, uint32_t time_us, atf_error *err)
{
    if (!w)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no writer");
    if (!find_zone(w, zone_id))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "zoneId", "zone %u was not created", (unsigned)zone_id);
    atf_status s = maybe_rotate(w, err);
    if (s != ATF_OK)
        return s;
    w->zone = zone_id;
    if (!w->zone_written)
        return ensure_zone(w, time_us, err);
    return put_zone_set(w, zone_id, time_us, err);
}

atf_status atf_wtf_writer_zone_delete(atf_wtf_writer *w, uint16_t zone_id, uint32_t time_us, atf_error *err)
{
    if (!w)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no writer");
    zone_rec *z = find_zone(w, zone_id);
    if (!z)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "zoneId", "zone %u was not created", (unsigned)zone_id);
    atf_wtf_value v;
    memset(&v, 0, sizeof v);
    v.type = ATF_WTF_UINT16;
    v.u = zone_id;
    atf_status s = write_builtin(w, ATF_WTF_BI_ZONE_DELETE, time_us, &v, 1, err);
    if (s != ATF_OK)
        return s;
    /* Forgotten: the id may be created again, and later chunks no longer
     * start with it. */
    free(z->name);
    free(z->type);
    free(z->location);
    *z = w->zones[--w->nzones];
    if (w->zone == (int32_t)zone_id)
        w->zone = -1;
    return ATF_OK;
}

atf_status atf_wtf_writer_scope_enter(atf_wtf_writer *w, const char *name, uint32_t time_us, atf_error *err)
{
    atf_wtf_value v = string_value(ATF_WTF_ASCII, name);
    return write_builtin(w, ATF_WTF_BI_SCOPE_ENTER, time_us, &v, 1, err);
}

atf_status atf_wtf_writer_scope_leave(atf_wtf_writer *w, uint32_t time_us, atf_error *err)
{
    return write_builtin(w, ATF_WTF_BI_SCOPE_LEAVE, time_us, NULL, 0, err);
}

static atf_status name_value(atf_wtf_writer *w, unsigned bi, const char *name, const char *json, uint32_t time_us,
                             atf_error *err)
{
    atf_wtf_value v[2] = { string_value(ATF_WTF_ASCII, name), string_value(ATF_WTF_ANY, json) };
    return write_builtin(w, bi, time_us, v, 2, err);
}

atf_status atf_wtf_writer_append_data(atf_wtf_writer *w, const char *name, const char *json_value, uint32_t time_us,
                                      atf_error *err)
{
    return name_value(w, ATF_WTF_BI_SCOPE_APPEND_DATA, name, json_value, time_us, err);
}

atf_status atf_wtf_writer_time_stamp(atf_wtf_writer *w, const char *name, const char *json_value, uint32_t time_us,
                                     atf_error *err)
{
    return name_value(w, ATF_WTF_BI_TIME_STAMP, name, json_value, time_us, err);
}

atf_status atf_wtf_writer_mark(atf_wtf_writer *w, const char *name, const char *json_value, uint32_t time_us,
                               atf_error *err)
{
    return name_value(w, ATF_WTF_BI_MARK, name, json_value, time_us, err);
}

uint64_t atf_wtf_writer_event_count(const atf_wtf_writer *w)
{
    return w ? w->events : 0;
}

uint64_t atf_wtf_writer_bytes(const atf_wtf_writer *w)
{
    return w ? w->file_offset : 0;
}

/* ---- Opening and closing ------------------------------------------------------ */

static void json_str(bytes_buf *b, const char *s)
{
    /* Only what a header needs: quote, escape quote, backslash and controls. */
    bb_reserve(b, strlen(s) * 6 + 3);
    if (!b->p)
        return;
    b->p[b->n++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            b->p[b->n++] = '\\';
            b->p[b->n++] = *p;
        } else if (*p < 0x20) {
            b->n += (size_t)snprintf((char *)b->p + b->n, 7, "\\u%04x", *p);
        } else {
            b->p[b->n++] = *p;
        }
    }
    b->p[b->n++] = '"';
}

static void json_lit(bytes_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (bb_reserve(b, n) == 0) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
    }
}

atf_status atf_wtf_writer_open(atf_wtf_writer **out, const char *path, const atf_wtf_write_options *opts,
                               atf_error *err)
{
    *out = NULL;
    if (!path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no path");
    atf_wtf_writer *w = (atf_wtf_writer *)calloc(1, sizeof *w);
    if (!w)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    atf_wtf_write_options def = ATF_WTF_WRITE_OPTIONS_INIT;
    w->opts = opts ? *opts : def;
    if (!w->opts.chunk_bytes)
        w->opts.chunk_bytes = 1u << 20;
    if (!w->opts.wtf_version)
        w->opts.wtf_version = ATF_WTF_VERSION_JS;
    if (w->opts.timebase_ms == 0.0 && !w->opts.timebase_given) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        w->opts.timebase_ms = (double)ts.tv_sec * 1e3 + (double)(ts.tv_nsec / 1000) / 1e3;
    }
    w->zone = -1;
    w->next_chunk_id = 1;
    snprintf(w->path, sizeof w->path, "%s", path);
    w->fd = atf_open_output(path, err);
    if (w->fd < 0) {
        free(w);
        return ATF_E_IO;
    }
    uint8_t fh[ATF_WTF_FILE_HEADER_SIZE];
    atf_store_le32(fh, ATF_WTF_MAGIC);
    atf_store_le32(fh + 4, w->opts.wtf_version);
    atf_store_le32(fh + 8, ATF_WTF_FORMAT_VERSION);
    atf_status s = atf_write_all(w->fd, fh, sizeof fh, 0, 1);
    if (s != ATF_OK)
        atf_fail(err, s, ATF_NO_OFFSET, NULL, "cannot write: %s", strerror(errno));
    w->file_offset = sizeof fh;
    /* The file-header part, in the key order the JS library writes. */
    bytes_buf j = { NULL, 0, 0 };
    char num[160];
    json_lit(&j, "{\"type\":\"file_header\",\"flags\":[");
    if (w->opts.high_res_times)
        json_lit(&j, "\"has_high_resolution_times\"");
    snprintf(num, sizeof num, "],\"timebase\":%.17g,\"contextInfo\":{\"contextType\":\"script\",\"uri\":",
             w->opts.timebase_ms);
    json_lit(&j, num);
    json_str(&j, w->opts.context_uri ? w->opts.context_uri : "file://");
    if (w->opts.context_title) {
        json_lit(&j, ",\"title\":");
        json_str(&j, w->opts.context_title);
    }
    json_lit(&j, ",\"userAgent\":{\"value\":\"atf\",\"type\":\"unknown\",\"platform\":\"linux\",\"device\":\"server\"}}"
                 ",\"metadata\":{\"writer\":\"atf\"}}");
    if (!j.p) {
        s = ATF_E_NOMEM;
    } else if (s == ATF_OK) {
        uint32_t type = ATF_WTF_PART_FILE_HEADER;
        const uint8_t *data = j.p;
        size_t len = j.n;
        s = write_chunk(w, ATF_WTF_CHUNK_FILE_HEADER, ATF_WTF_NO_TIME, ATF_WTF_NO_TIME, &type, &data, &len, 1, err);
    }
    free(j.p);
    if (s == ATF_OK) {
        /* wtf.event#define is wire id 1 in every file. */
        uint16_t wire;
        s = add_def(w, "wtf.event#define", WTF_DEFINE_SIGNATURE, ATF_WTF_CLASS_INSTANCE, 40, &wire, err);
    }
    if (s != ATF_OK) {
        atf_error_set_file(err, path);
        atf_wtf_writer_close(w, NULL);
        return s;
    }
    *out = w;
    return ATF_OK;
}

atf_status atf_wtf_writer_close(atf_wtf_writer *w, atf_error *err)
{
    if (!w)
        return ATF_OK;
    atf_status s = w->failed ? ATF_E_IO : atf_wtf_writer_flush(w, err);
    if (w->fd >= 0 && close(w->fd) != 0 && s == ATF_OK)
        s = wfail(w, err, ATF_E_IO, "cannot close: %s", strerror(errno));
    for (uint32_t i = 0; i < w->ndefs; i++)
        wtf_def_free(w->defs[i]);
    free(w->defs);
    free(w->defined_here);
    for (size_t i = 0; i < w->nzones; i++) {
        free(w->zones[i].name);
        free(w->zones[i].type);
        free(w->zones[i].location);
    }
    free(w->zones);
    free(w->ev.p);
    free(w->str.p);
    free(w->hash);
    free(w->str_start);
    free(w);
    return s;
}
