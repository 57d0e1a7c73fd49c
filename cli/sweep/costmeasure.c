/* SPDX-License-Identifier: BSD-3-Clause */
/* costmeasure.c - NCCL's predicted choice beside what a run measured (costmeasure.h). */
#include "cli/sweep/costmeasure.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/predict/costview.h"
#include "cli/sweep/nccltests.h"
#include "cli/sweep/verdict.h"
#include "fileread.h"
#include "nccl_model.h"
#include "sizetext.h"

#define LATENCY_MAX_BYTES 1024

#define PROBE_MAX_BYTES (16 << 20)

static int coll_of(const char *tests_coll) {
  int c = nn_coll_from_name(tests_coll);
  return c >= 0 ? c : -1;
}

/* An enabled cell of an algorithm the model leaves out, or NULL. */
static const char *uncovered(const struct nn_nccltuning *t) {
  for (int a = 0; a < t->n_algos; a++) {
    int id = nn_nccl_name_find(NN_NAME_ALGO, t->algos[a], strlen(t->algos[a]));
    int known = id == NN_ALGO_TREE || id == NN_ALGO_RING;
    for (int f = 0; f < t->n_funcs && !known; f++)
      for (int p = 0; p < t->n_protos; p++)
        if (t->enabled[f][a][p]) return t->algos[a];
  }
  return NULL;
}

/* NCCL's single-node latency has one PCI hop per ring step: a broadcast ring/LL latency
 * near base + 1 hop means the rings kept sameChannels. */
static int guess_same_channels(const struct nn_cost_model *m) {
  float l = m->lat[NN_COLL_BROADCAST][NN_ALGO_RING][NN_PROTO_LL];
  return !(m->bw[NN_COLL_BROADCAST][NN_ALGO_RING][NN_PROTO_LL] > 0) ||
         l <
           (float)nn_cost_default_base_latency(NN_ALGO_RING, NN_PROTO_LL) + 1.5f * m->pci_hop[1][0];
}

int nn_costmeasure_from_tuning(const struct nn_nccltuning *t, int version_code, int nranks,
                               struct nn_cost_model *m, char *why, size_t why_size) {
  memset(m, 0, sizeof *m);
  const char *other = uncovered(t);
  if (other) {
    snprintf(why, why_size, "NCCL enabled %s, which this model of its choice leaves out", other);
    return -1;
  }
  /* the probe ran without a tuner: NCCL's default PCI hops */
  nn_cost_model_start(m, version_code ? version_code : nn_nccl_version_assumed(), nranks, 1, 90);
  m->comm_nchannels = 2;
  m->over_pci = 1;
  int cells = 0;
  for (int c = 0; c < NN_COLL_COUNT; c++)
    for (int a = NN_ALGO_TREE; a <= NN_ALGO_RING; a++)
      for (int p = 0; p < NN_PROTO_COUNT; p++) {
        float lat, bw;
        if (nn_nccltuning_cell(t, c, a, p, &lat, &bw) != 1 ||
            !nn_nccltuning_proto_runs_pcie(m->version_code, p))
          continue;
        m->lat[c][a][p] = lat;
        m->bw[c][a][p] = bw;
        cells++;
      }
  if (!cells || !(m->bw[NN_COLL_ALLREDUCE][NN_ALGO_RING][NN_PROTO_SIMPLE] > 0 ||
                  m->bw[NN_COLL_ALLREDUCE][NN_ALGO_RING][NN_PROTO_LL] > 0)) {
    snprintf(why, why_size, "the tuning table enables no Ring cell for AllReduce");
    return -1;
  }
  m->same_channels = guess_same_channels(m);
  return 0;
}

