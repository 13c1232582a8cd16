/* What the instrumentation front ends share (front.c): the recorder started
 * on first use from the environment that `atf record` sets, the address ->
 * function id mapping with its per-thread cache, and the re-entrancy guard.
 * recorder/README.md ("Front ends") explains the design and its cost. */
#ifndef ATF_FRONT_H
#define ATF_FRONT_H

#include <stdint.h>

#include <atf/recorder.h>

#include "rec_producer.h"   /* the recorder's hot path, inline: rec_record() */

#define FRONT_HIDDEN __attribute__((visibility("hidden")))
#define FRONT_LIKELY(x) __builtin_expect(!!(x), 1)
#define FRONT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define FRONT_PENDING 128u

/* Per-thread state, initial-exec TLS (no allocation, no __tls_get_addr):
 * busy is the re-entrancy guard; [lo, lo + span) is the executable range of
 * the module of the thread's last function, idbase the function id of lo;
 * pending holds the events of signal handlers that interrupted the hook
 * (recorded when the interrupted hook is done). */
typedef struct front_tls {
    uintptr_t lo;
    uintptr_t span;
    uint64_t idbase;
    uint32_t busy;
    uint32_t npending;                  /* atomic against this thread's signal handlers */
    uintptr_t pending_fn[FRONT_PENDING];
    uint8_t pending_kind[FRONT_PENDING];
} front_tls;

extern __thread front_tls front_t __attribute__((tls_model("initial-exec"))) FRONT_HIDDEN;
/* The running recorder, or NULL (not started yet, stopped, forked child). */
extern atf_recorder *front_rec FRONT_HIDDEN;

/* Slow paths. */
FRONT_HIDDEN atf_recorder *front_start(void);
FRONT_HIDDEN uint64_t front_id_slow(uintptr_t addr);
/* Stops the recorder (exec wrappers); the next event starts a new session. */
FRONT_HIDDEN void front_stop_for_exec(void);
/* A hook that interrupted the hook (a signal handler): queue the event. */
FRONT_HIDDEN void front_defer(uint32_t kind, uintptr_t fn);
/* Records the queued events of signal handlers, in their order. */
FRONT_HIDDEN void front_replay(atf_recorder *r);

/* One entry or exit of the function at @p fn: the whole fast path. */
static inline __attribute__((always_inline)) void front_event(uint32_t kind, uintptr_t fn)
{
    front_tls *t = &front_t;
    if (FRONT_UNLIKELY(t->busy)) {
        /* A signal handler interrupted the hook (or the recorder under it):
         * recording now could corrupt the ring, so the event waits. */
        front_defer(kind, fn);
        return;
    }
    t->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    atf_recorder *r = __atomic_load_n(&front_rec, __ATOMIC_ACQUIRE);
    if (FRONT_UNLIKELY(!r))
        r = front_start();
    if (FRONT_LIKELY(r != NULL)) {
        uintptr_t off = fn - t->lo;
        uint64_t id = FRONT_LIKELY(off < t->span) ? t->idbase + off : front_id_slow(fn);
        /* The recorder's hot path inlined (no call; the kind a constant in
         * the -finstrument-functions hooks): what atf_recorder_call() and
         * atf_recorder_return() run. */
        (void)rec_record(r, kind, id);
        if (FRONT_UNLIKELY(__atomic_load_n(&t->npending, __ATOMIC_RELAXED) != 0))
            front_replay(r);
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->busy = 0;
}

#endif
