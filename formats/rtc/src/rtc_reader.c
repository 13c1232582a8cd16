/* The RTC reader (conformance/SPEC-RTC.md 8.2): Markers found from any
 * offset, Units checked by their Crc before their frames are read, frames,
 * records joined across `more` frames, Index/index targets, Meta/meta,
 * Platform, clocks. Every finding carries its clause, offset and field;
 * every skipped range its offset, length and reason.
 *
 * Memory and work: atf/rtc.h states them. The reader keeps what it reports
 * (records, findings up to a cap) and, for the index checks, the offset of
 * every frame it read: all in proportion to content read, never to a count
 * read from the file. Lookups by id, offset, name and skipped range bisect
 * sorted arrays; a meta record updates the stream table in place. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/crc32c.h>
#include <atf/rtc.h>

#include "bytes.h"
#include "common.h"
#include "rtc_internal.h"

#define MAX_FINDINGS 10000u
#define NO_VALUE (-1)
#define AHEAD_MAX 32u             /* Crc threads at most */
#define AHEAD_BYTES ((uint64_t)8 << 20)

/* ---- Crcs ahead of the walk ------------------------------------------------------------ */

/* The walk (read_file) is one chain: each Unit's records depend on the
 * Meta, clocks and open records the Units before it left. The CRC-32/IEEE
 * of a whole Unit's [q + 1025, q + U - 5) depends on its bytes alone: other
 * threads compute it for the Units of the grid (start + k U) ahead of the
 * walk, claiming them in order, and the walk takes each value when it is
 * ready or computes it itself. They stay at most AHEAD_BYTES ahead: the
 * Units the walk reads next are then still in the shared cache where the
 * Crc brought them (further ahead, the walk read them from memory again
 * and was no faster than when it computed every Crc itself). The value is the same whoever computes it,
 * so the reader's results do not depend on the thread count. */
typedef struct ahead {
    const uint8_t *d;
    uint64_t start, U, count;     /* whole Units at start + k U, k < count */
    uint32_t *val;
    atomic_uchar *ready;
    atomic_uint_fast64_t next;    /* the next Unit a thread claims */
    atomic_uint_fast64_t walk;    /* the Unit the walk is at */
    uint64_t lead;                /* Units ahead of it at most */
    atomic_int waiting, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned nth;                 /* threads started */
    pthread_t th[AHEAD_MAX];
} ahead;

static uint32_t unit_crc(const uint8_t *d, uint64_t q, uint64_t U)
{
    return atf_crc32_ieee(0, d + q + ATF_RTC_MARKER_SIZE, (size_t)(U - 5 - ATF_RTC_MARKER_SIZE));
}

static unsigned thread_count(uint64_t bytes, uint64_t units);

static void *ahead_main(void *arg)
{
    ahead *a = arg;
    for (;;) {
        uint64_t k = atomic_fetch_add_explicit(&a->next, 1, memory_order_relaxed);
        if (k >= a->count)
            return NULL;
        if (k > atomic_load(&a->walk) + a->lead) {
            pthread_mutex_lock(&a->mu);
            while (!atomic_load(&a->stop) && k > atomic_load(&a->walk) + a->lead) {
                atomic_store(&a->waiting, 1);
                pthread_cond_wait(&a->cv, &a->mu);
            }
            pthread_mutex_unlock(&a->mu);
            if (atomic_load(&a->stop))
                return NULL;
        }
        a->val[k] = unit_crc(a->d, a->start + k * a->U, a->U);
        atomic_store_explicit(&a->ready[k], 1, memory_order_release);
    }
}

/* Starts the threads: ATF_RTC_THREADS in all (the walk is one), or one per
 * CPU with at least 16 MiB each (atf_part_count). None when one. */
static void ahead_start(ahead *a, const uint8_t *d, uint64_t n, uint64_t start, uint64_t U)
{
    memset(a, 0, sizeof *a);
    a->d = d;
    a->start = start;
    a->U = U;
    a->count = start < n ? (n - start) / U : 0;
    unsigned parts = thread_count(n, a->count);
    if (parts < 2 || a->count < 2)
        return;
    a->val = malloc((size_t)a->count * sizeof *a->val);
    a->ready = calloc((size_t)a->count, sizeof *a->ready);
    if (!a->val || !a->ready)
        goto none;
    atomic_init(&a->next, 0);
    atomic_init(&a->walk, 0);
    atomic_init(&a->waiting, 0);
    atomic_init(&a->stop, 0);
    a->lead = AHEAD_BYTES / U ? AHEAD_BYTES / U : 1;
    if (pthread_mutex_init(&a->mu, NULL) != 0)
        goto none;
    if (pthread_cond_init(&a->cv, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        goto none;
    }
    for (unsigned i = 0; i + 1 < parts; i++) {
        if (pthread_create(&a->th[a->nth], NULL, ahead_main, a) != 0)
            break;
        a->nth++;
    }
    if (a->nth)
        return;
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
none:   /* the walk computes every Crc itself */
    free(a->val);
    free((void *)a->ready);
    a->val = NULL;
    a->ready = NULL;
}

/* The CRC-32/IEEE of the whole Unit at q, a Unit of the grid. */
static uint32_t ahead_get(ahead *a, const uint8_t *d, uint64_t q, uint64_t U)
{
    if (a->nth && q >= a->start) {
        uint64_t k = (q - a->start) / U;
        if (k < a->count) {
            atomic_store(&a->walk, k);
            if (atomic_load(&a->waiting)) {
                pthread_mutex_lock(&a->mu);
                atomic_store(&a->waiting, 0);
                pthread_cond_broadcast(&a->cv);
                pthread_mutex_unlock(&a->mu);
            }
            if (atomic_load_explicit(&a->ready[k], memory_order_acquire))
                return a->val[k];
            /* not yet: computed here, and the threads go on after it */
            uint64_t cur = atomic_load_explicit(&a->next, memory_order_relaxed);
            while (cur <= k && !atomic_compare_exchange_weak(&a->next, &cur, k + 1))
                ;
        }
    }
    return unit_crc(d, q, U);
}

/* How many threads: ATF_RTC_THREADS, or one per CPU with at least 16 MiB each. */
static unsigned thread_count(uint64_t bytes, uint64_t units)
{
    unsigned want = 0;
    const char *env = getenv("ATF_RTC_THREADS");
    if (env && *env)
        want = (unsigned)strtoul(env, NULL, 10);
    return atf_part_count(want, bytes, units ? units : 1, AHEAD_MAX + 1);
}

static void ahead_stop(ahead *a)
{
    atomic_store(&a->next, a->count);
    if (a->nth) {
        pthread_mutex_lock(&a->mu);
        atomic_store(&a->stop, 1);
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
    }
    for (unsigned i = 0; i < a->nth; i++)
        pthread_join(a->th[i], NULL);
    if (a->nth) {
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
    }
    free(a->val);
    free((void *)a->ready);
    memset(a, 0, sizeof *a);
}

/* ---- Growable arrays ------------------------------------------------------------ */

typedef struct vec {
    void *p;
    size_t n, cap, elem;
} vec;

static void *vec_push(vec *v, int *oom)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 16;
        void *np = realloc(v->p, nc * v->elem);
        if (!np) {
            *oom = 1;
            return NULL;
        }
        v->p = np;
        v->cap = nc;
    }
    void *e = (char *)v->p + v->n * v->elem;
    memset(e, 0, v->elem);
    v->n++;
    return e;
}

#define VEC_AT(v, T, i) (((T *)(v).p)[i])

/* ---- State -------------------------------------------------------------------------- */

typedef struct rstream {          /* a stream of the Meta in force */
    uint64_t id;
    uint64_t seq;                 /* insertion order (the name lookup takes the last) */
    json_t *obj;
    const char *name;             /* NULL when not a string */
    int64_t length;               /* -1: variable */
    const char *format;
    int clock;                    /* 0 none/false/null, 1 true, 2 a name */
    const char *clock_name;
    int has_delta;                /* "delta" present and not null */
    const char *delta;            /* when a string */
    int has_gain, has_offset;
    double gain, offset;
    long clock_ref, delta_ref;    /* table index of the named stream, or -1 */
} rstream;

typedef struct rever {
    uint64_t id;
    json_t *obj;
    int gone;
} rever;

typedef struct rchain {           /* a record being continued */
    uint64_t sid;
    vec frames;                   /* uint64_t */
    atf_bytebuf payload;
    uint64_t fixed_left;          /* fixed-length stream: bytes of the frame cut at a boundary still to come */
} rchain;

typedef struct rclock {
    uint64_t sid;
    int has;
    double t;
} rclock;

typedef struct rframe {
    uint64_t off, sid;
} rframe;

typedef struct rrange {
    int64_t a, b;
} rrange;

typedef struct rdefer {
    uint64_t sid, off;
    atf_bytebuf payload;
} rdefer;

typedef struct rrec {
    uint64_t sid, off;
    size_t frames_at;             /* index into frames_pool */
    size_t frame_count;
    int in_pool;                  /* payload in payload_pool at payload_at, else in the file */
    size_t payload_at, size;
    int has_time;
    double time;
    const char *format;           /* owned by fmt_pool entry */
    int has_gain, has_offset;
    double gain, offset;
    int big;
} rrec;

typedef struct rfinding {
    int clause;
    uint64_t offset;
    const char *field;
    char *message;
} rfinding;

typedef struct rstreamdef {
    uint64_t id, off;
    json_t *obj;
} rstreamdef;

struct atf_rtc_reader {
    atf_blob blob;
    int have_blob;
    const uint8_t *d;
    uint64_t n;
    rtc_crc_tab crc;
    int oom;

    /* results */
    vec recs, units, skips, findings, streamdefs;   /* rrec, atf_rtc_unit_info, atf_rtc_skip, rfinding, rstreamdef */
    vec frames_pool;              /* uint64_t */
    atf_bytebuf payload_pool;
    vec fmts;                     /* char * */
    uint64_t clause_count[RC_COUNT_];
    atf_rtc_state state;
    atf_error first_damage;
    int have_damage;
    int geo;
    uint64_t U, u;
    int64_t origin;
    int order;                    /* 0 none, 1 little, 2 big: the Platform in force */
    int first_order;
    size_t next_rec;

    /* decoding */
    vec table;                    /* rstream, sorted by id */
    int have_table;
    uint64_t seq;
    vec ever;                     /* rever, sorted by id */
    int have_next_free;
    int64_t next_free;
    vec open;                     /* rchain, sorted by sid */
    vec clocks;                   /* rclock, sorted by sid */
    vec frames_at;                /* rframe, ascending offsets */
    vec unchecked;                /* rrange, skipped ranges in file order */
    int64_t read_from;            /* targets before the first Marker read are not checked */
    vec deferred;                 /* rdefer */
    const char **refs;            /* the clock and delta names of the table, sorted (check_clocks) */
    size_t refs_n;
    int meta_seen, lost;
    int has_cont;                 /* cont_to: the end of the last Unit read whole with no skip */
    uint64_t cont_to;
    int fresh, user_seen;         /* this Unit: its predecessor was not read; a user frame was read */
    int64_t bad_last;             /* re-read: the last Unit at this offset has a bad final Crc */
    uint64_t bad_last_crc;
    ahead crcs;                   /* the whole Units' Crcs, computed ahead (read_file) */
    uint64_t finds;               /* find() calls */
    uint8_t *meta_last;           /* the last Meta's bytes, when it is the last meta record and found nothing */
    size_t meta_last_n;
    int meta_last_ok;
    atf_rtc_progress progress;    /* atf_rtc_reader_open_with */
    void *progress_user;
    size_t reported;              /* records handed to progress */
    int progress_only;            /* ATF_RTC_PROGRESS_ONLY: recs emptied after each report */
    uint64_t handed;              /* records handed on and dropped */
};

