/**
 * @file atf/recorder.h
 * @brief The multithreaded ATF recorder: per-thread lock-free rings drained
 *        by background writer threads into an ATF session on disk.
 *
 * A recorder writes one session directory
 * `ROOT/session_YYYYMMDD_HHMMSS/pid_N/` holding `manifest.json` and one
 * `thread_K/{index.atf,detail.atf}` per recording thread (K = 0, 1, 2, ... in
 * registration order). recorder/README.md describes the architecture, the
 * I/O method, the detail lane's link design and the crash-safety argument;
 * this header is the reference for each function.
 *
 * Life cycle:
 *   atf_recorder_start()   creates the session and the writer threads;
 *   atf_recorder_call() / _return() / _exception() / _event() and the
 *                          detail variants record from any thread (a thread
 *                          registers itself on its first event);
 *   atf_recorder_stop()    drains every ring and finalizes every file
 *                          (also run from an atexit handler);
 *   atf_recorder_destroy() frees the handle.
 *
 * Threads: every function may be called from any thread unless its comment
 * says otherwise. The recording functions are wait-free in drop mode and
 * block only on a full ring in backpressure mode (the wait is counted).
 * A thread that exits has its ring drained and its files finalized by the
 * writer (through a pthread key destructor). After fork() the child does not
 * record into, and never writes to, the parent's session; it may start its
 * own recorder.
 *
 * Nothing is dropped silently: events lost in drop mode, events still
 * unpublished when stop() ends, events refused because the thread limit was
 * reached and events lost to I/O errors are counted, reported by
 * atf_recorder_get_stats() and written to manifest.json (`events_dropped`
 * and the `recorder` object).
 */
#ifndef ATF_RECORDER_H
#define ATF_RECORDER_H

#include <stdint.h>
#include <stddef.h>

#include <atf/error.h>
#include <atf/format.h>
#include <atf/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a producer does when its ring is full. */
typedef enum atf_recorder_overflow {
    ATF_RECORDER_BACKPRESSURE = 0, /**< wait for the writer (default); every wait is counted */
    ATF_RECORDER_DROP = 1          /**< drop the event and count it (never blocks) */
} atf_recorder_overflow;

/** What a power cut (or a kernel crash) may take from a session; see
 *  recorder/README.md, *Durability*. A process that is killed loses nothing
 *  written under any policy; atf_recorder_sync() works under every policy. */
typedef enum atf_recorder_durability {
    ATF_RECORDER_DURABLE_NONE = 0,     /**< nothing is synced before stop(): a power cut may take
                                            any event not yet finalized, and files or directories
                                            created since the last sync (default) */
    ATF_RECORDER_DURABLE_PERIODIC = 1  /**< a background thread makes everything recorded durable
                                            every sync_interval_ms: a power cut takes at most the
                                            events of the last interval (and of the sync running) */
} atf_recorder_durability;

/** Where event timestamps come from. The files always hold nanoseconds of
 *  the platform clock (CLOCK_BOOTTIME on Linux, clock_type 3). */
typedef enum atf_recorder_clock {
    ATF_RECORDER_CLOCK_AUTO = 0,    /**< the CPU counter when it is reliable, else the system clock */
    ATF_RECORDER_CLOCK_SYSTEM = 1,  /**< clock_gettime(CLOCK_BOOTTIME) on every event */
    ATF_RECORDER_CLOCK_COUNTER = 2  /**< TSC / CNTVCT_EL0 on every event, converted to the system
                                         clock by the writer (start fails if unavailable) */
} atf_recorder_clock;

/** How the writer writes files. */
typedef enum atf_recorder_io {
    ATF_RECORDER_IO_AUTO = 0,       /**< O_DIRECT when the file system supports it, else buffered */
    ATF_RECORDER_IO_DIRECT = 1,     /**< O_DIRECT for whole blocks (start fails if unsupported) */
    ATF_RECORDER_IO_BUFFERED = 2    /**< ordinary buffered pwrite() */
} atf_recorder_io;

/** The defaults of atf_recorder_options.io_chunk_bytes and .io_chunks: 16 MiB
 *  writes from windows of at most 32 MiB per file (recorder/README.md, "I/O
 *  method, and why"). */
#define ATF_RECORDER_IO_CHUNK_BYTES (16u << 20)
#define ATF_RECORDER_IO_CHUNKS 2u

