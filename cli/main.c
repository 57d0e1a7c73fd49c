/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - the nccl-numa command: dispatches to one subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cpuinfo.h"
#include "nn_version.h"

struct nn_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};

static const struct nn_command commands[] = {
  {"explain", nn_cmd_explain, "show the decision for each collective and size"},
  {"topo", nn_cmd_topo, "write (or --validate) an NCCL topology XML"},
  {"check-config", nn_cmd_check_config, "validate a mapping file"},
  {"discover", nn_cmd_discover, "print the GPU -> NUMA mapping (host, Proxmox host, or --guest)"},
  {"check", nn_cmd_check, "diagnose this machine: GPUs, NUMA, topology files, mapping, hazards"},
  {"ab", nn_cmd_ab, "A/B: nccl-tests with stock NCCL vs nccl-numa arms, alternated, then report"},
  {"report", nn_cmd_report, "markdown report and plots of an ab/calibrate run directory"},
  {"calibrate", nn_cmd_calibrate, "forced algo x proto sweeps (or --from RUNDIR) -> rule lines"},
  {"exec", nn_cmd_exec, "run a command (e.g. an SGLang server) with nccl-numa switched on"},
  {"env", nn_cmd_env, "print the variables that switch nccl-numa on, as export lines"},
  {"proxmox-numa", nn_cmd_proxmox_numa, "Proxmox host: rewrite a VM config so the guest sees each GPU on its NUMA node"},
  {"p2p", nn_cmd_p2p, "test GPU peer-to-peer as a job uses it: every pair, across processes, all at once"},
};

static void usage(FILE *out) {
  fprintf(out, "usage: nccl-numa <command> [options]   (nccl-numa <command> --help)\n"
              "       nccl-numa --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
}

/* GNU-style version text (first line "nccl-numa [SUB] VERSION"), which help2man reads. */
static int version(const char *sub) {
  printf("nccl-numa%s%s %s\n", sub ? " " : "", sub ? sub : "", NN_VERSION);
  printf("NCCL tuner and env plugin: GPU -> NUMA mapping, topology and algorithm rules.\n");
  return NN_EXIT_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return NN_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version")) return version(NULL);
  /* Predictions of NCCL's own view depend on the CPU kind: tests and what-if runs name it. */
  const char *cpuinfo = getenv("NCCL_NUMA_CPUINFO");
  if (cpuinfo && *cpuinfo) nn_cpuinfo_set_default(cpuinfo);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(argv[1], commands[i].name)) continue;
    /* `nccl-numa SUB --version` too: help2man makes each subcommand's man page from it */
    if (argc == 3 && !strcmp(argv[2], "--version")) return version(commands[i].name);
    return commands[i].run(argc - 1, argv + 1);
  }
  fprintf(stderr, "nccl-numa: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return NN_EXIT_USAGE;
}