/* ---- Findings and skips --------------------------------------------------------------- */

static void find(atf_rtc_reader *r, int clause, uint64_t off, const char *field, const char *fmt, ...)
    ATF_PRINTF(5, 6);

static void find(atf_rtc_reader *r, int clause, uint64_t off, const char *field, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->finds++;
    /* One line: quoted input (jansson's error text) may hold control characters. */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7F)
            *c = '?';
    if (clause >= 0) {
        r->clause_count[clause]++;
        if (rtc_clause_is_error(clause)) {
            if (!r->have_damage) {
                r->have_damage = 1;
                atf_fail(&r->first_damage, ATF_E_DAMAGED, off, field, "%s: %s", rtc_clause_id(clause), msg);
                atf_error_detach_field(&r->first_damage);
            }
            r->state = ATF_RTC_DAMAGED;
        } else if ((clause == RC_REC_001 || clause == RC_REC_002) && r->state == ATF_RTC_COMPLETE) {
            r->state = ATF_RTC_CRASH_TRUNCATED;
        }
    }
    if (r->findings.n >= MAX_FINDINGS)
        return;
    rfinding *f = vec_push(&r->findings, &r->oom);
    if (!f)
        return;
    f->clause = clause;
    f->offset = off;
    f->field = field;
    f->message = atf_strdup(msg);
}

static void clocks_forget(atf_rtc_reader *r)
{
    r->clocks.n = 0;
}

static void chain_free(rchain *c)
{
    free(c->frames.p);
    free(c->payload.p);
}

static void open_clear(atf_rtc_reader *r, uint64_t off)
{
    if (r->open.n) {
        char list[200];
        size_t k = 0;
        list[0] = 0;
        for (size_t i = 0; i < r->open.n && k + 24 < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%llu", i ? ", " : "",
                                  (unsigned long long)VEC_AT(r->open, rchain, i).sid);
        find(r, NO_VALUE, off, NULL, "records left incomplete by the skip: streams %s", list);
    }
    for (size_t i = 0; i < r->open.n; i++)
        chain_free(&VEC_AT(r->open, rchain, i));
    r->open.n = 0;
}

static void skip(atf_rtc_reader *r, uint64_t off, uint64_t n, const char *reason)
{
    if (n > 0) {
        atf_rtc_skip *s = vec_push(&r->skips, &r->oom);
        if (s) {
            s->offset = off;
            s->bytes = n;
            s->reason = reason;
        }
        rrange *g = vec_push(&r->unchecked, &r->oom);
        if (g) {
            g->a = (int64_t)off;
            g->b = (int64_t)(off + n);
        }
    }
    clocks_forget(r);
    r->lost = 1;
    open_clear(r, off);
}

/* ---- Lookups --------------------------------------------------------------------------- */

/* The position where sid is or would go in a vector sorted by a leading uint64_t key. */
static size_t key_pos(const vec *v, uint64_t key, int *found)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, (const char *)v->p + m * v->elem, sizeof k);
        if (k == key) {
            *found = 1;
            return m;
        }
        if (k < key)
            lo = m + 1;
        else
            hi = m;
    }
    *found = 0;
    return lo;
}

/* The element with key @id of a vector sorted by its leading uint64_t key, or NULL. */
static void *key_find(const vec *v, uint64_t id)
{
    int found;
    size_t m = key_pos(v, id, &found);
    return found ? (char *)v->p + m * v->elem : NULL;
}

static rstream *table_find(const atf_rtc_reader *r, uint64_t id)
{
    return (rstream *)key_find(&r->table, id);
}

static rever *ever_find(const atf_rtc_reader *r, uint64_t id)
{
    return (rever *)key_find(&r->ever, id);
}

/* Inserts a zeroed element with key at its place (or returns the existing one). */
static void *key_insert(vec *v, uint64_t key, int *oom)
{
    int found;
    size_t at = key_pos(v, key, &found);
    if (found)
        return (char *)v->p + at * v->elem;
    if (!vec_push(v, oom))
        return NULL;
    char *base = v->p;
    memmove(base + (at + 1) * v->elem, base + at * v->elem, (v->n - 1 - at) * v->elem);
    memset(base + at * v->elem, 0, v->elem);
    memcpy(base + at * v->elem, &key, sizeof key);
    return base + at * v->elem;
}

static rclock *clock_get(atf_rtc_reader *r, uint64_t sid)
{
    int found;
    size_t at = key_pos(&r->clocks, sid, &found);
    return found ? &VEC_AT(r->clocks, rclock, at) : NULL;
}

static void clock_set(atf_rtc_reader *r, uint64_t sid, int has, double t)
{
    rclock *c = key_insert(&r->clocks, sid, &r->oom);
    if (c) {
        c->has = has;
        c->t = t;
    }
}

/* Built-in: fixed length (or -1 variable). @return 1 when sid is built in. */
static int builtin(uint64_t sid, int64_t *length)
{
    static const int64_t len[9] = { 0, -1, 1024, -1, -1, -1, -1, 4, 4 };
    if (sid > ATF_RTC_CRC)
        return 0;
    *length = len[sid];
    return 1;
}

static int frame_sid(const atf_rtc_reader *r, uint64_t off, uint64_t *sid)
{
    size_t lo = 0, hi = r->frames_at.n;
    const rframe *f = r->frames_at.p;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (f[m].off == off) {
            *sid = f[m].sid;
            return 1;
        }
        if (f[m].off < off)
            lo = m + 1;
        else
            hi = m;
    }
    return 0;
}

static void frame_note(atf_rtc_reader *r, uint64_t off, uint64_t sid)
{
    if (sid == ATF_RTC_NOP || sid == ATF_RTC_PADDING)
        return;   /* never a target: not kept */
    if (r->frames_at.n && VEC_AT(r->frames_at, rframe, r->frames_at.n - 1).off >= off)
        return;
    rframe *f = vec_push(&r->frames_at, &r->oom);
    if (f) {
        f->off = off;
        f->sid = sid;
    }
}

/* ---- LEB128 lists -------------------------------------------------------------------- */

