/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verdict.h - whether an arm of a measurement run is faster than the baseline at one size:
 * the one test the report, calibrate's rules and the cost-model comparison all apply.
 */
#ifndef NCCL_NUMA_CLI_VERDICT_H
#define NCCL_NUMA_CLI_VERDICT_H

#include "cli/sweep/rundir.h"

enum nn_verdict {
  NN_VERDICT_FASTER,
  NN_VERDICT_SLOWER,
  NN_VERDICT_NOISE,
  NN_VERDICT_FAILED,
  NN_VERDICT_UNKNOWN
};

/* Compares an arm's point with the baseline's: faster (slower) when the arm's
 * median is below (above) the baseline's by more than the larger of the two
 * spreads; within noise otherwise; unknown with fewer than 2 good values on
 * either side (no spread measured) or a missing point; failed when either
 * point failed. */
int nn_verdict_compare(const struct nn_point *base, const struct nn_point *arm);
/* "faster", "slower", "within noise", "FAILED", "n/a". */
const char *nn_verdict_name(int verdict);

#endif
