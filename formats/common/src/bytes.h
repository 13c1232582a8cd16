/* Little-endian loads and stores, correct on any host byte order and
 * alignment. With GCC or Clang: one unaligned move (memcpy), swapped on a
 * big-endian host; otherwise built on bytes. (Compilers do not always merge
 * the byte form into one move: inside a hot loop they left four loads.) */
#ifndef ATF_BYTES_H
#define ATF_BYTES_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    defined(__ORDER_BIG_ENDIAN__)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ATF_LE16(v) (v)
#define ATF_LE32(v) (v)
#define ATF_LE64(v) (v)
#define ATF_BYTES_NATIVE 1
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ATF_LE16(v) __builtin_bswap16(v)
#define ATF_LE32(v) __builtin_bswap32(v)
#define ATF_LE64(v) __builtin_bswap64(v)
#define ATF_BYTES_NATIVE 1
#endif
#endif

#ifdef ATF_BYTES_NATIVE

static inline uint16_t atf_load_le16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return ATF_LE16(v);
}

static inline uint32_t atf_load_le32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return ATF_LE32(v);
}

static inline uint64_t atf_load_le64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return ATF_LE64(v);
}

static inline void atf_store_le16(void *p, uint16_t v)
{
    v = ATF_LE16(v);
    memcpy(p, &v, sizeof v);
}

static inline void atf_store_le32(void *p, uint32_t v)
{
    v = ATF_LE32(v);
    memcpy(p, &v, sizeof v);
}

static inline void atf_store_le64(void *p, uint64_t v)
{
    v = ATF_LE64(v);
    memcpy(p, &v, sizeof v);
}

#else

static inline uint16_t atf_load_le16(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t atf_load_le32(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline uint64_t atf_load_le64(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint64_t)atf_load_le32(b) | ((uint64_t)atf_load_le32(b + 4) << 32);
}

static inline void atf_store_le16(void *p, uint16_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}

static inline void atf_store_le32(void *p, uint32_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static inline void atf_store_le64(void *p, uint64_t v)
{
    atf_store_le32(p, (uint32_t)v);
    atf_store_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#endif

/* Overflow-safe a + b <= limit. */
static inline int atf_fits(uint64_t a, uint64_t b, uint64_t limit)
{
    return a <= limit && b <= limit - a;
}

static inline int atf_all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The value of hex digit @c (either case), or -1. */
static inline int atf_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif /* ATF_BYTES_H */