/* The LEB128 integers filling p[0..n): count, and the first @p cap of them. @return 0 when one fails. */
static int ints(const uint8_t *p, size_t n, uint64_t *first, size_t cap, size_t *count)
{
    size_t i = 0, k = 0;
    while (i < n) {
        uint64_t v;
        size_t used;
        if (atf_rtc_uleb_decode(p + i, n - i, &v, &used, NULL) != ATF_OK)
            return 0;
        if (k < cap)
            first[k] = v;
        k++;
        i += used;
    }
    *count = k;
    return 1;
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* ---- Geometry -------------------------------------------------------------------------- */

static int probe(atf_rtc_reader *r, uint64_t p, uint64_t *U, uint64_t *u, uint64_t *count)
{
    const uint8_t *d = r->d;
    uint64_t n = r->n, i = p + ATF_RTC_MARKER_SIZE, x, ln;
    size_t used;
    if (i > n || atf_rtc_uleb_decode(d + i, n - i, &x, &used, NULL) != ATF_OK || x >> 1 != ATF_RTC_INDEX)
        return 0;
    i += used;
    if (atf_rtc_uleb_decode(d + i, n - i, &ln, &used, NULL) != ATF_OK)
        return 0;
    i += used;
    uint64_t take = ln < ATF_RTC_MAX_PAYLOAD ? ln : ATF_RTC_MAX_PAYLOAD;
    if (take > n - i)
        take = n - i;
    /* the first 5 integers only: an Index longer than a frame is cut into
     * pieces, and its first piece may end inside a later integer */
    uint64_t v[5];
    for (size_t k = 0, at = 0; k < 5; k++) {
        if (atf_rtc_uleb_decode(d + i + at, (size_t)take - at, &v[k], &used, NULL) != ATF_OK)
            return 0;
        at += used;
    }
    if (v[1] != (ATF_RTC_INDEX << 1 | 1) || v[3] != (ATF_RTC_SUBINDEX << 1 | 1))
        return 0;
    uint64_t UU = v[2] >> 1, du = v[4] >> 1, uu;
    if (!is_pow2(UU) || UU > ((uint64_t)1 << 62))
        return 0;
    if (du < UU) {
        uu = du;
    } else {
        if (v[0] > (du / UU))
            return 0;
        uu = du - v[0] * UU;
    }
    if (!is_pow2(uu) || uu < ATF_RTC_MIN_UNIT || uu > UU)
        return 0;
    /* the origin must be representable */
    if (v[0] > (uint64_t)INT64_MAX / UU || v[0] * UU > (uint64_t)INT64_MAX - n)
        return 0;
    *U = UU;
    *u = uu;
    *count = v[0];
    return 1;
}

static int index_cut(atf_rtc_reader *r, uint64_t p)
{
    const uint8_t *d = r->d;
    uint64_t n = r->n, i = p + ATF_RTC_MARKER_SIZE, x, ln;
    size_t used;
    if (i > n)
        return 1;
    atf_status st = atf_rtc_uleb_decode(d + i, n - i, &x, &used, NULL);
    if (st != ATF_OK)
        return st == ATF_E_TRUNCATED;
    if (x >> 1 != ATF_RTC_INDEX)
        return 0;
    i += used;
    st = atf_rtc_uleb_decode(d + i, n - i, &ln, &used, NULL);
    if (st != ATF_OK)
        return st == ATF_E_TRUNCATED;
    i += used;
    return ln > n - i;
}

/* ---- Meta and meta (SPEC-RTC 5) ----------------------------------------------------------- */

static int json_int(const json_t *v)
{
    return json_is_integer(v);
}

static int json_num(const json_t *v)
{
    return json_is_integer(v) || json_is_real(v);
}

static double json_dbl(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

static void stream_props(rstream *s)
{
    json_t *o = s->obj, *v;
    v = json_object_get(o, "name");
    s->name = json_is_string(v) ? json_string_value(v) : NULL;
    v = json_object_get(o, "length");
    s->length = json_is_integer(v) && json_integer_value(v) >= 0 ? json_integer_value(v) : -1;
    v = json_object_get(o, "format");
    s->format = json_is_string(v) ? json_string_value(v) : "raw";
    v = json_object_get(o, "clock");
    s->clock = json_is_true(v) ? 1 : json_is_string(v) ? 2 : 0;
    s->clock_name = json_is_string(v) ? json_string_value(v) : NULL;
    v = json_object_get(o, "delta");
    s->has_delta = v && !json_is_null(v);
    s->delta = json_is_string(v) ? json_string_value(v) : NULL;
    v = json_object_get(o, "gain");
    s->has_gain = json_num(v);
    s->gain = s->has_gain ? json_dbl(v) : 0;
    v = json_object_get(o, "offset");
    s->has_offset = json_num(v);
    s->offset = s->has_offset ? json_dbl(v) : 0;
}

static void check_props(atf_rtc_reader *r, json_t *o, uint64_t off, const char *what)
{
    static const struct { const char *key; char kind; } known[] = {
        { "id", 'i' }, { "name", 's' }, { "length", 'i' }, { "cont", 'b' }, { "format", 's' },
        { "clock", 'c' }, { "delta", 's' }, { "gain", 'n' }, { "offset", 'n' }, { "stream", 's' },
    };
    json_t *idv = json_object_get(o, "id");
    long long id = json_is_integer(idv) ? (long long)json_integer_value(idv) : -1;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        json_t *v = json_object_get(o, known[k].key);
        if (!v)
            continue;
        int ok;
        switch (known[k].kind) {
        case 'i': ok = json_is_null(v) || (json_int(v) && json_integer_value(v) >= 0); break;
        case 's': ok = json_is_null(v) || json_is_string(v); break;
        case 'b': ok = json_is_boolean(v); break;
        case 'n': ok = json_num(v); break;
        default: ok = json_is_null(v) || json_is_boolean(v) || json_is_string(v); break;
        }
        if (!ok)
            find(r, RC_MET_004, off, what, "the %s at %llu: stream %lld has a %s of the wrong type", what,
                 (unsigned long long)off, id, known[k].key);
    }
    json_t *ln = json_object_get(o, "length");
    if (json_int(ln) && json_integer_value(ln) > (json_int_t)ATF_RTC_MAX_PAYLOAD)
        find(r, RC_MET_005, off, what, "the %s at %llu: stream %lld has a fixed length of %lld, more than 1024",
             what, (unsigned long long)off, id, (long long)json_integer_value(ln));
}

/* The table's names sorted (name, then insertion order), for by_name. */
typedef struct rname {
    const char *name;
    uint64_t seq;
    long at;
} rname;

static int cmp_rname(const void *a, const void *b)
{
    const rname *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The stream of the table whose name is @p name, the last inserted: -1 when none. */
static long by_name(const rname *ix, size_t n, const char *name)
{
    if (!name)
        return -1;
    size_t lo = 0, hi = n;
    while (lo < hi) {   /* the first entry after every one <= name */
        size_t m = lo + (hi - lo) / 2;
        if (strcmp(ix[m].name, name) <= 0)
            lo = m + 1;
        else
            hi = m;
    }
    return lo > 0 && !strcmp(ix[lo - 1].name, name) ? ix[lo - 1].at : -1;
}

/* 1 when a stream of the table (at its last clock check) names @p name as its clock or delta. */
static int name_used(const atf_rtc_reader *r, const char *name)
{
    size_t lo = 0, hi = name ? r->refs_n : 0;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        int c = strcmp(r->refs[m], name);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = m + 1;
        else
            hi = m;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_clocks(atf_rtc_reader *r, uint64_t off, const char *what)
{
    /* Names resolved once per table through a sorted index: O(T log T). */
    size_t nn = 0;
    rname *ix = r->table.n ? malloc(r->table.n * sizeof *ix) : NULL;
    const char **refs = r->table.n ? malloc(2 * r->table.n * sizeof *refs) : NULL;
    if (r->table.n && (!ix || !refs)) {
        free(ix);
        free(refs);
        r->oom = 1;
        return;
    }
    size_t nr = 0;
    for (size_t i = 0; i < r->table.n; i++) {
        const rstream *s = &VEC_AT(r->table, rstream, i);
        if (s->name) {
            ix[nn].name = s->name;
            ix[nn].seq = s->seq;
            ix[nn].at = (long)i;
            nn++;
        }
        if (s->clock == 2)
            refs[nr++] = s->clock_name;
        if (s->delta)
            refs[nr++] = s->delta;
    }
    if (nn)
        qsort(ix, nn, sizeof *ix, cmp_rname);
    if (nr)
        qsort(refs, nr, sizeof *refs, cmp_str);
    free(r->refs);
    r->refs = refs;
    r->refs_n = nr;
    for (size_t i = 0; i < r->table.n; i++) {
        rstream *s = &VEC_AT(r->table, rstream, i);
        s->clock_ref = s->clock == 2 ? by_name(ix, nn, s->clock_name) : -1;
        s->delta_ref = s->delta ? by_name(ix, nn, s->delta) : -1;
    }
    free(ix);
    for (size_t i = 0; i < r->table.n; i++) {
        rstream *s = &VEC_AT(r->table, rstream, i);
        if (s->clock == 2) {
            if (s->clock_ref < 0 || VEC_AT(r->table, rstream, s->clock_ref).clock != 1)
                find(r, RC_CLK_001, off, what, "stream %llu: clock \"%s\" is not a clock stream of the Meta in force",
                     (unsigned long long)s->id, s->clock_name);
        }
        if (s->clock == 1) {
            if (!rtc_format_is_clock(s->format))
                find(r, RC_CLK_002, off, what, "clock stream %llu has the format \"%s\", neither numeric nor timespec",
                     (unsigned long long)s->id, s->format);
            if (s->has_delta) {
                const rstream *b = s->delta_ref >= 0 ? &VEC_AT(r->table, rstream, s->delta_ref) : NULL;
                if (!b || b->clock != 1 || b->has_delta)
                    find(r, RC_CLK_002, off, what, "delta clock %llu: its delta is not an absolute clock stream",
                         (unsigned long long)s->id);
            }
        }
    }
}

static int cmp_stream(const void *a, const void *b)
{
    uint64_t x = ((const rstream *)a)->id, y = ((const rstream *)b)->id;
    return x < y ? -1 : x > y;
}

static int cmp_ever(const void *a, const void *b)
{
    uint64_t x = ((const rever *)a)->id, y = ((const rever *)b)->id;
    return x < y ? -1 : x > y;
}

typedef struct idpos {
    uint64_t id;
    size_t pos;
} idpos;

static int cmp_idpos(const void *a, const void *b)
{
    const idpos *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void table_free(vec *t)
{
    for (size_t i = 0; i < t->n; i++)
        json_decref(VEC_AT(*t, rstream, i).obj);
    free(t->p);
    t->p = NULL;
    t->n = t->cap = 0;
}

/* Sorts v, sorted up to @p from, after elements were appended: the tail
 * alone when it goes after the rest (ids growing, the usual case), else the
 * whole. @return 1 when elements before @p from moved. */
static int sort_tail(vec *v, size_t from, int (*cmp)(const void *, const void *))
{
    if (v->n <= from)
        return 0;
    char *base = v->p;
    qsort(base + from * v->elem, v->n - from, v->elem, cmp);
    if (from == 0 || cmp(base + (from - 1) * v->elem, base + from * v->elem) < 0)
        return 0;
    qsort(base, v->n, v->elem, cmp);
    return 1;
}

/* The meta record's JSON: an array of objects ending with the next free id
 * (MET-001), or NULL (found). */
static json_t *meta_json(atf_rtc_reader *r, uint64_t off, const char *what, const uint8_t *p, size_t n)
{
    json_error_t je;
    json_t *v = json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v)
        v = json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
    if (!v) {
        find(r, RC_MET_001, off, what, "the %s at %llu is not JSON text: %.80s", what, (unsigned long long)off, je.text);
        return NULL;
    }
    size_t len = json_is_array(v) ? json_array_size(v) : 0;
    int shape = len > 0 && json_int(json_array_get(v, len - 1));
    for (size_t i = 0; shape && i + 1 < len; i++)
        shape = json_is_object(json_array_get(v, i));
    if (!shape) {
        find(r, RC_MET_001, off, what, "the %s at %llu is not an array of objects ending with the next free id",
             what, (unsigned long long)off);
        json_decref(v);
        return NULL;
    }
    return v;
}

/* The ids of a record's objs objects: the first of each valid id is taken,
 * later ones are marked in the returned array (MET-002). NULL if out of
 * memory (r->oom). */
static unsigned char *meta_dups(atf_rtc_reader *r, json_t *v, size_t objs, int64_t nxt)
{
    idpos *ip = objs ? malloc(objs * sizeof *ip) : NULL;
    unsigned char *dup = calloc(objs ? objs : 1, 1);
    if ((objs && !ip) || !dup) {
        r->oom = 1;
        free(ip);
        free(dup);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < objs; i++) {
        json_t *id = json_object_get(json_array_get(v, i), "id");
        if (json_int(id) && json_integer_value(id) >= (json_int_t)ATF_RTC_FIRST_USER_ID &&
            json_integer_value(id) < nxt) {
            ip[k].id = (uint64_t)json_integer_value(id);
            ip[k].pos = i;
            k++;
        }
    }
    if (k)
        qsort(ip, k, sizeof *ip, cmp_idpos);
    for (size_t i = 1; i < k; i++)
        if (ip[i].id == ip[i - 1].id)
            dup[ip[i].pos] = 1;
    free(ip);
    return dup;
}

/* A submeta record updates the table in place: takes it over (not copied)
 * into *table. @return whether the clocks need checking again: when the
 * record (re)defines a stream with a clock or a delta, or one whose name a
 * clock or delta names (decided before the table changes: names are its). */
static int submeta_take_table(atf_rtc_reader *r, json_t *v, size_t objs, vec *table)
{
    *table = r->table;
    memset(&r->table, 0, sizeof r->table);
    r->table.elem = sizeof(rstream);
    int clocks_again = 0;
    for (size_t i = 0; i < objs && !clocks_again; i++) {
        json_t *o = json_array_get(v, i), *nm = json_object_get(o, "name"), *id = json_object_get(o, "id");
        json_t *ck = json_object_get(o, "clock"), *dl = json_object_get(o, "delta");
        const rstream *old = json_int(id) && json_integer_value(id) >= 0 ?
            (const rstream *)key_find(table, (uint64_t)json_integer_value(id)) : NULL;
        clocks_again = (ck && !json_is_null(ck) && !json_is_false(ck)) || (dl && !json_is_null(dl)) ||
                       (json_is_string(nm) && name_used(r, json_string_value(nm))) ||
                       (old && (old->clock || old->has_delta || (old->name && name_used(r, old->name))));
    }
    return clocks_again;
}

/* One stream definition o (id ident) of the meta record at off: checked
 * against every definition before (MET-003), then table[ident] = Stream(o);
 * an update keeps its place (seq). table is sorted up to old_n. */
static void meta_stream(atf_rtc_reader *r, json_t *o, uint64_t ident, uint64_t off, const char *what, vec *table,
                        size_t old_n)
{
    check_props(r, o, off, what);
    rever *e = ever_find(r, ident);
    if (e && (!json_equal(e->obj, o) || e->gone)) {
        find(r, RC_MET_003, off, what, "stream id %llu is reused: %s", (unsigned long long)ident,
             json_equal(e->obj, o) ? "defined again after it was dropped" : "a different definition than before");
    } else if (!e) {
        /* new (ids are unique in the record: dup[] left out the others) */
        rever *ne = vec_push(&r->ever, &r->oom);
        if (ne) {
            ne->id = ident;
            ne->obj = json_incref(o);
        }
        rstreamdef *sd = vec_push(&r->streamdefs, &r->oom);
        if (sd) {
            sd->id = ident;
            sd->off = off;
            sd->obj = json_incref(o);
        }
    }
    rstream *s = NULL;
    size_t lo = 0, hi = old_n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        uint64_t mid = VEC_AT(*table, rstream, m).id;
        if (mid == ident) {
            s = &VEC_AT(*table, rstream, m);
            break;
        }
        if (mid < ident)
            lo = m + 1;
        else
            hi = m;
    }
    if (s) {
        json_decref(s->obj);
    } else {
        s = vec_push(table, &r->oom);
        if (!s)
            return;
        s->id = ident;
        s->seq = ++r->seq;
    }
    s->obj = json_incref(o);
    stream_props(s);
    s->clock_ref = s->delta_ref = -1;
}

/* A Meta record replaces the table: the streams it leaves out are gone. */
static void mark_gone(atf_rtc_reader *r, const vec *table)
{
    for (size_t i = 0; i < r->table.n; i++) {
        uint64_t id = VEC_AT(r->table, rstream, i).id;
        int found = 0;
        key_pos(table, id, &found);
        if (!found) {
            rever *e = ever_find(r, id);
            if (e)
                e->gone = 1;
        }
    }
}

/* A Meta with the bytes of the Meta before, no meta record between them,
 * where nothing was found: read again it gives the same table with nothing
 * found (each stream's definition equal to its first, none gone, the same
 * next free id and clocks), only its streams' places in the insertion order
 * are after every one before: moved on by as many. Not parsed again. */
static int meta_again(atf_rtc_reader *r, uint64_t sid, const uint8_t *p, size_t n)
{
    if (sid != ATF_RTC_META || !r->meta_last_ok || n != r->meta_last_n || memcmp(p, r->meta_last, n))
        return 0;
    size_t k = r->table.n;
    for (size_t i = 0; i < k; i++)
        VEC_AT(r->table, rstream, i).seq += k;
    r->seq += k;
    return 1;
}

static void meta_keep(atf_rtc_reader *r, uint64_t sid, const uint8_t *p, size_t n)
{
    if (sid != ATF_RTC_META || r->oom)
        return;
    if (n > r->meta_last_n || !r->meta_last) {
        uint8_t *c = malloc(n ? n : 1);
        if (!c)
            return;   /* not kept: the next Meta is read in full */
        free(r->meta_last);
        r->meta_last = c;
    }
    memcpy(r->meta_last, p, n);
    r->meta_last_n = n;
    r->meta_last_ok = 1;
}

static void meta(atf_rtc_reader *r, uint64_t sid, uint64_t off, const uint8_t *p, size_t n)
{
    const char *what = sid == ATF_RTC_META ? "Meta" : "meta";
    if (meta_again(r, sid, p, n))
        return;
    r->meta_last_ok = 0;
    uint64_t finds = r->finds;
    json_t *v = meta_json(r, off, what, p, n);
    if (!v)
        return;
    size_t objs = json_array_size(v) - 1;
    int64_t nxt = (int64_t)json_integer_value(json_array_get(v, objs));
    unsigned char *dup = meta_dups(r, v, objs, nxt);
    if (!dup) {
        json_decref(v);
        return;
    }
    vec table = { NULL, 0, 0, sizeof(rstream) };
    int clocks_again = sid == ATF_RTC_META;
    if (sid == ATF_RTC_SUBMETA)
        clocks_again = submeta_take_table(r, v, objs, &table);
    size_t old_n = table.n;
    size_t ever_n = r->ever.n;
    for (size_t i = 0; i < objs; i++) {
        json_t *o = json_array_get(v, i), *id = json_object_get(o, "id");
        if (!json_int(id) || json_integer_value(id) < (json_int_t)ATF_RTC_FIRST_USER_ID ||
            json_integer_value(id) >= nxt || dup[i]) {
            find(r, RC_MET_002, off, what,
                 "the %s at %llu has an object whose id is not a unique integer from 9 below the next free id %lld",
                 what, (unsigned long long)off, (long long)nxt);
            continue;
        }
        meta_stream(r, o, (uint64_t)json_integer_value(id), off, what, &table, old_n);
    }
    free(dup);
    sort_tail(&r->ever, ever_n, cmp_ever);
    if (sort_tail(&table, old_n, cmp_stream))
        clocks_again = 1;   /* table places moved: clock_ref and delta_ref with them */
    if (r->have_next_free && nxt < r->next_free)
        find(r, RC_MET_003, off, what, "the next free id %lld is less than %lld, given before", (long long)nxt,
             (long long)r->next_free);
    if (!r->have_next_free || nxt > r->next_free)
        r->next_free = nxt;
    r->have_next_free = 1;
    if (sid == ATF_RTC_META && r->have_table)
        mark_gone(r, &table);
    table_free(&r->table);
    r->table = table;
    r->have_table = 1;
    json_decref(v);
    if (clocks_again)
        check_clocks(r, off, what);
    if (r->finds == finds)
        meta_keep(r, sid, p, n);
}

/* ---- Index and index (SPEC-RTC 4) ---------------------------------------------------------- */

static int unknown_target(const atf_rtc_reader *r, int64_t target)
{
    if (target < 0 || (r->geo && target < r->origin) || target < r->read_from)
        return 1;
    /* skipped ranges come in file order: bisect for the last one starting at or before target */
    const rrange *g = r->unchecked.p;
    size_t lo = 0, hi = r->unchecked.n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (g[m].a <= target)
            lo = m + 1;
        else
            hi = m;
    }
    return lo > 0 && target < g[lo - 1].b;
}

static void index_record(atf_rtc_reader *r, uint64_t sid, uint64_t off, const uint8_t *p, size_t n)
{
    const char *what = sid == ATF_RTC_INDEX ? "Index" : "index";
    size_t count;
    uint64_t dummy;
    if (!ints(p, n, &dummy, 0, &count)) {
        find(r, RC_IDX_001, off, what, "the %s at %llu is not a sequence of LEB128 integers", what,
             (unsigned long long)off);
        return;
    }
    size_t i = 0, used;
    uint64_t val;
    if (sid == ATF_RTC_INDEX) {
        if (count == 0) {
            find(r, RC_IDX_001, off, what, "the Index at %llu has no count", (unsigned long long)off);
            return;
        }
        atf_rtc_uleb_decode(p, n, &val, &used, NULL);
        i = used;
        count--;
        int64_t want = ((int64_t)off - (int64_t)ATF_RTC_MARKER_SIZE - r->origin) / (int64_t)r->U;
        if (val != (uint64_t)want)
            find(r, RC_IDX_004, off, "count", "the Index at %llu says Unit %llu; its place says Unit %lld",
                 (unsigned long long)off, (unsigned long long)val, (long long)want);
    }
    if (count % 2) {
        find(r, RC_IDX_001, off, what, "the %s at %llu ends inside an entry", what, (unsigned long long)off);
        count--;
    }
    int64_t prev = -1;
    for (size_t e = 0; e < count / 2; e++) {
        uint64_t eid, eoff;
        atf_rtc_uleb_decode(p + i, n - i, &eid, &used, NULL);
        i += used;
        atf_rtc_uleb_decode(p + i, n - i, &eoff, &used, NULL);
        i += used;
        if (!(eid & 1) || (eoff & 1)) {
            find(r, RC_IDX_001, off, what, "%s entry %zu at %llu: id %llu must be odd and offset %llu even", what, e,
                 (unsigned long long)off, (unsigned long long)eid, (unsigned long long)eoff);
            continue;
        }
        uint64_t s = eid >> 1, dist = eoff >> 1;
        if (prev >= 0 && s <= (uint64_t)prev)
            find(r, RC_IDX_005, off, what, "%s at %llu: stream %llu after stream %lld (not ascending)", what,
                 (unsigned long long)off, (unsigned long long)s, (long long)prev);
        prev = s > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)s;
        int64_t fl;
        int known = builtin(s, &fl) || table_find(r, s);
        if (s == ATF_RTC_NOP || s == ATF_RTC_PADDING || s == ATF_RTC_MARKER || s == ATF_RTC_SUBMETA ||
            (!known && (s < ATF_RTC_FIRST_USER_ID || r->have_table))) {
            find(r, RC_IDX_002, off, what, "%s at %llu names stream %llu, which is not an indexed stream of the Meta in force",
                 what, (unsigned long long)off, (unsigned long long)s);
            continue;
        }
        if (sid == ATF_RTC_INDEX && s == ATF_RTC_INDEX && dist != r->U)
            find(r, RC_UNI_001, off, what, "the Index at %llu gives the Unit size %llu, not %llu",
                 (unsigned long long)off, (unsigned long long)dist, (unsigned long long)r->U);
        if (sid == ATF_RTC_INDEX && s == ATF_RTC_SUBINDEX) {
            uint64_t c = (uint64_t)(((int64_t)off - (int64_t)ATF_RTC_MARKER_SIZE - r->origin) / (int64_t)r->U);
            uint64_t u = dist < r->U ? dist : (c <= dist / r->U ? dist - c * r->U : UINT64_MAX);
            if (u != r->u)
                find(r, RC_UNI_001, off, what, "the Index at %llu gives the unit size %llu, not %llu",
                     (unsigned long long)off, (unsigned long long)u, (unsigned long long)r->u);
        }
        if (dist == 0)
            continue;
        if (dist > off) {
            continue;   /* before the start of the file: not checked */
        }
        int64_t target = (int64_t)(off - dist);
        if (unknown_target(r, target))
            continue;
        uint64_t got;
        int is = frame_sid(r, (uint64_t)target, &got);
        if (!is || got != s)
            find(r, RC_IDX_003, off, what, "%s at %llu: the entry of stream %llu points at %lld, which is not a frame of it",
                 what, (unsigned long long)off, (unsigned long long)s, (long long)target);
    }
}

