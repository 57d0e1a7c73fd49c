/* SPDX-License-Identifier: BSD-3-Clause */
/* test_jsonw.c - the commands' JSON writer (cli/common/jsonw.c): nesting and commas, every
 * value type, and strings from outside kept one ASCII string; read back by json.c. */
#include "nn_test.h"

#include <math.h>

#include "cli/common/json.h"
#include "cli/common/jsonw.h"

static char *written(void (*build)(struct nn_jsonw *)) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  struct nn_jsonw w;
  nn_jsonw_begin(&w, f);
  build(&w);
  nn_jsonw_finish(&w);
  fclose(f);
  return buf;
}

static void nested(struct nn_jsonw *w) {
  nn_jsonw_object(w, NULL);
  nn_jsonw_int(w, "version", 1);
  nn_jsonw_str(w, "s", "a\"b\\c\nd\te\x1b" "f\xc3\xa9");
  nn_jsonw_num(w, "x", 2.5);
  nn_jsonw_num(w, "nan", NAN);
  nn_jsonw_bool(w, "t", 1);
  nn_jsonw_null(w, "n");
  nn_jsonw_str(w, "none", NULL);
  nn_jsonw_array(w, "a");
  nn_jsonw_int(w, NULL, 1);
  nn_jsonw_object(w, NULL);
  nn_jsonw_array(w, "empty");
  nn_jsonw_end(w);
  nn_jsonw_end(w);
  nn_jsonw_int(w, NULL, 3);
  nn_jsonw_end(w);
  /* the object is left open: finish closes it */
}

static void test_document(void **state) {
  (void)state;
  char *text = written(nested);
  assert_string_equal(text, "{\"version\":1,\"s\":\"a\\\"b\\\\c\\nd\\te\\u001bf\\\\xc3\\\\xa9\",\"x\":2.5,\"nan\":null,"
                            "\"t\":true,\"n\":null,\"none\":null,\"a\":[1,{\"empty\":[]},3]}\n");
  for (const char *p = text; *p; p++) assert_true(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
  struct nn_json j;
  memset(&j, 0, sizeof j);
  char err[256];
  int root = nn_json_parse(&j, text, strlen(text), err, sizeof err);
  assert_true(root >= 0);
  const struct nn_jv *o = &j.v[root];
  assert_string_equal(nn_json_get(&j, o, "s")->str, "a\"b\\c\nd\te\x1b" "f\\xc3\\xa9");
  assert_true(nn_json_num(nn_json_get(&j, o, "x")) == 2.5);
  assert_int_equal(nn_json_get(&j, o, "a")->type, NN_JV_ARR);
  nn_json_free(&j);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_document)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
