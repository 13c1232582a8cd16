/* Tests for index_reader.c: open of hand-built images of both layouts,
 * checksum states, footer/count errors, crash recovery at every truncation
 * length, the open-time scan, time_range, mmap vs read() vs memory, and
 * random and mutated inputs. */
#include "codec_test_util.h"

#include <atf/reader.h>
#include <atf/writer.h>

static const atf_layout k_layouts[2] = { ATF_LAYOUT_1, ATF_LAYOUT_2 };

static atf_index_event *random_events(cf_rng *r, atf_layout l, size_t n)
{
    atf_index_event *ev = calloc(n ? n : 1, sizeof *ev);
    assert_non_null(ev);
    uint64_t ts = cf_below(r, 1000000);
    for (size_t i = 0; i < n; i++)
        ev[i] = cf_random_index_event(r, l, &ts);
    return ev;
}

static cf_index_spec spec(atf_layout l, int finalized, int footer, int checksum)
{
    cf_index_spec s;
    memset(&s, 0, sizeof s);
    s.layout = l;
    s.arch = ATF_ARCH_ARM64;
    s.os = ATF_OS_IOS;
    s.clock_type = ATF_CLOCK_MACH_CONTINUOUS;
    s.flags = ATF_INDEX_FLAG_HAS_DETAIL_FILE;
    s.thread_id = 0x00C0FFEEu;
    s.finalized = finalized;
    s.footer = footer;
    s.checksum = checksum;
    return s;
}

/* Builds an image into a new exact-size buffer. */
static uint8_t *image(const cf_index_spec *s, const atf_index_event *ev, size_t n, size_t *size)
{
    uint8_t *b = malloc(cf_index_image_size(n, s->footer));
    assert_non_null(b);
    *size = cf_index_image(b, s, ev, n);
    assert_int_equal(*size, cf_index_image_size(n, s->footer));
    return b;
}

static atf_index_reader *open_ok(const uint8_t *b, size_t n, const atf_read_options *o)
{
    atf_index_reader *r = NULL;
    atf_error err;
    atf_status st = atf_index_reader_open_memory(&r, b, n, "mem", o, &err);
    if (st)
        fail_msg("open failed: %s (%s)", atf_status_name(st), err.message);
    assert_non_null(r);
    return r;
}

static atf_status open_fail(const uint8_t *b, size_t n, const atf_read_options *o, atf_error *err)
{
    atf_index_reader *r = (atf_index_reader *)(uintptr_t)1;
    atf_status st = atf_index_reader_open_memory(&r, b, n, "bad.atf", o, err);
    assert_int_not_equal(st, ATF_OK);
    assert_null(r);
    assert_int_equal(err->code, st);
    assert_string_equal(err->file, "bad.atf");
    return st;
}

static void assert_events(const atf_index_reader *r, const atf_index_event *ev, uint64_t n)
{
    assert_int_equal(atf_index_reader_count(r), n);
    for (uint64_t i = 0; i < n; i++) {
        atf_index_event got;
        memset(&got, 0xA5, sizeof got);
        assert_int_equal(atf_index_reader_get(r, i, &got), ATF_OK);
        cf_assert_index_event(&got, &ev[i]);
    }
    atf_index_event got;
    assert_int_equal(atf_index_reader_get(r, n, &got), ATF_E_RANGE);
    assert_int_equal(atf_index_reader_get(r, UINT64_MAX, &got), ATF_E_RANGE);
}

/* ---- Complete files ---------------------------------------------------- */

static void test_open_finalized(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(1);
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        for (size_t n = 0; n <= 50; n += 25) {
            atf_index_event *ev = random_events(&rng, l, n);
            cf_index_spec s = spec(l, 1, 1, CF_SUM_CRC32C);
            size_t size;
            uint8_t *b = image(&s, ev, n, &size);
            atf_index_reader *r = open_ok(b, size, NULL);

            const atf_index_header *h = atf_index_reader_header(r);
            assert_int_equal(h->version, l);
            assert_int_equal(h->arch, ATF_ARCH_ARM64);
            assert_int_equal(h->os, ATF_OS_IOS);
            assert_int_equal(h->clock_type, ATF_CLOCK_MACH_CONTINUOUS);
            assert_int_equal(h->flags, ATF_INDEX_FLAG_HAS_DETAIL_FILE);
            assert_int_equal(h->thread_id, 0x00C0FFEEu);
            assert_int_equal(h->event_count, n);
            assert_int_equal(h->footer_offset, 64 + 32 * n);

            const atf_index_footer *f = atf_index_reader_footer(r);
            assert_non_null(f);
            assert_int_equal(f->event_count, n);
            assert_int_equal(f->bytes_written, 32 * n);
            assert_int_equal(f->checksum, cf_crc32c(b + 64, 32 * n));

            const atf_index_info *info = atf_index_reader_info(r);
            assert_int_equal(info->layout, l);
            assert_int_equal(info->file_size, size);
            assert_int_equal(info->event_count, n);
            assert_int_equal(info->events_end, 64 + 32 * n);
            assert_int_equal(info->has_footer, 1);
            assert_int_equal(info->footer_offset, 64 + 32 * n);
            assert_int_equal(info->recovered, 0);
            assert_int_equal(info->header_finalized, 1);
            assert_int_equal(info->trailing_bytes, 0);
            /* CRC32-C of no bytes is 0, which reads as "unchecked". */
            assert_int_equal(info->checksum, n ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO);
            assert_int_equal(info->scanned, 1);

            size_t bs;
            assert_ptr_equal(atf_index_reader_bytes(r, &bs), b);
            assert_int_equal(bs, size);
            assert_string_equal(atf_index_reader_path(r), "mem");
            assert_events(r, ev, n);
            atf_index_reader_close(r);
            free(b);
            free(ev);
        }
    }
    atf_index_reader_close(NULL);
}

/* A placeholder header (never finalized) followed by events and a footer:
 * the footer is found at the end of the file. */
