/* SPDX-License-Identifier: BSD-3-Clause */
/* driver_format.c - nn_coll_driver's output in nccl-tests' layout (driver_format.h). */
#include "driver_format.h"

#include <string.h>

double nn_drv_bus_factor(const char *op, int n) {
  return !strcmp(op, "all_reduce") ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
}

void nn_drv_print_header(FILE *f, const struct nn_drv_run *r) {
  fprintf(f, "# nn_coll_driver (nccl-numa GPU kit): rows in nccl-tests' layout\n");
  fprintf(f, "# NCCL version %d.%d.%d (library; headers %d)\n", r->nccl_code / 10000,
          (r->nccl_code % 10000) / 100, r->nccl_code % 100, r->headers_code);
  fprintf(f, "# Collective test starting: nn_coll_driver_%s\n", r->op);
  fprintf(f,
          "# nThread %d nGpus 1 minBytes %zu maxBytes %zu step: %d(factor) warmup iters: %d "
          "iters: %d agg iters: 1 validation: %d graph: 0\n",
          r->nthreads, r->minb, r->maxb, r->factor, r->warmup, r->iters, r->check);
  fprintf(f, "#\n# Using devices\n");
  for (int i = 0; i < r->nranks; i++) {
    const struct nn_drv_rank *k = &r->ranks[i];
    fprintf(f, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", i, k->pid,
            r->host, k->device, k->domain, k->bus, k->dev, k->name);
  }
  fprintf(f, "#\n#%57s out-of-place %25s in-place\n", "", "");
  fprintf(f, "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
             "     time   algbw   busbw  #wrong\n");
  fprintf(f, "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
             "     (us)  (GB/s)  (GB/s)\n");
  fflush(f);
}

/* Appends one direction's columns to buf (size bytes, *len used). */
static void measure(char *buf, size_t size, size_t *len, const struct nn_drv_run *r, size_t bytes,
                    double t, long wrong) {
  double alg = t > 0 ? (double)bytes / 1e9 / t : 0;
  int w = r->check ? snprintf(buf + *len, size - *len, "  %7.2f  %6.2f  %6.2f  %6ld", t * 1e6, alg,
                              alg * nn_drv_bus_factor(r->op, r->nranks), wrong)
                   : snprintf(buf + *len, size - *len, "  %7.2f  %6.2f  %6.2f  %6s", t * 1e6, alg,
                              alg * nn_drv_bus_factor(r->op, r->nranks), "N/A");
  if (w > 0 && (size_t)w < size - *len) *len += (size_t)w;
}

void nn_drv_print_row(FILE *f, const struct nn_drv_run *r, size_t bytes, size_t count,
                      const double t[2], const long wrong[2]) {
  /* One write per row: the other ranks' threads log through the same stdout, and a line
   * of theirs must not land in the middle of a row. */
  char row[256];
  size_t len = 0;
  int w =
    snprintf(row, sizeof row, "%12zu  %12zu  %8s  %6s  %6d", bytes, count, "float", "sum", -1);
  if (w > 0 && (size_t)w < sizeof row) len = (size_t)w;
  measure(row, sizeof row - 1, &len, r, bytes, t[0], wrong[0]);
  measure(row, sizeof row - 1, &len, r, bytes, t[1], wrong[1]);
  row[len++] = '\n';
  fwrite(row, 1, len, f);
  fflush(f);
}

void nn_drv_print_footer(FILE *f, const struct nn_drv_run *r, long wrong, double avg_busbw) {
  fprintf(f, "# Out of bounds values : %ld %s\n# Avg bus bandwidth    : %g\n#\n", wrong,
          wrong ? "FAILED" : "OK", avg_busbw);
  fprintf(f, "# Collective test concluded: nn_coll_driver_%s\n", r->op);
  fflush(f);
}
