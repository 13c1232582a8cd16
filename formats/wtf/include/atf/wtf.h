/**
 * @file atf/wtf.h
 * @brief The Web Tracing Framework's binary chunked file format (WTF,
 *        `.wtf-trace`): parsers for each structure, a file reader that
 *        decodes every event with its typed arguments, and a streaming
 *        writer. The normative description is conformance/SPEC-WTF.md.
 *
 * A binary WTF file is a 12-byte header (magic 0xDEADBEEF, the WTF version,
 * the format version 10) followed by chunks: a 24-byte chunk header, a part
 * table (type, offset, length per part) and the parts, each 4-byte aligned.
 * The first chunk holds the JSON file header; every later event chunk holds a
 * string table and one binary event buffer. Events are a u32 wire id, a u32
 * time (microseconds from the header's `timebase`) and arguments laid out as
 * the event's `wtf.event#define` says (wire id 1 is that define event).
 *
 * Rules shared with the ATF codec: little-endian loads byte by byte; every
 * length and offset checked before use, without overflow; errors say which
 * file, byte offset and field; nothing is allocated in proportion to a count
 * read from the file, only to bytes that are really there (a string table's
 * index is one u32 per NUL found in it; a define is parsed from its own
 * argument string).
 *
 * The legacy format (magic read as 0xEFBEADDE, big-endian, format 3) and the
 * JSON formats are recognised and refused with ::ATF_E_UNSUPPORTED and a
 * message that says which they are.
 */
#ifndef ATF_WTF_H
#define ATF_WTF_H

#include <stddef.h>
#include <stdint.h>

#include <atf/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Constants --------------------------------------------------------- */

#define ATF_WTF_MAGIC 0xDEADBEEFu           /**< bytes EF BE AD DE */
#define ATF_WTF_MAGIC_LEGACY 0xEFBEADDEu    /**< the legacy big-endian format, read little-endian */
#define ATF_WTF_FORMAT_VERSION 10u          /**< ChunkedFileFormat.VERSION */
#define ATF_WTF_VERSION_JS 0x90BA3800u      /**< what the JS library (2015.7.15) writes as WTF version */
#define ATF_WTF_FILE_HEADER_SIZE 12u
#define ATF_WTF_CHUNK_HEADER_SIZE 24u
#define ATF_WTF_PART_ENTRY_SIZE 12u
#define ATF_WTF_NO_TIME 0xFFFFFFFFu         /**< start/end of the header chunk */

/** Chunk types. */
#define ATF_WTF_CHUNK_FILE_HEADER 0x1u
#define ATF_WTF_CHUNK_EVENT_DATA 0x2u

/** Part types. */
#define ATF_WTF_PART_FILE_HEADER 0x10000u
#define ATF_WTF_PART_JSON_EVENTS 0x20000u
#define ATF_WTF_PART_LEGACY_EVENTS 0x20001u
#define ATF_WTF_PART_BINARY_EVENTS 0x20002u
#define ATF_WTF_PART_STRING_TABLE 0x30000u
#define ATF_WTF_PART_BINARY_RESOURCE 0x40000u
#define ATF_WTF_PART_STRING_RESOURCE 0x40001u

/** String ordinals with a meaning of their own. */
#define ATF_WTF_STRING_NULL 0xFFFFFFFFu
#define ATF_WTF_STRING_EMPTY 0xFFFFFFFEu

/** Event classes and flags (wtf.data.EventClass, wtf.data.EventFlag). */
#define ATF_WTF_CLASS_INSTANCE 0u
#define ATF_WTF_CLASS_SCOPE 1u
#define ATF_WTF_FLAG_HIGH_FREQUENCY 0x02u
#define ATF_WTF_FLAG_SYSTEM_TIME 0x04u
#define ATF_WTF_FLAG_INTERNAL 0x08u
#define ATF_WTF_FLAG_APPEND_SCOPE_DATA 0x10u
#define ATF_WTF_FLAG_BUILTIN 0x20u
#define ATF_WTF_FLAG_APPEND_FLOW_DATA 0x40u

/** Wire id of wtf.event#define, the only event a file does not define. */
#define ATF_WTF_WIRE_DEFINE 1u

/* ---- Fixed structures ---------------------------------------------------- */

