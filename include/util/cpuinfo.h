/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpuinfo.h - the CPU vendor, family and model as /proc/cpuinfo states them
 * (NCCL models the inter-socket link by CPU kind).
 */
#ifndef NCCL_NUMA_CPUINFO_H
#define NCCL_NUMA_CPUINFO_H

/* The file a NULL path stands for: /proc/cpuinfo, unless a command replaced it with
 * nn_cpuinfo_set_default. */
const char *nn_cpuinfo_default(void);

/* Makes PATH what a NULL cpuinfo path reads from now on (NULL restores /proc/cpuinfo). The
 * CLI calls it for --cpuinfo and NCCL_NUMA_CPUINFO so that a prediction of NCCL's own view
 * can be made for a CPU kind other than the host's; the plugin never calls it, since NCCL
 * reads the CPU it runs on. Not thread-safe: call it before any reader runs. */
void nn_cpuinfo_set_default(const char *path);
/* 1 once nn_cpuinfo_set_default named a file (--cpuinfo, NCCL_NUMA_CPUINFO): the CPU to model. */
int nn_cpuinfo_default_named(void);

/* Reads vendor_id, cpu family and model of the first processor in a cpuinfo file
 * (NULL: nn_cpuinfo_default()). family/model are -1 when absent or not a number. Returns 0,
 * or -1 when the file cannot be read or names no vendor. */
int nn_cpuinfo_read(const char *path, char vendor[16], int *family, int *model);

#endif
