/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_config.c - libFuzzer target: the mapping parser and everything the plugin does
 * with an accepted mapping.
 *
 * Input: a mapping file. Accepted mappings are checked against the format's bounds,
 * compiled for several communicator shapes and driven through nn_policy_apply (v3-v7)
 * and nn_policy_apply_fixed with NCCL-like tables, asserting the ABI rules: a disabled
 * entry (negative or NaN) never becomes enabled, nothing is written past numAlgo x
 * numProto, nothing negative (nor -0.0) is ever written, which NCCL 2.31+ would take as the
 * cheapest time, nChannels stays within 0..64, v2 writes only safe pairs; and every decision
 * equals a linear first-match scan over the rules written here (the rule, its channels, the
 * entry NCCL then takes, nothing written when no choice is made), in which a rule with
 * nothing but chunk= takes no part; getChunkSize equals a first-match scan of the chunk=
 * rules. NCCL_ALGO / NCCL_PROTO from env lines are parsed as NCCL does and the rules they
 * block counted. The scope, the topology verdict and the topology XML
 * are produced as well.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_forced.h"
#include "nn_config.h"
#include "policy.h"
#include "topo_xml.h"
#include "topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NA 7
#define NP 3

/* The harness's own reference checks are built without coverage tracing: their comparisons
 * are of values they computed, so tracing them guides nothing, and it took a third of each
 * execution. The code under test keeps its tracing. */
#define UNTRACED __attribute__((no_sanitize("coverage")))

static void check_config(const struct nn_config *c) {
  if (c->n_gpus < 0 || c->n_gpus > NN_MAX_GPUS || c->n_rules < 0 || c->n_rules > NN_MAX_RULES)
    abort();
  for (int i = 0; i < c->n_gpus; i++)
    if (c->gpus[i].index != i || c->gpus[i].numa < 0 || c->gpus[i].numa > NN_MAX_NUMA_ID) abort();
  for (int i = 0; i < c->n_rules; i++) {
    const struct nn_rule *r = &c->rules[i];
    if (r->bytes_lo > r->bytes_hi || r->ranks_lo > r->ranks_hi || r->nodes_lo > r->nodes_hi)
      abort();
    if (r->algo < NN_ANY || r->algo >= NN_ALGO_COUNT || r->proto < NN_ANY ||
        r->proto >= NN_PROTO_COUNT)
      abort();
    if (r->channels < 0 || r->channels > NN_MAX_CHANNELS) abort();
  }
}

/* Table kinds: PCIe-only, everything enabled, NaN and -0.0 entries, all disabled. */
UNTRACED static void fill(float *t, int kind) {
  for (int i = 0; i < NA * NP + 8; i++) t[i] = -1.0f;
  for (int i = 0; i < NA * NP; i++) {
    int a = i / NP, p = i % NP;
    if (kind == 0) t[i] = (a < 2 && p != 1) ? 5.0f + (float)i : -1.0f;
    if (kind == 1) t[i] = (float)(i % 5);
    if (kind == 2) t[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? -0.0f : -5.0f;
  }
}

/* A table-less choice predicate like the v2 adapter's: only what it allows may come out. */
static int v2_like(int coll, int algo, int proto) {
  if (proto != NN_PROTO_LL && proto != NN_PROTO_SIMPLE) return 0;
  return algo == NN_ALGO_RING || (algo == NN_ALGO_TREE && coll == NN_COLL_ALLREDUCE);
}

/* The communicator and call a decision is checked for. */
struct call {
  const struct nn_config *cfg;
  size_t ranks, nodes;
  int scope, coll, reg_buff;
  uint64_t bytes;
};

/* Cheapest enabled entry of a row (stride 1) or column (stride np), first on ties; -1: none. */
UNTRACED static int cheapest_of(const float *t, int count, int stride) {
  int best = -1;
  for (int i = 0; i < count; i++)
    if (t[i * stride] >= 0.0f && (best < 0 || t[i * stride] < t[best * stride])) best = i;
  return best;
}

/* The reference decision, written independently of policy.c: a linear first-match scan over
 * the config's rules, as NCCL's example tuner does. Returns the rule index (-1: none) and the
 * table entry it chooses in *entry (-1: NCCL keeps its own choice). */
UNTRACED static int reference(const struct call *c, const float *t, int na, int np, int *entry) {
  *entry = -1;
  if (c->coll < 0 || c->coll >= NN_COLL_COUNT) return -1; /* a collective NCCL may add later */
  for (int i = 0; i < c->cfg->n_rules; i++) {
    const struct nn_rule *r = &c->cfg->rules[i];
    if ((r->coll != NN_ANY && r->coll != c->coll) || c->bytes < r->bytes_lo ||
        c->bytes > r->bytes_hi)
      continue;
    if (c->ranks < r->ranks_lo || c->ranks > r->ranks_hi || c->nodes < r->nodes_lo ||
        c->nodes > r->nodes_hi)
      continue;
    if ((r->scope != NN_SCOPE_ANY && r->scope != c->scope) || (r->pipeops >= 0 && r->pipeops != 1))
      continue;
    if ((r->regbuff >= 0 && r->regbuff != c->reg_buff) || r->algo >= na || r->proto >= np) continue;
    if (r->chunk && r->algo < 0 && r->proto < 0 && !r->channels)
      continue; /* chunk= alone: getChunkSize's */
    int a = r->algo, pr = r->proto;
    if (a >= 0 && pr < 0) pr = cheapest_of(t + a * np, np, 1);
    else if (pr >= 0 && a < 0) a = cheapest_of(t + pr, na, np);
    if ((r->algo >= 0 || r->proto >= 0) && (a < 0 || pr < 0 || !(t[a * np + pr] >= 0.0f))) continue;
    if (a >= 0) *entry = a * np + pr;
    return i;
  }
  return -1;
}

/* The entry NCCL takes from a table: the first >= 0 strictly below every earlier one. */
UNTRACED static int nccl_pick(const float *t, int n) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (t[i] >= 0.0f && (best < 0 || t[i] < t[best])) best = i;
  return best;
}

