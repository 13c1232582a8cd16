/* What dump.c, export.c and report.c share: a path opened as a list of threads. */
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

#endif
