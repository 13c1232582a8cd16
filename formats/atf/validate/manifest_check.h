/* manifest.json checks (SPEC.md section 5). */
#ifndef ATF_VALIDATOR_MANIFEST_CHECK_H
#define ATF_VALIDATOR_MANIFEST_CHECK_H

#include "atf_pass.h"

typedef struct vman_thread {
    uint64_t id;
    int has_detail;          /* 1, 0, or -1 when the key is absent */
    size_t index;            /* position in the threads array */
} vman_thread;

typedef struct vmanifest {
    int parsed;              /* a JSON object */
    int threads_ok;          /* it has a threads array (entries that break the schema are left out) */
    vman_thread *threads;    /* valid entries, sorted by id, ids unique */
    size_t thread_count;
    int has_time_start, has_time_end;        /* present and valid */
    int time_start_present, time_end_present; /* present and not null, valid or not */
    uint64_t time_start_ns, time_end_ns;
    int has_clock_type;
    uint8_t clock_type;
} vmanifest;

/* Checks the manifest bytes; every finding goes to `file`.
 * @return ATF_OK or ATF_E_NOMEM. */
atf_status v_manifest_check(atf_validation *v, size_t file, const char *json, size_t size, vmanifest *m);
void v_manifest_free(vmanifest *m);

#endif
