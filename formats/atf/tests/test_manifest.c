/* Tests for manifest.c: the ADA reader's schema, the ADA recorder's extras,
 * rejection of invalid manifests with a message naming the key, the size
 * limit, loading from a file, and random inputs that must never crash. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/session.h>

#include "manifest_prefix.h"
#include "session_test_util.h"

static atf_manifest *parse_ok(const char *json)
{
    atf_manifest *m = NULL;
    atf_error err;
    atf_status st = atf_manifest_parse(&m, json, strlen(json), "m.json", &err);
    if (st != ATF_OK)
        fail_msg("parse failed (%s): %s", atf_status_name(st), err.message);
    assert_non_null(m);
    return m;
}

/* ---- Valid manifests ----------------------------------------------------- */

/* What the ADA tracer's reader expects, and nothing more. */
static void test_ada_reader_schema(void **state)
{
    (void)state;
    atf_manifest *m = parse_ok("{\"threads\":[{\"id\":1,\"has_detail\":true},{\"id\":7,\"has_detail\":false},"
                               "{\"id\":0,\"has_detail\":true}],"
                               "\"time_start_ns\":1000,\"time_end_ns\":98765432109876}");
    assert_int_equal(m->thread_count, 3);
    assert_int_equal(m->threads[0].id, 1);
    assert_int_equal(m->threads[0].has_detail, 1);
    assert_int_equal(m->threads[1].id, 7);
    assert_int_equal(m->threads[1].has_detail, 0);
    assert_int_equal(m->threads[2].id, 0);
    assert_int_equal(m->threads[2].has_detail, 1);
    assert_int_equal(m->time_start_ns, 1000);
    assert_int_equal(m->time_end_ns, 98765432109876ull);
    /* None of the recorder's extras. */
    assert_int_equal(m->has_clock_type, 0);
    assert_string_equal(m->format_version, "");
    assert_int_equal(m->module_count, 0);
    assert_int_equal(m->symbol_count, 0);
    assert_int_equal(m->anchor_count, 0);
    assert_int_equal(m->events_dropped, 0);
    assert_null(atf_manifest_symbol_name(m, 0));
    atf_manifest_free(m);
}

static void test_empty_thread_list_and_missing_times(void **state)
{
    (void)state;
    atf_manifest *m = parse_ok("{\"threads\":[]}");
    assert_int_equal(m->thread_count, 0);
    assert_int_equal(m->time_start_ns, 0);
    assert_int_equal(m->time_end_ns, 0);
    atf_manifest_free(m);

    /* null is "absent" for optional numbers. */
    m = parse_ok("{\"threads\":[],\"time_start_ns\":null,\"time_end_ns\":5}");
    assert_int_equal(m->time_start_ns, 0);
    assert_int_equal(m->time_end_ns, 5);
    atf_manifest_free(m);
}

/* What the ADA recorder writes: clock_type, format_version 2.1 and a symbol
 * table whose numbers may be JSON numbers or hex strings. */
static void test_recorder_extras(void **state)
{
    (void)state;
    const char *json =
        "{\n"
        "  \"format_version\": \"2.1\",\n"
        "  \"clock_type\": 1,\n"
        "  \"time_start_ns\": 0, \"time_end_ns\": 0,\n"
        "  \"threads\": [ {\"id\": 0, \"has_detail\": true}, {\"id\": 1, \"has_detail\": true} ],\n"
        "  \"modules\": [\n"
        "    {\"module_id\": 0, \"path\": \"/usr/lib/libfoo.dylib\", \"base_address\": 4294967296,\n"
        "     \"size\": 65536, \"uuid\": \"8C1A2B3C-0000-1111-2222-333344445555\"},\n"
        "    {\"module_id\": 1, \"path\": \"/usr/lib/libbar.dylib\", \"base_address\": \"0x7fff20000000\",\n"
        "     \"size\": \"0x1000\", \"uuid\": \"\"}\n"
        "  ],\n"
        "  \"symbols\": [\n"
        "    {\"function_id\": \"0x0000000100000abc\", \"module_id\": 1, \"symbol_index\": 3, \"name\": \"-[Foo bar:]\"},\n"
        "    {\"function_id\": 42, \"module_id\": 0, \"symbol_index\": 0, \"name\": \"main\"},\n"
        "    {\"function_id\": \"0xFFFFFFFFFFFFFFFF\", \"module_id\": 0, \"symbol_index\": 1, \"name\": \"top\"},\n"
        "    {\"function_id\": \"17\", \"module_id\": 0, \"symbol_index\": 2, \"name\": \"decimal_string\"}\n"
        "  ]\n"
        "}\n";
    atf_manifest *m = parse_ok(json);
    assert_int_equal(m->has_clock_type, 1);
    assert_int_equal(m->clock_type, 1);
    assert_string_equal(m->format_version, "2.1");
    assert_int_equal(m->thread_count, 2);

    assert_int_equal(m->module_count, 2);
    assert_int_equal(m->modules[0].module_id, 0);
    assert_int_equal(m->modules[0].base_address, 0x100000000ull);
    assert_int_equal(m->modules[0].size, 65536);
    assert_string_equal(m->modules[0].path, "/usr/lib/libfoo.dylib");
    assert_string_equal(m->modules[0].uuid, "8C1A2B3C-0000-1111-2222-333344445555");
    assert_int_equal(m->modules[1].module_id, 1);
    assert_int_equal(m->modules[1].base_address, 0x7fff20000000ull);
    assert_int_equal(m->modules[1].size, 0x1000);
    assert_string_equal(m->modules[1].path, "/usr/lib/libbar.dylib");
    assert_string_equal(m->modules[1].uuid, "");

    assert_int_equal(m->symbol_count, 4);
    /* Sorted by function_id. */
    for (size_t i = 1; i < m->symbol_count; i++)
        assert_true(m->symbols[i - 1].function_id < m->symbols[i].function_id);
    assert_string_equal(atf_manifest_symbol_name(m, 0x100000abcull), "-[Foo bar:]");
    assert_string_equal(atf_manifest_symbol_name(m, 42), "main");
    assert_string_equal(atf_manifest_symbol_name(m, UINT64_MAX), "top");
    assert_string_equal(atf_manifest_symbol_name(m, 17), "decimal_string");
    assert_null(atf_manifest_symbol_name(m, 0));
    assert_null(atf_manifest_symbol_name(m, 43));
    assert_null(atf_manifest_symbol_name(m, 0x100000abdull));
    assert_null(atf_manifest_symbol_name(m, UINT64_MAX - 1));
    assert_null(atf_manifest_symbol_name(NULL, 42));
    /* The symbol's other fields survive the sort. */
    for (size_t i = 0; i < m->symbol_count; i++)
        if (m->symbols[i].function_id == 0x100000abcull) {
            assert_int_equal(m->symbols[i].module_id, 1);
            assert_int_equal(m->symbols[i].symbol_index, 3);
        }
    atf_manifest_free(m);

    m = parse_ok("{\"format_version\":\"2.0\",\"clock_type\":3,\"threads\":[{\"id\":5,\"has_detail\":false}]}");
    assert_string_equal(m->format_version, "2.0");
    assert_int_equal(m->clock_type, 3);
    assert_int_equal(m->symbol_count, 0);
    atf_manifest_free(m);
}

