/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox_numa_plan.c - what the Proxmox config rewrite moves where: which hostpci
 * entries are GPUs, their guest NUMA nodes, root ports and expander buses, the vCPU and
 * memory split, and the settings it refuses; see proxmox_numa.h for the rules.
 *
 * Proxmox facts relied on (qemu-server: PVE/QemuServer.pm, PVE/QemuServer/PCI.pm,
 * PVE/QemuServer/Memory.pm): for a hostpci entry Proxmox gives function 0
 * `multifunction=on` when it passes several functions, and function 0 alone gets
 * rombar=0, romfile= (a file in /usr/share/kvm/) and the x-pci-*-id overrides; with
 * `numa: 1` the numaN memory must add up to `memory`, and memory hot-plug refuses
 * custom NUMA nodes. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/proxmox/proxmox_numa_parts.h"
#include "numparse.h"

int nn_proxmox_numa_is_removed(const struct nn_proxmox_numa_plan *p, int hostpci) {
  for (int i = 0; i < p->n_gpus; i++)
    if (p->gpus[i].hostpci == hostpci) return 1;
  return 0;
}

static int same_device(const struct nn_busid *a, const struct nn_busid *b) {
  return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

static int is_true(const char *v) {
  return !strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "true");
}

static int is_false(const char *v) {
  return !strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "false");
}

/* A value that survives Proxmox's shell-like split of args: unchanged. */
static int safe_word(const char *v) {
  if (!*v) return 0;
  for (; *v; v++)
    if (!isalnum((unsigned char)*v) && !strchr("._+-", *v)) return 0;
  return 1;
}

static int hex_id(const char *v) {
  if (strlen(v) != 6 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return 0;
  for (int i = 2; i < 6; i++)
    if (!isxdigit((unsigned char)v[i])) return 0;
  return 1;
}

/* One option of a GPU's hostpci entry: accepted (adding to extra) or refused. */
static int gpu_option(struct nn_proxmox_numa_ctx *c, struct nn_proxmox_numa_gpu *g, const char *k,
                      const char *v) {
  size_t used = strlen(g->extra);
  char *x = g->extra + used;
  size_t room = sizeof g->extra - used;
  if (!strcmp(k, "host") || !strcmp(k, "mapping") || !strcmp(k, "pcie")) return 0;
  if (!strcmp(k, "rombar")) {
    if (!is_true(v) && !is_false(v))
      return nn_proxmox_numa_fail(c, g->line, "hostpci%d: rombar=%s is not a boolean", g->hostpci,
                                  v);
    if (is_false(v)) snprintf(x, room, ",rombar=0");
    return 0;
  }
  if (!strcmp(k, "romfile")) {
    if (!safe_word(v))
      return nn_proxmox_numa_fail(c, g->line, "hostpci%d: romfile '%s' is not a plain file name",
                                  g->hostpci, v);
    snprintf(x, room, ",romfile=/usr/share/kvm/%s", v);
    return 0;
  }
  if (!strcmp(k, "vendor-id") || !strcmp(k, "device-id") || !strcmp(k, "sub-vendor-id") ||
      !strcmp(k, "sub-device-id")) {
    if (!hex_id(v))
      return nn_proxmox_numa_fail(c, g->line, "hostpci%d: %s=%s is not 0x followed by 4 hex digits",
                                  g->hostpci, k, v);
    snprintf(x, room, ",x-pci-%s=%s", k, v);
    return 0;
  }
  if (!strcmp(k, "driver")) {
    if (strcmp(v, "vfio") && strcmp(v, "keep"))
      return nn_proxmox_numa_fail(c, g->line, "hostpci%d: driver=%s is neither vfio nor keep",
                                  g->hostpci, v);
    return 0; /* args devices are never bound by Proxmox anyway */
  }
  if (!strcmp(k, "x-vga") || !strcmp(k, "legacy-igd") || !strcmp(k, "mdev"))
    return nn_proxmox_numa_fail(
      c, g->line,
      "hostpci%d: %s is not supported behind a PCIe expander (%s); pass this GPU "
      "through hostpci and leave the VM as it is",
      g->hostpci, k,
      !strcmp(k, "mdev") ? "a mediated/vGPU device is created by Proxmox at start"
                         : "Proxmox sets up the primary display for it");
  return nn_proxmox_numa_fail(
    c, g->line,
    "hostpci%d: option '%s' is unknown to nccl-numa; it cannot carry it into args:", g->hostpci, k);
}

/* Walks the options of the entry's raw value. */
static int gpu_options(struct nn_proxmox_numa_ctx *c, struct nn_proxmox_numa_gpu *g,
                       const char *raw) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", raw);
  int first = 1;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    const char *k = "host", *v = tok;
    if (eq) {
      *eq = 0;
      k = tok;
      v = eq + 1;
    } else if (!first) {
      return nn_proxmox_numa_fail(c, g->line, "hostpci%d: '%s' is not key=value", g->hostpci, tok);
    }
    first = 0;
    if (gpu_option(c, g, k, v)) return -1;
  }
  return 0;
}

