/* The model of a WTF file and the checks of the reader, the validator and
 * the dump against it; see fuzz_wtf.h.
 *
 * Written from conformance/SPEC-WTF.md (file header 1, chunks 2.1, string
 * tables 3, events and definitions 4, crash recovery 6) and
 * docs/wtf-dump-format.md (zones), with its own byte loads, signature parser
 * and argument sizes. Damage costs what SPEC-WTF 6 says: a bad event the
 * rest of its chunk; a broken part table its chunk when the length places
 * the next one, else the rest; a length not a multiple of 4 or running past
 * the end with bytes after the parts (CHK-002, -003) nothing but what comes
 * after the chunk; a length shorter than the header and table (CHK-001) the
 * rest. Where the spec leaves a choice the model takes the codec's: a
 * define that breaks WTF-DEF-001, -004 or -007 defines nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/tools.h>
#include <atf/validator.h>

#include "fuzz_wtf.h"

/* ---- Signatures ------------------------------------------------------------- */

const fz_wtf_type_info fz_wtf_types[15] = {
    { "bool", 1, 0, ATF_WTF_BOOL },     { "int8", 1, 0, ATF_WTF_INT8 },       { "uint8", 1, 0, ATF_WTF_UINT8 },
    { "int16", 2, 0, ATF_WTF_INT16 },   { "uint16", 2, 0, ATF_WTF_UINT16 },   { "int32", 4, 0, ATF_WTF_INT32 },
    { "uint32", 4, 0, ATF_WTF_UINT32 }, { "float32", 4, 0, ATF_WTF_FLOAT32 }, { "flowId", 4, 0, ATF_WTF_FLOWID },
    { "time32", 4, 0, ATF_WTF_TIME32 }, { "ascii", 4, 1, ATF_WTF_ASCII },     { "utf8", 4, 1, ATF_WTF_UTF8 },
    { "any", 4, 1, ATF_WTF_ANY },       { "char", 1, 0, ATF_WTF_CHAR },       { "wchar", 2, 0, ATF_WTF_WCHAR },
};

enum { T_BOOL, T_INT8, T_UINT8, T_INT16, T_UINT16, T_INT32, T_UINT32, T_FLOAT32, T_FLOWID, T_TIME32, T_ASCII,
       T_UTF8, T_ANY, T_CHAR, T_WCHAR };

static int sig_space(char c) { return c == ' ' || c == '\t'; }

static int sig_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

atf_status fz_wtf_parse_signature(const char *s, size_t len, fz_wtf_arg *args, size_t *nargs)
{
    size_t i = 0, n = 0;
    *nargs = 0;
    while (i < len && sig_space(s[i]))
        i++;
    while (i < len) {
        size_t t = i;
        while (i < len && sig_word(s[i]))
            i++;
        int type = -1;
        for (int k = 0; k < 15; k++)
            if (strlen(fz_wtf_types[k].name) == i - t && memcmp(fz_wtf_types[k].name, s + t, i - t) == 0)
                type = k;
        if (type < 0)
            return ATF_E_FIELD;
        int array = len - i >= 2 && s[i] == '[' && s[i + 1] == ']';
        if (array)
            i += 2;
        size_t sp = i;
        while (i < len && sig_space(s[i]))
            i++;
        size_t nm = i;
        while (i < len && sig_word(s[i]))
            i++;
        if (sp == nm || nm == i)
            return ATF_E_FIELD;    /* no space after the type, or no name */
        if (n == FZ_WTF_MAX_ARGS)
            return ATF_E_LIMIT;
        for (size_t k = 0; k < n; k++)
            if (args[k].name_len == i - nm && memcmp(args[k].name, s + nm, i - nm) == 0)
                return ATF_E_FIELD;
        args[n].type = (uint8_t)type;
        args[n].array = (uint8_t)array;
        args[n].name = s + nm;
        args[n].name_len = (uint16_t)(i - nm);
        n++;
        while (i < len && sig_space(s[i]))
            i++;
        if (i == len)
            break;
        if (s[i] != ',')
            return ATF_E_FIELD;
        i++;
        while (i < len && sig_space(s[i]))
            i++;
        if (i == len)
            return ATF_E_FIELD;    /* a comma with no argument after it */
    }
    *nargs = n;
    return ATF_OK;
}

/* ---- File header ------------------------------------------------------------ */

atf_status fz_wtf_header_status(const uint8_t *d, size_t size, int *crash_prefix)
{
    static const uint8_t valid[12] = { 0xEF, 0xBE, 0xAD, 0xDE, 0, 0, 0, 0, 10, 0, 0, 0 };
    *crash_prefix = 0;
    size_t lead = 0;
    while (lead < size && (d[lead] == ' ' || d[lead] == '\t' || d[lead] == '\r' || d[lead] == '\n'))
        lead++;
    /* A JSON form: refused. The codec looks for the '{' after at most 64
     * blanks; beyond that it is a bad magic, refused too. */
    if (lead < size && d[lead] == '{')
        return lead <= 64 ? ATF_E_UNSUPPORTED : ATF_E_MAGIC;
    if (size < 12) {
        int prefix = 1;
        for (size_t i = 0; i < size; i++)
            if ((i < 4 || i >= 8) && d[i] != valid[i])
                prefix = 0;
        if (prefix) {
            *crash_prefix = 1;
            return ATF_OK;
        }
    }
    if (size < 4)
        return ATF_E_TRUNCATED;
    if (fz_le32(d) == ATF_WTF_MAGIC_LEGACY)
        return ATF_E_UNSUPPORTED;
    if (fz_le32(d) != ATF_WTF_MAGIC)
        return ATF_E_MAGIC;
    if (size < 12)
        return ATF_E_TRUNCATED;
    if (fz_le32(d + 8) != ATF_WTF_FORMAT_VERSION)
        return ATF_E_VERSION;
    return ATF_OK;
}

/* ---- The model ----------------------------------------------------------------- */

typedef struct mstate {
    fz_wtf_model *m;
    const uint8_t *d;
    size_t size;
    fz_wtf_def **defs;          /* by wire id, 65536 */
    uint32_t *depth;            /* per zone + 1 */
    int32_t zone;
    size_t cap_ev, cap_owned;
    fz_wtf_strtab **tabs;              /* every string table indexed (owned) */
    size_t ntabs;
} mstate;

/* The built-ins the reader acts on, with their argument types. */
static const struct {
    const char *name;
    unsigned bi;
    size_t nargs;
    uint8_t types[5];
} builtins[] = {
    { "wtf.event#define", FZ_WTF_BI_DEFINE, 5, { T_UINT16, T_UINT16, T_UINT32, T_ASCII, T_ASCII } },
    { "wtf.zone#create", FZ_WTF_BI_ZONE_CREATE, 4, { T_UINT16, T_ASCII, T_ASCII, T_ASCII } },
    { "wtf.zone#set", FZ_WTF_BI_ZONE_SET, 1, { T_UINT16 } },
    { "wtf.scope#leave", FZ_WTF_BI_SCOPE_LEAVE, 0, { 0 } },
};

static void *xcalloc(size_t n, size_t k)
{
    void *p = calloc(n ? n : 1, k);
    FZ_CHECK(p != NULL, "out of memory");
    return p;
}

fz_wtf_def *fz_wtf_def_new(uint32_t wire, uint16_t cls, uint32_t flags, const char *name, size_t nlen,
                           const char *sig, size_t slen, int *undetermined)
{
    fz_wtf_def *d = xcalloc(1, sizeof *d);
    d->name = xcalloc(nlen + 1, 1);
    memcpy(d->name, name, nlen);
    d->signature = xcalloc(slen + 1, 1);
    memcpy(d->signature, sig, slen);
    if (fz_wtf_parse_signature(d->signature, slen, d->args, &d->nargs) != ATF_OK) {
        fz_wtf_def_free(d);
        return NULL;
    }
    d->wire = wire;
    d->event_class = cls;
    d->flags = flags;
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        if (strcmp(builtins[i].name, d->name) != 0)
            continue;
        int same = d->nargs == builtins[i].nargs;
        for (size_t k = 0; same && k < d->nargs; k++)
            same = d->args[k].type == builtins[i].types[k] && !d->args[k].array;
        if (same)
            d->builtin = builtins[i].bi;
        else if (undetermined)
            *undetermined = 1;   /* a built-in's name with other arguments */
    }
    return d;
}

