#!/usr/bin/python3
"""Runs a validator and dumper over the golden corpus (corpus/) and checks every
expectation.

    run_corpus.py --atf PATH [--corpus DIR] [--only NAME ...] [--exact-warnings]
                  [--timeout S] [-j N] [-v]

PATH is the `atf` executable, or formats/atf/python/atfpy_tool.py (the independent
Python implementation; a .py file is run with this interpreter). For every
case NAME (NAME.expect.json in DIR, default: the repository's corpus/) with
target T (NAME/T):

  * `atf validate --format json T` must exit 0 (verdict conformant) or 1
    (nonconformant) as the case says, print one JSON object of schema
    "atf-validate/1" with that verdict, error findings whose set of clause IDs
    is exactly error_clauses (plus any of allowed_extra), warning findings that
    include every clause of warning_clauses (exactly these with
    --exact-warnings), and a "recovered" array equal to the case's recovered
    {file: events};
  * `atf validate --strict --format json T` must give strict_verdict (exit and
    JSON);
  * for accepted cases, `atf dump --json T` must exit 0 and print NAME.dump.jsonl
    byte for byte.

Prints one line per failing case (FAIL NAME: what failed; ...), then
`N passed, M failed`. Exit status 1 if any case failed, 2 on a usage error.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_CORPUS = os.path.join(REPO, "corpus", "atf")
EXPECT_SCHEMA = "atf-corpus-expect/1"
VALIDATE_SCHEMA = "atf-validate/1"
EXIT = {"conformant": 0, "nonconformant": 1}


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout after %gs" % timeout, b"", b""
    except OSError as e:
        return "cannot run: %s" % e, b"", b""


def _short(b, n=160):
    s = b.decode("utf-8", "backslashreplace").strip().replace("\n", " | ")
    return s if len(s) <= n else s[:n] + "..."


def first_line_diff(expected, actual):
    el, al = expected.splitlines(keepends=True), actual.splitlines(keepends=True)
    for i in range(max(len(el), len(al))):
        e = el[i] if i < len(el) else None
        a = al[i] if i < len(al) else None
        if e != a:
            return "line %d: expected %s, got %s" % (
                i + 1, "<end>" if e is None else _short(e, 120),
                "<end>" if a is None else _short(a, 120))
    return "equal"


class Runner:
    def __init__(self, atf, timeout, exact_warnings):
        self.cmd = [sys.executable, atf] if atf.endswith(".py") else [atf]
        self.timeout, self.exact = timeout, exact_warnings

    def validate(self, target, strict):
        args = self.cmd + ["validate"] + (["--strict"] if strict else []) + \
            ["--format", "json", target]
        rc, out, err = run(args, self.timeout)
        problems = []
        doc = None
        if not isinstance(rc, int):
            return None, ["validate%s: %s" % (" --strict" if strict else "", rc)]
        try:
            doc = json.loads(out.decode("utf-8"))
            if not isinstance(doc, dict) or doc.get("schema") != VALIDATE_SCHEMA:
                problems.append("validate: output is not an %s object" % VALIDATE_SCHEMA)
                doc = None
        except (UnicodeDecodeError, ValueError):
            problems.append("validate%s: exit %s, output is not JSON: %s%s" % (
                " --strict" if strict else "", rc, _short(out) or "<empty>",
                " (stderr: %s)" % _short(err) if err else ""))
        return (rc, doc), problems

    def check_case(self, corpus, exp):
        name = exp["case"]
        target = os.path.normpath(os.path.join(corpus, name, exp["target"]))
        problems = []
        # Default mode.
        res, p = self.validate(target, False)
        problems += p
        if res is not None:
            rc, doc = res
            want = EXIT[exp["verdict"]]
            if rc != want:
                problems.append("validate exit %s, expected %d (%s)" % (rc, want, exp["verdict"]))
            if doc is not None:
                problems += self.check_doc(doc, exp)
        # Strict mode.
        res, p = self.validate(target, True)
        problems += p
        if res is not None:
            rc, doc = res
            want = EXIT[exp["strict_verdict"]]
            if rc != want:
                problems.append("validate --strict exit %s, expected %d (%s)"
                                % (rc, want, exp["strict_verdict"]))
            if doc is not None and doc.get("verdict") != exp["strict_verdict"]:
                problems.append("validate --strict verdict %r, expected %r"
                                % (doc.get("verdict"), exp["strict_verdict"]))
        # Dump.
        if exp.get("dump"):
            with open(os.path.join(corpus, exp["dump"]), "rb") as f:
                want = f.read()
            rc, out, err = run(self.cmd + ["dump", "--json", target], self.timeout)
            if rc != 0:
                problems.append("dump exit %s%s" % (rc, ": " + _short(err) if err else ""))
            elif out != want:
                problems.append("dump differs: %s" % first_line_diff(want, out))
        return problems

    def check_doc(self, doc, exp):
        problems = []
        if doc.get("verdict") != exp["verdict"]:
            problems.append("verdict %r, expected %r" % (doc.get("verdict"), exp["verdict"]))
        findings = doc.get("findings")
        if not isinstance(findings, list):
            return problems + ["no findings array"]
        errors = {f.get("clause") for f in findings if f.get("severity") == "error"}
        warnings = {f.get("clause") for f in findings if f.get("severity") == "warning"}
        want_e = set(exp["error_clauses"])
        extra_ok = set(exp.get("allowed_extra", []))
        missing = sorted(want_e - errors)
        unexpected = sorted(errors - want_e - extra_ok)
        if missing:
            problems.append("error clauses missing: %s" % " ".join(missing))
        if unexpected:
            problems.append("unexpected error clauses: %s" % " ".join(map(str, unexpected)))
        want_w = set(exp["warning_clauses"])
        if want_w - warnings:
            problems.append("warning clauses missing: %s" % " ".join(sorted(want_w - warnings)))
        if self.exact and warnings - want_w:
            problems.append("unexpected warning clauses: %s"
                            % " ".join(sorted(map(str, warnings - want_w))))
        rec = doc.get("recovered")
        got = {}
        if isinstance(rec, list):
            for r in rec:
                if isinstance(r, dict):
                    got[r.get("file")] = r.get("events")
        if got != exp["recovered"]:
            problems.append("recovered %s, expected %s" % (
                json.dumps(got, sort_keys=True), json.dumps(exp["recovered"], sort_keys=True)))
        return problems


def load_cases(corpus, only):
    out = []
    for path in sorted(glob.glob(os.path.join(corpus, "*.expect.json"))):
        with open(path, encoding="utf-8") as f:
            exp = json.load(f)
        if exp.get("schema") != EXPECT_SCHEMA:
            raise ValueError("%s: schema is not %s" % (path, EXPECT_SCHEMA))
        if only and exp["case"] not in only:
            continue
        out.append(exp)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--atf", required=True, help="the atf executable, or atfpy_tool.py")
    ap.add_argument("--corpus", default=DEFAULT_CORPUS, help="corpus directory "
                    "(default: %(default)s)")
    ap.add_argument("--only", action="append", metavar="NAME", help="run this case only "
                    "(repeatable)")
    ap.add_argument("--exact-warnings", action="store_true",
                    help="warning clauses must be exactly the expected ones")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per command")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="cases run in parallel (default: %(default)s)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print passing cases too")
    a = ap.parse_args(argv)
    atf = os.path.abspath(a.atf)
    if not os.path.isfile(atf) or not (atf.endswith(".py") or os.access(atf, os.X_OK)):
        print("error: %s is not an executable file" % a.atf, file=sys.stderr)
        return 2
    try:
        cases = load_cases(a.corpus, set(a.only or []))
    except (OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if not cases:
        print("error: no case found in %s" % a.corpus, file=sys.stderr)
        return 2
    runner = Runner(atf, a.timeout, a.exact_warnings)
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        results = list(pool.map(lambda exp: runner.check_case(a.corpus, exp), cases))
    for exp, problems in zip(cases, results):
        if problems:
            failed += 1
            print("FAIL %s: %s" % (exp["case"], "; ".join(problems)), flush=True)
        else:
            passed += 1
            if a.verbose:
                print("ok   %s" % exp["case"], flush=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