static void drop_deferred(atf_rtc_reader *r)
{
    for (size_t i = 0; i < r->deferred.n; i++)
        free(VEC_AT(r->deferred, rdefer, i).payload.p);
    r->deferred.n = 0;
}

static void flush_deferred(atf_rtc_reader *r)
{
    for (size_t i = 0; i < r->deferred.n; i++) {
        rdefer *df = &VEC_AT(r->deferred, rdefer, i);
        index_record(r, df->sid, df->off, df->payload.p, df->payload.n);
        free(df->payload.p);
    }
    r->deferred.n = 0;
}

/* ---- Platform and user records ------------------------------------------------------------ */

static void platform(atf_rtc_reader *r, uint64_t off, const uint8_t *b, size_t n)
{
    static const uint8_t le[4] = { 4, 3, 2, 1 }, be[4] = { 1, 2, 3, 4 };
    int o = n == 4 && !memcmp(b, le, 4) ? 1 : n == 4 && !memcmp(b, be, 4) ? 2 : 0;
    if (!o) {
        find(r, RC_PLT_001, off, "Platform", "Platform does not hold 0x01020304 in either byte order");
        return;
    }
    if (r->order && o != r->order) {
        find(r, RC_PLT_001, off, "Platform", "Platform says %s-endian after %s-endian earlier in the file",
             o == 1 ? "little" : "big", r->order == 1 ? "little" : "big");
        return;
    }
    r->order = o;
    if (!r->first_order)
        r->first_order = o;
}

static const char *keep_format(atf_rtc_reader *r, const char *f)
{
    /* one of the last 8 kept is reused while the formats repeat (streams
     * that take turns: one copy each, not one per record) */
    for (size_t i = r->fmts.n, k = 0; i > 0 && k < 8; i--, k++)
        if (!strcmp(VEC_AT(r->fmts, char *, i - 1), f))
            return VEC_AT(r->fmts, char *, i - 1);
    char *c = atf_strdup(f);
    char **slot = c ? vec_push(&r->fmts, &r->oom) : NULL;
    if (!slot) {
        free(c);
        r->oom = 1;
        return "raw";
    }
    *slot = c;
    return c;
}

static void value_findings(atf_rtc_reader *r, const char *fmt, int bad, uint64_t off, size_t n)
{
    switch (bad) {
    case RC_FMT_001:
        find(r, RC_FMT_001, off, fmt, "the %s record at %llu has %zu bytes, not its size", fmt, (unsigned long long)off, n);
        break;
    case RC_FMT_002:
        find(r, RC_FMT_002, off, fmt, "the json record at %llu is not JSON text", (unsigned long long)off);
        break;
    case RC_FMT_003:
        find(r, RC_FMT_003, off, fmt, "the %s record at %llu is not one LEB128 that fills its %zu bytes", fmt,
             (unsigned long long)off, n);
        break;
    case RC_FMT_004:
        find(r, RC_FMT_004, off, fmt, "the utf-8 record at %llu is not valid UTF-8", (unsigned long long)off);
        break;
    default: break;
    }
}

