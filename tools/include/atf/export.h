/**
 * @file atf/export.h
 * @brief Sessions as timelines: the slice builder (call/return pairing,
 *        format-neutral) and `atf export` to Perfetto's protobuf trace,
 *        Chrome's JSON trace format and the Web Tracing Framework's binary
 *        files (WTF, atf/wtf.h).
 *
 * The slice builder turns one thread's index events into begin/end/instant
 * callbacks that always nest, whatever the file holds: returns without their
 * call are dropped and counted, calls never returned are closed at the
 * thread's last timestamp and marked, a return that skips frames closes
 * them first. Every exporter (Perfetto, Chrome JSON, WTF) shares it.
 * docs/export.md says what is done with each kind of unclean input.
 *
 * Memory: the builder holds the open calls of one thread (bounded by
 * ::ATF_SLICE_MAX_DEPTH); the exporters stream thread by thread and keep one
 * builder, so memory is bounded by call depth, never by the event count.
 */
#ifndef ATF_EXPORT_H
#define ATF_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include <atf/tools.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Slice builder --------------------------------------------------- */

typedef enum atf_slice_kind {
    ATF_SLICE_BEGIN = 1,    /**< a call opens a slice */
    ATF_SLICE_END = 2,      /**< the innermost open slice ends */
    ATF_SLICE_INSTANT = 3   /**< an exception: a point in time on the thread */
} atf_slice_kind;

/** Flags of an ::atf_slice. */
enum {
    ATF_SLICE_UNCLOSED = 1u << 0,  /**< END made up at the thread's last timestamp: the call never returned */
    ATF_SLICE_UNWOUND = 1u << 1,   /**< END made up: an outer frame's return or exception closed it */
    ATF_SLICE_CLIPPED = 1u << 2,   /**< BEGIN or END made up at the edge of the time window */
    ATF_SLICE_EXCEPTION = 1u << 3  /**< INSTANT of an exception event; END of a frame an exception left */
};

/** Deepest stack the builder keeps; deeper calls are dropped and counted. */
#define ATF_SLICE_MAX_DEPTH 65536u
/** A return is matched against at most this many open frames from the top. */
#define ATF_SLICE_MAX_SEARCH 1024u
/** ::atf_slice.seq of a made-up begin or end. */
#define ATF_SLICE_NO_SEQ UINT64_MAX

/** One callback's worth: a slice boundary or an instant. */
typedef struct atf_slice {
    atf_slice_kind kind;
    uint32_t flags;                /**< ATF_SLICE_* */
    uint32_t depth;                /**< nesting depth of the slice, 0 = outermost */
    uint64_t timestamp_ns;         /**< never lower than the previous callback's */
    uint64_t function_id;          /**< of the slice (END: of the slice it ends) */
    uint64_t seq;                  /**< index seq of the event, ::ATF_SLICE_NO_SEQ when made up */
    const atf_index_event *event;  /**< that event (only during the callback), NULL when made up */
    uint64_t begin_timestamp_ns;   /**< END: when its slice began (BEGIN, INSTANT: timestamp_ns) */
    uint64_t begin_seq;            /**< END: index seq of the call that opened it, ::ATF_SLICE_NO_SEQ
                                        when that begin was made up (clipped) */
} atf_slice;

/** @return 0 to go on, non-zero to stop (atf_slice_builder_push() returns it). */
typedef int (*atf_slice_fn)(void *user, const atf_slice *s);

/** What the builder saw and did, summed over the threads it was given. */
typedef struct atf_slice_counts {
    uint64_t events;             /**< index events pushed */
    uint64_t begins, ends, instants; /**< callbacks made */
    uint64_t unmatched_returns;  /**< returns with no open call of their function: dropped */
    uint64_t unclosed;           /**< calls never returned: closed at the thread's last timestamp */
    uint64_t unwound;            /**< frames a return of an outer frame closed (their returns are missing) */
    uint64_t depth_skips;        /**< layout 1: call_depth moved by more than one between two events */
    uint64_t too_deep;           /**< calls beyond ::ATF_SLICE_MAX_DEPTH: dropped */
    uint64_t unknown_kinds;      /**< event_kind not 1, 2 or 3: dropped */
    uint64_t backwards;          /**< timestamps lower than the previous event's: raised to it */
    uint64_t clipped;            /**< slices cut at the edge of the time window */
    uint32_t max_depth;          /**< deepest nesting seen */
} atf_slice_counts;

typedef struct atf_slice_builder atf_slice_builder;

/**
 * Creates a builder. Callbacks only fall in [from_ns, to_ns]: events before
 * the window still open and close frames (so the stack is right when it
 * starts), slices open at its start begin at from_ns and slices open at its
 * end end at to_ns, both marked ::ATF_SLICE_CLIPPED.
 * @param fn    called for every begin, end and instant; not NULL.
 * @param user  passed to @p fn.
 * @return ::ATF_OK, ::ATF_E_ARG, ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_slice_builder_create(atf_slice_builder **out, uint64_t from_ns, uint64_t to_ns,
                                            atf_slice_fn fn, void *user);
/** Frees the builder. NULL is allowed. */
ATF_API void atf_slice_builder_destroy(atf_slice_builder *b);
/** Starts a new thread (the previous one must be finished). Counts are kept. */
ATF_API void atf_slice_builder_reset(atf_slice_builder *b);
/**
 * Pushes the next event of the current thread, in file order.
 * @param has_depth 1 when ev->call_depth is meaningful (layout 1).
 * @return 0 go on; 1 the event lies after the window (the thread is done:
 *         finish it); -1 out of memory; otherwise the callback's non-zero value.
 */
