/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * guest.h - the PCI devices and NUMA nodes a (guest) Linux shows in sysfs.
 *
 * Read under a root directory (default "/") so tests can build a fake tree:
 * ROOT/sys/bus/pci/devices/<busid> (links into ROOT/sys/devices/pci<dom>:<bus>/...)
 * with vendor, class and numa_node files, root ports' `config` files, and
 * ROOT/sys/devices/system/node/node<N>/cpulist.
 *
 * Inside a Proxmox q35 guest with pcie=1 each passed-through device sits alone
 * behind its own root port, and the port tells which hostpci entry it is (facts
 * from qemu-server 9.x, PVE/QemuServer/PCI.pm; see nn_guest_hostpci_from_port_address):
 * hostpci0-3 behind ich9-pcie-port-1..4 at 00:1c.0-3, hostpci4-11 behind
 * ich9-pcie-port-5..12 at 00:10.0-7, hostpci12-15 behind ports 13..16 at
 * 00:11.0-3; each port's PCIe port number (LnkCap bits 31:24) is hostpci + 1.
 */
#ifndef NCCL_NUMA_CLI_GUEST_H
#define NCCL_NUMA_CLI_GUEST_H

#include <stddef.h>

#include "nn_config.h"

#define NN_GUEST_MAX_PCI 4096

/* One PCI function. */
struct nn_guest_pci {
  struct nn_busid bus;
  unsigned vendor;
  unsigned class_code; /* 24 bits, e.g. 0x030200 */
  int numa_node;       /* sysfs numa_node; -1 when -1 or absent */
  int is_gpu;          /* NVIDIA and display class */
  int has_port;        /* a root port sits above it */
  struct nn_busid port;
  int port_number;     /* root port's LnkCap port number, -1 when unreadable */
  char port_note[128]; /* why the port number is unknown, or "" */
};

struct nn_guest_numa {
  int node;
  char *cpus; /* cpulist as the kernel prints it */
};

struct nn_guest {
  char root[512];
  struct nn_guest_pci *pcis; /* every function, sorted by bus id */
  int n_pcis;
  struct nn_guest_numa *numas; /* ascending node; empty when the OS has no node dirs */
  int n_numas;
};

/* Reads ROOT's sysfs. Returns 0 (also with no device at all), or -1 with a reason
 * when ROOT/sys/bus/pci/devices cannot be read. */
int nn_guest_scan(const char *root, struct nn_guest *g, char *err, size_t errsz);
void nn_guest_free(struct nn_guest *g);

/* The function with this bus id, or NULL. */
const struct nn_guest_pci *nn_guest_find(const struct nn_guest *g, const struct nn_busid *bus);

/* Number of GPUs. */
int nn_guest_gpu_count(const struct nn_guest *g);

/* The PCIe port number (LnkCap bits 31:24) from a config-space image, found by
 * walking the capability list to the PCI Express capability (id 0x10).
 * Returns it, or -1 when the image is too short, has no capability list or no
 * PCIe capability (the list is followed at most 48 steps: hostile images loop). */
int nn_guest_config_port_number(const unsigned char *cfg, size_t len);

/* The hostpci number of a Proxmox q35 root port from its address alone, or -1. */
int nn_guest_hostpci_from_port_address(const struct nn_busid *port);

/* The hostpci number of a device from its root port: the LnkCap port number
 * (port - 1) when readable, else the address table. `method` gets what was used
 * ("LnkCap port number" or "root-port address"); `note` any disagreement.
 * Returns -1 when neither tells. */
int nn_guest_hostpci(const struct nn_guest_pci *p, const char **method, char *note,
                     size_t note_size);

#endif
