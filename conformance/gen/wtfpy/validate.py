"""Clause-ID validator: an independent implementation of
conformance/SPEC-WTF.md over the reader (reader.py), which finds every
clause as it reads. The report is atfpy's (same findings, same JSON schema
"atf-validate/1" as `atf validate --format json`), so that one runner checks
the corpus against both implementations.

Entry points
  validate(path, strict=False) -> Report      (UsageError: exit 2)
  validate_bytes(data, name, strict=False) -> Report
  list_clauses() -> the clause table lines (ID, severity, summary)

A clause found at several places is one finding: the first place, with the
count in its message (as atfpy reports per-event clauses). "recovered" lists
the file with the number of events read when the file is crash-truncated
(WTF-REC-001).

Readings of SPEC-WTF.md where its text leaves room are listed in
corpus/wtf/README.md (make_wtf_corpus.py READINGS).
"""

import os

from atfpy.validate import Report, UsageError, _Agg

from .clauses import CLAUSES, SEVERITY
from .reader import read_trace

_HEADER_ONLY = ("WTF-HDR-001", "WTF-HDR-002", "WTF-REC-001")


def validate_bytes(data, name, strict=False, path=None):
    rep = Report(path if path is not None else name, strict, SEVERITY)
    t = read_trace(data, name)
    agg = _Agg(rep, name)
    for n in t.notes:
        if n.clause is not None:
            agg.hit(n.clause, n.offset, n.field, n.message)
    agg.flush()
    header_read = t.format_version == 10 and t.magic is not None
    rep.check(*([cid for cid, _, _ in CLAUSES] if header_read else _HEADER_ONLY))
    if any(n.clause == "WTF-REC-001" for n in t.notes):
        rep.recovered.append((name, len(t.events)))
    return rep


def validate(path, strict=False):
    """Report of validating the WTF file ``path``."""
    if os.path.isdir(path):
        raise UsageError("%s: is a directory, not a WTF file" % path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError("%s: %s" % (path, e.strerror or e))
    return validate_bytes(data, os.path.basename(path), strict, path)


def list_clauses():
    return ["%s\t%s\t%s" % c for c in CLAUSES]
