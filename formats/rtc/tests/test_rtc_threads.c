/* The RTC reader on 2 to 8 threads (ATF_RTC_THREADS: the whole Units'
 * Crcs computed ahead of the walk, rtc_reader.c; the cut and changed
 * variants on 2 and 8) against one thread: every
 * figure of the summary, every record, Unit, skipped range, stream and
 * finding, the clause counts and the first error, the same. On the golden
 * corpus (corpus/rtc/), and on a written file of many small Units and each
 * corpus file cut at both ends and with a byte changed. */
#include <dirent.h>

#include "rtc_test_util.h"

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (t->p && (size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        size_t nc = (t->cap + (size_t)k + 1) * 2;
        char *np = realloc(t->p, nc);
        assert_non_null(np);
        t->p = np;
        t->cap = nc;
    }
}

/* Everything the reader reports on d[0..n), one line each, read on @p threads. */
static text report(const uint8_t *d, size_t n, unsigned threads)
{
    char env[16];
    snprintf(env, sizeof env, "%u", threads);
    assert_int_equal(setenv("ATF_RTC_THREADS", env, 1), 0);
    text t = { NULL, 0, 0 };
    atf_rtc_reader *r = NULL;
    atf_error err;
    atf_status st = atf_rtc_reader_open_memory(&r, n ? d : NULL, n, &err);
    put(&t, "open %d\n", (int)st);
    if (st != ATF_OK)
        return t;
    atf_rtc_summary s;
    atf_rtc_reader_summary(r, &s);
    put(&t, "summary state %d size %llu geo %d U %llu u %llu origin %lld order %d records %llu units %llu "
            "streams %llu skips %llu skipped %llu\n",
        (int)s.state, (unsigned long long)s.file_size, s.has_geometry, (unsigned long long)s.unit_size,
        (unsigned long long)s.subunit_size, (long long)s.origin, s.byte_order, (unsigned long long)s.records,
        (unsigned long long)s.units, (unsigned long long)s.streams, (unsigned long long)s.skipped_ranges,
        (unsigned long long)s.skipped_bytes);
    put(&t, "first error %d at %llu (%s): %s\n", (int)s.first_damage.code, (unsigned long long)s.first_damage.offset,
        s.first_damage.field ? s.first_damage.field : "-", s.first_damage.message);
    for (size_t i = 0; i < s.records; i++) {
        atf_rtc_record rec;
        atf_rtc_reader_record(r, i, &rec);
        uint64_t h = 1469598103934665603ull;   /* FNV-1a of the payload */
        for (size_t k = 0; k < rec.size; k++)
            h = (h ^ rec.payload[k]) * 1099511628211ull;
        put(&t, "record %zu stream %llu at %llu frames %zu size %zu payload %016llx time %d %.17g format %s "
                "gain %d %.17g offset %d %.17g big %d\n",
            i, (unsigned long long)rec.stream, (unsigned long long)rec.offset, rec.frame_count, rec.size,
            (unsigned long long)h, rec.has_time, rec.time, rec.format, rec.has_gain, rec.gain, rec.has_offset,
            rec.value_offset, rec.big_endian);
        for (size_t k = 0; k < rec.frame_count; k++)
            put(&t, " %llu", (unsigned long long)rec.frames[k]);
        put(&t, "\n");
    }
    for (size_t i = 0; i < s.units; i++) {
        atf_rtc_unit_info u;
        atf_rtc_reader_unit(r, i, &u);
        put(&t, "unit %llu at %llu bytes %llu crc %s\n", (unsigned long long)u.number, (unsigned long long)u.offset,
            (unsigned long long)u.bytes, u.crc ? u.crc : "-");
    }
    for (size_t i = 0; i < s.skipped_ranges; i++) {
        atf_rtc_skip k;
        atf_rtc_reader_skip(r, i, &k);
        put(&t, "skip %llu +%llu %s\n", (unsigned long long)k.offset, (unsigned long long)k.bytes, k.reason);
    }
    for (size_t i = 0; i < s.streams; i++) {
        uint64_t id, off;
        const void *o;
        atf_rtc_reader_stream(r, i, &id, &off, &o);
        put(&t, "stream %llu at %llu\n", (unsigned long long)id, (unsigned long long)off);
    }
    size_t nf = atf_rtc_reader_finding_count(r);
    for (size_t i = 0; i < nf; i++) {
        atf_finding f;
        atf_rtc_reader_finding(r, i, &f);
        put(&t, "finding %s at %llu (%s): %s; count %llu\n", f.clause ? f.clause : "-", (unsigned long long)f.offset,
            f.field ? f.field : "-", f.message,
            f.clause ? (unsigned long long)atf_rtc_reader_clause_count(r, f.clause) : 0ull);
    }
    atf_rtc_reader_close(r);
    return t;
}

