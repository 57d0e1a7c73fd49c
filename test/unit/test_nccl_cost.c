/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccl_cost.c - NCCL's cost model and choice against NCCL's own code.
 *
 * test/fixtures/nccl-cost/oracle-facts.txt holds what NCCL's tuning code (2.28.9, 2.30.7,
 * the 2.31.0 development branch; run on the CPU by ../shared/tools/nccl-oracle, written by
 * test/cost/oracle_facts.py) computed for each case: the graphs its cost model read (our
 * inputs), its choice and the modelled time of every Tree/Ring x protocol pair (expected
 * values). Every line is replayed: the same choice, every time within 1%. */
#include "cost_fixture.h"
#include "nn_test.h"

#include <math.h>

#include "nccl_cost.h"
#include "numparse.h"

#define FACTS "test/fixtures/nccl-cost/oracle-facts.txt"
/* the same for one socket's GPUs: the file nccl-numa serves and NCCL's own view (test_visible.c) */
#define VISIBLE_FACTS "test/fixtures/nccl-cost/visible-facts.txt"
#define JOB_FACTS "test/fixtures/nccl-cost/job-facts.txt"

static int coll_index(const char *s) {
  static const char *names[] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
  for (int i = 0; i < 5; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

static int algo_index(const char *s) {
  return !strcmp(s, "Tree") ? NN_ALGO_TREE : !strcmp(s, "Ring") ? NN_ALGO_RING : -1;
}

static int proto_index(const char *s) {
  return !strcmp(s, "LL")       ? NN_PROTO_LL
         : !strcmp(s, "LL128")  ? NN_PROTO_LL128
         : !strcmp(s, "Simple") ? NN_PROTO_SIMPLE
                                : -1;
}

/* Splits a line (modified) at blanks and commas; returns the field count. */
static int fields(char *line, char **f, int max) {
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(line, " ,\t", &save); t && n < max; t = strtok_r(NULL, " ,\t", &save))
    f[n++] = t;
  return n;
}

static int int_field(const char *s) {
  int v;
  if (nn_int_parse(s, -1000000, 1000000, &v)) fail_msg("not an integer: '%s'", s);
  return v;
}

static double num_field(const char *s) {
  double v;
  if (nn_double_parse(s, &v)) fail_msg("not a number: '%s'", s);
  return v;
}

static void parse_graph(const char *line, const char *tag, struct nn_cost_graph *g) {
  char buf[256], *f[8];
  size_t len = strcspn(line, "\n");
  assert_true(len < sizeof buf);
  memcpy(buf, line, len);
  buf[len] = 0;
  if (fields(buf, f, 8) != 8) fail_msg("not a %s line: %s", tag, line);
  assert_string_equal(f[0], tag);
  g->nchannels = int_field(f[1]);
  g->bw_intra = (float)num_field(f[2]);
  g->bw_inter = (float)num_field(f[3]);
  g->type_intra = int_field(f[4]);
  g->type_inter = int_field(f[5]);
  g->same_channels = int_field(f[6]);
  g->pattern = int_field(f[7]);
}

struct stats {
  int cases, rows, pairs;
  double worst;
  char worst_where[300];
};

static void check_time(struct stats *st, const char *where, float mine, double want) {
  if (want < 0) {
    if (mine >= 0) fail_msg("%s: NCCL has no such candidate, the model gives %.2f us", where, mine);
    return;
  }
  if (!(mine > 0)) fail_msg("%s: NCCL models %.2f us, the model has no candidate", where, want);
  double d = fabs(mine - want) / want;
  /* NCCL's times are printed to 0.01 us: allow that rounding besides the 1%. */
  if (d > 0.01 && fabs(mine - want) > 0.006)
    fail_msg("%s: %.3f us, NCCL %.2f us (%.2f%%)", where, mine, want, 100 * d);
  if (d > st->worst) {
    st->worst = d;
    snprintf(st->worst_where, sizeof st->worst_where, "%s", where);
  }
  st->pairs++;
}

static void check_row(struct stats *st, const struct nn_cost_model *m, const char *name,
                      const char *line) {
  /* name: at most 127 characters (replay_case) */
  char buf[256], *f[12];
  snprintf(buf, sizeof buf, "%s", line);
  if (fields(buf, f, 12) != 10) fail_msg("not a choice line: %s", line);
  const char *coll = f[0], *algo = f[2], *proto = f[3];
  uint64_t bytes;
  assert_int_equal(nn_u64_parse(f[1], 0, UINT64_MAX, &bytes), 0);
  double t = num_field(f[4]), want[5];
  for (int i = 0; i < 5; i++) want[i] = num_field(f[5 + i]);
  int c = coll_index(coll);
  assert_true(c >= 0);
  struct nn_cost_choice ch;
  assert_int_equal(nn_cost_choose(m, c, bytes, &ch), 0);
  char where[256];
  snprintf(where, sizeof where, "%.100s %.31s %llu B", name, coll, (unsigned long long)bytes);
  if (ch.algo != algo_index(algo) || ch.proto != proto_index(proto))
    fail_msg("%s: NCCL picks %s/%s, the model %s/%s", where, algo, proto, nn_algo_name(ch.algo),
             nn_proto_name(ch.proto));
  check_time(st, where, ch.time_us, t);
  static const int pairs[5][2] = {{NN_ALGO_TREE, NN_PROTO_LL},
                                  {NN_ALGO_TREE, NN_PROTO_SIMPLE},
                                  {NN_ALGO_RING, NN_PROTO_LL},
                                  {NN_ALGO_RING, NN_PROTO_LL128},
                                  {NN_ALGO_RING, NN_PROTO_SIMPLE}};
  for (int i = 0; i < 5; i++) {
    char w2[300];
    snprintf(w2, sizeof w2, "%s %s/%s", where, nn_algo_name(pairs[i][0]),
             nn_proto_name(pairs[i][1]));
    check_time(st, w2, nn_cost_time(m, c, pairs[i][0], pairs[i][1], bytes), want[i]);
  }
  st->rows++;
}

/* One "case" block: header, ring, tree, then choice rows until the next case. */
static char *replay_case(struct stats *st, char *line) {
  char head[256], *f[8];
  size_t hl = strcspn(line, "\n");
  assert_true(hl < sizeof head);
  memcpy(head, line, hl);
  head[hl] = 0;
  if (fields(head, f, 8) != 7) fail_msg("not a case line: %s", head);
  assert_string_equal(f[0], "case");
  const char *name = f[1], *rel = f[2];
  int ranks = int_field(f[3]), sm = int_field(f[4]), vendor = int_field(f[5]);
  double pci = num_field(f[6]);
  char *dot1 = strchr(rel, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
  assert_non_null(dot2);
  int maj, min, pat;
  assert_int_equal(nn_int_parse_prefix(rel, 0, 99, &maj, NULL), 0);
  assert_int_equal(nn_int_parse_prefix(dot1 + 1, 0, 99, &min, NULL), 0);
  assert_int_equal(nn_int_parse(dot2 + 1, 0, 99, &pat), 0);
  struct nn_cost_comm c = {.version_code = maj * 10000 + min * 100 + pat,
                           .nranks = ranks,
                           .nnodes = 1,
                           .cc_min = sm,
                           .cc_max = sm,
                           .pci_latency_us = pci,
                           .ll128 = NN_COST_LL128_RULE,
                           .cpu = vendor == 1 ? NN_COST_CPU_X86_AMD : NN_COST_CPU_X86_INTEL};
  char *next = strchr(line, '\n');
  assert_non_null(next);
  parse_graph(++next, "ring", &c.ring);
  next = strchr(next, '\n');
  assert_non_null(next);
  parse_graph(++next, "tree", &c.tree);
  struct nn_cost_model m;
  char err[256] = "";
  if (nn_cost_model_init(&c, &m, err, sizeof err)) fail_msg("%s: %s", name, err);
  char full[128];
  snprintf(full, sizeof full, "%s %s%s", rel, name, pci > 0 ? " pci-latency" : "");
  for (next = strchr(next, '\n'); next && next[1] && strncmp(next + 1, "case ", 5);
       next = strchr(next + 1, '\n')) {
    char row[256];
    size_t len = strcspn(next + 1, "\n");
    assert_true(len < sizeof row);
    memcpy(row, next + 1, len);
    row[len] = 0;
    check_row(st, &m, full, row);
  }
  st->cases++;
  return next ? next + 1 : NULL;
}

static void oracle_facts(void **state) {
  (void)state;
  size_t len;
  char *text = nn_test_slurp(FACTS, &len);
  struct stats st = {0};
  char *p = strstr(text, "\ncase ");
  while (p && *p) p = replay_case(&st, *p == '\n' ? p + 1 : p);
  /* The file covers three releases and many shapes: make sure they were all replayed. */
  assert_true(st.cases >= 60);
  /* the oracle's collectives: allreduce, allgather, reducescatter, broadcast; 6 sizes */
  assert_true(st.rows >= 24 * st.cases);
  printf("replayed %d cases, %d choices, %d modelled times; largest difference %.3f%% (%s)\n",
         st.cases, st.rows, st.pairs, 100 * st.worst, st.worst_where);
  free(text);
}

static void visible_facts(void **state) {
  (void)state;
  size_t len;
  char *text = nn_test_slurp(VISIBLE_FACTS, &len);
  struct stats st = {0};
  char *p = strstr(text, "\ncase ");
  while (p && *p) p = replay_case(&st, *p == '\n' ? p + 1 : p);
  assert_int_equal(st.cases, 72); /* 3 releases x 6 subsets x 2 GPU kinds x served/own */
  assert_true(st.rows >= 24 * st.cases);
  printf("replayed %d one-socket cases, %d choices; largest difference %.3f%% (%s)\n", st.cases,
         st.rows, 100 * st.worst, st.worst_where);
  free(text);
}

/* The reference guest's jobs on the NUMA file, the flat file and NCCL's own view (job-facts.txt).
 */
static void job_facts(void **state) {
  (void)state;
  size_t len;
  char *text = nn_test_slurp(JOB_FACTS, &len);
  struct stats st = {0};
  char *p = strstr(text, "\ncase ");
  while (p && *p) p = replay_case(&st, *p == '\n' ? p + 1 : p);
  assert_int_equal(st.cases, 36); /* 3 releases x 4 jobs x 3 files */
  assert_true(st.rows >= 24 * st.cases);
  printf("replayed %d job cases, %d choices; largest difference %.3f%% (%s)\n", st.cases, st.rows,
         100 * st.worst, st.worst_where);
  free(text);
}

/* 8 GPUs, NCCL's flat view, PCIe gen5 x16, compute capability 9.0, NCCL 2.28.9: the search
 * gives 2 channels x 24 GB/s for ring and tree (oracle). Issue 15's figures. */
static struct nn_cost_comm flat8(int version) { return cost_flat_comm(version, 8, 90); }

static void expect(const struct nn_cost_model *m, int coll, uint64_t b, int algo, int proto,
                   double us) {
  struct nn_cost_choice ch;
  assert_int_equal(nn_cost_choose(m, coll, b, &ch), 0);
  assert_int_equal(ch.algo, algo);
  assert_int_equal(ch.proto, proto);
  assert_true(fabs(ch.time_us - us) < 0.01 * us);
}

static void issue_figures(void **state) {
  (void)state;
  struct nn_cost_comm c = flat8(22809);
  struct nn_cost_model m;
  char err[128];
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  expect(&m, NN_COLL_ALLREDUCE, 8192, NN_ALGO_RING, NN_PROTO_LL, 21.20);
  expect(&m, NN_COLL_ALLREDUCE, 65536, NN_ALGO_RING, NN_PROTO_LL, 25.38);
  expect(&m, NN_COLL_ALLREDUCE, 1 << 20, NN_ALGO_RING, NN_PROTO_LL, 97.06);
  expect(&m, NN_COLL_ALLREDUCE, 64 << 20, NN_ALGO_RING, NN_PROTO_SIMPLE, 2534.88);
  /* LL128 is not a candidate between PCIe-only GPUs on 2.28 */
  assert_true(nn_cost_time(&m, NN_COLL_ALLREDUCE, NN_ALGO_RING, NN_PROTO_LL128, 1 << 20) < 0);
  assert_int_equal(m.ll128_enabled, 0);
  /* pci-latency-us 13 (the reference machine's host-memory hop): 189 us at 8 KB, and 64 KB .. 1 MB
   * move to Simple */
  c.pci_latency_us = 13;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_int_equal(m.pci_latency_applied, 1);
  expect(&m, NN_COLL_ALLREDUCE, 8192, NN_ALGO_RING, NN_PROTO_LL, 189.1);
  struct nn_cost_choice ch;
  assert_int_equal(nn_cost_choose(&m, NN_COLL_ALLREDUCE, 1 << 20, &ch), 0);
  assert_int_equal(ch.proto, NN_PROTO_SIMPLE);
}

/* Releases: 2.31.x discards a tuner's constants; the dev branch's 2.31.0 enables LL128 on
 * PCIe, the released 2.31.2 does not. */
static void releases(void **state) {
  (void)state;
  struct nn_cost_comm c = flat8(23100);
  c.pci_latency_us = 13;
  struct nn_cost_model m;
  char err[128];
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_int_equal(m.pci_latency_applied, 0);
  assert_int_equal(m.ll128_enabled, 1);
  expect(&m, NN_COLL_ALLREDUCE, 8192, NN_ALGO_RING, NN_PROTO_LL, 21.20);
  c.version_code = 23102;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_int_equal(m.ll128_enabled, 0);
  assert_int_equal(m.pci_latency_applied, 0);
  c.version_code = 23203;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_int_equal(m.pci_latency_applied, 1);
  c.version_code = 22703; /* tuner v4: no constants handed to a tuner */
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_int_equal(m.pci_latency_applied, 0);
  /* the caller can say what the release really enables */
  c.version_code = 22809;
  c.ll128 = 1;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_true(nn_cost_time(&m, NN_COLL_ALLREDUCE, NN_ALGO_RING, NN_PROTO_LL128, 1 << 20) > 0);
}

/* A `model pci-latency-us` applied to a finished model equals NCCL computing with it. */
static void set_pci_latency(void **state) {
  (void)state;
  char err[128];
  for (int same = 0; same < 2; same++) {
    struct nn_cost_comm c = flat8(22809);
    c.ring.same_channels = same;
    struct nn_cost_model a, b;
    assert_int_equal(nn_cost_model_init(&c, &a, err, sizeof err), 0);
    c.pci_latency_us = 13;
    assert_int_equal(nn_cost_model_init(&c, &b, err, sizeof err), 0);
    assert_int_equal(nn_cost_model_set_pci_latency(&a, 13), 0);
    int compared = 0;
    for (int coll = 0; coll < NN_COLL_COUNT; coll++)
      for (int al = 0; al < NN_ALGO_COUNT; al++)
        for (int p = 0; p < NN_PROTO_COUNT; p++)
          for (int e = 0; e <= 30; e += 5) {
            float x = nn_cost_time(&a, coll, al, p, (uint64_t)1 << e),
                  y = nn_cost_time(&b, coll, al, p, (uint64_t)1 << e);
            assert_true(fabs((double)x - (double)y) <= 1e-3 * fabs((double)y) + 1e-3);
            compared += y > 0;
          }
    assert_int_equal(compared, 12 * 7); /* 12 candidate pairs, 7 sizes */
  }
  struct nn_cost_comm c = flat8(22809);
  c.nnodes = 2;
  struct nn_cost_model m;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_int_equal(nn_cost_model_set_pci_latency(&m, 13), -1);
}

static void bad_input(void **state) {
  (void)state;
  struct nn_cost_comm c = flat8(22809);
  struct nn_cost_model m;
  char err[160];
  c.nranks = 1;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), -1);
  assert_non_null(strstr(err, "rank"));
  c = flat8(22809);
  c.nnodes = 3;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), -1);
  assert_non_null(strstr(err, "multiple"));
  c = flat8(22809);
  c.tree.nchannels = 0;
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), -1);
  assert_non_null(strstr(err, "tree"));
  c = flat8(22809);
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  assert_true(nn_cost_time(&m, NN_COLL_ALLGATHER, NN_ALGO_TREE, NN_PROTO_LL, 4096) < 0);
  assert_true(nn_cost_time(&m, 9, NN_ALGO_RING, NN_PROTO_LL, 4096) < 0);
  assert_true(nn_cost_time(&m, NN_COLL_ALLREDUCE, NN_ALGO_NVLS, NN_PROTO_SIMPLE, 4096) < 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(oracle_facts), cmocka_unit_test(visible_facts),
    cmocka_unit_test(job_facts),    cmocka_unit_test(issue_figures),
    cmocka_unit_test(releases),     cmocka_unit_test(set_pci_latency),
    cmocka_unit_test(bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
