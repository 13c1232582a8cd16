"""Writing WTF files: raw builders that write any bytes a test needs (broken
files included), and a normal writer (TraceWriter) that records, beside the
bytes, the model of what it wrote (model.Trace): the oracle of the dump.

Raw builders
  file_header(...)                     the 12-byte file header
  string_table(strings, trailing_nul)  a string-table part
  encode_args(args, values, table)     argument bytes of one event
  encode_event(wire_id, time, args)    one event
  build_chunk(...)                     a chunk: header, part table, parts,
                                       with any field overridden
  header_chunk(json, ...)              the file-header chunk

TraceWriter writes what the JS library or the C++ bindings write (chunk
ids, versions, string tables), rotates event chunks by size, and keeps the
model: chunk offsets and headers, every event with its offset, zone and
arguments.
"""

import json

from . import wire
from .canon import parse_json
from .model import ChunkInfo, EventInfo, Trace
from .wire import (CHUNK_EVENT_DATA, CHUNK_FILE_HEADER, CHUNK_HEADER_SIZE, DEFINE_EVENT,
                   NO_TIME, PART_BINARY_EVENTS, PART_ENTRY_SIZE, PART_FILE_HEADER,
                   PART_STRING_TABLE, STRING_EMPTY, STRING_NULL, ChunkHeader, Define, Part,
                   p32, pad4)

file_header = wire.encode_file_header


def as_bytes(s):
    if s is None or isinstance(s, bytes):
        return s
    if isinstance(s, (bytearray, memoryview)):
        return bytes(s)
    return s.encode("utf-8")


class StringTable:
    """A chunk's string table being written. ``empty_ordinal``: write "" as
    the ordinal 0xFFFFFFFE (as the JS library does) instead of a table entry;
    ``dedup``: one entry per distinct string."""

    def __init__(self, empty_ordinal=True, dedup=False):
        self.strings, self.empty_ordinal, self.dedup = [], empty_ordinal, dedup
        self._seen = {}

    def add(self, s):
        s = as_bytes(s)
        if s is None:
            return STRING_NULL
        if s == b"" and self.empty_ordinal:
            return STRING_EMPTY
        if b"\0" in s:
            raise ValueError("a string-table string cannot hold NUL: %r" % s)
        if self.dedup and s in self._seen:
            return self._seen[s]
        self.strings.append(s)
        self._seen.setdefault(s, len(self.strings) - 1)
        return len(self.strings) - 1

    def __len__(self):
        return len(self.strings)


def string_table(strings, trailing_nul=False):
    """Bytes of a string-table part: every string followed by NUL, and one more
    NUL when ``trailing_nul`` (the seed's form)."""
    return b"".join(as_bytes(s) + b"\0" for s in strings) + (b"\0" if trailing_nul else b"")


def encode_value(t, array, v, table):
    """Bytes of one argument of type ``t`` (``array``: ``t[]``)."""
    if array:
        if v is None:
            return p32(-1)
        size = wire.elem_size(t)
        body = b"".join(wire.encode_scalar(t, _ordinal(t, x, table), size) for x in v)
        return p32(len(v)) + body + bytes(pad4(len(body)) - len(body))
    return wire.encode_scalar(t, _ordinal(t, v, table), 4)


def _ordinal(t, v, table):
    if t in wire.STRING_TYPES or t == "any":
        if isinstance(v, int) and not isinstance(v, bool):
            return v                       # a raw ordinal, as given
        return table.add(v)
    return v


def encode_args(args, values, table):
    if len(args) != len(values):
        raise ValueError("%d values for %d arguments" % (len(values), len(args)))
    return b"".join(encode_value(a.type, a.array, v, table) for a, v in zip(args, values))


def encode_event(wire_id, time, args=b""):
    return p32(wire_id) + p32(time) + args


def parts_base(part_count):
    """Bytes from the chunk's start to where part offset 0 points."""
    return CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * part_count


def build_chunk(id, type, parts, start=NO_TIME, end=NO_TIME, *, length=None, part_count=None,
                entries=None, fill=b"\0"):
    """A chunk: ``parts`` is [(type, bytes)], laid out in order, each padded to
    4 bytes with ``fill`` bytes (the padding's content is not defined).
    ``length`` / ``part_count`` override the header fields; ``entries``
    replaces the part table with [(type, offset, length)] (the part bytes
    stay where the default table puts them)."""
    parts = [(t, as_bytes(d)) for t, d in parts]
    table, body, off = [], b"", 0
    for t, d in parts:
        table.append((t, off, len(d)))
        padding = pad4(len(d)) - len(d)
        body += d + (fill * padding)[:padding]
        off += pad4(len(d))
    if entries is not None:
        table = list(entries)
    n = len(table)
    head_len = parts_base(n)
    real_length = head_len + len(body)
    h = ChunkHeader(id, type, real_length if length is None else length, start, end,
                    n if part_count is None else part_count,
                    [Part(t, o, ln) for t, o, ln in table])
    return h.encode() + body


