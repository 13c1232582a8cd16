/* Tests for writer.c: the bytes written against independently built images,
 * random round trips through the readers in both layouts, checksum options,
 * finalize/append state rules, layout-1 limits, append_encoded, flush and
 * crash recoverability while the writer is open, and the has_detail flag. */
#include "codec_test_util.h"

#include <atf/reader.h>
#include <atf/writer.h>

static const atf_layout k_layouts[2] = { ATF_LAYOUT_1, ATF_LAYOUT_2 };

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    cf_mkdtemp(g_dir, sizeof g_dir, "t1-wr");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cf_rm_rf(g_dir);
    return 0;
}

static const char *tmp(char *buf, size_t cap, const char *name)
{
    return cf_path(buf, cap, g_dir, name);
}

static atf_writer_options options(atf_layout l, int checksum)
{
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    o.layout = l;
    o.arch = ATF_ARCH_ARM64;
    o.os = ATF_OS_ANDROID;
    o.clock_type = ATF_CLOCK_QPC;
    o.checksum = (uint8_t)checksum;
    o.thread_id = 0xA1B2C3D4u;
    o.buffer_size = 4096; /* the smallest: every test goes through many flushes */
    return o;
}

static atf_index_event *random_events(cf_rng *r, atf_layout l, size_t n)
{
    atf_index_event *ev = calloc(n ? n : 1, sizeof *ev);
    assert_non_null(ev);
    uint64_t ts = cf_below(r, 1u << 30);
    for (size_t i = 0; i < n; i++)
        ev[i] = cf_random_index_event(r, l, &ts);
    return ev;
}

static void write_index(const char *path, const atf_writer_options *o, const atf_index_event *ev, size_t n,
                        int has_detail)
{
    atf_index_writer *w = NULL;
    atf_error err;
    assert_int_equal(atf_index_writer_open(&w, path, o, &err), ATF_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(atf_index_writer_append(w, &ev[i]), ATF_OK);
    atf_index_writer_set_has_detail(w, has_detail);
    assert_int_equal(atf_index_writer_count(w), n);
    assert_int_equal(atf_index_writer_finalize(w, 1, &err), ATF_OK);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);
}

static void write_detail(const char *path, const atf_writer_options *o, const cf_detail_set *s)
{
    atf_detail_writer *w = NULL;
    atf_error err;
    assert_int_equal(atf_detail_writer_open(&w, path, o, &err), ATF_OK);
    for (size_t i = 0; i < s->n; i++) {
        uint64_t seq = UINT64_MAX;
        assert_int_equal(atf_detail_writer_append(w, &s->ev[i], &seq), ATF_OK);
        assert_int_equal(seq, i);
    }
    assert_int_equal(atf_detail_writer_count(w), s->n);
    assert_int_equal(atf_detail_writer_finalize(w, 0, &err), ATF_OK);
    assert_int_equal(atf_detail_writer_close(w), ATF_OK);
}

static cf_index_spec index_spec(atf_layout l, int checksum, int has_detail, int finalized)
{
    cf_index_spec s;
    memset(&s, 0, sizeof s);
    s.layout = l;
    s.arch = ATF_ARCH_ARM64;
    s.os = ATF_OS_ANDROID;
    s.clock_type = ATF_CLOCK_QPC;
    s.flags = has_detail ? ATF_INDEX_FLAG_HAS_DETAIL_FILE : 0;
    s.thread_id = 0xA1B2C3D4u;
    s.finalized = finalized;
    s.footer = finalized;
    s.checksum = checksum ? CF_SUM_CRC32C : CF_SUM_NONE;
    return s;
}

static cf_detail_spec detail_spec(atf_layout l, int checksum, int finalized)
{
    cf_detail_spec s;
    memset(&s, 0, sizeof s);
    s.layout = l;
    s.arch = ATF_ARCH_ARM64;
    s.os = ATF_OS_ANDROID;
    s.thread_id = 0xA1B2C3D4u;
    s.finalized = finalized;
    s.footer = finalized;
    s.checksum = checksum ? CF_SUM_CRC32C : CF_SUM_NONE;
    return s;
}

/* ---- The bytes on disk ------------------------------------------------- */

