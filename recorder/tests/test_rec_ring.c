/* Tests for rec_ring.c and the event store of rec_ring.h: the producer's
 * store writes the bytes of the codec's checked encoder; events put into a
 * chain of rings (grown when full, shrunk when the writer asks) come out of
 * the consumer half in order, the rings left behind freed and their bytes
 * back in the budget; one producer and one consumer thread side by side
 * lose and reorder nothing. */
#include "rec_test_util.h"

#include <pthread.h>
#include <stdatomic.h>

#include <atf/event_encode.h>

#include "rec_internal.h"
#include "rec_ring.h"

/* atf_index_event_store() (the producer's) against atf_index_event_encode()
 * (the codec's, checked), both layouts, random fields within each layout's
 * ranges, no detail and a detail link. */
static void test_store_matches_encoder(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int i = 0; i < 20000; i++) {
        atf_layout layout = (i & 1) ? ATF_LAYOUT_2 : ATF_LAYOUT_1;
        atf_index_event e;
        memset(&e, 0, sizeof e);
        e.timestamp_ns = rt_rand(&seed);
        e.function_id = rt_rand(&seed);
        e.thread_id = (uint32_t)rt_rand(&seed);
        e.call_depth = (uint32_t)rt_rand(&seed);
        if (layout == ATF_LAYOUT_2) {
            e.event_kind = (uint32_t)(rt_rand(&seed) % 256);
            e.detail_seq = (i % 3) ? rt_rand(&seed) : ATF_NO_DETAIL;
        } else {
            e.event_kind = (uint32_t)rt_rand(&seed);
            e.detail_seq = (i % 3) ? rt_rand(&seed) % UINT32_MAX : ATF_NO_DETAIL;
        }
        uint8_t want[ATF_INDEX_EVENT_SIZE], got[ATF_INDEX_EVENT_SIZE + 1];
        memset(got, 0xA5, sizeof got);
        assert_int_equal(atf_index_event_encode(want, sizeof want, &e, layout), ATF_OK);
        atf_index_event_store(got, &e, layout);
        assert_memory_equal(got, want, sizeof want);
        assert_int_equal(got[ATF_INDEX_EVENT_SIZE], 0xA5);   /* nothing written past the event */
    }
}

typedef struct fixture {
    atf_recorder *r;
    rec_thread *t;
} fixture;

/* A recorder and a thread as registration leaves them, with only what the
 * ring needs: a first ring of ring_min events, batch, layout. */
static fixture make_thread(uint64_t ring_min, uint64_t ring_events, uint32_t batch, uint8_t layout)
{
    fixture f;
    f.r = aligned_alloc(REC_LINE, (sizeof *f.r + REC_LINE - 1) / REC_LINE * REC_LINE);
    assert_non_null(f.r);
    memset(f.r, 0, sizeof *f.r);
    f.r->ring_min = ring_min;
    f.r->ring_events = ring_events;
    f.r->budget.limit = 64u << 20;
    f.r->ncpu = 1;
    f.t = aligned_alloc(REC_LINE, (sizeof *f.t + REC_LINE - 1) / REC_LINE * REC_LINE);
    assert_non_null(f.t);
    memset(f.t, 0, sizeof *f.t);
    rec_thread *t = f.t;
    rec_ring *g = rec_ring_new(&f.r->budget, ring_min, 0, REC_TAKE_FLOOR);
    assert_non_null(g);
    t->r = f.r;
    t->budget = &f.r->budget;
    t->ring_min = ring_min;
    t->ring_max = ring_events;
    t->ring = t->wring = g;
    t->slots = g->slots;
    t->mask = g->mask;
    t->limit = ring_min;
    t->batch_fixed = batch;
    t->batch = batch;
    t->pub_next = batch;
    t->os_tid = 77;
    t->layout = layout;
    atomic_init(&t->mem_bytes, g->bytes);
    atomic_init(&t->refs, 1);
    return f;
}

static void free_thread(fixture *f)
{
    atomic_store(&f->t->exited, 1);
    rec_ring_close(f->t, f->t->wring);
    assert_int_equal(atomic_load(&f->t->closed), 1);
    rec_budget_give(&f->r->budget, atomic_load(&f->t->mem_bytes));
    rec_thread_release(f->t);   /* the last reference: frees the rings */
    assert_int_equal(atomic_load(&f->r->budget.used), 0);
    free(f->r);
}

