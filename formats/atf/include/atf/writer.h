/**
 * @file atf/writer.h
 * @brief Streaming index and detail writers.
 *
 * A writer creates its file with a placeholder header (event_count 0,
 * footer_offset 0), appends events through a large buffer, and at finalize
 * writes the footer (with an incremental CRC32-C of the events section) and
 * then rewrites the header. At every moment the bytes on disk are a valid
 * crash-truncated file: a header followed by a prefix of the events.
 *
 * Thread-safety: a writer belongs to one thread at a time; different writers
 * are independent.
 */
#ifndef ATF_WRITER_H
#define ATF_WRITER_H

#include <stdint.h>
#include <stddef.h>

#include <atf/format.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Options for both writers. Initialise with ::ATF_WRITER_OPTIONS_INIT. */
typedef struct atf_writer_options {
    atf_layout layout;      /**< ATF_LAYOUT_2 by default */
    uint8_t arch;           /**< header arch (default: the build's architecture) */
    uint8_t os;             /**< header os (default: the build's OS) */
    uint8_t clock_type;     /**< index header clock_type (default: boottime on Linux) */
    uint8_t checksum;       /**< 1: write CRC32-C in the footer (default); 0: write 0 */
    uint32_t thread_id;     /**< header thread_id */
    size_t buffer_size;     /**< write buffer, bytes (0: 1 MiB) */
    uint32_t reserved[4];   /**< must be zero */
} atf_writer_options;

#if defined(__aarch64__)
#  define ATF_HOST_ARCH ATF_ARCH_ARM64
#else
#  define ATF_HOST_ARCH ATF_ARCH_X86_64
#endif
#if defined(__APPLE__)
#  define ATF_HOST_OS ATF_OS_MACOS
#  define ATF_HOST_CLOCK ATF_CLOCK_MACH_CONTINUOUS
#elif defined(_WIN32)
#  define ATF_HOST_OS ATF_OS_WINDOWS
#  define ATF_HOST_CLOCK ATF_CLOCK_QPC
#elif defined(__ANDROID__)
#  define ATF_HOST_OS ATF_OS_ANDROID
#  define ATF_HOST_CLOCK ATF_CLOCK_BOOTTIME
#else
#  define ATF_HOST_OS ATF_OS_LINUX
#  define ATF_HOST_CLOCK ATF_CLOCK_BOOTTIME
#endif

#define ATF_WRITER_OPTIONS_INIT \
    { ATF_LAYOUT_2, ATF_HOST_ARCH, ATF_HOST_OS, ATF_HOST_CLOCK, 1u, 0u, 0u, { 0u, 0u, 0u, 0u } }

typedef struct atf_index_writer atf_index_writer;

/** Creates (truncates) @p path and writes the placeholder header. */
ATF_API atf_status atf_index_writer_open(atf_index_writer **out, const char *path,
                                         const atf_writer_options *opts, atf_error *err);
/** Appends one event. ::ATF_E_FIELD if a value does not fit the layout
 *  (layout 1: detail_seq >= UINT32_MAX other than ATF_NO_DETAIL). */
ATF_API atf_status atf_index_writer_append(atf_index_writer *w, const atf_index_event *ev);
/** Appends @p count events already encoded in the writer's layout (32 bytes each). */
ATF_API atf_status atf_index_writer_append_encoded(atf_index_writer *w, const void *src, size_t count);
/** Sets bit 0 (has_detail_file) of the header flags written at finalize. */
ATF_API void atf_index_writer_set_has_detail(atf_index_writer *w, int has_detail);
/** Pushes buffered events to the file (they become crash-recoverable). */
ATF_API atf_status atf_index_writer_flush(atf_index_writer *w);
/** Events appended so far. */
ATF_API uint64_t atf_index_writer_count(const atf_index_writer *w);
/** Timestamps of the first and last event appended. @return 0 (and leaves them) if none yet. */
ATF_API int atf_index_writer_time_range(const atf_index_writer *w, uint64_t *first, uint64_t *last);
/** Writes footer and final header, fsyncs if @p sync. Idempotent: later calls return the first result. */
ATF_API atf_status atf_index_writer_finalize(atf_index_writer *w, int sync, atf_error *err);
/** Finalizes if not done yet, closes and frees. NULL is allowed. @return finalize's status. */
ATF_API atf_status atf_index_writer_close(atf_index_writer *w);

typedef struct atf_detail_writer atf_detail_writer;

ATF_API atf_status atf_detail_writer_open(atf_detail_writer **out, const char *path,
                                          const atf_writer_options *opts, atf_error *err);
/**
 * Appends one detail event (header fields from @p ev, payload from
 * ev->payload/ev->payload_size; total_length is computed).
 * @param seq NULL or receives the event's detail sequence number.
 */
ATF_API atf_status atf_detail_writer_append(atf_detail_writer *w, const atf_detail_event *ev, uint64_t *seq);
ATF_API atf_status atf_detail_writer_flush(atf_detail_writer *w);
ATF_API uint64_t atf_detail_writer_count(const atf_detail_writer *w);
ATF_API atf_status atf_detail_writer_finalize(atf_detail_writer *w, int sync, atf_error *err);
ATF_API atf_status atf_detail_writer_close(atf_detail_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* ATF_WRITER_H */
