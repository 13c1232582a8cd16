/* The WTF codec: each structure parser against hand-made bytes (written here
 * with the layout tables of conformance/SPEC-WTF.md, not with the codec),
 * the writer read back by the reader, crash recovery at every cut of a
 * written file, and the reader's answers on damage. */
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

static void put32(tb *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(tb *b, const void *s, size_t n)
{
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void pad4(tb *b)
{
    while (b->n % 4)
        b->p[b->n++] = 0;
}

static void file_header(tb *b)
{
    put32(b, 0xDEADBEEFu);
    put32(b, 0x90BA3800u);
    put32(b, 10);
}

/* A chunk of @n parts given as (type, bytes, length). */
static void chunk(tb *b, uint32_t type, uint32_t n, const uint32_t *types, const void *const *data, const size_t *lens)
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

static const char header_json[] =
    "{\"type\":\"file_header\",\"flags\":[\"has_high_resolution_times\"],\"timebase\":1000.5,"
    "\"contextInfo\":{\"contextType\":\"script\",\"uri\":\"file:///t\"}}";

static void header_chunk(tb *b)
{
    uint32_t t = 0x10000;
    const void *d = header_json;
    size_t l = strlen(header_json);
    chunk(b, 1, 1, &t, &d, &l);
}

/* An event chunk: strings "wtf.event#define"-free; defines wire 2 as
 * app#s(uint32 n, ascii s, int16[] v) then one event of it. */
static void event_chunk(tb *b, uint32_t n_value)
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

/* ---- Parsers ------------------------------------------------------------------ */

static void test_file_header(void **state)
{
    (void)state;
    tb b = { { 0 }, 0 };
    file_header(&b);
    atf_wtf_file_header h;
    atf_error e;
    assert_int_equal(atf_wtf_parse_file_header(b.p, 12, &h, &e), ATF_OK);
    assert_int_equal(h.wtf_version, 0x90BA3800u);
    assert_int_equal(h.format_version, 10);
    assert_int_equal(atf_wtf_parse_file_header(b.p, 11, &h, &e), ATF_E_TRUNCATED);
    b.p[8] = 3;
    assert_int_equal(atf_wtf_parse_file_header(b.p, 12, &h, &e), ATF_E_VERSION);
    assert_int_equal(e.offset, 8);
    uint8_t legacy[12] = { 0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 1, 0, 0, 0, 3 };
    assert_int_equal(atf_wtf_parse_file_header(legacy, 12, &h, &e), ATF_E_UNSUPPORTED);
    assert_non_null(strstr(e.message, "legacy"));
    assert_int_equal(atf_wtf_parse_file_header("  {\"wtf_version\":1}", 19, &h, &e), ATF_E_UNSUPPORTED);
    assert_non_null(strstr(e.message, "JSON"));
    assert_int_equal(atf_wtf_parse_file_header("ATI2xxxxyyyy", 12, &h, &e), ATF_E_MAGIC);
}

static void test_chunk_parse(void **state)
{
    (void)state;
    tb b = { { 0 }, 0 };
    event_chunk(&b, 1);
    atf_wtf_chunk c;
    atf_error e;
    assert_int_equal(atf_wtf_parse_chunk(b.p, b.n, 100, &c, &e), ATF_OK);
    assert_int_equal(c.type, 2);
    assert_int_equal(c.length, b.n);
    assert_int_equal(c.part_count, 2);
    assert_int_equal(c.parts[0].type, 0x30000);
    assert_int_equal(c.parts[1].file_offset, 100 + 24 + 24 + c.parts[1].offset);
    /* Cut in the header and in the table: truncated. */
    assert_int_equal(atf_wtf_parse_chunk(b.p, 20, 0, &c, &e), ATF_E_TRUNCATED);
    assert_int_equal(atf_wtf_parse_chunk(b.p, 30, 0, &c, &e), ATF_E_TRUNCATED);
    /* A length not a multiple of 4 parses (the reader reads that chunk and
     * stops after it: the reader test below); one shorter than its table does not. */
    tb x = b;
    x.p[8] = (uint8_t)(x.p[8] + 2);
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_OK);
    assert_int_equal(c.length % 4, 2);
    x = b;
    memset(x.p + 8, 0, 4);
    x.p[8] = 40;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_LENGTH);
    assert_string_equal(e.field, "chunk.length");
    /* A misaligned part, a part outside the chunk, overlapping parts, too many parts. */
    x = b;
    x.p[24 + 4] = 2;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_OFFSET);
    x = b;
    x.p[24 + 12 + 8] = 0xF0;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_OFFSET);
    x = b;
    memcpy(x.p + 24 + 12 + 4, x.p + 24 + 4, 4);
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_OFFSET);
    assert_non_null(strstr(e.message, "overlap"));
    x = b;
    x.p[20] = 65;
    assert_int_equal(atf_wtf_parse_chunk(x.p, x.n, 0, &c, &e), ATF_E_LIMIT);
}

