/* WTF structures one at a time: the file header, a chunk header with its
 * part table, an argument signature, a string table, one event. Every
 * function here reads only the bytes it is given, checks every length
 * before use, and allocates at most in proportion to bytes that are there. */
#include <stdlib.h>
#include <string.h>

#include <atf/wtf.h>

#include "bytes.h"
#include "common.h"
#include "wtf_internal.h"

atf_status atf_wtf_parse_file_header(const void *data, size_t size, atf_wtf_file_header *out, atf_error *err)
{
    const uint8_t *d = (const uint8_t *)data;
    memset(out, 0, sizeof *out);
    size_t lead = 0;
    while (lead < size && lead < 64 && (d[lead] == ' ' || d[lead] == '\t' || d[lead] == '\r' || d[lead] == '\n'))
        lead++;
    if (lead < size && d[lead] == '{')
        return atf_fail(err, ATF_E_UNSUPPORTED, lead, "magic",
                        "a JSON WTF file (the chunked format's JSON form): only the binary form is read");
    if (size < 4)
        return atf_fail(err, ATF_E_TRUNCATED, 0, "magic", "%zu bytes: shorter than the 12-byte file header", size);
    out->magic = atf_load_le32(d);
    if (out->magic == ATF_WTF_MAGIC_LEGACY)
        return atf_fail(err, ATF_E_UNSUPPORTED, 0, "magic",
                        "the legacy big-endian WTF format (magic DE AD BE EF, BinaryTrace version 3): not read; "
                        "convert it with the tracing-framework tools to the chunked format");
    if (out->magic != ATF_WTF_MAGIC)
        return atf_fail(err, ATF_E_MAGIC, 0, "magic", "0x%08x, not 0xdeadbeef (bytes ef be ad de)",
                        (unsigned)out->magic);
    if (size < ATF_WTF_FILE_HEADER_SIZE)
        return atf_fail(err, ATF_E_TRUNCATED, size, size < 8 ? "wtf_version" : "format_version",
                        "%zu bytes: shorter than the 12-byte file header", size);
    out->wtf_version = atf_load_le32(d + 4);
    out->format_version = atf_load_le32(d + 8);
    if (out->format_version != ATF_WTF_FORMAT_VERSION)
        return atf_fail(err, ATF_E_VERSION, 8, "format_version", "%u, not %u (the chunked file format)",
                        (unsigned)out->format_version, ATF_WTF_FORMAT_VERSION);
    return ATF_OK;
}

atf_status atf_wtf_parse_chunk(const void *data, size_t avail, uint64_t file_offset, atf_wtf_chunk *out,
                               atf_error *err)
{
    const uint8_t *d = (const uint8_t *)data;
    memset(out, 0, offsetof(atf_wtf_chunk, parts));
    out->offset = file_offset;
    if (avail < ATF_WTF_CHUNK_HEADER_SIZE)
        return atf_fail(err, ATF_E_TRUNCATED, file_offset + avail, "chunk.header",
                        "%zu bytes left: a chunk header is 24", avail);
    out->id = atf_load_le32(d);
    out->type = atf_load_le32(d + 4);
    out->length = atf_load_le32(d + 8);
    out->start_time = atf_load_le32(d + 12);
    out->end_time = atf_load_le32(d + 16);
    out->part_count = atf_load_le32(d + 20);
    if (out->part_count > ATF_WTF_MAX_PARTS)
        return atf_fail(err, ATF_E_LIMIT, file_offset + 20, "chunk.part_count", "%u parts: more than %u",
                        (unsigned)out->part_count, ATF_WTF_MAX_PARTS);
    uint64_t table_end = ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)out->part_count * ATF_WTF_PART_ENTRY_SIZE;
    if (out->length < table_end)
        return atf_fail(err, ATF_E_LENGTH, file_offset + 8, "chunk.length",
                        "%u: shorter than its header and part table (%llu bytes)", (unsigned)out->length,
                        (unsigned long long)table_end);
    if (avail < table_end)
        return atf_fail(err, ATF_E_TRUNCATED, file_offset + avail, "chunk.parts",
                        "the part table is cut: %zu of %llu bytes", avail, (unsigned long long)table_end);
    uint64_t body = out->length - table_end;
    for (uint32_t i = 0; i < out->part_count; i++) {
        const uint8_t *e = d + ATF_WTF_CHUNK_HEADER_SIZE + (size_t)i * ATF_WTF_PART_ENTRY_SIZE;
        atf_wtf_part *p = &out->parts[i];
        p->type = atf_load_le32(e);
        p->offset = atf_load_le32(e + 4);
        p->length = atf_load_le32(e + 8);
        p->file_offset = file_offset + table_end + p->offset;
        uint64_t at = file_offset + ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)i * ATF_WTF_PART_ENTRY_SIZE;
        if (p->offset % 4 != 0)
            return atf_fail(err, ATF_E_OFFSET, at + 4, "part.offset", "part %u: offset %u is not a multiple of 4",
                            (unsigned)i, (unsigned)p->offset);
        if ((uint64_t)p->offset + p->length > body)
            return atf_fail(err, ATF_E_OFFSET, at + 4, "part.offset",
                            "part %u: bytes %u..%llu run past the chunk's %llu bytes of parts", (unsigned)i,
                            (unsigned)p->offset, (unsigned long long)p->offset + p->length,
                            (unsigned long long)body);
    }
    /* No two parts overlap: checked pairwise (at most 64 parts). */
    for (uint32_t i = 0; i < out->part_count; i++)
        for (uint32_t j = i + 1; j < out->part_count; j++) {
            const atf_wtf_part *a = &out->parts[i], *b = &out->parts[j];
            if (a->length && b->length && a->offset < b->offset + b->length && b->offset < a->offset + a->length)
                return atf_fail(err, ATF_E_OFFSET,
                                file_offset + ATF_WTF_CHUNK_HEADER_SIZE + (uint64_t)j * ATF_WTF_PART_ENTRY_SIZE + 4,
                                "part.offset", "parts %u and %u overlap", (unsigned)i, (unsigned)j);
        }
    return ATF_OK;
}

