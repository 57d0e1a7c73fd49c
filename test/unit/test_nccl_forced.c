/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccl_forced.c - NCCL_ALGO / NCCL_PROTO parsed as NCCL's parseList does (src/graph/tuning.cc
 * v2.30.7-1, src/tuning/cost_model.cc dev), where they come from, and the rules they block. */
#include "nn_config.h"
#include "nn_test.h"

#include "nccl_forced.h"

#define NA NN_ALGO_COUNT
#define NP NN_PROTO_COUNT

/* "Tree,Ring" style listing of the enabled entries of collective c, for compact asserts. */
static void enabled(const unsigned char *on, int n, int c, const char *const *names, char *buf,
                    size_t size) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < n; i++)
    if (on[c * n + i])
      used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "", names[i]);
}

static const char *const A[NA] = {"tree", "ring", "cd", "cc", "nvls", "nvlstree", "pat"};
static const char *const P[NP] = {"ll", "ll128", "simple"};

static void expect_algos(const char *value, int coll, const char *want) {
  unsigned char on[NN_COLL_COUNT * NA];
  char got[128];
  assert_int_equal(nn_forced_parse(value, NN_FORCED_ALGO, on), 0);
  enabled(on, NA, coll, A, got, sizeof got);
  assert_string_equal(got, want);
}

static void test_parse_algo(void **state) {
  (void)state;
  for (int c = 0; c < NN_COLL_COUNT; c++) {
    expect_algos("ring", c, "ring");
    expect_algos("RING,Tree", c, "tree,ring");
    expect_algos("^tree", c, "ring,cd,cc,nvls,nvlstree,pat");
    expect_algos("^", c, "tree,ring,cd,cc,nvls,nvlstree,pat");
  }
  expect_algos("allreduce:tree", NN_COLL_ALLREDUCE, "tree");
  expect_algos("allreduce:tree", NN_COLL_ALLGATHER, "tree,ring,cd,cc,nvls,nvlstree,pat");
  expect_algos("ring;AllReduce:tree,ring", NN_COLL_ALLREDUCE, "tree,ring");
  expect_algos("ring;allreduce:tree,ring", NN_COLL_BROADCAST, "ring");
  expect_algos("ring;reducescatter:^ring", NN_COLL_REDUCESCATTER, "tree,cd,cc,nvls,nvlstree,pat");
  unsigned char on[NN_COLL_COUNT * NA];
  assert_int_equal(nn_forced_parse(";;ring", NN_FORCED_ALGO, on),
                   -1); /* first entry not at the start */
  assert_int_equal(nn_forced_parse("allreduce:tree;ring", NN_FORCED_ALGO, on),
                   -1); /* later entry, no prefix */
  assert_int_equal(nn_forced_parse("bogus", NN_FORCED_ALGO, on), -1);
  assert_int_equal(nn_forced_parse("all_reduce:ring", NN_FORCED_ALGO, on),
                   -1); /* NCCL's names only */
  assert_int_equal(nn_forced_parse("ll", NN_FORCED_ALGO, on), -1);
  assert_int_equal(nn_forced_parse("::", NN_FORCED_ALGO, on), -1); /* no list at all */
  assert_int_equal(nn_forced_parse("ring;:", NN_FORCED_ALGO, on), -1);
  for (int i = 0; i < NN_COLL_COUNT * NA; i++)
    assert_int_equal(on[i], 1); /* rejected: everything on */
}

static void test_parse_proto(void **state) {
  (void)state;
  unsigned char on[NN_COLL_COUNT * NP];
  char got[64];
  /* NCCL's own example: everything but LL128, but only LL128 for allreduce */
  assert_int_equal(nn_forced_parse("^LL128;allreduce:LL128", NN_FORCED_PROTO, on), 0);
  enabled(on, NP, NN_COLL_ALLGATHER, P, got, sizeof got);
  assert_string_equal(got, "ll,simple");
  enabled(on, NP, NN_COLL_ALLREDUCE, P, got, sizeof got);
  assert_string_equal(got, "ll128");
  assert_int_equal(nn_forced_parse("simple", NN_FORCED_PROTO, on), 0);
  enabled(on, NP, NN_COLL_REDUCE, P, got, sizeof got);
  assert_string_equal(got, "simple");
  assert_int_equal(nn_forced_parse("ring", NN_FORCED_PROTO, on), -1);
}

