/**
 * @file atf/validator.h
 * @brief Clause-by-clause validation of ATF files, threads and sessions
 *        against conformance/SPEC.md, and the report writers behind
 *        `atf validate` (text, JSON schema "atf-validate/1", JUnit XML).
 *
 * The validator reads the bytes itself: it reports every clause that
 * applies, with a byte offset, even for files the readers refuse at open
 * (bad magic, a footer count larger than the file, a checksum mismatch...).
 * One run produces an immutable report (::atf_validation) holding the
 * findings in a deterministic order, the clauses evaluated, and the number
 * of events recovered from every file that had no footer.
 *
 * Guarantees on any input: no crash, no hang (every loop advances through
 * the file), memory bounded by the input (at most one bit per index event for
 * link checking, a manifest of at most 64 MiB) and by the finding limits of
 * ::atf_validate_options. Files are read in a single pass (the index file a
 * second time only when forward links are broken).
 *
 * Scope by kind of input:
 *  - a lone index or detail file: the clauses of that file (headers, events,
 *    footer, ARM64 payloads, crash recovery, checksums);
 *  - a thread directory: both files plus the cross-lane clauses (LINK-*,
 *    GEN-LAY-001);
 *  - a session directory: every thread plus the manifest (SES-MAN-*) and
 *    the cross-thread clauses (GEN-LAY-002).
 *
 * Thread-safety: the functions keep no global state; different reports may be
 * built and read on different threads at once. A report is read-only after
 * it is returned and may be read by several threads.
 */
#ifndef ATF_VALIDATOR_H
#define ATF_VALIDATOR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <atf/error.h>
#include <atf/finding.h>
#include <atf/tools.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Clause table ---------------------------------------------------- */

/** One testable rule of conformance/SPEC.md. */
typedef struct atf_clause {
    const char *id;          /**< stable clause ID, e.g. "IDX-HDR-003" */
    const char *group;       /**< ID without the number, e.g. "IDX-HDR", "LINK" */
    atf_severity severity;   /**< default severity of a finding */
    unsigned recoverable;    /**< 1: the spec marks it recoverable (a file without a footer makes its findings warnings) */
    const char *summary;     /**< the rule in one line */
    const char *hint;        /**< how to fix a breach, in one line (what a writer changes) */
} atf_clause;

/** @return the number of clauses (every clause ID of SPEC.md). */
ATF_API size_t atf_clause_count(void);
/** @return clause @p i in the spec's section order, or NULL if i >= atf_clause_count(). */
ATF_API const atf_clause *atf_clause_at(size_t i);
/** @return the clause with this ID, or NULL (also for NULL). */
ATF_API const atf_clause *atf_clause_find(const char *id);
/** @return the index of clause @p id in the table, or (size_t)-1. */
ATF_API size_t atf_clause_index(const char *id);

/**
 * Writes the clause table, one clause a line: ID, a tab, "error" or
 * "warning", a tab, the one-line summary, a tab, the one-line hint
 * (`atf validate --list-clauses`).
 * @return ::ATF_OK or ::ATF_E_IO.
 */
ATF_API atf_status atf_clause_table_write(FILE *out);

/* ---- Options --------------------------------------------------------- */

/** Options of every validation entry point. Initialise with ::ATF_VALIDATE_OPTIONS_INIT. */
typedef struct atf_validate_options {
    unsigned strict;          /**< 1: warnings make the input nonconformant */
    unsigned no_verify;       /**< 1: do not compute checksums (CRC-001/002 are not evaluated) */
    unsigned max_per_clause;  /**< findings listed per file and clause; further ones are summarised
                                   in one more finding. 0: 10 */
    unsigned max_findings;    /**< findings listed in all; further ones are summarised in one
                                   last finding. 0: 10000 */
    /** NULL, or called after each thread of a session (done, total threads) and
     *  once at the end: progress for long validations. */
    void (*progress)(void *user, uint64_t done, uint64_t total);
    void *progress_user;
    unsigned reserved[4];     /**< must be zero */
} atf_validate_options;
#define ATF_VALIDATE_OPTIONS_INIT { 0u, 0u, 0u, 0u, NULL, NULL, { 0u, 0u, 0u, 0u } }

/* ---- Report ---------------------------------------------------------- */

/** Offset of a finding to which no byte offset applies (::ATF_FINDING_NO_OFFSET). */
#define ATF_VALIDATE_NO_OFFSET ATF_FINDING_NO_OFFSET

/** One finding: a clause that the input breaks, and where; the one finding
 * type of the project (atf/finding.h). Its clause is never NULL here. */
typedef atf_finding atf_validate_finding;

/** A file without a footer, and the number of complete events recovered from it. */
typedef struct atf_validate_recovered {
    const char *file;
    uint64_t events;
} atf_validate_recovered;

/** The result of one validation run (opaque, immutable). */
typedef struct atf_validation atf_validation;

/**
 * Validates @p path: an index file, a detail file, a thread directory, a
 * session directory, a directory holding exactly one `pid_*` session, or a
 * file of another format of the registry, by its magic or its name
 * (conformance/SPEC-<NAME>.md).
 * A regular file is validated whatever its magic (a wrong one is a finding):
 * `index.atf` and `detail.atf` as that kind, any other name by its magic
 * (conformance/SPEC.md 7a.1).
 *
 * @param out   receives the report (free with atf_validation_free()); NULL on failure.
 * @param path  the path; kept in the report as given.
 * @param opts  NULL for defaults.
 * @param err   NULL, or receives the reason on failure.
 * @return ::ATF_OK when the checks ran (the report says whether the input
 *         conforms); ::ATF_E_IO (a file could not be read), ::ATF_E_NOT_FOUND
 *         (the path is not an ATF file, thread or session), ::ATF_E_NOMEM,
 *         ::ATF_E_LIMIT or ::ATF_E_ARG when they could not run.
 */