/* ---- Types and signatures ------------------------------------------------ */

static const struct {
    const char *name;
    atf_wtf_type type;
} type_names[] = {
    { "bool", ATF_WTF_BOOL },     { "int8", ATF_WTF_INT8 },       { "uint8", ATF_WTF_UINT8 },
    { "int16", ATF_WTF_INT16 },   { "uint16", ATF_WTF_UINT16 },   { "int32", ATF_WTF_INT32 },
    { "uint32", ATF_WTF_UINT32 }, { "float32", ATF_WTF_FLOAT32 }, { "flowId", ATF_WTF_FLOWID },
    { "time32", ATF_WTF_TIME32 }, { "ascii", ATF_WTF_ASCII },     { "utf8", ATF_WTF_UTF8 },
    { "any", ATF_WTF_ANY },       { "char", ATF_WTF_CHAR },       { "wchar", ATF_WTF_WCHAR },
};

const char *atf_wtf_type_name(atf_wtf_type t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].type == t)
            return type_names[i].name;
    return NULL;
}

unsigned atf_wtf_elem_size(atf_wtf_type t)
{
    switch (t) {
    case ATF_WTF_BOOL:
    case ATF_WTF_INT8:
    case ATF_WTF_UINT8:
    case ATF_WTF_CHAR: return 1;
    case ATF_WTF_INT16:
    case ATF_WTF_UINT16:
    case ATF_WTF_WCHAR: return 2;
    default: return 4;
    }
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

atf_status atf_wtf_parse_signature(const char *sig, size_t len, atf_wtf_def *def, char *names, size_t names_cap,
                                   atf_error *err)
{
    size_t i = 0, used = 0;
    def->arg_count = 0;
    while (i < len && is_space(sig[i]))
        i++;
    if (i == len)
        return ATF_OK;
    for (;;) {
        /* type */
        size_t t0 = i;
        while (i < len && is_name_char(sig[i]))
            i++;
        size_t tlen = i - t0;
        atf_wtf_type type = 0;
        for (size_t k = 0; k < sizeof type_names / sizeof type_names[0]; k++)
            if (strlen(type_names[k].name) == tlen && memcmp(type_names[k].name, sig + t0, tlen) == 0)
                type = type_names[k].type;
        if (!type)
            return atf_fail(err, ATF_E_FIELD, t0, "args", "argument %zu: unknown type \"%.*s\"",
                            def->arg_count + 1, (int)(tlen > 40 ? 40 : tlen), sig + t0);
        unsigned array = 0;
        if (i + 1 < len && sig[i] == '[' && sig[i + 1] == ']') {
            array = 1;
            i += 2;
        }
        if (i >= len || !is_space(sig[i]))
            return atf_fail(err, ATF_E_FIELD, i, "args", "argument %zu: no name after the type",
                            def->arg_count + 1);
        while (i < len && is_space(sig[i]))
            i++;
        size_t n0 = i;
        while (i < len && is_name_char(sig[i]))
            i++;
        size_t nlen = i - n0;
        if (nlen == 0)
            return atf_fail(err, ATF_E_FIELD, n0, "args", "argument %zu: no name after the type",
                            def->arg_count + 1);
        if (def->arg_count == ATF_WTF_MAX_ARGS)
            return atf_fail(err, ATF_E_LIMIT, t0, "args", "more than %u arguments", ATF_WTF_MAX_ARGS);
        if (used + nlen + 1 > names_cap)
            return atf_fail(err, ATF_E_LIMIT, n0, "args", "argument names longer than the signature allows");
        for (size_t k = 0; k < def->arg_count; k++)
            if (strlen(def->args[k].name) == nlen && memcmp(def->args[k].name, sig + n0, nlen) == 0)
                return atf_fail(err, ATF_E_FIELD, n0, "args", "argument name \"%.*s\" used twice",
                                (int)(nlen > 40 ? 40 : nlen), sig + n0);
        memcpy(names + used, sig + n0, nlen);
        names[used + nlen] = 0;
        def->args[def->arg_count].name = names + used;
        def->args[def->arg_count].type = type;
        def->args[def->arg_count].array = array;
        def->arg_count++;
        used += nlen + 1;
        while (i < len && is_space(sig[i]))
            i++;
        if (i == len)
            return ATF_OK;
        if (sig[i] != ',')
            return atf_fail(err, ATF_E_FIELD, i, "args", "'%c' after argument %zu: expected ',' or the end",
                            sig[i] >= 0x20 && sig[i] < 0x7f ? sig[i] : '?', def->arg_count);
        i++;
        while (i < len && is_space(sig[i]))
            i++;
    }
}

static const struct {
    const char *name;
    unsigned builtin;
} builtin_names[] = {
    { "wtf.event#define", ATF_WTF_BI_DEFINE },
    { "wtf.trace#discontinuity", ATF_WTF_BI_DISCONTINUITY },
    { "wtf.zone#create", ATF_WTF_BI_ZONE_CREATE },
    { "wtf.zone#delete", ATF_WTF_BI_ZONE_DELETE },
    { "wtf.zone#set", ATF_WTF_BI_ZONE_SET },
    { "wtf.scope#enter", ATF_WTF_BI_SCOPE_ENTER },
    { "wtf.scope#enterTracing", ATF_WTF_BI_SCOPE_ENTER_TRACING },
    { "wtf.scope#leave", ATF_WTF_BI_SCOPE_LEAVE },
    { "wtf.scope#appendData", ATF_WTF_BI_SCOPE_APPEND_DATA },
    { "wtf.flow#branch", ATF_WTF_BI_FLOW_BRANCH },
    { "wtf.flow#extend", ATF_WTF_BI_FLOW_EXTEND },
    { "wtf.flow#terminate", ATF_WTF_BI_FLOW_TERMINATE },
    { "wtf.flow#appendData", ATF_WTF_BI_FLOW_APPEND_DATA },
    { "wtf.trace#mark", ATF_WTF_BI_MARK },
    { "wtf.trace#timeStamp", ATF_WTF_BI_TIME_STAMP },
    { "wtf.timeRange#begin", ATF_WTF_BI_TIME_RANGE_BEGIN },
    { "wtf.timeRange#end", ATF_WTF_BI_TIME_RANGE_END },
};

unsigned wtf_builtin_of(const char *name)
{
    for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++)
        if (strcmp(builtin_names[i].name, name) == 0)
            return builtin_names[i].builtin;
    return ATF_WTF_BI_NONE;
}