static void test_index_bytes(void **state)
{
    (void)state;
    char path[300];
    cf_rng rng = cf_rng_seed(31);
    tmp(path, sizeof path, "index.atf");
    for (int li = 0; li < 2; li++) {
        for (int sum = 0; sum < 2; sum++) {
            for (size_t n = 0; n <= 5; n += 5) {
                atf_layout l = k_layouts[li];
                atf_index_event *ev = random_events(&rng, l, n);
                atf_writer_options o = options(l, sum);
                write_index(path, &o, ev, n, sum);
                size_t size;
                uint8_t *got = cf_read_file(path, &size);
                cf_index_spec s = index_spec(l, sum, sum, 1);
                uint8_t want[64 + 5 * 32 + 64];
                size_t wsize = cf_index_image(want, &s, ev, n);
                assert_int_equal(size, wsize);
                assert_memory_equal(got, want, wsize);

                atf_index_reader *r = NULL;
                atf_error err;
                assert_int_equal(atf_index_reader_open(&r, path, NULL, &err), ATF_OK);
                assert_int_equal(atf_index_reader_info(r)->checksum,
                                 (sum && n) ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO);
                assert_int_equal(atf_index_reader_footer(r)->checksum,
                                 sum ? cf_crc32c(want + 64, 32 * n) : 0);
                atf_index_reader_close(r);
                free(got);
                free(ev);
            }
        }
    }
}

static void test_detail_bytes(void **state)
{
    (void)state;
    char path[300];
    cf_rng rng = cf_rng_seed(32);
    tmp(path, sizeof path, "detail.atf");
    for (int li = 0; li < 2; li++) {
        for (int sum = 0; sum < 2; sum++) {
            for (size_t n = 0; n <= 6; n += 6) {
                atf_layout l = k_layouts[li];
                cf_detail_set set = cf_random_detail_set(&rng, l, n, 90);
                atf_writer_options o = options(l, sum);
                write_detail(path, &o, &set);
                size_t size;
                uint8_t *got = cf_read_file(path, &size);
                cf_detail_spec s = detail_spec(l, sum, 1);
                size_t wcap = cf_detail_image_size(set.ev, n, 1);
                uint8_t *want = malloc(wcap);
                assert_non_null(want);
                size_t wsize = cf_detail_image(want, &s, set.ev, n);
                assert_int_equal(size, wsize);
                assert_memory_equal(got, want, wsize);

                atf_detail_reader *r = NULL;
                atf_error err;
                assert_int_equal(atf_detail_reader_open(&r, path, NULL, &err), ATF_OK);
                assert_int_equal(atf_detail_reader_info(r)->checksum,
                                 (sum && n) ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO);
                atf_detail_reader_close(r);
                free(want);
                free(got);
                cf_detail_set_free(&set);
            }
        }
    }
}

/* Before finalize the file is a placeholder header and the flushed events. */
static void test_placeholder_bytes(void **state)
{
    (void)state;
    char ipath[300], dpath[300];
    cf_rng rng = cf_rng_seed(33);
    tmp(ipath, sizeof ipath, "ph-index.atf");
    tmp(dpath, sizeof dpath, "ph-detail.atf");
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        atf_writer_options o = options(l, 1);
        atf_index_event *ev = random_events(&rng, l, 7);
        cf_detail_set set = cf_random_detail_set(&rng, l, 7, 50);
        atf_index_writer *iw;
        atf_detail_writer *dw;
        atf_error err;
        assert_int_equal(atf_index_writer_open(&iw, ipath, &o, &err), ATF_OK);
        assert_int_equal(atf_detail_writer_open(&dw, dpath, &o, &err), ATF_OK);
        atf_index_writer_set_has_detail(iw, 1);
        for (size_t i = 0; i < 7; i++) {
            assert_int_equal(atf_index_writer_append(iw, &ev[i]), ATF_OK);
            assert_int_equal(atf_detail_writer_append(dw, &set.ev[i], NULL), ATF_OK);
        }
        assert_int_equal(atf_index_writer_flush(iw), ATF_OK);
        assert_int_equal(atf_detail_writer_flush(dw), ATF_OK);

        size_t size;
        uint8_t *got = cf_read_file(ipath, &size);
        cf_index_spec is = index_spec(l, 1, 1, 0);
        uint8_t want[64 + 7 * 32];
        assert_int_equal(cf_index_image(want, &is, ev, 7), sizeof want);
        assert_int_equal(size, sizeof want);
        assert_memory_equal(got, want, sizeof want);
        free(got);

        got = cf_read_file(dpath, &size);
        cf_detail_spec ds = detail_spec(l, 1, 0);
        uint8_t *dwant = malloc(cf_detail_image_size(set.ev, 7, 0));
        assert_non_null(dwant);
        size_t dsize = cf_detail_image(dwant, &ds, set.ev, 7);
        assert_int_equal(size, dsize);
        assert_memory_equal(got, dwant, dsize);
        free(dwant);
        free(got);

        assert_int_equal(atf_index_writer_close(iw), ATF_OK);
        assert_int_equal(atf_detail_writer_close(dw), ATF_OK);
        free(ev);
        cf_detail_set_free(&set);
    }
}

