/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_xml.h - the NCCL topology XML generated from a mapping: one <cpu> per NUMA node
 * with GPUs or NICs, ascending numaid, its <pci> children (the GPUs in index order, then
 * the NICs in index order) with busid and class only (NCCL fills link speed and width
 * from sysfs, and a NIC's <nic><net> from its network plugin, matched by bus id), in the
 * form NCCL's small parser reads (NCCL 2.28.9 src/graph/xml.cc, xml.h).
 *
 * Written with xml_writer.h (plugin/util): the plugin needs libc alone and loads no
 * library into NCCL's process to serve a topology.
 *
 * Output shape, byte-identical for identical input:
 *
 *   <system version="1">
 *    <cpu numaid="0" affinity="00000000,ffffffff" arch="x86_64" vendor="AuthenticAMD" familyid="25"
 * modelid="17"> <pci busid="0000:05:00.0" class="0x030000"/> <pci busid="0000:09:00.0"
 * class="0x020000"/>
 *    </cpu>
 *   </system>
 *
 * one `cpu` per NUMA node holding GPUs or NICs (ascending numaid), its `pci` children
 * in GPU index order, then NIC index order; no XML declaration, one-space indentation, every
 * element on one line, no link_speed/link_width (NCCL reads them from sysfs), no `gpu` elements.
 */
#ifndef NCCL_NUMA_TOPO_XML_H
#define NCCL_NUMA_TOPO_XML_H

#include <stddef.h>

#include "nn_config.h"
#include "topology.h"

/* NCCL's parser keeps at most 255 bytes per name or value including the byte that
 * ends it, so 253 characters is the longest value it reads back intact. */
#define NN_TOPO_XML_MAX_VALUE 253
/* NCCL's limits per element (MAX_ATTR_COUNT, MAX_SUBS in NCCL 2.28.9 src/graph/xml.h). */
#define NN_TOPO_XML_MAX_ATTRS 16
#define NN_TOPO_XML_MAX_CHILDREN 128

/* Generates the topology XML for `cfg` with the CPU kind `cpu`.
 *
 * affinity of NUMA node N comes from the mapping's `numa N cpus=` line (left out when that
 * entry's cpus is NULL: the flat view's, topology.h, when some node's CPUs are unknown), else from
 * <sysfs_root>/sys/devices/system/node/nodeN/cpulist (sysfs_root NULL or "" = "/"),
 * else it is left out.
 *
 * Returns 0 and sets *xml (malloc'd, NUL-terminated, caller frees) and *len (bytes,
 * without the NUL); err then holds "" or a note for the log, e.g. which nodes got
 * no affinity. Returns -1 with the reason in err when no file can be produced:
 * no GPUs, a GPU or NIC without bus=, an unknown CPU vendor, Intel without
 * family/model, a CPU list that is malformed or too long for NCCL, more than
 * NN_TOPO_XML_MAX_CHILDREN GPUs on one NUMA node. */
int nn_topo_xml_generate(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                         const char *sysfs_root, char **xml, size_t *len, char *err, size_t errsz);

/* Converts a Linux CPU list ("0-31,64-95", sysfs cpulist syntax; surrounding
 * whitespace and a trailing newline allowed) into the sysfs cpumap format NCCL's
 * `affinity` takes: comma-separated 32-bit words of 8 lowercase hex digits, most
 * significant first, as many words as the highest CPU needs.
 * Returns the length written (NUL-terminated), -1 when the list is empty or
 * malformed (bad number, inverted range, empty item), -2 when out is too small. */
int nn_cpulist_to_cpumap(const char *list, char *out, size_t outsz);

#endif
