/**
 * @file atf/format.h
 * @brief ATF v2 on-disk structures: constants, decoded records, and the
 *        encoders/decoders of every fixed-size structure, in both layouts.
 *
 * Layout 1 (version byte 1) has the field widths of the BH-002/BH-003
 * documents and of the ADA tracer's C writer; layout 2 (version byte 2) has
 * those of the ATF Format Specification. conformance/SPEC.md has the byte
 * tables. Decoders never trust their input: they check the size first, load
 * every field little-endian byte by byte, and report the first bad field
 * through ::atf_error (offset relative to @p base_offset).
 *
 * Decoded records are layout-neutral: a layout-1 "no detail" sentinel
 * (UINT32_MAX) decodes to ::ATF_NO_DETAIL, fields that exist only in one
 * layout are zero in the other.
 */
#ifndef ATF_FORMAT_H
#define ATF_FORMAT_H

#include <stdint.h>
#include <stddef.h>

#include <atf/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sizes and magics ------------------------------------------------- */
#define ATF_INDEX_HEADER_SIZE   64u
#define ATF_INDEX_EVENT_SIZE    32u
#define ATF_INDEX_FOOTER_SIZE   64u
#define ATF_DETAIL_HEADER_SIZE  64u
#define ATF_DETAIL_EVENT_HEADER_SIZE 24u
#define ATF_DETAIL_FOOTER_SIZE  64u

#define ATF_INDEX_MAGIC         "ATI2"
#define ATF_INDEX_FOOTER_MAGIC  "2ITA"
#define ATF_DETAIL_MAGIC        "ATD2"
#define ATF_DETAIL_FOOTER_MAGIC "2DTA"

#define ATF_ENDIAN_LITTLE       0x01u

/** Byte layouts, identified by the version byte at offset 5 of each header. */
typedef enum atf_layout {
    ATF_LAYOUT_1 = 1,   /**< BH-002/BH-003 widths, ADA tracer's writer */
    ATF_LAYOUT_2 = 2    /**< ATF Format Specification widths (default) */
} atf_layout;

/** Decoded "no linked detail event" (layout 1 stores UINT32_MAX). */
#define ATF_NO_DETAIL           UINT64_MAX
#define ATF_NO_DETAIL_L1        UINT32_MAX

#define ATF_INDEX_FLAG_HAS_DETAIL_FILE 0x1u

enum { ATF_EVENT_CALL = 1, ATF_EVENT_RETURN = 2, ATF_EVENT_EXCEPTION = 3 };
enum { ATF_DETAIL_FUNCTION_CALL = 3, ATF_DETAIL_FUNCTION_RETURN = 4 };
enum { ATF_ARCH_X86_64 = 1, ATF_ARCH_ARM64 = 2 };
enum { ATF_OS_IOS = 1, ATF_OS_ANDROID = 2, ATF_OS_MACOS = 3, ATF_OS_LINUX = 4, ATF_OS_WINDOWS = 5 };
enum { ATF_CLOCK_MACH_CONTINUOUS = 1, ATF_CLOCK_QPC = 2, ATF_CLOCK_BOOTTIME = 3 };

/* ---- Decoded records -------------------------------------------------- */

/** Index header (64 bytes). */
typedef struct atf_index_header {
    uint8_t  endian;         /**< @4, 1 = little */
    uint8_t  version;        /**< @5, 1 or 2: the layout */
    uint8_t  arch;           /**< @6 */
    uint8_t  os;             /**< @7 */
    uint32_t flags;          /**< @8, bit 0 has_detail_file */
    uint32_t thread_id;      /**< @12 */
    uint8_t  clock_type;     /**< @16 */
    uint32_t event_size;     /**< L1 @24, L2 @20; must be 32 */
    uint64_t event_count;    /**< L1 u32 @28, L2 u64 @24 */
    uint64_t events_offset;  /**< @32 */
    uint64_t footer_offset;  /**< @40 */
    uint64_t time_start_ns;  /**< @48 */
    uint64_t time_end_ns;    /**< @56 */
    uint8_t  reserved_nonzero; /**< decoder output: 1 if any reserved byte was not zero */
} atf_index_header;