static void test_open_footer_without_final_header(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(2);
    for (int li = 0; li < 2; li++) {
        atf_index_event *ev = random_events(&rng, k_layouts[li], 9);
        cf_index_spec s = spec(k_layouts[li], 0, 1, CF_SUM_CRC32C);
        size_t size;
        uint8_t *b = image(&s, ev, 9, &size);
        atf_index_reader *r = open_ok(b, size, NULL);
        const atf_index_info *info = atf_index_reader_info(r);
        assert_int_equal(info->has_footer, 1);
        assert_int_equal(info->header_finalized, 0);
        assert_int_equal(info->footer_offset, 64 + 9 * 32);
        assert_int_equal(info->checksum, ATF_CHECKSUM_CRC32C);
        assert_events(r, ev, 9);
        atf_index_reader_close(r);

        /* bytes_written that disagrees: these are event bytes, not a footer,
         * so the 64 bytes count as two more events. */
        cf_put64(b + size - 64 + 32, 7);
        r = open_ok(b, size, NULL);
        info = atf_index_reader_info(r);
        assert_int_equal(info->has_footer, 0);
        assert_int_equal(info->recovered, 1);
        assert_int_equal(info->event_count, 11);
        atf_index_reader_close(r);
        free(b);
        free(ev);
    }
}

/* ---- Checksums --------------------------------------------------------- */

static void test_checksum_states(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(3);
    atf_read_options noverify = ATF_READ_OPTIONS_INIT;
    noverify.verify = 0;
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        atf_index_event *ev = random_events(&rng, l, 40);
        size_t size;
        atf_error err;

        /* checksum 0 */
        cf_index_spec s = spec(l, 1, 1, CF_SUM_NONE);
        uint8_t *b = image(&s, ev, 40, &size);
        assert_int_equal(cf_get32(b + size - 60), 0);
        atf_index_reader *r = open_ok(b, size, NULL);
        assert_int_equal(atf_index_reader_info(r)->checksum, ATF_CHECKSUM_ZERO);
        atf_index_reader_close(r);
        free(b);

        /* CRC32/IEEE: accepted in layout 1 only */
        s = spec(l, 1, 1, CF_SUM_IEEE);
        b = image(&s, ev, 40, &size);
        assert_int_not_equal(cf_get32(b + size - 60), cf_crc32c(b + 64, 40 * 32));
        if (l == ATF_LAYOUT_1) {
            r = open_ok(b, size, NULL);
            assert_int_equal(atf_index_reader_info(r)->checksum, ATF_CHECKSUM_CRC32_IEEE);
            assert_events(r, ev, 40);
            atf_index_reader_close(r);
        } else {
            assert_int_equal(open_fail(b, size, NULL, &err), ATF_E_CHECKSUM);
            cf_assert_error(&err, ATF_E_CHECKSUM, size - 60, "footer.checksum");
        }
        free(b);

        /* CRC32-C, then one flipped bit in every event in turn */
        s = spec(l, 1, 1, CF_SUM_CRC32C);
        b = image(&s, ev, 40, &size);
        for (size_t i = 0; i < 40; i++) {
            size_t at = 64 + 32 * i + (size_t)cf_below(&rng, 32);
            b[at] ^= (uint8_t)(1u << cf_below(&rng, 8));
            assert_int_equal(open_fail(b, size, NULL, &err), ATF_E_CHECKSUM);
            cf_assert_error(&err, ATF_E_CHECKSUM, 64 + 40 * 32 + 4, "footer.checksum");
            /* verify = 0: opens, checksum not looked at */
            r = open_ok(b, size, &noverify);
            assert_int_equal(atf_index_reader_info(r)->checksum, ATF_CHECKSUM_NOT_VERIFIED);
            assert_int_equal(atf_index_reader_info(r)->scanned, 0);
            assert_int_equal(atf_index_reader_count(r), 40);
            atf_index_reader_close(r);
            b[at] = 0;
            cf_index_event_bytes(b + 64 + 32 * i, &ev[i], l);
        }
        r = open_ok(b, size, NULL);
        assert_int_equal(atf_index_reader_info(r)->checksum, ATF_CHECKSUM_CRC32C);
        atf_index_reader_close(r);
        /* a wrong checksum in the footer itself */
        b[size - 60] ^= 0x80;
        assert_int_equal(open_fail(b, size, NULL, &err), ATF_E_CHECKSUM);
        free(b);
        free(ev);
    }
}

/* ---- Footer and header errors ------------------------------------------ */

static void test_footer_count(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(4);
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        atf_index_event *ev = random_events(&rng, l, 10);
        size_t size;
        atf_error err;
        for (int fin = 0; fin < 2; fin++) {
            cf_index_spec s = spec(l, fin, 1, CF_SUM_NONE);
            uint8_t *b = image(&s, ev, 10, &size);
            const size_t fo = 64 + 10 * 32;

            static const uint64_t too_many[] = { 11, 12, 1000, UINT64_MAX / 32, UINT64_MAX };
            for (size_t k = 0; k < sizeof too_many / sizeof too_many[0]; k++) {
                cf_put64(b + fo + 8, too_many[k]);
                assert_int_equal(open_fail(b, size, NULL, &err), ATF_E_COUNT);
                cf_assert_error(&err, ATF_E_COUNT, fo + 8, "footer.event_count");
            }
            /* Fewer than the file holds: the footer is authoritative. */
            cf_put64(b + fo + 8, 7);
            atf_index_reader *r = open_ok(b, size, NULL);
            const atf_index_info *info = atf_index_reader_info(r);
            assert_int_equal(info->has_footer, 1);
            assert_int_equal(info->event_count, 7);
            assert_int_equal(info->events_end, 64 + 7 * 32);
            assert_int_equal(info->trailing_bytes, 3 * 32);
            assert_events(r, ev, 7);
            atf_index_reader_close(r);
            free(b);
        }
        free(ev);
    }
}

