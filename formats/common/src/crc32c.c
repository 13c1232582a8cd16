/* CRC32-C (Castagnoli) and CRC32/IEEE, the checksums every format shares.
 *
 * CRC32-C implementations, one chosen at the first call:
 *   - x86_64 with AVX-512 and VPCLMULQDQ: carry-less folding of 512-bit
 *     blocks for long inputs, the crc32 instruction for the rest,
 *   - x86_64 with AVX2 and VPCLMULQDQ (AMD Zen 3 and later, Intel Alder
 *     Lake's cores without AVX-512): the same folding on 256-bit blocks,
 *   - x86_64: the SSE4.2 crc32 instruction,
 *   - aarch64: the ARMv8 CRC extension,
 *   - anything else: portable slicing-by-8 tables.
 * CRC32/IEEE likewise: x86_64 folding by carry-less multiplication
 * (PCLMULQDQ; on 256-bit registers with AVX2 and VPCLMULQDQ), the ARMv8
 * CRC extension, or the tables.
 * ATF_CRC32C_IMPL=portable in the environment (read once) forces the tables
 * for both; ATF_CRC32C_IMPL=sse4.2 keeps CRC32-C off both folding paths,
 * ATF_CRC32C_IMPL=avx2-vpclmul off the AVX-512 one (tests).
 *
 * Conventions: every routine below named *_state works on the raw CRC
 * register (no pre/post inversion); the public functions add the
 * 0xFFFFFFFF inversion on entry and exit, which makes them incremental.
 *
 * The hardware paths run three independent crc32 chains over three adjacent
 * blocks of B bytes and join them with
 *     crc(s, A||B||C) = shift(crc(s, A), 2B) ^ shift(crc(0, B), B) ^ crc(0, C)
 * where shift(v, n) = v * x^(8n) mod P (appending n zero bytes). The product
 * is done as a 32x32 carry-less multiply by the constant K = x^(8n-33) mod P
 * followed by a hardware reduction crc32_u64(0, product): for bit-reflected
 * values clmul(a, b) represents x*A*B, and crc32_u64(0, v) computes
 * V*x^32 mod P, so the result is A * x^(8n-33) * x^33 = A * x^(8n).
 */
#include <atf/crc32c.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "crc_slice.h"

#if defined(__x86_64__) && defined(__GNUC__)
#  define ATF_CRC_X86 1
#  include <immintrin.h>
#elif defined(__aarch64__) && defined(__GNUC__) && \
    (defined(__linux__) || defined(__APPLE__) || defined(__ARM_FEATURE_CRC32))
#  define ATF_CRC_ARM 1
#  if defined(__linux__)
#    include <sys/auxv.h>
#    ifndef HWCAP_CRC32
#      define HWCAP_CRC32 (1UL << 7)
#    endif
#  endif
#  if !defined(__clang__)
#    include <arm_acle.h>
#  endif
#endif

#define CRC32C_POLY 0x82F63B78u
#define CRC32_IEEE_POLY 0xEDB88320u

typedef uint32_t (*crc_state_fn)(uint32_t state, const uint8_t *p, size_t n);

/* ------------------------------------------------------------------------ */
/* Portable code                                                             */
/* ------------------------------------------------------------------------ */

/* tab[k][b]: CRC register after byte b followed by k zero bytes (from 0). */
static uint32_t g_tab_c[8][256];
static uint32_t g_tab_ieee[8][256];
/* 0: not built, 1: being built by some thread, 2: ready. */
static atomic_int g_tab_state;

static uint32_t crc_bitwise_state(uint32_t state, const uint8_t *p, size_t n, uint32_t poly)
{
    while (n--) {
        state ^= *p++;
        for (int i = 0; i < 8; i++)
            state = (state >> 1) ^ (poly & (0u - (state & 1u)));
    }
    return state;
}

void atf_crc_slice_tables(uint32_t tab[8][256])
{
    for (int k = 1; k < 8; k++)
        for (int b = 0; b < 256; b++)
            tab[k][b] = (tab[k - 1][b] >> 8) ^ tab[0][tab[k - 1][b] & 0xFFu];
}

static void build_tables(uint32_t tab[8][256], uint32_t poly)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint8_t byte = (uint8_t)b;
        tab[0][b] = crc_bitwise_state(0, &byte, 1, poly);
    }
    atf_crc_slice_tables(tab);
}

