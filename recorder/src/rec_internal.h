/* Internal structures of the recorder, shared by its sources (not installed).
 *
 * Ownership in one paragraph: a recording thread owns the producer side of
 * its rthread (head, limit, depth, its TLS list); the writer thread the
 * thread is assigned to owns the consumer side (tail, the wthread with the
 * files); an rthread is reference-counted by both and freed by whichever
 * lets go last. The I/O thread of a writer only performs the write requests
 * the writer queues. recorder/README.md has the full picture. */
#ifndef ATF_REC_INTERNAL_H
#define ATF_REC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include <atf/recorder.h>

#define REC_LINE 64
#define REC_ALIGNED __attribute__((aligned(REC_LINE)))
#define REC_LIKELY(x) __builtin_expect(!!(x), 1)
#define REC_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define REC_DEAD_ID UINT64_MAX   /* live_id of a stopped recorder: never a TLS value */
#define REC_BLOCK 4096u          /* O_DIRECT offset/length/address alignment used */

/* Ring slots hold events in the file's byte order (little-endian). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#  define REC_LE64(x) ((uint64_t)(x))
#else
#  define REC_LE64(x) __builtin_bswap64((uint64_t)(x))
#endif

#define RLX memory_order_relaxed
#define ACQ memory_order_acquire
#define REL memory_order_release
#define SEQ memory_order_seq_cst

/* ---- Clock (rec_clock.c) ------------------------------------------------ */

#define REC_CLOCK_SEGS 64u       /* conversion segments kept (ring) */
#define REC_CLOCK_LOOKBACK 32u   /* segments a conversion may look back */

/* ns = n0 + (c - c0) * mult / 2^32 */
typedef struct rec_seg {
    uint64_t c0, n0, mult;
} rec_seg;

typedef struct rec_clock {
    uint32_t source;             /* ATF_RECORDER_CLOCK_SYSTEM or _COUNTER */
    rec_seg seg[REC_CLOCK_SEGS];
    _Atomic uint64_t nseg;       /* segments published (release) */
    /* calibration state: only the calibrating thread (writer 0) touches it */
    uint64_t base_c, base_n;     /* first sample: the long baseline */
    uint64_t next_cal_ns;
    unsigned cal_step;
    _Atomic uint64_t max_step_ns;
} rec_clock;

uint64_t rec_clock_system_ns(void);
int rec_counter_available(void);

/* The CPU counter (inline: it is on the hot path). */
static inline uint64_t rec_counter_read(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return rec_clock_system_ns();
#endif
}
/* Initial calibration (~2 ms busy wait) for the counter source. */
void rec_clock_init(rec_clock *c, uint32_t source);
/* Called by each writer every loop on its own copy: adds a segment when due. */
void rec_clock_tick(rec_clock *c, uint64_t now_ns);
/* Converts a counter value (thread-safe; lock-free). */
uint64_t rec_clock_convert(const rec_clock *c, uint64_t counter);
/* Index of the segment for counter value c, and the counter value where the
 * next one starts (UINT64_MAX if none); for converting runs of events. */
const rec_seg *rec_clock_find(const rec_clock *c, uint64_t counter, uint64_t *next_c0);

static inline uint64_t rec_seg_apply(const rec_seg *s, uint64_t c)
{
#if defined(__SIZEOF_INT128__)
    if (c >= s->c0)
        return s->n0 + (uint64_t)(((unsigned __int128)(c - s->c0) * s->mult) >> 32);
    uint64_t d = (uint64_t)(((unsigned __int128)(s->c0 - c) * s->mult) >> 32);
#else
    if (c >= s->c0)
        return s->n0 + (uint64_t)((double)(c - s->c0) * (double)s->mult / 4294967296.0);
    uint64_t d = (uint64_t)((double)(s->c0 - c) * (double)s->mult / 4294967296.0);
#endif
    return d < s->n0 ? s->n0 - d : 0;
}

/* ---- Sleeping (futex on Linux) ------------------------------------------ */

void rec_wait32(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns);
void rec_wake32(_Atomic uint32_t *addr);

