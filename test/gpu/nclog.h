/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nclog.h - what NCCL's own INFO log (and nccl-numa's lines in it) says happened:
 * the plugins NCCL loaded, the topology file it read, the topology it built, and
 * the algorithm and protocol it ran per collective. Used by the GPU kit
 * (test/gpu/run.sh through nn_gpucheck) and by its CPU tests on log excerpts.
 *
 * Line formats (one INFO message per line, after "NCCL INFO "; the plugin's own
 * lines also appear as "nccl-numa INFO: ..." on stderr where NCCL gives the env
 * plugin no logger), the same in NCCL 2.28.9 and 2.30.7 unless noted:
 *  - "ENV/Plugin: Using NAME (vN)"    plugin/env/env_vN.cc
 *  - "TUNER/Plugin: Using NAME (vN)"  plugin/tuner/tuner_vN.cc
 *  - "NCCL_TOPO_FILE set by environment to PATH"   graph/topo.cc
 *  - the topology print, graph/topo.cc ncclTopoPrint: "=== System : maxBw X totalBw Y ===",
 *    then per CPU "CPU/S-L (arch/vendor/model)" and its links, indented,
 *    "+ TYPE[BW] - NODE/S-L ...", S and L the node id's system and local part in hex
 *    (a CPU's local id is its NUMA id), until a line of '='
 *  - "FUNC: BYTES Bytes -> Algo ALGO proto PROTO channel{Lo..Hi}={A..B}", rank 0 only,
 *    enqueue.cc; BYTES is count x type size of the call, i.e. one rank's part for
 *    AllGather and ReduceScatter, while the tuner's nBytes is the whole buffer
 *    (nRanks x that: ncclFuncMaxSendRecvCount, include/enqueue.h)
 *  - "NCCL version X.Y.Z+cudaA.B"
 * and nccl-numa's (plugin/abi/tuner.c, env.c): "nccl-numa[ VERSION]: tuner vN, config PATH
 * [hash H ](...), comm ... nRanks R nNodes N scope S, ...", "nccl-numa[ VERSION]: env plugin
 * vN on NCCL X.Y.Z, config PATH (ok|rejected|changing|absent), [hash H, ]...",
 * "nccl-numa[ VERSION]: NCCL_TOPO_FILE=PATH ([a descriptor of FILE; ]reason)" (PATH is
 * /proc/self/fd/N of the plugin's private file since the plugin serves descriptors).
 *
 * All parsers are pure functions over a buffer.
 */
#ifndef NCCL_NUMA_TEST_GPU_NCLOG_H
#define NCCL_NUMA_TEST_GPU_NCLOG_H

#include <stddef.h>
#include <stdint.h>

#include "nn_config.h"

#define NN_NCLOG_PATH 1024
#define NN_NCLOG_MAX_CPUS 16
#define NN_NCLOG_MAX_LINKS 64

/* Calls fn(msg, arg) for each INFO message, in order; a non-zero return stops. */
typedef int (*nn_nclog_fn)(const char *msg, void *arg);
void nn_nclog_each(const char *log, size_t len, nn_nclog_fn fn, void *arg);

/* Plugins NCCL reports using, and its version. 0 / "" when not seen. */
struct nn_nclog_plugins {
  int env_abi, tuner_abi;
  char env_name[64], tuner_name[64];
  int nccl_code; /* e.g. 22809 */
};
void nn_nclog_plugins(const char *log, size_t len, struct nn_nclog_plugins *out);

/* The plugin ABI versions nccl-numa gets from NCCL `code`: tuner v2 (2.21), v3
 * (2.22-2.23), v4 (2.24-2.27), v5 (2.28-2.30.2), v6 (2.30.3+); env v1 from 2.28.7,
 * v2 from 2.30.7; 0 = none (the tuner_vN.cc / env_vN.cc files of those releases). */
void nn_nclog_expected_abi(int code, int *env_abi, int *tuner_abi);

/* nccl-numa's INIT lines and NCCL's NCCL_TOPO_FILE line. */
struct nn_nclog_init {
  int tuner_abi; /* 0: no tuner INIT line */
  char tuner_config[NN_NCLOG_PATH];
  char tuner_hash[16]; /* the mapping's content hash, "" when not printed */
  int n_ranks, n_nodes;
  char scope[16];
  int env_abi; /* 0: no env plugin INIT line */
  char env_config[NN_NCLOG_PATH];
  char env_status[16]; /* ok, rejected, changing, absent */
  char env_hash[16];
  char served[NN_NCLOG_PATH];         /* the plugin's "NCCL_TOPO_FILE=PATH", "" when none */
  char served_file[NN_NCLOG_PATH];    /* "(a descriptor of FILE;": the file behind PATH */
  char nccl_topo_file[NN_NCLOG_PATH]; /* NCCL's "set by environment to PATH", "" when none */
};
void nn_nclog_init(const char *log, size_t len, struct nn_nclog_init *out);

/* The first topology NCCL printed (GRAPH). */
struct nn_nclog_cpu {
  unsigned long sys, numa; /* system id, local id (the NUMA id) */
  int arch, vendor, model; /* NCCL's enum values as printed */
};
struct nn_nclog_link {
  char type[8];                      /* SYS, PCI, NVL, ... */
  double bw;                         /* GB/s as printed */
  unsigned long from_sys, from_numa; /* the CPU this link hangs under */
  char to[48];                       /* "CPU/0-1", "GPU/0-17000", ... */
};
struct nn_nclog_topo {
  int found;
  double max_bw, total_bw;
  int n_cpus, n_links;
  struct nn_nclog_cpu cpus[NN_NCLOG_MAX_CPUS];
  struct nn_nclog_link links[NN_NCLOG_MAX_LINKS]; /* links printed under each CPU, any depth */
};
void nn_nclog_topo(const char *log, size_t len, struct nn_nclog_topo *out);

/* One "FUNC: BYTES Bytes -> Algo A proto P" line. */
struct nn_nclog_choice {
  char func[24];            /* AllReduce, AllGather, ReduceScatter, ... */
  uint64_t bytes;           /* as logged */
  char algo[24], proto[16]; /* RING, TREE, ...; LL, LL128, SIMPLE */
  int line;
};
/* All such lines, malloc'd into *out (free()); returns the count, -1 when out of memory. */
int nn_nclog_tuning(const char *log, size_t len, struct nn_nclog_choice **out);

/* The tuner's nBytes of a logged call on nranks ranks (see above). */
uint64_t nn_nclog_nbytes(const struct nn_nclog_choice *c, int nranks);

/* NCCL's name of a rule collective ("allreduce" -> "AllReduce"), NULL when unknown. */
const char *nn_nclog_func_name(const char *rule_coll);

/* In a topology dump (NCCL_TOPO_DUMP_FILE), the numaid of the <cpu> above the <pci>
 * whose busid is `bus` (any depth), and whether a <gpu> sits in that pci element.
 * Returns 0, or -1 with the reason in err (not XML, no such pci, no cpu above it).
 * Parsed from memory with network, entities and DTDs off. */
int nn_nclog_dump_numa(const char *xml, size_t len, const struct nn_busid *bus, int *numaid,
                       int *has_gpu, char *err, size_t errsz);

/* The CPU kind of the dump's <cpu numaid=N>: its arch, vendor, familyid and modelid
 * attributes ("" / -1 when absent). Returns 0, or -1 when there is no such cpu or it has
 * no vendor. */
struct nn_nclog_cpu_kind {
  char arch[16], vendor[16];
  int family, model;
};
int nn_nclog_dump_cpu_kind(const char *xml, size_t len, int numa, struct nn_nclog_cpu_kind *k);

#endif
