/* Internal helpers shared by the ATF codec's sources (not installed); the
 * helpers every format shares are in formats/common/src/common.h. */
#ifndef ATF_INTERNAL_H
#define ATF_INTERNAL_H

#include <stdint.h>
#include <stddef.h>

#include "common.h"

/* Opening a file cut inside its header (SPEC 7a.12): crash-truncated, 0
 * events; the identity bytes that are there are kept. One body for the index
 * and the detail reader, whose header and info structs share these names. */
#define ATF_OPEN_CUT_HEADER(h, info, d, size, header_size)                                 \
    do {                                                                                \
        memset((h), 0, sizeof *(h));                                                    \
        (h)->endian = (size) > 4 ? (d)[4] : 0;                                          \
        (h)->version = (size) > 5 ? (d)[5] : 0;                                         \
        (h)->arch = (size) > 6 ? (d)[6] : 0;                                            \
        (h)->os = (size) > 7 ? (d)[7] : 0;                                              \
        (h)->events_offset = (header_size);                                             \
        (info)->layout = (atf_layout)(h)->version;                                      \
        (info)->header_truncated = 1;                                                   \
        (info)->recovered = 1;                                                          \
        (info)->state = ATF_FILE_CRASH_TRUNCATED;                                       \
        (info)->trailing_bytes = (size);                                                \
        (info)->checksum = ATF_CHECKSUM_NO_FOOTER;                                      \
    } while (0)

/* Looks in @session_dir for a directory that names thread @id but is not
 * spelled thread_<id> (decimal, no leading zeros): thread_01, Thread-1,
 * thread1. Writes its name to @dst and returns 1 if there is one, for a
 * message that says how to fix the session. Used by the session reader and
 * the validator. */
int atf_thread_dir_misnamed(const char *session_dir, uint64_t id, char *dst, size_t cap);

/* ---- Verifying in parts side by side (atf_part_count, common.h) ----------- */

#include <pthread.h>

#define ATF_VERIFY_PARTS_MAX 8

/* A crash-truncated manifest.json (SPEC 7a.14): its JSON text's length
 * (without the NUL tail) and the file's size. */
typedef struct atf_manifest_cut {
    int cut;           /* 1: crash-truncated, read as absent */
    size_t text_len;
    uint64_t size;
} atf_manifest_cut;

/* atf_manifest_load() for the session reader: a crash-truncated manifest is
 * not an error but ATF_OK with *out NULL and cut->cut 1. */
struct atf_manifest;
atf_status atf_manifest_load_session(struct atf_manifest **out, const char *path, atf_manifest_cut *cut,
                                     atf_error *err);

#endif /* ATF_INTERNAL_H */
