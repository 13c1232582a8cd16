/* Internals of the validator (not installed): clause enum, the report under
 * construction, and what the file passes hand to the thread-level checks. */
#ifndef ATF_VALIDATOR_INTERNAL_H
#define ATF_VALIDATOR_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include <atf/format.h>
#include <atf/validator.h>

#include "clause_list.h"

#if defined(__GNUC__)
#  define V_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define V_PRINTF(a, b)
#endif

typedef enum vclause {
#define V_X_ENUM_(name, group, num, sev, rec, text, hint) C_##name,
    ATF_CLAUSE_LIST(V_X_ENUM_)
#undef V_X_ENUM_
    C_COUNT_
} vclause;

#define V_NO_OFFSET ATF_VALIDATE_NO_OFFSET
#define V_DEFAULT_MAX_PER_CLAUSE 10u
#define V_DEFAULT_MAX_FINDINGS 10000u

/* ---- Little-endian loads ---------------------------------------------- */

static inline uint16_t v_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t v_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t v_le64(const uint8_t *p) { return (uint64_t)v_le32(p) | ((uint64_t)v_le32(p + 4) << 32); }

/* Offset of the first non-zero byte of p[0..n), or n. */
static inline size_t v_first_nonzero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return i;
    return n;
}

/* ---- The report under construction ------------------------------------ */

/* Per file and clause: how many findings were listed, and what was left out. */
typedef struct vcount {
    uint32_t listed;
    uint8_t more_severity;   /* highest severity left out */
    uint64_t more;           /* findings left out */
    uint64_t more_offset;    /* offset of the first one left out */
} vcount;

typedef struct vfile {
    char *label;             /* relative name used in findings */
    vcount *counts;          /* [C_COUNT_], allocated at the first finding */
} vfile;

typedef struct vfinding {
    atf_validate_finding pub;
    size_t file;             /* index into files */
    uint16_t clause;
    uint8_t summary;         /* summarises findings left out: sorts last in its file */
    uint64_t seq;            /* insertion order: the last sort key */
    char *field_copy;        /* owned copies (pub points at them) */
    char *message_copy;
} vfinding;

typedef struct vrecovered {
    size_t file;
    uint64_t events;
} vrecovered;

struct atf_validation {
    char *path;
    atf_validate_options opts;
    vfile *files;
    size_t file_count, file_cap;
    vfinding *findings;
    size_t finding_count, finding_cap;
    uint64_t seq;
    uint8_t checked[C_COUNT_];
    vrecovered *recovered;
    size_t recovered_count, recovered_cap;
    atf_validate_recovered *recovered_pub;
    /* Findings beyond max_findings: counted, summarised at the end. */
    uint64_t dropped;
    uint8_t dropped_severity;
    size_t dropped_file;
    uint16_t dropped_clause;
    uint64_t dropped_offset;
    uint64_t errors, warnings;       /* every violation found, listed or not */
    uint64_t listed;                 /* of those, listed one by one (findings other than "N more ...") */
    uint64_t unlisted_errors, unlisted_warnings;   /* past max_per_clause or max_findings */
    int oom;                 /* an allocation failed: the run returns ATF_E_NOMEM */
    int finished;
};

/* report.c */
atf_validation *v_create(const char *path, const atf_validate_options *opts);
/* Registers a file and returns its index (files are ordered by registration). */
size_t v_file(atf_validation *v, const char *label);
/* Marks a clause as evaluated. */
static inline void v_check(atf_validation *v, vclause c) { v->checked[c] = 1; }
/* Records a finding (and marks the clause evaluated). sev 0: the clause's default. */
void v_report(atf_validation *v, size_t file, vclause c, atf_severity sev, uint64_t offset, const char *field,
              const char *fmt, ...) V_PRINTF(7, 8);
void v_reportv(atf_validation *v, size_t file, vclause c, atf_severity sev, uint64_t offset, const char *field,
               const char *fmt, va_list ap) V_PRINTF(7, 0);
void v_recovered(atf_validation *v, size_t file, uint64_t events);
/* Summaries, sort, counts. @return ATF_OK or ATF_E_NOMEM. */
atf_status v_finish(atf_validation *v);
atf_severity v_clause_severity(vclause c);
const char *v_clause_id(vclause c);
/* The identity of a header shared by index and detail files: magic and size
 * (c_magic), endian (c_endian), version (c_version). @p kind names the header
 * in messages ("index", "detail"). @return V_HEADER_OK, V_HEADER_BAD (the
 * file cannot be interpreted) or V_HEADER_TRUNCATED (shorter than the header
 * but the start of a valid one: crash-truncated with 0 events, REC-001). */
