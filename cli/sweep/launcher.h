/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * launcher.h - running the benchmark of `ab` and `calibrate` across several
 * nodes through a job launcher, as cluster operators run nccl-tests built with
 * MPI=1: `--launcher mpirun|srun|'CMD ARGS'` with --nodes and --ranks-per-node.
 *
 * Every arm's environment is the launcher's environment; besides, each style
 * passes the arm's NCCL_* variables (those the arm sets and the user's own) to
 * every rank the way that launcher does it:
 *  - mpirun (Open MPI's mpirun/mpiexec/orterun): -np NODES*RPN --map-by ppr:RPN:node
 *    and `-x NAME` for each variable (Open MPI gives remote ranks only what -x names);
 *  - srun (Slurm): --nodes=NODES --ntasks-per-node=RPN --export=ALL,NAME=VALUE,...
 *    (ALL: srun's environment, which is the arm's, so variables the arm removes stay
 *    removed; Slurm splits --export at commas, so a value with a comma is refused);
 *  - any other command: only its own environment carries the variables, and the
 *    command itself must say how many ranks to start.
 * Words of the launcher command are split as the shell would (quotes honoured, no
 * command substitution); the first is looked up on PATH.
 *
 * Which host ran which rank is read back from the benchmark's own output: nccl-tests
 * lists every rank as "#  Rank R Group G Pid P on HOST device D [...]".
 */
#ifndef NCCL_NUMA_CLI_LAUNCHER_H
#define NCCL_NUMA_CLI_LAUNCHER_H

#include <limits.h>
#include <stdio.h>

enum nn_launcher_style {
  NN_LAUNCHER_NONE = 0,
  NN_LAUNCHER_MPIRUN,
  NN_LAUNCHER_SRUN,
  NN_LAUNCHER_OTHER
};

#define NN_LAUNCHER_MAX_WORDS 64

struct nn_launcher {
  enum nn_launcher_style style;
  const char *spec;                   /* --launcher as given */
  char *words[NN_LAUNCHER_MAX_WORDS]; /* split, words[0] resolved on PATH (malloc'd) */
  int n_words;
  int nodes, ranks_per_node; /* 0 = not given */
};

/* Sets the option --NAME (launcher, nodes or ranks-per-node) to v. Returns 1 set, 0 not
 * one of them, -1 a bad value (the problem in err). */
int nn_launcher_set_opt(struct nn_launcher *l, const char *name, const char *v, char *err,
                        size_t errsz);

/* After all options: splits and resolves the launcher and checks --nodes and
 * --ranks-per-node against it; fills the defaults. With a launcher, -g (*gpus)
 * is per rank and defaults to 1, and the ranks per node default to the mapping's
 * GPU count (mapping_gpus, else 1) when -g was not given, else to 1.
 * Returns 0, or -1 with the problem in err. Without a launcher it only refuses
 * --nodes/--ranks-per-node. */
int nn_launcher_finish(struct nn_launcher *l, int *gpus, int mapping_gpus, char *err, size_t errsz);

/* The launcher's argv around `prog` (NULL-terminated) for a run in `env`: the
 * launcher words, the style's rank and environment options, then prog. Returns
 * a malloc'd NULL-terminated array of malloc'd strings (free with
 * nn_launcher_argv_free), or NULL with a message in err. */
char **nn_launcher_argv(const struct nn_launcher *l, char *const *env, char *const *prog, char *err,
                        size_t errsz);
void nn_launcher_argv_free(char **av);

/* Writes RUNDIR/launch (the run directory open as dir_fd, rundir.h): the style, the
 * command, nodes and ranks per node. */
int nn_launcher_write(const struct nn_launcher *l, int dir_fd);

/* Reads the "Rank R ... Pid P on HOST device D" lines of a run's output at
 * out_path and appends one line per rank "ARM SEQ COLL RANK HOST PID DEVICE" to
 * placement.tsv of the run directory open as dir_fd (header written when new).
 * Puts "HOST: R,R; HOST: R" in summary. Returns the number of ranks found, or -1
 * when a file cannot be read or written. */
int nn_launcher_record(int dir_fd, const char *out_path, const char *arm, int seq, const char *coll,
                       char *summary, size_t size);

/* The nodes a run directory's runs used: from RUNDIR/launch, 1 when absent. */
int nn_launcher_nodes(const char *rundir);

/* Frees the launcher's words. */
void nn_launcher_free(struct nn_launcher *l);

#endif
