/* SPDX-License-Identifier: BSD-3-Clause */
/* release_diff.c - NCCL's own choice under two releases, size by size (release_diff.h). */
#include "cli/predict/release_diff.h"

#include <string.h>

#include "cli/predict/costview.h"
#include "errbuf.h"
#include "nccl_model.h"
#include "policy.h"
#include "sizetext.h"

/* explain's collective order */
static const int coll_order[NN_COLL_COUNT] = {
  NN_COLL_ALLREDUCE, NN_COLL_ALLGATHER, NN_COLL_REDUCESCATTER, NN_COLL_BROADCAST, NN_COLL_REDUCE};

static void graphs_of(const struct nn_release_diff_side *s, struct nn_release_diff_graphs *g) {
  const struct nn_search_pred *pr = s->v.serve ? &s->v.served : &s->v.own;
  g->ring_channels = s->m.nranks >= 2 ? pr->model_nchannels : 0;
  g->tree_channels = pr->model_nchannels;
  g->ring_gbps = pr->ring.bw_intra;
  g->tree_gbps = pr->tree.bw_intra;
  g->comm_channels = s->m.comm_nchannels;
}

static int side_model(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                      const struct nn_ncclver *ver, int ranks, int nodes,
                      struct nn_release_diff_side *s, char *err, size_t errsz) {
  char desc[512];
  nn_ncclver_verdict(cfg, cpu, ver, NULL, NULL, 0, &s->v);
  nn_topology_describe_release(&s->v, s->name, sizeof s->name);
  if (nn_costview_model(&s->v, cpu, cfg, ranks, nodes, &s->m, desc, sizeof desc)) {
    nn_errbuf_set(err, errsz, "%s: %s", s->name, desc);
    return -1;
  }
  graphs_of(s, &s->g);
  return 0;
}

static int graphs_equal(const struct nn_release_diff_graphs *a,
                        const struct nn_release_diff_graphs *b) {
  return a->ring_channels == b->ring_channels && a->tree_channels == b->tree_channels &&
         a->ring_gbps == b->ring_gbps && a->tree_gbps == b->tree_gbps &&
         a->comm_channels == b->comm_channels;
}

/* NCCL's choice at every size 2^0 .. 2^max_log2, from explain's bands; the time at each size. */
static void choices_at(const struct nn_cost_model *m, const struct nn_forced *forced, int coll,
                       int max_log2, struct nn_cost_choice *at) {
  struct nn_costview_band b[NN_RELEASE_DIFF_MAX_LOG2 + 1];
  for (int e = 0; e <= max_log2; e++)
    at[e] = (struct nn_cost_choice){.algo = -1, .proto = -1, .time_us = -1.0f};
  int n = nn_costview_bands_under(m, NULL, forced, coll, max_log2, b, NN_RELEASE_DIFF_MAX_LOG2 + 1);
  for (int i = 0; i < n; i++)
    for (int e = b[i].lo_log2; e <= b[i].hi_log2; e++) {
      at[e] = b[i].nccl_lo;
      at[e].time_us =
        at[e].algo < 0 ? -1.0f : nn_cost_time(m, coll, at[e].algo, at[e].proto, (uint64_t)1 << e);
    }
}

static int same_pair(const struct nn_cost_choice *a, const struct nn_cost_choice *b) {
  return a->algo == b->algo && a->proto == b->proto;
}

static void diff_coll(struct nn_release_diff *d, const struct nn_forced *forced, int coll,
                      int max_log2) {
  struct nn_cost_choice a[NN_RELEASE_DIFF_MAX_LOG2 + 1], x[NN_RELEASE_DIFF_MAX_LOG2 + 1];
  choices_at(&d->a.m, forced, coll, max_log2, a);
  choices_at(&d->x.m, forced, coll, max_log2, x);
  struct nn_release_diff_band *open = NULL;
  for (int e = 0; e <= max_log2; e++) {
    int choice = !same_pair(&a[e], &x[e]);
    if (!choice && !d->graphs_differ) {
      open = NULL;
      continue;
    }
    if (open && same_pair(&open->a_lo, &a[e]) && same_pair(&open->x_lo, &x[e])) {
      open->hi_log2 = e;
      open->a_hi = a[e];
      open->x_hi = x[e];
      continue;
    }
    open = &d->bands[d->n_bands++];
    *open = (struct nn_release_diff_band){.coll = coll,
                                          .lo_log2 = e,
                                          .hi_log2 = e,
                                          .a_lo = a[e],
                                          .a_hi = a[e],
                                          .x_lo = x[e],
                                          .x_hi = x[e],
                                          .choice_differs = choice};
  }
}

