/* SPDX-License-Identifier: BSD-3-Clause */
/* test_policy.c - compiled decisions equal a naive first-match scan; semantics of choices. */
#include <malloc.h>
#include <math.h>

#include "nn_config.h"
#include "nn_test.h"
#include "cost_fixture.h"

#include "nccl_cost.h"
#include "nccl_model.h"
#include "plugin/core/policy_fast.h"
#include "policy.h"
#include "topology.h"

#define NA NN_ALGO_COUNT
#define NP NN_PROTO_COUNT

static void pcie_table(float *t) {
  for (int i = 0; i < NA * NP; i++) t[i] = -1.0f;
  t[NN_ALGO_TREE * NP + NN_PROTO_LL] = 10;
  t[NN_ALGO_TREE * NP + NN_PROTO_SIMPLE] = 20;
  t[NN_ALGO_RING * NP + NN_PROTO_LL] = 12;
  t[NN_ALGO_RING * NP + NN_PROTO_SIMPLE] = 15;
}

/* The reference: NCCL's example-tuner style linear first match with our possibility rules. */
static int naive(const struct nn_config *cfg, int scope, size_t ranks, size_t nodes, int coll,
                 uint64_t bytes, const float *t) {
  for (int i = 0; i < cfg->n_rules; i++) {
    const struct nn_rule *r = &cfg->rules[i];
    if (r->coll != NN_ANY && r->coll != coll) continue;
    if (bytes < r->bytes_lo || bytes > r->bytes_hi) continue;
    if (ranks < r->ranks_lo || ranks > r->ranks_hi || nodes < r->nodes_lo || nodes > r->nodes_hi)
      continue;
    if (r->scope != NN_SCOPE_ANY && r->scope != scope) continue;
    int possible = 1;
    if (r->algo >= 0 && r->proto >= 0) possible = t[r->algo * NP + r->proto] >= 0;
    else if (r->algo >= 0) {
      possible = 0;
      for (int p = 0; p < NP; p++) possible |= t[r->algo * NP + p] >= 0;
    } else if (r->proto >= 0) {
      possible = 0;
      for (int a = 0; a < NA; a++) possible |= t[a * NP + r->proto] >= 0;
    }
    if (possible) return i;
  }
  return -1;
}

static const char *MAP4x4 = "cpu vendor=AuthenticAMD\n"
                            "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 "
                            "numa=1\ngpu 3 bus=04:00.0 numa=1\n"
                            "gpu 4 bus=05:00.0 numa=0\ngpu 5 bus=06:00.0 numa=0\ngpu 6 bus=07:00.0 "
                            "numa=0\ngpu 7 bus=08:00.0 numa=0\n";

static void random_rule(char *buf, size_t size, unsigned *seed) {
  static const char *colls[] = {"allreduce", "allgather", "reducescatter",
                                "broadcast", "reduce",    "any"};
  static const char *algos[] = {"tree", "ring", "nvls", "pat", "collnet_direct"};
  static const char *protos[] = {"ll", "ll128", "simple"};
  static const char *scopes[] = {"intra", "cross", "any"};
  size_t n = 0;
  n += (size_t)snprintf(buf + n, size - n, "rule");
  if (rand_r(seed) % 2)
    n += (size_t)snprintf(buf + n, size - n, " coll=%s", colls[rand_r(seed) % 6]);
  if (rand_r(seed) % 3) {
    unsigned lo = (unsigned)(rand_r(seed) % 30), hi = lo + (unsigned)(rand_r(seed) % 6);
    if (rand_r(seed) % 4 == 0) n += (size_t)snprintf(buf + n, size - n, " bytes=%llu-", 1ULL << lo);
    else
      n += (size_t)snprintf(buf + n, size - n, " bytes=%llu-%llu",
                            (1ULL << lo) + (unsigned)(rand_r(seed) % 3), (1ULL << hi) + 7);
  }
  if (rand_r(seed) % 4 == 0)
    n += (size_t)snprintf(buf + n, size - n, " ranks=%d-%d", 2, 4 + rand_r(seed) % 5);
  if (rand_r(seed) % 4 == 0)
    n += (size_t)snprintf(buf + n, size - n, " scope=%s", scopes[rand_r(seed) % 3]);
  int what = rand_r(seed) % 4;
  if (what != 1) n += (size_t)snprintf(buf + n, size - n, " algo=%s", algos[rand_r(seed) % 5]);
  if (what != 2) n += (size_t)snprintf(buf + n, size - n, " proto=%s", protos[rand_r(seed) % 3]);
  if (what == 3 || rand_r(seed) % 5 == 0)
    n += (size_t)snprintf(buf + n, size - n, " channels=%d", 1 + rand_r(seed) % 64);
  snprintf(buf + n, size - n, "\n");
}

