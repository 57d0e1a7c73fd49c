/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_p2p.c - `nccl-numa p2p`: every ordered pair of GPUs tested for peer-to-peer, each in a
 * child process under a watchdog (the work is cli/p2p's). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/common/cliconfig.h"
#include "cli/common/options.h"
#include "cli/p2p/p2pprint.h"
#include "cli/p2p/p2preport.h"
#include "cli/p2p/p2prun.h"
#include "cli/p2p/p2ptest.h"
#include "numparse.h"

#define EXIT_BROKEN 1
#define EXIT_CANNOT_TEST 3

static void usage(FILE *f) {
  fprintf(f,
          "usage: nccl-numa p2p [--gpus LIST] [--timeout SEC] [--mapping FILE] [--json] [--self]\n\n"
          "Tests GPU peer-to-peer where the GPUs are (guest or bare metal), before NCCL may use it.\n"
          "For every ordered pair a->b: what the CUDA driver says (cuDeviceCanAccessPeer, P2P\n"
          "attributes) and NVML (P2P read/write status, as NCCL checks it); then a's kernel writes a\n"
          "pattern into b's memory that b checks, a reads b's memory, a copy-engine peer copy is\n"
          "checked, and latency (a flag ping-pong) and bandwidth are measured. Each pair runs in a\n"
          "process of its own, killed with all it started after --timeout seconds (default 30): a\n"
          "hang is a broken pair. Prints a row per pair, the verdict, and the line for the mapping:\n"
          "`p2p ok level=PHB|SYS`, `p2p broken` or `p2p unsupported`.\n\n"
          "  --gpus LIST     CUDA device ordinals to test, e.g. 0,1 or 0-3 (default: all)\n"
          "  --mapping FILE  the mapping whose NUMA nodes give each pair's NCCL path (one node: PHB,\n"
          "                  across nodes: SYS); default as the plugin finds it (--config, then\n"
          "                  NCCL_NUMA_CONFIG, /etc/nccl-numa.conf); none: every pair PHB\n"
          "  --self          each GPU with itself (one GPU: the kernels' load, launch and timing)\n"
          "  --json          one JSON object: gpus, pairs, verdict, mapping_line\n\n"
          "The driver is libcuda.so.1 (or NCCL_NUMA_CUDA_LIB), NVML libnvidia-ml.so.1 (or\n"
          "NCCL_NUMA_NVML_LIB), loaded at run time. Exit: 0 nothing broken, 1 a pair is broken,\n"
          "2 usage, 3 cannot test (no driver, fewer than 2 GPUs).\n");
}

struct options {
  const char *gpus, *mapping;
  double timeout;
  int json, self;
};

static int parse_timeout(const char *s, double *out) {
  return nn_double_parse(s, out) || !(*out >= 1 && *out <= 3600) ? -1 : 0;
}

static int parse_options(int argc, char **argv, struct options *o) {
  static const struct option opts[] = {
    {"gpus", required_argument, 0, 'g'}, {"timeout", required_argument, 0, 't'},
    {"mapping", required_argument, 0, 'm'}, {"config", required_argument, 0, 'm'},
    {"json", no_argument, 0, 'j'}, {"self", no_argument, 0, 's'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  int c;
  o->timeout = 30;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (c) {
    case 'h': usage(stdout); return 1;
    case 'g': o->gpus = optarg; break;
    case 'm': o->mapping = optarg; break;
    case 'j': o->json = 1; break;
    case 's': o->self = 1; break;
    case 't':
      if (parse_timeout(optarg, &o->timeout)) {
        fprintf(stderr, "nccl-numa p2p: --timeout '%s': seconds from 1 to 3600\n", optarg);
        return -1;
      }
      break;
    default: nn_options_error("p2p", c, argc, argv); return -1;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa p2p: unexpected argument '%s'\n", argv[optind]);
    return -1;
  }
  return 0;
}

/* --gpus: "0,1" or "0-3" or a mix, each below n, no repeats. Returns the count, -1 when bad. */
static int parse_gpus(const char *s, int n, int *out) {
  int count = 0, seen[NN_P2P_MAX_GPUS] = {0};
  char buf[512];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int lo, hi;
    char *dash = strchr(tok, '-');
    if (dash) *dash = '\0';
    if (nn_int_parse(tok, 0, NN_P2P_MAX_GPUS - 1, &lo) || nn_int_parse(dash ? dash + 1 : tok, 0, NN_P2P_MAX_GPUS - 1, &hi) || hi < lo)
      return -1;
    for (int g = lo; g <= hi; g++) {
      if (g >= n) {
        fprintf(stderr, "nccl-numa p2p: --gpus %s: GPU %d does not exist (%d GPU%s)\n", s, g, n, n == 1 ? "" : "s");
        return -2;
      }
      if (!seen[g]) out[count++] = g;
      seen[g] = 1;
    }
  }
  return count;
}

static void probe_work(void *arg, FILE *out) {
  (void)arg;
  nn_p2ptest_probe(out);
}

static void pair_work(void *arg, FILE *out) {
  const int *ab = arg;
  nn_p2ptest_pair(ab[0], ab[1], out);
}

/* Runs the probe; returns 0 or the exit code. */
static int probe(struct nn_p2p_report *r, const struct options *o) {
  struct nn_p2prun run;
  char why[1400];
  if (nn_p2prun_child(probe_work, NULL, o->timeout, &run, why, sizeof why)) {
    fprintf(stderr, "nccl-numa p2p: cannot test: %s\n", why);
    return EXIT_CANNOT_TEST;
  }
  int rc = nn_p2preport_probe(r, &run, o->timeout, why, sizeof why);
  nn_p2prun_free(&run);
  if (rc) {
    fprintf(stderr, "nccl-numa p2p: cannot test: %s\n", why);
    return EXIT_CANNOT_TEST;
  }
  return 0;
}

static int path_of(const struct nn_p2p_report *r, int a, int b) {
  if (!r->mapping) return NN_P2P_LEVEL_PHB;
  int na = r->gpus[a].numa, nb = r->gpus[b].numa;
  return na >= 0 && na == nb ? NN_P2P_LEVEL_PHB : NN_P2P_LEVEL_SYS;
}

/* Every ordered pair of the selected GPUs (each with itself for --self), one child each. */
static int test_pairs(struct nn_p2p_report *r, const int *sel, int n_sel, const struct options *o) {
  r->pairs = calloc((size_t)n_sel * (size_t)n_sel, sizeof *r->pairs);
  if (!r->pairs) return -1;
  for (int i = 0; i < n_sel; i++)
    for (int k = 0; k < n_sel; k++) {
      if ((i == k) != (o->self != 0)) continue;
      struct nn_p2p_pair *p = &r->pairs[r->n_pairs++];
      int ab[2] = {sel[i], sel[k]};
      struct nn_p2prun run;
      char why[256];
      if (!o->json) fprintf(stderr, "nccl-numa p2p: testing %d->%d\n", ab[0], ab[1]);
      if (nn_p2prun_child(pair_work, ab, o->timeout, &run, why, sizeof why)) {
        fprintf(stderr, "nccl-numa p2p: %s\n", why);
        return -1;
      }
      nn_p2preport_pair(p, &run, o->timeout);
      nn_p2prun_free(&run);
      p->a = ab[0];
      p->b = ab[1];
      p->path = path_of(r, ab[0], ab[1]);
      p->nvml_read = r->nvml[ab[0]][ab[1]][0];
      p->nvml_write = r->nvml[ab[0]][ab[1]][1];
    }
  return 0;
}

static int load_mapping(struct nn_p2p_report *r, const struct options *o, struct nn_cli_config *cc) {
  int st = nn_cli_config_load("p2p", o->mapping, NULL, 1, cc);
  if (st == NN_CFG_INVALID) return -1;
  if (st == NN_CFG_OK) {
    r->mapping = cc->src.path;
  } else if (o->mapping) {
    return -1;
  }
  return 0;
}

static int run(struct nn_p2p_report *r, const struct options *o, const struct nn_config *mapping) {
  int rc = probe(r, o);
  if (rc) return rc;
  if (mapping) nn_p2preport_numa(r, mapping);
  int need = o->self ? 1 : 2;
  if (r->n_gpus < need) {
    fprintf(stderr, "nccl-numa p2p: cannot test: %s (the driver lists %d GPU%s)\n",
            o->self ? "no GPU" : "peer-to-peer needs at least 2 GPUs; with one, --self tests the kernels on it",
            r->n_gpus, r->n_gpus == 1 ? "" : "s");
    return EXIT_CANNOT_TEST;
  }
  int sel[NN_P2P_MAX_GPUS], n_sel = r->n_gpus;
  for (int i = 0; i < n_sel; i++) sel[i] = i;
  if (o->gpus) {
    n_sel = parse_gpus(o->gpus, r->n_gpus, sel);
    if (n_sel == -1) fprintf(stderr, "nccl-numa p2p: --gpus '%s': a list of GPU ordinals like 0,1 or 0-3\n", o->gpus);
    if (n_sel < 0) return NN_EXIT_USAGE;
    if (n_sel < need) {
      fprintf(stderr, "nccl-numa p2p: --gpus %s: at least %d GPU%s to test\n", o->gpus, need, need == 1 ? "" : "s");
      return NN_EXIT_USAGE;
    }
  }
  if (test_pairs(r, sel, n_sel, o)) return EXIT_CANNOT_TEST;
  char date[16];
  time_t now = time(NULL);
  struct tm tm;
  strftime(date, sizeof date, "%Y-%m-%d", gmtime_r(&now, &tm));
  nn_p2preport_decide(r, date);
  if (o->json) nn_p2pprint_json(stdout, r, n_sel < r->n_gpus);
  else nn_p2pprint_text(stdout, r, n_sel < r->n_gpus);
  int bad = 0;
  for (int i = 0; i < r->n_pairs; i++) bad += r->pairs[i].state == NN_P2P_PAIR_BROKEN;
  return bad ? EXIT_BROKEN : NN_EXIT_OK;
}

int nn_cmd_p2p(int argc, char **argv) {
  struct options o = {0};
  int rc = parse_options(argc, argv, &o);
  if (rc) {
    if (rc < 0) usage(stderr);
    return rc < 0 ? NN_EXIT_USAGE : NN_EXIT_OK;
  }
  struct nn_p2p_report *r = calloc(1, sizeof *r);
  struct nn_cli_config cc;
  memset(&cc, 0, sizeof cc);
  if (!r) {
    fprintf(stderr, "nccl-numa p2p: out of memory\n");
    return EXIT_CANNOT_TEST;
  }
  r->self = o.self;
  if (load_mapping(r, &o, &cc)) rc = NN_EXIT_USAGE;
  else rc = run(r, &o, r->mapping ? cc.cfg : NULL);
  nn_cli_config_free(&cc);
  free(r->pairs);
  free(r);
  return rc;
}
