/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_model.h - NCCL's model of a PCIe-only node, one row per range of releases.
 *
 * Everything here is a fact read from NVIDIA/nccl's sources (tags up to v2.30.7-1,
 * branch `dev` for 2.31+) or from the symbol tables of released libnccl.so.2 files;
 * every row of the table in nccl_model.c cites where. docs/user/topology.md explains the
 * columns. Nothing in this module allocates, locks or does I/O.
 */
#ifndef NCCL_NUMA_NCCL_MODEL_H
#define NCCL_NUMA_NCCL_MODEL_H

#include <stddef.h>

/* NCCL_VERSION_CODE of major.minor.patch, as NCCL's nccl.h NCCL_VERSION numbers it:
 * x * 10000 + y * 100 + z from 2.9, x * 1000 + y * 100 + z before. Only nccl_model.c names a
 * release (test/lint/run.sh checks it); everything else asks the release's row. */
#define NN_NCCL_VERSION(x, y, z) \
  (((x) <= 2 && (y) <= 8) ? (x)*1000 + (y)*100 + (z) : (x)*10000 + (y)*100 + (z))

/* Where NCCL takes a GPU's PCIe link from when the topology file gives none. */
enum nn_gpulink_source {
  NN_GPULINK_SYSFS_MAX =
    0, /* sysfs max_link_speed/width, the lower of the GPU and its upstream port */
  NN_GPULINK_NVML_CURRENT, /* NVML's current link generation and width of the GPU */
};

/* CPU architecture and vendor as NCCL's topology code tells them apart. */
enum nn_nccl_arch { NN_ARCH_X86 = 0, NN_ARCH_POWER, NN_ARCH_ARM };
enum nn_nccl_vendor { NN_VENDOR_UNKNOWN = 0, NN_VENDOR_INTEL, NN_VENDOR_AMD, NN_VENDOR_ZHAOXIN };

/* One ascending list of the bandwidths (GB/s) NCCL's intra-node search tries, fastest first;
 * the last one is the floor below which the search fails. */
struct nn_speed_steps {
  const float *gbps;
  int n;
};

