/* SPDX-License-Identifier: BSD-3-Clause */
/* discover_map.c - the mapping of this machine (bare metal or a host), and what the
 * three discover modes share; see discover_map.h and discover_parts.h. */
#include "cli/discover/discover_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/discover/discover_parts.h"
#include "errbuf.h"
#include "nccl_model.h"
#include "nccl_search.h"
#include "nccl_search_topo.h"
#include "numparse.h"

int nn_discover_assume_add(struct nn_discover_opts *o, const char *arg, char *why, size_t whysz) {
  const char *eq = strrchr(arg, '=');
  char id[64];
  struct nn_discover_assume a = {0};
  if (!eq || (size_t)(eq - arg) >= sizeof id) {
    nn_errbuf_set(why, whysz, "--assume-numa wants BUSID=NODE, got '%s'", arg);
    return -1;
  }
  memcpy(id, arg, (size_t)(eq - arg));
  id[eq - arg] = 0;
  if (nn_busid_parse(id, &a.bus) || nn_int_parse(eq + 1, 0, NN_MAX_NUMA_ID, &a.numa)) {
    nn_errbuf_set(why, whysz, "--assume-numa wants BUSID=NODE (NODE 0-%d), got '%s'",
                  NN_MAX_NUMA_ID, arg);
    return -1;
  }
  for (int i = 0; i < o->n_assumed; i++)
    if (!nn_discovery_busid_compare(&o->assumed[i].bus, &a.bus)) {
      char b[16];
      nn_busid_format(&a.bus, b, sizeof b);
      nn_errbuf_set(why, whysz, "--assume-numa given twice for GPU %s (numa %d and %d)", b,
                    o->assumed[i].numa, a.numa);
      return -1;
    }
  if (o->n_assumed == NN_DISCOVER_MAX_ASSUME) {
    nn_errbuf_set(why, whysz, "more than %d --assume-numa", NN_DISCOVER_MAX_ASSUME);
    return -1;
  }
  o->assumed[o->n_assumed++] = a;
  return 0;
}

void nn_discover_sm_open(struct nn_discover_sm *s, int live, const char *not_live, int no_cuda) {
  s->probe = NULL;
  if (no_cuda) snprintf(s->why, sizeof s->why, "--no-cuda");
  else if (!live) snprintf(s->why, sizeof s->why, "%s", not_live);
  else s->probe = nn_cudaprobe_open(s->why, sizeof s->why);
}

void nn_discover_sm_header(FILE *out, const struct nn_discover_sm *s, int n_with_sm, int n_gpus) {
  if (s->probe && n_with_sm == n_gpus)
    nn_mapwrite_comment(out, "sm= from the CUDA driver (matched by PCI bus id)");
  else if (s->probe)
    nn_mapwrite_comment(out, "sm= from the CUDA driver where it knew the device (%d of %d GPUs)",
                        n_with_sm, n_gpus);
  else nn_mapwrite_comment(out, "sm= left out: the CUDA driver cannot tell (%s)", s->why);
}

static const struct nn_discover_assume *find_assumed(struct nn_discover_opts *o,
                                                     const struct nn_busid *bus) {
  for (int i = 0; i < o->n_assumed; i++)
    if (!nn_discovery_busid_compare(&o->assumed[i].bus, bus)) {
      o->assumed[i].used = 1;
      return &o->assumed[i];
    }
  return NULL;
}

/* A GPU's NUMA node: hwloc's, else the user's (--allow-unknown), else -1 with a message. */
int nn_discover_place_gpu(struct nn_discover_opts *o, const struct nn_discovery_pci *p,
                          const char *label, int *assumed) {
  char id[32];
  const struct nn_discover_assume *a = find_assumed(o, &p->bus);
  nn_busid_format(&p->bus, id, sizeof id);
  *assumed = 0;
  if (p->numa >= 0) {
    if (a && a->numa != p->numa) {
      nn_diag_add(&o->msgs, "%sGPU %s: --assume-numa says %d but hwloc places it on NUMA node %d",
                  label, id, a->numa, p->numa);
      return -1;
    }
    return p->numa;
  }
  if (o->allow_unknown && a) {
    *assumed = 1;
    return a->numa;
  }
  nn_diag_add(&o->msgs, "%sGPU %s: NUMA node unknown: %s%s", label, id, p->unknown_why,
              o->allow_unknown ? " (and no --assume-numa for it)" : "");
  o->n_unknown++;
  return -1;
}

void nn_discover_unknown_advice(struct nn_discover_opts *o) {
  if (!o->n_unknown) return;
  nn_diag_add(
    &o->msgs,
    "run discover where the sockets are visible: on bare metal, or on the\n"
    "  Proxmox host with --proxmox-vm /etc/pve/qemu-server/<vmid>.conf, then in the guest with\n"
    "  --guest --host-map FILE. If you know the sockets, pass --allow-unknown with\n"
    "  --assume-numa BUSID=NODE for each GPU listed above.");
}

int nn_discover_unused_assumptions(struct nn_discover_opts *o) {
  int bad = 0;
  for (int i = 0; i < o->n_assumed; i++)
    if (!o->assumed[i].used) {
      char id[32];
      nn_busid_format(&o->assumed[i].bus, id, sizeof id);
      nn_diag_add(&o->msgs, "--assume-numa %s: no such GPU", id);
      bad = 1;
    }
  return bad;
}

