#!/usr/bin/python3
"""The reader kit grades a reader only on what it declares (`CMD --capabilities`).

    check_reader_capabilities.py --atf ATF --corpus DIR

* index_only_reader.py (declares no detail lanes) passes, graded on index
  data: cases whose input is a detail file, and invalid/implementation-defined
  cases whose input holds detail files, are "not graded" (not run, never
  counted right); valid cases with detail lanes are compared with the
  "detail" members removed and are right.
* The same reader declaring nothing is graded on everything and fails.
* A reader declaring layout 1 only: no layout-2 case is graded.
* A malformed declaration is exit 2.
* The diff note shows the differing bytes of both lines (a window around the
  first difference on each side, with its column), also far into a long line.
Standard library only.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
    return cond


def reader(atf, caps=None):
    cmd = [sys.executable, os.path.join(HERE, "index_only_reader.py"), "--atf", atf]
    if caps is not None:
        cmd += ["--caps", caps]
    return " ".join(shlex.quote(x) for x in cmd)


def kit(atf, corpus, rd, *args):
    p = subprocess.run(shlex.split(atf) + ["conform", "--reader", rd, "--corpus", corpus, "--jobs", "4",
                                            "--format", "json"] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
    try:
        return p.returncode, json.loads(p.stdout.decode("utf-8"))
    except ValueError:
        check(False, "not JSON (exit %d): %r" % (p.returncode, p.stderr[-300:]))
        return p.returncode, None


def expect(corpus, name):
    return json.load(open(os.path.join(corpus, name + ".expect.json"), encoding="utf-8"))


def has_detail(corpus, case):
    root = os.path.join(corpus, case["case"], case["target"])
    if os.path.isfile(root):
        return os.path.basename(root) == "detail.atf"
    return any("detail.atf" in files for _, _, files in os.walk(root))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True)
    ap.add_argument("--corpus", required=True)
    a = ap.parse_args()

    rc, doc = kit(a.atf, a.corpus, reader(a.atf))
    if doc:
        r = doc["readers"][0]
        c = r["counts"]
        print("index-only reader: %s" % json.dumps(c))
        check(rc == 0 and r["verdict"] == "pass", "index-only reader: exit %d %s" % (rc, r["verdict"]))
        check(r["capabilities"] == {"layouts": [1, 2], "detail": False, "manifest": True}, "capabilities %r"
              % r["capabilities"])
        check(c["not_graded"] > 0 and c["right"] > 0, "counts %r" % c)
        check(c["right"] + c["tolerated"] + c["wrong"] + c["not_graded"] == len(doc["cases"]), "counts add up")
        detail_right = 0
        for case in doc["cases"]:
            res = case["results"][0]
            det = has_detail(a.corpus, case)
            if case["target"].endswith("detail.atf"):
                check(res["result"] == "not-graded" and res["outcome"] == "not-graded",
                      "%s: a detail file graded (%s)" % (case["case"], res["result"]))
            if res["result"] == "not-graded":
                check(det and res["stdout_bytes"] == 0 and "not graded" in res["note"],
                      "%s: not graded without reason: %r" % (case["case"], res["note"]))
            if case["class"] == "valid" and det and not case["target"].endswith("detail.atf"):
                check(res["result"] == "right" and res["dump"] == "equal",
                      "%s: valid case with detail lanes: %s" % (case["case"], res["note"]))
                detail_right += 1
        check(detail_right >= 10, "only %d valid cases with detail lanes graded on index data" % detail_right)

    rc, doc = kit(a.atf, a.corpus, reader(a.atf, "none"), "--case", "y_session")
    check(rc == 1 and doc and doc["readers"][0]["counts"]["wrong"] > 0 and
          doc["readers"][0]["counts"]["not_graded"] == 0,
          "a reader that declares nothing is graded on detail data too: exit %d" % rc)

    rc, doc = kit(a.atf, a.corpus, reader(a.atf, "atf-reader-capabilities 1\\nlayouts 1\\n"), "--case", "y_")
    if doc:
        for case in doc["cases"]:
            lay = expect(a.corpus, case["case"]).get("layouts", [])
            res = case["results"][0]["result"]
            if 2 in lay:
                check(res == "not-graded", "layout 1 only: %s (layouts %r) %s" % (case["case"], lay, res))
        check(rc == 1, "layout 1 only, detail lanes read by default: still fails on detail (exit %d)" % rc)

    for bad in ("atf-reader-capabilities 1\\ndetail maybe\\n", "atf-reader-capabilities 1\\nlayouts 3\\n",
                "atf-reader-capabilities 1\\ncolour blue\\n"):
        rc, doc = kit(a.atf, a.corpus, reader(a.atf, bad), "--case", "y_idx")
        check(rc == 2 and doc and doc["verdict"] == "error" and "capability" in doc["error"],
              "malformed declaration %r: exit %d" % (bad, rc))

    # The diff note: a reader whose output differs in one byte far into a line.
    tmp = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    tmp.write("import subprocess, sys\n"
              "o = subprocess.run(%r + [sys.argv[1]], stdout=subprocess.PIPE).stdout\n"
              "i = o.index(b'\"function_id\":') + 14\n"
              "sys.stdout.buffer.write(o[:i] + b'9' + o[i + 1:])\n" % (shlex.split(a.atf) + ["dump", "--json"]))
    tmp.close()
    flip = "%s %s" % (shlex.quote(sys.executable), shlex.quote(tmp.name))
    p = subprocess.run(shlex.split(a.atf) + ["conform", "--reader", flip, "--corpus", a.corpus,
                                             "--case", "y_session_big_thread_ids_l2", "--format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    try:
        note = json.loads(p.stdout)["cases"][0]["results"][0]["note"]
    except (ValueError, IndexError, KeyError):
        note = ""
    os.unlink(tmp.name)
    print("diff note: %s" % note)
    exp_part, _, got_part = note.partition(" | got ")
    check("column " in note and "\"function_id\":" in exp_part and "\"function_id\":9" in got_part,
          "diff note does not show both sides around the difference: %r" % note)
    check(len(got_part) > 20 and not got_part.endswith("\"function_id\":9"),
          "diff note: the got side stops at the difference: %r" % note)

    # A line cut short: the got side ends in <end of line>, the expected side goes on.
    tmp = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    tmp.write("import subprocess, sys\n"
              "o = subprocess.run(%r + [sys.argv[1]], stdout=subprocess.PIPE).stdout\n"
              "i = o.index(b'\"event_kind\":')\n"
              "sys.stdout.buffer.write(o[:i] + b'\\n')\n" % (shlex.split(a.atf) + ["dump", "--json"]))
    tmp.close()
    cut = "%s %s" % (shlex.quote(sys.executable), shlex.quote(tmp.name))
    p = subprocess.run(shlex.split(a.atf) + ["conform", "--reader", cut, "--corpus", a.corpus,
                                             "--case", "y_session_big_thread_ids_l2", "--format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    os.unlink(tmp.name)
    try:
        note = json.loads(p.stdout)["cases"][0]["results"][0]["note"]
    except (ValueError, IndexError, KeyError):
        note = ""
    print("diff note: %s" % note)
    exp_part, _, got_part = note.partition(" | got ")
    check("\"event_kind\":1" in exp_part and got_part.endswith(",<end of line>"),
          "diff note of a line cut short: %r" % note)

    for p_ in problems:
        print("FAIL " + p_)
    print("%d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
