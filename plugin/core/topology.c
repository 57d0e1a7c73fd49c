/* SPDX-License-Identifier: BSD-3-Clause */
/* topology.c - scope of a communicator and the CPU-link hazard (see topology.h). */
#include "topology.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuinfo.h"
#include "errbuf.h"
#include "printable.h"
#include "nccl_search_topo.h"
#include "sizetext.h"

static int all_gpus_on_one_node(const struct nn_config *cfg) {
  return nn_config_numa_count(cfg) == 1;
}

/* Aligned blocks [k*r, (k+1)*r) each on one NUMA node: where SGLang and torchrun put TP groups. */
static int aligned_blocks_are_local(const struct nn_config *cfg, size_t r) {
  if (r == 0 || (size_t)cfg->n_gpus % r != 0) return 0;
  for (size_t start = 0; start < (size_t)cfg->n_gpus; start += r)
    for (size_t i = start + 1; i < start + r; i++)
      if (cfg->gpus[i].numa != cfg->gpus[start].numa) return 0;
  return 1;
}

int nn_topology_scope(const struct nn_config *cfg, size_t n_ranks, size_t n_nodes) {
  if (!cfg || cfg->n_gpus == 0) return NN_SCOPE_UNKNOWN;
  if (all_gpus_on_one_node(cfg)) return NN_SCOPE_INTRA;
  if (n_nodes == 0 || n_ranks % n_nodes != 0) return NN_SCOPE_UNKNOWN;
  size_t r = n_ranks / n_nodes;
  if (r > (size_t)nn_config_max_gpus_per_numa(cfg)) return NN_SCOPE_CROSS;
  if (aligned_blocks_are_local(cfg, r)) return NN_SCOPE_INTRA;
  return NN_SCOPE_UNKNOWN;
}

void nn_topology_describe_sockets(const struct nn_config *cfg, char *buf, size_t size) {
  size_t len = 0;
  int prev = -1;
  buf[0] = 0;
  for (;;) {
    int node = -1, count = 0;
    for (int i = 0; cfg && i < cfg->n_gpus; i++)
      if (cfg->gpus[i].numa > prev && (node < 0 || cfg->gpus[i].numa < node)) node = cfg->gpus[i].numa;
    if (node < 0) break;
    for (int i = 0; i < cfg->n_gpus; i++) count += cfg->gpus[i].numa == node;
    int n = snprintf(buf + len, size - len, "%sNUMA%d=%d", len ? " " : "", node, count);
    if (n < 0 || (size_t)n >= size - len) break;
    len += (size_t)n;
    prev = node;
  }
  if (!len) snprintf(buf, size, "no GPUs mapped");
}

static int read_cpuinfo(const char *path, struct nn_cpu_kind *out) {
  return nn_cpuinfo_read(path, out->vendor, &out->family, &out->model);
}

int nn_topology_cpu_kind(const struct nn_config *cfg, const char *cpuinfo_path,
                         struct nn_cpu_kind *out, char *err, size_t errsz) {
  memset(out, 0, sizeof *out);
  out->family = out->model = -1;
  if (cfg && cfg->cpu.present) {
    snprintf(out->vendor, sizeof out->vendor, "%s", cfg->cpu.vendor);
    out->family = cfg->cpu.family;
    out->model = cfg->cpu.model;
    if (!strcmp(out->vendor, "GenuineIntel") && (out->family < 0 || out->model < 0)) {
      struct nn_cpu_kind host = {.family = -1, .model = -1};
      if (read_cpuinfo(cpuinfo_path, &host) == 0 && !strcmp(host.vendor, "GenuineIntel")) {
        if (out->family < 0) out->family = host.family;
        if (out->model < 0) out->model = host.model;
      }
    }
    return 0;
  }
  if (read_cpuinfo(cpuinfo_path, out) != 0) {
    nn_errbuf_set(err, errsz, "CPU kind unknown: %s unreadable and no `cpu` line in the mapping",
             cpuinfo_path ? cpuinfo_path : nn_cpuinfo_default());
    return -1;
  }
  out->from_cpuinfo = 1;
  if (strcmp(out->vendor, "AuthenticAMD") && strcmp(out->vendor, "GenuineIntel")) {
    char vendor[64];
    nn_errbuf_set(err, errsz, "CPU vendor '%s' from cpuinfo is not one NCCL models on x86; "
             "declare it with a `cpu vendor=` line", nn_printable(vendor, sizeof vendor, out->vendor, NN_PRINTABLE_CSTR, NULL));
    return -1;
  }
  return 0;
}

