/* SPDX-License-Identifier: BSD-3-Clause */
/* check.c - `nccl-numa check` diagnosis; see check.h.
 *
 * NCCL facts relied on (NCCL 2.28.9: src/graph/topo.cc, xml.cc, search.cc):
 * NCCL_TOPO_FILE (asked through the env plugin, so the
 * real environment wins over what nccl-numa serves) is read before NCCL's own
 * detection; without it NCCL reads the virtualTopology.xml that
 * nvidia-topologyd writes, when present; a file that exists but does not parse
 * fails communicator creation; GPUs under two CPU nodes whose modelled link is
 * below the search floor make NCCL's intra-node search fail. */
#include "cli/check/check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/predict/cudaprobe.h"
#include "cli/discover/discover.h"
#include "cli/discover/guest.h"
#include "cli/topo/topo_summary.h"
#include "config_source.h"
#include "cpuinfo.h"
#include "fileread.h"
#include "cli/common/bindfor.h"
#include "cli/predict/ncclver.h"
#include "cli/predict/costview.h"
#include "cli/predict/summary.h"
#include "nccl_forced.h"
#include "nccl_model.h"
#include "nccl_search.h"
#include "nccl_search_topo.h"
#include "nn_config.h"
#include "policy.h"
#include "printable.h"
#include "topology.h"
#include "visible.h"
#include "cli/predict/job.h"
#include "cli/check/checknics.h"

#define MAX_PROBLEMS 256
#define MAX_TOPO_GPUS 1024

enum step { STEP_DISCOVER = 1, STEP_FIX_MAPPING = 2, STEP_HAZARD = 4, STEP_TOPO_FILE = 8,
            STEP_HOST_MAP = 16, STEP_NO_GPU = 32 };

struct ctx {
  FILE *out;
  const struct nn_check_opts *o;
  char cpuinfo[4096];
  struct nn_guest g;
  struct nn_config *cfg;        /* valid guest-side mapping, or NULL */
  struct nn_config_source src;  /* where the plugin would find it */
  char rooted_default[4096];
  struct nn_cudaprobe *cuda;
  char cuda_why[160];
  char *problems[MAX_PROBLEMS];
  int n_problems, dropped;
  unsigned steps;
  int topo_env_used;            /* NCCL_TOPO_FILE decides what NCCL sees */
  struct nn_job job;            /* the job's visible GPUs against the mapping (job.h) */
  struct nn_topo_verdict verdict;   /* the plugin's, for the summary */
  struct nn_cpu_kind cpu;
  int have_verdict;
  struct nn_summary_facts summary_facts;
  char summary[4096];
};

