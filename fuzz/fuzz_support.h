/* Shared by the fuzz targets of every format: property checks that abort,
 * fuzz parameters taken from the end of the input, a per-process scratch
 * directory on tmpfs, whole-file variants (a crash at any byte, one
 * corrupted byte) and byte loads independent of the codec's. What belongs
 * to one format lives in its own folder: formats/<f>/fuzz/fuzz_<f>.h (its
 * models; ATF's also the session container).
 *
 * The same target source builds for libFuzzer, AFL++ and the replay driver
 * (fuzz/replay_driver.c); nothing here depends on the engine. */
#ifndef ATF_FUZZ_SUPPORT_H
#define ATF_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <atf/error.h>

#if defined(__GNUC__)
#  define FZ_NORETURN __attribute__((noreturn))
#  define FZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define FZ_NORETURN
#  define FZ_PRINTF(a, b)
#endif

/* The entry point every target defines (libFuzzer's signature). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- Property checks ---------------------------------------------------- */

/* Prints "fuzz property failed: FILE:LINE: COND: message" and aborts, so that
 * every engine (and the replay driver) records a crash. */
FZ_NORETURN void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    FZ_PRINTF(4, 5);

#define FZ_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond))                                                          \
            fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                  \
    } while (0)

/* An error record filled by a failing decoder must say what went wrong:
 * the same status, a message, and the field or an offset. */
void fz_check_error(const atf_error *err, atf_status st, const char *what);

/* ---- Parameters from the end of the input ------------------------------- */

/* Reads parameters backwards from the end of a buffer, so that the front of
 * a seed stays a real file. When the bytes run out every value is 0. */
typedef struct fz_params {
    const uint8_t *data;
    size_t left;            /* bytes not yet consumed, counted from the front */
} fz_params;

/* Parameters overlaying the whole input (the input stays intact). */
fz_params fz_params_overlay(const uint8_t *data, size_t size);
uint8_t fz_u8(fz_params *p);
uint16_t fz_u16(fz_params *p);
uint32_t fz_u32(fz_params *p);
uint64_t fz_u64(fz_params *p);
/* Value in [lo, hi] (inclusive); lo when hi < lo. */
uint64_t fz_range(fz_params *p, uint64_t lo, uint64_t hi);
int fz_bool(fz_params *p);

/* Reads a data stream forwards (the front of a structure-aware input). */
typedef struct fz_stream {
    const uint8_t *data;
    size_t size, pos;
} fz_stream;

uint8_t fz_next_u8(fz_stream *s);
uint16_t fz_next_u16(fz_stream *s);
uint32_t fz_next_u32(fz_stream *s);
uint64_t fz_next_u64(fz_stream *s);
/* Up to n bytes (fewer at the end); returns how many were copied. */
size_t fz_next_bytes(fz_stream *s, uint8_t *dst, size_t n);
static inline size_t fz_stream_left(const fz_stream *s) { return s->size - s->pos; }

/* ---- Scratch directory -------------------------------------------------- */

/* A directory private to this process (on /dev/shm when it is usable, else
 * $TMPDIR or /tmp), created on first use and removed at exit. Never NULL:
 * aborts when no directory can be created. */
const char *fz_scratch_dir(void);
/* An empty directory NAME inside the scratch directory (removed and
 * recreated); returns its path in a static buffer. */
const char *fz_fresh_dir(const char *name);
/* rm -rf PATH (PATH must be inside the scratch directory). */
void fz_remove_tree(const char *path);
/* Writes a whole file; aborts on I/O errors (the scratch space is ours). */
void fz_write_file(const char *path, const void *data, size_t size);
/* Reads a whole file into a malloc'd buffer; NULL if it cannot be read. */
uint8_t *fz_read_file(const char *path, size_t *size);

/* ---- Building files ------------------------------------------------------ */

/* A growing byte buffer (aborts when memory runs out). */
typedef struct fz_buf {
    uint8_t *p;
    size_t n, cap;
} fz_buf;

void fz_buf_put(fz_buf *b, const void *data, size_t n);
/* The bytes in a malloc'd buffer of exactly their size (so that ASan sees
 * any overread), *@p n their count; @p b is freed and emptied. */
uint8_t *fz_buf_exact(fz_buf *b, size_t *n);

/* ---- Whole files -------------------------------------------------------- */

/* A whole-file target: open_check on the input, on a prefix of it (a crash
 * at any byte) and on a copy with one corrupted byte, preferably in the
 * header or the footer; each copied into a buffer of exactly its size, so
 * that ASan sees any overread. Parameters come from the end of the input. */
typedef void (*fz_open_check_fn)(const uint8_t *data, size_t size, int verify, fz_params *p);
void fz_check_file_variants(fz_open_check_fn open_check, const uint8_t *data, size_t size);

static inline int fz_all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Little-endian loads, independent of the codec's. */
static inline uint16_t fz_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t fz_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t fz_le64(const uint8_t *p)
{
    return (uint64_t)fz_le32(p) | (uint64_t)fz_le32(p + 4) << 32;
}

#endif /* ATF_FUZZ_SUPPORT_H */
