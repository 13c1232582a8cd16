/* Helpers shared by every format's codec (formats/<format>/src): errors with file,
 * offset and field; a file's bytes mapped or read; path and write helpers.
 * Not installed. */
#ifndef ATF_COMMON_H
#define ATF_COMMON_H

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
atf_status atf_failv(atf_error *err, atf_status code, uint64_t offset, const char *field, const char *fmt,
                     va_list ap) ATF_PRINTF(5, 0);
/* atf_fail() of an error about a whole file (a path that cannot be opened or
 * read, a directory that is not a session): err cleared, its file set to
 * @file (NULL: none), no offset, no field. */
atf_status atf_fail_file(atf_error *err, atf_status code, const char *file, const char *fmt, ...)
    ATF_PRINTF(4, 5);
void atf_error_set_file(atf_error *err, const char *file);
void atf_error_clear(atf_error *err);
/* Makes @err's field text outlive what it points into (a reader's
 * definitions, about to be freed): copied into thread-local storage (the
 * last 8 kept per thread), the field pointed at the copy. */
void atf_error_detach_field(atf_error *err);

/* The CPUs this process may run on (parts.c): those of its affinity mask
 * (taskset, a container's cpuset), at most its cgroup v2 CPU quota (cpu.max
 * of its cgroup and every parent, rounded up), at least 1; sysconf's
 * online count when the mask cannot be read. What every default thread
 * count here starts from: a CI runner given 2 CPUs of a 64-CPU host gets 2. */
unsigned atf_cpu_count(void);
/* The CPUs a cgroup v2 cpu.max text allows ("QUOTA PERIOD", rounded up),
 * 0 for no limit ("max ...") or text that is not one. */
unsigned atf_cgroup_quota_cpus(const char *cpu_max);

/* Parts to check @bytes made of @units indivisible units (events, or bytes)
 * in, side by side: @wanted when not 0 (a reader's or validator's threads
 * option), else one per CPU (atf_cpu_count) with at least 16 MiB each; at most @max and
 * @units, at least 1 (parts.c). */
unsigned atf_part_count(unsigned wanted, uint64_t bytes, uint64_t units, unsigned max);

/* Runs @run on each of the @n parts at @parts (an array of @stride-byte
 * elements; a stride of 0 hands every run the same element, for workers
 * that share one queue): parts 1..n-1 on threads of their own, part 0 on
 * the calling thread, and a part whose thread could not start on the
 * calling thread too, after part 0. Returns when every part has run.
 * @return the threads that ran parts: 1 (the caller) plus those started. */
unsigned atf_parts_run(void *parts, size_t stride, unsigned n, void (*run)(void *part));

/* A file's bytes: mapped, read into memory, or borrowed from the caller. */
typedef struct atf_blob {
    const uint8_t *data;
    size_t size;
    uint64_t data_end; /* bytes past it are a hole (zeros): atf_fd_data_end(); size for memory */
    void *map;        /* mmap base, or NULL */
    void *heap;       /* malloc'd copy, or NULL */
} atf_blob;

atf_status atf_blob_open(atf_blob *b, const char *path, int no_mmap, atf_error *err);
/* atf_blob_open() of a file of at most @limit bytes (0: no limit): a larger
 * one is ::ATF_E_LIMIT before anything is mapped or read. */
atf_status atf_blob_open_limit(atf_blob *b, const char *path, int no_mmap, uint64_t limit, atf_error *err);
void atf_blob_close(atf_blob *b);
/* The reader is done with [@offset, @offset + @n) of @b and will most
 * likely not read it again: when @b is a mapping, its whole pages in that
 * range are dropped now, on the calling thread (MADV_DONTNEED; read again,
 * they come back from the page cache), so that threads reading parts of a
 * file tear their shares down side by side instead of the unmap in
 * atf_blob_close() doing all of it alone. Otherwise (memory, a heap copy,
 * a range outside the blob) nothing. Thread-safe. */
void atf_blob_release(const atf_blob *b, uint64_t offset, uint64_t n);
/* A reader's input and its name: the file at @path (atf_blob_open(); an
 * error names the file), or, with @path NULL, the caller's @size bytes at
 * @data (borrowed, not copied) named @name, or "<memory>" if @name is NULL.
 * *name_out (malloc'd, the caller frees it) is set before the file is
 * opened, so the caller frees the same things on success and failure. */
atf_status atf_blob_open_named(atf_blob *b, char **name_out, const char *path, const void *data, size_t size,
                               const char *name, int no_mmap, atf_error *err);

/* The strict UTF-8 (RFC 3629) sequence at p (n bytes there): its length (1
 * to 4), its code point in *cp (NULL: not wanted); 0 when it is not valid
 * (overlong, a surrogate, above U+10FFFF, a bad or missing continuation). */
size_t atf_utf8_decode(const uint8_t *p, size_t n, uint32_t *cp);
/* 1 when the n bytes at p are strict UTF-8. */
int atf_utf8_valid(const uint8_t *p, size_t n);

/* strdup that returns NULL on NULL. */
char *atf_strdup(const char *s);
/* Strict decimal u64: digits only (at least one), no sign, no overflow.
 * @return 1 with *out set, or 0. */
int atf_parse_u64(const char *s, uint64_t *out);
/* "thread_<decimal>", canonical (no leading zeros: the thread is opened as
 * "thread_<id>"): 1 with *id set, or 0. */
int atf_thread_dir_id(const char *name, uint64_t *id);
/* Joins a directory and a name into a new string. */
char *atf_path_join(const char *dir, const char *name);
/* The last component of @path is path[*start .. *end) (trailing slashes
 * left out; "/" is its own last component). */
void atf_path_last(const char *path, size_t *start, size_t *end);
/* mkdir -p (mode 0755). Returns 0, -1 (errno says why) or -2 (out of
 * memory, errno ENOMEM). Also used by the recorder, the kit and atf-bench. */
int atf_make_dirs(const char *path);
/* rm -rf: removes @path, a file or a whole tree (links removed, never
 * followed). Returns 0 (also when @path does not exist) or -1, errno set by
 * the first thing that could not be removed (the walk stops there). The one
 * recursive delete of the project: the tools, the kit, atf-bench and the
 * tests call it. */
int atf_remove_tree(const char *path);

/* Write all bytes with pwrite/write retries. */
atf_status atf_write_all(int fd, const void *src, size_t size, uint64_t offset, int positional);

/* A growable byte buffer (writers' chunks, packets being built). */
typedef struct atf_bytebuf {
    uint8_t *p;
    size_t n, cap;
} atf_bytebuf;

/* Room for @more bytes after b->n. @return 0, or -1 when out of memory (b unchanged). */
int atf_bytebuf_reserve(atf_bytebuf *b, size_t more);

/* A zeroed table of @n elements of @size bytes that a reader indexes
 * sparsely (a definition per wire id, a depth per zone): a large one is
 * mapped, so that only the pages written are ever zeroed or resident and
 * freeing it gives them back at once (table.c). NULL when out of memory or
 * when n * size overflows. Freed with atf_table_free() (NULL: nothing). */
void *atf_table_new(size_t n, size_t size);
void atf_table_free(void *table);

#endif /* ATF_COMMON_H */