static void test_matches_naive_scan(void **state) {
  (void)state;
  unsigned seed = 12345;
  for (int round = 0; round < 40; round++) {
    int n_rules = 1 + rand_r(&seed) % (round < 20 ? 8 : 300);
    size_t cap = 512 + (size_t)n_rules * 160;
    char *text = malloc(cap);
    size_t len = (size_t)snprintf(text, cap, "%s", MAP4x4);
    for (int i = 0; i < n_rules; i++) random_rule(text + len, cap - len, &seed), len = strlen(text);
    struct nn_config *cfg = nn_test_parse(text);
    size_t shapes[][2] = {{4, 1}, {8, 1}, {2, 1}, {3, 1}, {16, 2}};
    for (size_t s = 0; s < 5; s++) {
      struct nn_policy *p = nn_policy_compile(cfg, shapes[s][0], shapes[s][1]);
      assert_non_null(p);
      int scope = nn_topology_scope(cfg, shapes[s][0], shapes[s][1]);
      for (int k = 0; k < 400; k++) {
        float t[NA * NP];
        pcie_table(t);
        if (k % 3 == 0) t[NN_ALGO_NVLS * NP + NN_PROTO_SIMPLE] = 5;
        int coll = rand_r(&seed) % 5;
        uint64_t bytes = (1ULL << (rand_r(&seed) % 36)) + (uint64_t)(rand_r(&seed) % 9) - 4;
        if (k % 50 == 0) bytes = k % 100 ? 0 : UINT64_MAX;
        int want = naive(cfg, scope, shapes[s][0], shapes[s][1], coll, bytes, t);
        int got = nn_policy_lookup(p, coll, bytes, 1, 0, t, NA, NP);
        if (want != got)
          fprintf(stderr, "round %d shape %zu coll %d bytes %llu: want %d got %d\n", round, s, coll,
                  (unsigned long long)bytes, want, got);
        assert_int_equal(want, got);
        float before[NA * NP]; /* applying (the fast path where it can) fires the same rule */
        int ch = 0;
        memcpy(before, t, sizeof t);
        assert_int_equal(nn_policy_apply(p, coll, bytes, 1, 0, t, NA, NP, &ch), want);
        if (want < 0) assert_memory_equal(t, before, sizeof t);
        if (want < 0) assert_int_equal(ch, 0);
        const struct nn_rule *r = want >= 0 ? &cfg->rules[want] : NULL;
        if (r && r->algo >= 0 &&
            r->proto >= 0) { /* no 0.0 in these tables: only the choice changes */
          before[r->algo * NP + r->proto] = 0.0f;
          assert_memory_equal(t, before, sizeof t);
          assert_int_equal(ch, r->channels);
        }
      }
      nn_policy_free(p);
    }
    nn_config_free(cfg);
    free(text);
  }
}

/* A caller's choice predicate for the table-less path (the v2 adapter has its own). */
static int ll_simple_only(int coll, int algo, int proto) {
  (void)coll;
  (void)algo;
  return proto == NN_PROTO_LL || proto == NN_PROTO_SIMPLE;
}

