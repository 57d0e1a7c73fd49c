/* SPDX-License-Identifier: BSD-3-Clause */
/* test_verdict.c - an arm against the baseline at one size (cli/sweep/verdict.c): faster or
 * slower only beyond the larger spread, unknown without two good repeats, failed when
 * either point failed; and the names the report prints. */
#include "nn_test.h"

#include "cli/sweep/verdict.h"

static struct nn_point pt(double median, double min, double max, int n_ok, int failed) {
  return (struct nn_point){
    .size = 8, .n_ok = n_ok, .failed = failed, .median = median, .min = min, .max = max};
}

static void test_compare(void **state) {
  (void)state;
  struct nn_point base = pt(10, 9.5, 10.5, 3, 0);
  struct nn_point fast = pt(8, 7.8, 8.2, 3, 0), near = pt(9.5, 9, 10, 3, 0),
                  slow = pt(12, 11.9, 12.1, 3, 0);
  assert_int_equal(nn_verdict_compare(&base, &fast), NN_VERDICT_FASTER); /* 2 us gain, spread 1 */
  assert_int_equal(nn_verdict_compare(&base, &slow), NN_VERDICT_SLOWER);
  assert_int_equal(nn_verdict_compare(&base, &near), NN_VERDICT_NOISE); /* 0.5 us, within 1 */
  struct nn_point wide = pt(8, 5, 11, 3, 0); /* spread 6 > the 2 us gain */
  assert_int_equal(nn_verdict_compare(&base, &wide), NN_VERDICT_NOISE);
  struct nn_point once = pt(8, 8, 8, 1, 0), bad = pt(8, 8, 8, 3, 1);
  assert_int_equal(nn_verdict_compare(&base, &once), NN_VERDICT_UNKNOWN);
  assert_int_equal(nn_verdict_compare(&base, NULL), NN_VERDICT_UNKNOWN);
  assert_int_equal(nn_verdict_compare(&base, &bad), NN_VERDICT_FAILED);
  assert_int_equal(nn_verdict_compare(&bad, &fast), NN_VERDICT_FAILED);
}

static void test_names(void **state) {
  (void)state;
  assert_string_equal(nn_verdict_name(NN_VERDICT_FASTER), "faster");
  assert_string_equal(nn_verdict_name(NN_VERDICT_SLOWER), "slower");
  assert_string_equal(nn_verdict_name(NN_VERDICT_NOISE), "within noise");
  assert_string_equal(nn_verdict_name(NN_VERDICT_FAILED), "FAILED");
  assert_string_equal(nn_verdict_name(NN_VERDICT_UNKNOWN), "n/a");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_compare), cmocka_unit_test(test_names)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
