/* SPDX-License-Identifier: BSD-3-Clause */
/* test_text.c - the CLI's in-place string helpers (cli/common/text.c). */
#include "nn_test.h"

#include "cli/common/text.h"

static void test_trim(void **state) {
  (void)state;
  char a[] = "  \t hi there \n", b[] = "   ", c[] = "x";
  assert_string_equal(nn_text_trim(a), "hi there");
  assert_string_equal(nn_text_trim(b), "");
  assert_string_equal(nn_text_trim(c), "x");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_trim)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
