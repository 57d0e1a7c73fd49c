/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * discover_map.h - the mapping `nccl-numa discover` prints, in its three places: this
 * machine (bare metal or a host, from hwloc: discover.h), a Proxmox host for one VM's
 * passthrough (--proxmox-vm: the VM's hostpci GPUs with their host NUMA node, a
 * host-side mapping), and inside that VM's guest (--guest: each guest GPU matched to its
 * hostpci entry through its root port, guest.h). Each writes a complete mapping
 * (format 1, mapwrite.h) to o->out only when every GPU could be placed, and says in
 * o->msgs what it could not (they print nothing else: the command prints the messages).
 */
#ifndef NCCL_NUMA_CLI_DISCOVER_MAP_H
#define NCCL_NUMA_CLI_DISCOVER_MAP_H

#include <stddef.h>
#include <stdio.h>

#include "nn_config.h"

#define NN_DISCOVER_MAX_ASSUME 1024

/* One --assume-numa BUSID=NODE: the user's word for a GPU whose node hwloc cannot tell. */
struct nn_discover_assume {
  struct nn_busid bus;
  int numa;
  int used; /* a GPU took it (an unused one is an error) */
};

/* What to read; zero-initialise, then set what the user gave. */
struct nn_discover_opts {
  const char *xml;         /* hwloc XML instead of this machine (host and Proxmox modes) */
  const char *vm;          /* Proxmox mode: the VM's config */
  const char *pci_mapping; /* Proxmox mode: cluster PCI mapping, NULL for the default */
  const char *node;        /* Proxmox mode: node name, NULL for this host's */
  const char *host_map;    /* guest mode: the host-side mapping */
  const char *root;        /* guest mode: sysfs root, NULL for "/" */
  int allow_unknown;       /* GPUs hwloc cannot place take their node from assumed[] */
  int no_cuda;             /* never ask the CUDA driver for sm= */
  FILE *out;               /* where the mapping goes (stdout); nothing unless every GPU is placed */
  struct nn_diag msgs;     /* out: what to tell the user, one message each (a warning starts with
                              "warning: "), without the program's name; nn_diag_clear it */
  struct nn_diag map_problems; /* out: the host map's parse problems ("FILE:LINE: ..."), shown as
                              they are; nn_diag_clear it */
  int n_unknown;               /* out: GPUs left without a NUMA node */
  struct nn_discover_assume assumed[NN_DISCOVER_MAX_ASSUME];
  int n_assumed;
};

/* Adds one --assume-numa BUSID=NODE (NODE 0..NN_MAX_NUMA_ID); a second one for the same
 * GPU is refused, since which should win is not for us to guess. Returns 0, or -1 with
 * the problem in why. */
int nn_discover_assume_add(struct nn_discover_opts *o, const char *arg, char *why, size_t whysz);

/* This machine's mapping: NVIDIA GPUs in PCI bus order with their NUMA node, the CPU
 * kind, the numa lines of the nodes used. Returns 0, or -1 (the reasons in o->msgs). */
int nn_discover_host(struct nn_discover_opts *o);

/* On a Proxmox host, the host-side mapping of VM o->vm: one gpu line per passed-through
 * NVIDIA GPU in hostpci order with its host NUMA node; bus= and the numa lines are the
 * guest step's. Returns 0, or -1 (the reasons in o->msgs). */
int nn_discover_proxmox(struct nn_discover_opts *o);

/* In the guest, the complete mapping from the host map o->host_map: each guest GPU's
 * numa= and host= from the hostpci entry its root port names, the guest's own CPUs in
 * the numa lines. Returns 0, or -1 (the reasons in o->msgs). */
int nn_discover_guest(struct nn_discover_opts *o);

#endif