static void test_symbol_lookup_many(void **state)
{
    (void)state;
    /* 500 symbols in a scrambled order, function ids 3*k + 1. */
    size_t cap = 64 * 1024, len = 0;
    char *json = malloc(cap);
    assert_non_null(json);
    len += (size_t)snprintf(json + len, cap - len, "{\"threads\":[],\"symbols\":[");
    for (unsigned i = 0; i < 500; i++) {
        unsigned k = (i * 7919u) % 500u;
        if (k % 2)
            len += (size_t)snprintf(json + len, cap - len, "%s{\"function_id\":%u,\"name\":\"f%u\"}", i ? "," : "",
                                    3 * k + 1, k);
        else
            len += (size_t)snprintf(json + len, cap - len, "%s{\"function_id\":\"0x%x\",\"name\":\"f%u\"}",
                                    i ? "," : "", 3 * k + 1, k);
        assert_true(len < cap);
    }
    len += (size_t)snprintf(json + len, cap - len, "]}");
    atf_manifest *m = parse_ok(json);
    assert_int_equal(m->symbol_count, 500);
    char want[16];
    for (unsigned k = 0; k < 500; k++) {
        snprintf(want, sizeof want, "f%u", k);
        const char *name = atf_manifest_symbol_name(m, 3 * k + 1);
        assert_non_null(name);
        assert_string_equal(name, want);
        assert_null(atf_manifest_symbol_name(m, 3 * k));
        assert_null(atf_manifest_symbol_name(m, 3 * k + 2));
    }
    assert_null(atf_manifest_symbol_name(m, 1500 + 1));
    atf_manifest_free(m);
    free(json);
}

static void test_unknown_keys_ignored(void **state)
{
    (void)state;
    atf_manifest *m = parse_ok(
        "{\"producer\":{\"name\":\"ada\",\"version\":[1,2,3]},\"pid\":4242,\"weird\":null,"
        "\"threads\":[{\"id\":3,\"has_detail\":false,\"os_thread_id\":77,\"event_count\":\"lots\",\"x\":{}}],"
        "\"time_start_ns\":1,\"time_end_ns\":2,"
        "\"modules\":[{\"module_id\":9,\"arch\":\"arm64\"}],"
        "\"symbols\":[{\"function_id\":5,\"name\":\"f\",\"demangled\":[\"f\"]}],"
        "\"timing_anchors\":[{\"host_time_ns\":10,\"media_time_value\":-5,\"media_time_scale\":600,\"note\":1}],"
        "\"events_dropped\":12}");
    assert_int_equal(m->thread_count, 1);
    assert_int_equal(m->threads[0].id, 3);
    assert_int_equal(m->threads[0].has_detail, 0);
    assert_int_equal(m->module_count, 1);
    assert_int_equal(m->modules[0].module_id, 9);
    assert_int_equal(m->modules[0].base_address, 0);
    assert_string_equal(m->modules[0].path, "");
    assert_string_equal(atf_manifest_symbol_name(m, 5), "f");
    assert_int_equal(m->anchor_count, 1);
    assert_int_equal(m->anchors[0].host_time_ns, 10);
    assert_int_equal(m->anchors[0].media_time_value, -5);
    assert_int_equal(m->anchors[0].media_time_scale, 600);
    assert_int_equal(m->events_dropped, 12);
    atf_manifest_free(m);
}

/* U+0000 (JSON "\u0000"): ignored in an unknown key, refused where a string
 * is used, with a message that names the field (not a parser flag). */
