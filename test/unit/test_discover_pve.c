/* SPDX-License-Identifier: BSD-3-Clause */
/* test_discover_pve.c - the host-side mapping of a Proxmox VM's passthrough (discover_pve.c). */
#include "cli/discover/discover_map.h"
#include "nn_test.h"

#define PVE "test/fixtures/proxmox/"
#define HOST_XML "test/fixtures/hwloc/epyc-ref-host.xml"
#define HEAD(conf) \
  "# nccl-numa discover --proxmox-vm: on pve1, from hwloc XML " HOST_XML \
  ", 1970-01-01T00:00:00Z\n" \
  "# nccl-numa: host-side mapping\n" \
  "# VM config " conf ", Proxmox node pve1\n" \
  "# One gpu line per passed-through NVIDIA GPU in hostpci order; the trailing\n" \
  "# comment names its hostpci entry. bus= is filled in the guest:\n" \
  "#   nccl-numa discover --guest --host-map THIS_FILE\n" \
  "# numa lines (the guest's CPUs) come from that step too.\n" \
  "# sm= left out: the CUDA driver cannot tell (--no-cuda)\n" \
  "cpu vendor=AuthenticAMD family=25 model=17\n"

struct run {
  struct nn_discover_opts o;
  char *text;
  size_t len;
  int rc;
};

static void opts_for(struct run *r, const char *vm, const char *xml) {
  memset(r, 0, sizeof *r);
  r->o.vm = vm;
  r->o.xml = xml;
  r->o.pci_mapping = PVE "pci.cfg";
  r->o.node = "pve1";
  r->o.no_cuda = 1;
}

static void run_pve(struct run *r) {
  r->o.out = open_memstream(&r->text, &r->len);
  assert_non_null(r->o.out);
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  r->rc = nn_discover_proxmox(&r->o);
  unsetenv("SOURCE_DATE_EPOCH");
  fclose(r->o.out);
}

static void run_done(struct run *r) {
  nn_diag_clear(&r->o.msgs);
  free(r->text);
}

/* hostpci0-3 explicit ids, 4-7 one cluster mapping, hostpci8 a NIC: sockets 0 then 1. */
static void test_reference_vm(void **state) {
  (void)state;
  static struct run r;
  opts_for(&r, PVE "101.conf", HOST_XML);
  run_pve(&r);
  assert_int_equal(r.rc, 0);
  assert_int_equal(r.o.msgs.n, 0);
  assert_string_equal(
    r.text, HEAD(PVE "101.conf") "# hostpci8 (0000:41:00.0): not an NVIDIA GPU, left out\n"
                                 "gpu 0 numa=0 host=0000:71:00.0   # hostpci0\n"
                                 "gpu 1 numa=0 host=0000:61:00.0   # hostpci1\n"
                                 "gpu 2 numa=0 host=0000:11:00.0   # hostpci2\n"
                                 "gpu 3 numa=0 host=0000:01:00.0   # hostpci3\n"
                                 "gpu 4 numa=1 host=0000:f1:00.0   # hostpci4\n"
                                 "gpu 5 numa=1 host=0000:e1:00.0   # hostpci5\n"
                                 "gpu 6 numa=1 host=0000:91:00.0   # hostpci6\n"
                                 "gpu 7 numa=1 host=0000:81:00.0   # hostpci7\n");
  run_done(&r);
}

/* Not q35 and no pcie=1: mapped, with a warning per entry naming its line. */
static void test_i440fx_warns(void **state) {
  (void)state;
  static struct run r;
  opts_for(&r, PVE "i440fx.conf", HOST_XML);
  run_pve(&r);
  assert_int_equal(r.rc, 0);
  assert_int_equal(r.o.msgs.n, 2);
  assert_string_equal(r.o.msgs.msgs[1],
                      "warning: " PVE "i440fx.conf:2: hostpci1 is not a PCIe device of a q35 VM "
                      "(machine: q35 and pcie=1): the guest step cannot find its root port");
  assert_string_equal(strstr(r.text, "gpu 0 "), "gpu 0 numa=1 host=0000:f1:00.0   # hostpci0\n"
                                                "gpu 1 numa=1 host=0000:e1:00.0   # hostpci1\n");
  run_done(&r);
}

