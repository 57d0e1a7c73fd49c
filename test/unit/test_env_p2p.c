/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_p2p.c - what the env plugin serves for each `p2p` line of the mapping: the level
 * for ok, NCCL_P2P_DISABLE=1 for broken, nothing for unsupported; never over the user's own
 * variable; and why, said once per file version. */
#include "nn_test.h"

#include "env.h"
#include "nccl_abi.h"

static char base[64];
static char infos[8192];
static int n_infos;

__attribute__((format(printf, 5, 6)))
static void logger(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  (void)flags; (void)file; (void)line;
  if (level != NN_NCCL_LOG_INFO || !strstr(fmt, "%s")) return;
  char one[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(one, sizeof one, fmt, ap);
  va_end(ap);
  if (!strstr(one, "(mapping line") && !strstr(one, "mapping's p2p")) return;   /* not the init line */
  size_t len = strlen(infos);
  snprintf(infos + len, sizeof infos - len, "%s\n", one);
  n_infos++;
}

static int setup(void **state) {
  (void)state;
  snprintf(base, sizeof base, "/tmp/nn-envp2p-XXXXXX");
  if (!mkdtemp(base)) return -1;
  setenv("XDG_RUNTIME_DIR", base, 1);
  unsetenv("NCCL_NUMA_LOG_FILE");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  unsetenv("NCCL_P2P_LEVEL");
  unsetenv("NCCL_P2P_DISABLE");
  return 0;
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
  infos[0] = 0;
  n_infos = 0;
  assert_int_equal(nn_env_init(2, 28, 9, "", logger, 2), 0);
}

static void ask_twice(const char *level, const char *disable) {
  for (int i = 0; i < 2; i++) {
    const char *l = nn_env_get("NCCL_P2P_LEVEL"), *d = nn_env_get("NCCL_P2P_DISABLE");
    if (level) assert_string_equal(l, level);
    else assert_null(l);
    if (disable) assert_string_equal(d, disable);
    else assert_null(d);
  }
  assert_int_equal(n_infos, 1);   /* said once, whatever NCCL asks how often */
  nn_env_finalize();
}

static void test_ok_serves_level(void **state) {
  (void)state;
  start("ok", "p2p ok level=SYS tested=2026-12-03\n");
  ask_twice("SYS", NULL);
  assert_non_null(strstr(infos, "p2p ok (mapping line 1): NCCL_P2P_LEVEL=SYS served"));
}

static void test_broken_disables(void **state) {
  (void)state;
  start("broken", "# failed nccl-numa p2p\np2p broken\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(infos, "p2p broken (mapping line 2): NCCL_P2P_DISABLE=1 served"));
}

static void test_unsupported_serves_nothing(void **state) {
  (void)state;
  start("unsupported", "p2p unsupported\n");
  ask_twice(NULL, NULL);
  assert_non_null(strstr(infos, "p2p unsupported (mapping line 1)"));
  assert_non_null(strstr(infos, "nothing served"));
}

static void test_user_variable_wins(void **state) {
  (void)state;
  setenv("NCCL_P2P_LEVEL", "PXB", 1);
  start("user", "p2p ok level=SYS\n");
  ask_twice("PXB", NULL);
  unsetenv("NCCL_P2P_LEVEL");
  assert_non_null(strstr(infos, "NCCL_P2P_LEVEL=PXB is set in the environment: the user's value wins"));
  setenv("NCCL_P2P_DISABLE", "0", 1);
  start("user-broken", "p2p broken\n");
  ask_twice(NULL, "0");
  unsetenv("NCCL_P2P_DISABLE");
  assert_non_null(strstr(infos, "NCCL_P2P_DISABLE=0 is set in the environment"));
}

/* A new version of the file is explained anew. */
static void test_said_again_for_new_version(void **state) {
  (void)state;
  start("again", "p2p ok\n");
  assert_string_equal(nn_env_get("NCCL_P2P_LEVEL"), "PHB");
  nn_env_finalize();
  start("again", "p2p broken\n");
  ask_twice(NULL, "1");
  assert_non_null(strstr(infos, "p2p broken (mapping line 1)"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ok_serves_level),
      cmocka_unit_test(test_broken_disables),
      cmocka_unit_test(test_unsupported_serves_nothing),
      cmocka_unit_test(test_user_variable_wins),
      cmocka_unit_test(test_said_again_for_new_version),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
