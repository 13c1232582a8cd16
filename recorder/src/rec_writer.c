/* The writer threads: drain the rings of their threads into the files.
 *
 * Per thread and per pass:
 *   1. read the published index head (acquire) — before the detail head, so
 *      every detail record of a published index event is visible;
 *   2. move new detail records from the detail ring into the thread's
 *      detail queue (timestamps converted), releasing the ring;
 *   3. settle the front of the queue: a record whose timestamp lies in a
 *      detail window is persisted, one that can no longer fall into any
 *      window (older than now - pre_roll) is discarded, the rest wait
 *      (that is the pre-roll); persisting a record whose index event already
 *      went to the file patches that event's forward link first (in the
 *      window if not yet written, else in the file, CRC adjusted) and only
 *      then appends the detail event;
 *   4. copy published index events into the index file's window (converting
 *      counter timestamps); a persisted record whose index event is in the
 *      run gets its detail sequence number and link right there, before the
 *      run can be submitted.
 * Detail sequence numbers are assigned in index order, so both files stay
 * append-only and every link, forward and backward, points at an event that
 * exists and points back. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atf/reader.h>

#include "rec_internal.h"
#include "rec_manifest.h"
#include "rec_ring.h"
#include "rec_sink.h"
#include "rec_writer.h"

enum { D_PERSIST, D_DISCARD, D_WAIT };

typedef struct rec_wthread {
    rec_thread *t;
    uint64_t id;
    char *dir;
    rec_sink index, detail;
    int failed;                  /* files could not be created: everything is counted lost */
    int detail_created;
    uint64_t consumed, dconsumed;
    uint64_t t_first, t_last;
    uint64_t dcount, dt_first, dt_last, dseq_first, dseq_last;
    uint64_t index_limit;        /* layout 1: the u32 count limit */
    /* detail queue: byte FIFO of rec_drec records, timestamps in ns */
    uint8_t *q;
    uint64_t qsize, qhead, qtail;
    /* counters */
    uint64_t rejected, lost_at_stop, lost_io, detail_lost, preroll_evicted, links_patched;
    uint64_t pending_detail, pending_bytes;   /* not yet added to the recorder's totals */
    uint64_t mem;                /* pre-roll queue bytes taken from the budget */
    uint8_t *scratch;            /* patch runs */
    struct rec_wthread *rnext;   /* the writer's ready stack (created, not yet adopted) */
    rec_ring *ring;              /* the ring holding event `consumed` */
    size_t sum_idx;              /* where its summary was last found */
    uint64_t backlog_max;        /* most events seen waiting in the ring this period */
    uint64_t period_ns;          /* start of that period */
} rec_wthread;

#define SCRATCH 8192u

/* ---- Small helpers -------------------------------------------------------- */

static void record_io_error(atf_recorder *r, const char *path, int e, const char *what)
{
    pthread_mutex_lock(&r->man_mu);
    if (r->io_err.code == ATF_OK) {
        r->io_err.code = ATF_E_IO;
        r->io_err.offset = UINT64_MAX;
        rec_fmt(r->io_err.file, sizeof r->io_err.file, "%s", path ? path : "");
        rec_fmt(r->io_err.message, sizeof r->io_err.message, "%s: %s", what, strerror(e));
    }
    pthread_mutex_unlock(&r->man_mu);
    atomic_fetch_add_explicit(&r->io_errors, 1, RLX);
}

static void encode_index_header(const atf_recorder *r, const rec_wthread *wt, uint8_t out[64], int final)
{
    atf_index_header h;
    memset(&h, 0, sizeof h);
    h.endian = ATF_ENDIAN_LITTLE;
    h.version = (uint8_t)r->o.layout;
    h.arch = ATF_HOST_ARCH;
    h.os = ATF_HOST_OS;
    h.thread_id = wt->t->os_tid;
    h.clock_type = ATF_HOST_CLOCK;
    h.event_size = ATF_INDEX_EVENT_SIZE;
    h.events_offset = ATF_INDEX_HEADER_SIZE;
    if (final) {
        uint64_t n = wt->consumed - wt->rejected;
        h.flags = wt->detail_created ? ATF_INDEX_FLAG_HAS_DETAIL_FILE : 0;
        h.event_count = n;
        h.footer_offset = ATF_INDEX_HEADER_SIZE + n * ATF_INDEX_EVENT_SIZE;
        h.time_start_ns = n ? wt->t_first : 0;
        h.time_end_ns = n ? wt->t_last : 0;
    }
    atf_index_header_encode(out, 64, &h);
}

