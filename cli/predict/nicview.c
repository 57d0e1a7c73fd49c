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
  case NN_PATH_PIX:
    return "PIX";
  case NN_PATH_PXB:
    return "PXB";
  case NN_PATH_PHB:
    return "PHB";
  default:
    return "SYS";
  }
}

const char *nn_nicview_kind_name(int kind) {
  static const char *const names[] = {"NCCL's own view", "served file"};
  return kind >= 0 && kind < NN_NICVIEW_KINDS ? names[kind] : "?";
}

int nn_nicview_gdr_level(const char *value) {
  static const struct {
    const char *name;
    int level;
  } levels[] = {{"LOC", 0},
                {"PIX", NN_PATH_PIX},
                {"PXB", NN_PATH_PXB},
                {"PHB", NN_PATH_PHB},
                {"SYS", NN_PATH_SYS}};
  if (!value) return NN_PATH_PXB;
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
    if (!strcasecmp(value, levels[i].name)) return levels[i].level;
  return -1;
}

/* ---- the two views, built as NCCL's search port builds a system ---- */

/* What both views read: the release, the CPU kinds, the GPUs' and NICs' links, the NICs the
 * served file holds. */
struct view_in {
  const struct nn_nccl_release *rel;
  const struct nn_cpu_kind *own_cpu, *cpu;
  int sm;
  const struct nn_pcie_link *gpu_links;
  const float *nic_links;
  const unsigned char *in_file;
};

/* NCCL's system for one view: own (every GPU and NIC under one CPU of numaid -1, a guest
 * without NUMA) or served (each under its node's CPU; a NIC the file leaves out under a CPU of
 * its own). order[k]: the mapping's NIC behind NET k. */
static int view_topo(const struct nn_config *cfg, const struct view_in *in, int own,
                     struct nn_search_topo *t, int *order, char *err, size_t errsz) {
  int flat[NN_MAX_GPUS], nic_numa[NN_MAX_NICS];
  for (int i = 0; i < NN_MAX_GPUS; i++) flat[i] = -1;
  for (int i = 0; i < cfg->n_nics; i++)
    nic_numa[i] = own || !in->in_file[i] ? -1 : cfg->nics[i].numa;
  if (nn_search_topo_build(in->rel, cfg, own ? in->own_cpu : in->cpu, in->sm, in->gpu_links,
                           own ? flat : NULL, t, err, errsz) ||
      nn_search_topo_add_nics(cfg, nic_numa, in->nic_links, NN_NICVIEW_NET_GBPS, t, order, err,
                              errsz))
    return -1;
  return 0;
}

/* Per GPU of the mapping: the NIC NCCL gives it on channel 0 (ncclTopoGetLocalNet), the path
 * between them and GDR under gdr_level. Returns 0, or -1 when the search port cannot say. */
static int view_gpus(const struct nn_config *cfg, const struct view_in *in,
                     const struct nn_search_topo *t, const int *order, int kind, int gdr_level,
                     struct nn_nicview *out) {
  int net[NN_SEARCH_MAX_GPUS], path[NN_SEARCH_MAX_GPUS];
  memset(out, 0, sizeof *out);
  out->kind = kind;
  if (nn_search_gpu_nets(in->rel, t, net, path)) return -1;
  out->n_gpus = cfg->n_gpus;
  for (int k = 0; k < t->n_gpus; k++) {
    int g = t->gpu_index[k];
    struct nn_nicview_gpu *v = &out->gpu[g];
    v->nic = order[net[k]];
    v->path = path[k];
    v->gdr_write = v->path <= gdr_level;
    /* NCCL_NET_GDR_READ unset: sends too from compute capability 8.0 (no NVLink here) */
    v->gdr_read = v->gdr_write && (cfg->gpus[g].sm == 0 || cfg->gpus[g].sm >= 80);
  }
  return 0;
}

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

/* in_file[i]: whether the served file (file's nic lines) holds machine NIC i, by index */
static void served_nics(const struct nn_config *cfg, const struct nn_config *file,
                        unsigned char *in_file) {
  for (int i = 0; i < cfg->n_nics; i++) {
    in_file[i] = 0;
    for (int k = 0; k < file->n_nics; k++) in_file[i] |= file->nics[k].index == cfg->nics[i].index;
  }
}

/* Both views' systems, the per-GPU tables and, with a verdict (its CPU kind known), NCCL's
 * inter-node search on each. */
