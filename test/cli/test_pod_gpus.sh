#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The plugin in a Kubernetes pod: the NVIDIA device plugin gives the container some of the
# node's GPUs and leaves CUDA_VISIBLE_DEVICES unset; the NVIDIA container runtime shows it only
# those GPUs' /proc/driver/nvidia/gpus/<bus id>/ directories. Before NCCL loads CUDA the plugin
# takes that list and matches it to the mapping by bus id (visible.h). Each pod is a made-up
# driver root (NCCL_NUMA_DRIVER_ROOT); the last case reads the real /proc/driver in a private
# mount namespace, to show that the plugin reads that path when nothing overrides it.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
command -v python3 >/dev/null || nn_skip "python3 is needed to call the plugin"
nn_tmp nn-pod-gpus
so=$build_dir/libnccl-tuner-numa.so
[ -f "$so" ] || nn_skip "no $so (make all)"
unset NCCL_TOPO_FILE NCCL_DEBUG_SUBSYS
export XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# 8 GPUs, 4 per NUMA node, PCI domain 7f00 (no machine has it); served on the whole node
# (test_env_verdict.sh: h100-gen3), so what a pod gets is the plugin's choice of GPUs.
{ echo "cpu vendor=AuthenticAMD family=25 model=17"
  for i in 0 1 2 3 4 5 6 7; do echo "gpu $i bus=7f00:0$((i + 1)):00.0 numa=$((i / 4)) sm=90 pcie=3x16"; done
} >"$tmp/node.conf"
export NCCL_NUMA_CONFIG=$tmp/node.conf

# pod NAME BUS...: a driver root showing the pod these GPUs (bus numbers in domain 7f00)
pod() {
  local name=$1; shift
  mkdir -p "$tmp/$name/proc/driver/nvidia/gpus"
  for b in "$@"; do
    mkdir "$tmp/$name/proc/driver/nvidia/gpus/7f00:$b:00.0"
    echo "Model: NVIDIA H100 PCIe" >"$tmp/$name/proc/driver/nvidia/gpus/7f00:$b:00.0/information"
  done
}
# served ROOT: the env plugin (v2, NCCL 2.28.9) with that driver root; the served file on stdout
served() {
  NCCL_DEBUG=INFO NCCL_NUMA_DRIVER_ROOT=$1 python3 "$root/test/cli/helpers/env_verdict.py" "$so" v1 2.28.9 show \
    2>"$tmp/log"
}
busids() { grep -o 'busid="[^"]*"' | sed 's/busid="//; s/"$//' | grep -v '^0000' | sort | tr '\n' ' '; }

# A pod with socket 1's four GPUs: their topology alone (one CPU node), their bus ids.
pod one-socket 05 06 07 08
out=$(served "$tmp/one-socket")
check "one socket: one CPU node served" '[ "$(head -n1 <<<"$out")" = "served 1" ]'
check "one socket: the pod's GPUs 7f00:05-08, not the node's others" \
  '[ "$(busids <<<"$out")" = "7f00:05:00.0 7f00:06:00.0 7f00:07:00.0 7f00:08:00.0 " ]'
check "one socket: the log says where the GPUs came from" \
  'grep -qF "the GPUs the NVIDIA driver shows this container: 4 GPUs, all on NUMA node 1" "$tmp/log"'
# Control: the same mapping without a driver list is judged whole (both CPU nodes, 8 GPUs).
out=$(served "$root/test/fixtures/driver/none")
check "control: no driver list, the whole mapping (two CPU nodes)" '[ "$(head -n1 <<<"$out")" = "served 2" ]'

# A pod with both sockets' GPUs: the whole mapping, nothing to say about devices.
pod both-sockets 01 02 03 04 05 06 07 08
out=$(served "$tmp/both-sockets")
check "both sockets: two CPU nodes served" '[ "$(head -n1 <<<"$out")" = "served 2" ]'
check "both sockets: all 8 GPUs" '[ "$(busids <<<"$out" | wc -w)" = 8 ]'
check "both sockets: no devices line" '! grep -q "NVIDIA driver shows" "$tmp/log"'

# A pod with a GPU the mapping does not list: nothing served, a WARN naming GPU and file.
pod unmapped 05 06 0e
out=$(served "$tmp/unmapped")
check "unmapped GPU: no topology served" '[ "$out" = none ]'
check "unmapped GPU: the WARN names the GPU and the mapping" \
  'grep -qF "the GPU at 7f00:0e:00.0 is not in the mapping $tmp/node.conf (no gpu line with bus=7f00:0e:00.0): the mapping does not describe this machine: no topology served, no rules applied" "$tmp/log"'
