/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bindfor.c - `exec --bind-for` (cli/common/bindfor.c): the engines' NUMA options for
 * the GPUs the job sees, in the engine's order, only where this OS has those nodes and the
 * command does not already bind. */
#include "sysfs_nodes.h"

#include "cli/common/bindfor.h"

static struct nn_config *four_gpus(void) {
  const char *t = "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 "
                  "numa=0\ngpu 3 bus=04:00.0 numa=0\n";
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse("m.conf", t, strlen(t), NULL, &cfg, &d), 0);
  nn_diag_clear(&d);
  return cfg;
}

/* The reference machine: GPUs 0-3 on node 1, 4-7 on node 0. */
static struct nn_config *reference(void) {
  char t[512] = "";
  for (int i = 0; i < 8; i++)
    snprintf(t + strlen(t), sizeof t - strlen(t), "gpu %d bus=%02x:00.0 numa=%d\n", i, i + 1,
             i < 4 ? 1 : 0);
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse("ref.conf", t, strlen(t), NULL, &cfg, &d), 0);
  nn_diag_clear(&d);
  return cfg;
}

static struct nn_visible *sees(const struct nn_config *cfg, const char *list) {
  static struct nn_visible v;
  nn_visible_resolve(cfg, list, NULL, &v);
  return &v;
}

static void joined(const char **out, int n, char *buf, size_t size) {
  buf[0] = 0;
  for (int i = 0; i < n; i++)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? " " : "", out[i]);
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
  int n = nn_bind_args(cfg, sees(cfg, NULL), NN_BIND_SGLANG, root, sglang, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-node 1 1 0 0");
  n = nn_bind_args(cfg, sees(cfg, NULL), NN_BIND_VLLM, root, sglang, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-bind --numa-bind-nodes 1 1 0 0");
  assert_int_equal(nn_bind_applies(cfg, sees(cfg, NULL), root, nodes, sizeof nodes), 1);
  assert_string_equal(nodes, "1 1 0 0");
  /* the command binds already: nothing added, and why */
  char *bound[] = {"python3", "-m", "sglang.launch_server", "--numa-node", "0", NULL};
  assert_int_equal(
    nn_bind_args(cfg, sees(cfg, NULL), NN_BIND_SGLANG, root, bound, out, why, sizeof why), 0);
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
  assert_int_equal(
    nn_bind_args(cfg, sees(cfg, NULL), NN_BIND_SGLANG, root, cmd, out, why, sizeof why), 0);
  assert_non_null(strstr(why, "this OS has no NUMA node 1"));
  assert_int_equal(nn_bind_applies(cfg, sees(cfg, NULL), root, nodes, sizeof nodes), 0);
  nn_test_sysfs_nodes_remove(root, 1);
  nn_config_free(cfg);
}

/* The two TP=4 servers of the reference machine, one per socket: each engine numbers its GPUs
 * 0-3, so the list is the node of each visible GPU in CUDA_VISIBLE_DEVICES' order. */
static void test_servers(void **state) {
  (void)state;
  char root[64], got[256], why[512], nodes[64];
  const char *cpus[] = {"0-31,64-95", "32-63,96-127"}, *out[NN_BIND_MAX_ARGS];
  nn_test_sysfs_nodes(root, cpus, 2);
  struct nn_config *cfg = reference();
  char *cmd[] = {"vllm", "serve", "m", NULL};
  int n = nn_bind_args(cfg, sees(cfg, "4,5,6,7"), NN_BIND_VLLM, root, cmd, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-bind --numa-bind-nodes 0 0 0 0");
  n = nn_bind_args(cfg, sees(cfg, "0,1,2,3"), NN_BIND_SGLANG, root, cmd, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-node 1 1 1 1");
  /* CUDA's order, not the mapping's: the engine's GPU 0 is mapping GPU 5 */
  n = nn_bind_args(cfg, sees(cfg, "5,1,4,0"), NN_BIND_SGLANG, root, cmd, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-node 0 1 0 1");
  /* one visible GPU: still its own node */
  n = nn_bind_args(cfg, sees(cfg, "6"), NN_BIND_SGLANG, root, cmd, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-node 0");
  assert_int_equal(nn_bind_applies(cfg, sees(cfg, "4,5,6,7"), root, nodes, sizeof nodes), 1);
  assert_string_equal(nodes, "0 0 0 0");
  /* an index past the mapping's GPUs ends the list as CUDA does: GPU 4 alone */
  n = nn_bind_args(cfg, sees(cfg, "4,9"), NN_BIND_SGLANG, root, cmd, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "--numa-node 0");
  /* UUIDs without the driver: nothing, and why */
  assert_int_equal(
    nn_bind_args(cfg, sees(cfg, "GPU-8f2b"), NN_BIND_SGLANG, root, cmd, out, why, sizeof why), 0);
  assert_non_null(strstr(why, "need the CUDA driver"));
  nn_test_sysfs_nodes_remove(root, 2);
  nn_config_free(cfg);
}

/* A guest with one NUMA node: its node 0 is not the mapping's (host) node 0, so neither server is
 * bound: one rule both ways, as nn_bind_applies has it. */
static void test_one_node_guest(void **state) {
  (void)state;
  char root[64], got[256], why[512], nodes[64];
  const char *cpus[] = {"0-15"}, *out[NN_BIND_MAX_ARGS];
  nn_test_sysfs_nodes(root, cpus, 1);
  struct nn_config *cfg = reference();
  char *cmd[] = {"vllm", NULL};
  int n = nn_bind_args(cfg, sees(cfg, "4,5,6,7"), NN_BIND_VLLM, root, cmd, out, why, sizeof why);
  joined(out, n, got, sizeof got);
  assert_string_equal(got, "");
  assert_non_null(strstr(why, "this OS has no NUMA node 1"));
  assert_non_null(strstr(why, "its nodes are not the mapping's"));
  assert_int_equal(nn_bind_applies(cfg, sees(cfg, "4,5,6,7"), root, nodes, sizeof nodes), 0);
  assert_int_equal(
    nn_bind_args(cfg, sees(cfg, "0,1,2,3"), NN_BIND_VLLM, root, cmd, out, why, sizeof why), 0);
  assert_non_null(strstr(why, "this OS has no NUMA node 1"));
  assert_int_equal(nn_bind_applies(cfg, sees(cfg, "0,1,2,3"), root, nodes, sizeof nodes), 0);
  nn_test_sysfs_nodes_remove(root, 1);
  nn_config_free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_engines), cmocka_unit_test(test_missing_node),
    cmocka_unit_test(test_servers), cmocka_unit_test(test_one_node_guest)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