void fz_wtf_def_free(fz_wtf_def *d)
{
    if (d) {
        free(d->name);
        free(d->signature);
        free(d);
    }
}

static fz_wtf_def *def_make(mstate *s, uint32_t wire, uint16_t cls, uint32_t flags, const char *name, size_t nlen,
                            const char *sig, size_t slen)
{
    fz_wtf_def *d = fz_wtf_def_new(wire, cls, flags, name, nlen, sig, slen, &s->m->undetermined);
    if (!d)
        return NULL;
    if (s->m->ndefs_owned == s->cap_owned) {
        s->cap_owned = s->cap_owned ? 2 * s->cap_owned : 64;
        s->m->defs_owned = realloc(s->m->defs_owned, s->cap_owned * sizeof *s->m->defs_owned);
        FZ_CHECK(s->m->defs_owned != NULL, "out of memory");
    }
    s->m->defs_owned[s->m->ndefs_owned++] = d;
    return d;
}

fz_wtf_strtab *fz_wtf_strtab_new(const uint8_t *p, uint32_t size)
{
    fz_wtf_strtab *t = xcalloc(1, sizeof *t);
    t->data = p;
    t->size = size;
    for (uint32_t i = 0; i < size; i++)
        t->count += p[i] == 0;
    t->starts = xcalloc(t->count, sizeof *t->starts);
    for (uint32_t i = 0, k = 0, at = 0; i < size; i++)
        if (p[i] == 0) {
            t->starts[k++] = at;
            at = i + 1;
        }
    return t;
}

void fz_wtf_strtab_free(fz_wtf_strtab *t)
{
    if (t) {
        free(t->starts);
        free(t);
    }
}

static fz_wtf_strtab *strtab_make(mstate *s, const uint8_t *p, uint32_t size)
{
    fz_wtf_strtab *t = fz_wtf_strtab_new(p, size);
    s->tabs = realloc(s->tabs, (s->ntabs + 1) * sizeof *s->tabs);
    FZ_CHECK(s->tabs != NULL, "out of memory");
    s->tabs[s->ntabs++] = t;
    return t;
}

/* String @ord of @t: 1 and the string, 0 for a null one; -1 out of range. */
static int strtab_get(const fz_wtf_strtab *t, uint32_t ord, const uint8_t **str, uint32_t *len)
{
    *str = NULL;
    *len = 0;
    if (ord == ATF_WTF_STRING_NULL)
        return 0;
    if (ord == ATF_WTF_STRING_EMPTY) {
        *str = (const uint8_t *)"";
        *len = 0;
        return 1;
    }
    if (!t || ord >= t->count)
        return -1;
    *str = t->data + t->starts[ord];
    *len = (uint32_t)strlen((const char *)*str);
    return 1;
}

atf_status fz_wtf_model_event(fz_wtf_def *const *defs, const fz_wtf_strtab *t, const uint8_t *b, size_t n, size_t p,
                              uint32_t *size)
{
    if (n - p < 8)
        return ATF_E_TRUNCATED;
    uint32_t wire = fz_le32(b + p);
    const fz_wtf_def *d = wire < 65536 ? defs[wire] : NULL;
    if (!d)
        return ATF_E_NOT_FOUND;
    size_t at = p + 8;
    for (size_t i = 0; i < d->nargs; i++) {
        const fz_wtf_type_info *ti = &fz_wtf_types[d->args[i].type];
        if (n - at < 4)
            return ATF_E_TRUNCATED;
        uint32_t v = fz_le32(b + at);
        if (!d->args[i].array) {
            if (ti->is_string && v != ATF_WTF_STRING_NULL && v != ATF_WTF_STRING_EMPTY && (!t || v >= t->count))
                return ATF_E_RANGE;
            at += 4;
            continue;
        }
        if (v == 0xFFFFFFFFu) {
            at += 4;
            continue;
        }
        if (v & 0x80000000u)
            return ATF_E_LENGTH;
        uint64_t bytes = ((uint64_t)v * ti->elem_size + 3) / 4 * 4;
        if (bytes > n - at - 4)
            return ATF_E_TRUNCATED;
        if (ti->is_string)
            for (uint32_t k = 0; k < v; k++) {
                uint32_t o = fz_le32(b + at + 4 + 4 * (size_t)k);
                if (o != ATF_WTF_STRING_NULL && o != ATF_WTF_STRING_EMPTY && (!t || o >= t->count))
                    return ATF_E_RANGE;
            }
        at += 4 + (size_t)bytes;
    }
    *size = (uint32_t)(at - p);
    return ATF_OK;
}

/* Byte offset of argument @i's slot within the argument bytes @a. */
static size_t arg_offset(const fz_wtf_def *d, const uint8_t *a, size_t i)
{
    size_t at = 0;
    for (size_t k = 0; k < i; k++) {
        uint32_t v = fz_le32(a + at);
        at += 4;
        if (d->args[k].array && v != 0xFFFFFFFFu)
            at += ((size_t)v * fz_wtf_types[d->args[k].type].elem_size + 3) / 4 * 4;
    }
    return at;
}

static void apply(mstate *s, fz_wtf_event *e, const uint8_t *args, const fz_wtf_strtab *t)
{
    const fz_wtf_def *d = e->def;
    uint32_t *depth = &s->depth[s->zone < 0 ? 0 : (uint32_t)s->zone + 1];
    e->zone = s->zone;
    e->depth = *depth;
    switch (d->builtin) {
    case FZ_WTF_BI_DEFINE: {
        uint32_t wire = fz_le16(args), cls = fz_le16(args + 4), flags = fz_le32(args + 8);
        const uint8_t *name, *sig;
        uint32_t nlen, slen;
        strtab_get(t, fz_le32(args + 12), &name, &nlen);
        strtab_get(t, fz_le32(args + 16), &sig, &slen);
        /* WTF-DEF-007, -004 (wire id 0; wire id 1 stays the built-in) and
         * -001 (a signature that does not parse): no definition. */
        if (!name || !nlen || wire == 0 || wire == ATF_WTF_WIRE_DEFINE)
            return;
        fz_wtf_def *nd = def_make(s, wire, (uint16_t)cls, flags, (const char *)name, nlen,
                                  sig ? (const char *)sig : "", sig ? slen : 0);
        if (nd)
            s->defs[wire] = nd;
        return;
    }
    case FZ_WTF_BI_ZONE_CREATE: return;
    case FZ_WTF_BI_ZONE_SET: s->zone = fz_le16(args); return;
    case FZ_WTF_BI_SCOPE_LEAVE:
        if (*depth)
            (*depth)--;
        e->depth = *depth;
        return;
    default:
        if (d->event_class == ATF_WTF_CLASS_SCOPE)
            (*depth)++;
    }
}

/* The events of one buffer; returns 0, or -1 where a bad event stopped it. */
static int model_buffer(mstate *s, uint32_t chunk, uint64_t base, size_t n, int buffer_cut, const fz_wtf_strtab *t,
                        int chunk_cut)
{
    fz_wtf_model *m = s->m;
    const uint8_t *b = s->d + base;
    for (size_t p = 0; p < n;) {
        uint32_t size = 0;
        atf_status r = fz_wtf_model_event(s->defs, t, b, n, p, &size);
        if (r == ATF_E_TRUNCATED && buffer_cut)
            return 0;
        if (r != ATF_OK)
            return -1;
        if (m->events == s->cap_ev) {
            s->cap_ev = s->cap_ev ? 2 * s->cap_ev : 256;
            m->ev = realloc(m->ev, s->cap_ev * sizeof *m->ev);
            FZ_CHECK(m->ev != NULL, "out of memory");
        }
        fz_wtf_event *e = &m->ev[m->events++];
        memset(e, 0, sizeof *e);
        e->offset = base + p;
        e->size = size;
        e->wire = fz_le32(b + p);
        e->time = fz_le32(b + p + 4);
        e->chunk = chunk;
        e->def = s->defs[e->wire];
        e->strings = t ? t->data : NULL;
        e->strings_size = t ? t->size : 0;
        if (chunk_cut)
            m->events_in_cut_chunk++;
        apply(s, e, b + p + 8, t);
        p += size;
    }
    return 0;
}

