/* atf_pack / atf_unpack (formats/rtc/tools/pack.c, docs/pack.md): whole files
 * come back byte for byte (and so dump the same), for both layouts, with and
 * without detail lanes, from crash-truncated sources and from sessions
 * without a manifest; a cut file unpacks to a session the readers take as
 * crash-truncated; the errors; and the RTC writer's whole_records property
 * the profile relies on (no record crosses a Unit end). The cut sweep with
 * an independent expectation is check_pack_sweep.py. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include <atf/pack.h>
#include <atf/rtc.h>

#include "session_test_util.h"

static const char *const lanes[] = { "manifest.json", "thread_0/index.atf", "thread_0/detail.atf",
                                     "thread_1/index.atf", "thread_1/detail.atf", "thread_2/index.atf",
                                     "thread_2/detail.atf", "thread_3/index.atf", "thread_3/detail.atf" };

static char *dump_of(const char *dir)
{
    atf_tool_options o = ATF_TOOL_OPTIONS_INIT;
    o.json = 1;
    tu_capture c;
    atf_error err;
    atf_status st = atf_tool_dump(tu_capture_begin(&c), dir, &o, &err);
    tu_capture_end(&c);
    assert_int_equal(st, ATF_OK);
    return c.buf;
}

/* Every file of a and b (those of `lanes` that exist in a) are equal, b has no other, and the dumps agree. */
static void assert_same_session(const char *a, const char *b, unsigned threads)
{
    char pa[512], pb[512];
    for (size_t i = 0; i < 1 + 2 * threads; i++) {
        tu_path(pa, sizeof pa, "%s/%s", a, lanes[i]);
        tu_path(pb, sizeof pb, "%s/%s", b, lanes[i]);
        assert_int_equal(tu_exists(pa), tu_exists(pb));
        if (tu_exists(pa))
            cf_assert_same_file(pa, pb);
    }
    char *da = dump_of(a), *db = dump_of(b);
    assert_true(strlen(da) > 100);
    assert_string_equal(da, db);
    free(da);
    free(db);
}

static void roundtrip(const char *src, const char *tmp, unsigned threads, uint64_t unit, const char *tag)
{
    char rtc[512], out[512];
    tu_path(rtc, sizeof rtc, "%s/%s.rtc", tmp, tag);
    tu_path(out, sizeof out, "%s/%s.out", tmp, tag);
    atf_pack_options po = ATF_PACK_OPTIONS_INIT;
    po.unit_size = unit;
    po.subunit_size = unit ? 2048 : 0;
    atf_pack_stats ps;
    atf_error err;
    assert_int_equal(atf_pack(src, rtc, &po, &ps, NULL, &err), ATF_OK);
    assert_int_equal(ps.threads, threads);
    assert_true(ps.bytes_out > ps.bytes_in);
    atf_unpack_stats us;
    assert_int_equal(atf_unpack(rtc, out, NULL, &us, NULL, &err), ATF_OK);
    assert_int_equal(us.lost, 0);
    assert_int_equal(us.threads, threads);
    assert_int_equal(us.threads_whole, threads);
    assert_int_equal(us.index_events, ps.index_events);
    assert_int_equal(us.index_events_total, ps.index_events);
    assert_int_equal(us.detail_events, ps.detail_events);
    assert_int_equal(us.skipped_bytes, 0);
    assert_same_session(src, out, threads);
}

