/* Helpers shared by the session, merge, dump and check tests: temporary
 * whole-file I/O, output capture, byte patching with checksum repair, and a
 * fixed-seed random generator; temporary directories and file writing come
 * from codec_test_util.h. Header-only (static inline). */
#ifndef ATF_SESSION_TEST_UTIL_H
#define ATF_SESSION_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/crc32c.h>
#include <atf/session.h>
#include <atf/tools.h>

#include "bytes.h"
#include "codec_test_util.h"   /* cf_mkdtemp, cf_rm_rf, cf_write_file */

/* ---- Random ------------------------------------------------------------ */

static inline uint64_t tu_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

/* ---- Paths and files --------------------------------------------------- */

/* snprintf into a static-size buffer, asserting it fits. */
static inline const char *tu_path(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < cap);
    return buf;
}

static inline int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline void tu_mkdir(const char *path)
{
    assert_int_equal(mkdir(path, 0755), 0);
}

/* Whole file into a NUL-terminated malloc'd buffer. */
static inline uint8_t *tu_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    if (size)
        *size = (size_t)n;
    return buf;
}

static inline void tu_write_text(const char *path, const char *text)
{
    cf_write_file(path, text, strlen(text));
}

static inline void tu_copy_file(const char *to, const char *from)
{
    size_t n;
    uint8_t *b = tu_read_file(from, &n);
    cf_write_file(to, b, n);
    free(b);
}

/* Overwrites n bytes at offset (the file keeps its size). */
static inline void tu_patch(const char *path, uint64_t offset, const void *bytes, size_t n)
{
    size_t size;
    uint8_t *b = tu_read_file(path, &size);
    assert_true(offset + n <= size);
    memcpy(b + offset, bytes, n);
    cf_write_file(path, b, size);
    free(b);
}

static inline void tu_patch_le32(const char *path, uint64_t offset, uint32_t v)
{
    uint8_t b[4];
    atf_store_le32(b, v);
    tu_patch(path, offset, b, 4);
}

static inline void tu_patch_le64(const char *path, uint64_t offset, uint64_t v)
{
    uint8_t b[8];
    atf_store_le64(b, v);
    tu_patch(path, offset, b, 8);
}

/* Recomputes the footer CRC32-C of a finalized index file after its events
 * were patched, so that the file stays self-consistent. */
static inline void tu_fix_index_crc(const char *path)
{
    size_t size;
    uint8_t *b = tu_read_file(path, &size);
    uint64_t eo = atf_load_le64(b + 32), fo = atf_load_le64(b + 40);
    assert_true(eo <= fo && fo + 64 <= size);
    atf_store_le32(b + fo + 4, atf_crc32c(0, b + eo, (size_t)(fo - eo)));
    cf_write_file(path, b, size);
    free(b);
}

/* Same for a finalized detail file (footer at events_offset + bytes_length). */
static inline void tu_fix_detail_crc(const char *path)
{
    size_t size;
    uint8_t *b = tu_read_file(path, &size);
    uint64_t eo = atf_load_le64(b + 20), len = atf_load_le64(b + 36);
    assert_true(eo + len + 64 <= size);
    atf_store_le32(b + eo + len + 4, atf_crc32c(0, b + eo, (size_t)len));
    cf_write_file(path, b, size);
    free(b);
}

/* A demo session (atf_tool_demo) in dir, new or empty. */
static inline void tu_demo(const char *dir, atf_layout layout, unsigned threads, uint64_t events,
                           unsigned detail_every)
{
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    d.layout = layout;
    d.threads = threads;
    d.events = events;
    d.detail_every = detail_every;
    atf_error err;
    assert_int_equal(atf_tool_demo(dir, &d, &err), ATF_OK);
}

/* Cuts the index file at path as a crash would: @events whole events and
 * @extra bytes of the next. @return its events_offset. */
static inline uint64_t tu_cut_index(const char *path, uint64_t events, size_t extra)
{
    size_t size;
    uint8_t *b = tu_read_file(path, &size);
    atf_index_header h;
    assert_int_equal(atf_index_header_decode(&h, b, size, NULL), ATF_OK);
    assert_true(h.events_offset + events * 32 + extra <= size);
    cf_write_file(path, b, (size_t)(h.events_offset + events * 32 + extra));
    free(b);
    return h.events_offset;
}

/* ---- Output capture ---------------------------------------------------- */

typedef struct tu_capture {
    FILE *f;
    char *buf;
    size_t size;
} tu_capture;

static inline FILE *tu_capture_begin(tu_capture *c)
{
    c->buf = NULL;
    c->size = 0;
    c->f = open_memstream(&c->buf, &c->size);
    assert_non_null(c->f);
    return c->f;
}

/* Closes the stream; the text stays in c->buf until tu_capture_free(). */
static inline const char *tu_capture_end(tu_capture *c)
{
    assert_int_equal(fclose(c->f), 0);
    c->f = NULL;
    return c->buf;
}

