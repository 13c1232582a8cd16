/* The clause table of conformance/SPEC.md (ATF), one X() line per clause, in
 * the spec's section order: X(ENUM, "GROUP", "NNN", severity, recoverable,
 * "rule", "hint"); the clause ID is GROUP "-" NNN, and the hint says in one
 * line what a writer changes to satisfy the clause (shown by `atf validate`).
 * `severity` is the clause's default (E error, W warning); `recoverable` is 1
 * where the spec lets a crash-truncated file downgrade a finding to a
 * warning. The one table of ATF's clauses: the validator
 * (conformance/validator/src/clause_list.h) reads it; its test_clauses.c
 * checks it against SPEC.md both ways. */
#ifndef ATF_CLAUSES_H
#define ATF_CLAUSES_H

#define ATF_CLAUSE_LIST_ATF(X)                                                                            \
    X(GEN_LAY_001, "GEN-LAY", "001", E, 0, "The index and detail files of one thread MUST use the same layout.", \
      "Write index.atf and detail.atf of a thread with the same version byte (1 or 2).") \
    X(GEN_LAY_002, "GEN-LAY", "002", W, 0, "All threads of one session SHOULD use the same layout.", \
      "Write every thread of a session in one layout: one version byte for the whole session.") \
    X(IDX_HDR_001, "IDX-HDR", "001", E, 0, "The index file MUST be at least 64 bytes long and MUST start with the magic \"ATI2\".", \
      "Start index.atf with the 64-byte index header, magic \"ATI2\"; write the header before any event.") \
    X(IDX_HDR_002, "IDX-HDR", "002", E, 0, "The index header's endian MUST be 1 (little-endian).", \
      "Write endian = 1 at byte 4: ATF files are always little-endian.") \
    X(IDX_HDR_003, "IDX-HDR", "003", E, 0, "The index header's version MUST be 1 or 2; it selects the layout.", \
      "Write version 1 (BH-002 field widths) or 2 (ATF spec widths) at byte 5, the layout you encode.") \
    X(IDX_HDR_004, "IDX-HDR", "004", W, 0, "arch SHOULD be 1 (x86_64) or 2 (arm64).", \
      "Write arch 1 for x86_64 or 2 for arm64 at byte 6.") \
    X(IDX_HDR_005, "IDX-HDR", "005", W, 0, "os SHOULD be one of 1..5.", \
      "Write os 1 iOS, 2 Android, 3 macOS, 4 Linux or 5 Windows at byte 7.") \
    X(IDX_HDR_006, "IDX-HDR", "006", W, 0, "clock_type SHOULD be one of 1..3.", \
      "Write clock_type 1 mach_continuous, 2 QPC or 3 boottime at byte 16.") \
    X(IDX_HDR_007, "IDX-HDR", "007", W, 0, "flags bits other than bit 0 are reserved and SHOULD be 0.", \
      "Set only bit 0 (has_detail_file) of flags; clear every other bit.") \
    X(IDX_HDR_008, "IDX-HDR", "008", W, 0, "Reserved index header bytes SHOULD be 0.", \
      "Zero the reserved header bytes: start from a zeroed 64-byte header and set the fields.") \
    X(IDX_HDR_009, "IDX-HDR", "009", E, 0, "event_size MUST be 32.", \
      "Write event_size = 32, the size of one index event.") \
    X(IDX_HDR_010, "IDX-HDR", "010", E, 0, "events_offset MUST be at least 64 and MUST NOT exceed the file size.", \
      "Write events_offset = 64, the first byte after the header.") \
    X(IDX_HDR_011, "IDX-HDR", "011", W, 0, "events_offset SHOULD be 64.", \
      "Write events_offset = 64: readers expect the events right after the header.") \
    X(IDX_HDR_012, "IDX-HDR", "012", E, 0, "In a finalized header, event_count MUST equal the footer's event_count.", \
      "At finalize, rewrite the header with the event_count written in the footer.") \
    X(IDX_HDR_013, "IDX-HDR", "013", E, 0, "In a finalized header, footer_offset MUST equal events_offset + event_count * 32 and a footer MUST be there.", \
      "At finalize, write the footer at events_offset + event_count * 32 and store that offset in footer_offset.") \
    X(IDX_HDR_014, "IDX-HDR", "014", E, 0, "In a finalized header, time_start_ns and time_end_ns MUST equal the footer's.", \
      "At finalize, copy the footer's time_start_ns and time_end_ns into the header.") \
    X(IDX_HDR_015, "IDX-HDR", "015", W, 0, "A file with its footer SHOULD have a finalized header: a placeholder before a footer means the header was never rewritten.", \
      "At finalize, after writing the footer, rewrite the header with the final event_count, footer_offset and times.") \
    X(IDX_EVT_001, "IDX-EVT", "001", E, 0, "event_kind MUST be 1 (call), 2 (return) or 3 (exception).", \
      "Write event_kind 1 for a call, 2 for a return, 3 for an exception.") \
    X(IDX_EVT_002, "IDX-EVT", "002", W, 0, "Layout 2: reserved index event bytes 25..31 SHOULD be 0.", \
      "Zero bytes 25..31 of every layout-2 index event.") \
    X(IDX_EVT_003, "IDX-EVT", "003", E, 0, "timestamp_ns MUST NOT decrease from one event to the next within a file.", \
      "Read one monotonic clock per thread and append events in the order they happen.") \
    X(IDX_EVT_004, "IDX-EVT", "004", W, 0, "Layout 1: an event's thread_id SHOULD equal the header's thread_id.", \
      "Layout 1: write the header's thread_id into every event's thread_id.") \
    X(IDX_EVT_005, "IDX-EVT", "005", E, 0, "Linked detail_seq values MUST strictly increase with seq.", \
      "Number the thread's detail events 0, 1, 2... in writing order and store that number in detail_seq.") \
    X(IDX_FTR_001, "IDX-FTR", "001", E, 0, "A footer's event_count * 32 MUST fit between events_offset and the footer.", \
      "Write in the footer's event_count the number of events actually written before it.") \
    X(IDX_FTR_002, "IDX-FTR", "002", E, 0, "bytes_written MUST equal event_count * 32.", \
      "Write bytes_written = event_count * 32.") \
    X(IDX_FTR_003, "IDX-FTR", "003", E, 0, "Footer time_start_ns / time_end_ns MUST equal the first / last event's timestamp_ns (0 when empty).", \
      "Set the footer's time_start_ns / time_end_ns to the first / last event's timestamp_ns (0 and 0 when empty).") \
    X(IDX_FTR_004, "IDX-FTR", "004", W, 0, "Reserved index footer bytes SHOULD be 0.", \
      "Zero the footer's reserved bytes 40..63.") \
    X(IDX_FTR_005, "IDX-FTR", "005", E, 0, "The footer MUST immediately follow the last event, and nothing MUST follow the footer.", \
      "Write the footer right after the last event and end the file there (no padding, no leftover bytes).") \
    X(DET_HDR_001, "DET-HDR", "001", E, 0, "The detail file MUST be at least 64 bytes long and MUST start with the magic \"ATD2\".", \
      "Start detail.atf with the 64-byte detail header, magic \"ATD2\".") \
    X(DET_HDR_002, "DET-HDR", "002", E, 0, "The detail header's endian MUST be 1.", \
      "Write endian = 1 at byte 4 of the detail header.") \
    X(DET_HDR_003, "DET-HDR", "003", E, 0, "The detail header's version MUST be 1 or 2.", \
      "Write version 1 or 2 at byte 5, the same as the thread's index file.") \
    X(DET_HDR_004, "DET-HDR", "004", W, 0, "Detail header arch SHOULD be 1 or 2; os SHOULD be one of 1..5.", \
      "Write the same arch (1 or 2) and os (1..5) as the index header.") \
    X(DET_HDR_005, "DET-HDR", "005", W, 0, "Detail header flags and reserved bytes (16..19, 60..63) SHOULD be 0.", \
      "Write detail header flags 0 and zero the reserved bytes 16..19 and 60..63.") \
    X(DET_HDR_006, "DET-HDR", "006", E, 0, "Detail events_offset MUST be at least 64 and MUST NOT exceed the file size.", \
      "Write events_offset = 64 in the detail header.") \
    X(DET_HDR_007, "DET-HDR", "007", E, 0, "In a finalized detail header, event_count and bytes_length MUST equal the footer's, and the footer MUST be at events_offset + bytes_length.", \
      "At finalize, rewrite the detail header with the footer's event_count and bytes_length; put the footer at events_offset + bytes_length.") \
    X(DET_HDR_008, "DET-HDR", "008", E, 0, "In a finalized detail header with events, index_seq_start / index_seq_end MUST equal the first / last event's index_seq.", \
      "At finalize, set index_seq_start / index_seq_end to the first / last detail event's index_seq.") \
    X(DET_HDR_009, "DET-HDR", "009", W, 0, "A detail file with its footer and events SHOULD have a finalized header: a placeholder before it means the header was never rewritten.", \
      "At finalize, after writing the detail footer, rewrite the detail header with the final counts and index_seq range.") \
    X(DET_EVT_001, "DET-EVT", "001", E, 0, "total_length MUST be at least 24.", \
      "Set total_length to 24 (the event header) plus the payload bytes.") \
    X(DET_EVT_002, "DET-EVT", "002", E, 0, "Every detail event MUST lie entirely inside the events section.", \
      "Write every detail event whole (24-byte header + payload) before the footer; total_length must not reach past it.") \
    X(DET_EVT_003, "DET-EVT", "003", W, 0, "event_type SHOULD be 3 or 4.", \
      "Use event_type 3 for a function call and 4 for a function return.") \
    X(DET_EVT_004, "DET-EVT", "004", E, 0, "Detail timestamp MUST NOT decrease from one event to the next within a file.", \
      "Write detail events in time order, each with its index event's timestamp.") \
    X(DET_EVT_005, "DET-EVT", "005", E, 0, "index_seq MUST strictly increase from one detail event to the next.", \
      "Write detail events in the order of their index events, so index_seq strictly increases.") \
    X(DET_EVT_006, "DET-EVT", "006", W, 0, "Layout 1: a detail event's thread_id SHOULD equal the header's thread_id.", \
      "Layout 1: write the detail header's thread_id in every detail event.") \
    X(DET_FTR_001, "DET-FTR", "001", E, 0, "Detail footer event_count MUST equal the number of events in the events section.", \
      "Count the detail events written and store that number in the detail footer's event_count.") \
    X(DET_FTR_002, "DET-FTR", "002", E, 0, "Detail footer bytes_length MUST equal the size of the events section.", \
      "Store the byte size of the events section (the sum of every total_length) in the footer's bytes_length.") \
    X(DET_FTR_003, "DET-FTR", "003", E, 0, "Detail footer time_start_ns / time_end_ns MUST equal the first / last event's timestamp (0 when empty).", \
      "Set the detail footer's time_start_ns / time_end_ns to the first / last detail event's timestamp (0 and 0 when empty).") \
    X(DET_FTR_004, "DET-FTR", "004", W, 0, "Reserved detail footer bytes SHOULD be 0.", \
      "Zero the detail footer's reserved bytes 40..63.") \
    X(DET_FTR_005, "DET-FTR", "005", E, 0, "Nothing MUST follow the detail footer.", \
      "End detail.atf right after its 64-byte footer.") \
    X(ARM_PAY_001, "ARM-PAY", "001", E, 0, "The ARM64 payload MUST be at least 100 bytes.", \
      "Write the whole 100-byte ARM64 payload head: function_id, x0..x7, lr, fp, sp, stack_size, reserved.") \
    X(ARM_PAY_002, "ARM-PAY", "002", E, 0, "stack_size MUST NOT exceed 256.", \
      "Copy at most 256 stack bytes and store that count in stack_size.") \
    X(ARM_PAY_003, "ARM-PAY", "003", E, 0, "The ARM64 payload MUST be exactly 100 + stack_size bytes.", \
      "Make the payload exactly 100 + stack_size bytes (total_length = 124 + stack_size).") \
    X(ARM_PAY_004, "ARM-PAY", "004", W, 0, "The ARM64 payload's reserved u16 SHOULD be 0.", \
      "Write 0 in the payload's reserved u16 after stack_size.") \
    X(ARM_PAY_005, "ARM-PAY", "005", E, 0, "The payload's function_id MUST equal the function_id of the linked index event.", \
      "Copy the index event's function_id into the payload's first 8 bytes.") \
    X(LINK_001, "LINK", "001", E, 1, "Every detail_seq other than the sentinel MUST be less than the detail file's event count.", \
      "Store a detail_seq only for a detail event that is written; use the no-detail sentinel otherwise.") \
    X(LINK_002, "LINK", "002", E, 0, "The detail event an index event links to MUST link back to it.", \
      "Store in each detail event's index_seq the seq of the index event that links to it.") \
    X(LINK_003, "LINK", "003", E, 1, "Every detail event's index_seq MUST be less than the index file's event count.", \
      "Store in index_seq the seq of an index event that is written to index.atf.") \
    X(LINK_004, "LINK", "004", E, 0, "The index event a detail event links to MUST link forward to it.", \
      "Set the index event's detail_seq to the position of the detail event that names it.") \
    X(LINK_005, "LINK", "005", E, 0, "A finalized index header's has_detail_file flag MUST be set exactly when detail.atf exists.", \
      "In the finalized index header, set has_detail_file (flags bit 0) exactly when the thread has a detail.atf.") \
    X(LINK_006, "LINK", "006", E, 0, "Without a detail file every detail_seq MUST be the sentinel.", \
      "Without detail.atf, write the no-detail sentinel (UINT32_MAX in layout 1, UINT64_MAX in layout 2) in every detail_seq.") \
    X(LINK_007, "LINK", "007", W, 0, "A detail event's timestamp SHOULD equal its index event's timestamp_ns.", \
      "Stamp each detail event with its index event's timestamp_ns.") \
    X(LINK_008, "LINK", "008", E, 0, "The detail header's thread_id MUST equal the index header's thread_id.", \
      "Write the index header's thread_id in the detail header too.") \
    X(SES_MAN_001, "SES-MAN", "001", W, 0, "A session directory SHOULD contain manifest.json.", \
      "Write manifest.json in the session directory when the session stops.") \
    X(SES_MAN_002, "SES-MAN", "002", E, 0, "manifest.json MUST be a valid JSON object with a threads array of objects with unique u64 ids; typed keys MUST have their types.", \
      "Write manifest.json as one JSON object {\"threads\":[{\"id\":N,\"has_detail\":true|false}],...}: unique unsigned ids, documented keys with their types.") \
    X(SES_MAN_003, "SES-MAN", "003", E, 0, "Every thread the manifest lists MUST have thread_<id>/index.atf.", \
      "List a thread only once thread_<id>/index.atf exists; name the directory with the id in decimal, no leading zeros.") \
    X(SES_MAN_004, "SES-MAN", "004", W, 0, "Every thread_<id>/ directory SHOULD be listed in the manifest.", \
      "Add every thread_<id>/ directory to the manifest's threads array (or remove the stray directory).") \
    X(SES_MAN_005, "SES-MAN", "005", W, 0, "has_detail SHOULD agree with the presence of detail.atf.", \
      "Set has_detail true exactly for the threads that have a detail.atf.") \
    X(SES_MAN_006, "SES-MAN", "006", W, 0, "time_start_ns / time_end_ns SHOULD be set (non-zero) for a session with events.", \
      "Write time_start_ns / time_end_ns as the session's first and last event timestamps.") \
    X(SES_MAN_007, "SES-MAN", "007", E, 0, "When set, the manifest time range MUST contain the first and last event of every thread.", \
      "Compute the manifest's time range from the events written: the earliest first and the latest last timestamp of all threads.") \
    X(SES_MAN_008, "SES-MAN", "008", W, 0, "The manifest clock_type, when present, SHOULD equal the index headers' clock_type.", \
      "Write the index headers' clock_type in the manifest too.") \
    X(SES_MAN_009, "SES-MAN", "009", W, 0, "format_version, when present, SHOULD be \"2.0\" or \"2.1\".", \
      "Write format_version \"2.0\", or \"2.1\" when the manifest has a symbol table.") \
    X(SES_MAN_010, "SES-MAN", "010", W, 0, "events_dropped SHOULD be 0: a non-zero value means the recording is lossy.", \
      "Give the recorder buffers large enough for the event rate, or record fewer events: every dropped event is lost.") \
    X(SES_MAN_011, "SES-MAN", "011", W, 0, "A session SHOULD contain at least one thread.", \
      "Write at least one thread: thread_<id>/index.atf and its entry in the manifest.") \
    X(SES_MAN_012, "SES-MAN", "012", W, 0, "Each function_id SHOULD appear at most once in symbols.", \
      "Write one symbols entry per function_id: merge or drop the duplicates (a reader resolves an id to one name).") \
    X(SES_MAN_013, "SES-MAN", "013", E, 0, "A number in a typed key MUST be an integer in the key's range (u64: 0 to 2^64-1).", \
      "Write u64 values as integers 0..18446744073709551615 (plain JSON integers of any size, or decimal/0x strings): no sign, fraction or exponent.") \
    X(REC_001, "REC", "001", W, 1, "A file without a footer is crash-truncated: complete events are recovered and their count reported.", \
      "Finish the file at close: write the footer, then rewrite the header (the writer stopped early or crashed).") \
    X(REC_002, "REC", "002", W, 1, "A partial trailing record after the last complete event MUST be ignored and reported.", \
      "Finish the file with its footer; a crash left a partial event at the end.") \
    X(REC_003, "REC", "003", W, 1, "A torn footer (a crash during finalize) MUST NOT be read as an event.", \
      "Finish the footer write and flush it before rewriting the header (a crash during finalize left a torn footer).") \
    X(REC_004, "REC", "004", E, 0, "A finalized header without a footer where it says is damage, not a crash.", \
      "Write the footer where the finalized header says (footer_offset), or keep the placeholder header until the footer is on disk.") \
    X(REC_005, "REC", "005", E, 0, "In a file without a footer, the bytes after the recovered events MUST be a partial record, a torn footer, or zero bytes.", \
      "After the events of an unfinished file write nothing but events; only a partial event, a torn footer or zero bytes may follow.") \
    X(CRC_001, "CRC", "001", E, 0, "Layout 2: a non-zero footer checksum MUST equal the CRC32-C of the events section.", \
      "Store the CRC32-C (Castagnoli) of the events section exactly as written, or 0.") \
    X(CRC_002, "CRC", "002", E, 0, "Layout 1: a non-zero footer checksum MUST equal the CRC32-C or the CRC32/IEEE of the events section.", \
      "Store the CRC32-C or CRC32/IEEE of the events section exactly as written, or 0.") \
    X(CRC_003, "CRC", "003", W, 0, "Layout 2 writers SHOULD write a checksum; 0 means unchecked.", \
      "Compute the CRC32-C of the events section and store it in the footer's checksum.")

#endif
