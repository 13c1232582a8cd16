"""The fixed structures of the binary WTF chunked file format and the event
type system, written from the source documents (the seed "wtf-trace File
Format", /work/shared/NEIGHBOURS.md, docs/wtf-dump-format.md,
conformance/SPEC-WTF.md); nothing here comes from the C codec.

Byte layouts (all little-endian u32):

file header (12)     magic 0xDEADBEEF, wtf_version, format_version (10)
chunk header (24)    id, type, length (header + part table + padded parts),
                     start, end, part_count
part entry (12)      type, offset (from the end of the chunk header: the
                     part table counts), length (not padded)
event                wire_id, time, then the arguments in 4-byte slots

Argument slots: bool/int8/uint8 use the low byte of a 4-byte slot,
int16/uint16 the low 2 bytes, int32/uint32/float32/flowId/time32 all 4;
ascii/utf8/any are a u32 string-table ordinal (0xFFFFFFFF null, 0xFFFFFFFE
the empty string). ``T[]`` is an i32 element count (-1: null) followed by
the elements packed (1, 2 or 4 bytes each; strings as ordinals) and padded
to a multiple of 4.
"""

import re
import struct

import tracepy.binary as _binary

MAGIC = 0xDEADBEEF
MAGIC_LEGACY = 0xEFBEADDE          # the legacy big-endian format, read little-endian
FORMAT_VERSION = 10
VERSION_JS = 0x90BA3800            # wtf.version.getValue() of the JS library, 2015.7.15
VERSION_CPP = 0xE8214400           # what the C++ bindings write

FILE_HEADER_SIZE = 12
CHUNK_HEADER_SIZE = 24
PART_ENTRY_SIZE = 12
NO_TIME = 0xFFFFFFFF

CHUNK_FILE_HEADER = 0x1
CHUNK_EVENT_DATA = 0x2

PART_FILE_HEADER = 0x10000
PART_JSON_EVENTS = 0x20000
PART_LEGACY_EVENTS = 0x20001
PART_BINARY_EVENTS = 0x20002
PART_STRING_TABLE = 0x30000
PART_BINARY_RESOURCE = 0x40000
PART_STRING_RESOURCE = 0x40001
KNOWN_PARTS = (PART_FILE_HEADER, PART_JSON_EVENTS, PART_LEGACY_EVENTS, PART_BINARY_EVENTS,
               PART_STRING_TABLE, PART_BINARY_RESOURCE, PART_STRING_RESOURCE)

STRING_NULL = 0xFFFFFFFF
STRING_EMPTY = 0xFFFFFFFE

CLASS_INSTANCE = 0
CLASS_SCOPE = 1
FLAG_HIGH_FREQUENCY = 0x02
FLAG_SYSTEM_TIME = 0x04
FLAG_INTERNAL = 0x08
FLAG_APPEND_SCOPE_DATA = 0x10
FLAG_BUILTIN = 0x20
FLAG_APPEND_FLOW_DATA = 0x40

WIRE_DEFINE = 1
U32_MAX = 0xFFFFFFFF


u32 = _binary.u32            # the little-endian u32 at off


def p32(v):
    return (v & U32_MAX).to_bytes(4, "little")


def pad4(n):
    return (n + 3) & ~3


# ---- Fixed structures ----------------------------------------------------------

def encode_file_header(wtf_version=VERSION_JS, format_version=FORMAT_VERSION, magic=MAGIC):
    return p32(magic) + p32(wtf_version) + p32(format_version)


class Part:
    __slots__ = ("type", "offset", "length", "file_offset")

    def __init__(self, type, offset, length, file_offset=None):
        self.type, self.offset, self.length, self.file_offset = type, offset, length, file_offset

    def entry(self):
        return p32(self.type) + p32(self.offset) + p32(self.length)

    def __repr__(self):
        return "Part(0x%x, %d, %d)" % (self.type, self.offset, self.length)


