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
#include "cli/check/check_ctx.h"

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

void nn_check_problem(struct nn_check_ctx *c, unsigned step, const char *fmt, ...) {
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

const char *nn_check_rooted(const struct nn_check_ctx *c, const char *path, char *buf,
                            size_t size) {
  if (!strcmp(c->o->root, "/")) return path;
  snprintf(buf, size, "%s%s", c->o->root, path);
  return buf;
}

/* The configuration as the plugin finds it; the default path lies under --sysfs-root. */
static void find_source(struct nn_check_ctx *c) {
  nn_config_source_find(c->o->config, &c->src);
  if (c->src.named || !strcmp(c->o->root, "/")) return;
  snprintf(c->rooted_default, sizeof c->rooted_default, "%s%s", c->o->root, NN_DEFAULT_CONFIG_PATH);
  c->src.path = c->rooted_default;
}

/* ---- GPUs and NUMA nodes ---- */

static void section_gpus(struct nn_check_ctx *c) {
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
  if (!n)
    nn_check_problem(c, STEP_NO_GPU, "no NVIDIA GPU found under %s/sys/bus/pci/devices", c->g.root);
  fprintf(c->out, "NUMA nodes of this OS: %d\n", c->g.n_numas);
  for (int i = 0; i < c->g.n_numas; i++)
    fprintf(c->out, "  node %d cpus %s\n", c->g.numas[i].node, c->g.numas[i].cpus);
}

/* ---- topology files ---- */

static void compare_topo(struct nn_check_ctx *c, const char *label,
                         const struct nn_topo_summary *s) {
  char id[32];
  for (int i = 0; i < s->n_gpus; i++) {
    nn_busid_format(&s->gpus[i].bus, id, sizeof id);
    fprintf(c->out, "    GPU %s on cpu numaid %d\n", id, s->gpus[i].numaid);
    const struct nn_guest_pci *p = nn_guest_find(&c->g, &s->gpus[i].bus);
    if (!p || !p->is_gpu)
      nn_check_problem(c, STEP_TOPO_FILE, "%s lists GPU %s, which is %s on this machine", label, id,
                       p ? "not an NVIDIA GPU" : "not present");
  }
  for (int i = 0; i < c->g.n_pcis; i++) {
    int seen = 0;
    if (!c->g.pcis[i].is_gpu) continue;
    for (int j = 0; j < s->n_gpus; j++)
      seen |= !nn_discovery_busid_compare(&s->gpus[j].bus, &c->g.pcis[i].bus);
    nn_busid_format(&c->g.pcis[i].bus, id, sizeof id);
    if (!seen)
      fprintf(c->out, "    GPU %s is not in it: NCCL attaches it from sysfs, with no socket\n", id);
  }
}

static void check_topo_file(struct nn_check_ctx *c, const char *label, const char *path,
                            int decides) {
  static struct nn_topo_summary s; /* large; the CLI is single-threaded */
  char why[256];
  if (nn_topo_summarise_file(path, NN_CHECK_MAX_TOPO_BYTES, &s, why, sizeof why)) {
    nn_check_problem(c, STEP_TOPO_FILE, "%s %s: %s", label, path, why);
    return;
  }
  char vendor[4 * sizeof s.vendor];
  fprintf(c->out, "  %s %s: %d CPU node%s holding GPUs%s%s\n", label, path, s.n_cpus_with_gpus,
          s.n_cpus_with_gpus == 1 ? "" : "s", s.vendor[0] ? ", vendor " : "",
          nn_printable(vendor, sizeof vendor, s.vendor, NN_PRINTABLE_CSTR, NULL));
  compare_topo(c, label, &s);
  if (decides) nn_hazard_topo_file(c, label, &s);
}

static void section_topo_files(struct nn_check_ctx *c) {
  char buf[4096];
  const char *vt = nn_check_rooted(c, NN_CHECK_VIRTUAL_TOPOLOGY, buf, sizeof buf);
  int vt_present = access(vt, F_OK) == 0;
  fprintf(c->out, "Topology files:\n");
  if (c->o->topo_env) {
    fprintf(c->out, "  NCCL_TOPO_FILE is set in the environment: NCCL reads it, and nccl-numa "
                    "serves none\n");
    c->topo_env_used = 1;
    check_topo_file(c, "NCCL_TOPO_FILE", c->o->topo_env, 1);
  } else {
    fprintf(c->out, "  NCCL_TOPO_FILE: not set\n");
  }
  if (!vt_present) {
    fprintf(c->out, "  %s: absent\n", NN_CHECK_VIRTUAL_TOPOLOGY);
    return;
  }
  fprintf(c->out,
          "  %s: present; NCCL reads it when no NCCL_TOPO_FILE is given "
          "(nccl-numa's served file takes precedence)\n",
          NN_CHECK_VIRTUAL_TOPOLOGY);
  check_topo_file(c, "virtualTopology.xml", vt, 0);
}

/* ---- mapping ---- */

static void print_diag(struct nn_check_ctx *c, const struct nn_diag *d) {
  for (int i = 0; i < d->n; i++)
    nn_check_problem(c, STEP_FIX_MAPPING, "mapping invalid: %s", d->msgs[i]);
  if (d->dropped)
    nn_check_problem(c, STEP_FIX_MAPPING, "mapping invalid: %d more errors", d->dropped);
}

/* Loads the configuration as the plugin does; a host-side mapping is recognised and
 * reported as such. Returns its status. */
static int load_mapping(struct nn_check_ctx *c) {
  struct nn_parse_opts po = {.flags = 0, .cpuinfo_path = c->cpuinfo[0] ? c->cpuinfo : NULL};
  struct nn_diag d = {0};
  struct nn_config *cfg = NULL;
  const char *culprit = NULL, *path = c->src.path;
  int status = nn_config_resolve(&c->src, &po, &cfg, &d, &culprit);
  if (status != NN_CFG_INVALID) {
    for (int i = 0; cfg && i < cfg->refused.n; i++)
      nn_check_problem(c, STEP_FIX_MAPPING, "%s", cfg->refused.msgs[i]);
    for (int i = 0; cfg && i < cfg->notes.n; i++)
      fprintf(c->out, "  note: %s\n", cfg->notes.msgs[i]);
    c->cfg = cfg;
    nn_diag_clear(&d);
    return status;
  }
  struct nn_diag d2 = {0};
  po.flags = NN_PARSE_HOST_SIDE;
  if (culprit == path && nn_config_load(path, &po, &cfg, &d2) == 0 && cfg->host_side) {
    nn_check_problem(c, STEP_HOST_MAP,
                     "mapping %s is a host-side mapping (no bus= for this machine); complete it "
                     "here with: nccl-numa discover --guest --host-map %s",
                     path, path);
    nn_config_free(cfg);
  } else {
    if (cfg) nn_config_free(cfg);
    print_diag(c, &d);
    if (culprit && culprit == c->src.tuner_csv)
      nn_check_problem(c, STEP_FIX_MAPPING,
                       "NCCL_TUNER_CONFIG_FILE %s is rejected, and with it the configuration",
                       culprit);
    else if (!d.n) nn_check_problem(c, STEP_FIX_MAPPING, "mapping %s: cannot be loaded", path);
  }
  nn_diag_clear(&d);
  nn_diag_clear(&d2);
  return status;
}

static void match_mapping_gpu(struct nn_check_ctx *c, const struct nn_gpu *m) {
  char id[32];
  nn_busid_format(&m->bus, id, sizeof id);
  const struct nn_guest_pci *p = nn_guest_find(&c->g, &m->bus);
  if (!p)
    nn_check_problem(c, STEP_FIX_MAPPING,
                     "%s:%d: gpu %d bus=%s: no such PCI device on this machine", c->cfg->path,
                     m->line, m->index, id);
  else if (!p->is_gpu)
    nn_check_problem(c, STEP_FIX_MAPPING,
                     "%s:%d: gpu %d bus=%s: not an NVIDIA GPU (vendor 0x%04x, class 0x%06x)",
                     c->cfg->path, m->line, m->index, id, p->vendor, p->class_code);
  else if (p->numa_node >= 0 && p->numa_node != m->numa)
    nn_check_problem(c, STEP_FIX_MAPPING,
                     "%s:%d: gpu %d bus=%s: numa=%d, but sysfs says numa_node %d", c->cfg->path,
                     m->line, m->index, id, m->numa, p->numa_node);
}

static void mapping_vs_machine(struct nn_check_ctx *c) {
  char id[32];
  int ordered = 1;
  for (int i = 0; i < c->cfg->n_gpus; i++) {
    match_mapping_gpu(c, &c->cfg->gpus[i]);
    if (i && nn_discovery_busid_compare(&c->cfg->gpus[i - 1].bus, &c->cfg->gpus[i].bus) > 0)
      ordered = 0;
  }
  for (int i = 0; i < c->g.n_pcis; i++) {
    const struct nn_guest_pci *p = &c->g.pcis[i];
    int seen = 0;
    if (!p->is_gpu) continue;
    for (int j = 0; j < c->cfg->n_gpus; j++)
      seen |= !nn_discovery_busid_compare(&c->cfg->gpus[j].bus, &p->bus);
    nn_busid_format(&p->bus, id, sizeof id);
    if (!seen)
      nn_check_problem(c, STEP_FIX_MAPPING, "GPU %s is not in the mapping %s", id, c->cfg->path);
  }
  if (!ordered)
    nn_check_problem(c, STEP_FIX_MAPPING,
                     "mapping %s: gpu indices do not follow PCI bus order, which is CUDA's "
                     "order for identical GPUs (and with CUDA_DEVICE_ORDER=PCI_BUS_ID)",
                     c->cfg->path);
}

static void section_mapping(struct nn_check_ctx *c) {
  fprintf(c->out, "Mapping:\n");
  find_source(c);
  if (!c->src.named && access(c->src.path, F_OK) != 0 && !c->src.tuner_csv) {
    fprintf(c->out,
            "  none (no --config, NCCL_NUMA_CONFIG unset, no " NN_DEFAULT_CONFIG_PATH ")\n");
  } else {
    fprintf(c->out, "  %s\n", c->src.path);
    if (c->src.tuner_csv) fprintf(c->out, "  NCCL_TUNER_CONFIG_FILE %s\n", c->src.tuner_csv);
    load_mapping(c);
  }
  struct nn_diag nics = {0};
  nn_checknics_unplaced(&c->g, c->cfg, &nics);
  for (int i = 0; i < nics.n; i++) nn_check_problem(c, STEP_FIX_MAPPING, "%s", nics.msgs[i]);
  nn_diag_clear(&nics);
  if (c->cfg) {
    int real_root = !strcmp(c->o->root, "/");
    nn_job_resolve_at(c->cfg, c->o->visible, !c->o->no_cuda && real_root,
                      real_root ? nn_visible_driver_root() : c->o->root, &c->job);
    fprintf(c->out, "  %d GPUs on %d NUMA node%s\n", c->cfg->n_gpus, nn_config_numa_count(c->cfg),
            nn_config_numa_count(c->cfg) == 1 ? "" : "s");
    mapping_vs_machine(c);
    nn_oscpus_check(c);
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
    nn_check_problem(c, STEP_DISCOVER,
                     "%d GPU%s with numa_node -1 (%s%s) and no valid mapping to give %s socket", n,
                     n == 1 ? "" : "s", ids, n > 4 ? " ..." : "", n == 1 ? "its" : "their");
}

/* NCCL_ALGO / NCCL_PROTO from the environment or an `env` line: NCCL applies them before any tuner.
 */
static void section_forced(struct nn_check_ctx *c) {
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

/* ---- peer access ---- */

static void section_peer(struct nn_check_ctx *c) {
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
      fprintf(c->out, "  %s <-> %s: %s\n", a, b,
              ab < 0 || ba < 0 ? "unknown"
              : ab && ba       ? "yes"
                               : "no");
      pairs++;
      yes += ab > 0 && ba > 0;
    }
  if (pairs && !yes)
    fprintf(c->out, "  no pair has peer access: NCCL moves data through host memory (expected in "
                    "such a VM)\n");
}

/* ---- summary ---- */

/* The host-to-guest path (docs/user/host-to-guest.md): inside a VM only the host knows the sockets.
 */
#define VM_PATH \
  "on the Proxmox host\n" \
  "    nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf > host.map, then in the " \
  "VM\n" \
  "    nccl-numa discover --guest --host-map host.map > new && nccl-numa check-config new &&\n" \
  "    mv new /etc/nccl-numa.conf\n"
#define BARE_PATH \
  "nccl-numa discover > new && nccl-numa check-config new &&\n" \
  "    mv new /etc/nccl-numa.conf\n"

/* What to do about each kind of problem, in the order they are printed: `any` where it is not
 * known whether this is a VM, else `bare` or `vm` (NULL: `any`). */
static const struct {
  int step;
  const char *any, *bare, *vm;
} next_step_advice[] = {
  {STEP_NO_GPU,
   "check that the GPUs are passed through (lspci -d 10de:) and that --sysfs-root is right\n", NULL,
   NULL},
  {STEP_HOST_MAP,
   "complete the host map in this guest: nccl-numa discover --guest --host-map FILE > "
   "/etc/nccl-numa.conf\n",
   NULL, NULL},
  {STEP_DISCOVER, "make a mapping: bare metal: " BARE_PATH "    Proxmox VM: " VM_PATH,
   "make a mapping: " BARE_PATH, "make a mapping " VM_PATH},
  {STEP_FIX_MAPPING,
   "fix the mapping (nccl-numa check-config FILE) or make it again; bare metal:\n    " BARE_PATH
   "    Proxmox VM: " VM_PATH,
   "fix the mapping (nccl-numa check-config FILE) or make it again:\n    " BARE_PATH,
   "fix the mapping (nccl-numa check-config FILE) or make it again " VM_PATH},
  {STEP_TOPO_FILE, "fix or unset NCCL_TOPO_FILE / remove the stale topology file\n", NULL, NULL},
  {STEP_HAZARD,
   "let `topology mode=auto` choose the file NCCL's model rates best for the job (the file\n"
   "    with NUMA nodes, the flat one, or none: no `mode=numa`/`mode=off`, no NCCL_TOPO_FILE),\n"
   "    unless nccl-numa ab shows a gain; a GPU link below the floor is the slot's (generation x\n"
   "    width), which no topology file changes\n",
   NULL, NULL},
};

static const char *advice_for(size_t i, int vm) {
  const char *a = vm == 1 ? next_step_advice[i].vm : vm == 0 ? next_step_advice[i].bare : NULL;
  return a ? a : next_step_advice[i].any;
}

/* Nothing to fix: the next step follows the summary (summary_facts): run under the plugin where
 * it changes something, else measure, or give the VM NUMA nodes where nothing is pinned. */
static void next_step_clean(struct nn_check_ctx *c) {
  char cfg[4200] = "";
  if (c->cfg && c->src.named) snprintf(cfg, sizeof cfg, "--config %s ", c->cfg->path);
  if (!c->summary_facts.nothing) {
    fprintf(
      c->out,
      "  - nothing to fix; run the job under the plugin (NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN and\n"
      "    NCCL_NUMA_CONFIG set for it) with: nccl-numa exec %s-- COMMAND\n"
      "    and compare with nccl-numa explain\n",
      cfg);
    return;
  }
  fprintf(c->out,
          "  - nothing to fix, but nccl-numa changes nothing for this job (summary below); measure "
          "on the\n"
          "    GPUs with: nccl-numa calibrate%s%.*s\n"
          "    (its rules change NCCL's choice only where the measurements beat it)\n",
          cfg[0] ? " " : "", cfg[0] ? (int)strlen(cfg) - 1 : 0, cfg);
  if (c->summary_facts.affinity == NN_SUMMARY_AFFINITY_EVERY_CPU ||
      (nn_hazard_in_vm(c) == 1 && c->g.n_numas < 2))
    fprintf(c->out, "  - this VM has no real NUMA nodes: give it some with nccl-numa proxmox-numa "
                    "on the Proxmox host\n"
                    "    (docs/user/proxmox.md), then make the mapping again, and run every job "
                    "under the plugin:\n"
                    "    one across both nodes without it gets NCCL's own two-socket view, whose "
                    "search fails on\n"
                    "    NCCL 2.28-2.30 (the plugin serves it the flat file)\n");
}

static void next_steps(struct nn_check_ctx *c) {
  int vm = nn_hazard_in_vm(c);
  fprintf(c->out, "Next steps:\n");
  for (size_t i = 0; i < sizeof next_step_advice / sizeof next_step_advice[0]; i++)
    if (c->steps & next_step_advice[i].step) fprintf(c->out, "  - %s", advice_for(i, vm));
  if (!c->steps) next_step_clean(c);
  char list[NN_MAX_GPUS * 6];
  if (c->cfg && nn_bind_applies(c->cfg, &c->job.vis, nn_hazard_sysfs_root(c), list, sizeof list))
    fprintf(c->out,
            "  - this OS has the mapping's NUMA nodes, so SGLang and vLLM can bind each rank to "
            "its GPU's\n"
            "    node themselves: nccl-numa exec --bind-for sglang|vllm (adds the list %s)\n",
            list);
}

/* The summary paragraph for the job's communicator (summary.h), into c->summary; its facts
 * decide the next steps, printed before it. */
static void summary(struct nn_check_ctx *c) {
  const struct nn_config *cfg = c->cfg && c->cfg->n_gpus ? &c->job.view : NULL;
  struct nn_cost_model m;
  struct nn_config scope;
  char desc[512];
  int ranks = !cfg ? 0 : c->o->ranks ? c->o->ranks : (int)nn_job_ranks(c->cfg, &c->job);
  struct nn_policy *p =
    cfg ? nn_policy_compile(
            nn_visible_for_comm(c->cfg, &c->job.vis, (size_t)ranks, 1, c->job.own, &scope),
            (size_t)ranks, 1)
        : NULL;
  int modelled = p && c->have_verdict &&
                 nn_costview_model(&c->verdict, &c->cpu, cfg, ranks, 1, &m, desc, sizeof desc) == 0;
  struct nn_summary_rules rules;
  nn_summary_rules_of(modelled ? &m : NULL, p, 32, &rules);
  struct nn_summary_in in = {.nccl_version = nn_hazard_release(c)->code,
                             .cfg = cfg,
                             .v = c->have_verdict && !c->topo_env_used ? &c->verdict : NULL,
                             .no_verdict = cfg ? "the CPU kind is unknown" : NULL,
                             .user_topo = c->topo_env_used ? c->o->topo_env : NULL,
                             .rules = &rules,
                             .cpus_absent = c->cpus_absent};
  nn_summary_facts_of(&in, &c->summary_facts);
  nn_summary_text(&in, c->summary, sizeof c->summary);
  nn_policy_free(p);
}

static void setup(struct nn_check_ctx *c, const struct nn_check_opts *o, FILE *out) {
  memset(c, 0, sizeof *c);
  c->out = out;
  c->o = o;
  if (o->cpuinfo) snprintf(c->cpuinfo, sizeof c->cpuinfo, "%s", o->cpuinfo);
  else if (strcmp(o->root, "/"))
    snprintf(c->cpuinfo, sizeof c->cpuinfo, "%s/proc/cpuinfo", o->root);
  if (o->no_cuda) snprintf(c->cuda_why, sizeof c->cuda_why, "--no-cuda");
  else if (strcmp(o->root, "/"))
    snprintf(c->cuda_why, sizeof c->cuda_why, "sysfs root is not this machine's");
  else c->cuda = nn_cudaprobe_open(c->cuda_why, sizeof c->cuda_why);
}

int nn_check_run(const struct nn_check_opts *o, FILE *out) {
  struct nn_check_ctx *c = calloc(1, sizeof *c);
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
  nn_hazard_section(c);
  nn_checknics_section(c);
  section_peer(c);
  fprintf(out, "Result: %d problem%s\n", c->n_problems + c->dropped,
          c->n_problems + c->dropped == 1 ? "" : "s");
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