int nn_topology_declared_sm(const struct nn_config *cfg) {
  int sm = 0;
  for (int i = 0; cfg && i < cfg->n_gpus; i++) {
    int g = cfg->gpus[i].sm;
    if (g == 0) continue;
    if (sm && g != sm) return -1;
    sm = g;
  }
  return sm;
}

static const char *mode_name(int mode) {
  return mode == NN_TOPO_NUMA ? "numa" : mode == NN_TOPO_OFF ? "off" : "auto";
}

void nn_topology_gather(const struct nn_config *cfg, int version, int runtime_sm, const char *sysfs_root,
                        const char *cpuinfo, int stable, struct nn_verdict_facts *f) {
  char err[256];
  struct nn_config none;
  memset(f, 0, sizeof *f);
  memset(&none, 0, sizeof none);
  const struct nn_nccl_release *rel = nn_nccl_release_find(version, NULL);
  int n = cfg && cfg->n_gpus <= NN_SEARCH_MAX_GPUS ? cfg->n_gpus : 0;
  for (int i = 0; i < n; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    f->numa[i] = -1;
    f->links[i] = (struct nn_pcie_link){0, 0, NN_LINK_ASSUMED};
    if (g->has_bus) {
      f->numa[i] = nn_search_read_sysfs_numa(sysfs_root, &g->bus);
      if (nn_search_read_sysfs_link(rel, sysfs_root, &g->bus, stable, &f->links[i]) == 0) continue;
    }
    if (g->pcie_gen > 0) f->links[i] = (struct nn_pcie_link){g->pcie_gen, g->pcie_width, NN_LINK_CONFIG};
  }
  if (nn_topology_cpu_kind(&none, cpuinfo, &f->own_cpu, err, sizeof err) != 0) f->own_cpu.vendor[0] = 0;
  f->in = (struct nn_verdict_in){.nccl_version = version, .runtime_sm = runtime_sm,
                                 .links = n ? f->links : NULL, .own_numa = n ? f->numa : NULL,
                                 .own_cpu = &f->own_cpu};
}

/* The release row for the verdict; an unknown version gets the newest row, unverified. */
static void pick_release(const struct nn_verdict_in *in, struct nn_topo_verdict *v) {
  int count;
  const struct nn_nccl_release *t = nn_nccl_release_table(&count);
  v->version = in && in->nccl_version > 0 ? in->nccl_version : t[count - 1].last;
  v->rel = nn_nccl_release_find(v->version, &v->version_unverified);
  if (!in || in->nccl_version <= 0) v->version_unverified = 1;
}

/* The narrowest GPU link as NCCL models it, and where the least certain one came from. */
static void gpu_links(const struct nn_config *cfg, const struct nn_verdict_in *in, struct nn_topo_verdict *v) {
  v->gpu_link_gbps = 0;
  v->gpu_link_origin = NN_LINK_SYSFS;
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_pcie_link *l = in && in->links ? &in->links[i] : NULL;
    int origin = l && l->gen > 0 ? l->origin : NN_LINK_ASSUMED;
    float bw = origin == NN_LINK_ASSUMED ? nn_nccl_pcie_gbps(NN_ASSUMED_PCIE_GEN, NN_ASSUMED_PCIE_WIDTH)
                                         : nn_nccl_pcie_gbps(l->gen, l->width);
    if (i == 0 || bw < v->gpu_link_gbps) v->gpu_link_gbps = bw;
    if (origin == NN_LINK_ASSUMED || (origin == NN_LINK_CONFIG && v->gpu_link_origin == NN_LINK_SYSFS))
      v->gpu_link_origin = origin;
  }
}

