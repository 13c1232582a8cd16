/* Encoders and decoders of every fixed-size ATF structure, both layouts.
 * Follows conformance/SPEC.md section order: index header, index event,
 * index footer, detail header, detail event, detail footer, ARM64 payload. */
#include <stdio.h>
#include <string.h>

#include <atf/event_encode.h>
#include <atf/format.h>
#include <atf/reader.h>

#include "bytes.h"
#include "internal.h"

static int valid_layout(unsigned v) { return v == ATF_LAYOUT_1 || v == ATF_LAYOUT_2; }

atf_status atf_header_layout(const void *src, size_t src_size, const char *magic,
                             atf_layout *layout, atf_error *err)
{
    const uint8_t *p = (const uint8_t *)src;
    if (!src || !magic)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    if (src_size < 8)
        return atf_fail(err, ATF_E_TRUNCATED, 0, "magic",
                        "file is %zu bytes, shorter than the 64-byte header", src_size);
    if (memcmp(p, magic, 4) != 0)
        return atf_fail(err, ATF_E_MAGIC, 0, "magic",
                        "magic is %02x %02x %02x %02x, expected \"%.4s\"", p[0], p[1], p[2], p[3],
                        magic);
    if (p[4] != ATF_ENDIAN_LITTLE)
        return atf_fail(err, ATF_E_ENDIAN, 4, "endian",
                        "endian is %u, only 1 (little-endian) is defined", p[4]);
    if (!valid_layout(p[5]))
        return atf_fail(err, ATF_E_VERSION, 5, "version",
                        "version is %u, expected 1 (layout 1) or 2 (layout 2)", p[5]);
    if (layout)
        *layout = (atf_layout)p[5];
    return ATF_OK;
}

int atf_header_prefix_ok(const void *src, size_t size, const char *magic)
{
    const uint8_t *p = (const uint8_t *)src;
    if (size >= ATF_INDEX_HEADER_SIZE || !magic || (size && !src))
        return 0;
    if (memcmp(p, magic, size < 4 ? size : 4) != 0)
        return 0;
    if (size > 4 && p[4] != ATF_ENDIAN_LITTLE)
        return 0;
    return size <= 5 || valid_layout(p[5]);
}

/* ---- Index header ---------------------------------------------------- */

atf_status atf_index_header_decode(atf_index_header *dst, const void *src, size_t src_size,
                                   atf_error *err)
{
    const uint8_t *p = (const uint8_t *)src;
    atf_layout layout;
    if (!dst)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    atf_status st = atf_header_layout(src, src_size, ATF_INDEX_MAGIC, &layout, err);
    if (st)
        return st;
    if (src_size < ATF_INDEX_HEADER_SIZE)
        return atf_fail(err, ATF_E_TRUNCATED, 0, "header",
                        "file is %zu bytes, shorter than the 64-byte index header", src_size);
    memset(dst, 0, sizeof *dst);
    dst->endian = p[4];
    dst->version = p[5];
    dst->arch = p[6];
    dst->os = p[7];
    dst->flags = atf_load_le32(p + 8);
    dst->thread_id = atf_load_le32(p + 12);
    dst->clock_type = p[16];
    if (layout == ATF_LAYOUT_1) {
        dst->event_size = atf_load_le32(p + 24);
        dst->event_count = atf_load_le32(p + 28);
        dst->reserved_nonzero = !atf_all_zero(p + 17, 7);
    } else {
        dst->event_size = atf_load_le32(p + 20);
        dst->event_count = atf_load_le64(p + 24);
        dst->reserved_nonzero = !atf_all_zero(p + 17, 3);
    }
    dst->events_offset = atf_load_le64(p + 32);
    dst->footer_offset = atf_load_le64(p + 40);
    dst->time_start_ns = atf_load_le64(p + 48);
    dst->time_end_ns = atf_load_le64(p + 56);
    if (dst->event_size != ATF_INDEX_EVENT_SIZE)
        return atf_fail(err, ATF_E_FIELD, layout == ATF_LAYOUT_1 ? 24 : 20, "event_size",
                        "event_size is %u, must be 32", dst->event_size);
    if (dst->events_offset < ATF_INDEX_HEADER_SIZE)
        return atf_fail(err, ATF_E_OFFSET, 32, "events_offset",
                        "events_offset is %llu, must be at least 64",
                        (unsigned long long)dst->events_offset);
    return ATF_OK;
}

