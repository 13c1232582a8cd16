/**
 * @file atf/session.h
 * @brief Session directories: manifest.json, the session reader, the
 *        cross-thread merge and the session writer.
 *
 * A session directory (the ADA tracer's `pid_N/`) holds `manifest.json` and
 * one `thread_K/` directory per thread with `index.atf` and, optionally,
 * `detail.atf`. K is the thread's manifest id.
 */
#ifndef ATF_SESSION_H
#define ATF_SESSION_H

#include <stdint.h>
#include <stddef.h>

#include <atf/reader.h>
#include <atf/writer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Manifest -------------------------------------------------------- */

typedef struct atf_manifest_thread {
    uint64_t id;            /**< threads[].id: names the directory thread_<id> */
    int has_detail;         /**< threads[].has_detail: 1, 0, or -1 when the key is absent */
} atf_manifest_thread;

typedef struct atf_manifest_module {
    uint64_t module_id;
    uint64_t base_address;
    uint64_t size;
    const char *path;       /**< owned by the manifest, may be "" */
    const char *uuid;
} atf_manifest_module;

typedef struct atf_manifest_symbol {
    uint64_t function_id;
    uint64_t module_id;
    uint64_t symbol_index;
    const char *name;
} atf_manifest_symbol;

typedef struct atf_timing_anchor {
    uint64_t host_time_ns;  /**< trace clock */
    int64_t media_time_value;
    int32_t media_time_scale; /**< media time = value / scale seconds */
} atf_timing_anchor;

/** Decoded manifest. Unknown keys are ignored. */
typedef struct atf_manifest {
    size_t thread_count;
    atf_manifest_thread *threads;
    uint64_t time_start_ns, time_end_ns;
    int has_clock_type;
    uint32_t clock_type;
    char format_version[16];  /**< "" if absent; a longer value is cut at a character boundary */
    size_t module_count;
    atf_manifest_module *modules;
    size_t symbol_count;
    atf_manifest_symbol *symbols;   /**< sorted by function_id */
    size_t anchor_count;
    atf_timing_anchor *anchors;
    uint64_t events_dropped;        /**< "events_dropped" if present, else 0 */
    void *priv_;                    /**< internal */
} atf_manifest;

/**
 * Parses manifest JSON from memory (at most 64 MiB).
 * @return ::ATF_OK, ::ATF_E_MANIFEST with err->message naming the key, ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_manifest_parse(atf_manifest **out, const char *json, size_t size,
                                      const char *name, atf_error *err);
ATF_API atf_status atf_manifest_load(atf_manifest **out, const char *path, atf_error *err);
ATF_API void atf_manifest_free(atf_manifest *m);
/** @return the symbol name of @p function_id, or NULL. O(log n). */
ATF_API const char *atf_manifest_symbol_name(const atf_manifest *m, uint64_t function_id);

/* ---- Session reader -------------------------------------------------- */

typedef struct atf_session_thread {
    uint64_t id;                 /**< thread_<id> */
    char *dir;                   /**< path of the thread directory */
    atf_index_reader *index;     /**< NULL when index.atf is missing or could not be read (see status) */
    atf_detail_reader *detail;   /**< NULL when there is no detail.atf, or it could not be read (see status) */
    int manifest_has_detail;     /**< 1 or 0 as the manifest says; -1: not listed, or has_detail absent */
    int listed;                  /**< listed in manifest.json (else a discovered thread_<id>/ directory) */
    atf_status status;           /**< ATF_OK, or why a file of this thread could not be read:
                                      ::ATF_E_IO (permission, not a regular file...), ::ATF_E_NOT_FOUND
                                      (no index.atf), or the reader's error for a damaged file */
    atf_error error;             /**< file, offset, field and message when status is not ATF_OK */
} atf_session_thread;

typedef struct atf_session atf_session;

/**
 * Opens a session directory: reads manifest.json (if missing, discovers the
 * thread_* directories and records a warning), opens every thread's files.
 *
 * One bad file never costs the others (BH-002): a thread whose index.atf or
 * detail.atf cannot be read (missing, permission, not a regular file, or
 * damaged beyond recovery) is kept in the list with its status and error
 * set and its reader NULL, and every other thread is opened. A thread_<id>/
 * directory the manifest does not list and that holds no file yet (a writer
 * killed between creating it and its index.atf) is crash-truncated: status
 * ATF_OK, both readers NULL, 0 events, and a session warning;
 * atf_session_unreadable_count() says how many. A manifest.json that cannot
 * be read or parsed is reported by atf_session_manifest_error() and the
 * thread directories are discovered instead. An empty manifest.json, or one
 * cut by a crash while it was being replaced (SPEC 7a.14: a proper prefix of
 * a JSON object, then zeros), is read as absent: no manifest error, and
 * atf_session_manifest_note() says so. Crash-truncated and damaged
 * files that still open are in their readers' info (state, events
 * recovered, trailing bytes).
 * @return ::ATF_OK; ::ATF_E_NOMEM; or, when there is nothing to read at
 *         all, the manifest's error or ::ATF_E_NOT_FOUND (naming the path).
 */
