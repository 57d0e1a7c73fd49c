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
      if (cfg->gpus[i].numa > prev && (node < 0 || cfg->gpus[i].numa < node))
        node = cfg->gpus[i].numa;
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
    nn_errbuf_set(err, errsz,
                  "CPU vendor '%s' from cpuinfo is not one NCCL models on x86; "
                  "declare it with a `cpu vendor=` line",
                  nn_printable(vendor, sizeof vendor, out->vendor, NN_PRINTABLE_CSTR, NULL));
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

/* Whether every GPU of the mapping is a PCI device of this machine (sysfs under sysfs_root). */
static int has_mapping_gpus(const struct nn_config *cfg, const char *sysfs_root) {
  for (int i = 0; i < cfg->n_gpus; i++)
    if (!cfg->gpus[i].has_bus || !nn_search_sysfs_has_device(sysfs_root, &cfg->gpus[i].bus))
      return 0;
  return cfg->n_gpus > 0;
}

/* NCCL's own view runs on the machine the mapping describes: a cpuinfo named (cpuinfo, or a
 * default the CLI set: --cpuinfo, NCCL_NUMA_CPUINFO), else this one's when it has the mapping's
 * GPUs, else the mapping's `cpu` line (explain on a workstation), else this one's. */
static void own_cpu_of(const struct nn_config *cfg, const char *sysfs_root, const char *cpuinfo,
                       int flags, struct nn_verdict_facts *f) {
  char err[256];
  struct nn_config none;
  memset(&none, 0, sizeof none);
  int named = cpuinfo || nn_cpuinfo_default_named();
  int here = named || (flags & NN_GATHER_HERE) || (cfg && has_mapping_gpus(cfg, sysfs_root));
  if (!here && cfg && cfg->cpu.present &&
      nn_topology_cpu_kind(cfg, cpuinfo, &f->own_cpu, err, sizeof err) == 0) {
    f->in.own_cpu_source = NN_OWN_CPU_MAPPING;
    return;
  }
  f->in.own_cpu_source = NN_OWN_CPU_CPUINFO;
  if (nn_topology_cpu_kind(&none, cpuinfo, &f->own_cpu, err, sizeof err) == 0) return;
  f->own_cpu.vendor[0] = 0;
  f->in.own_cpu_source = NN_OWN_CPU_SERVED;
}

void nn_topology_gather(const struct nn_config *cfg, int version, int runtime_sm,
                        const char *sysfs_root, const char *cpuinfo, int flags,
                        struct nn_verdict_facts *f) {
  int stable = flags & NN_GATHER_STABLE;
  memset(f, 0, sizeof *f);
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
    if (g->pcie_gen > 0)
      f->links[i] = (struct nn_pcie_link){g->pcie_gen, g->pcie_width, NN_LINK_CONFIG};
  }
  own_cpu_of(cfg, sysfs_root, cpuinfo, flags, f);
  f->in.nccl_version = version;
  f->in.runtime_sm = runtime_sm;
  f->in.links = n ? f->links : NULL;
  f->in.own_numa = n ? f->numa : NULL;
  f->in.own_cpu = &f->own_cpu;
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
static void gpu_links(const struct nn_config *cfg, const struct nn_verdict_in *in,
                      struct nn_topo_verdict *v) {
  v->gpu_link_gbps = 0;
  v->gpu_link_origin = NN_LINK_SYSFS;
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_pcie_link *l = in && in->links ? &in->links[i] : NULL;
    int origin = l && l->gen > 0 ? l->origin : NN_LINK_ASSUMED;
    float bw = origin == NN_LINK_ASSUMED
                 ? nn_nccl_pcie_gbps(NN_ASSUMED_PCIE_GEN, NN_ASSUMED_PCIE_WIDTH)
                 : nn_nccl_pcie_gbps(l->gen, l->width);
    if (i == 0 || bw < v->gpu_link_gbps) v->gpu_link_gbps = bw;
    if (origin == NN_LINK_ASSUMED ||
        (origin == NN_LINK_CONFIG && v->gpu_link_origin == NN_LINK_SYSFS))
      v->gpu_link_origin = origin;
  }
}

