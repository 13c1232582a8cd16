/* The producer side (rec_producer.c): the public recording functions,
 * registration of a thread on its first event, backpressure, thread exit;
 * and its hot path, inline here so that the instrumentation front ends
 * (recorder/instrument/front.h) record an event without a call. */
#ifndef ATF_REC_PRODUCER_H
#define ATF_REC_PRODUCER_H

#include <atf/recorder.h>

#include "rec_internal.h"
#include "rec_ring.h"

/* The calling thread's registration, cached (initial-exec TLS: no
 * allocation, no __tls_get_addr). */
typedef struct rec_tls {
    uint64_t rec_id;        /* recorder the cached thread belongs to (0: none) */
    rec_thread *t;
    rec_thread *list;       /* every registration of this thread (one reference each) */
    int key_set;
} rec_tls;

extern __thread rec_tls rec_self __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Everything but the common case: not registered yet or recorder stopped, a
 * full ring, the system clock (out of line). */
__attribute__((visibility("hidden"))) atf_status rec_record_cold(atf_recorder *r, uint32_t kind, uint64_t fid);
__attribute__((visibility("hidden"))) atf_status rec_record_system(atf_recorder *r, uint32_t kind, uint64_t fid);

/* The depth before an event of @kind; tracks the thread's depth. */
static inline uint32_t rec_track_depth(rec_thread *t, uint32_t kind)
{
    uint32_t d = t->depth;
    if (kind == ATF_EVENT_CALL) {
        t->depth = d + 1;
    } else if (kind == ATF_EVENT_RETURN) {
        if (d)
            d--;
        t->depth = d;
    }
    return d;
}

/* The hot path: registered, space in the ring, counter clock. A leaf: all
 * else is a tail call to rec_record_system() or rec_record_cold(). */
static inline atf_status rec_record(atf_recorder *r, uint32_t kind, uint64_t fid)
{
    rec_thread *t = rec_self.t;
    if (REC_LIKELY(r != NULL) && REC_LIKELY(rec_self.rec_id == atomic_load_explicit(&r->live_id, RLX))) {
        uint64_t h = atomic_load_explicit(&t->head, RLX);
        if (REC_LIKELY(h != t->limit)) {
            if (REC_UNLIKELY(!t->counter_clock))
                return rec_record_system(r, kind, fid);
            uint32_t depth = rec_track_depth(t, kind);
            rec_ring_put(t, h, rec_counter_read(), kind, fid, depth);
            return ATF_OK;
        }
    }
    return rec_record_cold(r, kind, fid);
}

/* Publishes the calling thread's events of r (flush, stop). */
void rec_producer_publish_self(atf_recorder *r);
/* In a forked child: forget the parent's registrations of this thread. */
void rec_producer_fork_child(void);

#endif /* ATF_REC_PRODUCER_H */
