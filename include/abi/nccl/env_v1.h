/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_v1.h - NCCL's env plugin ABI v1, the symbol ncclEnvPlugin_v1: NCCL asks the plugin
 * for the value of every NCCL variable it reads.
 *
 * Declared in NCCL's src/include/plugin/env/env_v1.h (v2.28.7-1, the first release to
 * look for it, and v2.30.7-1). Looked for from 2.28.7 on; 2.30.7 tries v2 (env_v2.h)
 * first. Written in nccl-numa's words from those sources.
 *
 * Loading (src/plugin/env.cc): on the first NCCL call of the process, even without a
 * GPU, NCCL opens NCCL_ENV_PLUGIN (read with plain getenv; "none" disables it), else
 * libnccl-env.so. Where no library loads or it exports no env symbol NCCL uses its own,
 * which answers with getenv: nothing fails.
 */
#ifndef NCCL_NUMA_ENV_V1_H
#define NCCL_NUMA_ENV_V1_H

#include <stdint.h>

#include "nccl_common.h"

typedef struct {
  /* The plugin's name, printed in NCCL's INFO lines; NCCL keeps the pointer. */
  const char *name;

  /* Once per process, before any getEnv.
   * In:  the version of the NCCL that loaded the plugin (major, minor, patch; suffix, a
   *      string valid during the call, e.g. "").
   * Failure: NCCL keeps the error; every NCCL call that initialises the library returns
   * it from then on (src/init.cc, ncclInitEnv): the process cannot use NCCL. */
  nn_ncclResult_t (*init)(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix);

  /* At process exit (NCCL registers it with atexit); NCCL then closes the library. Its
   * result is ignored. Every string getEnv returned may be freed here. */
  nn_ncclResult_t (*finalize)(void);

  /* Every lookup of an NCCL variable once init returned (NCCL_TOPO_FILE at each topology
   * detection, NCCL_TUNER_PLUGIN, every parameter), from any thread, concurrently.
   * In:  name, the variable's name, valid during the call.
   * Out: its value, or NULL for "not set" (NCCL then uses its default).
   * Lifetime: the string must stay readable, unchanged, until NCCL calls getEnv again for
   * the same name or calls finalize; NCCL may keep the pointer that long. nccl-numa keeps
   * every string it returns until finalize (env.c: intern_value, fd_name), and returns
   * the environment's own value where the variable is set. */
  const char *(*getEnv)(const char *name);
} nn_ncclEnv_v1_t;

#endif
