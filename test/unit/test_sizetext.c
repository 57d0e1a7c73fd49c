/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sizetext.c - the one byte-count formatter (plugin/util/sizetext.c) that explain, check,
 * report, calibrate and the topology verdict share: the largest binary unit that divides. */
#include "nn_test.h"

#include "sizetext.h"

static void test_units(void **state) {
  (void)state;
  static const struct {
    uint64_t bytes;
    const char *text;
  } cases[] = {{0, "0 B"},
               {1, "1 B"},
               {1000, "1000 B"},
               {1024, "1 KiB"},
               {1536, "1536 B"},
               {8192, "8 KiB"},
               {3u << 20, "3 MiB"},
               {(uint64_t)1 << 30, "1 GiB"},
               {(uint64_t)1 << 40, "1 TiB"},
               {(uint64_t)1 << 50, "1024 TiB"},
               {(uint64_t)5 << 40 | 1, "5497558138881 B"}};
  char buf[32];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nn_sizetext(cases[i].bytes, buf, sizeof buf);
    assert_string_equal(buf, cases[i].text);
  }
  char tiny[4];
  nn_sizetext(8192, tiny, sizeof tiny);
  assert_string_equal(tiny, "8 K"); /* cut short, terminated */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_units)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
