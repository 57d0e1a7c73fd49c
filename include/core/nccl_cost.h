/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_cost.h - NCCL's own cost model and algorithm/protocol choice, per release.
 *
 * NCCL picks, for every collective call, the algorithm x protocol whose modelled time
 * (latency + bytes / bandwidth, from constants and the graphs its search found) is the
 * smallest among those enabled. This module computes the same numbers from the graphs
 * nccl_search predicts, so the CLI can show what NCCL will pick, what a rule changes, and
 * how far measurements are from NCCL's model. It is the CLI's; nothing here runs on
 * NCCL's threads (the hot path keeps using NCCL's own table).
 *
 * Scope: the machines this project serves (GPUs on PCIe, no peer access, no NVLink, no
 * NVLS, no CollNet), so NVLS, NVLS-Tree, CollNet and PAT (which NCCL disables on such a
 * communicator: PAT needs one GPU per node) are never candidates. Multi-node shapes use
 * NCCL's formulas, but their inter-node graph is whatever the caller passes.
 */
#ifndef NCCL_NUMA_COST_H
#define NCCL_NUMA_COST_H

#include <stddef.h>
#include <stdint.h>

#include "nn_config.h"

/* NCCL's path types (src/graph/topo.h in 2.28.9, src/include/graph.h on dev): the types a
 * graph's typeIntra/typeInter take. */
enum nn_cost_path {
  NN_COST_PATH_LOC = 0,
  NN_COST_PATH_NVL = 1,
  NN_COST_PATH_NVB = 2,
  NN_COST_PATH_C2C = 3,
  NN_COST_PATH_PIX = 4,
  NN_COST_PATH_PXB = 5,
  NN_COST_PATH_P2C = 6,
  NN_COST_PATH_PXN = 7,
  NN_COST_PATH_PHB = 8,
  NN_COST_PATH_SYS = 9,
  NN_COST_PATH_NET = 10,
  NN_COST_PATH_DIS = 11
};

/* NCCL's graph patterns (NCCL_TOPO_PATTERN_*): the tree graph is BALANCED_TREE unless the
 * search fell back to TREE (NCCL then rates Tree 15% lower). */
enum nn_pattern {
  NN_PATTERN_BALANCED_TREE = 1,
  NN_PATTERN_SPLIT_TREE = 2,
  NN_PATTERN_TREE = 3,
  NN_PATTERN_RING = 4
};

/* The CPU as NCCL's cost model reads it (only POWER and, multi-node, AMD change numbers). */
enum nn_cost_cpu {
  NN_COST_CPU_X86_INTEL = 0,
  NN_COST_CPU_X86_AMD,
  NN_COST_CPU_X86_OTHER,
  NN_COST_CPU_POWER,
  NN_COST_CPU_ARM,
  NN_COST_CPU_MIXED
};

/* One graph as NCCL's cost model reads it: after the all-gather that aligns every rank's
 * graphs (minimum channels and bandwidths, maximum path types). */
struct nn_cost_graph {
  int nchannels;
  float bw_intra, bw_inter;   /* GB/s per channel */
  int type_intra, type_inter; /* enum nn_cost_path */
  int pattern;                /* enum nn_pattern */
  int same_channels;          /* the ring graph's sameChannels (broadcast/reduce latency) */
};

#define NN_COST_LL128_RULE (-1)

/* A communicator and the release that runs it. */
struct nn_cost_comm {
  int version_code; /* major*10000+minor*100+patch, e.g. 22809, 23007, 23100 */
  int nranks, nnodes;
  int cc_min, cc_max; /* compute capability major*10+minor, e.g. 90 */
  int cpu;            /* enum nn_cost_cpu */
  struct nn_cost_graph ring, tree;
  double pci_latency_us; /* > 0: a `model pci-latency-us` line, handed to NCCL in the
                          * tuner constants (hwLatencies[PCI] tree/ring x ll/simple) */
  int ll128;             /* NN_COST_LL128_RULE: NCCL's default rule for the release;
                          * 0 / 1: LL128 off / on (what the release really enables) */
};

/* What NCCL computed at communicator init: latency (us) and bandwidth (GB/s) per
 * collective x algorithm x protocol; bw <= 0 means "not a candidate". */
struct nn_cost_model {
  int version_code;
  int subsystem; /* 1: 2.31+ src/tuning/, 0: src/graph/tuning.cc */
  int nranks, nnodes, cc_min;
  int comm_nchannels;      /* comm->nChannels after Postset (twice the aligned channels) */
  int pci_latency_applied; /* 1: the release uses the tuner's constants */
  int ll128_enabled;       /* LL128 is a candidate somewhere */
  float lat[NN_COLL_COUNT][NN_ALGO_COUNT][NN_PROTO_COUNT];
  float bw[NN_COLL_COUNT][NN_ALGO_COUNT][NN_PROTO_COUNT];
  /* for nn_cost_model_set_pci_latency: the per-hop PCI latencies in the table, by
   * algorithm (Tree, Ring) and protocol; whether both graphs run over PCI; the ring's
   * sameChannels */
  float pci_hop[2][NN_PROTO_COUNT];
  int over_pci, same_channels;
};

