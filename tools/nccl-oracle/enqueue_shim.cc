/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * enqueue_shim.cc - compiles NCCL's own enqueue.cc, unmodified, into this translation
 * unit so that its algorithm selection can be called by the oracle exactly as
 * ncclPrepareTasks calls it:
 *   2.28:  file-static getAlgoInfo -> updateCollCostTable -> ncclTopoGetAlgoTime, topoGetAlgoInfo
 *   2.29/2.30: the same body, exported as ncclGetAlgoInfo
 *   2.31 (dev, src/tuning/): ncclGetAlgoInfo -> ncclTuningCompute -> ncclTuningComputeAllTunings
 *         (one cost model per algo/proto id) -> ncclTuningSelectBestTuning -> ncclTuningGetChannels
 */
#include "enqueue.cc"

/* 2.28: file-static getAlgoInfo(); 2.29+: exported ncclGetAlgoInfo() (same body) */
#ifndef ORACLE_GETALGOINFO
#define ORACLE_GETALGOINFO getAlgoInfo
#endif

#include "oracle_api.h"
#ifdef ORACLE_TUNING_SUBSYSTEM
#include "tuning_int.h"
#endif

ncclResult_t oracleGetAlgoInfo(struct ncclComm* comm, struct ncclTaskColl* task, int collNetSupport,
                               int nvlsSupport, int numPipeOps, float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS],
                               float* estimatedTime) {
  ncclSimInfo_t simInfo = NCCL_SIM_INFO_INITIALIZER;
  NCCLCHECK(ORACLE_GETALGOINFO(comm, task, collNetSupport, nvlsSupport, numPipeOps, &simInfo));
  if (estimatedTime) *estimatedTime = simInfo.estimatedTime;
  if (table) {
    size_t nBytes = ncclTypeSize(task->datatype) * ncclFuncMaxSendRecvCount(task->func, comm->nRanks, task->count);
#ifdef ORACLE_TUNING_SUBSYSTEM
    /* the same list of per-(algo,proto) model results ncclTuningCompute built: the input filled
     * as ncclGetAlgoInfo fills it, then NCCL's ncclTuningComputeAllTunings */
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; p++) table[a][p] = NCCL_ALGO_PROTO_IGNORE;
    struct ncclTuningInput_t input;
    memset(&input, 0, sizeof input);
    input.comm = comm;
    input.tuningMask = NCCL_TUNING_MASK_GENERAL_KERNELS;
    input.func = task->func;
    input.redOp = task->opHost;
    input.devRedOp = task->opDev.op;
    input.datatype = task->datatype;
    input.nBytes = nBytes;
    input.numPipeOps = numPipeOps;
    input.collNetSupport = collNetSupport;
    input.nvlsSupport = nvlsSupport;
    input.count = task->count;
    NCCLCHECK(ncclGetRegBuff(comm, task, &input.regBuff));
    struct ncclTuningResultList_t list;
    list.head = nullptr;
    NCCLCHECK(ncclTuningComputeAllTunings(&input, &list));
    for (struct ncclTuningResultListNode* n = list.head; n; n = n->next)
      if (n->result.algo >= 0 && n->result.proto >= 0) table[n->result.algo][n->result.proto] = n->result.timeUs;
    ncclTuningResultListFree(&list);
#else
    /* the same cost table getAlgoInfo built (same inputs, same NCCL code) */
    initCollCostTable((float**)table);
    NCCLCHECK(updateCollCostTable(comm, task, nBytes, collNetSupport, nvlsSupport, numPipeOps, (float**)table));
#endif
  }
  return ncclSuccess;
}
