/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_layouts.c - bench_tuner's random layouts of 1,000 rules (-s SEED, default 25), each
 * verified against the linear scan like the rule counts, then timed beside the 1-rule
 * communicator and the floor (-Q: verified only; -I: instructions counted). */
#include <stdlib.h>

#include "bench_tuner.h"

/* Layouts unlike make_rules' contiguous ranges, drawn from a seed (-s): ranges with gaps
 * between them and overlaps in file order, narrow or wide, clustered or spread, and the
 * layout of an independent benchmark. Each is verified and timed over three
 * kinds of query. */
#define LAYOUT_RULES 1000
static const char *const query_name[N_QUERIES] = {"powers of two", "log-uniform", "at range edges"};

struct layout {
  const char *name;
  int narrow;    /* widths 1-64 B; else log-uniform up to the start's own octave */
  int clustered; /* starts in two adjacent octaves (drawn); else log-uniform over 0-8 GiB */
  int grid;      /* allreduce only: 999 ranges 64 B wide every 4 KiB from 64 KiB, then 0-64 KiB */
};

static const struct layout layouts[N_LAYOUTS] = {
  {"999 narrow above 64 KiB", 1, 1, 1}, {"narrow, clustered", 1, 1, 0}, {"narrow, spread", 1, 0, 0},
  {"wide, clustered", 0, 1, 0},         {"wide, spread", 0, 0, 0},
};

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A size of octave e: 2^e plus a uniform offset below 2^e (0 or 1 for e = 0). */
static uint64_t in_octave(uint64_t *s, unsigned e) {
  uint64_t base = e ? (uint64_t)1 << e : 0;
  return base + xorshift(s) % (e ? base : 2);
}

static uint64_t layout_seed(uint64_t seed, int li, int q) {
  return (seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(li * (N_QUERIES + 1) + q + 1))) | 1;
}

/* LAYOUT_RULES rules of layout l; the collectives take turns (allreduce only for the grid). */
static void make_layout(const struct layout *l, uint64_t seed, struct bench_rule *r) {
  uint64_t s = seed;
  unsigned center = 4 + (unsigned)(xorshift(&s) % 26);
  for (int i = 0; i < LAYOUT_RULES; i++) {
    struct bench_rule *x = &r[i];
    x->coll = l->grid ? 4 : rule_colls[i % 4];
    if (l->grid && i < LAYOUT_RULES - 1) {
      x->lo = 65536 + 4096 * (uint64_t)i;
      x->hi = x->lo + 63;
    } else if (l->grid) {
      x->lo = 0;
      x->hi = 65535;
    } else {
      unsigned e =
        l->clustered ? center + (unsigned)(xorshift(&s) % 2) : (unsigned)(xorshift(&s) % 34);
      x->lo = in_octave(&s, e);
      uint64_t width =
        l->narrow ? 1 + xorshift(&s) % 64 : in_octave(&s, (unsigned)(xorshift(&s) % (e + 1)));
      x->hi = x->lo + (width ? width - 1 : 0);
    }
    set_conditions(x, i);
  }
}

/* Calls over the layout's collectives: sizes 2^0-2^32, log-uniform over 1 B-8 GiB, or at
 * and next to a drawn rule's bounds (lo - 1, lo, hi, hi + 1). */
static void make_layout_calls(struct call *calls, const struct layout *l,
                              const struct bench_rule *r, int q, uint64_t seed) {
  uint64_t s = seed;
  for (unsigned i = 0; i <= CALLS_MASK; i++) {
    const struct bench_rule *x = &r[xorshift(&s) % LAYOUT_RULES];
    unsigned e = (unsigned)(xorshift(&s) % 33), k = (unsigned)(xorshift(&s) % 4);
    calls[i].coll = l->grid ? 4 : rule_colls[xorshift(&s) % 4];
    if (q == Q_POW2) {
      calls[i].bytes = (size_t)1 << e;
    } else if (q == Q_BETWEEN) {
      calls[i].bytes = in_octave(&s, (unsigned)(xorshift(&s) % 34));
    } else {
      calls[i].coll = x->coll;
      calls[i].bytes = k == 0 ? x->lo - (x->lo > 0) : k == 1 ? x->lo : k == 2 ? x->hi : x->hi + 1;
    }
  }
}

/* The layout's communicator, the 1-rule one over its own calls and the floor over the
 * layout's calls, in alternate runs. */
static void measure_layout(struct bench *b, struct layout_row *row, void *ctx) {
  struct kept *k = &b->one_rule[1];
  const nn_ncclTuner_v5_t *volatile tuners[2] = {b->ours, &floor_tuner};
  double v[3][MAX_RUNS] = {{0}}, per_floor[MAX_RUNS] = {0}, per_one[MAX_RUNS] = {0};
  time_calls(&tuners[0], ctx, b->calls, b->o.calls / 4, b->tmpl);
  for (int run = 0; run < b->o.runs; run++) {
    v[0][run] = time_calls(&tuners[0], ctx, b->calls, b->o.calls, b->tmpl);
    v[1][run] = time_calls(&tuners[0], k->ctx, k->calls, b->o.calls, k->tmpl);
    v[2][run] = time_calls(&tuners[1], NULL, b->calls, b->o.calls, b->tmpl);
    per_floor[run] = v[0][run] / v[2][run];
    per_one[run] = v[0][run] / v[1][run];
  }
  for (int i = 0; i < 3; i++) row->st[i] = summarize(v[i], b->o.runs);
  row->per_floor = summarize(per_floor, b->o.runs);
  row->per_one = summarize(per_one, b->o.runs);
}

