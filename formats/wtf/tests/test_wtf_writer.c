/* The WTF writer's helpers that atf export uses (wtf_writer.c), read back
 * with the reader: scope enter/leave, marks, a zone id deleted and created
 * again for another zone, the timebase kept when it is 0, one zone create
 * per chunk, the bytes written; whole files written and read back, and
 * the writer's refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/wtf.h>

#include "wtf_test_util.h"
#include "wtf_bytes.h"

typedef struct seen {
    char line[64][160];
    size_t n;
} seen;

/* One line per event: "name zone time [first argument]". */
static void read_back(const char *path, seen *out, double *timebase)
{
    atf_wtf_reader *r;
    atf_error err;
    assert_int_equal(atf_wtf_reader_open(&r, path, NULL, &err), ATF_OK);
    *timebase = atf_wtf_reader_timebase(r);
    const atf_wtf_chunk *c;
    out->n = 0;
    while (atf_wtf_reader_next_chunk(r, &c, &err) == ATF_OK) {
        atf_wtf_event ev;
        while (atf_wtf_reader_next_event(r, &ev, &err) == ATF_OK) {
            if (ev.def->builtin == ATF_WTF_BI_DEFINE)
                continue;
            assert_true(out->n < 64);
            char arg[100] = "";
            atf_wtf_value v;
            if (ev.def->arg_count && atf_wtf_event_arg(r, &ev, ev.def->arg_count > 1 ? 1 : 0, &v, &err) == ATF_OK) {
                if (v.type == ATF_WTF_ASCII || v.type == ATF_WTF_ANY)
                    snprintf(arg, sizeof arg, " %.*s", v.s ? (int)v.s_len : 4, v.s ? v.s : "null");
                else
                    snprintf(arg, sizeof arg, " %llu", (unsigned long long)v.u);
            }
            snprintf(out->line[out->n++], 160, "%s %d %u%s", ev.def->name, (int)ev.zone, (unsigned)ev.time, arg);
        }
    }
    atf_wtf_summary s;
    atf_wtf_reader_summary(r, &s);
    assert_int_equal(s.state, ATF_WTF_COMPLETE);
    atf_wtf_reader_close(r);
}

static void test_helpers_read_back(void **state)
{
    (void)state;
    char path[] = "/tmp/atf-wtf-writer-XXXXXX";
    wtu_temp_file(path);
    atf_wtf_write_options o = ATF_WTF_WRITE_OPTIONS_INIT;
    o.timebase_given = 1;   /* with timebase_ms 0.0 */
    atf_wtf_writer *w;
    atf_error err;
    assert_int_equal(atf_wtf_writer_open(&w, path, &o, &err), ATF_OK);
    uint64_t header_bytes = atf_wtf_writer_bytes(w);
    assert_true(header_bytes > 12);
    assert_int_equal(atf_wtf_writer_zone_create(w, 3, "first", "native_script", NULL, 1, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_zone_set(w, 3, 1, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_scope_enter(w, "outer", 2, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_append_data(w, "k", "true", 3, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_scope_leave(w, 4, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_mark(w, "a mark", "{\"v\":1}", 5, &err), ATF_OK);
    /* The id again, for another zone: refused while it exists, fine after a delete. */
    assert_int_equal(atf_wtf_writer_zone_create(w, 3, "second", "native_script", NULL, 6, &err), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_zone_delete(w, 3, 6, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_zone_delete(w, 3, 6, &err), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_zone_set(w, 3, 6, &err), ATF_E_ARG);
    assert_int_equal(atf_wtf_writer_zone_create(w, 3, "second", "native_script", NULL, 7, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_zone_set(w, 3, 7, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_scope_enter(w, NULL, 8, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_scope_leave(w, 9, &err), ATF_OK);
    /* A new chunk starts with the current zone, created once and set. */
    assert_int_equal(atf_wtf_writer_flush(w, &err), ATF_OK);
    assert_true(atf_wtf_writer_bytes(w) > header_bytes);
    assert_int_equal(atf_wtf_writer_scope_enter(w, "late", 10, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_scope_leave(w, 11, &err), ATF_OK);
    assert_int_equal(atf_wtf_writer_close(w, &err), ATF_OK);

    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    seen s;
    double timebase = -1;
    read_back(path, &s, &timebase);
    assert_true(timebase == 0.0);   /* kept, not "now" */
    const char *want[] = {
        /* A zone#set is in the zone it leaves (none yet for the first). */
        "wtf.zone#create -1 1 first", "wtf.zone#set -1 1 3", "wtf.scope#enter 3 2 outer",
        "wtf.scope#appendData 3 3 true", "wtf.scope#leave 3 4", "wtf.trace#mark 3 5 {\"v\":1}",
        "wtf.zone#delete 3 6 3", "wtf.zone#create 3 7 second", "wtf.zone#set 3 7 3",
        "wtf.scope#enter 3 8 null", "wtf.scope#leave 3 9",
        "wtf.zone#create 3 10 second", "wtf.zone#set 3 10 3", "wtf.scope#enter 3 10 late", "wtf.scope#leave 3 11",
    };
    assert_int_equal(s.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < s.n; i++)
        assert_string_equal(s.line[i], want[i]);
    unlink(path);
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
        cmocka_unit_test(test_helpers_read_back),
        cmocka_unit_test(test_writer_round_trip),
        cmocka_unit_test(test_writer_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
