/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env.h - the env plugin: NCCL asks it for every NCCL_* variable once it is loaded.
 *
 * Served names: NCCL_TOPO_FILE (the generated NUMA topology, when the verdict allows)
 * and every name of an `env` line. Precedence: real environment > `env` line >
 * generated value. Every other name is forwarded to getenv. Returned strings stay
 * valid until finalize: each distinct value served is kept until then (the config
 * versions are not: only the newest is held), and so is each "/proc/self/fd/N".
 * At most a few topology descriptors are open at once, one per distinct content
 * (see env.c for why closing the oldest is safe).
 */
#ifndef NCCL_NUMA_ENV_H
#define NCCL_NUMA_ENV_H

#include <stdint.h>

#include "nccl_common.h"

nn_ncclResult_t nn_env_init(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                            nn_ncclDebugLogger_t logger, int abi_version);
nn_ncclResult_t nn_env_finalize(void);
const char *nn_env_get(const char *name);

#endif
