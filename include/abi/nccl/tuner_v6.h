/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner_v6.h - NCCL's tuner plugin ABI v6, the symbol ncclTunerPlugin_v6: v5 plus an
 * optional chunk-size callback.
 *
 * Declared in NCCL's src/include/plugin/tuner/tuner_v6.h (v2.30.3-1, the first release to
 * look for it, and v2.30.7-1), whose constants and NVLink domains are v5's. Looked for
 * first by 2.30.3 to 2.30.7. Written in nccl-numa's words from that source.
 */
#ifndef NCCL_NUMA_TUNER_V6_H
#define NCCL_NUMA_TUNER_V6_H

#include "nccl_common.h"
#include "tuner_v5.h"

typedef nn_ncclNvlDomainInfo_v5_t nn_ncclNvlDomainInfo_v6_t;
typedef nn_ncclTunerConstants_v5_t nn_ncclTunerConstants_v6_t;

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* As v5 (tuner_v5.h): once per communicator, the constants in/out, *ctx out; failure
   * fails the communicator's creation. */
  nn_ncclResult_t (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                          nn_ncclDebugLogger_t logFunction,
                          nn_ncclNvlDomainInfo_v6_t *nvlDomainInfo,
                          nn_ncclTunerConstants_v6_t *constants);

  /* As v4 (tuner_v4.h, the cost table in tuner_v3.h). */
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo, int numProto,
                                 int regBuff, int *nChannels);

  /* As v5: when the communicator is destroyed, NULL context after a failed init. */
  nn_ncclResult_t (*finalize)(void *context);

  /* Optional (NULL: NCCL keeps its own chunk size). Once per collective, after NCCL
   * settled its algorithm, protocol and channels, on the same thread as getCollInfo.
   * In:  context; collType; nBytes; algo and proto, NCCL's choice; nChannels.
   * In/out: *chunkSize, NCCL's computed size in bytes; the plugin may replace it, and
   *      NCCL lowers a value above what its buffers hold to that maximum (src/enqueue.cc).
   * Failure: the collective fails, as getCollInfo. */
  nn_ncclResult_t (*getChunkSize)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                  int algorithm, int protocol, int nChannels, size_t *chunkSize);
} nn_ncclTuner_v6_t;

#endif
