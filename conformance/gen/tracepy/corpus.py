"""What the corpus generators of the formats share (formats/<name>/python/
make_*corpus.py): the expectation of a case (schema atf-corpus-expect/1)
and its class rules, the clause coverage of a spec, the writing of a
one-file format's corpus and of its README's tables, the regeneration check
(--check: byte for byte, only the entries a generator owns) and the command
line (--out, --check, --list). See corpus/README.md.
"""

import argparse
import filecmp
import json
import os
import re
import shutil
import tempfile

EXPECT_SCHEMA = "atf-corpus-expect/1"
CLASSES = {"y": "valid", "n": "invalid", "r": "recoverable", "i": "implementation-defined"}
NAME_RE = re.compile(r"^[ynri]_[a-z0-9_]+$")


class Expectation:
    """The name, class and expected clauses of a corpus case, checked against
    its class (of any format: ``REC`` is the format's crash clause)."""
    REC = "REC-001"

    def expectation(self, name, description, errors, warnings, why, allowed_extra):
        if not NAME_RE.match(name):
            raise ValueError("bad case name %r" % name)
        self.name, self.description = name, description
        self.cls = CLASSES[name[0]]
        self.errors, self.warnings = sorted(set(errors)), sorted(set(warnings))
        self.allowed_extra = sorted(set(allowed_extra))
        self.why = why
        if self.cls == "implementation-defined" and not why:
            raise ValueError("%s: an i_ case says why" % name)
        if self.cls == "valid" and (self.errors or self.warnings):
            raise ValueError("%s: a y_ case has no findings" % name)
        if self.cls == "invalid" and not self.errors:
            raise ValueError("%s: an n_ case has errors" % name)
        if self.cls == "recoverable" and (self.errors or self.REC not in self.warnings):
            raise ValueError("%s: an r_ case is accepted with %s" % (name, self.REC))

    @property
    def verdict(self):
        return "nonconformant" if self.errors else "conformant"

    @property
    def strict_verdict(self):
        return "nonconformant" if self.errors or self.warnings else "conformant"

    def expect_object(self, target, recovered, extra=()):
        """The NAME.expect.json object (schema atf-corpus-expect/1); ``extra``
        [(key, value)] come after "target"."""
        o = {"schema": EXPECT_SCHEMA, "case": self.name, "class": self.cls,
             "description": self.description}
        if self.why:
            o["why"] = self.why
        o["target"] = target
        o.update(extra)
        o.update({"verdict": self.verdict, "strict_verdict": self.strict_verdict,
                  "error_clauses": self.errors, "warning_clauses": self.warnings,
                  "allowed_extra": self.allowed_extra, "recovered": recovered,
                  "dump": self.name + ".dump.jsonl" if not self.errors else None})
        return o


def collect_cases(cases, *builders):
    """``cases`` (a list the builders add to), built once, sorted by name."""
    if not cases:
        for build in builders:
            build()
        cases.sort(key=lambda c: c.name)
    return cases


