/* SPDX-License-Identifier: BSD-3-Clause */
/* test_discover_map.c - this machine's mapping (cli/discover/discover_map.c) from hwloc XML
 * fixtures: GPUs in bus order with their node, the numa lines of the nodes used, GPUs hwloc
 * cannot place refused or taken from --assume-numa, and the assumptions' own checks. */
#include "discover_fixture.h"

static void test_bare_metal(void **state) {
  (void)state;
  struct nn_discover_opts *o = nn_test_discover_opts();
  int rc;
  o->xml = NN_DISCOVER_FIX "hwloc/2s-8gpu-interleaved.xml";
  char *text = nn_test_discover_run(o, nn_discover_host, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(text, "\ncpu vendor=GenuineIntel family=6 model=143\n"
                               "numa 0 cpus=0-7,16-23\nnuma 1 cpus=8-15,24-31\n"
                               "gpu 0 bus=0000:01:00.0 numa=0 host=0000:01:00.0\n"
                               "gpu 1 bus=0000:21:00.0 numa=1 host=0000:21:00.0\n"));
  assert_non_null(strstr(text, "gpu 7 bus=0000:e1:00.0 numa=1 host=0000:e1:00.0\n"));
  assert_int_equal(o->n_unknown, 0);
  free(text);
  nn_test_discover_free(o);
}

/* A VM's hwloc puts its GPUs under the Machine: no mapping, and each GPU named. */
static void test_unknown_refused(void **state) {
  (void)state;
  struct nn_discover_opts *o = nn_test_discover_opts();
  int rc;
  o->xml = NN_DISCOVER_FIX "hwloc/vm-gpus-under-machine.xml";
  char *text = nn_test_discover_run(o, nn_discover_host, &rc);
  assert_int_equal(rc, -1);
  assert_int_equal(o->n_unknown, 4);
  assert_true(nn_test_diag_has(&o->msgs, "GPU 0000:03:00.0: NUMA node unknown"));
  assert_null(strstr(text, "gpu "));
  free(text);
  nn_test_discover_free(o);
}

/* --allow-unknown with an assumption per GPU places them; one for no GPU is an error. */
static void test_assumed(void **state) {
  (void)state;
  struct nn_discover_opts *o = nn_test_discover_opts();
  char why[256] = "";
  int rc;
  o->xml = NN_DISCOVER_FIX "hwloc/vm-gpus-under-machine.xml";
  o->allow_unknown = 1;
  for (int g = 1; g <= 4; g++) {
    char arg[32];
    snprintf(arg, sizeof arg, "0000:%02x:00.0=%d", g, g > 2);
    assert_int_equal(nn_discover_assume_add(o, arg, why, sizeof why), 0);
  }
  char *text = nn_test_discover_run(o, nn_discover_host, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(text, "gpu 1 bus=0000:02:00.0 numa=0"));
  assert_non_null(strstr(text, "gpu 2 bus=0000:03:00.0 numa=1"));
  free(text);
  nn_test_discover_free(o);
  o = nn_test_discover_opts();
  o->xml = NN_DISCOVER_FIX "hwloc/2s-8gpu-interleaved.xml";
  o->allow_unknown = 1;
  assert_int_equal(nn_discover_assume_add(o, "0000:55:00.0=1", why, sizeof why), 0);
  text = nn_test_discover_run(o, nn_discover_host, &rc);
  assert_int_equal(rc, -1);
  assert_true(nn_test_diag_has(&o->msgs, "0000:55:00.0"));
  free(text);
  nn_test_discover_free(o);
}

static void test_assume_add(void **state) {
  (void)state;
  struct nn_discover_opts *o = nn_test_discover_opts();
  char why[256] = "";
  assert_int_equal(nn_discover_assume_add(o, "01:00.0=1", why, sizeof why), 0);
  assert_int_equal(o->n_assumed, 1);
  assert_int_equal(o->assumed[0].numa, 1);
  assert_int_equal(nn_discover_assume_add(o, "0000:01:00.0=0", why, sizeof why), -1);
  assert_string_equal(why, "--assume-numa given twice for GPU 0000:01:00.0 (numa 1 and 0)");
  assert_int_equal(nn_discover_assume_add(o, "01:00.0", why, sizeof why), -1);
  assert_string_equal(why, "--assume-numa wants BUSID=NODE, got '01:00.0'");
  assert_int_equal(nn_discover_assume_add(o, "02:00.0=x", why, sizeof why), -1);
  assert_non_null(strstr(why, "--assume-numa wants BUSID=NODE (NODE 0-"));
  assert_int_equal(o->n_assumed, 1);
  nn_test_discover_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bare_metal), cmocka_unit_test(test_unknown_refused), cmocka_unit_test(test_assumed),
    cmocka_unit_test(test_assume_add),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
