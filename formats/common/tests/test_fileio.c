/* Mapped files and path helpers every reader and writer shares
 * (common/src/fileio.c): what is refused and how, limits, sparse tails,
 * and the small helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atf/fileio.h>

#include "common.h"

static char g_dir[] = "/tmp/atf_test_fileio_XXXXXX";

static char *path_in(const char *name)
{
    char *p = atf_path_join(g_dir, name);
    assert_non_null(p);
    return p;
}

static char *write_file(const char *name, const void *data, size_t n)
{
    char *p = path_in(name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(atf_write_all(fd, data, n, 0, 0), ATF_OK);
    close(fd);
    return p;
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return atf_remove_tree(g_dir);
}

static void test_blob_mapped_and_read_agree(void **state)
{
    (void)state;
    const char text[] = "0123456789abcdef";
    char *p = write_file("sixteen", text, 16);
    for (int no_mmap = 0; no_mmap <= 1; no_mmap++) {
        atf_blob b;
        atf_error err = { 0 };
        assert_int_equal(atf_blob_open(&b, p, no_mmap, &err), ATF_OK);
        assert_int_equal(b.size, 16);
        assert_int_equal(b.data_end, 16);
        assert_memory_equal(b.data, text, 16);
        assert_true(no_mmap ? (b.heap != NULL && b.map == NULL) : (b.map != NULL && b.heap == NULL));
        atf_blob_close(&b);
        assert_null(b.data);
    }
    atf_blob_close(NULL);   /* allowed */
    free(p);
}

/* atf_blob_release(): the bytes read the same after it, whether the blob
 * is mapped (its pages come back from the page cache) or a heap copy (left
 * alone: dropping anonymous pages would zero them), over the whole blob, a
 * part of it, and ranges reaching past it (ignored). */
static void test_blob_release(void **state)
{
    (void)state;
    enum { N = 64 * 1024 + 100 };
    uint8_t *text = malloc(N);
    assert_non_null(text);
    for (size_t i = 0; i < N; i++)
        text[i] = (uint8_t)(i * 7 + 1);
    char *p = write_file("released", text, N);
    for (int no_mmap = 0; no_mmap <= 1; no_mmap++) {
        atf_blob b;
        atf_error err = { 0 };
        assert_int_equal(atf_blob_open(&b, p, no_mmap, &err), ATF_OK);
        assert_memory_equal(b.data, text, N);
        atf_blob_release(&b, 5000, 30000);
        assert_memory_equal(b.data, text, N);
        atf_blob_release(&b, 0, N);
        assert_memory_equal(b.data, text, N);
        atf_blob_release(&b, N + 1, 1);
        atf_blob_release(&b, 4096, UINT64_MAX);
        assert_memory_equal(b.data, text, N);
        atf_blob_close(&b);
    }
    free(p);
    free(text);
}

static void test_blob_empty_file(void **state)
{
    (void)state;
    char *p = write_file("empty", "", 0);
    atf_blob b;
    assert_int_equal(atf_blob_open(&b, p, 0, NULL), ATF_OK);
    assert_int_equal(b.size, 0);
    assert_non_null(b.data);
    atf_blob_close(&b);
    free(p);
}

static void test_blob_limit(void **state)
{
    (void)state;
    char *p = write_file("ten", "0123456789", 10);
    atf_blob b;
    atf_error err = { 0 };
    assert_int_equal(atf_blob_open_limit(&b, p, 0, 10, &err), ATF_OK);   /* at the limit: taken */
    atf_blob_close(&b);
    assert_int_equal(atf_blob_open_limit(&b, p, 0, 9, &err), ATF_E_LIMIT);
    assert_non_null(strstr(err.message, "10 bytes"));
    assert_null(b.data);
    free(p);
}

static void expect_refused(const char *p, const char *kind)
{
    atf_blob b;
    atf_error err = { 0 };
    assert_int_equal(atf_blob_open(&b, p, 0, &err), ATF_E_IO);   /* an I/O problem, never a verdict */
    if (kind)
        assert_non_null(strstr(err.message, kind));
    assert_null(b.data);
}

static void test_blob_refuses_what_is_not_a_regular_file(void **state)
{
    (void)state;
    expect_refused(g_dir, "a directory");
    char *missing = path_in("no-such-file");
    expect_refused(missing, "cannot open");
    free(missing);
    /* A FIFO with no writer: refused at once, not waited on. */
    char *fifo = path_in("fifo");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    expect_refused(fifo, "a FIFO");
    free(fifo);
    expect_refused("/dev/zero", "a character device");
}

static void expect_output_refused(const char *p, const char *why)
{
    atf_error err = { 0 };
    assert_int_equal(atf_open_output(p, &err), -1);
    assert_int_equal(err.code, ATF_E_IO);
    assert_non_null(strstr(err.message, why));
    assert_string_equal(err.file, p);
}

/* An output path that is a special file is refused at once, never waited on. */
static void test_open_output(void **state)
{
    (void)state;
    char *p = write_file("out", "old contents", 12);
    atf_error err = { 0 };
    int fd = atf_open_output(p, &err);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);   /* blocking, as open() gives it */
    assert_int_equal(write(fd, "new", 3), 3);
    close(fd);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_size, 3);   /* truncated */
    free(p);
    fd = atf_open_output("/dev/null", &err);
    assert_true(fd >= 0);
    close(fd);
    char *fifo = path_in("out-fifo");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    expect_output_refused(fifo, "a FIFO, not a regular file");   /* no reader */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    expect_output_refused(fifo, "a FIFO, not a regular file");   /* a reader waiting */
    close(rd);
    free(fifo);
    expect_output_refused(g_dir, strerror(EISDIR));
    char *missing = path_in("no-such-dir/out");
    expect_output_refused(missing, strerror(ENOENT));
    free(missing);
}

