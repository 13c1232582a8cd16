/* wtf_write_scenarios OUTDIR: writes WTF traces with this project's writer
 * (atf/wtf.h) for the interop tests, which read them back with the
 * reference library (npm tracing-framework) and compare every event:
 *
 *   types.wtf-trace    one scope per argument type, arrays included, nested
 *   zones.wtf-trace    three zones, events switching between them
 *   chunks.wtf-trace   2,000 scopes in 1 KiB chunks (every chunk stands alone)
 *   stamps.wtf-trace   instance events, time stamps, appended scope data
 *   rotating.wtf-trace two zones, nested scopes and data in 1 KiB chunks,
 *                      a few KiB: small enough to be cut at every byte
 *                      (fuzz/truncation) and a seed of the fuzz targets
 *
 * Prints one line per file: its name and the number of events written.
 * Exit 0, or 1 with a message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/wtf.h>

#define CHECK(x)                                                                                                   \
    do {                                                                                                           \
        atf_status s_ = (x);                                                                                       \
        if (s_ != ATF_OK) {                                                                                        \
            char line_[600];                                                                                       \
            atf_error_format(line_, sizeof line_, &e);                                                            \
            fprintf(stderr, "wtf_write_scenarios: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, line_);                \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

static atf_error e;

static atf_wtf_writer *open_out(const char *dir, const char *name, uint32_t chunk_bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.chunk_bytes = chunk_bytes;
    o.timebase_ms = 1700000000000.25;
    o.high_res_times = 1;
    o.context_uri = "file:///atf/wtf_write_scenarios";
    o.context_title = name;
    atf_wtf_writer *w;
    CHECK(atf_wtf_writer_open(&w, path, &o, &e));
    return w;
}

static void done(atf_wtf_writer *w, const char *name)
{
    uint64_t n = atf_wtf_writer_event_count(w);
    CHECK(atf_wtf_writer_close(w, &e));
    printf("%s %llu\n", name, (unsigned long long)n);
}

static atf_wtf_value num(atf_wtf_type t, int64_t v)
{
    atf_wtf_value x;
    memset(&x, 0, sizeof x);
    x.type = t;
    x.i = v;
    x.u = (uint64_t)v;
    return x;
}

static atf_wtf_value str(atf_wtf_type t, const char *s)
{
    atf_wtf_value x;
    memset(&x, 0, sizeof x);
    x.type = t;
    x.s = s;
    x.s_len = s ? (uint32_t)strlen(s) : 0;
    x.is_null = s == NULL;
    return x;
}

static atf_wtf_value arr(atf_wtf_type t, const void *elems, uint32_t count)
{
    atf_wtf_value x;
    memset(&x, 0, sizeof x);
    x.type = t;
    x.array = 1;
    x.elems = (const uint8_t *)elems;
    x.count = count;
    x.is_null = elems == NULL;
    return x;
}

static void types(const char *dir)
{
    atf_wtf_writer *w = open_out(dir, "types.wtf-trace", 0);
    CHECK(atf_wtf_writer_zone_create(w, 1, "main", "script", "types", 0, &e));
    CHECK(atf_wtf_writer_zone_set(w, 1, 0, &e));
    uint16_t ints, strs, arrays, chars, outer;
    CHECK(atf_wtf_writer_define(w, "types#outer", "uint32 n", 1, 0, &outer, &e));
    CHECK(atf_wtf_writer_define(w, "types#ints",
                                "bool f, bool t, int8 a, uint8 b, int16 c, uint16 d, int32 x, uint32 y, float32 z, "
                                "flowId fl, time32 tm",
                                1, 0, &ints, &e));
    CHECK(atf_wtf_writer_define(w, "types#strings", "ascii a, utf8 u, any j, ascii none, utf8 empty", 1, 0, &strs, &e));
    CHECK(atf_wtf_writer_define(w, "types#arrays",
                                "int8[] a, uint8[] b, int16[] c, uint16[] d, int32[] x, uint32[] y, float32[] z, "
                                "int32[] none",
                                1, 0, &arrays, &e));
    CHECK(atf_wtf_writer_define(w, "types#chars", "char c, wchar w, char[] cs, wchar[] ws", 0, 0, &chars, &e));
    uint32_t t = 100;
    atf_wtf_value o = num(ATF_WTF_UINT32, 7);
    CHECK(atf_wtf_writer_event(w, outer, t++, &o, 1, &e));
    atf_wtf_value iv[11] = {
        num(ATF_WTF_BOOL, 0),          num(ATF_WTF_BOOL, 1),        num(ATF_WTF_INT8, -128),
        num(ATF_WTF_UINT8, 255),       num(ATF_WTF_INT16, -32768),  num(ATF_WTF_UINT16, 65535),
        num(ATF_WTF_INT32, INT32_MIN), num(ATF_WTF_UINT32, UINT32_MAX), num(ATF_WTF_FLOAT32, 0),
        num(ATF_WTF_FLOWID, 12345),    num(ATF_WTF_TIME32, 2500000),
    };
    iv[8].f = -1.5;
    CHECK(atf_wtf_writer_event(w, ints, t++, iv, 11, &e));
    CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    atf_wtf_value sv[5] = { str(ATF_WTF_ASCII, "plain ascii"), str(ATF_WTF_UTF8, "caf\xc3\xa9 \xe4\xb8\xad"),
                            str(ATF_WTF_ANY, "{\"k\":[1,2.5,\"x\"],\"b\":true}"), str(ATF_WTF_ASCII, NULL),
                            str(ATF_WTF_UTF8, "") };
    CHECK(atf_wtf_writer_event(w, strs, t++, sv, 5, &e));
    CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    int8_t a[3] = { -1, 0, 127 };
    uint8_t b[5] = { 1, 2, 3, 4, 255 };
    int16_t c[3] = { -32768, 1, 32767 };
    uint16_t d[1] = { 65535 };
    int32_t x[2] = { INT32_MIN, 5 };
    uint32_t y[2] = { 0, UINT32_MAX };
    float z[2] = { 0.25f, -3.0f };
    atf_wtf_value av[8] = { arr(ATF_WTF_INT8, a, 3),   arr(ATF_WTF_UINT8, b, 5),  arr(ATF_WTF_INT16, c, 3),
                            arr(ATF_WTF_UINT16, d, 1), arr(ATF_WTF_INT32, x, 2),  arr(ATF_WTF_UINT32, y, 2),
                            arr(ATF_WTF_FLOAT32, z, 2), arr(ATF_WTF_INT32, NULL, 0) };
    CHECK(atf_wtf_writer_event(w, arrays, t++, av, 8, &e));
    CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    uint16_t ws[3] = { 'w', 0xE9, 0x4E2D };
    atf_wtf_value cv[4] = { num(ATF_WTF_CHAR, 'A'), num(ATF_WTF_WCHAR, 0xE9), arr(ATF_WTF_CHAR, "hello", 5),
                            arr(ATF_WTF_WCHAR, ws, 3) };
    CHECK(atf_wtf_writer_event(w, chars, t++, cv, 4, &e));
    CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    done(w, "types.wtf-trace");
}

static void zones(const char *dir)
{
    atf_wtf_writer *w = open_out(dir, "zones.wtf-trace", 0);
    uint16_t work;
    CHECK(atf_wtf_writer_define(w, "zones#work", "uint32 i", 1, 0, &work, &e));
    static const char *const names[3] = { "main", "worker-1", "worker-2" };
    for (uint16_t z = 1; z <= 3; z++)
        CHECK(atf_wtf_writer_zone_create(w, z, names[z - 1], "script", "zones", 0, &e));
    uint32_t t = 10;
    for (uint32_t i = 0; i < 60; i++) {
        CHECK(atf_wtf_writer_zone_set(w, (uint16_t)(1 + i % 3), t, &e));
        atf_wtf_value v = num(ATF_WTF_UINT32, i);
        CHECK(atf_wtf_writer_event(w, work, t++, &v, 1, &e));
        CHECK(atf_wtf_writer_event(w, work, t++, &v, 1, &e));
        CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
        CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    }
    done(w, "zones.wtf-trace");
}

static void chunks(const char *dir)
{
    atf_wtf_writer *w = open_out(dir, "chunks.wtf-trace", 1024);
    uint16_t step;
    CHECK(atf_wtf_writer_define(w, "chunks#step", "uint32 i, ascii tag", 1, 0, &step, &e));
    CHECK(atf_wtf_writer_zone_create(w, 1, "main", "script", "chunks", 0, &e));
    CHECK(atf_wtf_writer_zone_set(w, 1, 0, &e));
    uint32_t t = 5;
    for (uint32_t i = 0; i < 2000; i++) {
        char tag[24];
        snprintf(tag, sizeof tag, "tag-%u", (unsigned)(i % 13));
        atf_wtf_value v[2] = { num(ATF_WTF_UINT32, i), str(ATF_WTF_ASCII, tag) };
        CHECK(atf_wtf_writer_event(w, step, t++, v, 2, &e));
        CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    }
    done(w, "chunks.wtf-trace");
}

static void stamps(const char *dir)
{
    atf_wtf_writer *w = open_out(dir, "stamps.wtf-trace", 0);
    uint16_t tick, outer;
    CHECK(atf_wtf_writer_define(w, "stamps#tick", "int32 n", 0, 0, &tick, &e));
    CHECK(atf_wtf_writer_define(w, "stamps#outer", "", 1, 0, &outer, &e));
    CHECK(atf_wtf_writer_zone_create(w, 1, "main", "script", "stamps", 0, &e));
    CHECK(atf_wtf_writer_zone_set(w, 1, 0, &e));
    uint32_t t = 1;
    for (int32_t i = 0; i < 20; i++) {
        CHECK(atf_wtf_writer_event(w, outer, t++, NULL, 0, &e));
        atf_wtf_value v = num(ATF_WTF_INT32, -i);
        CHECK(atf_wtf_writer_event(w, tick, t++, &v, 1, &e));
        char json[64];
        snprintf(json, sizeof json, "{\"i\":%d,\"s\":\"x%d\"}", (int)i, (int)i);
        CHECK(atf_wtf_writer_append_data(w, "data", json, t++, &e));
        CHECK(atf_wtf_writer_time_stamp(w, "stamp", "42", t++, &e));
        CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    }
    done(w, "stamps.wtf-trace");
}

static void rotating(const char *dir)
{
    atf_wtf_writer *w = open_out(dir, "rotating.wtf-trace", 1024);
    uint16_t scope, mark;
    CHECK(atf_wtf_writer_define(w, "rotating#scope", "ascii name", 1, 0, &scope, &e));
    CHECK(atf_wtf_writer_define(w, "rotating#mark", "uint32 i", 0, ATF_WTF_FLAG_HIGH_FREQUENCY, &mark, &e));
    CHECK(atf_wtf_writer_zone_create(w, 1, "main", "script", "rotating", 0, &e));
    CHECK(atf_wtf_writer_zone_create(w, 2, "worker", "worker", NULL, 0, &e));
    uint32_t t = 1000;
    for (uint32_t i = 0; i < 16; i++) {
        CHECK(atf_wtf_writer_zone_set(w, (uint16_t)(1 + i % 2), t++, &e));
        atf_wtf_value name = str(ATF_WTF_ASCII, i % 3 ? "outer" : "work item");
        CHECK(atf_wtf_writer_event(w, scope, t++, &name, 1, &e));
        name = str(ATF_WTF_ASCII, "inner");
        CHECK(atf_wtf_writer_event(w, scope, t++, &name, 1, &e));
        CHECK(atf_wtf_writer_append_data(w, "count", i % 2 ? "{\"n\":3}" : "17", t++, &e));
        atf_wtf_value n = num(ATF_WTF_UINT32, i);
        CHECK(atf_wtf_writer_event(w, mark, t++, &n, 1, &e));
        CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
        CHECK(atf_wtf_writer_time_stamp(w, "between", "\"s\"", t++, &e));
        CHECK(atf_wtf_writer_scope_leave(w, t++, &e));
    }
    done(w, "rotating.wtf-trace");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: wtf_write_scenarios OUTDIR\n");
        return 2;
    }
    types(argv[1]);
    zones(argv[1]);
    chunks(argv[1]);
    stamps(argv[1]);
    rotating(argv[1]);
    return 0;
}