static void test_header_errors(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(5);
    atf_index_event *ev = random_events(&rng, ATF_LAYOUT_2, 4);
    cf_index_spec s = spec(ATF_LAYOUT_2, 1, 1, CF_SUM_CRC32C);
    size_t size;
    uint8_t *b = image(&s, ev, 4, &size);
    uint8_t *m = malloc(size);
    atf_error err;
    assert_non_null(m);

    memcpy(m, b, size);
    m[0] = 'X';
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_MAGIC);
    cf_assert_error(&err, ATF_E_MAGIC, 0, "magic");
    memcpy(m, b, size);
    m[4] = 0;
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_ENDIAN);
    cf_assert_error(&err, ATF_E_ENDIAN, 4, "endian");
    memcpy(m, b, size);
    m[5] = 3;
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_VERSION);
    cf_assert_error(&err, ATF_E_VERSION, 5, "version");
    memcpy(m, b, size);
    cf_put32(m + 20, 24);
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_FIELD);
    cf_assert_error(&err, ATF_E_FIELD, 20, "event_size");
    memcpy(m, b, size);
    cf_put64(m + 32, 32);
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_OFFSET);
    cf_assert_error(&err, ATF_E_OFFSET, 32, "events_offset");
    memcpy(m, b, size);
    cf_put64(m + 32, size + 1);
    assert_int_equal(open_fail(m, size, NULL, &err), ATF_E_OFFSET);
    cf_assert_error(&err, ATF_E_OFFSET, 32, "events_offset");
    memcpy(m, b, size);
    cf_put64(m + 32, 96);
    cf_put64(m + 40, 80); /* footer before the events: damage, not a refusal; nothing lines up at the end */
    atf_index_reader *dr = open_ok(m, size, NULL);
    assert_int_equal(atf_index_reader_info(dr)->state, ATF_FILE_DAMAGED);
    assert_int_equal(atf_index_reader_info(dr)->header_finalized, 1);
    atf_index_reader_close(dr);
    /* A header rewrite cut short (footer_offset wrong) before a footer that
     * lines up at the end: that footer is used, every event is read. */
    memcpy(m, b, size);
    cf_put64(m + 40, 32);
    dr = open_ok(m, size, NULL);
    assert_int_equal(atf_index_reader_info(dr)->state, ATF_FILE_COMPLETE);
    assert_int_equal(atf_index_reader_info(dr)->footer_misplaced, 1);
    assert_int_equal(atf_index_reader_count(dr), atf_index_reader_footer(dr)->event_count);
    atf_index_reader_close(dr);

    /* events_offset == size: no events, no footer */
    memcpy(m, b, size);
    cf_put64(m + 40, 0);
    cf_put64(m + 32, size);
    atf_index_reader *r = open_ok(m, size, NULL);
    assert_int_equal(atf_index_reader_count(r), 0);
    assert_int_equal(atf_index_reader_info(r)->recovered, 1);
    atf_index_reader_close(r);

    /* A larger events_offset: events are read from there. */
    uint8_t *g = malloc(size + 32);
    assert_non_null(g);
    memcpy(g, b, 64);
    memset(g + 64, 0xEE, 32);
    memcpy(g + 96, b + 64, size - 64);
    cf_put64(g + 32, 96);
    cf_put64(g + 40, 96 + 4 * 32);
    r = open_ok(g, size + 32, NULL);
    assert_int_equal(atf_index_reader_info(r)->footer_offset, 96 + 4 * 32);
    assert_events(r, ev, 4);
    atf_index_reader_close(r);
    free(g);

    assert_int_equal(atf_index_reader_open_memory(NULL, b, size, NULL, NULL, &err), ATF_E_ARG);
    r = NULL;
    assert_int_equal(atf_index_reader_open_memory(&r, NULL, 10, NULL, NULL, &err), ATF_E_ARG);
    assert_int_equal(atf_index_reader_open_memory(&r, NULL, 0, NULL, NULL, &err), ATF_OK);
    assert_int_equal(atf_index_reader_info(r)->header_truncated, 1);
    atf_index_reader_close(r);
    free(m);
    free(b);
    free(ev);
}

/* ---- Crash recovery ---------------------------------------------------- */

/* Opens every prefix of img (as its own exact-size copy) and checks the
 * count, trailing bytes and every event. fo: where the footer starts;
 * finalized: the header carries footer_offset. */
static void sweep_truncations(const uint8_t *img, size_t full, const atf_index_event *ev, size_t n,
                              int finalized, int footer_complete)
{
    for (size_t len = 0; len <= full; len++) {
        uint8_t *b = cf_dup(img, len);
        atf_error err;
        if (len < 64) {
            /* Cut inside the header (empty among them): crash-truncated, 0 events. */
            atf_index_reader *r = open_ok(b, len, NULL);
            const atf_index_info *info = atf_index_reader_info(r);
            assert_int_equal(info->header_truncated, 1);
            assert_int_equal(info->state, ATF_FILE_CRASH_TRUNCATED);
            assert_int_equal(info->event_count, 0);
            assert_int_equal(info->trailing_bytes, len);
            assert_int_equal(info->has_footer, 0);
            assert_int_equal(info->layout, len > 5 ? img[5] : 0);
            assert_null(atf_index_reader_footer(r));
            atf_index_reader_close(r);
            free(b);
            (void)err;
            continue;
        }
        for (int mode = 0; mode < 2; mode++) {
            atf_read_options o = ATF_READ_OPTIONS_INIT;
            o.verify = (unsigned)mode;
            atf_index_reader *r = open_ok(b, len, &o);
            const atf_index_info *info = atf_index_reader_info(r);
            uint64_t want = (len - 64) / 32;
            if (want > n)
                want = n;
            int has_footer = footer_complete && len == full;
            assert_int_equal(info->event_count, want);
            assert_int_equal(info->has_footer, has_footer);
            assert_int_equal(info->recovered, !has_footer);
            assert_int_equal(info->header_finalized, finalized);
            assert_int_equal(info->header_truncated, 0);
            assert_int_equal(info->state, has_footer ? ATF_FILE_COMPLETE
                                          : finalized ? ATF_FILE_DAMAGED : ATF_FILE_CRASH_TRUNCATED);
            assert_int_equal(info->file_size, len);
            assert_int_equal(info->events_end, 64 + 32 * want);
            /* Without a footer every byte after the last whole event is trailing
             * (a partial event, or a torn footer, which is never an event). */
            uint64_t trailing = len - (64 + 32 * want);
            if (has_footer)
                trailing = 0;
            assert_int_equal(info->trailing_bytes, trailing);
            if (!has_footer)
                assert_int_equal(info->checksum, ATF_CHECKSUM_NO_FOOTER);
            else if (mode)
                assert_int_equal(info->checksum, n ? ATF_CHECKSUM_CRC32C : ATF_CHECKSUM_ZERO);
            assert_null(has_footer ? NULL : atf_index_reader_footer(r));
            assert_events(r, ev, want);
            atf_index_reader_close(r);
        }
        free(b);
    }
}

