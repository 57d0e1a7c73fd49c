/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cliconfig.c - the mapping as every command finds and loads it (cli/common/cliconfig.c):
 * given, from NCCL_NUMA_CONFIG, absent, invalid; and nn_config_validate. */
#include "nn_test.h"

#include "cli/common/cliconfig.h"

static void test_load(void **state) {
  (void)state;
  char *good = nn_test_write_file("gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n");
  char *bad = nn_test_write_file("gpu 0 bus=zz numa=0\n");
  struct nn_cli_config cc;
  unsetenv("NCCL_NUMA_CONFIG");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  assert_int_equal(nn_cli_config_load("test", good, NULL, 0, &cc), NN_CFG_OK);
  assert_int_equal(cc.cfg->n_gpus, 2);
  assert_string_equal(cc.src.origin, "--config");
  nn_cli_config_free(&cc);
  setenv("NCCL_NUMA_CONFIG", good, 1);
  assert_int_equal(nn_cli_config_load("test", NULL, NULL, 0, &cc), NN_CFG_OK);
  assert_string_equal(cc.src.origin, "NCCL_NUMA_CONFIG");
  nn_cli_config_free(&cc);
  unsetenv("NCCL_NUMA_CONFIG");
  assert_int_equal(nn_cli_config_load("test", bad, NULL, 0, &cc), NN_CFG_INVALID);
  nn_cli_config_free(&cc);
  assert_int_equal(nn_cli_config_load("test", "/nonexistent/m.conf", NULL, 0, &cc), NN_CFG_INVALID);
  nn_cli_config_free(&cc);
  if (access("/etc/nccl-numa.conf", F_OK)) { /* this machine has no default mapping */
    assert_int_equal(nn_cli_config_load("test", NULL, NULL, 1, &cc), NN_CFG_ABSENT);
    nn_cli_config_free(&cc);
  }
  assert_int_equal(nn_config_validate(good), 0);
  assert_true(nn_config_validate(bad) != 0);
  unlink(good);
  unlink(bad);
  free(good);
  free(bad);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_load)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