/* ---- Random round trips ------------------------------------------------ */

static void test_index_roundtrip(void **state)
{
    (void)state;
    char path[300];
    cf_rng rng = cf_rng_seed(34);
    tmp(path, sizeof path, "rt-index.atf");
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        const size_t n = 5000;
        atf_index_event *ev = random_events(&rng, l, n);
        atf_writer_options o = options(l, 1);
        write_index(path, &o, ev, n, 0);

        for (int no_mmap = 0; no_mmap < 2; no_mmap++) {
            atf_read_options ro = ATF_READ_OPTIONS_INIT;
            ro.no_mmap = (unsigned)no_mmap;
            atf_index_reader *r = NULL;
            atf_error err;
            assert_int_equal(atf_index_reader_open(&r, path, &ro, &err), ATF_OK);
            const atf_index_info *info = atf_index_reader_info(r);
            const atf_index_header *h = atf_index_reader_header(r);
            assert_int_equal(info->layout, l);
            assert_int_equal(info->checksum, ATF_CHECKSUM_CRC32C);
            assert_int_equal(info->has_footer, 1);
            assert_int_equal(info->recovered, 0);
            assert_int_equal(h->event_count, n);
            assert_int_equal(h->flags, 0);
            assert_int_equal(h->thread_id, 0xA1B2C3D4u);
            assert_int_equal(h->clock_type, ATF_CLOCK_QPC);
            assert_int_equal(h->time_start_ns, ev[0].timestamp_ns);
            assert_int_equal(h->time_end_ns, ev[n - 1].timestamp_ns);
            assert_int_equal(atf_index_reader_footer(r)->time_start_ns, ev[0].timestamp_ns);
            assert_int_equal(atf_index_reader_footer(r)->time_end_ns, ev[n - 1].timestamp_ns);
            assert_int_equal(atf_index_reader_count(r), n);
            for (uint64_t i = 0; i < n; i++) {
                atf_index_event got;
                assert_int_equal(atf_index_reader_get(r, i, &got), ATF_OK);
                cf_assert_index_event(&got, &ev[i]);
            }
            atf_index_reader_close(r);
        }
        free(ev);
    }
}

static void test_detail_roundtrip(void **state)
{
    (void)state;
    char path[300];
    cf_rng rng = cf_rng_seed(35);
    tmp(path, sizeof path, "rt-detail.atf");
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        /* Raw payloads up to 9000 bytes: larger than the 4096-byte buffer. */
        cf_detail_set set = cf_random_detail_set(&rng, l, 1500, 9000);
        atf_writer_options o = options(l, 1);
        write_detail(path, &o, &set);

        atf_detail_reader *r = NULL;
        atf_error err;
        assert_int_equal(atf_detail_reader_open(&r, path, NULL, &err), ATF_OK);
        const atf_detail_info *info = atf_detail_reader_info(r);
        const atf_detail_header *h = atf_detail_reader_header(r);
        assert_int_equal(info->checksum, ATF_CHECKSUM_CRC32C);
        assert_int_equal(h->event_count, set.n);
        assert_int_equal(h->index_seq_start, set.ev[0].index_seq);
        assert_int_equal(h->index_seq_end, set.ev[set.n - 1].index_seq);
        assert_int_equal(atf_detail_reader_footer(r)->time_start_ns, set.ev[0].timestamp);
        assert_int_equal(atf_detail_reader_footer(r)->time_end_ns, set.ev[set.n - 1].timestamp);
        assert_int_equal(atf_detail_reader_count(r), set.n);
        size_t arm64 = 0;
        for (uint64_t i = 0; i < set.n; i++) {
            atf_detail_event got;
            assert_int_equal(atf_detail_reader_get(r, i, &got), ATF_OK);
            cf_assert_detail_event(&got, &set.ev[i]);
            if (set.is_arm64[i]) {
                atf_arm64_payload a;
                assert_int_equal(atf_arm64_payload_decode(&a, got.payload, got.payload_size, &err), ATF_OK);
                assert_true(a.stack_size <= 256);
                arm64++;
            }
        }
        assert_true(arm64 > 100);
        atf_detail_reader_close(r);
        cf_detail_set_free(&set);
    }
}

