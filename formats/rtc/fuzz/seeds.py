"""RTC's fuzz seeds (fuzz/gen_seeds.py runs generate()).

RTC targets (rtc_*): every case of the RTC golden corpus (corpus/rtc/) and
files rtcpy writes (several Unit and unit sizes, byte orders, Crc kinds),
cut at both ends, with a flipped byte and a garbage block; LEB128 forms,
Marker-scan inputs, frame bodies, index entries, Meta/meta texts, one record
of every format, clock and writer programs. The RTC dictionaries
(formats/rtc/fuzz/dict/rtc_*.dict) come from one token table (RTC_DICT).
"""
import os
import random
import struct

from seed_support import ROOT, add_import_paths, program_seeds, write, write_dicts

add_import_paths()
DICT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dict")

RTC_MARKER = b"\x04" + b"\xb9" * 1024
RTC_FORMATS = ["uint8", "uint8le", "uint8be", "int8", "int8le", "int8be", "uint16", "uint16le", "uint16be",
               "int16", "int16le", "int16be", "uint32", "uint32le", "uint32be", "int32", "int32le", "int32be",
               "uint64", "uint64le", "uint64be", "int64", "int64le", "int64be", "float32", "float32le",
               "float32be", "float64", "float64le", "float64be", "uleb128", "leb128", "timespec", "utf-8", "json",
               "platform", "raw", "index"]
RTC_DICT = {
    "bytes": [("marker_head", b"\x04\xb9\xb9\xb9\xb9\xb9\xb9\xb9"), ("b9x8", b"\xb9" * 8),
              ("index", b"\x06"), ("index_more", b"\x07"), ("subindex", b"\x08"), ("meta", b"\x0a"),
              ("submeta", b"\x0c"), ("platform_le", b"\x0e\x04\x03\x02\x01"),
              ("platform_be", b"\x0e\x01\x02\x03\x04"), ("crc", b"\x10"), ("nop", b"\x00"),
              ("padding", b"\x02"), ("user9", b"\x12"), ("user9_more", b"\x13"), ("user10", b"\x14"),
              ("len_1024", b"\x80\x08"), ("len_1025", b"\x81\x08"), ("leb_max", b"\xff" * 9 + b"\x01"),
              ("leb_over", b"\xff" * 9 + b"\x02"), ("leb_long_zero", b"\x80\x80\x00"),
              ("entry_index_U", b"\x07\x80\x20"), ("entry_sub_u", b"\x09\x80\x20")],
    "json": [("id", b'"id":'), ("name", b'"name":'), ("length", b'"length":'), ("format", b'"format":'),
             ("cont", b'"cont":true'), ("clock", b'"clock":'), ("clock_true", b'"clock":true'),
             ("delta", b'"delta":'), ("gain", b'"gain":'), ("offset", b'"offset":'), ("stream", b'"stream":'),
             ("obj9", b'{"id":9}'), ("obj10", b'{"id":10,"length":4}'), ("next", b",11]"),
             ("big_int", b"99999999999999999999"), ("null", b"null"), ("nul", b"\\u0000")],
    "formats": [("f_" + f.replace("-", "_"), f.encode()) for f in RTC_FORMATS] +
               [("annotate", b"annotate/"), ("utf8_bad", b"\xc0\xaf"), ("surrogate", b"\xed\xa0\x80")],
}
RTC_DICT_OF = {
    "rtc_leb128": ["bytes"], "rtc_marker": ["bytes"], "rtc_frames": ["bytes"], "rtc_index": ["bytes"],
    "rtc_meta": ["json", "formats"], "rtc_format": ["formats"], "rtc_clock": ["bytes"],
    "rtc_file": ["bytes", "json", "formats"], "rtc_validate": ["bytes", "json", "formats"],
    "rtc_roundtrip": ["bytes"],
}




