/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * discover.h - the host's GPUs and their NUMA nodes, read with hwloc.
 *
 * Works on the live machine or on a saved topology (HWLOC_XMLFILE, or an
 * explicit XML path), so `nccl-numa discover` is testable without the hardware.
 * Every PCI device is recorded (the Proxmox step must tell "not an NVIDIA GPU"
 * from "not on this host"); NVIDIA GPUs (vendor 0x10de, class 0x03xx) and NICs (a PCI
 * function with an OS device of class network or openfabrics) also get their NUMA node
 * when hwloc's locality pins them to exactly one.
 */
#ifndef NCCL_NUMA_CLI_DISCOVER_H
#define NCCL_NUMA_CLI_DISCOVER_H

#include <stddef.h>

#include "nn_config.h"

#define NN_DISCOVERY_NVIDIA 0x10de

/* One PCI device of the topology. */
struct nn_discovery_pci {
  struct nn_busid bus;
  unsigned vendor, device;
  unsigned class_id;     /* base class << 8 | subclass, e.g. 0x0302 */
  int is_gpu;            /* NVIDIA and display class */
  int numa;              /* GPUs and NICs: NUMA node (OS index), -1 when unknown */
  char unknown_why[256]; /* GPUs and NICs with numa -1: why hwloc cannot tell */
  int is_nic;            /* hwloc has an OS device of class network or openfabrics under it */
  int nic_rdma;          /* ... of class openfabrics (an IB/RoCE device NCCL's IB plugin uses) */
  char nic_name[64];     /* the openfabrics device's name (mlx5_0), else the interface's */
};

/* One NUMA node of the topology and its CPUs. */
struct nn_discovery_numa {
  int node;   /* OS index */
  char *cpus; /* "0-31,64-95" */
};

struct nn_discovery {
  char source[512];   /* "this machine" or "hwloc XML <path>" */
  char hostname[128]; /* HostName info, or "" */
  int thissystem;     /* 1 when the topology is the machine we run on */
  int is_virtual;     /* DMI info names a hypervisor's machine */
  char virtual_why[160];
  char cpu_vendor[32];           /* Package CPUVendor, or "" */
  int cpu_family, cpu_model;     /* -1 when absent */
  struct nn_discovery_pci *pcis; /* sorted by bus id */
  int n_pcis;
  struct nn_discovery_numa *numas; /* ascending node */
  int n_numas;
};

/* Loads the topology with I/O discovery: from the hwloc XML file `xml_path` when
 * not NULL, else from the one HWLOC_XMLFILE names, else from this machine. The
 * file is read as a regular file of at most 64 MiB without blocking (a FIFO, a
 * device, an oversized, missing or unreadable file is an error naming it; a
 * missing HWLOC_XMLFILE never falls back to the machine). Returns 0, or -1 with a
 * reason in err. */
int nn_discovery_load(const char *xml_path, struct nn_discovery *out, char *err, size_t errsz);

/* Releases what nn_discovery_load allocated (the struct itself is the caller's). */
void nn_discovery_free(struct nn_discovery *d);

/* The device with exactly this bus id, or NULL. */
const struct nn_discovery_pci *nn_discovery_find(const struct nn_discovery *d,
                                                 const struct nn_busid *bus);

/* The first NVIDIA GPU among the functions of domain:bus:dev, or NULL
 * (Proxmox `host=` ids without a function mean the whole device). */
const struct nn_discovery_pci *nn_discovery_find_gpu_in_device(const struct nn_discovery *d,
                                                               const struct nn_busid *bus);

/* Whether any function of domain:bus:dev exists. */
int nn_discovery_has_device(const struct nn_discovery *d, const struct nn_busid *bus);

/* The NUMA node with OS index `node`, or NULL. */
const struct nn_discovery_numa *nn_discovery_find_numa(const struct nn_discovery *d, int node);

/* Number of GPUs. */
int nn_discovery_gpu_count(const struct nn_discovery *d);

/* Orders bus ids as PCI enumeration does (domain, bus, device, function). */
int nn_discovery_busid_compare(const struct nn_busid *a, const struct nn_busid *b);

#endif