/** Index event (32 bytes). */
typedef struct atf_index_event {
    uint64_t timestamp_ns;   /**< @0 */
    uint64_t function_id;    /**< @8 */
    uint64_t detail_seq;     /**< L1 u32 @28, L2 u64 @16; ::ATF_NO_DETAIL = none */
    uint32_t event_kind;     /**< L1 u32 @20, L2 u8 @24 */
    uint32_t thread_id;      /**< L1 only, u32 @16 */
    uint32_t call_depth;     /**< L1 only, u32 @24 */
    uint8_t  reserved_nonzero; /**< decoder output: L2 bytes 25..31 not all zero */
} atf_index_event;

/** Index footer (64 bytes), same in both layouts. */
typedef struct atf_index_footer {
    uint32_t checksum;       /**< @4, 0 = unchecked */
    uint64_t event_count;    /**< @8, authoritative */
    uint64_t time_start_ns;  /**< @16 */
    uint64_t time_end_ns;    /**< @24 */
    uint64_t bytes_written;  /**< @32 */
    uint8_t  reserved_nonzero;
} atf_index_footer;

/** Detail header (64 bytes), same in both layouts but for the version byte. */
typedef struct atf_detail_header {
    uint8_t  endian, version, arch, os;
    uint32_t flags;          /**< @8, reserved */
    uint32_t thread_id;      /**< @12 */
    uint64_t events_offset;  /**< @20 */
    uint64_t event_count;    /**< @28 */
    uint64_t bytes_length;   /**< @36 */
    uint64_t index_seq_start;/**< @44 */
    uint64_t index_seq_end;  /**< @52 */
    uint8_t  reserved_nonzero;
} atf_detail_header;

/** Detail event header (24 bytes) plus a view of its payload. */
typedef struct atf_detail_event {
    uint32_t total_length;   /**< @0, header + payload, >= 24 */
    uint16_t event_type;     /**< @4 */
    uint16_t flags;          /**< @6 */
    uint64_t index_seq;      /**< L1 u32 @8, L2 u64 @8 */
    uint32_t thread_id;      /**< L1 only, u32 @12 */
    uint64_t timestamp;      /**< @16 */
    const uint8_t *payload;  /**< total_length - 24 bytes; borrowed, may be NULL if empty */
    uint32_t payload_size;
} atf_detail_event;

/** Detail footer (64 bytes). */
typedef struct atf_detail_footer {
    uint32_t checksum;       /**< @4 */
    uint64_t event_count;    /**< @8 */
    uint64_t bytes_length;   /**< @16 */
    uint64_t time_start_ns;  /**< @24 */
    uint64_t time_end_ns;    /**< @32 */
    uint8_t  reserved_nonzero;
} atf_detail_footer;

/** ARM64 function payload: 100 fixed bytes + stack_size bytes of stack. */
#define ATF_ARM64_PAYLOAD_FIXED_SIZE 100u
#define ATF_ARM64_STACK_MAX 256u
typedef struct atf_arm64_payload {
    uint64_t function_id;    /**< @0 */
    uint64_t x[8];           /**< @8  x0..x7 */
    uint64_t lr;             /**< @72 */
    uint64_t fp;             /**< @80 */
    uint64_t sp;             /**< @88 */
    uint16_t stack_size;     /**< @96, <= 256 */
    uint16_t reserved;       /**< @98 */
    const uint8_t *stack;    /**< @100, stack_size bytes; borrowed */
} atf_arm64_payload;

/* ---- Codec ------------------------------------------------------------ */

/**
 * Reads the layout of a header: checks magic (@p magic, 4 bytes), endian and
 * version. @return ::ATF_OK and sets @p layout, or the error.
 */
ATF_API atf_status atf_header_layout(const void *src, size_t src_size, const char *magic,
                                     atf_layout *layout, atf_error *err);

/** Decodes an index header. @p err may be NULL. Checks magic, endian, version,
 *  event_size == 32 and that events_offset >= 64. */
ATF_API atf_status atf_index_header_decode(atf_index_header *dst, const void *src, size_t src_size,
                                           atf_error *err);
/** Encodes @p h into 64 bytes; the layout is h->version. Fails with ATF_E_FIELD
 *  if a value does not fit its layout (event_count > UINT32_MAX in layout 1). */
