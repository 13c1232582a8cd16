/* Tests for detail_reader.c: open of hand-built images of both layouts
 * (ARM64 payloads included), checksum states, footer/length/count errors,
 * crash recovery at every truncation length, navigation in both directions,
 * mmap vs read() vs memory, and random and mutated inputs. */
#include "codec_test_util.h"

#include <atf/reader.h>
#include <atf/writer.h>

static const atf_layout k_layouts[2] = { ATF_LAYOUT_1, ATF_LAYOUT_2 };

static cf_detail_spec spec(atf_layout l, int finalized, int footer, int checksum)
{
    cf_detail_spec s;
    memset(&s, 0, sizeof s);
    s.layout = l;
    s.arch = ATF_ARCH_ARM64;
    s.os = ATF_OS_ANDROID;
    s.thread_id = 4242;
    s.finalized = finalized;
    s.footer = footer;
    s.checksum = checksum;
    return s;
}

static uint8_t *image(const cf_detail_spec *s, const cf_detail_set *set, size_t *size)
{
    size_t want = cf_detail_image_size(set->ev, set->n, s->footer);
    uint8_t *b = malloc(want);
    assert_non_null(b);
    *size = cf_detail_image(b, s, set->ev, set->n);
    assert_int_equal(*size, want);
    return b;
}

static atf_detail_reader *open_ok(const uint8_t *b, size_t n, const atf_read_options *o)
{
    atf_detail_reader *r = NULL;
    atf_error err;
    atf_status st = atf_detail_reader_open_memory(&r, b, n, "mem", o, &err);
    if (st)
        fail_msg("open failed: %s (%s)", atf_status_name(st), err.message);
    assert_non_null(r);
    return r;
}

static atf_status open_fail(const uint8_t *b, size_t n, const atf_read_options *o, atf_error *err)
{
    atf_detail_reader *r = (atf_detail_reader *)(uintptr_t)1;
    atf_status st = atf_detail_reader_open_memory(&r, b, n, "bad.atf", o, err);
    assert_int_not_equal(st, ATF_OK);
    assert_null(r);
    assert_int_equal(err->code, st);
    assert_string_equal(err->file, "bad.atf");
    return st;
}

/* File offset of each event in an image, plus the end of the events. */
static uint64_t *event_offsets(const cf_detail_set *s)
{
    uint64_t *o = malloc((s->n + 1) * sizeof *o);
    assert_non_null(o);
    o[0] = 64;
    for (size_t i = 0; i < s->n; i++)
        o[i + 1] = o[i] + 24 + s->ev[i].payload_size;
    return o;
}

static void assert_events(const atf_detail_reader *r, const cf_detail_set *s, uint64_t n)
{
    uint64_t *off = event_offsets(s);
    size_t size;
    const uint8_t *base = atf_detail_reader_bytes(r, &size);
    assert_int_equal(atf_detail_reader_count(r), n);
    for (uint64_t i = 0; i < n; i++) {
        atf_detail_event got;
        memset(&got, 0xA5, sizeof got);
        assert_int_equal(atf_detail_reader_get(r, i, &got), ATF_OK);
        cf_assert_detail_event(&got, &s->ev[i]);
        assert_int_equal(atf_detail_reader_offset(r, i), off[i]);
        if (got.payload_size)
            assert_ptr_equal(got.payload, base + off[i] + 24);
        if (s->is_arm64[i]) {
            atf_arm64_payload a;
            assert_int_equal(atf_arm64_payload_decode(&a, got.payload, got.payload_size, NULL), ATF_OK);
            assert_int_equal(a.function_id, cf_get64(s->ev[i].payload));
            assert_int_equal(a.sp, cf_get64(s->ev[i].payload + 88));
            assert_int_equal(100u + a.stack_size, got.payload_size);
        }
    }
    atf_detail_event got;
    assert_int_equal(atf_detail_reader_get(r, n, &got), ATF_E_RANGE);
    assert_int_equal(atf_detail_reader_get(r, UINT64_MAX, &got), ATF_E_RANGE);
    assert_int_equal(atf_detail_reader_offset(r, n), UINT64_MAX);
    free(off);
}

/* ---- Complete files ---------------------------------------------------- */

static void test_open_finalized(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(21);
    static const size_t counts[] = { 0, 1, 3, 60 };
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        for (size_t ci = 0; ci < 4; ci++) {
            size_t n = counts[ci];
            cf_detail_set set = cf_random_detail_set(&rng, l, n, 500);
            cf_detail_spec s = spec(l, 1, 1, CF_SUM_CRC32C);
            size_t size;
            uint8_t *b = image(&s, &set, &size);
            uint64_t len = size - 128;
            atf_detail_reader *r = open_ok(b, size, NULL);

            const atf_detail_header *h = atf_detail_reader_header(r);
            assert_int_equal(h->version, l);
            assert_int_equal(h->arch, ATF_ARCH_ARM64);
            assert_int_equal(h->os, ATF_OS_ANDROID);
            assert_int_equal(h->thread_id, 4242);
            assert_int_equal(h->events_offset, 64);
            assert_int_equal(h->event_count, n);
            assert_int_equal(h->bytes_length, len);
            assert_int_equal(h->index_seq_start, n ? set.ev[0].index_seq : 0);
            assert_int_equal(h->index_seq_end, n ? set.ev[n - 1].index_seq : 0);

            const atf_detail_footer *f = atf_detail_reader_footer(r);
            assert_non_null(f);
            assert_int_equal(f->event_count, n);
            assert_int_equal(f->bytes_length, len);
            assert_int_equal(f->checksum, cf_crc32c(b + 64, (size_t)len));

            const atf_detail_info *info = atf_detail_reader_info(r);
            assert_int_equal(info->layout, l);
            assert_int_equal(info->file_size, size);
            assert_int_equal(info->event_count, n);
            assert_int_equal(info->events_end, 64 + len);
            assert_int_equal(info->has_footer, 1);
            assert_int_equal(info->footer_offset, 64 + len);
            assert_int_equal(info->recovered, 0);
            assert_int_equal(info->header_finalized, n != 0); /* empty: header looks like a placeholder */
            assert_int_equal(info->trailing_bytes, 0);
            assert_int_equal(info->checksum, n ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO);
            assert_int_equal(info->backwards_count, 0);
            if (n) {
                uint64_t mn = UINT64_MAX, mx = 0;
                for (size_t i = 0; i < n; i++) {
                    mn = set.ev[i].index_seq < mn ? set.ev[i].index_seq : mn;
                    mx = set.ev[i].index_seq > mx ? set.ev[i].index_seq : mx;
                }
                assert_int_equal(info->first_ts, set.ev[0].timestamp);
                assert_int_equal(info->last_ts, set.ev[n - 1].timestamp);
                assert_int_equal(info->min_index_seq, mn);
                assert_int_equal(info->max_index_seq, mx);
            }
            assert_string_equal(atf_detail_reader_path(r), "mem");
            assert_events(r, &set, n);
            atf_detail_reader_close(r);
            free(b);
            cf_detail_set_free(&set);
        }
    }
    atf_detail_reader_close(NULL);
}

