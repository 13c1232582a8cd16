/* What every part of the recorder uses: cache-line and branch hints, the
 * byte order of ring slots, the memory-order shorthands (not installed). */
#ifndef ATF_REC_BASE_H
#define ATF_REC_BASE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define REC_LINE 64
#define REC_ALIGNED __attribute__((aligned(REC_LINE)))
#define REC_LIKELY(x) __builtin_expect(!!(x), 1)
#define REC_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define REC_DEAD_ID UINT64_MAX   /* live_id of a stopped recorder: never a TLS value */
#define REC_BLOCK 4096u          /* O_DIRECT offset/length/address alignment used */

/* Ring slots hold events in the file's byte order (little-endian). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#  define REC_LE64(x) ((uint64_t)(x))
#else
#  define REC_LE64(x) __builtin_bswap64((uint64_t)(x))
#endif

#define RLX memory_order_relaxed
#define ACQ memory_order_acquire
#define REL memory_order_release
#define SEQ memory_order_seq_cst

/* snprintf for error records: truncation is fine there (and not a warning). */
void rec_fmt(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* ATF_REC_BASE_H */
