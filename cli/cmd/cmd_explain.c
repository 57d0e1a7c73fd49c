/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_explain.c - `nccl-numa explain`: its options, one call to the explain model
 * (cli/predict/explain.h), and the text or JSON rendering of what it computed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common/cliconfig.h"
#include "cli/common/options.h"
#include "cli/predict/explain.h"
#include "cli/sweep/rundir.h"
#include "cpuinfo.h"
#include "nccl_model.h"
#include "numparse.h"

static void usage(FILE *out) {
  fprintf(
    out,
    "usage: nccl-numa explain [--config FILE] [--ranks N] [--nodes N] [--coll NAME]\n"
    "                         [--nccl-version X.Y.Z | --nccl-lib PATH] [--cpuinfo FILE]\n"
    "                         [--visible-devices LIST] [--sysfs-root DIR]\n"
    "                         [--compare-release X.Y.Z [--emit-rules]]\n"
    "                         [--sizes LIST] [--json]\n\n"
    "Shows, for one communicator shape, which rule decides each collective at each size\n"
    "(powers of two from 1 B to 4 GiB, merged where nothing changes), as the plugin would\n"
    "on NCCL's usual PCIe-only table (ring with ll and simple, and tree with ll and simple\n"
    "for allreduce; ll128, CollNet, NVLS and PAT disabled), and the topology verdict.\n\n"
    "  --config FILE   the mapping file (format 1); default: NCCL_NUMA_CONFIG, else\n"
    "                  /etc/nccl-numa.conf. NCCL_TUNER_CONFIG_FILE's rules apply as in the plugin\n"
    "  --ranks N       ranks in the communicator (default: the count of GPUs the job sees, else\n"
    "                  the mapping's)\n"
    "  --visible-devices LIST  the job's GPUs as CUDA_VISIBLE_DEVICES lists them (default:\n"
    "                  CUDA_VISIBLE_DEVICES, else every GPU of the mapping); GPUs all on one NUMA\n"
    "                  node are judged alone, as the plugin does: a TP=4 server on one socket\n"
    "                  is --visible-devices with its four GPUs\n"
    "  --sysfs-root DIR  the machine the job runs on: its GPUs' NUMA nodes and PCIe links, as\n"
    "                  NCCL's own detection reads them, under DIR (default /: this machine). "
    "Where\n"
    "                  it lacks the mapping's GPUs, NCCL's own view is modelled with no NUMA node\n"
    "                  per GPU and on the mapping's `cpu` line (unless --cpuinfo names a CPU)\n"
    "  --nodes N       nodes in the communicator (default 1)\n"
    "  --coll NAME     only this collective: " NN_COLL_NAMES "\n"
    "  --nccl-version X.Y.Z  the NCCL release to predict for (its search and protocols)\n"
    "  --nccl-lib PATH the release of this libnccl.so.2 (default: the Python environment's\n"
    "                  nvidia-nccl wheel, else the one on the library path)\n"
    "  --cpuinfo FILE  the CPU kind NCCL detects itself, from FILE (default: NCCL_NUMA_CPUINFO, "
    "else\n"
    "                  /proc/cpuinfo): its own view is predicted on it; a `cpu` line in the "
    "mapping\n"
    "                  sets only the CPU of the served file\n"
    "  --compare-release X.Y.Z  also the sizes where NCCL's own choice (algorithm, protocol or\n"
    "                  graphs) on release X.Y.Z differs from that on the release above\n"
    "  --emit-rules    with --compare-release: print only mapping rules that keep X.Y.Z's choice\n"
    "                  on the release above (commented out where a tuner cannot express it)\n"
    "  --sizes LIST    also one row per size (e.g. 8K,64K,1M,64M; K, M, G are binary): NCCL's\n"
    "                  choice and modelled time, the plugin's and its time, the deciding rule\n"
    "  --json          one JSON document on stdout instead of the text (keys: docs/user/cli.md)\n");
}

static int parse_count(const char *s, size_t *out) {
  int v;
  if (nn_int_parse(s, 1, 1000000, &v)) return -1;
  *out = (size_t)v;
  return 0;
}

