/* `atf export`: a session as a timeline, one track per thread, in Perfetto's
 * protobuf Trace format, Chrome's JSON trace format, or the files of a format
 * that exports into itself (its tools part, tool_format.h; docs/export.md).
 * Streams thread by thread through one slice
 * builder: memory is bounded by the call depth and the number of distinct
 * function names. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/export.h>

#include "export_internal.h"
#include "internal.h"
#include "tool_format.h"

/* ---- Function names, interned ---------------------------------------- */

/* Names of at most this many distinct functions are kept; beyond, they are
 * made again for every event (garbage must not cost memory). */
#define NAMES_MAX (1u << 20)

static void name_of(char *buf, size_t cap, const atf_manifest *m, uint64_t fid, const char **out)
{
    const char *sym = atf_manifest_symbol_name(m, fid);
    if (sym) {
        *out = sym;
        return;
    }
    static const char digits[] = "0123456789abcdef";
    if (cap < 19)
        return;
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 16; i++)
        buf[2 + i] = digits[(fid >> (60 - 4 * i)) & 15];
    buf[18] = '\0';
    *out = buf;
}

name_entry *export_name_get(name_table *t, const atf_manifest *m, uint64_t fid, name_entry *tmp, char *tmpbuf,
                            int *nomem)
{
    int64_t i = atf_u64map_find(&t->map, fid);
    if (i >= 0)
        return &t->entries[i];
    const char *text = NULL;
    name_of(tmpbuf, 32, m, fid, &text);
    if (t->map.count >= NAMES_MAX) {
        *tmp = (name_entry){ fid, 0, 0, (char *)text, strlen(text) };
        return NULL;
    }
    if (t->map.count == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 512;
        name_entry *ne = realloc(t->entries, ncap * sizeof *ne);
        if (!ne) {
            *nomem = 1;
            return NULL;
        }
        t->entries = ne;
        t->cap = ncap;
    }
    char *copy = atf_strdup(text);
    if (!copy || (i = atf_u64map_put(&t->map, fid, NULL)) < 0) {
        free(copy);
        *nomem = 1;
        return NULL;
    }
    name_entry *e = &t->entries[i];
    *e = (name_entry){ fid, ++t->next_iid, 0, copy, strlen(text) };
    return e;
}

static void names_free(name_table *t)
{
    for (size_t i = 0; i < t->map.count; i++)
        free(t->entries[i].text);
    free(t->entries);
    atf_u64map_free(&t->map);
    memset(t, 0, sizeof *t);
}

/* ---- Protobuf, by hand ----------------------------------------------- */

/* A packet being built. Nested lengths are 4-byte varints (non-minimal,
 * which every protobuf parser accepts), patched when the message ends. */
#define pb_reserve atf_bytebuf_reserve

/* Callers reserve first: each of these writes at most 20 bytes plus data.
 * They work on a local cursor: a store through b->p could alias b itself,
 * and the compiler would reload b->p and b->n after every byte. */
static inline uint8_t *pb_put_varint(uint8_t *p, uint64_t v)
{
    if (v < 0x80) {
        *p = (uint8_t)v;
        return p + 1;
    }
#if defined(__GNUC__)
    /* Without a branch per byte (the lengths of register values vary, and
     * each loop exit mispredicts): all ten bytes are stored, the length
     * comes from the highest bit set, the last byte loses its continuation
     * bit. The caller's reserve covers the ten. */
    size_t n = (size_t)(64 - __builtin_clzll(v) + 6) / 7;
    for (int i = 0; i < 10; i++)
        p[i] = (uint8_t)(v >> (7 * i)) | 0x80;
    p[n - 1] &= 0x7f;
    return p + n;
#else
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
#endif
}

static void pb_varint(pb *b, uint64_t v)
{
    b->n = (size_t)(pb_put_varint(b->p + b->n, v) - b->p);
}

static inline void pb_uint(pb *b, unsigned field, uint64_t v)
{
    b->n = (size_t)(pb_put_varint(pb_put_varint(b->p + b->n, (uint64_t)field << 3), v) - b->p);
}

static void pb_bytes(pb *b, unsigned field, const void *data, size_t len)
{
    uint8_t *p = pb_put_varint(b->p + b->n, (uint64_t)field << 3 | 2);
    p = pb_put_varint(p, len);
    memcpy(p, data, len);
    b->n = (size_t)(p + len - b->p);
}

static size_t pb_open(pb *b, unsigned field)
{
    pb_varint(b, (uint64_t)field << 3 | 2);
    size_t at = b->n;
    b->n += 4;
    return at;
}

static void pb_close(pb *b, size_t at)
{
    uint32_t len = (uint32_t)(b->n - at - 4);
    b->p[at] = (uint8_t)(len | 0x80);
    b->p[at + 1] = (uint8_t)(len >> 7 | 0x80);
    b->p[at + 2] = (uint8_t)(len >> 14 | 0x80);
    b->p[at + 3] = (uint8_t)(len >> 21 & 0x7f);
}

/* Field numbers (perfetto/trace/...proto). */
enum {
    TRACE_PACKET = 1,
    PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10, PKT_TRACK_EVENT = 11, PKT_INTERNED = 12, PKT_SEQ_FLAGS = 13,
    PKT_TRACK_DESCRIPTOR = 60,
    SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2,
    TE_DEBUG = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK_UUID = 11, TE_NAME = 23,
    TE_SLICE_BEGIN = 1, TE_SLICE_END = 2, TE_INSTANT = 3,
    INTERNED_EVENT_NAMES = 2, EVENT_NAME_IID = 1, EVENT_NAME_NAME = 2,
    TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
    PD_PID = 1, PD_NAME = 6,
    THD_PID = 1, THD_TID = 2, THD_NAME = 5,
    DA_BOOL = 2, DA_UINT = 3, DA_STRING = 6, DA_POINTER = 7, DA_NAME = 10
};

/* ---- The export ------------------------------------------------------ */

enum { PROCESS_UUID = 1, ANCHOR_UUID = 2, THREAD_UUID0 = 16, DESCRIPTOR_SEQ = 1, THREAD_SEQ0 = 2 };

/* A packet is built straight into the output buffer behind its field tag
 * and a 4-byte length, patched by packet_end(); one larger than the buffer
 * is built in a scratch buffer and copied. */