enum { V_HEADER_BAD = 0, V_HEADER_OK = 1, V_HEADER_TRUNCATED = 2 };
int v_header_identity(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, const char *magic,
                      uint64_t header_size, const char *kind, vclause c_magic, vclause c_endian,
                      vclause c_version);

/* Section 7 for a footer at @p fo holding @p stored, shared by index and
 * detail files. v_checksum_zero: CRC-003 (layout 2 writes the CRC32-C, not
 * 0, over a non-empty section). v_checksum_verdict: CRC-001 (layout 2: the
 * CRC32-C @p crc of the events section) or CRC-002 (layout 1: the CRC32-C
 * or the CRC32/IEEE of @p events, @p len bytes). */
void v_checksum_zero(atf_validation *v, size_t file, int l1, uint32_t stored, uint64_t fo, int nonempty);
void v_checksum_verdict(atf_validation *v, size_t file, int l1, uint32_t stored, uint64_t fo, const uint8_t *events,
                        uint64_t len, uint32_t crc);

/* ---- File passes ------------------------------------------------------ */

/* What the index pass learnt, for the thread-level checks. */
typedef struct vindex {
    int header_ok;           /* magic, endian and version passed: the fields below the header are decoded */
    int usable;              /* events located: n events at data + eo */
    atf_layout layout;
    const uint8_t *data;
    uint64_t size, eo, n;
    int has_footer;
    int finalized;           /* footer_offset != 0 */
    uint32_t flags, thread_id;
    uint8_t clock_type;
    uint64_t linked;         /* events whose detail_seq is not the sentinel */
    uint64_t first_ts, last_ts;
} vindex;

typedef struct vdetail {
    int header_ok;           /* magic, endian and version passed */
    int usable;              /* events walked */
    atf_layout layout;
    uint64_t n;              /* complete events walked */
    int complete;            /* the walk covered the whole events section */
    int has_footer;
    uint32_t thread_id;
} vdetail;

/* The index pass. thread_ctx: the file is validated as part of a thread
 * (LINK-006 applies when !has_detail_file). */
void v_index_pass(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                  int thread_ctx, int has_detail_file, vindex *out);
/* Forward links (LINK-001/002) of index events not confirmed by the detail pass. */
void v_index_forward_links(atf_validation *v, size_t file, const vindex *ix, const vdetail *dt,
                           const uint64_t *confirmed_bits);

/* The detail pass. ix: the thread's index (NULL for a lone file or an
 * unusable index): backward links, LINK-007 and ARM-PAY-005 are checked
 * against it, and every index event whose link is confirmed both ways gets
 * its bit set in confirmed_bits (which may be NULL) and counted. */
void v_detail_pass(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                   const vindex *ix, uint64_t *confirmed_bits, uint64_t *confirmed, vdetail *out);

/* Both files of one thread and the cross-lane clauses; idx NULL: no index
 * file (only the detail file is checked). det_present 0: no detail file.
 * label_prefix is prepended to "index.atf"/"detail.atf". */
typedef struct vthread_summary {
    vindex ix;
    size_t index_file;       /* file index of index.atf, or (size_t)-1 */
} vthread_summary;
atf_status v_thread(atf_validation *v, const char *label_prefix, const uint8_t *idx, uint64_t isize,
                    uint64_t idata_end, int det_present, const uint8_t *det, uint64_t dsize, uint64_t ddata_end,
                    vthread_summary *out);

/* The WTF pass (wtf_pass.c): every WTF-* clause over one file of @p size
 * bytes (data_end: where a sparse tail starts). */
void v_wtf_pass(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end);
/* The same with its fast path for common events off (general_only = 1):
 * the findings must not differ (test_wtf_fast_path). */
void v_wtf_pass_mode(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end,
                     int general_only);
/* atf_validate_wtf_memory() with the fast path on or off. */
atf_status v_validate_wtf_memory(atf_validation **out, const void *data, size_t size, const char *name,
                                 const atf_validate_options *opts, int general_only, atf_error *err);

/* The RTC pass (rtc_pass.c): every RTC-* clause over one file of @p size bytes. */
void v_rtc_pass(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end);
/* The pass of one file of a format module (formats/registry.c): v_wtf_pass, v_rtc_pass. */
typedef void (*v_format_pass)(atf_validation *v, size_t file, const uint8_t *d, uint64_t size, uint64_t data_end);

#endif /* ATF_VALIDATOR_INTERNAL_H */
