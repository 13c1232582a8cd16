#!/usr/bin/python3
"""Writes the WTF golden corpus (corpus/wtf/): binary WTF files with the
verdict each one must get, in the manner of the ATF corpus (corpus/atf/,
make_corpus.py): y_ valid, n_ invalid, i_ implementation-defined (SHOULD
rules, warnings), r_ crash-truncated.

    make_wtf_corpus.py [--out DIR]      (re)write the corpus (default: corpus/wtf/)
    make_wtf_corpus.py --check DIR      regenerate into a temporary directory and
                                        compare with DIR byte for byte
    make_wtf_corpus.py --list           print the case names and classes

Every case is written with wtfpy (formats/wtf/python/wtfpy/), the
standard-library implementation of the format; nothing comes from the C
codec. For each case NAME:
    NAME/trace.wtf-trace    the input
    NAME.expect.json        the expected verdicts, clause IDs and recovered count
    NAME.dump.jsonl         the expected `atf dump --json` (accepted cases only),
                            computed from the writer's model (and, for a cut
                            file, from section 6 of SPEC-WTF.md applied to the
                            model), then checked against wtfpy's decoding
The expected clause IDs are written by hand, case by case, from
conformance/SPEC-WTF.md; conformance/tests/run_corpus.py checks them against
wtfpy's validator and the C one.

Cases modelled on real writers: the JS library tracing-framework 2015.7.15
(version 0x90BA3800, its file-header JSON, built-in defines under wire ids
1..17 in its event-header chunk, user events from 29 defined again in the
ring chunks, chunk ids from a process-wide counter, start/end 0xFFFFFFFF,
zone#set at the start of later ring chunks) and the C++ bindings (version
0xE8214400, chunk ids 1 and 2).

Deterministic: one random.Random per case seeded by its name, no time,
sorted output. Standard library only (Debian's /usr/bin/python3).
"""

import json
import os
import random
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [HERE, os.path.join(REPO, "conformance", "gen")]

from tracepy.corpus import (EXPECT_SCHEMA, Expectation, collect_cases,  # noqa: E402
                            generator_main, readme_classes, readme_file_end, write_file_corpus)
from wtfpy.reader import READABLE_ARRAYS  # noqa: E402
from wtfpy import wire  # noqa: E402
from wtfpy.dump import dump_lines  # noqa: E402
from wtfpy.model import cut_trace  # noqa: E402
from wtfpy.reader import read_trace  # noqa: E402
from wtfpy.wire import (CHUNK_EVENT_DATA, CHUNK_FILE_HEADER, PART_BINARY_EVENTS,  # noqa: E402
                        PART_BINARY_RESOURCE, PART_FILE_HEADER, PART_JSON_EVENTS,
                        PART_LEGACY_EVENTS, PART_STRING_RESOURCE, PART_STRING_TABLE, p32)
from wtfpy.writer import CPP, JS, TraceWriter, build_chunk  # noqa: E402

DEFAULT_OUT = os.path.join(REPO, "corpus", "wtf")
SPEC = os.path.join(REPO, "conformance", "SPEC-WTF.md")
TARGET = "trace.wtf-trace"
REC = "WTF-REC-001"


# ---- Cases ------------------------------------------------------------------------

class Case(Expectation):
    """One corpus case: the file's bytes, the model the expected dump comes
    from (None for rejected cases), and the expected verdict."""
    REC = REC

    def __init__(self, name, data, model, description, *, errors=(), warnings=(), why=None,
                 allowed_extra=()):
        self.expectation(name, description, errors, warnings, why, allowed_extra)
        self.data, self.model = data, model
        if not self.errors and model is None:
            raise ValueError("%s: an accepted case needs a model for its dump" % name)

    def recovered(self):
        if REC not in self.warnings:
            return {}
        return {TARGET: len(self.model.events) if self.model is not None else 0}

    def expect(self):
        return self.expect_object(TARGET, self.recovered())


CASES = []


def add(name, data, model, description, **kw):
    if any(c.name == name for c in CASES):
        raise ValueError("duplicate case %s" % name)
    CASES.append(Case(name, data, model, description, **kw))


def R(name):
    return random.Random("wtf-corpus:" + name)


# ---- Writers like the real ones -------------------------------------------------------

def js_header(timebase=11446473.00601, uri="/srv/app/main.js", flags=("has_high_resolution_times",)):
    """The file-header JSON of the JS library under node, key for key."""
    return [("type", "file_header"), ("flags", list(flags)), ("timebase", timebase),
            ("contextInfo", {"contextType": "script", "uri": uri, "title": "main", "icon": None,
                             "taskId": "30417", "args": ["/usr/bin/node", uri],
                             "userAgent": {"value": "", "type": "nodejs", "platform": "linux",
                                           "platformVersion": "v20.20.2",
                                           "device": "server"}}),
            ("metadata", {"nowTimeNs": 32})]


def plain_header(timebase=1700000000000.5, flags=(), uri="file:///srv/trace"):
    return [("flags", list(flags)), ("timebase", timebase),
            ("contextInfo", {"contextType": "script", "uri": uri})]


USER_EVENTS = (  # name, signature, class, JS wire id
    ("app#outer", "uint32 n", 1, 29),
    ("app#inner", "int32 depth, ascii tag", 1, 30),
    ("app#tick", "uint32 i", 0, 31),
    ("app#noArgs", None, 1, 32),
)


def js_snapshot(rng, ring=3, per_chunk=12, open_scopes=0, uri="/srv/app/main.js",
                header=None, user_events=USER_EVENTS):
    """A snapshot as the JS library writes it: the file-header chunk, the
    "event header" chunk (every built-in and user define at the snapshot's
    time, then zone 1 created and set at time 0), then the ring's chunks,
    oldest first, each user event defined again where it was registered and
    every ring chunk after the first starting with wtf.zone#set. Chunk ids
    from a process-wide counter: the ring's 1..ring, then the header's."""
    w = TraceWriter(flavor=JS, header=header or js_header(uri=uri), header_chunk_id=ring + 1)
    snap = 48000 + rng.randrange(1000)
    for k, b in enumerate(wire.BUILTINS):
        w.builtin(b[1], snap + k)
    ids = {}
    for name, sig, cls, wid in user_events:
        ids[name] = w.define(name, sig, cls, 0, snap + 20, wire_id=wid)
    w.zone_create(1, "Script", "script", uri, 0)
    w.zone_set(1, 0)
    w.end_chunk(id=ring + 2)
    t = 7800 + rng.randrange(100)
    depth = 0
    for c in range(ring):
        if c == 0:
            for name, _, _, _ in user_events:
                t += rng.randrange(1, 40)
                w.redefine(ids[name], t)
        else:
            w.zone_set(1, t)
        for i in range(per_chunk):
            t += rng.randrange(1, 60)
            k = rng.random()
            last_chunk = c == ring - 1 and i >= per_chunk - 4
            if depth and (k < 0.25 or (last_chunk and depth > open_scopes)):
                w.leave(t)
                depth -= 1
            elif k < 0.45 and not last_chunk:
                w.event(ids["app#outer"], t, rng.randrange(1000))
                depth += 1
            elif k < 0.6 and not last_chunk:
                w.event(ids["app#inner"], t, depth, "level%d" % depth)
                depth += 1
            elif k < 0.7:
                w.time_stamp("frame", str(i), t)
            elif k < 0.8:
                w.event(w.builtin("wtf.trace#mark"), t, "mark%d" % i, '{"frame":%d}' % i)
            else:
                w.event(ids["app#tick"], t, i)
        while c == ring - 1 and depth > open_scopes:
            t += 3
            w.leave(t)
            depth -= 1
        w.end_chunk(id=c + 1)
    return w


def js_ring(rng, chunks=4, per_chunk=20, drop=0):
    """A JS-library snapshot of a ring of small chunks holding only
    ring#scope(uint32 i) scopes and their leaves: a chunk without strings has
    an empty string table at part offset 0, sharing it with its event buffer,
    as the library writes it. ``drop`` ring chunks are overwritten (the ring
    wrapped): the oldest kept chunk may then leave a scope entered in a chunk
    that is gone."""
    w = TraceWriter(flavor=JS, header=js_header(uri="/srv/ring.js"),
                    header_chunk_id=chunks + drop + 1)
    snap = 9000 + rng.randrange(100)
    for k, b in enumerate(wire.BUILTINS):
        w.builtin(b[1], snap)
    scope = w.define("ring#scope", "uint32 i", wire.CLASS_SCOPE, 0, snap, wire_id=29)
    w.zone_create(1, "Script", "script", "/srv/ring.js", 0)
    w.zone_set(1, 0)
    w.end_chunk(id=chunks + drop + 2)
    t, i, depth = 100, 0, 0
    body = []                        # per ring chunk: [(kind, time, i)]
    for c in range(chunks + drop):
        evs = []
        for _ in range(per_chunk):
            t += rng.randrange(1, 5)
            if depth and (rng.random() < 0.5 or depth > 2):
                evs.append(("leave", t, None))
                depth -= 1
            else:
                evs.append(("enter", t, i))
                i += 1
                depth += 1
        body.append(evs)
    while depth:
        t += 1
        body[-1].append(("leave", t, None))
        depth -= 1
    kept = body[drop:]
    for c, evs in enumerate(kept):
        if c or drop:
            w.zone_set(1, evs[0][1])
        for kind, tt, n in evs:
            if kind == "enter":
                w.event(scope, tt, n)
            else:
                w.event(w.builtin("wtf.scope#leave"), tt)
        w.end_chunk(id=drop + c + 1)
    return w


