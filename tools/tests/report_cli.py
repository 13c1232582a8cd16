#!/usr/bin/python3
"""`atf report` as a user runs it: text and JSON on a demo session, --help,
`--` before a path that starts with '-', the exit codes of README's table
(2: usage, no ATF input, I/O), --thread, and a crash-truncated thread
(its complete events reported, said on stderr, exit 1).

  report_cli.py ATF_CLI WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def main():
    atf, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    def run(*args):
        return subprocess.run([atf] + list(args), capture_output=True, text=True, cwd=work)

    s = os.path.join(work, "-s")
    r = run("demo", "--threads", "3", "--events", "5000", "--", s)
    check(r.returncode == 0, "demo session")
    r = run("report", "--", "-s")
    check(r.returncode == 0 and r.stdout.startswith("     Total time      Self time         Calls  Function\n"),
          "text table, `--` before a path starting with '-' (rc %d, %s)" % (r.returncode, r.stderr.strip()))
    rows = r.stdout.splitlines()[2:]
    check(len(rows) > 3, "one row per function (%d)" % len(rows))
    r = run("report", "--json", "--sort", "calls", "--", "-s")
    j = json.loads(r.stdout)
    calls = [f["calls"] for f in j["functions"]]
    check(calls == sorted(calls, reverse=True), "--sort calls: largest first")
    check(sum(calls) == j["calls"] and j["events"] == 15000 and j["thread_count"] == 3,
          "JSON: calls add up (%d), 15000 events, 3 threads" % sum(calls))
    check(("%d calls never returned" % j["unclosed"]) in r.stderr if j["unclosed"] else r.stderr == "",
          "unclean counts on stderr only when there are some")
    r = run("report", "--json", "--threads", "--thread", "1", "--", "-s")
    j = json.loads(r.stdout)
    check(r.returncode == 0 and [t["thread"] for t in j["threads"]] == [1] and j["events"] == 5000,
          "--threads --thread 1: thread 1 alone")
    r = run("report", "--help")
    check(r.returncode == 0 and r.stdout.startswith("usage of atf report") and r.stderr == "", "--help on stdout, 0")
    os.makedirs(os.path.join(work, "empty"))
    for args, what in ((["empty"], "no ATF input"), (["nowhere"], "missing path"), ([], "no SESSION"),
                       (["--sort", "size", "--", "-s"], "bad --sort"), (["--bogus", "--", "-s"], "unknown option"),
                       (["--thread", "9", "--", "-s"], "a thread the session does not hold"),
                       (["--", "-s", "-s"], "two SESSIONs")):
        r = run("report", *args)
        check(r.returncode == 2 and r.stderr.startswith("atf"), "exit 2: %s (rc %d)" % (what, r.returncode))
    # A finalized thread cut in the middle (damaged: SPEC 6): its complete
    # events are still reported, stderr says so, exit 1 (README's table).
    idx = os.path.join(s, "thread_2", "index.atf")
    data = open(idx, "rb").read()
    with open(idx, "wb") as f:
        f.write(data[:len(data) // 2 + 5])
    r = run("report", "--json", "--", "-s")
    j = json.loads(r.stdout) if r.stdout else {}
    check(r.returncode == 1 and j.get("events") == 12500 and "damaged" in r.stderr and "2500 complete events" in r.stderr,
          "damaged thread: its 2500 complete events reported, said on stderr, exit 1 (rc %d, %s)"
          % (r.returncode, r.stderr.strip()[:200]))


if __name__ == "__main__":
    main()
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")
