/**
 * @file atf/tools.h
 * @brief The work behind the `atf` command: path detection, info, the
 *        canonical dump, merge and structural checks. The command-line front
 *        end only parses arguments and calls these.
 *
 * Output goes to a stdio stream; errors are reported through ::atf_error.
 * None of these functions keep state between calls.
 */
#ifndef ATF_TOOLS_H
#define ATF_TOOLS_H

#include <stdio.h>

#include <atf/finding.h>   /* atf_severity, atf_finding: the findings of the validator and of the readers */
#include <atf/session.h>
#include <atf/tool_options.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum atf_path_kind {
    ATF_PATH_UNKNOWN = 0,
    ATF_PATH_INDEX,      /**< a file starting with "ATI2" */
    ATF_PATH_DETAIL,     /**< a file starting with "ATD2" */
    ATF_PATH_THREAD,     /**< a directory holding index.atf */
    ATF_PATH_SESSION,    /**< a directory holding manifest.json or thread_* directories */
    ATF_PATH_ROOT,       /**< a directory of sessions: the recorder's or tracer's output root
                              (session_X/pid_N/ directories), or a session_X/ with several pid_N/ */
    ATF_PATH_FORMAT      /**< a file of another format of the registry (formats/formats.cmake), claimed by
                              that format's bid (its magic or its name): info, dump and validate read it;
                              atf_path_format() names it */
} atf_path_kind;

/**
 * The name of the format (as its module gives it, upper case) whose bid claims the regular
 * file @p path (its first bytes and its name), as atf_path_detect() found
 * ::ATF_PATH_FORMAT; NULL when no format of the registry claims it or it
 * cannot be read. The string is static.
 */
ATF_API const char *atf_path_format(const char *path);

/**
 * Says what @p path is. A directory holding exactly one `pid_*` session
 * (the tracer's `session_YYYYMMDD_HHMMSS/`) resolves to that session: the
 * resolved path is written to @p resolved (NUL-terminated, cap bytes).
 */
ATF_API atf_path_kind atf_path_detect(const char *path, char *resolved, size_t resolved_cap,
                                      atf_error *err);

/**
 * The sessions under @p path, sorted: the path itself when it is a session
 * (or a session_X directory holding one pid_N); its pid_N directories; or
 * the pid_N directories of its session_X directories (an output root).
 * @param out receives an array of @p count malloc'd paths (free with
 *            atf_session_list_free()).
 * @return ::ATF_OK, ::ATF_E_NOT_FOUND (no session there), ::ATF_E_IO, ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_session_list(const char *path, char ***out, size_t *count, atf_error *err);
ATF_API void atf_session_list_free(char **list, size_t count);

/*
 * info, dump, merge and export read every readable thread of a session: a
 * file that cannot be read costs only itself. For each file that was not
 * read whole, one line goes to opts->diag (the file, what was recovered,
 * what was ignored; or why it could not be read). A directory of sessions
 * (::ATF_PATH_ROOT) is read session by session, each named in the output.
 * @return ::ATF_OK (files may be crash-truncated: every complete event was
 *         read); ::ATF_E_DAMAGED when a file was damaged or could not be
 *         parsed (the rest was read); ::ATF_E_IO when a file could not be read
 *         at all (permission, not a regular file); or the error that stopped
 *         the whole run.
 */

/** `atf info`: headers, footers and what recovery found. */
ATF_API atf_status atf_tool_info(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
/** `atf dump`: every event; with opts->json the canonical dump (docs/dump-format.md). */
ATF_API atf_status atf_tool_dump(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);
/** `atf merge`: all threads of a session in (timestamp, thread, seq) order. */
ATF_API atf_status atf_tool_merge(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err);

/** Sort keys of `atf report` (largest first; names A to Z). */
typedef enum atf_report_sort {
    ATF_REPORT_SORT_TOTAL = 0,   /**< inclusive time */
    ATF_REPORT_SORT_SELF,        /**< self time */
    ATF_REPORT_SORT_CALLS,       /**< number of calls */
    ATF_REPORT_SORT_NAME         /**< function name */
} atf_report_sort;

typedef struct atf_report_options {
    unsigned json;         /**< one JSON object (docs: README, `atf report`) instead of a text table */
    unsigned per_thread;   /**< one table per thread instead of one for the session */
    atf_report_sort sort;
    unsigned reserved[2];
} atf_report_options;
#define ATF_REPORT_OPTIONS_INIT { 0u, 0u, ATF_REPORT_SORT_TOTAL, { 0u, 0u } }

/** What atf_tool_report() read and how clean it was. */
typedef struct atf_report_stats {
    uint64_t events;             /**< index events read */
    uint64_t calls;              /**< frames counted (returned, unwound or never returned) */
    uint64_t unclosed;           /**< calls never returned: ended at their thread's last event */
    uint64_t unwound;            /**< frames an outer return or an exception closed */
    uint64_t unmatched_returns;  /**< returns with no open call of their function: dropped */
    uint64_t exceptions;         /**< exception events */
    uint64_t too_deep, unknown_kinds, backwards, clipped;  /**< as ::atf_slice_counts */
    uint64_t threads;            /**< threads read */
    uint64_t functions_max;      /**< most functions seen on one thread (the table's size) */
    uint32_t max_depth;          /**< deepest nesting (the stack's size) */
} atf_report_stats;

/**
 * `atf report`: per function, calls, total (inclusive) and self time, for the
 * session or (ro->per_thread) per thread. Calls and returns pair as in
 * `atf export` (the slice builder, atf/export.h): an exception or a return of
 * an outer frame ends the frames above it at its timestamp, a call that never
 * returned ends at its thread's last event, a return with no call is dropped.
 * A recursive function's total time counts its outermost activations only;
 * self time is inclusive time minus the inclusive time of direct callees.
 * Streams each thread's index lane once: memory is functions x call depth.
 * When anything was unclean, one line to opts->diag says how many of each.
 * @param stats NULL or receives the counts.
 * @return as atf_tool_dump() (atf/tools.h above), ::ATF_E_ARG for bad options.
 */
ATF_API atf_status atf_tool_report(FILE *out, const char *path, const atf_tool_options *opts,
                                   const atf_report_options *ro, atf_report_stats *stats, atf_error *err);

/** Options of atf_tool_demo(). */
typedef struct atf_demo_options {
    atf_layout layout;        /**< 1 or 2 */
    unsigned threads;         /**< number of threads (>= 1) */
    uint64_t events;          /**< index events per thread */
    unsigned detail_every;    /**< every Nth event gets an ARM64 detail event (0: no detail lane) */
    uint64_t seed;            /**< deterministic content */
    unsigned force;           /**< 1: write into a directory that is not empty (files of the same names are
                                   replaced, others stay); 0: refuse it with ::ATF_E_ARG */
} atf_demo_options;
#define ATF_DEMO_OPTIONS_INIT { ATF_LAYOUT_2, 3u, 1000u, 4u, 1u, 0u }

/**
 * Writes a synthetic session (nested call/return/exception events, ARM64
 * detail payloads on every detail_every-th event, a symbol table) into @p dir
 * with the session writer. Deterministic for a given seed. @p dir must not
 * exist or be empty unless opts->force (a session written over another one
 * would mix their threads).
 * @return ::ATF_OK; ::ATF_E_ARG for bad options or a directory that is not
 *         empty (or not a directory); the session writer's errors.
 */
ATF_API atf_status atf_tool_demo(const char *dir, const atf_demo_options *opts, atf_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ATF_TOOLS_H */
