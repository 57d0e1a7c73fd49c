/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_graph.c - NCCL_GRAPH_REGISTER=0 is served exactly where the plugin serves peer
 * access (a `p2p ok` line) and PyTorch's allocator uses expandable segments; the user's own
 * value and the mapping's env line win; why is said once. And the allocator options parsed
 * as PyTorch lists them. */
#include "env_fixture.h"

#include "allocconf.h"
#include "env.h"

static char base[64];

/* env_log keeps the INFO lines about NCCL_GRAPH_REGISTER. */
static int graph_info(int level, const char *fmt, const char *msg) {
  (void)fmt;
  return level == NN_NCCL_LOG_INFO && strstr(msg, "NCCL_GRAPH_REGISTER");
}

/* NCCL_NUMA_DRIVER_ROOT with driver 580.95.05 running (the driver the p2p lines were tested on)
 * and no GPU list: the process's GPUs are the mapping's two. */
static void driver_root(void) {
  char dir[160], cmd[400];
  snprintf(dir, sizeof dir, "%s/root", base);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/proc/driver/nvidia'", dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s/proc/driver/nvidia", dir);
  nn_test_put_file(cmd, "version",
                   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  "
                   "Release Build  (dvs-builder@U16-I2)  Thu Sep 25 2025\n");
  setenv("NCCL_NUMA_DRIVER_ROOT", dir, 1);
}

static int setup(void **state) {
  (void)state;
  if (env_fixture_dir(base, sizeof base, "/tmp/nn-envgraph-XXXXXX")) return -1;
  env_log.keep = graph_info;
  static const char *const clear[] = {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE", "NCCL_GRAPH_REGISTER",
                                      "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"};
  for (size_t i = 0; i < sizeof clear / sizeof clear[0]; i++) unsetenv(clear[i]);
  unsetenv("CUDA_VISIBLE_DEVICES");
  driver_root();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(base);
}

/* NCCL_GRAPH_REGISTER as NCCL sees it (asked twice) in a process whose mapping is `text`
 * and whose PYTORCH_CUDA_ALLOC_CONF is `alloc` (NULL: unset). */
static const char *graph_register(const char *name, const char *text, const char *alloc) {
  static char got[32];
  char file[64], conf[160];
  snprintf(file, sizeof file, "%s.conf", name);
  snprintf(conf, sizeof conf, "%s/%s", base, file);
  char mapping[512];
  snprintf(mapping, sizeof mapping, "gpu 0 bus=11:00.0 numa=0\ngpu 1 bus=12:00.0 numa=0\n%s", text);
  nn_test_put_file(base, file, mapping);
  setenv("NCCL_NUMA_CONFIG", conf, 1);
  if (alloc) setenv("PYTORCH_CUDA_ALLOC_CONF", alloc, 1);
  else unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  env_log_clear();
  assert_int_equal(nn_env_init(2, 30, 7, "", env_logger, 2), 0);
  const char *v = nn_env_get("NCCL_GRAPH_REGISTER");
  snprintf(got, sizeof got, "%s", v ? v : "(unset)");
  v = nn_env_get("NCCL_GRAPH_REGISTER");
  assert_string_equal(got, v ? v : "(unset)");
  nn_env_finalize();
  unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  return got;
}

/* A p2p ok line tested on both GPUs and on the running driver: served to this process. */
#define OK "p2p ok level=SYS gpus=0-1 driver=580.95.05 xproc=ok tested=2026-12-06\n"

static void test_served_with_p2p_and_expandable(void **state) {
  (void)state;
  assert_string_equal(graph_register("on", OK, "expandable_segments:True"), "0");
  assert_int_equal(env_log.n, 1);
  assert_non_null(strstr(env_log.text,
                         "NCCL_GRAPH_REGISTER=0 served: p2p ok (mapping line 3) is served and "
                         "PYTORCH_CUDA_ALLOC_CONF turns on expandable_segments"));
  assert_non_null(strstr(env_log.text, "pytorch/pytorch#158029"));
  /* among other options, in PyTorch's newer variable */
  setenv("PYTORCH_ALLOC_CONF", "max_split_size_mb:256, expandable_segments:true", 1);
  assert_string_equal(graph_register("on2", OK, NULL), "0");
  unsetenv("PYTORCH_ALLOC_CONF");
  assert_non_null(strstr(env_log.text, "PYTORCH_ALLOC_CONF turns on"));
}

static void test_not_served_without_expandable(void **state) {
  (void)state;
  assert_string_equal(graph_register("off", OK, NULL), "(unset)");
  assert_string_equal(graph_register("false", OK, "expandable_segments:False"), "(unset)");
  assert_string_equal(
    graph_register("last", OK, "expandable_segments:True,expandable_segments:False"), "(unset)");
  assert_int_equal(env_log.n, 0);
}

static void test_not_served_without_p2p(void **state) {
  (void)state;
  const char *seg = "expandable_segments:True";
  assert_string_equal(graph_register("none", "# no p2p line\n", seg), "(unset)");
  assert_string_equal(graph_register("broken", "p2p broken\n", seg), "(unset)");
  assert_string_equal(graph_register("unsup", "p2p unsupported\n", seg), "(unset)");
  /* the user's own peer-access setting: the plugin serves no P2P, so no guard either */
  setenv("NCCL_P2P_DISABLE", "1", 1);
  assert_string_equal(graph_register("disabled", OK, seg), "(unset)");
  unsetenv("NCCL_P2P_DISABLE");
  /* an ok line not served to this process: written before gpus= and driver= were recorded,
   * or tested on another driver */
  assert_string_equal(graph_register("old", "p2p ok level=SYS\n", seg), "(unset)");
  assert_string_equal(graph_register("drv", "p2p ok gpus=0-1 driver=570.1 xproc=ok\n", seg),
                      "(unset)");
  assert_int_equal(env_log.n, 0);
}

static void test_user_and_mapping_win(void **state) {
  (void)state;
  const char *seg = "expandable_segments:True";
  setenv("NCCL_GRAPH_REGISTER", "1", 1);
  assert_string_equal(graph_register("user", OK, seg), "1");
  unsetenv("NCCL_GRAPH_REGISTER");
  assert_int_equal(env_log.n, 1);
  assert_non_null(
    strstr(env_log.text, "NCCL_GRAPH_REGISTER=1 is set in the environment: the user's value wins"));
  assert_string_equal(graph_register("mapped", OK "env NCCL_GRAPH_REGISTER=1\n", seg), "1");
  assert_non_null(strstr(env_log.text, "NCCL_GRAPH_REGISTER=1 from the mapping's env line wins"));
}

static void test_allocconf_parse(void **state) {
  (void)state;
  assert_int_equal(nn_allocconf_expandable(NULL), 0);
  assert_int_equal(nn_allocconf_expandable(""), 0);
  assert_int_equal(nn_allocconf_expandable("expandable_segments:True"), 1);
  assert_int_equal(nn_allocconf_expandable("backend:native,roundup_power2_divisions:[64:8,>:1],"
                                           " expandable_segments : True "),
                   1);
  assert_int_equal(nn_allocconf_expandable("expandable_segments:False"), 0);
  assert_int_equal(nn_allocconf_expandable("expandable_segments_x:True"), 0);
  assert_int_equal(nn_allocconf_expandable("expandable_segments"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_served_with_p2p_and_expandable),
    cmocka_unit_test(test_not_served_without_expandable),
    cmocka_unit_test(test_not_served_without_p2p),
    cmocka_unit_test(test_user_and_mapping_win),
    cmocka_unit_test(test_allocconf_parse),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
