/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_report.c - `nccl-numa report RUNDIR [--no-plot]`: the report of an ab or calibrate
 * run directory (the work is report.c's). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/sweep/report.h"

static void usage(FILE *f) {
  fprintf(f, "usage: nccl-numa report RUNDIR [--no-plot]\n\n"
          "Writes RUNDIR/report.md (printed too) and plot-COLL.{png,svg} for a run directory\n"
          "made by `nccl-numa ab` or `nccl-numa calibrate`.\n");
}

int nn_cmd_report(int argc, char **argv) {
  const char *dir = NULL;
  int plots = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return NN_EXIT_OK;
    } else if (!strcmp(argv[i], "--no-plot")) {
      plots = 0;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "nccl-numa report: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return NN_EXIT_USAGE;
    } else if (dir) {
      fprintf(stderr, "nccl-numa report: one RUNDIR only ('%s' and '%s' given)\n", dir, argv[i]);
      usage(stderr);
      return NN_EXIT_USAGE;
    } else {
      dir = argv[i];
    }
  }
  if (!dir) {
    fprintf(stderr, "nccl-numa report: missing RUNDIR\n");
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  char err[512];
  if (nn_report_write(dir, plots, stdout, stderr, err, sizeof err)) {
    fprintf(stderr, "nccl-numa report: %s\n", err);
    return NN_EXIT_INVALID;
  }
  return NN_EXIT_OK;
}
