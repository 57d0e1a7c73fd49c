/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * release_diff.h - `explain --compare-release X`: where NCCL's own choice for one machine and
 * communicator shape moves between two releases.
 *
 * Each release gets the verdict, the graphs and the cost model explain uses for it (ncclver.h,
 * costview.h: the served file where that release's verdict serves it, else NCCL's own view),
 * and explain's bands without rules; the diff is taken per power of two. A size differs when
 * the algorithm or protocol differs, or when the graphs the cost model reads (ring and tree
 * channels and bandwidths, the communicator's channels) differ, which moves every size's time.
 */
#ifndef NCCL_NUMA_CLI_RELEASE_DIFF_H
#define NCCL_NUMA_CLI_RELEASE_DIFF_H

#include <stdio.h>

#include "cli/predict/ncclver.h"
#include "nccl_cost.h"
#include "nccl_forced.h"
#include "nn_config.h"
#include "topology.h"

#define NN_RELEASE_DIFF_MAX_LOG2 32 /* 1 B .. 4 GiB, as explain */
#define NN_RELEASE_DIFF_MAX_BANDS (NN_COLL_COUNT * (NN_RELEASE_DIFF_MAX_LOG2 + 1))

/* The graphs one release's cost model reads. */
struct nn_release_diff_graphs {
  int ring_channels, tree_channels;
  float ring_gbps, tree_gbps; /* per channel */
  int comm_channels;          /* comm->nChannels after Postset */
};

/* One release: its verdict, its cost model and what that model read. */
struct nn_release_diff_side {
  struct nn_topo_verdict v;
  struct nn_cost_model m;
  struct nn_release_diff_graphs g;
  char name[160]; /* "NCCL 2.31.0" (nn_topology_describe_release) */
};

/* Consecutive sizes that differ, with the same choice on each side. Times at both ends. */
struct nn_release_diff_band {
  int coll, lo_log2, hi_log2;
  struct nn_cost_choice a_lo, a_hi; /* the release of --nccl-version / --nccl-lib */
  struct nn_cost_choice x_lo, x_hi; /* the release compared with */
  int choice_differs;               /* the algorithm or the protocol differs */
};

struct nn_release_diff {
  struct nn_release_diff_side a, x;
  int ranks, nodes;
  int graphs_differ;
  int n_bands;
  struct nn_release_diff_band bands[NN_RELEASE_DIFF_MAX_BANDS];
};

/* Compares NCCL's own choice under release `a` with that under release code `x_code` for
 * `ranks` on `nodes`, every collective, sizes 1 B .. 2^max_log2 (at most
 * NN_RELEASE_DIFF_MAX_LOG2), on the tables NCCL builds under `forced` (NULL: neither
 * NCCL_ALGO nor NCCL_PROTO set). The CPU is the one explain models (the mapping's `cpu` line,
 * else nn_cpuinfo_default()). Returns 0, or -1 with the reason in err (no CPU kind, or no
 * cost model for one of the releases: e.g. several nodes). */
int nn_release_diff_compute(const struct nn_config *cfg, const struct nn_ncclver *a, int x_code,
                            int ranks, int nodes, const struct nn_forced *forced, int max_log2,
                            struct nn_release_diff *out, char *err, size_t errsz);

/* Prints the comparison: both releases' graphs, then per collective (only `coll` when >= 0)
 * the bands that differ with both choices and modelled times, `*` where the algorithm or
 * protocol differs. */
void nn_release_diff_print(FILE *out, const struct nn_release_diff *d, int coll);

/* Prints mapping rules that keep the compared release's choice on release a where it differs
 * (only `coll` when >= 0), limited to the shape by ranks= and nodes=. What the tuner cannot
 * express on release a is a commented-out rule after a comment giving the reason: a choice
 * that is no candidate on a (LL128 it leaves off), the graphs, a channel count it cannot take.
 * Returns the number of rules written uncommented. */
int nn_release_diff_rules(FILE *out, const struct nn_release_diff *d, int coll);

#endif
