/* SPDX-License-Identifier: BSD-3-Clause */
/* test_numparse.c - checked text-to-number conversion (numparse.h). */
#include "nn_test.h"

#include <limits.h>

#include "numparse.h"

static void test_int_whole(void **state) {
  (void)state;
  int v = 7;
  assert_int_equal(nn_int_parse("42", 0, 100, &v), 0);
  assert_int_equal(v, 42);
  assert_int_equal(nn_int_parse("-1", -1, 10, &v), 0);
  assert_int_equal(v, -1);
  assert_int_equal(nn_int_parse("+3", 0, 10, &v), 0);
  assert_int_equal(v, 3);
  assert_int_equal(nn_int_parse("2147483647", 0, INT_MAX, &v), 0);
  assert_int_equal(v, INT_MAX);
  /* what atoi would have read as some number: refused, v untouched */
  v = 7;
  const char *bad[] = {"",
                       " 1",
                       "1 ",
                       "abc",
                       "12abc",
                       "-",
                       "+",
                       "0x10",
                       "1.5",
                       "2147483648",
                       "99999999999999999999",
                       "-99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(nn_int_parse(bad[i], INT_MIN, INT_MAX, &v), -1);
    assert_int_equal(v, 7);
  }
  assert_int_equal(nn_int_parse(NULL, 0, 1, &v), -1);
  /* range */
  assert_int_equal(nn_int_parse("101", 0, 100, &v), -1);
  assert_int_equal(nn_int_parse("-2", -1, 100, &v), -1);
  assert_int_equal(nn_int_parse("100", 0, 100, &v), 0);
  assert_int_equal(v, 100);
}

static void test_int_prefix(void **state) {
  (void)state;
  int v = 7;
  const char *end = NULL;
  assert_int_equal(nn_int_parse_prefix(" \t12 OK", 0, 100, &v, &end), 0);
  assert_int_equal(v, 12);
  assert_string_equal(end, " OK");
  assert_int_equal(nn_int_parse_prefix("2.28.9", 0, 9, &v, &end), 0);
  assert_int_equal(v, 2);
  assert_string_equal(end, ".28.9");
  assert_int_equal(nn_int_parse_prefix("5", 0, 9, &v, NULL), 0);
  assert_int_equal(v, 5);
  v = 7;
  end = "unchanged";
  assert_int_equal(nn_int_parse_prefix("x1", 0, 9, &v, &end), -1);
  assert_int_equal(nn_int_parse_prefix(" ", 0, 9, &v, &end), -1);
  assert_int_equal(nn_int_parse_prefix("10x", 0, 9, &v, &end), -1); /* out of range */
  assert_int_equal(nn_int_parse_prefix("99999999999999999999 ", 0, INT_MAX, &v, &end), -1);
  assert_int_equal(nn_int_parse_prefix(NULL, 0, 9, &v, &end), -1);
  assert_int_equal(v, 7);
  assert_string_equal(end, "unchanged");
}

static void test_int_base(void **state) {
  (void)state;
  int v = 7;
  assert_int_equal(nn_int_parse_base("1f", 16, 0, 255, &v), 0);
  assert_int_equal(v, 0x1f);
  assert_int_equal(nn_int_parse_base("0x1F", 16, 0, 255, &v), 0);
  assert_int_equal(v, 0x1f);
  assert_int_equal(nn_int_parse_base("0x19", 0, 0, 255, &v), 0);
  assert_int_equal(v, 25);
  assert_int_equal(nn_int_parse_base("010", 0, 0, 255, &v), 0); /* C's octal, as strtol(.., 0) */
  assert_int_equal(v, 8);
  assert_int_equal(nn_int_parse_base("25", 0, 0, 255, &v), 0);
  assert_int_equal(v, 25);
  assert_int_equal(nn_int_parse_base("0", 0, 0, 255, &v), 0);
  assert_int_equal(v, 0);
  assert_int_equal(nn_int_parse_base("-0x10", 16, -16, 0, &v), 0);
  assert_int_equal(v, -16);
  assert_int_equal(nn_int_parse_base("0010", 10, 0, 255, &v), 0);
  assert_int_equal(v, 10);
  v = 7;
  const char *bad[] = {"", " 1", "1 ", "0x", "0xg", "x10", "g", "1.5", "0x1 ", "0x80000000", "-"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(nn_int_parse_base(bad[i], 16, INT_MIN, INT_MAX, &v), -1);
    assert_int_equal(nn_int_parse_base(bad[i], 0, INT_MIN, INT_MAX, &v), -1);
  }
  assert_int_equal(nn_int_parse_base("09", 0, 0, 255, &v), -1); /* not octal */
  assert_int_equal(nn_int_parse_base("ff", 10, 0, 255, &v), -1);
  assert_int_equal(nn_int_parse_base("0x10", 10, 0, 255, &v), -1);
  assert_int_equal(nn_int_parse_base("100", 16, 0, 255, &v), -1); /* 256: out of range */
  assert_int_equal(nn_int_parse_base("10", 8, 0, 255, &v), -1);   /* no such base here */
  assert_int_equal(nn_int_parse_base(NULL, 16, 0, 255, &v), -1);
  assert_int_equal(v, 7);
}

