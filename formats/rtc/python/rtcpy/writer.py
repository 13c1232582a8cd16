"""A streaming RTC writer with the reference writer's layout (SPEC-RTC 2-5):
Markers at multiples of the Unit size, an Index, the Meta and a Platform
frame at each Unit start, an index frame at each unit boundary, padding
before a boundary when a frame does not fit, variable-length payloads cut
into pieces chained by `more` (at most 1024 bytes, and at every boundary),
the Crc in the last 5 bytes of each Unit and a final Crc at stop.

    w = RtcWriter(unit_size=8192, subunit_size=2048)
    log = w.create({"name": "log", "format": "utf-8"})
    w.write(log, b"hello")
    data = w.stop()

It also keeps a model of what it wrote (w.records: every user record, its
frames and payload; w.units), the oracle the corpus checks the reader
against. Options reproduce the reference writer where it differs from
SPEC-RTC (crc="rtc-ref", bugs={"split-fixed", "stop"}) and make broken files
on purpose (raw(), meta_text, index_hook, fix_crc()).
"""

import json

from . import wire
from .wire import (CRC, INDEX, MARKER, MARKER_SIZE, MAX_PAYLOAD, META, PLATFORM, PLATFORM_VALUE,
                   SUBINDEX, SUBMETA, frame_header, padding, uleb)


class Record:
    __slots__ = ("offset", "sid", "frames", "payload", "done")

    def __init__(self, offset, sid):
        self.offset, self.sid, self.frames, self.payload, self.done = offset, sid, [], b"", False

    def end(self):
        return self.frames[-1][0] + self.frames[-1][1]

    def __repr__(self):
        return "Record(%d sid=%d %r)" % (self.offset, self.sid, self.payload[:20])


class Stream:
    __slots__ = ("sid", "body", "length", "hidden", "used", "closed")

    def __init__(self, sid, body, length, hidden):
        self.sid, self.body, self.length, self.hidden = sid, body, length, hidden
        self.used = self.closed = False


def body_text(body):
    """The JSON body of a stream object without its braces: text as given, or
    a dict written compactly in its order."""
    if body is None:
        return ""
    if isinstance(body, str):
        return body
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)[1:-1]


