"""RTC's entry in the format registry (tracepy.registry): how a file is
recognised (bid), summarised (info), dumped (docs/rtc-dump-format.md) and
validated (conformance/SPEC-RTC.md)."""

from tracepy.onefile import read_path
from tracepy.registry import Format

from .clauses import CLAUSES
from .dump import dump_lines as _lines
from .reader import read_rtc
from .validate import validate, validate_bytes
from .wire import MARKER

SUFFIXES = (".rtc",)


def bid(path, head):
    """100 for a file starting with a Marker (or all of it that a short file
    holds), 60 for a Marker further in (a file cut at the start), 10 for
    another file named *.rtc; else 0."""
    if head is None:
        return 0
    if head and MARKER.startswith(head[:len(MARKER)]):
        return 100
    if MARKER in head:
        return 60
    return 10 if path.endswith(SUFFIXES) else 0


def info(path):
    t = read_path(path, read_rtc)
    return {"format": "rtc", "state": t.state, "unit_size": t.unit_size,
            "subunit_size": t.subunit_size, "byte_order": t.order, "units": len(t.units),
            "streams": len(t.streams), "records": len(t.records),
            "skipped_bytes": sum(n for _, n, _ in t.skipped)}


FORMAT = Format(
    name="rtc", title="RTC (Ruler Trace Container)", package="rtcpy", clause_prefix="RTC-",
    spec="SPEC-RTC.md", corpus="rtc", tool="rtcpy_tool.py", suffixes=SUFFIXES,
    bid=bid, info=info, dump_lines=lambda path: _lines(read_path(path, read_rtc)),
    validate=validate, validate_bytes=validate_bytes, clauses=CLAUSES)