static void test_nul_in_strings(void **state)
{
    (void)state;
    atf_manifest *m = parse_ok("{\"threads\":[{\"id\":1,\"note\":\"a\\u0000b\"}],\"x-vendor\":\"\\u0000\","
                               "\"symbols\":[{\"function_id\":5,\"name\":\"f\",\"alias\":\"g\\u0000\"}]}");
    assert_int_equal(m->thread_count, 1);
    assert_string_equal(atf_manifest_symbol_name(m, 5), "f");
    atf_manifest_free(m);
    static const char *const bad[][2] = {
        { "{\"threads\":[],\"symbols\":[{\"function_id\":5,\"name\":\"f\\u0000g\"}]}", "symbols[].name" },
        { "{\"threads\":[],\"modules\":[{\"module_id\":1,\"path\":\"/a\\u0000\"}]}", "modules[].path" },
        { "{\"threads\":[],\"format_version\":\"2.0\\u0000\"}", "format_version" },
        { "{\"threads\":[{\"id\":\"1\\u00002\"}]}", "threads[].id" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        atf_error err;
        m = NULL;
        assert_int_equal(atf_manifest_parse(&m, bad[i][0], strlen(bad[i][0]), "m.json", &err), ATF_E_MANIFEST);
        assert_null(m);
        assert_non_null(strstr(err.message, bad[i][1]));
        assert_null(strstr(err.message, "JSON_"));
    }
}

/* A function_id listed twice (SES-MAN-012): the first entry names it. */
static void test_duplicate_symbol_first_wins(void **state)
{
    (void)state;
    atf_manifest *m = parse_ok("{\"threads\":[],\"symbols\":[{\"function_id\":9,\"name\":\"z\"},"
                               "{\"function_id\":7,\"name\":\"first\"},{\"function_id\":3,\"name\":\"a\"},"
                               "{\"function_id\":\"0x7\",\"name\":\"second\"},{\"function_id\":7,\"name\":\"third\"}]}");
    assert_int_equal(m->symbol_count, 5);
    assert_string_equal(atf_manifest_symbol_name(m, 7), "first");
    assert_string_equal(atf_manifest_symbol_name(m, 9), "z");
    assert_string_equal(atf_manifest_symbol_name(m, 3), "a");
    atf_manifest_free(m);
}

static void test_u64_extremes(void **state)
{
    (void)state;
    atf_manifest *m = parse_ok("{\"threads\":[{\"id\":\"0xffffffffffffffff\",\"has_detail\":true},"
                               "{\"id\":\"18446744073709551614\",\"has_detail\":true},"
                               "{\"id\":9223372036854775807,\"has_detail\":true}],"
                               "\"time_start_ns\":\"0X10\",\"time_end_ns\":\"0xFFFFFFFFFFFFFFFF\"}");
    assert_int_equal(m->thread_count, 3);
    assert_true(m->threads[0].id == UINT64_MAX);
    assert_true(m->threads[1].id == UINT64_MAX - 1);
    assert_true(m->threads[2].id == (uint64_t)INT64_MAX);
    assert_int_equal(m->time_start_ns, 16);
    assert_true(m->time_end_ns == UINT64_MAX);
    atf_manifest_free(m);
    /* Plain JSON integers up to 2^64-1 (SPEC 5, errata E-27), in every u64 key. */
    m = parse_ok("{\"threads\":[{\"id\":18446744073709551615},{\"id\":9223372036854775808}],"
                 "\"time_start_ns\":9223372036854775808,\"time_end_ns\":18446744073709551615,"
                 "\"events_dropped\":18446744073709551615,"
                 "\"modules\":[{\"module_id\":18446744073709551615,\"base_address\":18446744073709551614,"
                 "\"size\":9223372036854775808}],"
                 "\"symbols\":[{\"function_id\":18446744073709551615,\"module_id\":1,"
                 "\"symbol_index\":18446744073709551613,\"name\":\"f\"}],"
                 "\"timing_anchors\":[{\"host_time_ns\":18446744073709551615,"
                 "\"media_time_value\":-9223372036854775808,\"media_time_scale\":1}],"
                 "\"unknown\":[123456789012345678901234567890, -1e999, 0.5]}");
    assert_true(m->threads[0].id == UINT64_MAX);
    assert_true(m->threads[1].id == (uint64_t)1 << 63);
    assert_true(m->time_start_ns == (uint64_t)1 << 63);
    assert_true(m->time_end_ns == UINT64_MAX);
    assert_true(m->events_dropped == UINT64_MAX);
    assert_true(m->modules[0].module_id == UINT64_MAX);
    assert_true(m->modules[0].base_address == UINT64_MAX - 1);
    assert_true(m->modules[0].size == (uint64_t)1 << 63);
    assert_true(m->symbols[0].function_id == UINT64_MAX);
    assert_true(m->symbols[0].symbol_index == UINT64_MAX - 2);
    assert_string_equal(atf_manifest_symbol_name(m, UINT64_MAX), "f");
    assert_true(m->anchors[0].host_time_ns == UINT64_MAX);
    assert_true(m->anchors[0].media_time_value == INT64_MIN);
    atf_manifest_free(m);
}

/* Numbers outside a key's range are named with the field and the value as
 * written, never "invalid JSON"; a syntax error after a large number is
 * placed in the original text. */
static void test_u64_out_of_range(void **state)
{
    (void)state;
    static const struct { const char *value, *needle; } cases[] = {
        { "18446744073709551616", "18446744073709551616 is outside the u64 range" },
        { "-1", "-1 is outside the u64 range" },
        { "-99999999999999999999", "-99999999999999999999 is outside the u64 range" },
        { "1e3", "1e3 is not an integer" },
        { "5.0", "5.0 is not an integer" },
        { "\"18446744073709551616\"", "18446744073709551616 is outside the u64 range" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"threads\":[{\"id\":0}],\"time_end_ns\":%s}", cases[i].value);
        atf_manifest *m = NULL;
        atf_error err;
        assert_int_equal(atf_manifest_parse(&m, json, strlen(json), "m.json", &err), ATF_E_MANIFEST);
        assert_null(m);
        assert_string_equal(err.field, "time_end_ns");
        if (!strstr(err.message, cases[i].needle))
            fail_msg("%s: message '%s' lacks '%s'", cases[i].value, err.message, cases[i].needle);
        assert_null(strstr(err.message, "invalid JSON"));
    }
    /* A large number as a string field is a number, not a string with U+0000. */
    const char *nm = "{\"threads\":[{\"id\":0}],\"symbols\":[{\"function_id\":1,\"name\":1e400}]}";
    atf_manifest *m = NULL;
    atf_error err;
    assert_int_equal(atf_manifest_parse(&m, nm, strlen(nm), "m.json", &err), ATF_E_MANIFEST);
    assert_non_null(strstr(err.message, "must be a string"));
    /* The syntax error at byte 44 of the original (the '}'), after two numbers the loader rewrote. */
    const char *syn = "{\"x\": 99999999999999999999, \"y\": 1e999, \"t\":}";
    assert_int_equal(atf_manifest_parse(&m, syn, strlen(syn), "m.json", &err), ATF_E_MANIFEST);
    assert_non_null(strstr(err.message, "invalid JSON"));
    assert_true(err.offset == 45 || err.offset == 44);
    assert_non_null(strstr(err.message, "column 45"));
}

/* ---- Invalid manifests --------------------------------------------------- */

typedef struct bad_case {
    const char *json;
    atf_status code;
    const char *needle; /* must appear in err.message */
} bad_case;

static const bad_case bad_cases[] = {
    /* not JSON */
    { "", ATF_E_MANIFEST, "invalid JSON" },
    { "not json", ATF_E_MANIFEST, "invalid JSON" },
    { "{\"threads\":[", ATF_E_MANIFEST, "invalid JSON" },
    { "{\"threads\":[]} trailing", ATF_E_MANIFEST, "invalid JSON" },
    { "{\"threads\":[],\"threads\":[]}", ATF_E_MANIFEST, "invalid JSON" }, /* duplicate key */
    /* root not an object */
    { "[]", ATF_E_MANIFEST, "(root)" },
    { "[{\"threads\":[]}]", ATF_E_MANIFEST, "(root)" },
    /* threads missing or not an array */
    { "{}", ATF_E_MANIFEST, "threads" },
    { "{\"time_start_ns\":1}", ATF_E_MANIFEST, "threads" },
    { "{\"threads\":null}", ATF_E_MANIFEST, "threads" },
    { "{\"threads\":{}}", ATF_E_MANIFEST, "threads" },
    { "{\"threads\":\"0,1\"}", ATF_E_MANIFEST, "threads" },
    { "{\"threads\":[1]}", ATF_E_MANIFEST, "threads[]" },
    { "{\"threads\":[[]]}", ATF_E_MANIFEST, "threads[]" },
    /* threads[].id */
    { "{\"threads\":[{}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"has_detail\":true}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":null}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":-1}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":\"-1\"}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":1.5}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":1e3}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":true}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":[1]}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":\"one\"}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":\"\"}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":\"18446744073709551616\"}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":1},{\"id\":2},{\"id\":1}]}", ATF_E_MANIFEST, "threads[].id" },
    { "{\"threads\":[{\"id\":16},{\"id\":\"0x10\"}]}", ATF_E_MANIFEST, "threads[].id" },
    /* threads[].has_detail */
    { "{\"threads\":[{\"id\":1,\"has_detail\":1}]}", ATF_E_MANIFEST, "threads[].has_detail" },
    { "{\"threads\":[{\"id\":1,\"has_detail\":\"true\"}]}", ATF_E_MANIFEST, "threads[].has_detail" },
    { "{\"threads\":[{\"id\":1,\"has_detail\":null}]}", ATF_E_MANIFEST, "threads[].has_detail" },
    /* top-level numbers */
    { "{\"threads\":[],\"time_start_ns\":-1}", ATF_E_MANIFEST, "time_start_ns" },
    { "{\"threads\":[],\"time_start_ns\":\"soon\"}", ATF_E_MANIFEST, "time_start_ns" },
    { "{\"threads\":[],\"time_end_ns\":2.5}", ATF_E_MANIFEST, "time_end_ns" },
    { "{\"threads\":[],\"time_end_ns\":false}", ATF_E_MANIFEST, "time_end_ns" },
    { "{\"threads\":[],\"clock_type\":\"boottime\"}", ATF_E_MANIFEST, "clock_type" },
    { "{\"threads\":[],\"clock_type\":4294967296}", ATF_E_MANIFEST, "clock_type" },
    { "{\"threads\":[],\"format_version\":2.1}", ATF_E_MANIFEST, "format_version" },
    { "{\"threads\":[],\"events_dropped\":-3}", ATF_E_MANIFEST, "events_dropped" },
    /* modules */
    { "{\"threads\":[],\"modules\":{}}", ATF_E_MANIFEST, "modules" },
    { "{\"threads\":[],\"modules\":[7]}", ATF_E_MANIFEST, "modules[]" },
    { "{\"threads\":[],\"modules\":[{\"base_address\":1}]}", ATF_E_MANIFEST, "modules[].module_id" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0xZZ\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x12g4\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x-1\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x+1\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x 1\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x1 \"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\" 0x1\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"\\t1\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x0x1\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"deadbeef\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":\"0x10000000000000000\"}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"base_address\":-4096}]}", ATF_E_MANIFEST,
      "modules[].base_address" },
    { "{\"threads\":[],\"modules\":[{\"module_id\":0,\"size\":\"big\"}]}", ATF_E_MANIFEST, "modules[].size" },
    /* symbols */
    { "{\"threads\":[],\"symbols\":\"none\"}", ATF_E_MANIFEST, "symbols" },
    { "{\"threads\":[],\"symbols\":[null]}", ATF_E_MANIFEST, "symbols[]" },
    { "{\"threads\":[],\"symbols\":[{\"name\":\"f\"}]}", ATF_E_MANIFEST, "symbols[].function_id" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":\"0xg\",\"name\":\"f\"}]}", ATF_E_MANIFEST,
      "symbols[].function_id" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":\"0x\",\"name\":\"f\"}]}", ATF_E_MANIFEST,
      "symbols[].function_id" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":\"x10\",\"name\":\"f\"}]}", ATF_E_MANIFEST,
      "symbols[].function_id" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":\"0x1ffffffffffffffff\",\"name\":\"f\"}]}", ATF_E_MANIFEST,
      "symbols[].function_id" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":1.0,\"name\":\"f\"}]}", ATF_E_MANIFEST,
      "symbols[].function_id" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":1,\"module_id\":\"m\",\"name\":\"f\"}]}", ATF_E_MANIFEST,
      "symbols[].module_id" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":1,\"symbol_index\":-1,\"name\":\"f\"}]}", ATF_E_MANIFEST,
      "symbols[].symbol_index" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":1}]}", ATF_E_MANIFEST, "symbols[].name" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":1,\"name\":7}]}", ATF_E_MANIFEST, "symbols[].name" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":1,\"name\":null}]}", ATF_E_MANIFEST, "symbols[].name" },
    { "{\"threads\":[],\"symbols\":[{\"function_id\":1,\"name\":[\"f\"]}]}", ATF_E_MANIFEST, "symbols[].name" },
    /* timing anchors */
    { "{\"threads\":[],\"timing_anchors\":[{\"media_time_value\":0,\"media_time_scale\":1}]}", ATF_E_MANIFEST,
      "timing_anchors[].host_time_ns" },
    { "{\"threads\":[],\"timing_anchors\":[{\"host_time_ns\":1,\"media_time_value\":0,\"media_time_scale\":0}]}",
      ATF_E_MANIFEST, "timing_anchors[]" },
    { "{\"threads\":[],\"timing_anchors\":[{\"host_time_ns\":1,\"media_time_scale\":1}]}", ATF_E_MANIFEST,
      "timing_anchors[]" },
};

