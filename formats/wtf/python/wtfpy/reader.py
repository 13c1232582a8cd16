"""Reading binary WTF files as conformance/SPEC-WTF.md says: the file header,
the chunks and their part tables, the file-header JSON, string tables,
defines (signatures parsed), every event with its typed arguments, zones and
scope depth, and what is left of a file whose writer died (section 6).

    trace = read_trace(data)          # model.Trace; never raises on bad bytes

The reader never trusts a count or a length: it reads only bytes that are
there. Everything it finds wrong is a Finding with the clause of SPEC-WTF.md
(trace.findings, in file order); the validator (validate.py) reports them,
the dump (wtfpy_tool dump) prints the errors and WTF-REC-001 on stderr.

Where reading stops or skips (SPEC-WTF 6, SPEC.md 7a.3):
  * a file header that is not one (WTF-HDR-001/002): nothing is read;
  * a chunk header or part table that cannot be used (WTF-CHK-001, -004,
    -005, -006): nothing from that chunk on (no chunk line either);
  * WTF-CHK-002 / -003 (a length that cannot place the next chunk): the
    chunk is read, nothing after it;
  * an event that cannot be decoded (WTF-EVT-001..004): the rest of its
    chunk; reading goes on with the next chunk.
Every other finding leaves reading as it is.
"""

from tracepy.binary import is_utf8

from . import wire
from .canon import JsonObject, parse_json
from .clauses import SEVERITY
from .model import ChunkInfo, EventInfo, Note, Trace
from .wire import (CHUNK_EVENT_DATA, CHUNK_FILE_HEADER, CHUNK_HEADER_SIZE, DEFINE_EVENT,
                   FILE_HEADER_SIZE, KNOWN_PARTS, NO_TIME, PART_BINARY_EVENTS, PART_ENTRY_SIZE,
                   PART_FILE_HEADER, PART_JSON_EVENTS, PART_LEGACY_EVENTS, PART_STRING_TABLE,
                   STRING_EMPTY, STRING_NULL, ChunkHeader, Define, Part, SignatureError, pad4, u32)

MAX_PARTS = 64
# Element types of the arrays the reference library reads and writes (W-E18).
READABLE_ARRAYS = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "char", "wchar"}
MAX_DEPTH = 1024
EVENT_BUFFERS = (PART_JSON_EVENTS, PART_LEGACY_EVENTS, PART_BINARY_EVENTS)
KNOWN_FLAGS = 0x7E
NOT_USER = wire.FLAG_BUILTIN | wire.FLAG_INTERNAL
_DEFINE_ARGS = DEFINE_EVENT.args


class EventError(Exception):
    """An event that cannot be decoded: clause, offset, field, message. The
    clause None is the cut of a crash-truncated file."""

    def __init__(self, clause, offset, field, message):
        Exception.__init__(self, message)
        self.clause, self.offset, self.field, self.message = clause, offset, field, message


def split_strings(data):
    """([bytes] of a string table, bytes after its last NUL)."""
    items = bytes(data).split(b"\0")
    return items[:-1], items[-1]


def header_prefix_ok(data):
    """True when ``data`` (shorter than 12 bytes) is the start of a valid file
    header: the magic's bytes so far, any version, the format version's
    bytes so far (SPEC-WTF 6.3; an empty file among them)."""
    if data[:4] != wire.p32(wire.MAGIC)[:len(data[:4])]:
        return False
    fv = data[8:12]
    return fv == wire.p32(wire.FORMAT_VERSION)[:len(fv)]


