#!/usr/bin/env python3
"""The cut sweep of `atf pack` / `atf unpack` (docs/pack.md).

A demo session is packed with small Units (8 KiB, units of 2 KiB), then the
packed file is cut at every 4 KiB step from the start and from the end, and
damaged in the middle (a byte flipped in one Unit, in two Units). Every copy
is unpacked with `atf unpack`; the result must pass `atf validate`, and its
`atf dump --json` must equal, line for line, an expectation computed here
without the unpacker:

  * which chunk records survive: rtcpy (formats/rtc/python/rtcpy, the
    independent Python RTC reader) reads the cut file;
  * which events they hold: the original session's dump (offsets and
    lengths of every index and detail event) against the byte ranges of the
    surviving chunks (docs/pack.md: the chunk record's header);
  * what the unpacked session says: the rules of docs/pack.md (a file whose
    every byte came back is written as it was; a thread that lost bytes is
    renumbered, links kept where both ends came back, "no detail" where the
    detail event was lost, detail events without their index event left
    out; no manifest, so no symbol names, when no copy came back whole).

It also checks the exit status (0 whole, 1 lost) and that stderr names what
was lost (skipped ranges, events recovered per thread).

usage: check_pack_sweep.py ATF_CLI WORKDIR RTCPY_PARENT_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

STEP = 4096
UNIT, SUBUNIT = 8192, 2048


def run(cmd, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and p.returncode != 0:
        raise SystemExit("FAIL: %s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr.decode()))
    return p


def uleb(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def covered(ranges, a, b):
    """1 when [a, b) lies inside the union of the sorted, merged ranges."""
    for x, y in ranges:
        if x <= a and b <= y:
            return True
    return False


def merge(chunks):
    out = []
    for a, b in sorted(chunks):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


class Original:
    """The packed session as it was: its dump, per thread, and its lanes' geometry."""

    def __init__(self, cli, src):
        self.src = src
        self.lines = {}       # thread -> [dict] in seq order
        for line in run([cli, "dump", "--json", src]).stdout.decode().splitlines():
            o = json.loads(line)
            self.lines.setdefault(o["thread"], []).append(o)
        self.eo = {}
        for t in self.lines:
            with open(os.path.join(src, "thread_%d" % t, "index.atf"), "rb") as f:
                h = f.read(64)
            self.eo[(t, "index")] = struct.unpack_from("<Q", h, 32)[0]
            p = os.path.join(src, "thread_%d" % t, "detail.atf")
            if os.path.exists(p):
                with open(p, "rb") as f:
                    h = f.read(64)
                self.eo[(t, "detail")] = struct.unpack_from("<Q", h, 20)[0]