static void test_invalid_manifests(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        atf_manifest *m = (atf_manifest *)&m; /* must be reset to NULL */
        atf_error err;
        memset(&err, 0x5a, sizeof err);
        atf_status st = atf_manifest_parse(&m, c->json, strlen(c->json), "bad.json", &err);
        if (st != c->code || !strstr(err.message, c->needle))
            fail_msg("case %zu %s: got %s \"%s\", want %s naming \"%s\"", i, c->json, atf_status_name(st),
                     st ? err.message : "", atf_status_name(c->code), c->needle);
        assert_null(m);
        assert_int_equal(err.code, st);
        assert_string_equal(err.file, "bad.json");
    }
}

/* The message names the key in the "manifest: KEY: why" form, and the
 * error's field is that key (so tools can point at it). */
static void test_error_names_field(void **state)
{
    (void)state;
    atf_manifest *m;
    atf_error err;
    const char *json = "{\"threads\":[{\"id\":1,\"has_detail\":\"yes\"}]}";
    assert_int_equal(atf_manifest_parse(&m, json, strlen(json), "x/manifest.json", &err), ATF_E_MANIFEST);
    assert_non_null(err.field);
    assert_string_equal(err.field, "threads[].has_detail");
    assert_non_null(strstr(err.message, "manifest: threads[].has_detail: "));
    char line[600];
    atf_error_format(line, sizeof line, &err);
    assert_non_null(strstr(line, "x/manifest.json: "));
    assert_non_null(strstr(line, "threads[].has_detail"));

    json = "{\"threads\":[],\"symbols\":[{\"function_id\":\"0xq\",\"name\":\"f\"}]}";
    assert_int_equal(atf_manifest_parse(&m, json, strlen(json), NULL, &err), ATF_E_MANIFEST);
    assert_string_equal(err.field, "symbols[].function_id");

    /* A JSON syntax error says where. */
    json = "{\"threads\":\n[}";
    assert_int_equal(atf_manifest_parse(&m, json, strlen(json), NULL, &err), ATF_E_MANIFEST);
    assert_non_null(strstr(err.message, "line 2"));
}

