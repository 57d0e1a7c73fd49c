/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topo_scan.c - the validator's raw pass (cli/topo/topo_scan.c): the text as NCCL's own
 * reader sees it, one rule per case, and what may not reach libxml2 at all. */
#include "nn_test.h"

#include "cli/topo/topo_check.h"

/* Scans text; *first gets the first finding's message ("" when none). Returns the errors. */
static int scan(const char *text, int *may_parse, char *first, size_t size) {
  struct nn_topo_report r = {0};
  *may_parse = nn_topo_scan_text(text, strlen(text), &r);
  snprintf(first, size, "%s", r.n ? r.items[0].msg : "");
  int errors = r.errors;
  nn_topo_report_free(&r);
  return errors;
}

static void expect(const char *text, int errors, int may_parse, const char *msg_has) {
  int parse;
  char first[512];
  int e = scan(text, &parse, first, sizeof first);
  if (e != errors || parse != may_parse || !strstr(first, msg_has))
    print_error("%d errors, parse %d, '%s'; wanted %d, %d, '%s'\n", e, parse, first, errors,
                may_parse, msg_has);
  assert_int_equal(e, errors);
  assert_int_equal(parse, may_parse);
  assert_non_null(strstr(first, msg_has));
}

static void test_rules(void **state) {
  (void)state;
  expect("<system version=\"1\">\n <cpu numaid=\"0\" affinity=\"ff\"/>\n</system>\n", 0, 1, "");
  expect("<system version=\"1\">\n <cpu numaid=\"0\"  affinity=\"ff\"/>\n</system>\n", 1, 1,
         "several spaces between attributes of <cpu>: NCCL wants exactly one");
  expect("<system version=\"1\">\n <cpu numaid=\"&amp;\"/>\n</system>\n", 1, 1,
         "value of 'numaid' in <cpu> contains '&'");
  expect("<system version=\"1\">\n\t<cpu numaid=\"0\"/>\n</system>\n", 1, 1,
         "tab character (column 1)");
}

/* A DOCTYPE or an ENTITY never reaches the parser; neither does a NUL byte. */
static void test_never_parsed(void **state) {
  (void)state;
  int parse;
  char first[512];
  assert_true(scan("<!DOCTYPE system [<!ENTITY x \"y\">]>\n<system version=\"1\"/>\n", &parse,
                   first, sizeof first) > 0);
  assert_int_equal(parse, 0);
  struct nn_topo_report r = {0};
  const char nul[] = "<system version=\"1\">\n\0</system>\n";
  assert_int_equal(nn_topo_scan_text(nul, sizeof nul - 1, &r), 0);
  assert_true(r.errors > 0);
  nn_topo_report_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_rules),
                                     cmocka_unit_test(test_never_parsed)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
