/* Tests for the detail lane (rec_writer.c's detail queue and links): which
 * detail events are persisted (exactly those whose timestamps fall in
 * [trigger - pre_roll, disable + post_roll]), forward and backward links
 * consistent in both layouts — including pre-roll events whose index events
 * were already in the file at the trigger (links patched, CRC still right)
 * — the pre-roll memory bound, attach, the capturing flag, ARM64 payloads,
 * and several threads with several windows. */
#include "rec_test_util.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct window {
    uint64_t a, b;
} window;

static int in_windows(const window *w, size_t n, uint64_t ts)
{
    for (size_t i = 0; i < n; i++)
        if (ts >= w[i].a && ts <= w[i].b)
            return 1;
    return 0;
}

/* Payload of event i: 8 bytes of i, then (i * 7 + k) for k < 40. */
static uint32_t make_payload(uint8_t *buf, uint64_t i)
{
    for (int k = 0; k < 8; k++)
        buf[k] = (uint8_t)(i >> (8 * k));
    for (int k = 0; k < 40; k++)
        buf[8 + k] = (uint8_t)(i * 7 + (uint64_t)k);
    return 48;
}

/* Records events [from, to) of thread tag 1, each with its detail payload. */
static void record_range(atf_recorder *r, uint64_t from, uint64_t to)
{
    uint8_t buf[64];
    for (uint64_t i = from; i < to; i++) {
        uint32_t kind = (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        assert_int_equal(atf_recorder_event_detail(r, kind, 1ull << 32 | i, (i & 1) ? 4 : 3, buf, make_payload(buf, i)),
                         ATF_OK);
    }
}

typedef struct detail_producer {
    atf_recorder *r;
    uint64_t tag;
    _Atomic int stop;
    _Atomic uint64_t n;
    uint64_t refused;
} detail_producer;

static void *detail_loop(void *p)
{
    detail_producer *a = p;
    uint8_t buf[64];
    uint64_t i = 0;
    while (!atomic_load(&a->stop) && i < 5000000) {   /* bounded: a hung test must not fill the disk */
        uint32_t kind = (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        uint32_t size = make_payload(buf, i);
        if (atf_recorder_event_detail(a->r, kind, a->tag << 32 | i,
                                      kind == ATF_EVENT_CALL ? ATF_DETAIL_FUNCTION_CALL : ATF_DETAIL_FUNCTION_RETURN,
                                      buf, size) != ATF_OK)
            a->refused++;
        i++;
        atomic_store(&a->n, i);
        if (i % 64 == 0)
            rt_sleep_us(100);
    }
    return NULL;
}

/* Checks one thread: every index event is linked iff its timestamp is in a
 * window; links resolve both ways; payloads are the event's; detail events
 * in index order. @return linked count; *pre / *post count linked events
 * before the first trigger / after the last disable. */
static uint64_t check_thread_links(const atf_session_thread *t, const window *w, size_t nw, uint64_t tag,
                                   uint64_t trigger, uint64_t disable, uint64_t *pre, uint64_t *post)
{
    uint64_t n = atf_index_reader_count(t->index), linked = 0, expect_d = 0;
    assert_int_equal(atf_index_reader_info(t->index)->checksum, ATF_CHECKSUM_CRC32C);
    if (t->detail)
        assert_int_equal(atf_detail_reader_info(t->detail)->checksum, ATF_CHECKSUM_CRC32C);
    for (uint64_t i = 0; i < n; i++) {
        atf_index_event e;
        atf_index_reader_get(t->index, i, &e);
        assert_int_equal(e.function_id, tag << 32 | i);
        int want = in_windows(w, nw, e.timestamp_ns);
        if (!want) {
            if (e.detail_seq != ATF_NO_DETAIL) {
                atf_detail_event dd;
                atf_detail_reader_follow(t->detail, &e, &dd);
                for (size_t k = 0; k < nw; k++)
                    print_message("window %zu: %llu .. %llu\n", k, (unsigned long long)w[k].a, (unsigned long long)w[k].b);
                print_message("detail ts %llu index_seq %llu\n", (unsigned long long)dd.timestamp, (unsigned long long)dd.index_seq);
                fail_msg("event %llu (ts %llu) is linked but outside every window", (unsigned long long)i,
                         (unsigned long long)e.timestamp_ns);
            }
            continue;
        }
        if (e.detail_seq == ATF_NO_DETAIL)
            fail_msg("event %llu (ts %llu) is in a window but has no detail event", (unsigned long long)i,
                     (unsigned long long)e.timestamp_ns);
        assert_int_equal(e.detail_seq, expect_d);
        expect_d++;
        atf_detail_event d;
        assert_int_equal(atf_detail_reader_follow(t->detail, &e, &d), ATF_OK);
        assert_int_equal(d.index_seq, i);
        assert_int_equal(d.timestamp, e.timestamp_ns);
        assert_int_equal(d.event_type, (i & 1) ? ATF_DETAIL_FUNCTION_RETURN : ATF_DETAIL_FUNCTION_CALL);
        uint8_t buf[64];
        uint32_t size = make_payload(buf, i);
        assert_int_equal(d.payload_size, size);
        assert_memory_equal(d.payload, buf, size);
        atf_index_event back;
        assert_int_equal(atf_index_reader_follow(t->index, &d, &back), ATF_OK);
        assert_int_equal(back.detail_seq, e.detail_seq);
        linked++;
        if (e.timestamp_ns < trigger)
            (*pre)++;
        if (e.timestamp_ns > disable)
            (*post)++;
    }
    assert_int_equal(t->detail ? atf_detail_reader_count(t->detail) : 0, linked);
    return linked;
}

/* Records count detail events from the calling thread (function_id = 1 << 32 | i). */
static void record_detail_events(atf_recorder *r, uint64_t *i, uint64_t count)
{
    uint8_t buf[64];
    for (uint64_t k = 0; k < count; k++, (*i)++) {
        uint32_t kind = (*i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        assert_int_equal(atf_recorder_event_detail(r, kind, 1ull << 32 | *i, (*i & 1) ? 4 : 3, buf,
                                                   make_payload(buf, *i)),
                         ATF_OK);
    }
}

/* Records batches of 64 events, 1 ms apart, for ms milliseconds. */
static void record_for(atf_recorder *r, uint64_t *i, unsigned ms)
{
    uint64_t end = rt_now_ns() + (uint64_t)ms * 1000000u;
    while (rt_now_ns() < end) {
        record_detail_events(r, i, 64);
        rt_sleep_us(1000);
    }
}

/* Phases, all from this thread; windows of seconds, so that no scheduling
 * delay can move an event across a boundary the test relies on:
 *   A  (with_old) events, then a pause longer than the pre-roll: never
 *      persisted;
 *   B  events, flushed to the file, then the trigger: the pre-roll, whose
 *      index events are on disk, so their forward links must be patched;
 *   C  events while the window is open;
 *   D  events after disable, inside the post-roll; stop() then ends the
 *      window (manifest: detail_windows).
 * Which events are linked is checked against their recorded timestamps. */
static void pre_post_roll(atf_layout layout, int with_old)
{
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "roll");
    atf_recorder_options o = rt_options(dir);
    o.layout = layout;
    o.detail = 1;
    o.pre_roll_ns = 3000000000u;
    o.post_roll_ns = 3000000000u;
    atf_recorder *r = rt_start(&o);
    assert_int_equal(atf_recorder_detail_capturing(r), 1);   /* pre-roll: always capturing */
    uint64_t i = 0, t_en, t_dis;
    if (with_old) {
        record_detail_events(r, &i, 3000);                    /* A */
        rt_sleep_us(3300000);
    }
    uint64_t a_end = i;
    record_detail_events(r, &i, 3000);                        /* B */
    assert_int_equal(atf_recorder_flush(r, 10000), ATF_OK);
    assert_int_equal(atf_recorder_detail_enable(r, &t_en), ATF_OK);
    record_for(r, &i, 50);                                    /* C */
    assert_int_equal(atf_recorder_detail_disable(r, &t_dis), ATF_OK);
    record_for(r, &i, 50);                                    /* D */
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    assert_int_equal(st.events_dropped, 0);
    assert_int_equal(st.detail_preroll_evicted, 0);
    assert_true(st.detail_links_patched > 0);

    json_t *j = rt_manifest_json(dir);
    json_t *win = json_array_get(json_object_get(json_object_get(j, "recorder"), "detail_windows"), 0);
    window w = { t_en - o.pre_roll_ns, rt_json_u64(win, "end_ns", NULL) };
    assert_int_equal(rt_json_u64(win, "start_ns", NULL), w.a);
    assert_true(w.b > t_dis && w.b <= t_dis + o.post_roll_ns);   /* cut short by stop() */
    assert_int_equal(rt_json_u64(j, "recorder", "detail_links_patched", NULL), st.detail_links_patched);
    json_decref(j);

    rt_check_opaque_detail(dir, 0);
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_thread_count(s), 1);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    assert_non_null(t->detail);
    assert_int_equal(atf_session_manifest(s)->threads[0].has_detail, 1);
    assert_true(atf_index_reader_header(t->index)->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE);
    assert_int_equal(atf_index_reader_count(t->index), i);
    uint64_t pre = 0, post = 0;
    uint64_t linked = check_thread_links(t, &w, 1, 1, t_en, t_dis, &pre, &post);
    assert_int_equal(linked, st.detail_written);
    atf_index_event e;
    if (with_old) {
        atf_index_reader_get(t->index, a_end - 1, &e);
        assert_true(e.detail_seq == ATF_NO_DETAIL);   /* A: too old for the pre-roll */
    }
    atf_index_reader_get(t->index, a_end, &e);
    assert_true(e.detail_seq != ATF_NO_DETAIL);       /* B: the pre-roll */
    assert_int_equal(linked, i - a_end);              /* B, C and D, all of them */
    assert_true(pre >= 3000);
    assert_true(post > 0);
    /* Patched links are the pre-roll's (and, rarely, an event recorded in
     * the instant between a pass's snapshot and its drain). */
    assert_true(st.detail_links_patched >= 3000 && st.detail_links_patched <= linked);
    atf_session_close(s);
    rt_rm_rf(dir);
}

static void test_pre_post_roll_layout2(void **state)
{
    (void)state;
    pre_post_roll(ATF_LAYOUT_2, 1);
}

static void test_pre_post_roll_layout1(void **state)
{
    (void)state;
    pre_post_roll(ATF_LAYOUT_1, 0);
}

/* A pre-roll longer than its memory: the oldest pre-roll events are evicted
 * and counted; what is persisted is the most recent part, without gaps. */
static void test_preroll_memory_bound(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "evict");
    atf_recorder_options o = rt_options(dir);
    o.detail = 1;
    o.detail_max_payload = 256;
    o.pre_roll_ns = 10000000000ull;
    o.pre_roll_bytes = 64u << 10;
    atf_recorder *r = rt_start(&o);
    uint64_t n = 20000;
    record_range(r, 0, n);
    assert_int_equal(atf_recorder_flush(r, 10000), ATF_OK);
    uint64_t t_en;
    assert_int_equal(atf_recorder_detail_enable(r, &t_en), ATF_OK);
    record_range(r, n, n + 100);
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    assert_true(st.detail_preroll_evicted > 0);
    rt_check_opaque_detail(dir, 0);
    atf_session *s = rt_open(dir);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    /* Linked: exactly a suffix [k, n + 100). */
    uint64_t k = UINT64_MAX;
    for (uint64_t i = 0; i < n + 100; i++) {
        atf_index_event e;
        atf_index_reader_get(t->index, i, &e);
        if (e.detail_seq != ATF_NO_DETAIL && k == UINT64_MAX)
            k = i;
        if (k != UINT64_MAX && e.detail_seq == ATF_NO_DETAIL)
            fail_msg("event %llu not linked after the pre-roll started at %llu", (unsigned long long)i,
                     (unsigned long long)k);
    }
    assert_true(k > 0 && k < n);
    uint64_t kept = n - k;
    /* 48-byte payloads take 80 bytes in pre-roll memory. */
    assert_true(kept * 80 <= o.pre_roll_bytes);
    assert_int_equal(kept + st.detail_preroll_evicted, n);
    assert_int_equal(atf_detail_reader_count(t->detail), kept + 100);
    atf_session_close(s);
    json_t *j = rt_manifest_json(dir);
    assert_int_equal(rt_json_u64(j, "recorder", "detail_preroll_evicted", NULL), st.detail_preroll_evicted);
    json_decref(j);
    rt_rm_rf(dir);
}

