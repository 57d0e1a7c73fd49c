/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_log.h - NCCL's logger (ncclDebugLogger_t) behind the core's struct nn_logger, so
 * only the front ends know NCCL's logger type, levels and subsystem flags.
 */
#ifndef NCCL_NUMA_NCCL_LOG_H
#define NCCL_NUMA_NCCL_LOG_H

#include "log.h"
#include "nccl_common.h"

struct nn_nccl_logger {
  struct nn_logger base;
  nn_ncclDebugLogger_t nccl;
};

/* Fills l to forward to `nccl` (levels and subsystems translated to NCCL's) and returns
 * it as the core's logger, or NULL when NCCL gave no logger (the core then uses stderr).
 * l must outlive every use of the result. */
const struct nn_logger *nn_nccl_logger(struct nn_nccl_logger *l, nn_ncclDebugLogger_t nccl);

#endif
