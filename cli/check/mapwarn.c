/* SPDX-License-Identifier: BSD-3-Clause */
/* mapwarn.c - check-config's warnings on a valid mapping; see mapwarn.h. */
#include "cli/check/mapwarn.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "fileread.h"

/* The next free message, NULL when full. */
static char *next(struct nn_mapwarn *w) { return w->n < NN_MAPWARN_MAX ? w->msg[w->n++] : NULL; }

/* CPUs of `node` as the plugin's topology writer finds them (topo_xml.c): the mapping's line,
 * else this machine's sysfs. *where names the source. Returns the count, 0 when none. */
static int node_cpus(const struct nn_config *cfg, int node, const char *sysfs_root, char *list,
                     size_t size, char *where, size_t wsize) {
  static uint32_t mask[NN_CPUMASK_WORDS];
  char err[128], path[4200];
  char *text = NULL;
  size_t len = 0;
  const struct nn_numa *nl = nn_config_find_numa(cfg, node);
  list[0] = 0;
  if (nl && nl->cpus) {
    snprintf(list, size, "%s", nl->cpus);
    snprintf(where, wsize, "line %d", nl->line);
  } else {
    snprintf(path, sizeof path, "%s/sys/devices/system/node/node%d/cpulist",
             sysfs_root && strcmp(sysfs_root, "/") ? sysfs_root : "", node);
    snprintf(where, wsize, "%s", path);
    if (nn_file_read(AT_FDCWD, path, NN_FILE_MISSING_OK, 8191, &text, &len, err, sizeof err) == 0 &&
        text) {
      text[strcspn(text, "\n")] = 0;
      snprintf(list, size, "%s", text);
    }
    free(text);
  }
  memset(mask, 0, sizeof mask);
  if (!list[0] || nn_cpulist_parse(list, mask, err, sizeof err) < 0) return 0;
  int n = 0;
  for (int i = 0; i < NN_CPUMASK_WORDS; i++) n += __builtin_popcount(mask[i]);
  return n;
}

static void affinity(const struct nn_config *cfg, const char *path, const char *sysfs_root,
                     struct nn_mapwarn *w) {
  int full = -1, empty = -1, most = 0;
  char full_list[256] = "", full_where[4300] = "", empty_where[4300] = "", list[256], where[4300];
  for (int i = 0; i < cfg->n_gpus; i++) {
    int node = cfg->gpus[i].numa, seen = 0;
    for (int j = 0; j < i; j++) seen |= cfg->gpus[j].numa == node;
    if (seen) continue;
    int n = node_cpus(cfg, node, sysfs_root, list, sizeof list, where, sizeof where);
    if (n > most) {
      most = n;
      full = node;
      snprintf(full_list, sizeof full_list, "%s", list);
      snprintf(full_where, sizeof full_where, "%s", where);
    }
    if (n == 0 && empty < 0) {
      empty = node;
      snprintf(empty_where, sizeof empty_where, "%s", where);
    }
  }
  char *m = full >= 0 && empty >= 0 ? next(w) : NULL;
  if (!m) return;
  int n = snprintf(
    m, sizeof w->msg[0],
    "%s: warning: GPUs of NUMA node %d get CPUs %s (%s) and those of node %d "
    "none (%s: no `numa %d cpus=` line, nothing readable there); in a VM these are guest nodes, "
    "not the host's, so NCCL pins one socket's ranks to every CPU and the other's to none. Add a "
    "`numa N cpus=` line per node (nccl-numa discover --guest writes them from the host map)",
    path, full, full_list, full_where, empty, empty_where, empty);
  if (n < 0 || (size_t)n >= sizeof w->msg[0])
    memcpy(m + sizeof w->msg[0] - 4, "...", 4); /* long paths */
}

void nn_mapwarn_check(const struct nn_config *cfg, const char *path, const char *sysfs_root,
                      struct nn_mapwarn *out) {
  memset(out, 0, sizeof *out);
  char *m;
  if (cfg->n_gpus == 0 && (m = next(out))) {
    int n = snprintf(
      m, sizeof out->msg[0],
      "%s: warning: no `gpu` lines: the plugin maps no GPU, so it serves no "
      "topology and no rule knows its scope (an empty file, as a failed `nccl-numa discover > %s` "
      "leaves?)",
      path, path);
    if (n < 0 || (size_t)n >= sizeof out->msg[0]) memcpy(m + sizeof out->msg[0] - 4, "...", 4);
    return;
  }
  if (!cfg->host_side && nn_config_numa_count(cfg) >= 2) affinity(cfg, path, sysfs_root, out);
}
