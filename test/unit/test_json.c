/* SPDX-License-Identifier: BSD-3-Clause */
/* test_json.c - the CLI's JSON reader (cli/common/json.c): values, nesting, escapes,
 * numbers as strings, and every refusal with its message. */
#include "nn_test.h"

#include <math.h>

#include "cli/common/json.h"

static int parse(struct nn_json *p, const char *text, char *err, size_t errsz) {
  memset(p, 0, sizeof *p);
  return nn_json_parse(p, text, strlen(text), err, errsz);
}

static void test_object_members(void **state) {
  (void)state;
  struct nn_json p;
  char err[256] = "";
  int root =
    parse(&p, " {\"a\": 1.5, \"s\": \"x\\ty\", \"t\": true, \"n\": null, \"arr\": [1, 2, 3]} ", err,
          sizeof err);
  assert_true(root >= 0);
  const struct nn_jv *o = &p.v[root];
  assert_int_equal(o->type, NN_JV_OBJ);
  assert_true(nn_json_num(nn_json_get(&p, o, "a")) == 1.5);
  const struct nn_jv *s = nn_json_get(&p, o, "s");
  assert_int_equal(s->type, NN_JV_STR);
  assert_string_equal(s->str, "x\ty");
  assert_int_equal(nn_json_get(&p, o, "t")->type, NN_JV_BOOL);
  assert_int_equal(nn_json_get(&p, o, "n")->type, NN_JV_NULL);
  assert_null(nn_json_get(&p, o, "missing"));
  const struct nn_jv *arr = nn_json_get(&p, o, "arr");
  assert_int_equal(arr->type, NN_JV_ARR);
  double sum = 0;
  int count = 0;
  for (int i = arr->first; i >= 0; i = p.v[i].next, count++) sum += p.v[i].num;
  assert_int_equal(count, 3);
  assert_true(sum == 6);
  nn_json_free(&p);
}

/* nccl-tests' -J output writes some numbers as strings ("    -1", "nan"). */
static void test_numbers_in_strings(void **state) {
  (void)state;
  struct nn_json p;
  char err[256];
  int root =
    parse(&p, "{\"t\": \"   -1\", \"u\": \"nan\", \"v\": \"abc\", \"w\": [] }", err, sizeof err);
  assert_true(root >= 0);
  const struct nn_jv *o = &p.v[root];
  assert_true(nn_json_num(nn_json_get(&p, o, "t")) == -1);
  assert_true(isnan(nn_json_num(nn_json_get(&p, o, "u"))));
  assert_true(isnan(nn_json_num(nn_json_get(&p, o, "v"))));
  assert_true(isnan(nn_json_num(nn_json_get(&p, o, "w"))));
  assert_true(isnan(nn_json_num(NULL)));
  nn_json_free(&p);
}

/* \u escapes outside ASCII become '?'; control characters decode as themselves and the
 * printers escape them (printable.h), never the reader. */
static void test_unicode_escapes(void **state) {
  (void)state;
  struct nn_json p;
  char err[256];
  int root = parse(&p, "[\"a\\u00e9b\", \"\\u0041\\n\"]", err, sizeof err);
  assert_true(root >= 0);
  const struct nn_jv *a = &p.v[root];
  assert_string_equal(p.v[a->first].str, "a?b");
  assert_string_equal(p.v[p.v[a->first].next].str, "A\n");
  nn_json_free(&p);
}

static void expect_refused(const char *text, const char *want) {
  struct nn_json p;
  char err[256] = "";
  int root = parse(&p, text, err, sizeof err);
  if (root >= 0 || !strstr(err, want))
    print_error("'%s': root %d, err '%s', wanted '%s'\n", text, root, err, want);
  assert_int_equal(root, -1);
  assert_non_null(strstr(err, want));
  nn_json_free(&p);
}

/* Each refusal says where and what was expected. */
static void test_refusals(void **state) {
  (void)state;
  expect_refused("", "truncated JSON: input ends at byte 0 while reading a value");
  expect_refused("{\"a\": }", "invalid JSON at byte 6: expected a number");
  expect_refused("[1, 2", "truncated JSON: input ends at byte 5 while reading ',' or ']'");
  expect_refused("\"open", "truncated JSON: input ends at byte 5 while reading a string");
  expect_refused("{\"a\" 1}", "invalid JSON at byte 5: expected ':'");
  expect_refused("{} x", "invalid JSON at byte 3: text after the document");
}

/* Depth is bounded: a deep nesting is refused, not a stack overflow. */
static void test_depth_bound(void **state) {
  (void)state;
  char deep[20001];
  memset(deep, '[', 10000);
  memset(deep + 10000, ']', 10000);
  deep[20000] = 0;
  struct nn_json p;
  char err[256] = "";
  assert_int_equal(parse(&p, deep, err, sizeof err), -1);
  assert_true(err[0] != 0);
  nn_json_free(&p);
  assert_true(parse(&p, "[[[[1]]]]", err, sizeof err) >= 0);
  nn_json_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_object_members),  cmocka_unit_test(test_numbers_in_strings),
    cmocka_unit_test(test_unicode_escapes), cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_depth_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
