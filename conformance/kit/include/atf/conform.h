/**
 * @file atf/conform.h
 * @brief Test kits for third-party ATF writers and readers (`atf conform`).
 *
 * Three parts (conformance/kit/README.md documents the formats):
 *
 *  - **Scenarios**: a line-oriented text format that says which session a
 *    writer must produce (layout, platform bytes, threads, symbols, and every
 *    index event with its detail event and payload). The reader below parses
 *    it in a single streaming pass with bounded memory; the writer emits it.
 *    C adapters may use them; adapters in other languages parse the format
 *    themselves (it is one record per line, space-separated fields).
 *  - **Writer kit** (atf_conform_writer_run()): generates the built-in
 *    scenarios deterministically, runs an adapter command on each
 *    (`CMD SCENARIO_FILE OUTPUT_DIR`), validates the session it writes clause
 *    by clause (atf/validator.h) and compares every decoded event with the
 *    scenario; reports as text, JSON (schema "atf-conform-writer/1") or JUnit.
 *  - **Reader kit** (atf_conform_reader_run()): runs one or more reader
 *    commands (`CMD PATH`, printing the canonical dump or exiting non-zero to
 *    reject) over the golden corpus and grades each outcome against the
 *    case's expectation; reports as a text table, JSON (schema
 *    "atf-conform-reader/1") and an HTML matrix.
 *
 * Commands are shell command lines: they run as `/bin/sh -c 'CMD "$@"'` with
 * the arguments as positional parameters, in their own process group, stdin
 * from /dev/null, killed (the whole group) when the time limit expires.
 *
 * Thread-safety: the kits run every process from the calling thread (the
 * reader kit's parallel runs share one poll loop). Different threads may run
 * kits at once with different options on a native system; under qemu-user,
 * spawning from several threads deadlocks. The only process-wide state is
 * the list of running process groups behind atf_conform_abort_children().
 */
#ifndef ATF_CONFORM_H
#define ATF_CONFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <atf/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Scenario files ---------------------------------------------------- */

/** Version in the first line of a scenario file (`atf-scenario 1`). */
#define ATF_SCENARIO_VERSION 1
/** Limits the reader enforces (a file beyond them is refused with an error). */
#define ATF_SCENARIO_MAX_THREADS 16384u
#define ATF_SCENARIO_MAX_SYMBOLS 1048576u
#define ATF_SCENARIO_MAX_PAYLOAD (16u * 1024u * 1024u)  /**< bytes of one detail payload */
#define ATF_SCENARIO_NAME_MAX 64u                       /**< bytes of a scenario name */
#define ATF_SCENARIO_TEXT_MAX 1024u                     /**< bytes of a description or symbol name */

/** One `thread` record. */
typedef struct atf_scenario_thread {
    uint64_t id;             /**< session thread id K: the directory thread_K/ */
    uint32_t os_thread_id;   /**< header thread_id (and, layout 1, every event's thread_id) */
    int detail;              /**< 1: the thread has a detail lane (detail.atf), 0: none */
} atf_scenario_thread;

/** One `symbol` record (a manifest symbol). */
typedef struct atf_scenario_symbol {
    uint64_t function_id;
    const char *name;        /**< UTF-8, owned by the scenario */
} atf_scenario_symbol;

/** Everything before the events. */
typedef struct atf_scenario_info {
    char name[ATF_SCENARIO_NAME_MAX + 1];
    char description[ATF_SCENARIO_TEXT_MAX + 1]; /**< "" if absent */
    unsigned layout;         /**< 1 or 2 */
    unsigned arch, os, clock_type;
    size_t thread_count;
    const atf_scenario_thread *threads;  /**< sorted by id */
    size_t symbol_count;
    const atf_scenario_symbol *symbols;  /**< sorted by function_id */
    uint64_t event_count;    /**< the `events` record: number of `e` records */
} atf_scenario_info;

/** One `e` record: an index event and, optionally, its detail event. */
typedef struct atf_scenario_event {
    size_t thread_index;     /**< into info.threads */
    uint64_t thread;         /**< the thread id K */
    uint64_t timestamp_ns;
    uint64_t function_id;
    uint32_t event_kind;     /**< 1 call, 2 return, 3 exception */
    uint32_t call_depth;     /**< stored in layout 1 only */
    uint32_t thread_id;      /**< stored in layout 1 only (index and detail event) */
    int has_detail;          /**< 0: no detail event (the fields below are 0) */
    uint16_t event_type;     /**< detail event_type */
    uint16_t flags;          /**< detail flags */
    uint64_t timestamp;      /**< detail timestamp */
    const uint8_t *payload;  /**< payload_size bytes; valid until the next call; NULL if empty */
    uint32_t payload_size;
} atf_scenario_event;