int nn_cmd_explain(int argc, char **argv) {
  static const struct option opts[] = {{"config", required_argument, 0, 'c'},
                                       {"ranks", required_argument, 0, 'r'},
                                       {"nodes", required_argument, 0, 'n'},
                                       {"coll", required_argument, 0, 'l'},
                                       {"nccl-version", required_argument, 0, 'V'},
                                       {"nccl-lib", required_argument, 0, 'L'},
                                       {"cpuinfo", required_argument, 0, 'i'},
                                       {"visible-devices", required_argument, 0, 'D'},
                                       {"compare-release", required_argument, 0, 'R'},
                                       {"emit-rules", no_argument, 0, 'E'},
                                       {"sizes", required_argument, 0, 'S'},
                                       {"json", no_argument, 0, 'J'},
                                       {"sysfs-root", required_argument, 0, 's'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  const char *path = NULL, *version = NULL, *lib = NULL, *visible = NULL, *sysfs_root = NULL;
  size_t ranks = 0, nodes = 1;
  int only = -1, c, compare = 0, emit = 0, json = 0, n_sizes = 0;
  uint64_t sizes[NN_EXPLAIN_MAX_SIZES];
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":c:r:n:l:h", opts, NULL)) != -1) {
    switch (c) {
    case 'c':
      path = optarg;
      break;
    case 'V':
      version = optarg;
      break;
    case 'L':
      lib = optarg;
      break;
    case 'i':
      nn_cpuinfo_set_default(optarg);
      break;
    case 'D':
      visible = optarg;
      break;
    case 's':
      sysfs_root = optarg;
      break;
    case 'R': {
      char perr[160];
      if ((compare = nn_ncclver_parse_arg("--compare-release", optarg, perr, sizeof perr)) <= 0) {
        fprintf(stderr, "nccl-numa explain: %s\n", perr);
        return NN_EXIT_USAGE;
      }
      break;
    }
    case 'E':
      emit = 1;
      break;
    case 'J':
      json = 1;
      break;
    case 'S':
      if ((n_sizes = nn_rundir_size_list(optarg, 1, (uint64_t)1 << NN_EXPLAIN_MAX_LOG2, sizes,
                                         NN_EXPLAIN_MAX_SIZES)) < 0) {
        fprintf(stderr,
                "nccl-numa explain: --sizes '%s': expected up to %d sizes of 1 B to 4G, e.g. "
                "8K,64K,1M,64M\n",
                optarg, NN_EXPLAIN_MAX_SIZES);
        return NN_EXIT_USAGE;
      }
      break;
    case 'r':
      if (parse_count(optarg, &ranks)) {
        fprintf(stderr, "nccl-numa explain: bad --ranks '%s' (expected 1-1000000)\n", optarg);
        return NN_EXIT_USAGE;
      }
      break;
    case 'n':
      if (parse_count(optarg, &nodes)) {
        fprintf(stderr, "nccl-numa explain: bad --nodes '%s' (expected 1-1000000)\n", optarg);
        return NN_EXIT_USAGE;
      }
      break;
    case 'l':
      only = nn_coll_from_name(optarg);
      if (only < 0) {
        fprintf(stderr, "nccl-numa explain: unknown collective '%s' (expected " NN_COLL_NAMES ")\n",
                optarg);
        return NN_EXIT_USAGE;
      }
      break;
    case 'h':
      usage(stdout);
      return NN_EXIT_OK;
    default:
      nn_options_error("explain", c, argc, argv);
      usage(stderr);
      return NN_EXIT_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr,
            "nccl-numa explain: unexpected argument '%s' (give the mapping with --config FILE)\n",
            argv[optind]);
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  if (emit && !compare) {
    fprintf(stderr, "nccl-numa explain: --emit-rules needs --compare-release X.Y.Z\n");
    return NN_EXIT_USAGE;
  }
  if (json && emit) {
    fprintf(stderr, "nccl-numa explain: --json and --emit-rules: choose one (the rules are text "
                    "for a mapping)\n");
    return NN_EXIT_USAGE;
  }
  struct nn_ncclver ver;
  char err[768];
  if (nn_ncclver_resolve(version, lib, &ver, err, sizeof err)) {
    fprintf(stderr, "nccl-numa explain: %s\n", err);
    return NN_EXIT_USAGE;
  }
  struct nn_cli_config cc;
  if (nn_cli_config_load("explain", path, NULL, 0, &cc) != NN_CFG_OK) return NN_EXIT_INVALID;
  static struct nn_explain e; /* large; the CLI is single-threaded */
  struct nn_explain_in in = {.cc = &cc,
                             .visible = visible,
                             .sysfs_root = sysfs_root,
                             .ranks = ranks,
                             .nodes = nodes,
                             .only = only,
                             .ver = &ver,
                             .compare = compare,
                             .sizes = sizes,
                             .n_sizes = n_sizes};
  int rc = nn_explain_build(&in, &e, err, sizeof err);
  if (rc) fprintf(stderr, "nccl-numa explain: %s%s\n", compare ? "--compare-release: " : "", err);
  else if (emit) nn_release_diff_rules(stdout, &e.diff, only);
  else if (json) nn_explain_json(stdout, &e);
  else nn_explain_text(stdout, &e);
  nn_explain_free(&e);
  nn_cli_config_free(&cc);
  return rc ? NN_EXIT_INVALID : NN_EXIT_OK;
}
