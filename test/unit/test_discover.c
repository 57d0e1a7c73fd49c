/* SPDX-License-Identifier: BSD-3-Clause */
/* test_discover.c - hwloc discovery on the XML fixtures under test/fixtures/hwloc. */
#include "cli/discover/discover.h"
#include "nn_test.h"

#define FIX "test/fixtures/hwloc/"

static struct nn_discovery load(const char *name) {
  struct nn_discovery d;
  char err[512];
  assert_int_equal(nn_discovery_load(name, &d, err, sizeof err), 0);
  return d;
}

static const struct nn_discovery_pci *pci(const struct nn_discovery *d, const char *id) {
  struct nn_busid b;
  assert_int_equal(nn_busid_parse(id, &b), 0);
  return nn_discovery_find(d, &b);
}

static void test_interleaved(void **state) {
  (void)state;
  struct nn_discovery d = load(FIX "2s-8gpu-interleaved.xml");
  static const char *order[] = {"01", "21", "41", "61", "81", "a1", "c1", "e1"};
  int k = 0;
  assert_int_equal(nn_discovery_gpu_count(&d), 8);
  for (int i = 0; i < d.n_pcis; i++) { /* GPUs come out in bus order, sockets alternating */
    if (!d.pcis[i].is_gpu) continue;
    char want[16];
    snprintf(want, sizeof want, "0000:%s:00.0", order[k]);
    char got[32];
    nn_busid_format(&d.pcis[i].bus, got, sizeof got);
    assert_string_equal(got, want);
    assert_int_equal(d.pcis[i].numa, k % 2);
    k++;
  }
  assert_int_equal(k, 8);
  assert_false(pci(&d, "01:00.1")->is_gpu); /* the GPU's audio function */
  assert_false(pci(&d, "03:00.0")->is_gpu); /* a non-NVIDIA VGA */
  assert_int_equal(pci(&d, "03:00.0")->class_id, 0x0300);
  assert_null(pci(&d, "55:00.0"));
  assert_string_equal(d.cpu_vendor, "GenuineIntel");
  assert_int_equal(d.cpu_family, 6);
  assert_int_equal(d.cpu_model, 143);
  assert_string_equal(d.hostname, "bare-metal-8gpu");
  assert_false(d.thissystem);
  assert_false(d.is_virtual);
  assert_int_equal(d.n_numas, 2);
  assert_string_equal(nn_discovery_find_numa(&d, 1)->cpus, "8-15,24-31");
  assert_null(nn_discovery_find_numa(&d, 2));
  struct nn_busid dev;
  assert_int_equal(nn_busid_parse("01:00.1", &dev), 0);
  assert_ptr_equal(nn_discovery_find_gpu_in_device(&d, &dev), pci(&d, "01:00.0"));
  assert_true(nn_discovery_has_device(&d, &dev));
  assert_int_equal(nn_busid_parse("31:00.0", &dev), 0);
  assert_null(nn_discovery_find_gpu_in_device(&d, &dev)); /* a NIC */
  nn_discovery_free(&d);
}

static void test_vm_unknown(void **state) {
  (void)state;
  struct nn_discovery d = load(FIX "vm-gpus-under-machine.xml");
  assert_int_equal(nn_discovery_gpu_count(&d), 4);
  assert_true(d.is_virtual);
  for (int i = 0; i < d.n_pcis; i++)
    if (d.pcis[i].is_gpu) {
      assert_int_equal(d.pcis[i].numa, -1);
      assert_string_equal(d.pcis[i].unknown_why, "its first non-I/O ancestor is the Machine");
    }
  nn_discovery_free(&d);
}

static void test_no_gpu_and_errors(void **state) {
  (void)state;
  struct nn_discovery d = load(FIX "no-gpu.xml");
  char err[512];
  assert_int_equal(nn_discovery_gpu_count(&d), 0);
  assert_int_equal(d.n_pcis, 1); /* the NIC (bridges are not PCI devices to hwloc) */
  nn_discovery_free(&d);
  assert_int_equal(nn_discovery_load(FIX "does-not-exist.xml", &d, err, sizeof err), -1);
  assert_string_equal(err, FIX "does-not-exist.xml: cannot open: No such file or directory");
  /* A missing HWLOC_XMLFILE is an error naming it, never the live machine. */
  setenv("HWLOC_XMLFILE", FIX "does-not-exist.xml", 1);
  assert_int_equal(nn_discovery_load(NULL, &d, err, sizeof err), -1);
  unsetenv("HWLOC_XMLFILE");
  assert_string_equal(
    err, "HWLOC_XMLFILE: " FIX "does-not-exist.xml: cannot open: No such file or directory");
}

static void test_busid_order(void **state) {
  (void)state;
  struct nn_busid a, b;
  assert_int_equal(nn_busid_parse("0000:10:00.0", &a), 0);
  assert_int_equal(nn_busid_parse("0000:1c:00.0", &b), 0);
  assert_true(nn_discovery_busid_compare(&a, &b) < 0);
  assert_int_equal(nn_busid_parse("0001:00:00.0", &b), 0);
  assert_true(nn_discovery_busid_compare(&a, &b) < 0);
  assert_int_equal(nn_busid_parse("0000:10:00.1", &b), 0);
  assert_true(nn_discovery_busid_compare(&b, &a) > 0);
  assert_int_equal(nn_discovery_busid_compare(&a, &a), 0);
}

int main(void) {
#ifndef NN_HAVE_HWLOC
  puts("skipped: nccl-numa built without hwloc (HWLOC=0), so discovery cannot be tested");
  return 77;
#endif
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_interleaved),
    cmocka_unit_test(test_vm_unknown),
    cmocka_unit_test(test_no_gpu_and_errors),
    cmocka_unit_test(test_busid_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
