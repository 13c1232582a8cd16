/**
 * @file atf/rtc.h
 * The Ruler Trace Container (RTC, conformance/SPEC-RTC.md): LEB128, the two
 * Crc algorithms, Marker scan, a reader that recovers every intact Unit of a
 * file cut at either end or damaged in the middle, and a streaming writer.
 *
 * Thread safety: a reader or writer is used by one thread at a time; the
 * free functions are pure.
 */
#ifndef ATF_RTC_H
#define ATF_RTC_H

#include <stddef.h>
#include <stdint.h>

#include <atf/error.h>
#include <atf/finding.h>
#include <atf/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Bytes (SPEC-RTC 1-3) ---------------------------------------------------- */

#define ATF_RTC_MARKER_SIZE 1025u    /**< 04 then 1024 x B9 */
#define ATF_RTC_MARKER_BYTE 0xB9u
#define ATF_RTC_MAX_PAYLOAD 1024u    /**< no frame payload is larger than the Marker's */
#define ATF_RTC_MAX_LEB 10u          /**< LEB128 at most 10 bytes, value below 2^64 */
#define ATF_RTC_MIN_UNIT 2048u
#define ATF_RTC_FIRST_USER_ID 9u

/** Built-in stream ids (SPEC-RTC 1.1). */
enum {
    ATF_RTC_NOP = 0, ATF_RTC_PADDING = 1, ATF_RTC_MARKER = 2, ATF_RTC_INDEX = 3, ATF_RTC_SUBINDEX = 4,
    ATF_RTC_META = 5, ATF_RTC_SUBMETA = 6, ATF_RTC_PLATFORM = 7, ATF_RTC_CRC = 8
};

/**
 * Decodes the unsigned LEB128 at @p p (@p avail bytes readable).
 * @param value  receives the value (not NULL).
 * @param used   receives the bytes it took (not NULL).
 * @param shortest NULL, or receives 1 when the encoding is the shortest one.
 * @return ::ATF_OK; ::ATF_E_TRUNCATED when the bytes end inside it;
 *         ::ATF_E_LIMIT when it is longer than 10 bytes or not below 2^64.
 */
ATF_API atf_status atf_rtc_uleb_decode(const uint8_t *p, size_t avail, uint64_t *value, size_t *used,
                                       int *shortest);
/** The same for a signed LEB128 (sign in bit 6 of the last byte; must fit int64). */
ATF_API atf_status atf_rtc_sleb_decode(const uint8_t *p, size_t avail, int64_t *value, size_t *used);
/** Writes the shortest unsigned LEB128 of @p v to @p dst (room for 10 bytes). @return its size. */
ATF_API size_t atf_rtc_uleb_encode(uint8_t *dst, uint64_t v);
/** Writes the shortest signed LEB128 of @p v to @p dst (room for 10 bytes). @return its size. */
ATF_API size_t atf_rtc_sleb_encode(uint8_t *dst, int64_t v);

/** CRC-32/IEEE of @p n bytes, continuing @p crc (0 to start). Check value 0xCBF43926. */
ATF_API uint32_t atf_rtc_crc32(uint32_t crc, const void *p, size_t n);
/** The reference writer's variant (SPEC-RTC 8.1, "rtc-ref"), continuing @p crc (0 to start). Check 0x7EAD5C77. */
ATF_API uint32_t atf_rtc_crc_ref(uint32_t crc, const void *p, size_t n);

/**
 * The offset of the first whole Marker (04 then exactly 1024 x B9, not
 * followed by another B9) at or after @p from in @p data; @p size when there
 * is none. A Marker cut by the end of the data is not found (the reader
 * recognises one where a Unit must start).
 */
ATF_API size_t atf_rtc_find_marker(const uint8_t *data, size_t size, size_t from);

/** 1 when @p head (@p n bytes) starts like an RTC file or @p path ends in ".rtc". */
ATF_API int atf_rtc_sniff(const void *head, size_t n, const char *path);

/* ---- Reader (SPEC-RTC 8.2) ----------------------------------------------------- */

