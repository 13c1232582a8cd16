/* The fast paths for common events must find exactly what the general
 * paths find. The validator's (wtf_pass.c fast_run): a file with every
 * kind of event the fast path takes or refuses (scopes, leaves too many,
 * 1030 deep, strings empty and not JSON, times out of order, arrays,
 * several chunks and zones) is validated both ways, whole and after
 * thousands of random byte mutations, and the findings (clause, severity,
 * offset, field, message) are compared one by one. The reader's
 * (wtf_reader.c): every event it returns from those files has the size
 * the general decoder (atf_wtf_decode_event) gives it and the scope depth
 * counted here, and read in batches (atf_wtf_reader_next_events) it gives
 * the same events and argument values as one event a call; every scalar
 * type decodes as its definition says. The hand-written JSON check (v_wtf_json_plain) says "JSON"
 * only of texts jansson reads under the flags of the pass, over texts
 * made of JSON's pieces at random, and says it of the plain ones. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <atf/validator.h>
#include <atf/wtf.h>

#include "wtf_internal.h"
#include "wtf_pass.h"
#include "wtf_test_util.h"

static void ok(atf_status s, const atf_error *e)
{
    if (s != ATF_OK)
        fail_msg("%s", e->message);
}

/* The file, in memory (caller frees). */
static uint8_t *build(size_t *size)
{
    char path[] = "/tmp/atf-wtf-fast-XXXXXX";
    wtu_temp_file(path);
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.chunk_bytes = 2048;
    o.timebase_ms = 1.0;
    atf_wtf_writer *w;
    atf_error e;
    ok(atf_wtf_writer_open(&w, path, &o, &e), &e);
    uint16_t req, tick, arr;
    ok(atf_wtf_writer_define(w, "app#req", "uint32 id, ascii route, any meta", ATF_WTF_CLASS_SCOPE, 0, &req, &e), &e);
    ok(atf_wtf_writer_define(w, "app#tick", "uint32 n", ATF_WTF_CLASS_INSTANCE, 0, &tick, &e), &e);
    ok(atf_wtf_writer_define(w, "app#arr", "uint8[] b, ascii s", ATF_WTF_CLASS_SCOPE, 0, &arr, &e), &e);
    for (uint16_t z = 1; z <= 3; z++)
        ok(atf_wtf_writer_zone_create(w, z, "zone", "script", NULL, 1, &e), &e);
    static const char *const metas[] = { "{\"a\":1}", "[1,2]", "{oops", "", "7", NULL };
    uint32_t t = 10;
    uint64_t seed = 12345;
    for (int i = 0; i < 3000; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(seed >> 33);
        if (i % 500 == 0) {
            ok(atf_wtf_writer_zone_set(w, (uint16_t)(i / 500 % 3 + 1), t, &e), &e);
            if (i < 1500)   /* a leave with nothing open (in a new zone): SCO-001 */
                ok(atf_wtf_writer_scope_leave(w, t, &e), &e);
        }
        t += r % 3;
        switch (r % 7) {
        case 0:
        case 1: ok(atf_wtf_writer_scope_enter(w, r & 8 ? "outer" : "inner", t, &e), &e); break;
        case 2:
        case 3: ok(atf_wtf_writer_scope_leave(w, t, &e), &e); break;
        case 4: {
            atf_wtf_value v[3] = { wtu_u32(r), wtu_str(ATF_WTF_ASCII, r & 16 ? "/x" : ""),
                                   wtu_str(ATF_WTF_ANY, metas[r / 7 % 6]) };
            ok(atf_wtf_writer_event(w, req, t, v, 3, &e), &e);
            break;
        }
        case 5: {
            atf_wtf_value v = wtu_u32(r);
            /* now and then back in time: EVT-006 */
            ok(atf_wtf_writer_event(w, tick, r % 11 == 0 ? t - 5 : t, &v, 1, &e), &e);
            break;
        }
        default: {
            atf_wtf_value v[2];
            uint8_t bytes[3] = { 1, 2, 3 };
            memset(v, 0, sizeof v);
            v[0].type = ATF_WTF_UINT8;
            v[0].array = 1;
            v[0].count = r % 4;
            v[0].elems = bytes;
            v[1] = wtu_str(ATF_WTF_ASCII, "arr");
            ok(atf_wtf_writer_event(w, arr, t, v, 2, &e), &e);
            break;
        }
        }
        if (i == 1500)   /* 1030 deep: SCO-003 */
            for (int k = 0; k < 1030; k++)
                ok(atf_wtf_writer_scope_enter(w, "deep", t, &e), &e);
        if (i == 1600)
            for (int k = 0; k < 1030; k++)
                ok(atf_wtf_writer_scope_leave(w, t, &e), &e);
    }
    ok(atf_wtf_writer_close(w, &e), &e);
    uint8_t *buf = wtu_read_file(path, size);
    unlink(path);
    return buf;
}

