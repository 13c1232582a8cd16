/* Bad input is the normal case: thousands of deterministic mutations of the
 * fixture thread (bit flips, extreme field values at structure offsets,
 * truncations, extensions) go through the validator under the sanitizers.
 * Properties checked on every run:
 *  - it returns ATF_OK with a report (never crashes, never refuses);
 *  - every finding names a known clause that is marked checked, a file of
 *    the input, and an offset inside that file (or none);
 *  - the verdict is "no error finding";
 *  - whatever the codec's readers refuse to open, the validator calls
 *    nonconformant (a conformant file is always readable);
 *  - the JSON report parses. */
#include "vtest_util.h"

#include <jansson.h>

#include <atf/reader.h>

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static uint64_t edgy(uint64_t *s)
{
    static const uint64_t v[] = { 0, 1, 23, 24, 32, 63, 64, 99, 100, 256, 257, 0xFFFFFFFFull, 0x100000000ull,
                                  UINT64_MAX, UINT64_MAX - 1, 0x7FFFFFFFFFFFFFFFull };
    return rnd(s) % 3 ? v[rnd(s) % (sizeof v / sizeof v[0])] : rnd(s);
}

static void mutate(buf *b, uint64_t *s)
{
    unsigned k = 1 + (unsigned)(rnd(s) % 4);
    for (unsigned i = 0; i < k && b->n; i++) {
        switch (rnd(s) % 6) {
        case 0: /* bit flip */
            b->p[rnd(s) % b->n] ^= (uint8_t)(1u << (rnd(s) % 8));
            break;
        case 1: /* a u64 at an 8-aligned offset (most header/footer fields) */
        case 2: {
            size_t at = (size_t)(rnd(s) % b->n) & ~(size_t)7;
            if (at + 8 <= b->n)
                put64(b, at, edgy(s));
            break;
        }
        case 3: { /* a u32 at a 4-aligned offset (lengths, layout-1 fields) */
            size_t at = (size_t)(rnd(s) % b->n) & ~(size_t)3;
            if (at + 4 <= b->n)
                put32(b, at, (uint32_t)edgy(s));
            break;
        }
        case 4: /* truncate */
            resize(b, (size_t)(rnd(s) % (b->n + 1)), 0);
            break;
        default: /* extend */
            resize(b, b->n + (size_t)(rnd(s) % 100), (uint8_t)rnd(s));
            break;
        }
    }
}

static size_t g_errors_seen, g_clean_seen;

static void check_report(const atf_validation *v, size_t isize, size_t dsize)
{
    int errors = 0;
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        size_t ci = atf_clause_index(f->clause);
        assert_true(ci != (size_t)-1);
        assert_true(atf_validation_clause_checked(v, ci));
        assert_true(f->severity == ATF_SEV_ERROR || f->severity == ATF_SEV_WARNING);
        assert_non_null(f->message);
        assert_null(strchr(f->message, '\n'));
        size_t size = 0;
        if (!strcmp(f->file, "index.atf"))
            size = isize;
        else if (!strcmp(f->file, "detail.atf"))
            size = dsize;
        else
            fail_msg("finding names file %s", f->file);
        if (f->offset != ATF_VALIDATE_NO_OFFSET && f->offset > size) {
            print_report(v);
            fail_msg("%s offset %" PRIu64 " is beyond the %zu-byte %s", f->clause, f->offset, size, f->file);
        }
        errors |= f->severity == ATF_SEV_ERROR;
    }
    assert_int_equal(atf_validation_conformant(v), !errors);
    g_errors_seen += (size_t)errors;
    g_clean_seen += (size_t)!errors;
    /* The JSON report parses. */
    FILE *mf = tmpfile();
    assert_non_null(mf);
    assert_int_equal(atf_validation_write_json(mf, v), ATF_OK);
    rewind(mf);
    json_error_t je;
    json_t *j = json_loadf(mf, 0, &je);
    if (!j)
        fail_msg("JSON report does not parse: %s", je.text);
    json_decref(j);
    fclose(mf);
}

/* The fixtures are written once; each round mutates a copy. */
static fx g_base[2];

