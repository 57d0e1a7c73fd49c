/* SPDX-License-Identifier: BSD-3-Clause */
/* nicview.c - the NIC NCCL gives each GPU, the path and GDR; see nicview.h. */
#include "cli/predict/nicview.h"

#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "nccl_model.h"
#include "nccl_search_topo.h"

const char *nn_nicview_path_name(int path) {
  switch (path) {
  case NN_NICVIEW_PIX:
    return "PIX";
  case NN_NICVIEW_PXB:
    return "PXB";
  case NN_NICVIEW_PHB:
    return "PHB";
  default:
    return "SYS";
  }
}

const char *nn_nicview_kind_name(int kind) {
  static const char *const names[] = {"NCCL's own view", "served file without nic lines",
                                      "served file"};
  return kind >= 0 && kind < NN_NICVIEW_KINDS ? names[kind] : "?";
}

int nn_nicview_gdr_level(const char *value) {
  static const struct {
    const char *name;
    int level;
  } levels[] = {{"LOC", 0},
                {"PIX", NN_NICVIEW_PIX},
                {"PXB", NN_NICVIEW_PXB},
                {"PHB", NN_NICVIEW_PHB},
                {"SYS", NN_NICVIEW_SYS}};
  if (!value) return NN_NICVIEW_PXB;
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
    if (!strcasecmp(value, levels[i].name)) return levels[i].level;
  return -1;
}

/* The CPU node a device hangs under in the view: one key per NCCL CPU node. */
#define NN_NICVIEW_CPU_NONE (-1)     /* NCCL's numaid -1 node of the own view */
#define NN_NICVIEW_CPU_NIC_ONLY (-2) /* the NICs' numaid -1 node next to served GPUs */

static int gpu_cpu(const struct nn_config *cfg, int kind, int g) {
  return kind == NN_NICVIEW_OWN ? NN_NICVIEW_CPU_NONE : cfg->gpus[g].numa;
}

/* The served NICs: NULL all; else in_file[n] = 0 for one the file leaves out (NCCL hangs it
 * under a CPU of its own, as for a file without nic lines). */
static const unsigned char *g_in_file;

static int nic_cpu(const struct nn_config *cfg, int kind, int n) {
  if (kind == NN_NICVIEW_OWN) return NN_NICVIEW_CPU_NONE;
  if (kind == NN_NICVIEW_GPUS || (g_in_file && !g_in_file[n])) return NN_NICVIEW_CPU_NIC_ONLY;
  return cfg->nics[n].numa;
}

static int path_of(const struct nn_config *cfg, int kind, int g, int n) {
  return gpu_cpu(cfg, kind, g) == nic_cpu(cfg, kind, n) ? NN_NICVIEW_PHB : NN_NICVIEW_SYS;
}

/* NVML numbers GPUs in PCI bus order: the GPU's place among the job's GPUs by bus id. */
static int nvml_index(const struct nn_config *cfg, int g) {
  const struct nn_busid *b = &cfg->gpus[g].bus;
  uint32_t key =
    (uint32_t)b->domain << 16 | (uint32_t)b->bus << 8 | (uint32_t)b->dev << 3 | b->func;
  int before = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_busid *o = &cfg->gpus[i].bus;
    uint32_t k =
      (uint32_t)o->domain << 16 | (uint32_t)o->bus << 8 | (uint32_t)o->dev << 3 | o->func;
    before += k < key;
  }
  return before;
}

static int mirror_bits(int val, int pow2) {
  int mirror = 0;
  for (int b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1)
    if (val & b) mirror |= mb;
  return mirror;
}

/* ncclTopoGetLocal: the NICs of the shortest path from GPU g (all NIC links alike), in NIC order.
 */
static int local_nics(const struct nn_config *cfg, int kind, int g, int *out) {
  int best = NN_NICVIEW_SYS + 1, n = 0;
  for (int i = 0; i < cfg->n_nics; i++) {
    int p = path_of(cfg, kind, g, i);
    if (p < best) {
      best = p;
      n = 0;
    }
    if (p == best) out[n++] = i;
  }
  return n;
}

