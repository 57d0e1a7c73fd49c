/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topology.h - sockets and scope: where a communicator's ranks sit, which CPU kind
 * NCCL will model, and whether serving the topology is no worse for NCCL's own graph
 * search than NCCL's own view (docs/user/topology.md).
 */
#ifndef NCCL_NUMA_TOPOLOGY_H
#define NCCL_NUMA_TOPOLOGY_H

#include <stddef.h>

#include "nccl_cost.h"
#include "nccl_model.h"
#include "nccl_search.h"
#include "nn_config.h"

/* Scope of a communicator (enum nn_scope: INTRA, CROSS or UNKNOWN), from facts that
 * are equal on every rank: nRanks, nNodes and the mapping. */
int nn_topology_scope(const struct nn_config *cfg, size_t n_ranks, size_t n_nodes);

/* "NUMA0=4 NUMA1=4": GPUs per NUMA node in ascending node order ("no GPUs mapped"). */
void nn_topology_describe_sockets(const struct nn_config *cfg, char *buf, size_t size);

/* The CPU kind written into the topology XML and modelled by NCCL. */
struct nn_cpu_kind {
  char vendor[16];   /* "AuthenticAMD" or "GenuineIntel"; "" when unknown */
  int family, model; /* -1 when unknown */
  int from_cpuinfo;  /* 1 when read from cpuinfo (nn_cpuinfo_default), 0 from the `cpu` line */
};

/* Resolves the CPU kind: the `cpu` line, else `cpuinfo_path` (NULL: /proc/cpuinfo).
 * Returns 0, or -1 with a reason in err. */
int nn_topology_cpu_kind(const struct nn_config *cfg, const char *cpuinfo_path,
                         struct nn_cpu_kind *out, char *err, size_t errsz);

/* The compute capability the mapping declares (all `sm=` agree), 0 when none,
 * -1 when they disagree. */
int nn_topology_declared_sm(const struct nn_config *cfg);

/* Where the CPU kind of NCCL's own view comes from. */
enum nn_own_cpu_source {
  NN_OWN_CPU_SERVED = 0, /* none given: the served file's (the mapping's `cpu` line or cpuinfo) */
  NN_OWN_CPU_CPUINFO,    /* this machine's cpuinfo: it has the mapping's GPUs */
  NN_OWN_CPU_MAPPING,    /* the mapping's `cpu` line: this machine lacks its GPUs (or cpuinfo) */
};

/* What the verdict is computed from. Everything here is equal on every rank of a job. */
struct nn_verdict_in {
  int nccl_version;                  /* NCCL_VERSION_CODE of the loading NCCL; 0 = unknown */
  int runtime_sm;                    /* from the driver, 0 = unknown; the mapping's sm= wins */
  const struct nn_pcie_link *links;  /* per mapping GPU (cfg->gpus order); NULL = unknown */
  const int *own_numa;               /* NUMA node NCCL's own detection reads per GPU; NULL = none
                                        (-1 for all: a guest without NUMA, NCCL's flat view) */
  const struct nn_cpu_kind *own_cpu; /* CPU kind NCCL detects itself; NULL = the served one */
  int own_cpu_source;                /* enum nn_own_cpu_source of own_cpu */
  int decide_only;                   /* 1: skip the predictions the decision does not need
                                        (mode numa/off, one NUMA node): the env plugin */
};

/* The facts of this machine a verdict reads, gathered once (nn_topology_gather). */
struct nn_verdict_facts {
  struct nn_pcie_link links[NN_SEARCH_MAX_GPUS];
  int numa[NN_SEARCH_MAX_GPUS];
  struct nn_cpu_kind own_cpu;
  struct nn_verdict_in in; /* points into this struct */
};

/* nn_topology_gather's flags. */
#define NN_GATHER_STABLE 1 /* links: sysfs's maximum for every release (equal on every rank) */
#define NN_GATHER_HERE 2   /* NCCL runs on this machine (the env plugin): its cpuinfo, always */

/* Gathers, for release `version` (0 = unknown), each GPU's PCIe link (sysfs under `sysfs_root`
 * as that release reads it, or its maximum with NN_GATHER_STABLE; else the mapping's pcie=; else
 * unknown), the NUMA node sysfs gives each GPU and the CPU kind NCCL's own view has: `cpuinfo`'s
 * (NULL: /proc/cpuinfo) when named (or a CLI default set), with NN_GATHER_HERE, or when this
 * machine has the mapping's GPUs (each bus= in sysfs); else the mapping's `cpu` line (the machine
 * the mapping describes), else cpuinfo's. */
