"""Reading binary WTF files: the file header, the chunks and their part
tables, the file-header JSON, string tables, defines (signatures parsed),
every event with its typed arguments, zones and scope depth, and what is left
of a file whose writer died (crash-truncated).

    trace = read_trace(data)          # model.Trace, never raises on bad bytes

The reader never trusts a count or a length: it reads only bytes that are
there. What it cannot read becomes a Note (trace.notes) with its kind:

  "unsupported"  the legacy big-endian format or a JSON file (nothing read)
  "fatal"        the file header is not a WTF header (nothing read)
  "chunk"        a chunk header or part table that cannot be read: nothing
                 after it is trusted (reading stops)
  "damage"       a chunk or event that cannot be decoded: the rest of that
                 chunk is skipped, reading goes on with the next chunk
  "cut"          the end of a crash-truncated file (the last chunk runs past
                 the end of the file, or the file ends inside a header)
  "info"         parts the dump does not decode (JSON / legacy buffers, ...)

trace.state is complete, crash-truncated (only "cut" and "info" notes) or
damaged.
"""

from . import wire
from .canon import parse_json
from .model import ChunkInfo, EventInfo, Note, Trace
from .wire import (CHUNK_EVENT_DATA, CHUNK_FILE_HEADER, CHUNK_HEADER_SIZE, DEFINE_EVENT,
                   FILE_HEADER_SIZE, PART_BINARY_EVENTS, PART_ENTRY_SIZE, PART_FILE_HEADER,
                   PART_JSON_EVENTS, PART_LEGACY_EVENTS, PART_STRING_TABLE, STRING_EMPTY,
                   STRING_NULL, ChunkHeader, Define, Part, SignatureError, u32)

MAX_PARTS = 64


class EventError(Exception):
    def __init__(self, offset, field, message):
        Exception.__init__(self, message)
        self.offset, self.field, self.message = offset, field, message


def split_strings(data):
    """([bytes] of a string table, bytes after its last NUL)."""
    items = bytes(data).split(b"\0")
    return items[:-1], items[-1]


def header_prefix_ok(data):
    """True when ``data`` (shorter than 12 bytes) could be the start of a
    WTF file header: the magic's bytes so far, then the start of any
    version, the format version's bytes so far."""
    want = wire.p32(wire.MAGIC)
    if data[:4] != want[:len(data[:4])]:
        return False
    fv = data[8:12]
    return fv == wire.p32(wire.FORMAT_VERSION)[:len(fv)]


