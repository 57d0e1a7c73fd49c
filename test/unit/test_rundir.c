/* SPDX-License-Identifier: BSD-3-Clause */
/* test_rundir.c - the run directory's small parts (cli/sweep/rundir.c): sizes with binary
 * suffixes both ways, the median of the repeats, and which arm names are safe file names. */
#include "nn_test.h"

#include <math.h>

#include "cli/sweep/rundir.h"
#include "sizetext.h"

static void expect_size(const char *text, uint64_t want, const char *formatted) {
  uint64_t v = 1;
  char buf[32];
  assert_int_equal(nn_rundir_size_parse(text, &v), 0);
  assert_true(v == want);
  nn_sizetext(v, buf, sizeof buf);
  assert_string_equal(buf, formatted);
}

static void test_sizes(void **state) {
  (void)state;
  expect_size("8", 8, "8 B");
  expect_size("0", 0, "0 B");
  expect_size("1K", 1024, "1 KiB");
  expect_size("1k", 1024, "1 KiB");
  expect_size("64K", 65536, "64 KiB");
  expect_size("2m", 2097152, "2 MiB");
  expect_size("4G", 4294967296ull, "4 GiB");
  const char *bad[] = {"1.5K", "abc", "-1", "", NULL};
  for (int i = 0; bad[i]; i++) {
    uint64_t v = 7;
    assert_int_equal(nn_rundir_size_parse(bad[i], &v), -1);
  }
}

static void test_median(void **state) {
  (void)state;
  const double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
  assert_true(nn_rundir_median(odd, 3) == 2);
  assert_true(nn_rundir_median(even, 4) == 2.5);
  assert_true(isnan(nn_rundir_median(odd, 0)));
}

static void test_arm_names(void **state) {
  (void)state;
  const char *ok[] = {"stock", "numa", "ring.ll", NULL}, *bad[] = {"a b", "../x", "", "x/y", NULL};
  for (int i = 0; ok[i]; i++) assert_true(nn_rundir_name_ok(ok[i]));
  for (int i = 0; bad[i]; i++) assert_false(nn_rundir_name_ok(bad[i]));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_sizes), cmocka_unit_test(test_median),
                                     cmocka_unit_test(test_arm_names)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
