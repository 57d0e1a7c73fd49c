/* SPDX-License-Identifier: BSD-3-Clause */
/* hazard.c - check's "Socket link (NCCL's graph search)" section (check_ctx.h): the verdict on
 * what NCCL will read, and a PROBLEM, with its fix, wherever NCCL's search fails on what the job
 * gets.
 *
 * NCCL facts relied on (NCCL 2.28.9: src/graph/search.cc): GPUs under two CPU nodes whose
 * modelled link is below the search floor make NCCL's intra-node search fail. */
#include "cli/check/check_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "cpuinfo.h"
#include "fileread.h"
#include "nccl_model.h"
#include "nccl_search.h"
#include "nccl_search_topo.h"
#include "printable.h"

static int runtime_sm(struct nn_check_ctx *c) {
  for (int i = 0; c->cuda && i < c->g.n_pcis; i++)
    if (c->g.pcis[i].is_gpu) return nn_cudaprobe_sm(c->cuda, &c->g.pcis[i].bus);
  return 0;
}

/* The release and where it came from, resolved once. */
const struct nn_ncclver *nn_hazard_release(struct nn_check_ctx *c) {
  static struct nn_ncclver ver;
  static int done;
  char err[sizeof ver.source - 16];
  if (!done && nn_ncclver_resolve(c->o->nccl_version, c->o->nccl_lib, &ver, err, sizeof err) != 0)
    snprintf(ver.source, sizeof ver.source, "not resolved: %s", err);
  done = 1;
  return &ver;
}

const char *nn_hazard_sysfs_root(const struct nn_check_ctx *c) {
  return strcmp(c->o->root, "/") ? c->o->root : NULL;
}

/* The links sysfs gives each GPU: maximum and current (2.30.7+ NCCL asks NVML for the current one).
 */
static void gpu_links(struct nn_check_ctx *c, const struct nn_nccl_release *rel) {
  int unreadable = 0;
  for (int i = 0; i < c->g.n_pcis; i++) {
    const struct nn_guest_pci *p = &c->g.pcis[i];
    struct nn_pcie_link max, cur;
    char id[32];
    if (!p->is_gpu) continue;
    nn_busid_format(&p->bus, id, sizeof id);
    int hm = nn_search_read_sysfs_link(rel, nn_hazard_sysfs_root(c), &p->bus, 1, &max);
    int hc = rel->gpulink == NN_GPULINK_NVML_CURRENT &&
             nn_search_read_sysfs_link(rel, nn_hazard_sysfs_root(c), &p->bus, 0, &cur) == 0;
    if (hm) {
      unreadable++;
      continue;
    }
    fprintf(
      c->out,
      "  GPU %s: PCIe gen %d x%d (sysfs maximum, the lower of the GPU and its port) = %.0f GB/s "
      "as NCCL models it",
      id, max.gen, max.width, nn_nccl_pcie_gbps(max.gen, max.width));
    if (hc && (cur.gen != max.gen || cur.width != max.width))
      fprintf(c->out, "; current gen %d x%d = %.0f GB/s (what NCCL %s takes from NVML)", cur.gen,
              cur.width, nn_nccl_pcie_gbps(cur.gen, cur.width), rel->name);
    fputc('\n', c->out);
  }
  if (unreadable)
    fprintf(c->out, "  PCIe link of %d GPU%s: not readable in sysfs (max_link_speed/width)\n",
            unreadable, unreadable == 1 ? "" : "s");
}

/* In a VM, the CPU kind NCCL detects is the guest's CPUID: say what it is and what NCCL makes of
 * it. */
static const char *cpuinfo_of(const struct nn_check_ctx *c, char *path, size_t size) {
  return c->cpuinfo[0] ? c->cpuinfo : nn_check_rooted(c, nn_cpuinfo_default(), path, size);
}

/* 1 when cpuinfo's flags carry `hypervisor` (a VM), 0 when not, -1 when unreadable. */
int nn_hazard_in_vm(const struct nn_check_ctx *c) {
  char path[4096], line[512];
  FILE *f = nn_file_fopen(cpuinfo_of(c, path, sizeof path), 0,
                          (size_t)64 << 20); /* --cpuinfo: never a FIFO */
  int vm = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor")) {
      vm = 1;
      break;
    }
  fclose(f);
  return vm;
}

