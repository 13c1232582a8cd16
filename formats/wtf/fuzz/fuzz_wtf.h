/* What the WTF fuzz targets share (fuzz_wtf_models.c): an independent model
 * of what a reader must make of a WTF file (conformance/SPEC-WTF.md sections
 * 1-4 and 6, docs/wtf-dump-format.md for zones), the checks of the reader
 * against it (every chunk, every event, every argument and array element),
 * of the validator against the reader, of `atf dump --json`, and a builder
 * of synthesized files.
 *
 * The model reads the bytes with its own loads, its own signature parser and
 * its own argument sizes; it shares no decoder with the codec, so that a
 * disagreement points at one of the two. */
#ifndef ATF_FUZZ_WTF_H
#define ATF_FUZZ_WTF_H

#include <stddef.h>
#include <stdint.h>

#include <atf/wtf.h>

#include "fuzz_support.h"

/* ---- Argument signatures (SPEC-WTF 4.2) ---------------------------------- */

/* Argument types of the model, by their names in a signature. */
typedef struct fz_wtf_type_info {
    const char *name;
    uint8_t elem_size;      /* bytes of an array element */
    uint8_t is_string;      /* a string ordinal (ascii, utf8, any) */
    atf_wtf_type codec;     /* the codec's enumerator of the same name (for comparisons) */
} fz_wtf_type_info;

extern const fz_wtf_type_info fz_wtf_types[15];

typedef struct fz_wtf_arg {
    uint8_t type;           /* index into fz_wtf_types */
    uint8_t array;
    uint16_t name_len;
    const char *name;       /* into the signature text (not terminated) */
} fz_wtf_arg;

#define FZ_WTF_MAX_ARGS 64

/* Parses @p sig (@p len bytes) as SPEC-WTF 4.2 says: arguments "type name"
 * or "type[] name" separated by commas, spaces and tabs around them,
 * names of letters, digits, '_' and '$', no name twice, at most 64.
 * Returns ATF_OK and the arguments, ATF_E_FIELD (a bad or duplicate
 * argument) or ATF_E_LIMIT (more than 64). */
atf_status fz_wtf_parse_signature(const char *sig, size_t len, fz_wtf_arg *args, size_t *nargs);

/* ---- The model of a file --------------------------------------------------- */

/* A string table (SPEC-WTF 3): string i is the i-th NUL-terminated run. */
typedef struct fz_wtf_strtab {
    const uint8_t *data;
    uint32_t size, count;       /* count: NUL bytes */
    uint32_t *starts;
} fz_wtf_strtab;

fz_wtf_strtab *fz_wtf_strtab_new(const uint8_t *data, uint32_t size);
void fz_wtf_strtab_free(fz_wtf_strtab *t);

typedef struct fz_wtf_def {
    uint32_t wire;
    uint16_t event_class;
    uint32_t flags;
    char *name;             /* NUL-terminated copy */
    char *signature;
    size_t nargs;
    fz_wtf_arg args[FZ_WTF_MAX_ARGS];
    unsigned builtin;       /* FZ_WTF_BI_*: what the reader does with it */
} fz_wtf_def;

enum { FZ_WTF_BI_NONE = 0, FZ_WTF_BI_DEFINE, FZ_WTF_BI_ZONE_CREATE, FZ_WTF_BI_ZONE_SET, FZ_WTF_BI_SCOPE_LEAVE };

/* A definition (NULL when the signature does not parse). A built-in's name
 * with other argument types sets *undetermined (may be NULL). */
fz_wtf_def *fz_wtf_def_new(uint32_t wire, uint16_t cls, uint32_t flags, const char *name, size_t nlen,
                           const char *sig, size_t slen, int *undetermined);
void fz_wtf_def_free(fz_wtf_def *d);

/* One event at @p of buffer @b (@n bytes), definitions by wire id in @defs
 * (65536 entries), strings in @t (NULL: none): ATF_OK and its *size, or
 * ATF_E_TRUNCATED (it runs past @n), ATF_E_NOT_FOUND (wire id not defined),
 * ATF_E_LENGTH (an array length below -1), ATF_E_RANGE (a string ordinal
 * outside the table), checked argument by argument in order (SPEC-WTF 4.1). */
atf_status fz_wtf_model_event(fz_wtf_def *const *defs, const fz_wtf_strtab *t, const uint8_t *b, size_t n,
                              size_t p, uint32_t *size);

typedef struct fz_wtf_event {
    uint64_t offset;        /* of the event in the file */
    uint32_t size;          /* header + arguments */
    uint32_t wire, time;
    uint32_t chunk;         /* index of its chunk */
    int32_t zone;           /* zoneId of the last wtf.zone#set before it, -1 before any */
    uint32_t depth;         /* open scopes of its zone before it (a leave: after it) */
    const fz_wtf_def *def;  /* owned by the model */
    const uint8_t *strings; /* its chunk's string table (size bytes), for argument values */
    uint32_t strings_size;
} fz_wtf_event;

