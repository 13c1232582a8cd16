/* Tests for rec_sink.c: the CRC32-C patch arithmetic against recomputation,
 * the file being a prefix of what was appended at every moment (chunks
 * written with O_DIRECT, tails buffered), also with several files written
 * side by side by the I/O threads, and patches in each region (not yet
 * written, written as a tail, written as a chunk) with the CRC right. */
#include "rec_test_util.h"

#include <atf/crc32c.h>

#include "rec_io.h"
#include "rec_sink.h"

static void test_crc_patch_math(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    uint8_t a[4096], b[4096];
    for (int iter = 0; iter < 2000; iter++) {
        size_t len = 1 + rt_rand(&seed) % sizeof a;
        for (size_t i = 0; i < len; i++)
            a[i] = (uint8_t)rt_rand(&seed);
        memcpy(b, a, len);
        size_t pos = rt_rand(&seed) % len;
        size_t n = 1 + rt_rand(&seed) % (len - pos);
        if (n > 256)
            n = 256;
        for (size_t i = 0; i < n; i++)
            b[pos + i] = (uint8_t)rt_rand(&seed);
        uint32_t before = atf_crc32c(0, a, len);
        uint32_t want = atf_crc32c(0, b, len);
        assert_int_equal(rec_crc32c_patch(before, len, pos, a + pos, b + pos, n), want);
    }
    /* Shifting by n zero bytes is appending n zero bytes to the raw register. */
    uint8_t zeros[1000] = { 0 };
    for (uint32_t raw = 1; raw < 0x80000000u; raw = raw * 3 + 7) {
        size_t n = raw % sizeof zeros;
        uint32_t direct = ~atf_crc32c(~raw, zeros, n);
        assert_int_equal(rec_crc32c_shift(raw, n), direct);
    }
}

/* The expected byte at file offset i: a 64-byte header, then a pattern. */
static uint8_t byte_at(uint64_t i)
{
    return i < 64 ? (uint8_t)(0xA0 + i % 16) : (uint8_t)(i * 2654435761u >> 13);
}

/* Checks the file from `from` on (earlier bytes were checked before and
 * are only ever rewritten with the same values, or patched). */
static void check_prefix(const char *path, uint64_t from, uint64_t appended, const uint8_t *patched_map,
                         uint64_t *seen)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t buf[65536];
    uint64_t off = from;
    assert_int_equal(fseek(f, (long)from, SEEK_SET), 0);
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < got; i++, off++)
            if (!patched_map[off] && buf[i] != byte_at(off))
                fail_msg("%s: byte %llu is %u, expected %u (not a prefix)", path, (unsigned long long)off, buf[i],
                         byte_at(off));
    }
    fclose(f);
    assert_true(off <= appended);
    assert_true(off >= 64);
    *seen = off;
}

static void run_sink(int direct)
{
    char dir[256], path[512];
    rt_mkdtemp(dir, sizeof dir, "sink");
    rt_path(path, sizeof path, "%s/file.atf", dir);
    rec_io io;
    assert_int_equal(rec_io_start(&io), 0);
    rec_sink s;
    uint8_t header[64];
    for (int i = 0; i < 64; i++)
        header[i] = byte_at((uint64_t)i);
    assert_int_equal(rec_sink_open(&s, &io, path, header, 64u << 10, 3, direct, 1, NULL, NULL), ATF_OK);
    const uint64_t total = 3u << 20;
    uint8_t *patched = calloc(total, 1);
    uint8_t *content = malloc(total);
    for (uint64_t i = 0; i < total; i++)
        content[i] = byte_at(i);
    uint64_t seed = 99, seen = 0, last_seen = 0;
    uint8_t piece[20000];
    while (s.fill < total) {
        uint64_t n = 1 + rt_rand(&seed) % sizeof piece;
        if (n > total - s.fill)
            n = total - s.fill;
        for (uint64_t i = 0; i < n; i++)
            piece[i] = byte_at(s.fill + i);
        rec_sink_append(&s, piece, (size_t)n);
        uint64_t r = rt_rand(&seed) % 16;
        if (r == 0)
            rec_sink_flush(&s);
        else if (r == 1)
            rec_sink_flush_async(&s);
        if (r <= 3 && s.fill > 4096) {
            /* Patch 8 bytes somewhere: not yet written, a tail, or a chunk. */
            uint64_t off = 64 + rt_rand(&seed) % (s.fill - 72);
            uint8_t v[8];
            for (int i = 0; i < 8; i++) {
                v[i] = (uint8_t)rt_rand(&seed);
                content[off + (uint64_t)i] = v[i];
                patched[off + (uint64_t)i] = 1;
            }
            rec_sink_patch(&s, off, v, 8);
        }
        check_prefix(path, last_seen > 65536 ? last_seen - 65536 : 0, s.fill, patched, &seen);
        assert_true(seen >= last_seen);   /* the file only grows */
        last_seen = seen;
    }
    uint32_t crc = rec_sink_seal(&s);
    assert_int_equal(crc, atf_crc32c(0, content + 64, total - 64));
    uint8_t footer[64];
    memset(footer, 0xEE, sizeof footer);
    uint8_t final_header[64];
    memcpy(final_header, content, 64);
    assert_int_equal(rec_sink_finish(&s, footer, final_header, 1), ATF_OK);
    rec_io_stop(&io);
    FILE *f = fopen(path, "rb");
    uint8_t *back = malloc(total + 64);
    assert_int_equal(fread(back, 1, total + 64, f), total + 64);
    fclose(f);
    assert_memory_equal(back, content, total);
    assert_memory_equal(back + total, footer, 64);
    free(back);
    free(content);
    free(patched);
    rt_rm_rf(dir);
}