static void test_roundtrip_layouts(void **state)
{
    (void)state;
    char tmp[256], s[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    for (int layout = 1; layout <= 2; layout++) {
        tu_path(s, sizeof s, "%s/l%d", tmp, layout);
        tu_demo(s, (atf_layout)layout, 3, 3000, 3);
        roundtrip(s, tmp, 3, 0, layout == 1 ? "l1" : "l2");
        roundtrip(s, tmp, 3, 8192, layout == 1 ? "l1s" : "l2s");
    }
    /* no detail lanes, one thread */
    tu_path(s, sizeof s, "%s/nodetail", tmp);
    tu_demo(s, ATF_LAYOUT_2, 1, 500, 0);
    roundtrip(s, tmp, 1, 4096, "nodetail");
    cf_rm_rf(tmp);
}

/* A session left by a crash: placeholder headers, no footers, files cut inside an event, no manifest. */
static void test_roundtrip_crash_truncated(void **state)
{
    (void)state;
    char tmp[256], s[512], p[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    tu_path(s, sizeof s, "%s/crashed", tmp);
    tu_demo(s, ATF_LAYOUT_2, 3, 2000, 2);
    for (int t = 0; t < 3; t++) {
        tu_path(p, sizeof p, "%s/thread_%d/index.atf", s, t);
        size_t n;
        free(tu_read_file(p, &n));
        tu_patch_le64(p, 24, 0);   /* event_count, footer_offset, times: the placeholder */
        tu_patch_le64(p, 40, 0);
        tu_patch_le64(p, 48, 0);
        tu_patch_le64(p, 56, 0);
        assert_int_equal(truncate(p, (off_t)(n - 64 - 32 * (size_t)t - 13)), 0);
        tu_path(p, sizeof p, "%s/thread_%d/detail.atf", s, t);
        free(tu_read_file(p, &n));
        tu_patch_le64(p, 28, 0);
        tu_patch_le64(p, 36, 0);
        tu_patch_le64(p, 44, 0);
        tu_patch_le64(p, 52, 0);
        assert_int_equal(truncate(p, (off_t)(n - 64 - 100 * (size_t)t - 7)), 0);
    }
    tu_path(p, sizeof p, "%s/manifest.json", s);
    assert_int_equal(unlink(p), 0);
    roundtrip(s, tmp, 3, 0, "crashed");
    roundtrip(s, tmp, 3, 16384, "crashed-small");
    cf_rm_rf(tmp);
}

/* A demo session at tmp/s (layout, threads, events per thread, a detail
 * event every detail_every) packed with Units of unit bytes (2 KiB units)
 * into tmp/s.rtc; s and rtc receive the two paths. */
static void pack_demo(const char *tmp, char s[512], char rtc[512], atf_layout layout, unsigned threads,
                      uint64_t events, unsigned detail_every, uint64_t unit)
{
    tu_path(s, 512, "%s/s", tmp);
    tu_demo(s, layout, threads, events, detail_every);
    tu_path(rtc, 512, "%s/s.rtc", tmp);
    atf_pack_options po = ATF_PACK_OPTIONS_INIT;
    po.unit_size = unit;
    po.subunit_size = 2048;
    atf_pack_stats ps;
    atf_error err;
    assert_int_equal(atf_pack(s, rtc, &po, &ps, NULL, &err), ATF_OK);
    assert_int_equal(ps.threads, threads);
}

/* Staging directories an unpack that did not finish left beside DIR are
 * named on the report when their process is gone, and never touched; one
 * of a live process, one of another DIR and one not named by a PID are not
 * named. The unpack itself goes on as usual. */
static void test_left_staging(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], out[512], p[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    pack_demo(tmp, s, rtc, ATF_LAYOUT_2, 1, 200, 0, 4096);
    const char *left[] = { ".out.unpacking-2147483646", ".out.unpacking-1", ".other.unpacking-2147483645",
                           ".out.unpacking-12x", ".out.unpacking-02147483644", ".out.unpacking-4294967297" };
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
        tu_path(p, sizeof p, "%s/%s", tmp, left[i]);
        assert_int_equal(mkdir(p, 0777), 0);
    }
    tu_path(out, sizeof out, "%s/out", tmp);
    tu_capture c;
    atf_unpack_stats us;
    atf_error err;
    atf_status st = atf_unpack(rtc, out, NULL, &us, tu_capture_begin(&c), &err);
    tu_capture_end(&c);
    assert_int_equal(st, ATF_OK);
    assert_int_equal(us.threads_whole, 1);
    assert_non_null(strstr(c.buf, "/.out.unpacking-2147483646 was left by an unpack that did not finish "
                                  "(no process 2147483646 runs here)"));
    assert_null(strstr(c.buf, ".out.unpacking-1 "));
    assert_null(strstr(c.buf, ".other.unpacking"));
    assert_null(strstr(c.buf, ".out.unpacking-12x"));
    assert_null(strstr(c.buf, ".out.unpacking-0"));          /* a leading zero: not a name unpack makes */
    assert_null(strstr(c.buf, ".out.unpacking-4294967297")); /* past any PID */
    assert_null(strstr(c.buf, "//"));
    tu_capture_free(&c);
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
        tu_path(p, sizeof p, "%s/%s", tmp, left[i]);
        assert_true(tu_exists(p));
    }
    cf_rm_rf(tmp);
}

/* A file cut at its end and at its start: the unpacked session reads as crash-truncated, and holds what the stats say. */
static void test_cut_file(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], cut[512], out[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    pack_demo(tmp, s, rtc, ATF_LAYOUT_1, 2, 2000, 4, 8192);
    atf_error err;
    size_t n;
    uint8_t *b = tu_read_file(rtc, &n);
    for (int from_start = 0; from_start <= 1; from_start++) {
        tu_path(cut, sizeof cut, "%s/cut%d.rtc", tmp, from_start);
        tu_path(out, sizeof out, "%s/cut%d", tmp, from_start);
        FILE *f = fopen(cut, "wb");
        assert_non_null(f);
        if (from_start)
            assert_int_equal(fwrite(b + n / 3, 1, n - n / 3, f), n - n / 3);
        else
            assert_int_equal(fwrite(b, 1, n / 2, f), n / 2);
        fclose(f);
        atf_unpack_stats us;
        assert_int_equal(atf_unpack(cut, out, NULL, &us, NULL, &err), ATF_OK);
        assert_int_equal(us.lost, 1);
        assert_int_equal(us.rtc_state, ATF_RTC_CRASH_TRUNCATED);
        assert_int_equal(us.threads, 2);
        assert_int_equal(us.manifest, 1);
        assert_true(us.index_events > 0 && us.index_events < us.index_events_total);
        assert_int_equal(us.index_events_total, 4000);
        char *d = dump_of(out);
        char **lines;
        size_t k = tu_split_lines(d, &lines);
        assert_int_equal(k, us.index_events);
        /* renumbered from 0 in each thread */
        assert_non_null(strstr(lines[0], "\"thread\":0,\"seq\":0,"));
        free(lines);
        free(d);
    }
    free(b);
    cf_rm_rf(tmp);
}

