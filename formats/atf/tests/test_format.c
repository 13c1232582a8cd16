/* Tests for format.c: every structure of both layouts against hand-written
 * bytes at the offsets of ATF-NOTES.md, decoder errors (status, offset,
 * field), encoder range checks, and random input through every decoder. */
#include "codec_test_util.h"

#include <atf/format.h>

/* ---- atf_header_layout ------------------------------------------------- */

static void test_header_layout(void **state)
{
    (void)state;
    uint8_t b[64] = { 'A', 'T', 'I', '2', 1, 2 };
    atf_layout l = (atf_layout)0;
    atf_error err;

    assert_int_equal(atf_header_layout(b, sizeof b, ATF_INDEX_MAGIC, &l, &err), ATF_OK);
    assert_int_equal(l, ATF_LAYOUT_2);
    b[5] = 1;
    assert_int_equal(atf_header_layout(b, 8, ATF_INDEX_MAGIC, &l, NULL), ATF_OK);
    assert_int_equal(l, ATF_LAYOUT_1);

    memset(&err, 0, sizeof err);
    assert_int_equal(atf_header_layout(b, 7, ATF_INDEX_MAGIC, &l, &err), ATF_E_TRUNCATED);
    cf_assert_error(&err, ATF_E_TRUNCATED, 0, "magic");

    assert_int_equal(atf_header_layout(b, sizeof b, ATF_DETAIL_MAGIC, &l, &err), ATF_E_MAGIC);
    cf_assert_error(&err, ATF_E_MAGIC, 0, "magic");

    for (unsigned e = 0; e < 256; e++) {
        b[4] = (uint8_t)e;
        atf_status want = e == 1 ? ATF_OK : ATF_E_ENDIAN;
        assert_int_equal(atf_header_layout(b, sizeof b, ATF_INDEX_MAGIC, &l, &err), want);
        if (want)
            cf_assert_error(&err, ATF_E_ENDIAN, 4, "endian");
    }
    b[4] = 1;
    for (unsigned v = 0; v < 256; v++) {
        b[5] = (uint8_t)v;
        atf_status want = (v == 1 || v == 2) ? ATF_OK : ATF_E_VERSION;
        assert_int_equal(atf_header_layout(b, sizeof b, ATF_INDEX_MAGIC, &l, &err), want);
        if (want)
            cf_assert_error(&err, ATF_E_VERSION, 5, "version");
    }
    assert_int_equal(atf_header_layout(NULL, 64, ATF_INDEX_MAGIC, &l, &err), ATF_E_ARG);
}

/* ---- Index header ------------------------------------------------------ */

static const uint8_t k_index_header_l1[64] = {
    'A', 'T', 'I', '2', 0x01, 0x01, 0x02, 0x04,           /* magic, endian, version 1, arm64, linux */
    0x01, 0x00, 0x00, 0x00, 0x44, 0x33, 0x22, 0x11,       /* flags @8, thread_id @12 */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* clock_type @16, reserved 3 @17, reserved u32 @20 */
    0x20, 0x00, 0x00, 0x00, 0x0D, 0x0C, 0x0B, 0x0A,       /* event_size @24, event_count u32 @28 */
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* events_offset @32 */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,       /* footer_offset @40 */
    0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,       /* time_start_ns @48 */
    0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,       /* time_end_ns @56 */
};

static const uint8_t k_index_header_l2[64] = {
    'A', 'T', 'I', '2', 0x01, 0x02, 0x01, 0x03,           /* magic, endian, version 2, x86_64, macos */
    0x00, 0x00, 0x00, 0x00, 0xEF, 0xBE, 0xAD, 0xDE,       /* flags @8, thread_id @12 */
    0x01, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,       /* clock_type @16, reserved 3 @17, event_size @20 */
    0x81, 0x70, 0x6F, 0x5E, 0x4D, 0x3C, 0x2B, 0x1A,       /* event_count u64 @24 */
    0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* events_offset @32 */
    0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* footer_offset @40 */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* time_start_ns @48 */
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,       /* time_end_ns @56 */
};

static atf_index_header index_header_l1(void)
{
    atf_index_header h;
    memset(&h, 0, sizeof h);
    h.endian = 1;
    h.version = 1;
    h.arch = ATF_ARCH_ARM64;
    h.os = ATF_OS_LINUX;
    h.flags = ATF_INDEX_FLAG_HAS_DETAIL_FILE;
    h.thread_id = 0x11223344u;
    h.clock_type = ATF_CLOCK_BOOTTIME;
    h.event_size = 32;
    h.event_count = 0x0A0B0C0Du;
    h.events_offset = 64;
    h.footer_offset = 0x0102030405060708ull;
    h.time_start_ns = 0x1112131415161718ull;
    h.time_end_ns = 0x2122232425262728ull;
    return h;
}

static atf_index_header index_header_l2(void)
{
    atf_index_header h;
    memset(&h, 0, sizeof h);
    h.endian = 1;
    h.version = 2;
    h.arch = ATF_ARCH_X86_64;
    h.os = ATF_OS_MACOS;
    h.flags = 0;
    h.thread_id = 0xDEADBEEFu;
    h.clock_type = ATF_CLOCK_MACH_CONTINUOUS;
    h.event_size = 32;
    h.event_count = 0x1A2B3C4D5E6F7081ull;
    h.events_offset = 128;
    h.footer_offset = 256;
    h.time_start_ns = 1;
    h.time_end_ns = UINT64_MAX;
    return h;
}

static void assert_index_header_equal(const atf_index_header *a, const atf_index_header *b)
{
    assert_int_equal(a->endian, b->endian);
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->arch, b->arch);
    assert_int_equal(a->os, b->os);
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(a->thread_id, b->thread_id);
    assert_int_equal(a->clock_type, b->clock_type);
    assert_int_equal(a->event_size, b->event_size);
    assert_int_equal(a->event_count, b->event_count);
    assert_int_equal(a->events_offset, b->events_offset);
    assert_int_equal(a->footer_offset, b->footer_offset);
    assert_int_equal(a->time_start_ns, b->time_start_ns);
    assert_int_equal(a->time_end_ns, b->time_end_ns);
}

static void test_index_header_bytes(void **state)
{
    (void)state;
    const uint8_t *want[2] = { k_index_header_l1, k_index_header_l2 };
    atf_index_header hs[2] = { index_header_l1(), index_header_l2() };
    for (int i = 0; i < 2; i++) {
        uint8_t out[64];
        memset(out, 0xA5, sizeof out); /* reserved bytes must be written as zero */
        assert_int_equal(atf_index_header_encode(out, sizeof out, &hs[i]), ATF_OK);
        assert_memory_equal(out, want[i], 64);

        atf_index_header d;
        memset(&d, 0x5A, sizeof d);
        assert_int_equal(atf_index_header_decode(&d, want[i], 64, NULL), ATF_OK);
        assert_index_header_equal(&d, &hs[i]);
        assert_int_equal(d.reserved_nonzero, 0);
    }
}