typedef struct atf_wtf_file_header {
    uint32_t magic;
    uint32_t wtf_version;
    uint32_t format_version;
} atf_wtf_file_header;

typedef struct atf_wtf_part {
    uint32_t type;
    uint32_t offset;        /**< from the end of the chunk header, as stored */
    uint32_t length;        /**< as stored (not padded) */
    uint64_t file_offset;   /**< where the part starts in the file */
} atf_wtf_part;

/** Parts a chunk may list; a chunk with more is refused (SPEC-WTF: WTF-CHK-006). */
#define ATF_WTF_MAX_PARTS 64u

typedef struct atf_wtf_chunk {
    uint64_t offset;        /**< of the chunk header in the file */
    uint32_t id, type, length, start_time, end_time, part_count;
    uint32_t index;         /**< position in the file, 0 = the first chunk (set by the reader) */
    atf_wtf_part parts[ATF_WTF_MAX_PARTS];
} atf_wtf_chunk;

/**
 * Reads the 12-byte file header. Recognises the legacy format and JSON files
 * (first non-blank byte `{`) and refuses them with ::ATF_E_UNSUPPORTED.
 * @return ::ATF_OK, ::ATF_E_TRUNCATED (fewer than 12 bytes), ::ATF_E_MAGIC,
 *         ::ATF_E_UNSUPPORTED or ::ATF_E_VERSION (format version not 10).
 */
ATF_API atf_status atf_wtf_parse_file_header(const void *data, size_t size, atf_wtf_file_header *out,
                                             atf_error *err);

/**
 * Reads a chunk header and its part table at @p data (the chunk's first
 * byte, @p avail bytes available, at file offset @p file_offset). Checks
 * that the length holds the header and the table, that every part lies
 * inside the chunk at a 4-byte aligned offset, and that no two parts
 * overlap. It does not require the whole chunk to be available (compare
 * out->length with @p avail), nor the length to be a multiple of 4 (such a
 * chunk can be read; the next one cannot be placed: SPEC-WTF 6).
 * @return ::ATF_OK, ::ATF_E_TRUNCATED (the header or the table is cut),
 *         ::ATF_E_LENGTH, ::ATF_E_LIMIT (more than ::ATF_WTF_MAX_PARTS parts),
 *         ::ATF_E_OFFSET (a part outside the chunk, misaligned or overlapping).
 */
ATF_API atf_status atf_wtf_parse_chunk(const void *data, size_t avail, uint64_t file_offset, atf_wtf_chunk *out,
                                       atf_error *err);

/* ---- Argument types and event definitions -------------------------------- */

typedef enum atf_wtf_type {
    ATF_WTF_BOOL = 1,
    ATF_WTF_INT8,
    ATF_WTF_UINT8,
    ATF_WTF_INT16,
    ATF_WTF_UINT16,
    ATF_WTF_INT32,
    ATF_WTF_UINT32,
    ATF_WTF_FLOAT32,
    ATF_WTF_FLOWID,
    ATF_WTF_TIME32,
    ATF_WTF_ASCII,
    ATF_WTF_UTF8,
    ATF_WTF_ANY,
    ATF_WTF_CHAR,       /**< one byte: a character code 0..255 */
    ATF_WTF_WCHAR       /**< two bytes: a UTF-16 code unit */
} atf_wtf_type;

/** @return the type's name as written in a signature ("uint32"), or NULL. */
ATF_API const char *atf_wtf_type_name(atf_wtf_type t);

typedef struct atf_wtf_arg {
    const char *name;       /**< NUL-terminated, owned by the definition */
    atf_wtf_type type;
    unsigned array;         /**< 1 for `T[]` */
} atf_wtf_arg;

/** Arguments one event may declare (SPEC-WTF: WTF-DEF-004). */
#define ATF_WTF_MAX_ARGS 64u