typedef struct atf_rtc_reader atf_rtc_reader;

typedef enum atf_rtc_state {
    ATF_RTC_COMPLETE = 0,        /**< read whole, no error */
    ATF_RTC_CRASH_TRUNCATED = 1, /**< cut at either end: every complete record read */
    ATF_RTC_DAMAGED = 2          /**< an error clause was found; the rest was read */
} atf_rtc_state;

/** One user record: the payloads of its frames (chained by `more`) joined. Valid until the reader is closed. */
typedef struct atf_rtc_record {
    uint64_t stream;            /**< the stream id */
    uint64_t offset;            /**< the offset of its first frame */
    const uint64_t *frames;     /**< the offset of every frame */
    size_t frame_count;
    const uint8_t *payload;
    size_t size;
    int has_time;               /**< 0: no clock, or the clock has no time yet */
    double time;                /**< seconds (SPEC-RTC 7) */
    const char *format;         /**< the stream's format ("raw" by default) */
    int has_gain, has_offset;
    double gain, value_offset;
    int big_endian;             /**< native byte order when the record was read */
} atf_rtc_record;

typedef struct atf_rtc_unit_info {
    uint64_t number;            /**< the Unit's number (its Index count) */
    uint64_t offset;            /**< its Marker's offset */
    uint64_t bytes;             /**< its bytes in the file */
    const char *crc;            /**< "crc-32", "rtc-ref", "crc-32-stop", "rtc-ref-stop", or NULL (cut) */
} atf_rtc_unit_info;

typedef struct atf_rtc_skip {
    uint64_t offset, bytes;
    const char *reason;         /**< before-first-marker, bad-marker, crc-mismatch, no-crc, damaged, cut, no-marker, no-index */
} atf_rtc_skip;

/** A finding of the reader: the one finding type (atf/finding.h; its clause
 * is NULL for a remark, its file NULL: the reader's input). Deprecated name,
 * kept for one release: write atf_finding. */
typedef atf_finding atf_rtc_finding;

typedef struct atf_rtc_summary {
    atf_rtc_state state;
    uint64_t file_size;
    int has_geometry;           /**< unit_size, subunit_size and origin are known */
    uint64_t unit_size, subunit_size;
    int64_t origin;             /**< offset of Unit 0's Marker (negative: cut at the start) */
    int byte_order;             /**< 0 unknown, 1 little, 2 big (first Platform read) */
    uint64_t records, units, streams, skipped_ranges, skipped_bytes;
    atf_error first_damage;     /**< the first error clause found */
} atf_rtc_summary;

/*
 * Memory and work of a reader. The file is mapped (or read) whole, and the
 * reader keeps what it reports until it is closed:
 *   - every record: about 120 bytes, plus 8 bytes per frame of it (its frame
 *     offsets), plus its payload when it has more than one frame (copied;
 *     a one-frame record points into the file);
 *   - 16 bytes per frame read (other than padding), for the index checks;
 *   - the stream definitions of Meta/meta (in proportion to their text), one
 *     entry per Marker found (at most size/1025) and per skipped range, and
 *     at most 10,000 findings (counts per clause stay exact).
 * Nothing is sized by a count or a length read from the file (lengths are
 * checked against 1024 and the bytes left before use), and a record being
 * continued holds only the frames read, so memory grows with content read,
 * at most about 135 bytes per byte of file: a file of the smallest records
 * (1-byte frames of a stream of fixed length 0), about 10 for records of
 * tens of bytes, well under 1 for records of a frame or more. Work is
 * linear in the file's size, except that the clocks are checked again
 * (T log T for the T streams in force) at each Meta and at each meta record
 * that defines a stream with a clock or a delta, or one a clock names.
 * Threads: the open finds the Markers in parts side by side and computes the
 * whole Units' Crcs on other threads ahead of its walk (one per CPU with at
 * least 16 MiB each, or ATF_RTC_THREADS=N in all; 5 bytes per Unit); all
 * are joined before the open returns, and what it reports is the same for
 * any number of threads (test_rtc_threads).
 */