def cpp_trace(rng, n=30, chunk_bytes=160):
    """The C++ bindings' form: version 0xE8214400, chunk ids 1 (header) and 2
    (every event chunk); here every chunk repeats the defines it needs."""
    w = TraceWriter(flavor=CPP, header=plain_header(1700000000123.25, ["has_high_resolution_times"],
                                                    "native://demo"), chunk_bytes=chunk_bytes)
    w.zone_create(1, "Native", "native", "demo", 0)
    w.zone_set(1, 0)
    frame = w.define("demo#frame", "uint32 number, float32 load", wire.CLASS_SCOPE, 0)
    io = w.define("demo#io", "ascii path, int32 bytes", 0, wire.FLAG_HIGH_FREQUENCY)
    t = 100
    for i in range(n):
        t += rng.randrange(1, 300)
        w.event(frame, t, i, wire.f32(rng.random()))
        t += rng.randrange(1, 30)
        w.event(io, t, "/data/file%d" % rng.randrange(5), rng.randrange(-5, 1 << 20))
        t += rng.randrange(1, 30)
        w.leave(t)
    return w


def small(chunks=2, flavor=JS, header=None, scope=True):
    """A small valid file: the header chunk and ``chunks`` event chunks (ids
    2, 3, ...), zone 1, instance events and (``scope``) one scope closed in
    the last chunk."""
    w = TraceWriter(flavor=flavor, header=header or plain_header())
    w.zone_create(1, "Script", "script", "/srv/app.js", 0)
    w.zone_set(1, 0)
    tick = w.define("app#tick", "uint32 i, ascii tag", 0, 0, 5)
    t = 10
    for c in range(chunks):
        for i in range(4):
            w.event(tick, t, i + 4 * c, "t%d" % (i + 4 * c))
            t += 1
        if scope and c == chunks - 1:
            outer = w.define("app#outer", "uint32 n", wire.CLASS_SCOPE, 0, t)
            w.event(outer, t + 1, 7)
            w.event(tick, t + 2, 99, "inner")
            w.leave(t + 3)
            t += 4
        w.end_chunk(id=c + 2)
    return w


def finished(w):
    return w.finish(), w.trace


# ---- Byte surgery ----------------------------------------------------------------------

def put32(data, off, v):
    b = bytearray(data)
    b[off:off + 4] = p32(v)
    return bytes(b)


def part_entry(ci, k):
    """File offset of part k's entry (type, offset, length) in chunk ``ci``."""
    return ci.offset + 24 + 12 * k


def part_of(ci, ptype):
    return next(k for k, p in enumerate(ci.header.parts) if p.type == ptype)


def event_of(model, name, n=0, chunk=None):
    evs = [e for e in model.events if e.name == name.encode() and
           (chunk is None or e.chunk == chunk)]
    return evs[n]


# ---- y_: valid files ---------------------------------------------------------------------

