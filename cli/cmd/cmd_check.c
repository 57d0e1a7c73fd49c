/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_check.c - `nccl-numa check`: see check.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check/check.h"
#include "cli/check/compare.h"
#include "cli/commands.h"
#include "numparse.h"
#include "cli/common/jsonw.h"
#include "cli/common/options.h"
#include "cli/predict/ncclver.h"

static void usage(FILE *out) {
  fprintf(
    out,
    "usage: nccl-numa check [--config FILE] [--sysfs-root DIR] [--cpuinfo FILE] [--no-cuda]\n"
    "                       [--nccl-version X.Y.Z | --nccl-lib PATH] [--visible-devices LIST]\n"
    "                       [--ranks N] [--json]\n"
    "       nccl-numa check --compare FILE...\n"
    "\n"
    "Diagnoses this machine (bare metal or a guest): NVIDIA GPUs with bus id and sysfs numa_node,\n"
    "NUMA nodes, NCCL_TOPO_FILE and " NN_CHECK_VIRTUAL_TOPOLOGY ", whether the mapping\n"
    "matches the machine, NCCL's socket-link hazard, GPU peer access (with a CUDA driver), next "
    "steps.\n"
    "  --config FILE    the mapping (default: NCCL_NUMA_CONFIG, else /etc/nccl-numa.conf if "
    "present)\n"
    "  --sysfs-root DIR read DIR/sys, DIR/proc/cpuinfo, DIR/proc/driver/nvidia/gpus, DIR/etc and "
    "DIR/var\n"
    "                   instead of the real ones\n"
    "  --cpuinfo FILE   CPU identity NCCL would see (default /proc/cpuinfo under the root)\n"
    "  --no-cuda        do not ask the CUDA driver (peer access then \"not checked\")\n"
    "  --nccl-version X.Y.Z  predict NCCL's search for this release\n"
    "  --nccl-lib PATH  ... for the release of this libnccl.so.2 (default: the Python "
    "environment's\n"
    "                   nvidia-nccl wheel, else the one on the library path)\n"
    "  --visible-devices LIST  the job's CUDA_VISIBLE_DEVICES (default: this shell's; unset: the "
    "GPUs\n"
    "                   the NVIDIA driver shows this container); GPUs all on one NUMA node are "
    "judged\n"
    "                   alone, as the plugin does\n"
    "  --ranks N        ranks in the job's communicator, for the summary (default: the visible "
    "GPUs'\n"
    "                   count, else the mapping's)\n"
    "  --json           one JSON document on stdout: the report by section, the problem count and\n"
    "                   the summary (keys: docs/user/cli.md)\n"
    "  --compare FILE...  the ranks of one job on several hosts: reads their NCCL_NUMA_LOG_FILE\n"
    "                   records or NCCL logs (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,TUNING) and\n"
    "                   says per communicator whether every rank used the same config content\n"
    "                   and decision table; a difference names the hosts and ranks (exit 1)\n"
    "Ends with a `summary:` paragraph: what nccl-numa changes for the job and release.\n"
    "Exit: 0 nothing wrong, 1 something is, 2 usage.\n");
}

#define NN_CHECK_JSON_VERSION 1

static void end_section(struct nn_jsonw *w) {
  nn_jsonw_end(w); /* its lines */
  nn_jsonw_end(w); /* the section */
}

/* Where a report line belongs: a section title (column 0, ending in ':'), the summary
 * paragraph (from "summary: " to the end), else a line of the current section. */
static void json_report(struct nn_jsonw *w, char *report) {
  int in_section = 0;
  char *summary = strstr(report, "\nsummary: ");
  if (summary) *summary++ = 0;
  nn_jsonw_array(w, "sections");
  for (char *save = NULL, *l = strtok_r(report, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    size_t n = strlen(l);
    if (l[0] != ' ' && n && l[n - 1] == ':') {
      if (in_section) end_section(w);
      l[n - 1] = 0;
      nn_jsonw_object(w, NULL);
      nn_jsonw_str(w, "title", l);
      nn_jsonw_array(w, "lines");
      in_section = 1;
    } else if (in_section) {
      nn_jsonw_str(w, NULL, l + strspn(l, " "));
    }
  }
  if (in_section) end_section(w);
  nn_jsonw_end(w);
  nn_jsonw_str(w, "summary", summary);
}

/* check --json: the same checks; the report by section, the problem count and the summary
 * paragraph in one document (keys: docs/user/cli.md). */
static int check_json(const struct nn_check_opts *o) {
  char *report = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&report, &len);
  if (!mem) {
    perror("nccl-numa check");
    return NN_EXIT_INVALID;
  }
  int problems = nn_check_run(o, mem);
  fclose(mem);
  struct nn_jsonw w;
  nn_jsonw_begin(&w, stdout);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_int(&w, "version", NN_CHECK_JSON_VERSION);
  nn_jsonw_str(&w, "command", "check");
  nn_jsonw_str(&w, "root", o->root);
  nn_jsonw_int(&w, "problems", problems);
  nn_jsonw_bool(&w, "readable", problems >= 0);
  char empty[1] = "";
  json_report(&w, report ? report : empty);
  nn_jsonw_finish(&w);
  free(report);
  return problems == 0 ? NN_EXIT_OK : NN_EXIT_INVALID;
}

int nn_cmd_check(int argc, char **argv) {
  static const struct option longs[] = {{"config", required_argument, 0, 'c'},
                                        {"sysfs-root", required_argument, 0, 'r'},
                                        {"cpuinfo", required_argument, 0, 'i'},
                                        {"no-cuda", no_argument, 0, 'n'},
                                        {"nccl-version", required_argument, 0, 'V'},
                                        {"nccl-lib", required_argument, 0, 'L'},
                                        {"compare", no_argument, 0, 'C'},
                                        {"visible-devices", required_argument, 0, 'D'},
                                        {"json", no_argument, 0, 'J'},
                                        {"ranks", required_argument, 0, 'R'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  struct nn_check_opts o = {.root = "/"};
  int c, compare = 0, json = 0;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    switch (c) {
    case 'c':
      o.config = optarg;
      break;
    case 'r':
      o.root = optarg;
      break;
    case 'i':
      o.cpuinfo = optarg;
      break;
    case 'n':
      o.no_cuda = 1;
      break;
    case 'V': {
      char err[160];
      if (nn_ncclver_parse_arg("--nccl-version", optarg, err, sizeof err) < 0) {
        fprintf(stderr, "nccl-numa check: %s\n", err);
        return NN_EXIT_USAGE;
      }
      o.nccl_version = optarg;
      break;
    }
    case 'L':
      o.nccl_lib = optarg;
      break;
    case 'C':
      compare = 1;
      break;
    case 'D':
      o.visible = optarg;
      break;
    case 'R':
      if (nn_int_parse(optarg, 1, 1000000, &o.ranks)) {
        fprintf(stderr, "nccl-numa check: bad --ranks '%s' (expected 1-1000000)\n", optarg);
        return NN_EXIT_USAGE;
      }
      break;
    case 'J':
      json = 1;
      break;
    case 'h':
      usage(stdout);
      return NN_EXIT_OK;
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
    return nn_compare_files(argc - optind, argv + optind, stdout, stderr) ? NN_EXIT_INVALID
                                                                          : NN_EXIT_OK;
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa check: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  const char *topo = getenv("NCCL_TOPO_FILE");
  o.topo_env = topo && *topo ? topo : NULL;
  if (json) return check_json(&o);
  int problems = nn_check_run(&o, stdout);
  return problems == 0 ? NN_EXIT_OK : NN_EXIT_INVALID;
}
