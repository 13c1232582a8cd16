#!/usr/bin/env python3
"""`atf export` over every case of the golden corpus (corpus/atf/*/: valid,
invalid, recoverable and implementation-defined files, truncated, garbled):
bad input is the normal case. For each case and each export format (Perfetto,
Chrome JSON, and every export into a file of a format that the validator
knows, given by --validated FORMAT:FILE: the formats' tools parts register
theirs):

  - the export ends with exit 0 (read), 1 (the input is invalid) or 2 (cannot
    read it), never a signal, within the time limit;
  - exit 0 exactly when `atf dump --json` of the case exits 0 (the same
    reader decides), and then the counts line is on stderr and a Perfetto
    export decodes with protoc / a Chrome JSON export parses as JSON / every
    file a --validated export writes (FILE, and the part files it names on
    stderr, *.partN.EXT) is conformant (`atf validate`, no error, no warning);
  - a failure says why on stderr ("atf: error: ...").

Usage: check_export_corpus.py ATF CORPUS_DIR WORKDIR [--validated FORMAT:FILE ...]
"""
import argparse
import json
import os
import shutil
import sys

from checks import check, finish, run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("atf")
    ap.add_argument("corpus")
    ap.add_argument("work")
    ap.add_argument("--validated", action="append", default=[], metavar="FORMAT:FILE")
    args = ap.parse_args()
    atf, corpus, work = args.atf, args.corpus, args.work
    exports = [("perfetto", "t.pftrace"), ("chrome-json", "t.json")]
    validated = set()
    for v in args.validated:
        fmt, _, out = v.partition(":")
        if not fmt or not out:
            ap.error("--validated %r: FORMAT:FILE" % v)
        exports.append((fmt, out))
        validated.add(fmt)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = sorted(c for c in os.listdir(corpus)
                   if os.path.isdir(os.path.join(corpus, c)) and c[:2] in ("y_", "n_", "i_", "r_"))
    check(len(cases) > 100, "corpus cases found: %d" % len(cases))
    exported = 0
    for case in cases:
        path = os.path.join(corpus, case)
        dump = run([atf, "dump", "--json", path], timeout=60)
        for fmt, out in exports:
            o = os.path.join(work, out)
            if os.path.exists(o):
                os.remove(o)
            r = run([atf, "export", "--format", fmt, path, "-o", o], timeout=60)
            if not check(r.returncode in (0, 1, 2), "%s %s: exit %d (a signal?) %r" %
                         (case, fmt, r.returncode, r.stderr[-300:])):
                continue
            check((r.returncode == 0) == (dump.returncode == 0),
                  "%s %s: export exit %d but dump exit %d" % (case, fmt, r.returncode, dump.returncode))
            if r.returncode != 0:
                check("atf: error:" in r.stderr, "%s %s: the failure says why: %r" % (case, fmt, r.stderr))
                continue
            exported += 1
            check("events read" in r.stderr, "%s %s: counts on stderr" % (case, fmt))
            if fmt == "perfetto":
                with open(o, "rb") as f:
                    d = run(["protoc", "--decode_raw"], stdin=f, text=False, timeout=60)
                check(d.returncode == 0, "%s: protoc --decode_raw: %r" % (case, d.stderr[-300:]))
            elif fmt in validated:
                ext = os.path.splitext(out)[1]
                parts = [o] + [p for p in r.stderr.split() if p.endswith(ext + ",") or
                               (p.endswith(ext) and ".part" in p)]
                for p in parts:
                    v = run([atf, "validate", p.rstrip(",")], timeout=60)
                    check(v.returncode == 0 and "(0 error(s), 0 warning(s))" in v.stdout,
                          "%s: %s export %s not conformant: %s" % (case, fmt, p, v.stdout[-500:]))
            else:
                try:
                    with open(o) as f:
                        json.load(f)
                except ValueError as e:
                    check(False, "%s: Chrome JSON does not parse: %s" % (case, e))
    check(exported > 50, "exports that succeeded: %d" % exported)
    return finish("%d corpus cases exported (%d exports read), none crashed" % (len(cases), exported))


if __name__ == "__main__":
    sys.exit(main())
