/* A thread's rings (rec_ring.c), both halves: the SPSC index ring (a chain
 * of rings that follows the thread's rate) and the detail ring, written by
 * the owning thread (producer half) and drained by the thread's writer
 * (consumer half). rec_thread holds both sides' words, each side on its
 * own cache lines. */
#ifndef ATF_REC_RING_H
#define ATF_REC_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__) && defined(__SSE2__)
#  include <emmintrin.h>
#endif

#include <atf/event_encode.h>
#include <atf/format.h>

#include "rec_base.h"
#include "rec_budget.h"

/* Detail ring / pre-roll record header (8-byte aligned records). */
#define REC_DREC_HEAD 32u
#define REC_DREC_WRAP 0xFFFFFFFFu     /* payload_size of a wrap marker */
typedef struct rec_drec {
    uint32_t rec_size;           /* header + payload, rounded up to 8 */
    uint32_t payload_size;       /* or REC_DREC_WRAP */
    uint16_t type, flags;
    uint32_t reserved;
    uint64_t index_seq;
    uint64_t ts;                 /* raw in the ring, nanoseconds in the pre-roll queue */
} rec_drec;

struct rec_writer;
struct rec_wthread;
struct atf_recorder;


/* One index ring of a thread. A thread starts with a small ring and, when
 * it fills one faster than the writer drains it, switches to a bigger one
 * (budget permitting); the old ring holds events [start, end) and is freed
 * by the writer once it has copied them. Rings form a chain the writer
 * follows: the producer sets next, then end (release), before publishing
 * any event of the new ring. */
typedef struct rec_ring {
    uint8_t *slots;
    uint64_t mask;               /* events - 1 */
    uint64_t start;              /* sequence number of its first event */
    _Atomic uint64_t end;        /* UINT64_MAX while the producer writes into it */
    struct rec_ring *next;
    size_t bytes;
} rec_ring;

typedef struct rec_thread {
    /* The owner's current ring, read on every event (written only by the
     * owner, in its slow path; the writer follows the ring chain instead). */
    uint8_t *slots;
    uint64_t mask;               /* current ring's events - 1 */
    uint32_t batch;              /* events between publishes (rec_batch_for) */
    uint32_t os_tid;
    uint32_t batch_fixed;        /* the publish_batch option (0: batch follows the ring) */
    uint8_t counter_clock, layout, drop_mode, has_detail;
    uint64_t ring_start;         /* current ring's first sequence number */
    rec_ring *ring;              /* current ring (owner) */

    /* Producer line(s): written only by the owning thread. */
    REC_ALIGNED _Atomic uint64_t head;  /* events written; the next event's index seq */
    uint64_t limit;              /* head may reach this without looking at tail */
    uint64_t pub_next;           /* publish when head reaches this */
    uint32_t depth;
    uint64_t last_ts;            /* raw timestamp of the last event */
    uint64_t last_detail_seq;    /* index seq of the last detail event, UINT64_MAX if none */
    uint64_t dhead;              /* detail bytes written */
    uint64_t dlimit_tail;        /* cached dtail */

    /* Producer counters (owner writes relaxed, others read). */
    REC_ALIGNED _Atomic uint64_t dropped;
    _Atomic uint64_t bp_waits, bp_wait_ns;
    _Atomic uint64_t detail_recorded, detail_dropped;

    REC_ALIGNED _Atomic uint64_t pub_head;  /* published events (release) */
    REC_ALIGNED _Atomic uint64_t dpub;      /* published detail bytes (release) */

    /* Consumer line: written by the writer. */
    REC_ALIGNED _Atomic uint64_t tail;      /* events consumed (release) */
    _Atomic uint64_t dtail;                 /* detail bytes consumed (release) */
    _Atomic uint32_t space_seq;             /* futex word producers sleep on */

    /* Rarely written control words. */
    REC_ALIGNED _Atomic uint32_t flush_req; /* writer asks the owner to publish (and to
                                               look at shrink_req) */
    _Atomic uint32_t shrink_req;            /* writer: the ring is bigger than the rate needs */
    _Atomic uint32_t resizing;              /* owner is switching rings (see finish_thread) */
    _Atomic uint32_t grown;                 /* counted in budget->grown (owner; writer at finish) */
    _Atomic uint32_t waiting;               /* owner is (about to be) asleep on space_seq */
    _Atomic uint64_t wake_tail;             /* ... until tail reaches this (set before waiting) */
    _Atomic uint32_t exited;                /* owner left (thread exit or detach) */
    _Atomic uint32_t closed;                /* recorder side is done with this ring */
    _Atomic int refs;

    /* Immutable after registration. */
    uint64_t id;                 /* K of thread_K */
    uint64_t rec_id;
    uint8_t *dbuf;
    uint64_t dsize;              /* detail ring bytes (power of two), 0 without detail */
    struct rec_writer *writer;
    struct atf_recorder *r;
    rec_budget *budget;
    uint64_t ring_min;           /* events of the smallest ring (the recorder's) */
    uint64_t ring_max;           /* events of the biggest ring: ring_events */

    _Atomic uint64_t mem_bytes;  /* taken from the budget for this thread now */
    rec_ring *wring;             /* oldest ring not yet freed (the writer's) */
    int accounted;               /* mem_bytes still counts in the budget */

    struct rec_thread *tnext;    /* owner's TLS list */
    struct rec_thread *inext;    /* the writer's incoming stack */
    struct rec_thread *gprev, *gnext; /* the recorder's live list (reg_mu) */
    struct rec_wthread *w;       /* writer-private state */
} rec_thread;