static void encode_detail_header(const atf_recorder *r, const rec_wthread *wt, uint8_t out[64], int final)
{
    atf_detail_header h;
    memset(&h, 0, sizeof h);
    h.endian = ATF_ENDIAN_LITTLE;
    h.version = (uint8_t)r->o.layout;
    h.arch = ATF_HOST_ARCH;
    h.os = ATF_HOST_OS;
    h.thread_id = wt->t->os_tid;
    h.events_offset = ATF_DETAIL_HEADER_SIZE;
    if (final) {
        h.event_count = wt->dcount;
        h.bytes_length = wt->detail.fill - ATF_DETAIL_HEADER_SIZE;
        h.index_seq_start = wt->dcount ? wt->dseq_first : 0;
        h.index_seq_end = wt->dcount ? wt->dseq_last : 0;
    }
    atf_detail_header_encode(out, 64, &h);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

/* The thread's summary (caller holds man_mu): where it was last time, or
 * looked up (the list holds every thread of the session). */
static rec_summary *summary_of(atf_recorder *r, rec_wthread *wt)
{
    if (wt->sum_idx < r->nsum && r->sum[wt->sum_idx].id == wt->id)
        return &r->sum[wt->sum_idx];
    rec_summary *s = rec_summary_get(r, wt->id);
    if (s)
        wt->sum_idx = (size_t)(s - r->sum);
    return s;
}

/* ---- Thread files ---------------------------------------------------------- */

/* thread_K/ appears atomically with a valid index.atf: it is built as
 * .thread_K.tmp/ and renamed. index.atf starts parked (a header, no window
 * and no descriptor: the first drain with events gets them), so that a
 * thread that stays idle, as most of a burst of new threads does, costs no
 * window mapped and unmapped (each unmapping interrupts the other cores to
 * flush their TLBs, busy producers included). With a detail lane, detail.atf is created in
 * it too (parked as well), not when the first detail event is
 * written: an index event's link is then never on disk without the detail
 * file's name. Created later, in a directory already in place, a power cut
 * could keep the index events that link to it (their data) and lose its
 * directory entry (never synced yet): LINK-005/LINK-006 in a state the
 * power-cut harness (docs/powerloss.md) builds. */
static rec_wthread *wthread_create(rec_writer *w, rec_thread *t)
{
    atf_recorder *r = w->r;
    rec_wthread *wt = calloc(1, sizeof *wt);
    if (!wt)
        return NULL;
    wt->t = t;
    wt->id = t->id;
    wt->ring = t->wring;
    wt->sum_idx = SIZE_MAX;
    wt->index_limit = r->o.layout == ATF_LAYOUT_1 ? UINT32_MAX - 1u : UINT64_MAX;
    char name[64], tmpname[64];
    snprintf(name, sizeof name, "thread_%llu", (unsigned long long)t->id);
    snprintf(tmpname, sizeof tmpname, ".thread_%llu.tmp", (unsigned long long)t->id);
    wt->dir = join(r->dir, name);
    char *tmpdir = join(r->dir, tmpname);
    char *tmpindex = tmpdir ? join(tmpdir, "index.atf") : NULL;
    char *index = wt->dir ? join(wt->dir, "index.atf") : NULL;
    uint8_t header[64];
    encode_index_header(r, wt, header, 0);
    atf_error err;
    memset(&err, 0, sizeof err);
    int ok = wt->dir && tmpdir && tmpindex && index;
    if (ok && mkdir(tmpdir, 0755) != 0) {
        record_io_error(r, tmpdir, errno, "cannot create the thread directory");
        ok = 0;
    }
    if (ok && rec_sink_open_parked(&wt->index, &w->io, tmpindex, header, r->o.io_chunk_bytes, r->o.io_chunks,
                                   r->io_method == ATF_RECORDER_IO_DIRECT, r->o.checksum, &r->budget,
                                   &err) != ATF_OK) {
        record_io_error(r, tmpindex, errno, err.message[0] ? err.message : "cannot create index.atf");
        rmdir(tmpdir);
        ok = 0;
    }
    char *tmpdetail = NULL, *detail = NULL;
    if (ok && r->o.detail) {
        uint8_t dheader[64];
        encode_detail_header(r, wt, dheader, 0);
        tmpdetail = join(tmpdir, "detail.atf");
        detail = join(wt->dir, "detail.atf");
        if (!tmpdetail || !detail ||
            rec_sink_open_parked(&wt->detail, &w->io, tmpdetail, dheader, r->o.io_chunk_bytes, r->o.io_chunks,
                                 r->io_method == ATF_RECORDER_IO_DIRECT, r->o.checksum, &r->budget,
                                 &err) != ATF_OK) {
            record_io_error(r, tmpdetail ? tmpdetail : tmpdir, errno,
                            err.message[0] ? err.message : "cannot create detail.atf");
            rec_sink_abandon(&wt->index);
            unlink(tmpindex);
            rmdir(tmpdir);
            ok = 0;
        } else {
            wt->detail_created = 1;
        }
    }
    if (ok && rename(tmpdir, wt->dir) != 0) {
        record_io_error(r, wt->dir, errno, "cannot rename the thread directory into place");
        rec_sink_abandon(&wt->index);
        if (wt->detail_created)
            rec_sink_abandon(&wt->detail);
        wt->detail_created = 0;
        ok = 0;
    }
    if (ok) {
        free(wt->index.path);
        wt->index.path = index;
        index = NULL;
        if (wt->detail_created) {
            free(wt->detail.path);
            wt->detail.path = detail;
            detail = NULL;
        }
    } else {
        wt->failed = 1;
    }
    free(tmpdir);
    free(tmpindex);
    free(index);
    free(tmpdetail);
    free(detail);
    t->w = wt;
    pthread_mutex_lock(&r->man_mu);
    rec_summary *s = summary_of(r, wt);
    if (s) {
        s->os_tid = t->os_tid;
        s->listed = !wt->failed;
        s->has_detail = wt->detail_created;
        r->manifest_dirty = 2;
    }
    pthread_mutex_unlock(&r->man_mu);
    return wt;
}

static int detail_create(rec_writer *w, rec_wthread *wt)
{
    atf_recorder *r = w->r;
    if (wt->detail_created)
        return 1;
    if (wt->failed)
        return 0;
    char *path = join(wt->dir, "detail.atf");
    uint8_t header[64];
    encode_detail_header(r, wt, header, 0);
    atf_error err;
    memset(&err, 0, sizeof err);
    if (!path || rec_sink_open(&wt->detail, &w->io, path, header, r->o.io_chunk_bytes, r->o.io_chunks,
                               r->io_method == ATF_RECORDER_IO_DIRECT, r->o.checksum, &r->budget, &err) != ATF_OK) {
        record_io_error(r, path, errno, err.message[0] ? err.message : "cannot create detail.atf");
        free(path);
        wt->failed = 1;
        return 0;
    }
    free(path);
    wt->detail_created = 1;
    pthread_mutex_lock(&r->man_mu);
    rec_summary *s = summary_of(r, wt);
    if (s) {
        s->has_detail = 1;
        r->manifest_dirty = 2;
    }
    pthread_mutex_unlock(&r->man_mu);
    return 1;
}

/* ---- Detail queue ------------------------------------------------------------- */

static int q_empty(const rec_wthread *wt)
{
    return wt->qhead == wt->qtail;
}

static rec_drec *q_front(rec_wthread *wt)
{
    for (;;) {
        if (q_empty(wt))
            return NULL;
        rec_drec *d = (rec_drec *)(void *)(wt->q + (wt->qtail & (wt->qsize - 1)));
        if (d->payload_size != REC_DREC_WRAP)
            return d;
        wt->qtail += d->rec_size;
    }
}

static void q_pop(rec_wthread *wt)
{
    rec_drec *d = q_front(wt);
    if (d)
        wt->qtail += d->rec_size;
    /* Empty: start over at the beginning, which stays in the cache (in
     * steady state records wait here only for their index event). */
    if (wt->qtail == wt->qhead)
        wt->qtail = wt->qhead = 0;
}

static int decide(const rec_writer *w, uint64_t ts, uint64_t now, uint64_t pre_roll, int final);

/* Makes room at the queue front: a record already decided to persist stays
 * (it waits for its index event), one that can no longer persist is popped,
 * a pre-roll record (older than the window snapshot, in no window yet) is
 * evicted and counted. A record newer than the snapshot stays too: its fate
 * is unknown until the next pass (the window it falls in may be open), and
 * evicting it could lose an event a window covers; the detail ring holds
 * the rest meanwhile (backpressure).
 * @return 0 if the front must stay. */
static int q_make_room(rec_writer *w, rec_wthread *wt, uint64_t now, int final)
{
    rec_drec *f = q_front(wt);
    if (!f)
        return 0;
    int k = (f->flags & 1u) ? D_PERSIST : decide(w, f->ts, now, w->r->o.pre_roll_ns, final);
    if (k == D_PERSIST) {
        f->flags |= 1u;
        return 0;
    }
    if (k == D_WAIT && f->ts > now)
        return 0;
    if (k == D_WAIT)
        wt->preroll_evicted++;
    q_pop(wt);
    return 1;
}

/* Appends a record (timestamps in ns). @return 0 if it does not fit (the
 * front waits for its index event: try again after the index drain). */
static int q_push(rec_writer *w, rec_wthread *wt, const rec_drec *h, const uint8_t *payload, uint64_t now,
                  int final)
{
    atf_recorder *r = w->r;
    if (!wt->q) {
        uint64_t want = r->o.pre_roll_bytes + r->o.detail_ring_bytes;
        uint64_t size = 4096;
        while (size < want)
            size <<= 1;
        void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return 0;
        wt->q = m;
        wt->qsize = size;
        wt->mem += size;
        rec_budget_take(&r->budget, size, REC_TAKE_FORCE);   /* the detail lane is opt-in */
    }
    uint64_t rec = h->rec_size;
    for (;;) {
        uint64_t pos = wt->qhead & (wt->qsize - 1);
        uint64_t to_end = wt->qsize - pos;
        uint64_t need = rec <= to_end ? rec : to_end + rec;
        if (wt->qsize - (wt->qhead - wt->qtail) >= need)
            break;
        if (!q_make_room(w, wt, now, final))
            return 0;
    }
    uint64_t pos = wt->qhead & (wt->qsize - 1);
    if (rec > wt->qsize - pos) {
        rec_drec m = { (uint32_t)(wt->qsize - pos), REC_DREC_WRAP, 0, 0, 0, 0, 0 };
        memcpy(wt->q + pos, &m, 8);
        wt->qhead += wt->qsize - pos;
        pos = 0;
    }
    memcpy(wt->q + pos, h, REC_DREC_HEAD);
    if (h->payload_size)
        memcpy(wt->q + pos + REC_DREC_HEAD, payload, h->payload_size);
    wt->qhead += rec;
    return 1;
}

/* Holds the queue to pre_roll_bytes (oldest undecided records evicted). */
static void q_trim(rec_writer *w, rec_wthread *wt, uint64_t now, int final)
{
    while (wt->qhead - wt->qtail > w->r->o.pre_roll_bytes && q_make_room(w, wt, now, final))
        ;
}

/* Fate of a detail record with timestamp ts, given the windows as they were
 * at now (read under win_mu: any later change happens after now).
 *  - ts after now: a disable or enable between now and ts could change the
 *    answer, so wait (the pass can outlive its snapshot);
 *  - ts in a window: persist (a later disable only moves an end past now);
 *  - ts within pre_roll of now: a trigger after now opens a window starting
 *    after now - pre_roll, which may still cover ts: wait;
 *  - otherwise no window can ever cover it: discard.
 * At stop (final) the windows are closed for good: in or out. */
static int decide(const rec_writer *w, uint64_t ts, uint64_t now, uint64_t pre_roll, int final)
{
    if (!final && ts > now)
        return D_WAIT;
    for (size_t i = w->nwin; i-- > 0;) {
        if (ts >= w->win[i].a && ts <= w->win[i].b)
            return D_PERSIST;
        if (ts > w->win[i].b)
            break;   /* windows end in order: no older one can hold ts */
    }
    if (final)
        return D_DISCARD;
    if (now - ts < pre_roll)
        return D_WAIT;
    return D_DISCARD;
}

/* ---- Emitting detail events and links ------------------------------------------ */

static uint64_t link_offset(const atf_recorder *r, uint64_t seq)
{
    return ATF_INDEX_HEADER_SIZE + seq * ATF_INDEX_EVENT_SIZE + (r->o.layout == ATF_LAYOUT_2 ? 16u : 28u);
}

static unsigned link_width(const atf_recorder *r)
{
    return r->o.layout == ATF_LAYOUT_2 ? 8u : 4u;
}

static void store_link(uint8_t *p, uint64_t dseq, unsigned width)
{
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(dseq >> (8 * i));
}

/* Appends the detail event of record d (detail sequence dseq = dcount). */
static void append_detail(rec_writer *w, rec_wthread *wt, const rec_drec *d)
{
    atf_recorder *r = w->r;
    uint8_t head[ATF_DETAIL_EVENT_HEADER_SIZE];
    atf_detail_event e;
    memset(&e, 0, sizeof e);
    e.event_type = d->type;
    e.flags = 0;
    e.index_seq = d->index_seq;
    e.thread_id = wt->t->os_tid;
    e.timestamp = d->ts;
    atf_detail_event_encode(head, sizeof head, &e, (atf_layout)r->o.layout);
    uint32_t total = ATF_DETAIL_EVENT_HEADER_SIZE + d->payload_size;
    head[0] = (uint8_t)total;
    head[1] = (uint8_t)(total >> 8);
    head[2] = (uint8_t)(total >> 16);
    head[3] = (uint8_t)(total >> 24);
    rec_sink_append(&wt->detail, head, sizeof head);
    if (d->payload_size)
        rec_sink_append(&wt->detail, (const uint8_t *)d + REC_DREC_HEAD, d->payload_size);
    if (wt->dcount == 0) {
        wt->dt_first = d->ts;
        wt->dseq_first = d->index_seq;
    }
    wt->dt_last = d->ts;
    wt->dseq_last = d->index_seq;
    wt->dcount++;
    wt->pending_detail++;
    wt->pending_bytes += total;
    (void)r;
}

/* Can record d be persisted at all? (a file for it, layout-1 limits) */
static int persistable(rec_writer *w, rec_wthread *wt, const rec_drec *d)
{
    atf_recorder *r = w->r;
    if (wt->failed || d->index_seq >= wt->index_limit)
        return 0;
    if (r->o.layout == ATF_LAYOUT_1 && wt->dcount >= UINT32_MAX - 1u)
        return 0;
    return detail_create(w, wt);
}

/* Pending link patches of one run (close together in the index file). */
#define RUN_MAX 512u
typedef struct rec_patch {
    uint64_t off, dseq;
} rec_patch;

static void flush_run(rec_wthread *wt, const rec_patch *p, unsigned np, unsigned width)
{
    if (np == 0)
        return;
    uint64_t a = p[0].off, b = p[np - 1].off + width;
    rec_sink_read(&wt->index, a, wt->scratch, (size_t)(b - a));
    for (unsigned i = 0; i < np; i++)
        store_link(wt->scratch + (p[i].off - a), p[i].dseq, width);
    rec_sink_patch(&wt->index, a, wt->scratch, (size_t)(b - a));
}

/* Persists the queue's leading records whose index events are already in
 * the file (the pre-roll a trigger selected, or a late attach): all their
 * forward links are patched first (batched by proximity), then the detail
 * events are appended, so a detail event never reaches the disk before the
 * index event it names points back to it. */
static void persist_late(rec_writer *w, rec_wthread *wt, uint64_t now, int final)
{
    atf_recorder *r = w->r;
    unsigned width = link_width(r);
    rec_patch run[RUN_MAX];
    for (;;) {
        unsigned np = 0;
        uint64_t pos = wt->qtail, n = 0, dseq = wt->dcount;
        while (pos != wt->qhead && n < 65536) {
            rec_drec *d = (rec_drec *)(void *)(wt->q + (pos & (wt->qsize - 1)));
            if (d->payload_size == REC_DREC_WRAP) {
                pos += d->rec_size;
                continue;
            }
            int k = (d->flags & 1u) ? D_PERSIST : decide(w, d->ts, now, r->o.pre_roll_ns, final);
            if (k == D_WAIT || (k == D_PERSIST && d->index_seq >= wt->consumed))
                break;
            if (k == D_PERSIST) {
                d->flags |= 1u;
                if (!persistable(w, wt, d)) {
                    d->flags |= 2u;
                } else {
                    uint64_t off = link_offset(r, d->index_seq);
                    if (np == RUN_MAX || (np && off + width - run[0].off > SCRATCH)) {
                        flush_run(wt, run, np, width);
                        np = 0;
                    }
                    run[np].off = off;
                    run[np].dseq = dseq++;
                    np++;
                    d->flags |= 4u;
                    wt->links_patched++;
                }
            }
            pos += d->rec_size;
            n++;
        }
        flush_run(wt, run, np, width);
        for (uint64_t i = 0; i < n; i++) {
            rec_drec *d = q_front(wt);
            if (d->flags & 4u)
                append_detail(w, wt, d);
            else if (d->flags & 2u)
                wt->detail_lost++;
            q_pop(wt);
        }
        if (n < 65536)
            return;
    }
}

/* ---- Draining ------------------------------------------------------------------- */

/* Copies n events from the ring to the window, converting counter
 * timestamps on the way (one pass, no second read of the window). Each
 * event goes straight from ring to window, the timestamp apart: built in
 * a temporary, an event's 8-byte timestamp store followed by a 16-byte
 * load across it defeated store forwarding, and that stall was 90 % of
 * the writer's time (perf annotate of drain, 29 Nov 2026). */
static void copy_events(const rec_clock *c, uint8_t *dst, const uint8_t *src, uint64_t n, int counter)
{
    if (!counter) {
        memcpy(dst, src, n * ATF_INDEX_EVENT_SIZE);
        return;
    }
    uint64_t next_c0 = 0;
    const rec_seg *sg = NULL;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *s = src + i * ATF_INDEX_EVENT_SIZE;
        uint8_t *d = dst + i * ATF_INDEX_EVENT_SIZE;
        uint64_t raw;
        memcpy(&raw, s, 8);
        raw = REC_LE64(raw);
        if (!sg || raw >= next_c0)
            sg = rec_clock_find(c, raw, &next_c0);
        uint64_t ts = REC_LE64(rec_seg_apply(sg, raw));
        memcpy(d, &ts, 8);
        memcpy(d + 8, s + 8, ATF_INDEX_EVENT_SIZE - 8);
    }
}

