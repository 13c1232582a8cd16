/**
 * @file atf/reader.h
 * @brief Index and detail file readers with crash recovery.
 *
 * Readers map the file (mmap, with a read() fallback) or borrow a caller's
 * buffer, check the header and locate the footer in O(1) (O(n) for detail
 * files, whose offset table is built once at open), then give O(1) access to
 * any event by sequence number.
 *
 * Crash recovery (conformance/SPEC.md, section "Crash recovery"):
 *  - a footer with a valid magic is authoritative; a count that needs more
 *    bytes than the file holds is an error (::ATF_E_COUNT), never a reason to
 *    read past the end;
 *  - without a footer the count is floor((end - events_offset) / 32) for an
 *    index file, and the complete length-prefixed events for a detail file;
 *    a partial trailing record is ignored and reported in the info record.
 *    `end` is the file size, or header.footer_offset when the header was
 *    finalized and that offset lies inside the file. Two exceptions
 *    (conformance/SPEC.md 7a): trailing records that are all zero bytes (a
 *    filesystem's zero fill after a crash) are not events; and when the
 *    header is a placeholder and the last whole record is the first half of
 *    a torn footer (it starts with "2ITA" and holds at byte 8 the number of
 *    events before it), it is not an event;
 *  - a header is a placeholder or finalized as atf_index_header_is_placeholder()
 *    says; a file without a footer whose header is a placeholder is
 *    crash-truncated (every complete event is recovered, whatever the header
 *    holds); a finalized header without its footer is damage, and the
 *    complete events are recovered all the same (info.state says which); a
 *    finalized header whose footer is not where it says, but at the end of
 *    the file lined up with the events, gets that footer (footer_misplaced);
 *  - a file shorter than its 64-byte header whose bytes are the start of a
 *    valid header (an empty file among them: a writer killed before its first
 *    flush) opens as crash-truncated with 0 events (info.header_truncated);
 *  - footer checksum 0 means unchecked; a non-zero checksum is verified
 *    (CRC32-C; layout 1 also accepts CRC32/IEEE and reports which matched).
 *
 * Thread-safety: a reader is immutable after open; any number of threads may
 * call the const getters on one reader at once. Open/close are not shared.
 */
#ifndef ATF_READER_H
#define ATF_READER_H

#include <stdint.h>
#include <stddef.h>

#include <atf/fileio.h>
#include <atf/format.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Options for every reader. Initialise with ::ATF_READ_OPTIONS_INIT. */
typedef struct atf_read_options {
    unsigned verify;        /**< 1: verify the checksum and scan every event at open (default) */
    unsigned no_mmap;       /**< 1: read the file into memory instead of mapping it */
    unsigned threads;       /**< verification of an index or detail file at open, in parts side by side:
                                 0 (default) one thread per CPU, at most 8, with 16 MiB of events or more
                                 each; 1 the calling thread only; N: N parts (at most 8, and one per index
                                 event), the first on the calling thread (a detail file's parts each
                                 checksum their bytes and walk their events; the calling thread joins
                                 the walks into the one chain). The result is the same for any N. */
    unsigned reserved[5];   /**< must be zero */
} atf_read_options;
#define ATF_READ_OPTIONS_INIT { 1u, 0u, 0u, { 0u, 0u, 0u, 0u, 0u } }

/** What happened to the footer checksum at open. */
typedef enum atf_checksum_state {
    ATF_CHECKSUM_NO_FOOTER = 0,   /**< no footer: nothing to check */
    ATF_CHECKSUM_ZERO,            /**< footer checksum is 0: legacy, unchecked */
    ATF_CHECKSUM_NOT_VERIFIED,    /**< non-zero, verification not requested */
    ATF_CHECKSUM_CRC32C,          /**< verified: CRC32-C matched */
    ATF_CHECKSUM_CRC32_IEEE,      /**< verified: CRC32/IEEE matched (layout 1 only) */
    ATF_CHECKSUM_MISMATCH         /**< only reported when open continues despite it (never by default) */
} atf_checksum_state;

ATF_API const char *atf_checksum_state_name(atf_checksum_state s);

/**
 * What a reader found a file to be (conformance/SPEC.md section 6). The
 * same words are used by every tool: `atf info`, `validate`, `dump`, `merge`.
 */
