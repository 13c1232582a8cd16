/* `atf pack` / `atf unpack`: an ATF session in one RTC file (docs/pack.md,
 * conformance/SPEC-RTC.md 10, the atf-pack profile).
 *
 * Layout. One RTC stream per file of the session: "manifest.json" and
 * "thread_K/index.atf", "thread_K/detail.atf" (format raw, timed by the
 * clock "atf/clock": uint64le nanoseconds of the session clock, gain 1e-9).
 * Every stream is defined before the first write, so every Unit's Meta
 * describes every lane: its size, events_offset, end of events, event count,
 * layout and its first 64 bytes (the header). A record of a file stream is
 * a chunk of the file: ULEB128 offset, ULEB128 first_seq, ULEB128 first_at,
 * then at most CHUNK bytes of the file from offset; first_at is where event
 * first_seq starts in the chunk (the chunk's size when no event starts in
 * it). Chunks of the events region hold whole events (an event larger than
 * a chunk takes several), so that a lost Unit costs whole events. The
 * writer runs with whole_records: no record crosses a Unit end, so every
 * intact Unit yields whole chunks and nothing else.
 *
 * Order: threads advance by their next index event's time; a step is a
 * clock record, a chunk of up to 31 index events and the detail events they
 * link to. The manifest is written whole at the start, again in the first
 * Unit after every period (1 Unit when the manifest is at most U/16, else
 * enough Units to keep the copies at about 1/16 of the file) and at the end.
 *
 * Unpacking collects the chunks of every intact Unit. A file whose every
 * byte came back is written as it was. A thread that lost bytes is rebuilt
 * as a crash-truncated thread: a placeholder header (the packed header with
 * its count, footer offset and times zeroed), the index events whose 32
 * bytes all came back, renumbered in order, and the detail events that came
 * back whole and whose index event came back and links to them; links are
 * renumbered, and an index event whose detail event was lost says "no
 * detail". No footer. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <jansson.h>

#include <atf/fileio.h>
#include <atf/format.h>
#include <atf/pack.h>
#include <atf/reader.h>
#include <atf/session.h>
#include <atf/rtc.h>

#include "bytes.h"
#include "common.h"

#define CHUNK 1000u                 /* file bytes in a chunk record: header + chunk fit one 1024-byte frame */
#define INDEX_PER_STEP (CHUNK / ATF_INDEX_EVENT_SIZE)
#define OUTBUF (256u << 10)          /* an output buffer: large writes, small enough to stay in the CPU cache */
#define MIN_DEFAULT_UNIT ((uint64_t)16 << 10)
#define MAX_DEFAULT_UNIT ((uint64_t)1 << 20)
#define PREFETCH_AHEAD 8             /* records: unpack_lanes reads each one's first bytes */
#define DEFAULT_SUBUNIT ((uint64_t)1 << 17)

/* The default Unit for a session of `bytes` whose Meta takes `meta` bytes
 * and whose manifest.json `manifest` (docs/pack.md, "Unit size"). One
 * damaged Unit costs a share U/bytes of the session; every Unit costs
 * c = Meta + Marker, Index, Crc and padding (about 1 KiB) + the manifest
 * copy when it is repeated every Unit, a share c/U of the file. U is the
 * power of 2 nearest (on a log scale) to bytes/32, so one damaged Unit
 * costs about 3 % of any session, but at least 8c (the repeated parts at
 * most 1/8 of the file), at least 16 KiB and at most 1 MiB (a session of
 * 32 MiB or more: under 3 % a Unit); then raised until the Meta is at most
 * U/8 (many threads). */
uint64_t atf_pack_default_unit(uint64_t bytes, uint64_t meta, uint64_t manifest)
{
    uint64_t c = meta + 1024 + (manifest <= 8192 ? manifest : 0), U = MIN_DEFAULT_UNIT;
    /* (2U)^2 <= 2 (bytes/32)^2: 2U is no further from bytes/32 than U on a log scale */
    double t = (double)bytes / 32.0;
    while (U < MAX_DEFAULT_UNIT && (double)(2 * U) * (double)(2 * U) <= 2.0 * t * t)
        U <<= 1;
    while ((U < 8 * c && U < MAX_DEFAULT_UNIT) || (U < 8 * meta && U < ((uint64_t)1 << 40)))
        U <<= 1;
    return U;
}

/* ---- Output: a buffered file, written by a second thread ------------------------ */

/* Pack and unpack produce their output on one thread (encode and Crc, or
 * walk the chunks) and leave the write() calls (the kernel's copy into the
 * page cache, about a third of the time in perf) to a writer thread, so
 * that the two run on two cores. The output is queued in OUT_NBUF slots;
 * a slot is a list of pieces (an iovec) written with one writev(): small
 * pieces (frame headers, the RTC writer's Index, Meta, Crc) are copied
 * into the slot's buffer, and pieces of memory that stays put until
 * out_close (the mapped session files for pack, the mapped RTC file for
 * unpack: out_keep) are referred to, not copied. The producer fills one
 * slot while the writer writes the others in order, and waits only when
 * all are queued. A write error is kept (failed, saved_errno) and makes
 * every later out_put fail; out_close waits for the writer and reports
 * it. A file smaller than one slot is written at out_close without a
 * thread. */
#define OUT_NBUF 4
#define OUT_IOV 1024               /* IOV_MAX on Linux */
#define OUT_REF_MIN 256u           /* a shorter piece is copied */
#define OUT_KEEP 64

typedef struct oslot {
    uint8_t *buf;               /* OUTBUF bytes for the copied pieces */
    size_t used;                /* of buf */
    struct iovec iov[OUT_IOV];
    int niov;
} oslot;

typedef struct outfile {
    int fd;
    oslot *slots;               /* OUT_NBUF */
    oslot *cur;                 /* slots[head]: the slot being filled */
    unsigned head, tail, queued;
    const uint8_t *keep_lo[OUT_KEEP], *keep_hi[OUT_KEEP];   /* memory that outlives the file: referred to */
    size_t nkeep;
    uint64_t total;
    int failed;                 /* under mu while the writer runs */
    int pfailed;                /* the producer's copy: a write failed */
    int saved_errno;
    int sync;                   /* make the file durable at out_close */
    int threaded, done;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} outfile;

/* writev() of the whole list (short writes resumed): 0, or -1 with errno. */
static int writev_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        size_t left = (size_t)w;
        while (n > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

static int slot_write(outfile *o, oslot *sl)
{
    int e = 0;
    if (sl->niov && writev_all(o->fd, sl->iov, sl->niov) != 0)
        e = errno ? errno : EIO;
    sl->niov = 0;
    sl->used = 0;
    return e;
}

static void *out_writer(void *arg)
{
    outfile *o = arg;
    pthread_mutex_lock(&o->mu);
    for (;;) {
        while (!o->queued && !o->done)
            pthread_cond_wait(&o->cv, &o->mu);
        if (!o->queued)
            break;
        oslot *sl = &o->slots[o->tail];
        int failed = o->failed;
        pthread_mutex_unlock(&o->mu);
        int e = 0;
        if (!failed)
            e = slot_write(o, sl);
        sl->niov = 0;
        sl->used = 0;
        pthread_mutex_lock(&o->mu);
        if (e && !o->failed) {
            o->failed = 1;
            o->saved_errno = e;
        }
        o->tail = (o->tail + 1) % OUT_NBUF;
        o->queued--;
        pthread_cond_broadcast(&o->cv);
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Hands the filled slot to the writer and takes the next free one. */
static int out_submit(outfile *o)
{
    if (!o->threaded) {
        if (pthread_mutex_init(&o->mu, NULL) == 0 && pthread_cond_init(&o->cv, NULL) == 0 &&
            pthread_create(&o->th, NULL, out_writer, o) == 0)
            o->threaded = 1;
        else   /* no thread: write here */
            o->threaded = -1;
    }
    if (o->threaded < 0) {
        int e = o->failed ? 0 : slot_write(o, o->cur);
        o->cur->niov = 0;
        o->cur->used = 0;
        if (e) {
            o->failed = 1;
            o->saved_errno = e;
        }
        o->pfailed = o->failed;
        return o->failed ? -1 : 0;
    }
    pthread_mutex_lock(&o->mu);
    o->queued++;
    o->head = (o->head + 1) % OUT_NBUF;
    pthread_cond_broadcast(&o->cv);
    while (o->queued == OUT_NBUF)
        pthread_cond_wait(&o->cv, &o->mu);
    int failed = o->failed;
    pthread_mutex_unlock(&o->mu);
    o->cur = &o->slots[o->head];
    o->pfailed = failed;
    return failed ? -1 : 0;
}

/* Adds [p, p + n) to the current slot, copied or (ref) referred to. */
static int out_piece(outfile *o, const uint8_t *p, size_t n, int ref)
{
    while (n) {
        oslot *sl = o->cur;
        if (ref) {
            if (sl->niov && (const uint8_t *)sl->iov[sl->niov - 1].iov_base + sl->iov[sl->niov - 1].iov_len == p) {
                sl->iov[sl->niov - 1].iov_len += n;   /* continues the last piece */
                return 0;
            }
            if (sl->niov == OUT_IOV && out_submit(o))
                return -1;
            sl = o->cur;
            sl->iov[sl->niov].iov_base = (void *)(uintptr_t)p;
            sl->iov[sl->niov].iov_len = n;
            sl->niov++;
            return 0;
        }
        if ((sl->used == OUTBUF || sl->niov == OUT_IOV) && out_submit(o))
            return -1;
        sl = o->cur;
        size_t take = OUTBUF - sl->used < n ? OUTBUF - sl->used : n;
        uint8_t *dst = sl->buf + sl->used;
        memcpy(dst, p, take);
        if (sl->niov && (uint8_t *)sl->iov[sl->niov - 1].iov_base + sl->iov[sl->niov - 1].iov_len == dst) {
            sl->iov[sl->niov - 1].iov_len += take;
        } else {
            sl->iov[sl->niov].iov_base = dst;
            sl->iov[sl->niov].iov_len = take;
            sl->niov++;
        }
        sl->used += take;
        p += take;
        n -= take;
    }
    return 0;
}

/* Memory [p, p + n) stays unchanged until out_close: out_put refers to it. */
static void out_keep(outfile *o, const void *p, size_t n)
{
    if (o->nkeep < OUT_KEEP && n) {
        o->keep_lo[o->nkeep] = p;
        o->keep_hi[o->nkeep] = (const uint8_t *)p + n;
        o->nkeep++;
    }
}

static int out_put(void *user, const void *p, size_t n)
{
    outfile *o = user;
    const uint8_t *s = p;
    o->total += n;
    if (o->pfailed)
        return -1;
    int ref = 0;
    if (n >= OUT_REF_MIN)
        for (size_t i = 0; i < o->nkeep && !ref; i++)
            ref = s >= o->keep_lo[i] && s + n <= o->keep_hi[i];
    return out_piece(o, s, n, ref);
}

/* Writes what is queued and stops the writer: the file's bytes are all
 * written (or failed is set). */
static void out_finish(outfile *o)
{
    if (o->threaded > 0) {
        if (o->cur->niov)
            out_submit(o);
        pthread_mutex_lock(&o->mu);
        o->done = 1;
        pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
        pthread_join(o->th, NULL);
        pthread_cond_destroy(&o->cv);
        pthread_mutex_destroy(&o->mu);
        o->threaded = 0;
    } else if (o->cur && o->cur->niov && !o->failed) {
        int e = slot_write(o, o->cur);
        if (e) {
            o->failed = 1;
            o->saved_errno = e;
        }
    }
}

static void out_free(outfile *o)
{
    if (o->slots)
        free(o->slots[0].buf);
    free(o->slots);
    o->slots = NULL;
    o->cur = NULL;
}

static atf_status out_open(outfile *o, const char *path, atf_error *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->slots = calloc(OUT_NBUF, sizeof *o->slots);
    uint8_t *all = o->slots ? malloc((size_t)OUT_NBUF * OUTBUF) : NULL;
    if (!all) {
        free(o->slots);
        o->slots = NULL;
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    for (unsigned i = 0; i < OUT_NBUF; i++)
        o->slots[i].buf = all + (size_t)i * OUTBUF;
    o->cur = &o->slots[0];
    o->fd = atf_open_output(path, err);
    if (o->fd < 0) {
        out_free(o);
        return ATF_E_IO;
    }
    return ATF_OK;
}

/* The directory that holds @path's last component ("." when the path has
 * no directory part; trailing slashes are not a component); NULL without
 * memory. */
static char *parent_of(const char *path)
{
    size_t b, n;
    atf_path_last(path, &b, &n);
    if (b == 0)
        return strdup(".");
    while (b > 1 && path[b - 1] == '/')
        b--;
    return strndup(path, b);
}

/* fsync of the directory that holds path: a new file's name is durable
 * only then (a file's fdatasync does not promise it). */
static int sync_parent(const char *path)
{
    char *dir = parent_of(path);
    if (!dir)
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    int rc = fd < 0 ? -1 : fsync(fd);
    int e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return rc;
}

/* fdatasync (a file) or fsync (a directory) of path; -1 with errno. */
static int sync_path(const char *path, int directory)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
    int rc = fd < 0 ? -1 : directory ? fsync(fd) : fdatasync(fd);
    int e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return rc;
}

static atf_status out_close(outfile *o, const char *path, atf_error *err)
{
    out_finish(o);
    const char *what = "cannot write";
    if (o->fd >= 0 && o->sync && !o->failed && fdatasync(o->fd) != 0) {
        o->failed = 1;
        o->saved_errno = errno;
        what = "cannot fdatasync";
    }
    if (o->fd >= 0 && close(o->fd) != 0 && !o->failed) {
        o->failed = 1;
        o->saved_errno = errno;
    }
    if (o->sync && !o->failed && sync_parent(path) != 0) {
        o->failed = 1;
        o->saved_errno = errno;
        what = "cannot fsync the directory of";
    }
    out_free(o);
    if (o->failed) {
        atf_status st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "%s: %s", what, strerror(o->saved_errno));
        atf_error_set_file(err, path);
        return st;
    }
    return ATF_OK;
}

/* unpack --sync: the data of every file unpack writes (manifest.json,
 * thread_K/index.atf and detail.atf) reaches the disk, then the names
 * (each thread_K/ and the session directory; its own entry in its parent
 * is the caller's): a file's fdatasync does not make its name durable.
 * What else a forced unpack found in the directory is left as it is. */
static atf_status sync_session(const char *dir, atf_error *err)
{
    static const char *const lanes[] = { "index.atf", "detail.atf" };
    const char *what = NULL;
    char *bad = NULL;   /* the path that failed */
    int eno = 0;
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);   /* in one order: manifest.json, thread_0, ... */
    if (n < 0)
        what = "cannot open", eno = errno, bad = strdup(dir);
    for (int k = 0; k < n && !what; k++) {
        const struct dirent *e = ents[k];
        int thread = !strncmp(e->d_name, "thread_", 7);
        if (!thread && strcmp(e->d_name, "manifest.json"))
            continue;
        char *p = atf_path_join(dir, e->d_name);
        struct stat sb;
        if (!p || lstat(p, &sb) != 0) {
            what = "cannot stat", eno = p ? errno : ENOMEM, bad = p;
            break;
        }
        if (!thread && S_ISREG(sb.st_mode) && sync_path(p, 0) != 0)
            what = "cannot fdatasync", eno = errno, bad = p;
        for (size_t i = 0; thread && S_ISDIR(sb.st_mode) && !what && i < 2; i++) {
            char *f = atf_path_join(p, lanes[i]);
            if (!f)
                what = "cannot fdatasync", eno = ENOMEM;
            else if (access(f, F_OK) == 0 && sync_path(f, 0) != 0)
                what = "cannot fdatasync", eno = errno, bad = f, f = NULL;
            free(f);   /* (no detail.atf: a thread without a detail lane) */
        }
        if (!what && thread && S_ISDIR(sb.st_mode) && sync_path(p, 1) != 0)
            what = "cannot fsync the directory", eno = errno, bad = p;
        if (bad != p)
            free(p);
    }
    for (int k = 0; k < n; k++)
        free(ents[k]);
    free(ents);
    if (!what && sync_path(dir, 1) != 0)
        what = "cannot fsync the directory", eno = errno, bad = strdup(dir);
    if (!what)
        return ATF_OK;
    atf_status st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "%s: %s", what, strerror(eno));
    atf_error_set_file(err, bad ? bad : dir);
    free(bad);
    return st;
}