/* Moves new detail records from the ring into the queue. */
static void pull_detail(rec_writer *w, rec_wthread *wt, uint64_t now, int final)
{
    rec_thread *t = wt->t;
    uint64_t dp = atomic_load_explicit(&t->dpub, ACQ);
    int moved = 0;
    while (wt->dconsumed < dp) {
        const uint8_t *p = t->dbuf + (wt->dconsumed & (t->dsize - 1));
        rec_drec h;
        memcpy(&h, p, 8);
        if (h.payload_size == REC_DREC_WRAP) {
            wt->dconsumed += h.rec_size;
            continue;
        }
        memcpy(&h, p, sizeof h);
        if (t->counter_clock)
            h.ts = rec_clock_convert(&w->clock, h.ts);
        h.flags = 0;
        if (!q_push(w, wt, &h, p + REC_DREC_HEAD, now, final))
            break;
        wt->dconsumed += h.rec_size;
        moved = 1;
    }
    if (moved) {
        rec_ring_release_detail(t, wt->dconsumed);
    }
}

/* Settles the queue front: discards, marks persisted, and persists records
 * whose index events are already in the file. */
static void settle_front(rec_writer *w, rec_wthread *wt, uint64_t now, int final)
{
    rec_drec *d;
    while ((d = q_front(wt)) != NULL) {
        int k = (d->flags & 1u) ? D_PERSIST : decide(w, d->ts, now, w->r->o.pre_roll_ns, final);
        if (k == D_DISCARD) {
            q_pop(wt);
            continue;
        }
        if (k == D_WAIT)
            return;
        d->flags |= 1u;
        if (d->index_seq < wt->consumed) {
            persist_late(w, wt, now, final);
            continue;
        }
        return;   /* waits for its index event */
    }
}