static void views(const struct nn_config *cfg, const struct view_in *in,
                  const struct nn_topo_verdict *v, int gdr_level, struct nn_nicview_report *r) {
  static struct nn_search_topo own, served; /* the CLI is single-threaded */
  struct nn_nicview_inter *x = &r->inter;
  if (view_topo(cfg, in, 1, &own, x->own_nic, x->why, sizeof x->why) ||
      view_topo(cfg, in, 0, &served, x->served_nic, x->why, sizeof x->why) ||
      view_gpus(cfg, in, &own, x->own_nic, NN_NICVIEW_OWN, gdr_level, &r->own) ||
      view_gpus(cfg, in, &served, x->served_nic, NN_NICVIEW_SERVED, gdr_level, &r->served))
    return;
  if (!v || !v->rel) {
    snprintf(x->why, sizeof x->why, "no prediction: the CPU kind is not known");
    return;
  }
  if (nn_search_predict(in->rel, &own, &x->own) ||
      nn_search_predict(in->rel, &served, &x->served)) {
    snprintf(x->why, sizeof x->why, "the prediction failed");
    return;
  }
  x->ok = 1;
}

void nn_nicview_report(const struct nn_config *job, const struct nn_config *mapping,
                       int version_code, const struct nn_topo_verdict *v,
                       const struct nn_cpu_kind *cpu, const char *sysfs_root,
                       struct nn_nicview_report *r) {
  static struct nn_verdict_facts facts; /* large; the CLI is single-threaded */
  float links[NN_MAX_NICS];
  memset(r, 0, sizeof *r);
  r->cfg = *job;
  memcpy(r->cfg.nics, mapping->nics, sizeof mapping->nics);
  r->cfg.n_nics = mapping->n_nics;
  const struct nn_config *cfg = &r->cfg;
  if (!cfg->n_nics) return;
  served_nics(cfg, job, r->in_file);
  r->gdr_value = getenv("NCCL_NET_GDR_LEVEL");
  r->gdr_from = "the environment";
  if (!r->gdr_value && (r->gdr_value = nn_config_env(cfg, "NCCL_NET_GDR_LEVEL")))
    r->gdr_from = "the mapping's env line";
  r->gdr_level = nn_nicview_gdr_level(r->gdr_value);
  struct view_in in = {.rel = v && v->rel ? v->rel : nn_nccl_release_find(version_code, NULL),
                       .cpu = cpu,
                       .sm = v ? v->sm : 0,
                       .gpu_links = facts.links,
                       .nic_links = links,
                       .in_file = r->in_file};
  nn_topology_gather(cfg, version_code, in.sm, sysfs_root, NULL, 0, &facts);
  in.own_cpu = facts.own_cpu.vendor[0] ? &facts.own_cpu : cpu;
  r->inter.links_sysfs = nic_links(in.rel, cfg, sysfs_root, links, &r->inter.fallback_gbps);
  views(cfg, &in, v, r->gdr_level < 0 ? NN_PATH_PXB : r->gdr_level, r);
  for (int g = 0; g < r->own.n_gpus; g++) {
    r->cross_own += cfg->nics[r->own.gpu[g].nic].numa != cfg->gpus[g].numa;
    r->cross_served += cfg->nics[r->served.gpu[g].nic].numa != cfg->gpus[g].numa;
    r->gdr_own += r->own.gpu[g].gdr_write;
    r->gdr_served += r->served.gpu[g].gdr_write;
  }
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
  if (!r->own.n_gpus) fprintf(out, "              not predicted: %s\n", r->inter.why);
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

int nn_nicview_ring_change(const struct nn_nicview_inter *x) {
  const struct nn_graph_pred *o = &x->own.ring, *s = &x->served.ring;
  float own = (float)o->nchannels * o->bw_inter, served = (float)s->nchannels * s->bw_inter;
  return (served > own) - (served < own);
}

/* "Between the nodes ..." into buf: what the served file does to NCCL's inter-node rings. */
static void inter_summary(const struct nn_config *cfg, const struct nn_nicview_report *r, char *buf,
                          size_t size) {
  const struct nn_nicview_inter *x = &r->inter;
  if (!x->ok) return;
  const struct nn_graph_pred *o = &x->own.ring, *s = &x->served.ring;
  int change = nn_nicview_ring_change(x), left_out = 0;
  for (int i = 0; i < cfg->n_nics; i++) left_out += !r->in_file[i];
  const char *verdict = change < 0   ? "the served file leaves NCCL less to send with"
                        : change > 0 ? "the served file gives NCCL more to send with"
                                     : "the same either way";
  const char *why = change >= 0 ? ""
                    : left_out  ? ": the file holds only the NICs of this process's GPUs' "
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
                  !r->gdr_served && r->gdr_level < NN_PATH_PHB
                    ? " (a served NIC is PHB from its GPUs: NCCL_NET_GDR_LEVEL=PHB allows it)"
                    : "");
  else
    k += snprintf(buf + k, size - (size_t)k,
                  "GPUDirect RDMA: %d GPUs with NCCL's own view, %d with the served file.",
                  r->gdr_own, r->gdr_served);
  if (k > 0 && (size_t)k < size) inter_summary(cfg, r, buf + k, size - (size_t)k);
}