/* ---- Lanes ---------------------------------------------------------------------- */

enum { ROLE_MANIFEST, ROLE_INDEX, ROLE_DETAIL };
static const char *const role_name[] = { "manifest", "index", "detail" };

typedef struct lane {
    int role;
    uint64_t thread;
    atf_blob blob;
    int have_blob;
    uint64_t size, eo, end, count;   /* file size, events_offset, end of the events, events */
    int layout;                      /* 1, 2, or 0: not readable as ATF (packed as bytes only) */
    atf_detail_reader *dr;           /* detail lanes: event offsets */
    uint64_t sid;
    uint64_t pos, seq;               /* packing: next byte, next event */
} lane;

typedef struct pthread_lanes {
    uint64_t id;
    lane *ix, *dt;
} pthread_lanes;

static uint64_t event_at(const lane *l, uint64_t seq)
{
    if (l->role == ROLE_INDEX)
        return l->eo + seq * ATF_INDEX_EVENT_SIZE;
    return seq < l->count ? atf_detail_reader_offset(l->dr, seq) : l->end;
}

static uint64_t index_ts(const lane *l, uint64_t seq)
{
    return atf_load_le64(l->blob.data + event_at(l, seq));
}

/* The linked detail seq of index event seq, or UINT64_MAX. */
static uint64_t index_link(const uint8_t *ev, int layout)
{
    if (layout == 1) {
        uint32_t v = atf_load_le32(ev + 28);
        return v == ATF_NO_DETAIL_L1 ? UINT64_MAX : v;
    }
    return atf_load_le64(ev + 16);
}

static void set_index_link(uint8_t *ev, int layout, uint64_t v)
{
    if (layout == 1)
        atf_store_le32(ev + 28, v == UINT64_MAX ? ATF_NO_DETAIL_L1 : (uint32_t)v);
    else
        atf_store_le64(ev + 16, v);
}

static uint64_t detail_backlink(const uint8_t *ev, int layout)
{
    return layout == 1 ? atf_load_le32(ev + 8) : atf_load_le64(ev + 8);
}

static void set_detail_backlink(uint8_t *ev, int layout, uint64_t v)
{
    if (layout == 1)
        atf_store_le32(ev + 8, (uint32_t)v);
    else
        atf_store_le64(ev + 8, v);
}

/* Reads a lane's file and finds its events region through the ATF readers;
 * a file they refuse is packed as bytes only (layout 0). */
static atf_status lane_load(lane *l, const char *path, atf_error *err)
{
    atf_status st = atf_blob_open(&l->blob, path, 0, err);
    if (st) {
        atf_error_set_file(err, path);
        return st;
    }
    l->have_blob = 1;
    l->size = l->blob.size;
    l->eo = l->end = l->size;
    l->count = 0;
    l->layout = 0;
    if (l->role == ROLE_MANIFEST)
        return ATF_OK;
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = 0;
    if (l->role == ROLE_INDEX) {
        atf_index_reader *r;
        if (atf_index_reader_open_memory(&r, l->blob.data, l->blob.size, path, &ro, NULL) == ATF_OK) {
            const atf_index_info *in = atf_index_reader_info(r);
            if (!in->header_truncated) {
                l->layout = (int)in->layout;
                l->eo = atf_index_reader_header(r)->events_offset;
                l->count = in->event_count;
                l->end = in->events_end;
            }
            atf_index_reader_close(r);
        }
    } else if (atf_detail_reader_open_memory(&l->dr, l->blob.data, l->blob.size, path, &ro, NULL) == ATF_OK) {
        const atf_detail_info *in = atf_detail_reader_info(l->dr);
        if (!in->header_truncated) {
            l->layout = (int)in->layout;
            l->eo = atf_detail_reader_header(l->dr)->events_offset;
            l->count = in->event_count;
            l->end = in->events_end;
        }
    }
    if (l->eo > l->size || l->end < l->eo || l->end > l->size) {   /* not expected from the readers; be safe */
        l->eo = l->end = l->size;
        l->count = 0;
        l->layout = 0;
    }
    return ATF_OK;
}

static void lane_free(lane *l)
{
    if (!l)
        return;
    atf_detail_reader_close(l->dr);
    if (l->have_blob)
        atf_blob_close(&l->blob);
}

/* ---- Packing ---------------------------------------------------------------------- */

typedef struct packer {
    atf_rtc_writer *w;
    outfile out;
    uint64_t U;
    uint64_t clock_sid, clock;
    int clock_set;
    lane *manifest;
    uint64_t manifest_period, next_manifest_unit;
    atf_pack_stats *st;
    atf_error *err;
    atf_status status;
} packer;

/* One record of stream sid: head, then body (no copy joins them). */
static int put2(packer *pk, uint64_t sid, const void *head, size_t hn, const void *body, size_t bn)
{
    if (pk->status)
        return -1;
    pk->status = atf_rtc_writer_write2(pk->w, sid, head, hn, body, bn, pk->err);
    return pk->status ? -1 : 0;
}

static int put(packer *pk, uint64_t sid, const void *p, size_t n)
{
    return put2(pk, sid, p, n, NULL, 0);
}

/* One chunk record: [off, off + n) of the lane; first_at as in the header comment. */
static int put_chunk(packer *pk, lane *l, uint64_t off, size_t n, uint64_t first_seq, uint64_t first_at)
{
    uint8_t head[30];
    size_t h = atf_rtc_uleb_encode(head, off);
    h += atf_rtc_uleb_encode(head + h, first_seq);
    h += atf_rtc_uleb_encode(head + h, first_at);
    return put2(pk, l->sid, head, h, l->blob.data + off, n);
}

/* Bytes [from, to) that hold no event start (header, tail), in chunks. */
static int put_plain(packer *pk, lane *l, uint64_t from, uint64_t to, uint64_t seq)
{
    while (from < to) {
        size_t n = to - from > CHUNK ? CHUNK : (size_t)(to - from);
        if (put_chunk(pk, l, from, n, seq, n))
            return -1;
        from += n;
    }
    return 0;
}

