/* SPDX-License-Identifier: BSD-3-Clause */
/* test_discover_pve.c - the host-side mapping of one Proxmox VM (cli/discover/discover_pve.c):
 * the reference VM's hostpci GPUs with their host NUMA node in hostpci order (a mapping= entry
 * resolved through pci.cfg, a NIC left out), and a hostpci entry the host lacks refused by line. */
#include "discover_fixture.h"

#define PVE NN_DISCOVER_FIX "proxmox/"

static struct nn_discover_opts *vm_opts(const char *vm) {
  struct nn_discover_opts *o = nn_test_discover_opts();
  o->vm = vm;
  o->pci_mapping = PVE "pci.cfg";
  o->node = "pve1";
  o->xml = NN_DISCOVER_FIX "hwloc/epyc-ref-host.xml";
  return o;
}

static void test_reference_vm(void **state) {
  (void)state;
  struct nn_discover_opts *o = vm_opts(PVE "101.conf");
  int rc;
  char *text = nn_test_discover_run(o, nn_discover_proxmox, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(text, "# VM config " PVE "101.conf, Proxmox node pve1\n"));
  assert_non_null(strstr(text, "\ncpu vendor=AuthenticAMD family=25 model=17\n"
                               "# hostpci8 (0000:41:00.0): not an NVIDIA GPU, left out\n"
                               "gpu 0 numa=0 host=0000:71:00.0   # hostpci0\n"));
  assert_non_null(strstr(text, "gpu 3 numa=0 host=0000:01:00.0   # hostpci3\n"
                               "gpu 4 numa=1 host=0000:f1:00.0   # hostpci4\n"));
  assert_non_null(strstr(text, "gpu 7 numa=1 host=0000:81:00.0   # hostpci7\n"));
  assert_null(strstr(text, "\ngpu 0 bus="));   /* the guest step fills bus= */
  assert_null(strstr(text, "\nnuma "));
  free(text);
  nn_test_discover_free(o);
}

static void test_not_on_host(void **state) {
  (void)state;
  struct nn_discover_opts *o = vm_opts(PVE "not-on-host.conf");
  int rc;
  char *text = nn_test_discover_run(o, nn_discover_proxmox, &rc);
  assert_int_equal(rc, -1);
  assert_true(nn_test_diag_has(&o->msgs, "not-on-host.conf:2: hostpci0: 0000:55:00.0 is not a PCI device of this host"));
  assert_null(strstr(text, "gpu "));
  free(text);
  nn_test_discover_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_reference_vm), cmocka_unit_test(test_not_on_host)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
