#!/usr/bin/env python3
"""Checks `atf export --format chrome-json` with a viewer people use:
speedscope's web app (npm `speedscope`) in headless Chromium, loaded the way
speedscope's own launcher does it (speedscope_load.mjs), and what the page
shows is compared with the session (`atf dump --json`):

  - the export is JSON whose B/E events balance per thread, ts in
    microseconds with the nanoseconds as three decimals;
  - speedscope imports it as one profile per thread, named after the
    session's pid_N and the thread ids;
  - each profile's frames are exactly the names of the functions that
    thread called (the manifest's symbols).

Also run on a crash-truncated session. Nothing is skipped: a missing node,
Chromium or npm package fails the test.

Usage: check_speedscope.py ATF NPM_DIR WORKDIR
"""
import json
import os
import shutil
import sys

from checks import FAILS, check, crash_cut, dump_threads, finish, run

HERE = os.path.dirname(os.path.abspath(__file__))


def check_session(atf, npm, session, pid, work, label):
    out = os.path.join(work, label + ".json")
    r = run([atf, "export", "--format", "chrome-json", session, "-o", out])
    if not check(r.returncode == 0, "%s: atf export exit %d: %s" % (label, r.returncode, r.stderr)):
        return
    with open(out) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    threads = dump_threads(atf, session)
    # B/E balance per thread, ts in microseconds that keep the nanoseconds.
    for tid, evs in threads.items():
        depth, ok = 0, True
        mine = [e for e in events if e.get("tid") == tid and e["ph"] in "BE"]
        for e in mine:
            depth += 1 if e["ph"] == "B" else -1
            ok = ok and depth >= 0
        check(ok and depth == 0, "%s: thread %d: B/E balance" % (label, tid))
        calls = [e["timestamp_ns"] for e in evs if e["event_kind"] == 1]
        begins = [round(e["ts"] * 1000) for e in mine if e["ph"] == "B"]
        check(begins == calls, "%s: thread %d: B at the calls' timestamps" % (label, tid))
    # speedscope.
    page = os.path.join(work, label + ".page.json")
    r = run(["node", os.path.join(HERE, "speedscope_load.mjs"), npm, out, page])
    if not check(r.returncode == 0, "%s: speedscope in Chromium: exit %d: %s %s" %
                 (label, r.returncode, r.stdout, r.stderr)):
        return
    with open(page) as f:
        shown = json.load(f)
    check(shown["title"] == os.path.basename(out) + " - speedscope", "%s: title %r" % (label, shown["title"]))
    check(not shown["errors"], "%s: page errors: %s" % (label, shown["errors"]))
    want_profiles = []
    for tid in sorted(threads):
        os_tid = 1000 + tid   # atf demo: thread K records os tid 1000 + K
        want_profiles.append("pid_%d (pid %d), thread_%d (os tid %d) (tid %d)" % (pid, pid, tid, os_tid, tid))
    check(shown["profiles"] == want_profiles, "%s: profiles %s, want %s" % (label, shown["profiles"], want_profiles))
    for tid, name in zip(sorted(threads), want_profiles):
        want = sorted({e["symbol"] for e in threads[tid] if e["event_kind"] == 1})
        got = sorted(shown["frames"].get(name, []))
        check(got == want, "%s: thread %d: frames %s, want the session's functions %s" % (label, tid, got, want))
    print("ok: %s: %d profiles, frames %s" % (label, len(shown["profiles"]),
                                             sorted(set(sum(shown["frames"].values(), [])))))


def main():
    atf, npm, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for tool in ("node", "/usr/bin/chromium"):
        check(shutil.which(tool) is not None, "%s is missing (ci/lib.sh: atf_install_viewers)" % tool)
    if FAILS:
        return 1
    s = os.path.join(work, "demo", "pid_4242")
    r = run([atf, "demo", "--threads", "3", "--events", "2000", "--detail-every", "4", s])
    check(r.returncode == 0, "demo: %s" % r.stderr)
    check_session(atf, npm, s, 4242, work, "demo")
    # A crash-truncated session: thread 1 cut mid-record, without its footer.
    c = os.path.join(work, "crash", "pid_99")
    r = run([atf, "demo", "--threads", "2", "--events", "3000", "--detail-every", "2", "--seed", "5", c])
    check(r.returncode == 0, "demo: %s" % r.stderr)
    for name in ("index.atf", "detail.atf"):
        p = os.path.join(c, "thread_1", name)
        crash_cut(p, os.path.getsize(p) // 2 + 5)
    check_session(atf, npm, c, 99, work, "crash")
    return finish("speedscope loaded every export with the sessions' function names as frames")


if __name__ == "__main__":
    sys.exit(main())