/** One event type, from a `wtf.event#define` event (or built in: wire id 1). */
typedef struct atf_wtf_def {
    uint16_t wire_id;
    uint16_t event_class;   /**< ::ATF_WTF_CLASS_INSTANCE or ::ATF_WTF_CLASS_SCOPE */
    uint32_t flags;
    const char *name;       /**< "app#outer" */
    const char *signature;  /**< the define's `args` string as stored ("uint32 n, ascii s") */
    size_t arg_count;
    atf_wtf_arg args[ATF_WTF_MAX_ARGS];
    /** What the built-in event is, when the name is one of the built-ins of
     *  SPEC-WTF (wtf.zone#set, wtf.scope#leave, ...), else 0. */
    unsigned builtin;
    /** Set by the library's readers for a define they read (0 in a
     *  definition made with atf_wtf_parse_signature() alone: then every
     *  decoder takes its general path). fixed_size: bytes of every event of
     *  the type (header included) when it has no array argument, else 0;
     *  string_args / any_args: bit i set when argument i is ascii or utf8 or
     *  any / is any. */
    uint32_t fixed_size;
    uint64_t string_args, any_args;
} atf_wtf_def;

/** Built-in events the reader tracks (atf_wtf_def.builtin). */
enum {
    ATF_WTF_BI_NONE = 0,
    ATF_WTF_BI_DEFINE,
    ATF_WTF_BI_DISCONTINUITY,
    ATF_WTF_BI_ZONE_CREATE,
    ATF_WTF_BI_ZONE_DELETE,
    ATF_WTF_BI_ZONE_SET,
    ATF_WTF_BI_SCOPE_ENTER,
    ATF_WTF_BI_SCOPE_ENTER_TRACING,
    ATF_WTF_BI_SCOPE_LEAVE,
    ATF_WTF_BI_SCOPE_APPEND_DATA,
    ATF_WTF_BI_FLOW_BRANCH,
    ATF_WTF_BI_FLOW_EXTEND,
    ATF_WTF_BI_FLOW_TERMINATE,
    ATF_WTF_BI_FLOW_APPEND_DATA,
    ATF_WTF_BI_MARK,
    ATF_WTF_BI_TIME_STAMP,
    ATF_WTF_BI_TIME_RANGE_BEGIN,
    ATF_WTF_BI_TIME_RANGE_END
};

/**
 * Parses an argument signature ("uint32 n, ascii name, float32[] v"; empty
 * for none) into @p def's arguments. Names are copied into @p names
 * (@p names_cap bytes; a signature's names never need more than its own
 * length + 1 per argument). Accepts the spellings of SPEC-WTF 4.2: spaces
 * around commas, `T[]`, and no other.
 * @return ::ATF_OK, ::ATF_E_FIELD (an unknown type, a missing name, a
 *         duplicate name), ::ATF_E_LIMIT (more than ::ATF_WTF_MAX_ARGS).
 *         @p err->offset is the character position in the signature.
 */
ATF_API atf_status atf_wtf_parse_signature(const char *sig, size_t len, atf_wtf_def *def, char *names,
                                           size_t names_cap, atf_error *err);

/* ---- String tables -------------------------------------------------------- */

/** A chunk's string table: ordinal i is the i-th NUL-terminated string. */
typedef struct atf_wtf_strings {
    const char *data;       /**< the part's bytes */
    uint32_t size;          /**< part length */
    uint32_t count;         /**< strings (NUL-terminated) */
    uint32_t *starts;       /**< count offsets into data (owned) */
    uint32_t unterminated;  /**< 1: bytes after the last NUL (not a string; WTF-STR-001) */
} atf_wtf_strings;

/** Indexes a string table part (@p data may be NULL when @p size is 0). */
ATF_API atf_status atf_wtf_strings_init(atf_wtf_strings *st, const void *data, uint32_t size, atf_error *err);
/** Frees the index and leaves @p st empty (no data, size 0); NULL is allowed. */
ATF_API void atf_wtf_strings_free(atf_wtf_strings *st);
/**
 * Ordinal @p ord: ::ATF_OK with the string (NUL-terminated in the table) and
 * its length; ::ATF_WTF_STRING_NULL gives *s = NULL; ::ATF_WTF_STRING_EMPTY ""
 * @return ::ATF_E_RANGE for any other ordinal past the table.
 */
ATF_API atf_status atf_wtf_strings_get(const atf_wtf_strings *st, uint32_t ord, const char **s, uint32_t *len);

/* ---- Values --------------------------------------------------------------- */

