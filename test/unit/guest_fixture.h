/* SPDX-License-Identifier: BSD-3-Clause */
/* guest_fixture.h - what the guest discovery tests share (test_guest.c, test_discover_guest.c):
 * a root port's PCI config space as a VM's q35 root port presents it. */
#ifndef NN_TEST_GUEST_FIXTURE_H
#define NN_TEST_GUEST_FIXTURE_H

#include <stddef.h>
#include <string.h>

/* Capability list 0x40 -> 0x50 -> 0x60 (PCIe), whose LnkCap (0x6c) holds speed and width bits
 * and, in its last byte, port number `port`. */
static inline void root_port_config(unsigned char *cfg, size_t len, int port) {
  memset(cfg, 0, len);
  cfg[0x06] = 0x10;
  cfg[0x34] = 0x40;
  cfg[0x40] = 0x11;
  cfg[0x41] = 0x50;
  cfg[0x50] = 0x01;
  cfg[0x51] = 0x60;
  cfg[0x60] = 0x10;
  cfg[0x61] = 0x00;
  cfg[0x6c] = 0x05;
  cfg[0x6d] = 0x01; /* speed and width bits, not the port */
  cfg[0x6f] = (unsigned char)port;
}

#endif