static int tick(atf_rtc_reader *r, const rstream *s, int has, double v, uint64_t off, double *time)
{
    if (!has) {
        clock_set(r, s->id, 0, 0);
        return 0;
    }
    double t = v;
    if (s->has_delta) {
        rclock *bc = s->delta_ref >= 0 ? clock_get(r, VEC_AT(r->table, rstream, s->delta_ref).id) : NULL;
        if (v < 0)
            find(r, RC_CLK_003, off, "delta", "delta clock %llu: a negative delta", (unsigned long long)s->id);
        if (!bc || !bc->has) {
            if (!r->lost)
                find(r, RC_CLK_004, off, "delta", "delta clock %llu at %llu: no value of its base clock before it",
                     (unsigned long long)s->id, (unsigned long long)off);
            clock_set(r, s->id, 0, 0);
            return 0;
        }
        t = bc->t + v;
    }
    rclock *pc = clock_get(r, s->id);
    if (pc && pc->has && t < pc->t)
        find(r, RC_CLK_003, off, "clock", "clock %llu goes back at %llu", (unsigned long long)s->id,
             (unsigned long long)off);
    clock_set(r, s->id, 1, t);
    *time = t;
    return 1;
}

static void record(atf_rtc_reader *r, uint64_t sid, const uint64_t *frames, size_t nf, const uint8_t *payload,
                   size_t size, int in_file)
{
    const rstream *s = table_find(r, sid);
    rrec rec;
    memset(&rec, 0, sizeof rec);
    rec.sid = sid;
    rec.off = frames[0];
    rec.frame_count = nf;
    rec.format = keep_format(r, s ? s->format : "raw");
    rec.size = size;
    rec.big = r->order == 2;
    if (s) {
        rec.has_gain = s->has_gain;
        rec.gain = s->gain;
        rec.has_offset = s->has_offset;
        rec.offset = s->offset;
    }
    rtc_val v;
    rtc_value_parse(rec.format, payload, size, rec.big, &v);
    value_findings(r, rec.format, v.bad, rec.off, size);
    if (v.kind == RV_ANNOTATE && v.inner_bad != RC_NONE_)
        value_findings(r, rec.format + 9, v.inner_bad, rec.off, size - 12);
    atf_rtc_record pub;
    memset(&pub, 0, sizeof pub);
    pub.has_gain = rec.has_gain;
    pub.gain = rec.gain;
    pub.has_offset = rec.has_offset;
    pub.value_offset = rec.offset;
    double num = 0;
    int has = rtc_value_number(&v, &pub, &num);
    if (s && s->clock == 1) {
        rec.has_time = tick(r, s, has, num, rec.off, &rec.time);
    } else if (s && s->clock == 2 && s->clock_ref >= 0) {
        rclock *c = clock_get(r, VEC_AT(r->table, rstream, s->clock_ref).id);
        if (c && c->has) {
            rec.has_time = 1;
            rec.time = c->t;
        }
    }
    rec.frames_at = r->frames_pool.n;
    for (size_t i = 0; i < nf; i++) {
        uint64_t *f = vec_push(&r->frames_pool, &r->oom);
        if (!f)
            return;
        *f = frames[i];
    }
    if (in_file) {
        rec.payload_at = (size_t)(payload - r->d);
    } else {
        if (atf_bytebuf_reserve(&r->payload_pool, size)) {
            r->oom = 1;
            return;
        }
        rec.in_pool = 1;
        rec.payload_at = r->payload_pool.n;
        if (size)
            memcpy(r->payload_pool.p + r->payload_pool.n, payload, size);
        r->payload_pool.n += size;
    }
    rrec *slot = vec_push(&r->recs, &r->oom);
    if (slot)
        *slot = rec;
}

/* A frame of stream sid read: padding checked, pieces joined, records completed. */
static void piece(atf_rtc_reader *r, uint64_t sid, uint64_t pos, int more, const uint8_t *body, size_t len)
{
    if (sid == ATF_RTC_PADDING && !atf_all_zero(body, len))
        find(r, RC_PAD_001, pos, "padding", "padding bytes at %llu are not 0", (unsigned long long)pos);
    if (sid == ATF_RTC_PADDING || sid == ATF_RTC_NOP)
        return;
    int found;
    size_t at = key_pos(&r->open, sid, &found);
    if (!found && !more) {
        /* a record of one frame: its payload stays in the file */
        uint64_t f = pos;
        if (sid == ATF_RTC_INDEX || sid == ATF_RTC_SUBINDEX) {
            rdefer *df = vec_push(&r->deferred, &r->oom);
            if (!df)
                return;
            df->sid = sid;
            df->off = pos;
            if (len && !atf_bytebuf_reserve(&df->payload, len)) {
                memcpy(df->payload.p, body, len);
                df->payload.n = len;
            }
            if (r->meta_seen)
                flush_deferred(r);
        } else if (sid == ATF_RTC_META || sid == ATF_RTC_SUBMETA) {
            meta(r, sid, pos, body, len);
            if (sid == ATF_RTC_META) {
                r->meta_seen = 1;
                flush_deferred(r);
            }
        } else if (sid == ATF_RTC_PLATFORM) {
            platform(r, pos, body, len);
        } else {
            record(r, sid, &f, 1, body, len, 1);
        }
        return;
    }
    rchain *c = key_insert(&r->open, sid, &r->oom);
    if (!c)
        return;
    c->frames.elem = sizeof(uint64_t);
    uint64_t *fp = vec_push(&c->frames, &r->oom);
    if (fp)
        *fp = pos;
    if (len && !atf_bytebuf_reserve(&c->payload, len)) {
        memcpy(c->payload.p + c->payload.n, body, len);
        c->payload.n += len;
    } else if (len) {
        r->oom = 1;
    }
    if (more)
        return;
    rchain done = *c;
    at = key_pos(&r->open, sid, &found);
    memmove(&VEC_AT(r->open, rchain, at), &VEC_AT(r->open, rchain, at + 1), (r->open.n - at - 1) * sizeof(rchain));
    r->open.n--;
    const uint64_t *frames = done.frames.p;
    uint64_t first = frames ? frames[0] : pos;
    if (sid == ATF_RTC_INDEX || sid == ATF_RTC_SUBINDEX) {
        rdefer *df = vec_push(&r->deferred, &r->oom);
        if (df) {
            df->sid = sid;
            df->off = first;
            df->payload = done.payload;
            done.payload.p = NULL;
        }
        if (r->meta_seen)
            flush_deferred(r);
    } else if (sid == ATF_RTC_META || sid == ATF_RTC_SUBMETA) {
        meta(r, sid, first, done.payload.p, done.payload.n);
        if (sid == ATF_RTC_META) {
            r->meta_seen = 1;
            flush_deferred(r);
        }
    } else if (sid == ATF_RTC_PLATFORM) {
        platform(r, first, done.payload.p, done.payload.n);
    } else if (frames) {
        record(r, sid, frames, done.frames.n, done.payload.p, done.payload.n, 0);
    }
    chain_free(&done);
}

/* ---- Frames ------------------------------------------------------------------------------- */

enum { FR_OK, FR_DAMAGE, FR_CUT };

typedef struct fres {
    uint64_t sid;
    int more;
    uint64_t body, len, end;
    uint64_t fixed_left;          /* a fixed-length frame cut at a boundary (R-E8): bytes still to come */
    int clause;                   /* FR_DAMAGE */
    uint64_t at;
    const char *field;
    char msg[200];
} fres;

typedef struct ucur {             /* the Unit being read */
    uint64_t q, number;
    uint64_t first_unit;          /* q + 1025 */
    uint64_t units;               /* U / u */
    uint64_t crc_limit;           /* q + U - 5 */
} ucur;

/* The first unit boundary after pos, or UINT64_MAX. */
static uint64_t next_bound(const atf_rtc_reader *r, const ucur *c, uint64_t pos)
{
    if (pos < c->first_unit)
        return UINT64_MAX;
    uint64_t k = (pos - c->first_unit) / r->u + 1;
    if (k >= c->units)
        return UINT64_MAX;
    uint64_t b = c->first_unit + k * r->u;
    return b < c->crc_limit ? b : UINT64_MAX;
}

static int is_bound(const atf_rtc_reader *r, const ucur *c, uint64_t pos)
{
    if (pos <= c->first_unit || pos >= c->crc_limit)
        return 0;
    uint64_t k = (pos - c->first_unit) / r->u;
    return (pos - c->first_unit) % r->u == 0 && k >= 1 && k < c->units;
}

static int damage(fres *f, int clause, uint64_t at, const char *field, const char *fmt, ...) ATF_PRINTF(5, 6);
static int damage(fres *f, int clause, uint64_t at, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    f->clause = clause;
    f->at = at;
    f->field = field;
    return FR_DAMAGE;
}

/* 1 when frames can start at @p at: the next 16 frames (or those up to the
 * next unit boundary or the end of the data, if fewer) are frames of
 * built-in or defined streams that end by that point (a fixed-length frame
 * with more set may be cut there, R-E8). Used only to place the rest of a
 * frame cut before a Unit that was not read. */
static int starts_frames(const atf_rtc_reader *r, const ucur *c, uint64_t at, uint64_t hard)
{
    for (int k = 0; k < 16; k++) {
        uint64_t nb = next_bound(r, c, at), stop = nb < hard ? nb : hard, x, ln;
        size_t used;
        int shortest;
        int64_t l;
        if (at == stop)
            return 1;
        if (at > stop || atf_rtc_uleb_decode(r->d + at, stop - at, &x, &used, &shortest) != ATF_OK)
            return 0;
        uint64_t sid = x >> 1, i = at + used;
        if (sid == ATF_RTC_MARKER)
            return 0;
        if (!builtin(sid, &l)) {
            const rstream *s = table_find(r, sid);
            if (!s)
                return 0;
            l = s->length;
        }
        if (l < 0) {
            if (atf_rtc_uleb_decode(r->d + i, stop - i, &ln, &used, &shortest) != ATF_OK || ln > ATF_RTC_MAX_PAYLOAD)
                return 0;
            i += used;
        } else {
            ln = (uint64_t)l;
            if ((x & 1) && ln > stop - i)
                return 1;   /* cut at the boundary */
        }
        if (ln > stop - i)
            return 0;
        at = i + ln;
    }
    return 1;
}

/* A LEB128 field of the frame at pos, at i (the data ends at hard): the
 * frame id ("header") or its length ("length"). @return FR_OK with *x and
 * *used set, FR_CUT when the data ends in it (last Unit), else FR_DAMAGE. */
static int frame_uleb(atf_rtc_reader *r, uint64_t pos, uint64_t i, uint64_t hard, int last, const char *field,
                      fres *f, uint64_t *x, size_t *used)
{
    int hdr = field[0] == 'h', shortest;
    atf_status st = atf_rtc_uleb_decode(r->d + i, hard - i, x, used, &shortest);
    if (st == ATF_E_TRUNCATED) {
        if (last) {
            f->at = pos;
            return FR_CUT;
        }
        return damage(f, RC_FRM_003, pos, field, "%s at %llu runs into the Unit's Crc",
                      hdr ? "the frame header" : "the frame", (unsigned long long)pos);
    }
    if (st != ATF_OK)
        return damage(f, RC_FRM_001, pos, field, "%s at %llu is longer than 10 bytes%s",
                      hdr ? "the frame header" : "the length of the frame", (unsigned long long)pos,
                      hdr ? " or not below 2^64" : "");
    if (!shortest)
        find(r, RC_FRM_005, pos, field, "%s at %llu is not in its shortest LEB128 form",
             hdr ? "the frame id" : "the length", (unsigned long long)pos);
    return FR_OK;
}

/* A fixed-length frame holds the stream's length, or what is left of a frame
 * of it cut at a boundary (R-E8). The first user frame of a Unit whose
 * predecessor was not read may be the rest of a frame cut at that Unit's Crc
 * position (R-E8): whole when a frame can follow it, else the shortest rest
 * after which one can, read as the tail of a record (R-E12). */
