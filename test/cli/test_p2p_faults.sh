#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa p2p on the stand-in driver, each verdict from the failure it plays (drop, corrupt,
# hang, nopeer, nvml-off, one bad link), the watchdog (a hang is broken within the time limit,
# and nothing of it is left running), the printed line accepted by check-config, and --json.
. "$(dirname "$0")/helpers/lib.sh"
. "$(dirname "$0")/helpers/p2p_fake.sh" nn-p2p-faults
printf 'gpu 0 bus=0000:11:00.0 numa=0\ngpu 1 bus=0000:12:00.0 numa=0\ngpu 2 bus=0000:13:00.0 numa=1\ngpu 3 bus=0000:14:00.0 numa=1\n' > "$tmp/two.conf"

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

nn_finish "test_p2p_faults: all passed"
