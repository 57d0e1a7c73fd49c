/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_forced.h - what NCCL_ALGO and NCCL_PROTO leave a tuner, as NCCL parses them.
 *
 * NCCL reads both before any tuner (ncclTopoTuneModel, src/graph/tuning.cc, up to 2.30.7;
 * ncclTuningCostModelInit, src/tuning/cost_model.cc, from 2.31) and marks every algorithm or
 * protocol they leave out as ignored (-1) in the cost table it hands the tuner, so a rule
 * choosing one of those never fires for that collective. Read-only on the parsed mapping;
 * nothing here runs on NCCL's per-call path.
 */
#ifndef NCCL_NUMA_NCCL_FORCED_H
#define NCCL_NUMA_NCCL_FORCED_H

#include <stddef.h>

#include "nn_config.h"

enum nn_forced_var { NN_FORCED_ALGO = 0, NN_FORCED_PROTO = 1, NN_FORCED_COUNT = 2 };

struct nn_forced {
  const char *value[NN_FORCED_COUNT]; /* NULL: unset or empty (points into environ or the config) */
  int env_line[NN_FORCED_COUNT];      /* the mapping's `env` line that set it; 0: the environment */
  int invalid[NN_FORCED_COUNT];       /* a value NCCL rejects (then its communicator init fails) */
  unsigned
    restricted[NN_FORCED_COUNT]; /* bit c: the value leaves collective c less than everything */
  unsigned char algo_on[NN_COLL_COUNT][NN_ALGO_COUNT];
  unsigned char proto_on[NN_COLL_COUNT][NN_PROTO_COUNT];
};

/* The variable's name, "NCCL_ALGO" or "NCCL_PROTO". */
const char *nn_forced_name(int var);

/* Parses a value with NCCL's grammar (parseList): "[^]list" for every collective, then
 * ";coll:[^]list" entries, names case-insensitive. on[c * n + i] gets 1 for each of the n
 * algorithms (var NN_FORCED_ALGO) or protocols left enabled for collective c. Returns 0, or -1
 * for a value NCCL rejects (on then says everything is enabled). */
int nn_forced_parse(const char *value, int var, unsigned char *on);

/* Fills f from the real environment, else the mapping's `env` lines (what the env plugin serves,
 * NCCL 2.28.7+); cfg may be NULL. */
void nn_forced_read(const struct nn_config *cfg, struct nn_forced *f);

/* Whether any variable is set. */
int nn_forced_any(const struct nn_forced *f);

/* The variables (bits 1 << NN_FORCED_ALGO, 1 << NN_FORCED_PROTO) that keep rule r from firing for
 * collective coll: it names an algorithm or protocol the value leaves out there. */
unsigned nn_forced_blocks(const struct nn_forced *f, const struct nn_rule *r, int coll);

/* One sentence per set variable, for explain, check and the plugin's init log: where it came
 * from, which collectives it restricts, and how many of cfg's rules it keeps from firing (the
 * first named by file:line). Returns the number of rules blocked for some collective. */
int nn_forced_describe(const struct nn_config *cfg, const struct nn_forced *f, int var, char *buf,
                       size_t size);

#endif
