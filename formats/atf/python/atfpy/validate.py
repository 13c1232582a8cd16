"""Clause-ID validator: an independent implementation of conformance/SPEC.md.

Every check carries the clause ID of SPEC.md; every finding has the clause,
its severity (error / warning), the file (relative to the validated path), a
byte offset (or None), a field name (or None) and a one-line message. The
report serializes to the JSON schema "atf-validate/1" of the C validator (see
VALIDATOR-CONTRACT / docs), so that the golden corpus can be checked against
both implementations with one runner.

Entry points
  validate(path, strict=False, verify=True) -> Report
  validate_path(path) -> (error messages, warning messages)   (older API)
  CLAUSES: (id, severity, summary) in SPEC.md order

Readings of the spec where its text leaves room (listed in corpus/atf/README.md
so that SPEC.md can settle them):
  * A single index or detail file is checked on its own: file-level clauses
    only, no cross-lane clauses (LINK-*, ARM-PAY-005), even when a sibling
    file exists. A thread directory adds the cross-lane clauses; a session
    directory adds the manifest clauses.
  * A file whose magic is neither "ATI2" nor "ATD2" is classified by its
    name (index.atf / detail.atf).
  * Fatal for the rest of a file: IDX-HDR-001/002/003/010, DET-HDR-001/002/003/006.
    After IDX-FTR-001 (count too large) no event of that file is read; after
    DET-EVT-001/002 (the events section cannot be walked) the per-event checks
    of the events before the bad one are still made, but the count, time,
    index_seq range and cross-lane checks of that file are not.
  * IDX-HDR-013 / DET-HDR-007 are read literally: a finalized header whose
    footer_offset (events_offset + bytes_length) differs from
    events_offset + event_count * 32 (the footer's values), or with no footer
    where it says, breaks them; a finalized header without a footer also
    breaks REC-004 (and is not reported as REC-001; its recovered events are
    listed under "recovered").
  * REC-002 reports a non-empty remainder after the recovered events that is
    neither a torn footer nor all zero bytes. REC-003 for detail files: a
    remainder that starts with "2DTA" and holds at byte 8 the number of
    events before it.
  * CRC-003 is not reported when the events section is empty: its CRC32-C is 0.
  * A thread directory not listed in the manifest is still validated (and
    dumped); SES-MAN-011 fires when neither the manifest nor the directory
    names a thread.
  * A manifest.json that is empty, or crash-truncated (SPEC 7a.14: less its
    NUL tail, a proper prefix of a JSON object, judged by
    atfpy.session.manifest_cut and not by json), is read as absent:
    SES-MAN-001, plus REC-001 on manifest.json (offset: the text's length)
    for a crash-truncated one.
"""

import json
import os
import re

from .crc import crc32_ieee, crc32c
from .files import header_prefix_ok
from .records import (DETAIL_EVENT_HEADER_SIZE, DETAIL_FOOTER_MAGIC, DETAIL_FOOTER_SIZE,
                      DETAIL_HEADER_SIZE, DETAIL_MAGIC, INDEX_EVENT_SIZE, INDEX_FOOTER_MAGIC,
                      INDEX_FOOTER_SIZE, INDEX_HEADER_SIZE, INDEX_MAGIC, LAYOUT_1, LAYOUT_2,
                      NO_DETAIL_L1, NO_DETAIL_L2)
from .session import JsonReal, U64RangeError, manifest_cut, parse_u64
from tracepy.binary import le as _u
from tracepy.report import (SCHEMA, Aggregator, Finding, Report, UsageError,  # noqa: F401
                            clause_lines, severities)

CLAUSES = (
    ("GEN-LAY-001", "error", "index and detail files of one thread use the same layout"),
    ("GEN-LAY-002", "warning", "all threads of one session use the same layout"),
    ("IDX-HDR-001", "error", "index file is at least 64 bytes and starts with \"ATI2\""),
    ("IDX-HDR-002", "error", "index header endian is 1"),
    ("IDX-HDR-003", "error", "index header version is 1 or 2"),
    ("IDX-HDR-004", "warning", "index header arch is 1 or 2"),
    ("IDX-HDR-005", "warning", "index header os is one of 1..5"),
    ("IDX-HDR-006", "warning", "index header clock_type is one of 1..3"),
    ("IDX-HDR-007", "warning", "index header flags other than bit 0 are 0"),
    ("IDX-HDR-008", "warning", "index header reserved bytes are 0"),
    ("IDX-HDR-009", "error", "index header event_size is 32"),
    ("IDX-HDR-010", "error", "index events_offset is at least 64 and inside the file"),
    ("IDX-HDR-011", "warning", "index events_offset is 64"),
    ("IDX-HDR-012", "error", "finalized index header event_count equals the footer's"),
    ("IDX-HDR-013", "error", "finalized index header footer_offset is events_offset + "
                             "event_count * 32 and a footer is there"),
    ("IDX-HDR-014", "error", "finalized index header time range equals the footer's"),
    ("IDX-HDR-015", "warning", "a file with its footer has a finalized header (not the placeholder)"),
    ("IDX-EVT-001", "error", "index event_kind is 1, 2 or 3"),
    ("IDX-EVT-002", "warning", "layout 2 index event reserved bytes are 0"),
    ("IDX-EVT-003", "error", "index timestamps do not decrease"),
    ("IDX-EVT-004", "warning", "layout 1 index event thread_id equals the header's"),
    ("IDX-EVT-005", "error", "linked detail_seq values strictly increase"),
    ("IDX-FTR-001", "error", "index footer event_count fits between events_offset and the footer"),
    ("IDX-FTR-002", "error", "index footer bytes_written is event_count * 32"),
    ("IDX-FTR-003", "error", "index footer time range equals the first and last event's"),
    ("IDX-FTR-004", "warning", "index footer reserved bytes are 0"),
    ("IDX-FTR-005", "error", "index footer follows the last event and ends the file"),
    ("DET-HDR-001", "error", "detail file is at least 64 bytes and starts with \"ATD2\""),
    ("DET-HDR-002", "error", "detail header endian is 1"),
    ("DET-HDR-003", "error", "detail header version is 1 or 2"),
    ("DET-HDR-004", "warning", "detail header arch is 1 or 2 and os one of 1..5"),
    ("DET-HDR-005", "warning", "detail header flags and reserved bytes are 0"),
    ("DET-HDR-006", "error", "detail events_offset is at least 64 and inside the file"),
    ("DET-HDR-007", "error", "finalized detail header event_count and bytes_length equal the "
                             "footer's and locate it"),
    ("DET-HDR-008", "error", "finalized detail header index_seq_start/end equal the first/last "
                             "event's"),
    ("DET-HDR-009", "warning", "a detail file with its footer and events has a finalized header"),
    ("DET-EVT-001", "error", "detail event total_length is at least 24"),
    ("DET-EVT-002", "error", "detail event lies inside the events section"),
    ("DET-EVT-003", "warning", "detail event_type is 3 or 4"),
    ("DET-EVT-004", "error", "detail timestamps do not decrease"),
    ("DET-EVT-005", "error", "detail index_seq values strictly increase"),
    ("DET-EVT-006", "warning", "layout 1 detail event thread_id equals the header's"),
    ("DET-FTR-001", "error", "detail footer event_count equals the events in the section"),
    ("DET-FTR-002", "error", "detail footer bytes_length equals the events section size"),
    ("DET-FTR-003", "error", "detail footer time range equals the first and last event's"),
    ("DET-FTR-004", "warning", "detail footer reserved bytes are 0"),
    ("DET-FTR-005", "error", "nothing follows the detail footer"),
    ("ARM-PAY-001", "error", "ARM64 payload is at least 100 bytes"),
    ("ARM-PAY-002", "error", "ARM64 stack_size is at most 256"),
    ("ARM-PAY-003", "error", "ARM64 payload is exactly 100 + stack_size bytes"),
    ("ARM-PAY-004", "warning", "ARM64 payload reserved u16 is 0"),
    ("ARM-PAY-005", "error", "ARM64 payload function_id equals the linked index event's"),
    ("LINK-001", "error", "detail_seq is below the detail event count (warning when the "
                          "detail file is crash-truncated)"),
    ("LINK-002", "error", "the linked detail event links back"),
    ("LINK-003", "error", "index_seq is below the index event count (warning when the index "
                          "file is crash-truncated)"),
    ("LINK-004", "error", "the linked index event links forward"),
    ("LINK-005", "error", "finalized has_detail_file flag is set exactly when detail.atf exists"),
    ("LINK-006", "error", "without a detail file every detail_seq is the sentinel"),
    ("LINK-007", "warning", "linked detail and index timestamps are equal"),
    ("LINK-008", "error", "detail and index header thread_id are equal"),
    ("SES-MAN-001", "warning", "the session has manifest.json"),
    ("SES-MAN-002", "error", "manifest.json is a valid JSON object of the section 5 schema"),
    ("SES-MAN-003", "error", "every listed thread has thread_<id>/index.atf"),
    ("SES-MAN-004", "warning", "every thread_<id>/ directory is listed"),
    ("SES-MAN-005", "warning", "has_detail agrees with the presence of detail.atf"),
    ("SES-MAN-006", "warning", "time_start_ns/time_end_ns are set for a session with events"),
    ("SES-MAN-007", "error", "the manifest time range covers every thread's events"),
    ("SES-MAN-008", "warning", "manifest clock_type equals the index headers'"),
    ("SES-MAN-009", "warning", "format_version is \"2.0\" or \"2.1\""),
    ("SES-MAN-010", "warning", "events_dropped is 0"),
    ("SES-MAN-011", "warning", "the session has at least one thread"),
    ("SES-MAN-012", "warning", "each function_id appears at most once in symbols"),
    ("SES-MAN-013", "error", "a number in a typed key is an integer in the key's range"),
    ("REC-001", "warning", "a file without a footer is crash-truncated: events recovered"),
    ("REC-002", "warning", "a partial trailing record is ignored and reported"),
    ("REC-003", "warning", "a torn footer is not read as an event"),
    ("REC-004", "error", "a finalized header without a footer is damage"),
    ("REC-005", "error", "the bytes after recovered events are a partial record, a torn footer "
                         "or zero bytes"),
    ("CRC-001", "error", "layout 2 non-zero checksum is the CRC32-C of the events section"),
    ("CRC-002", "error", "layout 1 non-zero checksum is the CRC32-C or CRC32/IEEE of the "
                         "events section"),
    ("CRC-003", "warning", "layout 2 writers write a checksum"),
)
SEVERITY = severities(CLAUSES)
GROUPS = ("GEN", "IDX", "DET", "ARM", "LINK", "SES", "REC", "CRC")