/* d[0..n) on more threads gives what it gives on one: on 2..8 (@p all),
 * else on 2 and 8 (the cut and changed variants: thousands of opens, and
 * qemu-user keeps memory of every thread it ever ran, which took the
 * emulated arm64 run past 16 GB with every count); @p what names it. */
static void same_on(const uint8_t *d, size_t n, const char *what, int all)
{
    text one = report(d, n, 1);
    for (unsigned th = 2; th <= 8; th += all ? 1 : 6) {
        text more = report(d, n, th);
        if (more.n != one.n || memcmp(more.p, one.p, one.n)) {
            size_t k = 0, line = 0;
            while (k < one.n && k < more.n && one.p[k] == more.p[k])
                k++;
            while (k > 0 && one.p[k - 1] != '\n')
                k--;
            for (size_t i = 0; i < k; i++)
                line += one.p[i] == '\n';
            const char *a = k < one.n ? one.p + k : "(end)", *b = k < more.n ? more.p + k : "(end)";
            fail_msg("%s: %u threads differ from 1 at line %zu:\n  1: %.*s\n  %u: %.*s", what, th, line + 1,
                     (int)strcspn(a, "\n"), a, th, (int)strcspn(b, "\n"), b);
        }
        free(more.p);
    }
    free(one.p);
}

static void same(const uint8_t *d, size_t n, const char *what)
{
    same_on(d, n, what, 0);
}

/* Whole, cut at both ends every @p step bytes, and a byte changed every @p step. */
static void variants(const uint8_t *d, size_t n, size_t step, const char *name)
{
    char what[600];
    same_on(d, n, name, 1);
    for (size_t c = 1; c < n; c += step) {
        snprintf(what, sizeof what, "%s cut to its first %zu bytes", name, c);
        same(d, c, what);
        snprintf(what, sizeof what, "%s without its first %zu bytes", name, c);
        same(d + c, n - c, what);
    }
    uint8_t *w = malloc(n ? n : 1);
    assert_non_null(w);
    if (n)
        memcpy(w, d, n);
    for (size_t c = step / 3; c < n; c += step) {
        w[c] ^= 0x5A;
        snprintf(what, sizeof what, "%s with byte %zu changed", name, c);
        same(w, n, what);
        w[c] = d[c];
    }
    free(w);
}

static void test_written_file(void **state)
{
    (void)state;
    size_t lens[NRECS];
    /* many Units of 4 KiB: the Crc threads run ahead of the walk */
    mem m = write_sample_as(4096, 2048, 0, 0, lens, NRECS, 1);
    assert_true(m.n > 64 * 4096);
    variants(m.p, m.n, 4099, "written file");
    free(m.p);
    mem b = write_sample(8192, 2048, 1, 1, lens, NRECS);   /* the reference Crc, big-endian */
    variants(b.p, b.n, 8209, "written file (rtc-ref, big-endian)");
    free(b.p);
}

static void test_corpus(void **state)
{
    (void)state;
    const char *root = ATF_TEST_CORPUS "/rtc";
    DIR *dir = opendir(root);
    assert_non_null(dir);
    size_t files = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[800];
        snprintf(path, sizeof path, "%s/%s/trace.rtc", root, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;   /* README.md, the expectations */
        mem m = { NULL, 0, 0 };
        uint8_t buf[4096];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0)
            assert_int_equal(sink(&m, buf, k), 0);
        fclose(f);
        variants(m.p, m.n, 499, e->d_name);
        free(m.p);
        files++;
    }
    closedir(dir);
    assert_true(files >= 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_written_file),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
