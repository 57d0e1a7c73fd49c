/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drv_print.c - nn_drv_print: prints a SYNTHETIC sweep through the driver's own output
 * code (driver_format.c), for the kit's stand-in driver (test/gpu/standin), so that ab,
 * report and calibrate in the CPU rehearsal read exactly what nn_coll_driver prints.
 *
 *   nn_drv_print OP NRANKS MINB MAXB FACTOR LATENCY_US GBPS WRONG
 *
 * Each size's time is LATENCY_US + size / GBPS; WRONG wrong elements per direction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver_format.h"

static int num(const char *s, double lo, double hi, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end == s || *end || *out < lo || *out > hi ? -1 : 0;
}

int main(int argc, char **argv) {
  double v[7];
  static const double hi[7] = {64, 1e12, 1e12, 1 << 20, 1e9, 1e6, 1e9};
  int bad = argc != 9;
  for (int i = 0; !bad && i < 7; i++) bad = num(argv[i + 2], 0, hi[i], &v[i]);
  if (bad || v[0] < 1 || v[1] < 1 || v[1] > v[2] || v[3] < 2 || v[5] <= 0) {
    fprintf(stderr, "usage: nn_drv_print OP NRANKS MINB MAXB FACTOR LATENCY_US GBPS WRONG\n");
    return 2;
  }
  int n = (int)v[0];
  struct nn_drv_rank ranks[64];
  for (int r = 0; r < n; r++)
    ranks[r] =
      (struct nn_drv_rank){.pid = (int)getpid(), .bus = 0x17, .name = "NVIDIA SYNTHETIC GPU"};
  struct nn_drv_run run = {.op = argv[1],
                           .nccl_code = 23007,
                           .headers_code = 23007,
                           .nthreads = n,
                           .minb = (size_t)v[1],
                           .maxb = (size_t)v[2],
                           .factor = (int)v[3],
                           .warmup = 1,
                           .iters = 5,
                           .check = 1,
                           .host = "standin",
                           .ranks = ranks,
                           .nranks = n};
  nn_drv_print_header(stdout, &run);
  int whole = strcmp(argv[1], "all_reduce") != 0;
  long total = 0;
  for (size_t b = run.minb; b <= run.maxb; b *= (size_t)run.factor) {
    size_t count = b / 4 - (whole ? (b / 4) % (size_t)n : 0);
    double t[2] = {(v[4] + (double)count * 4 / (v[5] * 1e3)) * 1e-6, 0};
    t[1] = t[0];
    long wrong[2] = {(long)v[6], (long)v[6]};
    if (count) nn_drv_print_row(stdout, &run, count * 4, count, t, wrong);
    total += 2 * (long)v[6];
  }
  nn_drv_print_footer(stdout, &run, total, 0);
  return 0;
}