static void test_index_header_reserved(void **state)
{
    (void)state;
    /* Layout 1 reserves 17..23, layout 2 only 17..19 (20..23 is event_size). */
    for (int off = 17; off < 24; off++) {
        uint8_t b[64];
        atf_index_header d;
        memcpy(b, k_index_header_l1, 64);
        b[off] = 0x80;
        assert_int_equal(atf_index_header_decode(&d, b, 64, NULL), ATF_OK);
        assert_int_equal(d.reserved_nonzero, 1);
        assert_int_equal(d.event_size, 32);
    }
    for (int off = 17; off < 20; off++) {
        uint8_t b[64];
        atf_index_header d;
        memcpy(b, k_index_header_l2, 64);
        b[off] = 1;
        assert_int_equal(atf_index_header_decode(&d, b, 64, NULL), ATF_OK);
        assert_int_equal(d.reserved_nonzero, 1);
    }
}

static void test_index_header_layout_fields(void **state)
{
    (void)state;
    /* The same bytes decode differently in the two layouts: the version byte decides. */
    uint8_t b[64];
    atf_index_header d;
    memcpy(b, k_index_header_l1, 64);
    cf_put32(b + 20, 32);        /* layout-2 event_size position */
    cf_put64(b + 24, 0x0000000500000020ull); /* L1: event_size 32, count 5 */
    assert_int_equal(atf_index_header_decode(&d, b, 64, NULL), ATF_OK);
    assert_int_equal(d.event_count, 5);
    assert_int_equal(d.reserved_nonzero, 1); /* @20 is reserved in layout 1 */
    b[5] = 2;
    assert_int_equal(atf_index_header_decode(&d, b, 64, NULL), ATF_OK);
    assert_int_equal(d.event_count, 0x0000000500000020ull);
    assert_int_equal(d.reserved_nonzero, 0);
}

static void test_index_header_errors(void **state)
{
    (void)state;
    atf_index_header d;
    atf_error err;
    uint8_t b[64];

    for (size_t n = 0; n < 64; n++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(atf_index_header_decode(&d, k_index_header_l2, n, &err), ATF_E_TRUNCATED);
        assert_int_equal(err.code, ATF_E_TRUNCATED);
        assert_int_equal(err.offset, 0);
    }

    memcpy(b, k_index_header_l2, 64);
    b[3] = '1';
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_MAGIC);
    cf_assert_error(&err, ATF_E_MAGIC, 0, "magic");
    memcpy(b, "ATD2", 4); /* a detail header is not an index header */
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_MAGIC);

    memcpy(b, k_index_header_l2, 64);
    b[4] = 2;
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_ENDIAN);
    cf_assert_error(&err, ATF_E_ENDIAN, 4, "endian");

    memcpy(b, k_index_header_l2, 64);
    b[5] = 3;
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_VERSION);
    cf_assert_error(&err, ATF_E_VERSION, 5, "version");
    b[5] = 0;
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_VERSION);

    /* event_size: @24 in layout 1, @20 in layout 2. */
    memcpy(b, k_index_header_l1, 64);
    cf_put32(b + 24, 33);
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_FIELD);
    cf_assert_error(&err, ATF_E_FIELD, 24, "event_size");
    memcpy(b, k_index_header_l1, 64);
    cf_put32(b + 20, 33); /* reserved in layout 1: not the event size */
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_OK);
    memcpy(b, k_index_header_l2, 64);
    cf_put32(b + 20, 0);
    assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_FIELD);
    cf_assert_error(&err, ATF_E_FIELD, 20, "event_size");
    memcpy(b, k_index_header_l2, 64);
    cf_put32(b + 20, 64);
    assert_int_equal(atf_index_header_decode(&d, b, 64, NULL), ATF_E_FIELD);

    /* events_offset >= 64 */
    for (int l = 0; l < 2; l++) {
        memcpy(b, l ? k_index_header_l2 : k_index_header_l1, 64);
        cf_put64(b + 32, 63);
        assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_OFFSET);
        cf_assert_error(&err, ATF_E_OFFSET, 32, "events_offset");
        cf_put64(b + 32, 0);
        assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_E_OFFSET);
        cf_put64(b + 32, 64);
        assert_int_equal(atf_index_header_decode(&d, b, 64, &err), ATF_OK);
    }
    assert_int_equal(atf_index_header_decode(NULL, k_index_header_l2, 64, &err), ATF_E_ARG);
}

static void test_index_header_encode_limits(void **state)
{
    (void)state;
    uint8_t out[64];
    atf_index_header h = index_header_l1();
    atf_index_header d;

    h.event_count = UINT32_MAX;
    assert_int_equal(atf_index_header_encode(out, sizeof out, &h), ATF_OK);
    assert_int_equal(cf_get32(out + 28), UINT32_MAX);
    assert_int_equal(atf_index_header_decode(&d, out, 64, NULL), ATF_OK);
    assert_int_equal(d.event_count, UINT32_MAX);
    h.event_count = (uint64_t)UINT32_MAX + 1u;
    assert_int_equal(atf_index_header_encode(out, sizeof out, &h), ATF_E_FIELD);

    h = index_header_l2();
    h.event_count = (uint64_t)UINT32_MAX + 1u;
    assert_int_equal(atf_index_header_encode(out, sizeof out, &h), ATF_OK);
    assert_int_equal(cf_get64(out + 24), (uint64_t)UINT32_MAX + 1u);

    assert_int_equal(atf_index_header_encode(out, 63, &h), ATF_E_ARG);
    h.version = 3;
    assert_int_equal(atf_index_header_encode(out, sizeof out, &h), ATF_E_ARG);
    h.version = 0;
    assert_int_equal(atf_index_header_encode(out, sizeof out, &h), ATF_E_ARG);
    assert_int_equal(atf_index_header_encode(NULL, 64, &h), ATF_E_ARG);

    /* endian 0 in the record is written as little-endian (1). */
    h = index_header_l2();
    h.endian = 0;
    assert_int_equal(atf_index_header_encode(out, sizeof out, &h), ATF_OK);
    assert_int_equal(out[4], 1);
}

/* ---- Index event ------------------------------------------------------- */

static const uint8_t k_index_event_l1[32] = {
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,       /* timestamp_ns @0 */
    0xA8, 0xA7, 0xA6, 0xA5, 0xA4, 0xA3, 0xA2, 0xA1,       /* function_id @8 */
    0x44, 0x33, 0x22, 0x11, 0x02, 0x00, 0x00, 0x00,       /* thread_id @16, event_kind u32 @20 */
    0x07, 0x00, 0x00, 0x00, 0xEF, 0xBE, 0xAD, 0xDE,       /* call_depth @24, detail_seq u32 @28 */
};