static void write_file(const char *path, atf_layout l, const atf_index_event *ev, size_t n,
                       uint8_t **before_finalize, size_t *before_size)
{
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    atf_index_writer *w;
    atf_error err;
    o.layout = l;
    o.thread_id = 77;
    assert_int_equal(atf_index_writer_open(&w, path, &o, &err), ATF_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(atf_index_writer_append(w, &ev[i]), ATF_OK);
    atf_index_writer_set_has_detail(w, 1);
    assert_int_equal(atf_index_writer_flush(w), ATF_OK);
    *before_finalize = cf_read_file(path, before_size);
    assert_int_equal(atf_index_writer_finalize(w, 0, &err), ATF_OK);
    assert_int_equal(atf_index_writer_close(w), ATF_OK);
}

static void test_truncation_writer_files(void **state)
{
    (void)state;
    char dir[256], path[300];
    cf_rng rng = cf_rng_seed(6);
    cf_mkdtemp(dir, sizeof dir, "t1-idx");
    cf_path(path, sizeof path, dir, "index.atf");
    for (int li = 0; li < 2; li++) {
        for (size_t n = 0; n <= 13; n += 13) {
            atf_index_event *ev = random_events(&rng, k_layouts[li], n);
            uint8_t *pre, *fin;
            size_t pre_size, fin_size;
            write_file(path, k_layouts[li], ev, n, &pre, &pre_size);
            fin = cf_read_file(path, &fin_size);
            assert_int_equal(pre_size, 64 + 32 * n);
            assert_int_equal(fin_size, 64 + 32 * n + 64);
            /* (a) the finalized file, header carries footer_offset */
            sweep_truncations(fin, fin_size, ev, n, 1, 1);
            /* (b) the image before finalize: placeholder header, no footer */
            sweep_truncations(pre, pre_size, ev, n, 0, 0);
            free(pre);
            free(fin);
            free(ev);
        }
    }
    cf_rm_rf(dir);
}

/* The ADA tracer's C writer's placeholder (ATF-NOTES, errata E-16): footer_offset
 * 64 = events_offset, count and times 0, flags 0. Cut at every byte, with and
 * without its footer: every complete event is recovered and the file is
 * crash-truncated, never damaged; with the footer (finalize stopped before the
 * header was rewritten) the file is complete. */
static void test_ada_placeholder(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(16);
    for (int li = 0; li < 2; li++) {
        const size_t n = 9;
        atf_index_event *ev = random_events(&rng, k_layouts[li], n);
        cf_index_spec s = spec(k_layouts[li], 0, 1, CF_SUM_NONE);
        size_t size;
        uint8_t *b = image(&s, ev, n, &size);
        cf_put64(b + 40, 64); /* the ADA placeholder */
        for (size_t len = 64; len <= size; len++) {
            atf_index_reader *r = open_ok(b, len, NULL);
            const atf_index_info *info = atf_index_reader_info(r);
            uint64_t want = (len - 64) / 32 < n ? (len - 64) / 32 : n;
            assert_int_equal(info->header_finalized, 0);
            assert_int_equal(info->state, len == size ? ATF_FILE_COMPLETE : ATF_FILE_CRASH_TRUNCATED);
            assert_events(r, ev, want);
            char line[256];
            atf_index_info_describe(line, sizeof line, info);
            assert_non_null(strstr(line, len == size ? "complete" : "crash-truncated (no footer)"));
            atf_index_reader_close(r);
        }
        /* Any value that describes events makes it a finalized header: then
         * a missing footer is damage (REC-004), and still nothing is dropped
         * that the header allows. */
        uint8_t *d = cf_dup(b, size - 64);
        cf_put64(d + 56, 5);
        atf_index_reader *r = open_ok(d, size - 64, NULL);
        assert_int_equal(atf_index_reader_info(r)->header_finalized, 1);
        assert_int_equal(atf_index_reader_info(r)->state, ATF_FILE_DAMAGED);
        atf_index_reader_close(r);
        /* has_detail_file set with footer_offset 64 is finalized too (an empty file's final header). */
        memcpy(d, b, 64);
        cf_put32(d + 8, ATF_INDEX_FLAG_HAS_DETAIL_FILE);
        r = open_ok(d, size - 64, NULL);
        assert_int_equal(atf_index_reader_info(r)->state, ATF_FILE_DAMAGED);
        atf_index_reader_close(r);
        free(d);
        free(b);
        free(ev);
    }
    /* Short files that are not the start of a header are errors, not crashes. */
    atf_error err;
    assert_int_equal(open_fail((const uint8_t *)"ATX", 3, NULL, &err), ATF_E_TRUNCATED);
    assert_int_equal(open_fail((const uint8_t *)"ATI2\2", 5, NULL, &err), ATF_E_TRUNCATED);
    assert_int_equal(open_fail((const uint8_t *)"ATI2\1\3xxxxxxxx", 16, NULL, &err), ATF_E_VERSION);
}

/* Same sweep over independently built images. */
static void test_truncation_built_images(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(7);
    for (int li = 0; li < 2; li++) {
        atf_index_event *ev = random_events(&rng, k_layouts[li], 11);
        for (int fin = 0; fin < 2; fin++) {
            cf_index_spec s = spec(k_layouts[li], fin, 1, CF_SUM_CRC32C);
            size_t size;
            uint8_t *b = image(&s, ev, 11, &size);
            /* A placeholder header with a footer after the events is what a
             * crash between the footer write and the header rewrite leaves:
             * every prefix of it is a torn finalize. */
            sweep_truncations(b, size, ev, 11, fin, 1);
            free(b);
        }
        free(ev);
    }
}

/* A torn finalize is told from a real last event that merely starts with the
 * footer magic: the footer's event_count (@8) equals the events before it. */
static void test_torn_footer_vs_magic_event(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(12);
    for (int li = 0; li < 2; li++) {
        atf_index_event *ev = random_events(&rng, k_layouts[li], 6);
        /* "2ITA" as the low half of the last timestamp */
        ev[5].timestamp_ns = ((uint64_t)7 << 32) | 0x41544932u;
        cf_index_spec s = spec(k_layouts[li], 0, 0, CF_SUM_NONE);
        size_t size;
        for (int k = 0; k < 3; k++) {
            ev[5].function_id = k == 0 ? 4 : k == 1 ? 6 : UINT64_MAX; /* not 5 */
            uint8_t *b = image(&s, ev, 6, &size);
            assert_memory_equal(b + size - 32, "2ITA", 4);
            atf_index_reader *r = open_ok(b, size, NULL);
            assert_int_equal(atf_index_reader_info(r)->recovered, 1);
            assert_events(r, ev, 6);
            atf_index_reader_close(r);
            free(b);
        }
        /* function_id == 5 makes it indistinguishable from a torn footer */
        ev[5].function_id = 5;
        uint8_t *b = image(&s, ev, 6, &size);
        atf_index_reader *r = open_ok(b, size, NULL);
        assert_int_equal(atf_index_reader_count(r), 5);
        assert_int_equal(atf_index_reader_info(r)->trailing_bytes, 32);
        atf_index_reader_close(r);
        free(b);
        free(ev);
    }
}

/* ---- Scan at open ------------------------------------------------------ */

static void expected_scan(const uint8_t *evb, uint64_t n, atf_layout l, atf_index_scan *s)
{
    memset(s, 0, sizeof *s);
    s->min_ts = n ? UINT64_MAX : 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *p = evb + 32 * i;
        uint64_t ts = cf_get64(p);
        uint32_t kind = l == ATF_LAYOUT_1 ? cf_get32(p + 20) : p[24];
        uint64_t d = l == ATF_LAYOUT_1 ? (cf_get32(p + 28) == UINT32_MAX ? UINT64_MAX : cf_get32(p + 28))
                                      : cf_get64(p + 16);
        int resv = 0;
        for (int k = 25; l == ATF_LAYOUT_2 && k < 32; k++)
            resv |= p[k] != 0;
        if ((kind < 1 || kind > 3) && s->bad_kind_count++ == 0)
            s->first_bad_kind_seq = i;
        if (resv && s->reserved_nonzero_count++ == 0)
            s->first_reserved_nonzero_seq = i;
        if (i > 0 && ts < cf_get64(p - 32) && s->backwards_count++ == 0)
            s->first_backwards_seq = i;
        if (d != UINT64_MAX) {
            if (s->linked_count == 0 || d > s->max_detail_seq)
                s->max_detail_seq = d;
            s->linked_count++;
        }
        if (ts < s->min_ts)
            s->min_ts = ts;
        if (ts > s->max_ts)
            s->max_ts = ts;
    }
    if (n) {
        s->first_ts = cf_get64(evb);
        s->last_ts = cf_get64(evb + 32 * (n - 1));
    }
}

