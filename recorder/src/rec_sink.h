/* One file being written (rec_sink.c): its staging window, the chunks
 * handed to the writer's I/O pool (rec_io.h), flushing, patching, sealing. */
#ifndef ATF_REC_SINK_H
#define ATF_REC_SINK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <atf/recorder.h>

#include "rec_base.h"
#include "rec_budget.h"
#include "rec_io.h"

/* One file being written: a staging window over the file's byte space
 * (file offset f lives at buf[f % size]); whole chunks are written with
 * O_DIRECT by the I/O thread, partial tails with buffered pwrite. */
typedef struct rec_sink {
    struct rec_io *io;
    rec_budget *budget;          /* NULL: not accounted */
    char *path;
    int fd;                      /* buffered descriptor (tails, header, footer, patches) */
    int fd_direct;               /* O_DIRECT descriptor, or -1 */
    int direct;                  /* O_DIRECT wanted (reopened after parking) */
    int parked;                  /* idle: no window, no descriptors (rec_sink_park) */
    int borrowed;                /* the window is the writer's spare (rec_sink_unpark_into) */
    uint8_t *buf;
    uint64_t size, chunk;        /* staging bytes (multiple of chunk), chunk (multiple of 4096) */
    uint64_t max_size, max_chunk;/* the window grows up to these */
    uint64_t fill;               /* bytes appended (logical file size) */
    uint64_t sub;                /* bytes handed to O_DIRECT (or chunk) writes */
    _Atomic uint64_t done;       /* chunk writes completed up to here */
    _Atomic uint64_t visible;    /* bytes known to be in the file */
    _Atomic uint32_t inflight;   /* queued or running requests */
    int io_busy;                 /* an I/O thread runs one of its requests (io->mu) */
    _Atomic int err;             /* errno of the first failure, 0 if none */
    uint32_t crc;                /* CRC32-C of [64, crc_end) when checksum */
    uint64_t crc_end;
    int checksum;
    uint64_t flushed_sub;        /* sub at the last flush-timer check */
    uint64_t checked_fill;       /* fill at the last flush-timer check */
    uint64_t flush_check_ns;
    uint64_t durable_at_error;   /* visible when the first error was seen */
    int open;
} rec_sink;

/* Creates path (atomically: a temp name renamed into place) holding the
 * 64-byte header, and its staging window: REC_SINK_MIN bytes at first,
 * grown two or four times (budget permitting, within the file's share of
 * it) whenever the writer would otherwise wait for the disk, up to chunk x
 * chunks. direct: try O_DIRECT. budget: NULL or
 * where the window's bytes are taken from. */
#define REC_SINK_MIN (2u * REC_BLOCK)
#define REC_SINK_EFFICIENT (2u << 20)   /* see rec_sink_try_reserve */

/* Memory for a window of @size bytes, present (munmap to free): 2 MiB huge
 * pages when @size is whole 2 MiB and the system has them (rec_sink.c says
 * why). atf-bench recorder's raw-bandwidth baseline writes from the same. */
uint8_t *rec_map_window(uint64_t size);
atf_status rec_sink_open(rec_sink *s, rec_io *io, const char *path, const uint8_t header[64],
                         uint64_t chunk, unsigned chunks, int direct, int checksum, rec_budget *budget,
                         atf_error *err);
/* A new file in a directory nobody sees yet (a thread's .thread_K.tmp,
 * renamed into place once its files exist): created under its own name (no
 * temporary name and rename of its own) and parked from the start (its
 * header written, no window and no descriptor until it is first written
 * to): a file that may never be written to costs a directory entry and 64
 * bytes, and an idle thread's file no window mapped and unmapped. */
atf_status rec_sink_open_parked(rec_sink *s, rec_io *io, const char *path, const uint8_t header[64],
                                uint64_t chunk, unsigned chunks, int direct, int checksum,
                                rec_budget *budget, atf_error *err);
/* A file written far slower than its window: a window a quarter the size
 * (everything appended is written first). @return 1 if shrunk. */
int rec_sink_shrink(rec_sink *s);
/* An idle file gives back its window and descriptors: everything appended
 * is written first (waits). @return 1 if parked. */
int rec_sink_park(rec_sink *s);
/* Brings a parked file back (smallest window, descriptors reopened, its
 * last partial block read back). force: take the window even beyond the
 * budget (finalizing). @return 1 when ready, 0 if the budget has no room
 * now (the sink stays parked; try again later). I/O failures fail the sink
 * (counted like any write error) and return 1. */
int rec_sink_unpark(rec_sink *s, int force);
/* The same with a REC_SINK_MIN window lent by the caller (the writer's
 * spare, outside the budget): it never grows and goes back to the caller
 * when the sink is parked or closed. */
void rec_sink_unpark_into(rec_sink *s, uint8_t *spare);
/* Appends n bytes (waits for I/O when the window is full). */
void rec_sink_append(rec_sink *s, const void *src, size_t n);
/* Bytes that can be appended now without waiting, and contiguous from fill. */
uint64_t rec_sink_space(rec_sink *s, uint64_t *contig);
/* Waits until at least want bytes can be appended (submitting what is complete). */
void rec_sink_reserve(rec_sink *s, uint64_t want);
/* The same without waiting: submits what is complete and makes the window
 * bigger if the budget allows, beyond REC_SINK_EFFICIENT only if grow. @return 1 if want bytes can be
 * appended now (or nothing is in flight to wait for), 0 if only the disk
 * can make room. */
int rec_sink_try_reserve(rec_sink *s, uint64_t want, int grow);
static inline uint8_t *rec_sink_at(rec_sink *s, uint64_t off) { return s->buf + (off % s->size); }
/* Submits every complete chunk. */
void rec_sink_kick(rec_sink *s);
/* Extends the CRC over the bytes appended up to end (done at submission;
 * the index drain calls it per block while the block is in L1). */
void rec_sink_crc_to(rec_sink *s, uint64_t end);
/* Writes everything appended so far to the file (whole blocks direct, the
 * tail buffered) and waits for it. */
void rec_sink_flush(rec_sink *s);
/* The same without waiting (flush timer). */
void rec_sink_flush_async(rec_sink *s);
/* Reads the current bytes [off, off + n) (window or file). */
void rec_sink_read(rec_sink *s, uint64_t off, void *dst, size_t n);
void rec_sink_wait_idle(rec_sink *s);
/* Overwrites n bytes at file offset off (off + n <= fill) in the staging
 * window and/or the file, keeping the CRC right. Caller batches patches. */
void rec_sink_patch(rec_sink *s, uint64_t off, const void *src, size_t n);
/* Writes everything appended (whole blocks direct, the tail buffered and
 * synchronously) and completes the CRC. @return the CRC of [64, fill). */
uint32_t rec_sink_seal(rec_sink *s);
/* After rec_sink_seal(): footer at fill, fdatasync if sync, header at 0,
 * fdatasync if sync. Closes the descriptors and frees the window. */
atf_status rec_sink_finish(rec_sink *s, const uint8_t footer[64], const uint8_t header[64], int sync);
/* Closes without a footer (after an error). */
void rec_sink_abandon(rec_sink *s);

/* CRC32-C helpers for patches (exposed for tests). */
uint32_t rec_crc32c_shift(uint32_t raw, uint64_t zero_bytes);
uint32_t rec_crc32c_patch(uint32_t crc, uint64_t crc_len, uint64_t pos, const void *old_bytes,
                          const void *new_bytes, size_t n);

/* Performs one write request (called by an I/O thread, outside io->mu). */
void rec_sink_perform(const rec_ioreq *rq);

#endif /* ATF_REC_SINK_H */