static void test_signature(void **state)
{
    (void)state;
    atf_wtf_def d;
    char names[128];
    atf_error e;
    const char *s = "uint32 n,ascii  s , float32[] v, wchar w";
    assert_int_equal(atf_wtf_parse_signature(s, strlen(s), &d, names, sizeof names, &e), ATF_OK);
    assert_int_equal(d.arg_count, 4);
    assert_string_equal(d.args[1].name, "s");
    assert_int_equal(d.args[2].type, ATF_WTF_FLOAT32);
    assert_int_equal(d.args[2].array, 1);
    assert_int_equal(d.args[3].type, ATF_WTF_WCHAR);
    assert_int_equal(atf_wtf_parse_signature("", 0, &d, names, sizeof names, &e), ATF_OK);
    assert_int_equal(d.arg_count, 0);
    const char *bad[] = { "uint64 x", "uint32", "uint32 n n2", "uint32 n, uint8 n", "uint32 n,", "int8[ x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(atf_wtf_parse_signature(bad[i], strlen(bad[i]), &d, names, sizeof names, &e), ATF_E_FIELD);
    char many[2048] = "";
    for (int i = 0; i < 65; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%suint8 a%d", i ? ", " : "", i);
    char big[2048];
    assert_int_equal(atf_wtf_parse_signature(many, strlen(many), &d, big, sizeof big, &e), ATF_E_LIMIT);
}

static void test_strings(void **state)
{
    (void)state;
    atf_wtf_strings st;
    atf_error e;
    const char t[] = "a\0\0bc\0d";
    assert_int_equal(atf_wtf_strings_init(&st, t, sizeof t - 1, &e), ATF_OK);
    assert_int_equal(st.count, 3);
    assert_int_equal(st.unterminated, 1);
    const char *s;
    uint32_t n;
    assert_int_equal(atf_wtf_strings_get(&st, 2, &s, &n), ATF_OK);
    assert_string_equal(s, "bc");
    assert_int_equal(n, 2);
    assert_int_equal(atf_wtf_strings_get(&st, 1, &s, &n), ATF_OK);
    assert_int_equal(n, 0);
    assert_int_equal(atf_wtf_strings_get(&st, 3, &s, &n), ATF_E_RANGE);
    assert_int_equal(atf_wtf_strings_get(&st, ATF_WTF_STRING_NULL, &s, &n), ATF_OK);
    assert_null(s);
    assert_int_equal(atf_wtf_strings_get(&st, ATF_WTF_STRING_EMPTY, &s, &n), ATF_OK);
    assert_string_equal(s, "");
    atf_wtf_strings_free(&st);
}

/* ---- The reader on hand-made files -------------------------------------------- */

static tb small_file(void)
{
    tb b = { { 0 }, 0 };
    file_header(&b);
    header_chunk(&b);
    event_chunk(&b, 42);
    return b;
}

static void test_reader_hand_made(void **state)
{
    (void)state;
    tb b = small_file();
    atf_wtf_reader *r;
    atf_error e;
    assert_int_equal(atf_wtf_reader_open_memory(&r, b.p, b.n, "t.wtf-trace", &e), ATF_OK);
    assert_true(atf_wtf_reader_timebase(r) == 1000.5);
    assert_int_equal(atf_wtf_reader_file_flags(r), ATF_WTF_FILE_HIGH_RES_TIMES);
    const atf_wtf_chunk *c;
    atf_wtf_event ev;
    assert_int_equal(atf_wtf_reader_next_chunk(r, &c, &e), ATF_OK);
    assert_int_equal(c->type, 1);
    assert_int_equal(atf_wtf_reader_next_event(r, &ev, &e), ATF_E_NOT_FOUND);
    assert_int_equal(atf_wtf_reader_next_chunk(r, &c, &e), ATF_OK);
    assert_int_equal(atf_wtf_reader_next_event(r, &ev, &e), ATF_OK);
    assert_string_equal(ev.def->name, "wtf.event#define");
    assert_int_equal(atf_wtf_reader_next_event(r, &ev, &e), ATF_OK);
    assert_string_equal(ev.def->name, "app#s");
    assert_int_equal(ev.time, 9);
    assert_int_equal(ev.depth, 0);
    atf_wtf_value v, el;
    assert_int_equal(atf_wtf_event_arg(r, &ev, 0, &v, &e), ATF_OK);
    assert_int_equal(v.u, 42);
    assert_int_equal(atf_wtf_event_arg(r, &ev, 1, &v, &e), ATF_OK);
    assert_string_equal(v.s, "hello");
    assert_int_equal(atf_wtf_event_arg(r, &ev, 2, &v, &e), ATF_OK);
    assert_int_equal(v.count, 3);
    assert_int_equal(atf_wtf_array_elem(&v, 0, NULL, &el), ATF_OK);
    assert_int_equal(el.i, -2);
    assert_int_equal(atf_wtf_array_elem(&v, 2, NULL, &el), ATF_OK);
    assert_int_equal(el.i, 7);
    assert_int_equal(atf_wtf_reader_next_event(r, &ev, &e), ATF_E_NOT_FOUND);
    assert_int_equal(atf_wtf_reader_next_chunk(r, &c, &e), ATF_E_NOT_FOUND);
    atf_wtf_summary s;
    atf_wtf_reader_summary(r, &s);
    assert_int_equal(s.state, ATF_WTF_COMPLETE);
    assert_int_equal(s.events, 2);
    assert_int_equal(s.chunks, 2);
    atf_wtf_reader_close(r);
}

/* Reads every event of a file; returns the count, and the summary. */
static uint64_t read_all(const void *p, size_t n, atf_wtf_summary *s)
{
    atf_wtf_reader *r;
    atf_error e;
    if (atf_wtf_reader_open_memory(&r, p, n, "t", &e) != ATF_OK) {
        memset(s, 0, sizeof *s);
        s->state = ATF_WTF_DAMAGED;
        return 0;
    }
    const atf_wtf_chunk *c;
    atf_wtf_event ev;
    uint64_t k = 0;
    atf_status cs;
    while ((cs = atf_wtf_reader_next_chunk(r, &c, &e)) != ATF_E_NOT_FOUND) {
        if (cs != ATF_OK)
            continue;   /* a chunk skipped: the reader goes on when the bytes allow */
        atf_status st;
        while ((st = atf_wtf_reader_next_event(r, &ev, &e)) == ATF_OK) {
            for (size_t i = 0; i < ev.def->arg_count; i++) {
                atf_wtf_value v;
                assert_int_equal(atf_wtf_event_arg(r, &ev, i, &v, &e), ATF_OK);
            }
            k++;
        }
    }
    atf_wtf_reader_summary(r, s);
    atf_wtf_reader_close(r);
    return k;
}

static void test_reader_damage(void **state)
{
    (void)state;
    tb b = small_file();
    atf_wtf_summary s;
    size_t ev_at = b.n - 8 - 20 - 28;   /* the define event (7 u32) starts 28 bytes before the event */
    /* An undefined wire id: the chunk stops there, damaged. */
    tb x = b;
    x.p[ev_at + 28] = 9;
    assert_int_equal(read_all(x.p, x.n, &s), 1);
    assert_int_equal(s.state, ATF_WTF_DAMAGED);
    assert_int_equal(s.chunks_skipped, 1);
    assert_string_equal(s.first_damage.field, "event.wire_id");
    /* A string ordinal past the table. */
    x = b;
    x.p[ev_at + 28 + 12] = 3;
    assert_int_equal(read_all(x.p, x.n, &s), 1);
    assert_int_equal(s.first_damage.code, ATF_E_RANGE);
    /* An array length below -1. */
    x = b;
    memset(x.p + ev_at + 28 + 16, 0xFE, 4);
    x.p[ev_at + 28 + 16] = 0xF0;
    assert_int_equal(read_all(x.p, x.n, &s), 1);
    assert_int_equal(s.first_damage.code, ATF_E_LENGTH);
    /* A chunk length not a multiple of 4: that chunk is read, nothing after it. */
    x = b;
    x.p[12 + 8] = (uint8_t)(x.p[12 + 8] + 1);
    assert_int_equal(read_all(x.p, x.n, &s), 0);
    assert_int_equal(s.state, ATF_WTF_DAMAGED);
    assert_int_equal(s.chunks, 1);
    /* A broken part table in the header chunk (a misaligned part): that chunk
     * is skipped, the event chunk after it is read. */
    x = b;
    x.p[12 + 24 + 4] = 2;
    assert_int_equal(read_all(x.p, x.n, &s), 2);
    assert_int_equal(s.state, ATF_WTF_DAMAGED);
    assert_int_equal(s.chunks_skipped, 1);
    /* The event chunk's length made to run past the end, with bytes after its parts: a wrong length, not a cut. */
    x = b;
    size_t second = 12 + (size_t)(x.p[12 + 8] | (x.p[12 + 9] << 8));
    x.p[second + 9] = (uint8_t)(x.p[second + 9] + 1);
    memset(x.p + x.n, 0xAB, 16);
    assert_int_equal(read_all(x.p, x.n + 16, &s), 2);
    assert_int_equal(s.state, ATF_WTF_DAMAGED);
    assert_int_equal(s.bytes_unread, 16);
    /* Zeros after the last chunk: a crash left them. */
    x = b;
    memset(x.p + x.n, 0, 64);
    assert_int_equal(read_all(x.p, x.n + 64, &s), 2);
    assert_int_equal(s.state, ATF_WTF_CRASH_TRUNCATED);
    assert_int_equal(s.bytes_unread, 64);
}

/* ---- Writer ---------------------------------------------------------------------- */

static char *tmp_path(void)
{
    static char p[64];
    snprintf(p, sizeof p, "/tmp/test_wtf_%d.wtf-trace", (int)getpid());
    return p;
}

static uint8_t *slurp(const char *path, size_t *n)
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
static void write_sample(const char *path, uint32_t count, uint32_t chunk_bytes)
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

static void test_writer_round_trip(void **state)
{
    (void)state;
    const char *path = tmp_path();
    write_sample(path, 300, 2048);
    size_t n;
    uint8_t *p = slurp(path, &n);
    atf_wtf_reader *r;
    atf_error e;
    assert_int_equal(atf_wtf_reader_open_memory(&r, p, n, path, &e), ATF_OK);
    assert_true(atf_wtf_reader_timebase(r) == 1234.5);
    const atf_wtf_chunk *c;
    atf_wtf_event ev;
    uint32_t next = 0, chunks = 0, leaves = 0;
    while (atf_wtf_reader_next_chunk(r, &c, &e) == ATF_OK) {
        chunks++;
        if (c->type == 2) {
            /* Chunks stand alone: their times are set and their first events are defines and zones. */
            assert_true(c->start_time <= c->end_time);
        }
        while (atf_wtf_reader_next_event(r, &ev, &e) == ATF_OK) {
            if (strcmp(ev.def->name, "wtf.scope#leave") == 0) {
                assert_int_equal(ev.depth, 0);
                leaves++;
            }
            if (strcmp(ev.def->name, "app#work") != 0)
                continue;
            atf_wtf_value v, el;
            assert_int_equal(atf_wtf_event_arg(r, &ev, 0, &v, &e), ATF_OK);
            assert_int_equal(v.u, next);
            assert_int_equal(ev.time, 10 + 3 * next);
            assert_int_equal(ev.zone, 1 + (int)(next % 2));
            assert_int_equal(atf_wtf_event_arg(r, &ev, 1, &v, &e), ATF_OK);
            char label[32];
            snprintf(label, sizeof label, "item %u", (unsigned)(next % 7));
            assert_string_equal(v.s, label);
            assert_int_equal(atf_wtf_event_arg(r, &ev, 2, &v, &e), ATF_OK);
            assert_int_equal(v.count, next % 4);
            if (v.count) {
                assert_int_equal(atf_wtf_array_elem(&v, 0, NULL, &el), ATF_OK);
                assert_true(el.f == (double)next);
            }
            assert_int_equal(atf_wtf_event_arg(r, &ev, 3, &v, &e), ATF_OK);
            assert_int_equal(v.u, next & 1);
            next++;
        }
    }
    atf_wtf_summary s;
    atf_wtf_reader_summary(r, &s);
    assert_int_equal(s.state, ATF_WTF_COMPLETE);
    assert_int_equal(next, 300);
    assert_int_equal(leaves, 300);
    assert_true(chunks > 10);
    atf_wtf_reader_close(r);
    free(p);
    unlink(path);
}

/* Every cut of a written file: crash-truncated (or complete at a chunk
 * boundary), never damaged, and the events read are a prefix of the whole
 * file's that grows with the cut. */
static void test_every_cut(void **state)
{
    (void)state;
    const char *path = tmp_path();
    write_sample(path, 40, 512);
    size_t n;
    uint8_t *p = slurp(path, &n);
    atf_wtf_summary whole;
    uint64_t all = read_all(p, n, &whole);
    assert_int_equal(whole.state, ATF_WTF_COMPLETE);
    uint64_t prev = 0;
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *q = malloc(cut + 1);
        memcpy(q, p, cut);
        atf_wtf_summary s;
        uint64_t k = read_all(q, cut, &s);
        if (s.state == ATF_WTF_DAMAGED)
            fail_msg("cut at %zu of %zu: damaged (%s)", cut, n, s.first_damage.message);
        assert_true(k >= prev);
        assert_true(k <= all);
        assert_true(s.state == ATF_WTF_CRASH_TRUNCATED || s.bytes_unread == 0);
        prev = k;
        free(q);
    }
    free(p);
    unlink(path);
}

static void test_writer_errors(void **state)
{
    (void)state;
    atf_wtf_writer *w;
    atf_error e;
    assert_int_equal(atf_wtf_writer_open(&w, "/nonexistent-dir/x.wtf-trace", NULL, &e), ATF_E_IO);
    const char *path = tmp_path();
    assert_int_equal(atf_wtf_writer_open(&w, path, NULL, &e), ATF_OK);
    uint16_t id;
    assert_int_equal(atf_wtf_writer_define(w, "a#b", "uint64 x", 0, 0, &id, &e), ATF_E_FIELD);
    assert_int_equal(atf_wtf_writer_define(w, "a#b", "uint8 x", 2, 0, &id, &e), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_define(w, "a#b", "uint8 x", 0, 0, &id, &e), ATF_OK);
    atf_wtf_value v;
    memset(&v, 0, sizeof v);
    v.type = ATF_WTF_ASCII;   /* wrong type */
    assert_int_equal(atf_wtf_writer_event(w, id, 0, &v, 1, &e), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_event(w, 77, 0, &v, 1, &e), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_zone_set(w, 3, 0, &e), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_close(w, &e), ATF_OK);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_header),     cmocka_unit_test(test_chunk_parse),
        cmocka_unit_test(test_signature),       cmocka_unit_test(test_strings),
        cmocka_unit_test(test_reader_hand_made), cmocka_unit_test(test_reader_damage),
        cmocka_unit_test(test_writer_round_trip), cmocka_unit_test(test_every_cut),
        cmocka_unit_test(test_writer_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
