#!/usr/bin/env python3
"""`--from/--to`, `--thread`, `--progress` and `--quiet` on dump, merge and
export (and progress on validate), and export's errors, through the `atf`
command:

  - dump and merge with a window or a thread list print exactly the lines of
    the unfiltered output that match (window inclusive at both ends);
  - --progress writes progress to stderr (a pipe here), nothing does without
    it, --quiet silences it; stdout is the same either way;
  - export: unknown format, missing -o, --from after --to are usage errors
    (exit 2); an unwritable output is exit 2 with a message, never a verdict.

Usage: check_filters.py ATF WORKDIR
"""
import json
import os
import shutil
import sys

from checks import check, finish, run

def lines(r):
    return [json.loads(x) for x in r.stdout.splitlines()]


def main():
    atf, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    s = os.path.join(work, "pid_5")
    check(run([atf, "demo", "--threads", "4", "--events", "3000", s]).returncode == 0, "demo")
    full_dump = lines(run([atf, "dump", "--json", s]))
    full_merge = lines(run([atf, "merge", "--json", s]))
    ts = sorted(e["timestamp_ns"] for e in full_dump)
    lo, hi = ts[len(ts) // 4], ts[len(ts) // 2]
    for cmd, full in (("dump", full_dump), ("merge", full_merge)):
        r = run([atf, cmd, "--json", "--from", str(lo), "--to", str(hi), s])
        want = [e for e in full if lo <= e["timestamp_ns"] <= hi]
        check(r.returncode == 0 and lines(r) == want and len(want) > 0,
              "%s --from/--to: %d lines, want %d" % (cmd, len(lines(r)), len(want)))
        r = run([atf, cmd, "--json", "--thread", "1,3", s])
        want = [e for e in full if e["thread"] in (1, 3)]
        check(r.returncode == 0 and lines(r) == want, "%s --thread 1,3" % cmd)
        r = run([atf, cmd, "--json", "--thread", "2", "--thread", "0", "--to", str(hi), s])
        want = [e for e in full if e["thread"] in (0, 2) and e["timestamp_ns"] <= hi]
        check(r.returncode == 0 and lines(r) == want, "%s --thread 2 --thread 0 --to" % cmd)
        # Units: 1.5s is 1500000000 ns.
        r = run([atf, cmd, "--json", "--from", "1.0000001s", s])
        want = [e for e in full if e["timestamp_ns"] >= 1000000100]
        check(r.returncode == 0 and lines(r) == want, "%s --from 1.0000001s" % cmd)
        r = run([atf, cmd, "--from", "5", "--to", "4", s])
        check(r.returncode == 2, "%s --from after --to: exit %d" % (cmd, r.returncode))
        r = run([atf, cmd, "--thread", "9", s])
        check(r.returncode == 2 and "no thread 9" in r.stderr and r.stdout == "",
              "%s --thread 9 (not in the session): exit %d %r" % (cmd, r.returncode, r.stderr))
        r = run([atf, cmd, "--thread", "x", s])
        check(r.returncode == 2, "%s --thread x: exit %d" % (cmd, r.returncode))
        # Progress: only when asked (stderr is a pipe here).
        plain = run([atf, cmd, s])
        forced = run([atf, cmd, "--progress", s])
        quiet = run([atf, cmd, "--progress", "--quiet", s])
        check(plain.stderr == "" and quiet.stderr == "", "%s: no progress unless asked: %r" % (cmd, plain.stderr))
        check("100.0%" in forced.stderr and "events" in forced.stderr, "%s --progress: %r" % (cmd, forced.stderr))
        check(plain.stdout == forced.stdout == quiet.stdout, "%s: progress never changes stdout" % cmd)
    # validate: progress per thread, only when asked.
    plain, forced = run([atf, "validate", s]), run([atf, "validate", "--progress", s])
    check(plain.returncode == 0 and plain.stderr == "", "validate: no progress unless asked: %r" % plain.stderr)
    check(forced.returncode == 0 and "(4 of 4 threads)" in forced.stderr and plain.stdout == forced.stdout,
          "validate --progress: %r" % forced.stderr)
    # Export errors and progress.
    out = os.path.join(work, "t.json")
    for args, what in ((["--format", "bogus", s, "-o", out], "unknown format"),
                       (["--format", "perfetto", s], "no -o"),
                       (["--format", "perfetto", "--from", "9", "--to", "8", s, "-o", out], "--from after --to")):
        r = run([atf, "export"] + args)
        check(r.returncode == 2, "export %s: exit %d" % (what, r.returncode))
    r = run([atf, "export", "--format", "chrome-json", s, "-o", "/dev/full"])
    check(r.returncode == 2 and "cannot write" in r.stderr, "export to /dev/full: exit %d %r" % (r.returncode, r.stderr))
    r = run([atf, "export", "--format", "chrome-json", os.path.join(work, "missing"), "-o", out])
    check(r.returncode == 2, "export of a missing path: exit %d" % r.returncode)
    r = run([atf, "export", "--format", "chrome-json", "--progress", s, "-o", out])
    check(r.returncode == 0 and "100.0%" in r.stderr, "export --progress: %r" % r.stderr)
    r = run([atf, "export", "--format", "chrome-json", "--thread", "2", "--from", str(lo), "--to", str(hi), s, "-o", out])
    with open(out) as f:
        evs = json.load(f)["traceEvents"]
    tids = {e["tid"] for e in evs if e["ph"] in "BEi" and e.get("cat") != "anchor"}
    inside = all(lo <= round(e["ts"] * 1000) <= hi for e in evs if e["ph"] in "BEi" and e.get("cat") != "anchor")
    check(r.returncode == 0 and tids == {2} and inside, "export --thread 2 --from/--to: tids %s, inside %s" % (tids, inside))
    return finish("filters, progress and export errors behave")


if __name__ == "__main__":
    sys.exit(main())