atf_status atf_index_header_encode(void *dst, size_t dst_cap, const atf_index_header *h)
{
    uint8_t *p = (uint8_t *)dst;
    if (!dst || !h || dst_cap < ATF_INDEX_HEADER_SIZE || !valid_layout(h->version))
        return ATF_E_ARG;
    if (h->version == ATF_LAYOUT_1 && h->event_count > UINT32_MAX)
        return ATF_E_FIELD;
    memset(p, 0, ATF_INDEX_HEADER_SIZE);
    memcpy(p, ATF_INDEX_MAGIC, 4);
    p[4] = h->endian ? h->endian : ATF_ENDIAN_LITTLE;
    p[5] = h->version;
    p[6] = h->arch;
    p[7] = h->os;
    atf_store_le32(p + 8, h->flags);
    atf_store_le32(p + 12, h->thread_id);
    p[16] = h->clock_type;
    if (h->version == ATF_LAYOUT_1) {
        atf_store_le32(p + 24, h->event_size);
        atf_store_le32(p + 28, (uint32_t)h->event_count);
    } else {
        atf_store_le32(p + 20, h->event_size);
        atf_store_le64(p + 24, h->event_count);
    }
    atf_store_le64(p + 32, h->events_offset);
    atf_store_le64(p + 40, h->footer_offset);
    atf_store_le64(p + 48, h->time_start_ns);
    atf_store_le64(p + 56, h->time_end_ns);
    return ATF_OK;
}

/* ---- Index event ----------------------------------------------------- */

atf_status atf_index_event_decode(atf_index_event *dst, const void *src, size_t src_size,
                                  atf_layout layout)
{
    const uint8_t *p = (const uint8_t *)src;
    if (!dst || !src || !valid_layout(layout))
        return ATF_E_ARG;
    if (src_size < ATF_INDEX_EVENT_SIZE)
        return ATF_E_TRUNCATED;
    dst->timestamp_ns = atf_load_le64(p);
    dst->function_id = atf_load_le64(p + 8);
    if (layout == ATF_LAYOUT_1) {
        uint32_t seq = atf_load_le32(p + 28);
        dst->thread_id = atf_load_le32(p + 16);
        dst->event_kind = atf_load_le32(p + 20);
        dst->call_depth = atf_load_le32(p + 24);
        dst->detail_seq = seq == ATF_NO_DETAIL_L1 ? ATF_NO_DETAIL : seq;
        dst->reserved_nonzero = 0;
    } else {
        dst->detail_seq = atf_load_le64(p + 16);
        dst->event_kind = p[24];
        dst->thread_id = 0;
        dst->call_depth = 0;
        dst->reserved_nonzero = !atf_all_zero(p + 25, 7);
    }
    return ATF_OK;
}

atf_status atf_index_event_encode(void *dst, size_t dst_cap, const atf_index_event *e,
                                  atf_layout layout)
{
    if (!dst || !e || dst_cap < ATF_INDEX_EVENT_SIZE || !valid_layout(layout))
        return ATF_E_ARG;
    if (layout == ATF_LAYOUT_1 ? e->detail_seq != ATF_NO_DETAIL && e->detail_seq >= ATF_NO_DETAIL_L1
                               : e->event_kind > UINT8_MAX)
        return ATF_E_FIELD;
    atf_index_event_store(dst, e, layout);   /* the one encoder (atf/event_encode.h), checked here */
    return ATF_OK;
}

/* ---- Index footer ---------------------------------------------------- */

/* The frame both footers share (SPEC 2.5, 3.5): 64 bytes, a magic, a
 * checksum and an event count, then three u64 fields the caller loads, and
 * 24 reserved bytes. */
static atf_status footer_frame_decode(const uint8_t *p, size_t src_size, const char *magic, const char *what,
                                      uint32_t *checksum, uint64_t *event_count, uint8_t *reserved_nonzero,
                                      atf_error *err)
{
    if (src_size < 64)
        return atf_fail(err, ATF_E_TRUNCATED, 0, "footer", "%s footer needs 64 bytes, have %zu", what, src_size);
    if (memcmp(p, magic, 4) != 0)
        return atf_fail(err, ATF_E_MAGIC, 0, "footer.magic", "footer magic is not \"%s\"", magic);
    *checksum = atf_load_le32(p + 4);
    *event_count = atf_load_le64(p + 8);
    *reserved_nonzero = (uint8_t)!atf_all_zero(p + 40, 24);
    return ATF_OK;
}

static void footer_frame_encode(uint8_t *p, const char *magic, uint32_t checksum, uint64_t event_count)
{
    memset(p, 0, 64);
    memcpy(p, magic, 4);
    atf_store_le32(p + 4, checksum);
    atf_store_le64(p + 8, event_count);
}

