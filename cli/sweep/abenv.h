/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abenv.h - what an arm of `ab` (and of calibrate's sweep) runs in: its environment,
 * built from the caller's, and the names of the collectives it measures.
 *
 * Environment of each arm, starting from the caller's environment:
 *  - stock:  NCCL_ENV_PLUGIN, NCCL_TOPO_FILE, NCCL_NUMA_CONFIG removed;
 *            NCCL_TUNER_PLUGIN=none on NCCL >= 2.28, removed on older NCCL
 *            (which does not know "none");
 *  - numa:   NCCL_TUNER_PLUGIN and NCCL_ENV_PLUGIN = the plugin's absolute path,
 *            NCCL_NUMA_CONFIG = the arm's mapping; NCCL_TOPO_FILE removed (it
 *            would win over the served topology);
 *  - forced: as stock, or with a mapping as numa but without the tuner
 *            (NCCL_TUNER_PLUGIN as in stock), plus NCCL_ALGO and NCCL_PROTO.
 */
#ifndef NCCL_NUMA_CLI_ABENV_H
#define NCCL_NUMA_CLI_ABENV_H

#include "cli/sweep/rundir.h"

/* Normalises a collective name ("allreduce" -> "all_reduce"); NULL when not a
 * plausible nccl-tests name. */
const char *nn_abenv_coll_name(const char *s);

/* The rule-file name of an nccl-tests collective ("all_reduce" -> "allreduce"),
 * NULL for collectives NCCL's tuner never sees (alltoall, sendrecv, ...). */
const char *nn_abenv_rule_coll(const char *tests_coll);

/* Builds the environment of one arm from `base` (NULL-terminated). Returns a
 * malloc'd NULL-terminated array of malloc'd strings (free with
 * nn_abenv_free), or NULL when out of memory. */
char **nn_abenv_arm(char *const *base, const struct nn_arm *arm, const char *plugin, int nccl_code);

/* Whether a NAME=value entry of a run's environment is recorded in its runs/NNNN-ARM-COLL.env: what
 * bears on the measurement (NCCL_*, nccl-numa's NCCL_NUMA_*, CUDA_*, NVIDIA_*, launchers'
 * OMPI_*, PMIX_*, PMI_*, SLURM_*, HYDRA_*, I_MPI_*, MV2_*, transports' UCX_*, FI_*, and
 * LD_LIBRARY_PATH, LD_PRELOAD), never the rest of the caller's environment (tokens, keys). */
int nn_abenv_recorded(const char *entry);

/* Frees an environment nn_abenv_arm built (every string, then the array); NULL is ignored. */
void nn_abenv_free(char **env);

/* Drops every NAME=... entry from the NULL-terminated env (in place, freeing them). */
void nn_abenv_unset(char **env, const char *name);

/* Sets NAME=value at the end of env (after dropping any NAME=...); env must have room
 * for one more entry and its NULL. Returns 0, or -1 when out of memory. */
int nn_abenv_set(char **env, const char *name, const char *value);

#endif