void nn_topology_gather(const struct nn_config *cfg, int version, int runtime_sm,
                        const char *sysfs_root, const char *cpuinfo, int flags,
                        struct nn_verdict_facts *out);

/* What a verdict decided, and on which ground. */
enum nn_verdict_kind {
  NN_VERDICT_NO_GPUS = 0, /* withheld: the mapping has no gpu lines */
  NN_VERDICT_SM_DISAGREE, /* withheld: the gpu lines declare different sm= values */
  NN_VERDICT_CPU_UNKNOWN, /* withheld: no CPU kind (no `cpu` line, cpuinfo unreadable) */
  NN_VERDICT_MODE_OFF,    /* withheld: topology mode=off */
  NN_VERDICT_MODE_NUMA, /* served: mode=numa, whatever NCCL's model says (warning when rated slower)
                         */
  NN_VERDICT_ONE_NODE,  /* served: mode=auto, every GPU on one NUMA node */
  NN_VERDICT_UNPREDICTED, /* withheld: mode=auto, several nodes, NCCL's search not predictable
                             (predict_error) */
  NN_VERDICT_NOT_WORSE, /* served: mode=auto, the NUMA file: NCCL's model rates it best, and no size
                           slower than its own view */
  NN_VERDICT_WORSE,     /* withheld: mode=auto, neither file beats NCCL's own view by its model */
  NN_VERDICT_FLAT,      /* served: mode=auto, the flat file (every GPU under one CPU node): NCCL's
                           model rates it best, faster than its own view and no size slower */
};

/* The files a verdict weighs for the job's GPUs, besides NCCL's own view. */
enum nn_topo_file {
  NN_FILE_NONE = 0, /* nothing served: NCCL's own view */
  NN_FILE_NUMA,     /* the mapping's NUMA file: GPUs under their nodes' CPUs */
  NN_FILE_FLAT,     /* every GPU under one CPU node, as a guest without NUMA nodes shows them */
};

/* One candidate file as NCCL's model rates it against NCCL's own view. */
struct nn_file_rating {
  struct nn_search_pred pred; /* NCCL's search on the file */
  double slower;   /* modelled all-reduce time on the file over that on NCCL's own view, at the
                      worst size; 0: not computed */
  int slower_log2; /* that size, 2^slower_log2 bytes */
  int faster;      /* some size is modelled faster than on NCCL's own view */
};

/* Whether the env plugin serves a topology file, which one, and why: the one verdict that auto
 * mode, `topo`, `explain` and `check` all use. It carries the decision (`kind`, `file`) and its
 * facts only; the sentences are the renderers' (nn_topology_verdict_text, _warning). */
struct nn_topo_verdict {
  int kind;               /* enum nn_verdict_kind */
  int serve;              /* 1: serve NCCL_TOPO_FILE */
  int file;               /* enum nn_topo_file served (NONE when withheld) */
  int auto_file;          /* what mode=auto serves (predicted, two or more nodes): a fix's target */
  int mode;               /* enum nn_topo_mode in force */
  int numa_nodes;         /* NUMA nodes holding GPUs */
  int sm;                 /* capability predicted with (>0) */
  int sm_assumed;         /* 1: no sm known, 10.0 assumed */
  int version;            /* release the prediction is for (version code, > 0) */
  int version_unverified; /* 1: newer (or older) than the table; its nearest row is used */
  int no_env_plugin;      /* the release has no env plugin: nothing is served (set by the CLI) */
  const struct nn_nccl_release *rel;
  int predicted;                     /* served, own, numa and flat are filled */
  struct nn_search_pred served, own; /* NCCL's search on the served file (the NUMA file when
                                        none is) / on its own view */
  struct nn_file_rating numa, flat;  /* the two candidate files */
  double link_gbps;                  /* modelled CPU-CPU link of the NUMA file (0: one CPU) */
  double floor_gbps;                 /* NCCL's search floor for sm */
  double gpu_link_gbps;              /* the narrowest GPU link as NCCL models it */
  int gpu_link_origin;               /* enum nn_link_origin of that link (the least certain one) */
  int fails_regardless;              /* NCCL's own view fails its search too: no file can help */
  int flat_gains;     /* on NCCL's own CPU, the flat view beats its own (whose NUMA nodes cost) */
  int own_affinity;   /* NCCL's own view reads a NUMA node for some GPU (sysfs numa_node >= 0),
                         so it pins CPUs without the file too */
  int own_cpu_source; /* enum nn_own_cpu_source: what NCCL's own view was modelled on */
  int pred_gpus;      /* GPUs the predictions are for (the communicator's ranks) */
  double slower;      /* served (NUMA when none is) file's rating: `slower` of numa or flat */
  int slower_log2;
  char cpu_vendor[16];     /* the served file's CPU vendor ("" when unknown) */
  char predict_error[256]; /* UNPREDICTED: why NCCL's search could not be predicted */
};

