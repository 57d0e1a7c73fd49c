/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner_v5.h - NCCL's tuner plugin ABI v5, the symbol ncclTunerPlugin_v5: init gets the
 * communicator's id, its NVLink domains and NCCL's model constants; destroy is renamed
 * finalize.
 *
 * Declared in NCCL's src/include/plugin/tuner/tuner_v5.h (v2.28.3-1, the first release to
 * look for it, and v2.30.7-1). Looked for from 2.28.3 to 2.30.7, after v6 and before v4.
 * Written in nccl-numa's words from that source.
 */
#ifndef NCCL_NUMA_TUNER_V5_H
#define NCCL_NUMA_TUNER_V5_H

#include "nccl_common.h"

/* The communicator's NVLink domains (NCCL fills it from its nodes: the number of
 * domains and the fewest and most local ranks in one). Read-only for the plugin. */
typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} nn_ncclNvlDomainInfo_v5_t;

/* NCCL's model constants for this communicator, defaults already in: latencies in
 * microseconds, bandwidths in GB/s, all double. Rows: compute capability (Volta, Ampere,
 * Hopper, Blackwell), columns: scale (1, 2, 4 nodes). The plugin may change any entry
 * in init; NCCL then builds this communicator's model from the result. */
typedef struct {
  double baseLatencies[NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double hwLatencies[NN_NCCL_NUM_HW_LINKS][NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double llMaxBws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxRingLL128Bws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeLL128Bws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeBws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxNVLSTreeBws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
} nn_ncclTunerConstants_v5_t;

/* The part of the constants at the same offset in v5, v6 and v7 and without
 * compute-capability rows (tuner_v7.h checks the offset): what a `model` line writes. */
typedef double nn_ncclHwLatencies_t[NN_NCCL_NUM_HW_LINKS][NN_NCCL_NUM_ALGORITHMS]
                                   [NN_NCCL_NUM_PROTOCOLS];

_Static_assert(sizeof(nn_ncclTunerConstants_v5_t) == 144 * sizeof(double),
               "v5 constants: 144 doubles");

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* Once per communicator (split and single-rank ones included), maybe on several
   * threads at once for different communicators, after NCCL's topology search and
   * before NCCL builds its cost model.
   * In:  commId, the same on every rank of the communicator; nRanks; nNodes;
   *      logFunction, valid for the life of the process; nvlDomainInfo (above), valid
   *      during the call.
   * In/out: constants (above), valid during the call only.
   * Out: *ctx, handed back to every later call for this communicator.
   * Failure: NCCL fails the creation of the communicator (src/init.cc). */
  nn_ncclResult_t (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                          nn_ncclDebugLogger_t logFunction,
                          nn_ncclNvlDomainInfo_v5_t *nvlDomainInfo,
                          nn_ncclTunerConstants_v5_t *constants);

  /* As v4 (tuner_v4.h, the cost table in tuner_v3.h): once per collective, *nChannels
   * out, failure fails the collective. */
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo, int numProto,
                                 int regBuff, int *nChannels);

  /* When the communicator is destroyed (v2-v4's destroy); NULL context after a failed
   * init. Failure: ncclCommDestroy returns it and the library stays loaded. */
  nn_ncclResult_t (*finalize)(void *context);
} nn_ncclTuner_v5_t;

#endif