static void problem(struct ctx *c, unsigned step, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(struct ctx *c, unsigned step, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  c->steps |= step;
  fprintf(c->out, "  PROBLEM: %s\n", buf);
  if (c->n_problems < MAX_PROBLEMS && (c->problems[c->n_problems] = strdup(buf))) c->n_problems++;
  else c->dropped++;
}

static const char *rooted(const struct ctx *c, const char *path, char *buf, size_t size) {
  if (!strcmp(c->o->root, "/")) return path;
  snprintf(buf, size, "%s%s", c->o->root, path);
  return buf;
}

/* The configuration as the plugin finds it; the default path lies under --sysfs-root. */
static void find_source(struct ctx *c) {
  nn_config_source_find(c->o->config, &c->src);
  if (c->src.named || !strcmp(c->o->root, "/")) return;
  snprintf(c->rooted_default, sizeof c->rooted_default, "%s%s", c->o->root, NN_DEFAULT_CONFIG_PATH);
  c->src.path = c->rooted_default;
}

/* ---- GPUs and NUMA nodes ---- */

static void section_gpus(struct ctx *c) {
  char id[32];
  int n = nn_guest_gpu_count(&c->g);
  fprintf(c->out, "GPUs (NVIDIA, from sysfs):\n");
  for (int i = 0; i < c->g.n_pcis; i++) {
    const struct nn_guest_pci *p = &c->g.pcis[i];
    if (!p->is_gpu) continue;
    nn_busid_format(&p->bus, id, sizeof id);
    if (p->numa_node >= 0) fprintf(c->out, "  %s  numa_node %d\n", id, p->numa_node);
    else fprintf(c->out, "  %s  numa_node -1  (flagged: NCCL cannot tell this GPU's socket)\n", id);
  }
  if (!n) problem(c, STEP_NO_GPU, "no NVIDIA GPU found under %s/sys/bus/pci/devices", c->g.root);
  fprintf(c->out, "NUMA nodes of this OS: %d\n", c->g.n_numas);
  for (int i = 0; i < c->g.n_numas; i++)
    fprintf(c->out, "  node %d cpus %s\n", c->g.numas[i].node, c->g.numas[i].cpus);
}

/* ---- topology files ---- */

static void compare_topo(struct ctx *c, const char *label, const struct nn_topo_summary *s) {
  char id[32];
  for (int i = 0; i < s->n_gpus; i++) {
    nn_busid_format(&s->gpus[i].bus, id, sizeof id);
    fprintf(c->out, "    GPU %s on cpu numaid %d\n", id, s->gpus[i].numaid);
    const struct nn_guest_pci *p = nn_guest_find(&c->g, &s->gpus[i].bus);
    if (!p || !p->is_gpu)
      problem(c, STEP_TOPO_FILE, "%s lists GPU %s, which is %s on this machine", label, id,
              p ? "not an NVIDIA GPU" : "not present");
  }
  for (int i = 0; i < c->g.n_pcis; i++) {
    int seen = 0;
    if (!c->g.pcis[i].is_gpu) continue;
    for (int j = 0; j < s->n_gpus; j++) seen |= !nn_discovery_busid_compare(&s->gpus[j].bus, &c->g.pcis[i].bus);
    nn_busid_format(&c->g.pcis[i].bus, id, sizeof id);
    if (!seen) fprintf(c->out, "    GPU %s is not in it: NCCL attaches it from sysfs, with no socket\n", id);
  }
}

static void topo_hazard(struct ctx *c, const char *label, const struct nn_topo_summary *s);

static void check_topo_file(struct ctx *c, const char *label, const char *path, int decides) {
  static struct nn_topo_summary s;   /* large; the CLI is single-threaded */
  char why[256];
  if (nn_topo_summarise_file(path, NN_CHECK_MAX_TOPO_BYTES, &s, why, sizeof why)) {
    problem(c, STEP_TOPO_FILE, "%s %s: %s", label, path, why);
    return;
  }
  char vendor[4 * sizeof s.vendor];
  fprintf(c->out, "  %s %s: %d CPU node%s holding GPUs%s%s\n", label, path, s.n_cpus_with_gpus,
          s.n_cpus_with_gpus == 1 ? "" : "s", s.vendor[0] ? ", vendor " : "",
          nn_printable(vendor, sizeof vendor, s.vendor, NN_PRINTABLE_CSTR, NULL));
  compare_topo(c, label, &s);
  if (decides) topo_hazard(c, label, &s);
}

static void section_topo_files(struct ctx *c) {
  char buf[4096];
  const char *vt = rooted(c, NN_CHECK_VIRTUAL_TOPOLOGY, buf, sizeof buf);
  int vt_present = access(vt, F_OK) == 0;
  fprintf(c->out, "Topology files:\n");
  if (c->o->topo_env) {
    fprintf(c->out, "  NCCL_TOPO_FILE is set in the environment: NCCL reads it, and nccl-numa serves none\n");
    c->topo_env_used = 1;
    check_topo_file(c, "NCCL_TOPO_FILE", c->o->topo_env, 1);
  } else {
    fprintf(c->out, "  NCCL_TOPO_FILE: not set\n");
  }
  if (!vt_present) {
    fprintf(c->out, "  %s: absent\n", NN_CHECK_VIRTUAL_TOPOLOGY);
    return;
  }
  fprintf(c->out, "  %s: present; NCCL reads it when no NCCL_TOPO_FILE is given "
          "(nccl-numa's served file takes precedence)\n", NN_CHECK_VIRTUAL_TOPOLOGY);
  check_topo_file(c, "virtualTopology.xml", vt, 0);
}

/* ---- mapping ---- */

static void print_diag(struct ctx *c, const struct nn_diag *d) {
  for (int i = 0; i < d->n; i++) problem(c, STEP_FIX_MAPPING, "mapping invalid: %s", d->msgs[i]);
  if (d->dropped) problem(c, STEP_FIX_MAPPING, "mapping invalid: %d more errors", d->dropped);
}

/* Loads the configuration as the plugin does; a host-side mapping is recognised and
 * reported as such. Returns its status. */
static int load_mapping(struct ctx *c) {
  struct nn_parse_opts po = {.flags = 0, .cpuinfo_path = c->cpuinfo[0] ? c->cpuinfo : NULL};
  struct nn_diag d = {0};
  struct nn_config *cfg = NULL;
  const char *culprit = NULL, *path = c->src.path;
  int status = nn_config_resolve(&c->src, &po, &cfg, &d, &culprit);
  if (status != NN_CFG_INVALID) {
    for (int i = 0; cfg && i < cfg->refused.n; i++) problem(c, STEP_FIX_MAPPING, "%s", cfg->refused.msgs[i]);
    for (int i = 0; cfg && i < cfg->notes.n; i++) fprintf(c->out, "  note: %s\n", cfg->notes.msgs[i]);
    c->cfg = cfg;
    nn_diag_clear(&d);
    return status;
  }
  struct nn_diag d2 = {0};
  po.flags = NN_PARSE_HOST_SIDE;
  if (culprit == path && nn_config_load(path, &po, &cfg, &d2) == 0 && cfg->host_side) {
    problem(c, STEP_HOST_MAP, "mapping %s is a host-side mapping (no bus= for this machine); complete it "
            "here with: nccl-numa discover --guest --host-map %s", path, path);
    nn_config_free(cfg);
  } else {
    if (cfg) nn_config_free(cfg);
    print_diag(c, &d);
    if (culprit && culprit == c->src.tuner_csv)
      problem(c, STEP_FIX_MAPPING, "NCCL_TUNER_CONFIG_FILE %s is rejected, and with it the configuration",
              culprit);
    else if (!d.n)
      problem(c, STEP_FIX_MAPPING, "mapping %s: cannot be loaded", path);
  }
  nn_diag_clear(&d);
  nn_diag_clear(&d2);
  return status;
}

static void match_mapping_gpu(struct ctx *c, const struct nn_gpu *m) {
  char id[32];
  nn_busid_format(&m->bus, id, sizeof id);
  const struct nn_guest_pci *p = nn_guest_find(&c->g, &m->bus);
  if (!p)
    problem(c, STEP_FIX_MAPPING, "%s:%d: gpu %d bus=%s: no such PCI device on this machine", c->cfg->path,
            m->line, m->index, id);
  else if (!p->is_gpu)
    problem(c, STEP_FIX_MAPPING, "%s:%d: gpu %d bus=%s: not an NVIDIA GPU (vendor 0x%04x, class 0x%06x)",
            c->cfg->path, m->line, m->index, id, p->vendor, p->class_code);
  else if (p->numa_node >= 0 && p->numa_node != m->numa)
    problem(c, STEP_FIX_MAPPING, "%s:%d: gpu %d bus=%s: numa=%d, but sysfs says numa_node %d", c->cfg->path,
            m->line, m->index, id, m->numa, p->numa_node);
}

static void mapping_vs_machine(struct ctx *c) {
  char id[32];
  int ordered = 1;
  for (int i = 0; i < c->cfg->n_gpus; i++) {
    match_mapping_gpu(c, &c->cfg->gpus[i]);
    if (i && nn_discovery_busid_compare(&c->cfg->gpus[i - 1].bus, &c->cfg->gpus[i].bus) > 0) ordered = 0;
  }
  for (int i = 0; i < c->g.n_pcis; i++) {
    const struct nn_guest_pci *p = &c->g.pcis[i];
    int seen = 0;
    if (!p->is_gpu) continue;
    for (int j = 0; j < c->cfg->n_gpus; j++) seen |= !nn_discovery_busid_compare(&c->cfg->gpus[j].bus, &p->bus);
    nn_busid_format(&p->bus, id, sizeof id);
    if (!seen) problem(c, STEP_FIX_MAPPING, "GPU %s is not in the mapping %s", id, c->cfg->path);
  }
  if (!ordered)
    problem(c, STEP_FIX_MAPPING, "mapping %s: gpu indices do not follow PCI bus order, which is CUDA's "
            "order for identical GPUs (and with CUDA_DEVICE_ORDER=PCI_BUS_ID)", c->cfg->path);
}

static void section_mapping(struct ctx *c) {
  fprintf(c->out, "Mapping:\n");
  find_source(c);
  if (!c->src.named && access(c->src.path, F_OK) != 0 && !c->src.tuner_csv) {
    fprintf(c->out, "  none (no --config, NCCL_NUMA_CONFIG unset, no " NN_DEFAULT_CONFIG_PATH ")\n");
  } else {
    fprintf(c->out, "  %s\n", c->src.path);
    if (c->src.tuner_csv) fprintf(c->out, "  NCCL_TUNER_CONFIG_FILE %s\n", c->src.tuner_csv);
    load_mapping(c);
  }
  struct nn_diag nics = {0};
  nn_checknics_unplaced(&c->g, c->cfg, &nics);
  for (int i = 0; i < nics.n; i++) problem(c, STEP_FIX_MAPPING, "%s", nics.msgs[i]);
  nn_diag_clear(&nics);
  if (c->cfg) {
    int real_root = !strcmp(c->o->root, "/");
    nn_job_resolve_at(c->cfg, c->o->visible, !c->o->no_cuda && real_root, real_root ? nn_visible_driver_root() : c->o->root,
                      &c->job);
    fprintf(c->out, "  %d GPUs on %d NUMA node%s\n", c->cfg->n_gpus, nn_config_numa_count(c->cfg),
            nn_config_numa_count(c->cfg) == 1 ? "" : "s");
    mapping_vs_machine(c);
    return;
  }
  char ids[512] = "";
  int n = 0;
  for (int i = 0; i < c->g.n_pcis; i++) {
    char id[32];
    size_t len = strlen(ids);
    if (!c->g.pcis[i].is_gpu || c->g.pcis[i].numa_node >= 0) continue;
    nn_busid_format(&c->g.pcis[i].bus, id, sizeof id);
    if (n++ < 4) snprintf(ids + len, sizeof ids - len, "%s%s", len ? " " : "", id);
  }
  if (n)
    problem(c, STEP_DISCOVER, "%d GPU%s with numa_node -1 (%s%s) and no valid mapping to give %s socket", n,
            n == 1 ? "" : "s", ids, n > 4 ? " ..." : "", n == 1 ? "its" : "their");
}

/* NCCL_ALGO / NCCL_PROTO from the environment or an `env` line: NCCL applies them before any tuner. */
static void section_forced(struct ctx *c) {
  struct nn_forced f;
  char text[768];
  nn_forced_read(c->cfg, &f);
  if (!nn_forced_any(&f)) return;
  fprintf(c->out, "Who decides first:\n");
  for (int var = 0; var < NN_FORCED_COUNT; var++) {
    if (!f.value[var]) continue;
    nn_forced_describe(c->cfg, &f, var, text, sizeof text);
    fprintf(c->out, "  %s\n", text);
  }
}

/* ---- the socket-link hazard ---- */

static int runtime_sm(struct ctx *c) {
  for (int i = 0; c->cuda && i < c->g.n_pcis; i++)
    if (c->g.pcis[i].is_gpu) return nn_cudaprobe_sm(c->cuda, &c->g.pcis[i].bus);
  return 0;
}

/* The release and where it came from, resolved once. */
static const struct nn_ncclver *release_of(struct ctx *c) {
  static struct nn_ncclver ver;
  static int done;
  char err[sizeof ver.source - 16];
  if (!done && nn_ncclver_resolve(c->o->nccl_version, c->o->nccl_lib, &ver, err, sizeof err) != 0)
    snprintf(ver.source, sizeof ver.source, "not resolved: %s", err);
  done = 1;
  return &ver;
}

static const char *sysfs_root(const struct ctx *c) {
  return strcmp(c->o->root, "/") ? c->o->root : NULL;
}

/* The links sysfs gives each GPU: maximum and current (2.30.7+ NCCL asks NVML for the current one). */
static void gpu_links(struct ctx *c, const struct nn_nccl_release *rel) {
  int unreadable = 0;
  for (int i = 0; i < c->g.n_pcis; i++) {
    const struct nn_guest_pci *p = &c->g.pcis[i];
    struct nn_pcie_link max, cur;
    char id[32];
    if (!p->is_gpu) continue;
    nn_busid_format(&p->bus, id, sizeof id);
    int hm = nn_search_read_sysfs_link(rel, sysfs_root(c), &p->bus, 1, &max);
    int hc = rel->gpulink == NN_GPULINK_NVML_CURRENT &&
             nn_search_read_sysfs_link(rel, sysfs_root(c), &p->bus, 0, &cur) == 0;
    if (hm) { unreadable++; continue; }
    fprintf(c->out, "  GPU %s: PCIe gen %d x%d (sysfs maximum, the lower of the GPU and its port) = %.0f GB/s "
            "as NCCL models it", id, max.gen, max.width, nn_nccl_pcie_gbps(max.gen, max.width));
    if (hc && (cur.gen != max.gen || cur.width != max.width))
      fprintf(c->out, "; current gen %d x%d = %.0f GB/s (what NCCL %s takes from NVML)", cur.gen, cur.width,
              nn_nccl_pcie_gbps(cur.gen, cur.width), rel->name);
    fputc('\n', c->out);
  }
  if (unreadable)
    fprintf(c->out, "  PCIe link of %d GPU%s: not readable in sysfs (max_link_speed/width)\n", unreadable,
            unreadable == 1 ? "" : "s");
}

/* In a VM, the CPU kind NCCL detects is the guest's CPUID: say what it is and what NCCL makes of it. */
static const char *cpuinfo_of(const struct ctx *c, char *path, size_t size) {
  return c->cpuinfo[0] ? c->cpuinfo : rooted(c, nn_cpuinfo_default(), path, size);
}

/* 1 when cpuinfo's flags carry `hypervisor` (a VM), 0 when not, -1 when unreadable. */
static int in_vm(const struct ctx *c) {
  char path[4096], line[512];
  FILE *f = nn_file_fopen(cpuinfo_of(c, path, sizeof path), 0, (size_t)64 << 20);   /* --cpuinfo: never a FIFO */
  int vm = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor")) { vm = 1; break; }
  fclose(f);
  return vm;
}

static void vm_cpu(struct ctx *c, const struct nn_topo_verdict *v) {
  char path[4096], cls[128];
  const char *ci = cpuinfo_of(c, path, sizeof path);
  if (in_vm(c) != 1) return;
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
  fprintf(c->out, "  virtual machine: NCCL detects the guest's CPUID: %s family %d model %d -> %s, socket link "
          "%.0f GB/s on NCCL %s (Proxmox's default CPU types hide the host's family; `cpu: host` passes it "
          "through). It sets the CPU of NCCL's own view; the served file carries the mapping's `cpu` line\n",
          nn_printable(shown, sizeof shown, k.vendor, NN_PRINTABLE_CSTR, NULL), k.family, k.model, cls,
          nn_nccl_cpu_link_gbps(v->rel, NN_ARCH_X86, vendor, k.family, k.model), v->rel->name);
}

/* Prints the verdict and raises the problems NCCL's search will meet. */
static void report(struct ctx *c, const struct nn_topo_verdict *v, int served_matters, const char *only) {
  char rel[160], slower[240] = "";
  nn_ncclver_print(c->out, "  ", release_of(c), v, only);
  nn_topology_describe_release(v, rel, sizeof rel);
  if (v->warning[0]) {
    slower[0] = ';', slower[1] = ' ';
    nn_topology_describe_slower(v, slower + 2, sizeof slower - 2);
  }
  vm_cpu(c, v);
  if (!v->predicted) return;
  if (v->fails_regardless)
    problem(c, STEP_HAZARD, "NCCL's graph search fails whatever topology is served (%s): the GPUs' PCIe link, "
            "%.0f GB/s as NCCL models it, is below its %.0f GB/s floor for compute capability %d.%d; NCCL "
            "logs \"Could not find a path for pattern 4\" and runs 1 channel", rel, v->gpu_link_gbps,
            v->floor_gbps, v->sm / 10, v->sm % 10);
  else if (served_matters && (!v->served.ring.ok || !v->served.tree.ok) && v->link_gbps > 0)
    problem(c, STEP_HAZARD, "NCCL's graph search fails on the topology NCCL will read (%s): GPUs under %d CPU "
            "nodes, socket link modelled at %.0f GB/s, %s the %.0f GB/s floor for compute capability %d.%d%s "
            "(ring %s, tree %s); NCCL logs \"Could not find a path for pattern %s and runs 1 channel%s", rel,
            v->numa_nodes, v->link_gbps, v->link_gbps < v->floor_gbps ? "below" : "above", v->floor_gbps,
            v->sm / 10, v->sm % 10, v->sm_assumed ? " (assumed)" : "", v->served.ring.ok ? "ok" : "fails",
            v->served.tree.ok ? "ok" : "fails", v->served.ring.ok ? "N\" (a tree pattern)" : "4\"", slower);
  else if (served_matters && v->warning[0] && !only)
    problem(c, STEP_HAZARD, "%s", v->warning);
  else if (served_matters && v->warning[0])
    problem(c, STEP_HAZARD, "%s, which NCCL will read, is rated worse by NCCL's model (%s): %s", only, rel, slower + 2);
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

static void topo_hazard(struct ctx *c, const char *label, const struct nn_topo_summary *s) {
  static struct view_cfg w;
  struct nn_cpu_kind cpu = {.family = s->family, .model = s->model};
  struct nn_topo_verdict v;
  memset(&w, 0, sizeof w);
  w.cfg.topo_mode = NN_TOPO_NUMA;
  for (int i = 0; i < s->n_gpus; i++) view_add(&w, &s->gpus[i].bus, s->gpus[i].numaid);
  snprintf(cpu.vendor, sizeof cpu.vendor, "%s", s->vendor);
  c->topo_env_used = 2;
  fprintf(c->out, "Socket link (NCCL's graph search):\n  NCCL will read %s (%d CPU nodes holding GPUs)\n", label,
          s->n_cpus_with_gpus);
  gpu_links(c, nn_nccl_release_find(release_of(c)->code, NULL));
  nn_ncclver_verdict(&w.cfg, &cpu, release_of(c), sysfs_root(c), c->cpuinfo[0] ? c->cpuinfo : NULL, runtime_sm(c), &v);
  report(c, &v, 1, label);
}

/* NCCL's own detection: the NUMA nodes sysfs gives the GPUs, the CPU from cpuinfo. */
static void own_detection(struct ctx *c, int sm) {
  static struct view_cfg w;
  struct nn_config none;
  struct nn_cpu_kind cpu;
  struct nn_topo_verdict v;
  char err[256];
  memset(&w, 0, sizeof w);
  memset(&none, 0, sizeof none);
  w.cfg.topo_mode = NN_TOPO_NUMA;
  for (int i = 0; i < c->g.n_pcis; i++)
    if (c->g.pcis[i].is_gpu) view_add(&w, &c->g.pcis[i].bus, c->g.pcis[i].numa_node < 0 ? -1 : c->g.pcis[i].numa_node);
  /* NCCL reads the CPU it runs on; when this machine's cpuinfo cannot say, the mapping's
   * `cpu` line is the best word on it. */
  const char *cpuinfo = c->cpuinfo[0] ? c->cpuinfo : NULL;
  if (nn_topology_cpu_kind(&none, cpuinfo, &cpu, err, sizeof err)) {
    if (c->cfg && c->cfg->cpu.present && nn_topology_cpu_kind(c->cfg, cpuinfo, &cpu, err, sizeof err) == 0)
      fprintf(c->out, "  CPU kind from the mapping's `cpu` line (%s:%d): %s unreadable\n", c->cfg->path,
              c->cfg->cpu.line, cpuinfo ? cpuinfo : nn_cpuinfo_default());
    else
      fprintf(c->out, "  %s\n", err);
  }
  fprintf(c->out, "  NCCL will see its own detection: %d GPU%s (sysfs numa_node)\n", w.cfg.n_gpus,
          w.cfg.n_gpus == 1 ? "" : "s");
  if (!w.cfg.n_gpus) return;
  nn_ncclver_verdict(&w.cfg, &cpu, release_of(c), sysfs_root(c), cpuinfo, sm, &v);
  report(c, &v, 1, "its own detection");
}

static void section_hazard(struct ctx *c) {
  if (c->topo_env_used == 2) return;       /* judged on NCCL_TOPO_FILE already */
  fprintf(c->out, "Socket link (NCCL's graph search):\n");
  int sm = runtime_sm(c);
  gpu_links(c, nn_nccl_release_find(release_of(c)->code, NULL));
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
    fprintf(c->out, "  CPU kind from the mapping's `cpu` line (%s:%d): %s unreadable\n", c->cfg->path,
            c->cfg->cpu.line, cpuinfo ? cpuinfo : nn_cpuinfo_default());
  if (c->job.vis.why[0]) fprintf(c->out, "  devices: %s\n", c->job.vis.why);
  nn_ncclver_verdict(&c->job.view, &cpu, release_of(c), sysfs_root(c), cpuinfo, sm, &v);
  c->verdict = v;
  c->cpu = cpu;
  c->have_verdict = cpu.vendor[0] != 0;
  fprintf(c->out, "  plugin (the one verdict auto mode uses):\n");
  report(c, &v, v.serve, NULL);
  char why[200];
  if (c->cfg->pci_latency_us > 0 && nn_nccl_constants_ignored(release_of(c)->code, why, sizeof why))
    fprintf(c->out, "  model line (%s:%d): %s\n", c->cfg->path, c->cfg->model_line, why);
}

/* ---- peer access ---- */

static void section_peer(struct ctx *c) {
  char a[32], b[32];
  int pairs = 0, yes = 0;
  fprintf(c->out, "GPU peer access:\n");
  if (!c->cuda) {
    fprintf(c->out, "  not checked: %s\n", c->cuda_why);
    return;
  }
  for (int i = 0; i < c->g.n_pcis; i++)
    for (int j = i + 1; c->g.pcis[i].is_gpu && j < c->g.n_pcis; j++) {
      if (!c->g.pcis[j].is_gpu) continue;
      int ab = nn_cudaprobe_can_peer(c->cuda, &c->g.pcis[i].bus, &c->g.pcis[j].bus);
      int ba = nn_cudaprobe_can_peer(c->cuda, &c->g.pcis[j].bus, &c->g.pcis[i].bus);
      nn_busid_format(&c->g.pcis[i].bus, a, sizeof a);
      nn_busid_format(&c->g.pcis[j].bus, b, sizeof b);
      fprintf(c->out, "  %s <-> %s: %s\n", a, b, ab < 0 || ba < 0 ? "unknown" : ab && ba ? "yes" : "no");
      pairs++;
      yes += ab > 0 && ba > 0;
    }
  if (pairs && !yes)
    fprintf(c->out, "  no pair has peer access: NCCL moves data through host memory (expected in such a VM)\n");
}

/* ---- summary ---- */

/* The host-to-guest path (docs/user/host-to-guest.md): inside a VM only the host knows the sockets. */
#define VM_PATH "on the Proxmox host\n" \
                "    nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf > host.map, then in the VM\n" \
                "    nccl-numa discover --guest --host-map host.map > new && nccl-numa check-config new &&\n" \
                "    mv new /etc/nccl-numa.conf\n"
#define BARE_PATH "nccl-numa discover > new && nccl-numa check-config new &&\n" \
                  "    mv new /etc/nccl-numa.conf\n"

/* What to do about each kind of problem, in the order they are printed: `any` where it is not
 * known whether this is a VM, else `bare` or `vm` (NULL: `any`). */
static const struct {
  int step;
  const char *any, *bare, *vm;
} next_step_advice[] = {
  {STEP_NO_GPU, "check that the GPUs are passed through (lspci -d 10de:) and that --sysfs-root is right\n", NULL, NULL},
  {STEP_HOST_MAP,
   "complete the host map in this guest: nccl-numa discover --guest --host-map FILE > /etc/nccl-numa.conf\n", NULL,
   NULL},
  {STEP_DISCOVER, "make a mapping: bare metal: " BARE_PATH "    Proxmox VM: " VM_PATH, "make a mapping: " BARE_PATH,
   "make a mapping " VM_PATH},
  {STEP_FIX_MAPPING, "fix the mapping (nccl-numa check-config FILE) or make it again; bare metal:\n    " BARE_PATH
   "    Proxmox VM: " VM_PATH, "fix the mapping (nccl-numa check-config FILE) or make it again:\n    " BARE_PATH,
   "fix the mapping (nccl-numa check-config FILE) or make it again " VM_PATH},
  {STEP_TOPO_FILE, "fix or unset NCCL_TOPO_FILE / remove the stale topology file\n", NULL, NULL},
  {STEP_HAZARD, "let `topology mode=auto` withhold a file NCCL's search rates worse (no `mode=numa`, no\n"
                "    NCCL_TOPO_FILE), unless nccl-numa ab against `topology mode=off` shows a gain; a GPU link\n"
                "    below the floor is the slot's (generation x width), which no topology file changes\n", NULL, NULL},
};

static const char *advice_for(size_t i, int vm) {
  const char *a = vm == 1 ? next_step_advice[i].vm : vm == 0 ? next_step_advice[i].bare : NULL;
  return a ? a : next_step_advice[i].any;
}

/* Nothing to fix: the next step follows the summary (summary_facts): run under the plugin where
 * it changes something, else measure, or give the VM NUMA nodes where nothing is pinned. */
static void next_step_clean(struct ctx *c) {
  char cfg[4200] = "";
  if (c->cfg && c->src.named) snprintf(cfg, sizeof cfg, "--config %s ", c->cfg->path);
  if (!c->summary_facts.nothing) {
    fprintf(c->out, "  - nothing to fix; run the job under the plugin (NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN and\n"
                    "    NCCL_NUMA_CONFIG set for it) with: nccl-numa exec %s-- COMMAND\n"
                    "    and compare with nccl-numa explain\n", cfg);
    return;
  }
  fprintf(c->out, "  - nothing to fix, but nccl-numa changes nothing for this job (summary below); measure on the\n"
                  "    GPUs with: nccl-numa calibrate%s%.*s\n"
                  "    (its rules change NCCL's choice only where the measurements beat it)\n", cfg[0] ? " " : "",
          cfg[0] ? (int)strlen(cfg) - 1 : 0, cfg);
  if (c->summary_facts.affinity == NN_SUMMARY_AFFINITY_EVERY_CPU || (in_vm(c) == 1 && c->g.n_numas < 2))
    fprintf(c->out, "  - this VM has no real NUMA nodes: give it some with nccl-numa proxmox-numa on the Proxmox host\n"
                    "    (docs/user/proxmox.md), then make the mapping again\n");
}

static void next_steps(struct ctx *c) {
  int vm = in_vm(c);
  fprintf(c->out, "Next steps:\n");
  for (size_t i = 0; i < sizeof next_step_advice / sizeof next_step_advice[0]; i++)
    if (c->steps & next_step_advice[i].step)
      fprintf(c->out, "  - %s", advice_for(i, vm));
  if (!c->steps) next_step_clean(c);
  char list[NN_MAX_GPUS * 6];
  if (c->cfg && nn_bind_applies(c->cfg, &c->job.vis, sysfs_root(c), list, sizeof list))
    fprintf(c->out, "  - this OS has the mapping's NUMA nodes, so SGLang and vLLM can bind each rank to its GPU's\n"
                    "    node themselves: nccl-numa exec --bind-for sglang|vllm (adds the list %s)\n", list);
}

/* The summary paragraph for the job's communicator (summary.h), into c->summary; its facts
 * decide the next steps, printed before it. */
static void summary(struct ctx *c) {
  const struct nn_config *cfg = c->cfg && c->cfg->n_gpus ? &c->job.view : NULL;
  struct nn_cost_model m;
  struct nn_config scope;
  char desc[512];
  int ranks = !cfg ? 0 : c->o->ranks ? c->o->ranks : (int)nn_job_ranks(c->cfg, &c->job);
  struct nn_policy *p = cfg ? nn_policy_compile(nn_visible_for_comm(c->cfg, &c->job.vis, (size_t)ranks, 1, c->job.own,
                                                                    &scope), (size_t)ranks, 1) : NULL;
  int modelled = p && c->have_verdict && nn_costview_model(&c->verdict, &c->cpu, cfg, ranks, 1, &m, desc, sizeof desc) == 0;
  struct nn_summary_rules rules;
  nn_summary_rules_of(modelled ? &m : NULL, p, 32, &rules);
  struct nn_summary_in in = {.nccl_version = release_of(c)->code, .cfg = cfg,
                             .v = c->have_verdict && !c->topo_env_used ? &c->verdict : NULL,
                             .no_verdict = cfg ? "the CPU kind is unknown" : NULL,
                             .user_topo = c->topo_env_used ? c->o->topo_env : NULL, .rules = &rules};
  nn_summary_facts_of(&in, &c->summary_facts);
  nn_summary_text(&in, c->summary, sizeof c->summary);
  nn_policy_free(p);
}

static void setup(struct ctx *c, const struct nn_check_opts *o, FILE *out) {
  memset(c, 0, sizeof *c);
  c->out = out;
  c->o = o;
  if (o->cpuinfo) snprintf(c->cpuinfo, sizeof c->cpuinfo, "%s", o->cpuinfo);
  else if (strcmp(o->root, "/")) snprintf(c->cpuinfo, sizeof c->cpuinfo, "%s/proc/cpuinfo", o->root);
  if (o->no_cuda) snprintf(c->cuda_why, sizeof c->cuda_why, "--no-cuda");
  else if (strcmp(o->root, "/")) snprintf(c->cuda_why, sizeof c->cuda_why, "sysfs root is not this machine's");
  else c->cuda = nn_cudaprobe_open(c->cuda_why, sizeof c->cuda_why);
}

int nn_check_run(const struct nn_check_opts *o, FILE *out) {
  struct ctx *c = calloc(1, sizeof *c);
  char err[512];
  if (!c) return -1;
  setup(c, o, out);
  if (nn_guest_scan(o->root, &c->g, err, sizeof err)) {
    fprintf(out, "nccl-numa check: %s\n", err);
    nn_cudaprobe_close(c->cuda);
    free(c);
    return -1;
  }
  fprintf(out, "nccl-numa check of %s\n", strcmp(o->root, "/") ? o->root : "this machine");
  section_gpus(c);
  section_topo_files(c);
  section_mapping(c);
  section_forced(c);
  section_hazard(c);
  section_peer(c);
  fprintf(out, "Result: %d problem%s\n", c->n_problems + c->dropped, c->n_problems + c->dropped == 1 ? "" : "s");
  for (int i = 0; i < c->n_problems; i++) fprintf(out, "  %d. %s\n", i + 1, c->problems[i]);
  summary(c);
  next_steps(c);
  fputs(c->summary, out);
  int n = c->n_problems + c->dropped;
  for (int i = 0; i < c->n_problems; i++) free(c->problems[i]);
  if (c->cfg) nn_config_free(c->cfg);
  nn_guest_free(&c->g);
  nn_cudaprobe_close(c->cuda);
  free(c);
  return n;
}