static void test_backwards_and_seq_range(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(22);
    cf_detail_set set = cf_random_detail_set(&rng, ATF_LAYOUT_2, 10, 50);
    set.ev[4].timestamp = set.ev[3].timestamp - 1;
    set.ev[7].timestamp = 0;
    set.ev[5].index_seq = 0;
    set.ev[6].index_seq = UINT64_MAX;
    cf_detail_spec s = spec(ATF_LAYOUT_2, 1, 1, CF_SUM_CRC32C);
    size_t size;
    uint8_t *b = image(&s, &set, &size);
    atf_detail_reader *r = open_ok(b, size, NULL);
    const atf_detail_info *info = atf_detail_reader_info(r);
    assert_int_equal(info->backwards_count, 2);
    assert_int_equal(info->first_backwards_seq, 4);
    assert_int_equal(info->min_index_seq, 0);
    assert_int_equal(info->max_index_seq, UINT64_MAX);
    assert_events(r, &set, 10);
    atf_detail_reader_close(r);
    free(b);
    cf_detail_set_free(&set);
}

/* ---- Checksums --------------------------------------------------------- */

static void test_checksum_states(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(23);
    atf_read_options noverify = ATF_READ_OPTIONS_INIT;
    noverify.verify = 0;
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        cf_detail_set set = cf_random_detail_set(&rng, l, 20, 100);
        uint64_t *off = event_offsets(&set);
        size_t size;
        atf_error err;

        cf_detail_spec s = spec(l, 1, 1, CF_SUM_NONE);
        uint8_t *b = image(&s, &set, &size);
        atf_detail_reader *r = open_ok(b, size, NULL);
        assert_int_equal(atf_detail_reader_info(r)->checksum, ATF_CHECKSUM_ZERO);
        atf_detail_reader_close(r);
        free(b);

        s = spec(l, 1, 1, CF_SUM_IEEE);
        b = image(&s, &set, &size);
        if (l == ATF_LAYOUT_1) {
            r = open_ok(b, size, NULL);
            assert_int_equal(atf_detail_reader_info(r)->checksum, ATF_CHECKSUM_CRC32_IEEE);
            assert_events(r, &set, 20);
            atf_detail_reader_close(r);
        } else {
            assert_int_equal(open_fail(b, size, NULL, &err), ATF_E_CHECKSUM);
            cf_assert_error(&err, ATF_E_CHECKSUM, size - 60, "footer.checksum");
        }
        free(b);

        s = spec(l, 1, 1, CF_SUM_CRC32C);
        b = image(&s, &set, &size);
        for (size_t i = 0; i < 20; i++) {
            /* a byte of the timestamp or of the payload: still well-formed */
            size_t span = 8 + set.ev[i].payload_size;
            size_t at = (size_t)off[i] + 16 + (size_t)cf_below(&rng, span);
            uint8_t old = b[at];
            b[at] ^= 0x01;
            assert_int_equal(open_fail(b, size, NULL, &err), ATF_E_CHECKSUM);
            cf_assert_error(&err, ATF_E_CHECKSUM, size - 60, "footer.checksum");
            r = open_ok(b, size, &noverify);
            assert_int_equal(atf_detail_reader_info(r)->checksum, ATF_CHECKSUM_NOT_VERIFIED);
            assert_int_equal(atf_detail_reader_count(r), 20);
            atf_detail_reader_close(r);
            b[at] = old;
        }
        r = open_ok(b, size, NULL);
        assert_int_equal(atf_detail_reader_info(r)->checksum, ATF_CHECKSUM_CRC32C);
        atf_detail_reader_close(r);
        free(b);
        free(off);
        cf_detail_set_free(&set);
    }
}

/* The checksum computed in parts (atf_read_options.threads): the same
 * verdict, error and events for any number of parts, the parts asked for
 * run, and a walk that fails while the parts run still joins them. */
