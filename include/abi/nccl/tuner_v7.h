/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner_v7.h - NCCL's tuner plugin ABI v7, the symbol ncclTunerPlugin_v7: v6's callbacks;
 * the constants gain a fifth compute-capability row (Rubin, index 4), so every table after
 * hwLatencies starts later than in v5.
 *
 * Declared in NCCL's src/include/plugin/tuner/tuner_v7.h (NVIDIA/nccl commit 2449986, for
 * NCCL 2.32.6). The released 2.31.2 and 2.32.3 libnccl.so.2 do not look for it; a release
 * that does tries it first, then v6 and older. Written in nccl-numa's words.
 */
#ifndef NCCL_NUMA_TUNER_V7_H
#define NCCL_NUMA_TUNER_V7_H

#include <stddef.h>

#include "nccl_common.h"
#include "tuner_v5.h"

enum { NN_NCCL_NUM_COMPCAPS_V7 = 5, NN_NCCL_RUBIN_COMPCAP_IDX = 4 };
typedef nn_ncclNvlDomainInfo_v5_t nn_ncclNvlDomainInfo_v7_t;

/* v5's constants (tuner_v5.h: units, who may change what) with five compute-capability
 * rows: Volta, Ampere, Hopper, Blackwell, Rubin. */
typedef struct {
  double baseLatencies[NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double hwLatencies[NN_NCCL_NUM_HW_LINKS][NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double llMaxBws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxRingLL128Bws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeLL128Bws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeBws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxNVLSTreeBws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
} nn_ncclTunerConstants_v7_t;

_Static_assert(sizeof(nn_ncclTunerConstants_v7_t) == 159 * sizeof(double),
               "v7 constants: 159 doubles");
_Static_assert(offsetof(nn_ncclTunerConstants_v5_t, hwLatencies) ==
                 offsetof(nn_ncclTunerConstants_v7_t, hwLatencies),
               "hwLatencies at one offset");

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* As v5 (tuner_v5.h), with v7's constants. */
  nn_ncclResult_t (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                          nn_ncclDebugLogger_t logFunction,
                          nn_ncclNvlDomainInfo_v7_t *nvlDomainInfo,
                          nn_ncclTunerConstants_v7_t *constants);

  /* As v4 (tuner_v4.h, the cost table in tuner_v3.h). */
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo, int numProto,
                                 int regBuff, int *nChannels);

  /* As v5: when the communicator is destroyed, NULL context after a failed init. */
  nn_ncclResult_t (*finalize)(void *context);

  /* Optional, as v6 (tuner_v6.h). */
  nn_ncclResult_t (*getChunkSize)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                  int algorithm, int protocol, int nChannels, size_t *chunkSize);
} nn_ncclTuner_v7_t;

#endif