/**
 * Options of atf_recorder_start(). Initialise with ::ATF_RECORDER_OPTIONS_INIT
 * and change what you need; zero means "the default" for every size.
 */
typedef struct atf_recorder_options {
    const char *root;              /**< directory under which session_YYYYMMDD_HHMMSS/pid_N/ is
                                        created; NULL: "ada_traces" in the working directory */
    const char *session_dir;       /**< NULL, or the exact session directory (the pid_N level) to
                                        create instead; it must not exist yet or be empty
                                        (atf_recorder_start() fails with ::ATF_E_IO otherwise) */
    atf_layout layout;             /**< ATF_LAYOUT_2 (default) or ATF_LAYOUT_1 */
    uint32_t max_threads;          /**< threads recording at the same time; 0 (default): no
                                        limit but the system's. Events of threads beyond a
                                        limit are dropped and counted */
    uint32_t ring_events;          /**< largest index ring per thread, in 32-byte events, rounded
                                        up to a power of two (default 131072 = 4 MiB). A thread
                                        starts with 128 events (4 KiB) and its ring grows while
                                        it records faster than the writer drains it */
    uint32_t publish_batch;        /**< events a producer writes before publishing them to the
                                        writer (1 = publish every event; default 0: a quarter
                                        of the thread's ring, between 32 and 256) */
    atf_recorder_overflow overflow;/**< default ATF_RECORDER_BACKPRESSURE */
    atf_recorder_clock clock;      /**< default ATF_RECORDER_CLOCK_AUTO */
    atf_recorder_io io;            /**< default ATF_RECORDER_IO_AUTO */
    uint32_t io_chunk_bytes;       /**< largest write request, multiple of 4096 (default
                                        ::ATF_RECORDER_IO_CHUNK_BYTES) */
    uint32_t io_chunks;            /**< largest write buffer per file, in chunks (default
                                        ::ATF_RECORDER_IO_CHUNKS); a
                                        file's buffer starts at 8 KiB, grows while the writer
                                        would wait for the disk, and is given back when the file
                                        is idle */
    uint32_t flush_interval_ms;    /**< a file that did not fill a chunk for this long gets its
                                        tail written (default 100) */
    uint32_t writer_threads;       /**< background writer threads (default: one per online CPU,
                                        up to 4); each has four I/O threads */
    uint32_t stop_grace_ms;        /**< how long stop() waits for live threads to publish their
                                        last events (default 20) */
    uint8_t checksum;              /**< 1: CRC32-C in the footers (default); 0: write 0 */
    uint8_t sync;                  /**< 1: fdatasync files and manifest at finalize, and fsync the
                                        session's directories at the end of stop() (default) */
    uint8_t detail;                /**< 1: enable the detail lane (see atf_recorder_detail_enable) */
    uint8_t durability;            /**< what survives a power cut: ATF_RECORDER_DURABLE_NONE
                                        (default) or ATF_RECORDER_DURABLE_PERIODIC; see
                                        atf_recorder_sync() and recorder/README.md */
    uint32_t detail_ring_bytes;    /**< detail ring per thread (default 1 MiB) */
    uint32_t detail_max_payload;   /**< largest detail payload accepted (default 4096) */
    uint64_t pre_roll_ns;          /**< detail events kept in memory before a trigger (default 0) */
    uint64_t post_roll_ns;         /**< detail recording continues this long after disable (default 0) */
    uint64_t pre_roll_bytes;       /**< pre-roll memory per thread (default 8 MiB); when full, the
                                        oldest pre-roll events are evicted and counted */
    uint64_t memory_budget_bytes;  /**< every ring and write buffer of the recorder, whatever the
                                        number of threads (default 256 MiB, at least 4 MiB);
                                        when it is used up, rings and buffers stop growing and
                                        producers wait (backpressure) or drop (drop mode) */
    uint32_t sync_interval_ms;     /**< ATF_RECORDER_DURABLE_PERIODIC: everything recorded is
                                        made durable at least this often (default 1000) */
    uint32_t reserved[5];          /**< must be zero */
} atf_recorder_options;

#define ATF_RECORDER_OPTIONS_INIT                                                                  \
    { NULL, NULL, ATF_LAYOUT_2, 0u, 0u, 0u, ATF_RECORDER_BACKPRESSURE, ATF_RECORDER_CLOCK_AUTO,    \
      ATF_RECORDER_IO_AUTO, 0u, 0u, 0u, 0u, 0u, 1u, 1u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u,          \
      { 0u, 0u, 0u, 0u, 0u } }