static void vm_cpu(struct nn_check_ctx *c, const struct nn_topo_verdict *v) {
  char path[4096], cls[128];
  const char *ci = cpuinfo_of(c, path, sizeof path);
  if (nn_hazard_in_vm(c) != 1) return;
  struct nn_config none;
  struct nn_cpu_kind k;
  char err[256];
  memset(&none, 0, sizeof none);
  if (nn_topology_cpu_kind(&none, ci, &k, err, sizeof err)) {
    fprintf(c->out, "  virtual machine: guest CPU kind unreadable (%s)\n", err);
    return;
  }
  int vendor = nn_nccl_vendor_from_name(k.vendor);
  char shown[64];
  nn_nccl_cpu_class(v->rel, NN_ARCH_X86, vendor, k.family, k.model, cls, sizeof cls);
  fprintf(
    c->out,
    "  virtual machine: NCCL detects the guest's CPUID: %s family %d model %d -> %s, socket link "
    "%.0f GB/s on NCCL %s (Proxmox's default CPU types hide the host's family; `cpu: host` passes "
    "it "
    "through). It sets the CPU of NCCL's own view; the served file carries the mapping's `cpu` "
    "line\n",
    nn_printable(shown, sizeof shown, k.vendor, NN_PRINTABLE_CSTR, NULL), k.family, k.model, cls,
    nn_nccl_cpu_link_gbps(v->rel, NN_ARCH_X86, vendor, k.family, k.model), v->rel->name);
}

#define OWN_DETECTION "its own detection"

/* What to do when NCCL's search fails on what the job gets, `gets` (the served file or NCCL's own
 * view): the file nccl-numa's auto mode would give it, or how to get there. */
static void search_fix(const struct nn_topo_verdict *v, const char *only, char *buf, size_t size) {
  char gets[240], one[200];
  const struct nn_search_pred *p = v->auto_file == NN_FILE_FLAT   ? &v->flat.pred
                                   : v->auto_file == NN_FILE_NUMA ? &v->numa.pred
                                                                  : &v->own;
  nn_topology_describe_one(p, one, sizeof one);
  if (v->auto_file == NN_FILE_NONE)
    snprintf(gets, sizeof gets, "no file: NCCL's own view, %s", one);
  else snprintf(gets, sizeof gets, "the %s: %s", nn_topology_file_name(v->auto_file), one);
  if (only && !strcmp(only, OWN_DETECTION))
    snprintf(
      buf, size,
      "make a mapping (next steps): with one, nccl-numa serves the file NCCL's model rates best "
      "(here %s)",
      v->flat.pred.ring.ok && v->flat.pred.tree.ok && v->flat_gains
        ? "the flat file"
        : "the one its search passes on");
  else if (only)
    snprintf(
      buf, size,
      "unset NCCL_TOPO_FILE so that nccl-numa's `topology mode=auto` picks the file NCCL's model "
      "rates best");
  else if (v->no_env_plugin)
    snprintf(
      buf, size,
      "use NCCL 2.28.7 or later (its env plugin lets nccl-numa serve the file), or give this "
      "NCCL a file by hand: nccl-numa topo --config FILE -o FILE.xml, then "
      "NCCL_TOPO_FILE=FILE.xml");
  else if (v->mode == NN_TOPO_OFF || v->mode == NN_TOPO_NUMA)
    snprintf(buf, size,
             "remove `topology mode=%s` from the mapping: mode=auto then gives the job %s",
             v->mode == NN_TOPO_OFF ? "off" : "numa", gets);
  else snprintf(buf, size, "none from nccl-numa: no file it can serve gives NCCL a working search");
}