/* ---- Checksum variants on written files -------------------------------- */

static void test_checksum_variants(void **state)
{
    (void)state;
    char path[300];
    cf_rng rng = cf_rng_seed(36);
    tmp(path, sizeof path, "sum-index.atf");
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        atf_index_event *ev = random_events(&rng, l, 64);
        atf_writer_options o = options(l, 1);
        write_index(path, &o, ev, 64, 1);
        size_t size;
        uint8_t *b = cf_read_file(path, &size);
        const size_t fo = 64 + 64 * 32;
        atf_index_reader *r = NULL;
        atf_error err;

        /* CRC32/IEEE patched into the footer: layout 1 accepts and says so. */
        cf_put32(b + fo + 4, cf_crc32_ieee(b + 64, 64 * 32));
        atf_status st = atf_index_reader_open_memory(&r, b, size, "ieee", NULL, &err);
        if (l == ATF_LAYOUT_1) {
            assert_int_equal(st, ATF_OK);
            assert_int_equal(atf_index_reader_info(r)->checksum, ATF_CHECKSUM_CRC32_IEEE);
            atf_index_reader_close(r);
        } else {
            assert_int_equal(st, ATF_E_CHECKSUM);
        }
        cf_put32(b + fo + 4, cf_crc32c(b + 64, 64 * 32));

        /* A flipped event byte. */
        b[64 + 32 * 40 + 9] ^= 0x20;
        assert_int_equal(atf_index_reader_open_memory(&r, b, size, "flip", NULL, &err), ATF_E_CHECKSUM);
        cf_assert_error(&err, ATF_E_CHECKSUM, fo + 4, "footer.checksum");
        atf_read_options ro = ATF_READ_OPTIONS_INIT;
        ro.verify = 0;
        assert_int_equal(atf_index_reader_open_memory(&r, b, size, "flip", &ro, &err), ATF_OK);
        assert_int_equal(atf_index_reader_info(r)->checksum, ATF_CHECKSUM_NOT_VERIFIED);
        atf_index_event got;
        assert_int_equal(atf_index_reader_get(r, 40, &got), ATF_OK);
        assert_int_equal(got.function_id, ev[40].function_id ^ (0x20ull << 8));
        atf_index_reader_close(r);
        free(b);
        free(ev);
    }
}

/* ---- State rules ------------------------------------------------------- */

static void test_finalize_idempotent(void **state)
{
    (void)state;
    char ipath[300], dpath[300];
    cf_rng rng = cf_rng_seed(37);
    tmp(ipath, sizeof ipath, "fin-index.atf");
    tmp(dpath, sizeof dpath, "fin-detail.atf");
    atf_writer_options o = options(ATF_LAYOUT_2, 1);
    atf_index_event *ev = random_events(&rng, ATF_LAYOUT_2, 10);
    cf_detail_set set = cf_random_detail_set(&rng, ATF_LAYOUT_2, 10, 30);
    atf_index_writer *iw;
    atf_detail_writer *dw;
    atf_error err;
    assert_int_equal(atf_index_writer_open(&iw, ipath, &o, &err), ATF_OK);
    assert_int_equal(atf_detail_writer_open(&dw, dpath, &o, &err), ATF_OK);
    for (size_t i = 0; i < 10; i++) {
        assert_int_equal(atf_index_writer_append(iw, &ev[i]), ATF_OK);
        assert_int_equal(atf_detail_writer_append(dw, &set.ev[i], NULL), ATF_OK);
    }
    assert_int_equal(atf_index_writer_finalize(iw, 0, &err), ATF_OK);
    assert_int_equal(atf_detail_writer_finalize(dw, 1, &err), ATF_OK);
    size_t is1, ds1, is2, ds2;
    uint8_t *i1 = cf_read_file(ipath, &is1), *d1 = cf_read_file(dpath, &ds1);
    assert_int_equal(is1, 64 + 320 + 64);

    assert_int_equal(atf_index_writer_finalize(iw, 1, &err), ATF_OK);
    assert_int_equal(atf_index_writer_finalize(iw, 0, NULL), ATF_OK);
    assert_int_equal(atf_detail_writer_finalize(dw, 0, &err), ATF_OK);
    assert_int_equal(atf_detail_writer_finalize(dw, 1, NULL), ATF_OK);

    /* No appends after finalize. */
    uint8_t raw[32];
    assert_int_equal(atf_index_writer_append(iw, &ev[0]), ATF_E_STATE);
    assert_int_equal(atf_index_event_encode(raw, sizeof raw, &ev[0], ATF_LAYOUT_2), ATF_OK);
    assert_int_equal(atf_index_writer_append_encoded(iw, raw, 1), ATF_E_STATE);
    assert_int_equal(atf_detail_writer_append(dw, &set.ev[0], NULL), ATF_E_STATE);
    assert_int_equal(atf_index_writer_count(iw), 10);
    assert_int_equal(atf_detail_writer_count(dw), 10);
    assert_int_equal(atf_index_writer_close(iw), ATF_OK);
    assert_int_equal(atf_detail_writer_close(dw), ATF_OK);

    /* The extra calls and close changed nothing on disk. */
    uint8_t *i2 = cf_read_file(ipath, &is2), *d2 = cf_read_file(dpath, &ds2);
    assert_int_equal(is1, is2);
    assert_int_equal(ds1, ds2);
    assert_memory_equal(i1, i2, is1);
    assert_memory_equal(d1, d2, ds1);
    free(i1);
    free(i2);
    free(d1);
    free(d2);
    free(ev);
    cf_detail_set_free(&set);
}

