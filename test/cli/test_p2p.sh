#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa p2p on the stand-in driver (build/tools/libnn-fakecuda.so, test/p2p/fakecuda.c):
# each verdict from the failure it plays (drop, corrupt, hang, nopeer, nvml-off, one bad
# link), the level from the mapping's NUMA nodes, the watchdog (a hang is broken within the
# time limit, and nothing of it is left running), the exit codes 0/1/2/3 and --json.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
FAKE=$build_dir/tools/libnn-fakecuda.so
nn_need_built "$FAKE"
nn_tmp nn-p2p
unset NCCL_NUMA_CONFIG NN_FAKECUDA NN_FAKECUDA_BAD NN_FAKECUDA_GPUS NN_FAKECUDA_TAG NCCL_NUMA_ALLOW_UNTRUSTED
export NCCL_NUMA_CUDA_LIB=$FAKE NCCL_NUMA_NVML_LIB=$FAKE
# the running driver's /proc/driver/nvidia/version is read under this root: none there, so
# driver= is NVML's (the stand-in's 580.95.05) whatever driver this machine has
export NCCL_NUMA_DRIVER_ROOT=$tmp/no-driver
today=$(date -u +%Y-%m-%d)
p2p() { nn_run 120 p2p --ring 1 "$@"; }   # p2p ARGS...: $rc, $out, $err (all GPUs at once for 1 s)
has() { grep -qE -- "$1" "$tmp/out"; }
row() { grep -E "^$1 " "$tmp/out"; }   # row 0-\>1: that pair's row

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

# ---- drop: peer access granted, writes lost ----
NN_FAKECUDA=drop p2p
check "drop: exit 1" "[ $rc -eq 1 ]"
check "drop: the peer write fails with every word wrong, the read works" \
  "row '0->1' | grep -qE 'OK/OK +FAIL +ok +FAIL .*BROKEN' && has '0->1: write: .* 8388608 of 8388608 words wrong'"
check "drop: p2p broken, with the failing pairs named" \
  "grep -qx 'p2p broken gpus=0-1 driver=580.95.05 xproc=failed tested=$today' '$tmp/out' && has '^verdict: peer-to-peer is BROKEN on 0->1, 1->0\.'"

# ---- one bad link among three GPUs ----
NN_FAKECUDA=drop NN_FAKECUDA_BAD=0:2 NN_FAKECUDA_GPUS=3 p2p
check "one bad link 0:2: exit 1, only 0->2 and 2->0 broken" \
  "[ $rc -eq 1 ] && [ \$(grep -c ' BROKEN\$' '$tmp/out') -eq 2 ] && row '0->2' | grep -q BROKEN && row '2->0' | grep -q BROKEN && [ \$(grep -c ' works\$' '$tmp/out') -eq 4 ]"
check "one bad link: p2p broken" "grep -q '^p2p broken ' '$tmp/out' && has 'BROKEN on 0->2, 2->0\.'"

# ---- corrupt: the copy engine returns wrong bytes, kernels fine ----
NN_FAKECUDA=corrupt p2p
check "corrupt: exit 1, write and read ok, the copy fails" \
  "[ $rc -eq 1 ] && row '0->1' | grep -qE 'OK/OK +ok +ok +FAIL' && has '0->1: copy: copy engine .* 2048 of 8388608 words wrong'"
check "corrupt: p2p broken" "grep -q '^p2p broken ' '$tmp/out'"

# ---- nopeer: nothing to verify ----
NN_FAKECUDA=nopeer p2p
check "nopeer: exit 0, no peer access, NVML CNS" "[ $rc -eq 0 ] && row '0->1' | grep -qE ' no +CNS/CNS .*no peer access\$'"
check "nopeer: p2p unsupported" "grep -qx 'p2p unsupported gpus=0-1 driver=580.95.05 tested=$today' '$tmp/out'"
NN_FAKECUDA=nopeer NN_FAKECUDA_BAD=1:2 NN_FAKECUDA_GPUS=4 p2p --mapping "$tmp/two.conf"
check "no peer access on one link: the others verified, SYS, the link named" \
  "[ $rc -eq 0 ] && grep -q '^p2p ok level=SYS' '$tmp/out' && has '^note: no peer access on 1->2, 2->1'"

