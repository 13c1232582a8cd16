#!/usr/bin/python3
"""Self-test of rtcpy, the independent Python implementation of RTC (the Ruler
Trace Container): LEB128, the two Crc algorithms, padding, the writer against
bytes built by hand from the reference's documented layout, the reader
(records, Index targets, clocks, damage), every cut of small files at both
ends, the validator and the command-line tool (standard library unittest).

    /usr/bin/python3 formats/rtc/python/tests/test_rtcpy.py [-v]
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.dirname(HERE)                       # formats/rtc/python
REPO = os.path.dirname(os.path.dirname(os.path.dirname(PY)))
GEN = os.path.join(REPO, "conformance", "gen")   # tracepy, shared by the formats
SPEC = os.path.join(REPO, "conformance", "SPEC-RTC.md")
sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
sys.path.insert(0, GEN)
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)

from rtcpy import wire  # noqa: E402
from rtcpy.clauses import CLAUSES  # noqa: E402
from rtcpy.dump import dump_lines  # noqa: E402
from rtcpy.reader import read_rtc  # noqa: E402
from rtcpy.validate import validate_bytes  # noqa: E402
from rtcpy.writer import RtcWriter  # noqa: E402

TOOL = os.path.join(PY, "rtcpy_tool.py")


def model(w, cut=None):
    return sorted((r.offset, r.sid, [f for f, _ in r.frames], r.payload) for r in w.records
                  if cut is None or r.end() <= cut)


def got(t, shift=0):
    return sorted((r.offset + shift, r.sid, [f + shift for f in r.frames], r.payload)
                  for r in t.records)


def small_file(crc="crc-32", order="little"):
    w = RtcWriter(2048, 2048, crc=crc, order=order)
    log = w.create({"name": "log", "format": "utf-8"})
    n = w.create({"name": "n", "format": "uint32", "length": 4})
    for i in range(70):
        w.write(log, b"message %d" % i + b"." * (i % 9))
        if i % 4 == 0:
            w.write(n, i.to_bytes(4, order))
    w.write(log, b"z" * 1500)
    return w, w.stop()


class WireTest(unittest.TestCase):
    def test_crc_check_values(self):
        self.assertEqual(wire.crc_ref(b"123456789"), 0x7EAD5C77)
        self.assertEqual(wire.crc_ieee(b"123456789"), 0xCBF43926)
        self.assertEqual(wire.crc_ref(b""), 0)
        self.assertEqual(wire.crc_ref(b"a"), 0xE6939B94)
        self.assertEqual(wire.crc_ref(b"abc"), 0xD9D5C2DB)
        self.assertEqual(wire.crc_ref(bytes(4)), 0x4B90B035)

    def test_leb128(self):
        for v in (0, 1, 127, 128, 300, 2 ** 63, 2 ** 64 - 1):
            b = wire.uleb(v)
            self.assertEqual(wire.read_uleb(b, 0), (v, len(b), True))
        self.assertEqual(wire.read_uleb(b"\x80\x00", 0), (0, 2, False))
        with self.assertRaises(wire.LebError):
            wire.read_uleb(b"\x80" * 10 + b"\x01", 0)
        with self.assertRaises(wire.LebError):
            wire.read_uleb(b"\x80", 0)
        for v in (0, -1, 63, -64, 64, -65, -123456789, 2 ** 63 - 1, -2 ** 63):
            b = wire.sleb(v)
            self.assertEqual(wire.read_sleb(b, 0, len(b)), (v, len(b)))

    def test_padding_sizes(self):
        for n in range(1, 3000):
            p = wire.padding(n)
            self.assertEqual(len(p), n)
        self.assertEqual(wire.padding(1), b"\0")
        self.assertEqual(wire.padding(3), b"\x02\x01\x00")


class WriterTest(unittest.TestCase):
    def test_minimal_bytes(self):
        """The reference's smallest file, built by hand from its layout."""
        w = RtcWriter(crc="rtc-ref")
        log = w.create('"name":"log","format":"utf-8"')
        w.write(log, b"hello")
        w.write(log, b"world!")
        d = w.stop()
        meta = b'[{"id":9,"name":"log","format":"utf-8"},10]'
        body = (bytes.fromhex("0612" "00" "0780808001" "09808010" "0b000f00110013 00".replace(
            " ", "")) + b"\x0a" + bytes([len(meta)]) + meta + bytes.fromhex("0e04030201") +
            b"\x12\x05hello\x12\x06world!")
        crc = wire.crc_ref(body).to_bytes(4, "little")
        self.assertEqual(d, wire.MARKER + body + b"\x10" + crc)
        self.assertEqual(crc, bytes.fromhex("21383bb9"))

    def test_layout(self):
        w, d = small_file()
        t = read_rtc(d)
        self.assertEqual([u.offset for u in t.units], list(range(0, len(d), 2048)))
        self.assertEqual(model(w), got(t))
        for k in range(len(d) // 2048):
            self.assertEqual(d[k * 2048:k * 2048 + 1025], wire.MARKER)
            self.assertEqual(d[(k + 1) * 2048 - 5], 0x10)

    def test_empty(self):
        w = RtcWriter()
        w.create({"name": "x"})
        self.assertEqual(w.stop(), b"")


class ReaderTest(unittest.TestCase):
    def test_both_crcs_and_orders(self):
        for crc in ("crc-32", "rtc-ref"):
            for order in ("little", "big"):
                w, d = small_file(crc, order)
                t = read_rtc(d)
                self.assertEqual(t.notes, [])
                self.assertEqual({u.crc for u in t.units}, {crc})
                self.assertEqual(t.order, order)
                self.assertEqual(model(w), got(t))

    def test_every_end_cut(self):
        w, d = small_file()
        for c in range(len(d) + 1):
            t = read_rtc(d[:c])
            self.assertEqual([n.clause for n in t.notes if n.clause and
                              not n.clause.startswith("RTC-REC")], [], c)
            self.assertEqual(model(w, c), got(t), "cut at %d" % c)
            rep = validate_bytes(d[:c], "t.rtc")
            self.assertTrue(rep.conformant, c)

    def test_every_start_cut(self):
        w, d = small_file()
        whole = {(r.offset, r.sid): r.payload for r in w.records}
        for c in range(0, len(d), 7):
            t = read_rtc(d[c:])
            first = -(-c // 2048) * 2048
            if first + 1025 > len(d):
                # no whole Marker left: nothing identifies the bytes (RTC-MRK-001)
                self.assertEqual([n.clause for n in t.notes if n.clause],
                                 ["RTC-MRK-001"] if first < len(d) or c % 2048 else
                                 [n.clause for n in t.notes if n.clause], c)
                self.assertEqual(t.records, [], c)
                continue
            self.assertEqual(t.state == t.DAMAGED, False, c)
            want = [x for x in model(w) if x[0] >= first]
            have = got(t, c)
            for x in want:
                self.assertIn(x, have, "start cut at %d" % c)
            for x in have:
                if x not in want:   # the tail of a record that began before the cut
                    owner = [p for (o, s), p in whole.items() if s == x[1] and o < first]
                    self.assertTrue(any(p.endswith(x[3]) for p in owner), (c, x))

    def test_damaged_unit_costs_that_unit(self):
        w, d = small_file()
        bad = bytearray(d)
        bad[2048 * 2 + 1400] ^= 0x01
        t = read_rtc(bytes(bad))
        self.assertEqual([n.clause for n in t.notes if n.clause], ["RTC-CRC-001"])
        self.assertEqual(t.skipped, [(4096, 2048, "crc-mismatch")])
        self.assertEqual(set(model(w)) if False else None, None)
        lost = [x for x in model(w) if any(4096 <= f < 6144 for f in x[2])]
        self.assertEqual(sorted(set(map(repr, model(w))) - set(map(repr, got(t)))),
                         sorted(map(repr, lost)))

    def test_clocks(self):
        w = RtcWriter(4096, 2048)
        c = w.create({"name": "clk", "clock": True, "format": "uint32le", "gain": 0.5})
        dc = w.create({"name": "d", "clock": True, "format": "uleb128", "gain": 0.25,
                       "delta": "clk"})
        s = w.create({"name": "s", "format": "uint8", "clock": "d"})
        w.write(c, (10).to_bytes(4, "little"))
        w.write(dc, wire.uleb(2))
        w.write(s, b"\x07")
        w.write(c, (20).to_bytes(4, "little"))
        w.write(s, b"\x08")
        w.write(dc, wire.uleb(1))
        w.write(s, b"\x09")
        t = read_rtc(w.stop())
        self.assertEqual([(r.sid, r.time, r.value) for r in t.records],
                         [(c, 5.0, "5"), (dc, 5.5, "0.5"), (s, 5.5, "7"), (c, 10.0, "10"),
                          (s, 5.5, "8"), (dc, 10.25, "0.25"), (s, 10.25, "9")])

    def test_dump_shape(self):
        w, d = small_file()
        lines = dump_lines(read_rtc(d))
        self.assertTrue(lines[0].startswith('{"rtc":1,"size":%d,"unit_size":2048,' % len(d)))
        for line in lines:
            self.assertTrue(line.endswith("\n") and ", " not in line.replace('", "', ""))


class ValidatorTest(unittest.TestCase):
    def test_clause_table_is_the_spec(self):
        with open(SPEC, encoding="utf-8") as f:
            rows = re.findall(r"^\|\s*`(RTC-[A-Z]+-\d{3})`\s*\|\s*(error|warning)", f.read(),
                              re.M)
        self.assertEqual(sorted(rows), sorted((c, s) for c, s, _ in CLAUSES))

    def test_tool(self):
        w, d = small_file()
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "t.rtc")
            with open(p, "wb") as f:
                f.write(d)
            r = subprocess.run([sys.executable, TOOL, "validate", "--format", "json", p],
                               stdout=subprocess.PIPE)
            self.assertEqual(r.returncode, 0)
            self.assertIn(b'"schema": "atf-validate/1"', r.stdout)
            with open(p, "wb") as f:
                f.write(b"not rtc at all" * 100)
            r = subprocess.run([sys.executable, TOOL, "validate", p], stdout=subprocess.PIPE)
            self.assertEqual(r.returncode, 1)
            self.assertIn(b"RTC-MRK-001", r.stdout)
            r = subprocess.run([sys.executable, TOOL, "dump", "--json", tmp],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main()
