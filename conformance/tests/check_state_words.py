#!/usr/bin/python3
"""One vocabulary, nothing dropped silently: `atf info`, `atf validate`,
`atf dump` and `atf merge` on every golden corpus case, and on a directory of
sessions.

    check_state_words.py --atf PATH_TO_atf --corpus DIR --workdir DIR

For every corpus case (its target path, as in NAME.expect.json):
  * the files `atf validate --format json` reports under REC-001 are exactly
    the files `atf info` calls "crash-truncated", and the files under REC-004
    exactly those it calls "damaged" (SPEC section 6: the same words for the
    same state of the same file);
  * `atf dump` (and `atf merge` for a session) never exits 0 when a file was
    not read whole without naming it on stderr: every file reported under
    REC-001 / REC-004 appears on dump's stderr with the same word, and dump
    exits 1 exactly when a file is damaged or unreadable (validate's errors
    REC-004, or an open error named on stderr), 0 when files are only
    crash-truncated.
Then lone files empty or cut inside their header, and other short files,
alone and as a thread's index.atf inside a session: `atf info` agrees with
`atf validate` on each (state word and, alone, exit status), and dump and
export (merge for the session) name the state. Then a directory of sessions (session_A/pid_1/, session_B/pid_2/, written by
`atf demo`, one thread of the second cut short): `atf validate`, `info`,
`dump` and `merge` on the root read both sessions and name each.

The last line is `N passed, M failed`; exit status 1 on any failure.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

WORDS = ("crash-truncated", "damaged")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def states_in(text, root):
    """{relative file: word} from lines that name an .atf file and a state word."""
    out = {}
    for line in text.splitlines():
        m = re.search(r"(\S+\.atf)\b", line)
        if not m:
            continue
        for w in WORDS:
            if (": " + w + " (") in line or ("  " + w + " (") in line:
                out[os.path.relpath(m.group(1).rstrip(":"), root)] = w
    return out


def info_states(atf, target, root):
    """atf info prints each file's path on its own line, then its state."""
    rc, out, _ = run([atf, "info", target])
    states, current = {}, None
    for line in out.splitlines():
        m = re.match(r"\s*(index|detail) (\S+)$", line)
        if m:
            current = os.path.relpath(m.group(2), root)
            continue
        for w in WORDS:
            if current and line.strip().startswith(w + " ("):
                states[current] = w
    return rc, states


def validate_states(atf, target, root):
    rc, out, _ = run([atf, "validate", "--format", "json", target])
    try:
        doc = json.loads(out)
    except ValueError:
        return rc, None, set()
    states, errors = {}, set()
    base = target if os.path.isdir(target) else os.path.dirname(target)
    for f in doc.get("findings", []):
        path = os.path.relpath(os.path.join(base, f["file"]), root) if f.get("file") else None
        if f["clause"] == "REC-001" and path and path.endswith(".atf"):
            states[path] = "crash-truncated"
        elif f["clause"] == "REC-004" and path:
            states[path] = "damaged"
        if f["severity"] == "error":
            errors.add(f["clause"])
    return rc, states, errors


def check_case(atf, corpus, name, fails):
    exp = json.load(open(os.path.join(corpus, name + ".expect.json")))
    target = os.path.normpath(os.path.join(corpus, name, exp.get("target", ".")))
    root = os.path.join(corpus, name)
    check_target(atf, name, target, root, fails)


def check_target(atf, name, target, root, fails, lone=False):
    vrc, vstates, verrors = validate_states(atf, target, root)
    if vstates is None:
        return  # not validated as JSON (a usage-level case): covered elsewhere
    irc, istates = info_states(atf, target, root)
    if istates != vstates:
        fails.append("%s: atf info says %s, atf validate %s" % (name, istates, vstates))
    if lone and irc != vrc:
        fails.append("%s: atf info exits %s, atf validate %s: two verdicts for one file" % (name, irc, vrc))
    tools = [("dump", [atf, "dump", target])]
    if lone:
        tools.append(("export", [atf, "export", "--format", "chrome-json", "-o", os.devnull, target]))
    if os.path.isdir(target) and not os.path.exists(os.path.join(target, "index.atf")):
        tools.append(("merge", [atf, "merge", target]))
    for tool, cmd in tools:
        rc, _, err = run(cmd)
        named = states_in(err, root)
        for path, word in vstates.items():
            if named.get(path) != word:
                fails.append("%s: atf %s exited %s without saying on stderr that %s is %s (stderr: %s)"
                             % (name, tool, rc, path, word, err.strip()[:300]))
        damaged = "damaged" in vstates.values() or "atf: error:" in err
        want = 1 if damaged else 0
        if rc not in (want, 2):
            fails.append("%s: atf %s exited %d, expected %d (%s)" % (name, tool, rc, want, err.strip()[:300]))
        if rc == 0 and "atf: error:" in err:
            fails.append("%s: atf %s exited 0 after an error line" % (name, tool))


