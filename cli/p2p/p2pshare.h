/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2pshare.h - GPU memory one process exports and another maps, as NCCL's P2P transport does
 * by default (ncclP2pAllocateShareableBuffer and ncclP2pImportShareableBuffer,
 * src/transport/p2p.cc, 2.28.9): cuMemCreate with a POSIX file descriptor as the shareable
 * handle, the descriptor passed over a Unix socket (SCM_RIGHTS), then cuMemImportFromShareable-
 * Handle, cuMemAddressReserve, cuMemMap and cuMemSetAccess for the importing GPU. And the
 * fixed-size messages the processes of one test exchange on their sockets.
 */
#ifndef NCCL_NUMA_CLI_P2PSHARE_H
#define NCCL_NUMA_CLI_P2PSHARE_H

#include <stddef.h>

#include "cli/p2p/p2pgpu.h"

struct nn_p2pshare_buf {
  size_t size; /* rounded up to the allocation granularity */
  unsigned long long handle;
  nn_cu_ptr ptr; /* mapped for the owning GPU */
  int fd;        /* the exported handle */
};

/* At least `bytes` of g's memory, mapped for g and exported as a file descriptor. 0 or -1. */
int nn_p2pshare_create(struct nn_p2pcall *c, const struct nn_p2pgpu *g, size_t bytes,
                       struct nn_p2pshare_buf *b);

/* Maps another process's exported buffer (fd, size) for g: *ptr. Closes fd. 0 or -1. */
int nn_p2pshare_import(struct nn_p2pcall *c, const struct nn_p2pgpu *g, int fd, size_t size,
                       nn_cu_ptr *ptr);

/* One message of `len` bytes on a connected Unix socket, with descriptor fd (-1: none). 0 or -1. */
int nn_p2pshare_send(int sock, const void *msg, size_t len, int fd);

/* The next message (exactly `len` bytes) within timeout_s seconds, and the descriptor it
 * carried into *fd (-1: none; fd NULL: closed). 0, or -1 at end of file, on an error or the
 * timeout. */
int nn_p2pshare_recv(int sock, void *msg, size_t len, int *fd, double timeout_s);

#endif