static void add_func(struct nn_proxmox_numa_gpu *g, const struct nn_busid *b) {
  int at = g->n_funcs;
  for (int i = 0; i < g->n_funcs; i++)
    if (!nn_discovery_busid_compare(&g->funcs[i], b)) return;
  if (g->n_funcs == NN_PROXMOX_NUMA_MAX_FUNCS) return;
  while (at > 0 && nn_discovery_busid_compare(&g->funcs[at - 1], b) > 0) {
    g->funcs[at] = g->funcs[at - 1];
    at--;
  }
  g->funcs[at] = *b;
  g->n_funcs++;
}

/* The host functions an entry passes (a whole device: every function hwloc lists). */
static int entry_functions(struct nn_proxmox_numa_ctx *c, const struct nn_proxmox_hostpci *h,
                           struct nn_proxmox_numa_gpu *g) {
  const struct nn_discovery *d = c->in->host;
  for (int i = 0; i < h->n_ids; i++) {
    char id[32];
    nn_proxmox_pciid_format(&h->ids[i], id, sizeof id);
    int found = 0;
    for (int p = 0; p < d->n_pcis; p++) {
      const struct nn_busid *b = &d->pcis[p].bus;
      if (!same_device(b, &h->ids[i].bus) || (h->ids[i].has_func && b->func != h->ids[i].bus.func))
        continue;
      add_func(g, b);
      found = 1;
    }
    if (!found)
      return nn_proxmox_numa_fail(
        c, h->line,
        "hostpci%d: %s%s is not a PCI device of this host (%s); run on the Proxmox node "
        "that holds the VM's devices",
        h->index, id, g->via, d->source);
  }
  return 0;
}

/* An entry without a GPU: a NIC of one device on a known node, passed as PCIe, is moved with
 * the GPUs of its node (plan_gpus drops one whose node has none): 1; anything else stays: 0. */
static int classify_nic(struct nn_proxmox_numa_ctx *c, const struct nn_proxmox_hostpci *h,
                        struct nn_proxmox_numa_gpu *g) {
  const struct nn_discovery_pci *nic = NULL;
  for (int i = 0; i < g->n_funcs && !nic; i++) {
    const struct nn_discovery_pci *p = nn_discovery_find(c->in->host, &g->funcs[i]);
    if (p && p->is_nic) nic = p;
  }
  if (!nic || nic->numa < 0 || !h->pcie) return 0;
  for (int i = 0; i < g->n_funcs; i++)
    if (!same_device(&g->funcs[i], &nic->bus)) return 0;
  g->gpu = nic->bus;
  g->node = nic->numa;
  g->is_nic = 1;
  return gpu_options(c, g, h->raw) ? -1 : 1;
}

/* Whether entry h passes an NVIDIA GPU (or a NIC: classify_nic); fills g when it does (1), 0 when
 * not, -1 on error. */
