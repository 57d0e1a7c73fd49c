/* SPDX-License-Identifier: BSD-3-Clause */
/* env_v1.c - NCCL 2.28.7+: no logger; messages go to stderr when NCCL_DEBUG is set. */
#include "env.h"
#include "env_v1.h"
#include "tuner.h"
#include "ncclload.h"

static nn_ncclResult_t init_v1(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix) {
  nn_ncclload_note(__builtin_return_address(0)); /* NCCL called: the loaded NCCL, once */
  return nn_env_init(major, minor, patch, suffix, NULL, 1);
}

NN_EXPORT const nn_ncclEnv_v1_t ncclEnvPlugin_v1 = {
  .name = NN_PLUGIN_NAME,
  .init = init_v1,
  .finalize = nn_env_finalize,
  .getEnv = nn_env_get,
};