static inline void tu_capture_free(tu_capture *c)
{
    free(c->buf);
    c->buf = NULL;
}

/* Splits text into lines in place (each ends in '\n', which is removed).
 * Returns the number of lines; *lines is malloc'd. Fails if the text does
 * not end in '\n' (every dump line must). */
static inline size_t tu_split_lines(char *text, char ***lines)
{
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    assert_non_null(v);
    char *p = text;
    while (*p) {
        char *nl = strchr(p, '\n');
        assert_non_null(nl);
        *nl = '\0';
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[n++] = p;
        p = nl + 1;
    }
    *lines = v;
    return n;
}


/* ---- A session model: what a test writes, to compare with what it reads -- */

#define TU_MAX_THREADS 8
#define TU_MAX_PAYLOAD 160

typedef struct tu_event {
    atf_index_event ev;         /* as appended; detail_seq is the expected link */
    int has_detail;
    atf_detail_event d;         /* payload points into payload[] */
    uint8_t payload[TU_MAX_PAYLOAD];
} tu_event;

typedef struct tu_thread {
    uint64_t id;
    uint32_t os_tid;
    int with_detail;            /* the thread has a detail lane */
    size_t n;
    tu_event *events;
    uint64_t ndetail;
} tu_thread;

typedef struct tu_session {
    atf_layout layout;
    size_t nthreads;
    tu_thread threads[TU_MAX_THREADS];
} tu_session;

/* Deterministic content: timestamps rise (by 0..ts_step-1, so equal
 * timestamps occur when ts_step is small), kinds 1..3, every detail_every-th
 * event of a thread with a detail lane gets a detail event with a random
 * payload of 0..TU_MAX_PAYLOAD bytes. */
static inline void tu_session_generate(tu_session *s, atf_layout layout, size_t nthreads, const uint64_t *ids,
                                       const size_t *counts, const int *with_detail, unsigned detail_every,
                                       uint64_t ts_base, uint64_t ts_step, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    assert_true(nthreads <= TU_MAX_THREADS);
    s->layout = layout;
    s->nthreads = nthreads;
    uint64_t rng = seed;
    for (size_t t = 0; t < nthreads; t++) {
        tu_thread *th = &s->threads[t];
        th->id = ids[t];
        th->os_tid = 4000 + (uint32_t)t;
        th->with_detail = with_detail[t];
        th->n = counts[t];
        th->events = calloc(th->n ? th->n : 1, sizeof *th->events);
        assert_non_null(th->events);
        uint64_t ts = ts_base + t;
        for (size_t i = 0; i < th->n; i++) {
            tu_event *e = &th->events[i];
            uint64_t r = tu_rand(&rng);
            ts += ts_step ? r % ts_step : 0;
            e->ev.timestamp_ns = ts;
            e->ev.function_id = (r >> 20) % 5 == 0 ? (r | 0x8000000000000000ull) : (r >> 32) % 16;
            e->ev.event_kind = 1 + (uint32_t)((r >> 8) % 3);
            e->ev.detail_seq = ATF_NO_DETAIL;
            if (layout == ATF_LAYOUT_1) {
                e->ev.thread_id = th->os_tid;
                e->ev.call_depth = (uint32_t)(r >> 40) % 64;
            }
            if (th->with_detail && detail_every && i % detail_every == 0) {
                e->has_detail = 1;
                e->ev.detail_seq = th->ndetail++;
                e->d.event_type = (uint16_t)(3 + (r >> 12) % 3);
                e->d.flags = (uint16_t)(r >> 16);
                e->d.index_seq = i;
                e->d.thread_id = layout == ATF_LAYOUT_1 ? th->os_tid : 0;
                e->d.timestamp = ts;
                e->d.payload_size = (uint32_t)(tu_rand(&rng) % (TU_MAX_PAYLOAD + 1));
                for (uint32_t k = 0; k < e->d.payload_size; k++)
                    e->payload[k] = (uint8_t)(tu_rand(&rng) >> 32);
                e->d.payload = e->d.payload_size ? e->payload : NULL;
            }
        }
    }
}

static inline void tu_session_free(tu_session *s)
{
    for (size_t t = 0; t < s->nthreads; t++)
        free(s->threads[t].events);
    memset(s, 0, sizeof *s);
}

static inline atf_writer_options tu_writer_options(atf_layout layout)
{
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    o.layout = layout;
    o.arch = ATF_ARCH_ARM64;
    o.os = ATF_OS_IOS;
    o.clock_type = ATF_CLOCK_MACH_CONTINUOUS;
    o.buffer_size = 4096; /* small: exercises buffer flushes */
    return o;
}

/* Writes the model with the session writer; the events' links are left to
 * atf_thread_writer_append (the appended events carry wrong links on purpose).
 * Returns the writer, not finalized, when keep_open; else closes it. */
