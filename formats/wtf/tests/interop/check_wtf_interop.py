#!/usr/bin/env python3
"""Interoperability of our WTF codec with the real Web Tracing Framework,
npm's tracing-framework (installed by install_wtf.sh):

(a) traces the library writes (write_real.js: every argument type, nested
    scopes, instance events, time stamps, marks, zones, appended scope data,
    flows, time ranges, many chunks, a wrapped ring buffer, a large file):
    `atf validate` finds each conformant, and the events of `atf dump --json`
    equal, one for one and in file order, the events the library's own reader
    decodes (dump_real.js): name, time, zone, every argument by name and
    value (float32 exactly); the package's bin/dump.js reads each too;

(b) traces our writer writes (the C program wtf_write_scenarios and
    `atf export --format wtf` of ATF sessions): the library's reader loads
    each, decodes every event as `atf dump --json` does (same comparison),
    and finds the scopes nested as we wrote them: per zone, the same deepest
    nesting and the same scopes left open (none in a complete file);
    bin/dump.js reads each.

Nothing is skipped: a missing node or package fails the test.

Usage: check_wtf_interop.py ATF NPM_DIR WORKDIR [--scenarios PROGRAM] [--export]
  NPM_DIR: the directory install_wtf.sh installed the package into;
  PROGRAM: writes our scenario traces, PROGRAM OUTDIR;
  --export: also `atf export --format wtf` of `atf demo` sessions, one of
  them crash-truncated.
"""
import argparse
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "tools", "tests", "viewers")))
from checks import FAILS, check, crash_cut, finish, run  # noqa: E402

NODE = "node"
SHOW = 5                 # mismatches printed per file


def node_env(npm):
    env = dict(os.environ)
    env["NODE_PATH"] = os.path.join(npm, "node_modules")
    return env


def canonical_events(atf, path, label):
    """The event lines of `atf dump --json`, or None."""
    r = run([atf, "dump", "--json", path])
    if not check(r.returncode == 0, "%s: atf dump --json: exit %d: %s" % (label, r.returncode, r.stderr.strip())):
        return None
    return [e for e in map(json.loads, r.stdout.splitlines()) if "wire_id" in e]


def real_events(npm, path, label):
    """(events, zone summaries) as the library decodes them, or None."""
    r = run([NODE, os.path.join(HERE, "dump_real.js"), path], env=node_env(npm))
    if not check(r.returncode == 0, "%s: the library's reader refused it: exit %d: %s" %
                 (label, r.returncode, r.stderr.strip())):
        return None
    events, zones = [], []
    for line in r.stdout.splitlines():
        rec = json.loads(line)
        (zones if "zone_summary" in rec else events).append(rec)
    return events, zones


def same(a, b):
    """Equality of JSON values that tells true from 1, 1.0 from "1", and
    object keys in another order apart; numbers compare exactly."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


class Zones:
    """Which zone the library files an event under, from our dump: the zone of
    the last zone#set (by its zone#create's name, type and location); before
    any set, the library's default zone, which its first zone#create names."""

    def __init__(self):
        self.by_id = {}
        self.first = None

    def expected(self, zone_id):
        if zone_id is None:
            return self.first, True
        z = self.by_id.get(zone_id)
        return z, z is not None

    def seen(self, ev):
        if ev["event"] == "wtf.zone#create":
            a = ev["args"]
            z = {"name": a["name"], "type": a["type"], "location": a["location"]}
            self.by_id[a["zoneId"]] = z
            if self.first is None:
                self.first = z


def compare(label, ours, theirs):
    """Our events against the library's, one for one; returns the number of
    events that differ."""
    bad = 0

    def differ(i, what):
        nonlocal bad
        bad += 1
        if bad <= SHOW:
            print("FAIL: %s: event %d: %s\n  ours:    %s\n  library: %s" %
                  (label, i, what, json.dumps(ours[i]) if i < len(ours) else "-",
                   json.dumps(theirs[i]) if i < len(theirs) else "-"))

    check(len(ours) == len(theirs), "%s: %d events in our dump, %d decoded by the library" %
          (label, len(ours), len(theirs)))
    zones = Zones()
    for i in range(min(len(ours), len(theirs))):
        o, t = ours[i], theirs[i]
        if o["event"] != t["event"]:
            differ(i, "name")
        elif o["time"] != t["time"]:
            differ(i, "time")
        elif not same(o["args"], t["args"]):
            differ(i, "arguments")
        else:
            want, known = zones.expected(o["zone"])
            if not known or not same(want, t["zone"]):
                differ(i, "zone (ours %s is %s)" % (o["zone"], want))
        zones.seen(o)
    if bad > SHOW:
        print("  ... %d more" % (bad - SHOW))
    if bad:
        FAILS.append("%s: %d events differ" % (label, bad))
    return bad