UNTRACED static void apply_checked(const struct nn_policy *p, const struct call *c, int kind,
                                   int na, int np) {
  float t[NA * NP + 8], before[NA * NP + 8];
  fill(t, kind);
  memcpy(before, t, sizeof t);
  int channels = 0, entry;
  int want = reference(c, before, na, np, &entry);
  int got = nn_policy_apply(p, c->coll, c->bytes, 1, c->reg_buff, t, na, np, &channels);
  if (got != want) abort(); /* another rule fired */
  if (want >= 0 && entry >= 0 && nccl_pick(t, na * np) != entry)
    abort(); /* NCCL would not take it */
  if (channels != (want >= 0 ? c->cfg->rules[want].channels : 0)) abort();
  for (int i = 0; i < NA * NP + 8; i++) {
    int outside = i >= na * np;
    int was_enabled = !outside && before[i] >= 0.0f;
    if ((outside || want < 0 || entry < 0) && memcmp(&t[i], &before[i], sizeof t[i]))
      abort();                                             /* wrote where no choice was made */
    if (!outside && !was_enabled && t[i] >= 0.0f) abort(); /* enabled a disabled entry */
    /* wrote a negative cost (or -0.0): NCCL 2.31+ takes the minimum with no >= 0 test */
    if (memcmp(&t[i], &before[i], sizeof t[i]) && (signbit(t[i]) || !(t[i] >= 0.0f))) abort();
  }
  if (nn_policy_lookup(p, c->coll, c->bytes, 1, c->reg_buff, before, na, np) != want) abort();
  int a = -1, pr = -1;
  channels = 0;
  if (nn_policy_apply_fixed(p, c->coll, c->bytes, 1, v2_like, &a, &pr, &channels) >= 0 &&
      (a >= 0 || pr >= 0)) {
    if (pr != NN_PROTO_LL && pr != NN_PROTO_SIMPLE) abort();
    if (a != NN_ALGO_RING && !(a == NN_ALGO_TREE && c->coll == NN_COLL_ALLREDUCE)) abort();
  }
}

/* getChunkSize's reference: the first rule with chunk= covering the call whose algo=/proto= are
 * NCCL's selection; nothing below the protocol's grain. */
UNTRACED static int chunk_reference(const struct call *c, int algo, int proto, uint64_t *chunk) {
  static const uint64_t grain[3] = {16, 1920, 512};
  if (c->coll < 0 || c->coll >= NN_COLL_COUNT) return -1;
  for (int i = 0; i < c->cfg->n_rules; i++) {
    const struct nn_rule *r = &c->cfg->rules[i];
    if (!r->chunk || (r->coll != NN_ANY && r->coll != c->coll) || c->bytes < r->bytes_lo ||
        c->bytes > r->bytes_hi)
      continue;
    if (c->ranks < r->ranks_lo || c->ranks > r->ranks_hi || c->nodes < r->nodes_lo ||
        c->nodes > r->nodes_hi)
      continue;
    if ((r->scope != NN_SCOPE_ANY && r->scope != c->scope) || (r->pipeops >= 0 && r->pipeops != 1))
      continue;
    if ((r->regbuff >= 0 && r->regbuff != 0) || (r->algo >= 0 && r->algo != algo) ||
        (r->proto >= 0 && r->proto != proto))
      continue;
    if (r->chunk < grain[proto]) return -1;
    *chunk = r->chunk;
    return i;
  }
  return -1;
}

