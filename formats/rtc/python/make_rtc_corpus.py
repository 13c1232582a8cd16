#!/usr/bin/python3
"""Writes the RTC golden corpus (corpus/rtc/): Ruler Trace Container files
with the verdict each one must get, in the manner of the other formats' corpora
(corpus/README.md, tracepy.corpus): y_ valid, n_ invalid, i_
implementation-defined (SHOULD rules, warnings), r_ cut at either end.

    make_rtc_corpus.py [--out DIR]      (re)write the corpus (default: corpus/rtc/)
    make_rtc_corpus.py --check DIR      regenerate into a temporary directory and
                                        compare with DIR byte for byte
    make_rtc_corpus.py --list           print the case names and classes

Every case is written with rtcpy's writer (formats/rtc/python/rtcpy/), the
standard-library implementation of the format; nothing comes from the C codec
or from the reference implementation. For each case NAME:
    NAME/trace.rtc          the input
    NAME.expect.json        the expected verdicts, clause IDs and recovered count
    NAME.dump.jsonl         the expected `atf dump --json` (accepted cases only)
The expected clause IDs are written by hand from conformance/SPEC-RTC.md. The
expected dump is rtcpy's decoding, checked here against the writer's model:
every record the writer wrote (offset, frames, payload) must be in it for a
whole file, and exactly the complete ones for a file cut at the end.

Cases modelled on the reference writer (jhrutgers/ruler-trace): `*_ref_*`,
written with crc="rtc-ref" and its layout; y_ref_minimal and y_ref_uniteq are
byte for byte what the reference writer wrote for the same calls (its
scratch samples minimal.rtc and uniteq.rtc, not copied: regenerated here), and
the `ref_` n_/i_/r_ cases reproduce its bugs (SPEC-RTC R-E8, R-E9).

Deterministic: one random.Random per case seeded by its name. Standard
library only (Debian's /usr/bin/python3).
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
from rtcpy import wire  # noqa: E402
from rtcpy.dump import dump_lines  # noqa: E402
from rtcpy.reader import read_rtc  # noqa: E402
from rtcpy.wire import MARKER, frame_header, uleb  # noqa: E402
from rtcpy.writer import RtcWriter, fix_crc  # noqa: E402

DEFAULT_OUT = os.path.join(REPO, "corpus", "rtc")
SPEC = os.path.join(REPO, "conformance", "SPEC-RTC.md")
TARGET = "trace.rtc"
REC = "RTC-REC-001"
CUTS = ("RTC-REC-001", "RTC-REC-002")


class Case(Expectation):
    REC = REC

    def __init__(self, name, data, description, *, errors=(), warnings=(), why=None,
                 writer=None, cut=None):
        if name.startswith("r_"):
            # a file cut at the start only is recoverable too (RTC-REC-002)
            self.REC = next((c for c in CUTS if c in warnings), REC)
        self.expectation(name, description, errors, warnings, why, ())
        self.data, self.writer, self.cut = data, writer, cut

    def recovered(self):
        if not any(c in self.warnings for c in CUTS):
            return {}
        return {TARGET: len(read_rtc(self.data).records)}

    def expect(self):
        return self.expect_object(TARGET, self.recovered())


CASES = []


def add(name, data, description, **kw):
    if any(c.name == name for c in CASES):
        raise ValueError("duplicate case %s" % name)
    CASES.append(Case(name, data, description, **kw))


def R(name):
    return random.Random("rtc-corpus:" + name)


# ---- Writers --------------------------------------------------------------------------

def app(w):
    """The streams of a small instrumented program."""
    s = {}
    s["log"] = w.create({"name": "log", "format": "utf-8"})
    s["clk"] = w.create({"name": "clk", "clock": True, "format": "timespec"})
    s["dclk"] = w.create({"name": "clk delta", "clock": True, "format": "uleb128", "gain": 1e-6,
                          "delta": "clk"})
    s["sample"] = w.create({"name": "sample", "format": "uint16le", "clock": "clk delta",
                            "gain": 0.5, "offset": -3})
    s["volt"] = w.create({"name": "volt", "format": "float64be", "clock": "clk"})
    s["cfg"] = w.create({"name": "cfg", "format": "json"})
    s["blob"] = w.create({"name": "blob"})
    return s


def timespec(sec, ns, order="little"):
    return sec.to_bytes(8, order) + ns.to_bytes(4, order)


def run_app(w, s, rng, rounds, blob_max=300):
    sec, ns = getattr(w, "app_time", (1700000000, 0))
    for i in range(rounds):
        ns += rng.randrange(60000000, 900000000)
        if ns >= 10 ** 9:
            sec, ns = sec + 1, ns - 10 ** 9
        w.write(s["clk"], timespec(sec, ns, w.order))
        delta = 0
        for _ in range(rng.randrange(1, 4)):
            delta += rng.randrange(0, 15000)
            w.write(s["dclk"], uleb(delta))
            w.write(s["sample"], rng.randrange(65536).to_bytes(2, "little"))
        w.write(s["log"], ("line %d: caf\u00e9 \u20ac\n" % i).encode("utf-8"))
        if i % 3 == 0:
            w.write(s["volt"], __import__("struct").pack(">d", rng.uniform(-5, 5)))
        if i % 5 == 0:
            w.write(s["cfg"], json.dumps({"round": i, "ok": True}).encode())
        if i % 4 == 1:
            w.write(s["blob"], bytes(rng.randrange(256) for _ in range(rng.randrange(0, blob_max))))
    w.app_time = (sec, ns)


def app_file(rng, rounds=40, U=4096, u=2048, crc="crc-32", order="little", **kw):
    w = RtcWriter(U, u, crc=crc, order=order, **kw)
    s = app(w)
    run_app(w, s, rng, rounds)
    return w, s


def fill_to_room(w, sid, room):
    """Writes small records of ``sid`` until the bytes left before the next
    boundary are exactly ``room`` (>= 3 more than 0 after a frame)."""
    while True:
        r = w._room()
        if r == room:
            return
        n = r - room - 2
        if n > 127:
            n = min(n - 1, 1000) if n - 1 > 127 else 100
        if n < 0:
            n = r - 2 if r - 2 <= 127 else 100
        w.write(sid, b"f" * max(n, 0))


def ref_corrupt(text, streams):
    """A Meta text as the reference writer builds it (pieces "[", '{"id":',
    the id, "," + body, "},", the next id, "]") with its bug b: the piece
    that straddles offset 1024 continues, after the boundary, with its own
    start again instead of its rest (W:441 copies from the piece's start)."""
    pieces = [b"["]
    for sid in sorted(streams):
        st_ = streams[sid]
        if st_.closed:
            continue
        pieces += [b'{"id":', b"%d" % sid] + ([b"," + st_.body.encode()] if st_.body else []) + [b"},"]
    out, pos = bytearray(), 0
    for p in pieces:
        if pos < 1024 < pos + len(p):
            k = 1024 - pos
            out += p[:k] + p[:len(p) - k]
        else:
            out += p
        pos += len(p)
    tail = text[text.rindex(b",") + 1:]            # the next free id and "]"
    return bytes(out) + tail


def unit_at(data, k, U):
    return k * U


# ---- Valid ---------------------------------------------------------------------------

def valid_cases():
    w = RtcWriter(crc="rtc-ref")
    log = w.create('"name":"log","format":"utf-8"')
    w.write(log, b"hello")
    w.write(log, b"world!")
    add("y_ref_minimal", w.stop(), "the reference writer's smallest file (defaults 1 MiB / 128 "
        "KiB, stream log, \"hello\", \"world!\", stop): byte for byte what it writes", writer=w)
    w = RtcWriter(2048, 2048, crc="rtc-ref")
    s = w.create('"name":"log","format":"utf-8"')
    for i in range(60):
        w.write(s, b"message number %d" % i)
    add("y_ref_uniteq", w.stop(), "Unit = unit = 2048 as the reference writes it: no index "
        "frames, a message continued across a Unit start, the Index entry for index growing "
        "(R-E7)", writer=w)
    w = RtcWriter(crc="rtc-ref", order="big")
    log = w.create('"name":"log","format":"utf-8"')
    w.write(log, b"hello")
    add("y_ref_big_endian", w.stop(), "a big-endian writer: Platform 01 02 03 04, the Crc "
        "stored big-endian", writer=w)
    w, _ = app_file(R("y_app_crc32"))
    add("y_app_crc32", w.stop(), "several Units of clocks, deltas, samples, floats, json, raw "
        "blobs; CRC-32/IEEE Crcs (this project's writer)", writer=w)
    w, _ = app_file(R("y_app_ref"), crc="rtc-ref", rounds=60, U=8192)
    add("y_app_ref", w.stop(), "the same program with the reference's Crc variant and Unit "
        "8192", writer=w)
    w, _ = app_file(R("y_app_big"), order="big", rounds=30)
    add("y_app_big_endian", w.stop(), "the program on a big-endian writer", writer=w)
    w = RtcWriter(4096, 2048)
    blob = w.create({"name": "blob"})
    rng = R("y_long_records")
    for n in (3000, 1024, 1025, 5000, 1):
        w.write(blob, bytes(rng.randrange(256) for _ in range(n)))
    add("y_long_records", w.stop(), "records longer than a frame: pieces chained by more "
        "across index frames and Unit starts", writer=w)
    w = RtcWriter(4096, 2048)
    fmts = {}
    for f in ("uint8", "int8", "uint16be", "int16le", "uint32", "int32be", "uint64le",
              "int64", "float32le", "float64", "uleb128", "leb128", "timespec", "utf-8",
              "json", "raw", "platform", "png", "annotate/utf-8"):
        fmts[f] = w.create({"name": "s_" + f, "format": f})
    import struct
    vals = {"uint8": b"\xff", "int8": b"\xff", "uint16be": b"\x01\x02", "int16le": b"\xfe\xff",
            "uint32": b"\x01\0\0\x80", "int32be": b"\xff\xff\xff\xfe",
            "uint64le": b"\xff" * 8, "int64": b"\0" * 7 + b"\x80", "float32le":
            struct.pack("<f", 1.1), "float64": struct.pack("<d", -2.5e-300), "uleb128":
            uleb(2 ** 64 - 1), "leb128": wire.sleb(-123456789), "timespec":
            timespec(1700000000, 999999999), "utf-8": "\u00e9\U0001f600\"\\\n".encode(),
            "json": b'{"a":[1,2.5,"x"],"a":null}', "raw": b"\0\x01\xfe", "platform":
            b"\x04\x03\x02\x01", "png": b"\x89PNG", "annotate/utf-8":
            timespec(1700000001, 5) + b"started"}
    for f, sid in fmts.items():
        w.write(sid, vals[f])
    add("y_every_format", w.stop(), "one record of every default format (and an unknown one, "
        "png, shown raw)", writer=w)
    w = RtcWriter(4096, 2048)
    g = w.create({"name": "gone"})
    w.close(g)
    h = w.create({"name": "hid", "format": "utf-8"}, hidden=True)
    a = w.create({"name": "a", "format": "utf-8", "x-extra": [1, {"y": None}]})
    w.write(a, b"first")
    w.write(h, b"hidden")
    late = w.create({"name": "late", "format": "utf-8"})
    w.write(late, b"late stream")
    for i in range(80):
        w.write(a, b"more %d" % i)
    w.write(late, b"again")
    add("y_meta_ids", w.stop(), "a stream closed before use (id 9 never reused), a hidden "
        "stream (in Meta, not indexed), an extra property, a stream created mid-file (meta "
        "frame), next free id", writer=w)
    w = RtcWriter(8192, 2048)
    ids = [w.create({"name": "stream%02d" % k, "format": "utf-8",
                     "comment": "a long definition to make the Meta longer than a frame"})
           for k in range(20)]
    for r in range(6):
        for sid in ids:
            w.write(sid, b"r%d" % r)
    add("y_long_meta", w.stop(), "a Meta of 20 streams, longer than 1024 bytes: two pieces "
        "chained by more (written correctly, unlike the reference, R-E10)", writer=w)
    w = RtcWriter(4096, 2048)
    f = w.create({"name": "u32", "length": 4, "format": "uint32le"})
    raw = w.create({"name": "raw"})
    w.write(raw, b"x")
    for i in range(400):
        w.write(f, i.to_bytes(4, "little"))
    add("y_fixed_length", w.stop(), "a fixed-length stream (no length field) near every "
        "boundary: padded, never split (R-E8)", writer=w)
    w = RtcWriter(4096, 2048, crc="rtc-ref")
    clk = w.create('"name":"clk","clock":true,"format":"timespec"')
    sec, ns, lines = 1700000000, 5000, []
    for i in range(90):
        ns += 37000000 * (i % 5 + 1)
        sec, ns = sec + ns // 10 ** 9, ns % 10 ** 9
        w.write(clk, sec.to_bytes(8, "little"), more=True)
        w.write(clk, ns.to_bytes(4, "little"))
        if i == 0:
            stdin = w.create('"name":"stdin","cont":true,"format":"utf-8"')
        w.write(stdin, ("input line %d\n" % i).encode())
    add("y_ref_example_inputs", w.stop(), "the reference's example program (examples/inputs): "
        "a timespec clock written as two frames chained by more (u64 seconds, then u32 "
        "nanoseconds), a stream created after the first write (a meta frame)", writer=w)
    w = RtcWriter(16384, 2048, crc="rtc-ref")
    ids = [w.create('"name":"wide%03d","format":"utf-8","note":"%s"' % (k, "w" * 40))
           for k in range(60)]
    for r in range(3):
        for sid in ids:
            w.write(sid, b"%d" % r)
    add("y_ref_meta_across_index", w.stop(), "60 streams: a Meta of about 4 KiB cut into "
        "pieces chained by more with index frames between them (the reference's wide files, "
        "written correctly)", writer=w)
    w, s = app_file(R("y_ref_crc_blind_burst"), crc="rtc-ref", rounds=60)
    d = bytearray(w.stop())
    blob = next(r for r in w.records if r.sid == s["blob"] and r.offset > 4096 and
                len(r.payload) > 40 and len(r.frames) == 1)
    at = blob.frames[0][0] + blob.frames[0][1] - 20
    for k, b in enumerate(bytes.fromhex("4c13eb8a01")):
        d[at + k] ^= b
    add("y_ref_crc_blind_burst", bytes(d), "a 31-bit burst (XOR 4c 13 eb 8a 01) inside a "
        "blob of a rtc-ref Unit: the reference's Crc variant does not see it (CRC-32 would), "
        "so the file is valid with the changed blob (R-E4)")
    w = RtcWriter(1 << 21, 1 << 14)
    for sid in [w.create({"name": "s%d" % k}) for k in range(400)]:
        w.write(sid, b"v")
    add("y_index_longer_than_a_frame", w.stop(), "400 streams: the first Index is two pieces "
        "chained by more, the first ending inside an integer; the Unit size is still learnt "
        "from its first entries", writer=w)
    add("y_empty", b"", "an empty file: nothing was written (R-E18)")
    w = RtcWriter(2048, 2048)
    s = w.create({"name": "t", "format": "utf-8"})
    w.write(s, b"x" * 900)
    w.write(s, b"y" * 5)
    add("y_unit_eq_small", w.stop(), "Unit = unit = 2048 with one short Unit", writer=w)


# ---- Invalid -----------------------------------------------------------------------

def patched(data, patches, units=(), U=4096, crc="crc-32", order="little"):
    d = bytearray(data)
    for off, b in patches:
        d[off:off + len(b)] = b
    d = bytes(d)
    for k in units:
        d = fix_crc(d, k * U, (k + 1) * U - 5, crc, order)
    return d


def base(name, rounds=100, **kw):
    w, s = app_file(R(name), rounds=rounds, **kw)
    return w, s


def invalid_cases():
    add("n_mrk_001_not_rtc", b"GIF89a, not a ruler trace container\n" * 40, "no Marker at all",
        errors=["RTC-MRK-001"])
    w, s = base("n_mrk_002")
    d = w.stop()
    add("n_mrk_002_marker_byte", patched(d, [(2 * 4096 + 500, b"\xb8")]), "one B9 of Unit "
        "2's Marker changed: Unit 2 is skipped, the others read", errors=["RTC-MRK-002"])
    w, s = base("n_mrk_003", rounds=5)
    w.raw(MARKER)
    add("n_mrk_003_fake_marker", w.stop(), "Marker bytes inside a Unit (the reference can "
        "write them from a fixed 1024-byte stream, R-E11)", errors=["RTC-MRK-003"])

    w = RtcWriter(4096, 2048)
    s = app(w)

    def bad_u(wr, payload, is_index):
        if is_index and wr.count == 1:
            v, i, _ = wire.read_uleb(payload, 0)
            e, j, _ = wire.read_uleb(payload, i)
            dd, k, _ = wire.read_uleb(payload, j)
            return payload[:j] + uleb(8192 << 1) + payload[k:]
        return payload
    w.index_hook = bad_u
    run_app(w, s, R("n_uni_001"), 40)
    add("n_uni_001_unit_size_changes", w.stop(), "Unit 1's Index gives the Unit size 8192 "
        "(4096 before); its own entry then points before the file, which is not checked",
        errors=["RTC-UNI-001"])
    w, s = base("n_uni_002")
    d = w.stop()
    add("n_uni_002_no_index", patched(d, [(4096 + 1025, b"\x12")], units=[1]), "Unit 1 starts "
        "with a frame of stream 9 where its Index belongs", errors=["RTC-UNI-002"])
    add("n_uni_003_no_index_frame", patched(d, [(4096 + 1025 + 2048, b"\x12")], units=[1]),
        "the frame at Unit 1's unit boundary is not an index frame", errors=["RTC-UNI-003"])

    def raw_case(name, raw, errors=(), warnings=(), desc="", why=None, rounds=10):
        w, s = base(name, rounds=rounds)
        w.raw(raw)
        run_app(w, s, R(name + "b"), 10)
        add(name, w.stop(), desc, errors=errors, warnings=warnings, why=why)
        return w
    raw_case("n_frm_001_header_too_long", b"\x80" * 10 + b"\x01", ["RTC-FRM-001"],
             desc="a frame header of 11 LEB128 bytes")
    raw_case("n_frm_002_payload_too_long", frame_header(9, False, 2000), ["RTC-FRM-002"],
             desc="a variable-length frame of 2000 bytes")
    w, s = base("n_frm_003", rounds=5)
    fill_to_room(w, s["blob"], 600)
    w.raw(frame_header(s["blob"], False, 1000))
    add("n_frm_003_crosses_boundary", w.stop(), "a frame whose length runs over the next unit "
        "boundary", errors=["RTC-FRM-003"])
    raw_case("n_frm_004_unknown_stream", frame_header(40, False, 3) + b"abc", ["RTC-FRM-004"],
             desc="a frame of stream 40, defined nowhere")

    w = RtcWriter(8192, 2048, crc="rtc-ref")
    ids = [w.create('"name":"stream%02d","format":"utf-8","comment":"%s"' % (k, "c" * 120))
           for k in range(12)]
    w.meta_text = lambda wr, t: ref_corrupt(t, wr.streams)
    for r in range(40):
        for sid in ids:
            w.write(sid, b"r%d" % r)
    add("n_ref_long_meta_corrupt", w.stop(), "the reference writer's bug b: a Meta longer "
        "than 1024 bytes assembled piece by piece, the piece across the frame boundary "
        "repeated from its start (R-E10)", errors=["RTC-MET-001", "RTC-FRM-004"])
    def index_case(name, hook, errors, desc, warnings=(), why=None):
        w = RtcWriter(4096, 2048)
        s = app(w)
        w.create({"name": "never"})
        w.index_hook = hook
        run_app(w, s, R(name), 80)
        add(name, w.stop(), desc, errors=errors, warnings=warnings, why=why)
    index_case("n_idx_001_half_entry", lambda wr, p, I: p if I or wr.count != 1 else p + b"\x07",
               ["RTC-IDX-001"], "index frames of Unit 1 end with an id and no offset")
    index_case("n_idx_002_padding_indexed",
               lambda wr, p, I: p if I or wr.count != 1 else uleb(3) + uleb(0) + p,
               ["RTC-IDX-002"], "index frames of Unit 1 list stream 1 (padding), never indexed")
    index_case("n_idx_003_bad_target",
               lambda wr, p, I: p if I or wr.count != 1 else p + uleb(16 << 1 | 1) + uleb(5 << 1),
               ["RTC-IDX-003"], "an index entry of stream 16 pointing 5 bytes back, at no "
               "frame of it")
    index_case("n_idx_004_wrong_count",
               lambda wr, p, I: p if not I or wr.count != 2 else uleb(7) + p[1:],
               ["RTC-IDX-004"], "Unit 2's Index says Unit 7")

    def meta_case(name, fn, errors, desc, warnings=(), why=None, rounds=100):
        w = RtcWriter(4096, 2048)
        s = app(w)
        w.meta_text = fn
        run_app(w, s, R(name), rounds)
        add(name, w.stop(), desc, errors=errors, warnings=warnings, why=why)
    meta_case("n_met_001_not_json", lambda wr, t: t[:-1] if wr.count == 1 else t,
              ["RTC-MET-001"], "Unit 1's Meta lacks its closing bracket")
    meta_case("n_met_002_builtin_id", lambda wr, t: t.replace(b"[", b'[{"id":3},', 1)
              if wr.count == 1 else t, ["RTC-MET-002"], "Unit 1's Meta defines id 3")
    meta_case("n_met_003_id_redefined", lambda wr, t: t.replace(b'"name":"cfg"',
              b'"name":"config"') if wr.count == 2 else t, ["RTC-MET-003"],
              "Unit 2's Meta gives stream 14 another name")
    meta_case("n_met_004_cont_string", lambda wr, t: t.replace(b'"name":"log"',
              b'"name":"log","cont":"yes"'), ["RTC-MET-004"], "cont is a string")
    meta_case("n_met_005_length_2000", lambda wr, t: t.replace(b"]", b'{"id":16,"length":2000},'
              b"17]") if False else t.replace(b',16]', b',{"id":16,"length":2000},17]'),
              ["RTC-MET-005"], "a stream never written with a fixed length of 2000")
    w, s = base("n_plt_001", rounds=10)
    w.platform_value = 0x01020305
    run_app(w, s, R("n_plt_001b"), 30)
    add("n_plt_001_bad_value", w.stop(), "from Unit 1 on, Platform holds 0x01020305",
        errors=["RTC-PLT-001"])
    w, s = base("n_crc_001")
    d = w.stop()
    add("n_crc_001_bit_flip", patched(d, [(4096 + 1500, bytes([d[4096 + 1500] ^ 0x10]))]),
        "one bit flipped in Unit 1: the Unit is skipped, the others read",
        errors=["RTC-CRC-001"])
    add("n_crc_002_no_crc", patched(d, [(2 * 4096 - 5, b"\x00")]), "Unit 1's last 5 bytes are "
        "not a Crc frame: the Unit is skipped", errors=["RTC-CRC-002"])
    raw_case("n_crc_004_crc_mid_unit", b"\x10\x01\x02\x03\x04", ["RTC-CRC-004"],
             desc="a Crc frame in the middle of a Unit")

    def rec_case(name, body, payloads, errors=(), warnings=(), desc="", why=None):
        w, s = base(name, rounds=5)
        sid = w.create(body)
        for p in payloads:
            w.write(sid, p)
        run_app(w, s, R(name + "b"), 5)
        add(name, w.stop(), desc, errors=errors, warnings=warnings, why=why)
    rec_case("n_fmt_001_uint16_3_bytes", {"name": "x", "format": "uint16le"}, [b"abc"],
             ["RTC-FMT-001"], desc="a uint16le record of 3 bytes")
    rec_case("n_fmt_002_bad_json", {"name": "x", "format": "json"}, [b"{bad"],
             ["RTC-FMT-002"], desc="a json record that is not JSON")
    rec_case("n_fmt_002_nul_key", {"name": "x", "format": "json"}, [b'{"a\\u0000b":1}'],
             ["RTC-FMT-002"], desc="a json record whose object key holds U+0000, which the "
             "readers do not read (R-E19)")
    rec_case("n_fmt_003_leb_trailing", {"name": "x", "format": "uleb128"}, [b"\x01\x02"],
             ["RTC-FMT-003"], desc="a uleb128 record with a byte after its LEB128")
    rec_case("n_clk_001_no_such_clock", {"name": "x", "format": "uint8", "clock": "nope"},
             [b"\x01"], ["RTC-CLK-001"], desc="clock names no stream")
    rec_case("n_clk_002_text_clock", {"name": "x", "format": "utf-8", "clock": True},
             [b"noon"], ["RTC-CLK-002"], desc="a clock stream of format utf-8")
    rec_case("n_clk_003_clock_back", {"name": "c2", "format": "uint32le", "clock": True},
             [b"\x10\0\0\0", b"\x08\0\0\0"], ["RTC-CLK-003"], desc="a clock going back")


# ---- Implementation-defined (warnings) ---------------------------------------------

WHY = "SPEC-RTC makes this a SHOULD (warning): the file reads in full."


def ref_split(at_crc=False):
    """The reference writer cutting a fixed-length uint32le frame in two (R-E8):
    at Unit 0's unit boundary, or at its Crc position (the rest then comes
    after Unit 1's Marker, Index, Meta and Platform)."""
    w = RtcWriter(4096, 2048, crc="rtc-ref", bugs={"split-fixed"})
    f = w.create('"name":"u32","length":4,"format":"uint32le"')
    r = w.create('"name":"raw"')
    w.write(r, b"x")
    if at_crc:
        while len(w.buf) < 3200:
            w.write(r, b"y" * 100)
    fill_to_room(w, r, 3 + 3)
    w.write(r, b"x")
    w.write(f, b"\xd4\xc3\xb2\xa1")
    w.write(f, b"\x01\x02\x03\x04")
    w.write(r, b"after")
    return w


FRM_007_WHY = ("R-E8: the reference writer's split, read as its reader reads it; a SHOULD, "
               "every record is read.")


def impl_cases():
    w, s = base("i_frm_005", rounds=10)
    w.raw(b"\x92\x00\x03abc")
    run_app(w, s, R("i_frm_005b"), 5)
    add("i_frm_005_long_leb_header", w.stop(), "a frame id written in two LEB128 bytes",
        warnings=["RTC-FRM-005"], why=WHY)
    w, s = base("i_frm_006", rounds=10)
    w.write(s["log"], b"left open", more=True)
    add("i_frm_006_record_left_open", w.stop(), "the last record of log has more set at stop",
        warnings=["RTC-FRM-006"], why=WHY)
    w, s = base("i_pad_001", rounds=10)
    w.raw(b"\x02\x03xyz")
    run_app(w, s, R("i_pad_001b"), 5)
    add("i_pad_001_padding_not_zero", w.stop(), "a padding frame of non-zero bytes",
        warnings=["RTC-PAD-001"], why=WHY)

    def dup_first(wr, p, I):
        if I or wr.count != 1:
            return p
        _, i, _ = wire.read_uleb(p, 0)
        _, j, _ = wire.read_uleb(p, i)
        return p + p[:j]
    w = RtcWriter(4096, 2048)
    s = app(w)
    w.index_hook = dup_first
    run_app(w, s, R("i_idx_005"), 80)
    add("i_idx_005_index_twice", w.stop(), "index frames of Unit 1 list the Index twice",
        warnings=["RTC-IDX-005"], why=WHY)
    w = RtcWriter(4096, 2048)
    s = app(w)
    w.platform = False
    run_app(w, s, R("i_plt_002"), 30)
    add("i_plt_002_no_platform", w.stop(), "no Platform frame: native values read as "
        "little-endian", warnings=["RTC-PLT-002"], why=WHY)
    w, s = base("i_fmt_004", rounds=5)
    w.write(s["log"], b"\xff\xfe not utf-8")
    add("i_fmt_004_bad_utf8", w.stop(), "a utf-8 record of invalid bytes (dumped with "
        "\\ufffd)", warnings=["RTC-FMT-004"], why=WHY)
    w = RtcWriter(4096, 2048)
    s = app(w)
    w.write(s["dclk"], uleb(5))
    run_app(w, s, R("i_clk_004"), 5)
    add("i_clk_004_delta_first", w.stop(), "a delta clock frame before any base clock frame: "
        "its time is null", warnings=["RTC-CLK-004"], why=WHY)
    w = ref_split()
    add("i_ref_frm_007_fixed_split", w.stop(), "the reference writer cuts a fixed-length frame in "
        "two at a unit boundary: the first bytes with more set end at the boundary, the rest is "
        "the stream's next frame after the index frame (R-E8)", warnings=["RTC-FRM-007"],
        why=FRM_007_WHY, writer=w)
    w = ref_split(at_crc=True)
    add("i_ref_frm_007_split_at_crc", w.stop(), "the reference writer cuts a fixed-length frame "
        "at the Unit's Crc position: the rest follows the next Unit's Marker, Index, Meta and "
        "Platform (R-E8)", warnings=["RTC-FRM-007"], why=FRM_007_WHY, writer=w)
    w = RtcWriter(4096, 2048, crc="rtc-ref", bugs={"stop"})
    r = w.create('"name":"raw"')
    w.write(r, b"q")
    fill_to_room(w, r, 3)
    add("i_ref_crc_003_stop_defect", w.stop(), "the reference writer's stop within 5 bytes of "
        "a unit boundary: its final Crc covers the bytes before the padding (R-E9)",
        warnings=["RTC-CRC-003"], why="R-E9: accepted with a warning; the Unit is read.")


# ---- Recoverable (cut at either end) ------------------------------------------------

def recoverable_cases():
    w, _ = app_file(R("r_base"), rounds=100)
    d = w.stop()
    add("r_cut_end_mid_frame", d[:2 * 4096 + 1700], "cut inside Unit 2", warnings=[REC],
        writer=w, cut=2 * 4096 + 1700)
    add("r_cut_end_in_marker", d[:3 * 4096 + 300], "cut inside Unit 3's Marker",
        warnings=[REC], writer=w, cut=3 * 4096 + 300)
    add("r_cut_end_before_crc", d[:2 * 4096 - 3], "cut inside Unit 1's Crc frame",
        warnings=[REC], writer=w, cut=2 * 4096 - 3)
    add("r_cut_in_first_marker", d[:600], "only the first 600 bytes of the first Marker",
        warnings=[REC])
    add("r_cut_start_100", d[100:], "the first 100 bytes missing: read from Unit 1",
        warnings=["RTC-REC-002"])
    add("r_cut_start_at_unit", d[2 * 4096:], "starts exactly at Unit 2's Marker",
        warnings=["RTC-REC-002"])
    add("r_cut_both", d[5000:3 * 4096 + 2500], "cut at both ends", warnings=CUTS)
    w = ref_split()
    d = w.stop()
    piece = w.records[-3].frames[0][0]   # the uint32le record cut in two
    add("r_ref_split_is_cut", d[:piece + 2], "a fixed-length frame with more set that the data "
        "ends in before the unit boundary: the file is cut, not split (R-E8)", warnings=[REC],
        writer=w, cut=piece + 2)
    add("r_ref_split_cut_at_boundary", d[:2048 + 1025], "cut exactly at the unit boundary after "
        "the first piece of a split fixed-length frame: its record is incomplete (R-E8)",
        warnings=[REC, "RTC-FRM-007"], writer=w, cut=2048 + 1025)
    w = RtcWriter(4096, 2048, crc="rtc-ref", bugs={"stop"})
    r = w.create('"name":"raw"')
    w.write(r, b"r" * 1000)
    w.write(r, b"r" * 1000)
    fill_to_room(w, r, 8)
    w.write(r, b"rrr")
    add("r_ref_stop_at_unit_end", w.stop(), "the reference writer stopping 5 bytes before a "
        "Unit end writes no final Crc (R-E9): read as cut", warnings=[REC])


def all_cases():
    return collect_cases(CASES, valid_cases, invalid_cases, impl_cases, recoverable_cases)


# ---- Output ---------------------------------------------------------------------------

def model_check(c, t):
    """The writer's records against what rtcpy read: all of them for a whole
    file, the complete ones for a file cut at the end."""
    w = c.writer
    if w is None:
        return
    cut = c.cut if c.cut is not None else len(c.data)
    want = [(r.offset, r.sid, [f for f, _ in r.frames], r.payload) for r in w.records
            if r.end() <= cut and (c.cut is None or r.end() <= cut)]
    got = [(r.offset, r.sid, r.frames, r.payload) for r in t.records]
    if c.cut is not None:
        # a cut file: the records of every Unit before the cut one, and the
        # complete records of that Unit
        pass
    if sorted(want) != sorted(got):
        missing = [x[:2] for x in sorted(set(map(repr, want)) - set(map(repr, got)))][:3]
        raise SystemExit("make_rtc_corpus: %s: rtcpy read %d records, the writer wrote %d "
                         "(%s)" % (c.name, len(got), len(want), missing))


def check_case(c):
    """What rtcpy reads of the case: the clauses it expects, and for an
    accepted case the records of the writer's model."""
    t = read_rtc(c.data)
    got = sorted(set(n.clause for n in t.notes if n.clause))
    want = sorted(c.errors + c.warnings)
    if got != want:
        raise SystemExit("make_rtc_corpus: %s: rtcpy finds %s, the case expects %s" % (
            c.name, got, want))
    if not c.errors:
        model_check(c, t)
    return t


def write_corpus(out, log=None):
    return write_file_corpus(out, all_cases(), SPEC, "make_rtc_corpus", TARGET, readme,
                             check_case, lambda c, t: dump_lines(t), log)


READINGS = [
    ("Which dump", "The expected dump is rtcpy's decoding (values, times), checked against the "
     "writer's model for the records (offset, frames, payload): all of them for a whole file, "
     "the complete ones for a file cut at the end.", "y_app_crc32, r_cut_end_mid_frame"),
    ("Recovered", "The number of user records read, for a file cut at either end.",
     "r_cut_both"),
    ("Targets not checked", "An index entry whose target lies before the origin or the "
     "first Marker read, or in a skipped range, is not checked (RTC-IDX-003).",
     "n_uni_001_unit_size_changes"),
    ("A start cut", "A file starting with a Marker whose Index count is not 0 was cut at the "
     "start (RTC-REC-002), like one with bytes before its first Marker.",
     "r_cut_start_at_unit"),
    ("Skips forget clocks", "After a skipped range (a cut start, a damaged Unit) every clock "
     "is unknown until its next frame, and RTC-CLK-004 is not reported.", "r_cut_start_100"),
]


def readme(cases, clauses, cov):
    total = sum(len(c.data) for c in cases)
    out = ["# The RTC golden corpus", "",
           "Ruler Trace Container files (`.rtc`) with the verdict a conforming validator must "
           "give, and for accepted files the canonical dump (`atf dump --json`, "
           "[docs/rtc-dump-format.md](../../docs/rtc-dump-format.md)) a conforming reader "
           "must print. Every expectation names the clauses of "
           "[conformance/SPEC-RTC.md](../../conformance/SPEC-RTC.md) that decide it.", "",
           "**Generated; do not edit by hand.** `formats/rtc/python/make_rtc_corpus.py` writes "
           "every file here, this README included, with rtcpy (the standard-library Python "
           "implementation of RTC in `formats/rtc/python/rtcpy/`), not with the C codec nor the "
           "reference implementation.", "",
           "%d cases, %d bytes of RTC data. Cases modelled on the reference writer "
           "(jhrutgers/ruler-trace): `*_ref_*`; `y_ref_minimal` and `y_ref_uniteq` are byte "
           "for byte what it writes for the same calls." % (len(cases), total), "",
           ] + readme_classes(cases, REC) + [
           "", "## Files of a case", "",
           "* `NAME/trace.rtc`: the input.",
           "* `NAME.expect.json`: the expectation, schema `%s`; `recovered` is "
           "`{\"trace.rtc\": N}` for a file cut at either end, N the records read." %
           EXPECT_SCHEMA,
           "* `NAME.dump.jsonl`: for accepted cases, the exact bytes of `atf dump --json`.", "",
           "## Running", "", "```sh",
           "/usr/bin/python3 conformance/tests/run_corpus.py --atf formats/rtc/python/rtcpy_tool.py "
           "--corpus corpus/rtc --exact-warnings",
           "/usr/bin/python3 conformance/tests/check_clause_coverage.py --atf "
           "formats/rtc/python/rtcpy_tool.py --spec conformance/SPEC-RTC.md --corpus corpus/rtc",
           "/usr/bin/python3 formats/rtc/python/make_rtc_corpus.py --check corpus/rtc",
           "```", "", "## Readings", ""]
    return "\n".join(out + readme_file_end(READINGS, clauses, cov, "SPEC-RTC.md", cases)) + "\n"


def main(argv=None):
    return generator_main(argv, __doc__, DEFAULT_OUT, all_cases, write_corpus)


if __name__ == "__main__":
    sys.exit(main())