static inline atf_session_writer *tu_session_write(const tu_session *s, const char *dir, int keep_open)
{
    atf_writer_options o = tu_writer_options(s->layout);
    atf_session_writer *sw = NULL;
    atf_error err;
    atf_status st = atf_session_writer_create(&sw, dir, &o, &err);
    if (st)
        fail_msg("create %s: %s", dir, err.message);
    atf_thread_writer *tw[TU_MAX_THREADS];
    for (size_t t = 0; t < s->nthreads; t++) {
        st = atf_session_writer_add_thread(sw, s->threads[t].id, s->threads[t].os_tid, s->threads[t].with_detail,
                                           &tw[t], &err);
        if (st)
            fail_msg("add_thread: %s", err.message);
    }
    /* Interleave the threads, as a recorder would. */
    size_t max_n = 0;
    for (size_t t = 0; t < s->nthreads; t++)
        if (s->threads[t].n > max_n)
            max_n = s->threads[t].n;
    for (size_t i = 0; i < max_n; i++)
        for (size_t t = 0; t < s->nthreads; t++) {
            const tu_thread *th = &s->threads[t];
            if (i >= th->n)
                continue;
            const tu_event *e = &th->events[i];
            atf_index_event ev = e->ev;
            ev.detail_seq = 12345; /* must be overwritten */
            atf_detail_event d = e->d;
            d.index_seq = 777;     /* must be overwritten */
            uint64_t seq = UINT64_MAX;
            assert_int_equal(atf_thread_writer_append(tw[t], &ev, e->has_detail ? &d : NULL, &seq), ATF_OK);
            assert_int_equal(seq, i);
        }
    if (keep_open)
        return sw;
    assert_int_equal(atf_session_writer_finalize(sw, 1, &err), ATF_OK);
    assert_int_equal(atf_session_writer_close(sw), ATF_OK);
    return NULL;
}

static inline void tu_assert_index_event(const atf_index_event *got, const atf_index_event *want, atf_layout layout)
{
    assert_int_equal(got->timestamp_ns, want->timestamp_ns);
    assert_int_equal(got->function_id, want->function_id);
    assert_int_equal(got->event_kind, want->event_kind);
    assert_true(got->detail_seq == want->detail_seq);
    if (layout == ATF_LAYOUT_1) {
        assert_int_equal(got->thread_id, want->thread_id);
        assert_int_equal(got->call_depth, want->call_depth);
    } else {
        assert_int_equal(got->thread_id, 0);
        assert_int_equal(got->call_depth, 0);
    }
}

static inline void tu_assert_detail_event(const atf_detail_event *got, const atf_detail_event *want)
{
    assert_int_equal(got->total_length, ATF_DETAIL_EVENT_HEADER_SIZE + want->payload_size);
    assert_int_equal(got->event_type, want->event_type);
    assert_int_equal(got->flags, want->flags);
    assert_int_equal(got->index_seq, want->index_seq);
    assert_int_equal(got->thread_id, want->thread_id);
    assert_int_equal(got->timestamp, want->timestamp);
    assert_int_equal(got->payload_size, want->payload_size);
    if (want->payload_size)
        assert_memory_equal(got->payload, want->payload, want->payload_size);
}

/* One thread's files against the model, event by event, links both ways. */
static inline void tu_assert_thread(const tu_thread *th, atf_layout layout, const atf_index_reader *ix,
                                    const atf_detail_reader *dt)
{
    assert_non_null(ix);
    assert_int_equal(atf_index_reader_info(ix)->layout, layout);
    assert_int_equal(atf_index_reader_count(ix), th->n);
    if (th->with_detail) {
        assert_non_null(dt);
        assert_int_equal(atf_detail_reader_info(dt)->layout, layout);
        assert_int_equal(atf_detail_reader_count(dt), th->ndetail);
    } else {
        assert_null(dt);
    }
    for (size_t i = 0; i < th->n; i++) {
        const tu_event *e = &th->events[i];
        atf_index_event got;
        assert_int_equal(atf_index_reader_get(ix, i, &got), ATF_OK);
        tu_assert_index_event(&got, &e->ev, layout);
        if (!e->has_detail)
            continue;
        atf_detail_event d, d2;
        assert_int_equal(atf_detail_reader_get(dt, e->ev.detail_seq, &d), ATF_OK);
        tu_assert_detail_event(&d, &e->d);
        /* Forward and backward navigation agree. */
        assert_int_equal(atf_detail_reader_follow(dt, &got, &d2), ATF_OK);
        assert_int_equal(d2.index_seq, i);
        atf_index_event back;
        assert_int_equal(atf_index_reader_follow(ix, &d, &back), ATF_OK);
        assert_true(back.detail_seq == e->ev.detail_seq);
    }
    atf_index_event past;
    assert_int_equal(atf_index_reader_get(ix, th->n, &past), ATF_E_RANGE);
}

#endif /* ATF_SESSION_TEST_UTIL_H */
