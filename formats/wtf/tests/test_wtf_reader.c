/* The WTF reader (wtf_reader.c): hand-made files, its answers on damage,
 * and crash recovery at every cut of a written file. */
#include "wtf_bytes.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_hand_made),
        cmocka_unit_test(test_reader_damage),
        cmocka_unit_test(test_every_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