static int classify_entry(struct nn_proxmox_numa_ctx *c, const struct nn_proxmox_hostpci *h,
                          struct nn_proxmox_numa_gpu *g) {
  const struct nn_discovery *d = c->in->host;
  memset(g, 0, sizeof *g);
  g->hostpci = h->index;
  g->line = h->line;
  if (h->mapping && c->in->maps)
    snprintf(g->via, sizeof g->via, " (mapping %s, %s:%d)", h->mapping, c->in->maps->path,
             h->map_line);
  if (entry_functions(c, h, g)) return -1;
  int n_gpus = 0;
  for (int i = 0; i < g->n_funcs; i++) {
    const struct nn_discovery_pci *p = nn_discovery_find(d, &g->funcs[i]);
    if (p && p->is_gpu) {
      if (!n_gpus) {
        g->gpu = p->bus;
        g->node = p->numa;
      }
      n_gpus++;
    }
  }
  if (!n_gpus) return classify_nic(c, h, g);
  char id[32];
  nn_busid_format(&g->gpu, id, sizeof id);
  if (n_gpus > 1)
    return nn_proxmox_numa_fail(
      c, h->line,
      "hostpci%d%s passes %d NVIDIA GPUs in one entry; give each GPU its own hostpci entry",
      h->index, g->via, n_gpus);
  for (int i = 0; i < g->n_funcs; i++)
    if (!same_device(&g->funcs[i], &g->gpu))
      return nn_proxmox_numa_fail(c, h->line,
                                  "hostpci%d%s mixes the GPU %s with functions of another device; "
                                  "give each device its own hostpci entry",
                                  h->index, g->via, id);
  if (!h->pcie)
    return nn_proxmox_numa_fail(
      c, h->line,
      "hostpci%d passes the GPU %s without pcie=1; the rewrite puts it on a PCIe root port, so "
      "set pcie=1 first (and check that the VM still works) or leave this VM as it is",
      h->index, id);
  if (g->node < 0) {
    const struct nn_discovery_pci *p = nn_discovery_find(d, &g->gpu);
    return nn_proxmox_numa_fail(
      c, h->line,
      "hostpci%d: the NUMA node of GPU %s is unknown (%s); run this on the Proxmox host "
      "whose topology hwloc can read",
      h->index, id, p ? p->unknown_why : "?");
  }
  return gpu_options(c, g, h->raw) ? -1 : 1;
}

static int gpu_cmp(const void *a, const void *b) {
  const struct nn_proxmox_numa_gpu *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  if (x->is_nic != y->is_nic) return x->is_nic - y->is_nic; /* a node's NICs after its GPUs */
  return nn_discovery_busid_compare(&x->gpu, &y->gpu);
}

/* Drops the NIC entries whose host node holds none of the VM's GPUs: they stay where they are
 * (a guest node of their own would take vCPUs and memory for a NIC alone). */
static void keep_nics_with_gpus(struct nn_proxmox_numa_plan *p) {
  int k = 0;
  for (int i = 0; i < p->n_gpus; i++) {
    int with_gpu = !p->gpus[i].is_nic;
    for (int j = 0; j < p->n_gpus && !with_gpu; j++)
      with_gpu = !p->gpus[j].is_nic && p->gpus[j].node == p->gpus[i].node;
    if (with_gpu) p->gpus[k++] = p->gpus[i];
  }
  p->n_gpus = k;
  p->n_nics = 0;
  for (int i = 0; i < k; i++) p->n_nics += p->gpus[i].is_nic;
}

