"""Clause-ID validator: an independent implementation of
conformance/SPEC-RTC.md over the reader (reader.py), which finds every
clause as it reads. The report is tracepy's, as atfpy's (same findings,
same JSON schema "atf-validate/1" as `atf validate --format json`).

    validate(path, strict=False) -> Report      (UsageError: exit 2)
    validate_bytes(data, name, strict=False) -> Report
    list_clauses() -> the clause table lines (ID, severity, summary)

A clause found at several places is one finding: the first place, with the
count in its message. "recovered" lists the file with the number of records
read when it was cut at either end (RTC-REC-001, RTC-REC-002).
"""

from tracepy.onefile import OneFileValidator
from tracepy.report import UsageError  # noqa: F401  (what validate raises: exit 2)

from .clauses import CLAUSES
from .reader import read_rtc

_FILE_ONLY = ("RTC-MRK-001", "RTC-REC-001")
_ALL = tuple(cid for cid, _, _ in CLAUSES)


def _checked(t):
    """Every clause once a Unit was found, else those of the file as a whole."""
    return _ALL if t.units else _FILE_ONLY


def _recovered(t):
    """The records read from a file cut at either end (RTC-REC-001/002)."""
    return len(t.records) if any(n.clause in ("RTC-REC-001", "RTC-REC-002")
                                 for n in t.notes) else None


_V = OneFileValidator(CLAUSES, read_rtc, _checked, _recovered, "an RTC file")
validate, validate_bytes, list_clauses = _V.validate, _V.validate_bytes, _V.list_clauses
