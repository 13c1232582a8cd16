#!/usr/bin/python3
"""Writes the seed corpus of every fuzz target into corpus/fuzz-seeds/<target>/.

    fuzz/gen_seeds.py [--out DIR] [--atf PATH/TO/atf] [--wtf-scenarios PATH/TO/wtf_write_scenarios]

Seeds are real files: sessions, index/detail files, headers, footers,
payloads and manifests written by atfpy, the independent Python
implementation (formats/atf/python/atfpy), plus their crash-truncated, torn,
zero-tailed and garbage-tailed variants, and every case of the golden corpus
(corpus/atf/[ynri]_*: sessions and threads packed, files and manifests as they are). With --atf, small sessions written
by the C session writer (`atf demo`) are added as well. Session seeds use the
container format of fuzz/README.md.

WTF targets (wtf_*): the reference library's traces (corpus/wtf-real/), the
files our writer writes (wtf_write_scenarios, the interop tests' program,
found in --atf's build tree or given), every case of the WTF golden corpus
(corpus/wtf/),
their cuts, tails and damaged forms; the chunks, string tables and file
headers taken out of them; signatures; structure-aware event inputs and
writer programs. The WTF dictionaries (fuzz/dict/wtf_*.dict) are written
from one token table here, so that the targets share their words.

RTC targets (rtc_*): every case of the RTC golden corpus (corpus/rtc/) and
files rtcpy writes (several Unit and unit sizes, byte orders, Crc kinds),
cut at both ends, with a flipped byte and a garbage block; LEB128 forms,
Marker-scan inputs, frame bodies, index entries, Meta/meta texts, one record
of every format, clock and writer programs. The RTC dictionaries
(fuzz/dict/rtc_*.dict) come from one token table (RTC_DICT).

The output is deterministic: running the script again rewrites the same
bytes (the directory is cleared first).

Uses only the standard library; run it with /usr/bin/python3.
"""

import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "conformance", "gen"))
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)

import atfpy  # noqa: E402
from atfpy import (ARCH_ARM64, ARCH_X86_64, CHECKSUM_CRC32_IEEE, CHECKSUM_CRC32C,  # noqa: E402
                   CHECKSUM_NONE, CLOCK_BOOTTIME, CLOCK_MACH_CONTINUOUS, CLOCK_QPC, LAYOUT_1,
                   LAYOUT_2, OS_ANDROID, OS_IOS, OS_LINUX, OS_MACOS, OS_WINDOWS, Module,
                   SessionModel, Symbol)
from atfpy.session import thread_files  # noqa: E402
import independent_sessions as gen  # noqa: E402

CONTAINER_MAGIC = b"\xa7ATF"


def record(kind, thread, body):
    return CONTAINER_MAGIC + kind + bytes([thread]) + struct.pack("<I", len(body)) + body


def pack_files(files):
    """files: [(relative path, bytes)] -> session container bytes."""
    out = b""
    for rel, body in files:
        if rel == "manifest.json":
            out += record(b"M", 0, body)
            continue
        tdir, name = rel.split("/")
        tid = int(tdir[len("thread_"):])
        out += record(b"I" if name == "index.atf" else b"D", tid, body)
    return out


def session_files(model):
    files = [("manifest.json", (json.dumps(model.manifest(), indent=1) + "\n").encode())]
    for t in model.threads:
        index, detail = thread_files(model, t)
        files.append(("thread_%d/index.atf" % t.id, index))
        if detail is not None:
            files.append(("thread_%d/detail.atf" % t.id, detail))
    return files


def dir_files(d):
    files = []
    for base, _dirs, names in sorted(os.walk(d)):
        for n in sorted(names):
            p = os.path.join(base, n)
            with open(p, "rb") as f:
                files.append((os.path.relpath(p, d), f.read()))
    files.sort(key=lambda x: (x[0] != "manifest.json", x[0]))
    return files


# ---- Small sessions built with atfpy -----------------------------------------

