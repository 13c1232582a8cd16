/* The producer side: what a recording thread runs.
 *
 * Hot path (atf_recorder_call and friends): one thread-local cache check,
 * a ring-space check against a cached limit, one clock read, four 8-byte
 * stores of the event already encoded in the file's layout, a relaxed store
 * of the head, and every publish_batch events a release store of pub_head.
 * Everything else (registration, a full ring, a stopped recorder) is on
 * out-of-line slow paths. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#  include <immintrin.h>
#  define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#  define cpu_relax() __asm__ __volatile__("yield")
#else
#  define cpu_relax() ((void)0)
#endif

#include "rec_internal.h"
#include "rec_producer.h"
#include "rec_ring.h"
#include "rec_writer.h"

__thread rec_tls rec_self __attribute__((tls_model("initial-exec")));
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* Single-writer counters: a relaxed load and store, no read-modify-write. */
static inline void bump(_Atomic uint64_t *c, uint64_t n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, RLX) + n, RLX);
}

static inline uint64_t read_ts(const rec_thread *t)
{
    return t->counter_clock ? rec_counter_read() : rec_clock_system_ns();
}

/* ---- Waiting for space ------------------------------------------------------ */

/* Backpressure: publish what we have, wake the writer and wait for space.
 * A short spin takes any space; once asleep, the producer waits until half
 * of its index ring is free (the writer wakes it only then, see
 * rec_thread.wake_tail): woken for every block the writer frees, it would
 * preempt the writer and sleep again a block later, two context switches
 * per block. @return 1 when there is space, 0 when the recorder closed
 * this ring. */
static int wait_space(rec_thread *t, int detail, uint64_t need)
{
    rec_ring_publish(t, atomic_load_explicit(&t->head, RLX));
    bump(&t->bp_waits, 1);
    uint64_t t0 = rec_clock_system_ns();
    unsigned spins = 0;
    uint64_t want_tail = 0;   /* index: the writer's tail to sleep for */
    int ok = 1;
    for (;;) {
        if (detail ? rec_ring_detail_space(t, need)
                   : atomic_load_explicit(&t->tail, ACQ) >= want_tail && rec_ring_index_space(t, need))
            break;
        if (atomic_load_explicit(&t->closed, ACQ)) {
            ok = 0;
            break;
        }
        if (spins < 64) {
            spins++;
            cpu_relax();
            continue;
        }
        /* The budget may have room for a bigger ring by now. */
        if (!detail && rec_ring_grow(t))
            break;
        /* With more busy threads (rings that grew) than CPUs, sleep until
         * half the ring is free; with fewer, wake at any space: the producer
         * and the writer then run side by side, and a half-ring sleep would
         * leave one of them idle (one producer: 48-50 M events/s against
         * 62-83 waking at any space, measured alternately on 2 cores). */
        if (!detail && want_tail == 0 && atomic_load_explicit(&t->budget->grown, RLX) > t->r->ncpu) {
            uint64_t half = (t->mask + 1) / 2;
            want_tail = need > half ? need - half : 0;
        }
        uint32_t seq = atomic_load_explicit(&t->space_seq, ACQ);
        atomic_store_explicit(&t->wake_tail, want_tail, RLX);
        atomic_store_explicit(&t->waiting, 1, SEQ);
        atomic_thread_fence(SEQ);
        if ((detail ? rec_ring_detail_space(t, need)
                    : atomic_load_explicit(&t->tail, ACQ) >= want_tail && rec_ring_index_space(t, need)) ||
            atomic_load_explicit(&t->closed, ACQ)) {
            atomic_store_explicit(&t->waiting, 0, RLX);
            continue;
        }
        rec_writer_wake(t->writer);
        /* The writer wakes us; the timeout is only a safety net (each
         * early wake-up would preempt the writer for nothing). */
        rec_wait32(&t->space_seq, seq, 50000000u);
        atomic_store_explicit(&t->waiting, 0, RLX);
    }
    bump(&t->bp_wait_ns, rec_clock_system_ns() - t0);
    return ok;
}

/* The ring looked full at the cached limit: look at tail, then drop or wait. */
static __attribute__((noinline)) int index_space(atf_recorder *r, rec_thread *t, uint64_t h)
{
    if (rec_ring_index_space(t, h) || rec_ring_grow(t))
        return 1;
    if (t->drop_mode) {
        bump(&t->dropped, 1);
        return 0;
    }
    if (!wait_space(t, 0, h)) {
        atomic_fetch_add_explicit(&r->events_after_stop, 1, RLX);
        return 0;
    }
    return 1;
}

