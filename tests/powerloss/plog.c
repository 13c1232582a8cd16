/* plog: an LD_PRELOAD interposer that logs every file-changing system call
 * a program makes under one directory, for the power-cut state generator
 * (crashstates.py). ALICE (OSDI 2014) and CrashMonkey (OSDI 2018) record a
 * program's calls the same way and build the states a crash can leave.
 *
 * Environment:
 *   ATF_PLOG       the log to write (text, one call a line; see below)
 *   ATF_PLOG_ROOT  only paths under this directory are logged (absolute)
 *   ATF_PLOG_SKIP  fault injection: KIND or KIND:N (KIND fsync, fdatasync or
 *                  syncfs; N counts from 1, none: every call) is not made
 *                  (returns 0, as if it had been) and not logged: the
 *                  harness must then find the states that break the promise.
 * The written bytes go to ATF_PLOG.data; a log line gives their place there.
 *
 * Log lines (paths relative to the root, %-escaped; ino = st_ino):
 *   C ino path         open(O_CREAT) made a new file
 *   T ino size         the file's size set (O_TRUNC, ftruncate, fallocate)
 *   W ino off len at   bytes written at off (at: offset in the .data file)
 *   M path             mkdir
 *   R old new          rename
 *   U path             unlink / rmdir
 *   S ino              fsync/fdatasync of a file
 *   D path             fsync of a directory
 *   G                  syncfs (everything on the file system)
 *   N text             a note from the program (atf_plog_note)
 * Also mkdirat, renameat(2), unlinkat. Not covered (none of the project's
 * writers use them): pwritev, copy_file_range, mmap'ed writes, O_SYNC /
 * O_DSYNC descriptors (their writes would be taken as unsynced: the
 * harness would report states that cannot happen, never miss one), and
 * calls the C library makes internally (remove(), stdio's writes).
 * Calls that fail are not logged. Threads are serialised by one lock, so
 * the log order is an order the calls could have taken effect in. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int log_fd = -1, data_fd = -1, inited;
static char root[PATH_MAX];
static size_t root_len;
static unsigned long long data_at;
static char skip_kind[16];
static long skip_n, skip_seen;

#define REAL(ret, name, ...)                                                                       \
    static ret (*real_##name)(__VA_ARGS__);                                                        \
    if (!real_##name)                                                                              \
        real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static void init(void)
{
    if (inited)
        return;
    inited = 1;
    const char *l = getenv("ATF_PLOG"), *r = getenv("ATF_PLOG_ROOT"), *s = getenv("ATF_PLOG_SKIP");
    if (!l || !r || !realpath(r, root))
        return;
    root_len = strlen(root);
    char dp[PATH_MAX];
    snprintf(dp, sizeof dp, "%s.data", l);
    int (*ropen)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    log_fd = ropen(l, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    data_fd = ropen(dp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    struct stat st;
    if (data_fd >= 0 && fstat(data_fd, &st) == 0)
        data_at = (unsigned long long)st.st_size;
    if (s) {
        const char *c = strchr(s, ':');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        if (n < sizeof skip_kind) {
            memcpy(skip_kind, s, n);
            skip_n = c ? atol(c + 1) : 0;
        }
    }
}

static void emit(const char *fmt, ...)
{
    char line[3 * PATH_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof line - 1)
        return;
    line[n++] = '\n';
    ssize_t (*w)(int, const void *, size_t) = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (w(log_fd, line, (size_t)n) != n)
        abort();
}

/* A path under the root, relative and %-escaped into out; 0 if not under it. */
static int rel(int dirfd, const char *path, char *out, size_t cap)
{
    char abs[2 * PATH_MAX + 2], dir[PATH_MAX];
    if (log_fd < 0 || !path)
        return 0;
    if (path[0] == '/') {
        snprintf(abs, sizeof abs, "%s", path);
    } else {
        if (dirfd == AT_FDCWD) {
            if (!getcwd(dir, sizeof dir))
                return 0;
        } else {
            char p[64];
            snprintf(p, sizeof p, "/proc/self/fd/%d", dirfd);
            ssize_t k = readlink(p, dir, sizeof dir - 1);
            if (k < 0)
                return 0;
            dir[k] = 0;
        }
        snprintf(abs, sizeof abs, "%s/%s", dir, path);
    }
    /* Resolve the directory part (the last component may not exist). */
    char *slash = strrchr(abs, '/');
    char base[2 * PATH_MAX + 2], rdir[PATH_MAX];
    snprintf(base, sizeof base, "%s", slash + 1);
    *slash = 0;
    if (!realpath(abs[0] ? abs : "/", rdir))
        return 0;
    char full[4 * PATH_MAX + 8];
    if (!strcmp(base, ".") || !base[0])
        snprintf(full, sizeof full, "%s", rdir);
    else
        snprintf(full, sizeof full, "%s/%s", rdir, base);
    if (strncmp(full, root, root_len) != 0 || (full[root_len] != '/' && full[root_len] != 0))
        return 0;
    const char *p = full[root_len] ? full + root_len + 1 : ".";
    size_t o = 0;
    for (; *p && o + 4 < cap; p++) {
        unsigned char c = (unsigned char)*p;
        if (c <= ' ' || c == '%' || c >= 127)
            o += (size_t)snprintf(out + o, cap - o, "%%%02X", c);
        else
            out[o++] = (char)c;
    }
    out[o] = 0;
    return 1;
}

