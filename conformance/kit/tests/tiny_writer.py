#!/usr/bin/python3
"""A small third-party ATF writer and its writer-kit adapter, written from
conformance/SPEC.md alone (sections 2, 5 and 7) as a newcomer would: layout 2,
one thread, index lane only, x86_64/Linux/boottime. It shares no code with
this project's writers. Standard library only.

    tiny_writer.py --capabilities
    tiny_writer.py SCENARIO_FILE OUTPUT_DIR
"""
import json
import os
import struct
import sys

CAPABILITIES = """atf-capabilities 1
layouts 2
arch 1
os 4
clock_type 3
detail no
exceptions no
symbols no
threads 1
"""


def crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = crc32c_table()


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


class IndexWriter:
    """SPEC 2: placeholder header, 32-byte events, footer, final header."""

    def __init__(self, path, os_thread_id):
        self.f = open(path, "wb")
        self.tid = os_thread_id
        self.count = 0
        self.first = self.last = 0
        self.crc = 0
        self.f.write(self.header(0, 0, 0, 0))   # placeholder: footer_offset 0

    def header(self, count, footer_offset, t0, t1):
        h = b"ATI2" + bytes([1, 2, 1, 4])            # endian, version 2, x86_64, Linux
        h += struct.pack("<II", 0, self.tid)          # flags (no detail file), thread_id
        h += bytes([3, 0, 0, 0])                      # clock_type boottime, reserved
        h += struct.pack("<IQQQQQ", 32, count, 64, footer_offset, t0, t1)
        assert len(h) == 64
        return h

    def event(self, ts, function_id, kind):
        ev = struct.pack("<QQQB7x", ts, function_id, 0xFFFFFFFFFFFFFFFF, kind)
        self.crc = crc32c(ev, self.crc)
        self.f.write(ev)
        if self.count == 0:
            self.first = ts
        self.last = ts
        self.count += 1

    def close(self):
        footer = b"2ITA" + struct.pack("<IQQQQ", self.crc, self.count, self.first, self.last, self.count * 32)
        footer += bytes(24)
        self.f.write(footer)
        self.f.seek(0)
        self.f.write(self.header(self.count, 64 + self.count * 32, self.first, self.last))
        self.f.close()


def u64_json(v):
    return v if v < 2 ** 63 else str(v)   # SPEC 5: larger values as strings


def write(scenario, out):
    thread = None
    w = None
    with open(scenario, encoding="utf-8") as f:
        for line in f:
            rec = line.split()
            if not rec or rec[0].startswith("#"):
                continue
            if rec[0] == "layout" and rec[1] != "2":
                sys.stderr.write("tiny_writer: writes layout 2 only\n")
                return 3
            if rec[0] == "thread":
                if thread is not None:
                    sys.stderr.write("tiny_writer: writes one thread only\n")
                    return 3
                thread = (int(rec[1]), int(rec[2]))
            elif rec[0] == "e":
                if w is None:
                    os.makedirs(os.path.join(out, "thread_%d" % thread[0]))
                    w = IndexWriter(os.path.join(out, "thread_%d" % thread[0], "index.atf"), thread[1])
                if len(rec) > 7 and rec[7] != "-":
                    sys.stderr.write("tiny_writer: writes no detail events\n")
                    return 3
                w.event(int(rec[2]), int(rec[3]), int(rec[4]))
    if thread is None:
        sys.stderr.write("tiny_writer: no thread\n")
        return 3
    if w is None:
        os.makedirs(os.path.join(out, "thread_%d" % thread[0]))
        w = IndexWriter(os.path.join(out, "thread_%d" % thread[0], "index.atf"), thread[1])
    w.close()
    manifest = {"format_version": "2.0", "clock_type": 3,
                "threads": [{"id": u64_json(thread[0]), "has_detail": False}]}
    if w.count:
        manifest["time_start_ns"] = u64_json(w.first)
        manifest["time_end_ns"] = u64_json(w.last)
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    return 0


def main(argv):
    if argv == ["--capabilities"]:
        sys.stdout.write(CAPABILITIES)
        return 0
    if len(argv) != 2:
        sys.stderr.write("usage: tiny_writer.py SCENARIO_FILE OUTPUT_DIR | --capabilities\n")
        return 2
    return write(argv[0], argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
