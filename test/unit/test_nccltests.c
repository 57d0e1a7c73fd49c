/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccltests.c - the nccl-tests output parser on synthetic fixtures and hostile input. */
#include "nn_test.h"

#include <math.h>

#include "cli/sweep/nccltests.h"
#include "nccl_model.h"

#define FIX "test/fixtures/nccl-tests/"

static int parse_file(const char *path, struct nn_nccltests_result *r, char *err, size_t errsz) {
  size_t len;
  char *b = nn_test_slurp(path, &len);
  int rc = nn_nccltests_parse(b, len, r, err, errsz);
  free(b);
  return rc;
}

static void text_with_info_lines(void **state) {
  (void)state;
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(parse_file(FIX "synthetic-allreduce-info.txt", &r, err, sizeof err), 0);
  assert_int_equal(r.format, NN_NT_TEXT);
  assert_int_equal(r.n_rows, 10);
  assert_int_equal(r.n_ranks, 4);
  assert_int_equal(r.n_hosts, 1);
  assert_int_equal(r.n_gpus, 4);
  assert_int_equal(r.has_root, 1);
  assert_int_equal(r.nccl_code, 22809);
  assert_string_equal(r.nccl_version, "2.28.9");
  assert_string_equal(r.tests_version, "2.17.6");
  assert_string_equal(r.test_name, "all_reduce_perf");
  assert_string_equal(r.device_name, "NVIDIA RTX PRO 6000 Blackwell");
  assert_int_equal(r.oob_count, 3);
  assert_true(r.concluded);
  /* the INFO line between rows is skipped, rows stay in order */
  assert_int_equal(r.rows[0].size, 8);
  assert_int_equal(r.rows[1].size, 32);
  assert_int_equal(r.rows[1].count, 8);
  assert_string_equal(r.rows[1].type, "float");
  assert_string_equal(r.rows[1].redop, "sum");
  assert_int_equal(r.rows[1].root, -1);
  assert_true(fabs(r.rows[1].oop.time_us - 21.90) < 1e-9);
  assert_true(fabs(r.rows[1].inplace.time_us - 21.80) < 1e-9);
  /* N/A is not a failure; #wrong 3 out-of-place is */
  assert_int_equal(r.rows[3].inplace.wrong_known, 0);
  assert_false(nn_nccltests_row_failed(&r.rows[3]));
  assert_int_equal(r.rows[4].size, 2048);
  assert_true(r.rows[4].oop.failed);
  assert_false(r.rows[4].inplace.failed);
  assert_true(nn_nccltests_row_failed(&r.rows[4]));
  for (int i = 0; i < r.n_rows; i++)
    if (i != 4) assert_false(nn_nccltests_row_failed(&r.rows[i]));
  assert_int_equal(r.rows[9].size, 1048576);
  assert_true(fabs(r.rows[9].oop.time_us - 880.5) < 1e-9);
  nn_nccltests_free(&r);
}

static void text_old_float_error(void **state) {
  (void)state;
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(parse_file(FIX "synthetic-old-noroot-error.txt", &r, err, sizeof err), 0);
  assert_int_equal(r.has_root, 0);
  assert_int_equal(r.error_column_float, 1);
  assert_int_equal(r.n_rows, 4);
  assert_int_equal(r.n_ranks, 2);
  assert_int_equal(r.nccl_code, 0);
  assert_int_equal(r.rows[0].root, -1);
  assert_true(fabs(r.rows[3].oop.time_us - 19.80) < 1e-9);
  assert_true(r.rows[2].oop.failed); /* error 4 is far above float tolerance */
  assert_false(nn_nccltests_row_failed(&r.rows[0]));
  assert_false(nn_nccltests_row_failed(&r.rows[3]));
  nn_nccltests_free(&r);
}