class ChunkHeader:
    """The 24-byte chunk header and its part table."""
    __slots__ = ("id", "type", "length", "start", "end", "part_count", "parts")

    def __init__(self, id, type, length, start, end, part_count, parts=()):
        self.id, self.type, self.length = id, type, length
        self.start, self.end, self.part_count = start, end, part_count
        self.parts = list(parts)

    def encode(self):
        return b"".join(p32(v) for v in (self.id, self.type, self.length, self.start, self.end,
                                         self.part_count)) + b"".join(p.entry() for p in self.parts)

    @classmethod
    def decode_fixed(cls, data, off):
        """The six u32 at ``off`` (the caller checked there are 24 bytes)."""
        return cls(*(u32(data, off + 4 * k) for k in range(6)))


# ---- Types and signatures --------------------------------------------------------

# name -> (slot kind, element size in an array)
TYPES = {
    "bool": ("u", 1), "int8": ("s", 1), "uint8": ("u", 1), "int16": ("s", 2),
    "uint16": ("u", 2), "int32": ("s", 4), "uint32": ("u", 4), "float32": ("f", 4),
    "flowId": ("u", 4), "time32": ("u", 4), "ascii": ("str", 4), "utf8": ("str", 4),
    "any": ("any", 4),
    # The JS library also accepts these (wtf-real-facts.md): a character code
    # in one byte, a UTF-16 code unit in two.
    "char": ("u", 1), "wchar": ("u", 2),
}
STRING_TYPES = ("ascii", "utf8")


def slot_bytes(t):
    """Bytes a scalar of type ``t`` uses in its 4-byte slot."""
    return 4 if TYPES[t][0] in ("str", "any", "f") else TYPES[t][1]


def elem_size(t):
    return TYPES[t][1]


class SignatureError(ValueError):
    def __init__(self, message, position):
        ValueError.__init__(self, message)
        self.position = position


_ITEM = re.compile(r"([A-Za-z0-9_$]+)(\[\])?[ \t]+([A-Za-z0-9_$]+)\Z")
_BLANKS = " \t"
MAX_ARGS = 64


class Arg:
    __slots__ = ("name", "type", "array")

    def __init__(self, name, type, array=False):
        self.name, self.type, self.array = name, type, bool(array)

    def spelled(self):
        return "%s%s %s" % (self.type, "[]" if self.array else "", self.name)

    def __eq__(self, other):
        return isinstance(other, Arg) and (self.name, self.type, self.array) == (
            other.name, other.type, other.array)

    def __repr__(self):
        return "Arg(%r)" % self.spelled()


def parse_signature(sig):
    """[Arg] of an argument signature (SPEC-WTF 4.2): for each argument its
    type (optionally ``[]``), one or more spaces or tabs, its name (letters,
    digits, ``_``, ``$``); arguments separated by ``,`` with optional blanks
    around it, blanks allowed before the first and after the last; None,
    empty or only blanks for none; at most 64 arguments, no name twice.
    Raises SignatureError (with the character position) otherwise."""
    if sig is None:
        return []
    if isinstance(sig, (bytes, bytearray)):
        try:
            sig = bytes(sig).decode("ascii")
        except UnicodeDecodeError as e:
            raise SignatureError("non-ASCII byte in the signature", e.start)
    if sig.strip(_BLANKS) == "":
        return []
    out, names, pos = [], set(), 0
    for item in sig.split(","):
        at = pos + len(item) - len(item.lstrip(_BLANKS))
        m = _ITEM.match(item.strip(_BLANKS))
        if not m:
            raise SignatureError("argument %r is not `type name` (blanks between)"
                                 % item.strip(_BLANKS), at)
        tname, array, name = m.group(1), m.group(2), m.group(3)
        if tname not in TYPES:
            raise SignatureError("unknown argument type %r" % tname, at)
        if name in names:
            raise SignatureError("argument name %r appears twice" % name,
                                 at + len(tname) + len(array or "") + 1)
        names.add(name)
        out.append(Arg(name, tname, array))
        if len(out) > MAX_ARGS:
            raise SignatureError("more than %d arguments" % MAX_ARGS, at)
        pos += len(item) + 1
    return out


def format_signature(args):
    return ", ".join(a.spelled() for a in args)


