"""Whole index and detail files: writers (finalized or crash-truncated) and
readers with crash recovery.

Writers
  * finalized: final header, events, footer. Index header: event_count,
    events_offset 64, footer_offset 64 + n*32, time_start_ns/time_end_ns of the
    first/last event, flags bit 0 when the thread has a detail file. Detail
    header: events_offset 64, event_count, bytes_length, index_seq_start/end of
    the first/last event, flags 0. Footers carry the count, times, length and
    the checksum of the events section.
  * placeholder (crash): the header as first written (index: event_count 0,
    footer_offset 0, times 0; detail: event_count 0, bytes_length 0,
    index_seq_start/end 0), the events, no footer. Cut it anywhere with
    ``data[:n]``. (``adawriter`` models the ADA tracer's C writer, whose index
    placeholder says footer_offset 64.)

Readers (recovery rules, SPEC.md section 6)
  * a header is a placeholder or finalized (``index_header_is_placeholder``);
    a file shorter than its header that starts like a valid one is
    crash-truncated with 0 events;
  * the footer is where a finalized header says, else the last 64 bytes when
    their magic and byte count agree with the events before them; it is
    authoritative; a count that needs more bytes than the file holds is an error;
  * no footer: index count = floor((end - events_offset) / 32) less a torn
    footer (REC-003); detail: the complete length-prefixed events from
    events_offset on;
  * footer checksum 0 is unchecked; otherwise CRC32-C must match (layout 1 also
    accepts CRC32/IEEE).
"""

from dataclasses import dataclass
from typing import List, Optional, Tuple

from .crc import (CHECKSUM_CRC32_IEEE, CHECKSUM_CRC32C, CHECKSUM_KINDS,
                  compute_checksum, crc32_ieee, crc32c)
from .records import (DETAIL_EVENT_HEADER_SIZE, DETAIL_FOOTER_MAGIC, DETAIL_FOOTER_SIZE,
                      DETAIL_HEADER_SIZE, DETAIL_MAGIC, INDEX_MAGIC, INDEX_EVENT_SIZE, INDEX_FLAG_HAS_DETAIL_FILE,
                      INDEX_FOOTER_MAGIC, INDEX_FOOTER_SIZE, INDEX_HEADER_SIZE, LAYOUT_1,
                      AtfFormatError, DetailEvent, DetailFooter, DetailHeader, IndexEvent,
                      IndexFooter, IndexHeader)

# Checksum states reported by readers.
STATE_NO_FOOTER = "no_footer"
STATE_ZERO = "zero"
STATE_CRC32C = "crc32c"
STATE_CRC32_IEEE = "crc32"


def _check_checksum_kind(kind, layout):
    if kind not in CHECKSUM_KINDS:
        raise ValueError("unknown checksum kind %r" % (kind,))
    if kind == CHECKSUM_CRC32_IEEE and layout != LAYOUT_1:
        raise ValueError("CRC32/IEEE checksums exist only in layout 1")


# ---- Writers --------------------------------------------------------------

def build_index_file(events, *, layout, arch, os, clock_type, thread_id, has_detail_file,
                     checksum=CHECKSUM_CRC32C, finalized=True, flags=None,
                     events_offset=INDEX_HEADER_SIZE):
    """Bytes of an index file holding ``events`` (list of IndexEvent).

    ``flags`` overrides the header flags (default: bit 0 = has_detail_file).
    ``events_offset`` above 64 leaves zero bytes between header and events."""
    _check_checksum_kind(checksum, layout)
    body = b"".join(ev.encode(layout) for ev in events)
    if flags is None:
        flags = INDEX_FLAG_HAS_DETAIL_FILE if has_detail_file else 0
    n = len(events)
    ts0 = events[0].timestamp_ns if n else 0
    ts1 = events[-1].timestamp_ns if n else 0
    if events_offset < INDEX_HEADER_SIZE:
        raise ValueError("events_offset %d is below 64" % events_offset)
    header = IndexHeader(version=layout, arch=arch, os=os, flags=flags, thread_id=thread_id,
                         clock_type=clock_type, events_offset=events_offset)
    pad = bytes(events_offset - INDEX_HEADER_SIZE)
    if not finalized:
        return header.encode() + pad + body
    header.event_count = n
    header.footer_offset = events_offset + len(body)
    header.time_start_ns, header.time_end_ns = ts0, ts1
    footer = IndexFooter(checksum=compute_checksum(checksum, body), event_count=n,
                         time_start_ns=ts0, time_end_ns=ts1, bytes_written=len(body))
    return header.encode() + pad + body + footer.encode()