static void test_apply_semantics(void **state) {
  (void)state;
  char text[2048];
  snprintf(text, sizeof text, "%s%s", MAP4x4,
           "rule coll=allreduce bytes=0-1K algo=ring proto=simple channels=3\n"
           "rule coll=allreduce bytes=1K- algo=ring\n"
           "rule coll=allgather proto=ll\n"
           "rule coll=broadcast algo=nvls\n"
           "rule coll=broadcast bytes=0-100 proto=ll128\n");
  struct nn_config *cfg = nn_test_parse(text);
  struct nn_policy *p = nn_policy_compile(cfg, 4, 1);
  float t[NA * NP];
  int ch = 0;
  pcie_table(t);
  t[NN_ALGO_TREE * NP + NN_PROTO_LL] = 0.0f; /* a lower-index 0.0 must not win the tie */
  assert_int_equal(nn_policy_apply(p, NN_COLL_ALLREDUCE, 1024, 1, 0, t, NA, NP, &ch), 0);
  assert_true(t[NN_ALGO_RING * NP + NN_PROTO_SIMPLE] == 0.0f);
  assert_true(t[NN_ALGO_TREE * NP + NN_PROTO_LL] > 0.0f);
  assert_true(t[NN_ALGO_COLLNET_DIRECT * NP + NN_PROTO_LL] < 0.0f);
  assert_int_equal(ch, 3);

  pcie_table(t);
  ch = 0;
  assert_int_equal(nn_policy_apply(p, NN_COLL_ALLREDUCE, 1025, 1, 0, t, NA, NP, &ch), 1);
  assert_true(t[NN_ALGO_RING * NP + NN_PROTO_LL] ==
              0.0f); /* ring's cheapest protocol: ll (12 < 15) */
  assert_int_equal(ch, 0);

  pcie_table(t);
  ch = 0;
  assert_int_equal(nn_policy_apply(p, NN_COLL_ALLGATHER, 5, 1, 0, t, NA, NP, &ch), 2);
  assert_true(t[NN_ALGO_TREE * NP + NN_PROTO_LL] ==
              0.0f); /* cheapest algorithm with ll: tree (10 < 12) */

  pcie_table(t);
  ch = 0; /* nvls disabled and ll128 disabled: both broadcast rules impossible */
  assert_int_equal(nn_policy_apply(p, NN_COLL_BROADCAST, 5, 1, 0, t, NA, NP, &ch), -1);
  float ref[NA * NP];
  pcie_table(ref);
  assert_memory_equal(t, ref, sizeof t);

  /* A 2x2 table: nvls (index 4) is past its end, so that rule is impossible; the ll128
   * rule's cheapest algorithm is tree (2 < 4). Nothing is read or written past the table. */
  float small[2 * 2] = {1, 2, 3, 4};
  assert_int_equal(nn_policy_apply(p, NN_COLL_BROADCAST, 5, 1, 0, small, 2, 2, &ch), 4);
  assert_true(small[0 * 2 + 1] == 0.0f && small[0] == 1 && small[2] == 3 && small[3] == 4);
  int a = -1, pr = -1;
  ch = 0;
  assert_int_equal(nn_policy_apply_fixed(p, NN_COLL_ALLREDUCE, 10, 1, ll_simple_only, &a, &pr, &ch),
                   0);
  assert_int_equal(a, NN_ALGO_RING);
  assert_int_equal(pr, NN_PROTO_SIMPLE);
  a = pr = -1;
  assert_int_equal(nn_policy_apply_fixed(p, NN_COLL_ALLGATHER, 10, 1, ll_simple_only, &a, &pr, &ch),
                   -1);
  assert_int_equal(a, -1);
  assert_int_equal(nn_policy_apply_fixed(p, NN_COLL_ALLREDUCE, 10, 1, NULL, &a, &pr, &ch),
                   -1); /* no predicate */
  nn_policy_free(p);
  nn_config_free(cfg);
}