/* Both ways; @return the number of findings (they must be the same). */
static size_t compare(const uint8_t *d, size_t n)
{
    atf_validation *a, *b;
    atf_error e;
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.max_per_clause = 1000;
    o.max_findings = 100000;
    assert_int_equal(v_validate_wtf_memory(&a, d, n, "t.wtf-trace", &o, 0, &e), ATF_OK);
    assert_int_equal(v_validate_wtf_memory(&b, d, n, "t.wtf-trace", &o, 1, &e), ATF_OK);
    size_t k = atf_validation_finding_count(a);
    assert_int_equal(k, atf_validation_finding_count(b));
    for (size_t i = 0; i < k; i++) {
        const atf_validate_finding *x = atf_validation_finding_at(a, i), *y = atf_validation_finding_at(b, i);
        assert_string_equal(x->clause, y->clause);
        assert_int_equal(x->severity, y->severity);
        assert_int_equal(x->offset, y->offset);
        assert_string_equal(x->field ? x->field : "", y->field ? y->field : "");
        assert_string_equal(x->message, y->message);
    }
    assert_int_equal(atf_validation_conformant(a), atf_validation_conformant(b));
    assert_int_equal(atf_validation_recovered_count(a), atf_validation_recovered_count(b));
    atf_validation_free(a);
    atf_validation_free(b);
    return k;
}

/* The reader over @d: sizes against the general decoder, depth against a count kept here. */
static void check_reader(const uint8_t *d, size_t n)
{
    atf_wtf_reader *r;
    atf_error e;
    if (atf_wtf_reader_open_memory(&r, d, n, "t.wtf-trace", &e) != ATF_OK)
        return;
    static uint32_t depth[65537];
    static const atf_wtf_def *one[65536];
    memset(depth, 0, sizeof depth);
    const atf_wtf_chunk *c;
    while (atf_wtf_reader_next_chunk(r, &c, &e) == ATF_OK) {
        atf_wtf_event ev;
        while (atf_wtf_reader_next_event(r, &ev, &e) == ATF_OK) {
            one[ev.wire_id] = ev.def;
            uint32_t size = 0;
            const uint8_t *buf = d + (ev.offset - 0);
            assert_int_equal(atf_wtf_decode_event(one, ev.wire_id + 1, atf_wtf_reader_strings(r), buf, ev.size, 0,
                                                  &size, &e),
                             ATF_OK);
            one[ev.wire_id] = NULL;
            assert_int_equal(size, ev.size);
            uint32_t *z = &depth[ev.zone < 0 ? 0 : (uint32_t)ev.zone + 1];
            if (ev.def->builtin == ATF_WTF_BI_ZONE_SET)
                continue;   /* its depth is the zone it leaves */
            if (ev.def->builtin == ATF_WTF_BI_SCOPE_LEAVE) {
                *z -= *z > 0;
                assert_int_equal(ev.depth, *z);
            } else {
                assert_int_equal(ev.depth, *z);
                *z += ev.def->event_class == ATF_WTF_CLASS_SCOPE && ev.def->builtin != ATF_WTF_BI_DEFINE;
            }
        }
    }
    atf_wtf_reader_close(r);
}

/* Batches (atf_wtf_reader_next_events, at most @cap events each) against
 * one event a call: the same statuses, events and argument values, in the
 * same order, and the same summary. */