ATF_API int atf_slice_builder_push(atf_slice_builder *b, uint64_t seq, const atf_index_event *ev, int has_depth);
/** Ends the current thread: closes what is still open (see the flags). @return as push. */
ATF_API int atf_slice_builder_finish(atf_slice_builder *b);
ATF_API const atf_slice_counts *atf_slice_builder_counts(const atf_slice_builder *b);

/* ---- Export ---------------------------------------------------------- */

typedef enum atf_export_format {
    ATF_EXPORT_PERFETTO = 1,   /**< Perfetto's protobuf Trace (ui.perfetto.dev) */
    ATF_EXPORT_CHROME_JSON = 2,/**< {"traceEvents":[...]} (chrome://tracing, speedscope, Perfetto) */
    ATF_EXPORT_WTF = 3         /**< WTF binary chunked files (.wtf-trace): atf_export_file() only */
} atf_export_format;

/** WTF: the span of one file, in ms: its times are u32 microseconds after
 *  its timebase (2^32 us = 71.58 min), rounded down to whole ms so that
 *  every file's timebase is exact. A longer session is written as parts. */
#define ATF_EXPORT_WTF_SPAN_MS 4294967u
/** WTF: scopes open at once in a zone, at most (the reference reader stops
 *  rescoping at 1024 open scopes); calls nested deeper are not written. */
#define ATF_EXPORT_WTF_MAX_DEPTH 1023u
/** WTF: files one export writes at most (76 hours); later times are written
 *  at the last microsecond of the last file and counted (a damaged
 *  timestamp must not make thousands of files). */
#define ATF_EXPORT_WTF_MAX_FILES 64u

/** Counts of one export (printed by `atf export` on stderr). */
typedef struct atf_export_stats {
    uint64_t threads;          /**< threads exported */
    uint64_t events;           /**< index events read */
    uint64_t details;          /**< detail events put into arguments */
    uint64_t anchors;          /**< timing anchors written as markers */
    uint64_t bytes;            /**< bytes written */
    uint64_t recovered_files;  /**< index/detail files read without a footer (crash-truncated) */
    uint64_t trailing_bytes;   /**< bytes of the exported threads' files that are no event (partial records) */
    uint64_t files;            /**< files written (WTF: more than one past ::ATF_EXPORT_WTF_SPAN_MS) */
    uint64_t too_deep_for_format; /**< WTF: calls nested deeper than ::ATF_EXPORT_WTF_MAX_DEPTH, not written */
    uint64_t file_cuts;        /**< WTF: scopes open at the end of one file, cut there and begun again in the next */
    uint64_t clamped;          /**< WTF: events past ::ATF_EXPORT_WTF_MAX_FILES files, written at the last one's end */
    uint64_t wtf_parts;        /**< WTF: bit k set when part k was written (atf_export_wtf_part_path()); a part
                                    with nothing in its span is not */
    atf_slice_counts slices;
} atf_export_stats;

/**
 * Writes the session, thread directory or index file at @p path to @p out
 * as @p format; @p opts selects threads and a time window and reports
 * progress (atf/tools.h).
 * @param stats NULL or receives the counts (also filled on failure, so far).
 * @return ::ATF_OK; an open error as atf_tool_dump(); ::ATF_E_IO when @p out
 *         cannot be written; ::ATF_E_NOMEM; ::ATF_E_ARG for ::ATF_EXPORT_WTF
 *         (files only: atf_export_file()).
 */
ATF_API atf_status atf_export(FILE *out, atf_export_format format, const char *path, const atf_tool_options *opts,
                              atf_export_stats *stats, atf_error *err);

/**
 * Writes the export into the file @p out_path (created, or truncated).
 * Perfetto and Chrome JSON: atf_export() into that file. WTF (only here): a
 * file can time ::ATF_EXPORT_WTF_SPAN_MS after its timebase, so a session
 * that lasts longer is written as parts, each with its own timebase: @p
 * out_path, then `STEM.part2.wtf-trace`, `STEM.part3.wtf-trace`, ... where
 * STEM is @p out_path without its `.wtf-trace` (docs/export.md); slices open
 * across a boundary are cut there and begun again in the next part.
 * @param stats NULL or receives the counts; stats->files the files written.
 * @return as atf_export(); ::ATF_E_IO when a file cannot be created or written.
 */
ATF_API atf_status atf_export_file(const char *out_path, atf_export_format format, const char *path,
                                   const atf_tool_options *opts, atf_export_stats *stats, atf_error *err);

/**
 * Name of WTF part @p part (0 = @p out_path itself) in @p buf.
 * @return 0, or -1 when it does not fit in @p cap bytes.
 */
ATF_API int atf_export_wtf_part_path(char *buf, size_t cap, const char *out_path, uint64_t part);

/** "perfetto" / "chrome-json" / "wtf" to the format, 0 when unknown. */
ATF_API atf_export_format atf_export_format_parse(const char *name);

/**
 * The names atf_export_format_parse() takes, for a message: "perfetto,
 * chrome-json or wtf" (the exports into files that the formats' tools parts
 * provide, from the registry of formats, last), in @p buf (truncated to @p cap).
 */
ATF_API void atf_export_format_names(char *buf, size_t cap);

/**
 * NULL when @p format is written to a stream (atf_export()); else, for an
 * export into files (atf_export_file() only), the sentence that says so.
 */
ATF_API const char *atf_export_stream_refusal(atf_export_format format);

/** Before an export into files: notes on @p out_path to @p diag (a name the format's own tools do not look for). */
ATF_API void atf_export_file_notes(FILE *diag, atf_export_format format, const char *out_path);

/** After an export into files: one line to @p diag on what was written (the files, what was cut or clamped). */
ATF_API void atf_export_file_summary(FILE *diag, atf_export_format format, const char *out_path,
                                     const atf_export_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* ATF_EXPORT_H */
