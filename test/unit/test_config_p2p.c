/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_p2p.c - the mapping's `p2p` line (config_p2p.c): its grammar, and the NCCL
 * variable each state sets through nn_config_env. */
#include "config_fixture.h"

static void expect_served(const char *text, const char *level, const char *disable) {
  struct nn_config *c = parse_ok(text);
  const char *l = nn_config_env(c, "NCCL_P2P_LEVEL"), *d = nn_config_env(c, "NCCL_P2P_DISABLE");
  if (level) assert_string_equal(l, level);
  else assert_null(l);
  if (disable) assert_string_equal(d, disable);
  else assert_null(d);
  nn_config_free(c);
}

static void test_p2p_states_serve(void **state) {
  (void)state;
  expect_served(GPUS2 "p2p ok level=SYS tested=2026-12-03 driver=580.95\n", "SYS", NULL);
  expect_served(GPUS2 "p2p ok level=pxb\n", "PXB", NULL);
  expect_served(GPUS2 "p2p OK\n", "PHB", NULL);   /* no level: one host bridge */
  expect_served(GPUS2 "p2p broken tested=2026-12-03\n", NULL, "1");
  expect_served(GPUS2 "p2p unsupported driver=580.95\n", NULL, NULL);
  expect_served(GPUS2, NULL, NULL);
}

static void test_p2p_recorded(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(GPUS2 "# proven\np2p ok level=PHB\n");
  assert_int_equal(c->p2p.state, NN_P2P_OK);
  assert_int_equal(c->p2p.level, NN_P2P_LEVEL_PHB);
  assert_int_equal(c->p2p.line, 4);
  assert_string_equal(nn_config_p2p_state_name(c->p2p.state), "ok");
  assert_string_equal(nn_config_p2p_level_name(c->p2p.level), "PHB");
  nn_config_free(c);
}

static void test_p2p_errors(void **state) {
  (void)state;
  expect_err("p2p\n", 1, "p2p: expected ok, broken or unsupported after p2p");
  expect_err("p2p maybe\n", 1, "p2p: expected ok, broken or unsupported after p2p, got 'maybe'");
  expect_err("p2p ok level=NVL\n", 1, "p2p: unknown level 'NVL' (expected LOC, PIX, PXB, PHB or SYS)");
  expect_err("p2p broken level=SYS\n", 1, "p2p: level= goes only with p2p ok");
  expect_err("p2p ok speed=fast\n", 1, "p2p: unknown key 'speed'");
  expect_err("p2p ok\np2p broken\n", 2, "p2p: second p2p line (first on line 1)");
  expect_err("env NCCL_P2P_LEVEL=SYS\np2p ok\n", 1,
             "env: NCCL_P2P_LEVEL conflicts with the p2p line (line 2), which decides peer access");
  expect_err("p2p broken\nenv NCCL_P2P_DISABLE=0\n", 2, "env: NCCL_P2P_DISABLE conflicts with the p2p line (line 1)");
}

/* An env line the p2p line does not decide stays the file's own. */
static void test_p2p_leaves_other_env(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(GPUS2 "p2p unsupported\nenv NCCL_P2P_DISABLE=1\n");
  assert_string_equal(nn_config_env(c, "NCCL_P2P_DISABLE"), "1");
  nn_config_free(c);
  c = parse_ok(GPUS2 "p2p ok\nenv NCCL_SOCKET_IFNAME=lo\n");
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "lo");
  assert_string_equal(nn_config_env(c, "NCCL_P2P_LEVEL"), "PHB");
  nn_config_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_p2p_states_serve),
      cmocka_unit_test(test_p2p_recorded),
      cmocka_unit_test(test_p2p_errors),
      cmocka_unit_test(test_p2p_leaves_other_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