static void test_verify_threads(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(41);
    static const unsigned counts[] = { 0, 1, 2, 3, 4, 7, 8, 9 };
    static const size_t sizes[] = { 0, 1, 20, 300 };
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            cf_detail_set set = cf_random_detail_set(&rng, l, n, 100);
            uint64_t *off = event_offsets(&set);
            cf_detail_spec sp = spec(l, 1, 1, CF_SUM_CRC32C);
            size_t size;
            uint8_t *b = image(&sp, &set, &size);
            uint64_t region = size - 64 - 64;   /* the events section */
            /* variant 0: clean; 1: a payload or timestamp bit flipped
             * (checksum mismatch); 2: an event's total_length broken (the
             * walk fails while the parts run) */
            for (int variant = 0; variant < 3; variant++) {
                if (variant && n == 0)
                    continue;
                size_t at = 0;
                uint8_t old[4];
                if (variant == 1) {
                    size_t i = (size_t)cf_below(&rng, n);
                    at = (size_t)off[i] + 16 + (size_t)cf_below(&rng, 8 + set.ev[i].payload_size);
                    memcpy(old, b + at, 1);
                    b[at] ^= 0x10;
                } else if (variant == 2) {
                    at = (size_t)off[(size_t)cf_below(&rng, n)];
                    memcpy(old, b + at, 4);
                    b[at] = 3;   /* total_length 3: below the 24-byte header */
                    b[at + 1] = b[at + 2] = b[at + 3] = 0;
                }
                atf_status want_st = ATF_OK;
                atf_error want;
                memset(&want, 0, sizeof want);
                for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
                    atf_read_options o = ATF_READ_OPTIONS_INIT;
                    o.threads = counts[t];
                    atf_detail_reader *r = NULL;
                    atf_error err;
                    atf_status st = atf_detail_reader_open_memory(&r, b, size, "mem", &o, &err);
                    if (t == 0) {
                        want_st = st;
                        want = err;
                        assert_int_equal(st, variant == 0 ? ATF_OK : variant == 1 ? ATF_E_CHECKSUM : ATF_E_LENGTH);
                    }
                    assert_int_equal(st, want_st);
                    if (st) {
                        assert_null(r);
                        assert_int_equal(err.offset, want.offset);
                        assert_string_equal(err.field, want.field);
                        assert_string_equal(err.message, want.message);
                        continue;
                    }
                    const atf_detail_info *info = atf_detail_reader_info(r);
                    /* (no events: the CRC of nothing is 0, "unchecked", no parts) */
                    assert_int_equal(info->checksum, n ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO);
                    assert_int_equal(info->event_count, n);
                    unsigned parts = counts[t] == 0 ? 1 : counts[t] > 8 ? 8 : counts[t];
                    parts = n == 0 ? 1 : parts > region ? (unsigned)region : parts;
                    assert_int_equal(info->verify_threads, parts);
                    assert_events(r, &set, n);
                    atf_detail_reader_close(r);
                }
                if (variant == 1)
                    memcpy(b + at, old, 1);
                else if (variant == 2)
                    memcpy(b + at, old, 4);
            }
            free(b);
            free(off);
            cf_detail_set_free(&set);
        }
    }
}

/* Fills a payload with what looks like events (total_length @len, in-order
 * timestamps): a part's guessed first event can land there. */
static void fake_events(uint8_t *p, uint32_t size, uint32_t len, uint64_t ts)
{
    for (uint32_t at = 0; at + 24 <= size; at += 24) {
        cf_put32(p + at, len);
        memset(p + at + 4, 0, 12);
        cf_put64(p + at + 16, ts + at);
    }
}

/* The events walked in parts (each part's chain from a guessed first event,
 * joined to the true one): every figure, the table and the first error the
 * same as on one thread, for any number of parts, whether the guesses meet
 * the true chain at once, later (payloads that look like events of 24
 * bytes) or never (payloads that look like long events), with timestamps
 * that go back across parts, complete, cut and damaged files. */
static void test_walk_parts(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(77);
    static const unsigned counts[] = { 1, 2, 3, 4, 5, 7, 8 };
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        for (int pattern = 0; pattern < 4; pattern++) {
            for (int round = 0; round < 6; round++) {
                size_t n = 50 + (size_t)cf_below(&rng, 400);
                cf_detail_set set = cf_random_detail_set(&rng, l, n, 300);
                for (size_t i = 0; i < n; i++) {
                    atf_detail_event *e = &set.ev[i];
                    if (set.is_arm64[i] || !e->payload_size)
                        continue;
                    uint8_t *p = (uint8_t *)(uintptr_t)e->payload;
                    if (pattern == 1)
                        fake_events(p, e->payload_size, 24, e->timestamp);
                    else if (pattern == 2)
                        fake_events(p, e->payload_size, 24 + 8 * (uint32_t)cf_below(&rng, 4000), e->timestamp);
                }
                if (pattern == 3)   /* timestamps that go back, in the last third only (a later part's) */
                    for (int k = 0; k < 12; k++)
                        set.ev[n - 1 - cf_below(&rng, n / 3)].timestamp = cf_below(&rng, 1u << 20);
                int complete = round % 3 != 2;
                cf_detail_spec sp = spec(l, complete, complete, complete ? CF_SUM_CRC32C : CF_SUM_NONE);
                size_t size;
                uint8_t *b = image(&sp, &set, &size);
                uint64_t *off = event_offsets(&set);
                if (round % 3 == 1) {   /* an event's total_length broken */
                    size_t at = (size_t)off[cf_below(&rng, n)];
                    cf_put32(b + at, (uint32_t)cf_below(&rng, 24));
                } else if (round % 3 == 2) {   /* cut anywhere after the header */
                    size = 64 + (size_t)cf_below(&rng, size - 64);
                }
                atf_status want_st = ATF_OK;
                atf_error want;
                atf_detail_info wi;
                uint64_t *woff = NULL;
                memset(&want, 0, sizeof want);
                memset(&wi, 0, sizeof wi);
                for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
                    atf_read_options o = ATF_READ_OPTIONS_INIT;
                    o.threads = counts[t];
                    atf_detail_reader *r = NULL;
                    atf_error err;
                    memset(&err, 0, sizeof err);
                    atf_status st = atf_detail_reader_open_memory(&r, b, size, "mem", &o, &err);
                    if (t == 0) {
                        want_st = st;
                        want = err;
                        assert_int_equal(st, round % 3 == 1 ? ATF_E_LENGTH : ATF_OK);
                    }
                    assert_int_equal(st, want_st);
                    if (st) {
                        assert_int_equal(err.offset, want.offset);
                        assert_string_equal(err.field, want.field);
                        assert_string_equal(err.message, want.message);
                        continue;
                    }
                    atf_detail_info in = *atf_detail_reader_info(r);
                    assert_int_equal(in.verify_threads, counts[t]);
                    if (t == 0) {
                        wi = in;
                        woff = malloc((in.event_count + 1) * sizeof *woff);
                        assert_non_null(woff);
                        for (uint64_t i = 0; i < in.event_count; i++)
                            woff[i] = atf_detail_reader_offset(r, i);
                        if (complete) {
                            assert_int_equal(in.event_count, n);
                            assert_int_equal(in.checksum, ATF_CHECKSUM_CRC32C);
                            assert_events(r, &set, n);
                        }
                        if (pattern == 3 && complete)
                            assert_true(in.backwards_count > 0);
                    }
                    assert_int_equal(in.event_count, wi.event_count);
                    assert_int_equal(in.events_end, wi.events_end);
                    assert_int_equal(in.trailing_bytes, wi.trailing_bytes);
                    assert_int_equal(in.state, wi.state);
                    assert_int_equal(in.checksum, wi.checksum);
                    assert_int_equal(in.backwards_count, wi.backwards_count);
                    assert_int_equal(in.first_backwards_seq, wi.first_backwards_seq);
                    assert_int_equal(in.first_ts, wi.first_ts);
                    assert_int_equal(in.last_ts, wi.last_ts);
                    assert_int_equal(in.min_index_seq, wi.min_index_seq);
                    assert_int_equal(in.max_index_seq, wi.max_index_seq);
                    for (uint64_t i = 0; i < in.event_count; i++)
                        assert_int_equal(atf_detail_reader_offset(r, i), woff[i]);
                    atf_detail_reader_close(r);
                }
                free(woff);
                free(b);
                free(off);
                cf_detail_set_free(&set);
            }
        }
    }
}