typedef struct membuf {
    uint8_t *p;
    size_t n, cap;
} membuf;

static int mem_sink(void *user, const void *p, size_t n)
{
    membuf *m = user;
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2;
        m->p = realloc(m->p, m->cap);
        assert_non_null(m->p);
    }
    memcpy(m->p + m->n, p, n);
    m->n += n;
    return 0;
}

static void test_errors(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], out[512], p[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    atf_error err;
    /* not a session */
    tu_path(s, sizeof s, "%s/empty", tmp);
    tu_mkdir(s);
    tu_path(rtc, sizeof rtc, "%s/x.rtc", tmp);
    assert_int_equal(atf_pack(s, rtc, NULL, NULL, NULL, &err), ATF_E_NOT_FOUND);
    assert_int_equal(atf_pack("/nonexistent/dir", rtc, NULL, NULL, NULL, &err), ATF_E_IO);
    /* bad sizes */
    tu_path(s, sizeof s, "%s/s", tmp);
    tu_demo(s, ATF_LAYOUT_2, 2, 100, 2);
    atf_pack_options po = ATF_PACK_OPTIONS_INIT;
    po.unit_size = 3000;
    assert_int_equal(atf_pack(s, rtc, &po, NULL, NULL, &err), ATF_E_ARG);
    po.unit_size = 2048;   /* smaller than twice the Meta of 5 files */
    po.subunit_size = 2048;
    assert_int_equal(atf_pack(s, rtc, &po, NULL, NULL, &err), ATF_E_ARG);
    /* unpack: missing file, a directory not empty, an RTC file that is no pack */
    tu_path(out, sizeof out, "%s/out", tmp);
    assert_int_equal(atf_unpack("/nonexistent.rtc", out, NULL, NULL, NULL, &err), ATF_E_IO);
    assert_int_equal(atf_pack(s, rtc, NULL, NULL, NULL, &err), ATF_OK);
    assert_int_equal(atf_unpack(rtc, s, NULL, NULL, NULL, &err), ATF_E_ARG);
    tu_path(p, sizeof p, "%s/other.rtc", tmp);
    membuf m = { NULL, 0, 0 };
    atf_rtc_writer *w;
    uint64_t id;
    assert_int_equal(atf_rtc_writer_create(&w, NULL, mem_sink, &m, &err), ATF_OK);
    assert_int_equal(atf_rtc_writer_stream(w, "{\"name\":\"log\",\"format\":\"utf-8\"}", &id, &err), ATF_OK);
    assert_int_equal(atf_rtc_writer_write(w, id, "hello", 5, &err), ATF_OK);
    assert_int_equal(atf_rtc_writer_finish(w, &err), ATF_OK);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(m.p, 1, m.n, f), m.n);
    fclose(f);
    free(m.p);
    atf_unpack_stats us;
    assert_int_equal(atf_unpack(p, out, NULL, &us, NULL, &err), ATF_E_NOT_FOUND);
    assert_int_equal(us.not_rtc, 0);   /* an RTC file, of something else */
    assert_non_null(strstr(err.message, "not made by `atf pack`"));
    tu_path(p, sizeof p, "%s/text.rtc", tmp);
    f = fopen(p, "wb");
    assert_non_null(f);
    fputs("not an rtc file", f);
    fclose(f);
    assert_int_equal(atf_unpack(p, out, NULL, &us, NULL, &err), ATF_E_NOT_FOUND);
    assert_int_equal(us.not_rtc, 1);
    assert_non_null(strstr(err.message, "not an RTC file"));
    tu_path(p, sizeof p, "%s/empty.rtc", tmp);
    f = fopen(p, "wb");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(atf_unpack(p, out, NULL, &us, NULL, &err), ATF_E_NOT_FOUND);
    assert_int_equal(us.not_rtc, 1);
    assert_false(tu_exists(out));
    cf_rm_rf(tmp);
}

/* The output goes through the writer thread (pack.c "Output"): a session
 * of several MB fills many of its slots, the producer waits for free ones,
 * and the session's and the RTC file's bytes are written from where they
 * are mapped; the copy comes back byte for byte. A write error (ENOSPC from
 * /dev/full), in a file smaller than one slot (written at the close) or in
 * one of many slots (written by the thread while pack goes on), is an I/O
 * error that names the file and the reason. */
