/* The writer threads (rec_writer.c): each drains the rings of its threads
 * into their files and keeps the manifest and summaries current. */
#ifndef ATF_REC_WRITER_H
#define ATF_REC_WRITER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "rec_base.h"
#include "rec_clock.h"
#include "rec_io.h"
#include "rec_ring.h"
#include "rec_wake.h"

struct atf_recorder;
struct rec_wthread;

typedef struct rec_writer {
    struct atf_recorder *r;
    unsigned index;
    pthread_t th;
    int started;
    rec_io io;
    _Atomic uint32_t wake_seq;
    _Atomic uint32_t sleeping;
    _Atomic uint64_t flush_done;
    rec_clock clock;             /* this writer's counter conversion */
    _Atomic(rec_thread *) incoming;  /* threads registered, not yet seen (LIFO) */
    /* Thread files are created off the drain path, by a helper thread
     * (rec_writer.c, "Thread files"). */
    pthread_t files_th;
    int files_started;
    pthread_mutex_t files_mu;
    pthread_cond_t files_cv;     /* the helper: work, or quit */
    pthread_cond_t files_done;   /* the helper finished one */
    rec_thread *fq, *fq_tail;    /* to create, FIFO (files_mu) */
    int files_quit;              /* (files_mu) */
    rec_thread *files_cur;       /* the one the helper is creating, NULL: none (files_mu) */
    _Atomic(struct rec_wthread *) ready;  /* created, not yet adopted (LIFO) */
    struct rec_wthread **list;   /* this writer's threads */
    size_t n, cap;
    uint64_t manifest_cost_ns;   /* how long the last manifest rewrite took */
    uint8_t *spare;              /* a REC_SINK_MIN window kept out of the budget: with the
                                    budget full, one parked file at a time still drains */
    struct rec_wthread *spare_user;
    struct rec_wthread *io_wait; /* a thread left this pass: its window waits for the disk */
    /* snapshot of the detail windows */
    rec_window *win;
    size_t nwin, capwin;
    uint64_t win_gen;
    uint64_t last_sync_ns;
} rec_writer;

void *rec_writer_main(void *arg);
static inline void rec_writer_wake(rec_writer *w)
{
    if (atomic_load_explicit(&w->sleeping, SEQ)) {
        atomic_fetch_add_explicit(&w->wake_seq, 1, SEQ);
        rec_wake32(&w->wake_seq);
    }
}

/* Test seam: the files helper calls it before it creates a thread's files
 * (NULL, the default: nothing). test_rec_threads holds the helper there. */
extern _Atomic(void (*)(void)) rec_files_hook;

/* Registration: the thread joins the writer's incoming stack (lock-free). */
void rec_writer_push(rec_writer *w, rec_thread *t);

#endif /* ATF_REC_WRITER_H */
