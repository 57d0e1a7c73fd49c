/* SPDX-License-Identifier: BSD-3-Clause */
/* test_options.c - the commands' one option convention (cli/common/options.c): what a
 * refused option is called, as the user wrote it. */
#include "nn_test.h"

#include <getopt.h>

#include "cli/common/options.h"

static const struct option longs[] = {
  {"config", required_argument, 0, 'c'}, {"flag", no_argument, 0, 'f'}, {0, 0, 0, 0}};

/* The first refusal getopt_long reports for argv, in words. */
static void problem_of(int argc, char **argv, char *buf, size_t size) {
  int c;
  buf[0] = 0;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":o:h", longs, NULL)) != -1)
    if (c == '?' || c == ':') {
      nn_options_problem(c, argc, argv, buf, size);
      return;
    }
}

static void expect(const char *want, int argc, ...) {
  char *argv[8] = {"cmd"};
  va_list ap;
  va_start(ap, argc);
  for (int i = 1; i < argc; i++) argv[i] = va_arg(ap, char *);
  va_end(ap);
  char buf[256];
  problem_of(argc, argv, buf, sizeof buf);
  assert_string_equal(buf, want);
}

static void test_problems(void **state) {
  (void)state;
  expect("unknown option '--bogus'", 2, "--bogus");
  expect("unknown option '--bogus'", 2, "--bogus=3");
  expect("'--config' needs a value", 2, "--config");
  expect("'--flag' takes no value", 2, "--flag=yes");
  expect("unknown option '-x'", 2, "-x");
  expect("'-o' needs a value", 2, "-o");
  expect("unknown option '-x'", 2, "-hx");
  expect("", 4, "--config=a", "--", "--bogus"); /* `--` ends the options */
}

/* Raw bytes in a refused name are escaped, never printed. */
static void test_escaped(void **state) {
  (void)state;
  expect("unknown option '--a\\x1b[2J'", 2, "--a\x1b[2J");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_problems),
                                     cmocka_unit_test(test_escaped)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
