#!/usr/bin/python3
"""A small command-line front end of rtcpy, with the C tool's argument shape:

    rtcpy_tool.py dump --json PATH      canonical dump (docs/rtc-dump-format.md)
    rtcpy_tool.py validate [--strict] [--format text|json] PATH
                                        clause-ID validation (rtcpy.validate,
                                        conformance/SPEC-RTC.md); JSON schema
                                        "atf-validate/1"; exit 0 conformant,
                                        1 nonconformant, 2 usage or I/O error
    rtcpy_tool.py validate --list-clauses
                                        the RTC clause table: ID, tab,
                                        severity, tab, summary

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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from atfpy_tool import USAGE, cmd_validate  # noqa: E402
from rtcpy.clauses import SEVERITY  # noqa: E402
from rtcpy.dump import dump_lines  # noqa: E402
from rtcpy.reader import read_rtc  # noqa: E402
from rtcpy.validate import list_clauses, validate  # noqa: E402
from wtfpy_tool import read_file  # noqa: E402

PROG = "rtcpy_tool"


def cmd_dump(path):
    try:
        data = read_file(path)
    except OSError as e:
        print("%s: %s: %s" % (PROG, path, e.strerror or e), file=sys.stderr)
        return USAGE
    t = read_rtc(data, os.path.basename(path))
    sys.stdout.write("".join(dump_lines(t)))
    for off, n, why in t.skipped:
        print("%s: %s: offset %d: skipped %d bytes (%s)" % (PROG, path, off, n, why),
              file=sys.stderr)
    for n in t.notes:
        if n.clause is not None and SEVERITY[n.clause] != "error" and not n.clause.startswith(
                "RTC-REC-"):
            continue
        where = "" if n.offset is None else " offset %d:" % n.offset
        field = " field %s:" % n.field if n.field else ""
        print("%s: %s:%s%s %s%s" % (PROG, path, where, field,
                                    "%s: " % n.clause if n.clause else "", n.message),
              file=sys.stderr)
    return 1 if t.state == t.DAMAGED else 0


def main(argv):
    if len(argv) == 3 and argv[0] == "dump" and argv[1] == "--json":
        return cmd_dump(argv[2])
    if argv and argv[0] == "validate":
        return cmd_validate(argv[1:], lambda path, strict, verify: validate(path, strict),
                            list_clauses, PROG)
    print(__doc__, file=sys.stderr)
    return USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