/* NCCL's search on the served file and on its own view. Returns 0, or -1 (reason in err). */
static int predict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu, const struct nn_verdict_in *in,
                   struct nn_topo_verdict *v, char *err, size_t errsz) {
  struct nn_search_topo t;
  int flat[NN_SEARCH_MAX_GPUS];
  const struct nn_pcie_link *links = in ? in->links : NULL;
  const struct nn_cpu_kind *own_cpu = in && in->own_cpu && in->own_cpu->vendor[0] ? in->own_cpu : cpu;
  if (nn_search_topo_build(v->rel, cfg, cpu, v->sm, links, NULL, &t, err, errsz)) return -1;
  v->pred_gpus = t.n_gpus;
  v->link_gbps = t.n_cpus > 1 ? t.cpu_link_gbps : 0.0;
  if (nn_search_predict(v->rel, &t, &v->served)) { nn_errbuf_set(err, errsz, "prediction failed"); return -1; }
  for (int i = 0; i < cfg->n_gpus && i < NN_SEARCH_MAX_GPUS; i++) flat[i] = -1;
  const int *own = in && in->own_numa ? in->own_numa : flat;
  for (int i = 0; i < cfg->n_gpus && i < NN_SEARCH_MAX_GPUS; i++) v->own_affinity |= own[i] >= 0;
  if (nn_search_topo_build(v->rel, cfg, own_cpu, v->sm, links, own, &t, err, errsz)) return -1;
  if (nn_search_predict(v->rel, &t, &v->own)) { nn_errbuf_set(err, errsz, "prediction failed"); return -1; }
  /* fails whatever is served: even one flat CPU, with no socket link at all, fails */
  struct nn_search_pred flat_pred = v->own;
  if (own != flat) {
    if (nn_search_topo_build(v->rel, cfg, own_cpu, v->sm, links, flat, &t, err, errsz) ||
        nn_search_predict(v->rel, &t, &flat_pred))
      return -1;
  }
  v->fails_regardless = !flat_pred.ring.ok || !flat_pred.tree.ok;
  v->predicted = 1;
  return 0;
}

/* Served is "not worse" when both its searches succeed and neither gives less channels x bandwidth
 * than NCCL's own view, as NCCL's cost model reads them. */
static int not_worse(const struct nn_topo_verdict *v) {
  if (!v->served.ring.ok || !v->served.tree.ok) return 0;
  return nn_search_ring_gbps(&v->served) >= nn_search_ring_gbps(&v->own) &&
         nn_search_tree_gbps(&v->served) >= nn_search_tree_gbps(&v->own);
}

static void graph_text(const struct nn_graph_pred *g, int model_ch, char *buf, size_t size) {
  if (!g->ok) snprintf(buf, size, "search fails (1 x 0.1 GB/s)");
  else if (model_ch < g->nchannels)
    snprintf(buf, size, "%d x %.1f GB/s (cut to %d)", g->nchannels, (double)g->bw_intra, model_ch);
  else snprintf(buf, size, "%d x %.1f GB/s", g->nchannels, (double)g->bw_intra);
}

static void pred_text(const struct nn_search_pred *p, char *buf, size_t size) {
  char r[64], t[64];
  graph_text(&p->ring, p->model_nchannels, r, sizeof r);
  graph_text(&p->tree, p->model_nchannels, t, sizeof t);
  snprintf(buf, size, "ring %s, %d socket crossing%s | tree %s", r, p->ring.crossings,
           p->ring.crossings == 1 ? "" : "s", t);
}

void nn_topology_describe_one(const struct nn_search_pred *p, char *buf, size_t size) {
  pred_text(p, buf, size);
}

