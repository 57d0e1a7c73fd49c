/* SPDX-License-Identifier: BSD-3-Clause */
/* test_locate.c - where the command finds the plugin and the mapping (cli/common/locate.c):
 * made absolute, regular files only, and the mapping found as the plugin finds it. */
#include "nn_test.h"

#include <limits.h>
#include <sys/stat.h>

#include "cli/common/locate.h"

static void test_plugin_override(void **state) {
  (void)state;
  char *f = nn_test_write_file("not really a library");
  char buf[PATH_MAX], err[PATH_MAX + 128];
  assert_int_equal(nn_locate_plugin(f, buf, sizeof buf, err, sizeof err), 0);
  char real[PATH_MAX];
  assert_non_null(realpath(f, real));
  assert_string_equal(buf, real);
  assert_int_equal(nn_locate_plugin("/nonexistent/lib.so", buf, sizeof buf, err, sizeof err), -1);
  assert_string_equal(err, "plugin /nonexistent/lib.so: No such file or directory");
  assert_int_equal(nn_locate_plugin("/tmp", buf, sizeof buf, err, sizeof err), -1);
  assert_string_equal(err, "plugin /tmp: not a regular file");
  unlink(f);
  free(f);
}

/* The mapping: the one given, else NCCL_NUMA_CONFIG; it must exist. */
static void test_config(void **state) {
  (void)state;
  char *f = nn_test_write_file("gpu 0 bus=01:00.0 numa=0\n");
  char buf[PATH_MAX], err[PATH_MAX + 128], real[PATH_MAX];
  assert_non_null(realpath(f, real));
  assert_int_equal(nn_locate_config(f, buf, sizeof buf, err, sizeof err), 0);
  assert_string_equal(buf, real);
  setenv("NCCL_NUMA_CONFIG", f, 1);
  assert_int_equal(nn_locate_config(NULL, buf, sizeof buf, err, sizeof err), 0);
  assert_string_equal(buf, real);
  setenv("NCCL_NUMA_CONFIG", "/nonexistent/nn.conf", 1);
  assert_int_equal(nn_locate_config(NULL, buf, sizeof buf, err, sizeof err), -1);
  assert_non_null(strstr(err, "/nonexistent/nn.conf"));
  unsetenv("NCCL_NUMA_CONFIG");
  unlink(f);
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_plugin_override),
                                     cmocka_unit_test(test_config)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
