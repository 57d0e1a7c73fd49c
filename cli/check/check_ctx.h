/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_ctx.h - what the parts of `nccl-numa check` share (check.c, hazard.c, oscpus.c): the
 * run's state, the problem list and the next-step kinds.
 */
#ifndef NCCL_NUMA_CLI_CHECK_CTX_H
#define NCCL_NUMA_CLI_CHECK_CTX_H

#include <stdio.h>

#include "cli/check/check.h"
#include "cli/discover/guest.h"
#include "cli/predict/cudaprobe.h"
#include "cli/predict/job.h"
#include "cli/predict/ncclver.h"
#include "cli/predict/summary.h"
#include "cli/topo/topo_summary.h"
#include "config_source.h"
#include "nn_config.h"
#include "topology.h"

#define MAX_PROBLEMS 256
#define MAX_TOPO_GPUS 1024

enum nn_check_step {
  STEP_DISCOVER = 1,
  STEP_FIX_MAPPING = 2,
  STEP_HAZARD = 4,
  STEP_TOPO_FILE = 8,
  STEP_HOST_MAP = 16,
  STEP_NO_GPU = 32
};

struct nn_check_ctx {
  FILE *out;
  const struct nn_check_opts *o;
  char cpuinfo[4096];
  struct nn_guest g;
  struct nn_config *cfg;       /* valid guest-side mapping, or NULL */
  struct nn_config_source src; /* where the plugin would find it */
  char rooted_default[4096];
  struct nn_cudaprobe *cuda;
  char cuda_why[160];
  char *problems[MAX_PROBLEMS];
  int n_problems, dropped;
  unsigned steps;
  int topo_env_used;              /* NCCL_TOPO_FILE decides what NCCL sees */
  struct nn_job job;              /* the job's visible GPUs against the mapping (job.h) */
  struct nn_topo_verdict verdict; /* the plugin's, for the summary */
  struct nn_cpu_kind cpu;
  int have_verdict;
  int cpus_absent; /* a `numa` line names CPUs this OS does not have online (oscpus.c) */
  struct nn_summary_facts summary_facts;
  char summary[4096];
};

/* Prints "  PROBLEM: ..." and lists it for the result; `step` is the next step it calls for. */
void nn_check_problem(struct nn_check_ctx *c, unsigned step, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* `path` under --sysfs-root (itself when the root is /), in buf. */
const char *nn_check_rooted(const struct nn_check_ctx *c, const char *path, char *buf, size_t size);

/* hazard.c: the section "Socket link (NCCL's graph search)" for what NCCL will read. */
void nn_hazard_section(struct nn_check_ctx *c);
/* The same for a topology file NCCL reads (NCCL_TOPO_FILE). */
void nn_hazard_topo_file(struct nn_check_ctx *c, const char *label,
                         const struct nn_topo_summary *s);
/* The release judged, resolved once. */
const struct nn_ncclver *nn_hazard_release(struct nn_check_ctx *c);
/* NULL for /, else --sysfs-root. */
const char *nn_hazard_sysfs_root(const struct nn_check_ctx *c);
/* 1 when cpuinfo says this is a VM, 0 when not, -1 when unreadable. */
int nn_hazard_in_vm(const struct nn_check_ctx *c);

/* oscpus.c: each `numa N cpus=` line against the OS's nodes and online CPUs: PROBLEMs. */
void nn_oscpus_check(struct nn_check_ctx *c);

#endif