/* A window open from the start persists every detail event, however far
 * the writer's queue runs ahead of the index lane: records newer than the
 * writer's window snapshot are undecided, not pre-roll, and must never be
 * evicted (they once were, when the queue held more than pre_roll_bytes). */
static void test_open_window_keeps_everything(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "openwin");
    atf_recorder_options o = rt_options(dir);
    o.detail = 1;
    o.pre_roll_bytes = 16u << 10;   /* ~200 records of pre-roll memory */
    atf_recorder *r = rt_start(&o);
    assert_int_equal(atf_recorder_detail_enable(r, NULL), ATF_OK);
    uint64_t n = rt_scaled(400000);
    record_range(r, 0, n);
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    assert_int_equal(st.detail_preroll_evicted, 0);
    assert_int_equal(st.detail_dropped, 0);
    assert_int_equal(st.detail_written, n);
    rt_check_opaque_detail(dir, 0);
    atf_session *s = rt_open(dir);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    assert_int_equal(atf_index_reader_count(t->index), n);
    assert_int_equal(atf_detail_reader_count(t->detail), n);
    for (uint64_t i = 0; i < n; i += 997) {
        atf_index_event e;
        assert_int_equal(atf_index_reader_get(t->index, i, &e), ATF_OK);
        assert_int_equal(e.detail_seq, i);
    }
    atf_session_close(s);
    rt_rm_rf(dir);
}

