/* What the exporters share: export.c (the thread loop over the slice
 * builder, Perfetto, Chrome JSON) and the exports into files of the formats'
 * tools parts (formats/<f>/tools/, tool_format.h). */
#ifndef ATF_EXPORT_INTERNAL_H
#define ATF_EXPORT_INTERNAL_H

#include <atf/export.h>

#include "common.h"
#include "obuf.h"
#include "u64map.h"
#include "tools_internal.h"

/* ---- Function names, interned ---------------------------------------- */

typedef struct name_entry {
    uint64_t function_id;
    uint64_t iid;          /* Perfetto interning id (1, 2, ...) */
    uint64_t emitted_seq;  /* the packet sequence that last got its interned name */
    char *text;            /* symbol or hex id, not escaped */
    size_t len;
} name_entry;

typedef struct name_table {
    atf_u64map map;        /* function id -> index in entries */
    name_entry *entries;
    size_t cap;            /* entries allocated; map.count used */
    uint64_t next_iid;
} name_table;

/* The entry of fid, added if new. NULL when the table is full (use *tmp,
 * whose text is only valid until the next call; tmpbuf holds 32 bytes) or
 * out of memory (*nomem). */
name_entry *export_name_get(name_table *t, const atf_manifest *m, uint64_t fid, name_entry *tmp, char *tmpbuf,
                            int *nomem);

/* ---- The export -------------------------------------------------------- */

/* A Perfetto packet being built (common.h). */
typedef atf_bytebuf pb;

struct atf_tool_export;

typedef struct exporter {
    atf_export_format format;
    obuf *out;                /* Perfetto, Chrome JSON */
    const struct atf_tool_export *file; /* an export into files (tool_format.h), or NULL */
    void *file_state;         /* that export's */
    pb pk;                    /* the packet being built */
    pb scratch;               /* the scratch buffer while pk is in the output buffer */
    int in_place;
    name_table names;
    const atf_manifest *manifest;
    const tool_thread *thread;
    uint64_t pid, tid, track_uuid, seq_id;
    int seq_started;          /* Perfetto: the sequence's first packet is written */
    int first_json;           /* Chrome JSON: no event written yet */
    int nomem;
    atf_export_stats *stats;
    atf_status failed;        /* a backend's error (in fail_err), reported as it is */
    atf_error fail_err;
    struct par_export *par;   /* Perfetto on several threads (export.c); NULL: in this thread */
} exporter;

/* Callback results of the backends besides 0: out of memory, the output
 * buffer's stream failed, the backend failed (x->failed, x->fail_err). */
enum { EXPORT_NOMEM = -1, EXPORT_IO = -2, EXPORT_FAILED = -3 };

/* ---- The linked detail event ---------------------------------------------- */

/* The detail event linked from an index event, decoded: the ARM64
 * registers (x0..x7, lr, fp, sp) when it is an ARM64 function payload. */
typedef struct detail_args {
    atf_detail_event d;
    int arm;
    uint64_t regs[11];
    uint16_t stack_size;
} detail_args;

/* Register names of an ARM64 payload, in detail_args.regs order: [0] as
 * they are ("x0"), [1] with "ret_" (a return's, beside its call's). */
extern const char *const export_reg_names[2][11];
/* Bytes of a payload other than ARM64's shown (as hex). */
#define EXPORT_PREVIEW_BYTES 16u

/* @return 1 and fills da when ev (may be NULL) links to a detail event of
 * the current thread (counted in stats->details), else 0. */
int export_load_detail(exporter *x, const atf_index_event *ev, detail_args *da);

/* N of a ".../pid_N" directory (up = 0: path itself, 1: its parent, ...), else 0. */
uint64_t export_pid_of(const char *dir, int up);
/* "thread_K (os tid T)" of the thread in buf. */
void export_thread_name(char *buf, size_t cap, const tool_thread *t);

#endif /* ATF_EXPORT_INTERNAL_H */