/* The lane's bytes up to event upto (its header first), in chunks of whole events. */
static int put_events(packer *pk, lane *l, uint64_t upto)
{
    if (l->pos < l->eo) {
        if (put_plain(pk, l, l->pos, l->eo, 0))
            return -1;
        l->pos = l->eo;
    }
    while (l->seq < upto) {
        uint64_t a = l->seq, start = event_at(l, a), b = a;
        while (b < upto && event_at(l, b + 1) - start <= CHUNK)
            b++;
        if (b == a) {   /* one event larger than a chunk: several chunks, the first says where it starts */
            uint64_t end = event_at(l, a + 1), off = start;
            while (off < end) {
                size_t n = end - off > CHUNK ? CHUNK : (size_t)(end - off);
                if (put_chunk(pk, l, off, n, a, off == start ? 0 : n))
                    return -1;
                off += n;
            }
            b = a + 1;
        } else if (put_chunk(pk, l, start, (size_t)(event_at(l, b) - start), a, 0)) {
            return -1;
        }
        pk->st->index_events += l->role == ROLE_INDEX ? b - a : 0;
        pk->st->detail_events += l->role == ROLE_DETAIL ? b - a : 0;
        l->seq = b;
        l->pos = event_at(l, b);
    }
    return 0;
}

static int put_rest(packer *pk, lane *l)
{
    if (!l)
        return 0;
    if (put_events(pk, l, l->count))
        return -1;
    if (put_plain(pk, l, l->pos, l->size, l->count))
        return -1;
    l->pos = l->size;
    return 0;
}

static int put_manifest(packer *pk)
{
    lane *m = pk->manifest;
    if (!m)
        return 0;
    pk->st->manifest_copies++;
    if (m->size == 0)
        return put(pk, m->sid, "\0\0\0", 3);
    return put_plain(pk, m, 0, m->size, 0);
}

/* After each record: a manifest copy in the first Unit of each period. */
static int maybe_manifest(packer *pk)
{
    if (!pk->manifest || pk->out.total == 0)
        return 0;
    uint64_t unit = (pk->out.total - 1) / pk->U;
    if (unit < pk->next_manifest_unit)
        return 0;
    pk->next_manifest_unit = unit + pk->manifest_period;
    return put_manifest(pk);
}

static int put_clock(packer *pk, uint64_t t)
{
    if (pk->clock_set && t < pk->clock)
        t = pk->clock;   /* RTC clocks never go back (RTC-CLK-003); the lanes' own times are in the events */
    pk->clock = t;
    pk->clock_set = 1;
    uint8_t b[8];
    atf_store_le64(b, t);
    return put(pk, pk->clock_sid, b, 8);
}

/* One step of thread t: a clock record, up to 31 index events, the detail events they link to. */
static int step(packer *pk, pthread_lanes *t)
{
    lane *ix = t->ix, *dt = t->dt;
    uint64_t a = ix->seq, b = a + INDEX_PER_STEP < ix->count ? a + INDEX_PER_STEP : ix->count;
    if (put_clock(pk, index_ts(ix, a)) || put_events(pk, ix, b))
        return -1;
    if (dt && dt->layout) {
        uint64_t upto = dt->seq;
        for (uint64_t s = a; s < b; s++) {
            uint64_t k = index_link(ix->blob.data + event_at(ix, s), ix->layout);
            if (k != UINT64_MAX && k < dt->count && k + 1 > upto)
                upto = k + 1;
        }
        if (put_events(pk, dt, upto))
            return -1;
    }
    if (b == ix->count && (put_rest(pk, ix) || put_rest(pk, dt)))
        return -1;
    return maybe_manifest(pk);
}

static int thread_done(const pthread_lanes *t)
{
    return !t->ix || !t->ix->layout || t->ix->seq >= t->ix->count;
}

/* Thread a goes before thread b: its next index event is earlier (ties: lower position). */
static int heap_less(const pthread_lanes *ts, size_t a, size_t b)
{
    uint64_t x = index_ts(ts[a].ix, ts[a].ix->seq), y = index_ts(ts[b].ix, ts[b].ix->seq);
    return x < y || (x == y && a < b);
}

