/**
 * @file event_encode.h
 * Inline encoder of one index event for hot paths (the recorder's
 * producer stores every event through it, straight into its ring).
 *
 * atf_index_event_store() writes the same 32 bytes as
 * atf_index_event_encode() (format.h) without its checks, as four 8-byte
 * little-endian stores: with the fields the caller knows at compile time
 * (detail_seq = ::ATF_NO_DETAIL, a constant kind) the compiler folds them
 * into those stores. The caller guarantees what atf_index_event_encode()
 * would check: dst holds ::ATF_INDEX_EVENT_SIZE bytes, layout is
 * ::ATF_LAYOUT_1 or ::ATF_LAYOUT_2, event_kind <= UINT8_MAX in layout 2,
 * detail_seq < UINT32_MAX or ::ATF_NO_DETAIL in layout 1.
 */
#ifndef ATF_EVENT_ENCODE_H
#define ATF_EVENT_ENCODE_H

#include <stdint.h>
#include <string.h>

#include <atf/format.h>

static inline void atf_event_store_le64_(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, sizeof v);
}

/** The four little-endian 64-bit words of @p e in @p layout, as numbers
 *  (word k holds bytes 8k .. 8k+7): for a caller that stores them its own
 *  way (the recorder's ring: non-temporal stores). */
static inline void atf_index_event_words(const atf_index_event *e, atf_layout layout, uint64_t w[4])
{
    w[0] = e->timestamp_ns;
    w[1] = e->function_id;
    if (layout == ATF_LAYOUT_2) {
        /* u64 detail_seq @16; u8 kind @24 and seven zero bytes */
        w[2] = e->detail_seq;
        w[3] = (uint64_t)e->event_kind;
    } else {
        /* u32 thread_id @16, kind @20, depth @24, detail_seq @28 */
        uint64_t seq = e->detail_seq == ATF_NO_DETAIL ? ATF_NO_DETAIL_L1 : (uint32_t)e->detail_seq;
        w[2] = (uint64_t)e->thread_id | (uint64_t)e->event_kind << 32;
        w[3] = (uint64_t)e->call_depth | seq << 32;
    }
}

/** Encodes @p e at @p dst in @p layout (see the file comment for what the
 *  caller guarantees); the bytes equal atf_index_event_encode()'s. */
static inline void atf_index_event_store(void *dst, const atf_index_event *e, atf_layout layout)
{
    uint8_t *p = (uint8_t *)dst;
    uint64_t w[4];
    atf_index_event_words(e, layout, w);
    for (int k = 0; k < 4; k++)
        atf_event_store_le64_(p + 8 * k, w[k]);
}

#endif /* ATF_EVENT_ENCODE_H */
