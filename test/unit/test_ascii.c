/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ascii.c - the config's keyword comparison (include/util/ascii.h), and that parsing does
 * not follow the host program's locale. */
#include <locale.h>

#include "ascii.h"
#include "nn_config.h"
#include "nn_test.h"

static void test_case_fold(void **state) {
  (void)state;
  assert_true(nn_ascii_caseeq("AllReduce", "allreduce"));
  assert_true(nn_ascii_caseeq("", ""));
  assert_false(nn_ascii_caseeq("ring", "rin"));
  assert_false(nn_ascii_caseeq("rin", "ring"));
  assert_false(nn_ascii_caseeq("a[", "A{"));             /* only A-Z fold: '[' and '{' differ */
  assert_false(nn_ascii_caseeq("\xc3\x89", "\xc3\xa9")); /* no folding beyond ASCII */
  assert_true(nn_ascii_caseeq_n("collective", "COLLECTIVE_X", 10));
  assert_false(nn_ascii_caseeq_n("coll", "COLLECTIVE", 10));
  assert_int_equal(nn_ascii_lower('Q'), 'q');
  assert_int_equal(nn_ascii_lower(0xc9), 0xc9);
}

/* Whatever locale is installed here (a Turkish one changes how 'I' folds for tolower),
 * an upper-case mapping parses the same. */
static void test_parse_ignores_locale(void **state) {
  (void)state;
  static const char text[] =
    "GPU 0 BUS=0000:01:00.0 NUMA=0\nRULE COLL=ALLREDUCE BYTES=0-1M ALGO=RING PROTO=SIMPLE\n";
  const char *locales[] = {"C", "tr_TR.UTF-8", "tr_TR.ISO-8859-9", "C.UTF-8"};
  for (size_t i = 0; i < sizeof locales / sizeof *locales; i++) {
    if (!setlocale(LC_ALL, locales[i])) continue;
    struct nn_config *cfg = NULL;
    struct nn_diag diag = {0};
    assert_int_equal(nn_config_parse("upper.conf", text, sizeof text - 1, NULL, &cfg, &diag), 0);
    assert_int_equal(cfg->n_rules, 1);
    assert_int_equal(cfg->rules[0].coll, NN_COLL_ALLREDUCE);
    assert_int_equal(cfg->rules[0].algo, NN_ALGO_RING);
    nn_config_free(cfg);
    nn_diag_clear(&diag);
  }
  setlocale(LC_ALL, "C");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_case_fold),
    cmocka_unit_test(test_parse_ignores_locale),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
