"""Encoders and decoders of every fixed-size ATF structure, in both layouts.

Records are layout-neutral dataclasses. ``encode(layout)`` produces the bytes
of that layout; ``decode(data, layout)`` (a class method; headers read the
layout from their version byte) checks sizes and magics and raises
:class:`AtfFormatError` on anything it cannot decode. All integers are
little-endian. A layout 1 / layout 2 "no detail" sentinel decodes to None;
fields that exist only in layout 1 (index event ``thread_id``/``call_depth``,
detail event ``thread_id``) are 0 after decoding a layout-2 record, and
encoding a non-zero value of such a field in layout 2 is an error (it would
be silently lost).

Byte layouts (offsets in bytes):

index header (64)   magic@0 endian@4 version@5 arch@6 os@7 flags u32@8
                    thread_id u32@12 clock_type u8@16
                    L1: reserved 3@17, reserved u32@20, event_size u32@24,
                        event_count u32@28
                    L2: reserved 3@17, event_size u32@20, event_count u64@24
                    events_offset@32 footer_offset@40 time_start_ns@48
                    time_end_ns@56 (u64)
index event (32)    L1: timestamp_ns u64@0 function_id u64@8 thread_id u32@16
                        event_kind u32@20 call_depth u32@24 detail_seq u32@28
                    L2: timestamp_ns u64@0 function_id u64@8 detail_seq u64@16
                        event_kind u8@24 reserved 7@25
index footer (64)   magic "2ITA"@0 checksum u32@4 event_count@8
                    time_start_ns@16 time_end_ns@24 bytes_written@32 reserved 24@40
detail header (64)  magic "ATD2"@0 endian@4 version@5 arch@6 os@7 flags u32@8
                    thread_id u32@12 reserved u32@16 events_offset@20
                    event_count@28 bytes_length@36 index_seq_start@44
                    index_seq_end@52 reserved 4@60
detail event (24+)  total_length u32@0 event_type u16@4 flags u16@6
                    L1: index_seq u32@8 thread_id u32@12 timestamp u64@16
                    L2: index_seq u64@8 timestamp u64@16
detail footer (64)  magic "2DTA"@0 checksum u32@4 event_count@8 bytes_length@16
                    time_start_ns@24 time_end_ns@32 reserved 24@40
ARM64 payload       function_id@0 x0..x7@8 lr@72 fp@80 sp@88 (u64)
                    stack_size u16@96 (<= 256) reserved u16@98 stack@100
"""

import struct
from dataclasses import dataclass, field
from typing import Optional, Tuple

LAYOUT_1 = 1
LAYOUT_2 = 2
LAYOUTS = (LAYOUT_1, LAYOUT_2)

INDEX_MAGIC = b"ATI2"
INDEX_FOOTER_MAGIC = b"2ITA"
DETAIL_MAGIC = b"ATD2"
DETAIL_FOOTER_MAGIC = b"2DTA"

ENDIAN_LITTLE = 1

INDEX_HEADER_SIZE = 64
INDEX_EVENT_SIZE = 32
INDEX_FOOTER_SIZE = 64
DETAIL_HEADER_SIZE = 64
DETAIL_EVENT_HEADER_SIZE = 24
DETAIL_FOOTER_SIZE = 64

ARM64_PAYLOAD_FIXED_SIZE = 100
ARM64_STACK_MAX = 256

NO_DETAIL_L1 = 0xFFFFFFFF
NO_DETAIL_L2 = 0xFFFFFFFFFFFFFFFF

INDEX_FLAG_HAS_DETAIL_FILE = 0x1

EVENT_CALL = 1
EVENT_RETURN = 2
EVENT_EXCEPTION = 3
DETAIL_FUNCTION_CALL = 3
DETAIL_FUNCTION_RETURN = 4

ARCH_X86_64 = 1
ARCH_ARM64 = 2
OS_IOS, OS_ANDROID, OS_MACOS, OS_LINUX, OS_WINDOWS = 1, 2, 3, 4, 5
CLOCK_MACH_CONTINUOUS, CLOCK_QPC, CLOCK_BOOTTIME = 1, 2, 3

U8_MAX = 0xFF
U16_MAX = 0xFFFF
U32_MAX = 0xFFFFFFFF
U64_MAX = 0xFFFFFFFFFFFFFFFF

