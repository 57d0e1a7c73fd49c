#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa discover --guest`: the reference VM's guest, built as a fake sysfs tree at run
# time (root ports with config space holding the PCIe port number), matched against the
# host-side map that `discover --proxmox-vm` makes from the reference host: VM GPUs 0-3 must
# come out on host NUMA 1 and 4-7 on NUMA 0. Also: the address-table fallback, a port number
# that contradicts the address, guest NUMA nodes, non-contiguous hostpci numbers, and errors.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
command -v python3 >/dev/null || nn_skip "python3 is needed to build the sysfs fixture"
nn_tmp
export SOURCE_DATE_EPOCH=0
unset HWLOC_XMLFILE
run() { nn_run 30 discover --no-cuda "$@"; }
# ports CFG: the reference guest's 8 root ports and GPUs; CFG is the config-space kind.
# hostpci4-7 sit behind 00:10.0-3 (guest buses 01-04), hostpci0-3 behind 00:1c.0-3 (05-08).
ports() {
  for i in 0 1 2 3; do echo "port 0000:00:10.$i portnum=$((i + 5)) cfg=$1"; done
  for i in 0 1 2 3; do echo "port 0000:00:1c.$i portnum=$((i + 1)) cfg=$1"; done
  for i in 0 1 2 3; do echo "dev 0000:00:10.$i/0000:0$((i + 1)):00.0"; done
  for i in 0 1 2 3; do echo "dev 0000:00:1c.$i/0000:0$((i + 5)):00.0"; done
  echo "dev 0000:00:1c.3/0000:08:00.1 class=0x040300"      # the GPU's audio function
  echo "dev 0000:00:1f.0 vendor=0x8086 class=0x060100"     # the ICH9 LPC bridge
}

# The host side, from the fixtures (tested in test_discover_proxmox.sh).
fx=$root/test/fixtures
(cd "$fx/proxmox" && timeout 30 "$cli" discover --no-cuda --proxmox-vm 101.conf --pci-mapping pci.cfg \
   --node pve1 --xml ../hwloc/epyc-ref-host.xml) >"$tmp/host.map" || fail "host map"

# The reference guest is the fixture the walkthrough in docs/user/host-to-guest.md builds; it must
# be the tree ports() describes, plus the OS's one node and its cpuinfo.
grep -v '^#' "$fx/sysfs/ref-guest.spec" | sed 's/ *#.*//' >"$tmp/spec"
{ ports full | sed 's/ cfg=full//'; echo "node 0 cpus=0-15"; echo "cpuinfo AuthenticAMD family=25 model=17"; } |
  sed 's/ *#.*//' | sort >"$tmp/spec.want"
sort "$tmp/spec" | cmp -s - "$tmp/spec.want" && echo "ok fixture ref-guest.spec is the reference guest" \
  || fail "test/fixtures/sysfs/ref-guest.spec differs from ports(): $(sort "$tmp/spec" | diff - "$tmp/spec.want")"
nn_sysfs_tree "$tmp/ref" <"$fx/sysfs/ref-guest.spec"
[ -s "$tmp/ref/proc/cpuinfo" ] && echo "ok fixture writes proc/cpuinfo" || fail "no $tmp/ref/proc/cpuinfo"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/ref"
HEAD="# nccl-numa discover --guest: sysfs under $tmp/ref, host map $tmp/host.map, 1970-01-01T00:00:00Z
# GPU indices follow the guest's PCI bus order: nvidia-smi's order, and CUDA's for
# identical GPUs or with CUDA_DEVICE_ORDER=PCI_BUS_ID; numa= and host= come from
# the host map, matched through each GPU's root port.
# sm= left out: the CUDA driver cannot tell (--no-cuda)
cpu vendor=AuthenticAMD family=25 model=17"
ONE_NODE="# the guest has 1 NUMA node: its CPUs are tied to no host socket, so each host
# node's numa line lists all of them and NCCL pins its threads to no socket.
# To pin ranks near their GPUs' sockets give the VM NUMA nodes backed by the
# host's (numa: 1, numaN: cpus=...,hostnodes=N) and run this step again.
numa 0 cpus=0-15
numa 1 cpus=0-15"
expect "reference guest: VM GPUs 0-3 on host NUMA 1, 4-7 on NUMA 0" 0 "$HEAD
$ONE_NODE
gpu 0 bus=0000:01:00.0 numa=1 host=0000:f1:00.0   # hostpci4, from the LnkCap port number
gpu 1 bus=0000:02:00.0 numa=1 host=0000:e1:00.0   # hostpci5, from the LnkCap port number
gpu 2 bus=0000:03:00.0 numa=1 host=0000:91:00.0   # hostpci6, from the LnkCap port number
gpu 3 bus=0000:04:00.0 numa=1 host=0000:81:00.0   # hostpci7, from the LnkCap port number
gpu 4 bus=0000:05:00.0 numa=0 host=0000:71:00.0   # hostpci0, from the LnkCap port number
gpu 5 bus=0000:06:00.0 numa=0 host=0000:61:00.0   # hostpci1, from the LnkCap port number
gpu 6 bus=0000:07:00.0 numa=0 host=0000:11:00.0   # hostpci2, from the LnkCap port number
gpu 7 bus=0000:08:00.0 numa=0 host=0000:01:00.0   # hostpci3, from the LnkCap port number"
expect_err_is "reference guest: quiet" ""
printf '%s\n' "$out" >"$tmp/guest.conf"
timeout 30 "$cli" check-config "$tmp/guest.conf" >/dev/null 2>&1 && echo "ok guest mapping passes check-config" \
  || fail "guest mapping rejected: $("$cli" check-config "$tmp/guest.conf" 2>&1)"
