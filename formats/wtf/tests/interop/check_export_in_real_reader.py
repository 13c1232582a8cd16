#!/usr/bin/env python3
"""`atf export --format wtf` loaded by the real Web Tracing Framework's
reader (npm tracing-framework, pinned; export_in_real_reader.js runs
wtf.db.load, what its bin/dump.js uses, and reports every zone, where
dump.js prints only the first). For each exported file the library loads
it (it refuses a whole file for any fault) and, compared with `atf dump
--json` of the same file:

  - it has the zones we wrote, by name (one per thread, the anchors' zone);
  - per zone its scopes, after its own rescoping, are ours in order: the
    same names, the same depth (its scope stack is at most 1023 deep: no
    "Max scope depth exceeded"), every scope ended (balanced), at our times;
  - the scope data we appended is in its scope's arguments (the symbol of a
    name the export had to change, the cut and unclosed marks, the
    registers of the detail events);
  - exceptions are atf#exception instances with their function, anchors
    are marks with their media time.

Sessions: atf demo (3 threads, ARM64 details), the same crash-truncated,
and (atfpy) a recursion 1100 calls deep with C++ symbols, and a session of
2 h 40 min written as three part files, each loaded alone.

Nothing is skipped: a missing node or package fails the test.

Usage: check_export_in_real_reader.py ATF NPM_DIR WORKDIR
  NPM_DIR: the directory install_wtf.sh installed the package into.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VIEWERS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "tools", "tests", "viewers"))
sys.path.insert(0, VIEWERS)
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "export")))
from checks import check, crash_cut, finish, run  # noqa: E402
from check_wtf_export import read_zones  # noqa: E402
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "conformance", "gen")))
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)
from atfpy.records import IndexEvent  # noqa: E402
from atfpy.session import SessionModel, Symbol, ThreadModel, write_session  # noqa: E402

VERSION = "2015.7.15-1"
MIN_NS = 60 * 10**9


def installed(npm):
    """The package the wtf_npm fixture (install_wtf.sh) installs is there."""
    pkg = os.path.join(npm, "node_modules", "tracing-framework")
    try:
        with open(os.path.join(pkg, "package.json")) as f:
            ok = json.load(f).get("version") == VERSION
    except (OSError, ValueError):
        ok = False
    return check(ok and shutil.which("node"), "tracing-framework %s under %s and node (install_wtf.sh)" %
                 (VERSION, npm))


def real_zones(npm, path):
    env = dict(os.environ, NODE_PATH=os.path.join(npm, "node_modules"))
    r = run(["node", os.path.join(HERE, "export_in_real_reader.js"), path], env=env)
    if not check(r.returncode == 0, "%s: the library refused it: %s" % (path, r.stderr.strip()[-1000:])):
        return None
    check("Max scope depth" not in r.stdout + r.stderr and "Invalid event" not in r.stdout + r.stderr,
          "%s: the library complained: %s" % (path, (r.stdout + r.stderr)[-500:]))
    zones = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            z = json.loads(line)
            zones[z["zone"]] = z
    return zones


def compare(atf, npm, path):
    """The library's view of one file against ours. @return scopes compared."""
    ours = read_zones(atf, path)
    theirs = real_zones(npm, path)
    if theirs is None:
        return 0
    check(sorted(z["name"] for z in ours.values()) == sorted(theirs),
          "%s: zones %s, the library has %s" % (path, sorted(z["name"] for z in ours.values()), sorted(theirs)))
    n = 0
    for z in ours.values():
        t = theirs.get(z["name"])
        if t is None:
            continue
        label = "%s zone %s" % (path, z["name"])
        check(t["type"] == "native_script", "%s: type %s" % (label, t["type"]))
        got = [s[0] for s in t["scopes"]]
        want = [s["name"] for s in z["scopes"]]
        if not check(got == want, "%s: %d scopes, %d ours (first difference at %s)" %
                     (label, len(got), len(want), next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                                                       min(len(got), len(want))))):
            continue
        bad = 0
        for s, (name, depth, time_ms, end_ms, args) in zip(z["scopes"], t["scopes"]):
            ok = depth == s["depth"] and end_ms is not None and end_ms >= time_ms and \
                abs(time_ms * 1000 - s["time"]) < 0.5
            for k, v in s["data"].items():
                ok = ok and args.get(k) == v
            if not ok and bad < 3:
                check(False, "%s: scope %s at %s: the library has depth %s, %s..%s, %s; ours depth %d, %d us, %s" %
                      (label, name, s["time"], depth, time_ms, end_ms, args, s["depth"], s["time"], s["data"]))
            bad += not ok
        check(bad == 0, "%s: %d scope(s) differ" % (label, bad))
        check(t["max_depth"] <= 1023 and t["max_depth"] == max([s["depth"] + 1 for s in z["scopes"]] or [0]),
              "%s: the library's deepest nesting %d" % (label, t["max_depth"]))
        exc = [i[2].get("function") for i in t["instances"] if i[0] == "atf#exception"]
        check(exc == z["exceptions"], "%s: exceptions %d, ours %d" % (label, len(exc), len(z["exceptions"])))
        marks = [i[2] for i in t["instances"] if i[0] == "wtf.trace#mark"]
        check(marks == z["marks"], "%s: marks %s, ours %s" % (label, marks, z["marks"]))
        n += len(want)
    return n


