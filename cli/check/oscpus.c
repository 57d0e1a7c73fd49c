/* SPDX-License-Identifier: BSD-3-Clause */
/* oscpus.c - the mapping's `numa N cpus=` lines against this OS (check_ctx.h): CPUs it does not
 * have online, a node it lacks, and, in a one-node OS (a guest without NUMA nodes), per-node
 * sets that differ: the file would pin NCCL's threads to CPUs that are not there, or split one
 * node's CPUs as if they were two. */
#include "cli/check/check_ctx.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "fileread.h"

/* mask as a CPU list ("0-7,16") into buf. */
static void mask_list(const uint32_t *mask, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int c = 0; c <= NN_MAX_CPU; c++) {
    if (!(mask[c / 32] >> (c % 32) & 1u)) continue;
    int e = c;
    while (e < NN_MAX_CPU && (mask[(e + 1) / 32] >> ((e + 1) % 32) & 1u)) e++;
    int n = e > c ? snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", c, e)
                  : snprintf(buf + len, size - len, "%s%d", len ? "," : "", c);
    if (n < 0 || (size_t)n >= size - len) return;
    len += (size_t)n;
    c = e;
  }
}

/* The OS's online CPUs: ROOT/sys/devices/system/cpu/online, else every node's. 0, or -1 unknown. */
static int online_cpus(const struct nn_check_ctx *c, uint32_t *mask) {
  char path[4096], *text = NULL, err[64];
  size_t n = 0;
  memset(mask, 0, NN_CPUMASK_WORDS * sizeof *mask);
  const char *p = nn_check_rooted(c, "/sys/devices/system/cpu/online", path, sizeof path);
  if (nn_file_read(AT_FDCWD, p, 0, 65536, &text, &n, NULL, 0) == 0 && n > 0) {
    text[strcspn(text, "\n")] = 0;
    int ok = nn_cpulist_parse(text, mask, err, sizeof err) >= 0;
    free(text);
    if (ok) return 0;
    text = NULL;
  }
  free(text);
  int any = 0;
  for (int i = 0; i < c->g.n_numas; i++) {
    uint32_t one[NN_CPUMASK_WORDS];
    if (nn_cpulist_parse(c->g.numas[i].cpus, one, err, sizeof err) < 0) continue;
    for (int w = 0; w < NN_CPUMASK_WORDS; w++) mask[w] |= one[w];
    any = 1;
  }
  return any ? 0 : -1;
}

static int os_has_node(const struct nn_check_ctx *c, int node) {
  for (int i = 0; i < c->g.n_numas; i++)
    if (c->g.numas[i].node == node) return 1;
  return 0;
}

static void os_nodes(const struct nn_check_ctx *c, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < c->g.n_numas && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%d (cpus %s)", i ? ", " : "",
                            c->g.numas[i].node, c->g.numas[i].cpus);
}

/* CPUs of one line that this OS does not have online. */
static void check_online(struct nn_check_ctx *c, const struct nn_numa *l, const uint32_t *mask,
                         const uint32_t *online) {
  uint32_t missing[NN_CPUMASK_WORDS];
  char miss[256], have[256];
  int any = 0;
  for (int w = 0; w < NN_CPUMASK_WORDS; w++) any |= (missing[w] = mask[w] & ~online[w]) != 0;
  if (!any) return;
  c->cpus_absent = 1;
  mask_list(missing, miss, sizeof miss);
  mask_list(online, have, sizeof have);
  nn_check_problem(
    c, STEP_FIX_MAPPING,
    "%s:%d: numa %d cpus=%s: CPUs %s are not online on this OS (online: %s), so the served file "
    "would pin NCCL's threads to CPUs that are not there",
    c->cfg->path, l->line, l->node, l->cpus, miss, have);
}

void nn_oscpus_check(struct nn_check_ctx *c) {
  static uint32_t online[NN_CPUMASK_WORDS], mask[NN_CPUMASK_WORDS], first[NN_CPUMASK_WORDS];
  char err[128], nodes[1024];
  if (!c->cfg || !c->cfg->n_numas) return;
  int have_online = online_cpus(c, online) == 0;
  os_nodes(c, nodes, sizeof nodes);
  const struct nn_numa *differs = NULL;
  for (int i = 0; i < c->cfg->n_numas; i++) {
    const struct nn_numa *l = &c->cfg->numas[i];
    if (nn_cpulist_parse(l->cpus, mask, err, sizeof err) < 0) continue; /* the parser reported it */
    if (have_online) check_online(c, l, mask, online);
    if (c->g.n_numas >= 2 && !os_has_node(c, l->node))
      nn_check_problem(c, STEP_FIX_MAPPING,
                       "%s:%d: numa %d: this OS has no NUMA node %d (its nodes: %s)", c->cfg->path,
                       l->line, l->node, l->node, nodes);
    if (i == 0) memcpy(first, mask, sizeof first);
    else if (!differs && memcmp(first, mask, sizeof first)) differs = l;
  }
  if (differs && c->g.n_numas < 2)
    nn_check_problem(
      c, STEP_FIX_MAPPING,
      "%s:%d: numa %d cpus=%s differs from line %d's cpus=%s, but this OS has %s: in a guest "
      "without NUMA nodes every `numa` line lists all its CPUs (nccl-numa discover --guest "
      "--host-map writes them so)",
      c->cfg->path, differs->line, differs->node, differs->cpus, c->cfg->numas[0].line,
      c->cfg->numas[0].cpus, c->g.n_numas ? "one NUMA node" : "no NUMA nodes");
}
