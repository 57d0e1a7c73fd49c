/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_machine.c - the directives that describe the machine: `gpu` (index,
 * bus id, NUMA node), `numa` (a node's CPUs) and `cpu` (the CPU kind NCCL's
 * socket-link model needs). See config_parser.h.
 */
#include "ascii.h"
#include "config_parser.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuinfo.h"
#include "cpulist.h"
#include "numparse.h"

uint64_t nn_busid_key(const struct nn_busid *b) {
  return ((uint64_t)b->domain << 16 | (uint64_t)b->bus << 8 | (uint64_t)b->dev << 3 | b->func) + 1;
}

struct nn_bus_slot *nn_bus_slot(struct nn_bus_slot *tab, const struct nn_busid *b) {
  uint64_t key = nn_busid_key(b);
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 52) % NN_BUS_SLOTS;
  while (tab[i].key && tab[i].key != key) i = (i + 1) % NN_BUS_SLOTS;
  return &tab[i];
}

/* ------------------------------------------------------------------ gpu */

int nn_parse_node_id(struct nn_parser *p, const char *dir, const char *what, const char *s) {
  uint64_t v;
  if (nn_u64_parse(s, 0, NN_MAX_NUMA_ID, &v)) {
    nn_perr(p, "%s: bad %s '%s' (expected a NUMA node 0-%d)", dir, what, nn_quote(p, s),
            NN_MAX_NUMA_ID);
    return -1;
  }
  return (int)v;
}

static int gpu_busid(struct nn_parser *p, const char *key, const char *val, struct nn_busid *out) {
  if (nn_busid_parse(val, out) == 0) return 0;
  nn_perr(p,
          "gpu: bad %s id '%s' (expected [dddd:]bb:dd.f in hex: domain <= ffff, "
          "device <= 1f, function <= 7)",
          key, nn_quote(p, val));
  return -1;
}

static int gpu_check_unique(struct nn_parser *p, const struct nn_gpu *g) {
  int bad = 0;
  char b[16];
  if (g->index >= 0 && p->index_line[g->index]) {
    nn_perr(p, "gpu: duplicate index %d (first on line %d)", g->index, p->index_line[g->index]);
    bad++;
  }
  const struct nn_bus_slot *o = g->has_bus ? nn_bus_slot(p->bus_tab, &g->bus) : NULL;
  if (o && o->key) {
    nn_busid_format(&g->bus, b, sizeof b);
    nn_perr(p, "gpu: duplicate bus id %s (first on line %d)", b, o->line);
    bad++;
  }
  o = g->has_host ? nn_bus_slot(p->host_tab, &g->host) : NULL;
  if (o && o->key) {
    nn_busid_format(&g->host, b, sizeof b);
    nn_perr(p, "gpu: duplicate host id %s (first on line %d)", b, o->line);
    bad++;
  }
  return bad;
}

static void gpu_remember(struct nn_parser *p, const struct nn_gpu *g) {
  p->index_line[g->index] = g->line;
  struct nn_bus_slot *s;
  if (g->has_bus) {
    s = nn_bus_slot(p->bus_tab, &g->bus);
    s->key = nn_busid_key(&g->bus);
    s->line = g->line;
  }
  if (g->has_host) {
    s = nn_bus_slot(p->host_tab, &g->host);
    s->key = nn_busid_key(&g->host);
    s->line = g->line;
  }
}

static int gpu_count_node(struct nn_parser *p, int node) {
  if (p->node_used[node]) return 0;
  if (p->distinct_nodes >= NN_MAX_NUMA_NODES) {
    nn_perr(p, "gpu: numa=%d would be NUMA node number %d; at most %d distinct NUMA nodes", node,
            p->distinct_nodes + 1, NN_MAX_NUMA_NODES);
    return -1;
  }
  p->node_used[node] = 1;
  p->distinct_nodes++;
  return 0;
}

