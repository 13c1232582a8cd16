"""Bytes helpers shared by the format packages: little-endian loads and the
UTF-8 test. Every format of the project stores its integers little-endian
(a payload that says its own byte order uses int.from_bytes directly)."""


def le(data, off, size, signed=False):
    """The little-endian integer of ``size`` bytes at ``off`` (fewer bytes if
    ``data`` ends first)."""
    return int.from_bytes(data[off:off + size], "little", signed=signed)


def u32(data, off):
    return le(data, off, 4)


def is_utf8(b):
    """True when the bytes ``b`` are valid UTF-8 (RFC 3629: no surrogates, no
    overlong forms, nothing above U+10FFFF)."""
    try:
        bytes(b).decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