static void text_truncated(void **state) {
  (void)state;
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(parse_file(FIX "synthetic-truncated.txt", &r, err, sizeof err), -1);
  assert_non_null(strstr(err, "line 9"));
  assert_non_null(strstr(err, "truncated"));
  assert_int_equal(r.n_rows, 0);
  assert_null(r.rows);
  assert_int_equal(parse_file(FIX "synthetic-header-only.txt", &r, err, sizeof err), -1);
  assert_non_null(strstr(err, "truncated"));
  assert_non_null(strstr(err, "line 5"));
}

static void json_output(void **state) {
  (void)state;
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(parse_file(FIX "synthetic-allgather.json", &r, err, sizeof err), 0);
  assert_int_equal(r.format, NN_NT_JSON);
  assert_int_equal(r.n_rows, 4);
  assert_int_equal(r.nccl_code, 22809);
  assert_string_equal(r.nccl_version, "2.28.9");
  assert_string_equal(r.test_name, "all_gather_perf");
  assert_int_equal(r.n_ranks, 2);
  assert_int_equal(r.n_gpus, 2);
  assert_string_equal(r.device_name, "NVIDIA L40S");
  assert_int_equal(r.oob_count, 2);
  assert_int_equal(r.rows[0].size, 1024);
  assert_int_equal(r.rows[0].root, -1);
  assert_string_equal(r.rows[0].redop, "none");
  assert_true(fabs(r.rows[0].oop.time_us - 14.25) < 1e-9);
  assert_false(nn_nccltests_row_failed(&r.rows[0]));
  assert_int_equal(r.rows[1].oop.wrong_known, 0);
  assert_false(r.rows[1].oop.failed);
  assert_true(r.rows[1].inplace.failed); /* "nan" time */
  assert_true(r.rows[2].oop.failed);     /* nwrong 2 */
  assert_false(nn_nccltests_row_failed(&r.rows[3]));
  nn_nccltests_free(&r);
  assert_int_equal(parse_file(FIX "synthetic-allgather-truncated.json", &r, err, sizeof err), -1);
  assert_non_null(strstr(err, "truncated JSON"));
}

/* A count beyond int (found by fuzzing: the conversion was undefined) reads as absent. */
static void json_oob_count_out_of_range(void **state) {
  (void)state;
  size_t len;
  char *b = nn_test_slurp(FIX "synthetic-allgather.json", &len);
  const char *from = "\"out_of_bounds\":{\"count\":2,";
  char *at = strstr(b, from);
  assert_non_null(at);
  size_t head = (size_t)(at - b), tail = len - head - strlen(from);
  char *big = malloc(len + 32);
  assert_non_null(big);
  int n = snprintf(big, len + 32, "%.*s\"out_of_bounds\":{\"count\":5555555552,%s", (int)head, b,
                   at + strlen(from));
  assert_int_equal((size_t)n, head + tail + strlen("\"out_of_bounds\":{\"count\":5555555552,"));
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(nn_nccltests_parse(big, (size_t)n, &r, err, sizeof err), 0);
  assert_int_equal(r.n_rows, 4);
  assert_int_equal(r.oob_count, -1);
  nn_nccltests_free(&r);
  free(big);
  free(b);
}

static void expect_error(const char *text, const char *needle) {
  struct nn_nccltests_result r;
  char err[256];
  assert_int_equal(nn_nccltests_parse(text, strlen(text), &r, err, sizeof err), -1);
  if (!strstr(err, needle)) fail_msg("error '%s' lacks '%s'", err, needle);
  assert_int_equal(r.n_rows, 0);
}

