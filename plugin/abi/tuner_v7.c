/* SPDX-License-Identifier: BSD-3-Clause */
/* tuner_v7.c - NCCL 2.32.6+: v6's functions (chunk= rules through getChunkSize) over constants
 * whose compute-capability tables have a fifth row; only hwLatencies, at v5's offset, is handed on.
 */
#include "tuner.h"
#include "tuner_v7.h"
#include "ncclload.h"

static nn_ncclResult_t init_v7(void **ctx, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                               nn_ncclDebugLogger_t logger, nn_ncclNvlDomainInfo_v7_t *nvl,
                               nn_ncclTunerConstants_v7_t *constants) {
  (void)nvl;
  struct nn_tuner_init_args a = {.abi_version = 7,
                                 .comm_id = comm_id,
                                 .n_ranks = n_ranks,
                                 .n_nodes = n_nodes,
                                 .logger = logger,
                                 .hw_latencies = constants ? &constants->hwLatencies : NULL};
  nn_ncclload_note(__builtin_return_address(0));
  return nn_tuner_init(&a, ctx);
}

static nn_ncclResult_t get_coll_info_v7(void *ctx, nn_ncclFunc_t coll, size_t n_bytes, int pipe_ops,
                                        float **table, int num_algo, int num_proto, int reg_buff,
                                        int *n_channels) {
  return nn_tuner_get_coll_info(ctx, coll, n_bytes, pipe_ops, table, num_algo, num_proto, reg_buff,
                                n_channels);
}

static nn_ncclResult_t get_chunk_size_v7(void *ctx, nn_ncclFunc_t coll, size_t n_bytes, int algo,
                                         int proto, int n_channels, size_t *chunk) {
  return nn_tuner_get_chunk_size(ctx, coll, n_bytes, algo, proto, n_channels, chunk);
}

NN_EXPORT const nn_ncclTuner_v7_t ncclTunerPlugin_v7 = {
  .name = NN_PLUGIN_NAME,
  .init = init_v7,
  .getCollInfo = get_coll_info_v7,
  .finalize = nn_tuner_finalize,
  .getChunkSize = get_chunk_size_v7,
};
