
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/tools.h>

#include "dump_internal.h"
#include "internal.h"

/* ---- The dump on several cores ----------------------------------------
 *
 * The dump writes threads one after the other, each in file order, so its
 * text is a sequence of chunks (a run of one thread's events) that can be
 * formatted independently: jobs - 1 worker threads and this one take
 * chunks in order and format each into a slot's in-memory buffer; this
 * thread writes the slots out in chunk order (formatting the next chunk
 * while the one to write is not ready). The bytes are those of the dump in one thread. Memory is
 * fixed: 2 x jobs + 2 slots, each a buffer for DUMP_CHUNK_EVENTS lines
 * (larger only while a chunk's lines are, by their detail payloads). A
 * thread holding only a detail lane is written by this thread, in turn. */

#define DUMP_CHUNK_EVENTS 512       /* JSON lines average ~350 bytes: a chunk stays in its 256 KiB buffer */

enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };

typedef struct par_slot {
    uint64_t chunk;
    uint64_t lines;   /* events written */
    int state;
    obuf o;           /* in memory */
} par_slot;

typedef struct par_thread {
    uint64_t first, last;   /* events [first, last) (window_range) */
    uint64_t chunk0;        /* its first chunk */
    int exact;
    int lone;               /* a lone detail lane: one chunk, written by the writer */
} par_thread;

typedef struct par_dump {
    const tool_source *src;
    const atf_tool_options *opts;
    int json;
    par_thread *threads;    /* src->thread_count of them */
    uint64_t nchunks, next;
    par_slot **slots;
    size_t nslots;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} par_dump;

typedef struct par_worker {
    par_dump *p;
    pthread_t tid;
    symbol_cache sc;
} par_worker;

/* The thread of chunk c: the last whose first chunk is at most c. */
static size_t par_thread_of(const par_dump *p, uint64_t c)
{
    size_t lo = 0, hi = p->src->thread_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->threads[mid].chunk0 <= c)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void par_format(par_dump *p, par_worker *w, par_slot *s)
{
    size_t i = par_thread_of(p, s->chunk);
    const par_thread *pt = &p->threads[i];
    const tool_thread *t = &p->src->threads[i];
    ob_reset(&s->o);
    s->lines = 0;
    if (pt->lone)
        return;
    uint64_t a = pt->first + (s->chunk - pt->chunk0) * DUMP_CHUNK_EVENTS;
    uint64_t b = pt->last - a > DUMP_CHUNK_EVENTS ? a + DUMP_CHUNK_EVENTS : pt->last;
    for (uint64_t seq = a; seq < b; seq++) {
        atf_index_event e;
        atf_index_reader_get(t->index, seq, &e);
        if (!pt->exact && (e.timestamp_ns < p->opts->from_ns || e.timestamp_ns > p->opts->to_ns))
            continue;
        if (p->json)
            put_index_json(&s->o, t, &w->sc, seq, &e);
        else
            put_index_text(&s->o, t, &w->sc, seq, &e);
        s->lines++;
    }
}

/* Takes the next chunk and formats it, if its slot is free; called and
 * returns with p->mu held. @return 1 if it did, 0 if there was none. */
static int par_take(par_dump *p, par_worker *w)
{
    if (p->stop || p->next >= p->nchunks)
        return 0;
    par_slot *s = p->slots[p->next % p->nslots];
    if (s->state != SLOT_FREE)   /* the writer has not taken it yet */
        return 0;
    s->chunk = p->next++;
    s->state = SLOT_BUSY;
    pthread_mutex_unlock(&p->mu);
    par_format(p, w, s);
    pthread_mutex_lock(&p->mu);
    s->state = SLOT_READY;
    pthread_cond_broadcast(&p->cv);
    return 1;
}

static void *par_work(void *arg)
{
    par_worker *w = arg;
    par_dump *p = w->p;
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->next < p->nchunks)
        if (!par_take(p, w))
            pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void par_free(par_dump *p, size_t nslots)
{
    for (size_t i = 0; i < nslots; i++) {
        ob_release(&p->slots[i]->o);
        free(p->slots[i]);
    }
    free(p->slots);
    free(p->threads);
}

/* The events of d's source through @jobs workers. @return 0; -1 when there
 * was not memory or a thread to start them (nothing was written: the
 * caller dumps in this thread); -2 when a chunk ran out of memory. */
int par_dump_run(dump_out *d, const tool_source *src, const atf_tool_options *opts, unsigned jobs)
{
    par_dump p = { src, opts, d->json, NULL, 0, 0, NULL, 2 * (size_t)jobs + 2, 0,
                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
    par_worker *w = calloc(jobs, sizeof *w);
    p.threads = calloc(src->thread_count ? src->thread_count : 1, sizeof *p.threads);
    p.slots = calloc(p.nslots, sizeof *p.slots);
    size_t made = 0;
    while (w && p.threads && p.slots && made < p.nslots && (p.slots[made] = malloc(sizeof *p.slots[made])) != NULL) {
        ob_init_mem(&p.slots[made]->o);
        p.slots[made++]->state = SLOT_FREE;
    }
    if (made < p.nslots) {
        par_free(&p, made);
        free(w);
        return -1;
    }
    for (size_t i = 0; i < src->thread_count; i++) {
        const tool_thread *t = &src->threads[i];
        par_thread *pt = &p.threads[i];
        pt->chunk0 = p.nchunks;
        if (!tool_thread_wanted(opts, t->id))
            continue;
        if (!t->index) {
            pt->lone = t->detail != NULL;
            p.nchunks += pt->lone;
            continue;
        }
        window_range(t, opts, &pt->first, &pt->last, &pt->exact);
        p.nchunks += (pt->last - pt->first + DUMP_CHUNK_EVENTS - 1) / DUMP_CHUNK_EVENTS;
    }
    /* w[0] is this thread's. */
    for (unsigned i = 0; i < jobs; i++) {
        w[i].p = &p;
        symbol_cache_init(&w[i].sc, src->manifest);
    }
    unsigned started = 1;
    for (; started < jobs; started++)
        if (pthread_create(&w[started].tid, NULL, par_work, &w[started]) != 0)
            break;
    int rc = 0;
    if (started == 1) {
        rc = -1;
        p.nchunks = 0;
    }
    for (uint64_t c = 0; c < p.nchunks; c++) {
        par_slot *s = p.slots[c % p.nslots];
        pthread_mutex_lock(&p.mu);
        while (s->state != SLOT_READY || s->chunk != c)
            if (!par_take(&p, &w[0]))
                pthread_cond_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
        size_t ti = par_thread_of(&p, c);
        if (p.threads[ti].lone) {
            dump_lone_detail(&d->o, &src->threads[ti], d->json, opts);
        } else if (s->o.failed) {
            rc = -2;
        } else if (ob_flush(&d->o) == 0 && ob_write_mem(&s->o, d->o.f) != 0) {
            d->o.failed = 1;
        }
        d->done += s->lines;
        if (d->done >= d->next_report && opts && opts->progress) {
            opts->progress(opts->progress_user, d->done, d->total);
            d->next_report = d->done + PROGRESS_STEP;
        }
        pthread_mutex_lock(&p.mu);
        s->state = SLOT_FREE;
        if (rc || d->o.failed)
            p.stop = 1;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        if (p.stop)
            break;
    }
    for (unsigned i = 1; i < started; i++)
        pthread_join(w[i].tid, NULL);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    par_free(&p, p.nslots);
    free(w);
    return rc;
}
