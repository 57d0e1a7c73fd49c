/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * calibrate.h - `nccl-numa calibrate`: forced NCCL_ALGO x NCCL_PROTO sweeps
 * with nccl-tests (or `--from RUNDIR`), turned into `rule` lines and a
 * `model pci-latency-us=` estimate for the mapping file.
 *
 * Method (docs/user/measuring.md, "nccl-numa calibrate", says the same for users):
 *  - every candidate algorithm x protocol is one arm (NCCL_ALGO/NCCL_PROTO
 *    forced), run alternately like `ab` for --repeats N (default 3);
 *  - candidates: --algos x --protos when given; otherwise what NCCL enables on
 *    the machine for the swept collectives, read (nccltuning.h) from the
 *    tuning table of one probe run with NCCL_DEBUG=INFO
 *    NCCL_DEBUG_SUBSYS=TUNING (kept as RUNDIR/runs/probe.out; LL128 only where
 *    the release runs it over PCIe, nn_nccltuning_proto_runs_pcie), falling back to
 *    ring,tree x ll,ll128,simple when no complete table is found; the choice
 *    and its reason go to stderr and to a `candidates` line in RUNDIR/meta;
 *  - LL128 (any protocol the release keeps off between PCIe-only GPUs) is
 *    never forced: --protos naming it is refused, after a version probe when
 *    --nccl-version is not given; a release the probe cannot tell gets none;
 *  - nccl-tests' correctness check stays on (-c 0 after -- or in --bench-cmd
 *    is refused, a forced arm's row with #wrong N/A fails); each failed arm
 *    gets one FAILED comment per collective saying where and why;
 *  - per collective and size, the candidates whose every run succeeded are
 *    ranked by median out-of-place time; a failed combination (non-zero exit,
 *    #wrong > 0) is never chosen;
 *  - the fastest wins only when it beats the runner-up by more than the
 *    larger of their spreads (max - min over repeats; at least 2 good repeats
 *    each and at least 2 working candidates); otherwise no rule (NCCL's default
 *    stays);
 *  - neighbouring sizes with the same winner merge into one rule covering
 *    from its first measured size to just below the next measured size (the
 *    last size of a sweep ends the range);
 *  - rules carry coll, bytes, ranks and nodes=1 from the run, and scope when a
 *    mapping tells it (intra/cross for that rank count);
 *  - pci-latency-us: from forced ring/LL (else tree/LL) all_reduce at sizes of
 *    at most 1 KiB, where time is latency: NCCL models it as base latency +
 *    2 (n - 1) hops, so one hop = (t - base) / (2 (n - 1)), with NCCL 2.28's
 *    base latencies (ring LL 6.6 us, tree LL 6.8 us) and t the smallest median.
 */
#ifndef NCCL_NUMA_CLI_CALIBRATE_H
#define NCCL_NUMA_CLI_CALIBRATE_H

#include <stdio.h>

#include <limits.h>
#include <stdint.h>

#include "cli/sweep/abrun.h"
#include "cli/sweep/rundir.h"
#include "nccl_cost.h"

#define NN_CAL_CHUNK_PREFIX "chunk." /* the arms of --chunks: chunk.none and chunk.SIZE */

/* v in the syntax of a rule's bytes= and chunk=: "4096", or "4K" when it is a whole number of
 * KiB, MiB, GiB or TiB. */
void nn_calibrate_bytes_text(uint64_t v, char *buf, size_t size);

/* Writes the rules for a run (forced arms only are candidates) to out.
 * `scope` ("intra", "cross") is added to each rule when not NULL; `ranks`
 * overrides the rank count the runs reported when > 0. With NCCL's model `m`
 * (may be NULL; costmeasure.h) a size gets a rule only where the fastest arm
 * beats the measured time of NCCL's predicted choice beyond the spread; sizes
 * where NCCL's choice was not measured, and runs without m, use the runner-up
 * criterion above. Returns the number of rules written, or -1. */
int nn_calibrate_emit(const struct nn_rundir *rd, const struct nn_series *s, int ns, int ranks,
                      const char *scope, const struct nn_cost_model *m, FILE *out);

/* What the command line asks of a sweep (cmd_calibrate.c fills it). */
struct nn_cal_cli {
  const char *from, *config, *plugin,
    *out;               /* --from, --config, --plugin, --out (NULL: not given) */
  char *algos, *protos; /* --algos, --protos lists (NULL: NCCL's own candidates) */
  const char *chunks;   /* --chunks list of chunk sizes to sweep, NULL: none */
  const char *command;  /* the command line the run's meta records */
  /* Storage for what nn_calibrate_run points o->plugin and out at: it must outlive the run. */
  char plugin_path[PATH_MAX];
  char default_out[64];
};

/* Runs the forced sweeps that c and o describe into a new run directory (the mapping
 * `config`, "" for none, gives the runs the topology; *gpus the default GPU count, set to
 * the count used), then reads the run back into rd as `--from` would. The candidates
 * chosen, and the sweep's progress (abrun.h), go to stderr as it runs. Returns 0,
 * NN_CALIBRATE_USAGE (the options ask for what cannot be run) or NN_CALIBRATE_FAILED,
 * with the problem in err (empty when the sweep itself said it). */
enum { NN_CALIBRATE_FAILED = -1, NN_CALIBRATE_USAGE = -2 };
int nn_calibrate_run(struct nn_ab_opts *o, struct nn_cal_cli *c, struct nn_rundir *rd, char *config,
                     int *gpus, char *err, size_t errsz);

/* The scope (intra or cross) of `ranks` ranks on `nodes` nodes by the mapping `config`,
 * or NULL when it does not decide it or there is no mapping; *gpus (when not NULL and 0)
 * gets the mapping's GPU count. */
const char *nn_calibrate_scope(const char *config, int ranks, int nodes, int *gpus);

#endif