/* Attach to the current event: in the window and still in memory, then
 * after the event reached the file (its link patched there). */
static void test_attach(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "attach");
    atf_recorder_options o = rt_options(dir);
    o.detail = 1;
    atf_recorder *r = rt_start(&o);
    assert_int_equal(atf_recorder_attach_detail(r, 3, "A", 1), ATF_E_STATE);   /* no event yet */
    assert_int_equal(atf_recorder_detail_capturing(r), 0);
    assert_int_equal(atf_recorder_detail_enable(r, NULL), ATF_OK);
    assert_int_equal(atf_recorder_detail_capturing(r), 1);
    assert_int_equal(atf_recorder_call(r, 1), ATF_OK);
    assert_int_equal(atf_recorder_attach_detail(r, 3, "first", 5), ATF_OK);
    assert_int_equal(atf_recorder_attach_detail(r, 3, "again", 5), ATF_E_STATE);
    for (uint64_t i = 0; i < 2000; i++)
        assert_int_equal(atf_recorder_return(r, 2 + i), ATF_OK);
    assert_int_equal(atf_recorder_flush(r, 10000), ATF_OK);
    assert_int_equal(atf_recorder_attach_detail(r, 4, "late", 4), ATF_OK);
    /* Too big: the index event is recorded, the detail event counted. */
    static uint8_t big[8192];
    assert_int_equal(atf_recorder_event_detail(r, ATF_EVENT_CALL, 9, 3, big, sizeof big), ATF_E_LIMIT);
    rt_stop(r);
    atf_recorder_stats st;
    atf_recorder_get_stats(r, &st);
    atf_recorder_destroy(r);
    assert_int_equal(st.detail_dropped, 1);
    assert_int_equal(st.detail_written, 2);
    rt_check_opaque_detail(dir, 0);
    atf_session *s = rt_open(dir);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    assert_int_equal(atf_index_reader_count(t->index), 2002);
    assert_int_equal(atf_detail_reader_count(t->detail), 2);
    assert_int_equal(atf_index_reader_info(t->index)->checksum, ATF_CHECKSUM_CRC32C);
    for (uint64_t i = 0; i < 2002; i++) {
        atf_index_event e;
        atf_index_reader_get(t->index, i, &e);
        uint64_t want = i == 0 ? 0 : i == 2000 ? 1 : ATF_NO_DETAIL;
        assert_true(e.detail_seq == want);
    }
    atf_detail_event d;
    atf_detail_reader_get(t->detail, 0, &d);
    assert_int_equal(d.index_seq, 0);
    assert_memory_equal(d.payload, "first", 5);
    atf_detail_reader_get(t->detail, 1, &d);
    assert_int_equal(d.index_seq, 2000);
    assert_int_equal(d.event_type, 4);
    assert_memory_equal(d.payload, "late", 4);
    atf_session_close(s);
    rt_rm_rf(dir);
}

