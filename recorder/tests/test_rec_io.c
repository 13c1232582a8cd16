/* Tests for rec_io.c, a writer's I/O thread pool: the order in which the
 * threads take requests (a file's one at a time and in order, other files'
 * around them), and the pool's start, completion count and stop with real
 * requests on two files. */
#include "rec_test_util.h"

#include "rec_io.h"
#include "rec_sink.h"

/* The I/O threads' rule: the first queued request whose file has none
 * running, so a file's requests run one at a time and in order while other
 * files' requests go ahead of them. */
static void test_io_take_order(void **state)
{
    (void)state;
    rec_io io;
    memset(&io, 0, sizeof io);
    rec_sink a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    io.head = REC_IOQ - 2;   /* across the wrap of the queue */
    rec_ioreq q[4] = { { &a, 0, 4096, 0 }, { &a, 4096, 4096, 0 }, { &b, 0, 4096, 0 }, { &b, 4096, 4096, 1 } };
    for (unsigned i = 0; i < 4; i++)
        io.q[(io.head + i) % REC_IOQ] = q[i];
    io.count = 4;
    rec_ioreq r;
    assert_int_equal(rec_io_take(&io, &r), 0);   /* a's first */
    assert_ptr_equal(r.s, &a);
    assert_int_equal(r.off, 0);
    a.io_busy = 1;
    assert_int_equal(rec_io_take(&io, &r), 0);   /* a runs: b's first, before a's second */
    assert_ptr_equal(r.s, &b);
    assert_int_equal(r.off, 0);
    b.io_busy = 1;
    assert_int_equal(rec_io_take(&io, &r), -1);  /* both run: nothing may start */
    assert_int_equal(io.count, 2);
    b.io_busy = 0;
    assert_int_equal(rec_io_take(&io, &r), 0);   /* b's second, a's still waits */
    assert_ptr_equal(r.s, &b);
    assert_int_equal(r.off, 4096);
    assert_int_equal(r.buffered, 1);
    a.io_busy = 0;
    assert_int_equal(rec_io_take(&io, &r), 0);
    assert_ptr_equal(r.s, &a);
    assert_int_equal(r.off, 4096);
    assert_int_equal(io.count, 0);
    assert_int_equal(rec_io_take(&io, &r), -1);
}

/* Two files written through one pool: every request completes (counted),
 * the completion wait returns once nothing is queued or running, and the
 * bytes are in the files. */
static void test_io_pool_runs_requests(void **state)
{
    (void)state;
    char dir[256], path[2][512];
    rt_mkdtemp(dir, sizeof dir, "iopool");
    rec_io io;
    assert_int_equal(rec_io_start(&io), 0);
    assert_true(io.started >= 1);
    uint64_t seen = rec_io_completed(&io);
    assert_int_equal(seen, 0);
    rec_io_wait_completion(&io, seen);   /* nothing queued: returns at once */
    rec_sink s[2];
    uint8_t header[64] = { 0 };
    atf_error err;
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "%s/f%d", dir, k);
        memset(&s[k], 0, sizeof s[k]);
        assert_int_equal(rec_sink_open(&s[k], &io, path[k], header, 4096, 4, 0, 0, NULL, &err), ATF_OK);
        uint8_t blk[4096];
        memset(blk, 'a' + k, sizeof blk);
        for (int i = 0; i < 3; i++)
            rec_sink_append(&s[k], blk, sizeof blk);
        rec_sink_flush(&s[k]);
    }
    assert_true(rec_io_completed(&io) >= 2);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(atomic_load(&s[k].inflight), 0);
        assert_int_equal(atomic_load(&s[k].err), 0);
        assert_int_equal(atomic_load(&s[k].visible), s[k].fill);
        uint8_t got[64 + 3 * 4096];
        FILE *f = fopen(path[k], "rb");
        assert_non_null(f);
        assert_int_equal(fread(got, 1, sizeof got, f), sizeof got);
        fclose(f);
        for (size_t i = 64; i < sizeof got; i++)
            assert_int_equal(got[i], 'a' + k);
        rec_sink_abandon(&s[k]);
    }
    rec_io_stop(&io);
    assert_int_equal(io.started, 0);
    rt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_io_take_order),
        cmocka_unit_test(test_io_pool_runs_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