static void assert_scan(const atf_index_scan *got, const atf_index_scan *want)
{
    assert_int_equal(got->bad_kind_count, want->bad_kind_count);
    if (want->bad_kind_count)
        assert_int_equal(got->first_bad_kind_seq, want->first_bad_kind_seq);
    assert_int_equal(got->reserved_nonzero_count, want->reserved_nonzero_count);
    if (want->reserved_nonzero_count)
        assert_int_equal(got->first_reserved_nonzero_seq, want->first_reserved_nonzero_seq);
    assert_int_equal(got->backwards_count, want->backwards_count);
    if (want->backwards_count)
        assert_int_equal(got->first_backwards_seq, want->first_backwards_seq);
    assert_int_equal(got->linked_count, want->linked_count);
    if (want->linked_count)
        assert_int_equal(got->max_detail_seq, want->max_detail_seq);
    assert_int_equal(got->first_ts, want->first_ts);
    assert_int_equal(got->last_ts, want->last_ts);
    assert_int_equal(got->min_ts, want->min_ts);
    assert_int_equal(got->max_ts, want->max_ts);
}

static void test_scan(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(8);
    static const size_t sizes[] = { 0, 1, 2, 100, 2047, 2048, 8191, 8192, 8193, 20000 };
    for (int li = 0; li < 2; li++) {
        atf_layout l = k_layouts[li];
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            for (int variant = 0; variant < 4; variant++) {
                atf_index_event *ev = calloc(n ? n : 1, sizeof *ev);
                assert_non_null(ev);
                uint64_t ts = 1000;
                for (size_t i = 0; i < n; i++) {
                    ev[i].timestamp_ns = ts += cf_below(&rng, 3);
                    ev[i].function_id = i;
                    ev[i].event_kind = (uint32_t)(1 + cf_below(&rng, 3));
                    ev[i].detail_seq = variant == 0 ? ATF_NO_DETAIL : (cf_below(&rng, 3) ? i : ATF_NO_DETAIL);
                }
                /* variant 0: clean, no links; 1: clean with links; 2: anomalies at chunk
                 * edges; 3: anomalies at random places */
                size_t marks[6] = { 0, 8191, 8192, n ? n - 1 : 0, n / 2, n / 3 };
                int nmarks = variant == 2 ? 6 : variant == 3 ? 6 : 0;
                if (variant == 3) {
                    for (int k = 0; k < 6; k++)
                        marks[k] = n ? (size_t)cf_below(&rng, n) : 0;
                }
                for (int k = 0; k < nmarks && n; k++) {
                    size_t i = marks[k];
                    if (i >= n)
                        continue;
                    switch ((k + variant) % 3) {
                    case 0: ev[i].event_kind = l == ATF_LAYOUT_1 ? 0x10000u + k : 0; break;
                    case 1: ev[i].timestamp_ns = i ? ev[i - 1].timestamp_ns - 1 : 0; break;
                    default: ev[i].detail_seq = UINT32_MAX - 2u - (uint64_t)k; break;
                    }
                }
                if (n && variant >= 2)
                    ev[n - 1].timestamp_ns = 0; /* backwards at the very end */
                /* The reserved bytes are set before the checksum is taken. */
                cf_index_spec s = spec(l, 1, 1, l == ATF_LAYOUT_2 && variant >= 2 ? CF_SUM_NONE : CF_SUM_CRC32C);
                size_t size;
                uint8_t *b = image(&s, ev, n, &size);
                if (l == ATF_LAYOUT_2 && variant >= 2) {
                    for (int k = 0; k < nmarks && n; k++)
                        if (marks[k] < n)
                            b[64 + 32 * marks[k] + 25 + k % 7] = 0x5A;
                }
                atf_index_scan want;
                expected_scan(b + 64, n, l, &want);
                if (variant >= 2 && n > 2)
                    assert_true(want.backwards_count > 0);
                /* The same scan and checksum state whatever the number of
                 * threads (explicit counts split even small files; 0 is the
                 * default, one thread below 16 MiB of events), the parts'
                 * seams falling on the marks above for 2 and 3 threads. */
                static const unsigned thread_counts[] = { 0, 1, 2, 3, 4, 7, 8, 9 };
                for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
                    atf_read_options o = ATF_READ_OPTIONS_INIT;
                    o.threads = thread_counts[t];
                    atf_index_reader *r = open_ok(b, size, &o);
                    const atf_index_info *info = atf_index_reader_info(r);
                    assert_int_equal(info->scanned, 1);
                    assert_scan(&info->scan, &want);
                    /* The parts asked for ran (at most 8, one per event;
                     * the default keeps files this small on one thread). */
                    unsigned parts = thread_counts[t] == 0 ? 1 : thread_counts[t] > 8 ? 8 : thread_counts[t];
                    parts = n == 0 ? 1 : parts > n ? (unsigned)n : parts;
                    assert_int_equal(info->verify_threads, parts);
                    /* (no events: the CRC of nothing is 0, "unchecked") */
                    assert_int_equal(info->checksum, s.checksum == CF_SUM_CRC32C && n ? ATF_CHECKSUM_CRC32C
                                                                                      : ATF_CHECKSUM_ZERO);
                    atf_index_reader_close(r);
                }
                free(b);
                free(ev);
            }
        }
    }
}