static void heap_down(size_t *h, size_t n, const pthread_lanes *ts, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && heap_less(ts, h[l], h[m]))
            m = l;
        if (l + 1 < n && heap_less(ts, h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        size_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_push(size_t *h, size_t *n, const pthread_lanes *ts, size_t v)
{
    size_t i = (*n)++;
    h[i] = v;
    while (i && heap_less(ts, h[i], h[(i - 1) / 2])) {
        size_t p = (i - 1) / 2, t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static char *hex(const uint8_t *p, size_t n)
{
    static const char d[] = "0123456789abcdef";
    char *s = malloc(2 * n + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = d[p[i] >> 4];
        s[2 * i + 1] = d[p[i] & 15];
    }
    s[2 * n] = 0;
    return s;
}

/* The stream definition of a lane: the JSON object without "id". */
static char *lane_definition(const lane *l)
{
    char name[64];
    if (l->role == ROLE_MANIFEST)
        snprintf(name, sizeof name, "manifest.json");
    else
        snprintf(name, sizeof name, "thread_%" PRIu64 "/%s.atf", l->thread, role_name[l->role]);
    json_t *a = json_object();
    json_object_set_new(a, "pack", json_integer(ATF_PACK_VERSION));
    json_object_set_new(a, "role", json_string(role_name[l->role]));
    if (l->role != ROLE_MANIFEST)
        json_object_set_new(a, "thread", json_integer((json_int_t)l->thread));
    json_object_set_new(a, "size", json_integer((json_int_t)l->size));
    if (l->role != ROLE_MANIFEST) {
        char *h = hex(l->blob.data, l->size < 64 ? (size_t)l->size : 64);
        json_object_set_new(a, "layout", json_integer(l->layout));
        json_object_set_new(a, "events_offset", json_integer((json_int_t)l->eo));
        json_object_set_new(a, "events_end", json_integer((json_int_t)l->end));
        json_object_set_new(a, "events", json_integer((json_int_t)l->count));
        json_object_set_new(a, "header", h ? json_string(h) : json_null());
        free(h);
    }
    json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "name", name, "format", "raw", "clock", "atf/clock", "atf", a);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return s;
}

static int cmp_thread(const void *a, const void *b)
{
    uint64_t x = ((const pthread_lanes *)a)->id, y = ((const pthread_lanes *)b)->id;
    return x < y ? -1 : x > y;
}

/* What path is (S_IFREG, S_IFDIR, ...: stat() follows links), 0 when nothing. */
static mode_t file_kind(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_mode & S_IFMT : 0;
}

typedef struct session_files {
    lane *lanes;
    size_t nlanes;
    pthread_lanes *threads;
    size_t nthreads;
} session_files;

static void session_files_free(session_files *sf)
{
    for (size_t i = 0; i < sf->nlanes; i++)
        lane_free(&sf->lanes[i]);
    free(sf->lanes);
    free(sf->threads);
}

/* Finds manifest.json and thread_K/{index,detail}.atf under dir and reads them;
 * one that is there and cannot be read fails the pack. */
static atf_status session_load(session_files *sf, const char *dir, atf_pack_stats *st, FILE *notes, atf_error *err)
{
    memset(sf, 0, sizeof *sf);
    DIR *d = opendir(dir);
    if (!d) {
        atf_status s = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot open the session directory: %s",
                                strerror(errno));
        atf_error_set_file(err, dir);
        return s;
    }
    size_t cap = 0;
    struct dirent *e;
    atf_status status = ATF_OK;
    uint64_t *ids = NULL;
    size_t nids = 0, idcap = 0;
    int have_manifest = 0;
    while ((e = readdir(d)) != NULL) {
        uint64_t id;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = atf_path_join(dir, e->d_name);
        struct stat sb;
        int isdir = p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
        if (!strcmp(e->d_name, "manifest.json") && p) {
            /* one that is not a regular file cannot be read: lane_load says so */
            have_manifest = 1;
        } else if (isdir && atf_thread_dir_id(e->d_name, &id)) {
            if (nids == idcap) {
                idcap = idcap ? 2 * idcap : 16;
                uint64_t *n2 = realloc(ids, idcap * sizeof *ids);
                if (!n2) {
                    free(p);
                    status = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
                    break;
                }
                ids = n2;
            }
            ids[nids++] = id;
        } else {
            st->not_packed++;
            if (notes) {
                fputs("atf: pack: not packed (not part of an ATF session): ", notes);
                atf_fputs_escaped(p ? p : e->d_name, notes);
                fputc('\n', notes);
            }
        }
        free(p);
    }
    closedir(d);
    if (!status && !have_manifest && nids == 0) {
        status = atf_fail(err, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL,
                          "no manifest.json and no thread_K/ directory: not an ATF session directory");
        atf_error_set_file(err, dir);
    }
    cap = 1 + 2 * nids;
    if (!status) {
        sf->lanes = calloc(cap, sizeof *sf->lanes);
        sf->threads = calloc(nids ? nids : 1, sizeof *sf->threads);
        if (!sf->lanes || !sf->threads)
            status = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    if (!status && have_manifest) {
        char *p = atf_path_join(dir, "manifest.json");
        lane *l = &sf->lanes[sf->nlanes++];
        l->role = ROLE_MANIFEST;
        status = p ? lane_load(l, p, err) : atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        free(p);
    }
    for (size_t i = 0; i < nids && !status; i++) {
        pthread_lanes *t = &sf->threads[sf->nthreads++];
        t->id = ids[i];
        char sub[64];
        for (int role = ROLE_INDEX; role <= ROLE_DETAIL && !status; role++) {
            snprintf(sub, sizeof sub, "thread_%" PRIu64 "/%s.atf", ids[i], role_name[role]);
            char *p = atf_path_join(dir, sub);
            if (!p) {
                status = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
                break;
            }
            if (file_kind(p)) {   /* there: read, or the pack fails (a FIFO, a directory, ...) */
                lane *l = &sf->lanes[sf->nlanes++];
                l->role = role;
                l->thread = ids[i];
                status = lane_load(l, p, err);
                if (role == ROLE_INDEX)
                    t->ix = l;
                else
                    t->dt = l;
            }
            free(p);
        }
        if (t->dt && !t->ix && notes)
            fprintf(notes, "atf: pack: thread_%" PRIu64 "/ has no index.atf: its detail.atf is packed alone\n", ids[i]);
        if (!t->ix && !t->dt) {
            sf->nthreads--;   /* nothing to carry: not a thread of the pack */
            st->not_packed++;
            if (notes)
                fprintf(notes, "atf: pack: not packed: thread_%" PRIu64 "/ holds neither index.atf nor detail.atf\n",
                        ids[i]);
        }
    }
    free(ids);
    if (!status)
        qsort(sf->threads, sf->nthreads, sizeof *sf->threads, cmp_thread);
    return status;
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* The stream definition of every lane (*defs, NULL-terminated), and the
 * bytes of Meta they need (*meta). */
static atf_status pack_definitions(const session_files *sf, char ***defs, uint64_t *meta, atf_error *err)
{
    *meta = 64;
    *defs = calloc(sf->nlanes + 1, sizeof **defs);
    if (!*defs)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    for (size_t i = 0; i < sf->nlanes; i++) {
        (*defs)[i] = lane_definition(&sf->lanes[i]);
        if (!(*defs)[i])
            return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        *meta += strlen((*defs)[i]) + 12;
    }
    return ATF_OK;
}

/* The Unit and unit sizes: the options', or a Unit fitted to the session
 * (Meta at most U/8) when none is given. */
static atf_status pack_unit_sizes(const atf_pack_options *o, const session_files *sf, uint64_t meta, uint64_t *Up,
                                  uint64_t *up, atf_error *err)
{
    uint64_t U = o->unit_size, u = o->subunit_size;
    atf_status status = ATF_OK;
    if (!U) {
        uint64_t bytes = 0, manifest = 0;
        for (size_t i = 0; i < sf->nlanes; i++) {
            bytes += sf->lanes[i].size;
            if (sf->lanes[i].role == ROLE_MANIFEST)
                manifest = sf->lanes[i].size;
        }
        U = atf_pack_default_unit(bytes, meta, manifest);
        if (u > U)
            U = u;
    } else if (2 * meta > U) {
        status = atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "unit_size",
                          "a Unit of %" PRIu64 " bytes is too small for the Meta of %zu files (%" PRIu64
                          " bytes, at most half a Unit): give a larger Unit, or none",
                          U, sf->nlanes, meta);
    }
    if (!u)
        u = DEFAULT_SUBUNIT < U ? DEFAULT_SUBUNIT : U;
    *Up = U;
    *up = u;
    return status;
}

/* Opens the output and the RTC writer, and defines the clock stream and one
 * stream per lane. *opened: the output file was created. */
static atf_status pack_open(packer *pk, const char *rtc_path, uint64_t u, session_files *sf, char **defs,
                            int *opened, atf_error *err)
{
    atf_rtc_writer_options wo = ATF_RTC_WRITER_OPTIONS_INIT;
    wo.unit_size = pk->U;
    wo.subunit_size = u;
    wo.whole_records = 1;
    atf_status status = out_open(&pk->out, rtc_path, err);
    *opened = status == ATF_OK;
    /* the session's files stay mapped until after out_close: chunks are written from there */
    for (size_t i = 0; i < sf->nlanes && !status; i++)
        if (sf->lanes[i].have_blob)
            out_keep(&pk->out, sf->lanes[i].blob.data, sf->lanes[i].blob.size);
    if (!status)
        status = atf_rtc_writer_create(&pk->w, &wo, out_put, &pk->out, err);
    if (!status)
        status = atf_rtc_writer_stream(pk->w,
                                       "{\"name\":\"atf/clock\",\"clock\":true,\"format\":\"uint64le\",\"length\":8,"
                                       "\"gain\":1e-9,\"atf\":{\"pack\":1,\"role\":\"clock\"}}",
                                       &pk->clock_sid, err);
    for (size_t i = 0; i < sf->nlanes && !status; i++)
        status = atf_rtc_writer_stream(pk->w, defs[i], &sf->lanes[i].sid, err);
    return status;
}

/* The session's manifest lane: how often it is repeated, or, when no ATF
 * reader takes it, carried as bytes once (a copy per period would only
 * repeat them) with a warning. */
static void pack_manifest_lane(packer *pk, lane *l, const char *session, FILE *notes)
{
    atf_pack_stats *st = pk->st;
    pk->manifest = l;
    pk->manifest_period = l->size <= pk->U / 16 ? 1 : (16 * l->size + pk->U - 1) / pk->U;
    atf_manifest *m = NULL;
    atf_error me;
    if (atf_manifest_parse(&m, (const char *)l->blob.data, l->blob.size, "manifest.json", &me) != ATF_OK) {
        st->manifest_invalid = 1;
        pk->manifest_period = UINT64_MAX / 2;
        if (notes) {
            char line[1024];
            atf_error_format(line, sizeof line, &me);
            fputs("atf: pack: warning: ", notes);
            atf_fputs_escaped(session, notes);
            fprintf(notes, "/manifest.json (%" PRIu64 " bytes) is no valid manifest, so `atf validate` "
                           "rejects the session (SES-MAN-002): %s; it is packed as bytes, once\n",
                    l->size, line);
        }
    }
    atf_manifest_free(m);
}

/* Every lane's records into the pack: the manifest first, threads without
 * index events whole, then the others merged by time (a min-heap of the
 * threads by their next index event's time; ties: thread order), and the
 * manifest again at the end of a pack of several Units. */
static atf_status pack_records(packer *pk, session_files *sf, const char *session, FILE *notes, atf_error *err)
{
    atf_pack_stats *st = pk->st;
    for (size_t i = 0; i < sf->nlanes; i++) {
        lane *l = &sf->lanes[i];
        st->bytes_in += l->size;
        st->files++;
        if (l->role == ROLE_MANIFEST)
            pack_manifest_lane(pk, l, session, notes);
    }
    st->threads = sf->nthreads;
    pk->next_manifest_unit = pk->manifest_period;
    pk->status = ATF_OK;
    int bad = put_manifest(pk);
    for (size_t i = 0; i < sf->nthreads && !bad; i++) {
        pthread_lanes *t = &sf->threads[i];
        if (thread_done(t))
            bad = put_rest(pk, t->ix) || put_rest(pk, t->dt) || maybe_manifest(pk);
    }
    size_t *heap = malloc((sf->nthreads ? sf->nthreads : 1) * sizeof *heap), nh = 0;
    if (!heap && !bad) {
        pk->status = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        bad = 1;
    }
    for (size_t i = 0; i < sf->nthreads && !bad; i++)
        if (!thread_done(&sf->threads[i]))
            heap_push(heap, &nh, sf->threads, i);
    while (nh && !bad) {
        pthread_lanes *t = &sf->threads[heap[0]];
        bad = step(pk, t);
        if (thread_done(t))
            heap[0] = heap[--nh];
        heap_down(heap, nh, sf->threads, 0);
    }
    free(heap);
    if (!bad && pk->manifest && !st->manifest_invalid && st->manifest_copies > 0 && pk->out.total > pk->U)
        put_manifest(pk);
    return pk->status;
}

/* Finishes the writer and closes the output; the first error wins. */
static atf_status pack_close(packer *pk, const char *rtc_path, int opened, atf_status status, atf_error *err)
{
    if (pk->w) {
        atf_error e2;
        atf_status s2 = atf_rtc_writer_finish(pk->w, &e2);
        if (!status && s2) {
            status = s2;
            if (err)
                *err = e2;
        }
    }
    if (opened) {
        atf_error e2;
        atf_status s2 = out_close(&pk->out, rtc_path, &e2);
        if (!status && s2) {
            status = s2;
            if (err)
                *err = e2;
        } else if (status == ATF_E_IO && pk->out.saved_errno) {
            atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write: %s", strerror(pk->out.saved_errno));
            atf_error_set_file(err, rtc_path);
        }
    }
    return status;
}

atf_status atf_pack(const char *session, const char *rtc_path, const atf_pack_options *opts, atf_pack_stats *stats,
                    FILE *notes, atf_error *err)
{
    atf_error_clear(err);
    atf_pack_stats local;
    atf_pack_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!session || !rtc_path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    atf_pack_options o = ATF_PACK_OPTIONS_INIT;
    if (opts)
        o = *opts;
    if ((o.unit_size && !is_pow2(o.unit_size)) || (o.subunit_size && !is_pow2(o.subunit_size)))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "unit_size", "Unit and unit sizes must be powers of 2");
    session_files sf;
    atf_status status = session_load(&sf, session, st, notes, err);
    if (status) {
        session_files_free(&sf);
        return status;
    }
    char **defs = NULL;
    uint64_t meta = 0, U = 0, u = 0;
    status = pack_definitions(&sf, &defs, &meta, err);
    if (!status)
        status = pack_unit_sizes(&o, &sf, meta, &U, &u, err);
    packer pk;
    memset(&pk, 0, sizeof pk);
    pk.st = st;
    pk.err = err;
    pk.U = U;
    pk.out.fd = -1;
    int opened = 0;
    if (!status)
        status = pack_open(&pk, rtc_path, u, &sf, defs, &opened, err);
    pk.out.sync = o.sync != 0;
    if (!status)
        status = pack_records(&pk, &sf, session, notes, err);
    status = pack_close(&pk, rtc_path, opened, status, err);
    st->bytes_out = pk.out.total;
    st->unit_size = U;
    st->subunit_size = u;
    for (size_t i = 0; defs && i < sf.nlanes; i++)
        free(defs[i]);
    free(defs);
    session_files_free(&sf);
    return status;
}

/* ---- Unpacking -------------------------------------------------------------------- */

typedef struct chunk {
    uint64_t off;
    size_t n;
    const uint8_t *p;
    uint64_t first_seq, first_at;
} chunk;

typedef struct ulane {
    uint64_t sid;
    int role;
    uint64_t thread;
    uint64_t size, eo, end, count;
    int layout;
    uint8_t head[64];
    size_t head_n;
    chunk *c;
    size_t nc, cap;
    int whole;          /* every byte came back */
    atf_bytebuf ev;     /* the recovered events, back to back */
    uint64_t *seqs;     /* original seq of each recovered event */
    uint64_t *offs;     /* their offsets in ev */
    size_t ne;
    struct slane *sl;   /* written whole while the reader read (stream_progress) */
} ulane;

static uint64_t json_u64(json_t *o, const char *k, int *ok)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        *ok = 0;
        return 0;
    }
    return (uint64_t)json_integer_value(v);
}

static int unhex(uint8_t *dst, size_t cap, const char *s, size_t *n)
{
    size_t len = strlen(s);
    if (len % 2 || len / 2 > cap)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            return 0;
        if (i % 2 == 0)
            dst[i / 2] = (uint8_t)(v << 4);
        else
            dst[i / 2] |= (uint8_t)v;
    }
    *n = len / 2;
    return 1;
}

/* Reads a stream definition of the profile into l; 0 when it is not one. */
static int ulane_from_def(ulane *l, uint64_t sid, json_t *def)
{
    json_t *a = json_object_get(def, "atf");
    json_t *role = json_object_get(a, "role");
    int ok = 1;
    if (!json_is_object(a) || json_u64(a, "pack", &ok) != ATF_PACK_VERSION || !ok || !json_is_string(role))
        return 0;
    memset(l, 0, sizeof *l);
    l->sid = sid;
    const char *r = json_string_value(role);
    if (!strcmp(r, "manifest"))
        l->role = ROLE_MANIFEST;
    else if (!strcmp(r, "index"))
        l->role = ROLE_INDEX;
    else if (!strcmp(r, "detail"))
        l->role = ROLE_DETAIL;
    else
        return 0;
    l->size = json_u64(a, "size", &ok);
    if (l->role != ROLE_MANIFEST) {
        json_t *h = json_object_get(a, "header");
        l->thread = json_u64(a, "thread", &ok);
        l->layout = (int)json_u64(a, "layout", &ok);
        l->eo = json_u64(a, "events_offset", &ok);
        l->end = json_u64(a, "events_end", &ok);
        l->count = json_u64(a, "events", &ok);
        if (!json_is_string(h) || !unhex(l->head, sizeof l->head, json_string_value(h), &l->head_n))
            ok = 0;
        if (l->eo > l->end || l->end > l->size || l->layout < 0 || l->layout > 2)
            ok = 0;
    }
    return ok;
}

static int chunk_parse(chunk *c, const uint8_t *p, size_t n)
{
    size_t used, at = 0;
    if (atf_rtc_uleb_decode(p, n, &c->off, &used, NULL))
        return 0;
    at += used;
    if (atf_rtc_uleb_decode(p + at, n - at, &c->first_seq, &used, NULL))
        return 0;
    at += used;
    if (atf_rtc_uleb_decode(p + at, n - at, &c->first_at, &used, NULL))
        return 0;
    at += used;
    c->p = p + at;
    c->n = n - at;
    return c->first_at <= c->n && c->off <= UINT64_MAX - c->n;
}

