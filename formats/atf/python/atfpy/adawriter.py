"""A model of the bytes the ADA tracer's C writer puts on disk, and when.

The ADA tracer's C writer (the origin of layout 1) writes every thread's
files through stdio ``FILE*`` streams. What reaches the disk, and in which
order, is therefore decided by stdio's buffering, not by the writer's calls.
This module reproduces that order exactly, as a log of the operating-system
calls a real run makes (see ATF-NOTES.md, "How the ADA tracer's C writer
behaves on disk"), so that a test can stop the run after any call, or in the
middle of any ``write``, and look at what a crash would have left.

Behaviour modelled (per thread ``N``, paths relative to the session directory):

* ``thread_N/index.atf`` is opened (``mkdir`` of ``thread_N/``, then
  ``fopen("wb")``, which creates the file empty) when the thread writes its
  first event, and its placeholder header is ``fwrite``-n at once: version
  byte = the layout, ``flags`` 0, ``event_count`` 0, ``events_offset`` 64,
  ``footer_offset`` 64 (``placeholder_footer_offset``; 0 gives the other
  placeholder form of SPEC 2.1), times 0.
* Every event: the index event is ``fwrite``-n (32 bytes); then, when the
  event carries a detail payload, ``thread_N/detail.atf`` is opened if it is
  not yet (placeholder header: ``event_count`` 0, ``bytes_length`` 0,
  ``index_seq_start``/``_end`` 0, ``flags`` 0), and the detail event is
  ``fwrite``-n as two calls (its 24-byte header, then the payload). The index
  header's ``has_detail_file`` flag is set in memory only.
  ``detail_seq`` counts detail events (none: the sentinel); the detail
  event's ``index_seq`` is the index event's position; its ``event_type`` is
  3 for a call, 4 for a return, 3 otherwise.
* stdio as glibc implements a fully buffered stream with a 4 KiB buffer
  (``buffer_size``): ``fwrite`` copies into the buffer; when the data does
  not fit, the buffer is filled, written with one ``write`` call, whole
  buffer-sized blocks of what is left are written directly, and the rest is
  buffered. A buffer that is exactly full is written by the next ``fwrite``
  or ``fflush``, not before. ``fflush``, ``fseek`` and ``fclose`` write what
  is buffered (nothing when the buffer is empty).
* Finalize (session stop), per thread: the index file (``fflush``; the
  footer, at ``ftell``, is ``fwrite``-n; ``fseek(0)`` writes it; the final
  header is ``fwrite``-n and ``fflush``-ed), then the detail file the same
  way; then both are closed (nothing left to write). Footer checksums are 0
  (the ADA writer's "TODO"), or CRC32-C of the events with
  ``checksum=CHECKSUM_CRC32C``.
* ``manifest.json`` is written only at stop, after every thread is
  finalized: every thread listed with ``"has_detail": true``, times 0,
  ``clock_type`` 1 (errata E-12), one ``fopen`` and one buffered ``write``.

A run is a list of :class:`Op`: ``mkdir`` (a directory appears), ``create``
(a file appears, empty) and ``write`` (bytes at an offset). ``state(k, cut)``
is the disk after the first ``k`` operations, with operation ``k`` (a write)
applied to its first ``cut`` bytes when ``cut`` is given; ``materialise``
writes such a state into a directory. ``calls`` lists the stdio calls
themselves (mkdir, fopen, fwrite, fflush, fseek, fclose), in order: replayed
through glibc 2.36 under strace, they made exactly the writes of ``ops``
(offsets and lengths), which is how this model was checked.

The defaults are the tracer's home platform: arm64, macOS, clock_type 1 in
the headers and in the manifest.

Layout 2 is supported with the same behaviour (the real writer writes layout
1 only): its index events have no thread_id/call_depth and a u64 detail_seq.
"""

import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .crc import CHECKSUM_CRC32C, CHECKSUM_NONE, compute_checksum
from .records import (ARCH_ARM64, CLOCK_MACH_CONTINUOUS, DETAIL_FUNCTION_CALL,
                      DETAIL_FUNCTION_RETURN, DETAIL_HEADER_SIZE, EVENT_CALL, EVENT_RETURN,
                      INDEX_EVENT_SIZE, INDEX_FLAG_HAS_DETAIL_FILE, INDEX_HEADER_SIZE, LAYOUT_1,
                      LAYOUTS, OS_MACOS, DetailEvent, DetailFooter, DetailHeader, IndexEvent,
                      IndexFooter, IndexHeader)

