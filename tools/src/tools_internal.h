/* What the tools share (tools/src): a path opened as a list of threads, the
 * run of one tool over a path, path detection's helpers. */
#ifndef ATF_TOOLS_INTERNAL_H
#define ATF_TOOLS_INTERNAL_H

#include <atf/tools.h>

typedef struct tool_thread {
    uint64_t id;
    const char *dir;               /* NULL for lone files */
    const atf_index_reader *index; /* NULL for a lone detail file, or when index.atf could not be read */
    const atf_detail_reader *detail;
    atf_status status;             /* ATF_OK, or why a file of the thread could not be read */
    const atf_error *error;        /* that file, offset, field and message */
} tool_thread;

typedef struct tool_source {
    atf_path_kind kind;
    char path[4096];
    atf_session *session;          /* for ATF_PATH_SESSION */
    atf_index_reader *own_index;   /* for files and thread directories */
    atf_detail_reader *own_detail;
    tool_thread single;
    const tool_thread *threads;    /* session: built from session threads */
    tool_thread *session_threads;
    size_t thread_count;
    const atf_manifest *manifest;
    atf_manifest *own_manifest;    /* a thread's session manifest, for symbols */
    atf_error own_error;           /* a thread directory's file that could not be read */
} tool_source;

atf_status tool_source_open(tool_source *src, const char *path, const atf_tool_options *opts,
                            atf_error *err);
void tool_source_close(tool_source *src);
/* One line to diag for every file of src not read whole (SPEC 6: crash-
 * truncated, damaged) or not read at all; @return the worst: ATF_E_IO (a
 * file could not be read), ATF_E_DAMAGED, or ATF_OK (crash-truncated at most). */
atf_status tool_source_report(const tool_source *src, FILE *diag);
/* Threads that format the output of dump and of the Perfetto export
 * (atf_tool_options.jobs; 0: one per CPU, at most TOOL_JOBS_MAX, from
 * TOOL_PARALLEL_MIN events of output); 1: the calling thread alone. */
#define TOOL_JOBS_MAX 4
#define TOOL_PARALLEL_MIN (1u << 16)
unsigned tool_jobs(const atf_tool_options *opts, uint64_t events);
/* 1 if opts selects thread id (no --thread filter selects every thread). */
int tool_thread_wanted(const atf_tool_options *opts, uint64_t id);
/* ATF_E_ARG (naming it) when opts asks for a thread src does not hold:
 * a mistyped --thread must not look like an empty session. */
atf_status tool_check_threads(const tool_source *src, const atf_tool_options *opts, atf_error *err);
/* What `atf export` and `atf report` do first: ATF_E_ARG ("TOOL: --from is
 * after --to") for an empty window, tool_source_open(), tool_check_threads(),
 * then *worst = tool_source_report() (the lines go to opts->diag). On
 * failure nothing is left open. */
atf_status tool_source_start(tool_source *src, const char *path, const atf_tool_options *opts, const char *tool,
                             atf_status *worst, atf_error *err);

/* The worse of two statuses of reading files (ATF_E_IO over ATF_E_DAMAGED over ATF_OK). */
atf_status tool_worse(atf_status a, atf_status b);
/* One line to diag: e's file, what (e.g. "not read"), e's message. */
void tool_diag_error(FILE *diag, const atf_error *e, const char *what);
/* K of ".../thread_K/file" or ".../thread_K", else fallback. */
uint64_t tool_thread_number(const char *path, int is_file, uint64_t fallback);
/* 1 if dir/name is a directory (want_dir) or a regular file, 0 if not,
 * -1 when that could not be found out for lack of memory (errno ENOMEM). */
int tool_exists_in(const char *dir, const char *name, int want_dir);
/* 1 if dir/name certainly does not exist (lstat: ENOENT). */
int tool_absent_in(const char *dir, const char *name);
/* Calls fn(user, dir, name) for every directory dir/<prefix>...; stops when
 * fn returns non-zero. @return 0; -1 when dir cannot be read (errno says
 * why); -2 when fn failed or memory ran out. */
int tool_each_dir(const char *dir, const char *prefix, int (*fn)(void *, const char *, const char *), void *user);

/* As atf_path_detect(); *fm (NULL: not wanted) receives the format module
 * of an ::ATF_PATH_FORMAT file, else NULL. */
struct atf_format_module;
atf_path_kind tool_path_detect(const char *path, char *resolved, size_t cap, const struct atf_format_module **fm,
                               atf_error *err);

/* The work of one tool on one opened source (a file, a thread, a session). */
typedef atf_status (*tool_source_fn)(FILE *out, const tool_source *src, const atf_tool_options *opts,
                                     atf_error *err);
/* Runs fn on path, or on every session of a directory of sessions (each
 * introduced by a line naming it), after reporting what was not read whole. */
atf_status tool_run(FILE *out, const char *path, const atf_tool_options *opts, tool_source_fn fn, atf_error *err);
/* The tools of the format of path when it is a file of another format of
 * the registry (tool_format.h), else NULL. */
struct atf_tool_format;
const struct atf_tool_format *tool_other_format(const char *path);

#endif