# Header clauses that apply to every readable header, whatever its values.
_IDX_HEADER_CLAUSES = ("IDX-HDR-001", "IDX-HDR-002", "IDX-HDR-003", "IDX-HDR-004", "IDX-HDR-005",
                       "IDX-HDR-006", "IDX-HDR-007", "IDX-HDR-008", "IDX-HDR-009",
                       "IDX-HDR-010", "IDX-HDR-011")
_DET_HEADER_CLAUSES = ("DET-HDR-001", "DET-HDR-002", "DET-HDR-003", "DET-HDR-004",
                       "DET-HDR-005", "DET-HDR-006")


# ---- Index file -------------------------------------------------------------

class IndexEv:
    __slots__ = ("offset", "timestamp_ns", "function_id", "event_kind", "detail_seq",
                 "thread_id", "call_depth", "reserved")


class IndexInfo:
    """What the cross-lane and session checks need of a checked index file."""

    def __init__(self):
        self.layout = self.thread_id = self.clock_type = self.flags = None
        self.finalized = False
        self.recovered = False
        self.header_truncated = False
        self.events = None          # list of IndexEv, None when unreadable


def _truncated_header_info(rep, info, data, name):
    """SPEC 7a.12: a file cut inside its header (empty among them) that starts
    like a valid one: crash-truncated, 0 events (REC-001, a warning)."""
    rep.check("REC-001")
    rep.add("REC-001", name, 0, "header",
            "crash-truncated (the file ends inside its 64-byte header, at %d bytes): 0 events "
            "recovered" % len(data))
    rep.recovered.append((name, 0))
    info.header_truncated = info.recovered = True
    info.events = []
    return info


def _decode_index_event(data, off, layout):
    e = IndexEv()
    e.offset = off
    e.timestamp_ns = _u(data, off, 8)
    e.function_id = _u(data, off + 8, 8)
    if layout == LAYOUT_1:
        e.thread_id = _u(data, off + 16, 4)
        e.event_kind = _u(data, off + 20, 4)
        e.call_depth = _u(data, off + 24, 4)
        d = _u(data, off + 28, 4)
        e.detail_seq = None if d == NO_DETAIL_L1 else d
        e.reserved = 0
    else:
        d = _u(data, off + 16, 8)
        e.detail_seq = None if d == NO_DETAIL_L2 else d
        e.event_kind = data[off + 24]
        e.reserved = _u(data, off + 25, 7)
        e.thread_id = e.call_depth = None
    return e


def _open_header(rep, data, name, lane, magic, header_size, new_info):
    """The first checks of an index (``lane`` "IDX") or detail ("DET") file:
    magic and size (<lane>-HDR-001), endianness (-002), version (-003).
    Returns (info, None) to stop with ``info``: a file cut inside its header
    (recorded), or None when unreadable; (None, layout) to go on."""
    rep.check(lane + "-HDR-001")
    size = len(data)
    if header_prefix_ok(data, magic):
        return _truncated_header_info(rep, new_info(), data, name), None
    if size < header_size or data[0:4] != magic:
        if size < 4 or data[0:4] != magic:
            msg = "magic is %r, not \"%s\"" % (bytes(data[0:4]), magic.decode("ascii"))
        else:
            msg = "file is %d bytes, shorter than the 64-byte header" % size
        rep.add(lane + "-HDR-001", name, 0, "magic" if size >= 4 else "header", msg)
        return None, None
    rep.check(lane + "-HDR-002", lane + "-HDR-003")
    if data[4] != 1:
        rep.add(lane + "-HDR-002", name, 4, "endian", "endian is %d, not 1 (little-endian)" % data[4])
        return None, None
    layout = data[5]
    if layout not in (LAYOUT_1, LAYOUT_2):
        rep.add(lane + "-HDR-003", name, 5, "version", "version is %d, not 1 or 2" % layout)
        return None, None
    return None, layout


