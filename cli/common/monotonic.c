/* SPDX-License-Identifier: BSD-3-Clause */
/* monotonic.c - see monotonic.h. */
#include "cli/common/monotonic.h"

#include <time.h>

double nn_monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