/* Without pre-roll the producers capture only while a window is open or in
 * its post-roll. */
static void test_capturing_flag(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "capt");
    atf_recorder_options o = rt_options(dir);
    o.detail = 1;
    o.post_roll_ns = 20000000u;
    atf_recorder *r = rt_start(&o);
    assert_int_equal(atf_recorder_detail_capturing(r), 0);
    assert_int_equal(atf_recorder_detail_disable(r, NULL), ATF_OK);   /* nothing open: no-op */
    assert_int_equal(atf_recorder_detail_enable(r, NULL), ATF_OK);
    assert_int_equal(atf_recorder_detail_enable(r, NULL), ATF_OK);    /* already open: no-op */
    assert_int_equal(atf_recorder_detail_capturing(r), 1);
    uint64_t t_dis;
    assert_int_equal(atf_recorder_detail_disable(r, &t_dis), ATF_OK);
    int off = 0;
    for (int i = 0; i < 2000 && !off; i++) {
        if (!atf_recorder_detail_capturing(r)) {
            off = 1;
            assert_true(rt_now_ns() >= t_dis + o.post_roll_ns);
        }
        rt_sleep_us(1000);
    }
    assert_true(off);
    rt_stop(r);
    assert_int_equal(atf_recorder_detail_enable(r, NULL), ATF_E_STATE);
    atf_recorder_destroy(r);
    json_t *j = rt_manifest_json(dir);
    json_t *wins = json_object_get(json_object_get(j, "recorder"), "detail_windows");
    assert_int_equal(json_array_size(wins), 1);
    json_decref(j);
    rt_rm_rf(dir);
}