# Host and guest node numbers are not mixed: with the guest's one node, host NUMA 0's GPUs do
# not get guest node 0's CPUs while host NUMA 1's get none; both get all of them.
timeout 30 "$cli" topo --config "$tmp/guest.conf" --sysfs-root "$tmp/ref" --file numa >"$tmp/topo.xml" 2>/dev/null
if [ "$(grep -c 'affinity="0000ffff"' "$tmp/topo.xml")" -eq 2 ] && [ "$(grep -c '<cpu ' "$tmp/topo.xml")" -eq 2 ]; then
  echo "ok one guest node: both host nodes get all the guest's CPUs"
else fail "topology of the one-node guest mapping: $(cat "$tmp/topo.xml")"; fi
timeout 30 "$cli" check --no-cuda --sysfs-root "$tmp/ref" --config "$tmp/guest.conf" --cpuinfo /dev/null >"$tmp/check" 2>&1 \
  && grep -qx "Result: 0 problems" "$tmp/check" && echo "ok check accepts the guest mapping" \
  || fail "check on the guest mapping: $(cat "$tmp/check")"

# pcie= of the host map (the physical link, as discover read it on the host) is carried over.
sed 's/^\(gpu 2 [^#]*[^ #]\)/\1 pcie=4x16/' "$tmp/host.map" >"$tmp/pcie.map"
run --guest --host-map "$tmp/pcie.map" --sysfs-root "$tmp/ref"
grep -q '^gpu 6 bus=0000:07:00.0 numa=0 host=0000:11:00.0 pcie=4x16 ' <<<"$out" && echo "ok pcie= carried from the host map" \
  || fail "pcie= from the host map: $out"

# Config space readable only in its first 64 bytes (not root): the address table decides.
{ ports short; echo "node 0 cpus=0-15"; } | nn_sysfs_tree "$tmp/short"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/short"
N="root port config space beyond 64 bytes unreadable (not root?)"
expect "address-table fallback" 0 "${HEAD//$tmp\/ref/$tmp/short}
$ONE_NODE
gpu 0 bus=0000:01:00.0 numa=1 host=0000:f1:00.0   # hostpci4, from the root-port address; $N
gpu 1 bus=0000:02:00.0 numa=1 host=0000:e1:00.0   # hostpci5, from the root-port address; $N
gpu 2 bus=0000:03:00.0 numa=1 host=0000:91:00.0   # hostpci6, from the root-port address; $N
gpu 3 bus=0000:04:00.0 numa=1 host=0000:81:00.0   # hostpci7, from the root-port address; $N
gpu 4 bus=0000:05:00.0 numa=0 host=0000:71:00.0   # hostpci0, from the root-port address; $N
gpu 5 bus=0000:06:00.0 numa=0 host=0000:61:00.0   # hostpci1, from the root-port address; $N
gpu 6 bus=0000:07:00.0 numa=0 host=0000:11:00.0   # hostpci2, from the root-port address; $N
gpu 7 bus=0000:08:00.0 numa=0 host=0000:01:00.0   # hostpci3, from the root-port address; $N"

