/* Helpers shared by the fuzz targets; see fuzz_support.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_support.h"

/* ---- Property checks ---------------------------------------------------- */

void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\nfuzz property failed: %s:%d: %s: ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

void fz_check_error(const atf_error *err, atf_status st, const char *what)
{
    FZ_CHECK(st != ATF_OK && st < ATF_STATUS_COUNT_, "%s: status %d is not an error", what, (int)st);
    FZ_CHECK(err->code == st, "%s: error record says %s, the call returned %s", what,
             atf_status_name(err->code), atf_status_name(st));
    FZ_CHECK(err->message[0] != '\0', "%s: %s without a message", what, atf_status_name(st));
    FZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL && strchr(err->message, '\n') == NULL,
             "%s: message is not one terminated line", what);
    FZ_CHECK(strcmp(atf_strerror(st), "unknown status") != 0, "%s: status without a description", what);
}

/* ---- Parameters --------------------------------------------------------- */

fz_params fz_params_overlay(const uint8_t *data, size_t size)
{
    fz_params p = { data, size };
    return p;
}

uint8_t fz_u8(fz_params *p)
{
    if (p->left == 0)
        return 0;
    return p->data[--p->left];
}

/* The 16-, 32- and 64-bit reads of a byte source (fz_params from the end,
 * fz_stream from the front), built from its byte read PREFIX##u8: each
 * takes its low half first. */
#define FZ_WIDER_READS(PREFIX, SOURCE)                                  \
    uint16_t PREFIX##u16(SOURCE *s)                                     \
    {                                                                   \
        uint16_t v = PREFIX##u8(s);                                     \
        return (uint16_t)(v | (uint16_t)PREFIX##u8(s) << 8);            \
    }                                                                   \
    uint32_t PREFIX##u32(SOURCE *s)                                     \
    {                                                                   \
        uint32_t v = PREFIX##u16(s);                                    \
        return v | (uint32_t)PREFIX##u16(s) << 16;                      \
    }                                                                   \
    uint64_t PREFIX##u64(SOURCE *s)                                     \
    {                                                                   \
        uint64_t v = PREFIX##u32(s);                                    \
        return v | (uint64_t)PREFIX##u32(s) << 32;                      \
    }

FZ_WIDER_READS(fz_, fz_params)

uint64_t fz_range(fz_params *p, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = hi - lo, v;
    /* Use as few bytes as the range needs, so short tails still vary. */
    if (span < 0x100u)
        v = fz_u8(p);
    else if (span < 0x10000u)
        v = fz_u16(p);
    else if (span < 0x100000000ull)
        v = fz_u32(p);
    else
        v = fz_u64(p);
    return span == UINT64_MAX ? v : lo + v % (span + 1);
}

int fz_bool(fz_params *p) { return fz_u8(p) & 1; }

uint8_t fz_next_u8(fz_stream *s)
{
    return s->pos < s->size ? s->data[s->pos++] : 0;
}

FZ_WIDER_READS(fz_next_, fz_stream)

size_t fz_next_bytes(fz_stream *s, uint8_t *dst, size_t n)
{
    size_t k = fz_stream_left(s) < n ? fz_stream_left(s) : n;
    if (k)
        memcpy(dst, s->data + s->pos, k);
    s->pos += k;
    return k;
}

/* ---- Scratch directory -------------------------------------------------- */

static char scratch[512];

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void fz_remove_tree(const char *path)
{
    FZ_CHECK(scratch[0] && strncmp(path, scratch, strlen(scratch)) == 0, "refusing to remove %s", path);
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_scratch(void)
{
    if (scratch[0])
        nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fz_scratch_dir(void)
{
    if (scratch[0])
        return scratch;
    const char *bases[3] = { "/dev/shm", getenv("TMPDIR"), "/tmp" };
    for (int i = 0; i < 3; i++) {
        if (!bases[i] || !bases[i][0])
            continue;
        snprintf(scratch, sizeof scratch, "%s/atf-fuzz-%ld-XXXXXX", bases[i], (long)getpid());
        if (mkdtemp(scratch)) {
            atexit(remove_scratch);
            return scratch;
        }
    }
    scratch[0] = '\0';
    fz_fail(__FILE__, __LINE__, "mkdtemp", "cannot create a scratch directory: %s", strerror(errno));
}

const char *fz_fresh_dir(const char *name)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s", fz_scratch_dir(), name);
    fz_remove_tree(path);
    FZ_CHECK(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
    return path;
}

void fz_write_file(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FZ_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t k = write(fd, p, size);
        if (k < 0 && errno == EINTR)
            continue;
        FZ_CHECK(k > 0, "write %s: %s", path, strerror(errno));
        p += k;
        size -= (size_t)k;
    }
    close(fd);
}

uint8_t *fz_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        FZ_CHECK(buf != NULL, "out of memory reading %s", path);
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    fclose(f);
    *size = n;
    return buf;
}

/* ---- Whole files: the input, a prefix, one corrupted byte ---------------- */

void fz_check_file_variants(fz_open_check_fn open_check, const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    int verify = fz_u8(&p) % 4 != 0;
    open_check(data, size, verify, &p);

    size_t cut = (size_t)fz_range(&p, 0, size);
    uint8_t *prefix = malloc(cut ? cut : 1);
    FZ_CHECK(prefix != NULL, "oom");
    if (cut)
        memcpy(prefix, data, cut);
    open_check(prefix, cut, verify, &p);
    free(prefix);

    uint8_t *copy = malloc(size ? size : 1);
    FZ_CHECK(copy != NULL, "oom");
    if (size)
        memcpy(copy, data, size);
    if (size) {
        size_t at = (size_t)fz_range(&p, 0, size - 1);
        if (fz_bool(&p) && size > 64)
            at = fz_bool(&p) ? at % 64 : size - 1 - at % 64;
        copy[at] ^= (uint8_t)(fz_u8(&p) | 1);
        open_check(copy, size, verify, &p);
    }
    free(copy);
}

void fz_buf_put(fz_buf *b, const void *data, size_t n)
{
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        FZ_CHECK(b->p != NULL, "out of memory");
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

uint8_t *fz_buf_exact(fz_buf *b, size_t *n)
{
    uint8_t *e = malloc(b->n ? b->n : 1);
    FZ_CHECK(e != NULL, "out of memory");
    if (b->n)
        memcpy(e, b->p, b->n);
    *n = b->n;
    free(b->p);
    memset(b, 0, sizeof *b);
    return e;
}