/* SPEC-WTF 2.1: a part table whose parts are misaligned or run outside the
 * chunk's body (CHK-004, CHK-005) or overlap (CHK-006); *parts_end: where
 * the last part ends, aligned to 4. */
static int parts_bad(const uint8_t *c, uint32_t nparts, uint64_t body, uint64_t *parts_end)
{
    for (uint32_t i = 0; i < nparts; i++) {
        const uint8_t *e = c + 24 + 12 * (size_t)i;
        uint64_t off = fz_le32(e + 4), len = fz_le32(e + 8);
        if (off % 4 || off + len > body)
            return 1;                   /* CHK-004, CHK-005 */
        for (uint32_t j = 0; j < i; j++) {
            const uint8_t *f = c + 24 + 12 * (size_t)j;
            uint64_t o2 = fz_le32(f + 4), l2 = fz_le32(f + 8);
            if (len && l2 && off < o2 + l2 && o2 < off + len)
                return 1;               /* CHK-006 */
        }
        if ((off + len + 3) / 4 * 4 > *parts_end)
            *parts_end = (off + len + 3) / 4 * 4;
    }
    return 0;
}

/* The file-header JSON: the first file-header part of the first chunk
 * (at c, avail bytes left in the file), when its bytes are all in the file. */
static void note_header_json(fz_wtf_model *m, const uint8_t *c, uint32_t nparts, uint64_t table, uint64_t avail)
{
    for (uint32_t i = 0; i < nparts; i++) {
        const uint8_t *e = c + 24 + 12 * (size_t)i;
        if (fz_le32(e) != ATF_WTF_PART_FILE_HEADER)
            continue;
        if (table + fz_le32(e + 4) + fz_le32(e + 8) <= avail) {
            m->header_json = c + table + fz_le32(e + 4);
            m->header_json_len = fz_le32(e + 8);
        }
        return;
    }
}

/* The events of an event-data chunk at pos, read up to avail_end: its first
 * binary-events part, when its first string table is whole. Returns 0, or
 * -1 where a bad event stopped it. */
static int model_event_chunk(mstate *s, uint32_t index, uint64_t pos, uint32_t nparts, uint64_t table,
                             uint64_t avail_end, int chunk_cut)
{
    const uint8_t *c = s->d + pos, *st = NULL, *ev = NULL;
    for (uint32_t i = 0; i < nparts; i++) {
        const uint8_t *e = c + 24 + 12 * (size_t)i;
        if (fz_le32(e) == ATF_WTF_PART_STRING_TABLE && !st)
            st = e;
        else if (fz_le32(e) == ATF_WTF_PART_BINARY_EVENTS && !ev)
            ev = e;
    }
    uint64_t st_at = st ? pos + table + fz_le32(st + 4) : 0, st_len = st ? fz_le32(st + 8) : 0;
    int strings_whole = !st || st_at + st_len <= avail_end;
    uint64_t ev_at = ev ? pos + table + fz_le32(ev + 4) : 0, ev_len = ev ? fz_le32(ev + 8) : 0;
    if (!ev || !strings_whole || ev_at >= avail_end)
        return 0;
    const fz_wtf_strtab *t = st ? strtab_make(s, s->d + st_at, (uint32_t)st_len) : NULL;
    uint64_t n = ev_at + ev_len <= avail_end ? ev_len : avail_end - ev_at;
    return model_buffer(s, index, ev_at, (size_t)n, n < ev_len, t, chunk_cut);
}

/* The reading state of a file: no zone, only wtf.event#define defined. */
static void mstate_init(mstate *s, fz_wtf_model *m, const uint8_t *d, size_t size)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->d = d;
    s->size = size;
    s->zone = -1;
    s->defs = xcalloc(65536, sizeof *s->defs);
    s->depth = xcalloc(65537, sizeof *s->depth);
    static const char define_sig[] = "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args";
    s->defs[ATF_WTF_WIRE_DEFINE] = def_make(s, ATF_WTF_WIRE_DEFINE, 0, ATF_WTF_FLAG_BUILTIN | ATF_WTF_FLAG_INTERNAL,
                                            "wtf.event#define", 16, define_sig, sizeof define_sig - 1);
}

fz_wtf_model fz_wtf_model_of(const uint8_t *d, size_t size)
{
    fz_wtf_model m;
    memset(&m, 0, sizeof m);
    int prefix;
    m.open_status = fz_wtf_header_status(d, size, &prefix);
    if (m.open_status != ATF_OK)
        return m;
    if (prefix) {
        m.header_cut = 1;
        m.cut = 1;
        m.state = ATF_WTF_CRASH_TRUNCATED;
        return m;
    }
    mstate s;
    mstate_init(&s, &m, d, size);
    int damaged = 0;
    uint64_t pos = ATF_WTF_FILE_HEADER_SIZE;
    size_t cap_chunks = 0;
    for (uint32_t index = 0;; index++) {
        if (pos >= size) {
            m.cut |= m.chunks == 0;     /* the file header alone */
            break;
        }
        if (fz_all_zero(d + pos, size - pos)) {
            m.cut = 1;                  /* SPEC-WTF 6.4 */
            break;
        }
        uint64_t avail = size - pos;
        const uint8_t *c = d + pos;
        if (avail < 24) {
            m.cut = 1;
            break;
        }
        uint32_t type = fz_le32(c + 4), length = fz_le32(c + 8), nparts = fz_le32(c + 20);
        uint64_t table = 24 + 12 * (uint64_t)nparts;
        /* SPEC-WTF 6: a length shorter than the header and table (CHK-001)
         * costs everything from the chunk on; a broken part table (more than
         * 64 parts, CHK-004..006) costs the chunk when its length still
         * places the next one inside the file. */
        int bad = 0;
        if (nparts <= 64) {
            if (length < table) {
                damaged = 1;
                m.chunks_skipped++;
                break;
            }
            if (avail < table) {
                m.cut = 1;
                damaged |= length % 4 != 0;   /* CHK-002 in a whole header */
                break;
            }
        } else {
            bad = 1;
        }
        uint64_t parts_end = 0;
        bad = bad || parts_bad(c, nparts, length - table, &parts_end);
        if (bad) {
            damaged = 1;
            m.chunks_skipped++;
            if (length % 4 == 0 && length >= table && length <= avail) {
                pos += length;
                continue;
            }
            break;
        }
        int chunk_cut = length > avail;
        if (index == 0 && type == ATF_WTF_CHUNK_FILE_HEADER)
            note_header_json(&m, c, nparts, table, size - pos);
        /* Read, and nothing after it: a length that is not a multiple of 4
         * (CHK-002), or one that runs past the end while the parts end inside
         * the file and other bytes follow (CHK-003, read to the file's end). */
        int last = length % 4 != 0;
        if (chunk_cut && table + parts_end <= avail && !fz_all_zero(c + table + parts_end, avail - table - parts_end)) {
            chunk_cut = 0;
            last = 2;
        }
        damaged |= last != 0;
        if (m.chunks == cap_chunks) {
            cap_chunks = cap_chunks ? 2 * cap_chunks : 16;
            m.chunk = realloc(m.chunk, cap_chunks * sizeof *m.chunk);
            FZ_CHECK(m.chunk != NULL, "out of memory");
        }
        m.chunk[m.chunks].offset = pos;
        m.chunk[m.chunks].index = index;
        m.chunks++;
        if (type == ATF_WTF_CHUNK_EVENT_DATA) {
            m.event_chunks++;
            uint64_t avail_end = chunk_cut || last == 2 ? size : pos + length;
            if (model_event_chunk(&s, index, pos, nparts, table, avail_end, chunk_cut) < 0) {
                damaged = 1;
                m.chunks_skipped++;
            }
        }
        if (last)
            break;
        if (chunk_cut) {
            m.cut = 1;
            break;
        }
        pos += length;
    }
    m.state = damaged ? ATF_WTF_DAMAGED : m.cut ? ATF_WTF_CRASH_TRUNCATED : ATF_WTF_COMPLETE;
    free(s.defs);
    free(s.depth);
    /* The events keep their table's bytes; the checks index them again. */
    for (size_t i = 0; i < s.ntabs; i++)
        fz_wtf_strtab_free(s.tabs[i]);
    free(s.tabs);
    return m;
}

