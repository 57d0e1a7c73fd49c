/* SPDX-License-Identifier: BSD-3-Clause */
/* abi_conformance.h - what the files of the abi_conformance program share: the tuner part
 * (abi_conformance.c, main) calls the env plugin part (abi_env.c). */
#ifndef NCCL_NUMA_ABI_CONFORMANCE_H
#define NCCL_NUMA_ABI_CONFORMANCE_H

#include "abi_common.h"

/* The reference machine's mapping: VM GPUs 0-3 on host NUMA 1, 4-7 on NUMA 0. */
extern const char *const REFERENCE;

/* The env plugin v1/v2 against cfg_amd (the reference mapping with rules and env lines). */
void nn_abi_env_test(void *h, const char *dir, const char *cfg_amd);
/* Where libxml2 cannot load: the topology and env defaults served, no libxml2 mapped. */
void nn_abi_env_test_no_libxml2(void *h, const char *dir);

#endif