def small_sessions():
    rng = random.Random(20240505)
    out = []

    def add(name, layout, arch, os_, clock, checksum, specs, symbols=False, crashed=False,
            hex_form=False, cuts=None):
        s = SessionModel(name, layout=layout, arch=arch, os=os_, clock_type=clock,
                         checksum=checksum, crashed=crashed, hex_form=hex_form)
        pool = gen.function_pool(rng, modules=2, per_module=6)
        if symbols:
            s.modules = gen.modules_for(2)
            s.symbols = gen.symbols_for(rng, pool, s.modules, gen.TRICKY_NAMES, share=0.8)
        s.threads = [gen.gen_thread(rng, s, sp, pool) for sp in specs]
        for t, cut in zip(s.threads, cuts or []):
            if cut:
                t.index_cut, t.detail_cut = cut
        out.append(s)
        return s

    T = gen.ThreadSpec
    add("l2_arm64_symbols", LAYOUT_2, ARCH_ARM64, OS_LINUX, CLOCK_BOOTTIME, CHECKSUM_CRC32C,
        [T(0, 24, True, forced_stack_sizes=(0, 16, 256), detail_windows=1), T(3, 12)],
        symbols=True, hex_form=True)
    add("l1_arm64_ios", LAYOUT_1, ARCH_ARM64, OS_IOS, CLOCK_MACH_CONTINUOUS, CHECKSUM_CRC32C,
        [T(0, 20, True, forced_stack_sizes=(128, 0), detail_windows=1), T(1, 8)])
    add("l1_crc32_ieee", LAYOUT_1, ARCH_ARM64, OS_ANDROID, CLOCK_BOOTTIME, CHECKSUM_CRC32_IEEE,
        [T(2, 16, True, forced_stack_sizes=(32,), detail_windows=1)])
    add("l1_checksum0", LAYOUT_1, ARCH_ARM64, OS_MACOS, CLOCK_MACH_CONTINUOUS, CHECKSUM_NONE,
        [T(0, 12, True, forced_stack_sizes=(8,), detail_windows=1), T(1, 6)])
    add("l2_x86_64_opaque", LAYOUT_2, ARCH_X86_64, OS_WINDOWS, CLOCK_QPC, CHECKSUM_CRC32C,
        [T(0, 16, True, detail_windows=1), T(9, 0)])
    add("l2_crashed", LAYOUT_2, ARCH_ARM64, OS_LINUX, CLOCK_BOOTTIME, CHECKSUM_CRC32C,
        [T(0, 20, True, forced_stack_sizes=(64,), detail_windows=1), T(1, 10)],
        crashed=True, cuts=[(64 + 32 * 13 + 7, None), (None, None)])
    add("l1_crashed", LAYOUT_1, ARCH_ARM64, OS_IOS, CLOCK_MACH_CONTINUOUS, CHECKSUM_NONE,
        [T(0, 14, True, forced_stack_sizes=(0,), detail_windows=1)], crashed=True)
    return out


