/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nn_config.h - the mapping file (format 1): GPU -> NUMA node, rules, env defaults.
 *
 * A parsed file is immutable once returned; the plugin shares one parsed file
 * between all communicators of a process (see nn_cache.h).
 */
#ifndef NCCL_NUMA_CONFIG_H
#define NCCL_NUMA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuinfo.h" /* nn_cpuinfo_read, used with `cpu` lines */
#include "cpulist.h" /* nn_cpulist_parse, nn_cpumask_format, for `numa` lines */

#define NN_MAX_LINE_BYTES 4096
#define NN_MAX_GPUS 1024
#define NN_MAX_NICS 64
#define NN_NIC_NAME_MAX 64 /* bytes with the NUL: IB device names are <= 63 */
#define NN_MAX_NUMA_ID 1023
#define NN_MAX_NUMA_NODES 64
#define NN_MAX_RULES 4096
#define NN_MAX_FILE_BYTES (16u << 20)
#define NN_MAX_INCLUDE_BYTES (64u << 20) /* read by include-csv, in all, per mapping */
#define NN_MAX_INCLUDES 256              /* include-csv lines per mapping */
#define NN_MAX_CHANNELS 64
#define NN_MIN_CHUNK 16 /* LL's grain, the smallest of NCCL's protocols */
#define NN_MAX_CHUNK (1ull << 30)
#define NN_ANY (-1)
#define NN_UNBOUNDED UINT64_MAX

/* Collective indices equal NCCL's ncclFunc_t values. */
enum nn_coll {
  NN_COLL_BROADCAST = 0,
  NN_COLL_REDUCE = 1,
  NN_COLL_ALLGATHER = 2,
  NN_COLL_REDUCESCATTER = 3,
  NN_COLL_ALLREDUCE = 4,
  NN_COLL_COUNT = 5
};
/* Algorithm and protocol indices equal NCCL's cost-table indices. */
enum nn_algo {
  NN_ALGO_TREE = 0,
  NN_ALGO_RING,
  NN_ALGO_COLLNET_DIRECT,
  NN_ALGO_COLLNET_CHAIN,
  NN_ALGO_NVLS,
  NN_ALGO_NVLS_TREE,
  NN_ALGO_PAT,
  NN_ALGO_COUNT
};
enum nn_proto { NN_PROTO_LL = 0, NN_PROTO_LL128, NN_PROTO_SIMPLE, NN_PROTO_COUNT };
/* NN_SCOPE_ANY in a rule; INTRA/CROSS/UNKNOWN describe a communicator. */
enum nn_scope { NN_SCOPE_ANY = 0, NN_SCOPE_INTRA, NN_SCOPE_CROSS, NN_SCOPE_UNKNOWN };
enum nn_topo_mode { NN_TOPO_AUTO = 0, NN_TOPO_NUMA, NN_TOPO_OFF };

/* A PCI bus id; printed as dddd:bb:dd.f, lowercase. */
struct nn_busid {
  uint16_t domain;
  uint8_t bus, dev, func;
};

struct nn_gpu {
  int index;
  int has_bus; /* 0 only in host-side mappings */
  struct nn_busid bus;
  int has_host;
  struct nn_busid host;
  int numa;
  int sm;                   /* major*10+minor, 0 = not given */
  int pcie_gen, pcie_width; /* pcie=GENxWIDTH, 0 = not given */
  int line;
};

/* A `nic` line (config_nic.c): a network device NCCL may use, where it hangs. */
struct nn_nic {
  int index;
  int has_bus;         /* 0 only in host-side mappings */
  struct nn_busid bus; /* its PCI function as this machine (the guest) numbers it */
  int has_host;
  struct nn_busid host;
  int numa;                   /* the NUMA node of the physical host it hangs off */
  char name[NN_NIC_NAME_MAX]; /* IB/RoCE device or interface name, "" when not given */
  int line;
};

struct nn_numa {
  int node;
  char *cpus; /* the list as written, e.g. "0-31,64-95" */
  int line;
};

struct nn_cpu {
  int present;       /* a `cpu` line was given */
  char vendor[16];   /* "AuthenticAMD" or "GenuineIntel" */
  int family, model; /* -1 when not given */
  int line;
};

