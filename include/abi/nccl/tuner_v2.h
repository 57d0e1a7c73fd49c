/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner_v2.h - NCCL's tuner plugin ABI v2, the symbol ncclTunerPlugin_v2.
 *
 * Declared in NCCL's src/include/nccl_tuner.h (v2.21.5-1, the first release to look for
 * it) and src/include/plugin/tuner/tuner_v2.h (v2.30.7-1). Every release from 2.21 to
 * 2.30.7 looks for it, last: from 2.22 on NCCL wraps it (src/plugin/tuner/tuner_v2.cc)
 * when the library has no newer symbol. Written in nccl-numa's words from those sources.
 *
 * Where the symbol is absent, NCCL 2.21 runs without a tuner (its own model decides);
 * later releases first try the newer symbols (tuner_v3.h ... tuner_v7.h).
 */
#ifndef NCCL_NUMA_TUNER_V2_H
#define NCCL_NUMA_TUNER_V2_H

#include "nccl_common.h"

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* Once per communicator (split and single-rank ones included), maybe on several
   * threads at once for different communicators.
   * In:  nRanks and nNodes of the communicator; logFunction, NCCL's logger, valid for the
   *      life of the process.
   * Out: *context, any pointer; NCCL passes it back to every later call for this
   *      communicator and never looks inside.
   * Failure: NCCL fails the creation of the communicator (src/init.cc). */
  nn_ncclResult_t (*init)(size_t nRanks, size_t nNodes, nn_ncclDebugLogger_t logFunction,
                          void **context);

  /* Once per collective before its launch, on the thread that enqueues it; never for
   * send/recv, single-rank communicators or a CUDA graph's replay. Calls for one
   * communicator do not overlap.
   * In:  context from init; collType; nBytes, the size NCCL tunes for (for AllGather
   *      and ReduceScatter the whole gathered buffer);
   *      collNetSupport, nvlsSupport: whether CollNet and NVLS can run this collective
   *      here; numPipeOps, the operations grouped with it.
   * Out: *algorithm and *protocol (come in as -1: leave both, or set both; never one);
   *      *nChannels (comes in as 0, NCCL's own count; another value caps it).
   * NCCL 2.21 applies the pair as given, without checking that this topology can run it
   * (src/enqueue.cc, getTunerInfo); 2.22 on set that pair's cost to 0 only when it is
   * enabled here (tuner_v2.cc). Whatever is left unset NCCL chooses itself.
   * Failure: the collective fails (the error reaches the caller's NCCL call); NCCL's
   * header promises a fallback to its own choice, its code does not do that. */
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int collNetSupport, int nvlsSupport, int numPipeOps,
                                 int *algorithm, int *protocol, int *nChannels);

  /* When the communicator is destroyed; context as init left it (NULL after a failed
   * init). The plugin frees what init made. Failure: ncclCommDestroy returns it. */
  nn_ncclResult_t (*destroy)(void *context);
} nn_ncclTuner_v2_t;

#endif