def build_detail_file(events, *, layout, arch, os, thread_id, checksum=CHECKSUM_CRC32C,
                      finalized=True, events_offset=DETAIL_HEADER_SIZE):
    """Bytes of a detail file holding ``events`` (list of DetailEvent), back to back."""
    _check_checksum_kind(checksum, layout)
    body = b"".join(ev.encode(layout) for ev in events)
    if events_offset < DETAIL_HEADER_SIZE:
        raise ValueError("events_offset %d is below 64" % events_offset)
    header = DetailHeader(version=layout, arch=arch, os=os, flags=0, thread_id=thread_id,
                          events_offset=events_offset)
    pad = bytes(events_offset - DETAIL_HEADER_SIZE)
    if not finalized:
        return header.encode() + pad + body
    n = len(events)
    header.event_count = n
    header.bytes_length = len(body)
    header.index_seq_start = events[0].index_seq if n else 0
    header.index_seq_end = events[-1].index_seq if n else 0
    footer = DetailFooter(checksum=compute_checksum(checksum, body), event_count=n,
                          bytes_length=len(body),
                          time_start_ns=events[0].timestamp if n else 0,
                          time_end_ns=events[-1].timestamp if n else 0)
    return header.encode() + pad + body + footer.encode()


def detail_offsets(events, events_offset=DETAIL_HEADER_SIZE):
    """File offsets of each event of ``events`` when written back to back."""
    offs, pos = [], events_offset
    for ev in events:
        offs.append(pos)
        pos += ev.total_length
    return offs


# ---- Readers --------------------------------------------------------------

def _verify_checksum(value, section, layout, what):
    if value == 0:
        return STATE_ZERO
    if crc32c(section) == value:
        return STATE_CRC32C
    if layout == LAYOUT_1 and crc32_ieee(section) == value:
        return STATE_CRC32_IEEE
    raise AtfFormatError("%s checksum 0x%08x matches neither CRC32-C%s of the events section"
                         % (what, value, " nor CRC32/IEEE" if layout == LAYOUT_1 else ""))


class _LaneFile:
    """What a parsed index file and detail file share: the layout and the
    state (the subclass says whether its header is a placeholder)."""

    @property
    def layout(self):
        return self.header.version

    @property
    def state(self):
        """SPEC 6: "complete", "crash-truncated" or "damaged"."""
        if self.footer is not None:
            return "complete"
        if self.header_truncated or self.header_is_placeholder():
            return "crash-truncated"
        return "damaged"


@dataclass
class IndexFile(_LaneFile):
    header: IndexHeader
    footer: Optional[IndexFooter]
    footer_offset: Optional[int]
    events: List[IndexEvent]
    recovered: bool            # no footer: count derived from the file size
    trailing_bytes: int        # bytes after the last event (and before the footer)
    checksum_state: str
    file_size: int
    header_truncated: bool = False   # the file ends inside its header (0 events)

    def header_is_placeholder(self):
        return index_header_is_placeholder(self.header)


def index_header_is_placeholder(header):
    """SPEC 2.1: a placeholder is what a writer puts first: footer_offset 0, or a
    header that describes an empty file (footer_offset == events_offset, the ADA
    tracer's writer writes 64 there; event_count 0, times 0, has_detail_file
    clear). Every other header is finalized."""
    return header.footer_offset == 0 or (
        header.footer_offset == header.events_offset and header.event_count == 0
        and header.time_start_ns == 0 and header.time_end_ns == 0
        and not header.flags & INDEX_FLAG_HAS_DETAIL_FILE)


def detail_header_is_placeholder(header):
    """SPEC 3.1: event_count 0 and bytes_length 0."""
    return header.event_count == 0 and header.bytes_length == 0