static uint64_t fixed_length(atf_rtc_reader *r, const ucur *c, uint64_t pos, uint64_t i, uint64_t hard,
                             int64_t length, const fres *f)
{
    const rchain *oc = key_find(&r->open, f->sid);
    uint64_t ln = oc && oc->fixed_left ? oc->fixed_left : (uint64_t)length;
    if (!oc && r->fresh && !r->user_seen && f->sid >= ATF_RTC_FIRST_USER_ID && ln > 1 && i + ln <= hard &&
        !starts_frames(r, c, i + ln, hard)) {
        for (uint64_t t = 1; t < ln; t++)
            if (starts_frames(r, c, i + t, hard)) {
                find(r, NO_VALUE, pos,
                     NULL, "the frame at %llu (stream %llu) is read as the last %llu of %llu bytes of a frame cut at "
                     "the Crc position of the Unit before, which was not read (R-E8)",
                     (unsigned long long)pos, (unsigned long long)f->sid, (unsigned long long)t,
                     (unsigned long long)ln);
                return t;
            }
    }
    return ln;
}

static int frame(atf_rtc_reader *r, const ucur *c, uint64_t pos, uint64_t limit, int last, fres *f)
{
    uint64_t hard = last ? r->n : limit, x, i = pos;
    size_t used;
    uint64_t nb = next_bound(r, c, pos);
    int fr = frame_uleb(r, pos, i, hard, last, "header", f, &x, &used);
    if (fr != FR_OK)
        return fr;
    i += used;
    f->sid = x >> 1;
    f->more = (int)(x & 1);
    if (is_bound(r, c, pos) && f->sid != ATF_RTC_SUBINDEX)
        return damage(f, RC_UNI_003, pos, "index", "no index frame at the unit boundary %llu (stream %llu)",
                      (unsigned long long)pos, (unsigned long long)f->sid);
    if (f->sid == ATF_RTC_MARKER)
        return damage(f, RC_MRK_003, pos, "Marker", "a Marker frame (stream 2) at %llu, inside a Unit",
                      (unsigned long long)pos);
    int64_t length;
    if (!builtin(f->sid, &length)) {
        const rstream *s = table_find(r, f->sid);
        if (!s)
            return damage(f, RC_FRM_004, pos, "id", "stream %llu at %llu is neither built in nor defined by the Meta in force",
                          (unsigned long long)f->sid, (unsigned long long)pos);
        length = s->length;
    }
    uint64_t ln;
    if (length < 0) {
        fr = frame_uleb(r, pos, i, hard, last, "length", f, &ln, &used);
        if (fr != FR_OK)
            return fr;
        if (ln > ATF_RTC_MAX_PAYLOAD)
            return damage(f, RC_FRM_002, pos, "length", "the frame at %llu has a payload of %llu bytes, more than 1024",
                          (unsigned long long)pos, (unsigned long long)ln);
        i += used;
    } else {
        ln = fixed_length(r, c, pos, i, hard, length, f);
    }
    f->fixed_left = 0;
    uint64_t end = atf_fits(i, ln, UINT64_MAX) ? i + ln : UINT64_MAX;
    /* R-E8: a fixed-length frame with more set that would cross the next
     * unit boundary, or the Unit's Crc position, ends there; the rest of it
     * is the stream's next frame (after the index frame, or in the next
     * Unit). A frame the data ends in before that point is cut, not split. */
    uint64_t sp = nb != UINT64_MAX ? nb : pos < c->crc_limit ? c->crc_limit : UINT64_MAX;
    if (length >= 0 && f->sid != ATF_RTC_CRC && f->more && sp != UINT64_MAX && end > sp && i <= sp && sp > hard &&
        last) {
        f->at = pos;   /* the data ends before the boundary: cut, whether or not it was split there */
        return FR_CUT;
    }
    if (length >= 0 && f->sid != ATF_RTC_CRC && f->more && sp != UINT64_MAX && end > sp && i <= sp && sp <= hard) {
        find(r, RC_FRM_007, pos, "length",
             "the fixed-length frame at %llu (stream %llu) is cut at the %s %llu with more set: its last %llu of %llu "
             "bytes are the stream's next frame",
             (unsigned long long)pos, (unsigned long long)f->sid, sp == nb ? "unit boundary" : "Crc position",
             (unsigned long long)sp, (unsigned long long)(end - sp), (unsigned long long)ln);
        f->fixed_left = end - sp;
        ln = sp - i;
        end = sp;
    }
    if (nb != UINT64_MAX && end > nb)
        return damage(f, RC_FRM_003, pos, "length", "the frame at %llu (stream %llu) crosses the unit boundary %llu",
                      (unsigned long long)pos, (unsigned long long)f->sid, (unsigned long long)nb);
    if (end > hard) {
        if (last) {
            f->at = pos;
            return FR_CUT;
        }
        return damage(f, RC_FRM_003, pos, "length", "the frame at %llu (stream %llu) runs into the Unit's Crc",
                      (unsigned long long)pos, (unsigned long long)f->sid);
    }
    f->body = i;
    f->len = ln;
    f->end = end;
    return FR_OK;
}

/* The Crc algorithm whose value over [a, b) is stored at s (4 bytes), or
 * NULL; v: the CRC-32/IEEE over [a, b). */
static const char *crc_match_v(atf_rtc_reader *r, uint64_t a, uint64_t b, const uint8_t *s, uint32_t v)
{
    uint32_t le = atf_load_le32(s), be = ((uint32_t)s[0] << 24) | ((uint32_t)s[1] << 16) | ((uint32_t)s[2] << 8) | s[3];
    if ((r->order != 2 && v == le) || (r->order != 1 && v == be))
        return "crc-32";
    v = rtc_crc_ref_t(&r->crc, 0, r->d + a, (size_t)(b - a));
    if ((r->order != 2 && v == le) || (r->order != 1 && v == be))
        return "rtc-ref";
    return NULL;
}

static const char *crc_match(atf_rtc_reader *r, uint64_t a, uint64_t b, const uint8_t *s)
{
    return crc_match_v(r, a, b, s, atf_crc32_ieee(0, r->d + a, (size_t)(b - a)));
}

static void cut(atf_rtc_reader *r, uint64_t number, uint64_t at)
{
    find(r, RC_REC_001, at, "Crc",
         "crash-truncated: Unit %llu has no final Crc; its complete records are recovered unverified; %llu bytes at the end not read",
         (unsigned long long)number, (unsigned long long)(r->n - at));
    if (r->n > at)
        skip(r, at, r->n - at, "cut");
}

static void head_problems(atf_rtc_reader *r, int phase, uint64_t pos)
{
    if (phase <= 3)
        find(r, RC_UNI_002, pos, "Meta", "the Unit ends before its Index and Meta");
    else if (phase == 4)
        find(r, RC_PLT_002, pos, "Platform", "the Unit has no Platform frame after its Meta");
}

/* Reads the frames of the Unit at c->q up to limit. For the last Unit
 * (crc_pos 0): @return 1 with *crc_off and *name of its final Crc, else 0. */
static int frames(atf_rtc_reader *r, const ucur *c, uint64_t limit, uint64_t crc_pos, uint64_t *crc_off,
                  const char **name)
{
    int last = crc_pos == 0;
    uint64_t pos = c->q + ATF_RTC_MARKER_SIZE;
    int phase = 0;  /* 0 Index expected, 1 in Index, 2 Meta expected, 3 in Meta, 4 Platform, 5 data */
    int have_nonpad = 0;
    uint64_t nonpad_sid = 0, run_start = UINT64_MAX, idx_run_start = 0;
    uint64_t pf = pos;   /* prefetched up to */
    fres f;
    while (pos < limit) {
        /* the bytes 8 KiB on, every cache line: the frame headers the walk
         * reads next are one line in each frame, at no stride the hardware
         * follows; the Crc that brought them into the cache may have been
         * computed on another core */
        uint64_t want = limit - pos > 8192 ? pos + 8192 : limit;
        for (; pf < want; pf += 64)
            __builtin_prefetch(r->d + pf);
        int k = frame(r, c, pos, limit, last, &f);
        if (k == FR_DAMAGE) {
            find(r, f.clause, f.at, f.field, "%s", f.msg);
            uint64_t end = last ? limit : crc_pos + 5;
            skip(r, f.at, end - f.at, "damaged");
            return 0;
        }
        if (k == FR_CUT) {
            cut(r, c->number, f.at);
            return 0;
        }
        uint64_t sid = f.sid;
        if (sid == ATF_RTC_CRC) {
            frame_note(r, pos, sid);
            if (last && f.end == r->n && !f.more) {
                const char *nm = crc_match(r, c->q + ATF_RTC_MARKER_SIZE, pos, r->d + f.body);
                if (!nm && have_nonpad && nonpad_sid == ATF_RTC_SUBINDEX) {
                    /* R-E9: the reference's stop defect */
                    const char *s = crc_match(r, c->q + ATF_RTC_MARKER_SIZE, idx_run_start, r->d + f.body);
                    if (s) {
                        find(r, RC_CRC_003, pos, "Crc",
                             "the final Crc covers [%llu, %llu), before the padding and index frame that precede it "
                             "(the reference writer's stop defect); the Unit is read",
                             (unsigned long long)(c->q + ATF_RTC_MARKER_SIZE), (unsigned long long)idx_run_start);
                        nm = !strcmp(s, "crc-32") ? "crc-32-stop" : "rtc-ref-stop";
                    }
                }
                if (phase < 5)
                    head_problems(r, phase, pos);
                *crc_off = pos;
                *name = nm;
                return 1;
            }
            if (f.more)
                find(r, RC_CRC_004, pos, "Crc", "a Crc frame at %llu with more set: no Crc (R-E24)",
                     (unsigned long long)pos);
            else
                find(r, RC_CRC_004, pos, "Crc",
                     "a Crc frame at %llu, neither at the end of Unit %llu nor the last frame of the file",
                     (unsigned long long)pos, (unsigned long long)c->number);
            run_start = UINT64_MAX;
            pos = f.end;
            continue;
        }
        if (phase == 0 && sid != ATF_RTC_INDEX) {
            snprintf(f.msg, sizeof f.msg, "Unit %llu does not start with an Index frame after its Marker (stream %llu)",
                     (unsigned long long)c->number, (unsigned long long)sid);
            find(r, RC_UNI_002, pos, "Index", "%s", f.msg);
            skip(r, pos, (last ? limit : crc_pos + 5) - pos, "damaged");
            return 0;
        }
        if (phase == 2 && sid != ATF_RTC_META && sid != ATF_RTC_PADDING && sid != ATF_RTC_NOP &&
            sid != ATF_RTC_SUBINDEX) {
            find(r, RC_UNI_002, pos, "Meta", "the Index of Unit %llu is not followed by a Meta frame (stream %llu)",
                 (unsigned long long)c->number, (unsigned long long)sid);
            skip(r, pos, (last ? limit : crc_pos + 5) - pos, "damaged");
            return 0;
        }
        if (phase == 4 && sid != ATF_RTC_PADDING && sid != ATF_RTC_NOP && sid != ATF_RTC_SUBINDEX) {
            if (sid != ATF_RTC_PLATFORM)
                find(r, RC_PLT_002, pos, "Platform", "Unit %llu has no Platform frame right after its Meta",
                     (unsigned long long)c->number);
            phase = 5;
        }
        if (sid == ATF_RTC_INDEX && phase == 0)
            phase = 1;
        if (sid == ATF_RTC_META && phase == 2)
            phase = 3;
        int padlike = sid == ATF_RTC_PADDING || sid == ATF_RTC_NOP || sid == ATF_RTC_SUBINDEX;
        if (padlike) {
            if (run_start == UINT64_MAX)
                run_start = pos;
        } else {
            run_start = UINT64_MAX;
        }
        if (sid != ATF_RTC_PADDING && sid != ATF_RTC_NOP) {
            have_nonpad = 1;
            nonpad_sid = sid;
            if (sid == ATF_RTC_SUBINDEX)
                idx_run_start = run_start;
        }
        frame_note(r, pos, sid);
        piece(r, sid, pos, f.more, r->d + f.body, (size_t)f.len);
        if (sid >= ATF_RTC_FIRST_USER_ID)
            r->user_seen = 1;
        rchain *oc = key_find(&r->open, sid);
        if (oc)
            oc->fixed_left = f.fixed_left;
        if (phase == 1 && sid == ATF_RTC_INDEX && !f.more)
            phase = 2;
        else if (phase == 3 && sid == ATF_RTC_META && !f.more)
            phase = 4;
        pos = f.end;
    }
    if (last) {
        cut(r, c->number, r->n);
        return 0;
    }
    if (phase < 5)
        head_problems(r, phase, pos);
    return 0;
}

