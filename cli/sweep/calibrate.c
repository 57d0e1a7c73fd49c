/* SPDX-License-Identifier: BSD-3-Clause */
/* calibrate.c - forced algorithm/protocol sweeps turned into rules. */
#include "cli/sweep/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/sweep/abrun.h"
#include "cli/common/cliconfig.h"
#include "cli/common/locate.h"
#include "cli/sweep/costmeasure.h"
#include "cli/sweep/nccltuning.h"
#include "cli/sweep/nccltests.h"
#include "cli/sweep/verdict.h"
#include "nccl_model.h"
#include "errbuf.h"
#include "fileread.h"
#include "nn_config.h"
#include "topology.h"
#include "sizetext.h"

#define FIXED_ALGOS "ring,tree"         /* candidates when NCCL's table cannot be read */
#define FIXED_PROTOS "ll,ll128,simple"
#define PROBE_MAX_BYTES (16 << 20)

#define CHUNK_PREFIX "chunk."   /* the arms of --chunks: chunk.none and chunk.SIZE */
#define MAX_CHUNKS 8

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
    const struct nn_point *p = nn_rundir_series_point(nn_rundir_series_find(s, ns, rd->arms[a].name, coll), size);
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

static void bytes_text(uint64_t v, char *buf, size_t size) {
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
  return a && a->kind == NN_ARM_NUMA && !strncmp(a->name, CHUNK_PREFIX, strlen(CHUNK_PREFIX));
}

/* Series of a --chunks arm (arg: the run directory). */
static int is_chunk(const struct nn_series *s, const void *rd) { return is_chunk_arm(nn_rundir_arm(rd, s->arm)); }

/* The chunk arm that beats chunk.none (NCCL's own chunk size, the plugin loaded without rules)
 * at one size by more than the spread of the repeats, the fastest of those; -1 when none. */
static int chunk_winner(const struct nn_rundir *rd, const struct nn_series *s, int ns, const char *coll,
                        uint64_t size, char *why, size_t why_size) {
  const struct nn_point *base = nn_rundir_series_point(nn_rundir_series_find(s, ns, CHUNK_PREFIX "none", coll), size), *bp = NULL;
  int best = -1;
  for (int a = 0; base && a < rd->n_arms; a++) {
    if (!is_chunk_arm(&rd->arms[a]) || !strcmp(rd->arms[a].name, CHUNK_PREFIX "none")) continue;
    const struct nn_point *p = nn_rundir_series_point(nn_rundir_series_find(s, ns, rd->arms[a].name, coll), size);
    if (nn_verdict_compare(base, p) == NN_VERDICT_FASTER && (!bp || p->median < bp->median)) {
      best = a;
      bp = p;
    }
  }
  if (!base || base->failed) snprintf(why, why_size, "no good chunk.none run to compare with");
  else if (best < 0) snprintf(why, why_size, "no chunk size beats NCCL's own by more than the spread");
  else snprintf(why, why_size, "%s beats NCCL's own chunk size by %.2f us (spread %.2f us)", rd->arms[best].name,
                base->median - bp->median, fmax(base->max - base->min, bp->max - bp->min));
  return best;
}