void fz_wtf_model_free(fz_wtf_model *m)
{
    for (size_t i = 0; i < m->ndefs_owned; i++)
        fz_wtf_def_free(m->defs_owned[i]);
    free(m->defs_owned);
    free(m->ev);
    free(m->chunk);
    memset(m, 0, sizeof *m);
}

/* ---- Checks of the reader --------------------------------------------------------- */

/* The value of argument slot @p (type @type, scalar) as the spec reads it,
 * against what the codec decoded. */
static void check_scalar(const atf_wtf_value *v, uint8_t type, const uint8_t *p, const fz_wtf_strtab *t, const char *what)
{
    FZ_CHECK(v->type == fz_wtf_types[type].codec && !v->array, "%s: type %d, not %s", what, (int)v->type,
             fz_wtf_types[type].name);
    uint8_t b0 = p[0];
    uint16_t u16 = fz_le16(p);
    uint32_t u32 = fz_le32(p);
    switch (type) {
    case T_BOOL: FZ_CHECK(v->u == (b0 != 0), "%s: bool %llu, byte %u", what, (unsigned long long)v->u, b0); break;
    case T_INT8: FZ_CHECK(v->i == (int8_t)b0, "%s: int8 %lld", what, (long long)v->i); break;
    case T_UINT8:
    case T_CHAR: FZ_CHECK(v->u == b0, "%s: uint8/char %llu, byte %u", what, (unsigned long long)v->u, b0); break;
    case T_INT16: FZ_CHECK(v->i == (int16_t)u16, "%s: int16 %lld", what, (long long)v->i); break;
    case T_UINT16:
    case T_WCHAR: FZ_CHECK(v->u == u16, "%s: uint16/wchar %llu", what, (unsigned long long)v->u); break;
    case T_INT32: FZ_CHECK(v->i == (int32_t)u32, "%s: int32 %lld", what, (long long)v->i); break;
    case T_UINT32:
    case T_FLOWID:
    case T_TIME32: FZ_CHECK(v->u == u32, "%s: u32 %llu, bytes %u", what, (unsigned long long)v->u, u32); break;
    case T_FLOAT32: {
        float f;
        memcpy(&f, &u32, 4);
        FZ_CHECK((isnan(f) && isnan(v->f)) || (v->f == (double)f && !signbit(v->f) == !signbit(f)),
                 "%s: float32 %.9g, bytes 0x%08x", what, v->f, u32);
        break;
    }
    default: {
        const uint8_t *str;
        uint32_t len;
        int r = strtab_get(t, u32, &str, &len);
        FZ_CHECK(r >= 0, "%s: the codec decoded ordinal %u outside the table", what, u32);
        FZ_CHECK(v->u == u32 && v->is_null == (r == 0), "%s: ordinal %llu, null %u", what, (unsigned long long)v->u,
                 v->is_null);
        if (r == 0)
            FZ_CHECK(v->s == NULL, "%s: a null string with text", what);
        else
            FZ_CHECK(v->s && v->s_len == len && memcmp(v->s, str, len) == 0 && v->s[len] == 0,
                     "%s: string %u bytes, the table has %u", what, v->s_len, len);
    }
    }
}

static void check_event_args(const atf_wtf_reader *r, const atf_wtf_event *ev, const fz_wtf_event *me,
                             const fz_wtf_strtab *t)
{
    const fz_wtf_def *d = me->def;
    const uint8_t *a = ev->args;
    char what[96];
    for (size_t i = 0; i < d->nargs; i++) {
        snprintf(what, sizeof what, "event at %llu, argument %zu", (unsigned long long)me->offset, i);
        atf_wtf_value v;
        atf_error err;
        FZ_CHECK(atf_wtf_event_arg(r, ev, i, &v, &err) == ATF_OK, "%s: not decoded", what);
        size_t at = arg_offset(d, a, i);
        const uint8_t *slot = a + at;
        uint8_t type = d->args[i].type;
        if (!d->args[i].array) {
            check_scalar(&v, type, slot, t, what);
            continue;
        }
        uint32_t n = fz_le32(slot);
        FZ_CHECK(v.array && v.type == fz_wtf_types[type].codec, "%s: not an array of %s", what,
                 fz_wtf_types[type].name);
        FZ_CHECK(v.is_null == (n == 0xFFFFFFFFu) && v.count == (n == 0xFFFFFFFFu ? 0 : n),
                 "%s: array count %u (null %u), stored %u", what, v.count, v.is_null, n);
        FZ_CHECK(v.is_null || v.elems == slot + 4, "%s: elements not at their bytes", what);
        unsigned es = fz_wtf_types[type].elem_size;
        FZ_CHECK(atf_wtf_elem_size(v.type) == es, "%s: element size %u, not %u", what, atf_wtf_elem_size(v.type), es);
        atf_wtf_value e;
        for (uint32_t k = 0; k < v.count; k++) {
            FZ_CHECK(atf_wtf_array_elem(&v, k, atf_wtf_reader_strings(r), &e) == ATF_OK, "%s: element %u", what, k);
            uint8_t tmp[4] = { 0, 0, 0, 0 };
            memcpy(tmp, slot + 4 + (size_t)k * es, es);
            check_scalar(&e, type, tmp, t, what);
        }
        FZ_CHECK(atf_wtf_array_elem(&v, v.count, atf_wtf_reader_strings(r), &e) == ATF_E_RANGE,
                 "%s: element past the end", what);
    }
    atf_wtf_value v;
    FZ_CHECK(atf_wtf_event_arg(r, ev, d->nargs, &v, NULL) == ATF_E_RANGE, "argument past the last one");
}

/* The reader refused @what: a proper error record, in a damaged file. */
static void check_refusal(const atf_error *e, atf_status st, const char *what, const fz_wtf_model *m)
{
    fz_check_error(e, st, what);
    FZ_CHECK(m->state == ATF_WTF_DAMAGED, "%s refused (%s) in a file the rules call %s", what, e->message,
             m->state == ATF_WTF_COMPLETE ? "complete" : "crash-truncated");
}

/* What the reader makes of a file, read with no model: every chunk, event,
 * argument and array element, with the invariants that need no model (error
 * records, events inside the file, every value decodes, the summary's
 * counts are what it returned). The validator and dump checks compare with
 * these, and so does the reader check when the model is undetermined. */
typedef struct reader_facts {
    atf_status open;
    atf_wtf_summary sum;
    uint64_t chunks, events, refusals;
} reader_facts;

static reader_facts walk_reader(const uint8_t *d, size_t size)
{
    reader_facts f;
    memset(&f, 0, sizeof f);
    atf_wtf_reader *r = NULL;
    atf_error err;
    f.open = atf_wtf_reader_open_memory(&r, d, size, "fuzz.wtf-trace", &err);
    if (f.open != ATF_OK) {
        fz_check_error(&err, f.open, "WTF open");
        return f;
    }
    const atf_wtf_chunk *c;
    atf_status st;
    while ((st = atf_wtf_reader_next_chunk(r, &c, &err)) != ATF_E_NOT_FOUND) {
        if (st != ATF_OK) {
            fz_check_error(&err, st, "next_chunk");
            f.refusals++;
            continue;
        }
        f.chunks++;
        atf_wtf_event ev;
        while ((st = atf_wtf_reader_next_event(r, &ev, &err)) != ATF_E_NOT_FOUND) {
            if (st != ATF_OK) {
                fz_check_error(&err, st, "next_event");
                f.refusals++;
                break;
            }
            f.events++;
            FZ_CHECK(ev.offset + ev.size <= size && ev.size >= 8 && ev.def, "event at %llu: %u bytes",
                     (unsigned long long)ev.offset, ev.size);
            atf_wtf_value v, e;
            for (size_t i = 0; i < ev.def->arg_count; i++) {
                FZ_CHECK(atf_wtf_event_arg(r, &ev, i, &v, NULL) == ATF_OK, "event at %llu: argument %zu",
                         (unsigned long long)ev.offset, i);
                for (uint32_t k = 0; v.array && k < v.count; k++)
                    FZ_CHECK(atf_wtf_array_elem(&v, k, atf_wtf_reader_strings(r), &e) == ATF_OK, "element %u", k);
            }
        }
    }
    atf_wtf_reader_summary(r, &f.sum);
    FZ_CHECK(f.sum.chunks == f.chunks && f.sum.events == f.events && f.sum.chunks_skipped == f.refusals,
             "summary: %llu chunks, %llu events, %llu skipped; returned %llu, %llu, %llu error(s)",
             (unsigned long long)f.sum.chunks, (unsigned long long)f.sum.events,
             (unsigned long long)f.sum.chunks_skipped, (unsigned long long)f.chunks, (unsigned long long)f.events,
             (unsigned long long)f.refusals);
    atf_wtf_reader_close(r);
    return f;
}

