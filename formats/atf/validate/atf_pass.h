/* ATF's part of the validator (conformance/SPEC.md): the index and detail
 * file passes, a thread (both lanes and the cross-lane clauses of section
 * 4), sessions (section 5 and GEN-LAY-002), and what the passes share. */
#ifndef ATF_VALIDATOR_ATF_PASS_H
#define ATF_VALIDATOR_ATF_PASS_H

#include <atf/format.h>

#include "vinternal.h"

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

/* A directory of ATF files: a thread, a session, a directory holding one
 * session, or a root of sessions (session_pass.c); ATF_E_NOT_FOUND when it
 * is none of them. */
atf_status v_atf_directory(atf_validation *v, const char *path, atf_error *err);

#endif /* ATF_VALIDATOR_ATF_PASS_H */
