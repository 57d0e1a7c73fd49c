/* SPDX-License-Identifier: BSD-3-Clause */
/* monotonic.h - seconds of CLOCK_MONOTONIC, for time limits and measured durations. */
#ifndef NCCL_NUMA_CLI_MONOTONIC_H
#define NCCL_NUMA_CLI_MONOTONIC_H

double nn_monotonic_s(void);

#endif