static void test_double(void **state) {
  (void)state;
  double d = 7;
  assert_int_equal(nn_double_parse("1.250", &d), 0);
  assert_true(d == 1.25);
  assert_int_equal(nn_double_parse("-0.5", &d), 0);
  assert_true(d == -0.5);
  assert_int_equal(nn_double_parse("3", &d), 0);
  assert_true(d == 3);
  d = 7;
  const char *bad[] = {"", " 1", "1 ", "abc", "1.5s", "nan", "inf", "-inf", "1e999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(nn_double_parse(bad[i], &d), -1);
    assert_true(d == 7);
  }
  assert_int_equal(nn_double_parse(NULL, &d), -1);
}

static void test_u64(void **state) {
  (void)state;
  uint64_t v = 7;
  assert_int_equal(nn_u64_parse("18446744073709551615", 0, UINT64_MAX, &v), 0);
  assert_true(v == UINT64_MAX);
  assert_int_equal(nn_u64_parse("64K", 1, UINT64_MAX, &v), 0);
  assert_true(v == 65536);
  assert_int_equal(nn_u64_parse("2t", 1, UINT64_MAX, &v), 0);
  assert_true(v == 2ull << 40);
  v = 7;
  assert_int_equal(nn_u64_parse("64K", 0, UINT64_MAX, &v), -1); /* no suffix allowed */
  assert_int_equal(nn_u64_parse("-1", 0, UINT64_MAX, &v), -1);
  assert_int_equal(nn_u64_parse(" 1", 0, UINT64_MAX, &v), -1);
  assert_int_equal(nn_u64_parse("1KB", 1, UINT64_MAX, &v), -1);
  assert_int_equal(nn_u64_parse("", 0, UINT64_MAX, &v), -1);
  assert_int_equal(nn_u64_parse(NULL, 0, UINT64_MAX, &v), -1);
  assert_int_equal(nn_u64_parse("18446744073709551616", 0, UINT64_MAX, &v), -2);
  assert_int_equal(nn_u64_parse("16777216T", 1, UINT64_MAX, &v), -2); /* 2^64 */
  assert_int_equal(nn_u64_parse("65", 0, 64, &v), -2);
  assert_true(v == 7);
}

static void test_hex(void **state) {
  (void)state;
  uint64_t v = 7;
  const char *end = NULL;
  assert_int_equal(nn_hex_parse_prefix("10de", UINT64_MAX, &v, &end), 0);
  assert_true(v == 0x10de);
  assert_string_equal(end, "");
  assert_int_equal(nn_hex_parse_prefix("FFFFffffFFFFffff nRanks", UINT64_MAX, &v, &end), 0);
  assert_true(v == UINT64_MAX);
  assert_string_equal(end, " nRanks");
  assert_int_equal(nn_hex_parse_prefix("1f:00.0", 0xff, &v, &end), 0);
  assert_true(v == 0x1f);
  assert_string_equal(end, ":00.0");
  assert_int_equal(nn_hex_parse_prefix("a", 0xf, &v, NULL), 0);
  assert_true(v == 0xa);
  /* what strtoull would have taken (blanks, sign, 0x) or wrapped: refused, v and end untouched */
  v = 7;
  end = "unchanged";
  const char *bad[] = {"", " 1", "-1", "+1", "x1", "g", ":1", "10000000000000000"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(nn_hex_parse_prefix(bad[i], UINT64_MAX, &v, &end), -1);
  assert_int_equal(nn_hex_parse_prefix("100:", 0xff, &v, &end), -1); /* over max */
  assert_int_equal(nn_hex_parse_prefix(NULL, 0xff, &v, &end), -1);
  assert_true(v == 7);
  assert_string_equal(end, "unchanged");
}

static void test_double_prefix(void **state) {
  (void)state;
  double d = 7;
  const char *end = NULL;
  assert_int_equal(nn_double_parse_prefix("4.6/  -1.0", &d, &end), 0);
  assert_true(d == 4.6);
  assert_string_equal(end, "/  -1.0");
  assert_int_equal(nn_double_parse_prefix("  -1.0", &d, &end), 0);
  assert_true(d == -1.0);
  assert_string_equal(end, "");
  assert_int_equal(nn_double_parse_prefix("\t2e3us", &d, NULL), 0);
  assert_true(d == 2000);
  d = 7;
  end = "unchanged";
  const char *bad[] = {"", " ", "/1", "x1", "nan", " inf", "-infinity", "1e999", "\n1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(nn_double_parse_prefix(bad[i], &d, &end), -1);
    assert_true(d == 7);
  }
  assert_int_equal(nn_double_parse_prefix(NULL, &d, &end), -1);
  assert_string_equal(end, "unchanged");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_int_whole),     cmocka_unit_test(test_int_prefix),
    cmocka_unit_test(test_int_base),      cmocka_unit_test(test_double),
    cmocka_unit_test(test_u64),           cmocka_unit_test(test_hex),
    cmocka_unit_test(test_double_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