def expectation(rtcpy, orig, data):
    """(expected dump text, {thread: (index recovered, index total)}, has_pack) from the cut file's bytes."""
    t = rtcpy.read_rtc(data)
    lanes = {}
    for s in t.streams:
        try:
            obj = json.loads(s.text)   # rtcpy keeps the definition's text beside its own object type
        except ValueError:
            continue
        a = obj.get("atf") if isinstance(obj, dict) else None
        if isinstance(a, dict) and a.get("pack") == 1 and a.get("role") in ("manifest", "index", "detail"):
            lanes[s.sid] = dict(a, chunks=[])
    if not lanes:
        return None, {}, False, set()
    for r in t.records:
        if r.sid in lanes:
            off, i = uleb(r.payload, 0)
            _, i = uleb(r.payload, i)
            _, i = uleb(r.payload, i)
            n = len(r.payload) - i
            if n:
                lanes[r.sid]["chunks"].append((off, off + n))
    by = {}
    manifest_ok = True
    for lane in lanes.values():
        rng = merge(lane["chunks"])
        lane["ranges"] = rng
        whole = lane["size"] == 0 or covered(rng, 0, lane["size"])
        if lane["role"] == "manifest":
            manifest_ok = whole
        else:
            by.setdefault(lane["thread"], {})[lane["role"]] = (lane, whole)
    out, counts, seen = [], {}, set()
    if not manifest_ok:
        seen.add("manifest lost")
    for tid in sorted(by):
        ls = by[tid]
        src = orig.lines.get(tid, [])
        whole = all(w for _, w in ls.values())
        if whole:
            exp = [dict(o) for o in src]
        else:
            ix = ls["index"][0]["ranges"]
            eo = orig.eo[(tid, "index")]
            got = [o for o in src if covered(ix, eo + 32 * o["seq"], eo + 32 * o["seq"] + 32)]
            dranges = ls["detail"][0]["ranges"] if "detail" in ls else []
            # detail events kept: whole, and their index event came back and links to them
            kept = []
            for o in got:
                d = o.get("detail")
                if d and covered(dranges, d["offset"], d["offset"] + d["total_length"]):
                    kept.append(d["detail_seq"])
            rank_i = {o["seq"]: k for k, o in enumerate(got)}
            rank_d = {d: k for k, d in enumerate(sorted(kept))}
            off = orig.eo.get((tid, "detail"), 64)
            doff = {}
            for d in sorted(kept):
                doff[d] = off
                off += next(o["detail"]["total_length"] for o in got if o.get("detail") and o["detail"]["detail_seq"] == d)
            exp = []
            for o in got:
                e = dict(o)
                oseq = o["seq"]
                e["seq"] = rank_i[oseq]
                if o["detail_seq"] is not None:
                    ds = o["detail_seq"]
                    if ds in rank_d:
                        e["detail_seq"] = rank_d[ds]
                        d = dict(o["detail"])
                        d["detail_seq"] = rank_d[ds]
                        d["offset"] = doff[ds]
                        d["index_seq"] = rank_i[oseq]
                        e["detail"] = d
                    else:
                        seen.add("link dropped")
                        e["detail_seq"] = None
                        e.pop("detail", None)
                exp.append(e)
            for o in src:
                d = o.get("detail")
                if o["seq"] not in rank_i and d and covered(dranges, d["offset"], d["offset"] + d["total_length"]):
                    seen.add("detail left out")
            seen.add("thread rebuilt")
            counts[tid] = (len(got), len(src))
        for e in exp:
            if not manifest_ok:
                e.pop("symbol", None)
            out.append(json.dumps(e, separators=(",", ":")) + "\n")
    return "".join(out), counts, True, seen


def check_case(cli, rtcpy, orig, work, name, data, whole_file):
    path = os.path.join(work, name + ".rtc")
    dest = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data)
    expected, counts, has_pack, seen = expectation(rtcpy, orig, data)
    p = run([cli, "unpack", path, dest], check=False)
    err = p.stderr.decode()
    problems = []
    if not has_pack:
        # A piece in which rtcpy finds no Marker is no RTC file as far as
        # anyone can tell (exit 2, "not an RTC file"); one with Markers but no
        # intact Unit describing the session is a damaged one (exit 1).
        # Either way no directory is written.
        marker = getattr(rtcpy.read_rtc(data), "unit_size", None) is not None
        want = 1 if marker else 2
        if p.returncode != want or os.path.exists(dest) or (not marker and "not an RTC file" not in err):
            problems.append("nothing of the pack is left (a Marker: %s): expected exit %d and no directory, got "
                            "exit %d: %s" % (marker, want, p.returncode, err[-300:]))
        os.unlink(path)
        return problems, {"nothing left"}
    want_rc = 0 if whole_file else 1
    if p.returncode != want_rc:
        problems.append("exit %d, expected %d: %s" % (p.returncode, want_rc, err[-400:]))
    v = run([cli, "validate", dest], check=False)
    if v.returncode != 0:
        problems.append("atf validate exit %d: %s" % (v.returncode, v.stdout.decode()[-600:]))
    got = run([cli, "dump", "--json", dest], check=False).stdout.decode()
    if got != expected:
        gl, el = got.splitlines(), expected.splitlines()
        diff = next((i for i in range(min(len(gl), len(el))) if gl[i] != el[i]), min(len(gl), len(el)))
        problems.append("dump differs: %d lines, expected %d; first difference at line %d:\n  got      %s\n  expected %s"
                        % (len(gl), len(el), diff, gl[diff] if diff < len(gl) else "(end)",
                           el[diff] if diff < len(el) else "(end)"))
    for tid, (n, total) in counts.items():
        if "thread_%d: %d of %d index events" % (tid, n, total) not in err:
            problems.append("stderr does not say thread_%d kept %d of %d index events:\n%s" % (tid, n, total, err))
    if not whole_file and "skipped" not in err and "cut at the start" not in err and counts:
        problems.append("stderr does not report the skipped ranges:\n" + err)
    if not problems:
        shutil.rmtree(dest)
        os.unlink(path)
    return problems, seen