static int packet_begin(exporter *x, size_t need)
{
    if (need + 5 <= OBUF_SIZE) {
        unsigned char *p = ob_room(x->out, need + 5);
        x->scratch = x->pk;
        x->pk = (pb){ p + 5, 0, need };
        x->in_place = 1;
        return 0;
    }
    x->in_place = 0;
    x->pk.n = 0;
    return pb_reserve(&x->pk, need);
}

static void packet_end(exporter *x)
{
    uint32_t len = (uint32_t)x->pk.n;
    if (x->in_place) {
        unsigned char *p = x->pk.p - 5;
        p[0] = TRACE_PACKET << 3 | 2;
        p[1] = (uint8_t)(len | 0x80);
        p[2] = (uint8_t)(len >> 7 | 0x80);
        p[3] = (uint8_t)(len >> 14 | 0x80);
        p[4] = (uint8_t)(len >> 21 & 0x7f);
        x->out->n += 5 + len;
        x->pk = x->scratch;
        x->in_place = 0;
        return;
    }
    unsigned char *p = ob_room(x->out, 6);
    size_t k = 0;
    p[k++] = TRACE_PACKET << 3 | 2;
    uint32_t v = len;
    for (; v >= 0x80; v >>= 7)
        p[k++] = (unsigned char)(v | 0x80);
    p[k++] = (unsigned char)v;
    x->out->n += k;
    ob_put(x->out, x->pk.p, x->pk.n);
    x->pk.n = 0;
}

/* Chrome JSON: the separator before an event. */
static void json_next(exporter *x)
{
    if (x->first_json)
        x->first_json = 0;
    else
        ob_lit(x->out, ",\n");
}

/* Chrome JSON: ts in microseconds, the nanoseconds kept as three decimals. */
static void json_ts(obuf *o, uint64_t ns)
{
    ob_u64(o, ns / 1000);
    unsigned r = (unsigned)(ns % 1000);
    unsigned char *p = ob_room(o, 4);
    p[0] = '.';
    p[1] = (unsigned char)('0' + r / 100);
    p[2] = (unsigned char)('0' + r / 10 % 10);
    p[3] = (unsigned char)('0' + r % 10);
    o->n += 4;
}

static void json_head(exporter *x, const char *ph, uint64_t tid, uint64_t ts)
{
    obuf *o = x->out;
    json_next(x);
    ob_lit(o, "{\"ph\":\"");
    ob_put(o, ph, strlen(ph));
    ob_lit(o, "\",\"pid\":");
    ob_u64(o, x->pid);
    ob_lit(o, ",\"tid\":");
    ob_u64(o, tid);
    ob_lit(o, ",\"ts\":");
    json_ts(o, ts);
}

/* ---- Arguments: the linked detail event ------------------------------ */

/* Argument names: [0] of a call's detail, [1] of a return's ("ret_"). */
const char *const export_reg_names[2][11] = {
    { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "lr", "fp", "sp" },
    { "ret_x0", "ret_x1", "ret_x2", "ret_x3", "ret_x4", "ret_x5", "ret_x6", "ret_x7", "ret_lr", "ret_fp", "ret_sp" },
};
static const char *const stack_size_name[2] = { "stack_size", "ret_stack_size" };
static const char *const type_name[2] = { "detail_type", "ret_detail_type" };
static const char *const length_name[2] = { "detail_length", "ret_detail_length" };
static const char *const bytes_name[2] = { "detail_first_bytes", "ret_detail_first_bytes" };

int export_load_detail(exporter *x, const atf_index_event *ev, detail_args *da)
{
    const tool_thread *t = x->thread;
    if (!ev || ev->detail_seq == ATF_NO_DETAIL || !t->detail ||
        atf_detail_reader_follow(t->detail, ev, &da->d) != ATF_OK)
        return 0;
    atf_arm64_payload a;
    da->arm = atf_detail_reader_header(t->detail)->arch == ATF_ARCH_ARM64 &&
              (da->d.event_type == ATF_DETAIL_FUNCTION_CALL || da->d.event_type == ATF_DETAIL_FUNCTION_RETURN) &&
              atf_arm64_payload_decode(&a, da->d.payload, da->d.payload_size, NULL) == ATF_OK;
    if (da->arm) {
        for (int i = 0; i < 8; i++)
            da->regs[i] = a.x[i];
        da->regs[8] = a.lr;
        da->regs[9] = a.fp;
        da->regs[10] = a.sp;
        da->stack_size = a.stack_size;
    }
    x->stats->details++;
    return 1;
}

/* A debug annotation's name as it is written: its length, then its bytes,
 * padded to 16 so that it is copied in one fixed-size move. */
typedef struct annot_name {
    uint8_t len;
    char text[15];
} annot_name;
#define ANNOT_NAME(s) { (uint8_t)(sizeof(s) - 1), s }

/* The ARM64 detail's annotations, in detail_args.regs order and then the
 * stack size: [0] of a call's, [1] of a return's (export_reg_names, stack_size_name). */
static const annot_name arm_annot[2][12] = {
    { ANNOT_NAME("x0"), ANNOT_NAME("x1"), ANNOT_NAME("x2"), ANNOT_NAME("x3"), ANNOT_NAME("x4"), ANNOT_NAME("x5"),
      ANNOT_NAME("x6"), ANNOT_NAME("x7"), ANNOT_NAME("lr"), ANNOT_NAME("fp"), ANNOT_NAME("sp"),
      ANNOT_NAME("stack_size") },
    { ANNOT_NAME("ret_x0"), ANNOT_NAME("ret_x1"), ANNOT_NAME("ret_x2"), ANNOT_NAME("ret_x3"), ANNOT_NAME("ret_x4"),
      ANNOT_NAME("ret_x5"), ANNOT_NAME("ret_x6"), ANNOT_NAME("ret_x7"), ANNOT_NAME("ret_lr"), ANNOT_NAME("ret_fp"),
      ANNOT_NAME("ret_sp"), ANNOT_NAME("ret_stack_size") },
};

/* A debug annotation {name, uint or pointer value}; the caller reserved
 * 16 bytes past it. */
