/* The memory budget: one atomic count of the bytes taken, against a limit
 * (growth stops at REC_GROW_SHARE eighths of it, floors may use it all,
 * forced takes ignore it), its peak, and each busy thread's share. */
#include "rec_base.h"
#include "rec_budget.h"

int rec_budget_take(rec_budget *b, uint64_t n, int kind)
{
    uint64_t cap = kind == REC_TAKE_GROW ? b->limit / 8 * REC_GROW_SHARE : b->limit;
    uint64_t used = atomic_load_explicit(&b->used, RLX);
    do {
        if (kind != REC_TAKE_FORCE && (used > cap || n > cap - used))
            return 0;
    } while (!atomic_compare_exchange_weak_explicit(&b->used, &used, used + n, RLX, RLX));
    uint64_t now = used + n, peak = atomic_load_explicit(&b->peak, RLX);
    while (now > peak && !atomic_compare_exchange_weak_explicit(&b->peak, &peak, now, RLX, RLX))
        ;
    return 1;
}

void rec_budget_give(rec_budget *b, uint64_t n)
{
    atomic_fetch_sub_explicit(&b->used, n, RLX);
}

uint64_t rec_budget_share(rec_budget *b, unsigned joining)
{
    uint64_t busy = atomic_load_explicit(&b->grown, RLX) + joining;
    uint64_t share = b->limit / 8 * REC_GROW_SHARE / 2 / (busy ? busy : 1);
    return share > REC_SHARE_MIN ? share : REC_SHARE_MIN;
}
