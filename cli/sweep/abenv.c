/* SPDX-License-Identifier: BSD-3-Clause */
/* abenv.c - the environments of ab's arms and the names of collectives; see abenv.h. */
#include "cli/sweep/abenv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_model.h"

/* ---------- names ---------- */

const char *nn_abenv_coll_name(const char *s) {
  static const char *const alias[][2] = {
    {"allreduce", "all_reduce"}, {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"}};
  for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
    if (!strcmp(s, alias[i][0])) return alias[i][1];
  if (!*s || strlen(s) > 24) return NULL;
  for (const char *p = s; *p; p++)
    if (!islower((unsigned char)*p) && *p != '_' && !isdigit((unsigned char)*p)) return NULL;
  return s;
}

const char *nn_abenv_rule_coll(const char *c) {
  static const char *const map[][2] = {{"all_reduce", "allreduce"},
                                       {"all_gather", "allgather"},
                                       {"reduce_scatter", "reducescatter"},
                                       {"broadcast", "broadcast"},
                                       {"reduce", "reduce"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(c, map[i][0])) return map[i][1];
  return NULL;
}

/* ---------- environments ---------- */

void nn_abenv_free(char **env) {
  if (!env) return;
  for (char **e = env; *e; e++) free(*e);
  free(env);
}

static int env_is(const char *entry, const char *name) {
  size_t n = strlen(name);
  return !strncmp(entry, name, n) && entry[n] == '=';
}

void nn_abenv_unset(char **env, const char *name) {
  char **w = env;
  for (char **r = env; *r; r++) {
    if (env_is(*r, name)) free(*r);
    else *w++ = *r;
  }
  *w = NULL;
}

int nn_abenv_recorded(const char *entry) {
  static const char *const prefixes[] = {
    "NCCL_", "CUDA_", "NVIDIA_", /* NCCL, nccl-numa's own, the GPUs */
    "OMPI_", "PMIX_", "PMI_",    "SLURM_", "HYDRA_", "I_MPI_", "MV2_", /* launchers */
    "UCX_",  "FI_"}; /* transports NCCL's net plugins use */
  static const char *const names[] = {"LD_LIBRARY_PATH", "LD_PRELOAD"}; /* which NCCL loads */
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (!strncmp(entry, prefixes[i], strlen(prefixes[i])) && strchr(entry, '=')) return 1;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (env_is(entry, names[i])) return 1;
  return 0;
}

int nn_abenv_set(char **env, const char *name, const char *value) {
  nn_abenv_unset(env, name);
  char **e = env;
  while (*e) e++;
  size_t n = strlen(name) + strlen(value) + 2;
  if (!(*e = malloc(n))) return -1;
  snprintf(*e, n, "%s=%s", name, value);
  e[1] = NULL;
  return 0;
}

char **nn_abenv_arm(char *const *base, const struct nn_arm *arm, const char *plugin,
                    int nccl_code) {
  size_t n = 0;
  while (base && base[n]) n++;
  char **env = calloc(n + 8, sizeof *env);
  if (!env) return NULL;
  for (size_t i = 0; i < n; i++)
    if (!(env[i] = strdup(base[i]))) goto oom;
  static const char *const drop[] = {"NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN", "NCCL_TOPO_FILE",
                                     "NCCL_NUMA_CONFIG"};
  for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) nn_abenv_unset(env, drop[i]);
  int rc = 0;
  int tuner_none = nccl_code == 0 || nn_nccl_release_find(nccl_code, NULL)->tuner_none;
  if (arm->kind == NN_ARM_NUMA) {
    rc |= nn_abenv_set(env, "NCCL_TUNER_PLUGIN", plugin ? plugin : "");
    rc |= nn_abenv_set(env, "NCCL_ENV_PLUGIN", plugin ? plugin : "");
    rc |= nn_abenv_set(env, "NCCL_NUMA_CONFIG", arm->config ? arm->config : "");
  } else {
    if (tuner_none) rc |= nn_abenv_set(env, "NCCL_TUNER_PLUGIN", "none");
    if (arm->kind == NN_ARM_FORCED && arm->config && plugin) {
      rc |= nn_abenv_set(env, "NCCL_ENV_PLUGIN", plugin);
      rc |= nn_abenv_set(env, "NCCL_NUMA_CONFIG", arm->config);
    }
  }
  if (arm->kind == NN_ARM_FORCED) {
    rc |= nn_abenv_set(env, "NCCL_ALGO", arm->algo);
    rc |= nn_abenv_set(env, "NCCL_PROTO", arm->proto);
  }
  if (rc) goto oom;
  return env;
oom:
  nn_abenv_free(env);
  return NULL;
}
