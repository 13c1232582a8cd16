"""Self-check: decode what a model wrote and compare it with the model.

Used by generators after writing each session, so that the oracle (the dump
computed from the model) and the decoder of this package agree, and the files
have the header/footer contents the model promises.
"""

import os

from .crc import CHECKSUM_CRC32_IEEE, CHECKSUM_CRC32C, CHECKSUM_NONE
from .dump import detail_file_lines, expected_dump, session_lines, thread_lines
from .files import (STATE_CRC32_IEEE, STATE_CRC32C, STATE_NO_FOOTER, STATE_ZERO,
                    parse_detail_file, parse_index_file)
from .records import INDEX_FLAG_HAS_DETAIL_FILE, INDEX_HEADER_SIZE
from .session import model_view, read_session, read_thread_dir


class SelfCheckError(AssertionError):
    pass


def _expect(cond, msg, *args):
    if not cond:
        raise SelfCheckError(msg % args if args else msg)


_STATE = {CHECKSUM_NONE: STATE_ZERO, CHECKSUM_CRC32C: STATE_CRC32C,
          CHECKSUM_CRC32_IEEE: STATE_CRC32_IEEE}


def _state(checksum, section_size):
    # The CRC of an empty section is 0 for both polynomials: "unchecked".
    return STATE_ZERO if section_size == 0 else _STATE[checksum]


def check_session(model, directory):
    """Raises SelfCheckError on the first disagreement between files and model."""
    name = model.name
    for t in model.threads:
        tdir = os.path.join(directory, "thread_%d" % t.id)
        where = "%s/thread_%d" % (name, t.id)
        with open(os.path.join(tdir, "index.atf"), "rb") as f:
            idx = parse_index_file(f.read())
        h = idx.header
        n_vis = model.visible_index_count(t)
        _expect(h.version == model.layout and h.arch == model.arch and h.os == model.os
                and h.clock_type == model.clock_type and h.thread_id == t.os_thread_id,
                "%s: index header identity %r", where, h)
        flags = t.index_flags if t.index_flags is not None else (
            INDEX_FLAG_HAS_DETAIL_FILE if t.has_detail_file else 0)
        _expect(h.flags == flags, "%s: index flags %d != %d", where, h.flags, flags)
        _expect(h.events_offset == INDEX_HEADER_SIZE, "%s: events_offset", where)
        _expect(idx.events == t.events[:n_vis], "%s: decoded index events differ", where)
        checksum = t.checksum or model.checksum
        if model.crashed:
            _expect(h.event_count == 0 and h.footer_offset == 0 and h.time_start_ns == 0
                    and h.time_end_ns == 0, "%s: placeholder header expected", where)
            _expect(idx.footer is None and idx.checksum_state == STATE_NO_FOOTER,
                    "%s: a crashed file must have no footer", where)
        else:
            n = len(t.events)
            ts0 = t.events[0].timestamp_ns if n else 0
            ts1 = t.events[-1].timestamp_ns if n else 0
            _expect(h.event_count == n and h.footer_offset == INDEX_HEADER_SIZE + n * 32
                    and (h.time_start_ns, h.time_end_ns) == (ts0, ts1),
                    "%s: final header %r", where, h)
            fo = idx.footer
            _expect(fo is not None and fo.event_count == n and fo.bytes_written == n * 32
                    and (fo.time_start_ns, fo.time_end_ns) == (ts0, ts1)
                    and idx.checksum_state == _state(checksum, n) and idx.trailing_bytes == 0,
                    "%s: footer %r state %s", where, fo, idx.checksum_state)
            _expect(checksum == CHECKSUM_NONE or n == 0 or fo.checksum != 0,
                    "%s: a computed checksum is 0 (ambiguous with 'unchecked')", where)
        dpath = os.path.join(tdir, "detail.atf")
        _expect(os.path.exists(dpath) == t.has_detail_file, "%s: detail.atf presence", where)
        if t.has_detail_file:
            with open(dpath, "rb") as f:
                det = parse_detail_file(f.read())
            vis = model.visible_detail(t)
            _expect(det.events == vis, "%s: decoded detail events differ", where)
            dh = det.header
            _expect(dh.version == model.layout and dh.arch == model.arch and dh.os == model.os
                    and dh.thread_id == t.os_thread_id and dh.flags == 0
                    and dh.events_offset == 64, "%s: detail header %r", where, dh)
            evs = t.detail_events
            blen = sum(e.total_length for e in evs)
            if model.crashed:
                _expect(det.footer is None and dh.event_count == 0 and dh.bytes_length == 0
                        and dh.index_seq_start == 0 and dh.index_seq_end == 0,
                        "%s: detail placeholder expected", where)
            else:
                _expect(dh.event_count == len(evs) and dh.bytes_length == blen
                        and dh.index_seq_start == (evs[0].index_seq if evs else 0)
                        and dh.index_seq_end == (evs[-1].index_seq if evs else 0),
                        "%s: final detail header %r", where, dh)
                fo = det.footer
                _expect(fo is not None and fo.event_count == len(evs) and fo.bytes_length == blen
                        and det.checksum_state == _state(checksum, blen),
                        "%s: detail footer %r", where, fo)
                _expect(checksum == CHECKSUM_NONE or blen == 0 or fo.checksum != 0,
                        "%s: a computed detail checksum is 0", where)
    # The dump of the decoded files equals the oracle's.
    mv = model_view(model)
    dv = read_session(directory)
    _expect(session_lines(dv) == session_lines(mv), "%s: decoded dump differs from model dump",
            name)
    _expect(expected_dump(model) == session_lines(mv), "%s: expected_dump(model)", name)
    for tv_m in mv.threads:
        tv_d = read_thread_dir(os.path.join(directory, "thread_%d" % tv_m.id))
        _expect(thread_lines(tv_d) == thread_lines(tv_m), "%s: thread %d dump", name, tv_m.id)
        _expect(detail_file_lines(tv_d) == detail_file_lines(tv_m),
                "%s: thread %d detail dump", name, tv_m.id)