/* pcie=GENxWIDTH (e.g. 5x16): the GPU's PCIe link, as `discover` reads it from sysfs. */
static int gpu_pcie(struct nn_parser *p, const char *v, struct nn_gpu *g) {
  static const int widths[] = {1, 2, 4, 8, 12, 16, 32};
  const char *x = strchr(v, 'x');
  uint64_t gen, width;
  char genbuf[8];
  size_t n = x ? (size_t)(x - v) : 0;
  int ok = x && n > 0 && n < sizeof genbuf;
  if (ok) {
    memcpy(genbuf, v, n);
    genbuf[n] = 0;
    ok = !nn_u64_parse(genbuf, 0, 6, &gen) && gen >= 1 && !nn_u64_parse(x + 1, 0, 32, &width);
  }
  for (size_t i = 0; ok && i < sizeof widths / sizeof widths[0]; i++)
    if ((uint64_t)widths[i] == width) {
      g->pcie_gen = (int)gen;
      g->pcie_width = (int)width;
      return 0;
    }
  nn_perr(p,
          "gpu: bad pcie '%s' (expected GENxWIDTH: generation 1-6, width 1, 2, 4, 8, 12, 16 or 32; "
          "e.g. pcie=5x16)",
          nn_quote(p, v));
  return -1;
}

static int gpu_keys(struct nn_parser *p, struct nn_kv *k, struct nn_gpu *g) {
  int host_side = p->opts && (p->opts->flags & NN_PARSE_HOST_SIDE);
  int bad = 0;
  if (k[0].val) {
    if (gpu_busid(p, "bus", k[0].val, &g->bus) == 0) g->has_bus = 1; /* unset: no false duplicate */
    else bad++;
  } else if (!host_side) {
    p->gpu_without_bus++;
    nn_perr(p, "gpu: missing bus=%s",
            p->cfg->host_side
              ? " (this is a host-side mapping: check it with --host-side, or complete it with "
                "discover --guest)"
              : "");
    bad++;
  }
  if (!k[1].val) {
    nn_perr(p, "gpu: missing numa=");
    bad++;
  } else if ((g->numa = nn_parse_node_id(p, "gpu", "numa", k[1].val)) < 0) {
    bad++;
  }
  if (k[2].val) {
    if (gpu_busid(p, "host", k[2].val, &g->host) == 0)
      g->has_host = 1; /* unset: no false duplicate */
    else bad++;
  } else if (host_side) {
    nn_perr(p, "gpu: missing host= (a host-side mapping needs it)");
    bad++;
  }
  if (k[4].val && gpu_pcie(p, k[4].val, g)) bad++;
  if (k[3].val) {
    uint64_t sm;
    if (nn_u64_parse(k[3].val, 0, 999, &sm) || sm < 10) {
      nn_perr(p, "gpu: bad sm '%s' (expected major*10+minor, e.g. 90 or 120)",
              nn_quote(p, k[3].val));
      bad++;
    } else {
      g->sm = (int)sm;
    }
  }
  return bad;
}

void nn_config_parser_gpu(struct nn_parser *p) {
  p->last_gpu_line = p->line;
  if (p->gpus_over) return;
  if (p->n_gpus >= NN_MAX_GPUS) {
    nn_perr(p, "gpu: too many gpu lines (at most %d)", NN_MAX_GPUS);
    p->gpus_over = 1;
    p->gpu_line_errors++;
    return;
  }
  struct nn_gpu g = {.index = -1, .numa = -1, .line = p->line};
  int bad = 0;
  if (p->nf < 2 || strchr(p->f[1], '=')) {
    nn_perr(p, "gpu: missing index (expected: gpu <index> bus=<busid> numa=<node>)");
    bad++;
  } else {
    uint64_t idx;
    if (nn_u64_parse(p->f[1], 0, NN_MAX_GPUS - 1, &idx)) {
      nn_perr(p, "gpu: bad index '%s' (expected 0-%d)", nn_quote(p, p->f[1]), NN_MAX_GPUS - 1);
      bad++;
    } else {
      g.index = (int)idx;
    }
  }
  struct nn_kv k[] = {{"bus", NULL}, {"numa", NULL}, {"host", NULL}, {"sm", NULL}, {"pcie", NULL}};
  int first = (p->nf >= 2 && !strchr(p->f[1], '=')) ? 2 : 1;
  bad += nn_take_keys(p, "gpu", first, k, NN_COUNT_OF(k));
  bad += gpu_keys(p, k, &g);
  if (g.index >= 0) bad += gpu_check_unique(p, &g);
  if (!bad && gpu_count_node(p, g.numa)) bad++; /* only accepted lines count */
  if (bad) {
    p->gpu_line_errors++;
    return;
  }
  if (nn_grow((void **)&p->gpus, &p->gpu_cap, p->n_gpus + 1, sizeof g)) {
    nn_perr(p, "out of memory");
    return;
  }
  p->gpus[p->n_gpus++] = g;
  gpu_remember(p, &g);
}

