/* Streaming k-way merge of a session's threads by (timestamp, thread id, seq):
 * a binary min-heap holding one cursor per thread. */
#include <stdlib.h>

#include <atf/session.h>

typedef struct cursor {
    const atf_session_thread *t;
    size_t thread_index;
    uint64_t seq;
    atf_index_event ev;
} cursor;

struct atf_merge {
    cursor *heap;
    size_t n;
};

static int before(const cursor *a, const cursor *b)
{
    if (a->ev.timestamp_ns != b->ev.timestamp_ns)
        return a->ev.timestamp_ns < b->ev.timestamp_ns;
    if (a->t->id != b->t->id)
        return a->t->id < b->t->id;
    return a->seq < b->seq;
}

static void sift_down(atf_merge *m, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < m->n && before(&m->heap[l], &m->heap[best]))
            best = l;
        if (r < m->n && before(&m->heap[r], &m->heap[best]))
            best = r;
        if (best == i)
            return;
        cursor tmp = m->heap[i];
        m->heap[i] = m->heap[best];
        m->heap[best] = tmp;
        i = best;
    }
}

atf_status atf_merge_create(atf_merge **out, const atf_session *s)
{
    if (!out || !s)
        return ATF_E_ARG;
    *out = NULL;
    atf_merge *m = calloc(1, sizeof *m);
    size_t k = atf_session_thread_count(s);
    if (!m || !(m->heap = calloc(k ? k : 1, sizeof *m->heap))) {
        free(m);
        return ATF_E_NOMEM;
    }
    for (size_t i = 0; i < k; i++) {
        cursor c = { atf_session_thread_at(s, i), i, 0, { 0 } };
        if (atf_index_reader_get(c.t->index, 0, &c.ev) == ATF_OK)
            m->heap[m->n++] = c;
    }
    for (size_t i = m->n / 2; i-- > 0;)
        sift_down(m, i);
    *out = m;
    return ATF_OK;
}

int atf_merge_next(atf_merge *m, atf_merged_event *out)
{
    if (!m || !out || m->n == 0)
        return 0;
    cursor *top = &m->heap[0];
    out->thread_index = top->thread_index;
    out->thread_id = top->t->id;
    out->seq = top->seq;
    out->event = top->ev;
    top->seq++;
    if (atf_index_reader_get(top->t->index, top->seq, &top->ev) != ATF_OK)
        m->heap[0] = m->heap[--m->n];
    sift_down(m, 0);
    return 1;
}

void atf_merge_destroy(atf_merge *m)
{
    if (!m)
        return;
    free(m->heap);
    free(m);
}
