/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_check.c - `nccl-numa check`: see check.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check/check.h"
#include "cli/check/compare.h"
#include "cli/commands.h"
#include "cli/common/options.h"

static void usage(FILE *out) {
  fprintf(out,
    "usage: nccl-numa check [--config FILE] [--sysfs-root DIR] [--cpuinfo FILE] [--no-cuda]\n"
    "                       [--nccl-version X.Y.Z | --nccl-lib PATH] [--visible-devices LIST]\n"
    "       nccl-numa check --compare FILE...\n"
    "\n"
    "Diagnoses this machine (bare metal or a guest): NVIDIA GPUs with bus id and sysfs numa_node,\n"
    "NUMA nodes, NCCL_TOPO_FILE and " NN_CHECK_VIRTUAL_TOPOLOGY ", whether the mapping\n"
    "matches the machine, NCCL's socket-link hazard, GPU peer access (with a CUDA driver), next steps.\n"
    "  --config FILE    the mapping (default: NCCL_NUMA_CONFIG, else /etc/nccl-numa.conf if present)\n"
    "  --sysfs-root DIR read DIR/sys, DIR/proc/cpuinfo, DIR/etc and DIR/var instead of the real ones\n"
    "  --cpuinfo FILE   CPU identity NCCL would see (default /proc/cpuinfo under the root)\n"
    "  --no-cuda        do not ask the CUDA driver (peer access then \"not checked\")\n"
    "  --nccl-version X.Y.Z  predict NCCL's search for this release\n"
    "  --nccl-lib PATH  ... for the release of this libnccl.so.2 (default: the Python environment's\n"
    "                   nvidia-nccl wheel, else the one on the library path)\n"
    "  --visible-devices LIST  the job's CUDA_VISIBLE_DEVICES (default: this shell's); GPUs all on one\n"
    "                   NUMA node are judged alone, as the plugin does\n"
    "  --compare FILE...  the ranks of one job on several hosts: reads their NCCL_NUMA_LOG_FILE\n"
    "                   records or NCCL logs (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,TUNING) and\n"
    "                   says per communicator whether every rank used the same config content\n"
    "                   and decision table; a difference names the hosts and ranks (exit 1)\n"
    "Ends with a `summary:` paragraph: what nccl-numa changes for the job and release.\n"
    "Exit: 0 nothing wrong, 1 something is, 2 usage.\n");
}

int nn_cmd_check(int argc, char **argv) {
  static const struct option longs[] = {
    {"config", required_argument, 0, 'c'}, {"sysfs-root", required_argument, 0, 'r'},
    {"cpuinfo", required_argument, 0, 'i'}, {"no-cuda", no_argument, 0, 'n'},
    {"nccl-version", required_argument, 0, 'V'}, {"nccl-lib", required_argument, 0, 'L'},
    {"compare", no_argument, 0, 'C'}, {"visible-devices", required_argument, 0, 'D'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  struct nn_check_opts o = {.root = "/"};
  int c, compare = 0;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    switch (c) {
      case 'c': o.config = optarg; break;
      case 'r': o.root = optarg; break;
      case 'i': o.cpuinfo = optarg; break;
      case 'n': o.no_cuda = 1; break;
      case 'V': o.nccl_version = optarg; break;
      case 'L': o.nccl_lib = optarg; break;
      case 'C': compare = 1; break;
      case 'D': o.visible = optarg; break;
      case 'h': usage(stdout); return NN_EXIT_OK;
      default:
        nn_options_error("check", c, argc, argv);
        usage(stderr);
        return NN_EXIT_USAGE;
    }
  }
  if (compare) {
    if (optind >= argc) {
      fprintf(stderr, "nccl-numa check: --compare needs the files the ranks wrote\n");
      usage(stderr);
      return NN_EXIT_USAGE;
    }
    return nn_compare_files(argc - optind, argv + optind, stdout, stderr) ? NN_EXIT_INVALID : NN_EXIT_OK;
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa check: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  const char *topo = getenv("NCCL_TOPO_FILE");
  o.topo_env = topo && *topo ? topo : NULL;
  int problems = nn_check_run(&o, stdout);
  return problems == 0 ? NN_EXIT_OK : NN_EXIT_INVALID;
}