static const uint8_t k_index_event_l2[32] = {
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,       /* timestamp_ns @0 */
    0xA8, 0xA7, 0xA6, 0xA5, 0xA4, 0xA3, 0xA2, 0xA1,       /* function_id @8 */
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,       /* detail_seq u64 @16 */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* event_kind u8 @24, reserved 7 @25 */
};

static atf_index_event index_event(atf_layout l)
{
    atf_index_event e;
    memset(&e, 0, sizeof e);
    e.timestamp_ns = 0x0102030405060708ull;
    e.function_id = 0xA1A2A3A4A5A6A7A8ull;
    if (l == ATF_LAYOUT_1) {
        e.thread_id = 0x11223344u;
        e.event_kind = ATF_EVENT_RETURN;
        e.call_depth = 7;
        e.detail_seq = 0xDEADBEEFu;
    } else {
        e.event_kind = ATF_EVENT_EXCEPTION;
        e.detail_seq = 0x1122334455667788ull;
    }
    return e;
}

static void test_index_event_bytes(void **state)
{
    (void)state;
    const uint8_t *want[2] = { k_index_event_l1, k_index_event_l2 };
    for (int i = 0; i < 2; i++) {
        atf_layout l = i ? ATF_LAYOUT_2 : ATF_LAYOUT_1;
        atf_index_event e = index_event(l), d;
        uint8_t out[32];
        memset(out, 0xCC, sizeof out);
        assert_int_equal(atf_index_event_encode(out, sizeof out, &e, l), ATF_OK);
        assert_memory_equal(out, want[i], 32);
        memset(&d, 0x5A, sizeof d);
        assert_int_equal(atf_index_event_decode(&d, want[i], 32, l), ATF_OK);
        cf_assert_index_event(&d, &e);
    }
}

static void test_index_event_no_detail(void **state)
{
    (void)state;
    atf_index_event e = index_event(ATF_LAYOUT_1), d;
    uint8_t out[32];

    /* Layout 1: ATF_NO_DETAIL <-> UINT32_MAX at @28. */
    e.detail_seq = ATF_NO_DETAIL;
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_OK);
    assert_memory_equal(out, k_index_event_l1, 28);
    assert_int_equal(cf_get32(out + 28), UINT32_MAX);
    assert_int_equal(atf_index_event_decode(&d, out, 32, ATF_LAYOUT_1), ATF_OK);
    assert_int_equal(d.detail_seq, ATF_NO_DETAIL);

    e.detail_seq = UINT32_MAX - 1u; /* largest real link */
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_OK);
    assert_int_equal(cf_get32(out + 28), UINT32_MAX - 1u);
    assert_int_equal(atf_index_event_decode(&d, out, 32, ATF_LAYOUT_1), ATF_OK);
    assert_int_equal(d.detail_seq, UINT32_MAX - 1u);

    /* Layout 2: ATF_NO_DETAIL is UINT64_MAX, stored as is. */
    e = index_event(ATF_LAYOUT_2);
    e.detail_seq = ATF_NO_DETAIL;
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(cf_get64(out + 16), UINT64_MAX);
    assert_int_equal(atf_index_event_decode(&d, out, 32, ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(d.detail_seq, ATF_NO_DETAIL);
    /* UINT32_MAX is a plain link in layout 2. */
    cf_put64(out + 16, UINT32_MAX);
    assert_int_equal(atf_index_event_decode(&d, out, 32, ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(d.detail_seq, UINT32_MAX);
}

static void test_index_event_encode_limits(void **state)
{
    (void)state;
    uint8_t out[32];
    atf_index_event e = index_event(ATF_LAYOUT_1);

    e.detail_seq = UINT32_MAX; /* would read back as "no detail" */
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_E_FIELD);
    e.detail_seq = (uint64_t)UINT32_MAX + 1u;
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_E_FIELD);
    e.detail_seq = UINT64_MAX - 1u;
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_E_FIELD);
    /* Layout 1 event_kind is u32: any value fits. */
    e.detail_seq = 1;
    e.event_kind = UINT32_MAX;
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_OK);
    assert_int_equal(cf_get32(out + 20), UINT32_MAX);

    e = index_event(ATF_LAYOUT_2);
    e.event_kind = 256;
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_E_FIELD);
    e.event_kind = 255;
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(out[24], 255);
    /* thread_id and call_depth do not exist in layout 2: the reserved bytes stay zero. */
    e = index_event(ATF_LAYOUT_2);
    e.thread_id = 0xFFFFFFFFu;
    e.call_depth = 0x12345678u;
    memset(out, 0xCC, sizeof out);
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_OK);
    assert_memory_equal(out, k_index_event_l2, 32);
    e.event_kind = 255;
    e.detail_seq = (uint64_t)UINT32_MAX + 1u; /* fits layout 2 */
    assert_int_equal(atf_index_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(cf_get64(out + 16), (uint64_t)UINT32_MAX + 1u);

    assert_int_equal(atf_index_event_encode(out, 31, &e, ATF_LAYOUT_2), ATF_E_ARG);
    assert_int_equal(atf_index_event_encode(out, 32, &e, (atf_layout)3), ATF_E_ARG);
    assert_int_equal(atf_index_event_encode(NULL, 32, &e, ATF_LAYOUT_2), ATF_E_ARG);
}

static void test_index_event_decode_details(void **state)
{
    (void)state;
    atf_index_event d;
    uint8_t b[32];

    /* Layout 2: thread_id/call_depth are zero, reserved bytes are flagged. */
    for (int off = 25; off < 32; off++) {
        memcpy(b, k_index_event_l2, 32);
        b[off] = 0x01;
        memset(&d, 0xFF, sizeof d);
        assert_int_equal(atf_index_event_decode(&d, b, 32, ATF_LAYOUT_2), ATF_OK);
        assert_int_equal(d.reserved_nonzero, 1);
        assert_int_equal(d.event_kind, 3);
        assert_int_equal(d.thread_id, 0);
        assert_int_equal(d.call_depth, 0);
    }
    /* Layout 1 has no reserved bytes. */
    memset(&d, 0xFF, sizeof d);
    assert_int_equal(atf_index_event_decode(&d, k_index_event_l1, 32, ATF_LAYOUT_1), ATF_OK);
    assert_int_equal(d.reserved_nonzero, 0);

    assert_int_equal(atf_index_event_decode(&d, k_index_event_l2, 31, ATF_LAYOUT_2), ATF_E_TRUNCATED);
    assert_int_equal(atf_index_event_decode(&d, k_index_event_l2, 0, ATF_LAYOUT_1), ATF_E_TRUNCATED);
    assert_int_equal(atf_index_event_decode(&d, k_index_event_l2, 32, (atf_layout)0), ATF_E_ARG);
    assert_int_equal(atf_index_event_decode(&d, NULL, 32, ATF_LAYOUT_2), ATF_E_ARG);
}

