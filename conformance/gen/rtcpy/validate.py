"""Clause-ID validator: an independent implementation of
conformance/SPEC-RTC.md over the reader (reader.py), which finds every
clause as it reads. The report is atfpy's (same findings, same JSON schema
"atf-validate/1" as `atf validate --format json`).

    validate(path, strict=False) -> Report      (UsageError: exit 2)
    validate_bytes(data, name, strict=False) -> Report
    list_clauses() -> the clause table lines (ID, severity, summary)

A clause found at several places is one finding: the first place, with the
count in its message. "recovered" lists the file with the number of records
read when it was cut at either end (RTC-REC-001, RTC-REC-002).
"""

import os

from atfpy.validate import Report, UsageError, _Agg

from .clauses import CLAUSES, SEVERITY
from .reader import read_rtc

_FILE_ONLY = ("RTC-MRK-001", "RTC-REC-001")


def validate_bytes(data, name, strict=False, path=None):
    rep = Report(path if path is not None else name, strict, SEVERITY)
    t = read_rtc(data, name)
    agg = _Agg(rep, name)
    for n in t.notes:
        if n.clause is not None:
            agg.hit(n.clause, n.offset, n.field, n.message)
    agg.flush()
    rep.check(*([cid for cid, _, _ in CLAUSES] if t.units else _FILE_ONLY))
    if any(n.clause in ("RTC-REC-001", "RTC-REC-002") for n in t.notes):
        rep.recovered.append((name, len(t.records)))
    return rep


def validate(path, strict=False):
    if os.path.isdir(path):
        raise UsageError("%s: is a directory, not an RTC file" % path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError("%s: %s" % (path, e.strerror or e))
    return validate_bytes(data, os.path.basename(path), strict, path)


def list_clauses():
    return ["%s\t%s\t%s" % c for c in CLAUSES]