void nn_topology_describe_release(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char ver[16];
  nn_nccl_version_format(v->version, ver, sizeof ver);
  int count;
  const struct nn_nccl_release *t = nn_nccl_release_table(&count);
  const char *row = v->rel ? v->rel->name : "?";
  if (v->version_unverified && v->version > t[count - 1].last)
    snprintf(buf, size, "NCCL %s (newer than checked: treated as %s)", ver, row);
  else if (v->version_unverified && v->version < t[0].first)
    snprintf(buf, size, "NCCL %s (older than checked: treated as %s)", ver, row);
  else if (v->version_unverified)
    snprintf(buf, size, "NCCL %s (unverified for %s: table row %s)", ver, ver, row);
  else
    snprintf(buf, size, "NCCL %s", ver);
}

void nn_topology_describe_predictions(const struct nn_topo_verdict *v, const char *indent, char *buf,
                                      size_t size) {
  char a[200], b[200];
  if (!v->predicted) { snprintf(buf, size, "%sno prediction", indent); return; }
  pred_text(&v->served, a, sizeof a);
  pred_text(&v->own, b, sizeof b);
  snprintf(buf, size, "%sserved file (%d CPU node%s):  %s\n%sNCCL's own view:           %s%s", indent,
           v->numa_nodes, v->numa_nodes == 1 ? "" : "s", a, indent, b,
           v->fails_regardless ? "  <- fails whatever file is served" : "");
}

static int cost_cpu(const struct nn_cpu_kind *cpu) {
  if (!cpu) return NN_COST_CPU_X86_OTHER;
  if (!strcmp(cpu->vendor, "AuthenticAMD")) return NN_COST_CPU_X86_AMD;
  if (!strcmp(cpu->vendor, "GenuineIntel")) return NN_COST_CPU_X86_INTEL;
  return NN_COST_CPU_X86_OTHER;
}

int nn_topology_cost_model(const struct nn_topo_verdict *v, int served, const struct nn_cpu_kind *cpu, int ranks,
                           double pci_latency_us, struct nn_cost_model *m, char *err, size_t errsz) {
  if (!v->predicted || !v->rel) {
    nn_errbuf_set(err, errsz, "no prediction of NCCL's search");
    return -1;
  }
  const struct nn_search_pred *pr = served ? &v->served : &v->own;
  struct nn_cost_comm c = {.version_code = v->version, .nranks = ranks > 0 ? ranks : v->pred_gpus, .nnodes = 1,
                           .cc_min = v->sm, .cc_max = v->sm, .cpu = cost_cpu(cpu),
                           .ll128 = v->rel->ll128_pcie_default, .pci_latency_us = pci_latency_us};
  nn_cost_graph_set(&c.ring, pr->ring.nchannels, pr->ring.bw_intra, pr->ring.bw_inter, pr->ring.type_intra, 0);
  nn_cost_graph_set(&c.tree, pr->tree.nchannels, pr->tree.bw_intra, pr->tree.bw_inter, pr->tree.type_intra, 1);
  return nn_cost_model_init(&c, m, err, errsz);
}

#define SLOWER_MAX_LOG2 32   /* 4 GiB, the largest size explain shows */

/* v->slower: NCCL's own choice of all-reduce, served file against own view, at the worst size
 * (the largest of equal ones: bandwidth-bound sizes are where a user feels it). */
static void rate_served(struct nn_topo_verdict *v, const struct nn_cpu_kind *cpu, const struct nn_cpu_kind *own_cpu,
                        double pci_latency_us) {
  struct nn_cost_model ms, mo;
  char err[256];
  if (nn_topology_cost_model(v, 1, cpu, 0, pci_latency_us, &ms, err, sizeof err) ||
      nn_topology_cost_model(v, 0, own_cpu, 0, pci_latency_us, &mo, err, sizeof err))
    return;
  for (int e = 0; e <= SLOWER_MAX_LOG2; e++) {
    struct nn_cost_choice a, b;
    uint64_t bytes = (uint64_t)1 << e;
    if (nn_cost_choose(&ms, NN_COLL_ALLREDUCE, bytes, &a) || nn_cost_choose(&mo, NN_COLL_ALLREDUCE, bytes, &b) ||
        b.time_us <= 0)
      continue;
    double f = (double)a.time_us / (double)b.time_us;
    if (f >= v->slower) { v->slower = f; v->slower_log2 = e; }
  }
}