static void test_large_and_write_errors(void **state)
{
    (void)state;
    char tmp[256], s[512], small[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    tu_path(s, sizeof s, "%s/big", tmp);
    tu_demo(s, ATF_LAYOUT_2, 4, 40000, 2);
    roundtrip(s, tmp, 4, 0, "big");
    roundtrip(s, tmp, 4, 65536, "big64k");
    tu_path(small, sizeof small, "%s/small", tmp);
    tu_demo(small, ATF_LAYOUT_2, 1, 50, 2);
    atf_error err;
    atf_pack_stats ps;
    const char *srcs[] = { small, s };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(atf_pack(srcs[i], "/dev/full", NULL, &ps, NULL, &err), ATF_E_IO);
        assert_string_equal(err.file, "/dev/full");
        assert_non_null(strstr(err.message, "cannot write"));
        assert_non_null(strstr(err.message, strerror(ENOSPC)));
    }
    cf_rm_rf(tmp);
}

/* unpack writes the whole threads' files several at a time (pack.c
 * "wqueue"): a file that cannot be written is an I/O error naming the first
 * such file in the session's order, whichever worker met it first, and
 * costs no other file: the rest come back byte for byte. */
static void test_unpack_write_errors(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], out[512], p[600], q[600];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    tu_path(s, sizeof s, "%s/s", tmp);
    tu_demo(s, ATF_LAYOUT_2, 6, 3000, 2);
    tu_path(rtc, sizeof rtc, "%s/s.rtc", tmp);
    atf_pack_stats ps;
    atf_error err;
    assert_int_equal(atf_pack(s, rtc, NULL, &ps, NULL, &err), ATF_OK);
    static const char *const blocked[] = { "thread_4/detail.atf", "thread_1/index.atf", "thread_5/index.atf" };
    for (int round = 0; round < 3; round++) {
        tu_path(out, sizeof out, "%s/out%d", tmp, round);
        tu_mkdir(out);
        /* a directory where the file goes: open() fails with EISDIR */
        for (int k = round == 0 ? 1 : 0; k < 3; k++) {
            tu_path(p, sizeof p, "%s/%.8s", out, blocked[k]);
            if (!tu_exists(p))
                tu_mkdir(p);
            tu_path(p, sizeof p, "%s/%s", out, blocked[k]);
            tu_mkdir(p);
        }
        atf_unpack_options uo = ATF_UNPACK_OPTIONS_INIT;
        uo.force = 1;
        atf_unpack_stats us;
        assert_int_equal(atf_unpack(rtc, out, &uo, &us, NULL, &err), ATF_E_IO);
        assert_non_null(strstr(err.file, "thread_1/index.atf"));   /* the first in order, every round */
        assert_non_null(strstr(err.message, strerror(EISDIR)));
        for (unsigned t = 0; t < 6; t++) {
            for (int k = 0; k < 2; k++) {
                char rel[64];
                snprintf(rel, sizeof rel, "thread_%u/%s", t, k ? "detail.atf" : "index.atf");
                int is_blocked = 0;
                for (int b = round == 0 ? 1 : 0; b < 3; b++)
                    is_blocked |= !strcmp(rel, blocked[b]);
                tu_path(p, sizeof p, "%s/%s", s, rel);
                tu_path(q, sizeof q, "%s/%s", out, rel);
                if (!is_blocked)
                    cf_assert_same_file(p, q);
            }
        }
    }
    cf_rm_rf(tmp);
}

