#!/usr/bin/python3
"""Crash sweep of sessions written the way the ADA tracer's C writer writes them.

    check_ada_writer_sweep.py --atf PATH_TO_atf [--workdir DIR] [--jobs N] [-v]

The model (formats/atf/python/atfpy/adawriter.py) logs every operating-system
call a real run of that writer makes: mkdir, file creation, and each write(2)
that its 4 KiB stdio buffers turn the writer's fwrite/fflush/fseek calls
into. For every session below, the disk is rebuilt as a crash would leave it:

* after every call (every write-call boundary), for every session;
* after every byte of every append to index.atf / detail.atf, for the small
  "bytes-*" sessions (a kill inside a write), and after a few seeded bytes of
  every append (4 KiB flushes torn anywhere) for the others; the header
  rewrite at offset 0 and manifest.json are written in one call each and are
  taken as all-or-nothing (SPEC errata E-20: adawriter.tearable);

and `atf dump --json` and `atf validate --format json` run on it. What must
be true, computed from the write log alone (never from the tools):

* dump prints exactly the complete events on disk, in order, for every
  thread, field by field equal to what the writer wrote (an index event is
  complete when its 32 bytes are on disk, a detail event when its whole
  record is; the nested "detail" is there exactly when the linked detail
  event is complete), and every other thread is untouched; it exits 0 (a
  crash leaves files crash-truncated, never damaged); its stderr has one line
  for every file not read whole (no complete footer), naming the file, the
  complete events recovered and the trailing bytes ignored;
* validate exits 0 (conformant) with no error finding; every file without a
  footer has REC-001 and a "recovered" entry with its complete events, a file
  with its footer has no REC finding; the final state (every thread
  finalized, manifest written) has no REC finding at all;
* atfpy (the independent Python reader) recovers the same events.

The state before the first call (an empty directory, not yet a session) is
not checked. Failures are listed by state (session, calls applied, bytes of
the next write, the call being cut), with a reproduction command; the last
line is the summary. Exit 1 on any failure, 2 on a setup error.
"""

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(os.path.dirname(HERE), "gen")
sys.dont_write_bytecode = True
sys.path.insert(0, GEN)
sys.path.insert(0, HERE)
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)

from atfpy.adawriter import OP_WRITE, simulate, tearable  # noqa: E402
from atfpy.crc import CHECKSUM_CRC32C  # noqa: E402
from atfpy.files import (build_detail_file, build_index_file, parse_detail_file,  # noqa: E402
                         parse_index_file)
from atfpy.records import LAYOUT_1, LAYOUT_2, Arm64Payload, AtfFormatError  # noqa: E402
from check_independent_sessions import run  # noqa: E402

# name, seed, layout, thread ids, events, threads with a detail lane,
# simulate() options, every byte of every write swept
SESSIONS = [
    ("bytes-l1", 101, LAYOUT_1, (1, 2), 14, (1,), {"max_stack": 12}, True),
    ("bytes-l2", 102, LAYOUT_2, (3, 8), 12, (8,), {"max_stack": 8,
                                                   "checksum": CHECKSUM_CRC32C}, True),
    ("l1-detail", 201, LAYOUT_1, (1, 2, 3), 900, (1, 2), {}, False),
    ("l1-index-only", 202, LAYOUT_1, (4, 5, 6), 1000, (), {}, False),
    ("l2-detail", 203, LAYOUT_2, (1, 7, 9), 900, (7, 9), {"checksum": CHECKSUM_CRC32C}, False),
    ("l2-index-only", 204, LAYOUT_2, (2, 3), 700, (), {}, False),
    ("l1-detail-fo0", 205, LAYOUT_1, (11, 12), 600, (12,),
     {"placeholder_footer_offset": 0}, False),
    ("l2-detail-fo0", 206, LAYOUT_2, (13, 14), 500, (13, 14),
     {"placeholder_footer_offset": 0, "detail_rate": 0.9}, False),
]

COUNT_RE = re.compile(r"(\d+) (?:complete )?events? recovered")
TRAIL_RE = re.compile(r"(\d+) trailing bytes? ignored")
MAX_DETAILED = 25
SAMPLED_CUTS = 2       # cuts inside each write of the sessions not swept byte by byte
TIMEOUT = 120          # seconds per atf run