atf_status atf_index_footer_decode(atf_index_footer *dst, const void *src, size_t src_size,
                                   atf_error *err)
{
    const uint8_t *p = (const uint8_t *)src;
    if (!dst || !src)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    atf_status st = footer_frame_decode(p, src_size, ATF_INDEX_FOOTER_MAGIC, "index", &dst->checksum,
                                        &dst->event_count, &dst->reserved_nonzero, err);
    if (st)
        return st;
    dst->time_start_ns = atf_load_le64(p + 16);
    dst->time_end_ns = atf_load_le64(p + 24);
    dst->bytes_written = atf_load_le64(p + 32);
    return ATF_OK;
}

atf_status atf_index_footer_encode(void *dst, size_t dst_cap, const atf_index_footer *f)
{
    uint8_t *p = (uint8_t *)dst;
    if (!dst || !f || dst_cap < ATF_INDEX_FOOTER_SIZE)
        return ATF_E_ARG;
    footer_frame_encode(p, ATF_INDEX_FOOTER_MAGIC, f->checksum, f->event_count);
    atf_store_le64(p + 16, f->time_start_ns);
    atf_store_le64(p + 24, f->time_end_ns);
    atf_store_le64(p + 32, f->bytes_written);
    return ATF_OK;
}

/* ---- Detail header --------------------------------------------------- */

atf_status atf_detail_header_decode(atf_detail_header *dst, const void *src, size_t src_size,
                                    atf_error *err)
{
    const uint8_t *p = (const uint8_t *)src;
    if (!dst)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    atf_status st = atf_header_layout(src, src_size, ATF_DETAIL_MAGIC, NULL, err);
    if (st)
        return st;
    if (src_size < ATF_DETAIL_HEADER_SIZE)
        return atf_fail(err, ATF_E_TRUNCATED, 0, "header",
                        "file is %zu bytes, shorter than the 64-byte detail header", src_size);
    dst->endian = p[4];
    dst->version = p[5];
    dst->arch = p[6];
    dst->os = p[7];
    dst->flags = atf_load_le32(p + 8);
    dst->thread_id = atf_load_le32(p + 12);
    dst->events_offset = atf_load_le64(p + 20);
    dst->event_count = atf_load_le64(p + 28);
    dst->bytes_length = atf_load_le64(p + 36);
    dst->index_seq_start = atf_load_le64(p + 44);
    dst->index_seq_end = atf_load_le64(p + 52);
    dst->reserved_nonzero = !atf_all_zero(p + 16, 4) || !atf_all_zero(p + 60, 4);
    if (dst->events_offset < ATF_DETAIL_HEADER_SIZE)
        return atf_fail(err, ATF_E_OFFSET, 20, "events_offset",
                        "events_offset is %llu, must be at least 64",
                        (unsigned long long)dst->events_offset);
    return ATF_OK;
}

atf_status atf_detail_header_encode(void *dst, size_t dst_cap, const atf_detail_header *h)
{
    uint8_t *p = (uint8_t *)dst;
    if (!dst || !h || dst_cap < ATF_DETAIL_HEADER_SIZE || !valid_layout(h->version))
        return ATF_E_ARG;
    memset(p, 0, ATF_DETAIL_HEADER_SIZE);
    memcpy(p, ATF_DETAIL_MAGIC, 4);
    p[4] = h->endian ? h->endian : ATF_ENDIAN_LITTLE;
    p[5] = h->version;
    p[6] = h->arch;
    p[7] = h->os;
    atf_store_le32(p + 8, h->flags);
    atf_store_le32(p + 12, h->thread_id);
    atf_store_le64(p + 20, h->events_offset);
    atf_store_le64(p + 28, h->event_count);
    atf_store_le64(p + 36, h->bytes_length);
    atf_store_le64(p + 44, h->index_seq_start);
    atf_store_le64(p + 52, h->index_seq_end);
    return ATF_OK;
}

/* ---- Detail event ---------------------------------------------------- */

