/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_ab.c - `nccl-numa ab`: its options and arms; the runs are abrun.c's, the report
 * report.c's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/sweep/abrun.h"
#include "cli/common/cliconfig.h"
#include "cli/common/locate.h"
#include "cli/commands.h"
#include "cli/sweep/report.h"
#include "cli/sweep/rundir.h"
#include "cli/common/sha256.h"
#include "nn_config.h"

static void ab_usage(FILE *f) {
  fprintf(
    f,
    "usage: nccl-numa ab [--nccl-tests DIR] [--config FILE] [--arm NAME=FILE]...\n"
    "                    [--colls LIST] [-b MIN] [-e MAX] [-f FACTOR] [-g GPUS] [-n ITERS]\n"
    "                    [-w WARMUP] [--repeats N] [--out RUNDIR] [--plugin PATH]\n"
    "                    [--nccl-version X.Y.Z] [--timeout SEC] [--no-plot]\n"
    "                    [--bench-cmd 'PATH ARGS'] [--launcher mpirun|srun|'CMD ARGS']\n"
    "                    [--nodes N] [--ranks-per-node R] [-- NCCL-TESTS-ARGS]\n\n"
    "Runs nccl-tests in the arm `stock` (NCCL without plugins) and in each nccl-numa arm\n"
    "(default: one arm `numa` with --config, else $NCCL_NUMA_CONFIG, else /etc/nccl-numa.conf),\n"
    "alternating the arms in every repeat, then prints the report (nccl-numa report RUNDIR).\n"
    "Defaults: --colls all_reduce,all_gather,reduce_scatter -b 8 -e 256M -f 2 -n 20 -w 5\n"
    "--repeats 5, -g = the mapping's GPU count, --nccl-tests $NCCL_TESTS_DIR,\n"
    "--out ./nccl-numa-ab-DATE-TIME, --timeout 1800 per run.\n"
    "--bench-cmd runs another benchmark that takes nccl-tests' options and prints its rows\n"
    "(e.g. test/gpu's driver): words split at blanks, {coll} replaced by the collective.\n");
}

/* The rule report applies to names read back from a run directory. */
static int valid_arm_name(const char *s, size_t n) {
  char name[NN_ARM_NAME_MAX];
  if (!n || n >= NN_ARM_NAME_MAX) return 0;
  memcpy(name, s, n);
  name[n] = 0;
  return nn_rundir_name_ok(name);
}

/* Adds a numa arm NAME with mapping FILE; validates both. */
static int add_numa_arm(struct nn_rundir *rd, const char *name, size_t name_len, const char *file,
                        int *gpus) {
  if (!valid_arm_name(name, name_len) || (name_len == 5 && !strncmp(name, "stock", 5))) {
    fprintf(stderr, "nccl-numa ab: bad arm name '%.*s' (letters, digits, _ . -; not 'stock')\n",
            (int)name_len, name);
    return -1;
  }
  for (int i = 0; i < rd->n_arms; i++)
    if (strlen(rd->arms[i].name) == name_len && !strncmp(rd->arms[i].name, name, name_len)) {
      fprintf(stderr, "nccl-numa ab: arm '%.*s' given twice\n", (int)name_len, name);
      return -1;
    }
  if (rd->n_arms >= NN_MAX_ARMS) {
    fprintf(stderr, "nccl-numa ab: more than %d arms\n", NN_MAX_ARMS);
    return -1;
  }
  char path[PATH_MAX], err[PATH_MAX + 128];
  if (nn_locate_config(file, path, sizeof path, err, sizeof err)) {
    fprintf(stderr, "nccl-numa ab: %s\n", err);
    return -1;
  }
  struct nn_cli_config cc;
  if (nn_cli_config_load("ab", path, NULL, 0, &cc) != NN_CFG_OK) {
    fprintf(stderr, "nccl-numa ab: arm %.*s: %s is not a valid mapping\n", (int)name_len, name,
            path);
    nn_cli_config_free(&cc);
    return -1;
  }
  if (!*gpus && cc.cfg->n_gpus > 0) *gpus = cc.cfg->n_gpus;
  nn_cli_config_free(&cc);
  struct nn_arm *a = &rd->arms[rd->n_arms];
  memset(a, 0, sizeof *a);
  snprintf(a->name, sizeof a->name, "%.*s", (int)name_len, name);
  a->kind = NN_ARM_NUMA;
  if (!(a->config = strdup(path))) return -1;
  if (nn_sha256_file_hex(path, a->sha256)) a->sha256[0] = 0;
  rd->n_arms++;
  return 0;
}

struct ab_cli {
  const char *config, *plugin, *out;
  const char *arms[NN_MAX_ARMS];
  int n_arms, plots;
};

/* ab's own options (struct nn_ab_own). */
static int ab_opt(void *own, const char *name, char *v) {
  struct ab_cli *c = own;
  if (!strcmp(name, "no-plot")) c->plots = 0;
  else if (!strcmp(name, "config")) c->config = v;
  else if (!strcmp(name, "plugin")) c->plugin = v;
  else if (!strcmp(name, "out")) c->out = v;
  else if (c->n_arms < NN_MAX_ARMS) c->arms[c->n_arms++] = v;
  else {
    fprintf(stderr, "nccl-numa ab: --arm given more than %d times\n", NN_MAX_ARMS);
    return -1;
  }
  return 0;
}