def check_root(atf, workdir, fails):
    root = os.path.join(workdir, "ada_traces")
    shutil.rmtree(root, ignore_errors=True)
    a, b = os.path.join(root, "session_A", "pid_1"), os.path.join(root, "session_B", "pid_2")
    for d, layout in ((a, "1"), (b, "2")):
        rc, _, err = run([atf, "demo", "--layout", layout, "--threads", "2", "--events", "500", d])
        if rc:
            fails.append("atf demo %s: %s" % (d, err))
            return
    cut = os.path.join(b, "thread_1", "index.atf")
    with open(cut, "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:   # the footer and 7 bytes lost: damaged (finalized header)
        f.write(data[:-71])
    rc, out, err = run([atf, "validate", root])
    if rc != 1 or "session_A/pid_1/thread_0/index.atf" in out or "session_B/pid_2/thread_1/index.atf" not in out:
        fails.append("atf validate ROOT: exit %d, output %s" % (rc, out[-500:]))
    rc, out, _ = run([atf, "validate", "--format", "json", root])
    files = set(json.loads(out).get("files", [])) if out.startswith("{") else set()
    for s in ("session_A/pid_1/manifest.json", "session_B/pid_2/manifest.json"):
        if s not in files:
            fails.append("atf validate --format json ROOT: %s not among the files %s" % (s, sorted(files)[:6]))
    for tool in ("info", "dump", "merge"):
        rc, out, err = run([atf, tool, root])
        if rc != 1 or a not in out or b not in out or cut not in err or "damaged" not in err:
            fails.append("atf %s ROOT: exit %d, sessions named %s/%s, stderr %s"
                         % (tool, rc, a in out, b in out, err.strip()[:300]))
    rc, out, _ = run([atf, "dump", "--json", root])
    lines = out.splitlines()
    if sum(1 for l in lines if l.startswith('{"session":')) != 2 or len(lines) < 2000:
        fails.append("atf dump --json ROOT: %d lines, session markers %d"
                     % (len(lines), sum(1 for l in lines if l.startswith('{"session":'))))


def check_lone(atf, workdir, fails):
    """Files empty or cut inside their header (SPEC 7a.12), a file of other
    bytes, and a lone empty thread directory: alone, and as the files of a
    thread of a session. Every command gives each the state `atf validate`
    gives it (the same word, and for a lone file the same exit status)."""
    base = os.path.join(workdir, "lone")
    shutil.rmtree(base, ignore_errors=True)
    demo = os.path.join(base, "demo")
    rc, _, err = run([atf, "demo", "--threads", "1", "--events", "50", demo])
    if rc:
        fails.append("atf demo %s: %s" % (demo, err))
        return 0
    ix = open(os.path.join(demo, "thread_0", "index.atf"), "rb").read()
    dt = open(os.path.join(demo, "thread_0", "detail.atf"), "rb").read()
    files = [("empty.atf", b""), ("magic2.atf", ix[:2]), ("magic3.atf", ix[:3]), ("cut40.atf", ix[:40]),
             ("cut63.atf", ix[:63]), ("junk.atf", b"XYZW" + bytes(60)), ("short_junk.atf", b"Q"),
             ("index.atf", b""), ("detail.atf", dt[:30])]
    n = 0
    for fname, data in files:
        d = os.path.join(base, "file_" + fname.replace(".", "_"))
        os.makedirs(d)
        p = os.path.join(d, fname)
        with open(p, "wb") as f:
            f.write(data)
        check_target(atf, "lone " + fname, p, d, fails, lone=True)
        n += 1
        if fname == "detail.atf":
            continue
        # The same bytes as the index lane of a session's second thread.
        s = os.path.join(base, "session_" + fname.replace(".", "_"))
        shutil.copytree(demo, s)
        os.makedirs(os.path.join(s, "thread_1"))
        with open(os.path.join(s, "thread_1", "index.atf"), "wb") as f:
            f.write(data)
        check_target(atf, "session with thread_1/index.atf = " + fname, s, s, fails)
        n += 1
    # A thread directory that holds no file yet (SPEC 7a.12), alone and in its session.
    s = os.path.join(base, "session_empty_thread")
    shutil.copytree(demo, s)
    t = os.path.join(s, "thread_7")
    os.makedirs(t)
    for target, lone in ((t, True), (s, False)):
        vrc, vout, _ = run([atf, "validate", target])
        if vrc != 0 or "REC-001" not in vout or "holds no file yet" not in vout:
            fails.append("empty thread_7/ (%s): atf validate exit %s: %s" % ("alone" if lone else "in its session",
                                                                           vrc, vout[-300:]))
        tools = ["info", "dump"] + (["merge"] if not lone else [])
        for tool in tools:
            rc, out, err = run([atf, tool, target])
            if rc != 0 or "thread_7: crash-truncated (the thread directory holds no file yet)" not in err:
                fails.append("empty thread_7/ (%s): atf %s exit %s, stderr %s"
                             % ("alone" if lone else "in its session", tool, rc, err.strip()[:300]))
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    names = sorted(n[:-len(".expect.json")] for n in os.listdir(a.corpus) if n.endswith(".expect.json"))
    if len(names) < 100:
        print("corpus %s holds %d cases: too few" % (a.corpus, len(names)))
        return 2
    fails = []
    for n in names:
        check_case(a.atf, a.corpus, n, fails)
    check_root(a.atf, a.workdir, fails)
    lone = check_lone(a.atf, a.workdir, fails)
    for f in fails[:40]:
        print("FAIL " + f)
    print("%d passed, %d failed" % (len(names) + 1 + lone - len({f.split(":")[0] for f in fails}), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
