"""Validation of a one-file format whose reader finds every clause
as it reads: the reader's notes become the report's findings, a clause found
at several places one finding (the first place, with the count in its
message), as atfpy reports per-event clauses."""

import os

from .report import Aggregator, Report, UsageError, clause_lines, severities


def report_notes(data, name, strict, path, severity, read):
    """(report, what ``read(data, name)`` returned): every note that names a
    clause, aggregated per clause. The caller adds the clauses it checked and
    what was recovered."""
    rep = Report(path if path is not None else name, strict, severity)
    t = read(data, name)
    agg = Aggregator(rep, name)
    for n in t.notes:
        if n.clause is not None:
            agg.hit(n.clause, n.offset, n.field, n.message)
    agg.flush()
    return rep, t


def read_path(path, read):
    """``read(data, basename)`` of the file ``path`` (OSError as open's)."""
    with open(path, "rb") as f:
        return read(f.read(), os.path.basename(path))


class OneFileValidator:
    """The validator of a one-file format: ``read(data, name)`` returns what
    the reader found (its ``notes``); ``checked(t)`` the clauses that were
    checked; ``recovered(t)`` the number of records read from a cut file, or
    None when it was not cut; ``what`` how a file of the format is called in
    a message (e.g. "a trace file"). Its methods are the format's entry points:

        validate(path, strict=False) -> Report      (UsageError: exit 2)
        validate_bytes(data, name, strict=False, path=None) -> Report
        list_clauses() -> the clause table lines (ID, severity, summary)
    """

    def __init__(self, clauses, read, checked, recovered, what):
        self.clauses, self.severity = clauses, severities(clauses)
        self.read, self.checked, self.recovered, self.what = read, checked, recovered, what

    def validate_bytes(self, data, name, strict=False, path=None):
        rep, t = report_notes(data, name, strict, path, self.severity, self.read)
        rep.check(*self.checked(t))
        n = self.recovered(t)
        if n is not None:
            rep.recovered.append((name, n))
        return rep

    def validate(self, path, strict=False):
        """Report of validating the file ``path``."""
        return validate_file(path, strict, self.what, self.validate_bytes)

    def list_clauses(self):
        return clause_lines(self.clauses)


def validate_file(path, strict, what, validate_bytes):
    """``validate_bytes(data, basename, strict, path)`` of the file ``path``;
    UsageError (exit 2) for a directory (``what``: e.g. "a trace file") or a file
    that cannot be read."""
    if os.path.isdir(path):
        raise UsageError("%s: is a directory, not %s" % (path, what))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError("%s: %s" % (path, e.strerror or e))
    return validate_bytes(data, os.path.basename(path), strict, path)
