#!/usr/bin/env python3
"""`atf export --format wtf` through the `atf` command, each export checked
with `atf validate` and read back with `atf dump --json` (the real Web
Tracing Framework loads exports in formats/wtf/tests/interop/):

  - every file written is conformant: `atf validate` exits 0 with no error
    and no warning;
  - one zone per exported thread, named "pid_N thread_K (os tid T)", and a
    zone "pid_N timing anchors" holding the anchors as marks;
  - per zone the scopes balance (a leave never without an open scope, none
    open at the end) and the scopes, in order, are the thread's calls named
    by their symbols (made names the reference reader keeps; the symbol
    itself as scope data "symbol" when that changed it); exceptions are
    atf#exception instances; "unclosed" marks match the count on stderr;
  - sessions: atf demo in both layouts, one crash-truncated, a thread
    directory, a thread list and a time window, and (atfpy) a session of
    2 h 40 min with C++ symbols, written as three part files whose scopes,
    joined, are the calls and whose cuts are marked "clipped_end" /
    "clipped_begin".

Usage: check_wtf_export.py ATF WORKDIR
"""
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))
# What the export checks share (tools/tests/viewers/checks.py).
sys.path.insert(0, os.path.join(ROOT, "tools", "tests", "viewers"))
sys.path.insert(0, os.path.join(ROOT, "conformance", "gen"))
from checks import check, crash_cut, dump_threads, finish, run  # noqa: E402
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)
from atfpy.records import IndexEvent  # noqa: E402
from atfpy.session import SessionModel, Symbol, ThreadModel, write_session  # noqa: E402

SPAN_US = 4294967 * 1000
MIN_NS = 60 * 10**9
OK_BYTES = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:$[]\"'-")


def scope_name(symbol, fid):
    """The name the export gives a function's scopes (docs/export.md)."""
    if symbol is None:
        return "0x%016x" % fid
    raw = symbol.encode("utf-8")[:4096]
    return "".join(chr(b) if b in OK_BYTES else "_" for b in raw)


def export(atf, session, out, extra=()):
    r = run([atf, "export", "--format", "wtf", *extra, session, "-o", out])
    check(r.returncode == 0, "export %s: exit %d %s" % (session, r.returncode, r.stderr))
    return r.stderr


def conformant(atf, path):
    r = run([atf, "validate", path])
    check(r.returncode == 0 and "conformant (0 error(s), 0 warning(s))" in r.stdout,
          "validate %s: exit %d %s %s" % (path, r.returncode, r.stdout[-2000:], r.stderr))


def read_zones(atf, path):
    """zone id -> what it holds, from `atf dump --json` (balance checked here)."""
    r = run([atf, "dump", "--json", path])
    check(r.returncode == 0, "dump %s: exit %d %s" % (path, r.returncode, r.stderr))
    zones = {}
    stacks = {}
    for line in r.stdout.splitlines():
        e = json.loads(line)
        if "wire_id" not in e:
            continue
        name, a = e["event"], e["args"]
        if name == "wtf.zone#create":
            z = zones.setdefault(a["zoneId"], {"scopes": [], "data": [], "exceptions": [], "marks": [],
                                               "depth": 0, "bad_leave": 0})
            z["name"] = a["name"]
            continue
        if e["zone"] is None or name in ("wtf.event#define", "wtf.zone#set", "wtf.zone#delete"):
            continue
        z = zones[e["zone"]]
        stack = stacks.setdefault(e["zone"], [])
        if name == "wtf.scope#enter":
            z["scopes"].append({"name": a["name"], "time": e["time"], "depth": z["depth"], "data": {}})
            stack.append(z["scopes"][-1])
            z["depth"] += 1
        elif name == "wtf.scope#leave":
            check(e["time"] > 0, "%s: a scope ends at time 0 (the reference reader takes it for an instance)" % path)
            if z["depth"] == 0:
                z["bad_leave"] += 1
            else:
                z["depth"] -= 1
                stack.pop()
        elif name == "wtf.scope#appendData":
            check(z["depth"] > 0, "%s: scope data outside a scope" % path)
            z["data"].append((a["name"], a["value"]))
            if stack:
                stack[-1]["data"][a["name"]] = a["value"]
        elif name == "atf#exception":
            z["exceptions"].append(a["function"])
            z.setdefault("exception_times", []).append(e["time"])
        elif name == "wtf.trace#mark":
            z["marks"].append(a)
    for zid, z in zones.items():
        check(z["bad_leave"] == 0 and z["depth"] == 0,
              "%s zone %s: %d leaves without a scope, %d left open" % (path, zid, z["bad_leave"], z["depth"]))
    return zones


