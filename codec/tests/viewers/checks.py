"""What the viewer and CLI check scripts share: running a command, recording
a failed check (every check runs; the script fails at the end if any did),
and the canonical dump of a path by thread."""
import json
import subprocess

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=kw.pop("text", True), check=False, **kw)


def dump_threads(atf, path, extra=()):
    """thread id -> its index events (dicts) from `atf dump --json`."""
    r = run([atf, "dump", "--json", *extra, path])
    check(r.returncode == 0, "atf dump --json %s: exit %d %s" % (path, r.returncode, r.stderr))
    threads = {}
    for line in r.stdout.splitlines():
        e = json.loads(line)
        threads.setdefault(e["thread"], []).append(e)
    return threads


def finish(success_line):
    """The exit status of a check script."""
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print(success_line)
    return 0
