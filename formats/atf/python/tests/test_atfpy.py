#!/usr/bin/python3
"""Self-test of atfpy, the independent Python implementation of ATF, and of the
independent session generator and its checker (standard library unittest only).

    /usr/bin/python3 formats/atf/python/tests/test_atfpy.py [-v]
"""

import contextlib
import hashlib
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.dirname(HERE)                       # formats/atf/python
REPO = os.path.dirname(os.path.dirname(os.path.dirname(PY)))
GEN = os.path.join(REPO, "conformance", "gen")   # tracepy, shared by the formats
sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
sys.path.insert(0, GEN)
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)

import atfpy  # noqa: E402
from atfpy import (LAYOUT_1, LAYOUT_2, U32_MAX, U64_MAX, Arm64Payload,  # noqa: E402
                   AtfFormatError, DetailEvent, DetailFooter, DetailHeader, IndexEvent,
                   IndexFooter, IndexHeader)

import independent_sessions  # noqa: E402


def le(value, size):
    return value.to_bytes(size, "little")


def place(buf, offset, data):
    buf[offset:offset + len(data)] = data


class CrcTest(unittest.TestCase):
    def test_known_answers(self):
        self.assertEqual(atfpy.crc32c(b"123456789"), 0xE3069283)
        self.assertEqual(atfpy.crc32_ieee(b"123456789"), 0xCBF43926)
        self.assertEqual(atfpy.crc32_ieee_portable(b"123456789"), 0xCBF43926)
        # RFC 3720 (iSCSI) CRC32-C vectors.
        self.assertEqual(atfpy.crc32c(bytes(32)), 0x8A9136AA)
        self.assertEqual(atfpy.crc32c(b"\xff" * 32), 0x62A8AB43)
        self.assertEqual(atfpy.crc32c(bytes(range(32))), 0x46DD794E)
        self.assertEqual(atfpy.crc32c(bytes(range(31, -1, -1))), 0x113FDB5C)
        self.assertEqual(atfpy.crc32c(b""), 0)

    def test_incremental_and_ieee_matches_zlib(self):
        rng = random.Random(7)
        for n in (0, 1, 3, 64, 1000):
            a, b = rng.randbytes(n), rng.randbytes(n // 2 + 1)
            self.assertEqual(atfpy.crc32c(b, atfpy.crc32c(a)), atfpy.crc32c(a + b))
            self.assertEqual(atfpy.crc32_ieee_portable(a + b), zlib.crc32(a + b))
            self.assertEqual(atfpy.crc32_ieee_portable(b, atfpy.crc32_ieee_portable(a)),
                             zlib.crc32(a + b))


class RecordLayoutTest(unittest.TestCase):
    """Encoders against byte images built field by field from the offset tables."""

    def test_index_header_layouts(self):
        h = IndexHeader(version=LAYOUT_1, arch=2, os=1, flags=1, thread_id=0x11223344,
                        clock_type=1, event_count=0xAABBCCDD, events_offset=64,
                        footer_offset=0x1234, time_start_ns=5, time_end_ns=U64_MAX)
        img = bytearray(64)
        place(img, 0, b"ATI2" + bytes([1, 1, 2, 1]))
        place(img, 8, le(1, 4))
        place(img, 12, le(0x11223344, 4))
        img[16] = 1
        place(img, 24, le(32, 4))
        place(img, 28, le(0xAABBCCDD, 4))
        place(img, 32, le(64, 8))
        place(img, 40, le(0x1234, 8))
        place(img, 48, le(5, 8))
        place(img, 56, le(U64_MAX, 8))
        self.assertEqual(h.encode(), bytes(img))
        self.assertEqual(IndexHeader.decode(bytes(img)), h)
        h2 = IndexHeader(version=LAYOUT_2, arch=1, os=5, flags=0, thread_id=7, clock_type=2,
                         event_count=(1 << 40) + 3, events_offset=64, footer_offset=99,
                         time_start_ns=1, time_end_ns=2)
        img = bytearray(64)
        place(img, 0, b"ATI2" + bytes([1, 2, 1, 5]))
        place(img, 12, le(7, 4))
        img[16] = 2
        place(img, 20, le(32, 4))
        place(img, 24, le((1 << 40) + 3, 8))
        place(img, 32, le(64, 8))
        place(img, 40, le(99, 8))
        place(img, 48, le(1, 8))
        place(img, 56, le(2, 8))
        self.assertEqual(h2.encode(), bytes(img))
        self.assertEqual(IndexHeader.decode(bytes(img)), h2)
        with self.assertRaises(AtfFormatError):
            IndexHeader(version=LAYOUT_1, event_count=1 << 32).encode()

    def test_index_header_rejects(self):
        good = IndexHeader(version=LAYOUT_2).encode()
        for off, val in ((0, ord("X")), (4, 2), (5, 3), (20, 31), (32, 63)):
            bad = bytearray(good)
            bad[off] = val
            with self.assertRaises(AtfFormatError, msg="byte %d" % off):
                IndexHeader.decode(bytes(bad))
        with self.assertRaises(AtfFormatError):
            IndexHeader.decode(good[:63])
        bad = bytearray(good)
        bad[18] = 1
        self.assertTrue(IndexHeader.decode(bytes(bad)).reserved_nonzero)

    def test_index_event_layouts(self):
        e1 = IndexEvent(timestamp_ns=U64_MAX - 1, function_id=(3 << 32) | 9, event_kind=3,
                        detail_seq=0xFFFFFFFE, thread_id=U32_MAX, call_depth=17)
        img = le(U64_MAX - 1, 8) + le((3 << 32) | 9, 8) + le(U32_MAX, 4) + le(3, 4) + \
            le(17, 4) + le(0xFFFFFFFE, 4)
        self.assertEqual(e1.encode(LAYOUT_1), img)
        self.assertEqual(IndexEvent.decode(img, LAYOUT_1), e1)
        e2 = IndexEvent(timestamp_ns=0, function_id=U64_MAX, event_kind=255,
                        detail_seq=U64_MAX - 1)
        img = le(0, 8) + le(U64_MAX, 8) + le(U64_MAX - 1, 8) + bytes([255]) + bytes(7)
        self.assertEqual(e2.encode(LAYOUT_2), img)
        self.assertEqual(IndexEvent.decode(img, LAYOUT_2), e2)

    def test_no_detail_sentinels(self):
        e = IndexEvent(1, 2, 1, None, 5, 6)
        self.assertEqual(e.encode(LAYOUT_1)[28:32], b"\xff" * 4)
        self.assertIsNone(IndexEvent.decode(e.encode(LAYOUT_1), LAYOUT_1).detail_seq)
        e = IndexEvent(1, 2, 1, None)
        self.assertEqual(e.encode(LAYOUT_2)[16:24], b"\xff" * 8)
        self.assertIsNone(IndexEvent.decode(e.encode(LAYOUT_2), LAYOUT_2).detail_seq)
        # The sentinel value itself cannot be a link; layout-1 links are u32.
        for layout, v in ((LAYOUT_1, U32_MAX), (LAYOUT_1, 1 << 32), (LAYOUT_2, U64_MAX)):
            with self.assertRaises(AtfFormatError):
                IndexEvent(1, 2, 1, v).encode(layout)
        with self.assertRaises(AtfFormatError):          # layout-1-only fields
            IndexEvent(1, 2, 1, None, thread_id=4).encode(LAYOUT_2)
        with self.assertRaises(AtfFormatError):
            IndexEvent(1, 2, 256).encode(LAYOUT_2)
        img = bytearray(IndexEvent(1, 2, 1).encode(LAYOUT_2))
        img[31] = 1
        self.assertTrue(IndexEvent.decode(bytes(img), LAYOUT_2).reserved_nonzero)

    def test_footers(self):
        f = IndexFooter(checksum=0xDEADBEEF, event_count=10, time_start_ns=1, time_end_ns=2,
                        bytes_written=320)
        img = b"2ITA" + le(0xDEADBEEF, 4) + le(10, 8) + le(1, 8) + le(2, 8) + le(320, 8) + \
            bytes(24)
        self.assertEqual(f.encode(), img)
        self.assertEqual(IndexFooter.decode(img), f)
        d = DetailFooter(checksum=1, event_count=2, bytes_length=300, time_start_ns=4,
                         time_end_ns=5)
        img = b"2DTA" + le(1, 4) + le(2, 8) + le(300, 8) + le(4, 8) + le(5, 8) + bytes(24)
        self.assertEqual(d.encode(), img)
        self.assertEqual(DetailFooter.decode(img), d)
        with self.assertRaises(AtfFormatError):
            DetailFooter.decode(f.encode())
        with self.assertRaises(AtfFormatError):
            IndexFooter.decode(img)

    def test_detail_header(self):
        for layout in (LAYOUT_1, LAYOUT_2):
            h = DetailHeader(version=layout, arch=2, os=4, flags=0, thread_id=0x01020304,
                             events_offset=64, event_count=3, bytes_length=500,
                             index_seq_start=7, index_seq_end=U64_MAX)
            img = bytearray(64)
            place(img, 0, b"ATD2" + bytes([1, layout, 2, 4]))
            place(img, 12, le(0x01020304, 4))
            place(img, 20, le(64, 8))
            place(img, 28, le(3, 8))
            place(img, 36, le(500, 8))
            place(img, 44, le(7, 8))
            place(img, 52, le(U64_MAX, 8))
            self.assertEqual(h.encode(), bytes(img))
            self.assertEqual(DetailHeader.decode(bytes(img)), h)

    def test_detail_event_layouts(self):
        e1 = DetailEvent(event_type=4, flags=0xFFFF, index_seq=U32_MAX, timestamp=9,
                         payload=b"abc", thread_id=42)
        img = le(27, 4) + le(4, 2) + le(0xFFFF, 2) + le(U32_MAX, 4) + le(42, 4) + le(9, 8) + \
            b"abc"
        self.assertEqual(e1.encode(LAYOUT_1), img)
        self.assertEqual(DetailEvent.decode(img, LAYOUT_1), e1)
        e2 = DetailEvent(event_type=3, flags=1, index_seq=U64_MAX, timestamp=U64_MAX)
        img = le(24, 4) + le(3, 2) + le(1, 2) + le(U64_MAX, 8) + le(U64_MAX, 8)
        self.assertEqual(e2.encode(LAYOUT_2), img)
        self.assertEqual(DetailEvent.decode(img, LAYOUT_2), e2)
        with self.assertRaises(AtfFormatError):
            DetailEvent(3, 0, 1 << 32, 0).encode(LAYOUT_1)
        with self.assertRaises(AtfFormatError):       # total_length below 24
            DetailEvent.decode(le(23, 4) + bytes(20), LAYOUT_2)
        with self.assertRaises(AtfFormatError):       # longer than the buffer
            DetailEvent.decode(le(30, 4) + bytes(25), LAYOUT_2)

    def test_arm64_payload(self):
        p = Arm64Payload(function_id=U64_MAX, x=range(1, 9), lr=10, fp=11, sp=12,
                         stack=bytes(range(200)) + bytes(56))
        img = p.encode()
        self.assertEqual(len(img), 356)
        self.assertEqual(img[0:8], le(U64_MAX, 8))
        self.assertEqual(img[8:16], le(1, 8))
        self.assertEqual(img[64:72], le(8, 8))
        self.assertEqual(img[72:96], le(10, 8) + le(11, 8) + le(12, 8))
        self.assertEqual(img[96:100], le(256, 2) + le(0, 2))
        self.assertEqual(Arm64Payload.decode(img), p)
        for ss in (0, 128):
            q = Arm64Payload(1, [0] * 8, 2, 3, 4, stack=b"\x5a" * ss)
            self.assertEqual(len(q.encode()), 100 + ss)
            self.assertEqual(Arm64Payload.decode(q.encode()), q)
        for bad in (img[:-1], img + b"\0", img[:99],
                    Arm64Payload(1, [0] * 8, 2, 3, 4, stack=bytes(257)).encode(strict=False)):
            self.assertIsNone(Arm64Payload.try_decode(bad))
        with self.assertRaises(AtfFormatError):
            Arm64Payload(1, [0] * 8, 2, 3, 4, stack=bytes(257)).encode()
        with self.assertRaises(AtfFormatError):
            Arm64Payload(1, [0] * 7, 2, 3, 4)


def small_thread(layout, n=40, with_detail=True, seed=3, stack_sizes=(0, 128, 256, 7)):
    rng = random.Random(seed)
    events, details = [], ([] if with_detail else None)
    for seq in range(n):
        ev = IndexEvent(timestamp_ns=1000 + seq * 10, function_id=rng.getrandbits(64),
                        event_kind=1 + seq % 3)
        if layout == LAYOUT_1:
            ev.thread_id, ev.call_depth = 77, seq % 5
        if with_detail and seq % 2:
            ss = stack_sizes[len(details) % len(stack_sizes)]
            pl = Arm64Payload(ev.function_id, [seq] * 8, 1, 2, 3, stack=rng.randbytes(ss)).encode()
            details.append(DetailEvent(3 + seq % 2, 0, seq, ev.timestamp_ns, pl,
                                       77 if layout == LAYOUT_1 else 0))
            ev.detail_seq = len(details) - 1
        events.append(ev)
    return atfpy.ThreadModel(id=3, os_thread_id=77, events=events, detail_events=details)


class FileTest(unittest.TestCase):
    def test_finalized_round_trip(self):
        for layout in (LAYOUT_1, LAYOUT_2):
            t = small_thread(layout)
            for ck in ("crc32c", "none") + (("crc32",) if layout == LAYOUT_1 else ()):
                data = atfpy.build_index_file(t.events, layout=layout, arch=2, os=4,
                                              clock_type=3, thread_id=77, has_detail_file=True,
                                              checksum=ck)
                self.assertEqual(len(data), 64 + 40 * 32 + 64)
                f = atfpy.parse_index_file(data)
                self.assertEqual(f.events, t.events)
                self.assertEqual((f.header.event_count, f.header.footer_offset), (40, 64 + 1280))
                self.assertEqual((f.header.time_start_ns, f.header.time_end_ns), (1000, 1390))
                self.assertEqual(f.header.flags, 1)
                self.assertEqual(f.footer.bytes_written, 1280)
                self.assertEqual(f.checksum_state, {"crc32c": "crc32c", "none": "zero",
                                                    "crc32": "crc32"}[ck])
                self.assertEqual(struct.unpack_from("<I", data, 64 + 1280 + 4)[0],
                                 {"crc32c": atfpy.crc32c(data[64:64 + 1280]), "none": 0,
                                  "crc32": zlib.crc32(data[64:64 + 1280])}[ck])
                ddata = atfpy.build_detail_file(t.detail_events, layout=layout, arch=2, os=4,
                                                thread_id=77, checksum=ck)
                d = atfpy.parse_detail_file(ddata)
                self.assertEqual([e for _, e in d.events], t.detail_events)
                self.assertEqual([o for o, _ in d.events], atfpy.detail_offsets(t.detail_events))
                blen = sum(e.total_length for e in t.detail_events)
                self.assertEqual((d.header.event_count, d.header.bytes_length), (20, blen))
                self.assertEqual((d.header.index_seq_start, d.header.index_seq_end), (1, 39))
                self.assertEqual(d.footer_offset, 64 + blen)
                self.assertEqual((d.footer.time_start_ns, d.footer.time_end_ns), (1010, 1390))
            with self.assertRaises(ValueError) if layout == LAYOUT_2 else contextlib.nullcontext():
                atfpy.build_index_file([], layout=layout, arch=2, os=4, clock_type=3,
                                       thread_id=1, has_detail_file=False, checksum="crc32")

    def test_checksum_mismatch_detected(self):
        t = small_thread(LAYOUT_2)
        data = bytearray(atfpy.build_index_file(t.events, layout=LAYOUT_2, arch=2, os=4,
                                                clock_type=3, thread_id=77,
                                                has_detail_file=True))
        data[100] ^= 1
        with self.assertRaises(AtfFormatError):
            atfpy.parse_index_file(bytes(data))
        atfpy.parse_index_file(bytes(data), verify=False)
        # Layout 2 does not accept CRC32/IEEE.
        good = atfpy.build_index_file(t.events, layout=LAYOUT_2, arch=2, os=4, clock_type=3,
                                      thread_id=77, has_detail_file=True)
        body = good[64:64 + 40 * 32]
        forged = bytearray(good)
        place(forged, 64 + 40 * 32 + 4, le(zlib.crc32(body), 4))
        with self.assertRaises(AtfFormatError):
            atfpy.parse_index_file(bytes(forged))

    def test_footer_count_beyond_file_is_error(self):
        t = small_thread(LAYOUT_2, with_detail=False)
        data = bytearray(atfpy.build_index_file(t.events, layout=LAYOUT_2, arch=2, os=4,
                                                clock_type=3, thread_id=77,
                                                has_detail_file=False, checksum="none"))
        place(data, 64 + 40 * 32 + 8, le(41, 8))
        with self.assertRaises(AtfFormatError):
            atfpy.parse_index_file(bytes(data))

    def test_crash_recovery_every_cut(self):
        for layout in (LAYOUT_1, LAYOUT_2):
            t = small_thread(layout, n=12)
            idx = atfpy.build_index_file(t.events, layout=layout, arch=2, os=4, clock_type=3,
                                         thread_id=77, has_detail_file=True, finalized=False)
            self.assertEqual(len(idx), 64 + 12 * 32)
            h = IndexHeader.decode(idx)
            self.assertEqual((h.event_count, h.footer_offset, h.time_start_ns, h.time_end_ns),
                             (0, 0, 0, 0))
            for cut in range(64, len(idx) + 1):
                f = atfpy.parse_index_file(idx[:cut])
                k = (cut - 64) // 32
                self.assertTrue(f.recovered)
                self.assertEqual(f.events, t.events[:k])
                self.assertEqual(f.trailing_bytes, (cut - 64) % 32)
            det = atfpy.build_detail_file(t.detail_events, layout=layout, arch=2, os=4,
                                          thread_id=77, finalized=False)
            dh = DetailHeader.decode(det)
            self.assertEqual((dh.event_count, dh.bytes_length, dh.index_seq_start,
                              dh.index_seq_end), (0, 0, 0, 0))
            offs = atfpy.detail_offsets(t.detail_events)
            model = atfpy.SessionModel("x", layout=layout, crashed=True, threads=[t])
            for cut in range(64, len(det) + 1):
                f = atfpy.parse_detail_file(det[:cut])
                want = [(o, e) for o, e in zip(offs, t.detail_events) if o + e.total_length <= cut]
                self.assertEqual(f.events, want, "cut %d" % cut)
                t.detail_cut = cut
                self.assertEqual(model.visible_detail(t), want)


class DumpTest(unittest.TestCase):
    def _model(self, layout):
        t = atfpy.ThreadModel(id=4, os_thread_id=9)
        p = Arm64Payload(5, [1, 2, 3, 4, 5, 6, 7, U64_MAX], 8, 9, 10, stack=b"\xab\x01").encode()
        t.detail_events = [DetailEvent(3, 2, 0, 100, p, 9 if layout == LAYOUT_1 else 0)]
        t.events = [IndexEvent(100, 5, 1, 0), IndexEvent(101, U64_MAX, 2, None)]
        if layout == LAYOUT_1:
            for e in t.events:
                e.thread_id, e.call_depth = 9, 1
        return atfpy.SessionModel("m", layout=layout, threads=[t], hex_form=True,
                                  symbols=[atfpy.Symbol(U64_MAX, U32_MAX, U32_MAX, 'n"\u00e9')])

    def test_lines_layout_2(self):
        lines = atfpy.expected_dump(self._model(LAYOUT_2))
        pl = "".join(le(v, 8).hex() for v in (5, 1, 2, 3, 4, 5, 6, 7, U64_MAX, 8, 9, 10))
        pl += "0200" + "0000" + "ab01"          # stack_size, reserved, stack
        self.assertEqual(lines, [
            '{"thread":4,"seq":0,"timestamp_ns":100,"function_id":5,"event_kind":1,'
            '"detail_seq":0,"detail":{"detail_seq":0,"offset":64,"total_length":126,'
            '"event_type":3,"flags":2,"index_seq":0,"timestamp":100,"payload":"%s",'
            '"arm64":{"function_id":5,"x":[1,2,3,4,5,6,7,18446744073709551615],"lr":8,'
            '"fp":9,"sp":10,"stack_size":2,"stack":"ab01"}}}\n' % pl,
            '{"thread":4,"seq":1,"timestamp_ns":101,"function_id":18446744073709551615,'
            '"event_kind":2,"detail_seq":null,"symbol":"n\\"\\u00e9"}\n'])

    def test_lines_layout_1(self):
        lines = atfpy.expected_dump(self._model(LAYOUT_1))
        self.assertTrue(lines[0].startswith(
            '{"thread":4,"seq":0,"timestamp_ns":100,"function_id":5,"event_kind":1,'
            '"detail_seq":0,"thread_id":9,"call_depth":1,"detail":{"detail_seq":0,'
            '"offset":64,"total_length":126,"event_type":3,"flags":2,"index_seq":0,'
            '"thread_id":9,"timestamp":100,"payload":"05'), lines[0])
        self.assertEqual(lines[1], '{"thread":4,"seq":1,"timestamp_ns":101,'
                         '"function_id":18446744073709551615,"event_kind":2,"detail_seq":null,'
                         '"thread_id":9,"call_depth":1,"symbol":"n\\"\\u00e9"}\n')

    def test_no_arm64_for_x86_or_other_types(self):
        m = self._model(LAYOUT_2)
        m.arch = atfpy.ARCH_X86_64
        self.assertNotIn('"arm64"', atfpy.expected_dump(m)[0])
        m = self._model(LAYOUT_2)
        m.threads[0].detail_events[0].event_type = 5
        self.assertNotIn('"arm64"', atfpy.expected_dump(m)[0])

    def test_session_round_trip_and_manifest(self):
        tmp = tempfile.mkdtemp()
        try:
            for layout in (LAYOUT_1, LAYOUT_2):
                m = self._model(layout)
                m.threads.append(small_thread(layout, with_detail=False, seed=5))
                m.threads[-1].id = 1
                d = os.path.join(tmp, "s%d" % layout)
                atfpy.write_session(m, d)
                atfpy.check_session(m, d)
                man = atfpy.load_manifest(os.path.join(d, "manifest.json"))
                self.assertEqual(man["format_version"], "2.1")
                self.assertEqual(man["symbols"][0]["function_id"], "0xffffffffffffffff")
                self.assertEqual([t["id"] for t in man["threads"]], [4, 1])
                self.assertEqual(man["threads"][1]["has_detail"], False)
                self.assertEqual(atfpy.expected_dump(d), atfpy.expected_dump(m))
                self.assertTrue(atfpy.expected_dump(m)[0].startswith('{"thread":1,'))
        finally:
            shutil.rmtree(tmp)

    def test_parse_manifest_int(self):
        self.assertEqual(atfpy.parse_manifest_int("0xFFFFFFFFFFFFFFFF"), U64_MAX)
        self.assertEqual(atfpy.parse_manifest_int(12), 12)
        for bad in ("12", True, 1.5, "0x"):
            with self.assertRaises(ValueError):
                atfpy.parse_manifest_int(bad)


def tree_digest(root):
    h = hashlib.sha256()
    for dp, dns, fns in sorted(os.walk(root)):
        dns.sort()
        for fn in sorted(fns):
            p = os.path.join(dp, fn)
            h.update(os.path.relpath(p, root).encode() + b"\0")
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


class GeneratorTest(unittest.TestCase):
    SCALE = 0.05

    def test_generate_selfcheck_deterministic(self):
        tmp = tempfile.mkdtemp()
        try:
            a, b, c = (os.path.join(tmp, x) for x in "abc")
            ia = independent_sessions.write_all(a, 5, self.SCALE)
            independent_sessions.write_all(b, 5, self.SCALE)
            independent_sessions.write_all(c, 6, self.SCALE)
            self.assertEqual(tree_digest(a), tree_digest(b))
            self.assertNotEqual(tree_digest(a), tree_digest(c))
            names = [s["name"] for s in ia["sessions"]]
            self.assertEqual(len(names), len(set(names)))
            for s in ia["sessions"]:
                self.assertTrue(os.path.exists(os.path.join(a, s["dir"], "manifest.json")))
                with open(os.path.join(a, s["expected"]), "rb") as f:
                    data = f.read()
                self.assertEqual(data.count(b"\n"), s["lines"])
            kinds = {(s["layout"], s["checksum"], s["crashed"]) for s in ia["sessions"]}
            for want in ((1, "none", False), (1, "crc32", False), (1, "crc32c", False),
                         (2, "crc32c", False), (1, "crc32c", True), (2, "crc32c", True)):
                self.assertIn(want, kinds)
        finally:
            shutil.rmtree(tmp)

    def test_checker_with_python_tool(self):
        """The harness passes atfpy's own dumper and catches a one-byte change."""
        tmp = tempfile.mkdtemp()
        try:
            checker = os.path.join(REPO, "conformance", "tests", "check_independent_sessions.py")
            tool = os.path.join(PY, "atfpy_tool.py")
            cmd = [sys.executable, checker, "--atf", tool, "--workdir", tmp,
                   "--scale", str(self.SCALE), "--seed", "3"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out = p.stdout.decode()
            self.assertEqual(p.returncode, 0, out)
            self.assertRegex(out.splitlines()[-1], r"^\d+ passed, 0 failed$")
            exp = os.path.join(tmp, "sessions", "l2_x86_64_opaque.expected.jsonl")
            with open(exp, "rb") as f:
                data = f.read()
            with open(exp, "wb") as f:
                f.write(data.replace(b'"seq":1,', b'"seq":1 ,', 1))
            p = subprocess.run(cmd[:-2] + ["--seed", "3", "--no-generate",
                                           "--only", "l2_x86_64_opaque"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out = p.stdout.decode()
            self.assertEqual(p.returncode, 1, out)
            self.assertIn("FAIL dump l2_x86_64_opaque\n", out)
            self.assertIn("same JSON value, different bytes", out)
            self.assertRegex(out.splitlines()[-1], r"^\d+ passed, [1-9]\d* failed$")
        finally:
            shutil.rmtree(tmp)


# A manifest as the recorder writes it while recording, with every kind of
# token (the C test's REC_MANIFEST, formats/atf/tests/test_manifest.c).
REC_MANIFEST = (
    b'{\n  "format_version": "2.1",\n  "layout": 2,\n  "clock_type": 3,\n  "arch": 1,\n  "os": 4,\n'
    b'  "time_start_ns": 0,\n  "time_end_ns": 0,\n'
    b'  "threads": [\n    {\n      "id": 0,\n      "has_detail": true,\n      "os_thread_id": 2434,\n'
    b'      "event_count": 0,\n      "detail_event_count": 0\n    },\n'
    b'    {\n      "id": 18446744073709551615,\n      "has_detail": false\n    }\n  ],\n'
    b'  "events_dropped": 0,\n  "recorder": {\n    "library_version": "0.1.0",\n    "pid": 2434,\n'
    b'    "state": "recording",\n    "load": -1.25e-3,\n    "ratio": 0.5,\n    "big": 1E+9,\n'
    b'    "none": null,\n    "tags": [],\n    "opts": {},\n    "sync": false\n  },\n'
    b'  "modules": [\n    {\n      "module_id": 1,\n      "path": "/usr/lib/x86_64-linux-gnu/libc.so.6",\n'
    b'      "base_address": "0x7f0000000000",\n      "size": 2125824,\n'
    b'      "uuid": "d8f7e2a0-\\u00e9\\t\\"q\\"\\\\\\/"\n    }\n  ],\n'
    b'  "symbols": [\n    {\n      "function_id": 4096,\n      "module_id": 1,\n      "symbol_index": 7,\n'
    b'      "name": "caf\xc3\xa9_\xe2\x82\xac_\xf0\x9f\x98\x80_\\ud83d\\ude00"\n    }\n  ],\n'
    b'  "timing_anchors": [\n    {\n      "host_time_ns": 1000,\n      "media_time_value": -90000,\n'
    b'      "media_time_scale": 90000\n    }\n  ]\n}')


class ManifestCutTest(unittest.TestCase):
    """SPEC 7a.14: a manifest.json cut by a power cut (a proper prefix of a
    JSON object, then NUL bytes) is crash-truncated, read as absent."""

    def test_every_prefix_is_a_cut(self):
        import json
        json.loads(REC_MANIFEST.decode("utf-8"))    # the text is valid JSON
        n = len(REC_MANIFEST)
        for k in range(n):
            raw = REC_MANIFEST[:k]
            self.assertEqual(atfpy.session.manifest_cut(raw), (True, k, None), k)
            tail = b"\0" * (512 - k % 512 + 512)
            self.assertEqual(atfpy.session.manifest_cut(raw + tail), (True, k, None), k)
        self.assertEqual(atfpy.session.manifest_cut(REC_MANIFEST), (False, n, None))
        self.assertEqual(atfpy.session.manifest_cut(REC_MANIFEST + b"\0" * 100), (False, n, None))
        self.assertEqual(atfpy.session.manifest_cut(REC_MANIFEST + b" \n"), (False, n + 2, None))
        self.assertEqual(atfpy.session.manifest_cut(REC_MANIFEST + b"\n{"), (False, n + 2, n + 1))

    def test_flipped_byte_is_not_a_cut(self):
        n = len(REC_MANIFEST)
        for i in range(n):
            raw = REC_MANIFEST[:i] + b"\x01" + REC_MANIFEST[i + 1:]
            for end, zeros in ((i + 1, 0), (i + 1 + (n - i - 1) // 2, 512), (n, 0)):
                cut, _, at = atfpy.session.manifest_cut(raw[:end] + b"\0" * zeros)
                self.assertFalse(cut, (i, end))
                self.assertEqual(at, i, (i, end))

    CUTS = [b"", b"\0\0\0\0", b"{", b'{"', b'{"threads"', b'{"threads" ',
            b'{"threads":', b'{"threads":[', b'{"threads":[{', b'{"threads":[{}',
            b'{"threads":[],', b'{"a":{"b":[[],{}]', b'{"a":"abc', b'{"a":"\\', b'{"a":"\\u',
            b'{"a":"\\u00', b'{"a":"\\ud83d', b'{"a":"\\ud83d\\', b'{"a":"\\ud83d\\u',
            b'{"a":"\\ud83d\\ude0', b'{"a":"\xc3', b'{"a":"\xe2\x82', b'{"a":"\xf0\x9f\x98',
            b'{"a":-', b'{"a":0', b'{"a":12', b'{"a":1.', b'{"a":1.5', b'{"a":1e', b'{"a":1E+',
            b'{"a":1e-7', b'{"a":t', b'{"a":tru', b'{"a":true', b'{"a":fals', b'{"a":nul',
            b'{"a":"b\0\0', b'{"a":' + b"[" * 4000]
    ERRORS = [(b" \n\t\r ", 5), (b" \0\0", 1), (b"x", 0), (b"  [", 2), (b'"threads', 0), (b"{,", 1), (b'{"a" 1', 5),
              (b'{"a"::', 5), (b'{"a":1 2', 7), (b'{"a":[1,]', 8), (b'{"a":[1}', 7),
              (b'{"a":{"b":1]', 11), (b'{"a":01', 6), (b'{"a":-x', 6), (b'{"a":1.e', 7),
              (b'{"a":1e+x', 8), (b'{"a":.5', 5), (b'{"a":+1', 5), (b'{"a":tx', 6),
              (b'{"a":truex', 9), (b'{"a":NaN', 5), (b'{"a":"\\x', 7), (b'{"a":"\\u00g', 10),
              (b'{"a":"\\ud83dx', 12), (b'{"a":"\\ud83d\\n', 13), (b'{"a":"\\ud83d\\u0041', 12),
              (b'{"a":"\\ude00', 6), (b'{"a":"\xff', 6), (b'{"a":"\xc0\x80', 6),
              (b'{"a":"\xe0\x80', 7), (b'{"a":"\xed\xa0', 7), (b'{"a":"\xf4\x90', 7),
              (b'{"a":"\xc3x', 7), (b'{"a":"\t', 6), (b'{"a":1}}', 7), (b'{"a":1} x', 8),
              (b"{} ", None), (b'{"a":\0"b', 5), (b'{"a":"\0b', 6), (b"{}\0", None)]

    def test_cases(self):
        for raw in self.CUTS:
            self.assertTrue(atfpy.session.manifest_cut(raw)[0], raw)
        for raw, at in self.ERRORS:
            cut, _, got = atfpy.session.manifest_cut(raw)
            self.assertFalse(cut, raw)
            self.assertEqual(got, at, raw)

    def test_session(self):
        """The validator reads a cut manifest as absent (SES-MAN-001, REC-001:
        warnings) and the session reader reads the thread directories; a
        syntax error before the end stays SES-MAN-002."""
        src = os.path.join(REPO, "corpus", "atf", "r_session_empty_manifest_l2")
        with tempfile.TemporaryDirectory() as tmp:
            sdir = os.path.join(tmp, "s")
            shutil.copytree(src, sdir)
            mpath = os.path.join(sdir, "manifest.json")
            for raw, cut in ((REC_MANIFEST[:512 + 37] + b"\0" * 475, True),
                             (REC_MANIFEST[:100], True),
                             (b"\0" * 512, True),
                             (REC_MANIFEST[:40] + b"\x01" + REC_MANIFEST[41:600], False),
                             (REC_MANIFEST + b"x", False)):
                with open(mpath, "wb") as f:
                    f.write(raw)
                rep = atfpy.validate.validate(sdir)
                got = {(f.clause, f.file) for f in rep.findings}
                if cut:
                    self.assertIn(("SES-MAN-001", "manifest.json"), got)
                    self.assertIn(("REC-001", "manifest.json"), got)
                    self.assertNotIn("SES-MAN-002", {c for c, _ in got})
                    self.assertEqual(rep.errors, 0)
                    view = atfpy.session.read_session(sdir)
                    self.assertEqual([t.id for t in view.threads], [1, 2])
                else:
                    self.assertIn(("SES-MAN-002", "manifest.json"), got)
                    self.assertNotIn(("REC-001", "manifest.json"), got)
                    with self.assertRaises(ValueError):
                        atfpy.session.read_session(sdir)
            # A cut manifest and no thread directory yet: a session of no
            # thread, said on the manifest's file with no field (as the C
            # validator says it: test_validator's same case).
            for name in os.listdir(sdir):
                if name.startswith("thread_"):
                    shutil.rmtree(os.path.join(sdir, name))
            with open(mpath, "wb") as f:
                f.write(REC_MANIFEST[:100])
            rep = atfpy.validate.validate(sdir)
            got = [(f.file, f.field) for f in rep.findings if f.clause == "SES-MAN-011"]
            self.assertEqual(got, [("manifest.json", None)])
            self.assertEqual(rep.errors, 0)


if __name__ == "__main__":
    unittest.main()
