/* Streaming index and detail writers: placeholder header, buffered events
 * with incremental CRC32-C, then footer and header rewrite at finalize. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/crc32c.h>
#include <atf/fileio.h>
#include <atf/writer.h>

#include "bytes.h"
#include "internal.h"

#define DEFAULT_BUFFER (1u << 20)

/* What both writers share: the file, the buffer and the running totals. */
typedef struct sink {
    int fd;
    char *path;
    atf_writer_options o;
    uint8_t *buf;
    size_t cap, len;
    uint64_t written;     /* bytes of the events section already in the file */
    uint32_t crc;
    uint64_t count;
    uint64_t t_first, t_last;
    int finalized;
    atf_status final_status;
    atf_status sticky;    /* first write error: later calls fail with it */
} sink;

static atf_status sink_open(sink *s, const char *path, const atf_writer_options *opts,
                            const uint8_t header[64], atf_error *err)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->o = *opts;
    s->cap = opts->buffer_size ? opts->buffer_size : DEFAULT_BUFFER;
    if (s->cap < 4096)
        s->cap = 4096;
    s->path = atf_strdup(path);
    s->buf = malloc(s->cap);
    if (!s->path || !s->buf)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    s->fd = atf_open_output(path, err);
    if (s->fd < 0)
        return ATF_E_IO;
    if (atf_write_all(s->fd, header, 64, 0, 0) != ATF_OK)
        return atf_fail(err, ATF_E_IO, 0, "header", "cannot write the header: %s", strerror(errno));
    return ATF_OK;
}

static void sink_free(sink *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->buf);
    free(s->path);
}

static atf_status sink_write(sink *s, const void *src, size_t n)
{
    if (s->sticky)
        return s->sticky;
    if (s->o.checksum)
        s->crc = atf_crc32c(s->crc, src, n);
    if (atf_write_all(s->fd, src, n, 0, 0) != ATF_OK)
        return s->sticky = ATF_E_IO;
    s->written += n;
    return ATF_OK;
}

static atf_status sink_flush(sink *s)
{
    if (s->len == 0)
        return s->sticky;
    atf_status st = sink_write(s, s->buf, s->len);
    s->len = 0;
    return st;
}

/* Copies n bytes through the buffer; large blocks go straight to the file. */
static atf_status sink_put(sink *s, const void *src, size_t n)
{
    if (s->sticky)
        return s->sticky;
    if (n <= s->cap - s->len) {
        memcpy(s->buf + s->len, src, n);
        s->len += n;
        return ATF_OK;
    }
    atf_status st = sink_flush(s);
    if (st)
        return st;
    if (n >= s->cap)
        return sink_write(s, src, n);
    memcpy(s->buf, src, n);
    s->len = n;
    return ATF_OK;
}

/* Called after sink_flush(). Footer at the end, then the header at offset 0, then optionally fsync. */
static atf_status sink_finish(sink *s, const uint8_t footer[64], const uint8_t header[64], int sync,
                              atf_error *err)
{
    if (atf_write_all(s->fd, footer, 64, 0, 0) != ATF_OK)
        return atf_fail(err, ATF_E_IO, 64 + s->written, "footer", "cannot write the footer: %s",
                        strerror(errno));
    if (sync && fdatasync(s->fd) != 0)
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "fdatasync failed: %s", strerror(errno));
    if (atf_write_all(s->fd, header, 64, 0, 1) != ATF_OK)
        return atf_fail(err, ATF_E_IO, 0, "header", "cannot rewrite the header: %s", strerror(errno));
    if (sync && fdatasync(s->fd) != 0)
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "fdatasync failed: %s", strerror(errno));
    return ATF_OK;
}

static void note_time(sink *s, uint64_t ts)
{
    if (s->count == 0)
        s->t_first = ts;
    s->t_last = ts;
}

static int options_ok(const atf_writer_options *o)
{
    return o->layout == ATF_LAYOUT_1 || o->layout == ATF_LAYOUT_2;
}

/* The writers' options: *opts NULL becomes the defaults. */
static atf_status check_options(const atf_writer_options **opts, atf_error *err)
{
    static const atf_writer_options defaults = ATF_WRITER_OPTIONS_INIT;
    if (!*opts)
        *opts = &defaults;
    if (!options_ok(*opts))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, "layout", "layout must be 1 or 2");
    return ATF_OK;
}

/* sink_open(), the error naming the file; the sink freed on failure. */
static atf_status sink_start(sink *s, const char *path, const atf_writer_options *opts, const uint8_t *raw,
                             atf_error *err)
{
    atf_status st = sink_open(s, path, opts, raw, err);
    if (st) {
        atf_error_set_file(err, path);
        sink_free(s);
    }
    return st;
}

/* ---- Index writer ---------------------------------------------------- */

struct atf_index_writer {
    sink s;
    int has_detail;
};