/* Emits the queue-front records whose index events are in [from, to), just
 * copied to the window at file offset base (not yet submitted). */
static void emit_in_run(rec_writer *w, rec_wthread *wt, uint64_t from, uint64_t to, uint64_t now, int final)
{
    atf_recorder *r = w->r;
    unsigned width = link_width(r);
    rec_drec *d;
    while ((d = q_front(wt)) != NULL) {
        int k = (d->flags & 1u) ? D_PERSIST : decide(w, d->ts, now, r->o.pre_roll_ns, final);
        if (k == D_DISCARD) {
            q_pop(wt);
            continue;
        }
        if (k == D_WAIT || d->index_seq >= to)
            return;
        d->flags |= 1u;
        if (d->index_seq < from) {
            persist_late(w, wt, now, final);
            continue;
        }
        if (persistable(w, wt, d)) {
            store_link(rec_sink_at(&wt->index, link_offset(r, d->index_seq)), wt->dcount, width);
            append_detail(w, wt, d);
        } else {
            wt->detail_lost++;
        }
        q_pop(wt);
    }
}

static void snapshot_windows(rec_writer *w, uint64_t *now);

/* A thread with events to write needs its files' windows back (parked
 * while it was idle), from the budget; with the budget full, the index file
 * borrows the writer's spare window (one file at a time, parked again after
 * the pass), so a writer always makes progress — draining threads is what
 * gives memory back. Only at stop may a window go beyond the budget.
 * @return 0 if no window can be had now: the thread's ring waits. */
static int sinks_ready(rec_writer *w, rec_wthread *wt, int final)
{
    rec_thread *t = wt->t;
    if (!wt->index.parked && !(wt->detail_created && wt->detail.parked))
        return 1;
    int detail_work = !q_empty(wt) || wt->dconsumed != atomic_load_explicit(&t->dpub, ACQ);
    if (atomic_load_explicit(&t->pub_head, ACQ) == wt->consumed && !detail_work)
        return 1;
    /* detail.atf exists from the thread's start (wthread_create) but needs
     * its window only when detail records are on their way. */
    rec_sink *sinks[2] = { &wt->index, wt->detail_created && detail_work ? &wt->detail : NULL };
    for (int i = 0; i < 2; i++) {
        rec_sink *s = sinks[i];
        if (!s || !s->parked || rec_sink_unpark(s, 0))
            continue;
        if (i == 0 && w->spare && !w->spare_user) {
            rec_sink_unpark_into(s, w->spare);
            w->spare_user = wt;
            continue;
        }
        if (!final || !rec_sink_unpark(s, 1))
            return 0;
    }
    return 1;
}

