/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_search_topo.c - the system NCCL's search runs on (nccl_search_topo.h): built from
 * a mapping as NCCL would see the machine, with the PCIe links and NUMA nodes NCCL reads
 * from sysfs.
 *
 * NCCL facts relied on (src/graph/topo.cc, xml.cc of each release): GPUs are ranked in PCI
 * bus order; a GPU's link is the lower of its own and its upstream port's max_link_*,
 * except for releases that ask NVML, which reports the current link.
 */
#include "nccl_search_topo.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"
#include "topology.h"

/* ---- building the system from a mapping ---- */

static int cmp_bus(const struct nn_busid *a, const struct nn_busid *b) {
  if (a->domain != b->domain) return a->domain < b->domain ? -1 : 1;
  if (a->bus != b->bus) return a->bus < b->bus ? -1 : 1;
  if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
  return (a->func > b->func) - (a->func < b->func);
}

/* Rank of GPU i: its position in PCI bus order (the CUDA / NVML device order). */
static int bus_rank(const struct nn_config *cfg, int i) {
  int r = 0;
  for (int j = 0; j < cfg->n_gpus; j++) {
    int c = cmp_bus(&cfg->gpus[j].bus, &cfg->gpus[i].bus);
    r += c < 0 || (c == 0 && j < i);
  }
  return r;
}

/* The link NCCL models for one GPU; an unknown one is assumed (see NN_ASSUMED_PCIE_GEN). */
static float link_gbps(const struct nn_pcie_link *l) {
  if (!l || l->gen <= 0) return nn_nccl_pcie_gbps(NN_ASSUMED_PCIE_GEN, NN_ASSUMED_PCIE_WIDTH);
  return nn_nccl_pcie_gbps(l->gen, l->width);
}

/* NUMA node of mapping GPU i in the view being built. */
static int view_numa(const struct nn_config *cfg, const int *numa, int i) {
  return numa ? (numa[i] < 0 ? -1 : numa[i]) : cfg->gpus[i].numa;
}

int nn_search_topo_build(const struct nn_nccl_release *r, const struct nn_config *cfg,
                         const struct nn_cpu_kind *cpu, int sm, const struct nn_pcie_link *links,
                         const int *numa_of, struct nn_search_topo *out, char *err, size_t errsz) {
  memset(out, 0, sizeof *out);
  if (!cfg || cfg->n_gpus < 1) {
    nn_errbuf_set(err, errsz, "the mapping has no gpu lines");
    return -1;
  }
  if (cfg->n_gpus > NN_SEARCH_MAX_GPUS) {
    nn_errbuf_set(err, errsz, "%d GPUs: the prediction covers at most %d", cfg->n_gpus,
                  NN_SEARCH_MAX_GPUS);
    return -1;
  }
  int numa[NN_SEARCH_MAX_CPUS], nc = 0;
  /* CPUs in ascending numaid, GPUs under each in index order: the served file's order */
  for (;;) {
    int best = INT_MAX;
    for (int i = 0; i < cfg->n_gpus; i++) {
      int m = view_numa(cfg, numa_of, i);
      /* numa[nc - 1] was set by the previous round */
      // cppcheck-suppress uninitvar
      if ((nc == 0 || m > numa[nc - 1]) && m < best) best = m;
    }
    if (best == INT_MAX) break;
    if (nc == NN_SEARCH_MAX_CPUS) {
      nn_errbuf_set(err, errsz, "more than %d NUMA nodes hold GPUs", NN_SEARCH_MAX_CPUS);
      return -1;
    }
    numa[nc++] = best;
  }
  int n = 0;
  for (int c = 0; c < nc; c++) {
    out->cpu_numa[c] = numa[c];
    for (int i = 0; i < cfg->n_gpus; i++) {
      if (view_numa(cfg, numa_of, i) != numa[c]) continue;
      out->gpu_cpu[n] = c;
      out->gpu_rank[n] = bus_rank(cfg, i);
      out->gpu_index[n] = i;
      out->gpu_link_gbps[n] = link_gbps(links ? &links[i] : NULL);
      n++;
    }
  }
  out->n_gpus = n;
  out->n_cpus = nc;
  out->arch = NN_ARCH_X86;
  out->vendor = nn_nccl_vendor_from_name(cpu ? cpu->vendor : NULL);
  out->cpu_link_gbps =
    nn_nccl_cpu_link_gbps(r, out->arch, out->vendor, cpu ? cpu->family : -1, cpu ? cpu->model : -1);
  out->sm = sm;
  return 0;
}

/* The CPU of numaid `numa` in t, added when no GPU has one. */
static int cpu_of_numa(struct nn_search_topo *t, int numa) {
  for (int c = 0; c < t->n_cpus; c++)
    if (t->cpu_numa[c] == numa) return c;
  if (t->n_cpus == NN_SEARCH_MAX_CPUS) return -1;
  t->cpu_numa[t->n_cpus] = numa;
  return t->n_cpus++;
}