/** One decoded argument. */
typedef struct atf_wtf_value {
    atf_wtf_type type;
    unsigned array;         /**< 1: an array (elements at @c elems) */
    unsigned is_null;       /**< null string / array (-1 length) / null `any` */
    int64_t i;              /**< signed types */
    uint64_t u;             /**< unsigned types, bool, flowId, time32, string ordinals */
    double f;               /**< float32 */
    const char *s;          /**< ascii / utf8 / any: the string (in the table), NULL if null */
    uint32_t s_len;
    uint32_t count;         /**< array: elements */
    const uint8_t *elems;   /**< array: the packed elements (elem size by type). Read: the file's bytes,
                                 little-endian, strings as ordinals (decode with atf_wtf_array_elem).
                                 Written: host order (see atf_wtf_writer_event). */
} atf_wtf_value;

/** @return bytes of one array element of @p t: 1 (bool, int8, uint8, char),
 *  2 (int16, uint16, wchar) or 4. */
ATF_API unsigned atf_wtf_elem_size(atf_wtf_type t);

/** Array element @p k of @p v (an array value) as a scalar value (strings resolved through @p st). */
ATF_API atf_status atf_wtf_array_elem(const atf_wtf_value *v, uint32_t k, const atf_wtf_strings *st,
                                      atf_wtf_value *out);

/* ---- Reading a file -------------------------------------------------------- */

typedef struct atf_wtf_reader atf_wtf_reader;

/** What one event is, as the reader gives it. */
typedef struct atf_wtf_event {
    uint64_t offset;        /**< in the file */
    uint32_t wire_id;
    uint32_t time;          /**< as stored */
    const atf_wtf_def *def; /**< its definition (valid until the next call that reads) */
    int32_t zone;           /**< zoneId of the last wtf.zone#set, -1 before any */
    uint32_t depth;         /**< open scopes of its zone before it (a leave: after it) */
    uint32_t chunk;         /**< index of its chunk in the file */
    uint32_t size;          /**< bytes of the event (header + arguments) */
    const uint8_t *args;    /**< the argument bytes */
} atf_wtf_event;

/** How a file ended (atf_wtf_reader_summary). */
typedef enum atf_wtf_state {
    ATF_WTF_COMPLETE = 0,       /**< every chunk whole, every event decoded */
    ATF_WTF_CRASH_TRUNCATED,    /**< cut inside its last chunk (or its header): what was there was read */
    ATF_WTF_DAMAGED             /**< something inside could not be read; the rest was */
} atf_wtf_state;

typedef struct atf_wtf_summary {
    atf_wtf_state state;
    uint64_t file_size;
    uint64_t chunks;             /**< chunk headers read */
    uint64_t event_chunks;
    uint64_t events;             /**< events decoded */
    uint64_t events_in_cut_chunk;/**< of those, from a chunk cut short */
    uint64_t bytes_unread;       /**< bytes at the end not part of anything read */
    uint64_t chunks_skipped;     /**< damaged chunks (events from their first bad one on not read) */
    uint64_t parts_not_read;     /**< JSON / legacy event buffers, unknown part types */
    atf_error first_damage;      /**< where the first damage is (code ATF_OK when none) */
} atf_wtf_summary;

/** Options of atf_wtf_reader_open(). Initialise with ::ATF_WTF_READ_OPTIONS_INIT. */
typedef struct atf_wtf_read_options {
    unsigned no_mmap;       /**< 1: read() the file instead of mapping it */
    unsigned reserved[3];
} atf_wtf_read_options;
#define ATF_WTF_READ_OPTIONS_INIT { 0u, { 0u, 0u, 0u } }

/**
 * Opens a WTF file: checks the file header and reads the first chunk's file
 * header part (JSON). Refuses non-regular files (::ATF_E_IO, never blocks).
 */
ATF_API atf_status atf_wtf_reader_open(atf_wtf_reader **out, const char *path, const atf_wtf_read_options *opts,
                                       atf_error *err);
/** The same over bytes in memory (borrowed until atf_wtf_reader_close()); @p name for errors. */
ATF_API atf_status atf_wtf_reader_open_memory(atf_wtf_reader **out, const void *data, size_t size,
                                              const char *name, atf_error *err);
ATF_API void atf_wtf_reader_close(atf_wtf_reader *r);

