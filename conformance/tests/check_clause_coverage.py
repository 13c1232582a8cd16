#!/usr/bin/python3
"""Checks that the spec, the validator and the corpus agree on clause IDs, both ways.

    check_clause_coverage.py --atf PATH [--spec SPEC.md --corpus DIR]

Every format of the registry (conformance/gen/tracepy/registry.py), one after
the other, each with its spec (conformance/<spec>) and its golden corpus
(corpus/<name>); or, with --spec and --corpus, the format that owns all the
clause IDs of that spec (by its clause prefix; the native format's have none).
The validator lists every format's clauses; only the checked format's are
compared.

* The spec: every clause table row `| \\`ID\\` | error|warning ... |` defines a clause.
* The validator: `atf validate --list-clauses` prints its clause table, one clause
  a line: ID, tab, severity (error or warning), tab, one-line summary. Every
  clause of the spec must be there with the same severity, and every ID there
  of the format must be a clause of the spec (no duplicates).
* The corpus: every error clause of the spec must be among the error_clauses of at
  least one case, every warning clause among the warning_clauses of at least
  one, and every clause a case names must be a clause of the spec.

PATH is the `atf` executable or a format's Python tool (conformance/gen/*_tool.py).
Prints each problem, then `N clauses, M problem(s)` per format; exit 1 on any
problem, 2 on a usage error.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ROW = re.compile(r"^\|\s*`([A-Z]+(?:-[A-Z]+)*-\d{3})`\s*\|\s*(error|warning)\b")
ID = re.compile(r"^[A-Z]+(?:-[A-Z]+)*-\d{3}$")

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(REPO, "conformance", "gen"))
from tracepy import registry  # noqa: E402


def spec_clauses(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = ROW.match(line)
            if m:
                if m.group(1) in out:
                    raise ValueError("%s:%d: clause %s defined twice" % (path, n, m.group(1)))
                out[m.group(1)] = m.group(2)
    return out


def validator_clauses(atf, problems, fmt):
    """{id: severity} of the validator's table for the format ``fmt`` (a
    tracepy.registry.Format): the lines whose ID it owns."""
    cmd = ([sys.executable, atf] if atf.endswith(".py") else [atf]) + \
        ["validate", "--list-clauses"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        problems.append("validator: cannot run %s: %s" % (" ".join(cmd), e))
        return None
    if p.returncode != 0:
        problems.append("validator: `%s` exited %d (%s): the validator must print its clause "
                        "table" % (" ".join(cmd[-3:]), p.returncode,
                                   p.stderr.decode("utf-8", "replace").strip()[:200]))
        return None
    out = {}
    for n, line in enumerate(p.stdout.decode("utf-8", "replace").splitlines(), 1):
        if not fmt.owns_clause(line.split("\t", 1)[0]):
            continue
        if not line.strip():
            continue
        parts = line.split("\t")
        # ID, severity, rule, and (the C validator) a hint.
        if len(parts) not in (3, 4) or not ID.match(parts[0]) or parts[1] not in ("error", "warning") \
                or not all(x.strip() for x in parts[2:]):
            problems.append("validator: --list-clauses line %d is not ID<TAB>severity<TAB>"
                            "summary[<TAB>hint]: %r" % (n, line[:120]))
            continue
        if parts[0] in out:
            problems.append("validator: clause %s listed twice" % parts[0])
        out[parts[0]] = parts[1]
    if not out:
        problems.append("validator: --list-clauses printed no clause")
    return out


def corpus_clauses(corpus):
    errors, warnings, named = {}, {}, {}
    files = sorted(glob.glob(os.path.join(corpus, "*.expect.json")))
    for path in files:
        with open(path, encoding="utf-8") as f:
            exp = json.load(f)
        case = exp["case"]
        for cid in exp.get("error_clauses", []):
            errors.setdefault(cid, []).append(case)
        for cid in exp.get("warning_clauses", []):
            warnings.setdefault(cid, []).append(case)
        for key in ("error_clauses", "warning_clauses", "allowed_extra"):
            for cid in exp.get(key, []):
                named.setdefault(cid, []).append(case)
    return len(files), errors, warnings, named


def check(atf, spec_path, corpus):
    """The problems of one format (its spec and corpus), printed; None on a
    usage error (printed on stderr)."""
    try:
        spec = spec_clauses(spec_path)
    except (OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return None
    if not spec:
        print("error: no clause table row found in %s" % spec_path, file=sys.stderr)
        return None
    problems = []
    fmt = registry.of_clauses(spec)
    if fmt is None:
        print("error: the clauses of %s are of no one format of the registry (%s)"
              % (spec_path, ", ".join(registry.names())), file=sys.stderr)
        return None
    name = os.path.basename(spec_path)
    val = validator_clauses(atf, problems, fmt)
    if val is not None:
        for cid in spec:
            if cid not in val:
                problems.append("validator: %s clause %s is not in the validator's table"
                                % (name, cid))
            elif val[cid] != spec[cid]:
                problems.append("validator: %s is %s in the validator, %s in %s"
                                % (cid, val[cid], spec[cid], name))
        for cid in sorted(set(val) - set(spec)):
            problems.append("validator: clause %s is not in %s" % (cid, name))
    ncases, errors, warnings, named = corpus_clauses(corpus)
    if not ncases:
        problems.append("corpus: no *.expect.json in %s" % corpus)
    for cid, sev in spec.items():
        if sev == "error" and cid not in errors:
            problems.append("corpus: no case reports error clause %s" % cid)
        if sev == "warning" and cid not in warnings:
            problems.append("corpus: no case reports warning clause %s" % cid)
    for cid in sorted(set(named) - set(spec)):
        problems.append("corpus: clause %s (in %s) is not in %s" % (cid, named[cid][0], name))
    for p in problems:
        print(p)
    print("%d clauses, %d cases, %d problem(s)" % (len(spec), ncases, len(problems)))
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--atf", required=True, help="the atf executable, or a format's *_tool.py")
    ap.add_argument("--spec", help="one spec (with --corpus); default: every format's")
    ap.add_argument("--corpus", help="that spec's golden corpus")
    a = ap.parse_args(argv)
    if (a.spec is None) != (a.corpus is None):
        ap.error("--spec and --corpus go together")
    if a.spec is not None:
        runs = [(a.spec, a.corpus)]
    else:
        runs = [(os.path.join(REPO, "conformance", f.spec), os.path.join(REPO, "corpus", f.corpus))
                for f in registry.formats()]
    failed = False
    for spec_path, corpus in runs:
        problems = check(os.path.abspath(a.atf), spec_path, corpus)
        if problems is None:
            return 2
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
