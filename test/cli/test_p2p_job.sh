#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa p2p tested as a job uses peer memory, on the stand-in driver (test/p2p/fakecuda.c):
# across processes (ipc-broken), all GPUs at once (concurrent-drop), the per-socket advice on
# two NUMA nodes, `--update` twice on a mapping (every other byte kept, owner and mode kept,
# an untrusted file refused), and what the env plugin then serves to a process by its GPUs
# and the running driver (build/tools/nn_plugin_lines asks it as NCCL would).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
FAKE=$root/build/tools/libnn-fakecuda.so
LINES=$root/build/tools/nn_plugin_lines
SO=$root/build/libnccl-tuner-numa.so
nn_need_built "$FAKE"
nn_need_built "$LINES"
nn_tmp nn-p2pjob
unset NCCL_NUMA_CONFIG NN_FAKECUDA NN_FAKECUDA_BAD NN_FAKECUDA_GPUS NN_FAKECUDA_TAG NCCL_NUMA_ALLOW_UNTRUSTED \
  CUDA_VISIBLE_DEVICES NCCL_P2P_LEVEL NCCL_P2P_DISABLE NCCL_WIN_ENABLE NCCL_TOPO_FILE
export NCCL_NUMA_CUDA_LIB=$FAKE NCCL_NUMA_NVML_LIB=$FAKE NN_FAKECUDA_SHARED=$tmp/fake.lock
today=$(date -u +%Y-%m-%d)
p2p() { nn_run 300 p2p --ring 1 "$@"; }   # $rc, $out, $err
has() { grep -qE -- "$1" "$tmp/out"; }
row() { grep -E "^$1 " "$tmp/out"; }
driver_root() {   # driver_root VERSION: the running NVIDIA driver, as /proc shows it
  mkdir -p "$tmp/drv/proc/driver/nvidia"
  printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (dvs-builder@U16)  Thu Sep 25 2025\nGCC version:  gcc 12\n' \
    "$1" > "$tmp/drv/proc/driver/nvidia/version"
}
driver_root 580.95.05
export NCCL_NUMA_DRIVER_ROOT=$tmp/drv

# ---- ipc-broken: fine in one process, lost through another process's memory ----
NN_FAKECUDA=ipc-broken p2p --mapping none
check "ipc-broken: exit 1; in one process write, read and copy pass, across processes they fail" \
  "[ $rc -eq 1 ] && row '0->1' | grep -qE 'OK/OK +ok +ok +ok +FAIL +FAIL +FAIL .*BROKEN\$'"
check "ipc-broken: the step is named: cross-process write, checked by b's process" \
  "has '^  0->1: cross-process write: a.s stores into b.s process.s memory \\(cuMem, fd over a socket\\), checked by b.s process: 8388608 of 8388608 words wrong'"
check "ipc-broken: the LL stores and the legacy IPC path are named too" \
  "has 'cross-process LL 16-byte stores: .* wrong' && has 'legacy IPC write: .* wrong'"
check "ipc-broken: p2p broken, xproc=failed" "grep -qx 'p2p broken gpus=0-1 driver=580.95.05 xproc=failed tested=$today' '$tmp/out'"

# ---- concurrent-drop: each pair passes alone, writes lost when all GPUs write at once ----
NN_FAKECUDA=concurrent-drop p2p --mapping none
check "concurrent-drop: exit 1, every pair works alone" \
  "[ $rc -eq 1 ] && [ \$(grep -c ' works\$' '$tmp/out') -eq 2 ] && ! grep -q ' BROKEN\$' '$tmp/out'"
check "concurrent-drop: the step is named: all at once, with the lines found wrong" \
  "has '^  all at once: GPU [01].s process found [1-9][0-9]* of [0-9]+ LL lines \\(data and flag\\) from its ring neighbours wrong while every GPU wrote at once'"
check "concurrent-drop: p2p broken, the verdict says when" \
  "has '^verdict: peer-to-peer is BROKEN when every GPU writes at once \\(each pair alone works\\)' && grep -qx 'p2p broken gpus=0-1 driver=580.95.05 tested=$today' '$tmp/out'"

# ---- two NUMA nodes, the pairs across them failing: a clique per socket ----
printf 'gpu 0 bus=0000:11:00.0 numa=0\ngpu 1 bus=0000:12:00.0 numa=0\ngpu 2 bus=0000:13:00.0 numa=1\ngpu 3 bus=0000:14:00.0 numa=1\n' > "$tmp/two.conf"
NN_FAKECUDA=drop NN_FAKECUDA_BAD=split:2 NN_FAKECUDA_GPUS=4 p2p --mapping "$tmp/two.conf"
check "cross-socket broken: exit 1, the 8 pairs across nodes broken, the 4 within work" \
  "[ $rc -eq 1 ] && [ \$(grep -c ' SYS .* BROKEN\$' '$tmp/out') -eq 8 ] && [ \$(grep -c ' PHB .* works\$' '$tmp/out') -eq 4 ]"
