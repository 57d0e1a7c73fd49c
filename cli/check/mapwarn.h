/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mapwarn.h - what `check-config` warns about in a valid mapping: what the parser accepts but
 * would leave the plugin doing nothing useful, or something harmful.
 */
#ifndef NCCL_NUMA_CLI_MAPWARN_H
#define NCCL_NUMA_CLI_MAPWARN_H

#include <stddef.h>

#include "nn_config.h"

#define NN_MAPWARN_MAX 4

struct nn_mapwarn {
  int n;
  char msg[NN_MAPWARN_MAX][640]; /* "FILE: warning: problem" */
};

/* Fills `out` with the warnings for `cfg` (read from `path`):
 *  - no `gpu` lines (an empty file, as a failed `discover > FILE` leaves, parses as valid);
 *  - GPUs on two or more NUMA nodes whose CPU affinity, as the plugin resolves it (the node's
 *    `numa cpus=` line, else `sysfs_root`/sys/devices/system/node/nodeN/cpulist, NULL = /),
 *    gives one node CPUs and another none: in a VM without `numa` lines guest node 0 holds
 *    every CPU and the host's node 1 is absent, so the served file pins one socket's ranks to
 *    every CPU and the other's to none.
 * A host-side mapping (no bus=, never served) gets only the first. */
void nn_mapwarn_check(const struct nn_config *cfg, const char *path, const char *sysfs_root,
                      struct nn_mapwarn *out);

#endif