# Hostile or odd config spaces (no file, a capability loop, no PCIe capability) fall back too.
for kind in none loop nopcie; do
  ports $kind | nn_sysfs_tree "$tmp/$kind"
  run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/$kind"
  if [ "$rc" -eq 0 ] && grep -q "^gpu 0 bus=0000:01:00.0 numa=1 host=0000:f1:00.0   # hostpci4, from the root-port address" "$tmp/out"; then
    echo "ok config space '$kind': address fallback"
  else fail "config space '$kind': $out $err"; fi
done

# A port number contradicting the address: the port number wins, and the comment says so.
{ echo "port 0000:00:1c.0 portnum=6"; echo "dev 0000:00:1c.0/0000:01:00.0"; } | nn_sysfs_tree "$tmp/contra"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/contra"
[ "$rc" -eq 0 ] && grep -qx "gpu 0 bus=0000:01:00.0 numa=1 host=0000:e1:00.0   # hostpci5, from the LnkCap port number; port address suggests hostpci0, port number 6 says hostpci5" "$tmp/out" \
  && echo "ok port number wins over the address" || fail "contradiction: $out $err"
grep -qx "# hostpci0 of the host map has no GPU in this guest" "$tmp/out" && echo "ok unmatched host entries noted" \
  || fail "unmatched host entries not noted: $out"
grep -qF "nccl-numa discover: warning: $tmp/host.map:11: hostpci0 has no GPU in this guest" "$tmp/err" \
  && echo "ok unmatched host entries warned" || fail "unmatched warning: $err"

# A guest with NUMA nodes: numa lines with the guest's own CPUs.
{ ports full; echo "node 0 cpus=0-15"; echo "node 1 cpus=16-31"; } | nn_sysfs_tree "$tmp/numa"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/numa"
[ "$rc" -eq 0 ] && diff <(grep -E '^(numa|# numa|# \(Proxmox)' "$tmp/out") - <<'W' >/dev/null && echo "ok guest NUMA nodes" || fail "guest NUMA nodes: $out"
# numa lines: guest NUMA node N is taken to be backed by host node N
# (Proxmox numaN: hostnodes=N); check the VM config if it is not.
numa 0 cpus=0-15
numa 1 cpus=16-31
W

# Non-contiguous hostpci numbers: the host map's comments carry them.
printf '%s\n' "# nccl-numa: host-side mapping" "cpu vendor=AuthenticAMD family=25 model=17" \
  "gpu 0 numa=0 host=0000:01:00.0   # hostpci2" "gpu 1 numa=1 host=0000:81:00.0   # hostpci9" >"$tmp/gaps.map"
{ echo "port 0000:00:1c.2 portnum=3"; echo "port 0000:00:10.5 portnum=10"
  echo "dev 0000:00:10.5/0000:01:00.0"; echo "dev 0000:00:1c.2/0000:02:00.0"; } | nn_sysfs_tree "$tmp/gaps"
