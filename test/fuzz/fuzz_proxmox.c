/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_proxmox.c - libFuzzer target: the Proxmox VM config and cluster PCI mapping
 * parsers (`nccl-numa discover --proxmox`), then resolving the VM's hostpci entries.
 * Input: mapping-file bytes, a line "----", then VM-config bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/proxmox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  const char *sep = memmem(buf, size, "\n----\n", 6);
  size_t map_len = sep ? (size_t)(sep - buf) : 0;
  const char *vm_buf = sep ? sep + 6 : buf;
  size_t vm_len = size - (size_t)(vm_buf - buf);
  char err[512];
  struct nn_proxmox_mappings maps;
  struct nn_proxmox_vm vm;
  memset(&maps, 0, sizeof maps);
  memset(&vm, 0, sizeof vm);
  int maps_ok = nn_proxmox_mappings_parse("pci.cfg", buf, map_len, &maps, err, sizeof err) == 0;
  int vm_ok = nn_proxmox_vm_parse("101.conf", vm_buf, vm_len, &vm, err, sizeof err) == 0;
  if (vm_ok) {
    nn_proxmox_vm_is_q35(&vm);
    nn_proxmox_assign(&vm, maps_ok ? &maps : NULL, "pve1", err, sizeof err);
    nn_proxmox_vm_free(&vm);
  }
  if (maps_ok) nn_proxmox_mappings_free(&maps);
  return 0;
}