const char *wtf_builtin_name(unsigned builtin)
{
    for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++)
        if (builtin_names[i].builtin == builtin)
            return builtin_names[i].name;
    return NULL;
}

/* ---- String tables -------------------------------------------------------- */

atf_status atf_wtf_strings_init(atf_wtf_strings *st, const void *data, uint32_t size, atf_error *err)
{
    memset(st, 0, sizeof *st);
    st->data = (const char *)data;
    st->size = size;
    if (size == 0)
        return ATF_OK;
    const char *p = st->data;
    /* One pass: the index grows by doubling (a table's strings are often
     * short: a second pass to count them first cost as much as this one). */
    uint32_t n = 0, cap = 0, at = 0;
    const char *z;
    while (at < size && (z = memchr(p + at, 0, size - at)) != NULL) {
        if (n == cap) {
            uint32_t grown = cap ? (cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2) : 256;
            uint32_t *t = (uint32_t *)realloc(st->starts, (size_t)grown * sizeof *t);
            if (!t) {
                free(st->starts);
                st->starts = NULL;
                return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, "string_table", "cannot index %u strings",
                                (unsigned)n + 1);
            }
            st->starts = t;
            cap = grown;
        }
        st->starts[n++] = at;
        at = (uint32_t)(z - p) + 1;
    }
    st->count = n;
    st->unterminated = at < size;
    return ATF_OK;
}