/** Counters of a recorder (atf_recorder_get_stats). All are totals since start. */
typedef struct atf_recorder_stats {
    uint64_t threads;              /**< threads registered so far */
    uint64_t threads_live;         /**< threads whose files are still open */
    uint64_t events_recorded;      /**< index events accepted into rings */
    uint64_t events_written;       /**< index events handed to the files */
    uint64_t events_dropped;       /**< every index event lost, the sum of the next four */
    uint64_t events_dropped_full;  /**< drop mode: ring full */
    uint64_t events_lost_at_stop;  /**< written but never published when stop() ended */
    uint64_t events_rejected;      /**< threads beyond max_threads, layout-1 count limit */
    uint64_t events_lost_io;       /**< appended but lost to a write error */
    uint64_t events_after_stop;    /**< recording calls after stop() (not part of the session) */
    uint64_t backpressure_waits;   /**< events whose producer found its ring full and waited */
    uint64_t backpressure_wait_ns; /**< total time producers spent waiting */
    uint64_t detail_recorded;      /**< detail events accepted into detail rings */
    uint64_t detail_written;       /**< detail events persisted to detail.atf */
    uint64_t detail_dropped;       /**< detail events lost (drop mode, oversized payload, I/O) */
    uint64_t detail_preroll_evicted; /**< pre-roll events evicted because pre_roll_bytes was full */
    uint64_t detail_links_patched; /**< forward links written into index events already drained
                                        (pre-roll events persisted by a trigger) */
    uint64_t bytes_written;        /**< bytes of events handed to the files */
    uint64_t memory_bound;         /**< bytes: the memory budget (memory_budget_bytes) */
    uint64_t memory_allocated;     /**< bytes of rings, buffers and per-thread bookkeeping taken
                                        from the budget now */
    uint64_t memory_peak;          /**< largest memory_allocated seen */
    uint64_t clock_max_step_ns;    /**< counter clock: largest correction applied at a recalibration */
    uint32_t clock_source;         /**< ATF_RECORDER_CLOCK_SYSTEM or ATF_RECORDER_CLOCK_COUNTER */
    uint32_t io_method;            /**< ATF_RECORDER_IO_DIRECT or ATF_RECORDER_IO_BUFFERED */
    uint32_t syncs;                /**< file system syncs done (atf_recorder_sync(), the periodic
                                        policy, stop() with opts.sync) */
    uint32_t thread_files_us;      /**< CPU microseconds spent creating thread directories and
                                        files, all threads (the file system's cost per new
                                        thread: divide by threads); saturates at 2^32-1 */
    uint32_t reserved[4];
} atf_recorder_stats;

typedef struct atf_recorder atf_recorder;

/**
 * The memory bound of @p opts (NULL: defaults): the memory budget, which
 * holds every ring, write buffer and detail buffer of the recorder whatever
 * the number of threads; 0 for invalid options. Thread-safe.
 */
ATF_API uint64_t atf_recorder_memory_bound(const atf_recorder_options *opts);

/**
 * Starts a recording session: creates the session directory and its initial
 * manifest.json, calibrates the counter clock if used, and starts the writer
 * threads. At most one recorder may be active per process.
 *
 * @param out  receives the recorder; NULL on failure.
 * @param opts NULL for defaults; the strings are copied.
 * @param err  NULL or receives the reason of a failure.
 * @return ::ATF_OK; ::ATF_E_ARG for bad options; ::ATF_E_STATE if another
 *         recorder is active; ::ATF_E_UNSUPPORTED if a required clock or I/O
 *         method is unavailable; ::ATF_E_IO if the directory cannot be
 *         created; ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_recorder_start(atf_recorder **out, const atf_recorder_options *opts,
                                      atf_error *err);

/**
 * Ends the session: new events are refused (counted as events_after_stop),
 * live threads get stop_grace_ms to publish their last events (the rest are
 * counted as events_lost_at_stop), open detail windows end now, every ring is
 * drained, every file finalized (footer, header, fdatasync when opts.sync)
 * and the final manifest written; with opts.sync, the session's directories
 * (the threads', the session's and the two above it) are then fsynced, so
 * that the whole session survives a power cut.
 * Idempotent: later calls return the first result. Called automatically at
 * process exit for a recorder still running.
 *
 * @return ::ATF_OK; ::ATF_E_IO if a file could not be written (the events
 *         lost are counted); ::ATF_E_STATE in a forked child (the parent's
 *         session is left alone).
 */
