/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proxmox_numa.h - rewriting a Proxmox VM config for NUMA-aware GPU passthrough.
 *
 * Proxmox can bind a VM's memory to host NUMA nodes (numaN lines) but has no
 * setting that tells the guest which node a passed-through GPU sits on. QEMU
 * can: one PCIe expander bus per guest node (`pxb-pcie,numa_node=K`) with the
 * GPUs' root ports behind it, and the guest reads each GPU's node from ACPI as
 * on bare metal. The only way to get that from Proxmox is its raw `args:`.
 *
 * nn_proxmox_numa_rewrite is a pure function from the parsed inputs (VM config text and
 * its parse, the cluster PCI mapping, the host's hwloc discovery) to the new
 * config text, so every rule is unit-testable; reading, writing and diffing
 * files is cmd_proxmox_numa.c's job.
 *
 * The rules:
 *  - every hostpciN entry that resolves (host= or mapping=, Proxmox's
 *    assignment order, nn_proxmox_assign) to an NVIDIA GPU (hwloc: vendor 0x10de,
 *    class 0x03xx) is removed; guest node K = K-th host NUMA node holding such
 *    a GPU, ascending;
 *  - `numa: 1` and numaK: cpus=,hostnodes=,memory=,policy=bind lines; vCPUs
 *    (sockets x cores) and memory split evenly, remainders to the lowest K;
 *    sockets becomes the node count when that divides the vCPUs;
 *  - args: gains, per guest node, a pxb-pcie (bus_nr from 128, spaced by the
 *    buses it needs plus headroom), per GPU in ascending host bus order a
 *    pcie-root-port (unique chassis/port from NN_PROXMOX_NUMA_CHASSIS_BASE) and
 *    vfio-pci device(s) for the functions the entry passed; when hostpci4
 *    (or 12) goes while later entries of its multifunction slot stay, an empty
 *    root port takes its function 0 so those stay visible to the guest;
 *  - with a clique (--p2p-clique), each GPU's function 0 gets x-nv-gpudirect-clique;
 *  - everything else in the file is kept; a header comment explains the
 *    change and the manual steps.
 */
#ifndef NCCL_NUMA_CLI_PROXMOX_NUMA_H
#define NCCL_NUMA_CLI_PROXMOX_NUMA_H

#include <stddef.h>

#include "cli/discover/discover.h"
#include "cli/common/proxmox.h"

/* Chassis and port numbers of the root ports we add. Proxmox's own
 * ich9-pcie-port-N use N = 1..16 for both, and discover --guest reads a port
 * number in that range as "hostpci N-1", so ours start above it. */
#define NN_PROXMOX_NUMA_CHASSIS_BASE 32 /* GPUs: 32-47; slot fillers: 48, 49 */
/* First expander bus number: far above what Proxmox's q35 layout puts under
 * pcie.0 (the root bus, its bridges and at most 16 root ports). */
#define NN_PROXMOX_NUMA_BUS_BASE 128
/* Spare bus numbers kept after each expander's own. */
#define NN_PROXMOX_NUMA_BUS_HEADROOM 8

/* QEMU's vfio-pci property x-nv-gpudirect-clique (an id 0-15): GPUs of one clique are
 * reported to the guest's NVIDIA driver as peers it may let talk directly, which a VM's
 * emulated host bridge otherwise hides ("NS" in nvidia-smi topo -p2p r). NONE leaves the
 * GPUs as they are; ONE puts every GPU in clique 0; PER_NODE puts guest node K's GPUs in
 * clique K, so peer access never crosses the host's socket link. */
enum nn_proxmox_clique {
  NN_PROXMOX_CLIQUE_NONE = 0,
  NN_PROXMOX_CLIQUE_ONE,
  NN_PROXMOX_CLIQUE_PER_NODE
};
#define NN_PROXMOX_CLIQUE_MAX 15

struct nn_proxmox_numa_input {
  const char *name; /* config path as given (messages, header) */
  const char *vmid; /* "101"; NULL when the name is not <vmid>.conf */
  const char *text; /* the config file's contents */
  size_t len;
  const struct nn_proxmox_vm *vm;         /* parsed from text, nn_proxmox_assign done */
  const struct nn_proxmox_mappings *maps; /* cluster PCI mapping, or NULL */
  const char *node;                       /* Proxmox node name (mapping= entries) */
  const struct nn_discovery *host;        /* the host's PCI devices and NUMA nodes */
  int p2p_clique;                         /* enum nn_proxmox_clique */
};

struct nn_proxmox_numa_output {
  char *text;  /* the new config */
  char *notes; /* remarks for the user (stderr), "" when none */
};

/* Computes the rewritten config. Returns 0, or -1 with a message naming the
 * file, line and problem in err (then out holds nothing). */
int nn_proxmox_numa_rewrite(const struct nn_proxmox_numa_input *in,
                            struct nn_proxmox_numa_output *out, char *err, size_t errsz);

/* Releases what nn_proxmox_numa_rewrite put in out. */
void nn_proxmox_numa_output_free(struct nn_proxmox_numa_output *out);

/* The VM id of a config path ".../<digits>.conf" into buf; returns 0, or -1
 * (buf = "") when the name has another form. */
int nn_proxmox_numa_vmid_from_path(const char *path, char *buf, size_t size);

#endif
