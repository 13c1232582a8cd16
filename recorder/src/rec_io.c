/* A writer's I/O thread pool: REC_IO_THREADS threads take write requests
 * from one queue. Requests of different files run side by side, those of
 * one file one at a time and in order (rec_io_take skips a file whose
 * request is running). What a request does is the sink's
 * (rec_sink_perform); the pool only orders, runs and counts them. */
#include <pthread.h>
#include <string.h>

#include "rec_base.h"
#include "rec_io.h"
#include "rec_sink.h"

int rec_io_take(rec_io *io, rec_ioreq *out)
{
    for (unsigned i = 0; i < io->count; i++) {
        unsigned at = (io->head + i) % REC_IOQ;
        if (io->q[at].s->io_busy)
            continue;
        *out = io->q[at];
        /* Close the gap: the requests before it move up by one. */
        for (unsigned j = i; j > 0; j--)
            io->q[(io->head + j) % REC_IOQ] = io->q[(io->head + j - 1) % REC_IOQ];
        io->head = (io->head + 1) % REC_IOQ;
        io->count--;
        return 0;
    }
    return -1;
}

static void *io_main(void *arg)
{
    rec_io *io = arg;
#if defined(__linux__)
    pthread_setname_np(pthread_self(), "atf-rec-io");
#endif
    pthread_mutex_lock(&io->mu);
    for (;;) {
        rec_ioreq rq;
        while (rec_io_take(io, &rq) != 0) {
            if (io->quit && io->count == 0)
                goto out;
            pthread_cond_wait(&io->cv_req, &io->mu);
        }
        rq.s->io_busy = 1;
        io->running++;
        pthread_cond_broadcast(&io->cv_done);
        pthread_mutex_unlock(&io->mu);
        rec_sink_perform(&rq);
        pthread_mutex_lock(&io->mu);
        rq.s->io_busy = 0;
        io->running--;
        atomic_fetch_sub_explicit(&rq.s->inflight, 1, REL);
        atomic_fetch_add_explicit(&io->completed, 1, REL);
        pthread_cond_broadcast(&io->cv_done);
        /* The file's next request may have waited for this one; at quit,
         * the others may now see the queue empty. */
        if (io->count || io->quit)
            pthread_cond_broadcast(&io->cv_req);
    }
out:
    pthread_mutex_unlock(&io->mu);
    return NULL;
}

int rec_io_start(rec_io *io)
{
    memset(io, 0, sizeof *io);
    pthread_mutex_init(&io->mu, NULL);
    pthread_cond_init(&io->cv_req, NULL);
    pthread_cond_init(&io->cv_done, NULL);
    for (unsigned i = 0; i < REC_IO_THREADS; i++) {
        if (pthread_create(&io->th[i], NULL, io_main, io) != 0)
            break;
        io->started++;
    }
    if (io->started)
        return 0;
    pthread_cond_destroy(&io->cv_req);
    pthread_cond_destroy(&io->cv_done);
    pthread_mutex_destroy(&io->mu);
    return -1;
}

void rec_io_stop(rec_io *io)
{
    if (!io->started)
        return;
    pthread_mutex_lock(&io->mu);
    io->quit = 1;
    pthread_cond_broadcast(&io->cv_req);
    pthread_mutex_unlock(&io->mu);
    for (unsigned i = 0; i < io->started; i++)
        pthread_join(io->th[i], NULL);
    io->started = 0;
    pthread_cond_destroy(&io->cv_req);
    pthread_cond_destroy(&io->cv_done);
    pthread_mutex_destroy(&io->mu);
}

uint64_t rec_io_completed(rec_io *io)
{
    return atomic_load_explicit(&io->completed, ACQ);
}

void rec_io_wait_completion(rec_io *io, uint64_t seen)
{
    pthread_mutex_lock(&io->mu);
    while (atomic_load_explicit(&io->completed, RLX) == seen && (io->count || io->running) && !io->quit)
        pthread_cond_wait(&io->cv_done, &io->mu);
    pthread_mutex_unlock(&io->mu);
}

void rec_io_submit(rec_io *io, rec_sink *s, uint64_t off, uint64_t len, int buffered)
{
    pthread_mutex_lock(&io->mu);
    while (io->count == REC_IOQ)
        pthread_cond_wait(&io->cv_done, &io->mu);
    io->q[(io->head + io->count) % REC_IOQ] = (rec_ioreq){ s, off, len, buffered };
    io->count++;
    atomic_fetch_add_explicit(&s->inflight, 1, RLX);
    pthread_cond_signal(&io->cv_req);
    pthread_mutex_unlock(&io->mu);
}