/* Prints the verdict and raises the problems NCCL's search will meet on what the job gets. */
static void report(struct nn_check_ctx *c, const struct nn_topo_verdict *v, const char *only) {
  char rel[160], warning[512], slower[240], fix[400];
  nn_ncclver_print(c->out, "  ", nn_hazard_release(c), v, only);
  nn_topology_describe_release(v, rel, sizeof rel);
  nn_topology_verdict_warning(v, warning, sizeof warning);
  nn_topology_describe_slower(v, slower, sizeof slower);
  vm_cpu(c, v);
  if (!v->predicted) return;
  /* a file NCCL reads by hand, or what the plugin serves; else NCCL's own view */
  int file = only || v->serve;
  const struct nn_search_pred *gets = file ? &v->served : &v->own;
  if (v->fails_regardless) {
    nn_check_problem(
      c, STEP_HAZARD,
      "NCCL's graph search fails whatever topology is served (%s): the GPUs' PCIe "
      "link, %.0f GB/s as NCCL models it, is below its %.0f GB/s floor for compute capability "
      "%d.%d; NCCL logs \"Could not find a path for pattern 4\" and runs 1 channel",
      rel, v->gpu_link_gbps, v->floor_gbps, v->sm / 10, v->sm % 10);
    return;
  }
  if (!gets->ring.ok || !gets->tree.ok) {
    char where[200] = "", tail[260] = "";
    if (file && v->link_gbps > 0)
      snprintf(where, sizeof where,
               "GPUs under %d CPU nodes, socket link modelled at %.0f GB/s, %s the %.0f GB/s "
               "floor for compute capability %d.%d%s",
               v->numa_nodes, v->link_gbps, v->link_gbps < v->floor_gbps ? "below" : "above",
               v->floor_gbps, v->sm / 10, v->sm % 10, v->sm_assumed ? " (assumed)" : "");
    else
      snprintf(where, sizeof where,
               "NCCL's own view, which the job gets (no file served), GPUs under their sysfs "
               "NUMA nodes");
    if (v->slower >= 1.005 && file) snprintf(tail, sizeof tail, "; %s", slower);
    search_fix(v, only, fix, sizeof fix);
    nn_check_problem(
      c, STEP_HAZARD,
      "NCCL's graph search fails on the topology NCCL will read (%s): %s (ring %s, "
      "tree %s); NCCL logs \"Could not find a path for pattern %s and runs 1 channel%s; fix: %s",
      rel, where, gets->ring.ok ? "ok" : "fails", gets->tree.ok ? "ok" : "fails",
      gets->ring.ok ? "N\" (a tree pattern)" : "4\"", tail, fix);
    return;
  }
  if (warning[0] && !only && !v->no_env_plugin) nn_check_problem(c, STEP_HAZARD, "%s", warning);
  else if (only && v->slower >= 1.005)
    nn_check_problem(c, STEP_HAZARD,
                     "%s, which NCCL will read, is rated worse by NCCL's model (%s): %s", only, rel,
                     slower);
}

/* A config standing for a topology file or NCCL's own detection: GPUs with their NUMA node. */
struct view_cfg {
  struct nn_config cfg;
  struct nn_gpu gpus[NN_SEARCH_MAX_GPUS];
};

static void view_add(struct view_cfg *w, const struct nn_busid *bus, int numa) {
  if (w->cfg.n_gpus >= NN_SEARCH_MAX_GPUS) return;
  struct nn_gpu *g = &w->gpus[w->cfg.n_gpus];
  *g = (struct nn_gpu){.index = w->cfg.n_gpus, .has_bus = 1, .bus = *bus, .numa = numa};
  w->cfg.gpus = w->gpus;
  w->cfg.n_gpus++;
}

void nn_hazard_topo_file(struct nn_check_ctx *c, const char *label,
                         const struct nn_topo_summary *s) {
  static struct view_cfg w;
  struct nn_cpu_kind cpu = {.family = s->family, .model = s->model};
  struct nn_topo_verdict v;
  memset(&w, 0, sizeof w);
  w.cfg.topo_mode = NN_TOPO_NUMA;
  for (int i = 0; i < s->n_gpus; i++) view_add(&w, &s->gpus[i].bus, s->gpus[i].numaid);
  snprintf(cpu.vendor, sizeof cpu.vendor, "%s", s->vendor);
  c->topo_env_used = 2;
  fprintf(c->out,
          "Socket link (NCCL's graph search):\n  NCCL will read %s (%d CPU nodes holding GPUs)\n",
          label, s->n_cpus_with_gpus);
  gpu_links(c, nn_nccl_release_find(nn_hazard_release(c)->code, NULL));
  nn_ncclver_verdict(&w.cfg, &cpu, nn_hazard_release(c), nn_hazard_sysfs_root(c),
                     c->cpuinfo[0] ? c->cpuinfo : NULL, runtime_sm(c), &v);
  report(c, &v, label);
}

