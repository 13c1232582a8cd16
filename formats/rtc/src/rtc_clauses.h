/* The RTC clauses of conformance/SPEC-RTC.md, one X() line per clause, in
 * the spec's order; the form of formats/atf/src/atf_clauses.h, each name
 * pasted to the prefix P (the codec's enum takes none, the validator's
 * "RTC_": ATF_CLAUSE_LIST_RTC below). The one table of RTC's clauses: the reader reports by it
 * (rtc_internal.h), the validator reads it. */
#ifndef ATF_RTC_CLAUSES_H
#define ATF_RTC_CLAUSES_H

#define RTC_CLAUSE_TABLE(X, P)                                                                          \
    X(P##FRM_001, "RTC-FRM", "001", E, 0, "A frame header (and a length) MUST be an unsigned LEB128 of at most 10 bytes whose value is below 2^64.", \
      "Write every frame header and length as an unsigned LEB128 of at most 10 bytes.") \
    X(P##FRM_002, "RTC-FRM", "002", E, 0, "A variable-length frame's payload MUST be at most 1024 bytes (no frame is larger than the Marker).", \
      "Split payloads larger than 1024 bytes into frames chained by more.") \
    X(P##FRM_003, "RTC-FRM", "003", E, 0, "No frame MAY cross a unit boundary (section 2) or, in a full Unit, run into the Crc position (the Unit's last 5 bytes).", \
      "Pad up to the boundary and start the frame after the index frame; never run into the Crc's 5 bytes.") \
    X(P##FRM_004, "RTC-FRM", "004", E, 0, "A frame's stream MUST be a built-in stream or a stream defined by the Meta in force (this Unit's Meta and the meta frames after it).", \
      "Define every user stream in Meta or a meta frame before its first frame.") \
    X(P##FRM_005, "RTC-FRM", "005", W, 0, "Frame headers and lengths SHOULD be written in their shortest LEB128 form (readers accept longer forms).", \
      "Write headers and lengths in their shortest LEB128 form.") \
    X(P##FRM_006, "RTC-FRM", "006", W, 0, "A complete file SHOULD NOT end with a record still continued (more set on its last frame).", \
      "Finish every record (a last frame without more) before stopping.") \
    X(P##FRM_007, "RTC-FRM", "007", W, 0, "A fixed-length frame SHOULD NOT be cut at a unit boundary or the Crc position: a frame with more set that would cross one ends there, and the rest of it is the stream's next frame (R-E8).", \
      "Pad up to the boundary and write the whole fixed-length frame after the index frame.") \
    X(P##PAD_001, "RTC-PAD", "001", W, 0, "The payload bytes of a padding frame SHOULD be 0.", \
      "Fill padding frames with zero bytes.") \
    X(P##MRK_001, "RTC-MRK", "001", E, 0, "A file that is not empty MUST hold at least one Marker (a file that is only the start of a Marker is cut, RTC-REC-001).", \
      "Start the file with a Marker: 04 then 1024 bytes B9.") \
    X(P##MRK_002, "RTC-MRK", "002", E, 0, "Every Unit start (origin + n·U) inside the file MUST hold an intact Marker.", \
      "Write an intact Marker at the start of every Unit.") \
    X(P##MRK_003, "RTC-MRK", "003", E, 0, "The Marker's bytes (04 then exactly 1024 × B9), and frames of stream 2, MUST NOT occur anywhere but at a Unit start (a fixed-length 1024-byte stream whose header ends in 04 can embed one: writers MUST NOT let it).", \
      "Never let a payload contain the Marker's bytes or a frame of stream 2.") \
    X(P##UNI_001, "RTC-UNI", "001", E, 0, "U and u MUST be powers of 2 with 2048 ≤ u ≤ U, and every Index MUST give the same U and u.", \
      "Use powers of 2 with 2048 <= u <= U and the same sizes in every Index.") \
    X(P##UNI_002, "RTC-UNI", "002", E, 0, "A Unit MUST start with its Marker, then its Index record, then the first frame of its Meta.", \
      "Start each Unit with its Marker, its Index record, then its Meta.") \
    X(P##UNI_003, "RTC-UNI", "003", E, 0, "At every unit boundary of a Unit an index frame MUST start (padding before the boundary fills what frames leave).", \
      "Write an index frame at every unit boundary, padding before it.") \
    X(P##IDX_001, "RTC-IDX", "001", E, 0, "An Index payload MUST be a count followed by whole entries, an index payload whole entries, each an odd id then an even offset.", \
      "Write Index as a count then (odd id, even offset) pairs; index as pairs only.") \
    X(P##IDX_002, "RTC-IDX", "002", E, 0, "An entry MUST name a built-in indexed stream (3, 4, 5, 7, 8) or a user stream of the Meta in force (the Meta of the same Unit for its Index).", \
      "Index only the built-in indexed streams (3, 4, 5, 7, 8) and user streams of the Meta in force.") \
    X(P##IDX_003, "RTC-IDX", "003", E, 0, "An entry's target MUST be the start of a frame of that stream, when it lies in the part of the file that was read (targets before the first Marker read, or in a skipped range, are not checked).", \
      "Point each index entry back at the start of a frame of its stream.") \
    X(P##IDX_004, "RTC-IDX", "004", E, 0, "The Index count MUST be the Unit's number: Units U bytes apart have counts one apart.", \
      "Write the Unit's number as the Index count.") \
    X(P##IDX_005, "RTC-IDX", "005", W, 0, "Entries SHOULD be in ascending id order, each id once (the seed's \"ordered list\", which bisection needs).", \
      "List index entries in ascending id order, each id once.") \
    X(P##MET_001, "RTC-MET", "001", E, 0, "A Meta/meta record MUST be JSON text: an array of objects whose last element is an integer (the next free id).", \
      "Write Meta/meta as a JSON array of stream objects ending with the next free id.") \
    X(P##MET_002, "RTC-MET", "002", E, 0, "Each object MUST have an integer id, at least 9, below the record's next free id, unique in the record.", \
      "Give every stream object a unique integer id >= 9 below the next free id.") \
    X(P##MET_003, "RTC-MET", "003", E, 0, "Ids MUST NOT be reused: an id keeps one definition for the whole file and does not come back once dropped from a Meta; the next free id MUST NOT decrease.", \
      "Never reuse an id or change a stream's definition; never lower the next free id.") \
    X(P##MET_004, "RTC-MET", "004", E, 0, "The known properties, when present, MUST have the types of the table above.", \
      "Give known properties their types (length integer, cont boolean, format string, ...).") \
    X(P##MET_005, "RTC-MET", "005", E, 0, "A fixed length MUST be at most 1024.", \
      "Keep fixed lengths at most 1024 bytes.") \
    X(P##FMT_001, "RTC-FMT", "001", E, 0, "A record of a fixed-size default format (the ints, the floats, timespec, platform, the timespec of annotate/*) MUST have exactly that size.", \
      "Write records of fixed-size formats with exactly their size.") \
    X(P##FMT_002, "RTC-FMT", "002", E, 0, "A json record MUST be JSON text.", \
      "Write json records as JSON text.") \
    X(P##FMT_003, "RTC-FMT", "003", E, 0, "A uleb128/leb128 record MUST be one LEB128 of at most 10 bytes that fills it, with a value that fits 64 bits.", \
      "Write uleb128/leb128 records as one LEB128 filling the record.") \
    X(P##FMT_004, "RTC-FMT", "004", W, 0, "A utf-8 record SHOULD be valid UTF-8.", \
      "Write utf-8 records as valid UTF-8.") \
    X(P##PLT_001, "RTC-PLT", "001", E, 0, "A Platform frame MUST hold 0x01020304 in one byte order, the same for the whole file.", \
      "Write 0x01020304 in the writer's byte order in every Platform frame.") \
    X(P##PLT_002, "RTC-PLT", "002", W, 0, "Each Unit SHOULD have a Platform frame right after its Meta (index frames and padding may come between).", \
      "Write a Platform frame right after each Unit's Meta.") \
    X(P##CLK_001, "RTC-CLK", "001", E, 0, "A string clock MUST name a clock stream (\"clock\": true) of the Meta in force.", \
      "Name in clock a stream that has \"clock\": true.") \
    X(P##CLK_002, "RTC-CLK", "002", E, 0, "A clock's format MUST be numeric or timespec; a delta MUST name an absolute clock (a clock without delta).", \
      "Give clocks a numeric or timespec format; base a delta on an absolute clock.") \
    X(P##CLK_003, "RTC-CLK", "003", E, 0, "A clock's times MUST NOT decrease (no wrap-around); a delta MUST NOT be negative.", \
      "Keep clock values non-decreasing and deltas non-negative.") \
    X(P##CLK_004, "RTC-CLK", "004", W, 0, "A delta clock's frame SHOULD come after a frame of its base clock (else its time is unknown: null), unless a skip lost the base's value.", \
      "Write a frame of the base clock before the first delta.") \
    X(P##CRC_001, "RTC-CRC", "001", E, 0, "A Crc frame's value MUST equal the crc-32 or the rtc-ref CRC of the bytes it covers, in native byte order.", \
      "Store the CRC-32 (or rtc-ref) of the Unit's bytes after its Marker, in native order.") \
    X(P##CRC_002, "RTC-CRC", "002", E, 0, "A full Unit MUST end with its Crc frame in its last 5 bytes.", \
      "End every full Unit with its Crc frame in its last 5 bytes.") \
    X(P##CRC_003, "RTC-CRC", "003", W, 0, "A final Crc SHOULD cover its Unit up to the Crc frame; one that matches only the bytes before a trailing padding and index frame (the reference writer's stop defect, R-E9) is accepted with this warning.", \
      "Compute the final Crc over every byte up to the Crc frame, padding and index included.") \
    X(P##CRC_004, "RTC-CRC", "004", E, 0, "A Crc frame MUST NOT appear anywhere but in the last 5 bytes of a Unit or as the last frame of the file.", \
      "Write Crc frames only at a Unit's end or as the file's last frame.") \
    X(P##REC_001, "RTC-REC", "001", W, 0, "A file cut at the end (no final Crc, a frame or a Marker cut short, or a file that is only the start of a Marker): readers recover every complete record and report what they skipped.", \
      "Stop the writer cleanly so that it writes the final Crc.") \
    X(P##REC_002, "RTC-REC", "002", W, 0, "A file cut at the start (bytes before the first Marker, or a first Unit whose number is not 0): readers start at the first Marker and report what they skipped.", \
      "Keep the file's start (the first Unit) when copying or rotating it.")

/* The table in the validator's form (ATF_CLAUSE_LIST_<NAME>, as every
 * format's): the names RTC_<ID>. */
#define ATF_CLAUSE_LIST_RTC(X) RTC_CLAUSE_TABLE(X, RTC_)

#endif /* ATF_VALIDATOR_CLAUSE_LIST_RTC_H */