static void pb_annot_fixed(pb *b, const annot_name *name, uint64_t v, int pointer)
{
    /* The message length is one byte, known in advance (at most 2 + 15 + 11 bytes). */
    uint8_t *p = b->p + b->n;
    p[0] = TE_DEBUG << 3 | 2;
    p[2] = DA_NAME << 3 | 2;
    memcpy(p + 3, name, sizeof *name);
    uint8_t *q = p + 4 + name->len;
    *q = (uint8_t)((pointer ? DA_POINTER : DA_UINT) << 3);
    q = pb_put_varint(q + 1, v);
    p[1] = (uint8_t)(q - p - 2);
    b->n = (size_t)(q - b->p);
}

static void pb_annot_uint(pb *b, const char *name, uint64_t v, int pointer)
{
    /* Names are short: the message length is one byte, known in advance. */
    size_t n = strlen(name);
    b->p[b->n++] = TE_DEBUG << 3 | 2;
    size_t at = b->n++;
    pb_bytes(b, DA_NAME, name, n);
    pb_uint(b, pointer ? DA_POINTER : DA_UINT, v);
    b->p[at] = (uint8_t)(b->n - at - 1);
}

/* Perfetto: the detail as debug annotations (ret = 1: of a return, named
 * "ret_...", so that the call's and the return's stay apart on one slice). */
static void pb_detail(exporter *x, const atf_index_event *ev, int ret)
{
    detail_args da;
    if (!export_load_detail(x, ev, &da))
        return;
    pb *b = &x->pk;
    if (da.arm) {
        for (int i = 0; i < 11; i++)
            pb_annot_fixed(b, &arm_annot[ret][i], da.regs[i], 1);
        pb_annot_fixed(b, &arm_annot[ret][11], da.stack_size, 0);
        return;
    }
    pb_annot_uint(b, type_name[ret], da.d.event_type, 0);
    pb_annot_uint(b, length_name[ret], da.d.payload_size, 0);
    unsigned char hex[2 * EXPORT_PREVIEW_BYTES];
    size_t k = da.d.payload_size < EXPORT_PREVIEW_BYTES ? da.d.payload_size : EXPORT_PREVIEW_BYTES;
    for (size_t i = 0; i < k; i++)
        memcpy(hex + 2 * i, ob_hex_pairs + 2 * da.d.payload[i], 2);
    size_t at = pb_open(b, TE_DEBUG);
    pb_bytes(b, DA_NAME, bytes_name[ret], strlen(bytes_name[ret]));
    pb_bytes(b, DA_STRING, hex, 2 * k);
    pb_close(b, at);
}

/* Chrome JSON: opens the next member of "args", and "args" itself first. */
static void args_key(obuf *o, int *first)
{
    if (*first)
        ob_lit(o, ",\"args\":{\"");
    else
        ob_lit(o, ",\"");
    *first = 0;
}

/* Chrome JSON: the same as "args" members; *first: "args" is not open yet. */
static void json_detail(exporter *x, const atf_index_event *ev, int ret, int *first)
{
    detail_args da;
    if (!export_load_detail(x, ev, &da))
        return;
    obuf *o = x->out;
    if (da.arm) {
        for (int i = 0; i < 11; i++) {
            args_key(o, first);
            ob_put(o, export_reg_names[ret][i], strlen(export_reg_names[ret][i]));
            ob_lit(o, "\":\"");
            ob_hex64(o, da.regs[i]);
            ob_char(o, '"');
        }
        ob_lit(o, ",\"");
        ob_put(o, stack_size_name[ret], strlen(stack_size_name[ret]));
        ob_lit(o, "\":");
        ob_u64(o, da.stack_size);
        return;
    }
    args_key(o, first);
    ob_put(o, type_name[ret], strlen(type_name[ret]));
    ob_lit(o, "\":");
    ob_u64(o, da.d.event_type);
    ob_lit(o, ",\"");
    ob_put(o, length_name[ret], strlen(length_name[ret]));
    ob_lit(o, "\":");
    ob_u64(o, da.d.payload_size);
    ob_lit(o, ",\"");
    ob_put(o, bytes_name[ret], strlen(bytes_name[ret]));
    ob_lit(o, "\":\"");
    ob_hex(o, da.d.payload, da.d.payload_size < EXPORT_PREVIEW_BYTES ? da.d.payload_size : EXPORT_PREVIEW_BYTES);
    ob_char(o, '"');
}

/* ---- Slices to the output -------------------------------------------- */

/* The slice flags' annotations (ATF_SLICE_UNCLOSED, _UNWOUND, _CLIPPED, _EXCEPTION). */
static const annot_name flag_annot[4] = { ANNOT_NAME("unclosed"), ANNOT_NAME("unwound"), ANNOT_NAME("clipped"),
                                          ANNOT_NAME("exception") };

/* A slice planned (its name interned, its sequence state decided: what
 * must be done in order) and not yet encoded (what workers may do). */
typedef struct slice_rec {
    uint64_t ts, iid, detail_seq;   /* iid 0: the name is written out; detail_seq ATF_NO_DETAIL: none */
    const char *name;               /* NULL: the name is in hex (or there is none: an end) */
    uint32_t name_len;
    uint32_t flags;
    uint8_t kind;
    uint8_t emit_name;              /* the interned name goes in this packet */
    uint8_t cleared;                /* the sequence's first packet */
    char hex[19];
} slice_rec;

static int perfetto_plan(exporter *x, const atf_slice *s, slice_rec *r)
{
    r->ts = s->timestamp_ns;
    r->iid = 0;
    r->detail_seq = s->event ? s->event->detail_seq : ATF_NO_DETAIL;
    r->name = NULL;
    r->name_len = 0;
    r->flags = s->flags;
    r->kind = (uint8_t)s->kind;
    r->emit_name = 0;
    if (s->kind != ATF_SLICE_END) {
        char tmpbuf[32];
        name_entry tmp, *ne = export_name_get(&x->names, x->manifest, s->function_id, &tmp, tmpbuf, &x->nomem);
        if (x->nomem)
            return -1;
        if (ne) {
            r->iid = ne->iid;
            r->name = ne->text;
            r->name_len = (uint32_t)ne->len;
            r->emit_name = ne->emitted_seq != x->seq_id;
            ne->emitted_seq = x->seq_id;
        } else if (tmp.text == tmpbuf) {
            memcpy(r->hex, tmpbuf, sizeof r->hex);
            r->name_len = (uint32_t)tmp.len;
        } else {
            r->name = tmp.text;
            r->name_len = (uint32_t)tmp.len;
        }
    }
    r->cleared = !x->seq_started;
    x->seq_started = 1;
    return 0;
}

