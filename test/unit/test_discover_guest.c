/* SPDX-License-Identifier: BSD-3-Clause */
/* test_discover_guest.c - the guest step (cli/discover/discover_guest.c): the reference VM's
 * guest, a fake sysfs tree built from test/fixtures/sysfs/ref-guest.spec, matched against the
 * host-side map discover_pve.c makes of the reference host: guest GPUs 0-3 on host node 1,
 * 4-7 on node 0; and a host map that cannot be read, named. */
#include "discover_fixture.h"

#include <sys/stat.h>

static char dir[] = "/tmp/nn-guest-XXXXXX";
static char host_map[64], sysfs[64];

/* The host map of the reference VM on the reference host, into host_map. */
static void write_host_map(void) {
  struct nn_discover_opts *o = nn_test_discover_opts();
  int rc;
  o->vm = NN_DISCOVER_FIX "proxmox/101.conf";
  o->pci_mapping = NN_DISCOVER_FIX "proxmox/pci.cfg";
  o->node = "pve1";
  o->xml = NN_DISCOVER_FIX "hwloc/epyc-ref-host.xml";
  char *text = nn_test_discover_run(o, nn_discover_proxmox, &rc);
  assert_int_equal(rc, 0);
  FILE *f = fopen(host_map, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  free(text);
  nn_test_discover_free(o);
}

static int setup(void **state) {
  (void)state;
  if (system("command -v python3 >/dev/null 2>&1") != 0) return 0;   /* each test says skipped */
  if (!mkdtemp(dir)) return -1;
  snprintf(host_map, sizeof host_map, "%s/host.map", dir);
  snprintf(sysfs, sizeof sysfs, "%s/root", dir);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "python3 test/cli/helpers/sysfs_fixture.py %s < test/fixtures/sysfs/ref-guest.spec", sysfs);
  return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return sysfs[0] ? nn_test_remove_tree(dir) : 0;
}

static void skip_without_tree(void) {
  if (!sysfs[0]) {
    fprintf(stderr, "skipped: python3 is needed to build the sysfs fixture\n");
    skip();
  }
}

static void test_reference_guest(void **state) {
  (void)state;
  skip_without_tree();
  write_host_map();
  struct nn_discover_opts *o = nn_test_discover_opts();
  int rc;
  o->host_map = host_map;
  o->root = sysfs;
  char *text = nn_test_discover_run(o, nn_discover_guest, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(text, "\nnuma 0 cpus=0-15\nnuma 1 cpus=0-15\n"));
  assert_non_null(strstr(text, "\ngpu 0 bus=0000:01:00.0 numa=1 host=0000:f1:00.0   # hostpci4, from the LnkCap port number\n"));
  assert_non_null(strstr(text, "\ngpu 3 bus=0000:04:00.0 numa=1 host=0000:81:00.0   # hostpci7"));
  assert_non_null(strstr(text, "\ngpu 4 bus=0000:05:00.0 numa=0 host=0000:71:00.0   # hostpci0"));
  assert_non_null(strstr(text, "\ngpu 7 bus=0000:08:00.0 numa=0 host=0000:01:00.0   # hostpci3"));
  assert_int_equal(o->msgs.n, 0);
  free(text);
  nn_test_discover_free(o);
}

static void test_missing_host_map(void **state) {
  (void)state;
  skip_without_tree();
  struct nn_discover_opts *o = nn_test_discover_opts();
  char missing[96];
  int rc;
  snprintf(missing, sizeof missing, "%s/no-such.map", dir);
  o->host_map = missing;
  o->root = sysfs;
  char *text = nn_test_discover_run(o, nn_discover_guest, &rc);
  assert_int_equal(rc, -1);
  assert_true(nn_test_diag_has(&o->msgs, missing) || nn_test_diag_has(&o->map_problems, missing));
  assert_null(strstr(text, "gpu "));
  free(text);
  nn_test_discover_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_reference_guest), cmocka_unit_test(test_missing_host_map)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