/* ---- Index footer ------------------------------------------------------ */

static const uint8_t k_index_footer[64] = {
    '2', 'I', 'T', 'A', 0xBE, 0xBA, 0xFE, 0xCA,           /* magic, checksum @4 */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,       /* event_count @8 */
    0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,       /* time_start_ns @16 */
    0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,       /* time_end_ns @24 */
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,       /* bytes_written @32 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* reserved 24 @40 */
};

static void test_index_footer(void **state)
{
    (void)state;
    atf_index_footer f = { 0 }, d;
    atf_error err;
    uint8_t out[64], b[64];
    f.checksum = 0xCAFEBABEu;
    f.event_count = 0x0102030405060708ull;
    f.time_start_ns = 0x1112131415161718ull;
    f.time_end_ns = 0x2122232425262728ull;
    f.bytes_written = 0x0706050403020100ull;

    memset(out, 0xEE, sizeof out);
    assert_int_equal(atf_index_footer_encode(out, sizeof out, &f), ATF_OK);
    assert_memory_equal(out, k_index_footer, 64);
    memset(&d, 0x5A, sizeof d);
    assert_int_equal(atf_index_footer_decode(&d, k_index_footer, 64, NULL), ATF_OK);
    assert_int_equal(d.checksum, f.checksum);
    assert_int_equal(d.event_count, f.event_count);
    assert_int_equal(d.time_start_ns, f.time_start_ns);
    assert_int_equal(d.time_end_ns, f.time_end_ns);
    assert_int_equal(d.bytes_written, f.bytes_written);
    assert_int_equal(d.reserved_nonzero, 0);

    for (int off = 40; off < 64; off++) {
        memcpy(b, k_index_footer, 64);
        b[off] = 0x10;
        assert_int_equal(atf_index_footer_decode(&d, b, 64, NULL), ATF_OK);
        assert_int_equal(d.reserved_nonzero, 1);
    }
    memcpy(b, k_index_footer, 64);
    memcpy(b, "2DTA", 4);
    assert_int_equal(atf_index_footer_decode(&d, b, 64, &err), ATF_E_MAGIC);
    cf_assert_error(&err, ATF_E_MAGIC, 0, "footer.magic");
    assert_int_equal(atf_index_footer_decode(&d, k_index_footer, 63, &err), ATF_E_TRUNCATED);
    cf_assert_error(&err, ATF_E_TRUNCATED, 0, "footer");
    assert_int_equal(atf_index_footer_encode(out, 63, &f), ATF_E_ARG);
}

/* ---- Detail header ----------------------------------------------------- */

static const uint8_t k_detail_header[64] = {
    'A', 'T', 'D', '2', 0x01, 0x02, 0x02, 0x02,           /* magic, endian, version, arm64, android */
    0x00, 0x00, 0x00, 0x00, 0x44, 0x33, 0x22, 0x11,       /* flags @8, thread_id @12 */
    0x00, 0x00, 0x00, 0x00,                               /* reserved @16 */
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* events_offset @20 */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,       /* event_count @28 */
    0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,       /* bytes_length @36 */
    0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,       /* index_seq_start @44 */
    0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31,       /* index_seq_end @52 */
    0x00, 0x00, 0x00, 0x00,                               /* reserved @60 */
};

static atf_detail_header detail_header(uint8_t version)
{
    atf_detail_header h;
    memset(&h, 0, sizeof h);
    h.endian = 1;
    h.version = version;
    h.arch = ATF_ARCH_ARM64;
    h.os = ATF_OS_ANDROID;
    h.thread_id = 0x11223344u;
    h.events_offset = 64;
    h.event_count = 0x0102030405060708ull;
    h.bytes_length = 0x1112131415161718ull;
    h.index_seq_start = 0x2122232425262728ull;
    h.index_seq_end = 0x3132333435363738ull;
    return h;
}

static void test_detail_header(void **state)
{
    (void)state;
    for (uint8_t v = 1; v <= 2; v++) {
        atf_detail_header h = detail_header(v), d;
        uint8_t want[64], out[64];
        memcpy(want, k_detail_header, 64);
        want[5] = v;
        memset(out, 0x99, sizeof out);
        assert_int_equal(atf_detail_header_encode(out, sizeof out, &h), ATF_OK);
        assert_memory_equal(out, want, 64);
        memset(&d, 0x5A, sizeof d);
        assert_int_equal(atf_detail_header_decode(&d, want, 64, NULL), ATF_OK);
        assert_int_equal(d.endian, 1);
        assert_int_equal(d.version, v);
        assert_int_equal(d.arch, h.arch);
        assert_int_equal(d.os, h.os);
        assert_int_equal(d.flags, 0);
        assert_int_equal(d.thread_id, h.thread_id);
        assert_int_equal(d.events_offset, 64);
        assert_int_equal(d.event_count, h.event_count);
        assert_int_equal(d.bytes_length, h.bytes_length);
        assert_int_equal(d.index_seq_start, h.index_seq_start);
        assert_int_equal(d.index_seq_end, h.index_seq_end);
        assert_int_equal(d.reserved_nonzero, 0);

        static const int reserved[] = { 16, 17, 18, 19, 60, 61, 62, 63 };
        for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
            uint8_t b[64];
            memcpy(b, want, 64);
            b[reserved[i]] = 0x40;
            assert_int_equal(atf_detail_header_decode(&d, b, 64, NULL), ATF_OK);
            assert_int_equal(d.reserved_nonzero, 1);
        }
        /* flags @8 is a field, not reserved. */
        uint8_t b[64];
        memcpy(b, want, 64);
        cf_put32(b + 8, 0x80000001u);
        assert_int_equal(atf_detail_header_decode(&d, b, 64, NULL), ATF_OK);
        assert_int_equal(d.flags, 0x80000001u);
        assert_int_equal(d.reserved_nonzero, 0);
    }
}

