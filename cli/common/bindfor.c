/* SPDX-License-Identifier: BSD-3-Clause */
/* bindfor.c - the engines' NUMA binding options for the job's GPUs; see bindfor.h. */
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

/* The first of the n nodes that this OS does not have, or -1. */
static int missing_node(const int *nodes, int n, const char *root, char *path, size_t size) {
  for (int i = 0; i < n; i++) {
    struct stat st;
    snprintf(path, size, "%s/sys/devices/system/node/node%d", root ? root : "", nodes[i]);
    if (stat(path, &st) || !S_ISDIR(st.st_mode)) return nodes[i];
  }
  return -1;
}

/* The job's GPUs' nodes in the engine's order; their count, or 0 with why. */
static int job_nodes(const struct nn_config *cfg, const struct nn_visible *vis, int *nodes,
                     char *why, size_t whysz) {
  int pos[NN_MAX_GPUS];
  if (cfg->n_gpus == 0 || cfg->host_side) {
    nn_errbuf_set(why, whysz,
                  cfg->host_side ? "a host-side mapping numbers the host's GPUs, not the job's"
                                 : "the mapping has no gpu lines");
    return 0;
  }
  int n = nn_visible_order(cfg, vis, pos, NN_MAX_GPUS);
  if (n <= 0) {
    nn_errbuf_set(why, whysz, "%s",
                  n < 0 ? vis->why : "no GPU of the mapping is visible to the job");
    return 0;
  }
  for (int i = 0; i < n; i++) nodes[i] = cfg->gpus[pos[i]].numa;
  return n;
}

int nn_bind_args(const struct nn_config *cfg, const struct nn_visible *vis, int engine,
                 const char *sysfs_root, char *const *args, const char **out, char *why,
                 size_t whysz) {
  static char text[NN_MAX_GPUS][12];
  int nodes[NN_MAX_GPUS];
  char path[PATH_MAX];
  int n = job_nodes(cfg, vis, nodes, why, whysz);
  if (n == 0) return 0;
  if (given(args, list_option(engine))) {
    nn_errbuf_set(why, whysz, "the command already gives %s", list_option(engine));
    return 0;
  }
  /* one rule for every job (nn_bind_applies'): an OS lacking any of the mapping's nodes numbers its
   * nodes otherwise (a guest without NUMA nodes has node 0 alone), so none of them is the mapping's
   */
  int every[NN_MAX_GPUS];
  for (int i = 0; i < cfg->n_gpus; i++) every[i] = cfg->gpus[i].numa;
  int absent = missing_node(every, cfg->n_gpus, sysfs_root, path, sizeof path);
  if (absent >= 0) {
    nn_errbuf_set(why, whysz,
                  "this OS has no NUMA node %d (%s absent): its nodes are not the mapping's, so "
                  "no GPU's node is (a guest without NUMA nodes numbers its one node 0)",
                  absent, path);
    return 0;
  }
  int k = 0;
  if (engine == NN_BIND_VLLM && !given(args, "--numa-bind")) out[k++] = "--numa-bind";
  out[k++] = list_option(engine);
  for (int i = 0; i < n; i++) {
    snprintf(text[i], sizeof text[i], "%d", nodes[i]);
    out[k++] = text[i];
  }
  return k;
}

int nn_bind_applies(const struct nn_config *cfg, const struct nn_visible *vis,
                    const char *sysfs_root, char *list, size_t size) {
  int nodes[NN_MAX_GPUS];
  char path[PATH_MAX], why[8];
  int every[NN_MAX_GPUS];
  for (int i = 0; i < cfg->n_gpus; i++) every[i] = cfg->gpus[i].numa;
  /* a guest lacking one of the mapping's nodes has no real NUMA nodes to pin to: not suggested */
  if (nn_config_numa_count(cfg) < 2 ||
      missing_node(every, cfg->n_gpus, sysfs_root, path, sizeof path) >= 0)
    return 0;
  int n = job_nodes(cfg, vis, nodes, why, sizeof why);
  if (n == 0) return 0;
  size_t used = 0;
  list[0] = 0;
  for (int i = 0; i < n; i++) {
    int w = snprintf(list + used, size - used, "%s%d", i ? " " : "", nodes[i]);
    if (w > 0 && (size_t)w < size - used) used += (size_t)w;
  }
  return 1;
}
