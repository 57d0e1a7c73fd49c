/* SPDX-License-Identifier: BSD-3-Clause */
/* test_glooenv.c - GLOO_SOCKET_IFNAME from NCCL_SOCKET_IFNAME (cli/common/glooenv.c): the user's
 * value wins over the mapping's, prefixes expand to this host's interfaces, '=' is exact, '^' and
 * no match set nothing, and a set GLOO_SOCKET_IFNAME is left alone. */
#include "config_fixture.h"

#include <stdlib.h>

#include "cli/common/glooenv.h"

static const char *const ifs[] = {"lo", "ens18", "ens1f0np0", "ens1f1np1", "eth0", NULL};

static int gloo(const struct nn_config *cfg, char *out, char *why) {
  return nn_glooenv_ifname(cfg, ifs, out, 256, why, 512);
}

static void test_from_environment_and_mapping(void **state) {
  (void)state;
  char out[256], why[512];
  unsetenv("GLOO_SOCKET_IFNAME");
  unsetenv("NCCL_SOCKET_IFNAME");
  struct nn_config *c = parse_ok(GPUS2 "env NCCL_SOCKET_IFNAME=ens18\n");
  assert_int_equal(gloo(c, out, why), 1);
  assert_string_equal(out, "ens18");
  assert_string_equal(why,
                      "GLOO_SOCKET_IFNAME=ens18 (from the mapping's NCCL_SOCKET_IFNAME=ens18)");
  setenv("NCCL_SOCKET_IFNAME", "ens1,eth", 1); /* the user's wins; prefixes expand, in host order */
  assert_int_equal(gloo(c, out, why), 1);
  assert_string_equal(out, "ens18,ens1f0np0,ens1f1np1,eth0"); /* ens1 is a prefix of ens18 */
  setenv("NCCL_SOCKET_IFNAME", "=ens1f1np1,ens18:5000", 1);
  assert_int_equal(gloo(c, out, why), 1);
  assert_string_equal(out, "ens1f1np1,ens18");
  setenv("NCCL_SOCKET_IFNAME", "ens,ens18", 1); /* each interface once */
  assert_int_equal(gloo(c, out, why), 1);
  assert_string_equal(out, "ens18,ens1f0np0,ens1f1np1");
  nn_config_free(c);
  unsetenv("NCCL_SOCKET_IFNAME");
}

static void test_nothing_set(void **state) {
  (void)state;
  char out[256], why[512];
  unsetenv("NCCL_SOCKET_IFNAME");
  struct nn_config *c = parse_ok(GPUS2);
  assert_int_equal(gloo(c, out, why), 0);
  assert_string_equal(why, "");
  nn_config_free(c);
  setenv("NCCL_SOCKET_IFNAME", "^docker,lo", 1);
  assert_int_equal(gloo(NULL, out, why), 0);
  assert_non_null(strstr(why, "only excludes interfaces"));
  setenv("NCCL_SOCKET_IFNAME", "ib", 1);
  assert_int_equal(gloo(NULL, out, why), 0);
  assert_non_null(strstr(why, "no interface of this host matches NCCL_SOCKET_IFNAME=ib"));
  setenv("GLOO_SOCKET_IFNAME", "eth0", 1); /* the user's own: left alone, silently */
  setenv("NCCL_SOCKET_IFNAME", "ens18", 1);
  assert_int_equal(gloo(NULL, out, why), 0);
  assert_string_equal(why, "");
  unsetenv("GLOO_SOCKET_IFNAME");
  unsetenv("NCCL_SOCKET_IFNAME");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_from_environment_and_mapping),
    cmocka_unit_test(test_nothing_set),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
