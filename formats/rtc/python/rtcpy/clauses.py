"""The clauses of conformance/SPEC-RTC.md: (id, severity, summary), in the
spec's order. The validator's table (`rtcpy_tool validate --list-clauses`)
and the corpus coverage check compare it with the spec, both ways."""

from tracepy.report import severities

CLAUSES = (
    ("RTC-MRK-001", "error", "a non-empty file holds a Marker (04 and 1024 x B9)"),
    ("RTC-MRK-002", "error", "every Unit start inside the file holds an intact Marker"),
    ("RTC-MRK-003", "error", "Marker bytes and Marker frames occur only at Unit starts"),
    ("RTC-UNI-001", "error", "Unit and unit sizes are powers of 2, 2048 <= unit <= Unit, the "
                             "same in every Index"),
    ("RTC-UNI-002", "error", "a Unit starts with Marker, Index, then Meta"),
    ("RTC-UNI-003", "error", "an index frame starts at every unit boundary of a Unit"),
    ("RTC-FRM-001", "error", "a frame header is an unsigned LEB128 of at most 10 bytes below 2^64"),
    ("RTC-FRM-002", "error", "a variable-length frame's payload is at most 1024 bytes"),
    ("RTC-FRM-003", "error", "no frame crosses a unit boundary or a Unit's Crc position"),
    ("RTC-FRM-004", "error", "a frame's stream id is a built-in or defined by the Meta in force"),
    ("RTC-FRM-005", "warning", "LEB128 ids and lengths are written in their shortest form"),
    ("RTC-FRM-006", "warning", "no record is left continued (more) at the end of a complete file"),
    ("RTC-FRM-007", "warning", "a fixed-length frame is not cut at a unit boundary or the Crc "
                               "position (its rest the stream's next frame)"),
    ("RTC-PAD-001", "warning", "padding payload bytes are 0"),
    ("RTC-IDX-001", "error", "Index is a count then entries, index entries only; ids odd, "
                             "offsets even"),
    ("RTC-IDX-002", "error", "an entry names a defined stream that is indexed"),
    ("RTC-IDX-003", "error", "an entry's target is the start of a frame of that stream"),
    ("RTC-IDX-004", "error", "the Index count is the Unit's number"),
    ("RTC-IDX-005", "warning", "entries are in ascending id order, each id once"),
    ("RTC-MET-001", "error", "Meta and meta are a JSON array of objects then the next free id"),
    ("RTC-MET-002", "error", "each object has a unique integer id from 9 below the next free id"),
    ("RTC-MET-003", "error", "ids are never reused; the next free id never decreases"),
    ("RTC-MET-004", "error", "the known properties of a stream object have their types"),
    ("RTC-MET-005", "error", "a fixed length is at most 1024"),
    ("RTC-PLT-001", "error", "Platform holds 0x01020304 in one byte order, the same in the file"),
    ("RTC-PLT-002", "warning", "each Unit has a Platform frame right after its Meta"),
    ("RTC-CRC-001", "error", "a Crc frame matches its Unit by CRC-32/IEEE or the reference "
                             "variant"),
    ("RTC-CRC-002", "error", "a full Unit ends with its Crc frame in its last 5 bytes"),
    ("RTC-CRC-003", "warning", "a final Crc covers its Unit up to the Crc (not the reference "
                               "writer's stop defect)"),
    ("RTC-CRC-004", "error", "a Crc frame sits only at a Unit's end or at the end of the file"),
    ("RTC-FMT-001", "error", "a record of a fixed-size default format has that size"),
    ("RTC-FMT-002", "error", "a json record is JSON text"),
    ("RTC-FMT-003", "error", "a (u)leb128 record is one LEB128 that fills it"),
    ("RTC-FMT-004", "warning", "utf-8 records are valid UTF-8"),
    ("RTC-CLK-001", "error", "clock names a clock stream of the Meta in force"),
    ("RTC-CLK-002", "error", "delta names an absolute clock; a clock's format is numeric or "
                             "timespec"),
    ("RTC-CLK-003", "error", "clocks do not decrease; deltas are not negative"),
    ("RTC-CLK-004", "warning", "a delta clock frame comes after a value of its base clock"),
    ("RTC-REC-001", "warning", "a file cut at the end: readers report what they recovered"),
    ("RTC-REC-002", "warning", "a file cut at the start: readers skip to the first Marker and "
                               "report it"),
)
SEVERITY = severities(CLAUSES)
