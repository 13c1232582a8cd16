"""What a WTF file holds, as both the writer (the model a file is written
from: the oracle) and the reader (what it decoded) describe it. The dump
(dump.py) renders either one, so that a generator's expected dump never goes
through the reader it checks.

Argument values:
  bool                      True / False
  int8 ... uint32, flowId,  int
  time32
  float32                   float (the float32's exact value)
  ascii, utf8               bytes, or None (null)
  any                       bytes (the JSON text as stored), or None (null)
  T[]                       list of element values, or None (null)
"""

from tracepy.report import Note  # noqa: F401  (the reader's findings)

from . import wire


class ChunkInfo:
    __slots__ = ("index", "offset", "header", "cut", "strings", "unterminated")

    def __init__(self, index, offset, header, cut=False, strings=None, unterminated=b""):
        self.index, self.offset, self.header, self.cut = index, offset, header, cut
        self.strings = strings            # [bytes] of its string table, or None
        self.unterminated = unterminated  # bytes after the table's last NUL

    def __repr__(self):
        return "ChunkInfo(%d @%d id=%d type=%d len=%d%s)" % (
            self.index, self.offset, self.header.id, self.header.type, self.header.length,
            " cut" if self.cut else "")


class EventInfo:
    __slots__ = ("chunk", "offset", "wire_id", "define", "time", "zone", "depth", "values",
                 "size")

    def __init__(self, chunk, offset, wire_id, define, time, values, zone=None, depth=0,
                 size=None):
        self.chunk, self.offset, self.wire_id, self.define = chunk, offset, wire_id, define
        self.time, self.values, self.zone, self.depth, self.size = time, values, zone, depth, size

    @property
    def name(self):
        return self.define.name

    def args(self):
        """[(name, type, array, value)] in the define's order."""
        return [(a.name, a.type, a.array, v) for a, v in zip(self.define.args, self.values)]

    def arg(self, name):
        for a, v in zip(self.define.args, self.values):
            if a.name == name:
                return v
        raise KeyError(name)

    def key(self):
        """Everything a reader must agree on, for comparisons in tests."""
        return (self.chunk, self.offset, self.wire_id, self.define.name, self.time, self.zone,
                tuple(_hashable(v) for v in self.values))

    def __repr__(self):
        return "EventInfo(chunk %d @%d %s t=%d %r)" % (self.chunk, self.offset,
                                                        self.define.name.decode("latin-1"),
                                                        self.time, self.values)


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, float) and v != v:
        return "NaN"
    return v


class Trace:
    """A whole file: its header values, chunks and events, and (from the
    reader) how it ended."""

    COMPLETE, CRASH_TRUNCATED, DAMAGED = "complete", "crash-truncated", "damaged"

    def __init__(self):
        self.size = None
        self.magic = self.wtf_version = self.format_version = None
        self.header_bytes = None          # the file-header part's JSON text
        self.header = None                # its parsed value (canon.JsonObject ...), or None
        self.header_parsed = False
        self.chunks = []
        self.events = []
        self.state = self.COMPLETE
        self.notes = []                   # reader: [Note], in file order
        self.recovered = None             # reader: events of a cut chunk, or None
        self.bytes_unread = 0

    def events_of(self, chunk_index):
        return [e for e in self.events if e.chunk == chunk_index]


def cut_trace(m, cut):
    """The dump model of ``m``'s file cut to ``cut`` bytes, from SPEC-WTF 6:
    every complete chunk; of a cut chunk its line (when its header and part
    table are whole) and its complete events when its string table is whole
    too; nothing when the 12-byte header is cut."""
    t = Trace()
    if cut < 12:
        return t
    t.magic, t.wtf_version, t.format_version = m.magic, m.wtf_version, m.format_version
    by_chunk = {}
    for e in m.events:
        by_chunk.setdefault(e.chunk, []).append(e)
    for ci in m.chunks:
        if ci.offset + 24 > cut:
            break
        h = ci.header
        n = min(h.part_count, (cut - ci.offset - 24) // 12)
        if n < h.part_count:
            break       # no chunk line: its part table is not whole
        hh = wire.ChunkHeader(h.id, h.type, h.length, h.start, h.end, h.part_count, h.parts[:n])
        t.chunks.append(ChunkInfo(ci.index, ci.offset, hh, ci.offset + h.length > cut))
        if ci.index == 0 and h.type == wire.CHUNK_FILE_HEADER and n == h.part_count:
            hp = [p for p in h.parts if p.type == wire.PART_FILE_HEADER]
            if hp and hp[0].file_offset + hp[0].length <= cut:
                t.header, t.header_parsed = m.header, m.header_parsed
        whole_table = n == h.part_count and all(
            p.file_offset + p.length <= cut for p in h.parts if p.type == wire.PART_STRING_TABLE)
        if ci.offset + h.length <= cut or whole_table:
            t.events += [e for e in by_chunk.get(ci.index, ()) if e.offset + e.size <= cut]
    return t