/* Ranges 1 byte wide (a "crowded" bucket: the fast path sends sizes below its top segment
 * to the general path) at 100 B and at 2 GiB, among wide ones: every size around them, in
 * tables that take the fast path and tables that cannot (a 0.0 entry, 2 algorithms). */
static void test_crowded_buckets(void **state) {
  (void)state;
  char text[4096];
  size_t len = (size_t)snprintf(
    text, sizeof text, "%srule coll=allreduce bytes=0-99 algo=ring proto=ll channels=2\n", MAP4x4);
  uint64_t bases[] = {100, 1ull << 31};
  for (int b = 0; b < 2; b++)
    for (int j = 0; j < 8; j++) {
      unsigned long long at = bases[b] + (unsigned)j;
      len += (size_t)snprintf(
        text + len, sizeof text - len, "rule coll=allreduce bytes=%llu-%llu algo=%s proto=%s%s\n",
        at, at, j % 2 ? "ring" : "tree", j % 3 ? "simple" : "ll", j % 4 ? "" : " channels=5");
    }
  snprintf(text + len, sizeof text - len, "rule coll=allreduce algo=tree proto=simple\n");
  struct nn_config *cfg = nn_test_parse(text);
  struct nn_policy *p = nn_policy_compile(cfg, 4, 1);
  assert_non_null(p);
  int scope = nn_topology_scope(cfg, 4, 1);
  for (int b = 0; b < 2; b++)
    for (uint64_t v = bases[b] - 4; v < bases[b] + 12; v++)
      for (int kind = 0; kind < 3; kind++) {
        float t[NA * NP];
        int ch = 0;
        pcie_table(t);
        if (kind == 1) t[NN_ALGO_COLLNET_DIRECT * NP + NN_PROTO_LL] = 0.0f; /* after every choice */
        int want = naive(cfg, scope, 4, 1, NN_COLL_ALLREDUCE, v, t);
        int got = nn_policy_apply(p, NN_COLL_ALLREDUCE, v, 1, 0, t, kind == 2 ? 2 : NA, NP, &ch);
        assert_true(got >= 0);
        assert_int_equal(got, want);
        const struct nn_rule *r = &cfg->rules[got];
        assert_true(v >= r->bytes_lo && v <= r->bytes_hi);
        assert_true(t[r->algo * NP + r->proto] == 0.0f);
        assert_int_equal(ch, r->channels);
      }
  nn_policy_free(p);
  nn_config_free(cfg);
}

/* Every entry the policy changed now holds +0.0 or a small positive time (never a negative one,
 * which 2.31+ would take as the cheapest), and every negative entry is left bit for bit.
 * Returns the number of entries changed. */
static int check_no_negative_written(const float *before, const float *after, int n) {
  int changed = 0;
  for (int i = 0; i < n; i++) {
    if (!memcmp(&before[i], &after[i], sizeof *after)) continue;
    changed++;
    assert_false(signbit(after[i]));
    assert_true(after[i] >= 0.0f && after[i] < 1e-3f);
    assert_false(before[i] < 0.0f || isnan(before[i]));
  }
  return changed;
}

/* A table NCCL might hand over, or worse: negatives, NaN, +-0.0 and +inf among times. */
static void hostile_table(float *t, unsigned *seed) {
  static const float odd[] = {-1.0f,    -0.0f,     0.0f,   NAN,     -NAN,
                              INFINITY, -INFINITY, 1e-30f, -1e-30f, 3.0f};
  for (int i = 0; i < NA * NP; i++)
    t[i] = rand_r(seed) % 3 ? odd[rand_r(seed) % 10] : (float)(rand_r(seed) % 1000) / 7.0f;
}

/* The policy never writes a negative cost: for random rules, every release's own tables (its
 * cost model for an 8-GPU PCIe node, LL128 as the release has it, sizes 1 B - 4 GiB) and
 * hostile ones, through nn_policy_apply (fast and general paths). */
