/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_p2p.c - the mapping's `p2p` line (config_p2p.c): its grammar, the NCCL
 * variables each state sets through nn_config_env, and what it serves to a process by its
 * GPUs and driver (nn_config_p2p_covers, nn_config_p2p_serve). */
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
  expect_served(GPUS2 "p2p ok level=SYS gpus=0-1 tested=2026-12-03 driver=580.95 xproc=ok\n", "SYS",
                NULL);
  expect_served(GPUS2 "p2p ok level=pxb gpus=0,1 driver=580.95.05 xproc=ok\n", "PXB", NULL);
  expect_served(GPUS2 "p2p OK gpus=0-1 driver=1.2 XPROC=OK\n", "PHB",
                NULL); /* no level: one host bridge */
  expect_served(GPUS2 "p2p broken tested=2026-12-03\n", NULL, "1");
  expect_served(GPUS2 "p2p unsupported driver=580.95\n", NULL, NULL);
  expect_served(GPUS2, NULL, NULL);
  /* untested for the whole mapping: an old line without gpus= or driver=, or a subset */
  expect_served(GPUS2 "p2p ok level=SYS tested=2026-12-03\n", NULL, "1");
  expect_served(GPUS2 "p2p ok gpus=0-1\n", NULL, "1");
  expect_served(GPUS2 "p2p ok driver=580.95.05\n", NULL, "1");
  expect_served(GPUS2 "p2p ok gpus=1 driver=580.95.05 xproc=ok\n", NULL, "1");
  expect_served(GPUS2 "p2p ok gpus=0-1 driver=580.95.05\n", NULL, "1"); /* one process only */
  struct nn_config *c = parse_ok(GPUS2 "p2p broken\n");
  assert_string_equal(nn_config_env(c, "NCCL_WIN_ENABLE"), "0");
  nn_config_free(c);
  c = parse_ok(GPUS2 "p2p ok gpus=0-1 driver=580.95.05 xproc=ok\n");
  assert_null(nn_config_env(c, "NCCL_WIN_ENABLE"));
  nn_config_free(c);
}

#define GPUS8 \
  "gpu 0 bus=11:00.0 numa=0\ngpu 1 bus=12:00.0 numa=0\ngpu 2 bus=13:00.0 numa=0\n" \
  "gpu 3 bus=14:00.0 numa=0\ngpu 4 bus=15:00.0 numa=1\ngpu 5 bus=16:00.0 numa=1\n" \
  "gpu 6 bus=17:00.0 numa=1\ngpu 7 bus=18:00.0 numa=1\n"

static void test_p2p_fields_recorded(void **state) {
  (void)state;
  struct nn_config *c =
    parse_ok(GPUS8 "p2p ok level=PHB gpus=0-3,6 driver=580.95.05 xproc=ok tested=x\n");
  assert_int_equal(c->p2p.gpus, 0x4f);
  assert_string_equal(c->p2p.driver, "580.95.05");
  assert_int_equal(c->p2p.xproc, NN_P2P_XPROC_OK);
  char buf[64];
  nn_config_p2p_gpus_format(c->p2p.gpus, buf, sizeof buf);
  assert_string_equal(buf, "0-3,6");
  nn_config_free(c);
  c = parse_ok(GPUS8 "p2p broken gpus=0-7 xproc=failed\n");
  assert_int_equal(c->p2p.xproc, NN_P2P_XPROC_FAILED);
  nn_config_free(c);
  nn_config_p2p_gpus_format(0x33, buf, sizeof buf);
  assert_string_equal(buf, "0-1,4-5");
  nn_config_p2p_gpus_format(0, buf, sizeof buf);
  assert_string_equal(buf, "");
}

static void test_p2p_covers(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(GPUS8 "p2p ok gpus=0-3 driver=580.95.05\n");
  int four[] = {0, 1, 2, 3}, eight[] = {0, 1, 2, 3, 4, 5, 6, 7}, two[] = {3, 1}, far[] = {2, 4};
  assert_true(nn_config_p2p_covers(c, four, 4));
  assert_true(nn_config_p2p_covers(c, two, 2));
  assert_false(nn_config_p2p_covers(c, eight, 8));
  assert_false(nn_config_p2p_covers(c, far, 2));
  assert_false(nn_config_p2p_covers(c, four, 0));
  nn_config_free(c);
  c = parse_ok(GPUS8 "p2p ok\n"); /* an old line: nothing was recorded as tested */
  assert_false(nn_config_p2p_covers(c, four, 4));
  nn_config_free(c);
}

/* serve GPUS DRIVER: the state served and, for an untested ok line, its reason. */
static void expect_serve(const struct nn_config *c, const int *gpus, int n, const char *driver,
                         int state, const char *why) {
  struct nn_p2p_serving s;
  nn_config_p2p_serve(c, gpus, n, driver, &s);
  assert_int_equal(s.state, state);
  assert_int_equal(s.untested, why != NULL);
  if (why && !strstr(s.why, why)) fail_msg("why '%s' lacks '%s'", s.why, why);
  if (why) assert_non_null(strstr(s.why, "test again with `nccl-numa p2p --update MAPPING`"));
  if (!why) assert_string_equal(s.why, "");
}