/* With a detail lane, detail.atf is there as soon as thread_K/ is (created
 * in the same temporary directory: docs/powerloss.md, LINK-005/LINK-006),
 * before any detail event is written, and a thread that never writes one
 * ends with a finalized detail.atf of 0 events that the index header and
 * the manifest announce. */
static void test_detail_file_from_the_start(void **state)
{
    (void)state;
    char dir[256], p[512];
    rt_mkdtemp(dir, sizeof dir, "dfile");
    atf_recorder_options o = rt_options(dir);
    o.detail = 1;
    atf_recorder *r = rt_start(&o);
    record_range(r, 0, 100);   /* no window open: no detail event is kept */
    assert_int_equal(atf_recorder_flush(r, 0), ATF_OK);
    assert_true(rt_exists(rt_path(p, sizeof p, "%s/thread_0/index.atf", dir)));
    struct stat st;
    assert_int_equal(stat(rt_path(p, sizeof p, "%s/thread_0/detail.atf", dir), &st), 0);
    assert_int_equal(st.st_size, 64);   /* its placeholder header, nothing else yet */
    rt_stop(r);
    atf_recorder_destroy(r);
    assert_int_equal(rt_check(dir, 0), 0);
    atf_index_reader *ir = NULL;
    atf_error err;
    assert_int_equal(atf_index_reader_open(&ir, rt_path(p, sizeof p, "%s/thread_0/index.atf", dir), NULL, &err),
                     ATF_OK);
    assert_true(atf_index_reader_header(ir)->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE);
    assert_int_equal(atf_index_reader_header(ir)->event_count, 100);
    atf_index_reader_close(ir);
    json_t *j = rt_manifest_json(dir);
    json_t *t0 = json_array_get(json_object_get(j, "threads"), 0);
    assert_true(json_is_true(json_object_get(t0, "has_detail")));
    assert_int_equal(json_integer_value(json_object_get(t0, "detail_event_count")), 0);
    json_decref(j);
    rt_rm_rf(dir);
}