static void test_never_writes_negative(void **state) {
  (void)state;
  int n_rel, models = 0, decided = 0, written = 0;
  const struct nn_nccl_release *rels = nn_nccl_release_table(&n_rel);
  unsigned seed = 2026;
  for (int round = 0; round < 12; round++) {
    char text[16384];
    size_t len = (size_t)snprintf(text, sizeof text, "%s", MAP4x4);
    for (int k = 0; k < 24; k++)
      random_rule(text + len, sizeof text - len, &seed), len = strlen(text);
    struct nn_config *cfg = nn_test_parse(text);
    struct nn_policy *p = nn_policy_compile(cfg, 8, 1);
    assert_non_null(p);
    for (int r = 0; r < n_rel; r++) {
      struct nn_cost_comm c = cost_flat_comm(rels[r].first, 8, 90);
      struct nn_cost_model m;
      char err[256];
      assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
      models++;
      for (int coll = 0; coll < NN_COLL_COUNT; coll++)
        for (int e = 0; e <= 32; e++) {
          float t[NA * NP], before[NA * NP];
          if (e % 4 == 3) hostile_table(t, &seed);
          else nn_cost_table(&m, coll, (uint64_t)1 << e, t);
          memcpy(before, t, sizeof t);
          int ch = 0;
          decided += nn_policy_apply(p, coll, ((uint64_t)1 << e) + (uint64_t)(e % 3), 1, e & 1, t,
                                     NA, NP, &ch) >= 0;
          written += check_no_negative_written(before, t, NA * NP);
          assert_true(ch >= 0 && ch <= NN_MAX_CHANNELS);
        }
    }
    nn_policy_free(p);
    nn_config_free(cfg);
  }
  assert_int_equal(models, 12 * n_rel);
  assert_true(decided > 1000 && written > 1000); /* the rules did fire and write */
}

/* The reference for nn_policy_chunk: the first rule with chunk= that fits the shape and covers
 * the call, whose algo=/proto= (when given) are NCCL's selection; kept only at the protocol's
 * grain or above. */
static int naive_chunk(const struct nn_config *cfg, int scope, size_t ranks, int coll,
                       uint64_t bytes, int algo, int proto, uint64_t *chunk) {
  static const uint64_t grain[NP] = {16, 1920, 512};
  for (int i = 0; i < cfg->n_rules; i++) {
    const struct nn_rule *r = &cfg->rules[i];
    if (!r->chunk || (r->coll != NN_ANY && r->coll != coll) || bytes < r->bytes_lo ||
        bytes > r->bytes_hi)
      continue;
    if (ranks < r->ranks_lo || ranks > r->ranks_hi ||
        (r->scope != NN_SCOPE_ANY && r->scope != scope))
      continue;
    if ((r->algo >= 0 && r->algo != algo) || (r->proto >= 0 && r->proto != proto)) continue;
    if (r->chunk < grain[proto]) return -1;
    *chunk = r->chunk;
    return i;
  }
  return -1;
}

/* n random rules; with `chunks`, some get chunk= and chunk-only rules are mixed in; with `extra`,
 * choice-only rules (no chunk=) are mixed in. The rules common to every variant come from the
 * same seed, so variants differ only in what was added. */
static size_t random_rules(char *text, size_t size, unsigned seed, int n, int chunks, int extra) {
  static const char *sizes[] = {"16", "100", "1K", "2K", "64K", "512K", "1M"};
  unsigned add = seed * 7u + 1u;
  size_t len = (size_t)snprintf(text, size, "%s", MAP4x4);
  for (int k = 0; k < n; k++) {
    char line[256];
    random_rule(line, sizeof line, &seed);
    line[strlen(line) - 1] = 0;
    unsigned r = (unsigned)rand_r(&add);
    if (extra && r % 4 == 0)
      len += (size_t)snprintf(text + len, size - len, "rule coll=any algo=ring channels=3\n");
    if (chunks && r % 5 == 1)
      len += (size_t)snprintf(text + len, size - len, "rule bytes=%u- chunk=%s\n", 1u << (r % 24),
                              sizes[r % 7]);
    len += (size_t)snprintf(text + len, size - len, "%s%s%s\n", line,
                            chunks && r % 3 == 2 ? " chunk=" : "",
                            chunks && r % 3 == 2 ? sizes[(r >> 3) % 7] : "");
  }
  return len;
}

