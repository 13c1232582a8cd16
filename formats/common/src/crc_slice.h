/* Slicing-by-8 table CRC, for the reflected CRCs of every format (crc32c.c's
 * CRC32-C and CRC-32/IEEE; a format's own variant with its own tables).
 * Not installed. */
#ifndef ATF_CRC_SLICE_H
#define ATF_CRC_SLICE_H

#include <stddef.h>
#include <stdint.h>

/* Given tab[0] (the register after each byte value from 0), fills tab[1..7]:
 * tab[k][b], the register after byte b followed by k zero bytes. Every
 * update of the form c = (c >> 8) ^ tab[0][(c ^ byte) & 0xFF] qualifies. */
void atf_crc_slice_tables(uint32_t tab[8][256]);

/* The register after the n bytes at p from @p state (no pre- or post-XOR),
 * 8 bytes a step: the same value as byte by byte. */
uint32_t atf_crc_slice8(uint32_t state, const uint8_t *p, size_t n, const uint32_t tab[8][256]);

#endif