/**
 * Opens and reads @p path whole (mapped or read). On success *@p out is the reader.
 * @return ::ATF_OK (the file may be cut or damaged: see the summary);
 *         ::ATF_E_IO (not a regular file, unreadable); ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_rtc_reader_open(atf_rtc_reader **out, const char *path, atf_error *err);
/** The same over @p size bytes at @p data, which the caller keeps until the reader is closed. */
ATF_API atf_status atf_rtc_reader_open_memory(atf_rtc_reader **out, const void *data, size_t size,
                                              atf_error *err);
/**
 * What atf_rtc_reader_open_with() has read so far, on the opening thread:
 * called after each Unit with the records completed in it, [@p first,
 * @p end). atf_rtc_reader_record(), _stream() and _summary() may be called
 * on @p r meanwhile (the summary and the stream definitions say what was
 * read so far); a record's payload that lies inside atf_rtc_reader_bytes()
 * stays valid until the reader is closed, any other (a record of several
 * frames, joined) only until the callback returns. @p restart (with
 * @p first = @p end = 0): the reader drops every record and reads the file
 * again from its start (its last Unit's final Crc did not match, SPEC-RTC
 * 8.2): nothing handed on before stands, and the records come again.
 * @return 0, or ::ATF_RTC_KEEP_RECORDS: with ::ATF_RTC_PROGRESS_ONLY, the
 *         reader keeps from now on every record, those just handed on
 *         included (returned at the first call, it keeps them all).
 */
typedef int (*atf_rtc_progress)(void *user, const atf_rtc_reader *r, size_t first, size_t end, int restart);
#define ATF_RTC_KEEP_RECORDS 1
/** atf_rtc_reader_open_with() @p flags: the records are handed to the callback only, not kept (the reader's
 *  memory does not grow with them; the summary counts them, atf_rtc_reader_record() has none after the open). */
#define ATF_RTC_PROGRESS_ONLY 1u
/** atf_rtc_reader_open() that hands each Unit's records to @p progress (NULL: none) while it reads. */
ATF_API atf_status atf_rtc_reader_open_with(atf_rtc_reader **out, const char *path, atf_rtc_progress progress,
                                            void *user, unsigned flags, atf_error *err);
/** atf_rtc_reader_open_memory() with @p progress and @p flags as atf_rtc_reader_open_with(). */
ATF_API atf_status atf_rtc_reader_open_memory_with(atf_rtc_reader **out, const void *data, size_t size,
                                                   atf_rtc_progress progress, void *user, unsigned flags,
                                                   atf_error *err);
/** The bytes the reader reads (the mapped file; *@p size their count): valid until it is closed. */
ATF_API const void *atf_rtc_reader_bytes(const atf_rtc_reader *r, uint64_t *size);
/** Closes @p r (NULL is allowed). */
ATF_API void atf_rtc_reader_close(atf_rtc_reader *r);
/** The next user record in the order they were completed. @return ::ATF_OK or ::ATF_E_NOT_FOUND at the end. */
ATF_API atf_status atf_rtc_reader_next_record(atf_rtc_reader *r, atf_rtc_record *rec);
ATF_API void atf_rtc_reader_summary(const atf_rtc_reader *r, atf_rtc_summary *s);
/** Record @p i (0 … summary.records − 1). */
ATF_API void atf_rtc_reader_record(const atf_rtc_reader *r, size_t i, atf_rtc_record *rec);
ATF_API void atf_rtc_reader_unit(const atf_rtc_reader *r, size_t i, atf_rtc_unit_info *u);
ATF_API void atf_rtc_reader_skip(const atf_rtc_reader *r, size_t i, atf_rtc_skip *s);
/** Stream definition @p i: its id, the offset of the Meta/meta record that first defined it, its JSON object text. */
ATF_API void atf_rtc_reader_stream(const atf_rtc_reader *r, size_t i, uint64_t *id, uint64_t *offset,
                                   const void **json_object);
