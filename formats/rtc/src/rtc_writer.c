/* The RTC streaming writer (conformance/SPEC-RTC.md 1-5, 8.1): Units of U
 * bytes with a Marker, an Index, a Meta and a Platform frame at their start,
 * an index frame at every unit boundary, padding before boundaries no frame
 * fits, and the Crc in the last 5 bytes; payloads larger than a frame (or
 * than the room before a boundary) are split into frames chained by more;
 * fixed-length frames are never split (R-E8). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/crc32c.h>
#include <atf/rtc.h>

#include "bytes.h"
#include "common.h"
#include "rtc_internal.h"

typedef struct wstream {
    uint64_t id;
    json_t *obj;              /* with "id" first */
    int64_t length;           /* -1 variable */
    uint64_t last;            /* absolute offset of its last write's first frame + 1, 0: none */
    int written;              /* written since this Unit's Index */
} wstream;

struct atf_rtc_writer {
    atf_rtc_sink sink;
    void *user;
    uint64_t U, u;
    int ref_crc, big;
    rtc_crc_tab tab;
    uint64_t pos;             /* bytes written */
    int started;
    uint64_t q;               /* the current Unit's Marker */
    uint64_t count;           /* its number */
    uint32_t crc;             /* over the Unit's bytes after its Marker */
    uint64_t last_index, last_meta, last_platform, last_crc, unit_index;   /* +1, 0 none */
    wstream *streams;
    size_t nstreams, cap;
    uint64_t next_id;
    int in_head;              /* writing a Unit's head: no boundary handling recursion into a new Unit */
    int whole;                /* whole_records: a record that does not fit the Unit's room starts the next Unit */
    int failed;
};

static int emit(atf_rtc_writer *w, const void *p, size_t n)
{
    if (w->failed)
        return -1;
    if (n && w->sink(w->user, p, n) != 0) {
        w->failed = 1;
        return -1;
    }
    if (w->started && w->pos >= w->q + ATF_RTC_MARKER_SIZE)
        w->crc = w->ref_crc ? rtc_crc_ref_t(&w->tab, w->crc, p, n) : atf_crc32_ieee(w->crc, p, n);
    w->pos += n;
    return 0;
}

