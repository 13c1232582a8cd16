/* What the exporters share: export.c (the thread loop over the slice
 * builder, Perfetto, Chrome JSON) and export_wtf.c (WTF files). */
#ifndef ATF_EXPORT_INTERNAL_H
#define ATF_EXPORT_INTERNAL_H

#include <atf/export.h>

#include "common.h"
#include "obuf.h"
#include "tools_internal.h"

/* ---- Function names, interned ---------------------------------------- */

typedef struct name_entry {
    uint64_t function_id;
    uint64_t iid;          /* Perfetto interning id, 0 = free slot */
    uint64_t emitted_seq;  /* the packet sequence that last got its interned name */
    char *text;            /* symbol or hex id, not escaped */
    size_t len;
} name_entry;

typedef struct name_table {
    name_entry *slots;
    size_t cap, count;     /* cap: power of two */
    uint64_t next_iid;
} name_table;

/* The entry of fid, added if new. NULL when the table is full (use *tmp,
 * whose text is only valid until the next call; tmpbuf holds 32 bytes) or
 * out of memory (*nomem). */
name_entry *export_name_get(name_table *t, const atf_manifest *m, uint64_t fid, name_entry *tmp, char *tmpbuf,
                            int *nomem);

/* ---- The export -------------------------------------------------------- */

typedef struct wtf_export wtf_export;

/* A Perfetto packet being built (common.h). */
typedef atf_bytebuf pb;

typedef struct exporter {
    atf_export_format format;
    obuf *out;                /* Perfetto, Chrome JSON */
    wtf_export *wtf;          /* WTF */
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

/* ---- WTF (export_wtf.c) ---------------------------------------------------- */

/* Opens the first file at out_path; its timebase is the earliest time the
 * export writes (the first event of the selected threads, a timing anchor,
 * or the window's start). pname names the process ("pid_N"). */
atf_status wtf_export_open(exporter *x, const char *out_path, const tool_source *src, const atf_tool_options *o,
                           const char *pname, atf_error *err);
/* A thread begins (name: "thread_K (os tid T)"); its zone is made where it first writes. */
void wtf_export_thread_begin(exporter *x, const char *name, const char *location);
/* A slice callback; the thread ends. @return 0 or EXPORT_*. */
int wtf_export_slice(exporter *x, const atf_slice *s);
int wtf_export_thread_end(exporter *x);
/* Timing anchors inside the window, as time stamps in a zone of their own. */
int wtf_export_anchors(exporter *x, const atf_tool_options *o);
/* Flushes and closes every file (also after a failure: then only frees). */
atf_status wtf_export_close(exporter *x, int failed, atf_error *err);

#endif /* ATF_EXPORT_INTERNAL_H */
