/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cudrv.h - the few facts the plugin asks the CUDA driver, through a dlopen'd
 * libcuda.so.1 so that the library never links CUDA (NCCL loads plugins with RTLD_NOW).
 */
#ifndef NCCL_NUMA_CUDRV_H
#define NCCL_NUMA_CUDRV_H

#include "nn_config.h"

/* Compute capability (major*10+minor) of the calling thread's current device, when the
 * process has already loaded libcuda.so.1 and has a current context; 0 otherwise.
 * Never loads the driver itself. */
int nn_cudrv_current_sm(void);

/* The PCI bus ids of the devices CUDA enumerates for this process (after CUDA_VISIBLE_DEVICES,
 * UUID and MIG forms included; a MIG instance gives its GPU's), in CUDA's order, at most `max`.
 * Returns the count, or -1 when the process has not loaded and initialized the driver. */
int nn_cudrv_visible_busids(struct nn_busid *out, int max);

#endif