static void test_arguments(void **state)
{
    (void)state;
    atf_manifest *m;
    atf_error err;
    assert_int_equal(atf_manifest_parse(NULL, "{}", 2, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_manifest_parse(&m, NULL, 5, NULL, &err), ATF_E_ARG);
    /* NULL with size 0 is empty input: not JSON. */
    assert_int_equal(atf_manifest_parse(&m, NULL, 0, NULL, &err), ATF_E_MANIFEST);
    assert_null(m);
    /* err may be NULL. */
    assert_int_equal(atf_manifest_parse(&m, "[]", 2, NULL, NULL), ATF_E_MANIFEST);
    /* The size bounds the input: the bytes after it are not read. */
    const char *json = "{\"threads\":[]}GARBAGE";
    assert_int_equal(atf_manifest_parse(&m, json, 14, NULL, &err), ATF_OK);
    atf_manifest_free(m);
    assert_int_equal(atf_manifest_parse(&m, json, 13, NULL, &err), ATF_E_MANIFEST);
    atf_manifest_free(NULL);
}

/* 64 MiB is accepted; one byte more is refused before parsing. */
static void test_size_limit(void **state)
{
    (void)state;
    const size_t limit = (size_t)64 << 20;
    char *buf = malloc(limit + 1);
    assert_non_null(buf);
    const char *head = "{\"threads\":[{\"id\":1,\"has_detail\":false}],\"pad\":\"";
    size_t hl = strlen(head);
    memcpy(buf, head, hl);
    memset(buf + hl, 'x', limit - hl - 2);
    memcpy(buf + limit - 2, "\"}", 2);
    atf_manifest *m;
    atf_error err;
    assert_int_equal(atf_manifest_parse(&m, buf, limit, "big.json", &err), ATF_OK);
    assert_int_equal(m->thread_count, 1);
    atf_manifest_free(m);

    /* One more (whitespace, still valid JSON) is over the limit. */
    buf[limit] = ' ';
    m = (atf_manifest *)&m;
    assert_int_equal(atf_manifest_parse(&m, buf, limit + 1, "big.json", &err), ATF_E_LIMIT);
    assert_null(m);
    assert_int_equal(err.code, ATF_E_LIMIT);
    assert_string_equal(err.file, "big.json");
    assert_non_null(strstr(err.message, "64 MiB"));
    free(buf);
}

static void test_load_from_file(void **state)
{
    (void)state;
    char dir[64], path[128];
    cf_mkdtemp(dir, sizeof dir, "manifest");
    tu_path(path, sizeof path, "%s/manifest.json", dir);
    tu_write_text(path, "{\"threads\":[{\"id\":4,\"has_detail\":true}],\"clock_type\":3}");
    atf_manifest *m;
    atf_error err;
    assert_int_equal(atf_manifest_load(&m, path, &err), ATF_OK);
    assert_int_equal(m->thread_count, 1);
    assert_int_equal(m->threads[0].id, 4);
    assert_int_equal(m->clock_type, 3);
    atf_manifest_free(m);

    /* Errors name the file. */
    tu_write_text(path, "{\"threads\":[{\"id\":-4}]}");
    assert_int_equal(atf_manifest_load(&m, path, &err), ATF_E_MANIFEST);
    assert_null(m);
    assert_string_equal(err.file, path);
    assert_non_null(strstr(err.message, "threads[].id"));

    /* Empty file: not JSON. */
    tu_write_text(path, "");
    assert_int_equal(atf_manifest_load(&m, path, &err), ATF_E_MANIFEST);
    assert_string_equal(err.file, path);

    char missing[160];
    tu_path(missing, sizeof missing, "%s/nope.json", dir);
    assert_int_equal(atf_manifest_load(&m, missing, &err), ATF_E_IO);
    assert_null(m);
    assert_string_equal(err.file, missing);
    /* A directory is not a manifest. */
    assert_int_equal(atf_manifest_load(&m, dir, &err), ATF_E_IO);
    assert_int_equal(atf_manifest_load(&m, NULL, &err), ATF_E_ARG);
    cf_rm_rf(dir);
}

/* ---- Random inputs -------------------------------------------------------- */

/* What must hold of any successful parse. */
static void check_invariants(const atf_manifest *m)
{
    for (size_t i = 0; i < m->thread_count; i++) {
        assert_true(m->threads[i].has_detail == 0 || m->threads[i].has_detail == 1 ||
                    m->threads[i].has_detail == -1);
        for (size_t j = 0; j < i; j++)
            assert_true(m->threads[i].id != m->threads[j].id);
    }
    for (size_t i = 0; i < m->symbol_count; i++) {
        assert_non_null(m->symbols[i].name);
        if (i)
            assert_true(m->symbols[i - 1].function_id <= m->symbols[i].function_id);
        /* Lookup finds a symbol with this id (the first of equal ids). */
        const char *n = atf_manifest_symbol_name(m, m->symbols[i].function_id);
        assert_non_null(n);
    }
    for (size_t i = 0; i < m->module_count; i++) {
        assert_non_null(m->modules[i].path);
        assert_non_null(m->modules[i].uuid);
    }
    for (size_t i = 0; i < m->anchor_count; i++)
        assert_true(m->anchors[i].media_time_scale > 0);
    assert_true(strlen(m->format_version) < sizeof m->format_version);
}

static void parse_any(const char *buf, size_t n)
{
    atf_manifest *m = (atf_manifest *)&m;
    atf_error err;
    atf_status st = atf_manifest_parse(&m, buf, n, "fuzz", &err);
    if (st == ATF_OK) {
        assert_non_null(m);
        check_invariants(m);
        atf_manifest_free(m);
    } else {
        assert_int_equal(st, ATF_E_MANIFEST);
        assert_null(m);
        assert_int_equal(err.code, st);
        assert_true(strlen(err.message) < sizeof err.message);
    }
}

static void test_random_bytes(void **state)
{
    (void)state;
    uint64_t rng = 0x1234;
    static const char alphabet[] = "{}[]\":,0123456789-+.eExabcdefnulltrue \\\n";
    char buf[256];
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = (size_t)(tu_rand(&rng) % sizeof buf);
        int json_ish = iter % 2;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = tu_rand(&rng);
            buf[i] = json_ish ? alphabet[r % (sizeof alphabet - 1)] : (char)(r >> 24);
        }
        parse_any(buf, n);
    }
}

