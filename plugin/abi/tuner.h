/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner.h - the one tuner implementation behind every NCCL tuner ABI version.
 * The per-version adapters (tuner_v2.c ... tuner_v7.c) only translate arguments.
 */
#ifndef NCCL_NUMA_TUNER_H
#define NCCL_NUMA_TUNER_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "nccl_common.h"
#include "tuner_v5.h"
#include "plugin/core/policy_fast.h"

#define NN_PLUGIN_NAME "nccl-numa"
#define NN_EXPORT __attribute__((visibility("default")))

/* What an adapter knows at init. */
struct nn_tuner_init_args {
  int abi_version;  /* 2..7 */
  uint64_t comm_id; /* v5+; 0 before */
  size_t n_ranks, n_nodes;
  nn_ncclDebugLogger_t logger;        /* NCCL's */
  nn_ncclHwLatencies_t *hw_latencies; /* the constants' hwLatencies (v5+, same in v5-v7);
                                         NULL before v5 or when NCCL passed none */
  const struct nn_logger *log;        /* the core's view of logger (set by nn_tuner_init) */
};

/* The per-communicator context. Fields are read on the hot path without locking:
 * they never change after init. */
struct nn_tuner_ctx {
  unsigned coll_mask;               /* bit c: some rule can match collective c here */
  int v2_blocked;                   /* NCCL_ALGO/NCCL_PROTO set: v2 may not choose */
  const struct nn_policy *policy;   /* NULL: pass-through */
  struct nn_cache_version *version; /* keeps the policy alive */
  struct nn_policy_hot hot;         /* the policy's, copied: one load less per call */
  unsigned chunk_mask;              /* bit c: some chunk= rule can match collective c here
                                       (last: getCollInfo's fields keep their offsets) */
};

/* Creates a context. Never fails toward NCCL: on any problem the context is a
 * pass-through (or NULL when out of memory, which getCollInfo also accepts). */
nn_ncclResult_t nn_tuner_init(const struct nn_tuner_init_args *args, void **ctx);

/* Releases a context; NULL is accepted. */
nn_ncclResult_t nn_tuner_finalize(void *ctx);

/* getCollInfo for a collective that has rules (tuner.c): the same arguments. */
nn_ncclResult_t nn_tuner_get_coll_info_ruled(void *ctx, int coll, size_t n_bytes, int pipe_ops,
                                             float **table, int num_algo, int num_proto,
                                             int reg_buff, int *n_channels);

/* getChunkSize (v6, v7) for a collective with chunk= rules (tuner.c): the same arguments. */
nn_ncclResult_t nn_tuner_get_chunk_size_ruled(void *ctx, int coll, size_t n_bytes, int algo,
                                              int proto, int n_channels, size_t *chunk);

/* getChunkSize for v6 and v7: a collective without chunk= rules (every call of a mapping that has
 * none) returns here and leaves NCCL's value untouched, as a NULL hook would. */
static inline nn_ncclResult_t nn_tuner_get_chunk_size(void *ctx, int coll, size_t n_bytes, int algo,
                                                      int proto, int n_channels, size_t *chunk) {
  const struct nn_tuner_ctx *c = (const struct nn_tuner_ctx *)ctx;
  if (!c || (unsigned)coll >= 32u || !(c->chunk_mask >> coll & 1u)) return nn_ncclSuccess;
  return nn_tuner_get_chunk_size_ruled(ctx, coll, n_bytes, algo, proto, n_channels, chunk);
}

/* The hot path for v3-v7: no allocation, locking, I/O or string work. Collectives without a
 * rule (most calls of a typical mapping) return here; the others jump on with the same
 * arguments in NCCL's order (v4-v7). */
static inline nn_ncclResult_t nn_tuner_get_coll_info(void *ctx, int coll, size_t n_bytes,
                                                     int pipe_ops, float **table, int num_algo,
                                                     int num_proto, int reg_buff, int *n_channels) {
  const struct nn_tuner_ctx *c = (const struct nn_tuner_ctx *)ctx;
  if (!c || (unsigned)coll >= 32u || !(c->coll_mask >> coll & 1u)) return nn_ncclSuccess;
  return nn_tuner_get_coll_info_ruled(ctx, coll, n_bytes, pipe_ops, table, num_algo, num_proto,
                                      reg_buff, n_channels);
}

#endif