/* The files under dir (and its subdirectories), relative, sorted, one per line. */
static void list_tree(const char *dir, const char *rel, char **out, size_t *n)
{
    char p[700];
    tu_path(p, sizeof p, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *d = opendir(p);
    assert_non_null(d);
    char names[64][256];
    size_t k = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            assert_true(k < 64);
            snprintf(names[k++], sizeof names[0], "%s", e->d_name);
        }
    closedir(d);
    qsort(names, k, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (size_t i = 0; i < k; i++) {
        char r[600], q[800];
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        tu_path(q, sizeof q, "%s/%s", dir, r);
        struct stat st;
        assert_int_equal(stat(q, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            list_tree(dir, r, out, n);
            continue;
        }
        size_t len = strlen(r);
        *out = realloc(*out, *n + len + 2);
        assert_non_null(*out);
        memcpy(*out + *n, r, len);
        (*out)[*n + len] = '\n';
        *n += len + 1;
        (*out)[*n] = 0;
    }
}

/* a and b hold the same files, byte for byte. */
static void assert_same_tree(const char *a, const char *b)
{
    char *la = NULL, *lb = NULL;
    size_t na = 0, nb = 0;
    list_tree(a, "", &la, &na);
    list_tree(b, "", &lb, &nb);
    assert_string_equal(la ? la : "", lb ? lb : "");
    for (char *line = la, *end; line && *line; line = end + 1) {
        end = strchr(line, '\n');
        *end = 0;
        char pa[800], pb[800];
        tu_path(pa, sizeof pa, "%s/%s", a, line);
        tu_path(pb, sizeof pb, "%s/%s", b, line);
        cf_assert_same_file(pa, pb);
    }
    free(la);
    free(lb);
}

typedef struct progress_log {
    size_t records, restarts, calls;
    uint64_t sum;   /* over every record handed on: its stream, offset, size and payload bytes */
} progress_log;

static uint64_t record_hash(const atf_rtc_record *rec)
{
    uint64_t h = rec->stream * 0x9e3779b97f4a7c15u ^ rec->offset * 0xc2b2ae3d27d4eb4fu ^ rec->size;
    for (size_t i = 0; i < rec->size; i++)
        h = (h ^ rec->payload[i]) * 0x100000001b3u;
    return h;
}

static int log_progress(void *user, const atf_rtc_reader *r, size_t first, size_t end, int restart)
{
    progress_log *g = user;
    g->calls++;
    if (restart) {   /* nothing handed on so far stands */
        assert_int_equal(first, 0);
        assert_int_equal(end, 0);
        g->restarts++;
        g->records = 0;
        g->sum = 0;
        return 0;
    }
    assert_true(first < end);
    for (size_t i = first; i < end; i++) {
        atf_rtc_record rec;
        atf_rtc_reader_record(r, i, &rec);
        g->sum += record_hash(&rec);
        g->records++;
    }
    return 0;
}

/* A FIFO where unpack writes a file, or where pack writes the packed file:
 * refused at once as an I/O problem naming it (never waited on for a
 * reader), and unpack writes every other file byte for byte. */
static void test_special_file_outputs(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], out[512], p[600], q[600];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    pack_demo(tmp, s, rtc, ATF_LAYOUT_2, 3, 2000, 2, 8192);
    tu_path(out, sizeof out, "%s/out", tmp);
    tu_mkdir(out);
    tu_path(p, sizeof p, "%s/thread_1", out);
    tu_mkdir(p);
    tu_path(p, sizeof p, "%s/thread_1/index.atf", out);
    assert_int_equal(mkfifo(p, 0644), 0);
    atf_unpack_options uo = ATF_UNPACK_OPTIONS_INIT;
    uo.force = 1;
    atf_unpack_stats us;
    atf_error err;
    assert_int_equal(atf_unpack(rtc, out, &uo, &us, NULL, &err), ATF_E_IO);
    assert_non_null(strstr(err.file, "thread_1/index.atf"));
    assert_non_null(strstr(err.message, "a FIFO, not a regular file"));
    for (unsigned t = 0; t < 3; t++)
        for (int k = 0; k < 2; k++) {
            if (t == 1 && k == 0)
                continue;
            const char *name = k ? "detail.atf" : "index.atf";
            tu_path(p, sizeof p, "%s/thread_%u/%s", s, t, name);
            tu_path(q, sizeof q, "%s/thread_%u/%s", out, t, name);
            cf_assert_same_file(p, q);
        }
    tu_path(p, sizeof p, "%s/fifo.rtc", tmp);
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(atf_pack(s, p, NULL, NULL, NULL, &err), ATF_E_IO);
    assert_non_null(strstr(err.message, "a FIFO, not a regular file"));
    /* A session file that is a FIFO: the pack is refused naming it, as for
     * a file that cannot be read, never made without it. */
    static const char *const in_session[] = { "thread_2/detail.atf", "manifest.json" };
    for (int k = 0; k < 2; k++) {
        tu_path(p, sizeof p, "%s/%s", s, in_session[k]);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(mkfifo(p, 0644), 0);
        tu_path(q, sizeof q, "%s/fifo-in-session%d.rtc", tmp, k);
        assert_int_equal(atf_pack(s, q, NULL, NULL, NULL, &err), ATF_E_IO);
        assert_string_equal(err.file, p);
        assert_non_null(strstr(err.message, "a FIFO, not a regular file"));
    }
}

/* unpack writes each lane while the RTC reader reads (atf_rtc_reader_open_with,
 * pack.c "Unpacking while the reader reads") and falls back to reading
 * again the usual way when a lane does not come whole. For the intact file
 * and for cut and damaged ones (the last case makes the reader read again
 * from the start: its last Unit's final Crc fails), the session written,
 * the stats and the report are those of the usual way alone
 * (ATF_UNPACK_STREAM=0), no file is left over, and the records the reader
 * hands on are the records it keeps, with ATF_RTC_PROGRESS_ONLY too. */
static void test_unpack_stream_same(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], bad[512], o1[512], o2[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    pack_demo(tmp, s, rtc, ATF_LAYOUT_2, 3, 4000, 3, 8192);
    atf_error err;
    size_t n;
    uint8_t *b = tu_read_file(rtc, &n);
    assert_true(n % 8192 != 0);   /* the last Unit is short: its final Crc covers it */
    enum { INTACT, CUT_END, CUT_START, FLIP_MIDDLE, ZERO_RANGE, FLIP_LAST, FLIP_MANY, CASES };
    size_t reads2 = 0, restarts = 0;
    for (int c = 0; c < CASES; c++) {
        uint8_t *v = malloc(n);
        assert_non_null(v);
        memcpy(v, b, n);
        size_t from = 0, len = n;
        uint64_t seed = 7;
        switch (c) {
        case CUT_END: len = n / 2 + 333; break;
        case CUT_START: from = n / 3 + 77; len = n - from; break;
        case FLIP_MIDDLE: v[n / 2] ^= 0x20; break;
        case ZERO_RANGE: memset(v + n / 3, 0, 100); break;
        case FLIP_LAST: v[n - 40] ^= 1; break;   /* inside the short last Unit */
        case FLIP_MANY:
            for (int k = 0; k < 12; k++)
                v[tu_rand(&seed) % n] ^= (uint8_t)(1u << (k % 8));
            break;
        }
        tu_path(bad, sizeof bad, "%s/v%d.rtc", tmp, c);
        FILE *f = fopen(bad, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(v + from, 1, len, f), len);
        fclose(f);
        free(v);

        atf_unpack_stats us[2];
        atf_status st[2];
        char *rep[2];
        for (int way = 0; way < 2; way++) {   /* 0: as shipped, 1: the usual way only */
            /* written to the same path (the report names it), then moved */
            char out[512];
            tu_path(out, sizeof out, "%s/v%d", tmp, c);
            tu_path(way ? o2 : o1, sizeof o1, "%s/v%d-%d", tmp, c, way);
            size_t rn;
            FILE *rf = open_memstream(&rep[way], &rn);
            assert_non_null(rf);
            if (way)
                setenv("ATF_UNPACK_STREAM", "0", 1);
            st[way] = atf_unpack(bad, out, NULL, &us[way], rf, &err);
            unsetenv("ATF_UNPACK_STREAM");
            fclose(rf);
            assert_int_equal(rename(out, way ? o2 : o1), 0);
        }
        assert_int_equal(st[0], ATF_OK);
        assert_int_equal(st[1], ATF_OK);
        assert_string_equal(rep[0], rep[1]);
        assert_int_equal(us[1].reads, 1);
        assert_true(us[0].reads == 1 || us[0].reads == 2);
        if (c == INTACT) {
            assert_int_equal(us[0].reads, 1);   /* every lane written while the file was read */
            assert_int_equal(us[0].lost, 0);
        } else {
            assert_int_equal(us[0].lost, 1);
        }
        reads2 += us[0].reads == 2;
        us[0].reads = us[1].reads;
        assert_memory_equal(&us[0], &us[1], sizeof us[0]);
        assert_same_tree(o1, o2);
        free(rep[0]);
        free(rep[1]);

        /* the reader: what it hands on is what it keeps */
        progress_log g[2] = { { 0 }, { 0 } };
        atf_rtc_reader *r;
        for (int k = 0; k < 2; k++) {
            assert_int_equal(atf_rtc_reader_open_with(&r, bad, log_progress, &g[k], k ? ATF_RTC_PROGRESS_ONLY : 0, &err),
                             ATF_OK);
            atf_rtc_summary sum;
            atf_rtc_reader_summary(r, &sum);
            assert_int_equal(sum.records, g[k].records);
            if (k == 0) {
                uint64_t h = 0;
                for (size_t i = 0; i < sum.records; i++) {
                    atf_rtc_record rec;
                    atf_rtc_reader_record(r, i, &rec);
                    h += record_hash(&rec);
                }
                assert_true(h == g[0].sum);
            } else {
                atf_rtc_record rec;
                assert_int_equal(atf_rtc_reader_next_record(r, &rec), ATF_E_NOT_FOUND);
            }
            atf_rtc_reader_close(r);
        }
        assert_true(g[0].records > 0 && g[0].calls > 1);
        assert_int_equal(g[0].records, g[1].records);
        assert_true(g[0].sum == g[1].sum);
        assert_int_equal(g[0].restarts, g[1].restarts);
        assert_int_equal(g[0].restarts, c == FLIP_LAST);
        restarts += g[0].restarts;
    }
    assert_true(reads2 >= 4);   /* the fallback was taken */
    assert_int_equal(restarts, 1);
    free(b);
    cf_rm_rf(tmp);
}

/* A session of more lanes than unpack writes at a time (20 threads, 41
 * files, their chunks side by side in the file): done the usual way from
 * the reader's first Unit (it keeps every record: ATF_RTC_KEEP_RECORDS),
 * read once, every file back byte for byte. */
static void test_unpack_many_lanes(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], out[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    pack_demo(tmp, s, rtc, ATF_LAYOUT_1, 20, 3000, 3, 65536);
    atf_error err;
    tu_path(out, sizeof out, "%s/out", tmp);
    atf_unpack_stats us;
    assert_int_equal(atf_unpack(rtc, out, NULL, &us, NULL, &err), ATF_OK);
    assert_int_equal(us.reads, 1);
    assert_int_equal(us.lost, 0);
    assert_int_equal(us.threads_whole, 20);
    assert_same_tree(s, out);
    cf_rm_rf(tmp);
}

/* The default Unit: about 1/32 of the session, at least 8x what each Unit
 * repeats, 16 KiB to 1 MiB, raised for a large Meta (docs/pack.md). */
static void test_default_unit(void **state)
{
    (void)state;
    assert_int_equal(atf_pack_default_unit(0, 0, 0), 16384);
    assert_int_equal(atf_pack_default_unit(100000, 500, 0), 16384);      /* 8 x 1.5 KiB fits 16 KiB */
    assert_int_equal(atf_pack_default_unit(1901936, 2600, 1712), 65536); /* a 2 MB two-thread demo session */
    assert_int_equal(atf_pack_default_unit(762926, 2600, 1712), 65536);  /* 770 KB: at least 8c */
    assert_int_equal(atf_pack_default_unit(16u << 20, 2600, 1712), 524288);
    assert_int_equal(atf_pack_default_unit(1ull << 30, 2600, 1712), 1048576);
    assert_int_equal(atf_pack_default_unit(1ull << 30, 1u << 20, 1712), 8u << 20);   /* Meta at most U/8 */
    /* one Unit is at most ~1/23 (sqrt 2 x 1/32) of a session from 2 MiB to 32 MiB */
    for (uint64_t size = 2u << 20; size <= (32u << 20); size += size / 3)
        assert_true(atf_pack_default_unit(size, 2600, 1712) <= size / 22);
}

/* A manifest no ATF reader takes is reported and packed once; pack of a
 * large session with it still comes back byte for byte. */
static void test_invalid_manifest(void **state)
{
    (void)state;
    char tmp[256], s[512], rtc[512], out[512], p[512];
    cf_mkdtemp(tmp, sizeof tmp, "pack");
    tu_path(s, sizeof s, "%s/s", tmp);
    tu_demo(s, ATF_LAYOUT_2, 2, 3000, 2);
    tu_path(p, sizeof p, "%s/manifest.json", s);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    for (int i = 0; i < 200000; i++)
        fputc('[', f);
    fclose(f);
    tu_path(rtc, sizeof rtc, "%s/s.rtc", tmp);
    tu_path(out, sizeof out, "%s/out", tmp);
    atf_pack_stats ps;
    atf_error err;
    tu_capture c;
    assert_int_equal(atf_pack(s, rtc, NULL, &ps, tu_capture_begin(&c), &err), ATF_OK);
    tu_capture_end(&c);
    assert_int_equal(ps.manifest_invalid, 1);
    assert_int_equal(ps.manifest_copies, 1);
    assert_non_null(strstr(c.buf, "SES-MAN-002"));
    free(c.buf);
    assert_true(ps.bytes_out < ps.bytes_in + ps.bytes_in / 4);
    atf_unpack_stats us;
    assert_int_equal(atf_unpack(rtc, out, NULL, &us, NULL, &err), ATF_OK);
    assert_int_equal(us.lost, 0);
    assert_int_equal(us.manifest, 1);
    tu_path(s, sizeof s, "%s/out/manifest.json", tmp);
    cf_assert_same_file(p, s);
    cf_rm_rf(tmp);
}

/* whole_records: records of up to U/4 bytes never cross a Unit end, whatever their sizes and streams. */
static void test_whole_records(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int round = 0; round < 6; round++) {
        membuf m = { NULL, 0, 0 };
        atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
        o.unit_size = round < 3 ? 4096 : 8192;
        o.subunit_size = 2048;
        o.whole_records = 1;
        atf_rtc_writer *w;
        atf_error err;
        assert_int_equal(atf_rtc_writer_create(&w, &o, mem_sink, &m, &err), ATF_OK);
        uint64_t ids[5];
        for (int i = 0; i < 4; i++)
            assert_int_equal(atf_rtc_writer_stream(w, "{\"format\":\"raw\"}", &ids[i], &err), ATF_OK);
        assert_int_equal(atf_rtc_writer_stream(w, "{\"format\":\"uint64le\",\"length\":8}", &ids[4], &err), ATF_OK);
        static uint8_t buf[2048];
        uint64_t written = 0;
        for (int k = 0; k < 800; k++) {
            int s = (int)(tu_rand(&seed) % 5);
            size_t len = s == 4 ? 8 : (size_t)(tu_rand(&seed) % (o.unit_size / 4 + 1));
            memset(buf, k & 0xff, len);
            assert_int_equal(atf_rtc_writer_write(w, ids[s], buf, len, &err), ATF_OK);
            written++;
        }
        assert_int_equal(atf_rtc_writer_finish(w, &err), ATF_OK);
        atf_rtc_reader *r;
        assert_int_equal(atf_rtc_reader_open_memory(&r, m.p, m.n, &err), ATF_OK);
        atf_rtc_summary sum;
        atf_rtc_reader_summary(r, &sum);
        assert_int_equal(sum.state, ATF_RTC_COMPLETE);
        assert_int_equal(sum.records, written);
        assert_true(sum.units > 10);
        uint64_t crossing = 0;
        for (size_t i = 0; i < sum.records; i++) {
            atf_rtc_record rec;
            atf_rtc_reader_record(r, i, &rec);
            uint64_t u0 = rec.frames[0] / o.unit_size, u1 = rec.frames[rec.frame_count - 1] / o.unit_size;
            crossing += u0 != u1;
        }
        assert_int_equal(crossing, 0);
        atf_rtc_reader_close(r);
        free(m.p);
    }
}