atf_status atf_detail_event_decode(atf_detail_event *dst, const void *src, size_t src_size,
                                   atf_layout layout, atf_error *err)
{
    const uint8_t *p = (const uint8_t *)src;
    if (!dst || !src || !valid_layout(layout))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    if (src_size < ATF_DETAIL_EVENT_HEADER_SIZE)
        return atf_fail(err, ATF_E_TRUNCATED, 0, "total_length",
                        "%zu bytes left, a detail event header needs 24", src_size);
    dst->total_length = atf_load_le32(p);
    if (dst->total_length < ATF_DETAIL_EVENT_HEADER_SIZE)
        return atf_fail(err, ATF_E_LENGTH, 0, "total_length",
                        "total_length is %u, must be at least 24", dst->total_length);
    if (dst->total_length > src_size)
        return atf_fail(err, ATF_E_LENGTH, 0, "total_length",
                        "total_length is %u, only %zu bytes are left in the events section",
                        dst->total_length, src_size);
    dst->event_type = atf_load_le16(p + 4);
    dst->flags = atf_load_le16(p + 6);
    if (layout == ATF_LAYOUT_1) {
        dst->index_seq = atf_load_le32(p + 8);
        dst->thread_id = atf_load_le32(p + 12);
    } else {
        dst->index_seq = atf_load_le64(p + 8);
        dst->thread_id = 0;
    }
    dst->timestamp = atf_load_le64(p + 16);
    dst->payload_size = dst->total_length - ATF_DETAIL_EVENT_HEADER_SIZE;
    dst->payload = dst->payload_size ? p + ATF_DETAIL_EVENT_HEADER_SIZE : NULL;
    return ATF_OK;
}

atf_status atf_detail_event_encode(void *dst, size_t dst_cap, const atf_detail_event *e,
                                   atf_layout layout)
{
    uint8_t *p = (uint8_t *)dst;
    if (!dst || !e || !valid_layout(layout) || (e->payload_size && !e->payload))
        return ATF_E_ARG;
    if (e->payload_size > UINT32_MAX - ATF_DETAIL_EVENT_HEADER_SIZE)
        return ATF_E_LIMIT;
    uint32_t total = ATF_DETAIL_EVENT_HEADER_SIZE + e->payload_size;
    if (dst_cap < total)
        return ATF_E_ARG;
    if (layout == ATF_LAYOUT_1 && e->index_seq > UINT32_MAX)
        return ATF_E_FIELD;
    atf_store_le32(p, total);
    atf_store_le16(p + 4, e->event_type);
    atf_store_le16(p + 6, e->flags);
    if (layout == ATF_LAYOUT_1) {
        atf_store_le32(p + 8, (uint32_t)e->index_seq);
        atf_store_le32(p + 12, e->thread_id);
    } else {
        atf_store_le64(p + 8, e->index_seq);
    }
    atf_store_le64(p + 16, e->timestamp);
    if (e->payload_size)
        memcpy(p + ATF_DETAIL_EVENT_HEADER_SIZE, e->payload, e->payload_size);
    return ATF_OK;
}

/* ---- Detail footer --------------------------------------------------- */

atf_status atf_detail_footer_decode(atf_detail_footer *dst, const void *src, size_t src_size,
                                    atf_error *err)
{
    const uint8_t *p = (const uint8_t *)src;
    if (!dst || !src)
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    atf_status st = footer_frame_decode(p, src_size, ATF_DETAIL_FOOTER_MAGIC, "detail", &dst->checksum,
                                        &dst->event_count, &dst->reserved_nonzero, err);
    if (st)
        return st;
    dst->bytes_length = atf_load_le64(p + 16);
    dst->time_start_ns = atf_load_le64(p + 24);
    dst->time_end_ns = atf_load_le64(p + 32);
    return ATF_OK;
}

atf_status atf_detail_footer_encode(void *dst, size_t dst_cap, const atf_detail_footer *f)
{
    uint8_t *p = (uint8_t *)dst;
    if (!dst || !f || dst_cap < ATF_DETAIL_FOOTER_SIZE)
        return ATF_E_ARG;
    footer_frame_encode(p, ATF_DETAIL_FOOTER_MAGIC, f->checksum, f->event_count);
    atf_store_le64(p + 16, f->bytes_length);
    atf_store_le64(p + 24, f->time_start_ns);
    atf_store_le64(p + 32, f->time_end_ns);
    return ATF_OK;
}

/* ---- ARM64 function payload ------------------------------------------ */