/* NCCL's choice for one call. algo/proto -1 when nothing is enabled. */
struct nn_cost_choice {
  int algo, proto;
  float time_us;
};

/* Whether a release lets a tuner's init change the cost-model constants: from 2.28 (tuner
 * v5, the first handed them) unless nccl_model's table says the release overwrites them
 * (2.31.x copies NCCL's defaults over them afterwards: src/tuning/cost_model.cc on dev,
 * ncclTuningCostModelInit; 2.32 copies them before loading the tuner). */
int nn_cost_constants_honoured(int version_code);

/* NCCL's default constants (ncclTunerConstantsDefaults: src/graph/tuning.cc of v2.28.9-1 and
 * v2.30.7-1, src/tuning/cost_model.cc on dev), microseconds, for algo Tree or Ring and any
 * protocol: the base latency, and the latency of one PCI hop. 0 for another algorithm. */
double nn_cost_default_base_latency(int algo, int proto);
double nn_cost_default_pci_latency(int algo, int proto);

/* Starts a model with no candidate: the release's facts, the communicator's shape and NCCL's
 * default PCI hop latencies; nn_cost_model_init and a model read from NCCL's own log both
 * start here, then fill the candidates. */
void nn_cost_model_start(struct nn_cost_model *m, int version_code, int nranks, int nnodes,
                         int cc_min);

/* Fills a graph from a search prediction's numbers: nchannels, bandwidths and typeIntra as
 * given, typeInter PIX (the one virtual NIC NCCL's single-node search pairs with),
 * pattern BALANCED_TREE for trees, sameChannels 1. */
void nn_cost_graph_set(struct nn_cost_graph *g, int nchannels, float bw_intra, float bw_inter,
                       int type_intra, int is_tree);

/* Computes NCCL's latency/bandwidth table for a communicator (ncclTopoTuneModel in
 * src/graph/tuning.cc up to 2.30, ncclTuningCostModelInit and the ring/tree models in
 * src/tuning/ from 2.31), with its enable rules. The graphs are aligned first (ring and
 * tree get the smaller channel count, as init.cc does before the cost model).
 * Returns 0, or -1 with a reason in err (fewer than 2 ranks, nodes not dividing ranks,
 * a graph without channels or bandwidth). */
int nn_cost_model_init(const struct nn_cost_comm *c, struct nn_cost_model *m, char *err,
                       size_t errsz);

/* NCCL's modelled time in microseconds of one call of `nbytes` (NCCL's nBytes: the whole
 * buffer for allgather/reducescatter, as nccl-tests' size column) with one algorithm and
 * protocol, numPipeOps 1; -1 when that pair is not a candidate. */
float nn_cost_time(const struct nn_cost_model *m, int coll, int algo, int proto, uint64_t nbytes);

/* NCCL's choice: the smallest modelled time among the candidates, ties broken as the
 * release does (2.30 and older: first in algorithm-major order; 2.31: last). Returns 0, or
 * -1 when no pair is a candidate. */
int nn_cost_choose(const struct nn_cost_model *m, int coll, uint64_t nbytes,
                   struct nn_cost_choice *out);

/* The cost table NCCL hands a tuner's getCollInfo for this call: float[NN_ALGO_COUNT]
 * [NN_PROTO_COUNT], modelled microseconds, -1 (NCCL_ALGO_PROTO_IGNORE) where not a
 * candidate. */
void nn_cost_table(const struct nn_cost_model *m, int coll, uint64_t nbytes, float *table);

/* NCCL's pick from a cost table as a tuner left it (the smallest entry >= 0, ties as in
 * nn_cost_choose); the time is the table's entry. Returns 0, or -1 when none is >= 0. */
int nn_cost_pick(const struct nn_cost_model *m, const float *table, struct nn_cost_choice *out);

/* Changes a single-node model as a `model pci-latency-us` line would where it takes
 * effect: hwLatencies[PCI] tree/ring x ll/simple become `us`, so every Tree/Ring LL/Simple
 * latency moves by its hop count under NCCL's formula (ring: one per step, or one for a
 * broadcast/reduce on sameChannels rings; tree: 2 (nRanks - 1)). Returns 0, or -1 (nothing
 * changed) for a multi-node model or graphs over NVLink. */
int nn_cost_model_set_pci_latency(struct nn_cost_model *m, double us);

#endif
