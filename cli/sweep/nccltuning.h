/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccltuning.h - reading NCCL's tuning table from its log: which algorithm x
 * protocol NCCL enabled, per collective, on this machine.
 *
 * With NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS including TUNING, rank 0 of every
 * communicator logs the table at init (src/graph/tuning.cc, ncclTopoTuneModel,
 * read in the NCCL 2.18 ... 2.30 sources). Each line is one INFO message, so it
 * carries NCCL's prefix ("[timestamp] host:pid:tid [dev] NCCL INFO "). The
 * algorithms come in blocks of columns (three per block from 2.23 on, half of
 * them per block before); a block is
 *     "  Algorithm   |" then per algorithm one '|'-cell holding its name
 *     "  Protocol    |" then one cell per protocol name, repeated per algorithm
 *                      (2.23+ always repeats it three times, also in a last
 *                      block with fewer algorithms)
 *     " Max NThreads |" then one integer cell per algorithm x protocol
 *     then per collective "%13s |" (name) and one "latency/bandwidth |" cell
 *                      per algorithm x protocol of the block.
 * A bandwidth of 0 (2.31: -1.0, and its " Max NThreads" row is missing) means NCCL disabled that
 * combination (by its own rules, or because NCCL_ALGO/NCCL_PROTO excluded it). Names are NCCL's:
 * Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT; LL, LL128, Simple; Broadcast,
 * Reduce, AllGather, ReduceScatter, AllReduce.
 *
 * The parser is a pure function over a buffer. Lines of other messages may be
 * interleaved anywhere, and several tables (communicators) may appear, even
 * interleaved with each other: lines are grouped by the log prefix's
 * host:pid:tid, so each thread's table is read on its own. A table is complete
 * when every block has its Algorithm and Protocol rows, every collective row
 * has one well-formed cell per column, and every block lists the collectives
 * of the first. A table cut exactly between two blocks cannot be told from a
 * complete one; it only lacks the later algorithms (Tree and Ring come first).
 */
#ifndef NCCL_NUMA_CLI_NCCLTUNING_H
#define NCCL_NUMA_CLI_NCCLTUNING_H

#include <stddef.h>

#define NN_NCCLTUNING_MAX_FUNCS 8
#define NN_NCCLTUNING_MAX_ALGOS 12
#define NN_NCCLTUNING_MAX_PROTOS 6
#define NN_NCCLTUNING_NAME_MAX 24

/* What the complete tables of a log said, merged by name. */
struct nn_nccltuning {
  int n_tables;    /* complete tables read (one per communicator's rank 0) */
  int n_truncated; /* tables that ended early; they are left out */
  int first_line;  /* line of the first complete table's first row, 0 none */
  int n_funcs, n_algos, n_protos;
  char funcs[NN_NCCLTUNING_MAX_FUNCS][NN_NCCLTUNING_NAME_MAX]; /* as NCCL names them */
  char algos[NN_NCCLTUNING_MAX_ALGOS][NN_NCCLTUNING_NAME_MAX];
  char protos[NN_NCCLTUNING_MAX_PROTOS][NN_NCCLTUNING_NAME_MAX];
  /* [func][algo][proto]: seen = some table had the cell; enabled = some
   * table gave it a bandwidth above 0 */
  unsigned char seen[NN_NCCLTUNING_MAX_FUNCS][NN_NCCLTUNING_MAX_ALGOS][NN_NCCLTUNING_MAX_PROTOS];
  unsigned char enabled[NN_NCCLTUNING_MAX_FUNCS][NN_NCCLTUNING_MAX_ALGOS][NN_NCCLTUNING_MAX_PROTOS];
  /* NCCL's model as the first complete table printed it (0.1 precision): latency (us)
   * and bandwidth (GB/s) per cell */
  float lat[NN_NCCLTUNING_MAX_FUNCS][NN_NCCLTUNING_MAX_ALGOS][NN_NCCLTUNING_MAX_PROTOS];
  float bw[NN_NCCLTUNING_MAX_FUNCS][NN_NCCLTUNING_MAX_ALGOS][NN_NCCLTUNING_MAX_PROTOS];
};

#define NN_NCCLTUNING_FOUND 0
#define NN_NCCLTUNING_NONE 1      /* no table in the log */
#define NN_NCCLTUNING_TRUNCATED 2 /* tables, but none complete */

/* Parses a log. Returns NN_NCCLTUNING_FOUND with *t filled from the complete
 * tables (a later truncated one is counted in n_truncated), NN_NCCLTUNING_NONE
 * when there is no table, or NN_NCCLTUNING_TRUNCATED when every table ended early;
 * the last two put a message in err (the line where the first table broke off). */
int nn_nccltuning_parse(const char *buf, size_t len, struct nn_nccltuning *t, char *err,
                        size_t errsz);

/* Whether NCCL enabled func x algo x proto (names compared without case and
 * underscores, so "all_reduce"/"AllReduce", "nvls_tree"/"NVLSTree" match):
 * 1 enabled, 0 disabled, -1 not in the table. */
int nn_nccltuning_enabled(const struct nn_nccltuning *t, const char *func, const char *algo,
                          const char *proto);

/* Whether a cell that NCCL `version_code` logs as enabled for `proto` (enum nn_proto)
 * also runs between PCIe-only GPUs. A release whose row has cost_model_subsystem logs every
 * model's numbers, LL128's too where its enable check then turns LL128 off: there the row
 * decides (nn_nccl_proto_enabled_pcie, nccl_model.h). Earlier releases log a disabled cell
 * as such, and an unknown release (0) is taken at its table's word: 1 for those. */
int nn_nccltuning_proto_runs_pcie(int version_code, int proto);

/* NCCL's numbers for coll x algo x proto (enum nn_coll, nn_algo, nn_proto) as the first
 * complete table printed them: 1 enabled, 0 disabled (lat and bw set), -1 not in the table. */
int nn_nccltuning_cell(const struct nn_nccltuning *t, int coll, int algo, int proto, float *lat,
                       float *bw);

#endif
