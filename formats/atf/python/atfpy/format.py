"""ATF's entry in the format registry (tracepy.registry): how a path is
recognised (bid), summarised (info), dumped (the canonical lines of
docs/dump-format.md, `atf dump --json`) and validated (conformance/SPEC.md).

PATH is a session directory (or a directory holding one pid_N session), a
thread_K directory, an index.atf or a detail.atf.
"""

import os
import re

from tracepy.registry import Format

from . import (DETAIL_MAGIC, INDEX_MAGIC, load_manifest, manifest_symbol_map, parse_detail_file,
               parse_index_file, read_session, read_thread_dir)
from .dump import detail_file_lines, session_lines, thread_lines
from .session import ThreadView, discover_thread_ids
from .validate import CLAUSES, validate

_PID = re.compile(r"pid_[0-9]+")


def _thread_key(path, header_tid):
    m = re.fullmatch(r"thread_(\d+)", os.path.basename(os.path.dirname(os.path.abspath(path))))
    return int(m.group(1)) if m else header_tid


def _session_dir(path):
    """The session directory of ``path`` (itself, or its single pid_N), or None."""
    if os.path.exists(os.path.join(path, "manifest.json")) or discover_thread_ids(path):
        return path
    pids = [e for e in sorted(os.listdir(path))
            if _PID.fullmatch(e) and os.path.isdir(os.path.join(path, e))]
    if len(pids) == 1:
        return os.path.join(path, pids[0])
    return None


def dump_lines(path):
    if os.path.isdir(path):
        if not os.path.exists(os.path.join(path, "index.atf")):
            sdir = _session_dir(path)
            if sdir is None:
                raise ValueError("not a session or thread directory")
            return session_lines(read_session(sdir))
        # A thread directory of a session: the session's lines of that thread,
        # so symbols come from the session's manifest.
        parent = os.path.join(os.path.dirname(os.path.abspath(path)), "manifest.json")
        symbols = (manifest_symbol_map(load_manifest(parent))
                   if os.path.exists(parent) else None)
        m = re.fullmatch(r"thread_(\d+)", os.path.basename(os.path.normpath(path)))
        if m:
            return thread_lines(read_thread_dir(path), symbols)
        with open(os.path.join(path, "index.atf"), "rb") as f:
            tid = parse_index_file(f.read(), False).header.thread_id
        return thread_lines(read_thread_dir(path, tid), symbols)
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == DETAIL_MAGIC:
        det = parse_detail_file(data)
        tv = ThreadView(_thread_key(path, det.header.thread_id), det.layout, [],
                        det.layout, det.header.arch, det.events)
        return detail_file_lines(tv)
    idx = parse_index_file(data)
    tv = ThreadView(_thread_key(path, idx.header.thread_id), idx.layout, idx.events)
    # An index file inside a session's thread_K/ takes its symbols from the
    # session's manifest (docs/dump-format.md, "Where symbols come from").
    tdir = os.path.dirname(os.path.abspath(path))
    parent = os.path.join(os.path.dirname(tdir), "manifest.json")
    symbols = None
    if re.fullmatch(r"thread_(0|[1-9]\d*)", os.path.basename(tdir)) and os.path.exists(parent):
        try:
            symbols = manifest_symbol_map(load_manifest(parent))
        except (OSError, ValueError, KeyError, TypeError):
            symbols = None   # an unreadable manifest is ignored here, as the C reader does
    return thread_lines(tv, symbols)


def bid(path, head):
    """100 for a directory the tools take (a thread directory, a session, a
    directory holding one pid_N session) or a file starting with "ATI2" or
    "ATD2"; 50 for a file named index.atf or detail.atf (its magic damaged);
    else 0."""
    if head is None:
        try:
            if os.path.isfile(os.path.join(path, "index.atf")) or _session_dir(path):
                return 100
        except OSError:
            return 0
        return 0
    if head[:4] in (INDEX_MAGIC, DETAIL_MAGIC):
        return 100
    return 50 if os.path.basename(path) in ("index.atf", "detail.atf") else 0


def info(path):
    """What ``path`` holds: its kind, threads and events (index and detail)."""
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, "index.atf")):
            kind, threads = "thread", [read_thread_dir(path, _dir_tid(path))]
        else:
            sdir = _session_dir(path)
            if sdir is None:
                raise ValueError("not a session or thread directory")
            kind, threads = "session", read_session(sdir).threads
        return {"format": "atf", "kind": kind, "threads": len(threads),
                "index_events": sum(len(t.index_events) for t in threads),
                "detail_events": sum(len(t.detail_events or ()) for t in threads)}
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == DETAIL_MAGIC:
        d = parse_detail_file(data)
        return {"format": "atf", "kind": "detail", "layout": d.layout,
                "thread_id": d.header.thread_id, "detail_events": len(d.events)}
    x = parse_index_file(data)
    return {"format": "atf", "kind": "index", "layout": x.layout,
            "thread_id": x.header.thread_id, "index_events": len(x.events)}


def _dir_tid(path):
    m = re.fullmatch(r"thread_(\d+)", os.path.basename(os.path.normpath(path)))
    if m:
        return None
    with open(os.path.join(path, "index.atf"), "rb") as f:
        return parse_index_file(f.read(), False).header.thread_id


FORMAT = Format(
    name="atf", title="ATF (ADA Trace Format v2)", package="atfpy", clause_prefix=None,
    spec="SPEC.md", corpus="atf", tool="atfpy_tool.py", suffixes=(".atf",),
    bid=bid, info=info, dump_lines=dump_lines,
    validate=lambda path, strict=False, verify=True: validate(path, strict, verify),
    clauses=CLAUSES, validate_bytes=None)