/* ---- Memory budget (recorder.c) --------------------------------------------
 * One budget for the whole recorder: every ring, write window and detail
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

/* ---- Files (rec_sink.c) -------------------------------------------------- */

struct rec_io;

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

typedef struct rec_ioreq {
    rec_sink *s;
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

/* Creates path (atomically: a temp name renamed into place) holding the
 * 64-byte header, and its staging window: REC_SINK_MIN bytes at first,
 * grown two or four times (budget permitting, within the file's share of
 * it) whenever the writer would otherwise wait for the disk, up to chunk x
 * chunks. direct: try O_DIRECT. budget: NULL or
 * where the window's bytes are taken from. */
#define REC_SINK_MIN (2u * REC_BLOCK)
#define REC_SINK_EFFICIENT (2u << 20)   /* see rec_sink_try_reserve */
atf_status rec_sink_open(rec_sink *s, rec_io *io, const char *path, const uint8_t header[64],
                         uint64_t chunk, unsigned chunks, int direct, int checksum, rec_budget *budget,
                         atf_error *err);
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

/* ---- Rings and threads ----------------------------------------------------- */

/* Detail ring / pre-roll record header (8-byte aligned records). */
#define REC_DREC_HEAD 32u
#define REC_DREC_WRAP 0xFFFFFFFFu     /* payload_size of a wrap marker */
typedef struct rec_drec {
    uint32_t rec_size;           /* header + payload, rounded up to 8 */
    uint32_t payload_size;       /* or REC_DREC_WRAP */
    uint16_t type, flags;
    uint32_t reserved;
    uint64_t index_seq;
    uint64_t ts;                 /* raw in the ring, nanoseconds in the pre-roll queue */
} rec_drec;

struct rec_writer;
struct rec_wthread;

/* One index ring of a thread. A thread starts with a small ring and, when
 * it fills one faster than the writer drains it, switches to a bigger one
 * (budget permitting); the old ring holds events [start, end) and is freed
 * by the writer once it has copied them. Rings form a chain the writer
 * follows: the producer sets next, then end (release), before publishing
 * any event of the new ring. */
typedef struct rec_ring {
    uint8_t *slots;
    uint64_t mask;               /* events - 1 */
    uint64_t start;              /* sequence number of its first event */
    _Atomic uint64_t end;        /* UINT64_MAX while the producer writes into it */
    struct rec_ring *next;
    size_t bytes;
} rec_ring;

typedef struct rec_thread {
    /* The owner's current ring, read on every event (written only by the
     * owner, in its slow path; the writer follows the ring chain instead). */
    uint8_t *slots;
    uint64_t mask;               /* current ring's events - 1 */
    uint32_t batch;
    uint32_t os_tid;
    uint8_t counter_clock, layout, drop_mode, has_detail;
    uint64_t ring_start;         /* current ring's first sequence number */
    rec_ring *ring;              /* current ring (owner) */

    /* Producer line(s): written only by the owning thread. */
    REC_ALIGNED _Atomic uint64_t head;  /* events written; the next event's index seq */
    uint64_t limit;              /* head may reach this without looking at tail */
    uint64_t pub_next;           /* publish when head reaches this */
    uint32_t depth;
    uint64_t last_ts;            /* raw timestamp of the last event */
    uint64_t last_detail_seq;    /* index seq of the last detail event, UINT64_MAX if none */
    uint64_t dhead;              /* detail bytes written */
    uint64_t dlimit_tail;        /* cached dtail */

    /* Producer counters (owner writes relaxed, others read). */
    REC_ALIGNED _Atomic uint64_t dropped;
    _Atomic uint64_t bp_waits, bp_wait_ns;
    _Atomic uint64_t detail_recorded, detail_dropped;

    REC_ALIGNED _Atomic uint64_t pub_head;  /* published events (release) */
    REC_ALIGNED _Atomic uint64_t dpub;      /* published detail bytes (release) */

    /* Consumer line: written by the writer. */
    REC_ALIGNED _Atomic uint64_t tail;      /* events consumed (release) */
    _Atomic uint64_t dtail;                 /* detail bytes consumed (release) */
    _Atomic uint32_t space_seq;             /* futex word producers sleep on */

    /* Rarely written control words. */
    REC_ALIGNED _Atomic uint32_t flush_req; /* writer asks the owner to publish (and to
                                               look at shrink_req) */
    _Atomic uint32_t shrink_req;            /* writer: the ring is bigger than the rate needs */
    _Atomic uint32_t resizing;              /* owner is switching rings (see finish_thread) */
    _Atomic uint32_t grown;                 /* counted in budget->grown (owner; writer at finish) */
    _Atomic uint32_t waiting;               /* owner is (about to be) asleep on space_seq */
    _Atomic uint64_t wake_tail;             /* ... until tail reaches this (set before waiting) */
    _Atomic uint32_t exited;                /* owner left (thread exit or detach) */
    _Atomic uint32_t closed;                /* recorder side is done with this ring */
    _Atomic int refs;

    /* Immutable after registration. */
    uint64_t id;                 /* K of thread_K */
    uint64_t rec_id;
    uint8_t *dbuf;
    uint64_t dsize;              /* detail ring bytes (power of two), 0 without detail */
    struct rec_writer *writer;
    struct atf_recorder *r;
    rec_budget *budget;

    _Atomic uint64_t mem_bytes;  /* taken from the budget for this thread now */
    rec_ring *wring;             /* oldest ring not yet freed (the writer's) */
    int accounted;               /* mem_bytes still counts in the budget */

    struct rec_thread *tnext;    /* owner's TLS list */
    struct rec_thread *inext;    /* the writer's incoming stack */
    struct rec_thread *gprev, *gnext; /* the recorder's live list (reg_mu) */
    struct rec_wthread *w;       /* writer-private state */
} rec_thread;

/* Bookkeeping taken from the budget per registered thread (the thread and
 * writer structures, its file names). */
#define REC_THREAD_OVERHEAD 2048u

void rec_thread_release(rec_thread *t);
void rec_ring_free(rec_ring *g);

/* ---- Writer (rec_writer.c) ------------------------------------------------- */

typedef struct rec_window {
    uint64_t a, b;               /* detail events with a <= ts <= b are persisted; b = UINT64_MAX: open */
} rec_window;

/* What the manifest says about one thread (guarded by the recorder's man_mu). */
typedef struct rec_summary {
    uint64_t id;
    uint32_t os_tid;
    int has_detail, finalized;
    int listed;                  /* its directory exists (else only its losses count) */
    uint64_t event_count, detail_count;
    uint64_t recorded, detail_recorded, producer_detail_dropped;
    uint64_t dropped, lost_at_stop, lost_io, rejected;
    uint64_t bp_waits, bp_wait_ns;
    uint64_t detail_dropped, preroll_evicted, links_patched;
    uint64_t t_first, t_last;
} rec_summary;

typedef struct rec_writer {
    struct atf_recorder *r;
    unsigned index;
    pthread_t th;
    int started;
    rec_io io;
    _Atomic uint32_t wake_seq;
    _Atomic uint32_t sleeping;
    _Atomic uint64_t flush_done;
    rec_clock clock;             /* this writer's counter conversion */
    _Atomic(rec_thread *) incoming;  /* threads registered, not yet seen (LIFO) */
    rec_thread *pend, *pend_tail;    /* seen, files not created yet (FIFO, writer only) */
    struct rec_wthread **list;   /* this writer's threads */
    size_t n, cap;
    uint64_t manifest_cost_ns;   /* how long the last manifest rewrite took */
    uint8_t *spare;              /* a REC_SINK_MIN window kept out of the budget: with the
                                    budget full, one parked file at a time still drains */
    struct rec_wthread *spare_user;
    struct rec_wthread *io_wait; /* a thread left this pass: its window waits for the disk */
    /* snapshot of the detail windows */
    rec_window *win;
    size_t nwin, capwin;
    uint64_t win_gen;
    uint64_t last_sync_ns;
} rec_writer;

void *rec_writer_main(void *arg);
static inline void rec_writer_wake(rec_writer *w)
{
    if (atomic_load_explicit(&w->sleeping, SEQ)) {
        atomic_fetch_add_explicit(&w->wake_seq, 1, SEQ);
        rec_wake32(&w->wake_seq);
    }
}

/* ---- The recorder ------------------------------------------------------------ */

struct atf_recorder {
    /* Read on every event. */
    REC_ALIGNED _Atomic uint64_t live_id;   /* id while recording, REC_DEAD_ID after stop */
    _Atomic uint32_t capturing;             /* detail payloads wanted */
    uint64_t id;

    REC_ALIGNED atf_recorder_options o;     /* normalized */
    char *root, *dir;
    pid_t pid;
    uint64_t ring_events;
    uint64_t memory_bound;
    uint32_t io_method;
    rec_clock clock;

    /* Threads. */
    pthread_mutex_t reg_mu;
    rec_thread *live;                       /* every registered, unfinished thread (reg_mu) */
    uint64_t next_k;
    _Atomic uint64_t threads_live;
    uint64_t ring_min;                      /* events of a thread's first ring */

    rec_writer *writers;
    unsigned nwriters;
    unsigned ncpu;                          /* online CPUs at start */

    /* Detail windows (win_mu). */
    pthread_mutex_t win_mu;
    rec_window *win;
    size_t nwin, capwin;
    _Atomic uint64_t win_gen;

    /* Manifest and summaries (man_mu). */
    pthread_mutex_t man_mu;
    rec_summary *sum;
    size_t nsum, capsum;
    size_t *sum_of;              /* thread id -> 1 + its summary's index, 0: none yet */
    size_t capsum_of;
    atf_timing_anchor *anchors;
    size_t nanchors;
    atf_manifest_module *modules;
    size_t nmodules;
    atf_manifest_symbol *symbols;
    size_t nsymbols;
    int manifest_dirty;
    uint64_t manifest_written_ns;
    int complete;

    /* Flush requests. */
    _Atomic uint64_t flush_req;
    pthread_mutex_t flush_mu;
    pthread_cond_t flush_cv;

    /* Process-wide totals (own cache line: writers add to them). */
    REC_ALIGNED _Atomic uint64_t events_written, bytes_written, detail_written;
    _Atomic uint64_t events_rejected, events_after_stop;
    _Atomic uint64_t io_errors;

    /* The memory budget (own line: producers and writers take from it);
     * mem_alloc and mem_peak name its counters for the manifest. */
    REC_ALIGNED union {
        rec_budget budget;
        struct {
            _Atomic uint64_t mem_alloc, mem_peak;
        };
    };

    /* Stop. */
    pthread_mutex_t stop_mu;
    _Atomic int stopping;
    int stopped, forked;
    atf_status stop_status;
    atf_error stop_err;
    atf_error io_err;             /* first I/O error (man_mu) */

    /* Durability (rec_sync.c): the periodic policy's sync thread. */
    pthread_mutex_t sync_mu;
    pthread_cond_t sync_cv;
    pthread_t sync_th;
    int sync_init, sync_started, sync_quit;
    _Atomic uint64_t syncs;       /* file system syncs done */
};

void rec_writer_push(rec_writer *w, rec_thread *t);
/* snprintf for error records: truncation is fine there (and not a warning). */
void rec_fmt(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Manifest (rec_manifest.c): rewrites manifest.json atomically; caller holds man_mu. */
atf_status rec_manifest_write(atf_recorder *r, int sync, atf_error *err);
rec_summary *rec_summary_get(atf_recorder *r, uint64_t id);   /* caller holds man_mu */

/* Durability (rec_sync.c). start: the sync thread of the periodic policy
 * (-1 if it cannot start); stop: ends it (before the writers stop);
 * final: the sync at the end of stop() (opts.sync), which makes the
 * finalized session's files and directory entries durable. */
int rec_sync_start(atf_recorder *r);
void rec_sync_stop(atf_recorder *r);
void rec_sync_destroy(atf_recorder *r);
atf_status rec_sync_final(atf_recorder *r, atf_error *err);
atf_status rec_owner_check(atf_recorder *r, atf_error *err);

/* Producer side (rec_producer.c). */
void rec_producer_publish_self(atf_recorder *r);
void rec_producer_fork_child(void);

#endif /* ATF_REC_INTERNAL_H */
