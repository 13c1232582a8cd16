#!/usr/bin/python3
"""Paths a user's disk can hold that are not ATF files: every `atf` command
answers at once, with the right words and exit status, in small memory.

    check_bad_paths.py --atf PATH_TO_atf --corpus DIR --workdir DIR

* A FIFO as manifest.json, index.atf or detail.atf of a session, and given
  alone: info, dump, merge and validate exit 2 (an I/O problem, not a
  verdict) saying "a FIFO", never blocking (a 60 s guard catches a hang);
  `atf conform --scenario-file FIFO` too.
* manifest.json that is a directory: exit 2, "a directory".
* As an unprivileged user (the script drops to uid/gid 65534 with setpriv
  when run as root): an index.atf with mode 000 and a thread directory with
  mode 000: exit 2, "Permission denied"; never "not an ATF file", "does not
  exist" or a conformance verdict.
* A crash-left index.atf (placeholder header, one event) extended to
  100 GiB with a sparse zero tail (SPEC 7a.6): info, dump and validate
  recover the one event and report the tail, and the peak memory of every
  command stays under 64 MiB (work and memory do not grow with the tail).
  With --emulated (a cross build run under qemu-user, whose own per-page
  bookkeeping of a 100 GiB mapping is ~600 MB) the memory bound is not
  checked, and the run says so; everything else is.

The last line is `N passed, M failed`; exit status 1 on any failure.
"""

import argparse
import os
import resource
import shutil
import stat
import subprocess
import sys

FAILS = []
PASSED = [0]
NOBODY = 65534


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILS.append(what)
        print("FAIL " + what)


def run(cmd, unprivileged=False):
    if unprivileged and os.geteuid() == 0:
        cmd = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"] + cmd
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "hang", "", ""


def fresh_session(corpus, workdir, name):
    """A copy of a golden session with two threads and detail lanes."""
    src = os.path.join(corpus, "y_session_basic_l2")
    if not os.path.isdir(src):
        src = os.path.join(corpus, sorted(n for n in os.listdir(corpus)
                                          if n.startswith("y_session") and os.path.isdir(os.path.join(corpus, n)))[0])
    dst = os.path.join(workdir, name)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    os.chmod(workdir, 0o755)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    return dst


def first_thread(session):
    return sorted(d for d in os.listdir(session) if d.startswith("thread_"))[0]


def expect_io(atf, path, what, words, unprivileged=False, commands=("info", "dump", "merge", "validate")):
    for c in commands:
        rc, out, err = run([atf, c, path], unprivileged)
        check(rc == 2, "%s: atf %s exit %s, expected 2 (stderr: %s)" % (what, c, rc, err.strip()[:200]))
        check(any(w in err for w in words), "%s: atf %s does not say %s: %s" % (what, c, " / ".join(words),
                                                                              err.strip()[:200]))
        check("does not exist" not in err and "not an ATF file" not in err and "conformant" not in out.lower()[-40:],
              "%s: atf %s gives a verdict about the format: %s %s" % (what, c, out[-200:], err[:200]))


def fifo_cases(atf, corpus, workdir):
    for place in ("manifest.json", "index.atf", "detail.atf"):
        s = fresh_session(corpus, workdir, "fifo_" + place.split(".")[0])
        t = os.path.join(s, first_thread(s))
        p = os.path.join(s, place) if place == "manifest.json" else os.path.join(t, place)
        if os.path.exists(p):
            os.remove(p)
        os.mkfifo(p)
        expect_io(atf, s, "FIFO as %s" % place, ["a FIFO"])
        expect_io(atf, p, "FIFO given alone (%s)" % place, ["a FIFO", "not a regular file"],
                  commands=("info", "dump", "validate"))
    # The writer kit's scenario file.
    f = os.path.join(workdir, "scenario.fifo")
    if not os.path.exists(f):
        os.mkfifo(f)
    rc, out, err = run([atf, "conform", "--writer", "true", "--scenario-file", f])
    check(rc == 2 and "a FIFO" in err, "atf conform --scenario-file FIFO: exit %s: %s" % (rc, err.strip()[:200]))
    s = fresh_session(corpus, workdir, "manifest_dir")
    os.remove(os.path.join(s, "manifest.json"))
    os.mkdir(os.path.join(s, "manifest.json"))
    expect_io(atf, s, "manifest.json is a directory", ["a directory"])


def permission_cases(atf, corpus, workdir):
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        check(False, "running as root without setpriv: cannot test as an unprivileged user")
        return
    s = fresh_session(corpus, workdir, "perm_file")
    t = os.path.join(s, first_thread(s))
    os.chmod(os.path.join(t, "index.atf"), 0)
    expect_io(atf, s, "index.atf mode 000", ["Permission denied"], unprivileged=True)
    expect_io(atf, os.path.join(t, "index.atf"), "index.atf mode 000 given alone", ["Permission denied"],
              unprivileged=True, commands=("info", "dump", "validate"))
    s = fresh_session(corpus, workdir, "perm_dir")
    t = os.path.join(s, first_thread(s))
    os.chmod(t, 0)
    expect_io(atf, s, "thread directory mode 000", ["Permission denied"], unprivileged=True)


def sparse_case(atf, workdir, emulated):
    d = os.path.join(workdir, "sparse", "pid_1")
    shutil.rmtree(os.path.dirname(d), ignore_errors=True)
    rc, _, err = run([atf, "demo", "--threads", "1", "--events", "10", "--detail-every", "0", d])
    check(rc == 0, "atf demo: %s" % err)
    p = os.path.join(d, "thread_0", "index.atf")
    with open(p, "rb") as f:
        data = bytearray(f.read())
    h = data[:64]
    h[8:12] = bytes(4)            # the writer's placeholder header
    h[24:32] = bytes(8)           # (layout 2: event_count u64 @24)
    h[40:64] = bytes(24)
    with open(p, "wb") as f:
        f.write(bytes(h) + bytes(data[64:96]))
    os.truncate(p, 100 << 30)     # a 100 GiB zero tail, sparse
    if emulated:
        print("note: under an emulator: the peak-memory bound of the sparse-tail case is not checked")
    for c in ("info", "dump", "validate"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        rc, out, err = run([atf, c, d])
        peak = 0 if emulated else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        check(rc == 0, "sparse 100 GiB tail: atf %s exit %s (%s)" % (c, rc, err.strip()[:200]))
        text = out + err
        check("1 complete events recovered" in text, "sparse tail: atf %s does not recover the one event: %s"
              % (c, text[-300:]))
        # ru_maxrss is the largest child so far (KiB): a bound, not a timing.
        check(peak < 64 * 1024 or peak == before, "sparse tail: atf %s peaked at %d KiB" % (c, peak))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--emulated", action="store_true")
    a = ap.parse_args()
    atf = a.atf if " " in a.atf else os.path.abspath(a.atf)
    os.makedirs(a.workdir, exist_ok=True)
    os.chmod(a.workdir, 0o755)
    fifo_cases(atf, a.corpus, a.workdir)
    permission_cases(atf, a.corpus, a.workdir)
    sparse_case(atf, a.workdir, a.emulated)
    for root, dirs, files in os.walk(a.workdir):
        for x in dirs:
            os.chmod(os.path.join(root, x), stat.S_IRWXU)
    print("%d passed, %d failed" % (PASSED[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
