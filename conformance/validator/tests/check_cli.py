#!/usr/bin/python3
"""`atf validate` end to end: exit codes, the three output formats parsed by
independent parsers (json, xml.etree), strict mode and crash recovery.

    check_cli.py --atf PATH_TO_atf --workdir DIR

Prints one line per check and `N passed, M failed`; exits 1 if any failed.
Standard library only.
"""

import argparse
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def ok(self, cond, name, detail=""):
        if cond:
            self.passed += 1
            print("ok   %s" % name)
        else:
            self.failed += 1
            print("FAIL %s%s" % (name, ("\n  " + detail) if detail else ""))
        return cond


def run(atf, *args):
    p = subprocess.run([atf] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def validate_all_formats(ck, atf, path, want_rc, name, strict=False):
    """Runs the three formats; checks they agree with each other. Returns the JSON report."""
    extra = ["--strict"] if strict else []
    rc, out, err = run(atf, "validate", *extra, "--format", "json", path)
    ck.ok(rc == want_rc, "%s: json exit %s" % (name, want_rc), "got %s: %s" % (rc, err or out[:500]))
    try:
        rep = json.loads(out)
    except ValueError as e:
        ck.ok(False, "%s: json parses" % name, str(e))
        return None
    ck.ok(rep.get("schema") == "atf-validate/1" and rep.get("path") == path and rep.get("strict") == strict,
          "%s: json header" % name, json.dumps(rep)[:300])
    ck.ok(list(rep) == ["schema", "path", "strict", "verdict", "counts", "recovered", "files", "findings",
                        "clauses_checked"], "%s: json key order" % name, str(list(rep)))
    verdict = "conformant" if want_rc == 0 else "nonconformant"
    ck.ok(rep["verdict"] == verdict, "%s: json verdict %s" % (name, verdict), rep["verdict"])
    # counts: every violation, listed or only counted in a "N more finding(s)
    # ... not listed" summary; "listed": the findings listed one by one.
    more = [f for f in rep["findings"] if re.match(r"\d+ more finding\(s\)", f["message"])]
    listed = [f for f in rep["findings"] if f not in more]
    n_more = sum(int(f["message"].split()[0]) for f in more)
    n_err = sum(f["severity"] == "error" for f in listed)
    n_warn = sum(f["severity"] == "warning" for f in listed)
    c = rep["counts"]
    ck.ok(set(c) == {"error", "warning", "listed"} and c["listed"] == len(listed) and
          c["error"] >= n_err and c["warning"] >= n_warn and c["error"] + c["warning"] == len(listed) + n_more,
          "%s: json counts (listed %d, %d more)" % (name, len(listed), n_more), str(c))
    ck.ok(rep["clauses_checked"] == sorted(set(rep["clauses_checked"])), "%s: clauses_checked sorted" % name)
    ck.ok(all(f["clause"] in rep["clauses_checked"] for f in rep["findings"]),
          "%s: every finding's clause is checked" % name)
    ck.ok(all(set(f) == {"clause", "severity", "file", "offset", "field", "message", "hint"} and
              isinstance(f["hint"], str) and len(f["hint"]) > 20 and
              (f["offset"] is None or isinstance(f["offset"], int)) and
              (f["field"] is None or isinstance(f["field"], str)) for f in rep["findings"]),
          "%s: finding objects" % name)

    rc, out, err = run(atf, "validate", *extra, "--format", "junit", path)
    ck.ok(rc == want_rc, "%s: junit exit %s" % (name, want_rc), "got %s" % rc)
    try:
        root = ET.fromstring(out.encode("utf-8"))
    except ET.ParseError as e:
        ck.ok(False, "%s: junit parses" % name, str(e))
        return rep
    cases = root.findall("testcase")
    ck.ok(root.tag == "testsuite" and root.get("name") == "atf-validate", "%s: junit testsuite" % name)
    ck.ok([c.get("name") for c in cases] and sorted(c.get("name") for c in cases) == rep["clauses_checked"],
          "%s: one testcase per clause checked" % name)
    ck.ok(all(c.get("classname") == "atf." + c.get("name").rsplit("-", 1)[0] for c in cases),
          "%s: testcase classnames" % name)
    failing = sorted(c.get("name") for c in cases if c.find("failure") is not None)
    want_failing = sorted({f["clause"] for f in rep["findings"] if f["severity"] == "error" or strict})
    ck.ok(failing == want_failing, "%s: junit failures match the findings" % name,
          "junit %s, json %s" % (failing, want_failing))
    ck.ok(int(root.get("tests")) == len(cases) and int(root.get("failures")) == len(failing),
          "%s: junit counts" % name)

    rc, out, err = run(atf, "validate", *extra, path)
    ck.ok(rc == want_rc, "%s: text exit %s" % (name, want_rc), "got %s" % rc)
    lines = out.splitlines()
    last = "%s: %s (%d error(s), %d warning(s)%s)" % (path, "conformant" if want_rc == 0 else "NONCONFORMANT",
                                                      c["error"], c["warning"],
                                                      "; %d listed, %d more counted" % (len(listed), n_more)
                                                      if n_more else "")
    clauses = list(dict.fromkeys(f["clause"] for f in rep["findings"]))   # in order of first appearance
    hint_lines = [ln for ln in lines if ln.startswith("hint ")]
    ck.ok(lines and lines[-1] == last and len(lines) == len(rep["findings"]) + len(clauses) + 1 and
          hint_lines == ["hint %s: %s" % (c, next(f["hint"] for f in rep["findings"] if f["clause"] == c))
                         for c in clauses], "%s: text report" % name,
          "last line %r, expected %r; hints %r" % (lines[-1] if lines else None, last, hint_lines))
    return rep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    atf, wd = os.path.abspath(a.atf), os.path.abspath(a.workdir)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    ck = Checks()

    d1, d2 = os.path.join(wd, "l1"), os.path.join(wd, "l2")
    for d, args in ((d1, ["--layout", "1"]), (d2, ["--layout", "2", "--detail-every", "0"])):
        rc, out, err = run(atf, "demo", *args, "--events", "500", d)
        if rc != 0:
            print("error: atf demo failed: %s" % err, file=sys.stderr)
            return 2
    for d in (d1, d2):
        rep = validate_all_formats(ck, atf, d, 0, os.path.basename(d))
        ck.ok(rep is not None and rep["findings"] == [], "%s: demo session has no finding" % os.path.basename(d))
        validate_all_formats(ck, atf, d, 0, os.path.basename(d) + " strict", strict=True)

    # `atf demo` into a directory that is not empty: refused (a 4-thread then
    # a 2-thread session would mix), unless --force; a file is refused too.
    d3 = os.path.join(wd, "demo-twice")
    rc, out, err = run(atf, "demo", "--threads", "4", "--events", "50", d3)
    ck.ok(rc == 0, "demo into a new directory", err)
    before = sorted(os.listdir(d3))
    rc, out, err = run(atf, "demo", "--threads", "2", "--events", "50", d3)
    ck.ok(rc == 2 and "not empty" in err and "--force" in err and sorted(os.listdir(d3)) == before,
          "demo refuses a non-empty directory", "exit %s: %s" % (rc, err))
    rc, out, err = run(atf, "demo", "--force", "--threads", "4", "--events", "60", d3)
    ck.ok(rc == 0 and "4 thread(s) x 60 events" in out, "demo --force", err)
    validate_all_formats(ck, atf, d3, 0, "demo --force")
    d4 = os.path.join(wd, "empty-dir")
    os.makedirs(d4)
    rc, out, err = run(atf, "demo", "--events", "10", d4)
    ck.ok(rc == 0, "demo into an empty directory", err)
    rc, out, err = run(atf, "demo", "--events", "10", os.path.join(d3, "manifest.json"))
    ck.ok(rc == 2 and "not a directory" in err, "demo onto a file", err)

    # docs/dump-format.md: a thread directory, or an index file inside one,
    # takes its symbols from the parent session's manifest; the independent
    # Python reader (atfpy) follows the same rule.
    atfpy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "formats", "atf", "python", "atfpy_tool.py")
    rc, whole, err = run(atf, "dump", "--json", d1)
    want = [ln for ln in whole.splitlines() if ln.startswith('{"thread":0,')]
    ck.ok(want and all('"symbol":' in ln for ln in want[:5]), "session dump resolves symbols", whole[:200])
    def no_detail(lines):   # an index file alone has no detail lane to nest
        return [{k: v for k, v in json.loads(ln).items() if k != "detail"} for ln in lines]
    for target in (os.path.join(d1, "thread_0"), os.path.join(d1, "thread_0", "index.atf")):
        lone = target.endswith(".atf")
        rc, out, err = run(atf, "dump", "--json", target)
        ck.ok(rc == 0 and (no_detail(out.splitlines()) == no_detail(want) if lone else out.splitlines() == want),
              "dump %s: symbols from the session manifest" % target, out[:200])
        p = subprocess.run([sys.executable, atfpy, "dump", "--json", target], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        got = p.stdout.decode().splitlines()
        ck.ok(p.returncode == 0 and (no_detail(got) == no_detail(want) if lone else got == want),
              "atfpy dump %s: symbols from the session manifest" % target, p.stdout.decode()[:200])

    # `--` ends the options: a PATH that starts with '-'.
    dash = os.path.join(wd, "-dash")
    rc, out, err = run(atf, "demo", "--events", "20", "--", dash)
    ck.ok(rc == 0 and os.path.isdir(dash), "demo -- -dash", err)
    for cmd in (["info"], ["dump"], ["merge"], ["validate"], ["validate", "--strict"], ["dump", "--json"]):
        rc, out, err = run(atf, *cmd, "--", dash)
        ck.ok(rc == 0 and out, "%s -- PATH" % " ".join(cmd), "exit %s: %s" % (rc, err))
        rc, out, err = run(atf, *cmd, "--", dash, dash)
        ck.ok(rc == 2, "%s -- PATH PATH: one PATH only" % " ".join(cmd), "exit %s" % rc)

    # An empty directory is no ATF input: every command exits 2 and says why.
    empty = os.path.join(wd, "empty-input")
    os.makedirs(empty)
    for cmd in ("info", "dump", "merge", "validate"):
        rc, out, err = run(atf, cmd, empty)
        ck.ok(rc == 2 and "no index.atf, manifest.json" in err, "%s on an empty directory: exit 2" % cmd,
              "exit %s: %s" % (rc, err))

    # Paths with a newline or a terminal escape are escaped in messages.
    odd = os.path.join(wd, "odd\nname\x1b[31m")
    os.makedirs(odd)
    for cmd in ("info", "dump", "validate"):
        rc, out, err = run(atf, cmd, odd)
        ck.ok(rc == 2 and "odd\\nname\\x1b[31m" in err and "\x1b" not in err and err.count("\n") == 1,
              "%s: a path with a newline is escaped in the message" % cmd, repr(err))
    lone = os.path.join(odd, "lane\n.atf")
    shutil.copy(os.path.join(d1, "thread_0", "index.atf"), lone)
    rc, out, err = run(atf, "validate", lone)
    ck.ok(rc == 0 and "lane\\n.atf: conformant" in out and "\x1b" not in out, "validate text escapes the path",
          repr(out))

    # A thread listed as id 1 beside a thread_01/ directory: the messages say
    # which directory is misnamed and how to name it.
    mis = os.path.join(wd, "misnamed")
    os.makedirs(mis)
    shutil.copytree(os.path.join(d1, "thread_1"), os.path.join(mis, "thread_01"))
    with open(os.path.join(mis, "manifest.json"), "w") as f:
        json.dump({"threads": [{"id": 1, "has_detail": True}]}, f)
    rc, out, err = run(atf, "validate", mis)
    ck.ok(rc == 1 and "SES-MAN-003" in out and "thread_01/ is there: rename it thread_1/" in out,
          "validate: misnamed thread directory hint", out[-400:])
    for cmd in ("info", "dump"):
        rc, out, err = run(atf, cmd, mis)
        ck.ok(rc == 1 and "thread_01/ is there: rename it thread_1/" in err, "%s: misnamed thread directory hint"
              % cmd, err)
    # Without such a directory: no hint, and nothing else in its place.
    shutil.rmtree(os.path.join(mis, "thread_01"))
    shutil.copytree(os.path.join(d1, "thread_2"), os.path.join(mis, "thread_2"))
    with open(os.path.join(mis, "manifest.json"), "w") as f:
        json.dump({"threads": [{"id": 1, "has_detail": True}, {"id": 2, "has_detail": True}]}, f)
    rc, out, err = run(atf, "info", mis)
    ck.ok(rc == 1 and "thread 1 has no index.atf (thread 1:" in err and "rename" not in err,
          "info: a missing thread directory without a hint", err)

    # Corrupt one event kind in layout 2: an error, with the offset of the byte.
    idx = os.path.join(d2, "thread_0", "index.atf")
    with open(idx, "r+b") as f:
        f.seek(64 + 32 * 3 + 24)
        f.write(b"\x09")
    rep = validate_all_formats(ck, atf, d2, 1, "corrupt")
    if rep:
        hits = [f for f in rep["findings"] if f["clause"] == "IDX-EVT-001"]
        ck.ok(len(hits) == 1 and hits[0]["file"] == "thread_0/index.atf" and hits[0]["offset"] == 184 and
              hits[0]["field"] == "event_kind" and hits[0]["severity"] == "error", "corrupt: IDX-EVT-001 finding",
              json.dumps(hits))
        ck.ok(any(f["clause"] == "CRC-001" for f in rep["findings"]), "corrupt: CRC-001 finding")
    rc, out, err = run(atf, "validate", "--no-verify", "--format", "json", d2)
    rep = json.loads(out) if out else {}
    ck.ok(rc == 1 and "CRC-001" not in rep.get("clauses_checked", ["CRC-001"]), "corrupt: --no-verify skips CRC-001")

    # Crash-truncate thread_1 of the layout-1 session: placeholder header, no footer.
    idx = os.path.join(d1, "thread_1", "index.atf")
    with open(idx, "rb") as f:
        data = bytearray(f.read())
    n = (len(data) - 64 - 64) // 32
    data[8:12] = b"\0" * 4
    data[28:32] = b"\0" * 4
    data[40:64] = b"\0" * 24
    del data[-64:]
    data += b"\x01\x02\x03"
    with open(idx, "wb") as f:
        f.write(data)
    rep = validate_all_formats(ck, atf, d1, 0, "crash")
    if rep:
        ck.ok(rep["recovered"] == [{"file": "thread_1/index.atf", "events": n}], "crash: recovered count",
              json.dumps(rep["recovered"]))
        rec = [f for f in rep["findings"] if f["clause"] == "REC-001"]
        ck.ok(len(rec) == 1 and ("%d complete events recovered" % n) in rec[0]["message"] and
              rec[0]["severity"] == "warning" and rec[0]["offset"] == 64 + 32 * n, "crash: REC-001 warning",
              json.dumps(rec))
    validate_all_formats(ck, atf, d1, 1, "crash strict", strict=True)
    rc, out, err = run(atf, "validate", os.path.join(d1, "thread_1"))
    ck.ok(rc == 0 and "REC-001 index.atf:" in out, "crash: thread directory", out[-500:])

    # The clause table: ID <TAB> severity <TAB> rule <TAB> hint, one clause a line.
    rc, out, err = run(atf, "validate", "--list-clauses")
    rows = [ln.split("\t") for ln in out.splitlines()]
    ck.ok(rc == 0 and len(rows) >= 70 and all(len(r) == 4 and r[1] in ("error", "warning") for r in rows) and
          len({r[0] for r in rows}) == len(rows), "--list-clauses", out[:300])
    hints = {r[0]: r[3] for r in rows if len(r) == 4}
    ck.ok(all(len(h) > 20 and h != r for r, h in ((r[2], r[3]) for r in rows if len(r) == 4)),
          "--list-clauses: every clause has a hint", out[:300])
    # Text output says how to fix each clause found, once; JSON gives the hint per finding.
    rc, out, err = run(atf, "validate", d1)
    ck.ok(out.count("hint REC-001: %s\n" % hints.get("REC-001")) == 1, "text: hint line", out[-500:])
    rc, out, err = run(atf, "validate", "--format", "json", d1)
    rep = json.loads(out) if out.startswith("{") else {"findings": []}
    ck.ok(rep["findings"] and all(f.get("hint") == hints.get(f["clause"]) for f in rep["findings"]),
          "json: hint per finding", out[:300])

    # Usage and I/O errors: exit 2, nothing on stdout.
    for args, what in ((["validate"], "no PATH"), (["validate", "--format", "yaml", d1], "bad format"),
                       (["validate", "--bogus", d1], "unknown option"),
                       (["validate", d1, d2], "two paths"),
                       (["validate", os.path.join(wd, "missing")], "missing path"),
                       (["validate", wd], "not an ATF directory")):
        rc, out, err = run(atf, *args)
        ck.ok(rc == 2 and out == "" and err, "usage: %s -> exit 2" % what, "got %s, stdout %r" % (rc, out[:200]))

    print("%d passed, %d failed" % (ck.passed, ck.failed))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
