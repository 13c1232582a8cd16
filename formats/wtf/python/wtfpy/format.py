"""WTF's entry in the format registry (tracepy.registry): how a file is
recognised (bid), summarised (info), dumped (docs/wtf-dump-format.md) and
validated (conformance/SPEC-WTF.md)."""

from tracepy.onefile import read_path
from tracepy.registry import Format

from . import wire
from .clauses import CLAUSES
from .dump import dump_lines as _lines
from .reader import read_trace
from .validate import validate, validate_bytes

SUFFIXES = (".wtf-trace",)


def bid(path, head):
    """100 for a file starting with the magic 0xDEADBEEF, 10 for another
    file named *.wtf-trace (its header damaged or cut); else 0."""
    if head is None:
        return 0
    if len(head) >= 4 and head[:4] == wire.p32(wire.MAGIC):
        return 100
    return 10 if path.endswith(SUFFIXES) else 0


def info(path):
    t = read_path(path, read_trace)
    return {"format": "wtf", "state": t.state, "format_version": t.format_version,
            "chunks": len(t.chunks), "events": len(t.events)}


FORMAT = Format(
    name="wtf", title="WTF (Web Tracing Framework binary chunked file)", package="wtfpy",
    clause_prefix="WTF-", spec="SPEC-WTF.md", corpus="wtf", tool="wtfpy_tool.py",
    suffixes=SUFFIXES, bid=bid, info=info, dump_lines=lambda path: _lines(read_path(path, read_trace)),
    validate=validate, validate_bytes=validate_bytes, clauses=CLAUSES)
