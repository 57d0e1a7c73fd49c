/* SPDX-License-Identifier: BSD-3-Clause */
/* test_abenv.c - an arm's environment (cli/sweep/abenv.c): collective names between
 * nccl-tests and the rules, and setting and dropping variables in place. */
#include "nn_test.h"

#include "cli/sweep/abenv.h"

static void test_coll_names(void **state) {
  (void)state;
  assert_string_equal(nn_abenv_coll_name("allreduce"), "all_reduce");
  assert_string_equal(nn_abenv_coll_name("all_reduce"), "all_reduce");
  assert_string_equal(nn_abenv_coll_name("alltoall"), "alltoall");
  assert_null(nn_abenv_coll_name("reduce-scatter"));
  assert_null(nn_abenv_coll_name(""));
  assert_string_equal(nn_abenv_rule_coll("all_reduce"), "allreduce");
  assert_string_equal(nn_abenv_rule_coll("reduce_scatter"), "reducescatter");
  assert_null(nn_abenv_rule_coll("alltoall")); /* NCCL's tuner never sees it */
  assert_null(nn_abenv_rule_coll("sendrecv"));
}

static char **env_of(const char *const *base, int room) {
  char **e = calloc((size_t)room, sizeof *e);
  assert_non_null(e);
  for (int i = 0; base[i]; i++) e[i] = strdup(base[i]);
  return e;
}

static void test_set_and_unset(void **state) {
  (void)state;
  const char *base[] = {"PATH=/bin", "NCCL_ALGO=tree", "X=1", "NCCL_ALGO_X=keep", NULL};
  char **e = env_of(base, 8);
  nn_abenv_unset(e, "NCCL_ALGO");
  assert_int_equal(nn_abenv_set(e, "NCCL_PROTO", "LL"), 0);
  assert_int_equal(nn_abenv_set(e, "X", "2"), 0); /* replaced, moved to the end */
  const char *want[] = {"PATH=/bin", "NCCL_ALGO_X=keep", "NCCL_PROTO=LL", "X=2", NULL};
  for (int i = 0; want[i]; i++) assert_string_equal(e[i], want[i]);
  assert_null(e[4]);
  nn_abenv_free(e);
  nn_abenv_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_coll_names),
                                     cmocka_unit_test(test_set_and_unset)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
