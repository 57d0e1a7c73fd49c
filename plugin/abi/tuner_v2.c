/* SPDX-License-Identifier: BSD-3-Clause */
/* tuner_v2.c - NCCL 2.21: indices out, no cost table. */
#include "tuner.h"
#include "tuner_v2.h"
#include "ncclload.h"

static nn_ncclResult_t init_v2(size_t n_ranks, size_t n_nodes, nn_ncclDebugLogger_t logger,
                               void **ctx) {
  struct nn_tuner_init_args a = {
    .abi_version = 2, .n_ranks = n_ranks, .n_nodes = n_nodes, .logger = logger};
  nn_ncclload_note(__builtin_return_address(0));
  return nn_tuner_init(&a, ctx);
}

/* NCCL 2.21 takes a v2 plugin's algorithm and protocol as they are, without checking
 * that they are enabled here (src/enqueue.cc, getTunerInfo: topoGetAlgoInfo fills in only
 * what the plugin left undefined). So only what that release runs on every topology may
 * be chosen: ring x {ll, simple} for every collective, tree x {ll, simple} for allreduce. */
static int v2_safe(int coll, int algo, int proto) {
  if (proto != NN_PROTO_LL && proto != NN_PROTO_SIMPLE) return 0;
  return algo == NN_ALGO_RING || (algo == NN_ALGO_TREE && coll == NN_COLL_ALLREDUCE);
}

static nn_ncclResult_t get_coll_info_v2(void *ctx, nn_ncclFunc_t coll, size_t n_bytes,
                                        int coll_net_support, int nvls_support, int pipe_ops,
                                        int *algo, int *proto, int *n_channels) {
  (void)coll_net_support; /* the v2 safe set never uses CollNet or NVLS */
  (void)nvls_support;
  const struct nn_tuner_ctx *c = (const struct nn_tuner_ctx *)ctx;
  /* With NCCL_ALGO or NCCL_PROTO set a v2 choice could contradict them unchecked. */
  if (c && coll >= 0 && coll < 32 && (c->coll_mask >> coll & 1u) && !c->v2_blocked)
    nn_policy_apply_fixed(c->policy, coll, n_bytes, pipe_ops, v2_safe, algo, proto, n_channels);
  return nn_ncclSuccess;
}

NN_EXPORT const nn_ncclTuner_v2_t ncclTunerPlugin_v2 = {
  .name = NN_PLUGIN_NAME,
  .init = init_v2,
  .getCollInfo = get_coll_info_v2,
  .destroy = nn_tuner_finalize,
};
