/* policy.c - compile rules into per-collective byte segments; decide per call. */
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

/* Buckets split the byte axis by the highest set bit and the 3 bits below it (values
 * below 8 get one bucket each): a bucket spans 1/8 of an octave, so a call rarely has
 * more than one segment to search, whatever the number of rules. */
#define NN_SUB_BITS 3
#define NN_SMALL (1u << NN_SUB_BITS)
#define NN_BUCKETS (NN_SMALL + (64 - NN_SUB_BITS) * NN_SMALL + 1)  /* + a sentinel */
#define NN_RAISED 1e-6f /* above the chosen 0.0 so NCCL's lowest-index tie-break cannot win */

struct nn_crule {
  uint64_t lo, hi;
  int32_t rule;         /* index in the config */
  int16_t pipeops;      /* NN_ANY or value */
  int8_t coll, algo, proto, regbuff;
  uint8_t channels;
};

/* A segment's first rule, copied inline so the common call touches no rule record. */
struct nn_seg {
  int32_t first;        /* index into p->rules of the first kept rule covering it, or -1 */
  int32_t rule;         /* that rule's index in the config */
  int8_t algo, proto;
  uint8_t channels;
  uint8_t plain;        /* no numPipeOps/regBuff condition */
};

struct nn_segs {
  uint32_t n;
  uint64_t *start;      /* segment i covers [start[i], start[i+1]) */
  struct nn_seg *seg;
  uint32_t bucket[NN_BUCKETS];
};

struct nn_policy {
  int scope;
  int n_rules;
  unsigned coll_mask;   /* bit c: some segment of collective c has a rule */
  struct nn_crule *rules;
  struct nn_segs coll[NN_COLL_COUNT];
};

static int in_range(uint64_t v, uint64_t lo, uint64_t hi) { return v >= lo && v <= hi; }

static int rule_fits_shape(const struct nn_rule *r, size_t ranks, size_t nodes, int scope) {
  if (!in_range(ranks, r->ranks_lo, r->ranks_hi) || !in_range(nodes, r->nodes_lo, r->nodes_hi))
    return 0;
  return r->scope == NN_SCOPE_ANY || r->scope == scope;
}