static int is_pow2_u(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* The Crc frame of the bytes so far, in the writer's byte order. */
static void crc_frame(atf_rtc_writer *w)
{
    uint8_t c[5];
    c[0] = ATF_RTC_CRC << 1;
    if (w->big) {
        c[1] = (uint8_t)(w->crc >> 24);
        c[2] = (uint8_t)(w->crc >> 16);
        c[3] = (uint8_t)(w->crc >> 8);
        c[4] = (uint8_t)w->crc;
    } else {
        atf_store_le32(c + 1, w->crc);
    }
    w->last_crc = w->pos + 1;
    emit(w, c, 5);
}

static uint64_t crc_pos(const atf_rtc_writer *w)
{
    return w->q + w->U - 5;
}

/* atf_error_clear() for a record write: err is usually clean already, and
 * clearing all of it (half a KiB) for every record was 5 % of atf pack. */
static void error_reset(atf_error *err)
{
    if (err && (err->code != ATF_OK || err->offset != ATF_NO_OFFSET || err->field || err->file[0] || err->message[0]))
        atf_error_clear(err);
}

/* 2 at the Crc position, 1 at a unit boundary (an index frame starts there), else 0. */
static int at_boundary(const atf_rtc_writer *w)
{
    uint64_t first = w->q + ATF_RTC_MARKER_SIZE;
    if (w->pos == crc_pos(w))
        return 2;
    if (w->pos <= first || w->pos > crc_pos(w))
        return 0;
    uint64_t k = (w->pos - first) / w->u;
    return (w->pos - first) % w->u == 0 && k >= 1 && k < w->U / w->u;
}

/* The first boundary after pos: a unit boundary or the Crc position. */
static uint64_t next_limit(const atf_rtc_writer *w)
{
    uint64_t first = w->q + ATF_RTC_MARKER_SIZE;
    uint64_t k = w->pos < first ? 1 : (w->pos - first) / w->u + 1;
    uint64_t b = first + k * w->u;
    if (k < w->U / w->u && b < crc_pos(w))
        return b;
    return crc_pos(w);
}

static void pad(atf_rtc_writer *w, uint64_t n)
{
    static const uint8_t zeros[64];
    if (n == 0)
        return;
    if (n == 1) {
        emit(w, zeros, 1);
        return;
    }
    uint8_t h[12];
    uint64_t m = n - 2;
    while (m && 1 + atf_rtc_uleb_encode(h + 1, m) + m > n)
        m--;
    size_t hl = 1 + atf_rtc_uleb_encode(h + 1, m);
    if (hl + m != n) {
        emit(w, zeros, 1);
        pad(w, n - 1);
        return;
    }
    h[0] = ATF_RTC_PADDING << 1;
    emit(w, h, hl);
    while (m) {
        size_t k = m < sizeof zeros ? (size_t)m : sizeof zeros;
        emit(w, zeros, k);
        m -= k;
    }
}

static void entry(atf_bytebuf *b, uint64_t id, uint64_t dist, int *oom)
{
    if (atf_bytebuf_reserve(b, 20)) {
        *oom = 1;
        return;
    }
    b->n += atf_rtc_uleb_encode(b->p + b->n, id << 1 | 1);
    b->n += atf_rtc_uleb_encode(b->p + b->n, dist << 1);
}

static uint64_t back(uint64_t at, uint64_t last)
{
    return last ? at - (last - 1) : 0;
}

static int frames(atf_rtc_writer *w, uint64_t sid, const uint8_t *p, size_t n, int fixed);

static void index_frames(atf_rtc_writer *w)
{
    atf_bytebuf b = { NULL, 0, 0 };
    int oom = 0;
    uint64_t at = w->pos;
    entry(&b, ATF_RTC_INDEX, back(at, w->unit_index), &oom);
    for (size_t i = 0; i < w->nstreams; i++)
        if (w->streams[i].written)
            entry(&b, w->streams[i].id, back(at, w->streams[i].last), &oom);
    if (oom)
        w->failed = 1;
    w->last_index = at + 1;
    frames(w, ATF_RTC_SUBINDEX, b.p, b.n, 0);
    free(b.p);
}

static void unit_head(atf_rtc_writer *w);

/* Handles the boundary at pos: an index frame, or the Crc and the next Unit. */
static void boundary(atf_rtc_writer *w)
{
    if (w->pos == crc_pos(w)) {
        crc_frame(w);
        w->q += w->U;
        w->count++;
        unit_head(w);
    } else {
        index_frames(w);
    }
}

/* A record's payload: a, then b (a second part the caller did not have to
 * join to the first; bn 0 for one part). */
typedef struct payload {
    const uint8_t *a, *b;
    size_t an, bn;
} payload;

/* Writes one frame's header and bytes [at, at + n) of the payload at pos
 * (the caller made room). */
static void frame_at(atf_rtc_writer *w, uint64_t sid, int more, const payload *pl, size_t at, size_t n, int fixed)
{
    uint8_t h[20];
    size_t hl = atf_rtc_uleb_encode(h, sid << 1 | (uint64_t)(more != 0));
    if (!fixed)
        hl += atf_rtc_uleb_encode(h + hl, n);
    emit(w, h, hl);
    if (at < pl->an) {
        size_t k = pl->an - at < n ? pl->an - at : n;
        emit(w, pl->a + at, k);
        at += k;
        n -= k;
    }
    if (n)
        emit(w, pl->b + (at - pl->an), n);
}

static size_t uleb_size(uint64_t v)
{
    uint8_t t[10];
    return atf_rtc_uleb_encode(t, v);
}

/* The unit boundaries b (index frames) with from <= b < to in the current Unit. */
static uint64_t bounds_in(const atf_rtc_writer *w, uint64_t from, uint64_t to)
{
    uint64_t first = w->q + ATF_RTC_MARKER_SIZE, c = 0;
    for (uint64_t k = 1; k < w->U / w->u; k++) {
        uint64_t b = first + k * w->u;
        if (b >= crc_pos(w) || b >= to)
            break;
        c += b >= from;
    }
    return c;
}

/* 1 when a record of n bytes of stream sid written at pos surely ends
 * before the Unit's Crc: an upper bound of its frame headers, of the index
 * frames at the unit boundaries it crosses (an entry is at most 20 bytes) and
 * of the padding before them. */
static int record_fits(const atf_rtc_writer *w, uint64_t sid, uint64_t n, int fixed)
{
    uint64_t hs = uleb_size(sid << 1 | 1) + (fixed ? 0 : 2);
    uint64_t entries = 20 * ((uint64_t)w->nstreams + 1);
    uint64_t idx = entries + 4 * (2 + entries / ATF_RTC_MAX_PAYLOAD);
    uint64_t need = n + hs * (n / ATF_RTC_MAX_PAYLOAD + 2), nb = 0;
    for (;;) {
        if (need > w->U)
            return 0;
        uint64_t k = bounds_in(w, w->pos, w->pos + need);
        if (k == nb)
            break;
        nb = k;
        need = n + hs * (n / ATF_RTC_MAX_PAYLOAD + 2 + nb) + nb * (idx + hs + (fixed ? n : 0) + 16);
    }
    return w->pos + need <= crc_pos(w);
}

/* Pads the rest of the Unit (index frames at its unit boundaries, padding
 * frames of at most 1024 bytes) and starts the next one. */
static void unit_fill(atf_rtc_writer *w)
{
    while (!w->failed) {
        int at = at_boundary(w);
        if (at == 2) {
            boundary(w);
            return;
        }
        if (at == 1) {
            index_frames(w);
            continue;
        }
        uint64_t room = next_limit(w) - w->pos;
        pad(w, room > 1000 ? 1000 : room);
    }
}

/* A record of stream sid: frames of at most 1024 bytes that fit before the
 * next boundary, chained by more; a fixed-length record is one frame.
 * @return 0, or -1 when a fixed-length record fits in no unit: it was tried
 * at every boundary of a whole Unit (only padding was written). With
 * whole_records, a user record of at most a quarter Unit that would cross
 * the Unit's end begins the next Unit instead. */
static int frames_of(atf_rtc_writer *w, uint64_t sid, const payload *pl, int fixed)
{
    size_t n = pl->an + pl->bn, done = 0;
    int first = 1;
    uint64_t crossed = 0;
    if (w->whole && sid >= ATF_RTC_FIRST_USER_ID && n <= w->U / 4 && !w->failed) {
        if (at_boundary(w) == 2)
            boundary(w);
        if (!record_fits(w, sid, n, fixed))
            unit_fill(w);
    }
    /* not do-while: a continue there tests done < n, which ends an empty
     * record (n = 0) at a boundary before its frame is written */
    for (;;) {
        if (w->failed)
            return 0;
        int at = at_boundary(w);
        if (at == 2 || (at == 1 && !(first && sid == ATF_RTC_SUBINDEX))) {
            if (fixed && ++crossed > w->U / w->u + 1)
                return -1;
            boundary(w);
            continue;
        }
        uint64_t room = next_limit(w) - w->pos;
        size_t hs = uleb_size(sid << 1 | 1);
        size_t piece;
        if (fixed) {
            piece = n;
            if (hs + n > room) {
                pad(w, room);
                continue;
            }
        } else {
            size_t left = n - done;
            piece = left < ATF_RTC_MAX_PAYLOAD ? left : ATF_RTC_MAX_PAYLOAD;
            while (piece && hs + uleb_size(piece) + piece > room)
                piece--;
            /* nothing fits (or only an empty piece of a non-empty record): to the next boundary */
            if (hs + uleb_size(piece) + piece > room || (piece == 0 && left > 0)) {
                pad(w, room);
                continue;
            }
        }
        if (first && sid >= ATF_RTC_FIRST_USER_ID) {
            for (size_t i = 0; i < w->nstreams; i++)
                if (w->streams[i].id == sid) {
                    w->streams[i].last = w->pos + 1;
                    w->streams[i].written = 1;
                }
        }
        if (first && sid == ATF_RTC_META)
            w->last_meta = w->pos + 1;
        if (first && sid == ATF_RTC_PLATFORM)
            w->last_platform = w->pos + 1;
        first = 0;
        int more = !fixed && done + piece < n;
        frame_at(w, sid, more, pl, done, piece, fixed);
        done += piece;
        if (done >= n)
            return 0;
    }
}

static int frames(atf_rtc_writer *w, uint64_t sid, const uint8_t *p, size_t n, int fixed)
{
    payload pl = { p, NULL, n, 0 };
    return frames_of(w, sid, &pl, fixed);
}

static char *meta_text(atf_rtc_writer *w, size_t from, size_t *len)
{
    json_t *a = json_array();
    for (size_t i = from; i < w->nstreams; i++)
        json_array_append(a, w->streams[i].obj);
    json_array_append_new(a, json_integer((json_int_t)w->next_id));
    char *s = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(a);
    *len = s ? strlen(s) : 0;
    if (!s)
        w->failed = 1;
    return s;
}

static void unit_head(atf_rtc_writer *w)
{
    uint8_t m[ATF_RTC_MARKER_SIZE];
    m[0] = ATF_RTC_MARKER << 1;
    memset(m + 1, ATF_RTC_MARKER_BYTE, ATF_RTC_MARKER_SIZE - 1);
    w->crc = 0;
    emit(w, m, sizeof m);
    for (size_t i = 0; i < w->nstreams; i++)
        w->streams[i].written = 0;
    /* Index: count, then the indexed streams in ascending id order */
    atf_bytebuf b = { NULL, 0, 0 };
    int oom = 0;
    uint64_t at = w->pos;
    if (!atf_bytebuf_reserve(&b, 10))
        b.n = atf_rtc_uleb_encode(b.p, w->count);
    else
        oom = 1;
    entry(&b, ATF_RTC_INDEX, w->count == 0 ? w->U : back(at, w->unit_index), &oom);
    entry(&b, ATF_RTC_SUBINDEX, w->count == 0 ? w->u : (w->U == w->u ? w->count * w->U + w->u : back(at, w->last_index)),
          &oom);
    entry(&b, ATF_RTC_META, back(at, w->last_meta), &oom);
    entry(&b, ATF_RTC_PLATFORM, back(at, w->last_platform), &oom);
    entry(&b, ATF_RTC_CRC, back(at, w->last_crc), &oom);
    for (size_t i = 0; i < w->nstreams; i++)
        entry(&b, w->streams[i].id, back(at, w->streams[i].last), &oom);
    if (oom)
        w->failed = 1;
    w->unit_index = at + 1;
    frames(w, ATF_RTC_INDEX, b.p, b.n, 0);
    free(b.p);
    size_t ml;
    char *mt = meta_text(w, 0, &ml);
    if (mt)
        frames(w, ATF_RTC_META, (const uint8_t *)mt, ml, 0);
    free(mt);
    static const uint8_t le[4] = { 4, 3, 2, 1 }, be[4] = { 1, 2, 3, 4 };
    frames(w, ATF_RTC_PLATFORM, w->big ? be : le, 4, 1);
}

atf_status atf_rtc_writer_create(atf_rtc_writer **out, const atf_rtc_writer_options *opts, atf_rtc_sink sink,
                                 void *user, atf_error *err)
{
    atf_error_clear(err);
    if (!out || !sink)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
    if (opts)
        o = *opts;
    uint64_t U = o.unit_size ? o.unit_size : (uint64_t)1 << 20, u = o.subunit_size ? o.subunit_size : (uint64_t)1 << 17;
    if (!o.unit_size && o.subunit_size > U)
        U = o.subunit_size;
    if (!o.subunit_size && u > U)
        u = U;
    if (!is_pow2_u(U) || !is_pow2_u(u) || u < ATF_RTC_MIN_UNIT || u > U || U > ((uint64_t)1 << 40))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "unit_size",
                        "Unit and unit sizes must be powers of 2 with 2048 <= unit <= Unit (SPEC-RTC RTC-UNI-001)");
    atf_rtc_writer *w = calloc(1, sizeof *w);
    if (!w)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    w->sink = sink;
    w->user = user;
    w->U = U;
    w->u = u;
    w->ref_crc = o.crc == ATF_RTC_CRC_REF;
    w->big = o.big_endian != 0;
    w->whole = o.whole_records != 0;
    w->next_id = ATF_RTC_FIRST_USER_ID;
    rtc_crc_tables(&w->tab);
    *out = w;
    return ATF_OK;
}

