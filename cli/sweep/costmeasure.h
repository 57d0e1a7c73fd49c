/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * costmeasure.h - NCCL's predicted choice beside what a run measured (report, calibrate).
 *
 * NCCL's model of the machine comes from NCCL itself: the tuning table (latency and
 * bandwidth per collective x algorithm x protocol) its probe run logged into
 * RUNDIR/runs/probe.out (calibrate runs that probe with NCCL_DEBUG_SUBSYS=TUNING). For each
 * measured size: NCCL's predicted choice (its cost formula on that table, nccl_cost.h),
 * the measured time of that choice (the stock arm, which runs NCCL's own choice, else the
 * forced arm of that algorithm/protocol), the measured best over all arms, and the loss
 * NCCL's choice costs.
 */
#ifndef NCCL_NUMA_CLI_COSTMEASURE_H
#define NCCL_NUMA_CLI_COSTMEASURE_H

#include <stdint.h>
#include <stdio.h>

#include "cli/sweep/nccltuning.h"
#include "cli/sweep/rundir.h"
#include "nccl_cost.h"

/* NCCL's model from its own tuning table: the Tree and Ring cells NCCL enabled, for
 * `nranks` ranks on one node and release `version_code` (0 unknown: 2.28's rules).
 * Returns 0, or -1 with the reason in why (no AllReduce row, nothing enabled, or NCCL
 * enabled an algorithm this model leaves out, such as NVLS or CollNet: then its choice
 * cannot be predicted from Tree and Ring alone). */
int nn_costmeasure_from_tuning(const struct nn_nccltuning *t, int version_code, int nranks,
                               struct nn_cost_model *m, char *why, size_t why_size);

/* Reads RUNDIR/runs/probe.out (as untrusted as the rest of the directory) and builds the
 * model for `nranks`. Returns 0, or -1 with why (no probe, no complete table, ...). */
int nn_costmeasure_load(const struct nn_rundir *rd, int nranks, struct nn_cost_model *m, char *why,
                        size_t why_size);

/* One measured size. */
struct nn_costmeasure_point {
  uint64_t size;
  struct nn_cost_choice pred;    /* NCCL's choice and modelled time; algo -1: none */
  const struct nn_arm *pred_arm; /* where its time was measured; NULL: not measured */
  const struct nn_point *pred_pt;
  const struct nn_arm *best_arm; /* fastest arm whose every run succeeded; NULL: none */
  const struct nn_point *best_pt;
  double loss_us, loss_pct; /* measured(pred) - best, and over best (0 when pred is best) */
  int verdict;              /* nn_verdict_compare(pred, best): NN_VERDICT_FASTER = the best
                             * beats NCCL's choice by more than the larger spread */
};

/* Fills *out for one collective (nccl-tests name, "all_reduce") and size. Returns 0, or
 * -1 when NCCL does not tune that collective. */
int nn_costmeasure_point_at(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                            const char *coll, uint64_t size, const struct nn_cost_model *m,
                            struct nn_costmeasure_point *out);

/* The markdown section for one collective: per size, NCCL's choice and modelled time, its
 * measured time and where from, the measured best, the loss, and the verdict. */
void nn_costmeasure_markdown(FILE *f, const struct nn_rundir *rd, const struct nn_series *s, int ns,
                             const char *coll, const struct nn_cost_model *m);

/* How far NCCL's model stays from the measurements: over every forced Ring/Tree x
 * LL/Simple arm and size, the median and the largest |modelled - measured| / measured,
 * with NCCL's default PCI latencies and with hwLatencies[PCI] tree/ring x ll/simple set
 * to `pci_latency_us` (what a `model pci-latency-us` line does on 2.28-2.30). Returns the
 * number of points compared (0: none). */
int nn_costmeasure_residual(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                            const struct nn_cost_model *m, double pci_latency_us,
                            double *median_default, double *worst_default, double *median_with,
                            double *worst_with);

/* One line: how far NCCL's model m (may be NULL) stays from the run's measurements with
 * its default constants and with pci-latency-us `lat` (0: not estimated), after prefix. */
void nn_costmeasure_residual_line(FILE *f, const struct nn_rundir *rd, const struct nn_series *s,
                                  int ns, const struct nn_cost_model *m, double lat,
                                  const char *prefix);

/* Whether `model pci-latency-us=us` is worth writing for this run: with it NCCL's model m
 * must fit the measurements better (a lower median residual, nn_costmeasure_residual), and at no
 * measured size of a collective NCCL tunes may NCCL's choice under it move from a pair to one
 * the run measured slower (the old pair's time from the stock arm or its forced arm, the new
 * pair's from its forced arm). Returns 1 (write it), or 0 with the reason in why, also when
 * there is no model (m NULL) to check it against. */
int nn_costmeasure_latency_ok(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                              const struct nn_cost_model *m, double us, char *why, size_t why_size);

/* calibrate's criterion with NCCL's model: the winning (forced) arm index for one size,
 * only when the measured best beats the measurement of NCCL's predicted choice by more
 * than the larger spread; -1 no rule; -2 the model cannot judge (NCCL's choice was not
 * measured), so the caller falls back to its own criterion. why says which, with numbers. */
int nn_costmeasure_winner(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                          const char *coll, uint64_t size, const struct nn_cost_model *m, char *why,
                          size_t why_size);

/* The report's section: the model's source, one nn_costmeasure_markdown table per collective,
 * and the pci-latency line; or why there is no prediction. */
void nn_costmeasure_report_section(FILE *f, const struct nn_rundir *rd, const struct nn_series *s,
                                   int ns, const char *const *colls, int nc);

/* The pci-latency estimate in microseconds from a run, or 0 when the run does
 * not allow one. `how` (may be NULL) receives one line saying what it used. */
double nn_costmeasure_pci_latency(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                                  char *how, size_t how_size);

#endif