static void index_header(const atf_index_writer *w, atf_index_header *h, int final)
{
    memset(h, 0, sizeof *h);
    h->endian = ATF_ENDIAN_LITTLE;
    h->version = (uint8_t)w->s.o.layout;
    h->arch = w->s.o.arch;
    h->os = w->s.o.os;
    h->thread_id = w->s.o.thread_id;
    h->clock_type = w->s.o.clock_type;
    h->event_size = ATF_INDEX_EVENT_SIZE;
    h->events_offset = ATF_INDEX_HEADER_SIZE;
    if (final) {
        h->flags = w->has_detail ? ATF_INDEX_FLAG_HAS_DETAIL_FILE : 0;
        h->event_count = w->s.count;
        h->footer_offset = ATF_INDEX_HEADER_SIZE + w->s.count * ATF_INDEX_EVENT_SIZE;
        h->time_start_ns = w->s.t_first;
        h->time_end_ns = w->s.t_last;
    }
}

atf_status atf_index_writer_open(atf_index_writer **out, const char *path,
                                 const atf_writer_options *opts, atf_error *err)
{
    atf_error_clear(err);
    if (!out || !path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_status st = check_options(&opts, err);
    if (st)
        return st;
    atf_index_writer *w = calloc(1, sizeof *w);
    if (!w)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    w->s.o = *opts;
    atf_index_header h;
    uint8_t raw[64];
    index_header(w, &h, 0);
    atf_index_header_encode(raw, sizeof raw, &h);
    st = sink_start(&w->s, path, opts, raw, err);
    if (st) {
        free(w);
        return st;
    }
    *out = w;
    return ATF_OK;
}

/* Layout 1 stores the count in 32 bits and links in 32 bits. */
static uint64_t index_limit(const atf_index_writer *w)
{
    return w->s.o.layout == ATF_LAYOUT_1 ? UINT32_MAX - 1u : UINT64_MAX / ATF_INDEX_EVENT_SIZE;
}

atf_status atf_index_writer_append(atf_index_writer *w, const atf_index_event *ev)
{
    if (!w || !ev)
        return ATF_E_ARG;
    if (w->s.finalized)
        return ATF_E_STATE;
    if (w->s.count >= index_limit(w))
        return ATF_E_LIMIT;
    uint8_t raw[ATF_INDEX_EVENT_SIZE];
    atf_status st = atf_index_event_encode(raw, sizeof raw, ev, w->s.o.layout);
    if (st)
        return st;
    st = sink_put(&w->s, raw, sizeof raw);
    if (st)
        return st;
    note_time(&w->s, ev->timestamp_ns);
    w->s.count++;
    return ATF_OK;
}

atf_status atf_index_writer_append_encoded(atf_index_writer *w, const void *src, size_t count)
{
    if (!w || (!src && count))
        return ATF_E_ARG;
    if (w->s.finalized)
        return ATF_E_STATE;
    if (count == 0)
        return ATF_OK;
    if (count > index_limit(w) - w->s.count)
        return ATF_E_LIMIT;
    const uint8_t *p = (const uint8_t *)src;
    atf_status st = sink_put(&w->s, p, count * ATF_INDEX_EVENT_SIZE);
    if (st)
        return st;
    note_time(&w->s, atf_load_le64(p));
    w->s.t_last = atf_load_le64(p + (count - 1) * ATF_INDEX_EVENT_SIZE);
    w->s.count += count;
    return ATF_OK;
}

void atf_index_writer_set_has_detail(atf_index_writer *w, int has_detail)
{
    if (w)
        w->has_detail = has_detail != 0;
}

atf_status atf_index_writer_flush(atf_index_writer *w)
{
    return w ? sink_flush(&w->s) : ATF_E_ARG;
}

uint64_t atf_index_writer_count(const atf_index_writer *w) { return w ? w->s.count : 0; }

int atf_index_writer_time_range(const atf_index_writer *w, uint64_t *first, uint64_t *last)
{
    if (!w || !w->s.count)
        return 0;
    if (first)
        *first = w->s.t_first;
    if (last)
        *last = w->s.t_last;
    return 1;
}

atf_status atf_index_writer_finalize(atf_index_writer *w, int sync, atf_error *err)
{
    atf_error_clear(err);
    if (!w)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    if (w->s.finalized)
        return w->s.final_status;
    atf_index_header h;
    atf_index_footer f = { 0 };
    uint8_t rh[64], rf[64];
    atf_status st = sink_flush(&w->s);
    index_header(w, &h, 1);
    f.checksum = w->s.o.checksum ? w->s.crc : 0;
    f.event_count = w->s.count;
    f.time_start_ns = w->s.t_first;
    f.time_end_ns = w->s.t_last;
    f.bytes_written = w->s.count * ATF_INDEX_EVENT_SIZE;
    atf_index_header_encode(rh, sizeof rh, &h);
    atf_index_footer_encode(rf, sizeof rf, &f);
    if (!st)
        st = sink_finish(&w->s, rf, rh, sync, err);
    else
        atf_fail(err, st, ATF_NO_OFFSET, NULL, "cannot write events: %s", strerror(errno));
    atf_error_set_file(st ? err : NULL, w->s.path);
    w->s.finalized = 1;
    w->s.final_status = st;
    return st;
}

atf_status atf_index_writer_close(atf_index_writer *w)
{
    if (!w)
        return ATF_OK;
    atf_status st = atf_index_writer_finalize(w, 0, NULL);
    sink_free(&w->s);
    free(w);
    return st;
}

/* ---- Detail writer --------------------------------------------------- */

struct atf_detail_writer {
    sink s;
    uint64_t seq_first, seq_last;
};

static void detail_header(const atf_detail_writer *w, atf_detail_header *h, int final)
{
    memset(h, 0, sizeof *h);
    h->endian = ATF_ENDIAN_LITTLE;
    h->version = (uint8_t)w->s.o.layout;
    h->arch = w->s.o.arch;
    h->os = w->s.o.os;
    h->thread_id = w->s.o.thread_id;
    h->events_offset = ATF_DETAIL_HEADER_SIZE;
    if (final) {
        h->event_count = w->s.count;
        h->bytes_length = w->s.written + w->s.len;
        h->index_seq_start = w->seq_first;
        h->index_seq_end = w->seq_last;
    }
}

atf_status atf_detail_writer_open(atf_detail_writer **out, const char *path,
                                 const atf_writer_options *opts, atf_error *err)
{
    atf_error_clear(err);
    if (!out || !path)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    *out = NULL;
    atf_status st = check_options(&opts, err);
    if (st)
        return st;
    atf_detail_writer *w = calloc(1, sizeof *w);
    if (!w)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    w->s.o = *opts;
    atf_detail_header h;
    uint8_t raw[64];
    detail_header(w, &h, 0);
    atf_detail_header_encode(raw, sizeof raw, &h);
    st = sink_start(&w->s, path, opts, raw, err);
    if (st) {
        free(w);
        return st;
    }
    *out = w;
    return ATF_OK;
}

atf_status atf_detail_writer_append(atf_detail_writer *w, const atf_detail_event *ev, uint64_t *seq)
{
    if (!w || !ev || (ev->payload_size && !ev->payload))
        return ATF_E_ARG;
    if (w->s.finalized)
        return ATF_E_STATE;
    if (ev->payload_size > UINT32_MAX - ATF_DETAIL_EVENT_HEADER_SIZE)
        return ATF_E_LIMIT;
    if (w->s.o.layout == ATF_LAYOUT_1 && (ev->index_seq > UINT32_MAX || w->s.count >= UINT32_MAX - 1u))
        return ev->index_seq > UINT32_MAX ? ATF_E_FIELD : ATF_E_LIMIT;
    uint8_t head[ATF_DETAIL_EVENT_HEADER_SIZE];
    atf_detail_event h = *ev;
    h.payload_size = 0;
    h.payload = NULL;
    atf_status st = atf_detail_event_encode(head, sizeof head, &h, w->s.o.layout);
    if (st)
        return st;
    atf_store_le32(head, ATF_DETAIL_EVENT_HEADER_SIZE + ev->payload_size);
    st = sink_put(&w->s, head, sizeof head);
    if (!st && ev->payload_size)
        st = sink_put(&w->s, ev->payload, ev->payload_size);
    if (st)
        return st;
    if (w->s.count == 0)
        w->seq_first = ev->index_seq;
    w->seq_last = ev->index_seq;
    note_time(&w->s, ev->timestamp);
    if (seq)
        *seq = w->s.count;
    w->s.count++;
    return ATF_OK;
}

atf_status atf_detail_writer_flush(atf_detail_writer *w)
{
    return w ? sink_flush(&w->s) : ATF_E_ARG;
}

uint64_t atf_detail_writer_count(const atf_detail_writer *w) { return w ? w->s.count : 0; }

atf_status atf_detail_writer_finalize(atf_detail_writer *w, int sync, atf_error *err)
{
    atf_error_clear(err);
    if (!w)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    if (w->s.finalized)
        return w->s.final_status;
    atf_detail_header h;
    atf_detail_footer f = { 0 };
    uint8_t rh[64], rf[64];
    detail_header(w, &h, 1);
    f.event_count = w->s.count;
    f.bytes_length = h.bytes_length;
    f.time_start_ns = w->s.t_first;
    f.time_end_ns = w->s.t_last;
    atf_status st = sink_flush(&w->s);
    f.checksum = w->s.o.checksum ? w->s.crc : 0;
    atf_detail_header_encode(rh, sizeof rh, &h);
    atf_detail_footer_encode(rf, sizeof rf, &f);
    if (!st)
        st = sink_finish(&w->s, rf, rh, sync, err);
    else
        atf_fail(err, st, ATF_NO_OFFSET, NULL, "cannot write events: %s", strerror(errno));
    atf_error_set_file(st ? err : NULL, w->s.path);
    w->s.finalized = 1;
    w->s.final_status = st;
    return st;
}

atf_status atf_detail_writer_close(atf_detail_writer *w)
{
    if (!w)
        return ATF_OK;
    atf_status st = atf_detail_writer_finalize(w, 0, NULL);
    sink_free(&w->s);
    free(w);
    return st;
}