/* Every index 0..N-1 exactly once; a missing index has no line of its own, so it is
 * reported at the last gpu line. */
void nn_gpus_finish(struct nn_parser *p) {
  if (!p->n_gpus || p->gpu_line_errors) return;
  unsigned char seen[NN_MAX_GPUS] = {0};
  for (int i = 0; i < p->n_gpus; i++) seen[p->gpus[i].index] = 1;
  char list[200];
  int len = 0, missing = 0;
  for (int i = 0; i < p->n_gpus; i++) {
    if (seen[i]) continue;
    if (missing < 8)
      len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", missing ? ", " : "", i);
    missing++;
  }
  if (!missing) return;
  int save = p->line;
  p->line = p->last_gpu_line;
  nn_perr(p, "gpu: index %s%s missing (%d gpu lines need indices 0-%d, each once)", list,
          missing > 8 ? ", ..." : "", p->n_gpus, p->n_gpus - 1);
  p->line = save;
}

/* ------------------------------------------------------------------ numa */

void nn_config_parser_numa(struct nn_parser *p) {
  int node = -1, bad = 0;
  if (p->nf < 2 || strchr(p->f[1], '=')) {
    nn_perr(p, "numa: missing node (expected: numa <node> cpus=<list>)");
    bad++;
  } else if ((node = nn_parse_node_id(p, "numa", "node", p->f[1])) < 0) {
    bad++;
  }
  struct nn_kv k[] = {{"cpus", NULL}};
  int first = (p->nf >= 2 && !strchr(p->f[1], '=')) ? 2 : 1;
  bad += nn_take_keys(p, "numa", first, k, 1);
  struct nn_config *c = p->cfg;
  if (node >= 0 && p->numa_line[node]) {
    nn_perr(p, "numa: second line for node %d (first on line %d)", node, p->numa_line[node]);
    bad++;
  }
  if (!k[0].val) {
    nn_perr(p, "numa: missing cpus=");
    bad++;
  } else {
    char why[96];
    int highest = nn_cpulist_parse(k[0].val, NULL, why, sizeof why);
    if (highest < 0) {
      nn_perr(p, "numa: bad cpus list '%s': %s", nn_quote(p, k[0].val), why);
      bad++;
    } else if (nn_cpumask_chars(highest) > NN_MAX_AFFINITY_CHARS) {
      nn_perr(p,
              "numa: cpus=%s is too long for NCCL: CPU %d makes an affinity mask of %d "
              "characters, over NCCL's %d-character attribute limit",
              nn_quote(p, k[0].val), highest, nn_cpumask_chars(highest), NN_MAX_AFFINITY_CHARS);
      bad++;
    }
  }
  if (bad) return;
  if (nn_grow((void **)&c->numas, &p->numas_cap, c->n_numas + 1, sizeof *c->numas)) {
    nn_perr(p, "out of memory");
    return;
  }
  struct nn_numa *n = &c->numas[c->n_numas];
  n->node = node;
  n->line = p->line;
  /* k[0].val is not NULL: a NULL one was counted in bad above; the analyzer loses that
   * when take_keys' loop makes bad unknown. */
  n->cpus = strdup(k[0].val);   // NOLINT(clang-analyzer-core.NonNullParamChecker)
  if (!n->cpus) {
    nn_perr(p, "out of memory");
    return;
  }
  c->n_numas++;
  p->numa_line[node] = p->line;
}