/* A chunk rule never changes what getCollInfo does, and a choice rule never changes what
 * getChunkSize does; getChunkSize equals the reference scan. */
static void test_chunk_independent(void **state) {
  (void)state;
  int chunked = 0, compared = 0;
  for (unsigned round = 1; round <= 30; round++) {
    char a_text[16384], b_text[16384], c_text[16384];
    random_rules(a_text, sizeof a_text, round, 20, 0, 0);
    random_rules(b_text, sizeof b_text, round, 20, 1, 0);
    random_rules(c_text, sizeof c_text, round, 20, 1, 1);
    struct nn_config *a = nn_test_parse(a_text), *b = nn_test_parse(b_text),
                     *c = nn_test_parse(c_text);
    struct nn_policy *pa = nn_policy_compile(a, 8, 1), *pb = nn_policy_compile(b, 8, 1),
                     *pc = nn_policy_compile(c, 8, 1);
    assert_true(pa && pb && pc);
    assert_int_equal(nn_policy_chunk_mask(pa), 0);
    assert_int_equal(nn_policy_coll_mask(pa), nn_policy_coll_mask(pb));
    unsigned seed = round;
    for (int coll = 0; coll < NN_COLL_COUNT; coll++)
      for (int e = 0; e <= 32; e++) {
        uint64_t bytes = ((uint64_t)1 << e) + (uint64_t)(e % 3);
        float ta[NA * NP], tb[NA * NP];
        if (e % 2) hostile_table(ta, &seed);
        else pcie_table(ta);
        memcpy(tb, ta, sizeof ta);
        int cha = 0, chb = 0;
        nn_policy_apply(pa, coll, bytes, 1, 0, ta, NA, NP, &cha);
        nn_policy_apply(pb, coll, bytes, 1, 0, tb, NA, NP, &chb);
        assert_memory_equal(ta, tb, sizeof ta);
        assert_int_equal(cha, chb);
        for (int algo = 0; algo < 3; algo++)
          for (int proto = 0; proto < NP; proto++) {
            size_t kb = 7, kc = 7;
            uint64_t want = 0;
            int rb = nn_policy_chunk(pb, coll, bytes, algo, proto, &kb);
            int rc = nn_policy_chunk(pc, coll, bytes, algo, proto, &kc);
            assert_int_equal(
              rb, naive_chunk(b, nn_policy_scope(pb), 8, coll, bytes, algo, proto, &want));
            assert_true(rb >= 0 ? kb == want : kb == 7);
            assert_int_equal(rb >= 0, rc >= 0);
            assert_true(kb == kc);
            size_t ka = 7;
            assert_int_equal(nn_policy_chunk(pa, coll, bytes, algo, proto, &ka), -1);
            chunked += rb >= 0;
            compared++;
          }
      }
    nn_policy_free(pa);
    nn_policy_free(pb);
    nn_policy_free(pc);
    nn_config_free(a);
    nn_config_free(b);
    nn_config_free(c);
  }
  assert_true(chunked > 500 && compared > chunked); /* chunk rules did fire, and not everywhere */
}

static void test_empty_and_null(void **state) {
  (void)state;
  struct nn_policy *p = nn_policy_compile(NULL, 4, 1);
  assert_non_null(p);
  float t[NA * NP];
  pcie_table(t);
  int ch = 0;
  assert_int_equal(nn_policy_apply(p, NN_COLL_ALLREDUCE, 100, 1, 0, t, NA, NP, &ch), -1);
  assert_int_equal(nn_policy_apply(p, 99, 100, 1, 0, t, NA, NP, &ch), -1);
  assert_int_equal(nn_policy_apply(NULL, NN_COLL_ALLREDUCE, 100, 1, 0, t, NA, NP, &ch), -1);
  assert_int_equal(ch, 0);
  nn_policy_free(p);
  nn_policy_free(NULL);
}