static int cmp_chunk(const void *a, const void *b)
{
    const chunk *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorts the chunks and drops duplicates (manifest copies): 1 when [0, size) is covered. */
static int ulane_cover(ulane *l)
{
    size_t sorted = 1;
    while (sorted < l->nc && l->c[sorted - 1].off <= l->c[sorted].off)
        sorted++;
    if (sorted < l->nc)   /* (in order already when packed: a lane's chunks come in offset order) */
        qsort(l->c, l->nc, sizeof *l->c, cmp_chunk);
    size_t k = 0;
    uint64_t reach = 0;
    int whole = 1;
    for (size_t i = 0; i < l->nc; i++) {
        if (k && l->c[i].off < reach)   /* a copy of bytes we have (manifest copies use the same chunks) */
            continue;
        if (l->c[i].off > reach)
            whole = 0;
        l->c[k++] = l->c[i];
        reach = l->c[i].off + l->c[i].n;
    }
    l->nc = k;
    return whole && reach >= l->size;
}

static atf_status write_chunks(const ulane *l, const char *path, atf_error *err)
{
    outfile o;
    atf_status st = out_open(&o, path, err);
    if (st)
        return st;
    for (size_t i = 0; i < l->nc; i++) {
        uint64_t end = l->c[i].off + l->c[i].n;
        size_t n = end > l->size ? (size_t)(l->size - l->c[i].off) : l->c[i].n;
        /* the chunks stay in the RTC reader's memory until out_close: written from there */
        o.total += n;
        if (out_piece(&o, l->c[i].p, n, n >= OUT_REF_MIN))
            break;
    }
    return out_close(&o, path, err);
}

/* Collects the events whose bytes all came back: contiguous runs of chunks,
 * each walked from the first event start it announces. */
static int ulane_events(ulane *l)
{
    size_t cap = 0;
    for (size_t i = 0; i < l->nc;) {
        size_t j = i + 1;
        while (j < l->nc && l->c[j].off == l->c[j - 1].off + l->c[j - 1].n)
            j++;
        /* a run [i, j) of contiguous chunks ends at b */
        uint64_t b = l->c[j - 1].off + l->c[j - 1].n;
        size_t k = i;
        while (k < j && (l->c[k].first_at == l->c[k].n || l->c[k].off + l->c[k].first_at < l->eo))
            k++;
        if (k < j) {
            uint64_t pos = l->c[k].off + l->c[k].first_at, seq = l->c[k].first_seq;
            size_t ci = k;
            while (seq < l->count && pos < l->end) {
                uint64_t len;
                while (ci < j && l->c[ci].off + l->c[ci].n <= pos)
                    ci++;
                if (ci == j)
                    break;
                /* the event's length: its first bytes may span two chunks */
                uint8_t hdr[4];
                uint64_t need = l->role == ROLE_INDEX ? ATF_INDEX_EVENT_SIZE : 4;
                if (pos + need > b)
                    break;
                size_t cj = ci;
                for (uint64_t q = 0; q < 4 && q < need; q++) {
                    while (l->c[cj].off + l->c[cj].n <= pos + q)
                        cj++;
                    hdr[q] = l->c[cj].p[pos + q - l->c[cj].off];
                }
                len = l->role == ROLE_INDEX ? ATF_INDEX_EVENT_SIZE : atf_load_le32(hdr);
                if (len < (l->role == ROLE_INDEX ? ATF_INDEX_EVENT_SIZE : ATF_DETAIL_EVENT_HEADER_SIZE) ||
                    pos + len > b || pos + len > l->end)
                    break;
                if (l->ne == cap) {
                    cap = cap ? 2 * cap : 256;
                    uint64_t *s2 = realloc(l->seqs, cap * sizeof *s2), *o2 = s2 ? realloc(l->offs, cap * sizeof *o2) : NULL;
                    if (s2)
                        l->seqs = s2;
                    if (!s2 || !o2)
                        return -1;
                    l->offs = o2;
                }
                if (len > SIZE_MAX / 2 || atf_bytebuf_reserve(&l->ev, (size_t)len))
                    return -1;
                /* copy the event's bytes out of its chunks */
                uint64_t q = pos;
                size_t cq = ci;
                while (q < pos + len) {
                    while (l->c[cq].off + l->c[cq].n <= q)
                        cq++;
                    uint64_t take = l->c[cq].off + l->c[cq].n - q;
                    if (take > pos + len - q)
                        take = pos + len - q;
                    memcpy(l->ev.p + l->ev.n + (q - pos), l->c[cq].p + (q - l->c[cq].off), (size_t)take);
                    q += take;
                }
                l->seqs[l->ne] = seq;
                l->offs[l->ne] = l->ev.n;
                l->ne++;
                l->ev.n += (size_t)len;
                pos += len;
                seq++;
            }
        }
        i = j;
    }
    return 0;
}

static void ulane_free(ulane *l)
{
    free(l->c);
    free(l->ev.p);
    free(l->seqs);
    free(l->offs);
}

/* The position of original seq v in the ascending list s[0..n), or n. */
static size_t find_seq(const uint64_t *s, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s[m] < v)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < n && s[lo] == v ? lo : n;
}

/* The packed header with what a placeholder leaves out zeroed (SPEC.md 2.1, 3.1). */
static void placeholder(uint8_t h[64], const ulane *l)
{
    memcpy(h, l->head, 64);
    if (l->role == ROLE_INDEX) {
        if (l->layout == 1)
            atf_store_le32(h + 28, 0);
        else
            atf_store_le64(h + 24, 0);
        atf_store_le64(h + 40, 0);
        atf_store_le64(h + 48, 0);
        atf_store_le64(h + 56, 0);
    } else {
        atf_store_le64(h + 28, 0);
        atf_store_le64(h + 36, 0);
        atf_store_le64(h + 44, 0);
        atf_store_le64(h + 52, 0);
    }
}

/* 1 when the chunks (sorted, deduplicated) hold every byte of [a, b). */
static int ulane_has(const ulane *l, uint64_t a, uint64_t b)
{
    for (size_t i = 0; i < l->nc && a < b; i++) {
        if (l->c[i].off > a)
            return 0;
        if (l->c[i].off + l->c[i].n > a)
            a = l->c[i].off + l->c[i].n;
    }
    return a >= b;
}

/* Copies [a, b) of the lane out of its chunks (ulane_has() said they hold it). */
static void ulane_copy(const ulane *l, uint64_t a, uint64_t b, outfile *o)
{
    for (size_t i = 0; i < l->nc && a < b; i++) {
        uint64_t end = l->c[i].off + l->c[i].n;
        if (end <= a)
            continue;
        uint64_t take = (end < b ? end : b) - a;
        out_put(o, l->c[i].p + (a - l->c[i].off), (size_t)take);
        a += take;
    }
}

/* A rebuilt lane: the placeholder header, the bytes between it and
 * events_offset when they came back (else events_offset becomes 64), the
 * events kept. */
static atf_status write_rebuilt(const ulane *l, const char *path, const uint8_t *keep, atf_error *err)
{
    outfile o;
    atf_status st = out_open(&o, path, err);
    if (st)
        return st;
    uint8_t h[64];
    placeholder(h, l);
    int gap = l->eo > 64 && ulane_has(l, 64, l->eo);
    if (l->eo > 64 && !gap)
        atf_store_le64(h + (l->role == ROLE_INDEX ? 32 : 20), 64);
    out_put(&o, h, 64);
    if (gap)
        ulane_copy(l, 64, l->eo, &o);
    for (size_t i = 0; i < l->ne; i++) {
        if (keep && !keep[i])
            continue;
        size_t end = i + 1 < l->ne ? (size_t)l->offs[i + 1] : l->ev.n;
        out_put(&o, l->ev.p + l->offs[i], end - (size_t)l->offs[i]);
    }
    return out_close(&o, path, err);
}

static int rebuildable(const ulane *l)
{
    return l && l->layout && l->head_n == 64;
}

/* A thread that lost bytes: its recovered events, relinked, as a crash-truncated thread. */
static atf_status rebuild_thread(ulane *ix, ulane *dt, const char *tdir, atf_unpack_stats *st, uint64_t *lost_files,
                                 atf_error *err)
{
    if (rebuildable(ix) && ulane_events(ix))
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    if (rebuildable(dt) && ulane_events(dt))
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    int has_ix = rebuildable(ix), has_dt = rebuildable(dt);
    uint8_t *keep = NULL;
    uint64_t *rank = NULL;
    if (has_dt && dt->ne) {
        keep = calloc(dt->ne, 1);
        rank = calloc(dt->ne, sizeof *rank);
        if (!keep || !rank) {
            free(keep);
            free(rank);
            return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        }
        uint64_t r = 0;
        for (size_t j = 0; j < dt->ne; j++) {
            uint8_t *ev = dt->ev.p + dt->offs[j];
            uint64_t is = detail_backlink(ev, dt->layout);
            size_t i = has_ix ? find_seq(ix->seqs, ix->ne, is) : 0;
            if (has_ix && i < ix->ne && index_link(ix->ev.p + ix->offs[i], ix->layout) == dt->seqs[j]) {
                keep[j] = 1;
                rank[j] = r++;
                set_detail_backlink(ev, dt->layout, i);
            } else {
                st->details_unlinked++;
            }
        }
        st->detail_events += r;
    }
    if (has_ix) {
        for (size_t i = 0; i < ix->ne; i++) {
            uint8_t *ev = ix->ev.p + ix->offs[i];
            uint64_t k = index_link(ev, ix->layout);
            if (k == UINT64_MAX || (ix->layout == 1 && k == ATF_NO_DETAIL_L1))
                continue;
            size_t j = has_dt ? find_seq(dt->seqs, dt->ne, k) : 0;
            if (has_dt && j < dt->ne && keep[j]) {
                set_index_link(ev, ix->layout, rank[j]);
            } else {
                set_index_link(ev, ix->layout, UINT64_MAX);
                st->links_dropped++;
            }
        }
        st->index_events += ix->ne;
    }
    atf_status s = ATF_OK;
    const ulane *ls[2] = { ix, dt };
    for (int k = 0; k < 2 && !s; k++) {
        const ulane *l = ls[k];
        if (!l)
            continue;
        char *p = atf_path_join(tdir, k == 0 ? "index.atf" : "detail.atf");
        if (!p) {
            s = atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
            break;
        }
        if (rebuildable(l))
            s = write_rebuilt(l, p, k == 1 ? keep : NULL, err);
        else
            ++*lost_files;
        free(p);
    }
    free(keep);
    free(rank);
    return s;
}

static int cmp_ulane(const void *a, const void *b)
{
    const ulane *x = a, *y = b;
    int rx = x->role == ROLE_MANIFEST ? -1 : 0, ry = y->role == ROLE_MANIFEST ? -1 : 0;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->role < y->role ? -1 : x->role > y->role;
}

/* ulane and slane begin with their stream id (sid): ordered and found by it. */
static int cmp_sid(const void *a, const void *b)
{
    uint64_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y ? -1 : x > y;
}

/* The element of stream sid among the n of size elem at base, sorted by sid; NULL when none. */
static void *by_sid(void *base, size_t n, size_t elem, uint64_t sid)
{
    size_t lo = 0, hi = n;
    uint64_t v;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        memcpy(&v, (char *)base + m * elem, sizeof v);
        if (v < sid)
            lo = m + 1;
        else
            hi = m;
    }
    if (lo == n)
        return NULL;
    memcpy(&v, (char *)base + lo * elem, sizeof v);
    return v == sid ? (char *)base + lo * elem : NULL;
}

/* The lane of stream sid in ls[0..n), sorted by sid; NULL when none. */
static ulane *lane_by_sid(ulane *ls, size_t n, uint64_t sid)
{
    return by_sid(ls, n, sizeof *ls, sid);
}

/* ---- Unpacking while the reader reads ---- */

