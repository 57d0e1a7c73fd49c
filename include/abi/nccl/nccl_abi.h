/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_abi.h - every NCCL plugin ABI version nccl-numa implements, for the programs that
 * need them all (the tests and tools). An adapter includes its own version's header.
 */
#ifndef NCCL_NUMA_NCCL_ABI_H
#define NCCL_NUMA_NCCL_ABI_H

#include "env_v1.h"
#include "env_v2.h"
#include "nccl_common.h"
#include "tuner_v2.h"
#include "tuner_v3.h"
#include "tuner_v4.h"
#include "tuner_v5.h"
#include "tuner_v6.h"
#include "tuner_v7.h"

#endif
