/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_v2.h - NCCL's env plugin ABI v2, the symbol ncclEnvPlugin_v2: v1 whose init also
 * gets NCCL's logger.
 *
 * Declared in NCCL's src/include/plugin/env/env_v2.h (v2.30.7-1, the first release to look
 * for it). 2.30.7 tries it first, then v1 (env_v1.h: loading, the fallback without a
 * plugin, finalize and getEnv with its string lifetime are the same). Written in
 * nccl-numa's words from that source.
 */
#ifndef NCCL_NUMA_ENV_V2_H
#define NCCL_NUMA_ENV_V2_H

#include <stdint.h>

#include "nccl_common.h"

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* As v1's init, plus logFunction, NCCL's logger, valid for the life of the process.
   * Failure: every NCCL call that initialises the library returns it, as v1. */
  nn_ncclResult_t (*init)(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                          nn_ncclDebugLogger_t logFunction);

  /* As v1: at process exit, result ignored; returned strings may be freed. */
  nn_ncclResult_t (*finalize)(void);

  /* As v1: NULL for "not set"; a returned string stays valid until the next getEnv of
   * the same name or finalize. */
  const char *(*getEnv)(const char *name);
} nn_ncclEnv_v2_t;

#endif