struct nn_rule {
  int coll;                    /* enum nn_coll or NN_ANY */
  uint64_t bytes_lo, bytes_hi; /* inclusive; hi NN_UNBOUNDED = no bound */
  uint64_t ranks_lo, ranks_hi;
  uint64_t nodes_lo, nodes_hi;
  int scope;        /* enum nn_scope; NN_SCOPE_ANY when missing */
  int algo;         /* enum nn_algo or NN_ANY */
  int proto;        /* enum nn_proto or NN_ANY */
  int channels;     /* 1..64, 0 = keep NCCL's */
  uint64_t chunk;   /* chunk=: bytes (NN_MIN_CHUNK..NN_MAX_CHUNK), 0 = keep NCCL's */
  int pipeops;      /* NN_ANY, or numPipeOps to match (CSV rules) */
  int regbuff;      /* NN_ANY, 0 or 1 (CSV rules) */
  const char *file; /* file the rule came from (owned by the config) */
  int line;
};

/* The `p2p` line (config_p2p.c): state 0 when the mapping has none. */
enum nn_p2p_state { NN_P2P_NONE = 0, NN_P2P_OK, NN_P2P_BROKEN, NN_P2P_UNSUPPORTED };
/* NCCL_P2P_LEVEL's path types that a PCIe machine has, in NCCL's order. */
enum nn_p2p_level {
  NN_P2P_LEVEL_LOC = 0,
  NN_P2P_LEVEL_PIX,
  NN_P2P_LEVEL_PXB,
  NN_P2P_LEVEL_PHB,
  NN_P2P_LEVEL_SYS
};
/* The mapping's GPU numbers a p2p line can name (gpus=): 0 .. NN_P2P_MAX_TESTED-1. */
#define NN_P2P_MAX_TESTED 64
#define NN_P2P_DRIVER_CHARS 32
/* xproc=: the cross-process test's outcome. */
enum nn_p2p_xproc { NN_P2P_XPROC_UNKNOWN = 0, NN_P2P_XPROC_OK, NN_P2P_XPROC_FAILED };
struct nn_p2p {
  int state; /* enum nn_p2p_state */
  int level; /* enum nn_p2p_level, with NN_P2P_OK */
  int line;
  uint64_t gpus; /* gpus=: bit g set when the mapping's GPU g was tested; 0: not given */
  char driver[NN_P2P_DRIVER_CHARS]; /* driver=: the NVIDIA driver tested, "" when not given */
  int xproc;                        /* enum nn_p2p_xproc */
};

/* What a p2p line gives one process (nn_config_p2p_serve): the state whose variables are
 * served. NN_P2P_OK serves the level; NN_P2P_BROKEN keeps P2P off (an ok line the process's
 * GPUs or driver were not tested for is served as broken, `untested` set); anything else
 * serves nothing. */
struct nn_p2p_serving {
  int state;
  int level;
  int untested;
  char why[400]; /* for the log, once: why an ok line is kept off; "" otherwise */
};

struct nn_env_default {
  char *name;
  char *value;
  int line;
};

/* Collected error messages, each "FILE:LINE: problem". */
struct nn_diag {
  char **msgs;
  int n;
  int dropped; /* messages beyond the cap, counted only */
};

struct nn_config {
  char *path;
  struct nn_gpu *gpus; /* sorted by index, n_gpus entries, indices 0..n_gpus-1 */
  int n_gpus;
  struct nn_nic nics[NN_MAX_NICS]; /* sorted by index, indices 0..n_nics-1 */
  int n_nics;
  struct nn_numa *numas; /* as given by `numa` lines */
  int n_numas;
  struct nn_cpu cpu;
  struct nn_rule *rules; /* file order */
  int n_rules;
  struct nn_env_default *envs;
  int n_envs;
  double pci_latency_us; /* 0 = no `model` line */
  int model_line;
  int topo_mode; /* enum nn_topo_mode */
  struct nn_p2p p2p;
  int host_side; /* header says it is a host-side mapping */
  char **files;  /* strings owned by the config (rule files) */
  int n_files;
  /* What an accepted file holds that is not applied or must be told; the plugin WARNs each
   * once per version and the commands print them. `refused`: each `env` line whose name a
   * mapping may not serve (env_names.h), "FILE:LINE: env: NAME refused, not served: why",
   * while the rest of the file applies. `notes`: each file read only because of trust.h's
   * development opt-out, "PATH: not trusted: REASON; read anyway because ...". */
  struct nn_diag refused;
  struct nn_diag notes;
};

