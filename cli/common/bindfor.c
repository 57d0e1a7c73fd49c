/* SPDX-License-Identifier: BSD-3-Clause */
/* bindfor.c - the engines' NUMA binding options from the mapping; see bindfor.h. */
#include "cli/common/bindfor.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "errbuf.h"

int nn_bind_engine_parse(const char *name) {
  if (!strcmp(name, "sglang")) return NN_BIND_SGLANG;
  if (!strcmp(name, "vllm")) return NN_BIND_VLLM;
  return NN_BIND_NONE;
}

/* The option that carries the list, for the "already given" test. */
static const char *list_option(int engine) {
  return engine == NN_BIND_SGLANG ? "--numa-node" : "--numa-bind-nodes";
}

static int given(char *const *args, const char *opt) {
  size_t n = strlen(opt);
  for (; args && *args; args++)
    if (!strncmp(*args, opt, n) && ((*args)[n] == 0 || (*args)[n] == '=')) return 1;
  return 0;
}

/* The first NUMA node of cfg that this OS does not have, or -1. */
static int missing_node(const struct nn_config *cfg, const char *root, char *path, size_t size) {
  for (int i = 0; i < cfg->n_gpus; i++) {
    struct stat st;
    snprintf(path, size, "%s/sys/devices/system/node/node%d", root ? root : "", cfg->gpus[i].numa);
    if (stat(path, &st) || !S_ISDIR(st.st_mode)) return cfg->gpus[i].numa;
  }
  return -1;
}

int nn_bind_args(const struct nn_config *cfg, int engine, const char *sysfs_root, char *const *args,
                 const char **out, char *why, size_t whysz) {
  static char nodes[NN_MAX_GPUS][12];
  char path[PATH_MAX];
  if (cfg->n_gpus == 0 || cfg->host_side) {
    nn_errbuf_set(why, whysz, cfg->host_side ? "a host-side mapping numbers the host's GPUs, not the job's"
                                             : "the mapping has no gpu lines");
    return 0;
  }
  if (given(args, list_option(engine))) {
    nn_errbuf_set(why, whysz, "the command already gives %s", list_option(engine));
    return 0;
  }
  int absent = missing_node(cfg, sysfs_root, path, sizeof path);
  if (absent >= 0) {
    nn_errbuf_set(why, whysz, "this OS has no NUMA node %d (%s absent), which the engine's numactl "
                  "binding would need", absent, path);
    return 0;
  }
  int n = 0;
  if (engine == NN_BIND_VLLM && !given(args, "--numa-bind")) out[n++] = "--numa-bind";
  out[n++] = list_option(engine);
  for (int i = 0; i < cfg->n_gpus; i++) {
    snprintf(nodes[i], sizeof nodes[i], "%d", cfg->gpus[i].numa);
    out[n++] = nodes[i];
  }
  return n;
}

int nn_bind_applies(const struct nn_config *cfg, const char *sysfs_root, char *nodes, size_t size) {
  char path[PATH_MAX];
  int distinct = 0;
  if (cfg->host_side || cfg->n_gpus == 0 || missing_node(cfg, sysfs_root, path, sizeof path) >= 0) return 0;
  size_t used = 0;
  nodes[0] = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    if (cfg->gpus[i].numa != cfg->gpus[0].numa) distinct = 1;
    int w = snprintf(nodes + used, size - used, "%s%d", i ? " " : "", cfg->gpus[i].numa);
    if (w > 0 && (size_t)w < size - used) used += (size_t)w;
  }
  return distinct;
}