def nesting(label, ours, summaries, complete):
    """Our scopes per zone (as the library files them) against the library's
    nesting: a leave never without an open scope, the same scopes left open
    at the end (none in a complete file), the same deepest nesting."""
    classes = {"wtf.event#define": 0}
    depth, deepest, ok = {}, {}, True
    zones = Zones()
    for e in ours:
        if e["event"] == "wtf.event#define":
            classes[e["args"]["name"]] = e["args"]["eventClass"]
        key = json.dumps(zones.expected(e["zone"])[0])
        if classes.get(e["event"]) == 1:
            depth[key] = depth.get(key, 0) + 1
            deepest[key] = max(deepest.get(key, 0), depth[key])
        elif e["event"] == "wtf.scope#leave":
            depth[key] = depth.get(key, 0) - 1
            ok = ok and depth[key] >= 0
        zones.seen(e)
    check(ok, "%s: a scope left that was not entered (%s)" % (label, depth))
    check(not complete or not any(depth.values()), "%s: scopes left open in a complete file (%s)" % (label, depth))
    for s in summaries:
        key = json.dumps(s["zone_summary"])
        check(s["open_scopes"] == depth.get(key, 0), "%s: zone %s: the library left %d scopes open, ours %d" %
              (label, key, s["open_scopes"], depth.get(key, 0)))
        check(s["max_depth"] == deepest.get(key, 0), "%s: zone %s: the library's deepest nesting %d, ours %d" %
              (label, key, s["max_depth"], deepest.get(key, 0)))
    return sum(deepest.values())


DUMP_LINE = re.compile(r"^ *\S+ \[ .* \] ")


def bin_dump(npm, path, label, summaries):
    """The package's own bin/dump.js: exit 0, and a line per event of the
    first zone (the only one it prints)."""
    tool = os.path.join(npm, "node_modules", "tracing-framework", "bin", "dump.js")
    r = run([NODE, tool, path], env=node_env(npm))
    lines = [x for x in r.stdout.splitlines() if DUMP_LINE.match(x)]
    want = summaries[0]["events"] if summaries else 0
    check(r.returncode == 0 and "ERROR" not in r.stdout,
          "%s: bin/dump.js: exit %d: %s %s" % (label, r.returncode, r.stdout[-500:], r.stderr[-500:]))
    check(len(lines) == want, "%s: bin/dump.js printed %d events, the library's first zone has %d" %
          (label, len(lines), want))
    return len(lines)


# The arguments write_real.js passes (fixed), as both readers must decode
# them: an oracle independent of either.
WRITTEN = {
    "types.wtf-trace": [
        ("types#ints", {"b0": False, "b1": True, "i8": -128, "u8": 255, "i16": -32768, "u16": 65535,
                        "i32": -2147483648, "u32": 4294967295}),
        ("types#ints", {"b0": True, "b1": False, "i8": 127, "u8": 0, "i16": 32767, "u16": 0,
                        "i32": 2147483647, "u32": 0}),
        ("types#ints", {"b0": False, "b1": False, "i8": -1, "u8": 1, "i16": -1, "u16": 1, "i32": -1, "u32": 1}),
        ("types#floats", {"f": 1.5, "g": -0.10000000149011612, "h": 3.4028234663852886e38}),
        ("types#floats", {"f": 1.401298464324817e-45, "g": 0, "h": -2.5}),
        ("types#floats", {"f": "NaN", "g": "-Infinity", "h": 0}),
        ("types#floats", {"f": "Infinity", "g": 16777216, "h": 0.3333333432674408}),
        ("types#strings", {"a": "plain ascii", "u": "utf8 \u00e9\u4e2d\U0001f600", "nul": None, "empty": ""}),
        ("types#any", {"o": {"k": [1, 2, {"x": "y"}], "f": 1.25}, "a": [True, None, "q"], "n": 42, "s": "str",
                       "t": True, "z": None}),
        ("types#any", {"o": 0, "a": -7.5, "n": False, "s": "x", "t": {}, "z": []}),
        ("types#misc", {"f": 1, "t": 12345, "none": 0}),
        ("types#arrays", {"i8": [-128, 0, 127], "u8": [0, 128, 255], "i16": [-32768, 1, 32767],
                          "u16": [0, 1, 65535], "i32": [-2147483648, 0, 2147483647], "u32": [0, 1, 4294967295],
                          "f32": [1.5, -2.25, 0.10000000149011612]}),
        ("types#arrays", {"i8": [1], "u8": [1, 2], "i16": [1, 2, 3], "u16": [1, 2, 3, 4], "i32": [5],
                          "u32": [6, 7], "f32": [8, 9, 10]}),
        ("types#emptyArrays", {"i8": [], "u16": [], "f32": [], "nul": None}),
        ("types#aliases", {"a": -5, "b": 250, "c": -300, "d": 60000, "e": -70000, "f": 70000, "g": 0.5,
                           "h": "dom", "i": [1, 2, 3]}),
    ],
    "chars.wtf-trace": [
        ("chars#one", {"c": "A", "w": "\u00e9", "cs": "hello", "ws": "w\u00e9\u4e2d", "nul": None}),
        ("chars#one", {"c": "z", "w": "Z", "cs": "", "ws": "", "nul": None}),
    ],
}