void nn_topology_describe_slower(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char sz[24], f[32];
  buf[0] = 0;
  if (v->slower <= 0) return;
  if (v->slower < 1.005) {
    snprintf(buf, size, "NCCL's model rates an all-reduce of any size no slower with this file than with its own view");
    return;
  }
  nn_sizetext((uint64_t)1 << v->slower_log2, sz, sizeof sz);
  if (v->slower >= 10) snprintf(f, sizeof f, "%.0fx", v->slower);
  else if (v->slower >= 1.95) snprintf(f, sizeof f, "%.1fx", v->slower);
  else snprintf(f, sizeof f, "%.0f%%", 100 * (v->slower - 1));
  snprintf(buf, size, "NCCL's model makes a%s %s all-reduce %s slower with this file than with its own view",
           sz[0] == '8' ? "n" : "", sz, f);
}

/* mode=numa serving what NCCL's model rates slower: the WARN every front end shows. */
void nn_topology_verdict_warning(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char rel[96], slower[200];
  buf[0] = 0;
  if (v->kind != NN_VERDICT_MODE_NUMA || v->slower < 1.005) return;
  nn_topology_describe_release(v, rel, sizeof rel);
  nn_topology_describe_slower(v, slower, sizeof slower);
  snprintf(buf, size, "topology mode=numa serves a file NCCL's model rates worse (%s): %s; "
           "`topology mode=auto` would withhold it, so keep mode=numa only where `nccl-numa ab` measures it "
           "faster", rel, slower);
}

/* The sentence for mode=auto with two or more NUMA nodes and a prediction. */
static void auto_text(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char rel[96], a[200], b[200], why[200] = "";
  nn_topology_describe_release(v, rel, sizeof rel);
  pred_text(&v->served, a, sizeof a);
  pred_text(&v->own, b, sizeof b);
  if (v->serve) {
    snprintf(buf, size, "topology served (mode=auto, %s): NCCL's search on the served "
             "file (%s) is not worse than on its own view (%s)", rel, a, b);
    return;
  }
  if (!v->served.ring.ok && v->link_gbps < v->floor_gbps && !v->fails_regardless)
    snprintf(why, sizeof why, "; NCCL models the %s socket link at %.0f GB/s, below its %.0f GB/s floor "
             "for compute capability %d.%d%s", v->cpu_vendor, v->link_gbps, v->floor_gbps, v->sm / 10,
             v->sm % 10, v->sm_assumed ? " (assumed)" : "");
  else if (v->fails_regardless)
    snprintf(why, sizeof why, "; NCCL's search fails on its own view too: the GPUs' PCIe link (%.0f GB/s "
             "modelled) is below the %.0f GB/s floor", v->gpu_link_gbps, v->floor_gbps);
  char slower[128];   /* its longest sentence is under 100 characters; the reason fits 1024 */
  nn_topology_describe_slower(v, slower, sizeof slower);
  if (!slower[0]) snprintf(slower, sizeof slower, "NCCL's cost model could not rate the file");
  snprintf(buf, size, "no topology served (mode=auto, %s): NCCL's search on the served "
           "file (%s) would be worse than on its own view (%s)%s. %s; serve it anyway (`topology mode=numa`) "
           "only where `nccl-numa ab` measures it faster", rel, a, b, why, slower);
}

