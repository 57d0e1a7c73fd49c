/* SPDX-License-Identifier: BSD-3-Clause */
/* calibrate_rules.c - the rules a calibrate run's measurements justify (calibrate.h). */
#include "cli/sweep/calibrate.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sweep/costmeasure.h"
#include "cli/sweep/verdict.h"
#include "nccl_model.h"
#include "nn_config.h"
#include "sizetext.h"

/* ---------- choosing ---------- */

struct cand {
  const struct nn_arm *arm;
  const struct nn_point *pt;
};

static int cmp_cand(const void *a, const void *b) {
  double x = ((const struct cand *)a)->pt->median, y = ((const struct cand *)b)->pt->median;
  return (x > y) - (x < y);
}

/* The winning arm index for one size, or -1; fills why. */
static int winner_at(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                     const char *coll, uint64_t size, char *why, size_t why_size) {
  struct cand c[NN_MAX_ARMS];
  int n = 0, failed = 0;
  for (int a = 0; a < rd->n_arms; a++) {
    if (rd->arms[a].kind != NN_ARM_FORCED) continue;
    const struct nn_point *p =
      nn_rundir_series_point(nn_rundir_series_find(s, ns, rd->arms[a].name, coll), size);
    if (!p) continue;
    if (p->failed || p->n_ok < 1) {
      failed++;
      continue;
    }
    c[n++] = (struct cand){&rd->arms[a], p};
  }
  if (n < 2) {
    snprintf(why, why_size, "%d working candidate(s), %d failed: nothing to compare", n, failed);
    return -1;
  }
  qsort(c, (size_t)n, sizeof c[0], cmp_cand);
  const struct nn_point *w = c[0].pt, *r = c[1].pt;
  double spread = fmax(w->max - w->min, r->max - r->min);
  double margin = r->median - w->median;
  if (w->n_ok < 2 || r->n_ok < 2) {
    snprintf(why, why_size, "%s leads %s by %.2f us but fewer than 2 good repeats: spread unknown",
             c[0].arm->name, c[1].arm->name, margin);
    return -1;
  }
  if (!(margin > spread)) {
    snprintf(why, why_size, "%s leads %s by %.2f us, within the spread %.2f us", c[0].arm->name,
             c[1].arm->name, margin, spread);
    return -1;
  }
  snprintf(why, why_size, "%s beats %s by %.2f us (spread %.2f us)%s", c[0].arm->name,
           c[1].arm->name, margin, spread, failed ? ", failed combinations skipped" : "");
  return (int)(c[0].arm - rd->arms);
}

void nn_calibrate_bytes_text(uint64_t v, char *buf, size_t size) {
  static const char sfx[] = "KMGT";
  int u = -1;
  while (u < 3 && v && v % 1024 == 0) {
    v /= 1024;
    u++;
  }
  if (u < 0) snprintf(buf, size, "%llu", (unsigned long long)v);
  else snprintf(buf, size, "%llu%c", (unsigned long long)v, sfx[u]);
}

/* Series of an arm that forced an algorithm and protocol (arg: the run directory). */
static int is_forced(const struct nn_series *s, const void *rd) {
  const struct nn_arm *a = nn_rundir_arm(rd, s->arm);
  return a && a->kind == NN_ARM_FORCED;
}

static int coll_ranks(const struct nn_series *s, int ns, const char *coll) {
  int r = 0;
  for (int i = 0; i < ns; i++)
    if (!strcmp(s[i].coll, coll) && s[i].ranks > r) r = s[i].ranks;
  return r;
}

/* The winner at one size: against NCCL's predicted choice when the model can judge it. */
static int judge(const struct nn_rundir *rd, const struct nn_series *s, int ns, const char *coll,
                 uint64_t size, const struct nn_cost_model *m, char *why, size_t why_size) {
  int w = m ? nn_costmeasure_winner(rd, s, ns, coll, size, m, why, why_size) : -2;
  if (w != -2) return w;
  char first[192] = "";
  if (m) snprintf(first, sizeof first, "%s; ", why);
  int r = winner_at(rd, s, ns, coll, size, why, why_size);
  if (first[0]) {
    char both[192];
    snprintf(both, sizeof both, "%.80s%s", first, why);
    snprintf(why, why_size, "%s", both);
  }
  return r;
}

static int is_chunk_arm(const struct nn_arm *a) {
  return a && a->kind == NN_ARM_NUMA &&
         !strncmp(a->name, NN_CAL_CHUNK_PREFIX, strlen(NN_CAL_CHUNK_PREFIX));
}

/* Series of a --chunks arm (arg: the run directory). */
static int is_chunk(const struct nn_series *s, const void *rd) {
  return is_chunk_arm(nn_rundir_arm(rd, s->arm));
}

