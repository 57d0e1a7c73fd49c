/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2preport.h - what `nccl-numa p2p` found: the GPUs and each ordered pair, read from the
 * children's lines (p2ptest.h), and the verdict with the mapping line it leads to
 * (plugin/core/config_p2p.c reads it):
 *   p2p ok level=PHB|SYS   every pair with peer access wrote, read and copied correctly and
 *                          answered in time; LEVEL is the widest NCCL path type among those
 *                          pairs (one NUMA node of the mapping: PHB; across nodes: SYS; no
 *                          mapping: PHB, the flat view a VM gives)
 *   p2p broken             some pair failed, hung or died: P2P must stay off
 *   p2p unsupported        the driver grants peer access on no pair: nothing to verify
 * each with gpus=LIST (the GPUs tested, by the mapping's gpu numbers; without a mapping, the
 * CUDA device numbers), driver=VERSION where it is known (/proc/driver/nvidia/version, else
 * NVML) and tested=DATE.
 */
#ifndef NCCL_NUMA_CLI_P2PREPORT_H
#define NCCL_NUMA_CLI_P2PREPORT_H

#include "cli/p2p/p2prun.h"
#include "nn_config.h"

#define NN_P2P_MAX_GPUS 64

enum nn_p2p_step { NN_P2P_WRITE, NN_P2P_READ, NN_P2P_COPY, NN_P2P_LATENCY, NN_P2P_BANDWIDTH, NN_P2P_STEPS };
enum nn_p2p_outcome { NN_P2P_NOT_RUN, NN_P2P_PASSED, NN_P2P_FAILED };
enum nn_p2p_pair_state { NN_P2P_PAIR_OK, NN_P2P_PAIR_NOPEER, NN_P2P_PAIR_BROKEN };

struct nn_p2p_gpu {
  int ordinal;
  char bus[32];
  char name[256];
  int numa;           /* the mapping's node, -1 without one */
  int index;          /* the mapping's gpu number, -1 when the mapping lacks it */
};

struct nn_p2p_pair {
  int a, b;
  int path;                           /* enum nn_p2p_level: PHB or SYS */
  int can;                            /* cuDeviceCanAccessPeer, -1 unknown */
  int attr[4];                        /* performance rank, access, native atomics, arrays; -1 unknown */
  int nvml_read, nvml_write;          /* nvmlGpuP2PStatus_t, -1 unknown */
  int step[NN_P2P_STEPS];             /* enum nn_p2p_outcome */
  double latency_us, gbps;            /* < 0: not measured */
  int state;                          /* enum nn_p2p_pair_state */
  char reason[768];                   /* why BROKEN */
};

struct nn_p2p_report {
  int cuda_version;                   /* cuDriverGetVersion, 0 unknown */
  char nvml_driver[96];               /* "" unknown */
  char driver[NN_P2P_DRIVER_CHARS];   /* the driver= of the line: /proc's, else NVML's; "" unknown */
  char nvml_off[1300];                /* why NVML gave nothing, "" when it did */
  const char *mapping;                /* the mapping's path, NULL without one */
  struct nn_p2p_gpu gpus[NN_P2P_MAX_GPUS];
  int n_gpus;
  int nvml[NN_P2P_MAX_GPUS][NN_P2P_MAX_GPUS][2];   /* read, write; -1 unknown */
  struct nn_p2p_pair *pairs;
  int n_pairs;
  int self;                           /* --self: each GPU with itself */
  int verdict;                        /* enum nn_p2p_state (nn_config.h); NN_P2P_NONE for --self */
  int level;                          /* enum nn_p2p_level, with NN_P2P_OK */
  uint64_t tested;                    /* gpus= of the line: the GPUs of the pairs */
  int by_ordinal;                     /* no mapping: gpus= counts CUDA device numbers */
  char line[256];                     /* the mapping line; "" for --self */
};

extern const char *const nn_p2p_step_names[NN_P2P_STEPS];

/* Reads the probe's lines into r. Returns 0, or -1 with what is missing in why. */
int nn_p2preport_probe(struct nn_p2p_report *r, const struct nn_p2prun *run, double timeout_s, char *why, size_t why_size);

/* Each GPU's NUMA node and gpu number from the mapping (matched by bus id); cfg NULL: none.
 * Returns the number of GPUs the mapping lacks. */
int nn_p2preport_numa(struct nn_p2p_report *r, const struct nn_config *cfg);

/* Reads one pair child's lines into p (a, b, path and the NVML status set before). */
void nn_p2preport_pair(struct nn_p2p_pair *p, const struct nn_p2prun *run, double timeout_s);

/* The verdict, level and mapping line; date is "YYYY-MM-DD". */
void nn_p2preport_decide(struct nn_p2p_report *r, const char *date);

/* The short name of an nvmlGpuP2PStatus_t, as nvidia-smi topo -p2p prints it ("OK", "CNS", ...). */
const char *nn_p2preport_nvml_name(int status);

#endif