/* A file cut to one Marker whose Index is longer than a frame (a session of
 * many threads): the reader learns the Unit size from the Index's first
 * piece even when that piece ends inside an entry (it once parsed the whole
 * piece and gave up: RTC-UNI-002, nothing read). */
static void test_long_index_resync(void **state)
{
    (void)state;
    for (unsigned nstreams = 200; nstreams <= 440; nstreams += 20) {
        membuf m = { NULL, 0, 0 };
        atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
        o.unit_size = 65536;
        o.subunit_size = 65536;
        atf_rtc_writer *w;
        atf_error err;
        assert_int_equal(atf_rtc_writer_create(&w, &o, mem_sink, &m, &err), ATF_OK);
        uint64_t first = 0, id = 0;
        for (unsigned i = 0; i < nstreams; i++) {
            assert_int_equal(atf_rtc_writer_stream(w, "{}", &id, &err), ATF_OK);
            if (i == 0)
                first = id;
        }
        static const uint8_t rec[200];
        for (unsigned k = 0; m.n < 3 * o.unit_size; k++)
            assert_int_equal(atf_rtc_writer_write(w, first + k % nstreams, rec, 50 + k % 150, &err), ATF_OK);
        assert_int_equal(atf_rtc_writer_finish(w, &err), ATF_OK);
        size_t from = o.unit_size - 100, to = 2 * o.unit_size - 100;
        atf_rtc_reader *r;
        assert_int_equal(atf_rtc_reader_open_memory(&r, m.p + from, to - from, &err), ATF_OK);
        atf_rtc_summary sum;
        atf_rtc_reader_summary(r, &sum);
        assert_int_equal(sum.has_geometry, 1);
        assert_int_equal(sum.unit_size, o.unit_size);
        assert_int_equal(sum.state, ATF_RTC_CRASH_TRUNCATED);
        assert_true(sum.records > 0);
        atf_rtc_reader_close(r);
        free(m.p);
    }
}