/* NCCL's search on the system of cfg with the NUMA nodes `numa` (NULL: the mapping's) and `cpu`. */
static int search(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                  const struct nn_verdict_in *in, const int *numa, struct nn_topo_verdict *v,
                  struct nn_search_pred *out, char *err, size_t errsz) {
  struct nn_search_topo t;
  if (nn_search_topo_build(v->rel, cfg, cpu, v->sm, in ? in->links : NULL, numa, &t, err, errsz))
    return -1;
  if (nn_search_predict(v->rel, &t, out)) {
    nn_errbuf_set(err, errsz, "prediction failed");
    return -1;
  }
  if (!numa) {
    v->pred_gpus = t.n_gpus;
    v->link_gbps = t.n_cpus > 1 ? t.cpu_link_gbps : 0.0;
  }
  return 0;
}

static int pred_ok(const struct nn_search_pred *p);
static int compare_bw(const struct nn_search_pred *a, const struct nn_search_pred *b);

/* NCCL's search on the NUMA file, the flat file and its own view. Returns 0, or -1 (reason in err).
 */
static int predict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                   const struct nn_verdict_in *in, struct nn_topo_verdict *v, char *err,
                   size_t errsz) {
  int flat[NN_SEARCH_MAX_GPUS];
  const struct nn_cpu_kind *own_cpu =
    in && in->own_cpu && in->own_cpu->vendor[0] ? in->own_cpu : cpu;
  for (int i = 0; i < NN_SEARCH_MAX_GPUS; i++) flat[i] = -1;
  const int *own = in && in->own_numa ? in->own_numa : flat;
  for (int i = 0; i < cfg->n_gpus && i < NN_SEARCH_MAX_GPUS; i++) v->own_affinity |= own[i] >= 0;
  if (search(cfg, cpu, in, NULL, v, &v->numa.pred, err, errsz) ||
      search(cfg, cpu, in, flat, v, &v->flat.pred, err, errsz) ||
      search(cfg, own_cpu, in, own, v, &v->own, err, errsz))
    return -1;
  /* fails whatever is served: even one flat CPU, with no socket link at all, fails */
  struct nn_search_pred flat_own = v->flat.pred;
  if (own_cpu != cpu && search(cfg, own_cpu, in, flat, v, &flat_own, err, errsz)) return -1;
  v->fails_regardless = !flat_own.ring.ok || !flat_own.tree.ok;
  /* what flattening alone gains on NCCL's own CPU: its own view's NUMA nodes cost something */
  v->flat_gains = compare_bw(&flat_own, &v->own) > 0 || (!pred_ok(&v->own) && pred_ok(&flat_own));
  v->served = v->numa.pred;
  v->predicted = 1;
  return 0;
}

static int pred_ok(const struct nn_search_pred *p) { return p->ring.ok && p->tree.ok; }

/* Ring, then tree bandwidth as NCCL's cost model reads them: >0 when a beats b, <0 when b beats a.
 */
static int compare_bw(const struct nn_search_pred *a, const struct nn_search_pred *b) {
  float ra = nn_search_ring_gbps(a), rb = nn_search_ring_gbps(b);
  if (ra != rb) return ra > rb ? 1 : -1;
  float ta = nn_search_tree_gbps(a), tb = nn_search_tree_gbps(b);
  return ta > tb ? 1 : ta < tb ? -1 : 0;
}

/* A file NCCL's model rates no worse than its own view: searches succeed, no less bandwidth, no
 * size slower. */