ATF_API const atf_wtf_file_header *atf_wtf_reader_header(const atf_wtf_reader *r);
/**
 * The file-header part's JSON text and length (not NUL-terminated), or NULL
 * when the file has no readable one. Parsed values: @p timebase (ms),
 * @p flags (bit 0 has_high_resolution_times, bit 1 times_as_count).
 */
ATF_API const char *atf_wtf_reader_header_json(const atf_wtf_reader *r, size_t *len);
ATF_API double atf_wtf_reader_timebase(const atf_wtf_reader *r);
ATF_API unsigned atf_wtf_reader_file_flags(const atf_wtf_reader *r);
#define ATF_WTF_FILE_HIGH_RES_TIMES 1u
#define ATF_WTF_FILE_TIMES_AS_COUNT 2u

/**
 * Moves to the next chunk. @return ::ATF_OK with @p out filled (for a chunk
 * cut short by the end of the file too: see atf_wtf_reader_chunk_cut()),
 * ::ATF_E_NOT_FOUND at the end, or an error for a chunk header or part
 * table that cannot be read. After such an error the next call goes on with
 * the following chunk when this one's length still places it (a length that
 * is a multiple of 4, covers the header and part table and ends inside the
 * file), and returns ::ATF_E_NOT_FOUND when it does not: nothing after a
 * length that cannot be trusted is read (SPEC-WTF 6). Either way the chunk
 * is counted in the summary's chunks_skipped.
 */
ATF_API atf_status atf_wtf_reader_next_chunk(atf_wtf_reader *r, const atf_wtf_chunk **out, atf_error *err);
/** 1 when the current chunk runs past the end of the file. */
ATF_API int atf_wtf_reader_chunk_cut(const atf_wtf_reader *r);
/** The current chunk's string table (empty when it has none). */
ATF_API const atf_wtf_strings *atf_wtf_reader_strings(const atf_wtf_reader *r);

/**
 * Next event of the current chunk's binary event buffer. Defines are applied
 * as they are read (they are events too, and returned). Zones and scope
 * depth are tracked. @return ::ATF_OK, ::ATF_E_NOT_FOUND at the end of the
 * buffer (or a cut buffer's last complete event), or an error for an event
 * that cannot be decoded (::ATF_E_FIELD for a wire id no define gave,
 * ::ATF_E_TRUNCATED, ::ATF_E_RANGE, ::ATF_E_LENGTH as atf_wtf_decode_event()):
 * the rest of that chunk is skipped (counted).
 */
ATF_API atf_status atf_wtf_reader_next_event(atf_wtf_reader *r, atf_wtf_event *ev, atf_error *err);

/**
 * The next events of the current chunk, at most @p cap of them, into
 * @p evs[0 .. *n): the same events, with the same fields, in the same order,
 * that as many atf_wtf_reader_next_event() calls would return, at a fraction
 * of the cost per event. A batch may hold fewer than @p cap events: a
 * define, a zone event or an event the general decoder reads is the last of
 * its batch (the definition an event points to stays valid until the next
 * call that reads, as there). @return as atf_wtf_reader_next_event(): with
 * ::ATF_OK, *n >= 1 (when @p cap > 0); otherwise *n is 0.
 */
ATF_API atf_status atf_wtf_reader_next_events(atf_wtf_reader *r, atf_wtf_event *evs, size_t cap, size_t *n,
                                              atf_error *err);

/** One part of a file read on several threads (atf_wtf_read_parts()). */
typedef struct atf_wtf_read_part {
    unsigned index;             /**< 0 .. count - 1, in file order */
    unsigned count;
    atf_wtf_reader *reader;     /**< the part's reader (closed by atf_wtf_read_parts) */
} atf_wtf_read_part;

/** Reads one part: atf_wtf_reader_next_chunk() and atf_wtf_reader_next_event(s)
 *  on @c part->reader, as on a reader of the whole file, until
 *  ::ATF_E_NOT_FOUND. Called on the part's own thread. Any status but
 *  ::ATF_OK is returned by atf_wtf_read_parts() (the other parts finish). */
typedef atf_status (*atf_wtf_part_fn)(void *user, const atf_wtf_read_part *part);