_INDEX_HEADER_L1 = struct.Struct("<4sBBBBIIB3sIIIQQQQ")
_INDEX_HEADER_L2 = struct.Struct("<4sBBBBIIB3sIQQQQQ")
_INDEX_EVENT_L1 = struct.Struct("<QQIIII")
_INDEX_EVENT_L2 = struct.Struct("<QQQB7s")
_FOOTER = struct.Struct("<4sIQQQQ24s")
_DETAIL_HEADER = struct.Struct("<4sBBBBIIIQQQQQ4s")
_DETAIL_EVENT_L1 = struct.Struct("<IHHIIQ")
_DETAIL_EVENT_L2 = struct.Struct("<IHHQQ")
_ARM64_FIXED = struct.Struct("<Q8QQQQHH")

assert _INDEX_HEADER_L1.size == _INDEX_HEADER_L2.size == INDEX_HEADER_SIZE
assert _INDEX_EVENT_L1.size == _INDEX_EVENT_L2.size == INDEX_EVENT_SIZE
assert _FOOTER.size == INDEX_FOOTER_SIZE == DETAIL_FOOTER_SIZE
assert _DETAIL_HEADER.size == DETAIL_HEADER_SIZE
assert _DETAIL_EVENT_L1.size == _DETAIL_EVENT_L2.size == DETAIL_EVENT_HEADER_SIZE
assert _ARM64_FIXED.size == ARM64_PAYLOAD_FIXED_SIZE


class AtfFormatError(ValueError):
    """A structure could not be decoded (or a value does not fit its layout)."""


def _check_layout(layout):
    if layout not in LAYOUTS:
        raise AtfFormatError("layout must be 1 or 2, not %r" % (layout,))


def _check_range(name, value, maximum):
    if not isinstance(value, int) or value < 0 or value > maximum:
        raise AtfFormatError("%s = %r does not fit (max %d)" % (name, value, maximum))


def _need(data, size, what):
    if len(data) < size:
        raise AtfFormatError("%s needs %d bytes, got %d" % (what, size, len(data)))


def _header_layout(data, magic, what):
    _need(data, 8, what)
    if bytes(data[0:4]) != magic:
        raise AtfFormatError("%s magic is %r, expected %r" % (what, bytes(data[0:4]), magic))
    if data[4] != ENDIAN_LITTLE:
        raise AtfFormatError("%s endian byte is %d, expected 1" % (what, data[4]))
    if data[5] not in LAYOUTS:
        raise AtfFormatError("%s version byte is %d, expected 1 or 2" % (what, data[5]))
    return data[5]


# ---- Index header ---------------------------------------------------------

@dataclass
class IndexHeader:
    version: int = LAYOUT_2          # the layout
    arch: int = ARCH_ARM64
    os: int = OS_LINUX
    flags: int = 0
    thread_id: int = 0
    clock_type: int = CLOCK_BOOTTIME
    event_size: int = INDEX_EVENT_SIZE
    event_count: int = 0
    events_offset: int = INDEX_HEADER_SIZE
    footer_offset: int = 0
    time_start_ns: int = 0
    time_end_ns: int = 0
    endian: int = ENDIAN_LITTLE
    reserved_nonzero: bool = field(default=False, compare=False)

    def encode(self):
        _check_layout(self.version)
        for name, mx in (("endian", U8_MAX), ("arch", U8_MAX), ("os", U8_MAX),
                         ("flags", U32_MAX), ("thread_id", U32_MAX), ("clock_type", U8_MAX),
                         ("event_size", U32_MAX), ("events_offset", U64_MAX),
                         ("footer_offset", U64_MAX), ("time_start_ns", U64_MAX),
                         ("time_end_ns", U64_MAX)):
            _check_range(name, getattr(self, name), mx)
        if self.version == LAYOUT_1:
            _check_range("event_count", self.event_count, U32_MAX)
            return _INDEX_HEADER_L1.pack(
                INDEX_MAGIC, self.endian, self.version, self.arch, self.os, self.flags,
                self.thread_id, self.clock_type, b"\0" * 3, 0, self.event_size,
                self.event_count, self.events_offset, self.footer_offset,
                self.time_start_ns, self.time_end_ns)
        _check_range("event_count", self.event_count, U64_MAX)
        return _INDEX_HEADER_L2.pack(
            INDEX_MAGIC, self.endian, self.version, self.arch, self.os, self.flags,
            self.thread_id, self.clock_type, b"\0" * 3, self.event_size, self.event_count,
            self.events_offset, self.footer_offset, self.time_start_ns, self.time_end_ns)

    @classmethod
    def decode(cls, data):
        layout = _header_layout(data, INDEX_MAGIC, "index header")
        _need(data, INDEX_HEADER_SIZE, "index header")
        if layout == LAYOUT_1:
            (_m, endian, version, arch, os_, flags, tid, clock, res1, res2, event_size,
             count, eoff, foff, ts0, ts1) = _INDEX_HEADER_L1.unpack_from(data, 0)
            reserved_nonzero = res1 != b"\0" * 3 or res2 != 0
        else:
            (_m, endian, version, arch, os_, flags, tid, clock, res1, event_size, count,
             eoff, foff, ts0, ts1) = _INDEX_HEADER_L2.unpack_from(data, 0)
            reserved_nonzero = res1 != b"\0" * 3
        if event_size != INDEX_EVENT_SIZE:
            raise AtfFormatError("index header event_size is %d, expected 32" % event_size)
        if eoff < INDEX_HEADER_SIZE:
            raise AtfFormatError("index header events_offset is %d, below 64" % eoff)
        return cls(version=version, arch=arch, os=os_, flags=flags, thread_id=tid,
                   clock_type=clock, event_size=event_size, event_count=count,
                   events_offset=eoff, footer_offset=foff, time_start_ns=ts0,
                   time_end_ns=ts1, endian=endian, reserved_nonzero=reserved_nonzero)

    @property
    def layout(self):
        return self.version

    @property
    def has_detail_file(self):
        return bool(self.flags & INDEX_FLAG_HAS_DETAIL_FILE)


