#!/usr/bin/python3
"""Property tests (Hypothesis) between the C RTC codec and rtcpy, the
independent Python implementation of RTC (formats/rtc/python/rtcpy).

    test_rtc_properties.py --atf PATH/atf --writer PATH/rtc-prop-writer [--workdir DIR]
                           [unittest args]

Properties:
  1. Random RTC contents written by the C writer (rtc-prop-writer: a JSON
     description through the public API of atf/rtc.h) are read back by rtcpy
     with every record equal to what was written (stream, payload, in order),
     no finding of any clause, and `atf dump --json` prints rtcpy's dump of
     the file.
  2. The same contents written by rtcpy's RtcWriter are dumped by `atf dump
     --json` exactly as rtcpy dumps them, and both read back every record
     written.
  3. Any cut of such a file at both ends (a random start and a random end,
     of a file from either writer) is read the same by both: `atf dump
     --json` prints rtcpy's dump of the cut bytes, both exit 0 (cut, never
     damaged), and every record recovered is one written (or, after a start
     cut, the tail of one: SPEC-RTC R-E12).

The contents: Unit and unit sizes from 2048 up (U = u included), both Crc
kinds, both byte orders, variable and fixed-length streams of the default
formats, a clock and a stream timed by it, records from empty to several
frames long (split across frames, index frames and Units), and a stream
created after the first write (a meta record).

Derandomized by default (ctest label "property"). Longer seeded runs:
    ATF_PROPERTY_EXAMPLES=2000 ATF_PROPERTY_SEED=7 test_rtc_properties.py --atf ... --writer ...
Needs Debian's python3-hypothesis: run with /usr/bin/python3.
"""

import json
import os
import struct
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
# The harness every format's property tests share (conformance/property/).
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "conformance", "property"))
import property_common as common  # noqa: E402  (profiles, run(), fresh_dir(), main())

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rtcpy.dump import dump_lines  # noqa: E402
from rtcpy.reader import read_rtc  # noqa: E402
from rtcpy.writer import RtcWriter  # noqa: E402

GEOMETRIES = [(2048, 2048), (4096, 2048), (8192, 2048), (8192, 4096), (16384, 4096),
              (65536, 16384)]

# Stream definitions (without "id") and how to make a payload for each: a
# fixed length, or a strategy of payloads given the byte order.
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


def _int_bytes(size, signed, order):
    lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << 8 * size) - 1)
    return st.integers(lo, hi).map(lambda v: v.to_bytes(size, order, signed=signed))


def _uleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _sleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def _floats(width, order):
    fmt = ("<" if order == "little" else ">") + ("f" if width == 4 else "d")
    return st.floats(width=width * 8, allow_nan=False).map(lambda x: struct.pack(fmt, x))


PALETTE = [
    # name, definition, fixed length, payload strategy (native order -> strategy)
    ("raw", {"name": "raw"}, None,
     lambda o: st.binary(max_size=64) | st.binary(min_size=900, max_size=5000)),
    ("log", {"name": "log", "format": "utf-8"}, None, lambda o: texts.map(lambda s: s.encode())),
    ("u32", {"name": "u32", "length": 4, "format": "uint32"}, 4, lambda o: _int_bytes(4, False, o)),
    ("i16be", {"name": "i16be", "length": 2, "format": "int16be"}, 2,
     lambda o: _int_bytes(2, True, "big")),
    ("i64le", {"name": "i64le", "format": "int64le", "gain": 0.5, "offset": -3}, None,
     lambda o: _int_bytes(8, True, "little")),
    ("f64", {"name": "f64", "length": 8, "format": "float64"}, 8, lambda o: _floats(8, o)),
    ("f32be", {"name": "f32be", "format": "float32be"}, None, lambda o: _floats(4, "big")),
    ("count", {"name": "count", "format": "uleb128"}, None,
     lambda o: st.integers(0, (1 << 64) - 1).map(_uleb)),
    ("diff", {"name": "diff", "format": "leb128"}, None,
     lambda o: st.integers(-(1 << 63), (1 << 63) - 1).map(_sleb)),
    ("cfg", {"name": "cfg", "format": "json"}, None,
     # keys without U+0000, which no reader here reads (SPEC-RTC R-E19)
     lambda o: st.dictionaries(st.text(st.characters(blacklist_categories=("Cs",),
                                                     blacklist_characters="\x00"), max_size=5),
                               st.integers(-9, 9) | texts, max_size=4)
     .map(lambda d: json.dumps(d).encode())),
    ("byte", {"name": "byte", "length": 1, "format": "uint8"}, 1, lambda o: _int_bytes(1, False, o)),
    ("big", {"name": "big", "length": 200}, 200, lambda o: st.binary(min_size=200, max_size=200)),
]
CLOCK = ("clk", {"name": "clk", "length": 8, "clock": True, "format": "uint64", "gain": 1e-6}, 8)
TIMED = ("ev", {"name": "ev", "clock": "clk", "format": "utf-8"}, None)