typedef struct atf_scenario_reader atf_scenario_reader;

/**
 * Opens a scenario file and reads every record up to and including `events`.
 * Checks syntax, ranges and the rules of the README (a scenario describes a
 * conformant session).
 * @param out  receives the reader; NULL on failure.
 * @param err  NULL, or receives file, byte offset of the bad line and a
 *             message starting with "line N:".
 * @return ::ATF_OK, ::ATF_E_IO, ::ATF_E_NOMEM, or ::ATF_E_FIELD / ::ATF_E_LIMIT
 *         for a malformed file.
 */
ATF_API atf_status atf_scenario_open(atf_scenario_reader **out, const char *path, atf_error *err);
/** @return the header records (owned by the reader). */
ATF_API const atf_scenario_info *atf_scenario_reader_info(const atf_scenario_reader *r);
/**
 * Reads the next `e` record.
 * @return 1 and fills @p ev; 0 at the end (the `end` record was read after
 *         exactly info.event_count events and nothing but blank lines and
 *         comments follows); -1 on error (in @p err). After an error every
 *         later call returns -1.
 */
ATF_API int atf_scenario_next(atf_scenario_reader *r, atf_scenario_event *ev, atf_error *err);
/** Index events read so far for thread @p thread_index (its next seq). */
ATF_API uint64_t atf_scenario_thread_events(const atf_scenario_reader *r, size_t thread_index);
/** Detail events read so far for thread @p thread_index (its next detail seq). */
ATF_API uint64_t atf_scenario_thread_details(const atf_scenario_reader *r, size_t thread_index);
/** Releases the reader. NULL is allowed. */
ATF_API void atf_scenario_close(atf_scenario_reader *r);

/** Writes the header records of @p info (threads and symbols as given). @return ::ATF_OK or ::ATF_E_IO. */
ATF_API atf_status atf_scenario_write_header(FILE *out, const atf_scenario_info *info);
/** Writes one `e` record (ev->thread is used; thread_index is ignored). */
ATF_API atf_status atf_scenario_write_event(FILE *out, const atf_scenario_event *ev);
/** Writes the `end` record. */
ATF_API atf_status atf_scenario_write_end(FILE *out);

/* ---- Built-in scenarios ------------------------------------------------ */

/** A built-in scenario of the writer kit. */
typedef struct atf_builtin_scenario {
    const char *name;
    const char *description;
    unsigned layout;
    uint64_t events;         /**< index events it holds */
    unsigned slow;           /**< 1: large (skipped by --no-slow) */
    unsigned arch;           /**< its arch (1 x86_64, 2 arm64): the payloads are that arch's */
    const char *subject;     /**< what it exercises, shared by its variants in each arch and layout ("one_event") */
    unsigned threads;        /**< threads it has */
} atf_builtin_scenario;

ATF_API size_t atf_builtin_scenario_count(void);
/** @return scenario @p i, or NULL. */
ATF_API const atf_builtin_scenario *atf_builtin_scenario_at(size_t i);
/** @return the scenario named @p name, or NULL. */
ATF_API const atf_builtin_scenario *atf_builtin_scenario_find(const char *name);
/** Writes the scenario file of built-in scenario @p name to @p path (deterministic bytes). */
ATF_API atf_status atf_builtin_scenario_write(const char *name, const char *path, atf_error *err);

/**
 * Writes the scenario files of built-in scenarios into @p dir (created if
 * missing) as `DIR/NAME.scenario`, for adapter authors to test offline.
 * @param names  scenario names; NULL/0: every built-in scenario.
 * @param out    NULL, or receives one line per file written (its path).
 * @return ::ATF_OK, ::ATF_E_NOT_FOUND (unknown name), ::ATF_E_IO.
 */
ATF_API atf_status atf_builtin_scenarios_export(const char *dir, const char *const *names, size_t count, FILE *out,
                                                atf_error *err);

/* ---- Report formats ------------------------------------------------------ */

typedef enum atf_conform_format {
    ATF_CONFORM_TEXT = 0,
    ATF_CONFORM_JSON,
    ATF_CONFORM_JUNIT        /**< writer kit only */
} atf_conform_format;

/** Exit status of the run functions (also the `atf conform` exit status). */
enum { ATF_CONFORM_PASS = 0, ATF_CONFORM_FAIL = 1, ATF_CONFORM_ERROR = 2 };

/* ---- Writer kit -------------------------------------------------------- */