/* ---- Events ----------------------------------------------------------------- */

typedef struct rec_args {
    uint32_t kind;          /* 0: attach to the last event */
    uint64_t fid;
    int detail;
    uint16_t type;
    const void *payload;
    uint32_t size;
    const atf_arm64_payload *arm64;   /* not NULL: encode this (size bytes) instead of copying payload */
} rec_args;

static atf_status slow_record(atf_recorder *r, const rec_args *a);

/* Everything but the common case: not registered yet or recorder stopped
 * (slow_record), a full ring (index_space), the system clock. */
__attribute__((noinline)) atf_status rec_record_cold(atf_recorder *r, uint32_t kind, uint64_t fid)
{
    if (REC_UNLIKELY(r == NULL))
        return ATF_E_STATE;
    rec_thread *t = rec_self.t;
    if (rec_self.rec_id != atomic_load_explicit(&r->live_id, RLX)) {
        rec_args a = { kind, fid, 0, 0, NULL, 0, NULL };
        return slow_record(r, &a);
    }
    uint32_t depth = rec_track_depth(t, kind);
    uint64_t h = atomic_load_explicit(&t->head, RLX);
    if (h == t->limit && !index_space(r, t, h))
        return ATF_E_LIMIT;
    rec_ring_put(t, h, read_ts(t), kind, fid, depth);
    return ATF_OK;
}

/* The system clock's path: the clock is read first, so that little is live
 * across the call. */
__attribute__((noinline)) atf_status rec_record_system(atf_recorder *r, uint32_t kind, uint64_t fid)
{
    uint64_t ts = rec_clock_system_ns();
    rec_thread *t = rec_self.t;
    uint64_t h = atomic_load_explicit(&t->head, RLX);
    if (REC_UNLIKELY(h == t->limit))
        return rec_record_cold(r, kind, fid);
    uint32_t depth = rec_track_depth(t, kind);
    rec_ring_put(t, h, ts, kind, fid, depth);
    return ATF_OK;
}

/* Writes one detail record for index seq @p seq, its payload copied from
 * a->payload or encoded from a->arm64 straight into the ring (a record is
 * contiguous there). @return 1, or 0 if dropped. */
static int detail_put(atf_recorder *r, rec_thread *t, uint64_t seq, uint64_t ts, const rec_args *a)
{
    uint16_t type = a->type;
    uint32_t size = a->size;
    (void)r;
    uint64_t rec = (REC_DREC_HEAD + (uint64_t)size + 7u) & ~(uint64_t)7u;
    uint64_t pos = t->dhead & (t->dsize - 1);
    uint64_t to_end = t->dsize - pos;
    uint64_t need = rec <= to_end ? rec : to_end + rec;
    if (t->dsize - (t->dhead - t->dlimit_tail) < need && !rec_ring_detail_space(t, need)) {
        if (t->drop_mode || !wait_space(t, 1, need)) {
            bump(&t->detail_dropped, 1);
            return 0;
        }
    }
    if (rec > to_end) {
        rec_drec w = { (uint32_t)to_end, REC_DREC_WRAP, 0, 0, 0, 0, 0 };
        memcpy(t->dbuf + pos, &w, 8);
        t->dhead += to_end;
        pos = 0;
    }
    rec_drec h = { (uint32_t)rec, size, type, 0, 0, seq, ts };
    memcpy(t->dbuf + pos, &h, sizeof h);
    if (a->arm64)
        (void)atf_arm64_payload_encode(t->dbuf + pos + REC_DREC_HEAD, size, a->arm64);
    else if (size)
        memcpy(t->dbuf + pos + REC_DREC_HEAD, a->payload, size);
    t->dhead += rec;
    atomic_store_explicit(&t->dpub, t->dhead, REL);
    bump(&t->detail_recorded, 1);
    t->last_detail_seq = seq;
    return 1;
}