/* ---- Footer, length and header errors ---------------------------------- */

static void test_footer_errors(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(24);
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        cf_detail_set set = cf_random_detail_set(&rng, l, 12, 80);
        uint64_t *off = event_offsets(&set);
        atf_error err;
        for (int fin = 0; fin < 2; fin++) {
            cf_detail_spec s = spec(l, fin, 1, CF_SUM_NONE);
            size_t size;
            uint8_t *b = image(&s, &set, &size);
            uint8_t *m = malloc(size);
            assert_non_null(m);
            const size_t fo = size - 64;

            /* footer.event_count must match the events exactly */
            static const uint64_t counts[] = { 0, 11, 13, 1000, UINT64_MAX };
            for (size_t k = 0; k < 5; k++) {
                memcpy(m, b, size);
                cf_put64(m + fo + 8, counts[k]);
                assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_COUNT);
                cf_assert_error(&err, ATF_E_COUNT, fo + 8, "footer.event_count");
            }
            /* With a finalized header the footer is where bytes_length says;
             * its own bytes_length must agree. */
            if (fin) {
                memcpy(m, b, size);
                cf_put64(m + fo + 16, fo - 64 - 1);
                assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_LENGTH);
                cf_assert_error(&err, ATF_E_LENGTH, fo + 16, "footer.bytes_length");
            }
            /* With a footer every event must parse (no silent recovery). */
            static const uint32_t bad_lengths[] = { 0, 23, 1000000, UINT32_MAX };
            for (size_t k = 0; k < 4; k++) {
                memcpy(m, b, size);
                cf_put32(m + off[5], bad_lengths[k]);
                assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_LENGTH);
                cf_assert_error(&err, ATF_E_LENGTH, off[5], "total_length");
            }
            /* A length that misaligns the walk: the last event overruns the section. */
            memcpy(m, b, size);
            cf_put32(m + off[11], cf_get32(m + off[11]) + 1);
            assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_LENGTH);
            cf_assert_error(&err, ATF_E_LENGTH, off[11], "total_length");
            free(m);
            free(b);
        }
        free(off);
        cf_detail_set_free(&set);
    }
}

static void test_header_errors(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(25);
    cf_detail_set set = cf_random_detail_set(&rng, ATF_LAYOUT_1, 5, 40);
    cf_detail_spec s = spec(ATF_LAYOUT_1, 1, 1, CF_SUM_CRC32C);
    size_t size;
    uint8_t *b = image(&s, &set, &size);
    uint8_t *m = malloc(size);
    atf_error err;
    assert_non_null(m);

    memcpy(m, b, size);
    memcpy(m, "ATI2", 4);
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_MAGIC);
    cf_assert_error(&err, ATF_E_MAGIC, 0, "magic");
    memcpy(m, b, size);
    m[4] = 0xFF;
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_ENDIAN);
    cf_assert_error(&err, ATF_E_ENDIAN, 4, "endian");
    memcpy(m, b, size);
    m[5] = 0;
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_VERSION);
    cf_assert_error(&err, ATF_E_VERSION, 5, "version");
    memcpy(m, b, size);
    cf_put64(m + 20, 0);
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_OFFSET);
    cf_assert_error(&err, ATF_E_OFFSET, 20, "events_offset");
    memcpy(m, b, size);
    cf_put64(m + 20, size + 1);
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_OFFSET);
    cf_assert_error(&err, ATF_E_OFFSET, 20, "events_offset");
    memcpy(m, b, size);
    cf_put64(m + 20, UINT64_MAX);
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_OFFSET);

    /* A header with an event count alone counts as finalized. */
    memcpy(m, b, size);
    cf_put64(m + 36, 0);
    atf_detail_reader *r = open_ok(m, size, NULL);
    assert_int_equal(atf_detail_reader_info(r)->header_finalized, 1);
    atf_detail_reader_close(r);
    memcpy(m, b, size);
    cf_put64(m + 28, 0);
    r = open_ok(m, size, NULL);
    assert_int_equal(atf_detail_reader_info(r)->header_finalized, 1);
    assert_int_equal(atf_detail_reader_count(r), 5);
    atf_detail_reader_close(r);

    r = NULL;
    assert_int_equal(atf_detail_reader_open_memory(&r, NULL, 0, NULL, NULL, &err), ATF_OK);
    assert_int_equal(atf_detail_reader_info(r)->header_truncated, 1);
    atf_detail_reader_close(r);
    r = NULL;
    assert_int_equal(atf_detail_reader_open_memory(&r, "ATD2\1\7", 6, NULL, NULL, &err), ATF_E_TRUNCATED);
    assert_int_equal(atf_detail_reader_open_memory(&r, NULL, 5, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_detail_reader_open_memory(NULL, b, size, NULL, NULL, &err), ATF_E_ARG);
    free(m);
    free(b);
    cf_detail_set_free(&set);
}

/* ---- Crash recovery ---------------------------------------------------- */

/* Every prefix of img: the complete events only, the rest trailing.
 * fo: offset of the footer (end of the events); finalized: the header
 * carries bytes_length. */