/* ... and the GPUs of the shortest path from NIC nic. */
static int local_gpu_count(const struct nn_config *cfg, int kind, int nic) {
  int best = NN_NICVIEW_SYS + 1, n = 0;
  for (int g = 0; g < cfg->n_gpus; g++) {
    int p = path_of(cfg, kind, g, nic);
    if (p < best) {
      best = p;
      n = 0;
    }
    n += p == best;
  }
  return n;
}

/* ncclTopoGetLocalNet, channel 0: the start NIC is the GPU's NVML index (2.30.7+: modulo the
 * GPUs sharing the first local NIC), mirrored when the local NIC count is a power of two. */
static int nic_of(const struct nn_config *cfg, int kind, int version_code, int g) {
  int locals[NN_MAX_NICS];
  int n = local_nics(cfg, kind, g, locals);
  if (n <= 0) return 0; /* no NIC: not called (n_nics > 0) */
  int net = nvml_index(cfg, g);
  const struct nn_nccl_release *r = nn_nccl_release_find(version_code, NULL);
  int sharing = local_gpu_count(cfg, kind, locals[0]);
  if (r && r->local_net_mod_gpus && sharing > 0) net %= sharing;
  if ((n & (n - 1)) == 0) net = mirror_bits(net, n);
  return locals[net % n];
}

void nn_nicview_compute(const struct nn_config *cfg, const unsigned char *in_file, int kind,
                        int version_code, int gdr_level, struct nn_nicview *out) {
  memset(out, 0, sizeof *out);
  g_in_file = in_file;
  out->kind = kind;
  if (!cfg->n_nics) return;
  out->n_gpus = cfg->n_gpus;
  for (int g = 0; g < cfg->n_gpus; g++) {
    struct nn_nicview_gpu *v = &out->gpu[g];
    v->nic = nic_of(cfg, kind, version_code, g);
    v->path = path_of(cfg, kind, g, v->nic);
    v->gdr_write = v->path <= gdr_level;
    /* NCCL_NET_GDR_READ unset: sends too from compute capability 8.0 (no NVLink here) */
    v->gdr_read = v->gdr_write && (cfg->gpus[g].sm == 0 || cfg->gpus[g].sm >= 80);
  }
  g_in_file = NULL;
}

/* ---- explain's lines ---- */

/* ---- NCCL's inter-node search ---- */

/* Each NIC's link as NCCL reads it: sysfs's maximum where this machine has the NIC, else the
 * fallback NCCL models (gen3 x16). */
static int nic_links(const struct nn_nccl_release *rel, const struct nn_config *cfg,
                     const char *sysfs_root, float *gbps, float *fallback) {
  int from_sysfs = 0;
  *fallback = nn_nccl_pcie_gbps(0, 0);
  for (int i = 0; i < cfg->n_nics; i++) {
    struct nn_pcie_link l;
    gbps[i] = *fallback;
    if (cfg->nics[i].has_bus &&
        nn_search_read_sysfs_link(rel, sysfs_root, &cfg->nics[i].bus, 1, &l) == 0) {
      gbps[i] = nn_nccl_pcie_gbps(l.gen, l.width);
      from_sysfs++;
    }
  }
  return from_sysfs;
}