class Reader:
    def __init__(self, data, name="trace.wtf-trace"):
        self.data, self.name = memoryview(data).tobytes(), name
        self.used = len(self.data.rstrip(b"\0"))     # the bytes before a zero tail
        self.t = Trace()
        self.t.size = len(self.data)
        self.defines = {wire.WIRE_DEFINE: DEFINE_EVENT}
        self.names = {}             # event name -> arguments of its first define
        self.zones = {}             # zone id -> (name, type, location)
        self.zone = None
        self.depth = {}
        self.deep = set()           # zones already reported under WTF-SCO-003
        self.deleted = set()        # zone ids deleted since their last wtf.zone#create
        self.partial = False        # some events were not read (damage or a cut)

    # ---- findings
    def find(self, clause, offset, field, message, chunk=None):
        self.t.notes.append(Note(clause, offset, field, message, chunk))
        if SEVERITY[clause] == "error":
            self.t.state = Trace.DAMAGED
        elif clause == "WTF-REC-001" and self.t.state == Trace.COMPLETE:
            self.t.state = Trace.CRASH_TRUNCATED

    def info(self, offset, field, message, chunk=None):
        self.t.notes.append(Note(None, offset, field, message, chunk))

    # ---- file header
    def read(self):
        d, t = self.data, self.t
        if len(d) < FILE_HEADER_SIZE:
            if header_prefix_ok(d):
                t.recovered = 0
                t.bytes_unread = len(d)
                self.find("WTF-REC-001", 0, "header", "crash-truncated: the file ends inside its "
                          "12-byte header (%d bytes): 0 events recovered" % len(d))
            else:
                self.find("WTF-HDR-001", 0, "magic", "not a WTF file: %d bytes that do not start "
                          "a WTF header" % len(d))
            return t
        t.magic, t.wtf_version, t.format_version = u32(d, 0), u32(d, 4), u32(d, 8)
        if t.magic != wire.MAGIC:
            if t.magic == wire.MAGIC_LEGACY:
                what = "the legacy big-endian WTF format (magic bytes DE AD BE EF), not read"
            elif d.lstrip(b" \t\r\n")[:1] == b"{":
                what = "a JSON WTF file (it starts with '{'), not read"
            else:
                what = "magic 0x%08x, not 0xDEADBEEF (bytes EF BE AD DE)" % t.magic
            self.find("WTF-HDR-001", 0, "magic", what)
            return t
        if t.format_version != wire.FORMAT_VERSION:
            self.find("WTF-HDR-002", 8, "format_version", "format version %d, not 10"
                      % t.format_version)
            return t
        self.read_chunks()
        self.finish()
        return t

    # ---- chunks
    def read_chunks(self):
        d, t = self.data, self.t
        pos, index = FILE_HEADER_SIZE, 0
        if len(d) == FILE_HEADER_SIZE:
            t.recovered = 0
            self.find("WTF-REC-001", pos, "chunk", "crash-truncated: the file ends after its "
                      "12-byte header, before the file-header chunk: 0 events recovered")
            return
        while pos < len(d):
            avail = len(d) - pos
            if pos >= self.used:
                self.cut(pos, "chunk", "%d zero bytes where chunk %d's header was expected"
                         % (avail, index), avail)
                return
            if avail < CHUNK_HEADER_SIZE:
                self.cut(pos, "chunk", "the file ends inside chunk %d's header (%d of 24 bytes)"
                         % (index, avail), avail)
                return
            h = ChunkHeader.decode_fixed(d, pos)
            need = CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * h.part_count
            skip = False
            if h.part_count > MAX_PARTS:
                self.find("WTF-CHK-006", pos + 20, "part_count", "chunk %d lists %d parts (at "
                          "most %d)" % (index, h.part_count, MAX_PARTS), index)
                skip = True
            if h.length < need:
                self.find("WTF-CHK-001", pos + 8, "length", "chunk %d length %d does not hold its "
                          "24-byte header and %d part entries (%d bytes)"
                          % (index, h.length, h.part_count, need), index)
                self.stopped(pos, index)
                return
            last = False
            if h.length % 4:
                self.find("WTF-CHK-002", pos + 8, "length", "chunk %d length %d is not a multiple "
                          "of 4: the next chunk cannot be placed" % (index, h.length), index)
                last = True
            if avail < need and not skip:
                # No chunk line: its header and part table are not whole
                # (docs/wtf-dump-format.md).
                whole = (avail - CHUNK_HEADER_SIZE) // PART_ENTRY_SIZE
                self.cut(pos, "parts", "the file ends inside chunk %d's part table (%d of %d "
                         "entries)" % (index, whole, h.part_count), avail, index)
                return
            if not skip:
                h.parts = [self.part_entry(pos, need, k) for k in range(h.part_count)]
                skip = not self.check_parts(pos, index, h, need)
            if skip:
                # The chunk's length still places the next chunk (SPEC-WTF 6:
                # damage costs this chunk; only an unreadable chunk header
                # costs what follows).
                self.partial = True
                if last or pos + h.length > len(d):
                    self.stopped(pos, index)
                    return
                self.info(pos, "chunk", "chunk %d is not read (its part table is damaged); "
                          "reading goes on after its %d bytes" % (index, h.length), index)
                pos += h.length
                index += 1
                continue
            cut = pos + h.length > len(d)
            if cut:
                parts_end = pos + need + max([p.offset + p.length for p in h.parts] or [0])
                if parts_end <= len(d) and pad4(parts_end - pos) + pos < self.used:
                    self.find("WTF-CHK-003", pos + 8, "length", "chunk %d length %d runs %d bytes "
                              "past the end of the file, but its parts end at offset %d and other "
                              "bytes follow: a wrong length" % (index, h.length,
                                                                 pos + h.length - len(d),
                                                                 parts_end), index)
                    cut, last = False, True
            ci = ChunkInfo(index, pos, h, cut)
            t.chunks.append(ci)
            self.check_chunk(ci, need)
            before = len(t.events)
            self.read_end = pos + need
            self.read_chunk(ci)
            if cut:
                n = len(t.events) - before
                self.cut(pos, "length", "the file ends inside chunk %d (%d of its %d bytes; %d "
                         "events of it recovered)" % (index, len(d) - pos, h.length, n),
                         len(d) - max(self.read_end, pos + need), index)
            if cut or last:
                self.partial = self.partial or last
                return
            pos += h.length
            index += 1

    def part_entry(self, pos, need, k):
        e = pos + CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * k
        p = Part(u32(self.data, e), u32(self.data, e + 4), u32(self.data, e + 8))
        p.file_offset = pos + need + p.offset
        return p

    def stopped(self, pos, index):
        self.partial = True
        self.t.bytes_unread = len(self.data) - pos
        self.info(pos, "chunk", "chunk %d and the %d bytes from it to the end of the file are not "
                  "read (chunk boundaries can no longer be trusted)"
                  % (index, len(self.data) - pos), index)

    def cut(self, pos, field, what, unread, index=None):
        self.partial = True
        t = self.t
        t.recovered = len(t.events)
        t.bytes_unread = unread
        self.find("WTF-REC-001", pos, field, "crash-truncated: %s; %d events recovered, the last "
                  "%d bytes not read" % (what, len(t.events), unread), index)

    def check_parts(self, pos, index, h, need):
        """WTF-CHK-004/-005/-006 of a part table; False when one is broken."""
        room = h.length - need
        ok = True
        spans = []
        for k, p in enumerate(h.parts):
            at = pos + CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * k
            if p.offset % 4:
                self.find("WTF-CHK-004", at + 4, "offset", "chunk %d part %d offset %d is not a "
                          "multiple of 4" % (index, k, p.offset), index)
                ok = False
            if p.offset + p.length > room:
                self.find("WTF-CHK-005", at + 4, "offset", "chunk %d part %d (offset %d, length %d) "
                          "runs past the chunk's %d bytes of parts"
                          % (index, k, p.offset, p.length, room), index)
                ok = False
            if p.length:
                spans.append((p.offset, p.offset + p.length, k, at))
        spans.sort()
        for i in range(1, len(spans)):
            prev = max(spans[:i], key=lambda s: s[1])
            if spans[i][0] < prev[1]:
                self.find("WTF-CHK-006", spans[i][3] + 4, "offset", "chunk %d parts %d and %d "
                          "overlap" % (index, prev[2], spans[i][2]), index)
                ok = False
                break
        return ok

    def check_chunk(self, ci, need):
        """Chunk-level clauses that do not change how it is read."""
        d, h = self.data, ci.header
        at = ci.offset
        if h.type not in (CHUNK_FILE_HEADER, CHUNK_EVENT_DATA):
            self.find("WTF-CHK-007", at + 4, "type", "chunk %d type %d is neither 1 (file header) "
                      "nor 2 (event data): skipped" % (ci.index, h.type), ci.index)
        if ci.index == 0 and h.type != CHUNK_FILE_HEADER:
            self.find("WTF-FH-001", at + 4, "type", "the first chunk is of type %d, not a "
                      "file-header chunk (1)" % h.type, 0)
        if ci.index > 0 and h.type == CHUNK_FILE_HEADER:
            self.find("WTF-FH-008", at + 4, "type", "chunk %d is a second file-header chunk "
                      "(ignored)" % ci.index, ci.index)
        if not (h.start == NO_TIME and h.end == NO_TIME) and h.start > h.end:
            self.find("WTF-CHK-010", at + 12, "start", "chunk %d start %d is after its end %d"
                      % (ci.index, h.start, h.end), ci.index)
        covered = []
        for k, p in enumerate(h.parts):
            entry = at + CHUNK_HEADER_SIZE + PART_ENTRY_SIZE * k
            if p.type not in KNOWN_PARTS:
                self.find("WTF-CHK-008", entry, "type", "chunk %d part %d has the unknown type "
                          "0x%x: skipped" % (ci.index, k, p.type), ci.index)
            if p.type >> 16 == 4 and h.type != CHUNK_EVENT_DATA:
                self.find("WTF-EVC-006", entry, "type", "chunk %d (type %d) holds a resource "
                          "part (0x%x)" % (ci.index, h.type, p.type), ci.index)
            end = p.file_offset + p.length
            padding = d[end:min(p.file_offset + pad4(p.length), len(d))]
            if any(padding):
                self.find("WTF-CHK-009", end, "padding", "chunk %d part %d: padding bytes are not "
                          "0" % (ci.index, k), ci.index)
            covered.append((p.offset, pad4(p.offset + p.length)))
        if not ci.cut and h.length <= len(d) - at:
            room = h.length - need
            pos, gap = 0, 0
            for a, b in sorted(covered):
                gap += max(0, a - pos)
                pos = max(pos, b)
            gap += max(0, room - pos)
            if gap:
                self.find("WTF-CHK-011", at + need, "parts", "chunk %d: %d bytes of the chunk "
                          "belong to no part" % (ci.index, gap), ci.index)

    # ---- file-header chunk
    def read_chunk(self, ci):
        h = ci.header
        if h.type == CHUNK_FILE_HEADER and ci.index == 0:
            self.read_file_header(ci)
        elif h.type == CHUNK_EVENT_DATA:
            self.read_event_chunk(ci)

    def read_file_header(self, ci):
        t = self.t
        parts = [p for p in ci.header.parts if p.type == PART_FILE_HEADER]
        if len(parts) != 1:
            self.find("WTF-FH-002", ci.offset + 20, "parts", "the file-header chunk holds %d "
                      "file-header parts (0x10000), not 1" % len(parts), 0)
        if not parts or parts[0].file_offset + parts[0].length > len(self.data):
            return                     # none, or cut: no readable file header
        p = parts[0]
        t.header_bytes = self.data[p.file_offset:p.file_offset + p.length]
        try:
            t.header, t.header_parsed = parse_json(t.header_bytes), True
        except (ValueError, RecursionError) as e:
            self.find("WTF-FH-003", p.file_offset, "file_header", "the file-header part is not "
                      "JSON text in UTF-8: %s" % str(e).split("\n")[0][:120], 0)
            return
        self.check_header_values(t.header, p.file_offset)

    def check_header_values(self, hv, at):
        if not isinstance(hv, JsonObject):
            self.find("WTF-FH-003", at, "file_header", "the file-header part is JSON but not an "
                      "object", 0)
            return
        tb = hv.get("timebase")
        if isinstance(tb, bool) or not isinstance(tb, (int, float)):
            self.find("WTF-FH-004", at, "timebase", "timebase is %s, not a number"
                      % ("missing" if "timebase" not in hv.keys() else _kind(tb)), 0)
        if "flags" in hv.keys():
            flags = hv.get("flags")
            if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
                self.find("WTF-FH-005", at, "flags", "flags is not an array of strings", 0)
            else:
                for f in flags:
                    if f not in ("has_high_resolution_times", "times_as_count"):
                        self.find("WTF-FH-006", at, "flags", "unknown flag %r" % f, 0)
        ci = hv.get("contextInfo")
        if not isinstance(ci, JsonObject) or not isinstance(ci.get("contextType"), str) \
                or not isinstance(ci.get("uri"), str):
            self.find("WTF-FH-007", at, "contextInfo", "contextInfo is %s" % (
                "missing" if ci is None and "contextInfo" not in hv.keys() else
                "not an object" if not isinstance(ci, JsonObject) else
                "without string contextType and uri"), 0)

    # ---- event chunks
    def read_event_chunk(self, ci):
        d, h = self.data, ci.header
        end = len(d)
        tables = [p for p in h.parts if p.type == PART_STRING_TABLE]
        bufs = [p for p in h.parts if p.type in EVENT_BUFFERS]
        if len(tables) > 1:
            self.find("WTF-EVC-002", ci.offset + 20, "parts", "chunk %d holds %d string tables "
                      "(the first is used)" % (ci.index, len(tables)), ci.index)
        if len(bufs) != 1:
            self.find("WTF-EVC-001", ci.offset + 20, "parts", "chunk %d holds %d event buffer "
                      "parts, not 1" % (ci.index, len(bufs)), ci.index)
        for p in bufs:
            if p.type != PART_BINARY_EVENTS:
                self.find("WTF-EVC-003", p.file_offset, "part", "chunk %d: a %s event buffer "
                          "(0x%x) is not decoded" % (ci.index, "JSON" if p.type ==
                                                     PART_JSON_EVENTS else "legacy", p.type),
                          ci.index)
        binary = [p for p in bufs if p.type == PART_BINARY_EVENTS]
        b = binary[0] if binary else None
        if tables and b is not None and tables[0].offset > b.offset:
            self.find("WTF-EVC-005", tables[0].file_offset, "part", "chunk %d: the string table "
                      "comes after the event buffer" % ci.index, ci.index)
        if b is not None and b.length % 4:
            self.find("WTF-EVC-004", b.file_offset, "length", "chunk %d: the event buffer's length "
                      "%d is not a multiple of 4" % (ci.index, b.length), ci.index)
        ci.strings = []
        if tables:
            st = tables[0]
            if st.file_offset + st.length > end:
                return                  # cut inside the string table: no event is trusted
            ci.strings, ci.unterminated = split_strings(d[st.file_offset:st.file_offset +
                                                          st.length])
            if ci.unterminated:
                self.find("WTF-STR-001", st.file_offset + st.length - len(ci.unterminated),
                          "string_table", "chunk %d: the string table ends in %d bytes without "
                          "a NUL" % (ci.index, len(ci.unterminated)), ci.index)
            bad = [k for k, s in enumerate(ci.strings) if not is_utf8(s)]
            if bad:
                self.find("WTF-STR-003", st.file_offset + sum(len(s) + 1 for s in
                                                              ci.strings[:bad[0]]),
                          "string_table", "chunk %d: %d strings are not UTF-8 (ordinal %d first)"
                          % (ci.index, len(bad), bad[0]), ci.index)
        if b is None:
            return
        self.read_events(ci, b)

    def read_events(self, ci, b):
        buf_end = b.file_offset + b.length
        pos = b.file_offset
        prev_time = None
        while pos < buf_end:
            try:
                ev = self.decode_event(ci, pos, buf_end)
            except EventError as e:
                self.partial = True
                if e.clause is None:
                    return                       # the crash cut
                self.find(e.clause, e.offset, e.field, "chunk %d: %s; the rest of the chunk "
                          "(%d bytes of events) is not read" % (ci.index, e.message,
                                                                buf_end - pos), ci.index)
                return
            self.t.events.append(ev)
            pos += ev.size
            self.read_end = pos
            h = ci.header
            if not ev.define.flags & NOT_USER:
                if prev_time is not None and ev.time < prev_time:
                    self.find("WTF-EVT-006", pos - ev.size + 4, "time", "chunk %d: event time %d "
                              "is before the previous event's %d" % (ci.index, ev.time,
                                                                     prev_time), ci.index)
                prev_time = ev.time
            if h.start != NO_TIME and h.end != NO_TIME and not h.start <= ev.time <= h.end:
                self.find("WTF-EVT-007", ev.offset + 4, "time", "chunk %d: event time %d is "
                          "outside the chunk's start..end %d..%d"
                          % (ci.index, ev.time, h.start, h.end), ci.index)

    # ---- events
    def decode_event(self, ci, pos, buf_end):
        """The event at ``pos`` of a buffer ending at ``buf_end``."""
        d = self.data

        def need(at, n, field):
            if at + n > len(d) and buf_end > len(d):
                raise EventError(None, at, field, "cut")
            if at + n > buf_end:
                raise EventError("WTF-EVT-002", at, field, "the event at offset %d runs past "
                                 "the end of its buffer (%s)" % (pos, field))

        need(pos, 8, "wire_id")
        wire_id, time = u32(d, pos), u32(d, pos + 4)
        define = self.defines.get(wire_id)
        if define is None:
            raise EventError("WTF-EVT-001", pos, "wire_id", "wire id %d is not defined"
                             % wire_id)
        at = pos + 8
        values, later = [], []
        for a in define.args:
            if a.array:
                need(at, 4, a.name)
                count = int.from_bytes(d[at:at + 4], "little", signed=True)
                if count < -1:
                    raise EventError("WTF-EVT-004", at, a.name, "array %s has element count %d"
                                     % (a.name, count))
                at += 4
                if count == -1:
                    values.append(None)
                    continue
                size = wire.elem_size(a.type)
                nbytes = pad4(count * size)
                need(at, nbytes, a.name)
                elems = []
                for k in range(count):
                    v = wire.decode_scalar(a.type, d[at + k * size:at + (k + 1) * size])
                    elems.append(self.resolve(ci, a, v, at + k * size, later))
                values.append(elems)
                at += nbytes
            else:
                need(at, 4, a.name)
                values.append(self.resolve(ci, a, wire.decode_scalar(a.type, d[at:at + 4]), at,
                                           later))
                at += 4
        ev = EventInfo(ci.index, pos, wire_id, define, time, values, zone=self.zone,
                       size=at - pos)
        for clause, off, field, msg in later:
            self.find(clause, off, field, "chunk %d: %s" % (ci.index, msg), ci.index)
        self.apply(ev, ci)
        return ev

    def resolve(self, ci, a, v, at, later):
        if a.type not in wire.STRING_TYPES and a.type != "any":
            return v
        if v == STRING_NULL:
            return None
        if v == STRING_EMPTY:
            s = b""
        elif v >= len(ci.strings):
            raise EventError("WTF-EVT-003", at, a.name, "string ordinal %d of %s is not in the "
                             "chunk's string table (%d strings)" % (v, a.name, len(ci.strings)))
        else:
            s = ci.strings[v]
            if s == b"":
                later.append(("WTF-STR-002", at, a.name, "%s is an empty string stored in the "
                              "table (ordinal %d), not 0xFFFFFFFE" % (a.name, v)))
        if a.type == "any":
            try:
                parse_json(s)
            except (ValueError, RecursionError):
                later.append(("WTF-EVT-005", at, a.name, "any argument %s is not JSON text: %r"
                              % (a.name, s[:40])))
        return s

    def apply(self, ev, ci):
        """What an event changes: definitions, the current zone, scope depth."""
        name = ev.define.name
        zone = self.zone
        ev.depth = self.depth.get(zone, 0)
        if ev.wire_id == wire.WIRE_DEFINE:
            self.apply_define(ev)
        elif name == b"wtf.zone#create" and ev.values and isinstance(ev.values[0], int):
            zid, info = ev.values[0], tuple(ev.values[1:4])
            if zid in self.zones and self.zones[zid] != info and zid not in self.deleted:
                self.find("WTF-ZON-002", ev.offset + 8, "zoneId", "zone %d created again with "
                          "another name, type or location" % zid, ci.index)
            self.zones[zid] = info
            self.deleted.discard(zid)
        elif name == b"wtf.zone#delete" and ev.values and isinstance(ev.values[0], int):
            # After a delete the id may name another zone (SPEC-WTF W-E19).
            self.deleted.add(ev.values[0])
        elif name == b"wtf.zone#set" and ev.values and isinstance(ev.values[0], int):
            zid = ev.values[0]
            if zid not in self.zones:
                self.find("WTF-ZON-001", ev.offset + 8, "zoneId", "wtf.zone#set of zone %d, "
                          "which no wtf.zone#create created before" % zid, ci.index)
            self.zone = zid
        elif name == b"wtf.scope#leave":
            if self.depth.get(zone, 0) == 0:
                self.find("WTF-SCO-001", ev.offset, "wire_id", "wtf.scope#leave with no scope "
                          "open in zone %s" % zone, ci.index)
            else:
                self.depth[zone] -= 1
            ev.depth = self.depth.get(zone, 0)
        elif ev.define.event_class == wire.CLASS_SCOPE:
            self.depth[zone] = self.depth.get(zone, 0) + 1
            if self.depth[zone] > MAX_DEPTH and zone not in self.deep:
                self.deep.add(zone)
                self.find("WTF-SCO-003", ev.offset, "wire_id", "scopes nest more than %d deep in "
                          "zone %s" % (MAX_DEPTH, zone), ci.index)

    def apply_define(self, ev):
        wid, cls, flags, name, sig = ev.values
        at, ci = ev.offset, ev.chunk
        label = (name or b"").decode("utf-8", "replace")
        try:
            args = wire.parse_signature(sig)
        except SignatureError as e:
            args = None
            self.find("WTF-DEF-001", at + 24, "args", "define of %r (wire id %d): bad signature "
                      "at character %d: %s" % (label, wid, e.position, e), ci)
        ok = args is not None
        if wid == 0:
            self.find("WTF-DEF-004", at + 8, "wireId", "define of %r with wire id 0" % label, ci)
            ok = False
        elif wid == wire.WIRE_DEFINE:
            if name != b"wtf.event#define" or args != _DEFINE_ARGS:
                self.find("WTF-DEF-004", at + 8, "wireId", "wire id 1 defined as %r, not "
                          "wtf.event#define with its signature" % label, ci)
            return
        if not name:
            self.find("WTF-DEF-007", at + 20, "name", "define of wire id %d with a %s name"
                      % (wid, "null" if name is None else "empty"), ci)
            ok = False
        if cls not in (wire.CLASS_INSTANCE, wire.CLASS_SCOPE):
            self.find("WTF-DEF-002", at + 12, "eventClass", "define of %r: eventClass %d is "
                      "neither 0 nor 1" % (label, cls), ci)
        if flags & ~KNOWN_FLAGS:
            self.find("WTF-DEF-005", at + 16, "flags", "define of %r: unknown flag bits 0x%x"
                      % (label, flags & ~KNOWN_FLAGS), ci)
        if not ok:
            return
        old = self.defines.get(wid)
        if old is not None and (old.name, old.event_class, old.flags, old.args) != (
                name, cls, flags, args):
            self.find("WTF-DEF-003", at + 8, "wireId", "wire id %d defined again differently "
                      "(%r, was %r)" % (wid, label, old.name.decode("utf-8", "replace")), ci)
        odd = sorted({a.type for a in args if a.array} - READABLE_ARRAYS)
        if odd:
            self.find("WTF-DEF-008", at + 24, "args", "define of %r: arrays of %s, which the "
                      "reference library cannot read" % (label, ", ".join(odd)), ci)
        first = self.names.setdefault(name, args)
        if first != args:
            self.find("WTF-DEF-006", at + 24, "args", "event %r defined with a second signature"
                      % label, ci)
        self.defines[wid] = Define(wid, cls, flags, name, sig, args)

    def finish(self):
        """WTF-SCO-002, checked when every event of the file was read (not
        after a cut or where damage made the reader skip events)."""
        if not self.partial:
            for zone in sorted(self.depth, key=lambda z: (z is not None, z or 0)):
                if self.depth[zone] > 0:
                    self.find("WTF-SCO-002", None, "scope", "%d scopes left open in zone %s at "
                              "the end of the file" % (self.depth[zone], zone))


def _kind(v):
    return {bool: "a boolean", str: "a string", list: "an array"}.get(type(v), "null" if v is None
                                                                   else "an object")


def read_trace(data, name="trace.wtf-trace"):
    return Reader(data, name).read()
