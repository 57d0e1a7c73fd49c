/* SPDX-License-Identifier: BSD-3-Clause */
/* verdict.c - an arm against the baseline at one size (verdict.h). */
#include "cli/sweep/verdict.h"

#include <math.h>

int nn_verdict_compare(const struct nn_point *base, const struct nn_point *arm) {
  if (!base || !arm) return NN_VERDICT_UNKNOWN;
  if (base->failed || arm->failed) return NN_VERDICT_FAILED;
  if (base->n_ok < 2 || arm->n_ok < 2) return NN_VERDICT_UNKNOWN;
  double noise = fmax(base->max - base->min, arm->max - arm->min);
  double gain = base->median - arm->median;
  if (gain > noise) return NN_VERDICT_FASTER;
  if (-gain > noise) return NN_VERDICT_SLOWER;
  return NN_VERDICT_NOISE;
}

const char *nn_verdict_name(int v) {
  switch (v) {
  case NN_VERDICT_FASTER:
    return "faster";
  case NN_VERDICT_SLOWER:
    return "slower";
  case NN_VERDICT_NOISE:
    return "within noise";
  case NN_VERDICT_FAILED:
    return "FAILED";
  default:
    return "n/a";
  }
}