def check_index(rep, data, name, verify=True):
    """Checks one index file; returns an IndexInfo, or None when it is unreadable."""
    info, layout = _open_header(rep, data, name, "IDX", INDEX_MAGIC, INDEX_HEADER_SIZE, IndexInfo)
    if layout is None:
        return info
    size = len(data)
    rep.check(*_IDX_HEADER_CLAUSES)
    info = IndexInfo()
    info.layout = layout
    arch, os_, flags, tid, clock = data[6], data[7], _u(data, 8, 4), _u(data, 12, 4), data[16]
    info.thread_id, info.clock_type, info.flags = tid, clock, flags
    if layout == LAYOUT_1:
        reserved = data[17:24]
        event_size, hcount = _u(data, 24, 4), _u(data, 28, 4)
        es_off, cnt_off, res_range = 24, 28, "17..23"
    else:
        reserved = data[17:20]
        event_size, hcount = _u(data, 20, 4), _u(data, 24, 8)
        es_off, cnt_off, res_range = 20, 24, "17..19"
    eoff, foff, hts0, hts1 = _u(data, 32, 8), _u(data, 40, 8), _u(data, 48, 8), _u(data, 56, 8)
    if arch not in (1, 2):
        rep.add("IDX-HDR-004", name, 6, "arch", "arch is %d, not 1 (x86_64) or 2 (arm64)" % arch)
    if not 1 <= os_ <= 5:
        rep.add("IDX-HDR-005", name, 7, "os", "os is %d, not one of 1..5" % os_)
    if not 1 <= clock <= 3:
        rep.add("IDX-HDR-006", name, 16, "clock_type", "clock_type is %d, not one of 1..3" % clock)
    if flags & ~1:
        rep.add("IDX-HDR-007", name, 8, "flags", "reserved flag bits set: 0x%08x" % (flags & ~1))
    if any(reserved):
        rep.add("IDX-HDR-008", name, 17, "reserved",
                "reserved header bytes %s are not zero" % res_range)
    if event_size != INDEX_EVENT_SIZE:
        rep.add("IDX-HDR-009", name, es_off, "event_size", "event_size is %d, not 32" % event_size)
    if eoff < INDEX_HEADER_SIZE or eoff > size:
        rep.add("IDX-HDR-010", name, 32, "events_offset",
                "events_offset is %d, outside [64, %d] (the file size)" % (eoff, size))
        return None
    if eoff != INDEX_HEADER_SIZE:
        rep.add("IDX-HDR-011", name, 32, "events_offset", "events_offset is %d, not 64" % eoff)

    # SPEC 2.1: footer_offset 0, or a header describing an empty file
    # (footer_offset == events_offset, count and times 0, flag clear).
    finalized = not (foff == 0 or (foff == eoff and hcount == 0 and hts0 == 0 and hts1 == 0
                                   and not flags & 1))
    info.finalized = finalized
    # Footer location (section 6).
    fpos = None
    if finalized and eoff <= foff and foff + INDEX_FOOTER_SIZE <= size \
            and data[foff:foff + 4] == INDEX_FOOTER_MAGIC:
        fpos = foff
    else:
        # A placeholder's footer; a finalized header's too when it is not
        # where the header says (SPEC 6): the last 64 bytes, lined up.
        at = size - INDEX_FOOTER_SIZE
        if at >= eoff and (at - eoff) % INDEX_EVENT_SIZE == 0 and data[at:at + 4] == INDEX_FOOTER_MAGIC \
                and _u(data, at + 32, 8) == at - eoff:
            fpos = at

    count = None
    ftimes = None
    crc = None
    if fpos is not None:
        rep.check("IDX-FTR-001", "IDX-FTR-002", "IDX-FTR-004", "IDX-FTR-005")
        crc, fcount = _u(data, fpos + 4, 4), _u(data, fpos + 8, 8)
        ftimes = (_u(data, fpos + 16, 8), _u(data, fpos + 24, 8))
        written = _u(data, fpos + 32, 8)
        room = (fpos - eoff) // INDEX_EVENT_SIZE
        if fcount > room:
            rep.add("IDX-FTR-001", name, fpos + 8, "footer.event_count",
                    "footer claims %d events, the %d bytes before it hold at most %d"
                    % (fcount, fpos - eoff, room))
        else:
            count = fcount
            gap = fpos - (eoff + count * INDEX_EVENT_SIZE)
            after = size - (fpos + INDEX_FOOTER_SIZE)
            if gap:
                rep.add("IDX-FTR-005", name, eoff + count * INDEX_EVENT_SIZE, "footer",
                        "%d bytes between the last event and the footer" % gap)
            if after:
                rep.add("IDX-FTR-005", name, fpos + INDEX_FOOTER_SIZE, "footer",
                        "%d bytes after the footer" % after)
        if written != fcount * INDEX_EVENT_SIZE:
            rep.add("IDX-FTR-002", name, fpos + 32, "footer.bytes_written",
                    "bytes_written is %d, event_count * 32 is %d" % (written,
                                                                     fcount * INDEX_EVENT_SIZE))
        if any(data[fpos + 40:fpos + 64]):
            rep.add("IDX-FTR-004", name, fpos + 40, "footer.reserved",
                    "reserved footer bytes are not zero")
        rep.check("IDX-HDR-015")
        if not finalized and (fcount or foff != fpos):
            rep.add("IDX-HDR-015", name, 40, "footer_offset",
                    "the header is still the placeholder although the footer is at %d" % fpos)
        if finalized:
            rep.check("IDX-HDR-012", "IDX-HDR-013", "IDX-HDR-014")
            if hcount != fcount:
                rep.add("IDX-HDR-012", name, cnt_off, "event_count",
                        "header event_count is %d, the footer's is %d" % (hcount, fcount))
            if foff != eoff + hcount * INDEX_EVENT_SIZE or foff != fpos:
                rep.add("IDX-HDR-013", name, 40, "footer_offset",
                        "footer_offset is %d, events_offset + event_count * 32 is %d"
                        % (foff, eoff + hcount * INDEX_EVENT_SIZE))
            if (hts0, hts1) != ftimes:
                rep.add("IDX-HDR-014", name, 48, "time_start_ns",
                        "header time range [%d, %d] differs from the footer's [%d, %d]"
                        % (hts0, hts1, ftimes[0], ftimes[1]))
    else:
        rep.check("REC-001", "REC-002", "REC-003", "REC-004", "REC-005")
        end = foff if finalized and eoff <= foff <= size else size
        count = (end - eoff) // INDEX_EVENT_SIZE
        torn = False
        if count:
            last = eoff + (count - 1) * INDEX_EVENT_SIZE
            if data[last:last + 4] == INDEX_FOOTER_MAGIC and _u(data, last + 8, 8) == count - 1:
                count -= 1
                torn = True
        tail_at = eoff + count * INDEX_EVENT_SIZE
        tail = data[tail_at:end]
        info.recovered = True
        rep.recovered.append((name, count))
        note = ""
        if tail:
            note = ", %d trailing bytes ignored" % len(tail)
        if finalized:
            rep.check("IDX-HDR-013")
            rep.add("REC-004", name, 40, "footer_offset",
                    "damaged (the header is finalized, footer_offset %d, but no footer is there): "
                    "%d complete events recovered" % (foff, count))
            rep.add("IDX-HDR-013", name, 40, "footer_offset",
                    "no footer at footer_offset %d" % foff)
        else:
            rep.add("REC-001", name, tail_at, "footer",
                    "crash-truncated (no footer): %d complete events recovered%s" % (count, note))
        if torn:
            rep.add("REC-003", name, tail_at, "footer",
                    "torn footer (%d bytes) after the last event is not an event" % len(tail))
        elif tail and any(tail):
            rep.add("REC-002", name, tail_at, None,
                    "partial record of %d bytes after the last complete event ignored" % len(tail))

    if count is None:
        return info
    rep.check("IDX-EVT-001", "IDX-EVT-003", "IDX-EVT-005")
    if layout == LAYOUT_1:
        rep.check("IDX-EVT-004")
    else:
        rep.check("IDX-EVT-002")
    events = []
    agg = Aggregator(rep, name)
    prev_ts = prev_link = None
    for seq in range(count):
        off = eoff + seq * INDEX_EVENT_SIZE
        e = _decode_index_event(data, off, layout)
        events.append(e)
        if e.event_kind not in (1, 2, 3):
            agg.hit("IDX-EVT-001", off + (20 if layout == LAYOUT_1 else 24), "event_kind",
                    "event %d: event_kind is %d, not 1, 2 or 3" % (seq, e.event_kind))
        if layout == LAYOUT_2 and e.reserved:
            agg.hit("IDX-EVT-002", off + 25, "reserved",
                    "event %d: reserved bytes 25..31 are not zero" % seq)
        if layout == LAYOUT_1 and e.thread_id != tid:
            agg.hit("IDX-EVT-004", off + 16, "thread_id",
                    "event %d: thread_id %d differs from the header's %d" % (seq, e.thread_id, tid))
        if prev_ts is not None and e.timestamp_ns < prev_ts:
            agg.hit("IDX-EVT-003", off, "timestamp_ns",
                    "event %d: timestamp_ns %d is below the previous event's %d"
                    % (seq, e.timestamp_ns, prev_ts))
        prev_ts = e.timestamp_ns
        if e.detail_seq is not None:
            if prev_link is not None and e.detail_seq <= prev_link:
                agg.hit("IDX-EVT-005", off + (28 if layout == LAYOUT_1 else 16), "detail_seq",
                        "event %d: detail_seq %d does not increase (previous link %d)"
                        % (seq, e.detail_seq, prev_link))
            prev_link = e.detail_seq
    agg.flush()
    info.events = events
    if fpos is not None:
        rep.check("IDX-FTR-003")
        want = (events[0].timestamp_ns, events[-1].timestamp_ns) if events else (0, 0)
        if ftimes != want:
            rep.add("IDX-FTR-003", name, fpos + 16, "footer.time_start_ns",
                    "footer time range [%d, %d], the events' is [%d, %d]"
                    % (ftimes[0], ftimes[1], want[0], want[1]))
        _check_crc(rep, name, layout, crc, data[eoff:eoff + count * INDEX_EVENT_SIZE],
                   fpos + 4, verify)
    return info