/* Returns 1 once the tables are usable. A thread that finds another one
 * building them gets 0 and falls back to bitwise code meanwhile. */
static int tables_ready(void)
{
    int s = atomic_load_explicit(&g_tab_state, memory_order_acquire);
    if (s == 2)
        return 1;
    if (s == 0) {
        int expected = 0;
        if (atomic_compare_exchange_strong_explicit(&g_tab_state, &expected, 1,
                                                    memory_order_acq_rel,
                                                    memory_order_acquire)) {
            build_tables(g_tab_c, CRC32C_POLY);
            build_tables(g_tab_ieee, CRC32_IEEE_POLY);
            atomic_store_explicit(&g_tab_state, 2, memory_order_release);
            return 1;
        }
        return expected == 2;
    }
    return 0;
}

uint32_t atf_crc_slice8(uint32_t state, const uint8_t *p, size_t n, const uint32_t tab[8][256])
{
    while (n >= 8) {
        uint32_t lo = atf_load_le32(p) ^ state;
        uint32_t hi = atf_load_le32(p + 4);
        state = tab[7][lo & 0xFFu] ^ tab[6][(lo >> 8) & 0xFFu] ^
                tab[5][(lo >> 16) & 0xFFu] ^ tab[4][lo >> 24] ^
                tab[3][hi & 0xFFu] ^ tab[2][(hi >> 8) & 0xFFu] ^
                tab[1][(hi >> 16) & 0xFFu] ^ tab[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        state = (state >> 8) ^ tab[0][(state ^ *p++) & 0xFFu];
    return state;
}

static uint32_t crc32c_portable_state(uint32_t state, const uint8_t *p, size_t n)
{
    if (!tables_ready())
        return crc_bitwise_state(state, p, n, CRC32C_POLY);
    return atf_crc_slice8(state, p, n, (const uint32_t (*)[256])g_tab_c);
}

/* CRC-32/IEEE by the tables (built: atf_crc32_ieee checks tables_ready). */
static uint32_t ieee_portable_state(uint32_t state, const uint8_t *p, size_t n)
{
    return atf_crc_slice8(state, p, n, (const uint32_t (*)[256])g_tab_ieee);
}

/* ------------------------------------------------------------------------ */
/* Shared pieces of the hardware paths                                       */
/* ------------------------------------------------------------------------ */

#if defined(ATF_CRC_X86) || defined(ATF_CRC_ARM)

/* Block sizes of the three-way interleave, largest first, and their shift
 * constants K(n) = x^(8n-33) mod P, bit-reflected (derived offline; the
 * tests check them through dispatched == portable across the block sizes). */
#define CRC_BLK_L 8192u
#define CRC_BLK_M 1024u
#define CRC_BLK_S 128u
#define K_8192 0x54A86326u
#define K_16384 0x1DC403CCu
#define K_1024 0x170076FAu
#define K_2048 0xA51B6135u
#define K_128 0x0D3B6092u
#define K_256 0xB9E02B86u

/* Carry-less products of K with every 4-bit value, as constant tables. */
#define CLM4(K, j)                                                         \
    ((((j) & 1) ? (uint64_t)(K) : 0u) ^ (((j) & 2) ? (uint64_t)(K) << 1 : 0u) ^ \
     (((j) & 4) ? (uint64_t)(K) << 2 : 0u) ^ (((j) & 8) ? (uint64_t)(K) << 3 : 0u))
#define CLM_TABLE(K)                                                          \
    {                                                                         \
        CLM4(K, 0), CLM4(K, 1), CLM4(K, 2), CLM4(K, 3), CLM4(K, 4), CLM4(K, 5), \
        CLM4(K, 6), CLM4(K, 7), CLM4(K, 8), CLM4(K, 9), CLM4(K, 10),          \
        CLM4(K, 11), CLM4(K, 12), CLM4(K, 13), CLM4(K, 14), CLM4(K, 15)       \
    }

/* [0]: shift by one block, [1]: by two blocks. */
static const uint64_t k_blk_l[2][16] = {CLM_TABLE(K_8192), CLM_TABLE(K_16384)};
static const uint64_t k_blk_m[2][16] = {CLM_TABLE(K_1024), CLM_TABLE(K_2048)};
static const uint64_t k_blk_s[2][16] = {CLM_TABLE(K_128), CLM_TABLE(K_256)};

/* 32x32 -> 63-bit carry-less product of a with the constant behind tab. */
static inline uint64_t clmul_const(uint32_t a, const uint64_t tab[16])
{
    uint64_t r = 0;
    for (int i = 0; i < 32; i += 4)
        r ^= tab[(a >> i) & 15u] << i;
    return r;
}

#endif

/* ------------------------------------------------------------------------ */
/* x86_64: SSE4.2                                                            */
/* ------------------------------------------------------------------------ */

#if defined(ATF_CRC_X86)

#define ATF_TARGET_SSE42 __attribute__((target("sse4.2")))

ATF_TARGET_SSE42
static inline uint32_t sse42_blocks(uint32_t state, const uint8_t **pp, size_t *pn,
                                    size_t blk, const uint64_t k[2][16])
{
    const uint8_t *p = *pp;
    size_t n = *pn;
    while (n >= 3 * blk) {
        uint64_t c0 = state, c1 = 0, c2 = 0;
        const uint8_t *end = p + blk;
        do {
            c0 = _mm_crc32_u64(c0, atf_load_le64(p));
            c1 = _mm_crc32_u64(c1, atf_load_le64(p + blk));
            c2 = _mm_crc32_u64(c2, atf_load_le64(p + 2 * blk));
            p += 8;
        } while (p < end);
        uint64_t v = clmul_const((uint32_t)c0, k[1]) ^ clmul_const((uint32_t)c1, k[0]);
        state = (uint32_t)_mm_crc32_u64(0, v) ^ (uint32_t)c2;
        p += 2 * blk;
        n -= 3 * blk;
    }
    *pp = p;
    *pn = n;
    return state;
}

ATF_TARGET_SSE42
static uint32_t crc32c_sse42_state(uint32_t state, const uint8_t *p, size_t n)
{
    /* Align to 8 bytes so that the 64-bit loads never split a cache line. */
    while (n && ((uintptr_t)p & 7u)) {
        state = _mm_crc32_u8(state, *p++);
        n--;
    }
    state = sse42_blocks(state, &p, &n, CRC_BLK_L, k_blk_l);
    state = sse42_blocks(state, &p, &n, CRC_BLK_M, k_blk_m);
    state = sse42_blocks(state, &p, &n, CRC_BLK_S, k_blk_s);
    uint64_t c = state;
    while (n >= 8) {
        c = _mm_crc32_u64(c, atf_load_le64(p));
        p += 8;
        n -= 8;
    }
    state = (uint32_t)c;
    while (n--)
        state = _mm_crc32_u8(state, *p++);
    return state;
}

static int hw_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
}

#define HW_NAME "sse4.2"
#define HW_FN crc32c_sse42_state

/* CRC32-C for long inputs on CPUs with AVX-512 and VPCLMULQDQ: the same
 * folding as CRC-32/IEEE below (see its comment for the constants' form),
 * four 512-bit registers at a time (16 lanes of 128 bits, each folded 2048
 * bits forward), then down to one register (512 bits), one lane (128 bits),
 * and the crc32 instruction for the folded 16 bytes and the tail. It goes
 * past the three crc32 chains' 8 bytes a cycle, so that verifying a file
 * keeps up with copying it out of the page cache. */
#define C_K_2111 0xE9A5D8BE00000000ull /* x^2111 mod P: low half, 2048 bits */
#define C_K_2047 0x1426A81500000000ull /* x^2047: high half, 2048 bits */
#define C_K_575 0x1C19243B00000000ull  /* x^575: low half, 512 bits */
#define C_K_511 0x75BBA45B00000000ull  /* x^511: high half, 512 bits */
#define C_K_191 0x3743F7BD00000000ull  /* x^191: low half, 128 bits */
#define C_K_127 0x3171D43000000000ull  /* x^127: high half, 128 bits */

#define ATF_TARGET_WIDE __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2")))

ATF_TARGET_WIDE
static inline __m512i wide_fold(__m512i x, __m512i k, __m512i next)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11),
                                     next, 0x96);
}

