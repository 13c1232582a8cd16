/* Internal structures of the recorder, shared by its sources (not installed).
 *
 * The parts have their own headers (rec_ring.h, rec_producer.h,
 * rec_writer.h, rec_sink.h, rec_io.h, rec_budget.h, rec_clock.h,
 * rec_wake.h, rec_manifest.h, rec_sync.h); this one holds what they all
 * share: the recorder itself.
 *
 * Ownership in one paragraph: a recording thread owns the producer side of
 * its rthread (head, limit, depth, its TLS list); the writer thread the
 * thread is assigned to owns the consumer side (tail, the wthread with the
 * files); an rthread is reference-counted by both and freed by whichever
 * lets go last. The I/O thread of a writer only performs the write requests
 * the writer queues. recorder/README.md has the full picture. */
#ifndef ATF_REC_INTERNAL_H
#define ATF_REC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include <atf/recorder.h>

#include "rec_base.h"
#include "rec_budget.h"
#include "rec_clock.h"

struct rec_thread;
struct rec_writer;
struct rec_summary;

typedef struct rec_window {
    uint64_t a, b;               /* detail events with a <= ts <= b are persisted; b = UINT64_MAX: open */
} rec_window;

/* ---- The recorder ------------------------------------------------------------ */

struct atf_recorder {
    /* Read on every event. */
    REC_ALIGNED _Atomic uint64_t live_id;   /* id while recording, REC_DEAD_ID after stop */
    _Atomic uint32_t capturing;             /* detail payloads wanted */
    uint64_t id;

    REC_ALIGNED atf_recorder_options o;     /* normalized */
    char *root, *dir;
    pid_t pid;
    uint64_t ring_events;
    uint64_t memory_bound;
    uint32_t io_method;
    rec_clock clock;

    /* Threads. */
    pthread_mutex_t reg_mu;
    struct rec_thread *live;                /* every registered, unfinished thread (reg_mu) */
    uint64_t next_k;
    _Atomic uint64_t threads_live;
    uint64_t ring_min;                      /* events of a thread's first ring */

    struct rec_writer *writers;
    unsigned nwriters;
    unsigned ncpu;                          /* online CPUs at start */

    /* Detail windows (win_mu). */
    pthread_mutex_t win_mu;
    rec_window *win;
    size_t nwin, capwin;
    _Atomic uint64_t win_gen;

    /* Manifest and summaries (man_mu). */
    pthread_mutex_t man_mu;
    struct rec_summary *sum;
    size_t nsum, capsum;
    size_t *sum_of;              /* thread id -> 1 + its summary's index, 0: none yet */
    size_t capsum_of;
    atf_timing_anchor *anchors;
    size_t nanchors;
    atf_manifest_module *modules;
    size_t nmodules;
    atf_manifest_symbol *symbols;
    size_t nsymbols;
    int manifest_dirty;
    uint64_t manifest_written_ns;
    int complete;

    /* Flush requests. */
    _Atomic uint64_t flush_req;
    pthread_mutex_t flush_mu;
    pthread_cond_t flush_cv;

    /* Process-wide totals (own cache line: writers add to them). */
    REC_ALIGNED _Atomic uint64_t events_written, bytes_written, detail_written;
    _Atomic uint64_t events_rejected, events_after_stop;
    _Atomic uint64_t io_errors;
    _Atomic uint64_t thread_files_ns;   /* time spent creating thread files (stats.thread_files_us) */

    /* The memory budget (own line: producers and writers take from it);
     * the manifest and the statistics report its used and peak bytes. */
    REC_ALIGNED rec_budget budget;

    /* Stop. */
    pthread_mutex_t stop_mu;
    _Atomic int stopping;
    int stopped, forked;
    atf_status stop_status;
    atf_error stop_err;
    atf_error io_err;             /* first I/O error (man_mu) */

    /* Durability (rec_sync.c): the periodic policy's sync thread. */
    pthread_mutex_t sync_mu;
    pthread_cond_t sync_cv;
    pthread_t sync_th;
    int sync_init, sync_started, sync_quit;
    _Atomic uint64_t syncs;       /* file system syncs done */
};

/* The calling process owns r (no forked child): for stop() and sync(). */
atf_status rec_owner_check(atf_recorder *r, atf_error *err);

#endif /* ATF_REC_INTERNAL_H */