static void start(atf_rtc_writer *w)
{
    if (w->started)
        return;
    w->started = 1;
    w->q = 0;
    unit_head(w);
}

/* 1 when a meta record of @p ml bytes surely ends before this Unit's Crc
 * position: with its frame headers and, at each unit boundary it may cross,
 * an index frame (every stream's entry, 20 bytes at most) and padding. */
static int meta_fits(const atf_rtc_writer *w, size_t ml)
{
    uint64_t idx = 20 * ((uint64_t)w->nstreams + 6);
    idx += 3 * (idx / ATF_RTC_MAX_PAYLOAD + 1) + 8;
    uint64_t need = ml + 3 * ((uint64_t)ml / ATF_RTC_MAX_PAYLOAD + 1);
    need += (need / (w->u > idx ? w->u - idx : 1) + 1) * idx;
    return w->pos + need <= crc_pos(w);
}

/* Fills the rest of the Unit (index frames at its unit boundaries, padding)
 * and writes its Crc and the next Unit's head. */
static void close_unit(atf_rtc_writer *w)
{
    while (!w->failed && w->pos != crc_pos(w)) {
        if (at_boundary(w) == 1) {
            index_frames(w);
        } else {
            uint64_t gap = next_limit(w) - w->pos;
            pad(w, gap > 1027 ? 1027 : gap);   /* a padding frame holds at most 1024 bytes */
        }
    }
    if (!w->failed)
        boundary(w);
}