ATF_API atf_status atf_index_header_encode(void *dst, size_t dst_cap, const atf_index_header *h);

/** Decodes one 32-byte index event of @p layout (no range checks of values). */
ATF_API atf_status atf_index_event_decode(atf_index_event *dst, const void *src, size_t src_size,
                                          atf_layout layout);
/** Encodes one event; fails with ATF_E_FIELD if a value does not fit the layout. */
ATF_API atf_status atf_index_event_encode(void *dst, size_t dst_cap, const atf_index_event *e,
                                          atf_layout layout);

ATF_API atf_status atf_index_footer_decode(atf_index_footer *dst, const void *src, size_t src_size,
                                           atf_error *err);
ATF_API atf_status atf_index_footer_encode(void *dst, size_t dst_cap, const atf_index_footer *f);

ATF_API atf_status atf_detail_header_decode(atf_detail_header *dst, const void *src, size_t src_size,
                                            atf_error *err);
ATF_API atf_status atf_detail_header_encode(void *dst, size_t dst_cap, const atf_detail_header *h);

/**
 * Placeholder headers (conformance/SPEC.md 2.1, 3.1, errata E-16): what a
 * writer puts at the start of a file before it has written any event, and
 * what stays there when it crashes before the header is rewritten.
 *
 * An index header is a placeholder when `footer_offset` is 0, or when it
 * describes an empty file: `footer_offset` equal to `events_offset` (the ADA
 * tracer's C writer writes 64 there at open), `event_count` 0, both times 0
 * and `has_detail_file` clear. A detail header is a placeholder when its
 * `event_count` and `bytes_length` are 0. Every other header is finalized.
 * A file whose header is a placeholder and that has no footer is
 * crash-truncated, never damaged.
 * @return 1 for a placeholder, 0 for a finalized header.
 */
ATF_API int atf_index_header_is_placeholder(const atf_index_header *h);
/** @copydoc atf_index_header_is_placeholder */
ATF_API int atf_detail_header_is_placeholder(const atf_detail_header *h);

/**
 * Whether @p size bytes (fewer than a 64-byte header) can be the start of a
 * valid header with @p magic: the magic, `endian` 1 and `version` 1 or 2, as
 * far as the bytes go (0 bytes always can). Such a file is what a writer
 * leaves when it is killed before its first flush, or inside the header
 * write: crash-truncated with 0 events (SPEC 6, REC-001; 7a.12).
 * @return 1 if it can, 0 if not (or @p size >= 64).
 */
ATF_API int atf_header_prefix_ok(const void *src, size_t size, const char *magic);

/** Decodes the 24-byte header of a detail event starting at @p src and checks
 *  24 <= total_length <= src_size; the payload view points into @p src. */
ATF_API atf_status atf_detail_event_decode(atf_detail_event *dst, const void *src, size_t src_size,
                                           atf_layout layout, atf_error *err);
/** Encodes header + payload (total_length = 24 + payload_size). */
ATF_API atf_status atf_detail_event_encode(void *dst, size_t dst_cap, const atf_detail_event *e,
                                           atf_layout layout);

ATF_API atf_status atf_detail_footer_decode(atf_detail_footer *dst, const void *src, size_t src_size,
                                            atf_error *err);
ATF_API atf_status atf_detail_footer_encode(void *dst, size_t dst_cap, const atf_detail_footer *f);

/** Decodes an ARM64 function payload; the payload must be exactly
 *  100 + stack_size bytes and stack_size <= 256. */
ATF_API atf_status atf_arm64_payload_decode(atf_arm64_payload *dst, const void *src, size_t src_size,
                                            atf_error *err);
/** @return bytes written (100 + stack_size), or 0 if it does not fit or stack_size > 256. */
ATF_API size_t atf_arm64_payload_encode(void *dst, size_t dst_cap, const atf_arm64_payload *p);

/** Names for printing; never NULL ("unknown" for unlisted values). */
ATF_API const char *atf_event_kind_name(uint32_t kind);
ATF_API const char *atf_arch_name(uint32_t arch);
ATF_API const char *atf_os_name(uint32_t os);
ATF_API const char *atf_clock_name(uint32_t clock_type);

#ifdef __cplusplus
}
#endif
#endif /* ATF_FORMAT_H */