static int no_worse(const struct nn_topo_verdict *v, const struct nn_file_rating *r) {
  return pred_ok(&r->pred) && nn_search_ring_gbps(&r->pred) >= nn_search_ring_gbps(&v->own) &&
         nn_search_tree_gbps(&r->pred) >= nn_search_tree_gbps(&v->own) && r->slower > 0 &&
         r->slower < 1.005;
}

/* The better of two eligible files: bandwidth, then sizes (flat only when faster somewhere and
 * slower nowhere than the NUMA file, which pins per node on a tie). */
static int flat_beats_numa(const struct nn_topo_verdict *v) {
  int bw = compare_bw(&v->flat.pred, &v->numa.pred);
  if (bw) return bw > 0;
  return v->flat.faster && !v->numa.faster && v->flat.slower <= v->numa.slower;
}

/* Which file mode=auto serves, from the ratings. */
static int choose_file(const struct nn_topo_verdict *v) {
  /* the flat file is NCCL's own view of a guest without NUMA nodes: served only where flattening
   * gains (its own view has NUMA nodes that cost), never for its CPU kind alone */
  int numa = no_worse(v, &v->numa), flat = no_worse(v, &v->flat) && v->flat_gains;
  if (numa && flat) return flat_beats_numa(v) ? NN_FILE_FLAT : NN_FILE_NUMA;
  return numa ? NN_FILE_NUMA : flat ? NN_FILE_FLAT : NN_FILE_NONE;
}

static int cost_cpu(const struct nn_cpu_kind *cpu) {
  if (!cpu) return NN_COST_CPU_X86_OTHER;
  if (!strcmp(cpu->vendor, "AuthenticAMD")) return NN_COST_CPU_X86_AMD;
  if (!strcmp(cpu->vendor, "GenuineIntel")) return NN_COST_CPU_X86_INTEL;
  return NN_COST_CPU_X86_OTHER;
}

/* NCCL's cost model for prediction `pr` on `cpu`. */
static int cost_model_of(const struct nn_topo_verdict *v, const struct nn_search_pred *pr,
                         const struct nn_cpu_kind *cpu, int ranks, double pci_latency_us,
                         struct nn_cost_model *m, char *err, size_t errsz) {
  struct nn_cost_comm c = {.version_code = v->version,
                           .nranks = ranks > 0 ? ranks : v->pred_gpus,
                           .nnodes = 1,
                           .cc_min = v->sm,
                           .cc_max = v->sm,
                           .cpu = cost_cpu(cpu),
                           .ll128 = v->rel->ll128_pcie_default,
                           .pci_latency_us = pci_latency_us};
  nn_cost_graph_set(&c.ring, pr->ring.nchannels, pr->ring.bw_intra, pr->ring.bw_inter,
                    pr->ring.type_intra, 0);
  nn_cost_graph_set(&c.tree, pr->tree.nchannels, pr->tree.bw_intra, pr->tree.bw_inter,
                    pr->tree.type_intra, 1);
  return nn_cost_model_init(&c, m, err, errsz);
}

int nn_topology_cost_model(const struct nn_topo_verdict *v, int served,
                           const struct nn_cpu_kind *cpu, int ranks, double pci_latency_us,
                           struct nn_cost_model *m, char *err, size_t errsz) {
  if (!v->predicted || !v->rel) {
    nn_errbuf_set(err, errsz, "no prediction of NCCL's search");
    return -1;
  }
  return cost_model_of(v, served ? &v->served : &v->own, cpu, ranks, pci_latency_us, m, err, errsz);
}

#define SLOWER_MAX_LOG2 32 /* 4 GiB, the largest size explain shows */

/* r->slower: NCCL's own choice of all-reduce, the file against its own view, at the worst size
 * (the largest of equal ones: bandwidth-bound sizes are where a user feels it); r->faster. */
