/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_p2p.c - what the env plugin serves for each `p2p` line of the mapping: the level
 * for ok, to a process whose GPUs the line tested under the driver it tested, else P2P off;
 * NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0 for broken, nothing for unsupported; never over the
 * user's own variable; and why, said once per file version. The running driver and the GPUs a
 * pod is given are read under NCCL_NUMA_DRIVER_ROOT, a tree the test makes. */
#include "env_fixture.h"

#include "env.h"

static char base[64];

/* env_log keeps what is said about the p2p line (INFO or WARN), not the init line. */
static int p2p_said(int level, const char *fmt, const char *msg) {
  if ((level != NN_NCCL_LOG_INFO && level != NN_NCCL_LOG_WARN) || !strstr(fmt, "%s")) return 0;
  return strstr(msg, "(mapping line") || strstr(msg, "mapping's p2p");
}

static int setup(void **state) {
  (void)state;
  if (env_fixture_dir(base, sizeof base, "/tmp/nn-envp2p-XXXXXX")) return -1;
  env_log.keep = p2p_said;
  unsetenv("NCCL_P2P_LEVEL");
  unsetenv("NCCL_P2P_DISABLE");
  unsetenv("NCCL_WIN_ENABLE");
  unsetenv("CUDA_VISIBLE_DEVICES");
  return 0;
}

/* NCCL_NUMA_DRIVER_ROOT with driver `version` running ("": no version file) and, when n > 0,
 * the driver's GPU list of a pod given GPUs first..first+n-1 of the 8 at 11:00.0 ... */
static void driver_root(const char *version, int first, int n) {
  char dir[160], cmd[400];
  snprintf(dir, sizeof dir, "%s/root", base);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/proc/driver/nvidia%s'", dir, dir,
           n > 0 ? "/gpus" : "");
  assert_int_equal(system(cmd), 0);
  if (version[0]) {
    char text[256];
    snprintf(text, sizeof text,
             "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  "
             "(dvs-builder@U16-I2)  Thu Sep 25 2025\nGCC version:  gcc version 12.2.0\n",
             version);
    snprintf(cmd, sizeof cmd, "%s/proc/driver/nvidia", dir);
    nn_test_put_file(cmd, "version", text);
  }
  for (int i = first; i < first + n; i++) {
    snprintf(cmd, sizeof cmd, "mkdir '%s/proc/driver/nvidia/gpus/0000:%02x:00.0'", dir, 0x11 + i);
    assert_int_equal(system(cmd), 0);
  }
  setenv("NCCL_NUMA_DRIVER_ROOT", dir, 1);
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(base);
}

/* A process whose mapping is `text`: the env plugin initialised on it, the log emptied. */
static void start(const char *name, const char *text) {
  char file[64], conf[160];
  snprintf(file, sizeof file, "%s.conf", name);
  snprintf(conf, sizeof conf, "%s/%s", base, file);
  nn_test_put_file(base, file, text);
  setenv("NCCL_NUMA_CONFIG", conf, 1);
  env_log_clear();
  assert_int_equal(nn_env_init(2, 28, 9, "", env_logger, 2), 0);
}

static void ask_twice(const char *level, const char *disable) {
  for (int i = 0; i < 2; i++) {
    const char *l = nn_env_get("NCCL_P2P_LEVEL"), *d = nn_env_get("NCCL_P2P_DISABLE");
    const char *w = nn_env_get("NCCL_WIN_ENABLE"), *user_w = getenv("NCCL_WIN_ENABLE");
    if (level) assert_string_equal(l, level);
    else assert_null(l);
    if (disable) assert_string_equal(d, disable);
    else assert_null(d);
    /* P2P off reaches NCCL's symmetric memory too, unless the user set it */
    if (user_w) assert_string_equal(w, user_w);
    else if (disable && !strcmp(disable, "1")) assert_string_equal(w, "0");
    else assert_null(w);
  }
  assert_int_equal(env_log.n, 1); /* said once, whatever NCCL asks how often */
  nn_env_finalize();
}

#define MAP8 \
  "gpu 0 bus=11:00.0 numa=0\ngpu 1 bus=12:00.0 numa=0\ngpu 2 bus=13:00.0 numa=0\n" \
  "gpu 3 bus=14:00.0 numa=0\ngpu 4 bus=15:00.0 numa=1\ngpu 5 bus=16:00.0 numa=1\n" \
  "gpu 6 bus=17:00.0 numa=1\ngpu 7 bus=18:00.0 numa=1\n"
#define OK_ALL "p2p ok level=SYS gpus=0-7 driver=580.95.05 xproc=ok tested=2026-12-06\n"
#define OK_0123 "p2p ok level=PHB gpus=0-3 driver=580.95.05 xproc=ok tested=2026-12-06\n"

static void test_ok_serves_level(void **state) {
  (void)state;
  driver_root("580.95.05", 0, 0);
  start("ok", MAP8 OK_ALL);
  ask_twice("SYS", NULL);
  assert_non_null(strstr(env_log.text, "p2p ok (mapping line 9): NCCL_P2P_LEVEL=SYS served"));
}

