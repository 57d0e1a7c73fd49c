/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_search.h - what NCCL's intra-node graph search finds on a topology.
 *
 * An implementation of the rules of NCCL's ring and tree search (src/graph/search.cc and
 * paths.cc of each release) for the machines nccl-numa serves: GPUs on PCIe directly under one
 * or more CPUs, no NVLink, no GPU peer access (P2P through the CPU); for a communicator of
 * several identical nodes, NICs directly under CPUs too (the inter-node search from a NIC
 * through the node's GPUs back to a NIC, NCCL_NETDEVS_POLICY and NCCL_CROSS_NIC at their
 * defaults, each NIC its own ASIC and rail). The search is exact for that class, including its
 * step counts and time limits; tests compare it with NCCL's own code.
 * Nothing here allocates or does I/O (a mutex guards the memo of recent predictions);
 * the system it searches is built by nccl_search_topo.h.
 */
#ifndef NCCL_NUMA_NCCL_SEARCH_H
#define NCCL_NUMA_NCCL_SEARCH_H

#include <stddef.h>

#include "nccl_model.h"
#include "nn_config.h"

#define NN_SEARCH_MAX_GPUS 32
#define NN_SEARCH_MAX_CPUS 16
#define NN_SEARCH_MAX_NICS NN_MAX_NICS
#define NN_SEARCH_MAX_CHANNELS 32 /* a ring's channels at most (MAXCHANNELS / 2) */

/* NCCL's path types (src/graph/topo.h), as the predictions report them. */
enum nn_path_type {
  NN_PATH_LOC = 0,
  NN_PATH_PIX = 4,
  NN_PATH_PXB = 5,
  NN_PATH_PHB = 8,
  NN_PATH_SYS = 9,
  NN_PATH_DIS = 11
};

/* Where a GPU's PCIe link came from. */
enum nn_link_origin {
  NN_LINK_ASSUMED = 0, /* nothing known: NN_ASSUMED_PCIE_GEN x NN_ASSUMED_PCIE_WIDTH */
  NN_LINK_SYSFS,       /* read from sysfs for the GPU's bus id, as the release reads it */
  NN_LINK_CONFIG,      /* the mapping's `pcie=GENxWIDTH` */
};

/* The link assumed when neither sysfs nor the mapping gives one: the widest NCCL models on a
 * current GPU (48 GB/s). The conservative choice for auto mode: the faster the GPUs' links, the
 * more a slow socket link costs the served file against NCCL's own view, so an unknown link
 * never makes the plugin serve a file it would withhold with the real one. */
#define NN_ASSUMED_PCIE_GEN 5
#define NN_ASSUMED_PCIE_WIDTH 16

struct nn_pcie_link {
  int gen, width; /* 0 = unknown */
  int origin;     /* enum nn_link_origin */
};

/* The system NCCL builds: GPUs in NCCL's node order (the order of the XML), each under one
 * CPU; all CPUs of one kind. */
struct nn_search_topo {
  int n_gpus, n_cpus;
  int gpu_cpu[NN_SEARCH_MAX_GPUS];   /* CPU index of each GPU */
  int gpu_rank[NN_SEARCH_MAX_GPUS];  /* its rank (ranks follow PCI bus order) */
  int gpu_index[NN_SEARCH_MAX_GPUS]; /* the mapping's GPU it is (for the caller; not searched) */
  float gpu_link_gbps[NN_SEARCH_MAX_GPUS];
  int cpu_numa[NN_SEARCH_MAX_CPUS]; /* numaid of each CPU (-1: NCCL's flat view) */
  int arch, vendor;                 /* enum nn_nccl_arch / nn_nccl_vendor */
  float cpu_link_gbps;              /* modelled SYS link between two CPUs */
  int sm;                           /* compute capability (major*10+minor) */
  /* Several nodes: the node's NICs in NCCL's NET order (0: a single-node communicator). */
  int n_nics;
  int nic_cpu[NN_SEARCH_MAX_NICS];         /* CPU index of each NIC */
  float nic_link_gbps[NN_SEARCH_MAX_NICS]; /* its PCIe link */
  float nic_net_gbps[NN_SEARCH_MAX_NICS];  /* its port speed */
};

/* One predicted graph. ok = 0: the search found nothing and NCCL falls back to the simple
 * order (1 channel at 0.1 GB/s). */
struct nn_graph_pred {
  int ok;
  int nchannels;                        /* search channels */
  float bw_intra, bw_inter;             /* GB/s per channel */
  int type_intra, type_inter;           /* enum nn_path_type; type_inter: GPU-to-NIC paths */
  int cross_nic;                        /* 2: a ring channel may leave by another NIC */
  int nets[2 * NN_SEARCH_MAX_CHANNELS]; /* per channel: NIC entered, NIC left (NET index) */
  int crossings;                 /* socket crossings of channel 0 (ring: closing hop included) */
  int order[NN_SEARCH_MAX_GPUS]; /* channel 0, ranks */
  int n_order;
};

struct nn_search_pred {
  struct nn_graph_pred ring, tree;
  /* what NCCL's cost model reads after init aligns ring and tree to the same count:
   * min(ring, tree) channels, each graph keeping its bandwidth */
  int model_nchannels;
};

/* Predicts NCCL's ring search, then its tree search (limited to the ring's channels).
 * Returns 0, or -1 when the topology is outside the class (no GPUs, too many, a GPU
 * without a CPU). The last few answers are remembered: asking again for the same system and
 * release costs a compare, not a search. Thread-safe. */
int nn_search_predict(const struct nn_nccl_release *r, const struct nn_search_topo *t,
                      struct nn_search_pred *out);

/* Several nodes (t->n_nics > 0): per GPU of t, the NET NCCL gives it on channel 0
 * (ncclTopoGetLocalNet, NCCL_NETDEVS_POLICY=AUTO) in net[] and the path type between them in
 * path[]. Returns 0, or -1 when the topology is outside the class. */
int nn_search_gpu_nets(const struct nn_nccl_release *r, const struct nn_search_topo *t, int *net,
                       int *path);

/* Channels x bandwidth the cost model reads for the ring and the tree (GB/s). */
float nn_search_ring_gbps(const struct nn_search_pred *p);
float nn_search_tree_gbps(const struct nn_search_pred *p);

#endif
