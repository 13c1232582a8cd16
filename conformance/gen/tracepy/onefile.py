"""Validation of a one-file format (WTF, RTC) whose reader finds every clause
as it reads: the reader's notes become the report's findings, a clause found
at several places one finding (the first place, with the count in its
message), as atfpy reports per-event clauses."""

import os

from .report import Aggregator, Report, UsageError


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


def validate_file(path, strict, what, validate_bytes):
    """``validate_bytes(data, basename, strict, path)`` of the file ``path``;
    UsageError (exit 2) for a directory (``what``: "a WTF file") or a file
    that cannot be read."""
    if os.path.isdir(path):
        raise UsageError("%s: is a directory, not %s" % (path, what))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError("%s: %s" % (path, e.strerror or e))
    return validate_bytes(data, os.path.basename(path), strict, path)
