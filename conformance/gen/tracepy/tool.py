"""The command line that the Python tools share (each format's
formats/<name>/python/<name>py_tool.py, and tracepy_tool.py), with the C
tool's argument shape:

    dump --json PATH
    validate [--strict] [--format text|json] [--no-verify] PATH
    validate --list-clauses

Exit status: 0 conformant (or read), 1 nonconformant (or damaged), 2 a
usage or I/O error. A FIFO or a device is refused without opening it, so
that nothing blocks.
"""

import json
import os
import stat
import sys

from .report import UsageError

USAGE = 2


def regular_file_error(path):
    """None when ``path`` can be read as a file, else why not (a FIFO or a
    device is refused without opening it, so that nothing blocks)."""
    try:
        st = os.stat(path)
    except OSError as e:
        return e.strerror or str(e)
    if stat.S_ISDIR(st.st_mode):
        return None
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    return None


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


def dump_file(path, prog, read, dump_lines, shown, before_notes=None):
    """`dump --json PATH` of a one-file format: the canonical
    lines of ``read(data, name)`` on stdout, then on stderr what was not read
    and why: ``before_notes(trace)`` lines, and every note ``shown(note)``
    keeps. Exit 2 for an I/O error, 1 for damage, else 0."""
    try:
        data = read_file(path)
    except OSError as e:
        print("%s: %s: %s" % (prog, path, e.strerror or e), file=sys.stderr)
        return USAGE
    t = read(data, os.path.basename(path))
    sys.stdout.write("".join(dump_lines(t)))
    for line in (before_notes(t) if before_notes else ()):
        print("%s: %s: %s" % (prog, path, line), file=sys.stderr)
    for n in t.notes:
        if not shown(n):
            continue
        where = "" if n.offset is None else " offset %d:" % n.offset
        field = " field %s:" % n.field if n.field else ""
        print("%s: %s:%s%s %s%s" % (prog, path, where, field,
                                    "%s: " % n.clause if n.clause else "", n.message),
              file=sys.stderr)
    return 1 if t.state == t.DAMAGED else 0


_ONE_FILE_COMMANDS = """A small command-line front end of %(pkg)s, with the C tool's argument shape:

    %(pkg)s_tool.py dump --json PATH      canonical dump (docs/%(name)s-dump-format.md)
    %(pkg)s_tool.py validate [--strict] [--format text|json] PATH
                                        clause-ID validation (%(pkg)s.validate,
                                        conformance/%(spec)s); JSON schema
                                        "atf-validate/1"; exit 0 conformant,
                                        1 nonconformant, 2 usage or I/O error
    %(pkg)s_tool.py validate --list-clauses
                                        the %(title)s clause table: ID, tab,
                                        severity, tab, summary

"""


def one_file_doc(pkg, name, spec, title, about):
    """The usage text of a one-file format's tool (``pkg``_tool.py): its
    commands, then ``about`` (what PATH is, what `dump` says and exits)."""
    return _ONE_FILE_COMMANDS % {"pkg": pkg, "name": name, "spec": spec, "title": title} + about


def file_tool_main(argv, doc, prog, cmd_dump, validate, list_clauses):
    """The command line of a one-file format's tool: `dump --json PATH`,
    `validate [...] PATH`, `validate --list-clauses`."""
    if len(argv) == 3 and argv[0] == "dump" and argv[1] == "--json":
        return cmd_dump(argv[2])
    if argv and argv[0] == "validate":
        return cmd_validate(argv[1:], lambda path, strict, verify: validate(path, strict),
                            list_clauses, prog)
    print(doc, file=sys.stderr)
    return USAGE


def cmd_validate(args, run, clauses, prog):
    """`validate [--strict] [--format text|json] [--no-verify] PATH` and
    `validate --list-clauses`. ``run(path, strict, verify)`` returns a report
    (report.Report) or raises report.UsageError; ``clauses()`` the lines of
    the clause table."""
    strict, verify, fmt, path = False, True, "text", None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--strict":
            strict = True
        elif a == "--no-verify":
            verify = False
        elif a == "--list-clauses":
            sys.stdout.write("".join(line + "\n" for line in clauses()))
            return 0
        elif a == "--format" and i + 1 < len(args) and args[i + 1] in ("text", "json"):
            fmt = args[i + 1]
            i += 1
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
            if fmt not in ("text", "json"):
                print("%s: validate: unsupported format %r" % (prog, fmt), file=sys.stderr)
                return USAGE
        elif a.startswith("-"):
            print("%s: validate: unknown option %s" % (prog, a), file=sys.stderr)
            return USAGE
        elif path is not None:
            print("%s: validate: one PATH only" % prog, file=sys.stderr)
            return USAGE
        else:
            path = a
        i += 1
    if path is None:
        print("%s: validate: PATH is missing" % prog, file=sys.stderr)
        return USAGE
    why = regular_file_error(path)
    if why is not None:
        print("%s: %s: %s" % (prog, path, why), file=sys.stderr)
        return USAGE
    try:
        rep = run(path, strict, verify)
    except UsageError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return USAGE
    if fmt == "json":
        sys.stdout.write(json.dumps(rep.to_json(), indent=1) + "\n")
    else:
        sys.stdout.write("".join(line + "\n" for line in rep.text_lines()))
    return 0 if rep.conformant else 1
