/* The WTF file reader: chunks in file order, the events of each chunk's
 * binary event buffer with their definitions, zones and scope depth, and
 * what a crash or damage left (conformance/SPEC-WTF.md section 6). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/wtf.h>

#include "bytes.h"
#include "common.h"
#include "wtf_internal.h"

#define WTF_WIRE_IDS 65536u
#define WTF_ZONES 65536u

struct atf_wtf_reader {
    atf_blob blob;
    char name[256];
    atf_wtf_file_header header;
    const char *header_json;
    size_t header_json_len;
    double timebase;
    unsigned file_flags;

    uint64_t pos;                 /* next chunk header */
    uint64_t end;                 /* bytes that hold data (a sparse or zero tail excluded) */
    int started, done;
    uint32_t chunk_index;
    atf_wtf_chunk chunk;
    int chunk_cut;
    atf_wtf_strings strings;

    const uint8_t *ev;            /* event buffer bytes available */
    size_t ev_len, ev_pos;
    uint64_t ev_base;
    int ev_cut;                   /* the buffer runs past the end of the file */
    const atf_wtf_part *ev_part;

    atf_wtf_def **defs;           /* WTF_WIRE_IDS entries, allocated at the first define */
    wtf_plan *plan;               /* WTF_WIRE_IDS entries, with defs: set_def() */
    atf_wtf_def *define;          /* wire id 1 */
    atf_wtf_def *retired;         /* replaced by the define event just returned, which it defines:
                                     freed at the next call that reads (atf_wtf_event.def stays valid) */
    int32_t zone;
    uint32_t defs_hi;             /* defs[] entries below this may be set */
    uint32_t depth_hi;            /* depth[] entries below this may be used */
    uint32_t *depth;              /* per zone + 1 (index 0: no zone set); allocated with defs */
    uint8_t *zone_made;           /* WTF_ZONES bits */
    wtf_event_notes notes;
    int notes_set;                /* notes hold something: cleared before the next event */
    atf_wtf_summary sum;

    /* A reader of one part (atf_wtf_read_parts): it stops before the chunk
     * at stop (0: the end of the file); chunks_before: chunk headers read
     * before its first one. */
    uint64_t stop;
    uint64_t chunks_before;
    uint32_t depth_base;          /* a zone's depth before its first event: 0, SCAN_BASE in a scan ahead */
};

static void note_damage(atf_wtf_reader *r, const atf_error *e)
{
    r->sum.state = ATF_WTF_DAMAGED;
    if (r->sum.first_damage.code == ATF_OK && e) {
        r->sum.first_damage = *e;
        atf_error_detach_field(&r->sum.first_damage);   /* a definition may be replaced later */
    }
}

static void note_cut(atf_wtf_reader *r, uint64_t unread)
{
    if (r->sum.state == ATF_WTF_COMPLETE)
        r->sum.state = ATF_WTF_CRASH_TRUNCATED;
    r->sum.bytes_unread += unread;
}

/* ---- Definitions -------------------------------------------------------- */

atf_wtf_def *wtf_def_new(uint16_t wire_id, uint16_t event_class, uint32_t flags, const char *name, size_t name_len,
                         const char *sig, size_t sig_len, atf_error *err)
{
    /* One allocation: the struct, the name, the signature, the argument names. */
    size_t names_cap = sig_len + 1;
    atf_wtf_def *d = (atf_wtf_def *)malloc(sizeof *d + name_len + 1 + sig_len + 1 + names_cap);
    if (!d) {
        atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, "define", "cannot allocate a definition");
        return NULL;
    }
    memset(d, 0, sizeof *d);
    char *p = (char *)(d + 1);
    memcpy(p, name, name_len);
    p[name_len] = 0;
    d->name = p;
    p += name_len + 1;
    memcpy(p, sig, sig_len);
    p[sig_len] = 0;
    d->signature = p;
    p += sig_len + 1;
    d->wire_id = wire_id;
    d->event_class = event_class;
    d->flags = flags;
    if (atf_wtf_parse_signature(d->signature, sig_len, d, p, names_cap, err) != ATF_OK) {
        free(d);
        return NULL;
    }
    d->builtin = wtf_builtin_of(d->name);
    /* The decoders' plan (atf_wtf_def.fixed_size). */
    d->fixed_size = 8 + 4 * (uint32_t)d->arg_count;
    for (size_t i = 0; i < d->arg_count; i++) {
        atf_wtf_type t = d->args[i].type;
        if (d->args[i].array)
            d->fixed_size = 0;
        if (t == ATF_WTF_ASCII || t == ATF_WTF_UTF8 || t == ATF_WTF_ANY)
            d->string_args |= 1ull << i;
        if (t == ATF_WTF_ANY)
            d->any_args |= 1ull << i;
    }
    if (!d->fixed_size)
        d->string_args = d->any_args = 0;
    return d;
}

void wtf_def_free(atf_wtf_def *d)
{
    free(d);
}

const wtf_plan wtf_plan_none;

void wtf_plan_of(wtf_plan *p, const atf_wtf_def *d)
{
    memset(p, 0, sizeof *p);
    if (!d)
        return;
    p->ordered = !(d->flags & (ATF_WTF_FLAG_BUILTIN | ATF_WTF_FLAG_INTERNAL)) && !d->builtin;
    p->anys = d->any_args;
    p->no_s0 = UINT32_MAX;
    if (d->string_args) {
        p->no_s0 = 0;
        unsigned i = (unsigned)__builtin_ctzll(d->string_args);
        p->s0 = 8 + 4 * i;
        p->any0 = (uint8_t)((d->any_args >> i) & 1);
        p->more = d->string_args & (d->string_args - 1);
    }
    switch (d->builtin) {
    case ATF_WTF_BI_DEFINE:
    case ATF_WTF_BI_ZONE_CREATE:
    case ATF_WTF_BI_ZONE_DELETE:
    case ATF_WTF_BI_ZONE_SET: return;
    case ATF_WTF_BI_SCOPE_LEAVE: p->delta = -1; break;
    default: p->delta = d->event_class == ATF_WTF_CLASS_SCOPE ? 1 : 0; break;
    }
    p->size = d->fixed_size;
}

int wtf_def_same(const atf_wtf_def *a, const atf_wtf_def *b)
{
    return a->event_class == b->event_class && a->flags == b->flags && strcmp(a->name, b->name) == 0 &&
           strcmp(a->signature, b->signature) == 0;
}

static void set_def(atf_wtf_reader *r, uint32_t wire, atf_wtf_def *d)
{
    r->defs[wire] = d;
    wtf_plan_of(&r->plan[wire], d);
    if (wire + 1 > r->defs_hi)
        r->defs_hi = wire + 1;
}

static atf_status ensure_tables(atf_wtf_reader *r, atf_error *err)
{
    if (r->defs)
        return ATF_OK;
    r->defs = (atf_wtf_def **)atf_table_new(WTF_WIRE_IDS, sizeof *r->defs);
    r->plan = (wtf_plan *)atf_table_new(WTF_WIRE_IDS, sizeof *r->plan);
    r->depth = (uint32_t *)atf_table_new(WTF_ZONES + 1, sizeof *r->depth);
    r->zone_made = (uint8_t *)atf_table_new(WTF_ZONES / 8, 1);
    if (!r->defs || !r->plan || !r->depth || !r->zone_made) {
        atf_table_free(r->defs);
        atf_table_free(r->plan);
        atf_table_free(r->depth);
        atf_table_free(r->zone_made);
        r->defs = NULL;   /* tried again at the next event */
        r->plan = NULL;
        r->depth = NULL;
        r->zone_made = NULL;
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, "cannot allocate the definition table");
    }
    set_def(r, ATF_WTF_WIRE_DEFINE, r->define);
    r->depth_hi = 1;   /* depth[0]: events before any wtf.zone#set */
    return ATF_OK;
}

