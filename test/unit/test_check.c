/* SPDX-License-Identifier: BSD-3-Clause */
/* test_check.c - `check` on a fake machine root (cli/check/check.c): a mapping whose GPU this
 * machine lacks is two problems, each named in the report and counted. */
#include "sysfs_nodes.h"

#include "cli/check/check.h"

static void test_missing_gpu(void **state) {
  (void)state;
  char root[64], p[160];
  const char *cpus[] = {"0-3"};
  nn_test_sysfs_nodes(root, cpus, 1);
  const char *dirs[] = {"/sys/bus", "/sys/bus/pci", "/sys/bus/pci/devices"};
  for (int i = 0; i < 3; i++) {
    snprintf(p, sizeof p, "%s%s", root, dirs[i]);
    assert_int_equal(mkdir(p, 0755), 0);
  }
  char *map = nn_test_write_file("gpu 0 bus=01:00.0 numa=0\n");
  struct nn_check_opts o = {.config = map,
                            .root = root,
                            .cpuinfo = "test/fixtures/cpuinfo/amd-turin",
                            .no_cuda = 1,
                            .nccl_version = "2.28.9"};
  char *report = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&report, &len);
  int problems = nn_check_run(&o, out);
  fclose(out);
  assert_int_equal(problems, 2);
  assert_non_null(strstr(report, "PROBLEM: no NVIDIA GPU found under "));
  assert_non_null(strstr(report, ":1: gpu 0 bus=0000:01:00.0: no such PCI device on this machine"));
  assert_non_null(strstr(report, "Result: 2 problems\n"));
  assert_non_null(strstr(report, "\nsummary: "));
  free(report);
  for (int i = 2; i >= 0; i--) {
    snprintf(p, sizeof p, "%s%s", root, dirs[i]);
    rmdir(p);
  }
  nn_test_sysfs_nodes_remove(root, 1);
  unlink(map);
  free(map);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_missing_gpu)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