/**
 * Reads the file at @p path in parts side by side: @p fn is called once per
 * part, each on its own thread, with a reader of the part's chunks. Each
 * part's reader starts with the state the sequential reader has at its
 * first chunk (definitions, zone, scope depths), so the parts' chunks,
 * events, argument values, statuses and errors, taken in part order, are
 * the sequential reader's. @p threads: parts wanted (0: ATF_WTF_THREADS,
 * else one per CPU with at least 16 MiB each; at most 64, never more than
 * the chunks). @p sum: the whole file's summary (NULL: not wanted). Every
 * part but the last is first scanned side by side (its events without
 * their arguments: definitions, zones, depths), before any @p fn is called;
 * a part the scan cannot settle (an event it cannot read without what
 * came before, damage, a depth that would go below 0) is then read again
 * on one thread. @return ::ATF_OK, an open error, or the
 * first part's status that is not ::ATF_OK.
 */
ATF_API atf_status atf_wtf_read_parts(const char *path, unsigned threads, atf_wtf_part_fn fn, void *user,
                                      atf_wtf_summary *sum, atf_error *err);
/** The same over bytes in memory (borrowed until it returns); @p name for errors. */
ATF_API atf_status atf_wtf_read_parts_memory(const void *data, size_t size, const char *name, unsigned threads,
                                             atf_wtf_part_fn fn, void *user, atf_wtf_summary *sum, atf_error *err);

/** Argument @p i of @p ev decoded (strings resolved in the chunk's table). */
ATF_API atf_status atf_wtf_event_arg(const atf_wtf_reader *r, const atf_wtf_event *ev, size_t i,
                                     atf_wtf_value *out, atf_error *err);

/** The definition of @p wire_id, or NULL. */
ATF_API const atf_wtf_def *atf_wtf_reader_def(const atf_wtf_reader *r, uint32_t wire_id);

/** Counts so far; after the last chunk, the whole file's. */
ATF_API void atf_wtf_reader_summary(const atf_wtf_reader *r, atf_wtf_summary *out);

/**
 * Decodes one event from an event buffer without a reader: @p defs is
 * indexed by wire id (NULL entries: undefined), @p ndefs its length.
 * On ::ATF_OK, *size is the event's size.
 * @return ::ATF_OK, ::ATF_E_TRUNCATED (the event runs past @p len),
 *         ::ATF_E_NOT_FOUND (undefined wire id), ::ATF_E_RANGE (a string
 *         ordinal outside @p st), ::ATF_E_LENGTH (an array length below -1).
 */
ATF_API atf_status atf_wtf_decode_event(const atf_wtf_def *const *defs, size_t ndefs, const atf_wtf_strings *st,
                                        const uint8_t *buf, size_t len, size_t pos, uint32_t *size,
                                        atf_error *err);

/**
 * 1 when a file whose first @p n bytes (n <= 4 is enough) are @p head, at
 * @p path (may be NULL), is to be read as WTF: the magic of the chunked
 * format or of the legacy one, or a name ending in `.wtf-trace` (so that a
 * damaged WTF file is reported against WTF's rules, not ATF's).
 */
ATF_API int atf_wtf_sniff(const void *head, size_t n, const char *path);

/* ---- Writing --------------------------------------------------------------- */

typedef struct atf_wtf_writer atf_wtf_writer;

/** Options of atf_wtf_writer_open(). Initialise with ::ATF_WTF_WRITE_OPTIONS_INIT. */
typedef struct atf_wtf_write_options {
    uint32_t chunk_bytes;     /**< rotate to a new event chunk when the buffer reaches this; 0: 1 MiB */
    uint32_t wtf_version;     /**< 0: ::ATF_WTF_VERSION_JS */
    double timebase_ms;       /**< the header's timebase (ms; the reference writes the epoch's, or in node a
                                   monotonic clock's); 0 without @c timebase_given: now */
    const char *context_uri;  /**< contextInfo.uri; NULL: "file://" */
    const char *context_title;/**< contextInfo.title, or NULL */
    unsigned high_res_times;  /**< 1: flags ["has_high_resolution_times"] */
    unsigned timebase_given;  /**< 1: @c timebase_ms is the timebase even when it is 0 */
    unsigned reserved[3];
} atf_wtf_write_options;
#define ATF_WTF_WRITE_OPTIONS_INIT { 0u, 0u, 0.0, NULL, NULL, 0u, 0u, { 0u, 0u, 0u } }

