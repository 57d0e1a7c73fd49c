/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ncclver.c - which NCCL release a prediction is for (cli/predict/ncclver.c): --nccl-version
 * wins and is named as the source, a malformed one is refused, and releases before 2.28.7 have
 * no env plugin. */
#include "nn_test.h"

#include "cli/predict/ncclver.h"
#include "nccl_model.h"

static void test_version_argument(void **state) {
  (void)state;
  struct nn_ncclver v;
  char err[256] = "";
  assert_int_equal(nn_ncclver_resolve("2.28.9", "/nonexistent/libnccl.so.2", &v, err, sizeof err),
                   0);
  assert_int_equal(v.code, 22809);
  assert_string_equal(v.source, "--nccl-version");
  assert_int_equal(nn_ncclver_no_env_plugin(&v), 0);
  assert_int_equal(nn_ncclver_resolve("2.27.5", NULL, &v, err, sizeof err), 0);
  assert_int_equal(nn_ncclver_no_env_plugin(&v), 1);
  assert_int_equal(nn_ncclver_resolve("2.28.7", NULL, &v, err, sizeof err), 0);
  assert_int_equal(v.code, 22807);
  assert_int_equal(nn_ncclver_no_env_plugin(&v), 0);
}

static void test_refused(void **state) {
  (void)state;
  struct nn_ncclver v;
  char err[256] = "";
  assert_int_equal(nn_ncclver_resolve("2.x", NULL, &v, err, sizeof err), -1);
  assert_string_equal(err, "--nccl-version '2.x': expected X.Y.Z (e.g. 2.28.9)");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_version_argument),
                                     cmocka_unit_test(test_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