/* One view: GPUs and NICs under one CPU of numaid -1 (own), or each under its node (served). */
static int inter_view(const struct nn_config *cfg, const struct nn_topo_verdict *v,
                      const struct nn_cpu_kind *cpu, const struct nn_verdict_facts *facts,
                      const float *links, const unsigned char *in_file, int own,
                      struct nn_search_pred *out, int *order, char *err, size_t errsz) {
  int flat[NN_MAX_GPUS > NN_MAX_NICS ? NN_MAX_GPUS : NN_MAX_NICS], nic_numa[NN_MAX_NICS];
  for (size_t i = 0; i < sizeof flat / sizeof flat[0]; i++) flat[i] = -1;
  /* served: a NIC the file leaves out goes under a CPU of its own (numaid -1, no GPU's) */
  for (int i = 0; i < cfg->n_nics; i++) nic_numa[i] = own || !in_file[i] ? -1 : cfg->nics[i].numa;
  struct nn_search_topo t;
  if (nn_search_topo_build(v->rel, cfg, cpu, v->sm, facts->links, own ? flat : NULL, &t, err,
                           errsz) ||
      nn_search_topo_add_nics(cfg, nic_numa, links, NN_NICVIEW_NET_GBPS, &t, order, err, errsz))
    return -1;
  if (nn_search_predict(v->rel, &t, out)) {
    snprintf(err, errsz, "the prediction failed");
    return -1;
  }
  return 0;
}

static void inter_report(const struct nn_config *cfg, const unsigned char *in_file,
                         int version_code, const struct nn_topo_verdict *v,
                         const struct nn_cpu_kind *cpu, const char *sysfs_root,
                         struct nn_nicview_inter *x) {
  static struct nn_verdict_facts facts; /* large; the CLI is single-threaded */
  float links[NN_MAX_NICS];
  if (!v || !v->rel) {
    snprintf(x->why, sizeof x->why, "no prediction: the CPU kind is not known");
    return;
  }
  nn_topology_gather(cfg, version_code, v->sm, sysfs_root, NULL, 0, &facts);
  x->links_sysfs = nic_links(v->rel, cfg, sysfs_root, links, &x->fallback_gbps);
  const struct nn_cpu_kind *own_cpu = facts.own_cpu.vendor[0] ? &facts.own_cpu : cpu;
  if (inter_view(cfg, v, own_cpu, &facts, links, in_file, 1, &x->own, x->own_nic, x->why,
                 sizeof x->why) ||
      inter_view(cfg, v, cpu, &facts, links, in_file, 0, &x->served, x->served_nic, x->why,
                 sizeof x->why))
    return;
  x->ok = 1;
}

/* in_file[i]: whether the served file (file's nic lines) holds machine NIC i, by index */
static void served_nics(const struct nn_config *cfg, const struct nn_config *file,
                        unsigned char *in_file) {
  for (int i = 0; i < cfg->n_nics; i++) {
    in_file[i] = 0;
    for (int k = 0; k < file->n_nics; k++) in_file[i] |= file->nics[k].index == cfg->nics[i].index;
  }
}

void nn_nicview_report(const struct nn_config *cfg, const struct nn_config *file, int version_code,
                       const struct nn_topo_verdict *v, const struct nn_cpu_kind *cpu,
                       const char *sysfs_root, struct nn_nicview_report *r) {
  memset(r, 0, sizeof *r);
  served_nics(cfg, file, r->in_file);
  r->gdr_value = getenv("NCCL_NET_GDR_LEVEL");
  r->gdr_from = "the environment";
  if (!r->gdr_value && (r->gdr_value = nn_config_env(cfg, "NCCL_NET_GDR_LEVEL")))
    r->gdr_from = "the mapping's env line";
  r->gdr_level = nn_nicview_gdr_level(r->gdr_value);
  int level = r->gdr_level < 0 ? NN_NICVIEW_PXB : r->gdr_level;
  nn_nicview_compute(cfg, NULL, NN_NICVIEW_OWN, version_code, level, &r->own);
  nn_nicview_compute(cfg, r->in_file, NN_NICVIEW_SERVED, version_code, level, &r->served);
  for (int g = 0; g < r->own.n_gpus; g++) {
    r->cross_own += cfg->nics[r->own.gpu[g].nic].numa != cfg->gpus[g].numa;
    r->cross_served += cfg->nics[r->served.gpu[g].nic].numa != cfg->gpus[g].numa;
    r->gdr_own += r->own.gpu[g].gdr_write;
    r->gdr_served += r->served.gpu[g].gdr_write;
  }
  if (cfg->n_nics) inter_report(cfg, r->in_file, version_code, v, cpu, sysfs_root, &r->inter);
}