/* ---- Opening ------------------------------------------------------------- */

static atf_status read_file_header_chunk(atf_wtf_reader *r)
{
    /* The first chunk's file-header part, when it is there and whole. */
    atf_wtf_chunk c;
    uint64_t at = ATF_WTF_FILE_HEADER_SIZE;
    if (at >= r->end)
        return ATF_OK;
    if (atf_wtf_parse_chunk(r->blob.data + at, (size_t)(r->end - at), at, &c, NULL) != ATF_OK)
        return ATF_OK;
    if (c.type != ATF_WTF_CHUNK_FILE_HEADER)
        return ATF_OK;
    for (uint32_t i = 0; i < c.part_count; i++) {
        const atf_wtf_part *p = &c.parts[i];
        if (p->type != ATF_WTF_PART_FILE_HEADER)
            continue;
        if (p->file_offset + p->length > r->end)
            return ATF_OK;
        r->header_json = (const char *)r->blob.data + p->file_offset;
        r->header_json_len = p->length;
        json_t *j = json_loadb(r->header_json, r->header_json_len, WTF_JSON_FLAGS, NULL);
        if (json_is_object(j)) {
            json_t *tb = json_object_get(j, "timebase");
            if (json_is_number(tb))
                r->timebase = json_number_value(tb);
            json_t *fl = json_object_get(j, "flags");
            size_t k;
            json_t *v;
            if (json_is_array(fl))
                json_array_foreach(fl, k, v) {
                    const char *s = json_string_value(v);
                    if (s && strcmp(s, "has_high_resolution_times") == 0)
                        r->file_flags |= ATF_WTF_FILE_HIGH_RES_TIMES;
                    if (s && strcmp(s, "times_as_count") == 0)
                        r->file_flags |= ATF_WTF_FILE_TIMES_AS_COUNT;
                }
        }
        json_decref(j);
        return ATF_OK;
    }
    return ATF_OK;
}

/* The built-in definition of wire id 1 (wtf.event#define). */
static atf_wtf_def *new_define(atf_error *err)
{
    return wtf_def_new(ATF_WTF_WIRE_DEFINE, ATF_WTF_CLASS_INSTANCE, ATF_WTF_FLAG_BUILTIN | ATF_WTF_FLAG_INTERNAL,
                       "wtf.event#define", strlen("wtf.event#define"), WTF_DEFINE_SIGNATURE,
                       strlen(WTF_DEFINE_SIGNATURE), err);
}

static atf_status open_common(atf_wtf_reader *r, atf_error *err)
{
    atf_error e;
    atf_error_clear(&e);
    r->zone = -1;
    r->sum.file_size = r->blob.size;
    r->end = r->blob.data_end < r->blob.size ? r->blob.data_end : r->blob.size;
    r->define = new_define(err);
    if (!r->define)
        return err ? err->code : ATF_E_NOMEM;
    atf_status s = atf_wtf_parse_file_header(r->blob.data, r->blob.size, &r->header, &e);
    if (s == ATF_E_TRUNCATED) {
        /* A file cut inside its 12-byte header: crash-truncated when what is
         * there is the start of a valid one (SPEC-WTF 6.2). */
        static const uint8_t want[12] = { 0xEF, 0xBE, 0xAD, 0xDE };
        size_t n = r->blob.size;
        int prefix = memcmp(r->blob.data, want, n < 4 ? n : 4) == 0;
        if (n > 8) {
            uint8_t fv[4] = { 10, 0, 0, 0 };
            prefix = prefix && memcmp(r->blob.data + 8, fv, n - 8) == 0;
        }
        if (prefix) {
            r->sum.state = ATF_WTF_CRASH_TRUNCATED;
            r->sum.bytes_unread = n;
            r->done = 1;
            return ATF_OK;
        }
    }
    if (s != ATF_OK) {
        if (err) {
            *err = e;
            atf_error_set_file(err, r->name);
        }
        return s;
    }
    r->pos = ATF_WTF_FILE_HEADER_SIZE;
    return read_file_header_chunk(r);
}