/* The chunk c as its bytes say: header fields, part entries, cut flag. */
static void check_chunk_fields(atf_wtf_reader *r, const atf_wtf_chunk *c, const uint8_t *d, size_t size)
{
    const uint8_t *b = d + c->offset;
    FZ_CHECK(c->offset + 24 <= size && c->id == fz_le32(b) && c->type == fz_le32(b + 4) &&
                 c->length == fz_le32(b + 8) && c->start_time == fz_le32(b + 12) &&
                 c->end_time == fz_le32(b + 16) && c->part_count == fz_le32(b + 20),
             "chunk at %llu: header fields", (unsigned long long)c->offset);
    for (uint32_t i = 0; i < c->part_count; i++) {
        const uint8_t *e = b + 24 + 12 * (size_t)i;
        const atf_wtf_part *p = &c->parts[i];
        FZ_CHECK(p->type == fz_le32(e) && p->offset == fz_le32(e + 4) && p->length == fz_le32(e + 8) &&
                     p->file_offset == c->offset + 24 + 12 * (uint64_t)c->part_count + p->offset,
                 "chunk at %llu: part %u", (unsigned long long)c->offset, i);
    }
    /* Cut (a crash) when it runs past the end, unless that is a wrong
     * length (CHK-003: a damaged file). */
    FZ_CHECK(!atf_wtf_reader_chunk_cut(r) || c->length > size - c->offset, "chunk at %llu: cut flag",
             (unsigned long long)c->offset);
}

/* Event number k read (ev) against the model's (me): place, string table
 * (*t: the one the rules pick, renewed when the event's changes),
 * definition, zone, depth and arguments. */
static void check_one_event(atf_wtf_reader *r, const atf_wtf_event *ev, const fz_wtf_event *me, const uint8_t *d,
                            uint64_t k, fz_wtf_strtab **t)
{
    FZ_CHECK(ev->offset == me->offset && ev->size == me->size && ev->wire_id == me->wire && ev->time == me->time &&
                 ev->chunk == me->chunk,
             "event %llu: at %llu size %u wire %u chunk %u; the rules: at %llu size %u wire %u chunk %u",
             (unsigned long long)k, (unsigned long long)ev->offset, ev->size, ev->wire_id, ev->chunk,
             (unsigned long long)me->offset, me->size, me->wire, me->chunk);
    FZ_CHECK(ev->args == d + me->offset + 8, "event %llu: argument bytes", (unsigned long long)k);
    if (!*t || (*t)->data != me->strings) {
        /* The chunk's string table: the one the rules pick. */
        const atf_wtf_strings *rs = atf_wtf_reader_strings(r);
        fz_wtf_strtab_free(*t);
        *t = me->strings ? fz_wtf_strtab_new(me->strings, me->strings_size) : NULL;
        FZ_CHECK((const uint8_t *)rs->data == me->strings && rs->size == me->strings_size &&
                     rs->count == (*t ? (*t)->count : 0),
                 "chunk %u: string table at %p (%u bytes, %u strings), the rules: %p (%u bytes, %u NULs)", me->chunk,
                 (const void *)rs->data, rs->size, rs->count, (const void *)me->strings, me->strings_size,
                 *t ? (*t)->count : 0);
    }
    const atf_wtf_def *def = ev->def;
    FZ_CHECK(def && strcmp(def->name, me->def->name) == 0 && def->arg_count == me->def->nargs &&
                 def->event_class == me->def->event_class && def->flags == me->def->flags,
             "event at %llu: defined as %s (%zu args), the rules say %s (%zu)", (unsigned long long)ev->offset,
             def ? def->name : "?", def ? def->arg_count : 0, me->def->name, me->def->nargs);
    for (size_t i = 0; i < me->def->nargs; i++)
        FZ_CHECK(def->args[i].type == fz_wtf_types[me->def->args[i].type].codec &&
                     def->args[i].array == me->def->args[i].array &&
                     strlen(def->args[i].name) == me->def->args[i].name_len &&
                     memcmp(def->args[i].name, me->def->args[i].name, me->def->args[i].name_len) == 0,
                 "event at %llu: argument %zu of the definition", (unsigned long long)ev->offset, i);
    FZ_CHECK(ev->zone == me->zone && ev->depth == me->depth,
             "event at %llu (%s): zone %d depth %u, the rules say zone %d depth %u", (unsigned long long)ev->offset,
             me->def->name, (int)ev->zone, ev->depth, (int)me->zone, me->depth);
    FZ_CHECK(atf_wtf_reader_def(r, ev->wire_id) == ev->def, "reader_def(%u)", ev->wire_id);
    check_event_args(r, ev, me, *t);
}

/* The events of chunk c, each against the model's next (*nev so far);
 * counts an error return in *refusals. */
static void check_chunk_events(atf_wtf_reader *r, const atf_wtf_chunk *c, const uint8_t *d, size_t size,
                               const fz_wtf_model *m, uint64_t *nev, uint64_t *refusals)
{
    fz_wtf_strtab *t = NULL;
    atf_wtf_event ev;
    for (;;) {
        atf_error ee;
        atf_status st = atf_wtf_reader_next_event(r, &ev, &ee);
        if (st == ATF_E_NOT_FOUND)
            break;
        if (st != ATF_OK) {
            check_refusal(&ee, st, "an event", m);
            FZ_CHECK(ee.offset >= c->offset && ee.offset <= size, "error offset %llu outside the chunk",
                     (unsigned long long)ee.offset);
            (*refusals)++;
            FZ_CHECK(atf_wtf_reader_next_event(r, &ev, &ee) == ATF_E_NOT_FOUND, "reading on in a bad chunk");
            break;
        }
        FZ_CHECK(*nev < m->events, "%zu-byte file: event %llu at %llu, the rules have %llu events", size,
                 (unsigned long long)*nev, (unsigned long long)ev.offset, (unsigned long long)m->events);
        check_one_event(r, &ev, &m->ev[*nev], d, *nev, &t);
        (*nev)++;
    }
    fz_wtf_strtab_free(t);
}

/* The reader's summary after the walk against the model's. */
static void check_summary(atf_wtf_reader *r, const fz_wtf_model *m, size_t size, uint64_t refusals)
{
    atf_wtf_summary sum;
    atf_wtf_reader_summary(r, &sum);
    static const char *const states[] = { "complete", "crash-truncated", "damaged" };
    FZ_CHECK(sum.state == m->state, "reader says %s, the rules say %s", states[sum.state], states[m->state]);
    FZ_CHECK(sum.file_size == size && sum.chunks == m->chunks && sum.event_chunks == m->event_chunks &&
                 sum.events == m->events && sum.events_in_cut_chunk == m->events_in_cut_chunk &&
                 sum.chunks_skipped == m->chunks_skipped,
             "summary: %llu chunks (%llu of events), %llu events (%llu cut), %llu skipped; the rules: %llu (%llu), "
             "%llu (%llu), %llu",
             (unsigned long long)sum.chunks, (unsigned long long)sum.event_chunks, (unsigned long long)sum.events,
             (unsigned long long)sum.events_in_cut_chunk, (unsigned long long)sum.chunks_skipped,
             (unsigned long long)m->chunks, (unsigned long long)m->event_chunks, (unsigned long long)m->events,
             (unsigned long long)m->events_in_cut_chunk, (unsigned long long)m->chunks_skipped);
    FZ_CHECK(sum.bytes_unread <= size, "bytes_unread %llu", (unsigned long long)sum.bytes_unread);
    FZ_CHECK((sum.first_damage.code != ATF_OK) == (sum.state == ATF_WTF_DAMAGED),
             "first_damage %s in a %s file", atf_status_name(sum.first_damage.code), states[sum.state]);
    /* Every chunk skipped, whole or from a bad event on, was an error return
     * (a CHK-002/-003 chunk is read: its damage is in the summary only). */
    FZ_CHECK(refusals == m->chunks_skipped, "%llu error returns for %llu chunks skipped",
             (unsigned long long)refusals, (unsigned long long)m->chunks_skipped);
    if (sum.state == ATF_WTF_DAMAGED)
        fz_check_error(&sum.first_damage, sum.first_damage.code, "first damage");
}

