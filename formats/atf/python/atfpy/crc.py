"""Checksums used by ATF footers, in pure Python.

* CRC32-C (Castagnoli): reflected polynomial 0x82F63B78, initial value
  0xFFFFFFFF, final XOR 0xFFFFFFFF. Layout 2 footers, and layout 1 footers
  written by this project.
* CRC32/IEEE 802.3: reflected polynomial 0xEDB88320, same conventions
  (what zlib.crc32 computes). Accepted in layout 1 footers.

Both functions take the previous *finished* CRC, so that
``crc32c(b, crc32c(a)) == crc32c(a + b)``.
"""

import zlib

CRC32C_POLY = 0x82F63B78
CRC32_IEEE_POLY = 0xEDB88320


def _make_table(poly):
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC32C_TABLE = _make_table(CRC32C_POLY)
_CRC32_IEEE_TABLE = _make_table(CRC32_IEEE_POLY)


def _crc_table_driven(table, data, crc):
    c = crc ^ 0xFFFFFFFF
    for b in memoryview(data).cast("B"):
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def crc32c(data, crc=0):
    """CRC32-C of ``data`` (bytes-like), continuing from the finished ``crc``."""
    return _crc_table_driven(_CRC32C_TABLE, data, crc)


def crc32_ieee(data, crc=0):
    """CRC32/IEEE of ``data`` (zlib's crc32)."""
    return zlib.crc32(data, crc) & 0xFFFFFFFF


def crc32_ieee_portable(data, crc=0):
    """CRC32/IEEE computed with the same table-driven code (for self-tests)."""
    return _crc_table_driven(_CRC32_IEEE_TABLE, data, crc)


# Checksum kinds as used by writers and reported by readers.
CHECKSUM_NONE = "none"        # footer checksum 0: legacy, unchecked
CHECKSUM_CRC32C = "crc32c"
CHECKSUM_CRC32_IEEE = "crc32"  # layout 1 only

CHECKSUM_KINDS = (CHECKSUM_NONE, CHECKSUM_CRC32C, CHECKSUM_CRC32_IEEE)


def compute_checksum(kind, data):
    """Footer checksum value of ``data`` for writer checksum ``kind``."""
    if kind == CHECKSUM_NONE:
        return 0
    if kind == CHECKSUM_CRC32C:
        return crc32c(data)
    if kind == CHECKSUM_CRC32_IEEE:
        return crc32_ieee(data)
    raise ValueError("unknown checksum kind %r" % (kind,))