def header_json(timebase=1.4e12, *, flags=(), context_uri="file://", extra=None):
    """A file-header JSON object (as an ordered list of pairs), the way the JS
    library lays it out."""
    o = [("flags", list(flags)), ("timebase", timebase),
         ("contextInfo", {"contextType": "script", "uri": context_uri})]
    for k, v in (extra or []):
        o.append((k, v))
    return o


def dump_header_json(obj):
    """JSON text of an ordered object (list of pairs / dict) for the header part."""
    if isinstance(obj, (bytes, str)):
        return as_bytes(obj)
    if isinstance(obj, list):
        obj = _ordered(obj)
    return json.dumps(obj, separators=(",", ":")).encode("utf-8")


def _ordered(pairs):
    from collections import OrderedDict
    return OrderedDict(pairs)


def header_chunk(header, *, id=0, start=NO_TIME, end=NO_TIME, extra_parts=(), **kw):
    """The file-header chunk: one 0x10000 part holding ``header`` (JSON text,
    or an object to serialize)."""
    return build_chunk(id, CHUNK_FILE_HEADER,
                       [(PART_FILE_HEADER, dump_header_json(header))] + list(extra_parts),
                       start, end, **kw)


# ---- The normal writer ----------------------------------------------------------

class Flavor:
    """What differs between real writers.

    js   the JS library (2015.7.15): version 0x90BA3800, chunk start/end
         0xFFFFFFFF, built-ins under their fixed wire ids 1..17, user events
         from 29, chunk ids from a process-wide counter (given per chunk),
         no trailing NUL after the string table.
    cpp  the C++ bindings: version 0xE8214400, header chunk id 1, every event
         chunk id 2, wire ids given out in order of definition from 2.
    """

    def __init__(self, *, name, wtf_version, header_chunk_id, event_chunk_id, chunk_times,
                 builtin_wire_ids, first_user_wire, trailing_nul=False, empty_ordinal=True,
                 redefine_each_chunk=False):
        self.name, self.wtf_version = name, wtf_version
        self.header_chunk_id = header_chunk_id
        self.event_chunk_id = event_chunk_id    # int, or "count": 1, 2, ... after the header
        self.chunk_times = chunk_times          # "none" (0xFFFFFFFF) or "events" (first/last)
        self.builtin_wire_ids, self.first_user_wire = builtin_wire_ids, first_user_wire
        self.trailing_nul, self.empty_ordinal = trailing_nul, empty_ordinal
        self.redefine_each_chunk = redefine_each_chunk


JS = Flavor(name="js", wtf_version=wire.VERSION_JS, header_chunk_id=0, event_chunk_id="count",
            chunk_times="none", builtin_wire_ids=True, first_user_wire=wire.JS_FIRST_USER_WIRE)
CPP = Flavor(name="cpp", wtf_version=wire.VERSION_CPP, header_chunk_id=1, event_chunk_id=2,
             chunk_times="events", builtin_wire_ids=False, first_user_wire=2,
             redefine_each_chunk=True)


