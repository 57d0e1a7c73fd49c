/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proxmox_numa_apply.h - `nccl-numa proxmox-numa` on a real VM: reads the VM config,
 * the cluster PCI mapping and the host's topology, runs the rewrite (proxmox_numa.h)
 * and prints the new config, a unified diff, or replaces the file.
 *
 * Writing is careful because the file is Proxmox's: qemu-server's per-VM lock is
 * taken (when this is a Proxmox host), a VM with a `lock:` is left alone, the file
 * must not have changed since it was read, FILE.bak is written first (and never
 * overwrites a different backup), and both go in by an atomic rename.
 */
#ifndef NCCL_NUMA_CLI_PROXMOX_NUMA_APPLY_H
#define NCCL_NUMA_CLI_PROXMOX_NUMA_APPLY_H

#include <stdio.h>

#include "nn_config.h"

/* What the command was asked for. */
struct nn_proxmox_numa_apply_opts {
  const char *vm; /* --vm-config: the VM's config file */
  const char
    *pci_mapping;   /* --pci-mapping, or NULL: /etc/pve/mapping/pci.cfg when an entry needs it */
  const char *node; /* --node, or NULL: this host's short name */
  const char *xml;  /* --xml hwloc export, or NULL: HWLOC_XMLFILE, else this machine */
  int write;        /* save FILE.bak, then replace FILE */
  int diff;         /* print `diff -u` against the current file instead of the new config */
  int p2p_clique;   /* enum nn_proxmox_clique: --p2p-clique */
};

/* Does what `o` asks: the new config to `out` (unless diff or write), `diff -u` to
 * standard output, and into msgs what to tell the user, one message each without the
 * program's name: notes ("note: ..."), what was written, every problem. Returns 0, or
 * -1 when the VM cannot be rewritten or the result not shown or written. */
int nn_proxmox_numa_apply(const struct nn_proxmox_numa_apply_opts *o, FILE *out,
                          struct nn_diag *msgs);

#endif