int nn_release_diff_compute(const struct nn_config *cfg, const struct nn_ncclver *a, int x_code,
                            int ranks, int nodes, const struct nn_forced *forced, int max_log2,
                            struct nn_release_diff *out, char *err, size_t errsz) {
  struct nn_cpu_kind cpu;
  if (nn_topology_cpu_kind(cfg, NULL, &cpu, err, errsz) != 0) return -1;
  struct nn_ncclver x = {.code = x_code};
  snprintf(x.source, sizeof x.source, "--compare-release");
  memset(out, 0, sizeof *out);
  out->ranks = ranks;
  out->nodes = nodes;
  if (side_model(cfg, &cpu, a, ranks, nodes, &out->a, err, errsz) ||
      side_model(cfg, &cpu, &x, ranks, nodes, &out->x, err, errsz))
    return -1;
  out->graphs_differ = !graphs_equal(&out->a.g, &out->x.g);
  if (max_log2 > NN_RELEASE_DIFF_MAX_LOG2) max_log2 = NN_RELEASE_DIFF_MAX_LOG2;
  for (int i = 0; i < NN_COLL_COUNT; i++) diff_coll(out, forced, coll_order[i], max_log2);
  return 0;
}

/* ---- printing ---- */

static void describe_graphs(const struct nn_release_diff_side *s, char *buf, size_t size) {
  snprintf(buf, size, "%s on %s: ring %d x %.1f GB/s, tree %d x %.1f GB/s, %d channels; LL128 %s",
           s->name, s->v.serve ? "the served file" : "its own view", s->g.ring_channels,
           s->g.ring_gbps, s->g.tree_channels, s->g.tree_gbps, s->g.comm_channels,
           s->m.ll128_enabled ? "on" : "off");
}

static void print_head(FILE *out, const struct nn_release_diff *d) {
  char ga[300], gx[300];
  describe_graphs(&d->a, ga, sizeof ga);
  describe_graphs(&d->x, gx, sizeof gx);
  fprintf(out,
          "\ncompare:      NCCL's own choice for %d ranks on %d node(s), %s against %s "
          "(--compare-release)\n",
          d->ranks, d->nodes, d->a.name, d->x.name);
  fprintf(out, "              %s\n              %s\n", ga, gx);
  if (d->graphs_differ)
    fprintf(out, "              the graphs differ: every size's modelled time moves; * = the "
                 "algorithm or protocol "
                 "changes too\n");
  else
    fprintf(out, "              the same graphs: listed are the sizes where the algorithm or "
                 "protocol changes (*)\n");
}

static void band_range(const struct nn_release_diff_band *b, char *buf, size_t size) {
  char l[24], h[24];
  nn_sizetext((uint64_t)1 << b->lo_log2, l, sizeof l);
  nn_sizetext((uint64_t)1 << b->hi_log2, h, sizeof h);
  snprintf(buf, size, b->lo_log2 == b->hi_log2 ? "%s" : "%s - %s", l, h);
}

static void print_band(FILE *out, const struct nn_release_diff_band *b) {
  char range[56], pa[24], px[24], ta[40], tx[40];
  band_range(b, range, sizeof range);
  int one = b->lo_log2 == b->hi_log2;
  nn_costview_pair_name(b->a_lo.algo, b->a_lo.proto, pa, sizeof pa);
  nn_costview_pair_name(b->x_lo.algo, b->x_lo.proto, px, sizeof px);
  nn_costview_time_range(b->a_lo.time_us, b->a_hi.time_us, one, ta, sizeof ta);
  nn_costview_time_range(b->x_lo.time_us, b->x_hi.time_us, one, tx, sizeof tx);
  fprintf(out, "  %-19s %-13s %19s %c %-13s %19s\n", range, pa, ta, b->choice_differs ? '*' : ' ',
          px, tx);
}

static void print_coll(FILE *out, const struct nn_release_diff *d, int coll) {
  int any = 0;
  for (int i = 0; i < d->n_bands; i++) any |= d->bands[i].coll == coll;
  if (!any) {
    fprintf(out, "\n%s: the same choice at every size\n", nn_coll_name(coll));
    return;
  }
  char va[16], vx[16];
  nn_nccl_version_format(d->a.v.version, va, sizeof va);
  nn_nccl_version_format(d->x.v.version, vx, sizeof vx);
  fprintf(out, "\n%s\n  %-19s NCCL %-8s %19s   NCCL %-8s %19s\n", nn_coll_name(coll), "size", va,
          "modelled us", vx, "modelled us");
  for (int i = 0; i < d->n_bands; i++)
    if (d->bands[i].coll == coll) print_band(out, &d->bands[i]);
}

void nn_release_diff_print(FILE *out, const struct nn_release_diff *d, int coll) {
  print_head(out, d);
  for (int i = 0; i < NN_COLL_COUNT; i++)
    if (coll < 0 || coll == coll_order[i]) print_coll(out, d, coll_order[i]);
}

/* ---- rules ---- */

/* Why release a cannot run x's choice at every size of [lo, hi]; "" when it can. */
static void inexpressible(const struct nn_release_diff *d, int coll, int lo, int hi,
                          const struct nn_cost_choice *x, char *why, size_t size) {
  why[0] = 0;
  for (int e = lo; e <= hi; e++) {
    float t[NN_ALGO_COUNT * NN_PROTO_COUNT];
    nn_cost_table(&d->a.m, coll, (uint64_t)1 << e, t);
    if (t[x->algo * NN_PROTO_COUNT + x->proto] >= 0) continue;
    char pair[24];
    nn_costview_pair_name(x->algo, x->proto, pair, sizeof pair);
    snprintf(why, size,
             "%s has no %s candidate here%s, and a tuner only chooses among NCCL's candidates",
             d->a.name, pair,
             x->proto == NN_PROTO_LL128 && !d->a.m.ll128_enabled
               ? " (it leaves LL128 off between these GPUs)"
               : "");
    return;
  }
}

