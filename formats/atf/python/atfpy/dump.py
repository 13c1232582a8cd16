"""The canonical dump of docs/dump-format.md (`atf dump --json`), rendered from a
SessionView: compact JSON Lines, keys in the documented order.

Index event line:
  thread, seq, timestamp_ns, function_id, event_kind, detail_seq (null = none),
  [layout 1: thread_id, call_depth], [symbol], [detail]
Detail object (also the body of detail-file lines, after "thread"):
  detail_seq, offset, total_length, event_type, flags, index_seq,
  [layout 1: thread_id], timestamp, payload (hex), [arm64]
``detail`` is present when detail_seq is not null, the thread has a detail file
and detail_seq < its (recovered) event count. ``arm64`` when the detail header
arch is 2, event_type is 3 or 4 and the payload is exactly 100 + stack_size
bytes with stack_size <= 256.
"""

import json
import os

from .records import (ARCH_ARM64, DETAIL_FUNCTION_CALL, DETAIL_FUNCTION_RETURN, LAYOUT_1,
                      Arm64Payload)
from .session import SessionModel, SessionView, ThreadView, model_view, read_session, \
    read_thread_dir


def _line(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"


def detail_object(dseq, offset, ev, layout, arch):
    d = {"detail_seq": dseq, "offset": offset, "total_length": ev.total_length,
         "event_type": ev.event_type, "flags": ev.flags, "index_seq": ev.index_seq}
    if layout == LAYOUT_1:
        d["thread_id"] = ev.thread_id
    d["timestamp"] = ev.timestamp
    d["payload"] = bytes(ev.payload).hex()
    if arch == ARCH_ARM64 and ev.event_type in (DETAIL_FUNCTION_CALL, DETAIL_FUNCTION_RETURN):
        p = Arm64Payload.try_decode(ev.payload)
        if p is not None:
            d["arm64"] = {"function_id": p.function_id, "x": list(p.x), "lr": p.lr,
                          "fp": p.fp, "sp": p.sp, "stack_size": p.stack_size,
                          "stack": p.stack.hex()}
    return d


def index_event_object(thread_key, seq, ev, layout, symbols, tv):
    o = {"thread": thread_key, "seq": seq, "timestamp_ns": ev.timestamp_ns,
         "function_id": ev.function_id, "event_kind": ev.event_kind,
         "detail_seq": ev.detail_seq}
    if layout == LAYOUT_1:
        o["thread_id"] = ev.thread_id
        o["call_depth"] = ev.call_depth
    if symbols and ev.function_id in symbols:
        o["symbol"] = symbols[ev.function_id]
    if (ev.detail_seq is not None and tv.detail_events is not None
            and ev.detail_seq < len(tv.detail_events)):
        off, dev = tv.detail_events[ev.detail_seq]
        o["detail"] = detail_object(ev.detail_seq, off, dev, tv.detail_layout, tv.detail_arch)
    return o


def thread_lines(tv, symbols=None):
    """Dump lines of one thread's index events (each ending in a newline)."""
    return [_line(index_event_object(tv.id, seq, ev, tv.index_layout, symbols, tv))
            for seq, ev in enumerate(tv.index_events)]


def detail_file_lines(tv):
    """Dump lines of a detail file given alone (`atf dump --json thread_K/detail.atf`)."""
    out = []
    for dseq, (off, ev) in enumerate(tv.detail_events or []):
        o = {"thread": tv.id}
        o.update(detail_object(dseq, off, ev, tv.detail_layout, tv.detail_arch))
        out.append(_line(o))
    return out


def session_lines(view):
    out = []
    for tv in sorted(view.threads, key=lambda t: t.id):
        out += thread_lines(tv, view.symbols)
    return out


def expected_dump(source):
    """Canonical dump lines of ``source``: a SessionModel (the oracle: computed
    from the events as generated), a SessionView, a session directory, or a
    thread_K directory (decoded)."""
    if isinstance(source, SessionModel):
        return session_lines(model_view(source))
    if isinstance(source, SessionView):
        return session_lines(source)
    if isinstance(source, ThreadView):
        return thread_lines(source)
    if isinstance(source, (str, os.PathLike)):
        if os.path.exists(os.path.join(source, "manifest.json")):
            return session_lines(read_session(source))
        return thread_lines(read_thread_dir(source))
    raise TypeError("expected_dump() of %r" % (type(source),))


def expected_thread_dump(model, tid, with_symbols=True):
    """Lines of thread ``tid`` of a model: the session's lines of that thread."""
    view = model_view(model)
    tv = next(t for t in view.threads if t.id == tid)
    return thread_lines(tv, view.symbols if with_symbols else None)


def expected_detail_dump(model, tid):
    view = model_view(model)
    tv = next(t for t in view.threads if t.id == tid)
    return detail_file_lines(tv)
