/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * discover_parts.h - what the three discover modes (discover_map.h) share, and nothing
 * else uses: the CUDA driver as the source of sm=, placing a GPU on its NUMA node
 * (hwloc's word, else the user's), and the common lines of the written mapping.
 */
#ifndef NCCL_NUMA_CLI_DISCOVER_PARTS_H
#define NCCL_NUMA_CLI_DISCOVER_PARTS_H

#include <stdio.h>

#include "cli/predict/cudaprobe.h"
#include "cli/discover/discover.h"
#include "cli/discover/discover_map.h"
#include "cli/discover/mapwrite.h"

/* Where sm= comes from: the CUDA driver when the topology is this machine's and
 * --no-cuda was not given, else nothing, with the reason. */
struct nn_discover_sm {
  struct nn_cudaprobe *probe; /* NULL: no sm= (close with nn_cudaprobe_close) */
  char why[160];
};

/* Opens the driver when `live` (the GPUs read are this machine's) and not `no_cuda`;
 * otherwise records why not (`not_live` when not live). */
void nn_discover_sm_open(struct nn_discover_sm *s, int live, const char *not_live, int no_cuda);

/* The comment that says where the sm= values came from (n_with_sm of n_gpus GPUs). */
void nn_discover_sm_header(FILE *out, const struct nn_discover_sm *s, int n_with_sm, int n_gpus);

/* A GPU's NUMA node: hwloc's (an --assume-numa that disagrees is an error), else the
 * user's when --allow-unknown, else -1 with the reason in o->msgs (o->n_unknown counts
 * it). `label` prefixes the messages ("hostpci3: " or ""); *assumed says the user's
 * word was taken. Marks the assumption used. */
int nn_discover_place_gpu(struct nn_discover_opts *o, const struct nn_discovery_pci *p,
                          const char *label, int *assumed);

/* After GPUs without a node: where discover can see the sockets (one message). */
void nn_discover_unknown_advice(struct nn_discover_opts *o);

/* Adds a message for each --assume-numa no GPU took; returns 1 when there was one. */
int nn_discover_unused_assumptions(struct nn_discover_opts *o);

/* Inserts `node` into the ascending set nodes[0..n) unless present; returns the new count. */
int nn_discover_add_node(int *nodes, int n, int node);

/* pcie=: the GPU's PCIe link as sysfs gives its maximum (the lower of the GPU and its
 * port), only when the topology is this machine's (`thissystem`). */
void nn_discover_fill_pcie(int thissystem, const struct nn_busid *bus, struct nn_mapwrite_gpu *g);

/* The NICs of `d` as `nic` lines (at most max; discover_nics.c says which and in what order);
 * returns how many. A NIC without a NUMA node is a warning in o->msgs. */
int nn_discover_host_nics(struct nn_discover_opts *o, const struct nn_discovery *d,
                          struct nn_mapwrite_nic *out, int max);

/* The first comment line: which mode (`what`), the host, the source, the time. */
void nn_discover_write_head(FILE *out, const char *what, const struct nn_discovery *d);

#endif
