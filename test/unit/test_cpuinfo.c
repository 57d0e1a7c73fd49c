/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpuinfo.c - the CPU kind from a cpuinfo file (plugin/util/cpuinfo.c), and the default
 * file the CLI replaces for predictions on another host's CPU. */
#include "nn_test.h"

#include "cpuinfo.h"

static void test_read(void **state) {
  (void)state;
  char vendor[16];
  int family = 0, model = 0;
  assert_int_equal(nn_cpuinfo_read("test/fixtures/cpuinfo/amd-turin", vendor, &family, &model), 0);
  assert_string_equal(vendor, "AuthenticAMD");
  assert_int_equal(family, 26);
  assert_int_equal(
    nn_cpuinfo_read("test/fixtures/cpuinfo/intel-emerald-rapids", vendor, &family, &model), 0);
  assert_string_equal(vendor, "GenuineIntel");
  assert_int_equal(family, 6);
  assert_int_equal(model, 207);
  assert_int_equal(nn_cpuinfo_read("/nonexistent/cpuinfo", vendor, &family, &model), -1);
  char *novendor = nn_test_write_file("processor\t: 0\ncpu family\t: 6\n");
  assert_int_equal(nn_cpuinfo_read(novendor, vendor, &family, &model), -1);
  char *nofamily = nn_test_write_file("processor\t: 0\nvendor_id\t: GenuineIntel\n");
  assert_int_equal(nn_cpuinfo_read(nofamily, vendor, &family, &model), 0);
  assert_int_equal(family, -1);
  assert_int_equal(model, -1);
  unlink(novendor);
  unlink(nofamily);
  free(novendor);
  free(nofamily);
}

static void test_default(void **state) {
  (void)state;
  assert_string_equal(nn_cpuinfo_default(), "/proc/cpuinfo");
  nn_cpuinfo_set_default("test/fixtures/cpuinfo/amd-turin");
  char vendor[16];
  int family, model;
  assert_int_equal(nn_cpuinfo_read(NULL, vendor, &family, &model), 0);
  assert_string_equal(vendor, "AuthenticAMD");
  nn_cpuinfo_set_default(NULL);
  assert_string_equal(nn_cpuinfo_default(), "/proc/cpuinfo");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_read), cmocka_unit_test(test_default)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