# ---- Index event ----------------------------------------------------------

@dataclass
class IndexEvent:
    timestamp_ns: int
    function_id: int
    event_kind: int
    detail_seq: Optional[int] = None   # None: no linked detail event
    thread_id: int = 0                 # layout 1 only
    call_depth: int = 0                # layout 1 only
    reserved_nonzero: bool = field(default=False, compare=False)

    def encode(self, layout):
        _check_layout(layout)
        _check_range("timestamp_ns", self.timestamp_ns, U64_MAX)
        _check_range("function_id", self.function_id, U64_MAX)
        if layout == LAYOUT_1:
            _check_range("event_kind", self.event_kind, U32_MAX)
            _check_range("thread_id", self.thread_id, U32_MAX)
            _check_range("call_depth", self.call_depth, U32_MAX)
            if self.detail_seq is None:
                dseq = NO_DETAIL_L1
            else:
                _check_range("detail_seq", self.detail_seq, NO_DETAIL_L1 - 1)
                dseq = self.detail_seq
            return _INDEX_EVENT_L1.pack(self.timestamp_ns, self.function_id, self.thread_id,
                                        self.event_kind, self.call_depth, dseq)
        _check_range("event_kind", self.event_kind, U8_MAX)
        if self.thread_id or self.call_depth:
            raise AtfFormatError("thread_id/call_depth do not exist in layout 2 index events")
        if self.detail_seq is None:
            dseq = NO_DETAIL_L2
        else:
            _check_range("detail_seq", self.detail_seq, NO_DETAIL_L2 - 1)
            dseq = self.detail_seq
        return _INDEX_EVENT_L2.pack(self.timestamp_ns, self.function_id, dseq,
                                    self.event_kind, b"\0" * 7)

    @classmethod
    def decode(cls, data, layout, offset=0):
        _check_layout(layout)
        _need(memoryview(data)[offset:], INDEX_EVENT_SIZE, "index event")
        if layout == LAYOUT_1:
            ts, fid, tid, kind, depth, dseq = _INDEX_EVENT_L1.unpack_from(data, offset)
            return cls(ts, fid, kind, None if dseq == NO_DETAIL_L1 else dseq, tid, depth)
        ts, fid, dseq, kind, res = _INDEX_EVENT_L2.unpack_from(data, offset)
        return cls(ts, fid, kind, None if dseq == NO_DETAIL_L2 else dseq,
                   reserved_nonzero=res != b"\0" * 7)


# ---- Footers --------------------------------------------------------------

@dataclass
class IndexFooter:
    checksum: int = 0
    event_count: int = 0
    time_start_ns: int = 0
    time_end_ns: int = 0
    bytes_written: int = 0
    reserved_nonzero: bool = field(default=False, compare=False)

    def encode(self):
        for name in ("event_count", "time_start_ns", "time_end_ns", "bytes_written"):
            _check_range(name, getattr(self, name), U64_MAX)
        _check_range("checksum", self.checksum, U32_MAX)
        return _FOOTER.pack(INDEX_FOOTER_MAGIC, self.checksum, self.event_count,
                            self.time_start_ns, self.time_end_ns, self.bytes_written, b"\0" * 24)

    @classmethod
    def decode(cls, data, offset=0):
        view = memoryview(data)[offset:]
        _need(view, INDEX_FOOTER_SIZE, "index footer")
        magic, crc, count, ts0, ts1, written, res = _FOOTER.unpack_from(view, 0)
        if magic != INDEX_FOOTER_MAGIC:
            raise AtfFormatError("index footer magic is %r" % (magic,))
        return cls(crc, count, ts0, ts1, written, reserved_nonzero=res != b"\0" * 24)