static void sweep_truncations(const uint8_t *img, size_t full, const cf_detail_set *set, int finalized,
                              int footer_complete)
{
    uint64_t *off = event_offsets(set);
    const uint64_t fo = off[set->n];
    for (size_t len = 0; len <= full; len++) {
        uint8_t *b = cf_dup(img, len);
        atf_error err;
        if (len < 64) {
            /* Cut inside the header (empty among them): crash-truncated, 0 events. */
            atf_detail_reader *r = open_ok(b, len, NULL);
            const atf_detail_info *info = atf_detail_reader_info(r);
            assert_int_equal(info->header_truncated, 1);
            assert_int_equal(info->state, ATF_FILE_CRASH_TRUNCATED);
            assert_int_equal(info->event_count, 0);
            assert_int_equal(info->trailing_bytes, len);
            assert_int_equal(info->layout, len > 5 ? img[5] : 0);
            assert_null(atf_detail_reader_footer(r));
            atf_detail_reader_close(r);
            free(b);
            (void)err;
            continue;
        }
        uint64_t want = 0;
        while (want < set->n && off[want + 1] <= len)
            want++;
        int has_footer = footer_complete && len == full;
        /* Without a footer every byte after the last whole event is trailing
         * (a partial event or a torn footer); with one, the events end at fo. */
        uint64_t region_end = has_footer ? fo : len;
        for (int mode = 0; mode < 2; mode++) {
            atf_read_options o = ATF_READ_OPTIONS_INIT;
            o.verify = (unsigned)mode;
            o.no_mmap = 1; /* ignored for memory input */
            atf_detail_reader *r = open_ok(b, len, &o);
            const atf_detail_info *info = atf_detail_reader_info(r);
            assert_int_equal(info->event_count, want);
            assert_int_equal(info->events_end, off[want]);
            assert_int_equal(info->trailing_bytes, region_end - off[want]);
            assert_int_equal(info->has_footer, has_footer);
            assert_int_equal(info->recovered, !has_footer);
            assert_int_equal(info->file_size, len);
            assert_int_equal(info->header_finalized, finalized && set->n > 0);
            if (!has_footer) {
                assert_int_equal(info->checksum, ATF_CHECKSUM_NO_FOOTER);
                assert_null(atf_detail_reader_footer(r));
            }
            assert_events(r, set, want);
            atf_detail_reader_close(r);
        }
        free(b);
    }
    free(off);
}

static void test_truncation_writer_files(void **state)
{
    (void)state;
    char dir[256], path[300];
    cf_rng rng = cf_rng_seed(26);
    cf_mkdtemp(dir, sizeof dir, "t1-det");
    cf_path(path, sizeof path, dir, "detail.atf");
    for (int li = 0; li < 2; li++) {
        for (size_t n = 0; n <= 7; n += 7) {
            cf_detail_set set = cf_random_detail_set(&rng, k_layouts[li], n, 60);
            atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
            atf_detail_writer *w;
            atf_error err;
            o.layout = k_layouts[li];
            assert_int_equal(atf_detail_writer_open(&w, path, &o, &err), ATF_OK);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(atf_detail_writer_append(w, &set.ev[i], NULL), ATF_OK);
            assert_int_equal(atf_detail_writer_flush(w), ATF_OK);
            size_t pre_size, fin_size;
            uint8_t *pre = cf_read_file(path, &pre_size);
            assert_int_equal(atf_detail_writer_close(w), ATF_OK);
            uint8_t *fin = cf_read_file(path, &fin_size);
            assert_int_equal(fin_size, pre_size + 64);
            /* (a) finalized; (b) before finalize */
            sweep_truncations(fin, fin_size, &set, n != 0, 1);
            sweep_truncations(pre, pre_size, &set, 0, 0);
            free(pre);
            free(fin);
            cf_detail_set_free(&set);
        }
    }
    cf_rm_rf(dir);
}

static void test_truncation_built_images(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(27);
    for (int li = 0; li < 2; li++) {
        cf_detail_set set = cf_random_detail_set(&rng, k_layouts[li], 9, 120);
        for (int fin = 0; fin < 2; fin++) {
            cf_detail_spec s = spec(k_layouts[li], fin, 1, CF_SUM_CRC32C);
            size_t size;
            uint8_t *b = image(&s, &set, &size);
            /* fin = 0: a placeholder header with the footer being written (torn finalize) */
            sweep_truncations(b, size, &set, fin, 1);
            free(b);
        }
        cf_detail_set_free(&set);
    }
}

/* Garbage after the last complete event of an unfinalized file is reported,
 * not parsed as events. */
static void test_recovery_garbage_tail(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(28);
    cf_detail_set set = cf_random_detail_set(&rng, ATF_LAYOUT_2, 6, 40);
    cf_detail_spec s = spec(ATF_LAYOUT_2, 0, 0, CF_SUM_NONE);
    size_t size;
    uint8_t *img = image(&s, &set, &size);
    static const uint32_t lengths[] = { 0, 1, 23, 200 };
    for (size_t k = 0; k < 4; k++) {
        uint8_t *b = malloc(size + 40);
        assert_non_null(b);
        memcpy(b, img, size);
        memset(b + size, 0x00, 40);
        cf_put32(b + size, lengths[k]);
        atf_detail_reader *r = open_ok(b, size + 40, NULL);
        const atf_detail_info *info = atf_detail_reader_info(r);
        assert_int_equal(info->event_count, 6);
        assert_int_equal(info->trailing_bytes, 40);
        assert_int_equal(info->recovered, 1);
        assert_events(r, &set, 6);
        atf_detail_reader_close(r);
        free(b);
    }
    free(img);
    cf_detail_set_free(&set);
}

/* An unfinalized file whose last payload ends in footer-like bytes: only a
 * footer whose bytes_length matches its position is taken as one. */