/* Why a rule cannot set x's channel count on release a; "" when channels=N does. */
static void channels_inexpressible(const struct nn_release_diff *d, char *why, size_t size) {
  int ca = d->a.g.comm_channels, cx = d->x.g.comm_channels;
  why[0] = 0;
  if (cx > ca)
    snprintf(why, size,
             "%s runs at most its communicator's %d channels, and a tuner cannot raise that",
             d->a.name, ca);
  else if (!d->a.v.rel->tuner_channels_lower_only)
    snprintf(
      why, size,
      "on %s a rule's channels replace NCCL's own count for each call, which NCCL sets per size "
      "(below %d for small calls), so channels=%d would raise those",
      d->a.name, ca, cx);
}

static void rule_text(const struct nn_release_diff *d, int coll, int lo, int hi,
                      const struct nn_cost_choice *x, int channels, char *buf, size_t size) {
  char l[32], h[32], ch[32] = "";
  nn_policy_format_bytes(lo ? (uint64_t)1 << lo : 0, l, sizeof l);
  nn_policy_format_bytes((uint64_t)1 << hi, h, sizeof h);
  if (channels) snprintf(ch, sizeof ch, " channels=%d", channels);
  snprintf(buf, size, "rule coll=%s bytes=%s-%s ranks=%d nodes=%d algo=%s proto=%s%s",
           nn_coll_name(coll), l, h, d->ranks, d->nodes, nn_algo_name(x->algo),
           nn_proto_name(x->proto), ch);
}

/* Whether band b+1 continues band b's rule: adjacent, same collective and compared choice. */
static int continues(const struct nn_release_diff_band *b) {
  const struct nn_release_diff_band *n = b + 1;
  return n->coll == b->coll && n->lo_log2 == b->hi_log2 + 1 && n->choice_differs &&
         same_pair(&n->x_lo, &b->x_lo);
}

static int emit_choice(FILE *out, const struct nn_release_diff *d, int i, int last, int channels) {
  const struct nn_release_diff_band *b = &d->bands[i];
  char why[400], rule[256];
  inexpressible(d, b->coll, b->lo_log2, d->bands[last].hi_log2, &b->x_lo, why, sizeof why);
  rule_text(d, b->coll, b->lo_log2, d->bands[last].hi_log2, &b->x_lo, channels, rule, sizeof rule);
  if (why[0]) fprintf(out, "# not possible: %s:\n# %s\n", why, rule);
  else fprintf(out, "%s\n", rule);
  return !why[0];
}

static void emit_head(FILE *out, const struct nn_release_diff *d) {
  fprintf(
    out,
    "# nccl-numa explain --compare-release: rules that keep %s's own choice\n"
    "# on %s for %d ranks on %d node(s) where the two differ (NCCL's cost model at\n"
    "# every power of two from 1 B to 4 GiB; sizes between two that differ keep NCCL's\n"
    "# choice). Put them before other rules for these sizes: the first that matches decides.\n",
    d->x.name, d->a.name, d->ranks, d->nodes);
  if (!d->graphs_differ) return;
  char ga[300], gx[300];
  describe_graphs(&d->a, ga, sizeof ga);
  describe_graphs(&d->x, gx, sizeof gx);
  fprintf(out,
          "# not possible: the graphs differ, and NCCL's search makes them; no rule chooses them:\n"
          "#   %s\n#   %s\n",
          ga, gx);
}

int nn_release_diff_rules(FILE *out, const struct nn_release_diff *d, int coll) {
  emit_head(out, d);
  char why[400] = "";
  int channels = 0, written = 0;
  if (d->a.g.comm_channels != d->x.g.comm_channels) {
    channels_inexpressible(d, why, sizeof why);
    if (!why[0]) channels = d->x.g.comm_channels;
  }
  for (int i = 0; i < d->n_bands; i++) {
    if (!d->bands[i].choice_differs || (coll >= 0 && d->bands[i].coll != coll)) continue;
    int last = i;
    while (last + 1 < d->n_bands && continues(&d->bands[last])) last++;
    written += emit_choice(out, d, i, last, channels);
    i = last;
  }
  if (d->a.g.comm_channels == d->x.g.comm_channels) return written;
  char rule[160];
  snprintf(rule, sizeof rule, "rule coll=any bytes=0- ranks=%d nodes=%d channels=%d", d->ranks,
           d->nodes, d->x.g.comm_channels);
  if (why[0]) fprintf(out, "# not possible: %s:\n# %s\n", why, rule);
  else fprintf(out, "%s\n", rule);
  return written + !why[0];
}
