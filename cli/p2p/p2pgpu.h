/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2pgpu.h - one GPU as `nccl-numa p2p`'s child processes drive it: its primary context, the
 * embedded kernels (p2p_kernels.ptx), and calls that report a failed driver call as
 * "error STEP: CALL failed: NAME (N)" on the child's output (p2ptest.h lists the lines).
 */
#ifndef NCCL_NUMA_CLI_P2PGPU_H
#define NCCL_NUMA_CLI_P2PGPU_H

#include <stdio.h>

#include "cli/p2p/p2pdrv.h"

/* The driver, where lines go, and the step under way. */
struct nn_p2pcall {
  struct nn_cuda cu;
  FILE *out;
  const char *step;
};

struct nn_p2pgpu {
  int dev;
  nn_cu_ctx ctx;
  nn_cu_module mod;
  nn_cu_function fill, verify, pingpong, ll8, ll16, ll_verify;
  nn_cu_stream stream;
  nn_cu_ptr wrong; /* the verify kernels' counter */
};

/* Loads the driver and runs cuInit; -1 after an "error setup: ..." line. */
int nn_p2pcall_open(struct nn_p2pcall *c);
/* 0 when rc is success, else the step's error line and -1. */
int nn_p2pcall_ok(struct nn_p2pcall *c, nn_cu_result rc, const char *call);
/* Announces a step ("begin STEP"). */
void nn_p2pcall_begin(struct nn_p2pcall *c, const char *step);

/* The GPU of CUDA ordinal `ordinal`: context, kernels, a stream and the counter. 0 or -1. */
int nn_p2pgpu_setup(struct nn_p2pcall *c, struct nn_p2pgpu *g, int ordinal);
int nn_p2pgpu_current(struct nn_p2pcall *c, const struct nn_p2pgpu *g);
int nn_p2pgpu_sync(struct nn_p2pcall *c, const struct nn_p2pgpu *g);

/* g stores the word pattern (4-byte stores) into `words` words at dst, and waits. */
int nn_p2pgpu_fill(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr dst, unsigned words,
                   unsigned seed);
/* g counts the words at src that differ from the pattern; -1 on a driver error. */
long long nn_p2pgpu_verify(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr src,
                           unsigned words, unsigned seed);
/* g writes `pairs` {data, flag} pairs at dst with NCCL's LL stores, 8 or 16 bytes a store
 * (`width`), and waits. */
int nn_p2pgpu_ll(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr dst, unsigned pairs,
                 unsigned seed, unsigned flag, int width);
/* nn_p2pgpu_ll without waiting: the kernel is queued (nn_p2pgpu_sync waits for it). */
int nn_p2pgpu_ll_launch(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr dst,
                        unsigned pairs, unsigned seed, unsigned flag, int width);
/* g counts the pairs at src whose data or flag is wrong; -1 on a driver error. */
long long nn_p2pgpu_ll_verify(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr src,
                              unsigned pairs, unsigned seed, unsigned flag);

#endif