def _check_crc(rep, name, layout, crc, section, offset, verify):
    if layout == LAYOUT_2:
        rep.check("CRC-003")
    if crc == 0:
        if layout == LAYOUT_2 and section:
            rep.add("CRC-003", name, offset, "footer.checksum",
                    "footer checksum is 0 (unchecked): layout 2 writers should write the CRC32-C")
        return
    if not verify:
        return
    if layout == LAYOUT_2:
        rep.check("CRC-001")
        if crc32c(section) != crc:
            rep.add("CRC-001", name, offset, "footer.checksum",
                    "checksum 0x%08x is not the CRC32-C 0x%08x of the %d-byte events section"
                    % (crc, crc32c(section), len(section)))
    else:
        rep.check("CRC-002")
        if crc32c(section) != crc and crc32_ieee(section) != crc:
            rep.add("CRC-002", name, offset, "footer.checksum",
                    "checksum 0x%08x is neither the CRC32-C 0x%08x nor the CRC32/IEEE 0x%08x of "
                    "the %d-byte events section"
                    % (crc, crc32c(section), crc32_ieee(section), len(section)))


# ---- Detail file ------------------------------------------------------------

class DetailEv:
    __slots__ = ("offset", "total_length", "event_type", "flags", "index_seq", "thread_id",
                 "timestamp", "payload")


class DetailInfo:
    def __init__(self):
        self.layout = self.thread_id = self.arch = None
        self.recovered = False
        self.header_truncated = False
        self.events = None          # list of DetailEv, None when the walk failed