static void hostile_input(void **state) {
  (void)state;
  expect_error("", "empty");
  expect_error("hello world\n", "no nccl-tests result table");
  expect_error("  8 2 float sum -1 x.y 0 0 0 1 1 1 0\n", "not numbers");
  expect_error("99999999999999999999999 2 float sum -1 1 0 0 0 1 1 1 0\n", "whole numbers");
  expect_error("{\"results\":[{\"size\":8}", "truncated JSON");
  expect_error("{\"results\":[]}", "empty");
  expect_error("{\"x\":1}", "no \"results\"");
  expect_error("[1,2]", "no nccl-tests result table"); /* not JSON object: read as text */
  expect_error("{\"results\":[1]} x", "text after");
  char deep[400];
  memset(deep, '[', sizeof deep - 1);
  deep[0] = '{';
  deep[1] = '"';
  deep[2] = 'a';
  deep[3] = '"';
  deep[4] = ':';
  deep[sizeof deep - 1] = 0;
  expect_error(deep, "deeper");
  const char nul[] = "  8 2 float sum -1 1 0 0 0 1 1 1 0\n  16 4 fl\0at sum -1 1 0 0 0 1 1 1 0\n";
  struct nn_nccltests_result r;
  char err[128];
  assert_int_equal(nn_nccltests_parse(nul, sizeof nul - 1, &r, err, sizeof err), -1);
  assert_non_null(strstr(err, "NUL"));
  /* headerless fragment: layout from the column count (12 = no root) */
  const char *frag =
    "  8 2 float sum 10.5 0 0 0 10.4 0 0 0\r\n  16 4 float sum 11.5 0 0 0 11.4 0 0 0\r\n";
  assert_int_equal(nn_nccltests_parse(frag, strlen(frag), &r, err, sizeof err), 0);
  assert_int_equal(r.n_rows, 2);
  assert_true(fabs(r.rows[1].oop.time_us - 11.5) < 1e-9);
  assert_true(fabs(r.rows[1].inplace.time_us - 11.4) < 1e-9);
  nn_nccltests_free(&r);
  /* a timing nccl-tests could not take ("nan", "-nan", "inf"): the row is failed, not malformed */
  const char *untimed =
    "  8 2 float sum nan 0 0 0 -nan 0 0 0\n  16 4 float sum inf 0 0 0 11.4 0 0 0\n";
  assert_int_equal(nn_nccltests_parse(untimed, strlen(untimed), &r, err, sizeof err), 0);
  assert_int_equal(r.n_rows, 2);
  assert_true(r.rows[0].oop.failed && r.rows[0].inplace.failed && r.rows[1].oop.failed);
  assert_false(r.rows[1].inplace.failed);
  nn_nccltests_free(&r);
  expect_error("  8 2 float sum nanx 0 0 0 1 1 1 0\n", "not numbers");
}

/* The version in a log goes through the core's one parser: a suffix after '+' is NCCL's own,
 * anything glued to the patch number is not a version; a release before 2.9 keeps NCCL's old
 * numbering (2.8.4 is 2804) and reads back as itself. */
static void version_codes(void **state) {
  (void)state;
  struct nn_nccltests_result r;
  char err[256];
  const char *logs[][2] = {{"NCCL version 2.28.9+cuda13.0\n", "2.28.9"},
                           {"x NCCL INFO NCCL version 2.21.5\n", "2.21.5"},
                           {"NCCL version 2.8.4+cuda11.2\n", "2.8.4"},
                           {"NCCL version 2.28.9x\n", ""},
                           {"NCCL version 2.x\n", ""},
                           {"NCCL version garbage\n", ""}};
  for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "%s  8 2 float sum 11.4 0 0 0 11.4 0 0 0\n", logs[i][0]);
    assert_int_equal(nn_nccltests_parse(text, strlen(text), &r, err, sizeof err), 0);
    assert_string_equal(r.nccl_version, logs[i][1]);
    assert_int_equal(r.nccl_code, logs[i][1][0] ? nn_nccl_version_parse(logs[i][1]) : 0);
    nn_nccltests_free(&r);
  }
  assert_int_equal(nn_nccl_version_parse("2.8.4"), 2804);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(text_with_info_lines),
    cmocka_unit_test(text_old_float_error),
    cmocka_unit_test(text_truncated),
    cmocka_unit_test(json_output),
    cmocka_unit_test(json_oob_count_out_of_range),
    cmocka_unit_test(hostile_input),
    cmocka_unit_test(version_codes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