UNTRACED static void chunk_checked(const struct nn_policy *p, const struct call *c) {
  for (int algo = 0; algo < NA; algo++)
    for (int proto = 0; proto < NP; proto++) {
      size_t got = 12345;
      uint64_t want = 0;
      int rule = nn_policy_chunk(p, c->coll, c->bytes, algo, proto, &got);
      if (rule != chunk_reference(c, algo, proto, &want)) abort();
      if (rule >= 0 ? got != want : got != 12345) abort();
    }
}

static void visit_count(void *arg, int coll, uint64_t lo, uint64_t hi, int rule) {
  (void)coll;
  (void)rule;
  if (lo > hi) abort();
  (*(int *)arg)++;
}

static void drive_policy(const struct nn_config *cfg, size_t ranks, size_t nodes) {
  struct nn_policy *p = nn_policy_compile(cfg, ranks, nodes);
  if (!p) return;
  int segments = 0;
  nn_policy_visit(p, visit_count, &segments);
  static const uint64_t sizes[] = {0,     1,        1023,       1024,      65535,
                                   65536, 1u << 20, 1ull << 32, UINT64_MAX};
  struct call c = {.cfg = cfg, .ranks = ranks, .nodes = nodes, .scope = nn_policy_scope(p)};
  for (c.coll = -1; c.coll <= NN_COLL_COUNT; c.coll++) {
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      c.bytes = sizes[s];
      c.reg_buff = ((int)s % 3) & 1;
      apply_checked(p, &c, (int)s % 3, (s & 1) ? NA : 6, NP);
      chunk_checked(p, &c);
    }
    for (int r = 0; r < cfg->n_rules && r < 16; r++) {
      uint64_t edges[] = {cfg->rules[r].bytes_lo, cfg->rules[r].bytes_hi,
                          cfg->rules[r].bytes_lo - 1, cfg->rules[r].bytes_hi + 1};
      for (int e = 0; e < 4; e++) {
        c.bytes = edges[e];
        c.reg_buff = (r + e) & 1;
        apply_checked(p, &c, (r + e) % 3, NA, (r + e) % 4 == 3 ? 2 : NP);
      }
    }
  }
  nn_policy_free(p);
}

/* NCCL_ALGO / NCCL_PROTO from the mapping's env lines (the harness's environment sets neither):
 * a rejected value leaves everything enabled, a rule is blocked only for what the value turns
 * off, and the sentence always fits. */
static void drive_forced(const struct nn_config *cfg) {
  struct nn_forced f;
  char text[768];
  nn_forced_read(cfg, &f);
  for (int var = 0; var < NN_FORCED_COUNT; var++) {
    if (f.invalid[var] && f.restricted[var]) abort();
    if (f.value[var]) nn_forced_describe(cfg, &f, var, text, sizeof text);
  }
  for (int i = 0; i < cfg->n_rules && i < 64; i++)
    for (int c = 0; c < NN_COLL_COUNT; c++) {
      unsigned b = nn_forced_blocks(&f, &cfg->rules[i], c);
      if ((b & 1u) && !(f.restricted[NN_FORCED_ALGO] >> c & 1u)) abort();
      if ((b & 2u) && !(f.restricted[NN_FORCED_PROTO] >> c & 1u)) abort();
    }
}

static void drive_topology(const struct nn_config *cfg) {
  struct nn_cpu_kind cpu;
  char err[512];
  if (nn_topology_cpu_kind(cfg, "/nonexistent/cpuinfo", &cpu, err, sizeof err) != 0) return;
  struct nn_topo_verdict v;
  nn_topology_verdict(cfg, &cpu, NULL, &v);
  char *xml = NULL;
  size_t len = 0;
  if (nn_topo_xml_generate(cfg, &cpu, "/nonexistent", &xml, &len, err, sizeof err) == 0) {
    if (strlen(xml) != len || strchr(xml, '\t') || strstr(xml, "<?xml")) abort();
    free(xml);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct nn_config *cfg = NULL;
  struct nn_diag diag = {0};
  struct nn_parse_opts opts = {.flags = (size && (data[size - 1] & 0x80)) ? NN_PARSE_HOST_SIDE : 0,
                               .cpuinfo_path = "/nonexistent/cpuinfo"};
  int rc = nn_config_parse("fuzz.conf", (const char *)data, size, &opts, &cfg, &diag);
  if ((rc == 0) != (cfg != NULL) || (rc != 0 && diag.n + diag.dropped == 0)) abort();
  for (int i = 0; i < diag.n; i++)
    if (strncmp(diag.msgs[i], "fuzz.conf", 9) != 0) abort(); /* every message names the file */
  if (cfg) {
    check_config(cfg);
    static const size_t shapes[][2] = {{1, 1}, {2, 1}, {4, 1}, {8, 1}, {8, 2}, {3, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      drive_policy(cfg, shapes[s][0], shapes[s][1]);
    drive_topology(cfg);
    drive_forced(cfg);
  }
  nn_config_free(cfg);
  nn_diag_clear(&diag);
  return 0;
}
