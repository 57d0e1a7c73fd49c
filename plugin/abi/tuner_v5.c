/* SPDX-License-Identifier: BSD-3-Clause */
/* tuner_v5.c - NCCL 2.28: commId, NVL domain info and editable constants at init. */
#include "tuner.h"
#include "tuner_v5.h"
#include "ncclload.h"

static nn_ncclResult_t init_v5(void **ctx, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                               nn_ncclDebugLogger_t logger, nn_ncclNvlDomainInfo_v5_t *nvl,
                               nn_ncclTunerConstants_v5_t *constants) {
  (void)nvl;
  struct nn_tuner_init_args a = {.abi_version = 5,
                                 .comm_id = comm_id,
                                 .n_ranks = n_ranks,
                                 .n_nodes = n_nodes,
                                 .logger = logger,
                                 .hw_latencies = constants ? &constants->hwLatencies : NULL};
  nn_ncclload_note(__builtin_return_address(0));
  return nn_tuner_init(&a, ctx);
}

static nn_ncclResult_t get_coll_info_v5(void *ctx, nn_ncclFunc_t coll, size_t n_bytes, int pipe_ops,
                                        float **table, int num_algo, int num_proto, int reg_buff,
                                        int *n_channels) {
  return nn_tuner_get_coll_info(ctx, coll, n_bytes, pipe_ops, table, num_algo, num_proto, reg_buff,
                                n_channels);
}

NN_EXPORT const nn_ncclTuner_v5_t ncclTunerPlugin_v5 = {
  .name = NN_PLUGIN_NAME,
  .init = init_v5,
  .getCollInfo = get_coll_info_v5,
  .finalize = nn_tuner_finalize,
};
