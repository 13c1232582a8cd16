/* The clause table of conformance/SPEC.md, one X() line per clause, in the
 * spec's section order: X(ENUM, "GROUP", "NNN", severity, recoverable, "rule");
 * the clause ID is GROUP "-" NNN.
 * `severity` is the clause's default (E error, W warning); `recoverable` is 1
 * where the spec lets a crash-truncated file downgrade a finding to a
 * warning. test_clauses.c checks this list against SPEC.md both ways. */
#ifndef ATF_VALIDATOR_CLAUSE_LIST_H
#define ATF_VALIDATOR_CLAUSE_LIST_H

#define ATF_CLAUSE_LIST(X)                                                                              \
    X(GEN_LAY_001, "GEN-LAY", "001", E, 0, "The index and detail files of one thread MUST use the same layout.") \
    X(GEN_LAY_002, "GEN-LAY", "002", W, 0, "All threads of one session SHOULD use the same layout.")            \
    X(IDX_HDR_001, "IDX-HDR", "001", E, 0, "The index file MUST be at least 64 bytes long and MUST start with the magic \"ATI2\".") \
    X(IDX_HDR_002, "IDX-HDR", "002", E, 0, "The index header's endian MUST be 1 (little-endian).")              \
    X(IDX_HDR_003, "IDX-HDR", "003", E, 0, "The index header's version MUST be 1 or 2; it selects the layout.")  \
    X(IDX_HDR_004, "IDX-HDR", "004", W, 0, "arch SHOULD be 1 (x86_64) or 2 (arm64).")                            \
    X(IDX_HDR_005, "IDX-HDR", "005", W, 0, "os SHOULD be one of 1..5.")                                          \
    X(IDX_HDR_006, "IDX-HDR", "006", W, 0, "clock_type SHOULD be one of 1..3.")                                  \
    X(IDX_HDR_007, "IDX-HDR", "007", W, 0, "flags bits other than bit 0 are reserved and SHOULD be 0.")          \
    X(IDX_HDR_008, "IDX-HDR", "008", W, 0, "Reserved index header bytes SHOULD be 0.")                           \
    X(IDX_HDR_009, "IDX-HDR", "009", E, 0, "event_size MUST be 32.")                                             \
    X(IDX_HDR_010, "IDX-HDR", "010", E, 0, "events_offset MUST be at least 64 and MUST NOT exceed the file size.") \
    X(IDX_HDR_011, "IDX-HDR", "011", W, 0, "events_offset SHOULD be 64.")                                        \
    X(IDX_HDR_012, "IDX-HDR", "012", E, 0, "In a finalized header, event_count MUST equal the footer's event_count.") \
    X(IDX_HDR_013, "IDX-HDR", "013", E, 0, "In a finalized header, footer_offset MUST equal events_offset + event_count * 32 and a footer MUST be there.") \
    X(IDX_HDR_014, "IDX-HDR", "014", E, 0, "In a finalized header, time_start_ns and time_end_ns MUST equal the footer's.") \
    X(IDX_HDR_015, "IDX-HDR", "015", W, 0, "A file with its footer SHOULD have a finalized header: a placeholder before a footer means the header was never rewritten.") \
    X(IDX_EVT_001, "IDX-EVT", "001", E, 0, "event_kind MUST be 1 (call), 2 (return) or 3 (exception).")         \
    X(IDX_EVT_002, "IDX-EVT", "002", W, 0, "Layout 2: reserved index event bytes 25..31 SHOULD be 0.")           \
    X(IDX_EVT_003, "IDX-EVT", "003", E, 0, "timestamp_ns MUST NOT decrease from one event to the next within a file.") \
    X(IDX_EVT_004, "IDX-EVT", "004", W, 0, "Layout 1: an event's thread_id SHOULD equal the header's thread_id.") \
    X(IDX_EVT_005, "IDX-EVT", "005", E, 0, "Linked detail_seq values MUST strictly increase with seq.")         \
    X(IDX_FTR_001, "IDX-FTR", "001", E, 0, "A footer's event_count * 32 MUST fit between events_offset and the footer.") \
    X(IDX_FTR_002, "IDX-FTR", "002", E, 0, "bytes_written MUST equal event_count * 32.")                         \
    X(IDX_FTR_003, "IDX-FTR", "003", E, 0, "Footer time_start_ns / time_end_ns MUST equal the first / last event's timestamp_ns (0 when empty).") \
    X(IDX_FTR_004, "IDX-FTR", "004", W, 0, "Reserved index footer bytes SHOULD be 0.")                           \
    X(IDX_FTR_005, "IDX-FTR", "005", E, 0, "The footer MUST immediately follow the last event, and nothing MUST follow the footer.") \
    X(DET_HDR_001, "DET-HDR", "001", E, 0, "The detail file MUST be at least 64 bytes long and MUST start with the magic \"ATD2\".") \
    X(DET_HDR_002, "DET-HDR", "002", E, 0, "The detail header's endian MUST be 1.")                              \
    X(DET_HDR_003, "DET-HDR", "003", E, 0, "The detail header's version MUST be 1 or 2.")                        \
    X(DET_HDR_004, "DET-HDR", "004", W, 0, "Detail header arch SHOULD be 1 or 2; os SHOULD be one of 1..5.")     \
    X(DET_HDR_005, "DET-HDR", "005", W, 0, "Detail header flags and reserved bytes (16..19, 60..63) SHOULD be 0.") \
    X(DET_HDR_006, "DET-HDR", "006", E, 0, "Detail events_offset MUST be at least 64 and MUST NOT exceed the file size.") \
    X(DET_HDR_007, "DET-HDR", "007", E, 0, "In a finalized detail header, event_count and bytes_length MUST equal the footer's, and the footer MUST be at events_offset + bytes_length.") \
    X(DET_HDR_008, "DET-HDR", "008", E, 0, "In a finalized detail header with events, index_seq_start / index_seq_end MUST equal the first / last event's index_seq.") \
    X(DET_HDR_009, "DET-HDR", "009", W, 0, "A detail file with its footer and events SHOULD have a finalized header: a placeholder before it means the header was never rewritten.") \
    X(DET_EVT_001, "DET-EVT", "001", E, 0, "total_length MUST be at least 24.")                                  \
    X(DET_EVT_002, "DET-EVT", "002", E, 0, "Every detail event MUST lie entirely inside the events section.")    \
    X(DET_EVT_003, "DET-EVT", "003", W, 0, "event_type SHOULD be 3 or 4.")                                       \
    X(DET_EVT_004, "DET-EVT", "004", E, 0, "Detail timestamp MUST NOT decrease from one event to the next within a file.") \
    X(DET_EVT_005, "DET-EVT", "005", E, 0, "index_seq MUST strictly increase from one detail event to the next.") \
    X(DET_EVT_006, "DET-EVT", "006", W, 0, "Layout 1: a detail event's thread_id SHOULD equal the header's thread_id.") \
    X(DET_FTR_001, "DET-FTR", "001", E, 0, "Detail footer event_count MUST equal the number of events in the events section.") \
    X(DET_FTR_002, "DET-FTR", "002", E, 0, "Detail footer bytes_length MUST equal the size of the events section.") \
    X(DET_FTR_003, "DET-FTR", "003", E, 0, "Detail footer time_start_ns / time_end_ns MUST equal the first / last event's timestamp (0 when empty).") \
    X(DET_FTR_004, "DET-FTR", "004", W, 0, "Reserved detail footer bytes SHOULD be 0.")                          \
    X(DET_FTR_005, "DET-FTR", "005", E, 0, "Nothing MUST follow the detail footer.")                             \
    X(ARM_PAY_001, "ARM-PAY", "001", E, 0, "The ARM64 payload MUST be at least 100 bytes.")                      \
    X(ARM_PAY_002, "ARM-PAY", "002", E, 0, "stack_size MUST NOT exceed 256.")                                    \
    X(ARM_PAY_003, "ARM-PAY", "003", E, 0, "The ARM64 payload MUST be exactly 100 + stack_size bytes.")          \
    X(ARM_PAY_004, "ARM-PAY", "004", W, 0, "The ARM64 payload's reserved u16 SHOULD be 0.")                      \
    X(ARM_PAY_005, "ARM-PAY", "005", E, 0, "The payload's function_id MUST equal the function_id of the linked index event.") \
    X(LINK_001, "LINK", "001", E, 1, "Every detail_seq other than the sentinel MUST be less than the detail file's event count.") \
    X(LINK_002, "LINK", "002", E, 0, "The detail event an index event links to MUST link back to it.")          \
    X(LINK_003, "LINK", "003", E, 1, "Every detail event's index_seq MUST be less than the index file's event count.") \
    X(LINK_004, "LINK", "004", E, 0, "The index event a detail event links to MUST link forward to it.")        \
    X(LINK_005, "LINK", "005", E, 0, "A finalized index header's has_detail_file flag MUST be set exactly when detail.atf exists.") \
    X(LINK_006, "LINK", "006", E, 0, "Without a detail file every detail_seq MUST be the sentinel.")             \
    X(LINK_007, "LINK", "007", W, 0, "A detail event's timestamp SHOULD equal its index event's timestamp_ns.")  \
    X(LINK_008, "LINK", "008", E, 0, "The detail header's thread_id MUST equal the index header's thread_id.")   \
    X(SES_MAN_001, "SES-MAN", "001", W, 0, "A session directory SHOULD contain manifest.json.")                  \
    X(SES_MAN_002, "SES-MAN", "002", E, 0, "manifest.json MUST be a valid JSON object with a threads array of objects with unique u64 ids; typed keys MUST have their types.") \
    X(SES_MAN_003, "SES-MAN", "003", E, 0, "Every thread the manifest lists MUST have thread_<id>/index.atf.")    \
    X(SES_MAN_004, "SES-MAN", "004", W, 0, "Every thread_<id>/ directory SHOULD be listed in the manifest.")     \
    X(SES_MAN_005, "SES-MAN", "005", W, 0, "has_detail SHOULD agree with the presence of detail.atf.")           \
    X(SES_MAN_006, "SES-MAN", "006", W, 0, "time_start_ns / time_end_ns SHOULD be set (non-zero) for a session with events.") \
    X(SES_MAN_007, "SES-MAN", "007", E, 0, "When set, the manifest time range MUST contain the first and last event of every thread.") \
    X(SES_MAN_008, "SES-MAN", "008", W, 0, "The manifest clock_type, when present, SHOULD equal the index headers' clock_type.") \
    X(SES_MAN_009, "SES-MAN", "009", W, 0, "format_version, when present, SHOULD be \"2.0\" or \"2.1\".")       \
    X(SES_MAN_010, "SES-MAN", "010", W, 0, "events_dropped SHOULD be 0: a non-zero value means the recording is lossy.") \
    X(SES_MAN_011, "SES-MAN", "011", W, 0, "A session SHOULD contain at least one thread.")                      \
    X(REC_001, "REC", "001", W, 1, "A file without a footer is crash-truncated: complete events are recovered and their count reported.") \
    X(REC_002, "REC", "002", W, 1, "A partial trailing record after the last complete event MUST be ignored and reported.") \
    X(REC_003, "REC", "003", W, 1, "A torn footer (a crash during finalize) MUST NOT be read as an event.")      \
    X(REC_004, "REC", "004", E, 0, "A finalized header without a footer where it says is damage, not a crash.") \
    X(REC_005, "REC", "005", E, 0, "In a file without a footer, the bytes after the recovered events MUST be a partial record, a torn footer, or zero bytes.") \
    X(CRC_001, "CRC", "001", E, 0, "Layout 2: a non-zero footer checksum MUST equal the CRC32-C of the events section.") \
    X(CRC_002, "CRC", "002", E, 0, "Layout 1: a non-zero footer checksum MUST equal the CRC32-C or the CRC32/IEEE of the events section.") \
    X(CRC_003, "CRC", "003", W, 0, "Layout 2 writers SHOULD write a checksum; 0 means unchecked.")

#endif /* ATF_VALIDATOR_CLAUSE_LIST_H */
