/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_p2p.c - `nccl-numa p2p`: every ordered pair of GPUs tested for peer-to-peer in one
 * process and across processes, then all GPUs at once, each piece in a child process under a
 * watchdog (the work is cli/p2p's). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/common/cliconfig.h"
#include "cli/common/monotonic.h"
#include "cli/common/options.h"
#include "cli/common/supervise.h"
#include "cli/p2p/p2pprint.h"
#include "cli/p2p/p2preport.h"
#include "cli/p2p/p2pring.h"
#include "cli/p2p/p2ptest.h"
#include "cli/p2p/p2pupdate.h"
#include "numparse.h"

#define EXIT_BROKEN 1
#define EXIT_CANNOT_TEST 3
#define EXIT_NOT_UPDATED 4
#define RING_SETUP_S 60.0     /* the ring child's allowance beyond its rounds */
#define OUTPUT_CAP (1u << 20) /* a child's lines kept; the rest read and dropped */

static void usage(FILE *f) {
  fprintf(
    f, "usage: nccl-numa p2p [--gpus LIST] [--timeout SEC] [--deadline SEC] [--ring SEC]\n"
       "                     [--mapping FILE|none] [--update FILE] [--json] [--self]\n\n"
       "Tests GPU peer-to-peer where the GPUs are (guest or bare metal), as a job of one process\n"
       "per GPU uses it, before NCCL may. For every ordered pair a->b: what the CUDA driver says\n"
       "(cuDeviceCanAccessPeer, P2P attributes) and NVML (P2P read/write status, as NCCL checks\n"
       "it); in one process, a's kernel writes a pattern into b's memory that b checks, a reads\n"
       "b's memory, a copy-engine peer copy is checked; across processes, b's memory is exported\n"
       "by a process of its own (cuMem, a file descriptor over a Unix socket, as NCCL does; and\n"
       "legacy CUDA IPC) and a writes (4-byte stores, and NCCL LL's 8- and 16-byte stores with\n"
       "flags) and reads it there, checked word by word by b's process; then latency, copy-engine\n"
       "and SM-store bandwidth. Then every GPU, a process each, writes to its ring neighbours in\n"
       "both directions at once for --ring seconds, checked by each receiver. Each piece runs in\n"
       "a child process killed with all it started after --timeout seconds: a hang is broken.\n"
       "Prints a row per pair, the verdict, and the line for the mapping.\n\n"
       "  --gpus LIST       CUDA device ordinals to test, e.g. 0,1 or 0-3 (default: all)\n"
       "  --timeout SEC     each pair's (and the ring's) limit, 1-3600 (default 30)\n"
       "  --deadline SEC    the whole run's limit, 10-86400 (default 1800): pairs it leaves\n"
       "                    untested give no mapping line (exit 3) unless one was broken\n"
       "  --ring SEC        how long all GPUs write at once, 1-600 (default 3)\n"
       "  --mapping FILE    the mapping whose NUMA nodes give each pair's NCCL path (one node: "
       "PHB,\n"
       "  --config FILE     across nodes: SYS) and whose gpu numbers the line's gpus= uses;\n"
       "                    default as the plugin finds it (NCCL_NUMA_CONFIG, "
       "/etc/nccl-numa.conf);\n"
       "                    none: no mapping, every pair PHB, gpus= counts CUDA devices\n"
       "  --update FILE     FILE is the mapping; its p2p line is replaced by the new one (or the\n"
       "                    line added), atomically, every other byte kept\n"
       "  --self            each GPU with itself (one GPU: the kernels' load, launch and timing)\n"
       "  --json            one JSON object: gpus, pairs, ring, verdict, mapping_line\n\n"
       "The driver is libcuda.so.1 (or NCCL_NUMA_CUDA_LIB), NVML libnvidia-ml.so.1 (or\n"
       "NCCL_NUMA_NVML_LIB), loaded at run time. Exit: 0 nothing broken, 1 broken, 2 usage,\n"
       "3 cannot test (no driver, fewer than 2 GPUs, the deadline passed), 4 --update could not\n"
       "write the mapping (it is left as it was).\n");
}

struct options {
  const char *gpus, *mapping, *update;
  double timeout, deadline, ring;
  int json, self;
};

static int parse_seconds(const char *opt, const char *s, double lo, double hi, double *out) {
  if (nn_double_parse(s, out) == 0 && *out >= lo && *out <= hi) return 0;
  fprintf(stderr, "nccl-numa p2p: %s '%s': seconds from %.0f to %.0f\n", opt, s, lo, hi);
  return -1;
}

static int check_options(struct options *o) {
  if (o->update && o->mapping && strcmp(o->update, o->mapping)) {
    fprintf(stderr, "nccl-numa p2p: --update %s is the mapping: --mapping %s names another\n",
            o->update, o->mapping);
    return -1;
  }
  if (o->update && o->self) {
    fprintf(stderr, "nccl-numa p2p: --self gives no mapping line to --update with\n");
    return -1;
  }
  if (o->update) o->mapping = o->update;
  return 0;
}

static int parse_options(int argc, char **argv, struct options *o) {
  static const struct option opts[] = {{"gpus", required_argument, 0, 'g'},
                                       {"timeout", required_argument, 0, 't'},
                                       {"deadline", required_argument, 0, 'd'},
                                       {"ring", required_argument, 0, 'r'},
                                       {"mapping", required_argument, 0, 'm'},
                                       {"config", required_argument, 0, 'm'},
                                       {"update", required_argument, 0, 'u'},
                                       {"json", no_argument, 0, 'j'},
                                       {"self", no_argument, 0, 's'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int c;
  o->timeout = 30;
  o->deadline = 1800;
  o->ring = 3;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (c) {
    case 'h':
      usage(stdout);
      return 1;
    case 'g':
      o->gpus = optarg;
      break;
    case 'm':
      o->mapping = optarg;
      break;
    case 'u':
      o->update = optarg;
      break;
    case 'j':
      o->json = 1;
      break;
    case 's':
      o->self = 1;
      break;
    case 't':
      if (parse_seconds("--timeout", optarg, 1, 3600, &o->timeout)) return -1;
      break;
    case 'd':
      if (parse_seconds("--deadline", optarg, 10, 86400, &o->deadline)) return -1;
      break;
    case 'r':
      if (parse_seconds("--ring", optarg, 1, 600, &o->ring)) return -1;
      break;
    default:
      nn_options_error("p2p", c, argc, argv);
      return -1;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa p2p: unexpected argument '%s'\n", argv[optind]);
    return -1;
  }
  return check_options(o);
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
    if (nn_int_parse(tok, 0, NN_P2P_MAX_GPUS - 1, &lo) ||
        nn_int_parse(dash ? dash + 1 : tok, 0, NN_P2P_MAX_GPUS - 1, &hi) || hi < lo)
      return -1;
    for (int g = lo; g <= hi; g++) {
      if (g >= n) {
        fprintf(stderr, "nccl-numa p2p: --gpus %s: GPU %d does not exist (%d GPU%s)\n", s, g, n,
                n == 1 ? "" : "s");
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

/* work(arg) in a child under the one supervisor (supervise.h): its own process group under
 * a subreaper keeper, killed with all it started at `limit` seconds (or when this process
 * dies), its output through a pipe of its own, capped. 0, or -1 when no child could be
 * started (said on stderr). A stop signal (^C) ends the command once the child is gone. */
static int supervised(void (*work)(void *, FILE *), void *arg, double limit,
                      struct nn_sup_result *res) {
  struct nn_sup_job job = {
    .work = work, .arg = arg, .sink_fd = -1, .cap = OUTPUT_CAP, .deadline_s = limit};
  char err[512];
  if (nn_supervise(&job, res, err, sizeof err)) {
    fprintf(stderr, "nccl-numa p2p: cannot start a test process: %s\n", err);
    return -1;
  }
  if (res->end == NN_SUP_STOPPED) {
    int sig = res->signal;
    nn_supervise_free(res);
    nn_supervise_raise(sig);
  }
  if (res->unkillable)
    fprintf(stderr,
            "nccl-numa p2p: %d process(es) of a test outlived SIGKILL (stuck in the driver); going "
            "on\n",
            res->unkillable);
  return 0;
}

/* Runs the probe; returns 0 or the exit code. */
static int probe(struct nn_p2p_report *r, const struct options *o) {
  struct nn_sup_result run;
  char why[1400];
  if (supervised(probe_work, NULL, o->timeout, &run)) return EXIT_CANNOT_TEST;
  int rc = nn_p2preport_probe(r, &run, o->timeout, why, sizeof why);
  nn_supervise_free(&run);
  if (rc) {
    fprintf(stderr, "nccl-numa p2p: cannot test: %s\n", why);
    return EXIT_CANNOT_TEST;
  }
  return 0;
}

/* The limit for the next child: its own, or what is left of the run's; 0 when nothing is. */
static double child_limit(double own, double end) {
  double left = end - nn_monotonic_s();
  return left < 1 ? 0 : left < own ? left : own;
}

/* Every ordered pair of the selected GPUs (each with itself for --self), one child each,
 * until the run's end. */
static int test_pairs(struct nn_p2p_report *r, const int *sel, int n_sel, const struct options *o,
                      double end) {
  r->pairs = calloc((size_t)n_sel * (size_t)n_sel, sizeof *r->pairs);
  if (!r->pairs) return -1;
  for (int i = 0; i < n_sel; i++)
    for (int k = 0; k < n_sel; k++) {
      if ((i == k) != (o->self != 0)) continue;
      int ab[2] = {sel[i], sel[k]};
      double limit = child_limit(o->timeout, end);
      if (limit <= 0) {
        r->incomplete = 1;
        return 0;
      }
      struct nn_sup_result run;
      if (!o->json) fprintf(stderr, "nccl-numa p2p: testing %d->%d\n", ab[0], ab[1]);
      if (supervised(pair_work, ab, limit, &run)) return -1;
      nn_p2preport_pair(r, &r->pairs[r->n_pairs++], ab[0], ab[1], &run, limit);
      nn_supervise_free(&run);
    }
  return 0;
}

/* One ring of `n` GPUs (r's indices) writing at once. */
static int test_ring(struct nn_p2p_report *r, const int *gpus, int n, const struct options *o,
                     double end) {
  struct nn_p2pring_args args = {.n = n, .seconds = o->ring};
  for (int i = 0; i < n; i++) args.gpus[i] = gpus[i];
  double limit = child_limit(o->ring + RING_SETUP_S, end);
  if (limit <= 0) {
    r->incomplete = 1;
    return 0;
  }
  struct nn_sup_result run;
  if (!o->json)
    fprintf(stderr,
            "nccl-numa p2p: all %d GPUs writing to their ring neighbours at once for %.0f s\n", n,
            o->ring);
  if (supervised(nn_p2pring_work, &args, limit, &run)) return -1;
  nn_p2preport_ring(r, n, o->ring, &run, limit);
  nn_supervise_free(&run);
  return 0;
}

/* Whether every pair among the GPUs `ring` works. */
static int all_work(const struct nn_p2p_report *r, const int *ring, int n) {
  for (int i = 0; i < r->n_pairs; i++) {
    int in = 0;
    for (int k = 0; k < n; k++) in += r->pairs[i].a == ring[k] || r->pairs[i].b == ring[k];
    if (in == 2 && r->pairs[i].state != NN_P2P_PAIR_OK) return 0;
  }
  return 1;
}

/* The rings after the pairs: all selected GPUs when every pair works; else, with a mapping,
 * one per NUMA node whose pairs all work (a clique per socket: the job's pairs within a
 * socket); none when a pair is broken (the verdict is made). */
static int test_rings(struct nn_p2p_report *r, const int *sel, int n_sel, const struct options *o,
                      double end) {
  for (int i = 0; i < r->n_pairs; i++)
    if (r->pairs[i].state == NN_P2P_PAIR_BROKEN) return 0;
  if (o->self || r->incomplete || n_sel < 2) return 0;
  if (all_work(r, sel, n_sel)) return test_ring(r, sel, n_sel, o, end);
  for (int node = 0; r->mapping && node <= NN_MAX_NUMA_ID; node++) {
    int ring[NN_P2P_MAX_GPUS], n = 0;
    for (int i = 0; i < n_sel; i++)
      if (r->gpus[sel[i]].numa == node) ring[n++] = sel[i];
    if (n >= 2 && all_work(r, ring, n) && test_ring(r, ring, n, o, end)) return -1;
  }
  return 0;
}

static int load_mapping(struct nn_p2p_report *r, const struct options *o,
                        struct nn_cli_config *cc) {
  if (o->mapping && !strcmp(o->mapping, "none")) return 0;
  int st = nn_cli_config_load("p2p", o->mapping, NULL, 1, cc);
  if (st == NN_CFG_INVALID) return -1;
  if (st == NN_CFG_OK) r->mapping = cc->src.path;
  else if (o->mapping) return -1;
  return 0;
}

/* The GPUs to test (r's indices) into sel; their count, or minus an exit code. */
static int select_gpus(const struct nn_p2p_report *r, const struct options *o, int *sel) {
  int need = o->self ? 1 : 2, n_sel = r->n_gpus;
  if (r->n_gpus < need) {
    fprintf(stderr, "nccl-numa p2p: cannot test: %s (the driver lists %d GPU%s)\n",
            o->self
              ? "no GPU"
              : "peer-to-peer needs at least 2 GPUs; with one, --self tests the kernels on it",
            r->n_gpus, r->n_gpus == 1 ? "" : "s");
    return -EXIT_CANNOT_TEST;
  }
  for (int i = 0; i < n_sel; i++) sel[i] = i;
  if (!o->gpus) return n_sel;
  n_sel = parse_gpus(o->gpus, r->n_gpus, sel);
  if (n_sel == -1)
    fprintf(stderr, "nccl-numa p2p: --gpus '%s': a list of GPU ordinals like 0,1 or 0-3\n",
            o->gpus);
  if (n_sel < 0) return -NN_EXIT_USAGE;
  if (n_sel < need) {
    fprintf(stderr, "nccl-numa p2p: --gpus %s: at least %d GPU%s to test\n", o->gpus, need,
            need == 1 ? "" : "s");
    return -NN_EXIT_USAGE;
  }
  return n_sel;
}

/* --update: the verdict's line written into the mapping. Returns 0 or the exit code. */
static int update(const struct nn_p2p_report *r, const struct options *o) {
  char err[4400];
  int replaced = 0;
  if (!r->line[0]) {
    fprintf(stderr, "nccl-numa p2p: %s left as it was: the run gave no line\n", o->update);
    return EXIT_CANNOT_TEST;
  }
  if (nn_p2pupdate_file(o->update, r->line, &replaced, err, sizeof err)) {
    fprintf(stderr, "nccl-numa p2p: --update: %s\n", err);
    return EXIT_NOT_UPDATED;
  }
  fprintf(stderr, "nccl-numa p2p: %s: %s the p2p line: %s\n", o->update,
          replaced ? "replaced" : "added", r->line);
  return 0;
}

static int run(struct nn_p2p_report *r, const struct options *o, const struct nn_config *mapping) {
  double end = nn_monotonic_s() + o->deadline;
  int rc = probe(r, o);
  if (rc) return rc;
  if (mapping) nn_p2preport_numa(r, mapping);
  int sel[NN_P2P_MAX_GPUS], n_sel = select_gpus(r, o, sel);
  if (n_sel < 0) return -n_sel;
  r->n_sel = n_sel;
  if (test_pairs(r, sel, n_sel, o, end) || test_rings(r, sel, n_sel, o, end))
    return EXIT_CANNOT_TEST;
  char date[16];
  time_t now = time(NULL);
  struct tm tm;
  strftime(date, sizeof date, "%Y-%m-%d", gmtime_r(&now, &tm));
  nn_p2preport_decide(r, date);
  if (o->json) nn_p2pprint_json(stdout, r, n_sel < r->n_gpus);
  else nn_p2pprint_text(stdout, r, n_sel < r->n_gpus, o->update);
  fflush(stdout);
  if (o->update && (rc = update(r, o))) return rc;
  if (r->verdict == NN_P2P_BROKEN) return EXIT_BROKEN;
  return r->incomplete ? EXIT_CANNOT_TEST : NN_EXIT_OK;
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
