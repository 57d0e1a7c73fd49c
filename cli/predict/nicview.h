/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicview.h - the NIC NCCL gives each GPU of a multi-node job, the path between them and whether
 * GPUDirect RDMA is used, as NCCL's code decides it (NCCL 2.28.9-2.31: graph/topo.cc
 * ncclTopoGetLocalNet, graph/paths.cc ncclTopoCheckGdr), and NCCL's inter-node ring and tree, on
 * two views of a guest whose NICs read numa_node -1:
 *
 *   own     NCCL's own view: one CPU (numaid -1) holding every GPU and NIC: all PHB
 *   served  the file nccl-numa serves: each NIC under its socket's CPU (one the file leaves out,
 *           as a one-socket file does, under a CPU of its own, SYS from every GPU)
 *
 * Both come from the search port (nccl_search.h), which builds each view as a system of NCCL's
 * and answers per GPU the NIC of channel 0 (nn_search_gpu_nets) and the search on several nodes.
 * GDR needs both devices to support it (assumed: RDMA NICs, nvidia-peermem) and a path no longer
 * than NCCL_NET_GDR_LEVEL (default PXB), and for sends a compute capability of 8.0 or more on a
 * node without NVLink. Channel 0 only: with NCCL_NETDEVS_POLICY=AUTO a GPU uses
 * ceil(local NICs / GPUs sharing them) NICs in turn.
 */
#ifndef NCCL_NUMA_CLI_NICVIEW_H
#define NCCL_NUMA_CLI_NICVIEW_H

#include <stddef.h>
#include <stdio.h>

#include "nccl_search.h"
#include "nn_config.h"
#include "topology.h"

enum nn_nicview_kind { NN_NICVIEW_OWN = 0, NN_NICVIEW_SERVED, NN_NICVIEW_KINDS };

struct nn_nicview_gpu {
  int nic;  /* index into cfg->nics */
  int path; /* enum nn_path_type */
  int gdr_read, gdr_write;
};

struct nn_nicview {
  int kind;
  int n_gpus;
  struct nn_nicview_gpu gpu[NN_MAX_GPUS]; /* by the mapping's GPU index */
};

/* NCCL_NET_GDR_LEVEL's value as NCCL's ncclGetLevel reads a name (LOC, PIX, PXB, PHB, SYS); the
 * default PXB for NULL; -1 for anything else. */
int nn_nicview_gdr_level(const char *value);

/* NCCL's inter-node ring and tree (nccl_search.h) on NCCL's own view and on the served file:
 * NIC links from sysfs where this machine has the NIC, else NCCL's fallback; NIC ports of
 * NN_NICVIEW_NET_GBPS. */
#define NN_NICVIEW_NET_GBPS 50.0f /* 400 Gb/s, a ConnectX-7 port */
struct nn_nicview_inter {
  int ok; /* predicted; else why */
  char why[160];
  struct nn_search_pred own, served;
  int own_nic[NN_MAX_NICS], served_nic[NN_MAX_NICS]; /* NET index -> index into cfg->nics */
  int links_sysfs;     /* NIC links read from sysfs (the others: fallback_gbps) */
  float fallback_gbps; /* NCCL's NIC link when sysfs has none */
};

/* What explain prints for a job of several nodes: the views of the job's GPUs (`job`, the job's
 * view of the mapping, whose NICs the served file holds) with every NIC of `mapping` (NCCL sees
 * them all whatever GPUs a process has), for NCCL
 * `version_code` (name `release`) under NCCL_NET_GDR_LEVEL as the job sees it (the environment,
 * else the mapping's env line, else NCCL's default); with the verdict v (NULL: none, the CPU
 * unknown) and CPU kind cpu, NCCL's inter-node search on both views (sysfs under sysfs_root). */
struct nn_nicview_report {
  int gdr_level;         /* -1: a value NCCL does not read as a name */
  const char *gdr_value; /* NULL: NCCL's default */
  const char *gdr_from;  /* "the environment", "the mapping's env line" */
  struct nn_nicview own, served;
  int cross_own, cross_served; /* GPUs given a NIC of another host NUMA node */
  int gdr_own, gdr_served;     /* GPUs with GDR for receives */
  struct nn_nicview_inter inter;
  unsigned char in_file[NN_MAX_NICS]; /* NIC i of cfg is in the served file */
  struct nn_config cfg; /* the job's GPUs, the mapping's NICs: what the tables index */
};
void nn_nicview_report(const struct nn_config *job, const struct nn_config *mapping,
                       int version_code, const struct nn_topo_verdict *v,
                       const struct nn_cpu_kind *cpu, const char *sysfs_root,
                       struct nn_nicview_report *r);
/* The served file against NCCL's own view for the inter-node ring (x->ok): channels x GB/s
 * between the nodes, -1 less, 0 the same, 1 more. */
int nn_nicview_ring_change(const struct nn_nicview_inter *x);
/* The `nics:` lines (nothing for one node); and one summary sentence into buf ("" when the
 * mapping has no nic lines). */
void nn_nicview_print(FILE *out, const struct nn_config *cfg, const char *release,
                      const struct nn_nicview_report *r);
void nn_nicview_summary(const struct nn_config *cfg, const struct nn_nicview_report *r, char *buf,
                        size_t size);

const char *nn_nicview_path_name(int path);
const char *nn_nicview_kind_name(int kind); /* "NCCL's own view", ... */

#endif
