/* SPDX-License-Identifier: BSD-3-Clause */
/* tuner_v6.c - NCCL 2.30.3+: v5 plus the chunk-size hook, which serves chunk= rules (and leaves
 * NCCL's value untouched where none applies). */
#include "tuner.h"
#include "tuner_v6.h"
#include "ncclload.h"

static nn_ncclResult_t init_v6(void **ctx, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                               nn_ncclDebugLogger_t logger, nn_ncclNvlDomainInfo_v6_t *nvl,
                               nn_ncclTunerConstants_v6_t *constants) {
  (void)nvl;
  struct nn_tuner_init_args a = {.abi_version = 6,
                                 .comm_id = comm_id,
                                 .n_ranks = n_ranks,
                                 .n_nodes = n_nodes,
                                 .logger = logger,
                                 .hw_latencies = constants ? &constants->hwLatencies : NULL};
  nn_ncclload_note(__builtin_return_address(0));
  return nn_tuner_init(&a, ctx);
}

static nn_ncclResult_t get_coll_info_v6(void *ctx, nn_ncclFunc_t coll, size_t n_bytes, int pipe_ops,
                                        float **table, int num_algo, int num_proto, int reg_buff,
                                        int *n_channels) {
  return nn_tuner_get_coll_info(ctx, coll, n_bytes, pipe_ops, table, num_algo, num_proto, reg_buff,
                                n_channels);
}

static nn_ncclResult_t get_chunk_size_v6(void *ctx, nn_ncclFunc_t coll, size_t n_bytes, int algo,
                                         int proto, int n_channels, size_t *chunk) {
  return nn_tuner_get_chunk_size(ctx, coll, n_bytes, algo, proto, n_channels, chunk);
}

NN_EXPORT const nn_ncclTuner_v6_t ncclTunerPlugin_v6 = {
  .name = NN_PLUGIN_NAME,
  .init = init_v6,
  .getCollInfo = get_coll_info_v6,
  .finalize = nn_tuner_finalize,
  .getChunkSize = get_chunk_size_v6,
};