/* ---- The reader in parts against the model ------------------------------ */

typedef struct part_ev {
    uint64_t offset;
    uint32_t size, wire, time, chunk, depth;
    int32_t zone;
} part_ev;

/* What one part's reader gave (atf_wtf_read_parts_memory, on its thread). */
typedef struct part_rec {
    part_ev *ev;
    size_t n, cap;
    uint64_t chunks, refusals;
    int oom;
} part_rec;

static atf_status record_part(void *user, const atf_wtf_read_part *part)
{
    part_rec *pr = (part_rec *)user + part->index;
    atf_wtf_reader *r = part->reader;
    const atf_wtf_chunk *c;
    atf_error e;
    atf_status st;
    atf_wtf_event evs[5];   /* small batches: their ends fall everywhere */
    size_t got;
    while ((st = atf_wtf_reader_next_chunk(r, &c, &e)) != ATF_E_NOT_FOUND) {
        if (st != ATF_OK) {
            pr->refusals++;
            continue;
        }
        pr->chunks++;
        while ((st = atf_wtf_reader_next_events(r, evs, 5, &got, &e)) == ATF_OK)
            for (size_t k = 0; k < got; k++) {
                if (pr->n == pr->cap) {
                    size_t cap = pr->cap * 2 + 64;
                    part_ev *ne = (part_ev *)realloc(pr->ev, cap * sizeof *ne);
                    if (!ne) {
                        pr->oom = 1;
                        return ATF_E_NOMEM;
                    }
                    pr->ev = ne;
                    pr->cap = cap;
                }
                const atf_wtf_event *v = &evs[k];
                pr->ev[pr->n++] = (part_ev){ v->offset, v->size, v->wire_id, v->time, v->chunk, v->depth, v->zone };
            }
        if (st != ATF_E_NOT_FOUND)
            pr->refusals++;
    }
    return ATF_OK;
}

/* @d read in 3 parts side by side (atf_wtf_read_parts_memory: later parts
 * start with the state scanned ahead or read again) gives the model's
 * chunks, events (place, wire id, time, zone, depth), error returns and
 * summary, as one reader does. */
static void check_reader_parts(const uint8_t *d, size_t size, const fz_wtf_model *m)
{
    part_rec pr[3];
    memset(pr, 0, sizeof pr);
    atf_wtf_summary sum;
    atf_error err;
    atf_status st = atf_wtf_read_parts_memory(d, size, "fuzz.wtf-trace", 3, record_part, pr, &sum, &err);
    int oom = pr[0].oom || pr[1].oom || pr[2].oom;
    if (st == ATF_E_NOMEM || oom) {
        for (int i = 0; i < 3; i++)
            free(pr[i].ev);
        return;
    }
    FZ_CHECK(st == m->open_status, "in parts: open returned %s, the rules say %s", atf_status_name(st),
             atf_status_name(m->open_status));
    uint64_t k = 0, chunks = 0, refusals = 0;
    for (int i = 0; i < 3 && st == ATF_OK; i++) {
        chunks += pr[i].chunks;
        refusals += pr[i].refusals;
        for (size_t j = 0; j < pr[i].n; j++, k++) {
            const part_ev *v = &pr[i].ev[j];
            FZ_CHECK(k < m->events, "in parts: event %llu at %llu, the rules have %llu events", (unsigned long long)k,
                     (unsigned long long)v->offset, (unsigned long long)m->events);
            const fz_wtf_event *me = &m->ev[k];
            FZ_CHECK(v->offset == me->offset && v->size == me->size && v->wire == me->wire && v->time == me->time &&
                         v->chunk == me->chunk && v->zone == me->zone && v->depth == me->depth,
                     "in parts (part %d): event %llu at %llu wire %u chunk %u zone %d depth %u; the rules: at %llu "
                     "wire %u chunk %u zone %d depth %u",
                     i, (unsigned long long)k, (unsigned long long)v->offset, v->wire, v->chunk, (int)v->zone, v->depth,
                     (unsigned long long)me->offset, me->wire, me->chunk, (int)me->zone, me->depth);
        }
    }
    for (int i = 0; i < 3; i++)
        free(pr[i].ev);
    if (st != ATF_OK)
        return;
    FZ_CHECK(k == m->events && chunks == m->chunks && refusals == m->chunks_skipped,
             "in parts: %llu events, %llu chunks, %llu error returns; the rules say %llu, %llu, %llu skipped",
             (unsigned long long)k, (unsigned long long)chunks, (unsigned long long)refusals,
             (unsigned long long)m->events, (unsigned long long)m->chunks, (unsigned long long)m->chunks_skipped);
    FZ_CHECK(sum.state == m->state && sum.file_size == size && sum.chunks == m->chunks &&
                 sum.event_chunks == m->event_chunks && sum.events == m->events &&
                 sum.events_in_cut_chunk == m->events_in_cut_chunk && sum.chunks_skipped == m->chunks_skipped,
             "in parts: summary (state %d, %llu chunks, %llu events, %llu skipped) is not the rules' (state %d, "
             "%llu, %llu, %llu)",
             (int)sum.state, (unsigned long long)sum.chunks, (unsigned long long)sum.events,
             (unsigned long long)sum.chunks_skipped, (int)m->state, (unsigned long long)m->chunks,
             (unsigned long long)m->events, (unsigned long long)m->chunks_skipped);
}

void fz_wtf_check_reader(const uint8_t *d, size_t size, const fz_wtf_model *m)
{
    if (m->undetermined) {
        /* A built-in's name with other arguments: the model vouches for the
         * file header only; the reader is walked for its own invariants. */
        reader_facts f = walk_reader(d, size);
        FZ_CHECK(f.open == m->open_status, "open returned %s, the rules say %s", atf_status_name(f.open),
                 atf_status_name(m->open_status));
        return;
    }
    atf_wtf_reader *r = NULL;
    atf_error err;
    atf_status st = atf_wtf_reader_open_memory(&r, d, size, "fuzz.wtf-trace", &err);
    FZ_CHECK(st == m->open_status, "open returned %s, the rules say %s", atf_status_name(st),
             atf_status_name(m->open_status));
    if (st != ATF_OK) {
        fz_check_error(&err, st, "WTF open");
        FZ_CHECK(r == NULL && strcmp(err.file, "fuzz.wtf-trace") == 0, "failed open: reader or file name");
        return;
    }
    size_t hl = 0;
    const char *hj = atf_wtf_reader_header_json(r, &hl);
    FZ_CHECK((const uint8_t *)hj == m->header_json && hl == m->header_json_len,
             "file-header JSON at %p (%zu bytes), the rules say %p (%zu)", (const void *)hj, hl,
             (const void *)m->header_json, m->header_json_len);
    const atf_wtf_file_header *h = atf_wtf_reader_header(r);
    if (size >= 12)
        FZ_CHECK(h->magic == fz_le32(d) && h->wtf_version == fz_le32(d + 4) && h->format_version == fz_le32(d + 8),
                 "file header fields");

    uint64_t nev = 0, nchunks = 0;
    uint64_t refusals = 0;   /* error returns: a chunk or the rest of a chunk skipped */
    for (;;) {
        const atf_wtf_chunk *c;
        atf_error ce;
        st = atf_wtf_reader_next_chunk(r, &c, &ce);
        if (st == ATF_E_NOT_FOUND)
            break;
        if (st != ATF_OK) {
            /* A chunk skipped (SPEC-WTF 6): the reader may go on. */
            check_refusal(&ce, st, "a chunk header", m);
            refusals++;
            continue;
        }
        FZ_CHECK(nchunks < m->chunks && c->offset == m->chunk[nchunks].offset && c->index == m->chunk[nchunks].index,
                 "%zu-byte file: chunk %u at %llu is not the rules' chunk %llu of %llu", size, c->index,
                 (unsigned long long)c->offset, (unsigned long long)nchunks, (unsigned long long)m->chunks);
        nchunks++;
        check_chunk_fields(r, c, d, size);
        check_chunk_events(r, c, d, size, m, &nev, &refusals);
    }
    FZ_CHECK(nev == m->events && nchunks == m->chunks,
             "%zu-byte file: %llu events in %llu chunks read, the rules say %llu in %llu", size,
             (unsigned long long)nev, (unsigned long long)nchunks, (unsigned long long)m->events,
             (unsigned long long)m->chunks);
    check_summary(r, m, size, refusals);
    atf_wtf_reader_close(r);
}

