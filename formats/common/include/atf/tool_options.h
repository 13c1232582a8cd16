/**
 * @file atf/tool_options.h
 * @brief Options of the tools (info, dump, merge, export, report), shared by
 *        every format's part of the tools (atf/tools.h, formats/<f>/tools/)
 *        behind the same commands.
 */
#ifndef ATF_TOOL_OPTIONS_H
#define ATF_TOOL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Progress of long work: @p done of @p total units (index events) so far.
 * Called every few million events and once at the end; never from another thread.
 */
typedef void (*atf_progress_fn)(void *user, uint64_t done, uint64_t total);

typedef struct atf_tool_options {
    unsigned json;       /**< dump/merge: canonical JSON lines; info: JSON object */
    unsigned no_verify;  /**< do not verify checksums */
    unsigned window;     /**< dump/merge/export: only events with from_ns <= timestamp <= to_ns */
    uint64_t from_ns, to_ns;
    const uint64_t *threads;  /**< dump/merge/export: only these thread ids (NULL: all) */
    size_t thread_count;
    atf_progress_fn progress; /**< NULL: none */
    void *progress_user;
    FILE *diag;          /**< where a line goes for every file not read whole (crash-truncated, damaged,
                              unreadable: conformance/SPEC.md 6); NULL: nowhere. The `atf` command passes stderr. */
    unsigned jobs;       /**< dump, export (Perfetto): threads that format the output (the bytes are the same
                              for any number): 0 one per CPU (at most 4) from 64 Ki events, 1 only the
                              calling thread; more than 4 is 4 */
    unsigned reserved[3];
} atf_tool_options;
#define ATF_TOOL_OPTIONS_INIT { 0u, 0u, 0u, 0u, UINT64_MAX, NULL, 0u, NULL, NULL, NULL, 0u, { 0u, 0u, 0u } }

#ifdef __cplusplus
}
#endif

#endif