STDIO_BUFFER_SIZE = 4096
MANIFEST = "manifest.json"

OP_MKDIR = "mkdir"
OP_CREATE = "create"
OP_WRITE = "write"


@dataclass(frozen=True)
class Op:
    """One operating-system call that changes the disk."""
    kind: str                 # OP_MKDIR, OP_CREATE (the file exists, empty) or OP_WRITE
    path: str                 # relative to the session directory, "/"-separated
    offset: int = 0           # OP_WRITE: file offset of data
    data: bytes = b""         # OP_WRITE: the bytes written
    why: str = ""             # what caused it: "buffer full", "fflush", "fseek", ...

    def __str__(self):
        if self.kind == OP_WRITE:
            return "write %s @%d +%d (%s)" % (self.path, self.offset, len(self.data), self.why)
        return "%s %s%s" % (self.kind, self.path, " (%s)" % self.why if self.why else "")


class StdioStream:
    """A glibc ``FILE*`` opened "wb" and fully buffered: it turns ``fwrite``,
    ``fflush``, ``fseek`` and ``fclose`` into the ``write`` calls glibc makes
    (``_IO_new_file_xsputn``, ``_IO_new_file_overflow``, seek flushing)."""

    def __init__(self, ops, path, buffer_size=STDIO_BUFFER_SIZE, calls=None):
        if buffer_size < 128:
            raise ValueError("stdio buffers below 128 bytes are not modelled")
        self.ops, self.path, self.size = ops, path, buffer_size
        self.calls = calls if calls is not None else []   # (path, stdio call, argument)
        self.calls.append((path, "fopen", None))
        self.pos = 0                  # the kernel's file offset
        self.buf = bytearray()
        self.putting = False          # a put area is set up (none before the first write
        self.closed = False           # and after a seek)
        ops.append(Op(OP_CREATE, path, why="fopen"))

    def _write(self, data, why):
        if data:
            self.ops.append(Op(OP_WRITE, self.path, self.pos, bytes(data), why))
            self.pos += len(data)

    def _flush(self, why):
        self._write(self.buf, why)
        self.buf = bytearray()

    def fwrite(self, data):
        assert not self.closed
        data = bytes(data)
        self.calls.append((self.path, "fwrite", data))
        room = self.size - len(self.buf) if self.putting else 0
        take = min(room, len(data))
        self.buf += data[:take]
        rest = data[take:]
        if rest:
            # overflow: set up the put area, write out the (full) buffer, then
            # whole blocks directly and the remainder into the buffer.
            self.putting = True
            self._flush("buffer full")
            direct = len(rest) - len(rest) % self.size
            self._write(rest[:direct], "fwrite of whole blocks")
            self.buf += rest[direct:]

    def fflush(self):
        self.calls.append((self.path, "fflush", None))
        self._flush("fflush")

    def ftell(self):
        return self.pos + len(self.buf)

    def fseek(self, offset):
        self.calls.append((self.path, "fseek", offset))
        self._flush("fseek")
        self.putting = False
        self.pos = offset

    def fclose(self):
        if not self.closed:
            self.calls.append((self.path, "fclose", None))
            self._flush("fclose")
            self.closed = True


@dataclass
class ThreadRun:
    """What one thread wrote, with the file offset of every record."""
    tid: int
    index_path: str
    detail_path: str
    index_header: IndexHeader
    index_events: List[Tuple[int, IndexEvent]] = field(default_factory=list)
    detail_events: List[Tuple[int, DetailEvent]] = field(default_factory=list)
    detail_header: Optional[DetailHeader] = None     # None: no detail file (yet)
    index_footer: Optional[Tuple[int, IndexFooter]] = None    # set at finalize
    detail_footer: Optional[Tuple[int, DetailFooter]] = None
    finalized: bool = False
    index: Optional[StdioStream] = field(default=None, repr=False)
    detail: Optional[StdioStream] = field(default=None, repr=False)

    @property
    def has_detail_file(self):
        return self.detail_header is not None