static const char valid_manifest[] =
    "{\"format_version\":\"2.1\",\"clock_type\":1,\"time_start_ns\":10,\"time_end_ns\":\"0x20\","
    "\"threads\":[{\"id\":0,\"has_detail\":true},{\"id\":\"0x1\",\"has_detail\":false},{\"id\":2}],"
    "\"modules\":[{\"module_id\":0,\"path\":\"/a\",\"base_address\":\"0x100000000\",\"size\":4096,\"uuid\":\"u\"}],"
    "\"symbols\":[{\"function_id\":\"0x10\",\"module_id\":0,\"symbol_index\":0,\"name\":\"a\"},"
    "{\"function_id\":3,\"module_id\":0,\"symbol_index\":1,\"name\":\"b\\u00e9\\n\"},"
    "{\"function_id\":\"4\",\"name\":\"c\"}],"
    "\"timing_anchors\":[{\"host_time_ns\":1,\"media_time_value\":2,\"media_time_scale\":3}],"
    "\"events_dropped\":0}";

static void test_random_mutations(void **state)
{
    (void)state;
    const size_t vn = sizeof valid_manifest - 1;
    parse_any(valid_manifest, vn);
    {
        atf_manifest *m = parse_ok(valid_manifest);
        assert_int_equal(m->thread_count, 3);
        assert_int_equal(m->symbol_count, 3);
        atf_manifest_free(m);
    }
    static const char interesting[] = "{}[]\":,-0x9fFgz \\";
    char buf[sizeof valid_manifest + 64];
    uint64_t rng = 99;
    int ok = 0;
    for (int iter = 0; iter < 30000; iter++) {
        memcpy(buf, valid_manifest, vn);
        size_t n = vn;
        int edits = 1 + (int)(tu_rand(&rng) % 4);
        for (int e = 0; e < edits; e++) {
            uint64_t r = tu_rand(&rng);
            size_t at = (size_t)((r >> 8) % (n ? n : 1));
            char c = (r >> 40) % 2 ? interesting[(r >> 48) % (sizeof interesting - 1)] : (char)(r >> 48);
            switch (r % 4) {
            case 0: /* replace */
                if (n)
                    buf[at] = c;
                break;
            case 1: /* insert */
                if (n < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = c;
                    n++;
                }
                break;
            case 2: /* delete */
                if (n) {
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                }
                break;
            default: /* truncate */
                n = at;
                break;
            }
        }
        atf_manifest *m = NULL;
        if (atf_manifest_parse(&m, buf, n, "mut", NULL) == ATF_OK) {
            ok++;
            check_invariants(m);
            atf_manifest_free(m);
        }
        parse_any(buf, n);
    }
    /* The mutations are mild enough that some manifests stay valid, and
     * strong enough that most do not: both paths were exercised. */
    assert_true(ok > 100);
    assert_true(ok < 30000 - 100);
}

/* ---- Crash-truncated manifests (SPEC 7a.14) ------------------------------ */

/* A manifest as the recorder writes it while recording (jansson, indent 2),
 * with every kind of token: strings with escapes, \u escapes, a surrogate
 * pair and raw UTF-8 of 2, 3 and 4 bytes, integers, negative and
 * fractional numbers with exponents, true/false/null, nested objects and
 * arrays, empty ones. */