def main():
    cli, work, gen = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, gen)
    import tracepy  # noqa: F401  (puts every formats/<name>/python/ on sys.path)
    import rtcpy
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    src = os.path.join(work, "src", "pid_4242")
    run([cli, "demo", "--threads", "3", "--events", "700", "--detail-every", "3", src])
    packed = os.path.join(work, "p.rtc")
    run([cli, "pack", "--unit-size", str(UNIT), "--subunit-size", str(SUBUNIT), src, packed])
    orig = Original(cli, src)
    with open(packed, "rb") as f:
        whole = f.read()
    n = len(whole)
    assert n > 40 * UNIT, "the packed demo session should span many Units (%d bytes)" % n

    # the whole file: byte for byte
    out = os.path.join(work, "whole_direct")
    run([cli, "unpack", packed, out])
    for root, _, files in os.walk(src):
        for fn in files:
            a = os.path.join(root, fn)
            b = os.path.join(out, os.path.relpath(a, src))
            with open(a, "rb") as x, open(b, "rb") as y:
                assert x.read() == y.read(), "whole file: %s differs" % b
    cases = [("whole", whole, True)]
    for c in range(STEP, n, STEP):
        cases.append(("start%07d" % c, whole[c:], False))
        cases.append(("end%07d" % c, whole[:n - c], False))
    units = n // UNIT
    mid = bytearray(whole)
    mid[(units // 2) * UNIT + UNIT // 2] ^= 0x40
    cases.append(("damaged_mid", bytes(mid), False))
    two = bytearray(whole)
    two[3 * UNIT + 2000] ^= 1
    two[(units - 3) * UNIT + 5000] ^= 0x80
    cases.append(("damaged_two", bytes(two), False))
    for k in range(1, units - 2, 5):        # windows of two Units: some hold no whole manifest copy
        cases.append(("window%03d" % k, whole[k * UNIT + 100:(k + 2) * UNIT + 300], False))
    first = bytearray(whole)
    first[1500] ^= 0x10                     # Unit 0: the first manifest copy and the first events
    cases.append(("damaged_first", bytes(first), False))

    failures, seen = [], set()
    with ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda c: (c[0], check_case(cli, rtcpy, orig, work, c[0], c[1], c[2])), cases))
    for name, (problems, s) in results:
        seen |= s
        for pr in problems:
            failures.append("%s: %s" % (name, pr))
    # the sweep must have met every situation the rules cover, or it tested less than it says
    for situation in ("thread rebuilt", "link dropped", "detail left out", "manifest lost", "nothing left"):
        if situation not in seen:
            failures.append("no case had: " + situation)
    print("pack sweep: %d bytes packed (%d Units of %d), %d cases (every %d bytes from both ends, 3 damaged, "
          "two-Unit windows), %d failure(s); seen: %s" % (n, units, UNIT, len(cases), STEP, len(failures),
                                                          ", ".join(sorted(seen))))
    for f in failures[:int(os.environ.get("PACK_SWEEP_SHOW", "20"))]:
        print("FAIL " + f)
    if failures:
        sys.exit(1)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