class Reader:
    def __init__(self, data, name="trace.wtf-trace"):
        self.data, self.name = memoryview(data).tobytes(), name
        self.t = Trace()
        self.t.size = len(self.data)
        self.defines = {wire.WIRE_DEFINE: DEFINE_EVENT}
        self.zone = None
        self.depth = {}

    def note(self, kind, offset, field, message, chunk=None):
        self.t.notes.append(Note(kind, offset, field, message, chunk))
        if kind in ("damage", "chunk", "fatal", "unsupported"):
            self.t.state = Trace.DAMAGED
        elif kind == "cut" and self.t.state == Trace.COMPLETE:
            self.t.state = Trace.CRASH_TRUNCATED

    # ---- file header
    def read(self):
        d, t = self.data, self.t
        if len(d) < FILE_HEADER_SIZE:
            if header_prefix_ok(d):
                self.note("cut", 0, "header", "the file ends inside its 12-byte header (%d bytes)"
                          % len(d))
                t.recovered = 0
            else:
                self.note("fatal", 0, "magic", "not a WTF file: %d bytes, not a WTF header"
                          % len(d))
            return t
        t.magic, t.wtf_version, t.format_version = u32(d, 0), u32(d, 4), u32(d, 8)
        if t.magic == wire.MAGIC_LEGACY:
            self.note("unsupported", 0, "magic", "the legacy big-endian WTF format (magic "
                      "read as 0xEFBEADDE) is not supported")
            return t
        if t.magic != wire.MAGIC:
            if d.lstrip(b" \t\r\n")[:1] == b"{":
                self.note("unsupported", 0, "magic", "a JSON WTF file is not supported")
            else:
                self.note("fatal", 0, "magic", "magic is 0x%08x, not 0xDEADBEEF" % t.magic)
            return t
        if t.format_version != wire.FORMAT_VERSION:
            self.note("fatal", 8, "format_version", "format version %d, not 10"
                      % t.format_version)
            return t
        self.read_chunks()
        return t

    # ---- chunks
    def read_chunks(self):
        d, t = self.data, self.t
        pos, index = FILE_HEADER_SIZE, 0
        while pos < len(d):
            avail = len(d) - pos
            if avail < CHUNK_HEADER_SIZE:
                self.note("cut", pos, "chunk", "the file ends inside a chunk header (%d of 24 "
                          "bytes)" % avail, index)
                t.bytes_unread = avail
                return
            h = ChunkHeader.decode_fixed(d, pos)
            need = CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * h.part_count
            if h.part_count > MAX_PARTS:
                self.note("chunk", pos + 20, "part_count", "chunk %d lists %d parts (at most %d)"
                          % (index, h.part_count, MAX_PARTS), index)
                return
            if h.length < need:
                self.note("chunk", pos + 8, "length", "chunk %d length %d does not hold its "
                          "header and %d part entries (%d bytes)" % (index, h.length,
                                                                     h.part_count, need), index)
                return
            ntable = min(h.part_count, (avail - CHUNK_HEADER_SIZE) // PART_ENTRY_SIZE)
            base = pos + need
            for k in range(ntable):
                e = pos + CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * k
                p = Part(u32(d, e), u32(d, e + 4), u32(d, e + 8))
                p.file_offset = base + p.offset
                h.parts.append(p)
            cut = pos + h.length > len(d)
            ci = ChunkInfo(index, pos, h, cut)
            t.chunks.append(ci)
            if ntable < h.part_count:
                self.note("cut", pos, "parts", "the file ends inside chunk %d's part table "
                          "(%d of %d entries)" % (index, ntable, h.part_count), index)
                t.recovered = 0
                t.bytes_unread = avail
                return
            bad = self.check_parts(ci, need)
            if bad:
                self.note("chunk", *bad, chunk=index)
                return
            if cut:
                self.read_cut_chunk(ci)
                return
            self.read_chunk(ci)
            pos += h.length
            index += 1

    def check_parts(self, ci, need):
        """(offset, field, message) of the first part that does not lie
        4-byte aligned inside the chunk, or overlaps another; else None."""
        h = ci.header
        room = h.length - need
        spans = []
        for k, p in enumerate(h.parts):
            at = ci.offset + CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * k
            if p.offset % 4:
                return (at + 4, "offset", "chunk %d part %d offset %d is not a multiple of 4"
                        % (ci.index, k, p.offset))
            if p.offset + p.length > room:
                return (at + 8, "length", "chunk %d part %d (offset %d, length %d) runs past "
                        "the chunk's %d bytes of parts" % (ci.index, k, p.offset, p.length, room))
            spans.append((p.offset, p.offset + p.length, k, at))
        spans.sort()
        for (a0, a1, ka, _), (b0, b1, kb, at) in zip(spans, spans[1:]):
            if b0 < a1 and b1 > b0 and a1 > a0:
                return (at + 4, "offset", "chunk %d parts %d and %d overlap" % (ci.index, ka, kb))
        return None

    def part_bytes(self, p):
        return self.data[p.file_offset:p.file_offset + p.length]

    def read_chunk(self, ci):
        h = ci.header
        if ci.index == 0 or h.type == CHUNK_FILE_HEADER:
            if h.type == CHUNK_FILE_HEADER:
                self.read_file_header_part(ci)
            return
        if h.type == CHUNK_EVENT_DATA:
            self.read_event_chunk(ci, len(self.data))

    def read_file_header_part(self, ci):
        t = self.t
        parts = [p for p in ci.header.parts if p.type == PART_FILE_HEADER]
        if not parts or t.header_bytes is not None:
            return
        p = parts[0]
        end = min(p.file_offset + p.length, len(self.data))
        if p.file_offset + p.length > len(self.data):
            return                    # cut: no readable file-header part
        t.header_bytes = self.data[p.file_offset:end]
        try:
            t.header, t.header_parsed = parse_json(t.header_bytes), True
        except (ValueError, RecursionError) as e:
            self.note("damage", p.file_offset, "file_header", "the file-header part is not "
                      "JSON: %s" % e, ci.index)

    def read_cut_chunk(self, ci):
        t, d = self.t, self.data
        h = ci.header
        end = len(d)
        t.bytes_unread = end - ci.offset
        if h.type == CHUNK_FILE_HEADER or ci.index == 0:
            self.read_file_header_part(ci)
            self.note("cut", ci.offset, "length", "the file ends inside chunk %d (%d of %d "
                      "bytes): 0 events recovered" % (ci.index, end - ci.offset, h.length),
                      ci.index)
            t.recovered = 0
            return
        if h.type != CHUNK_EVENT_DATA:
            self.note("cut", ci.offset, "length", "the file ends inside chunk %d (%d of %d bytes)"
                      % (ci.index, end - ci.offset, h.length), ci.index)
            t.recovered = 0
            return
        n, last = self.read_event_chunk(ci, end)
        t.recovered = n
        t.bytes_unread = end - last
        self.note("cut", ci.offset, "length", "the file ends inside chunk %d (%d of %d bytes): "
                  "%d events recovered, %d bytes at the end not read"
                  % (ci.index, end - ci.offset, h.length, n, end - last), ci.index)

    def read_event_chunk(self, ci, end):
        """Decodes the chunk's binary event buffer up to file offset ``end``.
        Returns (events decoded, file offset after the last one)."""
        h = ci.header
        tables = [p for p in h.parts if p.type == PART_STRING_TABLE]
        bufs = [p for p in h.parts if p.type == PART_BINARY_EVENTS]
        for p in h.parts:
            if p.type in (PART_JSON_EVENTS, PART_LEGACY_EVENTS):
                self.note("info", p.file_offset, "part", "chunk %d: a %s event buffer is not "
                          "decoded" % (ci.index, "JSON" if p.type == PART_JSON_EVENTS
                                       else "legacy"), ci.index)
        last = ci.offset
        if tables:
            st = tables[0]
            if st.file_offset + st.length > end:
                return 0, last           # cut inside the string table: no event is trusted
            ci.strings, ci.unterminated = split_strings(self.part_bytes(st))
        else:
            ci.strings = []
        if not bufs:
            return 0, last
        b = bufs[0]
        if b.file_offset > end:
            return 0, last
        stop = min(b.file_offset + b.length, end)
        pos, n = b.file_offset, 0
        last = pos
        while pos < stop:
            if b.file_offset + b.length > end and pos + 8 > end:
                break                                  # the crash cut
            try:
                ev = self.decode_event(ci, pos, b.file_offset + b.length, end)
            except EventError as e:
                if e.field == "cut":
                    break
                self.note("damage", e.offset, e.field, "chunk %d: %s; the rest of the chunk "
                          "(%d bytes) is not read" % (ci.index, e.message,
                                                      b.file_offset + b.length - pos), ci.index)
                return n, pos
            self.t.events.append(ev)
            n += 1
            pos += ev.size
            last = pos
        return n, last

    # ---- events
    def decode_event(self, ci, pos, buf_end, end):
        """The event at ``pos`` of a buffer ending at ``buf_end`` (the file
        ending at ``end``). Raises EventError(field "cut") for an event that
        the end of a crash-truncated file cuts."""
        d = self.data

        def need(at, n, field):
            if at + n > buf_end:
                raise EventError(at, field, "the event at offset %d runs past the end of its "
                                 "buffer (field %s)" % (pos, field))
            if at + n > end:
                raise EventError(at, "cut", "cut")

        need(pos, 8, "wire_id")
        wire_id, time = u32(d, pos), u32(d, pos + 4)
        define = self.defines.get(wire_id)
        if define is None:
            raise EventError(pos, "wire_id", "wire id %d is not defined" % wire_id)
        at = pos + 8
        values = []
        for a in define.args:
            if a.array:
                need(at, 4, a.name)
                count = int.from_bytes(d[at:at + 4], "little", signed=True)
                at += 4
                if count == -1:
                    values.append(None)
                    continue
                if count < -1:
                    raise EventError(at - 4, a.name, "array %s has length %d" % (a.name, count))
                size = wire.elem_size(a.type)
                nbytes = wire.pad4(count * size)
                need(at, nbytes, a.name)
                elems = []
                for k in range(count):
                    raw = d[at + k * size:at + (k + 1) * size]
                    elems.append(self.resolve(ci, a, wire.decode_scalar(a.type, raw),
                                              at + k * size))
                values.append(elems)
                at += nbytes
            else:
                need(at, 4, a.name)
                values.append(self.resolve(ci, a, wire.decode_scalar(a.type, d[at:at + 4]), at))
                at += 4
        ev = EventInfo(ci.index, pos, wire_id, define, time, values, zone=self.zone,
                       size=at - pos)
        self.apply(ev, ci)
        return ev

    def resolve(self, ci, a, v, at):
        if a.type not in wire.STRING_TYPES and a.type != "any":
            return v
        if v == STRING_NULL:
            return None
        if v == STRING_EMPTY:
            return b""
        if v >= len(ci.strings):
            raise EventError(at, a.name, "string ordinal %d of %s is outside the chunk's "
                             "string table (%d strings)" % (v, a.name, len(ci.strings)))
        return ci.strings[v]

    def apply(self, ev, ci):
        """What an event changes: defines, the current zone, scope depth."""
        b = ev.define.builtin
        zone = self.zone
        ev.depth = self.depth.get(zone, 0)
        if ev.wire_id == wire.WIRE_DEFINE or b == "wtf.event#define":
            wid, cls, flags, name, sig = ev.values
            if name is None:
                raise EventError(ev.offset + 20, "name", "a define with a null name")
            try:
                args = wire.parse_signature(sig or b"")
            except SignatureError as e:
                raise EventError(ev.offset + 24, "args", "define of %s (wire id %d): bad "
                                 "signature: %s" % (name.decode("latin-1"), wid, e))
            old = self.defines.get(wid)
            if wid == wire.WIRE_DEFINE:
                return      # wtf.event#define defining itself (the JS writer does)
            if old is None or (old.name, old.args) != (name, args):
                self.defines[wid] = Define(wid, cls, flags, name, sig, args)
            return
        if b == "wtf.zone#set" and ev.define.args and ev.define.args[0].name == "zoneId":
            self.zone = ev.values[0]
        elif b == "wtf.scope#leave":
            if self.depth.get(zone, 0) > 0:
                self.depth[zone] -= 1
            ev.depth = self.depth.get(zone, 0)
        elif ev.define.event_class == wire.CLASS_SCOPE:
            self.depth[zone] = self.depth.get(zone, 0) + 1


def read_trace(data, name="trace.wtf-trace"):
    return Reader(data, name).read()
