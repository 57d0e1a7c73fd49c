/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain.h - `nccl-numa explain` as a model: one call computes everything the command says
 * for one communicator (the job's GPUs, the topology verdict, NCCL's and the plugin's choice
 * per collective and size, the rules' effect, the summary's facts and text) into a struct; a
 * text and a JSON renderer print it (explain_text.c, explain_json.c), neither computing.
 */
#ifndef NCCL_NUMA_CLI_EXPLAIN_H
#define NCCL_NUMA_CLI_EXPLAIN_H

#include <stdint.h>
#include <stdio.h>

#include "cli/common/cliconfig.h"
#include "cli/predict/costview.h"
#include "cli/predict/job.h"
#include "cli/predict/ncclver.h"
#include "cli/predict/nicview.h"
#include "cli/predict/release_diff.h"
#include "cli/predict/summary.h"
#include "nccl_forced.h"
#include "policy.h"
#include "topology.h"

#define NN_EXPLAIN_MAX_LOG2 32  /* 1 B .. 4 GiB */
#define NN_EXPLAIN_MAX_SIZES 32 /* --sizes */
#define NN_EXPLAIN_MAX_BANDS (NN_EXPLAIN_MAX_LOG2 + 1)

/* What explain is asked. */
struct nn_explain_in {
  const struct nn_cli_config *cc; /* the mapping as loaded (cliconfig.h) */
  const char *visible;            /* --visible-devices; NULL: CUDA_VISIBLE_DEVICES */
  const char *sysfs_root;         /* --sysfs-root; NULL: this machine */
  size_t ranks, nodes;            /* ranks 0: the job's default (job.h) */
  int only;                       /* one collective (enum nn_coll), -1: all */
  const struct nn_ncclver *ver;
  int compare;           /* --compare-release code, 0: none */
  const uint64_t *sizes; /* --sizes */
  int n_sizes;
};

/* One collective's rows: the bands under NCCL's model, or (not modelled) the deciding rule per
 * power of two merged where it does not change. */
struct nn_explain_coll {
  int coll;
  int n_bands;
  struct nn_costview_band bands[NN_EXPLAIN_MAX_BANDS];
  int n_rows; /* not modelled: rows of [lo, hi] -> rule */
  int row_lo[NN_EXPLAIN_MAX_BANDS], row_hi[NN_EXPLAIN_MAX_BANDS], row_rule[NN_EXPLAIN_MAX_BANDS];
};

/* What explain says. Built by nn_explain_build, released by nn_explain_free. */
struct nn_explain {
  const struct nn_explain_in *in;
  struct nn_job job;           /* the job's GPUs; job.view is the mapping it sees */
  const struct nn_config *cfg; /* = &job.view */
  size_t ranks, nodes;
  struct nn_config scope; /* the policy's mapping (nn_visible_for_comm) */
  struct nn_policy *p;
  struct nn_forced forced;
  int have_verdict;     /* the CPU kind is known and the verdict computed */
  char no_verdict[512]; /* else why */
  struct nn_cpu_kind cpu;
  struct nn_topo_verdict v;
  int modelled; /* NCCL's cost model available: m filled */
  char model_desc[512];
  struct nn_cost_model m;
  char bind_list[NN_MAX_GPUS * 6]; /* exec --bind-for's list, "" when it does not apply */
  int n_colls;
  struct nn_explain_coll colls[NN_COLL_COUNT]; /* in the order explain shows them */
  int n_at;                                    /* --sizes rows: n_colls x n_sizes */
  struct nn_costview_at at[NN_COLL_COUNT * NN_EXPLAIN_MAX_SIZES];
  int compared; /* --compare-release computed into diff */
  struct nn_release_diff diff;
  struct nn_summary_rules rules;
  struct nn_summary_facts facts;
  struct nn_nicview_report nics; /* nodes > 1 only */
  char nic_words[1024];
  char summary[4096];
};

/* Computes everything; 0, or -1 with the problem in err (out of memory, --compare-release). */
int nn_explain_build(const struct nn_explain_in *in, struct nn_explain *e, char *err, size_t errsz);
void nn_explain_free(struct nn_explain *e);

/* The renderers: explain's text, and one JSON document (keys: docs/user/cli.md). */
void nn_explain_text(FILE *out, const struct nn_explain *e);
void nn_explain_json(FILE *out, const struct nn_explain *e);

/* The collectives in explain's order (allreduce first). */
extern const int nn_explain_coll_order[NN_COLL_COUNT];

#endif