/* ---- time_range -------------------------------------------------------- */

static void test_time_range(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(9);
    for (int li = 0; li < 2; li++) {
        for (size_t n = 0; n < 40; n += 13) {
            atf_index_event *ev = calloc(n ? n : 1, sizeof *ev);
            assert_non_null(ev);
            uint64_t ts = 10;
            for (size_t i = 0; i < n; i++) {
                ts += cf_below(&rng, 3) * 5; /* duplicates */
                ev[i].timestamp_ns = ts;
                ev[i].event_kind = 1;
                ev[i].detail_seq = ATF_NO_DETAIL;
            }
            cf_index_spec s = spec(k_layouts[li], 1, 1, CF_SUM_CRC32C);
            size_t size;
            uint8_t *b = image(&s, ev, n, &size);
            atf_index_reader *r = open_ok(b, size, NULL);
            for (uint64_t t0 = 0; t0 < ts + 12; t0++) {
                for (uint64_t t1 = t0 > 3 ? t0 - 3 : 0; t1 < ts + 12; t1 += 1 + t1 / 7) {
                    uint64_t first = 99, last = 99, wf = 0, wl = 0;
                    int any = 0;
                    for (size_t i = 0; i < n; i++) {
                        if (ev[i].timestamp_ns >= t0 && ev[i].timestamp_ns <= t1) {
                            if (!any)
                                wf = i;
                            wl = i + 1;
                            any = 1;
                        }
                    }
                    assert_int_equal(atf_index_reader_time_range(r, t0, t1, &first, &last), ATF_OK);
                    if (any) {
                        assert_int_equal(first, wf);
                        assert_int_equal(last, wl);
                    } else {
                        assert_int_equal(first, last);
                    }
                }
            }
            uint64_t first, last;
            assert_int_equal(atf_index_reader_time_range(r, 0, UINT64_MAX, &first, &last), ATF_OK);
            assert_int_equal(first, 0);
            assert_int_equal(last, n);
            assert_int_equal(atf_index_reader_time_range(r, 5, 4, &first, &last), ATF_OK);
            assert_int_equal(first, last);
            assert_int_equal(atf_index_reader_time_range(r, 0, 1, NULL, &last), ATF_E_ARG);
            atf_index_reader_close(r);
            free(b);
            free(ev);
        }
    }
}

/* ---- Navigation (detail -> index) -------------------------------------- */

static void test_follow(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(10);
    for (int li = 0; li < 2; li++) {
        atf_index_event *ev = random_events(&rng, k_layouts[li], 30);
        cf_index_spec s = spec(k_layouts[li], 1, 1, CF_SUM_CRC32C);
        size_t size;
        uint8_t *b = image(&s, ev, 30, &size);
        atf_index_reader *r = open_ok(b, size, NULL);
        for (uint64_t i = 0; i < 30; i++) {
            atf_detail_event dev;
            atf_index_event got;
            memset(&dev, 0, sizeof dev);
            dev.index_seq = 29 - i;
            assert_int_equal(atf_index_reader_follow(r, &dev, &got), ATF_OK);
            cf_assert_index_event(&got, &ev[29 - i]);
        }
        atf_detail_event dev;
        atf_index_event got;
        memset(&dev, 0, sizeof dev);
        dev.index_seq = 30;
        assert_int_equal(atf_index_reader_follow(r, &dev, &got), ATF_E_RANGE);
        dev.index_seq = UINT64_MAX;
        assert_int_equal(atf_index_reader_follow(r, &dev, &got), ATF_E_RANGE);
        assert_int_equal(atf_index_reader_follow(r, NULL, &got), ATF_E_ARG);
        atf_index_reader_close(r);
        free(b);
        free(ev);
    }
}

/* ---- Files: mmap, read() fallback, memory ------------------------------ */

static void assert_same_info(const atf_index_info *a, const atf_index_info *b)
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
    assert_int_equal(a->scanned, b->scanned);
    assert_scan(&a->scan, &b->scan);
}

