/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox_numa_text.c - the rewritten Proxmox config from the plan: the args: devices,
 * the numaN lines, the header comment that says what changed and what is left to do by
 * hand, all merged into the original lines.
 *
 * Proxmox facts relied on (qemu-server: PVE/QemuServer.pm): config keys are
 * `^[a-z][a-z_-]*\d*:` and Proxmox writes them sorted; `#` lines of the current config
 * are the VM's description (Notes) and are written back at the top; `args:` is split
 * like a shell line and appended after every device Proxmox generates. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/proxmox/proxmox_numa_parts.h"
#include "numparse.h"

static int filler_chassis(int s) { return NN_PROXMOX_NUMA_CHASSIS_BASE + NN_PVE_MAX_HOSTPCI + s; }

static void write_args(struct nn_proxmox_numa_ctx *c, struct nn_strbuf *b) {
  const struct nn_proxmox_numa_plan *p = &c->plan;
  const char *sep = "";
  for (int s = 0; s < 2; s++)
    if (p->fillers[s] >= 0) {
      nn_strbuf_printf(
        b,
        "%s-device "
        "pcie-root-port,id=nnfill%d,bus=pcie.0,addr=%s,multifunction=on,chassis=%d,port=%d",
        sep, p->fillers[s], s ? "11.0" : "10.0", filler_chassis(s), filler_chassis(s));
      sep = " ";
    }
  for (int k = 0; k < p->n_nodes; k++) {
    nn_strbuf_printf(b, "%s-device pxb-pcie,id=nnpxb%d,bus_nr=%d,numa_node=%d,bus=pcie.0", sep, k,
                     p->bus_nr[k], k);
    sep = " ";
    for (int i = 0; i < p->n_gpus; i++) {
      const struct nn_proxmox_numa_gpu *g = &p->gpus[i];
      if (g->guest_node != k) continue;
      nn_strbuf_printf(b,
                       " -device pcie-root-port,id=nnrp%d_%d,bus=nnpxb%d,chassis=%d,slot=0,port=%d",
                       k, g->port_index, k, g->chassis, g->chassis);
      for (int f = 0; f < g->n_funcs; f++) {
        char id[32];
        nn_busid_format(&g->funcs[f], id, sizeof id);
        nn_strbuf_printf(b, " -device vfio-pci,host=%s,bus=nnrp%d_%d", id, k, g->port_index);
        if (g->n_funcs > 1)
          nn_strbuf_printf(b, ",addr=0.%d%s", f, f == 0 ? ",multifunction=on" : "");
        if (f == 0) nn_strbuf_printf(b, "%s", g->extra);
        if (f == 0 && c->in->p2p_clique && !g->is_nic)
          nn_strbuf_printf(b, ",x-nv-gpudirect-clique=%d",
                           c->in->p2p_clique == NN_PROXMOX_CLIQUE_ONE ? 0 : k);
      }
    }
  }
}

static void gpu_label(const struct nn_proxmox_numa_gpu *g, char *buf, size_t size) {
  char id[32];
  nn_busid_format(&g->funcs[0], id, sizeof id);
  if (g->n_funcs == 1) {
    snprintf(buf, size, "%s", id);
    return;
  }
  size_t n = strlen(id) - 2; /* "0000:01:00" and its functions ".0+.1" */
  snprintf(buf, size, "%.*s", (int)n, id);
  for (int f = 0; f < g->n_funcs && strlen(buf) + 4 < size; f++)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s.%x", f ? "+" : "", g->funcs[f].func);
}

static int has_mapping(const struct nn_proxmox_numa_plan *p) {
  for (int i = 0; i < p->n_gpus; i++)
    if (p->gpus[i].via[0]) return 1;
  return 0;
}

/* What the clique hint does, said once: it is a claim to the guest's driver, not a proof. */
static void write_clique_note(const struct nn_proxmox_numa_ctx *c, struct nn_strbuf *b) {
  int mode = c->in->p2p_clique;
  if (!mode) return;
  if (mode == NN_PROXMOX_CLIQUE_ONE)
    nn_strbuf_printf(
      b,
      "# x-nv-gpudirect-clique=0 on every GPU: the guest's NVIDIA driver may offer peer-to-peer\n"
      "#  between all of them.\n");
  else
    nn_strbuf_printf(
      b, "# x-nv-gpudirect-clique=K on guest node K's GPUs: the guest's NVIDIA driver may offer\n"
         "#  peer-to-peer within each host socket, never across the socket link.\n");
  nn_strbuf_printf(
    b,
    "#  It is a hint, not a proof: some boards and drivers grant peer access and\n"
    "#  then hang or drop writes. After the VM starts, run `nccl-numa p2p` in the guest and add\n"
    "#  the `p2p` line it prints to the mapping before any job relies on it (docs/user/p2p.md).\n");
}

