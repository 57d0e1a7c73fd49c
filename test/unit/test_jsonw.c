/* SPDX-License-Identifier: BSD-3-Clause */
/* test_jsonw.c - the commands' JSON writer (cli/common/jsonw.c): nesting and commas, every
 * value type, and strings from outside kept one ASCII string; read back by json.c. */
#include "nn_test.h"

#include <math.h>

#include "cli/common/json.h"
#include "cli/common/jsonw.h"
#include "log.h"

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
  nn_jsonw_str(w, "s",
               "a\"b\\c\nd\te\x1b"
               "f\xc3\xa9");
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
  assert_string_equal(
    text, "{\"version\":1,\"s\":\"a\\\"b\\\\c\\nd\\te\\u001bf\\u00e9\",\"x\":2.5,\"nan\":null,"
          "\"t\":true,\"n\":null,\"none\":null,\"a\":[1,{\"empty\":[]},3]}\n");
  for (const char *p = text; *p; p++) assert_true(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
  struct nn_json j;
  memset(&j, 0, sizeof j);
  char err[256];
  int root = nn_json_parse(&j, text, strlen(text), err, sizeof err);
  assert_true(root >= 0);
  const struct nn_jv *o = &j.v[root];
  assert_string_equal(nn_json_get(&j, o, "s")->str, "a\"b\\c\nd\te\x1b"
                                                    "f?"); /* its \u outside ASCII */
  assert_true(nn_json_num(nn_json_get(&j, o, "x")) == 2.5);
  assert_int_equal(nn_json_get(&j, o, "a")->type, NN_JV_ARR);
  nn_json_free(&j);
  free(text);
}

/* Any byte string, invalid UTF-8 included, is written as JSON a strict parser takes back
 * (python3's json, which refuses invalid UTF-8 and raw control bytes): invalid bytes as
 * \u00XX, valid sequences as their code points; the plugin's records use the same writer. */
static void test_invalid_utf8_strict(void **state) {
  (void)state;
  static const char bytes[] =
    "ok \xff \xc3( \xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80 \xe2\x82\xac \xf0\x9f\x98\x80 \x7f";
  char path[] = "/tmp/nn-jsonw-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  struct nn_jsonw w;
  nn_jsonw_begin(&w, f);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_str(&w, "s", bytes);
  nn_jsonw_end(&w);
  nn_jsonw_finish(&w);
  fclose(f);
  char log[64] = "";
  size_t len = 0;
  nn_log_json_string(log, sizeof log, &len, "\xff\xe2\x82\xac");
  assert_string_equal(log, "\"\\u00ff\\u20ac\"");
  if (system("command -v python3 >/dev/null") != 0) {
    unlink(path);
    print_message("skipped the python3 check: no python3\n");
    return;
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "python3 -c 'import json,sys; d=json.load(open(sys.argv[1],encoding=\"utf-8\")); "
           "want=\"ok \\xff \\xc3( \\xed\\xa0\\x80 \\xc0\\xaf \\xf4\\x90\\x80\\x80 \\u20ac "
           "\\U0001f600 \\x7f\"; "
           "sys.exit(0 if d[\"s\"]==want else 1)' %s",
           path);
  int rc = system(cmd);
  unlink(path);
  assert_int_equal(rc, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_document),
                                     cmocka_unit_test(test_invalid_utf8_strict)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
