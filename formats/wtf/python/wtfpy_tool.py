#!/usr/bin/python3
"""The command-line front end of wtfpy: `dump --json PATH`, `validate [--strict]
[--format text|json] PATH`, `validate --list-clauses` (the commands of
tracepy.tool.one_file_doc, printed on a usage error with what follows).

PATH is a binary WTF file (.wtf-trace). `dump` prints every line it can,
says on stderr what it could not read, and exits 0 when the file was read
whole or only cut short at the end (crash-truncated), 1 for damage, 2 for an
I/O error (a missing file, a directory, a FIFO or device: refused without
opening it). It is the independent second implementation that the WTF golden
corpus (corpus/wtf/, conformance/tests/run_corpus.py) is checked against.
"""

import os
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "conformance", "gen")]

from tracepy.tool import dump_file, file_tool_main, one_file_doc  # noqa: E402
from wtfpy.clauses import SEVERITY  # noqa: E402
from wtfpy.dump import dump_lines  # noqa: E402
from wtfpy.reader import read_trace  # noqa: E402
from wtfpy.validate import list_clauses, validate  # noqa: E402

PROG = "wtfpy_tool"
USAGE_TEXT = one_file_doc("wtfpy", "wtf", "SPEC-WTF.md", "WTF", __doc__.split("\n\n", 1)[1])


def shown(n):
    """What `dump` reports on stderr: errors, the crash cut, skipped parts and
    chunks (not the warnings: `validate` reports those)."""
    return n.clause is None or SEVERITY[n.clause] == "error" or n.clause in (
        "WTF-REC-001", "WTF-EVC-003", "WTF-CHK-007", "WTF-CHK-008")


def cmd_dump(path):
    return dump_file(path, PROG, read_trace, dump_lines, shown)


def main(argv):
    return file_tool_main(argv, USAGE_TEXT, PROG, cmd_dump, validate, list_clauses)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