/* close() without finalize() finalizes. */
static void test_close_finalizes(void **state)
{
    (void)state;
    char path[300];
    cf_rng rng = cf_rng_seed(38);
    tmp(path, sizeof path, "close-index.atf");
    atf_writer_options o = options(ATF_LAYOUT_1, 1);
    atf_index_event *ev = random_events(&rng, ATF_LAYOUT_1, 3);
    atf_index_writer *w;
    atf_error err;
    assert_int_equal(atf_index_writer_open(&w, path, &o, &err), ATF_OK);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(atf_index_writer_append(w, &ev[i]), ATF_OK);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);
    size_t size;
    uint8_t *got = cf_read_file(path, &size);
    uint8_t want[64 + 96 + 64];
    cf_index_spec s = index_spec(ATF_LAYOUT_1, 1, 0, 1);
    assert_int_equal(cf_index_image(want, &s, ev, 3), sizeof want);
    assert_int_equal(size, sizeof want);
    assert_memory_equal(got, want, sizeof want);
    free(got);
    free(ev);
    assert_int_equal(atf_index_writer_close(NULL), ATF_OK);
    assert_int_equal(atf_detail_writer_close(NULL), ATF_OK);
}

/* ---- Layout limits ----------------------------------------------------- */

static void test_layout1_limits(void **state)
{
    (void)state;
    char path[300], dpath[300];
    tmp(path, sizeof path, "l1-index.atf");
    tmp(dpath, sizeof dpath, "l1-detail.atf");
    atf_writer_options o = options(ATF_LAYOUT_1, 1);
    atf_index_writer *w;
    atf_error err;
    assert_int_equal(atf_index_writer_open(&w, path, &o, &err), ATF_OK);
    atf_index_event e;
    memset(&e, 0, sizeof e);
    e.event_kind = 1;
    e.timestamp_ns = 5;

    static const uint64_t bad[] = { UINT32_MAX, (uint64_t)UINT32_MAX + 1u, UINT64_MAX - 1u };
    for (size_t k = 0; k < 3; k++) {
        e.detail_seq = bad[k];
        assert_int_equal(atf_index_writer_append(w, &e), ATF_E_FIELD);
        assert_int_equal(atf_index_writer_count(w), 0);
    }
    uint64_t first = 1, last = 2;
    assert_int_equal(atf_index_writer_time_range(w, &first, &last), 0);
    assert_int_equal(first, 1); /* left alone */
    assert_int_equal(last, 2);
    e.detail_seq = ATF_NO_DETAIL;
    assert_int_equal(atf_index_writer_append(w, &e), ATF_OK);
    e.detail_seq = UINT32_MAX - 1u;
    e.timestamp_ns = 9;
    assert_int_equal(atf_index_writer_append(w, &e), ATF_OK);
    assert_int_equal(atf_index_writer_time_range(w, &first, &last), 1);
    assert_int_equal(first, 5);
    assert_int_equal(last, 9);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);

    size_t size;
    uint8_t *b = cf_read_file(path, &size);
    assert_int_equal(size, 64 + 64 + 64);
    assert_int_equal(cf_get32(b + 28), 2);                   /* u32 event_count in the header */
    assert_int_equal(cf_get32(b + 64 + 28), UINT32_MAX);     /* sentinel */
    assert_int_equal(cf_get32(b + 96 + 28), UINT32_MAX - 1u);
    free(b);

    /* Detail writer: layout-1 index_seq is u32. */
    atf_detail_writer *dw;
    assert_int_equal(atf_detail_writer_open(&dw, dpath, &o, &err), ATF_OK);
    atf_detail_event d;
    memset(&d, 0, sizeof d);
    d.index_seq = (uint64_t)UINT32_MAX + 1u;
    assert_int_equal(atf_detail_writer_append(dw, &d, NULL), ATF_E_FIELD);
    assert_int_equal(atf_detail_writer_count(dw), 0);
    d.index_seq = UINT32_MAX;
    d.thread_id = 0xFEEDu;
    assert_int_equal(atf_detail_writer_append(dw, &d, NULL), ATF_OK);
    d.payload_size = 3;
    d.payload = NULL;
    assert_int_equal(atf_detail_writer_append(dw, &d, NULL), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_close(dw), ATF_OK);
    b = cf_read_file(dpath, &size);
    assert_int_equal(size, 64 + 24 + 64);
    assert_int_equal(cf_get32(b + 64 + 8), UINT32_MAX);
    assert_int_equal(cf_get32(b + 64 + 12), 0xFEEDu);
    free(b);

    /* Layout 2: event_kind is u8. */
    o = options(ATF_LAYOUT_2, 1);
    assert_int_equal(atf_index_writer_open(&w, path, &o, &err), ATF_OK);
    e.event_kind = 256;
    assert_int_equal(atf_index_writer_append(w, &e), ATF_E_FIELD);
    e.event_kind = 3;
    e.detail_seq = (uint64_t)UINT32_MAX + 7u;
    assert_int_equal(atf_index_writer_append(w, &e), ATF_OK);
    assert_int_equal(atf_index_writer_count(w), 1);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);
}