/* Bookkeeping taken from the budget per registered thread (the thread and
 * writer structures, its file names). */
#define REC_THREAD_OVERHEAD 2048u

/* ---- Producer half (the owning thread) ------------------------------------ */

/* Maps bytes of anonymous memory (pre-faulted if populate); NULL on failure. */
void *rec_ring_map(size_t bytes, int populate);
/* A ring of `events` slots starting at sequence number start, its bytes
 * taken from the budget (kind: REC_TAKE_*); NULL if no room or no memory. */
rec_ring *rec_ring_new(rec_budget *b, uint64_t events, uint64_t start, int kind);
void rec_ring_free(rec_ring *g);
/* The ring looked full at the cached limit: is there room at head h now
 * (the tail moved)? Updates the cached limit. */
int rec_ring_index_space(rec_thread *t, uint64_t h);
/* Has the detail ring `need` free bytes (updates the cached tail)? */
int rec_ring_detail_space(rec_thread *t, uint64_t need);
/* The ring is full: switches to a bigger one if it may grow (never past
 * ring_events, only with growth budget left, and within the thread's share
 * of it: see rec_budget_share). @return 1 if it grew. */
int rec_ring_grow(rec_thread *t);
/* Publishes events up to h (release store of pub_head); also acts on the
 * writer's requests (flush_req, shrink_req). Out of line: the hot path
 * calls it once per publish_batch events. */
void rec_ring_publish(rec_thread *t, uint64_t h);

/* One event into its ring slot, in the file's byte order. On x86-64 with
 * non-temporal stores (movnti): the slot's line goes to memory, not into
 * this core's cache, and the writer reads it from there. With ordinary
 * stores every line the writer copies is one this core holds modified: a
 * transfer from cache to cache for each 64 bytes, which on this project's
 * 2-vCPU VM ran at 2.2 GB/s whenever the host placed the two vCPUs far
 * apart (a 500 ns round trip), against 15 GB/s through memory (measured
 * side by side, 29 Nov 2026; recorder/README.md). rec_ring_publish
 * fences (sfence) before it publishes, so the writer sees the stores. */
