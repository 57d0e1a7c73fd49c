/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_names.c - the mapping parser, config_names.c: bus ids, the names of collectives,
 * algorithms, protocols, scopes and modes, diagnostics. */
#include "config_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

static void test_busid(void **state) {
  (void)state;
  static const struct {
    const char *in, *out;
  } good[] = {{"01:00.0", "0000:01:00.0"},          {"0000:01:00.0", "0000:01:00.0"},
              {"00000000:01:00.0", "0000:01:00.0"}, {"0:ff:1f.7", "0000:ff:1f.7"},
              {"FFFF:AB:0C.3", "ffff:ab:0c.3"},     {"0000ffff:00:00.0", "ffff:00:00.0"}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    struct nn_busid b;
    char s[16];
    assert_int_equal(nn_busid_parse(good[i].in, &b), 0);
    nn_busid_format(&b, s, sizeof s);
    assert_string_equal(s, good[i].out);
  }
  static const char *bad[] = {"",
                              "01",
                              "01:00",
                              "1:00.0",
                              "001:00.0",
                              "01:0.0",
                              "01:20.0",
                              "01:00.8",
                              "01:00.00",
                              "10000:01:00.0",
                              "123456789:01:00.0",
                              ":01:00.0",
                              "0000:01:00.0:",
                              "01:00.0.",
                              "g1:00.0",
                              "01:00.-",
                              "0000:01:00.0x",
                              " 01:00.0",
                              "0000:01:00:00.0",
                              "01.00.0",
                              "01:00.a"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct nn_busid b;
    if (nn_busid_parse(bad[i], &b) != -1) print_error("accepted '%s'\n", bad[i]);
    assert_int_equal(nn_busid_parse(bad[i], &b), -1);
  }
  assert_int_equal(nn_busid_parse(NULL, NULL), -1);
  char small[5];
  struct nn_busid b = {0x12, 3, 4, 5};
  nn_busid_format(&b, small, sizeof small);
  assert_string_equal(small, "0012");
}

static void test_names(void **state) {
  (void)state;
  static const char *colls[] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
  for (int i = 0; i < NN_COLL_COUNT; i++) {
    assert_string_equal(nn_coll_name(i), colls[i]);
    assert_int_equal(nn_coll_from_name(colls[i]), i);
  }
  static const char *algos[] = {"tree",      "ring", "collnet_direct", "collnet_chain", "nvls",
                                "nvls_tree", "pat"};
  for (int i = 0; i < NN_ALGO_COUNT; i++) {
    assert_string_equal(nn_algo_name(i), algos[i]);
    assert_int_equal(nn_algo_from_name(algos[i]), i);
  }
  static const char *protos[] = {"ll", "ll128", "simple"};
  for (int i = 0; i < NN_PROTO_COUNT; i++) {
    assert_string_equal(nn_proto_name(i), protos[i]);
    assert_int_equal(nn_proto_from_name(protos[i]), i);
  }
  assert_string_equal(nn_scope_name(NN_SCOPE_ANY), "any");
  assert_string_equal(nn_scope_name(NN_SCOPE_INTRA), "intra");
  assert_string_equal(nn_scope_name(NN_SCOPE_CROSS), "cross");
  assert_string_equal(nn_scope_name(NN_SCOPE_UNKNOWN), "unknown");
  assert_int_equal(nn_scope_from_name("CROSS"), NN_SCOPE_CROSS);
  assert_int_equal(nn_scope_from_name("unknown"), -2);
  assert_string_equal(nn_topo_mode_name(NN_TOPO_OFF), "off");
  assert_int_equal(nn_topo_mode_from_name("Auto"), NN_TOPO_AUTO);
  assert_int_equal(nn_topo_mode_from_name("x"), -2);
  assert_int_equal(nn_coll_from_name("ANY"), NN_ANY);
  assert_string_equal(nn_coll_name(NN_ANY), "any");
  assert_int_equal(nn_coll_from_name("AllReduce"), NN_COLL_ALLREDUCE);
  assert_int_equal(nn_coll_from_name("all"), -2);
  assert_int_equal(nn_algo_from_name("any"), -2);
  assert_int_equal(nn_proto_from_name(NULL), -2);
  assert_string_equal(nn_algo_name(99), "?");
  assert_string_equal(nn_proto_name(-5), "?");
}

static void test_diag(void **state) {
  (void)state;
  struct nn_diag d = {0};
  nn_diag_add(&d, "%s:%d: %s", "f", 3, "x");
  assert_int_equal(d.n, 1);
  assert_string_equal(d.msgs[0], "f:3: x");
  for (int i = 0; i < 150; i++) nn_diag_add(&d, "m%d", i);
  assert_int_equal(d.n, 100);
  assert_int_equal(d.dropped, 51);
  nn_diag_clear(&d);
  nn_diag_clear(&d);
  nn_diag_clear(NULL);
  nn_diag_add(NULL, "ignored");
}

/* NCCL's own spelling (ncclFuncStr, ncclAlgoStr, ncclProtoStr) and its one look-up, which
 * compares as NCCL's parseList does: without case, the whole name, the n bytes given. */
static void test_nccl_names(void **state) {
  (void)state;
  assert_string_equal(nn_nccl_name(NN_NAME_COLL, NN_COLL_REDUCESCATTER), "ReduceScatter");
  assert_string_equal(nn_nccl_name(NN_NAME_ALGO, NN_ALGO_COLLNET_DIRECT), "CollNetDirect");
  assert_string_equal(nn_nccl_name(NN_NAME_ALGO, NN_ALGO_NVLS_TREE), "NVLSTree");
  assert_string_equal(nn_nccl_name(NN_NAME_PROTO, NN_PROTO_LL128), "LL128");
  assert_string_equal(nn_nccl_name(NN_NAME_PROTO, NN_PROTO_COUNT), "?");
  assert_string_equal(nn_nccl_name(7, 0), "?");
  for (int kind = NN_NAME_COLL; kind <= NN_NAME_PROTO; kind++)
    for (int i = 0; strcmp(nn_nccl_name(kind, i), "?"); i++) {
      const char *name = nn_nccl_name(kind, i);
      assert_int_equal(nn_nccl_name_find(kind, name, strlen(name)), i);
    }
  assert_int_equal(nn_nccl_name_find(NN_NAME_PROTO, "ll128", 5), NN_PROTO_LL128);
  assert_int_equal(nn_nccl_name_find(NN_NAME_PROTO, "LL128,Simple", 2),
                   NN_PROTO_LL); /* the n bytes only */
  assert_int_equal(nn_nccl_name_find(NN_NAME_ALGO, "collnet_direct", 14),
                   -1); /* not NCCL's spelling */
  assert_int_equal(nn_nccl_name_find(NN_NAME_COLL, "allreduce", 9), NN_COLL_ALLREDUCE);
  assert_int_equal(nn_nccl_name_find(NN_NAME_COLL, NULL, 0), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_busid),
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_nccl_names),
    cmocka_unit_test(test_diag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
