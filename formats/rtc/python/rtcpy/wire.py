"""Bytes of RTC (conformance/SPEC-RTC.md sections 1-3): unsigned and signed
LEB128, the Marker, the built-in streams and the two Crc algorithms."""

import zlib

MARKER_ID, MARKER_LEN, MARKER_BYTE = 2, 1024, 0xB9
MARKER = bytes([MARKER_ID << 1]) + bytes([MARKER_BYTE]) * MARKER_LEN
MARKER_SIZE = len(MARKER)              # 1025
MAX_PAYLOAD = 1024                     # no frame payload is larger than the Marker's
CRC_FRAME_SIZE = 5
MIN_UNIT = 2048                        # unit > 1034 (RTC_FRAME_MAX_SIZE) and a power of 2
FIRST_USER_ID = 9
MAX_LEB_BYTES = 10

NOP, PADDING, MARKER_STREAM, INDEX, SUBINDEX, META, SUBMETA, PLATFORM, CRC = range(9)
# id: (name, fixed length or None, format)
BUILTINS = {
    NOP: ("nop", 0, "raw"),
    PADDING: ("padding", None, "raw"),
    MARKER_STREAM: ("Marker", MARKER_LEN, "raw"),
    INDEX: ("Index", None, "index"),
    SUBINDEX: ("index", None, "index"),
    META: ("Meta", None, "json"),
    SUBMETA: ("meta", None, "json"),
    PLATFORM: ("Platform", 4, "platform"),
    CRC: ("Crc", 4, "uint32"),
}
NEVER_INDEXED = (NOP, PADDING, MARKER_STREAM, SUBMETA)
PLATFORM_VALUE = 0x01020304


def uleb(v):
    """The shortest unsigned LEB128 of ``v`` (>= 0)."""
    if v < 0:
        raise ValueError("negative")
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(v):
    """The shortest signed LEB128 of ``v``."""
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


class LebError(Exception):
    """kind: "cut" (the bytes end inside it), "long" (more than 10 bytes or
    a value of 64 bits or more)."""

    def __init__(self, kind):
        Exception.__init__(self, kind)
        self.kind = kind


def _leb(data, pos, end):
    """(7-bit groups as an unsigned value, next position, bits read, last
    byte) of the LEB128 at ``pos``; LebError when it runs past ``end`` or is
    longer than MAX_LEB_BYTES."""
    v = shift = 0
    p = pos
    while True:
        if p >= end:
            raise LebError("cut")
        if p - pos >= MAX_LEB_BYTES:
            raise LebError("long")
        c = data[p]
        p += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, p, shift, c


def read_uleb(data, pos, end=None):
    """(value, next position, shortest) of the unsigned LEB128 at ``pos``;
    LebError when it runs past ``end`` or is too long."""
    end = len(data) if end is None else end
    v, p, _shift, _c = _leb(data, pos, end)
    if v >= 1 << 64:
        raise LebError("long")
    shortest = p - pos == 1 or data[p - 1] != 0
    return v, p, shortest


def read_sleb(data, pos, end):
    v, p, shift, c = _leb(data, pos, end)
    if c & 0x40:
        v -= 1 << shift
    if not -(1 << 63) <= v < 1 << 63:
        raise LebError("long")
    return v, p


# ---- Crc ------------------------------------------------------------------------

def _msb_table():
    t = []
    for i in range(256):
        c = i << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) if c & 0x80000000 else (c << 1)
            c &= 0xFFFFFFFF
        t.append(c)
    return t


_T = _msb_table()


def crc_ref(data, crc=0):
    """The reference writer's Crc: the MSB-first table of 0x04C11DB7 with the
    LSB-first update, init and final XOR 0xFFFFFFFF (check 0x7EAD5C77)."""
    c = crc ^ 0xFFFFFFFF
    t = _T
    for b in bytes(data):
        c = (c >> 8) ^ t[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def crc_ieee(data):
    """CRC-32/IEEE (the seed's, zlib's; check 0xCBF43926)."""
    return zlib.crc32(bytes(data)) & 0xFFFFFFFF


CRC_NAMES = {"rtc-ref": crc_ref, "crc-32": crc_ieee}


def frame_header(sid, more, length=None):
    return uleb(sid << 1 | (1 if more else 0)) + (b"" if length is None else uleb(length))


def padding(n):
    """``n`` bytes of padding as the reference writes it: 1 byte a nop, more a
    padding frame of zeros."""
    if n <= 0:
        return b""
    if n == 1:
        return b"\0"
    m = n - 2
    while 1 + len(uleb(m)) + m > n:
        m -= 1
    while 1 + len(uleb(m)) + m < n:
        m += 1
    if 1 + len(uleb(m)) + m != n:     # the length's LEB grows by a byte here: a nop first
        return b"\0" + padding(n - 1)
    return bytes([PADDING << 1]) + uleb(m) + bytes(m)
