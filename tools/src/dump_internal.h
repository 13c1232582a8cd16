/* What dump.c, dump_parallel.c, merge.c and run.c share: the event lines
 * and the output they go through. */
#ifndef ATF_DUMP_INTERNAL_H
#define ATF_DUMP_INTERNAL_H

#include <atf/tools.h>

#include "obuf.h"
#include "tools_internal.h"

#define PROGRESS_STEP (1u << 22)

#define SYMBOL_SLOTS 256
#define SYMBOL_JSON_MAX 120

typedef struct symbol_slot {
    uint64_t function_id;
    const char *name;        /* NULL: no symbol */
    int valid;
    unsigned char json_len;  /* 0: too long, escaped at each use */
    unsigned char json[SYMBOL_JSON_MAX];
} symbol_slot;

typedef struct symbol_cache {
    const atf_manifest *m;
    symbol_slot slot[SYMBOL_SLOTS];
} symbol_cache;

/* What dump and merge write events through. */
typedef struct dump_out {
    obuf o;
    symbol_cache sc;
    int json;
    const atf_tool_options *opts;   /* NULL: defaults */
    uint64_t done, total, next_report;
} dump_out;

void symbol_cache_init(symbol_cache *c, const atf_manifest *m);
/* One event line (JSON: docs/dump-format.md; text) into o. */
void put_index_json(obuf *o, const tool_thread *t, symbol_cache *sc, uint64_t seq, const atf_index_event *e);
void put_index_text(obuf *o, const tool_thread *t, symbol_cache *sc, uint64_t seq, const atf_index_event *e);
/* The detail lane of a thread without an index lane. */
void dump_lone_detail(obuf *o, const tool_thread *t, int json, const atf_tool_options *opts);
/* Flushes out; ATF_E_IO when it failed. */
atf_status finish_output(FILE *out, atf_error *err);
/* NULL when out of memory. */
dump_out *dump_out_create(FILE *out, const tool_source *src, const atf_tool_options *opts);
void dump_event(dump_out *d, const tool_thread *t, uint64_t seq, const atf_index_event *e);
/* Reports the last progress, flushes, frees, then as finish_output(). */
atf_status dump_out_finish(dump_out *d, FILE *out, atf_error *err);
/* [*first, *last) of t's events inside the window; whole file without one.
 * A file whose timestamps go backwards is filtered event by event (*exact 0). */
void window_range(const tool_thread *t, const atf_tool_options *opts, uint64_t *first, uint64_t *last, int *exact);
/* The dump of src on jobs threads (dump_parallel.c): 0 done, -1 not started
 * (the caller dumps in this thread), -2 out of memory. */
int par_dump_run(dump_out *d, const tool_source *src, const atf_tool_options *opts, unsigned jobs);

#endif
