/* SPDX-License-Identifier: BSD-3-Clause */
/* discover_pve.c - `discover --proxmox-vm`: on the Proxmox host, the host-side mapping
 * of one VM's passthrough; see discover_map.h. Proxmox's config and its PCI mapping are
 * proxmox.h's; the host's devices hwloc's (discover.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/discover/discover_parts.h"
#include "cli/common/proxmox.h"

/* The GPU behind one hostpci entry: NULL with *skip set for non-GPU entries,
 * NULL with *missing set when an id is not on this host. */
static const struct nn_discovery_pci *entry_gpu(const struct nn_discovery *d,
                                                const struct nn_proxmox_hostpci *h, int *missing) {
  *missing = -1;
  for (int i = 0; i < h->n_ids; i++) {
    const struct nn_proxmox_pciid *id = &h->ids[i];
    const struct nn_discovery_pci *p =
      id->has_func ? nn_discovery_find(d, &id->bus) : nn_discovery_find_gpu_in_device(d, &id->bus);
    if (p && p->is_gpu) return p;
    if (!p && !nn_discovery_has_device(d, &id->bus) && *missing < 0) *missing = i;
  }
  return NULL;
}

/* The NIC (hwloc: an OS device of class network or openfabrics) behind a hostpci entry, or NULL. */
static const struct nn_discovery_pci *entry_nic(const struct nn_discovery *d,
                                                const struct nn_proxmox_hostpci *h) {
  for (int i = 0; i < h->n_ids; i++) {
    const struct nn_discovery_pci *p = nn_discovery_find(d, &h->ids[i].bus);
    if (p && p->is_nic) return p;
  }
  return NULL;
}

struct pve_out {
  struct nn_mapwrite_gpu g[NN_PVE_MAX_HOSTPCI];
  char comments[NN_PVE_MAX_HOSTPCI][96];
  int n, nodes[NN_PVE_MAX_HOSTPCI], n_nodes, n_sm;
  struct nn_mapwrite_nic nics[NN_MAX_NICS];
  char nic_comments[NN_MAX_NICS][32];
  int n_nics;
};

/* A NIC entry: a nic line (host=, its host node, hwloc's name) with "# hostpciN", or, when
 * hwloc cannot place it, a warning. */
static void pve_nic(struct nn_discover_opts *o, const struct nn_proxmox_hostpci *h,
                    const struct nn_discovery_pci *p, struct pve_out *po) {
  char id[32];
  nn_busid_format(&p->bus, id, sizeof id);
  if (p->numa < 0 || po->n_nics >= NN_MAX_NICS) {
    nn_diag_add(&o->msgs, "warning: hostpci%d: NIC %s (%s): no nic line: %s", h->index, id,
                p->nic_name, p->numa < 0 ? p->unknown_why : "too many NICs");
    return;
  }
  snprintf(po->nic_comments[po->n_nics], sizeof po->nic_comments[0], "hostpci%d", h->index);
  po->nics[po->n_nics] = (struct nn_mapwrite_nic){.index = po->n_nics,
                                                  .has_host = 1,
                                                  .host = p->bus,
                                                  .numa = p->numa,
                                                  .name = p->nic_name,
                                                  .comment = po->nic_comments[po->n_nics]};
  po->n_nics++;
}

static int pve_entry(struct nn_discover_opts *o, const struct nn_discovery *d,
                     const struct nn_proxmox_vm *vm, const struct nn_proxmox_hostpci *h,
                     struct pve_out *po, struct nn_discover_sm *sm, FILE *notes) {
  int missing, assumed;
  char label[32], id[32];
  const struct nn_discovery_pci *p = entry_gpu(d, h, &missing);
  snprintf(label, sizeof label, "hostpci%d: ", h->index);
  if (missing >= 0) {
    nn_proxmox_pciid_format(&h->ids[missing], id, sizeof id);
    nn_diag_add(&o->msgs, "%s:%d: hostpci%d: %s is not a PCI device of this host (%s)", vm->path,
                h->line, h->index, id, d->source);
    return -1;
  }
  const struct nn_discovery_pci *nic = p ? NULL : entry_nic(d, h);
  if (nic) {
    pve_nic(o, h, nic, po);
    return 0;
  }
  if (!p) {
    nn_proxmox_pciid_format(&h->ids[0], id, sizeof id);
    if (notes)
      nn_mapwrite_comment(notes, "hostpci%d (%s): not an NVIDIA GPU, left out", h->index, id);
    return 0;
  }
  if (!h->pcie || !nn_proxmox_vm_is_q35(vm))
    nn_diag_add(&o->msgs,
                "warning: %s:%d: hostpci%d is not a PCIe device of a q35 VM "
                "(machine: q35 and pcie=1): the guest step cannot find its root port",
                vm->path, h->line, h->index);
  struct nn_mapwrite_gpu *g = &po->g[po->n];
  *g = (struct nn_mapwrite_gpu){.index = po->n, .has_host = 1, .host = p->bus};
  g->numa = nn_discover_place_gpu(o, p, label, &assumed);
  g->sm = nn_cudaprobe_sm(sm->probe, &p->bus);
  nn_discover_fill_pcie(d->thissystem, &p->bus, g);
  snprintf(po->comments[po->n], sizeof po->comments[0], "hostpci%d%s", h->index,
           assumed ? ", numa= assumed by the user (--assume-numa)" : "");
  g->comment = po->comments[po->n];
  if (g->numa < 0) return -1;
  po->n_nodes = nn_discover_add_node(po->nodes, po->n_nodes, g->numa);
  po->n_sm += g->sm > 0;
  po->n++;
  return 0;
}

