/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2ptest.h - the work of `nccl-numa p2p`'s child processes, each writing what it found as
 * lines on `out` (each under the supervisor, supervise.h; p2preport.c reads them; a child
 * that hangs has told how far it got):
 *
 *   probe: the driver, its GPUs and NVML's P2P status of every ordered pair:
 *     missing WHY | cuda VERSION | gpu ORDINAL BUS NAME | nvml-driver VERSION |
 *     nvml-off WHY | nvml A B READ WRITE | end
 *   pair A B: what the driver says, then function, each step announced first:
 *     peer CAN RANK ACCESS ATOMIC ARRAY | begin STEP | step STEP ok | step STEP fail WHY |
 *     latency US | bandwidth GBPS | smbandwidth GBPS | error STEP WHY | done ok|nopeer
 *     The steps: write, read, copy (one process holding both GPUs), then xwrite, xread, xll8,
 *     xll16 through b's memory exported by a process of its own (p2pxproc.h) and mapped with
 *     cuMem, ipcwrite and ipcread through legacy CUDA IPC, then latency, bandwidth and smbw.
 *   ring: every GPU a process, all writing to their ring neighbours at once (p2pring.h).
 *
 * The kernels (p2p_kernels.ptx) and the stand-in driver (test/p2p/fakecuda.c) share the
 * names, parameters and word pattern below.
 */
#ifndef NCCL_NUMA_CLI_P2PTEST_H
#define NCCL_NUMA_CLI_P2PTEST_H

#include <stdio.h>

#define NN_P2P_KERNEL_FILL "nn_p2p_fill"     /* (u32 *dst, u32 n, u32 seed) */
#define NN_P2P_KERNEL_VERIFY "nn_p2p_verify" /* (const u32 *src, u32 n, u32 seed, u32 *wrong) */
#define NN_P2P_KERNEL_PINGPONG \
  "nn_p2p_pingpong"                      /* (u32 *mine, u32 *theirs, u32 rounds, u32 role, \
                                          *  u64 spin_ns, u64 result[2]) */
#define NN_P2P_KERNEL_LL8 "nn_p2p_ll8"   /* (u32 *dst, u32 pairs, u32 seed, u32 flag) */
#define NN_P2P_KERNEL_LL16 "nn_p2p_ll16" /* (u32 *dst, u32 pairs, u32 seed, u32 flag) */
#define NN_P2P_KERNEL_LL_VERIFY \
  "nn_p2p_ll_verify"            /* (const u32 *src, u32 pairs, u32 seed, u32 flag, \
                                 *  u32 *wrong) */
#define NN_P2P_WORDS (8u << 20) /* 32 MiB buffers */

/* The word the kernels store at index i. */
static inline unsigned nn_p2p_pattern(unsigned i, unsigned seed) {
  return (i * 0x9E3779B1u) ^ seed;
}

/* The probe's lines. */
void nn_p2ptest_probe(FILE *out);

/* The lines of GPU a against GPU b (a == b: the GPU with itself, the kernels' load, launch and
 * timing; no cross-process steps). */
void nn_p2ptest_pair(int a, int b, FILE *out);

/* The step line for `wrong` words of `of` found wrong ("step STEP ok" or "step STEP fail
 * WHAT: N of M words wrong"): 0 when none, 1 when some, -1 when wrong < 0 (a driver error,
 * already said). */
struct nn_p2pcall;
int nn_p2ptest_report(struct nn_p2pcall *c, long long wrong, unsigned of, const char *what);

#endif
