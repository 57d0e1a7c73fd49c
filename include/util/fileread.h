/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fileread.h - the one bounded file reader of the plugin and the CLI.
 *
 * Every file nccl-numa reads may be named by someone else (a mapping, a run
 * directory, HWLOC_XMLFILE) and may be a FIFO (open would block), a device
 * (/dev/zero never ends) or huge. A file is opened with O_NONBLOCK, checked with
 * fstat to be a regular file of at most `cap` bytes, and read to its end, never
 * more than cap bytes (a file growing after fstat is still caught).
 */
#ifndef NCCL_NUMA_FILEREAD_H
#define NCCL_NUMA_FILEREAD_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Flags of nn_file_open / nn_file_read. */
#define NN_FILE_NOFOLLOW 1   /* refuse a symbolic link as the last component */
#define NN_FILE_BENEATH 2    /* path relative to dirfd, no "..", no symbolic link anywhere */
#define NN_FILE_MISSING_OK 4 /* a missing file (ENOENT) is no error: returns 1, no message */
#define NN_FILE_BARE 8       /* messages without the leading "PATH: " (the caller names the file) */

/* A cap for callers that read only a bounded part of a file themselves. */
#define NN_FILE_ANY_SIZE ((size_t)1 << 40)

/* What a file mode says the file is: "a directory", "a FIFO", "a socket", ... */
const char *nn_file_kind(mode_t mode);

/* Opens path (relative to dirfd; AT_FDCWD for an ordinary path) read-only without
 * blocking and checks it is a regular file of at most cap bytes. Returns the
 * descriptor (close-on-exec; the caller closes it), or -1 with errno set and
 * "PATH: problem" in err: cannot open (strerror), a symbolic link, not a regular
 * file (which kind), or over the size limit. */
int nn_file_open(int dirfd, const char *path, int flags, size_t cap, char *err, size_t errsz);

/* Reads the rest of fd (named `name` in messages), at most cap bytes, into a malloc'd
 * NUL-terminated buffer (*buf, caller frees; *len excludes the NUL). Returns 0, or -1
 * with errno and err set (read error, out of memory, more than cap bytes). */
int nn_file_read_fd(int fd, const char *name, size_t cap, char **buf, size_t *len, char *err,
                    size_t errsz);

/* nn_file_open, then nn_file_read_fd, then close. Returns 0, 1 (missing, only with
 * NN_FILE_MISSING_OK; *buf NULL) or -1 (err set). */
int nn_file_read(int dirfd, const char *path, int flags, size_t cap, char **buf, size_t *len,
                 char *err, size_t errsz);

/* nn_file_open (relative to the working directory), then a stdio stream on the descriptor
 * for reading, for callers that read line by line. Returns the stream (the caller
 * fcloses it) or NULL with errno set; no message. */
FILE *nn_file_fopen(const char *path, int flags, size_t cap);

#endif