def zone_named(zones, prefix, path):
    found = [z for z in zones.values() if z["name"].startswith(prefix)]
    check(len(found) == 1, "%s: one zone named %s..., found %d" % (path, prefix, len(found)))
    return found[0] if found else {"scopes": [], "data": [], "exceptions": [], "marks": []}


def calls_of(events):
    return [scope_name(e.get("symbol"), e["function_id"]) for e in events if e["event_kind"] == 1]


def check_whole(atf, session, out, threads, pid, extra=()):
    """An export of whole threads: every call a scope, in order."""
    err = export(atf, session, out, extra)
    conformant(atf, out)
    zones = read_zones(atf, out)
    unclosed = 0
    for tid, events in threads.items():
        z = zone_named(zones, "pid_%d thread_%d (os tid " % (pid, tid), out)
        got = [s["name"] for s in z["scopes"]]
        want = calls_of(events)
        check(got == want, "%s thread %d: %d scopes, want the %d calls in order" % (out, tid, len(got), len(want)))
        check(len(z["exceptions"]) == sum(1 for e in events if e["event_kind"] == 3),
              "%s thread %d: exceptions" % (out, tid))
        unclosed += sum(1 for n, v in z["data"] if n == "unclosed")
    m = re.search(r"(\d+) calls never returned", err)
    check(m and int(m.group(1)) == unclosed, "%s: %d unclosed marks, stderr says %s" % (out, unclosed, err))
    check(len(zones) == len(threads) + ("pid_%d timing anchors" % pid in [z["name"] for z in zones.values()]),
          "%s: %d zones for %d threads" % (out, len(zones), len(threads)))
    return zones, unclosed


