#!/usr/bin/python3
"""A small command-line front end of atfpy, with the C tool's argument shape:

    atfpy_tool.py dump --json PATH      canonical dump (docs/dump-format.md)
    atfpy_tool.py validate PATH         structural and link checks (atfpy.validate);
                                        exit 1 on errors

PATH is a session directory, a thread_K directory, an index.atf or a detail.atf.
It decodes the files (it is not an oracle: generators compute their expected
output from their models). It serves to test the conformance harness without
the C tool, and to look at files.
"""

import os
import re
import sys

sys.dont_write_bytecode = True   # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atfpy  # noqa: E402
from atfpy.dump import detail_file_lines, session_lines, thread_lines  # noqa: E402
from atfpy.session import ThreadView  # noqa: E402
from atfpy.validate import validate_path  # noqa: E402


def _thread_key(path, header_tid):
    m = re.fullmatch(r"thread_(\d+)", os.path.basename(os.path.dirname(os.path.abspath(path))))
    return int(m.group(1)) if m else header_tid


def dump_lines(path):
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, "manifest.json")):
            return session_lines(atfpy.read_session(path))
        # A thread directory of a session: the session's lines of that thread,
        # so symbols come from the session's manifest.
        parent = os.path.join(os.path.dirname(os.path.abspath(path)), "manifest.json")
        symbols = (atfpy.manifest_symbol_map(atfpy.load_manifest(parent))
                   if os.path.exists(parent) else None)
        return thread_lines(atfpy.read_thread_dir(path), symbols)
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == atfpy.DETAIL_MAGIC:
        det = atfpy.parse_detail_file(data)
        tv = ThreadView(_thread_key(path, det.header.thread_id), det.layout, [],
                        det.layout, det.header.arch, det.events)
        return detail_file_lines(tv)
    idx = atfpy.parse_index_file(data)
    tv = ThreadView(_thread_key(path, idx.header.thread_id), idx.layout, idx.events)
    return thread_lines(tv)


def main(argv):
    if len(argv) == 3 and argv[0] == "dump" and argv[1] == "--json":
        try:
            sys.stdout.write("".join(dump_lines(argv[2])))
        except (OSError, ValueError) as e:
            print("atfpy_tool: %s: %s" % (argv[2], e), file=sys.stderr)
            return 1
        return 0
    if len(argv) == 2 and argv[0] == "validate":
        errors, warnings = validate_path(argv[1])
        for w in warnings:
            print("warning: %s" % w)
        for e in errors:
            print("error: %s" % e)
        print("%s: %s" % (argv[1], "INVALID" if errors else "ok"))
        return 1 if errors else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