static void test_p2p_serve(void **state) {
  (void)state;
  struct nn_config *c =
    parse_ok(GPUS8 "p2p ok level=SYS gpus=0-3 driver=580.95.05 xproc=ok tested=2026-12-06\n");
  int four[] = {0, 1, 2, 3}, eight[] = {0, 1, 2, 3, 4, 5, 6, 7}, upper[] = {4, 5, 6, 7};
  expect_serve(c, four, 4, "580.95.05", NN_P2P_OK, NULL);
  expect_serve(c, four, 4, NULL, NN_P2P_OK, NULL); /* driver not checked */
  expect_serve(c, eight, 8, "580.95.05", NN_P2P_BROKEN, "GPUs 4-7 of this process were not tested");
  expect_serve(c, upper, 1, "580.95.05", NN_P2P_BROKEN, "GPU 4 of this process was not tested");
  expect_serve(c, four, 4, "590.44.01", NN_P2P_BROKEN,
               "driver is now 590.44.01, the p2p line (line 9) was tested with 580.95.05");
  expect_serve(c, four, 4, "", NN_P2P_BROKEN, "driver's version cannot be read");
  expect_serve(c, four, -1, "580.95.05", NN_P2P_BROKEN, "could not be matched to the mapping's");
  expect_serve(c, four, 0, "580.95.05", NN_P2P_BROKEN, "uses none of the mapping's GPUs");
  struct nn_p2p_serving s;
  nn_config_p2p_serve(c, four, 4, "580.95.05", &s);
  assert_string_equal(nn_config_p2p_served_env(&s, "NCCL_P2P_LEVEL"), "SYS");
  assert_null(nn_config_p2p_served_env(&s, "NCCL_P2P_DISABLE"));
  nn_config_p2p_serve(c, eight, 8, "580.95.05", &s);
  assert_null(nn_config_p2p_served_env(&s, "NCCL_P2P_LEVEL"));
  assert_string_equal(nn_config_p2p_served_env(&s, "NCCL_P2P_DISABLE"), "1");
  assert_string_equal(nn_config_p2p_served_env(&s, "NCCL_WIN_ENABLE"), "0");
  nn_config_free(c);
  c = parse_ok(GPUS8 "p2p ok level=PHB tested=2026-12-03 driver=580.95.05\n");
  expect_serve(c, four, 4, "580.95.05", NN_P2P_BROKEN,
               "does not say which GPUs were tested (gpus=");
  nn_config_free(c);
  c = parse_ok(GPUS8 "p2p ok level=PHB gpus=0-7 driver=580.95.05\n");
  expect_serve(c, four, 4, "580.95.05", NN_P2P_BROKEN,
               "does not say the test across processes passed (xproc=ok)");
  nn_config_free(c);
  c = parse_ok(GPUS8 "p2p ok level=PHB gpus=0-7\n");
  expect_serve(c, four, 4, "580.95.05", NN_P2P_BROKEN,
               "does not say which driver was tested (driver=");
  nn_config_free(c);
  c = parse_ok(GPUS8 "p2p broken gpus=0-3 driver=580.95.05\n"); /* broken serves off to everyone */
  expect_serve(c, upper, 4, "590.1", NN_P2P_BROKEN, NULL);
  nn_config_free(c);
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
  expect_err("p2p ok level=NVL\n", 1,
             "p2p: unknown level 'NVL' (expected LOC, PIX, PXB, PHB or SYS)");
  expect_err("p2p broken level=SYS\n", 1, "p2p: level= goes only with p2p ok");
  expect_err("p2p ok speed=fast\n", 1, "p2p: unknown key 'speed'");
  expect_err("p2p ok\np2p broken\n", 2, "p2p: second p2p line (first on line 1)");
  expect_err("env NCCL_P2P_LEVEL=SYS\np2p ok\n", 1,
             "env: NCCL_P2P_LEVEL conflicts with the p2p line (line 2), which decides peer access");
  expect_err("p2p broken\nenv NCCL_P2P_DISABLE=0\n", 2,
             "env: NCCL_P2P_DISABLE conflicts with the p2p line (line 1)");
  expect_err("p2p ok gpus=x\n", 1, "p2p: gpus='x': expected N or N-M items");
  expect_err("p2p ok gpus=3-1\n", 1, "p2p: gpus='3-1': range 3-1 is inverted");
  expect_err("p2p ok gpus=0-64\n", 1, "p2p: gpus= names GPU 64; a p2p line records GPUs 0 to 63");
  expect_err(GPUS2 "p2p ok gpus=0-2\n", 3,
             "p2p: gpus= names a GPU above 1, the mapping's last gpu line");
  expect_err("p2p ok driver=abc\n", 1, "p2p: driver='abc': expected the NVIDIA driver's version");
  expect_err("p2p ok driver=.5\n", 1, "p2p: driver='.5'");
  expect_err("p2p ok xproc=maybe\n", 1, "p2p: xproc='maybe': expected ok or failed");
  expect_err("p2p ok xproc=failed\n", 1, "p2p: ok with xproc=failed");
  expect_err("p2p none\n", 1, "p2p: expected ok, broken or unsupported after p2p, got 'none'");
}

/* An env line the p2p line does not decide stays the file's own. */
static void test_p2p_leaves_other_env(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(GPUS2 "p2p unsupported\nenv NCCL_P2P_DISABLE=1\n");
  assert_string_equal(nn_config_env(c, "NCCL_P2P_DISABLE"), "1");
  nn_config_free(c);
  c = parse_ok(GPUS2 "p2p ok gpus=0-1 driver=580.95.05 xproc=ok\nenv NCCL_SOCKET_IFNAME=lo\n");
  assert_string_equal(nn_config_env(c, "NCCL_SOCKET_IFNAME"), "lo");
  assert_string_equal(nn_config_env(c, "NCCL_P2P_LEVEL"), "PHB");
  nn_config_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_p2p_states_serve),
    cmocka_unit_test(test_p2p_recorded),
    cmocka_unit_test(test_p2p_fields_recorded),
    cmocka_unit_test(test_p2p_covers),
    cmocka_unit_test(test_p2p_serve),
    cmocka_unit_test(test_p2p_errors),
    cmocka_unit_test(test_p2p_leaves_other_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
