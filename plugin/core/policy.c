/* SPDX-License-Identifier: BSD-3-Clause */
/* policy.c - decide per call from a compiled policy (built by policy_compile.c); its facts. */
#include "policy.h"
#include "policy_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NN_RAISED 1e-6f /* above the chosen 0.0 so NCCL's lowest-index tie-break cannot win */

void nn_policy_free(struct nn_policy *p) {
  if (!p) return;
  for (int c = 0; c < NN_COLL_COUNT; c++) {
    free(p->more[c].alloc);
    free((void *)p->hot.coll[c].bucket);
    free((void *)p->hot.coll[c].sub);
  }
  free(p->rules);
  nn_policy_free(p->chunk);
  free(p);
}

int nn_policy_scope(const struct nn_policy *p) { return p ? p->scope : NN_SCOPE_UNKNOWN; }
int nn_policy_rule_count(const struct nn_policy *p) { return p ? p->n_rules + p->n_chunk_only : 0; }
unsigned nn_policy_chunk_mask(const struct nn_policy *p) {
  return p && p->chunk ? p->chunk->coll_mask : 0;
}

unsigned nn_policy_coll_mask(const struct nn_policy *p) { return p ? p->coll_mask : 0; }

/* ---- the hot path ---- */

static inline int enabled(float cost) { return cost >= 0.0f; } /* false for NaN */

/* Cheapest enabled entry along one row (algo fixed) or column (proto fixed). */
static int cheapest(const float *t, int count, int stride) {
  int best = -1;
  for (int i = 0; i < count; i++)
    if (enabled(t[i * stride]) && (best < 0 || t[i * stride] < t[best * stride])) best = i;
  return best;
}

/* Resolves a choice (algo, proto; -1 = any) in this table: 1 with a and pr set (-1 = keep
 * NCCL's), 0 if impossible. */
static int resolve_choice(int algo, int proto, const float *t, int na, int np, int *a, int *pr) {
  *a = algo;
  *pr = proto;
  if (algo >= na || proto >= np) return 0;
  if (algo >= 0 && proto >= 0) return enabled(t[algo * np + proto]);
  if (algo >= 0) return (*pr = cheapest(t + algo * np, np, 1)) >= 0;
  if (proto >= 0) return (*a = cheapest(t + proto, na, np)) >= 0;
  return 1;
}

static int call_matches(const struct nn_crule *r, int pipe_ops, int reg_buff) {
  return (r->pipeops < 0 || r->pipeops == pipe_ops) && (r->regbuff < 0 || r->regbuff == reg_buff);
}

/* With a cost table (allowed NULL) what the table enables; without, what `allowed` says. */
static int possible(int coll, int algo, int proto, const float *t, int na, int np,
                    nn_choice_allowed_fn allowed, int *a, int *pr) {
  if (!allowed) return resolve_choice(algo, proto, t, na, np, a, pr);
  *a = algo;
  *pr = proto;
  return algo >= 0 && proto >= 0 && allowed(coll, algo, proto);
}

/* What fired: the rule's index in the config (-1: none), its channels and chunk size. */
struct nn_hit {
  int rule;
  int channels;
  uint32_t chunk;
};

/* The kept rules covering this size from p->rules[from] on, in file order: the first whose
 * conditions hold and whose choice is possible fires (none for from NN_SEG_NO_RULE). */
static int first_possible(const struct nn_policy *p, int from, int coll, uint64_t n_bytes,
                          int pipe_ops, int reg_buff, const float *t, int na, int np,
                          nn_choice_allowed_fn allowed, int *a, int *pr, struct nn_hit *hit) {
  for (int i = from; i >= 0 && i < p->n_rules; i++) {
    const struct nn_crule *r = &p->rules[i];
    if (!rule_has_coll(r, coll) || !in_range(n_bytes, r->lo, r->hi)) continue;
    if (call_matches(r, pipe_ops, reg_buff) &&
        possible(coll, r->algo, r->proto, t, na, np, allowed, a, pr)) {
      *hit = (struct nn_hit){r->rule, r->channels, r->chunk};
      return 1;
    }
  }
  return 0;
}