static void test_file_mmap_and_read(void **state)
{
    (void)state;
    char dir[256], path[300];
    cf_rng rng = cf_rng_seed(11);
    cf_mkdtemp(dir, sizeof dir, "t1-idxf");
    cf_path(path, sizeof path, dir, "index.atf");
    for (int li = 0; li < 2; li++) {
        atf_index_event *ev = random_events(&rng, k_layouts[li], 300);
        cf_index_spec s = spec(k_layouts[li], 1, 1, CF_SUM_CRC32C);
        size_t size;
        uint8_t *b = image(&s, ev, 300, &size);
        /* complete, truncated mid-event, and empty */
        const size_t lens[] = { size, 64 + 32 * 123 + 17, 0 };
        for (int k = 0; k < 3; k++) {
            cf_write_file(path, b, lens[k]);
            atf_read_options om = ATF_READ_OPTIONS_INIT, orr = ATF_READ_OPTIONS_INIT;
            orr.no_mmap = 1;
            atf_index_reader *rm = NULL, *rr = NULL, *rb = NULL;
            atf_error e1, e2, e3;
            atf_status s1 = atf_index_reader_open(&rm, path, &om, &e1);
            atf_status s2 = atf_index_reader_open(&rr, path, &orr, &e2);
            atf_status s3 = atf_index_reader_open_memory(&rb, b, lens[k], path, NULL, &e3);
            assert_int_equal(s1, s2);
            assert_int_equal(s1, s3);
            if (lens[k] == 0) {
                /* Killed before the first flush: crash-truncated, 0 events, by every path. */
                assert_int_equal(s1, ATF_OK);
                assert_int_equal(atf_index_reader_info(rm)->header_truncated, 1);
                assert_int_equal(atf_index_reader_count(rr), 0);
                assert_int_equal(atf_index_reader_info(rb)->state, ATF_FILE_CRASH_TRUNCATED);
                atf_index_reader_close(rm);
                atf_index_reader_close(rr);
                atf_index_reader_close(rb);
                continue;
            }
            assert_int_equal(s1, ATF_OK);
            assert_string_equal(atf_index_reader_path(rm), path);
            assert_same_info(atf_index_reader_info(rm), atf_index_reader_info(rr));
            assert_same_info(atf_index_reader_info(rm), atf_index_reader_info(rb));
            uint64_t n = atf_index_reader_count(rm);
            assert_int_equal(n, k == 0 ? 300 : 123);
            assert_events(rm, ev, n);
            assert_events(rr, ev, n);
            size_t z1, z2;
            const uint8_t *p1 = atf_index_reader_bytes(rm, &z1), *p2 = atf_index_reader_bytes(rr, &z2);
            assert_int_equal(z1, lens[k]);
            assert_int_equal(z2, lens[k]);
            assert_memory_equal(p1, b, z1);
            assert_memory_equal(p2, b, z2);
            atf_index_reader_close(rm);
            atf_index_reader_close(rr);
            atf_index_reader_close(rb);
        }
        free(b);
        free(ev);
    }
    atf_index_reader *r = NULL;
    atf_error err;
    cf_path(path, sizeof path, dir, "missing.atf");
    assert_int_equal(atf_index_reader_open(&r, path, NULL, &err), ATF_E_IO);
    assert_null(r);
    assert_string_equal(err.file, path);
    assert_int_equal(atf_index_reader_open(&r, dir, NULL, &err), ATF_E_IO); /* a directory */
    assert_int_equal(atf_index_reader_open(&r, NULL, NULL, &err), ATF_E_ARG);
    cf_rm_rf(dir);
}

/* ---- Random and mutated input ------------------------------------------ */

static void check_reader_invariants(const uint8_t *b, size_t n, atf_index_reader *r)
{
    const atf_index_info *info = atf_index_reader_info(r);
    const atf_index_header *h = atf_index_reader_header(r);
    uint64_t count = atf_index_reader_count(r);
    assert_int_equal(count, info->event_count);
    if (info->header_truncated) {
        assert_true(n < 64 && atf_index_reader_count(r) == 0 && info->trailing_bytes == n);
        assert_int_equal(atf_header_prefix_ok(b, n, ATF_INDEX_MAGIC), 1);
        return;
    }
    assert_true(n >= 64);
    assert_true(h->events_offset >= 64 && h->events_offset <= n);
    assert_true(count <= (n - h->events_offset) / 32);
    assert_int_equal(info->events_end, h->events_offset + 32 * count);
    assert_true(info->events_end + info->trailing_bytes <= n);
    if (info->has_footer) {
        assert_non_null(atf_index_reader_footer(r));
        assert_true(info->footer_offset >= info->events_end);
        assert_true(info->footer_offset + 64 <= n);
        assert_memory_equal(b + info->footer_offset, "2ITA", 4);
        assert_int_equal(atf_index_reader_footer(r)->event_count, count);
    } else {
        assert_null(atf_index_reader_footer(r));
    }
    for (uint64_t i = 0; i < count; i++) {
        atf_index_event e;
        assert_int_equal(atf_index_reader_get(r, i, &e), ATF_OK);
        assert_int_equal(e.timestamp_ns, cf_get64(b + h->events_offset + 32 * i));
        assert_int_equal(e.function_id, cf_get64(b + h->events_offset + 32 * i + 8));
    }
    atf_index_event e;
    assert_int_equal(atf_index_reader_get(r, count, &e), ATF_E_RANGE);
    uint64_t first, last;
    assert_int_equal(atf_index_reader_time_range(r, 0, UINT64_MAX, &first, &last), ATF_OK);
    assert_int_equal(first, 0);
    assert_int_equal(last, count);
    assert_int_equal(atf_index_reader_time_range(r, cf_get64(b + 48), cf_get64(b + 56), &first, &last),
                     ATF_OK);
    assert_true(first <= last && last <= count);
    if (info->scanned) {
        assert_true(info->scan.linked_count <= count);
        assert_true(info->scan.bad_kind_count <= count);
        assert_true(info->scan.backwards_count <= count);
    }
}

/* Returns how many of the two opens succeeded. */
static int fuzz_one(const uint8_t *src, size_t n)
{
    int ok = 0;
    uint8_t *b = cf_dup(src, n); /* exact size: ASan sees any overread */
    for (int v = 0; v < 2; v++) {
        atf_read_options o = ATF_READ_OPTIONS_INIT;
        o.verify = (unsigned)v;
        atf_index_reader *r = NULL;
        atf_error err;
        atf_status st = atf_index_reader_open_memory(&r, b, n, "fuzz", &o, &err);
        if (st == ATF_OK) {
            check_reader_invariants(b, n, r);
            ok++;
            atf_index_reader_close(r);
        } else {
            assert_null(r);
            assert_int_equal(err.code, st);
            assert_true(st == ATF_E_TRUNCATED || st == ATF_E_MAGIC || st == ATF_E_ENDIAN ||
                        st == ATF_E_VERSION || st == ATF_E_FIELD || st == ATF_E_OFFSET ||
                        st == ATF_E_COUNT || (st == ATF_E_CHECKSUM && v == 1));
        }
    }
    free(b);
    return ok;
}