void atf_wtf_strings_free(atf_wtf_strings *st)
{
    if (st) {
        free(st->starts);
        /* Empty, not a view of the table it was (the reader reuses it). */
        memset(st, 0, sizeof *st);
    }
}

atf_status atf_wtf_strings_get(const atf_wtf_strings *st, uint32_t ord, const char **s, uint32_t *len)
{
    return wtf_string_at(st, ord, s, len) ? ATF_OK : ATF_E_RANGE;
}

/* ---- Events ------------------------------------------------------------------ */

static int is_string_type(atf_wtf_type t)
{
    return t == ATF_WTF_ASCII || t == ATF_WTF_UTF8 || t == ATF_WTF_ANY;
}

/* Checks argument @i's bytes at @at (relative to buf) and returns its size,
 * or 0 with err filled. */
static uint32_t arg_size(const atf_wtf_arg *a, const atf_wtf_strings *st, const uint8_t *buf, size_t len,
                         size_t at, atf_status *st_out, atf_error *err, uint64_t base)
{
    if (len - at < 4) {
        *st_out = atf_fail(err, ATF_E_TRUNCATED, base + at, "event.args", "argument %s runs past the event buffer",
                           a->name);
        return 0;
    }
    uint32_t v = atf_load_le32(buf + at);
    if (!a->array) {
        if (is_string_type(a->type) && v != ATF_WTF_STRING_NULL && v != ATF_WTF_STRING_EMPTY &&
            (!st || v >= st->count)) {
            *st_out = atf_fail(err, ATF_E_RANGE, base + at, "event.args",
                               "string ordinal %u of argument %s: the chunk's table has %u strings", (unsigned)v,
                               a->name, st ? (unsigned)st->count : 0u);
            return 0;
        }
        return 4;
    }
    int32_t n = (int32_t)v;
    if (n == -1)
        return 4;
    if (n < 0) {
        *st_out = atf_fail(err, ATF_E_LENGTH, base + at, "event.args", "array %s: length %d", a->name, (int)n);
        return 0;
    }
    uint64_t bytes = (uint64_t)(uint32_t)n * atf_wtf_elem_size(a->type);
    bytes = (bytes + 3) & ~(uint64_t)3;
    if (bytes > len - at - 4) {
        *st_out = atf_fail(err, ATF_E_TRUNCATED, base + at, "event.args",
                           "array %s of %d elements runs past the event buffer", a->name, (int)n);
        return 0;
    }
    if (is_string_type(a->type))
        for (int32_t k = 0; k < n; k++) {
            uint32_t o = atf_load_le32(buf + at + 4 + 4 * (size_t)k);
            if (o != ATF_WTF_STRING_NULL && o != ATF_WTF_STRING_EMPTY && (!st || o >= st->count)) {
                *st_out = atf_fail(err, ATF_E_RANGE, base + at + 4 + 4 * (uint64_t)k, "event.args",
                                   "string ordinal %u in array %s: the chunk's table has %u strings", (unsigned)o,
                                   a->name, st ? (unsigned)st->count : 0u);
                return 0;
            }
        }
    return (uint32_t)(4 + bytes);
}