/* `atf pack` writes each lane's chunks in offset order, so a lane can go to
 * its file as the reader completes its records (atf_rtc_reader_open_with),
 * and the writes (the kernel's copy into the page cache) overlap the
 * reading instead of following it. A lane whose chunks do not come in
 * order from 0 to its size (a damaged or cut file, another writer), or
 * that cannot be written here, is dropped (its file removed) and left to
 * the usual way after the open: every record read again (unpack_lanes),
 * the chunks sorted, then written or rebuilt. Either way the files are the
 * same. At most STREAM_OPEN_MAX files are written at a time; a lane is
 * closed as soon as it is whole. A session with more lanes than that (its
 * lanes side by side in the file) is done the usual way from the start:
 * the reader is told to keep every record at its first call. */
#define STREAM_OPEN_MAX 32

enum { SL_OPEN, SL_WHOLE, SL_DROPPED };

typedef struct slane {
    uint64_t sid, thread, size, reach;
    int role, state;
    int opened, created;  /* o is open; the file at path was created */
    char *path;
    outfile o;
    atf_status st;      /* SL_WHOLE: how its close went */
    atf_error err;
} slane;

typedef struct streamer {
    const char *dir;
    slane *l;           /* sorted by sid */
    size_t n;
    size_t defs;        /* the reader's stream definitions looked at */
    unsigned open;      /* files open */
    const uint8_t *lo;  /* the file's bytes: payloads there are referred to, others copied */
    uint64_t size;
    uint64_t bad_chunks;
    int dir_checked, dir_made;   /* dir did not exist before a lane was written */
    char **made;        /* the thread directories made for lanes */
    size_t nmade;
    size_t calls;       /* stream_progress calls */
    int off;            /* the usual way from the first call: the reader keeps every record */
} streamer;

_Static_assert(offsetof(ulane, sid) == 0 && offsetof(slane, sid) == 0, "cmp_sid and by_sid read the sid first");

static slane *slane_find(const streamer *sm, uint64_t sid)
{
    return by_sid(sm->l, sm->n, sizeof *sm->l, sid);
}

/* Stops writing l: its file, if one was created, is removed. */
static void slane_drop(streamer *sm, slane *l)
{
    if (l->opened) {
        atf_error ignored;
        (void)out_close(&l->o, l->path, &ignored);
        l->opened = 0;
        sm->open--;
    }
    if (l->created)
        (void)unlink(l->path);
    l->created = 0;
    l->state = SL_DROPPED;
}

static int slane_open(streamer *sm, slane *l)
{
    char sub[48];
    char *tdir = NULL;
    if (l->role == ROLE_MANIFEST) {
        l->path = atf_path_join(sm->dir, "manifest.json");
    } else {
        snprintf(sub, sizeof sub, "thread_%" PRIu64, l->thread);
        tdir = atf_path_join(sm->dir, sub);
        l->path = tdir ? atf_path_join(tdir, l->role == ROLE_INDEX ? "index.atf" : "detail.atf") : NULL;
    }
    if (!sm->dir_checked) {
        sm->dir_made = file_kind(sm->dir) != S_IFDIR;
        sm->dir_checked = 1;
    }
    int fresh = tdir && file_kind(tdir) != S_IFDIR;
    int ok = l->path && sm->open < STREAM_OPEN_MAX && atf_make_dirs(tdir ? tdir : sm->dir) == 0;
    char **m2 = ok && fresh ? realloc(sm->made, (sm->nmade + 1) * sizeof *m2) : NULL;
    if (m2) {
        sm->made = m2;
        sm->made[sm->nmade++] = tdir;
        tdir = NULL;
    }
    free(tdir);
    atf_error ignored;
    if (!ok || out_open(&l->o, l->path, &ignored) != ATF_OK)
        return -1;
    l->opened = l->created = 1;
    sm->open++;
    return 0;
}

/* The session's lanes among the stream definitions the reader read since the last call. */
static void stream_defs(streamer *sm, const atf_rtc_reader *r)
{
    atf_rtc_summary sum;
    atf_rtc_reader_summary(r, &sum);
    int added = 0;
    for (; sm->defs < sum.streams; sm->defs++) {
        uint64_t id, off;
        const void *obj;
        ulane u;
        atf_rtc_reader_stream(r, sm->defs, &id, &off, &obj);
        if (!ulane_from_def(&u, id, (json_t *)obj) || slane_find(sm, id))
            continue;
        slane *l2 = realloc(sm->l, (sm->n + 1) * sizeof *l2);
        if (!l2)
            continue;   /* left to the usual way */
        sm->l = l2;
        sm->l[sm->n++] = (slane){ .sid = id, .thread = u.thread, .size = u.size, .role = u.role };
        added = 1;
    }
    if (added)
        qsort(sm->l, sm->n, sizeof *sm->l, cmp_sid);
}

static void stream_record(streamer *sm, const atf_rtc_record *rec)
{
    slane *l = slane_find(sm, rec->stream);
    chunk c;
    if (!l || (l->role == ROLE_MANIFEST && l->size == 0))
        return;
    if (!chunk_parse(&c, rec->payload, rec->size) || c.off + c.n > l->size) {
        sm->bad_chunks++;   /* as unpack_lanes counts them; the lane may still come whole */
        return;
    }
    if (l->state != SL_OPEN || c.off < l->reach)   /* done, or a copy of bytes written (manifest copies) */
        return;
    if (c.off > l->reach || (!l->opened && slane_open(sm, l))) {
        slane_drop(sm, l);
        return;
    }
    int ref = c.n >= OUT_REF_MIN && c.p >= sm->lo && c.p + c.n <= sm->lo + sm->size;
    l->o.total += c.n;
    if (out_piece(&l->o, c.p, c.n, ref)) {   /* a write failed: the usual way will say so */
        slane_drop(sm, l);
        return;
    }
    l->reach += c.n;
    if (l->reach == l->size) {
        l->state = SL_WHOLE;
        l->st = out_close(&l->o, l->path, &l->err);
        l->opened = 0;
        sm->open--;
    }
}

static void streamer_free(streamer *sm)
{
    for (size_t i = 0; i < sm->n; i++)
        free(sm->l[i].path);
    free(sm->l);
    sm->l = NULL;
    sm->n = sm->defs = 0;
    for (size_t i = 0; i < sm->nmade; i++)
        free(sm->made[i]);
    free(sm->made);
    sm->made = NULL;
    sm->nmade = 0;
}

/* Removes every file written that no lane claimed (lane_written); with
 * undo, the directories made for them too, as if nothing was written. */
static void streamer_drop_all(streamer *sm, int undo)
{
    for (size_t i = 0; i < sm->n; i++)
        slane_drop(sm, &sm->l[i]);
    if (!undo)
        return;
    for (size_t i = sm->nmade; i-- > 0;)
        (void)rmdir(sm->made[i]);
    if (sm->dir_made && sm->nmade)
        (void)rmdir(sm->dir);
    for (size_t i = 0; i < sm->nmade; i++)
        free(sm->made[i]);
    sm->nmade = 0;
    sm->dir_checked = sm->dir_made = 0;
}

static int stream_progress(void *user, const atf_rtc_reader *r, size_t first, size_t end, int restart)
{
    streamer *sm = user;
    if (sm->off)   /* the usual way: the reader keeps every record */
        return ATF_RTC_KEEP_RECORDS;
    if (restart) {   /* the reader reads the file again: nothing written so far stands */
        streamer_drop_all(sm, 1);
        streamer_free(sm);
        sm->bad_chunks = 0;
        return 0;
    }
    if (!sm->lo)
        sm->lo = atf_rtc_reader_bytes(r, &sm->size);
    stream_defs(sm, r);
    if (!sm->calls++ && sm->n > STREAM_OPEN_MAX) {
        /* More files than are written at a time (a session of many
         * threads, their lanes side by side in the file): the usual way,
         * the reader keeping every record from its first. */
        sm->off = 1;
        return ATF_RTC_KEEP_RECORDS;
    }
    for (size_t i = first; i < end; i++) {
        atf_rtc_record rec;
        atf_rtc_reader_record(r, i, &rec);
        stream_record(sm, &rec);
    }
    return 0;
}

static atf_status dir_ready(const char *dir, int force, int *in_place, atf_error *err)
{
    struct stat sb;
    *in_place = 0;
    if (stat(dir, &sb) != 0)
        return ATF_OK;
    if (!S_ISDIR(sb.st_mode)) {
        atf_status s = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "exists and is not a directory");
        atf_error_set_file(err, dir);
        return s;
    }
    DIR *d = opendir(dir);
    if (!d) {
        atf_status s = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot open: %s", strerror(errno));
        atf_error_set_file(err, dir);
        return s;
    }
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)) != NULL)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    if (!empty && force)
        *in_place = 1;
    else if (!empty) {
        atf_status s = atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL,
                                "is not empty: the unpacked session would mix with what it holds (give an empty or new "
                                "directory, or --force)");
        atf_error_set_file(err, dir);
        return s;
    }
    return ATF_OK;
}

static void report_rtc(FILE *rep, const char *path, const atf_rtc_reader *r, const atf_rtc_summary *s)
{
    if (!rep)
        return;
    static const char *const state[] = { "complete", "crash-truncated", "damaged" };
    fputs("atf: unpack: ", rep);
    atf_fputs_escaped(path, rep);
    fprintf(rep, ": %s RTC file, %" PRIu64 " bytes, %" PRIu64 " Unit(s) read", state[s->state <= 2 ? s->state : 2],
            s->file_size, s->units);
    if (s->skipped_ranges)
        fprintf(rep, "; %" PRIu64 " range(s) skipped, %" PRIu64 " bytes:", s->skipped_ranges, s->skipped_bytes);
    for (uint64_t i = 0; i < s->skipped_ranges && i < 32; i++) {
        atf_rtc_skip k;
        atf_rtc_reader_skip(r, (size_t)i, &k);
        fprintf(rep, "%s %" PRIu64 " bytes at %" PRIu64 " (%s)", i ? "," : "", k.bytes, k.offset, k.reason);
    }
    if (s->skipped_ranges > 32)
        fprintf(rep, ", ...");
    fputc('\n', rep);
    if (s->units) {
        atf_rtc_unit_info u;
        atf_rtc_reader_unit(r, 0, &u);
        if (u.number > 0) {
            fputs("atf: unpack: ", rep);
            atf_fputs_escaped(path, rep);
            fprintf(rep, ": cut at the start: the first Unit in the file is Unit %" PRIu64 ": Units 0 to %" PRIu64
                         " (%" PRIu64 " bytes) are missing\n",
                    u.number, u.number - 1, u.number * s->unit_size);
        }
    }
}

/* Every Unit that describes the session (its Meta) is damaged or missing:
 * say so, how much was damaged, and what a smaller Unit would have kept. */
static atf_status report_all_damaged(FILE *rep, const char *path, const atf_rtc_summary *sum, atf_error *err)
{
    uint64_t U = sum->unit_size, units = (sum->file_size + U - 1) / U;
    /* About the default Unit for a file of this size (its Meta and manifest
     * unknown: those of a small two-thread session). */
    uint64_t better = atf_pack_default_unit(sum->file_size, 2560, 1800);
    if (rep) {
        fputs("atf: unpack: ", rep);
        atf_fputs_escaped(path, rep);
        fprintf(rep, ": the RTC file's %" PRIu64 " Unit(s) of %" PRIu64 " bytes are all damaged or missing (%" PRIu64
                     " of its %" PRIu64 " bytes skipped, first: %s): no intact Unit is left to describe the session, "
                     "so nothing of it can be recovered\n",
                units, U, sum->skipped_bytes, sum->file_size,
                sum->first_damage.message[0] ? sum->first_damage.message : "see above");
        if (better < U) {
            uint64_t n2 = (sum->file_size + better - 1) / better, hit = 2 * sum->skipped_ranges;
            if (hit > n2)
                hit = n2;
            fprintf(rep, "atf: unpack: packed with --unit-size %" PRIu64 " (about what `atf pack` picks by default for "
                         "a session of this size) "
                         "the file would hold %" PRIu64 " Units, and each of the %" PRIu64 " damaged stretch(es), if "
                         "shorter than %" PRIu64 " bytes, would have cost at most two of them: at most %.1f %% of the "
                         "session instead of all of it\n",
                    better, n2, sum->skipped_ranges, better, 100.0 * (double)hit / (double)n2);
        }
    }
    return atf_fail(err, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL,
                    "every Unit that describes the packed session is damaged: nothing recovered (the reasons above)");
}