/* The inode of fd if it is a file or directory under the root. */
static int fd_under_root(int fd, unsigned long long *ino, int *is_dir)
{
    char p[64], path[PATH_MAX], r[3 * PATH_MAX];
    if (log_fd < 0 || fd < 0)
        return 0;
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(p, path, sizeof path - 1);
    if (k < 0)
        return 0;
    path[k] = 0;
    if (strncmp(path, root, root_len) != 0 || (path[root_len] != '/' && path[root_len] != 0))
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 0;
    *ino = (unsigned long long)st.st_ino;
    if (is_dir)
        *is_dir = S_ISDIR(st.st_mode);
    (void)r;
    return 1;
}

static void log_open(int fd, int dirfd, const char *path, int flags, int existed)
{
    char r[3 * PATH_MAX];
    if (fd < 0 || !rel(dirfd, path, r, sizeof r))
        return;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    if ((flags & O_CREAT) && !existed)
        emit("C %llu %s", (unsigned long long)st.st_ino, r);
    if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
        emit("T %llu 0", (unsigned long long)st.st_ino);
}

static int exists_at(int dirfd, const char *path)
{
    struct stat st;
    return fstatat(dirfd, path, &st, 0) == 0;
}

#define OPEN_BODY(call, dirfd)                                                                     \
    mode_t mode = 0;                                                                               \
    if (flags & (O_CREAT | O_TMPFILE)) {                                                           \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode = (mode_t)va_arg(ap, int);                                                            \
        va_end(ap);                                                                                \
    }                                                                                              \
    pthread_mutex_lock(&mu);                                                                       \
    init();                                                                                        \
    int existed = log_fd >= 0 && (flags & O_CREAT) ? exists_at(dirfd, path) : 1;                   \
    int fd = call;                                                                                 \
    int e = errno;                                                                                 \
    if (log_fd >= 0 && (flags & (O_CREAT | O_TRUNC)))                                              \
        log_open(fd, dirfd, path, flags, existed);                                                 \
    pthread_mutex_unlock(&mu);                                                                     \
    errno = e;                                                                                     \
    return fd;

