/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * visible.h - the GPUs this process can use (CUDA_VISIBLE_DEVICES) as a subset of the
 * mapping, and the mapping seen through them.
 *
 * NCCL keeps only a communicator's own GPUs of an imported topology: ncclTopoGetSystem marks
 * the rank's GPU keep=1 and ncclTopoTrimXml drops every cpu/pci branch without a kept GPU or
 * NIC before the ranks' XMLs are fused (NCCL 2.28.9 src/graph/topo.cc, src/graph/xml.cc). A
 * process whose GPUs all sit on one NUMA node therefore gives NCCL one CPU node: the verdict,
 * the served file and the tuner's scope are computed on those GPUs only (docs/user/topology.md).
 */
#ifndef NCCL_NUMA_VISIBLE_H
#define NCCL_NUMA_VISIBLE_H

#include <stddef.h>

#include "nccl_search.h"
#include "nn_config.h"

#define NN_VISIBLE_MAX NN_SEARCH_MAX_GPUS

/* What applies to this process. */
enum nn_visible_kind {
  NN_VISIBLE_ALL = 0,  /* the whole mapping: CUDA_VISIBLE_DEVICES unset, or not usable (why) */
  NN_VISIBLE_ONE_NODE, /* two or more visible GPUs, all on one NUMA node: the subset applies */
  NN_VISIBLE_SPANS,    /* visible GPUs on several NUMA nodes: the subset applies too (NCCL keeps
                          only these of the file), scoped cross where a communicator needs more
                          GPUs than one node holds */
  NN_VISIBLE_UNMAPPED, /* the driver shows a GPU whose bus id the mapping's bus= lines lack: the
                          mapping does not describe this machine: no topology, no rules (its
                          `env` lines, the network's settings, still apply) */
};

/* Where the visible set came from. */
enum nn_visible_source {
  NN_VISIBLE_FROM_NONE = 0, /* nothing to ask: the whole mapping */
  NN_VISIBLE_FROM_VARIABLE, /* CUDA_VISIBLE_DEVICES' index entries, as the mapping's gpu indices */
  NN_VISIBLE_FROM_CUDA,     /* the CUDA driver this process has loaded */
  NN_VISIBLE_FROM_PROC,     /* the NVIDIA driver's list of this container's GPUs (ROOT/proc/...) */
};

struct nn_visible {
  int kind;                /* enum nn_visible_kind */
  int n;                   /* visible mapping GPUs, in CUDA's order (the process's device 0 first);
                              listed whatever the kind, 0 when unset and no driver was asked */
  int gpu[NN_VISIBLE_MAX]; /* their positions in cfg->gpus */
  int unmatched;           /* the devices could not be matched to the mapping (why): none listed */
  int numa;                /* ONE_NODE: their NUMA node */
  int set;                 /* CUDA_VISIBLE_DEVICES was set */
  char list[128];          /* the value as given, for messages ("" when unset) */
  char why[400];           /* for the log and the CLI: what was decided and why */
  char stop[160];          /* "" or why the list ended early (an index CUDA would reject) */
  int source;              /* enum nn_visible_source */
};

/* The bus ids of the devices CUDA enumerates for this process, in CUDA's order, as
 * nn_cudrv_visible_busids gives them: returns the count, or -1 when unknown. */
typedef int (*nn_visible_busids_fn)(struct nn_busid *out, int max);

/* Resolves the process's devices against `cfg`. With the driver's view (`busids`, NULL = none,
 * or returning -1) its bus ids are matched to the mapping's bus=, whatever `value` says (UUID
 * GPU-... and MIG-... entries included, and a container that shows only some GPUs with
 * CUDA_VISIBLE_DEVICES unset). Without it `value` (CUDA_VISIBLE_DEVICES; NULL = unset: the whole
 * mapping) is read: index entries are the mapping's gpu indices, and an entry CUDA would reject
 * (not a number, or an index the mapping, which lists the machine's GPUs, lacks) ends the list
 * there, as CUDA does. A driver's device whose bus id the mapping (bus= on every
 * gpu line) lacks gives NN_VISIBLE_UNMAPPED. When a UUID needs the driver, an index is not in the
 * mapping, or only one GPU is visible (its communicator may hold other processes' GPUs on other
 * nodes), the whole mapping applies. `why` says what was decided. Never fails. */