void fz_wtf_check_reader_parts(const uint8_t *d, size_t size, const fz_wtf_model *m)
{
    if (!m->undetermined)
        check_reader_parts(d, size, m);
}

/* ---- Checks of the validator ------------------------------------------------------- */

static int is_damage_clause(const char *id)
{
    static const char *const stop[] = { "WTF-CHK-001", "WTF-CHK-002", "WTF-CHK-003", "WTF-CHK-004", "WTF-CHK-005",
                                        "WTF-CHK-006", "WTF-EVT-001", "WTF-EVT-002", "WTF-EVT-003", "WTF-EVT-004" };
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++)
        if (strcmp(id, stop[i]) == 0)
            return 1;
    return 0;
}

void fz_wtf_check_validator(const uint8_t *d, size_t size, const fz_wtf_model *m)
{
    atf_validation *v[2] = { NULL, NULL };
    for (int run = 0; run < 2; run++) {
        atf_error err;
        atf_status st = atf_validate_wtf_memory(&v[run], d, size, "fuzz.wtf-trace", NULL, &err);
        FZ_CHECK(st == ATF_OK && v[run], "the validator did not run: %s", atf_status_name(st));
    }
    size_t n = atf_validation_finding_count(v[0]);
    FZ_CHECK(n == atf_validation_finding_count(v[1]), "two runs, %zu and %zu findings", n,
             atf_validation_finding_count(v[1]));
    int refused = 0, damage = 0, rec = 0;
    const char *damage_clause = NULL;
    uint64_t errors = 0, warnings = 0;
    for (size_t i = 0; i < n; i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v[0], i), *g = atf_validation_finding_at(v[1], i);
        FZ_CHECK(strncmp(f->clause, "WTF-", 4) == 0 && atf_clause_find(f->clause) != NULL, "finding of clause %s",
                 f->clause);
        FZ_CHECK(f->severity == ATF_SEV_ERROR || f->severity == ATF_SEV_WARNING, "severity");
        FZ_CHECK(f->offset == ATF_VALIDATE_NO_OFFSET || f->offset <= size, "%s at offset %llu of a %zu-byte file",
                 f->clause, (unsigned long long)f->offset, size);
        FZ_CHECK(f->message && f->message[0] && !strchr(f->message, '\n'), "%s: message not one line", f->clause);
        FZ_CHECK(strcmp(f->clause, g->clause) == 0 && f->offset == g->offset && strcmp(f->message, g->message) == 0,
                 "finding %zu differs between two runs", i);
        errors += f->severity == ATF_SEV_ERROR;
        warnings += f->severity == ATF_SEV_WARNING;
        if (strcmp(f->clause, "WTF-HDR-001") == 0 || strcmp(f->clause, "WTF-HDR-002") == 0)
            refused = 1;
        if (is_damage_clause(f->clause)) {
            FZ_CHECK(f->severity == ATF_SEV_ERROR, "%s is not an error", f->clause);
            damage = 1;
            damage_clause = damage_clause ? damage_clause : f->clause;
        }
        if (strcmp(f->clause, "WTF-REC-001") == 0) {
            FZ_CHECK(f->severity == ATF_SEV_WARNING, "WTF-REC-001 is not a warning");
            rec = 1;
        }
    }
    uint64_t e1, w1;
    atf_validation_counts(v[0], &e1, &w1);
    FZ_CHECK(e1 >= errors && w1 >= warnings && atf_validation_conformant(v[0]) == (e1 == 0), "counts and verdict");
    static const char *const states[] = { "complete", "crash-truncated", "damaged" };
    /* Against the reader itself (the model agrees with it unless it is
     * undetermined: fz_wtf_check_reader). */
    reader_facts rf = walk_reader(d, size);
    FZ_CHECK(rf.open == m->open_status, "reader open %s, the rules say %s", atf_status_name(rf.open),
             atf_status_name(m->open_status));
    FZ_CHECK(refused == (rf.open != ATF_OK), "validator %s the file header, the reader %s",
             refused ? "refuses" : "accepts", rf.open != ATF_OK ? "refuses it" : "opens the file");
    if (!refused) {
        atf_wtf_state state = rf.sum.state;
        FZ_CHECK(damage == (state == ATF_WTF_DAMAGED), "validator: %s; reader: %s",
                 damage ? damage_clause : "no clause of damage", states[state]);
        if (state != ATF_WTF_DAMAGED) {
            int cut = state == ATF_WTF_CRASH_TRUNCATED;
            size_t nrec = atf_validation_recovered_count(v[0]);
            FZ_CHECK(rec == cut && nrec == (size_t)cut, "validator: WTF-REC-001 %s, %zu recovered; reader: %s",
                     rec ? "reported" : "not reported", nrec, states[state]);
            if (nrec)
                FZ_CHECK(atf_validation_recovered_at(v[0], 0)->events == rf.sum.events,
                         "validator recovered %llu events, the reader %llu",
                         (unsigned long long)atf_validation_recovered_at(v[0], 0)->events,
                         (unsigned long long)rf.sum.events);
        }
    }
    atf_validation_free(v[0]);
    atf_validation_free(v[1]);
}

/* ---- Checks of the dump ------------------------------------------------------------- */

/* One line of `atf dump --json`. docs/wtf-dump-format.md writes the code
 * point of an encoded surrogate in invalid UTF-8 as a lone \udxxx escape,
 * which jansson refuses: such escapes are read as U+FFFD. */
static json_t *load_dump_line(const char *p, size_t n, json_error_t *je)
{
    json_t *j = json_loadb(p, n, JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, je);
    if (j || strncmp(je->text, "invalid Unicode", 15) != 0)
        return j;
    char *copy = malloc(n ? n : 1);
    FZ_CHECK(copy != NULL, "oom");
    memcpy(copy, p, n);
    for (size_t i = 0; i + 6 <= n; i++)
        if (copy[i] == '\\' && copy[i + 1] == 'u' && (copy[i + 2] == 'd' || copy[i + 2] == 'D') &&
            strchr("89abcdefABCDEF", copy[i + 3])) {
            memcpy(copy + i + 2, "fffd", 4);
            i += 5;
        } else if (copy[i] == '\\') {
            i++;    /* an escaped character, \\ among them */
        }
    j = json_loadb(copy, n, JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, je);
    free(copy);
    return j;
}

static int ascii_only(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return 0;
    return 1;
}

