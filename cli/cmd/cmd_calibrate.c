/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_calibrate.c - `nccl-numa calibrate`: its options, the run directory it reads
 * (--from) or makes (calibrate.c's sweep), and the rules printed from it. */
#include <stdio.h>
#include <string.h>

#include "cli/sweep/abrun.h"
#include "cli/sweep/calibrate.h"
#include "cli/common/cliconfig.h"
#include "cli/common/locate.h"
#include "cli/commands.h"
#include "cli/sweep/costmeasure.h"
#include "cli/sweep/launcher.h"
#include "cli/sweep/rundir.h"
#include "nn_config.h"

static void cal_usage(FILE *f) {
  fprintf(
    f,
    "usage: nccl-numa calibrate [--from RUNDIR] [--config FILE] [--algos LIST] [--protos LIST]\n"
    "                           [--nccl-tests DIR] [--colls LIST] [-b MIN] [-e MAX] [-f FACTOR]\n"
    "                           [-g GPUS] [-n ITERS] [-w WARMUP] [--repeats N] [--out RUNDIR]\n"
    "                           [--plugin PATH] [--nccl-version X.Y.Z] [--timeout SEC]\n"
    "                           [--bench-cmd 'PATH ARGS'] [--launcher mpirun|srun|'CMD ARGS']\n"
    "                           [--nodes N] [--ranks-per-node R] [--chunks LIST]\n"
    "                           [-- NCCL-TESTS-ARGS]\n\n"
    "Runs nccl-tests once per algorithm x protocol forced with NCCL_ALGO/NCCL_PROTO, or\n"
    "reads such a run (--from), and prints `rule`\n"
    "lines to paste into the mapping, and a `model pci-latency-us=` line where it improves\n"
    "the fit of NCCL's model and flips no choice to one measured slower (else a comment\n"
    "saying why not). With --config\n"
    "the runs get nccl-numa's topology (env plugin) but no tuner, and rules get the scope.\n"
    "A winner needs to beat the runner-up by more than the spread of the repeats.\n"
    "Candidates: without --algos and --protos, what NCCL enables on this machine for the\n"
    "swept collectives, read from the tuning table a probe run logs (NCCL_DEBUG=INFO\n"
    "NCCL_DEBUG_SUBSYS=TUNING, kept in RUNDIR/runs/probe.out); ring,tree x ll,simple (and\n"
    "ll128 where the release enables it between PCIe-only GPUs) when that table cannot be\n"
    "read (or for the one of --algos/--protos not given). calibrate never forces a protocol\n"
    "the release keeps off between PCIe-only GPUs (--protos ll128 there is refused). Every\n"
    "run checks its results (nccl-tests' -c 1); a run with #wrong > 0 is FAILED, never a winner.\n"
    "A combination that fails is skipped.\n"
    "--chunks LIST (e.g. 128K,512K,1M; needs --config and NCCL 2.30.3+) adds one arm per chunk\n"
    "size, the plugin serving it through its own rule (`rule chunk=SIZE`: NCCL has no variable\n"
    "for it), against an arm with the plugin and no rule; chunk= is written where one beats\n"
    "NCCL's own chunk size by more than the spread of the repeats.\n");
}

/* calibrate's own options (struct nn_ab_own): each takes a value. */
static int cal_opt(void *own, const char *name, char *v) {
  struct nn_cal_cli *c = own;
  if (!strcmp(name, "from")) c->from = v;
  else if (!strcmp(name, "config")) c->config = v;
  else if (!strcmp(name, "plugin")) c->plugin = v;
  else if (!strcmp(name, "out")) c->out = v;
  else if (!strcmp(name, "algos")) c->algos = v;
  else if (!strcmp(name, "chunks")) c->chunks = v;
  else c->protos = v;
  return 0;
}

/* 0, -1 after --help, or an exit code. */
static int cal_parse(int argc, char **argv, struct nn_ab_opts *o, struct nn_cal_cli *c) {
  char err[256];
  static const struct nn_ab_own_opt opts[] = {{"from", 0},  {"config", 0}, {"plugin", 0},
                                              {"out", 0},   {"algos", 0},  {"protos", 0},
                                              {"chunks", 0}};
  const struct nn_ab_own own = {opts, (int)(sizeof opts / sizeof opts[0]), cal_opt, c};
  int rc = nn_ab_parse_args(argc, argv, o, &own, err, sizeof err);
  if (rc == NN_AB_HELP) cal_usage(stdout);
  else if (rc && err[0]) fprintf(stderr, "nccl-numa calibrate: %s\n", err);
  if (rc == NN_AB_UNKNOWN) cal_usage(stderr);
  return rc == NN_AB_HELP ? -1 : rc ? NN_EXIT_USAGE : 0;
}

static int cal_print(const struct nn_rundir *rd, const char *config) {
  struct nn_series *s = NULL;
  int ns = 0;
  char err[512];
  if (nn_rundir_series(rd, stderr, &s, &ns, err, sizeof err)) {
    fprintf(stderr, "nccl-numa calibrate: %s\n", err);
    return NN_EXIT_INVALID;
  }
  int ranks = 0;
  for (int i = 0; i < ns; i++)
    if (s[i].ranks > ranks) ranks = s[i].ranks;
  int nodes = nn_launcher_nodes(rd->path);
  const char *scope = nn_calibrate_scope(config, ranks, nodes, NULL);
  printf("# nccl-numa calibrate: %s (NCCL %s, %d ranks, nodes=%d)\n", rd->path,
         rd->nccl[0] ? rd->nccl : "unknown", ranks, nodes);
  printf("# scope: %s\n", scope                 ? scope
                          : config && config[0] ? "unknown for this rank count: rules "
                                                  "apply to any scope"
                                                : "no mapping given: rules apply to any scope");
  struct nn_cost_model model;
  char why[512];
  int have = nn_costmeasure_load(rd, ranks, &model, why, sizeof why) == 0;
  if (have)
    printf("# NCCL's choice per size: predicted from the tuning table NCCL logged in "
           "runs/probe.out. A rule "
           "is emitted only where the fastest arm beats the measured time of NCCL's choice by more "
           "than the "
           "spread of the repeats.\n");
  else
    printf("# NCCL's choice cannot be predicted (%s): a rule is emitted only where the fastest "
           "combination "
           "beats the runner-up by more than the spread of the repeats.\n",
           why);
  int n = nn_calibrate_emit(rd, s, ns, ranks, scope, have ? &model : NULL, stdout);
  char how[256];
  double lat = nn_costmeasure_pci_latency(rd, s, ns, how, sizeof how);
  printf("# pci-latency: %s\n", how);
  char not [400];
  if (lat > 0 && nn_costmeasure_latency_ok(rd, s, ns, have ? &model : NULL, lat, not, sizeof not ))
    printf("model pci-latency-us=%.2f\n", lat);
  else if (lat > 0) printf("# model pci-latency-us=%.2f not written: %s\n", lat, not );
  nn_costmeasure_residual_line(stdout, rd, s, ns, have ? &model : NULL, lat, "# ");
  nn_rundir_series_free(s, ns);
  if (n < 0) return NN_EXIT_INVALID;
  fprintf(stderr, "nccl-numa calibrate: %d rule(s)\n", n);
  return NN_EXIT_OK;
}

int nn_cmd_calibrate(int argc, char **argv) {
  struct nn_ab_opts o;
  struct nn_cal_cli c = {0};
  nn_ab_opts_init(&o);
  o.repeats = 3;
  int rc = cal_parse(argc, argv, &o, &c);
  if (rc) return rc < 0 ? NN_EXIT_OK : rc;
  char config[PATH_MAX] = "", err[PATH_MAX + 128];
  if (c.config && nn_locate_config(c.config, config, sizeof config, err, sizeof err)) {
    fprintf(stderr, "nccl-numa calibrate: %s\n", err);
    return NN_EXIT_INVALID;
  }
  if (config[0] && nn_config_validate(config)) return NN_EXIT_INVALID;
  struct nn_rundir rd;
  memset(&rd, 0, sizeof rd);
  if (c.from) {
    if (nn_rundir_read(c.from, &rd, err, sizeof err)) {
      fprintf(stderr, "nccl-numa calibrate: %s\n", err);
      return NN_EXIT_INVALID;
    }
    int forced = 0;
    for (int i = 0; i < rd.n_arms; i++) forced += rd.arms[i].kind == NN_ARM_FORCED;
    if (!forced) {
      fprintf(stderr,
              "nccl-numa calibrate: %s has no forced algorithm x protocol runs (a run directory of "
              "kind '%s' with %d arm%s); rules come from a run that `nccl-numa calibrate` made\n",
              c.from, rd.kind[0] ? rd.kind : "unknown", rd.n_arms, rd.n_arms == 1 ? "" : "s");
      nn_rundir_free(&rd);
      return NN_EXIT_INVALID;
    }
    if (!config[0]) /* the mapping the sweep ran with tells the scope */
      for (int i = 0; i < rd.n_arms && !config[0]; i++)
        if (rd.arms[i].kind == NN_ARM_FORCED && rd.arms[i].config)
          snprintf(config, sizeof config, "%s", rd.arms[i].config);
  } else {
    int gpus = 0;
    nn_calibrate_scope(config, 0, 1, &gpus);
    err[0] = 0;
    char command[sizeof rd.command];
    nn_abdir_command(argc, argv, command, sizeof command);
    c.command = command;
    rc = nn_calibrate_run(&o, &c, &rd, config, &gpus, err, sizeof err);
    nn_launcher_free(&o.launch);
    if (rc) {
      if (err[0]) fprintf(stderr, "nccl-numa calibrate: %s\n", err);
      nn_rundir_free(&rd);
      return rc == NN_CALIBRATE_USAGE ? NN_EXIT_USAGE : NN_EXIT_INVALID;
    }
  }
  rc = cal_print(&rd, config);
  nn_rundir_free(&rd);
  return rc;
}