static int perfetto_encode(exporter *x, const slice_rec *r)
{
    if (packet_begin(x, 2048 + 2 * (size_t)r->name_len) != 0)
        return -1;
    const char *name = r->name ? r->name : r->hex;
    pb *b = &x->pk;
    pb_uint(b, PKT_TIMESTAMP, r->ts);
    pb_uint(b, PKT_SEQ_ID, x->seq_id);
    pb_uint(b, PKT_SEQ_FLAGS, r->cleared ? SEQ_CLEARED : SEQ_NEEDS_STATE);
    if (r->emit_name) {
        size_t id = pb_open(b, PKT_INTERNED);
        size_t en = pb_open(b, INTERNED_EVENT_NAMES);
        pb_uint(b, EVENT_NAME_IID, r->iid);
        pb_bytes(b, EVENT_NAME_NAME, name, r->name_len);
        pb_close(b, en);
        pb_close(b, id);
    }
    size_t te = pb_open(b, PKT_TRACK_EVENT);
    pb_uint(b, TE_TYPE, r->kind == ATF_SLICE_BEGIN ? TE_SLICE_BEGIN : r->kind == ATF_SLICE_END ? TE_SLICE_END
                                                                                             : TE_INSTANT);
    pb_uint(b, TE_TRACK_UUID, x->track_uuid);
    if (r->iid)
        pb_uint(b, TE_NAME_IID, r->iid);
    else if (r->kind != ATF_SLICE_END)
        pb_bytes(b, TE_NAME, name, r->name_len);
    if (r->flags & ATF_SLICE_UNCLOSED)
        pb_annot_fixed(b, &flag_annot[0], 1, 0);
    if (r->flags & ATF_SLICE_UNWOUND)
        pb_annot_fixed(b, &flag_annot[1], 1, 0);
    if (r->flags & ATF_SLICE_CLIPPED)
        pb_annot_fixed(b, &flag_annot[2], 1, 0);
    if (r->flags & ATF_SLICE_EXCEPTION)
        pb_annot_fixed(b, &flag_annot[3], 1, 0);
    if (r->detail_seq != ATF_NO_DETAIL) {
        atf_index_event ev = { 0 };
        ev.detail_seq = r->detail_seq;
        pb_detail(x, &ev, r->kind == ATF_SLICE_END);
    }
    pb_close(b, te);
    packet_end(x);
    return 0;
}

static int perfetto_slice(exporter *x, const atf_slice *s)
{
    slice_rec r;
    return perfetto_plan(x, s, &r) != 0 || perfetto_encode(x, &r) != 0 ? -1 : 0;
}

static void json_flag(obuf *o, const char *name, int *first)
{
    args_key(o, first);
    ob_put(o, name, strlen(name));
    ob_lit(o, "\":true");
}

/* Chrome JSON: B carries no "args" (speedscope names a frame by its name and
 * its args, so args on B would make one frame per call); the E event carries
 * them all, the call's detail and the return's ("ret_"), and viewers that
 * show arguments (chrome://tracing, Perfetto) merge them into the slice. */
static int chrome_slice(exporter *x, const atf_slice *s)
{
    obuf *o = x->out;
    json_head(x, s->kind == ATF_SLICE_BEGIN ? "B" : s->kind == ATF_SLICE_END ? "E" : "i", x->tid, s->timestamp_ns);
    char tmpbuf[32];
    name_entry tmp, *ne = export_name_get(&x->names, x->manifest, s->function_id, &tmp, tmpbuf, &x->nomem);
    if (x->nomem)
        return -1;
    ob_lit(o, ",\"name\":");
    ob_json_string(o, ne ? ne->text : tmp.text);
    if (s->kind == ATF_SLICE_INSTANT) {
        ob_lit(o, ",\"cat\":\"exception\",\"s\":\"t\",\"args\":{\"exception\":true");
        int open = 0;
        json_detail(x, s->event, 0, &open);
        ob_lit(o, "}}");
        return 0;
    }
    ob_lit(o, ",\"cat\":\"call\"");
    if (s->kind == ATF_SLICE_BEGIN) {
        ob_char(o, '}');
        return 0;
    }
    int first = 1;
    if (s->flags & ATF_SLICE_UNCLOSED)
        json_flag(o, "unclosed", &first);
    if (s->flags & ATF_SLICE_UNWOUND)
        json_flag(o, "unwound", &first);
    if (s->flags & ATF_SLICE_CLIPPED)
        json_flag(o, "clipped", &first);
    if (s->flags & ATF_SLICE_EXCEPTION)
        json_flag(o, "exception", &first);
    atf_index_event call;
    if (s->begin_seq != ATF_SLICE_NO_SEQ && atf_index_reader_get(x->thread->index, s->begin_seq, &call) == ATF_OK)
        json_detail(x, &call, 0, &first);
    json_detail(x, s->event, 1, &first);
    if (first)
        ob_char(o, '}');
    else
        ob_lit(o, "}}");
    return 0;
}

/* ---- Perfetto on several cores --------------------------------------------
 *
 * What must happen in order stays in this thread: the slice builder, the
 * interning of names (their iids and the sequence that has seen each) and
 * the sequences' state, written into records (perfetto_plan). The packets'
 * bytes are encoded from the records by jobs - 1 workers and by this thread
 * while it waits (perfetto_encode, the same function as in one thread), a
 * chunk of up to PAR_RECORDS records of one thread at a time into a slot's
 * in-memory buffer; this thread writes the slots out in chunk order. A
 * thread's track descriptor is written into its first chunk's buffer before
 * the records. Memory is fixed: 2 x jobs + 2 slots. */

#define PAR_RECORDS 1024

enum { PS_FREE, PS_FILLING, PS_SUBMITTED, PS_BUSY, PS_READY };

