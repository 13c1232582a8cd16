#!/usr/bin/python3
"""Writes the golden corpus (corpus/atf/): ATF files, threads and sessions with the
verdict each one must get, in the manner of JSONTestSuite (y_/n_/i_) and
babeltrace (succeed/fail + expect files).

    make_corpus.py [--out DIR]      (re)write the corpus (default: corpus/atf/ of the repo)
    make_corpus.py --check DIR      regenerate into a temporary directory and compare
                                    every file with DIR byte for byte (exit 1 on a
                                    difference, listing it)
    make_corpus.py --list           print the case names and classes

Every case is built from a model (events, detail events, manifest, and how the
files are written or damaged) with atfpy, the standard-library implementation
of the format in atfpy/; nothing comes from the C codec. For each case NAME:
    NAME/               the input: index.atf, detail.atf, thread_K/ or a session
    NAME.expect.json    the expected verdicts, clause IDs and recovered counts
    NAME.dump.jsonl     the expected `atf dump --json` (accepted cases only),
                        computed from the model, then checked against atfpy's
                        decoding of the written files
The expected clause IDs are written by hand, case by case, from SPEC.md; they
are cross-checked by running conformance/tests/run_corpus.py against both the
C validator and atfpy's own (atfpy/validate.py).

Deterministic: fixed seeds (one random.Random per case, seeded by its name),
sorted output, no timestamps. Standard library only (Debian's /usr/bin/python3).
"""

import json
import os
import random
import re
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [HERE, os.path.join(REPO, "conformance", "gen")]

from atfpy import (ARCH_ARM64, ARCH_X86_64, CLOCK_BOOTTIME, CLOCK_MACH_CONTINUOUS,  # noqa: E402
                   CLOCK_QPC, DETAIL_FUNCTION_CALL, DETAIL_FUNCTION_RETURN, DETAIL_HEADER_SIZE,
                   EVENT_CALL, EVENT_EXCEPTION, EVENT_RETURN, INDEX_EVENT_SIZE,
                   INDEX_HEADER_SIZE, LAYOUT_1, LAYOUT_2, OS_ANDROID, OS_IOS, OS_LINUX,
                   OS_MACOS, OS_WINDOWS, U32_MAX, U64_MAX, Arm64Payload, DetailEvent,
                   DetailFooter, DetailHeader, IndexEvent, IndexFooter, IndexHeader,
                   compute_checksum)
import atfpy  # noqa: E402
from atfpy.dump import detail_file_lines, session_lines, thread_lines  # noqa: E402
from atfpy.session import SessionView, ThreadView, call_step  # noqa: E402
import atfpy_tool  # noqa: E402
from tracepy.corpus import (EXPECT_SCHEMA, Expectation, clear_owned, collect_cases,  # noqa: E402
                            coverage, generator_main, readme_classes, readme_tail,
                            require_coverage, spec_clauses, write_bytes)

DEFAULT_OUT = os.path.join(REPO, "corpus", "atf")
SPEC = os.path.join(REPO, "conformance", "SPEC.md")


def le(value, size):
    return value.to_bytes(size, "little")


# ---- Files ------------------------------------------------------------------------

class _FileSpec:
    """What IndexSpec and DetailSpec share: the fields that say how the bytes
    around the events are written (see IndexSpec)."""

    def _fields(self, layout, events, tid, arch, os, checksum, header, footer, eoff, tail, after,
                hdr, ftr, patches, raw):
        self.layout, self.events, self.tid = layout, list(events), tid
        self.arch, self.os = arch, os
        self.checksum = checksum if checksum is not None else (
            "none" if layout == LAYOUT_1 else "crc32c")
        self.header, self.footer, self.eoff = header, footer, eoff
        self.tail, self.after = tail, after
        self.hdr, self.ftr = dict(hdr or {}), dict(ftr or {})
        self.patches, self.raw = list(patches), raw

    def header_value(self, name):
        return self.hdr.get(name, {"thread_id": self.tid, "arch": self.arch}.get(name))


class IndexSpec(_FileSpec):
    """How to write one index.atf. The events are the complete events the file
    holds (and a reader must see); everything else says how the bytes around
    them are written or damaged.

    header   "final" (rewritten at finalize) or "placeholder" (as first written)
    footer   write the footer
    tail     bytes right after the events (a partial record or torn footer in a
             crash; a gap before the footer otherwise)
    after    bytes after the footer
    hdr/ftr  field overrides applied to the header / footer records
    patches  (region, offset, bytes) with region "hdr", "ftr", "file", or
             ("evt", k) for index event k (applied before the checksum)
    raw      the whole file, verbatim (nothing else applies)
    """

    def __init__(self, layout, events, *, tid, arch=ARCH_ARM64, os=OS_LINUX,
                 clock=CLOCK_BOOTTIME, flags=None, checksum=None, header="final", footer=True,
                 eoff=INDEX_HEADER_SIZE, tail=b"", after=b"", hdr=None, ftr=None, patches=(),
                 raw=None):
        self._fields(layout, events, tid, arch, os, checksum, header, footer, eoff, tail, after,
                     hdr, ftr, patches, raw)
        self.clock, self.flags = clock, flags

    def render(self):
        if self.raw is not None:
            return bytes(self.raw)
        body = bytearray(b"".join(e.encode(self.layout) for e in self.events))
        for region, off, data in self.patches:
            if isinstance(region, tuple) and region[0] == "evt":
                at = region[1] * INDEX_EVENT_SIZE + off
                body[at:at + len(data)] = data
        body = bytes(body)
        n = len(self.events)
        ts0 = self.events[0].timestamp_ns if n else 0
        ts1 = self.events[-1].timestamp_ns if n else 0
        flags = self.flags if self.flags is not None else 0
        h = IndexHeader(version=self.layout, arch=self.arch, os=self.os, flags=flags,
                        thread_id=self.tid, clock_type=self.clock, events_offset=self.eoff)
        fpos = self.eoff + len(body) + len(self.tail)
        if self.header == "final":
            h.event_count = n
            h.footer_offset = fpos if self.footer else self.eoff + len(body)
            h.time_start_ns, h.time_end_ns = ts0, ts1
        for k, v in self.hdr.items():
            setattr(h, k, v)
        f = IndexFooter(checksum=compute_checksum(self.checksum, body), event_count=n,
                        time_start_ns=ts0, time_end_ns=ts1, bytes_written=len(body))
        for k, v in self.ftr.items():
            setattr(f, k, v)
        data = bytearray(h.encode() + bytes(self.eoff - INDEX_HEADER_SIZE) + body + self.tail
                         + (f.encode() if self.footer else b"") + self.after)
        _patch(data, self.patches, fpos)
        return bytes(data)

    def torn_footer(self, k):
        """The first k bytes of the footer a finalize of these events writes."""
        body = b"".join(e.encode(self.layout) for e in self.events)
        n = len(self.events)
        f = IndexFooter(checksum=compute_checksum(self.checksum, body), event_count=n,
                        time_start_ns=self.events[0].timestamp_ns if n else 0,
                        time_end_ns=self.events[-1].timestamp_ns if n else 0,
                        bytes_written=len(body))
        return f.encode()[:k]


class DetailSpec(_FileSpec):
    """How to write one detail.atf (same conventions as IndexSpec; ("evt", k)
    patches are relative to the start of detail event k)."""

    def __init__(self, layout, events, *, tid, arch=ARCH_ARM64, os=OS_LINUX, checksum=None,
                 header="final", footer=True, eoff=DETAIL_HEADER_SIZE, tail=b"", after=b"",
                 hdr=None, ftr=None, patches=(), raw=None):
        self._fields(layout, events, tid, arch, os, checksum, header, footer, eoff, tail, after,
                     hdr, ftr, patches, raw)

    def offsets(self):
        out, pos = [], self.eoff
        for e in self.events:
            out.append(pos)
            pos += e.total_length
        return out

    def _body(self):
        body = bytearray(b"".join(e.encode(self.layout) for e in self.events))
        starts = [o - self.eoff for o in self.offsets()]
        for region, off, data in self.patches:
            if isinstance(region, tuple) and region[0] == "evt":
                at = starts[region[1]] + off
                body[at:at + len(data)] = data
        return bytes(body)

    def render(self):
        if self.raw is not None:
            return bytes(self.raw)
        body = self._body()
        n = len(self.events)
        h = DetailHeader(version=self.layout, arch=self.arch, os=self.os, flags=0,
                         thread_id=self.tid, events_offset=self.eoff)
        if self.header == "final":
            h.event_count, h.bytes_length = n, len(body)
            h.index_seq_start = self.events[0].index_seq if n else 0
            h.index_seq_end = self.events[-1].index_seq if n else 0
        for k, v in self.hdr.items():
            setattr(h, k, v)
        f = self._footer(body)
        for k, v in self.ftr.items():
            setattr(f, k, v)
        fpos = self.eoff + len(body) + len(self.tail)
        data = bytearray(h.encode() + bytes(self.eoff - DETAIL_HEADER_SIZE) + body + self.tail
                         + (f.encode() if self.footer else b"") + self.after)
        _patch(data, self.patches, fpos)
        return bytes(data)

    def _footer(self, body):
        n = len(self.events)
        return DetailFooter(checksum=compute_checksum(self.checksum, body), event_count=n,
                            bytes_length=len(body),
                            time_start_ns=self.events[0].timestamp if n else 0,
                            time_end_ns=self.events[-1].timestamp if n else 0)

    def torn_footer(self, k):
        return self._footer(self._body()).encode()[:k]


def _patch(data, patches, fpos):
    for region, off, b in patches:
        if region == "hdr" or region == "file":
            at = off
        elif region == "ftr":
            at = fpos + off
        else:
            continue
        data[at:at + len(b)] = b


class ThreadSpec:
    """thread_<id>/ with index.atf (None: missing) and detail.atf (None: none).
    The index header's has_detail_file flag follows the detail file unless the
    IndexSpec sets flags."""

    def __init__(self, id, index, detail=None):
        self.id, self.index, self.detail = id, index, detail
        if index is not None and index.flags is None:
            index.flags = 1 if detail is not None else 0

    def files(self, prefix):
        out = {}
        if self.index is not None:
            out[prefix + "index.atf"] = self.index.render()
        if self.detail is not None:
            out[prefix + "detail.atf"] = self.detail.render()
        return out

    def view(self, key):
        i, d = self.index, self.detail
        tv = ThreadView(key, i.layout, list(i.events))
        if d is not None:
            tv.detail_layout = d.layout
            tv.detail_arch = d.header_value("arch")
            tv.detail_events = list(zip(d.offsets(), d.events))
        return tv