/* The segment holding n_bytes (in a crowded bucket, the one its record finds). */
static const struct nn_seg *segment_of(const struct nn_policy *p, int coll, uint64_t n_bytes) {
  const struct nn_segs *s = &p->hot.coll[coll];
  return nn_policy_crowded(s, nn_policy_segment_fast(s, n_bytes), n_bytes);
}

/* The rule that fires for this call, if any: possible in table t, or (t NULL) allowed. */
static int find_rule(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                     int reg_buff, const float *t, int na, int np, nn_choice_allowed_fn allowed,
                     int *a, int *pr, struct nn_hit *hit) {
  if (!p || coll < 0 || coll >= NN_COLL_COUNT) return 0;
  return first_possible(p, segment_of(p, coll, n_bytes)->from, coll, n_bytes, pipe_ops, reg_buff, t,
                        na, np, allowed, a, pr, hit);
}

/* NCCL takes the first entry in row-major order that is >= 0 and strictly below the best so
 * far (topoGetAlgoInfo, src/enqueue.cc, NCCL 2.28.3 and 2.30.7): the chosen entry becomes
 * 0.0 and only a +-0.0 before it could win the tie, so only those are raised. */
static void choose(float *t, int k) {
  for (int i = 0; i < k; i++)
    if (t[i] == 0.0f) t[i] = NN_RAISED;
  t[k] = 0.0f;
}

/* The general path's first-match walk from g's first rule: out of line, so that a crowded
 * bucket's segment the fast check answers saves no registers for it. */
__attribute__((noinline)) static int apply_walk(const struct nn_policy *p, const struct nn_seg *g,
                                                int coll, uint64_t n_bytes, int pipe_ops,
                                                int reg_buff, float *table, int num_algo,
                                                int num_proto, int *n_channels) {
  int a, pr;
  struct nn_hit hit;
  if (!first_possible(p, g->from, coll, n_bytes, pipe_ops, reg_buff, table, num_algo, num_proto,
                      NULL, &a, &pr, &hit))
    return -1;
  if (a >= 0 && pr >= 0) choose(table, a * num_proto + pr);
  if (hit.channels && n_channels) *n_channels = hit.channels;
  return hit.rule;
}

int nn_policy_apply_general(const struct nn_policy *p, const struct nn_seg *g, int coll,
                            uint64_t n_bytes, int pipe_ops, int reg_buff, float *table,
                            int num_algo, int num_proto, int *n_channels) {
  if (!table || num_algo <= 0 || num_proto <= 0) return -1;
  g = nn_policy_crowded(&p->hot.coll[coll], g, n_bytes);
  /* A crowded bucket's segment may be one the fast path answers. */
  if (nn_policy_fast_ok(g, table, num_algo, num_proto)) {
    nn_policy_fast_write(g, table, n_channels);
    return g->rule;
  }
  if (g->entry == NN_SEG_NONE) return -1;
  return apply_walk(p, g, coll, n_bytes, pipe_ops, reg_buff, table, num_algo, num_proto,
                    n_channels);
}

int nn_policy_apply(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                    int reg_buff, float *table, int num_algo, int num_proto, int *n_channels) {
  if (!p || coll < 0 || coll >= NN_COLL_COUNT) return -1;
  const struct nn_seg *g;
  if (nn_policy_apply_fast(&p->hot, coll, n_bytes, table, num_algo, num_proto, n_channels, &g))
    return g->rule;
  return nn_policy_apply_general(p, g, coll, n_bytes, pipe_ops, reg_buff, table, num_algo,
                                 num_proto, n_channels);
}

int nn_policy_apply_fixed(const struct nn_policy *p, int coll, uint64_t n_bytes, int pipe_ops,
                          nn_choice_allowed_fn allowed, int *algo, int *proto, int *n_channels) {
  int a, pr;
  struct nn_hit hit;
  if (!allowed ||
      !find_rule(p, coll, n_bytes, pipe_ops, NN_ANY, NULL, 0, 0, allowed, &a, &pr, &hit))
    return -1;
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
  return find_rule(p, coll, n_bytes, pipe_ops, reg_buff, table, num_algo, num_proto, NULL, &a, &pr,
                   &hit)
           ? hit.rule
           : -1;
}

