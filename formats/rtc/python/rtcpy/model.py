"""What an RTC file holds as the reader decoded it (and as the dump prints
it): geometry, Units, stream definitions, records, skipped ranges, notes."""

from tracepy.report import Note  # noqa: F401  (the reader's findings)


class UnitInfo:
    __slots__ = ("number", "offset", "size", "crc")

    def __init__(self, number, offset, size, crc):
        self.number, self.offset, self.size, self.crc = number, offset, size, crc


class StreamDef:
    __slots__ = ("sid", "offset", "obj", "text")

    def __init__(self, sid, offset, obj, text):
        self.sid, self.offset, self.obj, self.text = sid, offset, obj, text


class Rec:
    """A user record: the frames chained by `more`, joined."""
    __slots__ = ("sid", "offset", "frames", "payload", "time", "value")

    def __init__(self, sid, offset, frames, payload, time=None, value="null"):
        self.sid, self.offset, self.frames, self.payload = sid, offset, frames, payload
        self.time, self.value = time, value

    def __repr__(self):
        return "Rec(%d @%d %r)" % (self.sid, self.offset, self.payload[:16])


class Rtc:
    COMPLETE, CRASH_TRUNCATED, DAMAGED = "complete", "crash-truncated", "damaged"

    def __init__(self, size):
        self.size = size
        self.unit_size = self.subunit_size = self.origin = self.order = None
        self.units = []          # [UnitInfo]
        self.streams = []        # [StreamDef], first definition of each id
        self.records = []        # [Rec], complete user records
        self.skipped = []        # [(offset, bytes, reason)]
        self.notes = []          # [Note]
        self.state = self.COMPLETE

    def clauses(self):
        return [n.clause for n in self.notes if n.clause]
