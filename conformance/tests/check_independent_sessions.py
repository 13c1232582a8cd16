#!/usr/bin/python3
"""Compares the C tool with the independent Python implementation (atfpy).

    check_independent_sessions.py --atf PATH_TO_atf --workdir DIR [--seed N]

1. Runs formats/atf/python/independent_sessions.py DIR/sessions --seed N.
2. For every session S listed in DIR/sessions/index.json:
   * `atf dump --json S` must print S.expected.jsonl byte for byte (exit 0);
   * `atf dump --json S/thread_K` must print the lines of S.expected.jsonl
     whose thread is K, for every thread K;
   * `atf dump --json S/thread_K/detail.atf` must print
     S.expected/thread_K.detail.jsonl, for every thread with a detail file;
   * `atf validate S` must exit with the session's validate_exit: 0 for the
     finalized sessions and for the crash-truncated ones (recoverable), 1 for
     the edge-value sessions (deliberately inconsistent: unknown event kinds,
     backwards timestamps, links that do not resolve); a session with
     validate_exit null is not validated.
On a mismatch it prints the check, the first differing line pair and the
first differing key. The last line is `N passed, M failed`; the exit status is
1 if any check failed (2 on a usage or setup error).
"""

import argparse
import json
import os
import subprocess
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "formats", "atf", "python",
                         "independent_sessions.py")
MAX_SHOWN = 1200   # characters of a differing line shown


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout after %ss" % timeout, e.stdout or b"", e.stderr or b""
    except OSError as e:
        return "cannot run: %s" % e, b"", b""


def _short(b):
    s = b.decode("utf-8", "backslashreplace").rstrip("\n")
    return s if len(s) <= MAX_SHOWN else s[:MAX_SHOWN] + "... (%d chars)" % len(s)