#define ATF_TARGET_CLMUL __attribute__((target("pclmul,sse2")))

/* One 128-bit fold: x's halves multiplied by k's halves, onto next (both
 * polynomials' folding, see CRC-32/IEEE's comment below). */
ATF_TARGET_CLMUL
static inline __m128i lane_fold(__m128i x, __m128i k, __m128i next)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

ATF_TARGET_WIDE
static uint32_t crc32c_wide_state(uint32_t state, const uint8_t *p, size_t n)
{
    if (n < 1024)
        return crc32c_sse42_state(state, p, n);
    const __m512i k4 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)C_K_2047, (long long)C_K_2111));
    const __m512i k1 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)C_K_511, (long long)C_K_575));
    const __m128i kl = _mm_set_epi64x((long long)C_K_127, (long long)C_K_191);
    /* The register enters as the first 4 bytes' XOR (a CRC's init). */
    __m512i a0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)state)));
    __m512i a1 = _mm512_loadu_si512(p + 64);
    __m512i a2 = _mm512_loadu_si512(p + 128);
    __m512i a3 = _mm512_loadu_si512(p + 192);
    p += 256;
    n -= 256;
    for (; n >= 256; p += 256, n -= 256) {
        a0 = wide_fold(a0, k4, _mm512_loadu_si512(p));
        a1 = wide_fold(a1, k4, _mm512_loadu_si512(p + 64));
        a2 = wide_fold(a2, k4, _mm512_loadu_si512(p + 128));
        a3 = wide_fold(a3, k4, _mm512_loadu_si512(p + 192));
    }
    __m512i x = wide_fold(wide_fold(wide_fold(a0, k1, a1), k1, a2), k1, a3);
    for (; n >= 64; p += 64, n -= 64)
        x = wide_fold(x, k1, _mm512_loadu_si512(p));
    __m128i y = lane_fold(_mm512_extracti32x4_epi32(x, 0), kl, _mm512_extracti32x4_epi32(x, 1));
    y = lane_fold(y, kl, _mm512_extracti32x4_epi32(x, 2));
    y = lane_fold(y, kl, _mm512_extracti32x4_epi32(x, 3));
    for (; n >= 16; p += 16, n -= 16)
        y = lane_fold(y, kl, _mm_loadu_si128((const __m128i *)p));
    uint8_t folded[16];
    _mm_storeu_si128((__m128i *)folded, y);
    return crc32c_sse42_state(crc32c_sse42_state(0, folded, 16), p, n);
}