static void test_detail_header_errors(void **state)
{
    (void)state;
    atf_detail_header d, h = detail_header(2);
    atf_error err;
    uint8_t b[64];

    for (size_t n = 0; n < 64; n++) {
        assert_int_equal(atf_detail_header_decode(&d, k_detail_header, n, &err), ATF_E_TRUNCATED);
        assert_int_equal(err.offset, 0);
    }
    memcpy(b, k_detail_header, 64);
    memcpy(b, "ATI2", 4);
    assert_int_equal(atf_detail_header_decode(&d, b, 64, &err), ATF_E_MAGIC);
    cf_assert_error(&err, ATF_E_MAGIC, 0, "magic");
    memcpy(b, k_detail_header, 64);
    b[4] = 0;
    assert_int_equal(atf_detail_header_decode(&d, b, 64, &err), ATF_E_ENDIAN);
    cf_assert_error(&err, ATF_E_ENDIAN, 4, "endian");
    memcpy(b, k_detail_header, 64);
    b[5] = 9;
    assert_int_equal(atf_detail_header_decode(&d, b, 64, &err), ATF_E_VERSION);
    cf_assert_error(&err, ATF_E_VERSION, 5, "version");
    memcpy(b, k_detail_header, 64);
    cf_put64(b + 20, 63);
    assert_int_equal(atf_detail_header_decode(&d, b, 64, &err), ATF_E_OFFSET);
    cf_assert_error(&err, ATF_E_OFFSET, 20, "events_offset");

    assert_int_equal(atf_detail_header_encode(b, 63, &h), ATF_E_ARG);
    h.version = 7;
    assert_int_equal(atf_detail_header_encode(b, 64, &h), ATF_E_ARG);
    assert_int_equal(atf_detail_header_decode(NULL, k_detail_header, 64, &err), ATF_E_ARG);
}

/* ---- Detail event ------------------------------------------------------ */

static const uint8_t k_detail_event_l1[29] = {
    0x1D, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 0x01,       /* total_length 29 @0, event_type @4, flags @6 */
    0xEF, 0xCD, 0xAB, 0x89, 0x44, 0x33, 0x22, 0x11,       /* index_seq u32 @8, thread_id @12 */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,       /* timestamp @16 */
    'h', 'e', 'l', 'l', 'o',                              /* payload */
};

static const uint8_t k_detail_event_l2[29] = {
    0x1D, 0x00, 0x00, 0x00, 0x04, 0x00, 0x02, 0x01,       /* total_length 29 @0, event_type @4, flags @6 */
    0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01,       /* index_seq u64 @8 */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,       /* timestamp @16 */
    'h', 'e', 'l', 'l', 'o',
};

static atf_detail_event detail_event(atf_layout l)
{
    atf_detail_event e;
    memset(&e, 0, sizeof e);
    e.total_length = 29;
    e.event_type = l == ATF_LAYOUT_1 ? ATF_DETAIL_FUNCTION_CALL : ATF_DETAIL_FUNCTION_RETURN;
    e.flags = 0x0102;
    e.index_seq = l == ATF_LAYOUT_1 ? 0x89ABCDEFull : 0x0123456789ABCDEFull;
    e.thread_id = l == ATF_LAYOUT_1 ? 0x11223344u : 0;
    e.timestamp = 0x0102030405060708ull;
    e.payload = (const uint8_t *)"hello";
    e.payload_size = 5;
    return e;
}