def header_prefix_ok(data, magic):
    """SPEC 7a.12: fewer bytes than a header that are the start of a valid one
    (magic, endian 1, version 1 or 2, as far as they go): crash-truncated."""
    n = len(data)
    if n >= INDEX_HEADER_SIZE or bytes(data[:min(n, 4)]) != magic[:min(n, 4)]:
        return False
    return (n <= 4 or data[4] == 1) and (n <= 5 or data[5] in (1, 2))


def _find_index_footer(data, header):
    """Footer position by SPEC.md section 6: at footer_offset when the header is
    finalized; else the last 64 bytes, when they hold the footer magic and
    bytes_written equals the bytes between events_offset and them."""
    size = len(data)
    if not index_header_is_placeholder(header):
        pos = header.footer_offset
        if header.events_offset <= pos and pos + INDEX_FOOTER_SIZE <= size \
                and bytes(data[pos:pos + 4]) == INDEX_FOOTER_MAGIC:
            return pos
        # not where the header says: the end of the file, lined up, as below
    pos = size - INDEX_FOOTER_SIZE
    if pos >= header.events_offset and (pos - header.events_offset) % INDEX_EVENT_SIZE == 0 \
            and bytes(data[pos:pos + 4]) == INDEX_FOOTER_MAGIC \
            and int.from_bytes(data[pos + 32:pos + 40], "little") == pos - header.events_offset:
        return pos
    return None


def index_recovery_end(data, header):
    """Where the events of a file without a footer end (REC-001): the file size,
    or a finalized header's footer_offset when that lies inside the file."""
    size = len(data)
    fo = header.footer_offset
    if not index_header_is_placeholder(header) and header.events_offset <= fo <= size:
        return fo   # damage: the header bounds the events
    return size


def is_torn_index_footer(record, events_before):
    """REC-003: a 32-byte record that starts with the footer magic and holds at
    byte 8 the number of events before it is the first half of a footer."""
    return (len(record) >= 16 and bytes(record[0:4]) == INDEX_FOOTER_MAGIC
            and int.from_bytes(record[8:16], "little") == events_before)


def _truncated_header(data, cls):
    """The fields a header cut short still shows (the rest as 0)."""
    n = len(data)
    return cls(version=data[5] if n > 5 else 0, arch=data[6] if n > 6 else 0,
               os=data[7] if n > 7 else 0, endian=data[4] if n > 4 else 0)


def _cut_in_header(data, header_cls, file_cls):
    """The file (IndexFile, DetailFile) of bytes that end inside the header."""
    return file_cls(_truncated_header(data, header_cls), None, None, [], True, len(data),
                    STATE_NO_FOOTER, len(data), header_truncated=True)


def _whole_header(data, header_cls):
    """(header, layout, events offset, file size) of a file with a whole header;
    AtfFormatError when the events would start past the end."""
    header = header_cls.decode(data)
    layout, eoff, size = header.version, header.events_offset, len(data)
    if eoff > size:
        raise AtfFormatError("events_offset %d is past the end (%d bytes)" % (eoff, size))
    return header, layout, eoff, size


def parse_index_file(data, verify=True):
    """Decodes a whole index file (bytes) with the recovery rules."""
    data = bytes(data)
    if header_prefix_ok(data, INDEX_MAGIC):
        return _cut_in_header(data, IndexHeader, IndexFile)
    header, layout, eoff, size = _whole_header(data, IndexHeader)
    fpos = _find_index_footer(data, header)
    footer = None
    if fpos is not None:
        footer = IndexFooter.decode(data, fpos)
        count = footer.event_count
        if count > (fpos - eoff) // INDEX_EVENT_SIZE:
            raise AtfFormatError("footer event_count %d needs more bytes than the file holds"
                                 % count)
        end = eoff + count * INDEX_EVENT_SIZE
        trailing = fpos - end
        state = _verify_checksum(footer.checksum, data[eoff:end], layout,
                                 "index footer") if verify else "not_verified"
    else:
        stop = index_recovery_end(data, header)
        count = (stop - eoff) // INDEX_EVENT_SIZE
        # SPEC 7a.6: trailing all-zero records are a zero fill, not events.
        while count and not any(data[eoff + (count - 1) * INDEX_EVENT_SIZE:
                                     eoff + count * INDEX_EVENT_SIZE]):
            count -= 1
        # REC-003 applies to placeholder headers only: a finalized header
        # bounds the events by footer_offset (SPEC 7a.5).
        if count and index_header_is_placeholder(header) and is_torn_index_footer(data[eoff + (count - 1) * INDEX_EVENT_SIZE:
                                               eoff + count * INDEX_EVENT_SIZE], count - 1):
            count -= 1
        end = eoff + count * INDEX_EVENT_SIZE
        trailing = size - end
        state = STATE_NO_FOOTER
    events = [IndexEvent.decode(data, layout, eoff + i * INDEX_EVENT_SIZE) for i in range(count)]
    return IndexFile(header, footer, fpos, events, fpos is None, trailing, state, size)


