/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2pring.h - all at once: after the pairs, one process per GPU (as a job of one process per
 * GPU runs), each GPU writing NCCL LL lines (16-byte stores with flags) into both ring
 * neighbours' memory at the same time, mapped across processes with cuMem (p2pshare.h), round
 * after round for a few seconds; each receiver checks every line of both directions, data and
 * flag, after each round. Its lines, one per GPU process:
 *   ring GPU ORDINAL wrong N of M rounds R gbps G   (G: its SM stores into both neighbours)
 *   error ring-gpuORDINAL: WHY
 * and `ring-done` from the ring's own process once all have ended.
 */
#ifndef NCCL_NUMA_CLI_P2PRING_H
#define NCCL_NUMA_CLI_P2PRING_H

#include <stdio.h>

#define NN_P2PRING_MAX 64

struct nn_p2pring_args {
  int gpus[NN_P2PRING_MAX]; /* CUDA ordinals, in ring order */
  int n;
  double seconds; /* how long the rounds go on */
};

/* The ring of args (a struct nn_p2pring_args), its lines on out: a job's work for
 * nn_supervise (supervise.h). */
void nn_p2pring_work(void *args, FILE *out);

#endif