/* The CPU kind NCCL will detect in the guest: the guest's CPUID, set by the VM's CPU type. */
static void write_cpu_note(const struct nn_proxmox_vm *vm, struct nn_strbuf *b) {
  const char *t = vm->cpu ? vm->cpu : "";
  int host = !strncmp(t, "host", 4) && (!t[4] || t[4] == ',');
  nn_strbuf_printf(
    b, "# CPU type %s%s: NCCL in the guest models the socket link by the guest's CPUID.\n",
    t[0] ? "cpu: " : "", t[0] ? t : "Proxmox's default (no cpu: line)");
  if (host)
    nn_strbuf_printf(b, "#  `cpu: host` passes the host's family through: NCCL 2.31+ models AMD "
                        "Zen 3/4 at 24 GB/s and\n"
                        "#  Zen 5 at 32 GB/s; older NCCL every AMD CPU at 16 GB/s.\n");
  else
    nn_strbuf_printf(
      b,
      "#  Proxmox's default and named types may hide the host's family (`cpu: host` passes it\n"
      "#  through); with another family NCCL 2.31+ models an AMD guest at 16 GB/s, as older NCCL\n"
      "#  does every AMD CPU. `nccl-numa check` in the guest shows the kind NCCL detects.\n");
}

static void write_header(struct nn_proxmox_numa_ctx *c, struct nn_strbuf *b) {
  const struct nn_proxmox_numa_plan *p = &c->plan;
  const char *vmid = c->in->vmid ? c->in->vmid : "<vmid>";
  const char *base = strrchr(c->in->name, '/');
  base = base ? base + 1 : c->in->name;
  nn_strbuf_printf(b,
                   "# nccl-numa proxmox-numa: NUMA-aware GPU passthrough for VM %s on node %s.\n",
                   vmid, c->in->node);
  nn_strbuf_printf(
    b, "# The config before this change is %s.bak when it was written with --write.\n", base);
  nn_strbuf_printf(b, "# Removed the NVIDIA GPUs' %sentries", p->n_nics ? "and NICs' " : "");
  const char *sep = " ";
  for (int h = 0; h < NN_PVE_MAX_HOSTPCI; h++) {
    if (!nn_proxmox_numa_is_removed(p, h)) continue;
    int last = h;
    while (last + 1 < NN_PVE_MAX_HOSTPCI && nn_proxmox_numa_is_removed(p, last + 1)) last++;
    if (last == h) nn_strbuf_printf(b, "%shostpci%d", sep, h);
    else nn_strbuf_printf(b, "%shostpci%d-%d", sep, h, last);
    sep = ", ";
    h = last;
  }
  nn_strbuf_printf(
    b, ".\n# args: passes them now: one PCIe expander bus (pxb-pcie) per guest NUMA node,\n"
       "#  each GPU behind its own root port (Proxmox's own ports use chassis 1-16):\n");
  for (int k = 0; k < p->n_nodes; k++) {
    nn_strbuf_printf(b,
                     "#  guest node %d = host node %d: vCPUs %d-%d, %ld MiB (policy=bind), "
                     "expander nnpxb%d bus %d\n",
                     k, p->nodes[k], p->cpu_first[k], p->cpu_first[k] + p->cpu_count[k] - 1,
                     p->mem[k], k, p->bus_nr[k]);
    for (int i = 0; i < p->n_gpus; i++) {
      const struct nn_proxmox_numa_gpu *g = &p->gpus[i];
      char label[64];
      if (g->guest_node != k) continue;
      gpu_label(g, label, sizeof label);
      nn_strbuf_printf(b, "#    %s%s was hostpci%d: root port nnrp%d_%d chassis %d port %d\n",
                       label, g->is_nic ? " (NIC)" : "", g->hostpci, k, g->port_index, g->chassis,
                       g->chassis);
    }
  }
  for (int s = 0; s < 2; s++)
    if (p->fillers[s] >= 0)
      nn_strbuf_printf(
        b,
        "#  nnfill%d: an empty root port (chassis %d) at 00:%s.0 in place of hostpci%d's, so the\n"
        "#    other hostpci entries of that slot stay visible; remove it if hostpci%d returns.\n",
        p->fillers[s], filler_chassis(s), s ? "11" : "10", p->fillers[s], p->fillers[s]);
  if (has_mapping(p))
    nn_strbuf_printf(
      b, "#  GPUs of mapping= entries are pinned to the device Proxmox chose for them here.\n");
  if (p->topo_changed)
    nn_strbuf_printf(b, "#  sockets %d x cores %d (was %d x %d): one guest socket per NUMA node.\n",
                     p->new_sockets, p->new_cores, p->sockets, p->cores);
  else if (p->vcpus % p->n_nodes)
    nn_strbuf_printf(
      b, "#  sockets %d x cores %d unchanged: %d vCPUs do not split into %d equal sockets.\n",
      p->sockets, p->cores, p->vcpus, p->n_nodes);
  write_clique_note(c, b);
  write_cpu_note(c->in->vm, b);
  nn_strbuf_printf(
    b,
    "# By hand now:\n"
    "#  1. Proxmox no longer manages these GPUs: bind them to vfio-pci on the host before the VM\n"
    "#     starts (see nccl-numa's docs/user/proxmox.md, \"Binding the GPUs to vfio-pci\").\n"
    "#  2. No hot-plug behind an expander: GPU changes need a VM stop and start.\n"
    "#  3. Review the QEMU command: qm showcmd %s --pretty\n"
    "#  4. Stop and start the VM (a reboot inside the guest keeps the old layout).\n"
    "#  In the guest the GPUs now enumerate node by node in host bus order.\n",
    vmid);
}