/* One pass over one thread. @return bytes moved. */
static uint64_t drain(rec_writer *w, rec_wthread *wt, int final)
{
    atf_recorder *r = w->r;
    rec_thread *t = wt->t;
    uint64_t ih = atomic_load_explicit(&t->pub_head, ACQ);
    uint64_t moved = 0, now = 0;
    /* The windows as of now, read after ih: every index event up to ih was
     * recorded before now, so its detail record can be decided now and
     * linked while the event is copied (no patch needed). */
    if (t->dsize)
        snapshot_windows(w, &now);
    if (t->dsize) {
        pull_detail(w, wt, now, final);
        settle_front(w, wt, now, final);
    }
    if (!wt->failed && !sinks_ready(w, wt, final))
        return 0;   /* no budget for its window yet: its ring waits */
    if (ih - wt->consumed > wt->backlog_max)
        wt->backlog_max = ih - wt->consumed;
    while (wt->consumed < ih) {
        /* Blocks of 256 events (8 KiB): copied, converted, linked and
         * checksummed while they are in the L1 cache. */
        uint64_t n;
        const uint8_t *src = rec_ring_run(t, &wt->ring, wt->consumed, ih, 256, &n);
        if (wt->failed || wt->consumed >= wt->index_limit) {
            /* No file (or the layout-1 count limit): count, do not write. */
            if (wt->failed)
                wt->lost_io += n;
            else
                wt->rejected += n;
        } else {
            if (n > wt->index_limit - wt->consumed)
                n = wt->index_limit - wt->consumed;
            uint64_t contig;
            rec_sink_space(&wt->index, &contig);
            if (contig < ATF_INDEX_EVENT_SIZE) {
                /* The window is full and only the disk can free it: go on
                 * with the other threads' files (their writes run side by
                 * side with this one) and come back at the next pass. The
                 * loop waits, or grows a window, only when no file can move
                 * (see io_wait): a bigger window is worth its memory (and
                 * the cost of mapping it) only when the writer would
                 * otherwise wait for the disk. */
                if (final)
                    rec_sink_reserve(&wt->index, wt->index.chunk);
                else if (!rec_sink_try_reserve(&wt->index, wt->index.chunk, 0)) {
                    w->io_wait = wt;
                    break;
                }
                continue;
            }
            if (n > contig / ATF_INDEX_EVENT_SIZE)
                n = contig / ATF_INDEX_EVENT_SIZE;
            uint8_t *dst = rec_sink_at(&wt->index, wt->index.fill);
            copy_events(&w->clock, dst, src, n, t->counter_clock);
            uint64_t ts;
            if (wt->consumed - wt->rejected == 0) {
                memcpy(&ts, dst, 8);
                wt->t_first = REC_LE64(ts);
            }
            memcpy(&ts, dst + (n - 1) * ATF_INDEX_EVENT_SIZE, 8);
            wt->t_last = REC_LE64(ts);
            wt->index.fill += n * ATF_INDEX_EVENT_SIZE;
            if (t->dsize)
                emit_in_run(w, wt, wt->consumed, wt->consumed + n, now, final);
            rec_sink_crc_to(&wt->index, wt->index.fill);
            rec_sink_kick(&wt->index);
            moved += n * ATF_INDEX_EVENT_SIZE;
        }
        wt->consumed += n;
        /* Release ring space every 4096 events (and at the end). */
        if ((wt->consumed & 4095) < n || wt->consumed == ih)
            rec_ring_release(wt->t, wt->consumed);
        if (t->dsize && wt->qhead != wt->qtail && wt->dconsumed != atomic_load_explicit(&t->dpub, RLX))
            pull_detail(w, wt, now, final);
    }
    if (atomic_load_explicit(&t->tail, RLX) != wt->consumed)
        rec_ring_release(wt->t, wt->consumed);   /* left early: the window was full */
    if (moved) {
        atomic_fetch_add_explicit(&r->events_written, moved / ATF_INDEX_EVENT_SIZE, RLX);
        atomic_fetch_add_explicit(&r->bytes_written, moved, RLX);
    }
    if (wt->pending_detail) {
        atomic_fetch_add_explicit(&r->detail_written, wt->pending_detail, RLX);
        atomic_fetch_add_explicit(&r->bytes_written, wt->pending_bytes, RLX);
        wt->pending_detail = wt->pending_bytes = 0;
    }
    if (t->dsize) {
        pull_detail(w, wt, now, final);
        settle_front(w, wt, now, final);
        q_trim(w, wt, now, final);
    }
    return moved;
}

/* ---- Finishing a thread ------------------------------------------------------------ */

/* Events in a file after an I/O error: what a reader recovers. */
static uint64_t durable_index_events(const char *path)
{
    atf_index_reader *ir = NULL;
    atf_read_options o = ATF_READ_OPTIONS_INIT;
    o.verify = 0;
    if (atf_index_reader_open(&ir, path, &o, NULL) != ATF_OK)
        return 0;
    uint64_t n = atf_index_reader_count(ir);
    atf_index_reader_close(ir);
    return n;
}

static uint64_t durable_detail_events(const char *path)
{
    atf_detail_reader *dr = NULL;
    atf_read_options o = ATF_READ_OPTIONS_INIT;
    o.verify = 0;
    if (atf_detail_reader_open(&dr, path, &o, NULL) != ATF_OK)
        return 0;
    uint64_t n = atf_detail_reader_count(dr);
    atf_detail_reader_close(dr);
    return n;
}

static void finish_sink(rec_writer *w, rec_wthread *wt, rec_sink *s, int is_detail)
{
    atf_recorder *r = w->r;
    uint8_t header[64], footer[64];
    uint32_t crc = rec_sink_seal(s);
    if (is_detail) {
        atf_detail_footer f;
        memset(&f, 0, sizeof f);
        f.checksum = r->o.checksum ? crc : 0;
        f.event_count = wt->dcount;
        f.bytes_length = s->fill - ATF_DETAIL_HEADER_SIZE;
        f.time_start_ns = wt->dcount ? wt->dt_first : 0;
        f.time_end_ns = wt->dcount ? wt->dt_last : 0;
        atf_detail_footer_encode(footer, 64, &f);
        encode_detail_header(r, wt, header, 1);
    } else {
        uint64_t n = wt->consumed - wt->rejected;
        atf_index_footer f;
        memset(&f, 0, sizeof f);
        f.checksum = r->o.checksum ? crc : 0;
        f.event_count = n;
        f.time_start_ns = n ? wt->t_first : 0;
        f.time_end_ns = n ? wt->t_last : 0;
        f.bytes_written = n * ATF_INDEX_EVENT_SIZE;
        atf_index_footer_encode(footer, 64, &f);
        encode_index_header(r, wt, header, 1);
    }
    char *path = strdup(s->path);
    atf_status st = rec_sink_finish(s, footer, header, r->o.sync);
    if (st != ATF_OK) {
        int e = atomic_load_explicit(&s->err, RLX);
        record_io_error(r, path, e ? e : EIO, "cannot write");
        if (path) {
            if (is_detail) {
                uint64_t ok = durable_detail_events(path);
                wt->detail_lost += wt->dcount > ok ? wt->dcount - ok : 0;
            } else {
                uint64_t ok = durable_index_events(path);
                uint64_t n = wt->consumed - wt->rejected;
                wt->lost_io += n > ok ? n - ok : 0;
            }
        }
    }
    free(path);
}

static void sync_summary(atf_recorder *r, rec_wthread *wt, int finalized)
{
    rec_thread *t = wt->t;
    rec_summary *s = summary_of(r, wt);
    if (!s)
        return;
    s->os_tid = t->os_tid;
    s->has_detail = wt->detail_created;
    s->event_count = wt->consumed - wt->rejected - (wt->failed ? wt->lost_io : 0);
    if (wt->failed)
        s->event_count = 0;
    s->detail_count = wt->dcount;
    s->dropped = atomic_load_explicit(&t->dropped, RLX);
    s->lost_at_stop = wt->lost_at_stop;
    s->lost_io = wt->lost_io;
    s->rejected = wt->rejected;
    s->bp_waits = atomic_load_explicit(&t->bp_waits, RLX);
    s->bp_wait_ns = atomic_load_explicit(&t->bp_wait_ns, RLX);
    s->recorded = atomic_load_explicit(&t->head, RLX);
    s->detail_recorded = atomic_load_explicit(&t->detail_recorded, RLX);
    s->producer_detail_dropped = atomic_load_explicit(&t->detail_dropped, RLX);
    s->detail_dropped = s->producer_detail_dropped + wt->detail_lost;
    s->preroll_evicted = wt->preroll_evicted;
    s->links_patched = wt->links_patched;
    s->t_first = wt->t_first;
    s->t_last = wt->t_last;
    if (finalized)
        s->finalized = 1;
}

