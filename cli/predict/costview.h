/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * costview.h - NCCL's choice beside the plugin's, under NCCL's own cost model.
 *
 * For `explain`: per collective, size bands (powers of two merged where nothing changes)
 * with NCCL's choice and modelled time, the plugin's choice (a rule, applied by the
 * plugin's own policy code to the cost table NCCL would hand it, or NCCL's), and the
 * modelled time of the plugin's choice; bands where a rule overrides NCCL are marked.
 */
#ifndef NCCL_NUMA_CLI_COSTVIEW_H
#define NCCL_NUMA_CLI_COSTVIEW_H

#include <stdint.h>
#include <stdio.h>

#include "nccl_cost.h"
#include "nccl_forced.h"
#include "nn_config.h"
#include "policy.h"
#include "topology.h"

/* NCCL's cost model for explain: the graphs of the verdict's prediction NCCL will use (the
 * served file when the verdict serves it, else NCCL's own view), `ranks` on `nodes`, the
 * release's LL128 default and, where the release honours it, the mapping's `model
 * pci-latency-us`. desc gets one line saying which graphs and constants. Returns 0, or -1
 * with the reason in desc (no prediction, or a shape NCCL models nothing for). */
int nn_costview_model(const struct nn_topo_verdict *v, const struct nn_cpu_kind *cpu,
                      const struct nn_config *cfg, int ranks, int nodes, struct nn_cost_model *m,
                      char *desc, size_t desc_size);

/* One size band. Times are at the band's two ends (lo, hi). */
struct nn_costview_band {
  int lo_log2, hi_log2;                   /* sizes 2^lo .. 2^hi bytes */
  struct nn_cost_choice nccl_lo, nccl_hi; /* NCCL's choice and modelled time */
  struct nn_cost_choice plug_lo, plug_hi; /* what runs with the plugin (NCCL's when no rule) */
  int rule;                               /* rule index in the config, -1 = none fired */
  int overrides;                          /* the rule changes NCCL's algorithm or protocol */
  int channels;                           /* the rule's channel count, 0 = NCCL's */
  uint64_t chunk; /* getChunkSize's answer for the plugin's choice, 0 = NCCL's */
  int chunk_rule; /* the chunk= rule behind it, -1 = none */
};

/* The plugin's choice for one call: NCCL's table for this size, the policy applied to it
 * as the plugin does in getCollInfo, then NCCL's pick from the result. *rule gets the rule
 * index (-1 none) and *channels its channel count. Returns 0, or -1 when nothing is a
 * candidate. */
int nn_costview_plugin_choice(const struct nn_cost_model *m, const struct nn_policy *p, int coll,
                              uint64_t nbytes, struct nn_cost_choice *out, int *rule,
                              int *channels);

/* Splits 2^0 .. 2^max_log2 bytes into bands where NCCL's choice, the rule and the plugin's
 * choice stay the same. Returns the number of bands written (at most max_bands). */
int nn_costview_bands(const struct nn_cost_model *m, const struct nn_policy *p, int coll,
                      int max_log2, struct nn_costview_band *bands, int max_bands);

/* nn_costview_bands on the tables NCCL builds under `forced` (NULL: neither NCCL_ALGO nor
 * NCCL_PROTO set); p may be NULL (no rules: the plugin's choice is NCCL's). */
int nn_costview_bands_under(const struct nn_cost_model *m, const struct nn_policy *p,
                            const struct nn_forced *forced, int coll, int max_log2,
                            struct nn_costview_band *bands, int max_bands);

/* NCCL's choice and the plugin's for one call of nbytes (any size, not only a power of two),
 * on the table NCCL builds under `forced` (NULL: none); p may be NULL (no rules). */
struct nn_costview_at {
  struct nn_cost_choice nccl, plug; /* choice and modelled time; algo -1: no candidate */
  int rule;                         /* rule index in the config, -1 = none fired */
  int channels;                     /* the rule's channel count, 0 = NCCL's */
};
void nn_costview_at(const struct nn_cost_model *m, const struct nn_policy *p,
                    const struct nn_forced *forced, int coll, uint64_t nbytes,
                    struct nn_costview_at *out);

/* Whether a rule's channels=N can change nothing on m's release and communicator: the release
 * only lowers NCCL's own count (2.31+) and N is not below m->comm_nchannels. */
int nn_costview_channels_no_effect(const struct nn_cost_model *m, int channels);

/* Marks as ignored (-1) every entry of a cost table for collective coll that NCCL_ALGO /
 * NCCL_PROTO leave out, as NCCL does before calling a tuner; forced NULL: nothing. */
void nn_costview_mask(const struct nn_forced *forced, int coll, float *table);

/* Prints one collective's bands as a table (cfg names the rules' file:line), NCCL's choice and
 * the plugin's on the tables NCCL builds under `forced` (NULL: neither variable set). A rule
 * whose channels cannot take effect on the release says `no effect` after its file:line. */
void nn_costview_print(FILE *out, const struct nn_config *cfg, const struct nn_cost_model *m,
                       const struct nn_policy *p, const struct nn_forced *forced, int coll,
                       int max_log2);

/* The same table from bands already computed (nn_costview_bands_under; at most 64). */
void nn_costview_print_bands(FILE *out, const struct nn_config *cfg, const struct nn_cost_model *m,
                             int coll, const struct nn_costview_band *bands, int n);

/* Modelled times at a band's two ends: "20.6-97.1", one value when `same` (a one-size band) or
 * both print alike, "-" when either is negative (buf >= 40). */
void nn_costview_time_range(float lo, float hi, int same, char *buf, size_t size);

/* "ring/ll" (buf >= 16); "-" when algo < 0. */
void nn_costview_pair_name(int algo, int proto, char *buf, size_t size);

#endif
