/*
 * topology.h - sockets and scope: where a communicator's ranks sit, which CPU kind
 * NCCL will model, and whether serving the two-socket topology is safe for NCCL's
 * own graph search (contract notes 12, 22, 23).
 */
#ifndef NCCL_NUMA_TOPOLOGY_H
#define NCCL_NUMA_TOPOLOGY_H

#include <stddef.h>

#include "nn_config.h"

/* Scope of a communicator (enum nn_scope: INTRA, CROSS or UNKNOWN), from facts that
 * are equal on every rank: nRanks, nNodes and the mapping. */
int nn_topology_scope(const struct nn_config *cfg, size_t n_ranks, size_t n_nodes);

/* "NUMA0=4 NUMA1=4": GPUs per NUMA node in ascending node order ("no GPUs mapped"). */
void nn_topology_describe_sockets(const struct nn_config *cfg, char *buf, size_t size);

/* The CPU kind written into the topology XML and modelled by NCCL. */
struct nn_cpu_kind {
  char vendor[16];        /* "AuthenticAMD" or "GenuineIntel"; "" when unknown */
  int family, model;      /* -1 when unknown */
  int from_cpuinfo;       /* 1 when read from /proc/cpuinfo, 0 from the `cpu` line */
};

/* Resolves the CPU kind: the `cpu` line, else `cpuinfo_path` (NULL: /proc/cpuinfo).
 * Returns 0, or -1 with a reason in err. */
int nn_topology_cpu_kind(const struct nn_config *cfg, const char *cpuinfo_path,
                         struct nn_cpu_kind *out, char *err, size_t err_size);

/* NCCL's fixed model of the link between two CPU nodes, GB/s (note 22). */
double nn_topology_cpu_link_gbps(const struct nn_cpu_kind *cpu);

/* NCCL's intra-node search floor for GPUs of compute capability `sm`
 * (major*10+minor; 0 = unknown, counted as >= 10.0), GB/s. */
double nn_topology_search_floor_gbps(int sm);

/* The compute capability the mapping declares (all `sm=` agree), 0 when none,
 * -1 when they disagree. */
int nn_topology_declared_sm(const struct nn_config *cfg);

/* Whether the env plugin serves the generated topology file. */
struct nn_topo_verdict {
  int serve;              /* 1: serve NCCL_TOPO_FILE */
  int mode;               /* enum nn_topo_mode in force */
  int numa_nodes;         /* NUMA nodes holding GPUs */
  int sm;                 /* capability used; 0 unknown */
  double link_gbps;       /* modelled CPU link */
  double floor_gbps;      /* NCCL's search floor */
  char reason[640];       /* one sentence, for logs and the CLI */
};

/* Decides per note 23. `runtime_sm` is the capability read from the driver (0 unknown);
 * the mapping's `sm=` wins over it. */
void nn_topology_verdict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                         int runtime_sm, struct nn_topo_verdict *out);

#endif
