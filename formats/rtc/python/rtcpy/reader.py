"""Reading RTC files as conformance/SPEC-RTC.md says (section 7, reading
from any offset; section 8, what damage costs).

    rtc = read_rtc(data)        # model.Rtc; never raises on bad bytes

1. Every Marker (04 then exactly 1024 x B9) is found by scanning. The first
   one followed by a readable Index gives the Unit size U, the unit size u
   and the origin (where Unit 0 starts, from the Index count). Markers that
   are not a multiple of U from the origin are fake (RTC-MRK-003).
2. Units are read in file order from the first Marker. A full Unit (U bytes
   in the file) is first checked by its Crc (its last 5 bytes): a Unit
   without a matching Crc is skipped whole. A Unit whose Marker is damaged
   is skipped up to the next Marker. The last Unit, shorter than U, ends
   with the final Crc (a clean stop) or was cut (RTC-REC-001): its complete
   records are recovered unverified.
3. In a Unit, frames are read one after the other: the Index, the Meta,
   Platform, data, index frames at the unit boundaries. A frame that cannot
   be read costs the rest of its Unit.
Every skip is a (offset, bytes, reason) in rtc.skipped, every finding a
Note with its clause.
"""

import re
import struct

from tracepy.binary import is_utf8

from . import wire
from .canon import (JsonObject, escape_bytes, number, parse_json, render_json,
                    rewrite_json_bytes)
from .clauses import SEVERITY
from .model import Note, Rec, Rtc, StreamDef, UnitInfo
from .wire import (CRC, INDEX, MARKER, MARKER_SIZE, MAX_PAYLOAD, META, NOP, PADDING, PLATFORM,
                   SUBINDEX, SUBMETA, LebError, read_sleb, read_uleb)

INT_FMT = re.compile(r"^(u?)int(8|16|32|64)(le|be)?$")
FLOAT_FMT = re.compile(r"^float(32|64)(le|be)?$")
KNOWN_KEYS = {"id": "int", "name": "str", "length": "int", "cont": "bool", "format": "str",
              "clock": "clock", "delta": "str", "gain": "num", "offset": "num", "stream": "str"}


class Damage(Exception):
    """A frame that cannot be read: the rest of the Unit is skipped."""

    def __init__(self, clause, offset, field, message):
        Exception.__init__(self, message)
        self.clause, self.offset, self.field, self.message = clause, offset, field, message


class Cut(Exception):
    """The file ends inside a frame."""

    def __init__(self, offset):
        Exception.__init__(self, "cut")
        self.offset = offset


def is_pow2(x):
    return isinstance(x, int) and x > 0 and x & (x - 1) == 0


def find_markers(d):
    out = []
    i = d.find(MARKER)
    while i >= 0:
        if i + MARKER_SIZE >= len(d) or d[i + MARKER_SIZE] != wire.MARKER_BYTE:
            out.append(i)
        i = d.find(MARKER, i + 1)
    return out


class Stream:
    """A stream of the Meta in force: its definition (JsonObject) and what
    decoding needs."""

    def __init__(self, sid, obj):
        self.sid, self.obj = sid, obj
        g = obj.get if obj is not None else (lambda k, dflt=None: dflt)
        self.name = g("name")
        ln = g("length")
        self.length = ln if isinstance(ln, int) and not isinstance(ln, bool) else None
        f = g("format", "raw")
        self.format = f if isinstance(f, str) else "raw"
        self.clock = g("clock")
        self.delta = g("delta")
        gain, off = g("gain"), g("offset")
        self.gain = gain if _num(gain) else None
        self.offset = off if _num(off) else None


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


BUILTIN_STREAMS = {sid: (name, length, fmt) for sid, (name, length, fmt) in wire.BUILTINS.items()}