/* The ARM64 function payload through atf_recorder_event_arm64(). */
static void test_arm64_payload(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "arm64");
    atf_recorder_options o = rt_options(dir);
    o.detail = 1;
    atf_recorder *r = rt_start(&o);
    assert_int_equal(atf_recorder_detail_enable(r, NULL), ATF_OK);
    uint8_t stack[200];
    for (int i = 0; i < 200; i++)
        stack[i] = (uint8_t)(i ^ 0x5A);
    atf_arm64_payload p;
    memset(&p, 0, sizeof p);
    p.function_id = (2ull << 32) | 17;
    for (int i = 0; i < 8; i++)
        p.x[i] = 0x1111111111111111ull * (uint64_t)(i + 1);
    p.lr = 0x400123;
    p.fp = 0x7ffd0000;
    p.sp = 0x7ffcff00;
    p.stack_size = 200;
    p.stack = stack;
    assert_int_equal(atf_recorder_event_arm64(r, ATF_EVENT_CALL, &p), ATF_OK);
    p.stack_size = 257;
    assert_int_equal(atf_recorder_event_arm64(r, ATF_EVENT_RETURN, &p), ATF_E_ARG);
    p.stack_size = 0;
    assert_int_equal(atf_recorder_event_arm64(r, ATF_EVENT_RETURN, &p), ATF_OK);
    rt_stop(r);
    atf_recorder_destroy(r);
    rt_check_opaque_detail(dir, 0);
    atf_session *s = rt_open(dir);
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    assert_int_equal(atf_detail_reader_count(t->detail), 2);
    atf_detail_event d;
    atf_detail_reader_get(t->detail, 0, &d);
    assert_int_equal(d.event_type, ATF_DETAIL_FUNCTION_CALL);
    atf_arm64_payload q;
    assert_int_equal(atf_arm64_payload_decode(&q, d.payload, d.payload_size, NULL), ATF_OK);
    assert_int_equal(q.function_id, (2ull << 32) | 17);
    assert_int_equal(q.x[7], 0x8888888888888888ull);
    assert_int_equal(q.lr, 0x400123);
    assert_int_equal(q.stack_size, 200);
    assert_memory_equal(q.stack, stack, 200);
    atf_detail_reader_get(t->detail, 1, &d);
    assert_int_equal(d.event_type, ATF_DETAIL_FUNCTION_RETURN);
    assert_int_equal(d.payload_size, ATF_ARM64_PAYLOAD_FIXED_SIZE);
    atf_index_event e;
    atf_index_reader_get(t->index, 1, &e);
    assert_int_equal(e.function_id, (2ull << 32) | 17);
    atf_session_close(s);
    rt_rm_rf(dir);
}

/* Four threads, two windows, a pre-roll, a post-roll. */
static void test_threads_two_windows(void **state)
{
    (void)state;
    char dir[256];
    rt_mkdtemp(dir, sizeof dir, "win2");
    atf_recorder_options o = rt_options(dir);
    o.detail = 1;
    o.pre_roll_ns = 20000000u;
    o.post_roll_ns = 10000000u;
    o.writer_threads = 2;
    atf_recorder *r = rt_start(&o);
    detail_producer a[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (detail_producer){ r, (uint64_t)i + 1, 0, 0, 0 };
        pthread_create(&th[i], NULL, detail_loop, &a[i]);
    }
    window w[2];
    uint64_t t;
    rt_sleep_us(60000);
    assert_int_equal(atf_recorder_detail_enable(r, &t), ATF_OK);
    w[0].a = t - o.pre_roll_ns;
    uint64_t first_trigger = t;
    rt_sleep_us(40000);
    assert_int_equal(atf_recorder_detail_disable(r, &t), ATF_OK);
    w[0].b = t + o.post_roll_ns;
    rt_sleep_us(80000);
    assert_int_equal(atf_recorder_detail_enable(r, &t), ATF_OK);
    w[1].a = t - o.pre_roll_ns;
    rt_sleep_us(40000);
    assert_int_equal(atf_recorder_detail_disable(r, &t), ATF_OK);
    w[1].b = t + o.post_roll_ns;
    uint64_t last_disable = t;
    rt_sleep_us(60000);
    for (int i = 0; i < 4; i++) {
        atomic_store(&a[i].stop, 1);
        pthread_join(th[i], NULL);
    }
    rt_stop(r);
    atf_recorder_destroy(r);
    rt_check_opaque_detail(dir, 0);
    atf_session *s = rt_open(dir);
    assert_int_equal(atf_session_thread_count(s), 4);
    for (size_t i = 0; i < 4; i++) {
        const atf_session_thread *st = atf_session_thread_at(s, i);
        atf_index_event e;
        atf_index_reader_get(st->index, 0, &e);
        uint64_t pre = 0, post = 0;
        uint64_t linked = check_thread_links(st, w, 2, e.function_id >> 32, first_trigger, last_disable, &pre, &post);
        assert_true(linked > 0);
    }
    atf_session_close(s);
    rt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pre_post_roll_layout2),
        cmocka_unit_test(test_pre_post_roll_layout1),
        cmocka_unit_test(test_preroll_memory_bound),
        cmocka_unit_test(test_open_window_keeps_everything),
        cmocka_unit_test(test_attach),
        cmocka_unit_test(test_capturing_flag),
        cmocka_unit_test(test_arm64_payload),
        cmocka_unit_test(test_threads_two_windows),
        cmocka_unit_test(test_detail_file_from_the_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