void nn_topology_verdict_text(const struct nn_topo_verdict *v, char *buf, size_t size) {
  switch (v->kind) {
  case NN_VERDICT_NO_GPUS: snprintf(buf, size, "no topology served: the mapping has no gpu lines"); break;
  case NN_VERDICT_SM_DISAGREE:
    snprintf(buf, size, "no topology served: the gpu lines declare different sm= values");
    break;
  case NN_VERDICT_CPU_UNKNOWN:
    snprintf(buf, size, "no topology served: CPU kind unknown (add a `cpu vendor=` line)");
    break;
  case NN_VERDICT_MODE_OFF: snprintf(buf, size, "no topology served: topology mode=off"); break;
  case NN_VERDICT_MODE_NUMA: snprintf(buf, size, "topology served: mode=numa (%d NUMA nodes)", v->numa_nodes); break;
  case NN_VERDICT_ONE_NODE: snprintf(buf, size, "topology served: mode=auto, all GPUs on one NUMA node"); break;
  case NN_VERDICT_UNPREDICTED:
    snprintf(buf, size, "no topology served (mode=%s): cannot predict NCCL's search: %s", mode_name(v->mode),
             v->predict_error);
    break;
  default: auto_text(v, buf, size); break;
  }
}

/* What was decided, as the enum; the facts are already in v. */
static int decide(const struct nn_config *cfg, int declared, int known_cpu, const struct nn_topo_verdict *v) {
  if (!cfg || cfg->n_gpus == 0) return NN_VERDICT_NO_GPUS;
  if (declared < 0) return NN_VERDICT_SM_DISAGREE;
  if (!known_cpu) return NN_VERDICT_CPU_UNKNOWN;
  if (v->mode == NN_TOPO_OFF) return NN_VERDICT_MODE_OFF;
  if (v->mode == NN_TOPO_NUMA) return NN_VERDICT_MODE_NUMA;
  if (v->numa_nodes == 1) return NN_VERDICT_ONE_NODE;
  if (!v->predicted) return NN_VERDICT_UNPREDICTED;
  return not_worse(v) ? NN_VERDICT_NOT_WORSE : NN_VERDICT_WORSE;
}

void nn_topology_verdict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                         const struct nn_verdict_in *in, struct nn_topo_verdict *v) {
  memset(v, 0, sizeof *v);
  v->mode = cfg ? cfg->topo_mode : NN_TOPO_AUTO;
  v->numa_nodes = cfg ? nn_config_numa_count(cfg) : 0;
  int declared = nn_topology_declared_sm(cfg);
  v->sm = declared > 0 ? declared : in && in->runtime_sm > 0 ? in->runtime_sm : 0;
  if (v->sm <= 0) { v->sm = 100; v->sm_assumed = 1; }
  pick_release(in, v);
  v->floor_gbps = nn_nccl_search_floor(v->rel, v->sm);
  int known_cpu = cpu && cpu->vendor[0];
  if (known_cpu) snprintf(v->cpu_vendor, sizeof v->cpu_vendor, "%s", cpu->vendor);
  /* mode=numa on two nodes is predicted too: its WARN carries NCCL's modelled factor */
  int needed = !(in && in->decide_only) || (v->mode != NN_TOPO_OFF && v->numa_nodes >= 2);
  const struct nn_cpu_kind *own_cpu = in && in->own_cpu && in->own_cpu->vendor[0] ? in->own_cpu : cpu;
  if (cfg && cfg->n_gpus > 0 && declared >= 0 && known_cpu && needed) {
    gpu_links(cfg, in, v);
    if (predict(cfg, cpu, in, v, v->predict_error, sizeof v->predict_error) == 0 && v->numa_nodes >= 2)
      rate_served(v, cpu, own_cpu, cfg->pci_latency_us);
  }
  v->kind = decide(cfg, declared, known_cpu, v);
  v->serve = v->kind == NN_VERDICT_MODE_NUMA || v->kind == NN_VERDICT_ONE_NODE || v->kind == NN_VERDICT_NOT_WORSE;
  nn_topology_verdict_text(v, v->reason, sizeof v->reason);
  nn_topology_verdict_warning(v, v->warning, sizeof v->warning);
}
