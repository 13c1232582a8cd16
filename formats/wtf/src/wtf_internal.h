/* Internal parts of the WTF codec shared by its sources, the validator's
 * WTF pass and the fuzz targets (not installed). */
#ifndef ATF_WTF_INTERNAL_H
#define ATF_WTF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <atf/wtf.h>
#include "bytes.h"

/* The built-in event (ATF_WTF_BI_*) a name is, or 0. */
unsigned wtf_builtin_of(const char *name);
/* The name of built-in @builtin, or NULL. */
const char *wtf_builtin_name(unsigned builtin);

/* atf_wtf_decode_event() with @base added to every offset in @err (the
 * buffer's offset in the file). */
atf_status wtf_decode_event_at(const atf_wtf_def *const *defs, size_t ndefs, const atf_wtf_strings *st,
                               const uint8_t *buf, size_t len, size_t pos, uint64_t base, uint32_t *size,
                               atf_error *err);

/* String @ord of @st: 1 and *s, *len set (NULL for the null ordinal, ""
 * for the empty one), 0 when it is not in the table. Inline: the reader
 * and the validator look up one or two an event. */
static inline int wtf_string_at(const atf_wtf_strings *st, uint32_t ord, const char **s, uint32_t *len)
{
    if (ord >= ATF_WTF_STRING_EMPTY) {
        *s = ord == ATF_WTF_STRING_NULL ? NULL : "";
        *len = 0;
        return 1;
    }
    if (!st || ord >= st->count)
        return 0;
    uint32_t a = st->starts[ord];
    uint32_t b = ord + 1 < st->count
                     ? st->starts[ord + 1] - 1
                     : (uint32_t)((const char *)memchr(st->data + a, 0, st->size - a) - st->data);
    *s = st->data + a;
    *len = b - a;
    return 1;
}

/* Decodes a checked scalar slot @p of type @t into @out (zeroed by the caller). */
/* How a scalar of each type is read from its 32-bit slot, without a
 * branch on the type (argument types vary event by event): the unsigned
 * value's mask (0: not unsigned), the shift that sign-extends a signed one
 * (0xFF: not signed), and whether it is a bool, a float32 or a string. */
typedef struct wtf_scalar_form {
    uint32_t umask;
    uint8_t ishift, is_bool, is_float, is_string;
} wtf_scalar_form;

extern const wtf_scalar_form wtf_scalar_forms[16];

/* A scalar argument (@out zeroed by the caller): u for unsigned types,
 * bool, flowId, time32 and string ordinals; i for signed types; f for
 * float32; s and s_len for strings (NULL and is_null for the null string
 * or an ordinal past the table). */
static inline void wtf_scalar(atf_wtf_type t, const uint8_t *p, const atf_wtf_strings *st, atf_wtf_value *out)
{
    uint32_t v = atf_load_le32(p);
    const wtf_scalar_form *fm = &wtf_scalar_forms[(unsigned)t < 16u ? (unsigned)t : 0u];
    out->type = t;
    uint32_t u = v & fm->umask;
    out->u = fm->is_bool ? (uint32_t)(u != 0) : u;
    unsigned sh = fm->ishift & 31u;
    int32_t i = (int32_t)(v << sh) >> sh;
    out->i = fm->ishift == 0xFF ? 0 : i;
    float f;
    memcpy(&f, &v, 4);
    out->f = fm->is_float ? (double)f : 0.0;
    if (fm->is_string) {
        if (!wtf_string_at(st, v, &out->s, &out->s_len)) {
            out->s = NULL;
            out->s_len = 0;
        }
        out->is_null = out->s == NULL;
    }
}

/* wtf_arg_value() past its fast case: an event with array arguments. */
atf_status wtf_arg_value_walk(const atf_wtf_def *d, const uint8_t *args, size_t avail, const atf_wtf_strings *st,
                              size_t i, atf_wtf_value *out);

/* Argument @i of an event of definition @d whose argument bytes are @args
 * (@avail of them; the event was checked by the decoder). Inline for the
 * common case, an event of fixed size, where argument i is the i-th slot. */
static inline atf_status wtf_arg_value(const atf_wtf_def *d, const uint8_t *args, size_t avail,
                                       const atf_wtf_strings *st, size_t i, atf_wtf_value *out)
{
    memset(out, 0, sizeof *out);
    if (i >= d->arg_count)
        return ATF_E_RANGE;
    if (d->fixed_size && avail >= 4 * (i + 1)) {
        wtf_scalar(d->args[i].type, args + 4 * i, st, out);
        return ATF_OK;
    }
    return wtf_arg_value_walk(d, args, avail, st, i, out);
}

/* How JSON text (the file header, `any` arguments) is read, as
 * docs/wtf-dump-format.md says: one value of any kind, every number a
 * double, \u0000 allowed (jansson's json_loadb flags). */
#define WTF_JSON_FLAGS (JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL)

/* The signature of wtf.event#define, the one event every file knows. */
#define WTF_DEFINE_SIGNATURE "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args"

/* The size of the event at @pos when its type has a fixed size (no array
 * argument) and it is whole and its string ordinals are in @st's table (or
 * null or empty): the common case, decided without the general decoder.
 * 0: use wtf_decode_event_at(), which also says what is wrong. */
