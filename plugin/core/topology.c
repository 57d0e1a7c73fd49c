/* topology.c - scope of a communicator and the CPU-link hazard (contract notes 12, 22, 23). */
#include "topology.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuinfo.h"

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
                         struct nn_cpu_kind *out, char *err, size_t err_size) {
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
    snprintf(err, err_size, "CPU kind unknown: %s unreadable and no `cpu` line in the mapping",
             cpuinfo_path ? cpuinfo_path : "/proc/cpuinfo");
    return -1;
  }
  out->from_cpuinfo = 1;
  if (strcmp(out->vendor, "AuthenticAMD") && strcmp(out->vendor, "GenuineIntel")) {
    snprintf(err, err_size, "CPU vendor '%s' from cpuinfo is not one NCCL models on x86; "
             "declare it with a `cpu vendor=` line", out->vendor);
    return -1;
  }
  return 0;
}

double nn_topology_cpu_link_gbps(const struct nn_cpu_kind *cpu) {
  if (!strcmp(cpu->vendor, "AuthenticAMD")) return 16.0;
  if (!strcmp(cpu->vendor, "GenuineIntel")) {
    if (cpu->family != 6) return 6.0;
    if (cpu->model >= 0xCF) return 40.0;
    if (cpu->model >= 0x8F) return 22.0;
    if (cpu->model >= 0x55) return 10.0;
    return 6.0;
  }
  return 5000.0;  /* a vendor NCCL does not know: modelled as free */
}

double nn_topology_search_floor_gbps(int sm) {
  return (sm == 0 || sm >= 100) ? 18.0 : 3.0;
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

void nn_topology_verdict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                         int runtime_sm, struct nn_topo_verdict *v) {
  memset(v, 0, sizeof *v);
  v->mode = cfg ? cfg->topo_mode : NN_TOPO_AUTO;
  v->numa_nodes = cfg ? nn_config_numa_count(cfg) : 0;
  int declared = nn_topology_declared_sm(cfg);
  v->sm = declared > 0 ? declared : runtime_sm;
  v->floor_gbps = nn_topology_search_floor_gbps(v->sm);
  v->link_gbps = cpu && cpu->vendor[0] ? nn_topology_cpu_link_gbps(cpu) : 0.0;
  const char *m = mode_name(v->mode);
  if (!cfg || cfg->n_gpus == 0) {
    snprintf(v->reason, sizeof v->reason, "no topology served: the mapping has no gpu lines");
  } else if (declared < 0) {
    snprintf(v->reason, sizeof v->reason, "no topology served: the gpu lines declare different sm= values");
  } else if (!cpu || !cpu->vendor[0]) {
    snprintf(v->reason, sizeof v->reason, "no topology served: CPU kind unknown (add a `cpu vendor=` line)");
  } else if (v->mode == NN_TOPO_OFF) {
    snprintf(v->reason, sizeof v->reason, "no topology served: topology mode=off");
  } else if (v->mode == NN_TOPO_NUMA) {
    v->serve = 1;
    snprintf(v->reason, sizeof v->reason, "topology served: mode=numa (%d NUMA nodes)", v->numa_nodes);
  } else if (v->numa_nodes == 1) {
    v->serve = 1;
    snprintf(v->reason, sizeof v->reason, "topology served: mode=auto, all GPUs on one NUMA node");
  } else if (v->link_gbps >= v->floor_gbps) {
    v->serve = 1;
    snprintf(v->reason, sizeof v->reason,
             "topology served: mode=auto, modelled %s link %.0f GB/s >= search floor %.0f GB/s",
             cpu->vendor, v->link_gbps, v->floor_gbps);
  } else {
    snprintf(v->reason, sizeof v->reason,
             "no topology served (mode=%s): NCCL models the %s socket link at %.0f GB/s, below its "
             "%.0f GB/s ring-search floor for compute capability %s%d.%d; serving %d NUMA nodes would "
             "make its search fail (1 channel). Ways forward: A/B with `topology mode=numa`, or declare "
             "`cpu vendor=GenuineIntel family=6 model=207` (modelled at 40 GB/s) and confirm with `nccl-numa ab`",
             m, cpu->vendor, v->link_gbps, v->floor_gbps, v->sm ? "" : ">= (unknown, assumed) ",
             v->sm ? v->sm / 10 : 10, v->sm ? v->sm % 10 : 0, v->numa_nodes);
  }
}