/* One row of the table: NCCL's model for the releases first..last (version codes). */
struct nn_nccl_release {
  int first, last;
  const char *name; /* the releases sharing this row's PCIe-node model, "2.27-2.28"
                       (rows that differ in a tuner or env plugin fact alone
                       keep the model's name) */
  /* intra-node ring/tree search steps: compute capability < 9.0, 9.x, >= 10.0
   * (sm100.n == 0: the release has no separate class and uses sm90's) */
  struct nn_speed_steps intra_base, intra_sm90, intra_sm100;
  struct nn_speed_steps inter_sm100; /* inter-node steps of compute capability >= 10.0 (n == 0:
                                        sm90's); those below 10.0 are the same in every row */
  /* inter-CPU (SYS) link, GB/s */
  float amd_zen12_gbps, amd_zen34_gbps, amd_zen5_gbps;
  int amd_by_family; /* 1: familyid picks the Zen class (2.31+), 0: one value */
  float intel_bdw_gbps, intel_skl_gbps, intel_srp_gbps, intel_erp_gbps;
  int intel_tiers;       /* 2: BDW/SKL only; 4: + SRP (>=0x8F) and ERP (>=0xCF) */
  int intel_erp_granite; /* 1: models 0xAD/0xAE/0xAF count as ERP too */
  float power_gbps, arm_gbps, zhaoxin_gbps, zhaoxin_yongfeng_gbps, unknown_gbps;
  int gpulink;                   /* enum nn_gpulink_source */
  int ll128_pcie_default;        /* 1: LL128 enabled by default between PCIe-only GPUs */
  int tuner_constants_effective; /* 0: NCCL overwrites what a tuner writes into its constants */
  int dev_nodes;                 /* 1: each GPU sits behind a DEV node (two more hops a path) */
  int fallback_bwinter_zero;     /* 1: a failed single-node search reports bwInter 0, not 0.1 */
  int tuner_channels_lower_only; /* 1: a tuner's nChannels counts only below NCCL's own count
                                    for the call (2.31+); 0: it replaces NCCL's count */
  int negative_cost_selects;     /* 1: a negative cost left in the table competes and can win
                                    (2.31+); 0: only entries >= 0 compete */
  int tuner_chunk_size;          /* 1: NCCL asks a tuner's getChunkSize (tuner v6, 2.30.3+) */
  int tuner_none;                /* 1: NCCL_TUNER_PLUGIN=none loads no tuner at all (2.28+);
                                    0: NCCL looks for a library named by it */
  int tuner_abi;                 /* the newest ncclTunerPlugin_vN NCCL looks for; from v5 (2.28)
                                    a tuner's init is handed the cost-model constants */
  int env_abi;                   /* the newest ncclEnvPlugin_vN NCCL looks for; 0: NCCL loads no
                                    env plugin (before 2.28.7) */
  int cost_model_subsystem;      /* 1: the cost model is src/tuning/ (2.31+), which logs every
                                    model's numbers, LL128's too where its check turns it
                                    off; 0: src/graph/tuning.cc, which logs a disabled cell
                                    as disabled */
  double ring_ll128_sm100[3];    /* per-channel Ring LL128 cap of compute capability 10.0+,
                                    GB/s, on 1 node / 2 nodes / more (perChMaxRingLL128Bws) */
  int ll128_mixed_cc_sm90;       /* 1: LL128's rule also allows GPUs of different compute
                                    capabilities when all are 9.0+ (2.30+) */
  /* What the release reads of the environment (for a mapping's `env` lines, env_names.c): */
  int env_netdevs_policy;   /* 1: NCCL_NETDEVS_POLICY AUTO|ALL|MAX:n (src/graph/topo.cc
                               getNetDevsPolicyOnce) */
  int env_cta_policy_names; /* 1: NCCL_CTA_POLICY also takes DEFAULT|EFFICIENCY|ZERO
                               (src/init.cc getEnvCtaPolicyOnce); 0: a number only */
  int env_net_merge_policy; /* 1: NCCL_NET_MERGE_POLICY ALL|RAIL (src/graph/topo.cc) */
  int env_ib_hca_rail;      /* 1: parseStringList reads hca[:port[:rail[:plane]]] and an
                               empty port as any (src/misc/utils.cc); 0: an empty port
                               is port 0 (atoi) */
  int env_shm_memcpy_gone;  /* 1: NCCL_SHM_MEMCPY_MODE and NCCL_SHM_USE_CUDA_MEMCPY are no
                               longer read (src/transport/shm.cc has neither) */
  int local_net_mod_gpus;   /* 1: ncclTopoGetLocalNet starts at the GPU's NVML index
                               modulo the GPUs sharing its NICs (2.30.7+); 0: at the
                               index itself */
  const char *source;       /* where each fact was read (file, release, how) */
};

/* The row for `version_code`. A release newer than the newest row gets the newest row and
 * *unverified = 1; one older than the oldest gets the oldest row and *unverified = 1;
 * else *unverified = 0. `unverified` may be NULL. Never returns NULL. */
const struct nn_nccl_release *nn_nccl_release_find(int version_code, int *unverified);

/* The table itself, oldest first, for listings and tests. */
const struct nn_nccl_release *nn_nccl_release_table(int *count);

/* 1 when version_code is a known release (> 0) whose row has no env plugin: NCCL reads
 * neither a served NCCL_TOPO_FILE nor a mapping's `env` lines. 0 for 0 (unknown). */
int nn_nccl_lacks_env_plugin(int version_code);

/* "2.28.7": the first release with an env plugin, for messages; buf >= 16. */
void nn_nccl_env_plugin_since(char *buf, size_t size);

/* The first release whose row has the int fact at offset `fact` (offsetof(struct
 * nn_nccl_release, env_abi)) non-zero, for messages ("no env plugin (2.28.7+)");
 * 0 when no row has it. */
int nn_nccl_release_since(size_t fact);
/* The same as "X.Y.Z"; buf >= 16. */
void nn_nccl_release_since_text(size_t fact, char *buf, size_t size);