/* Memory of a compiled policy stays under 64 KiB for 256 rules: the heap it holds, measured
 * by the allocator (mallinfo2) around the compile. */
static void test_memory_bound(void **state) {
  (void)state;
  unsigned seed = 99;
  size_t cap = 512 + 256 * 160;
  char *text = malloc(cap);
  size_t len = (size_t)snprintf(text, cap, "%s", MAP4x4);
  for (int i = 0; i < 256; i++) random_rule(text + len, cap - len, &seed), len = strlen(text);
  struct nn_config *cfg = nn_test_parse(text);
  /* Sanitizers' allocators keep no mallinfo counts: then only the compile is checked. */
  size_t probe = mallinfo2().uordblks;
  void *volatile x = malloc(4096); /* volatile: gcc drops an unused malloc/free pair */
  int counted = mallinfo2().uordblks > probe;
  free(x);
  size_t before = mallinfo2().uordblks;
  struct nn_policy *p = nn_policy_compile(cfg, 4, 1);
  size_t held = mallinfo2().uordblks - before;
  assert_non_null(p);
  if (counted) {
    fprintf(stderr, "256 rules: %zu bytes compiled\n", held);
    assert_true(held > 0 && held <= 64 * 1024);
  }
  nn_policy_free(p);
  nn_config_free(cfg);
  free(text);
}

/* Seeded layouts like the benchmark's random ones (narrow or wide ranges; clustered in two
 * octaves, spread, or dense within 64 KiB; gaps and overlaps; two collectives): at every rule's
 * edges and at powers of two, nn_policy_lookup and nn_policy_apply equal the reference scan, and
 * the queries reach every kind of record (no rule, split bucket, crowded bucket or sub-bucket). */
#define LAYOUT_RULES 600
static void layout_rules(char *text, size_t cap, unsigned *seed, int narrow, int clustered,
                         uint64_t *lo, uint64_t *hi) {
  size_t len = (size_t)snprintf(text, cap, "%s", MAP4x4);
  unsigned center = 6 + (unsigned)(rand_r(seed) % 24);
  for (int i = 0; i < LAYOUT_RULES; i++) {
    unsigned e = clustered ? center + (unsigned)(rand_r(seed) % 2) : (unsigned)(rand_r(seed) % 34);
    uint64_t base = (uint64_t)1 << e, span = base;
    /* Dense: every start within 64 KiB of 1 GiB, more boundaries than any bucket or
     * sub-bucket there can step over, so crowded records are reached. */
    if (clustered == 2) base = (uint64_t)1 << 30, span = 65536;
    lo[i] = base + ((uint64_t)rand_r(seed) << 31 ^ (uint64_t)rand_r(seed)) % span;
    uint64_t width =
      narrow ? 1 + (uint64_t)(rand_r(seed) % 64) : (uint64_t)1 << (rand_r(seed) % (e + 1));
    hi[i] = lo[i] + width - 1;
    len += (size_t)snprintf(
      text + len, cap - len, "rule coll=%s bytes=%llu-%llu algo=%s proto=%s%s\n",
      i % 2 ? "allreduce" : "allgather", (unsigned long long)lo[i], (unsigned long long)hi[i],
      i % 3 ? "ring" : "tree", i % 4 ? "simple" : "ll", i % 5 ? "" : " channels=3");
  }
}

/* The kinds of record the fast lookup of v reaches, as bits: 1 no rule, 2 a split bucket, 4 a
 * crowded bucket or sub-bucket. */
