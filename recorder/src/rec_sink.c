/* Files written by the recorder: a staging window per file, whole chunks
 * written with O_DIRECT by a writer's I/O threads, partial tails with a
 * buffered pwrite, and patches with the CRC kept right.
 *
 * Why the file on disk is a valid crash-truncated ATF file at every instant:
 *  - it appears (rename) only once it holds its 64-byte header;
 *  - the I/O threads perform the requests of a file one at a time and
 *    strictly in order (requests of different files run side by side), and
 *    each request starts where the bytes on disk end (chunk writes extend the
 *    file; a tail write covers [sub, fill) and is later overwritten, with the
 *    same bytes and more, by the chunk write of that range);
 *  - nothing is written ahead of unwritten bytes, so the file is always the
 *    header plus a prefix of the events (possibly ending inside an event,
 *    which readers ignore) — no padding or zero blocks ever become visible.
 *  O_DIRECT writes are 4096-aligned in offset, length and memory because the
 *  window maps file offset f to buf[f % size] and sizes are block multiples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/crc32c.h>

#include "rec_base.h"
#include "rec_budget.h"
#include "rec_io.h"
#include "rec_sink.h"

/* ---- CRC32-C arithmetic for patches --------------------------------------- */

/* raw * x^(8 zero_bytes) mod P: the CRC register moved over zero bytes,
 * which is atf_crc32c_combine with an empty second part's CRC of 0. */
uint32_t rec_crc32c_shift(uint32_t raw, uint64_t zero_bytes)
{
    return atf_crc32c_combine(raw, 0, zero_bytes);
}

/* The CRC of a message of crc_len bytes whose bytes [pos, pos + n) change
 * from old_bytes to new_bytes: CRC is affine, so the change is the raw
 * (zero-initialised, unconditioned) CRC of the XOR difference, shifted over
 * the bytes that follow it. */
uint32_t rec_crc32c_patch(uint32_t crc, uint64_t crc_len, uint64_t pos, const void *old_bytes,
                          const void *new_bytes, size_t n)
{
    const uint8_t *a = old_bytes, *b = new_bytes;
    uint8_t d[256];
    uint32_t r = 0xFFFFFFFFu;   /* atf_crc32c state whose raw register is 0 */
    for (size_t i = 0; i < n;) {
        size_t k = n - i < sizeof d ? n - i : sizeof d;
        for (size_t j = 0; j < k; j++)
            d[j] = a[i + j] ^ b[i + j];
        r = atf_crc32c(r, d, k);
        i += k;
    }
    uint32_t raw = ~r;
    return crc ^ rec_crc32c_shift(raw, crc_len - pos - n);
}

/* ---- Performing a write request (on an I/O thread) --------------------------------------------------------------- */

/* Descriptors, counted in the budget (the writer parks files beyond a
 * share of RLIMIT_NOFILE). */
static int open_fd(rec_sink *s, const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC, 0644);
    if (fd >= 0 && s->budget)
        atomic_fetch_add_explicit(&s->budget->files, 1, RLX);
    return fd;
}

static void close_fd(rec_sink *s, int *fd)
{
    if (*fd < 0)
        return;
    close(*fd);
    *fd = -1;
    if (s->budget)
        atomic_fetch_sub_explicit(&s->budget->files, 1, RLX);
}

