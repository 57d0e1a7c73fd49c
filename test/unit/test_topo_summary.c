/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topo_summary.c - what check reads of a topology file (cli/topo/topo_summary.c): the
 * CPUs holding GPUs and the GPUs under each, and the files it refuses. */
#include "nn_test.h"

#include "cli/topo/topo_summary.h"

static void test_two_sockets(void **state) {
  (void)state;
  char *f = nn_test_write_file("<system version=\"1\">\n"
                               " <cpu numaid=\"0\" affinity=\"00ff\" arch=\"x86_64\" "
                               "vendor=\"AuthenticAMD\" familyid=\"26\" modelid=\"2\">\n"
                               "  <pci busid=\"0000:01:00.0\" class=\"0x030000\" link_speed=\"32.0 "
                               "GT/s PCIe\" link_width=\"16\"/>\n"
                               " </cpu>\n"
                               " <cpu numaid=\"1\" affinity=\"ff00\" arch=\"x86_64\" "
                               "vendor=\"AuthenticAMD\" familyid=\"26\" modelid=\"2\">\n"
                               "  <pci busid=\"0000:81:00.0\" class=\"0x030000\" link_speed=\"32.0 "
                               "GT/s PCIe\" link_width=\"16\"/>\n"
                               " </cpu>\n"
                               "</system>\n");
  static struct nn_topo_summary s;
  char why[256] = "";
  int rc = nn_topo_summarise_file(f, 1 << 20, &s, why, sizeof why);
  if (rc) print_error("%s\n", why);
  assert_int_equal(rc, 0);
  assert_int_equal(s.n_cpus_with_gpus, 2);
  assert_string_equal(s.vendor, "AuthenticAMD");
  assert_int_equal(s.family, 26);
  assert_int_equal(s.n_gpus, 2);
  assert_int_equal(s.gpus[1].numaid, 1);
  assert_int_equal(s.gpus[1].bus.bus, 0x81);
  unlink(f);
  free(f);
}

static void expect_refused(const char *text, const char *why_has) {
  char *f = nn_test_write_file(text);
  static struct nn_topo_summary s;
  char why[256] = "";
  assert_int_equal(nn_topo_summarise_file(f, 1 << 20, &s, why, sizeof why), -1);
  if (!strstr(why, why_has)) print_error("'%s' lacks '%s'\n", why, why_has);
  assert_non_null(strstr(why, why_has));
  unlink(f);
  free(f);
}

static void test_refused(void **state) {
  (void)state;
  expect_refused("<system><cpu>", "does not parse as XML");
  expect_refused("<!DOCTYPE system [<!ENTITY x \"y\">]>\n<system/>\n", "DOCTYPE");
  expect_refused("<graphs/>\n", "root element is <graphs>, not <system>");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_sockets),
                                     cmocka_unit_test(test_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