/* What loading a configuration gave (config_source.h, cache.h). */
enum nn_cfg_status {
  NN_CFG_OK = 0,  /* parsed */
  NN_CFG_ABSENT,  /* no NCCL_NUMA_CONFIG, no default file, no CSV: quiet pass-through */
  NN_CFG_INVALID, /* unreadable or rejected: WARN once, pass-through */
  NN_CFG_MOVING   /* (cache) kept changing while read, nothing older to keep: pass-through */
};

/* Parse options. */
#define NN_PARSE_HOST_SIDE 0x1 /* accept gpu lines without bus= */
#define NN_PARSE_FIRST_ERROR \
  0x2 /* stop at the first problem: the plugin only needs to know that \
         the file is rejected (check-config lists them all) */
struct nn_parse_opts {
  unsigned flags;
  const char *cpuinfo_path; /* NULL: /proc/cpuinfo */
};

/* Parses a whole buffer. `name` is used in messages. Returns 0 and sets *out on
 * success; returns -1 with every problem appended to `diag` otherwise. A refused `env`
 * line is no problem: it goes to (*out)->refused, and to diag when the file is rejected
 * for something else. */
int nn_config_parse(const char *name, const char *buf, size_t len, const struct nn_parse_opts *opts,
                    struct nn_config **out, struct nn_diag *diag);

/* Reads and parses a file (size-capped, regular files only, no blocking on FIFOs, only a
 * file trust.h trusts). An unreadable file is one diag "PATH: cannot open: <reason>", an
 * untrusted one "PATH: not trusted: <reason>". */
int nn_config_load(const char *path, const struct nn_parse_opts *opts, struct nn_config **out,
                   struct nn_diag *diag);

/* The name of the mapping's i-th directive ("gpu", "numa", ...), or NULL past the last. */
const char *nn_config_directive_name(int i);

/* Frees a config and everything it owns; NULL is ignored. */
void nn_config_free(struct nn_config *cfg);

/* Appends the rules of a CSV rule file in the format of NCCL's example tuner (as the
 * `include-csv` directive does; used for NCCL_TUNER_CONFIG_FILE). Returns 0, or -1
 * with the problems in diag (the config is then unchanged but for its file list). */
int nn_config_add_csv_rules(struct nn_config *cfg, const char *path, struct nn_diag *diag);

/* Number of distinct NUMA nodes holding GPUs, and the largest GPU count on one node. */
int nn_config_numa_count(const struct nn_config *cfg);
int nn_config_max_gpus_per_numa(const struct nn_config *cfg);

/* The `nic` line whose bus= is `bus`, or NULL. */
const struct nn_nic *nn_config_find_nic(const struct nn_config *cfg, const struct nn_busid *bus);

/* The `numa` line for a node, or NULL. */
const struct nn_numa *nn_config_find_numa(const struct nn_config *cfg, int node);

/* Served value of an `env` line, or of the variable the `p2p` line sets, or NULL. */
const char *nn_config_env(const struct nn_config *cfg, const char *name);

/* The variable's value the `p2p` line decides for the whole mapping (every gpu line's GPU,
 * the driver not checked; nn_config_p2p_serve), or NULL; and the line's words, for messages.
 * NCCL_P2P_LEVEL for ok; NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0 for broken, and for an ok
 * line that does not cover those GPUs. */
const char *nn_config_p2p_env(const struct nn_config *cfg, const char *name);
/* Whether `name` is a variable the p2p line decides (ok and broken lines: NCCL_P2P_LEVEL,
 * NCCL_P2P_DISABLE, NCCL_WIN_ENABLE), whose value no `env` line may give. */
