"""The clauses of conformance/SPEC-WTF.md: (id, severity, summary), in the
spec's order. The validator's table (`wtfpy_tool validate --list-clauses`)
and the corpus coverage check compare it with the spec, both ways."""

from tracepy.report import severities

CLAUSES = (
    ("WTF-HDR-001", "error", "the file is at least 12 bytes and starts with the magic 0xDEADBEEF"),
    ("WTF-HDR-002", "error", "format_version is 10"),
    ("WTF-CHK-001", "error", "a chunk's length is at least 24 + 12 x part_count"),
    ("WTF-CHK-002", "error", "a chunk's length is a multiple of 4"),
    ("WTF-CHK-003", "error", "a chunk ends inside the file (a cut one is a crash, WTF-REC-001)"),
    ("WTF-CHK-004", "error", "every part offset is a multiple of 4"),
    ("WTF-CHK-005", "error", "every part lies inside its chunk"),
    ("WTF-CHK-006", "error", "parts do not overlap; at most 64 parts"),
    ("WTF-CHK-007", "warning", "a chunk's type is 1 or 2"),
    ("WTF-CHK-008", "warning", "a part's type is one of the format's"),
    ("WTF-CHK-009", "warning", "padding bytes after a part are 0"),
    ("WTF-CHK-010", "warning", "chunk start and end are both unset, or start <= end"),
    ("WTF-CHK-011", "warning", "every byte of a chunk belongs to a part or its padding"),
    ("WTF-FH-001", "error", "the first chunk is a file-header chunk (type 1)"),
    ("WTF-FH-002", "error", "the file-header chunk holds exactly one file-header part"),
    ("WTF-FH-003", "error", "the file-header part is one JSON object in UTF-8"),
    ("WTF-FH-004", "error", "the file header's timebase is a number"),
    ("WTF-FH-005", "error", "the file header's flags, when present, are an array of strings"),
    ("WTF-FH-006", "warning", "each flag is has_high_resolution_times or times_as_count"),
    ("WTF-FH-007", "error", "contextInfo is an object with string contextType and uri"),
    ("WTF-FH-008", "warning", "one file-header chunk only, the first"),
    ("WTF-EVC-001", "error", "an event data chunk holds exactly one event buffer part"),
    ("WTF-EVC-002", "error", "an event data chunk holds at most one string table"),
    ("WTF-EVC-003", "warning", "the event buffer is binary (0x20002)"),
    ("WTF-EVC-004", "error", "a binary event buffer's length is a multiple of 4"),
    ("WTF-EVC-005", "warning", "the string table comes before the event buffer"),
    ("WTF-EVC-006", "warning", "resource parts appear only in event data chunks"),
    ("WTF-STR-001", "error", "a string table ends with a NUL byte"),
    ("WTF-STR-002", "warning", "an empty string is ordinal 0xFFFFFFFE, not a table entry"),
    ("WTF-STR-003", "warning", "strings are valid UTF-8"),
    ("WTF-EVT-001", "error", "an event's wire id was defined earlier in the file"),
    ("WTF-EVT-002", "error", "an event and its arguments lie inside its event buffer"),
    ("WTF-EVT-003", "error", "a string ordinal names a string of the chunk's own table, or is "
                             "null or empty"),
    ("WTF-EVT-004", "error", "an array's element count is -1 or more"),
    ("WTF-EVT-005", "error", "the string of an any argument is JSON text"),
    ("WTF-EVT-006", "warning", "times of non-built-in events do not decrease within a buffer"),
    ("WTF-EVT-007", "error", "event times lie between the chunk's start and end when set"),
    ("WTF-DEF-001", "error", "a define's args are null, empty or a valid signature"),
    ("WTF-DEF-002", "error", "a define's eventClass is 0 or 1"),
    ("WTF-DEF-003", "warning", "a wire id defined again is defined the same way"),
    ("WTF-DEF-004", "error", "a define's wireId is not 0; wire id 1 is wtf.event#define"),
    ("WTF-DEF-005", "warning", "flag bits other than the format's are 0"),
    ("WTF-DEF-006", "warning", "one event name is not defined with two signatures"),
    ("WTF-DEF-007", "error", "a define's name is not null or empty"),
    ("WTF-DEF-008", "warning", "array arguments are arrays of the nine types the reference library "
                               "reads"),
    ("WTF-ZON-001", "error", "wtf.zone#set names a zone created earlier"),
    ("WTF-ZON-002", "warning", "a zone created again has the same name, type and location"),
    ("WTF-SCO-001", "warning", "wtf.scope#leave closes a scope open in its zone (a wrapped ring "
                               "leaves leaves of overwritten scopes)"),
    ("WTF-SCO-002", "warning", "no scope is left open at the end of a complete file"),
    ("WTF-SCO-003", "warning", "scopes nest at most 1024 deep in one zone"),
    ("WTF-REC-001", "warning", "a file cut at the end is crash-truncated: what was recovered "
                               "is reported"),
)
SEVERITY = severities(CLAUSES)
