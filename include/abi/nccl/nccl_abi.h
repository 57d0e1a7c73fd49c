/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_abi.h - nccl-numa's own declarations of NCCL's tuner and env plugin ABI.
 *
 * Written from the project's ABI notes (shared docs, "NCCL plugin ABI"), not copied
 * from NCCL. Every plugin symbol NCCL looks for is a const data object, not a function.
 * The names here carry an nn_ prefix so they can never clash with a real nccl.h.
 */
#ifndef NCCL_NUMA_NCCL_ABI_H
#define NCCL_NUMA_NCCL_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ncclResult_t: an int-sized enum. */
typedef enum {
  nn_ncclSuccess = 0,
  nn_ncclUnhandledCudaError = 1,
  nn_ncclSystemError = 2,
  nn_ncclInternalError = 3,
  nn_ncclInvalidArgument = 4,
  nn_ncclInvalidUsage = 5,
  nn_ncclRemoteError = 6,
  nn_ncclInProgress = 7
} nn_ncclResult_t;

/* ncclFunc_t: the tuner only ever sees these five. */
typedef enum {
  nn_ncclFuncBroadcast = 0,
  nn_ncclFuncReduce = 1,
  nn_ncclFuncAllGather = 2,
  nn_ncclFuncReduceScatter = 3,
  nn_ncclFuncAllReduce = 4
} nn_ncclFunc_t;

/* Logger levels and subsystem flags. */
enum { NN_NCCL_LOG_NONE = 0, NN_NCCL_LOG_VERSION = 1, NN_NCCL_LOG_WARN = 2,
       NN_NCCL_LOG_INFO = 3, NN_NCCL_LOG_ABORT = 4, NN_NCCL_LOG_TRACE = 5 };
enum { NN_NCCL_INIT = 0x1, NN_NCCL_GRAPH = 0x20, NN_NCCL_TUNING = 0x40, NN_NCCL_ENV = 0x80 };

typedef void (*nn_ncclDebugLogger_t)(int level, unsigned long flags, const char *file,
                                     int line, const char *fmt, ...);

/* Algorithm and protocol indices of the cost table. */
enum { NN_NCCL_ALGO_TREE = 0, NN_NCCL_ALGO_RING = 1, NN_NCCL_ALGO_COLLNET_DIRECT = 2,
       NN_NCCL_ALGO_COLLNET_CHAIN = 3, NN_NCCL_ALGO_NVLS = 4, NN_NCCL_ALGO_NVLS_TREE = 5,
       NN_NCCL_ALGO_PAT = 6, NN_NCCL_NUM_ALGORITHMS = 7 };
enum { NN_NCCL_PROTO_LL = 0, NN_NCCL_PROTO_LL128 = 1, NN_NCCL_PROTO_SIMPLE = 2,
       NN_NCCL_NUM_PROTOCOLS = 3 };
enum { NN_NCCL_ALGO_PROTO_UNDEF = -1 };

/* Link, compute-capability and scale indices of ncclTunerConstants_v5_t. */
enum { NN_NCCL_HW_NVLINK = 0, NN_NCCL_HW_PCI = 1, NN_NCCL_HW_NET = 2, NN_NCCL_NUM_HW_LINKS = 3 };
enum { NN_NCCL_NUM_COMPCAPS = 4, NN_NCCL_NUM_TUNING_SCALES = 3 };

/* ---- tuner v2 (NCCL 2.21) ---- */
typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(size_t nRanks, size_t nNodes, nn_ncclDebugLogger_t logFunction,
                          void **context);
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int collNetSupport, int nvlsSupport, int numPipeOps,
                                 int *algorithm, int *protocol, int *nChannels);
  nn_ncclResult_t (*destroy)(void *context);
} nn_ncclTuner_v2_t;

/* ---- tuner v3 (2.22-2.23) ---- */
typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(size_t nRanks, size_t nNodes, nn_ncclDebugLogger_t logFunction,
                          void **context);
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo,
                                 int numProto, int *nChannels);
  nn_ncclResult_t (*destroy)(void *context);
} nn_ncclTuner_v3_t;

/* ---- tuner v4 (2.24-2.27): regBuff before nChannels ---- */
typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(size_t nRanks, size_t nNodes, nn_ncclDebugLogger_t logFunction,
                          void **context);
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo,
                                 int numProto, int regBuff, int *nChannels);
  nn_ncclResult_t (*destroy)(void *context);
} nn_ncclTuner_v4_t;

/* ---- tuner v5 (2.28) ---- */
typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} nn_ncclNvlDomainInfo_v5_t;