atf_status atf_arm64_payload_decode(atf_arm64_payload *dst, const void *src, size_t src_size,
                                    atf_error *err)
{
    const uint8_t *p = (const uint8_t *)src;
    if (!dst || (!src && src_size))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, NULL);
    if (src_size < ATF_ARM64_PAYLOAD_FIXED_SIZE)
        return atf_fail(err, ATF_E_TRUNCATED, 0, "payload",
                        "ARM64 payload is %zu bytes, needs at least 100", src_size);
    dst->function_id = atf_load_le64(p);
    for (unsigned i = 0; i < 8; i++)
        dst->x[i] = atf_load_le64(p + 8 + 8 * i);
    dst->lr = atf_load_le64(p + 72);
    dst->fp = atf_load_le64(p + 80);
    dst->sp = atf_load_le64(p + 88);
    dst->stack_size = atf_load_le16(p + 96);
    dst->reserved = atf_load_le16(p + 98);
    if (dst->stack_size > ATF_ARM64_STACK_MAX)
        return atf_fail(err, ATF_E_FIELD, 96, "stack_size", "stack_size is %u, at most 256",
                        dst->stack_size);
    if (src_size != ATF_ARM64_PAYLOAD_FIXED_SIZE + (size_t)dst->stack_size)
        return atf_fail(err, ATF_E_LENGTH, 96, "stack_size",
                        "payload is %zu bytes, 100 + stack_size (%u) expected", src_size,
                        dst->stack_size);
    dst->stack = dst->stack_size ? p + ATF_ARM64_PAYLOAD_FIXED_SIZE : NULL;
    return ATF_OK;
}

size_t atf_arm64_payload_encode(void *dst, size_t dst_cap, const atf_arm64_payload *a)
{
    uint8_t *p = (uint8_t *)dst;
    if (!dst || !a || a->stack_size > ATF_ARM64_STACK_MAX || (a->stack_size && !a->stack))
        return 0;
    size_t total = ATF_ARM64_PAYLOAD_FIXED_SIZE + a->stack_size;
    if (dst_cap < total)
        return 0;
    atf_store_le64(p, a->function_id);
    for (unsigned i = 0; i < 8; i++)
        atf_store_le64(p + 8 + 8 * i, a->x[i]);
    atf_store_le64(p + 72, a->lr);
    atf_store_le64(p + 80, a->fp);
    atf_store_le64(p + 88, a->sp);
    atf_store_le16(p + 96, a->stack_size);
    atf_store_le16(p + 98, a->reserved);
    if (a->stack_size)
        memcpy(p + ATF_ARM64_PAYLOAD_FIXED_SIZE, a->stack, a->stack_size);
    return total;
}

/* ---- Names ----------------------------------------------------------- */

const char *atf_event_kind_name(uint32_t kind)
{
    static const char *const names[] = { "unknown", "call", "return", "exception" };
    return kind < 4 ? names[kind] : "unknown";
}

const char *atf_arch_name(uint32_t arch)
{
    static const char *const names[] = { "unknown", "x86_64", "arm64" };
    return arch < 3 ? names[arch] : "unknown";
}

const char *atf_os_name(uint32_t os)
{
    static const char *const names[] = { "unknown", "ios", "android", "macos", "linux", "windows" };
    return os < 6 ? names[os] : "unknown";
}

const char *atf_clock_name(uint32_t clock_type)
{
    static const char *const names[] = { "unknown", "mach_continuous", "qpc", "boottime" };
    return clock_type < 4 ? names[clock_type] : "unknown";
}

int atf_index_header_is_placeholder(const atf_index_header *h)
{
    return h->footer_offset == 0 ||
           (h->footer_offset == h->events_offset && h->event_count == 0 && h->time_start_ns == 0 &&
            h->time_end_ns == 0 && (h->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE) == 0);
}

int atf_detail_header_is_placeholder(const atf_detail_header *h)
{
    return h->event_count == 0 && h->bytes_length == 0;
}

size_t atf_file_state_describe(char *dst, size_t cap, int state, int header_truncated, uint64_t file_size,
                          uint64_t events, uint64_t trailing)
{
    const unsigned long long n = events, t = trailing;
    int k;
    switch ((atf_file_state)state) {
    case ATF_FILE_COMPLETE:
        k = t ? snprintf(dst, cap, "complete: %llu events, %llu stray bytes ignored", n, t)
              : snprintf(dst, cap, "complete: %llu events", n);
        break;
    case ATF_FILE_DAMAGED:
        k = snprintf(dst, cap,
                     "damaged (the header is finalized but there is no footer where it says): %llu complete "
                     "events recovered, %llu trailing bytes ignored",
                     n, t);
        break;
    default:
        k = header_truncated
            ? snprintf(dst, cap,
                       "crash-truncated (the file ends inside its 64-byte header, at %llu bytes): 0 events "
                       "recovered, %llu trailing bytes ignored",
                       (unsigned long long)file_size, t)
            : snprintf(dst, cap, "crash-truncated (no footer): %llu complete events recovered, %llu trailing "
                                 "bytes ignored",
                       n, t);
    }
    return k < 0 ? 0 : (size_t)k;
}