class RtcWriter:
    def __init__(self, unit_size=1 << 20, subunit_size=1 << 17, crc="crc-32", order="little",
                 bugs=(), first_unit=0):
        self.U, self.u = unit_size, subunit_size
        self.crc_name, self.order, self.bugs = crc, order, set(bugs)
        self.buf = bytearray()
        self.streams = {}
        self.next_id = wire.FIRST_USER_ID
        self.started = False
        self.base = 0                       # current Unit's Marker offset
        self.count = first_unit             # current Unit's number
        self.pos = {}                       # stream id -> index target
        self.records, self.units = [], []   # the model
        self.open = {}                      # sid -> Record being continued
        self.prev_meta = None
        self.meta_text = None               # callable(writer, text) -> text, to break Meta
        self.index_hook = None              # callable(writer, payload, is_Index) -> payload
        self.platform_value = PLATFORM_VALUE
        self.platform = True                # False: Units without a Platform frame
        self.stopped = False

    # ---- streams
    def create(self, body=None, length=None, hidden=False):
        sid = self.next_id
        self.next_id += 1
        text = body_text(body)
        if length is None:
            # the length a reader takes from the Meta (the reference asks the
            # user to repeat it in the JSON)
            try:
                ln = json.loads("{%s}" % text).get("length")
            except ValueError:
                ln = None
            length = ln if isinstance(ln, int) and not isinstance(ln, bool) else None
        self.streams[sid] = Stream(sid, text, length, hidden)
        if self.started:
            self._write(SUBMETA, self._meta_payload([self.streams[sid]]))
        return sid

    def close(self, sid):
        s = self.streams[sid]
        if s.used:
            raise ValueError("a stream that was written cannot be closed (the reference: EAGAIN)")
        s.closed = True

    # ---- layout
    def _boundaries(self):
        b = self.base + MARKER_SIZE
        return [b + k * self.u for k in range(1, self.U // self.u)] + [self.base + self.U - 5]

    def _next_stop(self):
        c = len(self.buf)
        for b in self._boundaries():
            if b > c:
                return b
        raise AssertionError("past the Crc position")

    def _unit_start(self):
        """Start of the unit the cursor is in (the Index for unit 0)."""
        c = len(self.buf)
        start = self.base + MARKER_SIZE
        for b in self._boundaries()[:-1]:
            if b <= c:
                start = b
        return start

    def _emit(self, data):
        self.buf += data

    def _service(self):
        """At a boundary: the index frame, or the Unit's Crc and a new Unit."""
        c = len(self.buf)
        if c == self.base + self.U - 5:
            self._crc_frame()
            self.base += self.U
            self.count += 1
            self._unit_head()
        elif c in self._boundaries():
            self._index_frame(c)

    def _room(self):
        return self._next_stop() - len(self.buf)

    def _pad_to_stop(self):
        self._emit(padding(self._room()))
        self._service()

    def _crc_frame(self, value=None):
        if value is None:
            value = self._crc_value(len(self.buf))
        self.pos[CRC] = len(self.buf)
        self._emit(b"\x10" + value.to_bytes(4, self.order))

    def _crc_value(self, end):
        return wire.CRC_NAMES[self.crc_name](self.buf[self.base + MARKER_SIZE:end])

    def _meta_payload(self, streams):
        parts = ['{"id":%d%s},' % (s.sid, ("," + s.body) if s.body else "") for s in streams]
        return ("[" + "".join(parts) + "%d]" % self.next_id).encode("utf-8")

    def _indexed(self):
        ids = [INDEX, SUBINDEX, META, PLATFORM, CRC]
        return ids + [s.sid for s in sorted(self.streams.values(), key=lambda s: s.sid)
                      if not s.hidden and not s.closed]

    def _entries(self, at, ids):
        out = bytearray()
        for sid in ids:
            p = self.pos.get(sid)
            out += uleb(sid << 1 | 1) + uleb(0 if p is None else (at - p) << 1)
        return bytes(out)

    def _unit_head(self):
        self.units.append((self.base, self.count))
        self._emit(MARKER)
        at = len(self.buf)
        if self.count == 0 or INDEX not in self.pos:
            self.pos[INDEX] = at - self.U
            self.pos[SUBINDEX] = at - self.u
        payload = uleb(self.count) + self._entries(at, self._indexed())
        if self.index_hook:
            payload = self.index_hook(self, payload, True)
        self._write(INDEX, payload, service=False)
        self.pos[INDEX] = at
        text = self._meta_payload([s for s in sorted(self.streams.values(), key=lambda s: s.sid)
                                   if not s.closed])
        if self.meta_text:
            text = self.meta_text(self, text)
        if text != self.prev_meta:
            self.pos[META] = len(self.buf)
        self.prev_meta = text
        self._write(META, text, service=False)
        if not self.platform:
            return
        self.pos[PLATFORM] = len(self.buf)
        self._write_fixed(PLATFORM, self.platform_value.to_bytes(4, self.order), 4)

    def _index_frame(self, at):
        first = self.pos[INDEX]
        ids = [INDEX] + [s for s in self._indexed()
                         if s not in (INDEX, SUBINDEX, CRC) and self.pos.get(s) is not None
                         and self.pos[s] >= first]
        payload = self._entries(at, ids)
        if self.index_hook:
            payload = self.index_hook(self, payload, False)
        self._write(SUBINDEX, payload, service=False, stay=True)
        self.pos[SUBINDEX] = at

    def _start(self):
        self.started = True
        self._unit_head()

    # ---- frames
    def raw(self, data):
        """Arbitrary bytes at the cursor (a broken frame on purpose); they must
        fit before the next boundary."""
        if not self.started:
            self._start()
        self._service()
        if len(data) > self._room():
            self._pad_to_stop()
        self._emit(data)

    def _write(self, sid, data, more=False, service=True, stay=False, rec=None):
        """Variable-length frames of ``data``: pieces of at most 1024 bytes,
        cut at boundaries. Returns the pieces' (offset, size)."""
        data = bytes(data)
        out = []
        first = True
        while True:
            if service and not stay:
                self._service()
            service = True
            room = self._room()
            n = min(len(data), MAX_PAYLOAD)
            last = n == len(data)
            hdr = frame_header(sid, more or not last, n)
            if len(hdr) + n > room:
                n = room - len(frame_header(sid, True, room))
                while n > 0 and len(frame_header(sid, True, n)) + n > room:
                    n -= 1
                if n <= 0 or (n < len(data) and n < 1) or stay:
                    if stay and len(hdr) + n > room:
                        raise ValueError("an index frame does not fit in the unit (the "
                                         "reference: E2BIG)")
                    self._pad_to_stop()
                    continue
                last = False
                hdr = frame_header(sid, True, n)
            at = len(self.buf)
            if first and sid >= wire.FIRST_USER_ID:
                p = self.pos.get(sid)
                if p is None or p < self._unit_start():
                    self.pos[sid] = at
            first = False
            self._emit(hdr + data[:n])
            out.append((at, len(hdr) + n))
            if rec is not None:
                rec.frames.append((at, len(hdr) + n))
            data = data[n:]
            if last:
                return out

    def _write_fixed(self, sid, data, length, rec=None):
        hdr = frame_header(sid, False)
        room = self._room()
        if len(hdr) + length > room:
            if "split-fixed" in self.bugs and room > len(hdr):
                # The reference's bug a: a fixed-length frame cut in two short ones.
                n = room - len(hdr)
                at = len(self.buf)
                self._emit(frame_header(sid, True) + data[:n])
                if rec is not None:
                    rec.frames.append((at, room))
                data = data[n:]
                self._service()
            else:
                # padding to each next boundary until it fits; refused when it
                # fits in no unit of a whole Unit (the C writer's ATF_E_LENGTH)
                crossed = 0
                while len(hdr) + length > self._room():
                    crossed += 1
                    if crossed > self.U // self.u + 1:
                        raise ValueError("a fixed-length record of %d bytes fits in no unit" % length)
                    self._pad_to_stop()
        at = len(self.buf)
        if sid >= wire.FIRST_USER_ID:
            p = self.pos.get(sid)
            if p is None or p < self._unit_start():
                self.pos[sid] = at
        self._emit(hdr + data)
        if rec is not None:
            rec.frames.append((at, len(hdr) + len(data)))

    def write(self, sid, data, more=False):
        """One write call of ``data`` to user stream ``sid``; ``more`` keeps the
        record open for the next call."""
        s = self.streams[sid]
        if s.closed:
            raise ValueError("stream %d is closed" % sid)
        if not self.started:
            self._start()
        self._service()
        s.used = True
        data = bytes(data)
        rec = self.open.pop(sid, None)
        if rec is None:
            rec = Record(None, sid)
        if s.length is not None:
            if len(data) != s.length and "wrong-length" not in self.bugs:
                raise ValueError("stream %d is fixed at %d bytes" % (sid, s.length))
            self._write_fixed(sid, data, len(data), rec)
        else:
            self._write(sid, data, more, service=False, rec=rec)
        if rec.offset is None:
            rec.offset = rec.frames[0][0]
        rec.payload += data
        if more:
            self.open[sid] = rec
        else:
            rec.done = True
            self.records.append(rec)
        return rec

    def stop(self):
        """The final Crc, and the file's bytes."""
        if self.stopped:
            return bytes(self.buf)
        self.stopped = True
        if not self.started:
            return b""
        c = len(self.buf)
        crc_pos = self.base + self.U - 5
        if "stop" in self.bugs and crc_pos - 4 <= c <= crc_pos:
            return bytes(self.buf)                 # bug c1: no final Crc
        if c == crc_pos:
            self._crc_frame()
            return bytes(self.buf)
        stop = self._next_stop()
        if stop - c < 5:
            value = self._crc_value(c) if "stop" in self.bugs else None
            self._pad_to_stop()                    # bug c2: the value before the padding
            self._crc_frame(value)
        else:
            self._crc_frame()
        return bytes(self.buf)


def fix_crc(data, base, end, crc="crc-32", order="little"):
    """``data`` with the Crc frame at ``end`` (covering [base + 1025, end))
    recomputed: a patched Unit that keeps a matching Crc."""
    d = bytearray(data)
    v = wire.CRC_NAMES[crc](d[base + MARKER_SIZE:end])
    d[end + 1:end + 5] = v.to_bytes(4, order)
    return bytes(d)
