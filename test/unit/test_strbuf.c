/* SPDX-License-Identifier: BSD-3-Clause */
/* test_strbuf.c - the growing string (cli/common/strbuf.h). */
#include "cli/common/strbuf.h"
#include "nn_test.h"

static void test_append_and_take(void **state) {
  (void)state;
  struct nn_strbuf b = {0};
  char *empty = nn_strbuf_take(&b); /* nothing added: "", not NULL */
  assert_non_null(empty);
  assert_string_equal(empty, "");
  free(empty);
  nn_strbuf_printf(&b, "numa%d: cpus=%d", 1, 8);
  nn_strbuf_put(&b, "-15,hostnodes=1 ignored", 15);
  for (int i = 0; i < 200; i++) nn_strbuf_printf(&b, "%c", 'a' + i % 26); /* grows past 256 */
  assert_int_equal(b.len, strlen("numa1: cpus=8-15,hostnodes=1") + 200);
  char *s = nn_strbuf_take(&b);
  assert_non_null(s);
  assert_memory_equal(s, "numa1: cpus=8-15,hostnodes=1abc", 31);
  assert_int_equal(s[strlen(s) - 1], 'a' + 199 % 26);
  assert_null(b.s); /* reset: ready for the next text */
  assert_int_equal(b.len, 0);
  free(s);
}

static void test_oom_reported_once(void **state) {
  (void)state;
  struct nn_strbuf b = {0};
  nn_strbuf_printf(&b, "kept");
  b.oom = 1; /* as after a failed realloc */
  nn_strbuf_printf(&b, "lost");
  assert_int_equal(b.len, 4); /* nothing appended after the failure */
  assert_null(nn_strbuf_take(&b));
  assert_int_equal(b.oom, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_append_and_take),
    cmocka_unit_test(test_oom_reported_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
