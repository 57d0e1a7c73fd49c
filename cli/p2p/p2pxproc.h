/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2pxproc.h - a pair's cross-process steps: GPU b's memory owned by a process of its own and
 * written and read by GPU a's, as a job of one process per GPU does through NCCL's P2P
 * transport and the engines' own all-reduce.
 *
 * The owner (forked by the pair's child before either touches CUDA, a member of its process
 * group, killed with its parent) exports a cuMem buffer as a POSIX file descriptor and a
 * cuMemAlloc buffer as a legacy CUDA IPC handle and sends both over a Unix socket; the pair's
 * process maps them (p2pshare.h; cuIpcOpenMemHandle with lazy peer access, as NCCL's legacy
 * path does) and writes and reads through them, and the owner checks word by word what
 * arrived in its memory:
 *   xwrite   a's 4-byte stores into b's cuMem buffer, checked by b
 *   xread    a's loads of what b wrote there
 *   xll8     a's LL stores, 8 bytes ({data, flag}) each, checked by b (data and flags)
 *   xll16    a's LL stores, 16 bytes ({data, flag, data, flag}) each
 *   ipcwrite, ipcread   as xwrite and xread, through the legacy IPC mapping
 * Each is announced ("begin xwrite") and ends in a step line (p2ptest.h).
 */
#ifndef NCCL_NUMA_CLI_P2PXPROC_H
#define NCCL_NUMA_CLI_P2PXPROC_H

#include <stdio.h>
#include <sys/types.h>

#include "cli/p2p/p2pgpu.h"

struct nn_p2pxproc {
  pid_t owner;
  int sock;
};

/* Forks the owner of GPU `b` (its lines go to out). 0, or -1 after an error line. */
int nn_p2pxproc_start(struct nn_p2pxproc *x, int b, FILE *out);

/* The cross-process steps of GPU a (set up in this process) with the owner. Returns 0 when
 * all passed, 1 when one failed, -1 on a driver or protocol error (an error line said it). */
int nn_p2pxproc_run(struct nn_p2pxproc *x, struct nn_p2pcall *c, const struct nn_p2pgpu *a);

/* Ends the owner and reaps it. */
void nn_p2pxproc_stop(struct nn_p2pxproc *x);

#endif