/* chunk= rules for one collective, where a --chunks arm measurably wins; the number written. */
static int emit_chunk_rules(const struct nn_rundir *rd, const struct nn_series *s, int ns, const char *coll,
                            const char *rc, int ranks, const char *scope, FILE *out) {
  int n = 0, rules = 0, code = nn_rundir_nccl_code(rd);
  uint64_t *sz = nn_rundir_series_sizes(s, ns, coll, is_chunk, rd, &n);
  if (!sz) return -1;
  if (n && code && !nn_nccl_release_find(code, NULL)->tuner_chunk_size) {
    char since[16];
    nn_nccl_release_since_text(offsetof(struct nn_nccl_release, tuner_chunk_size), since, sizeof since);
    fprintf(out, "# %s chunk sizes: NCCL %s asks no tuner for chunk sizes (tuner v6, %s+): no chunk rule\n", coll,
            rd->nccl, since);
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
      bytes_text(sz[i], lo, sizeof lo);
      bytes_text(j + 1 < n ? sz[j + 1] - 1 : sz[j], hi, sizeof hi);
      fprintf(out, "rule coll=%s bytes=%s-%s", rc, lo, hi);
      if (ranks > 0) fprintf(out, " ranks=%d nodes=1", ranks);
      if (scope) fprintf(out, " scope=%s", scope);
      fprintf(out, " chunk=%s\n", rd->arms[w].name + strlen(CHUNK_PREFIX));
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
static void report_failed(const struct nn_rundir *rd, const struct nn_series *s, int ns, const char *coll,
                          FILE *out) {
  for (int a = 0; a < rd->n_arms; a++) {
    const struct nn_series *se = rd->arms[a].kind == NN_ARM_FORCED
                                     ? nn_rundir_series_find(s, ns, rd->arms[a].name, coll) : NULL;
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
    failure_part(why, sizeof why, wrong, "#wrong > 0", "nccl-tests' correctness check found wrong results");
    failure_part(why, sizeof why, unchecked, "#wrong N/A", "run without nccl-tests' correctness check");
    failure_part(why, sizeof why, other, "no good result", "a non-zero exit or no readable row");
    if (first >= 0) {
      nn_sizetext(se->pts[first].size, lo, sizeof lo);
      nn_sizetext(se->pts[last].size, hi, sizeof hi);
      fprintf(out, "# %s %s: FAILED at %d of %d sizes (%s..%s): %s; never a winner\n", coll, rd->arms[a].name,
              wrong + unchecked + other, se->n_pts, lo, hi, why);
    } else if (!se->n_pts && se->n_failed_runs) {
      fprintf(out, "# %s %s: FAILED: no result in %d of %d runs (a non-zero exit or no readable table); never "
              "a winner\n", coll, rd->arms[a].name, se->n_failed_runs, se->n_runs);
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
  char (*why)[192] = malloc((size_t)(n ? n : 1) * sizeof *why);
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
      bytes_text(sz[i], lo, sizeof lo);
      bytes_text(j + 1 < n ? sz[j + 1] - 1 : sz[j], hi, sizeof hi);
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

/* ---------- the sweep ---------- */

static int split_names(char *list, const char *what, int (*lookup)(const char *), char **out,
                       int max, char *err, size_t errsz) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (lookup(t) < 0 || n >= max) {
      nn_errbuf_set(err, errsz, "unknown %s '%s'", what, t);
      return -1;
    }
    out[n++] = t;
  }
  return n;
}

static int add_arm(struct nn_rundir *rd, const char *algo, const char *proto, const char *config) {
  if (rd->n_arms >= NN_MAX_ARMS) return -1;
  struct nn_arm *a = &rd->arms[rd->n_arms++];
  memset(a, 0, sizeof *a);
  snprintf(a->algo, sizeof a->algo, "%s", algo);
  snprintf(a->proto, sizeof a->proto, "%s", proto);
  snprintf(a->name, sizeof a->name, "%s.%s", algo, proto);
  a->kind = NN_ARM_FORCED;
  return config && !(a->config = strdup(config)) ? -1 : 0;
}

/* Appends the arms' names to buf ("ring.ll ring.simple ..."). */
static void arm_list(const struct nn_rundir *rd, char *buf, size_t size) {
  size_t used = strlen(buf);
  for (int i = 0; i < rd->n_arms && used < size; i++) {
    int w = snprintf(buf + used, size - used, "%s%s", i ? " " : "", rd->arms[i].name);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* Whether calibrate may force proto: never one the release keeps off between PCIe-only GPUs
 * (nccl_model.c's table); with the release unknown (0), only a protocol every release
 * enables there. */
static int proto_may_force(int nccl_code, int proto) {
  if (!nccl_code) return proto == NN_PROTO_LL || proto == NN_PROTO_SIMPLE;
  return nn_nccl_proto_enabled_pcie(nn_nccl_release_find(nccl_code, NULL), proto, 0);
}

/* The usage error for --protos naming a protocol calibrate does not force on release code. */
static void refuse_proto(int code, int proto, char *err, size_t errsz) {
  if (!code)
    nn_errbuf_set(err, errsz, "--protos %s: NCCL's release is unknown (the probe run did not tell it), so is "
                  "whether it keeps %s off between PCIe-only GPUs; calibrate does not force it (give "
                  "--nccl-version X.Y.Z)", nn_proto_name(proto), nn_proto_name(proto));
  else {
    char v[16];
    nn_nccl_version_format(code, v, sizeof v);
    nn_errbuf_set(err, errsz, "--protos %s: NCCL %s keeps %s off between PCIe-only GPUs (its own rule), "
                  "so calibrate does not force it", nn_proto_name(proto), v, nn_proto_name(proto));
  }
}

/* --protos given without --nccl-version: the release a probe run reports decides whether a
 * protocol that some release keeps off between PCIe-only GPUs (LL128) may be forced. Returns 0,
 * -1 with err set when it is not forced, -2 when the probe could not run. */
static int given_protos_checked(struct nn_rundir *rd, struct nn_ab_opts *o, const char *config, char *err,
                                size_t errsz) {
  char out[PATH_MAX];
  for (int i = 0; i < rd->n_arms; i++) {
    int p = nn_proto_from_name(rd->arms[i].proto);
    if (p < 0 || proto_may_force(o->nccl_code, p)) continue;
    if (!o->nccl_code && !o->probed && nn_ab_probe(rd, o, config, 0, out, sizeof out, err, errsz) < 0) return -2;
    if (!proto_may_force(o->nccl_code, p)) {
      refuse_proto(o->nccl_code, p, err, errsz);
      return -1;
    }
  }
  return 0;
}

/* The fixed candidates (less the protocols the release keeps off), or those --algos/--protos
 * give (refused when the release is known to keep one off). */
static int cal_arms(struct nn_rundir *rd, struct nn_cal_cli *c, const char *config, int nccl_code, char *err,
                    size_t errsz) {
  char dalgos[] = FIXED_ALGOS, dprotos[] = FIXED_PROTOS;
  char *algos[NN_ALGO_COUNT], *protos[NN_PROTO_COUNT];
  int na = split_names(c->algos ? c->algos : dalgos, "algorithm", nn_algo_from_name, algos,
                       NN_ALGO_COUNT, err, errsz);
  int np = na <= 0 ? -1 : split_names(c->protos ? c->protos : dprotos, "protocol", nn_proto_from_name,
                                      protos, NN_PROTO_COUNT, err, errsz);
  if (na <= 0 || np <= 0) return -1;
  for (int k = 0; k < np; k++) {
    int p = nn_proto_from_name(protos[k]);
    if (proto_may_force(nccl_code, p) || (c->protos && !nccl_code)) continue;
    if (c->protos) {
      refuse_proto(nccl_code, p, err, errsz);
      return -1;
    }
    memmove(&protos[k], &protos[k + 1], (size_t)(np - k - 1) * sizeof protos[0]);   /* the fixed set: left out */
    np--;
    k--;
  }
  for (int i = 0; i < na; i++)
    for (int k = 0; k < np; k++)
      if (add_arm(rd, algos[i], protos[k], config)) {
        nn_errbuf_set(err, errsz, "more than %d candidates, or out of memory", NN_MAX_ARMS);
        return -1;
      }
  return 0;
}

/* Whether NCCL runs algo x proto for one of the swept collectives it tunes: enabled in
 * its table, and for the release between PCIe-only GPUs (2.31.2 logs LL128 it turns off). */
static int tuning_enables(const struct nn_nccltuning *t, const struct nn_ab_opts *o, int algo,
                          int proto) {
  if (!nn_nccltuning_proto_runs_pcie(o->nccl_code, proto)) return 0;
  for (int c = 0; c < o->n_colls; c++) {
    int coll = nn_coll_from_name(o->colls[c]);
    float lat, bw;
    if (coll >= 0 && nn_nccltuning_cell(t, coll, algo, proto, &lat, &bw) == 1) return 1;
  }
  return 0;
}

/* Arms from the table: ring and tree first (today's order), then the rest in
 * NCCL's order; why gets the fixed combinations NCCL left out. */
static int tuning_arms(struct nn_rundir *rd, const struct nn_nccltuning *t,
                       const struct nn_ab_opts *o, const char *config, char *why, size_t size) {
  static const int order[] = {NN_ALGO_RING, NN_ALGO_TREE, NN_ALGO_COLLNET_DIRECT,
                              NN_ALGO_COLLNET_CHAIN, NN_ALGO_NVLS, NN_ALGO_NVLS_TREE, NN_ALGO_PAT};
  size_t used = strlen(why);
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    for (int p = 0; p < NN_PROTO_COUNT; p++) {
      if (tuning_enables(t, o, order[i], p)) {
        if (add_arm(rd, nn_algo_name(order[i]), nn_proto_name(p), config)) return -1;
      } else if (i < 2 && used < size) {   /* one of the fixed set */
        int w = snprintf(why + used, size - used, " %s.%s", nn_algo_name(order[i]),
                         nn_proto_name(p));
        if (w > 0) used += (size_t)w;
      }
    }
  return 0;
}

/* The default candidates: what NCCL enables here for the swept collectives,
 * read from the tuning table a probe run logs; the fixed set when the table
 * cannot be read. `note` gets one line for the run's meta. Returns 0, or -1
 * (fail says why when the probe could not run). */
static int cal_default_arms(struct nn_rundir *rd, struct nn_ab_opts *o, const char *config,
                            char *note, size_t note_size, char *fail, size_t failsz) {
  char out[PATH_MAX], err[256] = "", left[128] = "", list[512] = "";
  int rc = nn_ab_probe(rd, o, config, 1, out, sizeof out, fail, failsz);
  if (rc < 0) return -1;
  size_t len = 0;
  char *buf = NULL;
  nn_file_read(AT_FDCWD, out, NN_FILE_NOFOLLOW, PROBE_MAX_BYTES, &buf, &len, err, sizeof err);
  struct nn_nccltuning t;
  int found = buf ? nn_nccltuning_parse(buf, len, &t, err, sizeof err) : NN_NCCLTUNING_NONE;
  free(buf);
  if (!err[0] && found != NN_NCCLTUNING_FOUND) snprintf(err, sizeof err, "cannot read it");
  if (found == NN_NCCLTUNING_FOUND) {
    if (tuning_arms(rd, &t, o, config, left, sizeof left)) {
      nn_errbuf_set(fail, failsz, "out of memory");
      return -1;
    }
    if (!rd->n_arms) snprintf(err, sizeof err, "NCCL's tuning table enables no algorithm x "
                              "protocol for the swept collectives");
  }
  if (found == NN_NCCLTUNING_FOUND && rd->n_arms) {
    arm_list(rd, list, sizeof list);
    fprintf(o->progress, "nccl-numa calibrate: candidates: %s (what NCCL enables here for the "
            "swept collectives, from its tuning table in runs/probe.out%s%s)\n", list,
            left[0] ? "; NCCL disables" : "", left);
    snprintf(note, note_size, "candidates nccl-tuning-table runs/probe.out tables=%d: %s",
             t.n_tables, list);
    return 0;
  }
  rd->n_arms = 0;
  struct nn_cal_cli fixed = {0};
  if (cal_arms(rd, &fixed, config, o->nccl_code, fail, failsz)) return -1;
  arm_list(rd, list, sizeof list);
  fprintf(o->progress, "nccl-numa calibrate: candidates: %s (the fixed set: no usable NCCL tuning "
          "table in runs/probe.out, probe exit %d: %s)\n", list, rc, err);
  snprintf(note, note_size, "candidates fixed (probe exit %d, runs/probe.out: %s): %s", rc, err,
           list);
  return 0;
}

/* ---------- chunk sizes (--chunks) ---------- */

/* --chunks LIST into sizes a rule's chunk= takes; -1 with the problem in err. */
static int parse_chunks(const char *list, uint64_t *out, char *err, size_t errsz) {
  int n = nn_rundir_size_list(list, NN_MIN_CHUNK, NN_MAX_CHUNK, out, MAX_CHUNKS);
  if (n < 0 && !list[strspn(list, ",")])
    nn_errbuf_set(err, errsz, "--chunks '%s': no size given", list);
  else if (n < 0)
    nn_errbuf_set(err, errsz, "--chunks '%s': expected up to %d sizes of %d B to 1G (e.g. 128K,512K,1M)", list,
                  MAX_CHUNKS, NN_MIN_CHUNK);
  return n;
}

/* RUNDIR/NAME.conf: the mapping's machine lines (no rules, no CSV rules), plus `extra`. */
static char *chunk_config(const struct nn_rundir *rd, const char *base, const char *name, const char *extra,
                          char *err, size_t errsz) {
  char path[PATH_MAX], line[4096];
  snprintf(path, sizeof path, "%s/%s.conf", rd->path, name);
  char name_conf[NN_ARM_NAME_MAX + 8];
  snprintf(name_conf, sizeof name_conf, "%s.conf", name);
  FILE *in = fopen(base, "r");
  FILE *out = in ? nn_rundir_fopen(rd->dir_fd, name_conf, NN_RUNDIR_NEW) : NULL;
  if (!in || !out) {
    nn_errbuf_set(err, errsz, "%s: %s", in ? path : base, strerror(errno));
    if (in) fclose(in);
    return NULL;
  }
  fprintf(out, "# nccl-numa calibrate: %s's machine lines, for the arm %s\n", base, name);
  while (fgets(line, sizeof line, in)) {
    const char *t = line + strspn(line, " \t");
    if (strncmp(t, "rule", 4) && strncmp(t, "include-csv", 11)) fputs(line, out);
  }
  fprintf(out, "\n%s", extra);
  fclose(in);
  if (fclose(out)) {
    nn_errbuf_set(err, errsz, "%s: %s", path, strerror(errno));
    return NULL;
  }
  return strdup(path);
}

static int add_numa_arm(struct nn_rundir *rd, const char *name, char *config) {
  if (!config) return -1;
  if (rd->n_arms >= NN_MAX_ARMS) {
    free(config);
    return -1;
  }
  struct nn_arm *a = &rd->arms[rd->n_arms++];
  memset(a, 0, sizeof *a);
  snprintf(a->name, sizeof a->name, "%s", name);
  a->kind = NN_ARM_NUMA;
  a->config = config;
  return 0;
}

/* The chunk arms: "chunk.none" (the plugin loaded without rules: NCCL's own choice and chunk
 * size) and one "chunk.SIZE" per size, whose only rule is `rule chunk=SIZE`, so the plugin
 * serves that chunk size through getChunkSize and nothing else changes. */
static int add_chunk_arms(struct nn_rundir *rd, const char *base, const uint64_t *chunks, int n, char *err,
                          size_t errsz) {
  char name[NN_ARM_NAME_MAX], text[24], rule[64];
  if (add_numa_arm(rd, CHUNK_PREFIX "none", chunk_config(rd, base, CHUNK_PREFIX "none", "", err, errsz))) return -1;
  for (int i = 0; i < n; i++) {
    bytes_text(chunks[i], text, sizeof text);
    snprintf(name, sizeof name, CHUNK_PREFIX "%.24s", text);
    snprintf(rule, sizeof rule, "rule chunk=%s\n", text);
    if (add_numa_arm(rd, name, chunk_config(rd, base, name, rule, err, errsz))) return -1;
  }
  return 0;
}

/* Whether calibrate can sweep chunk sizes here: a mapping, and a release that asks tuners. */
static int chunks_usable(const struct nn_ab_opts *o, const char *config, char *err, size_t errsz) {
  if (!config) {
    nn_errbuf_set(err, errsz, "--chunks needs --config: the plugin serves chunk sizes through its rules "
                  "(NCCL has no variable for them)");
    return 0;
  }
  if (o->nccl_code && !nn_nccl_release_find(o->nccl_code, NULL)->tuner_chunk_size) {
    char v[16], since[16];
    nn_nccl_version_format(o->nccl_code, v, sizeof v);
    nn_nccl_release_since_text(offsetof(struct nn_nccl_release, tuner_chunk_size), since, sizeof since);
    nn_errbuf_set(err, errsz, "--chunks: NCCL %s asks no tuner for chunk sizes (getChunkSize, tuner v6, "
                  "NCCL %s+)", v, since);
    return 0;
  }
  return 1;
}

/* Adds a line to the run's meta (nn_rundir_read skips keys it does not know). */
static void meta_note(const struct nn_rundir *rd, const char *line) {
  FILE *f = nn_rundir_fopen(rd->dir_fd, "meta", NN_RUNDIR_APPEND);
  if (!f) return;
  fprintf(f, "%s\n", line);
  fclose(f);
}

int nn_calibrate_run(struct nn_ab_opts *o, struct nn_cal_cli *c,
                     struct nn_rundir *rd, char *config, int *gpus, char *err, size_t errsz) {
  if (!o->tests_dir && !o->bench_cmd) {
    nn_errbuf_set(err, errsz, "give --nccl-tests DIR (or set NCCL_TESTS_DIR), --bench-cmd 'PATH ARGS', "
                  "or --from RUNDIR");
    return NN_CALIBRATE_USAGE;
  }
  if (config[0] && nn_locate_plugin(c->plugin, c->plugin_path, sizeof c->plugin_path, err, errsz))
    return NN_CALIBRATE_FAILED;
  o->plugin = config[0] ? c->plugin_path : NULL;
  const char *cfg = config[0] ? config : NULL;
  uint64_t chunks[MAX_CHUNKS];
  int n_chunks = 0;
  if (c->chunks && (!chunks_usable(o, cfg, err, errsz) || (n_chunks = parse_chunks(c->chunks, chunks, err, errsz)) < 0))
    return NN_CALIBRATE_USAGE;
  int from_nccl = !c->algos && !c->protos;
  char note[1024] = "candidates given";
  if (!from_nccl) {
    if (cal_arms(rd, c, cfg, o->nccl_code, err, errsz)) return NN_CALIBRATE_USAGE;
    strcat(note, ": ");
    arm_list(rd, note, sizeof note);
  }
  if (nn_launcher_finish(&o->launch, &o->gpus, *gpus, err, errsz)) return NN_CALIBRATE_USAGE;
  o->gpus = o->gpus ? o->gpus : (*gpus ? *gpus : 1);
  *gpus = o->gpus;
  rd->gpus = o->gpus;
  rd->iters = o->iters;
  rd->warmup = o->warmup;
  rd->repeats = o->repeats;
  snprintf(rd->sizes, sizeof rd->sizes, "-b %s -e %s -f %s", o->minb, o->maxb, o->factor);
  int numbered = !c->out;
  if (!c->out) {
    time_t now = time(NULL);
    struct tm tm;
    strftime(c->default_out, sizeof c->default_out, "nccl-numa-calibrate-%Y%m%d-%H%M%S",
             localtime_r(&now, &tm));
    c->out = c->default_out;
  }
  if (nn_abdir_create(rd, c->out, numbered, "calibrate", c->command, err, errsz))
    return NN_CALIBRATE_FAILED;
  int checked = from_nccl ? 0 : given_protos_checked(rd, o, cfg, err, errsz);
  if (checked) return checked == -1 ? NN_CALIBRATE_USAGE : NN_CALIBRATE_FAILED;
  if ((from_nccl && cal_default_arms(rd, o, cfg, note, sizeof note, err, errsz)) ||
      (n_chunks && add_chunk_arms(rd, cfg, chunks, n_chunks, err, errsz)) || nn_ab_execute(rd, o, err, errsz) < 0) {
    size_t n = err ? strlen(err) : 0;
    if (nn_abdir_discard_empty(rd) && n < errsz)
      snprintf(err + n, errsz - n, "; nothing ran, %s removed", rd->path);
    return NN_CALIBRATE_FAILED;
  }
  meta_note(rd, note);
  /* read back what was recorded: the same path as --from */
  char *path = strdup(rd->path);
  nn_rundir_free(rd);
  int rc = path ? nn_rundir_read(path, rd, err, errsz) : -1;
  if (!path) nn_errbuf_set(err, errsz, "out of memory");
  free(path);
  return rc ? NN_CALIBRATE_FAILED : 0;
}

const char *nn_calibrate_scope(const char *config, int ranks, int nodes, int *gpus) {
  if (!config || !config[0]) return NULL;
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  const char *scope = NULL;
  if (!nn_config_load(config, NULL, &cfg, &d)) {
    if (gpus && !*gpus) *gpus = cfg->n_gpus;
    if (ranks > 0) {
      int sc = nn_topology_scope(cfg, (size_t)ranks, (size_t)nodes);
      if (sc == NN_SCOPE_INTRA || sc == NN_SCOPE_CROSS) scope = nn_scope_name(sc);
    }
  }
  nn_diag_clear(&d);
  nn_config_free(cfg);
  return scope;
}
