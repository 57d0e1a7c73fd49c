/* SPDX-License-Identifier: BSD-3-Clause */
/* test_abrun.c - the sweeps' option parser (cli/sweep/abrun.c, nn_ab_parse_args): the shared
 * options and their values, a command's own, `--` and nccl-tests' arguments, every refusal. */
#include "nn_test.h"

#include "cli/sweep/abrun.h"

struct own_seen {
  char *config;
  int flag;
};

static int take(void *arg, const char *name, char *value) {
  struct own_seen *s = arg;
  if (!strcmp(name, "config")) s->config = value;
  else s->flag++;
  return 0;
}

static const struct nn_ab_own_opt own_opts[] = {{"config", 0}, {"no-plot", 1}};

/* Parses a copy of argv (NULL-terminated; the parser may write into its values, as into a
 * real argv); returns what nn_ab_parse_args did. The copies stay for the test's checks. */
static int parse(struct nn_ab_opts *o, struct own_seen *seen, char *err, size_t errsz,
                 char **args) {
  static char copy[32][64];
  static char *argv[32];
  int argc = 0;
  for (; argc < 31 && args[argc]; argc++) argv[argc] = strcpy(copy[argc], args[argc]);
  argv[argc] = NULL;
  nn_ab_opts_init(o);
  memset(seen, 0, sizeof *seen);
  const struct nn_ab_own own = {own_opts, 2, take, seen};
  err[0] = 0;
  return nn_ab_parse_args(argc, argv, o, &own, err, errsz);
}

static void test_values(void **state) {
  (void)state;
  struct nn_ab_opts o;
  struct own_seen seen;
  char err[256];
  char *argv[] = {"ab",
                  "--colls=all_reduce,allgather",
                  "-b",
                  "64K",
                  "-e",
                  "16M",
                  "-f",
                  "4",
                  "-g",
                  "8",
                  "--repeats=3",
                  "--config",
                  "m.conf",
                  "--no-plot",
                  "--nccl-version=2.28.9",
                  "--",
                  "-d",
                  "half",
                  NULL};
  int rc = parse(&o, &seen, err, sizeof err, argv);
  if (rc) print_error("rc %d: %s\n", rc, err);
  assert_int_equal(rc, 0);
  assert_int_equal(o.n_colls, 2);
  assert_string_equal(o.colls[0], "all_reduce");
  assert_string_equal(o.colls[1], "all_gather");
  assert_string_equal(o.minb, "64K");
  assert_string_equal(o.maxb, "16M");
  assert_string_equal(o.factor, "4");
  assert_int_equal(o.gpus, 8);
  assert_int_equal(o.repeats, 3);
  assert_int_equal(o.nccl_code, 22809);
  assert_string_equal(seen.config, "m.conf");
  assert_int_equal(seen.flag, 1);
  assert_int_equal(o.n_extra, 2);
  assert_string_equal(o.extra[0], "-d");
}

static void expect(int want_rc, const char *want_err, char **argv) {
  struct nn_ab_opts o;
  struct own_seen seen;
  char err[256];
  int rc = parse(&o, &seen, err, sizeof err, argv);
  if (rc != want_rc || strcmp(err, want_err))
    print_error("%s: rc %d '%s', wanted %d '%s'\n", argv[1], rc, err, want_rc, want_err);
  assert_int_equal(rc, want_rc);
  assert_string_equal(err, want_err);
}

static void test_refusals(void **state) {
  (void)state;
  expect(NN_AB_HELP, "", (char *[]){"ab", "--help", NULL});
  expect(NN_AB_UNKNOWN, "unknown option '--bogus'", (char *[]){"ab", "--bogus", NULL});
  expect(NN_AB_UNKNOWN, "'--colls' needs a value", (char *[]){"ab", "--colls", NULL});
  expect(NN_AB_USAGE, "-b: 'lots' is not a size (e.g. 8, 64K, 256M)",
         (char *[]){"ab", "-b", "lots", NULL});
  expect(
    NN_AB_USAGE,
    "-- -c 0: every run checks its results (nccl-tests' -c 1); a run with #wrong > 0 is FAILED, "
    "never a winner",
    (char *[]){"ab", "--", "-c", "0", NULL});
  expect(NN_AB_UNKNOWN, "unexpected argument 'stray' (nccl-tests' own arguments go after --)",
         (char *[]){"ab", "stray", NULL});
  /* "--" as an option's value ends nothing: what follows is still an option, or a stray */
  expect(NN_AB_UNKNOWN, "unexpected argument 'x' (nccl-tests' own arguments go after --)",
         (char *[]){"ab", "--config", "--", "x", NULL});
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_values),
                                     cmocka_unit_test(test_refusals)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
