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

#include "cli/common/supervise.h"
#include "nn_config.h"

#define NN_P2P_MAX_GPUS 64

/* The pair's steps (p2ptest.h), in the order they run: in one process, across processes
 * (cuMem, then legacy IPC), then timing. */
enum nn_p2p_step {
  NN_P2P_WRITE,
  NN_P2P_READ,
  NN_P2P_COPY,
  NN_P2P_XWRITE,
  NN_P2P_XREAD,
  NN_P2P_XLL8,
  NN_P2P_XLL16,
  NN_P2P_IPCWRITE,
  NN_P2P_IPCREAD,
  NN_P2P_LATENCY,
  NN_P2P_BANDWIDTH,
  NN_P2P_SMBW,
  NN_P2P_STEPS
};
enum nn_p2p_outcome { NN_P2P_NOT_RUN, NN_P2P_PASSED, NN_P2P_FAILED };
enum nn_p2p_pair_state { NN_P2P_PAIR_OK, NN_P2P_PAIR_NOPEER, NN_P2P_PAIR_BROKEN };

struct nn_p2p_gpu {
  int ordinal;
  char bus[32];
  char name[256];
  int numa;  /* the mapping's node, -1 without one */
  int index; /* the mapping's gpu number, -1 when the mapping lacks it */
};

struct nn_p2p_pair {
  int a, b;
  int path;                  /* enum nn_p2p_level: PHB or SYS */
  int can;                   /* cuDeviceCanAccessPeer, -1 unknown */
  int attr[4];               /* performance rank, access, native atomics, arrays; -1 unknown */
  int nvml_read, nvml_write; /* nvmlGpuP2PStatus_t, -1 unknown */
  int step[NN_P2P_STEPS];    /* enum nn_p2p_outcome */
  double latency_us, gbps;   /* < 0: not measured */
  double sm_gbps;            /* a's SMs storing into b's memory; < 0: not measured */
  int state;                 /* enum nn_p2p_pair_state */
  char reason[768];          /* why BROKEN */
};

/* The ring phase (p2pring.h): every GPU a process, all writing at once. */
struct nn_p2p_ring_gpu {
  int ordinal;
  long long wrong, checked; /* LL pairs received wrong, of checked */
  int rounds;
  double gbps; /* its SM stores into both neighbours */
};

struct nn_p2p_ring {
  int run; /* it ran (2 GPUs or more, every pair fine) */
  int ok;  /* every GPU's process reported, nothing wrong */
  struct nn_p2p_ring_gpu gpus[NN_P2P_MAX_GPUS];
  int n;
  int rings; /* 1, or one per NUMA node when not every pair works */
  double seconds;
  char reason[768]; /* why not ok */
};

/* What the verdict advises beyond its line. */
enum nn_p2p_advice {
  NN_P2P_ADVICE_NONE = 0,
  NN_P2P_ADVICE_SOCKET_CLIQUE, /* broken only across NUMA nodes: a clique per socket */
  NN_P2P_ADVICE_SOCKET_NOPEER, /* ok; the driver refuses the pairs across nodes */
};

struct nn_p2p_report {
  int cuda_version;                 /* cuDriverGetVersion, 0 unknown */
  char nvml_driver[96];             /* "" unknown */
  char driver[NN_P2P_DRIVER_CHARS]; /* the driver= of the line: /proc's, else NVML's; "" unknown */
  char nvml_off[1300];              /* why NVML gave nothing, "" when it did */
  const char *mapping;              /* the mapping's path, NULL without one */
  struct nn_p2p_gpu gpus[NN_P2P_MAX_GPUS];
  int n_gpus;
  int nvml[NN_P2P_MAX_GPUS][NN_P2P_MAX_GPUS][2]; /* read, write; -1 unknown */
  struct nn_p2p_pair *pairs;
  int n_pairs;
  int n_sel;       /* the GPUs tested (all, or --gpus) */
  int self;        /* --self: each GPU with itself */
  int verdict;     /* enum nn_p2p_state (nn_config.h); NN_P2P_NONE for --self */
  int level;       /* enum nn_p2p_level, with NN_P2P_OK */
  uint64_t tested; /* gpus= of the line: the GPUs of the pairs */
  int by_ordinal;  /* no mapping: gpus= counts CUDA device numbers */
  char line[256];  /* the mapping line; "" for --self */
  struct nn_p2p_ring ring;
  int advice;     /* enum nn_p2p_advice */
  int incomplete; /* the overall deadline stopped the run: pairs left untested */
};

/* The steps' names as the children's lines spell them ("xwrite"), and in words ("cross-process
 * write"). */
extern const char *const nn_p2p_step_names[NN_P2P_STEPS];
extern const char *const nn_p2p_step_words[NN_P2P_STEPS];

/* Reads the probe's lines into r. Returns 0, or -1 with what is missing in why. */
int nn_p2preport_probe(struct nn_p2p_report *r, const struct nn_sup_result *run, double timeout_s,
                       char *why, size_t why_size);

/* Each GPU's NUMA node and gpu number from the mapping (matched by bus id); cfg NULL: none.
 * Returns the number of GPUs the mapping lacks. */
int nn_p2preport_numa(struct nn_p2p_report *r, const struct nn_config *cfg);

/* NCCL's path type between the report's GPUs a and b: with a mapping, PHB on one NUMA node
 * and SYS across nodes (or when the mapping lacks one); without one, PHB (the flat view). */
int nn_p2preport_path(const struct nn_p2p_report *r, int a, int b);

/* Reads the child's lines of the pair a->b into p, with its path and NVML status from r. */
void nn_p2preport_pair(const struct nn_p2p_report *r, struct nn_p2p_pair *p, int a, int b,
                       const struct nn_sup_result *run, double timeout_s);

/* Adds the lines of a ring child (n GPUs, `seconds` of rounds) to r->ring, which holds every
 * ring of the run (one per NUMA node under a clique per socket); the first failure is its
 * reason. */
void nn_p2preport_ring(struct nn_p2p_report *r, int n, double seconds,
                       const struct nn_sup_result *run, double timeout_s);

/* The verdict, level and mapping line; date is "YYYY-MM-DD". */
void nn_p2preport_decide(struct nn_p2p_report *r, const char *date);

/* The short name of an nvmlGpuP2PStatus_t, as nvidia-smi topo -p2p prints it ("OK", "CNS", ...). */
const char *nn_p2preport_nvml_name(int status);

#endif
