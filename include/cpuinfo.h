/*
 * cpuinfo.h - the CPU vendor, family and model as /proc/cpuinfo states them
 * (NCCL models the inter-socket link by CPU kind).
 */
#ifndef NCCL_NUMA_CPUINFO_H
#define NCCL_NUMA_CPUINFO_H

/* Reads vendor_id, cpu family and model of the first processor in a cpuinfo file
 * (NULL: /proc/cpuinfo). family/model are -1 when absent or not a number. Returns 0,
 * or -1 when the file cannot be read or names no vendor. */
int nn_cpuinfo_read(const char *path, char vendor[16], int *family, int *model);

#endif