class SessionSpec:
    """A session directory at ``root`` inside the case directory: the threads
    and manifest.json (a dict written as JSON, raw bytes, or None: no manifest).
    ``symbols`` is the function_id -> name map the manifest carries."""

    def __init__(self, threads, manifest, symbols=None, root=""):
        self.threads, self.manifest, self.symbols, self.root = threads, manifest, symbols, root

    def files(self):
        out = {}
        for t in self.threads:
            out.update(t.files(self.root + "thread_%d/" % t.id))
        if self.manifest is not None:
            raw = self.manifest
            if isinstance(raw, dict):
                raw = (json.dumps(raw, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
            out[self.root + "manifest.json"] = raw
        return out


# ---- Events ---------------------------------------------------------------------

def arm64_payload(rng, fid, stack_size, reserved=0):
    sp = 0x16F000000 + (rng.randrange(0, 1 << 16) << 4)
    return Arm64Payload(function_id=fid, x=[rng.getrandbits(64) for _ in range(8)],
                        lr=0x100000000 + rng.randrange(0, 1 << 20) * 4, fp=sp + 0x40, sp=sp,
                        stack=rng.randbytes(stack_size), reserved=reserved).encode()


def make_events(rng, layout, n, *, tid, detail=False, arch=ARCH_ARM64, every=2, ts0=None,
                stack_sizes=(0, 8, 16, 32), steps=(0, 1, 3, 40, 700, 15000), exceptions=True):
    """(index events, detail events or None): a call/return stream with call
    depths, occasional exceptions, non-decreasing timestamps, and a detail event
    for every ``every``-th non-exception event when ``detail``."""
    fids = [(m << 32) | rng.randrange(1, 1 << 16) for m in range(3) for _ in range(3)]
    ts = ts0 if ts0 is not None else 1_000_000_000 + rng.randrange(0, 10 ** 6)
    events, details, stack = [], ([] if detail else None), []
    k = 0
    for seq in range(n):
        if seq:
            ts += rng.choice(steps)
        fid, kind, depth = call_step(stack, rng.random(), lambda: rng.choice(fids), 6, 0.55, 0.93,
                                     exceptions)
        ev = IndexEvent(timestamp_ns=ts, function_id=fid, event_kind=kind)
        if layout == LAYOUT_1:
            ev.thread_id, ev.call_depth = tid, depth
        if details is not None and kind != EVENT_EXCEPTION:
            if k % every == 0:
                etype = DETAIL_FUNCTION_CALL if kind == EVENT_CALL else DETAIL_FUNCTION_RETURN
                if arch == ARCH_ARM64:
                    payload = arm64_payload(rng, fid, stack_sizes[len(details) % len(stack_sizes)])
                else:
                    payload = rng.randbytes(rng.choice((0, 8, 24, 40)))
                details.append(DetailEvent(event_type=etype, flags=rng.choice((0, 0, 1, 0x8000)),
                                           index_seq=seq, timestamp=ts, payload=payload,
                                           thread_id=tid if layout == LAYOUT_1 else 0))
                ev.detail_seq = len(details) - 1
            k += 1
        events.append(ev)
    return events, details


def linked_pairs(events):
    return [(s, e.detail_seq) for s, e in enumerate(events) if e.detail_seq is not None]


def lone_index(rng, layout, n=8, *, tid=None, **kw):
    tid = tid if tid is not None else 4000 + rng.randrange(1000)
    events, _ = make_events(rng, layout, n, tid=tid)
    kw.setdefault("flags", 0)
    return IndexSpec(layout, events, tid=tid, **kw)


def lone_detail(rng, layout, n=10, *, tid=None, arch=ARCH_ARM64, every=1,
                stack_sizes=(0, 8, 16, 32), **kw):
    """A detail file alone: the detail events of an n-event thread."""
    tid = tid if tid is not None else 4000 + rng.randrange(1000)
    _, details = make_events(rng, layout, n, tid=tid, detail=True, arch=arch, every=every,
                             stack_sizes=stack_sizes)
    return DetailSpec(layout, details, tid=tid, arch=arch, **kw)


def thread(rng, layout, n=10, *, id=3, tid=None, detail=True, arch=ARCH_ARM64, os=OS_LINUX,
           clock=CLOCK_BOOTTIME, every=2, checksum=None, ts0=None, stack_sizes=(0, 8, 16, 32),
           steps=(0, 1, 3, 40, 700, 15000), index_kw=None, detail_kw=None):
    tid = tid if tid is not None else 5000 + rng.randrange(10000)
    events, details = make_events(rng, layout, n, tid=tid, detail=detail, arch=arch,
                                  every=every, ts0=ts0, stack_sizes=stack_sizes, steps=steps)
    ikw = dict(index_kw or {})
    dkw = dict(detail_kw or {})
    if checksum is not None:
        ikw.setdefault("checksum", checksum)
        dkw.setdefault("checksum", checksum)
    idx = IndexSpec(layout, events, tid=tid, arch=arch, os=os, clock=clock, **ikw)
    det = DetailSpec(layout, details, tid=tid, arch=arch, os=os, **dkw) if detail else None
    return ThreadSpec(id, idx, det)


def refresh_details(rng, t):
    """After links were edited: payload function_ids and timestamps of every
    mutually linked pair follow their index event again."""
    ievs, devs = t.index.events, t.detail.events
    for k, d in enumerate(devs):
        if d.index_seq < len(ievs) and ievs[d.index_seq].detail_seq == k:
            ie = ievs[d.index_seq]
            d.timestamp = ie.timestamp_ns
            if t.detail.arch == ARCH_ARM64 and d.event_type in (3, 4) and len(d.payload) >= 100:
                d.payload = le(ie.function_id, 8) + d.payload[8:]


def manifest_for(threads, *, clock=CLOCK_BOOTTIME, times=True, symbols=None, extra=None,
                 format_version=None):
    evs = [t.index.events for t in threads if t.index is not None and t.index.events]
    t0 = min(e[0].timestamp_ns for e in evs) if evs and times else 0
    t1 = max(e[-1].timestamp_ns for e in evs) if evs and times else 0
    m = {"format_version": format_version or ("2.1" if symbols else "2.0"), "clock_type": clock,
         "time_start_ns": t0, "time_end_ns": t1,
         "threads": [{"id": t.id, "has_detail": t.detail is not None} for t in threads]}
    if symbols:
        m["symbols"] = symbols
    for k, v in (extra or {}).items():
        m[k] = v
    return m


def session(rng, layout, specs, *, clock=None, os=OS_LINUX, arch=ARCH_ARM64, checksum=None,
            times=True, symbols=None, manifest_extra=None, root="", order=None, **tkw):
    """A SessionSpec of threads (id, n events, with detail) and a consistent manifest."""
    clock = clock if clock is not None else (CLOCK_BOOTTIME if os in (OS_LINUX, OS_ANDROID) else
                                             CLOCK_QPC if os == OS_WINDOWS else
                                             CLOCK_MACH_CONTINUOUS)
    threads = [thread(rng, layout, n, id=k, detail=d, arch=arch, os=os, clock=clock,
                      checksum=checksum, **tkw) for k, n, d in specs]
    listed = threads if order is None else [next(t for t in threads if t.id == k) for k in order]
    m = manifest_for(listed, clock=clock, times=times, extra=manifest_extra)
    return SessionSpec(threads, m, root=root)


# ---- Cases ------------------------------------------------------------------------

class Case(Expectation):
    def __init__(self, name, content, description, *, errors=(), warnings=(), why=None,
                 target=None, recovered=None, allowed_extra=()):
        self.expectation(name, description, errors, warnings, why, allowed_extra)
        self.content, self._target, self._recovered = content, target, recovered

    @property
    def target(self):
        c = self.content
        if self._target is not None:
            return self._target
        if isinstance(c, IndexSpec):
            return "index.atf"
        if isinstance(c, DetailSpec):
            return "detail.atf"
        if isinstance(c, ThreadSpec):
            return "thread_%d" % c.id
        return c.root.rstrip("/") or "."

    def files(self):
        c = self.content
        if isinstance(c, IndexSpec):
            return {"index.atf": c.render()}
        if isinstance(c, DetailSpec):
            return {"detail.atf": c.render()}
        if isinstance(c, ThreadSpec):
            return c.files("thread_%d/" % c.id)
        return c.files()

    def _file_specs(self):
        """[(path relative to the case directory, spec)] of every ATF file."""
        c = self.content
        if isinstance(c, IndexSpec):
            return [("index.atf", c)]
        if isinstance(c, DetailSpec):
            return [("detail.atf", c)]
        threads, root = ([c], "") if isinstance(c, ThreadSpec) else (c.threads, c.root)
        out = []
        for t in threads:
            for name, s in (("index.atf", t.index), ("detail.atf", t.detail)):
                if s is not None:
                    out.append(("%sthread_%d/%s" % (root, t.id, name), s))
        return out

    def layouts(self):
        return sorted({s.layout for _, s in self._file_specs()})

    def recovered(self):
        if self._recovered is not None:
            return dict(self._recovered)
        out = {}
        base = "" if self.target == "." else self.target + "/"
        for path, s in self._file_specs():
            # SPEC 7a.12: a raw file cut inside its header that starts like one is a crash with 0 events.
            cut_header = (s.raw is not None and len(s.raw) < 64 and atfpy.header_prefix_ok(
                s.raw, atfpy.INDEX_MAGIC if isinstance(s, IndexSpec) else atfpy.DETAIL_MAGIC))
            if cut_header or (s.raw is None and not s.footer):
                rel = os.path.basename(path) if path == self.target else (
                    path[len(base):] if path.startswith(base) else path)
                out[rel] = len(s.events)
        return out

    def dump_lines(self):
        c = self.content
        if isinstance(c, IndexSpec):
            return thread_lines(ThreadView(c.header_value("thread_id"), c.layout, c.events))
        if isinstance(c, DetailSpec):
            tv = ThreadView(c.header_value("thread_id"), c.layout, [], c.layout,
                            c.header_value("arch"), list(zip(c.offsets(), c.events)))
            return detail_file_lines(tv)
        if isinstance(c, ThreadSpec):
            return thread_lines(c.view(c.id))
        if self._target not in (None, ".", c.root.rstrip("/")):
            m = re.search(r"thread_(\d+)$", self._target)
            if m:     # a thread directory of the session: that thread's lines
                t = next(t for t in c.threads if t.id == int(m.group(1)))
                return thread_lines(t.view(t.id), c.symbols or {})
        views = [t.view(t.id) for t in sorted(c.threads, key=lambda t: t.id)
                 if t.index is not None]
        return session_lines(SessionView(views, c.symbols or {}))

    def expect(self):
        return self.expect_object(self.target, self.recovered(), [("layouts", self.layouts())])


CASES = []


def add(name, content, description, **kw):
    if any(c.name == name for c in CASES):
        raise ValueError("duplicate case %s" % name)
    CASES.append(Case(name, content, description, **kw))


def R(name):
    """The random generator of one case: seeded by its name, so that adding or
    reordering cases changes nothing else."""
    return random.Random("atf-corpus:" + name)


def each_layout(fn):
    """Registers fn(layout) for layouts 1 and 2 (fn calls add)."""
    for layout in (LAYOUT_1, LAYOUT_2):
        fn(layout)


def C(name, description, build, **kw):
    """Registers case ``name``; build(rng) returns its content."""
    add(name, build(R(name)), description, **kw)


def lsuf(layout):
    return "l%d" % layout


def crash_index(spec, keep, tail_bytes=0, tail=None):
    """Turns ``spec`` into a crash-truncated index file: placeholder header, the
    first ``keep`` events, then ``tail_bytes`` bytes of the next event (or the
    given tail), no footer."""
    nxt = spec.events[keep].encode(spec.layout) if keep < len(spec.events) else bytes(32)
    spec.events = spec.events[:keep]
    spec.header, spec.footer = "placeholder", False
    spec.tail = tail if tail is not None else nxt[:tail_bytes]
    return spec


def crash_detail(spec, keep, tail_bytes=0, tail=None):
    nxt = spec.events[keep].encode(spec.layout) if keep < len(spec.events) else bytes(24)
    spec.events = spec.events[:keep]
    spec.header, spec.footer = "placeholder", False
    spec.tail = tail if tail is not None else nxt[:tail_bytes]
    return spec


EXTREME_FIDS = (0, U64_MAX, 1 << 63, U32_MAX, 1 << 32, U64_MAX - 1)


# ---- y_: valid (accepted, no finding, also under --strict) ---------------------

def valid_cases():
    for L in (LAYOUT_1, LAYOUT_2):
        s = lsuf(L)
        C("y_idx_basic_" + s, "index file alone, 12 call/return/exception events, finalized "
          "(layout 1: checksum 0 as the ADA tracer writes; layout 2: CRC32-C)",
          lambda r, L=L: lone_index(r, L, 12))
        C("y_idx_extremes_" + s, "index file alone with extreme values: timestamps 0, 0, 1, "
          "2^63, 2^64-2, 2^64-1 (equal timestamps allowed), function_ids 0 and 2^64-1, "
          "thread_id 2^32-1" + (", call_depth 2^32-1" if L == LAYOUT_1 else ""),
          lambda r, L=L: extreme_index(L))
        C("i_idx_placeholder_header_with_footer_" + s, "complete footer but the header was "
          "never rewritten (still the placeholder): the footer is found at the end of the file "
          "(SPEC section 6) and is authoritative; IDX-HDR-015 warns",
          lambda r, L=L: lone_index(r, L, 9, header="placeholder"), warnings=["IDX-HDR-015"],
          why="Errata E-18: a SHOULD; every event is read")
        C("y_det_basic_" + s, "detail file alone, arm64, function call/return events with ARM64 "
          "payloads (stack snapshots of 0, 8, 16, 32 bytes)",
          lambda r, L=L: lone_detail(r, L, 10))
        C("y_det_x86_opaque_" + s, "detail file alone, x86_64: payloads are opaque bytes "
          "(empty, short, and an ARM64-looking payload with an impossible stack_size, which "
          "must not be checked or decoded as ARM64)", lambda r, L=L: x86_detail(r, L))
        C("y_thread_" + s, "thread directory: index.atf + detail.atf, every other call/return "
          "linked both ways, ARM64 payloads", lambda r, L=L: thread(r, L, 14))
        C("y_thread_no_detail_" + s, "thread directory without detail.atf: has_detail_file "
          "clear, every detail_seq the no-detail sentinel",
          lambda r, L=L: thread(r, L, 9, detail=False))
        C("y_session_two_threads_" + s, "session: manifest + thread_0 (with detail) and "
          "thread_1 (without)", lambda r, L=L: session(r, L, [(0, 8, True), (1, 6, False)]))
    C("y_idx_empty_l1", "index file alone with no event (finalized, checksum 0)",
      lambda r: IndexSpec(LAYOUT_1, [], tid=77, flags=0))
    C("y_det_empty_l1", "detail file alone with no event (finalized, checksum 0); an empty "
      "finalized detail header is indistinguishable from a placeholder, the footer is found "
      "at the end", lambda r: DetailSpec(LAYOUT_1, [], tid=77))
    C("y_idx_crc32c_l1", "layout 1 index file with a CRC32-C footer checksum (CRC-002 allows "
      "CRC32-C or CRC32/IEEE)", lambda r: lone_index(r, LAYOUT_1, 10, checksum="crc32c"))
    C("y_idx_crc32_ieee_l1", "layout 1 index file with a CRC32/IEEE (zlib) footer checksum",
      lambda r: lone_index(r, LAYOUT_1, 10, checksum="crc32"))
    C("y_det_crc32_ieee_l1", "layout 1 detail file with a CRC32/IEEE footer checksum",
      lambda r: lone_detail(r, LAYOUT_1, 8, checksum="crc32"))
    C("y_det_crc32c_l1", "layout 1 detail file with a CRC32-C footer checksum",
      lambda r: lone_detail(r, LAYOUT_1, 8, checksum="crc32c"))
    C("y_idx_deep_calls_l1", "layout 1 index file: 40 nested calls then their returns "
      "(call_depth 0..39)", lambda r: deep_index(r))
    C("y_det_stack_256_l2", "arm64 detail events with the largest stack snapshot (256 bytes) "
      "and sizes 0, 1, 255", lambda r: lone_detail(r, LAYOUT_2, 8, stack_sizes=(256, 0, 255, 1)))
    C("y_det_flags_and_types_l1", "detail events with every flags value (0, 1, 0x8000, 0xFFFF): "
      "flags are not constrained", lambda r: detail_flags(r))
    C("y_thread_detail_every_event_l2", "every call and return has a detail event",
      lambda r: thread(r, LAYOUT_2, 12, every=1))
    C("y_thread_empty_detail_l1", "thread with an empty (finalized) detail file and no link",
      lambda r: thread_empty_detail(r))
    C("y_thread_x86_l2", "x86_64 thread (Windows, QPC clock): opaque detail payloads",
      lambda r: thread(r, LAYOUT_2, 12, arch=ARCH_X86_64, os=OS_WINDOWS, clock=CLOCK_QPC))
    C("y_thread_crc32_ieee_l1", "layout 1 thread, both files with CRC32/IEEE checksums",
      lambda r: thread(r, LAYOUT_1, 12, checksum="crc32"))
    C("y_session_l1_ios", "layout 1 arm64 iOS session (mach_continuous clock, checksum 0): "
      "3 threads, 2 with detail lanes",
      lambda r: session(r, LAYOUT_1, [(0, 10, True), (1, 7, False), (2, 9, True)], os=OS_IOS))
    C("y_session_l2_many_threads", "layout 2 Linux session: 5 threads listed out of order "
      "(ids 7, 0, 12, 3, 1; the dump orders them numerically), one of them without events",
      lambda r: session(r, LAYOUT_2, [(0, 8, True), (1, 6, False), (3, 9, True), (7, 0, False),
                                       (12, 7, True)], order=[7, 0, 12, 3, 1]))
    C("y_session_symbols_hex_l2", "manifest with modules and symbols, function_id and "
      "base_address as 0x strings (function_ids up to 2^64-1), names needing JSON escapes and "
      "non-ASCII; some events have no symbol", lambda r: symbols_session(r, LAYOUT_2, "hex"))
    C("y_session_symbols_decimal_l1", "manifest u64 values as decimal strings and JSON "
      "integers (thread ids, times, function_ids)",
      lambda r: symbols_session(r, LAYOUT_1, "decimal"))
    C("y_session_x86_windows_l2", "x86_64 Windows session (QPC clock), opaque payloads",
      lambda r: session(r, LAYOUT_2, [(0, 9, True), (1, 8, True)], arch=ARCH_X86_64,
                        os=OS_WINDOWS))
    C("y_session_unknown_keys_l2", "manifest with keys this spec does not define (at the root "
      "and in thread objects): readers ignore them", lambda r: unknown_keys_session(r))
    C("y_session_timing_anchors_l1", "manifest with timing_anchors (negative media_time_value) "
      "and events_dropped 0", lambda r: anchors_session(r))
    C("y_session_big_thread_ids_l2", "thread ids 2^32+5 and 2^64-1 (the latter written as a "
      "string in the manifest; directory thread_18446744073709551615)",
      lambda r: big_ids_session(r))
    C("y_session_no_events_l2", "session whose threads hold no event: time range 0 is right",
      lambda r: session(r, LAYOUT_2, [(0, 0, True), (1, 0, False)], times=False))
    C("y_session_crc_mixed_l1", "layout 1 session whose threads use checksum 0, CRC32-C and "
      "CRC32/IEEE", lambda r: crc_mixed_session(r))
    C("y_session_equal_timestamps_l2", "every event of the session at the same timestamp",
      lambda r: session(r, LAYOUT_2, [(0, 8, True), (1, 8, False)], steps=(0,)))
    C("y_session_pid_dir_l1", "ADA tracer layout ada_traces/session_<date>_<time>/pid_<pid>/: "
      "the pid_<pid> directory is the session",
      lambda r: session(r, LAYOUT_1, [(0, 8, True), (1, 5, False)], os=OS_ANDROID,
                        root="ada_traces/session_20250101_120000/pid_4242/"))
    C("y_session_x_dir_l2", "the session_<date>_<time> directory given, holding one pid_<pid> "
      "session: validators and dumpers open that session",
      lambda r: session(r, LAYOUT_2, [(0, 6, True), (2, 6, True)], os=OS_MACOS,
                        root="session_20250102_080000/pid_77/"),
      target="session_20250102_080000")
    C("y_session_thread_target_l2", "a thread directory of a session given: its events with "
      "the session manifest's symbols", lambda r: symbols_session(r, LAYOUT_2, "hex"),
      target="thread_1")


def extreme_index(layout):
    tid = U32_MAX
    rows = [(0, 0, EVENT_CALL), (0, U64_MAX, EVENT_CALL), (1, 1 << 63, EVENT_EXCEPTION),
            (1 << 63, U32_MAX, EVENT_RETURN), (U64_MAX - 1, 1 << 32, EVENT_RETURN),
            (U64_MAX, U64_MAX - 1, EVENT_CALL)]
    depths = [0, 1, 1, U32_MAX, 7, U32_MAX - 1]
    events = []
    for (ts, fid, kind), depth in zip(rows, depths):
        e = IndexEvent(ts, fid, kind)
        if layout == LAYOUT_1:
            e.thread_id, e.call_depth = tid, depth
        events.append(e)
    return IndexSpec(layout, events, tid=tid, flags=0)


def deep_index(r):
    events, ts, tid = [], 5000, 31337
    fids = [(1 << 32) | r.randrange(1, 1 << 20) for _ in range(40)]
    for d, fid in enumerate(fids):
        ts += r.randrange(1, 50)
        events.append(IndexEvent(ts, fid, EVENT_CALL, None, tid, d))
    for d in range(39, -1, -1):
        ts += r.randrange(1, 50)
        events.append(IndexEvent(ts, fids[d], EVENT_RETURN, None, tid, d))
    return IndexSpec(LAYOUT_1, events, tid=tid, flags=0)


def x86_detail(r, layout):
    spec = lone_detail(r, layout, 10, arch=ARCH_X86_64, os=OS_WINDOWS)
    bogus = Arm64Payload(7, [1] * 8, 2, 3, 4, stack=bytes(10), stack_size=300).encode(strict=False)
    spec.events[0].payload = b""
    spec.events[1].payload = bogus
    spec.events[2].payload = bytes(99)
    return spec


def detail_flags(r):
    spec = lone_detail(r, LAYOUT_1, 10)
    for d, fl in zip(spec.events, (0, 1, 0x8000, 0xFFFF, 0x7FFF)):
        d.flags = fl
    return spec


def thread_empty_detail(r):
    t = thread(r, LAYOUT_1, 8, detail=False)
    t.detail = DetailSpec(LAYOUT_1, [], tid=t.index.tid)
    t.index.flags = 1
    return t


TRICKY_NAMES = ["main", "quote\"inside", "back\\slash", "caf\u00e9_\u00b5s", "tab\there",
                "\u65e5\u672c\u8a9e", "emoji_\U0001F600", "ctl\u0001x",
                "std::vector<int>::push_back(int const&)"]


def symbols_session(r, layout, form):
    s = session(r, layout, [(0, 10, True), (1, 8, False), (2, 8, True)], os=OS_MACOS)
    # Big function ids on a few events, so that hex strings are needed.
    big = [U64_MAX, 1 << 63, U64_MAX - 1]
    t0 = s.threads[0].index.events
    for e, fid in zip([e for e in t0 if e.detail_seq is None], big):
        e.function_id = fid
    fids = sorted({e.function_id for t in s.threads for e in t.index.events})
    named = [f for i, f in enumerate(fids) if i % 3 != 2]          # some have no symbol
    syms, smap = [], {}
    for i, fid in enumerate(named):
        name = TRICKY_NAMES[i % len(TRICKY_NAMES)] + "_%d" % i
        smap[fid] = name
        if form == "hex":
            v = "0x%x" % fid if (i % 2 == 0 or fid > (1 << 63) - 1) else fid
        else:
            v = str(fid) if (i % 2 == 0 or fid > (1 << 63) - 1) else fid
        syms.append({"function_id": v, "module_id": fid >> 32, "symbol_index": fid & U32_MAX,
                     "name": name})
    s.manifest["format_version"] = "2.1"
    s.manifest["modules"] = [
        {"module_id": m, "path": "/usr/lib/libm%d.dylib" % m,
         "base_address": ("0x%x" if form == "hex" else "%d") % (0x100000000 + m * 0x1000000),
         "size": 0x40000, "uuid": "A7F0%04X-0000-4000-8000-00000000000%d" % (m, m)}
        for m in range(3)]
    s.manifest["symbols"] = syms
    s.symbols = smap
    if form == "decimal":
        s.manifest["time_start_ns"] = str(s.manifest["time_start_ns"])
        s.manifest["threads"][1]["id"] = "1"
    return s


def unknown_keys_session(r):
    s = session(r, LAYOUT_2, [(0, 8, True), (1, 6, False)])
    s.manifest["recorder"] = {"name": "example", "version": [1, 2, 3]}
    s.manifest["x_vendor_flags"] = None
    s.manifest["threads"][0]["name"] = "main"
    s.manifest["threads"][1]["priority"] = 47
    return s


def anchors_session(r):
    s = session(r, LAYOUT_1, [(0, 8, True), (1, 6, True)], os=OS_IOS)
    t0 = s.manifest["time_start_ns"]
    s.manifest["timing_anchors"] = [
        {"host_time_ns": t0, "media_time_value": -1001, "media_time_scale": 30000},
        {"host_time_ns": "0x%x" % (t0 + 1000), "media_time_value": 0, "media_time_scale": 1}]
    s.manifest["events_dropped"] = 0
    return s


def big_ids_session(r):
    s = session(r, LAYOUT_2, [((1 << 32) + 5, 7, True), (U64_MAX, 6, False)])
    s.manifest["threads"][1]["id"] = str(U64_MAX)
    return s


def crc_mixed_session(r):
    s = session(r, LAYOUT_1, [(0, 8, True), (1, 8, True), (2, 6, False)])
    for t, ck in zip(s.threads, ("none", "crc32c", "crc32")):
        t.index.checksum = ck
        if t.detail is not None:
            t.detail.checksum = ck
    return s


# ---- n_: invalid (rejected, with exactly these error clauses) ------------------

def mutate(build, fn):
    """build(rng) then fn(content, rng); returns a builder."""
    def b(r):
        c = build(r)
        out = fn(c, r)
        return out if isinstance(out, type(c)) else c
    return b


def lone_builders(L):
    """idx(n, **kw) and det(n, **kw): the builders of a lone index (detail)
    file of layout L with n events."""
    def idx(n=8, **kw):
        return lambda r, L=L: lone_index(r, L, n, **kw)

    def det(n=10, **kw):
        return lambda r, L=L: lone_detail(r, L, n, **kw)
    return idx, det


def invalid_file_cases():
    for L in (LAYOUT_1, LAYOUT_2):
        s = lsuf(L)
        idx, det = lone_builders(L)

        # Index header.
        C("n_idx_hdr_001_bad_magic_" + s, "index.atf whose magic is \"XTI2\"",
          idx(patches=[("hdr", 0, b"XTI2")]), errors=["IDX-HDR-001"])
        C("n_idx_hdr_002_big_endian_" + s, "index header endian byte 2 (big-endian is not "
          "defined)", idx(patches=[("hdr", 4, b"\x02")]), errors=["IDX-HDR-002"])
        C("n_idx_hdr_009_event_size_" + s, "index header event_size %d, not 32"
          % (24 if L == LAYOUT_1 else 64), idx(hdr={"event_size": 24 if L == LAYOUT_1 else 64}),
          errors=["IDX-HDR-009"])
        C("n_idx_hdr_010_events_offset_low_" + s, "index header events_offset 32, inside the "
          "header", idx(hdr={"events_offset": 32}), errors=["IDX-HDR-010"])
        C("n_idx_hdr_012_count_" + s, "finalized index header event_count one more than the "
          "footer's (footer_offset then disagrees with events_offset + event_count * 32 too)",
          mutate(idx(9), lambda c, r: c.hdr.update(event_count=10)),
          errors=["IDX-HDR-012", "IDX-HDR-013"])
        C("n_idx_hdr_013_footer_offset_" + s, "finalized index header footer_offset 32 bytes "
          "short (pointing at the last event): no footer where the header says, but the footer "
          "at the end of the file lines up with the events and is used (SPEC 6): all 9 events "
          "are read",
          mutate(idx(9), lambda c, r: c.hdr.update(footer_offset=64 + 8 * 32)),
          errors=["IDX-HDR-013"])
        C("n_rec_004_footer_offset_no_footer_" + s, "finalized index header footer_offset 32 "
          "bytes short and no footer anywhere: damage; the events before footer_offset are "
          "recovered", mutate(idx(9, footer=False), lambda c, r: c.hdr.update(footer_offset=64 + 8 * 32)),
          errors=["IDX-HDR-013", "REC-004"], recovered={"index.atf": 8})
        C("n_idx_hdr_014_time_end_" + s, "finalized index header time_end_ns one more than "
          "the footer's (and the last event's)",
          mutate(idx(9), lambda c, r: c.hdr.update(time_end_ns=c.events[-1].timestamp_ns + 1)),
          errors=["IDX-HDR-014"])
        # Index events.
        C("n_idx_evt_001_kind_0_" + s, "an index event with event_kind 0",
          mutate(idx(10), lambda c, r: setattr(c.events[4], "event_kind", 0)),
          errors=["IDX-EVT-001"])
        C("n_idx_evt_001_kind_4_" + s, "index events with event_kind 4 and 255",
          mutate(idx(10), lambda c, r: [setattr(c.events[2], "event_kind", 4),
                                       setattr(c.events[7], "event_kind", 255)]),
          errors=["IDX-EVT-001"])
        C("n_idx_evt_003_backwards_" + s, "an index timestamp below the previous one",
          mutate(idx(10), backwards_index), errors=["IDX-EVT-003"])
        C("n_idx_evt_005_repeated_link_" + s, "index file alone whose linked detail_seq values "
          "repeat (0, 1, 1, 2): detail events are written in index order",
          lambda r, L=L: index_links(r, L, [0, 1, 1, 2]), errors=["IDX-EVT-005"])
        C("n_idx_evt_005_decreasing_link_" + s, "index file alone whose linked detail_seq "
          "values decrease (0, 2, 1, 3)",
          lambda r, L=L: index_links(r, L, [0, 2, 1, 3]), errors=["IDX-EVT-005"])
        # Index footer.
        C("n_idx_ftr_001_count_too_big_" + s, "footer (and finalized header) event_count 3 more "
          "than the file holds: rejected, never read past the end; footer_offset no longer "
          "equals events_offset + event_count * 32",
          mutate(idx(9), lambda c, r: (c.hdr.update(event_count=12),
                                       c.ftr.update(event_count=12, bytes_written=12 * 32))),
          errors=["IDX-FTR-001", "IDX-HDR-013"])
        C("n_idx_ftr_001_placeholder_" + s, "placeholder header; the footer at the end claims 12 "
          "events where 9 fit (its bytes_written says 9 * 32, so it is found)",
          mutate(idx(9, header="placeholder"), lambda c, r: c.ftr.update(event_count=12)),
          errors=["IDX-FTR-001", "IDX-FTR-002"], warnings=["IDX-HDR-015"])
        C("n_idx_ftr_002_bytes_written_" + s, "footer bytes_written 32 more than event_count * 32",
          mutate(idx(9), lambda c, r: c.ftr.update(bytes_written=10 * 32)),
          errors=["IDX-FTR-002"])
        C("n_idx_ftr_003_times_" + s, "footer and finalized header time_start_ns one below the "
          "first event's timestamp", mutate(idx(9), wrong_index_times),
          errors=["IDX-FTR-003"])
        C("n_idx_ftr_003_placeholder_" + s, "placeholder header, footer time_end_ns not the last "
          "event's", mutate(idx(9, header="placeholder"),
                            lambda c, r: c.ftr.update(time_end_ns=c.events[-1].timestamp_ns + 9)),
          errors=["IDX-FTR-003"], warnings=["IDX-HDR-015"])
        C("n_idx_ftr_005_68_byte_footer_" + s, "the footer of BH-002's C struct: 68 bytes "
          "(reserved[28]); errata E-7: the 4 extra bytes follow the footer",
          idx(9, after=bytes(4)), errors=["IDX-FTR-005"])
        C("n_idx_ftr_005_bytes_after_" + s, "100 bytes after the index footer",
          idx(9, after=bytes(range(100))), errors=["IDX-FTR-005"])
        C("n_idx_ftr_005_gap_" + s, "16 bytes between the last event and the footer (the "
          "finalized header points at the footer, so footer_offset is not events_offset + "
          "event_count * 32 either)", idx(9, tail=b"\xee" * 16),
          errors=["IDX-FTR-005", "IDX-HDR-013"])
        # Detail header.
        C("n_det_hdr_001_bad_magic_" + s, "detail.atf whose magic is \"ATDX\"",
          det(patches=[("hdr", 0, b"ATDX")]), errors=["DET-HDR-001"])
        C("n_det_hdr_002_endian_" + s, "detail header endian byte 0",
          det(patches=[("hdr", 4, b"\x00")]), errors=["DET-HDR-002"])
        C("n_det_hdr_003_version_" + s, "detail header version %d" % (0 if L == 1 else 3),
          det(patches=[("hdr", 5, bytes([0 if L == 1 else 3]))]), errors=["DET-HDR-003"])
        C("n_det_hdr_007_count_" + s, "finalized detail header event_count one more than the "
          "footer's", mutate(det(), lambda c, r: c.hdr.update(event_count=len(c.events) + 1)),
          errors=["DET-HDR-007"])
        C("n_det_hdr_008_index_seq_start_" + s, "finalized detail header index_seq_start not "
          "the first event's index_seq",
          mutate(det(), lambda c, r: c.hdr.update(index_seq_start=c.events[0].index_seq + 1)),
          errors=["DET-HDR-008"])
        # Detail events.
        C("n_det_evt_001_total_length_16_" + s, "a detail event with total_length 16 (below the "
          "24-byte event header) in a finalized file",
          mutate(det(), lambda c, r: c.patches.append((("evt", 3), 0, le(16, 4)))),
          errors=["DET-EVT-001"])
        C("n_det_evt_002_past_section_" + s, "the last detail event's total_length runs 8 bytes "
          "into the footer",
          mutate(det(), lambda c, r: c.patches.append(
              (("evt", len(c.events) - 1), 0, le(c.events[-1].total_length + 8, 4)))),
          errors=["DET-EVT-002"])
        C("n_det_evt_004_backwards_" + s, "a detail timestamp below the previous one",
          mutate(det(), backwards_detail), errors=["DET-EVT-004"])
        C("n_det_evt_005_index_seq_repeats_" + s, "two detail events with the same index_seq",
          mutate(det(), lambda c, r: setattr(c.events[3], "index_seq", c.events[2].index_seq)),
          errors=["DET-EVT-005"])
        # Detail footer.
        C("n_det_ftr_001_count_" + s, "detail footer and finalized header event_count one more "
          "than the events section holds",
          mutate(det(), lambda c, r: (c.hdr.update(event_count=len(c.events) + 1),
                                      c.ftr.update(event_count=len(c.events) + 1))),
          errors=["DET-FTR-001"])
        C("n_det_ftr_002_bytes_length_" + s, "detail footer bytes_length 8 more than the events "
          "section (the finalized header's, which locates the footer, is right, so they "
          "disagree)", mutate(det(), lambda c, r: c.ftr.update(
              bytes_length=sum(e.total_length for e in c.events) + 8)),
          errors=["DET-FTR-002", "DET-HDR-007"])
        C("n_det_ftr_003_times_" + s, "detail footer time_end_ns not the last event's timestamp",
          mutate(det(), lambda c, r: c.ftr.update(time_end_ns=c.events[-1].timestamp + 1)),
          errors=["DET-FTR-003"])
        C("n_det_ftr_005_bytes_after_" + s, "4 bytes after the detail footer",
          det(after=bytes(4)), errors=["DET-FTR-005"])
        # ARM64 payloads.
        C("n_arm_pay_001_short_" + s, "an arm64 function-call detail event whose payload is "
          "%s" % ("99 bytes" if L == 1 else "empty"),
          mutate(det(), lambda c, r, L=L: setattr(
              c.events[2], "payload", c.events[2].payload[:99] if L == 1 else b"")),
          errors=["ARM-PAY-001"])
        C("n_arm_pay_002_stack_size_" + s, "an arm64 payload with stack_size %d (and that many "
          "stack bytes)" % (300 if L == 2 else 257),
          mutate(det(), lambda c, r, L=L: setattr(c.events[1], "payload", Arm64Payload(
              int.from_bytes(c.events[1].payload[:8], "little"),
              [1] * 8, 2, 3, 4, stack=r.randbytes(300 if L == 2 else 257)).encode(strict=False))),
          errors=["ARM-PAY-002"])
        C("n_arm_pay_003_length_" + s, "an arm64 payload whose length is not 100 + stack_size "
          "(stack_size %s)" % ("20, 10 stack bytes" if L == 1 else "16, 48 stack bytes"),
          mutate(det(), lambda c, r, L=L: setattr(c.events[3], "payload", Arm64Payload(
              int.from_bytes(c.events[3].payload[:8], "little"), [5] * 8, 6, 7, 8,
              stack=r.randbytes(10 if L == 1 else 48), stack_size=20 if L == 1 else 16
          ).encode(strict=False))), errors=["ARM-PAY-003"])
        # Checksums.
        crc_clause = "CRC-002" if L == LAYOUT_1 else "CRC-001"
        C("n_crc_index_mismatch_" + s, "index footer checksum that is not the events "
          "section's (one bit off a CRC32-C)",
          mutate(idx(9, checksum="crc32c"), lambda c, r: c.ftr.update(
              checksum=compute_checksum("crc32c", b"".join(e.encode(c.layout)
                                                            for e in c.events)) ^ 1)),
          errors=[crc_clause])
        C("n_crc_detail_mismatch_" + s, "detail footer checksum that is not the events "
          "section's", mutate(det(checksum="crc32c"),
                              lambda c, r: c.ftr.update(checksum=0xDEADBEEF)),
          errors=[crc_clause])
        # Crash recovery errors.
        C("n_rec_004_index_" + s, "finalized index header but the file ends where the footer "
          "should start (the footer is always written before the header is rewritten: "
          "damage, not a crash)", idx(9, footer=False),
          errors=["REC-004", "IDX-HDR-013"])
        C("n_rec_004_detail_" + s, "finalized detail header but no footer after the events",
          det(footer=False), errors=["REC-004", "DET-HDR-007"])
        C("n_rec_005_detail_" + s, "crash-truncated detail file: after the complete events, a "
          "28-byte record with total_length 8 (not a partial event, a torn footer or zero "
          "bytes)", det(header="placeholder", footer=False,
                        tail=le(8, 4) + bytes(range(1, 25))),
          errors=["REC-005"], warnings=["REC-001"])

    C("n_idx_hdr_001_short_file", "index.atf of 40 bytes that is not the start of a valid "
      "header (version 9)",
      lambda r: IndexSpec(LAYOUT_2, [], tid=1,
                          raw=lone_index(r, LAYOUT_2, 3).render()[:5] + b"\x09" +
                          lone_index(r, LAYOUT_2, 3).render()[6:40]),
      errors=["IDX-HDR-001"])
    C("n_idx_hdr_002_endian_0_l1", "index header endian byte 0",
      lambda r: lone_index(r, LAYOUT_1, 5, patches=[("hdr", 4, b"\x00")]), errors=["IDX-HDR-002"])
    C("n_idx_hdr_003_version_0_l2", "index header version 0 (layout 2 bytes otherwise)",
      lambda r: lone_index(r, LAYOUT_2, 5, patches=[("hdr", 5, b"\x00")]), errors=["IDX-HDR-003"])
    C("n_idx_hdr_003_version_3_l1", "index header version 3 (layout 1 bytes otherwise)",
      lambda r: lone_index(r, LAYOUT_1, 5, patches=[("hdr", 5, b"\x03")]), errors=["IDX-HDR-003"])
    C("n_idx_hdr_003_version_255_l2", "index header version 255",
      lambda r: lone_index(r, LAYOUT_2, 5, patches=[("hdr", 5, b"\xff")]), errors=["IDX-HDR-003"])
    C("n_idx_hdr_010_events_offset_past_end_l2", "index header events_offset beyond the end of "
      "the file", lambda r: lone_index(r, LAYOUT_2, 5, hdr={"events_offset": 100000}),
      errors=["IDX-HDR-010"])
    C("n_idx_hdr_014_time_start_l1", "finalized index header time_start_ns 0 while the footer "
      "says the first event's", mutate(lambda r: lone_index(r, LAYOUT_1, 6),
                                        lambda c, r: c.hdr.update(time_start_ns=0)),
      errors=["IDX-HDR-014"])
    C("n_idx_evt_001_kind_u32_l1", "layout 1 event_kind 0x101 (u32 field; 1 in the low byte)",
      mutate(lambda r: lone_index(r, LAYOUT_1, 6),
             lambda c, r: setattr(c.events[1], "event_kind", 0x101)), errors=["IDX-EVT-001"])
    C("n_idx_ftr_003_empty_l1", "empty index file whose footer and header times are not 0",
      lambda r: IndexSpec(LAYOUT_1, [], tid=9, flags=0, hdr={"time_start_ns": 5, "time_end_ns": 5},
                          ftr={"time_start_ns": 5, "time_end_ns": 5}), errors=["IDX-FTR-003"])
    C("n_det_hdr_001_short_file", "detail.atf of 30 bytes that is not the start of a valid "
      "header (endian 0)",
      lambda r: DetailSpec(LAYOUT_1, [], tid=1,
                           raw=lone_detail(r, LAYOUT_1, 3).render()[:4] + b"\x00" +
                           lone_detail(r, LAYOUT_1, 3).render()[5:30]),
      errors=["DET-HDR-001"])
    C("n_det_hdr_006_events_offset_low_l1", "detail header events_offset 40",
      lambda r: lone_detail(r, LAYOUT_1, 6, hdr={"events_offset": 40}), errors=["DET-HDR-006"])
    C("n_det_hdr_006_events_offset_past_end_l2", "detail header events_offset beyond the file",
      lambda r: lone_detail(r, LAYOUT_2, 6, hdr={"events_offset": 1 << 40}),
      errors=["DET-HDR-006"])
    C("n_det_hdr_008_index_seq_end_l2", "finalized detail header index_seq_end beyond the last "
      "event's", mutate(lambda r: lone_detail(r, LAYOUT_2, 8),
                        lambda c, r: c.hdr.update(index_seq_end=c.events[-1].index_seq + 7)),
      errors=["DET-HDR-008"])
    C("n_det_evt_001_total_length_0_l2", "the first detail event with total_length 0",
      mutate(lambda r: lone_detail(r, LAYOUT_2, 6),
             lambda c, r: c.patches.append((("evt", 0), 0, le(0, 4)))), errors=["DET-EVT-001"])
    C("n_det_ftr_003_time_start_l1", "detail footer time_start_ns 0 while the first event is "
      "later", mutate(lambda r: lone_detail(r, LAYOUT_1, 6),
                      lambda c, r: c.ftr.update(time_start_ns=0)), errors=["DET-FTR-003"])
    C("n_det_ftr_005_trailing_event_l2", "a copy of the last event after the detail footer",
      mutate(lambda r: lone_detail(r, LAYOUT_2, 6),
             lambda c, r: setattr(c, "after", c.events[-1].encode(LAYOUT_2))),
      errors=["DET-FTR-005"])
    C("n_crc_index_crc32_ieee_l2", "layout 2 index footer with a CRC32/IEEE checksum: layout 2 "
      "means CRC32-C only", mutate(lambda r: lone_index(r, LAYOUT_2, 9),
                                   lambda c, r: c.ftr.update(checksum=compute_checksum(
                                       "crc32", b"".join(e.encode(2) for e in c.events)))),
      errors=["CRC-001"])
    C("n_crc_detail_crc32_ieee_l2", "layout 2 detail footer with a CRC32/IEEE checksum",
      mutate(lambda r: lone_detail(r, LAYOUT_2, 6),
             lambda c, r: c.ftr.update(checksum=compute_checksum(
                 "crc32", b"".join(e.encode(2) for e in c.events)))), errors=["CRC-001"])
    C("n_rec_005_zero_length_then_data_l1", "crash-truncated detail file: after the complete "
      "events a record with total_length 0 followed by non-zero bytes",
      lambda r: lone_detail(r, LAYOUT_1, 6, header="placeholder", footer=False,
                            tail=bytes(4) + b"\x01" * 40),
      errors=["REC-005"], warnings=["REC-001"])


def backwards_index(c, r):
    e = c.events[5]
    e.timestamp_ns = c.events[4].timestamp_ns - 1
    # Keep the events after it at or above it, so that only one step goes back.


def backwards_detail(c, r):
    c.events[3].timestamp = c.events[2].timestamp - 1


def wrong_index_times(c, r):
    t0 = c.events[0].timestamp_ns - 1
    c.hdr.update(time_start_ns=t0)
    c.ftr.update(time_start_ns=t0)


def index_links(r, layout, links):
    """An index file alone whose linked events carry the given detail_seq values."""
    spec = lone_index(r, layout, 10, flags=1)
    for e in spec.events:
        e.detail_seq = None
    for s, d in zip((1, 3, 5, 7), links):
        spec.events[s].detail_seq = d
    return spec


def th(L, n=12, **kw):
    return lambda r: thread(r, L, n, **kw)


def link_001(t, r):
    """The last detail event is gone; its index event still links to it."""
    t.detail.events.pop()


def link_002(t, r):
    """A detail event's index_seq moved to an unlinked index event between its
    own and the next linked one: the forward link does not come back (LINK-002)
    and the backward link lands on an event without detail (LINK-004)."""
    pairs = linked_pairs(t.index.events)
    s, d = pairs[1]
    s_next = pairs[2][0]
    u = next(i for i in range(s + 1, s_next) if t.index.events[i].detail_seq is None)
    t.detail.events[d].index_seq = u


def link_003(t, r):
    """An extra detail event at the end links to index event n + 5."""
    last = t.detail.events[-1]
    fid = r.getrandbits(64)
    t.detail.events.append(DetailEvent(DETAIL_FUNCTION_RETURN, 0, len(t.index.events) + 5,
                                       last.timestamp, arm64_payload(r, fid, 8),
                                       last.thread_id))


def link_004(t, r):
    """An extra detail event links back to an index event that has no detail."""
    pairs = linked_pairs(t.index.events)
    s, d = pairs[1]
    s_next = pairs[2][0]
    u = next(i for i in range(s + 1, s_next) if t.index.events[i].detail_seq is None)
    ie = t.index.events[u]
    t.detail.events.insert(d + 1, DetailEvent(DETAIL_FUNCTION_CALL, 0, u, ie.timestamp_ns,
                                              arm64_payload(r, ie.function_id, 16),
                                              t.detail.events[d].thread_id))
    for e in t.index.events:
        if e.detail_seq is not None and e.detail_seq > d:
            e.detail_seq += 1


def swap_links(t, r):
    """The first two links cross: index s0 -> d1, s1 -> d0 (timestamps of s0..s1
    made equal, so that only the orders break)."""
    (s0, d0), (s1, d1) = linked_pairs(t.index.events)[:2]
    ev = t.index.events
    for i in range(s0 + 1, s1 + 1):
        ev[i].timestamp_ns = ev[s0].timestamp_ns
    ev[s0].detail_seq, ev[s1].detail_seq = d1, d0
    t.detail.events[d0].index_seq, t.detail.events[d1].index_seq = s1, s0
    refresh_details(r, t)


def other_layout_detail(t, r):
    other = LAYOUT_2 if t.detail.layout == LAYOUT_1 else LAYOUT_1
    for d in t.detail.events:
        d.thread_id = t.index.tid if other == LAYOUT_1 else 0
    t.detail.layout = other
    t.detail.checksum = "crc32c"


def link_008(t, r):
    t.detail.tid = t.index.tid + 1
    for d in t.detail.events:
        if t.detail.layout == LAYOUT_1:
            d.thread_id = t.detail.tid


def arm_005(t, r):
    d = t.detail.events[1]
    d.payload = le(int.from_bytes(d.payload[:8], "little") ^ 0x10, 8) + d.payload[8:]


def invalid_thread_cases():
    for L in (LAYOUT_1, LAYOUT_2):
        s = lsuf(L)
        C("n_link_001_dangling_" + s, "finalized thread: the last linked index event's detail_seq "
          "equals the detail file's event count", mutate(th(L), link_001), errors=["LINK-001"])
        C("n_link_002_no_way_back_" + s, "a detail event's index_seq points at an unlinked index "
          "event: its own index event's link does not come back (LINK-002) and the index "
          "event it names does not link to it (LINK-004)", mutate(th(L), link_002),
          errors=["LINK-002", "LINK-004"])
        C("n_link_003_index_seq_past_end_" + s, "finalized thread: an extra last detail event "
          "links to index event n + 5", mutate(th(L), link_003), errors=["LINK-003"])
        C("n_link_004_orphan_detail_" + s, "an extra detail event links back to an index event "
          "that has no detail link", mutate(th(L), link_004), errors=["LINK-004"])
        C("n_link_006_link_without_detail_" + s, "thread without detail.atf (flag clear) whose "
          "index event links to detail event 0",
          mutate(th(L, 8, detail=False), lambda t, r: setattr(t.index.events[3], "detail_seq", 0)),
          errors=["LINK-006"])
        C("n_link_008_thread_id_" + s, "detail header thread_id differs from the index "
          "header's" + (" (its events' thread_id follow the detail header)" if L == 1 else ""),
          mutate(th(L), link_008), errors=["LINK-008"])
        C("n_arm_pay_005_function_id_" + s, "an arm64 detail event whose payload function_id is "
          "not its index event's", mutate(th(L), arm_005), errors=["ARM-PAY-005"])
        C("n_idx_evt_005_crossed_links_" + s, "thread whose first two links cross (index order "
          "and detail order disagree): linked detail_seq values decrease and detail index_seq "
          "values decrease", mutate(th(L), swap_links), errors=["IDX-EVT-005", "DET-EVT-005"])
        C("n_gen_lay_001_mixed_" + s, "thread whose index.atf is layout %d and detail.atf "
          "layout %d" % (L, 3 - L), mutate(th(L), other_layout_detail), errors=["GEN-LAY-001"])
    C("n_link_005_flag_without_detail_l1", "finalized index header has_detail_file set, no "
      "detail.atf (every detail_seq the sentinel)",
      mutate(th(LAYOUT_1, 8, detail=False), lambda t, r: setattr(t.index, "flags", 1)),
      errors=["LINK-005"])
    C("n_link_005_detail_without_flag_l2", "detail.atf exists but the finalized index header's "
      "has_detail_file flag is clear",
      mutate(th(LAYOUT_2), lambda t, r: setattr(t.index, "flags", 0)),
      errors=["LINK-005"])
    C("n_idx_hdr_001_detail_magic_in_thread_l2", "thread whose index.atf holds a detail file "
      "(magic \"ATD2\"): the index lane is unreadable, the detail file is checked alone",
      mutate(th(LAYOUT_2), lambda t, r: setattr(t.index, "raw", t.detail.render())),
      errors=["IDX-HDR-001"])
    C("n_det_hdr_001_index_magic_in_thread_l1", "thread whose detail.atf holds an index file "
      "(magic \"ATI2\"): links are not checked",
      mutate(th(LAYOUT_1), lambda t, r: setattr(t.detail, "raw", t.index.render())),
      errors=["DET-HDR-001"])
    C("n_rec_004_detail_in_thread_l2", "thread whose finalized detail header has no footer "
      "after the events", mutate(th(LAYOUT_2), lambda t, r: setattr(t.detail, "footer", False)),
      errors=["REC-004", "DET-HDR-007"])


# Sessions -------------------------------------------------------------------------

def base_session(r, L=LAYOUT_2):
    return session(r, L, [(0, 5, False), (1, 6, True)])


def man(fn, L=LAYOUT_2):
    """A builder: base session whose manifest dict fn edits (fn may return raw bytes)."""
    def b(r):
        s = base_session(r, L)
        out = fn(s.manifest, s, r)
        if isinstance(out, bytes):
            s.manifest = out
        return s
    return b


def raw_manifest(m):
    return (json.dumps(m, indent=2) + "\n").encode()


def invalid_session_cases():
    def ses002(name, desc, fn, L=LAYOUT_2):
        C("n_ses_man_002_" + name, desc, man(fn, L), errors=["SES-MAN-002"])

    def ses013(name, desc, fn, L=LAYOUT_2):
        C("n_ses_man_013_" + name, desc, man(fn, L), errors=["SES-MAN-013"])

    ses002("not_json", "manifest.json with a syntax error in the middle (';' where ':' belongs), "
           "the rest of the text complete: not JSON. A text that is only cut short, a proper "
           "prefix, is crash-truncated instead (SPEC 7a.14, r_session_cut_manifest_l2)",
           lambda m, s, r: raw_manifest(m).replace(b'"threads":', b'"threads";', 1))
    ses002("cut_then_garbage", "manifest.json cut in the middle of the text and followed by "
           "bytes that are not NUL (a second write, not a power cut's zeros): not crash-truncated",
           lambda m, s, r: raw_manifest(m)[:-25] + b"\x01\x02")
    ses002("blank_file", "manifest.json holding only white space", lambda m, s, r: b" \n")
    ses002("root_array", "manifest.json is a JSON array", lambda m, s, r: b"[{\"id\": 0}]\n")
    ses002("not_utf8", "manifest.json with a byte that is not UTF-8 inside a string",
           lambda m, s, r: raw_manifest(m).replace(b'"2.0"', b'"2.\xff"'))
    ses002("nan", "manifest.json with NaN (not JSON) as a value",
           lambda m, s, r: raw_manifest(m).replace(b'"time_start_ns"', b'"x_nan": NaN,\n  '
                                                   b'"time_start_ns"'))
    ses002("threads_missing", "manifest without the required threads array (the thread "
           "directories are discovered and checked)", lambda m, s, r: m.pop("threads"))
    ses002("threads_object", "threads is an object, not an array",
           lambda m, s, r: m.update(threads={"0": {"has_detail": False}}))
    ses002("thread_not_object", "a threads entry that is a number",
           lambda m, s, r: m["threads"].append(7))
    ses002("thread_id_missing", "a threads entry without id",
           lambda m, s, r: m["threads"].append({"has_detail": False}))
    ses013("thread_id_negative", "a thread id of -1",
           lambda m, s, r: m["threads"].append({"id": -1, "has_detail": False}))
    ses013("thread_id_float", "a thread id written 2.0 (a JSON number that is not an integer)",
           lambda m, s, r: m["threads"].append({"id": 2.0, "has_detail": False}))
    ses002("thread_id_bool", "a thread id true",
           lambda m, s, r: m["threads"].append({"id": True, "has_detail": False}))
    ses002("thread_id_empty_hex", "a thread id \"0x\" (no digits)",
           lambda m, s, r: m["threads"].append({"id": "0x", "has_detail": False}))
    ses002("thread_id_junk_string", "a thread id \"12abc\"",
           lambda m, s, r: m["threads"].append({"id": "12abc", "has_detail": False}))
    ses002("thread_id_signed_string", "a thread id \"+5\" (a sign is not part of the number "
           "syntax)", lambda m, s, r: m["threads"].append({"id": "+5", "has_detail": False}))
    ses002("thread_id_duplicate", "thread id 0 listed twice",
           lambda m, s, r: m["threads"].append(dict(m["threads"][0])))
    ses002("has_detail_string", "has_detail \"yes\" instead of a boolean",
           lambda m, s, r: m["threads"][0].update(has_detail="yes"))
    ses002("time_string", "time_start_ns \"soon\"", lambda m, s, r: m.update(time_start_ns="soon"))
    ses013("u64_string_overflow", "time_end_ns \"18446744073709551616\" (2^64, does not fit a u64)",
           lambda m, s, r: m.update(time_end_ns=str(1 << 64)), L=LAYOUT_1)
    ses013("clock_type_300", "clock_type 300 (a u8)", lambda m, s, r: m.update(clock_type=300))
    ses002("format_version_number", "format_version 2.0 as a number",
           lambda m, s, r: m.update(format_version=2.0))
    ses002("modules_string", "modules is a string", lambda m, s, r: m.update(modules="none"))
    ses002("module_id_missing", "a module without module_id",
           lambda m, s, r: m.update(modules=[{"path": "/bin/app", "base_address": 4096}]))
    ses002("symbol_name_missing", "a symbol without name",
           lambda m, s, r: m.update(symbols=[{"function_id": 5, "module_id": 0}]))
    ses002("symbol_name_number", "a symbol whose name is a number",
           lambda m, s, r: m.update(symbols=[{"function_id": 5, "name": 5}]))
    ses002("symbol_function_id_negative_string", "a symbol function_id \"-1\"",
           lambda m, s, r: m.update(symbols=[{"function_id": "-1", "name": "f"}]), L=LAYOUT_1)
    ses013("anchor_scale_0", "a timing anchor with media_time_scale 0",
           lambda m, s, r: m.update(timing_anchors=[{"host_time_ns": 1, "media_time_value": 0,
                                                     "media_time_scale": 0}]))
    ses013("events_dropped_negative", "events_dropped -1",
           lambda m, s, r: m.update(events_dropped=-1))

    C("n_ses_man_003_missing_thread_dir_l2", "the manifest lists thread 9, there is no thread_9/",
      man(lambda m, s, r: m["threads"].append({"id": 9, "has_detail": False})),
      errors=["SES-MAN-003"])
    C("n_ses_man_003_detail_only_l1", "thread_5/ holds detail.atf but no index.atf (the detail "
      "file is checked alone)", lambda r: detail_only_session(r), errors=["SES-MAN-003"])
    C("n_ses_man_007_time_start_late_l1", "manifest time_start_ns one after the first event",
      man(lambda m, s, r: m.update(time_start_ns=m["time_start_ns"] + 1), LAYOUT_1),
      errors=["SES-MAN-007"])
    C("n_ses_man_007_time_end_early_l2", "manifest time_end_ns one before the last event",
      man(lambda m, s, r: m.update(time_end_ns=m["time_end_ns"] - 1)), errors=["SES-MAN-007"])
    C("i_ses_man_011_no_thread", "manifest with an empty threads array and no thread directory "
      "(a recording stopped or killed before any thread recorded)",
      lambda r: SessionSpec([], {"format_version": "2.0", "clock_type": 3, "time_start_ns": 0,
                                 "time_end_ns": 0, "threads": []}),
      warnings=["SES-MAN-011"], why="Errata E-21: a SHOULD; nothing is lost")
    C("n_session_thread_backwards_l1", "session of 3 threads, one index file with a timestamp "
      "going backwards", lambda r: session_with(r, LAYOUT_1, 2, lambda t, r: backwards_index(
          t.index, r)), errors=["IDX-EVT-003"])
    C("n_session_detail_crc_l2", "session of 3 threads, one detail file with a wrong checksum",
      lambda r: session_with(r, LAYOUT_2, 1, lambda t, r: t.detail.ftr.update(checksum=1)),
      errors=["CRC-001"])
    C("n_session_dangling_link_l2", "session of 3 threads, one with a dangling forward link",
      lambda r: session_with(r, LAYOUT_2, 0, link_001), errors=["LINK-001"])
    C("n_session_flag_mismatch_l1", "session of 3 threads, one whose index header says "
      "has_detail_file but has no detail.atf (the manifest agrees with the files)",
      lambda r: session_with(r, LAYOUT_1, 2, lambda t, r: setattr(t.index, "flags", 1)),
      errors=["LINK-005"])


def session_with(r, L, k, fn):
    s = session(r, L, [(0, 9, True), (1, 8, True), (2, 7, False)])
    fn(s.threads[k], r)
    return s


def detail_only_session(r):
    s = session(r, LAYOUT_1, [(0, 6, False), (5, 8, True)])
    s.threads[1].index = None
    return s


# ---- r_: recoverable (crash-truncated: accepted with REC-001, exact counts) ------

def crash_thread(t, index_keep, detail_keep, itail=0, dtail=0):
    crash_index(t.index, index_keep, itail)
    if t.detail is not None:
        crash_detail(t.detail, detail_keep, dtail)
    return t


def index_ahead(t, r, itail=11, dtail=30):
    """Crash where the index lane got further than the detail lane: visible index
    events link to lost detail events (LINK-001, recoverable)."""
    m = len(t.index.events) - 2
    linked = [d for s, d in linked_pairs(t.index.events) if s < m]
    return crash_thread(t, m, max(1, len(linked) - 2), itail, dtail)


def detail_ahead(t, r, itail=5, dtail=0):
    """Crash where the detail lane got further: recovered detail events link to lost
    index events (LINK-003, recoverable)."""
    pairs = linked_pairs(t.index.events)
    m = pairs[-2][0] - 1 if len(pairs) > 2 else 1
    return crash_thread(t, m, len(t.detail.events), itail, dtail)


def recoverable_cases():
    for L in (LAYOUT_1, LAYOUT_2):
        s = lsuf(L)
        C("r_idx_crash_boundary_" + s, "crash-truncated index file (placeholder header, no "
          "footer) cut at a record boundary: 9 events recovered",
          lambda r, L=L: crash_index(lone_index(r, L, 12), 9), warnings=["REC-001"])
        C("r_idx_crash_partial_record_" + s, "crash-truncated index file ending in 13 bytes of a "
          "10th event: 9 events recovered, the partial record ignored and reported",
          lambda r, L=L: crash_index(lone_index(r, L, 12), 9, 13),
          warnings=["REC-001", "REC-002"])
        C("r_idx_crash_torn_footer_" + s, "crash during finalize: placeholder header, 9 events, "
          "then the first %d bytes of the footer (a record starting \"2ITA\" holding 9 at byte 8 "
          "is the torn footer, not an event)" % (40 if L == 2 else 32),
          lambda r, L=L: torn_index(r, L, 40 if L == 2 else 32),
          warnings=["REC-001", "REC-003"])
        C("r_idx_crash_header_only_" + s, "crash right after the placeholder header: 0 events",
          lambda r, L=L: crash_index(lone_index(r, L, 4), 0), warnings=["REC-001"])
        C("r_det_crash_boundary_" + s, "crash-truncated detail file cut after a complete event: "
          "6 events recovered", lambda r, L=L: crash_detail(lone_detail(r, L, 10), 6),
          warnings=["REC-001"])
        C("r_det_crash_partial_payload_" + s, "crash-truncated detail file ending inside the "
          "payload of a 7th event", lambda r, L=L: crash_detail(lone_detail(r, L, 10), 6, 54),
          warnings=["REC-001", "REC-002"])
        C("r_det_crash_torn_footer_" + s, "crash during finalize of a detail file: 6 events then "
          "the first 40 bytes of the footer", lambda r, L=L: torn_detail(r, L, 40),
          warnings=["REC-001", "REC-003"])
        C("r_thread_crash_index_ahead_" + s, "crash-truncated thread, both lanes cut mid-record; "
          "the index lane got further: its last linked events point past the recovered detail "
          "events (LINK-001 as a warning; the dump omits their detail)",
          mutate(th(L, 16), index_ahead), warnings=["REC-001", "REC-002", "LINK-001"])
        C("r_thread_crash_detail_ahead_" + s, "crash-truncated thread; the detail lane got "
          "further: recovered detail events link to lost index events (LINK-003 as a warning)",
          mutate(th(L, 16), detail_ahead), warnings=["REC-001", "REC-002", "LINK-003"])
    C("r_idx_crash_partial_first_record_l2", "crash after 7 bytes of the first event: 0 events "
      "recovered, 7 bytes ignored",
      lambda r: crash_index(lone_index(r, LAYOUT_2, 4), 0, 7), warnings=["REC-001", "REC-002"])
    C("r_idx_crash_torn_footer_63_l1", "crash one byte before the end of the footer (63 of 64 "
      "bytes written)", lambda r: torn_index(r, LAYOUT_1, 63), warnings=["REC-001", "REC-003"])
    C("r_idx_crash_zero_tail_l1", "crash-truncated index file ending in 20 zero bytes (a "
      "preallocated tail): ignored, not reported as a partial record",
      lambda r: crash_index(lone_index(r, LAYOUT_1, 8), 6, tail=bytes(20)),
      warnings=["REC-001"])
    C("r_det_crash_partial_header_l1", "crash-truncated detail file ending in 10 bytes of an "
      "event header", lambda r: crash_detail(lone_detail(r, LAYOUT_1, 10), 5, 10),
      warnings=["REC-001", "REC-002"])
    C("r_det_crash_header_only_l2", "detail file holding only its placeholder header",
      lambda r: crash_detail(lone_detail(r, LAYOUT_2, 4), 0), warnings=["REC-001"])
    C("r_det_crash_zero_tail_l2", "crash-truncated detail file ending in 100 zero bytes "
      "(preallocated): the zero bytes end the events and are not reported as a partial record",
      lambda r: crash_detail(lone_detail(r, LAYOUT_2, 10), 5, tail=bytes(100)),
      warnings=["REC-001"])
    C("r_thread_detail_crashed_index_final_l2", "finalized index file, crash-truncated detail "
      "file: index events link past the recovered detail events (LINK-001 as a warning)",
      mutate(th(LAYOUT_2, 14), lambda t, r: crash_detail(t.detail, 2, 30)),
      warnings=["REC-001", "REC-002", "LINK-001"])
    C("r_session_crash_l1", "crash-truncated layout 1 session: every file without a footer, "
      "manifest written at start (time range 0); thread 0 index ahead, thread 1 detail ahead, "
      "thread 2 without detail cut mid-record", lambda r: crash_session(r, LAYOUT_1, False),
      warnings=["REC-001", "REC-002", "LINK-001", "LINK-003", "SES-MAN-006"])
    C("r_session_crash_l2", "crash-truncated layout 2 session with the manifest time range "
      "written from the recovered events", lambda r: crash_session(r, LAYOUT_2, True),
      warnings=["REC-001", "REC-002", "LINK-001", "LINK-003"])
    C("r_session_one_thread_crashed_l1", "session of 3 finalized threads and one "
      "crash-truncated (cut at record boundaries, no partial record)",
      lambda r: one_crashed_session(r), warnings=["REC-001"])
    ada_cases()
    naive_reader_cases()
    C("r_session_empty_manifest_l2", "manifest.json of 0 bytes (a writer killed between creating "
      "and writing it): as if absent, the thread directories are discovered (SPEC 7a.14); one "
      "thread cut mid-record",
      lambda r: empty_manifest_session(r), warnings=["SES-MAN-001", "REC-001", "REC-002"])
    C("r_session_cut_manifest_l2", "manifest.json cut by a power cut while it was being replaced "
      "(temporary file and rename, not synced): the rename and the file size reached the disk, of "
      "its data only the first 512-byte sector, the rest reads as zeros. A proper prefix of a JSON "
      "object then NUL bytes: crash-truncated, read as absent (SPEC 7a.14: SES-MAN-001, REC-001 on "
      "manifest.json), so no symbol names; the thread directories are discovered. Thread 2's "
      "index cut mid-record by the same power cut",
      lambda r: cut_manifest_session(r), warnings=["SES-MAN-001", "REC-001", "REC-002"])



def naive_reader_cases():
    """Counts, offsets and lengths far beyond the file, in every structure:
    a reader that trusts them and reads there faults (the reader kit grades
    a crashed reader as crashed). A safe reader rejects or bounds them."""
    HUGE = 1 << 40
    C("n_idx_ftr_001_count_huge_l2", "footer and finalized header claim 2^36 events (2 TiB) "
      "in a file of 9: a reader that reads them faults",
      mutate(lambda r: lone_index(r, LAYOUT_2, 9), lambda c, r: (
          c.hdr.update(event_count=1 << 36), c.ftr.update(event_count=1 << 36, bytes_written=32 << 36))),
      errors=["IDX-FTR-001", "IDX-HDR-013"])
    C("n_idx_ftr_001_count_huge_l1", "layout 1: footer claims 2^32 - 2 events, the header too",
      mutate(lambda r: lone_index(r, LAYOUT_1, 9), lambda c, r: (
          c.hdr.update(event_count=(1 << 32) - 2), c.ftr.update(event_count=(1 << 32) - 2,
                                                                  bytes_written=((1 << 32) - 2) * 32))),
      errors=["IDX-FTR-001", "IDX-HDR-013"])
    C("n_idx_hdr_010_events_offset_huge_l2", "index header events_offset 2^62",
      lambda r: lone_index(r, LAYOUT_2, 5, hdr={"events_offset": 1 << 62}), errors=["IDX-HDR-010"])
    C("n_det_hdr_006_events_offset_huge_l2", "detail header events_offset 2^63",
      lambda r: lone_detail(r, LAYOUT_2, 6, hdr={"events_offset": 1 << 63}), errors=["DET-HDR-006"])
    C("n_det_evt_002_total_length_huge_l2", "a detail event whose total_length is 0xFFFFFFF0 "
      "(4 GiB) in a file of a few hundred bytes",
      mutate(lambda r: lone_detail(r, LAYOUT_2, 10), lambda c, r: c.patches.append(
          (("evt", 4), 0, le(0xFFFFFFF0, 4)))), errors=["DET-EVT-002"])
    C("n_det_ftr_001_count_huge_l2", "detail footer and finalized header claim 2^40 events",
      mutate(lambda r: lone_detail(r, LAYOUT_2, 10), lambda c, r: (
          c.hdr.update(event_count=HUGE), c.ftr.update(event_count=HUGE))), errors=["DET-FTR-001"])


def ada_index(spec):
    """The ADA tracer's C writer's placeholder (errata E-16): footer_offset =
    events_offset = 64, count, times and flags 0."""
    spec.header = "placeholder"
    spec.flags = 0
    spec.hdr["footer_offset"] = spec.eoff
    return spec


def ada_cases():
    """The states a crash of the ADA tracer's C writer leaves (ATF-NOTES,
    issue 10): its placeholder header, 4 KiB stdio buffering (empty files,
    files cut inside the header), finalize order footer / flush / header."""
    for L in (LAYOUT_1, LAYOUT_2):
        s = lsuf(L)
        C("r_idx_ada_crash_" + s, "the ADA writer's placeholder header (footer_offset 64), 9 "
          "events and 13 bytes of a 10th, no footer: crash-truncated, 9 events recovered",
          lambda r, L=L: ada_index(crash_index(lone_index(r, L, 12), 9, 13)),
          warnings=["REC-001", "REC-002"])
        C("r_idx_ada_torn_footer_" + s, "the ADA writer killed while writing its footer: "
          "placeholder header (footer_offset 64), 9 events, 40 bytes of the footer",
          lambda r, L=L: ada_index(torn_index(r, L, 40)), warnings=["REC-001", "REC-003"])
        C("i_idx_ada_header_not_rewritten_" + s, "the ADA writer killed after writing its "
          "footer, before rewriting the header: every event is there, the header is still the "
          "placeholder (footer_offset 64)",
          lambda r, L=L: ada_index(lone_index(r, L, 12, flags=0)), warnings=["IDX-HDR-015"],
          why="Errata E-18: a SHOULD; every event is read")
        C("r_thread_ada_crash_" + s, "a thread the ADA writer left when killed: both lanes "
          "with their placeholder headers (has_detail_file clear: not LINK-005), both cut "
          "mid-record", mutate(th(L, 16), lambda t, r: (ada_index(crash_index(t.index, 11, 9)),
                                                         crash_detail(t.detail, 4, 30))),
          warnings=["REC-001", "REC-002", "LINK-001"])
        C("i_thread_ada_detail_not_rewritten_" + s, "the ADA writer killed between the detail "
          "lane's footer and its header rewrite (the index lane finalized first)",
          mutate(th(L, 10), lambda t, r: setattr(t.detail, "header", "placeholder")),
          warnings=["DET-HDR-009"], why="Errata E-18: a SHOULD; every event is read")
    C("y_idx_ada_empty_l1", "an empty index file finalized by the ADA writer: its final header "
      "(footer_offset 64, count 0, times 0, flags 0) equals its placeholder; the footer is there",
      lambda r: IndexSpec(LAYOUT_1, [], tid=4, flags=0))
    C("r_idx_crash_empty_file", "index.atf of 0 bytes: a writer killed before its first "
      "flush (4 KiB stdio buffer): crash-truncated, 0 events",
      lambda r: IndexSpec(LAYOUT_2, [], tid=1, raw=b""), warnings=["REC-001"])
    C("r_idx_crash_inside_header_l2", "index.atf of 40 bytes, the start of a valid header: "
      "crash-truncated, 0 events",
      lambda r: IndexSpec(LAYOUT_2, [], tid=1, raw=lone_index(r, LAYOUT_2, 3).render()[:40]),
      warnings=["REC-001"])
    C("r_det_crash_inside_header_l1", "detail.atf of 30 bytes, the start of a valid header",
      lambda r: DetailSpec(LAYOUT_1, [], tid=1, raw=lone_detail(r, LAYOUT_1, 3).render()[:30]),
      warnings=["REC-001"])
    C("r_thread_ada_empty_index_l1", "a thread whose index.atf is 0 bytes (never flushed) "
      "and whose detail.atf holds 3 complete events: the detail events are read, their links "
      "into the empty index are the recoverable kind",
      mutate(th(LAYOUT_1, 10), lambda t, r: (setattr(t.index, "raw", b""), setattr(t.index, "events", []),
                                             crash_detail(t.detail, 3))),
      warnings=["REC-001", "LINK-003"])
    C("r_session_ada_crash_l1", "a session the ADA writer left when the process was killed: "
      "no manifest.json (written only at stop), thread 1 cut mid-record, thread 2 killed "
      "before its first flush (empty index.atf), thread 3 inside its header",
      lambda r: ada_crash_session(r), warnings=["REC-001", "REC-002", "SES-MAN-001", "LINK-001"])


def empty_manifest_session(r):
    t1, t2 = thread(r, LAYOUT_2, 8, id=1, detail=False), thread(r, LAYOUT_2, 8, id=2, detail=False)
    crash_index(t2.index, 5, 9)
    return SessionSpec([t1, t2], b"")


def cut_manifest_session(r):
    threads = [thread(r, LAYOUT_2, 12, id=1), thread(r, LAYOUT_2, 9, id=2, detail=False)]
    crash_index(threads[1].index, 6, 11)
    fids = sorted({e.function_id for t in threads for e in t.index.events})
    symbols = [{"function_id": f, "module_id": f >> 32, "symbol_index": i, "name": "fn_%d_caf\u00e9" % i}
               for i, f in enumerate(fids)]
    raw = (json.dumps(manifest_for(threads, symbols=symbols), indent=2, ensure_ascii=False)
           + "\n").encode("utf-8")
    assert len(raw) > 1024
    return SessionSpec(threads, raw[:512] + bytes(len(raw) - 512))


def ada_crash_session(r):
    t1, t2, t3 = (thread(r, LAYOUT_1, 14, id=1), thread(r, LAYOUT_1, 6, id=2, detail=False),
                  thread(r, LAYOUT_1, 6, id=3, detail=False))
    ada_index(crash_index(t1.index, 10, 7))
    crash_detail(t1.detail, 3, 11)
    t3.index.raw = t3.index.render()[:21]
    for t in (t2, t3):
        t.index.events = []
    t2.index.raw = b""
    return SessionSpec([t1, t2, t3], None)


def torn_index(r, L, k):
    spec = crash_index(lone_index(r, L, 12), 9)
    spec.tail = spec.torn_footer(k)
    return spec


def torn_detail(r, L, k):
    spec = crash_detail(lone_detail(r, L, 10), 6)
    spec.tail = spec.torn_footer(k)
    return spec


def crash_session(r, L, times):
    threads = [thread(r, L, 16, id=0), thread(r, L, 16, id=1), thread(r, L, 9, id=2, detail=False)]
    index_ahead(threads[0], r)
    detail_ahead(threads[1], r)
    crash_index(threads[2].index, 6, 17)
    return SessionSpec(threads, manifest_for(threads, times=times))


def one_crashed_session(r):
    s = session(r, LAYOUT_1, [(0, 9, True), (1, 10, True), (2, 8, False), (3, 7, True)],
                os=OS_ANDROID)
    t = s.threads[1]
    m = linked_pairs(t.index.events)[-1][0] + 1
    crash_thread(t, m, len(t.detail.events))
    s.manifest = manifest_for(s.threads, clock=s.manifest["clock_type"])
    return s


# ---- i_: implementation-defined ------------------------------------------------

WHY_SHOULD = ("SPEC.md makes this a SHOULD (warning): the file can be read, but a value is "
              "outside what the spec defines. This validator accepts it with a warning and "
              "--strict rejects it; a reader may accept it (ignoring the value) or reject it.")
WHY_RESERVED = ("Reserved bytes SHOULD be 0 (warning): readers ignore them, so the file reads "
                "the same; this validator warns so that writers fix them, --strict rejects.")
WHY_MANIFEST = ("A manifest SHOULD (warning) rule: the files are complete and readable, the "
                "manifest is only inaccurate. Accepted with a warning, --strict rejects.")


def impl_cases():
    for L in (LAYOUT_1, LAYOUT_2):
        s = lsuf(L)
        idx, det = lone_builders(L)

        C("i_idx_hdr_004_arch_" + s, "index header arch %d" % (0 if L == 1 else 3),
          idx(hdr={"arch": 0 if L == 1 else 3}), warnings=["IDX-HDR-004"], why=WHY_SHOULD)
        C("i_idx_hdr_005_os_" + s, "index header os %d" % (0 if L == 1 else 6),
          idx(hdr={"os": 0 if L == 1 else 6}), warnings=["IDX-HDR-005"], why=WHY_SHOULD)
        C("i_idx_hdr_006_clock_" + s, "index header clock_type %d" % (4 if L == 1 else 0),
          idx(hdr={"clock_type": 4 if L == 1 else 0}), warnings=["IDX-HDR-006"], why=WHY_SHOULD)
        C("i_idx_hdr_007_flags_" + s, "index header reserved flag bit %s set"
          % ("1" if L == 1 else "31"), idx(flags=2 if L == 1 else 0x80000000),
          warnings=["IDX-HDR-007"], why=WHY_RESERVED)
        C("i_idx_hdr_008_reserved_" + s, "index header reserved byte %d non-zero"
          % (22 if L == 1 else 18), idx(patches=[("hdr", 22 if L == 1 else 18, b"\x5a")]),
          warnings=["IDX-HDR-008"], why=WHY_RESERVED)
        C("i_idx_hdr_011_events_offset_128_" + s, "index events_offset 128: 64 zero bytes "
          "between header and events", idx(eoff=128), warnings=["IDX-HDR-011"],
          why="events_offset SHOULD be 64 (warning); a reader that honours events_offset reads "
              "the file, one that assumes 64 does not. Accepted with a warning.")
        C("i_idx_ftr_004_reserved_" + s, "index footer reserved byte 50 non-zero",
          idx(patches=[("ftr", 50, b"\x01")]), warnings=["IDX-FTR-004"], why=WHY_RESERVED)
        C("i_det_ftr_004_reserved_" + s, "detail footer reserved byte 63 non-zero",
          det(patches=[("ftr", 63, b"\x80")]), warnings=["DET-FTR-004"], why=WHY_RESERVED)
        C("i_arm_pay_004_reserved_" + s, "an ARM64 payload whose reserved u16 is 0xBEEF (it is "
          "still decoded in the dump)",
          mutate(det(), lambda c, r: setattr(c.events[2], "payload", arm64_payload(
              r, int.from_bytes(c.events[2].payload[:8], "little"), 16, reserved=0xBEEF))),
          warnings=["ARM-PAY-004"], why=WHY_RESERVED)
        C("i_det_evt_003_event_type_" + s, "thread whose detail lane holds an event of type %d "
          "(neither function call 3 nor return 4): readers skip it by total_length; its "
          "payload is not an ARM64 payload" % (7 if L == 1 else 0),
          mutate(th(L), lambda t, r, L=L: setattr(t.detail.events[1], "event_type",
                                                  7 if L == 1 else 0)),
          warnings=["DET-EVT-003"],
          why="Errata E-10: other event types are allowed but discouraged (warning); readers "
              "MUST skip them by total_length. Accepted with a warning, --strict rejects.")
        C("i_link_007_timestamp_" + s, "the last detail event's timestamp 5 ns after its index "
          "event's", mutate(th(L), lambda t, r: setattr(
              t.detail.events[-1], "timestamp", t.detail.events[-1].timestamp + 5)),
          warnings=["LINK-007"],
          why="Errata E-14: detail and index timestamps SHOULD be equal (warning): the sources "
              "never say so, and a writer may stamp the detail event separately.")
        C("i_ses_man_001_no_manifest_" + s, "session without manifest.json: the thread_K "
          "directories are discovered", mutate(
              lambda r, L=L: session(r, L, [(0, 7, True), (2, 6, False)]),
              lambda c, r: setattr(c, "manifest", None)),
          warnings=["SES-MAN-001"],
          why="SES-MAN-001 is a SHOULD: without a manifest readers discover thread_<id> "
              "directories (no symbols, no time range). Accepted with a warning.")
        C("i_ses_man_004_unlisted_thread_" + s, "thread_4/ exists but the manifest does not list "
          "it: it is still validated and dumped", mutate(
              lambda r, L=L: session(r, L, [(0, 7, True), (4, 6, True)]),
              lambda c, r: c.manifest["threads"].pop()),
          warnings=["SES-MAN-004"], why=WHY_MANIFEST)
    C("i_idx_hdr_008_reserved_17_l1", "layout 1 index header reserved byte 17 non-zero",
      lambda r: lone_index(r, LAYOUT_1, 6, patches=[("hdr", 17, b"\x01")]),
      warnings=["IDX-HDR-008"], why=WHY_RESERVED)
    C("i_idx_evt_002_reserved_l2", "a layout 2 index event whose reserved byte 27 is non-zero",
      lambda r: lone_index(r, LAYOUT_2, 6, patches=[(("evt", 2), 27, b"\x01")]),
      warnings=["IDX-EVT-002"], why=WHY_RESERVED)
    C("i_idx_evt_004_thread_id_l1", "a layout 1 index event whose thread_id is not the header's",
      mutate(lambda r: lone_index(r, LAYOUT_1, 8),
             lambda c, r: setattr(c.events[3], "thread_id", c.tid + 1)),
      warnings=["IDX-EVT-004"],
      why="IDX-EVT-004 is a SHOULD: the per-event thread_id of layout 1 is redundant with the "
          "header's; a mismatch loses nothing a reader needs. Accepted with a warning.")
    C("i_det_evt_006_thread_id_l1", "a layout 1 detail event whose thread_id is not the header's",
      mutate(lambda r: lone_detail(r, LAYOUT_1, 8),
             lambda c, r: setattr(c.events[2], "thread_id", c.tid + 1)),
      warnings=["DET-EVT-006"],
      why="DET-EVT-006 is a SHOULD, as IDX-EVT-004 for the index lane.")
    C("i_det_hdr_004_arch_0_l1", "detail header arch 0: function events are not decoded as "
      "ARM64 (their payloads are opaque bytes in the dump)",
      lambda r: lone_detail(r, LAYOUT_1, 8, hdr={"arch": 0}), warnings=["DET-HDR-004"],
      why=WHY_SHOULD + " The ARM64 payload rules apply only where the header says arm64 (2).")
    C("i_det_hdr_004_os_7_l2", "detail header os 7",
      lambda r: lone_detail(r, LAYOUT_2, 8, hdr={"os": 7}), warnings=["DET-HDR-004"],
      why=WHY_SHOULD)
    C("i_det_hdr_005_flags_l1", "detail header flags 1 (reserved)",
      lambda r: lone_detail(r, LAYOUT_1, 8, hdr={"flags": 1}), warnings=["DET-HDR-005"],
      why=WHY_RESERVED)
    C("i_det_hdr_005_reserved_16_l2", "detail header reserved byte 16 non-zero",
      lambda r: lone_detail(r, LAYOUT_2, 8, patches=[("hdr", 16, b"\x01")]),
      warnings=["DET-HDR-005"], why=WHY_RESERVED)
    C("i_det_hdr_005_reserved_61_l1", "detail header reserved byte 61 (errata E-8: the 4 bytes "
      "BH-003's struct lacks) non-zero",
      lambda r: lone_detail(r, LAYOUT_1, 8, patches=[("hdr", 61, b"\x01")]),
      warnings=["DET-HDR-005"], why=WHY_RESERVED)
    C("i_thread_arch_3_l2", "thread whose index and detail headers say arch 3: function "
      "events with ARM64-shaped payloads are opaque bytes",
      lambda r: thread(r, LAYOUT_2, 10, arch=3), warnings=["IDX-HDR-004", "DET-HDR-004"],
      why=WHY_SHOULD + " Only arch 2 makes payloads ARM64 payloads.")
    C("i_gen_lay_002_mixed_layouts", "session whose thread 0 is layout 1 and thread 1 layout 2",
      lambda r: mixed_layout_session(r), warnings=["GEN-LAY-002"],
      why="Errata E-1: readers MUST accept both layouts, so each thread reads; a session that "
          "mixes them SHOULD NOT exist (warning), --strict rejects.")
    C("i_ses_man_005_has_detail_true_l1", "the manifest says has_detail for a thread without "
      "detail.atf (what the ADA tracer writes for every thread)",
      man(lambda m, s, r: m["threads"][0].update(has_detail=True), LAYOUT_1),
      warnings=["SES-MAN-005"], why="Errata E-12: " + WHY_MANIFEST)
    C("i_ses_man_005_has_detail_false_l2", "the manifest says no detail for a thread that has "
      "detail.atf", man(lambda m, s, r: m["threads"][1].update(has_detail=False)),
      warnings=["SES-MAN-005"], why=WHY_MANIFEST)
    C("i_ses_man_006_times_unset_l2", "manifest time range 0 (unset) for a session with events",
      man(lambda m, s, r: m.update(time_start_ns=0, time_end_ns=0)),
      warnings=["SES-MAN-006"], why="Errata E-12: " + WHY_MANIFEST)
    C("i_ses_man_008_clock_l1", "manifest clock_type 1 (mach_continuous) for index headers that "
      "say 3 (boottime)", man(lambda m, s, r: m.update(clock_type=1), LAYOUT_1),
      warnings=["SES-MAN-008"], why="Errata E-12: " + WHY_MANIFEST)
    C("i_ses_man_008_clock_l2", "manifest clock_type 2 (QPC) for index headers that say 3 "
      "(boottime)", man(lambda m, s, r: m.update(clock_type=2)),
      warnings=["SES-MAN-008"], why=WHY_MANIFEST)
    C("i_ses_man_009_format_version_l1", "manifest format_version \"2\"",
      man(lambda m, s, r: m.update(format_version="2"), LAYOUT_1), warnings=["SES-MAN-009"],
      why="As i_ses_man_009_format_version_l2.")
    C("i_ses_man_009_format_version_l2", "manifest format_version \"3.0\"",
      man(lambda m, s, r: m.update(format_version="3.0")), warnings=["SES-MAN-009"],
      why="SES-MAN-009 is a SHOULD: the files say their own layout, the version string is "
          "informative. Accepted with a warning.")
    C("i_ses_man_010_events_dropped_l1", "manifest events_dropped 12: a lossy recording",
      man(lambda m, s, r: m.update(events_dropped=12), LAYOUT_1), warnings=["SES-MAN-010"],
      why="SES-MAN-010: the files are valid but the recording lost events; accepted with a "
          "warning so that a lossy recording is never silent.")
    C("i_ses_man_010_events_dropped_hex_l2", "manifest events_dropped \"0x10\" (a u64 as a "
      "hexadecimal string)", man(lambda m, s, r: m.update(events_dropped="0x10")),
      warnings=["SES-MAN-010"], why="As i_ses_man_010_events_dropped_l1.")

    def dup_symbols(m, s, r):
        fids = sorted({e.function_id for t in s.threads if t.index for e in t.index.events})[:2]
        m["symbols"] = [{"function_id": fids[0], "name": "first_entry"},
                        {"function_id": fids[1], "name": "other"},
                        {"function_id": "0x%x" % fids[0], "name": "second_entry"}]
        m["format_version"] = "2.1"
        s.symbols = {fids[0]: "first_entry", fids[1]: "other"}
    C("i_ses_man_012_duplicate_function_id_l2", "manifest symbols list one function_id twice "
      "(a number, then the same id as a hex string) with different names", man(dup_symbols),
      warnings=["SES-MAN-012"],
      why="SES-MAN-012 (errata E-25) is a SHOULD: the session stays readable and the first "
          "entry names the id, so a reader's dump shows \"first_entry\".")
    C("i_ses_ada_habits_l1", "an ADA tracer session as it is written today (errata E-12): "
      "layout 1, checksum 0, every thread has_detail true, time range 0, clock_type 1 on "
      "Android (boottime headers)", lambda r: ada_session(r),
      warnings=["SES-MAN-005", "SES-MAN-006", "SES-MAN-008"],
      why="Errata E-12: these three habits are warnings so that ADA sessions validate; "
          "--strict rejects them.")
    C("i_crc_003_index_l2", "layout 2 index file with checksum 0 (unchecked)",
      lambda r: lone_index(r, LAYOUT_2, 8, checksum="none"), warnings=["CRC-003"],
      why="CRC-003: layout 2 writers SHOULD write a checksum; 0 means unchecked, so the file "
          "reads. Accepted with a warning, --strict rejects.")
    C("i_crc_003_detail_l2", "layout 2 detail file with checksum 0 (unchecked)",
      lambda r: lone_detail(r, LAYOUT_2, 8, checksum="none"), warnings=["CRC-003"],
      why="As i_crc_003_index_l2.")
    C("i_crc_003_session_l2", "layout 2 session whose files all have checksum 0",
      lambda r: session(r, LAYOUT_2, [(0, 7, True), (1, 6, False)], checksum="none"),
      warnings=["CRC-003"], why="As i_crc_003_index_l2.")
    C("i_crc_003_empty_index_l2", "empty layout 2 index file: its checksum is 0, which is also "
      "the CRC32-C of an empty events section", lambda r: IndexSpec(LAYOUT_2, [], tid=3, flags=0),
      why="CRC-003 asks layout 2 writers for a checksum, but the CRC32-C of 0 bytes is 0: "
          "the checksum is right and cannot be told from 'unchecked'. This validator reports "
          "nothing; the spec does not say.")
    C("i_crc_003_empty_detail_l2", "empty layout 2 detail file (checksum 0 = CRC32-C of nothing)",
      lambda r: DetailSpec(LAYOUT_2, [], tid=3), why="As i_crc_003_empty_index_l2.")
    C("i_idx_alone_with_links_l2", "an index file given alone whose events link to detail "
      "events and whose has_detail_file flag is set; no detail.atf beside it",
      lambda r: index_links(r, LAYOUT_2, [0, 1, 2, 3]),
      why="A single file is validated on its own: file-level clauses only. Cross-lane clauses "
          "(LINK-*, ARM-PAY-005) need a thread directory. SPEC.md does not say which clauses "
          "apply to a file given alone.")
    C("i_det_events_offset_128_l1", "detail events_offset 128 (64 zero bytes after the "
      "header): the detail header has no SHOULD-be-64 clause",
      lambda r: lone_detail(r, LAYOUT_1, 8, eoff=128),
      why="IDX-HDR-011 asks for index events_offset 64, no clause does so for detail files: "
          "DET-HDR-006 only bounds it. Accepted without a finding.")
    C("i_ses_man_006_first_event_at_zero_l2", "session whose first event is at timestamp 0 and "
      "whose manifest time_start_ns is 0", lambda r: session(
          r, LAYOUT_2, [(0, 6, True), (1, 6, False)], ts0=0),
      why="time_start_ns 0 means 'unset' (SES-MAN-006), but here 0 is the true start. This "
          "validator does not warn when the first (last) event is at 0.")
    C("i_ses_man_002_duplicate_key_l2", "manifest.json with the key format_version twice in the "
      "root object", man(lambda m, s, r: raw_manifest(m).replace(
          b'"format_version": "2.0",', b'"format_version": "2.0",\n  "format_version": "2.0",')),
      errors=["SES-MAN-002"],
      why="RFC 8259: names SHOULD be unique; parsers disagree on duplicates (first, last, "
          "error). This validator rejects them as not a valid manifest.")


def mixed_layout_session(r):
    threads = [thread(r, LAYOUT_1, 8, id=0), thread(r, LAYOUT_2, 8, id=1)]
    return SessionSpec(threads, manifest_for(threads))


def ada_session(r):
    s = session(r, LAYOUT_1, [(0, 9, True), (1, 7, False), (2, 8, True)], os=OS_ANDROID,
                times=False)
    s.manifest["clock_type"] = CLOCK_MACH_CONTINUOUS
    for t in s.manifest["threads"]:
        t["has_detail"] = True
    return s


# ---- u64 manifest integers (SPEC section 5, errata E-27) ------------------------

U64_PLACEHOLDER = "@@u64-value@@"

# Each class of u64 key in the manifest: (name, description, fn(m, value)).
U64_KEY_CLASSES = (
    ("time", "time_end_ns", lambda m, v: m.update(time_end_ns=v)),
    ("counter", "events_dropped", lambda m, v: m.update(events_dropped=v)),
    ("thread_id", "threads[].id (the thread directory thread_<id>)", None),
    ("module", "modules[].module_id, base_address and size",
     lambda m, v: m.update(modules=[{"module_id": v, "path": "/usr/lib/libx.so",
                                     "base_address": v, "size": v}])),
    ("symbol", "symbols[].function_id, module_id and symbol_index",
     lambda m, v: m.update(format_version="2.1", symbols=[
         {"function_id": v, "module_id": v, "symbol_index": v, "name": "f"}])),
    ("anchor", "timing_anchors[].host_time_ns",
     lambda m, v: m.update(timing_anchors=[{"host_time_ns": v, "media_time_value": 0,
                                            "media_time_scale": 1}])),
)


def u64_session(cls_fn, text):
    """A builder: the base session with one class of u64 keys written as the JSON
    number ``text`` exactly as given (raw, so 1e3 stays 1e3)."""
    def b(r):
        if cls_fn is None:      # the thread id names a directory: a thread of its own
            value = int(text) if text.lstrip("-").isdigit() else None
            if value is not None and 0 <= value < 1 << 64:
                s = session(r, LAYOUT_2, [(0, 5, False), (value, 6, True)])
                return s
            s = base_session(r, LAYOUT_2)
            s.manifest["threads"].append({"id": U64_PLACEHOLDER, "has_detail": False})
        else:
            s = base_session(r, LAYOUT_2)
            cls_fn(s.manifest, U64_PLACEHOLDER)
        s.manifest = raw_manifest(s.manifest).replace(
            ('"%s"' % U64_PLACEHOLDER).encode(), text.encode())
        return s
    return b


def u64_manifest_cases():
    valid = (("2p63", str(1 << 63)), ("2p64m1", str((1 << 64) - 1)))
    invalid = (("2p64", str(1 << 64)), ("minus1", "-1"), ("1e3", "1e3"))
    for cls, what, fn in U64_KEY_CLASSES:
        for tag, text in valid:
            warn = ["SES-MAN-010"] if cls == "counter" else []
            # events_dropped above 0 is also SES-MAN-010 (lossy): not a y_ case.
            C("%s_ses_man_u64_%s_%s_l2" % ("i" if warn else "y", cls, tag), "manifest %s written as the JSON integer %s"
              % (what, text), u64_session(fn, text), warnings=warn,
              why="SPEC section 5 (errata E-27): a u64 key takes any JSON integer 0..2^64-1; "
                  "RFC 8259 puts no bound on integers, and the 2^63-1 limit was a JSON library's."
                  + (" A non-zero events_dropped is also SES-MAN-010." if warn else ""))
        for tag, text in invalid:
            C("n_ses_man_013_%s_%s_l2" % (cls, tag), "manifest %s written as the JSON number %s"
              % (what, text), u64_session(fn, text), errors=["SES-MAN-013"],
              why="SES-MAN-013: valid JSON, but outside the u64 range 0..2^64-1 or not an "
                  "integer; reported as such, never as 'not valid JSON'.")


def all_cases():
    return collect_cases(CASES, valid_cases, invalid_file_cases, invalid_thread_cases,
                         invalid_session_cases, recoverable_cases, impl_cases, u64_manifest_cases)


# ---- Output ---------------------------------------------------------------------

def write_corpus(out, log=None):
    cases = all_cases()
    clauses = spec_clauses(SPEC)
    cov = coverage(cases)
    require_coverage(clauses, cov, "make_corpus", "SPEC.md")
    clear_owned(out)
    for c in cases:
        files = c.files()
        for rel in sorted(files):
            write_bytes(os.path.join(out, c.name, rel), files[rel])
        exp = c.expect()
        write_bytes(os.path.join(out, c.name + ".expect.json"),
               (json.dumps(exp, indent=2, ensure_ascii=True) + "\n").encode())
        if exp["dump"]:
            lines = c.dump_lines()
            target = os.path.join(out, c.name, c.target)
            decoded = atfpy_tool.dump_lines(os.path.normpath(target))
            if decoded != lines:
                raise SystemExit("make_corpus: %s: the dump decoded by atfpy differs from the "
                                 "model's (first: %r / %r)" % (
                                     c.name, next((a for a, b in zip(lines, decoded) if a != b),
                                                  len(lines)),
                                     next((b for a, b in zip(lines, decoded) if a != b),
                                          len(decoded))))
            write_bytes(os.path.join(out, exp["dump"]), "".join(lines).encode("utf-8"))
        if log:
            log("%-58s %-22s %s" % (c.name, c.cls, " ".join(c.errors + c.warnings) or "-"))
    write_bytes(os.path.join(out, "README.md"), readme(cases, clauses, cov).encode("utf-8"))
    return cases


READINGS = [
    ("A file given alone", "An index or detail file given alone is checked with the file-level "
     "clauses only; cross-lane clauses (LINK-*, ARM-PAY-005) need a thread directory, even "
     "when a sibling file exists.", "i_idx_alone_with_links_l2"),
    ("Bad magic", "A file whose magic is neither \"ATI2\" nor \"ATD2\" is classified by its "
     "name (index.atf, detail.atf), so that IDX-HDR-001 / DET-HDR-001 can be reported.",
     "n_idx_hdr_001_bad_magic_l1"),
    ("IDX-HDR-013, DET-HDR-007", "Read literally: the finalized header's own event_count "
     "(bytes_length) must place the footer, and a footer must be there. So a wrong header "
     "event_count also breaks IDX-HDR-013, and a finalized header without a footer breaks "
     "IDX-HDR-013 (DET-HDR-007) as well as REC-004.",
     "n_idx_hdr_012_count_l1, n_rec_004_index_l2, n_idx_ftr_005_gap_l1, "
     "n_det_ftr_002_bytes_length_l2"),
    ("REC-004 and REC-001", "A finalized header without a footer is REC-004 (error), not also "
     "REC-001; its events are still recovered (up to footer_offset when that lies inside the "
     "file) and listed under \"recovered\".", "n_rec_004_footer_offset_no_footer_l1"),
    ("After a structural error", "After IDX-FTR-001 no event of that index file is read (no "
     "IDX-FTR-003, CRC or link check). After DET-EVT-001/-002 the events before the bad one "
     "get their per-event checks, but DET-FTR-001/-003, DET-HDR-008 and the links are not "
     "checked.", "n_idx_ftr_001_count_too_big_l2, n_det_evt_001_total_length_16_l1"),
    ("REC-002 and zero bytes", "A remainder of zero bytes after the recovered events "
     "(preallocated space) is not reported as a partial record (REC-002); REC-001's message "
     "counts it.", "r_idx_crash_zero_tail_l1, r_det_crash_zero_tail_l2"),
    ("REC-003 for detail files", "SPEC.md defines the torn index footer only. For detail "
     "files: a remainder that starts with \"2DTA\" and holds at byte 8 the number of events "
     "before it. The whole torn footer is one REC-003 (not also REC-002).",
     "r_det_crash_torn_footer_l1, r_idx_crash_torn_footer_l2"),
    ("CRC-003 and empty files", "The CRC32-C of an empty events section is 0, so an empty "
     "layout 2 file's checksum 0 is not reported.", "i_crc_003_empty_index_l2"),
    ("SES-MAN-006 and timestamp 0", "A manifest time_start_ns (time_end_ns) of 0 is not "
     "reported when the first (last) event really is at 0.",
     "i_ses_man_006_first_event_at_zero_l2"),
    ("Threads the manifest does not list", "They are validated and dumped (with SES-MAN-004); "
     "docs/dump-format.md does not say which threads a session dump holds.",
     "i_ses_man_004_unlisted_thread_l1"),
    ("Manifest numbers and JSON", "Duplicate object keys, NaN and "
     "invalid UTF-8 are SES-MAN-002; JSON integers up to 2^64-1 are u64 values (errata E-27). A key with the wrong type suspends the checks that use "
     "it (SES-MAN-006..010); an unusable threads array suspends SES-MAN-003..005 and the "
     "thread directories are discovered and checked.",
     "y_ses_man_u64_time_2p64m1_l2, n_ses_man_002_threads_missing"),
    ("Detail events_offset", "No clause asks for detail events_offset 64 (IDX-HDR-011 has no "
     "detail twin), so 128 passes without a finding.", "i_det_events_offset_128_l1"),
    ("ARM-PAY-005", "Checked for mutually linked pairs only (a broken link is LINK-002/004 "
     "already).", "n_arm_pay_005_function_id_l1"),
    ("SES-MAN-003 with a detail file only", "A listed thread directory holding detail.atf but "
     "no index.atf breaks SES-MAN-003; its detail file is checked alone.",
     "n_ses_man_003_detail_only_l1"),
]


def readme(cases, clauses, cov):
    kinds = {"file": 0, "thread": 0, "session": 0}
    for c in cases:
        k = ("file" if isinstance(c.content, (IndexSpec, DetailSpec)) else
             "thread" if isinstance(c.content, ThreadSpec) else "session")
        kinds[k] += 1
    per_layout = {1: 0, 2: 0}
    for c in cases:
        for L in c.layouts():
            per_layout[L] += 1
    total_bytes = sum(len(b) for c in cases for b in c.files().values())
    out = ["# The golden corpus", "",
           "Inputs with the verdict a conforming ATF validator must give, and for accepted "
           "inputs the canonical dump (`atf dump --json`, docs/dump-format.md) a conforming "
           "reader must print. Every expectation names the clauses of "
           "[conformance/SPEC.md](../conformance/SPEC.md) (SPEC version 1.0) that decide it.",
           "", "**Generated; do not edit by hand.** `formats/atf/python/make_corpus.py` writes "
           "every file here, this README included, from models built with atfpy (the "
           "standard-library Python implementation of ATF in `formats/atf/python/atfpy/`), not "
           "with the C codec. (`fuzz-seeds/` and `regressions/` beside the cases belong to "
           "the fuzz targets, fuzz/; the generator leaves them alone.)", "",
           "%d cases: %d single files, %d thread directories, %d sessions; %d use layout 1, "
           "%d layout 2; %d bytes of ATF and manifest data."
           % (len(cases), kinds["file"], kinds["thread"], kinds["session"], per_layout[1],
              per_layout[2], total_bytes), "",
           ] + readme_classes(cases, "REC-001") + [
           "",
           "`i_` cases are where SPEC.md leaves room: SHOULD-level rules (reported as warnings: "
           "accepted by default, rejected under `--strict`), and places the spec does not "
           "settle. Their expectations record what this project's validator does and why; a "
           "third-party reader may accept or reject them (JSONTestSuite's `i_`).", "",
           "## Names", "",
           "`<class>_<area>_<what>_l<layout>`: the area is the clause group (`idx_hdr_012`, "
           "`det_evt_001`, `link_004`, `ses_man_002`, `rec_005`, `crc`, ...) for cases about "
           "one clause, or `idx`, `det`, `thread`, `session` for broader ones; `_l1` / `_l2` "
           "is the layout (version byte 1 or 2).", "",
           "## Files of a case", "",
           "* `NAME/`: the input. `target` in the expect file is the path to give to the tool, "
           "relative to `NAME/`: `index.atf` or `detail.atf` (a file alone), `thread_K` (a "
           "thread directory), `.` (a session), or a deeper path "
           "(`ada_traces/session_.../pid_4242`, a `session_...` directory holding one `pid_N`).",
           "* `NAME.expect.json`: the expectation (below).",
           "* `NAME.dump.jsonl`: for accepted cases (`verdict` conformant), the exact bytes of "
           "`atf dump --json NAME/<target>`.", "",
           "## Expect files (schema `%s`)" % EXPECT_SCHEMA, "",
           "| key | meaning |", "| --- | --- |",
           "| `case`, `class`, `description` | the case; `class` is valid, invalid, recoverable "
           "or implementation-defined |",
           "| `why` | `i_` only: why this is implementation-defined and what this project does |",
           "| `target` | the path to validate and dump, relative to the case directory |",
           "| `layouts` | the layouts (1, 2) of the ATF files involved |",
           "| `verdict` | `conformant` or `nonconformant` from `atf validate` (exit 0 / 1) |",
           "| `strict_verdict` | the same under `atf validate --strict` |",
           "| `error_clauses` | the exact set of clause IDs of error findings |",
           "| `warning_clauses` | clause IDs that must appear among warning findings (a "
           "validator may report more warnings; the atfpy cross-check requires exactly these) |",
           "| `allowed_extra` | error clauses a validator may report besides `error_clauses` "
           "(empty in every case today) |",
           "| `recovered` | `{file: events}` for every file without a footer, file names "
           "relative to the target as in `atf validate --format json` (`recovered` array) |",
           "| `dump` | the expected dump file, or null |", "",
           "## Running", "",
           "```sh",
           "# against the C tool (ctest: conformance_corpus)",
           "/usr/bin/python3 conformance/tests/run_corpus.py --atf build/cli/atf",
           "# against the independent Python implementation (ctest: conformance_corpus_atfpy)",
           "/usr/bin/python3 conformance/tests/run_corpus.py --atf formats/atf/python/atfpy_tool.py "
           "--exact-warnings",
           "# every SPEC.md clause in the validator's table and in the corpus, and back",
           "/usr/bin/python3 conformance/tests/check_clause_coverage.py --atf build/cli/atf",
           "```", "",
           "The runner runs `atf validate --format json`, `atf validate --strict --format json` "
           "and (for accepted cases) `atf dump --json` on each case's target and prints one "
           "line per failing case, then `N passed, M failed`.", "",
           "## Regenerating", "",
           "```sh",
           "/usr/bin/python3 formats/atf/python/make_corpus.py            # rewrites corpus/atf/",
           "/usr/bin/python3 formats/atf/python/make_corpus.py --check corpus/atf   "
           "# ctest: conformance_corpus_regenerates",
           "```", "",
           "Generation is deterministic (one `random.Random` per case seeded by its name, no "
           "time, sorted output): regenerating reproduces these bytes exactly, and a ctest "
           "checks it. To add a case, add it to `make_corpus.py`, regenerate, run both "
           "runners, and commit the generator and the corpus together.", "",
           "## Readings of SPEC.md", "",
           "Where SPEC.md leaves room, the expectations take these readings (the validator "
           "of formats/atf/python/atfpy/validate.py implements the same):", ""]
    out += readme_tail(READINGS, clauses, cov,
                       "Cases whose expectations report each clause of SPEC.md.")
    return "\n".join(out) + "\n"


def main(argv=None):
    return generator_main(argv, __doc__, DEFAULT_OUT, all_cases, write_corpus)


if __name__ == "__main__":
    sys.exit(main())
