/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpulist.c - CPU lists (plugin/util/cpulist.c): parsing into a mask, the sysfs
 * cpumap format, and each refusal's reason. */
#include "nn_test.h"

#include "cpulist.h"

static void test_parse_and_format(void **state) {
  (void)state;
  uint32_t mask[NN_CPUMASK_WORDS] = {0};
  char err[128] = "", buf[64];
  assert_int_equal(nn_cpulist_parse("0-3,8,10-11", mask, err, sizeof err), 11);
  assert_int_equal(mask[0], 0xd0f);
  assert_int_equal(nn_cpumask_format(mask, 11, buf, sizeof buf), 8);
  assert_string_equal(buf, "00000d0f");
  assert_int_equal(nn_cpumask_chars(11), 8);
  uint32_t wide[NN_CPUMASK_WORDS] = {0};
  assert_int_equal(nn_cpulist_parse("0-31", wide, err, sizeof err), 31);
  assert_int_equal(nn_cpumask_format(wide, 63, buf, sizeof buf), 17);
  assert_string_equal(buf, "00000000,ffffffff");
  assert_int_equal(nn_cpumask_format(wide, 63, buf, 8), -1);               /* too small a buffer */
  assert_int_equal(nn_cpulist_parse("4095", NULL, err, sizeof err), 4095); /* mask may be NULL */
}

static void expect_refused(const char *list, const char *why) {
  uint32_t mask[NN_CPUMASK_WORDS] = {0};
  char err[128] = "";
  assert_int_equal(nn_cpulist_parse(list, mask, err, sizeof err), -1);
  assert_string_equal(err, why);
}

static void test_refusals(void **state) {
  (void)state;
  expect_refused("3-1", "range 3-1 is inverted");
  expect_refused("x", "expected N or N-M items separated by commas");
  expect_refused("0-100000", "CPU numbers go up to 4095");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_parse_and_format),
                                     cmocka_unit_test(test_refusals)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