class Define:
    """One event type: from a ``wtf.event#define`` event or built in (wire id 1)."""
    __slots__ = ("wire_id", "event_class", "flags", "name", "signature", "args")

    def __init__(self, wire_id, event_class, flags, name, signature, args=None):
        self.wire_id, self.event_class, self.flags = wire_id, event_class, flags
        self.name = name                 # bytes
        self.signature = signature       # bytes, as stored
        self.args = parse_signature(signature) if args is None else args

    @property
    def builtin(self):
        return BUILTIN_BY_NAME.get(self.name)

    def __repr__(self):
        return "Define(%d, %r, %r)" % (self.wire_id, self.name, self.signature)


# The built-in events (NEIGHBOURS.md; wire ids, classes, flags and the null
# signature of argument-less events as the JS library writes them, from
# /work/notes/wtf-real-facts.md): (JS wire id, name, class, flags, signature).
BUILTINS = (
    (1, "wtf.event#define", 0, 40,
     "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args"),
    (2, "wtf.trace#discontinuity", 0, 32, None),
    (3, "wtf.zone#create", 0, 40, "uint16 zoneId, ascii name, ascii type, ascii location"),
    (4, "wtf.zone#delete", 0, 40, "uint16 zoneId"),
    (5, "wtf.zone#set", 0, 40, "uint16 zoneId"),
    (6, "wtf.scope#enter", 1, 32, "ascii name"),
    (7, "wtf.scope#enterTracing", 1, 44, None),
    (8, "wtf.scope#leave", 0, 40, None),
    (9, "wtf.scope#appendData", 0, 56, "ascii name, any value"),
    (10, "wtf.flow#branch", 0, 40, "flowId id, flowId parentId, ascii name, any value"),
    (11, "wtf.flow#extend", 0, 40, "flowId id, ascii name, any value"),
    (12, "wtf.flow#terminate", 0, 40, "flowId id, any value"),
    (13, "wtf.flow#appendData", 0, 104, "flowId id, ascii name, any value"),
    (14, "wtf.trace#mark", 0, 40, "ascii name, any value"),
    (15, "wtf.trace#timeStamp", 0, 32, "ascii name, any value"),
    (16, "wtf.timeRange#begin", 0, 40, "uint32 id, ascii name, any value"),
    (17, "wtf.timeRange#end", 0, 40, "uint32 id"),
)
JS_FIRST_USER_WIRE = 29      # 18..28: provider events node registers but does not use


class Builtin:
    __slots__ = ("js_wire_id", "name", "event_class", "flags", "signature")

    def __init__(self, js_wire_id, name, event_class, flags, signature):
        self.js_wire_id, self.name = js_wire_id, name.encode()
        self.event_class, self.flags = event_class, flags
        self.signature = None if signature is None else signature.encode()


BUILTIN = {b.name: b for b in (Builtin(*x) for x in BUILTINS)}
BUILTIN_BY_NAME = {n: n.decode() for n in BUILTIN}
DEFINE_EVENT = Define(WIRE_DEFINE, CLASS_INSTANCE, 40, b"wtf.event#define",
                      BUILTIN[b"wtf.event#define"].signature)


# ---- Argument values --------------------------------------------------------------

def f32(x):
    """The float32 nearest to ``x``, as a Python float (exact)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def decode_scalar(t, raw):
    """Value of a scalar of type ``t`` from its ``elem_size`` or slot bytes
    (strings: the ordinal)."""
    kind, size = TYPES[t]
    if kind == "f":
        return struct.unpack("<f", raw[:4])[0]
    if kind in ("str", "any"):
        return int.from_bytes(raw[:4], "little")
    if t == "bool":
        return raw[0] != 0
    v = int.from_bytes(raw[:size], "little")
    if kind == "s" and v >= 1 << (8 * size - 1):
        v -= 1 << (8 * size)
    return v


def encode_scalar(t, v, size):
    """``size`` bytes of value ``v`` of type ``t`` (strings: ``v`` is the ordinal)."""
    kind, natural = TYPES[t]
    if kind == "f":
        return struct.pack("<f", v) + bytes(size - 4)
    if t == "bool":
        v = 1 if v else 0
    if isinstance(v, bool):
        v = int(v)
    return (v & ((1 << (8 * min(size, 4))) - 1)).to_bytes(size, "little")