static void check_batches(const uint8_t *d, size_t n, size_t cap)
{
    atf_wtf_reader *r1, *r2;
    atf_error e1, e2;
    atf_status o1 = atf_wtf_reader_open_memory(&r1, d, n, "t.wtf-trace", &e1);
    assert_int_equal(atf_wtf_reader_open_memory(&r2, d, n, "t.wtf-trace", &e2), o1);
    if (o1 != ATF_OK)
        return;
    atf_wtf_event evs[17];
    assert_true(cap <= 17);
    const atf_wtf_chunk *c1, *c2;
    atf_status s1, s2;
    do {
        s1 = atf_wtf_reader_next_chunk(r1, &c1, &e1);
        s2 = atf_wtf_reader_next_chunk(r2, &c2, &e2);
        assert_int_equal(s1, s2);
        if (s1 != ATF_OK && s1 != ATF_E_NOT_FOUND)
            continue;   /* a chunk that cannot be read: the next call goes on */
        if (s1 != ATF_OK)
            break;
        for (;;) {
            size_t got = 99;
            s2 = atf_wtf_reader_next_events(r2, evs, cap, &got, &e2);
            if (s2 != ATF_OK) {
                assert_int_equal(got, 0);
                atf_wtf_event one;
                assert_int_equal(atf_wtf_reader_next_event(r1, &one, &e1), s2);
                if (s2 != ATF_E_NOT_FOUND)
                    assert_int_equal(e1.offset, e2.offset);
                break;
            }
            assert_true(got >= 1 && got <= cap);
            for (size_t k = 0; k < got; k++) {
                atf_wtf_event one;
                assert_int_equal(atf_wtf_reader_next_event(r1, &one, &e1), ATF_OK);
                const atf_wtf_event *b = &evs[k];
                assert_int_equal(one.offset, b->offset);
                assert_int_equal(one.wire_id, b->wire_id);
                assert_int_equal(one.time, b->time);
                assert_int_equal(one.zone, b->zone);
                assert_int_equal(one.depth, b->depth);
                assert_int_equal(one.chunk, b->chunk);
                assert_int_equal(one.size, b->size);
                assert_ptr_equal(one.args, b->args);
                assert_string_equal(one.def->name, b->def->name);
                assert_string_equal(one.def->signature, b->def->signature);
                for (size_t i = 0; i < one.def->arg_count; i++) {
                    atf_wtf_value v1, v2;
                    assert_int_equal(atf_wtf_event_arg(r1, &one, i, &v1, &e1),
                                     atf_wtf_event_arg(r2, b, i, &v2, &e2));
                    assert_int_equal(v1.u, v2.u);
                    assert_int_equal(v1.i, v2.i);
                    assert_int_equal(v1.s_len, v2.s_len);
                    assert_int_equal(v1.is_null, v2.is_null);
                    assert_int_equal(v1.count, v2.count);
                    assert_memory_equal(&v1.f, &v2.f, sizeof v1.f);
                    if (v1.s)
                        assert_memory_equal(v1.s, v2.s, v1.s_len);
                }
            }
        }
    } while (s1 != ATF_E_NOT_FOUND);
    atf_wtf_summary a, b;
    atf_wtf_reader_summary(r1, &a);
    atf_wtf_reader_summary(r2, &b);
    assert_true(wtu_same_summary(&a, &b));
    atf_wtf_reader_close(r1);
    atf_wtf_reader_close(r2);
}

/* Every scalar type read by its form (wtf_scalar_forms) as the byte-by-
 * byte definition of each type says. */
static void test_scalar_forms(void **state)
{
    (void)state;
    static const uint32_t words[] = { 0, 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x3F800000,
                                      0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF, 0x12345678, 0xC0490FDB };
    static const char tbl[] = "a\0bc\0";
    static const uint32_t starts[] = { 0, 2 };
    atf_wtf_strings st;
    memset(&st, 0, sizeof st);
    st.data = tbl;
    st.size = sizeof tbl - 1;
    st.starts = (uint32_t *)starts;
    st.count = 2;
    for (unsigned t = 0; t <= 17; t++)
        for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
            uint32_t v = words[k];
            uint8_t p[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
            atf_wtf_value got, want;
            memset(&got, 0, sizeof got);
            memset(&want, 0, sizeof want);
            wtf_scalar((atf_wtf_type)t, p, &st, &got);
            want.type = (atf_wtf_type)t;
            switch (t) {
            case ATF_WTF_BOOL: want.u = p[0] != 0; break;
            case ATF_WTF_INT8: want.i = (int8_t)p[0]; break;
            case ATF_WTF_UINT8:
            case ATF_WTF_CHAR: want.u = p[0]; break;
            case ATF_WTF_INT16: want.i = (int16_t)(p[0] | p[1] << 8); break;
            case ATF_WTF_UINT16:
            case ATF_WTF_WCHAR: want.u = (uint16_t)(p[0] | p[1] << 8); break;
            case ATF_WTF_INT32: want.i = (int32_t)v; break;
            case ATF_WTF_FLOAT32: {
                float f;
                memcpy(&f, &v, 4);
                want.f = f;
                break;
            }
            case ATF_WTF_ASCII:
            case ATF_WTF_UTF8:
            case ATF_WTF_ANY:
                want.u = v;
                want.s = v == 0 ? tbl : v == 1 ? tbl + 2 : v == ATF_WTF_STRING_EMPTY ? "" : NULL;
                want.s_len = v == 0 ? 1 : v == 1 ? 2 : 0;
                want.is_null = want.s == NULL;
                break;
            default: want.u = v; break;
            }
            assert_int_equal(got.type, want.type);
            assert_int_equal(got.u, want.u);
            assert_int_equal(got.i, want.i);
            assert_memory_equal(&got.f, &want.f, sizeof got.f);
            assert_int_equal(got.is_null, want.is_null);
            assert_int_equal(got.s_len, want.s_len);
            if (want.s && want.s_len)
                assert_memory_equal(got.s, want.s, want.s_len);
            assert_true((got.s == NULL) == (want.s == NULL));
        }
}

