/* The session's manifest.json (rec_manifest.c) and the per-thread summaries
 * it lists (guarded by the recorder's man_mu). */
#ifndef ATF_REC_MANIFEST_H
#define ATF_REC_MANIFEST_H

#include <stdint.h>

#include <atf/recorder.h>

/* What the manifest says about one thread (guarded by the recorder's man_mu). */
typedef struct rec_summary {
    uint64_t id;
    uint32_t os_tid;
    int has_detail, finalized;
    int listed;                  /* its directory exists (else only its losses count) */
    uint64_t event_count, detail_count;
    uint64_t recorded, detail_recorded, producer_detail_dropped;
    uint64_t dropped, lost_at_stop, lost_io, rejected;
    uint64_t bp_waits, bp_wait_ns;
    uint64_t detail_dropped, preroll_evicted, links_patched;
    uint64_t t_first, t_last;
} rec_summary;

/* Rewrites manifest.json atomically; caller holds man_mu. */
atf_status rec_manifest_write(atf_recorder *r, int sync, atf_error *err);
rec_summary *rec_summary_get(atf_recorder *r, uint64_t id);   /* caller holds man_mu */

#endif /* ATF_REC_MANIFEST_H */