void nn_visible_resolve(const struct nn_config *cfg, const char *value, nn_visible_busids_fn busids,
                        struct nn_visible *out);

/* The mapping as this process sees it: a shallow copy of `cfg` whose gpus are `storage` (at
 * least NN_VISIBLE_MAX entries) holding the visible GPUs renumbered 0..n-1 in CUDA's order;
 * rules, numa lines and the rest are shared with `cfg` (do not nn_config_free the view); its
 * nics are those of the visible GPUs' nodes. For any kind but ONE_NODE and SPANS, *view is *cfg
 * unchanged. */
void nn_visible_view(const struct nn_config *cfg, const struct nn_visible *vis,
                     struct nn_gpu *storage, struct nn_config *view);

/* The mapping a communicator of `n_ranks` over `n_nodes` is scoped on: the view (as
 * nn_visible_view, in `storage` and `view`) when the job's GPUs are known (ONE_NODE, SPANS) and
 * the ranks per node fit in them; else `cfg`. */
const struct nn_config *nn_visible_for_comm(const struct nn_config *cfg,
                                            const struct nn_visible *vis, size_t n_ranks,
                                            size_t n_nodes, struct nn_gpu *storage,
                                            struct nn_config *view);

/* The root under which the NVIDIA driver's list and version are read instead of /:
 * NN_VISIBLE_ROOT_ENV when it is an absolute path (tests, and what-if runs of the CLI), else
 * NULL (/). */
#define NN_VISIBLE_ROOT_ENV "NCCL_NUMA_DRIVER_ROOT"
const char *nn_visible_driver_root(void);

/* The GPUs as the job's engine numbers them (its GPU 0 first), as positions in cfg->gpus
 * written to pos (at most max): the visible ones whatever their nodes, or every GPU of the
 * mapping when nothing names them (unset, no driver asked). Returns their count, or -1 when
 * the devices could not be matched to the mapping (vis->why says why). */
int nn_visible_order(const struct nn_config *cfg, const struct nn_visible *vis, int *pos, int max);

/* The process's own visible set for `cfg`: CUDA_VISIBLE_DEVICES resolved with the CUDA
 * driver's bus ids when the process has loaded the driver, else with the NVIDIA driver's list
 * of this container's GPUs (nn_visible_resolve_at under nn_visible_driver_root()), read once
 * per process while its directory stays the same (one stat). Reads /proc: call it at init,
 * never on NCCL's per-call path. */
void nn_visible_of_process(const struct nn_config *cfg, struct nn_visible *out);

/* How many times nn_visible_of_process read the driver's list from its directory (tests). */
int nn_visible_driver_reads(void);

/* The GPUs the NVIDIA driver shows this container: the bus-id names of the directories in
 * ROOT/proc/driver/nvidia/gpus/ (root NULL or "" = /), in PCI bus order, at most `max` (the
 * lowest). The NVIDIA container runtime shows a container only the GPUs it was given there,
 * as it shows it only their /dev/nvidiaN. Returns the count, or -1 when the directory cannot
 * be read (no NVIDIA driver). Names that are not bus ids are skipped. */
int nn_visible_driver_busids(const char *root, struct nn_busid *out, int max);

/* The running NVIDIA driver's version as ROOT/proc/driver/nvidia/version prints it
 * ("580.95.05"; root NULL or "" = /) into buf. Returns 0, or -1 (buf "") when it cannot be
 * read. */
int nn_visible_driver_version(const char *root, char *buf, size_t size);

/* nn_visible_resolve with, when `busids` gives nothing (the CUDA driver not loaded), the
 * NVIDIA driver's list under `root` (nn_visible_driver_busids): with `value` unset, its GPUs
 * are the process's, matched to the mapping by bus id (a pod given one socket's GPUs gets that
 * socket's view); with index entries in `value` and a list that holds only some of the
 * mapping's GPUs (a container), the indices count the listed GPUs from 0, in bus order, as
 * CUDA renumbers them there. The mapping needs bus= on every gpu line for either; without,
 * `value` is read as by nn_visible_resolve. A listed GPU that the mapping's bus ids lack gives
 * NN_VISIBLE_UNMAPPED. */
void nn_visible_resolve_at(const struct nn_config *cfg, const char *value,
                           nn_visible_busids_fn busids, const char *root, struct nn_visible *out);

#endif