/* Decides what to serve, for the release in `in`: for mode=auto, of the NUMA file and the flat
 * file, those whose ring and tree searches both succeed, read no less (channels x bandwidth)
 * than NCCL's own view and make no all-reduce size slower by NCCL's cost model (the flat file
 * must also gain something: else it is NCCL's own view again); of both, the one with the higher
 * ring, then tree bandwidth, then faster sizes (the NUMA file on a tie: it pins per node); none:
 * NCCL's own view. mode=numa serves the NUMA file regardless, mode=off nothing. */
void nn_topology_verdict(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                         const struct nn_verdict_in *in, struct nn_topo_verdict *out);

/* The mapping the flat file is written from: `cfg`'s GPUs all on its lowest NUMA node, whose one
 * `numa` line lists the CPUs of every node the GPUs sit on (their `numa N cpus=` lines, else the
 * node's cpulist under `sysfs_root`, NULL = /). A shallow copy: cfg must outlive it. */
struct nn_flat_view {
  struct nn_config cfg;
  struct nn_gpu gpus[NN_SEARCH_MAX_GPUS];
  struct nn_numa numa;
  char cpus[NN_MAX_LINE_BYTES];
};

/* The mapping the served file is written from: `cfg` for the NUMA file, `flat` filled for the flat
 * one. Returns it, or NULL with a reason in err (too many GPUs, no CPU list fits). */
const struct nn_config *nn_topology_served_view(const struct nn_config *cfg,
                                                const struct nn_topo_verdict *v,
                                                const char *sysfs_root, struct nn_flat_view *flat,
                                                char *err, size_t errsz);

/* "flat file (every GPU under one CPU node)" or "file with NUMA nodes" (enum nn_topo_file). */
const char *nn_topology_file_name(int file);
/* "numa", "flat" or "none": the file's key in --json outputs. */
const char *nn_topology_file_key(int file);

/* The verdict as one sentence: the plugin's log and the CLI say this. */
void nn_topology_verdict_text(const struct nn_topo_verdict *v, char *buf, size_t size);

/* mode=numa serving a file NCCL's model rates slower (or, with no env plugin, the file set by
 * hand would be): the warning, "" otherwise. */
void nn_topology_verdict_warning(const struct nn_topo_verdict *v, char *buf, size_t size);

/* NCCL's cost model (nccl_cost.h) for one of the verdict's predictions (`served` 1: the served
 * file, 0: NCCL's own view) on `cpu`, `ranks` on one node (0: v->pred_gpus), the release's
 * LL128 default and `pci_latency_us` (a `model` line, 0: none). Returns 0, or -1 with a reason
 * in err. */
int nn_topology_cost_model(const struct nn_topo_verdict *v, int served,
                           const struct nn_cpu_kind *cpu, int ranks, double pci_latency_us,
                           struct nn_cost_model *m, char *err, size_t errsz);

/* "NCCL's model makes a 4 GiB all-reduce 480x slower with this file than with its own view"
 * (or "26% slower"; "no slower at any size" when v->slower <= 1); "" when not computed. */
void nn_topology_describe_slower(const struct nn_topo_verdict *v, char *buf, size_t size);

/* The two predictions of a verdict side by side, one line each, prefixed by `indent`:
 *   served file  (2 CPUs):  ring 1 x 15.0 GB/s, 2 crossings | tree 1 x 15.0 GB/s
 *   NCCL's view (flat):     ring 2 x 24.0 GB/s, 0 crossings | tree 2 x 24.0 GB/s */
void nn_topology_describe_predictions(const struct nn_topo_verdict *v, const char *indent,
                                      char *buf, size_t size);

/* One prediction: "ring 2 x 24.0 GB/s, 0 socket crossings | tree 2 x 24.0 GB/s". */
void nn_topology_describe_one(const struct nn_search_pred *p, char *buf, size_t size);

/* "NCCL 2.28.9", or for a release the table does not hold "NCCL 2.33.1 (newer than checked:
 * treated as 2.32)" (older: "older than checked"), else "(unverified for X: table row R)". */
void nn_topology_describe_release(const struct nn_topo_verdict *v, char *buf, size_t size);

#endif