/* NCCL rounds a chunk size down to its protocol's grain (ncclProtoGrainSize, src/include/device.h,
 * v2.30.7-1 and dev: LL 16 B, LL128 32 x 8 / 16 x 15 x 8 = 1920 B, Simple 512 B); below it the
 * chunk would become 0 and NCCL would divide by it. */
static const uint32_t proto_grain[NN_PROTO_COUNT] = {16, 1920, 512};

int nn_policy_chunk(const struct nn_policy *p, int coll, uint64_t n_bytes, int algo, int proto,
                    size_t *chunk) {
  if (!p || !p->chunk || !chunk || algo < 0 || algo >= NN_ALGO_COUNT || proto < 0 ||
      proto >= NN_PROTO_COUNT)
    return -1;
  /* What NCCL selected as the only enabled entry: algo=/proto= become conditions on it. */
  float t[NN_ALGO_COUNT * NN_PROTO_COUNT];
  for (int i = 0; i < NN_ALGO_COUNT * NN_PROTO_COUNT; i++) t[i] = -1.0f;
  t[algo * NN_PROTO_COUNT + proto] = 0.0f;
  int a, pr;
  struct nn_hit hit;
  if (!find_rule(p->chunk, coll, n_bytes, 1, 0, t, NN_ALGO_COUNT, NN_PROTO_COUNT, NULL, &a, &pr,
                 &hit) ||
      hit.chunk < proto_grain[proto])
    return -1;
  *chunk = hit.chunk;
  return hit.rule;
}

void nn_policy_visit(const struct nn_policy *p, nn_policy_visit_fn fn, void *arg) {
  for (int c = 0; p && c < NN_COLL_COUNT; c++) {
    const struct nn_seg *seg = p->hot.coll[c].seg;
    const struct nn_coll_more *m = &p->more[c];
    for (uint32_t i = 0, j; i < m->n; i = j) {
      /* Adjacent segments with the same first rule read as one range. */
      for (j = i + 1; j < m->n && seg[j].from == seg[i].from; j++) {}
      uint64_t hi = j < m->n ? seg[j].start - 1 : UINT64_MAX;
      fn(arg, c, seg[i].start, hi, seg[i].rule);
    }
  }
}

void nn_policy_visit_chunk(const struct nn_policy *p, nn_policy_visit_fn fn, void *arg) {
  if (p && p->chunk) nn_policy_visit(p->chunk, fn, arg);
}

static void describe_choice(const struct nn_rule *r, int style, char *buf, size_t size) {
  const char *algo = r->algo >= 0 ? nn_algo_name(r->algo) : NULL;
  const char *proto = r->proto >= 0 ? nn_proto_name(r->proto) : NULL;
  int n;
  if (style == NN_CHOICE_TERSE)
    n = snprintf(buf, size, "%s/%s", algo ? algo : "*", proto ? proto : "*");
  else if (algo && proto) n = snprintf(buf, size, "%s/%s", algo, proto);
  else if (algo) n = snprintf(buf, size, "%s, cheapest protocol", algo);
  else if (proto) n = snprintf(buf, size, "cheapest algorithm, %s", proto);
  else n = snprintf(buf, size, "NCCL's algorithm/protocol");
  if (r->channels && n >= 0 && (size_t)n < size)
    n += snprintf(buf + n, size - (size_t)n,
                  style == NN_CHOICE_TERSE ? " channels=%d" : ", %d channels", r->channels);
  if (!r->chunk || n < 0 || (size_t)n >= size) return;
  char c[32];
  nn_policy_format_bytes(r->chunk, c, sizeof c);
  snprintf(buf + n, size - (size_t)n, style == NN_CHOICE_TERSE ? " chunk=%s" : ", chunk %s", c);
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
  if (v == UINT64_MAX) {
    snprintf(buf, size, "max");
    return;
  }
  int s = -1;
  while (s < 3 && v && v % 1024 == 0) {
    v /= 1024;
    s++;
  }
  if (s < 0) snprintf(buf, size, "%llu", (unsigned long long)v);
  else snprintf(buf, size, "%llu%c", (unsigned long long)v, suffix[s]);
}
