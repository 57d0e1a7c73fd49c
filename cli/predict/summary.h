/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * summary.h - the one paragraph `explain` and `check` end with: what nccl-numa changes for a
 * job on one NCCL release, in the user's terms (the topology file and what it changes, the
 * rules that change NCCL's own choice and at which sizes, whether `env` lines apply), or that
 * it changes nothing and why, and the next step that could gain something.
 */
#ifndef NCCL_NUMA_CLI_SUMMARY_H
#define NCCL_NUMA_CLI_SUMMARY_H

#include <stddef.h>

#include "nccl_cost.h"
#include "nn_config.h"
#include "policy.h"
#include "topology.h"

/* Where the rules change NCCL's own choice under its cost model, over 1 B .. 2^max_log2 B. */
struct nn_summary_rules {
  int modelled;           /* 1: NCCL's cost model was available and the fields below are filled */
  int applying;           /* rules that can apply to the communicator */
  int changing;           /* distinct rules that change NCCL's algorithm, protocol or channels */
  char where[384];        /* "allreduce 1 B - 512 KiB, allgather 1 MiB" ("" when none) */
};

/* Fills *out from the cost model `m` (NULL: not modelled) and policy `p`, all collectives. */
void nn_summary_rules_of(const struct nn_cost_model *m, const struct nn_policy *p, int max_log2,
                         struct nn_summary_rules *out);

struct nn_summary_in {
  int nccl_version;                 /* NCCL_VERSION_CODE the job loads; 0 = unknown */
  const struct nn_config *cfg;      /* the mapping as the job sees it; NULL = none */
  const struct nn_topo_verdict *v;  /* NULL: no verdict (no_verdict says why) */
  const char *no_verdict;           /* e.g. "the CPU kind is unknown" */
  const char *user_topo;            /* NCCL_TOPO_FILE set in the environment, or NULL */
  const struct nn_summary_rules *rules;
};

/* Writes the paragraph, starting "summary: ", wrapped at about 100 columns with continuation
 * lines indented by two spaces, ending in a newline. When nothing changes it says
 * "changes nothing" and why. */
void nn_summary_text(const struct nn_summary_in *in, char *buf, size_t size);

#endif
