/* Hand-made WTF bytes for the codec's tests (written with the layout tables
 * of conformance/SPEC-WTF.md, not with the codec), and sample files written
 * with the writer. Header-only; include after cmocka.h. */
#ifndef ATF_WTF_BYTES_H
#define ATF_WTF_BYTES_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf/wtf.h>

/* ---- Byte builders (independent of the codec) ------------------------------ */

typedef struct tb {
    uint8_t p[1 << 16];
    size_t n;
} tb;

static inline void put32(tb *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static inline void put_bytes(tb *b, const void *s, size_t n)
{
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static inline void pad4(tb *b)
{
    while (b->n % 4)
        b->p[b->n++] = 0;
}

static inline void file_header(tb *b)
{
    put32(b, 0xDEADBEEFu);
    put32(b, 0x90BA3800u);
    put32(b, 10);
}

/* A chunk of @n parts given as (type, bytes, length). */
static inline void chunk(tb *b, uint32_t type, uint32_t n, const uint32_t *types, const void *const *data, const size_t *lens)
{
    size_t body = 0;
    for (uint32_t i = 0; i < n; i++)
        body += (lens[i] + 3) & ~(size_t)3;
    put32(b, 7);
    put32(b, type);
    put32(b, (uint32_t)(24 + 12 * n + body));
    put32(b, 0xFFFFFFFFu);
    put32(b, 0xFFFFFFFFu);
    put32(b, n);
    size_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        put32(b, types[i]);
        put32(b, (uint32_t)off);
        put32(b, (uint32_t)lens[i]);
        off += (lens[i] + 3) & ~(size_t)3;
    }
    for (uint32_t i = 0; i < n; i++) {
        put_bytes(b, data[i], lens[i]);
        pad4(b);
    }
}

static const char header_json[] __attribute__((unused)) =
    "{\"type\":\"file_header\",\"flags\":[\"has_high_resolution_times\"],\"timebase\":1000.5,"
    "\"contextInfo\":{\"contextType\":\"script\",\"uri\":\"file:///t\"}}";

static inline void header_chunk(tb *b)
{
    uint32_t t = 0x10000;
    const void *d = header_json;
    size_t l = strlen(header_json);
    chunk(b, 1, 1, &t, &d, &l);
}

/* An event chunk: strings "wtf.event#define"-free; defines wire 2 as
 * app#s(uint32 n, ascii s, int16[] v) then one event of it. */
static inline void event_chunk(tb *b, uint32_t n_value)
{
    static const char strs[] = "app#s\0uint32 n, ascii s, int16[] v\0hello\0";
    tb ev = { { 0 }, 0 };
    /* define: wire 1, time 5, wireId 2 class 1 flags 0, name 0, args 1 */
    put32(&ev, 1);
    put32(&ev, 5);
    put32(&ev, 2);
    put32(&ev, 1);
    put32(&ev, 0);
    put32(&ev, 0);
    put32(&ev, 1);
    /* the event: wire 2, time 9, n, s = ordinal 2, v = [-2, 3, 7] */
    put32(&ev, 2);
    put32(&ev, 9);
    put32(&ev, n_value);
    put32(&ev, 2);
    put32(&ev, 3);
    uint8_t v[8] = { 0xFE, 0xFF, 3, 0, 7, 0, 0, 0 };
    put_bytes(&ev, v, 8);
    uint32_t types[2] = { 0x30000, 0x20002 };
    const void *data[2] = { strs, ev.p };
    size_t lens[2] = { sizeof strs - 1, ev.n };
    chunk(b, 2, 2, types, data, lens);
}

static inline tb small_file(void)
{
    tb b = { { 0 }, 0 };
    file_header(&b);
    header_chunk(&b);
    event_chunk(&b, 42);
    return b;
}

/* ---- Writer ---------------------------------------------------------------------- */

static inline char *tmp_path(void)
{
    static char p[64];
    snprintf(p, sizeof p, "/tmp/test_wtf_%d.wtf-trace", (int)getpid());
    return p;
}

static inline uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long k = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)k + 1);
    assert_int_equal(fread(p, 1, (size_t)k, f), (size_t)k);
    fclose(f);
    *n = (size_t)k;
    return p;
}

/* Writes @count scope events over several chunks in two zones. */
static inline void write_sample(const char *path, uint32_t count, uint32_t chunk_bytes)
{
    atf_wtf_writer *w;
    atf_error e;
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.chunk_bytes = chunk_bytes;
    o.timebase_ms = 1234.5;
    assert_int_equal(atf_wtf_writer_open(&w, path, &o, &e), ATF_OK);
    uint16_t scope, inst;
    assert_int_equal(atf_wtf_writer_define(w, "app#work", "uint32 i, utf8 label, float32[] xs, bool odd", 1, 0, &scope, &e),
                     ATF_OK);
    assert_int_equal(atf_wtf_writer_define(w, "app#tick", "", 0, 0, &inst, &e), ATF_OK);
    uint16_t again;
    assert_int_equal(atf_wtf_writer_define(w, "app#tick", "", 0, 0, &again, &e), ATF_OK);
    assert_int_equal(again, inst);
    assert_int_equal(atf_wtf_writer_define(w, "app#tick", "uint8 x", 0, 0, &again, &e), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_zone_create(w, 1, "main", "script", "here", 0, &e), ATF_OK);
    assert_int_equal(atf_wtf_writer_zone_create(w, 2, "worker", "script", NULL, 0, &e), ATF_OK);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t t = 10 + 3 * i;
        assert_int_equal(atf_wtf_writer_zone_set(w, (uint16_t)(1 + i % 2), t, &e), ATF_OK);
        float xs[3] = { (float)i, 0.5f, -1.0f };
        char label[32];
        snprintf(label, sizeof label, "item %u", (unsigned)(i % 7));
        atf_wtf_value v[4];
        memset(v, 0, sizeof v);
        v[0].type = ATF_WTF_UINT32;
        v[0].u = i;
        v[1].type = ATF_WTF_UTF8;
        v[1].s = label;
        v[1].s_len = (uint32_t)strlen(label);
        v[2].type = ATF_WTF_FLOAT32;
        v[2].array = 1;
        v[2].count = i % 4;
        v[2].elems = (const uint8_t *)xs;
        v[3].type = ATF_WTF_BOOL;
        v[3].u = i & 1;
        assert_int_equal(atf_wtf_writer_event(w, scope, t, v, 4, &e), ATF_OK);
        assert_int_equal(atf_wtf_writer_event(w, inst, t + 1, NULL, 0, &e), ATF_OK);
        assert_int_equal(atf_wtf_writer_append_data(w, "k", "{\"a\":[1,2]}", t + 1, &e), ATF_OK);
        assert_int_equal(atf_wtf_writer_scope_leave(w, t + 2, &e), ATF_OK);
    }
    assert_int_equal(atf_wtf_writer_close(w, &e), ATF_OK);
}

#endif /* ATF_WTF_BYTES_H */