static void finish_thread(rec_writer *w, rec_wthread *wt, int final)
{
    atf_recorder *r = w->r;
    rec_thread *t = wt->t;
    if (final) {
        /* Nothing more will be published: settle every queued record. */
        uint64_t h = atomic_load_explicit(&t->head, RLX);
        uint64_t p = atomic_load_explicit(&t->pub_head, ACQ);
        if (h > p)
            wt->lost_at_stop += h - p;
        rec_drec *d;
        while ((d = q_front(wt)) != NULL) {
            int k = (d->flags & 1u) ? D_PERSIST : decide(w, d->ts, UINT64_MAX, 0, 1);
            if (k == D_PERSIST)
                wt->detail_lost++;   /* its index event was never published */
            q_pop(wt);
        }
    }
    if (!wt->failed && wt->index.open)
        finish_sink(w, wt, &wt->index, 0);
    if (wt->detail_created && wt->detail.open)
        finish_sink(w, wt, &wt->detail, 1);
    /* The detail file must be complete before the index footer vouches for
     * its links: both are sealed (all data written) before either footer. */
    pthread_mutex_lock(&r->man_mu);
    sync_summary(r, wt, 1);
    r->manifest_dirty = 2;
    pthread_mutex_unlock(&r->man_mu);

    rec_ring_close(t, wt->ring);
    pthread_mutex_lock(&r->reg_mu);
    if (t->gprev)
        t->gprev->gnext = t->gnext;
    else
        r->live = t->gnext;
    if (t->gnext)
        t->gnext->gprev = t->gprev;
    pthread_mutex_unlock(&r->reg_mu);
    atomic_fetch_sub_explicit(&r->threads_live, 1, RLX);
    if (atomic_load_explicit(&t->grown, RLX))
        atomic_fetch_sub_explicit(&r->budget.grown, 1, RLX);
    rec_budget_give(&r->budget, wt->mem + atomic_load_explicit(&t->mem_bytes, RLX));
    if (w->spare_user == wt)
        w->spare_user = NULL;   /* closing the file gave the spare back */
    if (wt->q)
        munmap(wt->q, wt->qsize);
    free(wt->scratch);
    free(wt->dir);
    t->w = NULL;
    free(wt);
    rec_thread_release(t);
}

/* ---- The loop ----------------------------------------------------------------------- */

static void snapshot_windows(rec_writer *w, uint64_t *now)
{
    atf_recorder *r = w->r;
    pthread_mutex_lock(&r->win_mu);
    /* now is read under the lock: a window opened after this read starts
     * after now - pre_roll (see decide()). */
    *now = rec_clock_system_ns();
    uint64_t g = atomic_load_explicit(&r->win_gen, RLX);
    if (g != w->win_gen) {
        if (r->nwin > w->capwin) {
            rec_window *n = realloc(w->win, r->nwin * sizeof *n);
            if (n) {
                w->win = n;
                w->capwin = r->nwin;
            }
        }
        if (r->nwin <= w->capwin) {
            if (r->nwin)
                memcpy(w->win, r->win, r->nwin * sizeof *w->win);
            w->nwin = r->nwin;
            w->win_gen = g;
        }
    }
    /* Post-roll over and no pre-roll: producers may stop capturing. */
    if (w->index == 0 && r->o.detail && r->o.pre_roll_ns == 0 &&
        (r->nwin == 0 || (r->win[r->nwin - 1].b != UINT64_MAX && r->win[r->nwin - 1].b < *now)))
        atomic_store_explicit(&r->capturing, 0, RLX);
    pthread_mutex_unlock(&r->win_mu);
}

/* Flush timers, and giving back the windows of idle files. A file that
 * did not complete a chunk for flush_interval_ms gets its tail written; one
 * with nothing appended for as long (or any file with nothing unwritten
 * while the budget is tight) is parked: window and descriptors given back
 * until its thread records again. */
static void flush_timers(rec_writer *w, rec_wthread *wt, uint64_t now, int force, int tight)
{
    atf_recorder *r = w->r;
    uint64_t interval = (uint64_t)r->o.flush_interval_ms * 1000000u;
    rec_sink *sinks[2] = { &wt->index, wt->detail_created ? &wt->detail : NULL };
    for (int i = 0; i < 2; i++) {
        rec_sink *s = sinks[i];
        if (!s || !s->open || s->parked)
            continue;
        if (force) {
            rec_sink_flush(s);
            s->flushed_sub = s->sub;
            s->flush_check_ns = now;
            continue;
        }
        uint64_t visible = atomic_load_explicit(&s->visible, ACQ);
        if (tight && s->fill == visible && q_empty(wt) && rec_sink_park(s))
            continue;
        if (now - s->flush_check_ns < interval)
            continue;
        if (s->fill == s->checked_fill && s->fill == visible && q_empty(wt) && rec_sink_park(s))
            continue;
        /* Less than an eighth of the window in a whole interval: smaller. */
        if ((s->fill - s->checked_fill) * 8 < s->size && s->size > REC_SINK_MIN && rec_sink_shrink(s))
            visible = atomic_load_explicit(&s->visible, ACQ);
        /* Only files that did not complete a chunk since the last check:
         * busy files reach the disk chunk by chunk anyway. */
        if (s->sub == s->flushed_sub && s->fill > visible)
            rec_sink_flush_async(s);
        s->flushed_sub = s->sub;
        s->checked_fill = s->fill;
        s->flush_check_ns = now;
    }
}

/* Once a second: a ring that never held more than an eighth of itself is
 * bigger than the thread's rate needs; ask its owner for a smaller one (it
 * acts at its next publish, so an idle thread keeps its ring). */
static void review_ring(atf_recorder *r, rec_wthread *wt, uint64_t now)
{
    if (now - wt->period_ns < 1000000000u)
        return;
    rec_ring *g = rec_ring_newest(wt->ring);
    if (g->mask + 1 > r->ring_min && wt->backlog_max < (g->mask + 1) / 8) {
        rec_ring_ask_shrink(wt->t);
    }
    wt->backlog_max = 0;
    wt->period_ns = now;
}

/* ---- Thread files, off the drain path -------------------------------------------- */

/* Creating a thread's files (mkdir, open, write, rename) takes a few system
 * calls and two inode allocations: about 15 us on tmpfs, but 0.5 ms and more
 * on an ext4 without a journal after many recent deletions (every allocation
 * walks past the inodes freed in the last minutes). A burst of a thousand new
 * threads created by the writer itself held it for half a second, while the
 * busy threads' rings filled and their threads waited (backpressure), even
 * when a pass created only a few of them. So each writer has a helper thread
 * (atf-rec-files) that creates them, in registration order, and hands each
 * one back through w->ready; the writer drains every ring meanwhile and
 * adopts what is ready at the start of each pass. Stopping, the writer
 * creates what is still queued itself and waits for the one the helper is
 * creating; flushing, it does so for the queued threads with something
 * published (a flush covers every published event). Without the helper (it
 * could not start), the writer creates them all itself.
 *
 * The helper runs at nice REC_FILES_NICE: on a machine whose cores are all
 * busy, file creation waits for them rather than slowing them (measured on
 * 2 cores, 10 busy threads and 990 registering: 0.83-0.84x the busy
 * threads' rate alone while producing at the writer's priority, 0.86-0.90x at nice 10); at
 * worst the new threads' rings fill first and those threads wait
 * (lossless) or drop (counted), as for any ring the writer cannot drain. */