atf_status atf_wtf_reader_open(atf_wtf_reader **out, const char *path, const atf_wtf_read_options *opts,
                               atf_error *err)
{
    *out = NULL;
    if (!path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no path");
    atf_wtf_reader *r = (atf_wtf_reader *)calloc(1, sizeof *r);
    if (!r)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    snprintf(r->name, sizeof r->name, "%s", path);
    atf_status s = atf_blob_open(&r->blob, path, opts ? (int)opts->no_mmap : 0, err);
    if (s == ATF_OK)
        s = open_common(r, err);
    if (s != ATF_OK) {
        if (err)
            atf_error_set_file(err, path);
        atf_wtf_reader_close(r);
        return s;
    }
    *out = r;
    return ATF_OK;
}

atf_status atf_wtf_reader_open_memory(atf_wtf_reader **out, const void *data, size_t size, const char *name,
                                      atf_error *err)
{
    *out = NULL;
    if (!data && size)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no data");
    atf_wtf_reader *r = (atf_wtf_reader *)calloc(1, sizeof *r);
    if (!r)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    snprintf(r->name, sizeof r->name, "%s", name ? name : "trace.wtf-trace");
    static const uint8_t empty[1] = { 0 };
    r->blob.data = size ? (const uint8_t *)data : empty;
    r->blob.size = size;
    r->blob.data_end = size;
    atf_status s = open_common(r, err);
    if (s != ATF_OK) {
        atf_wtf_reader_close(r);
        return s;
    }
    *out = r;
    return ATF_OK;
}

void atf_wtf_reader_close(atf_wtf_reader *r)
{
    if (!r)
        return;
    if (r->defs) {
        for (size_t i = 0; i < r->defs_hi; i++)
            if (r->defs[i] != r->define)
                wtf_def_free(r->defs[i]);
        atf_table_free(r->defs);
    }
    wtf_def_free(r->define);
    wtf_def_free(r->retired);
    atf_table_free(r->plan);
    atf_table_free(r->depth);
    atf_table_free(r->zone_made);
    atf_wtf_strings_free(&r->strings);
    if (r->blob.map || r->blob.heap)
        atf_blob_close(&r->blob);
    free(r);
}

const atf_wtf_file_header *atf_wtf_reader_header(const atf_wtf_reader *r)
{
    return &r->header;
}

const char *atf_wtf_reader_header_json(const atf_wtf_reader *r, size_t *len)
{
    if (len)
        *len = r->header_json_len;
    return r->header_json;
}

double atf_wtf_reader_timebase(const atf_wtf_reader *r)
{
    return r->timebase;
}

unsigned atf_wtf_reader_file_flags(const atf_wtf_reader *r)
{
    return r->file_flags;
}

const char *wtf_reader_name(const atf_wtf_reader *r)
{
    return r->name;
}

/* ---- Chunks -------------------------------------------------------------- */

static int all_zero(const uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The chunk at r->pos did not parse (status s, e): a cut file, or damage
 * that costs the chunk or the rest (SPEC-WTF 6). */
static atf_status chunk_unparsed(atf_wtf_reader *r, atf_status s, atf_error *e, atf_error *err)
{
    uint64_t size = r->blob.size;
    if (s == ATF_E_TRUNCATED) {
        if (size - r->pos >= ATF_WTF_CHUNK_HEADER_SIZE && r->chunk.length % 4 != 0) {
            /* The header is whole and its length wrong (WTF-CHK-002), even
             * if the cut took the part table: damage as well as a cut, as
             * the validator says. */
            atf_fail(e, ATF_E_LENGTH, r->pos + 8, "chunk.length", "%u: not a multiple of 4",
                     (unsigned)r->chunk.length);
            atf_error_set_file(e, r->name);
            note_damage(r, e);
        }
        note_cut(r, size - r->pos);
        r->done = 1;
        return ATF_E_NOT_FOUND;
    }
    /* A broken part table costs its chunk when the length still places
     * the next one; a length that cannot costs the rest (SPEC-WTF 6). */
    const uint8_t *h = r->blob.data + r->pos;
    uint64_t length = atf_load_le32(h + 8), parts = atf_load_le32(h + 20);
    int next = (s == ATF_E_OFFSET || s == ATF_E_LIMIT) && length % 4 == 0 &&
               length >= ATF_WTF_CHUNK_HEADER_SIZE + parts * ATF_WTF_PART_ENTRY_SIZE && length <= size - r->pos;
    atf_error_set_file(e, r->name);
    note_damage(r, e);
    r->sum.chunks_skipped++;
    if (next) {
        r->pos += length;
    } else {
        r->sum.bytes_unread += size - r->pos;
        r->done = 1;
    }
    if (err)
        *err = *e;
    return s;
}

/* The parsed chunk's length: a multiple of 4 (else nothing after it is
 * read: 1), and, when it runs past the end of the file, a cut unless its
 * parts end inside the file and other bytes follow them (a wrong length,
 * WTF-CHK-003: 2). @return 0, 1 or 2. */
static int chunk_length_check(atf_wtf_reader *r)
{
    uint64_t size = r->blob.size;
    int last = 0;
    if (r->chunk.length % 4 != 0) {
        atf_error le;
        atf_fail(&le, ATF_E_LENGTH, r->pos + 8, "chunk.length", "%u: not a multiple of 4; nothing after this chunk is read",
                 (unsigned)r->chunk.length);
        atf_error_set_file(&le, r->name);
        note_damage(r, &le);
        last = 1;
    }
    if (!r->chunk_cut)
        return last;
    uint64_t pe = 0;
    for (uint32_t i = 0; i < r->chunk.part_count; i++) {
        uint64_t end = r->chunk.parts[i].file_offset + r->chunk.parts[i].length;
        end = r->pos + ((end - r->pos + 3) & ~(uint64_t)3);
        if (end > pe)
            pe = end;
    }
    if (pe == 0)
        pe = r->pos + ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)r->chunk.part_count * ATF_WTF_PART_ENTRY_SIZE;
    if (pe <= size && !all_zero(r->blob.data + pe, size - pe)) {
        atf_error le;
        atf_fail(&le, ATF_E_LENGTH, r->pos + 8, "chunk.length",
                 "%u runs past the end of the file while its parts end at %llu and other bytes follow: "
                 "a wrong length; nothing after this chunk is read",
                 (unsigned)r->chunk.length, (unsigned long long)pe);
        atf_error_set_file(&le, r->name);
        note_damage(r, &le);
        r->sum.bytes_unread += size - pe;
        r->chunk_cut = 0;
        last = 2;
    }
    return last;
}

/* The chunk's string table (first one) and binary event buffer (first
 * one), as far as they lie before avail_end. */
static atf_status chunk_parts(atf_wtf_reader *r, uint64_t avail_end, atf_error *err)
{
    const atf_wtf_part *strings = NULL, *events = NULL;
    for (uint32_t i = 0; i < r->chunk.part_count; i++) {
        const atf_wtf_part *p = &r->chunk.parts[i];
        if (p->type == ATF_WTF_PART_STRING_TABLE && !strings)
            strings = p;
        else if (p->type == ATF_WTF_PART_BINARY_EVENTS && !events)
            events = p;
        else if (p->type == ATF_WTF_PART_JSON_EVENTS || p->type == ATF_WTF_PART_LEGACY_EVENTS ||
                 p->type == ATF_WTF_PART_BINARY_EVENTS)
            r->sum.parts_not_read++;
    }
    if (r->chunk.type != ATF_WTF_CHUNK_EVENT_DATA)
        events = NULL;
    int strings_whole = !strings || strings->file_offset + strings->length <= avail_end;
    if (strings && strings_whole &&
        atf_wtf_strings_init(&r->strings, r->blob.data + strings->file_offset, strings->length, err) != ATF_OK)
        return err ? err->code : ATF_E_NOMEM;
    if (events && strings_whole && events->file_offset < avail_end) {
        uint64_t n = events->length;
        if (events->file_offset + n > avail_end)
            n = avail_end - events->file_offset;
        r->ev = r->blob.data + events->file_offset;
        r->ev_len = (size_t)n;
        r->ev_base = events->file_offset;
        r->ev_cut = n < events->length;
        r->ev_part = events;
    }
    return ATF_OK;
}

atf_status atf_wtf_reader_next_chunk(atf_wtf_reader *r, const atf_wtf_chunk **out, atf_error *err)
{
    *out = NULL;
    wtf_def_free(r->retired);
    r->retired = NULL;
    /* What is left of the previous chunk's events was not read. */
    atf_wtf_strings_free(&r->strings);
    r->ev = NULL;
    r->ev_len = r->ev_pos = 0;
    r->ev_part = NULL;
    if (r->done)
        return ATF_E_NOT_FOUND;
    if (r->stop && r->pos >= r->stop) {
        r->done = 1;   /* the next part's first chunk */
        return ATF_E_NOT_FOUND;
    }
    if (r->started)
        r->chunk_index++;
    r->started = 1;
    uint64_t size = r->blob.size;
    if (r->pos >= size) {
        if (r->sum.chunks + r->chunks_before == 0)
            note_cut(r, 0);   /* only the file header: stopped before its first chunk (SPEC-WTF 6) */
        r->done = 1;
        return ATF_E_NOT_FOUND;
    }
    if (r->pos >= r->end || all_zero(r->blob.data + r->pos, r->end - r->pos)) {
        /* Zeros to the end: space a writer reserved (or a hole) and never
         * filled before it stopped. */
        note_cut(r, size - r->pos);
        r->done = 1;
        return ATF_E_NOT_FOUND;
    }
    atf_error e;
    atf_error_clear(&e);
    atf_status s = atf_wtf_parse_chunk(r->blob.data + r->pos, (size_t)(size - r->pos), r->pos, &r->chunk, &e);
    if (s != ATF_OK)
        return chunk_unparsed(r, s, &e, err);
    r->chunk.index = r->chunk_index;
    r->sum.chunks++;
    r->chunk_cut = r->chunk.length > size - r->pos;
    int last = chunk_length_check(r);   /* this chunk is read, nothing after it (its length cannot place the next) */
    uint64_t avail_end = r->chunk_cut || last == 2 ? size : r->pos + r->chunk.length;
    if (r->chunk.type == ATF_WTF_CHUNK_EVENT_DATA)
        r->sum.event_chunks++;
    s = chunk_parts(r, avail_end, err);
    if (s != ATF_OK)
        return s;
    if (last) {
        if (last == 1 && r->pos + r->chunk.length < size)
            r->sum.bytes_unread += size - (r->pos + r->chunk.length);
        r->done = 1;
    } else if (r->chunk_cut) {
        /* What follows the last complete event is counted when the events
         * run out; a cut chunk without readable events is all unread. */
        if (!r->ev)
            note_cut(r, size - r->pos);
        else if (!r->ev_cut)
            note_cut(r, size - (r->ev_base + r->ev_len));
        r->done = 1;
    } else {
        r->pos += r->chunk.length;
    }
    *out = &r->chunk;
    return ATF_OK;
}

int atf_wtf_reader_chunk_cut(const atf_wtf_reader *r)
{
    return r->chunk_cut;
}

const atf_wtf_strings *atf_wtf_reader_strings(const atf_wtf_reader *r)
{
    return &r->strings;
}

const atf_wtf_part *wtf_reader_event_part(const atf_wtf_reader *r)
{
    return r->ev_part;
}

/* ---- Events ---------------------------------------------------------------- */

static atf_status decode_slow(atf_wtf_reader *r, uint32_t *size, atf_error *err);

/* The notes of the event being read, to be written. */
static wtf_event_notes *notes(atf_wtf_reader *r)
{
    r->notes_set = 1;
    return &r->notes;
}

static void apply_define(atf_wtf_reader *r, const atf_wtf_event *ev)
{
    atf_wtf_value wire, cls, flags, name, sig;
    const atf_wtf_def *d = ev->def;
    size_t avail = r->ev_len - (size_t)(ev->args - r->ev);
    wtf_arg_value(d, ev->args, avail, &r->strings, 0, &wire);
    wtf_arg_value(d, ev->args, avail, &r->strings, 1, &cls);
    wtf_arg_value(d, ev->args, avail, &r->strings, 2, &flags);
    wtf_arg_value(d, ev->args, avail, &r->strings, 3, &name);
    wtf_arg_value(d, ev->args, avail, &r->strings, 4, &sig);
    atf_error e;
    atf_error_clear(&e);
    atf_wtf_def *nd = NULL;
    if (!name.s || !name.s_len)
        /* WTF-DEF-007, WTF-DEF-004: defines nothing (as the validator
         * says: an event of that wire id is undefined, WTF-EVT-001). */
        atf_fail(&e, ATF_E_FIELD, ev->offset, "define.name", "a define without a name");
    else if ((uint16_t)wire.u == 0)
        atf_fail(&e, ATF_E_FIELD, ev->offset, "define.wireId", "a define of wire id 0");
    else
        nd = wtf_def_new((uint16_t)wire.u, (uint16_t)cls.u, (uint32_t)flags.u, name.s, name.s_len,
                         sig.s ? sig.s : "", sig.s_len, &e);
    if (!nd) {
        notes(r)->define_bad = 1;
        e.offset = ev->offset;
        if (!e.field)
            e.field = "define.args";
        notes(r)->define_error = e;
        return;
    }
    atf_wtf_def *old = r->defs[nd->wire_id];
    if (old) {
        notes(r)->redefined = 1;
        r->notes.redefined_differs = !wtf_def_same(old, nd);
        if (old == r->define || !r->notes.redefined_differs) {
            /* The same again (or wire id 1 itself): keep the one we have. */
            wtf_def_free(nd);
            return;
        }
        if (old == ev->def) {
            /* A define event that redefines its own wire id: the caller
             * still reads this event's definition. */
            wtf_def_free(r->retired);
            r->retired = old;
        } else {
            wtf_def_free(old);
        }
    }
    set_def(r, nd->wire_id, nd);
}

static void apply_builtin(atf_wtf_reader *r, atf_wtf_event *ev)
{
    const atf_wtf_def *d = ev->def;
    size_t avail = r->ev_len - (size_t)(ev->args - r->ev);
    atf_wtf_value v;
    uint32_t *depth = &r->depth[r->zone < 0 ? 0 : (uint32_t)r->zone + 1];
    ev->depth = *depth;
    switch (d->builtin) {
    case ATF_WTF_BI_DEFINE: apply_define(r, ev); return;
    case ATF_WTF_BI_ZONE_CREATE:
        if (d->arg_count >= 1 && wtf_arg_value(d, ev->args, avail, &r->strings, 0, &v) == ATF_OK && !v.array)
            r->zone_made[(v.u & 0xFFFF) / 8] |= (uint8_t)(1u << (v.u % 8));
        return;
    case ATF_WTF_BI_ZONE_SET:
        if (d->arg_count >= 1 && wtf_arg_value(d, ev->args, avail, &r->strings, 0, &v) == ATF_OK && !v.array) {
            uint32_t z = (uint32_t)(v.u & 0xFFFF);
            r->zone = (int32_t)z;
            for (; r->depth_hi < z + 2; r->depth_hi++)
                r->depth[r->depth_hi] = r->depth_base;
            if (!(r->zone_made[z / 8] & (1u << (z % 8))))
                notes(r)->zone_unknown = 1;
        }
        return;
    case ATF_WTF_BI_SCOPE_LEAVE:
        if (*depth == 0)
            notes(r)->leave_unbalanced = 1;
        else
            (*depth)--;
        ev->depth = *depth;
        return;
    default:
        break;
    }
    if (d->event_class == ATF_WTF_CLASS_SCOPE)
        (*depth)++;
}

/* What every event handed out carries: its place, wire id, time, definition,
 * zone, depth, chunk, size and arguments (one fill for the fast path, the
 * batch loop and the general decoder). */
static inline void fill_event(atf_wtf_event *ev, uint64_t offset, const uint8_t *p, uint32_t wire,
                              const atf_wtf_def *def, int32_t zone, uint32_t depth, uint32_t chunk,
                              uint32_t size)
{
    ev->offset = offset;
    ev->wire_id = wire;
    ev->time = atf_load_le32(p + 4);
    ev->def = def;
    ev->zone = zone;
    ev->depth = depth;
    ev->chunk = chunk;
    ev->size = size;
    ev->args = p + 8;
}

atf_status atf_wtf_reader_next_event(atf_wtf_reader *r, atf_wtf_event *ev, atf_error *err)
{
    if (r->retired) {
        wtf_def_free(r->retired);
        r->retired = NULL;
    }
    if (r->notes_set) {
        memset(&r->notes, 0, sizeof r->notes);
        r->notes_set = 0;
    }
    if (!r->ev || r->ev_pos >= r->ev_len) {
        if (r->ev && r->ev_cut) {
            note_cut(r, r->blob.size - (r->ev_base + r->ev_len));
            r->ev_cut = 0;
        }
        return ATF_E_NOT_FOUND;
    }
    atf_status s;
    if (!r->defs && (s = ensure_tables(r, err)) != ATF_OK)
        return s;
    const uint8_t *p = r->ev + r->ev_pos;
    if (r->ev_len - r->ev_pos >= 8) {
        /* The fast path: a fixed-size event that is not a define or a zone
         * event, whole, its strings in the table; depth without branches. */
        uint32_t wire = atf_load_le32(p);
        const wtf_plan *pl = wire < WTF_WIRE_IDS ? &r->plan[wire] : &wtf_plan_none;
        uint32_t size = pl->size;
        if (size && size <= r->ev_len - r->ev_pos && wtf_plan_strings_ok(pl, &r->strings, p)) {
            /* r->zone is -1 (none set) or a zone id: index 0 is "none". A
             * scope's depth is the one before it, a leave's the one after. */
            uint32_t *depth = &r->depth[(uint32_t)(r->zone + 1)];
            uint32_t after = *depth + (uint32_t)(int32_t)pl->delta;
            if (after == UINT32_MAX) {   /* a leave with no scope open */
                notes(r)->leave_unbalanced = 1;
                after = 0;
            }
            *depth = after;
            fill_event(ev, r->ev_base + r->ev_pos, p, wire, r->defs[wire], r->zone,
                       after - (uint32_t)(pl->delta > 0), r->chunk_index, size);
            r->ev_pos += size;
            r->sum.events++;
            r->sum.events_in_cut_chunk += (uint64_t)(r->chunk_cut != 0);
            return ATF_OK;
        }
    }
    const atf_wtf_def *const *defs = (const atf_wtf_def *const *)r->defs;
    uint32_t size = wtf_fast_size(defs, WTF_WIRE_IDS, &r->strings, r->ev, r->ev_len, r->ev_pos);
    if (size == 0 && (s = decode_slow(r, &size, err)) != ATF_OK)
        return s;
    /* Its zone is the one in effect before it (a wtf.zone#set is in the
     * zone it leaves); apply_builtin sets its depth. */
    uint32_t wire = atf_load_le32(p);
    fill_event(ev, r->ev_base + r->ev_pos, p, wire, r->defs[wire], r->zone, 0, r->chunk_index, size);
    r->ev_pos += size;
    apply_builtin(r, ev);
    r->sum.events++;
    if (r->chunk_cut)
        r->sum.events_in_cut_chunk++;
    return ATF_OK;
}

/* The events after a batch's first that the fast path takes, with the
 * reader's state in locals (a pointer, the end, the plan, the depth of the
 * zone: zone events end a batch, they are not fast, so the zone does not
 * change in one), up to @cap in all: into @evs, or with @evs NULL (a scan
 * ahead, atf_wtf_read_parts()) only counted, the lowest depth one reports
 * kept in *lowest. Inlined into both, so the scan stores no events.
 * @return the events taken. */
static inline __attribute__((always_inline)) size_t fast_events(atf_wtf_reader *r, atf_wtf_event *evs,
                                                                  size_t cap, uint32_t *lowest)
{
    const uint8_t *base = r->ev, *p = base + r->ev_pos, *end = base + r->ev_len;
    const wtf_plan *plan = r->plan;
    const atf_wtf_def *const *defs = (const atf_wtf_def *const *)r->defs;
    const atf_wtf_strings *st = &r->strings;
    uint32_t *dslot = &r->depth[(uint32_t)(r->zone + 1)], depth = *dslot, low = UINT32_MAX;
    int32_t zone = r->zone;
    uint32_t chunk = r->chunk_index;
    uint64_t at0 = r->ev_base;
    size_t k = 0;
    while (k < cap && end - p >= 8) {
        uint32_t wire = atf_load_le32(p);
        const wtf_plan *pl = wire < WTF_WIRE_IDS ? &plan[wire] : &wtf_plan_none;
        uint32_t size = pl->size;
        if (size - 1u >= (size_t)(end - p) || !wtf_plan_strings_ok(pl, st, p))   /* size 0: not fast */
            break;
        uint32_t after = depth + (uint32_t)(int32_t)pl->delta;
        if (after == UINT32_MAX)
            break;   /* a leave with no scope open: the one-event way notes it */
        uint32_t reported = after - (uint32_t)(pl->delta > 0);
        if (evs)
            fill_event(&evs[k], at0 + (uint64_t)(p - base), p, wire, defs[wire], zone, reported, chunk, size);
        else
            low = reported < low ? reported : low;
        k++;
        depth = after;
        p += size;
    }
    *dslot = depth;
    r->ev_pos = (size_t)(p - base);
    r->sum.events += k;
    if (r->chunk_cut)
        r->sum.events_in_cut_chunk += k;
    if (lowest)
        *lowest = low;
    return k;
}

/* Whether fast events may follow the event just read the one-event way:
 * not after notes (a leave below 0, a define...), a replaced definition or
 * before the tables are loaded. */
static inline int fast_may_follow(const atf_wtf_reader *r)
{
    return !r->notes_set && !r->retired && r->plan;
}

atf_status atf_wtf_reader_next_events(atf_wtf_reader *r, atf_wtf_event *evs, size_t cap, size_t *n,
                                      atf_error *err)
{
    *n = 0;
    if (!cap)
        return ATF_OK;
    /* The first event goes the one-event way (it frees a replaced definition,
     * clears the notes, loads the tables, takes what the fast path does not:
     * such an event is a batch of its own). */
    atf_status s = atf_wtf_reader_next_event(r, &evs[0], err);
    if (s != ATF_OK)
        return s;
    *n = 1;
    if (fast_may_follow(r))
        *n += fast_events(r, evs + 1, cap - 1, NULL);
    return ATF_OK;
}

/* An event the fast path did not take: the general decoder says whether it
 * is whole and what is wrong. ATF_E_NOT_FOUND: a cut at the end of the file
 * (nothing more to read). */
static atf_status decode_slow(atf_wtf_reader *r, uint32_t *size, atf_error *err)
{
    atf_error e;
    atf_error_clear(&e);
    atf_status s = wtf_decode_event_at((const atf_wtf_def *const *)r->defs, WTF_WIRE_IDS, &r->strings, r->ev,
                                       r->ev_len, r->ev_pos, r->ev_base, size, &e);
    if (s == ATF_E_TRUNCATED && r->ev_cut) {
        /* The file ends inside this event: a crash cut it. */
        note_cut(r, r->blob.size - (r->ev_base + r->ev_pos));
        r->ev_pos = r->ev_len;
        r->ev_cut = 0;
        return ATF_E_NOT_FOUND;
    }
    if (s != ATF_OK) {
        /* ATF_E_NOT_FOUND is the end of the events: an undefined wire id
         * is a field error here, so that callers see the damage. */
        if (s == ATF_E_NOT_FOUND)
            s = e.code = ATF_E_FIELD;
        atf_error_set_file(&e, r->name);
        note_damage(r, &e);
        r->sum.chunks_skipped++;
        r->ev_pos = r->ev_len;
        r->ev_cut = 0;
        if (err)
            *err = e;
        return s;
    }
    return ATF_OK;
}

atf_status atf_wtf_event_arg(const atf_wtf_reader *r, const atf_wtf_event *ev, size_t i, atf_wtf_value *out,
                             atf_error *err)
{
    (void)err;
    return wtf_arg_value(ev->def, ev->args, ev->size - 8, &r->strings, i, out);
}

const atf_wtf_def *atf_wtf_reader_def(const atf_wtf_reader *r, uint32_t wire_id)
{
    if (wire_id == ATF_WTF_WIRE_DEFINE)
        return r->define;
    return r->defs && wire_id < WTF_WIRE_IDS ? r->defs[wire_id] : NULL;
}

const wtf_event_notes *wtf_reader_notes(const atf_wtf_reader *r)
{
    return &r->notes;
}

void wtf_reader_open_scopes(const atf_wtf_reader *r, void (*fn)(void *user, int32_t zone, uint32_t depth),
                            void *user)
{
    if (!r->depth)
        return;
    for (uint32_t z = 0; z < r->depth_hi; z++)
        if (r->depth[z])
            fn(user, (int32_t)z - 1, r->depth[z]);
}

void atf_wtf_reader_summary(const atf_wtf_reader *r, atf_wtf_summary *out)
{
    *out = r->sum;
}

/* ---- Reading in parts -------------------------------------------------------
 *
 * atf_wtf_read_parts() gives each thread a reader of its share of the
 * chunks that starts with the state the sequential reader has there: the
 * definitions, the zone, every zone's scope depth and the zones created.
 * That state is what the events before leave, so it is found in two steps:
 *
 * 1. every part but the last is scanned ahead, side by side, from no
 *    state: no definitions, the zone unknown (the scan's "no zone" stands
 *    for the zone the part starts in), every depth at SCAN_BASE. What it
 *    learns: the definitions the part makes, the zone it leaves set, each
 *    zone's net change of depth and the lowest depth it reaches, and the
 *    zones it creates;
 * 2. in file order, each part's start state is its predecessor's start
 *    state with what the predecessor's scan learned applied. That is exact
 *    unless the scan met an event it could not read (a wire id defined
 *    before the part, or damage) or a zone's depth would have reached
 *    below 0 (where the sequential reader clamps at 0): then the
 *    predecessor is read again from its exact start state, on one thread.
 *
 * Then every part is read by the caller's function, side by side. The
 * chunks the parts cover follow the sequential reader's own walk of the
 * chunk headers (which does not depend on the events), so every part ends
 * where the next begins; the summaries are joined in file order. */

#define SCAN_BASE 0x80000000u

/* The state at the start of a part. defs are borrowed from the reader that
 * made them (kept open until the parts' readers have their copies). */
typedef struct wtf_rstate {
    const atf_wtf_def **defs;   /* WTF_WIRE_IDS */
    uint32_t defs_hi;
    int32_t zone;
    uint32_t depth_hi;
    uint32_t *depth;            /* WTF_ZONES + 1 */
    uint8_t *zone_made;         /* WTF_ZONES / 8 */
} wtf_rstate;

/* Where a part starts: the chunk walk's place before one of its calls. */
typedef struct wtf_bound {
    uint64_t pos, chunks;
    uint32_t chunk_index;
    int started;
} wtf_bound;

typedef struct wtf_rpart {
    atf_wtf_read_part pub;
    wtf_bound from;
    uint64_t stop;               /* the next part's first chunk, 0: the end */
    atf_wtf_reader *scan;        /* step 1's reader (or step 2's exact one) */
    uint32_t *drop;              /* step 1: per depth index, how far below SCAN_BASE it went (atf_table_new) */
    int scan_failed;             /* step 1 met an event it could not read */
    wtf_rstate start;
    atf_wtf_part_fn fn;
    void *user;
    atf_status status;           /* the function's, or ATF_E_NOMEM */
} wtf_rpart;

static int rstate_alloc(wtf_rstate *st)
{
    memset(st, 0, sizeof *st);
    st->defs = (const atf_wtf_def **)atf_table_new(WTF_WIRE_IDS, sizeof *st->defs);
    st->depth = (uint32_t *)atf_table_new(WTF_ZONES + 1, sizeof *st->depth);
    st->zone_made = (uint8_t *)atf_table_new(WTF_ZONES / 8, 1);
    st->zone = -1;
    st->depth_hi = 1;
    return st->defs && st->depth && st->zone_made;
}

static void rstate_free(wtf_rstate *st)
{
    atf_table_free((void *)st->defs);
    atf_table_free(st->depth);
    atf_table_free(st->zone_made);
    memset(st, 0, sizeof *st);
}

/* The state reader @r has reached (its definitions borrowed). */
static void rstate_of(wtf_rstate *st, const atf_wtf_reader *r)
{
    /* A step 2 that failed may have written up to the extents it set. */
    memset(st->defs, 0, st->defs_hi * sizeof *st->defs);
    memset(st->depth, 0, st->depth_hi * sizeof *st->depth);
    for (uint32_t w = 0; w < r->defs_hi; w++)
        if (w != ATF_WTF_WIRE_DEFINE)
            st->defs[w] = r->defs[w];
    st->defs_hi = r->defs_hi;
    st->zone = r->zone;
    st->depth_hi = r->depth_hi;
    memcpy(st->depth, r->depth, r->depth_hi * sizeof *st->depth);
    memcpy(st->zone_made, r->zone_made, WTF_ZONES / 8);
}

/* A reader of the bytes of @r0 from @b, stopping at @stop: with the state
 * @st, or for a scan (@scan) with @st's definitions alone (NULL: none) and
 * every depth at SCAN_BASE. */
static atf_status part_reader(atf_wtf_reader **out, const atf_wtf_reader *r0, const wtf_bound *b, uint64_t stop,
                              const wtf_rstate *st, int scan, atf_error *err)
{
    *out = NULL;
    atf_wtf_reader *r = (atf_wtf_reader *)calloc(1, sizeof *r);
    if (!r)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    memcpy(r->name, r0->name, sizeof r->name);
    r->blob = r0->blob;
    r->blob.map = r->blob.heap = NULL;   /* borrowed: closed with r0 */
    r->header = r0->header;
    r->header_json = r0->header_json;
    r->header_json_len = r0->header_json_len;
    r->timebase = r0->timebase;
    r->file_flags = r0->file_flags;
    r->end = r0->end;
    r->sum.file_size = r0->sum.file_size;
    r->zone = -1;
    r->pos = b->pos;
    r->started = b->started;
    r->chunk_index = b->chunk_index;
    r->chunks_before = b->chunks;
    r->stop = stop;
    r->define = new_define(err);
    atf_status s = r->define ? ensure_tables(r, err) : ATF_E_NOMEM;
    if (s == ATF_OK && scan) {
        r->depth_base = SCAN_BASE;   /* every zone's, as its index is first used */
        r->depth[0] = SCAN_BASE;
    }
    if (s == ATF_OK && st) {
        for (uint32_t w = 0; w < st->defs_hi && s == ATF_OK; w++) {
            const atf_wtf_def *d = st->defs[w];
            if (!d)
                continue;
            atf_wtf_def *c = wtf_def_new(d->wire_id, d->event_class, d->flags, d->name, strlen(d->name),
                                         d->signature, strlen(d->signature), err);
            if (!c)
                s = err && err->code != ATF_OK ? err->code : ATF_E_NOMEM;
            else
                set_def(r, w, c);
        }
    }
    if (s == ATF_OK && st && !scan) {
        r->zone = st->zone;
        r->depth_hi = st->depth_hi;
        memcpy(r->depth, st->depth, st->depth_hi * sizeof *r->depth);
        memcpy(r->zone_made, st->zone_made, WTF_ZONES / 8);
    }
    if (s != ATF_OK) {
        atf_wtf_reader_close(r);
        return s;
    }
    *out = r;
    return ATF_OK;
}

/* Keeps in @drop how far below SCAN_BASE an event of @zone reported @depth. */
static inline void note_below(uint32_t *drop, int32_t zone, uint32_t depth)
{
    uint32_t i = (uint32_t)(zone + 1), below = depth < SCAN_BASE ? SCAN_BASE - depth : 0;
    if (below > drop[i])
        drop[i] = below;
}

/* A scan's step: the next event the one-event way, then every event after
 * it that the fast path takes, stored nowhere (what the scan keeps is the
 * reader's state and the lowest depth each zone reports, in @drop). Returns
 * as atf_wtf_reader_next_events() does. */
static atf_status scan_events(atf_wtf_reader *r, uint32_t *drop, atf_error *e)
{
    atf_wtf_event ev;
    atf_status s = atf_wtf_reader_next_event(r, &ev, e);
    if (s != ATF_OK)
        return s;
    note_below(drop, ev.zone, ev.depth);   /* (a leave reports the depth after it) */
    uint32_t low;
    if (fast_may_follow(r) && fast_events(r, NULL, SIZE_MAX, &low))
        note_below(drop, r->zone, low);
    return ATF_OK;
}

/* Reads the part's events to its end: with @drop, the scan (step 1: stops
 * at the first event it cannot read, sets *failed); without, the exact
 * read of step 2's fallback (reads everything, as the sequential reader).
 * @return ATF_E_NOMEM or ATF_OK. */
static atf_status read_through(atf_wtf_reader *r, uint32_t *drop, int *failed)
{
    const atf_wtf_chunk *c;
    atf_error e;
    atf_status s;
    atf_wtf_event evs[256];
    size_t n;
    while ((s = atf_wtf_reader_next_chunk(r, &c, &e)) != ATF_E_NOT_FOUND) {
        if (s == ATF_E_NOMEM)
            return s;
        if (s != ATF_OK)
            continue;   /* a chunk that cannot be read costs no state */
        if (drop)
            while ((s = scan_events(r, drop, &e)) == ATF_OK)
                ;
        else
            while ((s = atf_wtf_reader_next_events(r, evs, sizeof evs / sizeof evs[0], &n, &e)) == ATF_OK)
                ;
        if (s == ATF_E_NOMEM)
            return s;
        if (s != ATF_E_NOT_FOUND && drop) {
            *failed = 1;
            return ATF_OK;
        }
    }
    return ATF_OK;
}

static void scan_main(void *arg)
{
    wtf_rpart *p = arg;
    if (!p->scan)
        return;   /* the last part: no scan */
    if (read_through(p->scan, p->drop, &p->scan_failed) != ATF_OK)
        p->status = ATF_E_NOMEM;
}

/* Applies one depth index's change (step 1's) to the depth @d: 0 when
 * the sequential reader would have clamped at 0 in between (or the depth
 * would not fit). */
static int apply_depth(uint32_t *d, uint32_t drop, uint32_t end)
{
    int64_t v = (int64_t)*d;
    if (v < (int64_t)drop)
        return 0;
    v += (int64_t)end - SCAN_BASE;
    if (v > UINT32_MAX - 1)
        return 0;
    *d = (uint32_t)v;
    return 1;
}

/* Step 2: @next from @cur and the scan of the part that starts with @cur.
 * @return 0 when the scan cannot say (read the part again). */
static int apply_scan(wtf_rstate *next, const wtf_rstate *cur, const atf_wtf_reader *scan, const uint32_t *drop,
                      const wtf_rstate *seed)
{
    /* A scan that started with the seed's definitions read what one pass
     * reads only if every one of them is the one in force at its start. */
    for (uint32_t w = 0; seed && w < seed->defs_hi; w++)
        if (seed->defs[w] && (w >= cur->defs_hi || !cur->defs[w] || !wtf_def_same(cur->defs[w], seed->defs[w])))
            return 0;
    /* (@next is new: zero past what is copied.) Its extents are set before
     * anything is written, so that they bound what a failure leaves
     * (rstate_of() clears that much). */
    uint32_t in = (uint32_t)(cur->zone + 1);
    next->defs_hi = cur->defs_hi > scan->defs_hi ? cur->defs_hi : scan->defs_hi;
    next->depth_hi = cur->depth_hi > scan->depth_hi ? cur->depth_hi : scan->depth_hi;
    if (in + 1 > next->depth_hi)
        next->depth_hi = in + 1;
    memcpy(next->defs, cur->defs, cur->defs_hi * sizeof *next->defs);
    for (uint32_t w = 0; w < scan->defs_hi; w++)
        if (w != ATF_WTF_WIRE_DEFINE && scan->defs[w])
            next->defs[w] = scan->defs[w];
    next->zone = scan->zone >= 0 ? scan->zone : cur->zone;
    for (uint32_t i = 0; i < WTF_ZONES / 8; i++)
        next->zone_made[i] = cur->zone_made[i] | scan->zone_made[i];
    memcpy(next->depth, cur->depth, cur->depth_hi * sizeof *next->depth);
    /* The scan's index 0 is the zone the part starts in; its events come
     * before any wtf.zone#set, so before the scan's own index of that zone. */
    if (!apply_depth(&next->depth[in], drop[0], scan->depth[0]))
        return 0;
    for (uint32_t i = 1; i < scan->depth_hi; i++)
        if (!apply_depth(&next->depth[i], drop[i], scan->depth[i]))
            return 0;
    return 1;
}

static void read_main(void *arg)
{
    wtf_rpart *p = arg;
    if (p->status == ATF_OK && p->pub.reader)
        p->status = p->fn(p->user, &p->pub);
}

/* The summary of the whole file from the parts' (in file order). */
static void join_summaries(atf_wtf_summary *out, wtf_rpart *parts, unsigned n, uint64_t file_size)
{
    memset(out, 0, sizeof *out);
    out->file_size = file_size;
    for (unsigned i = 0; i < n; i++) {
        if (!parts[i].pub.reader)
            continue;
        const atf_wtf_summary *s = &parts[i].pub.reader->sum;
        if (s->state > out->state)
            out->state = s->state;
        out->chunks += s->chunks;
        out->event_chunks += s->event_chunks;
        out->events += s->events;
        out->events_in_cut_chunk += s->events_in_cut_chunk;
        out->bytes_unread += s->bytes_unread;
        out->chunks_skipped += s->chunks_skipped;
        out->parts_not_read += s->parts_not_read;
        if (out->first_damage.code == ATF_OK && s->first_damage.code != ATF_OK)
            out->first_damage = s->first_damage;
    }
}

/* The places the parts start: the sequential reader's walk of the chunk
 * headers, split by bytes. @return the number of parts (at least 1). */
static unsigned find_bounds(atf_wtf_reader *r0, unsigned want, wtf_bound *b)
{
    b[0] = (wtf_bound){ r0->pos, 0, r0->chunk_index, r0->started };
    unsigned n = 1;
    uint64_t size = r0->blob.size;
    const atf_wtf_chunk *c;
    while (!r0->done && n < want) {
        if (r0->pos < size && r0->pos >= size / want * n) {
            b[n] = (wtf_bound){ r0->pos, r0->sum.chunks, r0->chunk_index, r0->started };
            n++;
        }
        if (atf_wtf_reader_next_chunk(r0, &c, NULL) == ATF_E_NOT_FOUND)
            break;
    }
    return n;
}

/* atf_wtf_read_parts() over the open reader @r0 (closed here); *settled:
 * parts whose start state step 1 gave (not read again). */
static atf_status read_parts(atf_wtf_reader *r0, unsigned threads, atf_wtf_part_fn fn, void *user,
                             atf_wtf_summary *sum, unsigned *settled, atf_error *err)
{
    atf_status s = ATF_OK;
    if (settled)
        *settled = 0;
    /* As many parts as threads (ATF_WTF_THREADS, or one per CPU with at
     * least 16 MiB each), at most 64, a part no smaller than a chunk. */
    if (!threads) {
        const char *env = getenv("ATF_WTF_THREADS");
        threads = env ? (unsigned)strtoul(env, NULL, 10) : 0;
    }
    unsigned want = atf_part_count(threads, r0->blob.size, r0->blob.size / ATF_WTF_CHUNK_HEADER_SIZE + 1, 64);
    if (r0->done) {
        /* Nothing past the file header (a cut one): the one reader says so. */
        atf_wtf_read_part one = { 0, 1, r0 };
        s = fn(user, &one);
        if (s != ATF_OK)
            atf_fail(err, s, ATF_NO_OFFSET, NULL, "part 1 of 1 stopped");
        if (sum)
            *sum = r0->sum;
        atf_wtf_reader_close(r0);
        return s;
    }
    wtf_bound bounds[64];
    unsigned n = find_bounds(r0, want, bounds);
    wtf_rpart *parts = (wtf_rpart *)calloc(n, sizeof *parts);
    if (!parts) {
        atf_wtf_reader_close(r0);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    /* The later parts' scans start with the definitions the file's first
     * two chunks make (a reference writer's are all there, and its event
     * chunks define nothing); step 2 checks they are the ones in force. */
    wtf_rstate seed_store, *seed = NULL;
    atf_wtf_reader *sr = NULL;
    if (n > 1 && rstate_alloc(&seed_store)) {
        if (part_reader(&sr, r0, &bounds[0], 0, &seed_store, 0, NULL) == ATF_OK) {
            const atf_wtf_chunk *c;
            atf_wtf_event evs[64];
            size_t got;
            for (int k = 0; k < 2 && atf_wtf_reader_next_chunk(sr, &c, NULL) != ATF_E_NOT_FOUND; k++)
                while (atf_wtf_reader_next_events(sr, evs, 64, &got, NULL) == ATF_OK)
                    ;
            rstate_of(&seed_store, sr);
            seed = &seed_store;
        }
    }
    for (unsigned i = 0; i < n && s == ATF_OK; i++) {
        wtf_rpart *p = &parts[i];
        p->pub.index = i;
        p->pub.count = n;
        p->from = bounds[i];
        p->stop = i + 1 < n ? bounds[i + 1].pos : 0;
        p->fn = fn;
        p->user = user;
        if (!rstate_alloc(&p->start))
            s = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        else if (i + 1 < n && s == ATF_OK) {
            /* Step 1's reader (a part of 8 GiB or more could count past
             * SCAN_BASE: read again from its exact state instead). */
            p->drop = (uint32_t *)atf_table_new(WTF_ZONES + 1, sizeof *p->drop);
            if (!p->drop)
                s = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
            else {
                p->scan_failed = p->stop - p->from.pos >= ((uint64_t)8 << 30);
                if (!p->scan_failed)
                    s = part_reader(&p->scan, r0, &p->from, p->stop, i ? seed : NULL, 1, err);
            }
        }
    }
    /* Step 1, side by side. */
    if (s == ATF_OK && n > 1)
        atf_parts_run(parts, sizeof *parts, n - 1, scan_main);
    for (unsigned i = 0; i < n && s == ATF_OK; i++)
        if ((s = parts[i].status) != ATF_OK)
            atf_fail(err, s, ATF_NO_OFFSET, NULL, "scanning part %u of %u", i + 1, n);
    /* Step 2, in order: part 0 starts with no state. */
    for (unsigned i = 0; i + 1 < n && s == ATF_OK; i++) {
        wtf_rpart *p = &parts[i], *q = &parts[i + 1];
        if (!p->scan_failed && apply_scan(&q->start, &p->start, p->scan, p->drop, i ? seed : NULL)) {
            if (settled)
                ++*settled;
            continue;
        }
        /* Read again from its exact state: what it leaves is exact. */
        atf_wtf_reader_close(p->scan);
        p->scan = NULL;
        s = part_reader(&p->scan, r0, &p->from, p->stop, &p->start, 0, err);
        if (s == ATF_OK && (s = read_through(p->scan, NULL, NULL)) != ATF_OK)
            atf_fail(err, s, ATF_NO_OFFSET, NULL, NULL);
        if (s == ATF_OK)
            rstate_of(&q->start, p->scan);
    }
    /* The parts' readers, each with its exact state, then the scans go. */
    for (unsigned i = 0; i < n && s == ATF_OK; i++)
        s = part_reader(&parts[i].pub.reader, r0, &parts[i].from, parts[i].stop, &parts[i].start, 0, err);
    for (unsigned i = 0; i < n; i++) {
        atf_wtf_reader_close(parts[i].scan);
        parts[i].scan = NULL;
        atf_table_free(parts[i].drop);
        rstate_free(&parts[i].start);
    }
    if (s == ATF_OK) {
        atf_parts_run(parts, sizeof *parts, n, read_main);
        for (unsigned i = 0; i < n && s == ATF_OK; i++)
            if ((s = parts[i].status) != ATF_OK)
                atf_fail(err, s, ATF_NO_OFFSET, NULL, "part %u of %u stopped", i + 1, n);
        if (sum)
            join_summaries(sum, parts, n, r0->sum.file_size);
    }
    for (unsigned i = 0; i < n; i++)
        atf_wtf_reader_close(parts[i].pub.reader);
    free(parts);
    if (n > 1)
        rstate_free(&seed_store);
    atf_wtf_reader_close(sr);
    atf_wtf_reader_close(r0);
    return s;
}

atf_status atf_wtf_read_parts(const char *path, unsigned threads, atf_wtf_part_fn fn, void *user,
                              atf_wtf_summary *sum, atf_error *err)
{
    if (sum)
        memset(sum, 0, sizeof *sum);
    if (!fn)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no function");
    atf_wtf_reader *r0;
    atf_status s = atf_wtf_reader_open(&r0, path, NULL, err);
    return s == ATF_OK ? read_parts(r0, threads, fn, user, sum, NULL, err) : s;
}

atf_status wtf_read_parts_memory(const void *data, size_t size, const char *name, unsigned threads,
                                 atf_wtf_part_fn fn, void *user, atf_wtf_summary *sum, unsigned *settled,
                                 atf_error *err)
{
    if (sum)
        memset(sum, 0, sizeof *sum);
    if (!fn)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no function");
    atf_wtf_reader *r0;
    atf_status s = atf_wtf_reader_open_memory(&r0, data, size, name, err);
    return s == ATF_OK ? read_parts(r0, threads, fn, user, sum, settled, err) : s;
}

atf_status atf_wtf_read_parts_memory(const void *data, size_t size, const char *name, unsigned threads,
                                     atf_wtf_part_fn fn, void *user, atf_wtf_summary *sum, atf_error *err)
{
    return wtf_read_parts_memory(data, size, name, threads, fn, user, sum, NULL, err);
}
