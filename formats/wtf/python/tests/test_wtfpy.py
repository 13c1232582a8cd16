#!/usr/bin/python3
"""Self-test of wtfpy, the independent Python implementation of the binary WTF
format: canonical text, signatures, the writer against byte images built by
hand, the reader (events, zones, depth, damage, crash truncation), the dump,
the validator and the command-line tool (standard library unittest only).

    /usr/bin/python3 formats/wtf/python/tests/test_wtfpy.py [-v]
"""

import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.dirname(HERE)                       # formats/wtf/python
REPO = os.path.dirname(os.path.dirname(os.path.dirname(PY)))
GEN = os.path.join(REPO, "conformance", "gen")   # tracepy, shared by the formats
sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
sys.path.insert(0, GEN)
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)

from wtfpy import canon, wire  # noqa: E402
from wtfpy.dump import dump_lines  # noqa: E402
from wtfpy.reader import read_trace  # noqa: E402
from wtfpy.writer import (CPP, JS, TraceWriter, build_chunk, encode_args,  # noqa: E402
                          header_chunk, header_json, string_table, StringTable)

TOOL = os.path.join(PY, "wtfpy_tool.py")


def u32s(*vals):
    return b"".join(struct.pack("<I", v & 0xFFFFFFFF) for v in vals)


def define_event(table, wire_id, cls, flags, name, sig, time=0):
    """A wtf.event#define event built field by field (not with encode_args)."""
    return u32s(1, time, wire_id, cls, flags, table.add(name), table.add(sig))


# ---- Canonical text ---------------------------------------------------------------

class EscapeTest(unittest.TestCase):
    def test_ascii_and_short_escapes(self):
        self.assertEqual(canon.escape_bytes(b'a "q" \\ /'), '"a \\"q\\" \\\\ /"')
        self.assertEqual(canon.escape_bytes(b"\n\r\t\b\f"), '"\\n\\r\\t\\b\\f"')
        self.assertEqual(canon.escape_bytes(b"\x00\x01\x1f\x7f"),
                         '"\\u0000\\u0001\\u001f\\u007f"')

    def test_valid_utf8_is_what_json_dumps_prints(self):
        rng = random.Random(5)
        alphabet = [chr(c) for c in (0x41, 0x7E, 0x80, 0xE9, 0x7FF, 0x800, 0x4E2D, 0xFFFD,
                                     0xFFFF, 0x10000, 0x1F600, 0x10FFFF)] + ["\x7f", '"', "\\"]
        for _ in range(300):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
            self.assertEqual(canon.escape_bytes(s.encode("utf-8")), json.dumps(s), repr(s))

    def test_invalid_bytes(self):
        self.assertEqual(canon.escape_bytes(b"\x80"), '"\\ufffd"')          # stray continuation
        self.assertEqual(canon.escape_bytes(b"\xc3A"), '"\\ufffdA"')        # lead, no continuation
        self.assertEqual(canon.escape_bytes(b"\xe4\xb8A"), '"\\ufffdA"')    # 2 of 3 bytes
        self.assertEqual(canon.escape_bytes(b"\xe4\xb8"), '"\\ufffd"')      # cut at the end
        self.assertEqual(canon.escape_bytes(b"\xf4\x90\x80\x80"), '"\\ufffd"')   # > U+10FFFF
        # Not checked by the rule: overlong forms and encoded surrogates decode.
        self.assertEqual(canon.escape_bytes(b"\xc0\x80"), '"\\u0000"')
        self.assertEqual(canon.escape_bytes(b"\xed\xa0\x80"), '"\\ud800"')
        self.assertEqual(canon.escape_bytes(b"\xf0\x9f\x98\x80"), '"\\ud83d\\ude00"')


