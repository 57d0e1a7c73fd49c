/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bindfor.c - `exec --bind-for` (cli/common/bindfor.c): the engines' NUMA options from
 * the mapping's GPU -> node list, only where this OS has those nodes and the command does not
 * already bind. */
#include "sysfs_nodes.h"

#include "cli/common/bindfor.h"

static struct nn_config *four_gpus(void) {
  const char *t = "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 numa=0\ngpu 3 bus=04:00.0 numa=0\n";
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse("m.conf", t, strlen(t), NULL, &cfg, &d), 0);
  nn_diag_clear(&d);
  return cfg;
}

static void joined(const char **out, int n, char *buf, size_t size) {
  buf[0] = 0;
  for (int i = 0; i < n; i++) snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? " " : "", out[i]);
}

static void test_engines(void **state) {
  (void)state;
  assert_int_equal(nn_bind_engine_parse("sglang"), NN_BIND_SGLANG);
  assert_int_equal(nn_bind_engine_parse("vllm"), NN_BIND_VLLM);
  assert_int_equal(nn_bind_engine_parse("trt"), NN_BIND_NONE);
  char root[64], got[256], why[256], nodes[64];
  const char *cpus[] = {"0-7", "8-15"}, *out[NN_BIND_MAX_ARGS];
  nn_test_sysfs_nodes(root, cpus, 2);
  struct nn_config *cfg = four_gpus();
  char *sglang[] = {"python3", "-m", "sglang.launch_server", NULL};
  int n = nn_bind_args(cfg, NN_BIND_SGLANG, root, sglang, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-node 1 1 0 0");
  n = nn_bind_args(cfg, NN_BIND_VLLM, root, sglang, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-bind --numa-bind-nodes 1 1 0 0");
  assert_int_equal(nn_bind_applies(cfg, root, nodes, sizeof nodes), 1);
  assert_string_equal(nodes, "1 1 0 0");
  /* the command binds already: nothing added, and why */
  char *bound[] = {"python3", "-m", "sglang.launch_server", "--numa-node", "0", NULL};
  assert_int_equal(nn_bind_args(cfg, NN_BIND_SGLANG, root, bound, out, why, sizeof why), 0);
  assert_true(why[0] != 0);
  nn_test_sysfs_nodes_remove(root, 2);
  nn_config_free(cfg);
}

/* This OS lacks node 1 (a VM without guest NUMA): nothing added, the node named. */
static void test_missing_node(void **state) {
  (void)state;
  char root[64], why[256], nodes[64];
  const char *cpus[] = {"0-15"}, *out[NN_BIND_MAX_ARGS];
  nn_test_sysfs_nodes(root, cpus, 1);
  struct nn_config *cfg = four_gpus();
  char *cmd[] = {"python3", NULL};
  assert_int_equal(nn_bind_args(cfg, NN_BIND_SGLANG, root, cmd, out, why, sizeof why), 0);
  assert_non_null(strstr(why, "this OS has no NUMA node 1"));
  assert_int_equal(nn_bind_applies(cfg, root, nodes, sizeof nodes), 0);
  nn_test_sysfs_nodes_remove(root, 1);
  nn_config_free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_engines), cmocka_unit_test(test_missing_node)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
