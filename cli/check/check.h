/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check.h - `nccl-numa check`: diagnoses the machine it runs on (bare metal or a
 * guest) as a person would: its NVIDIA GPUs and their sysfs numa_node, the OS's
 * NUMA nodes, topology files NCCL will read, whether the mapping matches the
 * machine, NCCL's socket-link hazard (see topology.h), GPU peer
 * access when a driver is there, what to do next, and a `summary:` paragraph (summary.h).
 */
#ifndef NCCL_NUMA_CLI_CHECK_H
#define NCCL_NUMA_CLI_CHECK_H

#include <stdio.h>

#define NN_CHECK_VIRTUAL_TOPOLOGY "/var/run/nvidia-topologyd/virtualTopology.xml"
#define NN_CHECK_MAX_TOPO_BYTES (1u << 20)

struct nn_check_opts {
  const char *config;       /* --config; NULL: found as the plugin finds it (config_source.h),
                               the default path under `root` */
  const char *root;         /* filesystem root for sysfs and fixed paths; "/" normally */
  const char *cpuinfo;      /* NULL: ROOT/proc/cpuinfo */
  const char *topo_env;     /* value of NCCL_TOPO_FILE, or NULL */
  int no_cuda;              /* never ask the CUDA driver */
  const char *nccl_version; /* --nccl-version X.Y.Z, or NULL */
  const char *nccl_lib;     /* --nccl-lib PATH, or NULL */
  const char *visible;      /* --visible-devices LIST; NULL: CUDA_VISIBLE_DEVICES */
  int ranks;                /* --ranks N; 0: the visible GPUs' count (job.h) */
};

/* Runs every check, writing the report to `out`. Returns the number of
 * problems found (0: nothing wrong), or -1 when sysfs cannot be read at all. */
int nn_check_run(const struct nn_check_opts *o, FILE *out);

#endif