static void test_not_on_host(void **state) {
  (void)state;
  static struct run r;
  opts_for(&r, PVE "not-on-host.conf", HOST_XML);
  run_pve(&r);
  assert_int_equal(r.rc, -1);
  assert_string_equal(r.text, "");
  assert_int_equal(r.o.msgs.n, 1);
  assert_string_equal(r.o.msgs.msgs[0],
                      PVE "not-on-host.conf:2: hostpci0: 0000:55:00.0 is not a PCI device of "
                          "this host (hwloc XML " HOST_XML ")");
  run_done(&r);
}

static void test_config_errors(void **state) {
  (void)state;
  static struct run r;
  opts_for(&r, PVE "missing-mapping.conf", HOST_XML);
  run_pve(&r);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  assert_string_equal(r.o.msgs.msgs[0],
                      PVE "missing-mapping.conf:3: hostpci1: mapping 'no-such-map' is not "
                          "defined in " PVE "pci.cfg");
  run_done(&r);
  opts_for(&r, PVE "bad-id.conf", HOST_XML);
  run_pve(&r);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  assert_string_equal(r.o.msgs.msgs[0],
                      PVE "bad-id.conf:2: '0000:f1:0.0' is not a PCI id ([dddd:]bb:dd[.f])");
  assert_string_equal(r.text, "");
  run_done(&r);
  opts_for(&r, PVE "101.conf", "test/fixtures/hwloc/does-not-exist.xml");
  run_pve(&r);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  assert_string_equal(r.o.msgs.msgs[0], "test/fixtures/hwloc/does-not-exist.xml: cannot open: No "
                                        "such file or directory");
  run_done(&r);
}

/* A host topology without socket locality (a nested VM): refused, then placed by the user. */
static void test_unknown_node(void **state) {
  (void)state;
  static struct run r;
  char why[160];
  char *vm = nn_test_write_file("machine: q35\nhostpci0: host=0000:01:00.0,pcie=1\n");
  assert_non_null(vm);
  opts_for(&r, vm, "test/fixtures/hwloc/vm-gpus-under-machine.xml");
  run_pve(&r);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.n_unknown, 1);
  assert_int_equal(r.o.msgs.n, 2);
  assert_string_equal(r.o.msgs.msgs[0],
                      "hostpci0: GPU 0000:01:00.0: NUMA node unknown: its first non-I/O ancestor "
                      "is the Machine");
  assert_string_equal(r.text, "");
  run_done(&r);
  opts_for(&r, vm, "test/fixtures/hwloc/vm-gpus-under-machine.xml");
  r.o.allow_unknown = 1;
  assert_int_equal(nn_discover_assume_add(&r.o, "01:00.0=1", why, sizeof why), 0);
  run_pve(&r);
  assert_int_equal(r.rc, 0);
  assert_string_equal(strstr(r.text, "gpu 0 "), "gpu 0 numa=1 host=0000:01:00.0   # hostpci0, "
                                                "numa= assumed by the user (--assume-numa)\n");
  run_done(&r);
  nn_test_remove_file(vm);
}

static void test_no_gpu_entry(void **state) {
  (void)state;
  static struct run r;
  char *vm = nn_test_write_file("machine: q35\nhostpci0: host=0000:41:00.0,pcie=1\n");
  assert_non_null(vm);
  opts_for(&r, vm, HOST_XML);
  run_pve(&r);
  assert_int_equal(r.rc, -1);
  assert_int_equal(r.o.msgs.n, 1);
  char want[600];
  snprintf(want, sizeof want, "%s: no hostpci entry is an NVIDIA GPU of this host", vm);
  assert_string_equal(r.o.msgs.msgs[0], want);
  assert_string_equal(r.text, "");
  run_done(&r);
  nn_test_remove_file(vm);
}

int main(void) {
#ifndef NN_HAVE_HWLOC
  puts(
    "skipped: nccl-numa built without hwloc (HWLOC=0), so discover --proxmox-vm cannot be tested");
  return 77;
#endif
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reference_vm), cmocka_unit_test(test_i440fx_warns),
    cmocka_unit_test(test_not_on_host),  cmocka_unit_test(test_config_errors),
    cmocka_unit_test(test_unknown_node), cmocka_unit_test(test_no_gpu_entry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
