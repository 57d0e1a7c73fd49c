/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner_v4.h - NCCL's tuner plugin ABI v4, the symbol ncclTunerPlugin_v4: v3 with
 * regBuff.
 *
 * Declared in NCCL's src/include/nccl_tuner.h (v2.24.3-1, the first release to look for
 * it) and src/include/plugin/tuner/tuner_v4.h (v2.30.7-1). Looked for from 2.24 to 2.30.7,
 * after the newer symbols and before v3. Written in nccl-numa's words from those sources.
 */
#ifndef NCCL_NUMA_TUNER_V4_H
#define NCCL_NUMA_TUNER_V4_H

#include "nccl_common.h"

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* As v2 (tuner_v2.h): once per communicator, *context out; failure fails the
   * communicator's creation. */
  nn_ncclResult_t (*init)(size_t nRanks, size_t nNodes, nn_ncclDebugLogger_t logFunction,
                          void **context);

  /* As v3 (tuner_v3.h: the cost table, *nChannels, failure), plus
   * In:  regBuff, 1 when both of the collective's buffers are registered with NCCL (or a
   *      CUDA graph is being captured with graph registration on), else 0. */
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo, int numProto,
                                 int regBuff, int *nChannels);

  /* As v2: when the communicator is destroyed, NULL context after a failed init. */
  nn_ncclResult_t (*destroy)(void *context);
} nn_ncclTuner_v4_t;

#endif