/** Creates @p path (truncated) and writes the file header and the header chunk. */
ATF_API atf_status atf_wtf_writer_open(atf_wtf_writer **out, const char *path, const atf_wtf_write_options *opts,
                                       atf_error *err);
/**
 * Defines an event: @p name ("app#outer"), @p signature ("uint32 n, ascii s"),
 * class and flags. The built-ins the writer uses itself are defined for you.
 * @return ::ATF_OK and its wire id in @p wire_id (a name defined twice with
 *         the same signature gives the same id).
 */
ATF_API atf_status atf_wtf_writer_define(atf_wtf_writer *w, const char *name, const char *signature,
                                         uint16_t event_class, uint32_t flags, uint16_t *wire_id, atf_error *err);
/**
 * Writes one event: @p args holds one value per argument of its define, in
 * order, with the define's types (strings as .s / .s_len, NULL for null;
 * arrays as .count elements packed at .elems in host order, as a C array of
 * the type holds them (int16_t[], uint32_t[], float[]; the writer stores them
 * little-endian), strings as C string pointers `const char *const *` in .elems).
 * A reader's .elems are little-endian file bytes, not host order: on a
 * big-endian host convert them (atf_wtf_array_elem) before writing them again.
 * Rotates chunks as needed.
 */
ATF_API atf_status atf_wtf_writer_event(atf_wtf_writer *w, uint16_t wire_id, uint32_t time_us,
                                        const atf_wtf_value *args, size_t nargs, atf_error *err);

/** Built-in helpers (each defines its built-in on first use). */
ATF_API atf_status atf_wtf_writer_zone_create(atf_wtf_writer *w, uint16_t zone_id, const char *name,
                                              const char *type, const char *location, uint32_t time_us,
                                              atf_error *err);
ATF_API atf_status atf_wtf_writer_zone_set(atf_wtf_writer *w, uint16_t zone_id, uint32_t time_us, atf_error *err);
/**
 * wtf.zone#delete(zoneId): the zone ends; its id may then be created again
 * (with another name: the reference reader binds an id to the zone its
 * latest wtf.zone#create names). When it is the current zone, no zone is
 * current until the next atf_wtf_writer_zone_set().
 * @return ::ATF_OK, ::ATF_E_ARG (no such zone), or a write error.
 */
ATF_API atf_status atf_wtf_writer_zone_delete(atf_wtf_writer *w, uint16_t zone_id, uint32_t time_us,
                                              atf_error *err);
/** wtf.scope#enter(name): a scope named @p name (NULL: the null string) opens in the current zone. */
ATF_API atf_status atf_wtf_writer_scope_enter(atf_wtf_writer *w, const char *name, uint32_t time_us,
                                              atf_error *err);
ATF_API atf_status atf_wtf_writer_scope_leave(atf_wtf_writer *w, uint32_t time_us, atf_error *err);
/** wtf.scope#appendData(name, value): @p json_value is JSON text. */
ATF_API atf_status atf_wtf_writer_append_data(atf_wtf_writer *w, const char *name, const char *json_value,
                                              uint32_t time_us, atf_error *err);
ATF_API atf_status atf_wtf_writer_time_stamp(atf_wtf_writer *w, const char *name, const char *json_value,
                                             uint32_t time_us, atf_error *err);
/** wtf.trace#mark(name, value): a mark (the reference viewer's ruler; it
 *  lasts until the next mark). @p json_value is JSON text or NULL. */
ATF_API atf_status atf_wtf_writer_mark(atf_wtf_writer *w, const char *name, const char *json_value, uint32_t time_us,
                                       atf_error *err);

/** Writes out the current chunk (a reader sees everything written so far). */
ATF_API atf_status atf_wtf_writer_flush(atf_wtf_writer *w, atf_error *err);
/** Flushes and closes; @p w is freed whatever the result. NULL is allowed. */
ATF_API atf_status atf_wtf_writer_close(atf_wtf_writer *w, atf_error *err);
/** Events written so far (defines and built-ins included). */
ATF_API uint64_t atf_wtf_writer_event_count(const atf_wtf_writer *w);
/** Bytes written to the file so far (the current chunk, not flushed yet, excluded). */
ATF_API uint64_t atf_wtf_writer_bytes(const atf_wtf_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* ATF_WTF_H */