def session_variants(model):
    """(name, files) of a model and of broken sessions derived from it."""
    files = session_files(model)
    yield model.name, files
    if model.name == "l2_arm64_symbols":
        yield "no_manifest", [f for f in files if f[0] != "manifest.json"]
        m = json.loads(files[0][1])
        m["threads"].append({"id": 42, "has_detail": True})
        yield "manifest_extra_thread", [("manifest.json", json.dumps(m).encode())] + files[1:]
        m = json.loads(files[0][1])
        m["threads"] = m["threads"][:1]
        yield "unlisted_thread_dir", [("manifest.json", json.dumps(m).encode())] + files[1:]
        # A broken forward link and a flag that disagrees with the files.
        broken = []
        for rel, body in files:
            if rel == "thread_0/index.atf":
                body = bytearray(body)
                for seq in range((len(body) - 128) // 32):
                    off = 64 + 32 * seq
                    if body[off + 16:off + 24] != b"\xff" * 8:
                        body[off + 16] ^= 1
                        break
                body = bytes(body)
            if rel == "thread_3/index.atf":
                body = body[:8] + b"\x01" + body[9:]
            broken.append((rel, body))
        yield "broken_links_and_flags", broken
        # Mixed layouts in one thread.
        mixed = [(r, b[:5] + b"\x01" + b[6:] if r == "thread_0/detail.atf" else b) for r, b in files]
        yield "mixed_layouts", mixed


# ---- File variants -------------------------------------------------------------

def index_variants(name, data, rng):
    yield name, data
    if len(data) <= 128:
        return
    n = (len(data) - 128) // 32
    fo = 64 + 32 * n
    placeholder = bytearray(data[:64])
    placeholder[8:12] = bytes(4)                       # flags are set at finalize
    if data[5] == 1:
        placeholder[28:32] = bytes(4)                  # event_count u32
    else:
        placeholder[24:32] = bytes(8)                  # event_count u64
    placeholder[40:64] = bytes(24)                     # footer_offset, time range
    placeholder = bytes(placeholder)
    events = data[64:fo]
    footer = data[fo:]
    yield name + "-cut-mid-event", data[:64 + 32 * (n // 2) + 13]
    yield name + "-cut-in-footer", data[:fo + 40]
    yield name + "-placeholder-full", placeholder + events + footer
    yield name + "-placeholder-torn-footer", placeholder + events + footer[:40]
    yield name + "-placeholder-zero-tail", placeholder + events + bytes(100)
    yield name + "-garbage-tail", placeholder + events + rng.randbytes(77)
    yield name + "-junk-after-footer", data + b"junk"
    yield name + "-footer-zeroed", data[:fo] + bytes(64)


def detail_variants(name, data, rng):
    yield name, data
    if len(data) <= 128:
        return
    blen = struct.unpack_from("<Q", data, 36)[0]
    end = 64 + blen
    placeholder = data[:28] + bytes(36)
    events = data[64:end]
    footer = data[end:]
    yield name + "-cut-mid", data[:64 + blen // 2]
    yield name + "-cut-in-footer", data[:end + 20]
    yield name + "-placeholder-full", placeholder + events + footer
    yield name + "-placeholder-zero-tail", placeholder + events + bytes(50)
    yield name + "-garbage-tail", placeholder + events + rng.randbytes(61)
    yield name + "-junk-after-footer", data + b"junk"


# ---- Manifests -------------------------------------------------------------------

def manifest_seeds(models):
    out = {}
    for m in models:
        out["manifest-" + m.name + ".json"] = (json.dumps(m.manifest(), indent=1) + "\n").encode()
    out["ada-minimal.json"] = b'{"threads":[{"id":0,"has_detail":true},{"id":1,"has_detail":false}],' \
                              b'"time_start_ns":0,"time_end_ns":0}\n'
    out["tracer-extras.json"] = json.dumps({
        "format_version": "2.1", "clock_type": 1, "time_start_ns": 1000, "time_end_ns": 2000,
        "threads": [{"id": 7, "has_detail": True}],
        "modules": [{"module_id": 0, "path": "/app/main", "base_address": "0x100000000",
                     "size": 4096, "uuid": "A7F00000-0000-4000-8000-000000000000"}],
        "symbols": [{"function_id": "0xffffffffffffffff", "module_id": 0, "symbol_index": 1,
                     "name": "caf\u00e9"}, {"function_id": "18446744073709551614",
                                            "module_id": 0, "symbol_index": 2, "name": "x"}],
        "timing_anchors": [{"host_time_ns": 5, "media_time_value": -3, "media_time_scale": 48000}],
        "events_dropped": 12, "unknown": {"nested": [1, 2, None]}}).encode()
    out["no-threads.json"] = b'{"time_start_ns":1}'
    out["duplicate-ids.json"] = b'{"threads":[{"id":1},{"id":1}]}'
    out["bad-hex.json"] = b'{"threads":[{"id":"0x"}]}'
    return out


# ---- Structure-aware targets ---------------------------------------------------

def program_seeds(rng, n):
    seeds = {}
    for i, size in enumerate([16, 64, 200, 700, 2000][:n]):
        seeds["random-%d-%d" % (i, size)] = rng.randbytes(size)
    return seeds


def golden_sessions(corpus):
    """(name, files) of every case of the golden corpus (corpus/atf/[ynri]_*):
    session roots (manifest.json or thread_* inside) and thread directories,
    packed as sessions; lone files as one-thread sessions."""
    out = []
    if not os.path.isdir(corpus):
        return out
    for case in sorted(os.listdir(corpus)):
        root = os.path.join(corpus, case)
        if case[:2] not in ("y_", "n_", "r_", "i_") or not os.path.isdir(root):
            continue
        for base, dirs, names in os.walk(root):
            dirs.sort()
            is_session = "manifest.json" in names or any(d.startswith("thread_") for d in dirs)
            is_thread = ("index.atf" in names or "detail.atf" in names) and not is_session
            if is_session:
                files = []
                for rel, body in dir_files(base):
                    parts = rel.split("/")
                    if rel == "manifest.json" or (len(parts) == 2 and parts[0].startswith("thread_")
                                                  and parts[0][7:].isdigit() and int(parts[0][7:]) < 256
                                                  and parts[1] in ("index.atf", "detail.atf")):
                        files.append((rel, body))
                tag = os.path.relpath(base, corpus).replace("/", "-")
                out.append(("golden-" + tag, files))
                dirs[:] = []          # its thread directories are packed with it
            elif is_thread:
                k = os.path.basename(base)[7:] if os.path.basename(base).startswith("thread_") else "0"
                k = k if k.isdigit() and int(k) < 256 else "0"
                files = [("thread_%s/%s" % (k, n), open(os.path.join(base, n), "rb").read())
                         for n in ("index.atf", "detail.atf") if n in names]
                out.append(("golden-" + os.path.relpath(base, corpus).replace("/", "-"), files))
    return out


# ---- WTF ---------------------------------------------------------------------------

WTF_HEADER = struct.pack("<3I", 0xDEADBEEF, 0x90BA3800, 10)
WTF_TYPES = [("bool", 1), ("int8", 1), ("uint8", 1), ("int16", 2), ("uint16", 2), ("int32", 4),
             ("uint32", 4), ("float32", 4), ("flowId", 4), ("time32", 4), ("ascii", 4), ("utf8", 4),
             ("any", 4), ("char", 1), ("wchar", 2)]
WTF_BUILTINS = [
    ("wtf.event#define", "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args"),
    ("wtf.trace#discontinuity", ""), ("wtf.zone#create", "uint16 zoneId, ascii name, ascii type, ascii location"),
    ("wtf.zone#delete", "uint16 zoneId"), ("wtf.zone#set", "uint16 zoneId"), ("wtf.scope#enter", "ascii name"),
    ("wtf.scope#enterTracing", ""), ("wtf.scope#leave", ""), ("wtf.scope#appendData", "ascii name, any value"),
    ("wtf.flow#branch", "flowId id, flowId parentId, ascii name, any value"),
    ("wtf.flow#extend", "flowId id, ascii name, any value"), ("wtf.flow#terminate", "flowId id, any value"),
    ("wtf.flow#appendData", "flowId id, ascii name, any value"), ("wtf.trace#mark", "ascii name, any value"),
    ("wtf.trace#timeStamp", "ascii name, any value"), ("wtf.timeRange#begin", "uint32 id, ascii name, any value"),
    ("wtf.timeRange#end", "uint32 id")]


def wtf_chunks(data):
    """The whole chunks of a WTF file: [(offset, bytes, type, [(part type, offset in file, length)])]."""
    out, pos = [], 12
    while len(data) - pos >= 24:
        _cid, ctype, length, _s, _e, nparts = struct.unpack_from("<6I", data, pos)
        table = 24 + 12 * nparts
        if length < table or pos + length > len(data) or nparts > 64:
            break
        parts = [(t, pos + table + o, n) for t, o, n in
                 (struct.unpack_from("<3I", data, pos + 24 + 12 * i) for i in range(nparts))]
        out.append((pos, data[pos:pos + length], ctype, parts))
        pos += length
    return out


def wtf_sources(scenarios_prog, tmp):
    """(name, bytes) of every WTF file the seeds start from."""
    out = []
    real = os.path.join(ROOT, "corpus", "wtf-real")
    for n in sorted(os.listdir(real)) if os.path.isdir(real) else []:
        if n.endswith(".wtf-trace"):
            out.append(("real-" + n[:-10], open(os.path.join(real, n), "rb").read()))
    if scenarios_prog:
        d = os.path.join(tmp, "wtf-ours")
        os.makedirs(d)
        subprocess.run([scenarios_prog, d], check=True, stdout=subprocess.DEVNULL)
        for n in sorted(os.listdir(d)):
            out.append(("ours-" + n[:-10], open(os.path.join(d, n), "rb").read()))
    # The golden corpus: every case (y_/n_/i_/r_), a file or a folder of files.
    golden = os.path.join(ROOT, "corpus", "wtf")
    for case in sorted(os.listdir(golden)) if os.path.isdir(golden) else []:
        if case[:2] not in ("y_", "n_", "r_", "i_") or case.endswith((".json", ".jsonl", ".md")):
            continue
        root = os.path.join(golden, case)
        files = [root] if os.path.isfile(root) else \
            sorted(os.path.join(b, n) for b, _d, ns in os.walk(root) for n in ns)
        for f in files:
            rel = os.path.relpath(f, golden).replace("/", "-")
            if rel.endswith(".wtf-trace"):
                rel = rel[:-10]
            out.append(("golden-" + rel, open(f, "rb").read()))
    return out


def wtf_file_variants(name, data, rng):
    """The file, and what crashes, filesystems and damage make of it."""
    yield name, data
    chunks = wtf_chunks(data)
    if len(data) < 12 or not chunks or len(data) > 8192:
        return                          # the big files as they are
    off, body, _t, parts = chunks[-1]
    yield name + "-cut-in-chunk-header", data[:off + 10]
    yield name + "-cut-in-part-table", data[:off + 24 + 5]
    ev = [p for p in parts if p[0] == 0x20002]
    if ev and ev[0][2] > 16:
        yield name + "-cut-in-events", data[:ev[0][1] + ev[0][2] // 2 + 3]
    yield name + "-header-only", data[:12]
    yield name + "-cut-in-header", data[:7]
    yield name + "-zero-tail", data + bytes(100)
    yield name + "-garbage-tail", data + rng.randbytes(37)
    if len(chunks) >= 3:
        # A wrong length: the chunk says it runs past the end, the next chunk follows.
        o2 = chunks[1][0]
        bad = bytearray(data)
        struct.pack_into("<I", bad, o2 + 8, struct.unpack_from("<I", data, o2 + 8)[0] + 1 << 20)
        yield name + "-wrong-chunk-length", bytes(bad)
    if ev and ev[0][2] >= 8:
        bad = bytearray(data)
        struct.pack_into("<I", bad, ev[0][1], 0xFFFF)          # an undefined wire id
        yield name + "-undefined-wire-id", bytes(bad)


def wtf_header_seeds(sources):
    out = {}
    for name, data in sources[:4]:
        out[name] = data[:12]
    out["legacy"] = struct.pack(">3I", 0xDEADBEEF, 3, 0)
    out["json-form"] = b'  \n{"events":[]}'
    out["format-9"] = struct.pack("<3I", 0xDEADBEEF, 0x90BA3800, 9)
    out["cpp-version"] = struct.pack("<3I", 0xDEADBEEF, 0xE8214400, 10)
    out["short"] = WTF_HEADER[:9]
    return out


def wtf_signatures(rng):
    sigs = {"builtin-%d" % i: s.encode() for i, (_n, s) in enumerate(WTF_BUILTINS)}
    for i in range(8):
        args = []
        for k in range(rng.randrange(1, 7)):
            t = rng.choice(WTF_TYPES)[0]
            args.append("%s%s a%d" % (t, "[]" if rng.random() < 0.3 else "", k))
        sigs["random-%d" % i] = (" , " if i % 2 else ", ").join(args).encode()
    sigs["spaces"] = b"  uint32\t n ,\tascii[]  s  "
    sigs["dollar-names"] = b"int8 $x, uint8 _y9, char c, wchar w"
    sigs["unknown-type"] = b"uint64 big"
    sigs["duplicate"] = b"uint32 a, int8 a"
    sigs["no-name"] = b"uint32"
    sigs["trailing-comma"] = b"uint32 a,"
    sigs["sequence-alias"] = b"sequence<uint8> s"
    sigs["65-args"] = ", ".join("int8 a%d" % i for i in range(65)).encode()
    return sigs


def wtf_event_input(rng, strings, ndefs, nevents):
    """A wtf_events input (fuzz/targets/fuzz_wtf_events.c): definitions, a
    string table and an event buffer of those events with values."""
    defs, out = [], bytearray([ndefs])
    for i in range(ndefs):
        args = [(rng.randrange(len(WTF_TYPES)), rng.random() < 0.3) for _ in range(rng.randrange(0, 5))]
        sig = ", ".join("%s%s a%d" % (WTF_TYPES[t][0], "[]" if arr else "", k) for k, (t, arr) in enumerate(args))
        wire_sel = i
        defs.append((2 + wire_sel % 62, args))
        out += bytes([wire_sel, rng.randrange(256) & 0x7F]) + sig.encode() + b"\0"
    table = b"".join(s + b"\0" for s in strings)
    out += struct.pack("<H", len(table)) + table
    for _ in range(nevents):
        if not defs:
            out += rng.randbytes(8)     # nothing defined: wire ids the reader does not know
            continue
        wire, args = rng.choice(defs)
        ev = struct.pack("<2I", wire, rng.randrange(1 << 20))
        for t, arr in args:
            name, size = WTF_TYPES[t]
            string = name in ("ascii", "utf8", "any")
            def one():
                if string:
                    return rng.choice([0xFFFFFFFF, 0xFFFFFFFE] + list(range(len(strings))))
                return rng.randrange(1 << 32)
            if not arr:
                ev += struct.pack("<I", one())
                continue
            n = rng.randrange(0, 6)
            items = b"".join(struct.pack("<I", one())[:size] for _ in range(n))
            ev += struct.pack("<i", n) + items + bytes(-len(items) % 4)
        out += ev
    return bytes(out)


WTF_DICT = {
    "file": [("magic", b"\xef\xbe\xad\xde"), ("magic_legacy", b"\xde\xad\xbe\xef"),
             ("format_version_10", b"\x0a\x00\x00\x00"), ("version_js", b"\x00\x38\xba\x90"),
             ("version_cpp", b"\x00\x44\x21\xe8"), ("chunk_file_header", b"\x01\x00\x00\x00"),
             ("chunk_events", b"\x02\x00\x00\x00"), ("no_time", b"\xff\xff\xff\xff"),
             ("part_file_header", b"\x00\x00\x01\x00"), ("part_json_events", b"\x00\x00\x02\x00"),
             ("part_legacy_events", b"\x01\x00\x02\x00"), ("part_binary_events", b"\x02\x00\x02\x00"),
             ("part_string_table", b"\x00\x00\x03\x00"), ("part_binary_resource", b"\x00\x00\x04\x00"),
             ("part_string_resource", b"\x01\x00\x04\x00"), ("parts_64", b"\x40\x00\x00\x00"),
             ("parts_65", b"\x41\x00\x00\x00")],
    "events": [("wire_define", b"\x01\x00\x00\x00"), ("ordinal_null", b"\xff\xff\xff\xff"),
               ("ordinal_empty", b"\xfe\xff\xff\xff"), ("array_null", b"\xff\xff\xff\xff"),
               ("array_negative", b"\xfd\xff\xff\xff"), ("class_scope", b"\x01\x00\x00\x00"),
               ("flags_builtin", b"\x28\x00\x00\x00")],
    "names": [("b%d" % i, n.encode()) for i, (n, _s) in enumerate(WTF_BUILTINS)],
    "sigs": [("t_" + n, n.encode()) for n, _ in WTF_TYPES] +
            [("array", b"[]"), ("comma", b", "), ("space", b" "), ("tab", b"\t")] +
            [("s%d" % i, s.encode()) for i, (_n, s) in enumerate(WTF_BUILTINS) if s],
    "json": [("timebase", b'"timebase":'), ("flags", b'"flags":['), ("hi_res", b'"has_high_resolution_times"'),
             ("count", b'"times_as_count"'), ("context", b'"contextInfo":{'), ("ctype", b'"contextType":'),
             ("uri", b'"uri":'), ("type", b'"type":"file_header"'), ("nul", b"\\u0000"),
             ("big_int", b"99999999999999999999"), ("huge", b"1e400"), ("tiny", b"-0.0e-400"),
             ("surrogate", b"\\ud800"), ("deep", b"[[[[[[[[[[[[[[[["), ("null", b"null")],
    "header": [("json_open", b"{"), ("blanks", b" \t\r\n")],
    "program": [("u32_max", b"\xff\xff\xff\xff"), ("top_bit", b"\x00\x00\x00\x80"), ("nul_string", b"\xff")],
}
WTF_DICT_OF = {
    "wtf_file_header": ["file", "header"], "wtf_chunk": ["file"], "wtf_signature": ["sigs"],
    "wtf_strings": ["names", "sigs"], "wtf_events": ["sigs", "events"], "wtf_header_json": ["json"],
    "wtf_file": ["file", "events", "names", "sigs", "json"], "wtf_validate": ["file", "events", "names", "sigs", "json"],
    "wtf_roundtrip": ["program"],
}


def dict_line(name, value):
    esc = "".join(chr(c) if 0x20 <= c < 0x7F and chr(c) not in '"\\' else "\\x%02x" % c for c in value)
    return '%s="%s"\n' % (name, esc)


def write_dicts(table, table_of, label):
    """fuzz/dict/<target>.dict for each target of table_of, from the token groups of table."""
    for target, groups in table_of.items():
        with open(os.path.join(HERE, "dict", target + ".dict"), "w") as f:
            f.write("# %s: written by fuzz/gen_seeds.py (%s: %s); do not edit.\n" % (target, label, ", ".join(groups)))
            for g in groups:
                for name, value in table[g]:
                    f.write(dict_line("%s_%s" % (g, name), value))


def write_wtf_dicts():
    write_dicts(WTF_DICT, WTF_DICT_OF, "WTF_DICT")


def wtf_seeds(out, rng, scenarios_prog, tmp):
    sources = wtf_sources(scenarios_prog, tmp)
    for name, data in sources:
        if name.startswith("golden-"):
            # The golden cases are variants already (every clause, damage, cuts).
            if len(data) <= 65536:
                write(out, "wtf_file", name, data)
            continue
        for vname, v in wtf_file_variants(name, data, rng):
            if len(v) <= 65536:
                write(out, "wtf_file", vname, v)        # also the seeds of wtf_validate
        for k, (off, body, ctype, parts) in enumerate(wtf_chunks(data)[:6]):
            write(out, "wtf_chunk", "%s-%d" % (name, k), body)
            for t, at, n in parts:
                if t == 0x30000 and n:
                    write(out, "wtf_strings", "%s-%d" % (name, k), data[at:at + n])
                if t == 0x10000 and k == 0:
                    write(out, "wtf_header_json", name, data[at:at + n])
    for name, data in wtf_header_seeds(sources).items():
        write(out, "wtf_file_header", name, data)
    for name, sig in wtf_signatures(rng).items():
        write(out, "wtf_signature", name, sig)
    strings = [b"", b"a", b"hello", b"caf\xc3\xa9", b'{"k":[1,2]}', b"12.5", b"\xff bad"]
    for i, (nd, ne) in enumerate([(1, 3), (3, 10), (6, 30), (16, 60), (0, 2)]):
        write(out, "wtf_events", "built-%d" % i, wtf_event_input(rng, strings[:i + 2], nd, ne))
    for name, text in [("bad-json", b'{"timebase":'), ("not-object", b"[1,2]"), ("no-context", b'{"timebase":1}'),
                       ("odd-flags", b'{"flags":["x",3],"timebase":"1","contextInfo":{"contextType":1}}'),
                       ("nul", b'{"timebase":2.5,"contextInfo":{"contextType":"a\\u0000b","uri":""}}'),
                       ("empty", b"")]:
        write(out, "wtf_header_json", name, text)
    for name, data in program_seeds(rng, 5).items():
        write(out, "wtf_roundtrip", name, data)
    write_wtf_dicts()


# ---- RTC (rtc_*) ----------------------------------------------------------------

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
    write_dicts(RTC_DICT, RTC_DICT_OF, "RTC_DICT")


def write(outdir, target, name, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "corpus", "fuzz-seeds"))
    ap.add_argument("--atf", help="the atf command, to add sessions written by the C writer")
    ap.add_argument("--wtf-scenarios", help="wtf_write_scenarios (default: in the build tree of --atf)")
    args = ap.parse_args(argv)
    if not args.wtf_scenarios and args.atf:
        guess = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.atf))),
                             "formats", "wtf", "tests", "wtf_write_scenarios")
        args.wtf_scenarios = guess if os.path.exists(guess) else None
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    rng = random.Random(5)
    models = small_sessions()
    sessions = []
    for m in models:
        sessions += list(session_variants(m))
    if args.atf:
        with tempfile.TemporaryDirectory() as tmp:
            for layout in (1, 2):
                d = os.path.join(tmp, "demo%d" % layout)
                subprocess.run([args.atf, "demo", "--layout", str(layout), "--threads", "2",
                                "--events", "30", "--detail-every", "3", d], check=True,
                               stdout=subprocess.DEVNULL)
                sessions.append(("c-writer-l%d" % layout, dir_files(d)))

    sessions += golden_sessions(os.path.join(ROOT, "corpus", "atf"))

    for name, files in sessions:
        packed = pack_files(files)
        write(args.out, "session", name, packed)   # also the seeds of "validate"
        for rel, body in files:
            base = name + "-" + rel.replace("/", "-")
            golden = name.startswith("golden-")
            if rel.endswith("index.atf") and golden:
                write(args.out, "index_file", base, body)
                if "_hdr_" in name and body[:4] == b"ATI2" and len(body) >= 64:
                    write(args.out, "index_header", base, body[:64])
                continue
            if rel.endswith("detail.atf") and golden:
                write(args.out, "detail_file", base, body)
                if "_hdr_" in name and body[:4] == b"ATD2" and len(body) >= 64:
                    write(args.out, "detail_header", base, body[:64])
                continue
            if rel == "manifest.json" and golden:
                write(args.out, "manifest", base, body)
                continue
            if rel.endswith("index.atf") and body[:4] == b"ATI2":
                for vname, v in index_variants(base, body, rng):
                    write(args.out, "index_file", vname, v)
                write(args.out, "index_header", base, body[:64])
                if len(body) >= 128:
                    write(args.out, "index_footer", base, body[-64:])
            elif rel.endswith("detail.atf") and body[:4] == b"ATD2":
                for vname, v in detail_variants(base, body, rng):
                    write(args.out, "detail_file", vname, v)
                write(args.out, "detail_header", base, body[:64])
                if len(body) >= 128:
                    write(args.out, "detail_footer", base, body[-64:])
                    blen = struct.unpack_from("<Q", body, 36)[0] or len(body) - 64
                    section = body[64:64 + blen]
                    # The last byte is the layout parameter (bit 0 set: layout 1).
                    write(args.out, "detail_events", base, section + bytes([1 if body[5] == 1 else 0]))
                    arch = body[6]
                    det = atfpy.parse_detail_file(body, verify=False)
                    seen = set()
                    for _off, ev in det.events:
                        if arch == ARCH_ARM64 and len(ev.payload) not in seen and len(seen) < 3:
                            seen.add(len(ev.payload))
                            write(args.out, "arm64_payload", "%s-%d" % (base, len(ev.payload)),
                                  ev.payload)
            elif rel == "manifest.json":
                pass
    for name, body in manifest_seeds(models).items():
        write(args.out, "manifest", name, body)
    p = atfpy.Arm64Payload(1, range(8), 2, 3, 4, b"\x55" * 256).encode()
    write(args.out, "arm64_payload", "stack-256", p)
    write(args.out, "arm64_payload", "stack-size-257", p[:96] + b"\x01\x01" + p[98:] + b"x")
    write(args.out, "arm64_payload", "short", p[:99])
    rtc_seeds(args.out, random.Random(14))
    for target in ("merge", "index_roundtrip", "detail_roundtrip"):
        for name, data in program_seeds(rng, 5).items():
            write(args.out, target, name, data)
    with tempfile.TemporaryDirectory() as tmp:
        wtf_seeds(args.out, random.Random(13), args.wtf_scenarios, tmp)
    total = sum(len(fs) for _, _, fs in os.walk(args.out))
    print("fuzz seeds: %d files in %s" % (total, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
