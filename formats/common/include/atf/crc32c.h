/**
 * @file atf/crc32c.h
 * @brief CRC32-C (Castagnoli, reflected polynomial 0x82F63B78) and, for
 *        layout-1 files, CRC32/IEEE (reflected 0xEDB88320).
 *
 * Both use the usual conventions: initial value 0xFFFFFFFF, final XOR
 * 0xFFFFFFFF. The incremental form takes the previous *finished* CRC, so
 *   atf_crc32c(atf_crc32c(0, a, n), b, m) == atf_crc32c(0, a||b, n + m).
 *
 * The CRC32-C implementation is chosen once at run time: on x86_64
 * carry-less folding where the CPU has VPCLMULQDQ (on AVX-512 registers,
 * else on AVX2 ones), else SSE4.2; the CRC extension on arm64; else a
 * portable table-driven fallback.
 * All functions are thread-safe.
 */
#ifndef ATF_CRC32C_H
#define ATF_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include <atf/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** CRC32-C of @p size bytes at @p src, continuing from @p crc (0 to start). */
ATF_API uint32_t atf_crc32c(uint32_t crc, const void *src, size_t size);

/** Same result as atf_crc32c(), always with the portable code (for tests). */
ATF_API uint32_t atf_crc32c_portable(uint32_t crc, const void *src, size_t size);

/** CRC32/IEEE 802.3 (zlib's crc32()), continuing from @p crc (0 to start):
 *  carry-less multiplication (x86_64 PCLMULQDQ), the ARMv8 CRC extension, or
 *  the portable tables (also forced by ATF_CRC32C_IMPL=portable). */
ATF_API uint32_t atf_crc32_ieee(uint32_t crc, const void *src, size_t size);

/** Name of the CRC32/IEEE code in use: "avx2-vpclmul", "pclmul", "armv8-crc"
 *  or "portable" (ATF_CRC32C_IMPL=sse4.2 keeps x86_64 on "pclmul"). */
ATF_API const char *atf_crc32_ieee_impl(void);

/** Name of the CRC32-C code in use: "avx512-vpclmul", "avx2-vpclmul",
 *  "sse4.2", "armv8-crc" or "portable". ATF_CRC32C_IMPL=sse4.2 in the
 *  environment keeps x86_64 on the SSE4.2 code, ATF_CRC32C_IMPL=avx2-vpclmul
 *  off the AVX-512 code (read once, like ATF_CRC32C_IMPL=portable). */
ATF_API const char *atf_crc32c_impl(void);

/** CRC32-C of a||b from @p crc_a = atf_crc32c(0, a, ...) and @p crc_b =
 *  atf_crc32c(0, b, len_b): pieces checksummed apart (on several threads)
 *  joined in O(log len_b) without their bytes. */
ATF_API uint32_t atf_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

#ifdef __cplusplus
}
#endif
#endif /* ATF_CRC32C_H */
