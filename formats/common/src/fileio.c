/* File access shared by readers and writers: mapping with a read() fallback,
 * full writes, and small path helpers. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/fileio.h>

#include "common.h"

static atf_status read_fully(int fd, uint8_t *dst, size_t size, atf_error *err)
{
    size_t done = 0;
    while (done < size) {
        ssize_t k = pread(fd, dst + done, size - done, (off_t)done);   /* atf_fd_data_end() moved the offset */
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return atf_fail(err, ATF_E_IO, done, NULL, "read failed: %s", strerror(errno));
        if (k == 0)
            return atf_fail(err, ATF_E_IO, done, NULL, "file shrank while being read");
        done += (size_t)k;
    }
    return ATF_OK;
}

const char *atf_file_type_name(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFLNK: return "a symbolic link";
    }
    return "a special file";
}

int atf_open_output(const char *path, atf_error *err)
{
    /* O_NONBLOCK: a FIFO with no reader fails at once (ENXIO) instead of
     * waiting for one; the flag is taken off again for what is kept. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    struct stat st;
    const char *kind = NULL;
    int e = errno;
    if (fd < 0 && e == ENXIO && stat(path, &st) == 0)
        kind = atf_file_type_name(st.st_mode);
    else if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
        kind = atf_file_type_name(st.st_mode);
    else if (fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0)
        return fd;
    else if (fd >= 0)
        e = errno;
    if (fd >= 0)
        close(fd);
    if (kind)
        atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create: %s, not a regular file", kind);
    else
        atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot create: %s", strerror(e));
    atf_error_set_file(err, path);
    return -1;
}

uint64_t atf_fd_data_end(int fd, uint64_t size)
{
#if defined(SEEK_DATA) && defined(SEEK_HOLE)
    uint64_t end = 0;
    off_t pos = 0;
    for (int i = 0; i < 4096; i++) {
        off_t d = lseek(fd, pos, SEEK_DATA);
        if (d < 0)
            return errno == ENXIO ? end : size;   /* ENXIO: no data at or after pos */
        off_t h = lseek(fd, d, SEEK_HOLE);
        if (h < 0)
            return size;
        end = (uint64_t)h;
        if ((uint64_t)h >= size)
            return size;
        pos = h;
    }
#else
    (void)fd;
#endif
    return size;
}

atf_status atf_blob_open(atf_blob *b, const char *path, int no_mmap, atf_error *err)
{
    return atf_blob_open_limit(b, path, no_mmap, 0, err);
}

atf_status atf_blob_open_limit(atf_blob *b, const char *path, int no_mmap, uint64_t limit, atf_error *err)
{
    memset(b, 0, sizeof *b);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
     * below, like every file that is not a regular one. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "%s, not a regular file", atf_file_type_name(st.st_mode));
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return atf_fail(err, ATF_E_LIMIT, ATF_NO_OFFSET, NULL, "file too large for this platform");
    }
    if (limit && (uint64_t)st.st_size > limit) {
        close(fd);
        return atf_fail(err, ATF_E_LIMIT, ATF_NO_OFFSET, NULL, "file is too large (%llu bytes, at most %llu)",
                        (unsigned long long)st.st_size, (unsigned long long)limit);
    }
    b->size = (size_t)st.st_size;
    b->data_end = atf_fd_data_end(fd, b->size);
    if (b->size == 0) {
        close(fd);
        b->data = (const uint8_t *)"";
        return ATF_OK;
    }
    if (!no_mmap) {
        void *m = mmap(NULL, b->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            (void)madvise(m, b->size, MADV_SEQUENTIAL);
            b->map = m;
            b->data = (const uint8_t *)m;
            close(fd);
            return ATF_OK;
        }
    }
    /* Fallback: the allocation is bounded by the real file size from fstat. */
    b->heap = malloc(b->size);
    if (!b->heap) {
        close(fd);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, "cannot allocate %zu bytes", b->size);
    }
    atf_status rs = read_fully(fd, (uint8_t *)b->heap, b->size, err);
    close(fd);
    if (rs) {
        free(b->heap);
        memset(b, 0, sizeof *b);
        return rs;
    }
    b->data = (const uint8_t *)b->heap;
    return ATF_OK;
}

void atf_blob_close(atf_blob *b)
{
    if (!b)
        return;
    if (b->map)
        munmap(b->map, b->size);
    free(b->heap);
    memset(b, 0, sizeof *b);
}

void atf_blob_release(const atf_blob *b, uint64_t offset, uint64_t n)
{
#ifdef MADV_DONTNEED
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || !b->map || offset > b->size || n > b->size - offset)
        return;
    uintptr_t mask = (uintptr_t)page - 1, at = (uintptr_t)b->data + (uintptr_t)offset;
    uintptr_t from = (at + mask) & ~mask, to = (at + (uintptr_t)n) & ~mask;
    if (to > from)
        (void)madvise((void *)from, to - from, MADV_DONTNEED);
#else
    (void)b;
    (void)offset;
    (void)n;
#endif
}

atf_status atf_blob_open_named(atf_blob *b, char **name_out, const char *path, const void *data, size_t size,
                               const char *name, int no_mmap, atf_error *err)
{
    *name_out = atf_strdup(path ? path : name ? name : "<memory>");
    if (!*name_out)
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    if (!path) {
        b->data = data ? (const uint8_t *)data : (const uint8_t *)"";
        b->size = size;
        b->data_end = size;
        return ATF_OK;
    }
    atf_status st = atf_blob_open(b, path, no_mmap, err);
    if (st)
        atf_error_set_file(err, path);
    return st;
}

int atf_parse_u64(const char *s, uint64_t *out)
{
    if (!*s)
        return 0;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

int atf_thread_dir_id(const char *name, uint64_t *id)
{
    if (strncmp(name, "thread_", 7) != 0 || !name[7] || (name[7] == '0' && name[8]))
        return 0;
    return atf_parse_u64(name + 7, id);
}

char *atf_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void atf_path_last(const char *path, size_t *start, size_t *end)
{
    size_t e = strlen(path);
    while (e > 1 && path[e - 1] == '/')
        e--;
    size_t s = e;
    while (s > 0 && path[s - 1] != '/')
        s--;
    *start = s;
    *end = e;
}

char *atf_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int slash = a > 0 && dir[a - 1] != '/';
    char *p = malloc(a + (size_t)slash + b + 1);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    if (slash)
        p[a] = '/';
    memcpy(p + a + slash, name, b + 1);
    return p;
}

atf_status atf_write_all(int fd, const void *src, size_t size, uint64_t offset, int positional)
{
    const uint8_t *p = (const uint8_t *)src;
    while (size > 0) {
        ssize_t k = positional ? pwrite(fd, p, size, (off_t)offset) : write(fd, p, size);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return ATF_E_IO;
        p += k;
        size -= (size_t)k;
        offset += (uint64_t)k;
    }
    return ATF_OK;
}

int atf_make_dirs(const char *path)
{
    char *p = atf_strdup(path);
    if (!p) {
        errno = ENOMEM;
        return -2;
    }
    for (char *q = p + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            free(p);
            errno = e;
            return -1;
        }
        *q = '/';
    }
    int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
    int e = errno;
    free(p);
    errno = e;
    return rc;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if ((flag == FTW_DP ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT)
        return -1;
    return 0;
}

int atf_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

int atf_bytebuf_reserve(atf_bytebuf *b, size_t more)
{
    if (b->cap - b->n >= more)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->n < more) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    uint8_t *p = (uint8_t *)realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}
