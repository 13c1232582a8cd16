/* Shared by every fuzz target: property checks that abort, fuzz parameters
 * taken from the end of the input, a per-process scratch directory on tmpfs,
 * the session container format (fuzz/README.md) and independent models of
 * the crash-recovery rules that several targets check the readers against.
 *
 * The same target source builds for libFuzzer, AFL++ and the replay driver
 * (fuzz/replay_driver.c); nothing here depends on the engine. */
#ifndef ATF_FUZZ_SUPPORT_H
#define ATF_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <atf/format.h>
#include <atf/reader.h>
#include <atf/session.h>

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

/* ---- Session container (fuzz/README.md, "Session container") ------------ */

#define FZ_CONTAINER_MAGIC "\xA7" "ATF"
enum { FZ_REC_MANIFEST = 'M', FZ_REC_INDEX = 'I', FZ_REC_DETAIL = 'D', FZ_REC_DIR = 'T' };

/* Unpacks the records at the front of @p data into directory @p dir.
 * Returns the number of bytes the records took; the rest are parameters. */
size_t fz_container_unpack(const uint8_t *data, size_t size, const char *dir);

/* ---- Independent models (fuzz_models.c) --------------------------------- */

/* What the format documents (conformance/SPEC.md, sections 2, 3, 6 and 7)
 * say a reader must make of a whole file: written from the rules, not from
 * the codec, and compared with the readers by every file-level target. */
typedef struct fz_model {
    atf_status status;        /* ATF_OK or the error open must return */
    int has_footer;
    uint64_t footer_offset;   /* valid if has_footer */
    uint64_t region_end;      /* end of the events region */
    uint64_t event_count;     /* events readable (valid if status == ATF_OK) */
    uint64_t events_end;
    int header_truncated;     /* shorter than the header but the start of a valid one: 0 events (SPEC 7a.12) */
    int finalized;            /* the header is not a placeholder (SPEC 2.1, 3.1) */
} fz_model;

/* REC-003: an index record that starts with "2ITA" and holds at byte 8 the
 * number of events before it is the first half of a torn footer. */
int fz_is_torn_footer(const uint8_t *rec, uint64_t events_before);

/* The identity checks every header shares, in their order: 8 bytes, magic,
 * endian byte, version byte, 64 bytes. */
atf_status fz_header_status(const uint8_t *data, size_t size, const char *magic);
fz_model fz_index_model(const uint8_t *data, size_t size, int verify);
fz_model fz_detail_model(const uint8_t *data, size_t size, int verify);

/* Number of complete length-prefixed detail events in [start, end) of @p d,
 * and the offset after the last one. */
uint64_t fz_detail_walk(const uint8_t *d, uint64_t start, uint64_t end, uint64_t *stop);

/* Opens @p data as an index (detail) file in memory with verification on or
 * off, checks the status against the model, and on success every invariant
 * the reader promises (sizes vs counts, decode -> encode -> same bytes, scan
 * results, time ranges, navigation). @p p supplies the probes. */
/* Index and detail footers share one shape: a 4-byte magic, a u32 checksum
 * at 4, four u64 fields at 8, 16, 24, 32 and reserved bytes 40..63. A
 * target maps its footer type onto this and fz_check_footer() checks the
 * properties: decode fails exactly for short input or a bad magic (with an
 * error record); decode -> encode gives back the bytes with the reserved
 * bytes zeroed (reserved_nonzero says whether they were not); encode needs
 * 64 bytes; encode -> decode is the identity for any values. */
typedef struct fz_footer {
    uint32_t checksum;
    uint64_t field[4];      /* the u64 at offsets 8, 16, 24, 32, in that order */
    uint8_t reserved_nonzero;
} fz_footer;

typedef struct fz_footer_codec {
    const char *what;       /* "index footer" */
    const char *magic;      /* 4 bytes */
    atf_status (*decode)(fz_footer *dst, const void *src, size_t size, atf_error *err);
    atf_status (*encode)(void *dst, size_t cap, const fz_footer *f);
} fz_footer_codec;

void fz_check_footer(const fz_footer_codec *c, const uint8_t *data, size_t size);

void fz_index_open_and_check(const uint8_t *data, size_t size, int verify, fz_params *p);
void fz_detail_open_and_check(const uint8_t *data, size_t size, int verify, fz_params *p);

/* The invariant checks alone, on a reader opened elsewhere (sessions). */
/* A whole-file target: open_check on the input, on a prefix of it (a crash
 * at any byte) and on a copy with one corrupted byte, preferably in the
 * header or the footer; each copied into a buffer of exactly its size, so
 * that ASan sees any overread. Parameters come from the end of the input. */
typedef void (*fz_open_check_fn)(const uint8_t *data, size_t size, int verify, fz_params *p);
void fz_check_file_variants(fz_open_check_fn open_check, const uint8_t *data, size_t size);

void fz_check_index_reader(const atf_index_reader *r, const uint8_t *data, size_t size, fz_params *p);
void fz_check_detail_reader(const atf_detail_reader *r, const uint8_t *data, size_t size, int verified,
                            fz_params *p);

/* Cross-thread merge of an open session: output equals a reference merge
 * (repeatedly the smallest (timestamp, thread id, seq) of the thread heads),
 * is a permutation of the input in per-thread order, and is sorted when
 * every thread is. Returns the number of merged events. */
uint64_t fz_check_merge(const atf_session *s);

static inline int fz_all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Little-endian loads, independent of the codec's. */
static inline uint32_t fz_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t fz_le64(const uint8_t *p)
{
    return (uint64_t)fz_le32(p) | (uint64_t)fz_le32(p + 4) << 32;
}

#endif /* ATF_FUZZ_SUPPORT_H */
