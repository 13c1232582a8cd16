#!/usr/bin/python3
"""A small command-line front end of atfpy, with the C tool's argument shape:

    atfpy_tool.py dump --json PATH      canonical dump (docs/dump-format.md)
    atfpy_tool.py validate [--strict] [--format text|json] [--no-verify] PATH
                                        clause-ID validation (atfpy.validate,
                                        conformance/SPEC.md); JSON schema
                                        "atf-validate/1"; exit 0 conformant,
                                        1 nonconformant, 2 usage or I/O error
    atfpy_tool.py validate --list-clauses
                                        the clause table: ID, tab, severity,
                                        tab, summary (one clause a line)

PATH is a session directory (or a directory holding one pid_N session), a
thread_K directory, an index.atf or a detail.atf. It decodes the files (it is
not an oracle: generators compute their expected output from their models).
It is the independent second implementation that the golden corpus
(corpus/, conformance/tests/run_corpus.py) is checked against.
"""

import os
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "conformance", "gen")]

from atfpy.format import dump_lines  # noqa: E402,F401  (make_corpus.py uses it)
from atfpy.validate import list_clauses, validate  # noqa: E402
from tracepy.tool import USAGE, cmd_validate as _cmd_validate  # noqa: E402
from tracepy.tool import dump_file, file_tool_main, read_file, regular_file_error  # noqa: E402,F401

PROG = "atfpy_tool"


def cmd_validate(args):
    """`validate [--strict] [--format text|json] [--no-verify] PATH` and
    `validate --list-clauses` of atfpy (tracepy.tool.cmd_validate)."""
    return _cmd_validate(args, lambda path, strict, verify: validate(path, strict=strict,
                                                                     verify=verify),
                         list_clauses, PROG)


def main(argv):
    if len(argv) == 3 and argv[0] == "dump" and argv[1] == "--json":
        try:
            sys.stdout.write("".join(dump_lines(argv[2])))
        except (OSError, ValueError, KeyError) as e:
            print("atfpy_tool: %s: %s" % (argv[2], e), file=sys.stderr)
            return 1
        return 0
    if argv and argv[0] == "validate":
        return cmd_validate(argv[1:])
    print(__doc__, file=sys.stderr)
    return USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