def spec_clauses(path):
    """[(id, severity)] of the clause tables of the spec at ``path``, in order."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\|\s*`([A-Z]+(?:-[A-Z]+)*-\d{3})`\s*\|\s*(error|warning)\b", line)
            if m:
                out.append((m.group(1), m.group(2)))
    return out


def coverage(cases):
    """clause -> {class -> [case names]} over error and warning expectations."""
    cov = {}
    for c in cases:
        for cl in c.errors + c.warnings:
            cov.setdefault(cl, {}).setdefault(c.cls, []).append(c.name)
    return cov


def write_bytes(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def owned(name):
    base = name
    for suffix in (".expect.json", ".dump.jsonl"):
        if base.endswith(suffix):
            base = base[:-len(suffix)]
    return name == "README.md" or bool(NAME_RE.match(base))


def require_coverage(clauses, cov, prog, spec_name):
    """Exits unless the expectations name only clauses of the spec and every
    clause of the spec has a case."""
    known = {cid for cid, _ in clauses}
    unknown = sorted(set(cov) - known)
    if unknown:
        raise SystemExit("%s: expectations name clauses not in %s: %s"
                         % (prog, spec_name, ", ".join(unknown)))
    missing = sorted(known - set(cov))
    if missing:
        raise SystemExit("%s: %s clauses without a case: %s" % (prog, spec_name,
                                                              ", ".join(missing)))


def clear_owned(out):
    """Removes from ``out`` the entries a generator writes (cases, expect and
    dump files, README.md); the directory may hold others, which stay."""
    if os.path.isdir(out):
        for e in sorted(os.listdir(out)):
            if not owned(e):
                continue
            p = os.path.join(out, e)
            if os.path.isdir(p):
                shutil.rmtree(p)
            else:
                os.remove(p)
    os.makedirs(out, exist_ok=True)


def readme_classes(cases, rec):
    """README lines: the table of case classes and their counts (``rec``: the
    format's crash clause)."""
    counts = {}
    for c in cases:
        counts[c.cls] = counts.get(c.cls, 0) + 1
    return ["## Classes", "",
            "| prefix | class | cases | a conforming validator | `--strict` | dump |",
            "| --- | --- | --- | --- | --- | --- |",
            "| `y_` | valid | %d | accepts, no finding | accepts | expected |"
            % counts.get("valid", 0),
            "| `n_` | invalid | %d | rejects (exit 1) with exactly `error_clauses` | rejects | "
            "- |" % counts.get("invalid", 0),
            "| `r_` | recoverable | %d | accepts with %s and the exact `recovered` counts "
            "| rejects | expected (the recovered events) |" % (counts.get("recoverable", 0), rec),
            "| `i_` | implementation-defined | %d | as `verdict` says; `why` explains the choice "
            "| as `strict_verdict` | when accepted |" % counts.get("implementation-defined", 0)]


def write_file_corpus(out, cases, spec, prog, target, readme, check, lines, log=None):
    """Writes the corpus of a one-file format into ``out``: every
    case's file (NAME/``target``), its expectation and, for an accepted case,
    its dump; then README.md (``readme(cases, clauses, coverage)``). Each
    clause of ``spec`` must be reported by a case. ``check(c)`` checks a
    case against the format's independent reader (SystemExit when it does
    not hold) and returns what ``lines(c, checked)`` turns into the case's
    dump lines."""
    clauses = spec_clauses(spec)
    cov = coverage(cases)
    require_coverage(clauses, cov, prog, os.path.basename(spec))
    clear_owned(out)
    for c in cases:
        checked = check(c)
        write_bytes(os.path.join(out, c.name, target), c.data)
        exp = c.expect()
        write_bytes(os.path.join(out, c.name + ".expect.json"),
               (json.dumps(exp, indent=2, ensure_ascii=True) + "\n").encode())
        if exp["dump"]:
            write_bytes(os.path.join(out, exp["dump"]), "".join(lines(c, checked)).encode("utf-8"))
        if log:
            log("%-50s %-22s %s" % (c.name, c.cls, " ".join(c.errors + c.warnings) or "-"))
    write_bytes(os.path.join(out, "README.md"), readme(cases, clauses, cov).encode("utf-8"))
    return cases


def readme_file_end(readings, clauses, cov, spec_name, cases):
    """The last README lines of a one-file format's corpus: its readings, the
    clause coverage of ``spec_name`` and the table of its cases (name, the
    clauses its expectation reports, what it is)."""
    out = readme_tail(readings, clauses, cov, "Cases whose expectations report each clause "
                      "of %s." % spec_name)
    out += ["", "## Cases", "", "| case | clauses | what |", "| --- | --- | --- |"]
    for c in cases:
        out.append("| `%s` | %s | %s |" % (c.name, " ".join(c.errors + c.warnings) or "-",
                                          c.description.replace("|", "\\|")))
    return out


def readme_tail(readings, clauses, cov, intro):
    """README lines: the readings (title, text, example cases) and the clause
    coverage table, ``intro`` its first line."""
    out = []
    for title, text, example in readings:
        out.append("* **%s.** %s (e.g. %s)" % (
            title, text, ", ".join("`%s`" % e.strip() for e in example.split(","))))
    out += ["", "## Clause coverage", "", intro, "",
            "| clause | severity | n_ | r_ | i_ | example |",
            "| --- | --- | --- | --- | --- | --- |"]
    for cid, sev in clauses:
        d = cov.get(cid, {})
        ex = (d.get("invalid") or d.get("recoverable") or d.get("implementation-defined")
              or ["-"])[0]
        out.append("| `%s` | %s | %d | %d | %d | `%s` |" % (
            cid, sev, len(d.get("invalid", [])), len(d.get("recoverable", [])),
            len(d.get("implementation-defined", [])), ex))
    return out


def _tree(root):
    """{relative path: path} of the files of the entries of ``root`` this
    generator owns (other entries of a shared corpus/ are not its business)."""
    out = {}
    for top in sorted(os.listdir(root)):
        if not owned(top):
            continue
        p = os.path.join(root, top)
        if not os.path.isdir(p):
            out[top] = p
            continue
        for dp, dns, fns in os.walk(p):
            dns.sort()
            for fn in sorted(fns):
                f = os.path.join(dp, fn)
                out[os.path.relpath(f, root).replace(os.sep, "/")] = f
    return out


def check_corpus(directory, write):
    """Regenerates into a temporary directory with ``write(out)`` and
    compares with ``directory``."""
    tmp = tempfile.mkdtemp(prefix="atf-corpus-")
    try:
        write(os.path.join(tmp, "corpus"))
        want, have = _tree(os.path.join(tmp, "corpus")), _tree(directory)
        problems = []
        for rel in sorted(set(want) - set(have)):
            problems.append("missing: %s" % rel)
        for rel in sorted(set(have) - set(want)):
            problems.append("not generated (stale or foreign): %s" % rel)
        for rel in sorted(set(want) & set(have)):
            if not filecmp.cmp(want[rel], have[rel], shallow=False):
                problems.append("differs: %s" % rel)
        for p in problems[:200]:
            print(p)
        if len(problems) > 200:
            print("... %d more" % (len(problems) - 200))
        print("%d files compared, %d difference(s)" % (len(want), len(problems)))
        return 1 if problems else 0
    finally:
        shutil.rmtree(tmp)


def generator_main(argv, doc, default_out, cases, write):
    """The command line of a corpus generator: --out DIR, --check DIR (as
    check_corpus(DIR, write)), --list."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", default=default_out, help="corpus directory to write "
                    "(default: %(default)s)")
    ap.add_argument("--check", metavar="DIR", help="compare DIR with a fresh generation")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    if a.list:
        for c in cases():
            print("%s\t%s" % (c.name, c.cls))
        return 0
    if a.check:
        return check_corpus(a.check, write)
    done = write(a.out, (lambda s: print(s)) if a.verbose else None)
    print("wrote %d cases to %s" % (len(done), a.out))
    return 0