static void nic_cell(const struct nn_config *cfg, const struct nn_nicview_gpu *v, char *buf,
                     size_t size) {
  const struct nn_nic *n = &cfg->nics[v->nic];
  char name[24];
  if (n->name[0]) snprintf(name, sizeof name, "%.20s", n->name);
  else snprintf(name, sizeof name, "nic %d", n->index);
  snprintf(buf, size, "%-10s (numa %d) %s GDR %s", name, n->numa, nn_nicview_path_name(v->path),
           !v->gdr_write ? "off"
           : v->gdr_read ? "on"
                         : "recv");
}

static void graph_line(FILE *out, const char *view, const char *what, const struct nn_graph_pred *g,
                       const struct nn_config *cfg, const int *nic) {
  fprintf(out, "              %-16s %s %2d ch %5.1f / %5.1f GB/s  %s / %s ", view, what,
          g->nchannels, g->bw_inter, g->bw_intra, nn_nicview_path_name(g->type_inter),
          nn_nicview_path_name(g->type_intra));
  for (int c = 0; c < g->nchannels && c < NN_SEARCH_MAX_CHANNELS; c++) {
    const struct nn_nic *a = &cfg->nics[nic[g->nets[2 * c]]],
                        *b = &cfg->nics[nic[g->nets[2 * c + 1]]];
    if (a->name[0] && b->name[0]) fprintf(out, " %.20s>%.20s", a->name, b->name);
    else fprintf(out, " %d>%d", a->index, b->index);
  }
  fputc('\n', out);
}

static void inter_print(FILE *out, const struct nn_config *cfg, const char *release,
                        const struct nn_nicview_inter *x) {
  if (!x->ok) {
    fprintf(out, "inter-node:   ring and tree between the nodes: %s\n", x->why);
    return;
  }
  fprintf(out,
          "inter-node:   NCCL %s's search for several nodes: ring and tree channels, GB/s per\n"
          "              channel between the nodes / within the node, path to the NICs / within,\n"
          "              and the NIC each channel enters > leaves by\n",
          release);
  graph_line(out, nn_nicview_kind_name(NN_NICVIEW_OWN), "ring", &x->own.ring, cfg, x->own_nic);
  graph_line(out, "", "tree", &x->own.tree, cfg, x->own_nic);
  graph_line(out, nn_nicview_kind_name(NN_NICVIEW_SERVED), "ring", &x->served.ring, cfg,
             x->served_nic);
  graph_line(out, "", "tree", &x->served.tree, cfg, x->served_nic);
  fprintf(out,
          "              (NIC links: %d from sysfs, %d NCCL's %.0f GB/s when sysfs has none; NIC "
          "ports %.0f Gb/s assumed)\n",
          x->links_sysfs, cfg->n_nics - x->links_sysfs, x->fallback_gbps, NN_NICVIEW_NET_GBPS * 8);
}