def valid_cases():
    r = R("y_js_snapshot")
    w = js_snapshot(r, ring=3)
    add("y_js_snapshot", *finished(w), "a snapshot as the JS library (2015.7.15) writes it: "
        "version 0x90BA3800, its file-header JSON, the event-header chunk with the 17 built-in "
        "defines and the user defines at the snapshot's time, zone 1 created and set at time 0, "
        "three ring chunks (ids 1, 2, 3 after the header's 4 and 5) defining the user events "
        "again, start/end 0xFFFFFFFF")
    r = R("y_js_snapshot_many_chunks")
    w = js_snapshot(r, ring=8, per_chunk=30)
    add("y_js_snapshot_many_chunks", *finished(w), "a JS-library snapshot of eight ring chunks "
        "(every later chunk starts with wtf.zone#set of the current zone)")
    r = R("y_cpp_bindings")
    add("y_cpp_bindings", *finished(cpp_trace(r)), "the C++ bindings' form: version 0xE8214400, "
        "header chunk id 1, every event chunk id 2, chunk start/end from the events' times, "
        "defines repeated in each chunk")

    r = R("y_js_ring_chunks_without_strings")
    add("y_js_ring_chunks_without_strings", *finished(js_ring(r)), "a JS-library ring of four "
        "chunks of scope events only: each ring chunk's empty string table and its event "
        "buffer both sit at part offset 0 (as the library writes them; not an overlap)")

    w = TraceWriter(header=plain_header())
    add("y_header_chunk_only", *finished(w), "the file header and the file-header chunk, no "
        "event chunk (a snapshot of nothing)")

    w = TraceWriter(header=plain_header())
    w.zone_create(1, "thread_0", "native_script", "t0", 0)
    w.zone_set(1, 1)
    w.zone_delete(1, 2)
    w.zone_create(1, "thread_1", "native_script", "t1", 3)
    w.zone_set(1, 3)
    add("y_zon_id_used_again_after_delete", *finished(w), "zone 1 created as \"thread_0\", "
        "deleted, then created as \"thread_1\": after wtf.zone#delete an id may name another "
        "zone (W-E19; atf export does so past 65534 threads), not WTF-ZON-002")

    w = TraceWriter(header=plain_header())
    types = [t for t in wire.TYPES]
    scal = w.define("types#scalars", ", ".join("%s v%s" % (t, t) for t in types), 0, 0, 1)
    # Arrays of the types the reference reads (the others: i_def_008_unreadable_arrays).
    arr_types = [t for t in types if t in READABLE_ARRAYS]
    arrs = w.define("types#arrays", ", ".join("%s[] a%s" % (t, t) for t in arr_types), 0, 0, 2)
    w.zone_create(1, "Script", "script", "/srv/t.js", 3)
    w.zone_set(1, 3)
    lo = {"bool": False, "int8": -128, "uint8": 0, "int16": -32768, "uint16": 0,
          "int32": -2 ** 31, "uint32": 0, "float32": -0.0, "flowId": 0, "time32": 0,
          "ascii": "", "utf8": "caf\u00e9 \u4e2d\U0001f600", "any": '{"k":[1,2.5,{"x":null}]}',
          "char": 0, "wchar": 0}
    hi = {"bool": True, "int8": 127, "uint8": 255, "int16": 32767, "uint16": 65535,
          "int32": 2 ** 31 - 1, "uint32": 2 ** 32 - 1, "float32": 3.4028234663852886e+38,
          "flowId": 2 ** 32 - 1, "time32": 4294967295, "ascii": 'quote " back \\ tab \t nl \n',
          "utf8": None, "any": None, "char": 255, "wchar": 0xFFFF}
    odd = {"bool": True, "int8": -1, "uint8": 128, "int16": -1, "uint16": 32768, "int32": -1,
           "uint32": 2 ** 31, "float32": 1.401298464324817e-45, "flowId": 7, "time32": 12345,
           "ascii": "\x01\x1f\x7f", "utf8": "", "any": '"str"', "char": 65, "wchar": 0xD83D}
    specials = {"float32": [float("nan"), float("inf"), float("-inf"), wire.f32(0.1), 1.5e-39,
                            16777217.0, 1e30]}
    for k, vals in enumerate((lo, hi, odd)):
        w.event(scal, 10 + k, *[vals[t] for t in types])
    w.event(arrs, 20, *[[lo[t], hi[t], odd[t]] + specials.get(t, []) for t in arr_types])
    w.event(arrs, 21, *[[] for t in arr_types])
    w.event(arrs, 22, *[None for t in arr_types])
    w.event(arrs, 23, *[[odd[t]] for t in arr_types])
    w.event(scal, 24, *[odd[t] if t not in ("any",) else
                        '{"dup":1,"b":[true,false,null],"dup":{"deep":[-0.0,1.5e300,0.1,'
                        '-7]},"u":"\\u00e9\\ud83d\\ude00\\/"}' for t in types])
    add("y_evt_every_type", *finished(w), "every argument type of SPEC-WTF 4.1 (char and wchar "
        "included), scalars and arrays, at their extremes: int8 -128, uint32 0xFFFFFFFF, "
        "float32 -0, NaN, infinities, the smallest denormal, 16777217 rounded, strings with "
        "escapes and UTF-8 up to U+1F600, null and empty strings, null and empty arrays (of the "
        "nine array types the reference reads), an any value with a duplicate key and exponents")
    w = TraceWriter(header=plain_header())
    odd_types = [t for t in types if t not in READABLE_ARRAYS]
    ev = w.define("types#odd_arrays", ", ".join("%s[] a%s" % (t, t) for t in odd_types), 0, 0, 1)
    w.event(ev, 2, *[[lo[t], hi[t], odd[t]] for t in odd_types])
    w.event(ev, 3, *[None for t in odd_types])
    add("i_def_008_unreadable_arrays", *finished(w), "arrays of bool, flowId, time32, ascii, "
        "utf8 and any: read here (1 or 4 bytes an element, strings as ordinals), not by the "
        "reference library (W-E18)", warnings=["WTF-DEF-008"],
        why="a SHOULD rule of SPEC-WTF.md: reported as a warning, accepted unless --strict")

    w = TraceWriter(header=plain_header())
    ev = w.define("json#edge", "any v", 0, 0, 1)
    for k, text in enumerate(('12345678901234567890', '"nul \\u0000 in"',
                              '{"a":{"a":{"a":[[[[]]]]}}}', ' 7 ', '"pair \\ud83d\\ude00"')):
        w.event(ev, 2 + k, text)
    add("i_evt_005_any_json_edges", *finished(w), "any arguments at the edge of what JSON "
        "parsers take: an integer beyond 2^64 (a double holds it, rounded), \\u0000 in a "
        "string, nesting, blanks around a value, an escaped surrogate pair",
        why="docs/wtf-dump-format.md reads every number as a double and allows \\u0000: all "
        "are JSON text, not WTF-EVT-005; the dump writes the integer by the number rule")
    for name, text, what in (("n_evt_005_any_beyond_double", '[1e400]', "a number beyond a "
                              "double's range (1e400)"),
                             ("n_evt_005_any_lone_surrogate", '"lone \\ud800 surrogate"',
                              "a lone surrogate escape")):
        w = TraceWriter(header=plain_header())
        ev = w.define("json#edge", "any v", 0, 0, 1)
        w.event(ev, 2, text)
        add(name, w.finish(), None, "an any argument holding %s: valid by RFC 8259's grammar, "
            "not JSON text as docs/wtf-dump-format.md reads it (as a double; no lone "
            "surrogates)" % what, errors=["WTF-EVT-005"])

    w = TraceWriter(header=plain_header())
    ev = w.define("slots#narrow", "bool b, int8 i, uint8 u, int16 s, uint16 w, char c, wchar x, "
                  "int8[] a, uint16[] h", 0, 0, 1)
    w.event(ev, 2, True, -5, 200, -300, 60000, 66, 0x4E2D, [1, -2, 3], [7])
    data, model = finished(w)
    e = model.events[-1]
    b = bytearray(data)
    for k in range(7):                     # the unused bytes of each narrow slot
        slot = e.offset + 8 + 4 * k
        used = (1, 1, 1, 2, 2, 1, 2)[k]
        b[slot + used:slot + 4] = b"\xa5" * (4 - used)
    b[e.offset + 8 + 28 + 4 + 3] = 0x5A    # int8[3]: the padding byte after 3 elements
    b[e.offset + 8 + 36 + 4 + 2:e.offset + 8 + 36 + 4 + 4] = b"\xee\xee"   # uint16[1]
    add("y_evt_slot_bytes_ignored", bytes(b), model, "the unused bytes of narrow argument slots "
        "and of array padding are not zero (the JS writer reuses its buffers without clearing "
        "them): readers ignore them (SPEC-WTF 4.1, W-E10)")

    w = TraceWriter(header=plain_header())
    w.zone_create(1, "A", "script", "a.js", 0)
    w.zone_create(2, "B", "worker", "b.js", 0)
    w.zone_set(2, 0)
    ev = w.define("app#work", "uint32 step", 1, 0, 1)
    w.event(ev, 2, 1)
    w.end_chunk(id=7)
    w.event(ev, 3, 2)           # defined in chunk 1, used in chunk 2 (W-E6)
    w.zone_set(1, 4)
    w.event(ev, 5, 3)
    w.leave(6)
    w.end_chunk(id=7)
    w.zone_set(2, 7)            # zone 2 is current again: its two scopes close here
    w.leave(8)
    w.leave(9)
    w.end_chunk(id=7)
    add("y_zones_and_defines_across_chunks", *finished(w), "definitions and zones made in one "
        "chunk are used in later ones (W-E6); scopes open in zone 2 and close after a switch "
        "to zone 1 and back; every chunk id is 7")

    w = small(3, flavor=CPP)
    add("y_chunk_times_set", *finished(w), "event chunks whose start and end are their events' "
        "first and last time (WTF-EVT-007 holds)")

    w = TraceWriter(header=plain_header(flags=["times_as_count"]))
    ev = w.define("count#tick", "uint32 n", 0, 0, 0)
    for i in range(5):
        w.event(ev, i + 1, i)
    add("y_fh_times_as_count", *finished(w), "the header flag times_as_count: times are counts")

    w = TraceWriter(flavor=JS, header=plain_header())
    ev = w.define("app#x", None, 0, 0, 1)
    ev2 = w.define("app#y", "", 0, 0, 2)
    w.event(ev, 3)
    w.event(ev2, 4)
    add("y_def_null_and_empty_args", *finished(w), "defines without arguments: args as the null "
        "ordinal (what the JS library writes) and as the empty string (W-E8)")

    w = TraceWriter(header=plain_header())
    sc = w.define("deep#s", "", wire.CLASS_SCOPE, 0, 0)
    for i in range(1024):
        w.event(sc, i + 1)
    for i in range(1024):
        w.leave(2000 + i)
    add("y_sco_depth_1024", *finished(w), "scopes nested exactly 1024 deep (WTF-SCO-003's limit), "
        "all closed")

    w = TraceWriter(header=plain_header(), wtf_version=0xFFFFFFFF)
    add("y_hdr_wtf_version_any", *finished(w), "WTF version 0xFFFFFFFF: any version is read "
        "(the reference reader compares it with a 64-bit value it never reaches)")

    w = TraceWriter(header=plain_header())
    ev = w.define("res#load", "uint32 resource", 0, 0, 1)
    w.event(ev, 2, 0)
    w.event(ev, 3, 1)
    w.end_chunk(order=("table", "events", "extra"),
                extra_parts=[(PART_BINARY_RESOURCE, bytes(range(256)) * 5),
                             (PART_STRING_RESOURCE, "r\u00e9sum\u00e9 of 13".encode())])
    add("y_resource_parts", *finished(w), "an event chunk with a binary resource (0x40000) and a "
        "string resource (0x40001, 14 bytes, padded) after its event buffer")

    w = TraceWriter(header=plain_header())
    ev = w.define("app#n", "ascii s", 0, 0, 1)
    w.end_chunk(force=True)
    w.end_chunk(force=True, order=("events",))
    w.event(ev, 2, None)
    w.end_chunk(order=("events",))
    add("y_evc_empty_and_tableless", *finished(w), "an event chunk holding only the define, an "
        "event chunk with an empty buffer and no string table, and one without a string table "
        "whose event's string is null")

    w = TraceWriter(header=plain_header())
    for b in ("wtf.trace#discontinuity", "wtf.scope#enterTracing", "wtf.scope#enter",
              "wtf.scope#appendData", "wtf.flow#branch", "wtf.flow#extend",
              "wtf.flow#appendData", "wtf.flow#terminate", "wtf.trace#mark",
              "wtf.trace#timeStamp", "wtf.timeRange#begin", "wtf.timeRange#end",
              "wtf.zone#create", "wtf.zone#set", "wtf.zone#delete", "wtf.scope#leave"):
        w.builtin(b, 1)
    bi = lambda n: w.builtin(n)  # noqa: E731
    w.zone_create(3, "Page", "script", "https://example.org/", 2)
    w.zone_set(3, 2)
    w.event(bi("wtf.trace#discontinuity"), 3)
    w.event(bi("wtf.scope#enterTracing"), 4)
    w.event(bi("wtf.scope#enter"), 5, "render")
    w.event(bi("wtf.scope#appendData"), 6, "count", "12")
    w.event(bi("wtf.flow#branch"), 7, 1, 0, "xhr", '{"url":"/a"}')
    w.event(bi("wtf.flow#extend"), 8, 1, "sent", None)
    w.event(bi("wtf.flow#appendData"), 9, 1, "status", "200")
    w.event(bi("wtf.flow#terminate"), 10, 1, "true")
    w.event(bi("wtf.trace#mark"), 11, "frame", '{"n":1}')
    w.event(bi("wtf.trace#timeStamp"), 12, "tick", None)
    w.event(bi("wtf.timeRange#begin"), 13, 5, "load", "[1,2]")
    w.event(bi("wtf.timeRange#end"), 14, 5)
    w.leave(15)
    w.leave(16)
    w.event(bi("wtf.zone#delete"), 17, 3)
    add("y_builtins", *finished(w), "every built-in event of SPEC-WTF 4.2-4.4, defined with the "
        "JS library's wire ids, flags and classes and used once")

    w = TraceWriter(header=js_header())
    for name, sig, cls, wid in USER_EVENTS:
        w.define(name, sig, cls, 0, 1, wire_id=wid)
    w.event(31, 2, 1)
    add("y_def_wire_id_gaps", *finished(w), "user wire ids from 29, as the JS library numbers "
        "them: 2..28 are never defined (and never used)")