static int rule_has_coll(const struct nn_crule *r, int coll) {
  return r->coll == NN_ANY || r->coll == coll;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Index of the segment holding `v`: the last start <= v in [lo, hi] (start[lo] <= v).
 * Branch-free, so random sizes cost no mispredictions: the compiler emits cmov. */
static inline uint32_t seg_find(const uint64_t *start, uint32_t lo, uint32_t hi, uint64_t v) {
  const uint64_t *base = start + lo;
  uint32_t n = hi - lo + 1;
  while (n > 1) {
    uint32_t half = n / 2;
    base = base[half] <= v ? base + half : base;
    n -= half;
  }
  return (uint32_t)(base - start);
}

static uint32_t dsu_find(uint32_t *parent, uint32_t i) {
  while (parent[i] != i) { parent[i] = parent[parent[i]]; i = parent[i]; }
  return i;
}

/* Byte boundaries of the kept rules for one collective, sorted and unique. */
static uint32_t collect_bounds(const struct nn_policy *p, int coll, uint64_t *b) {
  uint32_t n = 0;
  b[n++] = 0;
  for (int i = 0; i < p->n_rules; i++) {
    const struct nn_crule *r = &p->rules[i];
    if (!rule_has_coll(r, coll)) continue;
    b[n++] = r->lo;
    if (r->hi != UINT64_MAX) b[n++] = r->hi + 1;
  }
  qsort(b, n, sizeof *b, cmp_u64);
  uint32_t u = 1;
  for (uint32_t i = 1; i < n; i++)
    if (b[i] != b[u - 1]) b[u++] = b[i];
  return u;
}

/* First rule per segment in file order; a union-find over unassigned segments keeps
 * this O((rules + segments) log) instead of rules x segments. */
static void assign_first_rules(const struct nn_policy *p, int coll, struct nn_segs *s,
                               uint32_t *parent) {
  for (uint32_t i = 0; i <= s->n; i++) parent[i] = i;
  for (uint32_t i = 0; i < s->n; i++) s->seg[i] = (struct nn_seg){.first = -1, .rule = -1};
  for (int ri = 0; ri < p->n_rules; ri++) {
    const struct nn_crule *r = &p->rules[ri];
    if (!rule_has_coll(r, coll)) continue;
    uint32_t j = dsu_find(parent, seg_find(s->start, 0, s->n - 1, r->lo));
    while (j < s->n && s->start[j] <= r->hi) {
      s->seg[j] = (struct nn_seg){.first = ri, .rule = r->rule, .algo = r->algo, .proto = r->proto,
                                  .channels = r->channels, .plain = r->pipeops < 0 && r->regbuff < 0};
      parent[j] = j + 1;
      j = dsu_find(parent, j + 1);
    }
  }
}

static inline uint32_t bucket_of(uint64_t v) {
  if (v < NN_SMALL) return (uint32_t)v;
  int bits = 64 - __builtin_clzll(v);
  uint32_t sub = (uint32_t)(v >> (bits - 1 - NN_SUB_BITS)) & (NN_SMALL - 1);
  return NN_SMALL + (uint32_t)(bits - 1 - NN_SUB_BITS) * NN_SMALL + sub;
}

/* The smallest value in bucket i (the inverse of bucket_of). */
static uint64_t bucket_low(uint32_t i) {
  if (i < NN_SMALL) return i;
  uint32_t bits = (i - NN_SMALL) / NN_SMALL + 1 + NN_SUB_BITS, sub = (i - NN_SMALL) % NN_SMALL;
  return (uint64_t)1 << (bits - 1) | (uint64_t)sub << (bits - 1 - NN_SUB_BITS);
}

static void fill_buckets(struct nn_segs *s) {
  for (uint32_t b = 0; b < NN_BUCKETS - 1; b++) s->bucket[b] = seg_find(s->start, 0, s->n - 1, bucket_low(b));
  s->bucket[NN_BUCKETS - 1] = s->n - 1;
}

static int compile_coll(struct nn_policy *p, int coll, uint64_t *scratch, uint32_t *parent) {
  struct nn_segs *s = &p->coll[coll];
  uint32_t n = collect_bounds(p, coll, scratch);
  s->start = malloc(n * sizeof *s->start);
  s->seg = malloc(n * sizeof *s->seg);
  if (!s->start || !s->seg) return -1;
  memcpy(s->start, scratch, n * sizeof *s->start);
  s->n = n;
  assign_first_rules(p, coll, s, parent);
  fill_buckets(s);
  for (uint32_t i = 0; i < n; i++)
    if (s->seg[i].first >= 0) p->coll_mask |= 1u << coll;
  return 0;
}

static void keep_rules(struct nn_policy *p, const struct nn_config *cfg, size_t ranks, size_t nodes) {
  for (int i = 0; i < cfg->n_rules; i++) {
    const struct nn_rule *r = &cfg->rules[i];
    if (!rule_fits_shape(r, ranks, nodes, p->scope)) continue;
    struct nn_crule *c = &p->rules[p->n_rules++];
    *c = (struct nn_crule){.lo = r->bytes_lo, .hi = r->bytes_hi, .rule = i,
                           .pipeops = (int16_t)(r->pipeops < 0 ? NN_ANY : r->pipeops > 32767 ? 32767 : r->pipeops),
                           .coll = (int8_t)r->coll, .algo = (int8_t)r->algo, .proto = (int8_t)r->proto,
                           .regbuff = (int8_t)r->regbuff, .channels = (uint8_t)r->channels};
  }
}

struct nn_policy *nn_policy_compile(const struct nn_config *cfg, size_t n_ranks, size_t n_nodes) {
  struct nn_policy *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->scope = nn_topology_scope(cfg, n_ranks, n_nodes);
  int total = cfg ? cfg->n_rules : 0;
  p->rules = malloc((size_t)(total ? total : 1) * sizeof *p->rules);
  uint64_t *scratch = malloc((2 * (size_t)total + 1) * sizeof *scratch);
  uint32_t *parent = malloc((2 * (size_t)total + 2) * sizeof *parent);
  int ok = p->rules && scratch && parent;
  if (ok && cfg) keep_rules(p, cfg, n_ranks, n_nodes);
  for (int c = 0; ok && c < NN_COLL_COUNT; c++)
    ok = compile_coll(p, c, scratch, parent) == 0;
  free(scratch);
  free(parent);
  if (!ok) { nn_policy_free(p); return NULL; }
  return p;
}

void nn_policy_free(struct nn_policy *p) {
  if (!p) return;
  for (int c = 0; c < NN_COLL_COUNT; c++) { free(p->coll[c].start); free(p->coll[c].seg); }
  free(p->rules);
  free(p);
}

int nn_policy_scope(const struct nn_policy *p) { return p ? p->scope : NN_SCOPE_UNKNOWN; }
int nn_policy_rule_count(const struct nn_policy *p) { return p ? p->n_rules : 0; }

unsigned nn_policy_coll_mask(const struct nn_policy *p) { return p ? p->coll_mask : 0; }

/* ---- the hot path ---- */

static inline int enabled(float cost) { return cost >= 0.0f; }  /* false for NaN */

/* Cheapest enabled entry along one row (algo fixed) or column (proto fixed). */
static int cheapest(const float *t, int count, int stride) {
  int best = -1;
  for (int i = 0; i < count; i++)
    if (enabled(t[i * stride]) && (best < 0 || t[i * stride] < t[best * stride])) best = i;
  return best;
}

/* Resolves a choice (algo, proto; -1 = any) in this table: 1 with a and pr set (-1 = keep
 * NCCL's), 0 if impossible. */
static inline int resolve_choice(int algo, int proto, const float *t, int na, int np, int *a, int *pr) {
  *a = algo;
  *pr = proto;
  if (algo >= na || proto >= np) return 0;
  if (algo >= 0 && proto >= 0) return enabled(t[algo * np + proto]);
  if (algo >= 0) return (*pr = cheapest(t + algo * np, np, 1)) >= 0;
  if (proto >= 0) return (*a = cheapest(t + proto, na, np)) >= 0;
  return 1;
}

static inline const struct nn_segs *segs_for(const struct nn_policy *p, int coll) {
  return (p && coll >= 0 && coll < NN_COLL_COUNT && p->n_rules) ? &p->coll[coll] : NULL;
}

static inline const struct nn_seg *segment_of(const struct nn_segs *s, uint64_t n_bytes) {
  uint32_t b = bucket_of(n_bytes);
  return &s->seg[seg_find(s->start, s->bucket[b], s->bucket[b + 1], n_bytes)];
}

static inline int call_matches(const struct nn_crule *r, int pipe_ops, int reg_buff) {
  return (r->pipeops < 0 || r->pipeops == pipe_ops) && (r->regbuff < 0 || r->regbuff == reg_buff);
}

/* With a cost table (allowed NULL) what the table enables; without, what `allowed` says. */
static inline int possible(int coll, int algo, int proto, const float *t, int na, int np,
                           nn_choice_allowed_fn allowed, int *a, int *pr) {
  if (!allowed) return resolve_choice(algo, proto, t, na, np, a, pr);
  *a = algo;
  *pr = proto;
  return algo >= 0 && proto >= 0 && allowed(coll, algo, proto);
}

/* What fired: the rule's index in the config (-1: none) and its channels. */
struct nn_hit {
  int rule;
  int channels;
};

/* Later rules covering this size, tried only when the segment's first one cannot fire. */
static int fall_through(const struct nn_policy *p, int from, int coll, uint64_t n_bytes, int pipe_ops,
                        int reg_buff, const float *t, int na, int np, nn_choice_allowed_fn allowed,
                        int *a, int *pr, struct nn_hit *hit) {
  for (int i = from; i < p->n_rules; i++) {
    const struct nn_crule *r = &p->rules[i];
    if (!rule_has_coll(r, coll) || !in_range(n_bytes, r->lo, r->hi)) continue;
    if (call_matches(r, pipe_ops, reg_buff) && possible(coll, r->algo, r->proto, t, na, np, allowed, a, pr)) {
      *hit = (struct nn_hit){r->rule, r->channels};
      return 1;
    }
  }
  return 0;
}

/* The rule that fires for this call, if any: possible in table t, or (t NULL) allowed. */
static inline __attribute__((always_inline)) int find_rule(const struct nn_policy *p, int coll,
                                                           uint64_t n_bytes, int pipe_ops, int reg_buff,
                                                           const float *t, int na, int np,
                                                           nn_choice_allowed_fn allowed, int *a, int *pr,
                                                           struct nn_hit *hit) {
  const struct nn_segs *s = segs_for(p, coll);
  if (!s) return 0;
  const struct nn_seg *g = segment_of(s, n_bytes);
  if (g->first < 0) return 0;
  int first_ok = g->plain ? 1 : call_matches(&p->rules[g->first], pipe_ops, reg_buff);
  if (first_ok && possible(coll, g->algo, g->proto, t, na, np, allowed, a, pr)) {
    *hit = (struct nn_hit){g->rule, g->channels};
    return 1;
  }
  return fall_through(p, g->first + 1, coll, n_bytes, pipe_ops, reg_buff, t, na, np, allowed, a, pr, hit);
}

/* NCCL takes the first entry in row-major order that is >= 0 and strictly below the best so
 * far (topoGetAlgoInfo, src/enqueue.cc, NCCL 2.28.3 and 2.30.7): only a +-0.0 before the
 * chosen entry could win the tie, so only those are raised. NCCL's tables hold positive
 * times: the loop almost never writes, and it reads only up to the chosen entry. */
static inline void choose(float *t, int np, int a, int pr) {
  int k = a * np + pr;
  for (int i = 0; i < k; i++)
    if (t[i] == 0.0f) t[i] = NN_RAISED;
  t[k] = 0.0f;
}

int nn_policy_apply(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                    int reg_buff, float *table, int num_algo, int num_proto, int *n_channels) {
  if (!table || num_algo <= 0 || num_proto <= 0) return -1;
  int a, pr;
  struct nn_hit hit;
  if (!find_rule(p, coll, n_bytes, pipe_ops, reg_buff, table, num_algo, num_proto, NULL, &a, &pr, &hit))
    return -1;
  if (a >= 0 && pr >= 0) choose(table, num_proto, a, pr);
  if (hit.channels && n_channels) *n_channels = hit.channels;
  return hit.rule;
}

int nn_policy_apply_fixed(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                          nn_choice_allowed_fn allowed, int *algo, int *proto, int *n_channels) {
  int a, pr;
  struct nn_hit hit;
  if (!allowed || !find_rule(p, coll, n_bytes, pipe_ops, NN_ANY, NULL, 0, 0, allowed, &a, &pr, &hit)) return -1;
  if (algo) *algo = a;
  if (proto) *proto = pr;
  if (hit.channels && n_channels) *n_channels = hit.channels;
  return hit.rule;
}

int nn_policy_lookup(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                     int reg_buff, const float *table, int num_algo, int num_proto) {
  if (!table || num_algo <= 0 || num_proto <= 0) return -1;
  int a, pr;
  struct nn_hit hit;
  return find_rule(p, coll, n_bytes, pipe_ops, reg_buff, table, num_algo, num_proto, NULL, &a, &pr, &hit)
             ? hit.rule : -1;
}

void nn_policy_visit(const struct nn_policy *p, nn_policy_visit_fn fn, void *arg) {
  for (int c = 0; p && c < NN_COLL_COUNT; c++) {
    const struct nn_segs *s = &p->coll[c];
    for (uint32_t i = 0, j; i < s->n; i = j) {
      /* Adjacent segments with the same first rule read as one range. */
      for (j = i + 1; j < s->n && s->seg[j].first == s->seg[i].first; j++) {}
      uint64_t hi = j < s->n ? s->start[j] - 1 : UINT64_MAX;
      fn(arg, c, s->start[i], hi, s->seg[i].rule);
    }
  }
}

static void describe_choice(const struct nn_rule *r, int style, char *buf, size_t size) {
  const char *algo = r->algo >= 0 ? nn_algo_name(r->algo) : NULL;
  const char *proto = r->proto >= 0 ? nn_proto_name(r->proto) : NULL;
  int n;
  if (style == NN_CHOICE_TERSE) n = snprintf(buf, size, "%s/%s", algo ? algo : "*", proto ? proto : "*");
  else if (algo && proto) n = snprintf(buf, size, "%s/%s", algo, proto);
  else if (algo) n = snprintf(buf, size, "%s, cheapest protocol", algo);
  else if (proto) n = snprintf(buf, size, "cheapest algorithm, %s", proto);
  else n = snprintf(buf, size, "NCCL's algorithm/protocol");
  if (!r->channels || n < 0 || (size_t)n >= size) return;
  snprintf(buf + n, size - (size_t)n, style == NN_CHOICE_TERSE ? " channels=%d" : ", %d channels", r->channels);
}

void nn_policy_describe_rule(const struct nn_config *cfg, int rule, int style, char *choice,
                             size_t choice_size, char *where, size_t where_size) {
  snprintf(choice, choice_size, "NCCL default");
  snprintf(where, where_size, "NCCL default");
  if (!cfg || rule < 0 || rule >= cfg->n_rules) return;
  const struct nn_rule *r = &cfg->rules[rule];
  describe_choice(r, style, choice, choice_size);
  snprintf(where, where_size, "%s:%d", r->file ? r->file : "?", r->line);
}

void nn_policy_format_bytes(uint64_t v, char *buf, size_t size) {
  static const char suffix[] = "KMGT";
  if (v == UINT64_MAX) { snprintf(buf, size, "max"); return; }
  int s = -1;
  while (s < 3 && v && v % 1024 == 0) { v /= 1024; s++; }
  if (s < 0) snprintf(buf, size, "%llu", (unsigned long long)v);
  else snprintf(buf, size, "%llu%c", (unsigned long long)v, suffix[s]);
}