/* The lane of sm that wrote u's file whole while the reader read, or NULL. */
static slane *claimed(const streamer *sm, const ulane *u)
{
    slane *sl = slane_find(sm, u->sid);
    return sl && sl->state == SL_WHOLE && sl->size == u->size ? sl : NULL;
}

/* 1 when every lane of the session that has bytes was written whole while
 * the reader read (or there is none): no record is needed after the open. */
static int stream_whole(const atf_rtc_reader *r, const atf_rtc_summary *sum, const streamer *sm)
{
    for (size_t i = 0; i < sum->streams; i++) {
        uint64_t id, off;
        const void *obj;
        ulane u;
        atf_rtc_reader_stream(r, i, &id, &off, &obj);
        if (ulane_from_def(&u, id, (json_t *)obj) && u.size > 0 && !claimed(sm, &u))
            return 0;
    }
    return 1;
}

/* The session's lanes (*ls, *nl: one per atf-pack stream of the Meta, by
 * stream id), those written whole while the reader read (sm) claimed, and,
 * unless every lane was, the chunks of each that the intact records hold;
 * records that are no chunk are counted in *bad_chunks. Either every lane
 * with bytes is claimed or none is: a streamer that did not write them all
 * was dropped and the file read again with an empty one. */
static atf_status unpack_lanes(atf_rtc_reader *r, const atf_rtc_summary *sum, streamer *sm, ulane **lsp,
                               size_t *nlp, uint64_t *bad_chunks, atf_error *err)
{
    ulane *ls = calloc(sum->streams ? sum->streams : 1, sizeof *ls);
    size_t nl = 0;
    *lsp = ls;
    *nlp = 0;
    if (!ls)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    int pass = 0;   /* some lane was not written whole while the reader read */
    for (size_t i = 0; i < sum->streams; i++) {
        uint64_t id, off;
        const void *obj;
        atf_rtc_reader_stream(r, i, &id, &off, &obj);
        if (ulane_from_def(&ls[nl], id, (json_t *)obj)) {
            ls[nl].sl = claimed(sm, &ls[nl]);
            pass |= !ls[nl].sl && ls[nl].size > 0;
            nl++;
        }
    }
    *nlp = nl;
    qsort(ls, nl, sizeof *ls, cmp_sid);
    if (!pass) {
        *bad_chunks = sm->bad_chunks;
        return ATF_OK;
    }
    for (size_t i = 0; i < sum->records && nl; i++) {
        atf_rtc_record rec;
        if (i + PREFETCH_AHEAD < sum->records) {
            /* the payloads were last read by the Crc check, long out of the cache: fetch ahead */
            atf_rtc_reader_record(r, i + PREFETCH_AHEAD, &rec);
            __builtin_prefetch(rec.payload);
        }
        atf_rtc_reader_record(r, i, &rec);
        ulane *l = lane_by_sid(ls, nl, rec.stream);
        if (!l)
            continue;
        chunk c;
        if (l->role == ROLE_MANIFEST && l->size == 0)
            continue;
        if (!chunk_parse(&c, rec.payload, rec.size) || c.off + c.n > l->size) {
            (*bad_chunks)++;
            continue;
        }
        if (l->nc == l->cap) {
            size_t nc = l->cap ? 2 * l->cap : 64;
            chunk *c2 = realloc(l->c, nc * sizeof *c2);
            if (!c2)
                return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
            l->c = c2;
            l->cap = nc;
        }
        l->c[l->nc++] = c;
    }
    return ATF_OK;
}

/* A lane written while the reader read: its file is the session's now;
 * how its writing went. */
static atf_status lane_written(const ulane *l, atf_error *err)
{
    l->sl->created = 0;   /* kept by streamer_drop_all */
    if (l->sl->st && err)
        *err = l->sl->err;
    return l->sl->st;
}

/* manifest.json, when some intact Unit held all of a copy of it. */
static atf_status unpack_manifest(ulane *l, const char *dir, atf_unpack_stats *st, FILE *rep, atf_error *err)
{
    atf_status s = ATF_OK;
    if (l->sl) {
        s = lane_written(l, err);
        st->manifest = 1;
    } else if (l->whole || l->size == 0) {
        char *p = atf_path_join(dir, "manifest.json");
        s = p ? write_chunks(l, p, err) : atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        free(p);
        st->manifest = 1;
    } else {
        st->manifest = -1;
        if (rep)
            fprintf(rep, "atf: unpack: manifest.json lost: no intact Unit held all of a copy of it (%" PRIu64
                         " bytes); the session is written without it (readers find its thread_K/ "
                         "directories)\n", l->size);
    }
    return s;
}

/* A thread whose files were not packed whole: what is left, rebuilt, and
 * said. */
static atf_status unpack_rebuilt(ulane *ix, ulane *dt, uint64_t tid, const char *tdir, atf_unpack_stats *st,
                                 FILE *rep, atf_error *err)
{
    uint64_t ni = ix ? ix->count : 0, nd = dt ? dt->count : 0;
    uint64_t i0 = st->index_events, d0 = st->detail_events, l0 = st->links_dropped, u0 = st->details_unlinked,
             f0 = st->files_lost;
    atf_status s = rebuild_thread(ix, dt, tdir, st, &st->files_lost, err);
    if (s || !rep)
        return s;
    fprintf(rep,
            "atf: unpack: thread_%" PRIu64 ": %" PRIu64 " of %" PRIu64 " index events and %" PRIu64
            " of %" PRIu64 " detail events recovered, written crash-truncated (placeholder header, no "
            "footer, renumbered)",
            tid, st->index_events - i0, ni, st->detail_events - d0, nd);
    if (st->links_dropped > l0)
        fprintf(rep, "; %" PRIu64 " index event(s) lost their detail event (now \"no detail\")",
                st->links_dropped - l0);
    if (st->details_unlinked > u0)
        fprintf(rep, "; %" PRIu64 " detail event(s) left out: their index event was lost", st->details_unlinked - u0);
    if (st->files_lost > f0)
        fprintf(rep, "; %" PRIu64 " file(s) not written: no readable ATF header was packed for them",
                st->files_lost - f0);
    fputc('\n', rep);
    return s;
}

/* Files copied byte for byte from the reader's memory: written after the
 * walk over the threads, several at a time (each file's write() calls, the
 * kernel's copy into the page cache, are most of unpack's time; one file
 * at a time left the other cores idle). */
typedef struct wjob {
    const ulane *l;
    char *path;
    atf_status st;
    atf_error err;
} wjob;

typedef struct wqueue {
    wjob *j;
    size_t n, cap;
    _Atomic size_t next;   /* the next job a worker takes */
} wqueue;

/* l's file at path: written from its chunks, or (l->sl) already written
 * while the reader read. */
static atf_status write_lane(const ulane *l, const char *path, atf_error *err)
{
    return l->sl ? lane_written(l, err) : write_chunks(l, path, err);
}

/* Queues l's file at path (taking path), or writes it now if the queue
 * cannot grow. */
static atf_status wqueue_add(wqueue *q, const ulane *l, char *path, atf_error *err)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        wjob *j = realloc(q->j, cap * sizeof *j);
        if (!j) {
            atf_status s = write_lane(l, path, err);
            free(path);
            return s;
        }
        q->j = j;
        q->cap = cap;
    }
    q->j[q->n++] = (wjob){ .l = l, .path = path };
    return ATF_OK;
}

static void wqueue_worker(void *arg)
{
    wqueue *q = arg;
    for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->n;) {
        atf_error_clear(&q->j[i].err);
        q->j[i].st = write_lane(q->j[i].l, q->j[i].path, &q->j[i].err);
    }
}

/* Writes the queued files, one per CPU at a time (at most 4), and frees
 * the queue. @return the first failure in queue order (its error in *err). */
static atf_status wqueue_run(wqueue *q, atf_error *err)
{
    enum { WORKERS_MAX = 4 };
    unsigned n = atf_cpu_count();
    n = n > WORKERS_MAX ? WORKERS_MAX : n;
    if (n > q->n)
        n = (unsigned)q->n;
    atomic_store(&q->next, 0);
    (void)atf_parts_run(q, 0, n, wqueue_worker);   /* n workers sharing the one queue */
    atf_status s = ATF_OK;
    for (size_t i = 0; i < q->n; i++) {
        if (q->j[i].st && !s) {
            s = q->j[i].st;
            *err = q->j[i].err;
        }
        free(q->j[i].path);
    }
    free(q->j);
    q->j = NULL;
    q->n = q->cap = 0;
    return s;
}

/* One thread's lanes (index ix, detail dt; either may be NULL) into
 * dir/thread_<tid>/: byte for byte when both are whole (queued on q),
 * else rebuilt. */
static atf_status unpack_thread(ulane *ix, ulane *dt, uint64_t tid, const char *dir, atf_unpack_stats *st, FILE *rep,
                                wqueue *q, atf_error *err)
{
    char sub[48];
    snprintf(sub, sizeof sub, "thread_%" PRIu64, tid);
    char *tdir = atf_path_join(dir, sub);
    if (!tdir || atf_make_dirs(tdir) != 0) {
        atf_status s = tdir ? atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create: %s", strerror(errno))
                            : atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        if (tdir)
            atf_error_set_file(err, tdir);
        free(tdir);
        return s;
    }
    st->threads++;
    uint64_t ni = ix ? ix->count : 0, nd = dt ? dt->count : 0;
    st->index_events_total += ni;
    st->detail_events_total += nd;
    atf_status s = ATF_OK;
    if ((!ix || ix->whole) && (!dt || dt->whole)) {
        st->threads_whole++;
        st->index_events += ni;
        st->detail_events += nd;
        for (int k = 0; k < 2 && !s; k++) {
            ulane *x = k == 0 ? ix : dt;
            if (!x)
                continue;
            char *p = atf_path_join(tdir, k == 0 ? "index.atf" : "detail.atf");
            s = p ? wqueue_add(q, x, p, err) : atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
        }
    } else {   /* (no lane written while the reader read: unpack_lanes) */
        s = unpack_rebuilt(ix, dt, tid, tdir, st, rep, err);
    }
    free(tdir);
    return s;
}

