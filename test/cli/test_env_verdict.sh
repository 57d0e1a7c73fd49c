#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The env plugin's auto mode per release NCCL passes to its init: it serves the topology only
# when NCCL's predicted search on it is not worse than on NCCL's own view. Expected verdicts are
# NCCL's own search (nccl-oracle built from v2.28.9-1 and dev) on the same files. The GPUs sit in
# PCI domain 7f00, which no machine running this test has: NCCL's own view is then one flat CPU
# of this machine's CPU kind (/proc/cpuinfo, as NCCL reads it), which the Intel case depends on.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
command -v python3 >/dev/null || nn_skip "python3 is needed to call the plugin"
nn_tmp
so=$build_dir/libnccl-tuner-numa.so
[ -f "$so" ] || nn_skip "no $so (make all)"
unset NCCL_TOPO_FILE NCCL_DEBUG CUDA_VISIBLE_DEVICES
export XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# mapping NAME CPU-LINE GPU-SUFFIX [EXTRA]: 8 GPUs, 4 per NUMA node
mapping() {
  { echo "$2"; [ -n "${4:-}" ] && echo "$4"
    for i in 0 1 2 3 4 5 6 7; do echo "gpu $i bus=7f00:0$((i + 1)):00.0 numa=$((i / 4)) $3"; done; } >"$tmp/$1.conf"
}
# served NAME ABI VERSION WANT(yes|no)
served() {
  local got
  got=$(NCCL_NUMA_CONFIG=$tmp/$1.conf python3 "$root/test/cli/helpers/env_verdict.py" "$so" "$2" "$3" 2>"$tmp/err") \
    || { fail "$1 on $3: the loader failed: $(cat "$tmp/err")"; return; }
  if [ "$4" = yes ] && [ "$got" = "served 2" ]; then echo "ok $1 on $3 ($2): served"
  elif [ "$4" = no ] && [ "$got" = none ]; then echo "ok $1 on $3 ($2): not served"
  else fail "$1 on $3 ($2): wanted served=$4, got '$got'"; fi
}

amd25="cpu vendor=AuthenticAMD family=25 model=17"
# Hopper, gen5 x16 (assumed: not in sysfs): served 1 x 15 GB/s against NCCL's own 2 x 24
mapping h100 "$amd25" "sm=90"
served h100 v2 2.28.9 no
NCCL_DEBUG=WARN NCCL_NUMA_CONFIG=$tmp/h100.conf python3 "$root/test/cli/helpers/env_verdict.py" "$so" v1 2.28.9 >/dev/null 2>"$tmp/warn"
grep -qF 'no topology served (mode=auto, NCCL 2.28.9): NCCL'"'"'s own view (ring 2 x 2' "$tmp/warn" \
  && grep -qF 'rates best; the file with NUMA nodes (ring 1 x 15.0 GB/s, 2 socket crossings | tree 1 x 15.0 GB/s): it gives NCCL less bandwidth than its own view' "$tmp/warn" \
  && grep -qF "the flat file (ring 2 x 24.0 GB/s, 0 socket crossings | tree 2 x 24.0 GB/s): NCCL's own view is flat already" "$tmp/warn" \
  && echo "ok the WARN names both predictions and the release" || fail "WARN: $(cat "$tmp/warn")"