static void write_numa_lines(FILE *out, const struct nn_discovery *d, const int *used, int n_used) {
  for (int i = 0; i < n_used; i++) {
    const struct nn_discovery_numa *m = nn_discovery_find_numa(d, used[i]);
    if (m && m->cpus && m->cpus[0]) nn_mapwrite_numa(out, m->node, m->cpus);
    else nn_mapwrite_comment(out, "numa %d: the topology lists no CPUs for this node", used[i]);
  }
}

int nn_discover_add_node(int *nodes, int n, int node) {
  for (int i = 0; i < n; i++)
    if (nodes[i] == node) return n;
  int at = n;
  while (at > 0 && nodes[at - 1] > node) {
    nodes[at] = nodes[at - 1];
    at--;
  }
  nodes[at] = node;
  return n + 1;
}

/* pcie=: the GPU's PCIe link as sysfs gives its maximum (the lower of the GPU and its port), when
 * the topology is this machine's. */
void nn_discover_fill_pcie(int thissystem, const struct nn_busid *bus, struct nn_mapwrite_gpu *g) {
  struct nn_pcie_link l;
  if (thissystem &&
      nn_search_read_sysfs_link(nn_nccl_release_find(0, NULL), NULL, bus, 1, &l) == 0) {
    g->pcie_gen = l.gen;
    g->pcie_width = l.width;
  }
}

void nn_discover_write_head(FILE *out, const char *what, const struct nn_discovery *d) {
  char when[64];
  nn_mapwrite_timestamp(when, sizeof when);
  nn_mapwrite_comment(out, "nccl-numa discover%s: on %s, from %s, %s", what,
                      d->hostname[0] ? d->hostname : "(unnamed host)", d->source, when);
}

/* ---- bare metal / host ---- */

int nn_discover_host(struct nn_discover_opts *o) {
  struct nn_discovery d;
  char err[512];
  if (nn_discovery_load(o->xml, &d, err, sizeof err)) {
    nn_diag_add(&o->msgs, "%s", err);
    return -1;
  }
  int n = nn_discovery_gpu_count(&d), bad = 0, k = 0, n_nodes = 0, n_sm = 0;
  struct nn_mapwrite_gpu *g = calloc(n ? (size_t)n : 1, sizeof *g);
  int *nodes = calloc((size_t)n + NN_MAX_NICS, sizeof *nodes); /* GPU and NIC nodes */
  int *assumed = calloc(n ? (size_t)n : 1, sizeof *assumed);
  struct nn_discover_sm sm;
  nn_discover_sm_open(&sm, d.thissystem, "the topology is not this machine's", o->no_cuda);
  for (int i = 0; g && nodes && assumed && i < d.n_pcis; i++) {
    const struct nn_discovery_pci *p = &d.pcis[i];
    if (!p->is_gpu) continue;
    g[k] = (struct nn_mapwrite_gpu){
      .index = k, .has_bus = 1, .bus = p->bus, .has_host = 1, .host = p->bus};
    g[k].numa = nn_discover_place_gpu(o, p, "", &assumed[k]);
    g[k].sm = nn_cudaprobe_sm(sm.probe, &p->bus);
    nn_discover_fill_pcie(d.thissystem, &p->bus, &g[k]);
    g[k].comment = assumed[k] ? "numa= assumed by the user (--assume-numa)" : NULL;
    n_sm += g[k].sm > 0;
    if (g[k].numa < 0) bad = 1;
    else n_nodes = nn_discover_add_node(nodes, n_nodes, g[k].numa);
    k++;
  }
  bad |= nn_discover_unused_assumptions(o);
  if (!g || !nodes || !assumed) nn_diag_add(&o->msgs, "out of memory");
  else if (!n) {
    nn_diag_add(&o->msgs, "no NVIDIA GPU (vendor 0x10de, class 0x03xx) in %s", d.source);
    bad = 1;
  } else if (bad) nn_discover_unknown_advice(o);
  else {
    struct nn_mapwrite_nic nics[NN_MAX_NICS];
    int n_nics = nn_discover_host_nics(o, &d, nics, NN_MAX_NICS);
    for (int i = 0; i < n_nics; i++) n_nodes = nn_discover_add_node(nodes, n_nodes, nics[i].numa);
    nn_discover_write_head(o->out, "", &d);
    nn_mapwrite_comment(
      o->out, "GPU indices follow PCI bus order: nvidia-smi's order, and CUDA's for identical");
    nn_mapwrite_comment(o->out, "GPUs or with CUDA_DEVICE_ORDER=PCI_BUS_ID.");
    nn_discover_sm_header(o->out, &sm, n_sm, n);
    nn_mapwrite_cpu(o->out, d.cpu_vendor, d.cpu_family, d.cpu_model);
    write_numa_lines(o->out, &d, nodes, n_nodes);
    for (int i = 0; i < k; i++) nn_mapwrite_gpu(o->out, &g[i]);
    for (int i = 0; i < n_nics; i++) nn_mapwrite_nic(o->out, &nics[i]);
  }
  int rc = (!g || !nodes || !assumed || bad) ? -1 : 0;
  nn_cudaprobe_close(sm.probe);
  free(g);
  free(nodes);
  free(assumed);
  nn_discovery_free(&d);
  return rc;
}