static int wide_available(void)
{
    __builtin_cpu_init();
    return hw_available() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq") &&
           __builtin_cpu_supports("pclmul");
}

#define HW_WIDE_NAME "avx512-vpclmul"
#define HW_WIDE_FN crc32c_wide_state

/* The same folding on 256-bit registers, for CPUs with VPCLMULQDQ but no
 * AVX-512: eight registers at a time (16 lanes of 128 bits, each folded
 * 2048 bits forward, the constants above), then down to one register (256
 * bits) and one lane. On this project's AMD EPYC VM it checksums about
 * twice as fast as the three crc32 chains. */
#define C_K_319 0x33CCBBBC00000000ull /* x^319: low half, 256 bits */
#define C_K_255 0xA2158B3400000000ull /* x^255: high half, 256 bits */

#define ATF_TARGET_AVX2 __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.2")))

ATF_TARGET_AVX2
static inline __m256i ymm_fold(__m256i x, __m256i k, __m256i next)
{
    return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00), _mm256_clmulepi64_epi128(x, k, 0x11)),
                            next);
}

#define YMM_LOAD(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))

/* A polynomial's folding constants (see CRC-32/IEEE's comment below for
 * their form): the low and high halves' multipliers for 2048 bits, 256
 * bits and 128 bits; and its code for inputs under 1024 bytes (small) and
 * for the folded 16 bytes and the tail (rest). */
typedef struct ymm_consts {
    uint64_t k2048[2], k256[2], k128[2];
    crc_state_fn small, rest;
} ymm_consts;

/* Folds p[0, n) (n >= 256), state entering as a CRC's init, down to the
 * 16 bytes of `folded`, whose CRC (from 0) continues the checksum over the
 * rest. @return the bytes taken (all but fewer than 16). */