def _first_key_diff(exp, got, path="$"):
    """A description of where two JSON values first differ, or None."""
    if isinstance(exp, dict) and isinstance(got, dict):
        ek, gk = list(exp), list(got)
        for i in range(max(len(ek), len(gk))):
            e = ek[i] if i < len(ek) else None
            g = gk[i] if i < len(gk) else None
            if e != g:
                if e is not None and e not in got:
                    return "%s: key %r missing (got key %r there)" % (path, e, g)
                if g is not None and g not in exp:
                    return "%s: unexpected key %r (expected key %r there)" % (path, g, e)
                return "%s: key order differs at position %d: expected %r, got %r" % (
                    path, i, e, g)
            d = _first_key_diff(exp[e], got[g], "%s.%s" % (path, e))
            if d:
                return d
        return None
    if isinstance(exp, list) and isinstance(got, list):
        if len(exp) != len(got):
            return "%s: %d items expected, got %d" % (path, len(exp), len(got))
        for i, (e, g) in enumerate(zip(exp, got)):
            d = _first_key_diff(e, g, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if type(exp) is not type(got) or exp != got:
        return "%s: expected %s, got %s" % (path, json.dumps(exp)[:200], json.dumps(got)[:200])
    return None


def describe_mismatch(expected, actual):
    """Human-readable first difference between two JSON Lines byte strings."""
    el = expected.splitlines(keepends=True)
    al = actual.splitlines(keepends=True)
    for i in range(max(len(el), len(al))):
        e = el[i] if i < len(el) else None
        a = al[i] if i < len(al) else None
        if e == a:
            continue
        out = ["  first difference at line %d (expected %d lines, got %d)" % (i + 1, len(el),
                                                                                len(al)),
               "  expected: %s" % ("<end of output>" if e is None else _short(e)),
               "  actual:   %s" % ("<end of output>" if a is None else _short(a))]
        if e is not None and a is not None:
            try:
                ej = json.loads(e, object_pairs_hook=OrderedDict)
                aj = json.loads(a, object_pairs_hook=OrderedDict)
                d = _first_key_diff(ej, aj)
                out.append("  where:    %s" % (d or "same JSON value, different bytes "
                                                      "(spacing, escapes or number format)"))
            except ValueError as ex:
                out.append("  where:    actual line is not JSON (%s)" % ex)
            if not e.endswith(b"\n") or not a.endswith(b"\n"):
                out.append("  note:     a line without its final newline")
        return "\n".join(out)
    return "  outputs are equal"


class Checker:
    def __init__(self, atf, timeout):
        self.atf, self.timeout = atf, timeout
        self.passed = self.failed = 0

    def _fail(self, name, msg):
        self.failed += 1
        print("FAIL %s\n%s" % (name, msg), flush=True)

    def _ok(self, name, verbose):
        self.passed += 1
        if verbose:
            print("ok   %s" % name, flush=True)

    def dump(self, name, path, expected, verbose=False):
        rc, out, err = run([self.atf, "dump", "--json", path], self.timeout)
        if rc == 0 and out == expected:
            return self._ok(name, verbose)
        msg = []
        if rc != 0:
            msg.append("  exit status: %s" % rc)
        if out != expected:
            msg.append(describe_mismatch(expected, out))
        if err:
            msg.append("  stderr: %s" % _short(err[:2000]))
        self._fail(name, "\n".join(msg))

    def validate(self, name, path, want, verbose=False):
        rc, out, err = run([self.atf, "validate", path], self.timeout)
        if rc == want:
            return self._ok(name, verbose)
        text = (out + err).decode("utf-8", "backslashreplace").strip().splitlines()
        self._fail(name, "  exit status %s, expected %s\n%s" % (
            rc, want, "\n".join("  | " + s for s in text[:20])))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--atf", required=True, help="path of the atf executable")
    ap.add_argument("--workdir", required=True, help="directory for the generated sessions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", action="append", metavar="SESSION")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per atf run")
    ap.add_argument("--no-generate", action="store_true",
                    help="reuse WORKDIR/sessions as already generated")
    ap.add_argument("-v", "--verbose", action="store_true", help="print passing checks too")
    a = ap.parse_args(argv)

    atf = os.path.abspath(a.atf)
    if not (os.path.isfile(atf) and os.access(atf, os.X_OK)):
        print("error: %s is not an executable file" % atf, file=sys.stderr)
        return 2
    outdir = os.path.join(os.path.abspath(a.workdir), "sessions")
    if not a.no_generate:
        cmd = [sys.executable, GENERATOR, outdir, "--seed", str(a.seed), "--scale", str(a.scale),
               "-q"]
        for n in a.only or []:
            cmd += ["--only", n]
        p = subprocess.run(cmd)
        if p.returncode != 0:
            print("error: the generator failed (exit %d): %s" % (p.returncode, " ".join(cmd)),
                  file=sys.stderr)
            return 2
    with open(os.path.join(outdir, "index.json"), encoding="utf-8") as f:
        index = json.load(f)

    ck = Checker(atf, a.timeout)
    for s in index["sessions"]:
        if a.only and s["name"] not in a.only:
            continue
        sdir = os.path.join(outdir, s["dir"])
        with open(os.path.join(outdir, s["expected"]), "rb") as f:
            expected = f.read()
        ck.dump("dump %s" % s["name"], sdir, expected, a.verbose)
        lines = expected.splitlines(keepends=True)
        for t in s["threads"]:
            prefix = b'{"thread":%d,' % t["id"]
            texp = b"".join(ln for ln in lines if ln.startswith(prefix))
            ck.dump("dump %s" % t["dir"], os.path.join(outdir, t["dir"]), texp, a.verbose)
            if t.get("expected_detail"):
                with open(os.path.join(outdir, t["expected_detail"]), "rb") as f:
                    dexp = f.read()
                ck.dump("dump %s/detail.atf" % t["dir"],
                        os.path.join(outdir, t["dir"], "detail.atf"), dexp, a.verbose)
        if s.get("validate_exit") is not None:
            ck.validate("validate %s" % s["name"], sdir, s["validate_exit"], a.verbose)

    print("%d passed, %d failed" % (ck.passed, ck.failed))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