def check_detail(rep, data, name, verify=True):
    """Checks one detail file; returns a DetailInfo, or None when it is unreadable."""
    info, layout = _open_header(rep, data, name, "DET", DETAIL_MAGIC, DETAIL_HEADER_SIZE, DetailInfo)
    if layout is None:
        return info
    size = len(data)
    rep.check(*_DET_HEADER_CLAUSES)
    info = DetailInfo()
    info.layout = layout
    arch, os_, flags, tid = data[6], data[7], _u(data, 8, 4), _u(data, 12, 4)
    info.arch, info.thread_id = arch, tid
    res16, eoff, hcount, hblen = _u(data, 16, 4), _u(data, 20, 8), _u(data, 28, 8), _u(data, 36, 8)
    s0, s1, res60 = _u(data, 44, 8), _u(data, 52, 8), _u(data, 60, 4)
    if arch not in (1, 2):
        rep.add("DET-HDR-004", name, 6, "arch", "arch is %d, not 1 (x86_64) or 2 (arm64)" % arch)
    if not 1 <= os_ <= 5:
        rep.add("DET-HDR-004", name, 7, "os", "os is %d, not one of 1..5" % os_)
    if flags:
        rep.add("DET-HDR-005", name, 8, "flags", "flags are 0x%08x, not 0" % flags)
    if res16:
        rep.add("DET-HDR-005", name, 16, "reserved", "reserved bytes 16..19 are not zero")
    if res60:
        rep.add("DET-HDR-005", name, 60, "reserved", "reserved bytes 60..63 are not zero")
    if eoff < DETAIL_HEADER_SIZE or eoff > size:
        rep.add("DET-HDR-006", name, 20, "events_offset",
                "events_offset is %d, outside [64, %d] (the file size)" % (eoff, size))
        return None

    finalized = hcount != 0 or hblen != 0
    fpos = None
    if finalized:
        at = eoff + hblen
        if at + DETAIL_FOOTER_SIZE <= size and data[at:at + 4] == DETAIL_FOOTER_MAGIC:
            fpos = at
    if fpos is None:
        at = size - DETAIL_FOOTER_SIZE
        if at >= eoff and data[at:at + 4] == DETAIL_FOOTER_MAGIC \
                and _u(data, at + 16, 8) == at - eoff:
            fpos = at

    events = []
    walk_ok = True
    agg = Aggregator(rep, name)
    if fpos is not None:
        rep.check("DET-EVT-001", "DET-EVT-002", "DET-FTR-002", "DET-FTR-004", "DET-FTR-005")
        crc, fcount, fblen = _u(data, fpos + 4, 4), _u(data, fpos + 8, 8), _u(data, fpos + 16, 8)
        ftimes = (_u(data, fpos + 24, 8), _u(data, fpos + 32, 8))
        if fblen != fpos - eoff:
            rep.add("DET-FTR-002", name, fpos + 16, "footer.bytes_length",
                    "bytes_length is %d, the events section (events_offset to footer) is %d bytes"
                    % (fblen, fpos - eoff))
        if any(data[fpos + 40:fpos + 64]):
            rep.add("DET-FTR-004", name, fpos + 40, "footer.reserved",
                    "reserved footer bytes are not zero")
        if size > fpos + DETAIL_FOOTER_SIZE:
            rep.add("DET-FTR-005", name, fpos + DETAIL_FOOTER_SIZE, "footer",
                    "%d bytes after the footer" % (size - fpos - DETAIL_FOOTER_SIZE))
        rep.check("DET-HDR-009")
        if not finalized and fcount:
            rep.add("DET-HDR-009", name, 28, "event_count",
                    "the header is still the placeholder although the footer holds %d events" % fcount)
        if finalized:
            rep.check("DET-HDR-007")
            if hcount != fcount or hblen != fblen:
                rep.add("DET-HDR-007", name, 28, "event_count",
                        "header event_count/bytes_length %d/%d differ from the footer's %d/%d"
                        % (hcount, hblen, fcount, fblen))
        pos = eoff
        while pos < fpos:
            rem = fpos - pos
            if rem < DETAIL_EVENT_HEADER_SIZE:
                rep.add("DET-EVT-002", name, pos, "total_length",
                        "event %d: %d bytes left before the footer, less than an event header"
                        % (len(events), rem))
                walk_ok = False
                break
            total = _u(data, pos, 4)
            if total < DETAIL_EVENT_HEADER_SIZE:
                rep.add("DET-EVT-001", name, pos, "total_length",
                        "event %d: total_length is %d, below 24" % (len(events), total))
                walk_ok = False
                break
            if total > rem:
                rep.add("DET-EVT-002", name, pos, "total_length",
                        "event %d: total_length %d runs %d bytes past the events section"
                        % (len(events), total, total - rem))
                walk_ok = False
                break
            events.append(_decode_detail_event(data, pos, total, layout))
            pos += total
        if walk_ok:
            rep.check("DET-FTR-001", "DET-FTR-003")
            if fcount != len(events):
                rep.add("DET-FTR-001", name, fpos + 8, "footer.event_count",
                        "footer event_count is %d, the events section holds %d events"
                        % (fcount, len(events)))
            want = (events[0].timestamp, events[-1].timestamp) if events else (0, 0)
            if ftimes != want:
                rep.add("DET-FTR-003", name, fpos + 24, "footer.time_start_ns",
                        "footer time range [%d, %d], the events' is [%d, %d]"
                        % (ftimes[0], ftimes[1], want[0], want[1]))
            if finalized and events:
                rep.check("DET-HDR-008")
                if (s0, s1) != (events[0].index_seq, events[-1].index_seq):
                    rep.add("DET-HDR-008", name, 44, "index_seq_start",
                            "header index_seq range [%d, %d], the events' is [%d, %d]"
                            % (s0, s1, events[0].index_seq, events[-1].index_seq))
        _check_crc(rep, name, layout, crc, data[eoff:fpos], fpos + 4, verify)
    else:
        rep.check("REC-001", "REC-002", "REC-003", "REC-004", "REC-005")
        end = eoff + hblen if finalized and eoff + hblen <= size else size
        pos = eoff
        bad_length = None
        while end - pos >= DETAIL_EVENT_HEADER_SIZE:
            total = _u(data, pos, 4)
            if total < DETAIL_EVENT_HEADER_SIZE:
                if any(data[pos:end]):
                    bad_length = total
                break
            if total > end - pos:
                break
            events.append(_decode_detail_event(data, pos, total, layout))
            pos += total
        tail = data[pos:end]
        n = len(events)
        info.recovered = True
        rep.recovered.append((name, n))
        note = ", %d trailing bytes ignored" % len(tail) if tail else ""
        if finalized:
            rep.check("DET-HDR-007")
            rep.add("REC-004", name, 36, "bytes_length",
                    "damaged (the header is finalized, event_count %d, bytes_length %d, but no "
                    "footer is at events_offset + bytes_length): %d complete events recovered"
                    % (hcount, hblen, n))
            rep.add("DET-HDR-007", name, 36, "bytes_length",
                    "no footer at events_offset + bytes_length = %d" % (eoff + hblen))
        else:
            rep.add("REC-001", name, pos, "footer",
                    "crash-truncated (no footer): %d complete events recovered%s" % (n, note))
        if bad_length is not None:
            rep.add("REC-005", name, pos, "total_length",
                    "after the %d recovered events: a record with total_length %d (below 24), "
                    "neither a partial record, a torn footer nor zero bytes" % (n, bad_length))
        elif tail and tail[0:4] == DETAIL_FOOTER_MAGIC and len(tail) >= 16 \
                and _u(tail, 8, 8) == n:
            rep.add("REC-003", name, pos, "footer",
                    "torn footer (%d bytes) after the last event is not an event" % len(tail))
        elif tail and any(tail):
            rep.add("REC-002", name, pos, None,
                    "partial event of %d bytes after the last complete event ignored" % len(tail))

    # Per-event checks of the events read.
    rep.check("DET-EVT-003", "DET-EVT-004", "DET-EVT-005")
    if layout == LAYOUT_1:
        rep.check("DET-EVT-006")
    arm = arch == 2
    prev = None
    for k, e in enumerate(events):
        if e.event_type not in (3, 4):
            agg.hit("DET-EVT-003", e.offset + 4, "event_type",
                    "event %d: event_type is %d, not 3 or 4 (skipped by total_length)"
                    % (k, e.event_type))
        if layout == LAYOUT_1 and e.thread_id != tid:
            agg.hit("DET-EVT-006", e.offset + 12, "thread_id",
                    "event %d: thread_id %d differs from the header's %d" % (k, e.thread_id, tid))
        if prev is not None:
            if e.timestamp < prev.timestamp:
                agg.hit("DET-EVT-004", e.offset + 16, "timestamp",
                        "event %d: timestamp %d is below the previous event's %d"
                        % (k, e.timestamp, prev.timestamp))
            if e.index_seq <= prev.index_seq:
                agg.hit("DET-EVT-005", e.offset + 8, "index_seq",
                        "event %d: index_seq %d does not increase (previous %d)"
                        % (k, e.index_seq, prev.index_seq))
        prev = e
        if arm and e.event_type in (3, 4):
            rep.check("ARM-PAY-001", "ARM-PAY-002", "ARM-PAY-003", "ARM-PAY-004")
            p = e.payload
            po = e.offset + DETAIL_EVENT_HEADER_SIZE
            if len(p) < 100:
                agg.hit("ARM-PAY-001", po, "payload",
                        "event %d: ARM64 payload is %d bytes, below 100" % (k, len(p)))
                continue
            ss, res = _u(p, 96, 2), _u(p, 98, 2)
            if ss > 256:
                agg.hit("ARM-PAY-002", po + 96, "stack_size",
                        "event %d: stack_size is %d, above 256" % (k, ss))
            if len(p) != 100 + ss:
                agg.hit("ARM-PAY-003", po + 96, "stack_size",
                        "event %d: payload is %d bytes, 100 + stack_size is %d"
                        % (k, len(p), 100 + ss))
            if res:
                agg.hit("ARM-PAY-004", po + 98, "reserved",
                        "event %d: reserved u16 is 0x%04x, not 0" % (k, res))
    agg.flush()
    info.events = events if walk_ok else None
    return info


