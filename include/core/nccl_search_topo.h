/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_search_topo.h - the system NCCL's graph search (nccl_search.h) runs on, as NCCL
 * would build it: from a mapping (one CPU per NUMA node holding GPUs, GPUs in PCI bus
 * order) and from what NCCL reads in sysfs (a GPU's NUMA node and PCIe link). The
 * builder does no I/O; the two sysfs readers do.
 */
#ifndef NCCL_NUMA_NCCL_SEARCH_TOPO_H
#define NCCL_NUMA_NCCL_SEARCH_TOPO_H

#include <stddef.h>

#include "nccl_model.h"
#include "nccl_search.h"
#include "nn_config.h"

struct nn_cpu_kind; /* topology.h */

/* Builds the system NCCL makes of the mapping `cfg` for release `r`: one CPU per distinct value
 * of numa[i] (numaid ascending, -1 included: NCCL's flat view of a guest without NUMA), GPU i of
 * the mapping under the CPU of numa[i] (numa NULL: the mapping's own NUMA nodes, i.e. the file
 * nccl-numa serves), CPU kind `cpu`, compute capability `sm`, GPU links `links` (cfg->n_gpus
 * entries, indexed like cfg->gpus; NULL = all unknown). A link of unknown gen is assumed
 * NN_ASSUMED_PCIE_GEN x NN_ASSUMED_PCIE_WIDTH. Returns 0, or -1 with a reason in err. */
int nn_search_topo_build(const struct nn_nccl_release *r, const struct nn_config *cfg,
                         const struct nn_cpu_kind *cpu, int sm, const struct nn_pcie_link *links,
                         const int *numa, struct nn_search_topo *out, char *err, size_t errsz);

/* Adds cfg's NICs to t (built by nn_search_topo_build) for a communicator of several nodes:
 * NIC i under the CPU of numaid nic_numa[i] (nic_numa NULL: its `nic` line's node, as the
 * served file places it; -1: the CPU NCCL gives a device without NUMA information), a CPU
 * added for a numaid no GPU has. NIC links `link_gbps` (cfg->n_nics entries; NULL: NCCL's
 * fallback when sysfs gives none, gen3 x16), port speed net_gbps for each. order[k] gets the
 * mapping's index of NET k. Returns 0, or -1 with a reason in err. */
int nn_search_topo_add_nics(const struct nn_config *cfg, const int *nic_numa,
                            const float *link_gbps, float net_gbps, struct nn_search_topo *t,
                            int *order, char *err, size_t errsz);

/* 1 when <sysfs_root>/sys/bus/pci/devices/<bus> exists (sysfs_root NULL = /): this machine has
 * the device. */
int nn_search_sysfs_has_device(const char *sysfs_root, const struct nn_busid *bus);

/* The cpulist of NUMA node `node` under sysfs_root (NULL = /) into buf, newline dropped: 0, or -1
 * when missing or empty. */
int nn_search_read_sysfs_cpulist(const char *sysfs_root, int node, char *buf, size_t size);

/* The NUMA node sysfs gives the GPU at `bus` (what NCCL reads for its own topology), or -1 when
 * the file says -1 or is missing. */
int nn_search_read_sysfs_numa(const char *sysfs_root, const struct nn_busid *bus);

/* The PCIe link release `r` of NCCL reads for the GPU at `bus` from sysfs under `sysfs_root`
 * (NULL or "" = "/"): max_link_* of the GPU and its upstream port (the lower) for releases that
 * read sysfs, current_link_* of the GPU for those that ask NVML (NVML reports the current link,
 * which a GPU may lower while idle). `stable` = 1 reads the maximum for every release: what the
 * env plugin uses, so that every rank decides alike. Returns 0 and fills *out (origin
 * NN_LINK_SYSFS), or -1 when not readable. */
int nn_search_read_sysfs_link(const struct nn_nccl_release *r, const char *sysfs_root,
                              const struct nn_busid *bus, int stable, struct nn_pcie_link *out);

#endif
