/* SPDX-License-Identifier: BSD-3-Clause */
/* test_proxmox.c - Proxmox VM configs, the cluster PCI mapping and Proxmox's device choice. */
#include "cli/common/proxmox.h"
#include "nn_test.h"

static char err[1024];

static int parse_vm(const char *text, struct nn_proxmox_vm *vm) {
  err[0] = 0;
  return nn_proxmox_vm_parse("vm.conf", text, strlen(text), vm, err, sizeof err);
}

static int parse_maps(const char *text, struct nn_proxmox_mappings *m) {
  err[0] = 0;
  return nn_proxmox_mappings_parse("pci.cfg", text, strlen(text), m, err, sizeof err);
}

static void id_is(const struct nn_proxmox_pciid *id, const char *want) {
  char buf[32];
  nn_proxmox_pciid_format(id, buf, sizeof buf);
  assert_string_equal(buf, want);
}

static void test_pciid(void **state) {
  (void)state;
  struct nn_proxmox_pciid id;
  assert_int_equal(nn_proxmox_pciid_parse("01:00", &id), 0);
  id_is(&id, "0000:01:00");
  assert_int_equal(id.has_func, 0);
  assert_int_equal(nn_proxmox_pciid_parse("0000:C1:1f.7", &id), 0);
  id_is(&id, "0000:c1:1f.7");
  assert_int_equal(nn_proxmox_pciid_parse("0001:02:03", &id), 0);
  id_is(&id, "0001:02:03");
  const char *bad[] = {"",         "01",           "1:00.0",   "01:0.0",        "01:20.0",
                       "01:00.8",  "01:00.",       "01:00.00", "10000:01:00.0", "zz:00.0",
                       "01:00.0;", "0000:01:00:0", ":01:00.0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(nn_proxmox_pciid_parse(bad[i], &id), -1);
}

static void test_vm_fields(void **state) {
  (void)state;
  struct nn_proxmox_vm vm;
  assert_int_equal(parse_vm("# a description line\r\n"
                            "args: -device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1\n"
                            "cores: 16\nsockets: 2\nmemory: 524288\nnuma: 1\nmachine: pc-q35-8.1\n"
                            "numa1: cpus=16-31,hostnodes=1\n"
                            "hostpci3: host=0000:01:00.0;02:00,pcie=1,x-vga=1\n"
                            "hostpci0: 71:00.0,rombar=0\n"
                            "hostpci1: mapping=gpus,pcie=1\n"
                            "\n[snapshot1]\nhostpci2: 0000:99:00.0\nmachine: pc\n",
                            &vm),
                   0);
  assert_string_equal(vm.machine, "pc-q35-8.1");
  assert_true(nn_proxmox_vm_is_q35(&vm));
  assert_int_equal(vm.cores, 16);
  assert_int_equal(vm.sockets, 2);
  assert_int_equal(vm.memory_mb, 524288);
  assert_int_equal(vm.numa, 1);
  assert_string_equal(vm.args, "-device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1");
  assert_int_equal(vm.n_numa_lines, 1);
  assert_int_equal(vm.numa_lines[0].index, 1);
  assert_string_equal(vm.numa_lines[0].raw, "cpus=16-31,hostnodes=1");
  assert_int_equal(vm.n_hostpci, 3);        /* the snapshot's hostpci2 is not current */
  assert_int_equal(vm.hostpci[0].index, 0); /* sorted by index */
  assert_int_equal(vm.hostpci[0].line, 10);
  assert_int_equal(vm.hostpci[0].pcie, 0);
  assert_string_equal(vm.hostpci[0].raw, "71:00.0,rombar=0");
  id_is(&vm.hostpci[0].ids[0], "0000:71:00.0");
  assert_int_equal(vm.hostpci[1].index, 1);
  assert_string_equal(vm.hostpci[1].mapping, "gpus");
  assert_int_equal(vm.hostpci[1].n_ids, 0);
  assert_int_equal(vm.hostpci[1].pcie, 1);
  assert_int_equal(vm.hostpci[2].index, 3);
  assert_int_equal(vm.hostpci[2].n_ids, 2);
  id_is(&vm.hostpci[2].ids[0], "0000:01:00.0");
  id_is(&vm.hostpci[2].ids[1], "0000:02:00");
  assert_null(vm.hostpci[2].mapping);
  nn_proxmox_vm_free(&vm);
  assert_int_equal(parse_vm("machine: i440fx\n", &vm), 0);
  assert_false(nn_proxmox_vm_is_q35(&vm));
  nn_proxmox_vm_free(&vm);
  assert_int_equal(parse_vm("cores: 4\n", &vm), 0);
  assert_false(nn_proxmox_vm_is_q35(&vm)); /* no machine: line means i440fx */
  nn_proxmox_vm_free(&vm);
}

static void test_vm_errors(void **state) {
  (void)state;
  struct nn_proxmox_vm vm;
  static const struct {
    const char *text, *msg;
  } cases[] = {
    {"cores: 2\nhostpci16: 01:00.0\n", "vm.conf:2: hostpci16: index out of range 0-15"},
    {"hostpci1: 01:00.0\nhostpci1: 02:00.0\n", "vm.conf:2: hostpci1 given twice"},
    {"hostpci0: host=01:00.0,mapping=gpus\n",
     "vm.conf:1: hostpci0: needs exactly one of host= and mapping="},
    {"hostpci0: pcie=1\n", "vm.conf:1: hostpci0: needs exactly one of host= and mapping="},
    {"hostpci0: host=01:0.0\n", "vm.conf:1: '01:0.0' is not a PCI id ([dddd:]bb:dd[.f])"},
    {"hostpci0: host=01:00.0;;\n", "vm.conf:1: empty id in the list '01:00.0;;'"},
    {"hostpci0: host=\n", "vm.conf:1: empty id in the list ''"},
    {"hostpci0: 01:00.0,pcie\n", "vm.conf:1: 'pcie' is not key=value"},
    {"hostpci0: mapping=\n", "vm.conf:1: empty mapping name"},
    {"memory: lots\n", "vm.conf:1: memory: 'lots' is not a number"},
    {"just words\n", "vm.conf:1: not a 'key: value' line"},
    {"numa9: cpus=0\n", "vm.conf:1: numa9: guest NUMA node out of range 0-7"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(parse_vm(cases[i].text, &vm), -1);
    assert_string_equal(err, cases[i].msg);
  }
  char nul[] = "cores: 2\nmemory: 1\0\n";
  assert_int_equal(nn_proxmox_vm_parse("vm.conf", nul, sizeof nul - 1, &vm, err, sizeof err), -1);
  assert_string_equal(err, "vm.conf:2: NUL byte");
  char *long_line = malloc(9000);
  memset(long_line, 'a', 8999);
  long_line[8999] = 0;
  assert_int_equal(parse_vm(long_line, &vm), -1);
  assert_string_equal(err, "vm.conf:1: line longer than 4097 bytes");
  free(long_line);
}

#define MAPS \
  "# comment\n" \
  "gpus\n" \
  "\tdescription two nodes\n" \
  "\tmap id=10de:2bb5,node=pve1,path=0000:f1:00.0\n" \
  "\tmap id=10de:2bb5,node=pve2,path=0000:e1:00.0\n" \
  "\tmap node=pve1,path=0000:e1:00,id=10de:2bb5\n" \
  "\tmap id=10de:2bb5,node=pve1,path=0000:91:00.0;0000:91:00.1\n" \
  "\n" \
  "pci: nic\n" \
  "    map id=15b3:1021,node=pve1,path=41:00.0\n"

static void test_mappings(void **state) {
  (void)state;
  struct nn_proxmox_mappings m;
  assert_int_equal(parse_maps(MAPS, &m), 0);
  assert_int_equal(m.n_maps, 2);
  const struct nn_proxmox_mapping *g = nn_proxmox_mappings_find(&m, "gpus");
  assert_non_null(g);
  assert_int_equal(g->line, 2);
  assert_int_equal(g->n_entries, 4);
  assert_string_equal(g->entries[1].node, "pve2");
  assert_string_equal(g->entries[2].id, "10de:2bb5");
  id_is(&g->entries[2].ids[0], "0000:e1:00");
  assert_int_equal(g->entries[3].n_ids, 2);
  assert_int_equal(g->entries[3].line, 7);
  const struct nn_proxmox_mapping *n = nn_proxmox_mappings_find(&m, "nic");
  assert_non_null(n);
  id_is(&n->entries[0].ids[0], "0000:41:00.0");
  assert_null(nn_proxmox_mappings_find(&m, "none"));
  nn_proxmox_mappings_free(&m);

  static const struct {
    const char *text, *msg;
  } cases[] = {
    {"\tmap node=a,path=01:00.0\n", "pci.cfg:1: property line outside a mapping section"},
    {"g\n\tmap node=a\n", "pci.cfg:2: map line of 'g' needs node= and path="},
    {"g\n\tmap node=a,path=1:00\n", "pci.cfg:2: '1:00' is not a PCI id ([dddd:]bb:dd[.f])"},
    {"g\n\tmap path=01:00.0,node\n", "pci.cfg:2: 'node' is not key=value"},
    {"g\n\ng\n", "pci.cfg:3: mapping 'g' defined twice"},
    {"two words\n", "pci.cfg:1: 'two words' is not a mapping name"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(parse_maps(cases[i].text, &m), -1);
    assert_string_equal(err, cases[i].msg);
  }
}

static void assigned(const struct nn_proxmox_vm *vm, int i, const char *want) {
  assert_int_equal(vm->hostpci[i].n_ids >= 1, 1);
  id_is(&vm->hostpci[i].ids[0], want);
}

static void test_assign_order(void **state) {
  (void)state;
  struct nn_proxmox_mappings m;
  struct nn_proxmox_vm vm;
  assert_int_equal(parse_maps(MAPS, &m), 0);
  /* Mapping entries take the node's devices in listed order. */
  assert_int_equal(
    parse_vm("hostpci0: mapping=gpus\nhostpci1: mapping=gpus\nhostpci2: mapping=gpus\n"
             "hostpci5: mapping=nic\n",
             &vm),
    0);
  assert_int_equal(nn_proxmox_assign(&vm, &m, "pve1", err, sizeof err), 0);
  assigned(&vm, 0, "0000:f1:00.0");
  assigned(&vm, 1, "0000:e1:00");
  assigned(&vm, 2, "0000:91:00.0");
  assert_int_equal(vm.hostpci[2].n_ids, 2);
  assert_int_equal(vm.hostpci[2].map_line, 7);
  assigned(&vm, 3, "0000:41:00.0");
  nn_proxmox_vm_free(&vm);
  /* Explicit host= ids are taken before any mapping, even from higher-numbered entries;
   * a whole-device id blocks its functions. */
  assert_int_equal(
    parse_vm("hostpci0: mapping=gpus\nhostpci1: mapping=gpus\nhostpci4: host=f1:00\n", &vm), 0);
  assert_int_equal(nn_proxmox_assign(&vm, &m, "pve1", err, sizeof err), 0);
  assigned(&vm, 0, "0000:e1:00");
  assigned(&vm, 1, "0000:91:00.0");
  nn_proxmox_vm_free(&vm);
  /* The other node gets its own device. */
  assert_int_equal(parse_vm("hostpci0: mapping=gpus\n", &vm), 0);
  assert_int_equal(nn_proxmox_assign(&vm, &m, "pve2", err, sizeof err), 0);
  assigned(&vm, 0, "0000:e1:00.0");
  nn_proxmox_vm_free(&vm);
  nn_proxmox_mappings_free(&m);
}

static void test_assign_errors(void **state) {
  (void)state;
  struct nn_proxmox_mappings m;
  struct nn_proxmox_vm vm;
  assert_int_equal(parse_maps(MAPS, &m), 0);
  assert_int_equal(parse_vm("hostpci0: host=01:00.0\nhostpci1: mapping=nosuch\n", &vm), 0);
  assert_int_equal(nn_proxmox_assign(&vm, &m, "pve1", err, sizeof err), -1);
  assert_string_equal(err, "vm.conf:2: hostpci1: mapping 'nosuch' is not defined in pci.cfg");
  assert_int_equal(nn_proxmox_assign(&vm, NULL, "pve1", err, sizeof err), -1);
  assert_string_equal(
    err, "vm.conf:2: hostpci1: mapping 'nosuch' is not defined in the PCI mapping file "
         "(none given: --pci-mapping)");
  nn_proxmox_vm_free(&vm);
  assert_int_equal(parse_vm("hostpci0: mapping=gpus\nhostpci1: mapping=gpus\n", &vm), 0);
  assert_int_equal(nn_proxmox_assign(&vm, &m, "pve2", err, sizeof err), -1);
  assert_string_equal(
    err, "vm.conf:2: hostpci1: every device of mapping 'gpus' on node 'pve2' is already "
         "used by another hostpci entry");
  assert_int_equal(nn_proxmox_assign(&vm, &m, "pve9", err, sizeof err), -1);
  assert_string_equal(
    err, "vm.conf:1: hostpci0: mapping 'gpus' (pci.cfg:2) has no device on node 'pve9'");
  nn_proxmox_vm_free(&vm);
  assert_int_equal(parse_vm("hostpci0: 01:00\nhostpci1: 0000:01:00.1\n", &vm), 0);
  assert_int_equal(nn_proxmox_assign(&vm, NULL, "pve1", err, sizeof err), -1);
  assert_string_equal(err, "vm.conf:2: hostpci1: a device is assigned twice");
  nn_proxmox_vm_free(&vm);
  nn_proxmox_mappings_free(&m);
}

static void test_load_files(void **state) {
  (void)state;
  struct nn_proxmox_vm vm;
  struct nn_proxmox_mappings m;
  assert_int_equal(nn_proxmox_vm_load("/nonexistent/101.conf", &vm, err, sizeof err), -1);
  assert_string_equal(err, "/nonexistent/101.conf: cannot open: No such file or directory");
  assert_int_equal(nn_proxmox_mappings_load("/", &m, err, sizeof err), -1);
  assert_string_equal(err, "/: cannot open: a directory, not a regular file: refused");
  assert_int_equal(nn_proxmox_vm_load("test/fixtures/proxmox/101.conf", &vm, err, sizeof err), 0);
  assert_int_equal(vm.n_hostpci, 9);
  nn_proxmox_vm_free(&vm);
}

/* The mapping a VM needs is loaded only when an entry has mapping= or a path was given. */
static void test_mappings_for_vm(void **state) {
  (void)state;
  struct nn_proxmox_vm vm;
  struct nn_proxmox_mappings m;
  int have = 7;
  assert_int_equal(parse_vm("hostpci0: host=01:00.0,pcie=1\n", &vm), 0);
  assert_int_equal(nn_proxmox_mappings_for_vm(&vm, NULL, &m, &have, err, sizeof err), 0);
  assert_int_equal(have, 0);
  err[0] = 0;
  assert_int_equal(
    nn_proxmox_mappings_for_vm(&vm, "/nonexistent/pci.cfg", &m, &have, err, sizeof err), -1);
  assert_int_equal(have, 0);
  assert_string_equal(err, "/nonexistent/pci.cfg: cannot open: No such file or directory");
  assert_int_equal(
    nn_proxmox_mappings_for_vm(&vm, "test/fixtures/proxmox/pci.cfg", &m, &have, err, sizeof err),
    0);
  assert_int_equal(have, 1);
  assert_non_null(nn_proxmox_mappings_find(&m, "gpus-numa1"));
  nn_proxmox_mappings_free(&m);
  nn_proxmox_vm_free(&vm);
  char node[64];
  nn_proxmox_node_name(node, sizeof node);
  assert_true(node[0] && !strchr(node, '.'));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pciid),        cmocka_unit_test(test_vm_fields),
    cmocka_unit_test(test_vm_errors),    cmocka_unit_test(test_mappings),
    cmocka_unit_test(test_assign_order), cmocka_unit_test(test_assign_errors),
    cmocka_unit_test(test_load_files),   cmocka_unit_test(test_mappings_for_vm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
