/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - the nccl-numa command: dispatches to one subcommand (the table in commands.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common/options.h"
#include "cpuinfo.h"
#include "nn_version.h"

static void usage(FILE *out) {
  fprintf(out, "usage: nccl-numa <command> [options]   (nccl-numa <command> --help)\n"
               "       nccl-numa --version\n\ncommands:\n");
  for (int i = 0; i < nn_n_commands; i++)
    fprintf(out, "  %-14s %s\n", nn_commands[i].name, nn_commands[i].summary);
}

/* GNU-style version text (first line "nccl-numa [SUB] VERSION"), which help2man reads. */
static int version(const char *sub) {
  printf("nccl-numa%s%s %s\n", sub ? " " : "", sub ? sub : "", NN_VERSION);
  printf("NCCL tuner and env plugin: GPU -> NUMA mapping, topology and algorithm rules.\n");
  return NN_EXIT_OK;
}

/* The options before the subcommand: --help, -h, --version. Returns -1 when none ended the
 * command (optind is then the subcommand's index), else the exit code. */
static int top_options(int argc, char **argv) {
  static const struct option top[] = {
    {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
  nn_options_begin();
  int c = getopt_long(argc, argv, "+h", top, NULL); /* "+": stop at the subcommand */
  if (c == 'h') {
    usage(stdout);
    return NN_EXIT_OK;
  }
  if (c == 'V') return version(NULL);
  if (c != -1) {
    fprintf(stderr, "nccl-numa: unknown command '%s'\n", argv[optind - 1]);
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  int rc = top_options(argc, argv);
  if (rc >= 0) return rc;
  if (optind >= argc) {
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  const char *name = argv[optind];
  if (!strcmp(name, "help")) {
    usage(stdout);
    return NN_EXIT_OK;
  }
  /* Predictions of NCCL's own view depend on the CPU kind: tests and what-if runs name it. */
  const char *cpuinfo = getenv("NCCL_NUMA_CPUINFO");
  if (cpuinfo && *cpuinfo) nn_cpuinfo_set_default(cpuinfo);
  const struct nn_command *cmd = nn_command_find(name);
  if (!cmd) {
    fprintf(stderr, "nccl-numa: unknown command '%s'\n", name);
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  /* `nccl-numa SUB --version` alone: help2man makes each subcommand's man page from it */
  int sub = optind;
  if (argc - sub == 2 && !strcmp(argv[sub + 1], "--version")) return version(cmd->name);
  return cmd->run(argc - sub, argv + sub); /* its own parser starts a fresh scan */
}
