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
  int modelled;    /* 1: NCCL's cost model was available and the fields below are filled */
  int applying;    /* rules that can apply to the communicator */
  int changing;    /* distinct rules that change NCCL's algorithm, protocol or channels */
  char where[384]; /* "allreduce 1 B - 512 KiB, allgather 1 MiB" ("" when none) */
};

/* Fills *out from the cost model `m` (NULL: not modelled) and policy `p`, all collectives. */
void nn_summary_rules_of(const struct nn_cost_model *m, const struct nn_policy *p, int max_log2,
                         struct nn_summary_rules *out);

struct nn_summary_in {
  int nccl_version;                /* NCCL_VERSION_CODE the job loads; 0 = unknown */
  const struct nn_config *cfg;     /* the mapping as the job sees it; NULL = none */
  const struct nn_topo_verdict *v; /* NULL: no verdict (no_verdict says why) */
  const char *no_verdict;          /* e.g. "the CPU kind is unknown" */
  const char *user_topo;           /* NCCL_TOPO_FILE set in the environment, or NULL */
  const struct nn_summary_rules *rules;
  const char *nics; /* a sentence on the NICs of a multi-node job, or NULL */
  int cpus_absent;  /* the mapping's `numa` lines name CPUs this OS lacks (check) */
};

/* What the paragraph says, as facts (the text renders them; check's next steps follow them). */
enum nn_summary_topo {
  NN_SUMMARY_TOPO_NO_MAPPING,
  NN_SUMMARY_TOPO_NO_ENV_PLUGIN,
  NN_SUMMARY_TOPO_USER_FILE,
  NN_SUMMARY_TOPO_NO_VERDICT,
  NN_SUMMARY_TOPO_OFF,
  NN_SUMMARY_TOPO_UNPREDICTED,
  NN_SUMMARY_TOPO_FAILS_ANYWAY,
  NN_SUMMARY_TOPO_WITHHELD,
  NN_SUMMARY_TOPO_SERVED
};
/* NCCL's rings and trees with the served file against those of its own detection. */
enum nn_summary_search {
  NN_SUMMARY_SEARCH_UNKNOWN,
  NN_SUMMARY_SEARCH_SAME,
  NN_SUMMARY_SEARCH_OTHER,
  NN_SUMMARY_SEARCH_SLOWER
};
/* The served file's CPU affinity: none (no `numa` line), every CPU (the mapping gives each node
 * the same CPUs: nothing pinned), or the job's nodes' own CPUs. */
enum nn_summary_affinity {
  NN_SUMMARY_AFFINITY_NONE,
  NN_SUMMARY_AFFINITY_EVERY_CPU,
  NN_SUMMARY_AFFINITY_NODE
};

struct nn_summary_facts {
  int topo;         /* enum nn_summary_topo */
  int search;       /* enum nn_summary_search (SERVED only) */
  int affinity;     /* enum nn_summary_affinity (SERVED only) */
  int topo_changes; /* the file changes what NCCL finds or pins */
  int rules;        /* 1: they change NCCL's choice, 0: not, -1: not modelled */
  int env;          /* 1: `env` lines apply, 0: none or cannot, -1: release unknown */
  int p2p;          /* the `p2p` line has the plugin serve something (p2pview.h) */
  int nothing;      /* nccl-numa changes nothing for this job */
};

void nn_summary_facts_of(const struct nn_summary_in *in, struct nn_summary_facts *out);

/* Writes the paragraph, starting "summary: ", wrapped at about 100 columns with continuation
 * lines indented by two spaces, ending in a newline: each part's consequence first, NCCL's
 * figures after. When nothing changes it says "changes nothing" and why. Returns 1 then, else 0. */
int nn_summary_text(const struct nn_summary_in *in, char *buf, size_t size);

#endif