/* The chunk arm that beats chunk.none (NCCL's own chunk size, the plugin loaded without rules)
 * at one size by more than the spread of the repeats, the fastest of those; -1 when none. */
static int chunk_winner(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                        const char *coll, uint64_t size, char *why, size_t why_size) {
  const struct nn_point *base = nn_rundir_series_point(
                          nn_rundir_series_find(s, ns, NN_CAL_CHUNK_PREFIX "none", coll), size),
                        *bp = NULL;
  int best = -1;
  for (int a = 0; base && a < rd->n_arms; a++) {
    if (!is_chunk_arm(&rd->arms[a]) || !strcmp(rd->arms[a].name, NN_CAL_CHUNK_PREFIX "none"))
      continue;
    const struct nn_point *p =
      nn_rundir_series_point(nn_rundir_series_find(s, ns, rd->arms[a].name, coll), size);
    if (nn_verdict_compare(base, p) == NN_VERDICT_FASTER && (!bp || p->median < bp->median)) {
      best = a;
      bp = p;
    }
  }
  if (!base || base->failed) snprintf(why, why_size, "no good chunk.none run to compare with");
  else if (best < 0)
    snprintf(why, why_size, "no chunk size beats NCCL's own by more than the spread");
  else
    snprintf(why, why_size, "%s beats NCCL's own chunk size by %.2f us (spread %.2f us)",
             rd->arms[best].name, base->median - bp->median,
             fmax(base->max - base->min, bp->max - bp->min));
  return best;
}

/* chunk= rules for one collective, where a --chunks arm measurably wins; the number written. */
static int emit_chunk_rules(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                            const char *coll, const char *rc, int ranks, const char *scope,
                            FILE *out) {
  int n = 0, rules = 0, code = nn_rundir_nccl_code(rd);
  uint64_t *sz = nn_rundir_series_sizes(s, ns, coll, is_chunk, rd, &n);
  if (!sz) return -1;
  if (n && code && !nn_nccl_release_find(code, NULL)->tuner_chunk_size) {
    char since[16];
    nn_nccl_release_since_text(offsetof(struct nn_nccl_release, tuner_chunk_size), since,
                               sizeof since);
    fprintf(
      out,
      "# %s chunk sizes: NCCL %s asks no tuner for chunk sizes (tuner v6, %s+): no chunk rule\n",
      coll, rd->nccl, since);
  }
  for (int i = 0; i < n && !(code && !nn_nccl_release_find(code, NULL)->tuner_chunk_size);) {
    char why[192], a[32], b[32], lo[32], hi[32];
    int w = chunk_winner(rd, s, ns, coll, sz[i], why, sizeof why), j = i;
    while (j + 1 < n && chunk_winner(rd, s, ns, coll, sz[j + 1], a, sizeof a) == w) j++;
    nn_sizetext(sz[i], a, sizeof a);
    nn_sizetext(sz[j], b, sizeof b);
    fprintf(out, "# %s %s%s%s, chunk size: %s%s%s\n", coll, a, j > i ? ".." : "", j > i ? b : "",
            w < 0 ? "no rule (" : "", why, w < 0 ? ")" : "");
    if (w >= 0) {
      nn_calibrate_bytes_text(sz[i], lo, sizeof lo);
      nn_calibrate_bytes_text(j + 1 < n ? sz[j + 1] - 1 : sz[j], hi, sizeof hi);
      fprintf(out, "rule coll=%s bytes=%s-%s", rc, lo, hi);
      if (ranks > 0) fprintf(out, " ranks=%d nodes=1", ranks);
      if (scope) fprintf(out, " scope=%s", scope);
      fprintf(out, " chunk=%s\n", rd->arms[w].name + strlen(NN_CAL_CHUNK_PREFIX));
      rules++;
    }
    i = j + 1;
  }
  free(sz);
  return rules;
}

/* Appends ", WHAT at N (MEANING)" to buf when n > 0. */
static void failure_part(char *buf, size_t size, int n, const char *what, const char *meaning) {
  size_t used = strlen(buf);
  if (n > 0 && used < size)
    snprintf(buf + used, size - used, "%s%s at %d (%s)", used ? ", " : "", what, n, meaning);
}

