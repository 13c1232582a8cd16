/* atf-wtf-samples OUTDIR: small WTF files written by our writer
 * (atf_wtf_writer_*), the same bytes on every run: seeds of the WTF fuzz
 * targets (fuzz/gen_seeds.py) and valid cases of the truncation check
 * (fuzz/truncation/, cut at every byte).
 *
 *   empty.wtf-trace          no event: the file header and its chunk
 *   one_event.wtf-trace      one event with one argument
 *   types.wtf-trace          every argument type, scalar and array, at the
 *                            edges of its range; null, empty and non-ASCII
 *                            strings; null and empty arrays
 *   zones_scopes.wtf-trace   two zones, nested scopes left and re-entered,
 *                            appendData, timeStamp, every scope closed
 *   rotating.wtf-trace       small chunks: zones, definitions and scopes
 *                            running across chunk boundaries
 *
 * Exit status 0, or 1 with a message when the writer fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/wtf.h>

static const char *outdir;

#define TRY(call)                                                                          \
    do {                                                                                   \
        if ((call) != ATF_OK) {                                                            \
            fprintf(stderr, "atf-wtf-samples: %s:%d: %s failed\n", __FILE__, __LINE__, #call); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static atf_wtf_writer *open_sample(const char *name, uint32_t chunk_bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.wtf-trace", outdir, name);
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.chunk_bytes = chunk_bytes;
    o.timebase_ms = 1436947200000.5;
    o.context_uri = "file:///samples/sample.js";
    o.context_title = name;
    o.high_res_times = 1;
    atf_wtf_writer *w = NULL;
    TRY(atf_wtf_writer_open(&w, path, &o, NULL));
    return w;
}

/* A number: unsigned types read .u, signed ones .i. */
static atf_wtf_value num(atf_wtf_type t, uint64_t u, int64_t i)
{
    atf_wtf_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.u = u;
    v.i = i;
    return v;
}
#define u32v(t, u) num(t, u, 0)
#define i64v(t, i) num(t, 0, i)

static atf_wtf_value strv(atf_wtf_type t, const char *s)
{
    atf_wtf_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.s = s;
    v.s_len = s ? (uint32_t)strlen(s) : 0;
    return v;
}

static atf_wtf_value arrv(atf_wtf_type t, const void *elems, uint32_t count, int null)
{
    atf_wtf_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.array = 1;
    v.is_null = (unsigned)null;
    v.count = count;
    v.elems = (const uint8_t *)elems;
    return v;
}

static void sample_empty(void)
{
    TRY(atf_wtf_writer_close(open_sample("empty", 0), NULL));
}

static void sample_one_event(void)
{
    atf_wtf_writer *w = open_sample("one_event", 0);
    uint16_t wire;
    TRY(atf_wtf_writer_define(w, "app#tick", "uint32 n", ATF_WTF_CLASS_INSTANCE, 0, &wire, NULL));
    atf_wtf_value v = u32v(ATF_WTF_UINT32, 42);
    TRY(atf_wtf_writer_event(w, wire, 10, &v, 1, NULL));
    TRY(atf_wtf_writer_close(w, NULL));
}