# ... declared gen3 x16: 1 x 12 both ways, not worse
mapping h100-gen3 "$amd25" "sm=90 pcie=3x16"
served h100-gen3 v2 2.28.9 yes
served h100-gen3 v1 2.28.9 yes
# Blackwell on Zen 3/4: 2.28.9's 16 GB/s socket link under the 18 GB/s floor; 2.31.2's 24 GB/s
# passes (1 x 24) and is still worse than NCCL's own 2 x 24
mapping b200 "$amd25" "sm=100 pcie=5x16"
served b200 v2 2.28.9 no
served b200 v2 2.31.2 no
# Emerald Rapids (40 GB/s) served: 2 x 20 (Intel's P2P costs 6/5 through the root complex); NCCL's
# own flat view is 2 x 20 on an Intel machine, 2 x 24 on an AMD one
mapping erp "cpu vendor=GenuineIntel family=6 model=207" "sm=120 pcie=5x16"
case $(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -1) in
  GenuineIntel) served erp v2 2.28.9 yes; served erp v1 2.31.2 yes ;;
  AuthenticAMD) served erp v2 2.28.9 no; served erp v1 2.31.2 no ;;
  *) echo "skipped: the Emerald Rapids case (this machine's CPU is neither Intel nor AMD)" ;;
esac
# mode=numa serves regardless
mapping forced "$amd25" "sm=100 pcie=5x16" "topology mode=numa"
served forced v2 2.28.9 yes
# ... and says, in its log, by how much NCCL's model rates it slower: the factor explain computes
# (the same core function) for this machine's CPU kind
NCCL_DEBUG=WARN NCCL_NUMA_CONFIG=$tmp/forced.conf python3 "$root/test/cli/helpers/env_verdict.py" "$so" v2 2.28.9 >/dev/null 2>"$tmp/warn"
want=$(NCCL_NUMA_CPUINFO=/proc/cpuinfo "$cli" explain --config "$tmp/forced.conf" --nccl-version 2.28.9 \
  | sed -n 's/^topology:     WARNING: //p')
case $want in
  *"NCCL's model makes a 4 GiB all-reduce "*x" slower with this file than with its own view"*)
    grep -qF "nccl-numa WARN: $want" "$tmp/warn" && echo "ok mode=numa: the WARN gives NCCL's modelled factor, as explain does" \
      || fail "mode=numa WARN: wanted '$want', got: $(cat "$tmp/warn")" ;;
  *) fail "explain on mode=numa: no factor in '$want'" ;;
esac

# A `model` line per release: written into the constants every time; NCCL 2.31.x copies its
# defaults over them after the tuner's init (released 2.31.2: ncclTuningCostModelInit), so the
# plugin says it has no effect there, and not on 2.30.7 or 2.32.3 (pre-init copy).
{ echo "$amd25"; echo "model pci-latency-us=7"; grep '^gpu' "$tmp/h100.conf"; } >"$tmp/model.conf"
for rel in 2.30.7 2.31.2 2.32.3; do
  got=$(NCCL_DEBUG=WARN NCCL_NUMA_CONFIG=$tmp/model.conf python3 "$root/test/cli/helpers/model_line.py" "$so" $rel 2>"$tmp/warn")
  [ "$got" = "7.00" ] || fail "model line on $rel: hwLatencies[PCI][Ring][LL] = '$got', not 7.00"
  if [ $rel = 2.31.2 ]; then
    grep -qF "no effect on NCCL 2.31.2: it copies its default constants over the tuner's after init" "$tmp/warn" \
      && echo "ok model line on 2.31.2: says it has no effect" || fail "model line on 2.31.2: no warning ($(cat "$tmp/warn"))"
  else
    grep -q "no effect" "$tmp/warn" && fail "model line on $rel: warned ($(cat "$tmp/warn"))" || echo "ok model line on $rel: takes effect, no warning"
  fi