ATF_TARGET_AVX2
static size_t ymm_fold_all(uint32_t state, const uint8_t *p, size_t n, const ymm_consts *c, uint8_t folded[16])
{
    const uint8_t *start = p;
    const __m256i k8 = _mm256_broadcastsi128_si256(_mm_set_epi64x((long long)c->k2048[1], (long long)c->k2048[0]));
    const __m256i k1 = _mm256_broadcastsi128_si256(_mm_set_epi64x((long long)c->k256[1], (long long)c->k256[0]));
    const __m128i kl = _mm_set_epi64x((long long)c->k128[1], (long long)c->k128[0]);
    __m256i a[8];
    a[0] = _mm256_xor_si256(YMM_LOAD(p), _mm256_setr_epi32((int)state, 0, 0, 0, 0, 0, 0, 0));
    for (int i = 1; i < 8; i++)
        a[i] = YMM_LOAD(p + 32 * i);
    p += 256;
    n -= 256;
    for (; n >= 256; p += 256, n -= 256) {
        a[0] = ymm_fold(a[0], k8, YMM_LOAD(p));
        a[1] = ymm_fold(a[1], k8, YMM_LOAD(p + 32));
        a[2] = ymm_fold(a[2], k8, YMM_LOAD(p + 64));
        a[3] = ymm_fold(a[3], k8, YMM_LOAD(p + 96));
        a[4] = ymm_fold(a[4], k8, YMM_LOAD(p + 128));
        a[5] = ymm_fold(a[5], k8, YMM_LOAD(p + 160));
        a[6] = ymm_fold(a[6], k8, YMM_LOAD(p + 192));
        a[7] = ymm_fold(a[7], k8, YMM_LOAD(p + 224));
    }
    __m256i x = a[0];
    for (int i = 1; i < 8; i++)
        x = ymm_fold(x, k1, a[i]);
    for (; n >= 32; p += 32, n -= 32)
        x = ymm_fold(x, k1, YMM_LOAD(p));
    __m128i y = lane_fold(_mm256_castsi256_si128(x), kl, _mm256_extracti128_si256(x, 1));
    for (; n >= 16; p += 16, n -= 16)
        y = lane_fold(y, kl, _mm_loadu_si128((const __m128i *)(const void *)p));
    _mm_storeu_si128((__m128i *)(void *)folded, y);
    return (size_t)(p - start);
}

ATF_TARGET_AVX2
static uint32_t ymm_state(uint32_t state, const uint8_t *p, size_t n, const ymm_consts *c)
{
    if (n < 1024)
        return c->small(state, p, n);
    uint8_t folded[16];
    size_t used = ymm_fold_all(state, p, n, c, folded);
    return c->rest(c->rest(0, folded, 16), p + used, n - used);
}

static const ymm_consts crc32c_ymm = {{C_K_2111, C_K_2047}, {C_K_319, C_K_255}, {C_K_191, C_K_127},
                                      crc32c_sse42_state, crc32c_sse42_state};

static uint32_t crc32c_avx2_state(uint32_t state, const uint8_t *p, size_t n)
{
    return ymm_state(state, p, n, &crc32c_ymm);
}

static int avx2_available(void)
{
    __builtin_cpu_init();
    return hw_available() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq") &&
           __builtin_cpu_supports("pclmul");
}

#define HW_AVX2_NAME "avx2-vpclmul"
#define HW_AVX2_FN crc32c_avx2_state

/* CRC-32/IEEE by carry-less multiplication (PCLMULQDQ): 128-bit blocks are
 * folded forward, four lanes of 64 bytes at a time, then one lane, keeping
 * the message's value mod P; the folded 16 bytes and the tail go through
 * the tables. Loaded little-endian, bit j of a block is the coefficient of
 * x^(127-j), and the product of two 64-bit halves carries one extra x, so a
 * half moved D bits forward is multiplied by x^(D+63) mod P (the low half,
 * 64 bits further from the end) or x^(D-1) mod P (the high half), each
 * bit-reflected into the top 32 bits of a 64-bit lane (derived offline; the
 * tests compare with the tables at every length and alignment). */
#define IEEE_K_575 0x653D982200000000ull /* x^575 mod P: low half, 512 bits */
#define IEEE_K_511 0xCAD38E8F00000000ull /* x^511: high half, 512 bits */
#define IEEE_K_191 0x65673B4600000000ull /* x^191: low half, 128 bits */
#define IEEE_K_127 0x9BA54C6F00000000ull /* x^127: high half, 128 bits */

