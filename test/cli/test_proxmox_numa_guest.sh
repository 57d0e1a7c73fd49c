#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 6, deliverable 2: inside the VM after `proxmox-numa`, plain `nccl-numa discover`
# (hwloc, no host map) must give each GPU the guest node of its expander. The guest's
# topology is test/fixtures/proxmox-numa/guest-after.xml (the reference VM as the QEMU
# boot test shows its guest kernel placing the GPUs). Going back to treating every GPU
# inside a VM as of unknown node is a failure.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
fix=$root/test/fixtures/proxmox-numa
nn_tmp
HWLOC_XMLFILE=$fix/guest-after.xml timeout 20 "$cli" discover >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: discover exit $rc:"; cat "$tmp/err"; exit 1; }
want="0000:81:00.0 0
0000:82:00.0 0
0000:83:00.0 0
0000:84:00.0 0
0000:91:00.0 1
0000:92:00.0 1
0000:93:00.0 1
0000:94:00.0 1"
got=$(sed -n 's/^gpu [0-9]* bus=\([^ ]*\) numa=\([0-9]*\).*/\1 \2/p' "$tmp/out")
if [ "$got" != "$want" ]; then
  echo "FAIL: discover in the guest gives"; echo "$got"; echo "wanted"; echo "$want"; cat "$tmp/out"; exit 1
fi
grep -qx "numa 0 cpus=0-15" "$tmp/out" && grep -qx "numa 1 cpus=16-31" "$tmp/out" ||
  { echo "FAIL: the guest's numa lines:"; cat "$tmp/out"; exit 1; }
echo "PASS: discover in the rewritten guest places GPUs 0-3 on node 0 and 4-7 on node 1"
