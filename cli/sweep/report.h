/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h - `nccl-numa report RUNDIR`: the markdown report and the plots of a
 * measurement run (also written at the end of `nccl-numa ab`).
 *
 * Per collective and size: the median out-of-place time of each arm over its
 * repeats, the ratio baseline/arm, each arm's spread (max - min over repeats),
 * and a verdict. The baseline is the arm named "stock" (else the first arm).
 * A size where any run of an arm failed (#wrong > 0, a non-zero exit, an
 * unreadable output) shows FAILED for that arm and never gets a verdict.
 */
#ifndef NCCL_NUMA_CLI_REPORT_H
#define NCCL_NUMA_CLI_REPORT_H

#include <stdio.h>

#include "cli/sweep/rundir.h"

enum nn_verdict { NN_VERDICT_FASTER, NN_VERDICT_SLOWER, NN_VERDICT_NOISE, NN_VERDICT_FAILED,
                  NN_VERDICT_UNKNOWN };

/* Compares an arm's point with the baseline's: faster (slower) when the arm's
 * median is below (above) the baseline's by more than the larger of the two
 * spreads; within noise otherwise; unknown with fewer than 2 good values on
 * either side (no spread measured) or a missing point; failed when either
 * point failed. */
int nn_report_verdict(const struct nn_point *base, const struct nn_point *arm);
/* "faster", "slower", "within noise", "FAILED", "n/a". */
const char *nn_verdict_name(int verdict);

/* Writes RUNDIR/report.md (and, when `plots`, plot-COLL.{dat,gp} drawn with
 * gnuplot into PNG and SVG when gnuplot is installed), and copies the report
 * to `out` (may be NULL). Problems with single runs go to `log`. Returns 0, or
 * -1 with a message in err. */
int nn_report_write(const char *rundir, int plots, FILE *out, FILE *log, char *err, size_t errsz);

/* The command: nccl-numa report RUNDIR [--no-plot]. */
int nn_cmd_report(int argc, char **argv);

#endif