static void test_footer_like_payload(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(31);
    for (int li = 0; li < 2; li++) {
        cf_detail_set set = cf_random_detail_set(&rng, k_layouts[li], 4, 40);
        uint8_t fake[100];
        cf_fill(&rng, fake, sizeof fake);
        uint8_t *f = fake + sizeof fake - 64;
        memcpy(f, "2DTA", 4);
        cf_put32(f + 4, 0);
        cf_put64(f + 8, 5);
        memset(f + 40, 0, 24);
        set.ev[3].payload = fake;
        set.ev[3].payload_size = sizeof fake;
        set.ev[3].event_type = 99;
        cf_detail_spec s = spec(k_layouts[li], 0, 0, CF_SUM_NONE);
        size_t size;
        uint8_t *b = image(&s, &set, &size);
        uint64_t at = size - 64;
        for (int k = 0; k < 3; k++) {
            /* bytes_length: too short, too long, zero */
            cf_put64(b + at + 16, k == 0 ? at - 65 : k == 1 ? at - 63 : 0);
            atf_detail_reader *r = open_ok(b, size, NULL);
            const atf_detail_info *info = atf_detail_reader_info(r);
            assert_int_equal(info->has_footer, 0);
            assert_int_equal(info->recovered, 1);
            assert_int_equal(info->trailing_bytes, 0);
            assert_int_equal(info->event_count, 4);
            atf_detail_reader_close(r);
        }
        free(b);
        cf_detail_set_free(&set);
    }
}

/* ---- Navigation, both ways --------------------------------------------- */

static void test_navigation(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(29);
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        enum { NI = 200 };
        atf_index_event iev[NI];
        cf_detail_set set = cf_random_detail_set(&rng, l, NI, 64);
        size_t nd = 0;
        uint64_t ts = 1;
        /* Every other index event (roughly) has a detail event and vice versa. */
        for (size_t i = 0; i < NI; i++) {
            iev[i] = cf_random_index_event(&rng, l, &ts);
            if (cf_below(&rng, 2)) {
                iev[i].detail_seq = nd;
                set.ev[nd].index_seq = i;
                set.ev[nd].timestamp = iev[i].timestamp_ns;
                nd++;
            } else {
                iev[i].detail_seq = ATF_NO_DETAIL;
            }
        }
        set.n = nd;
        cf_index_spec is;
        memset(&is, 0, sizeof is);
        is.layout = l;
        is.finalized = 1;
        is.footer = 1;
        is.checksum = CF_SUM_CRC32C;
        uint8_t *ib = malloc(cf_index_image_size(NI, 1));
        assert_non_null(ib);
        size_t isize = cf_index_image(ib, &is, iev, NI);
        cf_detail_spec ds = spec(l, 1, 1, CF_SUM_CRC32C);
        size_t dsize;
        uint8_t *db = image(&ds, &set, &dsize);

        atf_index_reader *ir = NULL;
        atf_error err;
        assert_int_equal(atf_index_reader_open_memory(&ir, ib, isize, "i", NULL, &err), ATF_OK);
        atf_detail_reader *dr = open_ok(db, dsize, NULL);
        assert_int_equal(atf_detail_reader_count(dr), nd);

        uint64_t *doff = event_offsets(&set);
        size_t linked = 0;
        for (uint64_t i = 0; i < NI; i++) {
            atf_index_event e, back;
            atf_detail_event d;
            assert_int_equal(atf_index_reader_get(ir, i, &e), ATF_OK);
            atf_status st = atf_detail_reader_follow(dr, &e, &d);
            if (iev[i].detail_seq == ATF_NO_DETAIL) {
                assert_int_equal(st, ATF_E_NOT_FOUND);
                continue;
            }
            assert_int_equal(st, ATF_OK);
            cf_assert_detail_event(&d, &set.ev[iev[i].detail_seq]);
            assert_int_equal(d.index_seq, i);
            assert_int_equal(d.timestamp, e.timestamp_ns);
            assert_int_equal(atf_index_reader_follow(ir, &d, &back), ATF_OK);
            cf_assert_index_event(&back, &iev[i]);
            linked++;
        }
        assert_int_equal(linked, nd);
        /* and from each detail event to its index event and back */
        for (uint64_t j = 0; j < nd; j++) {
            atf_detail_event d, again;
            atf_index_event e;
            assert_int_equal(atf_detail_reader_get(dr, j, &d), ATF_OK);
            assert_int_equal(atf_index_reader_follow(ir, &d, &e), ATF_OK);
            assert_int_equal(e.detail_seq, j);
            assert_int_equal(atf_detail_reader_follow(dr, &e, &again), ATF_OK);
            assert_int_equal(atf_detail_reader_offset(dr, j), doff[j]);
            cf_assert_detail_event(&again, &set.ev[j]);
        }
        /* broken links */
        atf_index_event e;
        atf_detail_event d;
        memset(&e, 0, sizeof e);
        e.detail_seq = nd;
        assert_int_equal(atf_detail_reader_follow(dr, &e, &d), ATF_E_RANGE);
        e.detail_seq = UINT64_MAX - 1;
        assert_int_equal(atf_detail_reader_follow(dr, &e, &d), ATF_E_RANGE);
        assert_int_equal(atf_detail_reader_follow(dr, NULL, &d), ATF_E_ARG);
        memset(&d, 0, sizeof d);
        d.index_seq = NI;
        assert_int_equal(atf_index_reader_follow(ir, &d, &e), ATF_E_RANGE);

        atf_index_reader_close(ir);
        atf_detail_reader_close(dr);
        free(doff);
        free(ib);
        free(db);
        set.n = NI;
        cf_detail_set_free(&set);
    }
}

/* ---- Files: mmap, read() fallback, memory ------------------------------ */

static void assert_same_info(const atf_detail_info *a, const atf_detail_info *b)
{
    assert_int_equal(a->layout, b->layout);
    assert_int_equal(a->file_size, b->file_size);
    assert_int_equal(a->event_count, b->event_count);
    assert_int_equal(a->events_end, b->events_end);
    assert_int_equal(a->has_footer, b->has_footer);
    assert_int_equal(a->footer_offset, b->footer_offset);
    assert_int_equal(a->recovered, b->recovered);
    assert_int_equal(a->header_finalized, b->header_finalized);
    assert_int_equal(a->trailing_bytes, b->trailing_bytes);
    assert_int_equal(a->checksum, b->checksum);
    assert_int_equal(a->backwards_count, b->backwards_count);
    assert_int_equal(a->first_ts, b->first_ts);
    assert_int_equal(a->last_ts, b->last_ts);
    assert_int_equal(a->min_index_seq, b->min_index_seq);
    assert_int_equal(a->max_index_seq, b->max_index_seq);
}