check "cross-socket broken: the advice names the next steps, the line keeps P2P off meanwhile" \
  "has 'Every failing pair crosses NUMA nodes and every pair within a node passed: give each socket a clique of its own on the host \\(.nccl-numa proxmox-numa --vm-config FILE --p2p-clique=socket --write.\\), stop and start the VM, and run .nccl-numa p2p --update MAPPING. again' && has 'Until then the line below keeps P2P off' && grep -q '^p2p broken gpus=0-3 ' '$tmp/out'"
NN_FAKECUDA=drop NN_FAKECUDA_BAD=0:1 NN_FAKECUDA_GPUS=4 p2p --mapping "$tmp/two.conf"
check "a failing pair within a node: no per-socket advice, remove the clique" \
  "[ $rc -eq 1 ] && ! has 'p2p-clique=socket' && has 'remove the clique on the host'"
# ... and after the clique per socket: the driver refuses the pairs across nodes
NN_FAKECUDA=nopeer NN_FAKECUDA_BAD=split:2 NN_FAKECUDA_GPUS=4 p2p --mapping "$tmp/two.conf"
check "clique per socket: exit 0, p2p ok level=PHB over the 4 GPUs" \
  "[ $rc -eq 0 ] && grep -qx 'p2p ok level=PHB gpus=0-3 driver=580.95.05 xproc=ok tested=$today' '$tmp/out'"
check "clique per socket: the note says NCCL keeps the pairs across nodes on host memory since the driver refuses them" \
  "has '^note: the driver refuses peer access across NUMA nodes \\(0->2, 0->3, 1->2, 1->3, 2->0, 2->1, 3->0, 3->1\\)' && has 'keeps those pairs on host memory'"
check "clique per socket: all at once, a ring per NUMA node" \
  "[ \$(grep -cE '^GPU [0-3] +[0-9]+ rounds  0 of' '$tmp/out') -eq 4 ] && has 'at once for 1 s \\(a ring per NUMA node\\)'"

# ---- --update twice on an 8-GPU mapping of two nodes; the plugin then serves it by GPUs ----
{
  echo '# the reference guest: 8 GPUs, two sockets'
  for g in 0 1 2 3 4 5 6 7; do printf 'gpu %d bus=0000:%02x:00.0 numa=%d\n' "$g" $((0x11 + g)) $((g / 4)); done
  printf '\n# a comment  with  spacing kept\nenv NCCL_SOCKET_IFNAME=lo\n'
} > "$tmp/map.conf"
chmod 0640 "$tmp/map.conf"
cp "$tmp/map.conf" "$tmp/map.orig"
start=$SECONDS
NN_FAKECUDA_GPUS=8 p2p --gpus 0-3 --update "$tmp/map.conf"
took=$((SECONDS - start))
line="p2p ok level=PHB gpus=0-3 driver=580.95.05 xproc=ok tested=$today"
check "--update (1st): exit 0, the line added at the end, every other byte kept (12 pairs and a ring: ${took} s)" \
  "[ $rc -eq 0 ] && { cat '$tmp/map.orig'; echo '$line'; } | cmp -s - '$tmp/map.conf'"
check "--update (1st): said on stderr, the untested GPUs named" \
  "grep -qF 'map.conf: added the p2p line: $line' '$tmp/err' && has '^note: GPUs 4-7 untested \\(--gpus left them out\\)' && has '^the line written to '"
check "--update (1st): owner and mode kept" "[ \$(stat -c %a '$tmp/map.conf') = 640 ]"
ask() {   # ask CUDA_VISIBLE_DEVICES: what the env plugin serves a process on those GPUs
  NN_PLUGIN_LINES_ASK=NCCL_P2P_LEVEL,NCCL_P2P_DISABLE,NCCL_WIN_ENABLE NCCL_NUMA_CONFIG=$tmp/map.conf \
    CUDA_VISIBLE_DEVICES=$1 timeout 60 "$LINES" "$SO" 4 1 > "$tmp/ask" 2>&1
}
ask 0,1,2,3
check "served to GPUs 0-3: NCCL_P2P_LEVEL=PHB, P2P left on" \
  "grep -qx 'ask NCCL_P2P_LEVEL=PHB' '$tmp/ask' && grep -qx 'ask NCCL_P2P_DISABLE=(unset)' '$tmp/ask' && grep -q 'p2p ok (mapping line 13): NCCL_P2P_LEVEL=PHB served' '$tmp/ask'"