def written(label, name, ours):
    """The events of ``ours`` that write_real.js wrote with fixed arguments
    carry them."""
    want = WRITTEN.get(name, [])
    names = {n for n, _ in want}
    got = [(e["event"], e["args"]) for e in ours if e["event"] in names]
    check(len(got) == len(want) and all(g[0] == w[0] and same(w[1], g[1]) for g, w in zip(got, want)),
          "%s: the arguments write_real.js wrote: want %s, got %s" % (label, want, got))
    return len(want)


def check_file(atf, npm, path, label, ours_written, complete=True):
    fails = len(FAILS)
    r = run([atf, "validate", path])
    check(r.returncode == 0, "%s: atf validate: exit %d: %s %s" % (label, r.returncode, r.stdout, r.stderr))
    ours = canonical_events(atf, path, label)
    real = real_events(npm, path, label)
    if ours is None or real is None:
        return
    theirs, summaries = real
    compare(label, ours, theirs)
    what = "%d events, %d zones" % (len(ours), len(summaries))
    if not ours_written and os.path.basename(path) in WRITTEN:
        what += ", %d with known arguments" % written(label, os.path.basename(path), ours)
    if ours_written:
        what += ", %d scopes deep in all" % nesting(label, ours, summaries, complete)
    what += ", bin/dump.js %d lines" % bin_dump(npm, path, label, summaries)
    print("%s: %s: %s" % ("ok" if len(FAILS) == fails else "FAILED", label, what))


def export_sessions(atf, work):
    """ATF sessions (atf demo), one crash-truncated (thread 1 cut mid-record,
    without its footer: its open calls stay open), exported to WTF:
    [(path, complete)]."""
    out = []
    for label, threads, events, seed, cut in (("demo", "3", "2000", "1", False), ("crash", "2", "3000", "5", True)):
        session = os.path.join(work, label, "pid_4242")
        r = run([atf, "demo", "--threads", threads, "--events", events, "--detail-every", "4", "--seed", seed,
                 session])
        if not check(r.returncode == 0, "atf demo: %s" % r.stderr):
            continue
        if cut:
            for name in ("index.atf", "detail.atf"):
                p = os.path.join(session, "thread_1", name)
                crash_cut(p, os.path.getsize(p) // 2 + 5)
        path = os.path.join(work, "export_%s.wtf-trace" % label)
        r = run([atf, "export", "--format", "wtf", session, "-o", path])
        if check(r.returncode == 0, "atf export --format wtf %s: exit %d: %s" % (label, r.returncode, r.stderr)):
            out.append((path, not cut))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("atf")
    ap.add_argument("npm")
    ap.add_argument("work")
    ap.add_argument("--scenarios", help="our writer's scenario program (writes *.wtf-trace into a directory)")
    ap.add_argument("--export", action="store_true",
                    help="also export ATF sessions (atf demo) with atf export --format wtf")
    a = ap.parse_args(argv)
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    env = node_env(a.npm)

    # (a) the library's traces, read by us.
    r = run([NODE, os.path.join(HERE, "write_real.js"), "--list"], env=env)
    names = r.stdout.split()
    real_dir = os.path.join(a.work, "real")
    r = run([NODE, os.path.join(HERE, "write_real.js"), real_dir], env=env)
    check(r.returncode == 0, "write_real.js: exit %d: %s" % (r.returncode, r.stderr))
    written = sorted(f for f in os.listdir(real_dir) if f.endswith(".wtf-trace")) if os.path.isdir(real_dir) else []
    check(names and len(written) == len(names), "write_real.js wrote %d of %d traces" % (len(written), len(names)))
    for f in written:
        check_file(a.atf, a.npm, os.path.join(real_dir, f), "real/" + f, False)

    # (b) our traces, read by the library.
    ours = []
    if a.scenarios:
        ours_dir = os.path.join(a.work, "ours")
        os.makedirs(ours_dir)
        r = run([a.scenarios, ours_dir])
        check(r.returncode == 0, "%s: exit %d: %s" % (a.scenarios, r.returncode, r.stderr))
        if os.path.isdir(ours_dir):
            ours += [(os.path.join(ours_dir, f), True) for f in sorted(os.listdir(ours_dir))
                     if f.endswith(".wtf-trace")]
        check(ours, "%s wrote no trace" % a.scenarios)
    if a.export:
        ours += export_sessions(a.atf, a.work)
    for path, complete in ours:
        check_file(a.atf, a.npm, path, "ours/" + os.path.basename(path), True, complete)

    return finish("wtf interop: %d real traces read by us, %d of ours read by the library" %
                  (len(written), len(ours)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
