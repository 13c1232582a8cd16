#!/usr/bin/python3
"""Writes a deterministic set of ATF sessions and their expected canonical dumps.

    independent_sessions.py OUTDIR [--seed N] [--scale F] [--only NAME ...]

For every session S it writes
    OUTDIR/S/                          the session (manifest.json, thread_K/...)
    OUTDIR/S.expected.jsonl            `atf dump --json OUTDIR/S`
    OUTDIR/S.expected/thread_K.detail.jsonl
                                       `atf dump --json OUTDIR/S/thread_K/detail.atf`
and OUTDIR/index.json lists the sessions with what each one covers.
`atf dump --json OUTDIR/S/thread_K` must print the lines of S.expected.jsonl
whose "thread" is K (a thread directory dump is the session's lines of that
thread, symbols included).

The expected dumps are computed from the generated events (the model), not by
reading the files back; the files are then decoded with atfpy and checked
against the model (self-check), so the generator fails loudly rather than
emitting an oracle that disagrees with its own files.

Uses only the Python standard library (Debian's /usr/bin/python3).
"""

import argparse
import json
import os
import random
import shutil
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "conformance", "gen")]

import atfpy  # noqa: E402
from atfpy import (ARCH_ARM64, ARCH_X86_64, CHECKSUM_CRC32_IEEE, CHECKSUM_CRC32C,  # noqa: E402
                   CHECKSUM_NONE, CLOCK_BOOTTIME, CLOCK_MACH_CONTINUOUS, CLOCK_QPC,
                   DETAIL_FUNCTION_CALL, DETAIL_FUNCTION_RETURN, DETAIL_HEADER_SIZE,
                   EVENT_CALL, EVENT_EXCEPTION, EVENT_RETURN, INDEX_EVENT_SIZE,
                   INDEX_HEADER_SIZE, LAYOUT_1, LAYOUT_2, OS_ANDROID, OS_IOS, OS_LINUX,
                   OS_MACOS, OS_WINDOWS, U32_MAX, U64_MAX, Arm64Payload, DetailEvent,
                   IndexEvent, Module, SessionModel, Symbol, ThreadModel)
from atfpy.session import call_step  # noqa: E402

GENERATOR = "independent_sessions"
FORMAT = 1   # of index.json

EXTREME_FIDS = [0, U64_MAX, U64_MAX - 1, 1 << 63, U32_MAX, 1 << 32, (1 << 63) - 1]
EXTREME_REGS = [0, 1, U64_MAX, U64_MAX - 1, 1 << 63, U32_MAX]


# ---- Building blocks --------------------------------------------------------

def function_pool(rng, modules=4, per_module=40, extremes=True):
    """function_ids (module_id << 32) | symbol_index, plus extreme values."""
    pool = []
    for m in range(modules):
        for _ in range(per_module):
            pool.append((m << 32) | rng.randrange(0, 1 << 20))
    pool = sorted(set(pool))
    if extremes:
        pool += [f for f in EXTREME_FIDS if f not in pool]
    return pool


def arm64_payload(rng, fid, stack_size):
    xs = [rng.choice(EXTREME_REGS) if rng.random() < 0.1 else rng.getrandbits(64)
          for _ in range(8)]
    sp = 0x16F000000 + (rng.randrange(0, 1 << 20) << 4)
    return Arm64Payload(function_id=fid, x=xs, lr=0x100000000 + rng.randrange(0, 1 << 24) * 4,
                        fp=sp + 16 * rng.randrange(1, 64), sp=sp,
                        stack=rng.randbytes(stack_size)).encode()


def opaque_payload(rng, fid, etype):
    """x86_64 payloads: no defined layout. Some are byte-for-byte well-formed ARM64
    payloads, which a dumper must not decode because the arch is x86_64."""
    r = rng.random()
    if r < 0.1:
        return b""
    if r < 0.3:
        return arm64_payload(rng, fid, rng.choice([0, 128, 256]))
    return rng.randbytes(rng.randrange(1, 400))


