/* A thread's rings, both halves.
 *
 * Producer half (the owning thread, its slow paths; the hot path is
 * rec_ring_put in rec_ring.h): rings that follow the rate (a bigger ring
 * when the thread fills one faster than it is drained, a smaller one when
 * the writer asks), the space checks behind the cached limit, publishing.
 * Consumer half (the thread's writer): following the chain of rings,
 * freeing the ones left behind, releasing space and waking the producer,
 * closing the rings at the end. */
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "rec_ring.h"
#include "rec_wake.h"

/* ---- Producer half -------------------------------------------------------- */

void *rec_ring_map(size_t bytes, int populate)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

rec_ring *rec_ring_new(rec_budget *b, uint64_t events, uint64_t start, int kind)
{
    size_t bytes = (size_t)events * ATF_INDEX_EVENT_SIZE;
    if (!rec_budget_take(b, bytes, kind))
        return NULL;
    rec_ring *g = malloc(sizeof *g);
    uint8_t *m = g ? rec_ring_map(bytes, 1) : NULL;
    if (!m) {
        free(g);
        rec_budget_give(b, bytes);
        return NULL;
    }
    g->slots = m;
    g->mask = events - 1;
    g->start = start;
    atomic_init(&g->end, UINT64_MAX);
    g->next = NULL;
    g->bytes = bytes;
    return g;
}

void rec_ring_free(rec_ring *g)
{
    munmap(g->slots, g->bytes);
    free(g);
}

/* Continues the thread's events at head in a new ring of `events` slots
 * (bigger: the thread records faster than its ring is drained; smaller: the
 * writer saw it hold far less than its size). The old ring keeps the
 * events before head until the writer has copied them. Owner only.
 * @return 1 if switched. */
static int switch_ring(rec_thread *t, uint64_t events, int kind)
{
    /* Against finish_thread(): either it sees resizing and waits, or we
     * see closed and leave the rings alone. */
    atomic_store_explicit(&t->resizing, 1, SEQ);
    int ok = 0;
    if (!atomic_load_explicit(&t->closed, SEQ)) {
        uint64_t h = atomic_load_explicit(&t->head, RLX);
        rec_ring *g = rec_ring_new(t->budget, events, h, kind);
        if (g) {
            atomic_fetch_add_explicit(&t->mem_bytes, g->bytes, RLX);
            t->ring->next = g;
            atomic_store_explicit(&t->ring->end, h, REL);
            t->ring = g;
            t->slots = g->slots;
            t->mask = g->mask;
            t->ring_start = h;
            t->limit = h + events;
            t->batch = rec_batch_for(t->batch_fixed, events);
            t->pub_next = t->pub_next < h + t->batch ? t->pub_next : h + t->batch;
            ok = 1;
            uint32_t grown = events > t->ring_min;
            if (grown != atomic_load_explicit(&t->grown, RLX)) {
                atomic_store_explicit(&t->grown, grown, RLX);
                if (grown)
                    atomic_fetch_add_explicit(&t->budget->grown, 1, RLX);
                else
                    atomic_fetch_sub_explicit(&t->budget->grown, 1, RLX);
            }
        }
    }
    atomic_store_explicit(&t->resizing, 0, REL);
    return ok;
}

/* The ring is full: a bigger one if it may grow (rec_ring.h). */
int rec_ring_grow(rec_thread *t)
{
    uint64_t events = t->mask + 1;
    if (events >= t->ring_max)
        return 0;
    uint64_t want = events * 4 < t->ring_max ? events * 4 : t->ring_max;
    if (want * ATF_INDEX_EVENT_SIZE > rec_budget_share(t->budget, !atomic_load_explicit(&t->grown, RLX)))
        return 0;
    return switch_ring(t, want, REC_TAKE_GROW);
}

static void maybe_shrink(rec_thread *t)
{
    if (!atomic_load_explicit(&t->shrink_req, RLX))
        return;
    atomic_store_explicit(&t->shrink_req, 0, RLX);
    uint64_t events = (t->mask + 1) / 4;
    if (events < t->ring_min)
        events = t->ring_min;
    if (events < t->mask + 1)
        switch_ring(t, events, REC_TAKE_FLOOR);
}