/* The Crcs pack and unpack spend most of their time in, computed 8 bytes at
 * a time: the same values as the byte-wise definitions (SPEC-RTC 8.1),
 * written out here, at every length and alignment. */
static uint32_t crc_bytewise(int ref, const uint8_t *p, size_t n)
{
    uint32_t t[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = ref ? i << 24 : i;
        for (int k = 0; k < 8; k++)
            c = ref ? ((c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1) : ((c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1);
        t[i] = c;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = (c >> 8) ^ t[(c ^ p[i]) & 0xFF];
    return c ^ 0xFFFFFFFFu;
}

static void test_crc_slicing(void **state)
{
    (void)state;
    static uint8_t buf[600];
    uint64_t seed = 99;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)tu_rand(&seed);
    assert_int_equal(atf_rtc_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(atf_rtc_crc_ref(0, "123456789", 9), 0x7EAD5C77u);
    for (size_t off = 0; off < 9; off++)
        for (size_t n = 0; n + off <= sizeof buf; n += 1 + n / 8) {
            assert_int_equal(atf_rtc_crc32(0, buf + off, n), crc_bytewise(0, buf + off, n));
            assert_int_equal(atf_rtc_crc_ref(0, buf + off, n), crc_bytewise(1, buf + off, n));
            /* continued over two calls */
            size_t h = n / 3;
            assert_int_equal(atf_rtc_crc32(atf_rtc_crc32(0, buf + off, h), buf + off + h, n - h),
                             crc_bytewise(0, buf + off, n));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_layouts),
        cmocka_unit_test(test_roundtrip_crash_truncated),
        cmocka_unit_test(test_cut_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_large_and_write_errors),
        cmocka_unit_test(test_unpack_write_errors),
        cmocka_unit_test(test_special_file_outputs),
        cmocka_unit_test(test_unpack_stream_same),
        cmocka_unit_test(test_unpack_many_lanes),
        cmocka_unit_test(test_default_unit),
        cmocka_unit_test(test_invalid_manifest),
        cmocka_unit_test(test_whole_records),
        cmocka_unit_test(test_crc_slicing),
        cmocka_unit_test(test_long_index_resync),
        cmocka_unit_test(test_left_staging),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