typedef struct {
  double baseLatencies[NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double hwLatencies[NN_NCCL_NUM_HW_LINKS][NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double llMaxBws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxRingLL128Bws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeLL128Bws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeBws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxNVLSTreeBws[NN_NCCL_NUM_COMPCAPS][NN_NCCL_NUM_TUNING_SCALES];
} nn_ncclTunerConstants_v5_t;

typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(void **context, uint64_t commId, size_t nRanks, size_t nNodes,
                          nn_ncclDebugLogger_t logFunction, nn_ncclNvlDomainInfo_v5_t *nvlDomainInfo,
                          nn_ncclTunerConstants_v5_t *constants);
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo,
                                 int numProto, int regBuff, int *nChannels);
  nn_ncclResult_t (*finalize)(void *context);
} nn_ncclTuner_v5_t;

/* ---- tuner v6 (2.30.3+): v5 plus an optional chunk-size hook ---- */
typedef nn_ncclNvlDomainInfo_v5_t nn_ncclNvlDomainInfo_v6_t;
typedef nn_ncclTunerConstants_v5_t nn_ncclTunerConstants_v6_t;

typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(void **context, uint64_t commId, size_t nRanks, size_t nNodes,
                          nn_ncclDebugLogger_t logFunction, nn_ncclNvlDomainInfo_v6_t *nvlDomainInfo,
                          nn_ncclTunerConstants_v6_t *constants);
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo,
                                 int numProto, int regBuff, int *nChannels);
  nn_ncclResult_t (*finalize)(void *context);
  nn_ncclResult_t (*getChunkSize)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                  int algorithm, int protocol, int nChannels, size_t *chunkSize);
} nn_ncclTuner_v6_t;

/* ---- tuner v7 (src/include/plugin/tuner/tuner_v7.h, NVIDIA/nccl commit 2449986, for 2.32.6;
 * the released 2.31.2 and 2.32.3 libnccl.so.2 do not look for it): v6's four functions; the
 * constants keep v5's order, but every per-compute-capability table has a fifth row (Rubin,
 * index 4), so every table after hwLatencies starts later than in v5. ---- */
enum { NN_NCCL_NUM_COMPCAPS_V7 = 5, NN_NCCL_RUBIN_COMPCAP_IDX = 4 };
typedef nn_ncclNvlDomainInfo_v5_t nn_ncclNvlDomainInfo_v7_t;

typedef struct {
  double baseLatencies[NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double hwLatencies[NN_NCCL_NUM_HW_LINKS][NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  double llMaxBws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxRingLL128Bws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeLL128Bws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxTreeBws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
  double perChMaxNVLSTreeBws[NN_NCCL_NUM_COMPCAPS_V7][NN_NCCL_NUM_TUNING_SCALES];
} nn_ncclTunerConstants_v7_t;

typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(void **context, uint64_t commId, size_t nRanks, size_t nNodes,
                          nn_ncclDebugLogger_t logFunction, nn_ncclNvlDomainInfo_v7_t *nvlDomainInfo,
                          nn_ncclTunerConstants_v7_t *constants);
  nn_ncclResult_t (*getCollInfo)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                 int numPipeOps, float **collCostTable, int numAlgo,
                                 int numProto, int regBuff, int *nChannels);
  nn_ncclResult_t (*finalize)(void *context);
  nn_ncclResult_t (*getChunkSize)(void *context, nn_ncclFunc_t collType, size_t nBytes,
                                  int algorithm, int protocol, int nChannels, size_t *chunkSize);
} nn_ncclTuner_v7_t;

/* The part of the constants that sits at the same offset in v5, v6 and v7 and has no
 * compute-capability rows: what a `model` line writes. */
typedef double nn_ncclHwLatencies_t[NN_NCCL_NUM_HW_LINKS][NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];

_Static_assert(sizeof(nn_ncclTunerConstants_v5_t) == 144 * sizeof(double), "v5 constants: 144 doubles");
_Static_assert(sizeof(nn_ncclTunerConstants_v7_t) == 159 * sizeof(double), "v7 constants: 159 doubles");
_Static_assert(offsetof(nn_ncclTunerConstants_v5_t, hwLatencies) ==
                   offsetof(nn_ncclTunerConstants_v7_t, hwLatencies), "hwLatencies at one offset");

/* ---- env plugin v1 (2.28.7+) and v2 (2.30.7) ---- */
typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix);
  nn_ncclResult_t (*finalize)(void);
  const char *(*getEnv)(const char *name);
} nn_ncclEnv_v1_t;

typedef struct {
  const char *name;
  nn_ncclResult_t (*init)(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                          nn_ncclDebugLogger_t logFunction);
  nn_ncclResult_t (*finalize)(void);
  const char *(*getEnv)(const char *name);
} nn_ncclEnv_v2_t;

#endif