def _decode_detail_event(data, pos, total, layout):
    e = DetailEv()
    e.offset, e.total_length = pos, total
    e.event_type, e.flags = _u(data, pos + 4, 2), _u(data, pos + 6, 2)
    if layout == LAYOUT_1:
        e.index_seq, e.thread_id = _u(data, pos + 8, 4), _u(data, pos + 12, 4)
    else:
        e.index_seq, e.thread_id = _u(data, pos + 8, 8), None
    e.timestamp = _u(data, pos + 16, 8)
    e.payload = bytes(data[pos + DETAIL_EVENT_HEADER_SIZE:pos + total])
    return e


# ---- Thread (cross-lane) ------------------------------------------------------

def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError("%s: %s" % (path, e.strerror or e))


def check_thread(rep, tdir, prefix, verify=True, need_index=True):
    """Checks thread directory ``tdir``; file names are ``prefix`` + index.atf /
    detail.atf. Returns (IndexInfo or None, detail exists)."""
    iname, dname = prefix + "index.atf", prefix + "detail.atf"
    ipath, dpath = os.path.join(tdir, "index.atf"), os.path.join(tdir, "detail.atf")
    idx = det = None
    has_index = os.path.isfile(ipath)
    has_detail = os.path.isfile(dpath)
    if has_index:
        idx = check_index(rep, _read(ipath), iname, verify)
    elif need_index:
        raise UsageError("%s: no index.atf" % tdir)
    if has_detail:
        det = check_detail(rep, _read(dpath), dname, verify)
    if idx is not None and det is not None and not idx.header_truncated and not det.header_truncated:
        rep.check("GEN-LAY-001", "LINK-008")
        if idx.layout != det.layout:
            rep.add("GEN-LAY-001", dname, 5, "version",
                    "detail.atf uses layout %d, index.atf layout %d" % (det.layout, idx.layout))
        if det.thread_id != idx.thread_id:
            rep.add("LINK-008", dname, 12, "thread_id",
                    "detail header thread_id %d differs from the index header's %d"
                    % (det.thread_id, idx.thread_id))
    if idx is not None and idx.finalized:
        rep.check("LINK-005")
        flag = bool(idx.flags & 1)
        if flag != has_detail:
            rep.add("LINK-005", iname, 8, "flags",
                    "has_detail_file is %d but detail.atf %s" % (
                        flag, "exists" if has_detail else "does not exist"))
    if idx is not None and idx.events is not None and not has_detail:
        rep.check("LINK-006")
        bad = [(s, e) for s, e in enumerate(idx.events) if e.detail_seq is not None]
        if bad:
            s, e = bad[0]
            rep.add("LINK-006", iname, e.offset + (28 if idx.layout == LAYOUT_1 else 16),
                    "detail_seq", "event %d links to detail event %d but there is no detail.atf%s"
                    % (s, e.detail_seq, " (%d events in all)" % len(bad) if len(bad) > 1 else ""))
    if idx is not None and det is not None and idx.events is not None and det.events is not None:
        _check_links(rep, idx, det, iname, dname)
    return idx, has_detail


def _check_links(rep, idx, det, iname, dname):
    rep.check("LINK-001", "LINK-002", "LINK-003", "LINK-004", "LINK-007")
    ievs, devs = idx.events, det.events
    ia, da = Aggregator(rep, iname), Aggregator(rep, dname)
    ds_off = 28 if idx.layout == LAYOUT_1 else 16
    for s, e in enumerate(ievs):
        d = e.detail_seq
        if d is None:
            continue
        if d >= len(devs):
            if det.recovered:
                ia.hit("LINK-001", e.offset + ds_off, "detail_seq",
                       "event %d links to detail event %d, past the %d events recovered from the "
                       "crash-truncated detail file" % (s, d, len(devs)), "warning")
            else:
                ia.hit("LINK-001", e.offset + ds_off, "detail_seq",
                       "event %d links to detail event %d, the detail file has %d events"
                       % (s, d, len(devs)))
        elif devs[d].index_seq != s:
            ia.hit("LINK-002", e.offset + ds_off, "detail_seq",
                   "event %d links to detail event %d, which links back to index event %d"
                   % (s, d, devs[d].index_seq))
    arm = det.arch == 2
    if arm:
        rep.check("ARM-PAY-005")
    for k, d in enumerate(devs):
        i = d.index_seq
        if i >= len(ievs):
            if idx.recovered:
                da.hit("LINK-003", d.offset + 8, "index_seq",
                       "detail event %d links to index event %d, past the %d events recovered "
                       "from the crash-truncated index file" % (k, i, len(ievs)), "warning")
            else:
                da.hit("LINK-003", d.offset + 8, "index_seq",
                       "detail event %d links to index event %d, the index file has %d events"
                       % (k, i, len(ievs)))
            continue
        ie = ievs[i]
        if ie.detail_seq != k:
            da.hit("LINK-004", d.offset + 8, "index_seq",
                   "detail event %d links to index event %d, which links to %s"
                   % (k, i, "no detail event" if ie.detail_seq is None
                      else "detail event %d" % ie.detail_seq))
            continue
        if d.timestamp != ie.timestamp_ns:
            da.hit("LINK-007", d.offset + 16, "timestamp",
                   "detail event %d: timestamp %d differs from index event %d's %d"
                   % (k, d.timestamp, i, ie.timestamp_ns))
        if arm and d.event_type in (3, 4) and len(d.payload) >= 100:
            fid = _u(d.payload, 0, 8)
            if fid != ie.function_id:
                da.hit("ARM-PAY-005", d.offset + DETAIL_EVENT_HEADER_SIZE, "function_id",
                       "detail event %d: payload function_id 0x%x differs from index event %d's "
                       "0x%x" % (k, fid, i, ie.function_id))
    ia.flush()
    da.flush()


# ---- Manifest and session ---------------------------------------------------

class _Manifest:
    def __init__(self):
        self.parsed = False          # a JSON object could be read
        self.threads = None          # [(id, has_detail or None)], None: unusable
        self.values = {}             # root key -> parsed value (only when well-typed)
        self.invalid = set()         # fields present with a wrong type or value
        self.symbols = {}