/* Collects the GPU entries, sorts them into guest order and numbers their ports. */
static int plan_gpus(struct nn_proxmox_numa_ctx *c) {
  struct nn_proxmox_numa_plan *p = &c->plan;
  const struct nn_proxmox_vm *vm = c->in->vm;
  for (int i = 0; i < vm->n_hostpci; i++) {
    int r = classify_entry(c, &vm->hostpci[i], &p->gpus[p->n_gpus]);
    if (r < 0) return -1;
    p->n_gpus += r;
  }
  keep_nics_with_gpus(p);
  if (p->n_gpus == p->n_nics)
    return nn_proxmox_numa_fail(
      c, 0, "no hostpci entry of this VM passes an NVIDIA GPU of this host: nothing to do");
  qsort(p->gpus, (size_t)p->n_gpus, sizeof p->gpus[0], gpu_cmp);
  for (int i = 0; i < p->n_gpus; i++) {
    struct nn_proxmox_numa_gpu *g = &p->gpus[i];
    if (!p->n_nodes || p->nodes[p->n_nodes - 1] != g->node) {
      if (p->n_nodes == NN_PVE_MAX_NUMA)
        return nn_proxmox_numa_fail(
          c, 0, "the GPUs sit on more than %d host NUMA nodes; Proxmox allows %d guest nodes",
          NN_PVE_MAX_NUMA, NN_PVE_MAX_NUMA);
      p->nodes[p->n_nodes++] = g->node;
    }
    g->guest_node = p->n_nodes - 1;
    g->port_index = p->per_node[g->guest_node]++;
    g->chassis = NN_PROXMOX_NUMA_CHASSIS_BASE + i;
  }
  return 0;
}

/* Expander bus numbers: each needs its own bus plus one per root port. */
static int plan_buses(struct nn_proxmox_numa_ctx *c) {
  struct nn_proxmox_numa_plan *p = &c->plan;
  int bus = NN_PROXMOX_NUMA_BUS_BASE;
  for (int k = 0; k < p->n_nodes; k++) {
    int needs = 1 + p->per_node[k];
    if (bus + needs - 1 > 255)
      return nn_proxmox_numa_fail(c, 0, "the expander buses would need bus numbers above 255");
    p->bus_nr[k] = bus;
    bus += (needs + NN_PROXMOX_NUMA_BUS_HEADROOM + 15) / 16 * 16;
  }
  return 0;
}

/* Proxmox puts hostpci4-11 on root ports at 00:10.0-10.7 and hostpci12-15 at
 * 00:11.0-11.3, all functions of one multifunction slot. A guest only scans a
 * slot whose function 0 exists, so removing hostpci4 (or 12) would hide every
 * remaining entry of that slot: an empty root port then takes function 0. */
static void plan_fillers(struct nn_proxmox_numa_ctx *c) {
  static const int first[2] = {4, 12}, last[2] = {11, 15};
  const struct nn_proxmox_vm *vm = c->in->vm;
  for (int s = 0; s < 2; s++) {
    c->plan.fillers[s] = -1;
    if (!nn_proxmox_numa_is_removed(&c->plan, first[s])) continue;
    for (int i = 0; i < vm->n_hostpci; i++) {
      const struct nn_proxmox_hostpci *h = &vm->hostpci[i];
      if (h->index > first[s] && h->index <= last[s] && h->pcie &&
          !nn_proxmox_numa_is_removed(&c->plan, h->index))
        c->plan.fillers[s] = first[s];
    }
  }
}

/* After the GPU entries are gone Proxmox assigns the other mapping= entries
 * again; refuse when one of them would then receive different devices (a
 * mapping that mixes GPUs with other devices). */