/* Every lane (sorted by thread, the manifest's apart) into dir. */
static atf_status unpack_write(ulane *ls, size_t nl, const char *dir, atf_unpack_stats *st, FILE *rep,
                               atf_error *err)
{
    atf_status s = ATF_OK;
    wqueue q = { .j = NULL };
    for (size_t i = 0; i < nl && !s;) {
        ulane *l = &ls[i];
        if (l->role == ROLE_MANIFEST) {
            s = unpack_manifest(l, dir, st, rep, err);
            i++;
            continue;
        }
        ulane *ix = NULL, *dt = NULL;
        uint64_t tid = l->thread;
        size_t j = i;
        for (; j < nl && ls[j].thread == tid && ls[j].role != ROLE_MANIFEST; j++) {
            if (ls[j].role == ROLE_INDEX)
                ix = &ls[j];
            else
                dt = &ls[j];
        }
        i = j;
        s = unpack_thread(ix, dt, tid, dir, st, rep, &q, err);
    }
    /* The queued files come before the thread that failed, if one did:
     * their failure is the first. */
    atf_error qerr;
    atf_status qs = wqueue_run(&q, &qerr);
    if (qs) {
        if (err)
            *err = qerr;
        s = qs;
    }
    return s;
}

/* The file is no RTC file, or its intact Units describe no packed session. */
static atf_status unpack_nothing(const char *rtc_path, const atf_rtc_summary *sum, FILE *rep, atf_error *err)
{
    atf_status s;
    if (!sum->has_geometry)
        s = atf_fail(err, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL,
                     "not an RTC file: no Marker anywhere in its %" PRIu64 " bytes (`atf unpack` reads what "
                     "`atf pack` wrote)", sum->file_size);
    else if (sum->units == 0 && sum->skipped_bytes > 0 && sum->unit_size > 0)   /* Markers, but no Unit intact */
        s = report_all_damaged(rep, rtc_path, sum, err);
    else
        s = atf_fail(err, ATF_E_NOT_FOUND, ATF_NO_OFFSET, NULL,
                     "an RTC file whose intact Units describe no packed ATF session (no atf-pack stream in any "
                     "Meta): not made by `atf pack`, or what is left of it holds no Meta");
    atf_error_set_file(err, rtc_path);
    return s;
}

static atf_status unpack_into(const char *rtc_path, const char *dir, atf_unpack_stats *st, FILE *rep,
                              atf_error *err);

/* The last line of an unpack (the session is in place). */
static void report_unpacked(FILE *rep, const char *dir, const atf_unpack_stats *st)
{
    fputs("atf: unpack: ", rep);
    atf_fputs_escaped(dir, rep);
    fprintf(rep,
            ": %" PRIu64 " thread(s) (%" PRIu64 " byte for byte), %" PRIu64 " of %" PRIu64
            " index events, %" PRIu64 " of %" PRIu64 " detail events, manifest %s%s\n",
            st->threads, st->threads_whole, st->index_events, st->index_events_total, st->detail_events,
            st->detail_events_total, st->manifest > 0 ? "written" : st->manifest < 0 ? "lost" : "none packed",
            st->lost ? "; data was lost or the file is cut or damaged" : "");
}

/* What marks a staging directory's name (staging_name, note_left_staging). */
#define STAGING_TAG ".unpacking-"

/* The directory a session is unpacked into before it is renamed to @dir:
 * a hidden sibling, ".NAME.unpacking-PID" (the same file system, so the
 * rename is atomic). NULL without memory. */
static char *staging_name(const char *dir)
{
    size_t b, n;
    atf_path_last(dir, &b, &n);
    size_t cap = n + 48;
    char *out = malloc(cap);
    if (out)
        snprintf(out, cap, "%.*s.%.*s" STAGING_TAG "%ld", (int)b, dir, (int)(n - b), dir + b, (long)getpid());
    return out;
}

/* Says on @rep which staging directories of @dir an unpack that did not
 * finish (killed, or the machine stopped) left beside it: a
 * ".NAME.unpacking-PID" whose process no longer runs. They are not removed
 * (as git leaves its lock files to the user): on a file system shared
 * between machines or PID namespaces the process may be alive elsewhere. */
static void note_left_staging(const char *dir, FILE *rep)
{
    size_t b, n;
    atf_path_last(dir, &b, &n);
    char *parent = parent_of(dir);
    DIR *d = parent ? opendir(parent) : NULL;
    if (!d) {
        free(parent);
        return;
    }
    size_t len = n - b;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        if (nm[0] != '.' || strncmp(nm + 1, dir + b, len) != 0 ||
            strncmp(nm + 1 + len, STAGING_TAG, sizeof STAGING_TAG - 1) != 0)
            continue;
        /* The PID as staging_name() writes it: digits, no leading zero. */
        const char *digits = nm + 1 + len + sizeof STAGING_TAG - 1;
        uint64_t pid;
        if (!atf_parse_u64(digits, &pid) || digits[0] == '0' || pid > INT_MAX || pid == (uint64_t)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;   /* alive, or not ours to ask about */
        fputs("atf: unpack: note: ", rep);
        atf_fputs_escaped(parent, rep);
        if (parent[strlen(parent) - 1] != '/')
            fputc('/', rep);
        atf_fputs_escaped(nm, rep);
        fprintf(rep, " was left by an unpack that did not finish (no process %" PRIu64 " runs here); "
                     "remove it when it is not wanted\n", pid);
    }
    closedir(d);
    free(parent);
}

/* Whether the session can be staged beside @dir and renamed to it: not
 * for "/", a path whose last component is "." or "..", a symbolic link or
 * a mount point (those are written in place). */
static int renamable(const char *dir)
{
    size_t b, n;
    atf_path_last(dir, &b, &n);
    size_t len = n - b;
    if (len == 0 || (len == 1 && dir[b] == '.') || (len == 2 && dir[b] == '.' && dir[b + 1] == '.') ||
        (n == 1 && dir[0] == '/'))
        return 0;
    /* An existing DIR is replaced only if it is a directory itself (not a
     * symbolic link to one) on its parent's file system (not a mount point). */
    struct stat ds, ps;
    if (lstat(dir, &ds) != 0)
        return 1;   /* new */
    char *parent = parent_of(dir);
    int ok = parent && S_ISDIR(ds.st_mode) && stat(parent, &ps) == 0 && ps.st_dev == ds.st_dev;
    free(parent);
    return ok;
}

/* Makes @dir's parent (mkdir -p) and the staging directory @work in it. */
static atf_status make_staging(const char *dir, const char *work, atf_error *err)
{
    char *parent = parent_of(dir);
    int ok = parent && atf_make_dirs(parent) == 0 && mkdir(work, 0777) == 0;
    int eno = parent ? errno : ENOMEM;
    free(parent);
    if (ok)
        return ATF_OK;
    atf_status s = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create: %s", strerror(eno));
    atf_error_set_file(err, dir);
    return s;
}

atf_status atf_unpack(const char *rtc_path, const char *dir, const atf_unpack_options *opts, atf_unpack_stats *stats,
                      FILE *rep, atf_error *err)
{
    atf_error_clear(err);
    atf_unpack_stats local;
    atf_unpack_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!rtc_path || !dir)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    int in_place, sync = opts && opts->sync;
    atf_status s = dir_ready(dir, opts && opts->force, &in_place, err);
    if (s)
        return s;
    /* The session is written beside dir and renamed to it when done, so
     * that dir never holds half a session (a killed unpack leaves the
     * staging directory); --force into a directory that holds something
     * writes in place. */
    in_place = in_place || !renamable(dir);
    char *work = in_place ? NULL : staging_name(dir);
    if (!in_place && !work)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    if (work && (s = make_staging(dir, work, err)) != ATF_OK) {
        free(work);
        return s;
    }
    if (work && rep)
        note_left_staging(dir, rep);
    const char *out = work ? work : dir;
    s = unpack_into(rtc_path, out, st, rep, err);
    if (!s && sync)
        s = sync_session(out, err);
    const char *what = NULL;   /* (a new DIR, or an empty one the rename replaces) */
    if (!s && work && rename(work, dir) != 0)
        what = "cannot rename the unpacked session into place";
    else if (!s && sync && sync_parent(dir) != 0)
        what = "cannot fsync the directory of";
    if (what) {
        s = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "%s: %s", what, strerror(errno));
        atf_error_set_file(err, dir);
    }
    if (work && s)
        (void)atf_remove_tree(work);
    free(work);
    if (!s && rep)
        report_unpacked(rep, dir, st);
    return s;
}

/* atf_unpack() into @dir (made by the caller): everything but the staging and the syncs. */
static atf_status unpack_into(const char *rtc_path, const char *dir, atf_unpack_stats *st, FILE *rep,
                              atf_error *err)
{
    atf_status s;
    atf_rtc_reader *r;
    streamer sm = { .dir = dir };
    /* ATF_UNPACK_STREAM=0: the usual way only (tests compare the two) */
    const char *env = getenv("ATF_UNPACK_STREAM");
    int stream = !(env && !strcmp(env, "0"));
    s = stream ? atf_rtc_reader_open_with(&r, rtc_path, stream_progress, &sm, ATF_RTC_PROGRESS_ONLY, err)
               : atf_rtc_reader_open(&r, rtc_path, err);
    if (s) {
        streamer_drop_all(&sm, 1);
        streamer_free(&sm);
        return s;
    }
    st->reads = 1;
    atf_rtc_summary sum;
    atf_rtc_reader_summary(r, &sum);
    if (stream && !sm.off && !stream_whole(r, &sum, &sm)) {
        /* Some lane did not come whole while the reader read (a damaged
         * or cut file): read it again keeping every record, and do it the
         * usual way. */
        streamer_drop_all(&sm, 1);
        streamer_free(&sm);
        atf_rtc_reader_close(r);
        s = atf_rtc_reader_open(&r, rtc_path, err);
        if (s)
            return s;
        st->reads = 2;
        atf_rtc_reader_summary(r, &sum);
    }
    st->rtc_units = sum.units;
    st->skipped_ranges = sum.skipped_ranges;
    st->skipped_bytes = sum.skipped_bytes;
    st->rtc_state = (int)sum.state;
    if (!sum.has_geometry) {   /* not one Marker: no RTC file (empty, a file of another format, anything else) */
        st->not_rtc = 1;
        streamer_drop_all(&sm, 1);
        streamer_free(&sm);
        atf_rtc_reader_close(r);
        return unpack_nothing(rtc_path, &sum, rep, err);
    }
    report_rtc(rep, rtc_path, r, &sum);
    ulane *ls = NULL;
    size_t nl = 0;
    uint64_t bad_chunks = 0;
    s = unpack_lanes(r, &sum, &sm, &ls, &nl, &bad_chunks, err);
    if (!ls) {
        streamer_drop_all(&sm, 1);
        streamer_free(&sm);
        atf_rtc_reader_close(r);
        return s;
    }
    if (!s && nl == 0)
        s = unpack_nothing(rtc_path, &sum, rep, err);
    if (!s && atf_make_dirs(dir) != 0) {
        s = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create: %s", strerror(errno));
        atf_error_set_file(err, dir);
    }
    if (!s) {
        qsort(ls, nl, sizeof *ls, cmp_ulane);
        for (size_t i = 0; i < nl; i++)
            ls[i].whole = ulane_cover(&ls[i]) || ls[i].sl;
        if (bad_chunks && rep)
            fprintf(rep, "atf: unpack: %" PRIu64 " record(s) of the session's streams are no chunk (ignored)\n",
                    bad_chunks);
    }
    st->manifest = 0;
    if (!s)
        s = unpack_write(ls, nl, dir, st, rep, err);
    st->lost = sum.state != ATF_RTC_COMPLETE || st->manifest < 0 || st->threads_whole < st->threads ||
               st->files_lost > 0 || bad_chunks > 0;
    streamer_drop_all(&sm, 0);   /* written, but not the session's: an error stopped unpack first */
    streamer_free(&sm);
    for (size_t i = 0; i < nl; i++)
        ulane_free(&ls[i]);
    free(ls);
    atf_rtc_reader_close(r);
    return s;
}
