"""The validation report that the three implementations share, with the
C validator's JSON schema "atf-validate/1" (`atf validate --format json`) and
text lines, so that one runner (conformance/tests/run_corpus.py) checks every
corpus against both implementations.

Every finding has its clause, its severity (error / warning), the file
(relative to the validated path), a byte offset (or None), a field name (or
None) and a one-line message. Findings are sorted by the rank of their file
(Report.rank; unranked files after, by name), offset (None first), clause
and message.

A clause table is a tuple of (ID, severity, summary) in the spec's order;
severities() and clause_lines() give what the report and `validate
--list-clauses` need of it.
"""

SCHEMA = "atf-validate/1"


def severities(clauses):
    """{clause ID: "error"|"warning"} of a clause table."""
    return {cid: sev for cid, sev, _ in clauses}


def clause_lines(clauses):
    """The lines of `validate --list-clauses`: ID, tab, severity, tab, summary."""
    return ["%s\t%s\t%s" % c for c in clauses]


class Note:
    """What a reader found: the clause it breaks (None for a plain remark:
    what was not read), where (file offset, field), what; ``chunk``: the
    chunk it belongs to, when the format has chunks."""
    __slots__ = ("clause", "offset", "field", "message", "chunk")

    def __init__(self, clause, offset, field, message, chunk=None):
        self.clause, self.offset, self.field, self.message = clause, offset, field, message
        self.chunk = chunk

    def __repr__(self):
        return "Note(%s @%s %s: %s)" % (self.clause, self.offset, self.field, self.message)


class UsageError(Exception):
    """The path cannot be validated at all (exit 2)."""


class Finding:
    __slots__ = ("clause", "severity", "file", "offset", "field", "message")

    def __init__(self, clause, severity, file, offset, field, message):
        self.clause, self.severity, self.file = clause, severity, file
        self.offset, self.field, self.message = offset, field, message

    def to_json(self):
        return {"clause": self.clause, "severity": self.severity, "file": self.file,
                "offset": self.offset, "field": self.field, "message": self.message}


class Report:
    """Findings of one validation. ``severity``: {clause: "error"|"warning"},
    the clause table of the format (severities() of its CLAUSES): a finding
    must name one of its clauses."""

    def __init__(self, path, strict, severity):
        self.path, self.strict = path, strict
        self.severity = severity
        self.findings = []
        self.recovered = []            # [(file, events)]
        self.checked = set()
        self._rank = {}

    def rank(self, file, key):
        self._rank[file] = key

    def check(self, *clauses):
        self.checked.update(clauses)

    def add(self, clause, file, offset, field, message, severity=None):
        if clause not in self.severity:
            raise KeyError(clause)
        self.checked.add(clause)
        self.findings.append(Finding(clause, severity or self.severity[clause], file, offset,
                                     field, message))

    @property
    def errors(self):
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self):
        return sum(1 for f in self.findings if f.severity == "warning")

    @property
    def conformant(self):
        return self.errors == 0 and (not self.strict or self.warnings == 0)

    def sorted_findings(self):
        def key(f):
            return (self._rank.get(f.file, (9, f.file)), -1 if f.offset is None else f.offset,
                    f.clause, f.message)
        return sorted(self.findings, key=key)

    def to_json(self):
        return {"schema": SCHEMA, "path": self.path, "strict": self.strict,
                "verdict": "conformant" if self.conformant else "nonconformant",
                "counts": {"error": self.errors, "warning": self.warnings},
                "recovered": [{"file": f, "events": n} for f, n in self.recovered],
                "findings": [f.to_json() for f in self.sorted_findings()],
                "clauses_checked": sorted(self.checked)}

    def text_lines(self):
        out = []
        for f in self.sorted_findings():
            s = "%s %s %s" % (f.severity, f.clause, f.file)
            if f.offset is not None:
                s += ": offset %d" % f.offset
            if f.field:
                s += ": field %s" % f.field
            out.append("%s: %s" % (s, f.message))
        out.append("%s: %s (%d error(s), %d warning(s))" % (
            self.path, "conformant" if self.conformant else "NONCONFORMANT", self.errors,
            self.warnings))
        return out


class Aggregator:
    """Per-event findings of one file: the first occurrence of each clause with
    the number of events that break it."""

    def __init__(self, rep, file):
        self.rep, self.file, self.items = rep, file, {}

    def hit(self, clause, offset, field, message, severity=None):
        it = self.items.get((clause, severity))
        if it is None:
            self.items[(clause, severity)] = [offset, field, message, 1]
        else:
            it[3] += 1

    def flush(self):
        for (clause, severity), (off, field, msg, n) in self.items.items():
            if n > 1:
                msg += " (%d events in all)" % n
            self.rep.add(clause, self.file, off, field, msg, severity)
        self.items = {}