# ... and the tuner applies no rule: no record is written, the WARN says why.
export NCCL_NUMA_LOG_FILE=$tmp/records.json
NCCL_DEBUG=WARN NCCL_NUMA_DRIVER_ROOT=$tmp/unmapped python3 "$root/test/cli/helpers/plugin_record.py" "$so" 0x1 2 1 \
  2>"$tmp/tuner.log"
check "unmapped GPU: the tuner writes no record" '[ ! -s "$tmp/records.json" ]'
check "unmapped GPU: the tuner WARNs" 'grep -qF "the GPU at 7f00:0e:00.0 is not in the mapping" "$tmp/tuner.log"'
NCCL_DEBUG=WARN NCCL_NUMA_DRIVER_ROOT=$tmp/one-socket python3 "$root/test/cli/helpers/plugin_record.py" "$so" 0x2 4 1 \
  2>"$tmp/tuner.log"
check "control: the one-socket pod's tuner writes its record" 'grep -q "\"configHash\"" "$tmp/records.json"'
unset NCCL_NUMA_LOG_FILE

# The CLI takes the same GPUs: exec --bind-for gives the engine the pod's GPUs' nodes, explain
# judges them (both read the list under NCCL_NUMA_DRIVER_ROOT or exec's --sysfs-root).
for p in one-socket both-sockets unmapped; do
  mkdir -p "$tmp/$p/sys/devices/system/node/node0" "$tmp/$p/sys/devices/system/node/node1"
done
bind() {   # bind POD: the arguments exec appends for sglang, on stdout; its stderr in $tmp/err
  "$cli" exec --config "$tmp/node.conf" --bind-for sglang --sysfs-root "$tmp/$1" -- sh -c 'echo "$@"' sh 2>"$tmp/err"
}
check "exec, one socket: --numa-node 1 1 1 1" '[ "$(bind one-socket)" = "--numa-node 1 1 1 1" ]'
check "exec, one socket: says whose GPUs" \
  'grep -qF "(the NUMA node of each GPU the NVIDIA driver shows this container, in PCI bus order: the mapping'"'"'s GPUs 4 5 6 7; CUDA_VISIBLE_DEVICES is unset)" "$tmp/err"'
check "exec, both sockets: --numa-node 0 0 0 0 1 1 1 1" '[ "$(bind both-sockets)" = "--numa-node 0 0 0 0 1 1 1 1" ]'
check "exec, unmapped GPU: nothing appended, the reason given" \
  '[ -z "$(bind unmapped)" ] && grep -qF "nothing added: the GPUs the NVIDIA driver shows this container: the GPU at 7f00:0e:00.0 is not in the mapping" "$tmp/err"'
explain() { NCCL_NUMA_DRIVER_ROOT=$tmp/$1 "$cli" explain --config "$tmp/node.conf" --nccl-version 2.28.9 --coll allreduce; }
out=$(explain one-socket)
check "explain, one socket: its devices line" \
  'grep -qF "devices:      the GPUs the NVIDIA driver shows this container: 4 GPUs, all on NUMA node 1" <<<"$out"'
check "explain, one socket: 4 ranks by default" 'grep -q "^communicator: 4 ranks on 1 node" <<<"$out"'
out=$(explain unmapped)
check "explain, unmapped GPU: says no topology, no rules" 'grep -qF "no topology served, no rules applied" <<<"$out"'

# The real path: /proc/driver of a private mount namespace holds the one-socket pod's list.
if unshare -m true 2>/dev/null; then
  out=$(unshare -m bash -c 'mount -t tmpfs -o mode=755 nn-pod /proc/driver && cp -r "$1/proc/driver/nvidia" /proc/driver/ &&
      env -u NCCL_NUMA_DRIVER_ROOT NCCL_DEBUG=INFO python3 "$2" "$3" v1 2.28.9 show' _ \
      "$tmp/one-socket" "$root/test/cli/helpers/env_verdict.py" "$so" 2>"$tmp/log")
  check "/proc/driver/nvidia/gpus read by default: one CPU node, the pod's GPUs" \
    '[ "$(head -n1 <<<"$out")" = "served 1" ] && [ "$(busids <<<"$out")" = "7f00:05:00.0 7f00:06:00.0 7f00:07:00.0 7f00:08:00.0 " ]'
else
  echo "skipped: the real /proc/driver case (unshare -m failed); the cases above passed"
fi
nn_finish "the plugin takes a pod's GPUs from the driver's list"
