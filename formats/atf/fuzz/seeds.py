"""ATF's fuzz seeds (fuzz/gen_seeds.py runs generate()).

Seeds are real files: sessions, index/detail files, headers, footers,
payloads and manifests written by atfpy, the independent Python
implementation, plus their crash-truncated, torn,
zero-tailed and garbage-tailed variants, and every case of the golden corpus
(corpus/atf/[ynri]_*: sessions and threads packed, files and manifests as they are). With --atf, small sessions written
by the C session writer (`atf demo`) are added as well. Session seeds use the
container format of formats/atf/fuzz/README.md.
"""
import json
import os
import random
import struct
import subprocess
import tempfile

from seed_support import ROOT, add_import_paths, program_seeds, write

add_import_paths()
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


def add_arguments(ap):
    pass


def c_writer_sessions(atf):
    """Small sessions written by the C session writer (`atf demo`), both layouts."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for layout in (1, 2):
            d = os.path.join(tmp, "demo%d" % layout)
            subprocess.run([atf, "demo", "--layout", str(layout), "--threads", "2",
                            "--events", "30", "--detail-every", "3", d], check=True,
                           stdout=subprocess.DEVNULL)
            out.append(("c-writer-l%d" % layout, dir_files(d)))
    return out


def golden_file_seeds(out, name, rel, base, body):
    """The files of a golden case, as they are: 1 when rel is one."""
    if rel.endswith("index.atf"):
        write(out, "index_file", base, body)
        if "_hdr_" in name and body[:4] == b"ATI2" and len(body) >= 64:
            write(out, "index_header", base, body[:64])
        return 1
    if rel.endswith("detail.atf"):
        write(out, "detail_file", base, body)
        if "_hdr_" in name and body[:4] == b"ATD2" and len(body) >= 64:
            write(out, "detail_header", base, body[:64])
        return 1
    if rel == "manifest.json":
        write(out, "manifest", base, body)
        return 1
    return 0


def detail_seeds(out, base, body, rng):
    """A detail file's variants, header, footer, events section and payloads."""
    for vname, v in detail_variants(base, body, rng):
        write(out, "detail_file", vname, v)
    write(out, "detail_header", base, body[:64])
    if len(body) < 128:
        return
    write(out, "detail_footer", base, body[-64:])
    blen = struct.unpack_from("<Q", body, 36)[0] or len(body) - 64
    section = body[64:64 + blen]
    # The last byte is the layout parameter (bit 0 set: layout 1).
    write(out, "detail_events", base, section + bytes([1 if body[5] == 1 else 0]))
    arch = body[6]
    det = atfpy.parse_detail_file(body, verify=False)
    seen = set()
    for _off, ev in det.events:
        if arch == ARCH_ARM64 and len(ev.payload) not in seen and len(seen) < 3:
            seen.add(len(ev.payload))
            write(out, "arm64_payload", "%s-%d" % (base, len(ev.payload)), ev.payload)


def session_seeds(out, name, files, rng):
    packed = pack_files(files)
    write(out, "session", name, packed)   # also the seeds of "validate"
    for rel, body in files:
        base = name + "-" + rel.replace("/", "-")
        if name.startswith("golden-") and golden_file_seeds(out, name, rel, base, body):
            continue
        if rel.endswith("index.atf") and body[:4] == b"ATI2":
            for vname, v in index_variants(base, body, rng):
                write(out, "index_file", vname, v)
            write(out, "index_header", base, body[:64])
            if len(body) >= 128:
                write(out, "index_footer", base, body[-64:])
        elif rel.endswith("detail.atf") and body[:4] == b"ATD2":
            detail_seeds(out, base, body, rng)


def generate(args):
    rng = random.Random(5)
    models = small_sessions()
    sessions = []
    for m in models:
        sessions += list(session_variants(m))
    if args.atf:
        sessions += c_writer_sessions(args.atf)
    sessions += golden_sessions(os.path.join(ROOT, "corpus", "atf"))
    for name, files in sessions:
        session_seeds(args.out, name, files, rng)
    for name, body in manifest_seeds(models).items():
        write(args.out, "manifest", name, body)
    p = atfpy.Arm64Payload(1, range(8), 2, 3, 4, b"\x55" * 256).encode()
    write(args.out, "arm64_payload", "stack-256", p)
    write(args.out, "arm64_payload", "stack-size-257", p[:96] + b"\x01\x01" + p[98:] + b"x")
    write(args.out, "arm64_payload", "short", p[:99])
    for target in ("merge", "index_roundtrip", "detail_roundtrip"):
        for name, data in program_seeds(rng, 5).items():
            write(args.out, target, name, data)
