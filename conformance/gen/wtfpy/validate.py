"""Clause-ID validator: an independent implementation of
conformance/SPEC-WTF.md over the reader (reader.py), which finds every
clause as it reads. The report is tracepy's, as atfpy's (same findings,
same JSON schema "atf-validate/1" as `atf validate --format json`), so that
one runner checks the corpus against both implementations.

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

from tracepy.onefile import report_notes, validate_file
from tracepy.report import UsageError, clause_lines  # noqa: F401  (UsageError: for callers)

from .clauses import CLAUSES, SEVERITY
from .reader import read_trace

_HEADER_ONLY = ("WTF-HDR-001", "WTF-HDR-002", "WTF-REC-001")


def validate_bytes(data, name, strict=False, path=None):
    rep, t = report_notes(data, name, strict, path, SEVERITY, read_trace)
    header_read = t.format_version == 10 and t.magic is not None
    rep.check(*([cid for cid, _, _ in CLAUSES] if header_read else _HEADER_ONLY))
    if any(n.clause == "WTF-REC-001" for n in t.notes):
        rep.recovered.append((name, len(t.events)))
    return rep


def validate(path, strict=False):
    """Report of validating the WTF file ``path``."""
    return validate_file(path, strict, "a WTF file", validate_bytes)


def list_clauses():
    return clause_lines(CLAUSES)
