/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner_v3.h - NCCL's tuner plugin ABI v3, the symbol ncclTunerPlugin_v3: the plugin
 * now sees NCCL's cost table instead of naming an algorithm.
 *
 * Declared in NCCL's src/include/nccl_tuner.h (v2.22.3-1, the first release to look for
 * it) and src/include/plugin/tuner/tuner_v3.h (v2.30.7-1). Looked for from 2.22 to 2.30.7,
 * after the newer symbols and before v2. Written in nccl-numa's words from those sources.
 *
 * The cost table, here and in every later version: collCostTable is one contiguous
 * float[numAlgo][numProto] passed as float ** (index it as a flat array, a * numProto + p;
 * it is not an array of pointers). Each entry is NCCL's predicted time in microseconds for
 * that algorithm and protocol, or -1 when NCCL will not run it here (not supported, ruled
 * out by NCCL_ALGO/NCCL_PROTO, or unsafe on this topology). After the call NCCL takes the
 * smallest entry that is not negative, ties to the lower algorithm, then protocol: a plugin
 * chooses by writing 0 and forbids by writing a negative value. NCCL does not check the
 * table again, so an entry that came in as -1 must never leave non-negative.
 */
#ifndef NCCL_NUMA_TUNER_V3_H
#define NCCL_NUMA_TUNER_V3_H

#include "nccl_common.h"

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* As v2 (tuner_v2.h): once per communicator, *context out; failure fails the
   * communicator's creation. */
  nn_ncclResult_t (*init)(size_t nRanks, size_t nNodes, nn_ncclDebugLogger_t logFunction,
                          void **context);

  /* Once per collective before its launch, as v2 (when, which thread, no overlap per
   * communicator).
   * In:  context; collType; nBytes; numPipeOps; numAlgo x numProto, the table's shape.
   * In/out: collCostTable (above).
   * Out: *nChannels (comes in as 0, NCCL's own count; another value caps it).
   * Failure: the collective fails, as v2. */
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo, int numProto,
                                 int *nChannels);

  /* As v2: when the communicator is destroyed, NULL context after a failed init. */
  nn_ncclResult_t (*destroy)(void *context);
} nn_ncclTuner_v3_t;

#endif
