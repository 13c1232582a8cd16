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

from tracepy.onefile import report_notes, validate_file
from tracepy.report import UsageError, clause_lines  # noqa: F401  (UsageError: for callers)

from .clauses import CLAUSES, SEVERITY
from .reader import read_rtc

_FILE_ONLY = ("RTC-MRK-001", "RTC-REC-001")


def validate_bytes(data, name, strict=False, path=None):
    rep, t = report_notes(data, name, strict, path, SEVERITY, read_rtc)
    rep.check(*([cid for cid, _, _ in CLAUSES] if t.units else _FILE_ONLY))
    if any(n.clause in ("RTC-REC-001", "RTC-REC-002") for n in t.notes):
        rep.recovered.append((name, len(t.records)))
    return rep


def validate(path, strict=False):
    return validate_file(path, strict, "an RTC file", validate_bytes)


def list_clauses():
    return clause_lines(CLAUSES)