class NumberTest(unittest.TestCase):
    def test_integers(self):
        self.assertEqual(canon.number(0), "0")
        self.assertEqual(canon.number(-0.0), "0")
        self.assertEqual(canon.number(3.0), "3")
        self.assertEqual(canon.number(-(2 ** 53) + 1), "-9007199254740991")
        self.assertEqual(canon.number(2 ** 53), "9007199254740992")        # by %.16g
        self.assertEqual(canon.number(2 ** 64), "1.8446744073709552e+19")
        self.assertEqual(canon.number(10 ** 400), '"Infinity"')

    def test_shortest_of_15_16_17(self):
        self.assertEqual(canon.number(0.5), "0.5")
        self.assertEqual(canon.number(0.1), "0.1")                          # %.15g
        self.assertEqual(canon.number(wire.f32(0.1)), "0.10000000149011612")
        x = wire.f32(0.1)
        s = canon.number(x)
        self.assertEqual(float(s), x)
        for p in (15, 16, 17):
            if float("%.*g" % (p, x)) == x:
                self.assertEqual(s, "%.*g" % (p, x))
                break
        self.assertEqual(canon.number(1e-7), "1e-07")
        self.assertEqual(canon.number(1.5e300), "1.5e+300")
        self.assertEqual(canon.number(float("nan")), '"NaN"')
        self.assertEqual(canon.number(float("-inf")), '"-Infinity"')

    def test_json_rewrite(self):
        self.assertEqual(canon.rewrite_json_bytes(b' { "b" : 1 , "a" : [ 1.0 , 2.5e0 , null ] } '),
                         '{"b":1,"a":[1,2.5,null]}')
        # A duplicate key keeps its last value at its first position.
        self.assertEqual(canon.rewrite_json_bytes(b'{"k":1,"j":2,"k":3}'), '{"k":3,"j":2}')
        self.assertEqual(canon.rewrite_json_bytes(b'"\\u00e9\\n"'), '"\\u00e9\\n"')
        self.assertEqual(canon.rewrite_json_bytes(b"12345678901234567890"),
                         "12345678901234567000"[:0] + "1.2345678901234567e+19")
        for bad in (b"", b"NaN", b"[Infinity]", b"{", b"\xff", b"1 2", b"[1,]"):
            self.assertIsNone(canon.rewrite_json_bytes(bad), bad)


# ---- Signatures ---------------------------------------------------------------------

LONG = ", ".join("int8 a%d" % i for i in range(65)).encode()


class SignatureTest(unittest.TestCase):
    def test_parse(self):
        args = wire.parse_signature(b"uint32 n, ascii s,float32[] v ,  any x")
        self.assertEqual([(a.name, a.type, a.array) for a in args],
                         [("n", "uint32", False), ("s", "ascii", False), ("v", "float32", True),
                          ("x", "any", False)])
        self.assertEqual(wire.parse_signature(b""), [])
        self.assertEqual(wire.parse_signature(None), [])
        self.assertEqual(wire.format_signature(args), "uint32 n, ascii s, float32[] v, any x")
        for t in wire.TYPES:
            self.assertEqual(wire.parse_signature("%s a, %s[] b" % (t, t))[1].array, True)
        self.assertEqual(wire.parse_signature("int32 1x, uint8 $_9")[1].name, "$_9")
        self.assertEqual(len(wire.parse_signature(", ".join("int8 a%d" % i for i in range(64)))),
                         64)

    def test_errors(self):
        for sig, pos in ((b"uint64 n", 0), (b"uint32", 0), (b"uint32 n,", 9),
                         (b"uint32 n, uint32 n", 17), (b"uint32 n m", 0), (b"int32 x-y", 0),
                         (b"uint32 n,\xff", 9), (b"uint32n", 0), (b"uint32[] []n", 0),
                         (b"UINT32 n", 0), (b" ,", 1), (LONG, LONG.index(b"int8 a64"))):
            with self.assertRaises(wire.SignatureError, msg=sig) as cm:
                wire.parse_signature(sig)
            self.assertEqual(cm.exception.position, pos, sig)


# ---- Writer against hand-built bytes -------------------------------------------------