/* A line tested on GPUs 0-3: served to a process on them, by CUDA_VISIBLE_DEVICES or by the
 * GPUs the driver shows a pod; P2P off, said why, to a process on all 8 or on 4-7. */
static void test_subset_line(void **state) {
  (void)state;
  driver_root("580.95.05", 0, 0);
  setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3", 1);
  start("subset", MAP8 OK_0123);
  ask_twice("PHB", NULL);
  assert_non_null(strstr(env_log.text, "p2p ok (mapping line 9): NCCL_P2P_LEVEL=PHB served"));
  setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", 1);
  start("subset", MAP8 OK_0123 "# all 8\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(
    env_log.text, "p2p ok (mapping line 9) not served: GPUs 4-7 of this process were not tested "
                  "(p2p line 9: gpus=0-3)"));
  assert_non_null(strstr(env_log.text, "NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0 served"));
  unsetenv("CUDA_VISIBLE_DEVICES");
  start("subset", MAP8 OK_0123 "# all 8, unset\n");
  ask_twice(NULL, "1");
  driver_root("580.95.05", 0, 4); /* a pod given GPUs 0-3 */
  start("subset", MAP8 OK_0123 "# pod 0-3\n");
  ask_twice("PHB", NULL);
  driver_root("580.95.05", 4, 4); /* a pod given GPUs 4-7 */
  start("subset", MAP8 OK_0123 "# pod 4-7\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(env_log.text, "GPUs 4-7 of this process were not tested"));
}

static void test_driver_change(void **state) {
  (void)state;
  driver_root("590.44.01", 0, 0);
  start("driver", MAP8 OK_ALL);
  ask_twice(NULL, "1");
  assert_non_null(strstr(
    env_log.text, "the NVIDIA driver is now 590.44.01, the p2p line (line 9) was tested with "
                  "580.95.05; P2P stays off for this process; test again with `nccl-numa p2p "
                  "--update MAPPING`"));
  driver_root("", 0, 0);
  start("driver", MAP8 OK_ALL "# no driver\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(env_log.text, "driver's version cannot be read"));
}

/* A line written before gpus= and driver= were recorded is untested. */
static void test_old_line_untested(void **state) {
  (void)state;
  driver_root("580.95.05", 0, 0);
  start("old", MAP8 "p2p ok level=SYS tested=2026-12-03\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(env_log.text, "does not say which GPUs were tested (gpus="));
  assert_non_null(strstr(env_log.text, "test again with `nccl-numa p2p --update MAPPING`"));
}

static void test_broken_disables(void **state) {
  (void)state;
  start("broken", "# failed nccl-numa p2p\np2p broken\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(
    env_log.text, "p2p broken (mapping line 2): NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0 served"));
}

static void test_unsupported_serves_nothing(void **state) {
  (void)state;
  start("unsupported", "p2p unsupported\n");
  ask_twice(NULL, NULL);
  assert_non_null(strstr(env_log.text, "p2p unsupported (mapping line 1)"));
  assert_non_null(strstr(env_log.text, "nothing served"));
}

static void test_user_variable_wins(void **state) {
  (void)state;
  driver_root("580.95.05", 0, 0);
  setenv("NCCL_P2P_LEVEL", "PXB", 1);
  start("user", MAP8 OK_ALL);
  ask_twice("PXB", NULL);
  unsetenv("NCCL_P2P_LEVEL");
  assert_non_null(
    strstr(env_log.text, "NCCL_P2P_LEVEL=PXB is set in the environment: the user's value wins"));
  setenv("NCCL_P2P_DISABLE", "0", 1);
  setenv("NCCL_WIN_ENABLE", "1", 1);
  start("user-broken", "p2p broken\n");
  ask_twice(NULL, "0");
  unsetenv("NCCL_P2P_DISABLE");
  unsetenv("NCCL_WIN_ENABLE");
  assert_non_null(strstr(env_log.text, "NCCL_P2P_DISABLE=0 is set in the environment"));
  assert_non_null(strstr(env_log.text, "NCCL_WIN_ENABLE=1 is set in the environment"));
}

/* A new version of the file is explained anew. */
static void test_said_again_for_new_version(void **state) {
  (void)state;
  driver_root("580.95.05", 0, 0);
  start("again", MAP8 OK_ALL);
  assert_string_equal(nn_env_get("NCCL_P2P_LEVEL"), "SYS");
  nn_env_finalize();
  start("again", "p2p broken\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(env_log.text, "p2p broken (mapping line 1)"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ok_serves_level),    cmocka_unit_test(test_subset_line),
    cmocka_unit_test(test_driver_change),      cmocka_unit_test(test_old_line_untested),
    cmocka_unit_test(test_broken_disables),    cmocka_unit_test(test_unsupported_serves_nothing),
    cmocka_unit_test(test_user_variable_wins), cmocka_unit_test(test_said_again_for_new_version),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
