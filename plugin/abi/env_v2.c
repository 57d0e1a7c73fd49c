/* SPDX-License-Identifier: BSD-3-Clause */
/* env_v2.c - NCCL 2.30.7: init also gets NCCL's logger. */
#include "env.h"
#include "env_v2.h"
#include "tuner.h"
#include "ncclload.h"

static nn_ncclResult_t init_v2(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                               nn_ncclDebugLogger_t logger) {
  nn_ncclload_note(__builtin_return_address(0)); /* NCCL called: the loaded NCCL, once */
  return nn_env_init(major, minor, patch, suffix, logger, 2);
}

NN_EXPORT const nn_ncclEnv_v2_t ncclEnvPlugin_v2 = {
  .name = NN_PLUGIN_NAME,
  .init = init_v2,
  .finalize = nn_env_finalize,
  .getEnv = nn_env_get,
};