def export(atf, session, out):
    r = run([atf, "export", "--format", "wtf", session, "-o", out])
    check(r.returncode == 0, "export %s: exit %d %s" % (session, r.returncode, r.stderr))


def main():
    atf, npm, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if not installed(npm):
        return finish("")
    total = 0
    demo = os.path.join(work, "pid_7")
    check(run([atf, "demo", "--threads", "3", "--events", "3000", "--detail-every", "4", demo]).returncode == 0,
          "atf demo")
    export(atf, demo, os.path.join(work, "demo.wtf-trace"))
    total += compare(atf, npm, os.path.join(work, "demo.wtf-trace"))
    cut = os.path.join(work, "pid_8")
    shutil.copytree(demo, cut)
    crash_cut(os.path.join(cut, "thread_2", "index.atf"), 64 + 32 * 777 + 9)
    export(atf, cut, os.path.join(work, "cut.wtf-trace"))
    total += compare(atf, npm, os.path.join(work, "cut.wtf-trace"))

    # 1100 calls deep (the library keeps 1023), C++ symbols, an exception.
    syms = [Symbol(1, 0, 0, "ns::Tree<int>::walk(Node*) const"), Symbol(2, 0, 1, "main()"),
            Symbol(3, 0, 2, "operator new[](unsigned long)")]
    ev = [IndexEvent(10**9, 2, 1)]
    ev += [IndexEvent(10**9 + 100 * i, 1, 1) for i in range(1, 1101)]
    ev += [IndexEvent(10**9 + 200000, 3, 1), IndexEvent(10**9 + 200100, 3, 3)]
    ev += [IndexEvent(10**9 + 300000 + 100 * i, 1, 2) for i in range(1100)]
    ev += [IndexEvent(10**9 + 500000, 2, 2)]
    deep = os.path.join(work, "pid_9")
    write_session(SessionModel(name="deep", threads=[ThreadModel(id=0, os_thread_id=3, events=ev)], symbols=syms),
                  deep)
    export(atf, deep, os.path.join(work, "deep.wtf-trace"))
    total += compare(atf, npm, os.path.join(work, "deep.wtf-trace"))

    # 2 h 40 min: three files, each loaded alone.
    long_ev = [IndexEvent(5 * 10**9, 2, 1)]
    for i in range(1, 160):
        long_ev += [IndexEvent(5 * 10**9 + i * MIN_NS, 1, 1), IndexEvent(5 * 10**9 + i * MIN_NS + 500, 1, 2)]
    long_ev.append(IndexEvent(5 * 10**9 + 160 * MIN_NS, 2, 2))
    long = os.path.join(work, "pid_10")
    write_session(SessionModel(name="long", threads=[ThreadModel(id=1, os_thread_id=4, events=long_ev)],
                               symbols=syms), long)
    export(atf, long, os.path.join(work, "long.wtf-trace"))
    for p in ("long.wtf-trace", "long.part2.wtf-trace", "long.part3.wtf-trace"):
        check(os.path.exists(os.path.join(work, p)), "long: %s written" % p)
        total += compare(atf, npm, os.path.join(work, p))
    check(total > 9000, "scopes compared: %d" % total)
    return finish("the real WTF reader loads our exports as we wrote them (%d scopes compared)" % total)


if __name__ == "__main__":
    sys.exit(main())