static int check_remaining(struct nn_proxmox_numa_ctx *c) {
  const struct nn_proxmox_vm *vm = c->in->vm;
  struct nn_proxmox_vm *rest = malloc(sizeof *rest);
  char err[1024];
  if (!rest) return nn_proxmox_numa_fail(c, 0, "out of memory");
  *rest = *vm; /* shallow: only the hostpci array is edited */
  rest->n_hostpci = 0;
  for (int i = 0; i < vm->n_hostpci; i++) {
    if (nn_proxmox_numa_is_removed(&c->plan, vm->hostpci[i].index)) continue;
    struct nn_proxmox_hostpci *h = &rest->hostpci[rest->n_hostpci++];
    *h = vm->hostpci[i];
    if (h->mapping) h->n_ids = 0;
  }
  int rc = nn_proxmox_assign(rest, c->in->maps, c->in->node, err, sizeof err);
  for (int i = 0, j = 0; rc == 0 && i < vm->n_hostpci; i++) {
    const struct nn_proxmox_hostpci *was = &vm->hostpci[i];
    if (nn_proxmox_numa_is_removed(&c->plan, was->index)) continue;
    const struct nn_proxmox_hostpci *now = &rest->hostpci[j++];
    if (now->n_ids != was->n_ids ||
        memcmp(now->ids, was->ids, sizeof now->ids[0] * (size_t)now->n_ids)) {
      char id[32];
      nn_proxmox_pciid_format(&now->ids[0], id, sizeof id);
      free(rest);
      return nn_proxmox_numa_fail(
        c, was->line,
        "hostpci%d (mapping %s) would receive %s from Proxmox once the GPU entries are "
        "gone, a device the rewrite passes itself; split the mapping so GPUs and other devices are "
        "in different mappings",
        was->index, was->mapping, id);
    }
  }
  free(rest);
  if (rc)
    return nn_proxmox_numa_fail(c, 0, "the remaining hostpci entries cannot be assigned: %s", err);
  return 0;
}

/* vCPUs and memory over the guest nodes; the socket count when it fits. */
static int plan_topology(struct nn_proxmox_numa_ctx *c) {
  struct nn_proxmox_numa_plan *p = &c->plan;
  const struct nn_proxmox_vm *vm = c->in->vm;
  int n = p->n_nodes;
  p->sockets = vm->sockets > 0 ? vm->sockets : 1;
  p->cores = vm->cores > 0 ? vm->cores : 1;
  p->vcpus = p->sockets * p->cores;
  if (p->vcpus < n)
    return nn_proxmox_numa_fail(
      c, 0, "the VM has %d vCPU%s (sockets x cores) for %d guest NUMA nodes; give it at least %d",
      p->vcpus, p->vcpus == 1 ? "" : "s", n, n);
  if (vm->memory_mb <= 0)
    return nn_proxmox_numa_fail(
      c, 0, "no memory: line; set the VM's memory explicitly first (its NUMA split needs it)");
  if (vm->memory_mb < n)
    return nn_proxmox_numa_fail(c, 0, "memory %ld MiB cannot be split over %d nodes", vm->memory_mb,
                                n);
  for (int k = 0, first = 0; k < n; k++) {
    p->cpu_count[k] = p->vcpus / n + (k < p->vcpus % n);
    p->cpu_first[k] = first;
    first += p->cpu_count[k];
    p->mem[k] = vm->memory_mb / n + (k < vm->memory_mb % n);
  }
  p->new_sockets = p->sockets;
  p->new_cores = p->cores;
  if (p->vcpus % n == 0) {
    p->new_sockets = n;
    p->new_cores = p->vcpus / n;
  } else {
    nn_strbuf_printf(
      &c->notes,
      "sockets stays %d (cores %d): %d vCPUs do not split into %d equal sockets, so guest "
      "node 0 gets %d vCPUs and node %d gets %d, and a guest socket spans NUMA nodes; make the "
      "vCPU "
      "count a multiple of %d to get one socket per node\n",
      p->sockets, p->cores, p->vcpus, n, p->cpu_count[0], n - 1, p->cpu_count[n - 1], n);
  }
  p->topo_changed = p->new_sockets != p->sockets || p->new_cores != p->cores;
  return 0;
}