def rtc_uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def rtc_sources():
    """The RTC golden corpus (every class) and files rtcpy writes with several
    Unit and unit sizes, byte orders and Crc kinds."""
    from rtcpy.writer import RtcWriter
    out = []
    corpus = os.path.join(ROOT, "corpus", "rtc")
    for name in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, name, "trace.rtc")
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out.append(("golden-" + name, f.read()))
    for i, (U, u, crc, order) in enumerate([(4096, 2048, "crc-32", "little"), (2048, 2048, "rtc-ref", "big"),
                                            (8192, 2048, "crc-32", "big")]):
        w = RtcWriter(unit_size=U, subunit_size=u, crc=crc, order=order)
        log = w.create({"name": "log", "format": "utf-8"})
        n32 = w.create({"name": "n", "format": "uint32", "length": 4})
        clk = w.create({"name": "clk", "format": "uint64", "clock": True, "gain": 1e-6})
        timed = w.create({"name": "t", "format": "int16", "clock": "clk"})
        for k in range(20 + 10 * i):
            w.write(clk, struct.pack("<Q" if order == "little" else ">Q", 1000 * k))
            w.write(log, ("message %d " % k).encode() * (1 + k % 7))
            w.write(n32, struct.pack("<I", k))
            w.write(timed, struct.pack("<h", -k))
            if k % 13 == 5:
                w.write(log, bytes(range(256)) * 5)   # more than a frame
        out.append(("rtcpy-%d" % i, w.stop()))
    return out