static void test_detail_event_bytes(void **state)
{
    (void)state;
    const uint8_t *want[2] = { k_detail_event_l1, k_detail_event_l2 };
    for (int i = 0; i < 2; i++) {
        atf_layout l = i ? ATF_LAYOUT_2 : ATF_LAYOUT_1;
        atf_detail_event e = detail_event(l), d;
        uint8_t out[40];
        memset(out, 0x77, sizeof out);
        assert_int_equal(atf_detail_event_encode(out, 29, &e, l), ATF_OK);
        assert_memory_equal(out, want[i], 29);
        assert_int_equal(out[29], 0x77); /* nothing past total_length */

        memset(&d, 0x5A, sizeof d);
        assert_int_equal(atf_detail_event_decode(&d, want[i], 29, l, NULL), ATF_OK);
        cf_assert_detail_event(&d, &e);
        assert_ptr_equal(d.payload, want[i] + 24);

        /* Decoding looks only at total_length bytes of a longer section. */
        uint8_t longer[64];
        memcpy(longer, want[i], 29);
        memset(longer + 29, 0xEE, sizeof longer - 29);
        assert_int_equal(atf_detail_event_decode(&d, longer, sizeof longer, l, NULL), ATF_OK);
        assert_int_equal(d.total_length, 29);
        assert_int_equal(d.payload_size, 5);
    }
    /* An empty payload decodes to a NULL view. */
    atf_detail_event e = detail_event(ATF_LAYOUT_2), d;
    uint8_t out[24];
    e.payload = NULL;
    e.payload_size = 0;
    assert_int_equal(atf_detail_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(cf_get32(out), 24);
    assert_int_equal(atf_detail_event_decode(&d, out, sizeof out, ATF_LAYOUT_2, NULL), ATF_OK);
    assert_null(d.payload);
    assert_int_equal(d.payload_size, 0);
}

static void test_detail_event_errors(void **state)
{
    (void)state;
    atf_detail_event d, e = detail_event(ATF_LAYOUT_1);
    atf_error err;
    uint8_t b[29], out[64];

    for (size_t n = 0; n < 24; n++) {
        assert_int_equal(atf_detail_event_decode(&d, k_detail_event_l2, n, ATF_LAYOUT_2, &err),
                         ATF_E_TRUNCATED);
        cf_assert_error(&err, ATF_E_TRUNCATED, 0, "total_length");
    }
    for (size_t n = 24; n < 29; n++) {
        assert_int_equal(atf_detail_event_decode(&d, k_detail_event_l2, n, ATF_LAYOUT_2, &err), ATF_E_LENGTH);
        cf_assert_error(&err, ATF_E_LENGTH, 0, "total_length");
    }
    for (uint32_t t = 0; t < 24; t++) {
        memcpy(b, k_detail_event_l1, 29);
        cf_put32(b, t);
        assert_int_equal(atf_detail_event_decode(&d, b, 29, ATF_LAYOUT_1, &err), ATF_E_LENGTH);
        cf_assert_error(&err, ATF_E_LENGTH, 0, "total_length");
    }
    memcpy(b, k_detail_event_l1, 29);
    cf_put32(b, UINT32_MAX);
    assert_int_equal(atf_detail_event_decode(&d, b, 29, ATF_LAYOUT_1, &err), ATF_E_LENGTH);
    assert_int_equal(atf_detail_event_decode(&d, b, 29, (atf_layout)5, &err), ATF_E_ARG);

    /* Encoder: layout 1 index_seq is u32. */
    e.index_seq = UINT32_MAX;
    assert_int_equal(atf_detail_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_OK);
    assert_int_equal(cf_get32(out + 8), UINT32_MAX);
    e.index_seq = (uint64_t)UINT32_MAX + 1u;
    assert_int_equal(atf_detail_event_encode(out, sizeof out, &e, ATF_LAYOUT_1), ATF_E_FIELD);
    assert_int_equal(atf_detail_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(cf_get64(out + 8), (uint64_t)UINT32_MAX + 1u);
    /* Capacity must hold header + payload. */
    assert_int_equal(atf_detail_event_encode(out, 28, &e, ATF_LAYOUT_2), ATF_E_ARG);
    e.payload = NULL;
    assert_int_equal(atf_detail_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_E_ARG);
    e.payload = out;
    e.payload_size = UINT32_MAX - 23u;
    assert_int_equal(atf_detail_event_encode(out, sizeof out, &e, ATF_LAYOUT_2), ATF_E_LIMIT);
}

/* ---- Detail footer ----------------------------------------------------- */

static const uint8_t k_detail_footer[64] = {
    '2', 'D', 'T', 'A', 0x78, 0x56, 0x34, 0x12,           /* magic, checksum @4 */
    0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* event_count @8 */
    0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,       /* bytes_length @16 */
    0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,       /* time_start_ns @24 */
    0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,       /* time_end_ns @32 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* reserved 24 @40 */
};

static void test_detail_footer(void **state)
{
    (void)state;
    atf_detail_footer f = { 0 }, d;
    atf_error err;
    uint8_t out[64], b[64];
    f.checksum = 0x12345678u;
    f.event_count = 5;
    f.bytes_length = 0x0000000100001000ull;
    f.time_start_ns = 0x1112131415161718ull;
    f.time_end_ns = 0x2122232425262728ull;

    memset(out, 0x11, sizeof out);
    assert_int_equal(atf_detail_footer_encode(out, sizeof out, &f), ATF_OK);
    assert_memory_equal(out, k_detail_footer, 64);
    assert_int_equal(atf_detail_footer_decode(&d, k_detail_footer, 64, NULL), ATF_OK);
    assert_int_equal(d.checksum, f.checksum);
    assert_int_equal(d.event_count, f.event_count);
    assert_int_equal(d.bytes_length, f.bytes_length);
    assert_int_equal(d.time_start_ns, f.time_start_ns);
    assert_int_equal(d.time_end_ns, f.time_end_ns);
    assert_int_equal(d.reserved_nonzero, 0);
    memcpy(b, k_detail_footer, 64);
    b[63] = 1;
    assert_int_equal(atf_detail_footer_decode(&d, b, 64, NULL), ATF_OK);
    assert_int_equal(d.reserved_nonzero, 1);

    memcpy(b, k_detail_footer, 64);
    memcpy(b, "2ITA", 4);
    assert_int_equal(atf_detail_footer_decode(&d, b, 64, &err), ATF_E_MAGIC);
    cf_assert_error(&err, ATF_E_MAGIC, 0, "footer.magic");
    assert_int_equal(atf_detail_footer_decode(&d, k_detail_footer, 40, &err), ATF_E_TRUNCATED);
    cf_assert_error(&err, ATF_E_TRUNCATED, 0, "footer");
    assert_int_equal(atf_detail_footer_encode(out, 10, &f), ATF_E_ARG);
}

/* ---- ARM64 payload ----------------------------------------------------- */

static atf_arm64_payload arm64_payload(uint16_t stack_size, const uint8_t *stack)
{
    atf_arm64_payload a;
    memset(&a, 0, sizeof a);
    a.function_id = 0x0F0E0D0C0B0A0908ull;
    for (int i = 0; i < 8; i++)
        a.x[i] = 0x1000000000000000ull * (uint64_t)(i + 1) + (uint64_t)i;
    a.lr = 0xAAAAAAAA00000001ull;
    a.fp = 0xBBBBBBBB00000002ull;
    a.sp = 0xCCCCCCCC00000003ull;
    a.stack_size = stack_size;
    a.stack = stack_size ? stack : NULL;
    return a;
}

static void test_arm64_payload_bytes(void **state)
{
    (void)state;
    static const uint8_t fixed[100] = {
        0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,   /* function_id @0 */
        0x00, 0, 0, 0, 0, 0, 0, 0x10,                     /* x0 @8 */
        0x01, 0, 0, 0, 0, 0, 0, 0x20,                     /* x1 @16 */
        0x02, 0, 0, 0, 0, 0, 0, 0x30,
        0x03, 0, 0, 0, 0, 0, 0, 0x40,
        0x04, 0, 0, 0, 0, 0, 0, 0x50,
        0x05, 0, 0, 0, 0, 0, 0, 0x60,
        0x06, 0, 0, 0, 0, 0, 0, 0x70,
        0x07, 0, 0, 0, 0, 0, 0, 0x80,                     /* x7 @64 */
        0x01, 0, 0, 0, 0xAA, 0xAA, 0xAA, 0xAA,            /* lr @72 */
        0x02, 0, 0, 0, 0xBB, 0xBB, 0xBB, 0xBB,            /* fp @80 */
        0x03, 0, 0, 0, 0xCC, 0xCC, 0xCC, 0xCC,            /* sp @88 */
        0x03, 0x00, 0x00, 0x00,                           /* stack_size @96, reserved @98 */
    };
    const uint8_t stack[3] = { 0xDE, 0xAD, 0x01 };
    atf_arm64_payload a = arm64_payload(3, stack), d;
    uint8_t out[400];

    memset(out, 0x33, sizeof out);
    assert_int_equal(atf_arm64_payload_encode(out, sizeof out, &a), 103);
    assert_memory_equal(out, fixed, 100);
    assert_memory_equal(out + 100, stack, 3);
    assert_int_equal(out[103], 0x33);

    memset(&d, 0x5A, sizeof d);
    assert_int_equal(atf_arm64_payload_decode(&d, out, 103, NULL), ATF_OK);
    assert_int_equal(d.function_id, a.function_id);
    for (int i = 0; i < 8; i++)
        assert_int_equal(d.x[i], a.x[i]);
    assert_int_equal(d.lr, a.lr);
    assert_int_equal(d.fp, a.fp);
    assert_int_equal(d.sp, a.sp);
    assert_int_equal(d.stack_size, 3);
    assert_int_equal(d.reserved, 0);
    assert_ptr_equal(d.stack, out + 100);

    /* Every stack size 0..256 round-trips against the independent encoder. */
    uint8_t big[256], want[400];
    cf_rng r = cf_rng_seed(42);
    cf_fill(&r, big, sizeof big);
    for (unsigned s = 0; s <= 256; s++) {
        a = arm64_payload((uint16_t)s, big);
        a.reserved = (uint16_t)(s * 3);
        size_t n = cf_arm64_bytes(want, &a);
        assert_int_equal(atf_arm64_payload_encode(out, sizeof out, &a), n);
        assert_memory_equal(out, want, n);
        assert_int_equal(atf_arm64_payload_decode(&d, want, n, NULL), ATF_OK);
        assert_int_equal(d.stack_size, s);
        assert_int_equal(d.reserved, (uint16_t)(s * 3));
        if (s) {
            assert_ptr_equal(d.stack, want + 100);
            assert_memory_equal(d.stack, big, s);
        } else {
            assert_null(d.stack);
        }
    }
}

static void test_arm64_payload_errors(void **state)
{
    (void)state;
    uint8_t stack[300] = { 0 };
    uint8_t b[400];
    atf_arm64_payload a = arm64_payload(256, stack), d;
    atf_error err;

    /* stack_size > 256 */
    size_t n = cf_arm64_bytes(b, &a);
    assert_int_equal(n, 356);
    cf_put16(b + 96, 257);
    assert_int_equal(atf_arm64_payload_decode(&d, b, 357, &err), ATF_E_FIELD);
    cf_assert_error(&err, ATF_E_FIELD, 96, "stack_size");
    cf_put16(b + 96, UINT16_MAX);
    assert_int_equal(atf_arm64_payload_decode(&d, b, 356, &err), ATF_E_FIELD);
    cf_assert_error(&err, ATF_E_FIELD, 96, "stack_size");

    /* payload length != 100 + stack_size, both ways */
    cf_put16(b + 96, 10);
    assert_int_equal(atf_arm64_payload_decode(&d, b, 109, &err), ATF_E_LENGTH);
    cf_assert_error(&err, ATF_E_LENGTH, 96, "stack_size");
    assert_int_equal(atf_arm64_payload_decode(&d, b, 111, &err), ATF_E_LENGTH);
    cf_assert_error(&err, ATF_E_LENGTH, 96, "stack_size");
    assert_int_equal(atf_arm64_payload_decode(&d, b, 110, &err), ATF_OK);
    cf_put16(b + 96, 0);
    assert_int_equal(atf_arm64_payload_decode(&d, b, 101, &err), ATF_E_LENGTH);
    assert_int_equal(atf_arm64_payload_decode(&d, b, 100, &err), ATF_OK);

    for (size_t k = 0; k < 100; k++) {
        assert_int_equal(atf_arm64_payload_decode(&d, b, k, &err), ATF_E_TRUNCATED);
        cf_assert_error(&err, ATF_E_TRUNCATED, 0, "payload");
    }
    assert_int_equal(atf_arm64_payload_decode(&d, NULL, 0, &err), ATF_E_TRUNCATED);
    assert_int_equal(atf_arm64_payload_decode(&d, NULL, 100, &err), ATF_E_ARG);

    /* Encoder refuses what does not fit. */
    a = arm64_payload(257, stack);
    assert_int_equal(atf_arm64_payload_encode(b, sizeof b, &a), 0);
    a = arm64_payload(256, stack);
    assert_int_equal(atf_arm64_payload_encode(b, 355, &a), 0);
    assert_int_equal(atf_arm64_payload_encode(b, 356, &a), 356);
    a.stack = NULL;
    assert_int_equal(atf_arm64_payload_encode(b, sizeof b, &a), 0);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(atf_event_kind_name(ATF_EVENT_CALL), "call");
    assert_string_equal(atf_event_kind_name(ATF_EVENT_RETURN), "return");
    assert_string_equal(atf_event_kind_name(ATF_EVENT_EXCEPTION), "exception");
    assert_string_equal(atf_event_kind_name(4), "unknown");
    assert_string_equal(atf_event_kind_name(UINT32_MAX), "unknown");
    assert_string_equal(atf_arch_name(ATF_ARCH_X86_64), "x86_64");
    assert_string_equal(atf_arch_name(ATF_ARCH_ARM64), "arm64");
    assert_string_equal(atf_arch_name(3), "unknown");
    assert_string_equal(atf_os_name(ATF_OS_IOS), "ios");
    assert_string_equal(atf_os_name(ATF_OS_WINDOWS), "windows");
    assert_string_equal(atf_os_name(6), "unknown");
    assert_string_equal(atf_clock_name(ATF_CLOCK_BOOTTIME), "boottime");
    assert_string_equal(atf_clock_name(ATF_CLOCK_QPC), "qpc");
    assert_string_equal(atf_clock_name(4), "unknown");
}

/* ---- Random structures: encode vs the independent encoder ------------- */

static void test_random_roundtrip(void **state)
{
    (void)state;
    cf_rng r = cf_rng_seed(0x5EED0001u);
    for (int it = 0; it < 5000; it++) {
        atf_layout l = (it & 1) ? ATF_LAYOUT_2 : ATF_LAYOUT_1;
        uint64_t ts = cf_next(&r) >> 1;
        atf_index_event e = cf_random_index_event(&r, l, &ts), d;
        uint8_t want[32], out[32];
        cf_index_event_bytes(want, &e, l);
        assert_int_equal(atf_index_event_encode(out, sizeof out, &e, l), ATF_OK);
        assert_memory_equal(out, want, 32);
        assert_int_equal(atf_index_event_decode(&d, out, 32, l), ATF_OK);
        cf_assert_index_event(&d, &e);
    }
    for (int it = 0; it < 200; it++) {
        atf_layout l = (it & 1) ? ATF_LAYOUT_2 : ATF_LAYOUT_1;
        cf_detail_set s = cf_random_detail_set(&r, l, 8, 300);
        for (size_t i = 0; i < s.n; i++) {
            uint8_t want[600], out[600];
            atf_detail_event d;
            size_t n = cf_detail_event_bytes(want, &s.ev[i], l);
            assert_int_equal(atf_detail_event_encode(out, n, &s.ev[i], l), ATF_OK);
            assert_memory_equal(out, want, n);
            assert_int_equal(atf_detail_event_decode(&d, out, n, l, NULL), ATF_OK);
            cf_assert_detail_event(&d, &s.ev[i]);
            if (s.is_arm64[i]) {
                atf_arm64_payload a;
                assert_int_equal(atf_arm64_payload_decode(&a, d.payload, d.payload_size, NULL), ATF_OK);
                assert_int_equal(100u + a.stack_size, d.payload_size);
            }
        }
        cf_detail_set_free(&s);
    }
}

/* ---- Random bytes through every decoder -------------------------------- */

/* Returns a bit per decoder that accepted the input. */
static unsigned fuzz_one(const uint8_t *b, size_t n)
{
    unsigned ok = 0;
    atf_error err;
    atf_layout l;
    atf_index_header ih;
    atf_index_event ie;
    atf_index_footer iff;
    atf_detail_header dh;
    atf_detail_event de;
    atf_detail_footer df;
    atf_arm64_payload ap;

    atf_status st = atf_header_layout(b, n, ATF_INDEX_MAGIC, &l, &err);
    if (st == ATF_OK)
        assert_true(l == ATF_LAYOUT_1 || l == ATF_LAYOUT_2);
    else
        assert_int_equal(err.code, st);

    st = atf_index_header_decode(&ih, b, n, &err);
    if (st == ATF_OK) {
        ok |= 1u;
        assert_true(n >= 64);
        assert_int_equal(ih.event_size, 32);
        assert_true(ih.events_offset >= 64);
        /* Re-encoding gives back the input but for reserved bytes. */
        uint8_t out[64];
        assert_int_equal(atf_index_header_encode(out, sizeof out, &ih), ATF_OK);
        assert_memory_equal(out, b, 17);
        assert_memory_equal(out + 32, b + 32, 32);
        if (ih.version == 2)
            assert_memory_equal(out + 20, b + 20, 12);
        else
            assert_memory_equal(out + 24, b + 24, 8);
        if (!ih.reserved_nonzero)
            assert_memory_equal(out, b, 64);
    } else {
        assert_int_equal(err.code, st);
        assert_non_null(err.field);
    }

    for (int k = 1; k <= 2; k++) {
        st = atf_index_event_decode(&ie, b, n, (atf_layout)k);
        assert_int_equal(st, n >= 32 ? ATF_OK : ATF_E_TRUNCATED);
        if (st == ATF_OK) {
            uint8_t out[32];
            assert_int_equal(atf_index_event_encode(out, sizeof out, &ie, (atf_layout)k), ATF_OK);
            if (!ie.reserved_nonzero)
                assert_memory_equal(out, b, 32);
        }

        st = atf_detail_event_decode(&de, b, n, (atf_layout)k, &err);
        if (st == ATF_OK) {
            ok |= 2u;
            assert_true(de.total_length >= 24 && de.total_length <= n);
            assert_int_equal(de.payload_size, de.total_length - 24);
            if (de.payload_size) {
                assert_ptr_equal(de.payload, b + 24);
                /* touch the last payload byte: must be inside the input */
                volatile uint8_t last = de.payload[de.payload_size - 1];
                (void)last;
            }
        } else {
            assert_int_equal(err.code, st);
        }
    }

    st = atf_index_footer_decode(&iff, b, n, &err);
    if (st == ATF_OK) {
        ok |= 4u;
        uint8_t out[64];
        assert_int_equal(atf_index_footer_encode(out, sizeof out, &iff), ATF_OK);
        assert_memory_equal(out, b, 40);
        assert_int_equal(iff.reserved_nonzero, memcmp(out + 40, b + 40, 24) != 0);
    }
    st = atf_detail_header_decode(&dh, b, n, &err);
    if (st == ATF_OK) {
        ok |= 8u;
        uint8_t out[64];
        assert_true(dh.events_offset >= 64);
        assert_int_equal(atf_detail_header_encode(out, sizeof out, &dh), ATF_OK);
        assert_memory_equal(out, b, 16);
        assert_memory_equal(out + 20, b + 20, 40);
        assert_int_equal(dh.reserved_nonzero, memcmp(out, b, 64) != 0);
    }
    st = atf_detail_footer_decode(&df, b, n, &err);
    if (st == ATF_OK) {
        ok |= 16u;
        uint8_t out[64];
        assert_int_equal(atf_detail_footer_encode(out, sizeof out, &df), ATF_OK);
        assert_memory_equal(out, b, 40);
        assert_int_equal(df.reserved_nonzero, memcmp(out + 40, b + 40, 24) != 0);
    }
    st = atf_arm64_payload_decode(&ap, b, n, &err);
    if (st == ATF_OK) {
        ok |= 32u;
        assert_true(ap.stack_size <= 256);
        assert_int_equal(n, 100u + ap.stack_size);
        uint8_t out[400];
        assert_int_equal(atf_arm64_payload_encode(out, sizeof out, &ap), n);
        assert_memory_equal(out, b, n);
    } else {
        assert_int_equal(err.code, st);
    }
    return ok;
}

static void test_fuzz_decoders(void **state)
{
    (void)state;
    static const char *const magics[] = { "ATI2", "2ITA", "ATD2", "2DTA" };
    cf_rng r = cf_rng_seed(0xF00DF00Du);
    unsigned hits[6] = { 0 };
    for (int it = 0; it < 20000; it++) {
        size_t n = (size_t)cf_below(&r, 601);
        uint8_t *b = malloc(n ? n : 1);
        assert_non_null(b);
        cf_fill(&r, b, n);
        unsigned mode = (unsigned)cf_below(&r, 4);
        if (mode >= 1 && n >= 4)
            memcpy(b, magics[cf_below(&r, 4)], 4);
        if (mode >= 2 && n >= 6) {
            b[4] = 1;
            b[5] = (uint8_t)(1 + cf_below(&r, 2));
        }
        if (mode == 3) {
            /* plausible sizes and offsets, so that decoders get past their checks */
            switch (cf_below(&r, 4)) {
            case 0: /* index header */
                if (n >= 40) {
                    cf_put32(b + (b[5] == 1 ? 24 : 20), 32);
                    cf_put64(b + 32, 64 + cf_below(&r, 64));
                }
                break;
            case 1: /* detail header */
                if (n >= 28)
                    cf_put64(b + 20, 64 + cf_below(&r, 4));
                break;
            case 2: /* detail event total_length */
                if (n >= 4)
                    cf_put32(b, (uint32_t)(cf_below(&r, 2) ? n : cf_below(&r, n + 2)));
                break;
            default: /* ARM64 stack_size */
                if (n >= 98)
                    cf_put16(b + 96, (uint16_t)(cf_below(&r, 2) && n >= 100 ? n - 100 : cf_below(&r, 300)));
                break;
            }
        }
        unsigned ok = fuzz_one(b, n);
        for (int k = 0; k < 6; k++)
            hits[k] += (ok >> k) & 1u;
        free(b);
    }
    /* every decoder got past its checks many times */
    for (int k = 0; k < 6; k++)
        assert_true(hits[k] > 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_layout),
        cmocka_unit_test(test_index_header_bytes),
        cmocka_unit_test(test_index_header_reserved),
        cmocka_unit_test(test_index_header_layout_fields),
        cmocka_unit_test(test_index_header_errors),
        cmocka_unit_test(test_index_header_encode_limits),
        cmocka_unit_test(test_index_event_bytes),
        cmocka_unit_test(test_index_event_no_detail),
        cmocka_unit_test(test_index_event_encode_limits),
        cmocka_unit_test(test_index_event_decode_details),
        cmocka_unit_test(test_index_footer),
        cmocka_unit_test(test_detail_header),
        cmocka_unit_test(test_detail_header_errors),
        cmocka_unit_test(test_detail_event_bytes),
        cmocka_unit_test(test_detail_event_errors),
        cmocka_unit_test(test_detail_footer),
        cmocka_unit_test(test_arm64_payload_bytes),
        cmocka_unit_test(test_arm64_payload_errors),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_random_roundtrip),
        cmocka_unit_test(test_fuzz_decoders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