@st.composite
def contents(draw):
    """(options, ops): ops are ("stream", definition, length) and ("write",
    k, payload) with k the index of a stream op among the stream ops."""
    U, u = draw(st.sampled_from(GEOMETRIES))
    order = draw(st.sampled_from(["little", "big"]))
    opts = {"unit_size": U, "subunit_size": u, "crc": draw(st.sampled_from(["crc-32", "rtc-ref"])),
            "big_endian": order == "big"}
    kinds = draw(st.lists(st.sampled_from(range(len(PALETTE))), min_size=1, max_size=5, unique=True))
    streams = [PALETTE[k] for k in kinds]
    clocked = draw(st.booleans())
    if clocked:
        streams += [CLOCK, TIMED]
    ops = [("stream", s[1], s[2]) for s in streams]
    late = draw(st.booleans())
    n = draw(st.integers(0, 60))
    late_at = draw(st.integers(0, n)) if late else -1
    tick = 0
    for i in range(n):
        if i == late_at:
            streams.append(("late", {"name": "late"}, None, None))
            ops.append(("stream", {"name": "late"}, None))
        k = draw(st.integers(0, len(streams) - 1))
        name = streams[k][0]
        if name == "clk":
            tick += draw(st.integers(0, 10 ** 6))
            payload = tick.to_bytes(8, order)
        elif name == "ev":
            payload = draw(texts).encode()
        elif name == "late":
            payload = draw(st.binary(max_size=3000))
        else:
            payload = draw(streams[k][3](order))
        ops.append(("write", k, payload))
    return opts, ops


def written(ops):
    """(stream index, payload) of every write, in order."""
    return [(op[1], op[2]) for op in ops if op[0] == "write"]


def write_c(opts, ops, path):
    desc = {"path": path, "options": opts, "ops": [
        {"op": "stream", "definition": op[1]} if op[0] == "stream" else
        {"op": "write", "stream": op[1], "hex": op[2].hex()} for op in ops]}
    r = common.run([common.WRITER], input=json.dumps(desc).encode())
    if r.returncode:
        raise AssertionError("rtc-prop-writer: " + r.stderr.decode("utf-8", "replace"))
    ids = json.loads(r.stdout)["ids"]
    with open(path, "rb") as f:
        return f.read(), ids


def write_py(opts, ops):
    w = RtcWriter(unit_size=opts["unit_size"], subunit_size=opts["subunit_size"], crc=opts["crc"],
                  order="big" if opts["big_endian"] else "little")
    ids = []
    for op in ops:
        if op[0] == "stream":
            ids.append(w.create(op[1], op[2]))
        else:
            w.write(ids[op[1]], op[2])
    return w.stop(), ids


def atf_dump(path):
    r = common.run([common.ATF, "dump", "--json", path])
    return r.returncode, r.stdout.decode("utf-8").splitlines(keepends=True), \
        r.stderr.decode("utf-8", "replace")