class AdaSessionWriter:
    """Drives the model: ``event()`` per event, ``stop()`` at the end.

    ``ops`` is the log of operating-system calls, in order; ``threads`` the
    per-thread record of what was written where (by thread id)."""

    def __init__(self, layout=LAYOUT_1, arch=ARCH_ARM64, os=OS_MACOS,
                 clock_type=CLOCK_MACH_CONTINUOUS, buffer_size=STDIO_BUFFER_SIZE,
                 checksum=CHECKSUM_NONE, placeholder_footer_offset=INDEX_HEADER_SIZE,
                 manifest_clock_type=CLOCK_MACH_CONTINUOUS):
        if layout not in LAYOUTS:
            raise ValueError("layout must be 1 or 2")
        if checksum not in (CHECKSUM_NONE, CHECKSUM_CRC32C):
            raise ValueError("checksum must be %r or %r" % (CHECKSUM_NONE, CHECKSUM_CRC32C))
        if placeholder_footer_offset not in (0, INDEX_HEADER_SIZE):
            raise ValueError("placeholder_footer_offset must be 0 or 64")
        self.layout, self.arch, self.os, self.clock_type = layout, arch, os, clock_type
        self.buffer_size, self.checksum = buffer_size, checksum
        self.placeholder_footer_offset = placeholder_footer_offset
        self.manifest_clock_type = manifest_clock_type
        self.ops: List[Op] = []
        self.calls: List[tuple] = []     # the stdio calls made, (path, call, argument)
        self.threads: Dict[int, ThreadRun] = {}
        self._dirs = set()
        self.stopped = False
        self.manifest: Optional[dict] = None

    # -- writing --

    def _mkdir(self, path):
        if path not in self._dirs:
            self._dirs.add(path)
            self.calls.append((path, "mkdir", None))
            self.ops.append(Op(OP_MKDIR, path, why="mkdir_recursive"))

    def start_thread(self, tid):
        """Opens thread ``tid``'s index file (done by its first event too)."""
        if tid in self.threads:
            return self.threads[tid]
        if self.stopped:
            raise RuntimeError("the session is stopped")
        if not 0 <= tid <= 0xFFFFFFFF:
            raise ValueError("thread id %r is not a u32" % (tid,))
        tdir = "thread_%d" % tid
        self._mkdir(tdir)
        header = IndexHeader(version=self.layout, arch=self.arch, os=self.os, flags=0,
                             thread_id=tid, clock_type=self.clock_type, event_count=0,
                             events_offset=INDEX_HEADER_SIZE,
                             footer_offset=self.placeholder_footer_offset,
                             time_start_ns=0, time_end_ns=0)
        t = ThreadRun(tid, tdir + "/index.atf", tdir + "/detail.atf", header)
        t.index = StdioStream(self.ops, t.index_path, self.buffer_size, self.calls)
        t.index.fwrite(header.encode())
        self.threads[tid] = t
        return t

    def _open_detail(self, t):
        self._mkdir(t.index_path.rsplit("/", 1)[0])
        t.detail_header = DetailHeader(version=self.layout, arch=self.arch, os=self.os, flags=0,
                                       thread_id=t.tid, events_offset=DETAIL_HEADER_SIZE,
                                       event_count=0, bytes_length=0, index_seq_start=0,
                                       index_seq_end=0)
        t.detail = StdioStream(self.ops, t.detail_path, self.buffer_size, self.calls)
        t.detail.fwrite(t.detail_header.encode())
        t.index_header.flags |= INDEX_FLAG_HAS_DETAIL_FILE

    def event(self, tid, timestamp_ns, function_id, event_kind, call_depth=0, payload=None):
        """One event of thread ``tid``; ``payload`` (bytes, non-empty) adds a
        detail event. Returns the index event's position (its index_seq)."""
        t = self.start_thread(tid)
        if t.finalized:
            raise RuntimeError("thread %d is finalized" % tid)
        has_detail = bool(payload)
        seq = len(t.index_events)
        dseq = len(t.detail_events) if has_detail else None
        l1 = self.layout == LAYOUT_1
        ev = IndexEvent(timestamp_ns, function_id, event_kind, dseq,
                        thread_id=tid if l1 else 0, call_depth=call_depth if l1 else 0)
        t.index_events.append((t.index.ftell(), ev))
        t.index.fwrite(ev.encode(self.layout))
        if has_detail:
            if t.detail is None:
                self._open_detail(t)
            etype = DETAIL_FUNCTION_RETURN if event_kind == EVENT_RETURN else DETAIL_FUNCTION_CALL
            dev = DetailEvent(etype, 0, seq, timestamp_ns, bytes(payload),
                              thread_id=tid if l1 else 0)
            t.detail_events.append((t.detail.ftell(), dev))
            raw = dev.encode(self.layout)
            t.detail.fwrite(raw[:24])
            t.detail.fwrite(raw[24:])
        return seq

    def _events_section(self, events, layout):
        return b"".join(ev.encode(layout) for _off, ev in events)

    def finalize_thread(self, tid):
        t = self.threads[tid]
        if t.finalized:
            return
        evs = [ev for _o, ev in t.index_events]
        n = len(evs)
        ts0 = evs[0].timestamp_ns if n else 0
        ts1 = evs[-1].timestamp_ns if n else 0
        t.index.fflush()
        foff = t.index.ftell()
        footer = IndexFooter(
            checksum=compute_checksum(self.checksum, self._events_section(t.index_events,
                                                                          self.layout)),
            event_count=n, time_start_ns=ts0, time_end_ns=ts1,
            bytes_written=n * INDEX_EVENT_SIZE)
        t.index_footer = (foff, footer)
        t.index.fwrite(footer.encode())
        h = t.index_header
        h.event_count, h.footer_offset, h.time_start_ns, h.time_end_ns = n, foff, ts0, ts1
        t.index.fseek(0)
        t.index.fwrite(h.encode())
        t.index.fflush()
        if t.detail is not None:
            devs = [ev for _o, ev in t.detail_events]
            length = sum(ev.total_length for ev in devs)
            t.detail.fflush()
            footer = DetailFooter(
                checksum=compute_checksum(self.checksum,
                                          self._events_section(t.detail_events, self.layout)),
                event_count=len(devs), bytes_length=length,
                time_start_ns=devs[0].timestamp, time_end_ns=devs[-1].timestamp)
            t.detail_footer = (t.detail.ftell(), footer)
            t.detail.fwrite(footer.encode())
            d = t.detail_header
            d.event_count, d.bytes_length = len(devs), length
            d.index_seq_start = min(ev.index_seq for ev in devs)
            d.index_seq_end = max(ev.index_seq for ev in devs)
            t.detail.fseek(0)
            t.detail.fwrite(d.encode())
            t.detail.fflush()
        t.index.fclose()
        if t.detail is not None:
            t.detail.fclose()
        t.finalized = True

    def manifest_object(self):
        return {"format_version": "2.0", "clock_type": self.manifest_clock_type,
                "time_start_ns": 0, "time_end_ns": 0,
                "threads": [{"id": tid, "has_detail": True} for tid in self.threads]}

    def stop(self, order=None):
        """Session stop: finalizes every thread (``order``: thread ids, default
        the order they started), then writes manifest.json."""
        for tid in (order if order is not None else list(self.threads)):
            self.finalize_thread(tid)
        for tid in self.threads:
            self.finalize_thread(tid)
        self.manifest = self.manifest_object()
        f = StdioStream(self.ops, MANIFEST, self.buffer_size, self.calls)
        f.fwrite(json.dumps(self.manifest, indent=2).encode("utf-8") + b"\n")
        f.fclose()
        self.stopped = True

    # -- what is on disk --

    def state(self, k=None, cut=None):
        return disk_state(self.ops, len(self.ops) if k is None else k, cut)

    def materialise(self, directory, k=None, cut=None):
        return materialise(self.ops, directory, len(self.ops) if k is None else k, cut)

    def cut_points(self, every_byte=False):
        """Every (k, cut) state of the run: each write-call boundary (cut None,
        k = 0..len(ops)) and, with ``every_byte``, each byte 1..len-1 inside
        every write that can be cut (``tearable``)."""
        out = [(k, None) for k in range(len(self.ops) + 1)]
        if every_byte:
            for k, op in enumerate(self.ops):
                if tearable(self.ops, k):
                    out += [(k, b) for b in range(1, len(op.data))]
        return out