int open(const char *path, int flags, ...)
{
    REAL(int, open, const char *, int, ...);
    OPEN_BODY(real_open(path, flags, mode), AT_FDCWD)
}
int open64(const char *path, int flags, ...)
{
    REAL(int, open64, const char *, int, ...);
    OPEN_BODY(real_open64(path, flags, mode), AT_FDCWD)
}
int openat(int dirfd, const char *path, int flags, ...)
{
    REAL(int, openat, int, const char *, int, ...);
    OPEN_BODY(real_openat(dirfd, path, flags, mode), dirfd)
}
int openat64(int dirfd, const char *path, int flags, ...)
{
    REAL(int, openat64, int, const char *, int, ...);
    OPEN_BODY(real_openat64(dirfd, path, flags, mode), dirfd)
}
int creat(const char *path, mode_t mode)
{
    return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

static void log_write(int fd, const void *buf, ssize_t n, long long off)
{
    unsigned long long ino;
    if (n <= 0 || !fd_under_root(fd, &ino, NULL))
        return;
    ssize_t (*w)(int, const void *, size_t) = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (w(data_fd, buf, (size_t)n) != n)
        abort();
    emit("W %llu %lld %lld %llu", ino, off, (long long)n, data_at);
    data_at += (unsigned long long)n;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REAL(ssize_t, pwrite, int, const void *, size_t, off_t);
    pthread_mutex_lock(&mu);
    init();
    ssize_t k = real_pwrite(fd, buf, n, off);
    int e = errno;
    log_write(fd, buf, k, (long long)off);
    pthread_mutex_unlock(&mu);
    errno = e;
    return k;
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    return pwrite(fd, buf, n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(ssize_t, write, int, const void *, size_t);
    pthread_mutex_lock(&mu);
    init();
    /* The offset the bytes go to (O_APPEND: the end). */
    off_t at = -1;
    if (log_fd >= 0 && fd != log_fd && fd != data_fd && fd > 2) {
        int fl = fcntl(fd, F_GETFL);
        struct stat st;
        at = (fl >= 0 && (fl & O_APPEND) && fstat(fd, &st) == 0) ? st.st_size : lseek(fd, 0, SEEK_CUR);
    }
    ssize_t k = real_write(fd, buf, n);
    int e = errno;
    if (at >= 0)
        log_write(fd, buf, k, (long long)at);
    pthread_mutex_unlock(&mu);
    errno = e;
    return k;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    REAL(ssize_t, writev, int, const struct iovec *, int);
    pthread_mutex_lock(&mu);
    init();
    off_t at = log_fd >= 0 && fd > 2 ? lseek(fd, 0, SEEK_CUR) : -1;
    ssize_t k = real_writev(fd, iov, cnt), left = k;
    int e = errno;
    for (int i = 0; at >= 0 && left > 0 && i < cnt; i++) {
        ssize_t part = (ssize_t)iov[i].iov_len < left ? (ssize_t)iov[i].iov_len : left;
        log_write(fd, iov[i].iov_base, part, (long long)at);
        at += part;
        left -= part;
    }
    pthread_mutex_unlock(&mu);
    errno = e;
    return k;   /* the bytes written (the loop above counts them down in left) */
}

static void log_size(int fd)
{
    unsigned long long ino;
    struct stat st;
    if (fd_under_root(fd, &ino, NULL) && fstat(fd, &st) == 0)
        emit("T %llu %lld", ino, (long long)st.st_size);
}

int ftruncate(int fd, off_t len)
{
    REAL(int, ftruncate, int, off_t);
    pthread_mutex_lock(&mu);
    init();
    int rc = real_ftruncate(fd, len);
    int e = errno;
    if (rc == 0)
        log_size(fd);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}
int ftruncate64(int fd, off_t len)
{
    return ftruncate(fd, len);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
    REAL(int, fallocate, int, int, off_t, off_t);
    pthread_mutex_lock(&mu);
    init();
    int rc = real_fallocate(fd, mode, off, len);
    int e = errno;
    if (rc == 0)
        log_size(fd);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}
int posix_fallocate(int fd, off_t off, off_t len)
{
    REAL(int, posix_fallocate, int, off_t, off_t);
    pthread_mutex_lock(&mu);
    init();
    int rc = real_posix_fallocate(fd, off, len);
    if (rc == 0)
        log_size(fd);
    pthread_mutex_unlock(&mu);
    return rc;
}

static int skipped(const char *kind)
{
    if (!skip_kind[0] || strcmp(kind, skip_kind) != 0)
        return 0;
    skip_seen++;
    return skip_n == 0 || skip_seen == skip_n;
}

static int do_sync(int fd, const char *kind, int (*real)(int))
{
    pthread_mutex_lock(&mu);
    init();
    unsigned long long ino;
    int dir = 0;
    int mine = fd_under_root(fd, &ino, &dir);
    if (mine && skipped(kind)) {
        pthread_mutex_unlock(&mu);
        return 0;
    }
    int rc = real(fd);
    int e = errno;
    if (rc == 0 && mine) {
        if (!strcmp(kind, "syncfs")) {
            emit("G");
        } else if (dir) {
            char p[64], path[PATH_MAX], r[3 * PATH_MAX];
            snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
            ssize_t k = readlink(p, path, sizeof path - 1);
            if (k > 0) {
                path[k] = 0;
                if (rel(AT_FDCWD, path, r, sizeof r))
                    emit("D %s", r);
            }
        } else {
            emit("S %llu", ino);
        }
    }
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}

int fsync(int fd)
{
    REAL(int, fsync, int);
    return do_sync(fd, "fsync", real_fsync);
}
int fdatasync(int fd)
{
    REAL(int, fdatasync, int);
    return do_sync(fd, "fdatasync", real_fdatasync);
}
int syncfs(int fd)
{
    REAL(int, syncfs, int);
    return do_sync(fd, "syncfs", real_syncfs);
}

int mkdir(const char *path, mode_t mode)
{
    REAL(int, mkdir, const char *, mode_t);
    pthread_mutex_lock(&mu);
    init();
    int rc = real_mkdir(path, mode);
    int e = errno;
    char r[3 * PATH_MAX];
    if (rc == 0 && rel(AT_FDCWD, path, r, sizeof r))
        emit("M %s", r);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}

int rename(const char *a, const char *b)
{
    REAL(int, rename, const char *, const char *);
    pthread_mutex_lock(&mu);
    init();
    char ra[3 * PATH_MAX], rb[3 * PATH_MAX];
    int in_a = rel(AT_FDCWD, a, ra, sizeof ra), in_b = rel(AT_FDCWD, b, rb, sizeof rb);
    int rc = real_rename(a, b);
    int e = errno;
    if (rc == 0 && in_a && in_b)
        emit("R %s %s", ra, rb);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}

static int unlink_common(const char *path, int (*real)(const char *))
{
    pthread_mutex_lock(&mu);
    init();
    char r[3 * PATH_MAX];
    int in = rel(AT_FDCWD, path, r, sizeof r);
    int rc = real(path);
    int e = errno;
    if (rc == 0 && in)
        emit("U %s", r);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}
int unlink(const char *path)
{
    REAL(int, unlink, const char *);
    return unlink_common(path, real_unlink);
}
int rmdir(const char *path)
{
    REAL(int, rmdir, const char *);
    return unlink_common(path, real_rmdir);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
    REAL(int, mkdirat, int, const char *, mode_t);
    pthread_mutex_lock(&mu);
    init();
    int rc = real_mkdirat(dirfd, path, mode);
    int e = errno;
    char r[3 * PATH_MAX];
    if (rc == 0 && rel(dirfd, path, r, sizeof r))
        emit("M %s", r);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}

static int rename_common(int da, const char *a, int db, const char *b, unsigned flags)
{
    REAL(int, renameat2, int, const char *, int, const char *, unsigned);
    pthread_mutex_lock(&mu);
    init();
    char ra[3 * PATH_MAX], rb[3 * PATH_MAX];
    int in_a = rel(da, a, ra, sizeof ra), in_b = rel(db, b, rb, sizeof rb);
    int rc = real_renameat2(da, a, db, b, flags);
    int e = errno;
    if (rc == 0 && in_a && in_b)
        emit("R %s %s", ra, rb);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}
int renameat(int da, const char *a, int db, const char *b)
{
    return rename_common(da, a, db, b, 0);
}
int renameat2(int da, const char *a, int db, const char *b, unsigned flags)
{
    return rename_common(da, a, db, b, flags);
}

int unlinkat(int dirfd, const char *path, int flags)
{
    REAL(int, unlinkat, int, const char *, int);
    pthread_mutex_lock(&mu);
    init();
    char r[3 * PATH_MAX];
    int in = rel(dirfd, path, r, sizeof r);
    int rc = real_unlinkat(dirfd, path, flags);
    int e = errno;
    if (rc == 0 && in)
        emit("U %s", r);
    pthread_mutex_unlock(&mu);
    errno = e;
    return rc;
}

void atf_plog_note(const char *text);

/* For the program under test: a note in the log at this point (what it
 * has been told is durable). Found with dlsym(RTLD_DEFAULT, ...). */
void atf_plog_note(const char *text)
{
    pthread_mutex_lock(&mu);
    init();
    if (log_fd >= 0)
        emit("N %s", text);
    pthread_mutex_unlock(&mu);
}