static atf_status record_detail(atf_recorder *r, const rec_args *a)
{
    if (REC_UNLIKELY(r == NULL))
        return ATF_E_STATE;
    rec_thread *t = rec_self.t;
    if (REC_UNLIKELY(rec_self.rec_id != atomic_load_explicit(&r->live_id, RLX)))
        return slow_record(r, a);
    if (!t->has_detail)
        return ATF_E_STATE;
    uint64_t h = atomic_load_explicit(&t->head, RLX);
    if (a->kind == 0) {
        /* Attach to the most recent event. */
        if (h == 0 || t->last_detail_seq == h - 1)
            return ATF_E_STATE;
        if (a->size > r->o.detail_max_payload) {
            bump(&t->detail_dropped, 1);
            return ATF_E_LIMIT;
        }
        return detail_put(r, t, h - 1, t->last_ts, a) ? ATF_OK : ATF_E_LIMIT;
    }
    uint32_t depth = rec_track_depth(t, a->kind);
    /* Reserve the index slot first: a detail record must never name an index
     * event that is then dropped. */
    if (REC_UNLIKELY(h == t->limit) && !index_space(r, t, h)) {
        bump(&t->detail_dropped, 1);
        return ATF_E_LIMIT;
    }
    uint64_t ts = read_ts(t);
    atf_status st = ATF_OK;
    if (a->size > r->o.detail_max_payload) {
        bump(&t->detail_dropped, 1);
        st = ATF_E_LIMIT;
    } else if (!detail_put(r, t, h, ts, a)) {
        st = ATF_E_LIMIT;
    }
    rec_ring_put(t, h, ts, a->kind, a->fid, depth);
    return st;
}

/* ---- Registration and thread exit ------------------------------------------ */

/* The owner leaves: publish everything, mark exited, drop its reference. */
static void leave(rec_thread *t)
{
    atomic_store_explicit(&t->pub_head, atomic_load_explicit(&t->head, RLX), REL);
    atomic_store_explicit(&t->exited, 1, REL);
    rec_thread_release(t);
}

static void on_thread_exit(void *unused)
{
    (void)unused;
    rec_thread *t = rec_self.list;
    rec_self.list = NULL;
    rec_self.t = NULL;
    rec_self.rec_id = 0;
    while (t) {
        rec_thread *next = t->tnext;
        leave(t);
        t = next;
    }
}

static void make_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

/* Drops registrations the recorder has closed (stopped session). */
static void prune_closed(void)
{
    rec_thread **pp = &rec_self.list;
    while (*pp) {
        rec_thread *t = *pp;
        if (atomic_load_explicit(&t->closed, ACQ)) {
            *pp = t->tnext;
            if (rec_self.t == t) {
                rec_self.t = NULL;
                rec_self.rec_id = 0;
            }
            rec_thread_release(t);
        } else {
            pp = &t->tnext;
        }
    }
}

static rec_thread *find_registration(uint64_t rec_id)
{
    for (rec_thread *t = rec_self.list; t; t = t->tnext)
        if (t->rec_id == rec_id)
            return t;
    return NULL;
}

/* Waits (backpressure) until the budget has room for a new thread's floor:
 * its first ring and its bookkeeping. The writers give memory back by
 * parking idle files meanwhile. @return 0 if the recorder stopped. */
static int take_floor(atf_recorder *r, uint64_t bytes, uint64_t *waits, uint64_t *wait_ns)
{
    if (rec_budget_take(&r->budget, bytes, REC_TAKE_FLOOR))
        return 1;
    uint64_t t0 = rec_clock_system_ns();
    unsigned us = 50;
    int ok = 1;
    ++*waits;
    while (!rec_budget_take(&r->budget, bytes, REC_TAKE_FLOOR)) {
        if (atomic_load_explicit(&r->live_id, ACQ) != r->id) {
            ok = 0;
            break;
        }
        for (unsigned i = 0; i < r->nwriters; i++)
            rec_writer_wake(&r->writers[i]);
        struct timespec ts = { 0, (long)us * 1000L };
        nanosleep(&ts, NULL);
        if (us < 2000)
            us *= 2;
    }
    *wait_ns += rec_clock_system_ns() - t0;
    return ok;
}