typedef struct par_chunk {
    int state;
    int nomem;                 /* an encoder ran out of memory */
    size_t count;
    const tool_thread *thread;
    uint64_t track_uuid, seq_id, details;
    slice_rec *recs;           /* PAR_RECORDS */
    obuf o;                    /* in memory */
} par_chunk;

typedef struct par_encoder {
    struct par_export *p;
    pthread_t tid;
    exporter x;                /* its packet buffers */
} par_encoder;

typedef struct par_export {
    par_chunk **slots;
    size_t nslots;
    uint64_t filled, taken, written;   /* chunks submitted, taken by an encoder, written out */
    par_chunk *cur;                    /* the chunk being filled (chunk number `filled`) */
    int done, write_failed;
    FILE *f;
    atf_export_stats *stats;
    par_encoder *enc;                  /* [0]: this thread's */
    unsigned jobs, started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} par_export;

/* Encodes chunk c into its buffer; called and returns with p->mu held. */
static void par_encode(par_export *p, par_encoder *e, par_chunk *c)
{
    c->state = PS_BUSY;
    p->taken++;
    pthread_mutex_unlock(&p->mu);
    exporter *x = &e->x;
    x->out = &c->o;
    x->thread = c->thread;
    x->track_uuid = c->track_uuid;
    x->seq_id = c->seq_id;
    atf_export_stats st = { 0 };
    x->stats = &st;
    for (size_t i = 0; i < c->count && !c->nomem; i++)
        c->nomem = perfetto_encode(x, &c->recs[i]) != 0 || c->o.failed;
    c->details = st.details;
    pthread_mutex_lock(&p->mu);
    c->state = PS_READY;
    pthread_cond_broadcast(&p->cv);
}