__attribute__((noinline)) void rec_ring_publish(rec_thread *t, uint64_t h)
{
    if (atomic_load_explicit(&t->flush_req, RLX)) {
        atomic_store_explicit(&t->flush_req, 0, RLX);
        maybe_shrink(t);
    }
#if defined(__x86_64__) && defined(__SSE2__)
    _mm_sfence();   /* the slots' non-temporal stores (rec_slot_store) before pub_head */
#endif
    atomic_store_explicit(&t->pub_head, h, REL);
    t->pub_next = h + t->batch;
}

int rec_ring_index_space(rec_thread *t, uint64_t h)
{
    uint64_t tail = atomic_load_explicit(&t->tail, ACQ);
    /* Events before ring_start live in older rings. */
    uint64_t base = tail > t->ring_start ? tail : t->ring_start;
    if (h - base > t->mask)
        return 0;
    t->limit = base + t->mask + 1;
    return 1;
}

int rec_ring_detail_space(rec_thread *t, uint64_t need)
{
    uint64_t dt = atomic_load_explicit(&t->dtail, ACQ);
    t->dlimit_tail = dt;
    return t->dsize - (t->dhead - dt) >= need;
}

void rec_thread_release(rec_thread *t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (rec_ring *g = t->wring; g;) {
        rec_ring *next = g->next;
        rec_ring_free(g);
        g = next;
    }
    if (t->dbuf)
        munmap(t->dbuf, t->dsize);
    free(t);
}

/* ---- Consumer half ------------------------------------------------------- */

/* Wakes the owner if it sleeps for space and the tail reached what it
 * waits for (half its ring: see wait_space in rec_producer.c). */
static void wake_producer(rec_thread *t)
{
    atomic_thread_fence(SEQ);
    if (atomic_load_explicit(&t->waiting, ACQ) &&
        atomic_load_explicit(&t->tail, RLX) >= atomic_load_explicit(&t->wake_tail, RLX)) {
        atomic_fetch_add_explicit(&t->space_seq, 1, REL);
        rec_wake32(&t->space_seq);
    }
}

void rec_ring_release(rec_thread *t, uint64_t consumed)
{
    atomic_store_explicit(&t->tail, consumed, REL);
    wake_producer(t);
}

void rec_ring_release_detail(rec_thread *t, uint64_t dconsumed)
{
    atomic_store_explicit(&t->dtail, dconsumed, REL);
    wake_producer(t);
}

const uint8_t *rec_ring_run(rec_thread *t, rec_ring **cur, uint64_t consumed, uint64_t ih, uint64_t max,
                            uint64_t *n)
{
    rec_ring *g = *cur;
    uint64_t end;
    while (consumed == (end = atomic_load_explicit(&g->end, ACQ))) {
        /* The producer moved on to a new ring: this one is copied. */
        rec_ring *next = g->next;
        *cur = next;
        t->wring = next;
        atomic_fetch_sub_explicit(&t->mem_bytes, g->bytes, RLX);
        rec_budget_give(t->budget, g->bytes);
        rec_ring_free(g);
        g = next;
    }
    uint64_t k = (end < ih ? end : ih) - consumed;
    uint64_t rpos = consumed & g->mask;
    if (k > g->mask + 1 - rpos)
        k = g->mask + 1 - rpos;
    if (k > max)
        k = max;
    *n = k;
    return g->slots + rpos * ATF_INDEX_EVENT_SIZE;
}

rec_ring *rec_ring_newest(rec_ring *g)
{
    while (atomic_load_explicit(&g->end, ACQ) != UINT64_MAX)
        g = g->next;
    return g;
}

void rec_ring_ask_shrink(rec_thread *t)
{
    atomic_store_explicit(&t->shrink_req, 1, RLX);
    atomic_store_explicit(&t->flush_req, 1, RLX);
}

void rec_ring_close(rec_thread *t, rec_ring *from)
{
    atomic_store_explicit(&t->closed, 1, SEQ);
    /* A ring switch in progress completes first (it saw closed == 0). */
    while (atomic_load_explicit(&t->resizing, SEQ))
        sched_yield();
    atomic_fetch_add_explicit(&t->space_seq, 1, REL);
    rec_wake32(&t->space_seq);
    if (!atomic_load_explicit(&t->exited, ACQ)) {
        /* The owner is alive: give the rings' memory back now (they are
         * unmapped when the owner lets go of them). */
        for (rec_ring *g = from; g; g = g->next)
            madvise(g->slots, g->bytes, MADV_DONTNEED);
        if (t->dbuf)
            madvise(t->dbuf, t->dsize, MADV_DONTNEED);
    }
}
