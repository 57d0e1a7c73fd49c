#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa discover` on bare metal / a host: hwloc XML fixtures (exact output), the
# VM case with unknown locality, --allow-unknown/--assume-numa, usage errors.
# The real hwloc exports are test_discover_real.sh.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
fix=$root/test/fixtures/hwloc
nn_tmp
export SOURCE_DATE_EPOCH=0
unset HWLOC_XMLFILE
run() { nn_run 30 discover --no-cuda "$@"; }

cd "$fix"
# The exact outputs on the hwloc fixtures are golden cases (test/golden/discover).
run --xml 2s-8gpu-interleaved.xml
expect_rc 0 "two sockets, bus order interleaving them"
printf '%s\n' "$out" >"$tmp/bare.conf"
timeout 30 "$cli" check-config "$tmp/bare.conf" >/dev/null 2>&1 && echo "ok output passes check-config" \
  || fail "discover output rejected by check-config: $("$cli" check-config "$tmp/bare.conf" 2>&1)"

# NICs: the RDMA devices (not the management port), in name order, each on its socket
run --xml epyc-2nic-host.xml
expect_rc 0 "two NICs, one per socket"
printf '%s\n' "$out" >"$tmp/nics.conf"
grep -qx 'nic 0 bus=0000:41:00.0 numa=0 name=mlx5_0 host=0000:41:00.0' "$tmp/nics.conf" &&
  grep -qx 'nic 1 bus=0000:c1:00.0 numa=1 name=mlx5_1 host=0000:c1:00.0' "$tmp/nics.conf" &&
  [ "$(grep -c '^nic ' "$tmp/nics.conf")" -eq 2 ] && echo "ok NICs: mlx5_0 on node 0, mlx5_1 on node 1, no eno1" ||
  fail "NIC lines: $(grep '^nic' "$tmp/nics.conf")"
timeout 30 "$cli" check-config "$tmp/nics.conf" 2>&1 | grep -q ': ok (8 GPUs on 2 NUMA nodes, 2 NICs' &&
  echo "ok NIC mapping passes check-config" || fail "NIC mapping: $("$cli" check-config "$tmp/nics.conf" 2>&1)"

# HWLOC_XMLFILE is honoured as well; without the CUDA driver sm= is left out and the header says why.
HWLOC_XMLFILE=$fix/epyc-ref-host.xml timeout 30 "$cli" discover >"$tmp/out" 2>"$tmp/err"; rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
timeout 30 "$cli" discover --xml "$fix/epyc-ref-host.xml" >"$tmp/xml.out" 2>&1
[ "$rc" -eq 0 ] && [ "$(head -n1 "$tmp/out")" = "# nccl-numa discover: on pve1, from hwloc XML $fix/epyc-ref-host.xml (HWLOC_XMLFILE), 1970-01-01T00:00:00Z" ] \
  && diff <(tail -n +2 "$tmp/out") <(tail -n +2 "$tmp/xml.out") >/dev/null \
  && echo "ok HWLOC_XMLFILE: said in the header, the same mapping as --xml" || fail "HWLOC_XMLFILE (exit $rc): $out"

run --xml vm-gpus-under-machine.xml
expect "VM: GPUs under the Machine -> exit 1, nothing on stdout" 1 ""
# (what it says, GPU by GPU: test/golden/discover/hwloc-vm-gpus-under-machine)

run --xml vm-gpus-under-machine.xml --allow-unknown --assume-numa 0000:01:00.0=1 --assume-numa 02:00.0=1
expect "allow-unknown without a value for every GPU" 1 ""
expect_err_has "allow-unknown: unlisted GPU named" "GPU 0000:03:00.0: NUMA node unknown: its first non-I/O ancestor is the Machine (and no --assume-numa for it)"

run --xml vm-gpus-under-machine.xml --allow-unknown --assume-numa 0000:01:00.0=1 --assume-numa 02:00.0=1 \
    --assume-numa 03:00.0=0 --assume-numa 04:00.0=0
expect "allow-unknown with the user's word" 0 "# nccl-numa discover: on vm-guest, from hwloc XML vm-gpus-under-machine.xml, 1970-01-01T00:00:00Z
# GPU indices follow PCI bus order: nvidia-smi's order, and CUDA's for identical
# GPUs or with CUDA_DEVICE_ORDER=PCI_BUS_ID.
# sm= left out: the CUDA driver cannot tell (--no-cuda)
cpu vendor=AuthenticAMD family=25 model=17
numa 0 cpus=0-3,8-11
numa 1 cpus=4-7,12-15
gpu 0 bus=0000:01:00.0 numa=1 host=0000:01:00.0   # numa= assumed by the user (--assume-numa)
gpu 1 bus=0000:02:00.0 numa=1 host=0000:02:00.0   # numa= assumed by the user (--assume-numa)
gpu 2 bus=0000:03:00.0 numa=0 host=0000:03:00.0   # numa= assumed by the user (--assume-numa)
gpu 3 bus=0000:04:00.0 numa=0 host=0000:04:00.0   # numa= assumed by the user (--assume-numa)"

run --xml 2s-8gpu-interleaved.xml --allow-unknown --assume-numa 01:00.0=1
expect "assume-numa contradicting hwloc" 1 ""
expect_err_has "contradiction named" "GPU 0000:01:00.0: --assume-numa says 1 but hwloc places it on NUMA node 0"
run --xml 2s-8gpu-interleaved.xml --allow-unknown --assume-numa 55:00.0=1
expect "assume-numa for no GPU" 1 ""
expect_err_has "stray assumption named" "--assume-numa 0000:55:00.0: no such GPU"
run --xml vm-gpus-under-machine.xml --allow-unknown --assume-numa 0000:01:00.0=1 --assume-numa 01:00.0=0
expect "assume-numa twice for one GPU: usage" 2 ""
expect_err_line "nccl-numa discover: --assume-numa given twice for GPU 0000:01:00.0 (numa 1 and 0)" "duplicate named"
run --xml vm-gpus-under-machine.xml --allow-unknown --assume-numa 01:00.0=x
expect_err_line "nccl-numa discover: --assume-numa wants BUSID=NODE (NODE 0-1023), got '01:00.0=x'" "bad node named"

run --xml no-gpu.xml
expect "no GPU -> exit 1" 1 ""
expect_err_has "no GPU said" "no NVIDIA GPU (vendor 0x10de, class 0x03xx) in hwloc XML no-gpu.xml"

run --xml missing.xml
expect "missing XML" 1 ""
expect_err_has "missing XML named" "missing.xml: cannot open: No such file or directory"

for args in "--assume-numa 01:00.0=1" "--assume-numa nonsense" "--guest" "--host-map x" "--node pve1" "--bogus" "extra"; do
  # shellcheck disable=SC2086
  run $args
  [ "$rc" -eq 2 ] && echo "ok usage error: $args" || fail "usage error '$args': exit $rc"
done
timeout 10 "$cli" discover --help | grep -q -- "--proxmox-vm" && echo "ok --help" || fail "--help"

nn_finish "all passed" failed