/* ---- append_encoded ---------------------------------------------------- */

static void test_append_encoded(void **state)
{
    (void)state;
    char p1[300], p2[300];
    cf_rng rng = cf_rng_seed(39);
    tmp(p1, sizeof p1, "enc-a.atf");
    tmp(p2, sizeof p2, "enc-b.atf");
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        const size_t n = 1000;
        atf_index_event *ev = random_events(&rng, l, n);
        uint8_t *raw = malloc(n * 32);
        assert_non_null(raw);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(atf_index_event_encode(raw + 32 * i, 32, &ev[i], l), ATF_OK);
        atf_writer_options o = options(l, 1);
        write_index(p1, &o, ev, n, 1);

        atf_index_writer *w;
        atf_error err;
        assert_int_equal(atf_index_writer_open(&w, p2, &o, &err), ATF_OK);
        assert_int_equal(atf_index_writer_append_encoded(w, raw, 0), ATF_OK);
        assert_int_equal(atf_index_writer_append_encoded(w, NULL, 0), ATF_OK);
        assert_int_equal(atf_index_writer_append_encoded(w, NULL, 1), ATF_E_ARG);
        uint64_t t0, t1;
        assert_int_equal(atf_index_writer_time_range(w, &t0, &t1), 0);
        size_t done = 0;
        while (done < n) {
            /* chunks of 1..300 events, some bigger than the buffer */
            size_t k = 1 + (size_t)cf_below(&rng, 300);
            if (k > n - done)
                k = n - done;
            assert_int_equal(atf_index_writer_append_encoded(w, raw + 32 * done, k), ATF_OK);
            done += k;
            assert_int_equal(atf_index_writer_count(w), done);
            assert_int_equal(atf_index_writer_time_range(w, &t0, &t1), 1);
            assert_int_equal(t0, ev[0].timestamp_ns);
            assert_int_equal(t1, ev[done - 1].timestamp_ns);
        }
        atf_index_writer_set_has_detail(w, 1);
        assert_int_equal(atf_index_writer_close(w), ATF_OK);

        cf_assert_same_file(p1, p2);
        free(raw);
        free(ev);
    }
}

/* ---- flush ------------------------------------------------------------- */