class WriterLayoutTest(unittest.TestCase):
    def test_chunk_layout(self):
        c = build_chunk(7, 2, [(0x30000, b"ab\0"), (0x20002, b"12345678")], 5, 9)
        img = u32s(7, 2, 24 + 24 + 4 + 8, 5, 9, 2) + u32s(0x30000, 0, 3, 0x20002, 4, 8) + \
            b"ab\0\0" + b"12345678"
        self.assertEqual(c, img)
        over = build_chunk(7, 2, [(0x30000, b"x")], length=99, part_count=3,
                           entries=[(0x30000, 2, 1)])
        self.assertEqual(over[:36], u32s(7, 2, 99, wire.NO_TIME, wire.NO_TIME, 3) +
                         u32s(0x30000, 2, 1))

    def test_arguments(self):
        tbl = StringTable()
        args = wire.parse_signature("bool b, int8 i, uint16 u, float32 f, ascii s, utf8 e, "
                                    "any n, int16[] a, uint8[] z, ascii[] ss")
        got = encode_args(args, [True, -2, 65535, 1.5, "hi", "", None, [-1, 2, 3], None,
                                 ["x", None]], tbl)
        want = u32s(1, 0xFFFFFFFE, 0xFFFF) + struct.pack("<f", 1.5) + u32s(0, 0xFFFFFFFE,
                                                                            0xFFFFFFFF) + \
            u32s(3) + struct.pack("<hhh", -1, 2, 3) + b"\0\0" + u32s(0xFFFFFFFF) + \
            u32s(2, 1, 0xFFFFFFFF)
        self.assertEqual(got, want)
        self.assertEqual(tbl.strings, [b"hi", b"x"])
        self.assertEqual(string_table(tbl.strings), b"hi\0x\0")
        self.assertEqual(string_table(tbl.strings, trailing_nul=True), b"hi\0x\0\0")

    def test_file_by_hand_reads_back(self):
        """A file assembled from u32 values only: the reader's view of it."""
        tbl = StringTable()
        ev = define_event(tbl, 2, 1, 0, "app#outer", "uint32 n, ascii s, int8[] v", 100)
        ev += u32s(2, 110, 42, tbl.add("hello"), 3) + bytes([1, 0xFE, 3, 0xAA])
        ev += u32s(2, 120, 43, 0xFFFFFFFF, 0xFFFFFFFF)
        ev += u32s(1, 125, 3, 0, 40, tbl.add("wtf.scope#leave"), 0xFFFFFFFF)   # null args
        ev += u32s(3, 130) + u32s(3, 131)
        strings = b"".join(s + b"\0" for s in tbl.strings)
        hjson = b'{"timebase":1.5,"flags":[],"contextInfo":{"contextType":"script","uri":"a"}}'
        data = u32s(0xDEADBEEF, 0x90BA3800, 10) + header_chunk(hjson, id=4) + \
            build_chunk(5, 2, [(0x30000, strings), (0x20002, ev)], 100, 131)
        t = read_trace(data)
        self.assertEqual(t.state, "complete", t.notes)
        self.assertEqual(t.wtf_version, 0x90BA3800)
        self.assertEqual([c.header.id for c in t.chunks], [4, 5])
        self.assertEqual([(e.name, e.time) for e in t.events],
                         [(b"wtf.event#define", 100), (b"app#outer", 110), (b"app#outer", 120),
                          (b"wtf.event#define", 125), (b"wtf.scope#leave", 130),
                          (b"wtf.scope#leave", 131)])
        self.assertEqual(t.events[1].values, [42, b"hello", [1, -2, 3]])
        self.assertEqual(t.events[2].values, [43, None, None])
        # file header, header chunk (header, 1 entry, padded JSON), event chunk
        # header with 2 entries, the string table (60 bytes), the define (28).
        self.assertEqual(len(strings), 60)
        self.assertEqual(t.events[1].offset, 12 + 36 + (len(hjson) + 3) // 4 * 4 + 48 + 60 + 28)
        self.assertEqual(t.events[2].depth, 1)
        lines = dump_lines(t)
        self.assertEqual(lines[0], '{"wtf_version":2428123136,"format_version":10,"header":%s}\n'
                         % hjson.decode())
        self.assertEqual(json.loads(lines[4])["args"], {"n": 42, "s": "hello", "v": [1, -2, 3]})
        self.assertEqual([e.depth for e in t.events], [0, 0, 1, 2, 1, 0])


# ---- Round trips ----------------------------------------------------------------------

SCALARS = {
    "bool": lambda r: r.random() < 0.5,
    "int8": lambda r: r.randrange(-128, 128), "uint8": lambda r: r.randrange(256),
    "int16": lambda r: r.randrange(-32768, 32768), "uint16": lambda r: r.randrange(65536),
    "int32": lambda r: r.randrange(-2 ** 31, 2 ** 31), "uint32": lambda r: r.randrange(2 ** 32),
    "flowId": lambda r: r.randrange(2 ** 32), "time32": lambda r: r.randrange(2 ** 32),
    "float32": lambda r: r.choice([0.0, -0.0, 1.5, r.uniform(-1e6, 1e6), 1e-40, 3e38,
                                   math.inf, -math.inf, math.nan]),
    "ascii": lambda r: r.choice([None, "", "a", "x y\tz", "\"q\\"]),
    "utf8": lambda r: r.choice([None, "", "\u00e9\u4e2d\U0001f600", "\x01ctl"]),
    "any": lambda r: r.choice([None, '{"a":[1,2.5,{"b":null}],"a":7}', "3", '"s"',
                               "[1e300]", "true", '"\\u00e9\\ud83d\\ude00"']),
}


def random_trace(rng, flavor=JS, chunk_bytes=300, n=60):
    """A conformant trace with random defines, arguments, zones and scopes."""
    w = TraceWriter(flavor=flavor, chunk_bytes=chunk_bytes)
    w.zone_create(1, "Z1", "worker", "", 0)
    w.zone_set(1, 0)
    defs = []
    for k in range(rng.randrange(1, 6)):
        names = ["a%d" % i for i in range(rng.randrange(0, 5))]
        sig = ", ".join("%s%s %s" % (rng.choice(list(SCALARS)),
                                     "[]" if rng.random() < 0.3 else "", nm) for nm in names)
        wid = w.define("ev#e%d" % k, sig, rng.choice([0, 1]), rng.choice([0, 2, 16]))
        defs.append((wid, wire.parse_signature(sig)))
    for i in range(n):
        c = rng.random()
        time = i * 10
        if c < 0.1:
            if w.depth.get(w.zone, 0):
                w.leave(time)
        elif c < 0.15:
            z = rng.randrange(1, 4)
            w.zone_create(z, "Z%d" % z, "worker", "", time)
            w.zone_set(z, time)
        else:
            wid, args = rng.choice(defs)
            vals = []
            for a in args:
                if a.array:
                    vals.append(None if rng.random() < 0.2 else
                                [SCALARS[a.type](rng) for _ in range(rng.randrange(0, 5))])
                else:
                    vals.append(SCALARS[a.type](rng))
            w.event(wid, time, *vals)
    for zone, depth in list(w.depth.items()):
        if depth:
            w.zone_set(zone, n * 10)
            for _ in range(depth):
                w.leave(n * 10)
    return w


class RoundTripTest(unittest.TestCase):
    def test_random_traces_dump_as_modelled(self):
        for seed in range(40):
            rng = random.Random(seed)
            w = random_trace(rng, flavor=JS if seed % 2 else CPP,
                             chunk_bytes=rng.choice([64, 300, 1 << 20]))
            data = w.finish()
            t = read_trace(data)
            self.assertEqual(t.state, "complete", (seed, t.notes))
            self.assertEqual([e.key() for e in t.events], [e.key() for e in w.trace.events], seed)
            self.assertEqual(dump_lines(t), dump_lines(w.trace), seed)
            self.assertEqual([e.depth for e in t.events], [e.depth for e in w.trace.events])

    def test_chunk_rotation_and_zones_across_chunks(self):
        w = TraceWriter(chunk_bytes=1)
        w.zone_create(7, "Z", "script", "", 0)
        w.zone_set(7, 1)
        e = w.define("a#b", "uint32 x", 0, 0, 2)
        for i in range(10):
            w.event(e, 10 + i, i)
        data = w.finish()
        t = read_trace(data)
        self.assertGreater(len(t.chunks), 4)
        evs = [x for x in t.events if x.name == b"a#b"]
        self.assertEqual([x.zone for x in evs], [7] * 10)
        self.assertEqual(len({x.chunk for x in evs}), len(evs))   # a chunk per event
        self.assertEqual(t.events[1].zone, None)                  # wtf.zone#create
        zset = next(x for x in t.events if x.name == b"wtf.zone#set")
        self.assertIsNone(zset.zone)                              # the zone before it


# ---- Reader: damage and crash truncation ---------------------------------------------

def small_trace():
    w = TraceWriter(chunk_bytes=120)
    w.zone_create(1, "Script", "script", "/s.js", 0)
    w.zone_set(1, 0)
    e = w.define("s#e", "uint32 n, ascii s", 1, 0, 1)
    for i in range(8):
        w.event(e, 10 + i, i, "str%d" % i)
        w.leave(11 + i)
    return w, w.finish()


class ReaderTest(unittest.TestCase):
    def test_every_cut_recovers_the_complete_events(self):
        w, data = small_trace()
        model = w.trace
        ends = {c.index: c.offset + c.header.length for c in model.chunks}
        for cut in range(len(data) + 1):
            t = read_trace(data[:cut])
            self.assertNotEqual(t.state, "damaged", (cut, t.notes))
            self.assertEqual(t.state == "complete", cut == len(data) or cut in ends.values(),
                             cut)
            whole = [e.key() for e in model.events if ends[e.chunk] <= cut]
            got = [e.key() for e in t.events]
            self.assertEqual(got[:len(whole)], whole, cut)
            extra = t.events[len(whole):]
            if extra:
                ci = model.chunks[extra[0].chunk]
                stbl = ci.header.parts[0]
                self.assertGreaterEqual(cut, stbl.file_offset + stbl.length, cut)
                want = [e.key() for e in model.events
                        if e.chunk == ci.index and e.offset + e.size <= cut]
                self.assertEqual([e.key() for e in extra], want, cut)
            if cut >= 12:
                self.assertEqual(dump_lines(t), dump_lines(_prefix(model, t)), cut)

    def test_damage_stops_the_chunk_not_the_file(self):
        w, data = small_trace()
        t0 = read_trace(data)
        last = t0.chunks[-1].index
        victim = next(e for e in t0.events if e.name == b"s#e" and e.chunk == last)
        bad = bytearray(data)
        bad[victim.offset:victim.offset + 4] = u32s(999)
        t = read_trace(bytes(bad))
        self.assertEqual(t.state, "damaged")
        self.assertEqual([n.clause for n in t.notes], ["WTF-EVT-001"])
        self.assertEqual(t.notes[0].offset, victim.offset)
        self.assertEqual(t.notes[0].field, "wire_id")
        kept = [e.key() for e in t0.events if e.chunk != last or e.offset < victim.offset]
        self.assertEqual([e.key() for e in t.events], kept)

    def test_ordinal_and_array_length(self):
        w, data = small_trace()
        t0 = read_trace(data)
        victim = next(e for e in t0.events if e.name == b"s#e")
        bad = bytearray(data)
        bad[victim.offset + 12:victim.offset + 16] = u32s(5000)
        t = read_trace(bytes(bad))
        self.assertEqual((t.notes[0].clause, t.notes[0].field, t.notes[0].offset),
                         ("WTF-EVT-003", "s", victim.offset + 12))
        w2 = TraceWriter()
        a = w2.define("a#r", "uint8[] v")
        w2.event(a, 1, [1, 2])
        good = w2.finish()
        ev = read_trace(good).events[-1]
        bad = bytearray(good)
        bad[ev.offset + 8:ev.offset + 12] = u32s(-2)
        t = read_trace(bytes(bad))
        self.assertEqual((t.notes[0].clause, t.notes[0].field), ("WTF-EVT-004", "v"))
        bad[ev.offset + 8:ev.offset + 12] = u32s(0x10000000)
        t = read_trace(bytes(bad))
        self.assertEqual((t.notes[0].clause, t.notes[0].field), ("WTF-EVT-002", "v"))

    def test_structural_errors(self):
        """A chunk length that cannot be used stops reading; a damaged part
        table costs its chunk only (no chunk line), the next one is read."""
        w, data = small_trace()
        c1 = w.trace.chunks[1]
        for field_off, value, field, clause, goes_on in (
                (8, 20, "length", "WTF-CHK-001", False),
                (20, 65, "part_count", "WTF-CHK-006", True),
                (28, 2, "offset", "WTF-CHK-004", True),
                (32, 1 << 20, "offset", "WTF-CHK-005", True)):
            bad = bytearray(data)
            if field == "part_count":       # a length that holds 65 entries
                bad[c1.offset + 8:c1.offset + 12] = u32s(24 + 12 * 65)
                end = c1.offset + c1.header.length
                bad[end:end] = bytes(24 + 12 * 65 - c1.header.length)
            bad[c1.offset + field_off:c1.offset + field_off + 4] = u32s(value)
            t = read_trace(bytes(bad))
            self.assertEqual(t.state, "damaged", field)
            self.assertIn((clause, field), [(n.clause, n.field) for n in t.notes])
            self.assertEqual([c.index for c in t.chunks if c.index >= 1],
                             list(range(2, len(w.trace.chunks))) if goes_on else [], clause)
            self.assertFalse([e for e in t.events if e.chunk == 1], clause)
            if goes_on:        # chunk 2 read, up to its first use of a chunk-1 define
                self.assertIn("WTF-EVT-001", [n.clause for n in t.notes], clause)

    def test_header_forms(self):
        _, data = small_trace()
        self.assertEqual(read_trace(data[:7]).state, "crash-truncated")
        self.assertEqual(read_trace(b"").state, "crash-truncated")
        self.assertEqual(read_trace(b"\xef\xbe\xad\xdf").notes[0].clause, "WTF-HDR-001")
        legacy = read_trace(u32s(0xEFBEADDE, 0, 3) + bytes(40))
        self.assertEqual(legacy.notes[0].clause, "WTF-HDR-001")
        self.assertIn("legacy", legacy.notes[0].message)
        js = read_trace(b' {"wtf_version":1,"format_version":10}')
        self.assertIn("JSON", js.notes[0].message)
        nine = bytearray(data)
        nine[8] = 9
        self.assertEqual(read_trace(bytes(nine)).notes[0].field, "format_version")
        self.assertEqual(dump_lines(read_trace(bytes(nine))), [])


def _prefix(model, t):
    """The model cut like ``t``: the chunks it has (the cut one with the parts it read)
    and its events."""
    from wtfpy.model import Trace
    m = Trace()
    m.wtf_version, m.format_version = model.wtf_version, model.format_version
    m.header, m.header_parsed = (model.header, model.header_parsed) if t.header_parsed else (
        None, False)
    keep = {e.key() for e in t.events}
    m.chunks = t.chunks
    m.events = [e for e in model.events if e.key() in keep]
    return m


# ---- Validator -----------------------------------------------------------------------------

class ValidatorTest(unittest.TestCase):
    def test_clause_table_is_the_spec(self):
        from wtfpy.clauses import CLAUSES
        import re
        with open(os.path.join(REPO, "conformance", "SPEC-WTF.md"), encoding="utf-8") as f:
            rows = re.findall(r"^\| `(WTF-[A-Z]+-\d{3})` \| (error|warning) \|", f.read(), re.M)
        self.assertEqual([(c, s) for c, s, _ in CLAUSES], rows)

    def test_report(self):
        from wtfpy.validate import validate_bytes
        w, data = small_trace()
        rep = validate_bytes(data, "t.wtf-trace")
        self.assertTrue(rep.conformant)
        doc = rep.to_json()
        self.assertEqual((doc["schema"], doc["verdict"], doc["findings"], doc["recovered"]),
                         ("atf-validate/1", "conformant", [], []))
        self.assertIn("WTF-EVT-001", doc["clauses_checked"])
        # Bad ordinals in two chunks: one finding, the first place, the count
        # in the message.
        chunks = sorted({e.chunk for e in w.trace.events if e.name == b"s#e"})
        evs = [next(e for e in w.trace.events if e.name == b"s#e" and e.chunk == c)
               for c in chunks[-2:]]
        bad = bytearray(data)
        for e in evs:
            bad[e.offset + 12:e.offset + 16] = u32s(999)
        rep = validate_bytes(bytes(bad), "t.wtf-trace", strict=False)
        f = rep.to_json()["findings"]
        self.assertEqual([(x["clause"], x["severity"], x["file"], x["offset"], x["field"])
                          for x in f],
                         [("WTF-EVT-003", "error", "t.wtf-trace", evs[0].offset + 12, "s")])
        self.assertIn("(2 events in all)", f[0]["message"])
        self.assertFalse(rep.conformant)
        # A cut: WTF-REC-001, the events read, conformant unless --strict.
        cut = data[:-5]
        rep = validate_bytes(cut, "t.wtf-trace")
        self.assertEqual(rep.to_json()["recovered"],
                         [{"file": "t.wtf-trace", "events": len(read_trace(cut).events)}])
        self.assertTrue(rep.conformant)
        self.assertFalse(validate_bytes(cut, "t.wtf-trace", strict=True).conformant)

    def test_semantic_clauses(self):
        from wtfpy.validate import validate_bytes

        def clauses(w):
            return sorted({f.clause for f in validate_bytes(w.finish(), "t").findings})

        w = TraceWriter(header=header_json(1.0))
        w.zone_set(3, 1)
        self.assertEqual(clauses(w), ["WTF-ZON-001"])
        w = TraceWriter(header=header_json(1.0))
        e = w.define("a#b", "uint32 x", 1, 0x80, 1)
        w.event(e, 5, 1)
        w.event(e, 4, 2)
        self.assertEqual(clauses(w), ["WTF-DEF-005", "WTF-EVT-006", "WTF-SCO-002"])
        w = TraceWriter(header=header_json(1.0, flags=["x"]))
        w.time_stamp("t", "{", 1)
        self.assertEqual(clauses(w), ["WTF-EVT-005", "WTF-FH-006"])


class CorpusGeneratorTest(unittest.TestCase):
    def test_deterministic_and_checked(self):
        tmp = tempfile.mkdtemp(prefix="wtf-corpus-test-")
        try:
            gen = os.path.join(PY, "make_wtf_corpus.py")
            outs = []
            for seed in ("1", "2"):
                out = os.path.join(tmp, seed)
                env = dict(os.environ, PYTHONHASHSEED=seed)
                p = subprocess.run([sys.executable, gen, "--out", out], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                self.assertEqual(p.returncode, 0, p.stdout.decode())
                outs.append(out)
            p = subprocess.run(["diff", "-r", outs[0], outs[1]], stdout=subprocess.PIPE)
            self.assertEqual(p.returncode, 0, p.stdout.decode()[:500])
            victim = os.path.join(outs[0], "y_js_snapshot", "trace.wtf-trace")
            with open(victim, "r+b") as f:
                f.seek(40)
                f.write(b"\x01")
            p = subprocess.run([sys.executable, gen, "--check", outs[0]],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(p.returncode, 1)
            self.assertIn("differs: y_js_snapshot/trace.wtf-trace", p.stdout.decode())
        finally:
            shutil.rmtree(tmp)


# ---- The tool ----------------------------------------------------------------------------

class ToolTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="wtfpy-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_tool(self, *args):
        p = subprocess.run([sys.executable, TOOL] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def test_dump_exit_codes(self):
        w, data = small_trace()
        path = os.path.join(self.tmp, "t.wtf-trace")
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err = self.run_tool("dump", "--json", path)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, "".join(dump_lines(w.trace)))
        with open(path, "wb") as f:
            f.write(data[:-5])
        rc, out, err = self.run_tool("dump", "--json", path)
        self.assertEqual(rc, 0)
        self.assertIn("events recovered", err)
        bad = bytearray(data)
        ev = w.trace.events[-1]
        bad[ev.offset:ev.offset + 4] = u32s(77)
        with open(path, "wb") as f:
            f.write(bad)
        rc, out, err = self.run_tool("dump", "--json", path)
        self.assertEqual(rc, 1)
        self.assertIn("wire id 77 is not defined", err)
        self.assertEqual(out, "".join(dump_lines(w.trace)[:-1]))
        self.assertEqual(self.run_tool("dump", "--json", os.path.join(self.tmp, "none"))[0], 2)
        self.assertEqual(self.run_tool("dump", "--json", self.tmp)[0], 2)
        fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(fifo)
        self.assertEqual(self.run_tool("dump", "--json", fifo)[0], 2)   # never blocks
        self.assertEqual(self.run_tool("validate", "--format", "json", fifo)[0], 2)
        self.assertEqual(self.run_tool("bogus")[0], 2)


if __name__ == "__main__":
    unittest.main()
