/* The WTF clauses of conformance/SPEC-WTF.md, one X() line per clause, in
 * the spec's order; the form of formats/atf/src/atf_clauses.h. The one table
 * of WTF's clauses (the validator reads it). */
#ifndef ATF_WTF_CLAUSES_H
#define ATF_WTF_CLAUSES_H

#define ATF_CLAUSE_LIST_WTF(X)                                                                          \
    X(WTF_HDR_001, "WTF-HDR", "001", E, 0, "The file MUST be at least 12 bytes long and MUST start with the magic 0xDEADBEEF (bytes EF BE AD DE).", \
      "Start the file with the bytes EF BE AD DE, the WTF version and the format version 10 (12 bytes).") \
    X(WTF_HDR_002, "WTF-HDR", "002", E, 0, "format_version MUST be 10 (the chunked file format).", \
      "Write 10 (ChunkedFileFormat.VERSION) as the third u32 of the file.") \
    X(WTF_CHK_001, "WTF-CHK", "001", E, 0, "A chunk's length MUST be at least 24 + 12 × part_count.", \
      "Write as chunk length at least 24 bytes of header plus 12 per part listed.") \
    X(WTF_CHK_002, "WTF-CHK", "002", E, 0, "A chunk's length MUST be a multiple of 4.", \
      "Pad every part to a multiple of 4 and count the padding in the chunk length.") \
    X(WTF_CHK_003, "WTF-CHK", "003", E, 0, "A chunk MUST end inside the file. A chunk that runs past the end while its parts, as listed, end inside the file and are followed by bytes that are not zero (beyond padding) has a wrong length: that is damage. Any other chunk running past the end was cut by a crash (WTF-REC-001).", \
      "Write in the chunk length the bytes of the chunk: header, part table and padded parts.") \
    X(WTF_CHK_004, "WTF-CHK", "004", E, 0, "Every part's offset MUST be a multiple of 4.", \
      "Start every part at a multiple of 4 bytes from the end of the part table.") \
    X(WTF_CHK_005, "WTF-CHK", "005", E, 0, "Every part MUST lie inside its chunk: offset + length at most length − 24 − 12 × part_count.", \
      "Keep every part inside its chunk: offset + length within the chunk's bytes after the part table.") \
    X(WTF_CHK_006, "WTF-CHK", "006", E, 0, "Parts MUST NOT overlap, and a chunk MUST NOT list more than 64 parts.", \
      "List each part once, at its own bytes, and at most 64 parts per chunk.") \
    X(WTF_CHK_007, "WTF-CHK", "007", W, 0, "A chunk's type SHOULD be 1 or 2 (readers skip other chunks).", \
      "Write chunk type 1 (file header) or 2 (event data).") \
    X(WTF_CHK_008, "WTF-CHK", "008", W, 0, "A part's type SHOULD be one of 0x10000, 0x20000, 0x20001, 0x20002, 0x30000, 0x40000, 0x40001 (readers skip other parts).", \
      "Use the part types of the format (0x10000, 0x20000-0x20002, 0x30000, 0x40000, 0x40001).") \
    X(WTF_CHK_009, "WTF-CHK", "009", W, 0, "Padding bytes after a part, up to the next multiple of 4, SHOULD be 0.", \
      "Fill the padding after each part with zero bytes.") \
    X(WTF_CHK_010, "WTF-CHK", "010", W, 0, "A chunk's start and end SHOULD both be 0xFFFFFFFF, or start SHOULD NOT exceed end.", \
      "Write 0xFFFFFFFF in both start and end, or the chunk's first and last event time.") \
    X(WTF_CHK_011, "WTF-CHK", "011", W, 0, "Bytes of a chunk that no part covers (other than padding) SHOULD NOT exist.", \
      "Make the chunk length exactly the header, the part table and the padded parts.") \
    X(WTF_FH_001, "WTF-FH", "001", E, 0, "The first chunk MUST be a file-header chunk (type 1).", \
      "Write the file-header chunk (type 1) first, right after the 12-byte file header.") \
    X(WTF_FH_002, "WTF-FH", "002", E, 0, "The file-header chunk MUST hold exactly one file-header part (type 0x10000).", \
      "Put exactly one file-header part (0x10000) in the file-header chunk.") \
    X(WTF_FH_003, "WTF-FH", "003", E, 0, "The file-header part MUST be one JSON object (UTF-8 text).", \
      "Write the file-header part as one JSON object in UTF-8.") \
    X(WTF_FH_004, "WTF-FH", "004", E, 0, "The file header's timebase MUST be a number (milliseconds; every event time counts from it).", \
      "Write \"timebase\" as a number: the milliseconds event times count from.") \
    X(WTF_FH_005, "WTF-FH", "005", E, 0, "The file header's flags, when present, MUST be an array of strings.", \
      "Write \"flags\" as an array of strings (an empty array for none).") \
    X(WTF_FH_006, "WTF-FH", "006", W, 0, "Each flag SHOULD be has_high_resolution_times or times_as_count.", \
      "Use only the flags has_high_resolution_times and times_as_count.") \
    X(WTF_FH_007, "WTF-FH", "007", E, 0, "The file header MUST have a contextInfo object whose contextType and uri are strings.", \
      "Write \"contextInfo\" with string \"contextType\" (e.g. \"script\") and \"uri\".") \
    X(WTF_FH_008, "WTF-FH", "008", W, 0, "A file SHOULD hold one file-header chunk only, the first.", \
      "Write one file-header chunk, first; put everything else in event data chunks.") \
    X(WTF_EVC_001, "WTF-EVC", "001", E, 0, "An event data chunk MUST hold exactly one event buffer part (0x20000, 0x20001 or 0x20002).", \
      "Put exactly one event buffer part in every event data chunk.") \
    X(WTF_EVC_002, "WTF-EVC", "002", E, 0, "An event data chunk MUST NOT hold more than one string table part.", \
      "Write one string table per chunk holding every string its events use.") \
    X(WTF_EVC_003, "WTF-EVC", "003", W, 0, "The event buffer SHOULD be binary (0x20002): JSON (0x20000) and legacy (0x20001) buffers are not decoded, so their events are not checked.", \
      "Write events as a binary event buffer (part type 0x20002).") \
    X(WTF_EVC_004, "WTF-EVC", "004", E, 0, "A binary event buffer's length MUST be a multiple of 4.", \
      "Pad the events to a multiple of 4 bytes and write that length (arguments are 4-byte slots).") \
    X(WTF_EVC_005, "WTF-EVC", "005", W, 0, "The string table SHOULD come before the event buffer (the seed's order; readers find it in any order).", \
      "Write the string table part before the event buffer part.") \
    X(WTF_EVC_006, "WTF-EVC", "006", W, 0, "Resource parts (0x4XXXX) SHOULD appear only in event data chunks.", \
      "Put embedded resources in the event data chunk whose events use them.") \
    X(WTF_STR_001, "WTF-STR", "001", E, 0, "A string table MUST end with a NUL byte (every string is terminated).", \
      "End every string of the table with a NUL byte, the last one included.") \
    X(WTF_STR_002, "WTF-STR", "002", W, 0, "An empty string that an event uses SHOULD be written as ordinal 0xFFFFFFFE, not as an empty entry of the table (the reference reader reads an empty table entry as null).", \
      "Write an empty string as ordinal 0xFFFFFFFE instead of storing it in the table.") \
    X(WTF_STR_003, "WTF-STR", "003", W, 0, "Strings SHOULD be valid UTF-8.", \
      "Store strings as UTF-8.") \
    X(WTF_EVT_001, "WTF-EVT", "001", E, 0, "An event's wire_id MUST have been defined by a wtf.event#define event earlier in the file (wire id 1 excepted: it is that event).", \
      "Write a wtf.event#define for an event type before the first event of that type.") \
    X(WTF_EVT_002, "WTF-EVT", "002", E, 0, "An event, its header and every argument, MUST lie inside its event buffer.", \
      "Write every argument the event's define declares, inside the event buffer's length.") \
    X(WTF_EVT_003, "WTF-EVT", "003", E, 0, "A string ordinal MUST name a string of the chunk's own table, or be 0xFFFFFFFF or 0xFFFFFFFE: content never references another chunk.", \
      "Put every string an event uses into its own chunk's string table and write its ordinal there.") \
    X(WTF_EVT_004, "WTF-EVT", "004", E, 0, "An array's element count MUST be −1 or more.", \
      "Write an array's element count, or -1 for a null array.") \
    X(WTF_EVT_005, "WTF-EVT", "005", E, 0, "The string of an any argument MUST be JSON text (the null ordinal is allowed; the empty one is not JSON).", \
      "Store an any argument as JSON text (JSON.stringify of the value), or the null ordinal.") \
    X(WTF_EVT_006, "WTF-EVT", "006", W, 0, "Within an event buffer, the times of events that are not built-in (flags without BUILTIN 0x20 or INTERNAL 0x08) SHOULD NOT decrease.", \
      "Append events in the order they happen, reading one clock.") \
    X(WTF_EVT_007, "WTF-EVT", "007", E, 0, "When a chunk's start and end are set (not 0xFFFFFFFF), every event time of the chunk MUST lie between them.", \
      "Set a chunk's start and end from its events' first and last times, or leave both 0xFFFFFFFF.") \
    X(WTF_DEF_001, "WTF-DEF", "001", E, 0, "A define's args MUST be null, empty, or a signature as above, with at most 64 arguments and no name twice.", \
      "Write the define's args as \"type name, type name\" with the format's types, or null for none.") \
    X(WTF_DEF_002, "WTF-DEF", "002", E, 0, "A define's eventClass MUST be 0 (instance) or 1 (scope).", \
      "Write eventClass 0 for an instance event or 1 for a scope.") \
    X(WTF_DEF_003, "WTF-DEF", "003", W, 0, "A wire id defined again SHOULD be defined the same way (name, class, flags, signature).", \
      "Define each wire id once, or repeat the same define exactly.") \
    X(WTF_DEF_004, "WTF-DEF", "004", E, 0, "A define's wireId MUST NOT be 0, and a define of wire id 1 MUST be wtf.event#define with its signature.", \
      "Number event types from 2 up; wire id 1 is wtf.event#define itself.") \
    X(WTF_DEF_005, "WTF-DEF", "005", W, 0, "Flags bits other than 0x02, 0x04, 0x08, 0x10, 0x20, 0x40 SHOULD be 0.", \
      "Set only the event flags of the format (0x02, 0x04, 0x08, 0x10, 0x20, 0x40).") \
    X(WTF_DEF_006, "WTF-DEF", "006", W, 0, "One event name SHOULD NOT be defined with two signatures (the reference reader keeps the first definition of a name).", \
      "Give events with different arguments different names.") \
    X(WTF_DEF_007, "WTF-DEF", "007", E, 0, "A define's name MUST NOT be null or empty.", \
      "Give every defined event a name (\"provider#event\").") \
    X(WTF_DEF_008, "WTF-DEF", "008", W, 0, "Array arguments SHOULD be arrays of int8, uint8, int16, uint16, int32, uint32, float32, char or wchar (the reference library cannot read or write other arrays).", \
      "Use arrays of int8, uint8, int16, uint16, int32, uint32, float32, char or wchar; pass other lists as an any (JSON) argument.") \
    X(WTF_ZON_001, "WTF-ZON", "001", E, 0, "wtf.zone#set MUST name a zone created earlier in the file.", \
      "Write wtf.zone#create for a zone before any wtf.zone#set of it.") \
    X(WTF_ZON_002, "WTF-ZON", "002", W, 0, "A zone created again SHOULD be created with the same name, type and location, unless a wtf.zone#delete of it came in between (W-E19).", \
      "Create a zone id once, or repeat the same name, type and location, or delete the zone before its id names another.") \
    X(WTF_SCO_001, "WTF-SCO", "001", W, 0, "wtf.scope#leave SHOULD close a scope open in its zone (a ring buffer that wrapped leaves the leaves of scopes entered in the chunks it overwrote).", \
      "Write wtf.scope#leave only for a scope entered in the same zone.") \
    X(WTF_SCO_002, "WTF-SCO", "002", W, 0, "At the end of a complete file whose events were all read, no scope SHOULD be left open (a snapshot taken inside a scope leaves it open).", \
      "Leave every scope before the trace is written (or accept open scopes in a snapshot).") \
    X(WTF_SCO_003, "WTF-SCO", "003", W, 0, "Scopes SHOULD NOT nest more than 1024 deep in one zone (the reference reader stops there).", \
      "Keep scopes less than 1024 deep: the reference reader stops there.") \
    X(WTF_REC_001, "WTF-REC", "001", W, 0, "A file cut at the end (inside its header, a chunk header, a part table, a part or an event, or followed by zero bytes) is crash-truncated: readers report what they recovered and what they skipped.", \
      "Write whole chunks and finish the file (the writer stopped early or crashed).")

#endif /* ATF_VALIDATOR_CLAUSE_LIST_WTF_H */
