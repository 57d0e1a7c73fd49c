/* SPDX-License-Identifier: BSD-3-Clause */
/* test_guest.c - root-port config space (the PCIe port number), Proxmox's q35 root-port table. */
#include "cli/discover/guest.h"
#include "guest_fixture.h"
#include "nn_test.h"

static void test_port_number(void **state) {
  (void)state;
  unsigned char cfg[256];
  root_port_config(cfg, sizeof cfg, 7);
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), 7);
  root_port_config(cfg, sizeof cfg, 200);
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), 200);
  assert_int_equal(nn_guest_config_port_number(cfg, 64), -1);   /* unprivileged read: 64 bytes */
  assert_int_equal(nn_guest_config_port_number(cfg, 0x6f), -1); /* capability cut short */
  assert_int_equal(nn_guest_config_port_number(cfg, 0x70), 200);
  assert_int_equal(nn_guest_config_port_number(NULL, 0), -1);
  root_port_config(cfg, sizeof cfg, 3);
  cfg[0x06] = 0; /* no capability list */
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), -1);
  root_port_config(cfg, sizeof cfg, 3);
  cfg[0x60] = 0x05; /* no PCIe capability */
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), -1);
  root_port_config(cfg, sizeof cfg, 3);
  cfg[0x51] = 0x40; /* a loop */
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), -1);
  root_port_config(cfg, sizeof cfg, 3);
  cfg[0x34] = 0x20; /* pointer into the header */
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), -1);
  root_port_config(cfg, sizeof cfg, 3);
  cfg[0x51] = 0xff; /* past the end (low bits masked) */
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), -1);
  root_port_config(cfg, sizeof cfg, 3);
  cfg[0x34] = 0x63; /* low two bits are reserved */
  assert_int_equal(nn_guest_config_port_number(cfg, sizeof cfg), 3);
}

static int by_address(const char *port) {
  struct nn_busid b;
  assert_int_equal(nn_busid_parse(port, &b), 0);
  return nn_guest_hostpci_from_port_address(&b);
}

static void test_address_table(void **state) {
  (void)state;
  assert_int_equal(by_address("00:1c.0"), 0);
  assert_int_equal(by_address("00:1c.3"), 3);
  assert_int_equal(by_address("00:1c.4"), -1);
  assert_int_equal(by_address("00:10.0"), 4);
  assert_int_equal(by_address("00:10.7"), 11);
  assert_int_equal(by_address("00:11.0"), 12);
  assert_int_equal(by_address("00:11.3"), 15);
  assert_int_equal(by_address("00:11.4"), -1);
  assert_int_equal(by_address("00:1e.0"), -1);
  assert_int_equal(by_address("01:1c.0"), -1);
  assert_int_equal(by_address("0001:00:1c.0"), -1);
}

static void test_hostpci_choice(void **state) {
  (void)state;
  struct nn_guest_pci p;
  const char *method;
  char note[160];
  memset(&p, 0, sizeof p);
  assert_int_equal(nn_guest_hostpci(&p, &method, note, sizeof note), -1); /* no root port */
  assert_null(method);
  p.has_port = 1;
  assert_int_equal(nn_busid_parse("00:10.2", &p.port), 0);
  p.port_number = 7;
  assert_int_equal(nn_guest_hostpci(&p, &method, note, sizeof note), 6);
  assert_string_equal(method, "LnkCap port number");
  assert_string_equal(note, "");
  p.port_number = 2; /* the port number wins over the address */
  assert_int_equal(nn_guest_hostpci(&p, &method, note, sizeof note), 1);
  assert_string_equal(note, "port address suggests hostpci6, port number 2 says hostpci1");
  p.port_number = -1;
  snprintf(p.port_note, sizeof p.port_note, "root port config space unreadable");
  assert_int_equal(nn_guest_hostpci(&p, &method, note, sizeof note), 6);
  assert_string_equal(method, "root-port address");
  assert_string_equal(note, "root port config space unreadable");
  p.port_number = 17; /* out of Proxmox's range: fall back */
  assert_int_equal(nn_guest_hostpci(&p, &method, note, sizeof note), 6);
  assert_int_equal(nn_busid_parse("00:02.0", &p.port), 0);
  assert_int_equal(nn_guest_hostpci(&p, &method, note, sizeof note), -1);
}

static void test_scan_missing_root(void **state) {
  (void)state;
  struct nn_guest g;
  char err[512];
  assert_int_equal(nn_guest_scan("/nonexistent-root", &g, err, sizeof err), -1);
  assert_string_equal(
    err, "/nonexistent-root/sys/bus/pci/devices: cannot read: No such file or directory");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_port_number),
    cmocka_unit_test(test_address_table),
    cmocka_unit_test(test_hostpci_choice),
    cmocka_unit_test(test_scan_missing_root),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