typedef enum atf_file_state {
    ATF_FILE_COMPLETE = 0,        /**< "complete": the footer is there */
    ATF_FILE_CRASH_TRUNCATED,     /**< "crash-truncated": no footer, the header is a placeholder (or the file
                                       ends inside its header): every complete event recovered (REC-001) */
    ATF_FILE_DAMAGED              /**< "damaged": a finalized header but no footer where it says (REC-004);
                                       the complete events are still recovered */
} atf_file_state;

/** "complete", "crash-truncated" or "damaged". */
ATF_API const char *atf_file_state_name(atf_file_state s);

/** Results of the event scan done at open when `verify` is set (index files). */
typedef struct atf_index_scan {
    uint64_t bad_kind_count;       /**< events whose event_kind is not 1, 2 or 3 */
    uint64_t first_bad_kind_seq;
    uint64_t reserved_nonzero_count; /**< layout-2 events with non-zero reserved bytes */
    uint64_t first_reserved_nonzero_seq;
    uint64_t backwards_count;      /**< events whose timestamp is lower than the previous one */
    uint64_t first_backwards_seq;
    uint64_t linked_count;         /**< events with detail_seq != ATF_NO_DETAIL */
    uint64_t max_detail_seq;       /**< largest linked detail_seq (valid if linked_count) */
    uint64_t first_ts, last_ts;    /**< timestamps of the first and last event */
    uint64_t min_ts, max_ts;
} atf_index_scan;

/** Everything open learnt about an index file. */
typedef struct atf_index_info {
    atf_layout layout;
    uint64_t file_size;
    uint64_t event_count;      /**< events readable through get() */
    uint64_t events_end;       /**< offset after the last readable event */
    int has_footer;            /**< a footer with a valid magic was found */
    uint64_t footer_offset;    /**< where it was found (valid if has_footer) */
    int recovered;             /**< no footer: count derived from the file size */
    int header_finalized;      /**< the header is not a placeholder (atf_index_header_is_placeholder()) */
    int header_truncated;      /**< the file ends inside its 64-byte header (0 events; header fields past
                                    the end are 0; layout 0 when the version byte is missing) */
    int footer_misplaced;      /**< finalized header, but its footer was found at the end of the file, not
                                    where the header says (a wrong or half-rewritten header) */
    atf_file_state state;      /**< complete, crash-truncated or damaged */
    uint64_t trailing_bytes;   /**< bytes that are neither header, events nor footer (partial record, gap, junk after the footer) */
    atf_checksum_state checksum;
    int scanned;               /**< scan below is filled */
    atf_index_scan scan;
    unsigned verify_threads;   /**< threads that verified the events at open (atf_read_options.threads) */
} atf_index_info;

typedef struct atf_index_reader atf_index_reader;

/**
 * Opens an index file.
 * @param out   receives the reader; set to NULL on failure.
 * @param path  file to open.
 * @param opts  NULL for defaults.
 * @param err   NULL or receives file, offset, field and message on failure.
 * @return ::ATF_OK, or the first error found (the file is unusable).
 */
ATF_API atf_status atf_index_reader_open(atf_index_reader **out, const char *path,
                                         const atf_read_options *opts, atf_error *err);
/** Same on a caller's buffer, which must outlive the reader; @p name is used in errors. */
ATF_API atf_status atf_index_reader_open_memory(atf_index_reader **out, const void *data, size_t size,
                                                const char *name, const atf_read_options *opts,
                                                atf_error *err);
/** Releases the reader. NULL is allowed. */
ATF_API void atf_index_reader_close(atf_index_reader *r);

ATF_API const atf_index_header *atf_index_reader_header(const atf_index_reader *r);
/** @return the decoded footer, or NULL when the file has none. */
ATF_API const atf_index_footer *atf_index_reader_footer(const atf_index_reader *r);
ATF_API const atf_index_info *atf_index_reader_info(const atf_index_reader *r);
ATF_API uint64_t atf_index_reader_count(const atf_index_reader *r);
ATF_API const char *atf_index_reader_path(const atf_index_reader *r);
/** Raw bytes of the whole file (for validators and tools). */
ATF_API const uint8_t *atf_index_reader_bytes(const atf_index_reader *r, size_t *size);

/** Decodes event @p seq in O(1). @return ::ATF_E_RANGE if seq >= count. */
ATF_API atf_status atf_index_reader_get(const atf_index_reader *r, uint64_t seq, atf_index_event *ev);

/**
 * Finds the events with time in [t0, t1] by binary search, assuming
 * timestamps never go backwards (check info.scan.backwards_count).
 * Sets [*first, *last_excl). @return ::ATF_OK.
 */