static void test_file_mmap_and_read(void **state)
{
    (void)state;
    char dir[256], path[300];
    cf_rng rng = cf_rng_seed(30);
    cf_mkdtemp(dir, sizeof dir, "t1-detf");
    cf_path(path, sizeof path, dir, "detail.atf");
    for (int li = 0; li < 2; li++) {
        cf_detail_set set = cf_random_detail_set(&rng, k_layouts[li], 100, 400);
        cf_detail_spec s = spec(k_layouts[li], 1, 1, CF_SUM_CRC32C);
        size_t size;
        uint8_t *b = image(&s, &set, &size);
        uint64_t *off = event_offsets(&set);
        const size_t lens[] = { size, (size_t)off[57] + 30, (size_t)off[57], 63 };
        for (int k = 0; k < 4; k++) {
            uint64_t count = 0;
            while (count < 100 && off[count + 1] <= lens[k])
                count++;
            cf_write_file(path, b, lens[k]);
            atf_read_options om = ATF_READ_OPTIONS_INIT, orr = ATF_READ_OPTIONS_INIT;
            orr.no_mmap = 1;
            atf_detail_reader *rm = NULL, *rr = NULL, *rb = NULL;
            atf_error e1, e2, e3;
            atf_status s1 = atf_detail_reader_open(&rm, path, &om, &e1);
            atf_status s2 = atf_detail_reader_open(&rr, path, &orr, &e2);
            atf_status s3 = atf_detail_reader_open_memory(&rb, b, lens[k], path, NULL, &e3);
            assert_int_equal(s1, s2);
            assert_int_equal(s1, s3);
            if (lens[k] < 64) {
                assert_int_equal(s1, ATF_OK);
                assert_int_equal(atf_detail_reader_info(rr)->header_truncated, 1);
                assert_int_equal(atf_detail_reader_count(rm), 0);
                assert_int_equal(atf_detail_reader_info(rb)->state, ATF_FILE_CRASH_TRUNCATED);
                atf_detail_reader_close(rm);
                atf_detail_reader_close(rr);
                atf_detail_reader_close(rb);
                continue;
            }
            assert_int_equal(s1, ATF_OK);
            assert_string_equal(atf_detail_reader_path(rr), path);
            assert_same_info(atf_detail_reader_info(rm), atf_detail_reader_info(rr));
            assert_same_info(atf_detail_reader_info(rm), atf_detail_reader_info(rb));
            assert_int_equal(count, k == 0 ? 100 : 57 + (k == 1 && off[58] <= lens[1]));
            assert_events(rm, &set, count);
            assert_events(rr, &set, count);
            size_t z;
            assert_memory_equal(atf_detail_reader_bytes(rr, &z), b, lens[k]);
            assert_int_equal(z, lens[k]);
            atf_detail_reader_close(rm);
            atf_detail_reader_close(rr);
            atf_detail_reader_close(rb);
        }
        free(off);
        free(b);
        cf_detail_set_free(&set);
    }
    atf_detail_reader *r = NULL;
    atf_error err;
    cf_path(path, sizeof path, dir, "nope.atf");
    assert_int_equal(atf_detail_reader_open(&r, path, NULL, &err), ATF_E_IO);
    assert_null(r);
    assert_string_equal(err.file, path);
    cf_rm_rf(dir);
}

/* ---- Random and mutated input ------------------------------------------ */

static void check_reader_invariants(const uint8_t *b, size_t n, atf_detail_reader *r)
{
    const atf_detail_info *info = atf_detail_reader_info(r);
    const atf_detail_header *h = atf_detail_reader_header(r);
    uint64_t count = atf_detail_reader_count(r);
    assert_int_equal(count, info->event_count);
    if (info->header_truncated) {
        assert_true(n < 64 && count == 0 && info->trailing_bytes == n);
        assert_int_equal(atf_header_prefix_ok(b, n, ATF_DETAIL_MAGIC), 1);
        return;
    }
    assert_true(n >= 64 && h->events_offset >= 64 && h->events_offset <= n);
    assert_true(info->events_end <= n);
    assert_true(info->events_end + info->trailing_bytes <= n);
    if (info->has_footer) {
        assert_non_null(atf_detail_reader_footer(r));
        assert_int_equal(info->footer_offset, info->events_end);
        assert_true(info->footer_offset + 64 <= n);
        assert_int_equal(atf_detail_reader_footer(r)->event_count, count);
        assert_int_equal(info->trailing_bytes, 0);
    }
    uint64_t pos = h->events_offset, mn = UINT64_MAX, mx = 0;
    for (uint64_t i = 0; i < count; i++) {
        atf_detail_event e;
        assert_int_equal(atf_detail_reader_offset(r, i), pos);
        assert_int_equal(atf_detail_reader_get(r, i, &e), ATF_OK);
        assert_true(e.total_length >= 24);
        assert_true(pos + e.total_length <= info->events_end);
        assert_int_equal(e.total_length, cf_get32(b + pos));
        assert_int_equal(e.timestamp, cf_get64(b + pos + 16));
        if (e.payload_size) {
            assert_ptr_equal(e.payload, b + pos + 24);
            volatile uint8_t last = e.payload[e.payload_size - 1];
            (void)last;
            atf_arm64_payload a;
            (void)atf_arm64_payload_decode(&a, e.payload, e.payload_size, NULL);
        }
        mn = e.index_seq < mn ? e.index_seq : mn;
        mx = e.index_seq > mx ? e.index_seq : mx;
        pos += e.total_length;
    }
    assert_int_equal(pos, info->events_end);
    if (count) {
        assert_int_equal(info->min_index_seq, mn);
        assert_int_equal(info->max_index_seq, mx);
    }
    atf_detail_event e;
    assert_int_equal(atf_detail_reader_get(r, count, &e), ATF_E_RANGE);
    assert_int_equal(atf_detail_reader_offset(r, count), UINT64_MAX);
}

