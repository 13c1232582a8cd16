#!/usr/bin/python3
"""The command-line front end of rtcpy: `dump --json PATH`, `validate [--strict]
[--format text|json] PATH`, `validate --list-clauses` (the commands of
tracepy.tool.one_file_doc, printed on a usage error with what follows).

PATH is an RTC file (.rtc). `dump` prints every line it can, says on stderr
what it skipped (offset and bytes) and why, and exits 0 when the file was
read whole or only cut at either end, 1 for damage, 2 for an I/O error (a
missing file, a directory, a FIFO or device: refused without opening it).
It is the independent second implementation that the RTC golden corpus
(corpus/rtc/, conformance/tests/run_corpus.py) is checked against.
"""

import os
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "conformance", "gen")]

from tracepy.tool import dump_file, file_tool_main, one_file_doc  # noqa: E402
from rtcpy.clauses import SEVERITY  # noqa: E402
from rtcpy.dump import dump_lines  # noqa: E402
from rtcpy.reader import read_rtc  # noqa: E402
from rtcpy.validate import list_clauses, validate  # noqa: E402

PROG = "rtcpy_tool"
USAGE_TEXT = one_file_doc("rtcpy", "rtc", "SPEC-RTC.md", "RTC", __doc__.split("\n\n", 1)[1])


def shown(n):
    """What `dump` reports on stderr besides the skipped ranges: errors and
    the cuts (RTC-REC-*), not the warnings (`validate` reports those)."""
    return n.clause is None or SEVERITY[n.clause] == "error" or n.clause.startswith("RTC-REC-")


def skipped(t):
    return ["offset %d: skipped %d bytes (%s)" % (off, n, why) for off, n, why in t.skipped]


def cmd_dump(path):
    return dump_file(path, PROG, read_rtc, dump_lines, shown, skipped)


def main(argv):
    return file_tool_main(argv, USAGE_TEXT, PROG, cmd_dump, validate, list_clauses)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