# ---- n_: invalid files -----------------------------------------------------------------

def odd_header():
    """plain_header() with a uri that makes its JSON's length 4k + 2."""
    uri = "file:///srv/trace"
    while len(json.dumps(dict(plain_header(uri=uri)), separators=(",", ":"))) % 4 != 2:
        uri += "x"
    return plain_header(uri=uri)


def invalid_cases():
    data, m = finished(small(header=odd_header()))
    c1 = m.chunks[1]
    c2 = m.chunks[2]

    def N(name, d, desc, errors, **kw):
        add(name, d, None, desc, errors=errors, **kw)

    N("n_hdr_001_bad_magic", put32(data, 0, 0xDEADBEEE), "magic 0xDEADBEEE", ["WTF-HDR-001"])
    N("n_hdr_001_legacy_format", p32(wire.MAGIC_LEGACY) + bytes.fromhex("00000003") +
      data[8:], "the legacy big-endian format (magic bytes DE AD BE EF, format 3): recognised, "
      "not read (W-E15)", ["WTF-HDR-001"])
    N("n_hdr_001_json_form", b'{"wtf_version":2428123136,"format_version":10,"chunks":[]}\n',
      "the JSON (COMPLETE) form of the seed: recognised, not read (W-E15)", ["WTF-HDR-001"])
    N("n_hdr_001_short_not_wtf", b"WTF\n", "a 4-byte file that is not the start of a WTF header",
      ["WTF-HDR-001"])
    N("n_hdr_002_format_3", put32(data, 8, 3), "format version 3 (BinaryTrace.VERSION, the "
      "seed's value) with the chunked format's magic (W-E1)", ["WTF-HDR-002"])
    N("n_hdr_002_format_11", put32(data, 8, 11), "format version 11", ["WTF-HDR-002"])

    N("n_chk_001_length_20", put32(data, c1.offset + 8, 20), "chunk 1's length is 20 (less than "
      "its 24-byte header): nothing from it on is read", ["WTF-CHK-001"])
    N("n_chk_001_length_short_of_table", put32(data, c1.offset + 8, 24 + 12),
      "chunk 1's length holds its header and one of its two part entries", ["WTF-CHK-001"])
    h0 = m.chunks[0]
    N("n_chk_002_length_unaligned", put32(data, h0.offset + 8, h0.header.length - 2),
      "the header chunk's length is 2 short of its padded size and not a multiple of 4: the "
      "next chunk cannot be placed, nothing after the header chunk is read", ["WTF-CHK-002"])
    N("n_chk_003_length_past_end", put32(data, c1.offset + 8, 1 << 20),
      "chunk 1's length says 1 MiB, past the end of the file, while its parts end inside the "
      "file and chunk 2 follows: a wrong length, not a crash", ["WTF-CHK-003"])
    k = part_of(c1, PART_BINARY_EVENTS)
    eb = c1.header.parts[k]
    d = put32(put32(data, part_entry(c1, k) + 4, eb.offset + 2), part_entry(c1, k) + 8,
              eb.length - 4)
    N("n_chk_004_part_offset_unaligned", d, "chunk 1's event buffer starts at part offset %d "
      "(not a multiple of 4; its length shortened so that it still fits): chunk 1 is not read, "
      "chunk 2 is, up to its first use of a define made in chunk 1" % (eb.offset + 2),
      ["WTF-CHK-004", "WTF-EVT-001"])
    N("n_chk_005_part_past_chunk", put32(data, part_entry(c1, k) + 8, eb.length + 8),
      "chunk 1's event buffer length runs 8 bytes past its chunk: chunk 1 is not read, chunk 2 "
      "is, up to its first use of a define made in chunk 1", ["WTF-CHK-005", "WTF-EVT-001"])
    st = part_of(c1, PART_STRING_TABLE)
    d = put32(data, part_entry(c1, st) + 8, c1.header.parts[st].length + 8)
    N("n_chk_006_parts_overlap", d, "chunk 1's string table length overlaps the event buffer "
      "that follows it: chunk 1 is not read, chunk 2 is, up to its first use of a define made "
      "in chunk 1", ["WTF-CHK-006", "WTF-EVT-001"])
    w = TraceWriter(header=plain_header())
    ev = w.define("app#a", "uint32 x", 0, 0, 1)
    w.event(ev, 2, 3)
    w.end_chunk(order=("table", "events", "extra"),
                extra_parts=[(PART_BINARY_RESOURCE, b"r%02d" % i) for i in range(63)])
    N("n_chk_006_65_parts", w.finish(), "an event chunk listing 65 parts (a string table, an "
      "event buffer and 63 resources; the limit is 64, W-E14)", ["WTF-CHK-006"])

    w = TraceWriter(header=plain_header())
    ev = w.define("app#a", "uint32 x", 0, 0, 1)
    w.event(ev, 2, 3)
    w.finish()
    raw = w.out
    first = w.trace.chunks[1]
    hdr = w.trace.chunks[0]
    N("n_fh_001_event_chunk_first", bytes(raw[:12] + raw[first.offset:]), "the file header is "
      "followed directly by an event chunk: no file-header chunk", ["WTF-FH-001"])
    N("n_fh_001_header_chunk_type_2", put32(bytes(raw), hdr.offset + 4, 2),
      "the first chunk holds the file-header part but says type 2", ["WTF-FH-001", "WTF-EVC-001"])

    def with_header(json_text, parts=None, **kw):
        w = TraceWriter(header=json_text, header_parts=parts, **kw)
        ev = w.define("app#a", "uint32 x", 0, 0, 1)
        w.event(ev, 2, 3)
        return w.finish()

    hj = json.dumps(dict(plain_header())).encode()
    N("n_fh_002_no_header_part", with_header(hj, parts=[(PART_STRING_RESOURCE, hj)]),
      "the file-header chunk holds a string resource instead of a file-header part",
      ["WTF-FH-002"], warnings=["WTF-EVC-006"])
    N("n_fh_002_two_header_parts", with_header(hj, parts=["header", "header"]),
      "the file-header chunk holds two file-header parts", ["WTF-FH-002"])
    N("n_fh_003_not_json", with_header(b'{"timebase":1,'), "the file-header part is cut JSON",
      ["WTF-FH-003"])
    N("n_fh_003_array", with_header(b"[1,2]"), "the file-header part is a JSON array",
      ["WTF-FH-003"])
    N("n_fh_003_not_utf8", with_header(hj.replace(b"file:///srv/trace", b"file:///\xff")),
      "the file-header JSON holds a byte 0xFF (not UTF-8)", ["WTF-FH-003"])
    N("n_fh_003_nan", with_header(hj.replace(b"1700000000000.5", b"NaN")),
      "the file-header's timebase is NaN, which JSON does not have", ["WTF-FH-003"])
    N("n_fh_004_no_timebase", with_header(json.dumps(
        {"flags": [], "contextInfo": {"contextType": "script", "uri": "x"}}).encode()),
      "the file header has no timebase", ["WTF-FH-004"])
    N("n_fh_004_timebase_string", with_header(hj.replace(b"1700000000000.5", b'"1700000000000"')),
      "the file header's timebase is a string", ["WTF-FH-004"])
    N("n_fh_005_flags_string", with_header(hj.replace(b'"flags": []', b'"flags": "times_as_count"')),
      "the file header's flags is a string, not an array", ["WTF-FH-005"])
    N("n_fh_005_flag_number", with_header(hj.replace(b'"flags": []', b'"flags": [2]')),
      "the file header's flags array holds a number", ["WTF-FH-005"])
    N("n_fh_007_no_context", with_header(b'{"flags":[],"timebase":0}'),
      "the file header has no contextInfo", ["WTF-FH-007"])
    N("n_fh_007_uri_number", with_header(hj.replace(b'"file:///srv/trace"', b"7")),
      "contextInfo.uri is a number", ["WTF-FH-007"])

    w = TraceWriter(header=plain_header())
    ev = w.define("app#a", "uint32 x", 0, 0, 1)
    w.event(ev, 2, 3)
    w.end_chunk()
    w.event(ev, 3, 4)
    w.end_chunk(order=("table",))
    N("n_evc_001_no_event_buffer", w.finish(), "the second event chunk holds a string table and "
      "no event buffer", ["WTF-EVC-001"])
    w = TraceWriter(header=plain_header())
    ev = w.define("app#a", "uint32 x", 0, 0, 1)
    w.event(ev, 2, 3)
    w.end_chunk(order=("table", "events", "extra"), extra_parts=[(PART_JSON_EVENTS, b"[]")])
    N("n_evc_001_two_event_buffers", w.finish(), "an event chunk with a binary and a JSON event "
      "buffer", ["WTF-EVC-001"], warnings=["WTF-EVC-003"])
    w = TraceWriter(header=plain_header())
    ev = w.define("app#a", "ascii s", 0, 0, 1)
    w.event(ev, 2, "x")
    tbl = b"app#a\0ascii s\0x\0"
    w.end_chunk(order=("table", "extra", "events"), extra_parts=[(PART_STRING_TABLE, tbl)])
    N("n_evc_002_two_string_tables", w.finish(), "an event chunk with two (identical) string "
      "tables", ["WTF-EVC-002"])
    k2 = part_of(c2, PART_BINARY_EVENTS)
    tb2 = c2.header.parts[part_of(c2, PART_STRING_TABLE)]
    eb2 = c2.header.parts[k2]
    rebuilt = build_chunk(c2.header.id, CHUNK_EVENT_DATA, [
        (PART_STRING_TABLE, data[tb2.file_offset:tb2.file_offset + tb2.length]),
        (PART_BINARY_EVENTS, data[eb2.file_offset:eb2.file_offset + eb2.length] + b"\0\0")],
        c2.header.start, c2.header.end)
    N("n_evc_004_buffer_length_unaligned", data[:c2.offset] + rebuilt, "the last chunk's event "
      "buffer holds its events and 2 more zero bytes (length 4k + 2, padded): not a multiple "
      "of 4, and 2 bytes that cannot hold an event", ["WTF-EVC-004", "WTF-EVT-002"])

    tick = event_of(m, "app#tick", 1)
    N("n_evt_001_undefined_wire_id", put32(data, tick.offset, 77), "an event of wire id 77, "
      "never defined: the rest of its chunk is not read (the next chunk is)", ["WTF-EVT-001"])
    N("n_evt_001_wire_id_0", put32(data, tick.offset, 0), "an event of wire id 0", ["WTF-EVT-001"])
    d = put32(data, part_entry(c2, k2) + 8, c2.header.parts[k2].length - 4)
    N("n_evt_002_args_past_buffer", d, "the last chunk's event buffer length is 4 short: the "
      "last event's argument lies outside it", ["WTF-EVT-002"], warnings=["WTF-CHK-011"])
    N("n_evt_003_ordinal_past_table", put32(data, tick.offset + 12, 500), "a string ordinal "
      "(500) past the chunk's string table", ["WTF-EVT-003"])
    last_tick = event_of(m, "app#tick", 0, chunk=2)
    n2 = len(c2.strings)
    N("n_evt_003_ordinal_of_other_chunk", put32(data, last_tick.offset + 12, n2 + 1),
      "a string ordinal valid in chunk 1's table but past chunk 2's (content never references "
      "another chunk)", ["WTF-EVT-003"])
    w = TraceWriter(header=plain_header())
    ev = w.define("arr#a", "int16[] v, uint32 after", 0, 0, 1)
    e = w.event(ev, 2, [1, 2, 3], 9)
    d, mm = finished(w)
    e = mm.events[-1]
    N("n_evt_004_array_count_minus_2", put32(d, e.offset + 8, 0xFFFFFFFE), "an array whose "
      "element count is -2", ["WTF-EVT-004"])
    N("n_evt_002_array_count_huge", put32(d, e.offset + 8, 0x7FFFFFFF), "an array of 2^31-1 "
      "int16 elements in a 20-byte event", ["WTF-EVT-002"])
    w = TraceWriter(header=plain_header())
    w.time_stamp("bad", "{not json", 1)
    w.time_stamp("good", "1", 2)
    N("n_evt_005_any_not_json", w.finish(), "an any argument whose string is not JSON", [
        "WTF-EVT-005"])
    w = TraceWriter(header=plain_header())
    w.time_stamp("empty", wire.STRING_EMPTY, 1)
    N("n_evt_005_any_empty_ordinal", w.finish(), "an any argument written as the empty-string "
      "ordinal 0xFFFFFFFE (the empty string is not JSON)", ["WTF-EVT-005"])
    w = small(2, flavor=CPP)
    d, mm = finished(w)
    cc = mm.chunks[1]
    N("n_evt_007_time_outside_chunk", put32(d, cc.offset + 16, cc.header.end - 1),
      "chunk 1's end is one less than its last event's time", ["WTF-EVT-007"])

    def define_case(name, desc, values, errors, warnings=(), use=False):
        w = TraceWriter(header=plain_header())
        w.builtin("wtf.event#define")
        ok = w.define("app#ok", "uint32 x", 0, 0, 1)
        w._emit(wire.DEFINE_EVENT, 2, values)
        w.event(ok, 3, 1)
        if use:
            w.buf += p32(values[0]) + p32(4)
            w.times.append(4)
        N(name, w.finish(), desc, errors, warnings=warnings)

    define_case("n_def_001_unknown_type", "a define whose signature has the type uint64 (the "
                "format has no 64-bit types)", [40, 0, 0, "app#bad", "uint64 big"],
                ["WTF-DEF-001"])
    define_case("n_def_001_duplicate_name", "a define naming an argument twice",
                [40, 0, 0, "app#bad", "uint32 a, int8 a"], ["WTF-DEF-001"])
    define_case("n_def_001_missing_name", "a define with an argument type and no name",
                [40, 0, 0, "app#bad", "uint32 a, ascii"], ["WTF-DEF-001"])
    define_case("n_def_001_trailing_comma", "a define whose signature ends in a comma (SPEC-WTF "
                "4.2: an argument must follow)", [40, 0, 0, "app#bad", "uint32 a,"], ["WTF-DEF-001"])
    define_case("n_def_001_65_args", "a define of 65 arguments (the limit is 64, W-E14)",
                [40, 0, 0, "app#bad", ", ".join("uint8 a%d" % i for i in range(65))],
                ["WTF-DEF-001"])
    define_case("n_def_001_then_used", "a define with an unknown type, then an event of its "
                "wire id: the define does not count (WTF-EVT-001 too)",
                [40, 0, 0, "app#bad", "uint32 a, vector b"], ["WTF-DEF-001", "WTF-EVT-001"],
                use=True)
    define_case("n_def_002_event_class_2", "a define with eventClass 2",
                [40, 2, 0, "app#bad", "uint32 a"], ["WTF-DEF-002"])
    define_case("n_def_004_wire_id_0", "a define of wire id 0", [0, 0, 0, "app#zero", "uint32 a"],
                ["WTF-DEF-004"])
    define_case("n_def_004_wire_id_1", "a define of wire id 1 as another event",
                [1, 0, 0, "app#one", "uint32 a"], ["WTF-DEF-004"])
    define_case("n_def_007_null_name", "a define whose name is the null ordinal",
                [40, 0, 0, None, "uint32 a"], ["WTF-DEF-007"])
    define_case("n_def_007_empty_name", "a define whose name is the empty string",
                [40, 0, 0, "", "uint32 a"], ["WTF-DEF-007"])

    w = TraceWriter(header=plain_header())
    w.zone_create(1, "Script", "script", "", 0)
    w.zone_set(2, 1)
    N("n_zon_001_set_uncreated", w.finish(), "wtf.zone#set of zone 2, which was never created",
      ["WTF-ZON-001"])
    st1 = c1.header.parts[part_of(c1, PART_STRING_TABLE)]
    b = bytearray(data)
    b[st1.file_offset + st1.length - 1] = ord("!")
    N("n_str_001_unterminated", bytes(b), "chunk 1's string table ends in \"t3!\" without a NUL: "
      "the last string is not one (its ordinal is past the table)", ["WTF-STR-001",
                                                                        "WTF-EVT-003"])