static int write_all(int fd, const uint8_t *p, uint64_t n, uint64_t off)
{
    while (n) {
        ssize_t w = pwrite(fd, p, n > (1u << 30) ? (1u << 30) : n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        n -= (uint64_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

static void set_visible(rec_sink *s, uint64_t end)
{
    uint64_t v = atomic_load_explicit(&s->visible, RLX);
    if (end > v)
        atomic_store_explicit(&s->visible, end, REL);
}

static void fail(rec_sink *s, int e)
{
    if (atomic_load_explicit(&s->err, RLX) == 0) {
        s->durable_at_error = atomic_load_explicit(&s->visible, RLX);
        atomic_store_explicit(&s->err, e ? e : EIO, REL);
    }
}

void rec_sink_perform(const rec_ioreq *rq)
{
    rec_sink *s = rq->s;
    if (atomic_load_explicit(&s->err, ACQ) == 0) {
        const uint8_t *src = s->buf + rq->off % s->size;
        int rc;
        if (!rq->buffered && s->fd_direct >= 0) {
            rc = write_all(s->fd_direct, src, rq->len, rq->off);
            if (rc != 0 && errno == EINVAL) {
                /* The file system refuses O_DIRECT after all: go buffered. */
                close_fd(s, &s->fd_direct);
                rc = write_all(s->fd, src, rq->len, rq->off);
            }
        } else {
            rc = write_all(s->fd, src, rq->len, rq->off);
        }
        if (rc != 0)
            fail(s, errno);
        else
            set_visible(s, rq->off + rq->len);
    }
    if (!rq->buffered)
        atomic_store_explicit(&s->done, rq->off + rq->len, REL);
}

/* ---- Windows that follow the work ---------------------------------------------- */

static int take(rec_sink *s, uint64_t n, int kind)
{
    return s->budget ? rec_budget_take(s->budget, n, kind) : 1;
}

static void give(rec_sink *s, uint64_t n)
{
    if (s->budget)
        rec_budget_give(s->budget, n);
}

/* A window of @size bytes, its pages present. A window of whole 2 MiB
 * huge pages is asked for in them (madvise: transparent huge pages), 2 MiB
 * aligned: an O_DIRECT write of a 2 MiB chunk is then one physically
 * contiguous segment, where 512 pages of 4 KiB each were one segment apiece
 * and split the request (a virtio disk takes 254 segments per request).
 * Measured on this project's VM, 1 GiB in 2 MiB O_DIRECT writes: 4.1-4.4
 * GB/s from huge pages against 2.6-2.7 GB/s from 4 KiB pages, alternated
 * (29 Nov 2026). Where huge pages are off, the same mapping has small ones. */
#define REC_HUGE_PAGE (2u << 20)
uint8_t *rec_map_window(uint64_t size)
{
#if defined(MADV_HUGEPAGE)
    if (size >= REC_HUGE_PAGE && size % REC_HUGE_PAGE == 0) {
        uint8_t *m = mmap(NULL, size + REC_HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        uint8_t *b = (uint8_t *)(((uintptr_t)m + REC_HUGE_PAGE - 1) & ~(uintptr_t)(REC_HUGE_PAGE - 1));
        size_t head = (size_t)(b - m), tail = REC_HUGE_PAGE - head;   /* the slack around [b, b + size) */
        if (head)
            munmap(m, head);
        if (tail)
            munmap(b + size, tail);
        (void)madvise(b, size, MADV_HUGEPAGE);
        /* Present now, as MAP_POPULATE would have made them (no page fault
         * while recording). */
#if defined(MADV_POPULATE_WRITE)
        if (madvise(b, size, MADV_POPULATE_WRITE) == 0)
            return b;
#endif
        for (uint64_t k = 0; k < size; k += REC_BLOCK)
            b[k] = 0;
        return b;
    }
#endif
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static uint64_t chunk_for(const rec_sink *s, uint64_t size)
{
    return size / 2 < s->max_chunk ? size / 2 : s->max_chunk;
}

/* Moves the window to a new buffer of `size` bytes (already taken from the
 * budget). Nothing may be in flight (the I/O thread reads the window), and
 * the bytes not yet handed to a chunk write, [sub, fill), must fit. */
static void move_window(rec_sink *s, uint8_t *nbuf, uint64_t size)
{
    for (uint64_t f = s->sub; f < s->fill;) {
        uint64_t a = f % s->size, b = f % size;
        uint64_t n = s->fill - f;
        if (n > s->size - a)
            n = s->size - a;
        if (n > size - b)
            n = size - b;
        memcpy(nbuf + b, s->buf + a, n);
        f += n;
    }
    munmap(s->buf, s->size);
    give(s, s->size);
    s->buf = nbuf;
    s->size = size;
    s->chunk = chunk_for(s, size);
}

/* The writer would wait for the disk: a bigger window, if the budget has
 * growth room and within the file's share of it, never past @limit: up to
 * four times the size at once (seven doublings from the 8 KiB floor to
 * 1 MiB were seven waits for the disk, each after the writes in flight,
 * with small writes meanwhile; four times undoes one rec_sink_shrink).
 * @return 1 if grown. */
static int grow_window(rec_sink *s, uint64_t limit)
{
    uint64_t cap = s->max_size < limit ? s->max_size : limit;
    if (s->budget) {
        uint64_t share = rec_budget_share(s->budget, 0);
        cap = share < cap ? share : cap;
    }
    uint64_t size = s->size * 2;
    if (size * 2 <= cap)
        size *= 2;
    if (s->borrowed || size > cap || !take(s, size, REC_TAKE_GROW))
        return 0;
    uint8_t *nbuf = rec_map_window(size);
    if (!nbuf) {
        give(s, size);
        return 0;
    }
    rec_sink_wait_idle(s);
    move_window(s, nbuf, size);
    return 1;
}

/* Extends the CRC (it covers [64, crc_end)) up to end <= fill. Chunk
 * submission extends it over what it submits (still in the L2 cache); the
 * index drain extends it per 8 KiB block, while the block is in L1. */
void rec_sink_crc_to(rec_sink *s, uint64_t end)
{
    if (s->crc_end < ATF_INDEX_HEADER_SIZE)
        s->crc_end = ATF_INDEX_HEADER_SIZE;
    while (s->crc_end < end) {
        uint64_t pos = s->crc_end % s->size;
        uint64_t n = end - s->crc_end;
        if (n > s->size - pos)
            n = s->size - pos;
        if (s->checksum)
            s->crc = atf_crc32c(s->crc, s->buf + pos, n);
        s->crc_end += n;
    }
}

static void crc_range(rec_sink *s, uint64_t a, uint64_t b)
{
    (void)a;
    rec_sink_crc_to(s, b);
}

void rec_sink_kick(rec_sink *s)
{
    for (;;) {
        uint64_t end = (s->sub / s->chunk + 1) * s->chunk;
        if (s->fill < end)
            return;
        crc_range(s, s->sub, end);
        rec_io_submit(s->io, s, s->sub, end - s->sub, 0);
        s->sub = end;
    }
}

uint64_t rec_sink_space(rec_sink *s, uint64_t *contig)
{
    if (REC_UNLIKELY(s->parked))
        rec_sink_unpark(s, 1);
    uint64_t done = atomic_load_explicit(&s->done, ACQ);
    uint64_t avail = s->size - (s->fill - done);
    uint64_t to_wrap = s->size - s->fill % s->size;
    *contig = avail < to_wrap ? avail : to_wrap;
    return avail;
}

void rec_sink_wait_idle(rec_sink *s)
{
    if (atomic_load_explicit(&s->inflight, ACQ) == 0)
        return;
    rec_io *io = s->io;
    pthread_mutex_lock(&io->mu);
    while (atomic_load_explicit(&s->inflight, ACQ) != 0)
        pthread_cond_wait(&io->cv_done, &io->mu);
    pthread_mutex_unlock(&io->mu);
}

static uint64_t clamp_want(const rec_sink *s, uint64_t want)
{
    return want > s->size - s->chunk ? s->size - s->chunk : want;
}

int rec_sink_try_reserve(rec_sink *s, uint64_t want, int grow)
{
    uint64_t contig;
    want = clamp_want(s, want);
    if (rec_sink_space(s, &contig) >= want)
        return 1;
    rec_sink_kick(s);
    if (rec_sink_space(s, &contig) >= want || atomic_load_explicit(&s->inflight, ACQ) == 0)
        return 1;
    /* Windows up to 2 MiB (1 MiB writes, near the disk's best) grow
     * whenever the disk holds them up; bigger ones only if grow. */
    return grow_window(s, grow ? UINT64_MAX : REC_SINK_EFFICIENT);
}

void rec_sink_reserve(rec_sink *s, uint64_t want)
{
    uint64_t contig;
    if (rec_sink_try_reserve(s, want, 1))
        return;
    want = clamp_want(s, want);
    rec_io *io = s->io;
    pthread_mutex_lock(&io->mu);
    while (rec_sink_space(s, &contig) < want && atomic_load_explicit(&s->inflight, ACQ) != 0)
        pthread_cond_wait(&io->cv_done, &io->mu);
    pthread_mutex_unlock(&io->mu);
}

void rec_sink_append(rec_sink *s, const void *src, size_t n)
{
    const uint8_t *p = src;
    if (s->parked)
        rec_sink_unpark(s, 1);
    while (n) {
        uint64_t contig;
        rec_sink_space(s, &contig);
        if (contig == 0) {
            rec_sink_reserve(s, n < s->chunk ? n : s->chunk);
            continue;
        }
        size_t k = n < contig ? n : (size_t)contig;
        memcpy(rec_sink_at(s, s->fill), p, k);
        s->fill += k;
        p += k;
        n -= k;
        rec_sink_kick(s);
    }
}

/* Submits every whole block not submitted yet. */
static void submit_blocks(rec_sink *s)
{
    rec_sink_kick(s);
    uint64_t blk = s->fill & ~(uint64_t)(REC_BLOCK - 1);
    if (blk > s->sub) {
        crc_range(s, s->sub, blk);
        rec_io_submit(s->io, s, s->sub, blk - s->sub, 0);
        s->sub = blk;
    }
}

/* Submits every whole block; then the tail, buffered, if it is not in the
 * file yet. */
static void submit_all(rec_sink *s)
{
    submit_blocks(s);
    if (s->fill > s->sub && atomic_load_explicit(&s->visible, ACQ) < s->fill)
        rec_io_submit(s->io, s, s->sub, s->fill - s->sub, 1);
}

void rec_sink_flush(rec_sink *s)
{
    submit_all(s);
    rec_sink_wait_idle(s);
}

void rec_sink_flush_async(rec_sink *s)
{
    submit_all(s);
}

/* Reads the current bytes [off, off + n): from the window at or after sub,
 * else from the file (after the writes in flight are done). */
void rec_sink_read(rec_sink *s, uint64_t off, void *dst_, size_t n)
{
    uint8_t *dst = dst_;
    if (s->parked)
        rec_sink_unpark(s, 1);
    while (n) {
        if (off >= s->sub) {
            for (size_t i = 0; i < n; i++)
                dst[i] = *rec_sink_at(s, off + i);
            return;
        }
        size_t k = s->sub - off < n ? (size_t)(s->sub - off) : n;
        rec_sink_wait_idle(s);
        ssize_t got = pread(s->fd, dst, k, (off_t)off);
        if (got != (ssize_t)k) {
            /* Unreadable (I/O error): treat as zeros; the sink is failed. */
            memset(dst, 0, k);
            fail(s, got < 0 ? errno : EIO);
        }
        off += k;
        dst += k;
        n -= k;
    }
}

void rec_sink_patch(rec_sink *s, uint64_t off, const void *src, size_t n)
{
    const uint8_t *p = src;
    uint8_t old[256];
    if (s->parked)
        rec_sink_unpark(s, 1);
    /* A tail write in flight reads the window: let it finish first. */
    rec_sink_wait_idle(s);
    while (n) {
        size_t k = n < sizeof old ? n : sizeof old;
        if (off < s->sub && off + k > s->sub)
            k = (size_t)(s->sub - off);
        if (off < s->crc_end && off + k > s->crc_end)
            k = (size_t)(s->crc_end - off);
        rec_sink_read(s, off, old, k);
        if (s->checksum && off < s->crc_end && off >= ATF_INDEX_HEADER_SIZE)
            s->crc = rec_crc32c_patch(s->crc, s->crc_end - ATF_INDEX_HEADER_SIZE, off - ATF_INDEX_HEADER_SIZE,
                                      old, p, k);
        if (off >= s->sub) {
            /* Not yet handed to a chunk write: the window is authoritative.
             * A tail already in the file gets the same bytes. */
            for (size_t i = 0; i < k; i++)
                *rec_sink_at(s, off + i) = p[i];
            if (off < atomic_load_explicit(&s->visible, ACQ) && write_all(s->fd, p, k, off) != 0)
                fail(s, errno);
        } else if (write_all(s->fd, p, k, off) != 0) {
            fail(s, errno);
        }
        off += k;
        p += k;
        n -= k;
    }
}

static int open_fds(rec_sink *s, const char *path)
{
    s->fd = open_fd(s, path, O_RDWR);
    if (s->fd < 0)
        return -1;
#if defined(O_DIRECT)
    if (s->direct)
        s->fd_direct = open_fd(s, path, O_WRONLY | O_DIRECT);
#endif
    return 0;
}

/* The window goes back where it came from: the budget, or its lender. */
static void drop_window(rec_sink *s)
{
    if (s->buf && !s->borrowed) {
        munmap(s->buf, s->size);
        give(s, s->size);
    }
    s->buf = NULL;
    s->size = 0;
    s->borrowed = 0;
}

int rec_sink_shrink(rec_sink *s)
{
    uint64_t size = s->size / 4 < REC_SINK_MIN ? REC_SINK_MIN : s->size / 4;
    if (s->parked || s->borrowed || size >= s->size)
        return 0;
    rec_sink_flush(s);   /* what remains unwritten is less than a block */
    if (atomic_load_explicit(&s->err, ACQ))
        return 0;
    rec_sink_crc_to(s, s->fill);
    uint8_t *nbuf = rec_map_window(size);
    if (!nbuf)
        return 0;
    take(s, size, REC_TAKE_FORCE);   /* less than is given back next */
    move_window(s, nbuf, size);
    return 1;
}

int rec_sink_park(rec_sink *s)
{
    if (!s->open || s->parked)
        return 1;
    rec_sink_flush(s);
    if (atomic_load_explicit(&s->err, ACQ) || atomic_load_explicit(&s->visible, ACQ) != s->fill)
        return 0;
    rec_sink_crc_to(s, s->fill);
    drop_window(s);
    close_fd(s, &s->fd_direct);
    close_fd(s, &s->fd);
    s->parked = 1;
    return 1;
}

/* A parked sink gets the window buf (REC_SINK_MIN bytes) back. */
static void reopen(rec_sink *s, uint8_t *buf)
{
    s->buf = buf;
    s->size = REC_SINK_MIN;
    s->chunk = chunk_for(s, s->size);
    s->parked = 0;
    /* The last partial block is in the file (parking wrote it): read it
     * back, a later whole-block write starts with it. */
    if (open_fds(s, s->path) != 0) {
        fail(s, errno);
        return;
    }
    uint64_t n = s->fill - s->sub;
    if (n && pread(s->fd, rec_sink_at(s, s->sub), (size_t)n, (off_t)s->sub) != (ssize_t)n)
        fail(s, errno ? errno : EIO);
}

int rec_sink_unpark(rec_sink *s, int force)
{
    if (!s->parked)
        return 1;
    if (!take(s, REC_SINK_MIN, force ? REC_TAKE_FORCE : REC_TAKE_FLOOR))
        return 0;
    uint8_t *buf = rec_map_window(REC_SINK_MIN);
    if (!buf) {
        give(s, REC_SINK_MIN);
        return 0;
    }
    reopen(s, buf);
    return 1;
}

void rec_sink_unpark_into(rec_sink *s, uint8_t *spare)
{
    if (!s->parked)
        return;
    reopen(s, spare);
    s->borrowed = 1;
}

static char *tmp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path + 1) : 0;
    size_t n = strlen(path) + 8;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.tmp", (int)dl, path, path + dl);
    return t;
}

/* sink_open's flags */
#define OPEN_PARKED 1u     /* no window and no descriptor until first written to */
#define OPEN_IN_PLACE 2u   /* created under its own name (its directory is not visible yet) */

static atf_status sink_open(rec_sink *s, rec_io *io, const char *path, const uint8_t header[64],
                            uint64_t chunk, unsigned chunks, int direct, int checksum, rec_budget *budget,
                            unsigned flags, atf_error *err)
{
    memset(s, 0, sizeof *s);
    s->fd = s->fd_direct = -1;
    s->io = io;
    s->budget = budget;
    s->max_chunk = chunk;
    s->max_size = chunk * chunks;
    s->size = REC_SINK_MIN;
    s->chunk = chunk_for(s, s->size);
    s->direct = direct;
    s->checksum = checksum;
    s->path = strdup(path);
    char *tmp = flags & OPEN_IN_PLACE ? strdup(path) : tmp_name(path);
    if (!s->path || !tmp) {
        free(tmp);
        free(s->path);
        s->path = NULL;
        if (err)
            rec_fmt(err->message, sizeof err->message, "out of memory");
        return ATF_E_NOMEM;
    }
    /* The first window: with no budget left now (or when asked), the file
     * starts parked (header written, nothing else to keep) and gets its
     * window when it is first written to. */
    int parked = (flags & OPEN_PARKED) || !take(s, s->size, REC_TAKE_FLOOR);
    uint8_t *m = parked ? NULL : rec_map_window(s->size);
    const char *what = NULL;
    if (!parked && !m) {
        give(s, s->size);
        what = "cannot allocate the write buffer";
        goto fail;
    }
    s->buf = m;
    s->fd = open_fd(s, tmp, O_RDWR | O_CREAT | O_TRUNC);
    if (s->fd < 0) {
        what = "cannot create";
        goto fail;
    }
    if (write_all(s->fd, header, 64, 0) != 0) {
        what = "cannot write the header";
        goto fail;
    }
    if (!(flags & OPEN_IN_PLACE) && rename(tmp, path) != 0) {
        what = "cannot rename into place";
        goto fail;
    }
    free(tmp);
    tmp = NULL;
    s->fill = 64;
    atomic_store_explicit(&s->visible, 64, RLX);
    s->open = 1;
    if (parked) {
        close_fd(s, &s->fd);
        s->size = 0;
        s->parked = 1;
        return ATF_OK;
    }
#if defined(O_DIRECT)
    if (direct)
        s->fd_direct = open_fd(s, path, O_WRONLY | O_DIRECT);
#endif
    memcpy(s->buf, header, 64);
    return ATF_OK;
fail:
    if (err) {
        err->code = ATF_E_IO;
        rec_fmt(err->file, sizeof err->file, "%s", path);
        rec_fmt(err->message, sizeof err->message, "%s: %s", what, strerror(errno));
    }
    if (s->fd >= 0) {
        close_fd(s, &s->fd);
        if (tmp)
            unlink(tmp);
    }
    if (s->buf) {
        munmap(s->buf, s->size);
        give(s, s->size);
    }
    free(tmp);
    free(s->path);
    memset(s, 0, sizeof *s);
    s->fd = s->fd_direct = -1;
    return ATF_E_IO;
}

atf_status rec_sink_open(rec_sink *s, rec_io *io, const char *path, const uint8_t header[64],
                         uint64_t chunk, unsigned chunks, int direct, int checksum, rec_budget *budget,
                         atf_error *err)
{
    return sink_open(s, io, path, header, chunk, chunks, direct, checksum, budget, 0u, err);
}

atf_status rec_sink_open_parked(rec_sink *s, rec_io *io, const char *path, const uint8_t header[64],
                                uint64_t chunk, unsigned chunks, int direct, int checksum,
                                rec_budget *budget, atf_error *err)
{
    return sink_open(s, io, path, header, chunk, chunks, direct, checksum, budget, OPEN_PARKED | OPEN_IN_PLACE, err);
}

static void release(rec_sink *s)
{
    close_fd(s, &s->fd_direct);
    close_fd(s, &s->fd);
    drop_window(s);
    free(s->path);
    s->path = NULL;
    s->open = 0;
}

void rec_sink_abandon(rec_sink *s)
{
    if (!s->open)
        return;
    rec_sink_wait_idle(s);
    release(s);
}

atf_status rec_sink_finish(rec_sink *s, const uint8_t footer[64], const uint8_t header[64], int sync)
{
    if (!s->open)
        return ATF_E_STATE;
    rec_sink_wait_idle(s);
    atf_status st = ATF_OK;
    if (atomic_load_explicit(&s->err, ACQ) ||
        write_all(s->fd, footer, 64, s->fill) != 0 || (sync && fdatasync(s->fd) != 0) ||
        write_all(s->fd, header, 64, 0) != 0 || (sync && fdatasync(s->fd) != 0)) {
        fail(s, errno);
        st = ATF_E_IO;
    }
    release(s);
    return st;
}

/* Writes everything appended (whole blocks direct, the tail buffered and
 * synchronously) and completes the CRC. Returns the CRC of [64, fill). */
uint32_t rec_sink_seal(rec_sink *s)
{
    if (s->parked) {
        /* Everything is in the file already (and in the CRC): only the
         * footer and the header remain, through the buffered descriptor. */
        if (open_fds(s, s->path) != 0)
            fail(s, errno);
        s->parked = 0;
        return s->crc;
    }
    submit_blocks(s);
    rec_sink_wait_idle(s);
    if (s->fill > s->sub) {
        crc_range(s, s->sub, s->fill);
        if (atomic_load_explicit(&s->err, ACQ) == 0 &&
            write_all(s->fd, rec_sink_at(s, s->sub), s->fill - s->sub, s->sub) != 0)
            fail(s, errno);
        else if (atomic_load_explicit(&s->err, ACQ) == 0)
            set_visible(s, s->fill);
        s->sub = s->fill;
    }
    return s->crc;
}