ATF_API atf_status atf_session_open(atf_session **out, const char *dir, const atf_read_options *opts,
                                    atf_error *err);
ATF_API void atf_session_close(atf_session *s);
ATF_API size_t atf_session_thread_count(const atf_session *s);
/** Threads whose status is not ATF_OK (a file of theirs could not be read). */
ATF_API size_t atf_session_unreadable_count(const atf_session *s);
/** Why manifest.json could not be used (it exists but cannot be read or parsed), or NULL. */
ATF_API const atf_error *atf_session_manifest_error(const atf_session *s);
/** When manifest.json was there but read as absent because a crash left it
 *  empty or cut (SPEC 7a.14), one line saying so (also among the session's
 *  warnings); else NULL. */
ATF_API const char *atf_session_manifest_note(const atf_session *s);
/** Threads sorted by id. */
ATF_API const atf_session_thread *atf_session_thread_at(const atf_session *s, size_t i);
/** @return the manifest, or NULL if the session has none. */
ATF_API const atf_manifest *atf_session_manifest(const atf_session *s);
ATF_API size_t atf_session_warning_count(const atf_session *s);
ATF_API const char *atf_session_warning(const atf_session *s, size_t i);

/* ---- Merge ----------------------------------------------------------- */

/** One event of the merged stream. */
typedef struct atf_merged_event {
    size_t thread_index;    /**< into atf_session_thread_at() */
    uint64_t thread_id;     /**< session thread id */
    uint64_t seq;           /**< position in that thread's index file */
    atf_index_event event;
} atf_merged_event;

typedef struct atf_merge atf_merge;

/**
 * Streaming k-way merge of the index files of @p s by (timestamp_ns,
 * thread id, seq), with a heap of one cursor per thread: memory is O(threads).
 * Within a thread events keep file order.
 */
ATF_API atf_status atf_merge_create(atf_merge **out, const atf_session *s);
/** @return 1 and fills @p out, or 0 at the end. */
ATF_API int atf_merge_next(atf_merge *m, atf_merged_event *out);
ATF_API void atf_merge_destroy(atf_merge *m);

/* ---- Session writer -------------------------------------------------- */

typedef struct atf_session_writer atf_session_writer;
typedef struct atf_thread_writer atf_thread_writer;

/**
 * Creates @p dir (and missing parents) and writes an initial manifest.json.
 * @p opts gives layout, arch, os, clock and checksum for every thread (thread_id is ignored).
 */
ATF_API atf_status atf_session_writer_create(atf_session_writer **out, const char *dir,
                                             const atf_writer_options *opts, atf_error *err);
/**
 * Adds thread @p id: creates thread_<id>/index.atf and, when @p with_detail,
 * thread_<id>/detail.atf. The thread writer is owned by the session writer.
 */
ATF_API atf_status atf_session_writer_add_thread(atf_session_writer *sw, uint64_t id, uint32_t os_thread_id,
                                                 int with_detail, atf_thread_writer **tw, atf_error *err);
/**
 * Appends an index event and, if @p detail is not NULL, its detail event,
 * filling both links (ev->detail_seq and detail->index_seq are overwritten).
 * @param seq NULL or receives the index sequence number.
 */
ATF_API atf_status atf_thread_writer_append(atf_thread_writer *tw, const atf_index_event *ev,
                                            const atf_detail_event *detail, uint64_t *seq);
ATF_API atf_index_writer *atf_thread_writer_index(atf_thread_writer *tw);
ATF_API atf_detail_writer *atf_thread_writer_detail(atf_thread_writer *tw);

/** Adds a module / symbol to the manifest (strings are copied).
 *  @return ::ATF_OK, ::ATF_E_ARG when a string is not valid UTF-8 (JSON could
 *          not hold it), ::ATF_E_NOMEM. */
ATF_API atf_status atf_session_writer_add_module(atf_session_writer *sw, const atf_manifest_module *m);
ATF_API atf_status atf_session_writer_add_symbol(atf_session_writer *sw, const atf_manifest_symbol *s);
ATF_API atf_status atf_session_writer_add_anchor(atf_session_writer *sw, const atf_timing_anchor *a);
/** Events dropped by the producer (recorded in the manifest as events_dropped). */
ATF_API void atf_session_writer_set_dropped(atf_session_writer *sw, uint64_t dropped);
/** Rewrites manifest.json atomically (temp file + rename). */
ATF_API atf_status atf_session_writer_write_manifest(atf_session_writer *sw, atf_error *err);
/** Finalizes every thread, then writes the final manifest. Idempotent. */
ATF_API atf_status atf_session_writer_finalize(atf_session_writer *sw, int sync, atf_error *err);
/** Finalizes if needed and frees. NULL is allowed. */
ATF_API atf_status atf_session_writer_close(atf_session_writer *sw);

#ifdef __cplusplus
}
#endif
#endif /* ATF_SESSION_H */