/* Returns how many of the two opens succeeded. */
static int fuzz_one(const uint8_t *src, size_t n)
{
    int ok = 0;
    uint8_t *b = cf_dup(src, n);
    for (int v = 0; v < 2; v++) {
        atf_read_options o = ATF_READ_OPTIONS_INIT;
        o.verify = (unsigned)v;
        atf_detail_reader *r = NULL;
        atf_error err;
        atf_status st = atf_detail_reader_open_memory(&r, b, n, "fuzz", &o, &err);
        if (st == ATF_OK) {
            check_reader_invariants(b, n, r);
            ok++;
            atf_detail_reader_close(r);
        } else {
            assert_null(r);
            assert_int_equal(err.code, st);
            assert_true(st == ATF_E_TRUNCATED || st == ATF_E_MAGIC || st == ATF_E_ENDIAN ||
                        st == ATF_E_VERSION || st == ATF_E_OFFSET || st == ATF_E_LENGTH ||
                        st == ATF_E_COUNT || (st == ATF_E_CHECKSUM && v == 1));
        }
    }
    free(b);
    return ok;
}

static void test_fuzz_random(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(0xD37A11);
    uint8_t buf[600];
    int opened = 0;
    for (int it = 0; it < 5000; it++) {
        size_t n = (size_t)cf_below(&rng, 601);
        cf_fill(&rng, buf, n);
        if (it % 2 && n >= 28) {
            memcpy(buf, "ATD2", 4);
            buf[4] = 1;
            buf[5] = (uint8_t)(1 + cf_below(&rng, 2));
            cf_put64(buf + 20, 64 + cf_below(&rng, 8));
            /* small total_lengths so that the walk goes somewhere */
            for (size_t p = 64; p + 4 <= n; p += 24 + cf_below(&rng, 40))
                if (cf_below(&rng, 2))
                    cf_put32(buf + p, (uint32_t)(24 + cf_below(&rng, 60)));
            if (n >= 44 && cf_below(&rng, 2)) {
                cf_put64(buf + 28, cf_below(&rng, 4));
                cf_put64(buf + 36, cf_below(&rng, n));
            }
        }
        opened += fuzz_one(buf, n);
    }
    assert_true(opened > 1000); /* the generator reaches the success paths */
}

static void test_fuzz_mutations(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(0x2468ACE0);
    uint8_t *bases[8];
    size_t sizes[8], fos[8];
    for (int k = 0; k < 8; k++) {
        atf_layout l = k_layouts[k & 1];
        cf_detail_set set = cf_random_detail_set(&rng, l, (size_t)(k / 2) * 3, 40);
        cf_detail_spec s = spec(l, k % 3 != 0, 1, (k & 2) ? CF_SUM_CRC32C : CF_SUM_NONE);
        bases[k] = image(&s, &set, &sizes[k]);
        fos[k] = sizes[k] - 64;
        cf_detail_set_free(&set);
    }
    static const uint8_t hdr_fields[][2] = {
        { 8, 4 }, { 12, 4 }, { 16, 4 }, { 20, 8 }, { 28, 8 }, { 36, 8 }, { 44, 8 }, { 52, 8 }, { 60, 4 },
    };
    static const uint8_t ftr_fields[][2] = { { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 } };
    uint8_t buf[4096];
    int opened = 0;
    for (int it = 0; it < 5000; it++) {
        int k = (int)cf_below(&rng, 8);
        size_t n = sizes[k];
        memcpy(buf, bases[k], n);
        int ops = 1 + (int)cf_below(&rng, 3);
        for (int op = 0; op < ops; op++) {
            switch (cf_below(&rng, 5)) {
            case 0:
                for (int f = 0, nf = 1 + (int)cf_below(&rng, 8); f < nf && n; f++)
                    buf[cf_below(&rng, n)] ^= (uint8_t)(1 + cf_below(&rng, 255));
                break;
            case 1:
                n = (size_t)cf_below(&rng, n + 1);
                break;
            case 2: {
                size_t i = (size_t)cf_below(&rng, sizeof hdr_fields / sizeof hdr_fields[0]);
                uint64_t v = cf_below(&rng, 2) ? cf_edgy64(&rng) : cf_below(&rng, n + 64);
                if (hdr_fields[i][0] + hdr_fields[i][1] <= n)
                    for (int w = 0; w < hdr_fields[i][1]; w++)
                        buf[hdr_fields[i][0] + w] = (uint8_t)(v >> (8 * w));
                break;
            }
            case 3: {
                size_t i = (size_t)cf_below(&rng, sizeof ftr_fields / sizeof ftr_fields[0]);
                size_t at = fos[k] + ftr_fields[i][0];
                uint64_t v = cf_below(&rng, 2) ? cf_edgy64(&rng) : cf_below(&rng, n + 8);
                if (at + ftr_fields[i][1] <= n)
                    for (int w = 0; w < ftr_fields[i][1]; w++)
                        buf[at + w] = (uint8_t)(v >> (8 * w));
                break;
            }
            default: { /* a total_length somewhere in the events */
                if (n < 68)
                    break;
                size_t at = 64 + (size_t)cf_below(&rng, n - 67);
                cf_put32(buf + at, (uint32_t)(cf_below(&rng, 2) ? cf_edgy64(&rng) : cf_below(&rng, 400)));
                break;
            }
            }
        }
        opened += fuzz_one(buf, n);
    }
    assert_true(opened > 3000);
    for (int k = 0; k < 8; k++)
        free(bases[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_finalized),
        cmocka_unit_test(test_backwards_and_seq_range),
        cmocka_unit_test(test_checksum_states),
        cmocka_unit_test(test_footer_errors),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_truncation_writer_files),
        cmocka_unit_test(test_truncation_built_images),
        cmocka_unit_test(test_recovery_garbage_tail),
        cmocka_unit_test(test_footer_like_payload),
        cmocka_unit_test(test_navigation),
        cmocka_unit_test(test_file_mmap_and_read),
        cmocka_unit_test(test_verify_threads),
        cmocka_unit_test(test_walk_parts),
        cmocka_unit_test(test_fuzz_random),
        cmocka_unit_test(test_fuzz_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
