/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_names.c - what a mapping's `env` line may serve (plugin/core/env_names.c): the
 * allow-list sorted and served, and each kind of refusal in words. */
#include "nn_test.h"

#include "env_names.h"

static void test_allowed(void **state) {
  (void)state;
  const char *const *names = nn_env_allowed_names();
  int n = 0;
  for (; names[n]; n++) {
    assert_null(nn_env_refusal(names[n]));
    if (n) assert_true(strcmp(names[n - 1], names[n]) < 0);   /* sorted, no duplicates: bsearch */
  }
  assert_true(n > 20);
  assert_null(nn_env_refusal("NCCL_P2P_DISABLE"));
  assert_null(nn_env_refusal("NCCL_SOCKET_IFNAME"));
}

static void test_refused(void **state) {
  (void)state;
  const char *names[] = {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_DEBUG_FILE", "NCCL_TOPO_FILE",
                         "NCCL_COMM_ID", "NCCL_NUMA_CONFIG", "LD_PRELOAD", "NCCL_NOT_A_REAL_NAME", NULL};
  for (int i = 0; names[i]; i++) {
    const char *why = nn_env_refusal(names[i]);
    if (!why) fail_msg("%s was allowed", names[i]);
    else assert_true(strlen(why) > 10);
  }
  const char *plugin = nn_env_refusal("NCCL_NET_PLUGIN");
  assert_non_null(plugin);
  assert_non_null(strstr(plugin, "librar"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_allowed), cmocka_unit_test(test_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