def build(spec):
    name, seed, layout, tids, events, detail, opts, every_byte = spec
    w = simulate(seed, layout=layout, thread_ids=tids, events=events, detail=detail, **opts)
    return name, w, every_byte


def sampled_cuts(w, seed, per_write=SAMPLED_CUTS):
    """A few cuts inside every write of a large run (seeded): a 4 KiB flush
    torn at arbitrary places, inside index and detail records."""
    rng = random.Random(seed)
    out = []
    for k, op in enumerate(w.ops):
        if tearable(w.ops, k):
            cuts = rng.sample(range(1, len(op.data)), min(per_write, len(op.data) - 1))
            out += [(k, c) for c in sorted(cuts)]
    return out


# ---- The oracle: what a state holds, from the write log ---------------------

def on_disk(data, off, raw):
    return data is not None and len(data) >= off + len(raw) and data[off:off + len(raw)] == raw


class Oracle:
    """Per thread of a finished run: every record's offset and bytes."""

    def __init__(self, w):
        self.w = w
        self.layout = w.layout
        self.threads = []
        for tid in sorted(w.threads):
            t = w.threads[tid]
            idx = [(off, ev.encode(w.layout), ev) for off, ev in t.index_events]
            det = [(off, ev.encode(w.layout), ev) for off, ev in t.detail_events]
            ifoot = (t.index_footer[0], t.index_footer[1].encode())
            dfoot = (t.detail_footer[0], t.detail_footer[1].encode()) if t.detail_footer else None
            self.threads.append((t, idx, det, ifoot, dfoot))

    @staticmethod
    def _prefix(data, recs, what):
        n = 0
        while n < len(recs) and on_disk(data, recs[n][0], recs[n][1]):
            n += 1
        for off, raw, _ev in recs[n:]:
            if on_disk(data, off, raw):
                raise AssertionError("model: %s record at %d on disk after a missing one"
                                     % (what, off))
        return n

    def expect(self, st):
        """Per thread: "dir" (thread_N/ exists), "n_idx"/"n_det" (complete index /
        detail events on disk), and for each file that exists, "files"[path] =
        {"complete": its footer is on disk, "n": complete events, "trailing":
        the bytes after them (all of a file shorter than its header)}."""
        out = []
        for t, idx, det, ifoot, dfoot in self.threads:
            tdir = t.index_path.rsplit("/", 1)[0]
            e = {"tid": t.tid, "t": t, "idx": idx, "det": det, "dir": tdir in st.dirs,
                 "files": {}}
            idata = st.files.get(t.index_path)
            ddata = st.files.get(t.detail_path)
            e["n_idx"] = self._prefix(idata, idx, t.index_path)
            e["n_det"] = self._prefix(ddata, det, t.detail_path)
            for path, data, n, recs, foot in ((t.index_path, idata, e["n_idx"], idx, ifoot),
                                              (t.detail_path, ddata, e["n_det"], det, dfoot)):
                if data is None:
                    continue
                end = recs[n - 1][0] + len(recs[n - 1][1]) if n else min(64, len(data))
                if len(data) < 64:
                    end = 0
                complete = foot is not None and on_disk(data, foot[0], foot[1])
                e["files"][path] = {"complete": complete, "n": n,
                                    "trailing": len(data) - end}
            out.append(e)
        return out


def expected_lines(oracle, exp):
    """The dump objects a reader must print, in canonical order."""
    l1 = oracle.layout == LAYOUT_1
    objs = []
    for e in exp:
        for seq in range(e["n_idx"]):
            _off, _raw, ev = e["idx"][seq]
            o = {"thread": e["tid"], "seq": seq, "timestamp_ns": ev.timestamp_ns,
                 "function_id": ev.function_id, "event_kind": ev.event_kind,
                 "detail_seq": ev.detail_seq}
            if l1:
                o["thread_id"] = ev.thread_id
                o["call_depth"] = ev.call_depth
            if ev.detail_seq is not None and ev.detail_seq < e["n_det"]:
                doff, _draw, dev = e["det"][ev.detail_seq]
                d = {"detail_seq": ev.detail_seq, "offset": doff,
                     "total_length": dev.total_length, "event_type": dev.event_type,
                     "flags": dev.flags, "index_seq": dev.index_seq}
                if l1:
                    d["thread_id"] = dev.thread_id
                d["timestamp"] = dev.timestamp
                d["payload"] = dev.payload.hex()
                p = Arm64Payload.decode(dev.payload)
                d["arm64"] = {"function_id": p.function_id, "x": list(p.x), "lr": p.lr,
                              "fp": p.fp, "sp": p.sp, "stack_size": p.stack_size,
                              "stack": p.stack.hex()}
                o["detail"] = d
            objs.append(o)
    return objs