def _dup_hook(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        dups = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError("duplicate key(s) %s in one object" % ", ".join(map(repr, dups)))
    return dict(pairs)


def _no_constant(name):
    raise ValueError("%s is not JSON (RFC 8259)" % name)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_manifest(rep, raw, name):
    """Checks manifest.json (SES-MAN-002 and the key types); returns a _Manifest."""
    rep.check("SES-MAN-002")
    rep.check("SES-MAN-013")
    m = _Manifest()

    def out_of_range(field, msg):
        m.invalid.add(field)
        rep.add("SES-MAN-013", name, None, field, msg)

    def bad(field, msg):
        m.invalid.add(field)
        rep.add("SES-MAN-002", name, None, field, msg)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        bad(None, "not UTF-8: %s" % e)
        return m
    try:
        root = json.loads(text, object_pairs_hook=_dup_hook, parse_constant=_no_constant,
                          parse_float=JsonReal)
    except ValueError as e:
        bad(None, "not valid JSON: %s" % e)
        return m
    if not isinstance(root, dict):
        bad(None, "the root is a JSON %s, not an object" % type(root).__name__)
        return m
    m.parsed = True

    def u64(obj, key, field, required=False, maximum=None):
        if key not in obj:
            if required:
                bad(field, "%s is required" % field)
            return None
        try:
            v = parse_u64(obj[key])
        except U64RangeError as e:
            out_of_range(field, "%s: %s" % (field, e))
            return None
        except ValueError as e:
            bad(field, "%s: %s" % (field, e))
            return None
        if maximum is not None and v > maximum:
            out_of_range(field, "%s is %d, above %d" % (field, v, maximum))
            return None
        return v

    def string(obj, key, field, required=False):
        if key not in obj:
            if required:
                bad(field, "%s is required" % field)
            return None
        if not isinstance(obj[key], str):
            bad(field, "%s must be a string" % field)
            return None
        if "\0" in obj[key]:
            bad(field, "%s holds U+0000" % field)
            return None
        return obj[key]

    def array(key):
        if key not in root:
            return None
        v = root[key]
        if not isinstance(v, list):
            bad(key, "%s must be an array" % key)
            return None
        out = []
        for i, o in enumerate(v):
            if isinstance(o, dict):
                out.append(o)
            else:
                bad("%s[%d]" % (key, i), "%s[%d] must be an object" % (key, i))
        return out

    threads = root.get("threads")
    if "threads" not in root:
        bad("threads", "threads is required")
    elif not isinstance(threads, list):
        bad("threads", "threads must be an array")
    else:
        seen = set()
        m.threads = []
        for i, t in enumerate(threads):
            f = "threads[%d]" % i
            if not isinstance(t, dict):
                bad(f, "%s must be an object" % f)
                continue
            tid = u64(t, "id", f + ".id", required=True)
            hd = None
            if "has_detail" in t:
                if isinstance(t["has_detail"], bool):
                    hd = t["has_detail"]
                else:
                    bad(f + ".has_detail", "%s.has_detail must be true or false" % f)
            if tid is None:
                continue
            if tid in seen:
                bad(f + ".id", "thread id %d is listed twice" % tid)
                continue
            seen.add(tid)
            m.threads.append((tid, hd))
    for key in ("time_start_ns", "time_end_ns", "events_dropped"):
        v = u64(root, key, key)
        if v is not None:
            m.values[key] = v
    v = u64(root, "clock_type", "clock_type", maximum=255)
    if v is not None:
        m.values["clock_type"] = v
    v = string(root, "format_version", "format_version")
    if v is not None:
        m.values["format_version"] = v
    for i, o in enumerate(array("modules") or []):
        f = "modules[%d]" % i
        u64(o, "module_id", f + ".module_id", required=True)
        u64(o, "base_address", f + ".base_address")
        u64(o, "size", f + ".size")
        string(o, "path", f + ".path")
        string(o, "uuid", f + ".uuid")
    if "symbols" in root:
        rep.check("SES-MAN-012")
    array("symbols")   # its shape (SES-MAN-002)
    first_at = {}
    for i, o in enumerate(root.get("symbols") if isinstance(root.get("symbols"), list) else []):
        if not isinstance(o, dict):
            continue
        f = "symbols[%d]" % i
        fid = u64(o, "function_id", f + ".function_id", required=True)
        u64(o, "module_id", f + ".module_id")
        u64(o, "symbol_index", f + ".symbol_index")
        nm = string(o, "name", f + ".name", required=True)
        if fid is not None and fid in first_at:
            rep.add("SES-MAN-012", name, None, f + ".function_id",
                    "function_id %d appears again (first at symbols[%d])" % (fid, first_at[fid]))
        elif fid is not None:
            first_at[fid] = i
        if fid is not None and nm is not None and fid not in m.symbols:
            m.symbols[fid] = nm
    for i, o in enumerate(array("timing_anchors") or []):
        f = "timing_anchors[%d]" % i
        u64(o, "host_time_ns", f + ".host_time_ns")
        for key, lo, hi, what in (("media_time_value", -(1 << 63), (1 << 63) - 1, "an i64 integer"),
                                  ("media_time_scale", 1, (1 << 31) - 1, "an i32 integer above 0")):
            if key not in o:
                continue
            v = o[key]
            if isinstance(v, float) or (_is_int(v) and not lo <= v <= hi):
                out_of_range(f + "." + key, "%s.%s: %s is not %s" % (
                    f, key, v.text if isinstance(v, JsonReal) else v, what))
            elif not _is_int(v):
                bad(f + "." + key, "%s.%s must be %s" % (f, key, what))
    return m


_THREAD_DIR = re.compile(r"thread_(0|[1-9][0-9]*)")
_MANIFEST_MAX = 64 << 20   # SPEC 5: a larger manifest is not read (nor judged a cut)


def check_session(rep, sdir, prefix, verify=True):
    mname = prefix + "manifest.json"
    rep.rank(mname, (0,))
    mpath = os.path.join(sdir, "manifest.json")
    rep.check("SES-MAN-001", "SES-MAN-011")
    manifest = None
    if os.path.isfile(mpath) and os.path.getsize(mpath) == 0:
        # SPEC 7a.14: killed while writing it: as if absent.
        rep.add("SES-MAN-001", mname, None, None,
                "manifest.json is empty (a crash while it was being written)")
    elif os.path.isfile(mpath):
        raw = _read(mpath)
        cut, text_len, _ = manifest_cut(raw) if len(raw) <= _MANIFEST_MAX else (False, 0, None)
        if cut:
            # SPEC 7a.14: a power cut while it was being replaced left the
            # start of the new text (and zeros): as if absent.
            tail = ", then zeros" if text_len < len(raw) else ""
            rep.add("SES-MAN-001", mname, None, None,
                    "manifest.json is cut at byte %d of %d (a crash while it was being written: a "
                    "proper prefix of a JSON object%s): read as absent, thread directories are "
                    "discovered" % (text_len, len(raw), tail))
            rep.check("REC-001")
            rep.add("REC-001", mname, text_len, None,
                    "crash-truncated manifest.json (%d bytes of JSON text%s): nothing recovered "
                    "from it" % (text_len, " and a tail of NUL bytes" if tail else ""))
        else:
            manifest = check_manifest(rep, raw, mname)
    else:
        rep.add("SES-MAN-001", prefix or ".", None, None,
                "no manifest.json: thread directories were discovered")
    dirs = {}
    for name in sorted(os.listdir(sdir)):
        mt = _THREAD_DIR.fullmatch(name)
        if mt and os.path.isdir(os.path.join(sdir, name)):
            dirs[int(mt.group(1))] = name
    listed = {}
    if manifest is not None and manifest.threads is not None:
        listed = dict(manifest.threads)
        rep.check("SES-MAN-003", "SES-MAN-004", "SES-MAN-005")
        for tid in sorted(listed):
            tname = "thread_%d" % tid
            rep.rank(prefix + tname, (1, tid, -1))
            if not os.path.isfile(os.path.join(sdir, tname, "index.atf")):
                rep.add("SES-MAN-003", mname, None, "threads",
                        "thread %d is listed but %s/index.atf does not exist" % (tid, tname))
        for tid in sorted(set(dirs) - set(listed)):
            rep.rank(prefix + dirs[tid], (1, tid, -1))
            rep.add("SES-MAN-004", prefix + dirs[tid], None, None,
                    "directory %s is not listed in manifest.json" % dirs[tid])
    ids = sorted(set(dirs) | set(listed))
    if not ids:
        # (the manifest's file when there is one, read or not; the field
        # when its threads list could be read: as the C validator says it)
        rep.add("SES-MAN-011", mname if os.path.isfile(mpath) else prefix or ".", None,
                "threads" if manifest is not None and manifest.threads is not None else None,
                "the session has no thread: none listed and no thread_<id> directory")
    infos = []
    for tid in ids:
        tname = "thread_%d" % tid
        tdir = os.path.join(sdir, tname)
        if not os.path.isdir(tdir):
            continue
        tp = prefix + tname + "/"
        rep.rank(tp + "index.atf", (1, tid, 0))
        rep.rank(tp + "detail.atf", (1, tid, 1))
        if tid not in listed and not os.path.isfile(os.path.join(tdir, "index.atf")):
            if os.path.isfile(os.path.join(tdir, "detail.atf")):
                rep.check("SES-MAN-003")
                rep.add("SES-MAN-003", tp + "index.atf", None, None,
                        "directory %s has no index.atf" % tname)
            else:
                # SPEC 7a.14: killed between mkdir and creating index.atf.
                rep.check("REC-001")
                rep.add("REC-001", tp + "index.atf", None, None,
                        "crash-truncated (the thread directory holds no file yet): 0 events recovered")
                rep.recovered.append((tp + "index.atf", 0))
        idx, has_detail = check_thread(rep, tdir, tp, verify, need_index=False)
        hd = listed.get(tid)
        if hd is not None and hd != has_detail:
            rep.add("SES-MAN-005", mname, None, "threads",
                    "thread %d: has_detail is %s but %s/detail.atf %s"
                    % (tid, "true" if hd else "false", tname,
                       "exists" if has_detail else "does not exist"))
        if idx is not None and not idx.header_truncated:   # no header fields to compare
            infos.append((tid, idx))
    # Session-wide checks over the threads whose index file could be read.
    layouts = sorted({i.layout for _, i in infos})
    rep.check("GEN-LAY-002")
    if len(layouts) > 1:
        where = [prefix + "thread_%d/index.atf" % tid for tid, i in infos
                 if i.layout == layouts[-1]][0]
        rep.add("GEN-LAY-002", where, 5, "version",
                "threads use layouts %s" % " and ".join(str(x) for x in layouts))
    if manifest is None or not manifest.parsed:
        return
    v = manifest.values
    with_events = [(tid, i) for tid, i in infos if i.events]
    rep.check("SES-MAN-006", "SES-MAN-007", "SES-MAN-008", "SES-MAN-009", "SES-MAN-010")
    if with_events:
        first = min(i.events[0].timestamp_ns for _, i in with_events)
        last = max(i.events[-1].timestamp_ns for _, i in with_events)
        t0, t1 = v.get("time_start_ns", 0), v.get("time_end_ns", 0)
        # 0 means "unset", except where it is the true value (an event at 0).
        unset = [k for k, real in (("time_start_ns", first), ("time_end_ns", last))
                 if v.get(k, 0) == 0 and real != 0 and k not in manifest.invalid]
        if unset:
            rep.add("SES-MAN-006", mname, None, unset[0],
                    "%s unset (0) although the session has events" % " and ".join(unset))
        if t0 and t0 > first:
            rep.add("SES-MAN-007", mname, None, "time_start_ns",
                    "time_start_ns %d is after the first event (%d)" % (t0, first))
        if t1 and t1 < last:
            rep.add("SES-MAN-007", mname, None, "time_end_ns",
                    "time_end_ns %d is before the last event (%d)" % (t1, last))
    if "clock_type" in v:
        for tid, i in infos:
            if i.clock_type != v["clock_type"]:
                rep.add("SES-MAN-008", mname, None, "clock_type",
                        "clock_type is %d, thread %d's index header says %d"
                        % (v["clock_type"], tid, i.clock_type))
    if "format_version" in v and v["format_version"] not in ("2.0", "2.1"):
        rep.add("SES-MAN-009", mname, None, "format_version",
                "format_version is %r, not \"2.0\" or \"2.1\"" % v["format_version"])
    if v.get("events_dropped", 0):
        rep.add("SES-MAN-010", mname, None, "events_dropped",
                "events_dropped is %d: the recording is lossy" % v["events_dropped"])


# ---- Entry points -------------------------------------------------------------

_PID_DIR = re.compile(r"pid_[0-9]+")


def _file_kind(path):
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic == INDEX_MAGIC:
        return "index"
    if magic == DETAIL_MAGIC:
        return "detail"
    base = os.path.basename(path)
    if base == "index.atf":
        return "index"
    if base == "detail.atf":
        return "detail"
    raise UsageError("%s: not an ATF file (magic is neither \"ATI2\" nor \"ATD2\", and the name "
                     "is neither index.atf nor detail.atf)" % path)


def validate(path, strict=False, verify=True):
    """Report of validating ``path``: an index file, a detail file, a thread
    directory, a session directory, or a directory holding one pid_N session.
    Raises UsageError when the path is none of these."""
    rep = Report(path, strict, SEVERITY)
    if os.path.isfile(path):
        kind = _file_kind(path)
        name = os.path.basename(path)
        if kind == "index":
            check_index(rep, _read(path), name, verify)
        else:
            check_detail(rep, _read(path), name, verify)
        return rep
    if not os.path.isdir(path):
        raise UsageError("%s: no such file or directory" % path)
    if os.path.isfile(os.path.join(path, "index.atf")):
        rep.rank("index.atf", (1, 0, 0))
        rep.rank("detail.atf", (1, 0, 1))
        check_thread(rep, path, "", verify)
        return rep
    entries = sorted(os.listdir(path))
    if "manifest.json" in entries or any(
            _THREAD_DIR.fullmatch(e) and os.path.isdir(os.path.join(path, e)) for e in entries):
        check_session(rep, path, "", verify)
        return rep
    pids = [e for e in entries if _PID_DIR.fullmatch(e) and os.path.isdir(os.path.join(path, e))]
    if len(pids) == 1:
        check_session(rep, os.path.join(path, pids[0]), pids[0] + "/", verify)
        return rep
    raise UsageError("%s: %s" % (path, "holds %d pid_* sessions: name one of them" % len(pids)
                                 if pids else "holds no index.atf, manifest.json, thread_* or "
                                              "pid_* entries"))


def list_clauses():
    return clause_lines(CLAUSES)


def validate_path(path):
    """(errors, warnings): the findings of :func:`validate` as message strings."""
    try:
        rep = validate(path)
    except UsageError as e:
        return [str(e)], []
    errors, warnings = [], []
    for f in rep.sorted_findings():
        s = "%s %s: %s" % (f.clause, f.file, f.message)
        (errors if f.severity == "error" else warnings).append(s)
    return errors, warnings


def validate_thread(tdir, manifest_has_detail=None):
    """(errors, warnings) of one thread directory (older API)."""
    return validate_path(tdir)
