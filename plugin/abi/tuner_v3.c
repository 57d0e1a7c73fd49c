/* SPDX-License-Identifier: BSD-3-Clause */
/* tuner_v3.c - NCCL 2.22-2.23: cost table, no regBuff. */
#include "tuner.h"
#include "tuner_v3.h"
#include "ncclload.h"

static nn_ncclResult_t init_v3(size_t n_ranks, size_t n_nodes, nn_ncclDebugLogger_t logger,
                               void **ctx) {
  struct nn_tuner_init_args a = {
    .abi_version = 3, .n_ranks = n_ranks, .n_nodes = n_nodes, .logger = logger};
  nn_ncclload_note(__builtin_return_address(0));
  return nn_tuner_init(&a, ctx);
}

static nn_ncclResult_t get_coll_info_v3(void *ctx, nn_ncclFunc_t coll, size_t n_bytes, int pipe_ops,
                                        float **table, int num_algo, int num_proto,
                                        int *n_channels) {
  return nn_tuner_get_coll_info(ctx, coll, n_bytes, pipe_ops, table, num_algo, num_proto, NN_ANY,
                                n_channels);
}

NN_EXPORT const nn_ncclTuner_v3_t ncclTunerPlugin_v3 = {
  .name = NN_PLUGIN_NAME,
  .init = init_v3,
  .getCollInfo = get_coll_info_v3,
  .destroy = nn_tuner_finalize,
};
