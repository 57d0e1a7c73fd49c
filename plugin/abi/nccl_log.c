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

/* NCCL prints the file and line on WARN and TRACE lines: the plugin's line that spoke. */
static void to_nccl(const struct nn_logger *self, int level, unsigned subsys, const char *file,
                    int line, const char *msg) {
  const struct nn_nccl_logger *l = (const struct nn_nccl_logger *)self;
  l->nccl(level == NN_LOG_WARN ? NN_NCCL_LOG_WARN : NN_NCCL_LOG_INFO, nccl_subsys(subsys), file,
          line, "%s", msg);
}

const struct nn_logger *nn_nccl_logger(struct nn_nccl_logger *l, nn_ncclDebugLogger_t nccl) {
  if (!nccl) return NULL;
  l->base = (struct nn_logger){.line_at = to_nccl};
  l->nccl = nccl;
  return &l->base;
}