/* The intra-node search steps NCCL uses for GPUs of compute capability `sm` (major*10+minor). */
const struct nn_speed_steps *nn_nccl_speed_steps(const struct nn_nccl_release *r, int sm);

/* The inter-node search steps (a communicator of several nodes) for `sm`. */
const struct nn_speed_steps *nn_nccl_inter_speed_steps(const struct nn_nccl_release *r, int sm);

/* The search floor for `sm`: the last step, GB/s. */
float nn_nccl_search_floor(const struct nn_nccl_release *r, int sm);

/* NCCL's vendor for a cpuinfo / XML vendor string ("GenuineIntel", "AuthenticAMD",
 * "CentaurHauls", "  Shanghai  "); NN_VENDOR_UNKNOWN for anything else. */
int nn_nccl_vendor_from_name(const char *vendor);

/* The inter-CPU link NCCL models for a CPU kind: arch, vendor and the familyid/modelid
 * attributes NCCL reads (-1 when absent). GB/s. */
float nn_nccl_cpu_link_gbps(const struct nn_nccl_release *r, int arch, int vendor, int family,
                            int model);

/* One short phrase naming the CPU class NCCL picks, e.g. "AMD Zen 3/4 (familyid 25)". */
void nn_nccl_cpu_class(const struct nn_nccl_release *r, int arch, int vendor, int family, int model,
                       char *buf, size_t size);

/* NCCL's PCIe link model: width x per-lane speed / 80, GB/s. gen 1-6; an unknown gen takes
 * NCCL's fallback speed (that of gen 3), width 0 counts as 16. */
float nn_nccl_pcie_gbps(int gen, int width);

/* Whether NCCL enables `proto` (enum nn_proto: LL, LL128, Simple) by default for collectives
 * between GPUs that reach each other only over PCIe (no NVLink), with compute capability `sm`. */
int nn_nccl_proto_enabled_pcie(const struct nn_nccl_release *r, int proto, int sm);

/* The NCCL release that loaded the plugin, as its env plugin init reported it (version code),
 * or 0 before that / when NCCL loads only the tuner. Thread-safe. */
int nn_nccl_loaded_version(void);
void nn_nccl_set_loaded_version(int version_code);

/* Whether a tuner's constants are overwritten by NCCL `version_code`: 1 (with the sentence to log
 * in why) when they are; 2 for an unknown release (0), with a sentence naming the releases that
 * ignore them; 0 when they take effect. */
int nn_nccl_constants_ignored(int version_code, char *why, size_t size);

/* Whether a rule's `channels=N` cannot change anything on release r for a communicator whose
 * channel count NCCL sets to comm_channels (> 0): the release takes a tuner's count only below
 * its own for the call, which never exceeds comm_channels, and N >= comm_channels. */
int nn_nccl_channels_no_effect(const struct nn_nccl_release *r, int channels, int comm_channels);

/* One sentence on how release r reads a rule's channel count and a negative cost, for
 * `explain` and `check-config` (the release's name included). */
void nn_nccl_tuner_semantics(const struct nn_nccl_release *r, char *buf, size_t size);

/* The one NCCL version grammar: "X.Y.Z", optionally followed by "-N" or "+anything"
 * ("2.31.2-1", "2.28.9+cuda12.9"); anything else after Z ("2.28.9x", "2.28") is refused.
 * Returns the version code, or -1. The CLI's --nccl-version and every log reader use it. */
int nn_nccl_version_parse(const char *s);

/* nn_nccl_version_parse of the word at s (up to a blank or the end): "NCCL version 2.27.3+cuda12.9
 * ..." in a log. -1 when the word is no version or longer than 31 bytes. */
int nn_nccl_version_parse_word(const char *s);

/* Whether a number read as NCCL_VERSION_CODE (nccl-tests' nccl-library=) is one of a NCCL
 * from 2.9 on, the numbering every row uses. */
int nn_nccl_version_plausible(int code);

/* The release assumed where a run's log names none: the one the tests and nccl-oracle facts
 * were checked against. */
int nn_nccl_version_assumed(void);

/* Formats a version code as "X.Y.Z" (either numbering); buf >= 16. */
void nn_nccl_version_format(int code, char *buf, size_t size);

#endif
