/* tuner_v2.c - NCCL 2.21: indices out, no cost table. */
#include "tuner.h"

static nn_ncclResult_t init_v2(size_t n_ranks, size_t n_nodes, nn_ncclDebugLogger_t logger, void **ctx) {
  struct nn_tuner_init_args a = {.abi_version = 2, .n_ranks = n_ranks, .n_nodes = n_nodes, .logger = logger};
  return nn_tuner_init(&a, ctx);
}

static nn_ncclResult_t get_coll_info_v2(void *ctx, nn_ncclFunc_t coll, size_t n_bytes, int coll_net_support,
                                        int nvls_support, int pipe_ops, int *algo, int *proto,
                                        int *n_channels) {
  (void)coll_net_support;  /* the v2 safe set never uses CollNet or NVLS */
  (void)nvls_support;
  return nn_tuner_get_coll_info_v2(ctx, coll, n_bytes, pipe_ops, algo, proto, n_channels);
}

NN_EXPORT const nn_ncclTuner_v2_t ncclTunerPlugin_v2 = {
  .name = NN_PLUGIN_NAME, .init = init_v2, .getCollInfo = get_coll_info_v2, .destroy = nn_tuner_finalize,
};