void nn_nicview_print(FILE *out, const struct nn_config *cfg, const char *release,
                      const struct nn_nicview_report *r) {
  if (!cfg->n_nics) {
    fprintf(
      out,
      "nics:         the mapping has no nic lines: in a guest NCCL hangs each NIC under a CPU of\n"
      "              its own, SYS from every GPU of the served file (nic lines: "
      "docs/user/mapping.md)\n");
    return;
  }
  char level[96];
  if (r->gdr_level < 0)
    snprintf(level, sizeof level, "NCCL_NET_GDR_LEVEL=%.16s is not a level name: PXB assumed",
             r->gdr_value);
  else if (r->gdr_value)
    snprintf(level, sizeof level, "NCCL_NET_GDR_LEVEL=%.8s from %s", r->gdr_value, r->gdr_from);
  else snprintf(level, sizeof level, "NCCL_NET_GDR_LEVEL unset: PXB");
  fprintf(
    out,
    "nics:         per GPU, the NIC NCCL %s gives it (channel 0), the path and GPUDirect RDMA\n"
    "              (%s; GDR assumed supported by GPUs and NICs)\n",
    release, level);
  fprintf(out, "              %-4s %-4s  %-36s  %s\n", "GPU", "numa",
          nn_nicview_kind_name(NN_NICVIEW_OWN), nn_nicview_kind_name(NN_NICVIEW_SERVED));
  for (int g = 0; g < r->own.n_gpus; g++) {
    char a[64], b[64];
    nic_cell(cfg, &r->own.gpu[g], a, sizeof a);
    nic_cell(cfg, &r->served.gpu[g], b, sizeof b);
    fprintf(out, "              %-4d %-4d  %-36s  %s\n", g, cfg->gpus[g].numa, a, b);
  }
  fprintf(out, "              (numa: the host NUMA node of the `nic` line; NCCL's own view reads "
               "every GPU and\n"
               "              NIC on one CPU; a served file without nic lines: every NIC SYS from "
               "every GPU)\n");
  inter_print(out, cfg, release, &r->inter);
}

/* "Between the nodes ..." into buf: what the served file does to NCCL's inter-node rings. */
static void inter_summary(const struct nn_config *cfg, const struct nn_nicview_report *r, char *buf,
                          size_t size) {
  const struct nn_nicview_inter *x = &r->inter;
  if (!x->ok) return;
  const struct nn_graph_pred *o = &x->own.ring, *s = &x->served.ring;
  float own = (float)o->nchannels * o->bw_inter, served = (float)s->nchannels * s->bw_inter;
  int left_out = 0;
  for (int i = 0; i < cfg->n_nics; i++) left_out += !r->in_file[i];
  const char *verdict = served < own   ? "the served file leaves NCCL less to send with"
                        : served > own ? "the served file gives NCCL more to send with"
                                       : "the same either way";
  const char *why = served >= own ? ""
                    : left_out    ? ": the file holds only the NICs of this process's GPUs' "
                                    "sockets, and NCCL puts the others a socket away from "
                                    "every GPU"
                                  : ": with NICs on their sockets a channel through both "
                                    "sockets' GPUs leaves a socket away from a NIC";
  snprintf(buf, size,
           " Between the nodes NCCL's model builds its ring with %d channel%s x %.1f GB/s on "
           "its own view, %d x %.1f GB/s on the served file (%s%s).",
           o->nchannels, o->nchannels == 1 ? "" : "s", o->bw_inter, s->nchannels, s->bw_inter,
           verdict, why);
}

void nn_nicview_summary(const struct nn_config *cfg, const struct nn_nicview_report *r, char *buf,
                        size_t size) {
  buf[0] = 0;
  if (!cfg->n_nics) return;
  int n = r->own.n_gpus;
  int k = snprintf(buf, size,
                   "NICs: NCCL's own view gives %d of %d GPUs a NIC of the other socket; the "
                   "served file gives %d of %d. ",
                   r->cross_own, n, r->cross_served, n);
  if (k < 0 || (size_t)k >= size) return;
  if (r->gdr_served == r->gdr_own)
    k += snprintf(buf + k, size - (size_t)k, "GPUDirect RDMA is %s for %d GPUs either way%s.",
                  r->gdr_served ? "on" : "off", r->gdr_served ? r->gdr_served : n,
                  !r->gdr_served && r->gdr_level < NN_NICVIEW_PHB
                    ? " (a served NIC is PHB from its GPUs: NCCL_NET_GDR_LEVEL=PHB allows it)"
                    : "");
  else
    k += snprintf(buf + k, size - (size_t)k,
                  "GPUDirect RDMA: %d GPUs with NCCL's own view, %d with the served file.",
                  r->gdr_own, r->gdr_served);
  if (k > 0 && (size_t)k < size) inter_summary(cfg, r, buf + k, size - (size_t)k);
}
