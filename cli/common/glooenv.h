/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glooenv.h - GLOO_SOCKET_IFNAME for a launch: PyTorch's Gloo (the CPU process group SGLang and
 * vLLM open next to NCCL) picks its own interface, loopback included, when the variable is unset,
 * and a multi-node job then hangs at start. exec and env give it the interfaces NCCL uses: the
 * user's NCCL_SOCKET_IFNAME, else the mapping's `env NCCL_SOCKET_IFNAME=` line.
 *
 * NCCL reads that value as prefixes ("ens" matches ens1f0 and ens18), "=NAME,..." as exact names
 * and "^..." as names to avoid; Gloo takes exact names, comma-separated. Prefixes become the
 * interfaces of this host that have them (if_nameindex), in the host's order; an exclusion list
 * gives Gloo nothing to name, so it is left alone.
 */
#ifndef NCCL_NUMA_CLI_GLOOENV_H
#define NCCL_NUMA_CLI_GLOOENV_H

#include <stddef.h>

#include "nn_config.h"

/* The value to set into out and where it came from into why ("... from NCCL_SOCKET_IFNAME"):
 * returns 1. Returns 0 with why saying why not (why "" when there is nothing to say: the user
 * set GLOO_SOCKET_IFNAME, or no NCCL_SOCKET_IFNAME anywhere). `ifnames` lists this host's
 * interfaces (NULL: if_nameindex). */
int nn_glooenv_ifname(const struct nn_config *cfg, const char *const *ifnames, char *out,
                      size_t size, char *why, size_t whysz);

#endif
