/* A writer's I/O thread pool (rec_io.c): performs the write requests the
 * writer queues for its files (rec_sink.c fills the windows and queues the
 * requests; rec_sink_perform() is what a request runs). */
#ifndef ATF_REC_IO_H
#define ATF_REC_IO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct rec_sink;

typedef struct rec_ioreq {
    struct rec_sink *s;
    uint64_t off, len;
    int buffered;
} rec_ioreq;

/* A writer's I/O threads: requests of different files run side by side
 * (the disk is faster with several writes in flight), those of one file
 * one at a time and in order. */
#define REC_IOQ 64u
#define REC_IO_THREADS 4u
typedef struct rec_io {
    pthread_mutex_t mu;
    pthread_cond_t cv_req, cv_done;
    rec_ioreq q[REC_IOQ];
    unsigned head, count;
    unsigned running;            /* requests being performed */
    int quit;
    unsigned started;            /* I/O threads running */
    pthread_t th[REC_IO_THREADS];
    _Atomic uint64_t completed;  /* requests done, of every file (written under mu) */
} rec_io;

int rec_io_start(rec_io *io);
void rec_io_stop(rec_io *io);
/* Requests done so far, of every file of this writer. */
uint64_t rec_io_completed(rec_io *io);
/* Sleeps until more than @seen requests are done (any file), or none is
 * queued or running: the writer's wait when every file it could fill is
 * waiting for the disk. */
void rec_io_wait_completion(rec_io *io, uint64_t seen);
/* Takes out of the queue the first request whose file has none running (a
 * file's requests run one at a time, in order); caller holds io->mu.
 * @return 0, or -1 if none may run now (exposed for tests). */
int rec_io_take(rec_io *io, rec_ioreq *out);
/* Queues a request (waits while the queue is full). */
void rec_io_submit(rec_io *io, struct rec_sink *s, uint64_t off, uint64_t len, int buffered);

#endif /* ATF_REC_IO_H */