static void sample_types(void)
{
    atf_wtf_writer *w = open_sample("types", 0);
    uint16_t ints, strs, arrays, chars, strarrays;
    TRY(atf_wtf_writer_define(w, "types#ints",
                              "bool b, int8 i8, uint8 u8, int16 i16, uint16 u16, int32 i32, uint32 u32, float32 f, "
                              "flowId flow, time32 t",
                              ATF_WTF_CLASS_INSTANCE, 0, &ints, NULL));
    TRY(atf_wtf_writer_define(w, "types#strings", "ascii a, utf8 u, any j", ATF_WTF_CLASS_INSTANCE, 0, &strs, NULL));
    TRY(atf_wtf_writer_define(w, "types#arrays", "int8[] i8, uint8[] u8, int16[] i16, uint16[] u16, int32[] i32, "
                              "uint32[] u32, float32[] f, bool[] b",
                              ATF_WTF_CLASS_INSTANCE, 0, &arrays, NULL));
    TRY(atf_wtf_writer_define(w, "types#chars", "char c, wchar w, char[] cs, wchar[] ws", ATF_WTF_CLASS_INSTANCE, 0,
                              &chars, NULL));
    TRY(atf_wtf_writer_define(w, "types#stringArrays", "ascii[] a, any[] j", ATF_WTF_CLASS_INSTANCE, 0, &strarrays,
                              NULL));
    uint32_t t = 100;
    for (int edge = 0; edge < 3; edge++) {
        int lo = edge == 0, hi = edge == 1;
        atf_wtf_value v[10] = {
            u32v(ATF_WTF_BOOL, hi), i64v(ATF_WTF_INT8, lo ? -128 : hi ? 127 : 0),
            u32v(ATF_WTF_UINT8, hi ? 255 : 0), i64v(ATF_WTF_INT16, lo ? -32768 : hi ? 32767 : -1),
            u32v(ATF_WTF_UINT16, hi ? 65535 : 1), i64v(ATF_WTF_INT32, lo ? INT32_MIN : hi ? INT32_MAX : 7),
            u32v(ATF_WTF_UINT32, hi ? UINT32_MAX : 0), u32v(ATF_WTF_FLOAT32, 0),
            u32v(ATF_WTF_FLOWID, hi ? 0xFFFFFFFEu : 3), u32v(ATF_WTF_TIME32, lo ? 0 : 123456),
        };
        v[7].f = lo ? -0.0 : hi ? 3.4028234663852886e38 : 1.0 / 3.0;
        TRY(atf_wtf_writer_event(w, ints, t++, v, 10, NULL));
    }
    const char *a[] = { "ascii text", "", NULL };
    const char *u[] = { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "x", NULL };
    const char *j[] = { "{\"k\":[1,2.5,\"s\"],\"n\":null}", "-1e-7", NULL };
    for (int i = 0; i < 3; i++) {
        atf_wtf_value v[3] = { strv(ATF_WTF_ASCII, a[i]), strv(ATF_WTF_UTF8, u[i]), strv(ATF_WTF_ANY, j[i]) };
        TRY(atf_wtf_writer_event(w, strs, t++, v, 3, NULL));
    }
    const int8_t i8[] = { -128, 0, 127 };
    const uint8_t u8[] = { 0, 1, 2, 255, 7 };
    const int16_t i16[] = { -32768, 1, 32767 };
    const uint16_t u16[] = { 65535 };
    const int32_t i32[] = { INT32_MIN, -1, 0, INT32_MAX };
    const uint32_t u32[] = { 0, UINT32_MAX };
    const float f[] = { 0.5f, -1e-30f, 1e30f };
    const uint8_t b[] = { 1, 0, 1 };
    atf_wtf_value full[8] = { arrv(ATF_WTF_INT8, i8, 3, 0),   arrv(ATF_WTF_UINT8, u8, 5, 0),
                              arrv(ATF_WTF_INT16, i16, 3, 0), arrv(ATF_WTF_UINT16, u16, 1, 0),
                              arrv(ATF_WTF_INT32, i32, 4, 0), arrv(ATF_WTF_UINT32, u32, 2, 0),
                              arrv(ATF_WTF_FLOAT32, f, 3, 0), arrv(ATF_WTF_BOOL, b, 3, 0) };
    TRY(atf_wtf_writer_event(w, arrays, t++, full, 8, NULL));
    atf_wtf_value none[8];
    for (int i = 0; i < 8; i++)
        none[i] = arrv(full[i].type, NULL, 0, i % 2);   /* empty and null arrays */
    TRY(atf_wtf_writer_event(w, arrays, t++, none, 8, NULL));
    const uint8_t cs[] = { 'h', 'i', '"', 0xE9 };
    const uint16_t ws[] = { 0x3A9, 0xD83D, 0xDE00 };
    atf_wtf_value c[4] = { u32v(ATF_WTF_CHAR, 'A'), u32v(ATF_WTF_WCHAR, 0x20AC), arrv(ATF_WTF_CHAR, cs, 4, 0),
                           arrv(ATF_WTF_WCHAR, ws, 3, 0) };
    TRY(atf_wtf_writer_event(w, chars, t++, c, 4, NULL));
    const char *sa[] = { "one", "", NULL, "two" };
    const char *sj[] = { "1", "[true,false]", NULL };
    atf_wtf_value s[2] = { arrv(ATF_WTF_ASCII, sa, 4, 0), arrv(ATF_WTF_ANY, sj, 3, 0) };
    TRY(atf_wtf_writer_event(w, strarrays, t++, s, 2, NULL));
    TRY(atf_wtf_writer_close(w, NULL));
}

/* Scopes in two zones: enter (a scope-class event), leave, data. */
static void scopes(atf_wtf_writer *w, uint16_t scope, uint16_t mark, int rounds, uint32_t *t)
{
    for (int i = 0; i < rounds; i++) {
        uint16_t zone = (uint16_t)(1 + i % 2);
        TRY(atf_wtf_writer_zone_set(w, zone, (*t)++, NULL));
        atf_wtf_value name = strv(ATF_WTF_ASCII, i % 3 ? "outer" : "work item");
        TRY(atf_wtf_writer_event(w, scope, (*t)++, &name, 1, NULL));
        name = strv(ATF_WTF_ASCII, "inner");
        TRY(atf_wtf_writer_event(w, scope, (*t)++, &name, 1, NULL));
        TRY(atf_wtf_writer_append_data(w, "count", i % 2 ? "{\"n\":3}" : "17", (*t)++, NULL));
        atf_wtf_value n = u32v(ATF_WTF_UINT32, (uint64_t)i);
        TRY(atf_wtf_writer_event(w, mark, (*t)++, &n, 1, NULL));
        TRY(atf_wtf_writer_scope_leave(w, (*t)++, NULL));
        TRY(atf_wtf_writer_time_stamp(w, "between", i % 2 ? NULL : "\"s\"", (*t)++, NULL));
        TRY(atf_wtf_writer_scope_leave(w, (*t)++, NULL));
    }
}

static void sample_zones(const char *name, uint32_t chunk_bytes, int rounds)
{
    atf_wtf_writer *w = open_sample(name, chunk_bytes);
    uint32_t t = 1000;
    TRY(atf_wtf_writer_zone_create(w, 1, "Script", "script", "file:///samples/sample.js", t++, NULL));
    TRY(atf_wtf_writer_zone_create(w, 2, "Worker", "worker", NULL, t++, NULL));
    uint16_t scope, mark;
    TRY(atf_wtf_writer_define(w, "app#scope", "ascii name", ATF_WTF_CLASS_SCOPE, 0, &scope, NULL));
    TRY(atf_wtf_writer_define(w, "app#mark", "uint32 i", ATF_WTF_CLASS_INSTANCE, ATF_WTF_FLAG_HIGH_FREQUENCY, &mark,
                              NULL));
    scopes(w, scope, mark, rounds, &t);
    TRY(atf_wtf_writer_close(w, NULL));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: atf-wtf-samples OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    sample_empty();
    sample_one_event();
    sample_types();
    sample_zones("zones_scopes", 0, 6);
    sample_zones("rotating", 700, 8);
    return 0;
}