static const char REC_MANIFEST[] =
    "{\n  \"format_version\": \"2.1\",\n  \"layout\": 2,\n  \"clock_type\": 3,\n  \"arch\": 1,\n  \"os\": 4,\n"
    "  \"time_start_ns\": 0,\n  \"time_end_ns\": 0,\n"
    "  \"threads\": [\n    {\n      \"id\": 0,\n      \"has_detail\": true,\n      \"os_thread_id\": 2434,\n"
    "      \"event_count\": 0,\n      \"detail_event_count\": 0\n    },\n"
    "    {\n      \"id\": 18446744073709551615,\n      \"has_detail\": false\n    }\n  ],\n"
    "  \"events_dropped\": 0,\n  \"recorder\": {\n    \"library_version\": \"0.1.0\",\n    \"pid\": 2434,\n"
    "    \"state\": \"recording\",\n    \"load\": -1.25e-3,\n    \"ratio\": 0.5,\n    \"big\": 1E+9,\n"
    "    \"none\": null,\n    \"tags\": [],\n    \"opts\": {},\n    \"sync\": false\n  },\n"
    "  \"modules\": [\n    {\n      \"module_id\": 1,\n      \"path\": \"/usr/lib/x86_64-linux-gnu/libc.so.6\",\n"
    "      \"base_address\": \"0x7f0000000000\",\n      \"size\": 2125824,\n"
    "      \"uuid\": \"d8f7e2a0-\\u00e9\\t\\\"q\\\"\\\\\\/\"\n    }\n  ],\n"
    "  \"symbols\": [\n    {\n      \"function_id\": 4096,\n      \"module_id\": 1,\n      \"symbol_index\": 7,\n"
    "      \"name\": \"caf\xc3\xa9_\xe2\x82\xac_\xf0\x9f\x98\x80_\\ud83d\\ude00\"\n    }\n  ],\n"
    "  \"timing_anchors\": [\n    {\n      \"host_time_ns\": 1000,\n      \"media_time_value\": -90000,\n"
    "      \"media_time_scale\": 90000\n    }\n  ]\n}";

static atf_json_cut cut_of(const char *p, size_t n, size_t *text_len, size_t *error_at)
{
    atf_json_cut c = atf_manifest_json_cut(p, n, text_len, error_at);
    assert_int_not_equal(c, ATF_JCUT_NOMEM);
    return c;
}

/* Every proper prefix of a real manifest is a cut, with or without the NUL
 * tail of the sectors that did not reach the disk; the whole text is not. */
static void test_cut_every_byte(void **state)
{
    (void)state;
    const size_t n = sizeof REC_MANIFEST - 1;
    /* The constant is a valid manifest (the test would prove nothing else). */
    atf_manifest *m = parse_ok(REC_MANIFEST);
    assert_int_equal(m->thread_count, 2);
    assert_int_equal(m->symbol_count, 1);
    atf_manifest_free(m);
    char *buf = malloc(n + 1024);
    assert_non_null(buf);
    size_t len, at;
    for (size_t k = 0; k < n; k++) {
        memcpy(buf, REC_MANIFEST, k);
        if (cut_of(buf, k, &len, &at) != ATF_JCUT_YES)
            fail_msg("the prefix of %zu bytes is not a cut", k);
        assert_int_equal(len, k);
        size_t zeros = 512 - k % 512; /* up to the sector's end, then one more sector */
        memset(buf + k, 0, zeros + 512);
        if (cut_of(buf, k + zeros + 512, &len, &at) != ATF_JCUT_YES)
            fail_msg("the prefix of %zu bytes with %zu NUL bytes is not a cut", k, zeros + 512);
        assert_int_equal(len, k);
        /* The parser refuses every prefix (no prefix is a manifest). */
        atf_manifest *mm = NULL;
        atf_error err;
        assert_int_equal(atf_manifest_parse(&mm, buf, k, "m.json", &err), ATF_E_MANIFEST);
    }
    assert_int_equal(cut_of(REC_MANIFEST, n, &len, &at), ATF_JCUT_NO);
    assert_int_equal(at, n); /* complete: no syntax error */
    /* A complete text followed by zeros or by anything else is not a cut. */
    memcpy(buf, REC_MANIFEST, n);
    memset(buf + n, 0, 100);
    assert_int_equal(cut_of(buf, n + 100, &len, &at), ATF_JCUT_NO);
    assert_int_equal(len, n);
    memcpy(buf + n, "\n \t\r", 4);
    assert_int_equal(cut_of(buf, n + 4, &len, &at), ATF_JCUT_NO);
    assert_int_equal(at, n + 4);
    memcpy(buf + n, "\n{", 2);
    assert_int_equal(cut_of(buf, n + 2, &len, &at), ATF_JCUT_NO);
    assert_int_equal(at, n + 1);
    free(buf);
}

/* A byte that is JSON nowhere (0x01: a control character, inside a string or
 * out of it) before the end: a syntax error, not a cut, wherever the text is
 * cut after it, and reported at that byte. */
static void test_cut_flipped_byte(void **state)
{
    (void)state;
    const size_t n = sizeof REC_MANIFEST - 1;
    char *buf = malloc(n + 512);
    assert_non_null(buf);
    size_t len, at;
    for (size_t i = 0; i < n; i++) {
        memcpy(buf, REC_MANIFEST, n);
        buf[i] = '\x01';
        const size_t ends[] = { i + 1, i + 1 + (n - i - 1) / 2, n };
        for (size_t e = 0; e < 3; e++) {
            memset(buf + ends[e], 0, 512);
            if (cut_of(buf, ends[e] + (e == 1 ? 512 : 0), &len, &at) != ATF_JCUT_NO)
                fail_msg("byte %zu flipped, cut at %zu: taken as a cut", i, ends[e]);
            assert_int_equal(at, i);
            memcpy(buf + ends[e], REC_MANIFEST + ends[e], n - ends[e]);
        }
    }
    free(buf);
}

static void cut_yes(const char *text)
{
    size_t len, at;
    if (cut_of(text, strlen(text), &len, &at) != ATF_JCUT_YES)
        fail_msg("not taken as a cut: %s", text);
}

static void cut_no(const char *text, size_t error_at)
{
    size_t len, at;
    if (cut_of(text, strlen(text), &len, &at) != ATF_JCUT_NO)
        fail_msg("taken as a cut: %s", text);
    if (at != error_at)
        fail_msg("%s: error at %zu, expected %zu", text, at, error_at);
}

