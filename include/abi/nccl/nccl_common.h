/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_common.h - the types every NCCL plugin ABI version shares, declared by nccl-numa
 * from NCCL's sources (never copied): the result code (src/nccl.h.in), the logger, its
 * levels and subsystem bits and the collective kinds (src/include/nccl_common.h), the
 * indices of the cost table and of the tuner constants (src/include/plugin/nccl_tuner.h),
 * all as of NCCL v2.30.7-1 and unchanged since v2.21 where they existed. The names carry
 * an nn_ prefix so that they can never clash with a real nccl.h in the same program.
 *
 * Every plugin symbol NCCL looks for is a const data object holding function pointers,
 * not a function; a plugin library may export every version at once, and NCCL takes the
 * newest one it knows (each tuner_vN.h and env_vN.h says which releases look for it).
 */
#ifndef NCCL_NUMA_NCCL_COMMON_H
#define NCCL_NUMA_NCCL_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* ncclResult_t: an int-sized enum. A plugin that returns anything but success makes
 * NCCL fail the operation that called it (each callback's contract says which). */
typedef enum {
  nn_ncclSuccess = 0,
  nn_ncclUnhandledCudaError = 1,
  nn_ncclSystemError = 2,
  nn_ncclInternalError = 3,
  nn_ncclInvalidArgument = 4,
  nn_ncclInvalidUsage = 5,
  nn_ncclRemoteError = 6,
  nn_ncclInProgress = 7
} nn_ncclResult_t;

/* ncclFunc_t: a tuner is only ever asked about these five. */
typedef enum {
  nn_ncclFuncBroadcast = 0,
  nn_ncclFuncReduce = 1,
  nn_ncclFuncAllGather = 2,
  nn_ncclFuncReduceScatter = 3,
  nn_ncclFuncAllReduce = 4
} nn_ncclFunc_t;

/* The logger NCCL hands to init: printf-like, filtered by NCCL_DEBUG (level) and
 * NCCL_DEBUG_SUBSYS (flags). It takes a process-wide lock: one-time messages only. */
enum {
  NN_NCCL_LOG_NONE = 0,
  NN_NCCL_LOG_VERSION = 1,
  NN_NCCL_LOG_WARN = 2,
  NN_NCCL_LOG_INFO = 3,
  NN_NCCL_LOG_ABORT = 4,
  NN_NCCL_LOG_TRACE = 5
};
enum { NN_NCCL_INIT = 0x1, NN_NCCL_GRAPH = 0x20, NN_NCCL_TUNING = 0x40, NN_NCCL_ENV = 0x80 };

typedef void (*nn_ncclDebugLogger_t)(int level, unsigned long flags, const char *file, int line,
                                     const char *fmt, ...);

/* Rows (algorithms) and columns (protocols) of the cost table; -1 means "none chosen". */
enum {
  NN_NCCL_ALGO_TREE = 0,
  NN_NCCL_ALGO_RING = 1,
  NN_NCCL_ALGO_COLLNET_DIRECT = 2,
  NN_NCCL_ALGO_COLLNET_CHAIN = 3,
  NN_NCCL_ALGO_NVLS = 4,
  NN_NCCL_ALGO_NVLS_TREE = 5,
  NN_NCCL_ALGO_PAT = 6,
  NN_NCCL_NUM_ALGORITHMS = 7
};
enum {
  NN_NCCL_PROTO_LL = 0,
  NN_NCCL_PROTO_LL128 = 1,
  NN_NCCL_PROTO_SIMPLE = 2,
  NN_NCCL_NUM_PROTOCOLS = 3
};
enum { NN_NCCL_ALGO_PROTO_UNDEF = -1 };

/* Link, compute-capability and scale indices of the tuner constants (v5 on). */
enum { NN_NCCL_HW_NVLINK = 0, NN_NCCL_HW_PCI = 1, NN_NCCL_HW_NET = 2, NN_NCCL_NUM_HW_LINKS = 3 };
enum { NN_NCCL_NUM_COMPCAPS = 4, NN_NCCL_NUM_TUNING_SCALES = 3 };

#endif