static void test_data_end_of_a_sparse_tail(void **state)
{
    (void)state;
    char *p = write_file("sparse", "data", 4);
    assert_int_equal(truncate(p, 1 << 20), 0);   /* a hole after four bytes */
    int fd = open(p, O_RDONLY);
    assert_true(fd >= 0);
    uint64_t end = atf_fd_data_end(fd, 1 << 20);
    close(fd);
    /* A file system that cannot say reports the whole size; one that can
     * reports the end of the block holding the data, below the size. */
    assert_true(end == (1u << 20) || (end >= 4 && end < (1u << 20)));
    atf_blob b;
    assert_int_equal(atf_blob_open(&b, p, 0, NULL), ATF_OK);
    assert_int_equal(b.data_end, end);
    atf_blob_close(&b);
    free(p);
}

static void test_file_type_names(void **state)
{
    (void)state;
    assert_string_equal(atf_file_type_name(S_IFREG | 0644), "a regular file");
    assert_string_equal(atf_file_type_name(S_IFDIR), "a directory");
    assert_string_equal(atf_file_type_name(S_IFIFO), "a FIFO");
    assert_string_equal(atf_file_type_name(S_IFSOCK), "a socket");
    assert_string_equal(atf_file_type_name(S_IFCHR), "a character device");
    assert_string_equal(atf_file_type_name(S_IFBLK), "a block device");
    assert_string_equal(atf_file_type_name(S_IFLNK), "a symbolic link");
    assert_string_equal(atf_file_type_name(0), "a special file");
}

static void test_path_helpers(void **state)
{
    (void)state;
    char *a = atf_path_join("dir", "name");
    char *b = atf_path_join("dir/", "name");
    char *c = atf_path_join("", "name");
    assert_string_equal(a, "dir/name");
    assert_string_equal(b, "dir/name");   /* no doubled slash */
    assert_string_equal(c, "name");
    free(a), free(b), free(c);
    assert_null(atf_strdup(NULL));
    char *d = atf_strdup("copy");
    assert_string_equal(d, "copy");
    free(d);

    char *deep = path_in("x/y/z");
    assert_int_equal(atf_make_dirs(deep), 0);
    assert_int_equal(atf_make_dirs(deep), 0);   /* already there: fine */
    struct stat st;
    assert_int_equal(stat(deep, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* Under a regular file: -1 with errno set. */
    char *file = write_file("plain", "x", 1);
    char *under = atf_path_join(file, "sub");
    errno = 0;
    assert_int_equal(atf_make_dirs(under), -1);
    assert_int_equal(errno, ENOTDIR);
    free(deep), free(file), free(under);
}

static void test_remove_tree(void **state)
{
    (void)state;
    char *top = path_in("tree");
    char *deep = path_in("tree/a/b/c");
    assert_int_equal(atf_make_dirs(deep), 0);
    free(write_file("tree/a/file", "x", 1));
    free(write_file("tree/a/b/c/file", "y", 1));
    char *outside = write_file("outside", "z", 1);
    char *link = path_in("tree/a/link");
    assert_int_equal(symlink(outside, link), 0);   /* removed, not followed */
    assert_int_equal(atf_remove_tree(top), 0);
    struct stat st;
    assert_int_equal(lstat(top, &st), -1);
    assert_int_equal(stat(outside, &st), 0);   /* the link's target is still there */
    assert_int_equal(atf_remove_tree(top), 0);   /* gone already: fine */
    assert_int_equal(atf_remove_tree(outside), 0);   /* a single file */
    assert_int_equal(lstat(outside, &st), -1);
    free(top), free(deep), free(outside), free(link);
}

static void test_write_all_positional(void **state)
{
    (void)state;
    char *p = write_file("pw", "..........", 10);
    int fd = open(p, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(atf_write_all(fd, "AB", 2, 4, 1), ATF_OK);
    close(fd);
    atf_blob b;
    assert_int_equal(atf_blob_open(&b, p, 1, NULL), ATF_OK);
    assert_memory_equal(b.data, "....AB....", 10);
    atf_blob_close(&b);
    /* A descriptor that cannot be written: an error, not a loop. */
    int rfd = open(p, O_RDONLY);
    assert_int_equal(atf_write_all(rfd, "x", 1, 0, 0), ATF_E_IO);
    close(rfd);
    free(p);
}

static void test_bytebuf_grows(void **state)
{
    (void)state;
    atf_bytebuf bb = { 0 };
    assert_int_equal(atf_bytebuf_reserve(&bb, 10), 0);
    assert_true(bb.cap >= 10);
    bb.n = bb.cap - 1;
    size_t before = bb.cap;
    assert_int_equal(atf_bytebuf_reserve(&bb, 1), 0);   /* fits: no growth */
    assert_int_equal(bb.cap, before);
    assert_int_equal(atf_bytebuf_reserve(&bb, 2), 0);
    assert_true(bb.cap > before);
    assert_int_equal(atf_bytebuf_reserve(&bb, SIZE_MAX - 1), -1);   /* refused, buffer kept */
    assert_non_null(bb.p);
    free(bb.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blob_mapped_and_read_agree),
        cmocka_unit_test(test_blob_release),
        cmocka_unit_test(test_blob_empty_file),
        cmocka_unit_test(test_blob_limit),
        cmocka_unit_test(test_blob_refuses_what_is_not_a_regular_file),
        cmocka_unit_test(test_open_output),
        cmocka_unit_test(test_data_end_of_a_sparse_tail),
        cmocka_unit_test(test_file_type_names),
        cmocka_unit_test(test_path_helpers),
        cmocka_unit_test(test_remove_tree),
        cmocka_unit_test(test_write_all_positional),
        cmocka_unit_test(test_bytebuf_grows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