static const char *RULES = "env NCCL_PROTO=^ll\n"
                           "rule coll=allreduce bytes=0-64K algo=tree proto=ll\n"
                           "rule coll=allreduce bytes=64K- algo=ring\n"
                           "rule coll=allgather proto=simple channels=2\n"
                           "rule channels=4\n"
                           "rule algo=tree\n";

static void test_read_and_blocks(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(RULES);
  struct nn_forced f;
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_PROTO");
  nn_forced_read(cfg, &f);
  /* the env line sets NCCL_PROTO; NCCL_ALGO is unset */
  assert_true(nn_forced_any(&f));
  assert_null(f.value[NN_FORCED_ALGO]);
  assert_string_equal(f.value[NN_FORCED_PROTO], "^ll");
  assert_int_equal(f.env_line[NN_FORCED_PROTO], 1);
  assert_int_equal(f.restricted[NN_FORCED_PROTO], (1u << NN_COLL_COUNT) - 1);
  assert_int_equal(f.restricted[NN_FORCED_ALGO], 0);
  assert_int_equal(nn_forced_blocks(&f, &cfg->rules[0], NN_COLL_ALLREDUCE), 1u << NN_FORCED_PROTO);
  assert_int_equal(nn_forced_blocks(&f, &cfg->rules[1], NN_COLL_ALLREDUCE), 0);
  char text[512];
  assert_int_equal(nn_forced_describe(cfg, &f, NN_FORCED_PROTO, text, sizeof text), 1);
  assert_string_equal(
    text,
    "NCCL_PROTO=^ll (from t.conf:1's env line) decides before any tuner for broadcast, reduce, "
    "allgather, reducescatter, allreduce: 1 rule choosing what it leaves out cannot fire there "
    "(first t.conf:2)");

  /* the real environment wins over the env line, as in the env plugin */
  setenv("NCCL_PROTO", "ll", 1);
  setenv("NCCL_ALGO", "ring;allreduce:ring,tree", 1);
  nn_forced_read(cfg, &f);
  assert_string_equal(f.value[NN_FORCED_PROTO], "ll");
  assert_int_equal(f.env_line[NN_FORCED_PROTO], 0);
  assert_int_equal(nn_forced_blocks(&f, &cfg->rules[0], NN_COLL_ALLREDUCE),
                   0); /* tree/ll: allowed */
  assert_int_equal(nn_forced_blocks(&f, &cfg->rules[2], NN_COLL_ALLGATHER), 1u << NN_FORCED_PROTO);
  assert_int_equal(nn_forced_blocks(&f, &cfg->rules[3], NN_COLL_ALLGATHER), 0); /* channels only */
  assert_int_equal(nn_forced_blocks(&f, &cfg->rules[4], NN_COLL_ALLGATHER), 1u << NN_FORCED_ALGO);
  assert_int_equal(nn_forced_blocks(&f, &cfg->rules[4], NN_COLL_ALLREDUCE), 0);
  assert_int_equal(nn_forced_describe(cfg, &f, NN_FORCED_ALGO, text, sizeof text), 1);
  assert_string_equal(
    text,
    "NCCL_ALGO=ring;allreduce:ring,tree (from the environment) decides before any tuner for "
    "broadcast, reduce, allgather, reducescatter, allreduce: 1 rule choosing what it leaves out "
    "cannot fire there (first t.conf:6)");
  assert_int_equal(nn_forced_describe(cfg, &f, NN_FORCED_PROTO, text, sizeof text),
                   1); /* allgather/simple */

  /* empty counts as unset; a value NCCL rejects says so */
  setenv("NCCL_ALGO", "", 1);
  setenv("NCCL_PROTO", "fast", 1);
  nn_forced_read(NULL, &f);
  assert_null(f.value[NN_FORCED_ALGO]);
  assert_int_equal(f.invalid[NN_FORCED_PROTO], 1);
  assert_int_equal(nn_forced_describe(NULL, &f, NN_FORCED_PROTO, text, sizeof text), 0);
  assert_string_equal(text, "NCCL_PROTO=fast (from the environment) is a value NCCL rejects: its "
                            "communicator init fails");
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_PROTO");
  nn_forced_read(NULL, &f);
  assert_false(nn_forced_any(&f));
  nn_config_free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse_algo),
    cmocka_unit_test(test_parse_proto),
    cmocka_unit_test(test_read_and_blocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