static inline uint32_t wtf_fast_size(const atf_wtf_def *const *defs, size_t ndefs, const atf_wtf_strings *st,
                                     const uint8_t *buf, size_t len, size_t pos)
{
    if (len - pos < 8)
        return 0;
    const uint8_t *p = buf + pos;
    uint32_t wire = atf_load_le32(p);
    const atf_wtf_def *d = wire < ndefs ? defs[wire] : NULL;
    if (!d || !d->fixed_size || d->fixed_size > len - pos)
        return 0;
    uint32_t count = st ? st->count : 0;
    for (uint64_t m = d->string_args; m; m &= m - 1) {
        const uint8_t *a = p + 8 + 4 * (unsigned)__builtin_ctzll(m);
        uint32_t v = atf_load_le32(a);
        if (v >= count && v < ATF_WTF_STRING_EMPTY)
            return 0;
    }
    return d->fixed_size;
}

/* What the fast paths of the reader and the validator need of a wire id's
 * definition, in 32 bytes (a definition is 1.6 KB): looked up per event,
 * with no branch on the kind of event (random mixes of scopes and leaves
 * would mispredict). A plan never set (calloc'd) is not fast. */
typedef struct wtf_plan {
    uint32_t size;        /* every event's size when the fast paths may take it (fixed size, not a
                             define or a zone event: those update tables); 0 otherwise */
    uint8_t pad;          /* (the plan stays 32 bytes) */
    int8_t delta;         /* scope depth after it: +1 a scope, -1 wtf.scope#leave, 0 */
    uint8_t ordered;      /* not built-in: WTF-EVT-006 orders its times */
    uint8_t any0;         /* the first string argument is an `any` */
    uint32_t s0;          /* byte offset of the first string argument in the event, 0: none */
    uint32_t no_s0;       /* 0xFFFFFFFF when there is none: OR'd into the word read at s0 (the event's wire id),
                             it reads as the null ordinal */
    uint64_t more;        /* bit i: argument i is a string ordinal too (after the first) */
    uint64_t anys;        /* bit i: argument i is an `any` */
} wtf_plan;

/* The plan of @d (NULL: zero, not fast). */
void wtf_plan_of(wtf_plan *p, const atf_wtf_def *d);
/* A plan that is never fast (for wire ids past the table). */
extern const wtf_plan wtf_plan_none;

/* 1 when every string argument of the event at @p (of plan @pl, whole) is
 * an ordinal of @st's table, or null, or empty. The first one without a
 * branch (an event without one reads the null ordinal). */
static inline int wtf_plan_strings_ok(const wtf_plan *pl, const atf_wtf_strings *st, const uint8_t *p)
{
    uint32_t count = st->count;
    const uint8_t *a = p + pl->s0;
    uint32_t v = atf_load_le32(a) | pl->no_s0;
    int ok = v < count || v >= ATF_WTF_STRING_EMPTY;
    for (uint64_t m = pl->more; m; m &= m - 1) {
        a = p + 8 + 4 * (unsigned)__builtin_ctzll(m);
        v = atf_load_le32(a);
        ok &= v < count || v >= ATF_WTF_STRING_EMPTY;
    }
    return ok;
}

/* A definition made from a define event's arguments (owned copy). NULL
 * and @err filled when the signature does not parse. */
atf_wtf_def *wtf_def_new(uint16_t wire_id, uint16_t event_class, uint32_t flags, const char *name, size_t name_len,
                         const char *sig, size_t sig_len, atf_error *err);
void wtf_def_free(atf_wtf_def *d);
/* 1 when two definitions say the same (class, flags, name, signature). */
int wtf_def_same(const atf_wtf_def *a, const atf_wtf_def *b);

/* What the reader noticed on the way that a validator reports: the reader
 * itself reads on. Filled by atf_wtf_reader_next_event() for the event it
 * returns. */
typedef struct wtf_event_notes {
    unsigned redefined;        /* a define of a wire id already defined */
    unsigned redefined_differs;/* ... with another name or signature */
    unsigned define_bad;       /* a define that defines nothing: no name, wire id 0, or a signature that does not
                                  parse (its events are undefined later) */
    unsigned leave_unbalanced; /* a wtf.scope#leave with no open scope in its zone */
    unsigned zone_unknown;     /* a wtf.zone#set of a zone never created */
    atf_error define_error;    /* why the define was refused */
} wtf_event_notes;

const wtf_event_notes *wtf_reader_notes(const atf_wtf_reader *r);
/* The current chunk's binary event buffer part, or NULL. */
const atf_wtf_part *wtf_reader_event_part(const atf_wtf_reader *r);
/* Open scopes per zone at the end (for the validator's balance check):
 * calls @fn for every zone with open scopes. Zone -1: no zone set. */
void wtf_reader_open_scopes(const atf_wtf_reader *r, void (*fn)(void *user, int32_t zone, uint32_t depth),
                            void *user);
/* atf_wtf_read_parts_memory(), and in *settled the parts whose start
 * state the scan ahead gave (not read again): for tests. */
atf_status wtf_read_parts_memory(const void *data, size_t size, const char *name, unsigned threads,
                                 atf_wtf_part_fn fn, void *user, atf_wtf_summary *sum, unsigned *settled,
                                 atf_error *err);
/* Name given to the reader (for messages). */
const char *wtf_reader_name(const atf_wtf_reader *r);

#endif /* ATF_WTF_INTERNAL_H */
