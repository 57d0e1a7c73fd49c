/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_report.c - `nccl-numa report RUNDIR [--no-plot]`: the report of an ab or calibrate
 * run directory (the work is report.c's). */
#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/common/options.h"
#include "cli/sweep/report.h"

static void usage(FILE *f) {
  fprintf(f, "usage: nccl-numa report RUNDIR [--no-plot]\n\n"
             "Writes RUNDIR/report.md (printed too) and plot-COLL.{png,svg} for a run directory\n"
             "made by `nccl-numa ab` or `nccl-numa calibrate`.\n");
}

int nn_cmd_report(int argc, char **argv) {
  static const struct option opts[] = {
    {"no-plot", no_argument, 0, 'p'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  int plots = 1, c;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    if (c == 'h') {
      usage(stdout);
      return NN_EXIT_OK;
    }
    if (c != 'p') {
      nn_options_error("report", c, argc, argv);
      usage(stderr);
      return NN_EXIT_USAGE;
    }
    plots = 0;
  }
  if (argc - optind != 1) {
    if (argc - optind > 1)
      fprintf(stderr, "nccl-numa report: one RUNDIR only ('%s' and '%s' given)\n", argv[optind],
              argv[optind + 1]);
    else fprintf(stderr, "nccl-numa report: missing RUNDIR\n");
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  const char *dir = argv[optind];
  char err[512];
  if (nn_report_write(dir, plots, stdout, stderr, err, sizeof err)) {
    fprintf(stderr, "nccl-numa report: %s\n", err);
    return NN_EXIT_INVALID;
  }
  return NN_EXIT_OK;
}