static void test_flush_recoverable(void **state)
{
    (void)state;
    char ipath[300], dpath[300];
    cf_rng rng = cf_rng_seed(40);
    tmp(ipath, sizeof ipath, "fl-index.atf");
    tmp(dpath, sizeof dpath, "fl-detail.atf");
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        atf_writer_options o = options(l, 1);
        o.buffer_size = 0; /* default 1 MiB: nothing reaches the file before flush */
        atf_index_event *ev = random_events(&rng, l, 30);
        cf_detail_set set = cf_random_detail_set(&rng, l, 30, 100);
        atf_index_writer *iw;
        atf_detail_writer *dw;
        atf_error err;
        assert_int_equal(atf_index_writer_open(&iw, ipath, &o, &err), ATF_OK);
        assert_int_equal(atf_detail_writer_open(&dw, dpath, &o, &err), ATF_OK);

        for (size_t round = 0; round < 3; round++) {
            for (size_t i = round * 10; i < round * 10 + 10; i++) {
                assert_int_equal(atf_index_writer_append(iw, &ev[i]), ATF_OK);
                assert_int_equal(atf_detail_writer_append(dw, &set.ev[i], NULL), ATF_OK);
            }
            atf_index_reader *ir = NULL;
            atf_detail_reader *dr = NULL;
            /* not flushed yet: the file holds the previous rounds only */
            assert_int_equal(atf_index_reader_open(&ir, ipath, NULL, &err), ATF_OK);
            assert_int_equal(atf_index_reader_count(ir), round * 10);
            atf_index_reader_close(ir);
            assert_int_equal(atf_detail_reader_open(&dr, dpath, NULL, &err), ATF_OK);
            assert_int_equal(atf_detail_reader_count(dr), round * 10);
            atf_detail_reader_close(dr);

            assert_int_equal(atf_index_writer_flush(iw), ATF_OK);
            assert_int_equal(atf_detail_writer_flush(dw), ATF_OK);
            assert_int_equal(atf_index_writer_flush(iw), ATF_OK); /* nothing pending: no-op */

            for (int no_mmap = 0; no_mmap < 2; no_mmap++) {
                atf_read_options ro = ATF_READ_OPTIONS_INIT;
                ro.no_mmap = (unsigned)no_mmap;
                assert_int_equal(atf_index_reader_open(&ir, ipath, &ro, &err), ATF_OK);
                const atf_index_info *info = atf_index_reader_info(ir);
                assert_int_equal(info->recovered, 1);
                assert_int_equal(info->header_finalized, 0);
                assert_int_equal(info->trailing_bytes, 0);
                assert_int_equal(atf_index_reader_count(ir), round * 10 + 10);
                for (uint64_t i = 0; i < round * 10 + 10; i++) {
                    atf_index_event got;
                    assert_int_equal(atf_index_reader_get(ir, i, &got), ATF_OK);
                    cf_assert_index_event(&got, &ev[i]);
                }
                atf_index_reader_close(ir);

                assert_int_equal(atf_detail_reader_open(&dr, dpath, &ro, &err), ATF_OK);
                assert_int_equal(atf_detail_reader_info(dr)->recovered, 1);
                assert_int_equal(atf_detail_reader_info(dr)->trailing_bytes, 0);
                assert_int_equal(atf_detail_reader_count(dr), round * 10 + 10);
                for (uint64_t i = 0; i < round * 10 + 10; i++) {
                    atf_detail_event got;
                    assert_int_equal(atf_detail_reader_get(dr, i, &got), ATF_OK);
                    cf_assert_detail_event(&got, &set.ev[i]);
                }
                atf_detail_reader_close(dr);
            }
        }
        assert_int_equal(atf_index_writer_close(iw), ATF_OK);
        assert_int_equal(atf_detail_writer_close(dw), ATF_OK);
        atf_index_reader *ir = NULL;
        assert_int_equal(atf_index_reader_open(&ir, ipath, NULL, &err), ATF_OK);
        assert_int_equal(atf_index_reader_info(ir)->has_footer, 1);
        assert_int_equal(atf_index_reader_count(ir), 30);
        atf_index_reader_close(ir);
        free(ev);
        cf_detail_set_free(&set);
    }
}

/* ---- has_detail -------------------------------------------------------- */

static uint32_t flags_after(const char *path, int calls, const int *values)
{
    atf_writer_options o = options(ATF_LAYOUT_1, 0);
    atf_index_writer *w;
    atf_error err;
    assert_int_equal(atf_index_writer_open(&w, path, &o, &err), ATF_OK);
    for (int i = 0; i < calls; i++)
        atf_index_writer_set_has_detail(w, values[i]);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);
    size_t size;
    uint8_t *b = cf_read_file(path, &size);
    assert_int_equal(size, 128);
    uint32_t flags = cf_get32(b + 8);
    free(b);
    return flags;
}

