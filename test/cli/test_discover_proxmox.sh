#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa discover --proxmox-vm`: the host-side mapping of a VM's hostpci GPUs (host= with
# and without domain, whole devices, `;` lists, a mapping used by several entries, Proxmox's
# assignment order), and every error: missing mapping name, exhausted mapping, node without
# devices, an id not on the host, bad config lines.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp
export SOURCE_DATE_EPOCH=0
unset HWLOC_XMLFILE
run() { nn_run 30 discover --no-cuda "$@"; }

cd "$root/test/fixtures/proxmox"
host=../hwloc/epyc-ref-host.xml
pve() { run --proxmox-vm "$1" --pci-mapping pci.cfg --node "${2:-pve1}" --xml $host; }
HEAD="# nccl-numa discover --proxmox-vm: on pve1, from hwloc XML ../hwloc/epyc-ref-host.xml, 1970-01-01T00:00:00Z
# nccl-numa: host-side mapping"
TAIL="# One gpu line per passed-through NVIDIA GPU in hostpci order; the trailing
# comment names its hostpci entry. bus= is filled in the guest:
#   nccl-numa discover --guest --host-map THIS_FILE
# numa lines (the guest's CPUs) come from that step too.
# sm= left out: the CUDA driver cannot tell (--no-cuda)
cpu vendor=AuthenticAMD family=25 model=17"

# The reference VM: hostpci0-3 explicit (domain / no domain / whole device / `;` list),
# hostpci4-7 one mapping (pve2's line skipped, whole-device path, `;` path), hostpci8 a NIC.
pve 101.conf
expect "reference VM" 0 "$HEAD
# VM config 101.conf, Proxmox node pve1
$TAIL
# hostpci8 (0000:41:00.0): not an NVIDIA GPU, left out
gpu 0 numa=0 host=0000:71:00.0   # hostpci0
gpu 1 numa=0 host=0000:61:00.0   # hostpci1
gpu 2 numa=0 host=0000:11:00.0   # hostpci2
gpu 3 numa=0 host=0000:01:00.0   # hostpci3
gpu 4 numa=1 host=0000:f1:00.0   # hostpci4
gpu 5 numa=1 host=0000:e1:00.0   # hostpci5
gpu 6 numa=1 host=0000:91:00.0   # hostpci6
gpu 7 numa=1 host=0000:81:00.0   # hostpci7"
expect_err_is "reference VM: quiet" ""
printf '%s\n' "$out" >"$tmp/host.map"
timeout 30 "$cli" check-config --host-side "$tmp/host.map" >/dev/null 2>&1 && echo "ok host map passes check-config --host-side" \
  || fail "host map rejected: $("$cli" check-config --host-side "$tmp/host.map" 2>&1)"
timeout 30 "$cli" check-config "$tmp/host.map" >/dev/null 2>&1 && fail "host map accepted without --host-side" \
  || echo "ok host map refused without --host-side"

# Explicit host= ids are reserved before mapping entries (qemu-server's order).
pve explicit-first.conf
expect "explicit host= reserved first" 0 "$HEAD
# VM config explicit-first.conf, Proxmox node pve1
$TAIL
gpu 0 numa=1 host=0000:e1:00.0   # hostpci0
gpu 1 numa=1 host=0000:f1:00.0   # hostpci1"

# Not q35 / no pcie=1: still mapped, with a warning that the guest step will not find the ports.
pve i440fx.conf
expect "i440fx VM" 0 "$HEAD
# VM config i440fx.conf, Proxmox node pve1
$TAIL
gpu 0 numa=1 host=0000:f1:00.0   # hostpci0
gpu 1 numa=1 host=0000:e1:00.0   # hostpci1"
expect_err_is "i440fx VM: warned" "nccl-numa discover: warning: i440fx.conf:1: hostpci0 is not a PCIe device of a q35 VM (machine: q35 and pcie=1): the guest step cannot find its root port
nccl-numa discover: warning: i440fx.conf:2: hostpci1 is not a PCIe device of a q35 VM (machine: q35 and pcie=1): the guest step cannot find its root port"

pve missing-mapping.conf
expect "missing mapping name" 1 ""
expect_err_is "missing mapping name: message" "nccl-numa discover: missing-mapping.conf:3: hostpci1: mapping 'no-such-map' is not defined in pci.cfg"
pve exhausted.conf
expect "exhausted mapping" 1 ""
expect_err_is "exhausted mapping: message" "nccl-numa discover: exhausted.conf:6: hostpci4: every device of mapping 'gpus-numa1' on node 'pve1' is already used by another hostpci entry"
pve 101.conf pve3
expect "node without devices" 1 ""
expect_err_is "node without devices: message" "nccl-numa discover: 101.conf:7: hostpci4: mapping 'gpus-numa1' (pci.cfg:2) has no device on node 'pve3'"
pve not-on-host.conf
expect "id not on the host" 1 ""
expect_err_is "id not on the host: message" "nccl-numa discover: not-on-host.conf:2: hostpci0: 0000:55:00.0 is not a PCI device of this host (hwloc XML ../hwloc/epyc-ref-host.xml)"
pve bad-index.conf
expect "hostpci16" 1 ""
expect_err_is "hostpci16: message" "nccl-numa discover: bad-index.conf:2: hostpci16: index out of range 0-15"
pve bad-id.conf
expect "bad id" 1 ""
expect_err_is "bad id: message" "nccl-numa discover: bad-id.conf:2: '0000:f1:0.0' is not a PCI id ([dddd:]bb:dd[.f])"
run --proxmox-vm 101.conf --pci-mapping nonexistent.cfg --node pve1 --xml $host
expect "mapping file missing" 1 ""
expect_err_is "mapping file missing: message" "nccl-numa discover: nonexistent.cfg: cannot open: No such file or directory"
printf 'machine: q35\nhostpci0: host=0000:41:00.0,pcie=1\n' >"$tmp/nic-only.conf"
run --proxmox-vm "$tmp/nic-only.conf" --node pve1 --xml $host
expect "no GPU among hostpci" 1 ""
expect_err_is "no GPU among hostpci: message" "nccl-numa discover: $tmp/nic-only.conf: no hostpci entry is an NVIDIA GPU of this host"
# A host topology without socket locality (a nested VM) cannot place the GPUs.
printf 'machine: q35\nhostpci0: host=0000:01:00.0,pcie=1\n' >"$tmp/nested.conf"
run --proxmox-vm "$tmp/nested.conf" --node pve1 --xml ../hwloc/vm-gpus-under-machine.xml
expect "host without locality" 1 ""
grep -qF "nccl-numa discover: hostpci0: GPU 0000:01:00.0: NUMA node unknown: its first non-I/O ancestor is the Machine" "$tmp/err" \
  && echo "ok host without locality: message" || fail "host without locality: $err"

nn_finish "all passed" failed