@dataclass
class DetailFile(_LaneFile):
    header: DetailHeader
    footer: Optional[DetailFooter]
    footer_offset: Optional[int]
    events: List[Tuple[int, DetailEvent]]   # (file offset, event)
    recovered: bool
    trailing_bytes: int
    checksum_state: str
    file_size: int
    header_truncated: bool = False

    def header_is_placeholder(self):
        return detail_header_is_placeholder(self.header)


def _scan_detail(data, layout, start, stop):
    """Complete events in data[start:stop]; returns (events, end offset)."""
    out, pos = [], start
    while stop - pos >= DETAIL_EVENT_HEADER_SIZE:
        total = int.from_bytes(data[pos:pos + 4], "little")
        if total < DETAIL_EVENT_HEADER_SIZE or total > stop - pos:
            break
        out.append((pos, DetailEvent.decode(data[pos:pos + total], layout)))
        pos += total
    return out, pos


def _find_detail_footer(data, header):
    """Footer position by SPEC.md section 6: at events_offset + bytes_length when
    the header is finalized (event_count or bytes_length non-zero); else the
    last 64 bytes, when they hold the footer magic and bytes_length equals the
    bytes between events_offset and them."""
    size, eoff = len(data), header.events_offset
    if not detail_header_is_placeholder(header):
        pos = eoff + header.bytes_length
        if pos + DETAIL_FOOTER_SIZE <= size and bytes(data[pos:pos + 4]) == DETAIL_FOOTER_MAGIC:
            return pos
        # not where the header says: the end of the file, lined up, as below
    pos = size - DETAIL_FOOTER_SIZE
    if pos >= eoff and bytes(data[pos:pos + 4]) == DETAIL_FOOTER_MAGIC \
            and int.from_bytes(data[pos + 16:pos + 24], "little") == pos - eoff:
        return pos
    return None


def detail_recovery_end(data, header):
    """Where the events of a detail file without a footer end: the file size, or
    a finalized header's events_offset + bytes_length when inside the file."""
    size = len(data)
    if not detail_header_is_placeholder(header):
        end = header.events_offset + header.bytes_length
        if end <= size:
            return end
    return size


def parse_detail_file(data, verify=True):
    """Decodes a whole detail file (bytes) with the recovery rules."""
    data = bytes(data)
    if header_prefix_ok(data, DETAIL_MAGIC):
        return _cut_in_header(data, DetailHeader, DetailFile)
    header, layout, eoff, size = _whole_header(data, DetailHeader)
    fpos = _find_detail_footer(data, header)
    if fpos is None:
        events, pos = _scan_detail(data, layout, eoff, detail_recovery_end(data, header))
        return DetailFile(header, None, None, events, True, size - pos, STATE_NO_FOOTER, size)
    footer = DetailFooter.decode(data, fpos)
    end = eoff + footer.bytes_length
    if end != fpos:
        raise AtfFormatError("footer bytes_length %d, but the events section is %d bytes"
                             % (footer.bytes_length, fpos - eoff))
    events, pos = _scan_detail(data, layout, eoff, end)
    if pos != end or len(events) != footer.event_count:
        raise AtfFormatError("footer says %d events in %d bytes, found %d events in %d bytes"
                             % (footer.event_count, footer.bytes_length, len(events), pos - eoff))
    state = _verify_checksum(footer.checksum, data[eoff:end], layout,
                             "detail footer") if verify else "not_verified"
    return DetailFile(header, footer, fpos, events, False, size - fpos - DETAIL_FOOTER_SIZE,
                      state, size)
