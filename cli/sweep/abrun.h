/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abrun.h - `nccl-numa ab`, and the engine it shares with `calibrate`: runs
 * nccl-tests binaries in several arms (environments), alternating the arms
 * within every repeat (A B A B ...) so that drift hits all of them, and
 * records each run's environment and output in a run directory (rundir.h).
 *
 * Each arm's environment is abenv.h's, the run directory's making abdir.h's; both are
 * included here because every caller of the engine names collectives and makes the
 * directory it runs into.
 */
#ifndef NCCL_NUMA_CLI_ABRUN_H
#define NCCL_NUMA_CLI_ABRUN_H

#include <stdio.h>

#include "cli/sweep/abdir.h"
#include "cli/sweep/abenv.h"
#include "cli/sweep/launcher.h"
#include "cli/sweep/rundir.h"

#define NN_AB_MAX_COLLS 16
#define NN_AB_MAX_EXTRA 64

struct nn_ab_opts {
  const char *tests_dir;              /* --nccl-tests or $NCCL_TESTS_DIR */
  const char *bench_cmd;              /* --bench-cmd: used instead of nccl-tests when set */
  const char *colls[NN_AB_MAX_COLLS]; /* nccl-tests names: all_reduce, ... */
  int n_colls;
  const char *minb, *maxb, *factor; /* passed to nccl-tests as -b, -e, -f */
  int gpus, iters, warmup, repeats;
  int timeout_s;      /* per run; 0 = none */
  const char *plugin; /* absolute path of the .so (NULL when no arm needs it) */
  int nccl_code;      /* NCCL version code; 0 = detect with a probe run */
  char **extra;       /* more nccl-tests arguments (after --) */
  int n_extra;
  FILE *progress;            /* progress lines (stderr) */
  int probed;                /* nn_ab_probe ran: nn_ab_execute runs no second probe */
  struct nn_launcher launch; /* --launcher, --nodes, --ranks-per-node (launcher.h) */
};

/* Runs every repeat x collective x arm of rd's arms, writing meta and
 * runs.tsv. Detects NCCL's version first when o->nccl_code is 0, with a probe
 * that also logs NCCL's tuning table (runs/probe.out: report predicts NCCL's
 * choice from it). Returns the
 * number of failed runs, or -1 when nothing could be run (missing binary...; err
 * says why). Each run's line, and what it notices on the way, go to o->progress. */
int nn_ab_execute(struct nn_rundir *rd, struct nn_ab_opts *o, char *err, size_t errsz);

/* Runs one short probe: the first collective's binary at 8 bytes, 1 iteration,
 * no warm-up, in the stock environment (with `config`, and o->plugin set, the
 * served topology of that mapping but no tuner), without NCCL_TUNER_PLUGIN,
 * NCCL_ALGO and NCCL_PROTO, and with NCCL_DEBUG=VERSION, or for `tuning`
 * NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING (rank 0 then logs NCCL's tuning
 * table, nccltuning.h). Its output goes to RUNDIR/runs/probe.out, whose path
 * is put in out. Sets o->nccl_code and rd->nccl from the output when
 * o->nccl_code is 0 (a line on o->progress either way), and o->probed.
 * Returns the probe's exit code, or -1 when it could not run (no binary, out
 * of memory: err says which). nn_ab_execute calls it (without tuning) when
 * o->nccl_code is 0 and no probe ran yet. */
int nn_ab_probe(struct nn_rundir *rd, struct nn_ab_opts *o, const char *config, int tuning,
                char *out, size_t out_size, char *err, size_t errsz);

/* One of a sweep command's own long options: its name, and whether it is a flag (takes
 * no value). */
struct nn_ab_own_opt {
  const char *name;
  int flag;
};

#define NN_AB_MAX_OWN 16

/* A sweep command's own options for nn_ab_parse_args: take(arg, name, value) is called
 * for each (value NULL for a flag) and returns 0, or -1 for a bad value (the command says
 * why). */
struct nn_ab_own {
  const struct nn_ab_own_opt *opts;
  int n;
  int (*take)(void *arg, const char *name, char *value);
  void *arg;
};

#define NN_AB_HELP 1    /* -h or --help: show the usage, exit 0 */
#define NN_AB_UNKNOWN 2 /* an option neither knows, or a stray argument: err names it */
#define NN_AB_USAGE 3   /* a bad value: err says why (empty when the command's own said it) */

/* The option parser of ab and calibrate (getopt_long, as every command): the shared
 * options -b -e -f -g -n -w --repeats --colls --nccl-tests --timeout --nccl-version
 * --bench-cmd, launcher.h's --launcher --nodes --ranks-per-node, the command's own, and
 * -h/--help; `--opt VALUE` and `--opt=VALUE` alike. --bench-cmd 'PATH ARGS' names a
 * benchmark run instead of nccl-tests' COLL_perf: split at blanks, {coll} (required)
 * replaced by the nccl-tests collective name, then nccl-tests' -b -e -f -g -n -w options
 * and the extra arguments appended. "--" ends the options: the rest of argv goes to
 * o->extra (at most NN_AB_MAX_EXTRA). Returns 0, or one of NN_AB_HELP, NN_AB_UNKNOWN,
 * NN_AB_USAGE. */
int nn_ab_parse_args(int argc, char **argv, struct nn_ab_opts *o, const struct nn_ab_own *own,
                     char *err, size_t errsz);

/* --bench-cmd's words: split at blanks (no shell quoting), each {coll} replaced by coll.
 * NULL-terminated, free with nn_abenv_free; NULL when out of memory. */
char **nn_ab_bench_words(const char *cmd, const char *coll);

/* Defaults for the shared options. */
void nn_ab_opts_init(struct nn_ab_opts *o);

/* nccl-numa ab ... */
int nn_cmd_ab(int argc, char **argv);

#endif
