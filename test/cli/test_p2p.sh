#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa p2p on the stand-in driver: a pair that works, the level from the mapping's NUMA
# nodes, gpus= and driver= as the plugin reads them, the exit codes 0/2/3, --self and --help.
# The failures it plays (drop, corrupt, hang, nopeer, nvml-off, one bad link), the watchdog
# and --json: test_p2p_faults.sh.
. "$(dirname "$0")/helpers/lib.sh"
. "$(dirname "$0")/helpers/p2p_fake.sh" nn-p2p

# ---- ok: every pair works; no mapping, so the flat view: PHB ----
NN_FAKECUDA_DUMP=$tmp/loaded.ptx p2p --mapping "$root/test/p2p/none" 2>/dev/null
check "a missing --mapping is a usage error (exit 2)" "[ $rc -eq 2 ]"
p2p --mapping none
check "--mapping none: no mapping, as --help says (exit 0, the flat view)" "[ $rc -eq 0 ] && has '^no mapping: every pair counted as PHB'"
if [ -e /etc/nccl-numa.conf ]; then echo "note: /etc/nccl-numa.conf exists: the no-mapping checks read it"; fi
NN_FAKECUDA_DUMP=$tmp/loaded.ptx p2p
check "ok: exit 0" "[ $rc -eq 0 ] || { echo \"\$err\"; false; }"
check "ok: one row per ordered pair, each works" "[ \$(grep -cE '^(0->1|1->0) .* works\$' '$tmp/out') -eq 2 ]"
check "ok: write, read, copy, cross-process, LL and IPC passed; latency, copy-engine and SM GB/s measured" \
  "row '0->1' | grep -qE 'OK/OK +ok +ok +ok +ok +ok +ok +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +works'"
check "ok: all at once: both GPUs' processes checked their neighbours' lines, none wrong" \
  "[ \$(grep -cE '^GPU [01] +[0-9]+ rounds  0 of [1-9][0-9]* lines wrong' '$tmp/out') -eq 2 ]"
[ -e /etc/nccl-numa.conf ] || check "ok: no mapping: the flat view, PHB" "has '^no mapping: every pair counted as PHB'"
check "ok: the mapping line, with the GPUs, NVML's driver version and the date" \
  "grep -qx 'p2p ok level=PHB gpus=0-1 driver=580.95.05 xproc=ok tested=$today' '$tmp/out'"
check "ok: the kernels loaded are the committed PTX, byte for byte" "cmp -s '$tmp/loaded.ptx' '$root/cli/p2p/p2p_kernels.ptx'"
check "each pair announced on stderr" "grep -q 'testing 0->1' '$tmp/err' && grep -q 'testing 1->0' '$tmp/err'"

# ---- the level from the mapping: one node PHB, across nodes SYS ----
printf 'gpu 0 bus=0000:11:00.0 numa=0\ngpu 1 bus=0000:12:00.0 numa=0\ngpu 2 bus=0000:13:00.0 numa=1\ngpu 3 bus=0000:14:00.0 numa=1\n' > "$tmp/two.conf"
NN_FAKECUDA_GPUS=4 p2p --mapping "$tmp/two.conf"
check "4 GPUs on two nodes: 12 pairs work" "[ $rc -eq 0 ] && [ \$(grep -c ' works\$' '$tmp/out') -eq 12 ]"
check "4 GPUs: a pair on one node is PHB, across nodes SYS" "row '0->1' | grep -q ' PHB ' && row '1->2' | grep -q ' SYS '"
check "4 GPUs on two nodes: p2p ok level=SYS" "grep -qx 'p2p ok level=SYS gpus=0-3 driver=580.95.05 xproc=ok tested=$today' '$tmp/out'"
NN_FAKECUDA_GPUS=4 p2p --mapping "$tmp/two.conf" --gpus 2,3
check "--gpus 2,3 (one node): p2p ok level=PHB gpus=2-3, the untested GPUs named" \
  "[ $rc -eq 0 ] && grep -q '^p2p ok level=PHB gpus=2-3 ' '$tmp/out' && has '^note: GPUs 0-1 untested \(--gpus left them out\): the line serves P2P only to a process whose GPUs are all among gpus=2-3' && ! row '0->1'"