@dataclass
class DetailFooter:
    checksum: int = 0
    event_count: int = 0
    bytes_length: int = 0
    time_start_ns: int = 0
    time_end_ns: int = 0
    reserved_nonzero: bool = field(default=False, compare=False)

    def encode(self):
        for name in ("event_count", "bytes_length", "time_start_ns", "time_end_ns"):
            _check_range(name, getattr(self, name), U64_MAX)
        _check_range("checksum", self.checksum, U32_MAX)
        return _FOOTER.pack(DETAIL_FOOTER_MAGIC, self.checksum, self.event_count,
                            self.bytes_length, self.time_start_ns, self.time_end_ns, b"\0" * 24)

    @classmethod
    def decode(cls, data, offset=0):
        view = memoryview(data)[offset:]
        _need(view, DETAIL_FOOTER_SIZE, "detail footer")
        magic, crc, count, length, ts0, ts1, res = _FOOTER.unpack_from(view, 0)
        if magic != DETAIL_FOOTER_MAGIC:
            raise AtfFormatError("detail footer magic is %r" % (magic,))
        return cls(crc, count, length, ts0, ts1, reserved_nonzero=res != b"\0" * 24)


# ---- Detail header --------------------------------------------------------

@dataclass
class DetailHeader:
    version: int = LAYOUT_2
    arch: int = ARCH_ARM64
    os: int = OS_LINUX
    flags: int = 0
    thread_id: int = 0
    events_offset: int = DETAIL_HEADER_SIZE
    event_count: int = 0
    bytes_length: int = 0
    index_seq_start: int = 0
    index_seq_end: int = 0
    endian: int = ENDIAN_LITTLE
    reserved_nonzero: bool = field(default=False, compare=False)

    def encode(self):
        _check_layout(self.version)
        for name, mx in (("endian", U8_MAX), ("arch", U8_MAX), ("os", U8_MAX),
                         ("flags", U32_MAX), ("thread_id", U32_MAX),
                         ("events_offset", U64_MAX), ("event_count", U64_MAX),
                         ("bytes_length", U64_MAX), ("index_seq_start", U64_MAX),
                         ("index_seq_end", U64_MAX)):
            _check_range(name, getattr(self, name), mx)
        return _DETAIL_HEADER.pack(DETAIL_MAGIC, self.endian, self.version, self.arch, self.os,
                                   self.flags, self.thread_id, 0, self.events_offset,
                                   self.event_count, self.bytes_length, self.index_seq_start,
                                   self.index_seq_end, b"\0" * 4)

    @classmethod
    def decode(cls, data):
        _header_layout(data, DETAIL_MAGIC, "detail header")
        _need(data, DETAIL_HEADER_SIZE, "detail header")
        (_m, endian, version, arch, os_, flags, tid, res1, eoff, count, length, s0, s1,
         res2) = _DETAIL_HEADER.unpack_from(data, 0)
        if eoff < DETAIL_HEADER_SIZE:
            raise AtfFormatError("detail header events_offset is %d, below 64" % eoff)
        return cls(version=version, arch=arch, os=os_, flags=flags, thread_id=tid,
                   events_offset=eoff, event_count=count, bytes_length=length,
                   index_seq_start=s0, index_seq_end=s1, endian=endian,
                   reserved_nonzero=res1 != 0 or res2 != b"\0" * 4)

    @property
    def layout(self):
        return self.version


# ---- Detail event ---------------------------------------------------------