class Reader:
    def __init__(self, data):
        self.d = bytes(data)
        self.t = Rtc(len(self.d))
        self.table = None           # {sid: Stream} of the Meta in force, None before any
        self.ever = {}              # sid -> canonical definition text
        self.gone = set()           # ids defined once and no longer in force
        self.next_free = None
        self.open = {}              # sid -> [(offset, payload)] of a record being continued
        self.fixed_left = {}        # sid -> bytes still to come of a fixed-length frame cut at a boundary
        self.cont_to = None         # the end of the last Unit read whole with no skip
        self.fresh = self.user_seen = False   # this Unit: predecessor not read; a user frame read
        self.clocks = {}            # sid -> resolved time (float) or None
        self.frames_at = {}         # frame offset -> sid (targets of index entries)
        self.unchecked = []         # [(start, end)] ranges whose frames are unknown
        self.order = None
        self.U = self.u = self.origin = None
        self.deferred = []          # Index/index records of this Unit, checked after its Meta
        self.lost = False           # a skip lost clock values: no RTC-CLK-004 after it

    # ---- findings
    def find(self, clause, offset, field, message):
        self.t.notes.append(Note(clause, offset, field, message))
        if SEVERITY[clause] == "error":
            self.t.state = Rtc.DAMAGED
        elif clause == "RTC-REC-001" or clause == "RTC-REC-002":
            if self.t.state == Rtc.COMPLETE:
                self.t.state = Rtc.CRASH_TRUNCATED

    def info(self, offset, message):
        self.t.notes.append(Note(None, offset, None, message))

    def skip(self, offset, n, reason):
        if n > 0:
            self.t.skipped.append((offset, n, reason))
            self.unchecked.append((offset, offset + n))
        self.clocks = {}
        self.lost = True
        if self.open:
            self.info(offset, "records left incomplete by the skip: streams %s" % (
                ", ".join(str(s) for s in sorted(self.open))))
        self.open = {}

    # ---- the file
    def read(self):
        d, n = self.d, len(self.d)
        if n == 0:
            return self.t
        marks = find_markers(d)
        if not marks:
            if MARKER.startswith(d):
                self.find("RTC-REC-001", 0, "Marker", "crash-truncated: the file ends inside its "
                          "first Marker (%d bytes): 0 records recovered" % n)
                self.skip(0, n, "cut")
            else:
                self.find("RTC-MRK-001", 0, "Marker", "no Marker (04 and 1024 x B9) in %d bytes: "
                          "not an RTC file, or nothing of it can be read" % n)
                self.skip(0, n, "no-marker")
            return self.t
        geo = None
        for p in marks:
            geo = self.probe(p)
            if geo:
                break
        if geo is None and self.index_cut(marks[-1]):
            # the last Marker's Index runs past the end: a cut, not damage
            if marks[0] > 0:
                self.find("RTC-REC-002", 0, "Marker", "cut at the start: %d bytes before the "
                          "first Marker skipped" % marks[0])
                self.skip(0, marks[0], "before-first-marker")
            self.find("RTC-REC-001", marks[-1], "Index", "crash-truncated: the file ends "
                      "inside the first Index: 0 records recovered")
            self.skip(marks[0], n - marks[0], "cut")
            return self.t
        if geo is None:
            self.find("RTC-UNI-002", marks[0] + MARKER_SIZE, "Index", "no Marker is followed by "
                      "a readable Index: the Unit size cannot be learnt")
            self.skip(0, n, "no-index")
            return self.t
        self.U, self.u, count, p0 = geo
        self.origin = p0 - count * self.U
        t = self.t
        t.unit_size, t.subunit_size, t.origin = self.U, self.u, self.origin
        aligned = [p for p in marks if (p - self.origin) % self.U == 0]
        fakes = [p for p in marks if (p - self.origin) % self.U != 0]
        if fakes:
            self.find("RTC-MRK-003", fakes[0], "Marker", "Marker bytes at %d, not a multiple of "
                      "the Unit size %d from the origin %d: a fake Marker inside a frame%s" % (
                          fakes[0], self.U, self.origin,
                          " (%d in all)" % len(fakes) if len(fakes) > 1 else ""))
        start = aligned[0]
        if start > 0 or count_at(self, start) > 0:
            self.find("RTC-REC-002", 0, "Marker", "cut at the start: the first Marker is at %d "
                      "and starts Unit %d; %d bytes before it skipped" % (
                          start, (start - self.origin) // self.U, start))
            self.skip(0, start, "before-first-marker")
            self.unchecked.append((-(1 << 62), start))
        q = start
        while q < n:
            if d[q:q + MARKER_SIZE] != MARKER[:min(MARKER_SIZE, n - q)] or (
                    q + MARKER_SIZE < n and d[q + MARKER_SIZE] == wire.MARKER_BYTE):
                nxt = next((p for p in aligned if p > q), None)
                self.find("RTC-MRK-002", q, "Marker", "no intact Marker at the start of Unit %d "
                          "(offset %d): the Unit is skipped" % ((q - self.origin) // self.U, q))
                end = n if nxt is None else nxt
                self.skip(q, end - q, "bad-marker")
                q = end
                continue
            if q + MARKER_SIZE > n:
                self.find("RTC-REC-001", q, "Marker", "crash-truncated: the file ends inside "
                          "the Marker of Unit %d" % ((q - self.origin) // self.U))
                self.skip(q, n - q, "cut")
                break
            self.unit(q)
            q += self.U
        self.finish()
        return self.t

    def probe(self, p):
        """(U, u, count, p) from the Index after the Marker at ``p``, or None."""
        d = self.d
        try:
            x, i, _ = read_uleb(d, p + MARKER_SIZE)
            if x >> 1 != INDEX:
                return None
            ln, i, _ = read_uleb(d, i)
            # the first 5 integers only: an Index longer than a frame is cut
            # into pieces, and its first piece may end inside a later integer
            b, vals, j = d[i:i + min(ln, MAX_PAYLOAD)], [], 0
            while len(vals) < 5:
                v, j, _ = read_uleb(b, j)
                vals.append(v)
        except LebError:
            return None
        if vals[1] != INDEX << 1 | 1 or vals[3] != SUBINDEX << 1 | 1:
            return None
        count, U, du = vals[0], vals[2] >> 1, vals[4] >> 1
        u = du if du < U else du - count * U
        if not (is_pow2(U) and is_pow2(u) and wire.MIN_UNIT <= u <= U):
            return None
        return U, u, count, p

    def index_cut(self, p):
        """True when the Index frame after the Marker at ``p`` runs past the
        end of the file (or nothing follows the Marker)."""
        d = self.d
        try:
            x, i, _ = read_uleb(d, p + MARKER_SIZE)
            if x >> 1 != INDEX:
                return False
            ln, i, _ = read_uleb(d, i)
        except LebError as e:
            return e.kind == "cut"
        return i + ln > len(d)

    @staticmethod
    def ints(b):
        out, i = [], 0
        try:
            while i < len(b):
                v, i, _ = read_uleb(b, i)
                out.append(v)
        except LebError:
            return None
        return out

    # ---- a Unit
    def unit(self, q):
        d, n, U = self.d, len(self.d), self.U
        number_ = (q - self.origin) // U
        end = q + U
        self.deferred = []
        self.meta_seen = False
        self.fresh = number_ != 0 and self.cont_to != q   # Unit 0 has no Unit before it
        self.user_seen = False
        self.cont_to = None
        skips_before = len(self.t.skipped)
        if end <= n:
            crc_pos = end - 5
            if d[crc_pos] != CRC << 1:
                self.find("RTC-CRC-002", crc_pos, "Crc", "Unit %d has no Crc frame in its last 5 "
                          "bytes (byte %02x): the Unit cannot be checked and is skipped" % (
                              number_, d[crc_pos]))
                self.skip(q, U, "no-crc")
                return
            name = self.crc_match(d[q + MARKER_SIZE:crc_pos], d[crc_pos + 1:end])
            if name is None:
                self.find("RTC-CRC-001", crc_pos, "Crc", "the Crc of Unit %d matches neither "
                          "CRC-32/IEEE nor the reference variant over [%d, %d): the Unit is "
                          "skipped" % (number_, q + MARKER_SIZE, crc_pos))
                self.skip(q, U, "crc-mismatch")
                return
            self.t.units.append(UnitInfo(number_, q, U, name))
            self.frames_at[crc_pos] = CRC
            self.frames(q, crc_pos, crc_pos, number_)
            self.flush_deferred()
            if len(self.t.skipped) == skips_before:
                self.cont_to = end
            return
        # The last Unit, shorter than U.
        save = (len(self.t.records), len(self.t.notes), len(self.t.streams), dict(self.ever),
                set(self.gone), self.next_free, self.table, dict(self.open), self.order,
                self.t.state, dict(self.fixed_left))
        ui = UnitInfo(number_, q, n - q, None)
        self.t.units.append(ui)
        final = self.frames(q, n, None, number_)
        self.flush_deferred()
        if final is None:
            return
        crc_off, name = final
        if name is None:
            (nr, nn, ns, self.ever, self.gone, self.next_free, self.table, self.open, self.order,
             self.t.state, self.fixed_left) = save
            del self.t.records[nr:]
            del self.t.notes[nn:]
            del self.t.streams[ns:]
            self.t.units.pop()
            self.find("RTC-CRC-001", crc_off, "Crc", "the final Crc of Unit %d matches neither "
                      "CRC-32/IEEE nor the reference variant over [%d, %d): the Unit is "
                      "skipped" % (number_, q + MARKER_SIZE, crc_off))
            self.skip(q, n - q, "crc-mismatch")
            return
        ui.crc = name

    def crc_match(self, covered, stored):
        orders = [self.order] if self.order else ["little", "big"]
        for name in ("crc-32", "rtc-ref"):
            v = wire.CRC_NAMES[name](covered)
            for o in orders:
                if v.to_bytes(4, o) == bytes(stored):
                    return name
        return None

    def frames(self, q, limit, crc_pos, number_):
        """Reads the frames of the Unit at ``q`` up to ``limit``. Returns, for
        the last Unit, None (cut: RTC-REC-001) or (offset, crc name or None)
        of its final Crc."""
        d, n = self.d, len(self.d)
        pos = q + MARKER_SIZE
        bounds = [q + MARKER_SIZE + k * self.u for k in range(1, self.U // self.u)]
        bounds = [b for b in bounds if b < q + self.U - 5]
        phase = 0   # 0 Index expected, 1 in Index, 2 Meta expected, 3 in Meta, 4 Platform, 5 data
        last_nonpad = None
        try:
            while pos < limit:
                fr = self.frame(pos, limit, bounds, crc_pos is None)
                sid, more, body, fend, left = fr
                if sid == CRC:
                    self.frames_at[pos] = CRC
                    if crc_pos is None and fend == n and not more:
                        name = self.crc_match(d[q + MARKER_SIZE:pos], body)
                        if name is None:
                            name = self.stop_defect(q, pos, last_nonpad, body)
                        if phase < 5:
                            self.unit_head_problems(phase, pos)
                        return pos, name
                    if more:
                        self.find("RTC-CRC-004", pos, "Crc", "a Crc frame at %d with more set: "
                                  "no Crc (R-E24)" % pos)
                    else:
                        self.find("RTC-CRC-004", pos, "Crc", "a Crc frame at %d, neither at the end "
                                  "of Unit %d nor the last frame of the file" % (pos, number_))
                    pos = fend
                    continue
                if phase == 0 and sid != INDEX:
                    raise Damage("RTC-UNI-002", pos, "Index", "Unit %d does not start with an "
                                 "Index frame after its Marker (stream %d)" % (number_, sid))
                if phase == 2 and sid not in (META, PADDING, NOP, SUBINDEX):
                    raise Damage("RTC-UNI-002", pos, "Meta", "the Index of Unit %d is not "
                                 "followed by a Meta frame (stream %d)" % (number_, sid))
                if phase == 4 and sid not in (PADDING, NOP, SUBINDEX):
                    if sid != PLATFORM:
                        self.find("RTC-PLT-002", pos, "Platform", "Unit %d has no Platform frame "
                                  "right after its Meta" % number_)
                    phase = 5
                if sid == INDEX and phase == 0:
                    phase = 1
                if sid == META and phase == 2:
                    phase = 3
                if sid not in (PADDING, NOP):
                    last_nonpad = (pos, sid)
                self.frames_at[pos] = sid
                self.piece(sid, pos, more, body)
                if sid >= wire.FIRST_USER_ID:
                    self.user_seen = True
                if sid in self.open:
                    self.fixed_left[sid] = left
                if phase == 1 and sid == INDEX and not more:
                    phase = 2
                elif phase == 3 and sid == META and not more:
                    phase = 4
                pos = fend
        except Damage as e:
            self.find(e.clause, e.offset, e.field, e.message)
            end = limit if crc_pos is None else crc_pos + 5
            self.skip(e.offset, end - e.offset, "damaged")
            return None
        except Cut as c:
            if phase < 5:
                self.unit_head_problems(phase, c.offset, quiet=True)
            self.cut(number_, c.offset)
            return None
        if crc_pos is None:
            self.cut(number_, n)
            return None
        if phase < 5:
            self.unit_head_problems(phase, pos)
        return None

    def unit_head_problems(self, phase, pos, quiet=False):
        if quiet:
            return
        if phase <= 3:
            self.find("RTC-UNI-002", pos, "Meta", "the Unit ends before its Index and Meta")
        elif phase == 4:
            self.find("RTC-PLT-002", pos, "Platform", "the Unit has no Platform frame after "
                      "its Meta")

    def cut(self, number_, at):
        n = len(self.d)
        recs = sum(1 for r in self.t.records)
        self.find("RTC-REC-001", at, "Crc", "crash-truncated: Unit %d has no final Crc; its "
                  "complete records are recovered unverified (%d records in all); %d bytes at "
                  "the end not read" % (number_, recs, n - at))
        if n > at:
            self.skip(at, n - at, "cut")
        else:
            self.open_left = True

    def stop_defect(self, q, crc_off, last_nonpad, stored):
        """The reference writer's stop defect (SPEC-RTC errata R-E9): a final
        Crc computed before the padding and index frame that precede it."""
        d = self.d
        if last_nonpad is None or last_nonpad[1] != SUBINDEX:
            return None
        idx = last_nonpad[0]
        start = idx
        # back over the index frame's chain and the padding before it
        offs = sorted(o for o in self.frames_at if q < o < idx)
        for o in reversed(offs):
            if self.frames_at[o] in (PADDING, NOP, SUBINDEX):
                start = o
            else:
                break
        for name in ("rtc-ref", "crc-32"):
            v = wire.CRC_NAMES[name](d[q + MARKER_SIZE:start])
            for o in ([self.order] if self.order else ["little", "big"]):
                if v.to_bytes(4, o) == bytes(stored):
                    self.find("RTC-CRC-003", crc_off, "Crc", "the final Crc covers [%d, %d), "
                              "before the padding and index frame that precede it (the "
                              "reference writer's stop defect); the Unit is read" % (
                                  q + MARKER_SIZE, start))
                    return name + "-stop"
        return None

    def _frame_uleb(self, pos, at, hard, last, field, msgs):
        """The LEB128 at ``at`` of the frame at ``pos`` (its ``field``) and the
        position after it. ``msgs``: the messages (each with the frame's
        offset) for a number that runs into the Unit's Crc (RTC-FRM-003), one
        too long (RTC-FRM-001) and one not in its shortest form (RTC-FRM-005,
        a finding); a cut in the last Unit is Cut."""
        try:
            x, i, short = read_uleb(self.d, at, hard)
        except LebError as e:
            if e.kind == "cut":
                if last:
                    raise Cut(pos)
                raise Damage("RTC-FRM-003", pos, field, msgs[0] % pos)
            raise Damage("RTC-FRM-001", pos, field, msgs[1] % pos)
        if not short:
            self.find("RTC-FRM-005", pos, field, msgs[2] % pos)
        return x, i

    def frame(self, pos, limit, bounds, last):
        """(sid, more, payload, end) of the frame at ``pos``."""
        d, n = self.d, len(self.d)
        hard = limit if not last else n
        nb = next((b for b in bounds if b > pos), None)
        if pos in bounds:
            # a unit boundary: an index frame must start here
            pass
        x, i = self._frame_uleb(pos, pos, hard, last, "header", (
            "the frame header at %d runs into the Unit's Crc",
            "the frame header at %d is longer than 10 bytes or not below 2^64",
            "the frame id at %d is not in its shortest LEB128 form"))
        sid, more = x >> 1, x & 1
        if pos in bounds and sid != SUBINDEX:
            raise Damage("RTC-UNI-003", pos, "index", "no index frame at the unit boundary %d "
                         "(stream %d)" % (pos, sid))
        if sid == wire.MARKER_STREAM:
            raise Damage("RTC-MRK-003", pos, "Marker", "a Marker frame (stream 2) at %d, inside "
                         "a Unit" % pos)
        st = self.stream(sid)
        if st is None:
            raise Damage("RTC-FRM-004", pos, "id", "stream %d at %d is neither built in nor "
                         "defined by the Meta in force" % (sid, pos))
        length = st[1]
        if length is None:
            length, i = self._frame_uleb(pos, i, hard, last, "length", (
                "the frame at %d runs into the Unit's Crc",
                "the length of the frame at %d is longer than 10 bytes",
                "the length at %d is not in its shortest LEB128 form"))
            if length > MAX_PAYLOAD:
                raise Damage("RTC-FRM-002", pos, "length", "the frame at %d has a payload of %d "
                             "bytes, more than 1024" % (pos, length))
        elif sid in self.open and self.fixed_left.get(sid):
            # the rest of a fixed-length frame cut at a boundary (R-E8)
            length = self.fixed_left[sid]
        elif (sid not in self.open and self.fresh and not self.user_seen
              and sid >= wire.FIRST_USER_ID and length > 1 and i + length <= hard
              and not self.starts_frames(i + length, hard, bounds)):
            # the first user frame of a Unit whose predecessor was not read may
            # be the rest of a frame cut at its Crc position (R-E8): the
            # shortest rest after which a frame can start, a record's tail
            for t in range(1, length):
                if self.starts_frames(i + t, hard, bounds):
                    self.info(pos, "the frame at %d (stream %d) is read as the last %d of %d bytes "
                              "of a frame cut at the Crc position of the Unit before, which was "
                              "not read (R-E8)" % (pos, sid, t, length))
                    length = t
                    break
        end = i + length
        left = 0
        # R-E8: a fixed-length frame with more set that would cross the next
        # unit boundary, or the Unit's Crc position, ends there; its rest is
        # the stream's next frame. One the data ends in first is cut.
        sp = nb if nb is not None else (limit if not last else None)
        if (st[1] is not None and sid != CRC and more and sp is not None and end > sp
                and i <= sp and sp > hard and last):
            raise Cut(pos)   # the data ends before the boundary: cut, split there or not
        if (st[1] is not None and sid != CRC and more and sp is not None and end > sp
                and i <= sp <= hard):
            self.find("RTC-FRM-007", pos, "length", "the fixed-length frame at %d (stream %d) is "
                      "cut at the %s %d with more set: its last %d of %d bytes are the stream's "
                      "next frame" % (pos, sid, "unit boundary" if sp == nb else "Crc position",
                                      sp, end - sp, length))
            left = end - sp
            end = sp
        if nb is not None and end > nb:
            raise Damage("RTC-FRM-003", pos, "length", "the frame at %d (stream %d, %d bytes) "
                         "crosses the unit boundary %d" % (pos, sid, end - pos, nb))
        if end > hard:
            if last:
                raise Cut(pos)
            raise Damage("RTC-FRM-003", pos, "length", "the frame at %d (stream %d) runs into "
                         "the Unit's Crc at %d" % (pos, sid, limit))
        return sid, more, d[i:end], end, left

    def starts_frames(self, at, hard, bounds):
        """True when frames can start at ``at``: the next 16 frames (or those
        up to the next unit boundary or the end of the data, if fewer) are
        frames of built-in or defined streams that end by that point (a
        fixed-length frame with more set may be cut there, R-E8)."""
        d = self.d
        for _ in range(16):
            nb = next((b for b in bounds if b > at), None)
            stop = nb if nb is not None and nb < hard else hard
            if at == stop:
                return True
            if at > stop:
                return False
            try:
                x, i, _ = read_uleb(d, at, stop)
            except LebError:
                return False
            sid = x >> 1
            st = self.stream(sid)
            if sid == wire.MARKER_STREAM or st is None:
                return False
            if st[1] is None:
                try:
                    ln, i, _ = read_uleb(d, i, stop)
                except LebError:
                    return False
                if ln > MAX_PAYLOAD:
                    return False
            else:
                ln = st[1]
                if x & 1 and ln > stop - i:
                    return True   # cut at the boundary
            if ln > stop - i:
                return False
            at = i + ln
        return True

    def stream(self, sid):
        """(name, fixed length or None, format) of ``sid``, or None."""
        if sid in BUILTIN_STREAMS:
            return BUILTIN_STREAMS[sid]
        if self.table is not None and sid in self.table:
            s = self.table[sid]
            return (s.name, s.length, s.format)
        return None

    # ---- records
    def piece(self, sid, pos, more, body):
        if sid == PADDING and any(body):
            self.find("RTC-PAD-001", pos, "padding", "padding bytes at %d are not 0" % pos)
        if sid in (PADDING, NOP):
            return
        chain = self.open.setdefault(sid, [])
        chain.append((pos, body))
        if more:
            return
        del self.open[sid]
        payload = b"".join(b for _, b in chain)
        frames = [o for o, _ in chain]
        if sid in (INDEX, SUBINDEX):
            self.deferred.append((sid, frames[0], payload))
            if self.meta_seen or sid == SUBINDEX and self.meta_seen:
                self.flush_deferred()
        elif sid in (META, SUBMETA):
            self.meta(sid, frames[0], payload)
            if sid == META:
                self.meta_seen = True
                self.flush_deferred()
        elif sid == PLATFORM:
            self.platform(frames[0], payload)
        else:
            self.record(sid, frames, payload)

    def platform(self, off, b):
        if b == (wire.PLATFORM_VALUE).to_bytes(4, "little"):
            o = "little"
        elif b == (wire.PLATFORM_VALUE).to_bytes(4, "big"):
            o = "big"
        else:
            self.find("RTC-PLT-001", off, "Platform", "Platform holds %s, not 0x01020304 in "
                      "either byte order" % b.hex())
            return
        if self.order is not None and o != self.order:
            self.find("RTC-PLT-001", off, "Platform", "Platform says %s-endian after %s-endian "
                      "earlier in the file" % (o, self.order))
            return
        self.order = o
        if self.t.order is None:
            self.t.order = o

    # ---- Index and index
    def flush_deferred(self):
        for sid, off, payload in self.deferred:
            self.index(sid, off, payload)
        self.deferred = []

    def index(self, sid, off, payload):
        vals = self.ints(payload)
        what = "Index" if sid == INDEX else "index"
        if vals is None:
            self.find("RTC-IDX-001", off, what, "the %s at %d is not a sequence of LEB128 "
                      "integers" % (what, off))
            return
        if sid == INDEX:
            if not vals:
                self.find("RTC-IDX-001", off, what, "the Index at %d has no count" % off)
                return
            count, vals = vals[0], vals[1:]
            want = (off - MARKER_SIZE - self.origin) // self.U
            if count != want:
                self.find("RTC-IDX-004", off, "count", "the Index at %d says Unit %d; its place "
                          "says Unit %d" % (off, count, want))
        if len(vals) % 2:
            self.find("RTC-IDX-001", off, what, "the %s at %d ends inside an entry" % (what, off))
            vals = vals[:-1]
        prev = -1
        for k in range(0, len(vals), 2):
            eid, eoff = vals[k], vals[k + 1]
            if not eid & 1 or eoff & 1:
                self.find("RTC-IDX-001", off, what, "%s entry %d at %d: id %d must be odd and "
                          "offset %d even" % (what, k // 2, off, eid, eoff))
                continue
            s, dist = eid >> 1, eoff >> 1
            if s <= prev:
                self.find("RTC-IDX-005", off, what, "%s at %d: stream %d after stream %d (not "
                          "ascending)" % (what, off, s, prev))
            prev = s
            if s in wire.NEVER_INDEXED or self.stream(s) is None and (
                    s < wire.FIRST_USER_ID or self.table is not None):
                self.find("RTC-IDX-002", off, what, "%s at %d names stream %d, which is not an "
                          "indexed stream of the Meta in force" % (what, off, s))
                continue
            if sid == INDEX and s == INDEX and dist != self.U:
                self.find("RTC-UNI-001", off, what, "the Index at %d gives the Unit size %d, "
                          "not %d" % (off, dist, self.U))
            if sid == INDEX and s == SUBINDEX:
                count = (off - MARKER_SIZE - self.origin) // self.U
                u = dist if dist < self.U else dist - count * self.U
                if u != self.u:
                    self.find("RTC-UNI-001", off, what, "the Index at %d gives the unit size %d, "
                              "not %d" % (off, u, self.u))
            if dist == 0:
                continue
            target = off - dist
            if self.unknown(target):
                continue
            got = self.frames_at.get(target)
            if got != s:
                self.find("RTC-IDX-003", off, what, "%s at %d: the entry of stream %d points at "
                          "%d, which is %s" % (what, off, s, target,
                                                "not the start of a frame" if got is None
                                                else "a frame of stream %d" % got))

    def unknown(self, target):
        if target < 0 or (self.origin is not None and target < self.origin):
            return True
        return any(a <= target < b for a, b in self.unchecked)

    # ---- Meta and meta
    def meta(self, sid, off, payload):
        what = "Meta" if sid == META else "meta"
        try:
            v = parse_json(payload)
        except (ValueError, RecursionError) as e:
            self.find("RTC-MET-001", off, what, "the %s at %d is not JSON text: %s" % (
                what, off, str(e)[:80]))
            return
        if not isinstance(v, list) or isinstance(v, JsonObject) or not v or \
                not _int(v[-1]) or not all(isinstance(x, JsonObject) for x in v[:-1]):
            self.find("RTC-MET-001", off, what, "the %s at %d is not an array of objects ending "
                      "with the next free id" % (what, off))
            return
        nxt = v[-1]
        objs = v[:-1]
        again = sid == META or self.clocks_again(objs)
        table = {} if sid == META else dict(self.table or {})
        ids = set()
        for o in objs:
            i = o.get("id")
            if not _int(i) or i < wire.FIRST_USER_ID or i >= nxt or i in ids:
                self.find("RTC-MET-002", off, what, "the %s at %d has an object whose id %r is "
                          "not a unique integer from 9 below the next free id %d" % (
                              what, off, i, nxt))
                continue
            ids.add(i)
            self.check_props(o, off, what)
            text = _canon(o)
            if i in self.ever and (self.ever[i] != text or i in self.gone):
                self.find("RTC-MET-003", off, what, "stream id %d is reused: %s" % (
                    i, "defined again after it was dropped" if self.ever[i] == text
                    else "a different definition than before"))
            elif i not in self.ever:
                self.ever[i] = text
                self.t.streams.append(StreamDef(i, off, o, text))
            table[i] = Stream(i, o)
        if self.next_free is not None and nxt < self.next_free:
            self.find("RTC-MET-003", off, what, "the next free id %d is less than %d, given "
                      "before" % (nxt, self.next_free))
        elif self.next_free is not None and sid == META and self.table is not None:
            pass
        if sid == SUBMETA:
            for i in ids:
                if self.table is not None and i in self.table:
                    pass
        self.next_free = nxt if self.next_free is None else max(nxt, self.next_free)
        if sid == META and self.table is not None:
            self.gone |= set(self.table) - set(table)
        if sid == SUBMETA and ids - set(self.table or {}) and self.table and \
                min(ids - set(self.table)) < max(self.table):
            again = True     # as the C reader: its sorted table moved
        self.table = table
        if again:
            self.check_clocks(off, what)

    def clocks_again(self, objs):
        """Whether a meta record makes the clocks be checked again (the C
        reader's rule, which keeps the work per meta record small): it
        (re)defines a stream with a clock or a delta, or one whose name (old
        or new) a clock or delta of the table names."""
        table = self.table or {}
        used = {x for s in table.values() for x in (s.clock, s.delta) if isinstance(x, str)}
        for o in objs:
            ck, nm, i = o.get("clock"), o.get("name"), o.get("id")
            if ("clock" in o.keys() and ck is not None and ck is not False) or \
                    ("delta" in o.keys() and o.get("delta") is not None) or \
                    (isinstance(nm, str) and nm in used):
                return True
            old = table.get(i) if _int(i) else None
            if old is not None and (old.clock is True or isinstance(old.clock, str) or
                                    old.delta is not None or
                                    (isinstance(old.name, str) and old.name in used)):
                return True
        return False

    def check_props(self, o, off, what):
        for k, kind in KNOWN_KEYS.items():
            if k not in o.keys():
                continue
            v = o.get(k)
            ok = {"int": v is None or _int(v) and v >= 0, "str": v is None or isinstance(v, str),
                  "bool": isinstance(v, bool), "num": _num(v),
                  "clock": v is None or isinstance(v, (bool, str))}[kind]
            if not ok:
                self.find("RTC-MET-004", off, what, "the %s at %d: stream %r has %s = %s" % (
                    what, off, o.get("id"), k, _canon(v)[:40]))
        ln = o.get("length")
        if _int(ln) and ln > MAX_PAYLOAD:
            self.find("RTC-MET-005", off, what, "the %s at %d: stream %r has a fixed length of "
                      "%d, more than 1024" % (what, off, o.get("id"), ln))

    def check_clocks(self, off, what):
        byname = {s.name: s for s in self.table.values() if isinstance(s.name, str)}
        for s in sorted(self.table.values(), key=lambda s: s.sid):
            if isinstance(s.clock, str):
                c = byname.get(s.clock)
                if c is None or c.clock is not True:
                    self.find("RTC-CLK-001", off, what, "stream %d: clock %r is not a clock "
                              "stream of the Meta in force" % (s.sid, s.clock))
            if s.clock is True:
                if not (INT_FMT.match(s.format) or FLOAT_FMT.match(s.format) or
                        s.format in ("uleb128", "leb128", "timespec")):
                    self.find("RTC-CLK-002", off, what, "clock stream %d has the format %r, "
                              "neither numeric nor timespec" % (s.sid, s.format))
                if s.delta is not None:
                    b = byname.get(s.delta) if isinstance(s.delta, str) else None
                    if b is None or b.clock is not True or b.delta is not None:
                        self.find("RTC-CLK-002", off, what, "delta clock %d: %r is not an "
                                  "absolute clock stream" % (s.sid, s.delta))

    # ---- user records
    def record(self, sid, frames, payload):
        s = self.table[sid] if self.table and sid in self.table else None
        r = Rec(sid, frames[0], frames, payload)
        fmt = s.format if s else "raw"
        v, num = self.decode(fmt, payload, s, frames[0])
        r.value = v
        byname = {x.name: x for x in (self.table or {}).values() if isinstance(x.name, str)}
        if s is not None and s.clock is True:
            r.time = self.tick(s, num, frames[0], byname)
        elif s is not None and isinstance(s.clock, str) and s.clock in byname:
            r.time = self.clocks.get(byname[s.clock].sid)
        self.t.records.append(r)

    def tick(self, s, v, off, byname):
        if v is None:
            self.clocks[s.sid] = None
            return None
        t = v
        if s.delta is not None:
            b = byname.get(s.delta)
            base = self.clocks.get(b.sid) if b is not None else None
            if v < 0:
                self.find("RTC-CLK-003", off, "delta", "delta clock %d: a negative delta %s" % (
                    s.sid, number(v)))
            if base is None:
                if not self.lost:
                        self.find("RTC-CLK-004", off, "delta", "delta clock %d at %d: no value of "
                              "its base clock %r before it" % (s.sid, off, s.delta))
                self.clocks[s.sid] = None
                return None
            t = base + v
        prev = self.clocks.get(s.sid)
        if prev is not None and t < prev:
            self.find("RTC-CLK-003", off, "clock", "clock %d goes back from %s to %s at %d" % (
                s.sid, number(prev), number(t), off))
        self.clocks[s.sid] = t
        return t

    def decode(self, fmt, b, s, off):
        """(dump text of the value, numeric value for a clock or None)."""
        order = self.order or "little"
        m = INT_FMT.match(fmt)
        if m:
            size = int(m.group(2)) // 8
            if len(b) != size:
                return self.bad_size(fmt, b, size, off)
            o = {"le": "little", "be": "big"}.get(m.group(3), order)
            v = int.from_bytes(b, o, signed=not m.group(1))
            return self.scaled(v, s)
        m = FLOAT_FMT.match(fmt)
        if m:
            size = int(m.group(1)) // 8
            if len(b) != size:
                return self.bad_size(fmt, b, size, off)
            o = {"le": "<", "be": ">"}.get(m.group(2), "<" if order == "little" else ">")
            v = struct.unpack(o + ("f" if size == 4 else "d"), b)[0]
            return self.scaled(v, s)
        if fmt in ("uleb128", "leb128"):
            try:
                if fmt == "uleb128":
                    v, i, _ = read_uleb(b, 0)
                else:
                    v, i = read_sleb(b, 0, len(b))
            except LebError:
                i = -1
            if i != len(b):
                self.find("RTC-FMT-003", off, fmt, "the %s record at %d is not one LEB128 that "
                          "fills its %d bytes" % (fmt, off, len(b)))
                return '"%s"' % b.hex(), None
            return self.scaled(v, s)
        if fmt == "timespec":
            if len(b) != 12:
                return self.bad_size(fmt, b, 12, off)
            sec, ns = self.timespec(b)
            return '{"sec":%d,"nsec":%d}' % (sec, ns), float(sec) + float(ns) / 1e9
        if fmt == "utf-8":
            if not is_utf8(b):
                self.find("RTC-FMT-004", off, fmt, "the utf-8 record at %d is not valid UTF-8"
                          % off)
            return escape_bytes(b), None
        if fmt == "json":
            r = rewrite_json_bytes(b)
            if r is None:
                self.find("RTC-FMT-002", off, fmt, "the json record at %d is not JSON text" % off)
                return escape_bytes(b), None
            return r, None
        if fmt == "platform":
            if len(b) != 4:
                return self.bad_size(fmt, b, 4, off)
            return '"%s"' % ("little" if b == b"\x04\x03\x02\x01" else "big" if
                             b == b"\x01\x02\x03\x04" else b.hex()), None
        if fmt.startswith("annotate/"):
            if len(b) < 12:
                return self.bad_size(fmt, b, 12, off)
            sec, ns = self.timespec(b[:12])
            v, _ = self.decode(fmt[len("annotate/"):], b[12:], None, off)
            return '{"at":{"sec":%d,"nsec":%d},"value":%s}' % (sec, ns, v), None
        return '"%s"' % b.hex(), None

    def timespec(self, b):
        order = self.order or "little"
        return int.from_bytes(b[:8], order), int.from_bytes(b[8:12], order)

    def bad_size(self, fmt, b, size, off):
        self.find("RTC-FMT-001", off, fmt, "the %s record at %d has %d bytes, not %d" % (
            fmt, off, len(b), size))
        return '"%s"' % b.hex(), None

    @staticmethod
    def scaled(v, s):
        if s is not None and (s.gain is not None or s.offset is not None):
            x = float(v)
            if s.gain is not None:
                x = x * float(s.gain)
            if s.offset is not None:
                x = x + float(s.offset)
            return number(x), x
        if isinstance(v, float):
            return number(v), v
        return str(v), float(v)

    # ---- the end
    def finish(self):
        t = self.t
        full_end = bool(t.units) and t.units[-1].size == self.U and \
            t.units[-1].offset + self.U == len(self.d)
        if self.open and t.state == Rtc.COMPLETE and full_end:
            sid = min(self.open)
            self.find("RTC-REC-001", len(self.d), "more", "crash-truncated: the file ends at "
                      "the end of a Unit with the record of stream %d still continued: cut "
                      "there (%d records in all)" % (sid, len(t.records)))
        elif self.open and t.state == Rtc.COMPLETE:
            sid = min(self.open)
            self.find("RTC-FRM-006", self.open[sid][0][0], "more", "the file ends with the "
                      "record of stream %d at %d still continued (more)" % (
                          sid, self.open[sid][0][0]))
        elif self.open:
            self.info(len(self.d), "incomplete records at the end not recovered: streams %s" % (
                ", ".join(str(s) for s in sorted(self.open))))
        recs = len(t.records)
        for nt in t.notes:
            if nt.clause == "RTC-REC-001":
                nt.message = re.sub(r"\(\d+ records in all\)", "(%d records in all)" % recs,
                                    nt.message)


def count_at(r, p):
    return (p - r.origin) // r.U


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _canon(v):
    return render_json(v)


def read_rtc(data, name="trace.rtc"):
    return Reader(data).read()