atf_status atf_rtc_writer_stream(atf_rtc_writer *w, const char *definition, uint64_t *id, atf_error *err)
{
    atf_error_clear(err);
    if (!w || !definition || !id)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    json_t *o = json_loads(definition, 0, NULL);
    if (!json_is_object(o) || json_object_get(o, "id")) {
        json_decref(o);
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "json", "a stream is a JSON object without \"id\"");
    }
    json_t *ln = json_object_get(o, "length");
    if (ln && !json_is_null(ln) && (!json_is_integer(ln) || json_integer_value(ln) < 0 ||
                                    json_integer_value(ln) > (json_int_t)ATF_RTC_MAX_PAYLOAD)) {
        json_decref(o);
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "length", "a fixed length is an integer from 0 to 1024");
    }
    if (w->nstreams == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 8;
        wstream *ns = realloc(w->streams, nc * sizeof *ns);
        if (!ns) {
            json_decref(o);
            return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        }
        w->streams = ns;
        w->cap = nc;
    }
    json_t *full = json_object();
    json_object_set_new(full, "id", json_integer((json_int_t)w->next_id));
    json_object_update(full, o);
    json_decref(o);
    wstream *s = &w->streams[w->nstreams++];
    memset(s, 0, sizeof *s);
    s->id = w->next_id++;
    s->obj = full;
    s->length = json_is_integer(ln) ? (int64_t)json_integer_value(json_object_get(full, "length")) : -1;
    *id = s->id;
    if (w->started) {
        /* a stream created during a Unit: a meta record, which must end in
         * this Unit (a reader starting at the next Unit would read its tail
         * as a broken meta, SPEC-RTC R-E22); when the rest of the Unit may
         * not hold it, the Unit is closed and the next Unit's Meta lists
         * the stream */
        size_t ml;
        char *mt = meta_text(w, w->nstreams - 1, &ml);
        if (mt && !meta_fits(w, ml))
            close_unit(w);
        else if (mt)
            frames(w, ATF_RTC_SUBMETA, (const uint8_t *)mt, ml, 0);
        free(mt);
    }
    return w->failed ? atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "the sink failed") : ATF_OK;
}