def tearable(ops, k):
    """Whether a crash can leave write ``ops[k]`` half done (SPEC errata E-20):
    appends to index.atf / detail.atf, at any byte. The header rewrite at
    offset 0 (64 bytes, one call inside one page and one disk sector) and
    manifest.json (written in one call at stop) are taken as all-or-nothing."""
    op = ops[k]
    if op.kind != OP_WRITE or len(op.data) < 2 or not op.path.endswith(".atf"):
        return False
    size = 0
    for prev in ops[:k]:
        if prev.kind == OP_CREATE and prev.path == op.path:
            size = 0
        elif prev.kind == OP_WRITE and prev.path == op.path:
            size = max(size, prev.offset + len(prev.data))
    return op.offset >= size


@dataclass
class DiskState:
    dirs: List[str]
    files: Dict[str, bytes]


def disk_state(ops, k, cut=None):
    """The disk after ``ops[:k]``, plus the first ``cut`` bytes of ``ops[k]``
    (a write) when ``cut`` is not None."""
    if not 0 <= k <= len(ops):
        raise ValueError("k=%d outside 0..%d" % (k, len(ops)))
    dirs, files = [], {}

    def apply(op, data):
        if op.kind == OP_MKDIR:
            dirs.append(op.path)
        elif op.kind == OP_CREATE:
            files[op.path] = bytearray()
        else:
            buf = files[op.path]
            end = op.offset + len(data)
            if len(buf) < end:
                buf.extend(bytes(end - len(buf)))
            buf[op.offset:end] = data

    for op in ops[:k]:
        apply(op, op.data)
    if cut is not None:
        if k >= len(ops) or ops[k].kind != OP_WRITE:
            raise ValueError("operation %d is not a write" % k)
        if not 0 <= cut <= len(ops[k].data):
            raise ValueError("cut %d outside the %d bytes of operation %d"
                             % (cut, len(ops[k].data), k))
        apply(ops[k], ops[k].data[:cut])
    return DiskState(dirs, {p: bytes(b) for p, b in files.items()})


