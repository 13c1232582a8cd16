/* Internals of the validator (not installed): the clause enum, the report
 * under construction, and the surface a format's pass implements.
 *
 * One design for every format (conformance/validator/README.md, "Formats"):
 *  - a format's pass lives in its folder, formats/<name>/validate/, and
 *    defines one descriptor (atf_validator_format, below) named
 *    atf_vformat_<name>; the build lists every format that has a validate/
 *    folder (formats/formats.cmake) in a generated registry
 *    (atf_vformat_registry[]) and a generated clause list (clause_list.h);
 *  - a format's clauses are its one X-macro table,
 *    formats/<name>/src/<name>_clauses.h (ATF_CLAUSE_LIST_<NAME>(X)), which
 *    gives the enum constants C_<ID> of this header, contiguous per format;
 *  - a pass marks the clauses it evaluates (v_check, v_check_format) and
 *    reports each breach into the one report with v_report(): clause,
 *    file, byte offset, field, message. A pass that walks the bytes itself
 *    calls v_report where it finds a breach; a pass whose codec reader
 *    already finds the clauses hands each of the reader's findings to
 *    v_report through v_clause_of(). Either way the report is the only
 *    finding type the validator has;
 *  - the core (validate.c) detects an input once (the codec's bid,
 *    the registry of formats/formats.cmake), picks the descriptor of the module that claimed it
 *    (the native one when none did) and calls its file() or dir(). */
#ifndef ATF_VALIDATOR_INTERNAL_H
#define ATF_VALIDATOR_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include <atf/validator.h>

#include "bytes.h"         /* the codec's: atf_load_le16/32/64 */
#include "clause_list.h"

struct atf_blob;   /* the codec's (common.h): a file's bytes */

#if defined(__GNUC__)
#  define V_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define V_PRINTF(a, b)
#endif

typedef enum vclause {
#define V_X_ENUM_(name, group, num, sev, rec, text, hint) C_##name,
    ATF_CLAUSE_LIST(V_X_ENUM_)
#undef V_X_ENUM_
    C_COUNT_
} vclause;

#define V_NO_OFFSET ATF_VALIDATE_NO_OFFSET
#define V_DEFAULT_MAX_PER_CLAUSE 10u
#define V_DEFAULT_MAX_FINDINGS 10000u

/* Little-endian loads: atf_load_le16/32/64 (formats/common/src/bytes.h). */

/* Offset of the first non-zero byte of p[0..n), or n. */
static inline size_t v_first_nonzero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return i;
    return n;
}

/* ---- The report under construction ------------------------------------ */

/* Per file and clause: how many findings were listed, and what was left out. */
typedef struct vcount {
    uint32_t listed;
    uint8_t more_severity;   /* highest severity left out */
    uint64_t more;           /* findings left out */
    uint64_t more_offset;    /* offset of the first one left out */
} vcount;

typedef struct vfile {
    char *label;             /* relative name used in findings */
    vcount *counts;          /* [C_COUNT_], allocated at the first finding */
} vfile;

typedef struct vfinding {
    atf_validate_finding pub;
    size_t file;             /* index into files */
    uint16_t clause;
    uint8_t summary;         /* summarises findings left out: sorts last in its file */
    uint64_t seq;            /* insertion order: the last sort key */
    char *field_copy;        /* owned copies (pub points at them) */
    char *message_copy;
} vfinding;

typedef struct vrecovered {
    size_t file;
    uint64_t events;
} vrecovered;

struct atf_validation {
    char *path;
    atf_validate_options opts;
    vfile *files;
    size_t file_count, file_cap;
    vfinding *findings;
    size_t finding_count, finding_cap;
    uint64_t seq;
    uint8_t checked[C_COUNT_];
    vrecovered *recovered;
    size_t recovered_count, recovered_cap;
    atf_validate_recovered *recovered_pub;
    /* Findings beyond max_findings: counted, summarised at the end. */
    uint64_t dropped;
    uint8_t dropped_severity;
    size_t dropped_file;
    uint16_t dropped_clause;
    uint64_t dropped_offset;
    uint64_t errors, warnings;       /* every violation found, listed or not */
    uint64_t listed;                 /* of those, listed one by one (findings other than "N more ...") */
    uint64_t unlisted_errors, unlisted_warnings;   /* past max_per_clause or max_findings */
    int oom;                 /* an allocation failed: the run returns ATF_E_NOMEM */
    int finished;
    /* While a pass runs on a file opened from a path: its bytes (NULL
     * when they are the caller's memory). */
    const struct atf_blob *blob;
};

