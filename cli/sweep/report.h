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

/* Writes RUNDIR/report.md (and, when `plots`, plot-COLL.{dat,gp} drawn with
 * gnuplot into PNG and SVG when gnuplot is installed), and copies the report
 * to `out` (may be NULL). Problems with single runs go to `log`. Returns 0, or
 * -1 with a message in err. */
int nn_report_write(const char *rundir, int plots, FILE *out, FILE *log, char *err, size_t errsz);

#endif