/** Findings in the order found (at most a bounded number are kept; counts per clause are exact). */
ATF_API size_t atf_rtc_reader_finding_count(const atf_rtc_reader *r);
ATF_API void atf_rtc_reader_finding(const atf_rtc_reader *r, size_t i, atf_finding *f);
/** How many times @p clause ("RTC-FRM-001") was found. */
ATF_API uint64_t atf_rtc_reader_clause_count(const atf_rtc_reader *r, const char *clause);

/* ---- Writer ----------------------------------------------------------------------- */

typedef struct atf_rtc_writer atf_rtc_writer;

typedef enum atf_rtc_crc_kind { ATF_RTC_CRC_32 = 0, ATF_RTC_CRC_REF = 1 } atf_rtc_crc_kind;

typedef struct atf_rtc_writer_options {
    uint64_t unit_size;         /**< U, a power of 2 >= subunit_size; 0: 1 MiB */
    uint64_t subunit_size;      /**< u, a power of 2 >= 2048; 0: 128 KiB */
    atf_rtc_crc_kind crc;       /**< ATF_RTC_CRC_32 (default) or the reference's variant */
    int big_endian;             /**< write Platform and native values big-endian */
    /** 1: a user record of at most U/4 bytes that would cross the end of the
     *  current Unit begins the next Unit (the rest of this one is padded), so
     *  that every such record lies whole in one Unit and a reader starting at
     *  any Unit never takes the tail of a record for a whole one (R-E12).
     *  0: records are split across Units like the reference writer does. */
    int whole_records;
    unsigned reserved[3];
} atf_rtc_writer_options;
#define ATF_RTC_WRITER_OPTIONS_INIT { 0u, 0u, ATF_RTC_CRC_32, 0, 0, { 0u, 0u, 0u } }

/** Output callback: writes @p n bytes; returns 0 or -1. */
typedef int (*atf_rtc_sink)(void *user, const void *p, size_t n);

/**
 * Starts a writer that hands its bytes to @p sink. @p opts NULL: defaults.
 * @return ::ATF_OK, ::ATF_E_ARG (bad sizes), ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_rtc_writer_create(atf_rtc_writer **out, const atf_rtc_writer_options *opts,
                                         atf_rtc_sink sink, void *user, atf_error *err);
/**
 * Defines a user stream: @p definition is the stream's JSON object without
 * "id" (for example {"name":"log","format":"utf-8"}); "length" makes it
 * fixed-length. @return ::ATF_OK with *@p id, ::ATF_E_ARG (not an object), ::ATF_E_STATE.
 */
ATF_API atf_status atf_rtc_writer_stream(atf_rtc_writer *w, const char *definition, uint64_t *id, atf_error *err);
/**
 * Writes one record of stream @p id: split into frames of at most 1024 bytes
 * chained by `more`; a fixed-length stream takes exactly its length, in one
 * frame that never crosses a boundary (padding comes before it).
 * @return ::ATF_OK, ::ATF_E_ARG, ::ATF_E_LENGTH (not the stream's fixed
 *         length, or a fixed-length record that fits in no unit of these
 *         sizes: then at most one Unit of padding was written and the file
 *         stays valid), ::ATF_E_IO (the sink failed).
 */
ATF_API atf_status atf_rtc_writer_write(atf_rtc_writer *w, uint64_t id, const void *p, size_t n, atf_error *err);
/**
 * Writes one record of stream @p id whose payload is the @p head_size bytes
 * at @p head followed by the @p body_size bytes at @p body, as
 * atf_rtc_writer_write() of the two joined would (the same bytes), without
 * joining them first (a record header of its own before a caller's data).
 * Either part may be empty (NULL with size 0). Returns as atf_rtc_writer_write().
 */
ATF_API atf_status atf_rtc_writer_write2(atf_rtc_writer *w, uint64_t id, const void *head, size_t head_size,
                                         const void *body, size_t body_size, atf_error *err);
/** Writes the final Crc and frees @p w (NULL allowed). @return ::ATF_OK or ::ATF_E_IO. */
ATF_API atf_status atf_rtc_writer_finish(atf_rtc_writer *w, atf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ATF_RTC_H */
