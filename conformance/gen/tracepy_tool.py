#!/usr/bin/python3
"""The format-neutral front end of the Python implementations: it asks the
format registry (tracepy.registry) which format a path is, then runs that
format's independent Python implementation (formats/<name>/python/).

    tracepy_tool.py formats             the registry: name, package, spec,
                                        corpus, tool, one format a line
    tracepy_tool.py detect PATH         the format of PATH (exit 1: none)
    tracepy_tool.py info PATH           what PATH holds, one JSON object
    tracepy_tool.py dump --json PATH    the canonical dump of PATH's format
    tracepy_tool.py validate [--strict] [--format text|json] [--no-verify] PATH
                                        clause-ID validation by PATH's format
    tracepy_tool.py validate --list-clauses
                                        every format's clause table

Exit status: 0 success (conformant), 1 no format takes PATH, damage
(nonconformant), 2 a usage or I/O error. `dump` of a one-file format says
on stderr what it could not read, as that format's own tool does.
"""

import json
import os
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tracepy import registry  # noqa: E402
from tracepy.report import UsageError, clause_lines  # noqa: E402
from tracepy.tool import USAGE, cmd_validate, regular_file_error  # noqa: E402

PROG = "tracepy_tool"


def _format_of(path):
    """(format, None) or (None, exit status) after saying why on stderr."""
    why = regular_file_error(path)
    if why is not None:
        print("%s: %s: %s" % (PROG, path, why), file=sys.stderr)
        return None, USAGE
    try:
        f = registry.detect(path)
    except OSError as e:
        print("%s: %s: %s" % (PROG, path, e.strerror or e), file=sys.stderr)
        return None, USAGE
    if f is None:
        print("%s: %s: not a file or directory of any format (%s)"
              % (PROG, path, ", ".join(registry.names())), file=sys.stderr)
        return None, 1
    return f, None


def _run_validate(path, strict, verify):
    f = registry.detect(path) if os.path.exists(path) else None
    if f is None:
        raise UsageError("%s: %s" % (path, "not a file or directory of any format"
                                     if os.path.exists(path) else "no such file or directory"))
    if f.validate_bytes is None:
        return f.validate(path, strict, verify)
    return f.validate(path, strict)


def _all_clauses():
    return [line for f in registry.formats() for line in clause_lines(f.clauses)]


def main(argv):
    if argv == ["formats"]:
        for f in registry.formats():
            print("%s\t%s\t%s\t%s\t%s" % (f.name, f.package, "conformance/" + f.spec, "corpus/" + f.corpus,
                                          os.path.relpath(f.tool_path, registry.layout.REPO)))
        return 0
    if len(argv) == 2 and argv[0] in ("detect", "info"):
        f, rc = _format_of(argv[1])
        if f is None:
            return rc
        if argv[0] == "detect":
            print(f.name)
            return 0
        try:
            print(json.dumps(f.info(argv[1]), sort_keys=True))
        except OSError as e:
            print("%s: %s: %s" % (PROG, argv[1], e.strerror or e), file=sys.stderr)
            return USAGE
        except (ValueError, KeyError) as e:
            print("%s: %s: %s" % (PROG, argv[1], e), file=sys.stderr)
            return 1
        return 0
    if len(argv) == 3 and argv[:2] == ["dump", "--json"]:
        f, rc = _format_of(argv[2])
        if f is None:
            return rc
        tool = __import__(f.tool[:-len(".py")])
        return tool.main(argv)
    if argv and argv[0] == "validate":
        return cmd_validate(argv[1:], _run_validate, _all_clauses, PROG)
    print(__doc__, file=sys.stderr)
    return USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