/** Options of atf_conform_writer_run(). Initialise with ::ATF_CONFORM_WRITER_OPTIONS_INIT. */
typedef struct atf_conform_writer_options {
    const char *adapter;                 /**< shell command, run as `CMD SCENARIO_FILE OUTPUT_DIR` */
    const char *const *scenarios;        /**< built-in scenario names or name prefixes to run; NULL/0: all */
    size_t scenario_count;
    const char *const *scenario_files;   /**< scenario files of one's own to run as well */
    size_t scenario_file_count;
    const char *keep_dir;                /**< NULL: work in a temporary directory, removed after;
                                              else keep DIR/<scenario>/{scenario.txt,session/} */
    double timeout_s;                    /**< per adapter run; 0: 60 (x10 for slow scenarios) */
    unsigned strict;                     /**< 1: warnings of the validator fail a scenario too */
    unsigned no_slow;                    /**< 1: skip slow scenarios unless named explicitly */
    atf_conform_format format;
    unsigned max_mismatches;             /**< listed per scenario and check; 0: 10 */
    unsigned reserved[4];
} atf_conform_writer_options;
#define ATF_CONFORM_WRITER_OPTIONS_INIT \
    { NULL, NULL, 0u, NULL, 0u, NULL, 0.0, 0u, 0u, ATF_CONFORM_TEXT, 0u, { 0u, 0u, 0u, 0u } }

/**
 * Runs the writer kit and prints the report on @p out.
 * @param log  NULL, or a stream for progress lines (one per scenario, as it ends).
 * First runs `CMD --capabilities`: an adapter may declare what it can write
 * (README, "Capabilities"); scenarios outside it are not applicable.
 * @return ::ATF_CONFORM_PASS (every scenario tested passed; skipped and not
 *         applicable ones are listed), ::ATF_CONFORM_FAIL, or
 *         ::ATF_CONFORM_ERROR (bad options, unknown scenario or prefix,
 *         unreadable scenario file, malformed capability declaration, a
 *         --keep that is no writable directory, cannot create the work
 *         directory, or no scenario was tested at all; @p err says why). In
 *         text format nothing more is printed on @p out for an error before
 *         the run; JSON and JUnit always print a well-formed result
 *         (`"verdict": "error"` and `"error"`, or a JUnit `<error>`).
 */
ATF_API int atf_conform_writer_run(FILE *out, FILE *log, const atf_conform_writer_options *o, atf_error *err);

/** Prints the built-in scenarios (name, layout, events, description) in @p format (text or JSON). */
ATF_API atf_status atf_conform_list_scenarios(FILE *out, atf_conform_format format);

/* ---- Reader kit -------------------------------------------------------- */

/** Options of atf_conform_reader_run(). Initialise with ::ATF_CONFORM_READER_OPTIONS_INIT. */
typedef struct atf_conform_reader_options {
    const char *const *readers;          /**< shell commands, run as `CMD PATH` */
    size_t reader_count;                 /**< >= 1 */
    const char *corpus_dir;              /**< directory of NAME.expect.json files and NAME/ inputs */
    const char *const *cases;            /**< case names or prefixes (`n_idx`) to run; NULL/0: all */
    size_t case_count;
    double timeout_s;                    /**< per case; 0: 10 */
    unsigned strict;                     /**< 1: every invalid (n_) case must be rejected */
    atf_conform_format format;           /**< text or JSON on @p out */
    const char *html_path;               /**< NULL, or write the HTML matrix there */
    unsigned jobs;                       /**< reader runs at once (1..64); 0: twice the online CPUs */
    unsigned reserved[4];
} atf_conform_reader_options;
#define ATF_CONFORM_READER_OPTIONS_INIT \
    { NULL, 0u, NULL, NULL, 0u, 0.0, 0u, ATF_CONFORM_TEXT, NULL, 0u, { 0u, 0u, 0u, 0u } }

/**
 * Runs the reader kit and prints the results table on @p out.
 * @return ::ATF_CONFORM_PASS (every outcome of every reader is right),
 *         ::ATF_CONFORM_FAIL, or ::ATF_CONFORM_ERROR (no corpus, no case
 *         matched, a malformed expect file, a case whose expected dump is
 *         missing: a broken corpus, cannot write the HTML). With JSON, an
 *         error before the report still prints a result object
 *         (`"verdict": "error"`).
 */
ATF_API int atf_conform_reader_run(FILE *out, FILE *log, const atf_conform_reader_options *o, atf_error *err);

/**
 * Kills (SIGKILL) the process groups of every adapter or reader command the
 * kits are running. Async-signal-safe: call it from a SIGINT/SIGTERM handler
 * so that an interrupted kit leaves no command behind (each runs in its own
 * process group, which the terminal's signals do not reach).
 */
ATF_API void atf_conform_abort_children(void);

#ifdef __cplusplus
}
#endif
#endif /* ATF_CONFORM_H */
