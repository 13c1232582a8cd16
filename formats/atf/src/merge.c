/* Streaming k-way merge of a session's threads by (timestamp, thread id, seq):
 * a tournament (loser) tree over one cursor per thread. Each step replays one
 * leaf-to-root path: log2(k) comparisons of cached 16-byte keys, chosen
 * without branches (which thread comes next is unpredictable: a branch per
 * comparison mispredicts half the time); events are decoded from the mapped
 * file only when they are handed out. */
#include <stdlib.h>

#include <atf/session.h>

#include "bytes.h"

typedef struct cursor {
    const uint8_t *p, *end;   /* the next event; the end of the events */
    uint64_t id;              /* session thread id */
    uint64_t seq;
    size_t thread_index;
    atf_layout layout;
    int done;
} cursor;

/* Order of a cursor's next event: (timestamp, done, thread index). The
 * session's threads are sorted by id, so the thread index orders as the id
 * does; a finished cursor has timestamp UINT64_MAX and loses every tie. */
typedef struct key {
    uint64_t ts;
    uint64_t rank;   /* done << 32 | thread_index */
} key;

struct atf_merge {
    cursor *c;
    key *keys;
    size_t k;
    size_t *tree;   /* tree[0]: the winner; tree[1..k-1]: the loser kept at each inner node */
};

/* (ats, arank) < (bts, brank), without branches. */
static inline int key_less(uint64_t ats, uint64_t arank, uint64_t bts, uint64_t brank)
{
#if defined(__SIZEOF_INT128__)
    /* One double-word compare (cmp + sbb on x86-64). */
    return ((unsigned __int128)ats << 64 | arank) < ((unsigned __int128)bts << 64 | brank);
#else
    return (ats < bts) | ((ats == bts) & (arank < brank));
#endif
}

static inline int before(const key *a, const key *b)
{
    return key_less(a->ts, a->rank, b->ts, b->rank);
}

atf_status atf_merge_create(atf_merge **out, const atf_session *s)
{
    if (!out || !s)
        return ATF_E_ARG;
    *out = NULL;
    atf_merge *m = calloc(1, sizeof *m);
    size_t k = atf_session_thread_count(s);
    size_t *win = NULL;
    if (!m || !(m->c = calloc(k ? k : 1, sizeof *m->c)) || !(m->tree = calloc(k ? k : 1, sizeof *m->tree)) ||
        !(m->keys = calloc(k ? k : 1, sizeof *m->keys)) || !(win = calloc(2 * (k ? k : 1), sizeof *win))) {
        if (m) {
            free(m->c);
            free(m->tree);
            free(m->keys);
        }
        free(m);
        return ATF_E_NOMEM;
    }
    m->k = k;
    for (size_t i = 0; i < k; i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        cursor *c = &m->c[i];
        c->id = t->id;
        c->thread_index = i;
        c->done = 1;
        if (!t->index)
            continue;
        size_t size;
        const uint8_t *bytes = atf_index_reader_bytes(t->index, &size);
        uint64_t n = atf_index_reader_count(t->index);
        c->layout = atf_index_reader_info(t->index)->layout;
        c->p = bytes + atf_index_reader_header(t->index)->events_offset;
        c->end = c->p + n * ATF_INDEX_EVENT_SIZE;
        c->done = n == 0;
    }
    for (size_t i = 0; i < k; i++) {
        m->keys[i].ts = m->c[i].done ? UINT64_MAX : atf_load_le64(m->c[i].p);
        m->keys[i].rank = (uint64_t)m->c[i].done << 32 | i;
    }
    /* Play every match once, bottom up: leaf i is node k + i. */
    for (size_t i = 0; i < k; i++)
        win[k + i] = i;
    for (size_t n = k; n-- > 1;) {
        size_t l = win[2 * n], r = win[2 * n + 1];
        int lw = before(&m->keys[l], &m->keys[r]);
        win[n] = lw ? l : r;
        m->tree[n] = lw ? r : l;
    }
    m->tree[0] = k == 1 ? 0 : win[1];
    free(win);
    *out = m;
    return ATF_OK;
}

int atf_merge_next(atf_merge *m, atf_merged_event *out)
{
    if (!m || !out || m->k == 0)
        return 0;
    size_t w = m->tree[0];
    cursor *c = &m->c[w];
    if (c->done)
        return 0;
    out->thread_index = c->thread_index;
    out->thread_id = c->id;
    out->seq = c->seq;
    if (c->layout == ATF_LAYOUT_2) {
        /* atf_index_event_decode(), inline: this is the hot loop of every merge. */
        const uint8_t *p = c->p;
        out->event.timestamp_ns = m->keys[w].ts;
        out->event.function_id = atf_load_le64(p + 8);
        out->event.detail_seq = atf_load_le64(p + 16);
        out->event.event_kind = p[24];
        out->event.thread_id = 0;
        out->event.call_depth = 0;
        out->event.reserved_nonzero = (atf_load_le64(p + 24) >> 8) != 0;
    } else {
        atf_index_event_decode(&out->event, c->p, ATF_INDEX_EVENT_SIZE, c->layout);
    }
    c->p += ATF_INDEX_EVENT_SIZE;
    c->seq++;
    if (c->p < c->end) {
        m->keys[w].ts = atf_load_le64(c->p);
    } else {
        c->done = 1;
        m->keys[w].ts = UINT64_MAX;
        m->keys[w].rank |= 1ull << 32;
    }
    /* Replay the winner's path: at each node the better of the two goes up.
     * The path is fixed by the leaf, so the losers' loads do not wait on
     * the comparisons; the winner's key travels in registers. */
    const key *keys = m->keys;
    size_t *tree = m->tree;
    uint64_t wts = keys[w].ts, wrank = keys[w].rank;
    for (size_t n = (w + m->k) / 2; n >= 1; n /= 2) {
        size_t other = tree[n];
        uint64_t ots = keys[other].ts, orank = keys[other].rank;
        size_t b = (size_t)key_less(ots, orank, wts, wrank);
        size_t mask = (size_t)0 - b;   /* all ones when other goes up */
        tree[n] = (w & mask) | (other & ~mask);
        w = (other & mask) | (w & ~mask);
        wts = (ots & mask) | (wts & ~mask);
        wrank = (orank & mask) | (wrank & ~mask);
    }
    m->tree[0] = w;
    return 1;
}

void atf_merge_destroy(atf_merge *m)
{
    if (!m)
        return;
    free(m->c);
    free(m->tree);
    free(m->keys);
    free(m);
}