ATF_TARGET_CLMUL
static uint32_t ieee_clmul_state(uint32_t state, const uint8_t *p, size_t n)
{
    if (n < 64)
        return ieee_portable_state(state, p, n);
    const __m128i k4 = _mm_set_epi64x((long long)IEEE_K_511, (long long)IEEE_K_575);
    const __m128i k1 = _mm_set_epi64x((long long)IEEE_K_127, (long long)IEEE_K_191);
    /* The register enters as the first 4 bytes' XOR (a CRC's init). */
    __m128i a0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)state));
    __m128i a1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i a2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i a3 = _mm_loadu_si128((const __m128i *)(p + 48));
    p += 64;
    n -= 64;
    for (; n >= 64; p += 64, n -= 64) {
        a0 = lane_fold(a0, k4, _mm_loadu_si128((const __m128i *)p));
        a1 = lane_fold(a1, k4, _mm_loadu_si128((const __m128i *)(p + 16)));
        a2 = lane_fold(a2, k4, _mm_loadu_si128((const __m128i *)(p + 32)));
        a3 = lane_fold(a3, k4, _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    __m128i x = lane_fold(lane_fold(lane_fold(a0, k1, a1), k1, a2), k1, a3);
    for (; n >= 16; p += 16, n -= 16)
        x = lane_fold(x, k1, _mm_loadu_si128((const __m128i *)p));
    uint8_t folded[16];
    _mm_storeu_si128((__m128i *)folded, x);
    return ieee_portable_state(ieee_portable_state(0, folded, 16), p, n);
}

static int ieee_hw_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") != 0;
}

#define IEEE_HW_NAME "pclmul"
#define IEEE_HW_FN ieee_clmul_state

/* CRC-32/IEEE on eight 256-bit registers where the CPU has VPCLMULQDQ and
 * AVX2, as CRC32-C above (ATF_CRC32C_IMPL=sse4.2 keeps it off too). */
#define IEEE_K_2111 0x7CC8E1E700000000ull /* x^2111: low half, 2048 bits */
#define IEEE_K_2047 0x03F9F86300000000ull /* x^2047: high half, 2048 bits */
#define IEEE_K_319 0x9570D49500000000ull  /* x^319: low half, 256 bits */
#define IEEE_K_255 0x01B5FD1D00000000ull  /* x^255: high half, 256 bits */

static const ymm_consts ieee_ymm = {{IEEE_K_2111, IEEE_K_2047}, {IEEE_K_319, IEEE_K_255}, {IEEE_K_191, IEEE_K_127},
                                    ieee_clmul_state, ieee_portable_state};

static uint32_t ieee_avx2_state(uint32_t state, const uint8_t *p, size_t n)
{
    return ymm_state(state, p, n, &ieee_ymm);
}

static int ieee_avx2_available(void)
{
    return ieee_hw_available() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq");
}

#define IEEE_AVX2_NAME "avx2-vpclmul"
#define IEEE_AVX2_FN ieee_avx2_state

#endif /* ATF_CRC_X86 */

/* ------------------------------------------------------------------------ */
/* aarch64: ARMv8 CRC extension                                              */
/* ------------------------------------------------------------------------ */

#if defined(ATF_CRC_ARM)

#if defined(__clang__)
#  define ATF_TARGET_CRC __attribute__((target("crc")))
#  define ARM_CRC32C_U64(c, v) __builtin_arm_crc32cd((c), (v))
#  define ARM_CRC32C_U8(c, v) __builtin_arm_crc32cb((c), (v))
#else
#  define ATF_TARGET_CRC __attribute__((target("+crc")))
#  define ARM_CRC32C_U64(c, v) __crc32cd((c), (v))
#  define ARM_CRC32C_U8(c, v) __crc32cb((c), (v))
#endif

ATF_TARGET_CRC
static inline uint32_t arm_blocks(uint32_t state, const uint8_t **pp, size_t *pn,
                                  size_t blk, const uint64_t k[2][16])
{
    const uint8_t *p = *pp;
    size_t n = *pn;
    while (n >= 3 * blk) {
        uint32_t c0 = state, c1 = 0, c2 = 0;
        const uint8_t *end = p + blk;
        do {
            c0 = ARM_CRC32C_U64(c0, atf_load_le64(p));
            c1 = ARM_CRC32C_U64(c1, atf_load_le64(p + blk));
            c2 = ARM_CRC32C_U64(c2, atf_load_le64(p + 2 * blk));
            p += 8;
        } while (p < end);
        uint64_t v = clmul_const(c0, k[1]) ^ clmul_const(c1, k[0]);
        state = ARM_CRC32C_U64(0u, v) ^ c2;
        p += 2 * blk;
        n -= 3 * blk;
    }
    *pp = p;
    *pn = n;
    return state;
}