/* Settings the rewrite cannot live with. */
static int check_config(struct nn_proxmox_numa_ctx *c) {
  const struct nn_proxmox_vm *vm = c->in->vm;
  char v[4096];
  int line = 0; /* 0: no line to name (the machine: key may be absent) */
  if (!nn_proxmox_vm_is_q35(vm)) {
    nn_proxmox_numa_main_value(&c->ls, "machine", v, sizeof v, &line);
    return nn_proxmox_numa_fail(
      c, vm->machine ? line : 0,
      "the VM is %s%s%s, not q35: PCIe expander buses need the q35 machine; "
      "switch it to q35 (a change of the guest's hardware: test it) first",
      vm->machine ? "'" : "", vm->machine ? vm->machine : "i440fx (no machine: line)",
      vm->machine ? "'" : "");
  }
  for (int i = c->ls.main_end; i < c->ls.n; i++) {
    const struct nn_proxmox_numa_line *l = &c->ls.v[i];
    if (l->n >= 9 && !strncasecmp(l->p, "[PENDING]", 9))
      return nn_proxmox_numa_fail(
        c, i + 1,
        "the VM has pending changes; apply or revert them first (qm config %s --current "
        "shows the difference)",
        c->in->vmid ? c->in->vmid : "<vmid>");
  }
  if (nn_proxmox_numa_main_value(&c->ls, "hotplug", v, sizeof v, &line) && strstr(v, "memory"))
    return nn_proxmox_numa_fail(
      c, line,
      "hotplug includes memory, which Proxmox refuses with custom NUMA nodes; remove memory "
      "from hotplug first");
  if (nn_proxmox_numa_main_value(&c->ls, "args", v, sizeof v, &line)) {
    if (strstr(v, "pxb") || strstr(v, "nnrp"))
      return nn_proxmox_numa_fail(
        c, line,
        "args: already defines a PCIe expander (pxb); this VM looks rewritten already "
        "(restore the .bak to start over), or its args: must be merged by hand");
    if (strstr(v, "vfio"))
      return nn_proxmox_numa_fail(
        c, line,
        "args: already passes devices with vfio-pci; merge them by hand, nccl-numa will not "
        "guess how they relate to the GPUs");
    for (const char *s = v; (s = strstr(s, "chassis=")); s++) {
      int ch;
      if (!nn_int_parse_prefix(s + 8, INT_MIN, INT_MAX, &ch, NULL) &&
          ch >= NN_PROXMOX_NUMA_CHASSIS_BASE &&
          ch < NN_PROXMOX_NUMA_CHASSIS_BASE + NN_PVE_MAX_HOSTPCI + 2)
        return nn_proxmox_numa_fail(
          c, line, "args: uses chassis %d, which the new root ports need (%d-%d)", ch,
          NN_PROXMOX_NUMA_CHASSIS_BASE, NN_PROXMOX_NUMA_CHASSIS_BASE + NN_PVE_MAX_HOSTPCI + 1);
    }
  }
  return 0;
}

/* An `affinity:` (the CPUs the whole VM may run on) stays; say which host CPUs
 * belong to the nodes its memory is now bound to, so the user can compare. */
static void note_affinity(struct nn_proxmox_numa_ctx *c) {
  char v[512];
  int line;
  if (!nn_proxmox_numa_main_value(&c->ls, "affinity", v, sizeof v, &line)) return;
  nn_strbuf_printf(&c->notes, "affinity: %s is kept; the guest's memory is now bound to host node",
                   v);
  for (int k = 0; k < c->plan.n_nodes; k++) {
    const struct nn_discovery_numa *m = nn_discovery_find_numa(c->in->host, c->plan.nodes[k]);
    nn_strbuf_printf(&c->notes, "%s %d (CPUs %s)", k ? "," : "", c->plan.nodes[k],
                     m && m->cpus ? m->cpus : "?");
  }
  nn_strbuf_printf(&c->notes, ": check that the affinity covers those CPUs\n");
}

int nn_proxmox_numa_plan(struct nn_proxmox_numa_ctx *c) {
  if (check_config(c) || plan_gpus(c) || plan_buses(c) || check_remaining(c) || plan_topology(c))
    return -1;
  plan_fillers(c);
  note_affinity(c);
  return 0;
}