def assert_dump_equal(tc, want, got, msg):
    if want != got:
        first = next((k for k, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        tc.fail("%s: dumps differ at line %d of %d/%d:\n  rtcpy: %.300s\n  atf:   %.300s" % (
            msg, first + 1, len(want), len(got), want[first] if first < len(want) else "<end>\n",
            got[first] if first < len(got) else "<end>\n"))


def check_records(tc, t, ops, ids, msg):
    want = [(ids[k], p) for k, p in written(ops)]
    got = [(r.sid, bytes(r.payload)) for r in sorted(t.records, key=lambda r: r.offset)]
    tc.assertEqual(len(got), len(want), "%s: records read back / written" % msg)
    for i, (g, x) in enumerate(zip(got, want)):
        tc.assertEqual(g, x, "%s: record %d" % (msg, i))


# Files are small and quick to write: more examples than the shared default
# (25) in the derandomized run; ATF_PROPERTY_EXAMPLES still decides when set.
MORE = settings(max_examples=common.EXAMPLES or (500 if common.SEED else 150))


class Properties(unittest.TestCase):
    @MORE
    @given(contents())
    def test_1_c_writer_files_read_back_in_rtcpy(self, c):
        opts, ops = c
        d = common.fresh_dir("p1")
        path = os.path.join(d, "t.rtc")
        data, ids = write_c(opts, ops, path)
        t = read_rtc(data)
        self.assertEqual([(n.clause, n.offset, n.message) for n in t.notes if n.clause], [])
        check_records(self, t, ops, ids, "C-written file, read by rtcpy")
        rc, got, err = atf_dump(path)
        self.assertEqual(rc, 0, err)
        assert_dump_equal(self, dump_lines(t), got, "C-written file")

    @MORE
    @given(contents())
    def test_2_rtcpy_files_dump_identically_in_c(self, c):
        opts, ops = c
        data, ids = write_py(opts, ops)
        d = common.fresh_dir("p2")
        path = os.path.join(d, "t.rtc")
        with open(path, "wb") as f:
            f.write(data)
        t = read_rtc(data)
        self.assertEqual([(n.clause, n.offset, n.message) for n in t.notes if n.clause], [])
        check_records(self, t, ops, ids, "rtcpy-written file")
        rc, got, err = atf_dump(path)
        self.assertEqual(rc, 0, err)
        assert_dump_equal(self, dump_lines(t), got, "rtcpy-written file")

    @MORE
    @given(contents(), st.booleans(), st.data())
    def test_3_cuts_at_both_ends_recover_the_same(self, c, by_c, data):
        opts, ops = c
        d = common.fresh_dir("p3")
        path = os.path.join(d, "t.rtc")
        whole, ids = write_c(opts, ops, path) if by_c else write_py(opts, ops)
        start = data.draw(st.integers(0, len(whole)), label="start")
        end = data.draw(st.integers(start, len(whole)), label="end")
        cut = whole[start:end]
        with open(path, "wb") as f:
            f.write(cut)
        t = read_rtc(cut)
        msg = "%s-written file of %d bytes cut to [%d, %d)" % ("C" if by_c else "rtcpy", len(whole),
                                                               start, end)
        rc, got, err = atf_dump(path)
        assert_dump_equal(self, dump_lines(t), got, msg)
        # every record recovered is one written, or after a start cut the tail
        # of one, read as a record (R-E12): its value may then break its format
        payloads = [(ids[k], p) for k, p in written(ops)]
        tails = set()
        for r in t.records:
            rec = (r.sid, bytes(r.payload))
            if rec in payloads:
                continue
            tail = start > 0 and any(s == r.sid and p.endswith(rec[1]) for s, p in payloads)
            self.assertTrue(tail, "%s: record at %d (stream %d, %d bytes) was never written"
                            % (msg, r.offset, r.sid, len(r.payload)))
            tails.add(r.offset)
        errors = [(n.clause, n.offset) for n in t.notes if n.clause and
                  not n.clause.startswith("RTC-REC-") and n.clause != "RTC-MRK-001" and
                  not (n.clause.startswith("RTC-FMT-") and n.offset in tails)]
        self.assertEqual(errors, [], msg)
        # exit 0 (cut at either end), 1 when no Marker is left (not an RTC
        # file) or a tail breaks its format
        bad = any(n.clause == "RTC-MRK-001" or (n.clause and n.clause.startswith("RTC-FMT-") and
                                                 n.clause != "RTC-FMT-004") for n in t.notes)
        self.assertEqual(rc, 1 if bad else 0, "%s: %s" % (msg, err))


if __name__ == "__main__":
    common.main(Properties)
