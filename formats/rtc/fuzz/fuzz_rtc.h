/* What the RTC fuzz targets and the RTC truncation check share
 * (fuzz_rtc_models.c): the harness's own LEB128, Crc and Marker code
 * (conformance/SPEC-RTC.md 1, 2, 8.1; no decoder shared with the codec),
 * the invariants every reader result must satisfy whatever the input, and a
 * builder of synthesized files.
 *
 * fz_rtc_check_reader() opens the reader on the bytes and checks, aborting on
 * the first violation:
 *  - the summary agrees with the getters (records, units, skips, bytes) and
 *    next_record() returns the records of atf_rtc_reader_record();
 *  - every record is a user stream's (id >= 9); its frames are in file
 *    order, inside a Unit the reader read and outside every skipped range;
 *    each frame's header (decoded here) names the record's stream, `more` is
 *    set on every frame but the last; the payload is exactly the frames'
 *    pieces (length field or the stream's fixed length) joined; no byte
 *    belongs to two records;
 *  - every Unit starts with an intact Marker, at a multiple of U from the
 *    origin, is at most U long; a Unit verified by "crc-32" or "rtc-ref"
 *    ends with a Crc frame whose value is that CRC (computed here) of the
 *    bytes it covers; Units do not overlap, skipped ranges do not overlap
 *    (a skip may lie inside a Unit: the rest of a damaged one), all are
 *    inside the file, and together they cover every byte of it (nothing is
 *    lost silently); no frame of a record lies in a skipped range;
 *  - every skipped range has bytes and a reason of SPEC-RTC 8.2;
 *  - findings name a clause of SPEC-RTC (or none: a remark), an offset in
 *    the file and one line; the state is damaged exactly when an error
 *    clause was found, crash-truncated exactly when otherwise RTC-REC-001
 *    or -002 was, complete (and nothing skipped) otherwise;
 *  - a second reader on the same bytes returns the same results, handing
 *    on each record as it reads it when it keeps none (ATF_RTC_PROGRESS_ONLY). */
#ifndef ATF_FUZZ_RTC_H
#define ATF_FUZZ_RTC_H

#include <stddef.h>
#include <stdint.h>

#include <atf/rtc.h>

#include "fuzz_support.h"

/* ---- Bytes ------------------------------------------------------------------ */

/* Unsigned LEB128 as SPEC-RTC 1 says: 1 and the value, 0 when the bytes end
 * inside it, -1 when it is longer than 10 bytes or not below 2^64. */
int fz_rtc_uleb(const uint8_t *p, size_t avail, uint64_t *v, size_t *used);
/* Signed LEB128 (SPEC-RTC 6): 1, 0 (cut) or -1 (over 10 bytes, not int64). */
int fz_rtc_sleb(const uint8_t *p, size_t avail, int64_t *v, size_t *used);
/* CRC-32/IEEE (ref = 0) or the reference's variant (ref = 1), bit by bit. */
uint32_t fz_rtc_crc(int ref, const uint8_t *p, size_t n);
/* 1 when a whole Marker (04, 1024 x B9, then no B9) starts at @p at. */
int fz_rtc_marker_at(const uint8_t *d, size_t n, size_t at);

/* ---- The reader's results ------------------------------------------------------- */

typedef struct fz_rtc_rec {
    uint64_t stream, offset, end;   /* end: the end of its last frame */
    size_t size, nframes;
    const uint64_t *frames;         /* into the reader */
    const uint8_t *payload;         /* into the reader */
} fz_rtc_rec;

typedef struct fz_rtc_read {
    atf_rtc_reader *r;              /* kept open: records point into it */
    atf_rtc_summary sum;
    fz_rtc_rec *recs;
    size_t nrec;
    int errors;                     /* error clauses found */
} fz_rtc_read;

/* Reads @p n bytes at @p d and checks the invariants above; the result
 * stays valid until fz_rtc_read_free(). */
void fz_rtc_check_reader(const uint8_t *d, size_t n, fz_rtc_read *out);
void fz_rtc_read_free(fz_rtc_read *rd);
/* How many times the reader found @p clause. */
uint64_t fz_rtc_count(const fz_rtc_read *rd, const char *clause);
/* 1 when @p clause ("RTC-FRM-001") is an error clause of SPEC-RTC. */
int fz_rtc_is_error_clause(const char *clause);

/* ---- Cuts of a complete file (SPEC-RTC 8.2) ------------------------------------- */

/* What a reader must make of a complete file (@p whole: read whole, no
 * finding of an error, not cut) cut to its bytes [a, b) with a = 0 or
 * b = n, derived from the uncut file's record and Unit tables:
 *  - cut at the end (a = 0): exactly the records whose frames all end by b,
 *    with their frames and payloads; complete when b is 0, n (not cut) or
 *    the end of a full Unit with no record continued across it, else crash-truncated
 *    (RTC-REC-001) with at most one skipped range, "cut", ending at b;
 *  - cut at the start (b = n): with m the first Unit at or after a, exactly
 *    the records with a frame at or after m, at their offsets minus a; one
 *    with frames before m is recovered as its tail (the frames from m, the
 *    end of its payload: SPEC-RTC 8.2 item 5); crash-truncated
 *    (RTC-REC-002; damaged only by a format clause of such a tail), one
 *    skipped range [0, m - a) "before-first-marker"; no Unit left: damaged
 *    (RTC-MRK-001), nothing recovered, unless what is left is only the
 *    start of a Marker (crash-truncated, RTC-REC-001).
 * @p d is the uncut file.
 * Returns NULL, or what differs (a static buffer). */
const char *fz_rtc_cut_check(const uint8_t *d, const fz_rtc_read *whole, size_t n, size_t a, size_t b,
                             const fz_rtc_read *cut);

/* ---- Synthesized files ------------------------------------------------------------ */

/* (fz_buf, fuzz_support.h, holds them.) */
void fz_rtc_put_u8(fz_buf *b, uint8_t v);
void fz_rtc_put_uleb(fz_buf *b, uint64_t v);
/* A frame: header (sid << 1 | more), the length when @p variable, payload. */
void fz_rtc_put_frame(fz_buf *b, uint64_t sid, int more, int variable, const void *p, size_t n);
/* Padding up to offset @p to (nop for 1 byte, else a padding frame). */
void fz_rtc_pad_to(fz_buf *b, size_t to);
/* Unit 0 of a file with Unit size @p U and unit size @p u: the Marker, the
 * Index (count 0; Index U back, index u back, Meta, Platform, Crc and
 * @p ids none yet: what our writer writes), the Meta record @p meta (one
 * frame, at most 1024 bytes) and a little-endian Platform. */
void fz_rtc_head(fz_buf *b, uint64_t U, uint64_t u, const char *meta, size_t meta_len, const uint64_t *ids,
                 size_t nids);
/* The final Crc of the Unit starting at @p unit_off: crc-32 (or the
 * reference's variant) of the bytes after its Marker, little-endian. */
void fz_rtc_put_crc(fz_buf *b, size_t unit_off, int ref);

#endif /* ATF_FUZZ_RTC_H */
