/* SPDX-License-Identifier: BSD-3-Clause */
/* oracle_api.h - the one entry point the enqueue shim exports. */
#ifndef ORACLE_API_H
#define ORACLE_API_H
#include "comm.h"

/* NCCL's getAlgoInfo (enqueue.cc, file-static) on one task, plus the cost table it used. */
ncclResult_t oracleGetAlgoInfo(struct ncclComm* comm, struct ncclTaskColl* task, int collNetSupport,
                               int nvlsSupport, int numPipeOps, float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS],
                               float* estimatedTime);
#endif