void fz_wtf_check_dump(const uint8_t *d, size_t size, const fz_wtf_model *m)
{
    char path[700];
    snprintf(path, sizeof path, "%s/dump.wtf-trace", fz_scratch_dir());
    fz_write_file(path, d, size);
    /* Counts and state from the reader itself; lines against the model's
     * chunks and events unless it is undetermined. */
    reader_facts rf = walk_reader(d, size);
    int detail = !m->undetermined;
    for (int json = 1; json >= 0; json--) {
        char *out = NULL, *diag = NULL;
        size_t out_len = 0, diag_len = 0;
        FILE *o = open_memstream(&out, &out_len), *g = open_memstream(&diag, &diag_len);
        FZ_CHECK(o && g, "open_memstream");
        atf_tool_options opts;
        memset(&opts, 0, sizeof opts);
        opts.json = (unsigned)json;
        opts.diag = g;
        atf_error err;
        atf_status st = atf_tool_dump(o, path, &opts, &err);
        fclose(o);
        fclose(g);
        atf_status want = rf.open != ATF_OK                  ? rf.open
                          : rf.sum.state == ATF_WTF_DAMAGED ? ATF_E_DAMAGED
                                                            : ATF_OK;
        FZ_CHECK(st == want, "atf dump%s returned %s, expected %s", json ? " --json" : "", atf_status_name(st),
                 atf_status_name(want));
        if (rf.open != ATF_OK) {
            fz_check_error(&err, st, "atf dump");
            free(out);
            free(diag);
            continue;
        }
        FZ_CHECK((rf.sum.state == ATF_WTF_COMPLETE) == (strstr(diag, "crash-truncated") == NULL &&
                                                         strstr(diag, "damaged") == NULL),
                 "stderr of a %s file: %s", rf.sum.state == ATF_WTF_COMPLETE ? "complete" : "incomplete", diag);
        /* Lines: one file line, then chunk lines and event lines in file order. */
        /* A file cut inside its 12-byte header has no file line. */
        uint64_t lines = m->header_cut, chunks = 0, events = 0;
        for (char *p = out; p < out + out_len;) {
            char *nl = memchr(p, '\n', (size_t)(out + out_len - p));
            FZ_CHECK(nl != NULL, "dump: last line without a newline");
            if (json) {
                json_error_t je;
                json_t *j = load_dump_line(p, (size_t)(nl - p), &je);
                FZ_CHECK(json_is_object(j), "dump line %llu is not a JSON object: %s", (unsigned long long)lines,
                         je.text);
                if (lines == 0) {
                    FZ_CHECK(json_object_get(j, "wtf_version") && json_object_get(j, "header"), "dump: file line");
                } else if (json_object_get(j, "parts")) {
                    FZ_CHECK(chunks < rf.chunks, "dump: more chunk lines than chunks");
                    if (detail)
                        FZ_CHECK(json_number_value(json_object_get(j, "chunk")) == (double)m->chunk[chunks].index &&
                                     json_number_value(json_object_get(j, "offset")) == (double)m->chunk[chunks].offset,
                                 "dump: chunk line %llu", (unsigned long long)chunks);
                    chunks++;
                } else {
                    FZ_CHECK(events < rf.events && json_is_object(json_object_get(j, "args")),
                             "dump: more event lines than events, or no args");
                    if (!detail) {
                        events++;
                        json_decref(j);
                        lines++;
                        p = nl + 1;
                        continue;
                    }
                    const fz_wtf_event *e = &m->ev[events++];
                    json_t *zone = json_object_get(j, "zone");
                    FZ_CHECK(json_number_value(json_object_get(j, "offset")) == (double)e->offset &&
                                 json_number_value(json_object_get(j, "wire_id")) == (double)e->wire &&
                                 json_number_value(json_object_get(j, "time")) == (double)e->time &&
                                 json_number_value(json_object_get(j, "chunk")) == (double)e->chunk &&
                                 json_is_object(json_object_get(j, "args")),
                             "dump: event line %llu is not the event at %llu", (unsigned long long)(events - 1),
                             (unsigned long long)e->offset);
                    FZ_CHECK((!ascii_only(e->def->name) ||
                                  strcmp(json_string_value(json_object_get(j, "event")), e->def->name) == 0) &&
                                     (e->zone < 0 ? json_is_null(zone)
                                                  : json_number_value(zone) == (double)e->zone) &&
                                     json_object_size(json_object_get(j, "args")) == e->def->nargs,
                                 "dump: event at %llu: name, zone or arguments", (unsigned long long)e->offset);
                }
                json_decref(j);
            }
            lines++;
            p = nl + 1;
        }
        if (json)
            FZ_CHECK(chunks == rf.chunks && events == rf.events,
                     "dump: %llu chunk and %llu event lines, expected %llu and %llu", (unsigned long long)chunks,
                     (unsigned long long)events, (unsigned long long)rf.chunks, (unsigned long long)rf.events);
        else
            FZ_CHECK(lines == 1 + rf.chunks + rf.events,
                     "text dump: %llu lines (a cut header counted as one) for %llu chunks and %llu events",
                     (unsigned long long)lines, (unsigned long long)rf.chunks, (unsigned long long)rf.events);
        free(out);
        free(diag);
    }
}

/* ---- Building files ---------------------------------------------------------------- */

void fz_buf_le32(fz_buf *b, uint32_t v)
{
    uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    fz_buf_put(b, x, 4);
}

void fz_wtf_put_file_header(fz_buf *b, uint32_t wtf_version)
{
    fz_buf_le32(b, ATF_WTF_MAGIC);
    fz_buf_le32(b, wtf_version);
    fz_buf_le32(b, ATF_WTF_FORMAT_VERSION);
}

void fz_wtf_put_chunk(fz_buf *b, uint32_t id, uint32_t type, uint32_t start, uint32_t end, size_t nparts,
                      const uint32_t *types, const uint8_t *const *data, const uint32_t *len)
{
    uint64_t body = 0;
    for (size_t i = 0; i < nparts; i++)
        body += (len[i] + 3ull) / 4 * 4;
    fz_buf_le32(b, id);
    fz_buf_le32(b, type);
    fz_buf_le32(b, (uint32_t)(24 + 12 * nparts + body));
    fz_buf_le32(b, start);
    fz_buf_le32(b, end);
    fz_buf_le32(b, (uint32_t)nparts);
    uint32_t off = 0;
    for (size_t i = 0; i < nparts; i++) {
        fz_buf_le32(b, types[i]);
        fz_buf_le32(b, off);
        fz_buf_le32(b, len[i]);
        off += (len[i] + 3u) / 4 * 4;
    }
    static const uint8_t zeros[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < nparts; i++) {
        fz_buf_put(b, data[i], len[i]);
        fz_buf_put(b, zeros, (4 - len[i] % 4) % 4);
    }
}

/* ---- Whole files ----------------------------------------------------------------------- */

static int with_validator;   /* the check after the reader's: the validator (1) or the dump (0) */

static void open_check(const uint8_t *data, size_t size, int verify, fz_params *p)
{
    (void)verify;
    (void)p;
    fz_wtf_model m = fz_wtf_model_of(data, size);
    fz_wtf_check_reader(data, size, &m);
    if (with_validator)
        fz_wtf_check_validator(data, size, &m);
    else {
        fz_wtf_check_dump(data, size, &m);
        fz_wtf_check_reader_parts(data, size, &m);
    }
    fz_wtf_model_free(&m);
}

void fz_wtf_check_file(const uint8_t *data, size_t size, int validator)
{
    with_validator = validator;
    fz_check_file_variants(open_check, data, size);
}

/* ---- Cuts of a complete file ----------------------------------------------------------- */

void fz_wtf_cut_expect(const uint8_t *d, size_t size, const fz_wtf_model *full, size_t len, uint64_t *events,
                       atf_wtf_state *state)
{
    *events = 0;
    *state = ATF_WTF_CRASH_TRUNCATED;
    if (len <= ATF_WTF_FILE_HEADER_SIZE)
        return;                                 /* inside the file header, or the header alone */
    uint64_t pos = ATF_WTF_FILE_HEADER_SIZE;
    for (uint32_t index = 0; pos < size; index++) {
        uint32_t length = fz_le32(d + pos + 8), nparts = fz_le32(d + pos + 20);
        uint64_t end = pos + length, table = 24 + 12 * (uint64_t)nparts;
        if (end <= len) {
            /* A whole chunk: all its events. */
            while (*events < full->events && full->ev[*events].chunk == index)
                (*events)++;
            if (end == len) {
                *state = ATF_WTF_COMPLETE;      /* cut at a chunk boundary: nothing tells */
                return;
            }
            pos = end;
            continue;
        }
        /* The chunk cut short: its complete events, when the part table and
         * the string table are whole (SPEC-WTF 6.2). */
        if (len - pos < table)
            return;
        for (uint32_t i = 0; i < nparts; i++) {
            const uint8_t *e = d + pos + 24 + 12 * (size_t)i;
            if (fz_le32(e) == ATF_WTF_PART_STRING_TABLE) {
                if (pos + table + fz_le32(e + 4) + fz_le32(e + 8) > len)
                    return;
                break;
            }
        }
        while (*events < full->events && full->ev[*events].chunk == index &&
               full->ev[*events].offset + full->ev[*events].size <= len)
            (*events)++;
        return;
    }
}