/* 0, -1 after --help, or an exit code. */
static int ab_parse(int argc, char **argv, struct nn_ab_opts *o, struct ab_cli *c) {
  char err[256];
  static const struct nn_ab_own_opt opts[] = {
    {"config", 0}, {"plugin", 0}, {"out", 0}, {"arm", 0}, {"no-plot", 1}};
  const struct nn_ab_own own = {opts, (int)(sizeof opts / sizeof opts[0]), ab_opt, c};
  int rc = nn_ab_parse_args(argc, argv, o, &own, err, sizeof err);
  if (rc == NN_AB_HELP) ab_usage(stdout);
  else if (rc && err[0]) fprintf(stderr, "nccl-numa ab: %s\n", err);
  if (rc == NN_AB_UNKNOWN) ab_usage(stderr);
  return rc == NN_AB_HELP ? -1 : rc ? NN_EXIT_USAGE : 0;
}

static int ab_arms(struct nn_rundir *rd, const struct ab_cli *c, int *gpus) {
  rd->arms[0] = (struct nn_arm){.name = "stock", .kind = NN_ARM_STOCK};
  rd->n_arms = 1;
  int have_numa = 0;
  for (int i = 0; i < c->n_arms; i++) {
    const char *eq = strchr(c->arms[i], '=');
    if (!eq || !eq[1]) {
      fprintf(stderr, "nccl-numa ab: --arm takes NAME=CONFIGFILE, not '%s'\n", c->arms[i]);
      return -1;
    }
    if (eq - c->arms[i] == 4 && !strncmp(c->arms[i], "numa", 4)) have_numa = 1;
  }
  /* order of the arms in every repeat: stock, numa (--config), then each --arm */
  if (!have_numa && (c->config || !c->n_arms))
    if (add_numa_arm(rd, "numa", 4, c->config, gpus)) return -1;
  for (int i = 0; i < c->n_arms; i++) {
    const char *eq = strchr(c->arms[i], '=');
    if (add_numa_arm(rd, c->arms[i], (size_t)(eq - c->arms[i]), eq + 1, gpus)) return -1;
  }
  return 0;
}

int nn_cmd_ab(int argc, char **argv) {
  struct nn_ab_opts o;
  struct ab_cli c = {.plots = 1};
  nn_ab_opts_init(&o);
  int rc = ab_parse(argc, argv, &o, &c);
  if (rc) return rc < 0 ? NN_EXIT_OK : rc;
  if (!o.tests_dir && !o.bench_cmd) {
    fprintf(stderr, "nccl-numa ab: where are the nccl-tests binaries? Give --nccl-tests DIR, "
                    "set NCCL_TESTS_DIR, or give --bench-cmd\n");
    return NN_EXIT_USAGE;
  }
  char so[PATH_MAX], err[PATH_MAX + 128];
  if (nn_locate_plugin(c.plugin, so, sizeof so, err, sizeof err)) {
    fprintf(stderr, "nccl-numa ab: %s\n", err);
    return NN_EXIT_INVALID;
  }
  o.plugin = so;
  struct nn_rundir rd;
  memset(&rd, 0, sizeof rd);
  int gpus = o.gpus;
  if (ab_arms(&rd, &c, &gpus)) {
    nn_rundir_free(&rd);
    return NN_EXIT_INVALID;
  }
  if (nn_launcher_finish(&o.launch, &o.gpus, gpus, err, sizeof err)) {
    fprintf(stderr, "nccl-numa ab: %s\n", err);
    nn_rundir_free(&rd);
    return NN_EXIT_USAGE;
  }
  if (!o.gpus) o.gpus = gpus ? gpus : 1;
  rd.gpus = o.gpus;
  rd.iters = o.iters;
  rd.warmup = o.warmup;
  rd.repeats = o.repeats;
  snprintf(rd.sizes, sizeof rd.sizes, "-b %s -e %s -f %s", o.minb, o.maxb, o.factor);
  char def[64];
  int numbered = !c.out;
  if (!c.out) {
    time_t now = time(NULL);
    struct tm tm;
    strftime(def, sizeof def, "nccl-numa-ab-%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    c.out = def;
  }
  if (getenv("NCCL_TOPO_FILE"))
    fprintf(stderr, "nccl-numa ab: NCCL_TOPO_FILE is set in your environment; it is removed "
                    "from every arm so that the arms differ only by nccl-numa\n");
  if (getenv("NCCL_ALGO") || getenv("NCCL_PROTO"))
    fprintf(stderr, "nccl-numa ab: note: NCCL_ALGO/NCCL_PROTO are set and apply to every arm; "
                    "rules that need another choice fall through\n");
  char command[sizeof rd.command];
  nn_abdir_command(argc, argv, command, sizeof command);
  if (nn_abdir_create(&rd, c.out, numbered, "ab", command, err, sizeof err)) {
    fprintf(stderr, "nccl-numa ab: %s\n", err);
    nn_rundir_free(&rd);
    nn_launcher_free(&o.launch);
    return NN_EXIT_INVALID;
  }
  int failed = nn_ab_execute(&rd, &o, err, sizeof err);
  int exit_code = failed < 0 ? NN_EXIT_INVALID : NN_EXIT_OK;
  if (failed < 0) fprintf(stderr, "nccl-numa ab: %s\n", err);
  if (failed < 0 && nn_abdir_discard_empty(&rd))
    fprintf(stderr, "nccl-numa ab: nothing ran; %s removed\n", rd.path);
  if (failed >= 0) {
    if (nn_report_write(rd.path, c.plots, stdout, stderr, err, sizeof err)) {
      fprintf(stderr, "nccl-numa ab: %s\n", err);
      exit_code = NN_EXIT_INVALID;
    } else {
      fprintf(stderr, "nccl-numa ab: %d run(s) failed; report in %s/report.md\n", failed, rd.path);
    }
  }
  nn_rundir_free(&rd);
  nn_launcher_free(&o.launch);
  return exit_code;
}
