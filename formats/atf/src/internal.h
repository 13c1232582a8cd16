/* Internal helpers shared by the codec's sources (not installed). */
#ifndef ATF_INTERNAL_H
#define ATF_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>

#include <atf/error.h>

/* err->offset when no byte offset applies. */
#define ATF_NO_OFFSET UINT64_MAX

#if defined(__GNUC__)
#  define ATF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define ATF_PRINTF(a, b)
#endif

/* Fills err (if not NULL) and returns code. fmt may be NULL (message = strerror). */
atf_status atf_fail(atf_error *err, atf_status code, uint64_t offset, const char *field,
                    const char *fmt, ...) ATF_PRINTF(5, 6);
void atf_error_set_file(atf_error *err, const char *file);
void atf_error_clear(atf_error *err);

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

/* A file's bytes: mapped, read into memory, or borrowed from the caller. */
typedef struct atf_blob {
    const uint8_t *data;
    size_t size;
    uint64_t data_end; /* bytes past it are a hole (zeros): atf_fd_data_end(); size for memory */
    void *map;        /* mmap base, or NULL */
    void *heap;       /* malloc'd copy, or NULL */
} atf_blob;

atf_status atf_blob_open(atf_blob *b, const char *path, int no_mmap, atf_error *err);
void atf_blob_close(atf_blob *b);

/* strdup that returns NULL on NULL. */
char *atf_strdup(const char *s);
/* Joins a directory and a name into a new string. */
char *atf_path_join(const char *dir, const char *name);
/* mkdir -p (mode 0755). Returns 0, -1 (errno says why) or -2 (out of
 * memory, errno ENOMEM). Also used by the recorder, the kit and atf-bench. */
int atf_make_dirs(const char *path);

/* Looks in @session_dir for a directory that names thread @id but is not
 * spelled thread_<id> (decimal, no leading zeros): thread_01, Thread-1,
 * thread1. Writes its name to @dst and returns 1 if there is one, for a
 * message that says how to fix the session. Used by the session reader and
 * the validator. */
int atf_thread_dir_misnamed(const char *session_dir, uint64_t id, char *dst, size_t cap);

/* Write all bytes with pwrite/write retries. */
atf_status atf_write_all(int fd, const void *src, size_t size, uint64_t offset, int positional);

#endif /* ATF_INTERNAL_H */