@dataclass
class DetailEvent:
    event_type: int
    flags: int
    index_seq: int
    timestamp: int
    payload: bytes = b""
    thread_id: int = 0                 # layout 1 only

    @property
    def total_length(self):
        return DETAIL_EVENT_HEADER_SIZE + len(self.payload)

    def encode(self, layout):
        _check_layout(layout)
        _check_range("total_length", self.total_length, U32_MAX)
        _check_range("event_type", self.event_type, U16_MAX)
        _check_range("flags", self.flags, U16_MAX)
        _check_range("timestamp", self.timestamp, U64_MAX)
        if layout == LAYOUT_1:
            _check_range("index_seq", self.index_seq, U32_MAX)
            _check_range("thread_id", self.thread_id, U32_MAX)
            head = _DETAIL_EVENT_L1.pack(self.total_length, self.event_type, self.flags,
                                         self.index_seq, self.thread_id, self.timestamp)
        else:
            _check_range("index_seq", self.index_seq, U64_MAX)
            if self.thread_id:
                raise AtfFormatError("thread_id does not exist in layout 2 detail events")
            head = _DETAIL_EVENT_L2.pack(self.total_length, self.event_type, self.flags,
                                         self.index_seq, self.timestamp)
        return head + bytes(self.payload)

    @classmethod
    def decode(cls, data, layout, offset=0):
        """Decodes the event at ``offset``; its total_length must fit in ``data``.
        Returns the event (its payload is a copy)."""
        _check_layout(layout)
        view = memoryview(data)[offset:]
        _need(view, DETAIL_EVENT_HEADER_SIZE, "detail event header")
        if layout == LAYOUT_1:
            total, etype, flags, iseq, tid, ts = _DETAIL_EVENT_L1.unpack_from(view, 0)
        else:
            total, etype, flags, iseq, ts = _DETAIL_EVENT_L2.unpack_from(view, 0)
            tid = 0
        if total < DETAIL_EVENT_HEADER_SIZE:
            raise AtfFormatError("detail event total_length %d is below 24" % total)
        if total > len(view):
            raise AtfFormatError("detail event total_length %d exceeds the %d bytes left"
                                 % (total, len(view)))
        return cls(etype, flags, iseq, ts, bytes(view[DETAIL_EVENT_HEADER_SIZE:total]), tid)


# ---- ARM64 function payload -----------------------------------------------

@dataclass
class Arm64Payload:
    function_id: int
    x: Tuple[int, ...]                 # x0..x7
    lr: int
    fp: int
    sp: int
    stack: bytes = b""
    stack_size: Optional[int] = None   # None: len(stack); set to forge mismatches
    reserved: int = 0

    def __post_init__(self):
        self.x = tuple(self.x)
        if len(self.x) != 8:
            raise AtfFormatError("ARM64 payload needs 8 x registers, got %d" % len(self.x))
        if self.stack_size is None:
            self.stack_size = len(self.stack)

    def encode(self, strict=True):
        """Bytes of the payload. ``strict`` requires stack_size == len(stack) <= 256;
        pass False to forge malformed payloads for negative tests."""
        if strict:
            if self.stack_size != len(self.stack):
                raise AtfFormatError("stack_size %d != %d stack bytes"
                                     % (self.stack_size, len(self.stack)))
            if self.stack_size > ARM64_STACK_MAX:
                raise AtfFormatError("stack_size %d exceeds 256" % self.stack_size)
        for i, v in enumerate(self.x):
            _check_range("x%d" % i, v, U64_MAX)
        for name in ("function_id", "lr", "fp", "sp"):
            _check_range(name, getattr(self, name), U64_MAX)
        _check_range("stack_size", self.stack_size, U16_MAX)
        _check_range("reserved", self.reserved, U16_MAX)
        return _ARM64_FIXED.pack(self.function_id, *self.x, self.lr, self.fp, self.sp,
                                 self.stack_size, self.reserved) + bytes(self.stack)

    @classmethod
    def decode(cls, payload):
        """Strict decode: exactly 100 + stack_size bytes and stack_size <= 256."""
        if len(payload) < ARM64_PAYLOAD_FIXED_SIZE:
            raise AtfFormatError("ARM64 payload is %d bytes, below 100" % len(payload))
        vals = _ARM64_FIXED.unpack_from(payload, 0)
        fid, xs, lr, fp, sp, ssize, res = vals[0], vals[1:9], vals[9], vals[10], vals[11], \
            vals[12], vals[13]
        if ssize > ARM64_STACK_MAX:
            raise AtfFormatError("ARM64 stack_size %d exceeds 256" % ssize)
        if len(payload) != ARM64_PAYLOAD_FIXED_SIZE + ssize:
            raise AtfFormatError("ARM64 payload is %d bytes, stack_size says %d"
                                 % (len(payload), ARM64_PAYLOAD_FIXED_SIZE + ssize))
        return cls(fid, xs, lr, fp, sp, bytes(payload[ARM64_PAYLOAD_FIXED_SIZE:]), ssize, res)

    @classmethod
    def try_decode(cls, payload):
        """The payload decoded, or None when it is not a well-formed ARM64 payload."""
        try:
            return cls.decode(payload)
        except AtfFormatError:
            return None