def rtc_seeds(out, rng):
    for name, data in rtc_sources():
        write(out, "rtc_file", name, data)   # also the seeds of rtc_validate
        if name.startswith("golden-y_") or name.startswith("rtcpy"):
            n = len(data)
            for k in sorted({7, 1025, n // 2, n - 6}):
                if 0 < k < n:
                    write(out, "rtc_file", "%s-start-%d" % (name, k), data[k:])
                    write(out, "rtc_file", "%s-end-%d" % (name, k), data[:k])
            if n > 3000:
                bad = bytearray(data)
                bad[n // 2] ^= 0x40
                write(out, "rtc_file", name + "-flip", bytes(bad))
                write(out, "rtc_file", name + "-garbage", data[:n // 2] + bytes(rng.randrange(256) for _ in range(700)) +
                      data[n // 2:])
    # LEB128: shortest and longer forms, the largest values, too long, cut.
    for name, b in [("zero", b"\x00"), ("one-long", b"\x81\x80\x00"), ("max", b"\xff" * 9 + b"\x01"),
                    ("over", b"\xff" * 9 + b"\x02"), ("eleven", b"\x80" * 10 + b"\x00"), ("cut", b"\x80\x80"),
                    ("neg-one", b"\x7f"), ("int64-min", b"\x80" * 9 + b"\x7f"), ("mixed", b"\xe5\x8e\x26\x40\xc0\xbb\x78")]:
        write(out, "rtc_leb128", name, b)
    # Marker scan (0xFF n: n x 5 bytes of B9).
    whole = b"\x04\xff\xcc" + b"\xb9" * 4
    for name, b in [("whole", whole), ("whole-tail", whole + b"\x06\x0f"), ("one-more", whole + b"\xb9"),
                    ("one-less", b"\x04\xff\xcc" + b"\xb9" * 3 + b"\x06"), ("two", whole + b"\x00" + whole),
                    ("cut", b"\x04\xff\x64"), ("b9-run", b"\xff\xff\x04" + whole), ("noise", b"\x04\x04\xb9\x04")]:
        write(out, "rtc_marker", name, b)
    # Frames of Unit 0 (streams 9 raw, 10 fixed 4, 11 utf-8, 12 fixed 0); the last byte picks the ending.
    f9 = b"\x12\x05hello"
    chain = b"\x13\x03abc" + b"\x14\x01\x02\x03\x04" + b"\x12\x02de"
    for mode in range(4):
        for name, b in [("records", f9 + b"\x14\x01\x00\x00\x00" + b"\x16\x03\xc3\xa9x" + b"\x18"),
                        ("chain", chain), ("padding", b"\x00\x02\x02\x00\x00" + f9), ("open", b"\x13\x01z"),
                        ("long", b"\x12\x80\x08" + b"x" * 1024), ("too-long", b"\x12\x81\x08" + b"x" * 20),
                        ("unknown", f9 + b"\x40\x00"), ("leb-long", b"\x92\x00\x01y"), ("bad-utf8", b"\x16\x02\xc0\xaf")]:
            write(out, "rtc_frames", "%s-%d" % (name, mode), b + bytes([mode]))
    # index entries (back from 3073: records of stream 9 at 1073, 1081, 1089 in the target's file).
    for name, ents in [("good", [(3, 3073 - 1025), (9, 3073 - 1089)]), ("none", []), ("zero", [(5, 0), (9, 0)]),
                       ("bad-target", [(9, 3073 - 1090)]), ("unknown", [(20, 4)]), ("order", [(9, 0), (3, 0)]),
                       ("virtual", [(4, 5000)])]:
        b = b"".join(rtc_uleb(i << 1 | 1) + rtc_uleb(d << 1) for i, d in ents)
        write(out, "rtc_index", name, b)
    write(out, "rtc_index", "half", rtc_uleb(19))
    write(out, "rtc_index", "even-id", rtc_uleb(18) + rtc_uleb(2))
    # Meta, then a 00 byte and a meta.
    for name, b in [("one", b'[{"id":9,"name":"log","format":"utf-8"},10]'),
                    ("clocks", b'[{"id":9,"clock":true,"format":"uint32","gain":1e-6},{"id":10,"clock":"x"},11]'),
                    ("fixed", b'[{"id":9,"length":4},{"id":12,"length":1025},13]'),
                    ("dup", b'[{"id":9},{"id":9},{"id":8},{"name":1},10]'), ("not-array", b'{"id":9}'),
                    ("next-only", b"[9]"), ("empty", b""),
                    ("with-meta", b'[{"id":9},10]\x00[{"id":9},{"id":10,"cont":true},11]'),
                    ("meta-redefines", b'[{"id":9},10]\x00[{"id":9,"name":"x"},10]'),
                    ("meta-lower", b'[{"id":9},10]\x00[8]')]:
        write(out, "rtc_meta", name, b)
    # One record per format (byte 0 the format, byte 1 the inner format of annotate/, byte 2 the order).
    nf = len(RTC_FORMATS)
    sizes = {"8": 1, "16": 2, "32": 4, "64": 8}
    for i, f in enumerate(RTC_FORMATS):
        size = next((v for k, v in sizes.items() if f.rstrip("lbe").endswith(k)), 0)
        body = {"timespec": 12, "platform": 4}.get(f, size)
        payload = bytes(rng.randrange(256) for _ in range(body)) if body else {
            "uleb128": b"\xe5\x8e\x26", "leb128": b"\xc0\xbb\x78", "utf-8": "café".encode(),
            "json": b'{"a":[1,2.5,null]}', "raw": b"\x00\x01", "index": b"\x07\x80\x20"}[f]
        write(out, "rtc_format", f, bytes([i, 0, 0]) + payload)
        write(out, "rtc_format", "annotate-" + f, bytes([nf + 1, i, 1]) + b"\x01" * 12 + payload)
    for name, data in program_seeds(rng, 4).items():
        write(out, "rtc_roundtrip", name, data)
        write(out, "rtc_clock", name, data)
    for i in range(3):
        write(out, "rtc_clock", "ops-%d" % i, bytes(rng.randrange(256) for _ in range(300)))
        write(out, "rtc_roundtrip", "ops-%d" % i, bytes(rng.randrange(256) for _ in range(400)))
    write_dicts(RTC_DICT, RTC_DICT_OF, "RTC_DICT", DICT_DIR)


def add_arguments(ap):
    pass


def generate(args):
    rtc_seeds(args.out, random.Random(14))