# ---- nvml-off ----
NN_FAKECUDA=nvml-off p2p
check "nvml-off: exit 0, NVML's absence said, no driver= field" \
  "[ $rc -eq 0 ] && has '^note: NVML gave no P2P status \\(nvmlInit failed' && grep -qx 'p2p ok level=PHB gpus=0-1 xproc=ok tested=$today' '$tmp/out'"
check "nvml-off: unknown NVML status is not called 'not OK'" "! has 'status is not OK'"

# ---- hang: the watchdog ----
tag=nnp2p-$$
NN_FAKECUDA=hang NN_FAKECUDA_TAG=$tag "$cli" p2p --timeout 3 > "$tmp/out" 2> "$tmp/err" &
pid=$!
seen=0
for _ in $(seq 1 50); do
  n=$(pgrep -x "$tag" | wc -l)
  [ "$n" -ge 2 ] && { seen=$n; break; }
  sleep 0.1
done
start=$SECONDS
wait "$pid"
rc=$?
took=$((SECONDS - start))
check "hang: the hung pair and its helper process were running (observed $seen)" "[ $seen -ge 2 ]"
# 2 pairs x 3 s, plus the second pair's start on a loaded machine: bounded, never the hang's forever
check "hang: exit 1 within the time limit (2 pairs x 3 s; took ${took} s after the hang was seen)" "[ $rc -eq 1 ] && [ $took -le 20 ]"
check "hang: the pair is broken: no answer during 'write', killed" "grep -q \"0->1: hung: no answer within 3 s during 'write', killed\" '$tmp/out'"
check "hang: p2p broken" "grep -q '^p2p broken ' '$tmp/out'"
check "hang: nothing of the hung pairs is left running" "! pgrep -x '$tag' >/dev/null"
NN_FAKECUDA=hang NN_FAKECUDA_BAD=1:2 NN_FAKECUDA_GPUS=3 NN_FAKECUDA_TAG=$tag p2p --timeout 10
check "hang on one link: only 1->2 and 2->1 broken, the rest works" \
  "[ $rc -eq 1 ] && [ \$(grep -c ' BROKEN\$' '$tmp/out') -eq 2 ] && row '1->2' | grep -q BROKEN && [ \$(grep -c ' works\$' '$tmp/out') -eq 4 ]"
check "hang on one link: nothing left running" "! pgrep -x '$tag' >/dev/null"

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

# ---- the printed line is a valid mapping line (check-config), for each verdict ----
for mode in ok drop nopeer nvml-off; do
  NN_FAKECUDA=$mode p2p --mapping "$tmp/two.conf" --gpus 0,1
  line=$(grep '^p2p ' "$tmp/out")
  { cat "$tmp/two.conf"; echo "$line"; } > "$tmp/with-line.conf"
  nn_run 30 check-config "$tmp/with-line.conf"
  check "$mode: check-config accepts the printed '$line'" "[ -n '$line' ] && [ $rc -eq 0 ]"
done

# ---- --json ----
NN_FAKECUDA=drop NN_FAKECUDA_BAD=0:1 NN_FAKECUDA_GPUS=3 p2p --json
check "--json: exit 1, one object with pairs, verdict, failing and the mapping line" "[ $rc -eq 1 ] && python3 - '$tmp/out' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['command'] == 'p2p' and d['version'] == 1, d
assert len(d['pairs']) == 6 and len(d['gpus']) == 3
assert d['verdict'] == 'broken' and d['failing'] == ['0->1', '1->0'], d['failing']
assert d['mapping_line'].startswith('p2p broken gpus=0-2 driver=580.95.05 xproc=failed tested='), d['mapping_line']
assert d['ring'] is None and d['advice'] is None and d['incomplete'] is False, d
assert d['gpus_tested'] == '0-2' and d['driver_tested'] == '580.95.05', d
p = [x for x in d['pairs'] if x['a'] == 0 and x['b'] == 1][0]
assert p['write'] == 'fail' and p['read'] == 'ok' and p['state'] == 'broken' and p['latency_us'] is None
q = [x for x in d['pairs'] if x['a'] == 0 and x['b'] == 2][0]
assert q['state'] == 'ok' and q['latency_us'] > 0 and q['bandwidth_gbps'] > 0 and q['peer_access'] is True
assert q['sm_bandwidth_gbps'] > 0 and q['xwrite'] == 'ok' and q['xll16'] == 'ok' and q['ipcread'] == 'ok', q
PY"

nn_finish "test_p2p: all passed"
