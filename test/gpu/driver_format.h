/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * driver_format.h - the text nn_coll_driver prints, in nccl-tests' layout (header
 * lines starting with '#', one row per size: size count type redop root, then
 * time algbw busbw #wrong out of place and in place). No CUDA here, so the CPU
 * tests print a sweep with these functions and read it back with the project's
 * nccl-tests parser (cli/sweep/nccltests.h).
 */
#ifndef NCCL_NUMA_TEST_GPU_DRIVER_FORMAT_H
#define NCCL_NUMA_TEST_GPU_DRIVER_FORMAT_H

#include <stddef.h>
#include <stdio.h>

/* One rank's line under "Using devices". */
struct nn_drv_rank {
  int pid, device;
  unsigned domain, bus, dev;
  char name[96];
};

struct nn_drv_run {
  const char *op; /* all_reduce, all_gather, reduce_scatter */
  int nccl_code, headers_code;
  int nthreads; /* ranks of this process */
  size_t minb, maxb;
  int factor, warmup, iters, check;
  const char *host;
  const struct nn_drv_rank *ranks;
  int nranks;
};

/* nccl-tests' bus bandwidth factor: 2(n-1)/n for all_reduce, (n-1)/n otherwise. */
double nn_drv_bus_factor(const char *op, int nranks);

void nn_drv_print_header(FILE *f, const struct nn_drv_run *r);

/* One row: t[0], t[1] seconds per call out of place and in place, wrong[] the
 * wrong elements of each (printed N/A when r->check is 0). */
void nn_drv_print_row(FILE *f, const struct nn_drv_run *r, size_t bytes, size_t count,
                      const double t[2], const long wrong[2]);

/* The footer: the count of wrong elements over the whole sweep (nccl-tests' "Out of
 * bounds values") and the average in-place bus bandwidth. */
void nn_drv_print_footer(FILE *f, const struct nn_drv_run *r, long wrong, double avg_busbw);

#endif