/* NCCL's own detection: the NUMA nodes sysfs gives the GPUs, the CPU from cpuinfo. */
static void own_detection(struct nn_check_ctx *c, int sm) {
  static struct view_cfg w;
  struct nn_config none;
  struct nn_cpu_kind cpu;
  struct nn_topo_verdict v;
  char err[256];
  memset(&w, 0, sizeof w);
  memset(&none, 0, sizeof none);
  w.cfg.topo_mode = NN_TOPO_NUMA;
  for (int i = 0; i < c->g.n_pcis; i++)
    if (c->g.pcis[i].is_gpu)
      view_add(&w, &c->g.pcis[i].bus, c->g.pcis[i].numa_node < 0 ? -1 : c->g.pcis[i].numa_node);
  /* NCCL reads the CPU it runs on; when this machine's cpuinfo cannot say, the mapping's
   * `cpu` line is the best word on it. */
  const char *cpuinfo = c->cpuinfo[0] ? c->cpuinfo : NULL;
  if (nn_topology_cpu_kind(&none, cpuinfo, &cpu, err, sizeof err)) {
    if (c->cfg && c->cfg->cpu.present &&
        nn_topology_cpu_kind(c->cfg, cpuinfo, &cpu, err, sizeof err) == 0)
      fprintf(c->out, "  CPU kind from the mapping's `cpu` line (%s:%d): %s unreadable\n",
              c->cfg->path, c->cfg->cpu.line, cpuinfo ? cpuinfo : nn_cpuinfo_default());
    else fprintf(c->out, "  %s\n", err);
  }
  fprintf(c->out, "  NCCL will see its own detection: %d GPU%s (sysfs numa_node)\n", w.cfg.n_gpus,
          w.cfg.n_gpus == 1 ? "" : "s");
  if (!w.cfg.n_gpus) return;
  nn_ncclver_verdict(&w.cfg, &cpu, nn_hazard_release(c), nn_hazard_sysfs_root(c), cpuinfo, sm, &v);
  report(c, &v, OWN_DETECTION);
}

void nn_hazard_section(struct nn_check_ctx *c) {
  if (c->topo_env_used == 2) return; /* judged on NCCL_TOPO_FILE already */
  fprintf(c->out, "Socket link (NCCL's graph search):\n");
  int sm = runtime_sm(c);
  gpu_links(c, nn_nccl_release_find(nn_hazard_release(c)->code, NULL));
  if (!c->cfg || !c->cfg->n_gpus || c->topo_env_used) {
    own_detection(c, sm);
    return;
  }
  struct nn_cpu_kind cpu;
  struct nn_topo_verdict v;
  char err[256];
  if (nn_topology_cpu_kind(c->cfg, c->cpuinfo[0] ? c->cpuinfo : NULL, &cpu, err, sizeof err))
    fprintf(c->out, "  %s\n", err);
  const char *cpuinfo = c->cpuinfo[0] ? c->cpuinfo : NULL;
  struct nn_config none;
  struct nn_cpu_kind own;
  memset(&none, 0, sizeof none);
  if (nn_topology_cpu_kind(&none, cpuinfo, &own, err, sizeof err) && c->cfg->cpu.present)
    fprintf(c->out, "  CPU kind from the mapping's `cpu` line (%s:%d): %s unreadable\n",
            c->cfg->path, c->cfg->cpu.line, cpuinfo ? cpuinfo : nn_cpuinfo_default());
  if (c->job.vis.why[0]) fprintf(c->out, "  devices: %s\n", c->job.vis.why);
  nn_ncclver_verdict(&c->job.view, &cpu, nn_hazard_release(c), nn_hazard_sysfs_root(c), cpuinfo, sm,
                     &v);
  c->verdict = v;
  c->cpu = cpu;
  c->have_verdict = cpu.vendor[0] != 0;
  fprintf(c->out, "  plugin (the one verdict auto mode uses):\n");
  report(c, &v, NULL);
  char why[200];
  if (c->cfg->pci_latency_us > 0 &&
      nn_nccl_constants_ignored(nn_hazard_release(c)->code, why, sizeof why))
    fprintf(c->out, "  model line (%s:%d): %s\n", c->cfg->path, c->cfg->model_line, why);
}