# ---- i_: warnings and implementation-defined choices -----------------------------------

def impl_cases():
    def I(name, data, model, desc, warnings, why, **kw):
        add(name, data, model, desc, warnings=warnings, why=why, **kw)

    SHOULD = "a SHOULD rule of SPEC-WTF.md: reported as a warning, accepted unless --strict"
    w = small(1)
    w.raw_chunk(build_chunk(9, 7, [(0x30000, b"x\0")]))
    w.event(max(w.defines), 50, 5)   # app#outer after the unknown chunk
    w.leave(51)
    I("i_chk_007_unknown_chunk_type", *finished(w), "a chunk of type 7 between event chunks: "
      "listed, skipped", ["WTF-CHK-007"], SHOULD)
    w = small(1)
    w.event(max(w.defines), 50, 5)
    w.leave(51)
    w.end_chunk(order=("table", "extra", "events"), extra_parts=[(0x50000, b"unknown part")])
    I("i_chk_008_unknown_part_type", *finished(w), "an event chunk with a part of type 0x50000 "
      "between its string table and its event buffer", ["WTF-CHK-008"], SHOULD)
    w = small(1)
    w.event(max(w.defines), 50, 5)
    w.event(max(w.defines) - 1, 51, 6, "odd")
    w.leave(52)
    if not sum(len(x) + 1 for x in w.table.strings) % 4:
        w.event(max(w.defines) - 1, 53, 7, "x")     # a string table that needs padding
    w.end_chunk(fill=b"\xcc")
    I("i_chk_009_padding_not_zero", *finished(w), "the padding after a string table is 0xCC "
      "bytes", ["WTF-CHK-009"], SHOULD)
    w2 = TraceWriter(header=plain_header(), header_times=(9, 3))
    ev = w2.define("app#a", "uint32 x", 0, 0, 1)
    w2.event(ev, 2, 3)
    I("i_chk_010_header_start_after_end", *finished(w2), "the file-header chunk's start (9) is "
      "after its end (3); it has no events to bound", ["WTF-CHK-010"], SHOULD)
    data, m = finished(small(1))
    c1 = m.chunks[1]
    grown = put32(data, c1.offset + 8, c1.header.length + 8) + bytes(8)
    I("i_chk_011_bytes_after_parts", grown, m, "the last chunk's length counts 8 zero bytes "
      "after its last part that no part covers", ["WTF-CHK-011"], SHOULD)

    for drop in range(1, 40):
        w = js_ring(random.Random("%s:%d" % ("n_sco_001_js_ring_wrapped", drop)), drop=drop)
        data_w, mm = finished(w)
        first = mm.events_of(2)
        if len(first) > 1 and first[1].name == b"wtf.scope#leave":
            break
    I("i_sco_001_js_ring_wrapped", data_w, mm, "a JS-library ring that wrapped (%d chunks "
      "overwritten): the oldest chunk kept starts, after its wtf.zone#set, with the leave of a "
      "scope whose enter was overwritten. The library's own reader ignores such a leave and "
      "loads the file (W-E17)" % drop, ["WTF-SCO-001"], SHOULD)
    w = TraceWriter(header=plain_header())
    w.leave(1)
    I("i_sco_001_leave_without_enter", *finished(w), "wtf.scope#leave with no scope open",
      ["WTF-SCO-001"], SHOULD)
    w = TraceWriter(header=plain_header())
    w.zone_create(1, "A", "script", "", 0)
    w.zone_create(2, "B", "script", "", 0)
    w.zone_set(1, 0)
    w.enter("work", 1)
    w.zone_set(2, 2)
    w.leave(3)
    I("i_sco_001_leave_in_other_zone", *finished(w), "a scope entered in zone 1 and left after "
      "switching to zone 2 (zone 2 has none open; zone 1's stays open)",
      ["WTF-SCO-001", "WTF-SCO-002"], SHOULD)

    w = TraceWriter(header=plain_header())
    ev = w.define("app#flags", "bool[] bits, uint32 n", 0, 0, 1)
    w.event(ev, 2, [True, False, True], 7)
    I("i_def_008_bool_array", *finished(w), "an event with a bool[] argument: read here (1 byte "
      "an element), not by the reference library (W-E18)", ["WTF-DEF-008"], SHOULD)
    w = TraceWriter(header=plain_header())
    ev = w.define("app#blanks", "\tuint32  a ,\tascii\tb ", 0, 0, 1)
    w.event(ev, 2, 5, "x")
    I("i_def_signature_blanks", *finished(w), "a define whose signature has tabs and several "
      "blanks around names and commas: SPEC-WTF 4.2 allows them (the reference writes "
      "`type name` joined by `, `)", [], "blanks in a signature are allowed; no finding")
    I("i_fh_006_unknown_flag", *finished(TraceWriter(header=plain_header(
        flags=["has_high_resolution_times", "compressed"]))), "the file header's flags hold "
      "\"compressed\", which the format does not define", ["WTF-FH-006"], SHOULD)
    w = small(1)
    w.raw_chunk(build_chunk(1, CHUNK_FILE_HEADER, [(PART_FILE_HEADER, json.dumps(
        dict(plain_header(5.0))).encode())]))
    I("i_fh_008_second_header_chunk", *finished(w), "a second file-header chunk at the end "
      "(ignored: the first one's header is the file's)", ["WTF-FH-008"], SHOULD)

    w = small(1)
    w.end_chunk(force=True, order=("table", "extra"), extra_parts=[(PART_JSON_EVENTS,
                                                                    b'[{"t":1}]')])
    I("i_evc_003_json_event_buffer", *finished(w), "an event chunk whose event buffer is JSON "
      "(0x20000): listed, not decoded", ["WTF-EVC-003"], SHOULD)
    w = small(1)
    w.end_chunk(force=True, order=("table", "extra"), extra_parts=[(PART_LEGACY_EVENTS,
                                                                    bytes(16))])
    I("i_evc_003_legacy_event_buffer", *finished(w), "an event chunk whose event buffer is "
      "legacy (0x20001): listed, not decoded", ["WTF-EVC-003"], SHOULD)
    w = small(1)
    w.event(max(w.defines), 50, 5)
    w.event(max(w.defines) - 1, 51, 6, "after")
    w.leave(52)
    w.end_chunk(order=("events", "table"))
    I("i_evc_005_table_after_buffer", *finished(w), "an event chunk whose string table follows "
      "its event buffer (readers find it anyway)", ["WTF-EVC-005"], SHOULD)
    w = TraceWriter(header=plain_header(), header_parts=["header", (PART_BINARY_RESOURCE,
                                                                    b"icon")])
    ev = w.define("app#a", "uint32 x", 0, 0, 1)
    w.event(ev, 2, 3)
    I("i_evc_006_resource_in_header_chunk", *finished(w), "a binary resource part in the "
      "file-header chunk", ["WTF-EVC-006"], SHOULD)

    w = TraceWriter(header=plain_header())
    w.table.empty_ordinal = False
    ev = w.define("app#s", "ascii s, utf8 u", 0, 0, 1)
    w.event(ev, 2, "", "x")
    I("i_str_002_empty_string_in_table", *finished(w), "an ascii argument whose empty string is "
      "stored in the table instead of the ordinal 0xFFFFFFFE (the reference reader reads it as "
      "null; the dump shows \"\")", ["WTF-STR-002"], SHOULD)
    w = TraceWriter(header=plain_header())
    ev = w.define("app#s", "ascii s", 0, 0, 1)
    w.event(ev, 2, b"caf\xe9 \xc3\x28 \xf4\x90\x80\x80 \xed\xa0\x80 \xe4\xb8")
    I("i_str_003_not_utf8", *finished(w), "a string of invalid UTF-8 (a Latin-1 byte, a bad "
      "continuation, a code point above U+10FFFF, an encoded surrogate, a cut sequence): the "
      "dump writes each as docs/wtf-dump-format.md says", ["WTF-STR-003"], SHOULD)
    w = TraceWriter(header=plain_header())
    ev = w.define("app#t", "uint32 i", 0, 0, 1)
    for t in (10, 20, 15, 30):
        w.event(ev, t, t)
    I("i_evt_006_times_decrease", *finished(w), "a user event at time 15 after one at 20 in the "
      "same buffer", ["WTF-EVT-006"], SHOULD)

    w = TraceWriter(header=plain_header())
    ev = w.define("app#v1", "uint32 a", 0, 0, 1)
    w.event(ev, 2, 5)
    w.define("app#v2", "ascii s, uint8 b", 0, 0, 3, wire_id=ev)
    w.event(ev, 4, "new", 7)
    I("i_def_003_wire_id_redefined", *finished(w), "wire id 29 defined as app#v1(uint32 a), "
      "used, then defined again as app#v2(ascii s, uint8 b) and used", ["WTF-DEF-003"],
      "SHOULD rule (warning). What a redefinition means is not said: here the latest "
      "definition holds from the define on (the event after it is read as app#v2), as the "
      "reference reader's wire table does")
    w = TraceWriter(header=plain_header())
    ev = w.define("app#f", "uint32 a", 0, 0x81, 1)
    w.event(ev, 2, 1)
    I("i_def_005_unknown_flag_bits", *finished(w), "a define with flags 0x81 (bits 0x01 and 0x80 "
      "are not the format's)", ["WTF-DEF-005"], SHOULD)
    w = TraceWriter(header=plain_header())
    a = w.define("app#same", "uint32 a", 0, 0, 1)
    b = w.define("app#same", "ascii s", 0, 0, 2)
    w.event(a, 3, 1)
    w.event(b, 4, "x")
    I("i_def_006_name_two_signatures", *finished(w), "the event name app#same defined under two "
      "wire ids with two signatures; each wire id decodes with its own", ["WTF-DEF-006"],
      "SHOULD rule (warning): the reference reader would keep the first definition of the name "
      "for both; this project decodes each wire id with its own define")
    w = TraceWriter(header=plain_header())
    w.zone_create(1, "A", "script", "a.js", 0)
    w.zone_create(1, "A2", "script", "a.js", 1)
    w.zone_set(1, 2)
    I("i_zon_002_recreated_differently", *finished(w), "zone 1 created as \"A\", then again as "
      "\"A2\"", ["WTF-ZON-002"], SHOULD)
    r = R("i_sco_002_js_snapshot_inside_scope")
    I("i_sco_002_js_snapshot_inside_scope", *finished(js_snapshot(r, ring=2, open_scopes=2)),
      "a JS-library snapshot taken inside two scopes: they are never left", ["WTF-SCO-002"],
      SHOULD)
    w = TraceWriter(header=plain_header())
    sc = w.define("deep#s", "", wire.CLASS_SCOPE, 0, 0)
    for i in range(1025):
        w.event(sc, i + 1)
    for i in range(1025):
        w.leave(2000 + i)
    I("i_sco_003_depth_1025", *finished(w), "scopes nested 1025 deep, all closed",
      ["WTF-SCO-003"], SHOULD)

    w = TraceWriter(header=plain_header())
    ev = w.define("app#a", "ascii s", 0, 0, 1)
    w.event(ev, 2, "x")
    w.end_chunk(trailing_nul=True)
    I("i_str_trailing_nul_seed_form", *finished(w), "a string table with the seed's extra "
      "trailing NUL (an empty last string nobody references)", [],
      "W-E3 accepts both terminators; the extra empty string is not referenced, so it is not "
      "WTF-STR-002 (which is about empty strings written as table entries)")
    w = TraceWriter(header=plain_header())
    w.zone_create(4, "Z", "script", "", 0)
    w.zone_set(4, 1)
    w.zone_set(4, 2)
    ev = w.define("app#a", "uint32 x", 0, 0, 3)
    w.event(ev, 4, 1)
    I("i_dump_zone_of_zone_set", *finished(w), "events before, at and after wtf.zone#set: the "
      "dump's zone of a wtf.zone#set event is the zone before it", [],
      "docs/wtf-dump-format.md: Z is the zoneId of the last wtf.zone#set *before* this event, "
      "and SPEC-WTF 4.3 says the set zone is current for the events that *follow*: the first "
      "wtf.zone#set shows null, the second 4")
    hj = b'{"flags":[],"timebase":1.5,"contextInfo":{"contextType":"script","uri":"x"},' \
         b'"flags":["times_as_count"],"n":123456789012345678901,"f":0.1,"e":1E2,"neg":-0.0,' \
         b'"s":"\\u00e9\\n\\u001f\\/"}'
    I("i_fh_json_rewritten", *finished(TraceWriter(header=hj)), "a file header with a duplicate "
      "key, a big integer, exponents, -0.0 and escapes: the dump rewrites it", [],
      "docs/wtf-dump-format.md: a duplicate key keeps its last value at its first position "
      "(here flags is [\"times_as_count\"] for the dump, and the validator checks that value); "
      "numbers by the number rule")