NN_FAKECUDA_GPUS=4 NCCL_NUMA_CONFIG=$tmp/two.conf p2p --gpus 0-1
check "NCCL_NUMA_CONFIG is the mapping without --mapping" "has '^mapping: $tmp/two.conf' && grep -q '^p2p ok level=PHB' '$tmp/out'"

# ---- driver= as the plugin reads it: /proc/driver/nvidia/version first ----
mkdir -p "$tmp/drv/proc/driver/nvidia"
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  590.44.01  Tue Nov 18 2025\nGCC version:  gcc 12\n' \
  > "$tmp/drv/proc/driver/nvidia/version"
NCCL_NUMA_DRIVER_ROOT=$tmp/drv p2p
check "driver=: the running driver's version from /proc/driver/nvidia/version, before NVML's" \
  "grep -qx 'p2p ok level=PHB gpus=0-1 driver=590.44.01 xproc=ok tested=$today' '$tmp/out'"
# gpus= counts the mapping's gpu numbers, matched by bus id (here in reverse order)
printf 'gpu 0 bus=0000:14:00.0 numa=1\ngpu 1 bus=0000:13:00.0 numa=1\ngpu 2 bus=0000:12:00.0 numa=0\ngpu 3 bus=0000:11:00.0 numa=0\n' > "$tmp/rev.conf"
NN_FAKECUDA_GPUS=4 p2p --mapping "$tmp/rev.conf" --gpus 0,1
check "gpus=: CUDA devices 0,1 are the mapping's GPUs 3,2" "grep -q '^p2p ok level=PHB gpus=2-3 ' '$tmp/out' && has '^note: GPUs 0-1 untested'"

# ---- exit 3: cannot test ----
NCCL_NUMA_CUDA_LIB=$tmp/absent.so p2p
check "no driver: exit 3, naming it" "[ $rc -eq 3 ] && grep -q 'cannot test: no CUDA driver: NCCL_NUMA_CUDA_LIB=$tmp/absent.so' '$tmp/err'"
NN_FAKECUDA_GPUS=1 p2p
check "one GPU: exit 3, at least 2 GPUs needed" "[ $rc -eq 3 ] && grep -q 'needs at least 2 GPUs.*(the driver lists 1 GPU)' '$tmp/err' && [ -z \"\$out\" ]"
NN_FAKECUDA_GPUS=0 p2p
check "no GPU: exit 3" "[ $rc -eq 3 ] && grep -q 'the driver lists 0 GPUs' '$tmp/err'"
NN_FAKECUDA=bogus p2p
check "a driver whose cuInit fails: exit 3, the CUresult named" "[ $rc -eq 3 ] && grep -q 'cuInit failed: CUDA_ERROR_INVALID_VALUE (1)' '$tmp/err'"
mkdir -m 0755 "$tmp/lib" && cp "$FAKE" "$tmp/lib/" && chmod 0664 "$tmp/lib/libnn-fakecuda.so"
NCCL_NUMA_CUDA_LIB=$tmp/lib/libnn-fakecuda.so p2p
check "a group-writable NCCL_NUMA_CUDA_LIB is not loaded (trust.h): exit 3" "[ $rc -eq 3 ] && grep -q 'not trusted' '$tmp/err'"

# ---- --self: one GPU, the kernels with itself ----
NN_FAKECUDA_GPUS=1 p2p --self
check "--self on one GPU: exit 0, 0->0 loaded, ran, timed; no mapping line" \
  "[ $rc -eq 0 ] && row '0->0' | grep -qE 'self +ok +ok +ok +- +- +- +[0-9.]+ +[0-9.]+ +- +works' && has '^verdict: self-test passed' && ! grep -q '^p2p ' '$tmp/out'"

# ---- exit 2: usage ----
for args in "--bogus" "--timeout 0" "--timeout x" "--gpus 5" "--gpus x" "--gpus 1" "extra" "--gpus"; do
  # shellcheck disable=SC2086
  p2p $args
  check "usage error: p2p $args (exit 2)" "[ $rc -eq 2 ] && [ -n \"\$err\" ]"
done
p2p --help
check "--help: exit 0, the usage, every option listed" \
  "[ $rc -eq 0 ] && has '^usage: nccl-numa p2p' && for o in gpus timeout deadline ring mapping config update self json; do has \"^  --\$o \" || exit 1; done"

nn_finish "test_p2p: all passed"
