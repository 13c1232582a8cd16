/**
 * @file atf/fileio.h
 * @brief What every reader of the library says about the files it opens,
 *        whatever their format: the kind of a path that is not a regular
 *        file, and where a sparse file's data ends.
 */
#ifndef ATF_FILEIO_H
#define ATF_FILEIO_H

#include <stdint.h>

#include <atf/error.h>
#include <atf/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** "a regular file", "a directory", "a FIFO", "a socket", ... for a stat()
 *  st_mode: what readers say when they refuse a path that is not a regular
 *  file (an I/O problem, not a verdict about the format). */
ATF_API const char *atf_file_type_name(unsigned st_mode);

/**
 * Creates (or truncates) @p path to write a file of this library into:
 * open(O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), except that it never
 * waits on a special file. A FIFO (with or without a reader), a socket or a
 * directory is refused with ::ATF_E_IO ("a FIFO, not a regular file"); a
 * regular file or a character device (/dev/null) is taken. @return the
 * descriptor (blocking, as open() gives it), or -1 with @p err filled
 * ("cannot create: ...", the path set as its file).
 */
ATF_API int atf_open_output(const char *path, atf_error *err);

/**
 * Where the data of an open file ends: the end of its last data extent
 * (SEEK_DATA / SEEK_HOLE), so that a sparse tail (a file extended with
 * `truncate -s`, or preallocated, after a crash) is known to be zero bytes
 * without reading it. @p size when the file system cannot say, or when the
 * file has more than a few thousand extents.
 */
ATF_API uint64_t atf_fd_data_end(int fd, uint64_t size);

#ifdef __cplusplus
}
#endif
#endif /* ATF_FILEIO_H */