done
# The process's own GPUs (CUDA_VISIBLE_DEVICES) on the reference 4+4 mapping (the shipped
# example; domain 7f00 so that no device of this machine is read): one socket's four GPUs give
# NCCL one CPU node (it trims the file to the communicator's GPUs), rated the same as its own
# view (test_visible.c), so the file with that node's GPUs and affinity is served; all eight
# keep the two-socket verdict, which 2.28.9's search fails.
sed 's/bus=0000:/bus=7f00:/' "$root/docs/examples/proxmox-epyc-8gpu.conf" >"$tmp/ref.conf"
# visible LIST VERSION WANT-FIRST-LINE [WANT-NUMAID PCI-COUNT]
visible() {
  local got
  got=$(CUDA_VISIBLE_DEVICES=$1 NCCL_DEBUG=INFO NCCL_NUMA_CONFIG=$tmp/ref.conf python3 "$root/test/cli/helpers/env_verdict.py" \
        "$so" v2 "$2" show 2>"$tmp/info") || { fail "CUDA_VISIBLE_DEVICES=$1 on $2: the loader failed: $(cat "$tmp/info")"; return; }
  if [ "$(echo "$got" | head -1)" != "$3" ]; then fail "CUDA_VISIBLE_DEVICES=$1 on $2: wanted '$3', got '$got'"; return; fi
  if [ -n "${4:-}" ]; then
    echo "$got" | grep -q "<cpu numaid=\"$4\" affinity=" || { fail "CUDA_VISIBLE_DEVICES=$1: not node $4's cpu: $got"; return; }
    [ "$(echo "$got" | grep -c '<pci ')" = "$5" ] || { fail "CUDA_VISIBLE_DEVICES=$1: not $5 GPUs: $got"; return; }
  fi
  echo "ok CUDA_VISIBLE_DEVICES=$1 on $2: $3${4:+ (NUMA node $4, $5 GPUs)}"
}
visible 0,1,2,3 2.28.9 "served 1" 1 4
grep -qF "CUDA_VISIBLE_DEVICES=0,1,2,3: 4 GPUs, all on NUMA node 1" "$tmp/info" \
  && echo "ok the log says which GPUs were judged" || fail "no visible-set INFO: $(cat "$tmp/info")"
visible 4,5,6,7 2.28.9 "served 1" 0 4
visible 4,5,6,7 2.31.2 "served 1" 0 4
visible 0,1,2,3,4,5,6,7 2.28.9 none
grep -qF "8 GPUs on more than one NUMA node; NCCL keeps only these of the file, so they are judged alone" "$tmp/info" \
  && echo "ok all eight: judged on both nodes, and the log says why" || fail "no spans INFO: $(cat "$tmp/info")"
visible 3 2.28.9 none
visible GPU-5f3e 2.28.9 none
grep -qF "UUID or MIG entries need the CUDA driver" "$tmp/info" && echo "ok a UUID without the driver: whole mapping, says why" \
  || fail "no UUID INFO: $(cat "$tmp/info")"
# The tuner's scope follows the same GPUs: on a 2+6 mapping a 4-rank communicator is "unknown"
# (GPUs 0-3 span both nodes), but on GPUs 2-5, all on node 1, it is "intra", and on GPUs 0-3
# (2 on each node) it is "cross".
{ echo "$amd25"; for i in 0 1 2 3 4 5 6 7; do echo "gpu $i bus=7f00:0$((i + 1)):00.0 numa=$((i >= 2))"; done; } >"$tmp/26.conf"
# scope LIST WANT: the scope in the tuner's record for 4 ranks on 1 node
scope() {
  rm -f "$tmp/rec"
  ( [ -n "$1" ] && export CUDA_VISIBLE_DEVICES=$1 || unset CUDA_VISIBLE_DEVICES
    NCCL_NUMA_CONFIG=$tmp/26.conf NCCL_NUMA_LOG_FILE=$tmp/rec python3 "$root/test/cli/helpers/plugin_record.py" "$so" 0x1 4 1 )
  grep -qF "\"scope\":\"$2\"" "$tmp/rec" 2>/dev/null && echo "ok tuner scope with CUDA_VISIBLE_DEVICES='$1': $2" \
    || fail "tuner scope with CUDA_VISIBLE_DEVICES='$1': wanted $2 in $(cat "$tmp/rec" 2>&1)"
}
scope "" unknown
scope 2,3,4,5 intra
scope 0,1,2,3 cross
nn_finish "all env-verdict checks passed" "failure(s)"