ATF_API atf_status atf_index_reader_time_range(const atf_index_reader *r, uint64_t t0, uint64_t t1,
                                               uint64_t *first, uint64_t *last_excl);

/**
 * One line saying what @p in found, in the words every tool uses, e.g.
 * "crash-truncated (no footer): 1200 complete events recovered, 17 trailing
 * bytes ignored". Written to @p dst (NUL-terminated, at most @p cap bytes).
 * @return the length of the full line (as snprintf).
 */
ATF_API size_t atf_index_info_describe(char *dst, size_t cap, const atf_index_info *in);
/**
 * The same line from its parts, for tools that read files their own way
 * (the validator): @p state an ::atf_file_state, @p header_truncated 1 when
 * the file ends inside its header, @p events the complete events recovered
 * (or read), @p trailing the bytes ignored.
 */
ATF_API size_t atf_file_state_describe(char *dst, size_t cap, int state, int header_truncated, uint64_t file_size,
                                       uint64_t events, uint64_t trailing);

/* ---- Detail files ---------------------------------------------------- */

typedef struct atf_detail_info {
    atf_layout layout;
    uint64_t file_size;
    uint64_t event_count;      /**< events readable through get() */
    uint64_t events_end;       /**< offset after the last readable event */
    int has_footer;
    uint64_t footer_offset;
    int recovered;             /**< no footer: the complete events were recovered by walking the file */
    int header_finalized;      /**< header bytes_length != 0 or event_count != 0 */
    int header_truncated;      /**< the file ends inside its 64-byte header (0 events) */
    int footer_misplaced;      /**< finalized header, footer found at the end, not where the header says */
    atf_file_state state;      /**< complete, crash-truncated or damaged */
    uint64_t trailing_bytes;   /**< bytes that are neither header, events nor footer (partial or unparsable tail, junk after the footer) */
    atf_checksum_state checksum;
    uint64_t backwards_count;  /**< events whose timestamp is lower than the previous one */
    uint64_t first_backwards_seq;
    uint64_t first_ts, last_ts;
    uint64_t min_index_seq, max_index_seq; /**< valid if event_count */
    unsigned verify_threads;   /**< threads that verified the checksum and walked the events at open, the
                                    calling one included (atf_read_options.threads) */
} atf_detail_info;

typedef struct atf_detail_reader atf_detail_reader;

ATF_API atf_status atf_detail_reader_open(atf_detail_reader **out, const char *path,
                                          const atf_read_options *opts, atf_error *err);
ATF_API atf_status atf_detail_reader_open_memory(atf_detail_reader **out, const void *data, size_t size,
                                                 const char *name, const atf_read_options *opts,
                                                 atf_error *err);
ATF_API void atf_detail_reader_close(atf_detail_reader *r);

ATF_API const atf_detail_header *atf_detail_reader_header(const atf_detail_reader *r);
ATF_API const atf_detail_footer *atf_detail_reader_footer(const atf_detail_reader *r);
ATF_API const atf_detail_info *atf_detail_reader_info(const atf_detail_reader *r);
/** @copydoc atf_index_info_describe */
ATF_API size_t atf_detail_info_describe(char *dst, size_t cap, const atf_detail_info *in);
ATF_API uint64_t atf_detail_reader_count(const atf_detail_reader *r);
ATF_API const char *atf_detail_reader_path(const atf_detail_reader *r);
ATF_API const uint8_t *atf_detail_reader_bytes(const atf_detail_reader *r, size_t *size);

/** Decodes detail event @p seq in O(1); the payload view points into the reader. */
ATF_API atf_status atf_detail_reader_get(const atf_detail_reader *r, uint64_t seq, atf_detail_event *ev);
/** File offset of detail event @p seq, or UINT64_MAX if out of range. */
ATF_API uint64_t atf_detail_reader_offset(const atf_detail_reader *r, uint64_t seq);

/**
 * Forward navigation: the detail event linked from index event @p ev.
 * @return ::ATF_E_NOT_FOUND if ev has no link, ::ATF_E_RANGE if the link points
 *         past the detail file.
 */
ATF_API atf_status atf_detail_reader_follow(const atf_detail_reader *r, const atf_index_event *ev,
                                            atf_detail_event *out);
/** Backward navigation: the index event of detail event @p dev. ::ATF_E_RANGE if out of range. */
ATF_API atf_status atf_index_reader_follow(const atf_index_reader *r, const atf_detail_event *dev,
                                           atf_index_event *out);

#ifdef __cplusplus
}
#endif
#endif /* ATF_READER_H */
