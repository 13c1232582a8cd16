/* What the ATF fuzz targets share: the session container (fuzz/README.md),
 * independent models of the crash-recovery rules of index and detail files
 * (fuzz_atf_models.c) that several targets check the readers against, and
 * the invariant checks of open readers and of the merge. */
#ifndef ATF_FUZZ_ATF_H
#define ATF_FUZZ_ATF_H

#include <atf/format.h>
#include <atf/reader.h>
#include <atf/session.h>

#include "fuzz_support.h"

/* ---- Session container (fuzz/README.md, "Session container") ------------ */

#define FZ_CONTAINER_MAGIC "\xA7" "ATF"
enum { FZ_REC_MANIFEST = 'M', FZ_REC_INDEX = 'I', FZ_REC_DETAIL = 'D', FZ_REC_DIR = 'T' };

/* Unpacks the records at the front of @p data into directory @p dir.
 * Returns the number of bytes the records took; the rest are parameters. */
size_t fz_container_unpack(const uint8_t *data, size_t size, const char *dir);

/* ---- Independent models (fuzz_atf_models.c) --------------------------------- */

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

/* A footer target: the decoder and encoder of footer type TYPE (its
 * TYPE##_decode / TYPE##_encode) mapped onto fz_footer, its fields F0..F3 in
 * the order of TYPE's initializer after the checksum, and the entry point
 * that runs fz_check_footer() over them. */
#define FZ_FOOTER_TARGET(TYPE, WHAT, MAGIC, F0, F1, F2, F3)                                     \
    static atf_status decode(fz_footer *dst, const void *src, size_t size, atf_error *err)     \
    {                                                                                           \
        TYPE f = { 0 };                                                                         \
        atf_status st = TYPE##_decode(&f, src, size, err);                                      \
        *dst = (fz_footer){ f.checksum, { f.F0, f.F1, f.F2, f.F3 }, f.reserved_nonzero };       \
        return st;                                                                              \
    }                                                                                           \
    static atf_status encode(void *dst, size_t cap, const fz_footer *g)                         \
    {                                                                                           \
        TYPE f = { g->checksum, g->field[0], g->field[1], g->field[2], g->field[3], 0 };         \
        return TYPE##_encode(dst, cap, &f);                                                     \
    }                                                                                           \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                \
    {                                                                                           \
        static const fz_footer_codec codec = { WHAT, MAGIC, decode, encode };                   \
        fz_check_footer(&codec, data, size);                                                    \
        return 0;                                                                               \
    }

/* Opens @p data as an index (detail) file in memory with verification on or
 * off, checks the status against the model, and on success every invariant
 * the reader promises (sizes vs counts, decode -> encode -> same bytes, scan
 * results, time ranges, navigation). @p p supplies the probes. */
void fz_index_open_and_check(const uint8_t *data, size_t size, int verify, fz_params *p);
void fz_detail_open_and_check(const uint8_t *data, size_t size, int verify, fz_params *p);

/* The invariant checks alone, on a reader opened elsewhere (sessions). */
void fz_check_index_reader(const atf_index_reader *r, const uint8_t *data, size_t size, fz_params *p);
void fz_check_detail_reader(const atf_detail_reader *r, const uint8_t *data, size_t size, int verified,
                            fz_params *p);

/* Cross-thread merge of an open session: output equals a reference merge
 * (repeatedly the smallest (timestamp, thread id, seq) of the thread heads),
 * is a permutation of the input in per-thread order, and is sorted when
 * every thread is. Returns the number of merged events. */
uint64_t fz_check_merge(const atf_session *s);

#endif /* ATF_FUZZ_ATF_H */
