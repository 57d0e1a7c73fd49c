/* SPDX-License-Identifier: BSD-3-Clause */
/* test_mapwarn.c - check-config's warnings on a valid mapping (cli/check/mapwarn.c): no gpu
 * lines, and GPUs' nodes of which one gets CPUs and another none. */
#include "sysfs_nodes.h"

#include "cli/check/mapwarn.h"

static struct nn_config *parse(const char *text) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_parse("m.conf", text, strlen(text), NULL, &cfg, &d), 0);
  nn_diag_clear(&d);
  return cfg;
}

static void test_no_gpu_lines(void **state) {
  (void)state;
  struct nn_config *cfg = parse("");
  struct nn_mapwarn w;
  nn_mapwarn_check(cfg, "m.conf", NULL, &w);
  assert_int_equal(w.n, 1);
  assert_non_null(strstr(w.msg[0], "m.conf: warning: no `gpu` lines"));
  nn_config_free(cfg);
}

/* A guest without numa lines: its node 0 holds every CPU, node 1 is absent. */
static void test_one_node_every_cpu(void **state) {
  (void)state;
  char root[64];
  const char *cpus[] = {"0-15"};
  nn_test_sysfs_nodes(root, cpus, 1);
  struct nn_config *cfg = parse("gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n");
  struct nn_mapwarn w;
  nn_mapwarn_check(cfg, "m.conf", root, &w);
  assert_int_equal(w.n, 1);
  assert_non_null(strstr(w.msg[0], "m.conf: warning: GPUs of NUMA node 0 get CPUs 0-15"));
  assert_non_null(strstr(w.msg[0], "node 1 none"));
  nn_config_free(cfg);
  /* numa lines give both nodes their CPUs: nothing to warn about */
  cfg = parse(
    "numa 0 cpus=0-7\nnuma 1 cpus=8-15\ngpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n");
  nn_mapwarn_check(cfg, "m.conf", root, &w);
  assert_int_equal(w.n, 0);
  nn_config_free(cfg);
  nn_test_sysfs_nodes_remove(root, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_gpu_lines),
                                     cmocka_unit_test(test_one_node_every_cpu)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