# ---- r_: crash-truncated files --------------------------------------------------------

def recoverable_cases():
    data, m = finished(small(2))
    c2 = m.chunks[2]
    table2 = c2.header.parts[part_of(c2, PART_STRING_TABLE)]
    evs2 = m.events_of(2)

    def cut(name, n, desc, src=(data, m)):
        d, mm = src
        add(name, d[:n], cut_trace(mm, n), desc, warnings=[REC])

    cut("r_cut_empty_file", 0, "an empty file (the writer died before its first write)")
    cut("r_cut_in_file_header_5", 5, "5 bytes: the magic and the start of the version")
    cut("r_cut_in_file_header_11", 11, "11 bytes: the header up to the last byte of the format "
        "version")
    cut("r_cut_after_file_header", 12, "the 12-byte file header and nothing else (no "
        "file-header chunk)")
    cut("r_cut_in_header_chunk_header", 12 + 10, "cut 10 bytes into the file-header chunk's "
        "header")
    cut("r_cut_in_header_json", m.chunks[0].header.parts[0].file_offset + 20, "cut inside the "
        "file-header JSON: the header is null, nothing else")
    cut("r_cut_at_chunk_boundary_then_header", c2.offset + 7, "two complete chunks, then 7 "
        "bytes of the third chunk's header")
    cut("r_cut_in_part_table", c2.offset + 24 + 12 + 5, "cut inside the last chunk's part table "
        "(one entry and 5 bytes of the next)")
    cut("r_cut_in_string_table", table2.file_offset + 4, "cut inside the last chunk's string "
        "table: none of its events")
    cut("r_cut_between_events", evs2[3].offset, "cut in the last chunk's event buffer, at the "
        "boundary of its 4th event: 3 of its events")
    cut("r_cut_inside_event_args", evs2[3].offset + 10, "cut in the middle of an event's "
        "arguments")
    cut("r_cut_inside_event_header", evs2[3].offset + 6, "cut between an event's wire id and "
        "the end of its time")
    cut("r_cut_last_byte", len(data) - 1, "the file without its last byte: the last event is "
        "lost")

    zeros = data + bytes(4096)
    add("r_zero_tail_4096", zeros, m, "4096 zero bytes after the last chunk (space reserved and "
        "never written, SPEC-WTF 6.4)", warnings=[REC])
    add("r_zero_tail_4", data + bytes(4), m, "4 zero bytes after the last chunk", warnings=[REC])
    grown = put32(data, c2.offset + 8, c2.header.length + 4096) + bytes(100)
    add("r_chunk_length_past_end_zeros", grown, cut_trace(m, len(data)),
        "the last chunk's length says 4 KiB more than its parts; the file ends 100 zero bytes "
        "after them (a preallocated chunk cut by a crash, not WTF-CHK-003)", warnings=[REC])

    w = TraceWriter(header=plain_header())
    ev = w.define("arr#a", "uint32[] v, ascii s", 0, 0, 1)
    for i in range(3):
        w.event(ev, 2 + i, list(range(i * 5)), "s%d" % i)
    d, mm = finished(w)
    last = mm.events[-1]
    cut("r_cut_inside_array", last.offset + 8 + 4 + 9, "cut inside an array argument's "
        "elements", (d, mm))

    r = R("r_js_snapshot_cut")
    d, mm = finished(js_snapshot(r, ring=3))
    ring2 = mm.chunks[-1]
    cut("r_js_snapshot_cut", ring2.offset + ring2.header.length // 2, "a JS-library snapshot "
        "cut in the middle of its last ring chunk", (d, mm))
    r = R("r_cpp_cut")
    d, mm = finished(cpp_trace(r))
    cut("r_cpp_cut", len(d) - 30, "a C++-bindings file whose last 30 bytes are missing", (d, mm))