static void test_fuzz_random(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(0xABCDEF);
    uint8_t buf[600];
    int opened = 0;
    for (int it = 0; it < 5000; it++) {
        size_t n = (size_t)cf_below(&rng, 601);
        cf_fill(&rng, buf, n);
        if (it % 2 && n >= 40) {
            memcpy(buf, "ATI2", 4);
            buf[4] = 1;
            buf[5] = (uint8_t)(1 + cf_below(&rng, 2));
            cf_put32(buf + (buf[5] == 1 ? 24 : 20), 32);
            cf_put64(buf + 32, 64 + cf_below(&rng, 100));
            if (n >= 48)
                cf_put64(buf + 40, cf_below(&rng, 3) ? cf_below(&rng, n + 10) : 0);
        }
        opened += fuzz_one(buf, n);
    }
    assert_true(opened > 1000); /* the generator reaches the success paths */
}

static void test_fuzz_mutations(void **state)
{
    (void)state;
    cf_rng rng = cf_rng_seed(0x13579BDF);
    uint8_t *bases[8];
    size_t sizes[8];
    for (int k = 0; k < 8; k++) {
        atf_layout l = k_layouts[k & 1];
        size_t n = (size_t)(k / 2) * 6; /* 0, 6, 12, 18 */
        atf_index_event *ev = random_events(&rng, l, n);
        cf_index_spec s = spec(l, k % 3 != 0, 1, (k & 2) ? CF_SUM_CRC32C : CF_SUM_NONE);
        bases[k] = image(&s, ev, n, &sizes[k]);
        free(ev);
    }
    static const uint8_t hdr_fields[][2] = { /* offset, width */
        { 8, 4 }, { 12, 4 }, { 16, 1 }, { 20, 4 }, { 24, 4 }, { 24, 8 }, { 28, 4 },
        { 32, 8 }, { 40, 8 }, { 48, 8 }, { 56, 8 },
    };
    static const uint8_t ftr_fields[][2] = { { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 } };
    uint8_t buf[1024];
    int opened = 0;
    for (int it = 0; it < 5000; it++) {
        int k = (int)cf_below(&rng, 8);
        size_t n = sizes[k];
        memcpy(buf, bases[k], n);
        int ops = 1 + (int)cf_below(&rng, 3);
        for (int op = 0; op < ops; op++) {
            switch (cf_below(&rng, 4)) {
            case 0: /* byte flips */
                for (int f = 0, nf = 1 + (int)cf_below(&rng, 8); f < nf && n; f++)
                    buf[cf_below(&rng, n)] ^= (uint8_t)(1 + cf_below(&rng, 255));
                break;
            case 1: /* truncation */
                n = (size_t)cf_below(&rng, n + 1);
                break;
            case 2: { /* header field */
                size_t i = (size_t)cf_below(&rng, sizeof hdr_fields / sizeof hdr_fields[0]);
                uint64_t v = cf_below(&rng, 2) ? cf_edgy64(&rng) : cf_below(&rng, n + 64);
                if (hdr_fields[i][0] + hdr_fields[i][1] <= n)
                    for (int w = 0; w < hdr_fields[i][1]; w++)
                        buf[hdr_fields[i][0] + w] = (uint8_t)(v >> (8 * w));
                break;
            }
            default: { /* footer field, at the footer's place in the base */
                size_t i = (size_t)cf_below(&rng, sizeof ftr_fields / sizeof ftr_fields[0]);
                size_t at = sizes[k] - 64 + ftr_fields[i][0];
                uint64_t v = cf_below(&rng, 2) ? cf_edgy64(&rng) : cf_below(&rng, 40);
                if (at + ftr_fields[i][1] <= n)
                    for (int w = 0; w < ftr_fields[i][1]; w++)
                        buf[at + w] = (uint8_t)(v >> (8 * w));
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

/* SPEC 7a.6: a crash may leave a zero-filled tail; all-zero records after the
 * last event are not events, in both layouts, and are reported as trailing. */
static void test_zero_filled_tail(void **state)
{
    (void)state;
    for (int l = 1; l <= 2; l++) {
        cf_rng rng = cf_rng_seed(77 + (uint64_t)l);
        atf_index_event ev[10];
        uint64_t ts = 1;
        for (size_t i = 0; i < 10; i++)
            ev[i] = cf_random_index_event(&rng, (atf_layout)l, &ts);
        cf_index_spec s = spec((atf_layout)l, 0, 0, 0);
        size_t n;
        uint8_t *img = image(&s, ev, 10, &n);
        atf_index_reader *base = open_ok(img, n, NULL);
        uint64_t base_bad = atf_index_reader_info(base)->scan.bad_kind_count;
        atf_index_reader_close(base);
        for (size_t zeros = 0; zeros <= 3 * 32 + 7; zeros += 13) {
            uint8_t *b = calloc(1, n + zeros);
            assert_non_null(b);
            memcpy(b, img, n);
            atf_index_reader *r = open_ok(b, n + zeros, NULL);
            const atf_index_info *info = atf_index_reader_info(r);
            assert_int_equal(info->event_count, 10);
            assert_true(info->recovered);
            assert_int_equal(info->trailing_bytes, zeros);
            assert_int_equal(info->scan.bad_kind_count, base_bad);
            atf_index_reader_close(r);
            free(b);
        }
        /* A record that is not all zeros is still an event (here a bad one). */
        uint8_t *b = calloc(1, n + 64);
        assert_non_null(b);
        memcpy(b, img, n);
        b[n + 8] = 1;
        atf_index_reader *r = open_ok(b, n + 64, NULL);
        assert_int_equal(atf_index_reader_info(r)->event_count, 11);
        assert_int_equal(atf_index_reader_info(r)->scan.bad_kind_count, base_bad + 1);
        atf_index_reader_close(r);
        free(b);
        free(img);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_finalized),
        cmocka_unit_test(test_open_footer_without_final_header),
        cmocka_unit_test(test_checksum_states),
        cmocka_unit_test(test_footer_count),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_truncation_writer_files),
        cmocka_unit_test(test_ada_placeholder),
        cmocka_unit_test(test_truncation_built_images),
        cmocka_unit_test(test_torn_footer_vs_magic_event),
        cmocka_unit_test(test_zero_filled_tail),
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_time_range),
        cmocka_unit_test(test_follow),
        cmocka_unit_test(test_file_mmap_and_read),
        cmocka_unit_test(test_fuzz_random),
        cmocka_unit_test(test_fuzz_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