/* One line per forced arm that failed somewhere for coll: where, and why. */
static void report_failed(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                          const char *coll, FILE *out) {
  for (int a = 0; a < rd->n_arms; a++) {
    const struct nn_series *se = rd->arms[a].kind == NN_ARM_FORCED
                                   ? nn_rundir_series_find(s, ns, rd->arms[a].name, coll)
                                   : NULL;
    if (!se) continue;
    int wrong = 0, unchecked = 0, other = 0, first = -1, last = -1;
    for (int i = 0; i < se->n_pts; i++) {
      const struct nn_point *p = &se->pts[i];
      if (!p->failed && p->n_ok > 0) continue;
      if (first < 0) first = i;
      last = i;
      if (p->n_wrong) wrong++;
      else if (p->n_unchecked) unchecked++;
      else other++;
    }
    char why[256] = "", lo[32], hi[32];
    failure_part(why, sizeof why, wrong, "#wrong > 0",
                 "nccl-tests' correctness check found wrong results");
    failure_part(why, sizeof why, unchecked, "#wrong N/A",
                 "run without nccl-tests' correctness check");
    failure_part(why, sizeof why, other, "no good result", "a non-zero exit or no readable row");
    if (first >= 0) {
      nn_sizetext(se->pts[first].size, lo, sizeof lo);
      nn_sizetext(se->pts[last].size, hi, sizeof hi);
      fprintf(out, "# %s %s: FAILED at %d of %d sizes (%s..%s): %s; never a winner\n", coll,
              rd->arms[a].name, wrong + unchecked + other, se->n_pts, lo, hi, why);
    } else if (!se->n_pts && se->n_failed_runs) {
      fprintf(
        out,
        "# %s %s: FAILED: no result in %d of %d runs (a non-zero exit or no readable table); never "
        "a winner\n",
        coll, rd->arms[a].name, se->n_failed_runs, se->n_runs);
    }
  }
}

static int emit_coll(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                     const char *coll, int ranks, const char *scope, const struct nn_cost_model *m,
                     FILE *out) {
  const char *rc = nn_abenv_rule_coll(coll);
  if (!rc) {
    fprintf(out, "# %s: NCCL's tuner is never asked about this collective; no rules\n", coll);
    return 0;
  }
  report_failed(rd, s, ns, coll, out);
  int n = 0, rules = 0;
  uint64_t *sz = nn_rundir_series_sizes(s, ns, coll, is_forced, rd, &n);
  if (!sz) return -1;
  int *win = malloc((size_t)(n ? n : 1) * sizeof *win);
  char(*why)[192] = malloc((size_t)(n ? n : 1) * sizeof *why);
  if (!win || !why) {
    free(sz);
    free(win);
    free(why);
    return -1;
  }
  for (int i = 0; i < n; i++) win[i] = judge(rd, s, ns, coll, sz[i], m, why[i], sizeof why[i]);
  if (!ranks) ranks = coll_ranks(s, ns, coll);
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && win[j + 1] == win[i]) j++;
    char lo[32], hi[32], a[32], b[32];
    nn_sizetext(sz[i], a, sizeof a);
    nn_sizetext(sz[j], b, sizeof b);
    if (win[i] < 0) {
      for (int k = i; k <= j; k++) {
        nn_sizetext(sz[k], a, sizeof a);
        fprintf(out, "# %s %s: no rule (%s)\n", coll, a, why[k]);
      }
    } else {
      const struct nn_arm *w = &rd->arms[win[i]];
      nn_calibrate_bytes_text(sz[i], lo, sizeof lo);
      nn_calibrate_bytes_text(j + 1 < n ? sz[j + 1] - 1 : sz[j], hi, sizeof hi);
      fprintf(out, "# %s %s%s%s: %s%s\n", coll, a, j > i ? ".." : "", j > i ? b : "", why[i],
              j > i ? " (at the first size)" : "");
      fprintf(out, "rule coll=%s bytes=%s-%s", rc, lo, hi);
      if (ranks > 0) fprintf(out, " ranks=%d nodes=1", ranks);
      if (scope) fprintf(out, " scope=%s", scope);
      fprintf(out, " algo=%s proto=%s\n", w->algo, w->proto);
      rules++;
    }
    i = j + 1;
  }
  free(sz);
  free(win);
  free(why);
  int chunk_rules = emit_chunk_rules(rd, s, ns, coll, rc, ranks, scope, out);
  return chunk_rules < 0 ? -1 : rules + chunk_rules;
}

int nn_calibrate_emit(const struct nn_rundir *rd, const struct nn_series *s, int ns, int ranks,
                      const char *scope, const struct nn_cost_model *m, FILE *out) {
  const char *colls[NN_AB_MAX_COLLS];
  int nc = 0, total = 0;
  for (int i = 0; i < rd->n_runs && nc < NN_AB_MAX_COLLS; i++) {
    int seen = 0;
    for (int k = 0; k < nc && !seen; k++) seen = !strcmp(colls[k], rd->runs[i].coll);
    if (!seen) colls[nc++] = rd->runs[i].coll;
  }
  for (int c = 0; c < nc; c++) {
    int r = emit_coll(rd, s, ns, colls[c], ranks, scope, m, out);
    if (r < 0) return -1;
    total += r;
  }
  return total;
}