def demo_sessions(atf, work):
    for layout in ("1", "2"):
        s = os.path.join(work, "pid_%s00" % layout)
        check(run([atf, "demo", "--layout", layout, "--threads", "3", "--events", "3000", "--detail-every", "4",
                   s]).returncode == 0, "demo layout %s" % layout)
        threads = dump_threads(atf, s)
        out = os.path.join(work, "demo%s.wtf-trace" % layout)
        zones, unclosed = check_whole(atf, s, out, threads, int(layout) * 100)
        check(unclosed > 0, "%s: the demo ends inside calls: unclosed marks" % out)
        anchors = zone_named(zones, "pid_%s00 timing anchors" % layout, out)
        check(len(anchors["marks"]) == 1 and anchors["marks"][0]["value"].get("media_time_scale") is not None,
              "%s: the anchor is a mark with its media time" % out)
        details = sum(1 for z in zones.values() for n, v in z["data"] if n in ("detail", "ret_detail"))
        check(details > 0 and all("x0" in v for z in zones.values() for n, v in z["data"]
                                  if n in ("detail", "ret_detail")),
              "%s: ARM64 registers as scope data (%d)" % (out, details))
        if layout != "2":
            continue
        # A thread directory: its pid from the parent.
        one = os.path.join(work, "thread1.wtf-trace")
        check_whole(atf, os.path.join(s, "thread_1"), one, {1: threads[1]}, 200)
        # A thread list and a window: balanced, the scopes not clipped are the window's calls.
        ts = sorted(e["timestamp_ns"] for e in threads[0])
        lo, hi = ts[len(ts) // 3], ts[2 * len(ts) // 3]
        win = os.path.join(work, "window.wtf-trace")
        export(atf, s, win, ("--thread", "0,2", "--from", str(lo), "--to", str(hi)))
        conformant(atf, win)
        zones = read_zones(atf, win)
        check(not any(z["name"].startswith("pid_200 thread_1 ") for z in zones.values()),
              "window: thread 1 not exported")
        for tid in (0, 2):
            z = zone_named(zones, "pid_200 thread_%d (" % tid, win)
            got = [sc["name"] for sc in z["scopes"] if "clipped_begin" not in sc["data"]]
            want = calls_of(e for e in threads[tid] if lo <= e["timestamp_ns"] <= hi)
            check(got == want, "window thread %d: %d scopes not clipped, want %d calls" % (tid, len(got), len(want)))
        # Crash-truncated: read as far as it goes, open calls closed and marked.
        cut = os.path.join(work, "pid_300")
        shutil.copytree(s, cut)
        idx = os.path.join(cut, "thread_0", "index.atf")
        crash_cut(idx, 64 + 32 * 1000 + 5)
        cthreads = dump_threads(atf, cut)
        check(len(cthreads[0]) == 1000, "crash cut: 1000 events left")
        check_whole(atf, cut, os.path.join(work, "cut.wtf-trace"), cthreads, 300)


def long_session(atf, work):
    """2 h 40 min: three files (71.6 min each)."""
    syms = {1: "ns::Outer<int>::run(int, char*)", 2: "main()", 3: "plain_name", 4: "operator<<"}
    t0 = 7 * 10**9 + 250_000
    a = [IndexEvent(t0, 2, 1), IndexEvent(t0 + 1000, 1, 1)]            # main() { Outer::run(
    for i in range(1, 150):                                             # a call a minute
        at = t0 + i * MIN_NS
        a += [IndexEvent(at, 3, 1), IndexEvent(at + 5000, 4, 1), IndexEvent(at + 6000, 4, 2),
              IndexEvent(at + 7000, 3, 2)]
    a += [IndexEvent(t0 + 155 * MIN_NS, 1, 2), IndexEvent(t0 + 160 * MIN_NS, 2, 2)]
    b = [IndexEvent(t0 + 100 * MIN_NS, 3, 1), IndexEvent(t0 + 100 * MIN_NS + 10, 3, 3)]
    model = SessionModel(name="long", threads=[ThreadModel(id=0, os_thread_id=11, events=a),
                                               ThreadModel(id=4, os_thread_id=15, events=b)],
                         symbols=[Symbol(f, 0, f, n) for f, n in syms.items()])
    s = os.path.join(work, "pid_4242")
    write_session(model, s)
    threads = dump_threads(atf, s)
    out = os.path.join(work, "long.wtf-trace")
    err = export(atf, s, out)
    parts = [out, os.path.join(work, "long.part2.wtf-trace"), os.path.join(work, "long.part3.wtf-trace")]
    check(all(os.path.exists(p) for p in parts) and not os.path.exists(os.path.join(work, "long.part4.wtf-trace")),
          "long: three files")
    check("3 file(s)" in err and parts[2] in err, "long: stderr names the parts: %s" % err)
    joined = {0: [], 4: []}
    cuts = 0
    for k, p in enumerate(parts):
        conformant(atf, p)
        zones = read_zones(atf, p)
        for tid in (0, 4):
            found = [z for z in zones.values() if z["name"].startswith("pid_4242 thread_%d (" % tid)]
            for z in found:
                for sc in z["scopes"]:
                    # A scope begun again at the start (clipped) continues one of the previous file.
                    if not (k > 0 and sc["time"] == 1 and "clipped_begin" in sc["data"]):
                        joined[tid].append(sc["name"])
                    if sc["name"] in (scope_name(syms[1], 1), scope_name(syms[2], 2), scope_name(syms[4], 4)):
                        check(sc["data"].get("symbol") in syms.values(), "%s: symbol data on %s" % (p, sc["name"]))
                cuts += sum(1 for n, v in z["data"] if n in ("clipped_begin", "clipped_end"))
    for tid in (0, 4):
        check(joined[tid] == calls_of(threads[tid]),
              "long thread %d: joined scopes %d, calls %d" % (tid, len(joined[tid]), len(calls_of(threads[tid]))))
    # main() and Outer::run are open at both boundaries: 2 ends + 2 begins each.
    check(cuts == 8, "long: 8 clipped marks, got %d" % cuts)
    check("4 scope(s) cut at a file boundary" in err, "long: cuts on stderr: %s" % err)


def main():
    atf, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    demo_sessions(atf, work)
    long_session(atf, work)
    return finish("wtf export: all checks passed")


if __name__ == "__main__":
    sys.exit(main())