static int has(const uint8_t *d, size_t n, const char *clause)
{
    atf_validation *a;
    atf_error e;
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    assert_int_equal(atf_validate_wtf_memory(&a, d, n, "t.wtf-trace", &o, &e), ATF_OK);
    int found = 0;
    for (size_t i = 0; i < atf_validation_finding_count(a); i++)
        found |= !strcmp(atf_validation_finding_at(a, i)->clause, clause);
    atf_validation_free(a);
    return found;
}

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

static int jansson_reads(const char *s, size_t n)
{
    json_t *j = json_loadb(s, n, WTF_JSON_FLAGS, NULL);
    json_decref(j);
    return j != NULL;
}

static void test_json_plain(void **state)
{
    (void)state;
    static const char *const plain[] = {
        "{\"bytes\":12}", "[1,2]", "7", "-0.5", "\"a\\n\\\"b\"", " { \"a\" : [ true , false , null , {} , [] ] } ",
        "0", "[[[[]]]]", "{\"a\":{\"b\":\"c\"},\"d\":-12.25}",
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (!v_wtf_json_plain(plain[i], strlen(plain[i])))
            fail_msg("%s: not taken as plain JSON", plain[i]);
    /* JSON's pieces, and pieces of them, at random: "plain" must mean jansson reads it. */
    static const char *const pieces[] = {
        "{", "}", "[", "]", ",", ":", " ", "\t", "\n", "\"", "\"k\"", "\\", "\\u0041", "\\n", "\\x", "0", "01",
        "-", "1", "23", ".", ".5", "e5", "E", "+", "true", "tru", "false", "null", "nul", "\x01", "\xc3\xa9", "\x00",
        "x", "1e400", "/",
    };
    uint64_t seed = 99;
    unsigned said = 0;
    char text[64];
    for (unsigned i = 0; i < 400000; i++) {
        size_t n = 0;
        unsigned k = 1 + (unsigned)(rng(&seed) % 9);
        for (unsigned j = 0; j < k; j++) {
            const char *p = pieces[rng(&seed) % (sizeof pieces / sizeof *pieces)];
            size_t m = p[0] ? strlen(p) : 1;
            if (n + m >= sizeof text)
                break;
            memcpy(text + n, p, m);
            n += m;
        }
        int a = v_wtf_json_plain(text, n), b = jansson_reads(text, n);
        if (a && !b)
            fail_msg("\"%.*s\" taken as plain JSON, jansson does not read it", (int)n, text);
        said += (unsigned)a;
    }
    print_message("%u of 400000 random texts plain JSON\n", said);
    assert_true(said > 1000);
}

static void test_same_findings(void **state)
{
    (void)state;
    size_t n;
    uint8_t *base = build(&n);
    /* The file exercises what the fast path refuses. */
    assert_true(compare(base, n) > 0);
    check_reader(base, n);
    for (size_t cap = 1; cap <= 17; cap += 4)
        check_batches(base, n, cap);
    static const char *const want[] = { "WTF-SCO-001", "WTF-SCO-003", "WTF-EVT-005", "WTF-EVT-006" };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!has(base, n, want[i]))
            fail_msg("the base file lacks %s", want[i]);
    uint8_t *m = malloc(n);
    assert_non_null(m);
    uint64_t seed = 99;
    size_t base_findings = compare(base, n), changed = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(m, base, n);
        int k = 1 + it % 4;
        for (int j = 0; j < k; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = 12 + (size_t)(seed >> 20) % (n - 12);
            static const uint8_t vals[] = { 0x00, 0xFF, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0x10 };
            m[at] = (seed >> 8) & 1 ? vals[(seed >> 12) % 8] : (uint8_t)(seed >> 40);
        }
        changed += compare(m, n) != base_findings;
        check_reader(m, n);
        check_batches(m, n, 1 + (size_t)it % 17);
    }
    assert_true(changed > 1000);   /* the mutations reach what is checked */
    free(m);
    free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_findings),
        cmocka_unit_test(test_json_plain),
        cmocka_unit_test(test_scalar_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