typedef struct fz_wtf_model {
    atf_status open_status; /* ATF_OK, or what atf_wtf_reader_open_memory must return */
    atf_wtf_state state;
    int cut;                /* the end of the file cut something (also in a damaged file) */
    int header_cut;         /* cut inside its 12-byte header (SPEC-WTF 6.3) */
    int undetermined;       /* a built-in's name with other arguments: only structure is modelled
                               from there on (events, zones and depth are not compared) */
    uint64_t chunks, event_chunks, events, events_in_cut_chunk, chunks_skipped;
    struct {
        uint64_t offset;
        uint32_t index;     /* position in the file (skipped chunks counted) */
    } *chunk;               /* the chunks a reader returns, in order (chunks of them) */
    const uint8_t *header_json; /* the first chunk's file-header part when whole, else NULL */
    size_t header_json_len;
    fz_wtf_event *ev;       /* events in file order (events of them) */
    fz_wtf_def **defs_owned;/* every definition made */
    size_t ndefs_owned;
} fz_wtf_model;

/* The file header's status (SPEC-WTF 1): ATF_OK, or the status a reader
 * refuses the file with. *crash_prefix is set when the file is shorter than
 * 12 bytes and is the start of a valid header (SPEC-WTF 6.3: crash-truncated,
 * 0 events, not refused). */
atf_status fz_wtf_header_status(const uint8_t *d, size_t size, int *crash_prefix);

fz_wtf_model fz_wtf_model_of(const uint8_t *d, size_t size);
void fz_wtf_model_free(fz_wtf_model *m);

/* ---- Checks ------------------------------------------------------------------ */

/* Opens @p d with atf_wtf_reader_open_memory, reads every chunk, event,
 * argument and array element, and checks all of it against the model: open
 * status, chunk fields, event offsets, sizes, wire ids, times, definitions,
 * zones and depth, every value decoded from the bytes independently, the
 * summary (state, counts), the file-header JSON, error records. */
void fz_wtf_check_reader(const uint8_t *d, size_t size, const fz_wtf_model *m);

/* Reads @p d in 3 parts side by side (atf_wtf_read_parts_memory, in batches
 * of 5 events) and checks the chunks, events (place, wire id, time, zone,
 * depth), error returns and summary against the model (not for an
 * undetermined model). Seven readers and two threads an input: the file
 * and roundtrip targets call it, not the truncation suite. */
void fz_wtf_check_reader_parts(const uint8_t *d, size_t size, const fz_wtf_model *m);

/* The validator on @p d against the model: it refuses the file header
 * exactly when the reader does; it reports one of the clauses of damage
 * (WTF-CHK-001..006, WTF-EVT-001..004) exactly when the reader calls the
 * file damaged; otherwise WTF-REC-001 (a warning) and a recovered entry
 * with the reader's event count exactly when the file is crash-truncated.
 * Findings are well formed (WTF clause, offset inside the file, one line)
 * and the same on a second run. */
void fz_wtf_check_validator(const uint8_t *d, size_t size, const fz_wtf_model *m);

/* `atf dump --json` (and the text dump) of @p d written to a scratch file:
 * the exit status follows the state, one stderr line for a file not read
 * whole, every line is one JSON value, a file line, a chunk line per chunk
 * and an event line per event with the model's offset, wire id, time, zone
 * and name, in file order. */
void fz_wtf_check_dump(const uint8_t *d, size_t size, const fz_wtf_model *m);

/* A whole-file target: the input, a truncation and a one-byte corruption
 * chosen by its last bytes (fz_check_file_variants), each against the model
 * through the reader and then either the dump or (@p validator) the
 * validator. */
void fz_wtf_check_file(const uint8_t *data, size_t size, int validator);

/* What a cut of @p d (a complete file, model @p full) after @p len bytes must
 * leave, computed from the original's structure (SPEC-WTF 6): *events,
 * the first events of @p full that a reader recovers (the whole chunks,
 * and of the chunk cut short the events that end before the cut when its
 * part table and string table are whole), and the *state (complete when
 * the cut falls on a chunk boundary after the first chunk). */
void fz_wtf_cut_expect(const uint8_t *d, size_t size, const fz_wtf_model *full, size_t len, uint64_t *events,
                       atf_wtf_state *state);

/* ---- Building files ------------------------------------------------------------ */

void fz_buf_le32(fz_buf *b, uint32_t v);
/* The 12-byte file header (magic, @p wtf_version, format 10). */
void fz_wtf_put_file_header(fz_buf *b, uint32_t wtf_version);
/* One chunk: header, part table, parts zero-padded to 4, as SPEC-WTF 2.1. */
void fz_wtf_put_chunk(fz_buf *b, uint32_t id, uint32_t type, uint32_t start, uint32_t end, size_t nparts,
                      const uint32_t *types, const uint8_t *const *data, const uint32_t *len);

#endif /* ATF_FUZZ_WTF_H */