static void test_has_detail(void **state)
{
    (void)state;
    char path[300];
    tmp(path, sizeof path, "flags.atf");
    const int one[] = { 1 }, on_off[] = { 1, 0 }, seven[] = { 7 }, off_on[] = { 0, 1 };
    assert_int_equal(flags_after(path, 0, NULL), 0);
    assert_int_equal(flags_after(path, 1, one), ATF_INDEX_FLAG_HAS_DETAIL_FILE);
    assert_int_equal(flags_after(path, 2, on_off), 0);
    assert_int_equal(flags_after(path, 1, seven), ATF_INDEX_FLAG_HAS_DETAIL_FILE);
    assert_int_equal(flags_after(path, 2, off_on), ATF_INDEX_FLAG_HAS_DETAIL_FILE);
    atf_index_writer_set_has_detail(NULL, 1); /* ignored */
}

/* ---- Options and arguments --------------------------------------------- */

static void test_options(void **state)
{
    (void)state;
    char path[300], bad[400];
    tmp(path, sizeof path, "opts.atf");
    atf_index_writer *w = (atf_index_writer *)(uintptr_t)1;
    atf_detail_writer *dw = (atf_detail_writer *)(uintptr_t)1;
    atf_error err;
    atf_writer_options o = options(ATF_LAYOUT_2, 1);

    o.layout = (atf_layout)3;
    assert_int_equal(atf_index_writer_open(&w, path, &o, &err), ATF_E_ARG);
    assert_null(w);
    assert_int_equal(atf_detail_writer_open(&dw, path, &o, &err), ATF_E_ARG);
    assert_null(dw);
    o.layout = (atf_layout)0;
    assert_int_equal(atf_index_writer_open(&w, path, &o, &err), ATF_E_ARG);
    assert_int_equal(atf_index_writer_open(NULL, path, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_index_writer_open(&w, NULL, NULL, &err), ATF_E_ARG);

    snprintf(bad, sizeof bad, "%s/no/such/dir/index.atf", g_dir);
    assert_int_equal(atf_index_writer_open(&w, bad, NULL, &err), ATF_E_IO);
    assert_null(w);
    assert_string_equal(err.file, bad);
    assert_int_equal(atf_detail_writer_open(&dw, bad, NULL, &err), ATF_E_IO);

    /* NULL options: layout 2, host arch/os/clock, CRC32-C. */
    atf_index_event e;
    memset(&e, 0, sizeof e);
    e.event_kind = 1;
    e.timestamp_ns = 100;
    e.detail_seq = ATF_NO_DETAIL;
    assert_int_equal(atf_index_writer_open(&w, path, NULL, &err), ATF_OK);
    assert_int_equal(atf_index_writer_append(w, &e), ATF_OK);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);
    size_t size;
    uint8_t *b = cf_read_file(path, &size);
    assert_int_equal(size, 64 + 32 + 64);
    assert_int_equal(b[5], ATF_LAYOUT_2);
    assert_int_equal(b[6], ATF_HOST_ARCH);
    assert_int_equal(b[7], ATF_HOST_OS);
    assert_int_equal(b[16], ATF_HOST_CLOCK);
    assert_int_equal(cf_get32(b + 64 + 32 + 4), cf_crc32c(b + 64, 32));
    free(b);

    assert_int_equal(atf_index_writer_append(NULL, &e), ATF_E_ARG);
    assert_int_equal(atf_index_writer_flush(NULL), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_flush(NULL), ATF_E_ARG);
    assert_int_equal(atf_index_writer_finalize(NULL, 0, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_writer_finalize(NULL, 0, &err), ATF_E_ARG);
    assert_int_equal(atf_index_writer_count(NULL), 0);
    assert_int_equal(atf_detail_writer_count(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_bytes),
        cmocka_unit_test(test_detail_bytes),
        cmocka_unit_test(test_placeholder_bytes),
        cmocka_unit_test(test_index_roundtrip),
        cmocka_unit_test(test_detail_roundtrip),
        cmocka_unit_test(test_checksum_variants),
        cmocka_unit_test(test_finalize_idempotent),
        cmocka_unit_test(test_close_finalizes),
        cmocka_unit_test(test_layout1_limits),
        cmocka_unit_test(test_append_encoded),
        cmocka_unit_test(test_flush_recoverable),
        cmocka_unit_test(test_has_detail),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