class TraceWriter:
    """Writes a WTF file and its model.

        w = TraceWriter(header=header_json(1.4e12))
        outer = w.define("app#outer", "uint32 n", wire.CLASS_SCOPE)
        w.event(outer, 10, 7)
        w.leave(20)
        data = w.finish()           # bytes; w.trace is the model

    Built-in events are defined on first use (under their JS wire ids in the
    js flavor). A chunk is closed when its event buffer reaches
    ``chunk_bytes`` or by end_chunk(), which may give its id and times.
    """

    def __init__(self, *, flavor=JS, header=None, wtf_version=None, chunk_bytes=1 << 20,
                 header_parts=None, header_chunk_id=None, header_times=(NO_TIME, NO_TIME),
                 header_fill=b"\0"):
        self.flavor = flavor
        self.wtf_version = flavor.wtf_version if wtf_version is None else wtf_version
        self.header = header_json() if header is None else header
        self.chunk_bytes = chunk_bytes
        self.out = bytearray(file_header(self.wtf_version))
        self.trace = Trace()
        t = self.trace
        t.magic, t.wtf_version, t.format_version = wire.MAGIC, self.wtf_version, wire.FORMAT_VERSION
        hb = dump_header_json(self.header)
        t.header_bytes = hb
        try:
            t.header, t.header_parsed = parse_json(hb), True
        except ValueError:
            t.header, t.header_parsed = None, False
        hparts = [(PART_FILE_HEADER, hb)] if header_parts is None else [
            (PART_FILE_HEADER, hb) if p == "header" else p for p in header_parts]
        self._add_chunk(flavor.header_chunk_id if header_chunk_id is None else header_chunk_id,
                        CHUNK_FILE_HEADER, hparts, header_times[0], header_times[1], header_fill)
        self.defines = {wire.WIRE_DEFINE: DEFINE_EVENT}
        self.by_name = {}
        self.next_wire = flavor.first_user_wire
        self.zone = None
        self.depth = {}
        self._open_chunk()

    # -- chunks
    def _open_chunk(self):
        self.table = StringTable(empty_ordinal=self.flavor.empty_ordinal)
        self.buf = bytearray()
        self.pending = []          # (position in buffer, EventInfo without offset/chunk)
        self.times = []
        if self.flavor.redefine_each_chunk and len(self.trace.chunks) > 1:
            for d in sorted(self.defines.values(), key=lambda d: d.wire_id):
                if d.wire_id != wire.WIRE_DEFINE:
                    self._write_define(d, 0)

    def _add_chunk(self, cid, ctype, parts, start, end, fill=b"\0"):
        data = build_chunk(cid, ctype, parts, start, end, fill=fill)
        h = ChunkHeader.decode_fixed(data, 0)
        base = parts_base(h.part_count)
        off = len(self.out)
        h.parts = [Part(wire.u32(data, 24 + 12 * k), wire.u32(data, 28 + 12 * k),
                        wire.u32(data, 32 + 12 * k)) for k in range(h.part_count)]
        for p in h.parts:
            p.file_offset = off + base + p.offset
        ci = ChunkInfo(len(self.trace.chunks), off, h)
        self.trace.chunks.append(ci)
        self.out += data
        return ci, h

    @property
    def buffered(self):
        """Events in the chunk being written."""
        return len(self.pending)

    def end_chunk(self, id=None, start=None, end=None, *, order=("table", "events"),
                  extra_parts=(), fill=b"\0", chunk_type=CHUNK_EVENT_DATA,
                  buffer_type=PART_BINARY_EVENTS, trailing_nul=None, force=False):
        """Writes out the current event chunk (nothing when it holds no event,
        unless ``force``). ``order`` lists the parts: "table" (the string
        table), "events" (the event buffer) and [(type, bytes)] of
        ``extra_parts`` at "extra"; a part left out of ``order`` is not
        written. ``fill`` is the padding byte."""
        if not self.pending and not force:
            return None
        cid = self.flavor.event_chunk_id if id is None else id
        if cid == "count":
            cid = len(self.trace.chunks)
        events_times = self.flavor.chunk_times == "events" and self.times
        if start is None:
            start = min(self.times) if events_times else NO_TIME
        if end is None:
            end = max(self.times) if events_times else NO_TIME
        tnul = self.flavor.trailing_nul if trailing_nul is None else trailing_nul
        tbl = string_table(self.table.strings, tnul)
        parts = []
        for what in order:
            if what == "table":
                parts.append((PART_STRING_TABLE, tbl))
            elif what == "events":
                parts.append((buffer_type, bytes(self.buf)))
            elif what == "extra":
                parts += list(extra_parts)
        ci, h = self._add_chunk(cid, chunk_type, parts, start, end, fill)
        if "table" in order:
            ci.strings = list(self.table.strings) + ([b""] if tnul else [])
        if chunk_type == CHUNK_EVENT_DATA and buffer_type == PART_BINARY_EVENTS and \
                "events" in order:
            ebuf = next(p for p in h.parts if p.type == PART_BINARY_EVENTS)
            for pos, ev in self.pending:
                ev.chunk, ev.offset = ci.index, ebuf.file_offset + pos
                self.trace.events.append(ev)
        self._open_chunk()
        return ci

    def raw_chunk(self, data):
        """Appends ``data`` as a chunk of its own (any bytes: its header is
        read back for the model). The current chunk is written out first."""
        self.end_chunk()
        h = ChunkHeader.decode_fixed(data, 0)
        off = len(self.out)
        n = min(h.part_count, max(0, (len(data) - 24) // 12))
        h.parts = [Part(wire.u32(data, 24 + 12 * k), wire.u32(data, 28 + 12 * k),
                        wire.u32(data, 32 + 12 * k), off + parts_base(h.part_count) +
                        wire.u32(data, 28 + 12 * k)) for k in range(n)]
        ci = ChunkInfo(len(self.trace.chunks), off, h)
        self.trace.chunks.append(ci)
        self.out += data
        return ci

    # -- events
    def _emit(self, define, time, values):
        args = encode_args(define.args, values, self.table)
        pos = len(self.buf)
        ev = EventInfo(None, None, define.wire_id, define, time, _model_values(define, values),
                       zone=self.zone, depth=self.depth.get(self.zone, 0), size=8 + len(args))
        self.buf += encode_event(define.wire_id, time, args)
        self.pending.append((pos, ev))
        self.times.append(time)
        return ev

    def _write_define(self, d, time):
        return self._emit(DEFINE_EVENT, time, [d.wire_id, d.event_class, d.flags, d.name,
                                               d.signature])

    def define(self, name, signature="", event_class=wire.CLASS_INSTANCE, flags=0, time=0,
               wire_id=None):
        """Defines an event and returns its wire id. The same name and
        signature again returns the known id without writing anything
        (redefine() writes a define again)."""
        name, signature = as_bytes(name), as_bytes(signature)
        known = self.by_name.get((name, signature))
        if known is not None and wire_id in (None, known):
            return known
        if wire_id is None:
            wire_id = self.next_wire
            self.next_wire += 1
        d = Define(wire_id, event_class, flags, name, signature)
        self.defines[wire_id] = d
        self.by_name[(name, signature)] = wire_id
        self._write_define(d, time)
        self._rotate()
        return wire_id

    def redefine(self, wire_id, time=0):
        """Writes the define of a known event again (the JS library does, in
        every snapshot's first event chunk)."""
        self._write_define(self.defines[wire_id], time)
        self._rotate()

    def builtin(self, name, time=0):
        """The wire id of built-in ``name`` (defined on first use)."""
        b = wire.BUILTIN[as_bytes(name)]
        if b.name == b"wtf.event#define":
            if (b.name, b.signature) not in self.by_name:    # the JS writer defines it too
                self.by_name[(b.name, b.signature)] = wire.WIRE_DEFINE
                self._write_define(DEFINE_EVENT, time)
            return wire.WIRE_DEFINE
        return self.define(b.name, b.signature, b.event_class, b.flags, time,
                           wire_id=b.js_wire_id if self.flavor.builtin_wire_ids else None)

    def event(self, wire_id, time, *values):
        """Writes one event of a defined wire id; a wtf.zone#set changes the
        current zone and scopes open and close as a reader tracks them."""
        d = self.defines[wire_id]
        ev = self._emit(d, time, list(values))
        if d.name == b"wtf.scope#leave":
            if self.depth.get(self.zone, 0) > 0:
                self.depth[self.zone] -= 1
            ev.depth = self.depth.get(self.zone, 0)
        elif d.name == b"wtf.zone#set":
            self.zone = values[0]
        elif d.event_class == wire.CLASS_SCOPE:
            self.depth[self.zone] = self.depth.get(self.zone, 0) + 1
        self._rotate()
        return ev

    def _rotate(self):
        if len(self.buf) >= self.chunk_bytes:
            self.end_chunk()

    def zone_create(self, zone_id, name, type="script", location="", time=0):
        return self.event(self.builtin("wtf.zone#create", time), time, zone_id, name, type,
                          location)

    def zone_set(self, zone_id, time=0):
        return self.event(self.builtin("wtf.zone#set", time), time, zone_id)

    def zone_delete(self, zone_id, time=0):
        return self.event(self.builtin("wtf.zone#delete", time), time, zone_id)

    def enter(self, name, time=0):
        return self.event(self.builtin("wtf.scope#enter", time), time, name)

    def leave(self, time=0):
        return self.event(self.builtin("wtf.scope#leave", time), time)

    def append_data(self, name, json_text, time=0):
        return self.event(self.builtin("wtf.scope#appendData", time), time, name, json_text)

    def time_stamp(self, name, json_text=None, time=0):
        return self.event(self.builtin("wtf.trace#timeStamp", time), time, name, json_text)

    def finish(self):
        self.end_chunk()
        self.trace.size = len(self.out)
        return bytes(self.out)


def _model_values(define, values):
    """The values as a reader gives them back (strings as bytes, float32
    rounded, "" for the empty ordinal)."""
    out = []
    for a, v in zip(define.args, values):
        if a.array:
            out.append(None if v is None else [_model_scalar(a.type, x) for x in v])
        else:
            out.append(_model_scalar(a.type, v))
    return out


def _model_scalar(t, v):
    if t in wire.STRING_TYPES or t == "any":
        if isinstance(v, int) and not isinstance(v, bool):
            if v == STRING_NULL:
                return None
            if v == STRING_EMPTY:
                return b""
            raise ValueError("a raw string ordinal has no model value")
        return as_bytes(v)
    if t == "float32":
        return wire.f32(v)
    if t == "bool":
        return bool(v)
    kind, size = wire.TYPES[t]
    bits = 8 * size
    v &= (1 << bits) - 1
    if kind == "s" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v