ATF_TARGET_CRC
static uint32_t crc32c_arm_state(uint32_t state, const uint8_t *p, size_t n)
{
    while (n && ((uintptr_t)p & 7u)) {
        state = ARM_CRC32C_U8(state, *p++);
        n--;
    }
    state = arm_blocks(state, &p, &n, CRC_BLK_L, k_blk_l);
    state = arm_blocks(state, &p, &n, CRC_BLK_M, k_blk_m);
    state = arm_blocks(state, &p, &n, CRC_BLK_S, k_blk_s);
    while (n >= 8) {
        state = ARM_CRC32C_U64(state, atf_load_le64(p));
        p += 8;
        n -= 8;
    }
    while (n--)
        state = ARM_CRC32C_U8(state, *p++);
    return state;
}

static int hw_available(void)
{
#if defined(__ARM_FEATURE_CRC32) || defined(__APPLE__)
    return 1;
#else
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
}

#define HW_NAME "armv8-crc"
#define HW_FN crc32c_arm_state

/* CRC-32/IEEE: the same extension's crc32 instructions, 8 bytes a step. */
#if defined(__clang__)
#  define ARM_CRC32_U64(c, v) __builtin_arm_crc32d((c), (v))
#  define ARM_CRC32_U8(c, v) __builtin_arm_crc32b((c), (v))
#else
#  define ARM_CRC32_U64(c, v) __crc32d((c), (v))
#  define ARM_CRC32_U8(c, v) __crc32b((c), (v))
#endif

ATF_TARGET_CRC
static uint32_t ieee_arm_state(uint32_t state, const uint8_t *p, size_t n)
{
    for (; n && ((uintptr_t)p & 7u); n--)
        state = ARM_CRC32_U8(state, *p++);
    for (; n >= 8; p += 8, n -= 8)
        state = ARM_CRC32_U64(state, atf_load_le64(p));
    while (n--)
        state = ARM_CRC32_U8(state, *p++);
    return state;
}

static int ieee_hw_available(void)
{
    return hw_available();
}

#define IEEE_HW_NAME "armv8-crc"
#define IEEE_HW_FN ieee_arm_state

#endif /* ATF_CRC_ARM */

/* ------------------------------------------------------------------------ */
/* Dispatch                                                                  */
/* ------------------------------------------------------------------------ */

static uint32_t crc32c_resolve_state(uint32_t state, const uint8_t *p, size_t n);

/* Resolution is idempotent (every thread computes the same answer), so
 * racing first calls simply store the same values; the atomics make that
 * well-defined. g_impl_name is written before g_impl_fn (release). */
static _Atomic(crc_state_fn) g_impl_fn = crc32c_resolve_state;
static _Atomic(const char *) g_impl_name;

/* ATF_CRC32C_IMPL=portable: the tables for both checksums;
 * ATF_CRC32C_IMPL=sse4.2: CRC32-C without the folding (for tests);
 * ATF_CRC32C_IMPL=avx2-vpclmul: the 256-bit folding even where the 512-bit
 * one would be chosen (for tests). */
static inline int forced_impl(const char *name)
{
    const char *env = getenv("ATF_CRC32C_IMPL");
    return env != NULL && strcmp(env, name) == 0;
}

static inline int force_portable(void) { return forced_impl("portable"); }

static crc_state_fn crc32c_resolve(void)
{
    crc_state_fn fn = crc32c_portable_state;
    const char *name = "portable";
#if defined(HW_FN)
    if (!force_portable() && hw_available()) {
        fn = HW_FN;
        name = HW_NAME;
    }
#endif
#if defined(HW_WIDE_FN)
    if (fn == HW_FN && !forced_impl(HW_NAME) && !forced_impl(HW_AVX2_NAME) && wide_available()) {
        fn = HW_WIDE_FN;
        name = HW_WIDE_NAME;
    }
    if (fn == HW_FN && !forced_impl(HW_NAME) && avx2_available()) {
        fn = HW_AVX2_FN;
        name = HW_AVX2_NAME;
    }
#endif
    atomic_store_explicit(&g_impl_name, name, memory_order_release);
    atomic_store_explicit(&g_impl_fn, fn, memory_order_release);
    return fn;
}