/* @return the new registration, or NULL (*limit set: over max_threads). */
static rec_thread *register_thread(atf_recorder *r, int *limit)
{
    pthread_once(&key_once, make_key);
    *limit = 0;
    if (r->o.max_threads && atomic_load_explicit(&r->threads_live, RLX) >= r->o.max_threads) {
        *limit = 1;
        return NULL;
    }
    size_t dsize = r->o.detail ? r->o.detail_ring_bytes : 0;
    uint64_t floor_bytes = REC_THREAD_OVERHEAD;
    uint64_t waits = 0, wait_ns = 0;
    if (!take_floor(r, floor_bytes, &waits, &wait_ns))
        return NULL;
    rec_thread *t = NULL;
    rec_ring *g = NULL;
    while (!g) {
        g = rec_ring_new(&r->budget, r->ring_min, 0, REC_TAKE_FLOOR);
        if (!g && !take_floor(r, r->ring_min * ATF_INDEX_EVENT_SIZE, &waits, &wait_ns))
            break;
        if (!g)
            rec_budget_give(&r->budget, r->ring_min * ATF_INDEX_EVENT_SIZE);   /* taken to wait; ring_new takes its own */
    }
    if (g && posix_memalign((void **)&t, REC_LINE, sizeof *t) != 0)
        t = NULL;
    if (t) {
        memset(t, 0, sizeof *t);
        t->dbuf = dsize ? rec_ring_map(dsize, 0) : NULL;
    }
    if (!t || (dsize && !t->dbuf)) {
        if (g) {
            rec_budget_give(&r->budget, g->bytes);
            rec_ring_free(g);
        }
        free(t);
        rec_budget_give(&r->budget, floor_bytes);
        return NULL;
    }
    /* The detail lane is opt-in: its ring is taken whatever the budget. */
    if (dsize)
        rec_budget_take(&r->budget, dsize, REC_TAKE_FORCE);
    t->r = r;
    t->budget = &r->budget;
    t->ring_min = r->ring_min;
    t->ring_max = r->ring_events;
    t->ring = t->wring = g;
    t->slots = g->slots;
    t->mask = g->mask;
    t->ring_start = 0;
    t->dsize = dsize;
    atomic_init(&t->mem_bytes, floor_bytes + g->bytes + dsize);
    t->accounted = 1;
    t->limit = g->mask + 1;
    t->batch_fixed = r->o.publish_batch;
    t->batch = rec_batch_for(t->batch_fixed, g->mask + 1);
    t->pub_next = t->batch;
    t->os_tid = (uint32_t)syscall(SYS_gettid);
    t->counter_clock = r->clock.source == ATF_RECORDER_CLOCK_COUNTER;
    t->layout = (uint8_t)r->o.layout;
    t->drop_mode = r->o.overflow == ATF_RECORDER_DROP;
    t->has_detail = r->o.detail != 0;
    t->last_detail_seq = UINT64_MAX;
    t->rec_id = r->id;
    atomic_init(&t->bp_waits, waits);
    atomic_init(&t->bp_wait_ns, wait_ns);
    atomic_init(&t->refs, 2);

    pthread_mutex_lock(&r->reg_mu);
    if (atomic_load_explicit(&r->live_id, ACQ) != r->id) {
        pthread_mutex_unlock(&r->reg_mu);
        rec_budget_give(&r->budget, atomic_load_explicit(&t->mem_bytes, RLX));
        rec_ring_free(g);
        if (t->dbuf)
            munmap(t->dbuf, dsize);
        free(t);
        return NULL;
    }
    t->id = r->next_k++;
    t->writer = &r->writers[t->id % r->nwriters];
    t->gnext = r->live;
    if (r->live)
        r->live->gprev = t;
    r->live = t;
    atomic_fetch_add_explicit(&r->threads_live, 1, RLX);
    pthread_mutex_unlock(&r->reg_mu);

    t->tnext = rec_self.list;
    rec_self.list = t;
    if (!rec_self.key_set) {
        pthread_setspecific(exit_key, (void *)1);
        rec_self.key_set = 1;
    }
    rec_writer_push(t->writer, t);
    return t;
}

static atf_status dispatch(atf_recorder *r, const rec_args *a)
{
    if (a->detail)
        return record_detail(r, a);
    return rec_record(r, a->kind, a->fid);
}

static __attribute__((noinline)) atf_status slow_record(atf_recorder *r, const rec_args *a)
{
    prune_closed();
    uint64_t live = atomic_load_explicit(&r->live_id, ACQ);
    rec_thread *t = live == r->id ? find_registration(r->id) : NULL;
    if (live != r->id) {
        /* Stopped (or a forked child): publish what this thread still holds
         * for the stop's grace period, refuse the event. */
        rec_thread *old = find_registration(r->id);
        if (old && !atomic_load_explicit(&old->closed, ACQ))
            rec_ring_publish(old, atomic_load_explicit(&old->head, RLX));
        atomic_fetch_add_explicit(&r->events_after_stop, 1, RLX);
        return ATF_E_STATE;
    }
    if (!t) {
        int limit;
        t = register_thread(r, &limit);
        if (!t) {
            if (!limit && atomic_load_explicit(&r->live_id, ACQ) != r->id) {
                atomic_fetch_add_explicit(&r->events_after_stop, 1, RLX);
                return ATF_E_STATE;
            }
            atomic_fetch_add_explicit(&r->events_rejected, 1, RLX);
            return ATF_E_LIMIT;
        }
    }
    rec_self.rec_id = r->id;
    rec_self.t = t;
    return dispatch(r, a);
}