def first_difference(exp, got, path="$"):
    if isinstance(exp, dict) and isinstance(got, dict):
        for k in exp:
            if k not in got:
                return "%s.%s missing" % (path, k)
            d = first_difference(exp[k], got[k], "%s.%s" % (path, k))
            if d:
                return d
        extra = [k for k in got if k not in exp]
        return "%s: unexpected keys %s" % (path, extra) if extra else None
    if isinstance(exp, list) and isinstance(got, list) and len(exp) == len(got):
        for i, (a, b) in enumerate(zip(exp, got)):
            d = first_difference(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if exp != got or type(exp) is not type(got):
        return "%s: expected %s, got %s" % (path, json.dumps(exp)[:120], json.dumps(got)[:120])
    return None


def self_check(w):
    """The model's final files are the finalized files atfpy's writer builds
    from the same events (a finalized ADA file differs from any other
    finalized file only in how it got there). Returns a list of problems."""
    st = w.state()
    out = []
    for tid, t in sorted(w.threads.items()):
        want = build_index_file([ev for _o, ev in t.index_events], layout=w.layout, arch=w.arch,
                                os=w.os, clock_type=w.clock_type, thread_id=tid,
                                has_detail_file=t.has_detail_file, checksum=w.checksum)
        if st.files.get(t.index_path) != want:
            out.append("%s: final bytes differ from build_index_file()" % t.index_path)
        if t.has_detail_file:
            want = build_detail_file([ev for _o, ev in t.detail_events], layout=w.layout,
                                     arch=w.arch, os=w.os, thread_id=tid, checksum=w.checksum)
            if st.files.get(t.detail_path) != want:
                out.append("%s: final bytes differ from build_detail_file()" % t.detail_path)
        elif t.detail_path in st.files:
            out.append("%s exists without detail events" % t.detail_path)
    if json.loads(st.files["manifest.json"]) != w.manifest:
        out.append("manifest.json differs from the model's manifest")
    return out


# ---- Running the tools on one state ----------------------------------------

def check_dump(rc, out, err, oracle, exp, final):
    fails = []
    if rc != 0:
        fails.append(("dump exit", "dump exit status %s, expected 0" % rc))
    want = expected_lines(oracle, exp)
    got = []
    for i, line in enumerate(out.splitlines()):
        try:
            got.append(json.loads(line))
        except ValueError:
            fails.append(("dump output", "dump line %d is not JSON: %r" % (i + 1, line[:200])))
            return fails
    by_thread_want = Counter(o["thread"] for o in want)
    by_thread_got = Counter(o.get("thread") for o in got)
    if by_thread_want != by_thread_got:
        fails.append(("dump events", "events per thread: expected %s, got %s"
                      % (dict(sorted(by_thread_want.items())),
                         dict(sorted(by_thread_got.items(), key=str)))))
    else:
        for a, b in zip(want, got):
            d = first_difference(a, b)
            if d:
                fails.append(("dump fields", "thread %s seq %s: %s" % (a["thread"], a["seq"], d)))
                break
    lines = err.decode("utf-8", "replace").splitlines()
    for e in exp:
        if e["dir"] and e["t"].index_path not in e["files"]:
            if not any(("thread_%d" % e["tid"]) in ln for ln in lines):
                fails.append(("dump stderr", "no stderr line names thread_%d/ (it has no "
                              "index.atf yet)" % e["tid"]))
        for path, f in sorted(e["files"].items()):
            named = [ln for ln in lines if re.search(r"(^|[/ ])%s\b" % re.escape(path), ln)]
            if f["complete"]:
                continue
            if len(named) != 1:
                fails.append(("dump stderr", "%d stderr lines name %s (not read whole: %d "
                              "complete events), expected 1" % (len(named), path, f["n"])))
                continue
            m, t = COUNT_RE.search(named[0]), TRAIL_RE.search(named[0])
            if not m or int(m.group(1)) != f["n"] or not t or int(t.group(1)) != f["trailing"]:
                fails.append(("dump stderr", "%s: expected %d complete events recovered, %d "
                              "trailing bytes ignored; the line says: %s"
                              % (path, f["n"], f["trailing"], named[0])))
    if final and lines:
        fails.append(("dump stderr", "final state: stderr not empty: %s" % lines[0]))
    return fails


def check_validate(rc, out, err, exp, final):
    fails = []
    try:
        rep = json.loads(out)
    except ValueError:
        return [("validate output", "validate exit %s, output is not JSON: %r %r"
                 % (rc, out[:200], err[:300]))]
    errors = [f for f in rep.get("findings", []) if f.get("severity") == "error"]
    if rc != 0 or rep.get("verdict") != "conformant" or errors:
        shown = "; ".join("%s %s: %s" % (f["clause"], f.get("file"), f.get("message", "")[:160])
                          for f in errors[:3])
        fails.append(("validate verdict", "validate exit %s, verdict %s, %d errors: %s"
                      % (rc, rep.get("verdict"), len(errors), shown)))
    rec = {}
    for f in rep.get("findings", []):
        if f["clause"].startswith("REC-"):
            rec.setdefault(f.get("file"), []).append(f["clause"])
    recovered = {r["file"]: r["events"] for r in rep.get("recovered", [])}
    for e in exp:
        for path, f in sorted(e["files"].items()):
            if f["complete"]:
                if rec.get(path):
                    fails.append(("validate REC", "%s has its footer, but validate reports %s"
                                  % (path, rec[path])))
                continue
            if "REC-001" not in rec.get(path, []):
                fails.append(("validate REC", "%s has no footer, but no REC-001 (REC findings: "
                              "%s)" % (path, rec.get(path, []))))
            if recovered.get(path) != f["n"]:
                fails.append(("validate recovered", "%s: recovered %s events, expected %d"
                              % (path, recovered.get(path), f["n"])))
    if final and (rec or recovered):
        fails.append(("validate REC", "final state: REC findings %s, recovered %s"
                      % (rec, recovered)))
    return fails


def check_atfpy(exp, files):
    """The independent Python reader recovers the same events."""
    fails = []
    for e in exp:
        t = e["t"]
        for path, parse, n in ((t.index_path, parse_index_file, e["n_idx"]),
                               (t.detail_path, parse_detail_file, e["n_det"])):
            f = e["files"].get(path)
            if f is None:
                continue
            data = files[path]
            try:
                r = parse(data)
            except AtfFormatError as ex:
                fails.append(("atfpy", "%s: atfpy cannot read it: %s" % (path, ex)))
                continue
            want_state = "complete" if f["complete"] else "crash-truncated"
            if len(r.events) != n or r.state != want_state:
                fails.append(("atfpy", "%s: atfpy recovers %d events (%s), expected %d (%s)"
                              % (path, len(r.events), r.state, n, want_state)))
    return fails


class Sweep:
    def __init__(self, atf, workdir, keep):
        self.atf, self.workdir, self.keep = atf, workdir, keep

    def check_state(self, job):
        name, w, oracle, k, cut, slot = job
        d = os.path.join(self.workdir, "s%d" % slot)
        shutil.rmtree(d, ignore_errors=True)
        st = w.materialise(d, k, cut)
        exp = oracle.expect(st)
        final = k == len(w.ops)
        fails = []
        rc, out, err = run([self.atf, "dump", "--json", d], TIMEOUT)
        fails += check_dump(rc, out, err, oracle, exp, final)
        rc, out, err = run([self.atf, "validate", "--format", "json", d], TIMEOUT)
        fails += check_validate(rc, out, err, exp, final)
        fails += check_atfpy(exp, st.files)
        if self.keep:
            print("kept %s: %s" % (describe_state(name, w, k, cut), d), flush=True)
        else:
            shutil.rmtree(d, ignore_errors=True)
        events = sum(e["n_idx"] for e in exp)
        return name, k, cut, fails, events


def describe_state(name, w, k, cut):
    nxt = w.ops[k] if k < len(w.ops) else None
    if cut is None:
        return "%s: after %d of %d calls (next: %s)" % (name, k, len(w.ops), nxt or "none")
    return "%s: after %d calls + %d of the %d bytes of [%s]" % (name, k, cut, len(nxt.data), nxt)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--atf", required=True, help="path of the atf executable")
    ap.add_argument("--workdir", help="directory for the states (default: a temporary one)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--only", action="append", metavar="SESSION")
    ap.add_argument("--state", type=int, metavar="K",
                    help="check only the state after K calls (with --only: one session)")
    ap.add_argument("--cut", type=int, metavar="B", help="with --state: plus B bytes of call K")
    ap.add_argument("--keep", action="store_true",
                    help="keep the states' directories (printed) instead of removing them")
    ap.add_argument("--show", type=int, default=MAX_DETAILED, metavar="N",
                    help="failing states listed in full (default %d)" % MAX_DETAILED)
    ap.add_argument("-v", "--verbose", action="store_true", help="list the calls of each run")
    a = ap.parse_args(argv)
    atf = os.path.abspath(a.atf)
    if not (os.path.isfile(atf) and os.access(atf, os.X_OK)):
        print("error: %s is not an executable file" % atf, file=sys.stderr)
        return 2
    if a.workdir:
        os.makedirs(a.workdir, exist_ok=True)
    base = tempfile.mkdtemp(prefix="ada-sweep-", dir=a.workdir)
    t0 = time.monotonic()
    jobs, runs = [], {}
    byte_states = 0
    for spec in SESSIONS:
        if a.only and spec[0] not in a.only:
            continue
        name, w, every_byte = build(spec)
        runs[name] = w
        problems = self_check(w)
        if problems:
            print("error: the model of %s is inconsistent:\n  %s" % (name, "\n  ".join(problems)),
                  file=sys.stderr)
            return 2
        oracle = Oracle(w)
        if a.verbose:
            print("%s: %d calls" % (name, len(w.ops)))
            for i, op in enumerate(w.ops):
                print("  %3d %s" % (i, op))
        points = w.cut_points(every_byte) if a.state is None else [(a.state, a.cut)]
        if not every_byte and a.state is None:
            points += sampled_cuts(w, spec[1])
        for k, cut in points:
            if k == 0 and cut is None and a.state is None:
                continue        # an empty directory: not yet a session
            byte_states += cut is not None
            jobs.append((name, w, oracle, k, cut, len(jobs)))
        writes = sum(op.kind == OP_WRITE for op in w.ops)
        print("%s: layout %d, %d threads, %d events, %d calls (%d writes)%s"
              % (name, w.layout, len(w.threads),
                 sum(len(t.index_events) for t in w.threads.values()), len(w.ops), writes,
                 ", every byte" if every_byte else ""), flush=True)
    sweep = Sweep(atf, base, a.keep)
    failed, events, categories = [], 0, Counter()
    try:
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            for name, k, cut, fails, n in pool.map(sweep.check_state, jobs):
                events += n
                if fails:
                    failed.append((name, k, cut, fails))
                    w = runs[name]
                    nxt = w.ops[k] if k < len(w.ops) else None
                    what = "end" if nxt is None else "%s %s (%s)" % (
                        nxt.kind, nxt.path.rsplit("/", 1)[-1], nxt.why)
                    for check, _msg in fails:
                        categories["%s | %s%s" % (check, "torn " if cut is not None else
                                                  "before ", what)] += 1
    finally:
        if not a.keep:
            shutil.rmtree(base, ignore_errors=True)
    for name, k, cut, fails in failed[:a.show]:
        print("FAIL %s" % describe_state(name, runs[name], k, cut))
        for _check, msg in fails:
            print("     %s" % msg)
        print("     reproduce: %s %s --atf %s --only %s --state %d%s --keep"
              % (sys.executable, os.path.abspath(__file__), atf, name, k,
                 "" if cut is None else " --cut %d" % cut))
    if len(failed) > a.show:
        print("... %d more failing states" % (len(failed) - a.show))
    if categories:
        print("failures by check | call the crash stopped at:")
        for cat, n in sorted(categories.items()):
            print("  %5d  %s" % (n, cat))
    print("ada writer sweep: %d states checked (%d inside a write), %d sessions, %d complete "
          "events expected in all, %d failed, %.1f s"
          % (len(jobs), byte_states, len(runs), events, len(failed), time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
