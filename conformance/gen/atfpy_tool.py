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

import json
import os
import re
import stat
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atfpy  # noqa: E402
from atfpy.dump import detail_file_lines, session_lines, thread_lines  # noqa: E402
from atfpy.session import ThreadView, discover_thread_ids  # noqa: E402
from atfpy.validate import UsageError, list_clauses, validate  # noqa: E402

USAGE = 2


def _thread_key(path, header_tid):
    m = re.fullmatch(r"thread_(\d+)", os.path.basename(os.path.dirname(os.path.abspath(path))))
    return int(m.group(1)) if m else header_tid


def _session_dir(path):
    """The session directory of ``path`` (itself, or its single pid_N), or None."""
    if os.path.exists(os.path.join(path, "manifest.json")) or discover_thread_ids(path):
        return path
    pids = [e for e in sorted(os.listdir(path))
            if re.fullmatch(r"pid_[0-9]+", e) and os.path.isdir(os.path.join(path, e))]
    if len(pids) == 1:
        return os.path.join(path, pids[0])
    return None


def dump_lines(path):
    if os.path.isdir(path):
        if not os.path.exists(os.path.join(path, "index.atf")):
            sdir = _session_dir(path)
            if sdir is None:
                raise ValueError("not a session or thread directory")
            return session_lines(atfpy.read_session(sdir))
        # A thread directory of a session: the session's lines of that thread,
        # so symbols come from the session's manifest.
        parent = os.path.join(os.path.dirname(os.path.abspath(path)), "manifest.json")
        symbols = (atfpy.manifest_symbol_map(atfpy.load_manifest(parent))
                   if os.path.exists(parent) else None)
        m = re.fullmatch(r"thread_(\d+)", os.path.basename(os.path.normpath(path)))
        if m:
            return thread_lines(atfpy.read_thread_dir(path), symbols)
        with open(os.path.join(path, "index.atf"), "rb") as f:
            tid = atfpy.parse_index_file(f.read(), False).header.thread_id
        return thread_lines(atfpy.read_thread_dir(path, tid), symbols)
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == atfpy.DETAIL_MAGIC:
        det = atfpy.parse_detail_file(data)
        tv = ThreadView(_thread_key(path, det.header.thread_id), det.layout, [],
                        det.layout, det.header.arch, det.events)
        return detail_file_lines(tv)
    idx = atfpy.parse_index_file(data)
    tv = ThreadView(_thread_key(path, idx.header.thread_id), idx.layout, idx.events)
    # An index file inside a session's thread_K/ takes its symbols from the
    # session's manifest (docs/dump-format.md, "Where symbols come from").
    tdir = os.path.dirname(os.path.abspath(path))
    parent = os.path.join(os.path.dirname(tdir), "manifest.json")
    symbols = None
    if re.fullmatch(r"thread_(0|[1-9]\d*)", os.path.basename(tdir)) and os.path.exists(parent):
        try:
            symbols = atfpy.manifest_symbol_map(atfpy.load_manifest(parent))
        except (OSError, ValueError, KeyError, TypeError):
            symbols = None   # an unreadable manifest is ignored here, as the C reader does
    return thread_lines(tv, symbols)


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
    """`dump --json PATH` of a one-file format (WTF, RTC): the canonical
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


def cmd_validate(args, run=None, clauses=None, prog="atfpy_tool"):
    """`validate [--strict] [--format text|json] [--no-verify] PATH` and
    `validate --list-clauses`. ``run(path, strict, verify)`` returns a report
    (validate.Report) or raises validate.UsageError; ``clauses()`` the lines
    of the clause table. Defaults: atfpy's."""
    run = run or (lambda path, strict, verify: validate(path, strict=strict, verify=verify))
    clauses = clauses or list_clauses
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