atf_status atf_rtc_writer_write(atf_rtc_writer *w, uint64_t id, const void *p, size_t n, atf_error *err)
{
    return atf_rtc_writer_write2(w, id, p, n, NULL, 0, err);
}

atf_status atf_rtc_writer_write2(atf_rtc_writer *w, uint64_t id, const void *head, size_t head_size,
                                 const void *body, size_t body_size, atf_error *err)
{
    error_reset(err);
    size_t n = head_size + body_size;
    if (!w || (!head && head_size) || (!body && body_size) || n < head_size)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    const wstream *s = NULL;
    for (size_t i = 0; i < w->nstreams; i++)
        if (w->streams[i].id == id)
            s = &w->streams[i];
    if (!s)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "id", "stream %llu was not defined", (unsigned long long)id);
    if (s->length >= 0 && (uint64_t)s->length != n)
        return atf_fail(err, ATF_E_LENGTH, ATF_NO_OFFSET, "length", "stream %llu takes records of exactly %lld bytes",
                        (unsigned long long)id, (long long)s->length);
    start(w);
    payload pl = { head ? (const uint8_t *)head : (const uint8_t *)"", (const uint8_t *)body, head_size, body_size };
    if (frames_of(w, id, &pl, s->length >= 0))
        return atf_fail(err, ATF_E_LENGTH, ATF_NO_OFFSET, "length",
                        "a fixed-length record of %zu bytes fits in no unit of %llu bytes (after its index frame, "
                        "or the Unit's head, or before the Crc)", n, (unsigned long long)w->u);
    return w->failed ? atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "the sink failed") : ATF_OK;
}

atf_status atf_rtc_writer_finish(atf_rtc_writer *w, atf_error *err)
{
    atf_error_clear(err);
    if (!w)
        return ATF_OK;
    if (w->started && !w->failed) {
        /* the final Crc, the last frame of the file; at the Crc position it is
         * the Unit's own and the file ends with the Unit */
        while (!w->failed) {
            int at = at_boundary(w);
            if (at == 1) {
                index_frames(w);
                continue;
            }
            if (at == 0 && next_limit(w) - w->pos < 5) {
                pad(w, next_limit(w) - w->pos);
                continue;
            }
            crc_frame(w);
            break;
        }
    }
    int failed = w->failed;
    for (size_t i = 0; i < w->nstreams; i++)
        json_decref(w->streams[i].obj);
    free(w->streams);
    free(w);
    return failed ? atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "the sink failed") : ATF_OK;
}