static void *par_encoder_main(void *arg)
{
    par_encoder *e = arg;
    par_export *p = e->p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->taken < p->filled)
            par_encode(p, e, p->slots[p->taken % p->nslots]);
        else if (p->done)
            break;
        else
            pthread_cond_wait(&p->cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Writes out the chunks that are ready, in order; then, if @until is not
 * written yet, encodes a chunk no one took or waits. Called and returns with
 * p->mu held. @return 1 once chunk number @until is written. */
static int par_progress(par_export *p, uint64_t until)
{
    while (p->written < p->filled) {
        par_chunk *c = p->slots[p->written % p->nslots];
        if (c->state != PS_READY)
            break;
        pthread_mutex_unlock(&p->mu);
        int bad = c->nomem;
        if (!bad && !p->write_failed && ob_write_mem(&c->o, p->f) != 0)
            p->write_failed = 1;
        p->stats->bytes += c->o.spill_n + c->o.n;
        p->stats->details += c->details;
        pthread_mutex_lock(&p->mu);
        if (bad)
            p->write_failed = -1;
        c->state = PS_FREE;
        p->written++;
        pthread_cond_broadcast(&p->cv);
    }
    if (p->written > until)
        return 1;
    if (p->taken < p->filled)
        par_encode(p, &p->enc[0], p->slots[p->taken % p->nslots]);
    else
        pthread_cond_wait(&p->cv, &p->mu);
    return 0;
}

/* Submits the chunk being filled. */
static void par_submit(par_export *p)
{
    if (!p->cur)
        return;
    pthread_mutex_lock(&p->mu);
    p->cur->state = PS_SUBMITTED;
    p->cur = NULL;
    p->filled++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* A new chunk to fill for x's thread (submitting the one being filled). */
static int par_next_chunk(exporter *x)
{
    par_export *p = x->par;
    par_submit(p);
    par_chunk *c = p->slots[p->filled % p->nslots];
    pthread_mutex_lock(&p->mu);
    while (c->state != PS_FREE && !p->write_failed)
        par_progress(p, p->filled - p->nslots);
    int failed = p->write_failed;
    pthread_mutex_unlock(&p->mu);
    if (failed)
        return failed < 0 ? EXPORT_NOMEM : EXPORT_IO;
    ob_reset(&c->o);
    c->nomem = 0;
    c->count = 0;
    c->details = 0;
    c->thread = x->thread;
    c->track_uuid = x->track_uuid;
    c->seq_id = x->seq_id;
    c->state = PS_FILLING;
    p->cur = c;
    return 0;
}

static int par_slice(exporter *x, const atf_slice *s)
{
    par_export *p = x->par;
    int r;
    if (p->cur->count == PAR_RECORDS && (r = par_next_chunk(x)) != 0)
        return r;
    return perfetto_plan(x, s, &p->cur->recs[p->cur->count++]) != 0 ? EXPORT_NOMEM : 0;
}

static void par_free(par_export *p)
{
    for (size_t i = 0; p->slots && i < p->nslots; i++) {
        if (!p->slots[i])
            continue;
        ob_release(&p->slots[i]->o);
        free(p->slots[i]->recs);
        free(p->slots[i]);
    }
    for (unsigned i = 0; p->enc && i < p->jobs; i++) {
        free(p->enc[i].x.pk.p);
    }
    free(p->slots);
    free(p->enc);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

/* Starts the encoders for x (Perfetto). @return 0, or -1 (nothing started:
 * the export goes on in this thread). */
static int par_start(exporter *x, unsigned jobs)
{
    par_export *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->jobs = jobs;
    p->nslots = 2 * (size_t)jobs + 2;
    p->f = x->out->f;
    p->stats = x->stats;
    p->slots = calloc(p->nslots, sizeof *p->slots);
    p->enc = calloc(jobs, sizeof *p->enc);
    int ok = p->slots && p->enc;
    for (size_t i = 0; ok && i < p->nslots; i++) {
        par_chunk *c = p->slots[i] = calloc(1, sizeof *c);
        ok = c && (c->recs = malloc(PAR_RECORDS * sizeof *c->recs)) != NULL;
        if (c)
            ob_init_mem(&c->o);
    }
    for (unsigned i = 0; ok && i < jobs; i++) {
        p->enc[i].p = p;
        p->enc[i].x.format = ATF_EXPORT_PERFETTO;
    }
    p->started = 1;
    while (ok && p->started < jobs &&
           pthread_create(&p->enc[p->started].tid, NULL, par_encoder_main, &p->enc[p->started]) == 0)
        p->started++;
    if (!ok || p->started == 1) {
        p->started = 1;
        par_free(p);
        return -1;
    }
    x->par = p;
    return 0;
}

/* Writes out what is left (unless @abandon), stops the encoders, frees.
 * @return 0, or EXPORT_IO / EXPORT_NOMEM. */
static int par_finish(exporter *x, int abandon)
{
    par_export *p = x->par;
    if (!p)
        return 0;
    par_submit(p);
    pthread_mutex_lock(&p->mu);
    while (!abandon && !p->write_failed && p->written < p->filled)
        par_progress(p, p->filled - 1);
    p->done = 1;
    pthread_cond_broadcast(&p->cv);
    int failed = p->write_failed;
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 1; i < p->started; i++)
        pthread_join(p->enc[i].tid, NULL);
    par_free(p);
    x->par = NULL;
    return failed < 0 ? EXPORT_NOMEM : failed ? EXPORT_IO : 0;
}

static int on_slice(void *user, const atf_slice *s)
{
    exporter *x = user;
    if (x->file)
        return x->file->slice(x, s);
    if (x->par)
        return par_slice(x, s);
    if (x->out->failed)
        return EXPORT_IO;
    return x->format == ATF_EXPORT_PERFETTO ? perfetto_slice(x, s) : chrome_slice(x, s);
}

/* ---- Tracks ---------------------------------------------------------- */

uint64_t export_pid_of(const char *dir, int parent)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    size_t n = strlen(buf);
    for (int up = 0; up <= parent; up++) {
        while (n > 1 && buf[n - 1] == '/')
            buf[--n] = '\0';
        if (up < parent) {
            char *slash = strrchr(buf, '/');
            if (!slash)
                return 0;
            *slash = '\0';
            n = strlen(buf);
        }
    }
    const char *base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    if (strncmp(base, "pid_", 4) != 0 || !base[4])
        return 0;
    uint64_t v = 0;
    for (const char *p = base + 4; *p; p++) {
        if (*p < '0' || *p > '9' || v > UINT64_MAX / 10 - 9)
            return 0;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    return v;
}

static int perfetto_descriptor(exporter *x, uint64_t uuid, uint64_t parent, const char *name, int is_process,
                               uint64_t tid)
{
    if (packet_begin(x, 256 + 2 * strlen(name)) != 0)
        return -1;
    pb *b = &x->pk;
    pb_uint(b, PKT_SEQ_ID, DESCRIPTOR_SEQ);
    size_t td = pb_open(b, PKT_TRACK_DESCRIPTOR);
    pb_uint(b, TD_UUID, uuid);
    if (parent)
        pb_uint(b, TD_PARENT, parent);
    if (is_process) {
        size_t pd = pb_open(b, TD_PROCESS);
        pb_uint(b, PD_PID, x->pid);
        pb_bytes(b, PD_NAME, name, strlen(name));
        pb_close(b, pd);
    } else if (tid != UINT64_MAX) {
        size_t th = pb_open(b, TD_THREAD);
        pb_uint(b, THD_PID, x->pid);
        pb_uint(b, THD_TID, tid);
        pb_bytes(b, THD_NAME, name, strlen(name));
        pb_close(b, th);
    } else {
        pb_bytes(b, TD_NAME, name, strlen(name));
    }
    pb_close(b, td);
    packet_end(x);
    return 0;
}

static void chrome_metadata(exporter *x, const char *what, uint64_t tid, const char *name)
{
    obuf *o = x->out;
    json_next(x);
    ob_lit(o, "{\"ph\":\"M\",\"pid\":");
    ob_u64(o, x->pid);
    ob_lit(o, ",\"tid\":");
    ob_u64(o, tid);
    ob_lit(o, ",\"name\":\"");
    ob_put(o, what, strlen(what));
    ob_lit(o, "\",\"args\":{\"name\":");
    ob_json_string(o, name);
    ob_lit(o, "}}");
}

/* Timing anchors as markers: instants on their own track (Perfetto) or
 * global instants (Chrome JSON), inside the window. */
static int put_anchors(exporter *x, const atf_tool_options *o)
{
    const atf_manifest *m = x->manifest;
    if (!m || m->anchor_count == 0)
        return 0;
    if (x->format == ATF_EXPORT_PERFETTO &&
        perfetto_descriptor(x, ANCHOR_UUID, PROCESS_UUID, "timing anchors", 0, UINT64_MAX) != 0)
        return -1;
    for (size_t i = 0; i < m->anchor_count; i++) {
        const atf_timing_anchor *a = &m->anchors[i];
        if (o->window && (a->host_time_ns < o->from_ns || a->host_time_ns > o->to_ns))
            continue;
        char name[96];
        snprintf(name, sizeof name, "anchor media %lld/%ld s", (long long)a->media_time_value,
                 (long)a->media_time_scale);
        x->stats->anchors++;
        if (x->format == ATF_EXPORT_CHROME_JSON) {
            json_head(x, "i", 0, a->host_time_ns);
            ob_lit(x->out, ",\"name\":");
            ob_json_string(x->out, name);
            ob_lit(x->out, ",\"cat\":\"anchor\",\"s\":\"g\",\"args\":{\"media_time_value\":");
            char v[32];
            snprintf(v, sizeof v, "%lld", (long long)a->media_time_value);
            ob_put(x->out, v, strlen(v));
            ob_lit(x->out, ",\"media_time_scale\":");
            snprintf(v, sizeof v, "%ld", (long)a->media_time_scale);
            ob_put(x->out, v, strlen(v));
            ob_lit(x->out, "}}");
            continue;
        }
        if (packet_begin(x, 512) != 0)
            return -1;
        pb *b = &x->pk;
        pb_uint(b, PKT_TIMESTAMP, a->host_time_ns);
        pb_uint(b, PKT_SEQ_ID, DESCRIPTOR_SEQ);
        size_t te = pb_open(b, PKT_TRACK_EVENT);
        pb_uint(b, TE_TYPE, TE_INSTANT);
        pb_uint(b, TE_TRACK_UUID, ANCHOR_UUID);
        pb_bytes(b, TE_NAME, name, strlen(name));
        pb_annot_uint(b, "media_time_value", (uint64_t)a->media_time_value, 0);
        pb_annot_uint(b, "media_time_scale", (uint64_t)(int64_t)a->media_time_scale, 0);
        pb_close(b, te);
        packet_end(x);
    }
    return 0;
}

unsigned tool_jobs(const atf_tool_options *o, uint64_t events)
{
    unsigned jobs = o ? o->jobs : 0;
    if (jobs == 0) {
        unsigned n = atf_cpu_count();
        jobs = n < 2 || events < TOOL_PARALLEL_MIN ? 1 : n > TOOL_JOBS_MAX ? TOOL_JOBS_MAX : n;
    }
    return jobs > TOOL_JOBS_MAX ? TOOL_JOBS_MAX : jobs;
}

int tool_thread_wanted(const atf_tool_options *o, uint64_t id)
{
    if (!o || !o->threads)
        return 1;
    for (size_t i = 0; i < o->thread_count; i++)
        if (o->threads[i] == id)
            return 1;
    return 0;
}

atf_status tool_check_threads(const tool_source *src, const atf_tool_options *o, atf_error *err)
{
    if (!o || !o->threads)
        return ATF_OK;
    for (size_t k = 0; k < o->thread_count; k++) {
        size_t i = 0;
        while (i < src->thread_count && src->threads[i].id != o->threads[k])
            i++;
        if (i == src->thread_count) {
            atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "no thread %llu here (--thread)",
                     (unsigned long long)o->threads[k]);
            atf_error_set_file(err, src->path);
            return ATF_E_ARG;
        }
    }
    return ATF_OK;
}

atf_status tool_source_start(tool_source *src, const char *path, const atf_tool_options *o, const char *tool,
                             atf_status *worst, atf_error *err)
{
    if (o->window && o->from_ns > o->to_ns)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "%s: --from is after --to", tool);
    atf_status st = tool_source_open(src, path, o, err);
    if (st)
        return st;
    if ((st = tool_check_threads(src, o, err)) != ATF_OK) {
        tool_source_close(src);
        return st;
    }
    /* One line per file not read whole; damage or an unreadable file is the result (atf/tools.h). */
    *worst = tool_source_report(src, o->diag);
    return ATF_OK;
}