atf_status wtf_decode_event_at(const atf_wtf_def *const *defs, size_t ndefs, const atf_wtf_strings *st,
                               const uint8_t *buf, size_t len, size_t pos, uint64_t base, uint32_t *size,
                               atf_error *err)
{
    if (pos > len || len - pos < 8)
        return atf_fail(err, ATF_E_TRUNCATED, base + pos, "event", "%zu bytes left: an event header is 8",
                        pos > len ? (size_t)0 : len - pos);
    uint32_t wire = atf_load_le32(buf + pos);
    const atf_wtf_def *d = wire < ndefs ? defs[wire] : NULL;
    if (!d)
        return atf_fail(err, ATF_E_NOT_FOUND, base + pos, "event.wire_id",
                        "wire id %u is not defined (no wtf.event#define before it)", (unsigned)wire);
    size_t at = pos + 8;
    for (size_t i = 0; i < d->arg_count; i++) {
        atf_status s = ATF_OK;
        uint32_t k = arg_size(&d->args[i], st, buf, len, at, &s, err, base);
        if (!k)
            return s;
        at += k;
    }
    *size = (uint32_t)(at - pos);
    return ATF_OK;
}

atf_status atf_wtf_decode_event(const atf_wtf_def *const *defs, size_t ndefs, const atf_wtf_strings *st,
                                const uint8_t *buf, size_t len, size_t pos, uint32_t *size, atf_error *err)
{
    return wtf_decode_event_at(defs, ndefs, st, buf, len, pos, 0, size, err);
}

atf_status atf_wtf_array_elem(const atf_wtf_value *v, uint32_t k, const atf_wtf_strings *st, atf_wtf_value *out)
{
    memset(out, 0, sizeof *out);
    if (!v->array || v->is_null || k >= v->count)
        return ATF_E_RANGE;
    unsigned es = atf_wtf_elem_size(v->type);
    uint8_t tmp[4] = { 0, 0, 0, 0 };
    memcpy(tmp, v->elems + (size_t)k * es, es);
    wtf_scalar(v->type, tmp, st, out);
    return ATF_OK;
}

#define U_ 0xFFu
const wtf_scalar_form wtf_scalar_forms[16] = {
    /* 0 and anything past the table: the word as it is (u) */
    [0] = { 0xFFFFFFFFu, U_, 0, 0, 0 },
    [ATF_WTF_BOOL] = { 0xFFu, U_, 1, 0, 0 },
    [ATF_WTF_INT8] = { 0, 24, 0, 0, 0 },
    [ATF_WTF_UINT8] = { 0xFFu, U_, 0, 0, 0 },
    [ATF_WTF_INT16] = { 0, 16, 0, 0, 0 },
    [ATF_WTF_UINT16] = { 0xFFFFu, U_, 0, 0, 0 },
    [ATF_WTF_INT32] = { 0, 0, 0, 0, 0 },
    [ATF_WTF_UINT32] = { 0xFFFFFFFFu, U_, 0, 0, 0 },
    [ATF_WTF_FLOAT32] = { 0, U_, 0, 1, 0 },
    [ATF_WTF_FLOWID] = { 0xFFFFFFFFu, U_, 0, 0, 0 },
    [ATF_WTF_TIME32] = { 0xFFFFFFFFu, U_, 0, 0, 0 },
    [ATF_WTF_ASCII] = { 0xFFFFFFFFu, U_, 0, 0, 1 },
    [ATF_WTF_UTF8] = { 0xFFFFFFFFu, U_, 0, 0, 1 },
    [ATF_WTF_ANY] = { 0xFFFFFFFFu, U_, 0, 0, 1 },
    [ATF_WTF_CHAR] = { 0xFFu, U_, 0, 0, 0 },
    [ATF_WTF_WCHAR] = { 0xFFFFu, U_, 0, 0, 0 },
};
#undef U_

atf_status wtf_arg_value_walk(const atf_wtf_def *d, const uint8_t *args, size_t avail, const atf_wtf_strings *st,
                              size_t i, atf_wtf_value *out)
{
    size_t at = 0;
    for (size_t k = 0; k <= i; k++) {
        const atf_wtf_arg *a = &d->args[k];
        if (avail - at < 4)
            return ATF_E_TRUNCATED;
        uint32_t v = atf_load_le32(args + at);
        uint32_t size = 4;
        if (a->array && (int32_t)v >= 0)
            size = 4 + (((uint32_t)v * atf_wtf_elem_size(a->type) + 3) & ~3u);
        if (k == i) {
            out->type = a->type;
            if (!a->array) {
                wtf_scalar(a->type, args + at, st, out);
                return ATF_OK;
            }
            out->array = 1;
            out->is_null = (int32_t)v < 0;
            out->count = out->is_null ? 0 : v;
            out->elems = args + at + 4;
            return ATF_OK;
        }
        at += size;
    }
    return ATF_E_RANGE;
}