run --guest --host-map "$tmp/gaps.map" --sysfs-root "$tmp/gaps"
[ "$rc" -eq 0 ] && [ "$(grep '^gpu' "$tmp/out")" = "gpu 0 bus=0000:01:00.0 numa=1 host=0000:81:00.0   # hostpci9, from the LnkCap port number
gpu 1 bus=0000:02:00.0 numa=0 host=0000:01:00.0   # hostpci2, from the LnkCap port number" ] \
  && echo "ok non-contiguous hostpci numbers" || fail "gaps: $out $err"

# Errors.
{ echo "dev 0000:00:05.0"; } | nn_sysfs_tree "$tmp/rootbus"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/rootbus"
expect "GPU on the root bus" 1 ""
expect_err_is "GPU on the root bus: message" "nccl-numa discover: guest GPU 0000:00:05.0: cannot tell its hostpci entry: it sits on the root bus, not behind a PCIe root port (needs machine: q35 and pcie=1)"
{ echo "port 0000:00:02.0 cfg=nopcie"; echo "dev 0000:00:02.0/0000:01:00.0"; } | nn_sysfs_tree "$tmp/otherport"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/otherport"
expect "unknown root port" 1 ""
expect_err_is "unknown root port: message" "nccl-numa discover: guest GPU 0000:01:00.0: cannot tell its hostpci entry: its root port is neither a Proxmox q35 port nor has a port number"
{ echo "port 0000:00:11.0 portnum=13"; echo "dev 0000:00:11.0/0000:01:00.0"; } | nn_sysfs_tree "$tmp/extra"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/extra"
expect "hostpci not in the host map" 1 ""
expect_err_is "hostpci not in the host map: message" "nccl-numa discover: guest GPU 0000:01:00.0 is hostpci12 (LnkCap port number), which $tmp/host.map does not list"
{ echo "port 0000:00:1c.0 portnum=1"; echo "port 0000:00:1c.1 portnum=1"
  echo "dev 0000:00:1c.0/0000:01:00.0"; echo "dev 0000:00:1c.1/0000:02:00.0"; } | nn_sysfs_tree "$tmp/twice"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/twice"
expect "two GPUs on one hostpci" 1 ""
expect_err_is "two GPUs on one hostpci: message" "nccl-numa discover: two guest GPUs claim hostpci0"
{ echo "dev 0000:00:1f.0 vendor=0x8086 class=0x060100"; } | nn_sysfs_tree "$tmp/nogpu"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/nogpu"
expect "no GPU in the guest" 1 ""
expect_err_is "no GPU in the guest: message" "nccl-numa discover: no NVIDIA GPU under $tmp/nogpu/sys/bus/pci/devices"
run --guest --host-map "$tmp/guest.conf" --sysfs-root "$tmp/ref"
expect "not a host-side map" 1 ""
expect_err_is "not a host-side map: message" "nccl-numa discover: $tmp/guest.conf: not a host-side mapping (no \"# nccl-numa: host-side mapping\" line); make one on the Proxmox host with: nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf"
printf '%s\n' "# nccl-numa: host-side mapping" "gpu 0 numa=0" >"$tmp/bad.map"
run --guest --host-map "$tmp/bad.map" --sysfs-root "$tmp/ref"
expect "invalid host map" 1 ""
expect_err_is "invalid host map: message" "$tmp/bad.map:2: gpu: missing host= (a host-side mapping needs it)"
run --guest --host-map "$tmp/host.map" --sysfs-root "$tmp/nonexistent"
expect "missing sysfs" 1 ""
expect_err_is "missing sysfs: message" "nccl-numa discover: $tmp/nonexistent/sys/bus/pci/devices: cannot read: No such file or directory"

# NICs: the host map's nic lines (hostpci8-9, from discover --proxmox-vm on the two-NIC host)
# land on the guest functions behind those hostpci ports, with the guest's own IB names
(cd "$fx/proxmox" && timeout 30 "$cli" discover --no-cuda --proxmox-vm 102.conf --node pve2nic \
   --xml ../hwloc/epyc-2nic-host.xml) >"$tmp/host-nics.map" || fail "host map with NICs"
grep -qx 'nic 0 numa=0 name=mlx5_0 host=0000:41:00.0   # hostpci8' "$tmp/host-nics.map" &&
  grep -qx 'nic 1 numa=1 name=mlx5_1 host=0000:c1:00.0   # hostpci9' "$tmp/host-nics.map" &&
  echo "ok --proxmox-vm: a nic line per NIC entry, with its host node" || fail "host map NICs: $(grep '^nic' "$tmp/host-nics.map")"
nn_sysfs_tree "$tmp/nics" <"$fx/sysfs/ref-guest-nics.spec"
run --guest --host-map "$tmp/host-nics.map" --sysfs-root "$tmp/nics"
expect_rc 0 "guest with NICs"
printf '%s\n' "$out" >"$tmp/guest-nics.conf"
grep -qx 'nic 0 bus=0000:09:00.0 numa=0 name=mlx5_0 host=0000:41:00.0   # hostpci8' "$tmp/guest-nics.conf" &&
  grep -qx 'nic 1 bus=0000:0a:00.0 numa=1 name=mlx5_1 host=0000:c1:00.0   # hostpci9' "$tmp/guest-nics.conf" &&
  [ "$(grep -c '^nic ' "$tmp/guest-nics.conf")" -eq 2 ] &&
  echo "ok --guest: each NIC at its guest bus id, host node and guest name (not the virtio NIC)" ||
  fail "guest NICs: $(grep '^nic' "$tmp/guest-nics.conf")"
timeout 30 "$cli" check-config "$tmp/guest-nics.conf" 2>&1 | grep -q 'ok (8 GPUs on 2 NUMA nodes, 2 NICs' &&
  echo "ok guest mapping with NICs passes check-config" || fail "guest NIC mapping: $("$cli" check-config "$tmp/guest-nics.conf" 2>&1)"

nn_finish "all passed" failed
