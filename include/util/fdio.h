/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fdio.h - whole-buffer I/O on file descriptors: write(2) may write less than
 * asked or be interrupted by a signal, callers want all or an error.
 */
#ifndef NCCL_NUMA_FDIO_H
#define NCCL_NUMA_FDIO_H

#include <stddef.h>

/* Writes all `len` bytes of `data` to fd, retrying short writes and EINTR.
 * Never raises SIGXFSZ in the calling process (a library must not kill its host):
 * a write that would pass RLIMIT_FSIZE writes nothing and fails with EFBIG.
 * Returns 0, or -1 with errno set (or left as is when write returned 0). */
int nn_fdio_write_all(int fd, const void *data, size_t len);

#endif
