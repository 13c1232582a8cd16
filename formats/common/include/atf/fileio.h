/**
 * @file atf/fileio.h
 * @brief What every reader of the library says about the files it opens,
 *        whatever their format: the kind of a path that is not a regular
 *        file, and where a sparse file's data ends.
 */
#ifndef ATF_FILEIO_H
#define ATF_FILEIO_H

#include <stdint.h>

#include <atf/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** "a regular file", "a directory", "a FIFO", "a socket", ... for a stat()
 *  st_mode: what readers say when they refuse a path that is not a regular
 *  file (an I/O problem, not a verdict about the format). */
ATF_API const char *atf_file_type_name(unsigned st_mode);

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