class ThreadSpec:
    """How to generate one thread."""

    def __init__(self, tid, n_events, detail=False, ts_start=None, os_tid=None,
                 checksum=None, forced_stack_sizes=(), detail_windows=3):
        self.tid, self.n_events, self.detail = tid, n_events, detail
        self.ts_start, self.os_tid, self.checksum = ts_start, os_tid, checksum
        self.forced_stack_sizes = list(forced_stack_sizes)
        self.detail_windows = detail_windows


def gen_thread(rng, session, spec, pool, forced_fids=()):
    """A ThreadModel with call/return/exception events and, when spec.detail,
    detail events in a few recording windows (pre/post-roll style)."""
    layout, arch = session.layout, session.arch
    os_tid = spec.os_tid if spec.os_tid is not None else rng.randrange(1000, 1 << 31)
    ts = spec.ts_start if spec.ts_start is not None else rng.randrange(10 ** 12, 10 ** 15)
    n = spec.n_events
    windows = []
    if spec.detail and n:
        for _ in range(spec.detail_windows):
            a = rng.randrange(0, n)
            windows.append((a, min(n, a + rng.randrange(20, max(21, n // 3)))))
        windows.append((0, min(n, 40)))   # the forced stack sizes land here
    forced_fids = list(forced_fids)
    forced_ss = list(spec.forced_stack_sizes)
    events, details, stack = [], ([] if spec.detail else None), []
    for seq in range(n):
        if seq:
            r = rng.random()
            ts += 0 if r < 0.05 else (rng.randrange(10 ** 8, 10 ** 10) if r < 0.07
                                      else rng.randrange(1, 5000))
        fid, kind, depth = call_step(
            stack, rng.random(), lambda: forced_fids.pop(0) if forced_fids else rng.choice(pool),
            48, 0.52, 0.96, len(stack) < 48)
        ev = IndexEvent(timestamp_ns=ts, function_id=fid, event_kind=kind)
        if layout == LAYOUT_1:
            ev.thread_id, ev.call_depth = os_tid, depth
        in_window = any(a <= seq < b for a, b in windows)
        if details is not None and in_window and kind != EVENT_EXCEPTION and rng.random() < 0.9:
            etype = DETAIL_FUNCTION_CALL if kind == EVENT_CALL else DETAIL_FUNCTION_RETURN
            if arch == ARCH_ARM64:
                ss = forced_ss.pop(0) if forced_ss else rng.choice(
                    [0, 16, 64, 128, 128, 128, 192, 256, rng.randrange(0, 257)])
                payload = arm64_payload(rng, fid, ss)
            else:
                payload = opaque_payload(rng, fid, etype)
            dev = DetailEvent(event_type=etype, flags=rng.choice([0, 0, 0, 1, 2, 0x8000]),
                              index_seq=seq, timestamp=ts, payload=payload,
                              thread_id=os_tid if layout == LAYOUT_1 else 0)
            ev.detail_seq = len(details)
            details.append(dev)
        events.append(ev)
    if forced_ss:
        raise AssertionError("thread %d: forced stack sizes %r not placed" % (spec.tid, forced_ss))
    return ThreadModel(id=spec.tid, os_thread_id=os_tid, events=events, detail_events=details,
                       checksum=spec.checksum)


def n_events(rng, scale, lo=300, hi=3000):
    return max(8, int(rng.randrange(lo, hi) * scale))


def symbols_for(rng, pool, modules, names, share=0.6):
    """Symbols for a share of the pool (so some events have none)."""
    syms = []
    for i, fid in enumerate(sorted(set(pool))):
        if rng.random() < share:
            syms.append(Symbol(function_id=fid, module_id=fid >> 32,
                               symbol_index=fid & 0xFFFFFFFF,
                               name=names[i % len(names)] + "_%d" % i))
    return syms


CXX_NAMES = ["main", "-[AppDelegate application:didFinishLaunchingWithOptions:]",
             "std::vector<int>::push_back(int const&)", "objc_msgSend", "malloc",
             "$s4main3FooC3baryyF", "Renderer::draw(Frame&)", "_dispatch_call_block_and_release"]
TRICKY_NAMES = ["quote\"inside", "back\\slash", "caf\u00e9_\u00b5s", "tab\there",
                "slash/ok", "\u65e5\u672c\u8a9e", "emoji_\U0001F600", "ctl\u0001x"]


def modules_for(n):
    return [Module(module_id=m, path=("/usr/lib/libmod%d.dylib" % m) if m else "/app/bin/main",
                   base_address=0x100000000 + m * 0x10000000, size=0x400000 + m * 0x1000,
                   uuid="%08X-0000-4000-8000-%012X" % (0xA7F00000 + m, m)) for m in range(n)]


# ---- Sessions ----------------------------------------------------------------

def s_l1_arm64_ios_symbols(rng, scale):
    s = SessionModel("l1_arm64_ios_symbols", layout=LAYOUT_1, arch=ARCH_ARM64, os=OS_IOS,
                     clock_type=CLOCK_MACH_CONTINUOUS, checksum=CHECKSUM_CRC32C,
                     hex_form="mixed",
                     description="layout 1, arm64 iOS, CRC32-C, detail lanes with ARM64 "
                                 "payloads (stack 0/128/256), symbol table in mixed "
                                 "number/hex-string form, call/return/exception with call_depth")
    pool = function_pool(rng, extremes=False) + [0, U32_MAX, 1 << 32, (1 << 63) - 1]
    s.modules = modules_for(4)
    s.symbols = symbols_for(rng, pool, s.modules, CXX_NAMES)
    specs = [ThreadSpec(0, n_events(rng, scale), True, forced_stack_sizes=(0, 128, 256)),
             ThreadSpec(1, n_events(rng, scale)),
             ThreadSpec(2, n_events(rng, scale), True, forced_stack_sizes=(256, 0, 128)),
             ThreadSpec(5, n_events(rng, scale))]
    s.threads = [gen_thread(rng, s, sp, pool, forced_fids=[0, U32_MAX]) for sp in specs]
    return s


def s_l1_arm64_android_crc32ieee(rng, scale):
    s = SessionModel("l1_arm64_android_crc32ieee", layout=LAYOUT_1, arch=ARCH_ARM64,
                     os=OS_ANDROID, clock_type=CLOCK_BOOTTIME, checksum=CHECKSUM_CRC32_IEEE,
                     description="layout 1, arm64 Android, CRC32/IEEE footer checksums, "
                                 "detail lanes, extreme function_ids")
    pool = function_pool(rng)
    specs = [ThreadSpec(0, n_events(rng, scale), True, forced_stack_sizes=(0, 128, 256)),
             ThreadSpec(3, n_events(rng, scale), True, forced_stack_sizes=(128,)),
             ThreadSpec(4, n_events(rng, scale))]
    s.threads = [gen_thread(rng, s, sp, pool, forced_fids=EXTREME_FIDS) for sp in specs]
    return s


def s_l1_legacy_checksum0(rng, scale):
    s = SessionModel("l1_legacy_checksum0", layout=LAYOUT_1, arch=ARCH_ARM64, os=OS_MACOS,
                     clock_type=CLOCK_MACH_CONTINUOUS, checksum=CHECKSUM_NONE,
                     description="layout 1 as the ADA tracer writes it: footer checksum 0 "
                                 "(legacy, unchecked), one detail lane")
    pool = function_pool(rng, extremes=False)
    specs = [ThreadSpec(0, n_events(rng, scale), True, forced_stack_sizes=(0, 128, 256)),
             ThreadSpec(1, n_events(rng, scale)),
             ThreadSpec(2, n_events(rng, scale))]
    s.threads = [gen_thread(rng, s, sp, pool) for sp in specs]
    return s


def s_l2_arm64_linux_extremes(rng, scale):
    s = SessionModel("l2_arm64_linux_extremes", layout=LAYOUT_2, arch=ARCH_ARM64, os=OS_LINUX,
                     clock_type=CLOCK_BOOTTIME, checksum=CHECKSUM_CRC32C,
                     description="layout 2, arm64 Linux, CRC32-C, 5 threads listed out of "
                                 "order (ids 10,2,0,7,1: numeric sort), one empty thread, "
                                 "a thread starting at timestamp 0, extreme function_ids "
                                 "and register values")
    pool = function_pool(rng)
    specs = [ThreadSpec(10, n_events(rng, scale), True, forced_stack_sizes=(0, 128, 256)),
             ThreadSpec(2, n_events(rng, scale), True, forced_stack_sizes=(256, 256, 0)),
             ThreadSpec(0, n_events(rng, scale), ts_start=0),
             ThreadSpec(7, 0, os_tid=U32_MAX),
             ThreadSpec(1, n_events(rng, scale), True, os_tid=0,
                        forced_stack_sizes=(128, 0, 256))]
    s.threads = [gen_thread(rng, s, sp, pool, forced_fids=EXTREME_FIDS) for sp in specs]
    return s


def s_l2_x86_64_opaque(rng, scale):
    s = SessionModel("l2_x86_64_opaque", layout=LAYOUT_2, arch=ARCH_X86_64, os=OS_WINDOWS,
                     clock_type=CLOCK_QPC, checksum=CHECKSUM_CRC32C,
                     description="layout 2, x86_64 Windows: opaque random detail payloads "
                                 "(empty, random, and well-formed ARM64 lookalikes that must "
                                 "not be decoded); one thread with checksum 0")
    pool = function_pool(rng)
    specs = [ThreadSpec(0, n_events(rng, scale), True),
             ThreadSpec(1, n_events(rng, scale), True, checksum=CHECKSUM_NONE),
             ThreadSpec(2, n_events(rng, scale)),
             ThreadSpec(3, n_events(rng, scale), checksum=CHECKSUM_NONE)]
    s.threads = [gen_thread(rng, s, sp, pool, forced_fids=EXTREME_FIDS) for sp in specs]
    # Some payloads are well-formed ARM64 payloads of function events (the trap).
    assert any(d.event_type in (3, 4) and Arm64Payload.try_decode(d.payload)
               for t in s.threads for d in (t.detail_events or []))
    return s


def s_l2_arm64_macos_symbols_hex(rng, scale):
    s = SessionModel("l2_arm64_macos_symbols_hex", layout=LAYOUT_2, arch=ARCH_ARM64,
                     os=OS_MACOS, clock_type=CLOCK_MACH_CONTINUOUS, checksum=CHECKSUM_CRC32C,
                     hex_form=True,
                     description="layout 2, arm64 macOS, symbol table with hex-string "
                                 "function_id/base_address (incl. function_ids >= 2^63), "
                                 "names needing JSON escapes and non-ASCII")
    pool = function_pool(rng, modules=3)
    s.modules = modules_for(3)
    s.symbols = symbols_for(rng, pool, s.modules, TRICKY_NAMES + CXX_NAMES, share=0.7)
    have = {x.function_id for x in s.symbols}
    for fid in (U64_MAX, U64_MAX - 1, 1 << 63):      # big ids always named
        if fid not in have:
            s.symbols.append(Symbol(fid, fid >> 32, fid & 0xFFFFFFFF, "big_%x" % fid))
    specs = [ThreadSpec(0, n_events(rng, scale), True, forced_stack_sizes=(0, 128, 256)),
             ThreadSpec(1, n_events(rng, scale)),
             ThreadSpec(2, n_events(rng, scale))]
    s.threads = [gen_thread(rng, s, sp, pool, forced_fids=EXTREME_FIDS) for sp in specs]
    return s


def _crash_cuts(rng, model):
    """Chooses cut points exercising every recovery case (see descriptions)."""
    ths = model.threads
    # A: index cut mid-record; detail cut mid-event, behind the index, so that some
    #    visible index events link to lost detail events.
    a = ths[0]
    k = rng.randrange(len(a.events) // 2, len(a.events) - 2)
    a.index_cut = INDEX_HEADER_SIZE + k * INDEX_EVENT_SIZE + rng.randrange(1, INDEX_EVENT_SIZE)
    linked = [i for i, d in enumerate(a.detail_events) if d.index_seq < k]
    j = linked[len(linked) * 2 // 3]
    off = atfpy.detail_offsets(a.detail_events)[j]
    a.detail_cut = off + rng.randrange(25, a.detail_events[j].total_length)   # in the payload
    # B: index cut exactly at a record boundary; detail cut inside an event header.
    b = ths[1]
    k = rng.randrange(len(b.events) // 2, len(b.events))
    b.index_cut = INDEX_HEADER_SIZE + k * INDEX_EVENT_SIZE
    j = len(b.detail_events) // 2
    b.detail_cut = atfpy.detail_offsets(b.detail_events)[j] + rng.randrange(1, 24)
    # C: no detail, index cut mid-record.
    c = ths[2]
    c.index_cut = INDEX_HEADER_SIZE + rng.randrange(1, len(c.events)) * 32 + rng.randrange(1, 32)
    # D: only the header and a partial first record reached the disk; detail file
    #    is the bare header.
    d = ths[3]
    d.index_cut = INDEX_HEADER_SIZE + rng.randrange(1, 32)
    d.detail_cut = DETAIL_HEADER_SIZE
    # E: nothing cut: placeholder headers over complete events, no footers.


def _crash_session(rng, scale, layout):
    name = "l%d_crash_truncated" % layout
    s = SessionModel(name, layout=layout, arch=ARCH_ARM64, os=OS_ANDROID,
                     clock_type=CLOCK_BOOTTIME, checksum=CHECKSUM_CRC32C, crashed=True,
                     manifest_times="zero",
                     description="layout %d crash: placeholder headers, no footers; files cut "
                                 "mid-record, at a record boundary, inside a detail event "
                                 "header and payload, right after the header; index events "
                                 "linking to lost detail events get no detail" % layout)
    pool = function_pool(rng)
    specs = [ThreadSpec(0, n_events(rng, scale, 600), True, forced_stack_sizes=(0, 128, 256)),
             ThreadSpec(1, n_events(rng, scale, 600), True),
             ThreadSpec(2, n_events(rng, scale)),
             ThreadSpec(3, n_events(rng, scale), True),
             ThreadSpec(4, n_events(rng, scale), True)]
    s.threads = [gen_thread(rng, s, sp, pool) for sp in specs]
    _crash_cuts(rng, s)
    # The oracle must contain a visible link to a lost detail event.
    a = s.threads[0]
    nvis, dvis = s.visible_index_count(a), len(s.visible_detail(a))
    assert any(e.detail_seq is not None and e.detail_seq >= dvis for e in a.events[:nvis])
    return s


def s_l1_crash_truncated(rng, scale):
    return _crash_session(rng, scale, LAYOUT_1)


def s_l2_crash_truncated(rng, scale):
    return _crash_session(rng, scale, LAYOUT_2)


def _edge_detail_events(rng, layout, os_tid, fid):
    """Detail events whose arm64 decoding is a trap, plus odd field values."""
    tid = os_tid if layout == LAYOUT_1 else 0
    good = lambda ss: arm64_payload(rng, fid, ss)  # noqa: E731
    p257 = Arm64Payload(fid, [1] * 8, 2, 3, 4, stack=rng.randbytes(257)).encode(strict=False)
    short = Arm64Payload(fid, [5] * 8, 6, 7, 8, stack=rng.randbytes(10), stack_size=20)
    long_ = Arm64Payload(fid, [9] * 8, 10, 11, 12, stack=rng.randbytes(30), stack_size=20)
    resv = Arm64Payload(fid, [U64_MAX] * 8, U64_MAX, 0, U64_MAX - 1, stack=b"\xff" * 16,
                        reserved=0xBEEF)
    return [  # (event_type, flags, payload, decoded as arm64?)
        (DETAIL_FUNCTION_CALL, 0, good(0), True),
        (DETAIL_FUNCTION_RETURN, 0xFFFF, good(256), True),
        (0, 0, good(128), False),                       # type 0: not a function event
        (5, 1, good(16), False),                        # type 5
        (0xFFFF, 0xFFFF, good(0), False),
        (DETAIL_FUNCTION_CALL, 0, p257, False),         # stack_size 257, length matches
        (DETAIL_FUNCTION_CALL, 0, short.encode(strict=False), False),  # too short
        (DETAIL_FUNCTION_RETURN, 0, long_.encode(strict=False), False),  # too long
        (DETAIL_FUNCTION_CALL, 0, good(0)[:99], False),  # 99 bytes
        (DETAIL_FUNCTION_CALL, 0, b"", False),          # empty payload
        (DETAIL_FUNCTION_RETURN, 0, resv.encode(), True),  # reserved != 0: still decoded
    ], tid


def _edge_session(rng, scale, layout):
    name = "l%d_edge_values" % layout
    s = SessionModel(name, layout=layout, arch=ARCH_ARM64, os=OS_IOS,
                     clock_type=CLOCK_MACH_CONTINUOUS, checksum=CHECKSUM_CRC32C,
                     manifest_times="zero", validate_exit=1,
                     description="layout %d edge values a dumper must print as stored "
                                 "(`atf validate` must report errors, exit 1: links that do "
                                 "not resolve in finalized files, backwards timestamps, "
                                 "unknown event kinds): timestamps up to 2^64-1 and going "
                                 "backwards, unknown event kinds, dangling detail_seq, "
                                 "mismatched index_seq, ARM64 decoding traps, an empty detail "
                                 "file, has_detail without a detail file (ADA quirk), a detail "
                                 "file without the header flag, a thread id above 2^32"
                     % layout)
    big = U32_MAX if layout == LAYOUT_1 else 0xFF
    pool = function_pool(rng, modules=2, per_module=10)
    # Thread 0: extreme values, traps.
    os_tid = rng.randrange(1, 1 << 31)
    evs, dets = [], []
    ts = U64_MAX - 100000
    traps, dtid = _edge_detail_events(rng, layout, os_tid, U64_MAX)
    kinds = [0, EVENT_CALL, EVENT_RETURN, EVENT_EXCEPTION, 4, big, big - 1]
    nd_max = (U32_MAX - 1) if layout == LAYOUT_1 else (U64_MAX - 1)
    n = max(len(traps) + 20, n_events(rng, scale, 100, 400))
    for seq in range(n):
        ts = min(U64_MAX, ts + rng.randrange(0, 1000))
        if seq == n // 2:
            ts -= 50000                                  # backwards
        if seq == n - 1:
            ts = U64_MAX
        ev = IndexEvent(timestamp_ns=ts if seq else 0, function_id=rng.choice(EXTREME_FIDS + pool),
                        event_kind=kinds[seq % len(kinds)])
        if layout == LAYOUT_1:
            ev.thread_id = [os_tid, 0, U32_MAX][seq % 3]
            ev.call_depth = [0, 1, U32_MAX, rng.randrange(0, 100)][seq % 4]
        if seq < len(traps):
            etype, flags, payload, _ = traps[seq]
            iseq = seq if seq % 3 else (U32_MAX if layout == LAYOUT_1 else U64_MAX)
            dets.append(DetailEvent(etype, flags, iseq, ts if seq % 4 else 0, payload,
                                    dtid if seq % 5 else (U32_MAX if layout == LAYOUT_1 else 0)))
            ev.detail_seq = seq
        elif seq % 7 == 0:
            ev.detail_seq = rng.choice([nd_max, len(traps), len(traps) + 1, 1 << 31])  # dangling
        evs.append(ev)
    t0 = ThreadModel(0, os_tid, evs, dets)
    # Thread 1: an empty (finalized) detail file; links to it are dangling.
    spec = ThreadSpec(1, n_events(rng, scale, 100, 300), True, os_tid=U32_MAX)
    t1 = gen_thread(rng, s, spec, pool)
    t1.detail_events = []
    # Thread 2: manifest says has_detail, no detail.atf (what the ADA recorder writes);
    # its events keep their links, which resolve to nothing.
    spec = ThreadSpec(2, n_events(rng, scale, 100, 300), True, os_tid=0)
    t2 = gen_thread(rng, s, spec, pool)
    t2.detail_events, t2.manifest_has_detail = None, True
    # Thread 2^32 + 5: a detail file although the index header flag is clear.
    spec = ThreadSpec((1 << 32) + 5, n_events(rng, scale, 100, 300), True,
                      forced_stack_sizes=(0, 128, 256))
    t3 = gen_thread(rng, s, spec, pool)
    t3.index_flags = 0
    s.threads = [t3, t2, t1, t0]
    # The traps decode (or not) as intended.
    for (_, _, _, want), dev in zip(traps, dets):
        obj = atfpy.dump.detail_object(0, 0, dev, layout, ARCH_ARM64)
        assert ("arm64" in obj) == want, (dev.event_type, len(dev.payload))
    return s


def s_l1_edge_values(rng, scale):
    return _edge_session(rng, scale, LAYOUT_1)


def s_l2_edge_values(rng, scale):
    return _edge_session(rng, scale, LAYOUT_2)


SESSIONS = [s_l1_arm64_ios_symbols, s_l1_arm64_android_crc32ieee, s_l1_legacy_checksum0,
            s_l2_arm64_linux_extremes, s_l2_x86_64_opaque, s_l2_arm64_macos_symbols_hex,
            s_l1_crash_truncated, s_l2_crash_truncated, s_l1_edge_values, s_l2_edge_values]


def build_models(seed, scale=1.0, only=None):
    """The session models for ``seed`` (each from its own RNG seeded by seed and name)."""
    out = []
    for fn in SESSIONS:
        name = fn.__name__[2:]
        if only and name not in only:
            continue
        rng = random.Random("%d:%s" % (seed, name))
        m = fn(rng, scale)
        assert m.name == name, (m.name, name)
        out.append(m)
    return out


def _write_lines(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(lines))


def write_all(outdir, seed, scale=1.0, only=None, selfcheck=True, log=None):
    os.makedirs(outdir, exist_ok=True)
    entries = []
    for m in build_models(seed, scale, only):
        sdir = os.path.join(outdir, m.name)
        edir = os.path.join(outdir, m.name + ".expected")
        for d in (sdir, edir):
            if os.path.isdir(d):
                shutil.rmtree(d)
        atfpy.write_session(m, sdir)
        os.makedirs(edir)
        lines = atfpy.expected_dump(m)
        _write_lines(os.path.join(outdir, m.name + ".expected.jsonl"), lines)
        threads = []
        for t in sorted(m.threads, key=lambda t: t.id):
            te = {"id": t.id, "dir": "%s/thread_%d" % (m.name, t.id),
                  "has_detail_file": t.has_detail_file, "index_events": m.visible_index_count(t)}
            if t.has_detail_file:
                dl = atfpy.expected_detail_dump(m, t.id)
                _write_lines(os.path.join(edir, "thread_%d.detail.jsonl" % t.id), dl)
                te["detail_events"] = len(dl)
                te["expected_detail"] = "%s.expected/thread_%d.detail.jsonl" % (m.name, t.id)
            threads.append(te)
        if selfcheck:
            atfpy.check_session(m, sdir)
        entries.append({"name": m.name, "dir": m.name,
                        "expected": m.name + ".expected.jsonl",
                        "layout": m.layout, "arch": m.arch, "os": m.os,
                        "clock_type": m.clock_type, "checksum": m.checksum,
                        "crashed": m.crashed, "symbols": len(m.symbols),
                        "validate_exit": m.validate_exit, "lines": len(lines),
                        "description": m.description, "threads": threads})
        if log:
            log("%-30s %6d lines, %d threads" % (m.name, len(lines), len(threads)))
    index = {"generator": GENERATOR, "format": FORMAT, "seed": seed, "scale": scale,
             "sessions": entries}
    with open(os.path.join(outdir, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=2)
        f.write("\n")
    return index


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiplies the event counts (default 1)")
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="generate only this session (repeatable)")
    ap.add_argument("--no-selfcheck", action="store_true",
                    help="skip decoding the written files back")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    names = [fn.__name__[2:] for fn in SESSIONS]
    for n in a.only or []:
        if n not in names:
            ap.error("unknown session %r (known: %s)" % (n, ", ".join(names)))
    write_all(a.outdir, a.seed, a.scale, a.only, not a.no_selfcheck,
              None if a.quiet else (lambda s: print(s, flush=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