ATF_API atf_status atf_validate_path(atf_validation **out, const char *path, const atf_validate_options *opts,
                                     atf_error *err);

/**
 * Validates an index file held in memory (file-level clauses only).
 * @param name  the file name used in findings; NULL gives "index.atf".
 * @return as atf_validate_path() (never ::ATF_E_IO).
 */
ATF_API atf_status atf_validate_index_memory(atf_validation **out, const void *data, size_t size,
                                             const char *name, const atf_validate_options *opts,
                                             atf_error *err);

/** Validates a detail file held in memory (file-level clauses only); @p name NULL gives "detail.atf". */
ATF_API atf_status atf_validate_detail_memory(atf_validation **out, const void *data, size_t size,
                                              const char *name, const atf_validate_options *opts,
                                              atf_error *err);

/**
 * Validates one thread held in memory: an index file and, when @p detail is
 * not NULL, its detail file, with the cross-lane clauses. Findings name the
 * files "index.atf" and "detail.atf".
 * @param detail  NULL: the thread has no detail file (LINK-005/006 apply).
 */
ATF_API atf_status atf_validate_thread_memory(atf_validation **out, const void *index, size_t index_size,
                                              const void *detail, size_t detail_size,
                                              const atf_validate_options *opts, atf_error *err);

/* The entry points of the other formats, one header each
 * (formats/<name>/validate/include/atf/<name>_validate.h: e.g.
 * atf_validate_<name>_memory()), listed by the build from the registry of
 * formats (formats/formats.cmake). */
#ifdef __cplusplus
}
#endif
#include <atf/validator_formats.h>
#ifdef __cplusplus
extern "C" {
#endif

/** Releases a report. NULL is allowed. */
ATF_API void atf_validation_free(atf_validation *v);

/** @return the path as given to atf_validate_path() (or the name of a memory input). */
ATF_API const char *atf_validation_path(const atf_validation *v);
/** @return 1 if the report was made with the strict option. */
ATF_API int atf_validation_strict(const atf_validation *v);
/** @return 1 if the input conforms: no error finding, and no warning either in strict mode. */
ATF_API int atf_validation_conformant(const atf_validation *v);
/** Number of violations of each severity found, listed one by one or only
 *  counted in a "N more finding(s) ... not listed" summary past the
 *  per-clause or global limit (either pointer may be NULL). */
ATF_API void atf_validation_counts(const atf_validation *v, uint64_t *errors, uint64_t *warnings);
/** @return how many of those violations are listed one by one (the findings
 *  other than the "N more ... not listed" summaries). */
ATF_API uint64_t atf_validation_listed(const atf_validation *v);

/** @return the number of findings listed. */
ATF_API size_t atf_validation_finding_count(const atf_validation *v);
/**
 * @return finding @p i (NULL if out of range). Order: manifest first, then
 *         threads by id (index before detail); within a file by offset
 *         (findings without one first), then clause ID. The strings live as
 *         long as the report.
 */
ATF_API const atf_validate_finding *atf_validation_finding_at(const atf_validation *v, size_t i);

/** @return 1 if clause @p clause_index (of the clause table) was evaluated on this input. */
ATF_API int atf_validation_clause_checked(const atf_validation *v, size_t clause_index);

/** @return the number of files that had no footer. */
ATF_API size_t atf_validation_recovered_count(const atf_validation *v);
/** @return recovered file @p i in file order, or NULL. */
ATF_API const atf_validate_recovered *atf_validation_recovered_at(const atf_validation *v, size_t i);

/* ---- Output ---------------------------------------------------------- */

/**
 * Human-readable report: one line per finding,
 * `<severity> <CLAUSE-ID> <file>: offset N: field F: message`
 * (parts without a value are left out), then one line per clause found,
 * `hint <CLAUSE-ID>: <how to fix>` (in the order the clauses first appear),
 * then the verdict line
 * `<PATH>: conformant|NONCONFORMANT (E error(s), W warning(s))`.
 * @return ::ATF_OK or ::ATF_E_IO if writing failed.
 */
ATF_API atf_status atf_validation_write_text(FILE *out, const atf_validation *v);

/**
 * The report as one JSON object, schema "atf-validate/1"
 * (conformance/validator/README.md): schema, path, strict, verdict, counts,
 * recovered, findings, clauses_checked; followed by a newline.
 * @return ::ATF_OK or ::ATF_E_IO.
 */
ATF_API atf_status atf_validation_write_json(FILE *out, const atf_validation *v);

/**
 * JUnit XML: one `<testsuite name="atf-validate">` with one
 * `<testcase classname="atf.<GROUP>" name="<CLAUSE-ID>">` per clause checked.
 * An error finding (or, in strict mode, any finding) makes its testcase a
 * `<failure>`; warnings are listed in the testcase's `<system-out>`.
 * @return ::ATF_OK or ::ATF_E_IO.
 */
ATF_API atf_status atf_validation_write_junit(FILE *out, const atf_validation *v);

#ifdef __cplusplus
}
#endif
#endif /* ATF_VALIDATOR_H */