/* CRC-32/IEEE: resolved the same way, on its first call (the tables are
 * ready by then: the portable code and the folding's end use them). */

static _Atomic(crc_state_fn) g_ieee_fn;
static _Atomic(const char *) g_ieee_name;

static crc_state_fn ieee_resolve(void)
{
    crc_state_fn fn = ieee_portable_state;
    const char *name = "portable";
#if defined(IEEE_HW_FN)
    if (!force_portable() && ieee_hw_available()) {
        fn = IEEE_HW_FN;
        name = IEEE_HW_NAME;
    }
#endif
#if defined(IEEE_AVX2_FN)
    if (fn == IEEE_HW_FN && !forced_impl(HW_NAME) && ieee_avx2_available()) {
        fn = IEEE_AVX2_FN;
        name = IEEE_AVX2_NAME;
    }
#endif
    atomic_store_explicit(&g_ieee_name, name, memory_order_release);
    atomic_store_explicit(&g_ieee_fn, fn, memory_order_release);
    return fn;
}

static uint32_t crc32c_resolve_state(uint32_t state, const uint8_t *p, size_t n)
{
    return crc32c_resolve()(state, p, n);
}

/* ------------------------------------------------------------------------ */
/* Public API                                                                */
/* ------------------------------------------------------------------------ */

uint32_t atf_crc32c(uint32_t crc, const void *src, size_t size)
{
    if (size == 0)
        return crc;
    crc_state_fn fn = atomic_load_explicit(&g_impl_fn, memory_order_acquire);
    return ~fn(~crc, (const uint8_t *)src, size);
}

uint32_t atf_crc32c_portable(uint32_t crc, const void *src, size_t size)
{
    if (size == 0)
        return crc;
    return ~crc32c_portable_state(~crc, (const uint8_t *)src, size);
}

uint32_t atf_crc32_ieee(uint32_t crc, const void *src, size_t size)
{
    if (size == 0)
        return crc;
    const uint8_t *p = (const uint8_t *)src;
    if (!tables_ready())
        return ~crc_bitwise_state(~crc, p, size, CRC32_IEEE_POLY);
    crc_state_fn fn = atomic_load_explicit(&g_ieee_fn, memory_order_acquire);
    if (!fn)
        fn = ieee_resolve();
    return ~fn(~crc, p, size);
}

/* a * b mod P, both bit-reflected (bit 31 holds the coefficient of x^0). */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b, uint32_t poly)
{
    uint32_t product = 0;
    for (int bit = 31; bit >= 0; bit--) { /* a's coefficient of x^(31 - bit) */
        if ((a >> bit) & 1u)
            product ^= b;
        b = (b >> 1) ^ ((b & 1u) ? poly : 0u); /* b *= x */
    }
    return product;
}

uint32_t atf_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    /* crc(a||b) = crc_a * x^(8 len_b) ^ crc_b (the inversions cancel), the
     * power built from x^(8 * 2^k) by squaring. */
    uint32_t power = 1u << 31, square = 1u << 23; /* x^0, x^8 */
    for (uint64_t e = len_b; e != 0; e >>= 1) {
        if (e & 1)
            power = gf2_mulmod(power, square, CRC32C_POLY);
        square = gf2_mulmod(square, square, CRC32C_POLY);
    }
    return gf2_mulmod(crc_a, power, CRC32C_POLY) ^ crc_b;
}

const char *atf_crc32_ieee_impl(void)
{
    const char *name = atomic_load_explicit(&g_ieee_name, memory_order_acquire);
    if (name == NULL) {
        ieee_resolve();
        name = atomic_load_explicit(&g_ieee_name, memory_order_acquire);
    }
    return name;
}

const char *atf_crc32c_impl(void)
{
    const char *name = atomic_load_explicit(&g_impl_name, memory_order_acquire);
    if (name == NULL) {
        crc32c_resolve();
        name = atomic_load_explicit(&g_impl_name, memory_order_acquire);
    }
    return name;
}
