/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * checknics.h - `check` on a machine's NICs: a passed-through NIC that reads numa_node -1 (as
 * in a guest) and that the mapping has no `nic` line for is hung by NCCL under a CPU of its
 * own, SYS-distant from every GPU the served file places (graph/xml.cc, topo.cc). virtio NICs
 * (vendor 0x1af4) are left out: NCCL attaches them to the first CPU by their virtio path,
 * whatever a file says.
 */
#ifndef NCCL_NUMA_CLI_CHECKNICS_H
#define NCCL_NUMA_CLI_CHECKNICS_H

#include "cli/discover/guest.h"
#include "nn_config.h"

/* One message per such NIC into out; returns how many. Without a mapping with GPUs nothing is
 * served and NCCL reads the GPUs at -1 too: none. */
int nn_checknics_unplaced(const struct nn_guest *g, const struct nn_config *cfg,
                          struct nn_diag *out);

struct nn_check_ctx;
/* With nic lines and a verdict: the `NICs` section, NCCL's inter-node ring (nicview.h) on its
 * own view and on the served file, as for a job of 2 nodes, and a WARNING when the file
 * leaves the ring less bandwidth. */
void nn_checknics_section(struct nn_check_ctx *c);

#endif