ATF_API atf_status atf_recorder_stop(atf_recorder *r, atf_error *err);

/**
 * Stops the recorder if needed and frees it. NULL is allowed. No thread may
 * call a recording function with @p r during or after this call.
 */
ATF_API void atf_recorder_destroy(atf_recorder *r);

/** @return the session directory (the pid_N level); owned by @p r. */
ATF_API const char *atf_recorder_session_dir(const atf_recorder *r);

/* ---- Recording (any thread) --------------------------------------------- */

/**
 * Records one index event of @p kind (ATF_EVENT_CALL, ATF_EVENT_RETURN or
 * ATF_EVENT_EXCEPTION) for the calling thread, registering the thread on its
 * first event. The call depth is tracked per thread: a call is recorded at
 * the current depth and then increments it, a return decrements it (not
 * below 0) and is recorded at the new depth, an exception does not change it
 * (layout 1 stores the depth in every event).
 *
 * @return ::ATF_OK when recorded; ::ATF_E_LIMIT when dropped (drop mode with a
 *         full ring, thread limit, layout-1 count limit; counted);
 *         ::ATF_E_STATE when the recorder is stopped; ::ATF_E_ARG for a bad kind.
 */
ATF_API atf_status atf_recorder_event(atf_recorder *r, uint32_t kind, uint64_t function_id);
/** atf_recorder_event(r, ATF_EVENT_CALL, function_id). */
ATF_API atf_status atf_recorder_call(atf_recorder *r, uint64_t function_id);
/** atf_recorder_event(r, ATF_EVENT_RETURN, function_id). */
ATF_API atf_status atf_recorder_return(atf_recorder *r, uint64_t function_id);
/** atf_recorder_event(r, ATF_EVENT_EXCEPTION, function_id). */
ATF_API atf_status atf_recorder_exception(atf_recorder *r, uint64_t function_id);

/**
 * @return 1 when detail payloads are wanted now (the detail lane is enabled,
 * in its post-roll, or a pre-roll is configured), else 0. One relaxed load:
 * instrumentation calls it to skip capturing registers when nobody wants them.
 */
ATF_API int atf_recorder_detail_capturing(const atf_recorder *r);

/**
 * Records an index event together with a detail event carrying @p payload
 * (@p size bytes, copied; any format, e.g. the ARM64 function payload). The
 * detail event has @p detail_type (ATF_DETAIL_FUNCTION_CALL, ..._RETURN or
 * another value), the index event's timestamp, and is linked both ways with
 * the index event if it is persisted (it is kept only when its timestamp
 * falls in a detail window; see atf_recorder_detail_enable()).
 * On arm64 (the session's headers say arch 2) the payloads of types 3 and 4
 * must be the ARM64 function payload (conformance/SPEC.md 3.4, ARM-PAY-*):
 * use atf_recorder_event_arm64(), or another type for other bytes.
 *
 * @return as atf_recorder_event(); ::ATF_E_STATE if the recorder has no
 *         detail lane; ::ATF_E_LIMIT also when @p size > detail_max_payload
 *         (the index event is still recorded, the detail event counted as dropped).
 */
ATF_API atf_status atf_recorder_event_detail(atf_recorder *r, uint32_t kind, uint64_t function_id,
                                             uint16_t detail_type, const void *payload, uint32_t size);

/** Encodes @p p as the ARM64 function payload (100 bytes + stack) and calls
 *  atf_recorder_event_detail() with detail type 3 for a call, 4 otherwise.
 *  ::ATF_E_ARG if p->stack_size > 256. */
ATF_API atf_status atf_recorder_event_arm64(atf_recorder *r, uint32_t kind, const atf_arm64_payload *p);

/**
 * Attaches a detail payload to the calling thread's most recent index event
 * (one detail event per index event). Slower than atf_recorder_event_detail()
 * when that event has already reached the file: its link is then patched.
 * @return ::ATF_OK; ::ATF_E_STATE if the thread has no event yet in this
 *         session, the event already has a detail event, or the recorder has
 *         no detail lane; ::ATF_E_LIMIT when dropped.
 */