/* validate.c: the pass is done with [p, p + n) of the file it checks and
 * will most likely not read it again: atf_blob_release() of the file it
 * was opened from (a pass in parts tears its own share of the mapping down
 * beside the others). Nothing for the caller's memory. Thread-safe. */
void v_release(const atf_validation *v, const uint8_t *p, uint64_t n);

/* report.c */
atf_validation *v_create(const char *path, const atf_validate_options *opts);
/* Registers a file and returns its index (files are ordered by registration). */
size_t v_file(atf_validation *v, const char *label);
/* Marks a clause as evaluated. */
static inline void v_check(atf_validation *v, vclause c) { v->checked[c] = 1; }
/* Records a finding (and marks the clause evaluated). sev 0: the clause's default. */
void v_report(atf_validation *v, size_t file, vclause c, atf_severity sev, uint64_t offset, const char *field,
              const char *fmt, ...) V_PRINTF(7, 8);
void v_reportv(atf_validation *v, size_t file, vclause c, atf_severity sev, uint64_t offset, const char *field,
               const char *fmt, va_list ap) V_PRINTF(7, 0);
void v_recovered(atf_validation *v, size_t file, uint64_t events);
/* Summaries, sort, counts. @return ATF_OK or ATF_E_NOMEM. */
atf_status v_finish(atf_validation *v);
atf_severity v_clause_severity(vclause c);
const char *v_clause_id(vclause c);
/* Clauses of [first, first + count) marked as evaluated. */
void v_check_range(atf_validation *v, unsigned first, unsigned count);

/* ---- Paths, files and errors (validate.c) ------------------------------- */

/* Errors about a whole file are atf_fail_file(), paths atf_path_join(), files
 * in memory atf_blob_open_limit() (formats/common/src/common.h). */
/* a + b + c in a new string (NULL: no memory). */
char *v_cat3(const char *a, const char *b, const char *c);
/* 1: a regular file; 0: nothing there; -1: something else is there, or it
 * cannot be looked at (err says which: an I/O problem, never a verdict). */
int v_regular_or_absent(const char *path, atf_error *err);
int v_is_dir(const char *path);
/* Last path component, ignoring trailing slashes, into dst. */
void v_base_name(const char *path, char *dst, size_t cap);

/* ---- Formats ------------------------------------------------------------ */

/* A format's part of the validator: formats/<name>/validate/ defines
 * `const atf_validator_format atf_vformat_<name>`. */
typedef struct atf_validator_format {
    /* The codec module's name (formats/common/src/format_module.h), which
     * atf_format_bid() returns for a file of this format. */
    const char *name;
    /* 1: the toolkit's native format, of the files no codec module claims
     * (and of directories). */
    int native;
    /* Its clauses: [clause_first, clause_first + clause_count) of the enum. */
    unsigned clause_first, clause_count;
    /* Every clause of the format that applies to one file, d[0..size) (the
     * bytes from data_end on are a sparse tail, read as zeros); file: the
     * report's index of the file, name: its base name. */
    void (*file)(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                 const char *name);
    /* NULL, or a directory of this format: ATF_E_NOT_FOUND (err says why)
     * when path is not one, else as atf_validate_path(). */
    atf_status (*dir)(atf_validation *v, const char *path, atf_error *err);
} atf_validator_format;

/* The registry, generated from formats/formats.cmake: every format that has
 * a validate/ folder, in registry order, NULL-terminated. */
extern const atf_validator_format *const atf_vformat_registry[];
extern const size_t atf_vformat_count;

/* The number of X() lines of a clause table: V_CLAUSES(ATF_CLAUSE_LIST_X). */
#define V_X_ONE_(name, group, num, sev, rec, text, hint) +1u
#define V_CLAUSES(list) (0u list(V_X_ONE_))

/* Every clause of the format marked as evaluated. */
static inline void v_check_format(atf_validation *v, const atf_validator_format *f)
{
    v_check_range(v, f->clause_first, f->clause_count);
}
/* The clause of format f whose ID is id: 1 and *out, or 0. */
int v_clause_of(const atf_validator_format *f, const char *id, vclause *out);

/* A report of one input in memory: *vp receives a new report for name (NULL:
 * default_name) with that file registered as *file. @return ATF_OK, or
 * ATF_E_ARG / ATF_E_NOMEM (nothing to free). */
atf_status v_memory_begin(atf_validation **out, atf_validation **vp, size_t *file, const void *data, size_t size,
                          const char *name, const char *default_name, const atf_validate_options *opts,
                          atf_error *err);
/* Ends a run: the report into *out (ATF_OK), or freed (st or ATF_E_NOMEM). */
atf_status v_end(atf_validation *v, atf_status st, atf_validation **out, atf_error *err);

#endif /* ATF_VALIDATOR_INTERNAL_H */
