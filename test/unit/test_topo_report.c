/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topo_report.c - the validator's findings (cli/topo/topo_report.c): counted, sorted by line
 * stably, printed as NAME:LINE: problem, freed back to empty. */
#include "nn_test.h"

#include "cli/topo/topo_check.h"

static void test_report(void **state) {
  (void)state;
  struct nn_topo_report r = {0};
  nn_topo_report_add(&r, 5, 0, "b %d", 1);
  nn_topo_report_add(&r, 2, 1, "a");
  nn_topo_report_add(&r, 5, 0, "b2");
  nn_topo_report_add(&r, 0, 0, "whole file");
  nn_topo_report_sort(&r, 0);
  assert_int_equal(r.errors, 3);
  assert_int_equal(r.warnings, 1);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  nn_topo_report_print(&r, "x.xml", f);
  fclose(f);
  assert_string_equal(buf, "x.xml: whole file\nx.xml:2: warning: a\nx.xml:5: b 1\nx.xml:5: b2\n");
  free(buf);
  nn_topo_report_free(&r);
  assert_int_equal(r.n, 0);
  assert_null(r.items);
  assert_int_equal(r.errors, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_report)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