/* ------------------------------------------------------------------ cpu */

/* Decimal, or hex with a 0x prefix; bounded by `max`. */
static int parse_dec_or_hex(const char *s, long max, long *out) {
  if (!s || !*s) return -1;
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (!*s) return -1;
  long v = 0;
  for (; *s; s++) {
    int c = (unsigned char)*s;
    int d = base == 16 ? nn_ascii_hex_digit(c) : isdigit(c) ? c - '0' : -1;
    if (d < 0) return -1;
    v = v * base + d;
    if (v > max) return -2;
  }
  *out = v;
  return 0;
}

static int cpu_number(struct nn_parser *p, const char *key, const char *val, int *out) {
  long v;
  if (!val) return 0;
  if (parse_dec_or_hex(val, 0xffff, &v)) {
    nn_perr(p, "cpu: bad %s '%s' (expected a decimal or 0x hex number up to 65535)", key,
            nn_quote(p, val));
    return 1;
  }
  *out = (int)v;
  return 0;
}

/* GenuineIntel: NCCL models the socket link by model, so both numbers are needed. */
static int cpu_intel_complete(struct nn_parser *p, struct nn_cpu *cpu) {
  if (cpu->family >= 0 && cpu->model >= 0) return 0;
  const char *path =
    p->opts && p->opts->cpuinfo_path ? p->opts->cpuinfo_path : nn_cpuinfo_default();
  char vendor[16];
  int fam, mod;
  if (nn_cpuinfo_read(path, vendor, &fam, &mod) == 0 && !strcmp(vendor, "GenuineIntel") &&
      (cpu->family >= 0 || fam >= 0) && (cpu->model >= 0 || mod >= 0))
    return 0;
  nn_perr(p,
          "cpu: vendor=GenuineIntel needs family= and model= (this host's %s does not "
          "describe an Intel CPU to take them from)",
          path);
  return 1;
}

void nn_config_parser_cpu(struct nn_parser *p) {
  struct nn_cpu *cpu = &p->cfg->cpu;
  if (p->cpu_line) {
    nn_perr(p, "cpu: second cpu line (first on line %d)", p->cpu_line);
    return;
  }
  p->cpu_line = p->line;
  struct nn_kv k[] = {{"vendor", NULL}, {"family", NULL}, {"model", NULL}};
  int bad = nn_take_keys(p, "cpu", 1, k, NN_COUNT_OF(k));
  struct nn_cpu c = {.present = 1, .family = -1, .model = -1, .line = p->line};
  if (!k[0].val) {
    nn_perr(p, "cpu: missing vendor=");
    bad++;
  } else if (nn_ascii_caseeq(k[0].val, "AuthenticAMD") ||
             nn_ascii_caseeq(k[0].val, "GenuineIntel")) {
    strcpy(c.vendor,
           nn_ascii_lower((unsigned char)k[0].val[0]) == 'a' ? "AuthenticAMD" : "GenuineIntel");
  } else {
    nn_perr(p, "cpu: unknown vendor '%s' (expected AuthenticAMD or GenuineIntel)",
            nn_quote(p, k[0].val));
    bad++;
  }
  bad += cpu_number(p, "family", k[1].val, &c.family);
  bad += cpu_number(p, "model", k[2].val, &c.model);
  if (!bad && !strcmp(c.vendor, "GenuineIntel")) bad += cpu_intel_complete(p, &c);
  if (!bad) *cpu = c;
}

/* gpus by index; indices are known to be 0..n-1 here. */
int nn_gpus_install(struct nn_parser *p) {
  if (!p->n_gpus) return 0;
  struct nn_gpu *sorted = calloc((size_t)p->n_gpus, sizeof *sorted);
  if (!sorted) return -1;
  for (int i = 0; i < p->n_gpus; i++) sorted[p->gpus[i].index] = p->gpus[i];
  p->cfg->gpus = sorted;
  p->cfg->n_gpus = p->n_gpus;
  return 0;
}