static void rate(const struct nn_topo_verdict *v, struct nn_file_rating *r,
                 const struct nn_cpu_kind *cpu, const struct nn_cost_model *mo,
                 double pci_latency_us) {
  struct nn_cost_model ms;
  char err[256];
  if (cost_model_of(v, &r->pred, cpu, 0, pci_latency_us, &ms, err, sizeof err)) return;
  for (int e = 0; e <= SLOWER_MAX_LOG2; e++) {
    struct nn_cost_choice a, b;
    uint64_t bytes = (uint64_t)1 << e;
    if (nn_cost_choose(&ms, NN_COLL_ALLREDUCE, bytes, &a) ||
        nn_cost_choose(mo, NN_COLL_ALLREDUCE, bytes, &b) || b.time_us <= 0)
      continue;
    double f = (double)a.time_us / (double)b.time_us;
    if (f >= r->slower) {
      r->slower = f;
      r->slower_log2 = e;
    }
    r->faster |= f < 0.995;
  }
}

/* Both files rated against NCCL's own view. */
static void rate_files(struct nn_topo_verdict *v, const struct nn_cpu_kind *cpu,
                       const struct nn_cpu_kind *own_cpu, double pci_latency_us) {
  struct nn_cost_model mo;
  char err[256];
  if (cost_model_of(v, &v->own, own_cpu, 0, pci_latency_us, &mo, err, sizeof err)) return;
  rate(v, &v->numa, cpu, &mo, pci_latency_us);
  rate(v, &v->flat, cpu, &mo, pci_latency_us);
}

/* The flat file's CPUs: every node the GPUs sit on, from its `numa` line or sysfs. Returns 0, 1
 * when some node's are unknown (the file then pins nothing rather than one node's CPUs), -1 when
 * the list is too long. */
static int flat_cpus(const struct nn_config *cfg, const char *sysfs_root, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= cfg->gpus[j].numa == cfg->gpus[i].numa;
    if (seen) continue;
    char one[NN_MAX_LINE_BYTES] = "";
    const struct nn_numa *nl = nn_config_find_numa(cfg, cfg->gpus[i].numa);
    if (nl && nl->cpus) snprintf(one, sizeof one, "%s", nl->cpus);
    else if (nn_search_read_sysfs_cpulist(sysfs_root, cfg->gpus[i].numa, one, sizeof one)) return 1;
    int w = snprintf(buf + len, size - len, "%s%s", len ? "," : "", one);
    if (w < 0 || (size_t)w >= size - len) return -1;
    len += (size_t)w;
  }
  return len ? 0 : 1;
}

const struct nn_config *nn_topology_served_view(const struct nn_config *cfg,
                                                const struct nn_topo_verdict *v,
                                                const char *sysfs_root, struct nn_flat_view *f,
                                                char *err, size_t errsz) {
  if (v->file != NN_FILE_FLAT) return cfg;
  if (cfg->n_gpus > NN_SEARCH_MAX_GPUS) {
    nn_errbuf_set(err, errsz, "%d GPUs: the flat file covers at most %d", cfg->n_gpus,
                  NN_SEARCH_MAX_GPUS);
    return NULL;
  }
  f->cfg = *cfg;
  int low = cfg->gpus[0].numa;
  for (int i = 0; i < cfg->n_gpus; i++) low = cfg->gpus[i].numa < low ? cfg->gpus[i].numa : low;
  int cpus = flat_cpus(cfg, sysfs_root, f->cpus, sizeof f->cpus);
  if (cpus < 0) {
    nn_errbuf_set(err, errsz,
                  "the CPUs of the GPUs' NUMA nodes are too long a list for one flat file");
    return NULL;
  }
  for (int i = 0; i < cfg->n_gpus; i++) {
    f->gpus[i] = cfg->gpus[i];
    f->gpus[i].numa = low;
  }
  for (int i = 0; i < f->cfg.n_nics; i++) f->cfg.nics[i].numa = low; /* one CPU holds them all */
  /* cpus NULL: the writer leaves the affinity out (topo_xml.h) */
  f->numa = (struct nn_numa){.node = low, .cpus = cpus == 0 ? f->cpus : NULL, .line = 0};
  f->cfg.gpus = f->gpus;
  f->cfg.numas = &f->numa;
  f->cfg.n_numas = 1;
  return &f->cfg;
}