static void copy_fx(fx *dst, const fx *src)
{
    memset(dst, 0, sizeof *dst);
    dst->layout = src->layout;
    append(&dst->idx, src->idx.p, src->idx.n);
    append(&dst->det, src->det.p, src->det.n);
}

static void one_round(uint64_t *s, atf_layout layout)
{
    fx f;
    copy_fx(&f, &g_base[layout - 1]);
    if (rnd(s) % 4 == 0)
        idx_crash(&f);
    if (rnd(s) % 4 == 0)
        det_crash(&f);
    int which = (int)(rnd(s) % 3);
    if (which != 1)
        mutate(&f.idx, s);
    if (which != 0)
        mutate(&f.det, s);
    /* Exact-size copies: ASan sees any read past the end. */
    uint8_t *ip = malloc(f.idx.n ? f.idx.n : 1), *dp = malloc(f.det.n ? f.det.n : 1);
    assert_non_null(ip);
    assert_non_null(dp);
    memcpy(ip, f.idx.p, f.idx.n);
    memcpy(dp, f.det.p, f.det.n);

    atf_validation *v = NULL;
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.no_verify = rnd(s) % 8 == 0;
    assert_int_equal(atf_validate_thread_memory(&v, ip, f.idx.n, dp, f.det.n, &o, NULL), ATF_OK);
    check_report(v, f.idx.n, f.det.n);
    atf_validation_free(v);

    /* Lone files, against the codec's readers. */
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = !o.no_verify;
    assert_int_equal(atf_validate_index_memory(&v, ip, f.idx.n, NULL, &o, NULL), ATF_OK);
    check_report(v, f.idx.n, 0);
    atf_index_reader *ir = NULL;
    atf_error err;
    if (atf_index_reader_open_memory(&ir, ip, f.idx.n, "index.atf", &ro, &err) != ATF_OK && atf_validation_conformant(v)) {
        print_report(v);
        fail_msg("the index reader refuses a file the validator accepts: %s", err.message);
    }
    atf_index_reader_close(ir);
    atf_validation_free(v);

    assert_int_equal(atf_validate_detail_memory(&v, dp, f.det.n, NULL, &o, NULL), ATF_OK);
    check_report(v, 0, f.det.n);
    atf_detail_reader *dr = NULL;
    if (atf_detail_reader_open_memory(&dr, dp, f.det.n, "detail.atf", &ro, &err) != ATF_OK &&
        atf_validation_conformant(v)) {
        print_report(v);
        fail_msg("the detail reader refuses a file the validator accepts: %s", err.message);
    }
    atf_detail_reader_close(dr);
    atf_validation_free(v);
    free(ip);
    free(dp);
    fx_free(&f);
}

static void test_mutations(void **state)
{
    (void)state;
    uint64_t s = 0x5EED5EED12345678ull;
    fx_make(&g_base[0], ATF_LAYOUT_1);
    fx_make(&g_base[1], ATF_LAYOUT_2);
    for (int i = 0; i < 6000; i++)
        one_round(&s, i % 2 ? ATF_LAYOUT_1 : ATF_LAYOUT_2);
    /* The mutations reach both verdicts (the test is not vacuous). */
    assert_true(g_errors_seen > 100);
    assert_true(g_clean_seen > 100);
    fx_free(&g_base[0]);
    fx_free(&g_base[1]);
}

static void test_all_single_byte_truncations(void **state)
{
    (void)state;
    fx f;
    fx_make(&f, ATF_LAYOUT_2);
    for (size_t n = 0; n <= f.idx.n; n++) {
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, f.idx.p, n);
        atf_validation *v;
        assert_int_equal(atf_validate_thread_memory(&v, p, n, f.det.p, f.det.n, NULL, NULL), ATF_OK);
        check_report(v, n, f.det.n);
        atf_validation_free(v);
        free(p);
    }
    for (size_t n = 0; n <= f.det.n; n++) {
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, f.det.p, n);
        atf_validation *v;
        assert_int_equal(atf_validate_thread_memory(&v, f.idx.p, f.idx.n, p, n, NULL, NULL), ATF_OK);
        check_report(v, f.idx.n, n);
        atf_validation_free(v);
        free(p);
    }
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_all_single_byte_truncations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
