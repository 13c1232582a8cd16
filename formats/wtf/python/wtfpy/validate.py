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

from tracepy.onefile import OneFileValidator
from tracepy.report import UsageError  # noqa: F401  (what validate raises: exit 2)

from .clauses import CLAUSES
from .reader import read_trace

_HEADER_ONLY = ("WTF-HDR-001", "WTF-HDR-002", "WTF-REC-001")
_ALL = tuple(cid for cid, _, _ in CLAUSES)


def _checked(t):
    """Every clause once the header was read, else the header's."""
    return _ALL if t.format_version == 10 and t.magic is not None else _HEADER_ONLY


def _recovered(t):
    """The events read from a crash-truncated file (WTF-REC-001)."""
    return len(t.events) if any(n.clause == "WTF-REC-001" for n in t.notes) else None


_V = OneFileValidator(CLAUSES, read_trace, _checked, _recovered, "a WTF file")
validate, validate_bytes, list_clauses = _V.validate, _V.validate_bytes, _V.list_clauses