/* What was decided, as the enum; the facts are already in v. */
static int decide(const struct nn_config *cfg, int declared, int known_cpu,
                  const struct nn_topo_verdict *v) {
  if (!cfg || cfg->n_gpus == 0) return NN_VERDICT_NO_GPUS;
  if (declared < 0) return NN_VERDICT_SM_DISAGREE;
  if (!known_cpu) return NN_VERDICT_CPU_UNKNOWN;
  if (v->mode == NN_TOPO_OFF) return NN_VERDICT_MODE_OFF;
  if (v->mode == NN_TOPO_NUMA) return NN_VERDICT_MODE_NUMA;
  if (v->numa_nodes == 1) return NN_VERDICT_ONE_NODE;
  if (!v->predicted) return NN_VERDICT_UNPREDICTED;
  int file = choose_file(v);
  return file == NN_FILE_NUMA   ? NN_VERDICT_NOT_WORSE
         : file == NN_FILE_FLAT ? NN_VERDICT_FLAT
                                : NN_VERDICT_WORSE;
}

static int file_of(int kind) {
  switch (kind) {
  case NN_VERDICT_MODE_NUMA:
  case NN_VERDICT_ONE_NODE:
  case NN_VERDICT_NOT_WORSE:
    return NN_FILE_NUMA;
  case NN_VERDICT_FLAT:
    return NN_FILE_FLAT;
  default:
    return NN_FILE_NONE;
  }
}

void nn_topology_verdict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                         const struct nn_verdict_in *in, struct nn_topo_verdict *v) {
  memset(v, 0, sizeof *v);
  v->mode = cfg ? cfg->topo_mode : NN_TOPO_AUTO;
  v->numa_nodes = cfg ? nn_config_numa_count(cfg) : 0;
  int declared = nn_topology_declared_sm(cfg);
  v->sm = declared > 0 ? declared : in && in->runtime_sm > 0 ? in->runtime_sm : 0;
  if (v->sm <= 0) {
    v->sm = 100;
    v->sm_assumed = 1;
  }
  pick_release(in, v);
  v->floor_gbps = nn_nccl_search_floor(v->rel, v->sm);
  v->own_cpu_source = in ? in->own_cpu_source : NN_OWN_CPU_SERVED;
  int known_cpu = cpu && cpu->vendor[0];
  if (known_cpu) snprintf(v->cpu_vendor, sizeof v->cpu_vendor, "%s", cpu->vendor);
  /* mode=numa on two nodes is predicted too: its WARN carries NCCL's modelled factor */
  int needed = !(in && in->decide_only) || (v->mode != NN_TOPO_OFF && v->numa_nodes >= 2);
  const struct nn_cpu_kind *own_cpu =
    in && in->own_cpu && in->own_cpu->vendor[0] ? in->own_cpu : cpu;
  if (cfg && cfg->n_gpus > 0 && declared >= 0 && known_cpu && needed) {
    gpu_links(cfg, in, v);
    if (predict(cfg, cpu, in, v, v->predict_error, sizeof v->predict_error) == 0 &&
        v->numa_nodes >= 2)
      rate_files(v, cpu, own_cpu, cfg->pci_latency_us);
  }
  if (v->predicted && v->numa_nodes >= 2) v->auto_file = choose_file(v);
  v->kind = decide(cfg, declared, known_cpu, v);
  v->file = file_of(v->kind);
  v->serve = v->file != NN_FILE_NONE;
  const struct nn_file_rating *r = v->file == NN_FILE_FLAT ? &v->flat : &v->numa;
  if (v->predicted) v->served = r->pred;
  v->slower = r->slower;
  v->slower_log2 = r->slower_log2;
}