static void unit(atf_rtc_reader *r, uint64_t q)
{
    const uint8_t *d = r->d;
    uint64_t n = r->n, U = r->U;
    ucur c;
    c.q = q;
    c.number = (uint64_t)(((int64_t)q - r->origin) / (int64_t)U);
    c.first_unit = q + ATF_RTC_MARKER_SIZE;
    c.units = U / r->u;
    c.crc_limit = q + U - 5;
    drop_deferred(r);
    r->meta_seen = 0;
    /* Unit 0 is the stream's first: no frame of it is the rest of one cut
     * in a Unit before (found by fuzz_rtc_frames: a whole uint32 frame at
     * the start of Unit 0 was read as the 3-byte rest of one). */
    r->fresh = c.number != 0 && !(r->has_cont && r->cont_to == q);
    r->user_seen = 0;
    r->has_cont = 0;
    size_t skips_before = r->skips.n;
    if (U <= n - q) {
        uint64_t crc_pos = q + U - 5;
        if (d[crc_pos] != ATF_RTC_CRC << 1) {
            find(r, RC_CRC_002, crc_pos, "Crc",
                 "Unit %llu has no Crc frame in its last 5 bytes (byte %02x): the Unit cannot be checked and is skipped",
                 (unsigned long long)c.number, d[crc_pos]);
            skip(r, q, U, "no-crc");
            return;
        }
        const char *nm = crc_match_v(r, q + ATF_RTC_MARKER_SIZE, crc_pos, d + crc_pos + 1, ahead_get(&r->crcs, d, q, U));
        if (!nm) {
            find(r, RC_CRC_001, crc_pos, "Crc",
                 "the Crc of Unit %llu matches neither CRC-32/IEEE nor the reference variant over [%llu, %llu): the Unit is skipped",
                 (unsigned long long)c.number, (unsigned long long)(q + ATF_RTC_MARKER_SIZE), (unsigned long long)crc_pos);
            skip(r, q, U, "crc-mismatch");
            return;
        }
        atf_rtc_unit_info *ui = vec_push(&r->units, &r->oom);
        if (ui) {
            ui->number = c.number;
            ui->offset = q;
            ui->bytes = U;
            ui->crc = nm;
        }
        uint64_t co;
        const char *cn;
        frames(r, &c, crc_pos, crc_pos, &co, &cn);
        frame_note(r, crc_pos, ATF_RTC_CRC);
        flush_deferred(r);
        if (r->skips.n == skips_before) {
            r->has_cont = 1;
            r->cont_to = q + U;
        }
        return;
    }
    /* The last Unit, shorter than U. */
    if ((int64_t)q == r->bad_last) {
        find(r, RC_CRC_001, r->bad_last_crc, "Crc",
             "the final Crc of Unit %llu matches neither CRC-32/IEEE nor the reference variant: the Unit is skipped",
             (unsigned long long)c.number);
        skip(r, q, n - q, "crc-mismatch");
        return;
    }
    size_t ui = r->units.n;
    atf_rtc_unit_info *u = vec_push(&r->units, &r->oom);
    if (u) {
        u->number = c.number;
        u->offset = q;
        u->bytes = n - q;
        u->crc = NULL;
    }
    uint64_t co = 0;
    const char *cn = NULL;
    int fin = frames(r, &c, n, 0, &co, &cn);
    /* The Index is checked against this Unit's Meta: not when the file was
     * cut before the Meta was read whole (RTC-IDX-002, SPEC-RTC R-E21). */
    if (r->meta_seen)
        flush_deferred(r);
    else
        drop_deferred(r);
    if (!fin)
        return;
    if (!cn) {
        r->bad_last = (int64_t)q;   /* read again without this Unit */
        r->bad_last_crc = co;
        return;
    }
    if (ui < r->units.n)
        VEC_AT(r->units, atf_rtc_unit_info, ui).crc = cn;
}

/* ---- The file ------------------------------------------------------------------------------- */

static int marker_intact(const atf_rtc_reader *r, uint64_t q)
{
    uint64_t n = r->n, m = n - q < ATF_RTC_MARKER_SIZE ? n - q : ATF_RTC_MARKER_SIZE;
    if (!rtc_is_marker_prefix(r->d + q, (size_t)m))
        return 0;
    return !(q + ATF_RTC_MARKER_SIZE < n && r->d[q + ATF_RTC_MARKER_SIZE] == ATF_RTC_MARKER_BYTE);
}

static void finish(atf_rtc_reader *r)
{
    if (!r->open.n)
        return;
    int full_end = 0;
    if (r->units.n) {
        const atf_rtc_unit_info *u = &VEC_AT(r->units, atf_rtc_unit_info, r->units.n - 1);
        full_end = u->bytes == r->U && u->offset + r->U == r->n;
    }
    const rchain *c = &VEC_AT(r->open, rchain, 0);
    if (r->state == ATF_RTC_COMPLETE && full_end)
        find(r, RC_REC_001, r->n, "more",
             "crash-truncated: the file ends at the end of a Unit with the record of stream %llu still continued: cut there",
             (unsigned long long)c->sid);
    else if (r->state == ATF_RTC_COMPLETE)
        find(r, RC_FRM_006, VEC_AT(c->frames, uint64_t, 0), "more",
             "the file ends with the record of stream %llu still continued (more)", (unsigned long long)c->sid);
    else
        find(r, NO_VALUE, r->n, NULL, "incomplete records at the end not recovered");
}

/* The Markers found from [a, b) of the file (a Marker starting there, read
 * to its end past b): atf_rtc_find_marker looks at the bytes from where it
 * starts only, so the parts' lists joined in order are the one list. */
typedef struct mpart {
    const uint8_t *d;
    uint64_t n, a, b;
    vec marks;                    /* uint64_t */
    int oom;
} mpart;

static void mpart_run(void *arg)
{
    mpart *m = arg;
    for (size_t p = atf_rtc_find_marker(m->d, (size_t)m->n, (size_t)m->a); p < m->b;
         p = atf_rtc_find_marker(m->d, (size_t)m->n, p + 1)) {
        uint64_t *e = vec_push(&m->marks, &m->oom);
        if (!e)
            break;
        *e = p;
    }
}

/* Every Marker of the file, in order: in parts side by side (thread_count). */
static void find_marks(atf_rtc_reader *r, vec *marks)
{
    unsigned np = thread_count(r->n, r->n / ATF_RTC_MARKER_SIZE);
    mpart one, *parts = np > 1 ? calloc(np, sizeof *parts) : NULL;
    if (!parts) {
        np = 1;
        parts = &one;
        memset(&one, 0, sizeof one);
    }
    for (unsigned i = 0; i < np; i++) {
        mpart *m = &parts[i];
        m->d = r->d;
        m->n = r->n;
        m->a = r->n / np * i;
        m->b = i + 1 < np ? r->n / np * (i + 1) : r->n;
        m->marks.elem = sizeof(uint64_t);
    }
    (void)atf_parts_run(parts, sizeof *parts, np, mpart_run);
    *marks = parts[0].marks;
    r->oom |= parts[0].oom;
    for (unsigned i = 1; i < np; i++) {
        mpart *m = &parts[i];
        r->oom |= m->oom;
        for (size_t k = 0; k < m->marks.n && !r->oom; k++) {
            uint64_t *e = vec_push(marks, &r->oom);
            if (e)
                *e = VEC_AT(m->marks, uint64_t, k);
        }
        free(m->marks.p);
    }
    if (parts != &one)
        free(parts);
}

/* The records completed since the last call, to atf_rtc_reader_open_with's callback. */
static void report(atf_rtc_reader *r)
{
    if (r->progress && !r->oom && r->recs.n > r->reported) {
        if (r->progress(r->progress_user, r, r->reported, r->recs.n, 0) == ATF_RTC_KEEP_RECORDS)
            r->progress_only = 0;
        r->reported = r->recs.n;
    }
    if (r->progress_only) {   /* nothing refers to the records, their frames or joined payloads but the records */
        r->handed += r->recs.n;
        r->recs.n = r->frames_pool.n = r->payload_pool.n = 0;
        r->reported = 0;
    }
}

static void read_file(atf_rtc_reader *r)
{
    const uint8_t *d = r->d;
    uint64_t n = r->n;
    if (n == 0)
        return;
    vec marks;
    find_marks(r, &marks);
    if (!marks.n) {
        if (rtc_is_marker_prefix(d, n < ATF_RTC_MARKER_SIZE ? (size_t)n : ATF_RTC_MARKER_SIZE) &&
            n < ATF_RTC_MARKER_SIZE) {
            find(r, RC_REC_001, 0, "Marker", "crash-truncated: the file ends inside its first Marker (%llu bytes): 0 records recovered",
                 (unsigned long long)n);
            skip(r, 0, n, "cut");
        } else {
            find(r, RC_MRK_001, 0, "Marker",
                 "no Marker (04 and 1024 x B9) in %llu bytes: not an RTC file, or nothing of it can be read",
                 (unsigned long long)n);
            skip(r, 0, n, "no-marker");
        }
        free(marks.p);
        return;
    }
    const uint64_t *mk = marks.p;
    uint64_t U = 0, u = 0, count = 0, p0 = 0;
    int geo = 0;
    for (size_t i = 0; i < marks.n && !geo; i++)
        if (probe(r, mk[i], &U, &u, &count)) {
            geo = 1;
            p0 = mk[i];
        }
    if (!geo && index_cut(r, mk[marks.n - 1])) {
        if (mk[0] > 0) {
            find(r, RC_REC_002, 0, "Marker", "cut at the start: %llu bytes before the first Marker skipped",
                 (unsigned long long)mk[0]);
            skip(r, 0, mk[0], "before-first-marker");
        }
        find(r, RC_REC_001, mk[marks.n - 1], "Index", "crash-truncated: the file ends inside the first Index: 0 records recovered");
        skip(r, mk[0], n - mk[0], "cut");
        free(marks.p);
        return;
    }
    if (!geo) {
        find(r, RC_UNI_002, mk[0] + ATF_RTC_MARKER_SIZE, "Index",
             "no Marker is followed by a readable Index: the Unit size cannot be learnt");
        skip(r, 0, n, "no-index");
        free(marks.p);
        return;
    }
    r->geo = 1;
    r->U = U;
    r->u = u;
    r->origin = (int64_t)p0 - (int64_t)(count * U);
    uint64_t fakes = 0, first_fake = 0, start = UINT64_MAX;
    for (size_t i = 0; i < marks.n; i++) {
        if ((uint64_t)((int64_t)mk[i] - r->origin) % U == 0) {
            if (start == UINT64_MAX)
                start = mk[i];
        } else if (fakes++ == 0) {
            first_fake = mk[i];
        }
    }
    if (fakes)
        find(r, RC_MRK_003, first_fake, "Marker",
             "Marker bytes at %llu, not a multiple of the Unit size %llu from the origin %lld: a fake Marker inside a frame (%llu in all)",
             (unsigned long long)first_fake, (unsigned long long)U, (long long)r->origin, (unsigned long long)fakes);
    if (start > 0 || ((int64_t)start - r->origin) / (int64_t)U > 0) {
        find(r, RC_REC_002, 0, "Marker", "cut at the start: the first Marker is at %llu and starts Unit %lld; %llu bytes before it skipped",
             (unsigned long long)start, (long long)(((int64_t)start - r->origin) / (int64_t)U), (unsigned long long)start);
        skip(r, 0, start, "before-first-marker");
        r->read_from = (int64_t)start;
    }
    uint64_t q = start;
    size_t mi = 0;
    ahead_start(&r->crcs, d, n, start, U);
    while (q < n && !r->oom) {
        if (!marker_intact(r, q)) {
            while (mi < marks.n && mk[mi] <= q)
                mi++;
            uint64_t end = n;
            for (size_t j = mi; j < marks.n; j++)
                if ((uint64_t)((int64_t)mk[j] - r->origin) % U == 0) {
                    end = mk[j];
                    break;
                }
            find(r, RC_MRK_002, q, "Marker", "no intact Marker at the start of Unit %lld (offset %llu): the Unit is skipped",
                 (long long)(((int64_t)q - r->origin) / (int64_t)U), (unsigned long long)q);
            skip(r, q, end - q, "bad-marker");
            q = end;
            continue;
        }
        if (ATF_RTC_MARKER_SIZE > n - q) {
            find(r, RC_REC_001, q, "Marker", "crash-truncated: the file ends inside the Marker of Unit %lld",
                 (long long)(((int64_t)q - r->origin) / (int64_t)U));
            skip(r, q, n - q, "cut");
            break;
        }
        unit(r, q);
        report(r);
        if (U > n - q)
            break;
        q += U;
    }
    ahead_stop(&r->crcs);
    free(marks.p);
    finish(r);
    report(r);
}

