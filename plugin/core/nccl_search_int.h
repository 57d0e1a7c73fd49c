/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_search_int.h - the state NCCL's graph search works on, shared by nccl_search.c (the
 * system, its paths, ncclTopoCompute and the answers) and nccl_search_rec.c (the recursive
 * search, ncclTopoSearchRec and what it calls). Internal to the core.
 */
#ifndef NCCL_NUMA_NCCL_SEARCH_INT_H
#define NCCL_NUMA_NCCL_SEARCH_INT_H

#include <stdint.h>

#include "nccl_search.h"

/* NCCL's patterns (src/include/graph.h) */
#define NN_PAT_BALANCED_TREE 1
#define NN_PAT_TREE 3
#define NN_PAT_RING 4

#define NN_LOC_BW 5000.0f
#define NN_MAX_CH 64   /* MAXCHANNELS */
#define NN_PATH_PXN 6  /* between PXB and PHB: only a step of the inter-node type loop here */
#define NN_MAX_LINKS 4 /* GPU -> CPU -> CPU -> NIC -> NET */

/* The links a path crosses, each one's remaining bandwidth. */
struct nn_path {
  int type;  /* enum nn_path_type */
  int count; /* NCCL's hop count (2.30.3+ counts the GPU's DEV hops too) */
  float bw;
  int nlinks;
  float *links[NN_MAX_LINKS];
  int pci[NN_MAX_LINKS]; /* 1: a PCI link */
  int from_gpu;          /* starts at a GPU: Intel's P2P overhead applies to PHB paths */
  float *rev_gpu;        /* ends at a GPU of compute capability < 8.0 from a NIC: NCCL also
                            books an eighth on the GPU's link back (followPath) */
};

struct nn_sys {
  const struct nn_nccl_release *rel;
  int ng, nc, nn; /* GPUs, CPUs, NICs (nn > 0: an inter-node communicator) */
  int cpu[NN_SEARCH_MAX_GPUS], rank[NN_SEARCH_MAX_GPUS];
  float up[NN_SEARCH_MAX_GPUS], down[NN_SEARCH_MAX_GPUS]; /* GPU->CPU, CPU->GPU */
  int gpu_pci_bw[NN_SEARCH_MAX_GPUS];                     /* gpuPciBw, an int as NCCL has it */
  float sys[NN_SEARCH_MAX_CPUS][NN_SEARCH_MAX_CPUS];      /* CPU->CPU */
  uint64_t used[NN_SEARCH_MAX_GPUS];
  struct nn_path path[NN_SEARCH_MAX_GPUS][NN_SEARCH_MAX_GPUS];
  int nic_cpu[NN_SEARCH_MAX_NICS];
  float nic_up[NN_SEARCH_MAX_NICS], nic_down[NN_SEARCH_MAX_NICS]; /* NIC->CPU, CPU->NIC */
  float net_in[NN_SEARCH_MAX_NICS], net_out[NN_SEARCH_MAX_NICS];  /* NIC->NET, NET->NIC */
  float net_bw[NN_SEARCH_MAX_NICS]; /* the NET node's own bw, booked per channel start */
  int net_local_gpu[NN_SEARCH_MAX_NICS];
  /* each GPU's NICs over the channels until they repeat (ncclTopoGetLocalNet, c = 0, 1, ...) */
  int gpu_nets[NN_SEARCH_MAX_GPUS][NN_SEARCH_MAX_NICS], n_gpu_nets[NN_SEARCH_MAX_GPUS];
  struct nn_path gpu_net[NN_SEARCH_MAX_GPUS][NN_SEARCH_MAX_NICS];
  struct nn_path net_gpu[NN_SEARCH_MAX_NICS][NN_SEARCH_MAX_GPUS];
  int intel; /* x86 Intel: P2P through the root complex costs 6/5 */
  int amd;   /* x86 AMD: no retry with different channels across sockets */
  float max_bw, total_bw;
  int sm;
};

struct nn_graph {
  int pattern, nch, min_ch, max_ch, same;
  int cross_nic; /* 0, or 2: a ring may leave through another NIC, channels in pairs */
  float bw_intra, bw_inter;
  int type_intra, type_inter;
  int hops;
  int intra[NN_MAX_CH * NN_SEARCH_MAX_GPUS];
  int inter[NN_MAX_CH * 2]; /* per channel: the NIC it starts from, the NIC it ends at */
};

struct nn_search {
  struct nn_sys *s;
  struct nn_graph *save;
  int *time;
};

/* ncclTopoSearchRec: one more channel on top of gr's, the best graph kept in c->save. */
void nn_search_rec_run(struct nn_search *c, struct nn_graph *gr);

/* ncclTopoSelectNets with NCCL_NETDEVS_POLICY=AUTO on one host: the NICs to try from GPU `gpu`
 * (-1: every GPU), preferred first, then those within type_inter. Returns their count. */
int nn_search_rec_select_nets(const struct nn_sys *s, int type_inter, int gpu, int *nets);

/* Fills s->gpu_nets (ncclTopoGetLocalNet per channel) and s->net_local_gpu
 * (ncclTopoGetLocalGpu: the GPU that uses the NIC first, -1 when none) once the paths are
 * built: they depend on nothing the search changes. */
void nn_search_rec_init_nets(struct nn_sys *s);

/* The GPU of `rank` (0 when none). */
int nn_search_rec_gpu_of_rank(const struct nn_sys *s, int rank);

#endif
