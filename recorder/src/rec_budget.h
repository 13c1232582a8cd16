/* The recorder's memory budget (rec_budget.c): what the rings, the write
 * windows and the pre-roll queues may hold together, and the file
 * descriptors the files may keep open. */
#ifndef ATF_REC_BUDGET_H
#define ATF_REC_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

/* One budget for the whole recorder: every ring, write window and detail
 * buffer is taken from it before it is allocated and given back when freed.
 * A floor allocation (a thread's first ring, a file's smallest window) may
 * use the whole budget; growth (bigger rings and windows) stops at
 * REC_GROW_SHARE eighths of it, so the floors of new threads and of files
 * coming back from idle always find room. */
#define REC_GROW_SHARE 7u
typedef struct rec_budget {
    _Atomic uint64_t used, peak;
    uint64_t limit;
    _Atomic uint64_t files;      /* descriptors the files hold now */
    uint64_t files_cap;          /* beyond this, idle files are parked at once */
    _Atomic uint64_t grown;      /* threads whose ring grew past the first size */
} rec_budget;

enum { REC_TAKE_GROW = 0, REC_TAKE_FLOOR = 1, REC_TAKE_FORCE = 2 };
/* @return 1 if n bytes were taken (kind: how much of the limit may be used). */
int rec_budget_take(rec_budget *b, uint64_t n, int kind);
void rec_budget_give(rec_budget *b, uint64_t n);
/* How big one thread's ring, or one file's window, may grow: half the
 * growth budget divided among the threads whose rings grew (plus `joining`
 * about to), never under REC_SHARE_MIN. With many busy threads the writer
 * is the limit whatever the buffers hold: bigger ones would only be more
 * memory to map, fault in and stream through the cache (measured: 16 % of
 * the CPU with 64 threads whose rings and windows filled the budget). */
#define REC_SHARE_MIN (256u << 10)
uint64_t rec_budget_share(rec_budget *b, unsigned joining);

#endif /* ATF_REC_BUDGET_H */