ask 0,1,2,3,4,5,6,7
check "not served to all 8: P2P off (NCCL_P2P_DISABLE=1, NCCL_WIN_ENABLE=0), said once in a WARN naming GPUs 4-7" \
  "grep -qx 'ask NCCL_P2P_LEVEL=(unset)' '$tmp/ask' && grep -qx 'ask NCCL_P2P_DISABLE=1' '$tmp/ask' && grep -qx 'ask NCCL_WIN_ENABLE=0' '$tmp/ask' && [ \$(grep -c 'NCCL WARN .*GPUs 4-7 of this process were not tested (p2p line 13: gpus=0-3)' '$tmp/ask') -eq 1 ]"
driver_root 590.44.01
ask 0,1,2,3
check "a driver change: GPUs 0-3 get P2P off, the WARN names both versions" \
  "grep -qx 'ask NCCL_P2P_DISABLE=1' '$tmp/ask' && grep -q 'NCCL WARN .*the NVIDIA driver is now 590.44.01, the p2p line (line 13) was tested with 580.95.05' '$tmp/ask'"
# the second --update, on the new driver, replaces the line in place
NN_FAKECUDA=drop NN_FAKECUDA_GPUS=8 p2p --gpus 0,1 --update "$tmp/map.conf"
line2="p2p broken gpus=0-1 driver=590.44.01 xproc=failed tested=$today"
check "--update (2nd): exit 1 (broken), the line replaced in place, the rest byte for byte" \
  "[ $rc -eq 1 ] && { cat '$tmp/map.orig'; echo '$line2'; } | cmp -s - '$tmp/map.conf' && grep -qF 'replaced the p2p line: $line2' '$tmp/err'"
ask 0,1,2,3
check "broken serves P2P off to every process: NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0" \
  "grep -qx 'ask NCCL_P2P_DISABLE=1' '$tmp/ask' && grep -qx 'ask NCCL_WIN_ENABLE=0' '$tmp/ask' && grep -q 'p2p broken (mapping line 13): NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0 served' '$tmp/ask'"
NCCL_P2P_DISABLE=0 NCCL_WIN_ENABLE=1 ask 0,1
check "broken: the user's own values win, and the log says so" \
  "grep -qx 'ask NCCL_P2P_DISABLE=0' '$tmp/ask' && grep -qx 'ask NCCL_WIN_ENABLE=1' '$tmp/ask' && grep -q 'NCCL_WIN_ENABLE=1 is set in the environment: the user.s value wins' '$tmp/ask'"
driver_root 580.95.05

# ---- --update refuses what it may not write, and leaves the file as it was ----
cp "$tmp/map.orig" "$tmp/gw.conf"
chmod 0664 "$tmp/gw.conf"
NN_FAKECUDA_GPUS=8 p2p --gpus 0,1 --update "$tmp/gw.conf"
check "--update of a group-writable mapping: refused before testing (exit 2), not trusted, unchanged" \
  "[ $rc -eq 2 ] && grep -q 'gw.conf: not trusted: writable by group' '$tmp/err' && cmp -s '$tmp/map.orig' '$tmp/gw.conf'"
printf 'gpu 0 bus=0000:11:00.0 numa=0\ngpu 1 bus=0000:12:00.0 numa=0\nenv NCCL_P2P_LEVEL=SYS\n' > "$tmp/env.conf"
cp "$tmp/env.conf" "$tmp/env.orig"
p2p --update "$tmp/env.conf"
check "--update where the new line would make the mapping invalid: exit 4, the problem named, unchanged" \
  "[ $rc -eq 4 ] && grep -q 'env: NCCL_P2P_LEVEL conflicts with the p2p line' '$tmp/err' && grep -q 'left as it was' '$tmp/err' && cmp -s '$tmp/env.orig' '$tmp/env.conf'"
p2p --update "$tmp/map.conf" --self
check "--update with --self: a usage error" "[ $rc -eq 2 ]"
p2p --update "$tmp/map.conf" --mapping "$tmp/two.conf"
check "--update with another --mapping: a usage error" "[ $rc -eq 2 ] && grep -q 'names another' '$tmp/err'"

# ---- the whole run's deadline: two hanging pairs of 30 s each end within --deadline ----
start=$SECONDS
NN_FAKECUDA=hang p2p --mapping none --timeout 30 --deadline 10
took=$((SECONDS - start))
check "--deadline 10: two hanging pairs stop within it (took ${took} s), broken" \
  "[ $rc -eq 1 ] && [ $took -le 20 ] && grep -q '^p2p broken ' '$tmp/out'"

nn_finish "test_p2p_job: all passed"