/* Puts event number i (function_id i, a call at even i, a return at odd). */
static int put(rec_thread *t, uint64_t i)
{
    uint64_t h = atomic_load_explicit(&t->head, memory_order_relaxed);
    if (h == t->limit && !rec_ring_index_space(t, h) && !rec_ring_grow(t))
        return 0;
    rec_ring_put(t, h, 1000 + i, (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL, i, (uint32_t)(i & 7));
    return 1;
}

static void check_run(const uint8_t *src, uint64_t first, uint64_t n, atf_layout layout)
{
    for (uint64_t k = 0; k < n; k++) {
        atf_index_event e;
        uint64_t i = first + k;
        assert_int_equal(atf_index_event_decode(&e, src + k * ATF_INDEX_EVENT_SIZE, ATF_INDEX_EVENT_SIZE, layout),
                         ATF_OK);
        assert_int_equal(e.timestamp_ns, 1000 + i);
        assert_int_equal(e.function_id, i);
        assert_int_equal(e.event_kind, (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL);
        assert_int_equal(e.detail_seq, ATF_NO_DETAIL);
        if (layout == ATF_LAYOUT_1) {
            assert_int_equal(e.thread_id, 77);
            assert_int_equal(e.call_depth, i & 7);
        }
    }
}

/* One thread, by hand: a full first ring, a bigger one, the consumer
 * following the chain (the first ring freed once copied), then a shrink
 * the writer asks for, done at the owner's next publish. */
static void run_chain(uint8_t layout)
{
    fixture f = make_thread(8, 64, 4, layout);
    rec_thread *t = f.t;
    rec_ring *first = t->ring;
    for (uint64_t i = 0; i < 8; i++)
        assert_int_equal(put(t, i), 1);
    assert_int_equal(atomic_load(&t->pub_head), 8);   /* batches of 4 */
    assert_ptr_equal(t->ring, first);
    /* Full, the tail has not moved: a ring four times bigger. */
    assert_int_equal(rec_ring_index_space(t, 8), 0);
    for (uint64_t i = 8; i < 28; i++)
        assert_int_equal(put(t, i), 1);
    assert_true(t->ring != first);
    assert_int_equal(t->mask + 1, 32);
    assert_int_equal(t->ring_start, 8);
    assert_int_equal(atomic_load(&first->end), 8);
    assert_int_equal(atomic_load(&f.r->budget.grown), 1);
    assert_int_equal(atomic_load(&f.r->budget.used), 8 * 32 + 32 * 32);
    assert_int_equal(atomic_load(&t->pub_head), 28);
    assert_ptr_equal(rec_ring_newest(t->wring), t->ring);

    /* The consumer: the first ring's eight events, then the second's. */
    rec_ring *cur = t->wring;
    uint64_t n, consumed = 0, ih = atomic_load(&t->pub_head);
    const uint8_t *src = rec_ring_run(t, &cur, consumed, ih, 256, &n);
    assert_int_equal(n, 8);
    check_run(src, 0, n, (atf_layout)layout);
    consumed += n;
    src = rec_ring_run(t, &cur, consumed, ih, 5, &n);   /* at most 5 */
    assert_ptr_equal(cur, t->ring);
    assert_ptr_equal(t->wring, t->ring);                 /* the first ring is freed */
    assert_int_equal(atomic_load(&f.r->budget.used), 32 * 32);
    assert_int_equal(atomic_load(&t->mem_bytes), 32 * 32);
    assert_int_equal(n, 5);
    check_run(src, 8, n, (atf_layout)layout);
    consumed += n;
    src = rec_ring_run(t, &cur, consumed, ih, 256, &n);
    assert_int_equal(n, 15);
    check_run(src, 13, n, (atf_layout)layout);
    consumed += n;
    rec_ring_release(t, consumed);
    assert_int_equal(atomic_load(&t->tail), 28);

    /* The writer saw the ring mostly empty: the next publish shrinks it. */
    rec_ring_ask_shrink(t);
    assert_int_equal(put(t, 28), 1);   /* flush_req: published at once */
    assert_int_equal(atomic_load(&t->pub_head), 29);
    assert_int_equal(t->mask + 1, 8);
    assert_int_equal(atomic_load(&f.r->budget.grown), 0);
    src = rec_ring_run(t, &cur, consumed, 29, 256, &n);
    assert_int_equal(n, 1);
    check_run(src, 28, 1, (atf_layout)layout);
    free_thread(&f);
}

static void test_chain_layout2(void **state)
{
    (void)state;
    run_chain(ATF_LAYOUT_2);
}

static void test_chain_layout1(void **state)
{
    (void)state;
    run_chain(ATF_LAYOUT_1);
}

/* A producer thread and a consumer thread: every event arrives once and in
 * order while the ring grows under the load (the producer spins when full). */
typedef struct spsc {
    rec_thread *t;
    uint64_t total;
} spsc;

static void *producer_main(void *p)
{
    spsc *s = p;
    for (uint64_t i = 0; i < s->total;)
        if (put(s->t, i))
            i++;
    rec_ring_publish(s->t, atomic_load_explicit(&s->t->head, memory_order_relaxed));
    return NULL;
}

/* publish_batch 0: the batch follows the ring (a quarter, 32 to 256), also
 * across a ring switch; a batch that is set stays. */
static void test_batch_follows_ring(void **state)
{
    (void)state;
    assert_int_equal(rec_batch_for(0, 0), REC_BATCH_MIN);
    assert_int_equal(rec_batch_for(0, 128), 32);
    assert_int_equal(rec_batch_for(0, 512), 128);
    assert_int_equal(rec_batch_for(0, 1u << 17), REC_BATCH_MAX);
    assert_int_equal(rec_batch_for(7, 1u << 17), 7);
    fixture f = make_thread(128, 4096, 32, ATF_LAYOUT_2);
    rec_thread *t = f.t;
    t->batch_fixed = 0;
    for (uint64_t i = 0; i < 128; i++)
        assert_int_equal(put(t, i), 1);
    assert_int_equal(atomic_load(&t->pub_head), 128);   /* four batches of 32 */
    assert_int_equal(put(t, 128), 1);                   /* full: a ring of 512 */
    assert_int_equal(t->mask + 1, 512);
    assert_int_equal(t->batch, 128);
    for (uint64_t i = 129; i < 160; i++)
        assert_int_equal(put(t, i), 1);
    assert_int_equal(atomic_load(&t->pub_head), 160);   /* the batch set before the switch */
    for (uint64_t i = 160; i < 287; i++)
        assert_int_equal(put(t, i), 1);
    assert_int_equal(atomic_load(&t->pub_head), 160);   /* then every 128 */
    assert_int_equal(put(t, 287), 1);
    assert_int_equal(atomic_load(&t->pub_head), 288);
    free_thread(&f);
}

static void test_spsc_threads(void **state)
{
    (void)state;
    fixture f = make_thread(16, 4096, 32, ATF_LAYOUT_2);
    spsc s = { f.t, rt_scaled(2000000) };
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, producer_main, &s), 0);
    rec_ring *cur = f.t->wring;
    uint64_t consumed = 0;
    while (consumed < s.total) {
        uint64_t ih = atomic_load_explicit(&f.t->pub_head, memory_order_acquire);
        while (consumed < ih) {
            uint64_t n;
            const uint8_t *src = rec_ring_run(f.t, &cur, consumed, ih, 256, &n);
            assert_true(n > 0);
            for (uint64_t k = 0; k < n; k++) {
                uint64_t fid = 0;   /* the ring holds the on-disk bytes: little-endian */
                for (int byte = 7; byte >= 0; byte--)
                    fid = fid << 8 | src[k * ATF_INDEX_EVENT_SIZE + 8 + (unsigned)byte];
                if (fid != consumed + k)
                    fail_msg("event %llu has function_id %llu", (unsigned long long)(consumed + k),
                             (unsigned long long)fid);
            }
            consumed += n;
            rec_ring_release(f.t, consumed);
        }
    }
    pthread_join(th, NULL);
    assert_int_equal(consumed, s.total);
    assert_int_equal(atomic_load(&f.t->pub_head), s.total);
    /* The consumer's ring is the producer's: every ring before it was freed. */
    assert_ptr_equal(cur, f.t->ring);
    assert_ptr_equal(f.t->wring, f.t->ring);
    assert_int_equal(atomic_load(&f.r->budget.used), f.t->ring->bytes);
    free_thread(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_matches_encoder),
        cmocka_unit_test(test_chain_layout2),
        cmocka_unit_test(test_chain_layout1),
        cmocka_unit_test(test_batch_follows_ring),
        cmocka_unit_test(test_spsc_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
