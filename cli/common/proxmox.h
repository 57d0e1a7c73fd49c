/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proxmox.h - Proxmox VE configuration read by the host-side steps.
 *
 * Two files (formats as qemu-server's PVE/QemuServer/PCI.pm, pve-guest-common's
 * PVE/Mapping/PCI.pm and the pve-docs define them):
 *  - a VM config, /etc/pve/qemu-server/<vmid>.conf: `key: value` lines; the
 *    current configuration ends at the first `[section]` (snapshots, pending);
 *    passthrough is `hostpciN: [host=]<id[;id...]>[,pcie=1][,mapping=<name>][,...]`
 *    with N in 0..15 and ids `[dddd:]bb:dd[.f]` (no function: the whole device);
 *  - the cluster PCI mapping file, /etc/pve/mapping/pci.cfg: a section per
 *    mapping, a line with its name, then indented property lines, among them
 *    `map node=<node>,path=<id[;id...]>,id=<vendor:device>[,...]`, one per device
 *    and node; a blank line ends the section.
 * The API keeps everything a later consumer (proxmox-numa) needs: per
 * hostpci entry its index, ids, pcie flag, mapping name and raw text; for the VM
 * machine type, sockets, cores, memory, numa, numaN lines and args.
 */
#ifndef NCCL_NUMA_CLI_PROXMOX_H
#define NCCL_NUMA_CLI_PROXMOX_H

#include <stddef.h>

#include "nn_config.h"

#define NN_PVE_MAX_HOSTPCI 16 /* hostpci0..hostpci15 */
#define NN_PVE_MAX_IDS 8      /* ids in one `;` list */
#define NN_PVE_MAX_NUMA 8     /* numa0..numa7 */
#define NN_PVE_MAX_FILE (1u << 20)

/* One PCI id as Proxmox writes it. */
struct nn_proxmox_pciid {
  struct nn_busid bus; /* func is 0 when has_func is 0 */
  int has_func;        /* 0: the whole device (every function) */
};

/* One `hostpciN:` entry. */
struct nn_proxmox_hostpci {
  int index;                                   /* N */
  int line;                                    /* line in the VM config */
  char *raw;                                   /* the value as written */
  char *mapping;                               /* mapping=NAME, or NULL for host= */
  struct nn_proxmox_pciid ids[NN_PVE_MAX_IDS]; /* host= ids; for mapping= entries, the
                              ids nn_proxmox_assign chose (0 before) */
  int n_ids;
  int pcie;     /* pcie=1 */
  int map_line; /* pci.cfg line of the chosen `map`; 0 for host= */
};

/* One `numaN:` line of the VM (guest NUMA node N), raw. */
struct nn_proxmox_vm_numa {
  int index;
  char *raw;
  int line;
};

struct nn_proxmox_vm {
  char *path;
  char *machine;      /* `machine:` value, e.g. "q35" or "pc-q35-8.1"; NULL when absent */
  int sockets, cores; /* 0 when absent (Proxmox default 1) */
  long memory_mb;     /* 0 when absent */
  int numa;           /* `numa: 1` */
  char *args;         /* raw `args:` (QEMU arguments) or NULL */
  char *cpu; /* raw `cpu:` (the guest's CPU type, e.g. "host") or NULL: Proxmox's default */
  struct nn_proxmox_vm_numa numa_lines[NN_PVE_MAX_NUMA];
  int n_numa_lines;
  struct nn_proxmox_hostpci hostpci[NN_PVE_MAX_HOSTPCI]; /* ascending index */
  int n_hostpci;
};

/* One `map` line of a mapping. */
struct nn_proxmox_map_entry {
  char node[64];
  struct nn_proxmox_pciid ids[NN_PVE_MAX_IDS];
  int n_ids;
  char id[32]; /* vendor:device as written, or "" */
  int line;
};

struct nn_proxmox_mapping {
  char *name;
  int line;
  struct nn_proxmox_map_entry *entries; /* file order */
  int n_entries;
};

struct nn_proxmox_mappings {
  char *path;
  struct nn_proxmox_mapping *maps;
  int n_maps;
};

/* Parses a VM config. Returns 0, or -1 with "PATH:LINE: problem" in err (then
 * nothing stays allocated). */
int nn_proxmox_vm_load(const char *path, struct nn_proxmox_vm *vm, char *err, size_t errsz);
int nn_proxmox_vm_parse(const char *name, const char *buf, size_t len, struct nn_proxmox_vm *vm,
                        char *err, size_t errsz);
void nn_proxmox_vm_free(struct nn_proxmox_vm *vm);

/* Whether the VM is a q35 machine (`machine:` q35 or pc-q35-*; absent means i440fx). */
int nn_proxmox_vm_is_q35(const struct nn_proxmox_vm *vm);

/* Parses a cluster PCI mapping file. Returns 0, or -1 with "PATH:LINE: problem"
 * (then nothing stays allocated). */
int nn_proxmox_mappings_load(const char *path, struct nn_proxmox_mappings *m, char *err,
                             size_t errsz);
int nn_proxmox_mappings_parse(const char *name, const char *buf, size_t len,
                              struct nn_proxmox_mappings *m, char *err, size_t errsz);
void nn_proxmox_mappings_free(struct nn_proxmox_mappings *m);

/* Loads the cluster PCI mapping a VM needs: the file at `path` (NULL: the cluster's
 * /etc/pve/mapping/pci.cfg) when some hostpci entry has mapping= or `path` was given,
 * else nothing. *have says whether m was loaded (free it then). Returns 0, or -1 with
 * the loader's message in err and *have 0. */
int nn_proxmox_mappings_for_vm(const struct nn_proxmox_vm *vm, const char *path,
                               struct nn_proxmox_mappings *m, int *have, char *err, size_t errsz);

/* This host's name as Proxmox names its cluster node (the short host name; "localhost"
 * when it has none), for mapping= entries. */
void nn_proxmox_node_name(char *buf, size_t size);

/* The mapping called `name`, or NULL. */
const struct nn_proxmox_mapping *nn_proxmox_mappings_find(const struct nn_proxmox_mappings *m,
                                                          const char *name);

/* Resolves every mapping= entry of `vm` for cluster node `node` as Proxmox does
 * when it starts the VM: explicit host= ids are taken first; then each mapping
 * entry, in hostpci order, gets the first `map` line of its mapping for this
 * node (file order) none of whose ids is already taken. `maps` may be NULL when
 * no entry uses a mapping. Returns 0, or -1 with a message naming the entry. */
int nn_proxmox_assign(struct nn_proxmox_vm *vm, const struct nn_proxmox_mappings *maps,
                      const char *node, char *err, size_t errsz);

/* Parses one Proxmox PCI id "[dddd:]bb:dd[.f]". Returns 0 or -1. */
int nn_proxmox_pciid_parse(const char *s, struct nn_proxmox_pciid *out);

/* Formats an id as dddd:bb:dd.f, or dddd:bb:dd for a whole device. */
void nn_proxmox_pciid_format(const struct nn_proxmox_pciid *id, char *buf, size_t size);

#endif
