"""WTF's fuzz seeds (fuzz/gen_seeds.py runs generate()).

WTF targets (wtf_*): the reference library's traces (corpus/wtf-real/), the
files our writer writes (wtf_write_scenarios, the interop tests' program,
found in --atf's build tree or given with --wtf-scenarios), every case of the
WTF golden corpus (corpus/wtf/),
their cuts, tails and damaged forms; the chunks, string tables and file
headers taken out of them; signatures; structure-aware event inputs and
writer programs. The WTF dictionaries (formats/wtf/fuzz/dict/wtf_*.dict) are
written from one token table here, so that the targets share their words.
"""
import os
import random
import struct
import subprocess
import tempfile

from seed_support import ROOT, program_seeds, write, write_dicts

DICT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dict")

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
    """A wtf_events input (targets/fuzz_wtf_events.c): definitions, a
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
    write_dicts(WTF_DICT, WTF_DICT_OF, "WTF_DICT", DICT_DIR)


def add_arguments(ap):
    ap.add_argument("--wtf-scenarios", help="wtf_write_scenarios (default: in the build tree of --atf)")


def generate(args):
    scenarios = args.wtf_scenarios
    if not scenarios and args.atf:
        guess = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.atf))),
                             "formats", "wtf", "tests", "wtf_write_scenarios")
        scenarios = guess if os.path.exists(guess) else None
    with tempfile.TemporaryDirectory() as tmp:
        wtf_seeds(args.out, random.Random(13), scenarios, tmp)