struct pending {
  char key[16];
  char *text; /* the whole line, without newline */
};

static int add_pending(struct pending *pv, int *n, const char *key, struct nn_strbuf *b) {
  char *t = nn_strbuf_take(b);
  if (!t) return -1;
  snprintf(pv[*n].key, sizeof pv[*n].key, "%s", key);
  pv[(*n)++].text = t;
  return 0;
}

/* The lines the rewrite adds or replaces, in Proxmox's (sorted) key order. */
static int build_pending(struct nn_proxmox_numa_ctx *c, struct pending *pv, int *n) {
  const struct nn_proxmox_numa_plan *p = &c->plan;
  struct nn_strbuf b = {0};
  char old[4096];
  int line;
  nn_strbuf_printf(&b, "args: ");
  if (nn_proxmox_numa_main_value(&c->ls, "args", old, sizeof old, &line))
    nn_strbuf_printf(&b, "%s ", old);
  write_args(c, &b);
  if (add_pending(pv, n, "args", &b)) return -1;
  if (p->topo_changed) {
    nn_strbuf_printf(&b, "cores: %d", p->new_cores);
    if (add_pending(pv, n, "cores", &b)) return -1;
  }
  nn_strbuf_printf(&b, "numa: 1");
  if (add_pending(pv, n, "numa", &b)) return -1;
  for (int k = 0; k < p->n_nodes; k++) {
    char key[16];
    snprintf(key, sizeof key, "numa%d", k);
    nn_strbuf_printf(&b, "numa%d: cpus=%d", k, p->cpu_first[k]);
    if (p->cpu_count[k] > 1) nn_strbuf_printf(&b, "-%d", p->cpu_first[k] + p->cpu_count[k] - 1);
    nn_strbuf_printf(&b, ",hostnodes=%d,memory=%ld,policy=bind", p->nodes[k], p->mem[k]);
    if (add_pending(pv, n, key, &b)) return -1;
  }
  if (p->topo_changed) {
    nn_strbuf_printf(&b, "sockets: %d", p->new_sockets);
    if (add_pending(pv, n, "sockets", &b)) return -1;
  }
  return 0;
}

/* Whether an original key line of the current config is replaced or removed. */
static int dropped(const struct nn_proxmox_numa_ctx *c, const char *key) {
  int n;
  if (!strcmp(key, "args") || !strcmp(key, "numa")) return 1;
  if (c->plan.topo_changed && (!strcmp(key, "sockets") || !strcmp(key, "cores"))) return 1;
  if (!strncmp(key, "numa", 4) && !nn_int_parse(key + 4, 0, INT_MAX, &n)) return 1;
  if (!strncmp(key, "hostpci", 7) && !nn_int_parse(key + 7, 0, INT_MAX, &n))
    return nn_proxmox_numa_is_removed(&c->plan, n);
  return 0;
}

static void emit(struct nn_proxmox_numa_ctx *c, struct nn_strbuf *b, struct pending *pv,
                 int n_pending) {
  int next = 0;
  write_header(c, b);
  if (c->ls.last_key < 0)
    while (next < n_pending) nn_strbuf_printf(b, "%s\n", pv[next++].text);
  for (int i = 0; i < c->ls.n; i++) {
    const struct nn_proxmox_numa_line *l = &c->ls.v[i];
    int in_main = i < c->ls.main_end;
    if (in_main && l->key[0])
      while (next < n_pending && strcmp(pv[next].key, l->key) < 0)
        nn_strbuf_printf(b, "%s\n", pv[next++].text);
    if (!(in_main && l->key[0] && dropped(c, l->key))) {
      nn_strbuf_put(b, l->p, l->n);
      nn_strbuf_printf(b, "\n");
    }
    if (i == c->ls.last_key)
      while (next < n_pending) nn_strbuf_printf(b, "%s\n", pv[next++].text);
  }
}

char *nn_proxmox_numa_write(struct nn_proxmox_numa_ctx *c) {
  struct pending pv[4 + NN_PVE_MAX_NUMA];
  int n_pending = 0;
  char *text = NULL;
  if (!build_pending(c, pv, &n_pending)) {
    struct nn_strbuf b = {0};
    emit(c, &b, pv, n_pending);
    text = nn_strbuf_take(&b);
  }
  for (int i = 0; i < n_pending; i++) free(pv[i].text);
  return text;
}