static void pve_head(struct nn_discover_opts *o, const struct nn_discovery *d,
                     const struct nn_proxmox_vm *vm, const char *node, const struct pve_out *po,
                     const struct nn_discover_sm *sm) {
  nn_discover_write_head(o->out, " --proxmox-vm", d);
  fprintf(o->out, "%s\n", NN_MAPWRITE_HOST_SIDE_MARKER);
  nn_mapwrite_comment(o->out, "VM config %s, Proxmox node %s", vm->path, node);
  nn_mapwrite_comment(o->out,
                      "One gpu line per passed-through NVIDIA GPU in hostpci order; the trailing");
  nn_mapwrite_comment(o->out, "comment names its hostpci entry. bus= is filled in the guest:");
  nn_mapwrite_comment(o->out, "  nccl-numa discover --guest --host-map THIS_FILE");
  nn_mapwrite_comment(o->out, "numa lines (the guest's CPUs) come from that step too.");
  nn_discover_sm_header(o->out, sm, po->n_sm, po->n);
  nn_mapwrite_cpu(o->out, d->cpu_vendor, d->cpu_family, d->cpu_model);
}

static int pve_run(struct nn_discover_opts *o, struct nn_discovery *d, struct nn_proxmox_vm *vm,
                   const char *node) {
  struct pve_out *po = calloc(1, sizeof *po);
  struct nn_discover_sm sm;
  int bad = 0;
  if (!po) return -1;
  nn_discover_sm_open(&sm, d->thissystem, "the topology is not this machine's", o->no_cuda);
  /* Notes on skipped entries follow the head, and nothing reaches o->out unless
   * every entry is good: collect them first. */
  FILE *tmp = tmpfile();
  for (int i = 0; i < vm->n_hostpci; i++)
    bad |= pve_entry(o, d, vm, &vm->hostpci[i], po, &sm, tmp) != 0;
  bad |= nn_discover_unused_assumptions(o);
  if (!bad && !po->n) {
    nn_diag_add(&o->msgs, "%s: no hostpci entry is an NVIDIA GPU of this host", vm->path);
    bad = 1;
  } else if (bad) nn_discover_unknown_advice(o);
  else {
    pve_head(o, d, vm, node, po, &sm);
    if (tmp) {
      rewind(tmp);
      for (int c; (c = fgetc(tmp)) != EOF;) fputc(c, o->out);
    }
    for (int i = 0; i < po->n; i++) nn_mapwrite_gpu(o->out, &po->g[i]);
    for (int i = 0; i < po->n_nics; i++) nn_mapwrite_nic(o->out, &po->nics[i]);
  }
  if (tmp) fclose(tmp);
  nn_cudaprobe_close(sm.probe);
  free(po);
  return bad ? -1 : 0;
}

int nn_discover_proxmox(struct nn_discover_opts *o) {
  struct nn_proxmox_vm vm;
  struct nn_proxmox_mappings ms = {0};
  struct nn_discovery d;
  char err[1024], node[256];
  int have_maps, rc = -1;
  if (o->node) snprintf(node, sizeof node, "%s", o->node);
  else nn_proxmox_node_name(node, sizeof node);
  if (nn_proxmox_vm_load(o->vm, &vm, err, sizeof err)) {
    nn_diag_add(&o->msgs, "%s", err);
    return -1;
  }
  if (nn_proxmox_mappings_for_vm(&vm, o->pci_mapping, &ms, &have_maps, err, sizeof err)) {
    nn_diag_add(&o->msgs, "%s", err);
    goto out_vm;
  }
  if (nn_proxmox_assign(&vm, have_maps ? &ms : NULL, node, err, sizeof err)) {
    nn_diag_add(&o->msgs, "%s", err);
    goto out_maps;
  }
  if (nn_discovery_load(o->xml, &d, err, sizeof err)) {
    nn_diag_add(&o->msgs, "%s", err);
    goto out_maps;
  }
  rc = pve_run(o, &d, &vm, node);
  nn_discovery_free(&d);
out_maps:
  if (have_maps) nn_proxmox_mappings_free(&ms);
out_vm:
  nn_proxmox_vm_free(&vm);
  return rc;
}
