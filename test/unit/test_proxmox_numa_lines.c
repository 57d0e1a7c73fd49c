/* SPDX-License-Identifier: BSD-3-Clause */
/* test_proxmox_numa_lines.c - a VM config as lines (cli/proxmox/proxmox_numa_lines.c): keys and
 * values, where the current config ends (the first [section]), and values read from it only. */
#include "nn_test.h"

#include "cli/proxmox/proxmox_numa_parts.h"

static const char vm[] = "#SGLang server\n"
                         "cores: 16\n"
                         "hostpci0: 0000:01:00.0,pcie=1\n"
                         "memory: 524288\n"
                         "\n"
                         "[before-gpus]\n"
                         "cores: 8\n"
                         "snaptime: 1730000001\n";

static void test_split(void **state) {
  (void)state;
  struct nn_proxmox_numa_lines ls = {0};
  assert_int_equal(nn_proxmox_numa_lines_split(vm, strlen(vm), &ls), 0);
  assert_int_equal(ls.n, 8);
  assert_int_equal(ls.main_end, 5);     /* "[before-gpus]" is line 6 */
  assert_int_equal(ls.last_key, 3);     /* memory: */
  assert_string_equal(ls.v[0].key, ""); /* a comment is no key line */
  assert_string_equal(ls.v[2].key, "hostpci0");
  assert_int_equal(ls.v[2].value_n, strlen("0000:01:00.0,pcie=1"));
  assert_memory_equal(ls.v[2].value, "0000:01:00.0,pcie=1", ls.v[2].value_n);
  char buf[64];
  int line = 0;
  assert_int_equal(nn_proxmox_numa_main_value(&ls, "cores", buf, sizeof buf, &line), 1);
  assert_string_equal(buf, "16"); /* the current config's, not the snapshot's 8 */
  assert_int_equal(line, 2);
  assert_int_equal(nn_proxmox_numa_main_value(&ls, "snaptime", buf, sizeof buf, &line), 0);
  assert_int_equal(nn_proxmox_numa_main_value(&ls, "sockets", buf, sizeof buf, &line), 0);
  free(ls.v);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_split)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