def materialise(ops, directory, k, cut=None):
    """Writes the disk state after ``ops[:k]`` (and ``cut`` bytes of ops[k])
    under ``directory`` (created if needed; it should be empty). Returns the
    DiskState."""
    st = disk_state(ops, k, cut)
    os.makedirs(directory, exist_ok=True)
    for d in st.dirs:
        os.makedirs(os.path.join(directory, *d.split("/")), exist_ok=True)
    for p, data in st.files.items():
        with open(os.path.join(directory, *p.split("/")), "wb") as f:
            f.write(data)
    return st


def simulate(seed, *, layout=LAYOUT_1, thread_ids=(1, 2), events=200, detail=(),
             detail_rate=0.5, max_stack=256, stop=True, **writer_options):
    """A run of ``events`` events spread at random over ``thread_ids`` (each
    thread starts at its first event), calls and returns nested per thread.
    Threads in ``detail`` attach an ARM64 function payload (stack snapshot of
    0..``max_stack`` bytes) to a ``detail_rate`` share of their events.
    Deterministic for a seed. Returns the AdaSessionWriter (stopped when
    ``stop``)."""
    import random
    from .records import EVENT_EXCEPTION, Arm64Payload

    rng = random.Random(seed)
    w = AdaSessionWriter(layout=layout, **writer_options)
    depth = {tid: 0 for tid in thread_ids}
    clock = 1_000_000_000 + rng.randrange(1000)
    for _ in range(events):
        tid = rng.choice(thread_ids)
        clock += rng.randrange(1, 5000)
        if depth[tid] and rng.random() < 0.45:
            kind = EVENT_RETURN
            depth[tid] -= 1
            d = depth[tid]
        elif rng.random() < 0.02:
            kind, d = EVENT_EXCEPTION, depth[tid]
        else:
            kind, d = EVENT_CALL, depth[tid]
            depth[tid] += 1
        fid = rng.choice((0x1000, 0x1040, 0x2200, 0x7FFF0000DEAD, (1 << 63) + 5))
        payload = None
        if tid in detail and rng.random() < detail_rate:
            sp = 0x16F000000 - 16 * d
            payload = Arm64Payload(fid, [rng.getrandbits(64) for _ in range(8)],
                                   0x100000000 + rng.getrandbits(20), sp + 64, sp,
                                   rng.randbytes(rng.randrange(max_stack + 1))).encode()
        w.event(tid, clock, fid, kind, d, payload)
    if stop:
        w.stop()
    return w
