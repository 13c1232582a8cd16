#!/usr/bin/python3
"""A small command-line front end of wtfpy, with the C tool's argument shape:

    wtfpy_tool.py dump --json PATH      canonical dump (docs/wtf-dump-format.md)
    wtfpy_tool.py validate [--strict] [--format text|json] PATH
                                        clause-ID validation (wtfpy.validate,
                                        conformance/SPEC-WTF.md); JSON schema
                                        "atf-validate/1"; exit 0 conformant,
                                        1 nonconformant, 2 usage or I/O error
    wtfpy_tool.py validate --list-clauses
                                        the WTF clause table: ID, tab,
                                        severity, tab, summary

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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from atfpy_tool import USAGE, cmd_validate, regular_file_error  # noqa: E402
from wtfpy.clauses import SEVERITY  # noqa: E402
from wtfpy.dump import dump_lines  # noqa: E402
from wtfpy.reader import read_trace  # noqa: E402
from wtfpy.validate import list_clauses, validate  # noqa: E402

PROG = "wtfpy_tool"


def read_file(path):
    """The bytes of ``path``; OSError (exit 2) for anything but a readable
    regular file."""
    why = regular_file_error(path)
    if why is None and os.path.isdir(path):
        why = "is a directory"
    if why is not None:
        raise OSError(why)
    with open(path, "rb") as f:
        return f.read()


def cmd_dump(path):
    try:
        data = read_file(path)
    except OSError as e:
        print("%s: %s: %s" % (PROG, path, e.strerror or e), file=sys.stderr)
        return USAGE
    t = read_trace(data, os.path.basename(path))
    sys.stdout.write("".join(dump_lines(t)))
    # What was not read, and why: errors, the crash cut, skipped parts (not
    # the warnings: `validate` reports those).
    for n in t.notes:
        if n.clause is not None and SEVERITY[n.clause] != "error" and n.clause not in (
                "WTF-REC-001", "WTF-EVC-003", "WTF-CHK-007", "WTF-CHK-008"):
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