int nn_search_topo_add_nics(const struct nn_config *cfg, const int *nic_numa,
                            const float *link_gbps, float net_gbps, struct nn_search_topo *t,
                            int *order, char *err, size_t errsz) {
  if (cfg->n_nics > NN_SEARCH_MAX_NICS) {
    nn_errbuf_set(err, errsz, "%d NICs: the prediction covers at most %d", cfg->n_nics,
                  NN_SEARCH_MAX_NICS);
    return -1;
  }
  int numa[NN_SEARCH_MAX_NICS];
  for (int i = 0; i < cfg->n_nics; i++) {
    numa[i] = nic_numa ? nic_numa[i] : cfg->nics[i].numa;
    order[i] = i;
  }
  /* NCCL numbers NET nodes as the file lists NICs: by CPU (ascending numaid), then index */
  for (int i = 1; i < cfg->n_nics; i++)
    for (int j = i; j > 0 && numa[order[j]] < numa[order[j - 1]]; j--) {
      int x = order[j];
      order[j] = order[j - 1];
      order[j - 1] = x;
    }
  for (int k = 0; k < cfg->n_nics; k++) {
    int i = order[k], c = cpu_of_numa(t, numa[i]);
    if (c < 0) {
      nn_errbuf_set(err, errsz, "more than %d NUMA nodes hold GPUs or NICs", NN_SEARCH_MAX_CPUS);
      return -1;
    }
    t->nic_cpu[k] = c;
    t->nic_link_gbps[k] = link_gbps ? link_gbps[i] : nn_nccl_pcie_gbps(0, 0);
    t->nic_net_gbps[k] = net_gbps;
  }
  t->n_nics = cfg->n_nics;
  return 0;
}

/* ---- sysfs ---- */

/* A small sysfs attribute (they say 4096 bytes whatever they hold): what fits in buf. */
static int read_text(const char *path, char *buf, size_t size) {
  char *text = NULL;
  size_t n = 0;
  if (nn_file_read(AT_FDCWD, path, 0, 65536, &text, &n, NULL, 0) || n == 0) {
    free(text);
    return -1;
  }
  if (n > size - 1) n = size - 1;
  memcpy(buf, text, n);
  buf[n] = 0;
  free(text);
  return 0;
}

static int sysfs_dev_path(const char *sysfs_root, const struct nn_busid *bus, char *dev,
                          size_t size) {
  const char *root = sysfs_root && *sysfs_root ? sysfs_root : "";
  int w =
    snprintf(dev, size, "%s/sys/bus/pci/devices/%04x:%02x:%02x.%x", root, (unsigned)bus->domain,
             (unsigned)bus->bus, (unsigned)bus->dev, (unsigned)bus->func);
  return w < 0 || (size_t)w >= size ? -1 : 0;
}

int nn_search_sysfs_has_device(const char *sysfs_root, const struct nn_busid *bus) {
  char dev[PATH_MAX];
  return sysfs_dev_path(sysfs_root, bus, dev, sizeof dev) == 0 && access(dev, F_OK) == 0;
}

int nn_search_read_sysfs_cpulist(const char *sysfs_root, int node, char *buf, size_t size) {
  char path[PATH_MAX];
  const char *root = sysfs_root && *sysfs_root ? sysfs_root : "";
  int w = snprintf(path, sizeof path, "%s/sys/devices/system/node/node%d/cpulist", root, node);
  if (w < 0 || (size_t)w >= sizeof path || read_text(path, buf, size)) return -1;
  buf[strcspn(buf, "\n")] = 0;
  return buf[0] ? 0 : -1;
}

int nn_search_read_sysfs_numa(const char *sysfs_root, const struct nn_busid *bus) {
  char dev[PATH_MAX], path[PATH_MAX + 16], v[32];
  if (sysfs_dev_path(sysfs_root, bus, dev, sizeof dev)) return -1;
  snprintf(path, sizeof path, "%s/numa_node", dev);
  if (read_text(path, v, sizeof v)) return -1;
  int n;
  return nn_int_parse_prefix(v, 0, NN_MAX_NUMA_ID, &n, NULL) == 0 ? n : -1;
}

/* "16.0 GT/s PCIe" -> 4 (generation), 0 when unknown */
static int speed_gen(const char *s) {
  static const struct {
    double gts;
    int gen;
  } t[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
  double v;
  if (nn_double_parse_prefix(s, &v, NULL)) return 0;
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (v - t[i].gts < 0.01 && t[i].gts - v < 0.01) return t[i].gen;
  return 0;
}

/* sysfs link width ("16\n") -> 16, 0 when unreadable */
static int link_width(const char *s) {
  int w = 0;
  return nn_int_parse_prefix(s, 1, 64, &w, NULL) == 0 ? w : 0;
}

static int read_attr(const char *dev, const char *name, char *buf, size_t size) {
  char path[PATH_MAX];
  int w = snprintf(path, sizeof path, "%s/%s", dev, name);
  if (w < 0 || (size_t)w >= sizeof path) return -1;
  return read_text(path, buf, size);
}

int nn_search_read_sysfs_link(const struct nn_nccl_release *r, const char *sysfs_root,
                              const struct nn_busid *bus, int stable, struct nn_pcie_link *out) {
  char dev[PATH_MAX], v[64];
  if (sysfs_dev_path(sysfs_root, bus, dev, sizeof dev)) return -1;
  int cur = !stable && r->gpulink == NN_GPULINK_NVML_CURRENT;
  int gen = 0, width = 0;
  if (read_attr(dev, cur ? "current_link_speed" : "max_link_speed", v, sizeof v) == 0)
    gen = speed_gen(v);
  if (read_attr(dev, cur ? "current_link_width" : "max_link_width", v, sizeof v) == 0)
    width = link_width(v);
  if (!cur) { /* the lower of the GPU and the port above it */
    int pg = 0, pw = 0;
    if (read_attr(dev, "../max_link_speed", v, sizeof v) == 0) pg = speed_gen(v);
    if (read_attr(dev, "../max_link_width", v, sizeof v) == 0) pw = link_width(v);
    if (pg > 0 && (gen == 0 || pg < gen)) gen = pg;
    if (pw > 0 && (width == 0 || pw < width)) width = pw;
  }
  if (gen <= 0 || width <= 0) return -1;
  *out = (struct nn_pcie_link){gen, width, NN_LINK_SYSFS};
  return 0;
}