static inline void rec_slot_store(uint8_t *slot, const atf_index_event *e, atf_layout layout)
{
#if defined(__x86_64__) && defined(__SSE2__)
    uint64_t w[4];
    atf_index_event_words(e, layout, w);
    for (int k = 0; k < 4; k++)
        _mm_stream_si64((long long *)(void *)(slot + 8 * k), (long long)w[k]);
#else
    atf_index_event_store(slot, e, layout);
#endif
}

/* Events between two publishes in a ring of @events slots: @fixed (the
 * publish_batch option) when set; otherwise a quarter of the ring, between
 * 32 and 256 (@events 0: the smallest). Each publish is a release store
 * the writer reads from another core and, with non-temporal slots, an
 * sfence that waits for the slots to reach memory: every 32 events, those
 * cost atf record on Lua about 0.2 s of 2.1 (alternated runs, 29 Nov 2026);
 * a small ring still publishes at each quarter, so that the writer can
 * drain it while the thread fills the rest. */
#define REC_BATCH_MIN 32u
#define REC_BATCH_MAX 256u
static inline uint32_t rec_batch_for(uint32_t fixed, uint64_t events)
{
    if (fixed)
        return fixed;
    uint64_t b = events / 4;
    return b < REC_BATCH_MIN ? REC_BATCH_MIN : b > REC_BATCH_MAX ? REC_BATCH_MAX : (uint32_t)b;
}

/* Stores one index event at head h (rec_slot_store: the codec's four
 * 8-byte words, non-temporal on x86-64) and advances the head;
 * publishes every batch events and when the writer asks. The hot path. */
static inline void rec_ring_put(rec_thread *t, uint64_t h, uint64_t ts, uint32_t kind, uint64_t fid,
                                uint32_t depth)
{
    atf_index_event e = { ts, fid, ATF_NO_DETAIL, kind, t->os_tid, depth, 0 };
    rec_slot_store(t->slots + ((h & t->mask) << 5), &e, (atf_layout)t->layout);
    t->last_ts = ts;
    atomic_store_explicit(&t->head, h + 1, RLX);
    if (REC_UNLIKELY(h + 1 >= t->pub_next) || REC_UNLIKELY(atomic_load_explicit(&t->flush_req, RLX)))
        rec_ring_publish(t, h + 1);
}

/* ---- Consumer half (the thread's writer) --------------------------------- */

/* The next run of published events from sequence number `consumed` (below
 * ih) in the ring chain from *cur: at most max events, contiguous in one
 * ring. Rings the producer left behind and the writer has copied are freed
 * on the way (their bytes back to the budget) and *cur moves on.
 * @return the first event's slot; *n its events. */
const uint8_t *rec_ring_run(rec_thread *t, rec_ring **cur, uint64_t consumed, uint64_t ih, uint64_t max,
                            uint64_t *n);
/* Gives the events before `consumed` back to the producer (release store
 * of tail) and wakes it if it sleeps for that much space. */
void rec_ring_release(rec_thread *t, uint64_t consumed);
/* The same for the detail ring's bytes before dconsumed. */
void rec_ring_release_detail(rec_thread *t, uint64_t dconsumed);
/* The newest ring of the chain from g the writer knows of (the producer
 * links a ring before publishing into it). */
rec_ring *rec_ring_newest(rec_ring *g);
/* Asks the owner for a ring a quarter the size (it acts at its next
 * publish, so an idle thread keeps its ring). */
void rec_ring_ask_shrink(rec_thread *t);
/* The recorder is done with the thread's rings (from *from on): marks them
 * closed (a producer waiting for space gives up), waits for a ring switch
 * in progress, and gives their pages back if the owner is still alive
 * (the mappings go when the last reference goes). */
void rec_ring_close(rec_thread *t, rec_ring *from);
/* Drops one reference (owner or writer); the last one frees the rings. */
void rec_thread_release(rec_thread *t);

#endif /* ATF_REC_RING_H */