static unsigned record_kinds(const struct nn_policy *p, int coll, uint64_t v) {
  const struct nn_segs *s = &nn_policy_hot_of(p)->coll[coll];
  const struct nn_seg *g = nn_policy_segment_fast(s, v);
  unsigned kinds = 0;
  if (g->entry == NN_SEG_SPLIT) kinds |= 2, g = nn_policy_split(s, g, v);
  return kinds | (g->entry == NN_SEG_NONE) | (g->entry == NN_SEG_CROWDED) << 2;
}

static void check_layout_query(const struct nn_config *cfg, const struct nn_policy *p, int scope,
                               int coll, uint64_t v) {
  float t[NA * NP], before[NA * NP];
  int ch = 0;
  pcie_table(t);
  memcpy(before, t, sizeof t);
  int want = naive(cfg, scope, 4, 1, coll, v, t);
  assert_int_equal(nn_policy_lookup(p, coll, v, 1, 0, t, NA, NP), want);
  assert_int_equal(nn_policy_apply(p, coll, v, 1, 0, t, NA, NP, &ch), want);
  if (want < 0) {
    assert_memory_equal(t, before, sizeof t);
    return;
  }
  const struct nn_rule *r = &cfg->rules[want];
  before[r->algo * NP + r->proto] = 0.0f;
  assert_memory_equal(t, before, sizeof t);
  assert_int_equal(ch, r->channels);
}

static void test_random_layouts(void **state) {
  (void)state;
  unsigned seed = 2025, seen = 0;
  size_t cap = 512 + LAYOUT_RULES * 120;
  char *text = malloc(cap);
  uint64_t *lo = malloc(LAYOUT_RULES * sizeof *lo), *hi = malloc(LAYOUT_RULES * sizeof *hi);
  assert_true(text && lo && hi);
  for (int round = 0; round < 12; round++) {
    layout_rules(text, cap, &seed, round % 2, round / 2 % 3, lo, hi);
    struct nn_config *cfg = nn_test_parse(text);
    struct nn_policy *p = nn_policy_compile(cfg, 4, 1);
    assert_non_null(p);
    int scope = nn_topology_scope(cfg, 4, 1);
    for (int i = 0; i < LAYOUT_RULES; i++) {
      int coll = i % 2 ? NN_COLL_ALLREDUCE : NN_COLL_ALLGATHER;
      uint64_t edges[4] = {lo[i] - 1, lo[i], hi[i], hi[i] + 1};
      for (int k = 0; k < 4; k++) {
        check_layout_query(cfg, p, scope, coll, edges[k]);
        seen |= record_kinds(p, coll, edges[k]);
      }
    }
    for (unsigned e = 0; e < 64; e++)
      check_layout_query(cfg, p, scope, NN_COLL_ALLREDUCE, (uint64_t)1 << e);
    nn_policy_free(p);
    nn_config_free(cfg);
  }
  assert_int_equal(seen & 7, 7);
  free(text);
  free(lo);
  free(hi);
}

static void test_format_bytes(void **state) {
  (void)state;
  char b[32];
  nn_policy_format_bytes(0, b, sizeof b);
  assert_string_equal(b, "0");
  nn_policy_format_bytes(65536, b, sizeof b);
  assert_string_equal(b, "64K");
  nn_policy_format_bytes(65537, b, sizeof b);
  assert_string_equal(b, "65537");
  nn_policy_format_bytes(4ULL << 30, b, sizeof b);
  assert_string_equal(b, "4G");
  nn_policy_format_bytes(UINT64_MAX, b, sizeof b);
  assert_string_equal(b, "max");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_matches_naive_scan),    cmocka_unit_test(test_apply_semantics),
    cmocka_unit_test(test_crowded_buckets),       cmocka_unit_test(test_random_layouts),
    cmocka_unit_test(test_never_writes_negative), cmocka_unit_test(test_chunk_independent),
    cmocka_unit_test(test_empty_and_null),        cmocka_unit_test(test_memory_bound),
    cmocka_unit_test(test_format_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