#define REC_FILES_NICE 10

/* A created thread joins the ready stack and the writer is woken. */
static void files_ready(rec_writer *w, rec_wthread *wt)
{
    rec_wthread *head = atomic_load_explicit(&w->ready, RLX);
    do
        wt->rnext = head;
    while (!atomic_compare_exchange_weak_explicit(&w->ready, &head, wt, REL, RLX));
    rec_writer_wake(w);
}

/* The next thread to create (the queue is FIFO), NULL: none. With
 * files_mu held. */
static rec_thread *files_pop(rec_writer *w)
{
    rec_thread *t = w->fq;
    if (t) {
        w->fq = t->inext;
        if (!w->fq)
            w->fq_tail = NULL;
        t->inext = NULL;
    }
    return t;
}

/* CPU time of the calling thread, ns: what creating files costs it, not
 * counting the time it waited for a CPU (the helper yields to busy ones). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Creates t's files (stats.thread_files_us counts its CPU time); @return
 * its writer state, NULL (out of memory): t went back to the incoming stack
 * for a later pass. */
static rec_wthread *files_create(rec_writer *w, rec_thread *t)
{
    uint64_t start = thread_cpu_ns();
    rec_wthread *wt = wthread_create(w, t);
    if (!wt) {
        rec_writer_push(w, t);
        return NULL;
    }
    uint64_t end = thread_cpu_ns();
    atomic_fetch_add_explicit(&w->r->thread_files_ns, end > start ? end - start : 0, RLX);
    return wt;
}

_Atomic(void (*)(void)) rec_files_hook;

static void *files_main(void *arg)
{
    rec_writer *w = arg;
#if defined(__linux__)
    pthread_setname_np(pthread_self(), "atf-rec-files");
    /* Background work: the busy threads and the writer go first (a flush
     * or stop has the writer take over the queue). */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), REC_FILES_NICE);
#endif
    pthread_mutex_lock(&w->files_mu);
    for (;;) {
        rec_thread *t = files_pop(w);
        if (!t) {
            if (w->files_quit)
                break;
            pthread_cond_wait(&w->files_cv, &w->files_mu);
            continue;
        }
        w->files_cur = t;
        pthread_mutex_unlock(&w->files_mu);
        void (*hook)(void) = atomic_load_explicit(&rec_files_hook, ACQ);
        if (hook)
            hook();
        rec_wthread *wt = files_create(w, t);
        if (wt)
            files_ready(w, wt);
        pthread_mutex_lock(&w->files_mu);
        w->files_cur = NULL;
        pthread_cond_broadcast(&w->files_done);
    }
    pthread_mutex_unlock(&w->files_mu);
    return NULL;
}

static void files_start(rec_writer *w)
{
    pthread_mutex_init(&w->files_mu, NULL);
    pthread_cond_init(&w->files_cv, NULL);
    pthread_cond_init(&w->files_done, NULL);
    w->files_started = pthread_create(&w->files_th, NULL, files_main, w) == 0;
}

static void files_stop(rec_writer *w)
{
    if (w->files_started) {
        pthread_mutex_lock(&w->files_mu);
        w->files_quit = 1;
        pthread_cond_signal(&w->files_cv);
        pthread_mutex_unlock(&w->files_mu);
        pthread_join(w->files_th, NULL);
        w->files_started = 0;
    }
    pthread_cond_destroy(&w->files_done);
    pthread_cond_destroy(&w->files_cv);
    pthread_mutex_destroy(&w->files_mu);
}

/* A created thread joins the writer's list. @return 0, or -1 (out of
 * memory). */
static int adopt_one(rec_writer *w, rec_wthread *wt)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        rec_wthread **l = realloc(w->list, cap * sizeof *l);
        if (!l)
            return -1;
        w->list = l;
        w->cap = cap;
    }
    w->list[w->n++] = wt;
    return 0;
}

/* Something of t's is published: a flush must write it, so its files must
 * exist. A thread registers with its first event but publishes in batches:
 * one that recorded a few events and blocked has nothing a flush can write. */
static int has_published(rec_thread *t)
{
    return atomic_load_explicit(&t->pub_head, ACQ) != 0 || atomic_load_explicit(&t->dpub, ACQ) != 0;
}

/* Takes the queued threads to create now, every one (all) or those with
 * something published, and returns them in order; the others stay queued
 * for the helper. With files_mu held. */
static rec_thread *files_take(rec_writer *w, int all)
{
    rec_thread *out = NULL, **out_end = &out, *keep = NULL, **keep_end = &keep, *last = NULL;
    for (rec_thread *t = w->fq, *next; t; t = next) {
        next = t->inext;
        t->inext = NULL;
        if (all || has_published(t)) {
            *out_end = t;
            out_end = &t->inext;
        } else {
            *keep_end = t;
            keep_end = &t->inext;
            last = t;
        }
    }
    w->fq = keep;
    w->fq_tail = last;
    return out;
}

/* Threads registered since the last pass go to the helper's queue (in
 * registration order), and those it created join the list.
 * ADOPT_FLUSH: every queued thread with something published joins it in
 * this pass (the writer creates their files itself); a thread with nothing
 * published stays with the helper, a flush has nothing of it to write (a
 * burst of new threads that block after a few events then costs a flush
 * nothing). ADOPT_ALL (stopping, or no helper): every registered thread.
 * @return nonzero if created threads are left for the next pass. */
enum { ADOPT_PASS, ADOPT_FLUSH, ADOPT_ALL };

static int adopt_incoming(rec_writer *w, int mode)
{
    rec_thread *in = atomic_exchange_explicit(&w->incoming, NULL, ACQ);
    rec_thread *rev = NULL;
    while (in) {
        rec_thread *next = in->inext;
        in->inext = rev;
        rev = in;
        in = next;
    }
    if (rev) {
        rec_thread *last = rev;
        while (last->inext)
            last = last->inext;
        pthread_mutex_lock(&w->files_mu);
        if (w->fq)
            w->fq_tail->inext = rev;
        else
            w->fq = rev;
        w->fq_tail = last;
        if (w->files_started)
            pthread_cond_signal(&w->files_cv);
        pthread_mutex_unlock(&w->files_mu);
    }
    if (!w->files_started)
        mode = ADOPT_ALL;   /* no helper: the writer creates them all */
    if (mode != ADOPT_PASS) {
        int all = mode == ADOPT_ALL;
        pthread_mutex_lock(&w->files_mu);
        rec_thread *t = files_take(w, all);
        pthread_mutex_unlock(&w->files_mu);
        while (t) {
            rec_thread *next = t->inext;
            t->inext = NULL;
            rec_wthread *wt = files_create(w, t);
            if (wt)
                files_ready(w, wt);
            t = next;
        }
        /* The one the helper is creating (flushing: if it has something
         * published, checked after the flush was asked for; what it
         * publishes later is the next flush's). */
        pthread_mutex_lock(&w->files_mu);
        while (w->files_cur && (all || has_published(w->files_cur)))
            pthread_cond_wait(&w->files_done, &w->files_mu);
        pthread_mutex_unlock(&w->files_mu);
    }
    /* The ready stack, in creation order. */
    rec_wthread *ready = atomic_exchange_explicit(&w->ready, NULL, ACQ), *fifo = NULL;
    while (ready) {
        rec_wthread *next = ready->rnext;
        ready->rnext = fifo;
        fifo = ready;
        ready = next;
    }
    int left = 0;
    while (fifo) {
        rec_wthread *next = fifo->rnext;
        if (left || adopt_one(w, fifo) != 0) {
            files_ready(w, fifo);   /* the next pass */
            left = 1;
        }
        fifo = next;
    }
    return left;
}