atf_export_format atf_export_format_parse(const char *name)
{
    if (name && !strcmp(name, "perfetto"))
        return ATF_EXPORT_PERFETTO;
    if (name && (!strcmp(name, "chrome-json") || !strcmp(name, "json")))
        return ATF_EXPORT_CHROME_JSON;
    const atf_tool_export *fx = tool_export_named(name);
    return fx ? fx->format : (atf_export_format)0;
}

void export_thread_name(char *buf, size_t cap, const tool_thread *t)
{
    snprintf(buf, cap, "thread_%llu (os tid %lu)", (unsigned long long)t->id,
             (unsigned long)atf_index_reader_header(t->index)->thread_id);
}

/* Progress every 4 Mi events. */
#define PROGRESS_STEP (1u << 22)

/* A thread's track (Perfetto, Chrome JSON) or zone (an export into files). @return 0 or EXPORT_*. */
static int thread_begin(exporter *x, const tool_thread *t)
{
    char name[96];
    export_thread_name(name, sizeof name, t);
    if (x->format == ATF_EXPORT_PERFETTO)
        return perfetto_descriptor(x, x->track_uuid, PROCESS_UUID, name, 0, x->tid) != 0 ? EXPORT_NOMEM : 0;
    if (x->format == ATF_EXPORT_CHROME_JSON) {
        chrome_metadata(x, "thread_name", x->tid, name);
        return 0;
    }
    x->file->thread_begin(x, name, t->dir);
    return 0;
}

/* A callback's or a backend's result as the export's. */
static atf_status callback_failed(exporter *x, int r, atf_error *err)
{
    if (r == EXPORT_FAILED) {
        if (err)
            *err = x->fail_err;
        return x->failed;
    }
    if (r == EXPORT_IO || (x->out && x->out->failed))
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write output: %s", strerror(errno));
    return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
}

static atf_status export_threads(exporter *x, tool_source *src, const atf_tool_options *o, atf_slice_builder *sb,
                                 atf_error *err)
{
    uint64_t total = 0, done = 0, next_report = PROGRESS_STEP;
    for (size_t i = 0; i < src->thread_count; i++)
        if (src->threads[i].index && tool_thread_wanted(o, src->threads[i].id))
            total += atf_index_reader_count(src->threads[i].index);
    for (size_t i = 0; i < src->thread_count; i++) {
        const tool_thread *t = &src->threads[i];
        if (!t->index || !tool_thread_wanted(o, t->id))
            continue;
        x->thread = t;
        x->tid = t->id;
        x->track_uuid = THREAD_UUID0 + i;
        x->seq_id = THREAD_SEQ0 + i;
        x->seq_started = 0;
        x->stats->threads++;
        const atf_index_info *ii = atf_index_reader_info(t->index);
        x->stats->recovered_files += ii->recovered != 0;
        x->stats->trailing_bytes += ii->trailing_bytes;
        if (t->detail) {
            const atf_detail_info *di = atf_detail_reader_info(t->detail);
            x->stats->recovered_files += di->recovered != 0;
            x->stats->trailing_bytes += di->trailing_bytes;
        }
        int r;
        if (x->par) {
            /* A chunk of this thread's own, its track descriptor first. */
            if ((r = par_next_chunk(x)) != 0)
                return callback_failed(x, r, err);
            obuf *out = x->out;
            x->out = &x->par->cur->o;
            r = thread_begin(x, t);
            x->out = out;
        } else {
            r = thread_begin(x, t);
        }
        if (r != 0)
            return callback_failed(x, r, err);
        atf_slice_builder_reset(sb);
        int has_depth = ii->layout == ATF_LAYOUT_1;
        uint64_t n = atf_index_reader_count(t->index);
        for (uint64_t seq = 0; seq < n && r == 0; seq++) {
            atf_index_event ev;
            atf_index_reader_get(t->index, seq, &ev);
            r = atf_slice_builder_push(sb, seq, &ev, has_depth);
            x->stats->events++;
            if (++done >= next_report && o->progress) {
                o->progress(o->progress_user, done, total);
                next_report = done + PROGRESS_STEP;
            }
        }
        if (r == 0 || r == 1)
            r = atf_slice_builder_finish(sb);
        if (r == 0 && x->file)
            r = x->file->thread_end(x);
        if (r != 0 || (x->out && x->out->failed))
            return callback_failed(x, r, err);
    }
    if (o->progress)
        o->progress(o->progress_user, done, total);
    return ATF_OK;
}

