/* SPDX-License-Identifier: BSD-3-Clause */
/* test_errbuf.c - the caller's error buffer (plugin/util/errbuf.c): formatted, always
 * terminated, cut short, and a NULL or empty buffer left alone. */
#include "nn_test.h"

#include "errbuf.h"

static void test_set(void **state) {
  (void)state;
  char err[16];
  nn_errbuf_set(err, sizeof err, "%s:%d: %s", "a.conf", 3, "bad");
  assert_string_equal(err, "a.conf:3: bad");
  nn_errbuf_set(err, sizeof err, "%s", "a message longer than the buffer");
  assert_int_equal(strlen(err), sizeof err - 1);
  assert_memory_equal(err, "a message longe", sizeof err);
  char one[1] = {'x'};
  nn_errbuf_set(one, 0, "%s", "nothing"); /* errsz 0: not touched */
  assert_int_equal(one[0], 'x');
  nn_errbuf_set(NULL, 8, "%s", "nothing"); /* no buffer: no crash, nothing written */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_set)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