def all_cases():
    return collect_cases(CASES, valid_cases, invalid_cases, impl_cases, recoverable_cases)


# ---- Output -----------------------------------------------------------------------------

def case_lines(c, _checked=None):
    """The dump lines of an accepted case: its model's, which wtfpy must
    decode from its bytes line for line."""
    lines = dump_lines(c.model)
    decoded = dump_lines(read_trace(c.data))
    if decoded != lines:
        first = next((k for k, (a, b) in enumerate(zip(lines, decoded)) if a != b),
                     min(len(lines), len(decoded)))
        raise SystemExit("make_wtf_corpus: %s: the dump decoded by wtfpy differs from "
                         "the model's at line %d:\n  model: %s  wtfpy: %s" % (
                             c.name, first + 1, lines[first] if first < len(lines)
                             else "<end>\n", decoded[first] if first < len(decoded)
                             else "<end>\n"))
    return lines


def write_corpus(out, log=None):
    return write_file_corpus(out, all_cases(), SPEC, "make_wtf_corpus", TARGET, readme,
                             lambda c: None, case_lines, log)


READINGS = [
    ("A file of exactly 12 bytes", "The file header and no chunk: the writer died before the "
     "file-header chunk, so WTF-REC-001 with 0 events (SPEC-WTF 6 lists cuts inside a header, "
     "not at its end). The dump prints the file line only.", "r_cut_after_file_header"),
    ("A file cut inside its 12-byte header", "Crash-truncated (6.3); the dump prints no line at "
     "all, since the file line's two numbers are not in the file.", "r_cut_in_file_header_5"),
    ("A chunk cut inside its part table", "Its chunk line is printed with the header's values "
     "and the part entries that are whole (\"its chunk line (with the header's values)\"); no "
     "event.", "r_cut_in_part_table"),
    ("The zone of a wtf.zone#set event", "The zone before it: the dump's Z is the zone of the "
     "last wtf.zone#set *before* the event, and 4.3 makes the set zone current for the events "
     "that follow.", "i_dump_zone_of_zone_set"),
    ("After a structural error", "WTF-CHK-001 (a length that does not hold the part table): "
     "nothing from that chunk on is read. WTF-CHK-004, -005, -006 (a damaged part table): "
     "that chunk is not read and gets no chunk line, but its length still places the next "
     "chunk, which is read (SPEC-WTF 6: only a chunk header that cannot be read costs what "
     "follows). WTF-CHK-002, -003: the chunk is read (its parts are inside the file), "
     "nothing after it.", "n_chk_004_part_offset_unaligned, n_chk_001_length_20, "
     "n_chk_003_length_past_end"),
    ("A crash or a wrong length", "A last chunk running past the end whose parts end inside the "
     "file and are followed only by zero bytes is a crash (WTF-CHK-003 needs non-zero bytes "
     "after the parts).", "r_chunk_length_past_end_zeros"),
    ("Zero tails", "Zero bytes, any number, from a chunk boundary to the end are the end "
     "(WTF-REC-001), even fewer than a chunk header.", "r_zero_tail_4"),
    ("WTF-STR-002", "Reported for an argument that references an empty string stored in the "
     "table; the seed's extra trailing NUL (an empty last string nobody references) is not "
     "reported (W-E3).", "i_str_002_empty_string_in_table, i_str_trailing_nul_seed_form"),
    ("WTF-SCO-002", "Checked only when every event of the file was read: not after a cut, nor "
     "when damage made the reader skip events.", "n_sco_001_leave_in_other_zone"),
    ("Defines that do not define", "A define breaking WTF-DEF-001, -004 or -007 defines "
     "nothing (its wire id stays undefined: using it is WTF-EVT-001); one breaking WTF-DEF-002 "
     "defines. A wire id defined again takes the new definition from there on; WTF-DEF-003 "
     "and -006 compare the parsed argument lists (null and \"\" are the same).",
     "n_def_001_then_used, i_def_003_wire_id_redefined"),
    ("Signature spelling", "Exactly one space between a type and its name, spaces (not tabs) "
     "around commas and around the whole signature; a name may start with a digit (4.2 lists "
     "the characters, not an order); a signature of blanks only is not empty.",
     "n_def_001_two_spaces"),
    ("Several event buffers or string tables", "WTF-EVC-001 with two buffers: the first "
     "binary one is decoded; WTF-EVC-002: the first string table is used.",
     "n_evc_001_two_event_buffers, n_evc_002_two_string_tables"),
    ("The file-header JSON", "Checked (WTF-FH-002..007) in the first chunk when it is of type "
     "1; a duplicate key counts with its last value, as the dump shows it.",
     "i_fh_json_rewritten"),
    ("JSON at the edges", "JSON text as docs/wtf-dump-format.md reads it: RFC 8259 with every "
     "number a double (1e400 is not JSON here, an integer beyond 2^64 is), \\u0000 allowed, "
     "lone surrogate escapes not.", "i_evt_005_any_json_edges, n_evt_005_any_beyond_double, "
     "n_evt_005_any_lone_surrogate"),
    ("char and wchar in the dump", "As docs/wtf-dump-format.md lists them (and the JS library "
     "reads them): a one-character string (a code 0..255, a UTF-16 unit), and their arrays as "
     "one string.", "y_evt_every_type"),
    ("WTF-CHK-010, -011", "-010 warns when the two are not both unset and start > end; -011 is "
     "checked on whole chunks only.", "i_chk_010_header_start_after_end, "
     "i_chk_011_bytes_after_parts"),
    ("WTF-EVT-006, -007", "-006 compares consecutive events of one buffer whose define has "
     "neither BUILTIN nor INTERNAL; -007 applies to every event of the chunk, defines "
     "included.", "i_evt_006_times_decrease, n_evt_007_time_outside_chunk"),
    ("recovered", "The number of events read from the whole crash-truncated file.",
     "r_cut_between_events"),
]