/* The export into out (Perfetto, Chrome JSON) or the files at out_path (an export into files). */
static atf_status run_export(FILE *out, const char *out_path, atf_export_format format, const char *path,
                             const atf_tool_options *opts, atf_export_stats *stats, atf_error *err)
{
    atf_export_stats local_stats;
    if (!stats)
        stats = &local_stats;
    memset(stats, 0, sizeof *stats);
    atf_error_clear(err);
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    if (opts)
        o = *opts;
    tool_source src;
    atf_status worst = ATF_OK, st = tool_source_start(&src, path, &o, "export", &worst, err);
    if (st)
        return st;
    exporter *x = calloc(1, sizeof *x);
    obuf *ob = out ? malloc(sizeof *ob) : NULL;
    atf_slice_builder *sb = NULL;
    if (!x || (out && !ob) ||
        atf_slice_builder_create(&sb, o.window ? o.from_ns : 0, o.window ? o.to_ns : UINT64_MAX, on_slice, x) != ATF_OK) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        goto done;
    }
    if (ob)
        ob_init(ob, out);
    x->format = format;
    x->file = tool_export_of(format);
    x->out = ob;
    x->manifest = src.manifest;
    x->stats = stats;
    x->first_json = 1;
    uint64_t pid = export_pid_of(src.path, src.kind == ATF_PATH_SESSION ? 0 : src.kind == ATF_PATH_THREAD ? 1 : 2);
    x->pid = pid ? pid : 1;
    char pname[64];
    if (pid)
        snprintf(pname, sizeof pname, "pid_%llu", (unsigned long long)pid);
    else
        snprintf(pname, sizeof pname, "atf session");
    if (x->file) {
        if ((st = x->file->open(x, out_path, &src, &o, pname, err)) != ATF_OK)
            goto done;
    } else if (format == ATF_EXPORT_PERFETTO) {
        if (perfetto_descriptor(x, PROCESS_UUID, 0, pname, 1, 0) != 0) {
            st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
            goto done;
        }
    } else {
        ob_lit(ob, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        chrome_metadata(x, "process_name", 0, pname);
    }
    /* Perfetto and Chrome JSON put the anchors first (their own track);
     * the exports into files last (so that a viewer that shows the
     * first zone shows a thread's). */
    if (!x->file && put_anchors(x, &o) != 0) {
        st = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        goto done;
    }
    if (format == ATF_EXPORT_PERFETTO) {
        uint64_t events = 0;
        for (size_t i = 0; i < src.thread_count; i++)
            if (src.threads[i].index && tool_thread_wanted(&o, src.threads[i].id))
                events += atf_index_reader_count(src.threads[i].index);
        unsigned jobs = tool_jobs(&o, events);
        /* What is buffered goes first: the encoders' chunks are written past it. */
        if (jobs > 1 && ob_flush(ob) == 0)
            par_start(x, jobs);
    }
    st = export_threads(x, &src, &o, sb, err);
    if (x->par) {
        int r = par_finish(x, st != ATF_OK);
        if (r != 0 && !st)
            st = callback_failed(x, r, err);
    }
    if (x->file) {
        int r = st ? 0 : x->file->anchors(x, &o);
        if (r != 0)
            st = callback_failed(x, r, err);
        atf_status cs = x->file->close(x, st != ATF_OK, st ? NULL : err);
        if (!st)
            st = cs;
    } else {
        if (format == ATF_EXPORT_CHROME_JSON)
            ob_lit(ob, "\n]}\n");
        if (ob_flush(ob) != 0 || fflush(out) != 0 || ferror(out)) {
            if (!st)
                st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write output: %s", strerror(errno));
        }
        stats->bytes += ob->total;   /* besides what the encoders' chunks held */
    }
    if (!st && worst) {
        st = atf_fail(err, worst, ATF_NO_OFFSET, NULL,
                      worst == ATF_E_IO ? "some files could not be read (see above); everything else was exported"
                                        : "some files are damaged (see above); everything readable was exported");
        atf_error_set_file(err, path);
    }
done:
    if (x && x->file_state)
        x->file->close(x, 1, NULL);   /* after a failure: only frees */
    if (x && x->par)
        par_finish(x, 1);
    if (sb)
        stats->slices = *atf_slice_builder_counts(sb);
    atf_slice_builder_destroy(sb);
    if (x) {
        names_free(&x->names);
        free(x->pk.p);
    }
    free(x);
    free(ob);
    tool_source_close(&src);
    return st;
}

atf_status atf_export(FILE *out, atf_export_format format, const char *path, const atf_tool_options *opts,
                      atf_export_stats *stats, atf_error *err)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    atf_error_clear(err);
    const atf_tool_export *fx = tool_export_of(format);
    if (fx)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "%s", fx->no_stream);
    if (!out || !path || (format != ATF_EXPORT_PERFETTO && format != ATF_EXPORT_CHROME_JSON))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "export: bad arguments");
    atf_status st = run_export(out, NULL, format, path, opts, stats, err);
    if (stats && stats->bytes)
        stats->files = 1;
    return st;
}

atf_status atf_export_file(const char *out_path, atf_export_format format, const char *path,
                           const atf_tool_options *opts, atf_export_stats *stats, atf_error *err)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    atf_error_clear(err);
    const atf_tool_export *fx = tool_export_of(format);
    if (!out_path || !path || (format != ATF_EXPORT_PERFETTO && format != ATF_EXPORT_CHROME_JSON && !fx))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "export: bad arguments");
    if (fx)
        return run_export(NULL, out_path, format, path, opts, stats, err);
    FILE *out = fopen(out_path, "wb");
    if (!out) {
        atf_status st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create: %s", strerror(errno));
        atf_error_set_file(err, out_path);
        return st;
    }
    atf_status st = atf_export(out, format, path, opts, stats, err);
    if (fclose(out) != 0 && st == ATF_OK) {
        st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write: %s", strerror(errno));
        atf_error_set_file(err, out_path);
    }
    return st;
}
