/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cudaprobe.h - what the CUDA driver can tell the CLI about GPUs, by PCI bus id.
 *
 * libcuda.so.1 is dlopen'd, never linked: the CLI must run on machines without
 * a driver (the Proxmox host, CI). Used for `sm=` on discovered gpu lines (the
 * topology verdict depends on the compute capability) and for peer access in `check`.
 */
#ifndef NCCL_NUMA_CLI_CUDAPROBE_H
#define NCCL_NUMA_CLI_CUDAPROBE_H

#include <stddef.h>

#include "nn_config.h"

struct nn_cudaprobe;

/* Loads the driver and initialises it. Returns NULL with a short reason in
 * `why` ("no driver (...)" or "driver present but ...") when it cannot. */
struct nn_cudaprobe *nn_cudaprobe_open(char *why, size_t why_size);

/* Compute capability (major*10+minor) of the GPU at `bus`, 0 when the driver
 * does not know that device. */
int nn_cudaprobe_sm(struct nn_cudaprobe *p, const struct nn_busid *bus);

/* Whether GPU `a` can access GPU `b`'s memory directly: 1 yes, 0 no, -1 unknown. */
int nn_cudaprobe_can_peer(struct nn_cudaprobe *p, const struct nn_busid *a,
                          const struct nn_busid *b);

/* Releases the probe (NULL accepted). */
void nn_cudaprobe_close(struct nn_cudaprobe *p);

#endif
