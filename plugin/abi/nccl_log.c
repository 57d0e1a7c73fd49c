/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl_log.c - the core's logger onto NCCL's (see nccl_log.h). */
#include "nccl_log.h"

static unsigned long nccl_subsys(unsigned subsys) {
  unsigned long f = 0;
  if (subsys & NN_LOG_INIT) f |= NN_NCCL_INIT;
  if (subsys & NN_LOG_ENV) f |= NN_NCCL_ENV;
  if (subsys & NN_LOG_TUNING) f |= NN_NCCL_TUNING;
  return f;
}

static void to_nccl(const struct nn_logger *self, int level, unsigned subsys, const char *msg) {
  const struct nn_nccl_logger *l = (const struct nn_nccl_logger *)self;
  l->nccl(level == NN_LOG_WARN ? NN_NCCL_LOG_WARN : NN_NCCL_LOG_INFO, nccl_subsys(subsys), __FILE__, __LINE__,
          "%s", msg);
}

const struct nn_logger *nn_nccl_logger(struct nn_nccl_logger *l, nn_ncclDebugLogger_t nccl) {
  if (!nccl) return NULL;
  l->base.line = to_nccl;
  l->nccl = nccl;
  return &l->base;
}