void rec_writer_push(rec_writer *w, rec_thread *t)
{
    rec_thread *head = atomic_load_explicit(&w->incoming, RLX);
    do
        t->inext = head;
    while (!atomic_compare_exchange_weak_explicit(&w->incoming, &head, t, REL, RLX));
    rec_writer_wake(w);
}

/* One pass over the writer's threads: each drained; one that left (or
 * every one, stopping) with nothing more to copy is finished; the others'
 * flush timers, ring sizes and summaries looked after. @return bytes moved. */
static uint64_t pass_threads(rec_writer *w, uint64_t now, int stopping, int flushing, int sync_now)
{
    atf_recorder *r = w->r;
    uint64_t moved = 0;
    int tight = atomic_load_explicit(&r->budget.used, RLX) > r->budget.limit / 8 * REC_GROW_SHARE ||
                atomic_load_explicit(&r->budget.files, RLX) > r->budget.files_cap;
    for (size_t i = 0; i < w->n;) {
        rec_wthread *wt = w->list[i];
        rec_thread *t = wt->t;
        if (!wt->scratch)
            wt->scratch = malloc(SCRATCH + 16);
        moved += drain(w, wt, stopping);
        int exited = atomic_load_explicit(&t->exited, ACQ);
        if (stopping || (exited && wt->consumed == atomic_load_explicit(&t->pub_head, ACQ) &&
                         wt->dconsumed == atomic_load_explicit(&t->dpub, ACQ) && q_empty(wt))) {
            if (stopping)
                moved += drain(w, wt, 1);
            finish_thread(w, wt, stopping);
            w->list[i] = w->list[--w->n];
            continue;
        }
        /* A borrowed spare window goes back at once. */
        if (w->spare_user == wt && rec_sink_park(&wt->index))
            w->spare_user = NULL;
        flush_timers(w, wt, now, flushing, tight);
        review_ring(r, wt, now);
        if (sync_now) {
            pthread_mutex_lock(&r->man_mu);
            sync_summary(r, wt, 0);
            pthread_mutex_unlock(&r->man_mu);
        }
        i++;
    }
    return moved;
}

/* Writer 0 (and any writer serving a flush) rewrites the manifest when due:
 * it lists every thread of the session, so rewriting it takes longer as
 * they add up; it is rewritten at most once per 20 times its last cost
 * (the writer spends <= 5 % there). */
static void manifest_when_due(rec_writer *w, uint64_t now, int stopping, int flushing)
{
    atf_recorder *r = w->r;
    pthread_mutex_lock(&r->man_mu);
    uint64_t gap = 20 * w->manifest_cost_ns;
    int due = (r->manifest_dirty == 2 && now - r->manifest_written_ns > 50000000u + gap) ||
              now - r->manifest_written_ns > 1000000000u + gap || flushing;
    if (due && !stopping && !r->complete) {
        uint64_t start = rec_clock_system_ns();
        rec_manifest_write(r, 0, NULL);
        uint64_t end = rec_clock_system_ns();
        w->manifest_cost_ns = end - start;
        r->manifest_written_ns = end;
        r->manifest_dirty = 0;
    }
    pthread_mutex_unlock(&r->man_mu);
}

/* Nothing moved this pass: wait for the disk if every file with events
 * waits for it, else sleep (longer each idle pass, up to 1 ms) until a
 * producer, a flush or stop wakes the writer. */
static void wait_for_work(rec_writer *w, uint64_t moved, int pending, uint64_t io_seen, uint64_t *idle_ns)
{
    atf_recorder *r = w->r;
    if (moved == 0 && w->io_wait) {
        /* Every file with events to write waits for the disk: a bigger
         * window for one of them, or the next write done, whichever
         * file's it is (waiting for one file's own writes left the
         * others' windows, freed meanwhile, unfilled). */
        if (!rec_sink_try_reserve(&w->io_wait->index, w->io_wait->index.chunk, 1))
            rec_io_wait_completion(&w->io, io_seen);
    } else if (moved == 0 && !pending) {
        uint32_t seq = atomic_load_explicit(&w->wake_seq, ACQ);
        atomic_store_explicit(&w->sleeping, 1, SEQ);
        if (atomic_load_explicit(&r->stopping, ACQ) == 0 &&
            atomic_load_explicit(&r->flush_req, ACQ) == atomic_load_explicit(&w->flush_done, RLX))
            rec_wait32(&w->wake_seq, seq, *idle_ns);
        atomic_store_explicit(&w->sleeping, 0, RLX);
        if (*idle_ns < 1000000u)
            *idle_ns *= 2;
    } else {
        *idle_ns = 20000;
    }
}

void *rec_writer_main(void *arg)
{
    rec_writer *w = arg;
    atf_recorder *r = w->r;
    uint64_t idle_ns = 20000;
#if defined(__linux__)
    pthread_setname_np(pthread_self(), "atf-rec-writer");
#endif
    void *m = mmap(NULL, REC_SINK_MIN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    w->spare = m == MAP_FAILED ? NULL : m;
    files_start(w);
    for (;;) {
        int stopping = atomic_load_explicit(&r->stopping, ACQ);
        uint64_t freq = atomic_load_explicit(&r->flush_req, ACQ);
        int flushing = freq != atomic_load_explicit(&w->flush_done, RLX);
        uint64_t now;
        snapshot_windows(w, &now);   /* also keeps the capturing flag current */
        rec_clock_tick(&w->clock, now);
        int pending = adopt_incoming(w, stopping ? ADOPT_ALL : flushing ? ADOPT_FLUSH : ADOPT_PASS);
        uint64_t io_seen = rec_io_completed(&w->io);
        w->io_wait = NULL;
        /* Summaries every 10 ms, less often with many threads. */
        uint64_t sync_every = 10000000u + (uint64_t)w->n * 10000u;
        int sync_now = now - w->last_sync_ns > sync_every || stopping || flushing;
        uint64_t moved = pass_threads(w, now, stopping, flushing, sync_now);
        if (sync_now)
            w->last_sync_ns = now;
        if (w->index == 0 || flushing)
            manifest_when_due(w, now, stopping, flushing);
        if (flushing) {
            pthread_mutex_lock(&r->flush_mu);
            atomic_store_explicit(&w->flush_done, freq, REL);
            pthread_cond_broadcast(&r->flush_cv);
            pthread_mutex_unlock(&r->flush_mu);
        }
        if (stopping)
            break;
        wait_for_work(w, moved, pending, io_seen, &idle_ns);
    }
    files_stop(w);
    if (w->spare)
        munmap(w->spare, REC_SINK_MIN);
    w->spare = NULL;
    return NULL;
}
