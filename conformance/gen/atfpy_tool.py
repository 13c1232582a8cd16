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
import re
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atfpy  # noqa: E402
from atfpy.dump import detail_file_lines, session_lines, thread_lines  # noqa: E402
from atfpy.session import ThreadView, discover_thread_ids  # noqa: E402
from atfpy.validate import list_clauses, validate  # noqa: E402
from tracepy.tool import USAGE, cmd_validate as _cmd_validate  # noqa: E402
from tracepy.tool import dump_file, file_tool_main, read_file, regular_file_error  # noqa: E402,F401

PROG = "atfpy_tool"


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
