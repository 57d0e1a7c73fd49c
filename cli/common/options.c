/* SPDX-License-Identifier: BSD-3-Clause */
/* options.c - naming the option getopt_long refused (options.h). */
#include "cli/common/options.h"

#include <getopt.h>
#include <stdio.h>

void nn_cli_option_problem(int c, int argc, char *const argv[], char *buf, size_t size) {
  /* optopt is the character of a refused short option; 0 (or a long option's value) when
   * getopt_long refused a long one, which argv[optind - 1] then holds as written. */
  char shorty[3] = {'-', (char)optopt, 0};
  const char *what = optopt > 0 && optopt < 0x80 ? shorty : optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "?";
  if (c == ':') snprintf(buf, size, "'%s' needs a value", what);
  else snprintf(buf, size, "unknown option '%s'", what);
}

void nn_cli_option_error(const char *cmd, int c, int argc, char *const argv[]) {
  char msg[512];
  nn_cli_option_problem(c, argc, argv, msg, sizeof msg);
  fprintf(stderr, "nccl-numa %s: %s\n", cmd, msg);
}