static void test_sink_direct(void **state)
{
    (void)state;
    run_sink(1);
}

static void test_sink_buffered(void **state)
{
    (void)state;
    run_sink(0);
}

/* Six files on one rec_io, filled the way the writer fills them: a file
 * whose window waits for the disk is left for the next (rec_sink_try_reserve)
 * and the loop blocks (rec_sink_reserve) only when every file waits. The I/O
 * threads write different files side by side, each file's requests one at
 * a time and in order: every file is a prefix of what was appended at every
 * check, and ends up complete. */
#define SIDE_FILES 6u
static void test_sinks_side_by_side(void **state)
{
    (void)state;
    char dir[256], path[SIDE_FILES][512];
    rt_mkdtemp(dir, sizeof dir, "sinks");
    rec_io io;
    assert_int_equal(rec_io_start(&io), 0);
    rec_sink s[SIDE_FILES];
    uint8_t header[64];
    for (int i = 0; i < 64; i++)
        header[i] = byte_at((uint64_t)i);
    for (unsigned k = 0; k < SIDE_FILES; k++) {
        rt_path(path[k], sizeof path[k], "%s/file%u.atf", dir, k);
        assert_int_equal(rec_sink_open(&s[k], &io, path[k], header, 16u << 10, 4, 1, 1, NULL, NULL), ATF_OK);
    }
    const uint64_t total = (uint64_t)rt_scaled(2u << 20) + 64;
    uint8_t *patched = calloc(total + 64, 1);
    uint64_t seen[SIDE_FILES] = { 0 }, seed = 7, rounds = 0;
    unsigned done = 0;
    uint8_t piece[6000];
    while (done < SIDE_FILES) {
        unsigned moved = 0;
        done = 0;
        for (unsigned k = 0; k < SIDE_FILES; k++) {
            rec_sink *x = &s[k];
            if (x->fill == total) {
                done++;
                continue;
            }
            uint64_t contig;
            rec_sink_space(x, &contig);
            if (contig == 0 && !rec_sink_try_reserve(x, x->chunk, 0))
                continue;   /* waits for the disk: the next file */
            rec_sink_space(x, &contig);
            uint64_t n = 1 + rt_rand(&seed) % sizeof piece;
            n = n < contig ? n : contig;
            n = n < total - x->fill ? n : total - x->fill;
            for (uint64_t i = 0; i < n; i++)
                piece[i] = byte_at(x->fill + i);
            rec_sink_append(x, piece, (size_t)n);
            moved++;
        }
        if (moved == 0 && done < SIDE_FILES) {
            for (unsigned k = 0; k < SIDE_FILES; k++)
                if (s[k].fill < total) {
                    rec_sink_reserve(&s[k], s[k].chunk);
                    break;
                }
        }
        if (++rounds % 16 == 0)
            for (unsigned k = 0; k < SIDE_FILES; k++) {
                uint64_t was = seen[k];
                check_prefix(path[k], was > 65536 ? was - 65536 : 0, s[k].fill, patched, &seen[k]);
                assert_true(seen[k] >= was);
            }
    }
    uint8_t footer[64];
    memset(footer, 0xEE, sizeof footer);
    memset(patched + total, 1, 64);   /* the footer, checked below */
    for (unsigned k = 0; k < SIDE_FILES; k++) {
        rec_sink_seal(&s[k]);
        assert_int_equal(rec_sink_finish(&s[k], footer, header, 0), ATF_OK);
        check_prefix(path[k], 0, total + 64, patched, &seen[k]);
        assert_int_equal(seen[k], total + 64);
        uint8_t tail[64];
        FILE *f = fopen(path[k], "rb");
        assert_non_null(f);
        assert_int_equal(fseek(f, (long)total, SEEK_SET), 0);
        assert_int_equal(fread(tail, 1, 64, f), 64);
        fclose(f);
        assert_memory_equal(tail, footer, 64);
    }
    rec_io_stop(&io);
    free(patched);
    rt_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_patch_math),
        cmocka_unit_test(test_sinks_side_by_side),
        cmocka_unit_test(test_sink_direct),
        cmocka_unit_test(test_sink_buffered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