/* ---- Reset, open, getters --------------------------------------------------------------- */

static void results_free(atf_rtc_reader *r)
{
    free(r->recs.p);
    free(r->units.p);
    free(r->skips.p);
    for (size_t i = 0; i < r->findings.n; i++)
        free(VEC_AT(r->findings, rfinding, i).message);
    free(r->findings.p);
    for (size_t i = 0; i < r->streamdefs.n; i++)
        json_decref(VEC_AT(r->streamdefs, rstreamdef, i).obj);
    free(r->streamdefs.p);
    free(r->frames_pool.p);
    free(r->payload_pool.p);
    for (size_t i = 0; i < r->fmts.n; i++)
        free(VEC_AT(r->fmts, char *, i));
    free(r->fmts.p);
    table_free(&r->table);
    free(r->refs);
    for (size_t i = 0; i < r->ever.n; i++)
        json_decref(VEC_AT(r->ever, rever, i).obj);
    free(r->ever.p);
    for (size_t i = 0; i < r->open.n; i++)
        chain_free(&VEC_AT(r->open, rchain, i));
    free(r->open.p);
    free(r->clocks.p);
    free(r->frames_at.p);
    free(r->unchecked.p);
    for (size_t i = 0; i < r->deferred.n; i++)
        free(VEC_AT(r->deferred, rdefer, i).payload.p);
    free(r->deferred.p);
    free(r->meta_last);
}

static void state_init(atf_rtc_reader *r)
{
    const uint8_t *d = r->d;
    uint64_t n = r->n;
    atf_blob b = r->blob;
    int hb = r->have_blob;
    int64_t bl = r->bad_last;
    uint64_t blc = r->bad_last_crc;
    rtc_crc_tab t = r->crc;
    atf_rtc_progress pf = r->progress;
    void *pu = r->progress_user;
    int po = r->progress_only;
    memset(r, 0, sizeof *r);
    r->progress = pf;
    r->progress_user = pu;
    r->progress_only = po;
    r->d = d;
    r->n = n;
    r->blob = b;
    r->have_blob = hb;
    r->bad_last = bl;
    r->bad_last_crc = blc;
    r->crc = t;
    r->recs.elem = sizeof(rrec);
    r->units.elem = sizeof(atf_rtc_unit_info);
    r->skips.elem = sizeof(atf_rtc_skip);
    r->findings.elem = sizeof(rfinding);
    r->streamdefs.elem = sizeof(rstreamdef);
    r->frames_pool.elem = sizeof(uint64_t);
    r->fmts.elem = sizeof(char *);
    r->table.elem = sizeof(rstream);
    r->ever.elem = sizeof(rever);
    r->open.elem = sizeof(rchain);
    r->clocks.elem = sizeof(rclock);
    r->frames_at.elem = sizeof(rframe);
    r->unchecked.elem = sizeof(rrange);
    r->deferred.elem = sizeof(rdefer);
}

static atf_status run(atf_rtc_reader *r, atf_error *err)
{
    r->bad_last = -1;
    state_init(r);
    read_file(r);
    if (r->bad_last >= 0 && !r->oom) {
        /* The last Unit's final Crc did not match: read again, skipping it whole (SPEC-RTC 8.2). */
        if (r->progress)
            (void)r->progress(r->progress_user, r, 0, 0, 1);
        results_free(r);
        state_init(r);
        read_file(r);
    }
    if (r->oom)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    return ATF_OK;
}

atf_status atf_rtc_reader_open_memory(atf_rtc_reader **out, const void *data, size_t size, atf_error *err)
{
    return atf_rtc_reader_open_memory_with(out, data, size, NULL, NULL, 0, err);
}

atf_status atf_rtc_reader_open_memory_with(atf_rtc_reader **out, const void *data, size_t size,
                                           atf_rtc_progress progress, void *user, unsigned flags, atf_error *err)
{
    atf_error_clear(err);
    if (!out || (!data && size))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_rtc_reader *r = calloc(1, sizeof *r);
    if (!r)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    rtc_crc_tables(&r->crc);
    r->d = data ? data : (const uint8_t *)"";
    r->n = size;
    r->progress = progress;
    r->progress_user = user;
    r->progress_only = progress && (flags & ATF_RTC_PROGRESS_ONLY);
    atf_status st = run(r, err);
    if (st != ATF_OK) {
        atf_rtc_reader_close(r);
        return st;
    }
    *out = r;
    return ATF_OK;
}

atf_status atf_rtc_reader_open(atf_rtc_reader **out, const char *path, atf_error *err)
{
    return atf_rtc_reader_open_with(out, path, NULL, NULL, 0, err);
}

atf_status atf_rtc_reader_open_with(atf_rtc_reader **out, const char *path, atf_rtc_progress progress, void *user,
                                    unsigned flags, atf_error *err)
{
    atf_error_clear(err);
    if (!out || !path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_rtc_reader *r = calloc(1, sizeof *r);
    if (!r)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    atf_status st = atf_blob_open(&r->blob, path, 0, err);
    if (st != ATF_OK) {
        free(r);
        atf_error_set_file(err, path);
        return st;
    }
    r->have_blob = 1;
    rtc_crc_tables(&r->crc);
    r->d = r->blob.data ? r->blob.data : (const uint8_t *)"";
    r->n = r->blob.size;
    r->progress = progress;
    r->progress_user = user;
    r->progress_only = progress && (flags & ATF_RTC_PROGRESS_ONLY);
    st = run(r, err);
    if (st != ATF_OK) {
        atf_rtc_reader_close(r);
        return st;
    }
    *out = r;
    return ATF_OK;
}

const void *atf_rtc_reader_bytes(const atf_rtc_reader *r, uint64_t *size)
{
    if (size)
        *size = r->n;
    return r->d;
}

void atf_rtc_reader_close(atf_rtc_reader *r)
{
    if (!r)
        return;
    results_free(r);
    if (r->have_blob)
        atf_blob_close(&r->blob);
    free(r);
}

void atf_rtc_reader_record(const atf_rtc_reader *r, size_t i, atf_rtc_record *out)
{
    const rrec *x = &VEC_AT(r->recs, rrec, i);
    memset(out, 0, sizeof *out);
    out->stream = x->sid;
    out->offset = x->off;
    out->frames = (const uint64_t *)r->frames_pool.p + x->frames_at;
    out->frame_count = x->frame_count;
    /* (an empty pool has no buffer: NULL + 0 is undefined) */
    out->payload = x->in_pool ? (r->payload_pool.p ? r->payload_pool.p + x->payload_at : (const uint8_t *)"")
                              : r->d + x->payload_at;
    out->size = x->size;
    out->has_time = x->has_time;
    out->time = x->time;
    out->format = x->format;
    out->has_gain = x->has_gain;
    out->gain = x->gain;
    out->has_offset = x->has_offset;
    out->value_offset = x->offset;
    out->big_endian = x->big;
}

atf_status atf_rtc_reader_next_record(atf_rtc_reader *r, atf_rtc_record *rec)
{
    if (!r || !rec || r->next_rec >= r->recs.n)
        return ATF_E_NOT_FOUND;
    atf_rtc_reader_record(r, r->next_rec++, rec);
    return ATF_OK;
}

void atf_rtc_reader_summary(const atf_rtc_reader *r, atf_rtc_summary *s)
{
    memset(s, 0, sizeof *s);
    s->state = r->state;
    s->file_size = r->n;
    s->has_geometry = r->geo;
    s->unit_size = r->U;
    s->subunit_size = r->u;
    s->origin = r->origin;
    s->byte_order = r->first_order;
    s->records = r->handed + r->recs.n;
    s->units = r->units.n;
    s->streams = r->streamdefs.n;
    s->skipped_ranges = r->skips.n;
    for (size_t i = 0; i < r->skips.n; i++)
        s->skipped_bytes += VEC_AT(r->skips, atf_rtc_skip, i).bytes;
    s->first_damage = r->first_damage;
}

void atf_rtc_reader_unit(const atf_rtc_reader *r, size_t i, atf_rtc_unit_info *u)
{
    *u = VEC_AT(r->units, atf_rtc_unit_info, i);
}

void atf_rtc_reader_skip(const atf_rtc_reader *r, size_t i, atf_rtc_skip *s)
{
    *s = VEC_AT(r->skips, atf_rtc_skip, i);
}

void atf_rtc_reader_stream(const atf_rtc_reader *r, size_t i, uint64_t *id, uint64_t *offset, const void **json_object)
{
    const rstreamdef *sd = &VEC_AT(r->streamdefs, rstreamdef, i);
    if (id)
        *id = sd->id;
    if (offset)
        *offset = sd->off;
    if (json_object)
        *json_object = sd->obj;
}

size_t atf_rtc_reader_finding_count(const atf_rtc_reader *r)
{
    return r->findings.n;
}

void atf_rtc_reader_finding(const atf_rtc_reader *r, size_t i, atf_finding *f)
{
    const rfinding *x = &VEC_AT(r->findings, rfinding, i);
    f->clause = rtc_clause_id(x->clause);
    f->severity = rtc_clause_is_error(x->clause) ? ATF_SEV_ERROR : ATF_SEV_WARNING;
    f->file = NULL;
    f->offset = x->offset;
    f->field = x->field;
    f->message = x->message ? x->message : "";
}

uint64_t atf_rtc_reader_clause_count(const atf_rtc_reader *r, const char *clause)
{
    for (int c = 0; c < RC_COUNT_; c++)
        if (clause && !strcmp(rtc_clause_id(c), clause))
            return r->clause_count[c];
    return 0;
}