bool nn_config_p2p_decides(const struct nn_config *cfg, const char *name);
/* Whether the p2p line's gpus= holds every one of the mapping's GPU numbers `mapping_gpus`
 * (n of them); false when n <= 0 or the line has no gpus=. */
bool nn_config_p2p_covers(const struct nn_config *cfg, const int *mapping_gpus, int n);
/* What the p2p line gives a process using the mapping's GPUs `mapping_gpus` (n; n < 0: they
 * could not be matched to the mapping) under the running NVIDIA driver `driver` (its version
 * as /proc/driver/nvidia/version prints it; "" unknown; NULL: not checked). An ok line is
 * served only when gpus= covers them, driver= is that driver and xproc=ok says the test across
 * processes passed; an old line without them counts as untested. */
void nn_config_p2p_serve(const struct nn_config *cfg, const int *mapping_gpus, int n,
                         const char *driver, struct nn_p2p_serving *out);
/* nn_config_p2p_serve for a process using every GPU of the mapping, the driver not checked. */
void nn_config_p2p_serve_all(const struct nn_config *cfg, struct nn_p2p_serving *out);
/* The value `s` serves for `name` (a variable a p2p line decides), or NULL. */
const char *nn_config_p2p_served_env(const struct nn_p2p_serving *s, const char *name);
/* gpus= as a list ("0-3", "0,1,4,5") into buf; "" for none. */
void nn_config_p2p_gpus_format(uint64_t gpus, char *buf, size_t size);
const char *nn_config_p2p_state_name(int state); /* "ok", "broken", "unsupported", "none" */
const char *nn_config_p2p_level_name(int level); /* "PHB", ... */

/* Bus ids: parse "[dddd:]bb:dd.f" (domain 1-8 hex digits <= 0xffff); format into buf >= 13. */
int nn_busid_parse(const char *s, struct nn_busid *out);
void nn_busid_format(const struct nn_busid *b, char *buf, size_t size);

/* Names of enumerated values, lowercase, for messages and the CLI. */
const char *nn_coll_name(int coll);
const char *nn_algo_name(int algo);
const char *nn_proto_name(int proto);
const char *nn_scope_name(int scope);
/* Collectives by either spelling, "allreduce" or NCCL's and nccl-tests' "all_reduce":
 * -2 when unknown, NN_ANY for "any". */
int nn_coll_from_name(const char *s);
/* The valid collective names, for messages. */
#define NN_COLL_NAMES \
  "allreduce, allgather, reducescatter, broadcast or reduce " \
  "(all_reduce, all_gather and reduce_scatter also work)"
int nn_algo_from_name(const char *s);  /* -2 when unknown */
int nn_proto_from_name(const char *s); /* -2 when unknown */

/* NCCL's own spelling, as its logs, NCCL_ALGO and NCCL_PROTO use it (ncclFuncStr,
 * ncclAlgoStr, ncclProtoStr in src/init.cc, v2.23.4-1 .. dev): "AllReduce", "CollNetDirect",
 * "LL128". nn_nccl_name gives "?" out of range; nn_nccl_name_find compares the n bytes at s
 * without case, as NCCL does, and returns the index or -1. */
enum nn_name_kind { NN_NAME_COLL = 0, NN_NAME_ALGO, NN_NAME_PROTO };
const char *nn_nccl_name(int kind, int index);
int nn_nccl_name_find(int kind, const char *s, size_t n);

#define NN_MAX_AFFINITY_CHARS 255 /* NCCL's limit on an XML attribute value */
/* A comment line containing this text marks a host-side mapping (sets cfg->host_side). */
#define NN_CONFIG_HOST_SIDE_MARKER "nccl-numa: host-side mapping"

/* "any"/"intra"/"cross" (rule values; -2 when unknown), and topology modes. */
int nn_scope_from_name(const char *s);
const char *nn_topo_mode_name(int mode);   /* "auto", "numa", "off" */
int nn_topo_mode_from_name(const char *s); /* -2 when unknown */

/* Appends a message (formatted like printf) to d; beyond 100 messages only counts it
 * in d->dropped. NULL d: does nothing. */
void nn_diag_add(struct nn_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees every message and empties d. */
void nn_diag_clear(struct nn_diag *d);

#endif