/* -I for a layout: one dump, "layout=L query=Q tuner=nccl-numa calls=C | name, queries". */
static void count_layout_instructions(struct bench *b, int li, int q, void *ctx) {
  const nn_ncclTuner_v5_t *volatile tuner = b->ours;
  char desc[160];
  snprintf(desc, sizeof desc, "layout=%d query=%d tuner=nccl-numa calls=%ld | %s, %s", li, q,
           b->o.calls, layouts[li].name, query_name[q]);
  CALLGRIND_ZERO_STATS;
  time_calls(&tuner, ctx, b->calls, b->o.calls, b->tmpl);
  CALLGRIND_DUMP_STATS_AT(desc);
}

/* Layout li: its rules written and adopted; per query kind every call verified against
 * the reference scan, then timed (-Q: verified only) or counted (-I). */
int bench_layout(struct bench *b, int li) {
  const struct layout *l = &layouts[li];
  struct bench_rule *rules = calloc(LAYOUT_RULES, sizeof *rules);
  if (!rules) return fail("out of memory");
  make_layout(l, layout_seed(b->o.seed, li, N_QUERIES), rules);
  ref_rules_use(rules, LAYOUT_RULES);
  void *ours_ctx = NULL, *ref_ctx = NULL;
  int rc = write_config(b->path, rules, LAYOUT_RULES, ++b->serial) == 0
             ? 0
             : fail("cannot write %s", b->path);
  if (rc == 0) rc = init_pair(b, &ours_ctx, &ref_ctx, LAYOUT_RULES);
  for (int q = 0; rc == 0 && q < N_QUERIES; q++) {
    struct layout_row *row = &b->lay[li][q];
    char what[96];
    snprintf(what, sizeof what, "layout '%s', queries %s", l->name, query_name[q]);
    make_layout_calls(b->calls, l, rules, q, layout_seed(b->o.seed, li, q));
    for (unsigned i = 0; i <= CALLS_MASK; i++) fill_table(b->tmpl[i], b->calls[i].bytes);
    row->decided = verify_calls(b, ours_ctx, ref_ctx, what);
    if (row->decided < 0) rc = -1;
    else if (b->o.instr) count_layout_instructions(b, li, q, ours_ctx);
    else if (!b->o.check) measure_layout(b, row, ours_ctx);
  }
  if (ours_ctx) b->ours->finalize(ours_ctx);
  if (ref_ctx) ref_tuner.finalize(ref_ctx);
  free(rules);
  return rc;
}

void print_layout_table(const struct bench *b) {
  printf("\n## random layouts, %d rules: getCollInfo, ns per call (seed %llu; median of %d runs x "
         "%ld calls)\n\n",
         LAYOUT_RULES, (unsigned long long)b->o.seed, b->o.runs, b->o.calls);
  printf(
    "Each row's three columns are timed in alternate runs: the layout's communicator over its\n"
    "calls, the 1-rule communicator over its own (matching, log-uniform), the floor over the\n"
    "layout's calls. Ratios: the median of the runs' own ratios (each run's three timings lie\n"
    "milliseconds apart, so a busy machine slows them alike), then that of the fastest runs.\n\n");
  printf(
    "| layout | queries | decided by a rule | nccl-numa | 1 rule | floor | / floor | / 1 rule |\n");
  printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (int li = 0; li < N_LAYOUTS; li++)
    for (int q = 0; q < N_QUERIES; q++) {
      const struct layout_row *r = &b->lay[li][q];
      printf("| %s | %s | %.1f%% |", layouts[li].name, query_name[q],
             100.0 * r->decided / (CALLS_MASK + 1));
      for (int k = 0; k < 3; k++)
        printf(" %.2f ±%.0f%% |", r->st[k].median, spread_pct(&r->st[k]) / 2);
      printf(" %.2f (%.2f) | %.2f (%.2f) |\n", r->per_floor.median, r->st[0].lo / r->st[2].lo,
             r->per_one.median, r->st[0].lo / r->st[1].lo);
    }
}

/* The worst layout row against the two targets, on the medians of the runs' own ratios;
 * returns the number missed. */
int print_layout_verdict(const struct bench *b) {
  int wf = 0, wo = 0;
  double worst_floor = 0, worst_one = 0;
  for (int i = 0; i < N_LAYOUTS * N_QUERIES; i++) {
    const struct layout_row *r = &b->lay[i / N_QUERIES][i % N_QUERIES];
    double f = r->per_floor.median, o = r->per_one.median;
    if (f > worst_floor) {
      worst_floor = f;
      wf = i;
    }
    if (o > worst_one) {
      worst_one = o;
      wo = i;
    }
  }
  printf("- target worst random layout <= 3x the floor: %.2fx (%s, %s), median of the runs' ratios "
         "(%s)\n",
         worst_floor, layouts[wf / N_QUERIES].name, query_name[wf % N_QUERIES],
         worst_floor <= 3.0 ? "met" : "MISSED");
  printf("- target worst random layout <= 1.2x the 1-rule time: %.2fx (%s, %s), median of the "
         "runs' ratios (%s)\n",
         worst_one, layouts[wo / N_QUERIES].name, query_name[wo % N_QUERIES],
         worst_one <= 1.2 ? "met" : "MISSED");
  return (worst_floor > 3.0) + (worst_one > 1.2);
}
