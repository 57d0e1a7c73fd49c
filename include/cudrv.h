/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cudrv.h - the few facts the plugin asks the CUDA driver, through a dlopen'd
 * libcuda.so.1 so that the library never links CUDA (NCCL loads plugins with RTLD_NOW).
 */
#ifndef NCCL_NUMA_CUDRV_H
#define NCCL_NUMA_CUDRV_H

/* Compute capability (major*10+minor) of the calling thread's current device, when the
 * process has already loaded libcuda.so.1 and has a current context; 0 otherwise.
 * Never loads the driver itself. */
int nn_cudrv_current_sm(void);

#endif