int nn_costmeasure_load(const struct nn_rundir *rd, int nranks, struct nn_cost_model *m, char *why,
                        size_t why_size) {
  char path[PATH_MAX], err[512] = "";
  snprintf(path, sizeof path, "%s/runs/probe.out", rd->path);
  char *buf = NULL;
  size_t len = 0;
  int r = nn_file_read(AT_FDCWD, path, NN_FILE_NOFOLLOW | NN_FILE_MISSING_OK, PROBE_MAX_BYTES, &buf,
                       &len, err, sizeof err);
  if (r != 0) {
    if (r == 1)
      snprintf(
        why, why_size,
        "no runs/probe.out (calibrate writes it: a probe run with NCCL_DEBUG_SUBSYS=TUNING)");
    else snprintf(why, why_size, "%s", err);
    return -1;
  }
  struct nn_nccltuning *t = calloc(1, sizeof *t);
  if (!t) {
    free(buf);
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  int found = nn_nccltuning_parse(buf, len, t, err, sizeof err);
  free(buf);
  int rc = -1;
  if (found != NN_NCCLTUNING_FOUND) snprintf(why, why_size, "runs/probe.out: %s", err);
  else rc = nn_costmeasure_from_tuning(t, nn_rundir_nccl_code(rd), nranks, m, why, why_size);
  free(t);
  return rc;
}

static const struct nn_arm *arm_of_kind(const struct nn_rundir *rd, int kind, int algo, int proto) {
  for (int i = 0; i < rd->n_arms; i++) {
    const struct nn_arm *a = &rd->arms[i];
    if (a->kind != kind) continue;
    if (kind != NN_ARM_FORCED) return a;
    if (!strcasecmp(a->algo, nn_algo_name(algo)) && !strcasecmp(a->proto, nn_proto_name(proto)))
      return a;
  }
  return NULL;
}

static const struct nn_point *good_point(const struct nn_series *s, int ns, const struct nn_arm *a,
                                         const char *coll, uint64_t size) {
  if (!a) return NULL;
  const struct nn_point *p =
    nn_rundir_series_point(nn_rundir_series_find(s, ns, a->name, coll), size);
  return p && !p->failed && p->n_ok > 0 ? p : NULL;
}

int nn_costmeasure_point_at(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                            const char *coll, uint64_t size, const struct nn_cost_model *m,
                            struct nn_costmeasure_point *out) {
  memset(out, 0, sizeof *out);
  out->size = size;
  out->pred.algo = out->pred.proto = -1;
  int c = coll_of(coll);
  if (c < 0) return -1;
  nn_cost_choose(m, c, size, &out->pred);
  /* the stock arm runs NCCL's own choice; else the forced arm of that pair measured it */
  const struct nn_arm *stock = arm_of_kind(rd, NN_ARM_STOCK, 0, 0);
  out->pred_pt = good_point(s, ns, stock, coll, size);
  out->pred_arm = out->pred_pt ? stock : NULL;
  if (!out->pred_pt && out->pred.algo >= 0) {
    const struct nn_arm *f = arm_of_kind(rd, NN_ARM_FORCED, out->pred.algo, out->pred.proto);
    out->pred_pt = good_point(s, ns, f, coll, size);
    out->pred_arm = out->pred_pt ? f : NULL;
  }
  for (int i = 0; i < rd->n_arms; i++) {
    const struct nn_point *p = good_point(s, ns, &rd->arms[i], coll, size);
    if (p && (!out->best_pt || p->median < out->best_pt->median)) {
      out->best_pt = p;
      out->best_arm = &rd->arms[i];
    }
  }
  /* the forced arm of NCCL's own pair measured its choice too: that is no better choice */
  if (out->best_arm && out->pred.algo >= 0 && out->best_arm->kind == NN_ARM_FORCED &&
      out->best_arm == arm_of_kind(rd, NN_ARM_FORCED, out->pred.algo, out->pred.proto)) {
    out->pred_pt = out->best_pt;
    out->pred_arm = out->best_arm;
  }
  if (out->pred_pt && out->best_pt) {
    out->loss_us = out->pred_pt->median - out->best_pt->median;
    out->loss_pct = out->best_pt->median > 0 ? 100.0 * out->loss_us / out->best_pt->median : 0;
  }
  out->verdict = out->pred_pt && out->best_pt && out->best_pt != out->pred_pt
                   ? nn_verdict_compare(out->pred_pt, out->best_pt)
                   : NN_VERDICT_UNKNOWN;
  return 0;
}

static int keep_all(const struct nn_series *s, const void *arg) {
  (void)s;
  (void)arg;
  return 1;
}

void nn_costmeasure_markdown(FILE *f, const struct nn_rundir *rd, const struct nn_series *s, int ns,
                             const char *coll, const struct nn_cost_model *m) {
  int n = 0;
  uint64_t *sizes = nn_rundir_series_sizes(s, ns, coll, keep_all, NULL, &n);
  if (!sizes) return;
  fprintf(
    f,
    "\n### %s: NCCL's predicted choice against the measurements\n\n"
    "| size | NCCL picks | modelled (us) | measured (us) | measured on | best arm | best (us) | "
    "loss (us) | loss | verdict |\n|---:|:---|---:|---:|:---|:---|---:|---:|---:|:---|\n",
    coll);
  for (int i = 0; i < n; i++) {
    struct nn_costmeasure_point pt;
    if (nn_costmeasure_point_at(rd, s, ns, coll, sizes[i], m, &pt)) break;
    char sz[32], pick[32];
    nn_sizetext(sizes[i], sz, sizeof sz);
    nn_costview_pair_name(pt.pred.algo, pt.pred.proto, pick, sizeof pick);
    fprintf(f, "| %s | %s | %.1f |", sz, pick, pt.pred.time_us);
    if (pt.pred_pt) fprintf(f, " %.2f | %s |", pt.pred_pt->median, pt.pred_arm->name);
    else fprintf(f, " - | not measured |");
    if (pt.best_pt) fprintf(f, " %s | %.2f |", pt.best_arm->name, pt.best_pt->median);
    else fprintf(f, " - | - |");
    if (pt.pred_pt && pt.best_pt)
      fprintf(f, " %.2f | %.1f%% | %s |\n", pt.loss_us, pt.loss_pct,
              pt.best_pt == pt.pred_pt          ? "NCCL's choice is the best"
              : pt.verdict == NN_VERDICT_FASTER ? "best beats NCCL's choice beyond the spread"
              : pt.verdict == NN_VERDICT_NOISE  ? "within the spread"
                                                : "spread unknown");
    else fprintf(f, " - | - | n/a |\n");
  }
  free(sizes);
}

/* Modelled time of a forced arm at one size, or -1. */
static double modelled(const struct nn_cost_model *m, const struct nn_arm *a, const char *coll,
                       uint64_t size) {
  int c = coll_of(coll), al = nn_algo_from_name(a->algo), pr = nn_proto_from_name(a->proto);
  if (c < 0 || al < 0 || pr < 0) return -1;
  return nn_cost_time(m, c, al, pr, size);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Relative errors of model m over every forced LL/Simple arm and size; median and worst. */
static int errors(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                  const struct nn_cost_model *m, double *median, double *worst) {
  int n = 0, cap = 0;
  double *e = NULL;
  for (int i = 0; i < ns; i++) {
    const struct nn_arm *a = nn_rundir_arm(rd, s[i].arm);
    if (!a || a->kind != NN_ARM_FORCED || !strcasecmp(a->proto, "ll128")) continue;
    for (int k = 0; k < s[i].n_pts; k++) {
      const struct nn_point *p = &s[i].pts[k];
      double t = modelled(m, a, s[i].coll, p->size);
      if (p->failed || p->n_ok < 1 || !(p->median > 0) || t < 0) continue;
      if (n == cap) {
        double *g = realloc(e, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *e);
        if (!g) break;
        e = g;
      }
      e[n++] = fabs(t - p->median) / p->median;
    }
  }
  if (n) {
    qsort(e, (size_t)n, sizeof *e, cmp_double);
    *median = e[n / 2];
    *worst = e[n - 1];
  }
  free(e);
  return n;
}

int nn_costmeasure_residual(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                            const struct nn_cost_model *m, double pci_latency_us,
                            double *median_default, double *worst_default, double *median_with,
                            double *worst_with) {
  *median_default = *worst_default = *median_with = *worst_with = 0;
  int n = errors(rd, s, ns, m, median_default, worst_default);
  struct nn_cost_model w = *m;
  if (pci_latency_us > 0 && nn_cost_model_set_pci_latency(&w, pci_latency_us) == 0)
    errors(rd, s, ns, &w, median_with, worst_with);
  else {
    *median_with = *median_default;
    *worst_with = *worst_default;
  }
  return n;
}

static const struct nn_arm *forced_arm(const struct nn_rundir *rd, const char *algo,
                                       const char *proto) {
  for (int i = 0; i < rd->n_arms; i++)
    if (rd->arms[i].kind == NN_ARM_FORCED && !strcasecmp(rd->arms[i].algo, algo) &&
        !strcasecmp(rd->arms[i].proto, proto))
      return &rd->arms[i];
  return NULL;
}

double nn_costmeasure_pci_latency(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                                  char *how, size_t how_size) {
  static const int tries[] = {NN_ALGO_RING, NN_ALGO_TREE};
  for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
    const char *algo = nn_algo_name(tries[t]);
    double base = nn_cost_default_base_latency(tries[t], NN_PROTO_LL);
    const struct nn_arm *a = forced_arm(rd, algo, "ll");
    const struct nn_series *se = a ? nn_rundir_series_find(s, ns, a->name, "all_reduce") : NULL;
    if (!se || se->ranks < 2) continue;
    double best = INFINITY;
    uint64_t at = 0;
    for (int i = 0; i < se->n_pts; i++) {
      const struct nn_point *p = &se->pts[i];
      if (p->size > LATENCY_MAX_BYTES || p->failed || p->n_ok < 1) continue;
      if (p->median < best) {
        best = p->median;
        at = p->size;
      }
    }
    if (!isfinite(best)) continue;
    double hop = (best - base) / (2.0 * (se->ranks - 1));
    if (!(hop > 0) || hop > 1e6) {
      if (how)
        snprintf(how, how_size,
                 "all_reduce %s/ll at %llu B took %.2f us, not above NCCL's "
                 "base latency %.1f us: no estimate",
                 algo, (unsigned long long)at, best, base);
      return 0;
    }
    if (how)
      snprintf(how, how_size,
               "all_reduce %s/ll, %d ranks: %.2f us at %llu B = %.1f us base + "
               "%d hops x %.2f us",
               algo, se->ranks, best, (unsigned long long)at, base, 2 * (se->ranks - 1), hop);
    return hop;
  }
  if (how)
    snprintf(how, how_size,
             "no forced ring/ll or tree/ll all_reduce with 2+ ranks at "
             "sizes <= 1 KiB: no pci-latency estimate");
  return 0;
}

/* A size where NCCL's choice under w moves to a pair measured slower than its choice under m.
 * Returns 1 and describes it in why, else 0. */
static int slower_flip(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                       const char *coll, const struct nn_cost_model *m,
                       const struct nn_cost_model *w, char *why, size_t why_size) {
  int n = 0, found = 0;
  uint64_t *sizes = nn_rundir_series_sizes(s, ns, coll, keep_all, NULL, &n);
  for (int i = 0; sizes && i < n && !found; i++) {
    struct nn_costmeasure_point old;
    struct nn_cost_choice now;
    if (nn_costmeasure_point_at(rd, s, ns, coll, sizes[i], m, &old) || !old.pred_pt ||
        nn_cost_choose(w, coll_of(coll), sizes[i], &now) ||
        (now.algo == old.pred.algo && now.proto == old.pred.proto))
      continue;
    const struct nn_point *p =
      good_point(s, ns, arm_of_kind(rd, NN_ARM_FORCED, now.algo, now.proto), coll, sizes[i]);
    if (!p || p->median <= old.pred_pt->median) continue;
    char a[32], b[32], sz[32];
    nn_costview_pair_name(old.pred.algo, old.pred.proto, a, sizeof a);
    nn_costview_pair_name(now.algo, now.proto, b, sizeof b);
    nn_sizetext(sizes[i], sz, sizeof sz);
    snprintf(why, why_size,
             "with it NCCL would pick %s instead of %s for %s %s, which this run measured slower "
             "(%.2f us against %.2f us)",
             b, a, coll, sz, p->median, old.pred_pt->median);
    found = 1;
  }
  free(sizes);
  return found;
}

int nn_costmeasure_latency_ok(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                              const struct nn_cost_model *m, double us, char *why,
                              size_t why_size) {
  double md, wd, mw, ww;
  if (!m || !nn_costmeasure_residual(rd, s, ns, m, us, &md, &wd, &mw, &ww)) {
    snprintf(why, why_size,
             "no NCCL model of this run (no tuning table in runs/probe.out) to check that it "
             "improves the fit");
    return 0;
  }
  if (!(mw < md)) {
    snprintf(why, why_size,
             "it does not improve the fit of NCCL's model to this run (median residual %.0f%% with "
             "it, %.0f%% without)",
             100 * mw, 100 * md);
    return 0;
  }
  struct nn_cost_model w = *m;
  nn_cost_model_set_pci_latency(&w, us);
  for (int i = 0; i < rd->n_runs; i++) {
    int seen = 0;
    for (int k = 0; k < i && !seen; k++) seen = !strcmp(rd->runs[k].coll, rd->runs[i].coll);
    if (!seen && coll_of(rd->runs[i].coll) >= 0 &&
        slower_flip(rd, s, ns, rd->runs[i].coll, m, &w, why, why_size))
      return 0;
  }
  return 1;
}

static int run_ranks(const struct nn_series *s, int ns) {
  int r = 0;
  for (int i = 0; i < ns; i++)
    if (s[i].ranks > r) r = s[i].ranks;
  return r;
}

void nn_costmeasure_residual_line(FILE *f, const struct nn_rundir *rd, const struct nn_series *s,
                                  int ns, const struct nn_cost_model *m, double lat,
                                  const char *prefix) {
  double md, wd, mw, ww;
  int n = m ? nn_costmeasure_residual(rd, s, ns, m, lat, &md, &wd, &mw, &ww) : 0;
  if (!n) {
    fprintf(f, "%sresidual: no NCCL model of this run to compare the measurements with\n", prefix);
    return;
  }
  fprintf(f,
          "%sresidual over %d forced ring/tree x ll/simple points: NCCL's model is off by a median "
          "%.0f%% "
          "(worst %.0f%%) with its default constants",
          prefix, n, 100 * md, 100 * wd);
  if (lat > 0)
    fprintf(f, ", %.0f%% (worst %.0f%%) with pci-latency-us=%.2f", 100 * mw, 100 * ww, lat);
  fprintf(f, "\n");
}

int nn_costmeasure_winner(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                          const char *coll, uint64_t size, const struct nn_cost_model *m, char *why,
                          size_t why_size) {
  struct nn_costmeasure_point pt;
  char pick[32];
  if (nn_costmeasure_point_at(rd, s, ns, coll, size, m, &pt) || pt.pred.algo < 0) {
    snprintf(why, why_size, "NCCL's model has no choice here");
    return -2;
  }
  nn_costview_pair_name(pt.pred.algo, pt.pred.proto, pick, sizeof pick);
  if (!pt.pred_pt) {
    snprintf(why, why_size, "NCCL picks %s (modelled %.1f us), which this run did not measure",
             pick, pt.pred.time_us);
    return -2;
  }
  if (!pt.best_pt || pt.best_pt == pt.pred_pt) {
    snprintf(why, why_size, "NCCL's choice %s is the fastest measured (%.2f us on %s)", pick,
             pt.pred_pt->median, pt.pred_arm->name);
    return -1;
  }
  double spread = fmax(pt.pred_pt->max - pt.pred_pt->min, pt.best_pt->max - pt.best_pt->min);
  if (pt.verdict != NN_VERDICT_FASTER) {
    snprintf(why, why_size, "%s leads NCCL's choice %s (%.2f us on %s) by %.2f us, %s %.2f us",
             pt.best_arm->name, pick, pt.pred_pt->median, pt.pred_arm->name, pt.loss_us,
             pt.verdict == NN_VERDICT_NOISE ? "within the spread"
                                            : "with fewer than 2 good repeats: spread unknown, not",
             spread);
    return -1;
  }
  if (pt.best_arm->kind != NN_ARM_FORCED) {
    snprintf(why, why_size, "the fastest arm %s forced nothing: no rule to write",
             pt.best_arm->name);
    return -1;
  }
  snprintf(
    why, why_size,
    "%s beats NCCL's choice %s (%.2f us on %s) by %.2f us (%.0f%%), beyond the spread %.2f us",
    pt.best_arm->name, pick, pt.pred_pt->median, pt.pred_arm->name, pt.loss_us, pt.loss_pct,
    spread);
  return (int)(pt.best_arm - rd->arms);
}

void nn_costmeasure_report_section(FILE *f, const struct nn_rundir *rd, const struct nn_series *s,
                                   int ns, const char *const *colls, int nc) {
  struct nn_cost_model m;
  char why[512];
  fprintf(f, "\n## NCCL's own choice, predicted and measured\n\n");
  if (nn_costmeasure_load(rd, run_ranks(s, ns), &m, why, sizeof why)) {
    fprintf(f, "No prediction: %s.\n", why);
    return;
  }
  char ver[16];
  nn_nccl_version_format(m.version_code, ver, sizeof ver);
  fprintf(
    f,
    "NCCL's model is the tuning table NCCL %s logged on this machine (runs/probe.out, %d ranks); "
    "its choice per size is the smallest modelled time (latency + size / bandwidth, with NCCL's "
    "tree "
    "correction), as its own selection computes it. The measured time of that choice comes from "
    "the "
    "stock arm (NCCL choosing), else from the forced arm of that algorithm/protocol. Loss = that "
    "time "
    "minus the best arm's; the verdict needs the best to win by more than the larger spread.\n",
    ver, m.nranks);
  for (int c = 0; c < nc; c++) nn_costmeasure_markdown(f, rd, s, ns, colls[c], &m);
  char how[320];
  double lat = nn_costmeasure_pci_latency(rd, s, ns, how, sizeof how);
  fprintf(f, "\n");
  char not [400];
  if (lat > 0 && nn_costmeasure_latency_ok(rd, s, ns, &m, lat, not, sizeof not ))
    fprintf(f, "`model pci-latency-us=%.2f` (%s)\n\n", lat, how);
  else if (lat > 0)
    fprintf(f, "pci-latency: %s; `model pci-latency-us=%.2f` is not recommended: %s\n\n", how, lat,
            not );
  else fprintf(f, "pci-latency: %s\n\n", how);
  nn_costmeasure_residual_line(f, rd, s, ns, &m, lat, "");
}
