/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_rules.c - the rules bench_tuner feeds the plugin, the mapping it writes them to, and
 * the two comparison tuners, reached like the plugin through a struct of function pointers:
 *   - "linear": a first-match scan over the same rules, checked field by field per call
 *     (the approach of NCCL's example tuner);
 *   - "floor": an empty getCollInfo, i.e. the cost of the call and of this harness. */
#include <math.h>
#include <stdlib.h>

#include "bench_tuner.h"

/* Colls that get rules; reduce (1) gets none and makes the non-matching calls. */
const int rule_colls[4] = {4, 2, 3, 0};
const char *const coll_name[5] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
static const char *const algo_name[] = {"tree", "ring"};
static const char *const proto_name[] = {"ll", "ll128", "simple"};

/* Rule j's shape conditions (all hold for the benchmark's communicator) and choice. */
void set_conditions(struct bench_rule *x, int j) {
  x->ranks_lo = (j % 3 == 0) ? 2 : 1;
  x->ranks_hi = (j % 3 == 0) ? 64 : ANY;
  x->nodes_lo = 1;
  x->nodes_hi = (j % 2) ? 1 : ANY;
  x->algo = j % 2;                /* tree, ring */
  x->proto = (j / 2) % 2 ? 2 : 0; /* ll, simple */
  if (x->algo == 0 && x->coll != 4) x->algo = 1;
  x->channels = (j % 5 == 0) ? 4 : 0;
}

/* n rules; those of one collective split 0..open into contiguous ranges, so every size of
 * a ruled collective matches exactly one rule of it and a first-match scan has to walk, on
 * average, half of the list. Rule j starts at 2^e + j (e = 32j/k rounded down): each octave
 * begins with a cluster of ranges 1 byte wide, the last of which reaches the next octave. */
struct bench_rule *make_rules(int n) {
  struct bench_rule *r = calloc((size_t)(n ? n : 1), sizeof *r);
  if (!r) return NULL;
  int n_colls = n < 4 ? n : 4;
  for (int c = 0; c < n_colls; c++) {
    int k = n / n_colls + (c < n % n_colls); /* rules of this collective */
    for (int j = 0; j < k; j++) {
      struct bench_rule *x = &r[j * n_colls + c];
      x->coll = rule_colls[c];
      x->lo = j == 0 ? 0 : (uint64_t)ldexp(1.0, (int)(32.0 * j / k)) + (uint64_t)j;
      set_conditions(x, j);
    }
    for (int j = 0; j < k; j++) {
      struct bench_rule *x = &r[j * n_colls + c];
      x->hi = j + 1 < k ? r[(j + 1) * n_colls + c].lo - 1 : UINT64_MAX;
    }
  }
  return r;
}

static void print_range(FILE *f, const char *key, long lo, long hi) {
  if (hi == ANY) fprintf(f, " %s=%ld-", key, lo);
  else fprintf(f, " %s=%ld-%ld", key, lo, hi);
}

/* Writes the mapping as a deployment should, to a temporary file renamed over the old one;
 * `serial` goes into a comment so that every file has new content (and a new hash). */
int write_config(const char *path, const struct bench_rule *r, int n, long serial) {
  char tmp[160];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fprintf(f, "# nccl-numa bench: 8 GPUs on two NUMA nodes, %d rules, file %ld\n", n, serial);
  for (int g = 0; g < 8; g++)
    fprintf(f, "gpu %d bus=0000:%02x:00.0 numa=%d\n", g, g + 1, g < 4 ? 1 : 0);
  for (int i = 0; i < n; i++) {
    fprintf(f, "rule coll=%s bytes=%llu-", coll_name[r[i].coll], (unsigned long long)r[i].lo);
    if (r[i].hi != UINT64_MAX) fprintf(f, "%llu", (unsigned long long)r[i].hi);
    print_range(f, "ranks", r[i].ranks_lo, r[i].ranks_hi);
    print_range(f, "nodes", r[i].nodes_lo, r[i].nodes_hi);
    fprintf(f, " algo=%s proto=%s", algo_name[r[i].algo], proto_name[r[i].proto]);
    if (r[i].channels) fprintf(f, " channels=%d", r[i].channels);
    fputc('\n', f);
  }
  if (fclose(f) != 0) return -1;
  return rename(tmp, path);
}

/* ------------------------------------------------------------------ comparison tuners */

struct ref_ctx {
  const struct bench_rule *rules;
  int n;
  size_t n_ranks, n_nodes;
};

static struct {
  const struct bench_rule *rules;
  int n;
} g_ref_rules;

void ref_rules_use(const struct bench_rule *rules, int n) {
  g_ref_rules.rules = rules;
  g_ref_rules.n = n;
}

static int in_span(long v, long lo, long hi) { return v >= lo && (hi == ANY || v <= hi); }

static nn_ncclResult_t ref_init(void **ctx, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                                nn_ncclDebugLogger_t logger, nn_ncclNvlDomainInfo_v5_t *nvl,
                                nn_ncclTunerConstants_v5_t *constants) {
  (void)comm_id;
  (void)logger;
  (void)nvl;
  (void)constants;
  struct ref_ctx *c = malloc(sizeof *c);
  if (!c) return nn_ncclSystemError;
  *c = (struct ref_ctx){g_ref_rules.rules, g_ref_rules.n, n_ranks, n_nodes};
  *ctx = c;
  return nn_ncclSuccess;
}

/* First match in file order, every field checked per call; choose as the plugin does. */
static nn_ncclResult_t ref_get_coll_info(void *ctx, nn_ncclFunc_t coll, size_t n_bytes,
                                         int pipe_ops, float **cost_table, int num_algo,
                                         int num_proto, int reg_buff, int *n_channels) {
  (void)pipe_ops;
  (void)reg_buff;
  const struct ref_ctx *c = ctx;
  float *t = (float *)(void *)cost_table;
  for (int i = 0; i < c->n; i++) {
    const struct bench_rule *r = &c->rules[i];
    if (r->coll != (int)coll || n_bytes < r->lo || n_bytes > r->hi) continue;
    if (!in_span((long)c->n_ranks, r->ranks_lo, r->ranks_hi)) continue;
    if (!in_span((long)c->n_nodes, r->nodes_lo, r->nodes_hi)) continue;
    if (r->algo >= num_algo || r->proto >= num_proto ||
        !(t[r->algo * num_proto + r->proto] >= 0.0f))
      continue;
    /* NCCL picks the first minimum in row-major order: earlier +-0.0 entries are raised. */
    for (int k = 0; k < r->algo * num_proto + r->proto; k++)
      if (t[k] >= 0.0f && t[k] <= 0.0f) t[k] = 1e-6f;
    t[r->algo * num_proto + r->proto] = 0.0f;
    if (r->channels) *n_channels = r->channels;
    return nn_ncclSuccess;
  }
  return nn_ncclSuccess;
}

static nn_ncclResult_t ref_finalize(void *ctx) {
  free(ctx);
  return nn_ncclSuccess;
}

static nn_ncclResult_t floor_init(void **ctx, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                                  nn_ncclDebugLogger_t logger, nn_ncclNvlDomainInfo_v5_t *nvl,
                                  nn_ncclTunerConstants_v5_t *constants) {
  (void)comm_id;
  (void)n_ranks;
  (void)n_nodes;
  (void)logger;
  (void)nvl;
  (void)constants;
  *ctx = NULL;
  return nn_ncclSuccess;
}

static nn_ncclResult_t floor_get_coll_info(void *ctx, nn_ncclFunc_t coll, size_t n_bytes,
                                           int pipe_ops, float **cost_table, int num_algo,
                                           int num_proto, int reg_buff, int *n_channels) {
  (void)ctx;
  (void)coll;
  (void)n_bytes;
  (void)pipe_ops;
  (void)cost_table;
  (void)num_algo;
  (void)num_proto;
  (void)reg_buff;
  (void)n_channels;
  return nn_ncclSuccess;
}

static nn_ncclResult_t floor_finalize(void *ctx) {
  (void)ctx;
  return nn_ncclSuccess;
}

const nn_ncclTuner_v5_t ref_tuner = {"linear", ref_init, ref_get_coll_info, ref_finalize};
const nn_ncclTuner_v5_t floor_tuner = {"floor", floor_init, floor_get_coll_info, floor_finalize};