ATF_API atf_status atf_recorder_attach_detail(atf_recorder *r, uint16_t detail_type, const void *payload,
                                              uint32_t size);

/* ---- Detail lane control (any thread) ----------------------------------- */

/**
 * Triggers detail recording: opens a detail window that starts pre_roll_ns
 * before now, so the detail events still held in pre-roll memory are
 * persisted, and every later detail event too until disable. No-op if a
 * window is already open.
 * @param at_ns NULL or receives the trigger time (trace clock).
 * @return ::ATF_OK; ::ATF_E_STATE without a detail lane or after stop.
 */
ATF_API atf_status atf_recorder_detail_enable(atf_recorder *r, uint64_t *at_ns);

/**
 * Ends the open detail window post_roll_ns after now: detail events up to
 * then are still persisted. No-op if no window is open.
 * @param at_ns NULL or receives the disable time (trace clock).
 */
ATF_API atf_status atf_recorder_detail_disable(atf_recorder *r, uint64_t *at_ns);

/* ---- Session metadata (any thread) -------------------------------------- */

/** @return the current time of the trace clock, in nanoseconds (the clock of
 *  the files' timestamps). */
ATF_API uint64_t atf_recorder_now_ns(const atf_recorder *r);

/**
 * Records a timing anchor (manifest `timing_anchors[]`): @p host_time_ns of
 * the trace clock (0: now) corresponds to media time value/scale seconds.
 * @return ::ATF_OK; ::ATF_E_ARG if @p media_time_scale <= 0.
 */
ATF_API atf_status atf_recorder_add_anchor(atf_recorder *r, uint64_t host_time_ns, int64_t media_time_value,
                                           int32_t media_time_scale);
/** Adds a module to the manifest's symbol table (strings copied; NULL is "").
 *  @return ::ATF_OK; ::ATF_E_ARG if a string is not valid UTF-8; ::ATF_E_STATE after stop. */
ATF_API atf_status atf_recorder_add_module(atf_recorder *r, const atf_manifest_module *m);
/** Adds a symbol to the manifest's symbol table (name copied; NULL is "").
 *  @return ::ATF_OK; ::ATF_E_ARG if the name is not valid UTF-8; ::ATF_E_STATE after stop. */
ATF_API atf_status atf_recorder_add_symbol(atf_recorder *r, const atf_manifest_symbol *s);

/* ---- Flushing and statistics -------------------------------------------- */

/**
 * Publishes the calling thread's events and asks every other live thread to
 * publish its own at its next event, then waits until every event published
 * before the call is in the files (written, crash-recoverable; not fsynced)
 * and the manifest is rewritten.
 * @return ::ATF_OK; ::ATF_E_IO on a write error; ::ATF_E_STATE when stopped;
 *         ::ATF_E_LIMIT if @p timeout_ms passed first (0: wait forever).
 */
ATF_API atf_status atf_recorder_flush(atf_recorder *r, uint32_t timeout_ms);

/**
 * Makes durable (on the storage device, surviving a power cut) every event
 * that atf_recorder_flush() would have written: the calling thread's events
 * and every event other threads had published (at every publish_batch
 * events, at detach and at thread exit) before the call, with the files, the
 * directories and a manifest listing them. It flushes, then syncs the file
 * system of the session (syncfs). After stop() it only syncs. Works under
 * every durability policy; the recording threads are not held up.
 * @return ::ATF_OK when durable; ::ATF_E_IO if a write or the sync failed;
 *         ::ATF_E_STATE in a forked child.
 */
ATF_API atf_status atf_recorder_sync(atf_recorder *r, atf_error *err);

/**
 * Ends the calling thread's participation: publishes its events and lets the
 * writer finalize its files now instead of at thread exit. A later event of
 * the same thread registers it again as a new thread (new K).
 */
ATF_API atf_status atf_recorder_thread_detach(atf_recorder *r);

/** Fills @p out with the current counters (consistent per counter, not as a whole). */
ATF_API void atf_recorder_get_stats(const atf_recorder *r, atf_recorder_stats *out);

/** @return "tsc", "cntvct" or "clock_gettime" for a clock source value. */
ATF_API const char *atf_recorder_clock_name(uint32_t clock_source);
/** @return "direct" or "buffered" for an I/O method value. */
ATF_API const char *atf_recorder_io_name(uint32_t io_method);

#ifdef __cplusplus
}
#endif
#endif /* ATF_RECORDER_H */
