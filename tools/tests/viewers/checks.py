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


def crash_cut(path, keep):
    """What a crash leaves of a finished index.atf / detail.atf: its header
    put back to the writer's placeholder (SPEC 2.1, 3.1: counts, footer
    offset, times and flags 0; identity fields kept) and the file cut to
    `keep` bytes, so no footer. A finished file merely cut short is damage
    (REC-004), not a crash."""
    with open(path, "r+b") as f:
        h = bytearray(f.read(64))
        if h[:4] == b"ATI2":
            h[8:12] = bytes(4)
            if h[5] == 1:
                h[28:32] = bytes(4)
            else:
                h[24:32] = bytes(8)
            h[40:64] = bytes(24)
        else:
            h[28:60] = bytes(32)
        f.seek(0)
        f.write(h)
        f.truncate(keep)