def readme(cases, clauses, cov):
    total = sum(len(c.data) for c in cases)
    out = ["# The WTF golden corpus", "",
           "Binary WTF files (`.wtf-trace`, the Web Tracing Framework's chunked file format) "
           "with the verdict a conforming validator must give, and for accepted files the "
           "canonical dump (`atf dump --json`, [docs/wtf-dump-format.md]"
           "(../../docs/wtf-dump-format.md)) a conforming reader must print. Every "
           "expectation names the clauses of [conformance/SPEC-WTF.md]"
           "(../../conformance/SPEC-WTF.md) that decide it.", "",
           "**Generated; do not edit by hand.** `formats/wtf/python/make_wtf_corpus.py` writes "
           "every file here, this README included, with wtfpy (the standard-library Python "
           "implementation of WTF in `formats/wtf/python/wtfpy/`), not with the C codec.", "",
           "%d cases, %d bytes of WTF data. Cases modelled on real writers: `*_js_snapshot*` "
           "(the JS library tracing-framework 2015.7.15: version 0x90BA3800, its file-header "
           "JSON, its event-header chunk with the built-in defines under wire ids 1..17, user "
           "wire ids from 29 defined again in the ring chunks, chunk ids from a process-wide "
           "counter, start/end 0xFFFFFFFF) and `*_cpp_*` (the C++ bindings: version "
           "0xE8214400, chunk ids 1 and 2)." % (len(cases), total), "",
           ] + readme_classes(cases, REC) + [
           "", "## Files of a case", "",
           "* `NAME/trace.wtf-trace`: the input (`target` in the expect file).",
           "* `NAME.expect.json`: the expectation, schema `%s`, the keys of the ATF corpus "
           "([corpus/atf/README.md](../atf/README.md)); `recovered` is "
           "`{\"trace.wtf-trace\": N}` for a crash-truncated file, N the events read from it."
           % EXPECT_SCHEMA,
           "* `NAME.dump.jsonl`: for accepted cases, the exact bytes of `atf dump --json "
           "NAME/trace.wtf-trace`, computed from the writer's model (for a cut file, section 6 "
           "of SPEC-WTF applied to the model) and checked against wtfpy's reader.", "",
           "## Running", "", "```sh",
           "# against the C tool",
           "/usr/bin/python3 conformance/tests/run_corpus.py --atf build/cli/atf --corpus corpus/wtf",
           "# against wtfpy (ctest: conformance_wtf_corpus_py)",
           "/usr/bin/python3 conformance/tests/run_corpus.py --atf formats/wtf/python/wtfpy_tool.py "
           "--corpus corpus/wtf --exact-warnings",
           "# every SPEC-WTF.md clause in the validator's table and in the corpus, and back",
           "/usr/bin/python3 conformance/tests/check_clause_coverage.py --atf "
           "formats/wtf/python/wtfpy_tool.py --spec conformance/SPEC-WTF.md --corpus corpus/wtf",
           "# regenerate, or check the checked-in bytes (ctest: conformance_wtf_corpus_generated)",
           "/usr/bin/python3 formats/wtf/python/make_wtf_corpus.py",
           "/usr/bin/python3 formats/wtf/python/make_wtf_corpus.py --check corpus/wtf",
           "```", "",
           "## Readings of SPEC-WTF.md and docs/wtf-dump-format.md", "",
           "Where the texts leave room, the expectations take these readings (wtfpy implements "
           "the same):", ""]
    return "\n".join(out + readme_file_end(READINGS, clauses, cov, "SPEC-WTF.md", cases)) + "\n"


def main(argv=None):
    return generator_main(argv, __doc__, DEFAULT_OUT, all_cases, write_corpus)


if __name__ == "__main__":
    sys.exit(main())