/* ---- Public recording functions -------------------------------------------- */

atf_status atf_recorder_event(atf_recorder *r, uint32_t kind, uint64_t function_id)
{
    if (REC_UNLIKELY(kind - 1u > 2u))
        return ATF_E_ARG;
    return rec_record(r, kind, function_id);
}

atf_status atf_recorder_call(atf_recorder *r, uint64_t function_id)
{
    return rec_record(r, ATF_EVENT_CALL, function_id);
}

atf_status atf_recorder_return(atf_recorder *r, uint64_t function_id)
{
    return rec_record(r, ATF_EVENT_RETURN, function_id);
}

atf_status atf_recorder_exception(atf_recorder *r, uint64_t function_id)
{
    return rec_record(r, ATF_EVENT_EXCEPTION, function_id);
}

int atf_recorder_detail_capturing(const atf_recorder *r)
{
    return r && atomic_load_explicit(&r->capturing, RLX) != 0;
}

atf_status atf_recorder_event_detail(atf_recorder *r, uint32_t kind, uint64_t function_id,
                                     uint16_t detail_type, const void *payload, uint32_t size)
{
    if (kind - 1u > 2u || (size && !payload))
        return ATF_E_ARG;
    rec_args a = { kind, function_id, 1, detail_type, payload, size, NULL };
    return record_detail(r, &a);
}

atf_status atf_recorder_event_arm64(atf_recorder *r, uint32_t kind, const atf_arm64_payload *p)
{
    if (kind - 1u > 2u || !p || p->stack_size > ATF_ARM64_STACK_MAX || (p->stack_size && !p->stack))
        return ATF_E_ARG;
    uint16_t type = kind == ATF_EVENT_CALL ? ATF_DETAIL_FUNCTION_CALL : ATF_DETAIL_FUNCTION_RETURN;
    /* Encoded once, straight into the detail ring. */
    rec_args a = { kind, p->function_id, 1, type, NULL, ATF_ARM64_PAYLOAD_FIXED_SIZE + (uint32_t)p->stack_size, p };
    return record_detail(r, &a);
}

atf_status atf_recorder_attach_detail(atf_recorder *r, uint16_t detail_type, const void *payload, uint32_t size)
{
    if (size && !payload)
        return ATF_E_ARG;
    if (!r)
        return ATF_E_STATE;
    if (rec_self.rec_id != atomic_load_explicit(&r->live_id, RLX))
        return ATF_E_STATE;   /* no event of this thread in this session yet */
    rec_args a = { 0, 0, 1, detail_type, payload, size, NULL };
    return record_detail(r, &a);
}

/* ---- Helpers for the control functions ------------------------------------ */

void rec_producer_publish_self(atf_recorder *r)
{
    rec_thread *t = find_registration(r->id);
    if (t && !atomic_load_explicit(&t->closed, ACQ))
        rec_ring_publish(t, atomic_load_explicit(&t->head, RLX));
}

atf_status atf_recorder_thread_detach(atf_recorder *r)
{
    if (!r)
        return ATF_E_ARG;
    rec_thread **pp = &rec_self.list;
    while (*pp && (*pp)->rec_id != r->id)
        pp = &(*pp)->tnext;
    rec_thread *t = *pp;
    if (!t)
        return ATF_E_STATE;
    *pp = t->tnext;
    if (rec_self.t == t) {
        rec_self.t = NULL;
        rec_self.rec_id = 0;
    }
    rec_writer *w = atomic_load_explicit(&t->closed, ACQ) ? NULL : t->writer;
    leave(t);
    if (w && atomic_load_explicit(&r->live_id, ACQ) == r->id)
        rec_writer_wake(w);
    return ATF_OK;
}

void rec_producer_fork_child(void)
{
    /* The registrations are the parent's: the child never records into them
     * (the recorders they belong to refuse events in the child). They stay
     * listed, and so reachable, but are never released here. */
    rec_self.rec_id = 0;
    rec_self.t = NULL;
}