/* Where a cut can fall, and the syntax errors that look like one. */
static void test_cut_cases(void **state)
{
    (void)state;
    size_t len, at;
    /* Before the value: empty or NUL only is a cut; whitespace alone is not. */
    assert_int_equal(cut_of("", 0, &len, &at), ATF_JCUT_YES);
    assert_int_equal(cut_of("\0\0\0\0", 4, &len, &at), ATF_JCUT_YES);
    assert_int_equal(len, 0);
    cut_no(" \n\t\r ", 5);
    assert_int_equal(cut_of(" \0\0", 3, &len, &at), ATF_JCUT_NO);
    assert_int_equal(at, 1);
    cut_yes("{");
    cut_yes("{\"");
    cut_yes("{\"threads\"");
    cut_yes("{\"threads\" ");
    cut_yes("{\"threads\":");
    cut_yes("{\"threads\":[");
    cut_yes("{\"threads\":[{");
    cut_yes("{\"threads\":[{}");
    cut_yes("{\"threads\":[],");
    cut_yes("{\"a\":{\"b\":[[],{}]");
    cut_yes("{\"a\":\"abc");
    cut_yes("{\"a\":\"\\");
    cut_yes("{\"a\":\"\\u");
    cut_yes("{\"a\":\"\\u00");
    cut_yes("{\"a\":\"\\ud83d");
    cut_yes("{\"a\":\"\\ud83d\\");
    cut_yes("{\"a\":\"\\ud83d\\u");
    cut_yes("{\"a\":\"\\ud83d\\ude0");
    cut_yes("{\"a\":\"\xc3");
    cut_yes("{\"a\":\"\xe2\x82");
    cut_yes("{\"a\":\"\xf0\x9f\x98");
    cut_yes("{\"a\":-");
    cut_yes("{\"a\":0");
    cut_yes("{\"a\":12");
    cut_yes("{\"a\":1.");
    cut_yes("{\"a\":1.5");
    cut_yes("{\"a\":1e");
    cut_yes("{\"a\":1E+");
    cut_yes("{\"a\":1e-7");
    cut_yes("{\"a\":t");
    cut_yes("{\"a\":tru");
    cut_yes("{\"a\":true");
    cut_yes("{\"a\":fals");
    cut_yes("{\"a\":nul");
    /* Syntax errors before the end: the byte is named. */
    cut_no("x", 0);
    cut_no("  [", 2);                   /* the top-level value of a manifest is an object */
    cut_no("\"threads", 0);
    cut_no("{,", 1);
    cut_no("{\"a\" 1", 5);
    cut_no("{\"a\"::", 5);
    cut_no("{\"a\":1 2", 7);
    cut_no("{\"a\":[1,]", 8);
    cut_no("{\"a\":[1}", 7);
    cut_no("{\"a\":{\"b\":1]", 11);
    cut_no("{\"a\":01", 6);
    cut_no("{\"a\":-x", 6);
    cut_no("{\"a\":1.e", 7);
    cut_no("{\"a\":1e+x", 8);
    cut_no("{\"a\":.5", 5);
    cut_no("{\"a\":+1", 5);
    cut_no("{\"a\":tx", 6);
    cut_no("{\"a\":truex", 9);
    cut_no("{\"a\":NaN", 5);
    cut_no("{\"a\":\"\\x", 7);
    cut_no("{\"a\":\"\\u00g", 10);
    cut_no("{\"a\":\"\\ud83dx", 12);   /* a high surrogate alone */
    cut_no("{\"a\":\"\\ud83d\\n", 13);
    cut_no("{\"a\":\"\\ud83d\\u0041", 12);
    cut_no("{\"a\":\"\\ude00", 6);     /* a low surrogate alone */
    cut_no("{\"a\":\"\xff", 6);
    cut_no("{\"a\":\"\xc0\x80", 6);    /* overlong */
    cut_no("{\"a\":\"\xe0\x80", 7);    /* overlong */
    cut_no("{\"a\":\"\xed\xa0", 7);    /* a surrogate in UTF-8 */
    cut_no("{\"a\":\"\xf4\x90", 7);    /* above U+10FFFF */
    cut_no("{\"a\":\"\xc3x", 7);
    cut_no("{\"a\":\"\t", 6);          /* a raw control character in a string */
    cut_no("{\"a\":1}}", 7);
    cut_no("{\"a\":1} x", 8);
    cut_no("{} ", 3);                   /* complete: not a cut */
    /* NUL bytes: a tail is dropped, a NUL before other bytes is an error. */
    assert_int_equal(cut_of("{\"a\":\"b\0\0", 9, &len, &at), ATF_JCUT_YES);
    assert_int_equal(len, 7);
    assert_int_equal(cut_of("{\"a\":\0\"b", 9, &len, &at), ATF_JCUT_NO);
    assert_int_equal(at, 5);
    assert_int_equal(cut_of("{\"a\":\"\0b", 8, &len, &at), ATF_JCUT_NO);
    assert_int_equal(at, 6);
    assert_int_equal(cut_of("{}\0", 3, &len, &at), ATF_JCUT_NO);
    /* Deep nesting costs a bit a level, not a limit. */
    char deep[4001];
    deep[0] = '{';
    memcpy(deep + 1, "\"a\":", 4);
    memset(deep + 5, '[', sizeof deep - 6);
    deep[sizeof deep - 1] = '\0';
    cut_yes(deep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ada_reader_schema),
        cmocka_unit_test(test_empty_thread_list_and_missing_times),
        cmocka_unit_test(test_recorder_extras),
        cmocka_unit_test(test_symbol_lookup_many),
        cmocka_unit_test(test_unknown_keys_ignored),
        cmocka_unit_test(test_nul_in_strings),
        cmocka_unit_test(test_duplicate_symbol_first_wins),
        cmocka_unit_test(test_u64_extremes),
        cmocka_unit_test(test_u64_out_of_range),
        cmocka_unit_test(test_invalid_manifests),
        cmocka_unit_test(test_error_names_field),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_load_from_file),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_random_mutations),
        cmocka_unit_test(test_cut_every_byte),
        cmocka_unit_test(test_cut_flipped_byte),
        cmocka_unit_test(test_cut_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
