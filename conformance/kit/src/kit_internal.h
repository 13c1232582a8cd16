/* Internals of the conformance kits (not installed). */
#ifndef ATF_KIT_INTERNAL_H
#define ATF_KIT_INTERNAL_H

#include "common.h"   /* the codec's helpers: atf_path_join, atf_remove_tree */
#include "escape.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <atf/conform.h>

/* ---- Scenario files (scenario.c) -------------------------------------- */

/* 1 and *idx set if thread `id` is in threads[0..n) (sorted by id), else 0. */
int kit_scenario_thread_find(const atf_scenario_thread *threads, size_t n, uint64_t id, size_t *idx);

/* ---- Processes (proc.c) ---------------------------------------------- */

typedef enum kit_proc_state {
    KIT_PROC_EXITED = 0,     /* exit_code is valid */
    KIT_PROC_SIGNALED,       /* killed by signal `signal` (or the shell reported 128+N) */
    KIT_PROC_TIMEOUT,        /* killed by the kit when the time limit expired */
    KIT_PROC_SPAWN_FAILED    /* could not start: spawn_error says why */
} kit_proc_state;

#define KIT_PROC_HEAD 2048   /* bytes of stdout/stderr kept for reports */

typedef struct kit_proc_result {
    kit_proc_state state;
    int exit_code;
    int signal;
    int signal_via_shell;    /* the shell exited with 128+signal */
    double seconds;
    char err_head[KIT_PROC_HEAD + 1];   /* first bytes of stderr, NUL-terminated */
    uint64_t err_total;
    char out_head[KIT_PROC_HEAD + 1];   /* first bytes of stdout (when no sink is given) */
    uint64_t out_total;
    char spawn_error[256];
} kit_proc_result;

/* Receives the child's stdout as it arrives. Return 0 to go on. */
typedef int (*kit_sink_fn)(void *user, const void *data, size_t size);

/* A running command (fields are private to proc.c). */
typedef struct kit_proc {
    pid_t pid;
    int out_fd, err_fd;
    double t0, deadline;
    int reaped, status, timed_out, sink_stopped, done;
    kit_sink_fn sink;
    void *user;
    kit_proc_result *r;
} kit_proc;

#define KIT_PROC_MAX_WAIT 64   /* commands kit_proc_wait_any() watches at once */

/* Starts `/bin/sh -c 'CMD "$@"' atf-conform ARGS...` in its own process
 * group with stdin from /dev/null, stdout to @sink (or kept in out_head),
 * stderr kept in err_head; the group is killed @timeout_s seconds later.
 * @r is filled when the command ends (p->done). Returns 0, or -1 when it
 * could not start (then p->done is set and r says why: SPAWN_FAILED). */
int kit_proc_start(kit_proc *p, const char *cmd, const char *const *args, size_t nargs, double timeout_s,
                   kit_sink_fn sink, void *user, kit_proc_result *r);
/* Drains output and waits until at least one of @procs (NULL entries and
 * finished ones are skipped; at most KIT_PROC_MAX_WAIT) ends. Returns how
 * many ended, 0 when none was running. Single-threaded by design: the kit
 * never spawns from several threads (qemu-user and some libcs deadlock). */
size_t kit_proc_wait_any(kit_proc *const *procs, size_t n);
/* kit_proc_start() and wait for the end. Returns 0 when @r is filled
 * (whatever the command did), -1 when it could not start. */
int kit_proc_run(const char *cmd, const char *const *args, size_t nargs, double timeout_s,
                 kit_sink_fn sink, void *user, kit_proc_result *r);

/* One line: "exit 0", "exit 3", "signal 11 (SIGSEGV)", "timed out after 10 s", ... */
void kit_proc_describe(const kit_proc_result *r, char *dst, size_t cap);

/* ---- Output helpers (util.c) ----------------------------------------- */

/* A JSON string of s (NULL: null) through the project's one escaper
 * (formats/common/src/escape.h: ASCII output, U+FFFD for what is not UTF-8);
 * atf_json_fputs_n() for n bytes. */
static inline void kit_json_string(FILE *out, const char *s)
{
    if (s)
        atf_json_fputs(s, out);
    else
        fputs("null", out);
}
/* XML/HTML text or attribute value: the project's one escaper (formats/
 * common/src/escape.h: what XML cannot hold is U+FFFD, as in `atf validate`);
 * NULL is the empty text. */
static inline void kit_xml(FILE *out, const char *s)
{
    atf_xml_fputs(s ? s : "", out);
}
void kit_text_n(FILE *out, const char *s, size_t n);         /* text report: control characters as \n, \xHH */
double kit_now(void);                                        /* monotonic seconds */
char *kit_strdup(const char *s);
/* fopen(path, "rb") of a regular file only: a FIFO or another special file
 * is refused at once (never blocks); NULL with why[] filled on failure. */
FILE *kit_fopen_regular(const char *path, char *why, size_t why_cap);
char *kit_sprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
uint64_t kit_free_bytes(const char *dir);                    /* UINT64_MAX if unknown */
/* Replaces, in place, every occurrence of paths[i] (NULL or "" skipped) in
 * the NUL-terminated @msg with names[i], in order, truncating to @cap: kit
 * messages never quote temporary paths that are gone after the run. */
void kit_scrub_paths(char *msg, size_t cap, const char *const *paths, const char *const *names, size_t n);
/* For --format json/junit when a run ends in an error before (or instead of)
 * its report: a well-formed result object saying so. @schema: the JSON
 * schema, @suite: the JUnit suite name. */
void kit_error_report(FILE *out, atf_conform_format format, const char *schema, const char *suite,
                      const atf_error *err);

/* ---- Validator seam (validate_seam.c) -------------------------------- */

/* A finding of the clause validator, owned by a kit_vresult. */
typedef struct kit_vfinding {
    char clause[24];
    int error;               /* 1 error, 0 warning */
    int recoverable;         /* the clause describes a crash-truncated file */
    char *file;
    uint64_t offset;         /* UINT64_MAX: none */
    char *field;             /* may be NULL */
    char *message;
} kit_vfinding;

typedef struct kit_vresult {
    int ran;                 /* 0: the validator could not run; `error` says why */
    char error[512];
    size_t finding_count;
    kit_vfinding *findings;
    size_t checked_count;
    char (*checked)[24];     /* clause IDs evaluated, sorted */
    uint64_t errors, warnings;
} kit_vresult;

/* The one place the kits call the clause validator (atf/validator.h):
 * validates @dir (a session directory) in default (non-strict) mode. */
void kit_validate_session(const char *dir, kit_vresult *out);
void kit_vresult_free(kit_vresult *r);
/* Group of a clause ID: "IDX-HDR" for "IDX-HDR-003", "LINK" for "LINK-002". */
void kit_clause_group(const char *id, char *dst, size_t cap);

/* ---- Built-in scenarios (scenarios.c) -------------------------------- */

/* Estimated bytes of the scenario file plus the session it describes. */
uint64_t kit_builtin_scenario_bytes(const atf_builtin_scenario *s);

#endif
